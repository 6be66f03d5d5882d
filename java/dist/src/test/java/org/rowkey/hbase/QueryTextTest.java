package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.ParseFilter;
import org.junit.jupiter.api.Test;

/**
 * Queries and schemas as text in Java: what toString, toWhereClause and toText print parses back
 * to an equal query or schema (random queries of seed 000's kind, anyOf, reversed and limited);
 * errors name the character; {@link RowKeyWhere} from the filter language serializes and parses on
 * the "RegionServer" side ({@code parseFrom}) with clear errors.
 */
class QueryTextTest {
    private final RowKeySchema schema = TestData.seedSchema();

    @Test
    void schemaTextRoundTrips() {
        assertEquals("md5url md5(8), sitecode javaHash, status int32, code int32, sdate int32, type int32, free bool,"
                + " close bool, queue int32, scantype int32", schema.toText());
        assertEquals(schema, RowKeySchema.parse(schema.toText()));
        assertEquals(schema, RowKeySchema.parse(schema.toString()));
        RowKeySchema odd = RowKeySchema.builder().salt(16, "a b").int64("a b").descending().fixedString("in", 4)
                .fixedBytes("y", 2).timestamp("t").reversedTimestamp("r").build();
        assertEquals("salt 16 buckets of (\"a b\"), \"a b\" int64 DESC, \"in\" fixedString(4), y fixedBytes(2), t timestamp,"
                + " r reversedTimestamp", odd.toText());
        assertEquals(odd, RowKeySchema.parse(odd.toString()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RowKeySchema.parse("a int32 b int64"));
        assertEquals("RowKeySchema.parse: syntax error at character 9: expected ',' or the end of the text, found 'b'", e.getMessage());
    }

    @Test
    void randomQueriesRoundTripThroughTheirText() {
        Random random = new Random(24);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            rows.add(SeedTableIT.randomRow(random, i));
        }
        for (int q = 0; q < 300; q++) {
            RowKeyQuery query = randomQuery(random, rows);
            if (q % 3 == 0) {
                query = RowKeyQuery.anyOf(query, randomQuery(random, rows));
            }
            if (q % 5 == 0) {
                query.reversed().limit(1 + q);
            }
            RowKeyQuery fromString = RowKeyQuery.parse(schema, query.toString());
            assertEquals(query, fromString, query.toString());
            assertEquals(query.toString(), fromString.toString());
            if (q % 5 != 0) {
                assertEquals(query, RowKeyQuery.parse(schema, query.toWhereClause()));
                assertEquals(query.toString(), RowKeyQuery.parse(schema, query.explain().split("\n")[0]).toString());
            }
        }
    }

    private RowKeyQuery randomQuery(Random random, List<Map<String, Object>> rows) {
        RowKeyQuery query = RowKeyQuery.on(schema);
        for (SeedTableIT.Condition c : SeedTableIT.randomQuery(random, rows)) {
            c.addTo(query);
        }
        return query;
    }

    @Test
    void theIssuesQueryReadsAsTheBuilders() {
        RowKeyQuery parsed = RowKeyQuery.parse(schema, "md5url = 'http://www.caac.gov.cn/E1/E2/' AND sdate BETWEEN 20161201"
                + " AND 20161209 AND code IN (404, 503) AND NOT free");
        RowKeyQuery built = RowKeyQuery.on(schema).eq("md5url", "http://www.caac.gov.cn/E1/E2/").between("sdate", 20161201, 20161209)
                .in("code", 404, 503).eq("free", false);
        assertEquals(built, parsed);
        assertEquals("RowKeyQuery[md5url = 'http://www.caac.gov.cn/E1/E2/' AND sdate BETWEEN 20161201 AND 20161209 AND code"
                + " IN (404, 503) AND free = false]", parsed.toString());
        RowKeyQuery or = RowKeyQuery.parse(schema, "code = 404 AND (sdate = 1 OR sdate = 2)");
        assertEquals(RowKeyQuery.anyOf(RowKeyQuery.on(schema).eq("code", 404).eq("sdate", 1),
                RowKeyQuery.on(schema).eq("code", 404).eq("sdate", 2)), or);
        assertFalse(or.equals(built));
    }

    @Test
    void parseErrorsNameTheCharacterAndTheField() {
        IllegalArgumentException syntax = assertThrows(IllegalArgumentException.class, () -> RowKeyQuery.parse(schema, "code = 404 AND"));
        assertEquals("RowKeyQuery.parse: syntax error at character 15: expected a condition: a field name, NOT, TRUE or '(',"
                + " found the end of the text", syntax.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> RowKeyQuery.parse(schema, "code = 1 OR nope = 2"));
        assertEquals("RowKeyQuery.parse: at character 13: unknown field 'nope'", unknown.getMessage());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class, () -> RowKeyQuery.parse(schema, "md5url > 'a'"));
        assertTrue(range.getMessage().startsWith("RowKeyQuery.parse: at character 1: field 'md5url': > is a range condition"),
                range.getMessage());
        char[] huge = new char[(1 << 20) + 1];
        Arrays.fill(huge, ' ');
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class, () -> RowKeyQuery.parse(schema, "code IN (" + new String(huge) + "1)"));
        assertTrue(tooLong.getMessage().contains("text length in bytes is 1048588, at most 1048576"), tooLong.getMessage());
    }

    @Test
    void theFilterLanguageMakesAFilterThatParsesOnTheServerSide() throws Exception {
        RowKeyWhere.register();
        String text = RowKeyWhere.filterString("md5url = 'it''s' AND code = 404", schema);
        assertEquals("RowKeyWhere('md5url = ''it''''s'' AND code = 404', '" + schema.toText() + "')", text);
        Filter parsed = new ParseFilter().parseFilterString(text);
        assertTrue(parsed instanceof RowKeyWhere, parsed.toString());
        RowKeyWhere server = RowKeyWhere.parseFrom(parsed.toByteArray());
        assertTrue(server.isBound());
        assertArrayEquals(parsed.toByteArray(), server.toByteArray());

        RowKeyWhere catalog = (RowKeyWhere) new ParseFilter().parseFilterString("RowKeyWhere('code = 404')");
        assertFalse(RowKeyWhere.parseFrom(catalog.toByteArray()).isBound());

        DeserializationException bad = assertThrows(DeserializationException.class, () -> RowKeyWhere.parseFrom(
                new ParseFilter().parseFilterString(RowKeyWhere.filterString("code = = 1", schema)).toByteArray()));
        assertEquals("RowKeyWhere('code = = 1'): RowKeyQuery.parse: syntax error at character 8: expected a value: an integer,"
                + " true, false, 'string' or x'hex bytes', found '='", bad.getMessage());
        DeserializationException badSchema = assertThrows(DeserializationException.class, () -> RowKeyWhere.parseFrom(
                new ParseFilter().parseFilterString("RowKeyWhere('code = 1', 'code int33')").toByteArray()));
        assertTrue(badSchema.getMessage().contains("RowKeySchema.parse: syntax error at character 6: expected a field type"),
                badSchema.getMessage());
        assertThrows(DeserializationException.class, () -> RowKeyWhere.parseFrom(new byte[] {(byte) 0xff, 1}));
        assertThrows(IllegalArgumentException.class, () -> new ParseFilter().parseFilterString("RowKeyWhere()"));
    }
}

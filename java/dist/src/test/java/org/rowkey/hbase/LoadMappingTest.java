package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.rowkey.hbase.InputRecords.Format;

/** The bulk load's input records and mapping: conversions by key field type, and what is rejected with which reason. */
class LoadMappingTest {
    private final RowKeySchema schema = RowKeySchema.builder().md5("url", 8).fixedString("site", 6).timestamp("at")
            .bool("free").int32("code").build();

    private LoadMapping mapping(String... rules) {
        return LoadMapping.parse(schema, Arrays.asList(rules));
    }

    private String reason(LoadMapping m, Map<String, Object> record) {
        return assertThrows(LoadMapping.Rejected.class, () -> m.rowKey(record)).getMessage();
    }

    @Test
    void aMongoExportLineEncodesAsTheSameValuesGivenDirectly() throws Exception {
        Map<String, Object> record = InputRecords.json("{ \"_id\" : { \"$oid\" : \"584a6e030cf29ba18da2fcd5\"} ,"
                + " \"link\" : \"http://www.nmlc.gov.cn/zsyz.htm\", \"site\": \"s1\", \"intime\" : { \"$date\" : 1481272835222},"
                + " \"free\" : 0, \"code\": 404, \"memo\": {\"a\": [1]}, \"none\": null}");
        assertEquals("584a6e030cf29ba18da2fcd5", record.get("_id"));
        assertEquals("{\"a\":[1]}", record.get("memo"));
        assertTrue(!record.containsKey("none"));
        LoadMapping m = mapping("key url=link", "key at=intime", "column f:id=_id", "column f:code=code:int");
        byte[] expected = schema.encode(TestData.map("url", "http://www.nmlc.gov.cn/zsyz.htm", "site", "s1",
                "at", 1481272835222L, "free", false, "code", 404));
        assertArrayEquals(expected, m.rowKey(record));
        assertArrayEquals(Bytes.toBytes("584a6e030cf29ba18da2fcd5"), LoadMapping.columnValue(m.columns().get(0), record));
        assertArrayEquals(Bytes.toBytes(404), LoadMapping.columnValue(m.columns().get(1), record));
        LoadMapping.ColumnRule intColumn = m.columns().get(1);
        assertTrue(assertThrows(LoadMapping.Rejected.class, () -> LoadMapping.columnValue(intColumn,
                TestData.map("code", "4.5"))).getMessage().contains("not a whole number in the range of int"));
        assertTrue(assertThrows(LoadMapping.Rejected.class, () -> LoadMapping.columnValue(intColumn,
                TestData.map("code", "3000000000"))).getMessage().contains("column f:code"));
        assertNull(LoadMapping.columnValue(new LoadMapping.ColumnRule(Bytes.toBytes("f"), Bytes.toBytes("x"), "absent",
                "string"), record));
        // An ISO-8601 $date, and text for every type as CSV gives it.
        Map<String, Object> iso = InputRecords.json("{\"link\": \"u\", \"site\": \"s1\", \"intime\": {\"$date\": "
                + "\"2016-12-09T08:40:35.222Z\"}, \"free\": true, \"code\": 404}");
        assertArrayEquals(expected("u", Instant.parse("2016-12-09T08:40:35.222Z").toEpochMilli(), true), m.rowKey(iso));
        List<String> header = InputRecords.header(Format.CSV, "link,site,intime,free,code");
        Map<String, Object> csv = InputRecords.delimited(Format.CSV, header, "\"u\",s1,1481272835222,TRUE,404");
        assertArrayEquals(expected("u", 1481272835222L, true), m.rowKey(csv));
    }

    private byte[] expected(String url, long at, boolean free) {
        return schema.encode(TestData.map("url", url, "site", "s1", "at", at, "free", free, "code", 404));
    }

    @Test
    void csvQuotesAndTsvTabsSplitAsWritten() throws Exception {
        assertEquals(Arrays.asList("a,b", "say \"hi\"", ""), InputRecords.split(Format.CSV, "\"a,b\",\"say \"\"hi\"\"\","));
        assertEquals(Arrays.asList("a,b", "c", ""), InputRecords.split(Format.TSV, "a,b\tc\t"));
        assertTrue(assertThrows(LoadMapping.Rejected.class, () -> InputRecords.split(Format.CSV, "\"open"))
                .getMessage().contains("not closed"));
        List<String> header = InputRecords.header(Format.CSV, "a,b");
        assertTrue(assertThrows(LoadMapping.Rejected.class, () -> InputRecords.delimited(Format.CSV, header, "1,2,3"))
                .getMessage().contains("3 fields where the header has 2"));
    }

    @Test
    void whatCannotBeEncodedIsRejectedNamingTheFieldAndTheReason() throws Exception {
        LoadMapping m = mapping("column f:q=url");
        Map<String, Object> good = TestData.map("url", "u", "site", "s1", "at", "1481272835222", "free", "1", "code", "404");
        m.rowKey(good);
        Map<String, Object> missing = TestData.map();
        missing.putAll(good);
        missing.remove("code");
        assertTrue(reason(m, missing).contains("key field 'code': input field 'code' is missing"), reason(m, missing));
        assertTrue(reason(m, with(good, "code", "abc")).contains("'code'") && reason(m, with(good, "code", "abc"))
                .contains("not a number"));
        assertTrue(reason(m, with(good, "code", "4.5")).contains("code"), reason(m, with(good, "code", "4.5")));
        assertTrue(reason(m, with(good, "code", "99999999999")).contains("code"));
        assertTrue(reason(m, with(good, "free", "7")).contains("key field 'free': '7' is not a bool"), reason(m, with(good, "free", "7")));
        // A bool's every accepted spelling: 1/0 as they are, true/false in any case, trimmed.
        for (String yes : new String[] {"1", " 1 ", "true", "TRUE", " True"}) {
            assertArrayEquals(m.rowKey(good), m.rowKey(with(good, "free", yes)), yes);
        }
        for (String no : new String[] {"0", "0 ", "false", "False"}) {
            assertArrayEquals(m.rowKey(with(good, "free", "false")), m.rowKey(with(good, "free", no)), no);
        }
        assertTrue(!Arrays.equals(m.rowKey(good), m.rowKey(with(good, "free", "0"))));
        assertTrue(reason(m, with(good, "at", "yesterday")).contains("ISO-8601"));
        assertTrue(reason(m, with(good, "site", "longer than six")).contains("site"),
                reason(m, with(good, "site", "longer than six")));
        Map<String, Object> json = InputRecords.json("{\"url\": 5, \"site\": \"s1\", \"at\": 1, \"free\": 0, \"code\": 1}");
        assertTrue(reason(m, json).contains("key field 'url': 5 is not a string"), reason(m, json));
        assertTrue(assertThrows(LoadMapping.Rejected.class, () -> InputRecords.json("{\"url\": ")).getMessage()
                .startsWith("not JSON"));
        assertTrue(assertThrows(LoadMapping.Rejected.class, () -> InputRecords.json("[1]")).getMessage()
                .contains("not a JSON object"));
    }

    private static Map<String, Object> with(Map<String, Object> record, String field, Object value) {
        Map<String, Object> copy = TestData.map();
        copy.putAll(record);
        copy.put(field, value);
        return copy;
    }

    @Test
    void badRulesAreRefusedByName() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> mapping("key nope=x", "column f:q=x"))
                .getMessage().contains("no field 'nope'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> mapping("column f:q=x:float"))
                .getMessage().contains("unknown column type 'float'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> mapping("column fq=x"))
                .getMessage().contains("FAMILY:QUALIFIER"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> mapping("colum f:q=x"))
                .getMessage().contains("unknown kind"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LoadMapping.parse(schema,
                Collections.singletonList("# only a comment"))).getMessage().contains("no column"));
    }

    private static String touch(File dir, String name) throws IOException {
        File f = new File(dir, name);
        f.getParentFile().mkdirs();
        Files.write(f.toPath(), new byte[] {'{', '}', '\n'});
        return f.toURI().toString();
    }

    private static List<String> names(List<Path> files) {
        List<String> out = new ArrayList<>();
        for (Path f : files) {
            out.add(f.getParent().getName() + "/" + f.getName());
        }
        return out;
    }

    /**
     * The load order of input files (a later line of a key replaces an earlier one): the inputs as
     * given, a directory's files by name (hidden ones left out), a glob's matches by name; an input
     * that names nothing loadable is refused by name.
     */
    @Test
    void inputFilesComeInLoadOrderAndBadInputsAreRefusedByName(@TempDir File tmp) throws Exception {
        Configuration conf = localFiles();
        String first = touch(tmp, "z/first.json");
        touch(tmp, "d/b.json");
        touch(tmp, "d/a.json");
        touch(tmp, "d/_SUCCESS");
        touch(tmp, "d/.a.json.crc");
        touch(tmp, "g/2.json");
        touch(tmp, "g/1.json");
        String dir = new File(tmp, "d").toURI().toString();
        String glob = new File(tmp, "g").toURI() + "*.json";
        assertEquals(Arrays.asList("z/first.json", "d/a.json", "d/b.json", "g/1.json", "g/2.json"),
                names(InputRecords.files(Arrays.asList(first, dir, glob), conf)));

        String missing = new File(tmp, "none.json").toURI().toString();
        String reason = assertThrows(IllegalArgumentException.class, () -> InputRecords.files(Arrays.asList(first, missing),
                conf)).getMessage();
        assertTrue(reason.contains(missing) && reason.contains("does not exist"), reason);
        reason = assertThrows(IllegalArgumentException.class, () -> InputRecords.files(Arrays.asList(dir, first, dir),
                conf)).getMessage();
        assertTrue(reason.contains("a.json") && reason.contains("given twice"), reason);
        touch(tmp, "nested/inner/x.json");
        String nested = new File(tmp, "nested").toURI().toString();
        reason = assertThrows(IllegalArgumentException.class, () -> InputRecords.files(Collections.singletonList(nested),
                conf)).getMessage();
        assertTrue(reason.contains("inner") && reason.contains("is a directory"), reason);
        assertTrue(new File(tmp, "empty").mkdir());
        String empty = new File(tmp, "empty").toURI().toString();
        reason = assertThrows(IllegalArgumentException.class, () -> InputRecords.files(Collections.singletonList(empty),
                conf)).getMessage();
        assertTrue(reason.contains("holds no input file"), reason);
    }

    /**
     * A configuration for the local file system that never asks Hadoop who the user is: its cache key
     * does (UserGroupInformation), and Hadoop 2.10 cannot tell on Java 24+ (HADOOP-19212), where the
     * FFM pass runs the unit tests. An uncached file system is made without it.
     */
    static Configuration localFiles() {
        Configuration conf = new Configuration(false);
        conf.setBoolean("fs.file.impl.disable.cache", true);
        return conf;
    }
}

package org.rowkey.hbase.demo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Predicate;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.BinaryComponentComparator;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.Aggregation;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;

/**
 * The load test's questions, each written once for both sides: the query (and aggregation) the
 * product answers, and what the oracle needs to answer it without the product's planning or
 * predicates: a plain HBase scan that reads at least every row that can answer (a key prefix, or
 * the whole table with HBase's own {@link BinaryComponentComparator} on the day's key bytes), a
 * condition on the decoded key in plain Java, and the days whose rows can answer (what the checker
 * locks, {@link DayLocks}).
 */
final class MixQuestions {
    static final byte[] URL = Demo.URL;
    static final byte[] HITS = Bytes.toBytes("hits");
    static final byte[] NOTE = Bytes.toBytes("note");

    /** One question, ready to ask the product and the oracle. */
    static final class Question {
        final MixKind kind;
        final String text;
        final RowKeyQuery query;
        /** Null for a question of rows. */
        final Aggregation aggregation;
        /** The aggregation as the oracle computes it: group fields, then "count" or "sum:field" etc. */
        final String[] groupBy;
        final String[] functions;
        /** Whether only f:url is read (a covered read of one column). */
        final boolean urlOnly;
        /** The days (0..30) whose rows can answer; every day for a question of the whole table. */
        final int[] days;
        /** The plain scan of the data table that reads every row that can answer. */
        final Scan oracleScan;
        /** The question's condition on a decoded key, in plain Java. */
        final Predicate<Map<String, Object>> matches;
        /**
         * For an aggregate grouped by sdate checked one day at a time: the sdate whose groups are
         * compared (the others' rows are being written meanwhile); null to compare every group.
         */
        final Integer groupsOfSdate;

        Question(MixKind kind, String text, RowKeyQuery query, Aggregation aggregation, String[] groupBy, String[] functions,
                boolean urlOnly, int[] days, Scan oracleScan, Predicate<Map<String, Object>> matches) {
            this(kind, text, query, aggregation, groupBy, functions, urlOnly, days, oracleScan, matches, null);
        }

        Question(MixKind kind, String text, RowKeyQuery query, Aggregation aggregation, String[] groupBy, String[] functions,
                boolean urlOnly, int[] days, Scan oracleScan, Predicate<Map<String, Object>> matches, Integer groupsOfSdate) {
            this.kind = kind;
            this.text = text;
            this.query = query;
            this.aggregation = aggregation;
            this.groupBy = groupBy;
            this.functions = functions;
            this.urlOnly = urlOnly;
            this.days = days;
            this.oracleScan = oracleScan;
            this.matches = matches;
            this.groupsOfSdate = groupsOfSdate;
        }

        boolean wholeTable() {
            return days.length == DataSet.DAYS;
        }
    }

    /** Where the fields the oracle filters on sit in a key (checked against the schema at start). */
    static final int MD5_OFFSET = 0;
    static final int MD5_WIDTH = 8;
    static final int SITE_OFFSET = 8;
    static final int SDATE_OFFSET = 20;
    static final int INT_WIDTH = 4;

    final RowKeySchema schema;
    final DataSet data;
    /** URLs of the loaded rows: row 10 + 31u + d is URL u on day d. */
    final int urls;

    MixQuestions(RowKeySchema schema, DataSet data) {
        this.schema = schema;
        this.data = data;
        this.urls = Math.max(1, (data.size() - DataSet.SAMPLES.length) / DataSet.DAYS);
        checkKeySlots();
    }

    /** Row number of URL {@code u} on day {@code day} (0..30), loaded or beyond the loaded rows. */
    static int rowOf(long u, int day) {
        return Math.toIntExact(DataSet.SAMPLES.length + u * DataSet.DAYS + day);
    }

    static int dayOf(int row) {
        return (row - DataSet.SAMPLES.length) % DataSet.DAYS;
    }

    static int sdate(int day) {
        return DataSet.FIRST_DAY + day;
    }

    byte[] key(int row) {
        return schema.encode(data.row(row));
    }

    Question next(MixKind kind, SplittableRandom random) {
        int day = DayLocks.randomDay(random);
        switch (kind) {
            case POINT: return point(random.nextInt(urls), day);
            case POINT_RANGE: return pointRange(random.nextInt(urls), random.nextInt(DataSet.DAYS - 12));
            case SEED2: return seed2(day);
            case INDEX_COVERED: return indexCovered(day);
            case INDEX_UNCOVERED: return indexUncovered(random.nextInt(urls), day);
            case INDEX_UNCOVERED_WIDE: return indexUncoveredWide(1 + random.nextInt(4), random.nextInt(4));
            case AGG_INDEX: return aggIndex(day);
            case AGG_NONE: return aggNone();
            case AGG_FEW: return aggFew();
            case AGG_WHOLE: return aggWhole();
            case AGG_GROUPS: return aggGroups();
            default: throw new IllegalArgumentException(kind + " is no question");
        }
    }

    Question point(int url, int day) {
        int row = rowOf(url, day);
        Object md5 = data.row(row).get("md5url");
        byte[] prefix = Arrays.copyOfRange(key(row), MD5_OFFSET, MD5_OFFSET + MD5_WIDTH);
        return rows(MixKind.POINT, "md5url = <URL " + url + "> AND sdate = " + sdate(day),
                RowKeyQuery.on(schema).eq("md5url", md5).eq("sdate", sdate(day)), false, new int[] {day},
                prefixScan(prefix), k -> Arrays.equals((byte[]) k.get("md5url"), prefix) && sdateOf(k) == sdate(day));
    }

    /** URL {@code url} on the days strictly between day {@code low} and day {@code low + 12}. */
    Question pointRange(int url, int low) {
        int row = rowOf(url, 0);
        Object md5 = data.row(row).get("md5url");
        byte[] prefix = Arrays.copyOfRange(key(row), MD5_OFFSET, MD5_OFFSET + MD5_WIDTH);
        int[] days = new int[11];
        for (int i = 0; i < days.length; i++) {
            days[i] = low + 1 + i;
        }
        int from = sdate(low);
        int to = sdate(low + 12);
        return rows(MixKind.POINT_RANGE, "md5url = <URL " + url + "> AND " + from + " < sdate < " + to,
                RowKeyQuery.on(schema).eq("md5url", md5).gt("sdate", from).lt("sdate", to), false, days, prefixScan(prefix),
                k -> Arrays.equals((byte[]) k.get("md5url"), prefix) && sdateOf(k) > from && sdateOf(k) < to);
    }

    Question seed2(int day) {
        return rows(MixKind.SEED2, "sdate = " + sdate(day) + " AND code = 404",
                RowKeyQuery.on(schema).eq("sdate", sdate(day)).eq("code", 404), false, new int[] {day}, dayScan(day),
                k -> sdateOf(k) == sdate(day) && (Integer) k.get("code") == 404);
    }

    Question indexCovered(int day) {
        return rows(MixKind.INDEX_COVERED, "sdate = " + sdate(day) + " AND code IN (301, 500), f:url",
                RowKeyQuery.on(schema).eq("sdate", sdate(day)).in("code", 301, 500).select(Demo.FAMILY, URL), true,
                new int[] {day}, dayScan(day), k -> {
                    int code = (Integer) k.get("code");
                    return sdateOf(k) == sdate(day) && (code == 301 || code == 500);
                });
    }

    /** The site of URL {@code url} (2,000 sites, 16 URLs each at 1,000,000 rows) on one day. */
    Question indexUncovered(int url, int day) {
        Map<String, Object> template = data.row(rowOf(url, day));
        Object site = template.get("sitecode");
        byte[] siteDigest = (byte[]) schema.decode(schema.encode(template)).get("sitecode");
        byte[] key = schema.encode(template);
        Scan scan = dayScan(day);
        FilterList both = new FilterList(FilterList.Operator.MUST_PASS_ALL, scan.getFilter(), new RowFilter(CompareOperator.EQUAL,
                new BinaryComponentComparator(Arrays.copyOfRange(key, SITE_OFFSET, SITE_OFFSET + INT_WIDTH), SITE_OFFSET)));
        return rows(MixKind.INDEX_UNCOVERED, "sitecode = '" + site + "' AND sdate = " + sdate(day),
                RowKeyQuery.on(schema).eq("sitecode", site).eq("sdate", sdate(day)), false, new int[] {day},
                wholeScan().setFilter(both),
                k -> sdateOf(k) == sdate(day) && Arrays.equals((byte[]) k.get("sitecode"), siteDigest));
    }

    Question indexUncoveredWide(int type, int queue) {
        return rows(MixKind.INDEX_UNCOVERED_WIDE, "type = " + type + " AND queue = " + queue + " AND free AND close",
                RowKeyQuery.on(schema).eq("type", type).eq("queue", queue).eq("free", true).eq("close", true), false,
                DayLocks.allDays(), wholeScan(), k -> (Integer) k.get("type") == type && (Integer) k.get("queue") == queue
                        && (Boolean) k.get("free") && (Boolean) k.get("close"));
    }

    Question aggIndex(int day) {
        return aggregate(MixKind.AGG_INDEX, "count(), sum(queue) WHERE sdate = " + sdate(day) + " AND code = 404",
                RowKeyQuery.on(schema).eq("sdate", sdate(day)).eq("code", 404), new String[0], new String[] {"count", "sum:queue"},
                new int[] {day}, dayScan(day), k -> sdateOf(k) == sdate(day) && (Integer) k.get("code") == 404);
    }

    Question aggNone() {
        return aggregate(MixKind.AGG_NONE, "count() WHERE scantype = 7", RowKeyQuery.on(schema).eq("scantype", 7), new String[0],
                new String[] {"count"}, DayLocks.allDays(), wholeScan(), k -> (Integer) k.get("scantype") == 7);
    }

    Question aggFew() {
        return aggregate(MixKind.AGG_FEW, "count(), sum(queue), min(type), max(type) WHERE status = 1 AND close AND scantype = 2",
                RowKeyQuery.on(schema).eq("status", 1).eq("close", true).eq("scantype", 2), new String[0],
                new String[] {"count", "sum:queue", "min:type", "max:type"}, DayLocks.allDays(), wholeScan(),
                k -> (Integer) k.get("status") == 1 && (Boolean) k.get("close") && (Integer) k.get("scantype") == 2);
    }

    Question aggWhole() {
        return aggregate(MixKind.AGG_WHOLE, "count(), sum(queue) GROUP BY sdate", RowKeyQuery.on(schema), new String[] {"sdate"},
                new String[] {"count", "sum:queue"}, DayLocks.allDays(), wholeScan(), k -> true);
    }

    Question aggGroups() {
        return aggregate(MixKind.AGG_GROUPS, "count() GROUP BY sitecode, sdate", RowKeyQuery.on(schema),
                new String[] {"sitecode", "sdate"}, new String[] {"count"}, DayLocks.allDays(), wholeScan(), k -> true);
    }

    /**
     * The checker's question of {@code kind} that one or a few quiet days answer: the client
     * threads' question, but for the aggregates of the whole table grouped by sdate, which are
     * asked whole and compared on one day's groups (a group of one day is folded from that day's
     * rows alone).
     */
    Question checkOfDays(MixKind kind, SplittableRandom random) {
        int day = DayLocks.randomDay(random);
        switch (kind) {
            case AGG_WHOLE: return groupsOfDay(aggWhole(), day);
            case AGG_GROUPS: return groupsOfDay(aggGroups(), day);
            default: return next(kind, random);
        }
    }

    private Question groupsOfDay(Question whole, int day) {
        return new Question(whole.kind, whole.text + ", the groups of sdate = " + sdate(day), whole.query, whole.aggregation,
                whole.groupBy, whole.functions, false, new int[] {day}, dayScan(day), k -> sdateOf(k) == sdate(day), sdate(day));
    }

    /** The questions only the whole table answers, for a check while every day is quiet. */
    List<Question> wholeTableQuestions(SplittableRandom random) {
        List<Question> list = new ArrayList<>();
        list.add(aggNone());
        list.add(aggFew());
        list.add(indexUncoveredWide(1 + random.nextInt(4), random.nextInt(4)));
        return list;
    }

    private static Question rows(MixKind kind, String text, RowKeyQuery query, boolean urlOnly, int[] days, Scan oracleScan,
            Predicate<Map<String, Object>> matches) {
        return new Question(kind, text, query, null, null, null, urlOnly, days, oracleScan, matches);
    }

    private Question aggregate(MixKind kind, String text, RowKeyQuery query, String[] groupBy, String[] functions, int[] days,
            Scan oracleScan, Predicate<Map<String, Object>> matches) {
        Aggregation a = Aggregation.on(schema);
        if (groupBy.length > 0) {
            a.groupBy(groupBy);
        }
        for (String f : functions) {
            String[] parts = f.split(":");
            switch (parts[0]) {
                case "count": a.count(); break;
                case "sum": a.sum(parts[1]); break;
                case "min": a.min(parts[1]); break;
                case "max": a.max(parts[1]); break;
                default: throw new IllegalArgumentException(f);
            }
        }
        return new Question(kind, text, query, a, groupBy, functions, false, days, oracleScan, matches);
    }

    static int sdateOf(Map<String, Object> key) {
        return (Integer) key.get("sdate");
    }

    static Scan wholeScan() {
        return new Scan().setCaching(2000).setCacheBlocks(false);
    }

    /** The rows whose key starts with {@code prefix}: HBase's own prefix range. */
    static Scan prefixScan(byte[] prefix) {
        byte[] stop = prefix.clone();
        int i = stop.length - 1;
        while (i >= 0 && stop[i] == (byte) 0xff) {
            stop[i--] = 0;
        }
        Scan scan = new Scan().withStartRow(prefix).setCaching(100);
        if (i >= 0) {
            stop[i]++;
            scan.withStopRow(stop);
        }
        return scan;
    }

    /** The whole table with the rows of one day kept by HBase's own comparator on the key's sdate bytes. */
    Scan dayScan(int day) {
        byte[] key = key(rowOf(0, day));
        return wholeScan().setFilter(new RowFilter(CompareOperator.EQUAL,
                new BinaryComponentComparator(Arrays.copyOfRange(key, SDATE_OFFSET, SDATE_OFFSET + INT_WIDTH), SDATE_OFFSET)));
    }

    /**
     * Makes sure the offsets above are where the schema puts md5url, sitecode and sdate: changing
     * one of them in a row changes only its own bytes of the key (the oracle's filters would
     * otherwise keep other rows, or lose some).
     */
    private void checkKeySlots() {
        Map<String, Object> base = data.row(rowOf(0, 0));
        checkSlot(base, "md5url", data.row(rowOf(1, 0)).get("md5url"), MD5_OFFSET, MD5_WIDTH);
        checkSlot(base, "sitecode", "9999999999", SITE_OFFSET, INT_WIDTH);
        checkSlot(base, "sdate", sdate(30), SDATE_OFFSET, INT_WIDTH);
    }

    private void checkSlot(Map<String, Object> base, String field, Object other, int offset, int width) {
        Map<String, Object> changed = new LinkedHashMap<>(base);
        changed.put(field, other);
        byte[] a = schema.encode(base);
        byte[] b = schema.encode(changed);
        for (int i = 0; i < a.length; i++) {
            boolean inside = i >= offset && i < offset + width;
            if (!inside && a[i] != b[i]) {
                throw new IllegalStateException("the load test's oracle expects " + field + " at key bytes [" + offset + ", "
                        + (offset + width) + "), but changing it changed byte " + i + ": fix MixQuestions' offsets");
            }
        }
        if (Arrays.equals(a, b)) {
            throw new IllegalStateException("changing " + field + " did not change the key: fix MixQuestions' check");
        }
    }
}

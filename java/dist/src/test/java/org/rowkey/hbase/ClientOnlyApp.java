package org.rowkey.hbase;

import java.util.Arrays;
import java.util.Collections;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.ParseFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * An application as a user writes one, run by {@link ClientOnlyIT} in a JVM whose class path has
 * hbase-client and our jar, not hbase-server: it creates a table with an index, writes, scans the
 * data table and through the index, aggregates, parses a query's text, explains, and reads with
 * the filter language. Prints one line per answer, exits 0 only when every answer is exact. (Refers
 * to nothing of the tests but itself: nothing else of theirs is on its class path's reach.)
 */
public final class ClientOnlyApp {
    private ClientOnlyApp() {
    }

    public static void main(String[] args) throws Exception {
        try {
            Class.forName("org.apache.hadoop.hbase.coprocessor.RegionCoprocessor");
            System.out.println("FAIL: hbase-server is on this class path; the check proves nothing");
            System.exit(2);
        } catch (ClassNotFoundException expected) {
            System.out.println("class path: no hbase-server");
        }
        Configuration conf = HBaseConfiguration.create();
        conf.set("hbase.zookeeper.quorum", args[0]);
        conf.set("hbase.zookeeper.property.clientPort", args[1]);
        TableName name = TableName.valueOf(args[2]);
        byte[] f = Bytes.toBytes("f");
        byte[] n = Bytes.toBytes("n");
        RowKeySchema schema = RowKeySchema.builder().int32("user").int32("code").int32("day").build();
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            try (Admin admin = connection.getAdmin()) {
                RowKeyTable.create(admin, name, schema, Collections.singletonList(RowKeyIndex.of("by_code", "code")), f);
            }
            long sum404 = 0;
            int day3 = 0;
            try (Table t = connection.getTable(name)) {
                for (int user = 0; user < 400; user++) {
                    int code = new int[] {200, 301, 404, 503}[user % 4];
                    t.put(new Put(schema.encode(map("user", user, "code", code, "day", user % 7))).addColumn(f, n,
                            Bytes.toBytes((long) user)));
                    sum404 += code == 404 ? user : 0;
                    day3 += code == 404 && user % 7 == 3 ? 1 : 0;
                }
            }
            RowKeyTable table = RowKeyTable.open(connection, name);
            RowKeyQuery byCode = RowKeyQuery.parse(schema, "code = 404");
            String explain = table.explain(byCode);
            check(explain.contains("by_code"), "an explain that reads the index: " + explain);
            check(count(table.scan(byCode)) == 100, "the rows of code 404 through the index");
            check(count(table.scan(RowKeyQuery.on(schema).between("user", 10, 19))) == 10, "a range of the data table");
            java.util.List<Object> agg = table.aggregate(byCode, Aggregation.on(schema).count().sum(Aggregation.Cell.ofLong(f, n)))
                    .rows().get(0).values();
            check(agg.equals(Arrays.asList(100L, sum404)), "count and sum of code 404: " + agg);
            RowKeyWhere.register();
            try (Table t = connection.getTable(name);
                    ResultScanner rows = t.getScanner(new Scan().setFilter(new ParseFilter().parseFilterString(
                            RowKeyWhere.filterString("code = 404 AND day = 3", schema))))) {
                int matched = 0;
                for (Result r : rows) {
                    matched++;
                }
                check(matched == day3, "the filter language's rows: " + matched + " of " + day3);
            }
        }
        System.out.println("OK");
    }

    private static java.util.Map<String, Object> map(Object... kv) {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static int count(ResultScanner scanner) throws java.io.IOException {
        int n = 0;
        try (ResultScanner s = scanner) {
            while (s.next() != null) {
                n++;
            }
        }
        return n;
    }

    private static void check(boolean ok, String what) {
        System.out.println((ok ? "ok: " : "WRONG: ") + what);
        if (!ok) {
            System.exit(1);
        }
    }
}

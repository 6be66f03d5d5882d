package org.rowkey.hbase.demo;

import java.util.ArrayList;
import java.util.List;

import org.rowkey.hbase.RowKeyQuery;

/** A demo query: its conditions, written once and turned into both the seed's scan and ours. */
final class DemoQuery {
    static final class Condition {
        final String field;
        final String op;
        final Object[] values;

        Condition(String field, String op, Object... values) {
            this.field = field;
            this.op = op;
            this.values = values;
        }
    }

    final String name;
    final boolean salted;
    final List<Condition> conditions = new ArrayList<>();

    private DemoQuery(String name, boolean salted) {
        this.name = name;
        this.salted = salted;
    }

    private DemoQuery where(String field, String op, Object... values) {
        conditions.add(new Condition(field, op, values));
        return this;
    }

    /** The key's leading field (after the salt byte on the salted table). */
    static final String LEADING_FIELD = "md5url";

    /**
     * Whether the query fixes the key's leading field (an equality or IN-list on it), so a
     * planned scan can read a few key ranges instead of the whole table.
     */
    boolean onLeadingField() {
        for (Condition c : conditions) {
            if (c.field.equals(LEADING_FIELD) && (c.op.equals("=") || c.op.equals("in"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the index on (sdate, code) of {@link OurIndexedTable} serves the query: a condition on
     * sdate and none on the leading field.
     */
    boolean indexServes() {
        return !onLeadingField() && conditions.stream().anyMatch(c -> c.field.equals("sdate"));
    }

    RowKeyQuery build(RowKeyQuery q) {
        for (Condition c : conditions) {
            switch (c.op) {
                case "=": q.eq(c.field, c.values[0]); break;
                case "!=": q.ne(c.field, c.values[0]); break;
                case "<": q.lt(c.field, c.values[0]); break;
                case "<=": q.le(c.field, c.values[0]); break;
                case ">": q.gt(c.field, c.values[0]); break;
                case ">=": q.ge(c.field, c.values[0]); break;
                case "in": q.in(c.field, c.values); break;
                default: throw new IllegalArgumentException(c.op);
            }
        }
        return q;
    }

    static List<DemoQuery> all(DataSet data) {
        String url7 = DataSet.generatedUrl(7);
        int urls = Math.max(1, (data.size() - DataSet.SAMPLES.length) / DataSet.DAYS);
        Object[] someUrls = new Object[5];
        for (int i = 0; i < someUrls.length; i++) {
            someUrls[i] = DataSet.generatedUrl((i * 7919) % urls);
        }
        List<DemoQuery> q = new ArrayList<>();
        q.add(new DemoQuery("seed 1: md5url = ? AND sdate = ?", false)
                .where("md5url", "=", "http://cgw.bjdch.gov.cn/n1569/n4860273/n9719314/index.html").where("sdate", "=", 20161208));
        q.add(new DemoQuery("seed 2: sdate = ? AND code = 404", false)
                .where("sdate", "=", 20161209).where("code", "=", 404));
        q.add(new DemoQuery("seed 3: md5url = ? AND ? < sdate < ?", false)
                .where("md5url", "=", url7).where("sdate", ">", 20161203).where("sdate", "<", 20161215));
        q.add(new DemoQuery("md5url IN (5) AND code = 404", false)
                .where("md5url", "in", someUrls).where("code", "=", 404));
        q.add(new DemoQuery("md5url IN (5) AND status = -1 AND code IN (404, 503)", false)
                .where("md5url", "in", someUrls).where("status", "=", -1).where("code", "in", 404, 503));
        q.add(new DemoQuery("salted: md5url = ? AND sdate >= ?", true)
                .where("md5url", "=", url7).where("sdate", ">=", 20161220));
        q.add(new DemoQuery("salted: sdate = ? AND code = 503", true)
                .where("sdate", "=", 20161231).where("code", "=", 503));
        q.add(new DemoQuery("no leading field: type IN (1,2) AND queue = 0 AND free", false)
                .where("type", "in", 1, 2).where("queue", "=", 0).where("free", "=", true));
        return q;
    }
}

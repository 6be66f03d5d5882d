package org.rowkey.hbase.demo;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Deterministic URL-scan rows in the shape of seed 000: rows 0-9 are the seed's own sample
 * rows; after them every URL is scanned once a day for 31 days (2016-12-01..31), so keys are
 * unique and "one URL over some days" queries have answers.
 */
final class DataSet {
    static final int DAYS = 31;
    static final int FIRST_DAY = 20161201;

    /** Seed 000's sample rows: url, md5url, sitecode, status, code, sdate, type, free, close, queue, scantype. */
    static final Object[][] SAMPLES = {
        {"http://www.nmlc.gov.cn/zsyz.htm", "ea67a96f233d6fcfd7cabc9a6a389283", "1509250008", -1, 404, 20161209, 2, false, false, 1, 1},
        {"http://www.xzxzzx.gov.cn:8000/wbsprj/indexlogin.do", "fd38c0fb8f6e839be56b67c69ad2baa5", "3203000002", -1, 503, 20161209, 2, false, false, 1, 0},
        {"http://www.nmds.gov.cn/portal/bsfw/nsfd/list_1.shtml", "d51abcd8edff79d23ca4a9a0576a1996", "15BM010001", -1, 404, 20161209, 2, false, false, 0, 0},
        {"http://beijing.customs.gov.cn/publish/portal159/tab60561/", "e27bbc9192e760bacc23c226ffd90219", "bm28020001", -1, 503, 20161209, 2, false, false, 1, 0},
        {"http://www.nss184.com/web2/newlist_index.aspx?classid=1", "cbc2c0571464621024c89aa019cd09ef", "BT10000001", -1, 404, 20161210, 2, false, true, 1, 0},
        {"http://cgw.bjdch.gov.cn/n1569/n4860273/n9719314/index.html", "00a18048ed95f1c057fccc8928ddf610", "1101010059", -1, 503, 20161208, 2, true, false, 1, 0},
        {"http://www.qdn.gov.cn/zwdt/ztfw/shbzfw.htm", "e6bfa0a07e773e3bab27a37f36ff221a", "5226000038", -1, 404, 20161209, 2, false, false, 1, 0},
        {"http://www.caac.gov.cn/E1/E2/", "e6217482388cbc57aa80422c3f64bb35", "bm70000001", -1, 404, 20161209, 2, false, false, 1, 0},
        {"http://www.ny.xwie.com/Thought/", "b7912f3bdb50be7b58f5a67d65273201", "4408250003", -1, 404, 20161209, 2, false, false, 1, 0},
        {"http://www.guoluo.gov.cn/html/1746/List.html", "e353cd577fd721eb71538d0938d041f7", "6326000004", -1, 404, 20161209, 2, false, false, 1, 0},
    };
    static final String[] FIELDS = {"md5url", "sitecode", "status", "code", "sdate", "type", "free", "close", "queue", "scantype"};

    private final int size;
    private final long seed;

    DataSet(int size, long seed) {
        this.size = size;
        this.seed = seed;
    }

    int size() {
        return size;
    }

    /** The URL of generated URL number {@code u} (rows 10 + 31u .. 10 + 31u + 30). */
    static String generatedUrl(int u) {
        return "http://www.site" + (u % 2000) + ".gov.cn/page/" + u + ".html";
    }

    String url(int i) {
        return i < SAMPLES.length ? (String) SAMPLES[i][0] : generatedUrl((i - SAMPLES.length) / DAYS);
    }

    /**
     * Row {@code i}'s key fields. md5url is the URL itself, which the md5 field hashes: the seed's
     * md5url column is that MD5 (its first 8 bytes are what the key holds), so the queries the docs
     * show ({@code md5url = 'http://...'}) find the rows.
     */
    Map<String, Object> row(int i) {
        Map<String, Object> row = new LinkedHashMap<>();
        if (i < SAMPLES.length) {
            row.put("md5url", SAMPLES[i][0]);
            for (int f = 1; f < FIELDS.length; f++) {
                row.put(FIELDS[f], SAMPLES[i][f + 1]);
            }
            return row;
        }
        int g = i - SAMPLES.length;
        int u = g / DAYS;
        SplittableRandom r = new SplittableRandom(seed * 1_000_003L + i);
        row.put("md5url", generatedUrl(u));
        row.put("sitecode", String.format("%04d%06d", (u % 2000) / 100, u % 2000));
        int p = r.nextInt(100);
        row.put("status", p < 80 ? -1 : p < 95 ? 0 : 1);
        int c = r.nextInt(100);
        row.put("code", c < 40 ? 404 : c < 60 ? 503 : c < 90 ? 200 : c < 95 ? 301 : 500);
        row.put("sdate", FIRST_DAY + g % DAYS);
        row.put("type", 1 + r.nextInt(4));
        row.put("free", r.nextInt(10) == 0);
        row.put("close", r.nextInt(20) == 0);
        row.put("queue", r.nextInt(4));
        row.put("scantype", r.nextInt(3));
        return row;
    }
}

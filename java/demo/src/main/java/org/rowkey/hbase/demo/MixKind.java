package org.rowkey.hbase.demo;

/**
 * What one operation of the load test does ({@link LoadMix}): its name in the report, its group,
 * and its share of the client threads' operations (weights; bulk loads, checks and chaos have
 * threads of their own and no weight). An aggregate of the whole table reads every row: at
 * 1,000,000 rows on 2 shared cores one takes 5-30 s where a point query takes 40 ms, so those four
 * are drawn once in 328 operations each, which still gives them about a third of the client
 * threads' time.
 */
enum MixKind {
    POINT("point", Group.READ, 80, "md5url = ? AND sdate = ? (seed 1's shape): the data table, one URL's key range"),
    POINT_RANGE("point-range", Group.READ, 32, "md5url = ? AND ? < sdate < ? (seed 3's shape): the data table"),
    SEED2("seed2", Group.READ, 12, "sdate = ? AND code = 404, every cell (seed 2): the covering index by_date_code"),
    INDEX_COVERED("index-covered", Group.READ, 16, "sdate = ? AND code IN (301, 500), f:url only: by_date_code, covered"),
    INDEX_UNCOVERED("index-uncovered", Group.READ, 40, "sitecode = ? AND sdate = ?: by_site_date, each data row by a Get"),
    INDEX_UNCOVERED_WIDE("index-uncovered-wide", Group.READ, 8,
            "type = ? AND queue = ? AND free AND close: by_type_queue_free, ~300 rows by Gets"),
    AGG_INDEX("agg-index", Group.AGGREGATE, 12, "count(), sum(queue) of sdate = ? AND code = 404: folded in the index's regions"),
    AGG_NONE("agg-selective-none", Group.AGGREGATE, 1, "count() of scantype = 7 (no row): every data region read, nothing matches"),
    AGG_FEW("agg-selective-few", Group.AGGREGATE, 1,
            "count(), sum(queue), min(type), max(type) of status = 1 AND close AND scantype = 2 (~0.1% of rows)"),
    AGG_WHOLE("agg-whole", Group.AGGREGATE, 1, "count(), sum(queue) GROUP BY sdate: the whole table, 31 groups"),
    AGG_GROUPS("agg-groups", Group.AGGREGATE, 1, "count() GROUP BY sitecode, sdate: the whole table, ~62,000 groups"),
    PUT_NEW("put-new", Group.WRITE, 32, "Put of a new row (a URL not loaded), url cell"),
    PUT_RESTORE("put-restore", Group.WRITE, 16, "Put of a loaded row's key and url again (restores it if deleted)"),
    DELETE_ROW("delete-row", Group.WRITE, 16, "Delete of a whole row"),
    DELETE_COLUMN("delete-column", Group.WRITE, 8, "Delete of f:url of a row (the row may stay with other cells)"),
    INCREMENT("increment", Group.WRITE, 16, "Increment of f:hits (creates the row if it has none)"),
    APPEND("append", Group.WRITE, 12, "Append to f:note"),
    BATCH("batch", Group.WRITE, 12, "Table.batch of 10 mixed Puts, Deletes and Increments of one day"),
    CHECK_AND_MUTATE("check-and-mutate", Group.WRITE, 8, "checkAndMutate: Put f:url if f:hits is absent"),
    ROW_MUTATIONS("row-mutations", Group.WRITE, 4, "RowMutations: Put f:note and Delete f:url at once"),
    BULK_LOAD("bulk-load", Group.BULK, 0, "a small BulkLoad job (JSON lines, LocalJobRunner) of one day: new rows and"
            + " loaded rows over live ones");

    enum Group { READ, AGGREGATE, WRITE, BULK }

    final String label;
    final Group group;
    final int weight;
    final String description;

    MixKind(String label, Group group, int weight, String description) {
        this.label = label;
        this.group = group;
        this.weight = weight;
        this.description = description;
    }

    boolean isWrite() {
        return group == Group.WRITE || group == Group.BULK;
    }
}

"""The package through a real Thrift1 gateway (HBase's, started by java/thrift/gateway.sh) on the
tables PythonClientsIT made; every answer compared with what Java's client returned there."""

import pytest

import hbase_rowkey as rk

pytestmark = pytest.mark.gateway


def as_python(value):
    """A JSON value of PythonClientsIT's as the package gives it (bytes were {"hex": ...})."""
    if isinstance(value, dict) and set(value) == {"hex"}:
        return bytes.fromhex(value["hex"])
    if isinstance(value, dict):
        return {k: as_python(v) for k, v in value.items()}
    return value


def scanned(connection, query, **options):
    table = connection.table(query["table"])
    return list(rk.scan(table, query["where"], query["schema"], **options))


def test_every_query_returns_javas_rows_forward_and_reversed(connection, expected):
    checked = 0
    for query in expected["queries"]:
        want = [(r["key"], r["url"], as_python(r["fields"])) for r in query["rows"]]
        for reverse in (False, True):
            got = [(row.key.hex(), row.cells[b"f:url"].decode("utf-8"), row.fields)
                   for row in scanned(connection, query, reverse=reverse)]
            assert got == (want[::-1] if reverse else want), "%s%s: %s" % (
                query["name"], " (reversed)" if reverse else "", query["where"])
            checked += 1
        assert rk.filter_string(query["where"], rk.Schema(query["schema"]) if query["schema"] else None) == query["filter"]
    assert checked == 2 * len(expected["queries"]) >= 100
    assert sum(len(q["rows"]) for q in expected["queries"]) > 10000


def test_a_limit_returns_the_first_rows(connection, expected):
    query = next(q for q in expected["queries"] if q["name"] == "seed 2")
    assert len(query["rows"]) > 5
    assert [r.key.hex() for r in scanned(connection, query, limit=5)] == [r["key"] for r in query["rows"][:5]]
    assert [r.key.hex() for r in scanned(connection, query, limit=3, reverse=True)] == \
        [r["key"] for r in query["rows"][::-1][:3]]


def test_the_schema_comes_from_the_tables_catalog(connection, expected):
    assert rk.schema_of(connection.table("urlscan")) == rk.Schema(expected["schema"])
    assert rk.schema_of(connection.table("urlscan_salted")).text == expected["salted_schema"]
    with pytest.raises(rk.RowKeyError, match="has no hbase-rowkey catalog"):
        rk.schema_of(connection.table(expected["no_catalog_table"]))


def test_a_bad_where_clause_is_refused_here_and_by_the_regionserver_with_the_same_reason(connection, expected):
    import Hbase_thrift
    probe = next(q for q in expected["queries"] if q["name"] == "seed 1")
    for bad in expected["bad"]:
        table = connection.table(bad["table"])
        with pytest.raises(rk.RowKeyError) as e:
            rk.scan(table, bad["where"], bad["schema"])
        assert str(e.value) in bad["reason"] and len(str(e.value)) > 20, bad["name"]  # Java names its method first
        # The same text sent as it is: the RegionServer refuses it with the same reason in the first line.
        raw = rk.filter_string(bad["where"], rk.Schema(bad["schema"]) if bad["schema"] else None)
        with pytest.raises(Hbase_thrift.IOError) as e:
            list(table.scan(filter=raw))
        message = e.value.message.decode() if isinstance(e.value.message, bytes) else e.value.message
        assert bad["reason"][:200] in message.splitlines()[0], bad["name"]
        # ... and the gateway and the RegionServer go on serving.
        assert [r.key.hex() for r in scanned(connection, probe)] == [r["key"] for r in probe["rows"]]


def test_a_schema_that_is_not_the_tables_is_an_error_not_zero_rows(connection, expected):
    narrow = expected["narrow_schema"]
    plain = connection.table(expected["no_catalog_table"])
    # On a table made by RowKeyTable.create: the RegionServer compares it with the catalog.
    with pytest.raises(rk.RowKeyError, match="the schema given is not the table's, whose catalog says"):
        list(rk.scan(connection.table("urlscan"), "code = 404", narrow))
    # Without a catalog, many rows of other widths: the RegionServer's filter says so.
    with pytest.raises(rk.RowKeyError, match="rows read have keys of other widths"):
        list(rk.scan(plain, "code = 404 AND NOT free", narrow))
    # Too few for the filter to tell: the package reads the table's first key.
    with pytest.raises(rk.RowKeyError, match="its first row key has 37 bytes, the schema .* makes keys of 13"):
        list(rk.scan(plain, "md5url = 'http://nowhere/' AND code = 404", narrow))
    # The table's own schema and a query that matches nothing: no rows, no error.
    assert list(rk.scan(plain, "code = 999", expected["schema"])) == []
    # A catalog table needs no schema; without a catalog one is needed.
    with pytest.raises(rk.RowKeyError, match="has no hbase-rowkey catalog"):
        rk.scan(plain, "code = 404")


def test_aggregates_fold_in_the_regions_and_equal_javas_and_a_plain_scans(connection, expected):
    for case in expected["aggregates"]:
        table = connection.table(case["table"])
        got = rk.aggregate(table, case["where"], case["group_by"], case["aggregates"])
        assert got == [as_python(r) for r in case["rows"]], case
        # The oracle: the same numbers from the rows themselves.
        groups = {}
        for row in rk.scan(table, case["where"]):
            groups.setdefault(tuple(row.fields[g] for g in case["group_by"]), []).append(row.fields)
        oracle = []
        for group, members in sorted(groups.items()):
            queue = [m["queue"] for m in members]
            oracle.append(dict(zip(case["group_by"], group)) | {
                "count": len(members), "sum(queue)": sum(queue), "min(sdate)": min(m["sdate"] for m in members),
                "max(queue)": max(queue), "avg(queue)": sum(queue) / len(queue)})
        if not case["group_by"] and not oracle:
            oracle = [{"count": 0, "sum(queue)": None, "min(sdate)": None, "max(queue)": None, "avg(queue)": None}]
        assert got == oracle, case
    with pytest.raises(rk.RowKeyError, match="not a partial aggregate"):
        rk.aggregate(connection.table(expected["no_catalog_table"]), "TRUE", schema=expected["schema"])


def test_keys_of_every_field_type_equal_javas(expected):
    schema = rk.Schema(expected["vectors"]["schema"])
    assert schema.text == expected["vectors"]["schema"]
    for vector in expected["vectors"]["rows"]:
        row = as_python(vector["row"])
        key = schema.encode(row)
        assert key.hex() == vector["key"], row
        assert schema.decode(key) == as_python(vector["fields"]), row


def test_explain_says_what_the_regions_read(connection, expected):
    text = rk.explain(connection.table("urlscan"), "sdate = 20161209 AND code = 404")
    assert "RowKeyWhere('sdate = 20161209 AND code = 404')" in text and "on table urlscan" in text
    assert "filtered per row" in text or "SKIP SCAN" in text or "RANGE" in text, text


def test_a_filter_string_the_gateways_parser_refuses_is_named_not_opaque(connection):
    """What Thrift1 hides: a filter string HBase's ParseFilter cannot read never reaches a RegionServer
    and comes back as TApplicationException; the package says where to look."""
    from hbase_rowkey._gateway import _gateway_errors
    table = connection.table("urlscan")
    with pytest.raises(rk.RowKeyError, match="failed inside the Thrift gateway .*Internal error processing"):
        with _gateway_errors(table, "the scan"):
            list(table.scan(filter="RowKeyWhere('code = 404'"))
    assert len(list(rk.scan(table, "code = 404", limit=1))) == 1      # and it still serves

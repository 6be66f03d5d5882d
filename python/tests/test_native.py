"""The package without any server: schemas, keys, where clauses, plans, filter strings, aggregates'
specs, each against an independent reference or the parser's own messages."""

import importlib.util
import os
import random
import subprocess
import sys

import pytest

import hbase_rowkey as rk

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = ("md5url md5(8), sitecode javaHash, status int32, code int32, sdate int32, type int32, free bool, close bool,"
        " queue int32, scantype int32")


def reference():
    """tests/vectors/generate.py: the encodings of docs/design.md written again in plain Python
    (hashlib, its own sign flips, padding and bit packing), never by the code under test."""
    path = os.path.join(HERE, "..", "..", "tests", "vectors", "generate.py")
    spec = importlib.util.spec_from_file_location("vectors_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REF = reference()

# Every type and encoding, in the reference's form and in the schema text.
FIELDS = [("i", "INT32", 0, False), ("l", "INT64", 0, True), ("t", "TIMESTAMP", 0, False),
          ("r", "REVERSED_TIMESTAMP", 0, False), ("b", "BOOL", 0, False), ("c", "BOOL", 0, True),
          ("s", "FIXED_STRING", 6, False), ("d", "FIXED_STRING", 3, True), ("x", "FIXED_BYTES", 3, False),
          ("m", "MD5", 5, False), ("h", "JAVA_HASH", 0, False)]
TEXT = ("i int32, l int64 DESC, t timestamp, r reversedTimestamp, b bool, c bool DESC, s fixedString(6),"
        " d fixedString(3) DESC, x fixedBytes(3), m md5(5), h javaHash")
WORDS = ["", "a", "h\u00e9llo", "zzzzzz", "\u20ac", "it's", "\U0001F600", "ab\u00e9", "Aa", "BB"]


def random_row(r):
    def text(limit):
        while True:
            w = r.choice(WORDS)
            if len(w.encode("utf-8")) <= limit:
                return w
    return {"i": r.choice([-2**31, 2**31 - 1, r.randrange(-2**31, 2**31)]),
            "l": r.choice([-2**63, 2**63 - 1, r.randrange(-2**63, 2**63)]),
            "t": r.randrange(-2**63, 2**63), "r": r.choice([0, 2**63 - 1, r.randrange(0, 2**63)]),
            "b": r.random() < 0.5, "c": r.random() < 0.5, "s": text(6), "d": text(3),
            "x": bytes(r.randrange(256) for _ in range(3)), "m": r.choice(WORDS) + str(r.randrange(100)),
            "h": r.choice(WORDS) + str(r.randrange(100))}


@pytest.mark.parametrize("salt", [None, (7, ["s", "h"]), (16, [])])
def test_keys_equal_the_reference_encoding_and_decode_back(salt):
    text = TEXT if salt is None else "salt %d buckets%s, %s" % (
        salt[0], " of (%s)" % ", ".join(salt[1]) if salt[1] else "", TEXT)
    schema = rk.Schema(text)
    ref = REF.Schema(FIELDS, salt)
    assert schema.key_length == ref.length
    r = random.Random(20161209)
    for _ in range(2000):
        row = random_row(r)
        key = schema.encode(row)
        assert key == ref.encode(row), row
        decoded = schema.decode(key)
        for name, typ, _, _ in FIELDS:
            if typ in ("MD5", "JAVA_HASH"):
                assert decoded[name] == ref.stored(name, row[name])     # the digest the key holds
            else:
                assert decoded[name] == row[name] and type(decoded[name]) is type(row[name]), (name, row)
        assert schema.encode(decoded) == key                            # digests encode as themselves


def test_the_text_form_parses_back_to_an_equal_schema():
    for text in [SEED, TEXT, "salt 16 buckets of (md5url), " + SEED, '"odd name" int32, b bool DESC']:
        schema = rk.Schema(text)
        assert rk.Schema(schema.text) == schema
        assert hash(rk.Schema(schema.text)) == hash(schema)
        assert repr(schema) == "Schema(%r)" % schema.text
    assert rk.Schema(SEED).fields[:2] == [("md5url", "md5", 8), ("sitecode", "java hash", 4)]
    assert rk.Schema("salt 16 buckets of (a), a int32").salt_buckets == 16
    assert rk.Schema(SEED).salt_buckets is None


@pytest.mark.parametrize("text, fragment", [
    ("code int33", "syntax error at character 6"),
    ("a int32, a int32", "a"),
    ("", "syntax error"),
    ("s fixedString(0)", "width"),
])
def test_a_bad_schema_names_what_is_wrong(text, fragment):
    with pytest.raises(rk.RowKeyError, match=None) as e:
        rk.Schema(text)
    assert fragment in str(e.value)
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("row, fragment", [
    ({"code": 404}, "is missing"),
    (dict.fromkeys(["md5url", "sitecode"], "x") | {"status": 1, "code": "404", "sdate": 1, "type": 1, "free": True,
                                                     "close": True, "queue": 1, "scantype": 1}, "field 'code'"),
    (dict.fromkeys(["md5url", "sitecode"], "x") | {"status": 2**31, "code": 1, "sdate": 1, "type": 1, "free": True,
                                                     "close": True, "queue": 1, "scantype": 1}, "field 'status'"),
    (dict.fromkeys(["md5url", "sitecode"], "x") | {"status": 1.5, "code": 1, "sdate": 1, "type": 1, "free": True,
                                                     "close": True, "queue": 1, "scantype": 1}, "field 'status'"),
    (dict.fromkeys(["md5url", "sitecode"], "x") | {"status": 1, "code": 1, "sdate": 1, "type": 1, "free": True,
                                                     "close": True, "queue": 1, "scantype": 1, "nope": 1}, "unknown field 'nope'"),
    (dict.fromkeys(["md5url", "sitecode"], "x") | {"status": 1, "code": 1, "sdate": 1, "type": 1, "free": True,
                                                     "close": True, "queue": 1, "scantype": 2**70}, "field 'scantype'"),
    ({1: 2}, "field name"),
])
def test_a_bad_row_names_the_field(row, fragment):
    with pytest.raises(rk.RowKeyError) as e:
        rk.Schema(SEED).encode(row)
    assert fragment in str(e.value)


def test_a_key_of_another_length_is_refused():
    with pytest.raises(rk.RowKeyError, match="row key has 3 bytes, the schema's key has 37"):
        rk.Schema(SEED).decode(b"abc")


@pytest.mark.parametrize("clause, fragment", [
    ("code = = 404", "syntax error at character 8: expected a value"),
    ("nope = 1 AND code = 404", "at character 1: unknown field 'nope'"),
    ("code = 'abc'", "field 'code'"),
    ("free = 5", "field 'free'"),
    ("md5url > 'a'", "md5url"),
    ("code = 404 AND", "syntax error at character 15"),
    ("(code = 404", "syntax error"),
    ("code = 404 OR " * 64 + "code = 1", "OR"),
    ("code = 404 AND sdate >= 20161201 " * 40000, "1048576"),
])
def test_a_bad_where_clause_raises_the_parsers_own_message(clause, fragment):
    with pytest.raises(rk.RowKeyError) as e:
        rk.Schema(SEED).where(clause)
    assert fragment in str(e.value), str(e.value)


def test_a_where_clause_comes_back_in_its_canonical_form():
    schema = rk.Schema(SEED)
    assert schema.where("sdate between 20161201 and 20161209 and code in (404,503) and not free") == \
        "sdate BETWEEN 20161201 AND 20161209 AND code IN (404, 503) AND free = false"
    assert schema.where("md5url = 'it''s'") == "md5url = 'it''s'"


def test_filter_strings_double_every_quote_once_more():
    schema = rk.Schema('"it\'s" int32')
    text = rk.filter_string("\"it's\" = 1 OR \"it's\" IN (2, 3)", schema)
    assert text == "RowKeyWhere('\"it''s\" = 1 OR \"it''s\" IN (2, 3)', '\"it''s\" int32')"
    # What HBase's ParseFilter does with a quoted argument: drop the outer quotes, undouble the rest.
    argument = text[len("RowKeyWhere("):].split("', '")[0][1:]
    assert argument.replace("''", "'") == "\"it's\" = 1 OR \"it's\" IN (2, 3)"
    assert rk.filter_string("code = 404") == "RowKeyWhere('code = 404')"
    assert rk.filter_string("md5url = 'http://a/'") == "RowKeyWhere('md5url = ''http://a/''')"


def test_explain_and_ranges_are_the_planners():
    schema = rk.Schema(SEED)
    plan = schema.explain("md5url IN ('http://a/', 'http://b/') AND sdate >= 20161201")
    assert plan.startswith("md5url IN ('http://a/', 'http://b/') AND sdate >= 20161201\nRANGE SCAN over 2 key range(s)")
    ranges = schema.ranges("md5url IN ('http://a/', 'http://b/')")
    assert len(ranges) == 2 and ranges == sorted(ranges)
    for start, stop in ranges:
        assert len(start) == 8 and stop > start
    assert schema.ranges("code = 404 AND code = 503") == []          # a contradiction reads nothing
    assert schema.ranges("TRUE") == [(b"", b"")]                    # the whole table
    assert len(schema.ranges("md5url IN ('a', 'b', 'c')", max_ranges=2)) <= 2


def test_an_aggregation_is_checked_natively():
    schema = rk.Schema(SEED)
    a = rk.Aggregate(schema, ["sdate", "code"], ["count", "sum(queue)", "avg(queue)", "min(sdate)", "max(type)"])
    assert a.columns == ["sdate", "code", "count", "sum(queue)", "avg(queue)", "min(sdate)", "max(type)"]
    assert a.request and a.finish() == []
    assert rk.Aggregate(schema, [], ["count(*)"]).finish() == [(0,)]   # no group: one row, as SQL
    for groups, aggregates, fragment in [([], ["median(code)"], "unknown function 'median'"),
                                         ([], ["sum"], "sum needs a key field"),
                                         ([], ["sum(nope)"], "nope"),
                                         (["nope"], ["count"], "nope"),
                                         (["sdate by week"], ["count"], "unknown unit 'week'"),
                                         ([], [], "at least one aggregate"),
                                         ([], ["sum(md5url)"], "md5url")]:
        with pytest.raises(rk.RowKeyError) as e:
            rk.Aggregate(schema, groups, aggregates)
        assert fragment in str(e.value), (aggregates, str(e.value))
    with pytest.raises(rk.RowKeyError, match="corrupt"):
        a.merge(b"\xff\xff\xff\xff")


def test_encode_decode_and_validation_need_no_happybase():
    code = ("import sys; sys.modules['happybase'] = None; sys.modules['Hbase_thrift'] = None\n"
            "import hbase_rowkey as rk\n"
            "s = rk.Schema('a int32, b bool')\n"
            "assert s.decode(s.encode({'a': 1, 'b': True})) == {'a': 1, 'b': True}\n"
            "s.where('a = 1 AND b')\n"
            "try:\n    rk.scan(object(), 'a = 1', s)\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install 'hbase-rowkey[happybase]'" in out


def test_the_package_is_typed():
    package = os.path.dirname(rk.__file__)
    assert os.path.exists(os.path.join(package, "py.typed"))
    assert os.path.exists(os.path.join(package, "_native.pyi"))

#!/usr/bin/env python3
"""Writes tests/vectors/*.txtpb from an independent reference implementation of docs/design.md, section 2 (the encodings).

The expected keys and comparator results here are computed by this file alone (Python's hashlib,
its own sign-flip/padding/bit-packing code), never by the Rust or Java code under test. Run it
after changing a case: python3 tests/vectors/generate.py
"""
import hashlib
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- reference encodings
def int32(v): return ((v & 0xFFFFFFFF) ^ 0x80000000).to_bytes(4, "big")
def int64(v): return ((v & 0xFFFFFFFFFFFFFFFF) ^ (1 << 63)).to_bytes(8, "big")
def reversed_ts(v): return ((2**63 - 1) - v).to_bytes(8, "big")
def fixed_string(s, w):
    b = s.encode("utf-8"); assert len(b) <= w; return b + b"\0" * (w - len(b))
def md5(s, w): return hashlib.md5(s.encode("utf-8")).digest()[:w]
def java_hash(s):
    """String.hashCode(): over UTF-16 code units, 32-bit wrapping."""
    units = s.encode("utf-16-be")
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i:i + 2], "big")) & 0xFFFFFFFF
    return h.to_bytes(4, "big")
def fnv1a(data):
    h = 0x811C9DC5
    for b in data: h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h

ORDERED = {"INT32", "INT64", "TIMESTAMP", "REVERSED_TIMESTAMP", "FIXED_STRING", "FIXED_BYTES"}

class Schema:
    """fields: list of (name, type, width, descending); salt: (buckets, [names]) or None."""
    def __init__(self, fields, salt=None):
        self.fields, self.salt = fields, salt
        self.loc = {}
        off = 1 if salt else 0
        bit = None  # (offset, mask) of the next free bit in an open bool byte
        for name, typ, width, desc in fields:
            if typ == "BOOL":
                if bit is None: bit = (off, 0x80); off += 1
                self.loc[name] = ("bit", bit[0], bit[1])
                bit = (bit[0], bit[1] >> 1) if bit[1] > 1 else None
            else:
                bit = None
                w = {"INT32": 4, "JAVA_HASH": 4, "INT64": 8, "TIMESTAMP": 8, "REVERSED_TIMESTAMP": 8}.get(typ, width)
                self.loc[name] = ("bytes", off, w); off += w
        self.length = off

    def field(self, name): return next(f for f in self.fields if f[0] == name)

    def stored(self, name, value):
        _, typ, width, desc = self.field(name)
        if typ == "BOOL":
            bit = int(bool(value)); return bytes([bit ^ 1 if desc else bit])
        b = {"INT32": lambda: int32(value), "INT64": lambda: int64(value), "TIMESTAMP": lambda: int64(value),
             "REVERSED_TIMESTAMP": lambda: reversed_ts(value), "FIXED_STRING": lambda: fixed_string(value, width),
             "FIXED_BYTES": lambda: bytes(value), "MD5": lambda: md5(value, width), "JAVA_HASH": lambda: java_hash(value)}[typ]()
        return bytes(x ^ 0xFF for x in b) if desc else b

    def encode(self, row):
        key = bytearray(self.length)
        for name, *_ in self.fields:
            s = self.stored(name, row[name]); loc = self.loc[name]
            if loc[0] == "bit":
                if s[0]: key[loc[1]] |= loc[2]
            else: key[loc[1]:loc[1] + loc[2]] = s
        if self.salt:
            buckets, names = self.salt
            names = names or [f[0] for f in self.fields]
            key[0] = fnv1a(b"".join(self.stored(n, row[n]) for n in names)) % buckets
        return bytes(key)

    def spec(self):
        out = []
        for name, typ, width, desc in self.fields:
            f = f'name: "{name}" type: {typ}'
            if typ in ("FIXED_STRING", "FIXED_BYTES", "MD5"): f += f" width: {width}"
            if desc: f += " descending: true"
            out.append(f"fields {{ {f} }}")
        if self.salt:
            s = f"buckets: {self.salt[0]}" + "".join(f' fields: "{n}"' for n in self.salt[1])
            out.append(f"salt {{ {s} }}")
        return "format_version: 1 " + " ".join(out)

# ---------------------------------------------------------------- reference semantics (value space)
def order_key(schema, name, value):
    typ = schema.field(name)[1]
    if typ == "FIXED_STRING": return value.encode("utf-8")
    if typ == "FIXED_BYTES": return bytes(value)
    return value

def same(schema, name, a, b):
    typ = schema.field(name)[1]
    if typ in ("MD5", "JAVA_HASH"): return schema.stored(name, a) == schema.stored(name, b)
    if typ == "BOOL": return bool(a) == bool(b)
    return a == b

def holds(schema, row, cond):
    name, op, vals = cond
    v = row[name]
    k = lambda x: order_key(schema, name, x)
    if op == "EQ": return same(schema, name, v, vals[0])
    if op == "NE": return not same(schema, name, v, vals[0])
    if op == "IN": return any(same(schema, name, v, x) for x in vals)
    if op == "LT": return k(v) < k(vals[0])
    if op == "LE": return k(v) <= k(vals[0])
    if op == "GT": return k(v) > k(vals[0])
    if op == "GE": return k(v) >= k(vals[0])
    if op == "BETWEEN": return k(vals[0]) <= k(v) <= k(vals[1])
    raise ValueError(op)

def range_result(schema, row, name, constant):
    a, b = order_key(schema, name, constant), order_key(schema, name, row[name])
    return (a > b) - (a < b)

# ---------------------------------------------------------------- text format
def pb_str(s):
    out = []
    for byte in s.encode("utf-8") if isinstance(s, str) else bytes(s):
        c = chr(byte)
        out.append(c if 32 <= byte < 127 and c not in '"\\' else f"\\{byte:03o}")
    return '"' + "".join(out) + '"'

def pb_value(schema, name, v):
    typ = schema.field(name)[1] if schema else None
    if isinstance(v, bool): return f"bool_value: {'true' if v else 'false'}"
    if isinstance(v, int): return f"int_value: {v}"
    if isinstance(v, (bytes, bytearray)): return f"bytes_value: {pb_str(v)}"
    return f"string_value: {pb_str(v)}"

def pb_row(schema, row):
    return " ".join(f'values {{ field: "{n}" value {{ {pb_value(schema, n, v)} }} }}' for n, v in row.items())

def pb_conditions(schema, conds):
    return " ".join(
        f'conditions {{ field: "{n}" op: {op} ' + " ".join(f"values {{ {pb_value(schema, n, v)} }}" for v in vals) + " }"
        for n, op, vals in conds)

class Suite:
    def __init__(self, name, schema):
        self.name, self.schema, self.rows, self.parts = name, schema, {}, []

    def row(self, name, row):
        self.rows[name] = row
        self.parts.append(f'encode {{ name: "{name}" row {{ {pb_row(self.schema, row)} }} key_hex: "{self.schema.encode(row).hex()}" }}')

    def encode_error(self, name, row, fragment):
        self.parts.append(f'encode_error {{ name: "{name}" row {{ {pb_row(self.schema, row)} }} error_contains: {pb_str(fragment)} }}')

    def _expect(self, fn):
        return " ".join(f'expect {{ key: "{n}" result: {fn(r)} }}' for n, r in self.rows.items()) + \
            f' expect {{ key: "hex:{"00" * (self.schema.length + 1)}" result: {fn(None)} }}'

    def equal(self, name, eqs):
        spec = " ".join(f'equalities {{ field: "{n}" value {{ {pb_value(self.schema, n, v)} }} }}' for n, v in eqs.items())
        fn = lambda r: 1 if r is None else (0 if all(holds(self.schema, r, (n, "EQ", [v])) for n, v in eqs.items()) else 1)
        self.parts.append(f'compare {{ name: "{name}" comparator {{ equal {{ {spec} }} }} {self._expect(fn)} }}')

    def range(self, name, field, value):
        fn = lambda r: 1 if r is None else range_result(self.schema, r, field, value)
        self.parts.append(f'compare {{ name: "{name}" comparator {{ range {{ field: "{field}" value {{ {pb_value(self.schema, field, value)} }} }} }} {self._expect(fn)} }}')

    def predicate(self, name, conds):
        fn = lambda r: 1 if r is None else (0 if all(holds(self.schema, r, c) for c in conds) else 1)
        self.parts.append(f'compare {{ name: "{name}" comparator {{ predicate {{ predicate {{ {pb_conditions(self.schema, conds)} }} }} }} {self._expect(fn)} }}')

    def any_of(self, name, branches):
        """An OR of AND-branches (PredicateComparatorSpec.any_of): 0 when some branch holds."""
        fn = lambda r: 1 if r is None else (0 if any(all(holds(self.schema, r, c) for c in b) for b in branches) else 1)
        spec = " ".join(f'any_of {{ {pb_conditions(self.schema, b)} }}' for b in branches)
        self.parts.append(f'compare {{ name: "{name}" comparator {{ predicate {{ {spec} }} }} {self._expect(fn)} }}')

    def compare_error(self, name, comparator_text, fragment):
        self.parts.append(f'compare_error {{ name: "{name}" comparator {{ {comparator_text} }} error_contains: {pb_str(fragment)} }}')

    def text(self):
        body = "\n    ".join(self.parts)
        return f'suite {{\n  name: "{self.name}"\n  schema {{ {self.schema.spec()} }}\n    {body}\n}}\n'

# ---------------------------------------------------------------- the suites
def seed_suite():
    """Seed 000's URL-scan table and its 10 sample rows."""
    s = Schema([("md5url", "MD5", 8, False), ("sitecode", "JAVA_HASH", 0, False), ("status", "INT32", 0, False),
                ("code", "INT32", 0, False), ("sdate", "INT32", 0, False), ("type", "INT32", 0, False),
                ("free", "BOOL", 0, False), ("close", "BOOL", 0, False), ("queue", "INT32", 0, False),
                ("scantype", "INT32", 0, False)])
    suite = Suite("seed000", s)
    sample = [
        ("ea67a96f233d6fcfd7cabc9a6a389283", "1509250008", -1, 404, 20161209, 2, 0, 0, 1, 1),
        ("fd38c0fb8f6e839be56b67c69ad2baa5", "3203000002", -1, 503, 20161209, 2, 0, 0, 1, 0),
        ("d51abcd8edff79d23ca4a9a0576a1996", "15BM010001", -1, 404, 20161209, 2, 0, 0, 0, 0),
        ("e27bbc9192e760bacc23c226ffd90219", "bm28020001", -1, 503, 20161209, 2, 0, 0, 1, 0),
        ("cbc2c0571464621024c89aa019cd09ef", "BT10000001", -1, 404, 20161210, 2, 0, 1, 1, 0),
        ("00a18048ed95f1c057fccc8928ddf610", "1101010059", -1, 503, 20161208, 2, 1, 0, 1, 0),
        ("e6bfa0a07e773e3bab27a37f36ff221a", "5226000038", -1, 404, 20161209, 2, 0, 0, 1, 0),
        ("e6217482388cbc57aa80422c3f64bb35", "bm70000001", -1, 404, 20161209, 2, 0, 0, 1, 0),
        ("b7912f3bdb50be7b58f5a67d65273201", "4408250003", -1, 404, 20161209, 2, 0, 0, 1, 0),
        ("e353cd577fd721eb71538d0938d041f7", "6326000004", -1, 404, 20161209, 2, 0, 0, 1, 0),
    ]
    names = [f[0] for f in s.fields]
    for i, values in enumerate(sample):
        row = dict(zip(names, values)); row["free"] = bool(row["free"]); row["close"] = bool(row["close"])
        suite.row(f"sample{i}", row)
    suite.equal("md5url and sdate", {"md5url": "00a18048ed95f1c057fccc8928ddf610", "sdate": 20161208})
    suite.equal("sdate and code 404", {"sdate": 20161209, "code": 404})
    suite.equal("zero and false are values", {"queue": 0, "free": False})
    suite.range("sdate constant 20161209", "sdate", 20161209)
    suite.range("status constant 0", "status", 0)
    suite.predicate("md5url and sdate between", [("md5url", "EQ", ["cbc2c0571464621024c89aa019cd09ef"]),
                                                 ("sdate", "GT", [20161208]), ("sdate", "LT", [20161211])])
    suite.predicate("code 404, sdate range, type in", [("code", "EQ", [404]), ("sdate", "BETWEEN", [20161201, 20161209]),
                                                        ("type", "IN", [1, 2])])
    suite.predicate("not equal and in on hashes", [("code", "NE", [503]), ("sitecode", "IN", ["1509250008", "BT10000001", "nope"]),
                                                    ("close", "IN", [True, False])])
    suite.predicate("empty in matches nothing", [("type", "IN", [])])
    suite.predicate("contradiction matches nothing", [("code", "EQ", [404]), ("code", "EQ", [503])])
    suite.any_of("or: code 503, or sdate 20161210 with free", [[("code", "EQ", [503])],
                                                               [("sdate", "EQ", [20161210]), ("free", "EQ", [False])]])
    suite.any_of("or: a hash in a set, or a range and not-equal", [[("sitecode", "IN", ["1509250008", "bm70000001"])],
                                                                  [("sdate", "LT", [20161209]), ("queue", "NE", [0])],
                                                                  [("type", "IN", [])]])
    suite.any_of("or of contradictions matches nothing", [[("code", "EQ", [404]), ("code", "EQ", [503])], [("type", "IN", [])]])
    suite.encode_error("missing field", {n: v for n, v in list(suite.rows["sample0"].items())[:-1]}, "scantype")
    bad = dict(suite.rows["sample0"]); bad["code"] = 2**31
    suite.encode_error("int32 out of range", bad, "out of range")
    bad = dict(suite.rows["sample0"]); bad["code"] = "404"
    suite.encode_error("string for int", bad, "code")
    suite.compare_error("range on a hash", 'range { field: "md5url" value { string_value: "x" } }', "md5url")
    suite.compare_error("range on a bool", 'predicate { predicate { conditions { field: "free" op: LT values { bool_value: true } } } }', "free")
    suite.compare_error("unknown field", 'equal { equalities { field: "nope" value { int_value: 1 } } }', "nope")
    suite.compare_error("conditions beside or branches",
                        'predicate { predicate { conditions { field: "code" op: EQ values { int_value: 404 } } } '
                        'any_of { conditions { field: "code" op: EQ values { int_value: 503 } } } }',
                        "outside its branches")
    return suite

def types_suite():
    """Every type, extremes and descending, so each encoding is pinned byte for byte."""
    s = Schema([("i32", "INT32", 0, False), ("i64", "INT64", 0, False), ("ts", "TIMESTAMP", 0, False),
                ("rts", "REVERSED_TIMESTAMP", 0, False), ("flag", "BOOL", 0, False), ("flag2", "BOOL", 0, True),
                ("name", "FIXED_STRING", 6, False), ("raw", "FIXED_BYTES", 3, False), ("d32", "INT32", 0, True),
                ("dname", "FIXED_STRING", 4, True), ("h", "JAVA_HASH", 0, False), ("m", "MD5", 16, False)])
    suite = Suite("types", s)
    rows = [
        dict(i32=0, i64=0, ts=0, rts=0, flag=False, flag2=False, name="", raw=b"\0\0\0", d32=0, dname="", h="", m=""),
        dict(i32=-1, i64=-1, ts=1481272834722, rts=1481272834722, flag=True, flag2=True, name="héllo", raw=b"\xff\x00\x7f",
             d32=-1, dname="ab", h="héllo wörld €", m="abc"),
        dict(i32=-2**31, i64=-2**63, ts=-2**63, rts=2**63 - 1, flag=True, flag2=False, name="zzzzzz", raw=b"\x01\x02\x03",
             d32=-2**31, dname="zzzz", h="\U0001F600", m="\U0001F600"),
        dict(i32=2**31 - 1, i64=2**63 - 1, ts=2**63 - 1, rts=1, flag=False, flag2=True, name="a", raw=b"\x80\x80\x80",
             d32=2**31 - 1, dname="a", h="Aa", m="Aa"),
        dict(i32=1, i64=1, ts=1, rts=2, flag=False, flag2=False, name="ab", raw=b"\x00\x00\x01", d32=1, dname="b", h="BB", m="BB"),
    ]
    for i, row in enumerate(rows):
        suite.row(f"row{i}", row)
    for field, constant in [("i32", 0), ("i32", -2**31), ("i64", -1), ("ts", 1), ("rts", 2), ("name", "ab"),
                            ("raw", b"\x00\x00\x01"), ("d32", 0), ("d32", 2**31 - 1), ("dname", "ab")]:
        suite.range(f"range {field} {constant!r}", field, constant)
    suite.equal("hash collision Aa BB", {"h": "Aa"})  # "Aa".hashCode() == "BB".hashCode(): both match
    suite.equal("descending bool", {"flag2": True})
    suite.predicate("descending between", [("d32", "BETWEEN", [-1, 1])])
    suite.any_of("or of descending and reversed ts ranges", [[("d32", "BETWEEN", [-1, 1])], [("rts", "GT", [1])]])
    suite.predicate("reversed ts >", [("rts", "GT", [1])])
    suite.predicate("string prefix-free order", [("name", "GE", ["a"]), ("name", "LT", ["b"])])
    suite.predicate("descending string <", [("dname", "LT", ["b"])])
    suite.predicate("bytes in", [("raw", "IN", [b"\x80\x80\x80", b"\x01\x02\x03", b"\x00\x00\x00"]), ("flag", "NE", [True])])
    suite.predicate("int64 extremes", [("i64", "GT", [-2**63]), ("i64", "LT", [2**63 - 1])])
    base = dict(rows[0])
    for field, value, fragment in [("name", "toolong", "longer than"), ("raw", b"\x01", "exactly 3 bytes"),
                                   ("rts", -1, ">= 0"), ("i32", -2**31 - 1, "out of range"), ("flag", 1, "flag"),
                                   ("name", "a\0b", "U+0000")]:
        bad = dict(base); bad[field] = value
        suite.encode_error(f"bad {field}", bad, fragment)
    return suite

def salted_suite():
    s = Schema([("user", "FIXED_STRING", 8, False), ("month", "INT32", 0, False), ("seq", "INT64", 0, True)],
               salt=(16, ["user", "month"]))
    suite = Suite("salted", s)
    for i, (user, month, seq) in enumerate([("alice", 202601, 1), ("bob", 202601, 2), ("alice", 202602, 3),
                                            ("carol", 202512, -5), ("", -1, 0)]):
        suite.row(f"row{i}", dict(user=user, month=month, seq=seq))
    suite.predicate("user and month", [("user", "EQ", ["alice"]), ("month", "EQ", [202601])])
    suite.range("seq descending", "seq", 2)
    s2 = Schema([("a", "INT32", 0, False), ("b", "BOOL", 0, False)], salt=(256, []))
    suite2 = Suite("salted all fields, 256 buckets", s2)
    for i, (a, b) in enumerate([(0, False), (1, True), (-7, False), (2**31 - 1, True)]):
        suite2.row(f"row{i}", dict(a=a, b=b))
    suite2.equal("a", {"a": 1})
    return [suite, suite2]

SCHEMA_ERRORS = [
    ("md5 width 0", 'fields { name: "m" type: MD5 width: 0 }', "width 0"),
    ("md5 width 17", 'fields { name: "m" type: MD5 width: 17 }', "width 17"),
    ("salt 0 buckets", 'fields { name: "a" type: INT32 } salt { buckets: 0 }', "salt buckets"),
    ("salt 257 buckets", 'fields { name: "a" type: INT32 } salt { buckets: 257 }', "salt buckets"),
    ("salt unknown field", 'fields { name: "a" type: INT32 } salt { buckets: 4 fields: "b" }', "'b'"),
    ("duplicate name", 'fields { name: "a" type: INT32 } fields { name: "a" type: INT64 }', "'a'"),
    ("no fields", '', "at least one field"),
    ("type unset", 'fields { name: "a" }', "'a'"),
    ("width on int", 'fields { name: "a" type: INT32 width: 4 }', "'a'"),
    ("future version", 'format_version: 9 fields { name: "a" type: INT32 }', "version 9"),
    ("key too long", 'fields { name: "a" type: FIXED_BYTES width: 1024 } ' * 1 + " ".join(f'fields {{ name: "f{i}" type: FIXED_BYTES width: 1024 }}' for i in range(4)), "row key length"),
]

def main():
    suites = [seed_suite(), types_suite(), *salted_suite()]
    with open(os.path.join(HERE, "encodings.txtpb"), "w") as f:
        f.write("# Generated by generate.py from its independent reference implementation. Do not edit by hand.\n")
        f.write("# Format: proto/vectors.proto (VectorFile).\n")
        for suite in suites:
            f.write(suite.text())
    with open(os.path.join(HERE, "schema_errors.txtpb"), "w") as f:
        f.write("# Generated by generate.py. Format: proto/vectors.proto (SchemaErrorFile).\n")
        for name, spec, fragment in SCHEMA_ERRORS:
            f.write(f'case {{ name: "{name}" schema {{ {spec} }} error_contains: {pb_str(fragment)} }}\n')

if __name__ == "__main__":
    main()

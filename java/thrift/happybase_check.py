"""The happybase side of `cargo make thrift-test` (started by ThriftCheck, in the task's virtualenv).

Reads the JSON file ThriftCheck wrote (the gateway's address, each query's where clause, table,
schema and the rows Java's client returned; each bad query's reason as Java's parser gives it),
then through HBase's Thrift1 gateway with happybase:
  - scans every query with filter="RowKeyWhere('...')" forward and reversed: the rows (keys and
    the f:url cell) must be Java's, in key order (reversed: the other way);
  - scans every bad one: the scan must fail, and its error carry the parser's reason;
  - after each bad one, a good query must still return its rows (gateway and RegionServer serve).
Exits 1 on any mismatch, after a summary.
"""

import json
import re
import subprocess
import sys
import time

import happybase
# The gateway's exceptions, as the module happybase loads from its Hbase.thrift.
from Hbase_thrift import IOError as HBaseIOError, IllegalArgument


def filter_string(where, schema=None):
    """The filter-language string, as the README says to write it: quotes doubled."""
    def quoted(text):
        return "'" + text.replace("'", "''") + "'"
    return "RowKeyWhere(" + quoted(where) + ("" if schema is None else ", " + quoted(schema)) + ")"


def error_text(e):
    """What the gateway sent: thriftpy2 gives IOError and IllegalArgument a message field."""
    message = getattr(e, "message", None)
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    return message if message else "%s: %s" % (type(e).__name__, e)


def shown(line):
    """The message's first line from the filter's name on, shortened for printing."""
    at = line.find("RowKeyWhere(")
    line = line[at:] if at >= 0 else line
    return line if len(line) <= 240 else line[:120] + " ... " + line[-115:]


def run_readme_block(readme, expected):
    """The README's happybase block, run as it stands but for the gateway's address: what it prints
    must be seed 2's rows (table urlscan), seed 1's reversed (urlscan_plain, the schema inline), then
    the syntax error's reason. Returns the failures."""
    text = open(readme, encoding="utf-8").read()
    found = re.search(r"Python through that gateway.*?```python\n(.*?)```", text, re.S)
    if not found:
        return ["README.md: no ```python block after 'Python through that gateway'"]
    code = found.group(1)
    if code.count('happybase.Connection("thrift-host", 9090)') != 1:
        return ["README.md's happybase block: no happybase.Connection(\"thrift-host\", 9090) to point at the gateway"]
    code = code.replace('happybase.Connection("thrift-host", 9090)',
                        'happybase.Connection(%r, %d)' % (expected["host"], expected["port"]))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    queries = {(q["table"], q["where"], q["schema"]): q for q in expected["queries"]}
    schema = next(q["schema"] for q in expected["queries"] if q["schema"])
    seed2 = queries[("urlscan", "sdate = 20161209 AND code = 404", None)]
    seed1 = queries[("urlscan_plain", "md5url = '00a18048ed95f1c057fccc8928ddf610' AND sdate = 20161208", schema)]
    want = ["%s %s" % row for row in zip(seed2["keys"], seed2["urls"])]
    want += ["%s %s" % row for row in reversed(list(zip(seed1["keys"], seed1["urls"])))]
    got = run.stdout.splitlines()
    reason = "RowKeyWhere('code = = 404'): RowKeyQuery.parse: syntax error at character 8: expected a value"
    if run.returncode != 0 or got[:-1] != want or not got or reason not in got[-1]:
        return ["README.md's happybase block: exit %d, printed %d lines (want %d rows, then the error): last %r; stderr %s"
                % (run.returncode, len(got), len(want), got[-1:] or None, run.stderr[-2000:])]
    print("README.md's happybase block: run as written, printed seed 2's %d rows, seed 1's %d reversed, then: %s"
          % (len(seed2["keys"]), len(seed1["keys"]), shown(got[-1])))
    return []


def main():
    expected = json.load(open(sys.argv[1], encoding="utf-8"))
    connection = happybase.Connection(expected["host"], expected["port"], timeout=300000)
    failures = []
    started = time.time()

    def scan(query, reverse=False):
        table = connection.table(query["table"])
        f = filter_string(query["where"], query["schema"])
        return [(key.hex(), cells.get(b"f:url", b"").decode("utf-8"))
                for key, cells in table.scan(filter=f, reverse=reverse)]

    def check(query, reverse=False):
        want = list(zip(query["keys"], query["urls"]))
        if reverse:
            want.reverse()
        got = scan(query, reverse)
        if got != want:
            failures.append("%s%s: %d rows through the gateway, Java's client %d; first differing: %s"
                            % (query["name"], " (reversed)" if reverse else "", len(got), len(want),
                               next(((g, w) for g, w in zip(got + [None] * len(want), want + [None] * len(got))
                                     if g != w), None)))
            return False
        return True

    queries = expected["queries"]
    rows = 0
    for q in queries:
        if filter_string(q["where"], q["schema"]) != q["filter"]:
            failures.append("%s: the quoting here gives %r, RowKeyWhere.filterString %r"
                            % (q["name"], filter_string(q["where"], q["schema"]), q["filter"]))
        for reverse in (False, True):
            if check(q, reverse):
                rows += len(q["keys"])
        if q["name"].startswith("seed"):
            print("  %-45s %5d rows  %s" % (q["name"], len(q["keys"]), filter_string(q["where"], q["schema"])))
    print("happybase: %d queries x (forward, reversed): %d rows, equal to Java's client: %d of %d scans"
          % (len(queries), rows, 2 * len(queries) - sum(1 for f in failures if "rows through" in f), 2 * len(queries)))

    probe = next(q for q in queries if q["keys"])
    refused = 0
    for bad in expected["bad"]:
        try:
            got = scan(bad)
            failures.append("%s: %s was accepted (%d rows)" % (bad["name"], filter_string(bad["where"][:60], bad["schema"]), len(got)))
            continue
        except (HBaseIOError, IllegalArgument) as e:
            text = error_text(e)
            kind = type(e).__name__
        except Exception as e:
            failures.append("%s: the scan failed with %s, not the gateway's IOError: %s" % (bad["name"], type(e).__name__, e))
            continue
        # The message is the server's stack trace; its first line names what was wrong.
        first = text.splitlines()[0] if text else ""
        if bad["reason"] not in first:
            failures.append("%s: the error's first line does not carry the reason %r: %s" % (bad["name"], bad["reason"], text[:2000]))
        else:
            refused += 1
            print("  %s, %-40s %s" % (kind, bad["name"] + ":", shown(first)))
        # The gateway and the RegionServer still serve.
        if not check(probe):
            failures.append("after %s, %s no longer returns its rows" % (bad["name"], probe["name"]))
    print("happybase: %d of %d bad filter strings refused with their reason; after each, %s still returned its %d rows"
          % (refused, len(expected["bad"]), probe["name"], len(probe["keys"])))
    connection.close()

    failures.extend(run_readme_block(sys.argv[2], expected))
    print("happybase: %.1f s" % (time.time() - started))
    if failures:
        print("FAILURES (%d):" % len(failures))
        for f in failures:
            print("  " + f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes target/bench/report.md and its charts from the results of `cargo make bench`.

Usage: report.py DIR   (DIR holds any of: jmh-java17.json and jmh-java22.json, the per-row JMH results
of `cargo make bench-per-row`; end_to_end.json, the end-to-end results of `cargo make bench-e2e`; peer.json, the
results beside Apache Phoenix of `cargo make bench-peer`; join.json, the index intersections of `cargo make
bench-join`; scale.json, the queries at several table sizes of `cargo make bench-scale`). Each part of the report (and
its chart, per_row.png / end_to_end.png / peer.png / join.png / scale.png) is written when its results exist.
"""
import datetime
import json
import os
import platform
import subprocess
import sys

DIR = sys.argv[1] if len(sys.argv) > 1 else "target/bench"

LABELS = [
    ("eq2NativeArray", "1. EqualComparator (2 fields), byte[] — ours"),
    ("eq2NativeDirect", "1. EqualComparator (2 fields), direct ByteBuffer — ours"),
    ("eq2Seam", "1. EqualComparator's work through the per-row seam alone (no compareTo checks)"),
    ("eq2Jni", "1. EqualComparator via JNI compareArray directly"),
    ("eq2JavaWords", "3. best pure Java (word-wise), 2 equalities"),
    ("eq2SeedFilterList", "3. seed's way (FilterList of RowFilters), 2 equalities"),
    ("eq2HBaseFuzzy", "4. HBase FuzzyRowFilter, 2 equalities"),
    ("p4Native", "2. PredicateComparator, 2 eq + 2 ranges — ours"),
    ("p4JavaWords", "3. best pure Java, 2 eq + 2 ranges"),
    ("p4SeedFilterList", "3. seed's way, 2 eq + 2 ranges"),
    ("p4HBaseBuiltins", "4. HBase Fuzzy + BinaryComponentComparator, 2 eq + 2 ranges"),
    ("p8Native", "2. PredicateComparator, 8 conditions incl. IN(20) — ours"),
    ("p8JavaWords", "3. best pure Java, 8 conditions"),
    ("p8SeedFilterList", "3. seed's way, 8 conditions"),
    ("p8HBaseBuiltins", "4. HBase built-ins, 8 conditions"),
    ("floorJni", "5. floor: empty JNI call, same arguments"),
    ("floorFfm", "5. floor: empty FFM critical downcall, same arguments"),
]


def load(name):
    path = os.path.join(DIR, name)
    if not os.path.exists(path):
        return None, None
    with open(path) as f:
        runs = json.load(f)
    out = {}
    jdk = None
    for r in runs:
        short = r["benchmark"].rsplit(".", 1)[1]
        alloc = next((m.get("score") for k, m in r.get("secondaryMetrics", {}).items()
                      if k.endswith("gc.alloc.rate.norm")), None)
        out[short] = (r["primaryMetric"]["score"], r["primaryMetric"].get("scoreError"), alloc)
        jdk = r.get("vmVersion") or r.get("jdkVersion")
    return out, jdk


def read_results(name):
    """The parsed JSON results file DIR/name; None when that benchmark has not run."""
    path = os.path.join(DIR, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def fmt(v, digits=1):
    if v is None or v != v:
        return "—"
    return f"{v:.{digits}f}"


def alloc_fmt(a):
    if a is None:
        return "—"
    return "0" if a < 0.01 else f"{a:.2f}"


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores ({platform.system()} {platform.release()})"


def measured_on(*names):
    """The date of the newest of the result files (when they were measured, not when reported)."""
    times = [os.path.getmtime(os.path.join(DIR, n)) for n in names if os.path.exists(os.path.join(DIR, n))]
    return datetime.date.fromtimestamp(max(times)).isoformat() if times else datetime.date.today().isoformat()


def plt_or_none():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("matplotlib missing: no chart", file=sys.stderr)
        return None


def per_row(lines):
    """The per-row JMH part; False when there are no JMH results."""
    jni, jdk17 = load("jmh-java17.json")
    ffm, jdk22 = load("jmh-java22.json")
    if not jni and not ffm:
        return False
    date = measured_on("jmh-java17.json", "jmh-java22.json")
    lines += [
        "## Per row",
        "",
        f"{date}; {machine()}; "
        f"JNI path: JDK {jdk17 or '—'}; FFM path: JDK {jdk22 or '—'}.",
        "",
        "Per row, ns (lower is better), on the same 1,000,000 generated seed-000 keys (37 bytes), "
        "JMH average time, 1 fork × 5 × 1 s after 3 × 1 s warm-up, 1,000 rows per invocation; "
        "allocation per row from JMH's gc profiler. Short runs on a 2-core machine: differences "
        "under ~10 % are noise. Every benchmark's evaluator was checked against the oracle on all rows "
        "before it was measured.",
        "",
        "| benchmark | Java 17 (JNI) ns/row | B/row | Java 22+ (FFM) ns/row | B/row |",
        "|---|---:|---:|---:|---:|",
    ]
    for key, label in LABELS:
        a = jni.get(key) if jni else None
        b = ffm.get(key) if ffm else None
        if a is None and b is None:
            continue
        lines.append(
            f"| {label} | {fmt(a[0]) if a else '—'} | {alloc_fmt(a[2]) if a else '—'} | "
            f"{fmt(b[0]) if b else '—'} | {alloc_fmt(b[2]) if b else '—'} |"
        )

    def s(results, key):
        return results[key][0] if results and key in results else float("nan")

    def ratio(x, y):
        return x / y if y == y and y else float("nan")

    lines += ["", "### Targets (per row)", "", "| target | figure | met? |", "|---|---:|---|"]
    checks = []
    if ffm:
        r = ratio(s(ffm, "eq2NativeArray"), s(ffm, "eq2JavaWords"))
        checks.append(("FFM: EqualComparator ≤ 1.25 × best pure-Java word-wise", f"{r:.2f} ×", r <= 1.25))
        r = ratio(s(ffm, "p4Native"), s(ffm, "p4SeedFilterList"))
        checks.append(("FFM: PredicateComparator (4 cond.) ≤ 0.5 × seed-style FilterList", f"{r:.3f} ×", r <= 0.5))
        r = ratio(s(ffm, "p4Native"), s(ffm, "p4JavaWords"))
        checks.append(("FFM: PredicateComparator (4 cond.) ≤ 1.25 × best pure Java", f"{r:.2f} ×", r <= 1.25))
    if jni:
        floor = s(jni, "floorJni")
        for key, what in (("eq2NativeArray", "EqualComparator"), ("p4Native", "Predicate, 4 cond."), ("p8Native", "Predicate, 8 cond.")):
            d = s(jni, key) - floor
            checks.append((f"JNI: {what} ≤ empty-JNI floor + 10 ns", f"floor + {d:.1f} ns", d <= 10))
    for name, results in (("Java 17 (JNI)", jni), ("Java 22+ (FFM)", ffm)):
        if results:
            allocs = [v[2] for k, v in results.items() if "Native" in k or "Jni" in k or "Seam" in k or "floor" in k]
            if None in allocs or not allocs:
                checks.append((f"0 bytes allocated per row, our paths, {name}", "not measured", False))
            else:
                worst = max(allocs)
                checks.append((f"0 bytes allocated per row, our paths, {name}", f"max {worst:.4f} B/row", worst < 0.01))
    for name, fig, ok in checks:
        lines.append(f"| {name} | {fig} | {'yes' if ok else '**no**'} |")

    lines += cost_breakdown(jni, ffm)
    lines += ["", "![per-row cost](per_row.png)", ""]

    plt = plt_or_none()
    if plt is None:
        return True
    keys = [(k, l) for k, l in LABELS if (jni and k in jni) or (ffm and k in ffm)]
    fig, ax = plt.subplots(figsize=(11, 0.42 * len(keys) + 1.5))
    ys = list(range(len(keys)))
    h = 0.38
    if jni:
        ax.barh([y - h / 2 for y in ys], [s(jni, k) if k in jni else 0 for k, _ in keys], h, label=f"Java 17, JNI ({jdk17})")
    if ffm:
        ax.barh([y + h / 2 for y in ys], [s(ffm, k) if k in ffm else 0 for k, _ in keys], h, label=f"Java 22+, FFM ({jdk22})")
    ax.set_yticks(ys)
    ax.set_yticklabels([l for _, l in keys], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("ns per row (log scale, lower is better)")
    ax.set_title(f"Per-row cost, 1,000,000 seed-000 keys — {date}")
    save(plt, fig, ax, "per_row.png")
    return True


def save(plt, fig, ax, name):
    """The charts' common legend, grid and file."""
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(DIR, name), dpi=110)
    plt.close(fig)


def criterion():
    """criterion's bencher lines: name -> ns per iteration."""
    path = os.path.join(DIR, "criterion.txt")
    if not os.path.exists(path):
        return {}
    out = {}
    with open(path) as f:
        for line in f:
            # test evaluate_per_row/p4/comparator ... bench:     527,116 ns/iter (+/- 3,674)
            parts = line.split()
            if len(parts) >= 5 and parts[0] == "test" and parts[3] == "bench:":
                out[parts[1]] = float(parts[4].replace(",", ""))
    return out


# The criterion groups that run over 100,000 rows per iteration (benches/core.rs ROWS).
CRITERION_ROWS = 100_000


def per_row_native(crit, name):
    v = crit.get(name)
    return v / CRITERION_ROWS if v is not None else float("nan")


def cost_breakdown(jni, ffm):
    """Where the per-row time goes, from the JMH floors and the criterion figures of the core."""
    crit = criterion()
    if not crit:
        return []
    call = per_row_native(crit, "call_per_row/eq2/rowkey_compare") - per_row_native(crit, "call_per_row/empty_function") \
        - per_row_native(crit, "evaluate_per_row/eq2/comparator")
    lines = [
        "",
        "### What the per-row cost is made of",
        "",
        "Each of our per-row figures above, split into: the empty native call with the same arguments "
        "(JMH floor), the compare itself in Rust (criterion, the comparator inlined into a loop over "
        "100,000 rows of the same shape), the library's own entry (criterion: `rowkey_compare` through a "
        "function pointer minus an empty function and minus the inlined compare: handle and region checks, "
        "the call frame), and the rest, the Java side: `compareTo`'s checks and the handle, plus on the "
        "JNI path the copy of the row into the thread's scratch buffer. The parts come from separate "
        "harnesses, so they are estimates; the rest is the total minus the others.",
        "",
        "| path | query | total | empty call | compare (Rust) | library entry | Java side (rest) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for path, results, floor_key in (("JNI (Java 17)", jni, "floorJni"), ("FFM (Java 22+)", ffm, "floorFfm")):
        if not results or floor_key not in results:
            continue
        floor = results[floor_key][0]
        for key, query in (("eq2NativeArray", "eq2"), ("p4Native", "p4"), ("p8Native", "p8")):
            if key not in results:
                continue
            total = results[key][0]
            native = per_row_native(crit, f"evaluate_per_row/{query}/comparator")
            rest = total - floor - native - call
            lines.append(f"| {path} | {query} | {fmt(total)} | {fmt(floor)} | {fmt(native)} | {fmt(call)} | {fmt(rest)} |")
    return lines


def native_core(lines):
    """The criterion section; False when there are no criterion results."""
    crit = criterion()
    if not crit:
        return False
    date = measured_on("criterion.txt")
    lines += [
        "## Native core (criterion)",
        "",
        f"{date}; {machine()}; `cargo make bench-rust` (`benches/core.rs`). Per row: the time for "
        f"{CRITERION_ROWS:,} rows of the seed-000 shape (the demo's field distributions) divided by "
        "the row count. `hand_written` is the same query written by hand in Rust over the key bytes, "
        "with the short-circuit branches a careful programmer writes; both are checked against the "
        "oracle on every row first.",
        "",
        "| benchmark | per iteration | per row |",
        "|---|---:|---:|",
    ]
    for name, ns in crit.items():
        per_row = name.startswith(("evaluate_per_row/", "call_per_row/"))
        shown = f"{ns / 1e6:.2f} ms" if ns >= 1e6 else f"{ns / 1e3:.1f} µs" if ns >= 1e3 else f"{ns:.0f} ns"
        lines.append(f"| {name} | {shown} | {fmt(ns / CRITERION_ROWS, 2) + ' ns' if per_row else '—'} |")
    lines.append("")
    return True


def count(n):
    return f"{n:,}"


def ms(way):
    return f"{way['median_ms']:.1f} ({way['min_ms']:.1f}–{way['max_ms']:.1f})"


def end_to_end(lines):
    """The end-to-end part (the demo's queries on the embedded HBase); False without end_to_end.json."""
    e2e = read_results("end_to_end.json")
    if e2e is None:
        return False
    m = e2e["machine"]
    target = e2e["target"]
    goal = target["speedup"]
    version = e2e["jdk"]
    call = "JNI" if int(version.split(".")[0].split("+")[0].split("-")[0]) < 22 else "FFM"
    lines += [
        "## End to end",
        "",
        f"{e2e['date'][:10]}; {m['cpu']}, {m['cores']} cores, {m['memory_mb'] / 1024:.0f} GiB ({m['os']}); "
        f"JDK {version} ({e2e['jvm']}, per-row calls through {call}), heap {e2e['max_heap_mb']:,} MiB; "
        f"HBase {e2e['hbase']}, {e2e['cluster']}.",
        "",
        f"The demo's tables and queries: {count(e2e['rows'])} rows (data seed {e2e['seed']}) in {e2e['tables']}. "
        "Each query runs four ways: the seed's (a full scan, one `RowFilter` per condition in a `FilterList`), "
        "planned on the data table (`RowKeyQuery.toScan()`), `RowKeyTable.scan` (the planner's choice of the data "
        "table or an index), and `RowKeyTable.scan` asking for the URL alone (an index that covers it answers "
        f"alone): {e2e['warmup_runs']} warm-up run each, then {e2e['runs']} measured runs, the ways alternating; "
        "every run of every way returned the same rows. Wall time: building the scan to the last row on the "
        "client, ms, median. Rows read: rows the RegionServer read (HBase scan metrics, `ROWS_SCANNED`); through "
        "an index, index rows + data rows read by Gets. Ranges: the key ranges of the data-table plan; in ranges: "
        "the rows inside them (counted once without the per-row filter). Speedup: median seed time / median time "
        "of the way.",
        "",
        "| query | rows | ranges | seed: read | ms | toScan: read | in ranges | ms | table.scan: read | ms "
        "| URL only: read | ms | speedup (toScan / table.scan / URL only) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for q in e2e["queries"]:
        seed, planned, table, url = q["seed"], q["planned"], q["table"], q["table_url"]
        lines.append(
            f"| {q['name']} | {count(q['rows_returned'])} | {count(q['ranges'])} | "
            f"{count(seed['median_rows_read'])} | {ms(seed)} | {count(planned['median_rows_read'])} | "
            f"{count(q['rows_in_ranges'])} | {ms(planned)} | {read(table)} | {ms(table)} | {read(url)} | {ms(url)} | "
            f"{q['speedup']:.1f} × / {q['table_speedup']:.1f} × / {q['table_url_speedup']:.1f} × |"
        )
    lines += [
        "",
        f"### Targets (end to end)",
        "",
        f"For the {target['applies_to']}: at least {goal:g} × faster than the seed's full scan, and "
        f"{target['read_bound']} (every row read is returned, except at most one per key range). For the queries "
        f"read through an index: at least {goal:g} × faster, and {target['index_read_bound']}.",
        "",
        "| target | figure | met? |",
        "|---|---:|---|",
    ]
    for q in e2e["queries"]:
        if q["leading_field"]:
            read_ = q["planned"]["median_rows_read"]
            lines.append(f"| {q['name']}: ≥ {goal:g} × faster | {q['speedup']:.1f} × | {yes(q['speedup_met'])} |")
            lines.append(
                f"| {q['name']}: rows read ≤ returned + ranges | {count(read_)} vs {count(q['rows_returned'])} + "
                f"{count(q['ranges'])} = {count(q['read_bound'])} | {yes(q['read_met'])} |"
            )
        elif q["through_index"]:
            for way, key, met in (("table", "table_speedup", "target_met"), ("table_url", "table_url_speedup", "url_target_met")):
                w = q[way]
                label = "every cell" if way == "table" else "URL only"
                lines.append(
                    f"| {q['name']}, {label}: ≥ {goal:g} × faster; index read ≤ {count(q['index_read_bound'])}; "
                    f"data read ≤ {count(q['rows_returned'])} | {q[key]:.1f} ×; {count(w['median_index_rows_read'])}; "
                    f"{count(w['median_rows_read'])} | {yes(q[met])} |")
    base = e2e["loads"][0]
    lines += [
        "",
        "### Write cost of indexes",
        "",
        "The same rows loaded the demo's way (`BufferedMutator`, 8 MiB buffer, no WAL on the data; the coprocessor "
        "writes the index rows with the WAL before the data and marks them verified after), writes and flushes, "
        "after an untimed warm-up load; then the backfill of the covered index into the loaded table without one "
        f"(`RowKeyTable.addIndex`, a MapReduce job on the LocalJobRunner). Target: one index below "
        f"{target['index_write_cost']:g} × the load without.",
        "",
        "| table | indexes | s | rows/s | × the load without |",
        "|---|---:|---:|---:|---:|",
    ]
    for load in e2e["loads"]:
        lines.append(f"| {load['table']} | {load['indexes']} | {load['seconds']:.1f} | "
                     f"{load['rows'] / load['seconds']:,.0f} | {load['seconds'] / base['seconds']:.2f} × |")
    b = e2e["backfill"]
    lines += ["", f"Backfill: {count(b['rows'])} rows in {b['seconds']:.1f} s, {b['rows_per_s']:,.0f} rows/s.", ""]
    lines += ["", "![end-to-end time](end_to_end.png)", ""]

    plt = plt_or_none()
    if plt is None:
        return True
    queries = e2e["queries"]
    fig, ax = plt.subplots(figsize=(11, 0.9 * len(queries) + 1.6))
    ys = list(range(len(queries)))
    h = 0.2
    ways = (("seed", "seed's way: full scan + FilterList", "tab:red"),
            ("planned", "planned: RowKeyQuery.toScan()", "tab:blue"),
            ("table", "RowKeyTable.scan (data table or index)", "tab:cyan"),
            ("table_url", "RowKeyTable.scan, URL only", "tab:purple"))
    for i, (way, label, color) in enumerate(ways):
        med = [q[way]["median_ms"] for q in queries]
        err = [[q[way]["median_ms"] - q[way]["min_ms"] for q in queries],
               [q[way]["max_ms"] - q[way]["median_ms"] for q in queries]]
        ax.barh([y + (i - 1.5) * h for y in ys], med, h, xerr=err, capsize=2, label=label, color=color, alpha=0.85)
    for y, q in zip(ys, queries):
        best = max(q["speedup"], q["table_speedup"], q["table_url_speedup"])
        ax.text(q["seed"]["max_ms"] * 1.15, y, f"{best:.0f} ×" if best >= 10 else f"{best:.1f} ×", va="center", fontsize=8)
    ax.set_yticks(ys)
    ax.set_yticklabels([("★ " if q["leading_field"] else "◆ " if q["through_index"] else "") + q["name"] for q in queries],
                       fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    lo = min(q[w]["min_ms"] for q in queries for w, _, _ in ways)
    hi = max(q["seed"]["max_ms"] for q in queries)
    ax.set_xlim(lo / 2, hi * 20)  # room for the speedups and the legend, right of the bars
    ax.set_xlabel(f"wall time, ms (log scale, lower is better): median of {e2e['runs']} runs, whiskers min–max; "
                  "right: best speedup; ★ leading field, ◆ through an index")
    ax.set_title(f"End to end, {count(e2e['rows'])} rows, embedded HBase {e2e['hbase']} — {e2e['date'][:10]}, "
                 f"JDK {version}, {m['cores']} cores", fontsize=10)
    save(plt, fig, ax, "end_to_end.png")
    return True


def read(way):
    """Rows read by a way: "index + data" through an index, else the data rows."""
    if way["median_index_rows_read"] < 0:
        return count(way["median_rows_read"])
    return f"{count(way['median_index_rows_read'])} + {count(way['median_rows_read'])}"


def yes(ok):
    return "yes" if ok else "**no**"


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def peer_summary(q):
    """A query's headline ways: the seed's, Phoenix's default plan (cached metadata), Phoenix's fastest way, ours.

    Ours: the median of its runs in both passes (it runs beside Phoenix in each)."""
    ways = q["ways"]
    seed = next(w for w in ways if w["side"] == "seed")
    phoenix = [w for w in ways if w["side"] == "phoenix"]
    default = next(w for w in phoenix if w["name"].startswith("Phoenix,") and w["pass"] == 2)
    best = min(phoenix, key=lambda w: w["median_ms"])
    ours_runs = [w for w in ways if w["side"] == "ours"]
    ours = both_passes(ours_runs)
    return (seed, default, best, ours, both_passes([w for w in ways if w["side"] == "ours-index"]),
            both_passes([w for w in ways if w["side"] == "ours-index-covered"]))


def both_passes(ways):
    """One way's figures over its runs in both passes (None when the query has no such way)."""
    if not ways:
        return None
    return {"median_ms": median([ms for w in ways for ms in w["wall_ms"]]),
            "median_rows_read": median([r for w in ways for r in w["rows_read"]])}


def peer(lines):
    """The part beside Apache Phoenix (`cargo make bench-peer`); False without peer.json."""
    p = read_results("peer.json")
    if p is None:
        return False
    m = p["machine"]
    lines += [
        "## Beside Apache Phoenix",
        "",
        f"{p['date'][:10]}; {m['cpu']}, {m['cores']} cores, {m['memory_mb'] / 1024:.0f} GiB; JDK {p['jdk']}, heap "
        f"{p['max_heap_mb']:,} MiB; HBase {p['hbase']}, {p['cluster']}; Phoenix {p['phoenix']} in the same JVM. "
        f"{count(p['rows'])} rows (data seed {p['seed']}); {p['tables']}.",
        "",
        f"Every way of every query: {p['warmup_runs']} warm-up run, then {p['runs']} measured runs, all the ways of a "
        "query interleaved run by run, in two passes: Phoenix's tables at its default `UPDATE_CACHE_FREQUENCY=ALWAYS` "
        "(a metadata lookup per statement), then at `NEVER`. Every run of every way returned exactly the seed way's "
        "rows (checked on the key bytes). Wall time: building the scan or preparing the statement, to the last row, "
        "ms, median. Rows read: the regions' own read counters (rows returned + rows filtered out, data and index "
        "tables), before and after each run.",
        "",
        "### Loads",
        "",
        "| way | table | index | rows | s | rows/s |",
        "|---|---|---|---:|---:|---:|",
    ]
    for load in p["loads"]:
        if load["seconds"] is None:
            lines.append(f"| {load['way']} | {load['table']} | {load['index']} | {count(load['rows'])} | — | "
                         f"{load.get('note', 'not measured')} |")
        else:
            lines.append(f"| {load['way']} | {load['table']} | {load['index']} | {count(load['rows'])} | "
                         f"{load['seconds']:.1f} | {load['rows_per_s']:,.0f} |")
    lines += [
        "",
        "### Queries",
        "",
        "Phoenix: its default plan with cached metadata (`UPDATE_CACHE_FREQUENCY=NEVER`); Phoenix's fastest: the "
        "fastest of all its ways (default, `NO_INDEX`, `SKIP_SCAN`, `INDEX` on the covered or uncovered index; either "
        "pass). Ours: `RowKeyQuery.toScan()` on the demo's table (one serial scan), `RowKeyTable.scan` on a table "
        "with our index on (sdate, code) (the index where it serves, else the data table's ranges, regions read at "
        "once), and, where the index serves, `RowKeyTable.scan` for the URL alone (the index covers it: the index "
        "rows answer alone); each the median of its runs in both passes. "
        "Floor (queries on the leading key field): the result rows alone, keys known in advance, one plain HBase "
        "scan per region that holds any, the regions at once: what any way that scans for them pays at least. "
        "Ratio: Phoenix's fastest / our fastest (above 1: ours is faster).",
        "",
        "| query | rows | seed: ms | seed: read | Phoenix: ms | Phoenix: read | Phoenix's fastest | ms | read "
        "| ours (toScan): ms | read | ours (RowKeyTable.scan): ms | read | URL only, covered: ms | read "
        "| floor: ms | Phoenix's fastest / ours (best) |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for q in p["queries"]:
        seed, default, best, ours, indexed, covered = peer_summary(q)
        floor = both_passes([w for w in q["ways"] if w["side"] == "floor"])
        ours_best = min(w["median_ms"] for w in (ours, indexed, covered) if w)
        lines.append(
            f"| {q['name']} | {count(q['rows_returned'])} | {seed['median_ms']:.1f} | {count(seed['median_rows_read'])} | "
            f"{default['median_ms']:.1f} | {count(default['median_rows_read'])} | {best['name']} | "
            f"{best['median_ms']:.1f} | {count(best['median_rows_read'])} | {ours['median_ms']:.1f} | "
            f"{count(round(ours['median_rows_read']))} | "
            + "".join(f"{w['median_ms']:.1f} | {count(round(w['median_rows_read']))} | " if w else "— | — | "
                      for w in (indexed, covered))
            + (f"{floor['median_ms']:.1f} | " if floor else "— | ")
            + f"{best['median_ms'] / ours_best:.2f} × |")
    reversed_rows = [q for q in p["queries"] if any(w["side"] == "ours-reversed" for w in q["ways"])]
    if reversed_rows:
        lines += ["", "### Reversed: the rows in descending key order", "",
                  "Ours: `RowKeyTable.scan` of the query `reversed()` on the table with our index (each run's order "
                  "checked), beside the same query forward; Phoenix: the query `ORDER BY` every primary-key column "
                  "`DESC`, its default plan and `NO_INDEX`, the fastest of both passes. Floor: as above, the result "
                  "rows alone (forward). Each the median of its runs in both passes.", "",
                  "| query | rows | ours forward: ms | ours reversed: ms | reversed / forward | Phoenix's fastest DESC "
                  "| ms | Phoenix's fastest DESC / ours reversed | floor: ms | ours reversed / floor |",
                  "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
        for q in reversed_rows:
            ways = q["ways"]
            forward = both_passes([w for w in ways if w["side"] == "ours-index"])
            back = both_passes([w for w in ways if w["side"] == "ours-reversed"])
            best = min((w for w in ways if w["side"] == "phoenix-reversed"), key=lambda w: w["median_ms"])
            floor = both_passes([w for w in ways if w["side"] == "floor"])
            lines.append(
                f"| {q['name']} | {count(q['rows_returned'])} | {forward['median_ms']:.1f} | {back['median_ms']:.1f} | "
                f"{back['median_ms'] / forward['median_ms']:.2f} | {best['name']} | {best['median_ms']:.1f} | "
                f"{best['median_ms'] / back['median_ms']:.2f} × | "
                + (f"{floor['median_ms']:.1f} | {back['median_ms'] / floor['median_ms']:.2f} |" if floor else "— | — |"))
    if p.get("aggregates"):
        lines += ["", "### Aggregates", "",
                  "Seed 000's statistics: ours `RowKeyTable.aggregate` (folded inside the regions; the table with our "
                  "covered index on (sdate, code)) beside Phoenix's SQL on its plain table with its covered and "
                  "uncovered indexes on (sdate, code), its default plan and `NO_INDEX`, metadata cached. Every run of "
                  "every way gave ours' answer. Ratio: Phoenix's fastest / ours (above 1: ours is faster).", "",
                  "| statistic | groups | ours: ms | read | bytes to the client | Phoenix: ms | read "
                  "| Phoenix NO_INDEX: ms | read | Phoenix's fastest / ours |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for a in p["aggregates"]:
            ours, default, no_index = a["ways"]
            best = min(default["median_ms"], no_index["median_ms"])
            lines.append(f"| {a['name']} | {count(a['groups'])} | {ours['median_ms']:.1f} | "
                         f"{count(ours['median_rows_read'])} | {count(a['ours_bytes_to_client'])} | "
                         f"{default['median_ms']:.1f} | {count(default['median_rows_read'])} | "
                         f"{no_index['median_ms']:.1f} | {count(no_index['median_rows_read'])} | "
                         f"{best / ours['median_ms']:.2f} × |")
        lines += ["", "![aggregates beside Phoenix](peer_aggregates.png)", "", "Plans:", ""]
        for a in p["aggregates"]:
            lines += [f"**{a['name']}**", "", "| way | plan |", "|---|---|"]
            lines += [f"| {w['name']} | " + w["explain"].replace("|", "\\|").replace("\n", "<br>") + " |"
                      for w in a["ways"]]
            lines.append("")
    lines += ["", "![beside Phoenix](peer.png)", "", "### Every way", "",
              "Rows read (regions): the region read counters, as above. Rows scanned: HBase's scan metric "
              "`ROWS_SCANNED` of the seed's and our scans, as the end-to-end benchmark reports it (Phoenix's request "
              "metrics gave 0 for `COUNT_ROWS_SCANNED` here: —).", ""]
    for q in p["queries"]:
        lines += [f"**{q['name']}** ({count(q['rows_returned'])} rows)", "",
                  "| way | ms | rows read (regions) | rows scanned (scan metrics) | plan |", "|---|---:|---:|---:|---|"]
        for w in q["ways"]:
            plan = w["explain"].replace("|", "\\|").replace("\n", "<br>")
            scanned = w.get("median_scan_metrics_rows_read")
            lines.append(f"| {w['name']} | {w['median_ms']:.1f} | {count(w['median_rows_read'])} | "
                         f"{'—' if scanned is None else count(scanned)} | {plan} |")
        lines.append("")

    plt = plt_or_none()
    if plt is None:
        return True
    queries = p["queries"]
    fig, (ax_ms, ax_read) = plt.subplots(1, 2, figsize=(14, 0.8 * len(queries) + 1.8), sharey=True)
    ys = list(range(len(queries)))
    summaries = [peer_summary(q) for q in queries]
    h = 0.14
    bars = (("seed's way: full scan + FilterList", "tab:red", 0), ("Phoenix: default plan, cached metadata", "tab:orange", 1),
            ("Phoenix: its fastest way", "tab:olive", 2), ("ours: RowKeyQuery.toScan()", "tab:blue", 3),
            ("ours: through our index (RowKeyTable.scan)", "tab:cyan", 4),
            ("ours: through our index, URL only (covered)", "tab:purple", 5))
    for i, (label, color, k) in enumerate(bars):
        shown = [(y + (i - 2.5) * h, s[k]) for y, s in zip(ys, summaries) if s[k] is not None]
        if not shown:
            continue
        time_and_rows_bars(ax_ms, ax_read, [o for o, _ in shown], [f for _, f in shown], h, label, color)
    ax_ms.set_yticks(ys)
    ax_ms.set_yticklabels([q["name"] for q in queries], fontsize=8)
    ax_ms.invert_yaxis()
    save_time_and_rows(plt, fig, ax_ms, ax_read, f"wall time, ms (log), median of {p['runs']} runs",
                       "rows read on the RegionServer (log)",
                       f"Beside Apache Phoenix {p['phoenix']}: {count(p['rows'])} rows, embedded HBase {p['hbase']} — "
                       f"{p['date'][:10]}, JDK {p['jdk']}, {m['cores']} cores", 0.05, "peer.png")
    if p.get("aggregates"):
        peer_aggregates_chart(plt, p, m)
    return True


def peer_aggregates_chart(plt, p, m):
    """peer_aggregates.png: each statistic's time and rows read, ours beside Phoenix's two ways."""
    aggregates = p["aggregates"]
    fig, (ax_ms, ax_read) = plt.subplots(1, 2, figsize=(14, 0.7 * len(aggregates) + 1.8), sharey=True)
    ys = list(range(len(aggregates)))
    h = 0.25
    bars = (("ours: RowKeyTable.aggregate, folded in the regions", "tab:blue"),
            ("Phoenix: default plan, cached metadata", "tab:orange"), ("Phoenix: NO_INDEX", "tab:olive"))
    for i, (label, color) in enumerate(bars):
        time_and_rows_bars(ax_ms, ax_read, [y + (i - 1) * h for y in ys], [a["ways"][i] for a in aggregates], h, label,
                           color)
    ax_ms.set_yticks(ys)
    ax_ms.set_yticklabels([a["name"] for a in aggregates], fontsize=8)
    ax_ms.invert_yaxis()
    save_time_and_rows(plt, fig, ax_ms, ax_read, f"wall time, ms (log), median of {p['runs']} runs",
                       "rows read on the RegionServer (log)",
                       f"Aggregates beside Apache Phoenix {p['phoenix']}: {count(p['rows'])} rows, embedded HBase "
                       f"{p['hbase']} — {p['date'][:10]}, JDK {p['jdk']}, {m['cores']} cores", 0.08, "peer_aggregates.png")


def time_and_rows_bars(ax_ms, ax_read, offsets, figures, height, label, color):
    """One way's bars in both panels: median time, and rows read (at least 0.5, for the log axis)."""
    ax_ms.barh(offsets, [f["median_ms"] for f in figures], height, label=label, color=color, alpha=0.85)
    ax_read.barh(offsets, [max(f["median_rows_read"], 0.5) for f in figures], height, label=label, color=color, alpha=0.85)


def save_time_and_rows(plt, fig, ax_ms, ax_read, ms_label, read_label, title, legend_room, name, left=None):
    """The two-panel charts' log axes (from `left` when given), legend below, title and file."""
    for ax, xlabel in ((ax_ms, ms_label), (ax_read, read_label)):
        ax.set_xscale("log")
        if left is not None:
            ax.set_xlim(left=left)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", which="both", alpha=0.3)
    handles, labels = ax_ms.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, legend_room, 1, 1))  # room for the legend below
    fig.savefig(os.path.join(DIR, name), dpi=110)
    plt.close(fig)


def join(lines):
    """The index intersections (`cargo make bench-join`); False without join.json."""
    j = read_results("join.json")
    if j is None:
        return False
    scenarios = j["scenarios"]
    lines += ["## Index intersections", "",
              f"`cargo make bench-join`: {count(j['rows'])} rows keyed `id, a, b`, indexes on `a` and on `b`, embedded HBase "
              f"{j['hbase']}, {j['cores']} cores, {j['date']}; the ways take turns, median of {j['runs']} runs. Index rows "
              "read, index scan requests, median ms.", ""]
    for sc in scenarios:
        smaller = min(sc["size_a"], sc["size_b"])
        relay = sc["ways"][0]
        lines += [f"**{sc['query']}**: abs(A) = {count(sc['size_a'])}, abs(B) = {count(sc['size_b'])}", "",
                  "| way | index rows read | read / smaller input | index scans | median ms | ms / the relay's |",
                  "|---|---:|---:|---:|---:|---:|"]
        for w in sc["ways"]:
            lines.append(f"| {w['name']} | {count(w['index_rows_read'])} | {w['index_rows_read'] / smaller:.2f} | "
                         f"{count(w['index_scans'])} | {w['median_ms']:.1f} | {w['median_ms'] / relay['median_ms']:.2f} |")
        lines.append("")
    lines += ["![index intersections](join.png)", ""]

    plt = plt_or_none()
    if plt is None:
        return True
    names = [w["name"] for w in scenarios[0]["ways"]]
    colors = ("tab:blue", "tab:cyan", "tab:red", "tab:olive", "tab:orange")
    fig, (ax_ms, ax_read) = plt.subplots(1, 2, figsize=(14, 1.3 * len(scenarios) + 1.8), sharey=True)
    ys = list(range(len(scenarios)))
    h = 0.15
    for i, name in enumerate(names):
        offs = [y + (i - (len(names) - 1) / 2) * h for y in ys]
        ax_ms.barh(offs, [sc["ways"][i]["median_ms"] for sc in scenarios], h, label=name, color=colors[i % len(colors)],
                   alpha=0.85)
        ax_read.barh(offs, [max(sc["ways"][i]["index_rows_read"], 0.5) for sc in scenarios], h, label=name,
                     color=colors[i % len(colors)], alpha=0.85)
    ax_ms.set_yticks(ys)
    ax_ms.set_yticklabels([f"{sc['query']}\n|A| {count(sc['size_a'])}, |B| {count(sc['size_b'])}" for sc in scenarios],
                          fontsize=8)
    ax_ms.invert_yaxis()
    save_time_and_rows(plt, fig, ax_ms, ax_read,
                       f"wall time, ms (log), median of {j['runs']} runs, data rows fetched included",
                       "index rows read on the RegionServer (log)",
                       f"Index intersections: {count(j['rows'])} rows, embedded HBase {j['hbase']} — {j['date'][:10]}, "
                       f"{j['cores']} cores", 0.14, "join.png", left=1)
    return True


def scale(lines):
    """The demo's queries at several table sizes (`cargo make bench-scale`); False without scale.json."""
    sc = read_results("scale.json")
    if sc is None:
        return False
    sizes = [s["rows"] for s in sc["sizes"]]
    lines += ["## Time against table size", "",
              f"`cargo make bench-scale`: the demo's table bulk-loaded with its three indexes at each size, embedded HBase "
              f"{sc['hbase']}, {sc['cores']} cores, JDK {sc['jdk']}, {sc['date'][:10]}; best of 3 runs after a warm-up (the "
              "seed's full scan: one run). Rows returned / rows read (index and data) / ms.", "",
              "| query | " + " | ".join(f"{count(n)} rows" for n in sizes) + " | time, largest / smallest |",
              "|---|" + "---:|" * (len(sizes) + 1)]
    for q in sc["queries"]:
        at = q["at"]
        lines.append(f"| {q['query']} | " + " | ".join(f"{count(a['returned'])} / {count(a['read'])} / {a['ms']:.1f}"
                                                      for a in at)
                     + f" | {at[-1]['ms'] / max(at[0]['ms'], 0.01):.2f}× |")
    lines += ["", "Load with the three indexes: " + ", ".join(
        f"{count(s['rows'])} rows in {s['load_seconds']:.1f} s ({count(round(s['rows'] / s['load_seconds']))} rows/s)"
        for s in sc["sizes"]) + ".", "", "![time against table size](scale.png)", ""]

    plt = plt_or_none()
    if plt is None:
        return True
    fig, ax = plt.subplots(figsize=(10, 7.5))
    colors = plt.get_cmap("tab20").colors
    for i, q in enumerate(sc["queries"]):
        full_scan = "full scan" in q["query"]
        ax.plot(sizes, [a["ms"] for a in q["at"]], marker="os^Dv"[i % 5], linestyle="--" if full_scan else "-",
                color=colors[(2 * i) % 20 + (2 * i) // 20 % 2], label=q["query"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(sizes)
    ax.set_xticklabels([count(n) for n in sizes])
    ax.set_xlabel("rows in the table (log)")
    ax.set_ylabel("ms (log), best of 3")
    ax.set_title(f"The demo's queries against table size — embedded HBase {sc['hbase']}, {sc['date'][:10]}, "
                 f"{sc['cores']} cores", fontsize=10)
    ax.grid(which="both", alpha=0.3)
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=8)
    fig.tight_layout(rect=(0, 0.17, 1, 1))  # room for the legend below
    fig.savefig(os.path.join(DIR, "scale.png"), dpi=110)
    plt.close(fig)
    return True


def main():
    lines = ["# hbase-rowkey benchmarks", ""]
    parts = [name for name, write in (("criterion", native_core), ("per_row.png", per_row), ("end_to_end.png", end_to_end),
                                            ("peer.png", peer), ("join.png", join),
                                            ("scale.png", scale))
             if write(lines)]
    if not parts:
        print(f"no results in {DIR} (criterion.txt, jmh-java17.json, jmh-java22.json, end_to_end.json, peer.json, "
              "join.json, scale.json): nothing to report", file=sys.stderr)
        sys.exit(1)
    with open(os.path.join(DIR, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", os.path.join(DIR, "report.md"), "and", ", ".join(parts))


if __name__ == "__main__":
    main()

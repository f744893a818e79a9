#!/usr/bin/env python3
"""Runs `lockreplay sql`'s query in real engines and compares it with `lockreplay analyze`.

Usage: check_engines.py --bin target/debug/lockreplay [--engines duckdb,clickhouse] [--cluster FILE] [--sim ARGS]
       CASE_DIR...

For each handed case (a folder with case.json, tests/fixtures/cases/) and each simulator log (--sim "--buyers 300
--seed 4", repeatable), it:
  1. runs `lockreplay analyze --format json` with the case's settings;
  2. exports the same load's lock events (`lockreplay sql --export-events`, JSON Lines);
  3. generates the rules' query for DuckDB (`duckdb` from PyPI) and ClickHouse (chDB from PyPI: the ClickHouse
     engine in process), reads the JSON Lines as the table, runs the query; with --cluster (a cluster.json of
     tests/sql/ch_cluster.py: two clickhouse-server processes), also loads the events into a table sharded by lock
     key over both servers and runs the query on each shard's own rows (each key computed where it lives), the
     rows of the shards together being the answer;
  4. compares the overlap pairs (key, earlier, later, start, duration, cause), the near-misses (key, holder, window
     end, time used) and the near-miss streaks with the analysis: they must be equal.
Exits 0 when every comparison agrees, 1 on a difference (printed), 3 when a python module is missing.
"""
import argparse
import concurrent.futures
import datetime as dt
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ch_cluster  # noqa: E402

# The cluster of --cluster, when given.
CLUSTER = None

COLUMNS = {
    "seq": ("BIGINT", "Int64"),
    "ts_ns": ("BIGINT", "Int64"),
    "key": ("VARCHAR", "Nullable(String)"),
    "holder": ("VARCHAR", "Nullable(String)"),
    "event": ("VARCHAR", "String"),
    "ttl_ms": ("BIGINT", "Nullable(Int64)"),
    "ttl_unknown": ("BIGINT", "Int64"),
    "elapsed_ms": ("DOUBLE", "Nullable(Float64)"),
    "deleted": ("BIGINT", "Nullable(Int64)"),
}


def table_expr(engine, path, columns=tuple(COLUMNS)):
    if engine == "duckdb":
        cols = ", ".join(f"{k}: '{COLUMNS[k][0]}'" for k in columns)
        return f"read_json('{path}', format = 'newline_delimited', columns = {{{cols}}})"
    cols = ", ".join(f"{k} {COLUMNS[k][1]}" for k in columns)
    return f"file('{path}', 'JSONEachRow', '{cols}')"


def run_sql(engine, sql):
    """Rows as tuples of strings/numbers."""
    if engine == "duckdb":
        import duckdb

        con = duckdb.connect()
        return [tuple(r) for r in con.sql(sql).fetchall()]
    from chdb import session

    # The ClickHouse script is statements ending in ';' at a line's end (temporary tables, then the query),
    # run in one session as a client or the HTTP interface's session_id would.
    statements = [s for s in re.split(r";[ \t]*\n", sql) if s.strip() and not all(
        l.strip().startswith("--") or not l.strip() for l in s.splitlines())]
    sess = session.Session()
    try:
        for st in statements[:-1]:
            sess.query(st)
        out = sess.query(statements[-1], "JSONCompactEachRow")
    finally:
        sess.close()
    text = out.bytes().decode() if hasattr(out, "bytes") else str(out)
    return [tuple(json.loads(line)) for line in text.splitlines() if line.strip()]


def cluster_columns(columns):
    """The ClickHouse column types of `columns` (names of COLUMNS) for a table sharded by key (not Nullable)."""
    return [(c, "String" if c == "key" else COLUMNS[c][1]) for c in columns]


def run_sharded(binary, events, flags, columns=tuple(COLUMNS)):
    """The rules' query run on each shard of the cluster over its own rows of `events`: the rows together, and the
    rows each shard holds."""
    local = CLUSTER.load(events, cluster_columns(columns))
    try:
        q = subprocess.run([binary, "sql", "--dialect", "clickhouse", "--table", local, *flags],
                           check=True, capture_output=True, text=True).stdout
        with concurrent.futures.ThreadPoolExecutor(len(CLUSTER.urls)) as pool:
            texts = list(pool.map(lambda u: CLUSTER.run(u, q.rstrip().rstrip(";") + "\nFORMAT JSONCompact"),
                                  CLUSTER.urls))
        rows = [tuple(r) for text in texts for r in json.loads(text)["data"]]
        return rows, CLUSTER.shard_rows(local)
    finally:
        CLUSTER.drop(local)


def engine_rows(engine, binary, events, flags, columns=tuple(COLUMNS)):
    """Rows of the rules' query over `events` (JSON Lines with `columns`) in `engine`: duckdb, clickhouse (chDB) or
    cluster."""
    if engine == "cluster":
        return run_sharded(binary, events, flags, columns)[0]
    q = subprocess.run([binary, "sql", "--dialect", engine, "--table", table_expr(engine, events, columns), *flags],
                       check=True, capture_output=True, text=True).stdout
    return run_sql(engine, q)


def ns_of(rfc3339):
    t = dt.datetime.fromisoformat(rfc3339)
    return int(t.timestamp()) * 1_000_000_000 + t.microsecond * 1000


def expected(report):
    overlaps, near, streaks = set(), set(), set()
    for inc in report["incidents"]:
        for o in inc["overlaps"]:
            overlaps.add((o["key"], o["earlier"], o["later"], ns_of(o["start"]) // 1000, round(o["duration_ms"], 3), o["cause"]))
    for f in report["findings"]:
        if f["kind"] == "near_miss":
            near.add((f["key"], f["holder"], ns_of(f["at"]) // 1000))
        elif f["kind"] == "near_miss_streak":
            streaks.add((f["key"], f["holder"], ns_of(f["at"]) // 1000))
    return overlaps, near, streaks


def got(rows):
    overlaps, near, streaks = set(), set(), set()
    for kind, key, holder, other, at_ns, dur, detail in rows:
        at_us = int(at_ns) // 1000
        if kind == "overlap":
            overlaps.add((key, holder, other, at_us, round(float(dur), 3), detail))
        elif kind == "near_miss":
            near.add((key, holder, at_us))
        else:
            streaks.add((key, holder, at_us))
    return overlaps, near, streaks


def flags_of(settings):
    f = []
    if "near_miss_ratio" in settings:
        f += ["--near-miss-ratio", str(settings["near_miss_ratio"])]
    if settings.get("tz"):
        f += ["--tz", str(settings["tz"])]
    for host, ms in (settings.get("host_offsets_ms") or {}).items():
        f += ["--host-offset", f"{host}={ms}"]
    return f


def compare(binary, name, files, flags, engines, tmp, table=None):
    """analyze on `files` against the rules' query in each engine on their exported events; `table(events)`, when
    given, turns the export into the table's rows: `(path, columns, extra sql flags)`."""
    rep = subprocess.run([binary, "analyze", "--format", "json", *flags, *files], capture_output=True)
    if rep.returncode not in (0, 1):
        print(f"{name}: analyze failed: {rep.stderr.decode()}")
        return False
    want = expected(json.loads(rep.stdout))
    events = os.path.join(tmp, "events-" + "".join(c if c.isalnum() else "_" for c in name) + ".jsonl")
    subprocess.run([binary, "sql", "--export-events", events, *flags, *files], check=True, capture_output=True)
    columns, sql_flags = tuple(COLUMNS), []
    if table:
        events, columns, sql_flags = table(events)
    ok = True
    for engine in engines:
        started = time.monotonic()
        rows = engine_rows(engine, binary, events, flags + sql_flags, columns)
        took = time.monotonic() - started
        have = got(rows)
        labels = ("overlap pairs", "near-misses", "near-miss streaks")
        diffs = [(l, w - h, h - w) for l, w, h in zip(labels, want, have) if w != h]
        counts = ", ".join(f"{len(h)} {l}" for l, h in zip(labels, have))
        if diffs:
            ok = False
            print(f"FAIL {name} [{engine}] ({counts}):")
            for label, missing, extra in diffs:
                for m in sorted(missing)[:5]:
                    print(f"  {label} missing in SQL: {m}")
                for e in sorted(extra)[:5]:
                    print(f"  {label} extra in SQL:   {e}")
        else:
            print(f"ok   {name} [{engine}] {counts} in {took:.2f} s")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--engines", default="duckdb,clickhouse")
    ap.add_argument("--cluster", help="cluster.json of tests/sql/ch_cluster.py: also run on its shards")
    ap.add_argument("--sim", action="append", default=[], help="simulate arguments, e.g. '--buyers 300 --seed 4'")
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    engines = args.engines.split(",")
    if args.cluster:
        global CLUSTER
        CLUSTER = ch_cluster.Cluster(args.cluster)
        engines.append("cluster")
    missing = []
    for engine, module in (("duckdb", "duckdb"), ("clickhouse", "chdb")):
        if engine in engines:
            try:
                __import__(module)
            except ImportError:
                missing.append(module)
    if missing:
        print(f"missing python module(s): {', '.join(missing)} (pip install {' '.join(missing)})")
        return 3
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for case_dir in args.cases:
            case = json.load(open(os.path.join(case_dir, "case.json"), encoding="utf-8"))
            files = [os.path.join(case_dir, f) for f in case["files"]]
            ok &= compare(args.bin, case["id"], files, flags_of(case.get("settings", {})), engines, tmp)
        for i, sim in enumerate(args.sim):
            log = os.path.join(tmp, f"sim{i}.jsonl")
            subprocess.run([args.bin, "simulate", *sim.split(), "--out", log], check=True, capture_output=True)
            ok &= compare(args.bin, f"simulate {sim}", [log], [], engines, tmp)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

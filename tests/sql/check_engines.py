#!/usr/bin/env python3
"""Runs `lockreplay sql`'s query in real engines and compares it with `lockreplay analyze`.

Usage: check_engines.py --bin target/debug/lockreplay [--engines duckdb,clickhouse] [--cluster FILE] [--sim ARGS]
       [--slices N [--carry-ms MS]] CASE_DIR...

For each handed case (a folder with case.json, tests/fixtures/cases/) and each simulator log (--sim "--buyers 300
--seed 4", repeatable), it:
  1. runs `lockreplay analyze --format json` with the case's settings;
  2. exports the same load's lock events (`lockreplay sql --export-events`, JSON Lines);
  3. generates the rules' query for DuckDB (`duckdb` from PyPI) and ClickHouse (chDB from PyPI: the ClickHouse
     engine in process), reads the JSON Lines as the table, runs the query; with --cluster (a cluster.json of
     tests/sql/ch_cluster.py: two clickhouse-server processes), also loads the events into a table sharded by lock
     key over both servers and runs the query on each shard's own rows (each key computed where it lives), the
     rows of the shards together being the answer;
     DuckDB runs each log alone; chDB and the cluster run every log at once in one table (each key named after its
     log), once per set of flags, as a fleet's table holds many services;
  3b. with --slices N, runs the simulator logs together in N time slices (`--since`/`--until`, rows `--carry-ms`
     around each read too) in DuckDB and on the cluster: the slices' rows together are the answer, as a month run a
     day at a time;
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


def slices_of(events, n, carry_ms):
    """`sql` flags cutting the events' time span into `n` slices (`--since`/`--until`, `--carry-ms`)."""
    times = [json.loads(line)["ts_ns"] for line in open(events, encoding="utf-8") if line.strip()]
    lo, hi = min(times), max(times) + 1
    step = -(-(hi - lo) // n)
    return [["--since", str(lo + i * step), "--until", str(min(hi, lo + (i + 1) * step)), "--carry-ms", str(carry_ms)]
            for i in range(n)]


def prepare(binary, name, files, flags, tmp, table=None):
    """analyze on `files` and their exported events: a job `(name, want, events, columns, sql flags)`, or None when
    analyze failed (said)."""
    rep = subprocess.run([binary, "analyze", "--format", "json", *flags, *files], capture_output=True)
    if rep.returncode not in (0, 1):
        print(f"{name}: analyze failed: {rep.stderr.decode()}")
        return None
    want = expected(json.loads(rep.stdout))
    events = os.path.join(tmp, "events-" + "".join(c if c.isalnum() else "_" for c in name) + ".jsonl")
    subprocess.run([binary, "sql", "--export-events", events, *flags, *files], check=True, capture_output=True)
    columns, sql_flags = tuple(COLUMNS), []
    if table:
        events, columns, sql_flags = table(events)
    return name, want, events, columns, flags + sql_flags


def judge(name, label, want, rows, took):
    """Whether the engine's `rows` give the analysis `want`; prints ok or the differences."""
    have = got(rows)
    labels = ("overlap pairs", "near-misses", "near-miss streaks")
    diffs = [(l, w - h, h - w) for l, w, h in zip(labels, want, have) if w != h]
    counts = ", ".join(f"{len(h)} {l}" for l, h in zip(labels, have))
    if not diffs:
        print(f"ok   {name} [{label}] {counts} in {took:.2f} s")
        return True
    print(f"FAIL {name} [{label}] ({counts}):")
    for what, missing, extra in diffs:
        for m in sorted(missing)[:5]:
            print(f"  {what} missing in SQL: {m}")
        for e in sorted(extra)[:5]:
            print(f"  {what} extra in SQL:   {e}")
    return False


def sliced_rows(engine, binary, events, flags, columns, slices):
    """The query's rows, whole (`slices` None) or slice by slice (n, carry ms), the slices' rows together."""
    if not slices:
        return engine_rows(engine, binary, events, flags, columns)
    return [r for cut in slices_of(events, *slices) for r in engine_rows(engine, binary, events, flags + cut, columns)]


def compare(binary, name, files, flags, engines, tmp, table=None):
    """analyze on `files` against the rules' query in each engine on their exported events; `table(events)`, when
    given, turns the export into the table's rows: `(path, columns, extra sql flags)`."""
    job = prepare(binary, name, files, flags, tmp, table)
    if job is None:
        return False
    name, want, events, columns, flags = job
    ok = True
    for engine in engines:
        started = time.monotonic()
        rows = engine_rows(engine, binary, events, flags, columns)
        ok &= judge(name, engine, want, rows, time.monotonic() - started)
    return ok


def compare_fleet(binary, jobs, engine, tmp, slices=None):
    """The jobs (of [`prepare`], export columns) as one fleet: every job's events in one table, each key named
    after its job (`J|key`), the query run once per set of flags (whole, or in `slices`); each job's rows (its keys)
    judged against its analysis. Keys are independent, so this is each job's answer."""
    ok = True
    groups = {}
    for i, job in enumerate(jobs):
        groups.setdefault(tuple(job[4]), []).append((i, job))
    for flags, members in groups.items():
        fleet = os.path.join(tmp, f"fleet-{len(os.listdir(tmp))}.jsonl")
        with open(fleet, "w", encoding="utf-8") as out:
            for i, (_, _, events, _, _) in members:
                for line in open(events, encoding="utf-8"):
                    if line.strip():
                        row = json.loads(line)
                        row["key"] = f"{i}|{row['key']}"
                        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        started = time.monotonic()
        rows = sliced_rows(engine, binary, fleet, list(flags), tuple(COLUMNS), slices)
        took = time.monotonic() - started
        by_job = {}
        for r in rows:
            i, key = r[1].split("|", 1)
            by_job.setdefault(int(i), []).append((r[0], key, *r[2:]))
        label = f"{engine}, {len(jobs)} logs in one table" + (f", {slices[0]} slices" if slices else "")
        for i, (name, want, _, _, _) in members:
            ok &= judge(name, label, want, by_job.get(i, []), took)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--engines", default="duckdb,clickhouse")
    ap.add_argument("--cluster", help="cluster.json of tests/sql/ch_cluster.py: also run on its shards")
    ap.add_argument("--sim", action="append", default=[], help="simulate arguments, e.g. '--buyers 300 --seed 4'")
    ap.add_argument("--slices", type=int, default=0,
                    help="also run the simulator logs together in this many time slices (DuckDB and the cluster)")
    ap.add_argument("--carry-ms", type=int, default=60_000, help="with --slices: the rows read around each slice")
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
        jobs, sims = [], []
        for case_dir in args.cases:
            case = json.load(open(os.path.join(case_dir, "case.json"), encoding="utf-8"))
            files = [os.path.join(case_dir, f) for f in case["files"]]
            jobs.append(prepare(args.bin, case["id"], files, flags_of(case.get("settings", {})), tmp))
        for i, sim in enumerate(args.sim):
            log = os.path.join(tmp, f"sim{i}.jsonl")
            subprocess.run([args.bin, "simulate", *sim.split(), "--out", log], check=True, capture_output=True)
            sims.append(prepare(args.bin, f"simulate {sim}", [log], [], tmp))
        jobs += sims
        ok = all(j is not None for j in jobs)
        jobs = [j for j in jobs if j is not None]
        # DuckDB on each log alone; ClickHouse's engines (a query costs ~1 s to plan) on all of them in one table.
        for engine in engines:
            if engine == "duckdb":
                for name, want, events, columns, flags in jobs:
                    started = time.monotonic()
                    rows = engine_rows(engine, args.bin, events, flags, columns)
                    ok &= judge(name, engine, want, rows, time.monotonic() - started)
            else:
                ok &= compare_fleet(args.bin, jobs, engine, tmp)
        if args.slices:
            sims = [j for j in sims if j is not None]
            for engine in [e for e in engines if e in ("duckdb", "cluster")]:
                ok &= compare_fleet(args.bin, sims, engine, tmp, (args.slices, args.carry_ms))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The rules' SQL at scale (issue #50): the simulator's log through `analyze` and through the per-key ClickHouse
program on a two-shard cluster, whole and in time slices, and ClickHouse's per-key arrays against its window
functions in chDB. Prints Markdown tables for docs/scale.md.

Usage: bench/sql_scale.py --bin target/release/lockreplay [--events 10000000] [--seed 3] [--data DIR]
                          [--slice-minutes 120] [--carry-ms 600000] [--windows-bin OLD_LOCKREPLAY] [--chdb-events N]

- analyze: `lockreplay analyze --no-cache --format json` on the log, wall time and peak RSS (/usr/bin/time): the
  faster of two runs with the log read into the page cache first.
- cluster: two Debian clickhouse-server processes (tests/sql/ch_cluster.py) with the log's lock events
  (`sql --export-events`) in a table sharded by `cityHash64(key)` (MergeTree, partitioned by hour, ordered by key
  and time); `sql --select all` run on both shards at once, each over its own rows, as `fetch --cluster` does; the
  time is the slower shard's, the memory the sum of both queries' peaks (`system.query_log.memory_usage`); in
  slices, one slice after another (`--since`/`--until`, `--carry-ms`). The overlap pairs must equal analyze's.
- chDB (ClickHouse's engine of today, in process): `sql --select all` over the events in a Memory table, each run
  in a fresh process: CPU time and the peak RSS the query added; `--windows-bin` names a lockreplay whose
  ClickHouse query is the window-function script (temporary tables in one session) to compare with.
Needs clickhouse-server (apt), chdb (pip) and /usr/bin/time. The machine's other load counts: run it quiet.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "sql"))
import ch_cluster  # noqa: E402

COLUMNS = [("seq", "Int64"), ("ts_ns", "Int64"), ("key", "String"), ("holder", "Nullable(String)"),
           ("event", "String"), ("ttl_ms", "Nullable(Int64)"), ("ttl_unknown", "Int64"),
           ("elapsed_ms", "Nullable(Float64)"), ("deleted", "Nullable(Int64)")]
HOUR_NS = 3_600_000_000_000


def timed(cmd, out=subprocess.DEVNULL):
    """(wall s, peak RSS bytes, user+sys s) of a command under /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r") as tf:
        done = subprocess.run(["/usr/bin/time", "-f", "%e %M %U %S", "-o", tf.name] + cmd, stdout=out,
                              stderr=subprocess.DEVNULL)
        if done.returncode not in (0, 1):  # analyze's 1: incidents found
            sys.exit(f"{cmd} exited {done.returncode}")
        e, m, u, s = tf.read().strip().splitlines()[-1].split()
        return float(e), int(m) * 1024, float(u) + float(s)


def data(args):
    os.makedirs(args.data, exist_ok=True)
    log = os.path.join(args.data, f"sim-{args.events}-{args.seed}.jsonl")
    events = log.replace(".jsonl", ".events.jsonl")
    if not os.path.exists(log):
        subprocess.run([args.bin, "simulate", "--events", str(args.events), "--seed", str(args.seed), "--out", log],
                       check=True, capture_output=True)
    if not os.path.exists(events):
        subprocess.run([args.bin, "sql", "--export-events", events, log], check=True, capture_output=True)
    return log, events


def analyze(args, log):
    """The faster of two `analyze` runs with the log in the page cache, as the cluster's table is in its cache
    when the SQL runs: a first read from disk (18-23 s for the 10 M log here, against 4-5 s) measures the disk."""
    with open(log, "rb") as f:
        while f.read(1 << 24):
            pass
    runs = []
    for _ in range(2):
        with tempfile.TemporaryFile() as out:
            wall, rss, cpu = timed([args.bin, "analyze", "--no-cache", "--format", "json", log], out)
            out.seek(0)
            runs.append((wall, rss, cpu, json.load(out)["summary"]))
    return min(runs, key=lambda r: r[0])


PROFILE = ("SELECT memory_usage, read_rows, "
           "ProfileEvents.Values[indexOf(ProfileEvents.Names, 'UserTimeMicroseconds')] + "
           "ProfileEvents.Values[indexOf(ProfileEvents.Names, 'SystemTimeMicroseconds')] "
           "FROM system.query_log WHERE query_id = '{qid}' AND type = 2 FORMAT TSV")


def on_shards(cluster, query):
    """`query` on every shard at once: (slowest wall s, sum of peak memory bytes, rows read, CPU s of all the
    shards' queries, the result rows of all shards)."""
    def one(url):
        qid = "bench-" + uuid.uuid4().hex
        started = time.monotonic()
        text = cluster.run(url, query + "\nFORMAT JSONCompact", {"log_queries": "1", "query_id": qid})
        return qid, time.monotonic() - started, json.loads(text)["data"]

    with concurrent.futures.ThreadPoolExecutor(len(cluster.urls)) as pool:
        results = list(pool.map(one, cluster.urls))
    mem = read = cpu_us = 0
    for url, (qid, _, _) in zip(cluster.urls, results):
        cluster.run(url, "SYSTEM FLUSH LOGS")
        m, r, c = cluster.run(url, PROFILE.format(qid=qid)).split()
        mem, read, cpu_us = mem + int(m), read + int(r), cpu_us + int(c)
    rows = [row for _, _, shard_rows in results for row in shard_rows]
    return max(r[1] for r in results), mem, read, cpu_us / 1e6, rows


def run_shards(cluster, binary, table, flags):
    """`sql --select all` on every shard at once: (slowest wall s, sum of peak memory, rows read, pairs)."""
    q = subprocess.run([binary, "sql", "--table", table, "--select", "all", *flags], check=True,
                       capture_output=True, text=True).stdout.rstrip().rstrip(";")
    wall, mem, read, _, rows = on_shards(cluster, q)
    return wall, mem, read, sum(1 for r in rows if r[0] == "overlap")


def cluster_runs(args, events, rows):
    out = []
    with tempfile.TemporaryDirectory() as d:
        ch_cluster.start(d)
        cluster = ch_cluster.Cluster(os.path.join(d, "cluster.json"))
        try:
            started = time.monotonic()
            local = cluster.load(events, COLUMNS, order="(key, ts_ns)",
                                 partition=f"intDiv(ts_ns, {HOUR_NS})")
            load_s = time.monotonic() - started
            out.append(("whole log, 2 shards", *run_shards(cluster, args.bin, local, [])))
            lo, hi = span(events)
            step = args.slice_minutes * 60_000_000_000
            total, peak, read, pairs, n = 0.0, 0, 0, 0, 0
            for s in range(lo - lo % step, hi + 1, step):
                wall, mem, r, p = run_shards(cluster, args.bin, local, [
                    "--since", str(s), "--until", str(s + step), "--carry-ms", str(args.carry_ms)])
                total, peak, read, pairs, n = total + wall, max(peak, mem), read + r, pairs + p, n + 1
            out.append((f"{n} slices of {args.slice_minutes} min, carry {args.carry_ms // 60000} min", total, peak,
                        read, pairs))
        finally:
            ch_cluster.stop(d)
    return load_s, out


def span(events):
    lo = hi = None
    with open(events) as f:
        for line in f:
            t = json.loads(line)["ts_ns"]
            lo, hi = (t if lo is None else min(lo, t)), (t if hi is None else max(hi, t))
    return lo, hi


CHDB_RUN = r"""
import re, resource, subprocess, sys, time
from chdb import session
binary, events = sys.argv[1], sys.argv[2]
cols = "seq Int64, ts_ns Int64, key Nullable(String), holder Nullable(String), event String, ttl_ms Nullable(Int64), ttl_unknown Int64, elapsed_ms Nullable(Float64), deleted Nullable(Int64)"
s = session.Session()
s.query(f"CREATE TABLE ev ENGINE = Memory AS SELECT * FROM file('{events}', 'JSONEachRow', '{cols}')")
q = subprocess.run([binary, "sql", "--table", "ev", "--select", "all"], capture_output=True, text=True).stdout
stmts = [x for x in re.split(r";[ \t]*\n", q) if x.strip() and not all(l.strip().startswith("--") or not l.strip() for l in x.splitlines())]
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
before, c0, t0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, cpu(), time.monotonic()
for st in stmts[:-1]:
    s.query(st)
out = s.query(stmts[-1], "JSONCompactEachRow")
pairs = sum(1 for l in str(out).splitlines() if l.startswith('["overlap"'))
print(time.monotonic() - t0, cpu() - c0, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024, pairs)
"""


def chdb_run(binary, events):
    out = subprocess.run([sys.executable, "-c", CHDB_RUN, binary, events], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[0]), float(out[1]), int(out[2]), int(out[3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--data", default=os.environ.get("BENCH_DATA", "/tmp/lockreplay-bench"))
    ap.add_argument("--slice-minutes", type=int, default=120)
    ap.add_argument("--carry-ms", type=int, default=600_000)
    ap.add_argument("--windows-bin")
    ap.add_argument("--chdb-events", type=int, default=1_000_000)
    args = ap.parse_args()
    log, events = data(args)
    rows = sum(1 for _ in open(events))
    wall, rss, cpu, summary = analyze(args, log)
    want = summary["overlap_pairs"]
    print(f"{args.events} events, {rows} lock events, {want} overlap pairs (analyze)\n")
    print("| run | wall s | µs a lock event | peak memory | bytes a lock event | pairs equal |")
    print("|---|---|---|---|---|---|")
    print(f"| `analyze` (release build, whole process) | {wall:.1f} | {wall / rows * 1e6:.2f} | {rss / 1e6:.0f} MB RSS "
          f"| {rss / rows:.0f} | - |")
    load_s, runs = cluster_runs(args, events, rows)
    for name, w, mem, read, pairs in runs:
        print(f"| SQL, {name} | {w:.1f} | {w / rows * 1e6:.2f} | {mem / 1e6:.0f} MB | {mem / rows:.0f} "
              f"| {'yes' if pairs == want else f'no: {pairs}'} |")
    print(f"\n(loading the events into the cluster took {load_s:.0f} s; rows read by the sliced run include the carry)")
    if args.chdb_events:
        sargs = argparse.Namespace(**{**vars(args), "events": args.chdb_events})
        clog, cevents = data(sargs)
        crow = sum(1 for _ in open(cevents))
        print(f"\nchDB, {args.chdb_events} events ({crow} lock events), one process per run:\n")
        print("| ClickHouse program | wall s | CPU s | peak RSS added | bytes a lock event | pairs |")
        print("|---|---|---|---|---|---|")
        for name, b in (("per-key arrays", args.bin), ("window functions", args.windows_bin)):
            if b:
                w, c, m, p = chdb_run(b, cevents)
                print(f"| {name} | {w:.1f} | {c:.1f} | {m / 1e6:.0f} MB | {m / crow:.0f} | {p} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

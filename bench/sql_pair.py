#!/usr/bin/env python3
"""Two builds' per-key ClickHouse programs on the same two-shard cluster, alternating (issue #50): the table is
loaded once, then each build's `sql --select all` runs on both shards at once, turn about, `--runs` times. Prints
per run the slower shard's wall time, the CPU of both servers' queries (`system.query_log.ProfileEvents`: user and
system time), the sum of both queries' peak memory, and whether every result row equals the first run's.

Usage: bench/sql_pair.py --bin before=OLD_LOCKREPLAY --bin after=NEW_LOCKREPLAY [--runs 4] [--events 10000000]
                         [--seed 3] [--data DIR]

The log and its exported events are made, and each program run on the shards, as bench/sql_scale.py does
(`data`, `on_shards`; the log with the first build). Needs clickhouse-server (apt). One run after another on a shared machine: compare the pairs, not single runs.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "sql"))
import ch_cluster  # noqa: E402
from sql_scale import COLUMNS, HOUR_NS, data, on_shards  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append", required=True, help="NAME=PATH, twice or more")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--data", default=os.environ.get("BENCH_DATA", "/tmp/lockreplay-bench"))
    args = ap.parse_args()
    builds = [b.split("=", 1) for b in args.bin]
    args.bin = builds[0][1]
    _, events = data(args)
    with tempfile.TemporaryDirectory() as d:
        ch_cluster.start(d)
        cluster = ch_cluster.Cluster(os.path.join(d, "cluster.json"))
        try:
            local = cluster.load(events, COLUMNS, order="(key, ts_ns)", partition=f"intDiv(ts_ns, {HOUR_NS})")
            queries = [(name, subprocess.run([path, "sql", "--table", local, "--select", "all"], check=True,
                                             capture_output=True, text=True).stdout.rstrip().rstrip(";"))
                       for name, path in builds]
            print("| run | build | wall s | CPU of both servers s | memory of both queries | rows |")
            print("|---|---|---|---|---|---|")
            first = None
            for i in range(args.runs):
                for name, query in queries:
                    wall, mem, _, cpu, rows = on_shards(cluster, query)
                    rows = sorted(tuple(map(str, r)) for r in rows)
                    first = rows if first is None else first
                    same = "equal" if rows == first else "DIFFER"
                    print(f"| {i + 1} | {name} | {wall:.2f} | {cpu:.2f} | {mem / 1e6:.0f} MB | {len(rows)}, {same} |",
                          flush=True)
        finally:
            ch_cluster.stop(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())

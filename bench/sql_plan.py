#!/usr/bin/env python3
"""The planning cost of the rules' ClickHouse query on one Debian clickhouse-server 18.16 (issue #50, docs/scale.md
"The query's planning on ClickHouse 18.16").

Usage: bench/sql_plan.py --bin LABEL=PATH [--bin LABEL=PATH ...] [--runs 7] [--rows 0] [--select all]
                         [--server-dir DIR] [--save-sql DIR]

Each binary writes `sql --table T --select SELECT`; the queries run on one server started here (the config of
tests/sql/ch_cluster.py, on 127.0.0.1), over a MergeTree table with the export's columns, empty or holding the
first `--rows` lock events of a small simulated log. The binaries alternate, one query each, `--runs` rounds,
after one untimed warm-up round. For each query: the wall time of the HTTP request, the server process's CPU
(user + system from /proc/PID/stat, before and after the request) and `query_duration_ms` from
`system.query_log`. On an empty table the query's run is nothing: what is measured is its parsing, analysis and
planning. Prints the query's size, its SELECTs and lambdas, the load average before and after, and a
Markdown table of min / median (SELECTs: those reading a subquery, the outer one included; lambdas: as written,
repeats included). The machine's other load counts: the figures are upper bounds on a busy machine.
"""
import argparse
import os
import statistics
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
TICK = os.sysconf("SC_CLK_TCK")


def server(d):
    """One clickhouse-server on 127.0.0.1 under `d`: (URL, pid, Popen)."""
    http_port, tcp = ch_cluster.free_port(), ch_cluster.free_port()
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "users.xml"), "w") as f:
        f.write(ch_cluster.USERS)
    with open(os.path.join(d, "config.xml"), "w") as f:
        f.write(ch_cluster.config(d, "127.0.0.1", http_port, tcp))
    p = subprocess.Popen(["clickhouse-server", f"--config-file={d}/config.xml"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{http_port}"
    deadline = time.time() + 90
    while ch_cluster.http(url, "SELECT 1", timeout=5)[0] != 200:
        if time.time() > deadline or p.poll() is not None:
            p.kill()
            sys.exit(f"clickhouse-server at {url} did not answer within 90 s (logs in {d})")
        time.sleep(0.2)
    return url, p.pid, p


def run(url, sql, params=None):
    status, text = ch_cluster.http(url, sql, params)
    if status != 200:
        sys.exit(f"ClickHouse: HTTP {status}: {text.strip()[:2000]}")
    return text


def cpu_s(pid):
    """User + system CPU seconds of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def table(url, rows, binary, d):
    """A MergeTree table with the export's columns, holding the first `rows` lock events of a small log."""
    name = "lr_plan_" + uuid.uuid4().hex[:8]
    cols = ", ".join(f"`{c}` {t}" for c, t in COLUMNS)
    run(url, f"CREATE TABLE default.{name} ({cols}) ENGINE = MergeTree ORDER BY (key, ts_ns)")
    if rows:
        log, events = os.path.join(d, "sim.jsonl"), os.path.join(d, "sim.events.jsonl")
        subprocess.run([binary, "simulate", "--events", str(max(rows * 4, 100)), "--seed", "3", "--out", log],
                       check=True, capture_output=True)
        subprocess.run([binary, "sql", "--export-events", events, log], check=True, capture_output=True)
        with open(events) as f:
            body = "".join(line for _, line in zip(range(rows), f))
        run(url, f"INSERT INTO default.{name} FORMAT JSONEachRow\n{body}", {"input_format_skip_unknown_fields": "1"})
    return f"default.{name}"


def one(url, pid, q):
    """(wall s, server CPU s, query_duration_ms) of one query."""
    qid = "plan-" + uuid.uuid4().hex
    c0, t0 = cpu_s(pid), time.monotonic()
    run(url, q, {"log_queries": "1", "query_id": qid})
    wall, cpu = time.monotonic() - t0, cpu_s(pid) - c0
    for _ in range(50):  # the log is written by a thread of its own: wait for the row
        run(url, "SYSTEM FLUSH LOGS")
        ms = run(url, f"SELECT query_duration_ms FROM system.query_log WHERE query_id = '{qid}' AND type = 2 "
                      "FORMAT TSV").split()
        if ms:
            return wall, cpu, int(ms[0])
        time.sleep(0.1)
    sys.exit(f"query {qid} is not in system.query_log")


def shape(q):
    """(KB, SELECTs over a subquery (the program's and the outer one), lambdas written) of a query's text."""
    return len(q) / 1000, q.count("FROM (\n"), q.count("->")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append", required=True, help="LABEL=PATH of a lockreplay binary")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--rows", type=int, default=0)
    ap.add_argument("--select", default="all")
    ap.add_argument("--server-dir")
    ap.add_argument("--save-sql", help="write each label's query to DIR/LABEL.sql")
    args = ap.parse_args()
    bins = [b.split("=", 1) for b in args.bin]
    with tempfile.TemporaryDirectory() as tmp:
        url, pid, proc = server(args.server_dir or os.path.join(tmp, "server"))
        try:
            t = table(url, args.rows, bins[0][1], tmp)
            queries = {}
            for label, path in bins:
                queries[label] = subprocess.run([path, "sql", "--table", t, "--select", args.select], check=True,
                                                capture_output=True, text=True).stdout.rstrip().rstrip(";")
                if args.save_sql:
                    os.makedirs(args.save_sql, exist_ok=True)
                    with open(os.path.join(args.save_sql, f"{label}.sql"), "w") as f:
                        f.write(queries[label] + "\n")
            load0 = os.getloadavg()[0]
            for label, _ in bins:  # warm-up: caches, the query log's table
                one(url, pid, queries[label])
            got = {label: [] for label, _ in bins}
            for _ in range(args.runs):
                for label, _ in bins:
                    got[label].append(one(url, pid, queries[label]))
            load1 = os.getloadavg()[0]
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(f"{args.rows} rows, --select {args.select}, {args.runs} runs each, alternating; "
          f"load average {load0:.1f} before, {load1:.1f} after\n")
    print("| query | KB | SELECTs | lambdas | wall s (min / median) | server CPU s (min / median) "
          "| `query_duration_ms` (min / median) |")
    print("|---|---|---|---|---|---|---|")
    for label, _ in bins:
        kb, selects, lambdas = shape(queries[label])
        cols = []
        for i, fmt in ((0, "{:.2f}"), (1, "{:.2f}"), (2, "{:.0f}")):
            xs = [r[i] for r in got[label]]
            cols.append(f"{fmt.format(min(xs))} / {fmt.format(statistics.median(xs))}")
        print(f"| {label} | {kb:.1f} | {selects} | {lambdas} | " + " | ".join(cols) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

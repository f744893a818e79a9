#!/usr/bin/env python3
"""Checks `lockreplay sql --alert STORE` for every store.

Usage: check_alerts.py --bin target/debug/lockreplay [--update]

- Every store: the rule for tests/sql/alert-mapping.toml equals its golden file tests/sql/golden/alert.STORE.txt
  (--update rewrites them).
- SLS: the SQL after each search's `|` parses as Presto SQL (sqlglot), the dialect SLS's SQL follows.
- Loki: each `expr` parses with Grafana's own LogQL grammar (@grafana/lezer-logql, npm) when LOGQL_PARSER names
  the folder holding its node_modules; otherwise says it was not checked.
- Elasticsearch: golden file only (no ES|QL parser is published on PyPI or npm).
- ClickHouse (chDB) and DuckDB: the alert runs for real on simulator logs moved to the present: it names the keys
  `analyze` finds a near-miss streak or an overlap on, and no other.
Exits 0 when all hold, 1 otherwise, 3 when a python module is missing.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_engines  # noqa: E402

STORES = ["clickhouse", "duckdb", "sls", "loki", "elasticsearch"]


def rule(binary, store, mapping=True, table=None):
    cmd = [binary, "sql", "--alert", store]
    if mapping:
        cmd += ["--mapping", os.path.join(HERE, "alert-mapping.toml"), "--table", "lock_log"]
    if table:
        cmd += ["--table", table]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def check_goldens(binary, update):
    ok = True
    for store in STORES:
        text = rule(binary, store)
        path = os.path.join(HERE, "golden", f"alert.{store}.txt")
        if update:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        want = open(path, encoding="utf-8").read()
        if text != want:
            ok = False
            print(f"FAIL alert {store}: differs from {path} (run check_alerts.py --update after checking the change)")
        else:
            print(f"ok   alert {store}: equals its golden file")
    return ok


def check_sls(binary):
    import sqlglot

    queries = [l for l in rule(binary, "sls").splitlines() if l.strip() and not l.startswith("--")]
    ok = len(queries) == 2
    for q in queries:
        search, _, sql = q.partition(" | ")
        try:
            sqlglot.parse_one(sql, read="presto")
            print(f"ok   sls: SQL parses as Presto ({len(sql)} chars); search: {search[:60]}...")
        except Exception as e:  # sqlglot's ParseError and TokenError
            ok = False
            print(f"FAIL sls: {e}")
    return ok


def check_loki(binary):
    text = rule(binary, "loki")
    exprs = re.findall(r"expr: \|\n\s+(.+)\n", text)
    ok = len(exprs) == 2 and "for: " in text
    parser_dir = os.environ.get("LOGQL_PARSER")
    if not parser_dir:
        print("note loki: LOGQL_PARSER not set, LogQL not parsed (golden file only)")
        return ok
    script = os.path.join(parser_dir, "parse_logql.mjs")
    with open(script, "w") as f:
        f.write(
            'import { parser } from "@grafana/lezer-logql";\n'
            "let bad = [];\n"
            "parser.parse(process.argv[2]).iterate({ enter: (n) => { if (n.type.isError) bad.push(n.from); } });\n"
            'console.log(bad.length ? "ERR at " + bad.join(",") : "OK");\n'
        )
    for e in exprs:
        out = subprocess.run(["node", script, e], capture_output=True, text=True, cwd=parser_dir)
        if out.stdout.strip() != "OK":
            ok = False
            print(f"FAIL loki: {e!r}: {out.stdout.strip()} {out.stderr.strip()}")
        else:
            print(f"ok   loki: expr parses with @grafana/lezer-logql: {e[:70]}...")
    # A broken expression must fail the same parser, or the check proves nothing.
    out = subprocess.run(["node", script, exprs[0] + " >"], capture_output=True, text=True, cwd=parser_dir)
    if out.stdout.strip() == "OK":
        ok = False
        print("FAIL loki: the parser accepted a broken expression")
    return ok


def moved_table(engine, path):
    """The exported events shifted so that the last one is 10 s ago."""
    last = max(json.loads(l)["ts_ns"] for l in open(path))
    shift = time.time_ns() - 10_000_000_000 - last
    return f"(SELECT * REPLACE (ts_ns + {shift} AS ts_ns) FROM {check_engines.table_expr(engine, path)})"


def check_engines_run(binary, tmp):
    ok = True
    sims = ["--buyers 120 --seed 7 --ttl-ms 2000 --slow-prob 0.5 --slow-ms 1800", "--buyers 300 --seed 4"]
    for i, sim in enumerate(sims):
        log = os.path.join(tmp, f"alert{i}.jsonl")
        events = os.path.join(tmp, f"alert{i}.events.jsonl")
        subprocess.run([binary, "simulate", *sim.split(), "--out", log], check=True, capture_output=True)
        subprocess.run([binary, "sql", "--export-events", events, log], check=True, capture_output=True)
        rep = json.loads(subprocess.run([binary, "analyze", "--format", "json", log], capture_output=True).stdout)
        want = {("near_miss_streak", f["key"]) for f in rep["findings"] if f["kind"] == "near_miss_streak"}
        want |= {("overlap", inc["key"]) for inc in rep["incidents"]}
        for engine in ("duckdb", "clickhouse"):
            rows = check_engines.run_sql(engine, rule(binary, engine, mapping=False, table=moved_table(engine, events)))
            have = {(r[0], r[1]) for r in rows}
            if have != want or not want:
                ok = False
                print(f"FAIL alert {engine} on simulate {sim}: alerts {sorted(have)}, analyze {sorted(want)}")
            else:
                print(f"ok   alert {engine} on simulate {sim}: {len(have)} alert(s), as analyze finds")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    try:
        import chdb, duckdb, sqlglot  # noqa: F401
    except ImportError as e:
        print(f"missing python module: {e.name} (pip install duckdb chdb sqlglot)")
        return 3
    ok = check_goldens(args.bin, args.update)
    ok &= check_sls(args.bin)
    ok &= check_loki(args.bin)
    with tempfile.TemporaryDirectory() as tmp:
        ok &= check_engines_run(args.bin, tmp)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

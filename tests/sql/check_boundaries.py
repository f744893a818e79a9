#!/usr/bin/env python3
"""The rules' query at a lease's boundaries and on ties within an instant, in every engine, against `analyze`.

Usage: check_boundaries.py --bin target/debug/lockreplay [--engines duckdb,clickhouse] [--cluster FILE]

The logs of tests/sql/boundaries.py (events exactly at an expiry and 1 ms either side; hand-offs in one millisecond):
- `boundaries.jsonl`: overlap pairs, causes, durations and near-misses equal `analyze`'s, and `--select holds`
  gives each `rel-*` key's hold the lock end of the README's rule (a release at the expiry instant finds the lock
  expired);
- `ties-seq.jsonl`: the table's rows shuffled; `seq` (the file's order) decides the ties, as in `analyze`;
- `ties-rule.jsonl`: the rows shuffled and without `seq`: the query orders an instant's rows by holder, then
  acquire, renewal, other lines, closing lines (docs/sql.md), and the file is in that order, so `analyze` agrees.
Exits 0 when all hold, 1 otherwise, 3 when a python module is missing.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import boundaries  # noqa: E402
import check_engines  # noqa: E402


def shuffled(drop_seq, mapping):
    """A table maker for check_engines.compare: the export's rows in a random order, without `seq` if asked."""
    def make(events):
        rows = [json.loads(l) for l in open(events, encoding="utf-8")]
        random.Random(7).shuffle(rows)
        cols = [c for c in check_engines.COLUMNS if not (drop_seq and c == "seq")]
        out = events + (".noseq" if drop_seq else ".shuffled") + ".jsonl"
        with open(out, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps({c: r[c] for c in cols}) + "\n")
        return out, tuple(cols), ["--mapping", mapping] if drop_seq else []
    return make


def lock_ends(binary, engine, events, expect):
    """The rel-* keys' lock ends from `--select holds` in `engine`: failures as text."""
    if engine == "cluster":
        rows, _ = check_engines.run_sharded(binary, events, ["--select", "holds"])
    else:
        q = subprocess.run([binary, "sql", "--dialect", engine, "--select", "holds", "--table",
                            check_engines.table_expr(engine, events)], check=True, capture_output=True, text=True)
        rows = check_engines.run_sql(engine, q.stdout)
    have = {r[0]: r[5] for r in rows if r[0] in expect}
    return [f"{k}: lock end {have.get(k)}, the rule says {v}" for k, v in sorted(expect.items()) if have.get(k) != v]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--engines", default="duckdb,clickhouse")
    ap.add_argument("--cluster")
    args = ap.parse_args()
    engines = args.engines.split(",")
    if args.cluster:
        check_engines.CLUSTER = check_engines.ch_cluster.Cluster(args.cluster)
        engines.append("cluster")
    try:
        import chdb, duckdb  # noqa: F401
    except ImportError as e:
        print(f"missing python module: {e.name} (pip install duckdb chdb)")
        return 3
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        boundaries.main_to(tmp)
        expect = json.load(open(os.path.join(tmp, "expect.json")))
        path = lambda n: os.path.join(tmp, n)  # noqa: E731
        ok &= check_engines.compare(args.bin, "boundaries", [path("boundaries.jsonl")], [], engines, tmp)
        events = path("boundaries-events.jsonl")
        subprocess.run([args.bin, "sql", "--export-events", events, path("boundaries.jsonl")], check=True,
                       capture_output=True)
        for engine in engines:
            bad = lock_ends(args.bin, engine, events, expect["lock_end"])
            ok &= not bad
            print(f"FAIL boundaries [{engine}] holds: {bad}" if bad else
                  f"ok   boundaries [{engine}] holds: a release at or after the expiry finds the lock expired")
        mapping = path("noseq.toml")
        with open(mapping, "w") as f:
            f.write('[fields]\ntime = "ts_ns"\nkey = "key"\nholder = "holder"\nevent = "event"\n'
                    'ttl_ms = "ttl_ms"\nelapsed_ms = "elapsed_ms"\ndeleted = "deleted"\n')
        ok &= check_engines.compare(args.bin, "ties with seq, rows shuffled", [path("ties-seq.jsonl")], [], engines,
                                    tmp, shuffled(False, mapping))
        ok &= check_engines.compare(args.bin, "ties without seq, rows shuffled", [path("ties-rule.jsonl")], [],
                                    engines, tmp, shuffled(True, mapping))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Hostile names through every language `lockreplay sql` writes: the meaning must not change.

Usage: check_hostile_names.py --bin target/debug/lockreplay

A simulator log's lock events are exported, then written a second time with every column renamed and every lock
event name replaced by a hostile spelling (quotes of each kind, backslashes before quotes and at the end, `;`,
comment starts, a `|`, CJK, emoji). A mapping file names them (`[fields]` and `[events]`).
- DuckDB and ClickHouse (chDB): the rules' query with the hostile mapping, run on the hostile table, returns the
  same rows as the query with a plain mapping on the plain table. A name that ended a string early (ClickHouse reads
  `\\'` as a quote) would change the query or break it.
- SLS: both queries parse as Presto (sqlglot) and the parse tree's string literals and identifiers are exactly the
  event names and columns; the search part's values decode (SLS's `\\` escapes) to the event names.
- Loki: the rule file parses as YAML (PyYAML) into one group of two rules; each `expr` parses with Grafana's LogQL
  grammar when LOGQL_PARSER is set, and its regex literal, decoded as Go decodes it, matches each name and nothing
  else of the kinds'.
- Elasticsearch: no ES|QL parser is published; the rule is tokenised by the rules of ES|QL's lexer
  (EsqlBaseLexer.g4: STRING, QUOTED_IDENTIFIER) and its literals decode to the names.
- A name a language cannot carry (a line break, for SLS) is refused with exit 2 and nothing on stdout.
Exits 0 when all hold, 1 otherwise, 3 when a python module is missing.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_engines  # noqa: E402

# Export column -> hostile column name.
COLUMNS = {
    "ts_ns": "t\\",
    "key": "k'ey\\'); DROP TABLE x; --",
    "holder": 'h"o`lder\\',
    "event": "ev`ent\\'|x",
    "ttl_ms": "ttl'\\'锁",
}
# Lock event kind -> hostile event name. No `-`, `.`, space, `/` or `:`: both the reader and the query fold
# those to `_`, which is the mapping's normal form, not an escape.
EVENTS = {
    "acquired": "got'it\\",
    "renewed": "re\\'new\"",
    "released": "rel'eased');drop_table_t;#",
    "release_failed": "fail\\\\'`",
    "lock_lost": "lost\"|?*锁🔒",
    "acquire_failed": "busy\\",
}
ROLES = {"ts_ns": "time", "key": "key", "holder": "holder", "event": "event", "ttl_ms": "ttl_ms"}


def toml_str(s):
    # A JSON string is a TOML basic string (the same escapes; non-ASCII kept as it is).
    return json.dumps(s, ensure_ascii=False)


def mapping(path, columns, events):
    with open(path, "w", encoding="utf-8") as f:
        f.write("[fields]\n")
        for col, role in ROLES.items():
            f.write(f"{role} = {toml_str(columns[col])}\n")
        f.write("\n[events]\n")
        for kind, name in events.items():
            f.write(f"{toml_str(name)} = {toml_str(kind)}\n")


def write_tables(events_path, tmp):
    plain = os.path.join(tmp, "plain.jsonl")
    hostile = os.path.join(tmp, "hostile.jsonl")
    with open(events_path, encoding="utf-8") as src, open(plain, "w", encoding="utf-8") as p, \
            open(hostile, "w", encoding="utf-8") as h:
        for line in src:
            row = json.loads(line)
            keep = {c: row.get(c) for c in ROLES}
            p.write(json.dumps(keep) + "\n")
            renamed = {COLUMNS[c]: v for c, v in keep.items()}
            renamed[COLUMNS["event"]] = EVENTS.get(keep["event"], keep["event"])
            h.write(json.dumps(renamed, ensure_ascii=False) + "\n")
    return plain, hostile


def auto_table(engine, path):
    if engine == "duckdb":
        return f"read_json('{path}', format = 'newline_delimited', sample_size = -1)"
    return f"file('{path}', 'JSONEachRow')"


def sql(binary, args):
    return subprocess.run([binary, "sql", *args], capture_output=True, text=True)


def check_engines_same(binary, tmp, plain, hostile, plain_map, hostile_map):
    ok = True
    for engine in ("duckdb", "clickhouse"):
        rows = {}
        for name, table, m in (("plain", plain, plain_map), ("hostile", hostile, hostile_map)):
            q = sql(binary, ["--dialect", engine, "--table", auto_table(engine, table), "--mapping", m])
            if q.returncode != 0:
                print(f"FAIL {engine}: sql exited {q.returncode}: {q.stderr.strip()}")
                return False
            rows[name] = sorted(map(tuple, (map(str, r) for r in check_engines.run_sql(engine, q.stdout))))
        overlaps = sum(1 for r in rows["plain"] if r[0] == "overlap")
        if rows["plain"] != rows["hostile"] or overlaps == 0:
            ok = False
            print(f"FAIL {engine}: hostile names gave {len(rows['hostile'])} rows, plain {len(rows['plain'])}, "
                  f"{overlaps} overlaps; first differences: {sorted(set(rows['plain']) ^ set(rows['hostile']))[:4]}")
        else:
            print(f"ok   {engine}: hostile names give the plain answer ({len(rows['plain'])} rows, {overlaps} overlaps)")
    return ok


def sls_unescape(value):
    return re.sub(r"\\(.)", r"\1", value)


def check_sls(binary, hostile_map):
    import sqlglot
    from sqlglot import exp

    out = sql(binary, ["--alert", "sls", "--mapping", hostile_map])
    queries = [l for l in out.stdout.splitlines() if l.strip() and not l.startswith("--")]
    if out.returncode != 0 or len(queries) != 2:
        print(f"FAIL sls: exit {out.returncode}, {len(queries)} queries: {out.stderr.strip()}")
        return False
    names = set(EVENTS.values())
    ok = True
    for q in queries:
        search, _, body = q.partition(" | ")
        tree = sqlglot.parse_one(body, read="presto")
        literals = {l.this for l in tree.find_all(exp.Literal) if l.is_string}
        idents = {i.this for i in tree.find_all(exp.Identifier)}
        values = {sls_unescape(v) for v in re.findall(r':\s"((?:[^"\\]|\\.)*)"', search)}
        want_cols = {COLUMNS["key"], COLUMNS["holder"], COLUMNS["event"]}
        if not (literals & names) or not literals <= names | set(EVENTS) or not want_cols <= idents \
                or not values >= names - {EVENTS["acquire_failed"]}:
            ok = False
            print(f"FAIL sls: literals {sorted(literals)}, identifiers {sorted(idents)}, search values {sorted(values)}")
    if ok:
        print("ok   sls: the parse tree's literals and identifiers are the hostile names")
    refused = sql(binary, ["--alert", "sls", "--mapping", write_map_with_newline(hostile_map)])
    if refused.returncode != 2 or refused.stdout:
        ok = False
        print(f"FAIL sls: a line break in a name gave exit {refused.returncode} and {len(refused.stdout)} bytes")
    else:
        print(f"ok   sls: a line break in a name is refused: {refused.stderr.strip()[:90]}")
    return ok


def write_map_with_newline(hostile_map):
    path = hostile_map + ".newline.toml"
    with open(hostile_map, encoding="utf-8") as f, open(path, "w", encoding="utf-8") as g:
        g.write(f.read().replace(toml_str(EVENTS["released"]), toml_str("rel\nWHERE 1=1")))
    return path


def go_unquote(lit):
    return json.loads(lit)


def check_loki(binary, hostile_map):
    import yaml

    out = sql(binary, ["--alert", "loki", "--mapping", hostile_map])
    if out.returncode != 0:
        print(f"FAIL loki: exit {out.returncode}: {out.stderr.strip()}")
        return False
    try:
        doc = yaml.safe_load(out.stdout)
        rules = doc["groups"][0]["rules"]
    except (yaml.YAMLError, KeyError, IndexError, TypeError) as e:
        print(f"FAIL loki: the rule file is no rule group: {str(e)[:200]}")
        return False
    ok = len(doc["groups"]) == 1 and [r["alert"] for r in rules] == ["LockNearMissStreak", "LockOverlap"]
    closes, grants = ["released", "release_failed", "lock_lost"], ["acquired", "renewed"]
    # Each event filter of each rule, in order: near-miss (closing lines, grants, the grants' TTL), overlap (lines
    # saying a lock was gone, acquires; then the last holds: each hold is a closing line minus an acquire, taken
    # once in the sum and once in each end of the span).
    hold = [closes, ["acquired"]]
    kinds = [[closes, grants, grants], [["release_failed", "lock_lost"], ["acquired"]] + hold + [closes] + hold
             + [["acquired"]] + hold]
    for r, per_filter in zip(rules, kinds):
        lits = re.findall(r'\| [A-Za-z_][A-Za-z0-9_]*=~("(?:[^"\\]|\\.)*")', r["expr"])
        if len(lits) != len(per_filter):
            ok = False
            print(f"FAIL loki: {r['alert']}: {len(lits)} event filters, expected {len(per_filter)}")
        for lit, ks in zip(lits, per_filter):
            rx = re.compile(go_unquote(lit).replace("(?i)", ""), re.IGNORECASE)
            want = [EVENTS[k] for k in ks] + ks
            others = [n for k, n in EVENTS.items() if k not in ks]
            if not all(rx.fullmatch(n) for n in want) or any(rx.fullmatch(n) for n in others):
                ok = False
                print(f"FAIL loki: {r['alert']}: regex {go_unquote(lit)!r} does not match exactly {want}")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", r["expr"].split("by (")[1].split(")")[0]):
            ok = False
            print(f"FAIL loki: {r['alert']}: the key label is no label name: {r['expr']!r}")
    ok &= parse_logql([r["expr"].strip() for r in rules])
    if ok:
        print("ok   loki: YAML holds two rules whose regexes match exactly the hostile names")
    return ok


def parse_logql(exprs):
    parser_dir = os.environ.get("LOGQL_PARSER")
    if not parser_dir:
        print("note loki: LOGQL_PARSER not set, LogQL not parsed")
        return True
    script = os.path.join(parser_dir, "parse_logql.mjs")
    with open(script, "w") as f:
        f.write(
            'import { parser } from "@grafana/lezer-logql";\n'
            "let bad = [];\n"
            "parser.parse(process.argv[2]).iterate({ enter: (n) => { if (n.type.isError) bad.push(n.from); } });\n"
            'console.log(bad.length ? "ERR at " + bad.join(",") : "OK");\n'
        )
    ok = True
    for e in exprs:
        out = subprocess.run(["node", script, e], capture_output=True, text=True, cwd=parser_dir)
        if out.stdout.strip() != "OK":
            ok = False
            print(f"FAIL loki: {e!r}: {out.stdout.strip()} {out.stderr.strip()}")
        else:
            print(f"ok   loki: expr with hostile names parses with @grafana/lezer-logql")
    return ok


# ES|QL lexer rules (EsqlBaseLexer.g4): STRING and QUOTED_IDENTIFIER.
ESQL_TOKEN = re.compile(r'"((?:\\[tnr"\\]|[^\r\n"\\])*)"|`((?:[^`]|``)*)`|[^"`]+')


def check_esql(binary, hostile_map):
    out = sql(binary, ["--alert", "elasticsearch", "--mapping", hostile_map])
    if out.returncode != 0:
        print(f"FAIL elasticsearch: exit {out.returncode}: {out.stderr.strip()}")
        return False
    strings, idents = set(), set()
    for line in out.stdout.splitlines():
        if line.startswith("//"):
            continue
        pos = 0
        while pos < len(line):
            m = ESQL_TOKEN.match(line, pos)
            if not m:
                print(f"FAIL elasticsearch: no ES|QL token at {pos} of {line!r}")
                return False
            if m.group(1) is not None:
                strings.add(re.sub(r"\\(.)", lambda e: {"t": "\t", "n": "\n", "r": "\r"}.get(e.group(1), e.group(1)), m.group(1)))
            elif m.group(2) is not None:
                idents.add(m.group(2).replace("``", "`"))
            pos = m.end()
    want = {EVENTS[k] for k in ("released", "release_failed", "lock_lost")}
    if not want <= strings or not {COLUMNS["key"], COLUMNS["event"]} <= idents:
        print(f"FAIL elasticsearch: strings {sorted(strings)}, identifiers {sorted(idents)}")
        return False
    print("ok   elasticsearch: the rule's ES|QL tokens decode to the hostile names")
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    args = ap.parse_args()
    try:
        import chdb, duckdb, sqlglot, yaml  # noqa: F401
    except ImportError as e:
        print(f"missing python module: {e.name} (pip install duckdb chdb sqlglot pyyaml)")
        return 3
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "sim.jsonl")
        events = os.path.join(tmp, "events.jsonl")
        # 160 overlap pairs (lease_expired), failed releases.
        subprocess.run([args.bin, "simulate", "--buyers", "300", "--seed", "4", "--out", log],
                       check=True, capture_output=True)
        subprocess.run([args.bin, "sql", "--export-events", events, log], check=True, capture_output=True)
        plain, hostile = write_tables(events, tmp)
        plain_map, hostile_map = os.path.join(tmp, "plain.toml"), os.path.join(tmp, "hostile.toml")
        mapping(plain_map, {c: c for c in ROLES}, {k: k for k in EVENTS})
        mapping(hostile_map, COLUMNS, EVENTS)
        ok = check_engines_same(args.bin, tmp, plain, hostile, plain_map, hostile_map)
        ok &= check_sls(args.bin, hostile_map)
        ok &= check_loki(args.bin, hostile_map)
        ok &= check_esql(args.bin, hostile_map)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

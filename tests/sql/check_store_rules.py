#!/usr/bin/env python3
"""The Loki and Elasticsearch alert rules, emulated on every handed case: they must fire on each incident and stay
silent on each healthy log.

Usage: check_store_rules.py --bin target/debug/lockreplay CASE_DIR...

Neither store can be run here, so this script evaluates each rule as the store would, reading its parameters from
the rule `lockreplay sql --alert loki|elasticsearch` writes for the export's columns (the event names of each line
filter, the range, the threshold, `for:`), on the lock events of each case (`sql --export-events`):
- Loki's ruler evaluates a rule every `interval` over its range; a LogQL `count_over_time`/`max_over_time` sees the
  lines in (t - range, t]. The rule is evaluated at every 5 minutes of five schedules (phases 0 to 4 minutes).
- LockOverlap / the ES|QL overlap query: per key, the lines saying a lock was gone (failed release, lost lock, a
  release whose `deleted` is 0 or false) and the distinct holders of acquire lines; fires when gone > 0 and
  holders >= 2. Or, per key, the last hold of each holder (its last acquire to its last closing line, when that is
  not before it): fires when they sum to more than the time from the earliest to the end of the latest plus the
  log-lag tolerance for each hold after the first (two of them overlap by more than the tolerance). Loki has this
  part only with a numeric time field.
- LockNearMissStreak / the ES|QL near-miss query: per key and holder, the last closing line's time minus the last
  grant's, over the grant lines' TTL; fires when the largest reaches the ratio (the alert itself needs that
  `streak` evaluations in a row: `for:` and Kibana's alert delay).
Checks: the overlap rules fire, in every schedule, on the key of every case whose expected answer has an incident,
and are silent on every case with none (the NC-* negative controls, REAL-B) and on built logs without an overlap (a
lease run out with nobody waiting; a lock lost at shutdown; holds that use half their TTL; two workers taking turns;
a watchdog keeping a long hold); the near-miss rules are silent on the cases without incidents, fire on a built log
exactly when `analyze` finds a near-miss in it, and fire on the simulator's near-misses.
Exits 0 when all hold, 1 otherwise.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

PERIOD_S = 300


def rules(binary):
    loki = subprocess.run([binary, "sql", "--alert", "loki"], check=True, capture_output=True, text=True).stdout
    es = subprocess.run([binary, "sql", "--alert", "elasticsearch"], check=True, capture_output=True,
                        text=True).stdout
    return loki, es


def top_level_or(expr):
    """The operands of an expression's top-level `or`s, each without its outer parentheses."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(expr):
        c = expr[i]
        if c == '"':
            i += 1
            while expr[i] != '"':
                i += 2 if expr[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0 and expr.startswith(" or ", i):
            parts.append(expr[start:i])
            start = i + 4
        i += 1
    parts.append(expr[start:])
    return [p[1:-1] if p.startswith("(") and p.endswith(")") and len(parts) > 1 else p for p in parts]


def loki_params(text):
    """(near, overlap) parameters of the Loki rule group: regexes of the event filters, range, threshold."""
    exprs = re.findall(r"expr: \|\n\s+(.+)\n", text)
    near, overlap = exprs
    regex = lambda e: [re.compile(json.loads(m).replace("(?i)", ""), re.I)  # noqa: E731
                       for m in re.findall(r'event=~("(?:[^"\\]|\\.)*")', e)]
    rng = lambda e: int(re.findall(r"\[(\d+)m\]", e)[0]) * 60  # noqa: E731
    for_s = int(re.search(r"for: (\d+)m", text).group(1)) * 60
    closes, grants = regex(near)[:2]
    parts = top_level_or(overlap)
    gone_part = parts[0]
    gone = regex(gone_part)[:-1]
    holds = None
    if len(parts) > 1:
        hold_filters = regex(parts[1])
        holds = {"closes": hold_filters[0], "acquired": hold_filters[1],
                 "tolerance": float(re.search(r" - ([0-9.]+)\)$", parts[1]).group(1))}
        assert {f.pattern for f in hold_filters} == {f.pattern for f in hold_filters[:2]}, parts[1]
    return ({"closes": closes, "grants": grants, "range": rng(near),
             "ratio": float(re.search(r">= ([0-9.]+)$", near).group(1)), "for": for_s},
            {"gone": gone[0], "released_deleted_nothing": len(gone) > 1, "acquired": regex(gone_part)[-1],
             "range": rng(overlap), "holders": int(re.search(r">= (\d+)\)$", gone_part).group(1)),
             "holds": holds})


def es_params(text):
    near, overlap = [l for l in text.splitlines() if l.startswith("FROM ")]
    names = lambda s: set(json.loads("[" + s + "]"))  # noqa: E731
    lists = lambda q: [names(m) for m in re.findall(r"IN \(((?:\"(?:[^\"\\]|\\.)*\"(?:, )?)+)\)", q)]  # noqa: E731
    minutes = lambda q: int(re.search(r"NOW\(\) - (\d+) minutes", q).group(1)) * 60  # noqa: E731
    nl, ol = lists(near), lists(overlap)
    holds = None
    if "held > lr_last - lr_first - " in overlap:
        holds = {"acquired": ol[2], "closes": ol[3],
                 "tolerance": float(re.search(r"held > lr_last - lr_first - ([0-9.]+)$", overlap).group(1))}
    return ({"grants": nl[0], "closes": nl[1], "range": minutes(near),
             "ratio": float(re.search(r"max_ratio >= ([0-9.]+)$", near).group(1))},
            {"acquired": ol[0], "gone": ol[4], "released": ol[5] if len(ol) > 6 else None, "range": minutes(overlap),
             "holders": int(re.search(r"holders >= (\d+)", overlap).group(1)), "holds": holds})


def matches(pattern, event):
    return bool(pattern.fullmatch(event)) if hasattr(pattern, "fullmatch") else event.lower() in pattern


def overlap_keys(rows, p, loki, t):
    """Keys the overlap rule fires on at evaluation time t (s)."""
    lo = t - p["range"]
    gone, holders = {}, {}
    for r in rows:
        if not lo < r["t"] <= t:
            continue
        ev, key = r["event"], r["key"]
        deleted_nothing = str(r.get("deleted")).lower() in ("0", "false")
        if loki:
            is_gone = matches(p["gone"], ev) or (p["released_deleted_nothing"] and ev == "released"
                                                 and deleted_nothing)
        else:
            is_gone = ev in p["gone"] or (p["released"] is not None and ev in p["released"] and deleted_nothing)
        if is_gone:
            gone[key] = gone.get(key, 0) + 1
        if matches(p["acquired"], ev) and r["holder"] is not None:
            holders.setdefault(key, set()).add(r["holder"])
    return {k for k in gone if len(holders.get(k, ())) >= p["holders"]} | held_overlap_keys(rows, p, loki, t)


def held_overlap_keys(rows, p, loki, t):
    """Keys whose holders' last holds (last acquire to the last closing line, when that is not before it), less the
    log-lag tolerance each, sum to more than the time from the earliest of them to the end of the latest less one
    tolerance, at evaluation time t (s). Loki groups
    the lines without a holder under an empty one and compares float times; ES|QL leaves their acquires out and
    compares whole ms."""
    if p["holds"] is None:
        return set()
    lo = t - p["range"]
    last_acquire, last_close = {}, {}
    for r in rows:
        if not lo < r["t"] <= t:
            continue
        holder = r["holder"] if r["holder"] is not None else ("" if loki else None)
        kh, ev = (r["key"], holder), r["event"]
        at = float(r["ts_ns"]) if loki else r["ts_ns"] // 1_000_000  # LogQL's unwrapped float, ES|QL's long ms
        if matches(p["holds"]["closes"], ev):
            last_close[kh] = max(last_close.get(kh, at), at)
        if matches(p["holds"]["acquired"], ev) and holder is not None:
            last_acquire[kh] = max(last_acquire.get(kh, at), at)
    holds = {}
    for kh, start in last_acquire.items():
        if kh in last_close and last_close[kh] >= start:
            holds.setdefault(kh[0], []).append((start, last_close[kh]))
    tol = p["holds"]["tolerance"]
    return {k for k, hs in holds.items()
            if sum(e - s - tol for s, e in hs) > max(e for _, e in hs) - min(s for s, _ in hs) - tol}


def near_keys(rows, p, t):
    """Keys the near-miss condition holds on at evaluation time t (s): per (key, holder) the last close minus the
    last grant, over the TTL of the grant lines."""
    lo = t - p["range"]
    last_close, last_grant, ttl = {}, {}, {}
    for r in rows:
        if not lo < r["t"] <= t or r["holder"] is None:
            continue
        kh, ev = (r["key"], r["holder"]), r["event"]
        if matches(p["closes"], ev):
            last_close[kh] = max(last_close.get(kh, 0), r["t"])
        if matches(p["grants"], ev):
            last_grant[kh] = max(last_grant.get(kh, 0), r["t"])
            if r.get("ttl_ms"):
                ttl[kh] = max(ttl.get(kh, 0), r["ttl_ms"])
    out = set()
    for kh, c in last_close.items():
        if kh in last_grant and kh in ttl and c >= last_grant[kh] and (c - last_grant[kh]) * 1000 / ttl[kh] >= p["ratio"]:
            out.add(kh[0])
    return out


def schedule(rows, phase_s, range_s):
    """Evaluation times of a rule every PERIOD_S with the given phase, covering the rows and a range after them."""
    first, last = min(r["t"] for r in rows), max(r["t"] for r in rows)
    t = (first // PERIOD_S) * PERIOD_S + phase_s
    while t < last + range_s + PERIOD_S:
        yield t
        t += PERIOD_S


def fired(rows, keys_at, range_s):
    """For each of five phases, the keys the rule fired on at some evaluation."""
    return [set().union(*[keys_at(t) for t in schedule(rows, ph * 60, range_s)]) for ph in range(5)]


def events(binary, files, flags, tmp, name):
    path = os.path.join(tmp, "events-" + re.sub(r"\W", "_", name) + ".jsonl")
    subprocess.run([binary, "sql", "--export-events", path, *flags, *files], check=True, capture_output=True)
    rows = [json.loads(l) for l in open(path, encoding="utf-8")]
    for r in rows:
        r["t"] = r["ts_ns"] / 1e9
    return rows


def line(ms, event, key, owner, **kw):
    return json.dumps({"ts_ms": 1_800_000_000_000 + ms, "event": event, "lock_key": key, "owner": owner,
                       **({"ttl_ms": 10_000} if event in ("acquired", "renewed") else {}), **kw}) + "\n"


def healthy_logs(tmp):
    """Healthy logs the rules must not fire on: (name, path)."""
    logs = {
        # A lease runs out while its holder works, nobody waits; its release fails; the next holder comes later.
        "expired, nobody waiting": [line(0, "acquired", "job:a", "A"), line(15_000, "release_failed", "job:a", "A"),
                                    line(900_000, "acquired", "job:a", "B"), line(901_000, "released", "job:a", "B")],
        # A watchdog loses its lock at shutdown, nobody waits.
        "lock lost at shutdown": [line(0, "acquired", "job:b", "A"), line(5_000, "renewed", "job:b", "A"),
                                  line(9_000, "lock_lost", "job:b", "A")],
        # Hand-offs that use half the TTL each.
        "half the TTL": [line(i * 6_000 + d, ev, "job:c", f"H{i}")
                         for i in range(8) for d, ev in ((0, "acquired"), (5_000, "released"))],
        # Two workers take turns, each holding 5 s: a holder's first acquire and last release span the other's holds.
        "two workers taking turns": [line(i * 6_000 + d, ev, "job:e", "AB"[i % 2])
                                     for i in range(6) for d, ev in ((0, "acquired"), (5_000, "released"))],
        # A watchdog keeps one hold for a minute: renewed every 3 s, released 2 s after the last renewal.
        "watchdog, long hold": [line(0, "acquired", "job:d", "A")]
        + [line(i * 3_000, "renewed", "job:d", "A") for i in range(1, 20)]
        + [line(59_000, "released", "job:d", "A")],
    }
    out = []
    for name, lines in logs.items():
        path = os.path.join(tmp, re.sub(r"\W", "_", name) + ".jsonl")
        with open(path, "w") as f:
            f.writelines(sorted(lines))
        out.append((name, path))
    return out


def check_case(binary, name, rows, want_keys, lp, ep):
    ok = True
    for store, p, loki in (("loki", lp[1], True), ("elasticsearch", ep[1], False)):
        per_phase = fired(rows, lambda t: overlap_keys(rows, p, loki, t), p["range"])
        bad = [ph for ph, keys in enumerate(per_phase) if keys != want_keys]
        if bad:
            ok = False
            print(f"FAIL {name} [{store} overlap]: fired on {sorted(per_phase[bad[0]])} at phase {bad[0]} min, "
                  f"the incidents are on {sorted(want_keys)}")
        else:
            what = f"fires on {sorted(want_keys)}" if want_keys else "silent"
            print(f"ok   {name} [{store} overlap]: {what} in all 5 schedules")
    return ok


def check_near(name, rows, lp, ep, want):
    ok = True
    for store, p in (("loki", lp[0]), ("elasticsearch", ep[0])):
        keys = set().union(*fired(rows, lambda t: near_keys(rows, p, t), p["range"]))
        if bool(keys) != want:
            ok = False
            print(f"FAIL {name} [{store} near-miss]: fired on {sorted(keys)}, expected {'some' if want else 'none'}")
        else:
            print(f"ok   {name} [{store} near-miss]: {'fires on ' + str(sorted(keys)) if want else 'silent'}")
    return ok


def near_in_analyze(binary, path):
    """Whether `analyze` finds a near-miss in the log (a lease run out with nobody waiting is one: §6)."""
    rep = subprocess.run([binary, "analyze", "--format", "json", path], capture_output=True)
    return any(f["kind"] == "near_miss" for f in json.loads(rep.stdout)["findings"])


def expected_keys(case):
    exp = case["expect"]
    keys = {o["key"] for o in exp.get("overlaps", [])}
    if not keys and (exp.get("incident_count") or exp.get("incident_count_min")):
        keys = None  # a real capture: the key is the case's only lock key
    return keys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    loki, es = rules(args.bin)
    lp, ep = loki_params(loki), es_params(es)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for case_dir in args.cases:
            case = json.load(open(os.path.join(case_dir, "case.json"), encoding="utf-8"))
            files = [os.path.join(case_dir, f) for f in case["files"]]
            rows = events(args.bin, files, [], tmp, case["id"])
            want = expected_keys(case)
            if want is None:
                want = {r["key"] for r in rows if r["event"] == "acquired"}
            ok &= check_case(args.bin, case["id"], rows, want, lp, ep)
            if case["id"].startswith("NC-") or not want:
                ok &= check_near(case["id"], rows, lp, ep, False)
        for name, path in healthy_logs(tmp):
            rows = events(args.bin, [path], [], tmp, name)
            ok &= check_case(args.bin, name, rows, set(), lp, ep)
            ok &= check_near(name, rows, lp, ep, near_in_analyze(args.bin, path))
        sim = os.path.join(tmp, "near.jsonl")
        subprocess.run([args.bin, "simulate", "--buyers", "120", "--seed", "7", "--ttl-ms", "2000", "--slow-prob",
                        "0.5", "--slow-ms", "1800", "--out", sim], check=True, capture_output=True)
        ok &= check_near("simulated near-misses", events(args.bin, [sim], [], tmp, "near"), lp, ep, True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

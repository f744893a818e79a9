#!/usr/bin/env python3
"""Logs whose events sit exactly at a lease's expiry and 1 ms either side, and logs of ties within one instant.

Usage: boundaries.py OUT_DIR   (writes boundaries.jsonl, ties-seq.jsonl, ties-rule.jsonl and expect.json)

A lease granted at t with TTL d covers [t, t + d) (tests/fixtures/cases/README.md, "Lease"): at t + d it has
expired. Each scenario is its own lock key, written three times: the event 1 ms before the expiry (`m1`), exactly at
it (`at`) and 1 ms after (`p1`). TTL 1 000 ms throughout.
- `acq-*`: A acquires at 0 and works until 2 000; B acquires at 1 000 + d. Before the expiry A's lock vanished
  under B; at and after it A's lease had expired (`lease_expired`).
- `renew-*`: A acquires at 0, renews at 1 000 + d and works until 2 500; B acquires at 1 500. A renewal before the
  expiry moves it to 2 000 + d (B's acquire finds the lock live: `lock_vanished`); at or after the expiry the
  renewal is late and B finds it expired (`lease_expired`).
- `del-*`: C acquires at -5 000 and releases (deleted) at 1 000 + d, its own lock long expired; A acquires at 0
  and works until 2 000; B acquires at 1 500. Before A's expiry C's delete ends A's lock (`foreign_release`); at
  or after it the lock had already expired (`lease_expired`).
- `rel-*`: A acquires at 0 and releases at 1 000 + d. Before the expiry its own release ends its lock; at or after
  it the lock had expired first (`--select holds`: `own_release`, `expired`, `expired`).
- `reacq`: A acquires at 0 and works at 500, B acquires at 1 500 and releases at 1 600, A acquires again at 3 000:
  A's first hold ends at its last line before the new acquire (500), so it meets no one.
Ties (`ties-*.jsonl`): on each key several holders log in the same millisecond (hand-offs, an acquire and its
release in one instant). `ties-seq.jsonl` is in an order no stable rule gives (the file's order decides, as `seq`
in the table); `ties-rule.jsonl` is in the order the SQL gives a table without `seq` (docs/sql.md: time, then
holder, then acquire, renewal, other lines, closing lines).
"""
import json
import os
import sys

BASE_MS = 1_800_000_000_000
TTL = 1000
OFFSETS = {"m1": -1, "at": 0, "p1": 1}


def line(ms, event, key, owner, **extra):
    row = {"ts": BASE_MS + ms, "event": event, "lock_key": key, "owner": owner}
    if event == "acquired":
        row["ttl_ms"] = TTL
    row.update(extra)
    return row


def scenarios():
    rows, expect = [], {"pairs": {}, "lock_end": {}}
    slot = 0
    for name, d in OFFSETS.items():
        for kind in ("acq", "renew", "del", "rel"):
            key = f"{kind}-{name}"
            t = slot * 20_000
            slot += 1
            at = lambda ms: t + ms  # noqa: E731
            if kind == "acq":
                rows += [line(at(0), "acquired", key, "A"), line(at(1000 + d), "acquired", key, "B"),
                         line(at(1100 + d), "released", key, "B", deleted=True),
                         line(at(2000), "stock_read", key, "A"), line(at(2000), "release_failed", key, "A")]
                expect["pairs"][key] = "lock_vanished" if d < 0 else "lease_expired"
            elif kind == "renew":
                rows += [line(at(0), "acquired", key, "A"), line(at(1000 + d), "renewed", key, "A", ttl_ms=TTL),
                         line(at(1500), "acquired", key, "B"), line(at(1600), "released", key, "B", deleted=True),
                         line(at(2500), "release_failed", key, "A")]
                expect["pairs"][key] = "lock_vanished" if d < 0 else "lease_expired"
            elif kind == "del":
                rows += [line(at(-5000), "acquired", key, "C"), line(at(0), "acquired", key, "A"),
                         line(at(1000 + d), "released", key, "C", deleted=True),
                         line(at(1500), "acquired", key, "B"), line(at(1600), "released", key, "B", deleted=True),
                         line(at(2000), "release_failed", key, "A")]
                expect["pairs"][key] = "foreign_release" if d < 0 else "lease_expired"
            else:
                rows += [line(at(0), "acquired", key, "A"), line(at(1000 + d), "released", key, "A", deleted=True)]
                expect["lock_end"][key] = "own_release" if d < 0 else "expired"
    t = slot * 20_000
    rows += [line(t, "acquired", "reacq", "A"), line(t + 500, "stock_read", "reacq", "A"),
             line(t + 1500, "acquired", "reacq", "B"), line(t + 1600, "released", "reacq", "B", deleted=True),
             line(t + 3000, "acquired", "reacq", "A"), line(t + 3100, "released", "reacq", "A", deleted=True)]
    rows.sort(key=lambda r: r["ts"])
    return rows, expect


RANK = {"acquired": 0, "renewed": 1, "released": 3, "release_failed": 3, "lock_lost": 3}


def ties():
    """Hand-offs in one millisecond whose order decides a cause; returns (file order, rule order).

    On each key the first holder (A or Z) acquires at 0 and, its lease expired at 1 000, releases (deleted) at
    1 500, the instant B acquires; C acquires at 2 000 while B works until 2 500. When the release comes after B's
    acquire it deletes B's lock (B's pair with C is a `foreign_release`); before it, it deletes nothing and B's
    lock vanishes under C (`lock_vanished`).
    """
    seq_order, rule = [], []
    for k in range(4):
        key, first, t = f"tie-{k}", "A" if k % 2 == 0 else "Z", (k + 1) * 10_000
        head = [line(t, "acquired", key, first), line(t + 500, "stock_read", key, first)]
        release, acquire = line(t + 1500, "released", key, first, deleted=True), line(t + 1500, "acquired", key, "B")
        tail = [line(t + 2000, "acquired", key, "C"), line(t + 2100, "released", key, "C", deleted=True),
                line(t + 2400, "stock_read", key, "B"), line(t + 2500, "released", key, "B", deleted=True)]
        # The file: release first on keys 0 and 1, acquire first on 2 and 3 (only `seq` can tell).
        seq_order += head + ([release, acquire] if k < 2 else [acquire, release]) + tail
        rows = head + [release, acquire] + tail
        rule += sorted(rows, key=lambda r: (r["ts"], r["owner"], RANK.get(r["event"], 2)))
    return seq_order, rule


def write(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def main_to(out):
    """Writes the logs and expect.json into `out`."""
    os.makedirs(out, exist_ok=True)
    rows, expect = scenarios()
    write(os.path.join(out, "boundaries.jsonl"), rows)
    seq_order, rule = ties()
    write(os.path.join(out, "ties-seq.jsonl"), seq_order)
    write(os.path.join(out, "ties-rule.jsonl"), rule)
    with open(os.path.join(out, "expect.json"), "w") as f:
        json.dump(expect, f, indent=1)


if __name__ == "__main__":
    main_to(sys.argv[1])

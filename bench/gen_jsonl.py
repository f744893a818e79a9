#!/usr/bin/env python3
"""Writes a realistic flash-sale lock log as JSON Lines (stand-in for
`lockreplay simulate` until the simulator lands).

Shape of each line follows tests/fixtures/cases/REAL-A-redispy-no-renewal
(redis-py style app logs, ~300 bytes a line). Many keys (one per product),
50 hosts, 2 s TTLs. Each round every key sees one hold:

    acquired -> stock_read -> stock_deducted -> order_created -> released

About 1 hold in 200 stalls (a GC pause) past its TTL: the next holder acquires
after expiry, both sell from the same stock read, so each stall is one overlap
pair and one oversold unit (initial stock, logged by the inventory service at
the start and appended at the end, is the number of planned sales). Prints "events overlaps oversold" on stderr.

Usage: gen_jsonl.py EVENTS OUT [SEED [STALL]]

STALL is the share of holds that overrun their TTL (default 0.005, one in
200; the overlap-heavy log of bench/run.sh uses 0.1, one in ten).
"""

import random
import sys
from datetime import datetime, timedelta, timezone

TZ = timezone(timedelta(hours=8))
T0 = datetime(2026, 11, 29, 9, 0, 0, tzinfo=TZ)
T0_MS = int(T0.timestamp() * 1000)


def main():
    n_events = int(sys.argv[1])
    out = sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    stall_rate = float(sys.argv[4]) if len(sys.argv) > 4 else 0.005
    n_keys = max(10, min(10_000, n_events // 100))
    hosts = [f"order-api-{h:02d}" for h in range(50)]
    # Per-key state: stock, next free time (ms since T0).
    stock = [1_000_000] * n_keys
    free_at = [rng.randrange(0, 1000) for _ in range(n_keys)]
    ts_cache = {}

    def ts(ms):
        s = ms // 1000
        base = ts_cache.get(s)
        if base is None:
            if len(ts_cache) > 4096:
                ts_cache.clear()
            base = (T0 + timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%S")
            ts_cache[s] = base
        return f"{base}.{ms % 1000:03d}+08:00"

    lines = []
    written = 0
    overlaps = 0
    seq = 0
    f = open(out, "w", buffering=1 << 22)

    def emit(ms, event, host, pid, thread, key, extra):
        nonlocal written
        lines.append(
            f'{{"ts": "{ts(ms)}", "level": "INFO", "event": "{event}", "host": "{host}", '
            f'"logger": "shop.flashsale.OrderService", "pid": {pid}, "thread": "{thread}", '
            f'"lock_key": "product:{key}:lock", {extra}}}\n'
        )
        written += 1

    sold = [0] * n_keys
    while written < n_events - n_keys:
        for k in range(n_keys):
            if written >= n_events - n_keys:
                break
            h = rng.randrange(50)
            host, pid = hosts[h], 1000 + h
            thread = f"order-worker-{rng.randrange(16):02d}"
            seq += 1
            owner = f"{seq:016x}{rng.getrandbits(64):016x}"
            req = f"{h}-{rng.getrandbits(48):012x}"
            t = free_at[k] + rng.randrange(1, 40)
            own = f'"owner": "{owner}", "request_id": "{req}"'
            emit(t, "acquired", host, pid, thread, k, f'{own}, "ttl_ms": 2000, "waited_ms": {rng.randrange(5)}')
            s = stock[k]
            emit(t + 1, "stock_read", host, pid, thread, k, f'{own}, "sku": "SKU-{k}", "stock": {s}')
            stall = rng.random() < stall_rate
            if stall:
                # A pauses past its TTL; B acquires after expiry and sells too.
                h2 = (h + 1) % 50
                host2, pid2 = hosts[h2], 1000 + h2
                seq += 1
                owner2 = f"{seq:016x}{rng.getrandbits(64):016x}"
                own2 = f'"owner": "{owner2}", "request_id": "{h2}-{rng.getrandbits(48):012x}"'
                t2 = t + 2000 + rng.randrange(5, 200)
                emit(t2, "acquired", host2, pid2, "order-worker-00", k, f'{own2}, "ttl_ms": 2000, "waited_ms": 3')
                emit(t2 + 1, "stock_read", host2, pid2, "order-worker-00", k, f'{own2}, "sku": "SKU-{k}", "stock": {s}')
                emit(t2 + 2, "stock_deducted", host2, pid2, "order-worker-00", k,
                     f'{own2}, "sku": "SKU-{k}", "quantity": 1, "stock_before": {s}, "stock_after": {s - 1}')
                emit(t2 + 3, "order_created", host2, pid2, "order-worker-00", k,
                     f'{own2}, "sku": "SKU-{k}", "quantity": 1, "order_id": "SO{seq:012d}"')
                emit(t2 + 4, "released", host2, pid2, "order-worker-00", k, f'{own2}, "deleted": 1, "elapsed_ms": 0.4')
                t = t2 + 100
                overlaps += 1
            emit(t + 2, "stock_deducted", host, pid, thread, k,
                 f'{own}, "sku": "SKU-{k}", "quantity": 1, "stock_before": {s}, "stock_after": {s - 1}')
            emit(t + 3, "order_created", host, pid, thread, k,
                 f'{own}, "sku": "SKU-{k}", "quantity": 1, "order_id": "SO{seq:012d}{h:02d}"')
            deleted = 0 if stall else 1
            emit(t + 4 + rng.randrange(30), "released", host, pid, thread, k,
                 f'{own}, "deleted": {deleted}, "elapsed_ms": 0.5')
            stock[k] = s - 1
            sold[k] += 1
            free_at[k] = t + 40
            if len(lines) >= 20000:
                f.write("".join(lines))
                lines.clear()
    # The inventory service's start-of-sale lines (another file in real life,
    # appended here): initial stock = the units the sale meant to sell.
    for k in range(n_keys):
        emit(0, "stock_initialized", hosts[k % 50], 1000 + k % 50, "MainThread", k,
             f'"sku": "SKU-{k}", "stock": {sold[k]}, "stock_key": "product:{k}:stock"')
    f.write("".join(lines))
    f.close()
    print(f"{written} {overlaps} {overlaps}", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Locks the server drops, driven with redis-py against a real redis-server
while `redis-cli monitor` captures the commands (tests/redis_vanish_live.rs).

Usage: vanish.py PORT SCENARIO, SCENARIO one of
  evict    CONFIG SET maxmemory-policy volatile-ttl and a small maxmemory; three
           rounds: buyer A takes lock:evict (SET NX PX 20000), a cache rebuild
           writes keys with a 1 h TTL until buyer B's SET NX wins (volatile-ttl
           evicts the key closest to expiry: the lock); the rebuild deletes its
           last 30 keys (room again, so B's lock is not evicted in turn); B
           renews with PEXPIRE in round 1 and releases with a compare-and-delete
           script; A's own compare-and-delete then deletes nothing.
  flush    A takes lock:flush; another client runs FLUSHDB; B's SET NX wins.
  restart1 A takes lock:restart (the harness then restarts the server without
           persistence).
  restart2 B's SET NX on lock:restart wins, B renews it with PEXPIRE, releases it;
           A's compare-and-delete deletes nothing.
Prints one JSON object: what each SET NX and each release returned.
"""
import json
import sys
import time

import redis

RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"


def client(port):
    return redis.Redis(host="127.0.0.1", port=port, decode_responses=True)


def evict(port):
    admin, a, b, cache = client(port), client(port), client(port), client(port)
    admin.config_set("maxmemory-policy", "volatile-ttl")
    admin.config_set("maxmemory", "3mb")
    out = []
    n = 0
    for r in range(3):
        key = "lock:evict"
        tok_a, tok_b = f"buyer-a-{r}", f"buyer-b-{r}"
        got_a = a.set(key, tok_a, nx=True, px=20000)
        time.sleep(0.05)
        tries = 0
        while True:
            for _ in range(10):
                cache.set(f"cache:page:{n}", "x" * 40000, ex=3600)
                n += 1
            tries += 1
            got_b = b.set(key, tok_b, nx=True, px=20000)
            if got_b or tries > 200:
                break
        # Room under maxmemory again, so B's lock (the shortest TTL) is not
        # evicted in turn before its release: the monitor's output buffer
        # counts as used memory and grows when the machine is busy (CI on
        # 2026-12-07: release_b 0 once in a run).
        cache.delete(*[f"cache:page:{i}" for i in range(max(0, n - 30), n)])
        time.sleep(0.05)
        if r == 0:
            b.pexpire(key, 20000)
        time.sleep(0.05)
        rel_a = a.eval(RELEASE, 1, key, tok_a)
        time.sleep(0.02)
        rel_b = b.eval(RELEASE, 1, key, tok_b)
        out.append({"a": bool(got_a), "b": bool(got_b), "b_tries": tries, "release_a": rel_a, "release_b": rel_b})
        time.sleep(0.05)
    return out


def flush(port):
    a, b, other = client(port), client(port), client(port)
    key = "lock:flush"
    got_a = a.set(key, "buyer-a", nx=True, px=20000)
    time.sleep(0.05)
    other.flushdb()
    time.sleep(0.05)
    got_b = b.set(key, "buyer-b", nx=True, px=20000)
    time.sleep(0.05)
    rel_a = a.eval(RELEASE, 1, key, "buyer-a")
    rel_b = b.eval(RELEASE, 1, key, "buyer-b")
    return {"a": bool(got_a), "b": bool(got_b), "release_a": rel_a, "release_b": rel_b}


def restart1(port):
    a = client(port)
    return {"a": bool(a.set("lock:restart", "buyer-a", nx=True, px=30000))}


def restart2(port):
    a, b = client(port), client(port)
    key = "lock:restart"
    got_b = b.set(key, "buyer-b", nx=True, px=30000)
    time.sleep(0.03)
    b.pexpire(key, 30000)
    time.sleep(0.03)
    rel_a = a.eval(RELEASE, 1, key, "buyer-a")
    rel_b = b.eval(RELEASE, 1, key, "buyer-b")
    return {"b": bool(got_b), "release_a": rel_a, "release_b": rel_b}


if __name__ == "__main__":
    port, scenario = int(sys.argv[1]), sys.argv[2]
    print(json.dumps({"evict": evict, "flush": flush, "restart1": restart1, "restart2": restart2}[scenario](port)))

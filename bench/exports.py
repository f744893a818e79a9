#!/usr/bin/env python3
"""Rewrites a JSON Lines log (bench/gen_jsonl.py's or `lockreplay simulate`'s)
into two shapes of real exports, for bench/exports.sh:

  sls   Alibaba Cloud SLS simple mode: the application's line as a string in
        `content`, `__time__` in whole seconds, `__tag__:__hostname__`.
  text  Spring Boot 2 default file layout (docs/ingest.md, "Text lines"): lock
        lines name key and token, business lines only their thread.
  glog  the same messages in glog's layout (`Lmmdd hh:mm:ss.uuuuuu threadid
        file:line] msg`, glog's `LogMessage::Init`): no known layout reads
        it, so the structure finder (src/ingest/framing/structure.rs) does.

usage: exports.py IN.jsonl OUT_PREFIX
       (writes OUT_PREFIX.sls.jsonl, OUT_PREFIX.springboot.log, OUT_PREFIX.glog.log)
"""
import json
import sys
from datetime import datetime

src, prefix = sys.argv[1], sys.argv[2]
tids = {}
with open(src) as f, open(prefix + ".sls.jsonl", "w") as sls, open(prefix + ".springboot.log", "w") as txt, \
        open(prefix + ".glog.log", "w") as glog:
    for line in f:
        line = line.strip()
        if not line:
            continue
        v = json.loads(line)
        ts = v.get("ts", "")
        try:
            secs = int(datetime.fromisoformat(ts).timestamp())
        except ValueError:
            secs = 0
        sls.write(json.dumps({"__time__": str(secs), "__source__": "10.0.0.1",
                              "__tag__:__hostname__": v.get("host", "node"),
                              "content": line}, ensure_ascii=False) + "\n")
        ev = v.get("event", "")
        key, owner = v.get("lock_key", ""), v.get("owner", "")
        sku = v.get("sku", v.get("product", ""))
        if ev == "acquired":
            msg = f"acquired lock key={key} token={owner} ttl={v.get('ttl_ms', 2000)}ms"
        elif ev == "released":
            msg = f"released lock key={key} token={owner}"
        elif ev == "release_failed":
            msg = f"release failed key={key} token={owner}"
        elif ev == "acquire_failed":
            msg = f"could not acquire lock key={key}"
        elif ev == "renewed":
            msg = f"renewed lock key={key} token={owner} ttl={v.get('ttl_ms', 2000)}ms"
        elif ev == "stock_read":
            msg = f"stock read sku={sku} stock={v.get('stock', 0)}"
        elif ev == "stock_deducted":
            msg = f"stock deducted sku={sku} qty={v.get('quantity', 1)} stockAfter={v.get('stock_after', 0)}"
        elif ev == "order_created":
            msg = f"order created orderId={v.get('order_id', '')} sku={sku} qty={v.get('quantity', 1)}"
        elif ev == "stock_initialized":
            msg = f"stock initialized sku={sku} stock={v.get('stock', 0)}"
        else:
            msg = f"{ev} key={key}"
        txt.write(f"{ts[:23].replace('T', ' ')}{ts[23:]}  INFO {v.get('pid', 1)} --- "
                  f"[{str(v.get('thread', 'main')):>15}] c.e.shop.flashsale.OrderService          : "
                  f"{msg} host={v.get('host', 'node')}\n")
        day = ts[5:7] + ts[8:10]
        # glog writes a thread's numeric id where Spring Boot writes its name:
        # one per (host, thread), numbered as they first appear.
        tid = tids.setdefault((v.get("host"), v.get("thread", "main")), 10000 + len(tids))
        glog.write(f"I{day} {ts[11:23]}000 {tid:>7} lock.go:88] {msg} host={v.get('host', 'node')}\n")

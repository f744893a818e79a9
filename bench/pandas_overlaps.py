#!/usr/bin/env python3
"""Overlap pairs and oversold units of a JSON Lines lock log, in pandas
(pyarrow JSON reader, vectorised numpy for the range join). Same rules as
duckdb_overlaps.py.

Usage: pandas_overlaps.py FILE   prints "overlap_pairs oversold_units".
"""

import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.json as pj

path = sys.argv[1]
schema = pa.schema([
    ("ts", pa.timestamp("ms", tz="UTC")), ("event", pa.string()), ("lock_key", pa.string()),
    ("owner", pa.string()), ("ttl_ms", pa.int64()), ("sku", pa.string()),
    ("quantity", pa.int64()), ("stock", pa.int64()),
])
table = pj.read_json(path, parse_options=pj.ParseOptions(
    explicit_schema=schema, unexpected_field_behavior="ignore"))
df = table.to_pandas()
for c in ("event", "lock_key", "owner", "sku"):
    df[c] = df[c].astype("category")

ev = df[df.owner.notna() & df.lock_key.notna()]
g = ev.groupby(["lock_key", "owner"], observed=True)
acq = ev[ev.event == "acquired"].groupby(["lock_key", "owner"], observed=True).agg(
    acq=("ts", "min"), ttl_ms=("ttl_ms", "min"))
rel = ev[ev.event.isin(["released", "release_failed", "lock_lost"])].groupby(
    ["lock_key", "owner"], observed=True).ts.min().rename("rel")
last = g.ts.max().rename("last")
holds = acq.join(rel).join(last).reset_index()
holds["wend"] = holds.rel.fillna(holds["last"])
holds = holds.sort_values(["lock_key", "acq"]).reset_index(drop=True)

key = holds.lock_key.cat.codes.to_numpy().astype(np.int64)
a = holds.acq.dt.tz_convert(None).to_numpy().astype("datetime64[ms]").astype(np.int64)
e = holds.wend.dt.tz_convert(None).to_numpy().astype("datetime64[ms]").astype(np.int64)
span = int(max(a.max(), e.max()) - min(a.min(), e.min())) + 2
base = min(a.min(), e.min())
ka = key * span + (a - base)
ke = key * span + (e - base)
lo = np.searchsorted(ka, ka, side="right")   # later acquires on the key ...
hi = np.searchsorted(ka, ke, side="left")    # ... strictly before the window end
n = np.maximum(hi - lo, 0)
ia = np.repeat(np.arange(len(holds)), n)
ib = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n) + np.repeat(lo, n)
owner = holds.owner.cat.codes.to_numpy()
ttl = holds.ttl_ms.to_numpy()
ok = (owner[ia] != owner[ib]) & ~np.isnan(ttl[ia].astype(float)) & (a[ia] + np.nan_to_num(ttl[ia].astype(float)) <= a[ib])
pairs = int(ok.sum())

# The product: its `sku` (bench/gen_jsonl.py), else its lock key (the
# simulator's lines name no sku: one lock key a product).
df["product"] = df.sku.astype(object).where(df.sku.notna(), df.lock_key.astype(object))
biz = df[df["product"].notna()]
sold = biz[biz.event == "order_created"].groupby("product").quantity.sum()
initial = biz[biz.event == "stock_initialized"].groupby("product").stock.min()
p = pd.concat([sold.rename("sold"), initial.rename("initial")], axis=1).dropna(subset=["initial"])
oversold = int((p.sold.fillna(0) - p.initial).clip(lower=0).sum())
print(pairs, oversold)

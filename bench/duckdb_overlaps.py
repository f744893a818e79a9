#!/usr/bin/env python3
"""Overlap pairs and oversold units of a JSON Lines lock log, in DuckDB.

The same rules as lockreplay for this log shape (docs/semantics.md §2, §4, §7):
a hold runs from its `acquired` to its first release line (else its last
line); a later hold of another holder on the same key overlaps it when its
acquire falls strictly inside that window and after the earlier lease expired
(acquire + ttl). Oversold per product = max(0, ordered units - initial stock).

Usage: duckdb_overlaps.py FILE [THREADS]   prints "overlap_pairs oversold_units".
"""

import sys

import duckdb

path = sys.argv[1]
con = duckdb.connect()
con.execute(f"SET threads = {int(sys.argv[2]) if len(sys.argv) > 2 else 2}")
con.execute("SET preserve_insertion_order = false")
# Only the columns the question needs, typed up front (no sampling pass).
con.execute(
    """
    CREATE TEMP TABLE ev AS
    SELECT * FROM read_ndjson(?, columns = {
        ts: 'TIMESTAMPTZ', event: 'VARCHAR', lock_key: 'VARCHAR', owner: 'VARCHAR',
        ttl_ms: 'BIGINT', sku: 'VARCHAR', quantity: 'BIGINT', stock: 'BIGINT'})
    """,
    [path],
)
pairs = con.execute(
    """
    WITH holds AS (
        SELECT lock_key, owner,
               min(ts) FILTER (WHERE event = 'acquired') AS acq,
               min(ttl_ms) FILTER (WHERE event = 'acquired') AS ttl_ms,
               coalesce(min(ts) FILTER (WHERE event IN ('released', 'release_failed', 'lock_lost')),
                        max(ts)) AS wend
        FROM ev WHERE owner IS NOT NULL AND lock_key IS NOT NULL
        GROUP BY lock_key, owner
    ), ordered AS (
        -- running end of all earlier windows on the key: only holds that start
        -- before it can be inside an earlier window (prunes the range join)
        SELECT *, max(wend) OVER (PARTITION BY lock_key ORDER BY acq
                                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
        FROM holds WHERE acq IS NOT NULL
    ), later AS (
        SELECT * FROM ordered WHERE acq < prev_end
    )
    SELECT count(*) FROM ordered a JOIN later b
      ON a.lock_key = b.lock_key AND b.acq > a.acq AND b.acq < a.wend
     AND a.owner <> b.owner
     AND a.ttl_ms IS NOT NULL AND a.acq + a.ttl_ms * INTERVAL 1 MILLISECOND <= b.acq
    """
).fetchone()[0]
oversold = con.execute(
    """
    SELECT coalesce(sum(greatest(0, sold - initial)), 0) FROM (
        -- The product: its `sku` (bench/gen_jsonl.py), else its lock key
        -- (the simulator's lines name no sku: one lock key a product).
        SELECT coalesce(sku, lock_key) AS product,
               coalesce(sum(quantity) FILTER (WHERE event = 'order_created'), 0) AS sold,
               min(stock) FILTER (WHERE event = 'stock_initialized') AS initial
        FROM ev WHERE coalesce(sku, lock_key) IS NOT NULL GROUP BY product)
    WHERE initial IS NOT NULL
    """
).fetchone()[0]
print(pairs, oversold)

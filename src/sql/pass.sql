-- the first delete while the lock is live, leaving out the release line of a log-lag hand-off
firstc{K} AS (
  SELECT c.key AS key, c.cur AS hid, MIN(c.pos) AS cpos, MIN(c.ts) AS cts,
         MIN(CASE WHEN c.holder = h.holder THEN c.pos END) AS own_pos
  FROM cands AS c INNER JOIN hw1 AS h ON h.key = c.key AND h.hid = c.cur
  LEFT JOIN {ABS} AS a ON a.key = c.key AND a.hid = c.cur
  WHERE a.abs_pos IS NULL OR c.pos <> a.abs_pos
  GROUP BY c.key, c.cur
),
-- the lock ends at the first of: the next acquire on the key, a delete, its expiry (the lease as renewed before then);
-- an acquire or delete at the expiry instant comes after it
end{K} AS (
  SELECT x.key AS key, x.holder AS holder, x.hid AS hid, x.acq_ts AS acq_ts, x.wend AS wend, x.ttl_lease AS ttl_lease,
    x.ttl_unknown AS ttl_unknown, x.next_acq_pos AS next_acq_pos, x.lag_ok AS lag_ok, x.lag_close_pos AS lag_close_pos,
    g.ts AS last_grant_ts, g.p_exp AS exp_at,
    CASE WHEN x.next_acq_pos IS NOT NULL AND x.c = x.next_acq_pos AND (g.p_exp IS NULL OR x.next_acq_ts < g.p_exp) THEN 1 ELSE 0 END AS end_by_acq,
    CASE WHEN x.cpos IS NOT NULL AND x.c = x.cpos AND (g.p_exp IS NULL OR x.cts < g.p_exp) THEN 1 ELSE 0 END AS end_by_del,
    CASE WHEN x.own_pos IS NOT NULL AND x.own_pos = x.cpos THEN 1 ELSE 0 END AS del_own,
    CASE WHEN x.c = x.next_acq_pos THEN x.next_acq_ts ELSE x.cts END AS c_ts
  FROM (SELECT h.key AS key, h.holder AS holder, h.hid AS hid, h.acq_ts AS acq_ts, h.wend AS wend, h.ttl_lease AS ttl_lease,
          h.ttl_unknown AS ttl_unknown, h.next_acq_pos AS next_acq_pos, h.next_acq_ts AS next_acq_ts, h.lag_ok AS lag_ok,
          h.lag_close_pos AS lag_close_pos, f.cpos AS cpos, f.cts AS cts, f.own_pos AS own_pos,
          LEAST(COALESCE(f.cpos, 9223372036854775807), COALESCE(h.next_acq_pos, 9223372036854775807)) AS c
        FROM hw1 AS h LEFT JOIN firstc{K} AS f ON f.key = h.key AND f.hid = h.hid) AS x
  INNER JOIN chain AS g ON g.key = x.key AND g.hid = x.hid
  WHERE g.pos < x.c AND (g.next_pos IS NULL OR g.next_pos >= x.c)
)

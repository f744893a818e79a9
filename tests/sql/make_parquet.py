"""Writes tests/fixtures/parquet/: handed cases' JSON Lines as Parquet, by the
real writers a team exports with:

- ClickHouse's own Parquet writer (`SELECT ... FORMAT Parquet`, ClickHouse's
  docs: interfaces/formats/Parquet), through chDB, ClickHouse's engine in
  process (PyPI `chdb`); timestamps as DateTime64(3, 'UTC').
- DuckDB's (`COPY ... TO ... (FORMAT parquet)`, duckdb.org/docs/data/parquet),
  with its default Snappy compression and a naive TIMESTAMP (no zone: the
  shape Athena's CTAS and SLS's OSS shipping write as well).

Run from the repository root: python3 tests/sql/make_parquet.py
"""
import os
import chdb
import duckdb

CASES = {
    "REAL-A": "tests/fixtures/cases/REAL-A-redispy-no-renewal/a_redispy_lock_no_renewal.app.jsonl",
    "BR-01": "tests/fixtures/cases/BR-01-redispy-shared-lock-overrun/inventory-sync.jsonl",
}
OUT = "tests/fixtures/parquet"
os.makedirs(OUT, exist_ok=True)
for name, src in CASES.items():
    path = os.path.abspath(src)
    ch = os.path.abspath(f"{OUT}/{name}.clickhouse.parquet")
    if os.path.exists(ch):
        os.remove(ch)
    # ts (inferred as DateTime64) kept as DateTime64(3, 'UTC'); the rest as inferred.
    chdb.query(
        f"INSERT INTO FUNCTION file('{ch}', Parquet) "
        f"SELECT * REPLACE (toDateTime64(ts, 3, 'UTC') AS ts) "
        f"FROM file('{path}', JSONEachRow) ORDER BY ts"
    )
    dk = os.path.abspath(f"{OUT}/{name}.duckdb.parquet")
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(
        f"COPY (SELECT * REPLACE (CAST(CAST(ts AS TIMESTAMPTZ) AS TIMESTAMP) AS ts) "
        f"FROM read_json_auto('{path}', format='newline_delimited') ORDER BY ts) "
        f"TO '{dk}' (FORMAT parquet)"
    )
    print(name, os.path.getsize(ch), os.path.getsize(dk))

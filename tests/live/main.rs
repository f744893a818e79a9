//! Tests that need something outside the crate: a real `redis-server`
//! (`redis_server`), ClickHouse servers and chDB (`fetch`), DuckDB and chDB
//! from PyPI (`sql_engines`). `.ci/run` installs them all; where one is missing
//! its test is skipped with a message, except under `CI`, where that fails.

mod fetch;
mod redis_server;
mod sql_engines;

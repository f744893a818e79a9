//! Tests that need something outside the crate: a real `redis-server`
//! (`redis_server`), ClickHouse servers and chDB (`fetch`), DuckDB and chDB
//! from PyPI (`sql_engines`). `.ci/run` installs them all; where one is missing
//! its test is skipped with a message, except under `CI`, where that fails.

#[path = "../support/mod.rs"]
mod support;

/// The two-server ClickHouse cluster both `fetch` and `sql_engines` start.
#[path = "../sql/cluster.rs"]
mod cluster;

mod fetch;
mod redis_server;
mod sql_engines;

/// A loopback port free at the time of asking, for a server the test starts.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

//! `fetch`'s listing: the rules' `keys` query ([`super::generate`],
//! `--select keys`) on one ClickHouse server, or on every shard of a
//! cluster at once (`--cluster`), each shard over its own rows of a table
//! sharded by lock key, so each key is computed where it lives and only
//! the listing crosses the network.

use anyhow::{Context, bail};

use super::client::{Client, ServerConfig, split_credentials};
use super::{Dialect, QuerySpec, quote};

/// One row of the listing: a lock key with overlap pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyRow {
    /// Lock key.
    pub key: String,
    /// Overlap pairs on it.
    pub pairs: u64,
    /// Start of its first overlap, ns since the epoch.
    pub first_ns: i64,
    /// End of its last overlap, ns since the epoch.
    pub last_ns: i64,
    /// A cause of its overlaps (the least by name).
    pub cause: String,
}

/// Most keys the listing reads (each a few hundred bytes); more is an
/// error, not memory without bound.
pub const MAX_LISTED_KEYS: usize = 1_000_000;

/// The first ClickHouse release with `DateTime64` (20.1): before it a
/// `DateTime` column holds whole seconds.
const DATETIME64_SINCE: u32 = 20;

/// The listing of one server: the rules' `keys` query over `spec.table`.
/// The program runs on every release from 18.16 on; on a server older
/// than 20.1 a `DateTime` time column is read in whole seconds.
///
/// # Errors
/// The server's errors, or more than [`MAX_LISTED_KEYS`] keys.
pub fn list_keys(client: &Client, spec: &QuerySpec) -> anyhow::Result<Vec<KeyRow>> {
    let (major, _) = client.version()?;
    let spec = QuerySpec {
        datetime_seconds: major < DATETIME64_SINCE,
        ..spec.clone()
    };
    let query = super::generate(&spec)?;
    let mut rows = Vec::new();
    client
        .query_lines(&query, None, "JSONEachRow", &mut |line| {
            push_key_row(&mut rows, line, MAX_LISTED_KEYS)
        })
        .context("the rules' query")?;
    Ok(rows)
}

/// Adds the listing's row `line` to `rows`, which may hold at most
/// `max_keys` (the listing takes [`MAX_LISTED_KEYS`]).
///
/// # Errors
/// A row that is not one of the `keys` query, or one past `max_keys`.
pub fn push_key_row(rows: &mut Vec<KeyRow>, line: &str, max_keys: usize) -> anyhow::Result<()> {
    if rows.len() >= max_keys {
        bail!(
            "the server listed more than {max_keys} keys; narrow the listing with --since/--until or --where"
        );
    }
    rows.push(parse_key_row(line)?);
    Ok(())
}

/// The listing of every shard of cluster `name` (each over its own
/// `spec.table`), run at once, merged most pairs first. Each shard's HTTP
/// interface is `shard_urls[i]` when given, else the host
/// `system.clusters` names for it with the scheme and port of the
/// server's URL.
///
/// # Errors
/// An unknown cluster, a shard that cannot be reached or fails, or a
/// listing too long.
pub fn list_cluster(
    server: &ServerConfig,
    name: &str,
    shard_urls: &[String],
    spec: &QuerySpec,
) -> anyhow::Result<(Vec<KeyRow>, usize)> {
    let urls = if shard_urls.is_empty() {
        shard_hosts(&Client::of(server)?, name)?
            .iter()
            .map(|h| with_host(&server.url, h))
            .collect::<anyhow::Result<Vec<_>>>()?
    } else {
        shard_urls.to_vec()
    };
    let results: Vec<anyhow::Result<Vec<KeyRow>>> = std::thread::scope(|s| {
        let jobs: Vec<_> = urls
            .iter()
            .map(|url| {
                s.spawn(move || {
                    let shard = ServerConfig {
                        url: url.clone(),
                        ..server.clone()
                    };
                    list_keys(&Client::of(&shard)?, spec).with_context(|| {
                        format!(
                            "shard {}",
                            crate::report::terminal_safe(&split_credentials(url).0)
                        )
                    })
                })
            })
            .collect();
        jobs.into_iter()
            .map(|j| {
                j.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a shard's listing panicked")))
            })
            .collect()
    });
    let mut rows = Vec::new();
    for r in results {
        rows.extend(r?);
        if rows.len() > MAX_LISTED_KEYS {
            bail!(
                "the shards listed more than {MAX_LISTED_KEYS} keys; narrow the listing with --since/--until or --where"
            );
        }
    }
    rows.sort_by(|a, b| b.pairs.cmp(&a.pairs).then_with(|| a.key.cmp(&b.key)));
    Ok((rows, urls.len()))
}

/// The hosts of cluster `name`'s shards (the first replica of each), from
/// the server's `system.clusters`.
fn shard_hosts(client: &Client, name: &str) -> anyhow::Result<Vec<String>> {
    let sql = format!(
        "SELECT host_name FROM system.clusters WHERE cluster = {} AND replica_num = 1 ORDER BY shard_num",
        quote::sql_string(Dialect::Clickhouse, name)
    );
    let mut hosts = Vec::new();
    client.query_lines(&sql, None, "JSONEachRow", &mut |line| {
        let v: serde_json::Value = serde_json::from_str(line).context("system.clusters row")?;
        hosts.push(v["host_name"].as_str().unwrap_or_default().to_string());
        Ok(())
    })?;
    if hosts.is_empty() {
        bail!(
            "the server knows no cluster {:?} (system.clusters)",
            crate::report::terminal_safe(name)
        );
    }
    Ok(hosts)
}

/// `url` with its host replaced by `host` (scheme, port and path kept).
fn with_host(url: &str, host: &str) -> anyhow::Result<String> {
    let (clean, _) = split_credentials(url);
    let scheme_end = clean
        .find("://")
        .map(|i| i + 3)
        .context("a URL with a scheme")?;
    let rest = &clean[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let port = authority
        .rfind(':')
        .filter(|&i| !authority[i..].contains(']'))
        .map_or("", |i| &authority[i..]);
    let host = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_string()
    };
    Ok(format!(
        "{}{host}{port}{}",
        &clean[..scheme_end],
        &rest[authority_end..]
    ))
}

/// `cluster('NAME', 'db', 'table')`: the shards' `table` (`db` the
/// server's current database when not given) read across cluster `name`,
/// for the pull.
///
/// # Errors
/// A table that is not `[db.]name`.
pub fn cluster_source(name: &str, table: &str) -> anyhow::Result<String> {
    let plain = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    let parts: Vec<&str> = table.split('.').map(|p| p.trim_matches('`')).collect();
    let lit = |s: &str| quote::sql_string(Dialect::Clickhouse, s);
    match parts.as_slice() {
        [t] if plain(t) => Ok(format!(
            "cluster({}, currentDatabase(), {})",
            lit(name),
            lit(t)
        )),
        [d, t] if plain(d) && plain(t) => {
            Ok(format!("cluster({}, {}, {})", lit(name), lit(d), lit(t)))
        }
        _ => bail!(
            "--table {:?}: with --cluster, the table is the shards' own table, `table` or `database.table`",
            crate::report::terminal_safe(table)
        ),
    }
}

/// A row of the `keys` query (`JSONEachRow`; 64-bit integers as numbers
/// or, from a server that quotes them, strings).
pub fn parse_key_row(line: &str) -> anyhow::Result<KeyRow> {
    let v: serde_json::Value =
        serde_json::from_str(line).with_context(|| format!("ClickHouse row {line:?}"))?;
    let num = |k: &str| -> i64 {
        let x = &v[k];
        x.as_i64()
            .or_else(|| x.as_str().and_then(|s| s.parse().ok()))
            .unwrap_or(0)
    };
    Ok(KeyRow {
        key: v["key"].as_str().unwrap_or_default().to_string(),
        pairs: u64::try_from(num("pairs")).unwrap_or(0),
        first_ns: num("first_ns"),
        last_ns: num("last_ns"),
        cause: v["cause"].as_str().unwrap_or_default().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_url_keeps_the_scheme_port_and_path_and_drops_credentials() {
        assert_eq!(
            with_host("https://u:p@ch.a:8443/x?y=1", "ch-2.b").expect("ok"),
            "https://ch-2.b:8443/x?y=1"
        );
        assert_eq!(
            with_host("http://127.0.0.1:8123", "127.0.0.2").expect("ok"),
            "http://127.0.0.2:8123"
        );
        assert_eq!(with_host("http://h", "::1").expect("ok"), "http://[::1]");
    }

    #[test]
    fn the_cluster_source_quotes_its_names_and_refuses_an_expression() {
        assert_eq!(
            cluster_source("lr", "db.ev").expect("ok"),
            "cluster('lr', 'db', 'ev')"
        );
        assert_eq!(
            cluster_source("l'r", "ev").expect("ok"),
            "cluster('l\\'r', currentDatabase(), 'ev')"
        );
        assert!(cluster_source("lr", "file('x')").is_err());
    }

    #[test]
    fn key_rows_read_numbers_quoted_or_not() {
        let row = parse_key_row(
            r#"{"key":"lock:1","pairs":3,"first_ns":"100","last_ns":200,"cause":"lease_expired"}"#,
        )
        .expect("row");
        assert_eq!((row.pairs, row.first_ns, row.last_ns), (3, 100, 200));
        assert_eq!(row.cause, "lease_expired");
    }
}

//! `lockreplay fetch`: runs the rules' query ([`super::generate`],
//! `--select keys`) on a ClickHouse server over its HTTP interface, lists
//! the lock keys with overlap pairs fleet-wide, pulls only the rows of the
//! chosen keys around their incidents into a JSON Lines file, and replays
//! that file as any other log (the report, or the window with `--open`).
//!
//! The HTTP interface as documented at
//! <https://clickhouse.com/docs/interfaces/http>: the query is the POST
//! body, `session_id` keeps the script's temporary tables between its
//! statements, `default_format` names the output, and the credentials go
//! in HTTP basic auth. Errors are said with the server's own text
//! (`Code: N. DB::Exception: ...`) and, for connection problems, the URL.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

use super::{Dialect, QuerySpec, Select, TimeUnit};
use crate::cli::{AnalysisArgs, Format};

/// `lockreplay fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The server's HTTP interface: `http://HOST:8123` or `https://HOST:8443`
    /// (default: `CLICKHOUSE_URL`).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Table of lock events (`db.table`); its columns are the export's
    /// (`lockreplay sql --export-events`) or those `--mapping` names.
    #[arg(long, default_value = "lock_events")]
    pub table: String,
    /// How the table's time column is stored.
    #[arg(long, value_enum, default_value = "ns")]
    pub time_unit: TimeUnit,
    /// User (default: `CLICKHOUSE_USER`, else `default`).
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
    /// File holding the password (its first line); default:
    /// `CLICKHOUSE_PASSWORD`, else none. Never a flag's value, which
    /// other users could read in the process list.
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// PEM file of the certificate authority that signed the server's
    /// certificate (`https://`); default: the Mozilla roots.
    #[arg(long, value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
    /// Seconds a request may take, connection included.
    #[arg(long, default_value_t = 60, value_name = "S")]
    pub timeout_s: u64,
    /// Only list the keys with overlap pairs; pull nothing.
    #[arg(long)]
    pub list: bool,
    /// Pull these keys (repeatable) instead of the listing's top ones.
    #[arg(long = "key", value_name = "KEY")]
    pub keys: Vec<String>,
    /// With `--key`: the start of the rows to pull (RFC 3339 or ns since
    /// the epoch), without asking the server for the listing (a server
    /// without window functions, before ClickHouse 21).
    #[arg(long, value_name = "TIME", requires = "until")]
    pub since: Option<String>,
    /// With `--since`: the end of the rows to pull.
    #[arg(long, value_name = "TIME", requires = "since")]
    pub until: Option<String>,
    /// How many of the listed keys to pull (most overlap pairs first).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub top: usize,
    /// Rows pulled before each key's first overlap and after its last, ms:
    /// the holds that end in the overlaps start before them.
    #[arg(long, default_value_t = 600_000, value_name = "MS")]
    pub context_ms: i64,
    /// Most rows to pull in all; more is an error (narrow with `--key`).
    #[arg(long, default_value_t = 2_000_000, value_name = "N")]
    pub max_rows: u64,
    /// Width of ClickHouse's time buckets for the overlap join, ms.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub bucket_ms: i64,
    /// Write the pulled rows (JSON Lines) here; default: a file in the
    /// cache directory, named on stderr.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Open the window on the pulled rows instead of printing the report.
    #[arg(long)]
    pub open: bool,
    /// With `--open`: take a screenshot of the window to this PNG and exit.
    #[arg(long, value_name = "PNG", requires = "open")]
    pub screenshot: Option<PathBuf>,
    /// Output format of the report.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Settings of the rules and the reading; `--mapping` names the table's
    /// columns.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// Longest row the server may send, bytes: a longer one is an error, not
/// a memory exhaustion.
pub const MAX_ROW_BYTES: u64 = 16 << 20;

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

/// A ClickHouse server's HTTP interface.
pub struct Client {
    agent: ureq::Agent,
    url: String,
    auth: String,
}

impl Client {
    /// A client for `url` with `user` and `password`.
    ///
    /// # Errors
    /// A URL that is not `http://` or `https://`, or an unreadable or empty
    /// `ca_file`.
    pub fn new(
        url: &str,
        user: &str,
        password: &str,
        ca_file: Option<&Path>,
        timeout: Duration,
    ) -> anyhow::Result<Client> {
        let url = url.trim_end_matches('/');
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            bail!("--url {url:?}: the HTTP interface's URL starts with http:// or https://");
        }
        let mut tls = ureq::tls::TlsConfig::builder();
        if let Some(ca) = ca_file {
            let pem = std::fs::read(ca).with_context(|| format!("cannot read {}", ca.display()))?;
            let certs: Vec<_> = ureq::tls::parse_pem(&pem)
                .filter_map(|item| match item {
                    Ok(ureq::tls::PemItem::Certificate(c)) => Some(c.to_owned()),
                    _ => None,
                })
                .collect();
            if certs.is_empty() {
                bail!("{}: no PEM certificate in it", ca.display());
            }
            tls = tls.root_certs(ureq::tls::RootCerts::new_with_certs(&certs));
        }
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .tls_config(tls.build())
            .build()
            .new_agent();
        let auth = basic_auth(user, password);
        Ok(Client {
            agent,
            url: url.to_string(),
            auth,
        })
    }

    /// Runs one statement in `session` (when given); the output in
    /// `format`, streamed to `sink` line by line.
    ///
    /// # Errors
    /// No connection, a timeout, or the server's error (its text and code).
    pub fn query_lines(
        &self,
        sql: &str,
        session: Option<&str>,
        format: &str,
        sink: &mut dyn FnMut(&str) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut req = self
            .agent
            .post(&self.url)
            .header("Authorization", &self.auth)
            .query("default_format", format)
            .query("output_format_json_quote_64bit_integers", "0");
        if let Some(s) = session {
            req = req.query("session_id", s);
        }
        let mut resp = req
            .send(sql.as_bytes())
            .map_err(|e| anyhow::anyhow!("ClickHouse at {}: {e}", self.url))?;
        let status = resp.status().as_u16();
        let code = resp_code(&resp);
        let reader = std::io::BufReader::new(resp.body_mut().as_reader());
        if status != 200 {
            let mut text = String::new();
            for line in reader.lines().take(20) {
                text.push_str(&line.unwrap_or_default());
                text.push('\n');
            }
            return Err(server_error(status, code, text.trim()));
        }
        let mut reader = reader;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            let n = (&mut reader)
                .take(MAX_ROW_BYTES + 1)
                .read_until(b'\n', &mut buf)
                .with_context(|| format!("reading ClickHouse's answer from {}", self.url))?;
            if n == 0 {
                return Ok(());
            }
            if n as u64 > MAX_ROW_BYTES {
                bail!(
                    "ClickHouse at {} sent a row over {} MiB",
                    self.url,
                    MAX_ROW_BYTES >> 20
                );
            }
            let line = String::from_utf8_lossy(&buf);
            let line = line.trim_end_matches(['\n', '\r']);
            if !line.trim().is_empty() {
                sink(line)?;
            }
        }
    }

    /// The server's version (`SELECT version()`), as `(major, text)`.
    ///
    /// # Errors
    /// As [`Client::query_lines`].
    pub fn version(&self) -> anyhow::Result<(u32, String)> {
        let mut text = String::new();
        self.query_lines("SELECT version()", None, "TabSeparated", &mut |l| {
            text = l.trim().to_string();
            Ok(())
        })?;
        let major = text
            .split('.')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        Ok((major, text))
    }
}

fn resp_code(resp: &ureq::http::Response<ureq::Body>) -> Option<String> {
    resp.headers()
        .get("X-ClickHouse-Exception-Code")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The server's error as our message: authentication named as such.
fn server_error(status: u16, code: Option<String>, text: &str) -> anyhow::Error {
    let text = crate::report::terminal_safe(text);
    let is_auth = status == 401
        || status == 403
        || code.as_deref() == Some("516")
        || code.as_deref() == Some("192")
        || text.contains("Authentication failed")
        || text.contains("Wrong password");
    if is_auth {
        anyhow::anyhow!(
            "ClickHouse refused the credentials (HTTP {status}): {text}\n\
             set CLICKHOUSE_USER and CLICKHOUSE_PASSWORD, or --user and --password-file"
        )
    } else {
        anyhow::anyhow!("ClickHouse answered HTTP {status}: {text}")
    }
}

/// The HTTP basic auth header's value (RFC 7617) for `user` and `password`.
fn basic_auth(user: &str, password: &str) -> String {
    use base64::Engine as _;
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!("Basic {token}")
}

/// A time given as RFC 3339 or integer ns since the epoch, in ns.
///
/// # Errors
/// Neither.
pub fn parse_instant(flag: &str, v: &str) -> anyhow::Result<i64> {
    if let Ok(ns) = v.trim().parse::<i64>() {
        return Ok(ns);
    }
    chrono::DateTime::parse_from_rfc3339(v.trim())
        .ok()
        .and_then(|t| t.timestamp_nanos_opt())
        .with_context(|| format!("{flag} {v:?} is neither RFC 3339 nor ns since the epoch"))
}

/// The statements of a generated ClickHouse script: each ends with `;` at
/// a line's end; comment-only pieces are dropped.
pub fn statements(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in script.lines() {
        let trimmed = line.trim_end();
        if let Some(body) = trimmed.strip_suffix(';') {
            cur.push_str(body);
            push_statement(&mut out, &mut cur);
        } else {
            cur.push_str(line);
            cur.push('\n');
        }
    }
    push_statement(&mut out, &mut cur);
    out
}

fn push_statement(out: &mut Vec<String>, cur: &mut String) {
    let text = std::mem::take(cur);
    let has_code = text
        .lines()
        .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with("--"));
    if has_code {
        out.push(text);
    }
}

impl FetchArgs {
    fn spec(&self, select: Select) -> anyhow::Result<QuerySpec> {
        let settings = self
            .analysis
            .settings(&crate::analysis::Settings::default())?;
        let mut spec = QuerySpec::new(Dialect::Clickhouse, &self.table);
        if let Some(path) = &self.analysis.read.mapping {
            let m = crate::ingest::Mapping::from_path(path)?;
            spec = spec
                .with_mapping(&m)
                .with_context(|| format!("mapping {}", path.display()))?;
        }
        // The pull pastes the table into its own query: the same check as
        // the rules' query (the key column is quoted as an identifier).
        super::check("table", &spec.table)?;
        spec.time_unit = self.time_unit;
        spec.select = select;
        spec.bucket_ms = crate::cli::check_int("--bucket-ms", self.bucket_ms, 1, 86_400_000)?;
        spec.log_lag_ms = settings.log_lag_tolerance_ms;
        spec.near_miss_ratio = settings.near_miss_ratio;
        spec.near_miss_streak = settings.near_miss_streak;
        Ok(spec)
    }

    fn client(&self) -> anyhow::Result<Client> {
        let url = self
            .url
            .clone()
            .or_else(|| std::env::var("CLICKHOUSE_URL").ok())
            .context("no server: give --url http://HOST:8123 or set CLICKHOUSE_URL")?;
        let user = self
            .user
            .clone()
            .or_else(|| std::env::var("CLICKHOUSE_USER").ok())
            .unwrap_or_else(|| "default".into());
        let password = match &self.password_file {
            Some(p) => std::fs::read_to_string(p)
                .with_context(|| format!("cannot read the password file {}", p.display()))?
                .lines()
                .next()
                .unwrap_or("")
                .to_string(),
            None => std::env::var("CLICKHOUSE_PASSWORD").unwrap_or_default(),
        };
        let timeout = Duration::from_secs(crate::cli::check_int(
            "--timeout-s",
            i64::try_from(self.timeout_s).unwrap_or(i64::MAX),
            1,
            86_400,
        )? as u64);
        Client::new(&url, &user, &password, self.ca_file.as_deref(), timeout)
    }

    /// The listing: the rules' `keys` query, run as one session.
    ///
    /// # Errors
    /// A server without window functions (said with its version), or any
    /// error of [`Client::query_lines`].
    pub fn list_keys(&self, client: &Client, spec: &QuerySpec) -> anyhow::Result<Vec<KeyRow>> {
        let (major, version) = client.version()?;
        if major < 21 {
            bail!(
                "ClickHouse {version} has no window functions (21.1 or later), which the rules' query needs; \
                 pull rows without the listing: --key KEY --since TIME --until TIME"
            );
        }
        let script = super::generate(spec)?;
        let session = format!(
            "lockreplay-{}-{}",
            std::process::id(),
            chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0)
        );
        let stmts = statements(&script);
        let mut rows = Vec::new();
        for (i, st) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len();
            client
                .query_lines(st, Some(&session), "JSONCompactEachRow", &mut |line| {
                    if last {
                        rows.push(parse_key_row(line)?);
                    }
                    Ok(())
                })
                .with_context(|| {
                    format!("the rules' query, statement {} of {}", i + 1, stmts.len())
                })?;
        }
        Ok(rows)
    }

    /// The rows of `key` from `lo_ns` (inclusive) to `hi_ns` (exclusive),
    /// with the rows without a key in that time (business events), as
    /// JSON Lines.
    fn pull_sql(&self, spec: &QuerySpec, key: &str, lo_ns: i64, hi_ns: i64) -> String {
        let ts = super::time_expr(spec);
        let k = super::column(spec, &spec.columns.key);
        format!(
            "SELECT * FROM {table} WHERE ({k} = {key} OR {k} IS NULL OR {k} = '') \
             AND ({ts}) >= {lo_ns} AND ({ts}) < {hi_ns} ORDER BY ({ts}) LIMIT {lim}",
            table = spec.table,
            key = super::quote::sql_string(Dialect::Clickhouse, key),
            lim = self.max_rows.saturating_add(1),
        )
    }
}

fn parse_key_row(line: &str) -> anyhow::Result<KeyRow> {
    let v: serde_json::Value =
        serde_json::from_str(line).with_context(|| format!("ClickHouse row {line:?}"))?;
    let num = |i: usize| -> i64 {
        let x = &v[i];
        x.as_i64()
            .or_else(|| x.as_str().and_then(|s| s.parse().ok()))
            .unwrap_or(0)
    };
    Ok(KeyRow {
        key: v[0].as_str().unwrap_or_default().to_string(),
        pairs: u64::try_from(num(1)).unwrap_or(0),
        first_ns: num(2),
        last_ns: num(3),
        cause: v[4].as_str().unwrap_or_default().to_string(),
    })
}

/// A key's rows to pull: `(key, lo_ns, hi_ns, pairs the server counted)`
/// (no count when pulled by `--since`/`--until`).
type PullWindow = (String, i64, i64, Option<u64>);

/// The windows to pull.
fn windows(args: &FetchArgs, listed: &[KeyRow]) -> anyhow::Result<Vec<PullWindow>> {
    let ctx_ns =
        crate::cli::check_int("--context-ms", args.context_ms, 0, 31 * 86_400_000)? * 1_000_000;
    if let (Some(s), Some(u)) = (&args.since, &args.until) {
        let (lo, hi) = (parse_instant("--since", s)?, parse_instant("--until", u)?);
        if hi <= lo {
            bail!("--until must be after --since");
        }
        return Ok(args
            .keys
            .iter()
            .map(|k| (k.clone(), lo, hi, None))
            .collect());
    }
    let chosen: Vec<&KeyRow> = if args.keys.is_empty() {
        listed.iter().take(args.top.max(1)).collect()
    } else {
        let found: Vec<&KeyRow> = listed
            .iter()
            .filter(|r| args.keys.contains(&r.key))
            .collect();
        for k in &args.keys {
            if !found.iter().any(|r| &r.key == k) {
                eprintln!(
                    "lockreplay: key {} has no overlap pair on the server; nothing pulled for it",
                    crate::report::terminal_safe(k)
                );
            }
        }
        found
    };
    Ok(chosen
        .into_iter()
        .map(|r| {
            (
                r.key.clone(),
                r.first_ns.saturating_sub(ctx_ns),
                r.last_ns.saturating_add(ctx_ns).saturating_add(1),
                Some(r.pairs),
            )
        })
        .collect())
}

/// Runs `lockreplay fetch`; `window` opens the window (`--open`).
///
/// # Errors
/// Bad flags, the server's errors, the row cap, an unwritable output.
pub fn run(
    args: &FetchArgs,
    window: Option<fn(&crate::cli::Cli) -> anyhow::Result<u8>>,
) -> anyhow::Result<u8> {
    if args.since.is_some() && args.keys.is_empty() {
        bail!("--since and --until pull the rows of the keys named with --key");
    }
    if args.open && window.is_none() {
        bail!("this build has no window (built without the `gui` feature); drop --open");
    }
    let client = args.client()?;
    let spec = args.spec(Select::Keys)?;
    let listed = if args.since.is_some() {
        Vec::new()
    } else {
        let rows = args.list_keys(&client, &spec)?;
        print_listing(&rows);
        rows
    };
    if args.list {
        return Ok(crate::pipeline::EXIT_CLEAN);
    }
    let wins = windows(args, &listed)?;
    if wins.is_empty() {
        eprintln!(
            "lockreplay: no key with overlap pairs in {}; nothing to pull",
            args.table
        );
        return Ok(crate::pipeline::EXIT_CLEAN);
    }
    let out = match &args.out {
        Some(p) => p.clone(),
        None => default_out(&args.table)?,
    };
    let rows = pull(args, &client, &spec, &wins, &out)?;
    eprintln!(
        "lockreplay: {rows} row(s) of {} key(s) pulled to {}",
        wins.len(),
        crate::report::terminal_safe(&out.display().to_string())
    );
    replay(args, &out, &wins, window)
}

fn print_listing(rows: &[KeyRow]) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "lockreplay: {} key(s) with overlap pairs on the server",
        rows.len()
    );
    for r in rows.iter().take(50) {
        let first = crate::report::format_rfc3339(r.first_ns, 0);
        let _ = writeln!(
            err,
            "  {:>5} pair(s)  {first}  {}  ({})",
            r.pairs,
            crate::report::terminal_safe(&r.key),
            r.cause
        );
    }
    if rows.len() > 50 {
        let _ = writeln!(err, "  ... and {} more", rows.len() - 50);
    }
}

fn default_out(table: &str) -> anyhow::Result<PathBuf> {
    let dir = crate::ingest::CacheConfig::from_env(true)
        .dir
        .context("no cache directory here; give --out FILE")?
        .join("fetch");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let safe: String = table
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S");
    Ok(dir.join(format!("{safe}-{stamp}.jsonl")))
}

/// Pulls each window's rows into `out` (atomically), at most
/// `--max-rows` in all.
fn pull(
    args: &FetchArgs,
    client: &Client,
    spec: &QuerySpec,
    wins: &[PullWindow],
    out: &Path,
) -> anyhow::Result<u64> {
    crate::fsio::write_atomic_with(out, &[], |w| {
        let mut n = 0u64;
        for (key, lo, hi, _) in wins {
            let sql = args.pull_sql(spec, key, *lo, *hi);
            client.query_lines(&sql, None, "JSONEachRow", &mut |line| {
                n += 1;
                if n > args.max_rows {
                    bail!(
                        "the pull passed --max-rows {}; name fewer keys with --key, lower --context-ms, or raise --max-rows",
                        args.max_rows
                    );
                }
                writeln!(w, "{line}").context("writing the pulled rows")
            })?;
        }
        Ok(n)
    })
}

/// The report (or the window) on the pulled rows; a key whose pulled rows
/// give fewer overlap pairs than the server counted is said (the holds
/// began before the context).
fn replay(
    args: &FetchArgs,
    out: &Path,
    wins: &[PullWindow],
    window: Option<fn(&crate::cli::Cli) -> anyhow::Result<u8>>,
) -> anyhow::Result<u8> {
    let files = vec![out.to_path_buf()];
    if let (true, Some(open)) = (args.open, window) {
        let cli = crate::cli::Cli {
            command: None,
            files,
            screenshot: args.screenshot.clone(),
            cursor: None,
            whatif: false,
            lang: None,
            analysis: args.analysis.clone(),
        };
        return open(&cli);
    }
    let loaded = args.analysis.load(&files)?;
    for (key, _, _, server) in wins {
        let Some(server) = server else { continue };
        let here = loaded
            .analysis
            .incidents
            .iter()
            .filter(|i| loaded.log.strings.get_or_empty(Some(i.key)) == key.as_str())
            .map(|i| (i.overlaps.len() + i.overlaps_unlisted) as u64)
            .sum::<u64>();
        if here != *server {
            eprintln!(
                "lockreplay: key {}: the server counted {server} overlap pair(s), the pulled rows give {here}; \
                 widen --context-ms",
                crate::report::terminal_safe(key)
            );
        }
    }
    let printer = args.format.printer();
    Ok(crate::pipeline::print_report(loaded, printer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_splits_into_its_statements_without_comment_only_pieces() {
        let spec = QuerySpec {
            select: Select::Keys,
            ..QuerySpec::new(Dialect::Clickhouse, "t")
        };
        let script = super::super::generate(&spec).expect("ok");
        let st = statements(&script);
        assert!(
            st[0].trim_start().starts_with("SET join_use_nulls")
                || st[0].contains("SET join_use_nulls")
        );
        assert!(st.iter().all(|s| !s.trim_end().ends_with(';')));
        assert!(st.last().expect("a query").contains("GROUP BY e_key"));
        assert_eq!(
            st.iter()
                .filter(|s| s.contains("CREATE TEMPORARY TABLE"))
                .count(),
            super::super::MATERIALIZED.len()
        );
        assert_eq!(
            statements("-- only a comment\n;\nSELECT 1;\n"),
            vec!["SELECT 1".to_string()]
        );
    }

    #[test]
    fn literals_credentials_and_times() {
        assert_eq!(
            super::super::quote::sql_string(Dialect::Clickhouse, "a'b\\c"),
            "'a\\'b\\\\c'"
        );
        // RFC 7617 §2's example.
        assert_eq!(
            basic_auth("Aladdin", "open sesame"),
            "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
        );
        assert_eq!(
            parse_instant("--since", "1700000000000000000").expect("ns"),
            1_700_000_000_000_000_000
        );
        assert_eq!(
            parse_instant("--since", "2023-11-14T22:13:20+00:00").expect("rfc3339"),
            1_700_000_000_000_000_000
        );
        assert!(parse_instant("--since", "yesterday").is_err());
        let row = parse_key_row(r#"["lock:1",3,"100","200","lease_expired"]"#).expect("row");
        assert_eq!((row.pairs, row.first_ns, row.last_ns), (3, 100, 200));
        assert!(
            server_error(401, None, "Code: 193")
                .to_string()
                .contains("refused the credentials")
        );
        assert!(
            !server_error(500, Some("62".into()), "Code: 62. Syntax error")
                .to_string()
                .contains("credentials")
        );
    }
}

//! `lockreplay fetch`: runs the rules' query ([`super::generate`],
//! `--select keys`) on a ClickHouse server over its HTTP interface (or on
//! every shard of a cluster, [`super::listing`]), lists the lock keys with
//! overlap pairs fleet-wide, pulls only the rows of the chosen keys around
//! their incidents into a JSON Lines file (and the business rows beside
//! it), and replays that as any other log (the report, or the window with
//! `--open`).
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

use super::{Dialect, QuerySpec};
use crate::config::{AnalysisConfig, ReadConfig, ReportConfig, WindowConfig};
use crate::pipeline::OpenWindow;

/// What `lockreplay fetch` does, its flags resolved (`cli`).
pub struct FetchConfig {
    /// The server and its credentials.
    pub server: ServerConfig,
    /// The rules' query that lists the keys (`Select::Keys`): its table,
    /// columns and settings.
    pub spec: QuerySpec,
    /// Only list the keys with overlap pairs; pull nothing.
    pub list: bool,
    /// Pull these keys instead of the listing's top ones.
    pub keys: Vec<String>,
    /// With `keys`: the rows to pull, `[lo, hi)` ns since the epoch,
    /// without asking the server for the listing.
    pub range_ns: Option<(i64, i64)>,
    /// The cluster whose shards each hold `spec.table` (sharded by lock
    /// key): the listing runs on every shard, the pull reads them all.
    pub cluster: Option<String>,
    /// The shards' HTTP interfaces, when not the server's URL with each
    /// shard's host.
    pub shard_urls: Vec<String>,
    /// A second table whose rows in each pulled window are the business
    /// events (stock, orders), written beside the pulled rows.
    pub business_table: Option<String>,
    /// A condition selecting business rows: of `business_table`, or else of
    /// the lock table itself (its other events).
    pub business_where: Option<String>,
    /// How many of the listed keys to pull (most overlap pairs first).
    pub top: usize,
    /// Rows pulled before each key's first overlap and after its last, ns.
    pub context_ns: i64,
    /// Most rows to pull in all; more is an error.
    pub max_rows: u64,
    /// Where to write the pulled rows; a file in the cache directory when
    /// `None`.
    pub out: Option<PathBuf>,
    /// Open the window on the pulled rows instead of printing the report.
    pub open: bool,
    /// With `open`: take a screenshot of the window to this PNG and exit.
    pub screenshot: Option<PathBuf>,
    /// How the report is printed.
    pub report: ReportConfig,
    /// How the pulled rows are read.
    pub read: ReadConfig,
    /// The analysis settings.
    pub analysis: AnalysisConfig,
    /// The files `fetch` reads (the mapping, the password file, the CA
    /// file): `out` may be none of them.
    pub inputs: Vec<PathBuf>,
}

/// A ClickHouse server's HTTP interface and its credentials.
#[derive(Clone)]
pub struct ServerConfig {
    /// `http://HOST:8123` or `https://HOST:8443`.
    pub url: String,
    /// User.
    pub user: String,
    /// Password (empty for none).
    pub password: String,
    /// PEM file of the certificate authority of `https://` (the Mozilla
    /// roots when `None`).
    pub ca_file: Option<PathBuf>,
    /// How long a request may take, connection included.
    pub timeout: Duration,
}

/// Longest row the server may send, bytes: a longer one is an error, not
/// a memory exhaustion.
pub const MAX_ROW_BYTES: u64 = 16 << 20;

/// Most bytes of a server's error answer read (its first lines say what
/// went wrong).
pub const MAX_ERROR_BYTES: u64 = 64 << 10;

/// Most characters of a server's error answer shown.
pub const MAX_ERROR_CHARS: usize = 2000;

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
        let (url, _) = split_credentials(url.trim_end_matches('/'));
        let url = url.as_str();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            bail!(
                "--url {:?}: the HTTP interface's URL starts with http:// or https://",
                crate::report::terminal_safe(url)
            );
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
            let mut head = Vec::new();
            let _ = reader.take(MAX_ERROR_BYTES).read_to_end(&mut head);
            let text: String = String::from_utf8_lossy(&head)
                .lines()
                .take(20)
                .collect::<Vec<_>>()
                .join("\n")
                .chars()
                .take(MAX_ERROR_CHARS)
                .collect();
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

/// `url` with the credentials of its userinfo (`http://user:password@host`,
/// RFC 3986 §3.2.1) taken out, and those credentials percent-decoded. The
/// URL returned carries none, so it can be printed.
pub fn split_credentials(url: &str) -> (String, Option<(String, String)>) {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return (url.to_string(), None);
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return (url.to_string(), None);
    };
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let userinfo = &rest[..at];
    let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    let clean = format!("{}{}", &url[..scheme_end], &rest[at + 1..]);
    (clean, Some((decode(user), decode(password))))
}

/// The most bytes of a password file read (its first line is the
/// password).
pub const MAX_PASSWORD_FILE_BYTES: u64 = 64 << 10;

/// The first line of the password file at `path`, reading at most
/// [`MAX_PASSWORD_FILE_BYTES`] (a device such as `/dev/zero` is not read
/// without end).
///
/// # Errors
/// An unreadable file, or no line end within the limit.
pub fn read_password_file(path: &Path) -> anyhow::Result<String> {
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_PASSWORD_FILE_BYTES).read_to_end(&mut head))
        .with_context(|| format!("cannot read the password file {}", path.display()))?;
    let text = String::from_utf8_lossy(&head);
    if head.len() as u64 >= MAX_PASSWORD_FILE_BYTES && !text.contains('\n') {
        bail!(
            "the password file {} has no line end in its first {} KiB: not a password file",
            path.display(),
            MAX_PASSWORD_FILE_BYTES >> 10
        );
    }
    Ok(text.lines().next().unwrap_or("").to_string())
}

/// The HTTP basic auth header's value (RFC 7617) for `user` and `password`.
fn basic_auth(user: &str, password: &str) -> String {
    use base64::Engine as _;
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!("Basic {token}")
}

impl Client {
    /// A client for the server of `c`.
    ///
    /// # Errors
    /// As [`Client::new`].
    pub fn of(c: &ServerConfig) -> anyhow::Result<Client> {
        Client::new(
            &c.url,
            &c.user,
            &c.password,
            c.ca_file.as_deref(),
            c.timeout,
        )
    }
}

/// The query pulling `key`'s rows from `lo_ns` (inclusive) to `hi_ns`
/// (exclusive) out of `source` (the table, or the cluster's), with the
/// rows of no key in that time and those `business_where` selects
/// (business events in the same table; with a business table, only the
/// key's lock and work rows), in the rules' order: time, `seq`,
/// holder, then acquire, renewal, other lines, closing lines (docs/sql.md),
/// so a tie within an instant reads as the query read it. `--where`
/// applies to the key's rows. One more than `max_rows` at most.
fn pull_sql(c: &FetchConfig, source: &str, key: &str, lo_ns: i64, hi_ns: i64) -> String {
    let spec = &c.spec;
    let ts = super::time_expr(spec);
    let k = super::column(spec, &spec.columns.key);
    let mine = match &spec.filter {
        Some(f) => format!(
            "({k} = {} AND ({f}))",
            super::quote::sql_string(Dialect::Clickhouse, key)
        ),
        None => format!(
            "{k} = {}",
            super::quote::sql_string(Dialect::Clickhouse, key)
        ),
    };
    // With a business table, its rows are the business events: this
    // table's business rows (without their numbers, as a lock table often
    // has them) would count each sale twice.
    let rows = match (&c.business_table, &c.business_where) {
        (Some(_), _) => format!(
            "{mine} AND {} != {}",
            super::perkey::kind_code(spec),
            super::perkey::BUSINESS_KIND
        ),
        (None, Some(b)) => format!("{mine} OR {k} IS NULL OR {k} = '' OR ({b})"),
        (None, None) => format!("{mine} OR {k} IS NULL OR {k} = ''"),
    };
    format!(
        "SELECT * FROM {source} WHERE ({rows}) \
         AND ({ts}) >= {lo_ns} AND ({ts}) < {hi_ns} ORDER BY ({ts}), {order} LIMIT {lim}",
        order = super::perkey::tie_order(spec),
        lim = c.max_rows.saturating_add(1),
    )
}

/// The query pulling the rows of the business table from `lo_ns` to
/// `hi_ns` by the lock table's time column, in time order.
fn business_sql(c: &FetchConfig, table: &str, lo_ns: i64, hi_ns: i64) -> String {
    let ts = super::time_expr(&c.spec);
    let cond = c
        .business_where
        .as_ref()
        .map_or(String::new(), |b| format!(" AND ({b})"));
    format!(
        "SELECT * FROM {table} WHERE ({ts}) >= {lo_ns} AND ({ts}) < {hi_ns}{cond} ORDER BY ({ts}) LIMIT {lim}",
        lim = c.max_rows.saturating_add(1),
    )
}

/// A key's rows to pull: `(key, lo_ns, hi_ns, pairs the server counted)`
/// (no count when pulled by `--since`/`--until`).
type PullWindow = (String, i64, i64, Option<u64>);

/// The windows to pull.
fn windows(c: &FetchConfig, listed: &[KeyRow]) -> Vec<PullWindow> {
    let ctx_ns = c.context_ns;
    if let Some((lo, hi)) = c.range_ns {
        return c.keys.iter().map(|k| (k.clone(), lo, hi, None)).collect();
    }
    let chosen: Vec<&KeyRow> = if c.keys.is_empty() {
        listed.iter().take(c.top.max(1)).collect()
    } else {
        let found: Vec<&KeyRow> = listed.iter().filter(|r| c.keys.contains(&r.key)).collect();
        for k in &c.keys {
            if !found.iter().any(|r| &r.key == k) {
                eprintln!(
                    "lockreplay: key {} has no overlap pair on the server; nothing pulled for it",
                    crate::report::terminal_safe(k)
                );
            }
        }
        found
    };
    chosen
        .into_iter()
        .map(|r| {
            (
                r.key.clone(),
                r.first_ns.saturating_sub(ctx_ns),
                r.last_ns.saturating_add(ctx_ns).saturating_add(1),
                Some(r.pairs),
            )
        })
        .collect()
}

/// Runs `lockreplay fetch` as `c` says; `window` opens the window
/// (`open`).
///
/// # Errors
/// A bad URL or authority file, a table or key column the pull cannot
/// carry, the server's errors, the row cap, an unwritable output.
pub fn run(c: &FetchConfig, window: Option<OpenWindow>) -> anyhow::Result<u8> {
    let client = Client::of(&c.server)?;
    // The pull pastes the tables and conditions into its own queries: the
    // same check as the rules' query (the key column is quoted as an
    // identifier).
    super::check("table", &c.spec.table)?;
    for (what, v) in [
        ("--business-table", &c.business_table),
        ("--business-where", &c.business_where),
    ] {
        if let Some(v) = v {
            super::check(what, v)?;
        }
    }
    let source = match &c.cluster {
        Some(name) => super::listing::cluster_source(name, &c.spec.table)?,
        None => c.spec.table.clone(),
    };
    let listed = if c.range_ns.is_some() {
        Vec::new()
    } else {
        let (rows, shards) = match &c.cluster {
            Some(name) => super::listing::list_cluster(&c.server, name, &c.shard_urls, &c.spec)?,
            None => (super::listing::list_keys(&client, &c.spec)?, 1),
        };
        print_listing(&rows, shards);
        rows
    };
    if c.list {
        return Ok(crate::pipeline::EXIT_CLEAN);
    }
    let wins = windows(c, &listed);
    if wins.is_empty() {
        eprintln!(
            "lockreplay: no key with overlap pairs in {}; nothing to pull",
            c.spec.table
        );
        return Ok(crate::pipeline::EXIT_CLEAN);
    }
    let out = match &c.out {
        Some(p) => p.clone(),
        None => default_out(&c.spec.table)?,
    };
    let mut files = vec![out.clone()];
    let mut rows = pull(c, &client, &wins, &out, |k, lo, hi| {
        pull_sql(c, &source, k, lo, hi)
    })?;
    if let Some(table) = &c.business_table {
        let beside = business_out(&out);
        rows += pull(
            c,
            &client,
            &business_windows(&wins),
            &beside,
            |_, lo, hi| business_sql(c, table, lo, hi),
        )?;
        files.push(beside);
    }
    let names: Vec<String> = files
        .iter()
        .map(|f| crate::report::terminal_safe(&f.display().to_string()).into_owned())
        .collect();
    eprintln!(
        "lockreplay: {rows} row(s) of {} key(s) pulled to {}",
        wins.len(),
        names.join(" and ")
    );
    replay(c, &files, &wins, window)
}

/// Where the business table's rows go: beside `out`, `NAME.business.jsonl`
/// (a file of its own, read with its own fields).
fn business_out(out: &Path) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or_else(|| "pulled".into(), |s| s.to_string_lossy().into_owned());
    out.with_file_name(format!("{stem}.business.jsonl"))
}

/// The pulled windows merged where they overlap (one business row is
/// pulled once).
fn business_windows(wins: &[PullWindow]) -> Vec<PullWindow> {
    let mut spans: Vec<(i64, i64)> = wins.iter().map(|w| (w.1, w.2)).collect();
    spans.sort_unstable();
    let mut merged: Vec<(i64, i64)> = Vec::new();
    for (lo, hi) in spans {
        match merged.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    merged
        .into_iter()
        .map(|(lo, hi)| (String::new(), lo, hi, None))
        .collect()
}

fn print_listing(rows: &[KeyRow], shards: usize) {
    let mut err = std::io::stderr().lock();
    let on = if shards > 1 {
        format!("on {shards} shards")
    } else {
        "on the server".to_string()
    };
    let _ = writeln!(
        err,
        "lockreplay: {} key(s) with overlap pairs {on}",
        rows.len()
    );
    for r in rows.iter().take(50) {
        let first = crate::report::format_rfc3339(r.first_ns, 0);
        let _ = writeln!(
            err,
            "  {:>5} pair(s)  {first}  {}  ({})",
            r.pairs,
            crate::report::terminal_safe(&r.key),
            crate::report::terminal_safe(&r.cause)
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

/// Pulls each window's rows, by the query `sql(key, lo_ns, hi_ns)`, into
/// `out` (atomically), at most `--max-rows` in all.
fn pull(
    c: &FetchConfig,
    client: &Client,
    wins: &[PullWindow],
    out: &Path,
    sql: impl Fn(&str, i64, i64) -> String,
) -> anyhow::Result<u64> {
    crate::fsio::write_atomic_with(out, &c.inputs, |w| {
        let mut n = 0u64;
        for (key, lo, hi, _) in wins {
            client.query_lines(&sql(key, *lo, *hi), None, "JSONEachRow", &mut |line| {
                n += 1;
                if n > c.max_rows {
                    bail!(
                        "the pull passed --max-rows {}; name fewer keys with --key, lower --context-ms, or raise --max-rows",
                        c.max_rows
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
/// began before the context), and so is a loss the rows cannot give.
fn replay(
    c: &FetchConfig,
    files: &[PathBuf],
    wins: &[PullWindow],
    window: Option<OpenWindow>,
) -> anyhow::Result<u8> {
    if let (true, Some(open)) = (c.open, window) {
        return open(&WindowConfig {
            files: files.to_vec(),
            screenshot: c.screenshot.clone(),
            read: c.read.clone(),
            analysis: c.analysis.clone(),
            ..WindowConfig::default()
        });
    }
    let loaded = crate::pipeline::load_files(files, &c.read, c.analysis.settings())?;
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
    if let Some(why) = loss_unknown(&loaded.analysis) {
        eprintln!(
            "lockreplay: the loss is unknown, not the report's figure: {why}. Oversell needs the stock level \
             (stock_initialized, a stock read or stock_after) and the orders or deductions; pull the business rows \
             with --business-table TABLE, or --business-where SQL for this table's other events"
        );
    }
    Ok(crate::pipeline::print_report(loaded, c.report.printer()))
}

/// Why the pulled rows cannot give the loss of their incidents (§7 of
/// docs/semantics.md): no sale in them, or sales of a product without
/// any stock level. `None` when they can, or when there is no incident.
fn loss_unknown(analysis: &crate::analysis::Analysis) -> Option<String> {
    if analysis.incidents.is_empty() {
        return None;
    }
    let sold: Vec<_> = analysis.products.iter().filter(|p| p.sales > 0).collect();
    if sold.is_empty() {
        return Some("the pulled rows hold no sale (no order and no stock deduction)".to_string());
    }
    let blind = sold
        .iter()
        .filter(|p| p.initial_stock.is_none() && p.final_stock.is_none())
        .count();
    (blind > 0).then(|| {
        format!(
            "{blind} of {} product(s) sold in the pulled rows have no stock level in them",
            sold.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::Dialect;

    #[test]
    fn credentials_come_out_of_the_url_percent_decoded() {
        assert_eq!(
            split_credentials("http://ann%40shop:p%3Ass@ch.local:8123/?db=x"),
            (
                "http://ch.local:8123/?db=x".to_string(),
                Some(("ann@shop".to_string(), "p:ss".to_string()))
            )
        );
        assert_eq!(
            split_credentials("https://h:8443"),
            ("https://h:8443".to_string(), None)
        );
        // An @ after the authority is no userinfo.
        assert_eq!(split_credentials("http://h/a@b").1, None);
        assert_eq!(
            split_credentials("http://bob@h").1,
            Some(("bob".to_string(), String::new()))
        );
    }

    #[test]
    fn literals_and_credentials() {
        assert_eq!(
            super::super::quote::sql_string(Dialect::Clickhouse, "a'b\\c"),
            "'a\\'b\\\\c'"
        );
        // RFC 7617 §2's example.
        assert_eq!(
            basic_auth("Aladdin", "open sesame"),
            "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
        );
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

//! `lockreplay fetch`: runs the rules' query ([`super::generate`],
//! `--select keys`) on a ClickHouse server over its HTTP interface (or on
//! every shard of a cluster, [`super::listing`]), lists the lock keys with
//! overlap pairs fleet-wide, pulls only the rows of the chosen keys around
//! their incidents into a JSON Lines file (and the business rows beside
//! it), and replays that as any other log (the report, or the window with
//! `--open`). The server is spoken to through [`super::client`].

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::client::{Client, ServerConfig};
use super::listing::KeyRow;
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
    let mut pulled = std::collections::BTreeMap::new();
    pulled.insert(out.display().to_string(), source.clone());
    let mut rows = pull(c, &client, &wins, &out, |k, lo, hi| {
        pull_sql(c, &source, k, lo, hi)
    })?;
    if let Some(table) = &c.business_table {
        let beside = business_out(&out);
        pulled.insert(beside.display().to_string(), table.clone());
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
    let read = ReadConfig {
        pulled,
        ..c.read.clone()
    };
    replay(c, &files, &read, &wins, window)
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
    let _ = std::io::stderr()
        .lock()
        .write_all(listing_text(rows, shards).as_bytes());
}

/// What `fetch` says of the listing on stderr: how many keys have overlap
/// pairs, then the first 50, each with its pairs, first overlap, key and
/// cause (the key and cause, the server's text, escaped for a terminal).
pub fn listing_text(rows: &[KeyRow], shards: usize) -> String {
    let mut s = String::new();
    let on = if shards > 1 {
        format!("on {shards} shards")
    } else {
        "on the server".to_string()
    };
    let _ = writeln!(
        s,
        "lockreplay: {} key(s) with overlap pairs {on}",
        rows.len()
    );
    for r in rows.iter().take(50) {
        let first = crate::report::format_rfc3339(r.first_ns, 0);
        let _ = writeln!(
            s,
            "  {:>5} pair(s)  {first}  {}  ({})",
            r.pairs,
            crate::report::terminal_safe(&r.key),
            crate::report::terminal_safe(&r.cause)
        );
    }
    if rows.len() > 50 {
        let _ = writeln!(s, "  ... and {} more", rows.len() - 50);
    }
    s
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
                write_pulled_row(w, &mut n, c.max_rows, line)
            })?;
        }
        Ok(n)
    })
}

/// Writes the pulled row `line` to `w` as one line, `n` the rows written
/// so far (counted up); at most `max_rows` in all.
///
/// # Errors
/// The row past `max_rows`, or a failed write.
pub fn write_pulled_row(
    w: &mut dyn Write,
    n: &mut u64,
    max_rows: u64,
    line: &str,
) -> anyhow::Result<()> {
    *n += 1;
    if *n > max_rows {
        bail!(
            "the pull passed --max-rows {max_rows}; name fewer keys with --key, lower --context-ms, or raise --max-rows"
        );
    }
    writeln!(w, "{line}").context("writing the pulled rows")
}

/// The report (or the window) on the pulled rows, read as `read` says
/// (which names them as pulled: a loss they cannot give is a problem of
/// the run, `analysis::Problem::PulledLossUnknown`); a key whose pulled
/// rows give fewer overlap pairs than the server counted is said (the
/// holds began before the context).
fn replay(
    c: &FetchConfig,
    files: &[PathBuf],
    read: &ReadConfig,
    wins: &[PullWindow],
    window: Option<OpenWindow>,
) -> anyhow::Result<u8> {
    if let (true, Some(open)) = (c.open, window) {
        return open(&WindowConfig {
            files: files.to_vec(),
            screenshot: c.screenshot.clone(),
            read: read.clone(),
            analysis: c.analysis.clone(),
            ..WindowConfig::default()
        });
    }
    let loaded = crate::pipeline::load_files(files, read, c.analysis.settings())?;
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
    Ok(crate::pipeline::print_report(loaded, c.report.printer()))
}

//! The command line as clap reads it: the flags of every subcommand, as
//! given. [`super::resolve`] checks them and turns them into the plain
//! settings of [`crate::config`], which the rest of the program takes.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::sim;
use crate::sql::alerts::Store;
use crate::sql::{Dialect, Select, TimeUnit};

/// lockreplay: replays distributed-lock incidents from their logs.
///
/// With no subcommand it opens the window on the given files, or on an
/// embedded sample when none are given.
#[derive(Debug, Parser)]
#[command(name = "lockreplay", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// What to do; the window when absent.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Log files to open in the window.
    pub files: Vec<PathBuf>,
    /// Take a screenshot of the window once loaded, write it to this PNG and
    /// exit (for CI and headless checks).
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<PathBuf>,
    /// Place the replay's time cursor in the window: an RFC 3339 time
    /// (`2026-11-29T16:10:44.650+08:00`) or `+MS`, milliseconds after the
    /// first event.
    #[arg(long, value_name = "RFC3339|+MS")]
    pub cursor: Option<String>,
    /// Open the What-if view (a watchdog tried on the incident's key, its
    /// replay docked under the key's lanes);
    /// with `--screenshot`, it is in the picture.
    #[arg(long)]
    pub whatif: bool,
    /// Language of the window, `en` or `zh` (Simplified Chinese); kept as
    /// the Settings menu's choice is.
    #[arg(long, value_enum)]
    pub lang: Option<ReportLang>,
    /// Analysis settings for the window (override the saved ones).
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Analyse logs and print the incidents.
    Analyze(AnalyzeArgs),
    /// Write a report folder: report.md, incidents.json/csv, findings.csv,
    /// trace.json, and a picture per incident.
    Report(ReportArgs),
    /// Render the swimlane timeline to a PNG without a window.
    Render(RenderArgs),
    /// Write a simulated flash sale as app-style JSON Lines.
    Simulate(SimulateArgs),
    /// Replay the incident under another lock policy (TTL, watchdog,
    /// owner-checked release, fencing) and compare with what happened.
    Whatif(WhatifArgs),
    /// Print lockreplay's rules as SQL for ClickHouse or DuckDB (or an alert
    /// rule for a log store), or write a log's lock events as a table for it.
    Sql(SqlArgs),
    /// Run the rules' query on a ClickHouse server (HTTP), list the keys
    /// with overlaps fleet-wide, pull the chosen incidents' rows and replay
    /// them (the report, or the window with `--open`).
    Fetch(Box<FetchArgs>),
    /// Show how each file is read: container, layout, the readers' bids,
    /// every field with its role, confidence and samples, the events per
    /// kind, and for a text layout no reader knows a suggested `line_regex`
    /// and the message templates; `--write-mapping` saves the roles as a
    /// mapping file.
    Inspect(InspectArgs),
}

/// Output format of `analyze`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Plain text for the terminal.
    Text,
    /// Markdown.
    Md,
    /// JSON (schema `lockreplay/1`, docs/json-schema.md).
    Json,
}

/// How logs are read and sales priced: the flags of every command that
/// reads logs (`analyze`, `report`, `render`, `whatif`, the window).
#[derive(Clone, Debug, Default, Args)]
pub struct ReadArgs {
    /// Money lost per oversold unit (not the list price). Without it the
    /// loss of oversold units is unknown (`¥?`, JSON `null`).
    #[arg(long, value_name = "N")]
    pub unit_loss: Option<f64>,
    /// Currency of the unit loss (CNY, USD, EUR, ...).
    #[arg(long, value_name = "CODE")]
    pub currency: Option<String>,
    /// Zone of timestamps without offset: +08:00, UTC, Asia/Shanghai.
    #[arg(long, value_name = "ZONE")]
    pub tz: Option<String>,
    /// How far a host's clock runs ahead, HOST=MS (repeatable).
    #[arg(long = "host-offset", value_name = "HOST=MS")]
    pub host_offsets: Vec<String>,
    /// Field and event-name mapping file (TOML or JSON).
    #[arg(long, value_name = "FILE")]
    pub mapping: Option<PathBuf>,
    /// Glob for lock keys in MONITOR captures.
    #[arg(long, value_name = "GLOB")]
    pub lock_pattern: Option<String>,
    /// Read the files, not the load cache, and save nothing in it (the
    /// cache: `LOCKREPLAY_CACHE_DIR`, else the user's cache directory).
    #[arg(long)]
    pub no_cache: bool,
}

/// Settings shared by every command that analyses.
#[derive(Clone, Debug, Default, Args)]
pub struct AnalysisArgs {
    /// Reading and pricing.
    #[command(flatten)]
    pub read: ReadArgs,
    /// Near-miss threshold as a fraction of the TTL.
    #[arg(long, value_name = "R")]
    pub near_miss_ratio: Option<f64>,
    /// Near-misses in a row that raise the alert finding.
    #[arg(long, value_name = "N")]
    pub near_miss_streak: Option<u32>,
    /// Log-lag tolerance in ms.
    #[arg(long, value_name = "MS")]
    pub log_lag_ms: Option<f64>,
    /// TTL of the files whose records carry no TTL field, MS for all of them
    /// or FILE=MS for one (repeatable); without it their TTL is unknown.
    #[arg(long = "ttl-ms", value_name = "MS|FILE=MS")]
    pub ttl_ms: Vec<String>,
}

/// `lockreplay analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Log files (JSON Lines, JSON, CSV, logfmt, ES, Loki, SLS, MONITOR; gzip ok).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Language of the text and Markdown reports: `en` or `zh` (Simplified Chinese:
    /// narratives, causes, finding names and labels; ids, times and log
    /// text as they are). JSON is the same in both.
    #[arg(long, value_enum, default_value = "en")]
    pub lang: ReportLang,
    /// Analysis settings.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// The language of a printed report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ReportLang {
    /// English.
    #[default]
    En,
    /// Simplified Chinese.
    Zh,
}

/// `lockreplay report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Log files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Folder to write (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Skip the per-incident pictures (no GPU or software renderer needed).
    #[arg(long)]
    pub no_images: bool,
    /// Pixels per point of the pictures (2: a 1600 px picture is laid out
    /// at 800 points, to stay legible pasted at a document's width).
    #[arg(long, value_name = "F", default_value_t = crate::pipeline::PICTURE_SCALE)]
    pub scale: f32,
    /// Language of report.md and of the pictures' words (the JSON, CSV and
    /// trace files keep the report's snake_case names).
    #[arg(long, value_enum, default_value = "en")]
    pub lang: ReportLang,
    /// Incidents written out in report.md and drawn, the largest loss
    /// first (every incident is in incidents.csv and incidents.json).
    #[arg(long, value_name = "N", default_value_t = crate::report::rank::TOP_INCIDENTS)]
    pub top: usize,
    /// trace.json with every hold of the log, not only the holds in the
    /// incidents' windows.
    #[arg(long)]
    pub full_trace: bool,
    /// Analysis settings.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// `lockreplay render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Log files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// PNG to write.
    #[arg(long, value_name = "PNG")]
    pub out: PathBuf,
    /// Zoom to this incident (`INC-2` or `2`).
    #[arg(long)]
    pub incident: Option<String>,
    /// Image size, WIDTHxHEIGHT in pixels (at most; the height shrinks to
    /// the lanes shown).
    #[arg(long, default_value = "1600x900")]
    pub size: String,
    /// Pixels per point: the picture is laid out `size / scale` points wide
    /// (2: 800 points in 1600 pixels, legible pasted at 800 px).
    #[arg(long, value_name = "F", default_value_t = crate::pipeline::PICTURE_SCALE)]
    pub scale: f32,
    /// Colour theme.
    #[arg(long, value_enum, default_value = "light")]
    pub theme: Theme,
    /// Language of the picture's title, legend and caption.
    #[arg(long, value_enum, default_value = "en")]
    pub lang: ReportLang,
    /// Analysis settings.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// `lockreplay simulate` arguments.
#[derive(Clone, Debug, Args)]
pub struct SimulateArgs {
    /// Buyers per wave (concurrent requests).
    #[arg(long, value_name = "N", default_value_t = sim::DEFAULT_BUYERS)]
    pub buyers: u32,
    /// Products (SKUs) per wave; each has its own lock key and stock.
    #[arg(long, value_name = "K", default_value_t = sim::DEFAULT_PRODUCTS)]
    pub products: u32,
    /// Hosts the buyers are spread over.
    #[arg(long, value_name = "H", default_value_t = sim::DEFAULT_HOSTS)]
    pub hosts: u32,
    /// Lock TTL, ms.
    #[arg(long, value_name = "MS", default_value_t = sim::DEFAULT_TTL_MS)]
    pub ttl_ms: i64,
    /// Probability (0..=1) that a supplier-page parse is slow.
    #[arg(long, value_name = "P", default_value_t = sim::DEFAULT_SLOW_PROB)]
    pub slow_prob: f64,
    /// Length of a slow parse, ms.
    #[arg(long, value_name = "MS", default_value_t = sim::DEFAULT_SLOW_MS)]
    pub slow_ms: i64,
    /// Run a watchdog that renews the lease while its holder works.
    #[arg(long)]
    pub watchdog: bool,
    /// Watchdog interval, ms (default: half the TTL).
    #[arg(long, value_name = "MS")]
    pub renew_every_ms: Option<i64>,
    /// The naive pattern: SETNX + separate EXPIRE, release by plain DEL
    /// without an owner check.
    #[arg(long)]
    pub naive: bool,
    /// Initial stock per product, units.
    #[arg(long, value_name = "N", default_value_t = sim::DEFAULT_INITIAL_STOCK)]
    pub initial_stock: i64,
    /// List price per unit, CNY (logged on orders; not the loss).
    #[arg(long, value_name = "PRICE", default_value_t = sim::DEFAULT_UNIT_PRICE)]
    pub unit_price: f64,
    /// Seed of the pseudo-random generator; the same seed gives the same log.
    #[arg(long, default_value_t = sim::DEFAULT_SEED)]
    pub seed: u64,
    /// Poll interval of a blocked acquire, ms.
    #[arg(long, value_name = "MS", default_value_t = sim::DEFAULT_RETRY_MS)]
    pub retry_ms: i64,
    /// How long a buyer waits for the lock before giving up, ms.
    #[arg(long, value_name = "MS", default_value_t = sim::DEFAULT_BLOCKING_TIMEOUT_MS)]
    pub blocking_timeout_ms: i64,
    /// Buyers of a wave arrive spread over this many ms.
    #[arg(long, value_name = "MS", default_value_t = sim::DEFAULT_ARRIVAL_MS)]
    pub arrival_ms: i64,
    /// Target event count (benchmarks): keep generating waves of buyers on
    /// fresh products until at least this many lines are written.
    #[arg(long, value_name = "N")]
    pub events: Option<u64>,
    /// Where to write the JSON Lines, atomically (stdout when absent).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Where to write the ground truth as JSON.
    #[arg(long, value_name = "FILE")]
    pub truth: Option<PathBuf>,
}

/// `lockreplay whatif`: the policy flags. Without any, the standard set
/// is compared (a watchdog, an owner-checked release, fencing, all three).
/// `--ttl-ms` is the policy's TTL here; the TTL of files without one is
/// `--file-ttl-ms`.
#[derive(Debug, Args)]
pub struct WhatifArgs {
    /// Log files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Language of the text and Markdown tables: `en` or `zh` (Simplified
    /// Chinese: words, policy names and notes). JSON is the same in both.
    #[arg(long, value_enum, default_value = "en")]
    pub lang: ReportLang,
    /// The policy's TTL for every grant, ms (default: each hold's own).
    #[arg(long = "ttl-ms", value_name = "MS")]
    pub policy_ttl_ms: Option<i64>,
    /// A watchdog renews the lease while its holder works.
    #[arg(long)]
    pub watchdog: bool,
    /// Watchdog interval, ms (default: a third of the TTL).
    #[arg(long, value_name = "MS", requires = "watchdog")]
    pub renew_every_ms: Option<i64>,
    /// Gaps of at least this many ms in a holder's own lines are pauses
    /// (GC, partition): the watchdog cannot renew during them.
    #[arg(long, value_name = "MS", requires = "watchdog")]
    pub pause_ms: Option<i64>,
    /// Releases delete only the releaser's own lock.
    #[arg(long)]
    pub owner_check: bool,
    /// Writes are fenced: a stale holder's deduction is rejected.
    #[arg(long)]
    pub fencing: bool,
    /// A request waiting longer than this for the lock gives up, ms.
    #[arg(long, value_name = "MS")]
    pub wait_limit_ms: Option<i64>,
    /// TTL of the files whose records carry no TTL field, MS or FILE=MS
    /// (`--ttl-ms` of `analyze`).
    #[arg(long = "file-ttl-ms", value_name = "MS|FILE=MS")]
    pub file_ttl_ms: Vec<String>,
    /// Reading and pricing, as `analyze`'s.
    #[command(flatten)]
    pub read: ReadArgs,
}

/// Colour theme for pictures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Theme {
    /// Light.
    Light,
    /// Dark.
    Dark,
}

/// `lockreplay sql`.
#[derive(Debug, Args)]
pub struct SqlArgs {
    /// With `--export-events`: the log files whose lock events to write.
    pub files: Vec<PathBuf>,
    /// Engine the query is for.
    #[arg(long, value_enum, default_value = "clickhouse")]
    pub dialect: Dialect,
    /// Table (or table expression) holding the lock events.
    #[arg(long, default_value = "lock_events")]
    pub table: String,
    /// How the table's time column is stored.
    #[arg(long, value_enum, default_value = "ns")]
    pub time_unit: TimeUnit,
    /// What the query returns.
    #[arg(long, value_enum, default_value = "all")]
    pub select: Select,
    /// Extra SQL condition on the table's rows (a service, a region).
    #[arg(long, value_name = "SQL")]
    pub filter: Option<String>,
    /// A time slice (a day of a month): only the results from this instant
    /// on (an overlap's start, a hold's acquire; RFC 3339 or ns since the
    /// epoch), from the rows `--carry-ms` around the slice.
    #[arg(long, value_name = "TIME", requires = "until")]
    pub since: Option<String>,
    /// With `--since`: the end of the slice (exclusive).
    #[arg(long, value_name = "TIME", requires = "since")]
    pub until: Option<String>,
    /// With `--since`: rows read before and after the slice, ms; at least
    /// the longest believed window and lease (renewals included).
    #[arg(long, default_value_t = 600_000, value_name = "MS")]
    pub carry_ms: i64,
    /// Write the lock events of FILES as JSON Lines to this file (the
    /// query's default columns) instead of printing a query.
    #[arg(long, value_name = "OUT")]
    pub export_events: Option<PathBuf>,
    /// Print the alert rule for a log store instead (docs/alerts.md).
    #[arg(long, value_enum, value_name = "STORE")]
    pub alert: Option<Store>,
    /// Settings of the rules; `--mapping` names the table's columns.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

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
    /// Start of the time the listing covers (RFC 3339 or ns since the
    /// epoch): only overlaps starting from then are listed, computed from
    /// the rows from `--context-ms` before it. With `--key`: the start of
    /// the rows to pull, without the listing.
    #[arg(long, value_name = "TIME", requires = "until")]
    pub since: Option<String>,
    /// With `--since`: the end of that time (exclusive).
    #[arg(long, value_name = "TIME", requires = "since")]
    pub until: Option<String>,
    /// A condition on the table's rows (SQL), for the listing and the pull
    /// of the keys' rows: a service, a region.
    #[arg(long = "where", value_name = "SQL")]
    pub where_sql: Option<String>,
    /// The cluster whose shards each hold `--table` (sharded by lock key):
    /// the listing runs on every shard at once, each over its own rows;
    /// the pull reads them through `cluster(NAME, ...)`.
    #[arg(long, value_name = "NAME")]
    pub cluster: Option<String>,
    /// With `--cluster`: a shard's HTTP interface (repeatable, one per
    /// shard), when it is not the host `system.clusters` names at the
    /// port of `--url`.
    #[arg(long = "shard-url", value_name = "URL", requires = "cluster")]
    pub shard_urls: Vec<String>,
    /// A table of business events (stock levels, orders) whose rows in
    /// each pulled window are pulled too, beside the lock rows (its time
    /// column named and stored as the lock table's).
    #[arg(long, value_name = "TABLE")]
    pub business_table: Option<String>,
    /// The business rows (SQL): of `--business-table`, or else of
    /// `--table` itself (its other events), pulled in each window.
    #[arg(long, value_name = "SQL")]
    pub business_where: Option<String>,
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
    /// Language of the text and Markdown reports: `en` or `zh` (Simplified
    /// Chinese), as `analyze --lang`.
    #[arg(long, value_enum, default_value = "en")]
    pub lang: ReportLang,
    /// Settings of the rules and the reading; `--mapping` names the table's
    /// columns.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// `lockreplay inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// Log files to inspect.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Write the roles chosen for the first readable file as a mapping file
    /// (TOML, the format `--mapping` reads).
    #[arg(long, value_name = "PATH")]
    pub write_mapping: Option<PathBuf>,
    /// Reading settings (`--mapping`, `--tz`, ...).
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

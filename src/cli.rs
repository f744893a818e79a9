//! The command line: the clap types of `lockreplay analyze`, `report`,
//! `render`, `simulate` and (with no subcommand) the window, and the one
//! dispatch of every subcommand ([`run`]). The work itself is
//! [`crate::pipeline`]'s; the window and the pictures are lent by `main`
//! ([`Frontend`]), so this module never imports `ui`. Exit codes follow
//! ripgrep: 0 no incident, 1 incidents found, 2 error.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::analysis::{IncidentId, Settings};
use crate::ingest::{IngestOptions, Mapping, parse_tz};
use crate::pipeline::{AnalyzedLog, DrawTimeline, EXIT_CLEAN, EXIT_ERROR};
use crate::report::escape::{JsonForTerminal, terminal};
use crate::report::{MarkdownImages, Printer, ReportInput, to_markdown, write_json, write_text};
use crate::sim::{self, SimArgs};

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
    Sql(crate::sql::command::SqlArgs),
    /// Run the rules' query on a ClickHouse server (HTTP), list the keys
    /// with overlaps fleet-wide, pull the chosen incidents' rows and replay
    /// them (the report, or the window with `--open`).
    Fetch(crate::sql::fetch::FetchArgs),
    /// Show how each file is read: container, layout, the readers' bids,
    /// every field with its role, confidence and samples, the events per
    /// kind; `--write-mapping` saves the roles as a mapping file.
    Inspect(crate::inspect::InspectArgs),
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

impl Format {
    /// The printer of this format (Markdown without pictures). JSON and text
    /// are streamed, incident by incident; Markdown is written whole.
    pub fn printer(self) -> Printer {
        match self {
            Format::Text => |r, w| write_text(r, false, w),
            Format::Md => |r, w| {
                let md = to_markdown(r, &MarkdownImages::default());
                w.write_all(terminal(&md).as_bytes())
            },
            Format::Json => json_for_terminal,
        }
    }
}

/// The JSON report for standard output: streamed, with the characters
/// that could drive a terminal written as JSON escapes (issue #18).
fn json_for_terminal(r: &ReportInput<'_>, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    write_json(r, &mut JsonForTerminal(w))
}

impl Format {
    /// The Chinese printer of this format (`--lang zh`; JSON has no
    /// language: its names are the report's snake_case ones).
    pub fn printer_zh(self) -> Printer {
        match self {
            Format::Text => |r, w| write_text(r, true, w),
            Format::Md => |r, w| {
                let md = crate::report::to_markdown_zh(r, &MarkdownImages::default());
                w.write_all(terminal(&md).as_bytes())
            },
            Format::Json => json_for_terminal,
        }
    }
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

impl ReadArgs {
    /// The load cache these flags ask for: the user's, unless
    /// `--no-cache`.
    pub fn cache(&self) -> crate::ingest::CacheConfig {
        crate::ingest::CacheConfig::from_env(!self.no_cache)
    }
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

impl AnalysisArgs {
    /// Applies the flags given over `base`.
    ///
    /// # Errors
    /// A `--host-offset` that is not `HOST=MS` within a year, or a number
    /// out of its range or not finite ([`check_f64`], [`check_int`]).
    pub fn settings(&self, base: &Settings) -> anyhow::Result<Settings> {
        let mut s = base.clone();
        if let Some(v) = self.read.unit_loss {
            s.unit_loss = Some(check_f64("--unit-loss", v, 0.0, MAX_UNIT_LOSS).map_err(
                |_| {
                    anyhow::anyhow!(
                        "--unit-loss must be zero or a positive amount up to {MAX_UNIT_LOSS}, got {v}"
                    )
                },
            )?);
        }
        if let Some(v) = &self.read.currency {
            s.currency = v.clone();
        }
        if let Some(v) = self.near_miss_ratio {
            if v <= 0.0 {
                bail!("--near-miss-ratio must be above 0, got {v}");
            }
            s.near_miss_ratio = check_f64("--near-miss-ratio", v, 0.0, 1.0)?;
        }
        if let Some(v) = self.near_miss_streak {
            s.near_miss_streak = check_int("--near-miss-streak", v.into(), 1, 1_000_000)? as u32;
        }
        if let Some(v) = self.log_lag_ms {
            s.log_lag_tolerance_ms = check_f64("--log-lag-ms", v, 0.0, MAX_LOG_LAG_MS)?;
        }
        if !self.read.host_offsets.is_empty() {
            s.host_offsets_ms = parse_host_offsets(&self.read.host_offsets)?;
        }
        Ok(s)
    }

    /// Ingest options from `--tz`, `--mapping`, `--lock-pattern` and
    /// `--ttl-ms`.
    ///
    /// # Errors
    /// An unknown zone, an unreadable mapping file or a `--ttl-ms` that is
    /// not `MS` or `FILE=MS`.
    pub fn ingest_options(&self) -> anyhow::Result<IngestOptions> {
        let mut opts = IngestOptions::default();
        if let Some(tz) = &self.read.tz {
            opts.tz = Some(parse_tz(tz)?);
        }
        if let Some(m) = &self.read.mapping {
            opts.mapping = Some(Mapping::from_path(m)?);
        }
        if let Some(p) = &self.read.lock_pattern {
            opts.monitor.lock_pattern = p.clone();
        }
        opts.ttl = crate::ingest::FileTtl::parse(&self.ttl_ms)?;
        Ok(opts)
    }

    /// Loads and analyses `files` with these flags, through the load cache
    /// unless `--no-cache` ([`crate::pipeline::load_and_analyze`]).
    ///
    /// # Errors
    /// Bad flags ([`AnalysisArgs::ingest_options`],
    /// [`AnalysisArgs::settings`]) or unreadable files.
    pub fn load(&self, files: &[PathBuf]) -> anyhow::Result<AnalyzedLog> {
        let opts = self.ingest_options()?;
        let settings = self.settings(&Settings::default())?;
        crate::pipeline::load_and_analyze(files, &opts, &self.read.cache(), settings)
    }
}

/// Largest `--unit-loss`, CNY (or the currency given) per unit: beyond it a
/// loss could overflow to infinity (`"loss": null` in JSON).
pub const MAX_UNIT_LOSS: f64 = 1e12;
/// Largest `--log-lag-ms`, ms: a minute; the log-lag rule's cost grows with
/// the events inside the tolerance.
pub const MAX_LOG_LAG_MS: f64 = 60_000.0;
/// Largest `--host-offset`, ms (366 days): far enough for any clock, near
/// enough that no time in the ns range wraps (issue #18: 1734).
pub const MAX_HOST_OFFSET_MS: f64 = 366.0 * 86_400_000.0;

/// `v` when it is a finite number in `min..=max`, else our own message naming
/// `flag` (NaN, infinities and out-of-range values alike).
///
/// # Errors
/// Says the range.
pub fn check_f64(flag: &str, v: f64, min: f64, max: f64) -> anyhow::Result<f64> {
    if v.is_finite() && (min..=max).contains(&v) {
        Ok(v)
    } else {
        bail!("{flag} must be a number from {min} to {max}, got {v}")
    }
}

/// `v` when it is in `min..=max`, else our own message naming `flag`.
///
/// # Errors
/// Says the range.
pub fn check_int(flag: &str, v: i64, min: i64, max: i64) -> anyhow::Result<i64> {
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        bail!("{flag} must be from {min} to {max}, got {v}")
    }
}

/// Parses `HOST=MS` pairs.
///
/// # Errors
/// Names the pair that is not `HOST=MS` with a finite number.
pub fn parse_host_offsets(pairs: &[String]) -> anyhow::Result<BTreeMap<String, f64>> {
    pairs
        .iter()
        .map(|p| {
            let (host, ms) = p
                .rsplit_once('=')
                .with_context(|| format!("--host-offset {p:?} is not HOST=MS"))?;
            let ms: f64 = ms
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .with_context(|| format!("--host-offset {p:?}: {ms:?} is not a number of ms"))?;
            if ms.abs() > MAX_HOST_OFFSET_MS {
                bail!(
                    "--host-offset {p:?}: a clock offset must be within ±{MAX_HOST_OFFSET_MS} ms (366 days)"
                );
            }
            Ok((host.trim().to_string(), ms))
        })
        .collect()
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

/// Longest duration a `simulate` flag takes, ms (a day).
const MAX_SIM_MS: i64 = 86_400_000;

impl SimulateArgs {
    /// Checks every number against its range (issue #18: no flag may make the
    /// simulator loop, overflow or divide by zero).
    ///
    /// # Errors
    /// Names the first flag out of range.
    pub fn validate(&self) -> anyhow::Result<()> {
        check_int("--buyers", self.buyers.into(), 1, 1_000_000)?;
        check_int("--products", self.products.into(), 1, 100_000)?;
        check_int("--hosts", self.hosts.into(), 1, 10_000)?;
        check_int("--ttl-ms", self.ttl_ms, 1, MAX_SIM_MS)?;
        check_f64("--slow-prob", self.slow_prob, 0.0, 1.0)?;
        check_int("--slow-ms", self.slow_ms, 0, MAX_SIM_MS)?;
        if let Some(v) = self.renew_every_ms {
            check_int("--renew-every-ms", v, 1, MAX_SIM_MS)?;
        }
        check_int("--initial-stock", self.initial_stock, 0, 1_000_000_000)?;
        check_f64("--unit-price", self.unit_price, 0.0, MAX_UNIT_LOSS)?;
        check_int("--retry-ms", self.retry_ms, 1, MAX_SIM_MS)?;
        check_int(
            "--blocking-timeout-ms",
            self.blocking_timeout_ms,
            0,
            MAX_SIM_MS,
        )?;
        check_int("--arrival-ms", self.arrival_ms, 0, MAX_SIM_MS)?;
        if let Some(v) = self.events {
            check_int(
                "--events",
                i64::try_from(v).unwrap_or(i64::MAX),
                1,
                1_000_000_000,
            )?;
        }
        Ok(())
    }

    /// The simulator's arguments from these flags.
    pub fn sim_args(&self) -> SimArgs {
        SimArgs {
            buyers: self.buyers,
            products: self.products,
            hosts: self.hosts,
            ttl_ms: self.ttl_ms,
            slow_prob: self.slow_prob,
            slow_ms: self.slow_ms,
            watchdog: self.watchdog,
            renew_every_ms: self.renew_every_ms,
            naive: self.naive,
            initial_stock: self.initial_stock,
            unit_price: self.unit_price,
            seed: self.seed,
            retry_ms: self.retry_ms,
            blocking_timeout_ms: self.blocking_timeout_ms,
            arrival_ms: self.arrival_ms,
            events: self.events,
            out: self.out.clone(),
            truth: self.truth.clone(),
        }
    }
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

impl WhatifArgs {
    /// The policies asked for: the one the flags name, else the standard set.
    ///
    /// # Errors
    /// A TTL, interval, pause or wait limit below 1 ms.
    pub fn policies(&self) -> anyhow::Result<Vec<crate::whatif::Policy>> {
        if let Some(w) = self.wait_limit_ms.filter(|&w| w < 0) {
            bail!("--wait-limit-ms must be zero or more, got {w}");
        }
        let p = crate::whatif::Policy {
            ttl_ms: self.policy_ttl_ms,
            watchdog: self.watchdog,
            renew_every_ms: self.renew_every_ms,
            pause_ms: self.pause_ms,
            owner_check: self.owner_check,
            fencing: self.fencing,
        };
        p.validate().map_err(|e| anyhow::anyhow!("whatif: {e}"))?;
        Ok(if p.is_as_logged() {
            crate::report::default_policies()
        } else {
            vec![p]
        })
    }

    /// Loads, analyses, replays and prints; the exit code of `analyze`.
    fn run(&self) -> anyhow::Result<u8> {
        let policies = self.policies()?;
        let args = AnalysisArgs {
            read: self.read.clone(),
            ttl_ms: self.file_ttl_ms.clone(),
            ..AnalysisArgs::default()
        };
        let loaded = args.load(&self.files)?;
        let r = loaded.input();
        let started = std::time::Instant::now();
        let w =
            crate::whatif::what_if(r.log, r.analysis, r.settings, &policies, self.wait_limit_ms);
        crate::timing::phase("whatif", started);
        let zh = self.lang == ReportLang::Zh;
        let out = match self.format {
            Format::Text => crate::report::whatif_text(&r, &w, zh),
            Format::Md => crate::report::whatif_markdown(&r, &w, zh),
            Format::Json => crate::report::whatif_json(&r, &w),
        };
        print!("{out}");
        Ok(loaded.exit_code())
    }
}

/// Colour theme for pictures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Theme {
    /// Light.
    Light,
    /// Dark.
    Dark,
}

/// Parses a `--cursor` value: an RFC 3339 time, or `+MS` (milliseconds,
/// fractions allowed) after `first_ns`. Returns epoch ns.
///
/// # Errors
/// When it is neither.
pub fn parse_cursor(spec: &str, first_ns: i64) -> anyhow::Result<i64> {
    let spec = spec.trim();
    if let Some(ms) = spec.strip_prefix('+') {
        let ms: f64 = ms
            .trim()
            .trim_end_matches("ms")
            .trim()
            .parse()
            .with_context(|| format!("--cursor {spec:?}: +MS wants a number of milliseconds"))?;
        anyhow::ensure!(
            ms.is_finite() && ms.abs() < 1e15,
            "--cursor {spec:?} is out of range"
        );
        return Ok(first_ns.saturating_add((ms * 1e6).round() as i64));
    }
    chrono::DateTime::parse_from_rfc3339(spec)
        .ok()
        .and_then(|t| t.timestamp_nanos_opt())
        .with_context(|| format!("--cursor {spec:?} is neither an RFC 3339 time nor +MS"))
}

/// What the window layer (the `gui` feature) lends the dispatch: `main`
/// passes it in, so that this module never imports `ui`.
pub struct Frontend {
    /// Opens the window on the command line's files; returns the exit code.
    pub window: fn(&Cli) -> anyhow::Result<u8>,
    /// Draws a timeline picture (`render`, and the pictures of `report`).
    pub draw_timeline: DrawTimeline,
}

/// Runs a parsed command line: the one dispatch of every subcommand, with
/// the window layer when this build has one. Errors are printed in
/// ripgrep's style and give exit code 2.
pub fn run(cli: &Cli, frontend: Option<&Frontend>) -> ExitCode {
    match dispatch(cli, frontend) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            // A file name, mapping error or field name may carry ESC or BEL:
            // escaped, never sent raw to the terminal (issue #35).
            let text = format!("{err:#}");
            eprintln!("lockreplay: {}", crate::report::terminal_safe(&text));
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn dispatch(cli: &Cli, frontend: Option<&Frontend>) -> anyhow::Result<u8> {
    let no_window = || {
        anyhow::anyhow!(
            "this build has no window (built without the `gui` feature); use `lockreplay analyze`"
        )
    };
    match &cli.command {
        Some(Command::Analyze(args)) => {
            let printer = match args.lang {
                ReportLang::En => args.format.printer(),
                ReportLang::Zh => args.format.printer_zh(),
            };
            let loaded = args.analysis.load(&args.files)?;
            Ok(crate::pipeline::print_report(loaded, printer))
        }
        Some(Command::Report(args)) => {
            let loaded = args.analysis.load(&args.files)?;
            let draw = frontend
                .filter(|_| !args.no_images)
                .map(|f| f.draw_timeline);
            let style = crate::pipeline::PictureStyle {
                size: crate::pipeline::REPORT_PICTURE_SIZE,
                scale: check_scale(args.scale)?,
                dark: false,
                zh: args.lang == ReportLang::Zh,
            };
            crate::pipeline::write_report_folder(&loaded, &args.out, &args.files, draw, style)?;
            // Say where it went (on stderr: stdout stays for printers).
            let sum = &loaded.analysis.summary;
            eprintln!(
                "lockreplay: report written to {} ({} incident(s), {} unit(s) oversold)",
                crate::report::terminal_safe(&args.out.display().to_string()),
                sum.incidents,
                sum.oversold_units
            );
            Ok(loaded.exit_code())
        }
        Some(Command::Render(args)) => render(args, frontend.ok_or_else(no_window)?),
        Some(Command::Simulate(args)) => {
            args.validate()?;
            for out in [&args.out, &args.truth].into_iter().flatten() {
                crate::fsio::check_output(out, &[])?;
            }
            sim::run(&args.sim_args()).map(|()| EXIT_CLEAN)
        }
        Some(Command::Whatif(args)) => args.run(),
        Some(Command::Sql(args)) => args.run(),
        Some(Command::Inspect(args)) => crate::inspect::run(args),
        Some(Command::Fetch(args)) => crate::sql::fetch::run(args, frontend.map(|f| f.window)),
        None => (frontend.ok_or_else(no_window)?.window)(cli),
    }
}

/// `lockreplay render`: the timeline of the files (zoomed to `--incident`)
/// as a PNG.
fn render(args: &RenderArgs, frontend: &Frontend) -> anyhow::Result<u8> {
    // Before any load or GPU work: a bad size or an --out that is an input
    // or a device is refused with our own message (issue #18).
    let size = parse_size(&args.size)?;
    let scale = check_scale(args.scale)?;
    crate::fsio::check_output(&args.out, &args.files)?;
    let loaded = args.analysis.load(&args.files)?;
    let incident = match &args.incident {
        None => None,
        Some(spec) => Some(parse_incident(spec, loaded.analysis.incidents.len())?),
    };
    let style = crate::pipeline::PictureStyle {
        size,
        scale,
        dark: args.theme == Theme::Dark,
        zh: args.lang == ReportLang::Zh,
    };
    let subject = incident.map_or(crate::pipeline::PictureSubject::Log, |i| {
        crate::pipeline::PictureSubject::Incident(i)
    });
    (frontend.draw_timeline)(&loaded, subject, style, &args.out)?;
    Ok(loaded.exit_code())
}

/// Largest side of a rendered picture, pixels: wgpu's guaranteed texture
/// limit (`max_texture_dimension_2d` of its downlevel defaults).
pub const MAX_PICTURE_SIDE: u32 = 8192;

/// Checks `--scale`: 0.5 to 4 pixels per point.
fn check_scale(scale: f32) -> anyhow::Result<f32> {
    if !(0.5..=4.0).contains(&scale) {
        bail!("--scale {scale}: pixels per point must be 0.5 to 4");
    }
    Ok(scale)
}

/// Parses `--size WIDTHxHEIGHT`, each side 1 to [`MAX_PICTURE_SIDE`].
fn parse_size(spec: &str) -> anyhow::Result<(u32, u32)> {
    let (w, h): (u32, u32) = spec
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
        .with_context(|| format!("--size {spec:?} is not WIDTHxHEIGHT"))?;
    if !(1..=MAX_PICTURE_SIDE).contains(&w) || !(1..=MAX_PICTURE_SIDE).contains(&h) {
        bail!("--size {spec}: each side must be 1 to {MAX_PICTURE_SIDE} pixels");
    }
    Ok((w, h))
}

/// Parses `--incident INC-N` or `N` into an incident id, given how many
/// incidents there are.
fn parse_incident(spec: &str, incidents: usize) -> anyhow::Result<IncidentId> {
    let n: usize = spec
        .trim()
        .trim_start_matches("INC-")
        .trim_start_matches("inc-")
        .parse()
        .with_context(|| format!("--incident {spec:?} is not INC-N or N"))?;
    if n == 0 || n > incidents {
        bail!(
            "--incident {spec}: {}",
            match incidents {
                0 => "there are no incidents".to_string(),
                1 => "there is 1 incident".to_string(),
                n => format!("there are {n} incidents"),
            }
        );
    }
    Ok(IncidentId::new(n - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_is_rfc3339_or_ms_after_the_first_event() {
        let t = parse_cursor("2026-11-29T16:10:44.650+08:00", 0).expect("rfc3339");
        let utc = parse_cursor("2026-11-29T08:10:44.650Z", 0).expect("rfc3339 utc");
        assert_eq!(t, utc);
        assert_eq!(parse_cursor("+1.5", 1_000).expect("+ms"), 1_501_000);
        assert_eq!(parse_cursor("+250ms", 0).expect("+ms"), 250_000_000);
        assert!(parse_cursor("yesterday", 0).is_err());
        assert!(parse_cursor("+NaN", 0).is_err());
    }
}

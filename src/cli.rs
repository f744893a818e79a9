//! The command line: `lockreplay analyze`, `report`, `simulate`, `render`,
//! and (with no subcommand) the window. Exit codes follow ripgrep: 0 no
//! incident, 1 incidents found, 2 error.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::analysis::{Analysis, Settings, analyze};
use crate::ingest::{IngestOptions, Mapping, Progress, load_paths, parse_tz};
use crate::model::LoadedLog;
use crate::report::{ReportInput, to_json, to_markdown, to_text};

/// Exit code: no incident.
pub const EXIT_CLEAN: u8 = 0;
/// Exit code: at least one incident.
pub const EXIT_INCIDENTS: u8 = 1;
/// Exit code: an error (bad arguments, unreadable file).
pub const EXIT_ERROR: u8 = 2;

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
    Simulate(crate::sim::SimArgs),
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

/// Settings shared by every command that analyses.
#[derive(Clone, Debug, Default, Args)]
pub struct AnalysisArgs {
    /// Money lost per oversold unit (not the list price).
    #[arg(long, value_name = "N")]
    pub unit_loss: Option<f64>,
    /// Currency of the unit loss (CNY, USD, EUR, ...).
    #[arg(long, value_name = "CODE")]
    pub currency: Option<String>,
    /// Near-miss threshold as a fraction of the TTL.
    #[arg(long, value_name = "R")]
    pub near_miss_ratio: Option<f64>,
    /// Near-misses in a row that raise the alert finding.
    #[arg(long, value_name = "N")]
    pub near_miss_streak: Option<u32>,
    /// Log-lag tolerance in ms.
    #[arg(long, value_name = "MS")]
    pub log_lag_ms: Option<f64>,
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
    /// TTL of the files whose records carry no TTL field, MS for all of them
    /// or FILE=MS for one (repeatable); without it their TTL is unknown.
    #[arg(long = "ttl-ms", value_name = "MS|FILE=MS")]
    pub ttl_ms: Vec<String>,
}

impl AnalysisArgs {
    /// Applies the flags given over `base`.
    ///
    /// # Errors
    /// A `--host-offset` that is not `HOST=MS`, a negative ratio, or a
    /// negative or non-finite unit loss.
    pub fn settings(&self, base: &Settings) -> anyhow::Result<Settings> {
        let mut s = base.clone();
        if let Some(v) = self.unit_loss {
            if !(v >= 0.0 && v.is_finite()) {
                bail!("--unit-loss must be zero or a positive amount, got {v}");
            }
            s.unit_loss = v;
        }
        if let Some(v) = &self.currency {
            s.currency = v.clone();
        }
        if let Some(v) = self.near_miss_ratio {
            if !(v > 0.0 && v.is_finite()) {
                bail!("--near-miss-ratio must be a positive number, got {v}");
            }
            s.near_miss_ratio = v;
        }
        if let Some(v) = self.near_miss_streak {
            s.near_miss_streak = v;
        }
        if let Some(v) = self.log_lag_ms {
            s.log_lag_tolerance_ms = v;
        }
        if !self.host_offsets.is_empty() {
            s.host_offsets_ms = parse_host_offsets(&self.host_offsets)?;
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
        if let Some(tz) = &self.tz {
            opts.tz = Some(parse_tz(tz)?);
        }
        if let Some(m) = &self.mapping {
            opts.mapping = Some(Mapping::from_path(m)?);
        }
        if let Some(p) = &self.lock_pattern {
            opts.monitor.lock_pattern = p.clone();
        }
        opts.ttl = crate::ingest::FileTtl::parse(&self.ttl_ms)?;
        Ok(opts)
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
    /// Analysis settings.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
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
    /// Image size, WIDTHxHEIGHT in pixels.
    #[arg(long, default_value = "1600x900")]
    pub size: String,
    /// Colour theme.
    #[arg(long, value_enum, default_value = "light")]
    pub theme: Theme,
    /// Analysis settings.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
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

/// A loaded and analysed set of files.
pub struct Loaded {
    /// The events and sources.
    pub log: LoadedLog,
    /// The settings used.
    pub settings: Settings,
    /// The analysis.
    pub analysis: Analysis,
}

impl Loaded {
    /// What makes this load an error ([`crate::ingest::load_problems`]).
    pub fn problems(&self) -> Vec<String> {
        crate::ingest::load_problems(&self.log)
    }

    /// The exit code: 2 when a file gave no event or no lock event was read
    /// (each reason printed on stderr), else 1 with incidents, 0 without.
    /// Never a clean 0 for a file nothing was read from.
    pub fn exit_code(&self) -> u8 {
        let problems = self.problems();
        for p in &problems {
            eprintln!("lockreplay: {}", crate::report::terminal_safe(p));
        }
        if problems.is_empty() {
            exit_code_for(&self.analysis)
        } else {
            EXIT_ERROR
        }
    }

    /// The printers' view of it.
    pub fn input(&self) -> ReportInput<'_> {
        ReportInput {
            log: &self.log,
            settings: &self.settings,
            analysis: &self.analysis,
        }
    }
}

/// Loads and analyses `files`, showing progress on stderr when it is a
/// terminal and the files are large.
///
/// # Errors
/// Unreadable files, bad options.
pub fn load_and_analyze(files: &[PathBuf], args: &AnalysisArgs) -> anyhow::Result<Loaded> {
    let opts = args.ingest_options()?;
    let settings = args.settings(&Settings::default())?;
    let progress = Arc::new(Progress::default());
    let show = std::io::stderr().is_terminal() && total_size(files) > 32 * 1024 * 1024;
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let printer = show.then(|| {
        let (progress, done) = (progress.clone(), done.clone());
        std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    let read = progress.bytes_read.load(Ordering::Relaxed);
                    let total = progress.bytes_total.load(Ordering::Relaxed).max(1);
                    eprint!(
                        "\rloading {:>5.1} % ({} / {} MB)",
                        100.0 * read as f64 / total as f64,
                        read >> 20,
                        total >> 20
                    );
                    std::thread::sleep(Duration::from_millis(200));
                }
                eprint!("\r\x1b[K");
            })
            .ok()
    });
    let started = std::time::Instant::now();
    let log = load_paths(files, &opts, &progress);
    done.store(true, Ordering::Relaxed);
    phase_time("load", started);
    if let Some(Some(h)) = printer {
        let _ = h.join();
    }
    let log = log?;
    let started = std::time::Instant::now();
    let analysis = analyze(&log, &settings);
    phase_time("analyze", started);
    Ok(Loaded {
        log,
        settings,
        analysis,
    })
}

/// With `LOCKREPLAY_TIMINGS` set, prints how long a phase took on stderr
/// (for `bench/` and profiling).
fn phase_time(phase: &str, started: std::time::Instant) {
    if std::env::var_os("LOCKREPLAY_TIMINGS").is_some() {
        eprintln!("timing: {phase} {:.3} s", started.elapsed().as_secs_f64());
    }
}

fn total_size(files: &[PathBuf]) -> u64 {
    files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum()
}

/// Exit code for an analysis: 1 when it found incidents.
pub fn exit_code_for(analysis: &Analysis) -> u8 {
    if analysis.incidents.is_empty() {
        EXIT_CLEAN
    } else {
        EXIT_INCIDENTS
    }
}

/// `lockreplay analyze`: prints the report on stdout.
///
/// # Errors
/// Unreadable files, bad options.
pub fn run_analyze(args: &AnalyzeArgs) -> anyhow::Result<u8> {
    let loaded = load_and_analyze(&args.files, &args.analysis)?;
    let input = loaded.input();
    let started = std::time::Instant::now();
    let out = match args.format {
        Format::Text => to_text(&input),
        Format::Md => to_markdown(&input, &|_| None),
        Format::Json => to_json(&input),
    };
    phase_time("report", started);
    print!("{out}");
    if !out.ends_with('\n') {
        println!();
    }
    let code = loaded.exit_code();
    // The process ends here: freeing millions of events one by one would
    // only delay the exit (the OS takes the memory back at once).
    std::mem::forget(loaded);
    Ok(code)
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder,
/// then a rename. A failure leaves no partial file at `path`. Refuses to
/// write over any of `inputs`.
///
/// # Errors
/// I/O failures, or `path` being one of the inputs.
pub fn write_atomic(path: &Path, bytes: &[u8], inputs: &[PathBuf]) -> anyhow::Result<()> {
    use std::io::Write;
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    for input in inputs {
        if std::fs::canonicalize(input).is_ok_and(|i| i == target) {
            bail!("refusing to write over the input file {}", input.display());
        }
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    // A temporary file is private (0600); an export is an ordinary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Runs a parsed command line that needs no window; `None` for the ones that
/// do (the window, `render`, and `report` with images), which `main` hands
/// to the UI layer.
pub fn run_headless(cli: &Cli) -> Option<anyhow::Result<u8>> {
    match &cli.command {
        Some(Command::Analyze(a)) => Some(run_analyze(a)),
        Some(Command::Simulate(s)) => Some(crate::sim::run(s).map(|()| EXIT_CLEAN)),
        Some(Command::Report(r)) if r.no_images => Some(crate::export::write_report(r, None)),
        _ => None,
    }
}

/// Prints an error in ripgrep's style and returns exit code 2.
pub fn fail(err: &anyhow::Error) -> ExitCode {
    eprintln!("lockreplay: {err:#}");
    ExitCode::from(EXIT_ERROR)
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

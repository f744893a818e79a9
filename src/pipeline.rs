//! The application's work between the command line (or the window) and the
//! layers below: load files and analyse them, print a report, write the
//! report folder, and the exit code that says what was found. Plain options
//! in, results out; the flags that fill the options are `cli`'s.

pub mod results;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::analysis::{Analysis, Settings};
use crate::config::{ReadConfig, ReportConfig, WindowConfig};
use crate::ingest::{CacheConfig, CacheReport, IngestOptions, Progress, load_paths_cached_later};
use crate::model::message::phrase;
use crate::model::{LoadedLog, Phrase};
use crate::report::ReportInput;

/// Exit code: no incident.
pub const EXIT_CLEAN: u8 = 0;
/// Exit code: at least one incident.
pub const EXIT_INCIDENTS: u8 = 1;
/// Exit code: an error (bad arguments, unreadable file).
pub const EXIT_ERROR: u8 = 2;

/// Largest side of a rendered picture, pixels: wgpu's guaranteed texture
/// limit (`max_texture_dimension_2d` of its downlevel defaults).
pub const MAX_PICTURE_SIDE: u32 = 8192;

/// Size of the pictures in a report folder, pixels.
pub const REPORT_PICTURE_SIZE: (u32, u32) = (1600, 900);

/// Pixels per point of the pictures `render` and `report` draw by default:
/// 1600 pixels are 800 points, so that a picture pasted at 800 px (a
/// document's width) keeps the window's text size (13 points read as 13
/// px; at 1.0 they read as 6.5 px, which OCR and people cannot read).
/// `--scale` changes it.
pub const PICTURE_SCALE: f32 = 2.0;

/// A loaded log with its analysis and the settings it ran with: what the
/// printers, the report folder and the pictures are made from.
pub struct AnalyzedLog {
    /// The events and sources (shared: the cache's writes run beside the
    /// report, and the window's exports share the window's log).
    pub log: Arc<LoadedLog>,
    /// The settings used.
    pub settings: Settings,
    /// The analysis (shared as the log is).
    pub analysis: Arc<Analysis>,
    /// Every holder's label, made on first use ([`AnalyzedLog::holder_names`]):
    /// a report's pictures share it (labelling the 198 000 holders of the
    /// simulator's 1 M log took most of a picture's second).
    pub names: std::sync::OnceLock<crate::report::holders::HolderNames>,
    /// The cache's entries for this load, still being written beside the
    /// work that uses it (the report); joined when this is dropped.
    pub writes: CacheWrites,
}

/// Cache entries being written on their own threads ([`AnalyzedLog::writes`]),
/// beside the analysis and the report rather than before them: at 10 M
/// events the load entry takes 0.5-1.1 s to encode and write and the
/// analysis entry 0.5-0.8 s (docs/performance.md). Dropping this waits for
/// them and says on stderr what they did, as [`say_cache`] does.
#[derive(Default)]
pub struct CacheWrites(Vec<std::thread::JoinHandle<Said>>);

/// What a cache write says: its notes (always said) and its status (said
/// on a terminal or when asked, [`say_cache_status`]).
#[derive(Default)]
struct Said {
    notes: Vec<String>,
    status: Option<String>,
}

impl Said {
    fn say(&self) {
        for note in &self.notes {
            say_cache_note(note);
        }
        if let Some(status) = &self.status {
            say_cache_status(status);
        }
    }
}

impl CacheWrites {
    /// Runs `write` on a thread of its own, or here when no thread starts.
    fn spawn(&mut self, write: impl FnOnce() -> Said + Send + 'static) {
        // Shared, so that a thread that cannot start leaves it here.
        let slot = Arc::new(std::sync::Mutex::new(Some(write)));
        let theirs = slot.clone();
        let job = move || {
            let write = theirs.lock().ok().and_then(|mut w| w.take());
            write.map(|w| w()).unwrap_or_default()
        };
        match std::thread::Builder::new()
            .name("cache-write".into())
            .spawn(job)
        {
            Ok(h) => self.0.push(h),
            Err(_) => {
                if let Some(w) = slot.lock().ok().and_then(|mut w| w.take()) {
                    w().say();
                }
            }
        }
    }
}

impl Drop for CacheWrites {
    fn drop(&mut self) {
        for h in self.0.drain(..) {
            if let Ok(said) = h.join() {
                said.say();
            }
        }
    }
}

impl AnalyzedLog {
    /// [`AnalyzedLog`] of `log` analysed with `settings` into `analysis`.
    pub fn new(
        log: impl Into<Arc<LoadedLog>>,
        settings: Settings,
        analysis: impl Into<Arc<Analysis>>,
    ) -> AnalyzedLog {
        AnalyzedLog {
            log: log.into(),
            settings,
            analysis: analysis.into(),
            names: std::sync::OnceLock::new(),
            writes: CacheWrites::default(),
        }
    }

    /// Every holder's one label ([`crate::report::holders::HolderNames`]),
    /// made once.
    pub fn holder_names(&self) -> &crate::report::holders::HolderNames {
        self.names
            .get_or_init(|| crate::report::holders::HolderNames::of(&self.log, &self.analysis))
    }

    /// What makes this load an error ([`crate::analysis::problems`]), in
    /// English.
    pub fn problems(&self) -> Vec<String> {
        let problems = crate::analysis::problems(&self.log, &self.analysis);
        problems.iter().map(crate::model::Message::en).collect()
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

/// Exit code for an analysis: 1 when it found incidents.
pub fn exit_code_for(analysis: &Analysis) -> u8 {
    if analysis.incidents.is_empty() {
        EXIT_CLEAN
    } else {
        EXIT_INCIDENTS
    }
}

/// How a timeline picture is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PictureStyle {
    /// Width and height, pixels.
    pub size: (u32, u32),
    /// Pixels per point ([`PICTURE_SCALE`]): the picture is laid out
    /// `size / scale` points wide and drawn at `size` pixels.
    pub scale: f32,
    /// Dark theme.
    pub dark: bool,
    /// Title, legend and caption in Simplified Chinese.
    pub zh: bool,
}

/// Draws the timeline of a load into a PNG: the log, one incident (zoomed to
/// it) or one key's overview ([`PictureSubject`]), in a [`PictureStyle`].
/// Only the window layer draws (`ui::render_png`); it lends this to the
/// layers below.
pub type DrawTimeline = fn(&AnalyzedLog, PictureSubject, PictureStyle, &Path) -> anyhow::Result<()>;

pub use crate::report::PictureSubject;

/// Opens the window as the settings say and runs it until it closes;
/// returns the exit code. Only the window layer has one (`ui::run_window`);
/// `main` lends it to the command line.
pub type OpenWindow = fn(&WindowConfig) -> anyhow::Result<u8>;

/// Loads `files` as `read` says, through its load cache, and analyses them
/// with `settings` ([`load_and_analyze`]).
///
/// # Errors
/// Unreadable files.
pub fn load_files(
    files: &[PathBuf],
    read: &ReadConfig,
    settings: Settings,
) -> anyhow::Result<AnalyzedLog> {
    load_and_analyze(files, &read.ingest_options(), &read.cache(), settings)
}

/// Loads `files` with `opts` through the load cache `cache`
/// ([`load_paths_cached`]) and analyses them with `settings`, showing
/// progress on stderr when it is a terminal and the files are large.
/// What the cache did is said on stderr ([`say_cache`]), never in the
/// report.
///
/// # Errors
/// Unreadable files.
pub fn load_and_analyze(
    files: &[PathBuf],
    opts: &IngestOptions,
    cache: &CacheConfig,
    settings: Settings,
) -> anyhow::Result<AnalyzedLog> {
    load_and_analyze_said(files, opts, cache, settings, None)
}

/// [`load_files`], saying each phase (load, analysis) on stderr through
/// `phases` (`lockreplay report`).
///
/// # Errors
/// Unreadable files.
pub fn load_files_said(
    files: &[PathBuf],
    read: &ReadConfig,
    settings: Settings,
    phases: &Phases,
) -> anyhow::Result<AnalyzedLog> {
    let opts = read.ingest_options();
    load_and_analyze_said(files, &opts, &read.cache(), settings, Some(phases))
}

fn load_and_analyze_said(
    files: &[PathBuf],
    opts: &IngestOptions,
    cache: &CacheConfig,
    settings: Settings,
    phases: Option<&Phases>,
) -> anyhow::Result<AnalyzedLog> {
    let progress = Arc::new(Progress::default());
    let big = total_size(files) > 32 * 1024 * 1024;
    let show = std::io::stderr().is_terminal() && (big || phases.is_some());
    let done = Arc::new(AtomicBool::new(false));
    let printer = show.then(|| spawn_progress_printer(progress.clone(), done.clone()));
    let started = Instant::now();
    let log = load_paths_cached_later(files, opts, &progress, cache);
    done.store(true, Ordering::Relaxed);
    crate::timing::phase("load", started);
    if let Some(Some(h)) = printer {
        let _ = h.join();
    }
    let (log, cached, pending) = log?;
    let log = Arc::new(log);
    // The load's entry is written beside the analysis and the report.
    let mut writes = CacheWrites::default();
    if let Some(pending) = pending {
        let log = log.clone();
        writes.spawn(move || {
            let mut report = CacheReport::default();
            pending.store(&log, &mut report);
            Said {
                status: report.status(),
                notes: report.notes,
            }
        });
    }
    if let Some(p) = phases {
        p.done(
            phrase!("loaded {} events", "已读取 {} 个事件"),
            &[&log.events.len().to_string()],
            started,
        );
    }
    say_cache(&cached);
    if let Some(p) = phases {
        p.doing(phrase!("analysing…", "正在分析…"), &[]);
    }
    let started = Instant::now();
    let (analysis, kept, slot) = results::analyze_through_cache_later(
        (files, opts, cache),
        &log,
        &settings,
        (&crate::analysis::AnalysisProgress::default(), None),
    );
    let analysis = Arc::new(analysis);
    // The analysis's entry too, beside the report.
    if let Some(slot) = slot {
        let analysis = analysis.clone();
        writes.spawn(move || {
            let kept = results::keep_analysis_said(slot, &analysis);
            Said {
                status: kept.status,
                notes: kept.notes,
            }
        });
    }
    if let Some(p) = phases {
        p.done(
            phrase!("analysed: {} incidents", "已分析：{} 起事故"),
            &[&analysis.incidents.len().to_string()],
            started,
        );
    }
    for note in &kept.notes {
        say_cache_note(note);
    }
    if let Some(status) = &kept.status {
        say_cache_status(status);
    }
    let mut loaded = AnalyzedLog::new(log, settings, analysis);
    loaded.writes = writes;
    Ok(loaded)
}

/// Says on stderr what the load cache did: an entry ignored or a cache
/// directory that could not be written, always (one line each); the entry
/// read or written, when stderr is a terminal or `LOCKREPLAY_CACHE_VERBOSE`
/// is set. Never in a report, which stays byte-identical with and without
/// the cache.
pub fn say_cache(report: &CacheReport) {
    for note in &report.notes {
        eprintln!("lockreplay: {}", crate::report::terminal_safe(note));
    }
    if let Some(status) = report.status() {
        say_cache_status(&status);
    }
}

/// Says `status` (an entry read or written) on stderr when it is a
/// terminal or `LOCKREPLAY_CACHE_VERBOSE` is set.
fn say_cache_status(status: &str) {
    let verbose = std::env::var_os("LOCKREPLAY_CACHE_VERBOSE").is_some_and(|v| !v.is_empty());
    if verbose || std::io::stderr().is_terminal() {
        eprintln!("lockreplay: {}", crate::report::terminal_safe(status));
    }
}

/// Says a cache note (an entry ignored, a result not kept) on stderr.
fn say_cache_note(note: &str) {
    eprintln!("lockreplay: {}", crate::report::terminal_safe(note));
}

/// `analyze`: the report of `files`, read as `read` says and analysed with
/// `settings`, printed as `report` says; from the result cache when it
/// holds a sound entry for them ([`results`]), else loaded, analysed and
/// printed, and kept there. Returns the exit code ([`print_report`]).
///
/// # Errors
/// Unreadable files.
pub fn analyze_and_print(
    files: &[PathBuf],
    read: &ReadConfig,
    settings: Settings,
    report: &ReportConfig,
) -> anyhow::Result<u8> {
    let opts = read.ingest_options();
    let cache = read.cache();
    let what = format!("analyze {:?} {:?} {settings:?}", report.format, report.lang);
    let kind = crate::ingest::cache::ResultKind::Report;
    let slot = results::ResultSlot::of(files, &opts, &cache, (kind, what));
    if let Some(slot) = &slot {
        let started = Instant::now();
        match slot.read_report() {
            Ok(Some(cached)) => {
                crate::timing::phase("result cache", started);
                say_cache_status(&format!("report from cache ({})", slot.path().display()));
                return Ok(print_cached(&cached));
            }
            Ok(None) => {}
            Err(reason) => say_cache_note(&format!(
                "report cache entry {} ignored: {reason}; recomputed",
                slot.path().display()
            )),
        }
    }
    let loaded = load_and_analyze(files, &opts, &cache, settings)?;
    let keeper = slot.and_then(|s| {
        s.keep_report()
            .inspect_err(|e| say_cache_note(&format!("report not cached: {e}")))
            .ok()
    });
    Ok(print_report_kept(loaded, report.printer(), keeper))
}

/// Prints a report kept by the result cache as [`print_report`] prints a
/// fresh one: the report, then its problems on stderr; its exit code.
fn print_cached(cached: &results::CachedReport) -> u8 {
    let started = Instant::now();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let written = out.write_all(cached.report()).and_then(|()| out.flush());
    crate::timing::phase("report", started);
    if let Err(e) = written {
        eprintln!("lockreplay: cannot write the report to standard output: {e}");
        return EXIT_ERROR;
    }
    for p in &cached.outcome.problems {
        eprintln!("lockreplay: {}", crate::report::terminal_safe(p));
    }
    cached.outcome.exit_code
}

/// Prints the load's progress on stderr every 200 ms until `done`.
fn spawn_progress_printer(
    progress: Arc<Progress>,
    done: Arc<AtomicBool>,
) -> Option<std::thread::JoinHandle<()>> {
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
}

fn total_size(files: &[PathBuf]) -> u64 {
    files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum()
}

/// Prints the report `print` makes of `loaded` on stdout (ending with a
/// line end) and returns the exit code. The last step of a process:
/// `loaded` is not freed. A write that fails (a closed pipe, a full disk)
/// is said on stderr and exits 2: a cut report is never a clean one.
pub fn print_report(loaded: AnalyzedLog, print: crate::report::Printer) -> u8 {
    print_report_kept(loaded, print, None)
}

/// [`print_report`], copying the report into the result cache through
/// `keeper` when there is one; the entry is placed once the report is
/// whole and its exit code known.
fn print_report_kept(
    mut loaded: AnalyzedLog,
    print: crate::report::Printer,
    mut keeper: Option<results::ReportKeeper>,
) -> u8 {
    let started = Instant::now();
    let stdout = std::io::stdout();
    let written = {
        let tee = results::Tee {
            out: stdout.lock(),
            copy: keeper.as_mut(),
        };
        let mut out = LastByte {
            inner: std::io::BufWriter::with_capacity(1 << 16, tee),
            last: None,
        };
        print(&loaded.input(), &mut out).and_then(|()| {
            if out.last != Some(b'\n') {
                out.write_all(b"\n")?;
            }
            out.flush()
        })
    };
    crate::timing::phase("report", started);
    let code = match written {
        Ok(()) => {
            let problems = loaded.problems();
            for p in &problems {
                eprintln!("lockreplay: {}", crate::report::terminal_safe(p));
            }
            let code = if problems.is_empty() {
                exit_code_for(&loaded.analysis)
            } else {
                EXIT_ERROR
            };
            if let Some(keeper) = keeper {
                let outcome = results::StoredOutcome {
                    exit_code: code,
                    problems,
                };
                match keeper.finish(&outcome) {
                    Ok(path) => {
                        say_cache_status(&format!("report saved to cache ({})", path.display()));
                    }
                    Err(e) => say_cache_note(&format!("report not cached: {e}")),
                }
            }
            code
        }
        Err(e) => {
            eprintln!("lockreplay: cannot write the report to standard output: {e}");
            EXIT_ERROR
        }
    };
    // The cache's writes are waited for; then the process ends: freeing
    // millions of events one by one would only delay the exit (the OS takes
    // the memory back at once).
    drop(std::mem::take(&mut loaded.writes));
    std::mem::forget(loaded);
    code
}

/// A writer that remembers the last byte written through it.
struct LastByte<W: Write> {
    inner: W,
    last: Option<u8>,
}

impl<W: Write> Write for LastByte<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// What `lockreplay report` says on stderr of each phase (load, analysis,
/// pictures, files): a line when the phase ends, with its time; on a
/// terminal also what it is doing meanwhile, on one rewritten line.
pub struct Phases {
    terminal: bool,
    zh: bool,
}

impl Phases {
    /// Phases said in Chinese when `zh`, on stderr.
    pub fn new(zh: bool) -> Phases {
        Phases {
            terminal: std::io::stderr().is_terminal(),
            zh,
        }
    }

    /// What is being done now, `what` with `values` (a terminal only: the
    /// line is rewritten).
    pub fn doing(&self, what: Phrase, values: &[&str]) {
        if self.terminal {
            eprint!("\r\x1b[Klockreplay: {}", what.fill(self.zh, values));
        }
    }

    /// A phase ended: `what` with `values` and the time since `started`.
    pub fn done(&self, what: Phrase, values: &[&str], started: Instant) {
        let said = what.fill(self.zh, values);
        let secs = started.elapsed().as_secs_f64();
        let clear = if self.terminal { "\r\x1b[K" } else { "" };
        if self.zh {
            eprintln!("{clear}lockreplay：{said}（{secs:.1} 秒）");
        } else {
            eprintln!("{clear}lockreplay: {said} ({secs:.1} s)");
        }
    }
}

/// Progress of the report's pictures on stderr: `drawing picture 12 of 201` on
/// one rewritten line when stderr is a terminal, or, when it is not, one line
/// every 10 s once the drawing has taken 5 s (a large log's report draws for
/// about a minute, which must not pass without a word). Nothing for a short
/// report into a pipe.
struct PictureProgress {
    total: usize,
    done: std::cell::Cell<usize>,
    started: std::time::Instant,
    last_said: std::cell::Cell<Option<std::time::Instant>>,
    terminal: bool,
    zh: bool,
}

impl PictureProgress {
    fn new(total: usize, zh: bool) -> PictureProgress {
        use std::io::IsTerminal;
        PictureProgress {
            total,
            done: std::cell::Cell::new(0),
            started: std::time::Instant::now(),
            last_said: std::cell::Cell::new(None),
            terminal: std::io::stderr().is_terminal(),
            zh,
        }
    }

    /// One more picture begins.
    fn tick(&self) {
        let n = self.done.get() + 1;
        self.done.set(n);
        let now = std::time::Instant::now();
        let due = match self.last_said.get() {
            _ if self.terminal => true,
            None => now.duration_since(self.started).as_secs() >= 5,
            Some(t) => now.duration_since(t).as_secs() >= 10,
        };
        if !due {
            return;
        }
        self.last_said.set(Some(now));
        let total = self.total.max(n);
        let said = if self.zh {
            format!("lockreplay：正在绘制第 {n} 张图片，共 {total} 张")
        } else {
            format!("lockreplay: drawing picture {n} of {total}")
        };
        if self.terminal {
            let end = if n >= total { "\n" } else { "" };
            eprint!("\r{said}{end}");
        } else {
            eprintln!("{said}");
        }
    }
}

/// Writes the report folder of `loaded` into `dir` as a whole, never over
/// `inputs` ([`crate::report::write_report_dir`]); with `draw`, a picture
/// per top incident, per key of them and an overview in `style`;
/// report.md and the pictures' words in Chinese with `style.zh`; the
/// folder's extent (`--top`, `--full-trace`) in `folder`; each phase
/// (pictures, files) said through `phases`.
///
/// # Errors
/// When `dir` cannot be created or a file cannot be written (nothing is
/// placed), or when a picture failed: the folder is placed without it and
/// the error says which are missing (exit 2).
pub fn write_report_folder(
    loaded: &AnalyzedLog,
    dir: &Path,
    inputs: &[PathBuf],
    draw: Option<DrawTimeline>,
    style: PictureStyle,
    (top, full_trace, phases): (usize, bool, Option<&Phases>),
) -> anyhow::Result<()> {
    let input = loaded.input();
    let pictures = crate::report::pictured_incidents(&loaded.analysis.incidents, top).len()
        + crate::report::key_pictures(&input, top).len()
        + 1;
    let progress = PictureProgress::new(pictures, style.zh);
    let started = std::cell::Cell::new(Instant::now());
    let picture = draw.map(|draw| {
        let progress = &progress;
        move |subject: PictureSubject, path: &Path| {
            progress.tick();
            draw(loaded, subject, style, path)
        }
    });
    let drawn = std::cell::Cell::new(false);
    let on_file = |name: &str| {
        let Some(p) = phases else { return };
        if picture.is_some() && !drawn.replace(true) {
            p.done(
                phrase!("drew {} pictures", "已绘制 {} 张图片"),
                &[&progress.done.get().to_string()],
                started.replace(Instant::now()),
            );
        }
        p.doing(phrase!("writing {}", "正在写入 {}"), &[name]);
    };
    let folder = crate::report::FolderOptions {
        zh: style.zh,
        top,
        full_trace,
        on_file: Some(&on_file),
        names: Some(loaded.holder_names()),
    };
    let written = crate::report::write_report_dir(
        &input,
        dir,
        inputs,
        picture.as_ref().map(|p| p as crate::report::PictureFn<'_>),
        &folder,
    );
    if let Some(p) = phases {
        p.done(
            phrase!("wrote the report files", "已写入报告文件"),
            &[],
            started.get(),
        );
    }
    written
}

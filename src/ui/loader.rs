//! Loading on a named background thread: the window keeps drawing, shows
//! bytes read / total, and can cancel. Results come back over a channel that
//! the app drains each frame.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::analysis::{Analysis, AnalysisProgress, Settings, analyze_beside};
use crate::ingest::{CacheReport, PendingStore, Progress, load_paths_cached_later, read_source};
use crate::model::{LoadedLog, LogBuilder};
use crate::pipeline::results::{AnalysisAhead, ResultSlot, keep_analysis_said, keep_names_said};
use crate::playback::StateIndex;
use crate::report::holders::HolderNames;

use super::products::ProductFinder;
use super::session::{LazyIndex, ReadOptions, Session, Source};
use super::timeline::{Filters, SwimlaneModel};

/// The start-up sample's display name (its path in the repository): the seed
/// incident from the simulator (`sample-logs/README.md`): 500 requests, TTL
/// 2 s, 3 oversold at 200 CNY each.
pub const SAMPLE_NAME: &str = "sample-logs/seed-incident.jsonl";

/// The embedded start-up sample.
pub const SAMPLE_BYTES: &[u8] = include_bytes!("../../sample-logs/seed-incident.jsonl");

/// What the background worker does.
#[derive(Clone)]
pub enum Job {
    /// Read the source, then analyse it.
    Load(Source),
    /// Analyse a log already in memory again (the settings changed): the
    /// window keeps showing the old analysis until the new one is ready.
    Reanalyze {
        /// What the log was loaded from.
        source: Source,
        /// The log.
        log: Arc<LoadedLog>,
    },
}

impl Job {
    /// What it loads or loaded.
    pub fn source(&self) -> &Source {
        match self {
            Job::Load(s) | Job::Reanalyze { source: s, .. } => s,
        }
    }
}

/// A finished load: the session (log, analysis, playback index) and the
/// timeline's display list, all built off the UI thread.
pub struct LoadResult {
    /// The log and its analysis.
    pub session: Session,
    /// The timeline's display list, built with `filters`.
    pub model: SwimlaneModel,
    /// The filters the display list was built with.
    pub filters: Filters,
    /// True when this is a re-analysis of the log already shown.
    pub reanalysis: bool,
    /// What the cache's writes did, once they are done: a load writes its
    /// cache entries after its result is sent, so that the log is shown
    /// without waiting for them (seconds for a 10 M-event log). `None`
    /// when they were written before the result ([`load_now`]).
    pub written: Option<Receiver<CacheReport>>,
}

/// The cache entries a load leaves to write once its result is out.
#[derive(Default)]
struct PendingWrites {
    load: Option<PendingStore>,
    analysis: Option<ResultSlot>,
    names: Option<ResultSlot>,
}

impl PendingWrites {
    /// Writes them for `log`, its analysis and its labels; what the cache
    /// did (the load entry stored, a note for each entry not kept).
    fn write(self, (log, analysis, names): (&LoadedLog, &Analysis, &HolderNames)) -> CacheReport {
        let mut report = CacheReport::default();
        if let Some(p) = self.load {
            p.store(log, &mut report);
        }
        if let Some(slot) = self.analysis {
            report
                .notes
                .extend(keep_analysis_said(slot, analysis).notes);
        }
        let names = self.names.and_then(|slot| keep_names_said(slot, names));
        report.notes.extend(names);
        report
    }
}

/// `cache` with what the writes after it did (`written`).
pub fn merge_written(cache: &mut CacheReport, written: CacheReport) {
    if written.stored.is_some() {
        cache.stored = written.stored;
    }
    cache.notes.extend(written.notes);
}

/// A load in progress.
pub struct Loading {
    /// Shared progress (and the cancel flag).
    pub progress: Arc<Progress>,
    /// Receives the result once.
    pub rx: Receiver<Result<LoadResult, String>>,
    /// What is being loaded.
    pub source: Source,
    /// True for a re-analysis (no file is read).
    pub reanalysis: bool,
    /// The step the worker is at ([`Phase`] as a number).
    pub phase: Arc<AtomicU8>,
    /// Keys analysed, of all, while [`Phase::Analysing`] runs.
    pub analysis: Arc<AnalysisProgress>,
    /// When the job started.
    pub started: std::time::Instant,
}

/// The steps of a load, in order: the bar shows which one runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Reading and parsing the files (the bar shows the bytes).
    Reading = 0,
    /// Leases, overlaps, oversell and findings.
    Analysing = 1,
    /// The playback's index of who held what when.
    Indexing = 2,
    /// The timeline's display list.
    Drawing = 3,
}

impl Phase {
    /// Number of steps.
    pub const COUNT: u8 = 4;

    /// The phase stored as `n`.
    pub fn from_u8(n: u8) -> Phase {
        match n {
            0 => Phase::Reading,
            1 => Phase::Analysing,
            2 => Phase::Indexing,
            _ => Phase::Drawing,
        }
    }

    /// The share of the load done when this step starts, with the
    /// analysis's `(keys done, keys total)` moving the bar through
    /// [`Phase::Analysing`].
    pub fn fraction(self, (done, total): (u64, u64)) -> f32 {
        let within = match self {
            Phase::Analysing if total > 0 => done.min(total) as f32 / total as f32,
            _ => 0.0,
        };
        (f32::from(self as u8) + within) / f32::from(Phase::COUNT)
    }

    /// Its label key in the i18n table.
    pub fn label_key(self) -> &'static str {
        match self {
            Phase::Reading => "phase_reading",
            Phase::Analysing => "phase_analysing",
            Phase::Indexing => "phase_indexing",
            Phase::Drawing => "phase_drawing",
        }
    }
}

impl Loading {
    /// The step the worker is at.
    pub fn phase(&self) -> Phase {
        Phase::from_u8(self.phase.load(Ordering::Relaxed))
    }

    /// Asks the worker to stop.
    pub fn cancel(&self) {
        self.progress.cancel.store(true, Ordering::Relaxed);
    }

    /// Fraction done, 0..=1.
    pub fn fraction(&self) -> f32 {
        let read = self.progress.bytes_read.load(Ordering::Relaxed);
        let total = self.progress.bytes_total.load(Ordering::Relaxed).max(1);
        (read as f64 / total as f64).clamp(0.0, 1.0) as f32
    }

    /// `(bytes read, bytes total)`.
    pub fn bytes(&self) -> (u64, u64) {
        (
            self.progress.bytes_read.load(Ordering::Relaxed),
            self.progress.bytes_total.load(Ordering::Relaxed),
        )
    }
}

/// Runs `job` on this thread (the worker's body; also used by tests): reads
/// the source unless the log is given, analyses it with `settings`, and
/// builds the playback index and the timeline's display list with `filters`.
///
/// # Errors
/// The ingest error, in words.
pub fn load_now(
    job: &Job,
    opts: &ReadOptions,
    settings: &Settings,
    filters: &Filters,
    progress: &Progress,
) -> Result<LoadResult, String> {
    let counters = (&AtomicU8::new(0), &AnalysisProgress::default());
    let (mut result, pending) = load_in_phases(job, opts, settings, filters, progress, counters)?;
    let s = &result.session;
    build_index(&s.index, (&s.log, &s.analysis), s.settings.unit_loss);
    let written = pending.write((&s.log, &s.analysis, &s.names));
    merge_written(&mut result.session.cache, written);
    Ok(result)
}

/// [`load_now`], storing in `phase` the [`Phase`] it is at and in
/// `analysis` the keys analysed, with the cache's entries left to write.
fn load_in_phases(
    job: &Job,
    opts: &ReadOptions,
    settings: &Settings,
    filters: &Filters,
    progress: &Progress,
    (phase, analysis): (&AtomicU8, &AnalysisProgress),
) -> Result<(LoadResult, PendingWrites), String> {
    let set = |p: Phase| phase.store(p as u8, Ordering::Relaxed);
    set(Phase::Reading);
    let mut cache = CacheReport::default();
    let mut pending = PendingWrites::default();
    // A load of files: its analysis entry, when there is one, read beside
    // the log (checked against it once both are in), on a thread of its
    // own: a rayon join would run the log's read on a worker of the pool
    // that parses its chunks, and the read would wait there for them.
    let (log, ahead) = std::thread::scope(|s| {
        let ahead = s.spawn(|| match job {
            Job::Load(Source::Files(paths)) => {
                AnalysisAhead::read((paths, &opts.ingest, &opts.cache), settings)
            }
            _ => None,
        });
        let log = read_log(job, opts, progress, (&mut cache, &mut pending));
        (log, ahead.join().ok().flatten())
    });
    let log = log?;
    crate::timing::mark("window/log read");
    set(Phase::Analysing);
    let started = std::time::Instant::now();
    let (analysis, labels) = analyze_and_label(
        job,
        (opts, settings),
        &log,
        (analysis, ahead),
        (&mut cache, &mut pending),
    );
    crate::timing::phase("window/analyze", started);
    // The timeline's display list with the labels (a large share of the
    // window's open on a big log). The playback's index is built after the
    // log is shown ([`LazyIndex`]): only its extent now.
    set(Phase::Indexing);
    let started = std::time::Instant::now();
    let ((extent, products, list_price), (names, notes, slot)) = rayon::join(
        || {
            let extent = crate::playback::extent_of(&log, &analysis);
            let list_price = crate::money::list_price(&log);
            (extent, ProductFinder::of(&log, &analysis), list_price)
        },
        || match labels {
            LabelsOf::Made(labels) => *labels,
            LabelsOf::Kept(paths) => crate::pipeline::results::names_through_cache_later(
                (paths, &opts.ingest, &opts.cache),
                (&log, &analysis),
                settings,
            ),
        },
    );
    cache.notes.extend(notes);
    pending.names = slot;
    crate::timing::phase("window/labels", started);
    set(Phase::Drawing);
    let (analysis, names) = (Arc::new(analysis), Arc::new(names));
    let model = SwimlaneModel::build_lazy(&log, &analysis, filters, &names);
    crate::timing::phase("window/labels+model", started);
    let problems = crate::analysis::problems(&log, &analysis);
    let result = LoadResult {
        session: Session {
            source: job.source().clone(),
            log,
            analysis,
            settings: settings.clone(),
            index: Arc::new(LazyIndex::pending(extent)),
            products: Arc::new(products),
            names,
            list_price,
            cache,
            problems: Arc::new(problems),
            mapping: opts.mapping_path.clone(),
        },
        model,
        filters: filters.clone(),
        reanalysis: matches!(job, Job::Reanalyze { .. }),
        written: None,
    };
    Ok((result, pending))
}

/// Labels made beside an analysis ([`analyze_and_label`]): the labels, the
/// notes of a labels entry ignored, and the slot to keep them in.
type Labels = (HolderNames, Vec<String>, Option<ResultSlot>);

/// The holders' labels of a load ([`analyze_and_label`]).
enum LabelsOf<'a> {
    /// Made beside the analysis (boxed: a labels slot is 0.5 KB).
    Made(Box<Labels>),
    /// Not made: the analysis of these files came from the result cache,
    /// and so do the labels, read from the entry kept beside it.
    Kept(&'a [std::path::PathBuf]),
}

/// The analysis of `log` for `job` (through the result cache for a load of
/// files, using the entry read `ahead`; what the cache did in `cache`, the
/// entry to write in `pending`), and the holders' labels ([`LabelsOf`]).
fn analyze_and_label<'a>(
    job: &'a Job,
    (opts, settings): (&ReadOptions, &Settings),
    log: &LoadedLog,
    (analysis, ahead): (&AnalysisProgress, Option<AnalysisAhead>),
    (cache, pending): (&mut CacheReport, &mut PendingWrites),
) -> (Analysis, LabelsOf<'a>) {
    // The holders' labels are made beside the analysis, once its holds are
    // ([`crate::analysis::analyze_beside`]): at 10 M events they take about
    // as long as the analysis itself.
    match job {
        // A load of files: its analysis kept beside the load cache's entry,
        // the labels beside the analysis.
        Job::Load(Source::Files(paths)) => {
            let inputs = (paths.as_slice(), &opts.ingest, &opts.cache);
            let (a, kept, slot, labels) = crate::pipeline::results::analyze_through_cache_beside(
                inputs,
                log,
                settings,
                (analysis, ahead),
                |leases, server_view| {
                    let holds = (leases, server_view);
                    crate::pipeline::results::names_of_holds_through_cache_later(
                        inputs,
                        (log, holds),
                        settings,
                    )
                },
            );
            cache.notes.extend(kept.notes);
            pending.analysis = slot;
            (
                a,
                labels.map_or(LabelsOf::Kept(paths), |l| LabelsOf::Made(Box::new(l))),
            )
        }
        _ => {
            let (a, names) = analyze_beside(log, settings, analysis, |leases, server_view| {
                HolderNames::of_holds(log, leases, server_view)
            });
            (a, LabelsOf::Made(Box::new((names, Vec::new(), None))))
        }
    }
}

/// Builds the playback's index of `log` and `analysis` into `index`.
fn build_index(
    index: &LazyIndex,
    (log, analysis): (&LoadedLog, &Analysis),
    unit_loss: Option<f64>,
) {
    let started = std::time::Instant::now();
    index.fill(StateIndex::build(log, analysis, unit_loss));
    crate::timing::phase("window/index", started);
}

/// The log of `job`: the one given, the sample, or the files read through
/// the load cache (what it did in `cache`, its entry left in `pending`).
fn read_log(
    job: &Job,
    opts: &ReadOptions,
    progress: &Progress,
    (cache, pending): (&mut CacheReport, &mut PendingWrites),
) -> Result<Arc<LoadedLog>, String> {
    Ok(match job {
        Job::Reanalyze { log, .. } => log.clone(),
        Job::Load(Source::Sample) => {
            progress
                .bytes_total
                .store(SAMPLE_BYTES.len() as u64, Ordering::Relaxed);
            let mut builder = LogBuilder::new();
            read_source(
                SAMPLE_NAME,
                SAMPLE_BYTES,
                &opts.ingest,
                &mut builder,
                progress,
            )
            .map_err(|e| e.to_string())?;
            Arc::new(crate::ingest::settle(builder.finish()))
        }
        Job::Load(Source::Files(paths)) => {
            let (log, report, store) =
                load_paths_cached_later(paths, &opts.ingest, progress, &opts.cache)
                    .map_err(|e| e.to_string())?;
            *cache = report;
            pending.load = store;
            Arc::new(log)
        }
    })
}

/// Loads whose playback index and cache entries are still being made
/// after their result was sent: a window closed meanwhile waits for them
/// ([`wait_for_background_work`]), so that the next open finds whole
/// entries rather than none.
static AFTER_LOAD: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

/// Counts one load's work after its result in [`AFTER_LOAD`] while alive.
struct AfterLoad;

impl AfterLoad {
    fn start() -> AfterLoad {
        if let Ok(mut n) = AFTER_LOAD.0.lock() {
            *n += 1;
        }
        AfterLoad
    }
}

impl Drop for AfterLoad {
    fn drop(&mut self) {
        if let Ok(mut n) = AFTER_LOAD.0.lock() {
            *n = n.saturating_sub(1);
        }
        AFTER_LOAD.1.notify_all();
    }
}

/// Waits until no load is still writing its cache entries, at most
/// `limit`; true when none is.
pub fn wait_for_background_work(limit: Duration) -> bool {
    let Ok(n) = AFTER_LOAD.0.lock() else {
        return false;
    };
    AFTER_LOAD
        .1
        .wait_timeout_while(n, limit, |n| *n > 0)
        .is_ok_and(|(n, _)| *n == 0)
}

/// Starts loading on the `loader` thread; `repaint` is called when done.
pub fn spawn(
    job: Job,
    opts: ReadOptions,
    settings: Settings,
    filters: Filters,
    repaint: impl Fn() + Send + Sync + 'static,
) -> Loading {
    let progress = Arc::new(Progress::default());
    let phase = Arc::new(AtomicU8::new(0));
    let analysis = Arc::new(AnalysisProgress::default());
    let (tx, rx) = channel();
    let (p, ph, an) = (progress.clone(), phase.clone(), analysis.clone());
    let (source, reanalysis) = (job.source().clone(), matches!(job, Job::Reanalyze { .. }));
    // The progress on screen asks for its own next frame (a few a
    // second, `panels::spinner::FRAME`); the loader wakes the window once
    // more when it is done.
    let spawned = std::thread::Builder::new()
        .name("loader".into())
        .spawn(move || {
            let loaded = load_in_phases(&job, &opts, &settings, &filters, &p, (&ph, &an));
            let _after = AfterLoad::start();
            // The result first, then the playback's index, then the cache's
            // entries: the window shows the log while they are made, and
            // hears what the writes did.
            let (done, written) = channel();
            let (result, pending) = match loaded {
                Ok((mut result, pending)) => {
                    result.written = Some(written);
                    let s = &result.session;
                    let kept = (s.log.clone(), s.analysis.clone(), s.names.clone());
                    let index = (s.index.clone(), s.settings.unit_loss);
                    (Ok(result), Some((pending, kept, index)))
                }
                Err(e) => (Err(e), None),
            };
            let _ = tx.send(result);
            repaint();
            if let Some((pending, (log, analysis, names), (index, unit_loss))) = pending {
                build_index(&index, (&log, &analysis), unit_loss);
                repaint();
                let _ = done.send(pending.write((&log, &analysis, &names)));
                repaint();
            }
        });
    let rx = match spawned {
        Ok(_) => rx,
        Err(e) => {
            let (tx, rx) = channel();
            let _ = tx.send(Err(format!("cannot start the loader thread: {e}")));
            rx
        }
    };
    Loading {
        progress,
        rx,
        source,
        reanalysis,
        phase,
        analysis,
        started: std::time::Instant::now(),
    }
}

#[cfg(test)]
mod phase_tests {
    use super::*;
    use crate::ingest::{CacheConfig, IngestOptions};

    #[test]
    fn a_load_goes_through_every_phase_to_the_last() {
        for n in 0..Phase::COUNT {
            assert_eq!(Phase::from_u8(n) as u8, n);
        }
        let phase = AtomicU8::new(0);
        let analysis = AnalysisProgress::default();
        let r = load_in_phases(
            &Job::Load(Source::Sample),
            &ReadOptions::default(),
            &Settings::default(),
            &Filters::default(),
            &Progress::default(),
            (&phase, &analysis),
        );
        assert!(r.is_ok());
        assert_eq!(
            Phase::from_u8(phase.load(Ordering::Relaxed)),
            Phase::Drawing
        );
        // Every key of the sample was counted as analysed.
        let (done, total) = analysis.keys();
        assert!(total >= 1 && done == total, "{done} / {total}");
    }

    #[test]
    fn the_window_reads_a_second_open_from_the_load_cache() {
        let tmp = tempfile::tempdir().expect("tmp");
        let file = tmp.path().join("seed.jsonl");
        std::fs::write(&file, SAMPLE_BYTES).expect("write");
        let opts = ReadOptions {
            ingest: IngestOptions::default(),
            cache: CacheConfig {
                enabled: true,
                dir: Some(tmp.path().join("cache")),
                max_bytes: 1 << 30,
                min_input_bytes: 0,
            },
            mapping_path: None,
        };
        let job = Job::Load(Source::Files(vec![file]));
        let load = || {
            load_now(
                &job,
                &opts,
                &Settings::default(),
                &Filters::default(),
                &Progress::default(),
            )
            .expect("loads")
        };
        let first = load();
        assert!(first.session.cache.stored.is_some());
        assert!(first.session.cache.used.is_none());
        let second = load();
        assert_eq!(second.session.cache.used, first.session.cache.stored);
        assert_eq!(second.session.log.events, first.session.log.events);
        assert_eq!(
            second.session.analysis.incidents.len(),
            first.session.analysis.incidents.len()
        );
        // The cache's entries with extension `ext`.
        let entries = |ext: &str| -> Vec<_> {
            std::fs::read_dir(tmp.path().join("cache"))
                .expect("cache")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .collect()
        };
        // The analysis too: kept beside the load entry, read back whole.
        let kept = entries("lra");
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert_eq!(*second.session.analysis, *first.session.analysis);
        // The holders' labels too, read back the same.
        let labels = entries("lrn");
        assert_eq!(labels.len(), 1, "{labels:?}");
        for l in &second.session.analysis.leases {
            assert_eq!(
                second.session.names.get(l.holder),
                first.session.names.get(l.holder)
            );
        }
        assert!(second.session.cache.notes.is_empty());
        // A damaged one is ignored with a note, and the analysis computed;
        // damaged labels likewise, made again.
        for entry in [&kept[0], &labels[0]] {
            let mut bytes = std::fs::read(entry).expect("entry");
            let n = bytes.len();
            bytes[n - 1] ^= 0x40;
            std::fs::write(entry, bytes).expect("damage");
        }
        let third = load();
        let noted = |what: &str| {
            let notes = &third.session.cache.notes;
            let said = notes
                .iter()
                .any(|n| n.contains(what) && n.contains("ignored: bad checksum"));
            assert!(said, "{what}: {notes:?}");
        };
        noted("analysis cache entry");
        noted("labels cache entry");
        assert_eq!(*third.session.analysis, *first.session.analysis);
        for l in &third.session.analysis.leases {
            assert_eq!(
                third.session.names.get(l.holder),
                first.session.names.get(l.holder)
            );
        }
    }

    /// The sample written as `seed.jsonl` in `tmp`, and read options with
    /// the load cache on in `cache_dir`: a spawned load of it.
    fn spawn_sample(tmp: &std::path::Path, cache_dir: std::path::PathBuf) -> Loading {
        let file = tmp.join("seed.jsonl");
        std::fs::write(&file, SAMPLE_BYTES).expect("write");
        let opts = ReadOptions {
            ingest: IngestOptions::default(),
            cache: CacheConfig {
                enabled: true,
                dir: Some(cache_dir),
                max_bytes: 1 << 30,
                min_input_bytes: 0,
            },
            mapping_path: None,
        };
        let job = Job::Load(Source::Files(vec![file]));
        spawn(job, opts, Settings::default(), Filters::default(), || {})
    }

    #[test]
    fn a_spawned_load_sends_its_result_before_it_writes_the_cache() {
        let tmp = tempfile::tempdir().expect("tmp");
        let cache_dir = tmp.path().join("cache");
        let wait = std::time::Duration::from_secs(60);
        let loading = spawn_sample(tmp.path(), cache_dir.clone());
        let result = loading
            .rx
            .recv_timeout(wait)
            .expect("a result")
            .expect("loads");
        // Written after the result: the result says nothing was stored yet.
        assert!(result.session.cache.stored.is_none());
        let written = result.written.as_ref().expect("writes pending");
        let report = written.recv_timeout(wait).expect("the writes' report");
        // The playback's index is built before the writes, over the extent
        // the result came with.
        let index = result.session.index.get().expect("built by now");
        assert_eq!(index.extent(), result.session.index.extent());
        let stored = report.stored.clone().expect("the load entry stored");
        assert!(stored.is_file(), "{}", stored.display());
        assert!(report.notes.is_empty(), "{:?}", report.notes);
        let mut exts: Vec<String> = std::fs::read_dir(&cache_dir)
            .expect("cache")
            .filter_map(|e| {
                e.ok()?
                    .path()
                    .extension()
                    .map(|x| x.to_string_lossy().into_owned())
            })
            .collect();
        exts.sort();
        assert_eq!(exts, ["lra", "lrc", "lrn"]);
        let mut cache = result.session.cache.clone();
        merge_written(&mut cache, report);
        assert_eq!(cache.stored, Some(stored));
        // A window closing now would find nothing left to wait for.
        assert!(wait_for_background_work(wait));
    }

    #[test]
    fn cache_writes_that_fail_after_the_result_reach_the_status_bar_as_notes() {
        let tmp = tempfile::tempdir().expect("tmp");
        // A file where the cache directory should be: nothing can be written.
        let blocked = tmp.path().join("not-a-dir");
        std::fs::write(&blocked, b"x").expect("write");
        let wait = std::time::Duration::from_secs(60);
        let loading = spawn_sample(tmp.path(), blocked);
        let result = loading
            .rx
            .recv_timeout(wait)
            .expect("a result")
            .expect("loads");
        // The reads already said why the entries could not be read.
        let read_notes = result.session.cache.notes.len();
        let written = result.written.as_ref().expect("writes pending");
        let report = written.recv_timeout(wait).expect("the writes' report");
        assert!(report.stored.is_none());
        for what in [
            "load not cached",
            "analysis not cached",
            "labels not cached",
        ] {
            let said = report.notes.iter().any(|n| n.starts_with(what));
            assert!(said, "{what}: {:?}", report.notes);
        }
        let mut cache = result.session.cache.clone();
        merge_written(&mut cache, report);
        assert_eq!(cache.notes.len(), read_notes + 3, "{:?}", cache.notes);
    }

    #[test]
    fn the_bar_moves_through_the_analysis_with_the_keys_done() {
        assert_eq!(Phase::Reading.fraction((0, 0)), 0.0);
        assert_eq!(Phase::Analysing.fraction((0, 0)), 0.25);
        assert_eq!(Phase::Analysing.fraction((50, 100)), 0.375);
        assert_eq!(Phase::Analysing.fraction((100, 100)), 0.5);
        assert_eq!(Phase::Indexing.fraction((100, 100)), 0.5);
        assert_eq!(Phase::Drawing.fraction((100, 100)), 0.75);
    }
}

//! The result cache: what a command made of a load (the report `analyze`
//! printed, its exit code and the problems it said) kept beside the load
//! cache's entries (`ingest::cache`), so that a second run over the same
//! files with the same settings prints without reading, analysing or
//! formatting anything.
//!
//! A result's key is the load's key (this build, the ingest options, each
//! input's identity: [`cache::input_key`]) hashed with [`RESULT_VERSION`]
//! and a text naming the command and every setting that changes its output
//! (the analysis settings, the format, the language). Its entry has the load
//! entries' header (magic, version, key, payload length, checksum), which is
//! checked with the file's size before the payload is read; the payload is
//! the report's bytes, then the outcome ([`StoredOutcome`], bitcode), then
//! the report's length (8 bytes, little-endian). A report that is not UTF-8,
//! holds a character no printer lets through to a terminal, or does not end
//! with a line end, and an outcome whose exit code disagrees with its
//! problems, make the entry ignored with a note, never printed.

use std::io::Write;
use std::path::{Path, PathBuf};

use bitcode::{Decode, Encode};
use xxhash_rust::xxh3::Xxh3;

use crate::analysis::{Analysis, AnalysisProgress, Lease, Settings};
use crate::ingest::IngestOptions;
use crate::ingest::cache::{self, CacheConfig, EntryWriter, ResultKind};
use crate::model::LoadedLog;
use crate::report::holders::HolderNames;

/// The version of a result entry's payload: bumped whenever its layout or
/// what a report holds changes without the build changing (the build is in
/// the key already).
pub const RESULT_VERSION: u32 = 2;

/// The outcome of a printed report as stored after it: the exit code and
/// the problems said on standard error (English, as `analyze` says them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Encode, Decode)]
pub struct StoredOutcome {
    /// 0 no incident, 1 incidents, 2 a problem (then `problems` is not
    /// empty).
    pub exit_code: u8,
    /// Why the run is no answer, one sentence each.
    pub problems: Vec<String>,
}

/// Where one result is kept: its key, its entry and the cache it is in,
/// with what made the key (to check, once the work is done, that the
/// inputs did not change meanwhile).
pub struct ResultSlot {
    key: u128,
    path: PathBuf,
    dir: PathBuf,
    max_bytes: u64,
    inputs: Vec<PathBuf>,
    opts: IngestOptions,
    what: String,
}

/// The labels entry's layout, in its key: 2 since the labels are kept as
/// one text and the length of each (an entry of layout 1, one string a label,
/// is not found, rather than found and refused).
const NAMES_FORMAT: u32 = 2;

/// The key of `what` made from `paths` read with `opts`; `None` when an
/// input is no regular file, or the inputs are under `min_bytes` in all.
fn result_key(paths: &[PathBuf], opts: &IngestOptions, what: &str, min_bytes: u64) -> Option<u128> {
    let load = cache::input_key(paths, opts).filter(|k| k.bytes >= min_bytes)?;
    let mut h = Xxh3::new();
    for field in [
        b"lockreplay result".as_slice(),
        &RESULT_VERSION.to_le_bytes(),
        &load.hash.to_le_bytes(),
        what.as_bytes(),
    ] {
        h.update(&(field.len() as u64).to_le_bytes());
        h.update(field);
    }
    Some(h.digest128())
}

impl ResultSlot {
    /// The slot of a `kind` of result, `what` (the command and every
    /// setting that changes its output, as text) made from `paths` read with `opts`; `None` when
    /// `cfg` is off or names no directory, an input is no regular file, or
    /// the inputs are smaller than [`CacheConfig::min_input_bytes`].
    pub fn of(
        paths: &[PathBuf],
        opts: &IngestOptions,
        cfg: &CacheConfig,
        (kind, what): (ResultKind, String),
    ) -> Option<ResultSlot> {
        let dir = cfg.dir.as_ref().filter(|_| cfg.enabled)?;
        let key = result_key(paths, opts, &what, cfg.min_input_bytes)?;
        Some(ResultSlot {
            key,
            path: cache::result_path(dir, key, kind),
            dir: dir.clone(),
            max_bytes: cfg.max_bytes,
            inputs: paths.to_vec(),
            opts: opts.clone(),
            what,
        })
    }

    /// The entry's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The report kept in this slot: `Ok(None)` when there is none.
    ///
    /// # Errors
    /// Why the entry cannot be trusted, in a few words.
    pub fn read_report(&self) -> Result<Option<CachedReport>, String> {
        let Some(payload) = cache::read_payload(&self.path, self.key, self.max_bytes)? else {
            return Ok(None);
        };
        let cached = CachedReport::check(payload)?;
        touch(&self.path);
        Ok(Some(cached))
    }

    /// Starts keeping a report in this slot as it is printed.
    ///
    /// # Errors
    /// The cache directory cannot be made or written, in words.
    pub fn keep_report(self) -> Result<ReportKeeper, String> {
        let writer = EntryWriter::start(&self.dir, self.key, self.max_bytes)?;
        Ok(ReportKeeper {
            slot: self,
            writer,
            report_len: 0,
        })
    }
}

impl ResultSlot {
    /// The analysis of `log` with `settings` (`log` read from `paths` with
    /// `opts`): its slot in `cfg`, as [`ResultSlot::of`].
    pub fn for_analysis(
        paths: &[PathBuf],
        opts: &IngestOptions,
        cfg: &CacheConfig,
        settings: &Settings,
    ) -> Option<ResultSlot> {
        let what = format!("analysis {settings:?}");
        ResultSlot::of(paths, opts, cfg, (ResultKind::Analysis, what))
    }

    /// The payload kept in this slot made into a `T` by `decode` (which
    /// checks it): `Ok(None)` when there is none.
    fn read_checked<T>(
        &self,
        decode: impl FnOnce(&[u8]) -> Result<T, String>,
    ) -> Result<Option<T>, String> {
        let Some(payload) = cache::read_payload(&self.path, self.key, self.max_bytes)? else {
            return Ok(None);
        };
        let value = decode(&payload)?;
        touch(&self.path);
        Ok(Some(value))
    }

    /// The analysis kept in this slot, checked against `log`
    /// ([`crate::analysis::stored::decode`]): `Ok(None)` when there is
    /// none.
    ///
    /// # Errors
    /// Why the entry cannot be trusted, in a few words.
    pub fn read_analysis(&self, log: &LoadedLog) -> Result<Option<Analysis>, String> {
        self.read_checked(|payload| crate::analysis::stored::decode(payload, log))
    }

    /// The analysis kept in this slot, decoded but not checked: read before
    /// its log, beside it ([`AnalysisAhead`]).
    fn read_analysis_unchecked(&self) -> Result<Option<Analysis>, String> {
        self.read_checked(crate::analysis::stored::decode_unchecked)
    }

    /// Keeps `analysis` in this slot, unless an input changed since the
    /// key was made; then trims the cache directory to its cap. Returns
    /// the entry's path.
    ///
    /// # Errors
    /// Why no entry was placed, in words.
    pub fn keep_analysis(self, analysis: &Analysis) -> Result<PathBuf, String> {
        self.keep_payload(&crate::analysis::stored::encode(analysis))
    }

    /// The holders' labels of the analysis of `log` with `settings`
    /// (`log` read from `paths` with `opts`): their slot in `cfg`, as
    /// [`ResultSlot::of`].
    pub fn for_names(
        (paths, opts, cfg): (&[PathBuf], &IngestOptions, &CacheConfig),
        settings: &Settings,
    ) -> Option<ResultSlot> {
        ResultSlot::of(
            paths,
            opts,
            cfg,
            (
                ResultKind::Names,
                format!("names {NAMES_FORMAT} {settings:?}"),
            ),
        )
    }

    /// The labels kept in this slot, checked against `log`
    /// ([`HolderNames::decode`]): `Ok(None)` when there are none.
    ///
    /// # Errors
    /// Why the entry cannot be trusted, in a few words.
    pub fn read_names(&self, log: &LoadedLog) -> Result<Option<HolderNames>, String> {
        self.read_checked(|payload| HolderNames::decode(payload, log))
    }

    /// Keeps `names` in this slot, as [`ResultSlot::keep_analysis`].
    ///
    /// # Errors
    /// Why no entry was placed, in words.
    pub fn keep_names(self, names: &HolderNames) -> Result<PathBuf, String> {
        self.keep_payload(&names.encode())
    }

    /// Keeps `payload` in this slot, unless an input changed since the key
    /// was made; then trims the cache directory to its cap.
    fn keep_payload(self, payload: &[u8]) -> Result<PathBuf, String> {
        if result_key(&self.inputs, &self.opts, &self.what, 0) != Some(self.key) {
            return Err("an input changed while it was read".into());
        }
        let header = cache::header(self.key, payload);
        cache::write_raw(&self.dir, &self.path, &header, payload, self.max_bytes)?;
        cache::evict(&self.dir, self.max_bytes, &self.path)
            .map_err(|e| format!("cache directory {} not trimmed: {e}", self.dir.display()))?;
        Ok(self.path)
    }
}

/// What the result cache did for one analysis: a sentence for the user
/// when an entry was read or written, and the notes of entries ignored or
/// not written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnalysisCacheReport {
    /// "analysis from cache (PATH)" or "analysis saved to cache (PATH)".
    pub status: Option<String>,
    /// One sentence each.
    pub notes: Vec<String>,
}

/// The analysis of `log` (read from `paths` with `opts`) with `settings`:
/// from the result cache `cfg` when it keeps a sound one, else computed
/// (counting the keys done in `progress`) and kept there.
pub fn analyze_through_cache(
    inputs: (&[PathBuf], &IngestOptions, &CacheConfig),
    log: &LoadedLog,
    settings: &Settings,
    progress: &AnalysisProgress,
) -> (Analysis, AnalysisCacheReport) {
    let (analysis, mut report, slot) =
        analyze_through_cache_later(inputs, log, settings, (progress, None));
    if let Some(slot) = slot {
        let kept = keep_analysis_said(slot, &analysis);
        report.status = kept.status;
        report.notes.extend(kept.notes);
    }
    (analysis, report)
}

/// Keeps `analysis` in `slot` ([`ResultSlot::keep_analysis`]); what that
/// did, in the words every caller says it: "analysis saved to cache
/// (PATH)", or the note "analysis not cached: …".
pub fn keep_analysis_said(slot: ResultSlot, analysis: &Analysis) -> AnalysisCacheReport {
    let started = std::time::Instant::now();
    let mut said = AnalysisCacheReport::default();
    match slot.keep_analysis(analysis) {
        Ok(path) => said.status = Some(format!("analysis saved to cache ({})", path.display())),
        Err(e) => said.notes.push(format!("analysis not cached: {e}")),
    }
    crate::timing::phase("analysis cache/write", started);
    said
}

/// Keeps `names` in `slot` ([`ResultSlot::keep_names`]); the note
/// "labels not cached: …" when it could not.
pub fn keep_names_said(slot: ResultSlot, names: &HolderNames) -> Option<String> {
    slot.keep_names(names)
        .err()
        .map(|e| format!("labels not cached: {e}"))
}

/// An analysis entry read and decoded before its log is (the window reads
/// both at once on a second open: 0.25-0.33 s at 10 M events, beside the
/// load entry's decode); checked against the log by
/// [`analyze_through_cache_later`] before it is used.
pub struct AnalysisAhead(Result<Option<Analysis>, String>);

impl AnalysisAhead {
    /// The analysis entry for `paths` read with `opts` and analysed with
    /// `settings`, read now; `None` without a cache.
    pub fn read(
        (paths, opts, cfg): (&[PathBuf], &IngestOptions, &CacheConfig),
        settings: &Settings,
    ) -> Option<AnalysisAhead> {
        let slot = ResultSlot::for_analysis(paths, opts, cfg, settings)?;
        Some(AnalysisAhead(slot.read_analysis_unchecked()))
    }
}

/// [`analyze_through_cache`] with the entry's write left to the caller:
/// the analysis, what the cache did, and the slot to keep the analysis
/// in ([`ResultSlot::keep_analysis`]) when it was computed here. The entry
/// is the one read `ahead` when given, checked against `log` here.
pub fn analyze_through_cache_later(
    inputs: (&[PathBuf], &IngestOptions, &CacheConfig),
    log: &LoadedLog,
    settings: &Settings,
    progress_ahead: (&AnalysisProgress, Option<AnalysisAhead>),
) -> (Analysis, AnalysisCacheReport, Option<ResultSlot>) {
    let (analysis, report, slot, _) =
        analyze_through_cache_beside(inputs, log, settings, progress_ahead, |_, _| ());
    (analysis, report, slot)
}

/// [`analyze_through_cache_later`], calling `beside` with the holds
/// beside the rest of the analysis when it is computed here
/// ([`crate::analysis::analyze_beside`]); what `beside` returned then,
/// `None` for an analysis from the cache.
pub fn analyze_through_cache_beside<R: Send>(
    (paths, opts, cfg): (&[PathBuf], &IngestOptions, &CacheConfig),
    log: &LoadedLog,
    settings: &Settings,
    (progress, ahead): (&AnalysisProgress, Option<AnalysisAhead>),
    beside: impl FnOnce(&[Lease], &[Lease]) -> R + Send,
) -> (Analysis, AnalysisCacheReport, Option<ResultSlot>, Option<R>) {
    let mut report = AnalysisCacheReport::default();
    let slot = ResultSlot::for_analysis(paths, opts, cfg, settings);
    if let Some(slot) = &slot {
        let started = std::time::Instant::now();
        let read = match ahead {
            Some(AnalysisAhead(read)) => read.and_then(|a| match a {
                Some(a) => crate::analysis::stored::check_against(&a, log).map(|()| Some(a)),
                None => Ok(None),
            }),
            None => slot.read_analysis(log),
        };
        match read {
            Ok(Some(analysis)) => {
                crate::timing::phase("analysis cache", started);
                report.status = Some(format!("analysis from cache ({})", slot.path().display()));
                return (analysis, report, None, None);
            }
            Ok(None) => {}
            Err(reason) => report.notes.push(format!(
                "analysis cache entry {} ignored: {reason}; recomputed",
                slot.path().display()
            )),
        }
    }
    let started = std::time::Instant::now();
    let (analysis, made) = crate::analysis::analyze_beside(log, settings, progress, beside);
    crate::timing::phase("analyze", started);
    (analysis, report, slot, Some(made))
}

/// The holders' labels of `analysis` (of `log`, read from `paths` with
/// `opts`, analysed with `settings`): from the result cache `cfg` when it
/// keeps sound ones, else made ([`HolderNames::of`]) and kept there; the
/// notes of an entry ignored or not written.
pub fn names_through_cache(
    inputs: (&[PathBuf], &IngestOptions, &CacheConfig),
    log_analysis: (&LoadedLog, &Analysis),
    settings: &Settings,
) -> (HolderNames, Vec<String>) {
    let (names, mut notes, slot) = names_through_cache_later(inputs, log_analysis, settings);
    notes.extend(slot.and_then(|slot| keep_names_said(slot, &names)));
    (names, notes)
}

/// [`names_through_cache`] with the entry's write left to the caller: the
/// labels, the notes of an entry ignored, and the slot to keep the labels
/// in ([`ResultSlot::keep_names`]) when they were made here.
pub fn names_through_cache_later(
    inputs: (&[PathBuf], &IngestOptions, &CacheConfig),
    (log, analysis): (&LoadedLog, &Analysis),
    settings: &Settings,
) -> (HolderNames, Vec<String>, Option<ResultSlot>) {
    let holds = (analysis.leases.as_slice(), analysis.server_view.as_slice());
    names_of_holds_through_cache_later(inputs, (log, holds), settings)
}

/// [`names_through_cache_later`] from the holds an analysis will have
/// (its leases, then its server view: [`HolderNames::of_holds`]), as
/// [`crate::analysis::analyze_beside`] gives them.
pub fn names_of_holds_through_cache_later(
    (paths, opts, cfg): (&[PathBuf], &IngestOptions, &CacheConfig),
    (log, (leases, server_view)): (&LoadedLog, (&[Lease], &[Lease])),
    settings: &Settings,
) -> (HolderNames, Vec<String>, Option<ResultSlot>) {
    let mut notes = Vec::new();
    let slot = ResultSlot::for_names((paths, opts, cfg), settings);
    if let Some(slot) = &slot {
        match slot.read_names(log) {
            Ok(Some(names)) => return (names, notes, None),
            Ok(None) => {}
            Err(reason) => notes.push(format!(
                "labels cache entry {} ignored: {reason}; made again",
                slot.path().display()
            )),
        }
    }
    let names = HolderNames::of_holds(log, leases, server_view);
    (names, notes, slot)
}

/// Marks an entry as just used (its mtime), for the eviction's order.
fn touch(path: &Path) {
    if let Ok(f) = std::fs::File::options().append(true).open(path) {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
}

/// A report read from the cache, checked.
pub struct CachedReport {
    payload: Vec<u8>,
    report_len: usize,
    /// Its exit code and problems.
    pub outcome: StoredOutcome,
}

impl CachedReport {
    /// The report's bytes, as printed.
    pub fn report(&self) -> &[u8] {
        self.payload.get(..self.report_len).unwrap_or_default()
    }

    /// Splits and checks a payload (module docs).
    fn check(payload: Vec<u8>) -> Result<CachedReport, String> {
        let body_len = payload
            .len()
            .checked_sub(8)
            .ok_or("truncated (no report length)")?;
        let (body, tail) = payload.split_at(body_len);
        let n = u64::from_le_bytes(tail.try_into().map_err(|_| "no report length")?);
        let report_len = usize::try_from(n)
            .ok()
            .filter(|&n| n <= body.len())
            .ok_or("a report length past its end")?;
        let (report, outcome) = body.split_at(report_len);
        let outcome: StoredOutcome = bitcode::decode(outcome)
            .map_err(|e| format!("an outcome that does not decode ({e})"))?;
        if outcome.exit_code > 2 || (outcome.exit_code == 2) == outcome.problems.is_empty() {
            return Err("an exit code that disagrees with its problems".into());
        }
        let text = std::str::from_utf8(report).map_err(|_| "a report that is not UTF-8")?;
        if !text.ends_with('\n') {
            return Err("a report without its last line end".into());
        }
        if !crate::report::is_terminal_safe(text) {
            return Err("a report with a character no printer writes".into());
        }
        Ok(CachedReport {
            payload,
            report_len,
            outcome,
        })
    }
}

/// A report being kept as it is printed ([`ResultSlot::keep_report`]).
pub struct ReportKeeper {
    slot: ResultSlot,
    writer: EntryWriter,
    report_len: u64,
}

impl ReportKeeper {
    /// Appends printed bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        self.report_len += bytes.len() as u64;
        self.writer.push(bytes);
    }

    /// Completes the entry with the run's `outcome` and places it, unless
    /// an input changed while it was read; then trims the cache directory
    /// to its cap. Returns the entry's path.
    ///
    /// # Errors
    /// Why no entry was placed, in words.
    pub fn finish(mut self, outcome: &StoredOutcome) -> Result<PathBuf, String> {
        self.writer.push(&bitcode::encode(outcome));
        self.writer.push(&self.report_len.to_le_bytes());
        let s = &self.slot;
        let min = 0;
        if result_key(&s.inputs, &s.opts, &s.what, min) != Some(s.key) {
            return Err("an input changed while it was read".into());
        }
        self.writer.finish(&s.path)?;
        if let Err(e) = cache::evict(&s.dir, s.max_bytes, &s.path) {
            return Err(format!(
                "cache directory {} not trimmed: {e}",
                s.dir.display()
            ));
        }
        Ok(self.slot.path)
    }
}

/// Copies what is written to `out` into a [`ReportKeeper`] when there is
/// one: only what `out` took.
pub struct Tee<'a, W: Write> {
    /// Where the report goes.
    pub out: W,
    /// The copy, when the report is kept.
    pub copy: Option<&'a mut ReportKeeper>,
}

impl<W: Write> Write for Tee<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        if let Some(copy) = self.copy.as_mut() {
            copy.push(buf.get(..n).unwrap_or_default());
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(report: &[u8], outcome: &StoredOutcome) -> Vec<u8> {
        let mut p = report.to_vec();
        p.extend_from_slice(&bitcode::encode(outcome));
        p.extend_from_slice(&(report.len() as u64).to_le_bytes());
        p
    }

    fn outcome(exit_code: u8, problems: &[&str]) -> StoredOutcome {
        StoredOutcome {
            exit_code,
            problems: problems.iter().map(|p| p.to_string()).collect(),
        }
    }

    #[test]
    fn a_sound_payload_gives_its_report_and_outcome() {
        let o = outcome(1, &[]);
        let c = CachedReport::check(payload(b"{\n  \"a\": 1\n}\n", &o)).expect("sound");
        assert_eq!(c.report(), b"{\n  \"a\": 1\n}\n");
        assert_eq!(c.outcome, o);
        let o = outcome(2, &["no lock event"]);
        assert!(CachedReport::check(payload("报告\n".as_bytes(), &o)).is_ok());
    }

    #[test]
    fn payloads_no_printer_makes_are_refused() {
        let ok = outcome(0, &[]);
        let refused = |p: Vec<u8>| CachedReport::check(p).err().unwrap_or_default();
        assert!(refused(payload(b"a\x1b[2Jb\n", &ok)).contains("no printer writes"));
        assert!(refused(payload("a\u{202E}b\n".as_bytes(), &ok)).contains("no printer writes"));
        assert!(refused(payload("a\u{85}b\n".as_bytes(), &ok)).contains("no printer writes"));
        assert!(refused(payload(b"a\xffb\n", &ok)).contains("not UTF-8"));
        assert!(refused(payload(b"ab", &ok)).contains("last line end"));
        assert!(refused(payload(b"ab\n", &outcome(2, &[]))).contains("disagrees"));
        assert!(refused(payload(b"ab\n", &outcome(0, &["x"]))).contains("disagrees"));
        assert!(refused(payload(b"ab\n", &outcome(7, &[]))).contains("disagrees"));
        let mut long = payload(b"ab\n", &ok);
        let n = long.len();
        long[n - 8..].copy_from_slice(&1000u64.to_le_bytes());
        assert!(refused(long).contains("past its end"));
        assert!(refused(vec![1, 2, 3]).contains("truncated"));
        let mut bad = payload(b"ab\n", &ok);
        bad.truncate(3);
        bad.extend_from_slice(&[0xff; 3]);
        bad.extend_from_slice(&3u64.to_le_bytes());
        assert!(refused(bad).contains("does not decode"));
    }

    #[test]
    fn a_kept_report_is_read_back_and_a_damaged_one_is_named() {
        let tmp = tempfile::tempdir().expect("tmp");
        let log = tmp.path().join("a.jsonl");
        std::fs::write(&log, "{\"ts\":1,\"event\":\"acquired\"}\n").expect("write");
        let cfg = CacheConfig {
            enabled: true,
            dir: Some(tmp.path().join("cache")),
            max_bytes: cache::DEFAULT_MAX_BYTES,
            min_input_bytes: 0,
        };
        let opts = IngestOptions::default();
        let slot = |what: &str| {
            ResultSlot::of(
                std::slice::from_ref(&log),
                &opts,
                &cfg,
                (ResultKind::Report, what.into()),
            )
            .expect("a slot")
        };
        assert!(slot("a").read_report().expect("none yet").is_none());
        let mut keeper = slot("a").keep_report().expect("keeps");
        keeper.push(b"line one\n");
        keeper.push(b"line two\n");
        let path = keeper.finish(&outcome(1, &[])).expect("placed");
        let back = slot("a").read_report().expect("sound").expect("found");
        assert_eq!(back.report(), b"line one\nline two\n");
        assert_eq!(back.outcome.exit_code, 1);
        // Another setting is another key: not found.
        assert!(slot("b").read_report().expect("none").is_none());
        // A truncated entry is refused by its header and size, unread.
        let bytes = std::fs::read(&path).expect("read");
        std::fs::write(&path, &bytes[..bytes.len() - 5]).expect("cut");
        let err = slot("a").read_report().err().unwrap_or_default();
        assert!(err.contains("truncated or padded"), "{err}");
        let mut flipped = bytes.clone();
        flipped[cache::HEADER_LEN + 2] ^= 1;
        std::fs::write(&path, &flipped).expect("flip");
        assert_eq!(
            slot("a").read_report().err().as_deref(),
            Some("bad checksum")
        );
    }

    /// A log read from `bytes` (the sample's lines).
    fn log_of(bytes: &[u8]) -> LoadedLog {
        let mut b = crate::model::LogBuilder::new();
        let p = crate::ingest::Progress::default();
        crate::ingest::read_source("a.jsonl", bytes, &IngestOptions::default(), &mut b, &p)
            .expect("reads");
        crate::ingest::settle(b.finish())
    }

    #[test]
    fn an_analysis_read_ahead_is_used_only_once_checked_against_its_log() {
        let seed: &[u8] = include_bytes!("../../sample-logs/seed-incident.jsonl");
        let tmp = tempfile::tempdir().expect("tmp");
        let file = tmp.path().join("a.jsonl");
        std::fs::write(&file, seed).expect("write");
        let cfg = CacheConfig {
            enabled: true,
            dir: Some(tmp.path().join("cache")),
            max_bytes: cache::DEFAULT_MAX_BYTES,
            min_input_bytes: 0,
        };
        let (opts, settings) = (IngestOptions::default(), Settings::default());
        let inputs = (std::slice::from_ref(&file), &opts, &cfg);
        let progress = AnalysisProgress::default();
        let log = log_of(seed);
        // Nothing kept yet: read ahead finds nothing, and the analysis is made.
        let ahead = AnalysisAhead::read(inputs, &settings).expect("a cache");
        assert!(matches!(ahead.0, Ok(None)));
        let (made, _, slot) =
            analyze_through_cache_later(inputs, &log, &settings, (&progress, Some(ahead)));
        slot.expect("a slot").keep_analysis(&made).expect("kept");
        // Read ahead and checked: the same analysis, said to be from the cache.
        let ahead = AnalysisAhead::read(inputs, &settings);
        let (back, report, slot) =
            analyze_through_cache_later(inputs, &log, &settings, (&progress, ahead));
        assert_eq!(back, made);
        assert!(slot.is_none());
        assert!(report.status.is_some_and(|s| s.contains("from cache")));
        // Checked against a log it does not fit (the first 20 lines): ignored
        // with a note, and made again from that log.
        let head: Vec<u8> = seed
            .split_inclusive(|&b| b == b'\n')
            .take(20)
            .flatten()
            .copied()
            .collect();
        let other = log_of(&head);
        let ahead = AnalysisAhead::read(inputs, &settings);
        let (again, report, _) =
            analyze_through_cache_later(inputs, &other, &settings, (&progress, ahead));
        assert_eq!(again, crate::analysis::analyze(&other, &settings));
        let noted = report.notes.iter().any(|n| n.contains("ignored"));
        assert!(noted, "{:?}", report.notes);
    }

    #[test]
    fn a_report_over_the_cap_is_not_kept() {
        let tmp = tempfile::tempdir().expect("tmp");
        let log = tmp.path().join("a.jsonl");
        std::fs::write(&log, "{}\n").expect("write");
        let cfg = CacheConfig {
            enabled: true,
            dir: Some(tmp.path().join("cache")),
            max_bytes: 100,
            min_input_bytes: 0,
        };
        let slot = ResultSlot::of(
            &[log],
            &IngestOptions::default(),
            &cfg,
            (ResultKind::Report, "a".into()),
        )
        .expect("a slot");
        let path = slot.path().to_path_buf();
        let mut keeper = slot.keep_report().expect("keeps");
        keeper.push(&[b'x'; 200]);
        let err = keeper.finish(&outcome(0, &[])).expect_err("over the cap");
        assert!(err.contains("larger than the cache's cap"), "{err}");
        assert!(!path.exists());
    }
}

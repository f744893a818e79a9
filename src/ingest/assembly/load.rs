//! A load of several files: each read (by the parallel path or whole),
//! the same file given twice read once, devices refused; then what every
//! load does once its files are read ([`settle`]: the Redlock merge of
//! MONITOR captures, capture keys linked to the application's, lines tied
//! to holds by thread), and a warning for records that repeat another
//! file's.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use super::parallel;
use super::source::read_source;
use crate::ingest::{IngestError, IngestOptions, Progress, link, redlock, tie};
use crate::model::{
    Dialect, EvidenceKind, FileWarning, LoadedLog, LogBuilder, Message, SourceNote, Unreadable,
    VanishCause,
};

/// Loads files (read-only) into one log: events of all files merged and
/// sorted by time. Sets `progress.bytes_total` to the sum of the file sizes
/// and checks `progress.cancel` while reading.
///
/// When no timestamp carried an explicit offset, the display offset is the
/// `tz` option's (or the mapping's), else 0.
///
/// # Errors
/// [`IngestError::Io`] naming the first file that cannot be opened or read,
/// [`IngestError::Cancelled`], [`IngestError::TooManySources`].
pub fn load_paths(
    paths: &[PathBuf],
    opts: &IngestOptions,
    progress: &Progress,
) -> Result<LoadedLog, IngestError> {
    if paths.len() > usize::from(u16::MAX) {
        return Err(IngestError::TooManySources);
    }
    let io = |p: &Path| {
        let path = p.to_path_buf();
        move |error| IngestError::Io { path, error }
    };
    let mut total = 0u64;
    for p in paths {
        total += std::fs::metadata(p).map_err(io(p))?.len();
    }
    progress.bytes_total.store(total, Ordering::Relaxed);
    progress.bytes_read.store(0, Ordering::Relaxed);
    let mut builder = LogBuilder::new();
    let mut seen: Vec<(std::fs::Metadata, String)> = Vec::new();
    for p in paths {
        if progress.cancel.load(Ordering::Relaxed) {
            return Err(IngestError::Cancelled);
        }
        let name = p.display().to_string();
        if let Some(first) = same_file_seen(p, &name, &mut seen) {
            builder.warn(&name, 0, FileWarning::SameFile { first });
            continue;
        }
        if is_device(p) {
            return Err(IngestError::Device(name));
        }
        read_file(p, &name, opts, &mut builder, progress)?;
    }
    let tz = opts
        .tz
        .as_ref()
        .or(opts.mapping.as_ref().and_then(|m| m.tz.as_ref()));
    if let Some(tz) = tz {
        let first = builder
            .log
            .events
            .iter()
            .map(|e| e.at_ns)
            .min()
            .unwrap_or(0);
        // Ignored when an explicit offset was already seen (the first wins).
        builder.saw_offset(tz.offset_at(first));
    }
    let started = std::time::Instant::now();
    let mut log = builder.finish();
    crate::timing::phase("load/finish", started);
    for s in &mut log.sources {
        if let Some(table) = opts.pulled.get(&s.name) {
            s.notes.push(SourceNote::Pulled {
                table: table.clone(),
            });
        }
    }
    warn_duplicates_across_files(&mut log);
    let started = std::time::Instant::now();
    let log = settle(log);
    crate::timing::phase("load/settle", started);
    Ok(log)
}

/// Reads the file at `p` (shown as `name`) into `builder`: by the parallel
/// path when it takes the file (`parallel.rs`: plain JSON Lines or text
/// lines in a regular file), else whole ([`read_source`]). The two give the
/// same log.
///
/// # Errors
/// [`IngestError::Io`] naming `p`, and [`read_source`]'s errors.
fn read_file(
    p: &Path,
    name: &str,
    opts: &IngestOptions,
    builder: &mut LogBuilder,
    progress: &Progress,
) -> Result<(), IngestError> {
    // The parallel path reads a head to decide, and on "no" the file is
    // opened again: only a regular file may be. A FIFO, `/dev/stdin` or
    // a process substitution is opened once and read whole by the
    // general path (a second open would lose its head, or wait for a
    // writer that has gone).
    let regular = std::fs::metadata(p).is_ok_and(|m| m.is_file());
    if regular && parallel::read_jsonl(p, name, opts, builder, progress)? {
        return Ok(());
    }
    let f = std::fs::File::open(p).map_err(|error| IngestError::Io {
        path: p.to_path_buf(),
        error,
    })?;
    // A regular file is read up to the size it had when opened: one still
    // growing while read (a live log) is read as it was, never chased.
    let up_to = match f.metadata() {
        Ok(m) if m.is_file() => m.len(),
        _ => u64::MAX,
    };
    read_source(name, f.take(up_to), opts, builder, progress).map_err(|e| match e {
        IngestError::Io { error, .. } => IngestError::Io {
            path: p.to_path_buf(),
            error,
        },
        other => other,
    })
}

/// Warns, once per pair of files, when records of one file repeat records of
/// an earlier one (same time to the ns, event, key and holder): overlapping
/// exports, whose events, holds and oversold units would count twice. They
/// are kept (the files may really hold both); the warning says how many.
/// MONITOR captures are left out: Redlock nodes see the same commands. One
/// pass over the events, sorted by time: only events of one instant are
/// compared.
fn warn_duplicates_across_files(log: &mut LoadedLog) {
    if log.sources.len() < 2 {
        return;
    }
    let capture: Vec<bool> = log
        .sources
        .iter()
        .map(|s| s.dialect == Dialect::RedisMonitor)
        .collect();
    let mut pairs: std::collections::BTreeMap<(u16, u16), u64> = std::collections::BTreeMap::new();
    let mut seen: hashbrown::HashMap<
        (u8, Option<crate::model::Sym>, Option<crate::model::Sym>),
        u16,
    > = hashbrown::HashMap::default();
    let events = &log.events;
    let mut start = 0;
    while start < events.len() {
        let t = events[start].at_ns;
        let end = start + events[start..].iter().take_while(|e| e.at_ns == t).count();
        if end - start > 1 {
            seen.clear();
            for e in &events[start..end] {
                let file = e.source.file;
                if capture.get(usize::from(file)).copied().unwrap_or(true) {
                    continue;
                }
                let id = (e.kind as u8, e.key, e.holder);
                match seen.get(&id) {
                    Some(&first) if first != file => {
                        *pairs.entry((file, first)).or_insert(0) += 1;
                    }
                    Some(_) => {}
                    None => {
                        seen.insert(id, file);
                    }
                }
            }
        }
        start = end;
    }
    for ((file, first), n) in pairs {
        let name = |f: u16| {
            log.sources
                .get(usize::from(f))
                .map_or_else(String::new, |s| s.name.clone())
        };
        let (later, earlier) = (name(file), name(first));
        log.warnings.push(crate::model::Warning {
            file: later,
            line: 0,
            reason: FileWarning::RepeatedRecords {
                records: n,
                earlier,
            }
            .into(),
        });
    }
}

/// Whether `p` is a character or block device (`/dev/zero`, `/dev/urandom`,
/// a disk): endless or not a log. A FIFO (`<(zcat x.gz)`) is read, within
/// [`MAX_INPUT_BYTES`].
fn is_device(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(p).is_ok_and(|m| {
            let t = m.file_type();
            t.is_char_device() || t.is_block_device()
        })
    }
    #[cfg(not(unix))]
    {
        let _ = p;
        false
    }
}

/// The name under which the file at `p` was already given (the same device
/// and inode: the path twice, a symlink or a hard link), else records it in
/// `seen` and returns `None`. Reading it twice would double its events,
/// holds and oversold units.
fn same_file_seen(
    p: &Path,
    name: &str,
    seen: &mut Vec<(std::fs::Metadata, String)>,
) -> Option<String> {
    let meta = std::fs::metadata(p).ok()?;
    if !meta.is_file() {
        return None;
    }
    if let Some((_, first)) = seen.iter().find(|(m, _)| crate::fsio::same_file(m, &meta)) {
        return Some(first.clone());
    }
    seen.push((meta, name.to_string()));
    None
}

/// What every load does once all its files are read: the Redlock merge of
/// MONITOR captures, capture keys linked to the application's, lines tied
/// to holds by thread, and per file the count of lock events and the reason
/// it is unreadable when no event was read. [`load_paths`] calls it; a
/// caller that reads sources itself with [`read_source`] (the window's
/// embedded sample) calls it on [`LogBuilder::finish`]'s log.
pub fn settle(mut log: LoadedLog) -> LoadedLog {
    redlock::combine_redlock_nodes(&mut log);
    link::link_capture_keys(&mut log);
    tie::tie_by_thread(&mut log);
    let counts = lock_events_per_source(&log);
    for (s, n) in log.sources.iter_mut().zip(counts) {
        s.lock_events = n;
    }
    for s in &mut log.sources {
        s.unreadable = Unreadable::of(s).map(|u| u.en());
    }
    note_business_only(&mut log);
    note_quiet_evidence(&mut log);
    name_vanish_causes(&mut log);
    log
}

/// The lock events of each of `log`'s sources, counted on the pool from
/// [`crate::model::PARALLEL_MIN`] events (0.02 s of one core at 10 M).
fn lock_events_per_source(log: &LoadedLog) -> Vec<u64> {
    use rayon::prelude::*;
    let n = log.sources.len();
    let count = |mut counts: Vec<u64>, e: &crate::model::Event| {
        if e.kind.is_lock()
            && let Some(c) = counts.get_mut(usize::from(e.source.file))
        {
            *c += 1;
        }
        counts
    };
    if log.events.len() < crate::model::PARALLEL_MIN {
        return log.events.iter().fold(vec![0; n], count);
    }
    log.events.par_iter().fold(|| vec![0; n], count).reduce(
        || vec![0; n],
        |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
    )
}

/// How far outside a vanished key's window (the last command that saw it,
/// the write that found it gone) an evidence line may stand and still be
/// its cause, ns: a server's clock and the capture's differ by that much.
const VANISH_SLACK_NS: i64 = 100_000_000;

/// The likely cause of each lock key a MONITOR capture shows vanished
/// without saying why: the evidence line that loses keys (a failover first,
/// then a promotion, a restart, a flush, an eviction) inside its window;
/// else the server's eviction policy, when one that evicts is given (a
/// guess); else unknown.
fn name_vanish_causes(log: &mut LoadedLog) {
    let rank = |k: EvidenceKind| match k {
        EvidenceKind::Failover => 0,
        EvidenceKind::Promoted => 1,
        EvidenceKind::Restart => 2,
        EvidenceKind::Flush => 3,
        _ => 4,
    };
    let policy = log.sources.iter().find_map(|s| {
        s.notes.iter().find_map(|n| match n {
            SourceNote::EvictionPolicy { policy, .. } if policy != "noeviction" => {
                Some((policy.clone(), base_name(&s.name)))
            }
            _ => None,
        })
    });
    let names: Vec<String> = log.sources.iter().map(|s| base_name(&s.name)).collect();
    let evidence = &log.evidence;
    for s in &mut log.sources {
        for n in &mut s.notes {
            let SourceNote::LockVanished {
                from_ns,
                to_ns,
                cause,
                ..
            } = n
            else {
                continue;
            };
            if *cause != VanishCause::Unknown {
                continue;
            }
            let (from, to) = (*from_ns - VANISH_SLACK_NS, *to_ns + VANISH_SLACK_NS);
            let best = evidence
                .iter()
                .filter(|e| e.kind.loses_keys() && e.at_ns >= from && e.at_ns <= to)
                .min_by_key(|e| (rank(e.kind), e.at_ns));
            *cause = match (best, &policy) {
                (Some(e), _) => VanishCause::Evidence {
                    kind: e.kind.as_str().to_string(),
                    file: names
                        .get(usize::from(e.source.file))
                        .cloned()
                        .unwrap_or_default(),
                    line: u64::from(e.source.line),
                },
                (None, Some((policy, file))) => VanishCause::Policy {
                    policy: policy.clone(),
                    file: file.clone(),
                },
                (None, None) => VanishCause::Unknown,
            };
        }
    }
}

/// A file's name without its folders.
fn base_name(name: &str) -> String {
    Path::new(name)
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or(name)
        .to_string()
}

/// A file read as evidence in which nothing explains a lock (a healthy GC
/// log, a Sentinel that saw no failover), beside files that carry the
/// locks, is a note, not an error. Without a lock event anywhere it stays
/// unreadable: the run is no answer (exit 2), never a false all-clear.
fn note_quiet_evidence(log: &mut LoadedLog) {
    if !log.sources.iter().any(|s| s.lock_events > 0) {
        return;
    }
    for s in &mut log.sources {
        let says_policy = s
            .notes
            .iter()
            .any(|n| matches!(n, SourceNote::EvictionPolicy { .. }));
        if s.dialect == Dialect::Infrastructure && s.events_loaded == 0 && s.evidence_items == 0 {
            s.unreadable = None;
            if !says_policy {
                s.notes.push(SourceNote::NoEvidence {
                    layout: s.layout.clone().unwrap_or_default(),
                    lines: s.lines_read,
                });
            }
        }
    }
}

/// A file of business events only, beside files that carry the locks, is
/// a note, not an error: its sales are tied to the holds.
fn note_business_only(log: &mut LoadedLog) {
    if !log.sources.iter().any(|s| s.lock_events > 0) {
        return;
    }
    for s in &mut log.sources {
        if s.lock_events == 0 && s.events_loaded > 0 {
            s.notes.push(SourceNote::BusinessOnly {
                events: s.events_loaded,
            });
        }
    }
}

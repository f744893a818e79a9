//! A load of several files: each read (by the parallel path or whole),
//! the same file given twice read once, devices refused; then what every
//! load does once its files are read ([`settle`]: the Redlock merge of
//! MONITOR captures, capture keys linked to the application's, lines tied
//! to holds by thread), and a warning for records that repeat another
//! file's.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use super::parallel;
use super::source::read_source;
use crate::ingest::{IngestError, IngestOptions, Progress, link, redlock, tie};
use crate::model::{Dialect, FileWarning, LoadedLog, LogBuilder, Message, SourceNote, Unreadable};

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
    // general path (issue #35: its head was lost, or the second open
    // waited for a writer that had gone).
    let regular = std::fs::metadata(p).is_ok_and(|m| m.is_file());
    if regular && parallel::read_jsonl(p, name, opts, builder, progress)? {
        return Ok(());
    }
    let f = std::fs::File::open(p).map_err(|error| IngestError::Io {
        path: p.to_path_buf(),
        error,
    })?;
    read_source(name, f, opts, builder, progress).map_err(|e| match e {
        IngestError::Io { error, .. } => IngestError::Io {
            path: p.to_path_buf(),
            error,
        },
        other => other,
    })
}

/// Warns, once per pair of files, when records of one file repeat records of
/// an earlier one (same time to the ns, event, key and holder): overlapping
/// exports, whose events, holds and oversold units would count twice
/// (issue #18). They are kept (the files may really hold both); the warning
/// says how many. MONITOR captures are left out: Redlock nodes see the same
/// commands. One pass over the events, sorted by time: only events of one
/// instant are compared.
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
/// holds and oversold units (issue #18).
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
    for e in &log.events {
        if e.kind.is_lock()
            && let Some(s) = log.sources.get_mut(usize::from(e.source.file))
        {
            s.lock_events += 1;
        }
    }
    for s in &mut log.sources {
        s.unreadable = Unreadable::of(s).map(|u| u.en());
    }
    note_business_only(&mut log);
    log
}

/// A file of business events only, beside files that carry the locks, is
/// a note, not an error (issue 33): its sales are tied to the holds.
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

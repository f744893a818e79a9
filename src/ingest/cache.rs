//! The load cache: a second open of the same files
//! reads the [`LoadedLog`] a first open saved instead of reading the logs
//! again. Every command and the window load through [`load_paths_cached`]
//! or [`load_paths_cached_later`], which leaves the entry's write to the
//! caller (the window writes it once the log is shown, the CLI beside its
//! analysis and report).
//!
//! An entry is one file in the cache directory, named by its key: a hash
//! of this build (format and crate version), of every ingest option (their
//! `Debug` text: zone, mapping with its patterns, MONITOR globs, TTLs) and
//! of each input in order: the path as given and its canonical path,
//! device, inode, size, mtime and ctime (ns), and a hash of its first and
//! last 64 KiB. The entry is a header ([`MAGIC`], [`FORMAT_VERSION`], the
//! key, the payload's length and its xxh3 checksum) and the payload
//! ([`crate::model::stored`], bitcode: a frame, a head, then chunks of
//! events encoded and decoded in parallel). Anything off (truncated, another
//! version, another key, a bad checksum, a payload that does not decode or
//! breaks an invariant) is ignored with a note and the log is read again,
//! never trusted. A cache directory that cannot be made or written is a
//! note, never an error. Input files are only read.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use super::{IngestError, IngestOptions, Progress, load_paths};
use crate::model::{LoadedLog, stored};

/// The first bytes of every entry.
pub const MAGIC: &[u8; 8] = b"LRCACHE\0";

/// The entry format's version: bumped whenever the header or the stored
/// form of a log changes, so that an old entry is ignored (and rebuilt).
pub const FORMAT_VERSION: u32 = 6;

/// Header bytes: magic (8), version (4), key (16), payload length (8),
/// payload checksum (8), all little-endian.
pub const HEADER_LEN: usize = 44;

/// Inputs smaller than this in total (1 MiB) are neither looked up nor
/// stored: they load in a few ms, about what an entry costs to check and
/// write (docs/performance.md, "The load cache").
pub const MIN_INPUT_BYTES: u64 = 1 << 20;

/// Default cap on the cache directory's entries, bytes (2 GiB); the
/// environment's `LOCKREPLAY_CACHE_MAX_MB` sets another.
pub const DEFAULT_MAX_BYTES: u64 = 2 << 30;

/// Bytes hashed at each end of an input for its key (64 KiB).
const EDGE_BYTES: u64 = 64 << 10;

/// The load entries' file extension.
const ENTRY_EXT: &str = "lrc";

/// The result entries' file extensions (`pipeline::results`): a printed
/// report, an analysis, the holders' labels. The same header and
/// directory, under the same cap.
const RESULT_EXTS: [&str; 3] = ["lrr", "lra", "lrn"];

/// Where and whether the cache is used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheConfig {
    /// False: load without the cache (`--no-cache`, the window's setting).
    pub enabled: bool,
    /// The cache directory; `None` when the platform names none.
    pub dir: Option<PathBuf>,
    /// Most bytes the entries may take; the least recently used go first.
    pub max_bytes: u64,
    /// Inputs below this many bytes in total skip the cache.
    pub min_input_bytes: u64,
}

impl CacheConfig {
    /// The cache of this user: `LOCKREPLAY_CACHE_DIR` when set, else the
    /// platform's cache directory plus `lockreplay` (`$XDG_CACHE_HOME` or
    /// `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on
    /// Windows); capped at `LOCKREPLAY_CACHE_MAX_MB` MiB when that is a
    /// number, else [`DEFAULT_MAX_BYTES`].
    pub fn from_env(enabled: bool) -> CacheConfig {
        let dir = std::env::var_os("LOCKREPLAY_CACHE_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| dirs::cache_dir().map(|d| d.join("lockreplay")));
        let max_bytes = std::env::var("LOCKREPLAY_CACHE_MAX_MB")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(DEFAULT_MAX_BYTES, |mb| mb.saturating_mul(1 << 20));
        CacheConfig {
            enabled,
            dir,
            max_bytes,
            min_input_bytes: MIN_INPUT_BYTES,
        }
    }

    /// No cache.
    pub fn off() -> CacheConfig {
        CacheConfig {
            enabled: false,
            dir: None,
            max_bytes: 0,
            min_input_bytes: u64::MAX,
        }
    }
}

impl Default for CacheConfig {
    /// [`CacheConfig::off`]: a library user asks for the cache.
    fn default() -> CacheConfig {
        CacheConfig::off()
    }
}

/// What the cache did for one load. Not part of the [`LoadedLog`]: the
/// reports stay byte-identical with and without it; the CLI says it on
/// stderr and the window in its status bar.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheReport {
    /// The entry the log was read from.
    pub used: Option<PathBuf>,
    /// The entry written after reading the logs.
    pub stored: Option<PathBuf>,
    /// Entries ignored and directories that could not be written, one
    /// sentence each ("cache entry … ignored: bad checksum; rebuilt").
    pub notes: Vec<String>,
}

impl CacheReport {
    /// "loaded from cache (PATH)" or "saved to cache (PATH)", when either.
    pub fn status(&self) -> Option<String> {
        match (&self.used, &self.stored) {
            (Some(p), _) => Some(format!("loaded from cache ({})", p.display())),
            (None, Some(p)) => Some(format!("saved to cache ({})", p.display())),
            (None, None) => None,
        }
    }
}

/// [`load_paths`] through the cache: an entry for these inputs and
/// options is read when there is a sound one, else the files are read and
/// an entry written (when they total at least
/// [`CacheConfig::min_input_bytes`], are all regular files, and did not
/// change while read).
///
/// # Errors
/// Those of [`load_paths`]; never one of the cache's.
pub fn load_paths_cached(
    paths: &[PathBuf],
    opts: &IngestOptions,
    progress: &Progress,
    cfg: &CacheConfig,
) -> Result<(LoadedLog, CacheReport), IngestError> {
    let (log, mut report, pending) = load_paths_cached_later(paths, opts, progress, cfg)?;
    if let Some(pending) = pending {
        pending.store(&log, &mut report);
    }
    Ok((log, report))
}

/// [`load_paths_cached`] with the entry's write left to the caller: the
/// log, what the cache did so far, and the entry still to write (when
/// the log was read from files that did not change while read), which
/// [`PendingStore::store`] writes when the caller has time (the window:
/// after the log is shown; encoding and writing a 10 M-event log's entry
/// takes 0.5-1.1 s).
///
/// # Errors
/// Those of [`load_paths`]; never one of the cache's.
pub fn load_paths_cached_later(
    paths: &[PathBuf],
    opts: &IngestOptions,
    progress: &Progress,
    cfg: &CacheConfig,
) -> Result<(LoadedLog, CacheReport, Option<PendingStore>), IngestError> {
    let mut report = CacheReport::default();
    let key = match (&cfg.dir, cfg.enabled) {
        (Some(dir), true) => input_key(paths, opts)
            .filter(|k| k.bytes >= cfg.min_input_bytes)
            .map(|k| (dir, k)),
        _ => None,
    };
    let Some((dir, key)) = key else {
        return Ok((load_paths(paths, opts, progress)?, report, None));
    };
    let entry = entry_path(dir, key.hash);
    match read_entry(&entry, key.hash, cfg.max_bytes) {
        Ok(Some((log, len))) => {
            progress.bytes_total.store(len, Ordering::Relaxed);
            progress.bytes_read.store(len, Ordering::Relaxed);
            touch(&entry);
            report.used = Some(entry);
            return Ok((log, report, None));
        }
        Ok(None) => {}
        Err(reason) => report.notes.push(format!(
            "cache entry {} ignored: {reason}; rebuilt",
            entry.display()
        )),
    }
    let log = load_paths(paths, opts, progress)?;
    // Files that changed while they were read are not stored.
    let unchanged = input_key(paths, opts).is_some_and(|k| k.hash == key.hash);
    let pending = unchanged.then(|| PendingStore {
        dir: dir.clone(),
        entry,
        key: key.hash,
        max_bytes: cfg.max_bytes,
    });
    Ok((log, report, pending))
}

/// A load entry still to write ([`load_paths_cached_later`]).
#[derive(Debug)]
pub struct PendingStore {
    dir: PathBuf,
    entry: PathBuf,
    key: u128,
    max_bytes: u64,
}

impl PendingStore {
    /// Writes `log` (the log read from the inputs this entry is keyed by)
    /// as the entry, atomically, then trims the directory to the cache's
    /// cap; says what it did in `report` (`stored`, or a note why not).
    pub fn store(self, log: &LoadedLog, report: &mut CacheReport) {
        let started = std::time::Instant::now();
        match write_entry(&self.dir, &self.entry, self.key, log, self.max_bytes) {
            Ok(()) => {
                if let Err(e) = evict(&self.dir, self.max_bytes, &self.entry) {
                    report.notes.push(format!(
                        "cache directory {} not trimmed: {e}",
                        self.dir.display()
                    ));
                }
                report.stored = Some(self.entry);
            }
            Err(e) => report.notes.push(format!("load not cached: {e}")),
        }
        crate::timing::phase("load cache/write", started);
    }
}

/// The entry file of `key` in `dir`.
pub fn entry_path(dir: &Path, key: u128) -> PathBuf {
    dir.join(format!("{key:032x}.{ENTRY_EXT}"))
}

/// The kinds of result entries kept beside the load entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultKind {
    /// A printed report with its exit code (`.lrr`).
    Report,
    /// An analysis (`.lra`).
    Analysis,
    /// The holders' labels of an analysis (`.lrn`,
    /// [`crate::report::holders::HolderNames`]).
    Names,
}

/// The result entry file of `key` in `dir`: a report or an analysis kept
/// beside the load entries, evicted with them.
pub fn result_path(dir: &Path, key: u128, kind: ResultKind) -> PathBuf {
    let ext = RESULT_EXTS[kind as usize];
    dir.join(format!("{key:032x}.{ext}"))
}

/// A load's key and its inputs' total size, bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputKey {
    /// The hash that names the entry.
    pub hash: u128,
    /// Bytes of all inputs (as stored, compressed or not).
    pub bytes: u64,
}

/// The running executable's size and modification time (ns), hashed; 0
/// when they cannot be read. Part of every key: entries written by one
/// build are misses for another, even at the same `CARGO_PKG_VERSION`.
fn build_identity() -> u64 {
    static ID: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *ID.get_or_init(|| {
        let Some(meta) = std::env::current_exe().ok().and_then(|p| p.metadata().ok()) else {
            return 0;
        };
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let mut h = Xxh3::new();
        h.update(&meta.len().to_le_bytes());
        h.update(&mtime.to_le_bytes());
        h.digest()
    })
}

/// The key of loading `paths` with `opts`, or `None` when an input is no
/// regular file (stdin, a FIFO, a process substitution, a device) or
/// cannot be looked at: such a load is never cached.
pub fn input_key(paths: &[PathBuf], opts: &IngestOptions) -> Option<InputKey> {
    let mut h = Xxh3::new();
    let field = |h: &mut Xxh3, b: &[u8]| {
        h.update(&(b.len() as u64).to_le_bytes());
        h.update(b);
    };
    field(&mut h, b"lockreplay load cache");
    field(&mut h, &FORMAT_VERSION.to_le_bytes());
    field(&mut h, env!("CARGO_PKG_VERSION").as_bytes());
    // The program itself: a new build may read the same file differently
    // (a reading fix), so its entries are never another build's.
    field(&mut h, &build_identity().to_le_bytes());
    field(&mut h, format!("{opts:?}").as_bytes());
    field(&mut h, &(paths.len() as u64).to_le_bytes());
    let mut bytes = 0u64;
    for p in paths {
        let meta = std::fs::metadata(p).ok()?;
        let canonical = std::fs::canonicalize(p).ok()?;
        let special = |q: &Path| q.starts_with("/dev") || q.starts_with("/proc");
        if !meta.is_file() || special(p) || special(&canonical) {
            return None;
        }
        field(&mut h, p.as_os_str().as_encoded_bytes());
        field(&mut h, canonical.as_os_str().as_encoded_bytes());
        field(&mut h, &identity(&meta));
        field(&mut h, &edges_hash(p, meta.len()).ok()?.to_le_bytes());
        bytes = bytes.saturating_add(meta.len());
    }
    Some(InputKey {
        hash: h.digest128(),
        bytes,
    })
}

/// Device, inode, size, mtime and ctime (ns) of a file. The ctime changes
/// on every write and cannot be set back, so a file rewritten with its
/// mtime restored still gets a new key.
#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> Vec<u8> {
    use std::os::unix::fs::MetadataExt;
    [
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime() as u64,
        meta.mtime_nsec() as u64,
        meta.ctime() as u64,
        meta.ctime_nsec() as u64,
    ]
    .iter()
    .flat_map(|v| v.to_le_bytes())
    .collect()
}

/// Size and mtime (ns) of a file, where no device and inode are known.
#[cfg(not(unix))]
fn identity(meta: &std::fs::Metadata) -> Vec<u8> {
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let mut out = meta.len().to_le_bytes().to_vec();
    out.extend_from_slice(&mtime.to_le_bytes());
    out
}

/// The xxh3 hash of a file's first and last [`EDGE_BYTES`] (the whole file
/// when it is smaller than both).
fn edges_hash(path: &Path, len: u64) -> std::io::Result<u64> {
    let mut f = std::fs::File::open(path)?;
    let mut buf = Vec::with_capacity(2 * EDGE_BYTES as usize);
    if len <= 2 * EDGE_BYTES {
        f.take(2 * EDGE_BYTES).read_to_end(&mut buf)?;
    } else {
        (&mut f).take(EDGE_BYTES).read_to_end(&mut buf)?;
        f.seek(SeekFrom::Start(len - EDGE_BYTES))?;
        f.take(EDGE_BYTES).read_to_end(&mut buf)?;
    }
    Ok(xxh3_64(&buf))
}

/// Reads the entry at `path` made for `key`: `Ok(None)` when there is
/// none, the log and the entry's size when it is sound.
///
/// # Errors
/// Why the entry cannot be trusted, in a few words.
pub fn read_entry(
    path: &Path,
    key: u128,
    max_bytes: u64,
) -> Result<Option<(LoadedLog, u64)>, String> {
    let started = std::time::Instant::now();
    let Some(payload) = read_payload(path, key, max_bytes)? else {
        return Ok(None);
    };
    crate::timing::phase("cache/read+checksum", started);
    let log = stored::decode(&payload)?;
    Ok(Some((log, (HEADER_LEN + payload.len()) as u64)))
}

/// Reads the payload of the entry at `path` made for `key` (a load entry
/// or a result entry): `Ok(None)` when there is none. Its header (magic,
/// version, key) and the file's size against the header's payload length
/// are checked before the payload is read, and the payload against the
/// cache's cap `max_bytes` (bytes); then its checksum.
///
/// # Errors
/// Why the entry cannot be trusted, in a few words.
pub fn read_payload(path: &Path, key: u128, max_bytes: u64) -> Result<Option<Vec<u8>>, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot be read ({e})")),
    };
    if !meta.is_file() {
        return Err("it is not a regular file".into());
    }
    let cannot = |e: std::io::Error| format!("cannot be read ({e})");
    let mut f = std::fs::File::open(path).map_err(cannot)?;
    if meta.len() < HEADER_LEN as u64 {
        return Err("truncated (shorter than its header)".into());
    }
    let mut head = [0u8; HEADER_LEN];
    f.read_exact(&mut head).map_err(cannot)?;
    let found = meta.len() - HEADER_LEN as u64;
    let sum = check_head(&head, key, found)?;
    if found > max_bytes {
        return Err(format!(
            "larger than the cache's cap ({} MiB)",
            max_bytes >> 20
        ));
    }
    let len = usize::try_from(found).map_err(|_| "too large to read")?;
    let payload = read_rest(f, len).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => "truncated while read".to_string(),
        _ => cannot(e),
    })?;
    if xxh3_64(&payload) != sum {
        return Err("bad checksum".into());
    }
    Ok(Some(payload))
}

/// Bytes of a payload read as one piece by [`read_rest`].
const READ_PIECE: usize = 16 << 20;

/// The `len` bytes of `f` after the header. On Unix the pieces are read
/// side by side on the pool, so that both cores copy and fault in the
/// fresh pages (on this project's 2-core virtual machine, the 307 MB entry
/// of the 10 M log read and checked in 0.29-0.35 s on one core, 0.17-0.27 s
/// in pieces; docs/performance.md). A payload of one piece is read on the
/// calling thread: a second open answered from a small entry does not
/// start the pool for it.
///
/// # Errors
/// The read fails, or the file ends early (`UnexpectedEof`).
#[cfg(unix)]
fn read_rest(f: std::fs::File, len: usize) -> std::io::Result<Vec<u8>> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    let mut payload = vec![0u8; len];
    if len <= READ_PIECE {
        f.read_exact_at(&mut payload, HEADER_LEN as u64)?;
        return Ok(payload);
    }
    payload
        .par_chunks_mut(READ_PIECE)
        .enumerate()
        .try_for_each(|(i, piece)| f.read_exact_at(piece, (HEADER_LEN + i * READ_PIECE) as u64))?;
    Ok(payload)
}

/// The `len` bytes of `f` after the header (read from where `f` stands).
///
/// # Errors
/// The read fails, or the file ends early (`UnexpectedEof`).
#[cfg(not(unix))]
fn read_rest(f: std::fs::File, len: usize) -> std::io::Result<Vec<u8>> {
    let mut payload = Vec::with_capacity(len);
    f.take(len as u64).read_to_end(&mut payload)?;
    if payload.len() < len {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(payload)
}

/// The payload of an entry whose header is sound for `key`.
#[cfg(test)]
fn check_header(bytes: &[u8], key: u128) -> Result<&[u8], String> {
    let (header, payload) = bytes
        .split_at_checked(HEADER_LEN)
        .ok_or("truncated (shorter than its header)")?;
    let sum = check_head(header, key, payload.len() as u64)?;
    if xxh3_64(payload) != sum {
        return Err("bad checksum".into());
    }
    Ok(payload)
}

/// Checks an entry's header (its first [`HEADER_LEN`] bytes) for `key`
/// with `found` payload bytes after it; the payload's checksum it states.
fn check_head(header: &[u8], key: u128, found: u64) -> Result<u64, String> {
    let le = |at: usize, n: usize| header.get(at..at + n).unwrap_or_default();
    if le(0, 8) != MAGIC {
        return Err("not a lockreplay cache entry".into());
    }
    let version = u32::from_le_bytes(le(8, 4).try_into().map_err(|_| "bad header")?);
    if version != FORMAT_VERSION {
        return Err(format!(
            "format version {version}, this build reads {FORMAT_VERSION}"
        ));
    }
    if u128::from_le_bytes(le(12, 16).try_into().map_err(|_| "bad header")?) != key {
        return Err("made for other inputs".into());
    }
    let len = u64::from_le_bytes(le(28, 8).try_into().map_err(|_| "bad header")?);
    if len != found {
        return Err(format!(
            "truncated or padded (header says {len} payload bytes, {found} found)"
        ));
    }
    Ok(u64::from_le_bytes(
        le(36, 8).try_into().map_err(|_| "bad header")?,
    ))
}

/// The header of an entry for `key` whose payload is `payload`.
pub fn header(key: u128, payload: &[u8]) -> Vec<u8> {
    header_of(key, payload.len() as u64, xxh3_64(payload))
}

/// The header of an entry for `key` whose payload has `len` bytes and the
/// xxh3 checksum `sum`.
fn header_of(key: u128, len: u64, sum: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADER_LEN);
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    h.extend_from_slice(&key.to_le_bytes());
    h.extend_from_slice(&len.to_le_bytes());
    h.extend_from_slice(&sum.to_le_bytes());
    h
}

/// Writes `log` as the entry `path` for `key`, atomically (a temporary
/// file in `dir`, then a rename). An entry larger than `max_bytes` is not
/// written.
///
/// # Errors
/// The directory cannot be made or written, or the entry would exceed the
/// cap; said in words with the path.
pub fn write_entry(
    dir: &Path,
    path: &Path,
    key: u128,
    log: &LoadedLog,
    max_bytes: u64,
) -> Result<(), String> {
    let started = std::time::Instant::now();
    let parts = stored::encode_parts(log, stored::CHUNK_EVENTS);
    crate::timing::phase("load cache/encode", started);
    let mut sum = Xxh3::new();
    for p in &parts {
        sum.update(p);
    }
    let len = parts.iter().map(|p| p.len() as u64).sum();
    let header = header_of(key, len, sum.digest());
    let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    write_parts(dir, path, &header, &parts, max_bytes)
}

/// Writes `header` then `payload` as the entry `path`, atomically.
///
/// # Errors
/// As [`write_entry`].
pub fn write_raw(
    dir: &Path,
    path: &Path,
    header: &[u8],
    payload: &[u8],
    max_bytes: u64,
) -> Result<(), String> {
    write_parts(dir, path, header, &[payload], max_bytes)
}

/// [`write_raw`] of a payload in `parts`, written one after the other.
fn write_parts(
    dir: &Path,
    path: &Path,
    header: &[u8],
    parts: &[&[u8]],
    max_bytes: u64,
) -> Result<(), String> {
    let size = (header.len() + parts.iter().map(|p| p.len()).sum::<usize>()) as u64;
    if size > max_bytes {
        return Err(format!(
            "the entry ({size} bytes) is larger than the cache's cap ({max_bytes} bytes)"
        ));
    }
    let fail = |what: &str, e: std::io::Error| format!("{what} {} ({e})", dir.display());
    std::fs::create_dir_all(dir).map_err(|e| fail("cannot make the cache directory", e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".entry-")
        .tempfile_in(dir)
        .map_err(|e| fail("cannot write in the cache directory", e))?;
    tmp.write_all(header)
        .and_then(|()| parts.iter().try_for_each(|p| tmp.write_all(p)))
        .map_err(|e| fail("cannot write in the cache directory", e))?;
    tmp.persist(path)
        .map_err(|e| format!("cannot write {} ({})", path.display(), e.error))?;
    Ok(())
}

/// An entry written as its payload is made (a report as it is printed),
/// in a temporary file of the cache directory: a header of zeros first,
/// the real one once the payload is complete ([`EntryWriter::finish`]).
/// Nothing it does fails the work it copies: a write error or a payload
/// over the cap only drops the entry, and [`EntryWriter::finish`] says why.
pub struct EntryWriter {
    file: Option<std::io::BufWriter<tempfile::NamedTempFile>>,
    hash: Xxh3,
    len: u64,
    max_bytes: u64,
    key: u128,
    dropped: Option<String>,
}

impl EntryWriter {
    /// Starts the entry for `key` in `dir` (made when missing), to hold at
    /// most `max_bytes` with its header.
    ///
    /// # Errors
    /// The directory cannot be made or written, in words with its path.
    pub fn start(dir: &Path, key: u128, max_bytes: u64) -> Result<EntryWriter, String> {
        let fail = |what: &str, e: std::io::Error| format!("{what} {} ({e})", dir.display());
        std::fs::create_dir_all(dir).map_err(|e| fail("cannot make the cache directory", e))?;
        let tmp = tempfile::Builder::new()
            .prefix(".entry-")
            .tempfile_in(dir)
            .map_err(|e| fail("cannot write in the cache directory", e))?;
        let mut file = std::io::BufWriter::with_capacity(1 << 16, tmp);
        file.write_all(&[0; HEADER_LEN])
            .map_err(|e| fail("cannot write in the cache directory", e))?;
        Ok(EntryWriter {
            file: Some(file),
            hash: Xxh3::new(),
            len: 0,
            max_bytes,
            key,
            dropped: None,
        })
    }

    /// Appends `bytes` to the payload; past the cap or on a write error
    /// the entry is dropped (its temporary file removed).
    pub fn push(&mut self, bytes: &[u8]) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        self.len += bytes.len() as u64;
        if self.len + HEADER_LEN as u64 > self.max_bytes {
            self.drop_entry(format!(
                "the entry would be larger than the cache's cap ({} bytes)",
                self.max_bytes
            ));
        } else if let Err(e) = file.write_all(bytes) {
            self.drop_entry(format!("cannot write in the cache directory ({e})"));
        } else {
            self.hash.update(bytes);
        }
    }

    fn drop_entry(&mut self, why: String) {
        self.file = None;
        self.dropped.get_or_insert(why);
    }

    /// Writes the header and places the entry at `path`, atomically.
    ///
    /// # Errors
    /// Why there is no entry: dropped by [`EntryWriter::push`], or the
    /// file could not be completed or placed.
    pub fn finish(mut self, path: &Path) -> Result<(), String> {
        let Some(file) = self.file.take() else {
            return Err(self.dropped.unwrap_or_default());
        };
        let head = header_of(self.key, self.len, self.hash.digest());
        let cannot = |e: std::io::Error| format!("cannot write {} ({e})", path.display());
        let mut tmp = file.into_inner().map_err(|e| cannot(e.into_error()))?;
        tmp.seek(SeekFrom::Start(0))
            .and_then(|_| tmp.write_all(&head))
            .and_then(|()| tmp.flush())
            .map_err(cannot)?;
        tmp.persist(path)
            .map_err(|e| format!("cannot write {} ({})", path.display(), e.error))?;
        Ok(())
    }
}

/// Marks an entry as just used (its mtime), for the eviction's order; a
/// cache that cannot be written keeps the old time.
fn touch(path: &Path) {
    if let Ok(f) = std::fs::File::options().append(true).open(path) {
        let _ = f.set_modified(SystemTime::now());
    }
}

/// True for an entry's file name: 32 lowercase hex digits and `.lrc`
/// ([`entry_path`]), `.lrr`, `.lra` or `.lrn` ([`result_path`]).
fn is_entry_name(name: &str) -> bool {
    std::iter::once(&ENTRY_EXT).chain(&RESULT_EXTS).any(|ext| {
        name.strip_suffix(ext)
            .and_then(|n| n.strip_suffix('.'))
            .is_some_and(|h| {
                h.len() == 32 && h.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
            })
    })
}

/// True when the file starts with the cache's [`MAGIC`].
fn is_ours(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == MAGIC)
}

/// Temporary files older than this are left by a killed run: removed.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// Removes the least recently used entries of `dir` until they take at
/// most `max_bytes` (never `keep`, the entry just written), and temporary
/// files a killed run left. Only files with an entry's (or a temporary
/// entry's) name that start with [`MAGIC`] are touched: never an input
/// kept in the cache folder.
///
/// # Errors
/// The directory cannot be listed; a file that cannot be removed is left.
pub fn evict(dir: &Path, max_bytes: u64, keep: &Path) -> std::io::Result<()> {
    let now = SystemTime::now();
    let mut entries = Vec::new();
    for item in std::fs::read_dir(dir)? {
        let Ok(item) = item else { continue };
        let Ok(meta) = item.metadata() else { continue };
        let path = item.path();
        let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        let name = item.file_name();
        let name = name.to_string_lossy();
        // Only files this cache wrote: an entry's name and, for both, the
        // header's magic (a log kept in the cache folder, even one named
        // `*.lrc`, is an input and never removed).
        if !meta.is_file() || !is_ours(&path) {
            continue;
        }
        if name.starts_with(".entry-") {
            if now.duration_since(mtime).unwrap_or_default() > STALE_TEMP {
                let _ = std::fs::remove_file(&path);
            }
        } else if is_entry_name(&name) {
            entries.push((mtime, meta.len(), path));
        }
    }
    let mut total: u64 = entries.iter().map(|e| e.1).sum();
    entries.sort();
    for (_, len, path) in entries {
        if total <= max_bytes {
            break;
        }
        if path != keep && std::fs::remove_file(&path).is_ok() {
            total -= len;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Event, EventKind, LogBuilder, SourceInfo, SourceRef};

    /// A JSON Lines log of `n` acquires in `dir`.
    fn write_log(dir: &Path, n: usize) -> PathBuf {
        let path = dir.join("big.jsonl");
        let mut s = String::new();
        for i in 0..n {
            s.push_str(&format!(
                "{{\"ts\":\"2026-01-01T00:00:{:02}.{:03}Z\",\"event\":\"lock_acquired\",\"key\":\"lock:k{}\",\"holder\":\"h{i}\",\"ttl_ms\":2000}}\n",
                (i / 1000) % 60,
                i % 1000,
                i % 7
            ));
        }
        std::fs::write(&path, s).expect("write log");
        path
    }

    fn config(dir: &Path) -> CacheConfig {
        CacheConfig {
            enabled: true,
            dir: Some(dir.to_path_buf()),
            max_bytes: DEFAULT_MAX_BYTES,
            min_input_bytes: 0,
        }
    }

    fn load(path: &Path, cfg: &CacheConfig) -> (LoadedLog, CacheReport) {
        load_paths_cached(
            &[path.to_path_buf()],
            &IngestOptions::default(),
            &Progress::default(),
            cfg,
        )
        .expect("loads")
    }

    #[test]
    fn second_load_reads_the_entry() {
        let tmp = tempfile::tempdir().expect("tmp");
        let log_path = write_log(tmp.path(), 200);
        let cfg = config(&tmp.path().join("cache"));
        let (first, r1) = load(&log_path, &cfg);
        assert!(r1.used.is_none() && r1.stored.is_some(), "{r1:?}");
        let (second, r2) = load(&log_path, &cfg);
        assert_eq!(r2.used, r1.stored, "{r2:?}");
        assert!(r2.notes.is_empty(), "{r2:?}");
        assert_eq!(first.events, second.events);
        assert_eq!(first.sources.len(), second.sources.len());
    }

    #[test]
    fn small_inputs_and_disabled_cache_are_not_stored() {
        let tmp = tempfile::tempdir().expect("tmp");
        let log_path = write_log(tmp.path(), 20);
        let mut cfg = config(&tmp.path().join("cache"));
        cfg.min_input_bytes = MIN_INPUT_BYTES;
        assert_eq!(load(&log_path, &cfg).1, CacheReport::default());
        cfg.min_input_bytes = 0;
        cfg.enabled = false;
        assert_eq!(load(&log_path, &cfg).1, CacheReport::default());
        assert!(!tmp.path().join("cache").exists());
    }

    #[test]
    fn out_of_range_symbols_behind_a_sound_header_are_ignored() {
        let tmp = tempfile::tempdir().expect("tmp");
        let log_path = write_log(tmp.path(), 200);
        let dir = tmp.path().join("cache");
        let cfg = config(&dir);
        let key =
            input_key(std::slice::from_ref(&log_path), &IngestOptions::default()).expect("key");
        // A log whose only event names string 5 of an empty table.
        let mut b = LogBuilder::new();
        let file = b.add_source(SourceInfo::new("x", crate::model::Dialect::JsonLines));
        let mut e = Event::new(0, EventKind::Acquired, SourceRef { file, line: 1 });
        let mut other = LogBuilder::new();
        for i in 0..5 {
            e.key = Some(other.intern(&format!("k{i}")));
        }
        b.push(e);
        let entry = entry_path(&dir, key.hash);
        write_entry(&dir, &entry, key.hash, &b.finish(), u64::MAX).expect("written");
        let (log, r) = load(&log_path, &cfg);
        assert!(r.used.is_none(), "{r:?}");
        assert!(
            r.notes[0].contains("ignored: a symbol out of range; rebuilt"),
            "{r:?}"
        );
        assert_eq!(log.events.len(), 200);
        // Rebuilt: the next load reads the new entry.
        assert!(load(&log_path, &cfg).1.used.is_some());
    }

    #[test]
    fn a_payload_is_read_whole_in_pieces_or_found_short() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("entry");
        let payload: Vec<u8> = (0..READ_PIECE * 2 + 12_345)
            .map(|i| (i % 251) as u8)
            .collect();
        let mut bytes = vec![7u8; HEADER_LEN];
        bytes.extend_from_slice(&payload);
        std::fs::write(&path, &bytes).expect("write");
        // Opened and read past the header, as `read_payload` hands it over.
        let past_header = || {
            let mut f = std::fs::File::open(&path).expect("open");
            let mut head = [0u8; HEADER_LEN];
            f.read_exact(&mut head).expect("head");
            f
        };
        assert_eq!(
            read_rest(past_header(), payload.len()).expect("read"),
            payload
        );
        let short = read_rest(past_header(), payload.len() + 1).expect_err("short");
        assert_eq!(short.kind(), std::io::ErrorKind::UnexpectedEof);
        // One piece, read on the calling thread: whole, or found short.
        let one = READ_PIECE - 5;
        assert_eq!(read_rest(past_header(), one).expect("read"), payload[..one]);
        std::fs::write(&path, &bytes[..HEADER_LEN + 100]).expect("cut");
        let short = read_rest(past_header(), 101).expect_err("short");
        assert_eq!(short.kind(), std::io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn header_faults_are_named() {
        let payload = b"abc".to_vec();
        let mut entry = header(7, &payload);
        entry.extend_from_slice(&payload);
        assert!(check_header(&entry, 7).is_ok());
        assert!(
            check_header(&entry, 8)
                .expect_err("refused")
                .contains("other inputs")
        );
        assert!(
            check_header(&entry[..10], 7)
                .expect_err("refused")
                .contains("truncated")
        );
        assert!(
            check_header(&entry[..46], 7)
                .expect_err("refused")
                .contains("truncated")
        );
        let mut bad = entry.clone();
        bad[HEADER_LEN] ^= 1;
        assert_eq!(check_header(&bad, 7).expect_err("refused"), "bad checksum");
        let mut old = entry.clone();
        old[8] = 0;
        assert!(
            check_header(&old, 7)
                .expect_err("refused")
                .contains("format version 0")
        );
        let mut alien = entry;
        alien[0] = b'X';
        assert!(
            check_header(&alien, 7)
                .expect_err("refused")
                .contains("not a lockreplay")
        );
    }

    /// A huge (sparse) file in an entry's place is refused by its header
    /// and size, never read whole: a header for other inputs, and a sound
    /// header whose payload passes the cap.
    #[test]
    fn huge_entries_are_refused_before_being_read() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join("huge.lrc");
        let huge: u64 = 1 << 40;
        let mut h = header(7, b"");
        h[28..36].copy_from_slice(&(huge - HEADER_LEN as u64).to_le_bytes());
        std::fs::write(&path, &h).expect("write");
        let f = std::fs::File::options()
            .append(true)
            .open(&path)
            .expect("open");
        if f.set_len(huge).is_err() {
            println!("skipped: no sparse file of 1 TiB here");
            return;
        }
        let other = read_entry(&path, 8, DEFAULT_MAX_BYTES).expect_err("refused");
        assert!(other.contains("other inputs"), "{other}");
        let big = read_entry(&path, 7, DEFAULT_MAX_BYTES).expect_err("refused");
        assert!(big.contains("larger than the cache's cap"), "{big}");
    }

    #[test]
    fn eviction_keeps_the_newest_under_the_cap() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        let old = SystemTime::now() - Duration::from_secs(100);
        for i in 0..5u128 {
            let path = entry_path(dir, i);
            let mut bytes = MAGIC.to_vec();
            bytes.resize(1000, 0);
            std::fs::write(&path, bytes).expect("write");
            let f = std::fs::File::options()
                .append(true)
                .open(&path)
                .expect("open");
            f.set_modified(old + Duration::from_secs(i as u64))
                .expect("mtime");
        }
        evict(dir, 2500, &entry_path(dir, 0)).expect("evicts");
        let left: Vec<bool> = (0..5).map(|i| entry_path(dir, i).exists()).collect();
        assert_eq!(left, [true, false, false, false, true]);
    }

    #[test]
    fn eviction_never_removes_a_file_the_cache_did_not_write() {
        // Found by a hostile-input probe (session 19): a log named
        // `app.lrc` kept in the cache folder was evicted (deleted) as the
        // oldest entry when the cap was small.
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        let old = SystemTime::now() - Duration::from_secs(7200);
        let log = b"{\"ts\":1,\"event\":\"acquired\"}\n".repeat(100);
        let mut header = MAGIC.to_vec();
        header.resize(1000, 0);
        let files = [
            (dir.join("app.lrc"), log.clone()),
            (entry_path(dir, 7), log.clone()),
            (dir.join(".entry-abc"), log),
            (entry_path(dir, 8), header.clone()),
            (dir.join(".entry-def"), header),
        ];
        for (path, bytes) in &files {
            std::fs::write(path, bytes).expect("write");
            let f = std::fs::File::options()
                .append(true)
                .open(path)
                .expect("open");
            f.set_modified(old).expect("mtime");
        }
        evict(dir, 0, &entry_path(dir, 9)).expect("evicts");
        let left: Vec<bool> = files.iter().map(|(p, _)| p.exists()).collect();
        assert_eq!(left, [true, true, true, false, false]);
    }
}

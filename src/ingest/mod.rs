//! Reads exported logs (JSON Lines, JSON arrays, CSV, Elasticsearch, Loki, SLS,
//! logfmt, `redis-cli monitor`) into a [`LoadedLog`].
//!
//! The dialect, the text encoding and which field plays which role are
//! detected per file from its content; a [`Mapping`] file can override them.
//! Unreadable lines become warnings, never errors: only I/O failures,
//! cancellation and bad options stop a load.

pub mod cache;
mod error;
mod infra;
mod link;
pub mod monitor;
pub mod redlock;
mod stream;
mod tie;

// The layers, lowest first (ARCHITECTURE.md): each module names only its
// own layer's modules and lower ones (`tests/ingest_layers.rs`).
mod assembly;
mod framing;
mod readers;
mod records;
mod roles;
mod vocabulary;
use assembly::collect;
use framing::decode;
use readers::container::{Container, walk};
use readers::contest::{self, BidBook};
use readers::sample::detect_fields;
use readers::{parquet, text};
pub use roles::time;
use roles::{fields, mapping};

/// The JSON Lines field scanner, exposed for `bench/scan` (issue #17), which
/// measures it against sonic-rs and simd-json. Not part of the API.
#[doc(hidden)]
pub mod scan_bench {
    /// Scans `line` for the fields `names` as the JSON Lines fast path does;
    /// returns how many were found, or `None` when the line would take the
    /// general `serde_json` path.
    pub fn scan_fields(line: &str, names: &[&str]) -> Option<usize> {
        let mut out = vec![None; names.len()];
        super::readers::fast::scan_line(line, names, &mut out)
            .then(|| out.iter().filter(|v| v.is_some()).count())
    }
}

use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::model::{Dialect, LoadedLog, LogBuilder, SourceInfo, SourceNote};

pub use cache::{CacheConfig, CacheReport, load_paths_cached};
pub use error::IngestError;
pub use mapping::{MAX_TTL_MS, Mapping};
pub use time::{TimeError, TzSpec, parse_time, parse_tz};

use fields::Detector;
use records::item::Item;

/// Options for one load.
#[derive(Clone, Debug, Default)]
pub struct IngestOptions {
    /// Zone of timestamps that carry no offset; UTC when `None` (a note says
    /// so). Wins over the mapping's `tz`.
    pub tz: Option<TzSpec>,
    /// Field and event-name overrides.
    pub mapping: Option<Mapping>,
    /// Options for `redis-cli monitor` captures.
    pub monitor: monitor::MonitorOptions,
    /// TTLs for files whose records carry no TTL field (`--ttl-ms`); they
    /// win over the mapping's `ttl_ms`.
    pub ttl: FileTtl,
}

/// Most bytes read from one input file, and most bytes a compressed file may
/// expand to (4 GiB): past it the file is refused with an error that says so,
/// instead of an allocation the machine cannot make (`/dev/zero` through a
/// pipe). Memory is about 1.7x the bytes kept (docs/reliability.md).
pub const MAX_INPUT_BYTES: u64 = 4 << 30;

/// Most a compressed file may expand, as a ratio of its compressed size,
/// once past [`RATIO_FREE_BYTES`]: logs compress 5 to 30 times, a gzip bomb
/// about 1 000 times.
pub const MAX_EXPANSION_RATIO: u64 = 200;

/// Expanded bytes allowed whatever the ratio (64 MiB): a small, very
/// repetitive log may compress more than [`MAX_EXPANSION_RATIO`].
pub const RATIO_FREE_BYTES: u64 = 64 << 20;

/// The three bounds above as the decompressor takes them: what
/// [`read_source`] and [`source_text`] both expand a file within.
const EXPAND_LIMIT: decode::ExpandLimit = decode::ExpandLimit {
    max_bytes: MAX_INPUT_BYTES,
    ratio: MAX_EXPANSION_RATIO,
    free_bytes: RATIO_FREE_BYTES,
};

/// The TTL of files that never say it: for every such file, or by file.
/// Files whose records carry a TTL field are not affected.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileTtl {
    /// For every file without a TTL field, ms.
    pub all_ms: Option<i64>,
    /// By file (the path as given, or its file name), ms; wins over
    /// `all_ms`.
    pub by_file_ms: std::collections::BTreeMap<String, i64>,
}

impl FileTtl {
    /// Parses `N` (every file) and `FILE=N` items, N in ms; items may also
    /// be given comma-separated in one string (the window's field).
    ///
    /// # Errors
    /// [`IngestError::BadTtl`] naming the item that is not `N` or `FILE=N`
    /// with N a positive whole number of ms.
    pub fn parse<S: AsRef<str>>(items: &[S]) -> Result<FileTtl, IngestError> {
        let mut out = FileTtl::default();
        for item in items.iter().flat_map(|s| s.as_ref().split(',')) {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (file, ms) = match item.rsplit_once('=') {
                Some((f, ms)) => (Some(f.trim()), ms.trim()),
                None => (None, item),
            };
            let ms = ms
                .parse::<i64>()
                .ok()
                .filter(|&v| v > 0 && v < MAX_TTL_MS && file.is_none_or(|f| !f.is_empty()))
                .ok_or_else(|| IngestError::BadTtl(item.to_string()))?;
            match file {
                Some(f) => {
                    out.by_file_ms.insert(f.to_string(), ms);
                }
                None => out.all_ms = Some(ms),
            }
        }
        Ok(out)
    }

    /// The TTL given for the file shown as `name`, ms.
    pub fn for_file(&self, name: &str) -> Option<i64> {
        let base = Path::new(name)
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or(name);
        self.by_file_ms
            .get(name)
            .or_else(|| self.by_file_ms.get(base))
            .copied()
            .or(self.all_ms)
    }

    /// True when no TTL is given at all.
    pub fn is_empty(&self) -> bool {
        self.all_ms.is_none() && self.by_file_ms.is_empty()
    }
}

/// Load progress, shared with a UI thread through an `Arc`.
#[derive(Debug, Default)]
pub struct Progress {
    /// Bytes of input processed so far (file bytes as stored, compressed or not).
    pub bytes_read: AtomicU64,
    /// Total bytes of all inputs (set by [`load_paths`]).
    pub bytes_total: AtomicU64,
    /// Set by the UI to stop the load; the loader returns
    /// [`IngestError::Cancelled`] soon after.
    pub cancel: AtomicBool,
}

/// How many records are read between cancellation checks.
const CHECK_EVERY: u64 = 4096;

/// Reads one source's bytes into `builder`: gzip is undone, the encoding and
/// dialect are detected, records become events, and a [`SourceInfo`] is
/// added. `name` is used for display and warnings only.
///
/// `progress.bytes_read` advances by the number of bytes read from `reader`
/// as parsing proceeds. On cancellation events already pushed stay in
/// `builder` without their source: drop the builder.
///
/// # Errors
/// [`IngestError::Io`] when `reader` fails, [`IngestError::Cancelled`],
/// [`IngestError::TooManySources`].
pub fn read_source<R: Read>(
    name: &str,
    mut reader: R,
    opts: &IngestOptions,
    builder: &mut LogBuilder,
    progress: &Progress,
) -> Result<(), IngestError> {
    let io_err = |error| IngestError::Io {
        path: PathBuf::from(name),
        error,
    };
    let base = progress.bytes_read.load(Ordering::Relaxed);
    // Read straight into `raw`, 1 MB at a time between cancellation checks;
    // no zeroed bounce buffer (a fixed cost that dominated small inputs).
    let raw = read_capped(name, &mut reader, MAX_INPUT_BYTES, progress)?;
    let raw_len = raw.len() as u64;
    let file = u16::try_from(builder.log.sources.len()).map_err(|_| IngestError::TooManySources)?;
    let first_event = builder.log.events.len();
    let (bytes, compression, gz_err) =
        decode::decompress_if_needed(raw, &EXPAND_LIMIT).map_err(|reason| {
            IngestError::TooLarge {
                name: name.to_string(),
                reason,
            }
        })?;
    let gzip = compression == decode::Compression::Gzip;
    if let Some(e) = gz_err {
        let what = if gzip { "gzip" } else { "zstd" };
        builder.warn(
            what,
            name,
            0,
            format!("damaged {what} stream ({e}); reading what was recovered"),
        );
    }
    let (bytes, parquet_note) = parquet_as_lines(name, bytes, opts, builder);
    // A zip archive (an Excel workbook saved as .xlsx is one): no text to
    // read; said as such, not as lines of an unknown format (a new-user
    // trial, session 21, was told to write a `line_regex` for one).
    if bytes.starts_with(b"PK\x03\x04") {
        let mut info = SourceInfo {
            bytes: bytes.len() as u64,
            layout: Some(ZIP_LAYOUT.into()),
            ..SourceInfo::new(name, Dialect::Unknown)
        };
        info.encoding = "binary".into();
        builder.warn(
            "format",
            name,
            0,
            "a zip archive (an Excel .xlsx workbook?), not a log: save the sheet as CSV and open that",
        );
        builder.add_source(info);
        return Ok(());
    }
    let dec = decode::decode(bytes);
    // docker json-file's parts of a long line, joined (framing/docker.rs).
    let docker = framing::docker::join_partials(&dec.text);
    let text = docker
        .as_ref()
        .map_or(dec.text.as_str(), |(t, _)| t.as_str());
    let mut info = SourceInfo {
        bytes: text.len() as u64,
        encoding: dec.encoding.to_ascii_uppercase(),
        gzip,
        zstd: compression == decode::Compression::Zstd,
        ..SourceInfo::new(name, Dialect::Unknown)
    };
    info.notes.extend(parquet_note);
    if let Some((_, j)) = docker {
        info.notes.push(SourceNote::DockerParts {
            parts: j.parts,
            lines: j.lines,
            open: j.open,
        });
    }
    if dec.damaged_lines > 0 {
        info.notes.push(SourceNote::DamagedBytes {
            lines: dec.damaged_lines,
            encoding: info.encoding.clone(),
        });
    }

    // Infrastructure logs (server, Sentinel, GC, events) are evidence, read
    // by their own readers (src/ingest/infra/).
    if let Some(kind) = opts
        .mapping
        .is_none()
        .then(|| infra::detect(text))
        .flatten()
    {
        infra::read(kind, text, file, opts.tz.as_ref(), builder, &mut info);
        builder.add_source(info);
        progress.bytes_read.store(base + raw_len, Ordering::Relaxed);
        return Ok(());
    }
    let mut book = BidBook::default();
    let mut container = contest::detect_with(text, monitor::looks_like_monitor, &mut book);
    if let Some(rules) = opts.mapping.as_ref().and_then(text::TextRules::of)
        && matches!(
            container,
            Container::Text { .. } | Container::Unknown | Container::Csv { .. } | Container::Logfmt
        )
        && (rules.line.is_some() || matches!(container, Container::Text { .. }))
    {
        container = Container::Text {
            rules: Some(Box::new(rules)),
        };
    }
    info.dialect = container.dialect();
    match &container {
        Container::Empty => {
            builder.warn(
                "file",
                name,
                0,
                "the file has no records (empty or whitespace only)",
            );
        }
        Container::Unknown => {
            // Every line is accounted for: each a warning, so lines read =
            // events + skipped + warned. Blank lines are not counted, as in
            // every other format (docs/ingest.md; issue #35).
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                info.lines_read += 1;
                {
                    info.lines_warned += 1;
                    builder.warn(
                        "format",
                        name,
                        i as u64 + 1,
                        "unrecognised format (not JSON, CSV, logfmt, text lines with timestamps or a redis-cli monitor capture)",
                    );
                }
            }
        }
        Container::Monitor => {
            monitor::read_monitor(text.as_bytes(), file, &opts.monitor, builder, &mut info)
                .map_err(io_err)?;
        }
        _ => parse_records(
            (&container, &mut book),
            text,
            file,
            opts,
            builder,
            progress,
            &mut info,
            (base, raw_len),
        )?,
    }
    if info.lines_read == 0 && !matches!(container, Container::Empty | Container::Unknown) {
        builder.warn("file", name, 0, "the file has no records");
    }
    builder.add_source(info);
    settle_ttl(builder, file, first_event, opts);
    progress.bytes_read.store(base + raw_len, Ordering::Relaxed);
    Ok(())
}

/// A Parquet file's rows as JSON Lines bytes, with the note saying so
/// (`parquet.rs`); other bytes as they are. A Parquet file that cannot be
/// read is one warning and no text, so the load says nothing was read.
fn parquet_as_lines(
    name: &str,
    bytes: Vec<u8>,
    opts: &IngestOptions,
    builder: &mut LogBuilder,
) -> (Vec<u8>, Option<SourceNote>) {
    if !parquet::is_parquet(&bytes) {
        return (bytes, None);
    }
    let columns = parquet::Columns::ForRoles(opts.mapping.as_ref());
    match parquet::to_json_lines(bytes, columns, MAX_INPUT_BYTES) {
        Ok(p) => (
            p.text.into_bytes(),
            Some(SourceNote::Parquet {
                rows: p.rows,
                read: p.read,
                columns: p.columns,
            }),
        ),
        Err(reason) => {
            builder.warn("parquet", name, 0, reason);
            (Vec::new(), None)
        }
    }
}

/// The text of a source as [`read_source`] reads it: decompressed (gzip,
/// zstd) within the same limits, a Parquet file's rows as JSON lines (every
/// column), and decoded the same way (BOM, UTF-16, GB18030 line by line),
/// so its line `n` is the line `n` events and warnings name. For showing a
/// source's raw lines again.
///
/// # Errors
/// Why the compressed stream was refused (it expands past the limit), or
/// why the Parquet file could not be read.
pub fn source_text(raw: Vec<u8>) -> Result<String, String> {
    let (bytes, _, _) = decode::decompress_if_needed(raw, &EXPAND_LIMIT)?;
    if parquet::is_parquet(&bytes) {
        return parquet::to_json_lines(bytes, parquet::Columns::All, MAX_INPUT_BYTES)
            .map(|p| p.text);
    }
    Ok(decode::decode(bytes).text)
}

/// True when `head` (a file's first bytes) starts like a gzip or zstd
/// stream or a Parquet file: its lines are the ingest's only through
/// [`source_text`].
pub fn looks_compressed(head: &[u8]) -> bool {
    decode::is_compressed(head) || head.starts_with(parquet::MAGIC)
}

/// Reads all of `reader`, 1 MB at a time between cancellation checks (no
/// zeroed bounce buffer: a fixed cost that dominated small inputs), and
/// refuses more than `max_bytes`.
///
/// # Errors
/// [`IngestError::TooLarge`] past `max_bytes`, [`IngestError::Io`],
/// [`IngestError::Cancelled`].
pub(crate) fn read_capped<R: Read>(
    name: &str,
    reader: &mut R,
    max_bytes: u64,
    progress: &Progress,
) -> Result<Vec<u8>, IngestError> {
    let mut raw = Vec::new();
    loop {
        if progress.cancel.load(Ordering::Relaxed) {
            return Err(IngestError::Cancelled);
        }
        let room = (max_bytes + 1)
            .saturating_sub(raw.len() as u64)
            .min(1 << 20);
        match reader.take(room).read_to_end(&mut raw) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => {
                return Err(IngestError::Io {
                    path: PathBuf::from(name),
                    error,
                });
            }
        }
        if raw.len() as u64 > max_bytes {
            return Err(IngestError::TooLarge {
                name: name.to_string(),
                reason: format!(
                    "larger than {} MiB, the most lockreplay reads from one file; split it (`split -C 1G`) and give the parts",
                    max_bytes >> 20
                ),
            });
        }
    }
    Ok(raw)
}

/// Detects fields, then reads every record of a structured container.
#[allow(clippy::too_many_arguments)]
fn parse_records(
    (container, book): (&Container, &mut BidBook),
    text: &str,
    file: u16,
    opts: &IngestOptions,
    builder: &mut LogBuilder,
    progress: &Progress,
    info: &mut SourceInfo,
    (base, raw_len): (u64, u64),
) -> Result<(), IngestError> {
    let mapping = opts.mapping.as_ref();
    let tz = opts.tz.as_ref().or(mapping.and_then(|m| m.tz.as_ref()));

    // Pass 1: decide the fields from the first records.
    let det = detect_fields(container, text, mapping);
    warn_unseen_mapping_fields(builder, &info.name, &det, mapping);
    let (fields, notes) = det.resolve(mapping);
    if det.sls && matches!(info.dialect, Dialect::JsonLines | Dialect::JsonArray) {
        info.dialect = Dialect::SlsJson;
    }
    info.fields = fields.listing();
    describe_reading(info, &det, &fields, (container, book), text);
    info.notes.extend(notes);
    if matches!(container, Container::Doc { .. }) {
        info.notes.push(SourceNote::RecordNumbers);
    }

    // Pass 2: every record.
    let mut col = collect::Collector::new(
        file,
        fields,
        tz,
        mapping,
        std::mem::replace(info, placeholder()),
    );
    let text_len = text.len().max(1) as u64;
    let mut cancelled = false;
    let mut n = 0u64;
    walk(container, text, &mut |line, off, item| {
        n += 1;
        if n.is_multiple_of(CHECK_EVERY) {
            if progress.cancel.load(Ordering::Relaxed) {
                cancelled = true;
                return ControlFlow::Break(());
            }
            let done =
                (off as u64).min(text_len) as u128 * u128::from(raw_len) / u128::from(text_len);
            progress
                .bytes_read
                .store(base + done as u64, Ordering::Relaxed);
        }
        match item {
            Item::Record(r) => col.record(builder, line, &r),
            Item::Skip => col.skip(),
            Item::Bad(kind, reason) => col.bad(builder, kind, line, reason),
            Item::Warn(kind, reason) => col.warn(builder, kind, line, reason),
        }
        ControlFlow::Continue(())
    });
    if cancelled {
        return Err(IngestError::Cancelled);
    }
    if col.naive_seen {
        note_naive_times(&mut col.info, tz);
    }
    *info = col.info;
    Ok(())
}

/// Records in `info` how the file was read: the field names seen, the
/// envelope field holding the application's record, the text layout, the
/// time field's resolution.
pub(crate) fn describe_reading(
    info: &mut SourceInfo,
    det: &Detector,
    fields: &fields::Fields,
    (container, book): (&Container, &mut BidBook),
    text: &str,
) {
    info.fields_seen.clone_from(&det.names_seen);
    info.payload_field.clone_from(&fields.payload);
    info.time_resolution = fields
        .time_resolution_ns
        .map(|r| fields::resolution_name(r).to_string());
    if matches!(container, Container::Text { .. }) {
        info.layout = text::describe_layout(text);
    }
    let started = std::time::Instant::now();
    let bids = contest::bids_for(container, text, book);
    crate::timing::phase("load/plan/readers", started);
    if let [w, r, ..] = bids.as_slice()
        && r.score > 0
        && contest::contested(container)
    {
        info.notes.push(SourceNote::Readers {
            winner: w.reader.clone(),
            score: w.score,
            runner_up: r.reader.clone(),
            runner_score: r.score,
        });
    }
    info.readers = bids.into_iter().map(|b| (b.reader, b.score)).collect();
}

/// What makes a load an error rather than an answer (exit 2; the window
/// says it in words): each file from which no event could be read, with its
/// reason, and a load without a single lock event. Empty when the analysis
/// can be trusted to say "no incident".
pub fn load_problems(log: &crate::model::LoadedLog) -> Vec<String> {
    let mut out: Vec<String> = log
        .sources
        .iter()
        .filter_map(|s| s.unreadable.as_ref().map(|r| format!("{}: {r}", s.name)))
        .collect();
    if log.sources.iter().all(|s| s.lock_events == 0) && out.len() < log.sources.len() {
        out.push(
            "no lock event (acquire, renewal, release, lock lost) was read from any file: \
             the business lines alone cannot show an overlap"
                .to_string(),
        );
    } else if out.is_empty()
        && !log
            .events
            .iter()
            .any(|e| e.kind.is_lock() && e.key.is_some() && e.holder.is_some())
    {
        // Lock verbs were read, but no lock event says whose lock on which
        // key: no hold can be built, so "no incident" would be a false
        // all-clear (issue #31: reading by values finds the verbs first).
        out.push(
            "lock events were read, but none names both a lock key and a holder: no hold can be built; name the key and holder fields in a mapping file (`lockreplay inspect FILE --write-mapping M`, edit it, then --mapping M)"
                .to_string(),
        );
    }
    out
}

/// Warnings for the fields a mapping names that no record detection saw
/// has: a typo there would otherwise read as "no such events".
pub(crate) fn warn_unseen_mapping_fields(
    builder: &mut LogBuilder,
    name: &str,
    det: &Detector,
    mapping: Option<&Mapping>,
) {
    let Some(m) = mapping else { return };
    if det.records == 0 {
        return;
    }
    for (role, field) in &m.fields {
        if !det.saw_field(field) {
            builder.warn(
                "mapping",
                name,
                0,
                format!(
                    "the mapping names `{field}` for {role}, but none of the first {} records has that field",
                    det.records
                ),
            );
        }
    }
}

/// The layout named for a zip archive (an Excel workbook).
const ZIP_LAYOUT: &str = "zip archive";

/// Why nothing could be read from a file, and what would make it readable,
/// for [`SourceInfo::unreadable`]. `None` when the file gave an event.
pub fn unreadable_reason(info: &SourceInfo) -> Option<String> {
    if info.events_loaded > 0 || info.evidence_items > 0 {
        return None;
    }
    let mut out = format!(
        "no lock event could be read: read as {} ({}){}; {} line(s): {} unreadable, {} not lock or business events",
        info.dialect.as_str(),
        info.encoding,
        info.layout
            .as_ref()
            .map(|l| format!(", layout {l}"))
            .unwrap_or_default(),
        info.lines_read,
        info.lines_warned,
        info.lines_skipped
    );
    if !info.fields_seen.is_empty() {
        out.push_str(&format!(". Fields seen: {}", info.fields_seen.join(", ")));
    }
    let has = |role: &str| info.fields.iter().any(|(r, _)| r == role);
    let missing: Vec<&str> = ["time", "event", "key", "holder"]
        .into_iter()
        .filter(|r| !has(r))
        .collect();
    if !missing.is_empty() && info.dialect != Dialect::Unknown {
        out.push_str(&format!(". No field found for: {}", missing.join(", ")));
    }
    let hint = if info.layout.as_deref() == Some(ZIP_LAYOUT) {
        "save the workbook's sheet as CSV (UTF-8) and open the CSV"
    } else if info.dialect == Dialect::Unknown {
        "describe the lines with a mapping file (`line_regex = '...'` with named groups, `[messages]` regexes per event) and --mapping FILE"
    } else if info.times_of_day * 2 > info.lines_warned {
        "give the date of its times of day in a mapping file (`date = \"YYYY-MM-DD\"`), then --mapping FILE"
    } else if missing.contains(&"time") || info.times_unreadable * 2 > info.lines_warned {
        "name the time field in a mapping file: `[fields] time = \"<field>\"` (and `time_format = \"%Y-%m-%d %H:%M:%S\"` for an unusual format), then --mapping FILE"
    } else if missing.contains(&"event") {
        "name the event field (`[fields] event = \"<field>\"`) or the log's own event words (`[events] \"LOCK_OK\" = \"acquired\"`) in a mapping file, then --mapping FILE"
    } else {
        "map the log's event names onto lock events in a mapping file (`[events] \"<name>\" = \"acquired\"`), or check the warnings above"
    };
    out.push_str(&format!(". To read it: {hint}"));
    Some(out)
}

/// Notes in `info` how times without an offset were read (with `tz`, else
/// as UTC, which also sets [`SourceInfo::naive_read_as_utc`]).
pub(crate) fn note_naive_times(info: &mut SourceInfo, tz: Option<&TzSpec>) {
    let note = match tz {
        Some(TzSpec::Fixed(f)) => SourceNote::NaiveTimes {
            offset: Some(f.to_string()),
            zone: None,
        },
        Some(TzSpec::Named(z)) => SourceNote::NaiveTimes {
            offset: None,
            zone: Some(z.name().to_string()),
        },
        None => {
            info.naive_read_as_utc = true;
            SourceNote::NaiveTimes {
                offset: None,
                zone: None,
            }
        }
    };
    info.notes.push(note);
}

/// After a file is read: when its records carry no TTL field (and it has
/// acquires), its holds get the TTL given for it (`--ttl-ms`, else the
/// mapping's `ttl_ms`), or the file is marked [`SourceInfo::ttl_unknown`]:
/// an unknown TTL, not an infinite one (docs/semantics.md §3). A note says
/// which, once per file. `first_event` is the file's first event.
fn settle_ttl(builder: &mut LogBuilder, file: u16, first_event: usize, opts: &IngestOptions) {
    let log = &mut builder.log;
    let Some(info) = log.sources.get_mut(usize::from(file)) else {
        return;
    };
    let has_ttl_field = info.fields.iter().any(|(role, _)| role.starts_with("ttl"));
    let ours = |e: &crate::model::Event| e.source.file == file && !e.inferred;
    let events = log.events.get_mut(first_event..).unwrap_or_default();
    let acquires = events
        .iter()
        .any(|e| ours(e) && e.kind == crate::model::EventKind::Acquired);
    if has_ttl_field || info.dialect == Dialect::RedisMonitor || !acquires {
        return;
    }
    let mapped = opts.mapping.as_ref().and_then(|m| m.ttl_ms);
    match opts.ttl.for_file(&info.name).or(mapped) {
        Some(ms) => {
            for e in events
                .iter_mut()
                .filter(|e| ours(e) && e.ttl_ms().is_none())
            {
                if matches!(
                    e.kind,
                    crate::model::EventKind::Acquired | crate::model::EventKind::Renewed
                ) {
                    e.set_ttl_ms(Some(ms));
                }
            }
            info.notes.push(SourceNote::TtlGiven { ttl_ms: ms });
        }
        None => {
            info.ttl_unknown = true;
            info.notes.push(SourceNote::TtlUnknown {
                file: info.name.clone(),
            });
        }
    }
}

fn placeholder() -> SourceInfo {
    SourceInfo {
        encoding: String::new(),
        ..SourceInfo::new("", Dialect::Unknown)
    }
}

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
            builder.warn(
                "file",
                &name,
                0,
                format!(
                    "the same file as {first} (same device and inode, given twice or through a link): read once, not counted twice"
                ),
            );
            continue;
        }
        if is_device(p) {
            return Err(IngestError::Device(name));
        }
        // The parallel path reads a head to decide, and on "no" the file is
        // opened again: only a regular file may be. A FIFO, `/dev/stdin` or
        // a process substitution is opened once and read whole by the
        // general path (issue #35: its head was lost, or the second open
        // waited for a writer that had gone).
        let regular = std::fs::metadata(p).is_ok_and(|m| m.is_file());
        if regular && stream::read_jsonl(p, &name, opts, &mut builder, progress)? {
            continue;
        }
        let f = std::fs::File::open(p).map_err(io(p))?;
        read_source(&name, f, opts, &mut builder, progress).map_err(|e| match e {
            IngestError::Io { error, .. } => IngestError::Io {
                path: p.clone(),
                error,
            },
            other => other,
        })?;
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
        log.warnings.push(
            "file",
            crate::model::Warning {
                file: later,
                line: 0,
                reason: format!(
                    "{n} record(s) repeat records of {earlier} (same time, event, key and holder): overlapping exports? both are counted"
                ),
            },
        );
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
        s.unreadable = unreadable_reason(s);
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

#[cfg(test)]
mod tests;

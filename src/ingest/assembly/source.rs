//! The whole-file path: any source read into memory whole (a pipe,
//! a compressed or Parquet file, any encoding, any reader), then through
//! the shared steps (`steps.rs`). Its own steps come first: the bytes
//! expanded and decoded into text (a zip archive refused, docker's parts
//! joined), an infrastructure log handed to `infra/`; after the reader is
//! chosen, an empty, unrecognised or MONITOR file is read by itself, any
//! other walked record by record into the collector.

use std::io::Read;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use super::steps::{
    FileStart, choose_reader, collector, finish_source, infra_kind, naive_zone, placeholder,
    plan_fields,
};
use crate::ingest::framing::structure::first_date;
use crate::ingest::framing::{decode, docker, journal};
use crate::ingest::readers::container::Container;
use crate::ingest::readers::contest::BidBook;
use crate::ingest::readers::parquet;
use crate::ingest::readers::sample::detect_fields;
use crate::ingest::readers::walk::walk;
use crate::ingest::records::item::Item;
use crate::ingest::roles::time::note_naive_times;
use crate::ingest::{
    IngestError, IngestOptions, MAX_EXPANSION_RATIO, MAX_INPUT_BYTES, Progress, RATIO_FREE_BYTES,
    infra, monitor,
};
use crate::model::{
    Codec, Dialect, FileWarning, LogBuilder, Message, SourceInfo, SourceNote, WarningReason,
    ZIP_LAYOUT,
};

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
    let base = progress.bytes_read.load(Ordering::Relaxed);
    // Read straight into `raw`, 1 MB at a time between cancellation checks;
    // no zeroed bounce buffer (a fixed cost that dominated small inputs).
    let raw = read_capped(name, &mut reader, MAX_INPUT_BYTES, progress)?;
    let bytes = Bytes {
        progress,
        base,
        raw_len: raw.len() as u64,
    };
    let start = FileStart::of(builder)?;
    let opened = open_bytes(name, raw, opts, builder)?;
    if opened.bytes.starts_with(b"PK\x03\x04") {
        refuse_zip(name, opened.bytes.len(), builder);
        return Ok(());
    }
    let (text, mut info) = decode_text(name, opened);
    // Infrastructure logs (server, Sentinel, GC, events) are evidence, read
    // by their own readers (src/ingest/infra/).
    if let Some(kind) = infra_kind(&text, opts) {
        infra::read(
            kind,
            &text,
            start.file,
            opts.tz.as_ref(),
            builder,
            &mut info,
        );
        builder.add_source(info);
    } else {
        read_text(&text, start, opts, builder, info, &bytes)?;
    }
    bytes.done(bytes.raw_len);
    Ok(())
}

/// Where this file's bytes stand on the progress bar.
struct Bytes<'p> {
    progress: &'p Progress,
    /// Bytes of the files read before this one.
    base: u64,
    /// This file's bytes as stored (compressed or not).
    raw_len: u64,
}

impl Bytes<'_> {
    /// Shows `done` of this file's stored bytes as read.
    fn done(&self, done: u64) {
        self.progress
            .bytes_read
            .store(self.base + done, Ordering::Relaxed);
    }
}

/// A source's bytes as the readers take them, before decoding.
struct Opened {
    bytes: Vec<u8>,
    gzip: bool,
    zstd: bool,
    /// The note on a Parquet file or a journal export read as JSON Lines.
    note: Option<SourceNote>,
}

/// Expands a gzip or zstd stream within the limits (a damaged stream is a
/// warning, and what was recovered is read) and reads a Parquet file's rows
/// or a journal export's entries as JSON Lines.
///
/// # Errors
/// [`IngestError::TooLarge`] when the stream expands past the limits.
fn open_bytes(
    name: &str,
    raw: Vec<u8>,
    opts: &IngestOptions,
    builder: &mut LogBuilder,
) -> Result<Opened, IngestError> {
    let (bytes, compression, gz_err) =
        decode::decompress_if_needed(raw, &EXPAND_LIMIT).map_err(|reason| {
            IngestError::TooLarge {
                name: name.to_string(),
                reason,
            }
        })?;
    let gzip = compression == decode::Compression::Gzip;
    if let Some(error) = gz_err {
        let codec = if gzip { Codec::Gzip } else { Codec::Zstd };
        builder.warn(name, 0, FileWarning::DamagedStream { codec, error });
    }
    let (bytes, note) = parquet_as_lines(name, bytes, opts, builder);
    let (bytes, note) = match journal_as_lines(&bytes) {
        Some((lines, journal)) => (lines, Some(journal)),
        None => (bytes, note),
    };
    Ok(Opened {
        bytes,
        gzip,
        zstd: compression == decode::Compression::Zstd,
        note,
    })
}

/// A zip archive (an Excel workbook saved as .xlsx is one) has no text to
/// read: said as such, with a warning, not as lines of an unknown format.
fn refuse_zip(name: &str, len: usize, builder: &mut LogBuilder) {
    let mut info = SourceInfo {
        bytes: len as u64,
        layout: Some(ZIP_LAYOUT.into()),
        ..SourceInfo::new(name, Dialect::Unknown)
    };
    info.encoding = "binary".into();
    builder.warn(name, 0, FileWarning::ZipArchive);
    builder.add_source(info);
}

/// The text of `opened`, decoded (BOM, UTF-16, GB18030 line by line) and
/// with docker json-file's parts of long lines joined (`framing/docker.rs`),
/// and the file's information so far: its encoding and compression, and
/// notes on a Parquet file, joined docker parts and damaged bytes.
fn decode_text(name: &str, opened: Opened) -> (String, SourceInfo) {
    let dec = decode::decode(opened.bytes);
    let docker = docker::join_partials(&dec.text);
    let mut info = SourceInfo {
        encoding: dec.encoding.to_ascii_uppercase(),
        gzip: opened.gzip,
        zstd: opened.zstd,
        ..SourceInfo::new(name, Dialect::Unknown)
    };
    info.notes.extend(opened.note);
    let text = match docker {
        Some((joined, j)) => {
            info.notes.push(SourceNote::DockerParts {
                parts: j.parts,
                lines: j.lines,
                open: j.open,
            });
            joined
        }
        None => dec.text,
    };
    if dec.damaged_lines > 0 {
        info.notes.push(SourceNote::DamagedBytes {
            lines: dec.damaged_lines,
            encoding: info.encoding.clone(),
        });
    }
    info.bytes = text.len() as u64;
    (text, info)
}

/// Reads a decoded text with the reader chosen for it: an empty file and
/// an unrecognised one are warnings (every line of the latter one), a
/// MONITOR capture is replayed (`monitor/`), any other is walked record by
/// record ([`read_records`]); then the file's end ([`finish_source`]).
fn read_text(
    text: &str,
    start: FileStart,
    opts: &IngestOptions,
    builder: &mut LogBuilder,
    mut info: SourceInfo,
    bytes: &Bytes<'_>,
) -> Result<(), IngestError> {
    let (container, mut book) = choose_reader(text, opts);
    info.dialect = container.dialect();
    match &container {
        Container::Empty => {
            builder.warn(&info.name, 0, FileWarning::Blank);
        }
        Container::Unknown => warn_every_line(text, builder, &mut info),
        Container::Monitor => {
            let path = PathBuf::from(&info.name);
            monitor::read_monitor(
                text.as_bytes(),
                start.file,
                &opts.monitor,
                builder,
                &mut info,
            )
            .map_err(|error| IngestError::Io { path, error })?;
        }
        _ => read_records(
            (&container, &mut book),
            text,
            (start.file, opts),
            builder,
            &mut info,
            bytes,
        )?,
    }
    let say_empty = !matches!(container, Container::Empty | Container::Unknown);
    finish_source(builder, info, start, opts, say_empty);
    Ok(())
}

/// An unrecognised file: every line is accounted for, each a warning, so
/// lines read = events + skipped + warned. Blank lines are not counted, as
/// in every other format (docs/ingest.md).
fn warn_every_line(text: &str, builder: &mut LogBuilder, info: &mut SourceInfo) {
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        info.lines_read += 1;
        info.lines_warned += 1;
        builder.warn(&info.name, i as u64 + 1, FileWarning::Unrecognised);
    }
}

/// Reads every record of a structured container: its fields decided from
/// its first records ([`detect_fields`], [`plan_fields`]), then each record
/// made an event by the collector ([`walk_into`]).
fn read_records(
    (container, book): (&Container, &mut BidBook),
    text: &str,
    (file, opts): (u16, &IngestOptions),
    builder: &mut LogBuilder,
    info: &mut SourceInfo,
    bytes: &Bytes<'_>,
) -> Result<(), IngestError> {
    let mapping = opts.mapping.as_ref();
    let det = detect_fields(container, text, mapping);
    let fields = plan_fields(
        &det,
        (container, book),
        text,
        (mapping, naive_zone(opts)),
        info,
        builder,
    );
    let mut col = collector(file, fields, opts, std::mem::replace(info, placeholder()));
    col.dates.line = dated_line(container, text);
    walk_into(container, text, &mut col, builder, bytes)?;
    if col.naive_seen {
        note_naive_times(&mut col.info, naive_zone(opts));
    }
    *info = col.info;
    Ok(())
}

/// The first full date of a text's lines, for the times of day and the
/// months and days that lack one ([`super::dates::DateHints`]): the
/// structure finder's, else the first a time of the bank has in the
/// head of text lines; none for any other reader.
pub(super) fn dated_line(container: &Container, text: &str) -> Option<chrono::NaiveDate> {
    let date = match container {
        Container::Structured { structure, .. } => {
            structure.first_date.clone().or_else(|| first_date(text))
        }
        Container::Text { .. } => first_date(text),
        _ => None,
    }?;
    chrono::NaiveDate::parse_from_str(&date, "%Y-%m-%d").ok()
}

/// Walks every record of `text` into the collector. Every [`CHECK_EVERY`]
/// records the progress bar moves (the walk's share of the text, as a
/// share of the stored bytes) and a cancellation stops the walk.
///
/// # Errors
/// [`IngestError::Cancelled`].
fn walk_into(
    container: &Container,
    text: &str,
    col: &mut super::collect::Collector<'_>,
    builder: &mut LogBuilder,
    bytes: &Bytes<'_>,
) -> Result<(), IngestError> {
    let text_len = text.len().max(1) as u64;
    let mut cancelled = false;
    let mut n = 0u64;
    walk(container, text, &mut |line, off, item| {
        n += 1;
        if n.is_multiple_of(CHECK_EVERY) {
            if bytes.progress.cancel.load(Ordering::Relaxed) {
                cancelled = true;
                return ControlFlow::Break(());
            }
            let done = (off as u64).min(text_len) as u128 * u128::from(bytes.raw_len)
                / u128::from(text_len);
            bytes.done(done as u64);
        }
        match item {
            Item::Record(r) => col.record(builder, line, &r),
            Item::Skip => col.skip(),
            Item::Bad(reason) => col.bad(builder, line, reason),
            Item::Warn(reason) => col.warn(builder, line, reason),
        }
        ControlFlow::Continue(())
    });
    if cancelled {
        return Err(IngestError::Cancelled);
    }
    Ok(())
}

/// The three bounds above as the decompressor takes them: what
/// [`read_source`] and [`source_text`] both expand a file within.
const EXPAND_LIMIT: decode::ExpandLimit = decode::ExpandLimit {
    max_bytes: MAX_INPUT_BYTES,
    ratio: MAX_EXPANSION_RATIO,
    free_bytes: RATIO_FREE_BYTES,
};

/// How many records are read between cancellation checks.
const CHECK_EVERY: u64 = 4096;

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
            builder.warn(name, 0, reason);
            (Vec::new(), None)
        }
    }
}

/// A systemd journal export's entries as JSON Lines bytes
/// (`framing/journal.rs`), with the note saying so; `None` for other bytes.
fn journal_as_lines(bytes: &[u8]) -> Option<(Vec<u8>, SourceNote)> {
    if !journal::is_export(bytes.get(..4096).unwrap_or(bytes)) {
        return None;
    }
    let c = journal::to_json_lines(bytes);
    Some((
        c.text.into_bytes(),
        SourceNote::JournalExport {
            entries: c.entries,
            binary: c.binary,
        },
    ))
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
            .map(|p| p.text)
            .map_err(|w| WarningReason::File(w).en());
    }
    if let Some((lines, _)) = journal_as_lines(&bytes) {
        return Ok(String::from_utf8_lossy(&lines).into_owned());
    }
    Ok(decode::decode(bytes).text)
}

/// True when `head` (a file's first bytes) starts like a gzip or zstd
/// stream, a Parquet file or a systemd journal export: its lines are the
/// ingest's only through [`source_text`].
pub fn looks_compressed(head: &[u8]) -> bool {
    decode::is_compressed(head) || head.starts_with(parquet::MAGIC) || journal::is_export(head)
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

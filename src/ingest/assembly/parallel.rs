//! The parallel path: large files without holding them in memory. The
//! file is read in line-aligned chunks by a reader thread, chunks are
//! parsed in parallel (rayon, `chunk.rs`), each into its own events,
//! strings and warnings, and merged in file order, so the result is exactly
//! the whole-file path's. The steps before and after the chunks are the
//! shared ones (`steps.rs`).
//!
//! Only plain UTF-8 JSON Lines and text lines qualify (no gzip, no BOM, the
//! fields decided within the first [`HEAD_BYTES`]); anything else, or a
//! chunk that turns out not to be UTF-8, returns `false` and the caller
//! reads the file the general way ([`read_source`](crate::ingest::read_source)).

use std::io::Read;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::mpsc;

use rayon::prelude::*;
use serde_json::Value;

use super::chunk::{
    ChunkOut, ChunkStart, ParseContext, finish_partials, parse_chunk, payload_plan,
};
use super::plan::ReadPlan;
use super::source::dated_line;
use super::steps::{
    FileStart, choose_reader, finish_source, infra_kind, naive_zone, placeholder, plan_fields,
};
use crate::ingest::framing::docker;
use crate::ingest::framing::lines::first_lines;
use crate::ingest::readers::container::Container;
use crate::ingest::readers::contest::BidBook;
use crate::ingest::readers::json::unwrap_hit;
use crate::ingest::readers::sample::detect_fields;
use crate::ingest::readers::text::{TextLine, parse_line};
use crate::ingest::roles::fields::{Detector, Fields};
use crate::ingest::roles::time::{note_naive_times, rfc3164_parts};
use crate::ingest::vocabulary::roles::Role;
use crate::ingest::{IngestError, IngestOptions, Progress, looks_compressed};
use crate::model::{Event, LogBuilder, SourceInfo, Sym};

/// Bytes read before deciding: field detection must finish inside them.
const HEAD_BYTES: usize = 32 << 20;
/// Bytes per parallel work item.
const CHUNK_BYTES: usize = 8 << 20;

/// Reads `path` as JSON Lines in parallel chunks into `builder`.
///
/// Returns `Ok(false)`, with `builder` untouched, when the file does not
/// qualify; the caller then reads it with
/// [`read_source`](crate::ingest::read_source). Also when called on one
/// of rayon's own threads: the chunk flow waits there for chunks parsed on
/// the pool, and with every pool thread waiting so, none would be left to
/// parse them.
pub(crate) fn read_jsonl(
    path: &Path,
    name: &str,
    opts: &IngestOptions,
    builder: &mut LogBuilder,
    progress: &Progress,
) -> Result<bool, IngestError> {
    if rayon::current_thread_index().is_some() {
        return Ok(false);
    }
    read_jsonl_sized(path, name, opts, builder, progress, HEAD_BYTES, CHUNK_BYTES)
}

/// [`read_jsonl`] with the head and chunk sizes as parameters (tests make
/// them tiny so that every record boundary is a chunk boundary somewhere).
/// The steps: the file's start, its head, the plan (reader and fields,
/// [`plan`]), the chunks ([`parse_file`]), then the file's end as the
/// whole-file path ends it.
fn read_jsonl_sized(
    path: &Path,
    name: &str,
    opts: &IngestOptions,
    builder: &mut LogBuilder,
    progress: &Progress,
    head_bytes: usize,
    chunk_bytes: usize,
) -> Result<bool, IngestError> {
    let start = FileStart::of(builder)?;
    let Some((f, total_len, head)) = open_head(path, head_bytes)? else {
        return Ok(false);
    };
    let planned = std::time::Instant::now();
    let Some((context, mut file_log)) = plan(&head, name, start.file, opts) else {
        return Ok(false);
    };
    crate::timing::phase("load/plan", planned);
    reserve_events(&mut file_log.fb, &head.text, total_len);
    let mut bytes = ByteCount {
        progress,
        base: progress.bytes_read.load(Ordering::Relaxed),
        done: 0,
    };
    let Some(end) = parse_file(
        path,
        f,
        head,
        chunk_bytes,
        &context,
        &mut file_log,
        &mut bytes,
    )?
    else {
        return Ok(false);
    };
    if !end.partials.is_empty() {
        file_log.merge(vec![finish_partials(end.partials, &context)]);
    }
    let FileLog {
        fb,
        mut info,
        naive_seen,
        ..
    } = file_log;
    info.bytes = bytes.done;
    if naive_seen {
        note_naive_times(&mut info, context.tz);
    }
    absorb(builder, fb);
    finish_source(builder, info, start, opts, true);
    progress
        .bytes_read
        .store(bytes.base + total_len.max(bytes.done), Ordering::Relaxed);
    Ok(true)
}

/// A file read up to the size it had when opened: a file still growing
/// while read (a live log) is read as it was, never chased to an end that
/// keeps moving.
type UpToOpen = std::io::Take<std::fs::File>;

/// Opens `path` and reads its head: the file, its length and the head;
/// `None` when the head does not qualify ([`read_head`]) or the file is a
/// docker json-file log with parts of long lines (joined on the whole
/// text by the whole-file path, `framing/docker.rs`: parts past the head
/// would not be seen).
///
/// # Errors
/// [`IngestError::Io`] naming `path`.
fn open_head(path: &Path, head_bytes: usize) -> Result<Option<(UpToOpen, u64, Head)>, IngestError> {
    let io_err = |error| IngestError::Io {
        path: path.to_path_buf(),
        error,
    };
    let f = std::fs::File::open(path).map_err(io_err)?;
    let total_len = f.metadata().map_err(io_err)?.len();
    let mut f = f.take(total_len);
    let Some(head) = read_head(&mut f, head_bytes).map_err(io_err)? else {
        return Ok(None);
    };
    if docker::has_parts(&head.text) {
        return Ok(None);
    }
    Ok(Some((f, total_len, head)))
}

/// Room for the events expected in a file of `total_len` bytes, from the
/// line length in the first MB of its `head` (5 % spare).
fn reserve_events(fb: &mut LogBuilder, head: &str, total_len: u64) {
    let sample = &head.as_bytes()[..head.len().min(1 << 20)];
    let per_line = sample.len() / memchr::memchr_iter(b'\n', sample).count().max(1);
    let est = (total_len as usize / per_line.max(1)) * 21 / 20;
    fb.log.events.reserve(est.min(1 << 31));
}

/// Parses the whole file into `file_log`: the head in parallel pieces,
/// then the rest from the reader thread. Returns where the file ends (the
/// CRI partial lines still open); `Ok(None)` when a piece is not UTF-8.
fn parse_file(
    path: &Path,
    f: UpToOpen,
    head: Head,
    chunk_bytes: usize,
    context: &ParseContext<'_>,
    file_log: &mut FileLog,
    bytes: &mut ByteCount<'_>,
) -> Result<Option<ChunkStart>, IngestError> {
    let Some(end) = parse_head(head.text.as_bytes(), chunk_bytes, context, file_log, bytes)? else {
        return Ok(None);
    };
    bytes.done = head.text.len() as u64;
    let Head { text, carry, eof } = head;
    drop(text);
    if eof {
        return Ok(Some(end));
    }
    parse_rest(path, f, (carry, end), chunk_bytes, context, file_log, bytes)
}

/// The head of a file: valid UTF-8 up to its last line end, the bytes after
/// it, and whether it is the whole file.
struct Head {
    text: String,
    carry: Vec<u8>,
    eof: bool,
}

/// Reads the head of a file (`None` when the file is compressed, starts with
/// a byte-order mark, has no line end in the head, or is not UTF-8: the
/// general path reads those).
fn read_head(f: &mut UpToOpen, head_bytes: usize) -> std::io::Result<Option<Head>> {
    let (mut head, eof) = read_up_to(f, head_bytes)?;
    if looks_compressed(&head)
        || head.starts_with(&[0xEF, 0xBB, 0xBF])
        || head.starts_with(&[0xFF, 0xFE])
        || head.starts_with(&[0xFE, 0xFF])
    {
        return Ok(None);
    }
    // The head ends at a line end; the rest goes to the next chunk.
    let cut = if eof {
        head.len()
    } else {
        match memchr::memrchr(b'\n', &head) {
            Some(i) => i + 1,
            None => return Ok(None),
        }
    };
    let carry = head.split_off(cut);
    Ok(String::from_utf8(head)
        .ok()
        .map(|text| Head { text, carry, eof }))
}

/// Decides from the head whether the file takes this path ([`qualifies`]),
/// decides its fields with the shared steps ([`detect_fields`] on the head,
/// which must see enough records in it, and [`plan_fields`]), and prepares
/// what the chunk workers share and the file's own log.
fn plan<'o>(
    head: &Head,
    name: &str,
    file: u16,
    opts: &'o IngestOptions,
) -> Option<(ParseContext<'o>, FileLog)> {
    let text = head.text.as_str();
    let (container, mut book) = qualifies(text, opts)?;
    let mapping = opts.mapping.as_ref();
    let det = detect_fields(&container, text, mapping);
    if !det.done() && !head.eof {
        return None;
    }
    let mut fb = LogBuilder::new();
    let mut info = placeholder();
    info.name = name.to_string();
    info.dialect = container.dialect();
    info.encoding = "UTF-8".into();
    let fields = plan_fields(
        &det,
        (&container, &mut book),
        text,
        (mapping, naive_zone(opts)),
        &mut info,
        &mut fb,
    );
    let text_lines = matches!(container, Container::Text { .. });
    let (names, by_role) = fast_names(&fields, &det, text, text_lines);
    // SLS's `__time_ns_part__` is merged into `__time__` by the general
    // path only (`readers::json`), for envelopes as for flat records.
    let ns_part = det.names_seen.iter().any(|n| n == "__time_ns_part__");
    let read_plan = ReadPlan::of(&fields, &names, &by_role, mapping);
    let context = ParseContext {
        file,
        name: name.to_string(),
        plan: read_plan,
        payload_fast: payload_plan(&fields).filter(|_| !ns_part),
        fields,
        names,
        by_role,
        tz: naive_zone(opts),
        opts,
        text_lines,
        dated_line: dated_line(&container, text),
    };
    let file_log = FileLog {
        fb,
        info,
        next_line: 0,
        naive_seen: false,
    };
    Some((context, file_log))
}

/// True for a line whose time is dated by the lines before it: a time of
/// day (its date advances at midnight) or an RFC 3164 time (its year
/// advances at the new year); such files are read in order, not in chunks.
fn needs_order(line: &TextLine<'_>) -> bool {
    line.time_only
        || [line.time, line.prefix_time]
            .into_iter()
            .flatten()
            .any(|t| rfc3164_parts(t).is_some())
}

/// The reader of a file that takes this path, chosen on its head `text` by
/// the shared step ([`choose_reader`]): JSON Lines of objects, or text
/// lines without rules of their own (CRI partial lines are joined across
/// chunks: each chunk starts from the pending partial lines the one before
/// it left, [`ChunkStart`]). `None` for any other file, an infrastructure
/// log, and a mapping that dates times of day (they advance a day at
/// midnight, which needs the lines in order: one reader, not chunks).
fn qualifies(text: &str, opts: &IngestOptions) -> Option<(Container, BidBook)> {
    if opts.mapping.as_ref().is_some_and(|m| m.date.is_some()) {
        return None;
    }
    if infra_kind(text, opts).is_some() {
        return None; // read as evidence by read_source
    }
    let (container, book) = choose_reader(text, opts);
    // Times of day are dated in order (the date advances at midnight).
    let text_lines = matches!(container, Container::Text { rules: None })
        && !first_lines(text, 20).any(|l| needs_order(&parse_line(l)))
        && !crate::ingest::readers::lines::starts_records(text);
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    let json_lines = matches!(container, Container::JsonLines { loki: false })
        && matches!(
            first.map(serde_json::from_str::<Value>),
            Some(Ok(Value::Object(_)))
        );
    (json_lines || text_lines).then_some((container, book))
}

/// The field names the fast scanner reads (each role's field once) and,
/// for each role, its field's index among them. None at all (the general
/// path reads every line) for text lines, for a dotted path (it may reach
/// into nested objects), an envelope's payload (the record is inside a
/// string), a search hit or export row wrapping its record, and SLS's
/// `__time_ns_part__` (read into `__time__` by the general path,
/// `readers::json::kv_lists_in_record`).
fn fast_names(
    fields: &Fields,
    det: &Detector,
    text: &str,
    text_lines: bool,
) -> (Vec<String>, Vec<Option<usize>>) {
    let mut names: Vec<String> = Role::ALL
        .iter()
        .filter_map(|r| fields.get(*r).map(|p| p.field.clone()))
        .collect();
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    let wrapped = first
        .and_then(|l| serde_json::from_str::<serde_json::Map<String, Value>>(l).ok())
        .is_some_and(|o| !std::ptr::eq(unwrap_hit(&o), &o));
    let ns_part = det.names_seen.iter().any(|n| n == "__time_ns_part__");
    if names.iter().any(|n| n.contains('.'))
        || fields.payload.is_some()
        || wrapped
        || text_lines
        || ns_part
    {
        names.clear();
    }
    let by_role = Role::ALL
        .iter()
        .map(|r| {
            let p = fields.get(*r)?;
            names.iter().position(|n| *n == p.field)
        })
        .collect();
    (names, by_role)
}

/// Where the bytes of one file stand, for the progress bar.
struct ByteCount<'p> {
    progress: &'p Progress,
    /// Bytes read before this file.
    base: u64,
    /// Bytes of this file handed to the parsers.
    done: u64,
}

impl ByteCount<'_> {
    /// Shows the bytes done so far.
    fn show(&self) {
        self.progress
            .bytes_read
            .store(self.base + self.done, Ordering::Relaxed);
    }

    fn cancelled(&self) -> bool {
        self.progress.cancel.load(Ordering::Relaxed)
    }
}

/// Parallel pieces at a time: two per thread.
fn batch_len() -> usize {
    rayon::current_num_threads().max(1) * 2
}

/// Parses the head in parallel pieces, a batch at a time so that progress
/// moves and Cancel works even when the whole file fits in the head.
/// Returns where the rest starts; `Ok(None)` when a piece is not UTF-8
/// after all.
fn parse_head(
    head: &[u8],
    chunk_bytes: usize,
    context: &ParseContext<'_>,
    file_log: &mut FileLog,
    bytes: &mut ByteCount<'_>,
) -> Result<Option<ChunkStart>, IngestError> {
    let pieces = split_lines(head, chunk_bytes.min(2 << 20));
    let mut start = ChunkStart::default();
    for group in pieces.chunks(batch_len()) {
        if bytes.cancelled() {
            return Err(IngestError::Cancelled);
        }
        bytes.done += group.iter().map(|c| c.len() as u64).sum::<u64>();
        let starts = starts_of(group, &mut start, context.text_lines);
        let outs: Vec<ChunkOut> = group
            .par_iter()
            .zip(&starts)
            .map(|(c, st)| parse_chunk(c, st, context))
            .collect();
        if !file_log.merge(outs) {
            return Ok(None);
        }
        bytes.show();
    }
    Ok(Some(start))
}

/// Where each of `chunks` starts, the first at `start`, which is moved past
/// them all. Only text lines carry a state from chunk to chunk (CRI partial
/// lines); JSON Lines chunks all start from the default, unscanned.
fn starts_of<C: AsRef<[u8]>>(
    chunks: &[C],
    start: &mut ChunkStart,
    text_lines: bool,
) -> Vec<ChunkStart> {
    if !text_lines {
        return vec![ChunkStart::default(); chunks.len()];
    }
    chunks
        .iter()
        .map(|c| {
            let next = start.after(c.as_ref());
            std::mem::replace(start, next)
        })
        .collect()
}

/// Parses the rest of the file, which starts with the bytes `carry` at
/// `start`: a reader thread hands line-aligned chunks (and where each
/// starts) over a short queue; each chunk is parsed on the pool as soon as
/// it arrives, and merged in file order on this thread as soon as it and
/// every chunk before it are parsed, so no core waits for a batch's slowest
/// chunk or for the merge. At most `batch_len()` chunks are read and not
/// yet merged, which bounds the memory in flight. Returns where the file
/// ends; `Ok(None)` when a chunk is not UTF-8.
fn parse_rest(
    path: &Path,
    f: UpToOpen,
    (carry, start): (Vec<u8>, ChunkStart),
    chunk_bytes: usize,
    context: &ParseContext<'_>,
    file_log: &mut FileLog,
    bytes: &mut ByteCount<'_>,
) -> Result<Option<ChunkStart>, IngestError> {
    let batch = batch_len();
    let text_lines = context.text_lines;
    std::thread::scope(|s| -> Result<Option<ChunkStart>, IngestError> {
        let (tx, rx) = mpsc::sync_channel::<ReadChunk>(batch);
        let reader = s.spawn(move || {
            let mut start = start;
            read_chunks(f, carry, chunk_bytes, &tx, &mut |c| {
                starts_of(&[c], &mut start, text_lines)
                    .pop()
                    .unwrap_or_default()
            });
            start
        });
        let merged = rayon::in_place_scope(|pool| {
            let mut flow = ChunkFlow::new(batch);
            let result = flow.run(pool, &rx, context, file_log, bytes);
            // Whatever ends the run, the reader stops at its next send.
            drop(rx);
            result.map_err(|error| match error {
                FlowError::Io(error) => IngestError::Io {
                    path: path.to_path_buf(),
                    error,
                },
                FlowError::Cancelled => IngestError::Cancelled,
            })
        })?;
        if !merged {
            return Ok(None);
        }
        // The reader has ended (the queue closed): its state is the end's.
        Ok(Some(reader.join().unwrap_or_default()))
    })
}

/// What the reader thread hands on: a line-aligned chunk and where it
/// starts, or the error that ended the read.
type ReadChunk = std::io::Result<(Vec<u8>, ChunkStart)>;

/// Why [`ChunkFlow::run`] stopped early.
enum FlowError {
    Io(std::io::Error),
    Cancelled,
}

/// The chunks of [`parse_rest`] in flight: how many were handed to the
/// pool, the parsed ones waiting for an earlier chunk, and the next to
/// merge.
struct ChunkFlow {
    /// Chunks read and not yet merged, at most.
    limit: usize,
    sent: usize,
    merged: usize,
    waiting: std::collections::BTreeMap<usize, ChunkOut>,
}

impl ChunkFlow {
    fn new(limit: usize) -> ChunkFlow {
        ChunkFlow {
            limit: limit.max(1),
            sent: 0,
            merged: 0,
            waiting: std::collections::BTreeMap::new(),
        }
    }

    /// Reads chunks from `rx` while fewer than `limit` are unmerged, hands
    /// each to `pool`, and merges the parsed ones in order. `Ok(false)`
    /// when a chunk is not UTF-8.
    fn run<'s>(
        &mut self,
        pool: &rayon::Scope<'s>,
        rx: &mpsc::Receiver<ReadChunk>,
        context: &'s ParseContext<'_>,
        file_log: &mut FileLog,
        bytes: &mut ByteCount<'_>,
    ) -> Result<bool, FlowError> {
        let (done_tx, done_rx) = mpsc::channel::<(usize, std::thread::Result<ChunkOut>)>();
        let mut read_all = false;
        loop {
            if bytes.cancelled() {
                return Err(FlowError::Cancelled);
            }
            while !read_all && self.sent - self.merged < self.limit {
                match rx.recv() {
                    Ok(Ok((chunk, st))) => {
                        bytes.done += chunk.len() as u64;
                        let (no, done_tx) = (self.sent, done_tx.clone());
                        pool.spawn(move |_| {
                            // A panic travels as a message: this thread waits
                            // for every chunk it sent.
                            let parse = AssertUnwindSafe(|| parse_chunk(&chunk, &st, context));
                            let _ = done_tx.send((no, std::panic::catch_unwind(parse)));
                        });
                        self.sent += 1;
                    }
                    Ok(Err(error)) => return Err(FlowError::Io(error)),
                    Err(_) => read_all = true,
                }
            }
            if self.merged == self.sent {
                return Ok(true);
            }
            // (Never closed: this thread holds a sender. Were it, the
            // general path would read the file again.)
            let Ok((no, out)) = done_rx.recv() else {
                return Ok(false);
            };
            let out = out.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            self.waiting.insert(no, out);
            while let Some(out) = self.waiting.remove(&self.merged) {
                self.merged += 1;
                if !file_log.merge(vec![out]) {
                    return Ok(false);
                }
            }
            bytes.show();
        }
    }
}

/// Reads until `limit` bytes or the end; returns (bytes, reached the end).
fn read_up_to(f: &mut UpToOpen, limit: usize) -> std::io::Result<(Vec<u8>, bool)> {
    let mut buf = Vec::new();
    let eof = read_onto(f, &mut buf, limit)?;
    Ok((buf, eof))
}

/// Appends up to `n` bytes of `f` to `buf`, into its spare capacity without
/// zeroing it first (`read_to_end` on a file fills uninitialised room);
/// returns whether the end came first.
fn read_onto(f: &mut UpToOpen, buf: &mut Vec<u8>, n: usize) -> std::io::Result<bool> {
    let before = buf.len();
    f.take(n as u64).read_to_end(buf)?;
    Ok(buf.len() - before < n)
}

/// The reader thread: line-aligned chunks of about [`CHUNK_BYTES`], the last
/// one possibly without a final newline, each with where it starts
/// (`start_of`, called on the chunks in order). Stops when the receiver is
/// gone.
fn read_chunks(
    mut f: UpToOpen,
    mut carry: Vec<u8>,
    chunk_bytes: usize,
    tx: &mpsc::SyncSender<ReadChunk>,
    start_of: &mut dyn FnMut(&[u8]) -> ChunkStart,
) {
    loop {
        let mut buf = std::mem::take(&mut carry);
        let have = buf.len();
        let want = chunk_bytes.max(have + chunk_bytes.min(1 << 20));
        // Room for the chunk, never zeroed: zeroing 8 MB a chunk costs 1 to
        // 2 % of a profile, plus its page faults.
        buf.reserve_exact(want - have);
        let eof = match read_onto(&mut f, &mut buf, want - have) {
            Ok(eof) => eof,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        if !eof {
            match memchr::memrchr(b'\n', &buf) {
                Some(i) => carry = buf.split_off(i + 1),
                // One line longer than the chunk: read on.
                None => {
                    carry = buf;
                    continue;
                }
            }
        }
        if !buf.is_empty() {
            let start = start_of(&buf);
            if tx.send(Ok((buf, start))).is_err() {
                return;
            }
        }
        if eof {
            return;
        }
    }
}

/// Splits `bytes` into line-aligned pieces of about `size` bytes.
fn split_lines(bytes: &[u8], size: usize) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while rest.len() > size {
        let cut = memchr::memchr(b'\n', &rest[size..]).map_or(rest.len(), |i| size + i + 1);
        let (a, b) = rest.split_at(cut);
        out.push(a);
        rest = b;
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// The file's own log, built up as parsed chunks are merged into it in
/// order.
struct FileLog {
    fb: LogBuilder,
    info: SourceInfo,
    /// Lines before the next chunk.
    next_line: u64,
    /// True when a chunk saw times without an offset.
    naive_seen: bool,
}

impl FileLog {
    /// Appends chunks in order, renumbering lines and re-interning strings.
    /// False when a chunk was not UTF-8.
    fn merge(&mut self, outs: Vec<ChunkOut>) -> bool {
        let FileLog {
            fb,
            info,
            next_line,
            naive_seen,
        } = self;
        merge_chunks(fb, info, next_line, naive_seen, outs)
    }
}

fn merge_chunks(
    fb: &mut LogBuilder,
    info: &mut SourceInfo,
    next_line: &mut u64,
    naive_seen: &mut bool,
    outs: Vec<ChunkOut>,
) -> bool {
    if outs.iter().any(|o| !o.utf8) {
        return false;
    }
    for o in outs {
        let base = if o.absolute { 0 } else { *next_line };
        *next_line += o.lines;
        info.lines_read += o.info.lines_read;
        info.events_loaded += o.info.events_loaded;
        info.lines_skipped += o.info.lines_skipped;
        info.lines_warned += o.info.lines_warned;
        info.times_unreadable += o.info.times_unreadable;
        info.times_of_day += o.info.times_of_day;
        match (&mut info.plan, o.info.plan) {
            (Some(p), Some(q)) => {
                p.by_layout += q.by_layout;
                p.layout = p.layout.take().or(q.layout);
            }
            (p @ None, q) => *p = q,
            (Some(_), None) => {}
        }
        info.evidence_items += o.info.evidence_items;
        // Notes a chunk's reading made (the year put on RFC 3164 times),
        // once each.
        for n in o.info.notes {
            if !info.notes.contains(&n) {
                info.notes.push(n);
            }
        }
        *naive_seen |= o.naive_seen;
        if let Some(off) = o.b.first_offset() {
            fb.saw_offset(off);
        }
        let LogBuilder { log, .. } = o.b;
        let map = fb.log.strings.remap_from(&log.strings);
        let shift = u32::try_from(base).unwrap_or(u32::MAX);
        fb.log.events.extend(log.events.into_iter().map(|mut e| {
            remap_event(&mut e, &map);
            e.source.line = e.source.line.saturating_add(shift);
            e
        }));
        fb.log
            .evidence
            .extend(log.evidence.into_iter().map(|mut e| {
                e.source.line = e.source.line.saturating_add(shift);
                e
            }));
        let mut w = log.warnings;
        w.shift_lines(base);
        fb.log.warnings.append_in_order(w);
    }
    true
}

fn remap(s: &mut Option<Sym>, map: &[Sym]) {
    if let Some(x) = s {
        *x = map.get(x.index()).copied().unwrap_or(*x);
    }
}

fn remap_event(e: &mut Event, map: &[Sym]) {
    remap(&mut e.key, map);
    remap(&mut e.holder, map);
    remap(&mut e.host, map);
    remap(&mut e.thread, map);
    if e.has_detail() {
        e.update_detail(|d| {
            remap(&mut d.product, map);
            remap(&mut d.order_id, map);
            remap(&mut d.message, map);
        });
    }
}

/// Moves one file's events, strings, evidence and warnings into the load's
/// builder.
fn absorb(builder: &mut LogBuilder, fb: LogBuilder) {
    let first_offset = fb.first_offset();
    let log = fb.log;
    if builder.log.events.is_empty() && builder.log.strings.is_empty() {
        builder.log.events = log.events;
        builder.log.strings = log.strings;
    } else {
        let map = builder.log.strings.remap_from(&log.strings);
        builder
            .log
            .events
            .extend(log.events.into_iter().map(|mut e| {
                remap_event(&mut e, &map);
                e
            }));
    }
    builder.log.evidence.extend(log.evidence);
    builder.log.warnings.append_in_order(log.warnings);
    if let Some(off) = first_offset {
        builder.saw_offset(off);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use proptest::prelude::*;

    use super::*;
    use crate::model::{LoadedLog, RecordWarning, WarningReason};

    /// The general, serial path over the same bytes.
    fn serial(bytes: &[u8]) -> LoadedLog {
        let mut b = LogBuilder::new();
        crate::ingest::read_source(
            "t.jsonl",
            bytes,
            &IngestOptions::default(),
            &mut b,
            &Progress::default(),
        )
        .expect("serial read");
        b.finish()
    }

    fn parallel(bytes: &[u8], head: usize, chunk: usize) -> Option<LoadedLog> {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        f.write_all(bytes).expect("write");
        let mut b = LogBuilder::new();
        let used = read_jsonl_sized(
            f.path(),
            "t.jsonl",
            &IngestOptions::default(),
            &mut b,
            &Progress::default(),
            head,
            chunk,
        )
        .expect("parallel read");
        used.then(|| b.finish())
    }

    fn assert_same(a: &LoadedLog, b: &LoadedLog) {
        assert_eq!(a.events, b.events, "events");
        let strings = |l: &LoadedLog| {
            (0..l.strings.len())
                .map(|i| {
                    let sym = l.strings.lookup_index(i);
                    l.strings.get_or_empty(sym).to_string()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(strings(a), strings(b), "strings");
        assert_eq!(a.warnings.kept(), b.warnings.kept(), "warnings");
        assert_eq!(a.warnings.total(), b.warnings.total(), "warning count");
        assert_eq!(a.display_offset_s, b.display_offset_s, "offset");
        let info = |l: &LoadedLog| serde_json::to_value(&l.sources).expect("json");
        assert_eq!(info(a), info(b), "sources");
    }

    fn line() -> impl Strategy<Value = String> {
        // Times of a few minutes in several layouts, so that the reading
        // plan's time memo (`roles/time_memo.rs`) learns, reads and misses.
        let dated = (9u32..12, 0u32..61, 0usize..4, 0usize..4).prop_map(|(m, s, f, o)| {
            let frac = ["", ".5", ".627", ".627000"][f];
            let off = ["+08:00", "Z", "", " +0800"][o];
            format!("\"2026-11-29T16:{m:02}:{s:02}{frac}{off}\"")
        });
        let ts = prop_oneof![
            6 => dated,
            1 => Just("\"2026-11-29T16:10:39.627+08:00\"".to_string()),
            1 => Just("\"2026-11-29 16:10:40.1\"".to_string()),
            1 => Just("1764403840123".to_string()),
            1 => Just("1764403840.5".to_string()),
            1 => Just("\"not a time\"".to_string()),
        ];
        let event = prop_oneof![
            Just("acquired"),
            Just("released"),
            Just("renewed"),
            Just("stock_deducted"),
            Just("order_created"),
            Just("lock_lost"),
            Just("acquire_attempt"),
            Just("Lock Acquired"),
        ];
        let key = prop_oneof![
            Just("\"lock:a\""),
            Just("\"lock:b\""),
            Just("\" \""),
            Just("null"),
            Just("7")
        ];
        let owner = prop_oneof![
            Just("\"w-1\""),
            Just("\"w-2\""),
            Just("\"w\\\"q\""),
            Just("\"\\u00e9\"")
        ];
        let extra = prop_oneof![
            Just(String::new()),
            Just(", \"ttl_ms\": 2000".to_string()),
            Just(", \"ttl_ms\": 1.5e3, \"quantity\": 2, \"sku\": \"S1\"".to_string()),
            Just(", \"ctx\": {\"a\": [1, {\"b\": \"x\\n\"}]}, \"tags\": []".to_string()),
            Just(", \"deleted\": false, \"elapsed_ms\": 0.25".to_string()),
            Just(", \"msg\": \"caf\u{e9} \\\"q\\\"\"".to_string()),
            Just(", \"owner\": \"w-3\"".to_string()),
            Just(", \"ttl_ms\": {\"date\": \"x\", \"timezone\": \"UTC\"}".to_string()),
        ];
        let good = (ts, event, key, owner, extra).prop_map(|(t, e, k, o, x)| {
            format!("{{\"ts\": {t}, \"event\": \"{e}\", \"lock_key\": {k}, \"owner\": {o}{x}}}")
        });
        prop_oneof![
            8 => good,
            1 => Just(String::new()),
            1 => Just("{\"ts\": \"2026-11-29T16:10:39Z\", \"event\": ".to_string()),
            1 => Just("[1, 2]".to_string()),
            1 => Just("  {\"ts\":\"2026-11-29T16:10:39Z\",\"event\":\"acquired\",\"lock_key\":\"k\",\"owner\":\"o\"}  \r".to_string()),
            1 => Just("{\"a\": 1} trailing".to_string()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn parallel_chunks_give_exactly_the_serial_result(
            lines in prop::collection::vec(line(), 1..60),
            chunk in 1usize..400,
            final_newline in any::<bool>(),
        ) {
            let mut text = format!("{{\"ts\": \"2026-11-29T16:10:39.627+08:00\", \"event\": \"acquired\", \"lock_key\": \"lock:a\", \"owner\": \"w-0\"}}\n{}", lines.join("\n"));
            if final_newline {
                text.push('\n');
            }
            let want = serial(text.as_bytes());
            let got = parallel(text.as_bytes(), usize::MAX / 2, chunk).expect("qualifies");
            assert_same(&got, &want);
        }
    }

    #[test]
    fn text_lines_in_parallel_chunks_give_the_serial_result() {
        // Spring Boot lines, stack-trace continuations and an unreadable
        // time: chunk boundaries fall everywhere.
        let mut text = String::new();
        for i in 0..3_000 {
            let msg = [
                "acquired lock key=k token=t ttl=100ms",
                "stock deducted sku=s qty=1",
                "released lock key=k token=t",
            ][i % 3];
            text.push_str(&format!(
                "2026-11-29 16:{:02}:{:02}.{:03}  INFO 7 --- [exec-{}] c.e.S : {msg}\n",
                (i / 60_000) % 60,
                (i / 1000) % 60,
                i % 1000,
                i % 5
            ));
            if i % 101 == 0 {
                text.push_str("\tat com.example.S.run(S.java:1)\n2026-13-99 99:99:99.999  INFO 7 --- [x] c.e.S : acquired lock key=k\n");
            }
        }
        let want = serial(text.as_bytes());
        assert!(want.events.len() > 2_000);
        for chunk in [64, 1000, 4096] {
            let got = parallel(text.as_bytes(), text.len() + 1, chunk).expect("qualifies");
            assert_same(&got, &want);
        }
    }

    #[test]
    fn envelopes_on_the_fast_path_give_the_serial_result() {
        // SLS simple mode: the app's JSON line escaped inside `content`; some
        // lines the fast scanner gives up on (a text payload, a nested tag).
        let mut text = String::new();
        for i in 0..3_000 {
            let ev = ["acquired", "stock_deducted", "released"][i % 3];
            let app = format!(
                "{{\"ts\":\"2026-11-29T16:{:02}:{:02}.{:03}+08:00\",\"event\":\"{ev}\",\"lock_key\":\"k{}\",\"owner\":\"o{}\",\"ttl_ms\":100}}",
                (i / 60_000) % 60,
                (i / 1000) % 60,
                i % 1000,
                i % 7,
                i / 3
            );
            let content = if i % 97 == 0 {
                serde_json::to_string("2026-11-29 16:00:00.000 released lock key=k1 token=x")
                    .expect("json")
            } else {
                serde_json::to_string(&app).expect("json")
            };
            let tag = if i % 89 == 0 {
                "{\"x\":1}".to_string()
            } else {
                format!("\"node-{}\"", i % 4)
            };
            text.push_str(&format!(
                "{{\"__time__\":\"{}\",\"__tag__:__hostname__\":{tag},\"content\":{content}}}\n",
                1_796_000_000 + i / 1000
            ));
        }
        let want = serial(text.as_bytes());
        assert!(want.events.len() > 2_500);
        for chunk in [64, 4096] {
            let got = parallel(text.as_bytes(), text.len() + 1, chunk).expect("qualifies");
            assert_same(&got, &want);
        }
    }

    #[test]
    fn on_a_pool_thread_the_file_is_left_to_the_general_path() {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        let line = "{\"ts\": \"2026-11-29T16:10:39.627+08:00\", \"event\": \"acquired\", \"lock_key\": \"k\", \"owner\": \"o\", \"ttl_ms\": 100}\n";
        f.write_all(line.repeat(100).as_bytes()).expect("write");
        let read = |b: &mut LogBuilder| {
            let (opts, progress) = (IngestOptions::default(), Progress::default());
            read_jsonl(f.path(), "t.jsonl", &opts, b, &progress).expect("read")
        };
        assert!(
            read(&mut LogBuilder::new()),
            "off the pool: the parallel path"
        );
        let mut b = LogBuilder::new();
        let on_pool = rayon::scope(|_| read(&mut b));
        assert!(!on_pool, "on a pool thread: the general path");
        assert!(b.finish().events.is_empty(), "the builder untouched");
    }

    #[test]
    fn reader_thread_chunks_give_the_serial_result() {
        // Enough records that field detection ends inside a small head, so the
        // rest goes through the reader thread in small chunks.
        let mut text = String::new();
        for i in 0..25_000 {
            let ev = ["acquired", "stock_read", "released", "acquire_failed"][i % 4];
            text.push_str(&format!(
                "{{\"ts\": \"2026-11-29T16:{:02}:{:02}.{:03}+08:00\", \"event\": \"{ev}\", \"lock_key\": \"k{}\", \"owner\": \"o{}\", \"ttl_ms\": 100, \"stock\": {i}}}\n",
                (i / 60_000) % 60, (i / 1000) % 60, i % 1000, i % 7, i / 4
            ));
            if i % 997 == 0 {
                text.push_str("{broken\n\n");
            }
        }
        let want = serial(text.as_bytes());
        assert!(text.len() > 3 << 20, "the file must outgrow the head");
        let got = parallel(text.as_bytes(), 3 << 20, 4096).expect("qualifies");
        assert_same(&got, &want);
        // Past field detection (20 000 records), the rest through the reader
        // thread: ~120 chunks, parsed as they arrive on two or more threads
        // and merged in file order whatever order they finish in.
        let got = parallel(text.as_bytes(), 2_700_000, 4096).expect("qualifies");
        assert_same(&got, &want);
        // A head too small for field detection leaves the file to the general path.
        assert!(parallel(text.as_bytes(), 4096, 4096).is_none());
    }

    /// `n` CRI lines of Spring Boot lock lines; every seventh is cut into
    /// `P` chunks with `stderr` lines between them (one of them a `stderr P`
    /// closed later), and the file ends with a `stdout P` no `F` closes.
    fn cri_text(n: usize) -> String {
        let mut text = String::new();
        let mut ts = String::new();
        for i in 0..n {
            ts = format!(
                "2026-11-29T08:{:02}:{:02}.{:06}Z",
                (i / 60_000) % 60,
                (i / 1000) % 60,
                i % 1000 * 1000
            );
            let msg = if i % 2 == 0 {
                format!("acquired lock key=k{} token=t{} ttl=100ms", i % 5, i / 2)
            } else {
                format!("released lock key=k{} token=t{}", (i - 1) % 5, i / 2)
            };
            let line = format!(
                "2026-11-29 16:{:02}:{:02}.{:03}  INFO 7 --- [exec-{}] c.e.S : {msg}",
                (i / 60_000) % 60,
                (i / 1000) % 60,
                i % 1000,
                i % 5
            );
            if i % 7 == 3 {
                let (a, rest) = line.split_at(10);
                let (b, c) = rest.split_at(31);
                text.push_str(&format!(
                    "{ts} stdout P {a}\n{ts} stderr F boom {i}\n{ts} stdout P {b}\n{ts} stderr P half \n{ts} stdout F {c}\n{ts} stderr F of a stderr line\n"
                ));
            } else {
                text.push_str(&format!("{ts} stdout F {line}\n"));
            }
        }
        text.push_str(&format!(
            "{ts} stdout P 2026-11-29 17:00:00.000  INFO 7 --- [exec-1] c.e.S : acquired lock \n{ts} stdout P key=last token=z ttl=100ms\n"
        ));
        text
    }

    /// CRI partial lines are joined across chunk boundaries, per stream,
    /// and a run no `F` closes is read with a warning at the end, exactly
    /// as the serial path reads them: a chunk that started with no partial
    /// line would lose its `P` lines and load their `F` line alone.
    #[test]
    fn cri_partial_lines_across_chunks_give_the_serial_result() {
        let text = cri_text(2_000);
        let want = serial(text.as_bytes());
        // Every lock line loads, the unclosed one too, with one warning.
        assert_eq!(want.events.len(), 2_001);
        let unclosed: Vec<_> = want
            .warnings
            .kept()
            .iter()
            .filter(|w| {
                matches!(
                    w.reason,
                    WarningReason::Record(RecordWarning::CriUnclosed { .. })
                )
            })
            .collect();
        assert_eq!(unclosed.len(), 1, "{:?}", want.warnings.kept());
        let s = &want.sources[0];
        assert_eq!(
            s.lines_read,
            s.events_loaded + s.lines_skipped + s.lines_warned
        );
        for chunk in [1, 64, 300, 4096] {
            let got = parallel(text.as_bytes(), text.len() + 1, chunk).expect("qualifies");
            assert_same(&got, &want);
        }
    }

    /// The same through the reader thread: the partial lines open at the
    /// end of the head and of each chunk are handed to the next.
    #[test]
    fn cri_partial_lines_through_the_reader_thread_give_the_serial_result() {
        let text = cri_text(30_000);
        let want = serial(text.as_bytes());
        assert_eq!(want.events.len(), 30_001);
        let head = text.len() * 4 / 5;
        let got = parallel(text.as_bytes(), head, 4096).expect("qualifies");
        assert_same(&got, &want);
    }

    /// One CRI line of a random run: a stream, a tag and a piece of a lock
    /// line (or a blank line).
    fn cri_piece() -> impl Strategy<Value = String> {
        let stream = prop_oneof![3 => Just("stdout"), 1 => Just("stderr")];
        let tag = prop_oneof![Just("P"), Just("F")];
        let piece = prop_oneof![
            Just("2026-11-29 16:00:01.000  INFO 7 --- [exec-1] c.e.S : "),
            Just("acquired lock key=k1 token=a"),
            Just(" ttl=5s"),
            Just("released lock key=k1 "),
            Just("token=a"),
            Just("{\"ts\":\"2026-11-29T16:00:02Z\",\"event\":\"acquired\","),
            Just("\"key\":\"k2\",\"holder\":\"b\"}"),
            Just(""),
        ];
        prop_oneof![
            12 => (stream, tag, piece, 0u32..60).prop_map(|(s, t, p, ms)| {
                format!("2026-11-29T08:00:01.{ms:03}000000Z {s} {t} {p}")
            }),
            1 => Just(String::new()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(120))]
        /// Random CRI runs, chunk boundaries anywhere: the parallel path
        /// joins partial lines exactly as the serial one.
        #[test]
        fn random_cri_runs_in_parallel_chunks_give_the_serial_result(
            lines in prop::collection::vec(cri_piece(), 1..50),
            chunk in 1usize..300,
        ) {
            let text = format!(
                "2026-11-29T08:00:00.000000000Z stdout F 2026-11-29 16:00:00.000  INFO 7 --- [exec-0] c.e.S : acquired lock key=k0 token=z ttl=1s\n{}\n",
                lines.join("\n")
            );
            let want = serial(text.as_bytes());
            if let Some(got) = parallel(text.as_bytes(), usize::MAX / 2, chunk) {
                assert_same(&got, &want);
            }
            let s = &want.sources[0];
            prop_assert_eq!(s.lines_read, s.events_loaded + s.lines_skipped + s.lines_warned);
        }
    }
}

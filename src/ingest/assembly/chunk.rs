//! One chunk of the parallel path: its lines read into events, strings and
//! warnings of its own, as the whole-file path would read them. The hot
//! loop of a load: a JSON line takes the fast scanner (`readers/fast.rs`)
//! with the fields decided for the file, a text line the text reader with
//! the CRI partial lines still open before the chunk.

use smallvec::SmallVec;

use super::collect::Collector;
use super::steps::{collector, placeholder};
use crate::ingest::IngestOptions;
use crate::ingest::framing::cri::{self, Partials};
use crate::ingest::readers::fast::{self, scan_envelope, scan_line_hinted};
use crate::ingest::readers::json::{json_reason, json_record, unwrap_hit};
use crate::ingest::readers::lines;
use crate::ingest::records::item::Item;
use crate::ingest::records::record::{FieldValue, Record, Scope};
use crate::ingest::roles::fields::Fields;
use crate::ingest::roles::time::TzSpec;
use crate::ingest::vocabulary::roles::Role;
use crate::model::{Interner, LogBuilder, RecordWarning, SourceInfo};

/// What one file's parse needs, shared by the chunk workers.
pub(super) struct ParseContext<'o> {
    pub(super) file: u16,
    pub(super) name: String,
    pub(super) fields: Fields,
    /// Wanted field names for the fast scanner; empty when it is off.
    pub(super) names: Vec<String>,
    /// For each role, its field's index in `names`.
    pub(super) by_role: Vec<Option<usize>>,
    pub(super) tz: Option<&'o TzSpec>,
    pub(super) opts: &'o IngestOptions,
    /// Text lines rather than JSON Lines.
    pub(super) text_lines: bool,
    /// Envelopes whose payload is the application's JSON line: the fast
    /// scanner reads the payload field, then the wanted fields inside it and
    /// in the envelope.
    pub(super) payload_fast: Option<PayloadPlan>,
    /// The first full date of the file's head, for times that lack a year
    /// or a date ([`super::dates::DateHints::line`]).
    pub(super) dated_line: Option<chrono::NaiveDate>,
    /// The reading plan of the file's flat JSON lines
    /// ([`super::plan::ReadPlan`]), `None` when a step needs the general
    /// path.
    pub(super) plan: Option<super::plan::ReadPlan>,
}

/// The wanted names of an envelope file, for the fast scanner.
pub(super) struct PayloadPlan {
    field: String,
    inner: Vec<String>,
    outer: Vec<String>,
}

/// The plan for `fields`, `None` when a chosen field is a dotted path (the
/// general path reaches into nested objects).
pub(super) fn payload_plan(fields: &Fields) -> Option<PayloadPlan> {
    let field = fields.payload.clone()?;
    if !fields.others.is_empty() {
        // Kinds picked apart: each record's names depend on its kind.
        return None;
    }
    let (mut inner, mut outer) = (Vec::new(), Vec::new());
    for r in Role::ALL {
        for (p, fallback) in [(fields.get(r), false), (fields.fallback(r), true)] {
            let Some(p) = p else { continue };
            if p.field.contains('.') || p.field == field {
                return None;
            }
            let lists: &mut [&mut Vec<String>] = match (p.scope, fallback) {
                (Scope::Outer, _) | (_, true) => &mut [&mut outer],
                (Scope::Inner, _) => &mut [&mut inner],
                (Scope::Any, _) => &mut [&mut inner, &mut outer],
            };
            for l in lists.iter_mut() {
                if !l.contains(&p.field) {
                    l.push(p.field.clone());
                }
            }
        }
    }
    Some(PayloadPlan {
        field,
        inner,
        outer,
    })
}

/// Where a chunk of text lines starts: the CRI partial lines still open
/// before it (their line numbers counted in the whole file) and the number
/// of lines before it. JSON Lines chunks start from the default.
#[derive(Clone, Debug, Default)]
pub(super) struct ChunkStart {
    pub(super) partials: Partials,
    pub(super) base: u64,
}

impl ChunkStart {
    /// The start of the chunk after `bytes` (whole lines) when `bytes`
    /// starts at `self`. A chunk that is not UTF-8 stops the parallel path,
    /// so its state does not matter.
    pub(super) fn after(&self, bytes: &[u8]) -> ChunkStart {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return self.clone();
        };
        let (partials, lines) = cri::partials_after(text, self.partials.clone(), self.base);
        ChunkStart {
            partials,
            base: self.base + lines,
        }
    }
}

/// One parsed chunk. Line numbers in it count from the chunk's first line.
pub(super) struct ChunkOut {
    pub(super) b: LogBuilder,
    pub(super) info: SourceInfo,
    pub(super) naive_seen: bool,
    /// Lines in the chunk (to number the next one).
    pub(super) lines: u64,
    /// False when the chunk is not valid UTF-8.
    pub(super) utf8: bool,
    /// Line numbers already counted in the whole file (the partial lines
    /// read at the end, [`finish_partials`]): merged without a shift.
    pub(super) absolute: bool,
}

/// The CRI partial lines no `F` line closed, read at the end of the file
/// (`lines::finish_partials`: a warning, then the joined line), as a
/// chunk whose line numbers are already the file's.
pub(super) fn finish_partials(mut partials: Partials, context: &ParseContext<'_>) -> ChunkOut {
    let mut info = placeholder();
    info.name = context.name.clone();
    let mut b = LogBuilder::new();
    let mut col = collector(context.file, context.fields.clone(), context.opts, info);
    col.dates.line = context.dated_line;
    let _ = lines::finish_partials(&mut partials, 0, &mut |no, _, item| {
        take_item(&mut col, &mut b, no, item)
    });
    ChunkOut {
        b,
        naive_seen: col.naive_seen,
        info: col.info,
        lines: 0,
        utf8: true,
        absolute: true,
    }
}

/// Hands one walked item to the collector, as `read_source`'s walk does.
fn take_item(
    col: &mut Collector,
    b: &mut LogBuilder,
    no: u64,
    item: Item<'_>,
) -> std::ops::ControlFlow<()> {
    match item {
        Item::Record(r) => col.record(b, no, &r),
        Item::Skip => col.skip(),
        Item::Bad(reason) => col.bad(b, no, reason),
        Item::Warn(reason) => col.warn(b, no, reason),
    }
    std::ops::ControlFlow::Continue(())
}

/// Parses one chunk exactly as `readers::walk::walk` + `Collector::record`
/// would, taking the fast scanner where it is sure. Text lines start from
/// the CRI partial lines `start` says are open.
pub(super) fn parse_chunk(
    bytes: &[u8],
    start: &ChunkStart,
    context: &ParseContext<'_>,
) -> ChunkOut {
    let mut info = placeholder();
    info.name = context.name.clone();
    let mut b = LogBuilder::new();
    // Room for the strings of a chunk without rehashing as it fills.
    b.log.strings = Interner::with_capacity(bytes.len() / 256, bytes.len() / 16);
    let Ok(text) = std::str::from_utf8(bytes) else {
        return ChunkOut {
            b,
            info,
            naive_seen: false,
            lines: 0,
            utf8: false,
            absolute: false,
        };
    };
    let mut col = collector(context.file, context.fields.clone(), context.opts, info);
    col.dates.line = context.dated_line;
    col.set_plan(context.plan.clone());
    let mut scan = LineScan::of(context);
    let mut partials = start.partials.clone();
    let mut lines = 0u64;
    let mut rest = text;
    while !rest.is_empty() {
        let (raw, tail) = next_line(rest);
        rest = tail;
        lines += 1;
        let line = fast::trim(raw);
        if line.is_empty() {
            continue;
        }
        if context.text_lines {
            text_line(raw, (start.base, lines), &mut partials, &mut col, &mut b);
        } else {
            scan.read(line, lines, &mut col, &mut b);
        }
    }
    col.info.plan = col.plan_report();
    ChunkOut {
        b,
        naive_seen: col.naive_seen,
        info: col.info,
        lines,
        utf8: true,
        absolute: false,
    }
}

/// The first line of `rest` (with its end) and the text after it. A line ends
/// at `\n`, `\r\n` or a lone `\r`, as in `framing::lines::line_end` (a lone
/// `\r` inside an LF file must not merge two records); memchr's vectorised
/// search.
fn next_line(rest: &str) -> (&str, &str) {
    let rb = rest.as_bytes();
    let end = match memchr::memchr2(b'\n', b'\r', rb) {
        Some(i) if rb[i] == b'\r' && rb.get(i + 1) == Some(&b'\n') => i + 2,
        Some(i) => i + 1,
        None => rest.len(),
    };
    rest.split_at(end)
}

/// Reads text line `no` of the chunk (`raw`, with its line end) into `col`,
/// CRI partial lines joined across it (`partials`): numbered in the file
/// (`base + no`) for the partial lines' runs, in the chunk for what it
/// records.
fn text_line(
    raw: &str,
    (base, no): (u64, u64),
    partials: &mut Partials,
    col: &mut Collector<'_>,
    b: &mut LogBuilder,
) {
    // The line as written (a `P` chunk may end in a space); its only `\r`
    // or `\n` are its line end.
    let unended = raw.trim_end_matches(['\n', '\r']);
    let mut record = lines::RecordTime::default();
    let state = (partials, &mut record);
    let _ = lines::text_line(unended, None, state, base + no, 0, &mut |no, _, item| {
        take_item(col, b, no.saturating_sub(base), item)
    });
}

/// How one chunk's JSON lines are read: the fields wanted by the fast
/// scanner with their values on the line at hand, the gaps between fields
/// learned from the lines before as hints, and an envelope's names and
/// hints when the file's records sit in a payload field. Lines the scanner is not sure about take
/// the general parser; every way gives the same event.
struct LineScan<'c, 'a> {
    names: Vec<&'c str>,
    vals: Vec<Option<FieldValue<'a>>>,
    hints: fast::KeyHints<'a>,
    by_role: &'c [Option<usize>],
    /// The envelope's names and both records' gap hints (the inner
    /// record's copied: its text is unescaped per line).
    envelope: Option<EnvelopeNames<'c>>,
    env_hints: EnvelopeHints<'a>,
}

impl<'c, 'a> LineScan<'c, 'a> {
    /// The scan for the chunks of the file `context` reads.
    fn of(context: &'c ParseContext<'_>) -> LineScan<'c, 'a> {
        let names: Vec<&str> = context.names.iter().map(String::as_str).collect();
        LineScan {
            vals: vec![None; names.len()],
            names,
            hints: fast::KeyHints::default(),
            by_role: &context.by_role,
            envelope: context.payload_fast.as_ref().map(EnvelopeNames::of),
            env_hints: EnvelopeHints::default(),
        }
    }

    /// Reads JSON line `no` (trimmed, not blank) into `col`: an envelope's
    /// payload by the envelope scan, a flat object by the field scan, else
    /// by `serde_json` (a line that is no object is a warning).
    fn read(&mut self, line: &'a str, no: u64, col: &mut Collector<'_>, b: &mut LogBuilder) {
        if let Some(env) = &self.envelope
            && read_envelope(line, env, &mut self.env_hints, col, b, no)
        {
            return;
        }
        if !self.names.is_empty()
            && scan_line_hinted(line, &self.names, &mut self.vals, &mut self.hints)
        {
            let rec = Record::Slots {
                names: &self.names,
                vals: &self.vals,
                by_role: self.by_role,
            };
            col.record(b, no, &rec);
            return;
        }
        match json_record(line) {
            Ok(Some(o)) => col.record(
                b,
                no,
                &Record::Json {
                    main: unwrap_hit(&o),
                    extra: None,
                },
            ),
            Ok(None) => col.bad(b, no, RecordWarning::NotJsonObject),
            Err(e) => col.bad(b, no, json_reason(&e)),
        }
    }
}

/// A [`PayloadPlan`]'s names as the scanner takes them, made once a chunk.
struct EnvelopeNames<'p> {
    plan: &'p PayloadPlan,
    inner: Vec<&'p str>,
    /// The envelope's own names, then the payload field's.
    outer: Vec<&'p str>,
}

impl<'p> EnvelopeNames<'p> {
    fn of(plan: &'p PayloadPlan) -> EnvelopeNames<'p> {
        let outer = plan.outer.iter().chain([&plan.field]);
        EnvelopeNames {
            plan,
            inner: plan.inner.iter().map(String::as_str).collect(),
            outer: outer.map(String::as_str).collect(),
        }
    }
}

/// Reads `line` as an envelope whose field `env.plan.field` holds the
/// application's record as a JSON string, into `col`: the envelope's fields
/// and the payload's text in one pass, the payload unescaped as it is read.
/// False, with nothing recorded, when the general path must read it.
fn read_envelope<'a>(
    line: &'a str,
    env: &EnvelopeNames<'_>,
    hints: &mut EnvelopeHints<'a>,
    col: &mut Collector,
    b: &mut LogBuilder,
    no: u64,
) -> bool {
    // On the stack: an envelope line allocates only its unescaped inner text.
    let mut ovals: SmallVec<[Option<FieldValue<'_>>; 24]> =
        smallvec::smallvec![None; env.outer.len()];
    let own = env.outer.len() - 1;
    let Some(inner_text) = scan_envelope(line, &env.outer, &mut ovals, &mut hints.outer, own)
    else {
        return false;
    };
    let mut ivals: SmallVec<[Option<FieldValue<'_>>; 24]> =
        smallvec::smallvec![None; env.inner.len()];
    // The scan reads only a text that is an object.
    if !scan_line_hinted(inner_text.trim(), &env.inner, &mut ivals, &mut hints.inner) {
        return false;
    }
    let inner = Record::Slots {
        names: &env.inner,
        vals: &ivals,
        by_role: &[],
    };
    let outer = Record::Slots {
        names: &env.outer[..own],
        vals: &ovals[..own],
        by_role: &[],
    };
    let rec = Record::Nested {
        inner: &inner,
        outer: &outer,
        skip: &env.plan.field,
    };
    col.record(b, no, &rec);
    true
}

/// The gap hints of an envelope's lines: the outer line's borrowed from the
/// chunk, the inner record's copied (its text lives one line).
#[derive(Default)]
struct EnvelopeHints<'a> {
    outer: fast::KeyHints<'a>,
    inner: fast::OwnedKeyHints,
}

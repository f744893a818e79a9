//! The named steps a file goes through, shared by the whole-file path
//! (`source.rs`, [`crate::ingest::read_source`]) and the parallel path
//! (`parallel.rs`): where the file's events start, which reader reads it,
//! its fields decided from its first records, the collector that makes its
//! events, and its end (the source added, its TTL settled). Each says what
//! holds before and after it; the two paths give the same log, byte for
//! byte (`parallel.rs`'s tests).

use crate::ingest::IngestOptions;
use crate::ingest::assembly::collect::Collector;
use crate::ingest::error::IngestError;
use crate::ingest::infra::{self, InfraKind};
use crate::ingest::monitor;
use crate::ingest::readers::container::Container;
use crate::ingest::readers::contest::{self, BidBook};
use crate::ingest::readers::text::{TextRules, describe_layout};
use crate::ingest::roles::fields::{Detector, Fields, resolution_name};
use crate::ingest::roles::mapping::Mapping;
use crate::ingest::roles::time::TzSpec;
use crate::model::{Dialect, Event, EventKind, FileWarning, LogBuilder, SourceInfo, SourceNote};

/// Where one file's part of the load starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FileStart {
    /// The file's index among the sources ([`crate::model::SourceRef::file`]).
    pub file: u16,
    /// The index of its first event in the builder's events.
    pub first_event: usize,
}

impl FileStart {
    /// The start of the next file of `builder`: nothing of it is in the
    /// builder yet.
    ///
    /// # Errors
    /// [`IngestError::TooManySources`] past 65 535 files.
    pub(crate) fn of(builder: &LogBuilder) -> Result<FileStart, IngestError> {
        Ok(FileStart {
            file: u16::try_from(builder.log.sources.len())
                .map_err(|_| IngestError::TooManySources)?,
            first_event: builder.log.events.len(),
        })
    }
}

/// The zone times without an offset are read in: the `--tz` option's, else
/// the mapping's, else none (UTC, said in a note).
pub(crate) fn naive_zone(opts: &IngestOptions) -> Option<&TzSpec> {
    opts.tz
        .as_ref()
        .or(opts.mapping.as_ref().and_then(|m| m.tz.as_ref()))
}

/// The infrastructure log `text` is (a Redis server's, a GC log...), read
/// as evidence (`infra/`); never with a mapping file, which says the file
/// is the application's.
pub(crate) fn infra_kind(text: &str, opts: &IngestOptions) -> Option<InfraKind> {
    opts.mapping
        .is_none()
        .then(|| infra::detect(text))
        .flatten()
}

/// Which reader reads `text`: the contest's choice ([`contest::detect_with`],
/// its bids kept in the book), then a mapping's own text rules
/// (`line_regex`, `[messages]`) for text lines, and for CSV, logfmt or an
/// unknown shape when the mapping has a `line_regex`.
pub(crate) fn choose_reader(text: &str, opts: &IngestOptions) -> (Container, BidBook) {
    let mut book = BidBook::default();
    let mut container = contest::detect_with(text, monitor::looks_like_monitor, &mut book);
    let Some(rules) = opts.mapping.as_ref().and_then(TextRules::of) else {
        return (container, book);
    };
    container = match container {
        Container::Structured { structure, .. } if rules.line.is_none() => Container::Structured {
            structure,
            rules: Some(Box::new(rules)),
        },
        Container::Text { .. }
        | Container::Unknown
        | Container::Csv { .. }
        | Container::Logfmt
        | Container::Structured { .. }
            if rules.line.is_some() || matches!(container, Container::Text { .. }) =>
        {
            Container::Text {
                rules: Some(Box::new(rules)),
            }
        }
        other => other,
    };
    (container, book)
}

/// The fields of a file whose first records `det` counted: the roles
/// resolved (the mapping's first, then the names, then the protocol for
/// what the names left undecided, times read in `tz`), a warning into `builder` for each field
/// the mapping names that no record had, and `info` told how the file is
/// read: its dialect (JSON with SLS's fields is SLS), its fields, the
/// field names seen, the envelope's payload field, the text layout, the
/// readers' bids, then the notes on the picks. `info` has the file's name
/// and its container's dialect before.
pub(crate) fn plan_fields(
    det: &Detector,
    (container, book): (&Container, &mut BidBook),
    text: &str,
    (mapping, tz): (Option<&Mapping>, Option<&TzSpec>),
    info: &mut SourceInfo,
    builder: &mut LogBuilder,
) -> Fields {
    warn_unseen_mapping_fields(builder, &info.name, det, mapping);
    let (mut fields, mut notes) = det.resolve(mapping);
    super::complete::complete(det, mapping, tz, &mut fields, &mut notes);
    super::complete::complete_outcome(det, (mapping, tz), &mut fields, &mut notes);
    if det.sls && matches!(info.dialect, Dialect::JsonLines | Dialect::JsonArray) {
        info.dialect = Dialect::SlsJson;
    }
    info.fields = fields.listing();
    describe_reading(info, det, &fields, (container, book), text);
    info.notes.extend(notes);
    if matches!(container, Container::Doc { .. }) {
        info.notes.push(SourceNote::RecordNumbers);
    }
    fields
}

/// The collector that makes the events of file `file` (or of a chunk of
/// it) with `fields`, counting into `info`.
pub(crate) fn collector(
    file: u16,
    fields: Fields,
    opts: &IngestOptions,
    info: SourceInfo,
) -> Collector<'_> {
    Collector::new(file, fields, naive_zone(opts), opts.mapping.as_ref(), info)
}

/// The file's end, once every line is read and its events are in
/// `builder`: a file that gave no line read says so (`say_empty`: not for
/// an empty or unrecognised file, which said it already), its `info` is
/// added as the next source, and its TTL settled ([`settle_ttl`]).
pub(crate) fn finish_source(
    builder: &mut LogBuilder,
    info: SourceInfo,
    start: FileStart,
    opts: &IngestOptions,
    say_empty: bool,
) {
    if info.lines_read == 0 && say_empty {
        builder.warn(&info.name, 0, FileWarning::NoRecords);
    }
    builder.add_source(info);
    settle_ttl(builder, start.file, start.first_event, opts);
}

/// Records in `info` how the file was read: the field names seen, the
/// envelope field holding the application's record, the text layout, the
/// time field's resolution.
fn describe_reading(
    info: &mut SourceInfo,
    det: &Detector,
    fields: &Fields,
    (container, book): (&Container, &mut BidBook),
    text: &str,
) {
    info.fields_seen.clone_from(&det.names_seen);
    info.payload_field.clone_from(&fields.payload);
    info.time_resolution = fields
        .time_resolution_ns
        .map(|r| resolution_name(r).to_string());
    match container {
        Container::Text { .. } => info.layout = describe_layout(text),
        Container::Structured { structure: st, .. } => {
            info.layout = Some(format!("structure found: {}", st.start_pattern()));
            info.notes.push(SourceNote::TextStructure {
                format: st.pattern.clone(),
                start: st.start_pattern(),
                multiline: st.multiline,
                sampled: st.sampled.0 as u64,
                starts: st.sampled.1 as u64,
            });
        }
        _ => {}
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

/// Warnings for the fields a mapping names that no record detection saw
/// has: a typo there would otherwise read as "no such events".
fn warn_unseen_mapping_fields(
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
            let reason = FileWarning::UnseenMappingField {
                field: field.clone(),
                role: role.clone(),
                records: det.records as u64,
            };
            builder.warn(name, 0, reason);
        }
    }
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
    let ours = |e: &Event| e.source.file == file && !e.inferred;
    let events = log.events.get_mut(first_event..).unwrap_or_default();
    let acquires = events
        .iter()
        .any(|e| ours(e) && e.kind == EventKind::Acquired);
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
                if matches!(e.kind, EventKind::Acquired | EventKind::Renewed) {
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

/// A source's information before its name and reading are known (a
/// parallel chunk's, the collector's stand-in while it holds the file's).
pub(crate) fn placeholder() -> SourceInfo {
    SourceInfo {
        encoding: String::new(),
        ..SourceInfo::new("", Dialect::Unknown)
    }
}

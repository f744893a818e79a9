//! Line streams: JSON Lines (a logcli JSON line through `loki.rs`), logfmt
//! lines and text lines (`text.rs` reads a line's header and layout; CRI
//! partial lines are joined first, `framing/cri.rs`), each line one record
//! or one warning.

use std::ops::ControlFlow;

use super::fast::trim;
use super::json::{json_reason, json_record, unwrap_hit};
use super::loki;
use super::pairs::parse_logfmt;
use super::text::{
    Layout, TextLine, TextRules, is_trace_line, message_event, parse_line, to_pairs,
};
use crate::ingest::framing::cri::{self, Partials};
use crate::ingest::framing::lines::{line_end, walk_lines};
use crate::ingest::records::item::{Item, Visit};
use crate::ingest::records::record::Record;
use crate::model::RecordWarning;

/// One JSON Lines line as its item: a logcli line (`loki`) as its Loki
/// record, any other object as a record (a search hit's `_source`, key/value
/// attribute lists read as fields), else a warning.
pub(crate) fn json_line_item(
    line: &str,
    loki: bool,
    visit: &mut Visit<'_>,
    no: u64,
    off: usize,
) -> ControlFlow<()> {
    match json_record(line) {
        Ok(Some(o)) if loki && loki::is_logcli_line(&o) => {
            let r = loki::logcli_record(&o);
            visit(
                no,
                off,
                Item::Record(Record::Json {
                    main: &r.main,
                    extra: r.extra.as_ref(),
                }),
            )
        }
        Ok(Some(o)) => visit(
            no,
            off,
            Item::Record(Record::Json {
                main: unwrap_hit(&o),
                extra: None,
            }),
        ),
        Ok(None) => visit(no, off, Item::Bad(RecordWarning::NotJsonObject.into())),
        Err(e) => visit(no, off, Item::Bad(json_reason(&e).into())),
    }
}

/// Walks JSON Lines, each line one record ([`json_line_item`]).
pub(crate) fn walk_json_lines(text: &str, loki: bool, visit: &mut Visit<'_>) -> ControlFlow<()> {
    walk_lines(text, visit, |line, visit, no, off| {
        json_line_item(line, loki, visit, no, off)
    })
}

/// Walks logfmt lines, each line its `key=value` pairs.
pub(crate) fn walk_logfmt(text: &str, visit: &mut Visit<'_>) -> ControlFlow<()> {
    walk_lines(text, visit, |line, visit, no, off| {
        let pairs = parse_logfmt(line);
        if pairs.is_empty() {
            visit(no, off, Item::Bad(RecordWarning::NotKeyValue.into()))
        } else {
            visit(no, off, Item::Record(Record::Pairs(&pairs)))
        }
    })
}

/// Walks text lines: each line's prefix and layout become pairs, a JSON
/// payload becomes the inner record with the prefix outside it. Lines
/// without a time that name no event are continuation lines (skipped); CRI
/// partial lines (`P`) are joined to the line that completes them, and a run
/// of them that no `F` line closes is read, with a warning, at the end.
pub(crate) fn walk_text(text: &str, rules: Option<&TextRules>, visit: &mut Visit<'_>) {
    let mut partials = Partials::default();
    let done = walk_lines(text, visit, |_, visit, no, off| {
        // The line as written: a `P` chunk may end in a space.
        let raw = text
            .get(off..line_end(text.as_bytes(), off).0)
            .unwrap_or("");
        text_line(raw, rules, &mut partials, no, off, visit)
    });
    if done.is_continue() {
        let _ = finish_partials(&mut partials, text.len(), visit);
    }
}

/// Reads every run of CRI partial lines no `F` line closed
/// ([`Partials::finish`]): a warning naming its lines, then the joined text
/// as the line it would have been, counted on its last line.
pub(crate) fn finish_partials(
    partials: &mut Partials,
    off: usize,
    visit: &mut Visit<'_>,
) -> ControlFlow<()> {
    for run in partials.finish() {
        visit(run.last, off, Item::Warn(run.reason.into()))?;
        visit_text(&parse_line(&run.line), visit, run.last, off)?;
    }
    ControlFlow::Continue(())
}

/// Reads one text line (without its line end, not blank) into items for
/// `visit`: the mapping's rules first, CRI partial lines (`TIME STREAM P
/// chunk`) kept in `partials` and joined, with nothing in between (a chunk's
/// trailing spaces kept), to the `F` line of their stream that ends them.
/// The serial walk and the parallel chunks share it.
pub(crate) fn text_line(
    raw: &str,
    rules: Option<&TextRules>,
    partials: &mut Partials,
    no: u64,
    off: usize,
    visit: &mut Visit<'_>,
) -> ControlFlow<()> {
    let line = trim(raw);
    if let Some(r) = rules
        && r.reads_lines()
        && line.len() > r.max_line
    {
        let reason = RecordWarning::TooLongForRegex {
            bytes: line.len() as u64,
            limit: r.max_line as u64,
        };
        return visit(no, off, Item::Bad(reason.into()));
    }
    if let Some(r) = rules
        && let Some(pairs) = r.pairs(line)
    {
        return visit(no, off, Item::Record(Record::Pairs(&pairs)));
    }
    let keep = rules.map_or(&[][..], |r| r.keep.as_slice());
    if let Some((time, s, partial, chunk)) = cri::parts(raw.trim_start()) {
        if partial {
            return match partials.push(s, time, chunk, no) {
                Some(before) => visit(before, off, Item::Skip),
                None => ControlFlow::Continue(()),
            };
        }
        if let Some((last, joined)) = partials.close(s, time, chunk) {
            visit(last, off, Item::Skip)?;
            let t = TextLine {
                keep,
                ..parse_line(&joined)
            };
            return visit_text(&t, visit, no, off);
        }
    }
    let t = TextLine {
        keep,
        ..parse_line(line)
    };
    visit_text(&t, visit, no, off)
}

/// The items of one parsed text line: a continuation line (no time, and no
/// event or a stack trace's line) is skipped, a JSON payload is the inner record with the prefix
/// outside it, anything else is its pairs.
pub(crate) fn visit_text(
    t: &TextLine<'_>,
    visit: &mut Visit<'_>,
    no: u64,
    off: usize,
) -> ControlFlow<()> {
    // A stack trace's line is part of the line before, whatever its words
    // say (`java.lang.IllegalMonitorStateException: attempt to unlock lock,
    // not locked by current thread` names a lock word but no event).
    if t.time.is_none()
        && t.prefix_time.is_none()
        && (is_trace_line(t.message.trim())
            || (message_event(t.message).is_none() && message_event(t.around).is_none()))
    {
        return visit(no, off, Item::Skip);
    }
    if t.layout == Layout::Json {
        let prefix = to_pairs(&TextLine {
            message: t.around,
            labels: t.labels.clone(),
            ..*t
        });
        return match json_record(t.message) {
            Ok(Some(map)) => {
                let inner = Record::Json {
                    main: &map,
                    extra: None,
                };
                let outer = Record::Pairs(&prefix);
                visit(
                    no,
                    off,
                    Item::Record(Record::Nested {
                        inner: &inner,
                        outer: &outer,
                        skip: "",
                    }),
                )
            }
            Ok(None) => visit(no, off, Item::Bad(RecordWarning::NotJsonObject.into())),
            Err(e) => visit(no, off, Item::Bad(json_reason(&e).into())),
        };
    }
    let pairs = to_pairs(t);
    visit(no, off, Item::Record(Record::Pairs(&pairs)))
}

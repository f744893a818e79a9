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
    self, Layout, TextLine, TextRules, is_trace_line, message_event, parse_line, to_pairs,
};
use crate::ingest::framing::cri::{self, Partials};
use crate::ingest::framing::lines::{line_end, walk_lines};
use crate::ingest::framing::structure::{Split, split_leading};
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
    let mut record = RecordTime::default();
    let done = walk_lines(text, visit, |_, visit, no, off| {
        // The line as written: a `P` chunk may end in a space.
        let raw = text
            .get(off..line_end(text.as_bytes(), off).0)
            .unwrap_or("");
        text_line(raw, rules, (&mut partials, &mut record), no, off, visit)
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
/// A shipper's line whose message starts with the application's own time
/// starts a record; the same stream's next lines without one continue it
/// and take its time (`record`, [`RecordTime`]).
/// The serial walk and the parallel chunks share it (the parallel path
/// takes no file with such records: [`starts_records`]).
pub(crate) fn text_line(
    raw: &str,
    rules: Option<&TextRules>,
    (partials, record): (&mut Partials, &mut RecordTime),
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
    if let Some(split) = inner_stamp(&t) {
        let inner = TextLine {
            header: t.header,
            prefix_time: t.prefix_time,
            host: t.host,
            labels: t.labels.clone(),
            level: split.level.or(t.level),
            pid: split.pid.or(t.pid),
            ..text::of_split(&split, split.message, keep)
        };
        record.start(&inner);
        return visit_text(&inner, visit, no, off);
    }
    record.start(&t);
    if let Some((time, level)) = record.continued(&t) {
        let inner = TextLine {
            time: Some(time),
            level: level.or(t.level),
            any_pairs: true,
            ..t
        };
        return visit_text(&inner, visit, no, off);
    }
    visit_text(&t, visit, no, off)
}

/// The application's own time at the start of a shipper's message that no
/// known layout read (`<134>Nov 30 23:06:55 web-01 app[42]: I1201
/// 07:06:55.100000 42 lock.go:88] …`, glog, geth, a logger before its
/// time): the structure finder's bank of formats splits it
/// ([`split_leading`]: a time no pair's name precedes). The application's
/// time is finer than the shipper's (RFC 3164 has whole seconds and no
/// year), so it is the line's time; the shipper's stays its prefix time. `None` for a line without a shipper's header,
/// with a time of its own, or whose message starts with no time.
fn inner_stamp<'a>(t: &TextLine<'a>) -> Option<Split<'a>> {
    if !coarse_header(t) || t.time.is_some() || t.layout != Layout::Message {
        return None;
    }
    split_leading(t.message)
}

/// True when `t` has a shipper's header whose time has whole seconds (RFC
/// 3164's `Nov 30 23:06:55`, `journalctl -o short-iso`): the application's
/// own time, when the message has one, is finer. A header with a fraction
/// or epoch milliseconds (CRI, kubectl, Grafana) is as fine as the line.
fn coarse_header(t: &TextLine<'_>) -> bool {
    let Some(p) = t.prefix_time.filter(|_| t.header.is_some()) else {
        return false;
    };
    let epoch_ms = p.len() >= 13 && p.bytes().all(|b| b.is_ascii_digit());
    !p.contains(['.', ',']) && !epoch_ms
}

/// The record a shipper's stream is in: the application's time (and level)
/// of the last line whose message started with one, and the stream it came
/// from (host, process, app). A console logger that writes its category on
/// one line and its message on the next (Microsoft.Extensions.Logging's
/// console) behind a syslog header gives each of its lines the shipper's
/// header; the message line's time is the record's.
#[derive(Clone, Debug, Default)]
pub(crate) struct RecordTime {
    /// The stream: host, process id and app, joined.
    stream: String,
    /// The record's time, normalised ([`Split::time`]).
    time: String,
    /// The record's level word, when it has one.
    level: String,
    /// A stream's text being compared.
    scratch: String,
}

impl RecordTime {
    /// `t`'s stream: host, process id and labels (the app).
    fn stream_of(t: &TextLine<'_>, out: &mut String) {
        out.clear();
        for part in [t.host, t.pid].into_iter().flatten() {
            out.push_str(part);
            out.push('\u{1f}');
        }
        for (k, v) in &t.labels {
            out.push_str(k);
            out.push('=');
            out.push_str(v);
            out.push('\u{1f}');
        }
    }

    /// Shipper's line `t` starts a record when it has the application's
    /// time and a message that names no event and has no `=` pair (a
    /// category line: `info: Shop.LockService[0]`); any other line ends the
    /// record its stream was in.
    fn start(&mut self, t: &TextLine<'_>) {
        let Some(time) = t.time.filter(|_| coarse_header(t)) else {
            return;
        };
        Self::stream_of(t, &mut self.scratch);
        let header_only = !t.message.contains('=') && message_event(t.message).is_none();
        if header_only {
            std::mem::swap(&mut self.stream, &mut self.scratch);
            self.time.clear();
            self.time.push_str(time);
            self.level.clear();
            self.level.push_str(t.level.unwrap_or(""));
        } else if self.scratch == self.stream {
            self.time.clear();
        }
    }

    /// The record's time and level when shipper's line `t` (its message
    /// without a time of its own) continues the last record of its stream.
    fn continued(&mut self, t: &TextLine<'_>) -> Option<(&str, Option<&str>)> {
        if self.time.is_empty()
            || !coarse_header(t)
            || t.time.is_some()
            || t.layout != Layout::Message
        {
            return None;
        }
        Self::stream_of(t, &mut self.scratch);
        (self.scratch == self.stream).then(|| {
            let level = (!self.level.is_empty()).then_some(self.level.as_str());
            (self.time.as_str(), level)
        })
    }
}

/// True when the first lines of `text` start records behind a shipper's
/// header ([`RecordTime`]) or carry the application's time in a shipper's
/// message ([`inner_stamp`]): continuation lines take the record's time,
/// which needs the lines in order.
pub(crate) fn starts_records(text: &str) -> bool {
    let mut record = RecordTime::default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(20)
        .any(|l| {
            let t = parse_line(l);
            record.start(&t);
            inner_stamp(&t).is_some() || !record.time.is_empty()
        })
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

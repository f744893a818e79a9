//! The contest of the readers: which reader reads a file, from its content
//! (never its name). A first guess from the shape of the first lines
//! ([`guess`]: JSON by its first byte, MONITOR by its commands, then CSV,
//! text lines, logfmt) stands for JSON and MONITOR; a guess of CSV, text
//! lines, logfmt or nothing is put to a contest ([`contest`]): every line
//! reader bids the lock evidence it finds in the head of the file, and the
//! highest bid reads it. When no guess is text lines and no reader reads
//! most head records' times, the text records of a structure found on the
//! head (`framing/structure.rs`) bid too. The bids are kept for the file's
//! notes ([`bids_for`], `SourceInfo::readers`).

use std::ops::ControlFlow;

use serde_json::{Map, Value};

use super::container::Container;
use super::csv::{csv_with_header, headed_delim};
use super::documents::{
    concatenated_objects, doc, is_es, lines_of_documents, nested_first_line, records_array,
};
use super::pairs::parse_logfmt;
use super::text::{is_trace_line, parse_line};
use super::walk::walk;
use super::{inner, loki, payload, xml};
use crate::ingest::framing::lines::first_lines;
use crate::ingest::framing::structure::Structure;
use crate::ingest::records::item::Item;
use crate::model::Dialect;

/// Detects the container. `monitor_check` is `monitor::looks_like_monitor`.
///
/// The first guess (JSON by its first byte, MONITOR by its commands, then
/// CSV, text lines, logfmt by their shape) stands for JSON and MONITOR; a
/// guess of CSV, text lines, logfmt or nothing is put to [`contest`]: every
/// line reader bids the lock evidence it finds in the head of the file, and
/// the highest bid reads it (a tie keeps the first guess). Tests use it;
/// a load calls [`detect_with`].
#[cfg(test)]
pub(crate) fn detect(text: &str, monitor_check: fn(&str) -> bool) -> Container {
    detect_with(text, monitor_check, &mut BidBook::default())
}

/// [`detect`], keeping the bids it computes in `book` for
/// [`bids_for`] on the same text (a load bids once per reader).
pub(crate) fn detect_with(
    text: &str,
    monitor_check: fn(&str) -> bool,
    book: &mut BidBook,
) -> Container {
    let first = guess(text, monitor_check, book);
    if !contested(&first) {
        return first;
    }
    contest(text, first, book).0
}

/// The bids already computed on one text, by reader name, and the CSV
/// delimiter its alternatives offer: [`reading`] and [`alternatives`] are pure
/// functions of the text, so a load computes each once (each CSV bid builds
/// a `csv_core` automaton, about 7 µs; before, a load built six to eight).
/// One book serves one text only.
#[derive(Default)]
pub(crate) struct BidBook {
    scores: Vec<((String, Option<u8>), Reading)>,
    header: Option<Option<u8>>,
    structure: Option<Option<Structure>>,
}

impl BidBook {
    /// Reader `c`'s bid on `head`, computed once per reader.
    fn bid(&mut self, c: &Container, head: &str) -> u32 {
        self.reading(c, head).score
    }

    /// What reader `c` reads of `head` ([`reading`]), computed once.
    fn reading(&mut self, c: &Container, head: &str) -> Reading {
        let delim = match c {
            Container::Csv { delim } => Some(*delim),
            _ => None,
        };
        let id = (reader_name(c), delim);
        if let Some((_, r)) = self.scores.iter().find(|(n, _)| *n == id) {
            return *r;
        }
        let r = reading(c, head);
        self.scores.push((id, r));
        r
    }

    /// [`csv_with_header`], computed once.
    fn header(&mut self, text: &str) -> Option<u8> {
        *self.header.get_or_insert_with(|| csv_with_header(text))
    }

    /// The structure found on the text's head ([`Structure::find`]),
    /// computed once.
    fn structure(&mut self, text: &str) -> Option<&Structure> {
        self.structure
            .get_or_insert_with(|| {
                let started = std::time::Instant::now();
                let found = Structure::find(text);
                crate::timing::phase("load/detect/structure", started);
                found
            })
            .as_ref()
    }

    /// The CSV delimiter [`alternatives`] offers.
    fn delim(&mut self, text: &str) -> Option<u8> {
        self.header(text).or_else(|| headed_delim(text))
    }
}

/// One reader's bid on the head of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bid {
    /// The reader, for the user (`text lines`, `CSV`...).
    pub reader: String,
    /// Its evidence: per record read, 2 for a lock or business event, 1
    /// each for a lock key, a holder and a readable time (`payload.rs`).
    pub score: u32,
}

/// True for the guesses a contest may overturn.
pub(crate) fn contested(c: &Container) -> bool {
    matches!(
        c,
        Container::Csv { .. } | Container::Logfmt | Container::Unknown
    ) || matches!(c, Container::Text { rules } | Container::Structured { rules, .. }
            if rules.as_ref().is_none_or(|r| !r.reads_lines()))
}

/// The reader's name for the user.
pub(crate) fn reader_name(c: &Container) -> String {
    match c {
        Container::Empty => "empty",
        Container::Unknown => "none",
        Container::Monitor => "redis-cli MONITOR",
        Container::JsonLines { loki: true } => "logcli JSON Lines",
        Container::JsonLines { loki: false } => "JSON Lines",
        Container::JsonArray => "JSON array",
        Container::Doc {
            dialect: Dialect::Xml,
            ..
        } => "XML events",
        Container::Doc { .. } => "JSON document",
        Container::Csv { delim: b'\t' } => "TSV",
        Container::Csv { .. } => "CSV",
        Container::Logfmt => "logfmt",
        Container::Text { rules: Some(r) } if r.reads_lines() => "text lines (mapping)",
        Container::Text { .. } => "text lines",
        Container::Structured { .. } => "text records (structure found)",
    }
    .to_string()
}

/// The head of `text` readers bid on: its first [`inner::BID_LINES`] lines.
fn head_of(text: &str) -> &str {
    let end = memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(inner::BID_LINES)
        .unwrap_or(text.len());
    &text[..end]
}

/// What a reader reads of a file's head: its bid, and how many records
/// it read and how many of them have a readable time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Reading {
    /// The lock evidence: per record, 2 for a lock or business event, 1
    /// each for a lock key, a holder and a readable time.
    pub score: u32,
    /// Records read.
    pub records: u32,
    /// Of them, records with a readable time.
    pub timed: u32,
    /// Lines it skipped (a text line without a time or an event: a
    /// record's next line it did not join).
    pub skipped: u32,
}

impl Reading {
    /// True when at least nine in ten of its records and skipped lines
    /// are records with a time: the reader reads the file's times, and no
    /// structure is looked for.
    fn reads_times(&self) -> bool {
        self.records > 0 && self.timed * 10 >= (self.records + self.skipped) * 9
    }
}

/// What a reader finds in `head`: the evidence of its first
/// [`inner::BID_LINES`] records (its bid), each read through the envelope
/// field holding the application's record when there is one, with the
/// records read and those with a readable time.
fn reading(c: &Container, head: &str) -> Reading {
    let field = payload::detect(c, head);
    let mut r = Reading::default();
    let mut n = 0usize;
    walk(c, head, &mut |_, _, item| {
        if matches!(item, Item::Skip) {
            r.skipped += 1;
        }
        if let Item::Record(rec) = item {
            n += 1;
            r.records += 1;
            let mut count = |inner: &crate::ingest::records::record::Record<'_>| {
                r.score += inner::bid_evidence(inner);
                r.timed += u32::from(inner::timed(inner));
            };
            match &field {
                Some(f) => inner::with_inner(&rec, f, &mut count),
                None => count(&rec),
            }
        }
        if n >= inner::BID_LINES {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    r
}

/// The line readers other than `first` that could read `text`: text
/// lines, logfmt, CSV.
fn alternatives(text: &str, first: &Container, book: &mut BidBook) -> Vec<Container> {
    let mut out = vec![Container::Text { rules: None }, Container::Logfmt];
    if let Some(delim) = book.delim(text) {
        out.push(Container::Csv { delim });
    }
    out.retain(|c| reader_name(c) != reader_name(first));
    out
}

/// Puts `first` and the other line readers to a contest on the head of
/// `text`: the winner, and every bid, best first (a tie keeps `first`
/// ahead).
pub(crate) fn contest(text: &str, first: Container, book: &mut BidBook) -> (Container, Vec<Bid>) {
    let head = head_of(text);
    let mut all: Vec<(Container, u32)> = vec![];
    let s = book.bid(&first, head);
    all.push((first, s));
    for c in alternatives(text, &all[0].0, book) {
        let s = book.bid(&c, head);
        all.push((c, s));
    }
    // A structure is looked for only where no known text layout reads
    // most lines' times (the first guess is no text lines) and no other
    // reader reads the times of nine in ten of its records.
    let found = !matches!(all[0].0, Container::Text { .. })
        && !all.iter().any(|(c, _)| book.reading(c, head).reads_times());
    if found && let Some(st) = book.structure(text) {
        let c = Container::Structured {
            structure: Box::new(st.clone()),
            rules: None,
        };
        let s = book.bid(&c, head);
        // Ahead of every alternative but the first guess: in a tie with
        // text lines, its records hold every line of a record, text lines
        // count a record's first line and its next apart.
        all.insert(1, (c, s));
    }
    all.sort_by_key(|a| std::cmp::Reverse(a.1));
    let bids = all
        .iter()
        .map(|(c, s)| Bid {
            reader: reader_name(c),
            score: *s,
        })
        .collect();
    let winner = all
        .into_iter()
        .next()
        .map_or(Container::Unknown, |(c, _)| c);
    (winner, bids)
}

/// The bids for the container `c` chosen for `text`, the reader first: the
/// contest's when `c` is a line reader, else `c`'s own bid followed by the
/// line readers' (the runners-up the JSON report names).
pub(crate) fn bids_for(c: &Container, text: &str, book: &mut BidBook) -> Vec<Bid> {
    let head = head_of(text);
    let own = Bid {
        reader: reader_name(c),
        score: book.bid(c, head),
    };
    let mut out = vec![own];
    if matches!(c, Container::Empty) {
        return out;
    }
    for alt in alternatives(text, c, book) {
        out.push(Bid {
            reader: reader_name(&alt),
            score: book.bid(&alt, head),
        });
    }
    if contested(c) {
        out.sort_by_key(|b| std::cmp::Reverse(b.score));
    } else {
        // JSON and MONITOR are taken by their shape, not by the contest:
        // the reader stays first, the others follow as runners-up.
        out[1..].sort_by_key(|b| std::cmp::Reverse(b.score));
    }
    out
}

/// An XML export of events (`xml.rs`): its records as a document's.
fn xml_events(text: &str) -> Option<Container> {
    if !xml::looks_like_xml(text) {
        return None;
    }
    Some(Container::Doc {
        records: xml::records(text)?,
        dialect: Dialect::Xml,
    })
}

/// The first guess at the container, from the shape of the first lines.
fn guess(text: &str, monitor_check: fn(&str) -> bool, book: &mut BidBook) -> Container {
    let Some(first) = first_lines(text, 1).next() else {
        return Container::Empty;
    };
    if let Some(c) = xml_events(text) {
        return c;
    }
    // A JSON array starts `[` then `{` or `]`; `[2026/12/01 ...]` and
    // `[exec-1]` start text lines.
    if let Some(rest) = text.trim_start().strip_prefix('[')
        && !rest
            .trim_start()
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
    {
        return Container::JsonArray;
    }
    if first.starts_with('{') {
        if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(first) {
            // One object alone on its line that wraps an array of records
            // (`{"results": [..]}` written without line breaks).
            let alone = first_lines(text, 2).count() == 1;
            if is_es(&o) || loki::is_query(&o) || (alone && records_array(&o).is_some()) {
                return doc(Value::Object(o));
            }
            // One document per line whose records sit deeper (the
            // Collector's file exporter: an OTLP request per line).
            if o.values().any(Value::is_array) && nested_first_line(&o) {
                return lines_of_documents(text);
            }
            return Container::JsonLines {
                loki: loki::is_logcli_line(&o),
            };
        }
        if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
            return doc(v);
        }
        if let Some(c) = concatenated_objects(text) {
            return c;
        }
        return Container::JsonLines { loki: false };
    }
    let head: String = first_lines(text, 10).collect::<Vec<_>>().join("\n");
    if monitor_check(&head) {
        return Container::Monitor;
    }
    // JSON Lines behind a damaged or commented first line.
    let heads: Vec<&str> = first_lines(text, 20).collect();
    let json_like = heads.iter().filter(|l| l.starts_with('{')).count();
    if json_like * 2 > heads.len() {
        return Container::JsonLines {
            loki: heads
                .iter()
                .filter_map(|l| serde_json::from_str::<Map<String, Value>>(l).ok())
                .next()
                .is_some_and(|o| loki::is_logcli_line(&o)),
        };
    }
    // A CSV header over rows of the same width (a text log's lines vary).
    if let Some(delim) = book.header(text) {
        return Container::Csv { delim };
    }
    // Text lines: most of the first lines start with a timestamp, stack
    // trace lines between them left out of the count (they belong to the
    // line before: a Spring Boot log with 20-line traces is still text).
    let timed = heads
        .iter()
        .filter(|l| {
            let t = parse_line(l);
            t.time.is_some() || t.prefix_time.is_some()
        })
        .count();
    let traces = heads.iter().filter(|l| is_trace_line(l)).count();
    if timed > 0 && timed * 2 > heads.len() - traces {
        return Container::Text { rules: None };
    }
    let key_ok = |k: &str| {
        k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'@'))
    };
    let logfmt_line = |line: &str| {
        let pairs = parse_logfmt(line);
        pairs.len() >= 2
            && pairs.iter().all(|(k, _)| key_ok(k))
            && line.split_whitespace().next().unwrap_or("").contains('=')
    };
    // The first line, or most of the first lines behind a damaged or
    // commented first one.
    if logfmt_line(first) || heads.iter().filter(|l| logfmt_line(l)).count() * 2 > heads.len() {
        return Container::Logfmt;
    }
    match headed_delim(text) {
        Some(delim) => Container::Csv { delim },
        None => Container::Unknown,
    }
}

//! The record a string field holds (a JSON object, or a text line: a
//! runtime's prefix, a Java layout, `key=value` pairs, event words;
//! `text.rs`), and the lock evidence a record carries, which the contest of
//! readers, the arrays of a document and the payload field's detection
//! weigh.

use super::json::json_record;
use super::text::{self, Layout};
use crate::ingest::framing::structure::split_any;
use crate::ingest::records::record::{FieldValue, Record};
use crate::ingest::vocabulary::events::event_kind;
use crate::ingest::vocabulary::names::roles_of;
use crate::ingest::vocabulary::roles::Role;

/// Records of a file's head whose lock evidence is weighed: the readers'
/// bids (`contest.rs`) and the arrays of records in a document
/// (`documents.rs`).
pub(crate) const BID_LINES: usize = 50;

/// Strings shorter than this are never taken for a record.
pub(crate) const MIN_LEN: usize = 8;

/// How much lock evidence one record carries: 2 for an event name that maps
/// to a lock or business event, 1 for each of lock key and holder.
pub(crate) fn evidence(rec: &Record<'_>) -> u32 {
    evidence_in(rec, false)
}

/// [`evidence`]; with `messages`, a message whose words name an event (as
/// the text reader reads a line's message: [`text::message_event`]) counts
/// as an event name when the record has none.
fn evidence_in(rec: &Record<'_>, messages: bool) -> u32 {
    let mut score = 0;
    let mut buf = String::new();
    let (mut key, mut holder, mut event, mut said) = (false, false, false, false);
    rec.visit(&mut |k, v| {
        for (role, _, _) in roles_of(k) {
            match role {
                Role::Key => key = true,
                Role::Holder => holder = true,
                Role::Event if !event => {
                    event = event_kind(&v.text(), None, &mut buf).is_some();
                }
                Role::Message if messages && !said => {
                    said = text::message_event(&v.text()).is_some();
                }
                _ => {}
            }
        }
    });
    if event || said {
        score += 2;
    }
    score + u32::from(key) + u32::from(holder)
}

/// The evidence a reader's record gives in the contest of readers
/// (`contest.rs`): [`evidence`], a message's words counted as a text
/// line's are (so that a logfmt or CSV reader, which keeps a record's
/// fields apart, is not outbid by the text reader on the same lines), plus
/// 1 for a time field whose
/// value reads as a time (also a time a found structure's record has
/// without its year or date, which the collector completes).
pub(crate) fn bid_evidence(rec: &Record<'_>) -> u32 {
    evidence_in(rec, true) + u32::from(timed(rec))
}

/// True when `rec` has a time field whose value reads as a time (also a
/// time a found structure's record has without its year or date, which
/// the collector completes).
pub(crate) fn timed(rec: &Record<'_>) -> bool {
    let mut timed = false;
    rec.visit(&mut |k, v| {
        if !timed && roles_of(k).iter().any(|(r, _, _)| *r == Role::Time) {
            let t = v.text();
            timed = crate::ingest::roles::time::parse_time(&t, None).is_ok()
                || crate::ingest::framing::stamps::is_truncated(&t);
        }
    });
    timed
}

/// The most lock evidence one string field of `rec` holds as a record of
/// its own (a text line or JSON in an envelope's field): what a record
/// whose application part is a string shows the contest of arrays
/// (`documents.rs`, `deep_records`: Azure Monitor's `LogMessage`).
pub(crate) fn inner_evidence(rec: &Record<'_>) -> u32 {
    let mut strings: Vec<String> = Vec::new();
    rec.visit(&mut |_, v| {
        if let FieldValue::Str(s) = v
            && s.trim().len() >= MIN_LEN
        {
            strings.push((*s).to_string());
        }
    });
    strings
        .iter()
        .filter_map(|s| with_string(s, &mut |inner| evidence(inner)))
        .max()
        .unwrap_or(0)
}

/// Calls `f` with the record a string holds, if it holds one: a JSON
/// object (also one encoded once more as a JSON string), or a text line
/// (with its prefix's fields as the outer part when the line's payload is
/// JSON). Returns `None` when `s` is no record.
pub(crate) fn with_string<R>(s: &str, f: &mut dyn FnMut(&Record<'_>) -> R) -> Option<R> {
    read_string(s, f, false).ok().flatten()
}

/// [`with_string`]; with `strict`, a JSON object that cannot be read (cut
/// before its end, or nested deeper than serde_json reads) is its error
/// instead of a text line.
fn read_string<R>(
    s: &str,
    f: &mut dyn FnMut(&Record<'_>) -> R,
    strict: bool,
) -> Result<Option<R>, serde_json::Error> {
    let s = s.trim();
    if s.len() < MIN_LEN {
        return Ok(None);
    }
    // A record written as a JSON string once more (`"{\"ts\": ..}"`, a
    // shipper that encodes an already encoded line): its object.
    if s.starts_with('"')
        && let Ok(decoded) = serde_json::from_str::<String>(s)
        && decoded.trim_start().starts_with('{')
    {
        return read_string(&decoded, f, strict);
    }
    // A JSON object, whole; one followed by more lines (a stack trace in a
    // journal's multi-line MESSAGE) is read as a text line below, its
    // object the record.
    if s.starts_with('{') {
        match json_record(s) {
            Ok(Some(map)) => {
                return Ok(Some(f(&Record::Json {
                    main: &map,
                    extra: None,
                })));
            }
            Err(e) if strict && unreadable_object(&e) => return Err(e),
            _ => {}
        }
    }
    Ok(text_record(s, f))
}

/// Whether a JSON error says the object itself cannot be read: it ends
/// before it closes (a record cut), or it nests deeper than serde_json's
/// recursion limit (128). An object followed by more text is no such error.
fn unreadable_object(e: &serde_json::Error) -> bool {
    e.classify() == serde_json::error::Category::Eof
        || e.to_string().starts_with("recursion limit exceeded")
}

/// Calls `f` with the record text line `s` holds (trimmed, not short).
fn text_record<R>(s: &str, f: &mut dyn FnMut(&Record<'_>) -> R) -> Option<R> {
    let t = text::parse_line(s);
    if t.layout == Layout::Json {
        let map = match json_record(t.message) {
            Ok(Some(m)) => m,
            // The object, then more text (a stack trace's lines).
            _ => json_record(text::embedded_json(t.message)?.1).ok()??,
        };
        let prefix = text::to_pairs(&text::TextLine {
            message: t.around,
            ..t
        });
        let inner = Record::Json {
            main: &map,
            extra: None,
        };
        let outer = Record::Pairs(&prefix);
        return Some(f(&Record::Nested {
            inner: &inner,
            outer: &outer,
            skip: "",
        }));
    }
    if t.time.is_none()
        && t.prefix_time.is_none()
        && let Some(split) = split_any(s)
    {
        let line = text::of_split(&split, split.message, &[]);
        let pairs = text::to_pairs(&line);
        return Some(f(&Record::Pairs(&pairs)));
    }
    let pairs = text::to_pairs(&t);
    Some(f(&Record::Pairs(&pairs)))
}

/// Calls `f` with `rec` seen through its payload field: the application's
/// record inside, the envelope outside. A record whose payload field is
/// missing or holds no record is handed over as it is.
pub(crate) fn with_inner(rec: &Record<'_>, field: &str, f: &mut dyn FnMut(&Record<'_>)) {
    let done = match rec.get(field) {
        Some(FieldValue::Str(s)) => with_string(s, &mut |inner| {
            f(&Record::Nested {
                inner,
                outer: rec,
                skip: field,
            })
        }),
        _ => None,
    };
    if done.is_none() {
        f(rec);
    }
}

/// [`with_inner`] as a file's records are read: a payload that is a JSON
/// object that cannot be read is its error, `f` not called (the line is a
/// warning, never read as a text line that names nothing); and a record
/// without the payload field, whose own fields name no lock role, is read
/// through the string field that holds a record with the most lock
/// evidence (the payload moved to another field after the records
/// detection looked at). A record already taken out of this payload field
/// (the JSON fast path's `Record::Nested`) is handed over as it is; a JSON
/// message behind a text line's prefix (Fluent Bit's `TAG: [time, {..}]`)
/// is read through its payload field as any record.
///
/// # Errors
/// serde_json's error for the payload's object.
pub(crate) fn read_inner(
    rec: &Record<'_>,
    field: &str,
    f: &mut dyn FnMut(&Record<'_>),
) -> Result<(), serde_json::Error> {
    if matches!(rec, Record::Nested { skip, .. } if *skip == field) {
        f(rec);
        return Ok(());
    }
    let moved;
    let field = match rec.get(field) {
        Some(_) => field,
        None => match moved_payload(rec) {
            Some(other) => {
                moved = other;
                moved.as_str()
            }
            None => field,
        },
    };
    let done = match rec.get(field) {
        Some(FieldValue::Str(s)) => read_string(
            s,
            &mut |inner| {
                f(&Record::Nested {
                    inner,
                    outer: rec,
                    skip: field,
                })
            },
            true,
        )?,
        _ => None,
    };
    if done.is_none() {
        f(rec);
    }
    Ok(())
}

/// The string field of `rec` that holds a record with lock evidence, the
/// most of any, when `rec`'s own fields carry none.
fn moved_payload(rec: &Record<'_>) -> Option<String> {
    if evidence(rec) > 0 {
        return None;
    }
    let mut strings: Vec<(String, String)> = Vec::new();
    rec.visit(&mut |k, v| {
        if let FieldValue::Str(s) = v
            && s.trim().len() >= MIN_LEN
        {
            strings.push((k.to_string(), (*s).to_string()));
        }
    });
    strings
        .into_iter()
        .filter_map(|(k, s)| Some((with_string(&s, &mut |inner| evidence(inner))?, k)))
        .filter(|(ev, _)| *ev > 0)
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|(_, k)| k)
}

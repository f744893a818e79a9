//! What a file's head holds before any mapping reads it, for the mapping
//! dialog and `inspect`'s suggestions: the values one field takes (with
//! their counts) and where a text line's time, level and message stand.

use std::ops::ControlFlow;

use crate::ingest::framing::structure::split_any;
use crate::ingest::monitor::looks_like_monitor;
use crate::ingest::readers::contest::{BidBook, detect_with};
use crate::ingest::readers::walk::walk;
use crate::ingest::records::item::Item;
use crate::ingest::{IngestOptions, Mapping};

use super::steps::choose_reader;

/// Records of the head read for [`field_values`] at most.
const MAX_RECORDS: usize = 20_000;

/// The values `field` takes in the records of `text` (read by the reader
/// the contest chooses, as a load would), each with how many records carry
/// it, most first (then by value). Empty when no record has the field.
pub fn field_values(text: &str, field: &str) -> Vec<(String, usize)> {
    let container = detect_with(text, looks_like_monitor, &mut BidBook::default());
    let mut counts: std::collections::HashMap<String, usize> = Default::default();
    let mut seen = 0usize;
    walk(&container, text, &mut |_, _, item| {
        if let Item::Record(r) = item {
            seen += 1;
            if let Some(v) = r.get(field) {
                *counts.entry(v.text().into_owned()).or_default() += 1;
            }
        }
        if seen >= MAX_RECORDS {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    let mut out: Vec<(String, usize)> = counts.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Where the parts of a text line stand, byte ranges into the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineParts {
    /// The time, as the timestamp bank finds it.
    pub time: (usize, usize),
    /// The level word or letter after it, when there is one.
    pub level: Option<(usize, usize)>,
    /// Where the message (the rest of the line) starts.
    pub message: usize,
}

/// The parts of `line` when a time of the timestamp bank stands near its
/// start (the structure finder's reading of a single line); `None` without
/// one.
pub fn line_parts(line: &str) -> Option<LineParts> {
    let split = split_any(line)?;
    let span = |part: &str| {
        let start = (part.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
        (start + part.len() <= line.len()).then_some((start, start + part.len()))
    };
    let stamp = crate::ingest::framing::stamps::find_any(line)?;
    let message = if split.message.is_empty() {
        line.len()
    } else {
        span(split.message)?.0
    };
    let parts = LineParts {
        time: (stamp.start, stamp.end),
        level: split.level.and_then(span),
        message,
    };
    Some(match parts.level {
        Some(_) => parts,
        None => fused_level(line, parts),
    })
}

/// `parts` with a level the structure finder leaves in the message when
/// a delimiter other than a space parts it (`12:00:01.250|W|lock ...`): a
/// word of one to seven capitals at the message's start, followed by `|`,
/// `]`, `:` or white space; the message then starts after those.
fn fused_level(line: &str, parts: LineParts) -> LineParts {
    let rest = &line[parts.message..];
    let len = rest.bytes().take_while(|b| b.is_ascii_uppercase()).count();
    let next = rest.as_bytes().get(len).copied();
    if !(1..=7).contains(&len) || !matches!(next, Some(b'|' | b']' | b':' | b' ' | b'\t')) {
        return parts;
    }
    let skip = rest[len..]
        .bytes()
        .take_while(|b| matches!(b, b'|' | b']' | b':' | b' ' | b'\t'))
        .count();
    LineParts {
        level: Some((parts.message, parts.message + len)),
        message: parts.message + len + skip,
        ..parts
    }
}

/// The kind reading gives an event field's value `name` by itself (the
/// built-in words, English and Chinese), `None` when it gives none.
pub fn event_name_kind(name: &str) -> Option<crate::model::EventKind> {
    crate::ingest::vocabulary::events::event_kind(name, None, &mut String::new())
}

/// The kind reading finds in a message's words by itself, `None` when it
/// finds none.
pub fn message_kind(message: &str) -> Option<crate::model::EventKind> {
    crate::ingest::readers::text::message_event(message)
        .and_then(crate::model::EventKind::from_canonical)
}

/// The values of `fields` in each record of `text`'s head (at most
/// `max` records), read by the reader a load with `mapping` chooses: the
/// record's 1-based line number (as a load numbers its events) and one
/// value per field, `None` where the record has none. For `inspect`'s
/// event-template table.
pub fn record_values(
    text: &str,
    mapping: Option<&Mapping>,
    fields: &[&str],
    max: usize,
) -> Vec<(u64, Vec<Option<String>>)> {
    let opts = IngestOptions {
        mapping: mapping.cloned(),
        ..IngestOptions::default()
    };
    let (container, _) = choose_reader(text, &opts);
    let mut out = Vec::new();
    walk(&container, text, &mut |line, _, item| {
        if let Item::Record(r) = item {
            let values = fields
                .iter()
                .map(|f| r.get(f).map(|v| v.text().into_owned()))
                .collect();
            out.push((line, values));
        }
        if out.len() >= max {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    out
}

/// The kind `mapping`'s `[events]` gives the event name `name` (compared
/// as reading compares them, normalised), `None` when it names none.
pub fn mapped_event_kind(name: &str, mapping: &Mapping) -> Option<crate::model::EventKind> {
    let mut buf = String::new();
    crate::ingest::vocabulary::events::normalize_event(name, &mut buf);
    mapping.events.get(buf.as_str()).copied()
}

/// The kind `mapping`'s `[messages]` gives the message `message` (its
/// first regex that matches), `None` when none matches.
pub fn mapped_message_kind(message: &str, mapping: &Mapping) -> Option<crate::model::EventKind> {
    mapping
        .messages
        .iter()
        .find(|(_, p)| p.0.is_match(message))
        .map(|(k, _)| *k)
}

/// True when `text` says something failed or did not happen (a failure
/// word or a negation, in the languages reading knows: "could not grab",
/// `没抢到锁`).
pub fn says_failure(text: &str) -> bool {
    crate::ingest::vocabulary::failure::says_failure(text)
}

/// True when a message's `name=value` pair with this `name` carries data
/// of a role (a key, a holder, a TTL, a business number...), not the
/// event's own word: reading takes its value as that role's
/// (`owner` is the holder, `leaseTime` the TTL).
pub fn is_data_pair(name: &str) -> bool {
    let canon = crate::ingest::readers::text::canonical_name(name);
    !matches!(canon, "event" | "message" | "level") && crate::ingest::role_names().contains(&canon)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_values_of_a_field_are_counted() {
        let text = "{\"t\":\"2026-12-01T10:00:00Z\",\"what\":\"grabbed\"}\n\
                    {\"t\":\"2026-12-01T10:00:01Z\",\"what\":\"sold\"}\n\
                    {\"t\":\"2026-12-01T10:00:02Z\",\"what\":\"grabbed\"}\n";
        assert_eq!(
            field_values(text, "what"),
            vec![("grabbed".to_string(), 2), ("sold".to_string(), 1)]
        );
        assert!(field_values(text, "nothing").is_empty());
        assert_eq!(
            event_name_kind("LOCK_ACQUIRED"),
            Some(crate::model::EventKind::Acquired)
        );
        assert_eq!(event_name_kind("grabbed"), None);
        assert_eq!(
            message_kind("released lock key=a owner=b"),
            Some(crate::model::EventKind::Released)
        );
    }

    #[test]
    fn a_lines_time_level_and_message_are_found() {
        let line = "12:00:01.250|W|lock sku:1 by w-3 got ttl=2000";
        let p = line_parts(line).expect("a time");
        assert_eq!(&line[p.time.0..p.time.1], "12:00:01.250");
        assert_eq!(&line[p.message..], "lock sku:1 by w-3 got ttl=2000");
        let line = "2026-12-01 12:00:01,250 WARN [main] acquired lock key=a";
        let p = line_parts(line).expect("a time");
        assert_eq!(&line[p.time.0..p.time.1], "2026-12-01 12:00:01,250");
        assert_eq!(p.level.map(|(a, b)| &line[a..b]), Some("WARN"));
        assert!(line_parts("no time here").is_none());
    }
}

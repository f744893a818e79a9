//! The application's record inside an envelope. Most log services keep the
//! application's own line as one string field of their record: SLS and CLS
//! `content`/`__CONTENT__`, Filebeat's `message`, Splunk's `_raw`, Grafana's
//! `line`, CloudWatch's `@message`, journald's `MESSAGE`, docker's `log`.
//! Which field it is, is decided from the content (the field whose strings
//! read as records naming lock events), never from a list of names.
//!
//! A string read as a record: a JSON object, or a text line (a runtime's
//! prefix, a Java layout, `key=value` pairs, event words; `text.rs`).

use super::container::{Container, walk};
use super::json::json_record;
use super::text::{self, Layout};
use crate::ingest::records::item::Item;
use crate::ingest::records::record::{FieldValue, Record};
use crate::ingest::vocabulary::events::event_kind;
use crate::ingest::vocabulary::names::roles_of;
use crate::ingest::vocabulary::roles::Role;

/// Records of a file's head whose lock evidence is weighed: the readers'
/// bids (`contest.rs`) and the arrays of records in a document
/// (`documents.rs`).
pub(crate) const BID_LINES: usize = 50;

/// Records looked at to decide the payload field.
const WINDOW: u32 = 200;

/// Strings shorter than this are never taken for a record.
const MIN_LEN: usize = 8;

/// How much lock evidence one record carries: 2 for an event name that maps
/// to a lock or business event, 1 for each of lock key and holder.
fn evidence(rec: &Record<'_>) -> u32 {
    let mut score = 0;
    let mut buf = String::new();
    let (mut key, mut holder, mut event) = (false, false, false);
    rec.visit(&mut |k, v| {
        for (role, _, _) in roles_of(k) {
            match role {
                Role::Key => key = true,
                Role::Holder => holder = true,
                Role::Event if !event => {
                    event = event_kind(&v.text(), None, &mut buf).is_some();
                }
                _ => {}
            }
        }
    });
    if event {
        score += 2;
    }
    score + u32::from(key) + u32::from(holder)
}

/// The evidence a reader's record gives in the contest of readers
/// (`contest.rs`): [`evidence`] plus 1 for a time field whose
/// value reads as a time.
pub(crate) fn bid_evidence(rec: &Record<'_>) -> u32 {
    let mut timed = false;
    rec.visit(&mut |k, v| {
        if !timed && roles_of(k).iter().any(|(r, _, _)| *r == Role::Time) {
            timed = crate::ingest::roles::time::parse_time(&v.text(), None).is_ok();
        }
    });
    evidence(rec) + u32::from(timed)
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
/// object, or a text line (with its prefix's fields as the outer part when
/// the line's payload is JSON). Returns `None` when `s` is no record.
pub(crate) fn with_string<R>(s: &str, f: &mut dyn FnMut(&Record<'_>) -> R) -> Option<R> {
    let s = s.trim();
    if s.len() < MIN_LEN {
        return None;
    }
    if s.starts_with('{') {
        return json_record(s).ok().flatten().map(|map| {
            f(&Record::Json {
                main: &map,
                extra: None,
            })
        });
    }
    let t = text::parse_line(s);
    if t.layout == Layout::Json {
        let map = json_record(t.message).ok()??;
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

/// Decides whether the records of `text` are envelopes and which string
/// field holds the application's record: the field whose values, read as
/// records, carry more lock evidence than the envelopes themselves, in
/// more of the first [`WINDOW`] records than any other field.
pub(crate) fn detect(container: &Container, text: &str) -> Option<String> {
    let mut records = 0u32;
    let mut outer_score = 0u32;
    // field -> (records where its string read as a record, evidence summed)
    let mut scores: Vec<(String, u32, u32)> = Vec::new();
    walk(container, text, &mut |_, _, item| {
        if let Item::Record(r) = item {
            records += 1;
            outer_score += evidence(&r);
            let mut strings: Vec<(String, String)> = Vec::new();
            r.visit(&mut |k, v| {
                if let FieldValue::Str(s) = v
                    && s.trim().len() >= MIN_LEN
                {
                    strings.push((k.to_string(), (*s).to_string()));
                }
            });
            for (k, s) in strings {
                let Some(ev) = with_string(&s, &mut |inner| evidence(inner)) else {
                    continue;
                };
                if ev == 0 {
                    continue;
                }
                match scores.iter_mut().find(|(f, _, _)| *f == k) {
                    Some(e) => {
                        e.1 += 1;
                        e.2 += ev;
                    }
                    None => scores.push((k, 1, ev)),
                }
            }
        }
        if records >= WINDOW {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    scores.sort_by(|a, b| b.2.cmp(&a.2).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
    let (field, _, ev) = scores.into_iter().next()?;
    (ev > outer_score).then_some(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value};

    fn detect_in(text: &str) -> Option<String> {
        let c = super::super::contest::detect(text, |_| false);
        detect(&c, text)
    }

    #[test]
    fn the_field_holding_records_is_found_by_content() {
        // SLS simple mode: the app's JSON line in `content` (any name works).
        let sls = r#"{"__time__":"1764544015","__tag__:__hostname__":"web-01","content":"{\"ts\":\"2026-12-01T07:06:55.100+08:00\",\"event\":\"acquired\",\"lock_key\":\"k\",\"owner\":\"a\"}"}"#;
        assert_eq!(detect_in(sls).as_deref(), Some("content"));
        let renamed = sls.replace("content", "zzz");
        assert_eq!(detect_in(&renamed).as_deref(), Some("zzz"));
        // A text line inside `log` (docker json-file).
        let docker = r#"{"log":"2026-12-01 07:06:55.100  INFO 1 --- [exec-1] c.e.S : acquired lock key=k token=a\n","stream":"stdout","time":"2026-11-30T23:06:55.100Z"}"#;
        assert_eq!(detect_in(docker).as_deref(), Some("log"));
        // A plain app record with a chatty message is not an envelope.
        let plain = r#"{"ts":"2026-12-01T07:06:55.100+08:00","event":"acquired","lock_key":"k","owner":"a","msg":"acquired lock key=k token=a"}"#;
        assert_eq!(detect_in(plain), None);
    }

    #[test]
    fn inner_fields_win_and_the_envelope_fills_in() {
        let line = r#"{"__tag__:__hostname__":"web-01","content":"{\"event\":\"acquired\",\"owner\":\"a\"}"}"#;
        let v: Map<String, Value> = serde_json::from_str(line).expect("json");
        let outer = Record::Json {
            main: &v,
            extra: None,
        };
        let mut seen = Vec::new();
        with_inner(&outer, "content", &mut |r| {
            let text = |v: Option<FieldValue<'_>>| v.map(|v| v.text().into_owned());
            seen.push((
                text(r.get("owner")),
                text(r.get("__tag__:__hostname__")),
                text(r.get("content")),
            ));
        });
        assert_eq!(
            seen,
            vec![(Some("a".to_string()), Some("web-01".to_string()), None)]
        );
    }
}

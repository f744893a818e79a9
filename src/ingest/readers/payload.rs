//! The application's record inside an envelope. Most log services keep the
//! application's own line as one string field of their record: SLS and CLS
//! `content`/`__CONTENT__`, Filebeat's `message`, Splunk's `_raw`, Grafana's
//! `line`, CloudWatch's `@message`, journald's `MESSAGE`, docker's `log`.
//! Which field it is, is decided from the content (the field whose strings
//! read as records naming lock events), never from a list of names.
//!
//! A string read as a record: a JSON object, or a text line (a runtime's
//! prefix, a Java layout, `key=value` pairs, event words; `text.rs`).

use super::container::Container;
use super::inner::{MIN_LEN, evidence, with_string};
use super::text::PREFIX_TIME;
use super::walk::walk;
use crate::ingest::framing::stamps::is_truncated;
use crate::ingest::records::item::Item;
use crate::ingest::records::record::{FieldValue, Record};
use crate::ingest::roles::time::parse_time;
use crate::ingest::vocabulary::names::roles_of;
use crate::ingest::vocabulary::roles::Role;

/// Records looked at to decide the payload field.
const WINDOW: u32 = 200;

/// Decides whether the records of `text` are envelopes and which string
/// field holds the application's record: the field whose values, read as
/// records, carry more lock evidence than the envelopes themselves, in
/// more of the first [`WINDOW`] records than any other field. When no name
/// of a lock role is known in them, the field whose values read as records
/// with a time of their own (a whole log line, or a JSON record with a
/// time) in nearly every record: an envelope carries the line a runtime
/// wrote, whatever its fields are called.
pub(crate) fn detect(container: &Container, text: &str) -> Option<String> {
    let mut records = 0u32;
    let mut outer_score = 0u32;
    // field -> (records where its string read as a record, evidence summed)
    let mut scores: Vec<(String, u32, u32)> = Vec::new();
    // field -> records where its string read as a record with its own time
    let mut timed: Vec<(String, u32)> = Vec::new();
    walk(container, text, &mut |_, _, item| {
        if let Item::Record(r) = item {
            records += 1;
            outer_score += evidence(&r);
            let mut strings: Vec<(String, String)> = Vec::new();
            r.visit(&mut |k, v| {
                if let FieldValue::Str(s) = v
                    && s.trim().len() >= MIN_LEN
                    && may_hold_record(s)
                {
                    strings.push((k.to_string(), (*s).to_string()));
                }
            });
            for (k, s) in strings {
                let Some((ev, has_time)) = with_string(&s, &mut |inner| {
                    let ev = if structured(inner) {
                        evidence(inner)
                    } else {
                        0
                    };
                    (ev, inner_timed(inner))
                }) else {
                    continue;
                };
                if has_time {
                    match timed.iter_mut().find(|(f, _)| *f == k) {
                        Some(e) => e.1 += 1,
                        None => timed.push((k.clone(), 1)),
                    }
                }
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
    if let Some((field, _, ev)) = scores.into_iter().next() {
        return (ev > outer_score).then_some(field);
    }
    if outer_score > 0 {
        return None;
    }
    timed.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    timed
        .into_iter()
        .next()
        .filter(|(_, n)| *n * 10 >= records * 9 && records > 0)
        .map(|(f, _)| f)
}

/// Whether string `s` can be a record at all: a JSON object or a text of
/// more than one word (a single token such as an event word `lease_granted`
/// is a field's value, never the application's record).
fn may_hold_record(s: &str) -> bool {
    let s = s.trim();
    s.starts_with('{') || s.split_whitespace().nth(1).is_some()
}

/// Whether `rec` (a string read as a record) has a field of its own beside
/// its words: a phrase (`lease topped up`, read as a message and the event
/// word it names) is a message, not the application's record.
fn structured(rec: &Record<'_>) -> bool {
    let mut fields = false;
    rec.visit(&mut |k, _| fields |= !matches!(k, "msg" | "event"));
    fields
}

/// Whether `rec` (a string read as a record) is a record with a time of
/// its own: a text line's prefix time, or a field named as a time whose
/// value reads as one (also without its year or date: logcat's
/// `MM-dd HH:mm:ss.SSS`, which the collector completes), and at least two fields of its own beside it (a
/// bare time string is no record).
fn inner_timed(rec: &Record<'_>) -> bool {
    let (mut timed, mut others) = (false, 0u32);
    rec.visit(&mut |k, v| {
        let is_time = k == PREFIX_TIME || roles_of(k).iter().any(|(r, _, _)| *r == Role::Time);
        if is_time {
            let t = v.text();
            timed |= parse_time(&t, None).is_ok() || is_truncated(&t);
        } else if !k.starts_with("prefix.") && !v.text().trim().is_empty() {
            others += 1;
        }
    });
    timed && others >= 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::readers::inner::with_inner;
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
    fn a_runtime_line_without_a_year_or_known_words_is_still_the_payload() {
        // Datadog's export of logcat lines whose words and names no list
        // knows: the message field holds whole lines with a time of their
        // own (`MM-dd HH:mm:ss.SSS`, no year), in every record.
        let line = |t: &str, w: &str| {
            format!(
                r#"{{"attributes":{{"host":"web-01","message":"12-01 07:06:{t}  4242  4252 I LockService: {w}, shijian: {w}, suojian: lock:sku:2002","service":"shop","timestamp":"2026-11-30T23:06:{t}Z"}},"id":"AQ","type":"log"}}"#
            )
        };
        let text = [
            line("55.100", "mutex_grabbed"),
            line("55.433", "lease_stretched"),
            line("55.600", "mutex_not_grabbed"),
        ]
        .join("\n");
        assert_eq!(detect_in(&text).as_deref(), Some("attributes.message"));
    }

    #[test]
    fn an_event_word_or_a_phrase_is_no_application_record() {
        // Fields no list knows, an event word and a phrase of its own: the
        // record is the application's, no field of it an envelope's payload.
        let line = |w: &str, p: &str| {
            format!(
                r#"{{"datetime":"2026-12-01T07:06:55.1+08:00","ctx":{{"zamok":"lock:sku:1","vladelets":"tok-{w}","sobytie":"{w}"}},"message":"{p}"}}"#
            )
        };
        let text = [
            line("lease_obtained", "lease obtained"),
            line("lease_topped_up", "lease topped up"),
            line("lease_given_back", "lease given back"),
        ]
        .join("\n");
        assert_eq!(detect_in(&text), None);
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

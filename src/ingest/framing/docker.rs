//! docker's json-file log driver splits a line longer than 16 KiB into
//! entries of at most 16 KiB: every entry but the last has a `log` that does
//! not end in `\n` (moby `daemon/logger/copier.go`, `defaultBufSize = 16 * 1024`;
//! moby issue #36777, "partial messages"). Read as they are, the parts are
//! no records: an application's order line with a large cart would vanish
//! from the stock count (¥0 lost where the lines unwrapped give ¥100). Here each run of parts of one stream is joined
//! into the entry that ends it, before any reader sees the text.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// What [`join_partials`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Joined {
    /// Entries that were parts (their `log` emptied; each counts as a
    /// skipped line).
    pub parts: usize,
    /// Lines the parts were joined into.
    pub lines: usize,
    /// Runs of parts the file ended in without their last entry (joined
    /// into the last part).
    pub open: usize,
}

/// True for a docker json-file entry whose `log` ends its line: the raw
/// text has `\n` (escaped) at the end of the string before `"stream"`, as
/// moby's `jsonlog.JSONLogs` writes every entry (`log`, `stream`, then the
/// rest; spaces after `:` and `,` allowed, as re-encoders write them).
fn ends_its_line(line: &str) -> bool {
    let Some(i) = line.find("\"stream\"") else {
        return true;
    };
    let before = line[..i].trim_end();
    let before = before.strip_suffix(',').unwrap_or(before).trim_end();
    let before = before.strip_suffix('"').unwrap_or(before);
    before.ends_with("\\n") && !before.ends_with("\\\\n")
}

/// True for a line that starts a docker json-file entry (`{"log":`).
fn starts_entry(line: &str) -> bool {
    line.trim_start()
        .strip_prefix('{')
        .is_some_and(|r| r.trim_start().starts_with("\"log\""))
}

/// True when `text` is a docker json-file log (its first line starts
/// `{"log":`) with an entry that is a part of a longer line.
pub(crate) fn has_parts(text: &str) -> bool {
    let Some(first) = text.lines().find(|l| !l.trim().is_empty()) else {
        return false;
    };
    starts_entry(first) && text.lines().any(|l| starts_entry(l) && !ends_its_line(l))
}

/// `text` with docker json-file parts joined, and what was joined; `None`
/// when the text is no docker json-file log (its first line does not start
/// `{"log":"`) or has no part. A part's `log` is appended to the pending
/// run of its stream and the part's line keeps its envelope with an empty
/// `log` (no record, counted as skipped: the line numbers stay); the entry
/// that ends the run gets the joined `log` and the first part's time.
pub(crate) fn join_partials(text: &str) -> Option<(String, Joined)> {
    if !has_parts(text) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut joined = Joined::default();
    // Per stream: the joined text so far, the first part's time, and the
    // last part (its entry and where its line went in `out`).
    // Keyed by stream: a file may leave any number of runs open.
    let mut pending: HashMap<String, Pending> = HashMap::new();
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let entry = match serde_json::from_str::<Map<String, Value>>(body) {
            Ok(o) if o.get("log").is_some_and(Value::is_string) => o,
            _ => {
                out.push_str(line);
                continue;
            }
        };
        let stream = entry
            .get("stream")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let log = entry
            .get("log")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if log.ends_with('\n') {
            let Some(mut p) = pending.remove(&stream) else {
                out.push_str(line);
                continue;
            };
            p.text.push_str(&log);
            joined.lines += 1;
            out.push_str(&with_log(entry, p.text, Some(p.time)));
        } else {
            joined.parts += 1;
            let start = out.len();
            out.push_str(&with_log(entry.clone(), String::new(), None));
            let last = (entry, start..out.len());
            match pending.get_mut(&stream) {
                Some(p) => {
                    p.text.push_str(&log);
                    p.last = last;
                }
                None => {
                    let time = entry_time(&last.0);
                    pending.insert(
                        stream,
                        Pending {
                            text: log,
                            time,
                            last,
                        },
                    );
                }
            }
        }
        out.push_str(&line[body.len()..]);
    }
    // Runs the file ended in: their text on their last part's line, in
    // one pass over the text.
    let mut open: Vec<Pending> = pending.into_values().collect();
    open.sort_by_key(|p| p.last.1.start);
    let mut with_open = String::with_capacity(out.len());
    let mut copied = 0;
    for p in open {
        joined.open += 1;
        joined.lines += 1;
        joined.parts -= 1;
        let (entry, range) = p.last;
        with_open.push_str(&out[copied..range.start]);
        with_open.push_str(&with_log(entry, p.text, Some(p.time)));
        copied = range.end;
    }
    with_open.push_str(&out[copied..]);
    Some((with_open, joined))
}

/// A run of parts of one stream not ended yet.
struct Pending {
    /// The parts' `log`, joined.
    text: String,
    /// The first part's time.
    time: Value,
    /// The last part's entry and the range its line took in the output.
    last: (Map<String, Value>, std::ops::Range<usize>),
}

/// An entry's `time` (`null` without one).
fn entry_time(entry: &Map<String, Value>) -> Value {
    entry.get("time").cloned().unwrap_or(Value::Null)
}

/// `entry` written again with `log` (and `time`, when given).
fn with_log(mut entry: Map<String, Value>, log: String, time: Option<Value>) -> String {
    entry.insert("log".into(), Value::String(log));
    if let Some(t) = time {
        entry.insert("time".into(), t);
    }
    serde_json::to_string(&entry).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_of_a_long_line_join_into_the_entry_that_ends_it() {
        let text = concat!(
            r#"{"log":"short\n","stream":"stdout","time":"2026-11-11T00:00:00.1Z"}"#,
            "\n",
            r#"{"log":"{\"a\":\"xx","stream":"stdout","time":"2026-11-11T00:00:01.1Z"}"#,
            "\n",
            r#"{"log":"err\n","stream":"stderr","time":"2026-11-11T00:00:01.2Z"}"#,
            "\n",
            r#"{"log":"yy\"}\n","stream":"stdout","time":"2026-11-11T00:00:01.3Z"}"#,
            "\n",
        );
        let (out, j) = join_partials(text).expect("joined");
        assert_eq!(
            j,
            Joined {
                parts: 1,
                lines: 1,
                open: 0
            }
        );
        let lines: Vec<Map<String, Value>> = out
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(lines.len(), 4, "line numbers stay");
        assert_eq!(lines[1]["log"], "");
        assert_eq!(lines[2]["log"], "err\n", "another stream between the parts");
        assert_eq!(lines[3]["log"], "{\"a\":\"xxyy\"}\n");
        assert_eq!(
            lines[3]["time"], "2026-11-11T00:00:01.1Z",
            "the first part's time"
        );
    }

    #[test]
    fn whole_lines_and_other_files_are_left_alone() {
        let whole = r#"{"log":"a\n","stream":"stdout","time":"t"}"#;
        assert_eq!(join_partials(whole), None);
        assert_eq!(join_partials(r#"{"msg":"no"}"#), None);
        let open = r#"{"log":"cut","stream":"stdout","time":"t"}"#;
        let (out, j) = join_partials(open).expect("joined");
        assert_eq!(j.open, 1);
        assert!(out.contains(r#""log":"cut""#), "{out}");
    }
}

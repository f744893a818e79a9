//! Text records read by the structure found in their file
//! (`framing/structure.rs`), for text no known layout reads: a line that
//! starts a record gives its time, level, logger, thread and process; the
//! lines after it that start none continue it (a message on the next line,
//! a report's lines, a stack trace), and the record's message is all of
//! them. The message is then read as any text line's (`text.rs`): a JSON
//! object in it is the record, else its pairs in any common syntax
//! (`pairs.rs`, [`super::pairs::any_pairs`]) and its event words.

use std::borrow::Cow;
use std::ops::ControlFlow;

use super::lines::visit_text;
use super::text::{self, Layout, TextRules, embedded_json, is_trace_line};
use crate::ingest::framing::lines::lines;
use crate::ingest::framing::structure::{Split, Structure};
use crate::ingest::records::item::{Item, Visit};

/// The longest message a record's lines are joined into, bytes; the lines
/// past it still belong to the record, unread.
const MAX_JOINED: usize = 64 << 10;

/// A record being read: its first line split, and the lines that continue
/// it (number, offset, text).
struct Open<'a> {
    split: Split<'a>,
    no: u64,
    off: usize,
    more: Vec<(u64, usize, &'a str)>,
}

/// Walks the records of `text` by `st`: each record one item, numbered by
/// its first line; each line that continues it skipped; lines before the
/// first record skipped too (a banner, a file header).
pub(crate) fn walk_structured(
    text: &str,
    st: &Structure,
    rules: Option<&TextRules>,
    visit: &mut Visit<'_>,
) {
    let keep = rules.map_or(&[][..], |r| r.keep.as_slice());
    let mut open: Option<Open<'_>> = None;
    for (no, off, line) in lines(text) {
        let step = match st.split(line) {
            Some(split) => {
                let before = open.replace(Open {
                    split,
                    no,
                    off,
                    more: Vec::new(),
                });
                match before {
                    Some(o) => record(&o, keep, visit),
                    None => ControlFlow::Continue(()),
                }
            }
            None => match open.as_mut() {
                Some(o) => {
                    o.more.push((no, off, line));
                    ControlFlow::Continue(())
                }
                None => visit(no, off, Item::Skip),
            },
        };
        if step.is_break() {
            return;
        }
    }
    if let Some(o) = open {
        let _ = record(&o, keep, visit);
    }
}

/// The message of a record: its first line's rest and every line that
/// continues it but a stack trace's, joined by line ends, up to
/// [`MAX_JOINED`] bytes.
fn message<'a>(o: &Open<'a>) -> Cow<'a, str> {
    let more: Vec<&str> = o
        .more
        .iter()
        .map(|(_, _, l)| *l)
        .filter(|l| !is_trace_line(l))
        .collect();
    if more.is_empty() {
        return Cow::Borrowed(o.split.message);
    }
    let mut s = String::from(o.split.message);
    for l in more {
        if s.len() + l.len() >= MAX_JOINED {
            break;
        }
        if !s.is_empty() {
            s.push('\n');
        }
        s.push_str(l);
    }
    Cow::Owned(s)
}

/// Visits one record (its fields as a text line's, with the found time)
/// and skips the lines that continued it.
fn record(o: &Open<'_>, keep: &[String], visit: &mut Visit<'_>) -> ControlFlow<()> {
    let msg = message(o);
    let mut t = text::of_split(&o.split, &msg, keep);
    if msg.contains('{')
        && let Some((before, obj, _)) = embedded_json(&msg)
    {
        t.around = before.trim_matches([' ', '\t', '\n']);
        t.message = obj;
        t.layout = Layout::Json;
    }
    visit_text(&t, visit, o.no, o.off)?;
    for (no, off, _) in &o.more {
        visit(*no, *off, Item::Skip)?;
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::records::record::Record;

    /// Each item of `text` as `line: name=value ...` or `line: skip`.
    fn items(text: &str) -> Vec<String> {
        let st = Structure::find(text).expect("structure");
        let mut out = Vec::new();
        walk_structured(text, &st, None, &mut |no, _, item| {
            out.push(match item {
                Item::Record(Record::Pairs(p)) => {
                    let kv: Vec<String> = p.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    format!("{no}: {}", kv.join(" "))
                }
                Item::Record(_) => format!("{no}: nested"),
                Item::Skip => format!("{no}: skip"),
                Item::Bad(r) | Item::Warn(r) => format!("{no}: {r}"),
            });
            ControlFlow::Continue(())
        });
        out
    }

    #[test]
    fn a_record_over_several_lines_is_one_record_with_every_pair() {
        let mel = "2026-12-01 07:06:55.000 info: Shop.Lock[0]\n      taken lk=a hd=b\n\
                   2026-12-01 07:06:55.100 warn: Shop.Lock[0]\n      lost lk=a\n";
        assert_eq!(
            items(mel),
            vec![
                "1: time=2026-12-01 07:06:55.000 level=info logger=Shop.Lock[0] key=a hd=b msg=taken lk=a hd=b",
                "2: skip",
                "3: time=2026-12-01 07:06:55.100 level=warn logger=Shop.Lock[0] key=a msg=lost lk=a",
                "4: skip",
            ]
        );
        let erl = "=INFO REPORT==== 1-Dec-2026::07:06:55.000000 ===\n    \"taken\"\n    sperre: <<\"lock:1\">>\n    frist: 3\n\n\
                   =INFO REPORT==== 1-Dec-2026::07:06:56.000000 ===\n    \"lost\"\n";
        let got = items(erl);
        assert_eq!(
            got[0],
            "1: time=2026-12-01 07:06:55.000000 level=INFO sperre=lock:1 frist=3 msg=\"taken\"\nsperre: <<\"lock:1\">>\nfrist: 3"
        );
        assert_eq!(got.len(), 6);
    }

    #[test]
    fn a_json_object_over_the_next_lines_is_the_record() {
        let text = "c.e.L 2026-12-01 07:06:55.000 INFO - lock taken {\n  \"lk\": \"a\",\n  \"hd\": \"b\"\n}\n\
                    c.e.L 2026-12-01 07:06:56.000 INFO - lock lost {\"lk\": \"a\"}\n";
        let got = items(text);
        assert_eq!(got[0], "1: nested");
        assert_eq!(got[1..4], ["2: skip", "3: skip", "4: skip"]);
        assert_eq!(got[4], "5: nested");
    }
}

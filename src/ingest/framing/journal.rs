//! The systemd journal's export format (`journalctl -o export`,
//! `systemd-journal-remote`'s input): entries of `FIELD=value` lines, one
//! blank line between entries, and a field whose value is not printable
//! text written binary-safe: its name, a line end, its length as 64-bit
//! little-endian, its bytes, a line end
//! (<https://systemd.io/JOURNAL_EXPORT_FORMATS/>, "Journal Export Format").
//! Its bytes are made JSON Lines before any decoding, one object per entry
//! (the shape of `journalctl -o json`), so the length-prefixed values
//! survive, and every JSON reader reads it: `MESSAGE` holds the
//! application's line, `__REALTIME_TIMESTAMP` its time (µs).

use serde_json::{Map, Value};

/// True when `head` (a file's first bytes) starts like a journal export:
/// its first line a field (`NAME=value`, the name of capitals, digits and
/// `_`), and among the first entry's fields `__CURSOR` or
/// `__REALTIME_TIMESTAMP`, which `journalctl -o export` writes first.
pub(crate) fn is_export(head: &[u8]) -> bool {
    let first = head.split(|b| *b == b'\n').next().unwrap_or_default();
    let Some(eq) = first.iter().position(|b| *b == b'=') else {
        return false;
    };
    if !field_name(&first[..eq]) {
        return false;
    }
    let entry_end = memchr::memmem::find(head, b"\n\n").unwrap_or(head.len());
    let entry = &head[..entry_end];
    entry.starts_with(b"__CURSOR=")
        || entry.starts_with(b"__REALTIME_TIMESTAMP=")
        || memchr::memmem::find(entry, b"\n__REALTIME_TIMESTAMP=").is_some()
}

/// A journal field's name: capitals, digits and `_`, not starting with a
/// digit (`sd_journal_send(3)`; `__` for the fields the journal adds).
fn field_name(n: &[u8]) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && !n[0].is_ascii_digit()
        && n.iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
}

/// What [`to_json_lines`] made of an export.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Converted {
    /// One JSON object per entry, `\n` after each.
    pub text: String,
    /// Entries read.
    pub entries: u64,
    /// Fields written binary-safe.
    pub binary: u64,
}

/// The entries of an export as JSON Lines: each field a string (text as
/// UTF-8, else GB18030, as journald's byte `MESSAGE` is read elsewhere),
/// the first of a repeated field kept. A line that is no field, or a
/// binary field whose length runs past the end, ends the reading there.
pub(crate) fn to_json_lines(bytes: &[u8]) -> Converted {
    let mut out = Converted::default();
    let mut entry = Map::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\n' {
            flush(&mut entry, &mut out);
            i += 1;
            continue;
        }
        let line_end = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n);
        let line = &bytes[i..line_end];
        let (name, value, next) = match memchr::memchr(b'=', line) {
            Some(eq) => (&line[..eq], line[eq + 1..].to_vec(), line_end + 1),
            None => match binary_at(bytes, line_end) {
                Some((v, next)) => {
                    out.binary += 1;
                    (line, v, next)
                }
                None => break,
            },
        };
        if !field_name(name) {
            break;
        }
        let key = String::from_utf8_lossy(name).into_owned();
        entry
            .entry(key)
            .or_insert_with(|| Value::String(text_of(value)));
        i = next;
    }
    flush(&mut entry, &mut out);
    out
}

/// The value of a binary-safe field whose name's line ends at `nl`: its
/// bytes and where the next field starts.
fn binary_at(bytes: &[u8], nl: usize) -> Option<(Vec<u8>, usize)> {
    let len_at = nl + 1;
    let len = u64::from_le_bytes(bytes.get(len_at..len_at + 8)?.try_into().ok()?);
    let from = len_at + 8;
    let to = from.checked_add(usize::try_from(len).ok()?)?;
    let v = bytes.get(from..to)?.to_vec();
    // The value is followed by a line end.
    let next = if bytes.get(to) == Some(&b'\n') {
        to + 1
    } else {
        to
    };
    Some((v, next))
}

/// Bytes as text: UTF-8, else GB18030.
fn text_of(v: Vec<u8>) -> String {
    match String::from_utf8(v) {
        Ok(s) => s,
        Err(e) => encoding_rs::GB18030.decode(e.as_bytes()).0.into_owned(),
    }
}

/// Writes the entry read so far as a line, when it has a field.
fn flush(entry: &mut Map<String, Value>, out: &mut Converted) {
    if entry.is_empty() {
        return;
    }
    let obj = Value::Object(std::mem::take(entry));
    out.text.push_str(&obj.to_string());
    out.text.push('\n');
    out.entries += 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// systemd.io/JOURNAL_EXPORT_FORMATS: the documented example's shape,
    /// a second entry with a binary-safe MESSAGE holding a line end.
    fn sample() -> Vec<u8> {
        let mut b = b"__CURSOR=s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece7\n\
__REALTIME_TIMESTAMP=1342540861416409\n\
_BOOT_ID=6c7c6013a8674f7d8d5a8d2da9c2d66c\n\
MESSAGE=first\n\
_PID=587\n\
\n\
__CURSOR=s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece8\n\
__REALTIME_TIMESTAMP=1342540861421465\n\
MESSAGE\n"
            .to_vec();
        let msg = b"two\nlines";
        b.extend_from_slice(&(msg.len() as u64).to_le_bytes());
        b.extend_from_slice(msg);
        b.extend_from_slice(b"\n_PID=588\n\n");
        b
    }

    #[test]
    fn entries_and_binary_safe_fields_become_json_lines() {
        let b = sample();
        assert!(is_export(&b));
        let c = to_json_lines(&b);
        assert_eq!((c.entries, c.binary), (2, 1));
        let lines: Vec<Value> = c
            .text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(lines[0]["MESSAGE"], "first");
        assert_eq!(lines[1]["MESSAGE"], "two\nlines");
        assert_eq!(lines[1]["_PID"], "588");
        assert_eq!(lines[1]["__REALTIME_TIMESTAMP"], "1342540861421465");
    }

    #[test]
    fn other_text_is_no_export_and_damage_stops_the_reading() {
        assert!(!is_export(b"time=1 level=INFO msg=x\n"));
        assert!(!is_export(b"MESSAGE=x\nPRIORITY=6\n"));
        assert!(!is_export(b"{\"__CURSOR\":\"x\"}\n"));
        let mut b = b"__CURSOR=x\nMESSAGE\n".to_vec();
        b.extend_from_slice(&1000u64.to_le_bytes());
        b.extend_from_slice(b"short");
        let c = to_json_lines(&b);
        assert_eq!(c.entries, 1);
        assert!(c.text.contains("__CURSOR"));
    }
}

//! The JSON Lines fast path: one pass over a line that picks out only the
//! fields chosen for the file, borrowing their text, and validates the rest
//! without building anything. Whatever it is not sure about (escapes in a
//! wanted value or in a key, a wanted value that is an object or array,
//! `\u` escapes, deep nesting, anything malformed) makes it give up, and the
//! line takes the general `serde_json::Value` path, so results and warnings
//! are the same either way.

use std::str::FromStr;

use serde_json::Number;

use crate::ingest::readers::gaps::{GapText, Gaps, Place};
use crate::ingest::records::record::FieldValue;

/// Deeper than this, the general parser decides (it has its own limit).
const MAX_DEPTH: u32 = 64;

/// Reads `line` (already trimmed) as one flat JSON object. `names` are the
/// wanted field names; `out[i]` gets the value of `names[i]` (`None` when
/// absent, null, blank text, or an array or object that is not wanted).
/// Returns false when the general parser must read the line instead.
pub(crate) fn scan_line<'a>(
    line: &'a str,
    names: &[&str],
    out: &mut [Option<FieldValue<'a>>],
) -> bool {
    scan::<false, &'a [u8]>(line, names, out, None, (usize::MAX, &mut None))
}

/// The gaps of the lines read before ([`Gaps`]), borrowed from a text
/// that outlives the scan of every line (a chunk of the file).
pub(crate) type KeyHints<'a> = Gaps<&'a [u8]>;

/// [`KeyHints`] for records that live one line each (an envelope's
/// unescaped record): each gap is copied once, when first seen.
pub(crate) type OwnedKeyHints = Gaps<Box<[u8]>>;

/// [`scan_line`] with the gaps of the lines read before as hints; `hints`
/// must be used with one `names` only.
pub(crate) fn scan_line_hinted<'a, T: GapText<'a>>(
    line: &'a str,
    names: &[&str],
    out: &mut [Option<FieldValue<'a>>],
    hints: &mut Gaps<T>,
) -> bool {
    scan::<false, T>(line, names, out, Some(hints), (usize::MAX, &mut None))
}

/// [`scan_line_hinted`] for an envelope (an SLS `content`, a Filebeat
/// `message`): `names[raw]` names the field that holds the application's
/// record as a JSON string. Its text is returned unescaped, read in the
/// same pass as the envelope's own fields (`out[raw]` stays `None`). `None`
/// when the line is not read, or the field is missing, or not a string with
/// only two-byte escapes: the general path then decides.
pub(crate) fn scan_envelope<'a>(
    line: &'a str,
    names: &[&str],
    out: &mut [Option<FieldValue<'a>>],
    hints: &mut KeyHints<'a>,
    raw: usize,
) -> Option<String> {
    let mut text = None;
    if !scan::<true, &'a [u8]>(line, names, out, Some(hints), (raw, &mut text)) {
        return None;
    }
    text
}

/// [`scan_line`], taking and keeping key hints when there are some (a line
/// read alone allocates nothing). With `ENVELOPE`, the unescaped text of
/// the string field `names[raw.0]` goes in `raw.1` (a constant, so that the
/// plain scan pays nothing for it: a run-time test cost 136 instructions a
/// line, callgrind).
fn scan<'a, const ENVELOPE: bool, T: GapText<'a>>(
    line: &'a str,
    names: &[&str],
    out: &mut [Option<FieldValue<'a>>],
    mut hints: Option<&mut Gaps<T>>,
    raw: (usize, &mut Option<String>),
) -> bool {
    for o in out.iter_mut() {
        *o = None;
    }
    let mut p = Scan {
        b: line.as_bytes(),
        s: line,
        i: 0,
    };
    let mut place = Place::Start;
    loop {
        // At the line's start or right after a value: the gap to the next
        // value as learned before, else read and learned.
        let learned = match hints.as_deref_mut() {
            Some(h) => h.follow(place, &p.b[p.i..]),
            None => None,
        };
        let slot = match learned {
            Some((id, len, slot)) => {
                p.i += len;
                place = Place::After(id);
                slot
            }
            None => match p.gap(place == Place::Start) {
                Gap::Key(from, key) => {
                    let slot = find_name(names, key);
                    if let Some(h) = hints.as_deref_mut() {
                        place = h.learn(place, &p.b[from..p.i], slot);
                    } else {
                        place = Place::Lost;
                    }
                    slot
                }
                Gap::End => return p.i == p.b.len(),
                Gap::Bad => return false,
            },
        };
        p.ws();
        if !p.value(slot, out, &mut *raw.1, ENVELOPE.then_some(raw.0)) {
            return false;
        }
    }
}

/// What stands between a value (or a line's start) and the next value.
enum Gap<'a> {
    /// A key: where its gap starts, and its name.
    Key(usize, &'a str),
    /// The object's end, with only white space after it.
    End,
    /// Anything else: the general parser decides.
    Bad,
}

/// A hash of a JSON line's shape: its keys in order and its brackets,
/// values left out, so two lines of one shape have the same field names.
/// `None` when a line's field names may also come from its values (a
/// `"key"`/`"Key"` in an object inside an array: an attribute list, read
/// as fields by `json::kv_lists_in_record`), it nests deeper than 64
/// or its strings do not close.
pub(crate) fn key_shape(line: &str) -> Option<u64> {
    use std::hash::{BuildHasher, Hasher};
    let b = line.as_bytes();
    let mut h = foldhash::fast::FixedState::with_seed(0x5eed).build_hasher();
    // Bit d set: the container at depth d is an array.
    let (mut arrays, mut depth) = (0u64, 0u32);
    let in_array_element = |arrays: u64, depth: u32| depth >= 2 && arrays >> (depth - 2) & 1 == 1;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i + 1;
                let mut j = start;
                loop {
                    j += memchr::memchr2(b'"', b'\\', b.get(j..)?)?;
                    if b[j] == b'"' {
                        break;
                    }
                    j += 2;
                }
                let s = &b[start..j];
                i = j + 1;
                let colon = b[i..].iter().find(|c| !c.is_ascii_whitespace()) == Some(&b':');
                if colon {
                    if (s == b"key" || s == b"Key") && in_array_element(arrays, depth) {
                        return None;
                    }
                    h.write(s);
                    h.write_u8(0);
                }
            }
            c @ (b'{' | b'[') => {
                if depth >= 64 {
                    return None;
                }
                arrays = (arrays & !(1 << depth)) | (u64::from(c == b'[') << depth);
                depth += 1;
                h.write_u8(c);
                i += 1;
            }
            c @ (b'}' | b']') => {
                depth = depth.saturating_sub(1);
                h.write_u8(c);
                i += 1;
            }
            _ => i += 1,
        }
    }
    Some(h.finish())
}

/// `s.trim()`, with ASCII whitespace stripped byte-wise first: `str::trim`
/// only runs when a non-ASCII character (which may be Unicode whitespace)
/// or a vertical tab (which `trim_ascii` keeps) is at either end. Lines and
/// field values are trimmed once each, millions of times a file.
pub(crate) fn trim(s: &str) -> &str {
    let t = s.trim_ascii();
    match (t.as_bytes().first(), t.as_bytes().last()) {
        (Some(a), Some(z)) if *a >= 0x80 || *z >= 0x80 || *a == 0x0B || *z == 0x0B => t.trim(),
        _ => t,
    }
}

/// The index of `key` in `names`. Lengths and first bytes are compared
/// before any string comparison: most keys of a line are not wanted.
fn find_name(names: &[&str], key: &str) -> Option<usize> {
    let (len, first) = (key.len(), key.as_bytes().first());
    names
        .iter()
        .position(|n| n.len() == len && n.as_bytes().first() == first && *n == key)
}

struct Scan<'a> {
    b: &'a [u8],
    s: &'a str,
    i: usize,
}

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while let Some(c) = self.b.get(self.i) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// Reads the gap before the next value (after a value, or at the line's
    /// start when `start`): white space, `{` or `,`, a plain key, white
    /// space, `:` and white space; or the object's end.
    fn gap(&mut self, start: bool) -> Gap<'a> {
        let from = self.i;
        self.ws();
        let end = if start {
            if !self.eat(b'{') {
                return Gap::Bad;
            }
            self.ws();
            self.eat(b'}')
        } else if self.eat(b',') {
            false
        } else if self.eat(b'}') {
            true
        } else {
            return Gap::Bad;
        };
        if end {
            self.ws();
            return Gap::End;
        }
        self.ws();
        let Some(key) = self.plain_string() else {
            return Gap::Bad;
        };
        self.ws();
        if !self.eat(b':') {
            return Gap::Bad;
        }
        self.ws();
        Gap::Key(from, key)
    }

    /// Reads the value of the key whose slot is `slot` into `out` (a wanted
    /// field), into `raw_text` unescaped (the envelope's record field, slot
    /// `raw`) or over it (not wanted). False to give up.
    #[inline(always)]
    fn value(
        &mut self,
        slot: Option<usize>,
        out: &mut [Option<FieldValue<'a>>],
        raw_text: &mut Option<String>,
        raw: Option<usize>,
    ) -> bool {
        match slot {
            Some(slot) if raw == Some(slot) => {
                let Some(text) = self.unescaped_string() else {
                    return false;
                };
                *raw_text = Some(text);
                true
            }
            Some(slot) => {
                let Some(v) = self.wanted_value() else {
                    return false;
                };
                // A repeated key: the last one wins, as in serde_json's map.
                out[slot] = v;
                true
            }
            None => self.skip_value(0),
        }
    }

    /// A string without escapes, borrowed; `None` for escapes, control
    /// characters or a missing quote.
    fn plain_string(&mut self) -> Option<&'a str> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.i;
        let end = first_special(self.b, start)?;
        if self.b[end] != b'"' {
            return None;
        }
        self.i = end + 1;
        self.s.get(start..end)
    }

    /// Skips a string, validating simple escapes; `\u` gives up.
    fn skip_string(&mut self) -> bool {
        self.walk_string(|_, _, _| {})
    }

    /// A string whose only escapes are the two-byte ones, unescaped: the
    /// runs between escapes copied whole (serde_json's own unescaping cost
    /// about 10 000 instructions an SLS line, 35 % of its parse).
    /// `None` where [`Scan::skip_string`] gives up.
    fn unescaped_string(&mut self) -> Option<String> {
        let s = self.s;
        // The rest of the line bounds the text: no growing on the way.
        let mut out = String::with_capacity(self.b.len() - self.i);
        let mut whole = true;
        let read = self.walk_string(|from, to, escaped| match s.get(from..to) {
            Some(run) => {
                out.push_str(run);
                out.extend(escaped);
            }
            None => whole = false,
        });
        (read && whole).then_some(out)
    }

    /// Steps over a string whose only escapes are the two-byte ones, handing
    /// `each` every run between escapes (as byte positions) with the
    /// character the escape after it stands for (`None` after the last
    /// run). False, stopped where it failed, at `\u`, a control character
    /// or a missing closing quote.
    #[inline(always)]
    fn walk_string(&mut self, mut each: impl FnMut(usize, usize, Option<char>)) -> bool {
        if !self.eat(b'"') {
            return false;
        }
        loop {
            let Some(end) = first_special(self.b, self.i) else {
                return false;
            };
            let from = self.i;
            self.i = end;
            match self.b[end] {
                b'"' => {
                    each(from, end, None);
                    self.i += 1;
                    return true;
                }
                b'\\' => {}
                _ => return false,
            }
            let c = match self.b.get(end + 1) {
                Some(b'"') => '"',
                Some(b'\\') => '\\',
                Some(b'/') => '/',
                Some(b'b') => '\u{8}',
                Some(b'f') => '\u{c}',
                Some(b'n') => '\n',
                Some(b'r') => '\r',
                Some(b't') => '\t',
                _ => return false,
            };
            each(from, end, Some(c));
            self.i += 2;
        }
    }

    /// A JSON number's text, checked against the grammar.
    fn number(&mut self) -> Option<&'a str> {
        let start = self.i;
        self.eat(b'-');
        match self.b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return None,
        }
        if self.eat(b'.') {
            let d = self.i;
            self.digits();
            if self.i == d {
                return None;
            }
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            let d = self.i;
            self.digits();
            if self.i == d {
                return None;
            }
        }
        self.s.get(start..self.i)
    }

    fn digits(&mut self) {
        while matches!(self.b.get(self.i), Some(b'0'..=b'9')) {
            self.i += 1;
        }
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        if self.b.get(self.i..self.i + word.len()) == Some(word) {
            self.i += word.len();
            true
        } else {
            false
        }
    }

    /// A wanted value: `Some(None)` for null, blank text, arrays (which the
    /// general path also ignores); `None` to give up (objects, escapes).
    // Inlined by hand: with two scans (plain and envelope) the compiler
    // stopped inlining it, +200 instructions a line (callgrind).
    #[inline(always)]
    fn wanted_value(&mut self) -> Option<Option<FieldValue<'a>>> {
        match self.b.get(self.i)? {
            b'"' => {
                let s = self.plain_string()?;
                Some((!trim(s).is_empty()).then_some(FieldValue::Str(s)))
            }
            b't' => self
                .literal(b"true")
                .then_some(Some(FieldValue::Bool(true))),
            b'f' => self
                .literal(b"false")
                .then_some(Some(FieldValue::Bool(false))),
            b'n' => self.literal(b"null").then_some(None),
            // A wanted array is the general path's (journald's `MESSAGE`
            // as bytes, `kv_lists_in_record`).
            b'[' => None,
            b'-' | b'0'..=b'9' => {
                let t = self.number()?;
                Some(Some(FieldValue::Num(number(t)?)))
            }
            _ => None,
        }
    }

    fn skip_value(&mut self, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match self.b.get(self.i) {
            Some(b'"') => self.skip_string(),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number().is_some(),
            Some(b'[') => {
                self.i += 1;
                self.ws();
                if self.eat(b']') {
                    return true;
                }
                loop {
                    self.ws();
                    if !self.skip_value(depth + 1) {
                        return false;
                    }
                    self.ws();
                    if self.eat(b',') {
                        continue;
                    }
                    return self.eat(b']');
                }
            }
            Some(b'{') => {
                self.i += 1;
                self.ws();
                if self.eat(b'}') {
                    return true;
                }
                loop {
                    self.ws();
                    if !self.skip_string() {
                        return false;
                    }
                    self.ws();
                    if !self.eat(b':') {
                        return false;
                    }
                    self.ws();
                    if !self.skip_value(depth + 1) {
                        return false;
                    }
                    self.ws();
                    if self.eat(b',') {
                        continue;
                    }
                    return self.eat(b'}');
                }
            }
            _ => false,
        }
    }
}

/// The index of the first byte at or after `from` in `b` that ends a
/// plain run of string text: a quote, a backslash or a control character
/// (below 0x20, which JSON forbids unescaped in a string); `None` when there
/// is none.
///
/// Eight bytes at a time, without a call: in each 64-bit word
/// `(y - 0x01..01) & !y & 0x80..80` marks the bytes where `y` is zero, and
/// `(x - 0x20..20) & !x & 0x80..80` those of `x` below 0x20 ("determine if a
/// word has a zero byte" and "... a byte less than n", Sean Eron Anderson's
/// Bit Twiddling Hacks). A borrow can mark a byte above a true match, never
/// one below it, so the lowest mark of the three is exact. The strings of a
/// log line are short: `memchr2` plus a second pass for control bytes cost
/// about 150 instructions a string here, most of it the call's set-up
/// (callgrind).
fn first_special(b: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const QUOTE: u64 = ONES * b'"' as u64;
    const BACKSLASH: u64 = ONES * b'\\' as u64;
    const SPACE: u64 = ONES * 0x20;
    let mut i = from;
    while let Some(&w) = b.get(i..).and_then(|r| r.first_chunk::<8>()) {
        let x = u64::from_le_bytes(w);
        let q = x ^ QUOTE;
        let s = x ^ BACKSLASH;
        let m = ((q.wrapping_sub(ONES) & !q)
            | (s.wrapping_sub(ONES) & !s)
            | (x.wrapping_sub(SPACE) & !x))
            & HIGH;
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b.get(i..)?
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|p| i + p)
}

/// The number serde_json would make of `t`: plain integers directly, anything
/// else through serde_json's own parser.
fn number(t: &str) -> Option<Number> {
    let b = t.as_bytes();
    let neg = b.first() == Some(&b'-');
    let digits = if neg { &b[1..] } else { b };
    if !digits.is_empty()
        && digits.len() <= 18
        && digits.iter().all(u8::is_ascii_digit)
        && !(neg && digits == b"0")
    {
        let mut v: i64 = 0;
        for &d in digits {
            v = v * 10 + i64::from(d - b'0');
        }
        return Some(if neg {
            Number::from(-v)
        } else {
            Number::from(v as u64)
        });
    }
    Number::from_str(t).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_shape_is_the_keys_and_brackets_not_the_values() {
        let a = key_shape(r#"{"ts":"x","lock":{"key":"k1"},"n":1}"#);
        let b = key_shape(r#"{"ts": "y \" }", "lock": {"key": "k2"}, "n": 22}"#);
        assert!(a.is_some());
        assert_eq!(a, b);
        assert_ne!(a, key_shape(r#"{"ts":"x","lock":{"id":"k1"},"n":1}"#));
        // The same keys nested differently.
        assert_ne!(key_shape(r#"{"a":{"b":1}}"#), key_shape(r#"{"a":1,"b":1}"#));
        // Names from values (attribute lists) and unclosed strings: no shape.
        assert_eq!(key_shape(r#"{"attributes":[{"key":"k","value":1}]}"#), None);
        assert_eq!(key_shape(r#"{"Attributes":[{"Key":"k"}]}"#), None);
        assert_eq!(key_shape(r#"{"a":"unclosed"#), None);
        assert_eq!(key_shape(r#"{"a":"x\"#), None);
    }

    fn scan<'a>(line: &'a str, names: &[&str]) -> Option<Vec<Option<FieldValue<'a>>>> {
        let mut out = vec![None; names.len()];
        scan_line(line, names, &mut out).then_some(out)
    }

    #[test]
    fn picks_wanted_fields_and_skips_the_rest() {
        let got = scan(
            r#"{"ts": "2026-11-29T16:10:39.627+08:00", "x": {"a": [1, 2.5e3, "q\"\n"]}, "n": -12, "f": 0.5, "b": true, "nil": null, "blank": " "}"#,
            &["ts", "n", "f", "b", "nil", "blank", "missing"],
        )
        .expect("fast");
        assert_eq!(
            got[0],
            Some(FieldValue::Str("2026-11-29T16:10:39.627+08:00"))
        );
        assert_eq!(got[1], Some(FieldValue::Num(Number::from(-12))));
        assert_eq!(got[2].as_ref().and_then(FieldValue::as_f64), Some(0.5));
        assert_eq!(got[3], Some(FieldValue::Bool(true)));
        assert_eq!(&got[4..], &[None, None, None]);
    }

    #[test]
    fn gives_up_on_what_the_general_path_must_decide() {
        for line in [
            r#"{"a": "esc\"aped"}"#,
            r#"{"a": {"date": "x"}}"#,
            r#"{"k\u0073": 1}"#,
            r#"{"b": "\u00e9"}"#,
            r#"{"a": 1} x"#,
            r#"{"a": 01}"#,
            r#"{"a": 1,}"#,
            r#"{"a": tru}"#,
            r#"[1]"#,
            "{\"a\": \"tab\there\"}",
            r#"{"a": 1"#,
        ] {
            assert!(scan(line, &["a"]).is_none(), "{line}");
        }
        assert!(scan(r#"{"b": "\"fine\""}"#, &["a"]).is_some());
        assert!(scan("{}", &["a"]).is_some());
    }

    #[test]
    fn numbers_match_serde_json() {
        for t in [
            "0",
            "-1",
            "18446744073709551615",
            "1e3",
            "0.1",
            "-0",
            "123456789012345678901",
        ] {
            let ours = number(t).expect("number");
            let theirs: Number = serde_json::from_str(t).expect("serde");
            assert_eq!(ours, theirs, "{t}");
        }
    }

    fn envelope<'a>(line: &'a str, out: &mut [Option<FieldValue<'a>>]) -> Option<String> {
        scan_envelope(line, &["z", "content"], out, &mut KeyHints::default(), 1)
    }

    #[test]
    fn scan_envelope_unescapes_only_the_record_and_reads_the_rest() {
        let mut out = vec![None; 2];
        let line = r#"{"a":{"b":[1,2]},"content":"{\"k\":\"v\"}","z":1}"#;
        assert_eq!(envelope(line, &mut out).as_deref(), Some(r#"{"k":"v"}"#));
        assert_eq!(out[0], Some(FieldValue::Num(Number::from(1))));
        assert_eq!(out[1], None);
        let plain = r#"{"content":"plain"}"#;
        assert_eq!(envelope(plain, &mut out).as_deref(), Some("plain"));
        // Not a string, missing, not an object, or an escape the scanner
        // leaves to serde_json: the general path decides.
        assert_eq!(envelope(r#"{"content":1}"#, &mut out), None);
        assert_eq!(envelope(r#"{"x":1}"#, &mut out), None);
        assert_eq!(envelope(r#"["content"]"#, &mut out), None);
        assert_eq!(envelope(r#"{"content":"\u00e9"}"#, &mut out), None);
        assert_eq!(envelope(r#"{"content":"{}", "z" 1}"#, &mut out), None);
    }

    /// The byte-at-a-time definition [`first_special`] must agree with.
    fn first_special_naive(b: &[u8], from: usize) -> Option<usize> {
        (from..b.len()).find(|&i| matches!(b[i], b'"' | b'\\' | 0x00..=0x1f))
    }

    #[test]
    fn first_special_finds_the_first_quote_backslash_or_control_byte() {
        // Neighbours of the three classes (`!`, `#`, `[`, `]`, space, DEL,
        // bytes >= 0x80) never match; one or two specials at every place,
        // searched from every start, agree with the byte-at-a-time search.
        let plain = [
            b'a',
            b'!',
            b'#',
            b'[',
            b']',
            0x20,
            0x7f,
            0x80,
            0xff,
            0x01 + 0x20,
        ];
        let special = [b'"', b'\\', 0x00, 0x01, 0x09, 0x1f];
        for len in 0..34 {
            let clean: Vec<u8> = (0..len).map(|i| plain[i % plain.len()]).collect();
            for from in 0..=len {
                assert_eq!(first_special(&clean, from), None, "{clean:?}");
            }
            for at in 0..len {
                for (k, &c) in special.iter().enumerate() {
                    let mut b = clean.clone();
                    b[at] = c;
                    for second in [at + 1, at + 3, at + 7, at + 8] {
                        let mut two = b.clone();
                        if let Some(x) = two.get_mut(second) {
                            *x = special[(k + 1) % special.len()];
                        }
                        for from in 0..=len {
                            assert_eq!(
                                first_special(&two, from),
                                first_special_naive(&two, from),
                                "{two:?} from {from}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// What the general path makes of `line` for `names`: `None` when it is
    /// not a JSON object, else each name's value as the scanner reports it.
    fn general(line: &str, names: &[&str]) -> Option<Vec<Option<String>>> {
        let serde_json::Value::Object(o) = serde_json::from_str(line).ok()? else {
            return None;
        };
        Some(
            names
                .iter()
                .map(|n| match o.get(*n)? {
                    serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
                    serde_json::Value::Number(x) => Some(format!("n{x}")),
                    serde_json::Value::Bool(b) => Some(format!("b{b}")),
                    _ => None,
                })
                .collect(),
        )
    }

    fn shown(v: &Option<FieldValue<'_>>) -> Option<String> {
        match v.as_ref()? {
            FieldValue::Str(s) => Some((*s).to_string()),
            FieldValue::Num(x) => Some(format!("n{x}")),
            FieldValue::Bool(b) => Some(format!("b{b}")),
            FieldValue::Date { .. } => Some("date".into()),
        }
    }

    /// Text with the bytes that decide a string's end: quotes, backslashes
    /// and escapes, control characters, multi-byte characters, blanks.
    fn text() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::string::string_regex(
            r#"([a-z0-9 ]|"|\\|\\"|\\n|\\u00e9|\t|\x01|é|锁|\x7f){0,24}"#,
        )
        .expect("regex")
    }

    /// A JSON value as text, escaped as JSON, or some other text as is.
    fn value() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            text().prop_map(|t| serde_json::to_string(&t).expect("string")),
            text().prop_map(|t| format!("\"{t}\"")),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>().prop_map(|f| f.to_string()),
            Just("true".to_string()),
            Just("null".to_string()),
            Just("[1, \"a\", {\"b\": [null]}]".to_string()),
            Just("{\"x\": 1}".to_string()),
            Just("-".to_string()),
            Just("01".to_string()),
        ]
    }

    /// A line of up to eight fields: keys that repeat, are prefixes of one
    /// another or hold an escape, values of every kind, separators that are
    /// not JSON, sometimes cut short.
    fn line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        (
            proptest::collection::vec(
                (
                    proptest::sample::select(vec!["ts", "tsx", "key", "k\\\"q", "event", "x"]),
                    value(),
                ),
                0..8,
            ),
            proptest::sample::select(vec![",", ", ", " ,\t", ",,"]),
            proptest::option::of(0usize..200),
        )
            .prop_map(|(fields, sep, cut)| {
                let mut line = String::from("{");
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        line.push_str(sep);
                    }
                    line.push_str(&format!("\"{k}\": {v}"));
                }
                line.push('}');
                if let Some(c) = cut.filter(|c| line.is_char_boundary(*c)) {
                    line.truncate(c);
                }
                line
            })
    }

    const NAMES: [&str; 4] = ["ts", "key", "event", "absent"];

    proptest::proptest! {
        /// Whenever the scanner is sure, it agrees with serde_json: a line
        /// it reads is an object, with the same value for every name.
        #[test]
        fn scan_line_agrees_with_serde_json_when_it_reads_a_line(line in line()) {
            let mut out = vec![None; NAMES.len()];
            if scan_line(&line, &NAMES, &mut out) {
                let ours: Vec<Option<String>> = out.iter().map(shown).collect();
                proptest::prop_assert_eq!(Some(ours), general(&line, &NAMES), "{}", line);
            }
        }

        /// The keys of the lines before change nothing: each line of a
        /// sequence scanned with hints gives what it gives alone.
        #[test]
        fn hints_from_earlier_lines_change_no_result(
            lines in proptest::collection::vec(line(), 1..12),
        ) {
            let mut hints = KeyHints::default();
            let mut owned = OwnedKeyHints::default();
            for line in &lines {
                let (mut alone, mut hinted) = (vec![None; NAMES.len()], vec![None; NAMES.len()]);
                let a = scan_line(line, &NAMES, &mut alone);
                let h = scan_line_hinted(line, &NAMES, &mut hinted, &mut hints);
                proptest::prop_assert_eq!(a, h, "{}", line);
                if a {
                    proptest::prop_assert_eq!(&alone, &hinted, "{}", line);
                }
                // The copied hints, from a text that is gone after its line.
                let copy = line.clone();
                let mut hinted = vec![None; NAMES.len()];
                let o = scan_line_hinted(&copy, &NAMES, &mut hinted, &mut owned);
                proptest::prop_assert_eq!(a, o, "{}", line);
                if a {
                    proptest::prop_assert_eq!(&alone, &hinted, "{}", line);
                }
            }
        }
    }

    #[test]
    fn a_hint_is_taken_only_for_the_whole_quoted_key() {
        let mut hints = KeyHints::default();
        let names = ["ts", "tsx"];
        let mut out = vec![None; 2];
        let first = r#"{"ts": 1, "tsx": 2}"#;
        assert!(scan_line_hinted(first, &names, &mut out, &mut hints));
        // The same positions now hold the other keys, one a prefix of the
        // hint and one the hint as a prefix.
        let second = r#"{"tsx": 3, "ts": 4}"#;
        assert!(scan_line_hinted(second, &names, &mut out, &mut hints));
        assert_eq!(out[0], Some(FieldValue::Num(Number::from(4))));
        assert_eq!(out[1], Some(FieldValue::Num(Number::from(3))));
        // A hinted key followed by a broken line still fails.
        assert!(!scan_line_hinted(
            r#"{"tsx" 3}"#,
            &names,
            &mut out,
            &mut hints
        ));
    }

    #[test]
    fn copied_hints_follow_keys_that_change_and_outlive_their_line() {
        let names = ["ts", "tsx"];
        let mut hints = OwnedKeyHints::default();
        let read = |line: &str, hints: &mut OwnedKeyHints| {
            let text = line.to_string();
            let mut out = vec![None; 2];
            assert!(scan_line_hinted(&text, &names, &mut out, hints));
            out.iter()
                .map(|v| v.as_ref().map(|v| v.text().into_owned()))
                .collect::<Vec<_>>()
        };
        let n = |v: i64| Some(v.to_string());
        assert_eq!(read(r#"{"ts": 1, "tsx": 2}"#, &mut hints), [n(1), n(2)]);
        assert_eq!(read(r#"{"tsx": 3, "ts": 4}"#, &mut hints), [n(4), n(3)]);
        assert_eq!(
            read(r#"{"tsx": 5, "ts": 6, "x": 7}"#, &mut hints),
            [n(6), n(5)]
        );
        assert_eq!(read(r#"{"x": 8, "ts": 9}"#, &mut hints), [n(9), None]);
        // Gaps: `{"ts": `, `, "tsx": `, `{"tsx": `, `, "ts": `, `, "x": `,
        // `{"x": `; the lines again learn nothing new.
        assert_eq!(hints.len(), 6);
        assert_eq!(
            read(r#"{"tsx": 5, "ts": 6, "x": 7}"#, &mut hints),
            [n(6), n(5)]
        );
        assert_eq!(hints.len(), 6);
    }

    proptest::proptest! {
        /// A string the scanner skips unescapes as serde_json reads it,
        /// and ends where the skip ends; one it gives up on is not read.
        #[test]
        fn unescape_agrees_with_serde_json(v in value()) {
            let mut p = Scan { b: v.as_bytes(), s: &v, i: 0 };
            let skipped = p.skip_string();
            let mut q = Scan { b: v.as_bytes(), s: &v, i: 0 };
            let ours = q.unescaped_string();
            proptest::prop_assert_eq!(skipped, ours.is_some(), "{}", v);
            if skipped && p.i == v.len() {
                let theirs = serde_json::from_str::<String>(&v).ok();
                proptest::prop_assert!(theirs.is_some(), "{}", v);
                proptest::prop_assert_eq!(ours, theirs, "{}", v);
                proptest::prop_assert_eq!(q.i, p.i, "{}", v);
            }
        }
    }

    fn unescape(raw: &str) -> Option<String> {
        Scan {
            b: raw.as_bytes(),
            s: raw,
            i: 0,
        }
        .unescaped_string()
    }

    #[test]
    fn unescape_reads_every_two_byte_escape() {
        let raw = r#""a\"b\\c\/d\be\ff\ng\rh\ti锁""#;
        assert_eq!(
            unescape(raw).as_deref(),
            Some("a\"b\\c/d\u{8}e\u{c}f\ng\rh\ti锁")
        );
        assert_eq!(unescape(r#""no escape""#).as_deref(), Some("no escape"));
        assert_eq!(unescape(r#""""#).as_deref(), Some(""));
    }

    proptest::proptest! {
        #[test]
        fn trim_is_str_trim(s in "[ \t\r\n\u{b}\u{c}\u{85}\u{a0}\u{3000}a锁]{0,8}") {
            proptest::prop_assert_eq!(trim(&s), s.trim());
        }
    }

    proptest::proptest! {
        #[test]
        fn first_special_agrees_with_the_byte_search(
            b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80),
            from in 0usize..90,
        ) {
            proptest::prop_assert_eq!(first_special(&b, from), first_special_naive(&b, from));
        }
    }

    #[test]
    fn last_repeated_key_wins() {
        let got = scan(r#"{"a": 1, "a": 2}"#, &["a"]).expect("fast");
        assert_eq!(got[0], Some(FieldValue::Num(Number::from(2))));
    }
}

//! A bank of timestamp formats tried anywhere near the start of a line, so
//! that a line's time is found wherever its layout puts it and whatever
//! parts it has (with or without a date or a year, a level letter fused to
//! it, an epoch number). The structure finder (`structure.rs`) learns on a
//! sample which format a file uses and where it stands; each line is then
//! read with that one format.
//!
//! The model is Elasticsearch's text-structure finder
//! (`x-pack/plugin/text-structure`, `TimestampFormatFinder.java`: an
//! ordered list of candidate formats, the more specific first, each tried
//! at every position of the line's first characters, the text before the
//! match kept as the line's preface) and Splunk's timestamp recognition
//! (`MAX_TIMESTAMP_LOOKAHEAD`, 128 characters by default). The formats
//! are the ones logging libraries write by default:
//! - ISO 8601 and its variants (`yyyy-MM-dd HH:mm:ss,SSS`, `T`, `/`, an
//!   offset or `Z`): Logback, Log4j2, Python `logging`, Spring Boot, Go;
//! - `d-MMM-yyyy::HH:mm:ss.SSSSSS` (Erlang/OTP `logger_formatter` with
//!   `legacy_header`), `dd-MMM-yyyy HH:mm:ss.SSS` (Tomcat's
//!   `OneLineFormatter`), `dd/MMM/yyyy:HH:mm:ss Z` (Apache httpd's `%t`);
//! - `MMM dd HH:mm:ss` (syslog RFC 3164, no year);
//! - `MM-dd HH:mm:ss.SSS` (Android logcat `threadtime`), `MM-dd|HH:mm:ss.SSS`
//!   (go-ethereum's terminal format), no year;
//! - `MMdd HH:mm:ss.SSSSSS` with the level letter fused before it (glog,
//!   klog: `I1201 07:06:55.123456`), no year;
//! - `HH:mm:ss.SSS`, a time of day alone (Log4j2's and Logback's default
//!   patterns);
//! - epoch seconds (with a fraction), milliseconds, microseconds and
//!   nanoseconds (10, 13, 16 and 19 digits), from 2000 to 2100.

use crate::ingest::roles::time::month_of;

/// How far into a line a time is looked for, bytes (Splunk's default
/// lookahead is 128 characters; Elasticsearch looks at the whole line).
pub(crate) const LOOKAHEAD: usize = 100;

/// A timestamp format of the bank, by the parts it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Format {
    /// `yyyy-MM-dd HH:mm[:ss[.S]][offset]`, `T` or `/` allowed.
    Iso,
    /// `d-MMM-yyyy::HH:mm:ss`, `dd-MMM-yyyy HH:mm:ss`, `dd/MMM/yyyy:HH:mm:ss Z`.
    DayMonthName,
    /// `MMM dd HH:mm:ss` (no year).
    MonthNameDay,
    /// `MM-dd HH:mm:ss`, `MM/dd HH:mm:ss`, `MM-dd|HH:mm:ss` (no year).
    MonthDay,
    /// `MMdd HH:mm:ss` (no year; glog's, after its level letter).
    MonthDayFused,
    /// Epoch seconds, ms, µs or ns.
    Epoch,
    /// `HH:mm:ss[.S]` (no date).
    TimeOfDay,
}

/// The formats in the order they are tried at one position: a format
/// that is part of another (a time of day is part of every date-time)
/// comes after it.
pub(crate) const BANK: [Format; 7] = [
    Format::Iso,
    Format::DayMonthName,
    Format::MonthNameDay,
    Format::MonthDay,
    Format::MonthDayFused,
    Format::Epoch,
    Format::TimeOfDay,
];

/// A time found in a line: where it stands and its parts. Text parts
/// borrow from the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp<'a> {
    /// The format that matched.
    pub format: Format,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset after its last character.
    pub end: usize,
    /// Year, when written.
    pub year: Option<i32>,
    /// Month (1-12), when written.
    pub month: Option<u32>,
    /// Day of the month, when written.
    pub day: Option<u32>,
    /// Hour, minute, second.
    pub hms: (u32, u32, u32),
    /// The fraction's digits (may be empty).
    pub frac: &'a str,
    /// The offset as written (`Z`, `+08:00`, `+0800`), when there is one.
    pub offset: Option<&'a str>,
    /// An epoch number as written (its digits and fraction).
    pub epoch: Option<&'a str>,
}

impl Stamp<'_> {
    /// The time as the time parser reads it (`roles/time.rs`):
    /// `yyyy-MM-dd HH:mm:ss[.S][offset]` with a full date; ISO 8601's
    /// truncated forms, which the collector completes
    /// (`assembly/dates.rs`), without a year (`--MM-dd HH:mm:ss[.S]`) or a
    /// date (`THH:mm:ss[.S]`); the epoch number as written.
    pub fn normalized(&self) -> String {
        if let Some(e) = self.epoch {
            return e.to_string();
        }
        let (h, m, s) = self.hms;
        let mut out = match (self.year, self.month, self.day) {
            (Some(y), Some(mo), Some(d)) => format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02}:{s:02}"),
            (None, Some(mo), Some(d)) => format!("--{mo:02}-{d:02} {h:02}:{m:02}:{s:02}"),
            _ => format!("T{h:02}:{m:02}:{s:02}"),
        };
        if !self.frac.is_empty() {
            out.push('.');
            out.push_str(self.frac);
        }
        if let Some(o) = self.offset {
            out.push_str(o);
        }
        out
    }

    /// The format as a pattern of the example it was found in, in
    /// Java's `DateTimeFormatter` letters (`yyyy-MM-dd HH:mm:ss.SSS`),
    /// for notes and `inspect`.
    pub fn pattern(&self, line: &str) -> String {
        let text = line.get(self.start..self.end).unwrap_or("");
        if self.epoch.is_some() {
            return match self
                .epoch
                .map_or(0, |e| e.split('.').next().unwrap_or("").len())
            {
                10 => "epoch seconds",
                13 => "epoch ms",
                16 => "epoch µs",
                _ => "epoch ns",
            }
            .to_string();
        }
        let Some(o) = self.offset else {
            return pattern_of(text, self);
        };
        let at = (o.as_ptr() as usize)
            .saturating_sub(line.as_ptr() as usize)
            .saturating_sub(self.start);
        let mut p = pattern_of(text.get(..at).unwrap_or(text), self);
        p.push_str(match o {
            "Z" | "z" => "X",
            o if o.contains(':') => "XXX",
            _ => "XX",
        });
        p
    }
}

/// The letters of [`Stamp::pattern`]: each run of digits named by the part
/// it is, in order; month names `MMM`; other characters kept.
fn pattern_of(text: &str, st: &Stamp<'_>) -> String {
    let mut parts: Vec<&str> = Vec::new();
    match st.format {
        Format::Iso => parts.extend(["yyyy", "MM", "dd", "HH", "mm", "ss"]),
        Format::DayMonthName => parts.extend(["d", "yyyy", "HH", "mm", "ss"]),
        Format::MonthNameDay => parts.extend(["d", "HH", "mm", "ss"]),
        Format::MonthDay => parts.extend(["MM", "dd", "HH", "mm", "ss"]),
        Format::MonthDayFused => parts.extend(["MMdd", "HH", "mm", "ss"]),
        Format::TimeOfDay => parts.extend(["HH", "mm", "ss"]),
        Format::Epoch => {}
    }
    let b = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    let mut k = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let n = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            match parts.get(k) {
                Some(p) => {
                    out.push_str(if *p == "d" && n == 2 { "dd" } else { p });
                    k += 1;
                }
                None => out.push_str(&"S".repeat(n)),
            }
            i += n;
        } else if b[i].is_ascii_alphabetic() && month_of(text.get(i..i + 3).unwrap_or("")).is_some()
        {
            out.push_str("MMM");
            i += 3;
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// True for a time in one of [`Stamp::normalized`]'s truncated forms
/// (`--MM-dd HH:mm:ss[.S]`, `THH:mm:ss[.S]`), which only a record read by a
/// found structure has.
pub(crate) fn is_truncated(v: &str) -> bool {
    let v = v.trim();
    let clock = |t: &str| {
        let b = t.as_bytes();
        b.len() >= 8 && b[2] == b':' && b[5] == b':' && match_at(t, 0, Format::TimeOfDay).is_some()
    };
    if let Some(r) = v.strip_prefix("--") {
        return r.len() > 6 && r.as_bytes()[2] == b'-' && clock(&r[6..]);
    }
    v.strip_prefix('T').is_some_and(clock)
}

/// The first time of the bank in `line`'s first [`LOOKAHEAD`] bytes: the
/// leftmost position where a format matches, the bank's order deciding at
/// one position.
pub(crate) fn find_any(line: &str) -> Option<Stamp<'_>> {
    positions(line, 0, LOOKAHEAD).find_map(|i| BANK.iter().find_map(|f| match_at(line, i, *f)))
}

/// The first time of `format` in `line` starting at a byte from `from` to
/// `to` (inclusive).
pub(crate) fn find(line: &str, format: Format, from: usize, to: usize) -> Option<Stamp<'_>> {
    positions(line, from, to).find_map(|i| match_at(line, i, format))
}

/// The positions a time may start at: a digit or an ASCII letter (a
/// month's name), from `from` to `to`.
fn positions(line: &str, from: usize, to: usize) -> impl Iterator<Item = usize> + '_ {
    let b = line.as_bytes();
    let end = (to + 1).min(b.len());
    (from.min(end)..end).filter(move |&i| b[i].is_ascii_digit() || b[i].is_ascii_uppercase())
}

/// A cursor over a line's bytes.
struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cur<'_> {
    /// Exactly `n` digits, as a number.
    fn num(&mut self, n: usize) -> Option<u32> {
        let d = self.b.get(self.i..self.i + n)?;
        if !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.i += n;
        Some(d.iter().fold(0, |a, c| a * 10 + u32::from(c - b'0')))
    }

    /// One or two digits.
    fn num12(&mut self) -> Option<u32> {
        if self.b.get(self.i + 1).is_some_and(u8::is_ascii_digit) {
            self.num(2)
        } else {
            self.num(1)
        }
    }

    /// One of `set`, returned.
    fn one_of(&mut self, set: &[u8]) -> Option<u8> {
        let c = *self.b.get(self.i)?;
        set.contains(&c).then(|| {
            self.i += 1;
            c
        })
    }

    fn eat(&mut self, c: u8) -> bool {
        self.one_of(&[c]).is_some()
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
}

/// Hour, minute, second, and the byte range of the fraction's digits.
type Clock = ((u32, u32, u32), (usize, usize));

/// `HH:mm:ss[.,S]` at the cursor: (h, m, s) and the fraction's range.
fn clock(c: &mut Cur<'_>, seconds: bool) -> Option<Clock> {
    let h = c.num(2).filter(|h| *h <= 24)?;
    if !c.eat(b':') {
        return None;
    }
    let m = c.num(2).filter(|m| *m <= 59)?;
    let s = if c.peek() == Some(b':') {
        c.i += 1;
        c.num(2).filter(|s| *s <= 60)?
    } else if seconds {
        return None;
    } else {
        0
    };
    let mut frac = (c.i, c.i);
    if matches!(c.peek(), Some(b'.' | b',')) && c.b.get(c.i + 1).is_some_and(u8::is_ascii_digit) {
        c.i += 1;
        let from = c.i;
        while c.peek().is_some_and(|d| d.is_ascii_digit()) {
            c.i += 1;
        }
        frac = (from, c.i.min(from + 9));
    }
    Some(((h, m, s), frac))
}

/// An offset attached at the cursor (`Z`, `+08:00`, `+0800`, `+08`), or
/// after one space when four digits follow (`+0800`).
fn offset(c: &mut Cur<'_>) -> Option<(usize, usize)> {
    let from = c.i;
    if c.one_of(b"Zz").is_some() {
        return Some((from, c.i));
    }
    let spaced = c.peek() == Some(b' ');
    let at = c.i + usize::from(spaced);
    let mut d = Cur { b: c.b, i: at };
    d.one_of(b"+-")?;
    d.num(2).filter(|h| *h <= 14)?;
    if d.eat(b':') {
        d.num(2)?;
    } else if d.num(2).is_none() && spaced {
        return None;
    }
    c.i = d.i;
    Some((at, d.i))
}

/// True when byte `i` of `b` may end a time: the end, or no digit or
/// letter (a level or a unit glued on would make it something else).
fn ends(b: &[u8], i: usize) -> bool {
    b.get(i).is_none_or(|c| !c.is_ascii_alphanumeric())
}

/// The format `f` at byte `i` of `line`.
pub(crate) fn match_at(line: &str, i: usize, f: Format) -> Option<Stamp<'_>> {
    let b = line.as_bytes();
    // A time never starts inside a number (and a date never inside a
    // longer date: `2026-12-01` has `12-01` in it).
    if i > 0 && (b[i - 1].is_ascii_digit() || matches!(b[i - 1], b'-' | b'/' | b'.' | b':')) {
        return None;
    }
    let mut c = Cur { b, i };
    let mut st = Stamp {
        format: f,
        start: i,
        end: i,
        year: None,
        month: None,
        day: None,
        hms: (0, 0, 0),
        frac: "",
        offset: None,
        epoch: None,
    };
    let seconds = match f {
        Format::Epoch => return epoch_at(line, i),
        Format::TimeOfDay => true,
        _ => date(&mut c, f, line, &mut st)?,
    };
    let (hms, frac) = clock(&mut c, seconds)?;
    st.hms = hms;
    st.frac = line.get(frac.0..frac.1).unwrap_or("");
    // Digits of a fraction past nine are read but not kept.
    if matches!(f, Format::Iso | Format::DayMonthName) {
        let at = c.i;
        if let Some((a, z)) = offset(&mut c) {
            st.offset = line.get(a..z);
        } else {
            c.i = at;
        }
    }
    if !ends(b, c.i) {
        return None;
    }
    st.end = c.i;
    Some(st)
}

/// Reads the date part of format `f` at the cursor and its separator from
/// the clock, putting its year, month and day on `st`; whether the clock
/// must have seconds. `None` when the date is not there.
fn date(c: &mut Cur<'_>, f: Format, line: &str, st: &mut Stamp<'_>) -> Option<bool> {
    let date_ok = |m: u32, d: u32| (1..=12).contains(&m) && (1..=31).contains(&d);
    let seconds = match f {
        Format::Iso => {
            let y = c.num(4).filter(|y| (1970..=2200).contains(y))?;
            let sep = c.one_of(b"-/")?;
            let m = c.num(2)?;
            c.one_of(&[sep])?;
            let d = c.num(2)?;
            if !date_ok(m, d) {
                return None;
            }
            if !c.eat(b'T') {
                let sp = c.b[c.i..]
                    .iter()
                    .take(2)
                    .take_while(|x| **x == b' ')
                    .count();
                if sp == 0 {
                    return None;
                }
                c.i += sp;
            }
            (st.year, st.month, st.day) = (Some(y as i32), Some(m), Some(d));
            false
        }
        Format::DayMonthName => {
            let d = c.num12()?;
            let sep = c.one_of(b"-/ ")?;
            let m = month_of(line.get(c.i..c.i + 3)?)?;
            c.i += 3;
            c.one_of(&[sep])?;
            let y = c.num(4).filter(|y| (1970..=2200).contains(y))?;
            if c.eat(b':') {
                c.eat(b':');
            } else if !c.eat(b' ') {
                return None;
            }
            if !date_ok(m, d) {
                return None;
            }
            (st.year, st.month, st.day) = (Some(y as i32), Some(m), Some(d));
            true
        }
        Format::MonthNameDay => {
            let m = month_of(line.get(c.i..c.i + 3)?)?;
            c.i += 3;
            if !c.eat(b' ') {
                return None;
            }
            c.eat(b' ');
            let d = c.num12()?;
            if !c.eat(b' ') || !date_ok(m, d) {
                return None;
            }
            (st.month, st.day) = (Some(m), Some(d));
            true
        }
        Format::MonthDay | Format::MonthDayFused => {
            let m = c.num(2)?;
            if f == Format::MonthDay {
                c.one_of(b"-/")?;
            }
            let d = c.num(2)?;
            if f == Format::MonthDay {
                c.one_of(b" |T")?;
            } else if !c.eat(b' ') {
                return None;
            }
            if !date_ok(m, d) {
                return None;
            }
            (st.month, st.day) = (Some(m), Some(d));
            true
        }
        Format::Epoch | Format::TimeOfDay => true,
    };
    Some(seconds)
}

/// An epoch number at `i`: 10 digits (seconds, a fraction allowed), 13
/// (ms), 16 (µs) or 19 (ns), from 2000-01-01 to 2100-01-01, neither
/// starting nor ending inside a word.
fn epoch_at(line: &str, i: usize) -> Option<Stamp<'_>> {
    let b = line.as_bytes();
    if i > 0 && b[i - 1].is_ascii_alphanumeric() {
        return None;
    }
    let n = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let secs: u64 = line.get(i..i + 10)?.parse().ok()?;
    if !(946_684_800..4_102_444_800).contains(&secs) || ![10, 13, 16, 19].contains(&n) {
        return None;
    }
    let mut end = i + n;
    if n == 10 && b.get(end) == Some(&b'.') {
        let f = b[end + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if f > 0 {
            end += 1 + f;
        }
    }
    if !ends(b, end) {
        return None;
    }
    Some(Stamp {
        format: Format::Epoch,
        start: i,
        end,
        year: None,
        month: None,
        day: None,
        hms: (0, 0, 0),
        frac: "",
        offset: None,
        epoch: line.get(i..end),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(line: &str) -> Option<(Format, &str, String, String)> {
        let s = find_any(line)?;
        Some((s.format, &line[..s.start], s.normalized(), s.pattern(line)))
    }

    #[test]
    fn the_bank_finds_each_layouts_time_and_what_stands_before_it() {
        // go-ethereum log/format.go: level, then `[01-02|15:04:05.000]`.
        assert_eq!(
            found("INFO [12-01|07:06:55.000] lock taken  k=v"),
            Some((
                Format::MonthDay,
                "INFO [",
                "--12-01 07:06:55.000".into(),
                "MM-dd|HH:mm:ss.SSS".into()
            ))
        );
        // Android logcat threadtime.
        let f = found("12-01 07:06:55.100  4242  4251 I LockService: x").expect("logcat");
        assert_eq!(
            (f.0, f.1, f.2.as_str()),
            (Format::MonthDay, "", "--12-01 07:06:55.100")
        );
        // glog: the level letter fused to a date without a year.
        let f = found("I1201 07:06:55.123456    4242 lock.go:88] x").expect("glog");
        assert_eq!(
            (f.0, f.1, f.3.as_str()),
            (Format::MonthDayFused, "I", "MMdd HH:mm:ss.SSSSSS")
        );
        // Erlang error_logger's legacy header.
        let f = found("=INFO REPORT==== 1-Dec-2026::07:06:55.100000 ===").expect("erlang");
        assert_eq!(
            (f.0, f.1, f.2.as_str()),
            (
                Format::DayMonthName,
                "=INFO REPORT==== ",
                "2026-12-01 07:06:55.100000"
            )
        );
        // The time after the logger.
        let f = found("c.e.LockService 2026-12-01 07:06:55.000 INFO  [main] - x").expect("iso");
        assert_eq!((f.0, f.1), (Format::Iso, "c.e.LockService "));
        // Offsets, a comma before the fraction, a time of day alone.
        assert_eq!(
            found("2026-12-01T07:06:55,123+08:00 x").map(|f| f.2),
            Some("2026-12-01 07:06:55.123+08:00".into())
        );
        assert_eq!(
            found("[01/Dec/2026:07:06:55 +0800] GET").map(|f| (f.2, f.3)),
            Some((
                "2026-12-01 07:06:55+0800".into(),
                "dd/MMM/yyyy:HH:mm:ss XX".into()
            ))
        );
        assert_eq!(
            found("07:06:55.000 [exec-4] INFO x").map(|f| (f.0, f.2)),
            Some((Format::TimeOfDay, "T07:06:55.000".into()))
        );
        assert_eq!(
            found("Dec  1 07:06:55 web-01 app: x").map(|f| (f.0, f.2)),
            Some((Format::MonthNameDay, "--12-01 07:06:55".into()))
        );
        assert_eq!(
            found("ts 1764544015.123 lock").map(|f| (f.0, f.2, f.3)),
            Some((
                Format::Epoch,
                "1764544015.123".into(),
                "epoch seconds".into()
            ))
        );
    }

    #[test]
    fn numbers_that_are_no_time_are_passed_over() {
        assert_eq!(found("order 12345 took 7 ms"), None);
        // A date that is none leaves the time of day alone.
        assert_eq!(
            found("port 2026-99-01 07:06:55").map(|f| f.0),
            Some(Format::TimeOfDay)
        );
        assert_eq!(found("v1.12:30:00"), None);
        assert_eq!(found("id 17645440151234567890"), None);
        assert_eq!(found("2026-12-01x"), None);
        // A time is found past the first byte only within the lookahead.
        let far = format!("{} 2026-12-01 07:06:55", "x".repeat(LOOKAHEAD + 5));
        assert_eq!(found(&far), None);
        // Nothing panics on odd text.
        for l in [
            "",
            "1",
            "12-",
            "Dec",
            "Dec 1",
            "99:99:99",
            "é12-01 07:06:55",
            "2026-12-01T",
        ] {
            let _ = found(l);
        }
    }
}

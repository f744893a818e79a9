//! A file's time layout learned once a minute: the reading plan's time
//! parse. A log writes every time in one layout (`2026-11-29T16:10:39.627+08:00`),
//! and lines of the same minute share everything but the seconds and their
//! fraction; so the general parser reads the first time of a minute, and
//! the others of that minute are the minute's start plus their seconds,
//! read at fixed places. The memo only takes what it has checked: a layout
//! it learned by parsing the minute's start itself and finding the time it
//! was given exactly that start plus its seconds.

use super::time::{TimeOrigin, TzSpec, parse_time_detail};

/// Longest time text the memo keeps, bytes (RFC 3339 with nanoseconds and
/// an offset is 35).
const MAX_LEN: usize = 48;

/// Where the seconds start in a dated layout (`YYYY-MM-DD?HH:MM:SS`).
const SEC: usize = 17;

/// The last minute learned: its text, where its fraction ends, the time of
/// its start (ns) and how its times are anchored.
#[derive(Clone, Debug, Default)]
pub(crate) struct TimeMemo {
    text: Vec<u8>,
    /// End of the fraction's digits (`SEC + 2` when there is none).
    frac_end: usize,
    /// The minute's start, ns since the epoch.
    base_ns: i64,
    /// ns in one unit of the fraction's last digit (10^(9 - digits)).
    frac_scale: i64,
    origin: Option<TimeOrigin>,
}

/// The seconds of a dated layout's time in ns (`SS` or `SS.f{1,9}`, the
/// fraction after `.`): the two digits at [`SEC`], then the fraction up to
/// `frac_end`. `None` when they are not digits or the seconds are over 59.
fn seconds_ns(b: &[u8], frac_end: usize) -> Option<i64> {
    let digit = |i: usize| {
        b.get(i)
            .filter(|d| d.is_ascii_digit())
            .map(|d| i64::from(d - b'0'))
    };
    let sec = digit(SEC)? * 10 + digit(SEC + 1)?;
    if sec > 59 {
        return None;
    }
    let mut frac = 0i64;
    let digits = frac_end.saturating_sub(SEC + 3);
    for i in SEC + 3..frac_end {
        frac = frac * 10 + digit(i)?;
    }
    Some(sec * 1_000_000_000 + frac * 10i64.pow(9 - digits as u32))
}

/// The end of the fraction's digits in a dated layout (`YYYY-MM-DD?HH:MM:SS`
/// then `.` and 1 to 9 digits, or nothing of that), `None` for any other
/// text (a time of day, a month name, an epoch number, ten or more digits
/// of a fraction).
fn dated_layout(b: &[u8]) -> Option<usize> {
    let shape = b.len() >= SEC + 2
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && b[13] == b':'
        && b[16] == b':';
    if !shape {
        return None;
    }
    if b.get(SEC + 2) != Some(&b'.') {
        return Some(SEC + 2);
    }
    let digits = b[SEC + 3..]
        .iter()
        .take_while(|d| d.is_ascii_digit())
        .count();
    (1..=9).contains(&digits).then_some(SEC + 3 + digits)
}

impl TimeMemo {
    /// The time of `text` when it is in the minute and layout learned last:
    /// the same bytes but for the seconds and the fraction's digits.
    pub fn read(&self, text: &str) -> Option<(i64, TimeOrigin)> {
        let b = text.as_bytes();
        let m = &self.text;
        // The date and minute compared as one 17-byte array (no call).
        if b.len() != m.len()
            || b.first_chunk::<SEC>() != m.first_chunk::<SEC>()
            || b.get(self.frac_end..) != m.get(self.frac_end..)
        {
            return None;
        }
        if self.frac_end > SEC + 2 && b[SEC + 2] != b'.' {
            return None;
        }
        let digit = |i: usize| {
            let d = b[i].wrapping_sub(b'0');
            (d < 10).then_some(i64::from(d))
        };
        let sec = digit(SEC)? * 10 + digit(SEC + 1)?;
        if sec > 59 {
            return None;
        }
        let mut frac = 0i64;
        for i in SEC + 3..self.frac_end {
            frac = frac * 10 + digit(i)?;
        }
        let ns = self.base_ns + sec * 1_000_000_000 + frac * self.frac_scale;
        Some((ns, self.origin?))
    }

    /// Learns the minute and layout of `text`, whose time the general
    /// parser gave as `parsed`, when the text is a dated layout and the
    /// general parser, on the same text with the seconds and fraction made
    /// zero, gives the minute's start that `parsed` is its seconds after,
    /// anchored the same way. Otherwise the memo forgets what it knew
    /// (every time is then read by the general parser).
    pub fn learn(&mut self, text: &str, parsed: (i64, TimeOrigin), tz: Option<&TzSpec>) {
        self.origin = None;
        let b = text.as_bytes();
        let Some(frac_end) = dated_layout(b).filter(|_| b.len() <= MAX_LEN) else {
            return;
        };
        let Some(sec_ns) = seconds_ns(b, frac_end) else {
            return;
        };
        let mut zero = b.to_vec();
        zero[SEC] = b'0';
        zero[SEC + 1] = b'0';
        if let Some(frac) = zero.get_mut(SEC + 3..frac_end) {
            frac.fill(b'0');
        }
        let Ok(zero) = String::from_utf8(zero) else {
            return;
        };
        let Ok((base_ns, origin)) = parse_time_detail(&zero, tz) else {
            return;
        };
        if origin != parsed.1 || base_ns.checked_add(sec_ns) != Some(parsed.0) {
            return;
        }
        self.text.clear();
        self.text.extend_from_slice(b);
        self.frac_end = frac_end;
        self.base_ns = base_ns;
        self.frac_scale = 10i64.pow(9 - frac_end.saturating_sub(SEC + 3) as u32);
        self.origin = Some(origin);
    }

    /// The layout learned last, as a pattern (`YYYY-MM-DDTHH:MM:SS.fff+08:00`:
    /// the date and the minute's digits as letters, the rest as written),
    /// `None` before one is learned.
    pub fn layout(&self) -> Option<String> {
        self.origin?;
        let mut out = String::from_utf8_lossy(&self.text[..SEC]).into_owned();
        let letters = "YYYY-MM-DD?HH:MM:".as_bytes();
        out = out
            .bytes()
            .zip(letters)
            .map(|(c, l)| {
                if c.is_ascii_digit() {
                    *l as char
                } else {
                    c as char
                }
            })
            .collect();
        out.push_str("SS");
        if self.frac_end > SEC + 2 {
            out.push('.');
            out.push_str(&"f".repeat(self.frac_end - SEC - 3));
        }
        out.push_str(&String::from_utf8_lossy(&self.text[self.frac_end..]));
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn general(text: &str, tz: Option<&TzSpec>) -> Option<(i64, TimeOrigin)> {
        parse_time_detail(text, tz).ok()
    }

    /// Reads each text by the memo when it can, else by the general parser
    /// (then learning from it), as the reading plan does.
    fn by_memo(texts: &[String], tz: Option<&TzSpec>) -> Vec<Option<(i64, TimeOrigin)>> {
        let mut memo = TimeMemo::default();
        texts
            .iter()
            .map(|t| match memo.read(t) {
                Some(p) => Some(p),
                None => {
                    let p = general(t, tz)?;
                    memo.learn(t, p, tz);
                    Some(p)
                }
            })
            .collect()
    }

    #[test]
    fn times_of_one_minute_are_read_at_fixed_places() {
        let mut memo = TimeMemo::default();
        let first = "2026-11-29T16:10:39.627+08:00";
        memo.learn(first, general(first, None).expect("a time"), None);
        assert_eq!(
            memo.layout().as_deref(),
            Some("YYYY-MM-DDTHH:MM:SS.fff+08:00")
        );
        let next = "2026-11-29T16:10:41.005+08:00";
        assert_eq!(memo.read(next), general(next, None));
        // Another minute, another offset, another length: the general parser.
        for other in [
            "2026-11-29T16:11:41.005+08:00",
            "2026-11-29T16:10:41.005+09:00",
            "2026-11-29T16:10:41.0050+08:00",
            "2026-11-29T16:10:41,005+08:00",
            "2026-11-29T16:10:60.005+08:00",
        ] {
            assert_eq!(memo.read(other), None, "{other}");
        }
    }

    #[test]
    fn a_text_the_general_parser_reads_another_way_is_not_learned() {
        let mut memo = TimeMemo::default();
        // An epoch number and a time of day are no dated layout.
        for t in ["1764403839.627", "16:10:39.627"] {
            memo.learn(t, (1, TimeOrigin::Epoch), None);
            assert_eq!(memo.layout(), None, "{t}");
        }
        // A given time that is not the minute's start plus its seconds.
        let t = "2026-11-29T16:10:39.627Z";
        let (ns, o) = general(t, None).expect("a time");
        memo.learn(t, (ns + 1, o), None);
        assert_eq!(memo.read("2026-11-29T16:10:40.000Z"), None);
    }

    fn layouts() -> impl Strategy<Value = String> {
        let year = prop_oneof![
            Just(1969u32),
            Just(1970),
            2024u32..2027,
            Just(2200),
            Just(2201)
        ];
        let sep = prop_oneof![Just('T'), Just(' '), Just('t')];
        let frac = prop_oneof![
            Just(String::new()),
            "\\.[0-9]{1,10}".prop_map(|s| s),
            Just(",123".to_string())
        ];
        let off = prop_oneof![
            Just("Z".to_string()),
            Just("+08:00".to_string()),
            Just("-0530".to_string()),
            Just(String::new()),
            Just(" UTC".to_string()),
            Just("+08:00 ".to_string())
        ];
        (
            year,
            1u32..13,
            27u32..32,
            sep,
            22u32..24,
            58u32..60,
            0u32..62,
            frac,
            off,
        )
            .prop_map(|(y, mo, d, sep, h, mi, s, f, o)| {
                format!("{y:04}-{mo:02}-{d:02}{sep}{h:02}:{mi:02}:{s:02}{f}{o}")
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Any run of times, read through the memo, gives what the general
        /// parser gives for each (errors included), in UTC and in a zone.
        #[test]
        fn the_memo_reads_as_the_general_parser(
            texts in proptest::collection::vec(layouts(), 1..40),
            zone in 0usize..3,
        ) {
            let tz = [None, Some("Asia/Shanghai"), Some("America/New_York")][zone]
                .map(|z| super::super::time::parse_tz(z).expect("a zone"));
            let tz = tz.as_ref();
            let want: Vec<_> = texts.iter().map(|t| general(t, tz)).collect();
            prop_assert_eq!(by_memo(&texts, tz), want);
        }
    }
}

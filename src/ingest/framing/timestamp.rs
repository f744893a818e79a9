//! The time a line starts with: how long a date-time at the start of a
//! text is ([`time_len`]), the same in brackets, with an offset or a level
//! inside them ([`take_time`]), and the words after it ([`word`]). Headers
//! (`header.rs`), text layouts and CSV headers all find a line's time here.

use crate::ingest::vocabulary::message::is_level;

/// Length of a date-time at the start of `s`: `YYYY-MM-DD` or `YYYY/MM/DD`,
/// then `T` or spaces and `HH:MM[:SS[.,fraction]]`, then an optional `Z` or
/// numeric offset directly attached. Also a bare `HH:MM:SS[.,fraction]`
/// (time of day only; the second value is then true).
pub(crate) fn time_len(s: &str) -> Option<(usize, bool)> {
    let b = s.as_bytes();
    let digits =
        |i: usize, n: usize| i + n <= b.len() && b[i..i + n].iter().all(u8::is_ascii_digit);
    let mut i;
    let mut time_only = false;
    if digits(0, 4) && b.len() >= 10 && matches!(b[4], b'-' | b'/') && b[7] == b[4] {
        if !(digits(5, 2) && digits(8, 2)) {
            return None;
        }
        i = 10;
        let mut j = i;
        if j < b.len() && b[j] == b'T' {
            j += 1;
        } else {
            while j < b.len() && b[j] == b' ' && j < i + 2 {
                j += 1;
            }
        }
        if j > i && digits(j, 2) && b.get(j + 2) == Some(&b':') && digits(j + 3, 2) {
            i = j + 5;
        } else {
            // A date alone is no line's time.
            return None;
        }
    } else if digits(0, 2) && b.get(2) == Some(&b':') && digits(3, 2) && b.get(5) == Some(&b':') {
        i = 5;
        time_only = true;
    } else {
        return None;
    }
    if b.get(i) == Some(&b':') && digits(i + 1, 2) {
        i += 3;
        if matches!(b.get(i), Some(b'.' | b',')) && digits(i + 1, 1) {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    } else if time_only {
        return None;
    }
    if time_only {
        return Some((i, true));
    }
    match b.get(i) {
        Some(b'Z' | b'z') => i += 1,
        Some(b'+' | b'-') if digits(i + 1, 2) => {
            let mut j = i + 3;
            if b.get(j) == Some(&b':') && digits(j + 1, 2) {
                j += 3;
            } else if digits(j, 2) {
                j += 2;
            }
            i = j;
        }
        _ => {}
    }
    // A time ends at a space, a bracket or the end of the line.
    match b.get(i) {
        // Not a comma: a time followed by one is a CSV cell.
        None | Some(b' ' | b'\t' | b']' | b'|') => Some((i, false)),
        _ => None,
    }
}

/// A time at the start of `s`, optionally in brackets: (time, rest, time only).
pub(crate) fn take_time(s: &str) -> Option<(&str, &str, bool)> {
    if let Some(inner) = s.strip_prefix('[') {
        let (n, only) = time_len(inner)?;
        let after = &inner[n..];
        if let Some(rest) = after.strip_prefix(']') {
            return Some((&inner[..n], rest, only));
        }
        // gunicorn's `[%Y-%m-%d %H:%M:%S %z]` (its default
        // `--access-logformat`/error log `datefmt`): the offset after a
        // space.
        let k = space_offset_len(after);
        if k > 0
            && let Some(rest) = after[k..].strip_prefix(']')
        {
            return Some((&inner[..n + k], rest, only));
        }
        // Rust env_logger's default `[TIME LEVEL target] message`: the
        // level (and the target) inside the bracket; without this such a
        // log reads as having no time field.
        let close = after.find(']')?;
        let level = after[..close].split_whitespace().next();
        return (after.starts_with(' ') && level.is_some_and(is_level))
            .then(|| (&inner[..n], &after[close + 1..], only));
    }
    let (n, only) = time_len(s)?;
    Some((&s[..n], &s[n..], only))
}

/// The length of ` +hhmm`, ` -hhmm` or ` +hh:mm` at the start of `s`, 0
/// when there is none.
fn space_offset_len(s: &str) -> usize {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if b.len() < 6 || b[0] != b' ' || !matches!(b[1], b'+' | b'-') || !digits(2..4) {
        return 0;
    }
    if digits(4..6) {
        6
    } else if b.get(4) == Some(&b':') && digits(5..7) {
        7
    } else {
        0
    }
}

/// Splits off the first space-separated word of `s` (after leading spaces).
pub(crate) fn word(s: &str) -> (&str, &str) {
    let s = s.trim_start_matches([' ', '\t']);
    let end = s.find([' ', '\t']).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(time_len("2026-12-01 07:06:55.100  INFO"), Some((23, false)));
        assert_eq!(
            time_len("2026-12-01T07:06:55.100+08:00 x"),
            Some((29, false))
        );
        assert_eq!(time_len("2026-12-01T07:06:55+0800 x"), Some((24, false)));
        assert_eq!(time_len("07:06:55.100 [x]"), Some((12, true)));
        assert_eq!(time_len("2026-12-01x"), None);
        assert_eq!(time_len("hello"), None);
    }
}

//! Timestamp parsing for every dialect: RFC 3339 / ISO-8601 with any offset,
//! naive local times read in a chosen zone, and epoch numbers in s, ms, µs or
//! ns told apart by magnitude. Results are `i64` nanoseconds since the Unix
//! epoch, UTC; nothing here panics on any input (all arithmetic is checked).
//! The zone of times without an offset ([`TzSpec`]) is given here too.

use std::str::FromStr;

use chrono::{FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeZone};

use crate::ingest::error::IngestError;

/// A time zone for naive timestamps: a fixed offset or an IANA zone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TzSpec {
    /// A fixed offset such as `+08:00`.
    Fixed(FixedOffset),
    /// An IANA zone such as `Asia/Shanghai` (daylight saving applied).
    Named(chrono_tz::Tz),
}

impl TzSpec {
    /// The zone's offset from UTC in seconds at `at_ns` (ns since the epoch).
    pub fn offset_at(&self, at_ns: i64) -> i32 {
        match self {
            TzSpec::Fixed(f) => f.local_minus_utc(),
            TzSpec::Named(z) => z.timestamp_nanos(at_ns).offset().fix().local_minus_utc(),
        }
    }
}

/// Parses `+08:00`, `+0800`, `-05`, `Z`, `UTC`, `GMT`, `UTC+8`, or an IANA
/// name (`Asia/Shanghai`).
///
/// # Errors
/// [`IngestError::BadTz`] naming the text.
pub fn parse_tz(s: &str) -> Result<TzSpec, IngestError> {
    let t = s.trim();
    let bad = || IngestError::BadTz(s.to_string());
    if matches!(t, "Z" | "z" | "UTC" | "utc" | "GMT") {
        return Ok(TzSpec::Fixed(FixedOffset::east_opt(0).ok_or_else(bad)?));
    }
    let signed = t
        .strip_prefix("UTC")
        .or_else(|| t.strip_prefix("GMT"))
        .unwrap_or(t);
    if let Some(sign) = signed.chars().next().filter(|c| *c == '+' || *c == '-') {
        let body = &signed[1..];
        let (h, m) = match body.split_once(':') {
            Some((h, m)) => (h, m),
            None if body.len() == 4 && body.is_char_boundary(2) => body.split_at(2),
            None => (body, "0"),
        };
        let h: i32 = h.parse().map_err(|_| bad())?;
        let m: i32 = m.parse().map_err(|_| bad())?;
        if !(0..=23).contains(&h) || !(0..=59).contains(&m) {
            return Err(bad());
        }
        let secs = (h * 3600 + m * 60) * if sign == '-' { -1 } else { 1 };
        return FixedOffset::east_opt(secs)
            .map(TzSpec::Fixed)
            .ok_or_else(bad);
    }
    chrono_tz::Tz::from_str(t)
        .map(TzSpec::Named)
        .map_err(|_| bad())
}

pub use crate::model::TimeError;

/// How a parsed time was anchored to UTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimeOrigin {
    /// The text carried an explicit offset (seconds east of UTC).
    Explicit(i32),
    /// No offset in the text: read in the `tz` option (or UTC), at this offset.
    Naive(i32),
    /// An epoch number.
    Epoch,
}

/// Parses one time value.
///
/// Accepts `2023-05-20T14:30:12.00136+08:00`, `2025-03-03 10:20:00Z`,
/// `...+0800`, 0 to 9 fractional digits (more are truncated), `Z`/`UTC`/`GMT`
/// suffixes, naive times (read in `tz`, UTC when `None`), and epoch numbers as
/// text (`1725192000000`, `1557817200.000031`, `1.7e9`): integer part below
/// 1e11 is seconds, below 1e14 ms, below 1e17 µs, else ns.
///
/// Returns (ns since the epoch UTC, the explicit UTC offset in seconds when the
/// text had one).
///
/// # Errors
/// [`TimeError`] for unrecognised text, out-of-range values and local times
/// skipped by a daylight-saving change.
pub fn parse_time(value: &str, tz: Option<&TzSpec>) -> Result<(i64, Option<i32>), TimeError> {
    let (ns, origin) = parse_time_detail(value, tz)?;
    let off = match origin {
        TimeOrigin::Explicit(o) => Some(o),
        _ => None,
    };
    Ok((ns, off))
}

/// A parsed time as the analysis takes it: from the Unix epoch on. Times
/// are i64 ns, so any two times from 1970 to 2262 differ by a value an i64
/// holds; a log reaching back to 1677 could hold times 585 years apart,
/// whose difference overflows (lines of 1768 and 2260 in one hold). No
/// lock log is older than the epoch.
///
/// # Errors
/// [`TimeError::OutOfRange`] before 1970-01-01T00:00:00Z.
pub(crate) fn in_range<T>((ns, origin): (i64, T)) -> Result<(i64, T), TimeError> {
    if ns < 0 {
        return Err(TimeError::OutOfRange);
    }
    Ok((ns, origin))
}

/// Like [`parse_time`], also telling how the value was anchored.
pub(crate) fn parse_time_detail(
    value: &str,
    tz: Option<&TzSpec>,
) -> Result<(i64, TimeOrigin), TimeError> {
    parse_any(value, tz).and_then(in_range)
}

/// [`parse_time_detail`] before its range check.
fn parse_any(value: &str, tz: Option<&TzSpec>) -> Result<(i64, TimeOrigin), TimeError> {
    let s = value.trim();
    if s.is_empty() {
        return Err(TimeError::Unrecognised);
    }
    if let Some(parsed) = rfc3339_fast(s) {
        return Ok(parsed);
    }
    if let Some(dec) = Decimal::parse(s) {
        return epoch_ns(&dec).map(|ns| (ns, TimeOrigin::Epoch));
    }
    match parse_iso(s, tz) {
        Err(TimeError::Unrecognised) => match as_iso(s) {
            Some(iso) => parse_iso(&iso, tz),
            None => Err(TimeError::Unrecognised),
        },
        other => other,
    }
}

/// Other ways exports write a local time, as `YYYY-MM-DD HH:MM:SS[.f]`:
/// Kibana Discover's CSV (`Nov 11, 2024 @ 00:00:13.000`, its default
/// `dateFormat` `MMM D, YYYY @ HH:mm:ss.SSS`) and Chinese dates
/// (`2024年11月11日 00:01:00`, also `0时01分00秒`).
fn as_iso(s: &str) -> Option<String> {
    kibana_time(s).or_else(|| chinese_time(s))
}

/// The month (1-12) of an English abbreviation as syslog, Kibana and Go
/// write it (`Jan` ... `Dec`).
pub(crate) fn month_of(abbr: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    MONTHS.iter().position(|m| *m == abbr).map(|i| i as u32 + 1)
}

/// `Mmm D, YYYY @ HH:MM:SS[.f]` (Kibana).
fn kibana_time(s: &str) -> Option<String> {
    let (date, time) = s.split_once(" @ ")?;
    let month = month_of(date.get(..3)?)?;
    let (day, year) = date.get(3..)?.trim().split_once(", ")?;
    let day: u32 = day.trim().parse().ok()?;
    let year: u32 = year.trim().parse().ok()?;
    Some(format!("{year:04}-{month:02}-{day:02} {}", time.trim()))
}

/// `YYYY年M月D日 H:MM:SS[.f]` or `YYYY年M月D日 H时M分S秒`.
fn chinese_time(s: &str) -> Option<String> {
    let (year, rest) = s.split_once('年')?;
    let (month, rest) = rest.split_once('月')?;
    let (day, rest) = rest.split_once('日')?;
    let num = |t: &str| t.trim().parse::<u32>().ok();
    let (year, month, day) = (num(year)?, num(month)?, num(day)?);
    let time = rest.trim().replace(['时', '分'], ":").replace('秒', "");
    let mut parts = time.splitn(3, ':');
    let h = num(parts.next()?)?;
    let m = num(parts.next()?)?;
    let sec = parts.next().unwrap_or("0").trim();
    let (whole, frac) = sec.split_once('.').unwrap_or((sec, ""));
    let whole = whole.parse::<u32>().ok()?;
    let frac = if frac.is_empty() {
        String::new()
    } else {
        format!(".{frac}")
    };
    Some(format!(
        "{year:04}-{month:02}-{day:02} {h:02}:{m:02}:{whole:02}{frac}"
    ))
}

/// The common shape `YYYY-MM-DDTHH:MM:SS[.f{1,9}]` + explicit offset, for
/// valid values in 1970..=2200, computed without chrono. `None` for anything
/// else (other shapes, no offset, invalid or far values): the general parser
/// then decides, errors included, so results are the same either way.
fn rfc3339_fast(s: &str) -> Option<(i64, TimeOrigin)> {
    let b = s.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b.get(r)?.iter().try_fold(0u32, |acc, &d| {
            d.is_ascii_digit().then(|| acc * 10 + u32::from(d - b'0'))
        })
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut i = 19;
    let mut nanos = 0u32;
    if b[i] == b'.' {
        let start = i + 1;
        let mut end = start;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        let n = end - start;
        if n == 0 || n > 9 {
            return None;
        }
        nanos = num(start..end)? * 10u32.pow((9 - n) as u32);
        i = end;
    }
    if !(1970..=2200).contains(&year) || !(1..=12).contains(&month) || h > 23 || mi > 59 || sec > 59
    {
        return None;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let dim = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if day == 0 || day > dim {
        return None;
    }
    let off = parse_offset(b.get(i..)?).ok()??;
    // Days since 1970-01-01 (H. Hinnant's days_from_civil).
    let (y, m, d) = (i64::from(year), i64::from(month), i64::from(day));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + i64::from(h * 3600 + mi * 60 + sec) - i64::from(off);
    Some((
        secs * 1_000_000_000 + i64::from(nanos),
        TimeOrigin::Explicit(off),
    ))
}

/// A decimal number split into sign, integer digits and fraction digits.
struct Decimal {
    negative: bool,
    int: String,
    frac: String,
}

impl Decimal {
    /// Parses `[+-]digits[.digits][e[+-]digits]`; `None` when not a number.
    fn parse(s: &str) -> Option<Decimal> {
        let (negative, rest) = match s.as_bytes().first()? {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let (mant, exp) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let (ip, fp) = match mant.find('.') {
            Some(i) => (&mant[..i], &mant[i + 1..]),
            None => (mant, ""),
        };
        if ip.is_empty() && fp.is_empty() {
            return None;
        }
        if !ip.bytes().all(|b| b.is_ascii_digit()) || !fp.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut digits: String = format!("{ip}{fp}");
        let mut point = ip.len() as i64;
        if let Some(e) = exp {
            let e: i64 = e.parse().ok()?;
            if e.abs() > 40 {
                // Far beyond any time; keep it recognisable as out of range.
                return Some(Decimal {
                    negative,
                    int: if e > 0 { "9".repeat(41) } else { "0".into() },
                    frac: String::new(),
                });
            }
            point += e;
        }
        if point < 0 {
            digits = format!("{}{}", "0".repeat(point.unsigned_abs() as usize), digits);
            point = 0;
        }
        let point = point as usize;
        while digits.len() < point {
            digits.push('0');
        }
        let (int, frac) = digits.split_at(point);
        let int = int.trim_start_matches('0');
        Some(Decimal {
            negative,
            int: int.to_string(),
            frac: frac.to_string(),
        })
    }
}

/// Epoch number to ns, unit chosen by the magnitude of the integer part.
fn epoch_ns(d: &Decimal) -> Result<i64, TimeError> {
    if d.int.len() > 30 {
        return Err(TimeError::OutOfRange);
    }
    let int: i128 = if d.int.is_empty() {
        0
    } else {
        d.int.parse().map_err(|_| TimeError::OutOfRange)?
    };
    let (scale, frac_digits): (i128, usize) = if int < 100_000_000_000 {
        (1_000_000_000, 9)
    } else if int < 100_000_000_000_000 {
        (1_000_000, 6)
    } else if int < 100_000_000_000_000_000 {
        (1_000, 3)
    } else {
        (1, 0)
    };
    let mut frac: i128 = 0;
    for i in 0..frac_digits {
        let digit = d.frac.as_bytes().get(i).map_or(0, |b| i128::from(b - b'0'));
        frac = frac * 10 + digit;
    }
    let total = int
        .checked_mul(scale)
        .and_then(|v| v.checked_add(frac))
        .ok_or(TimeError::OutOfRange)?;
    let total = if d.negative { -total } else { total };
    i64::try_from(total).map_err(|_| TimeError::OutOfRange)
}

/// A small cursor over ASCII bytes.
struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    /// Reads 1..=max digits; returns (value, count).
    fn digits(&mut self, max: usize) -> Option<(u32, usize)> {
        let start = self.i;
        let mut v: u32 = 0;
        while self.i - start < max {
            match self.peek() {
                Some(c) if c.is_ascii_digit() => {
                    v = v * 10 + u32::from(c - b'0');
                    self.i += 1;
                }
                _ => break,
            }
        }
        let n = self.i - start;
        (n > 0).then_some((v, n))
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn skip_spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.i += 1;
        }
    }
    fn rest(&self) -> &[u8] {
        self.b.get(self.i..).unwrap_or(&[])
    }
}

/// Parses an ISO-8601-like date-time.
fn parse_iso(s: &str, tz: Option<&TzSpec>) -> Result<(i64, TimeOrigin), TimeError> {
    let mut c = Cursor {
        b: s.as_bytes(),
        i: 0,
    };
    let bad = TimeError::Unrecognised;
    let (year, n) = c.digits(4).ok_or(bad.clone())?;
    if n != 4 {
        return Err(bad);
    }
    let sep = c.peek().ok_or(bad.clone())?;
    if sep != b'-' && sep != b'/' {
        return Err(bad);
    }
    c.i += 1;
    let (month, _) = c.digits(2).ok_or(bad.clone())?;
    if !c.eat(sep) {
        return Err(bad);
    }
    let (day, _) = c.digits(2).ok_or(bad.clone())?;
    let (mut h, mut mi, mut sec, mut nanos) = (0, 0, 0, 0);
    if matches!(c.peek(), Some(b'T' | b't' | b' ')) {
        let save = c.i;
        c.i += 1;
        c.skip_spaces();
        if let Some((hh, _)) = c.digits(2) {
            h = hh;
            if !c.eat(b':') {
                return Err(bad);
            }
            mi = c.digits(2).ok_or(bad.clone())?.0;
            if c.eat(b':') {
                sec = c.digits(2).ok_or(bad.clone())?.0;
                if c.eat(b'.') || c.eat(b',') {
                    let start = c.i;
                    while matches!(c.peek(), Some(d) if d.is_ascii_digit()) {
                        c.i += 1;
                    }
                    let frac = &c.b[start..c.i];
                    if frac.is_empty() {
                        return Err(bad);
                    }
                    for k in 0..9 {
                        nanos = nanos * 10 + frac.get(k).map_or(0, |d| u32::from(d - b'0'));
                    }
                }
            }
        } else {
            c.i = save;
        }
    }
    c.skip_spaces();
    let offset = parse_offset(c.rest())?;
    let date = NaiveDate::from_ymd_opt(year as i32, month, day).ok_or(bad.clone())?;
    let time = NaiveTime::from_hms_nano_opt(h, mi, sec, nanos).ok_or(bad)?;
    let naive = NaiveDateTime::new(date, time);
    let utc_ns = naive
        .and_utc()
        .timestamp_nanos_opt()
        .ok_or(TimeError::OutOfRange)?;
    match offset {
        Some(off) => {
            let ns = utc_ns
                .checked_sub(i64::from(off) * 1_000_000_000)
                .ok_or(TimeError::OutOfRange)?;
            Ok((ns, TimeOrigin::Explicit(off)))
        }
        None => {
            let (ns, off) = local_to_utc(naive, utc_ns, tz)?;
            Ok((ns, TimeOrigin::Naive(off)))
        }
    }
}

/// The month (1-12) of an RFC 3164 time (`Mmm dd hh:mm:ss`, the day
/// space-padded: `Nov  1 00:00:01`; a fraction allowed, as rsyslog's
/// high-precision variants write) and the rest as `dd hh:mm:ss[.f]`
/// (the day zero-padded), for a year to be put in front. `None` for
/// any other text.
pub(crate) fn rfc3164_parts(text: &str) -> Option<(u32, String)> {
    // A month's name starts with a letter: a digit first (most times) is
    // not one, without the Unicode trim below.
    if text
        .trim_ascii_start()
        .as_bytes()
        .first()
        .is_none_or(u8::is_ascii_digit)
    {
        return None;
    }
    let t = text.trim();
    let month = month_of(t.get(..3)?)?;
    let rest = t.get(3..)?.strip_prefix(' ')?.trim_start();
    let (day, time) = rest.split_once(' ')?;
    let day: u32 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    let b = time.as_bytes();
    let shape = b.len() >= 8
        && b[2] == b':'
        && b[5] == b':'
        && [0, 1, 3, 4, 6, 7].iter().all(|&i| b[i].is_ascii_digit())
        && (b.len() == 8 || (b[8] == b'.' && b.len() > 9 && b[9..].iter().all(u8::is_ascii_digit)));
    shape.then(|| (month, format!("{day:02} {time}")))
}

/// The year for an RFC 3164 time of `month` (rest `dd hh:mm:ss`) read now:
/// this year, unless that puts it more than a day ahead of now (a log of
/// December read in January), then last year.
pub(crate) fn year_not_ahead(month: u32, rest: &str) -> i32 {
    use chrono::Datelike;
    let now = chrono::Utc::now();
    let year = now.year();
    let ahead = format!("{year}-{month:02}-{rest}");
    match parse_time_detail(&ahead, None) {
        Ok((ns, _)) if ns > now.timestamp_nanos_opt().unwrap_or(i64::MAX) + 86_400_000_000_000 => {
            year - 1
        }
        _ => year,
    }
}

/// Parses `value` with a strftime `format` (chrono's syntax, from a mapping
/// file): with an offset in the format (`%z`, `%:z`) the time is explicit,
/// else naive and read in `tz` (UTC when `None`).
///
/// # Errors
/// [`TimeError::Unrecognised`] when `value` does not match `format`.
pub(crate) fn parse_with_format(
    value: &str,
    format: &str,
    tz: Option<&TzSpec>,
) -> Result<(i64, TimeOrigin), TimeError> {
    format_any(value, format, tz).and_then(in_range)
}

/// [`parse_with_format`] before its range check.
fn format_any(
    value: &str,
    format: &str,
    tz: Option<&TzSpec>,
) -> Result<(i64, TimeOrigin), TimeError> {
    let s = value.trim();
    if let Ok(dt) = chrono::DateTime::parse_from_str(s, format) {
        let ns = dt.timestamp_nanos_opt().ok_or(TimeError::OutOfRange)?;
        return Ok((ns, TimeOrigin::Explicit(dt.offset().local_minus_utc())));
    }
    let naive = NaiveDateTime::parse_from_str(s, format).map_err(|_| TimeError::Unrecognised)?;
    let utc_ns = naive
        .and_utc()
        .timestamp_nanos_opt()
        .ok_or(TimeError::OutOfRange)?;
    let (ns, off) = local_to_utc(naive, utc_ns, tz)?;
    Ok((ns, TimeOrigin::Naive(off)))
}

/// Reads a naive date-time in `tz` (UTC when `None`).
fn local_to_utc(
    naive: NaiveDateTime,
    naive_as_utc_ns: i64,
    tz: Option<&TzSpec>,
) -> Result<(i64, i32), TimeError> {
    let off = match tz {
        None => 0,
        Some(TzSpec::Fixed(f)) => f.local_minus_utc(),
        Some(TzSpec::Named(z)) => {
            let dt = z
                .from_local_datetime(&naive)
                .earliest()
                .ok_or(TimeError::NonexistentLocal)?;
            dt.offset().fix().local_minus_utc()
        }
    };
    let ns = naive_as_utc_ns
        .checked_sub(i64::from(off) * 1_000_000_000)
        .ok_or(TimeError::OutOfRange)?;
    Ok((ns, off))
}

/// Parses what follows the time: nothing, `Z`, `UTC`, `GMT`, `+08:00`,
/// `+0800`, `+08`. `Ok(None)` when there is no offset.
fn parse_offset(rest: &[u8]) -> Result<Option<i32>, TimeError> {
    let bad = TimeError::Unrecognised;
    match rest {
        [] => Ok(None),
        b"Z" | b"z" | b"UTC" | b"GMT" => Ok(Some(0)),
        [sign @ (b'+' | b'-'), tail @ ..] => {
            let mut c = Cursor { b: tail, i: 0 };
            let (h, n) = c.digits(2).ok_or(bad.clone())?;
            if n != 2 {
                return Err(bad);
            }
            let m = if c.eat(b':') || c.peek().is_some() {
                let (m, n) = c.digits(2).ok_or(bad.clone())?;
                if n != 2 {
                    return Err(bad);
                }
                m
            } else {
                0
            };
            if !c.rest().is_empty() || h > 23 || m > 59 {
                return Err(bad);
            }
            let off = (h * 3600 + m * 60) as i32;
            Ok(Some(if *sign == b'-' { -off } else { off }))
        }
        _ => Err(bad),
    }
}

/// Notes in `info` how times without an offset were read (with `tz`, else
/// as UTC, which also sets [`SourceInfo::naive_read_as_utc`]).
pub(crate) fn note_naive_times(info: &mut crate::model::SourceInfo, tz: Option<&TzSpec>) {
    let note = match tz {
        Some(TzSpec::Fixed(f)) => crate::model::SourceNote::NaiveTimes {
            offset: Some(f.to_string()),
            zone: None,
        },
        Some(TzSpec::Named(z)) => crate::model::SourceNote::NaiveTimes {
            offset: None,
            zone: Some(z.name().to_string()),
        },
        None => {
            info.naive_read_as_utc = true;
            crate::model::SourceNote::NaiveTimes {
                offset: None,
                zone: None,
            }
        }
    };
    info.notes.push(note);
}

/// True for a bare time of day, the whole of `v`: `HH:MM:SS`, then an
/// optional `.` or `,` and one to nine fraction digits (Log4j2's default
/// `%d{HH:mm:ss.SSS}`). A date is supplied when the record becomes an
/// event.
pub(crate) fn is_clock(v: &str) -> bool {
    let b = v.as_bytes();
    let two = |i: usize| b.len() >= i + 2 && b[i].is_ascii_digit() && b[i + 1].is_ascii_digit();
    if !(two(0) && b.get(2) == Some(&b':') && two(3) && b.get(5) == Some(&b':') && two(6)) {
        return false;
    }
    match &b[8..] {
        [] => true,
        [b'.' | b',', frac @ ..] => {
            (1..=9).contains(&frac.len()) && frac.iter().all(u8::is_ascii_digit)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_clock_is_a_time_of_day_and_nothing_else_is() {
        assert!(is_clock("07:06:55"));
        assert!(is_clock("07:06:55.000"));
        assert!(is_clock("07:06:55,123456789"));
        assert!(!is_clock("07:06:55.000 INFO"));
        assert!(!is_clock("7:06:55"));
        assert!(!is_clock("2026-12-01 07:06:55"));
        assert!(!is_clock("07:06:55.0000000000"));
    }
    use chrono::FixedOffset;

    #[test]
    fn kibana_and_chinese_dates_are_times() {
        assert_eq!(
            ns("Nov 11, 2024 @ 00:00:13.000"),
            ns("2024-11-11T00:00:13Z")
        );
        assert_eq!(
            ns("Dec 1, 2026 @ 07:06:57.123"),
            ns("2026-12-01T07:06:57.123Z")
        );
        assert_eq!(ns("2024年11月11日 00:01:00"), ns("2024-11-11T00:01:00Z"));
        assert_eq!(ns("2024年1月5日 8时05分09秒"), ns("2024-01-05T08:05:09Z"));
        assert_eq!(
            ns("2024年11月11日 00:01:00.250"),
            ns("2024-11-11T00:01:00.250Z")
        );
        for other in [
            "Nov 11 @ 00:00:13",
            "2024年11月 00:01:00",
            "2024年13月1日 00:00:00",
        ] {
            assert!(parse_time(other, None).is_err(), "{other}");
        }
    }

    #[test]
    fn rfc_3164_times_split_into_month_and_the_rest() {
        assert_eq!(
            rfc3164_parts("Nov 11 00:00:01"),
            Some((11, "11 00:00:01".into()))
        );
        assert_eq!(
            rfc3164_parts("Jan  2 23:59:59"),
            Some((1, "02 23:59:59".into()))
        );
        assert_eq!(
            rfc3164_parts("Dec 31 23:59:59.123456"),
            Some((12, "31 23:59:59.123456".into()))
        );
        for other in [
            "Nov 11, 2024",
            "Foo 11 00:00:01",
            "Nov 32 00:00:01",
            "Nov 11 0:00:01",
            "11 Nov 00:00:01",
            "Nov 11 00:00:01 x",
        ] {
            assert_eq!(rfc3164_parts(other), None, "{other}");
        }
    }

    fn ns(s: &str) -> i64 {
        parse_time(s, None).expect("parses").0
    }

    const T0: i64 = 1_684_564_212_001_360_000; // 2023-05-20T06:30:12.00136Z

    #[test]
    fn fast_rfc3339_agrees_with_the_general_parser() {
        for t in [
            "2026-11-29T16:10:39.627+08:00",
            "2026-11-29T16:10:39+08:00",
            "2024-02-29T23:59:59.123456789Z",
            "2000-03-01T00:00:00.1-05:30",
            "1970-01-01T00:00:00Z",
            "2200-12-31T23:59:59.999+0800",
            "2199-01-01T12:00:00.5+08",
        ] {
            let fast = rfc3339_fast(t).expect(t);
            let general = parse_iso(t, None).expect(t);
            assert_eq!(fast, general, "{t}");
        }
        for t in [
            "2023-02-29T00:00:00Z",
            "2026-11-29T24:00:00Z",
            "2026-11-29T16:10:60Z",
            "2026-11-29T16:10:39",
            "2026-11-29T16:10:39 +08:00",
            "2026-11-29T16:10:39.1234567890Z",
            "1969-12-31T23:59:59Z",
            "2026-11-29T16:10:39+25:00",
        ] {
            assert!(rfc3339_fast(t).is_none(), "{t}");
        }
    }

    #[test]
    fn rfc3339_offsets_and_fractions() {
        assert_eq!(
            parse_time("2023-05-20T14:30:12.00136+08:00", None),
            Ok((T0, Some(8 * 3600)))
        );
        assert_eq!(ns("2023-05-20T06:30:12.00136Z"), T0);
        assert_eq!(ns("2023-05-20 14:30:12.001360+0800"), T0);
        assert_eq!(ns("2023-05-20T14:30:12.001360000+08"), T0);
        assert_eq!(ns("2023-05-20T06:30:12.0013600009Z"), T0); // 10 digits truncated
        assert_eq!(
            parse_time("2023-05-20T01:30:12-05:00", None).map(|r| r.1),
            Ok(Some(-5 * 3600))
        );
        assert_eq!(ns("2023-05-20T06:30:12Z"), T0 - 1_360_000);
        assert_eq!(ns("2023-05-20T06:30:12,5Z"), T0 - 1_360_000 + 500_000_000);
        assert_eq!(ns("2023-05-20 06:30:12 UTC"), T0 - 1_360_000);
    }

    #[test]
    fn naive_times_use_tz() {
        let plus8 = TzSpec::Fixed(FixedOffset::east_opt(8 * 3600).expect("offset"));
        assert_eq!(
            parse_time("2023-05-20 14:30:12.001360", Some(&plus8)),
            Ok((T0, None))
        );
        let sh = TzSpec::Named(chrono_tz::Asia::Shanghai);
        assert_eq!(
            parse_time("2023-05-20 14:30:12.00136", Some(&sh)),
            Ok((T0, None))
        );
        assert_eq!(ns("2023-05-20 06:30:12.00136"), T0);
        assert_eq!(
            parse_time_detail("2023-05-20 14:30:12.00136", Some(&sh)).map(|r| r.1),
            Ok(TimeOrigin::Naive(8 * 3600))
        );
        // 02:30 does not exist in New York on 2024-03-10.
        let ny = TzSpec::Named(chrono_tz::America::New_York);
        assert_eq!(
            parse_time("2024-03-10 02:30:00", Some(&ny)),
            Err(TimeError::NonexistentLocal)
        );
    }

    #[test]
    fn epoch_magnitudes() {
        assert_eq!(ns("1725192000"), 1_725_192_000_000_000_000);
        assert_eq!(ns("1725192000000"), 1_725_192_000_000_000_000);
        assert_eq!(ns("1725192000000000"), 1_725_192_000_000_000_000);
        assert_eq!(ns("1725192000000000000"), 1_725_192_000_000_000_000);
        assert_eq!(ns("1557817200.000031"), 1_557_817_200_000_031_000);
        assert_eq!(ns("1725192000123.5"), 1_725_192_000_123_500_000);
        assert_eq!(ns("1.725192e9"), 1_725_192_000_000_000_000);
        assert_eq!(ns("0"), 0);
    }

    #[test]
    fn times_before_the_epoch_are_out_of_range_so_no_two_differ_past_an_i64() {
        assert_eq!(parse_time("1970-01-01T00:00:00Z", None), Ok((0, Some(0))));
        for s in [
            "1969-12-31T23:59:59.999Z",
            "1768-12-01 07:06:55.100",
            "-1",
            "-1.5e9",
        ] {
            assert_eq!(parse_time(s, None), Err(TimeError::OutOfRange), "{s}");
        }
        assert_eq!(
            parse_with_format("01/12/1768 07:06", "%d/%m/%Y %H:%M", None),
            Err(TimeError::OutOfRange)
        );
        // The latest time an i64 holds less the earliest allowed fits.
        let (last, _) = parse_time("2262-04-11T23:47:16Z", None).expect("in range");
        assert!(last.checked_sub(0).is_some() && last > 0);
    }

    #[test]
    fn absurd_values_are_errors_not_panics() {
        assert_eq!(parse_time("1e400", None), Err(TimeError::OutOfRange));
        assert_eq!(
            parse_time("99999999999999999999999999", None),
            Err(TimeError::OutOfRange)
        );
        assert_eq!(
            parse_time("9999-12-31T23:59:59Z", None),
            Err(TimeError::OutOfRange)
        );
        for s in [
            "NaN",
            "yesterday",
            "",
            "2023-13-01T00:00:00Z",
            "2023-05-20T25:00:00Z",
            "2023-05-20T10:00:00+99:00",
            "2023-05-20T10:00:00 nonsense",
            "--1",
            ".",
            "1e",
            "2023-05-20T",
        ] {
            assert!(parse_time(s, None).is_err(), "{s}");
        }
        assert!(parse_time("2023-05-20", None).is_ok());
    }
}

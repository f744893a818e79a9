//! Durations written as text by the runtimes, for TTL and elapsed fields:
//! ISO 8601 (`PT2S`, Java's `Duration.toString()`), clock form (`00:00:02`,
//! .NET's `TimeSpan`, which Serilog writes with `ToString()`; `0:00:02.5`,
//! Python's `str(timedelta)`), and sums of a number and a unit (`1m30s`,
//! Go's `time.Duration.String()`; `1m 30s`; `2s`; `500毫秒`). Each unread
//! would be no TTL, a false `no_ttl`.

/// Milliseconds in one of a duration's units, or `None` for a word that is
/// no unit. Months and years (`P1M`) are no lock's TTL and not read.
fn unit_ms(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" | "纳秒" => 1e-6,
        "us" | "µs" | "μs" | "微秒" => 1e-3,
        "ms" | "msec" | "msecs" | "millis" | "毫秒" => 1.0,
        "s" | "sec" | "secs" | "second" | "seconds" | "秒" => 1e3,
        "m" | "min" | "mins" | "minute" | "minutes" | "分钟" | "分" => 6e4,
        "h" | "hr" | "hrs" | "hour" | "hours" | "小时" => 3.6e6,
        "d" | "day" | "days" | "天" => 8.64e7,
        _ => return None,
    })
}

/// A duration in ms from text: [`iso_ms`], [`clock_ms`] or [`sum_ms`].
/// `None` when the text is none of them (a bare number is the caller's).
pub(crate) fn text_duration_ms(s: &str) -> Option<f64> {
    let s = s.trim();
    iso_ms(s)
        .or_else(|| clock_ms(s))
        .or_else(|| sum_ms(s))
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
}

/// ISO 8601 durations of days and times: `PT2S`, `PT1M30.5S`, `P1DT2H`
/// (case-insensitive; weeks `P2W`). Years and months are not read.
fn iso_ms(s: &str) -> Option<f64> {
    let rest = s.strip_prefix(['P', 'p'])?;
    let (date, time) = match rest.find(['T', 't']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let mut ms = 0.0;
    let mut any = false;
    for (part, units) in [
        (date, &[('D', 8.64e7), ('W', 6.048e8)][..]),
        (
            time.unwrap_or(""),
            &[('H', 3.6e6), ('M', 6e4), ('S', 1e3)][..],
        ),
    ] {
        let mut num = String::new();
        for c in part.chars() {
            if c.is_ascii_digit() || c == '.' || c == ',' {
                num.push(if c == ',' { '.' } else { c });
                continue;
            }
            let (_, f) = units.iter().find(|(u, _)| u.eq_ignore_ascii_case(&c))?;
            ms += num.parse::<f64>().ok()? * f;
            num.clear();
            any = true;
        }
        if !num.is_empty() {
            return None;
        }
    }
    if time.is_some_and(str::is_empty) {
        return None;
    }
    any.then_some(ms)
}

/// Clock form `[d.]h:mm:ss[.fraction]` (.NET `TimeSpan`, Python
/// `timedelta`): two colons, whole hours and minutes, seconds with an
/// optional fraction, and a day count before a `.` in .NET's form.
fn clock_ms(s: &str) -> Option<f64> {
    let mut parts = s.split(':');
    let (h, m, sec) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || m.len() != 2 {
        return None;
    }
    let (days, h) = match h.split_once('.') {
        Some((d, h)) => (whole(d)?, h),
        None => (0, h),
    };
    let (h, m) = (whole(h)?, whole(m)?);
    let (sw, frac) = sec.split_once('.').unwrap_or((sec, ""));
    if sw.len() != 2 || m >= 60 || whole(sw)? >= 60 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: f64 = sec.parse().ok()?;
    // In f64: a day count of 20 digits overflows u64 arithmetic.
    let minutes = (days as f64 * 24.0 + h as f64) * 60.0 + m as f64;
    Some(minutes * 6e4 + secs * 1e3)
}

/// A run of ASCII digits as a number.
fn whole(s: &str) -> Option<u64> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A sum of numbers with units, spaces allowed between them: `1m30s`,
/// `1h2m3.5s`, `1m 30s`, `2s`, `2 seconds`, `1.5µs`, `30秒`, `1分30秒`.
fn sum_ms(s: &str) -> Option<f64> {
    let mut ms = 0.0;
    let mut rest = s;
    let mut any = false;
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num: f64 = rest[..n].parse().ok()?;
        let after = rest[n..].trim_start();
        let u = after
            .find(|c: char| c.is_ascii_digit() || c.is_whitespace())
            .unwrap_or(after.len());
        ms += num * unit_ms(&after[..u].to_lowercase())?;
        any = true;
        rest = after[u..].trim_start();
    }
    any.then_some(ms)
}

#[cfg(test)]
mod tests {
    use super::text_duration_ms as d;

    /// A clock-form TTL with a huge day count is huge, never wrapped to
    /// a few seconds.
    #[test]
    fn a_huge_day_count_never_wraps() {
        let ms = d("99999999999999999.00:00:02").expect("read");
        assert!(ms > 8.6e21, "{ms}");
        let ms = d("18446744073709551615.23:59:59").expect("read");
        assert!(ms > 1.5e27, "{ms}");
    }

    #[test]
    fn the_runtimes_durations_read_in_ms() {
        for (text, ms) in [
            // Java `Duration.toString()`, ISO 8601.
            ("PT2S", 2000.0),
            ("PT1M30.5S", 90_500.0),
            ("PT0.25S", 250.0),
            ("P1DT2H", 93_600_000.0),
            // .NET `TimeSpan.ToString()` (Serilog's CLEF).
            ("00:00:02", 2000.0),
            ("00:00:02.5000000", 2500.0),
            ("1.02:00:00", 93_600_000.0),
            // Python `str(timedelta)`.
            ("0:00:02", 2000.0),
            ("0:00:30.250000", 30_250.0),
            // Go `time.Duration.String()` and friends.
            ("1m30s", 90_000.0),
            ("1h2m3.5s", 3_723_500.0),
            ("2s", 2000.0),
            ("1.5ms", 1.5),
            ("1m 30s", 90_000.0),
            ("2 seconds", 2000.0),
            ("1分30秒", 90_000.0),
            ("500毫秒", 500.0),
        ] {
            assert_eq!(d(text), Some(ms), "{text}");
        }
    }

    #[test]
    fn other_text_is_no_duration() {
        for text in [
            "P1M",
            "PT",
            "P",
            "abc",
            "2",
            "12:3:00",
            "00:60:00",
            "1y",
            "2026-12-05",
            "PT2X",
            "",
            "ms",
        ] {
            assert_eq!(d(text), None, "{text}");
        }
    }
}

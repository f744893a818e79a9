//! Time rendering for the layouts and envelopes: epoch ms to the strings each
//! runtime or service writes (chrono `strftime` patterns).

use chrono::{DateTime, FixedOffset, TimeZone, Utc};

/// The zone a layout that prints an offset uses: Asia/Shanghai (+08:00).
pub const SHANGHAI_S: i32 = 8 * 3600;

fn utc(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms)
        .single()
        .expect("time in range")
}

/// `ms` formatted with `pattern` in UTC.
pub fn utc_fmt(ms: i64, pattern: &str) -> String {
    utc(ms).format(pattern).to_string()
}

/// `ms` formatted with `pattern` at a fixed offset of `offset_s` seconds.
pub fn at_offset(ms: i64, offset_s: i32, pattern: &str) -> String {
    let off = FixedOffset::east_opt(offset_s).expect("offset");
    utc(ms).with_timezone(&off).format(pattern).to_string()
}

/// `2026-11-30T23:06:55.100Z`.
pub fn rfc3339_ms_z(ms: i64) -> String {
    utc_fmt(ms, "%Y-%m-%dT%H:%M:%S%.3fZ")
}

/// Go's `time.RFC3339Nano` (trailing zeros of the fraction trimmed, no
/// fraction when it is zero), at `offset_s`.
pub fn go_rfc3339_nano(ms: i64, offset_s: i32) -> String {
    let frac = ms.rem_euclid(1000);
    let base = at_offset(ms, offset_s, "%Y-%m-%dT%H:%M:%S");
    let zone = if offset_s == 0 {
        "Z".to_string()
    } else {
        at_offset(ms, offset_s, "%:z")
    };
    if frac == 0 {
        return format!("{base}{zone}");
    }
    let digits = format!("{frac:03}");
    format!("{base}.{}{zone}", digits.trim_end_matches('0'))
}

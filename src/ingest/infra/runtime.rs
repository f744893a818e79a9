//! Runtime pause logs: the JVM's unified logging (`-Xlog:gc*,safepoint` with
//! the `time` decoration; JEP 158 and the `java` man page name the
//! decorations), JDK 8's `-XX:+PrintGCDateStamps` GC log and Go's `GODEBUG=gctrace=1` (runtime/extern.go documents
//! the line) after an RFC 3339 time (`kubectl logs --timestamps`).

use std::sync::LazyLock;

use regex::Regex;

use crate::ingest::roles::time::parse_time;
use crate::model::{EvidenceKind, EvidenceOrigin, InfraWarning};

use super::Sink;

/// `GC(12) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(256M) 3.456ms`
/// (the `gc` tag's end-of-pause line; ZGC's `Pause Mark Start 0.012ms` too).
static PAUSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"GC\((\d+)\) (Pause [^\n]*?) (\d+(?:\.\d+)?)ms\s*$").expect("static regex")
});

/// JDK 17's safepoint line: `Safepoint "G1CollectForAllocation", ...,
/// Total: 2901234 ns`.
static SAFEPOINT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"Safepoint "([^"]+)".*Total: (\d+) ns"#).expect("static regex"));

/// JDK 9-16's `Total time for which application threads were stopped:
/// 0.0001234 seconds`.
static STOPPED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Total time for which application threads were stopped: (\d+(?:\.\d+)?) seconds")
        .expect("static regex")
});

/// `gc 4 @2.104s 5%: 0.030+1.2+0.041 ms clock, ...`.
static GCTRACE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^gc (\d+) @(\d+(?:\.\d+)?)s \d+%: (\d+(?:\.\d+)?)\+(\d+(?:\.\d+)?)\+(\d+(?:\.\d+)?) ms clock")
        .expect("static regex")
});

/// A JDK 8 GC log line with `-XX:+PrintGCDateStamps` (HotSpot's
/// `gcTraceTime`/`PrintGCDetails` output): the date stamp (when the
/// collection began), the optional uptime (`-XX:+PrintGCTimeStamps`), then
/// a stop-the-world event, `[GC (Allocation Failure) ...` (Parallel, CMS
/// young), `[Full GC (Ergonomics) ...`, `[GC pause (G1 Evacuation Pause)
/// (young), ...`, `[GC remark ...`, `[GC cleanup ...`, ending in its length,
/// `, 2.4001230 secs]`, and `[Times: ... real=2.40 secs]`. Concurrent
/// phases (`[CMS-concurrent-mark: ...`, `[GC concurrent-...`) are no pause.
static JDK8_PAUSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?[+-]\d\d:?\d\d): (?:\d+(?:\.\d+)?: )?\[((?:Full GC|GC)(?: pause| remark| cleanup)? ?\([^)]*\)[^\[]*?|GC (?:remark|cleanup)[^\[]*?)[ ,\[].*, (\d+(?:\.\d+)?) secs\](?:\s*\[Times:[^\]]*\])?\s*$",
    )
    .expect("static regex")
});

/// A JDK 8 line with a date stamp (`2024-11-11T00:00:01.080+0800: `):
/// `-XX:+PrintGCDateStamps` writes one before every event.
static JDK8_STAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?[+-]\d\d:?\d\d): ")
        .expect("static regex")
});

/// True for a JDK 8 GC log line that starts with a date stamp and a GC
/// event (`2024-...+0800: 1.382: [Full GC ...`, `... [GC pause ...`).
pub(super) fn is_jdk8_gc(line: &str) -> bool {
    JDK8_STAMP.find(line).is_some_and(|m| {
        let rest = line[m.end()..].trim_start();
        let rest =
            rest.split_once(": [").map_or(
                rest,
                |(up, r)| {
                    if up.parse::<f64>().is_ok() { r } else { rest }
                },
            );
        let rest = rest.strip_prefix('[').unwrap_or(rest);
        rest.starts_with("GC") || rest.starts_with("Full GC")
    })
}

/// Reads a JDK 8 GC log (`-XX:+PrintGCDateStamps`, with or without
/// `-XX:+PrintGCDetails`): each stop-the-world event's line gives
/// [date stamp, date stamp + its length]; `Total time for which
/// application threads were stopped: N seconds`
/// (`-XX:+PrintGCApplicationStoppedTime`, stamped when printed) gives
/// [stamp - N, stamp] unless a pause already read ends within 5 ms of it.
/// The JVM's header, `PrintGCDetails`' continuation lines and concurrent
/// phases are skipped. Unread, a JDK 8 log is taken for CSV and
/// unreadable, and the pause behind an overlap is lost.
pub(super) fn read_jdk8(text: &str, file_host: &str, sink: &mut Sink<'_>) {
    let mut last_pause_end: Option<i64> = None;
    for (i, raw) in text.lines().enumerate() {
        let no = i + 1;
        let line = raw.trim_end();
        if line.trim().is_empty() {
            continue;
        }
        sink.info.lines_read += 1;
        let (start, end, kind, what) = if let Some(c) = JDK8_PAUSE.captures(line) {
            let (Ok((at, _)), Ok(secs)) = (parse_time(&c[1], sink.tz), c[3].parse::<f64>()) else {
                sink.bad(no, InfraWarning::GcPauseUnreadable);
                continue;
            };
            let end = at.saturating_add((secs * 1e9) as i64);
            last_pause_end = Some(end);
            (at, end, EvidenceKind::GcPause, c[2].trim().to_string())
        } else if let (Some(m), Some(c)) = (JDK8_STAMP.captures(line), STOPPED.captures(line)) {
            let (Ok((at, _)), Ok(secs)) = (parse_time(&m[1], sink.tz), c[1].parse::<f64>()) else {
                sink.bad(no, InfraWarning::StopUnreadable);
                continue;
            };
            if last_pause_end.is_some_and(|p| (at - p).abs() <= 5_000_000) {
                sink.skip();
                continue;
            }
            (
                at.saturating_sub((secs * 1e9) as i64),
                at,
                EvidenceKind::Safepoint,
                c[0].to_string(),
            )
        } else {
            sink.skip();
            continue;
        };
        sink.push(
            no,
            start,
            Some(end),
            kind,
            EvidenceOrigin::JvmGc,
            Some(file_host.to_string()),
            None,
            &what,
        );
    }
}

/// The leading `[...]` decorations of a unified-logging line and the rest.
pub(super) fn jvm_decorations(line: &str) -> Option<(Vec<&str>, &str)> {
    let mut rest = line;
    let mut decs = Vec::new();
    while let Some(r) = rest.strip_prefix('[') {
        let end = r.find(']')?;
        decs.push(r[..end].trim());
        rest = &r[end + 1..];
    }
    (!decs.is_empty()).then(|| (decs, rest.trim_start()))
}

/// True for a unified-logging line tagged `gc` or `safepoint`.
pub(super) fn is_jvm_gc_tagged(line: &str) -> bool {
    jvm_decorations(line).is_some_and(|(d, _)| {
        d.iter().any(|t| {
            t.split(',')
                .any(|tag| matches!(tag.trim(), "gc" | "safepoint"))
        })
    })
}

/// Reads a JVM unified GC log: a pause's line (written when it ends) gives
/// [end - length, end]; a safepoint within 5 ms of a pause already read is
/// the same stop and is not listed twice.
pub(super) fn read_jvm(text: &str, file_host: &str, sink: &mut Sink<'_>) {
    let mut last_pause_end: Option<i64> = None;
    let mut warned_uptime = false;
    for (i, raw) in text.lines().enumerate() {
        let no = i + 1;
        sink.info.lines_read += 1;
        let Some((decs, msg)) = jvm_decorations(raw.trim_end()) else {
            if raw.trim().is_empty() {
                sink.skip();
            } else {
                sink.bad(no, InfraWarning::NotJvmLine);
            }
            continue;
        };
        let length_ns = if let Some(c) = PAUSE.captures(msg) {
            c[3].parse::<f64>().ok().map(|ms| (ms * 1e6) as i64)
        } else if let Some(c) = SAFEPOINT.captures(msg) {
            c[2].parse::<i64>().ok()
        } else if let Some(c) = STOPPED.captures(msg) {
            c[1].parse::<f64>().ok().map(|s| (s * 1e9) as i64)
        } else {
            sink.skip();
            continue;
        };
        let Some(length_ns) = length_ns else {
            sink.bad(no, InfraWarning::PauseLengthUnreadable);
            continue;
        };
        // The `time` (or `utctime`) decoration: an ISO time with an offset.
        let Some(end) = decs.iter().find_map(|d| {
            d.contains('T')
                .then(|| parse_time(d, sink.tz).ok())
                .flatten()
        }) else {
            if !warned_uptime {
                warned_uptime = true;
                sink.bad(no, InfraWarning::GcUptimeOnly);
            } else {
                sink.info.lines_warned += 1;
            }
            continue;
        };
        let end = end.0;
        let is_pause = PAUSE.is_match(msg);
        if !is_pause && last_pause_end.is_some_and(|p| (end - p).abs() <= 5_000_000) {
            sink.skip();
            continue;
        }
        if is_pause {
            last_pause_end = Some(end);
        }
        let pid = decs
            .iter()
            .find(|d| d.bytes().all(|b| b.is_ascii_digit()) && !d.is_empty())
            .map(|d| d.to_string());
        let kind = if is_pause {
            EvidenceKind::GcPause
        } else {
            EvidenceKind::Safepoint
        };
        sink.push(
            no,
            end.saturating_sub(length_ns),
            Some(end),
            kind,
            EvidenceOrigin::JvmGc,
            Some(file_host.to_string()),
            pid,
            msg,
        );
    }
}

/// A `gctrace` line after an optional RFC 3339 time: (time text, the line).
pub(super) fn go_gctrace(line: &str) -> Option<(Option<&str>, regex::Captures<'_>)> {
    let t = line.trim();
    if let Some(c) = GCTRACE.captures(t) {
        return Some((None, c));
    }
    let (ts, rest) = t.split_once(' ')?;
    GCTRACE.captures(rest.trim_start()).map(|c| (Some(ts), c))
}

/// Reads Go `gctrace` lines. Only the two stop-the-world phases (the first
/// and third `clock` numbers) stop the program; the line is written when the
/// cycle ends, so the stall is placed as [t - (stw1 + stw2), t]. A line
/// without a wall-clock time before it cannot be placed: a warning.
pub(super) fn read_go(text: &str, file_host: &str, sink: &mut Sink<'_>) {
    for (i, raw) in text.lines().enumerate() {
        let no = i + 1;
        sink.info.lines_read += 1;
        let Some((ts, c)) = go_gctrace(raw) else {
            sink.skip();
            continue;
        };
        let ms = |k: usize| c[k].parse::<f64>().unwrap_or(0.0);
        let stw_ns = ((ms(3) + ms(5)) * 1e6) as i64;
        let Some(end) = ts.and_then(|t| parse_time(t, sink.tz).ok()) else {
            sink.bad(no, InfraWarning::GctraceUntimed);
            continue;
        };
        let what = format!("gc {}: {}+{} ms stop-the-world", &c[1], &c[3], &c[5]);
        sink.push(
            no,
            end.0.saturating_sub(stw_ns),
            Some(end.0),
            EvidenceKind::GcPause,
            EvidenceOrigin::GoGc,
            Some(file_host.to_string()),
            None,
            &what,
        );
    }
}

//! Redis server and Sentinel logs (`pid:role dd Mon yyyy HH:MM:SS.mmm * msg`,
//! the format of `serverLogRaw` in Redis's `server.c`), and redis-cli's
//! `SLOWLOG GET` / `LATENCY LATEST` / `LATENCY HISTORY` replies.

use std::sync::LazyLock;

use chrono::NaiveDateTime;
use regex::Regex;

use crate::model::{EvidenceKind, EvidenceOrigin, InfraWarning};

use super::{Sink, naive_ns};

/// `pid:role dd Mon yyyy HH:MM:SS.mmm level message`; role is `X`
/// (Sentinel), `C` (child), `S` (replica), `M` (master); level one of
/// `. - * #` (server.c `serverLogRaw`).
static LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(\d+):([XCSM]) (\d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2}\.\d{3}) [.\-*#] (.*)$",
    )
    .expect("static regex")
});

/// `pid:signal-handler (unix seconds) message` (server.c `sigShutdownHandler`).
static SIGNAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d+):signal-handler \((\d{9,11})\) (.*)$").expect("static regex")
});

/// An `ip port` pair in a Sentinel message.
static ADDR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\d{1,3}(?:\.\d{1,3}){3}|[0-9a-fA-F:]+:[0-9a-fA-F:]*) (\d{2,5})")
        .expect("static regex")
});

/// One parsed log line: pid, role, time text, message.
pub(super) fn parse_line(line: &str) -> Option<(&str, char, &str, &str)> {
    if let Some(c) = LINE.captures(line) {
        let g = |i| c.get(i).map_or("", |m| m.as_str());
        return Some((g(1), g(2).chars().next().unwrap_or('M'), g(3), g(4)));
    }
    None
}

/// What a server or Sentinel message says, when it says something the
/// evidence needs.
fn classify(role: char, msg: &str) -> Option<(EvidenceKind, EvidenceOrigin)> {
    use EvidenceKind as K;
    let sentinel = role == 'X';
    let origin = if sentinel {
        EvidenceOrigin::Sentinel
    } else {
        EvidenceOrigin::RedisServer
    };
    let word = msg.split_whitespace().next().unwrap_or("");
    let kind = if sentinel {
        match word {
            "+switch-master" => K::Failover,
            "+promoted-slave" => K::Promoted,
            "+sdown"
            | "-sdown"
            | "+odown"
            | "-odown"
            | "+try-failover"
            | "+elected-leader"
            | "+selected-slave"
            | "+failover-end"
            | "+failover-end-for-timeout"
            | "-failover-abort-not-elected"
            | "-failover-abort-no-good-slave" => K::Sentinel,
            _ if msg.contains("Redis is starting") => K::Restart,
            _ => return None,
        }
    } else if msg.contains("Redis is starting")
        || msg.contains("Valkey is starting")
        || msg.starts_with("DB loaded from")
    {
        // Not "Done loading RDB": a replica says it when it loads its
        // master's copy in a sync, which is no restart.
        K::Restart
    } else if msg.starts_with("MASTER MODE enabled") {
        K::Promoted
    } else if msg.starts_with("Connection with master lost")
        || msg.starts_with("MASTER <-> REPLICA sync: Flushing old data")
        || msg.starts_with("MASTER <-> REPLICA sync: Finished with success")
        || msg.starts_with("Full resync from master")
    {
        K::Replication
    } else if msg.starts_with("User requested shutdown")
        || msg.starts_with("Received SIG")
        || msg.contains("REDIS BUG REPORT START")
        || msg.starts_with("Out Of Memory")
    {
        K::Shutdown
    } else if msg.contains("maxmemory") && msg.contains("evict") {
        K::Eviction
    } else {
        return None;
    };
    Some((kind, origin))
}

/// The server a Sentinel message names (`+switch-master`: the new master;
/// else the first `ip port`), as `ip:port`.
fn sentinel_addr(msg: &str) -> Option<String> {
    let all: Vec<String> = ADDR
        .captures_iter(msg)
        .map(|c| format!("{}:{}", &c[1], &c[2]))
        .collect();
    if msg.starts_with("+switch-master") {
        all.get(1).cloned()
    } else {
        all.into_iter().next()
    }
}

/// Reads a Redis server or Sentinel log.
pub(super) fn read_log(text: &str, file_host: &str, sink: &mut Sink<'_>) {
    let mut shut_at: Option<i64> = None;
    for (i, raw) in text.lines().enumerate() {
        let no = i + 1;
        sink.info.lines_read += 1;
        let line = raw.trim_end();
        if line.trim().is_empty() {
            sink.skip();
            continue;
        }
        if let Some(c) = SIGNAL.captures(line) {
            let secs: i64 = c[2].parse().unwrap_or(0);
            let at = secs.saturating_mul(1_000_000_000);
            shut_at = Some(at);
            sink.push(
                no,
                at,
                None,
                EvidenceKind::Shutdown,
                EvidenceOrigin::RedisServer,
                Some(file_host.to_string()),
                Some(c[1].to_string()),
                &c[3],
            );
            continue;
        }
        let Some((pid, role, time, msg)) = parse_line(line) else {
            // The start-up logo and other free text of a server run in the
            // foreground: readable, not evidence.
            if line.starts_with(' ') || line.starts_with('\t') || !line.contains(':') {
                sink.skip();
            } else {
                sink.bad(no, InfraWarning::NotRedisLine);
            }
            continue;
        };
        let Some((kind, origin)) = classify(role, msg) else {
            sink.skip();
            continue;
        };
        let Ok(t) = NaiveDateTime::parse_from_str(time, "%d %b %Y %H:%M:%S%.3f") else {
            let time = time.to_string();
            sink.bad(no, InfraWarning::RedisTimeUnreadable { time });
            continue;
        };
        let Some(at) = naive_ns(t, sink) else {
            let time = time.to_string();
            sink.bad(no, InfraWarning::RedisTimeOutOfRange { time });
            continue;
        };
        // One shutdown per stop: SIGTERM's line, then "User requested
        // shutdown", then "ready to exit" say one thing.
        if kind == EvidenceKind::Shutdown {
            if shut_at.is_some_and(|s| (at - s).abs() < 2_000_000_000) {
                sink.skip();
                continue;
            }
            shut_at = Some(at);
        }
        let host = if origin == EvidenceOrigin::Sentinel {
            sentinel_addr(msg).or_else(|| Some(file_host.to_string()))
        } else {
            Some(file_host.to_string())
        };
        sink.push(no, at, None, kind, origin, host, Some(pid.to_string()), msg);
    }
}

/// True when the sample looks like redis-cli's human-readable reply to
/// `SLOWLOG GET` or `LATENCY LATEST` / `HISTORY`: `1) 1) (integer) N` or
/// `1) 1) "event"`, then `   2) (integer) N`.
pub(super) fn looks_like_reply(sample: &[&str]) -> bool {
    let first = sample.first().map_or("", |l| l.trim_start());
    let second = sample.get(1).map_or("", |l| l.trim_start());
    (first.starts_with("1) 1) (integer) ") || first.starts_with("1) 1) \""))
        && second
            .strip_prefix("2) (integer) ")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// One reply entry: its first line and its fields' text.
struct Entry {
    line: usize,
    fields: Vec<String>,
}

/// Reads redis-cli's `SLOWLOG GET` (id, unix time, µs, args, client,
/// name), `LATENCY LATEST` (event, unix time, latest ms, max ms) or
/// `LATENCY HISTORY` (unix time, ms) reply. The time is whole seconds:
/// Redis stamps an entry when the command ends (slowlog.c
/// `slowlogCreateEntry`, latency.c `latencyAddSample`), so the stall is
/// placed as [t - length, t].
pub(super) fn read_reply(text: &str, file_host: &str, sink: &mut Sink<'_>) {
    let mut entries: Vec<Entry> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        sink.info.lines_read += 1;
        let t = raw.trim();
        if t.is_empty() {
            sink.skip();
            continue;
        }
        // "N) 1) x" opens an entry; "k) x" adds a field; a nested "1) x"
        // after "4)" (a command's arguments) adds to the last field.
        let (head, rest) = split_index(t);
        let Some(rest) = rest else {
            sink.bad(i + 1, InfraWarning::NotReplyLine);
            continue;
        };
        let (inner, value) = split_index(rest);
        if let (Some(_), Some(v)) = (head, inner.and(value)) {
            if raw.starts_with(|c: char| c.is_ascii_digit()) {
                entries.push(Entry {
                    line: i + 1,
                    fields: vec![unquote(v)],
                });
            } else if let Some(e) = entries.last_mut() {
                // "4) 1) \"SET\"": the command's first argument.
                e.fields.push(unquote(v));
            }
        } else if let Some(e) = entries.last_mut() {
            if raw.starts_with("      ") && e.fields.len() >= 4 {
                if let Some(f) = e.fields.get_mut(3) {
                    f.push(' ');
                    f.push_str(&unquote(rest));
                }
            } else {
                e.fields.push(unquote(rest));
            }
        } else {
            sink.bad(i + 1, InfraWarning::ReplyFieldFirst);
            continue;
        }
        sink.skip();
    }
    for e in entries {
        let int = |k: usize| {
            e.fields
                .get(k)
                .and_then(|f| f.strip_prefix("(integer) "))
                .and_then(|n| n.parse::<i64>().ok())
        };
        // SLOWLOG: id, time, µs, args, client, name.
        let (at_s, len_ns, what) = if int(0).is_some() && int(2).is_some() && e.fields.len() >= 4 {
            let args = e.fields.get(3).cloned().unwrap_or_default();
            let client = e.fields.get(4).cloned().unwrap_or_default();
            (
                int(1),
                int(2).map(|us| us * 1_000),
                format!("SLOWLOG {args} ({client})"),
            )
        } else if int(1).is_some() && int(2).is_some() {
            // LATENCY LATEST: event, time, latest ms, max ms.
            (
                int(1),
                int(2).map(|ms| ms * 1_000_000),
                format!("LATENCY {}", e.fields[0]),
            )
        } else if int(0).is_some() && int(1).is_some() && e.fields.len() == 2 {
            // LATENCY HISTORY: time, ms.
            (
                int(0),
                int(1).map(|ms| ms * 1_000_000),
                "LATENCY HISTORY".to_string(),
            )
        } else {
            sink.info.lines_skipped = sink.info.lines_skipped.saturating_sub(1);
            sink.bad(e.line, InfraWarning::ReplyEntryUnknown);
            continue;
        };
        let (Some(at_s), Some(len)) = (at_s, len_ns) else {
            continue;
        };
        let end = at_s.saturating_mul(1_000_000_000);
        // The entry's line was counted as skipped; it is evidence now.
        sink.info.lines_skipped = sink.info.lines_skipped.saturating_sub(1);
        sink.push(
            e.line,
            end - len,
            Some(end),
            EvidenceKind::SlowCommand,
            EvidenceOrigin::Slowlog,
            Some(file_host.to_string()),
            None,
            &what,
        );
    }
}

/// `"3) rest"` -> (Some(3), Some("rest")); no index -> (None, Some(text)).
fn split_index(t: &str) -> (Option<u32>, Option<&str>) {
    if let Some((n, rest)) = t.split_once(") ")
        && let Ok(n) = n.parse::<u32>()
    {
        return (Some(n), Some(rest.trim_start()));
    }
    (None, Some(t))
}

/// A redis-cli string without its quotes.
fn unquote(v: &str) -> String {
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
        .to_string()
}

/// A line of redis-cli output without its `N) ` index and quotes.
fn bare(line: &str) -> &str {
    let t = line.trim();
    let t = match t.split_once(") ") {
        Some((n, rest)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => rest,
        _ => t,
    };
    t.trim_matches('"')
}

/// True for `INFO` output (`# Server`, `redis_version:...`) or a
/// `CONFIG GET maxmemory*` reply, as redis-cli prints them.
pub(super) fn looks_like_info(sample: &[&str]) -> bool {
    let info = sample.iter().any(|l| {
        l.starts_with("redis_version:")
            || l.starts_with("valkey_version:")
            || l.starts_with("maxmemory_policy:")
    }) && sample.iter().all(|l| l.starts_with('#') || l.contains(':'));
    info || sample.iter().any(|l| bare(l) == "maxmemory-policy")
}

/// The eviction policy `INFO` output (`maxmemory_policy:...`) or a `CONFIG
/// GET` reply (`maxmemory-policy`, then its value) names, and `INFO`'s
/// `evicted_keys`. Every line is read and skipped: the policy is said in a
/// note ([`crate::model::SourceNote::EvictionPolicy`]), not as evidence at
/// a time.
pub(super) fn read_info(text: &str, sink: &mut Sink<'_>) {
    let mut policy: Option<String> = None;
    let mut evicted: Option<u64> = None;
    let mut after_name = false;
    for raw in text.lines() {
        sink.info.lines_read += 1;
        sink.skip();
        let t = bare(raw);
        if after_name {
            policy.get_or_insert_with(|| t.to_string());
            after_name = false;
        } else if t == "maxmemory-policy" {
            after_name = true;
        } else if let Some(p) = t.strip_prefix("maxmemory_policy:") {
            policy.get_or_insert_with(|| p.trim().to_string());
        } else if let Some(n) = t.strip_prefix("evicted_keys:") {
            evicted = n.trim().parse().ok();
        }
    }
    if let Some(policy) = policy.filter(|p| !p.is_empty()) {
        sink.info
            .notes
            .push(crate::model::SourceNote::EvictionPolicy { policy, evicted });
    }
}

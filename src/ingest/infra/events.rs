//! Event logs of the platform: `kubectl get events -o json` (a `List` of
//! core/v1 `Event`s: `involvedObject`, `reason`, `message`, `lastTimestamp`
//! / `eventTime` / `firstTimestamp`, per the Kubernetes API reference) and an
//! operator's or deploy tool's own event log, JSON Lines or text, recognised
//! by its vocabulary (crashed, failover, promoted, switched, restarted,
//! flushed, evicted, deployed, scaled).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::ingest::roles::time::parse_time;
use crate::ingest::vocabulary::infra::infra_kind_of;
use crate::model::{EvidenceKind, EvidenceOrigin, InfraWarning};

use super::Sink;

/// The operator vocabulary, one word a kind.
static VOCAB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(crash(?:ed|es)?|fail(?:ed)?[ -]?over|promot(?:ed|ing|e)|switch(?:ed)?[ -]?(?:over|master)?|switched|restart(?:ed|ing)?|flush(?:ed|all|db)?|evict(?:ed|ion|ions)?|deploy(?:ed|ment)?|scal(?:ed|ing) (?:up|down|to)|scaled)\b")
        .expect("static regex")
});

/// Words of an application's lock log: a file with them is not an operator
/// log.
static LOCK_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(lock_key|\block\b|acquir|\bowner\b|\btoken\b|releas|renew|stock)")
        .expect("static regex")
});

/// The kind an operator word names.
fn kind_of_word(w: &str) -> EvidenceKind {
    let w = w.to_ascii_lowercase();
    if w.starts_with("fail") || w.starts_with("switch") {
        EvidenceKind::Failover
    } else if w.starts_with("promot") {
        EvidenceKind::Promoted
    } else if w.starts_with("crash") || w.starts_with("restart") {
        EvidenceKind::Restart
    } else if w.starts_with("flush") {
        EvidenceKind::Flush
    } else if w.starts_with("evict") {
        EvidenceKind::Eviction
    } else {
        EvidenceKind::Deploy
    }
}

/// True for `kubectl get events -o json` output (or one Event object).
pub(super) fn looks_like_kube_events(text: &str) -> bool {
    let mut n = text.len().min(4096);
    while !text.is_char_boundary(n) {
        n -= 1;
    }
    let head = &text[..n];
    head.trim_start().starts_with('{')
        && head.contains("\"involvedObject\"")
        && head.contains("\"reason\"")
}

/// Reads `kubectl get events -o json`. Each event's line is the line of its
/// `involvedObject`. A Redis pod's kill, OOM kill or eviction is a restart of
/// that server; other pods' and nodes' events are context.
pub(super) fn read_kube(text: &str, sink: &mut Sink<'_>) {
    let lines = text.lines().count() as u64;
    sink.info.lines_read += lines;
    let doc: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            sink.info.lines_warned += lines.saturating_sub(1);
            let error = e.to_string();
            sink.bad(e.line(), InfraWarning::KubeEventList { error });
            return;
        }
    };
    let items: Vec<&Value> = match doc.get("items").and_then(Value::as_array) {
        Some(a) => a.iter().collect(),
        None => vec![&doc],
    };
    let starts: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("\"involvedObject\""))
        .map(|(i, _)| i + 1)
        .collect();
    for (n, ev) in items.iter().enumerate() {
        let line = starts.get(n).copied().unwrap_or(1);
        let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let obj = ev.get("involvedObject").cloned().unwrap_or(Value::Null);
        let name = s(&obj, "name");
        let reason = s(ev, "reason").unwrap_or_default();
        let message = s(ev, "message").unwrap_or_default();
        let time = ["lastTimestamp", "eventTime", "firstTimestamp"]
            .iter()
            .find_map(|k| s(ev, k))
            .or_else(|| ev.get("metadata").and_then(|m| s(m, "creationTimestamp")));
        let redis_pod = name
            .as_deref()
            .is_some_and(|n| n.contains("redis") || n.contains("sentinel"));
        let kind = match reason.as_str() {
            "OOMKilled" | "OOMKilling" | "Killing" | "Evicted" | "Preempting" if redis_pod => {
                EvidenceKind::Restart
            }
            "OOMKilled" | "OOMKilling" | "Killing" | "Evicted" | "BackOff" | "NodeNotReady"
            | "Unhealthy" => EvidenceKind::PodEvent,
            _ => continue,
        };
        let Some(Ok((at, _))) = time.as_deref().map(|t| parse_time(t, sink.tz)) else {
            sink.bad(line, InfraWarning::KubeEventUntimed { reason });
            continue;
        };
        let host = if reason == "NodeNotReady" {
            ev.get("source").and_then(|v| s(v, "host")).or(name.clone())
        } else {
            name.clone()
        };
        let what = format!("{reason} {}: {message}", name.unwrap_or_default());
        sink.push(
            line,
            at,
            None,
            kind,
            EvidenceOrigin::Kubernetes,
            host,
            None,
            &what,
        );
    }
    // Every line of the document that is not a warned event is readable
    // structure (the evidence items are among them).
    sink.info.lines_skipped = lines.saturating_sub(sink.info.lines_warned);
}

/// A line's time and words: JSON (a time field; the words of `event`,
/// `action`, `reason`, `message`, `msg`, `type`, `status`) or text (a time
/// in the first one or two words, the rest).
fn split_line(line: &str, sink: &mut Sink<'_>) -> Option<(i64, String, Option<String>)> {
    let t = line.trim();
    if t.starts_with('{') {
        let v: Value = serde_json::from_str(t).ok()?;
        let time = ["time", "ts", "timestamp", "@timestamp", "eventTime", "date"]
            .iter()
            .find_map(|k| {
                v.get(*k).and_then(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .or_else(|| x.as_i64().map(|n| n.to_string()))
                })
            })?;
        let (at, off) = parse_time(&time, sink.tz).ok()?;
        if off.is_none() && !time.bytes().all(|b| b.is_ascii_digit()) {
            sink.naive = true;
        }
        let words = [
            "event", "action", "reason", "message", "msg", "type", "status",
        ]
        .iter()
        .filter_map(|k| v.get(*k).and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(" ");
        let host = ["host", "instance", "pod", "node", "server", "target"]
            .iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str).map(str::to_string));
        return Some((at, words, host));
    }
    let mut it = t.splitn(3, ' ');
    let a = it.next()?;
    let b = it.next().unwrap_or("");
    let rest = it.next().unwrap_or("");
    let two = format!("{a} {b}");
    if let Ok((at, off)) = parse_time(two.trim_matches(['[', ']']), sink.tz) {
        if off.is_none() {
            sink.naive = true;
        }
        return Some((at, rest.to_string(), None));
    }
    let (at, off) = parse_time(a.trim_matches(['[', ']']), sink.tz).ok()?;
    if off.is_none() {
        sink.naive = true;
    }
    Some((at, t[a.len()..].trim_start().to_string(), None))
}

/// True when most sampled lines carry a time, one names an operator action,
/// and none reads like a lock log.
pub(super) fn looks_like_operator_log(sample: &[&str]) -> bool {
    let mut scratch_info = crate::model::SourceInfo::new("", crate::model::Dialect::Unknown);
    let mut scratch_builder = crate::model::LogBuilder::new();
    let mut sink = Sink {
        file: 0,
        tz: None,
        builder: &mut scratch_builder,
        info: &mut scratch_info,
        naive: false,
        file_pid: None,
    };
    let timed = sample
        .iter()
        .filter(|l| split_line(l, &mut sink).is_some())
        .count();
    timed * 2 >= sample.len()
        && sample
            .iter()
            .any(|l| VOCAB.is_match(l) || infra_kind_of(l).is_some_and(EvidenceKind::loses_keys))
        && !sample.iter().any(|l| LOCK_WORDS.is_match(l))
        && !sample
            .iter()
            .any(|l| l.contains("\"level\"") && l.contains("\"logger"))
}

/// Reads an operator's event log: each line with a time and a vocabulary
/// word is evidence of that word's kind; other timed lines are skipped.
pub(super) fn read_operator(text: &str, sink: &mut Sink<'_>) {
    for (i, raw) in text.lines().enumerate() {
        let no = i + 1;
        sink.info.lines_read += 1;
        if raw.trim().is_empty() {
            sink.skip();
            continue;
        }
        let Some((at, words, host)) = split_line(raw, sink) else {
            sink.bad(no, InfraWarning::OperatorUntimed);
            continue;
        };
        let kind = match infra_kind_of(&words).filter(|k| k.loses_keys()) {
            Some(k) => k,
            None => match VOCAB.find(&words) {
                Some(m) => kind_of_word(m.as_str()),
                None => {
                    sink.skip();
                    continue;
                }
            },
        };
        sink.push(
            no,
            at,
            None,
            kind,
            EvidenceOrigin::Operator,
            host,
            None,
            words.trim(),
        );
    }
}

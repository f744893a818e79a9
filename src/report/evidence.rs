//! The sentence that cites an incident's infrastructure evidence (a
//! failover, a restart, a GC pause...) with its time and file:line: a
//! [`Cited`] value worded in English or Chinese; and its JSON form.

use serde::{Deserialize, Serialize};

use super::{ReportInput, format_ms};
use crate::analysis::evidence::{Citation, CitationRole, base_name};
use crate::analysis::{Cause, Incident};
use crate::model::{Evidence, EvidenceKind, EvidenceOrigin, Message};

/// One cited evidence line in the JSON report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonEvidence {
    /// `vanished` (the server lost the lock) or `stall` (the holder stalled).
    pub role: String,
    /// `failover`, `restart`, `gc_pause`... (`EvidenceKind`).
    pub kind: String,
    /// `sentinel`, `redis-server`, `JVM GC`... (`EvidenceOrigin`).
    pub origin: String,
    /// When, RFC 3339 (a pause's start).
    pub time: String,
    /// A pause's end, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// The host, pod or server the line names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The file (as given) and the 1-based line.
    pub file: String,
    /// The line.
    pub line: u32,
    /// The line's words.
    pub what: String,
    /// False when matched by time alone (a guess); true when tied by the
    /// line's host or process.
    #[serde(rename = "by_host")]
    pub tied: bool,
    /// The report's sentence.
    pub sentence: String,
}

/// The citations of `inc`, in time order.
pub fn citations_of<'a>(
    r: &'a ReportInput<'_>,
    inc: &'a Incident,
) -> impl Iterator<Item = &'a Citation> + 'a {
    r.analysis
        .citations
        .iter()
        .filter(move |c| c.incident == inc.id)
}

/// The time of day of `at_ns` as the report prints it (`16:10:47.010`).
fn clock(r: &ReportInput<'_>, at_ns: i64) -> String {
    let full = r.time(at_ns);
    full.split(' ').nth(1).unwrap_or(&full).to_string()
}

/// The line's words to quote: Sentinel's event word, else its message
/// (at most 60 characters).
fn quote(ev: &Evidence) -> String {
    if ev.origin == EvidenceOrigin::Sentinel {
        return ev.what.split_whitespace().next().unwrap_or("").to_string();
    }
    // The start-up banner's `oO0OoO0OoO0Oo` frame says nothing.
    let what = ev.what.trim_matches(|c| matches!(c, 'o' | 'O' | '0' | ' '));
    let what = if what.is_empty() {
        ev.what.as_str()
    } else {
        what
    };
    let q: String = what.chars().take(60).collect();
    if q.len() < what.len() {
        format!("{q}…")
    } else {
        q
    }
}

/// What a citation says: the evidence line's event, when and where it was
/// logged, and whether it was matched by host; worded per language.
#[derive(Clone, Debug, PartialEq)]
pub struct Cited {
    /// The event.
    pub event: CitedEvent,
    /// When it was logged, as the report prints times.
    pub at: String,
    /// `file:line` of the evidence line (the file's name without folders).
    pub place: String,
    /// False when matched by time alone (the line names no host, process or server
    /// of the log).
    pub tied: bool,
}

/// The event a citation names.
#[derive(Clone, Debug, PartialEq)]
pub enum CitedEvent {
    /// The server lost the lock (failover, promotion, restart, flush,
    /// eviction), by its own log.
    Vanished {
        /// Which.
        kind: EvidenceKind,
        /// Whose log said so.
        origin: EvidenceOrigin,
        /// The line's words (Sentinel's event word, else its message).
        quote: String,
    },
    /// The holder's process (or the server) stalled.
    Stall {
        /// A GC pause, a safepoint or a slow command.
        kind: EvidenceKind,
        /// Whose log said so.
        origin: EvidenceOrigin,
        /// The host that stalled (`?` when the line names none).
        who: String,
        /// How long (`format_ms`).
        length: String,
        /// When it ended (time of day).
        end: String,
        /// The lease expired during it (the incident's cause).
        expired: bool,
    },
}

/// What the citation `c` of incident `inc` says.
pub fn cited(r: &ReportInput<'_>, inc: &Incident, c: &Citation) -> Cited {
    let ev = &r.log.evidence[c.evidence];
    let event = match c.role {
        CitationRole::Vanished => CitedEvent::Vanished {
            kind: ev.kind,
            origin: ev.origin,
            quote: quote(ev),
        },
        CitationRole::Stall => CitedEvent::Stall {
            kind: ev.kind,
            origin: ev.origin,
            who: ev.host.as_deref().unwrap_or("?").to_string(),
            length: format_ms(ev.length_ms().unwrap_or(0.0)),
            end: ev.end_ns.map(|e| clock(r, e)).unwrap_or_default(),
            expired: inc.cause == Cause::LeaseExpired,
        },
    };
    Cited {
        event,
        at: r.time(ev.at_ns),
        place: format!("{}:{}", base_name(r.log, ev), ev.source.line),
        tied: c.tied,
    }
}

/// The sentence citing `c` for incident `inc` (Chinese when `zh`).
pub fn sentence(r: &ReportInput<'_>, inc: &Incident, c: &Citation, zh: bool) -> String {
    cited(r, inc, c).text(zh)
}

impl Message for Cited {
    fn en(&self) -> String {
        let (at, place) = (&self.at, &self.place);
        let mut out = match &self.event {
            CitedEvent::Vanished {
                kind,
                origin,
                quote,
            } => {
                let what = match kind {
                    EvidenceKind::Failover => "the master failed over",
                    EvidenceKind::Promoted => "a replica was promoted to master",
                    EvidenceKind::Restart => "the Redis server restarted",
                    EvidenceKind::Flush => "the keyspace was flushed",
                    _ => "keys were evicted",
                };
                let src = format!("{} `{quote}`", origin.as_str());
                format!("lock vanished: {what} at {at} ({src}, {place})")
            }
            CitedEvent::Stall {
                kind,
                origin,
                who,
                length,
                end,
                expired,
            } => {
                let what = match (kind, origin) {
                    (EvidenceKind::SlowCommand, _) => {
                        format!("the Redis server was busy with a slow command for {length}")
                    }
                    (EvidenceKind::Safepoint, _) => {
                        format!("{who}'s JVM was stopped at a safepoint for {length}")
                    }
                    (_, EvidenceOrigin::GoGc) => {
                        format!("{who}'s Go runtime stopped the world for GC for {length}")
                    }
                    (_, EvidenceOrigin::Application) => {
                        format!("{who} was paused for {length}, as its own log says")
                    }
                    _ => format!("{who}'s JVM was paused by GC for {length}"),
                };
                if *expired {
                    format!("the lease expired while {what} ({at} - {end}, {place})")
                } else {
                    format!("inside the hold, {what} ({at} - {end}, {place})")
                }
            }
        };
        if !self.tied {
            out.push_str(
                " (matched by time only: the line names no host, process or server of this log)",
            );
        }
        out
    }

    fn zh(&self) -> String {
        let (at, place) = (&self.at, &self.place);
        let mut out = match &self.event {
            CitedEvent::Vanished {
                kind,
                origin,
                quote,
            } => {
                let what = match kind {
                    EvidenceKind::Failover => "主节点发生故障转移",
                    EvidenceKind::Promoted => "一个副本被提升为主节点",
                    EvidenceKind::Restart => "Redis 服务器重启",
                    EvidenceKind::Flush => "键空间被清空",
                    _ => "键被驱逐",
                };
                let origin = match origin {
                    EvidenceOrigin::Operator => "运维事件日志",
                    EvidenceOrigin::Application => "应用日志",
                    other => other.as_str(),
                };
                format!("锁消失：{what}，时间 {at}（{origin} `{quote}`，{place}）")
            }
            CitedEvent::Stall {
                kind,
                origin,
                who,
                length,
                end,
                expired,
            } => {
                let what = match (kind, origin) {
                    (EvidenceKind::SlowCommand, _) => {
                        format!("Redis 服务器因慢命令阻塞了 {length}")
                    }
                    (EvidenceKind::Safepoint, _) => format!("{who} 的 JVM 在安全点停顿了 {length}"),
                    (_, EvidenceOrigin::GoGc) => format!("{who} 的 Go 运行时因 GC 暂停了 {length}"),
                    (_, EvidenceOrigin::Application) => {
                        format!("{who} 暂停了 {length}（据其自己的日志）")
                    }
                    _ => format!("{who} 的 JVM 因 GC 暂停了 {length}"),
                };
                let when = if *expired {
                    "租约过期时"
                } else {
                    "持有期间"
                };
                format!("{when}，{what}（{at} - {end}，{place}）")
            }
        };
        if !self.tied {
            out.push_str("（仅按时间匹配：该行未指明本日志中的主机、进程或服务器）");
        }
        out
    }
}

/// The JSON form of `c`.
pub fn json(r: &ReportInput<'_>, inc: &Incident, c: &Citation) -> JsonEvidence {
    let ev = &r.log.evidence[c.evidence];
    JsonEvidence {
        role: match c.role {
            CitationRole::Vanished => "vanished",
            CitationRole::Stall => "stall",
        }
        .to_string(),
        kind: ev.kind.as_str().to_string(),
        origin: ev.origin.as_str().to_string(),
        time: r.rfc3339(ev.at_ns),
        end: ev.end_ns.map(|e| r.rfc3339(e)),
        host: ev.host.clone(),
        file: r.log.source_name(ev.source).to_string(),
        line: ev.source.line,
        what: ev.what.clone(),
        tied: c.tied,
        sentence: sentence(r, inc, c, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::evidence::Citation;
    use crate::analysis::{IncidentId, LeaseId, Settings};
    use crate::model::{LogBuilder, SourceInfo, SourceRef};

    #[test]
    fn every_sentence_reads_in_chinese_with_no_english_words_but_its_values() {
        let mut b = LogBuilder::new();
        let key = b.intern("k");
        b.add_source(SourceInfo::new(
            "logs/gc-web-01.log",
            crate::model::Dialect::Infrastructure,
        ));
        let kinds = [
            (
                EvidenceKind::Failover,
                EvidenceOrigin::Sentinel,
                CitationRole::Vanished,
            ),
            (
                EvidenceKind::Promoted,
                EvidenceOrigin::RedisServer,
                CitationRole::Vanished,
            ),
            (
                EvidenceKind::Restart,
                EvidenceOrigin::RedisServer,
                CitationRole::Vanished,
            ),
            (
                EvidenceKind::Flush,
                EvidenceOrigin::Operator,
                CitationRole::Vanished,
            ),
            (
                EvidenceKind::Eviction,
                EvidenceOrigin::Operator,
                CitationRole::Vanished,
            ),
            (
                EvidenceKind::GcPause,
                EvidenceOrigin::JvmGc,
                CitationRole::Stall,
            ),
            (
                EvidenceKind::GcPause,
                EvidenceOrigin::GoGc,
                CitationRole::Stall,
            ),
            (
                EvidenceKind::Safepoint,
                EvidenceOrigin::JvmGc,
                CitationRole::Stall,
            ),
            (
                EvidenceKind::SlowCommand,
                EvidenceOrigin::Slowlog,
                CitationRole::Stall,
            ),
        ];
        for (kind, origin, _) in kinds {
            b.log.evidence.push(Evidence {
                at_ns: 1_000_000_000,
                end_ns: Some(3_900_000_000),
                kind,
                origin,
                host: Some("web-01".into()),
                process: None,
                what: "w".into(),
                source: SourceRef { file: 0, line: 41 },
            });
        }
        let log = b.finish();
        let settings = Settings::default();
        let mut analysis = crate::analysis::Analysis::default();
        let inc = crate::analysis::Incident {
            id: IncidentId::new(0),
            key,
            start_ns: 0,
            end_ns: 0,
            leases: vec![],
            overlaps: vec![],
            overlaps_unlisted: 0,
            cause: Cause::LeaseExpired,
            sales: vec![],
            oversold_units: 0,
            loss: crate::money::Loss::default(),
        };
        for (i, (_, _, role)) in kinds.iter().enumerate() {
            analysis.citations.push(Citation {
                incident: inc.id,
                lease: LeaseId::new(0),
                evidence: i,
                role: *role,
                tied: i % 2 == 0,
            });
        }
        let r = ReportInput {
            log: &log,
            settings: &settings,
            analysis: &analysis,
        };
        for c in &analysis.citations {
            let en = sentence(&r, &inc, c, false);
            assert!(en.contains("gc-web-01.log:41"), "{en}");
            assert!(en.contains("00:00:01.000"), "{en}");
            let zh = sentence(&r, &inc, c, true);
            let mut rest = zh.clone();
            for v in [
                "gc-web-01.log:41",
                "1970-01-01 00:00:01.000 +00:00",
                "00:00:03.900",
                "web-01",
                "2.90 s",
                "2.9 s",
                "JVM",
                "GC",
                "Go",
                "Redis",
                "sentinel",
                "redis-server",
                "`w`",
            ] {
                rest = rest.replace(v, "");
            }
            assert!(
                !rest.chars().any(|ch| ch.is_ascii_alphabetic()),
                "English left in {zh:?}: {rest:?}"
            );
        }
    }
}

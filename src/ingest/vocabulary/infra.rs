//! The infrastructure's words, in families, in English and Chinese: what a
//! line of any log says happened to a server or a process (a failover, a
//! promotion, a crash or restart, a flush, an eviction or OOM, a pause or
//! GC or stall, a slow command, a partition or timeout), read from a
//! record's words whatever its container. Words joined by `_` or `-`
//! (`master_crashed`, `replica-promoted`) count as words.

use std::sync::LazyLock;

use regex::Regex;

use crate::model::EvidenceKind;

/// One family: its words (a regex over the lower-cased text, `_` and `-`
/// read as spaces) and the evidence kind it names.
struct Family {
    words: &'static str,
    kind: EvidenceKind,
}

/// The families, the most specific first (a "failover" line that also
/// says "timeout" is a failover).
const FAMILIES: &[Family] = &[
    Family {
        words: r"\bfail ?over|\bfailing over|\bswitch ?master|\bswitch(?:ed|over)\b|故障转移|主从切换|切换主|主备切换",
        kind: EvidenceKind::Failover,
    },
    Family {
        words: r"\bpromot(?:e|ed|ing|ion)\b|提升为主|晋升为主|升主",
        kind: EvidenceKind::Promoted,
    },
    Family {
        words: r"\bflush(?:ed|all|db|ing)?\b|清空|清库",
        kind: EvidenceKind::Flush,
    },
    Family {
        words: r"\bcrash(?:ed|es|ing)?\b|\brestart(?:ed|ing|s)?\b|\bis starting\b|\breboot(?:ed|ing)?\b|崩溃|宕机|重启|重新启动",
        kind: EvidenceKind::Restart,
    },
    Family {
        words: r"\bevict(?:ed|ion|ions|ing)?\b|\bout of memory\b|\boom\b|淘汰|驱逐|内存不足|内存溢出",
        kind: EvidenceKind::Eviction,
    },
    Family {
        words: r"\bgc\b|\bpause[sd]?\b|\bstall(?:ed|s)?\b|\bstop the world\b|\bfr(?:ee|o)ze\b|停顿|暂停|卡顿|垃圾回收",
        kind: EvidenceKind::GcPause,
    },
    Family {
        words: r"\bslow(?:log| command| query)\b|慢查询|慢命令",
        kind: EvidenceKind::SlowCommand,
    },
    Family {
        words: r"\bpartition(?:ed)?\b|\bsplit brain\b|\btimed out\b|\btimeout\b|\bunreachable\b|网络分区|脑裂|超时|不可达",
        kind: EvidenceKind::Replication,
    },
];

/// The families compiled, in [`FAMILIES`]' order.
static COMPILED: LazyLock<Vec<(Regex, EvidenceKind)>> = LazyLock::new(|| {
    FAMILIES
        .iter()
        .map(|f| (Regex::new(f.words).expect("static regex"), f.kind))
        .collect()
});

/// A length in a text: `11800 ms`, `2.8 s`, `2800.123ms`, `11.8秒`,
/// `300毫秒`.
static LENGTH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\d+(?:\.\d+)?) ?(ms|millis(?:econds?)?|毫秒|s|secs?|seconds?|秒)\b")
        .expect("static regex")
});

/// The kind of evidence `text` names, by its first family; `None` when it
/// names none.
pub(crate) fn infra_kind_of(text: &str) -> Option<EvidenceKind> {
    let norm: String = text
        .chars()
        .map(|c| match c {
            '_' | '-' => ' ',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    COMPILED
        .iter()
        .find(|(re, _)| re.is_match(&norm))
        .map(|(_, k)| *k)
}

/// The first length `text` states, ms (`11800 ms` → 11800, `2.8 s` →
/// 2800).
pub(crate) fn length_ms(text: &str) -> Option<f64> {
    let c = LENGTH.captures(text)?;
    let n: f64 = c[1].parse().ok()?;
    let unit = &c[2];
    let ms = if unit.starts_with('m') || unit == "毫秒" {
        n
    } else {
        n * 1000.0
    };
    Some(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_read_in_english_and_chinese_and_joined_words() {
        let k = infra_kind_of;
        assert_eq!(k("master_crashed"), Some(EvidenceKind::Restart));
        assert_eq!(k("replica_promoted"), Some(EvidenceKind::Promoted));
        assert_eq!(k("vip_switched"), Some(EvidenceKind::Failover));
        assert_eq!(k("+switch-master mymaster"), Some(EvidenceKind::Failover));
        assert_eq!(k("long GC pause 11800 ms"), Some(EvidenceKind::GcPause));
        assert_eq!(k("主从切换完成"), Some(EvidenceKind::Failover));
        assert_eq!(k("节点宕机"), Some(EvidenceKind::Restart));
        assert_eq!(k("Full GC 停顿 2.8 秒"), Some(EvidenceKind::GcPause));
        assert_eq!(
            k("keys evicted under maxmemory"),
            Some(EvidenceKind::Eviction)
        );
        assert_eq!(k("network partition"), Some(EvidenceKind::Replication));
        assert_eq!(k("lock acquired"), None);
        assert_eq!(k("stock deducted"), None);
        assert_eq!(length_ms("long GC pause 11800 ms"), Some(11800.0));
        assert_eq!(length_ms("paused 2.8 s"), Some(2800.0));
        assert_eq!(length_ms("停顿 11.8 秒"), Some(11800.0));
        assert_eq!(length_ms("no length"), None);
    }
}

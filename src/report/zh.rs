//! Simplified Chinese for the reports (`--lang zh`) and the window: the
//! report's words (finding kinds, causes, how a lock or a belief ended)
//! and its fixed phrases, translated through one table each. The English
//! output is never touched: it is the source of these tables.

/// The Chinese name of a report word (`fencing_violation`,
/// `lease_expired`, `own_release`), if it has one.
pub fn term(word: &str) -> Option<&'static str> {
    TERMS.iter().find(|(w, _)| *w == word).map(|(_, zh)| *zh)
}

/// `(report word, Chinese)`: finding kinds, causes, lock and belief ends.
const TERMS: &[(&str, &str)] = &[
    ("near_miss", "险情"),
    ("near_miss_streak", "连续险情"),
    ("renewal_gap", "续期中断"),
    ("ghost_renewal", "幽灵续期"),
    ("no_ttl", "无过期时间"),
    ("foreign_release", "被他人释放"),
    ("clock_skew", "时钟偏差"),
    ("fencing_violation", "栅栏令牌违规"),
    ("lease_expired", "租约过期"),
    ("lock_vanished", "锁消失"),
    ("ttl_unknown", "过期时间未知"),
    ("own_release", "自行释放"),
    ("expired", "已过期"),
    ("vanished", "已消失"),
    ("unknown", "未知"),
    ("reacquired", "重新获取"),
    ("still_held", "仍持有"),
    ("released", "已释放"),
    ("release_failed", "释放失败"),
    ("lock_lost", "锁丢失"),
    ("last_event", "最后一条事件"),
    ("overlap", "重叠"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finding_kind_and_cause_has_a_chinese_name() {
        use crate::analysis::{Cause, FindingKind};
        let kinds = [
            FindingKind::NearMiss,
            FindingKind::NearMissStreak,
            FindingKind::RenewalGap,
            FindingKind::GhostRenewal,
            FindingKind::NoTtl,
            FindingKind::ForeignRelease,
            FindingKind::ClockSkew,
            FindingKind::FencingViolation,
        ];
        for k in kinds {
            assert!(term(k.as_str()).is_some(), "{}", k.as_str());
        }
        let causes = [
            Cause::LeaseExpired,
            Cause::ForeignRelease,
            Cause::LockVanished,
            Cause::TtlUnknown,
        ];
        for c in causes {
            assert!(term(c.as_str()).is_some(), "{}", c.as_str());
        }
        assert_eq!(term("no_such_word"), None);
    }
}

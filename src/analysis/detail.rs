//! A finding's detail as a value ([`FindingDetail`]): what the rule saw,
//! with the names and numbers it quotes, worded in English (the JSON's and
//! the CSV's `detail`) or Simplified Chinese by its two renderers.

use serde::Serialize;

use crate::model::{EvidenceKind, Message};

/// What a finding saw, one variant per sentence the rules say. Names are
/// as the log wrote them; durations in ms as measured (printed rounded).
#[derive(Clone, Debug, PartialEq, bitcode::Encode, bitcode::Decode)]
pub enum FindingDetail {
    /// `near_miss`: a hold that used most of its TTL.
    NearMiss {
        /// The holder.
        holder: String,
        /// The lock key.
        key: String,
        /// Time from its last grant to the end of its window, ms.
        used_ms: f64,
        /// Its TTL, ms (above 0).
        ttl_ms: i64,
    },
    /// `near_miss_streak`: near-misses in a row on one key.
    NearMissStreak {
        /// How many in a row.
        holds: u32,
        /// The lock key.
        key: String,
        /// The near-miss threshold, % of the TTL.
        percent: f64,
    },
    /// `renewal_gap`: a renewal logged after the lease had expired.
    LateRenewal {
        /// How long after the expiry, ms.
        late_ms: f64,
    },
    /// `renewal_gap`: no renewal for longer than the TTL.
    RenewalGap {
        /// The longest gap, ms.
        gap_ms: f64,
        /// The TTL, ms.
        ttl_ms: i64,
    },
    /// `ghost_renewal`: renewals after the holder's own release.
    GhostRenewal {
        /// The holder.
        holder: String,
        /// The lock key.
        key: String,
        /// How many.
        renewals: usize,
        /// The first one's time after the release, ms.
        after_ms: f64,
    },
    /// `no_ttl`: an acquire with no TTL.
    NoTtl {
        /// The holder.
        holder: String,
        /// The lock key.
        key: String,
    },
    /// `foreign_release`: another holder deleted a live lock.
    ForeignRelease {
        /// Who deleted it; `None` for a holder with no acquire in the log.
        releaser: Option<String>,
        /// Whose lock it was.
        holder: String,
        /// The lock key.
        key: String,
    },
    /// `no_acquire`: renewals or releases with no acquire of their own.
    NoAcquire {
        /// The holder.
        holder: String,
        /// The lock key.
        key: String,
        /// Its renewals.
        renewals: u32,
        /// Its releases and lost locks.
        releases: u32,
    },
    /// `fencing_violation`: a write with a token lower than one accepted.
    FencingViolation {
        /// The write's token.
        token: i64,
        /// The highest token accepted before.
        max: i64,
        /// The storage rejected it (a `write_rejected`): contained.
        rejected: bool,
    },
    /// `clock_skew`: an overlap pair that host clock offsets make or
    /// unmake.
    ClockSkew {
        /// The earlier holder.
        earlier: String,
        /// The later holder.
        later: String,
        /// The lock key.
        key: String,
        /// True when it appears only once the offsets are applied; false
        /// when only in the logged times.
        with_offsets: bool,
    },
    /// `clock_skew` on a key with too many pairs to compare one by one.
    ClockSkewCount {
        /// The lock key.
        key: String,
        /// Pairs once the offsets are applied.
        with_offsets: usize,
        /// Pairs in the logged times.
        logged: usize,
    },
    /// `holder_stall`: the holder's process stalled inside the hold.
    HolderStall {
        /// The host the runtime's log names; `None` when it names none.
        host: Option<String>,
        /// The stall, ms, rounded.
        stall_ms: f64,
        /// `gc_pause`, `safepoint` or `slow_command`.
        kind: EvidenceKind,
        /// The hold's TTL, ms.
        ttl_ms: i64,
        /// The evidence file's name.
        file: String,
        /// Its 1-based line.
        line: u32,
    },
}

impl Message for FindingDetail {
    fn en(&self) -> String {
        match self {
            FindingDetail::NearMiss {
                holder,
                key,
                used_ms,
                ttl_ms,
            } => format!(
                "{holder} held {key} for {used_ms:.0} ms since its last grant, {:.0} % of its {ttl_ms} ms TTL",
                100.0 * used_ms / *ttl_ms as f64
            ),
            FindingDetail::NearMissStreak {
                holds,
                key,
                percent,
            } => format!("{holds} holds in a row on {key} reached {percent:.0} % of the TTL"),
            FindingDetail::LateRenewal { late_ms } => {
                format!("renewal {late_ms:.0} ms after the lease had expired; it did not count")
            }
            FindingDetail::RenewalGap { gap_ms, ttl_ms } => format!(
                "no renewal for {gap_ms:.0} ms, longer than the {ttl_ms} ms TTL: the watchdog stopped"
            ),
            FindingDetail::GhostRenewal {
                holder,
                key,
                renewals,
                after_ms,
            } => format!(
                "{holder} renewed {key} {renewals} time(s) after its own release, the first {after_ms:.0} ms after it: a watchdog outlived the unlock; the key may stay locked with nobody working under it, so other requests block"
            ),
            FindingDetail::NoTtl { holder, key } => {
                format!("{holder} acquired {key} with no TTL: if it dies the lock never expires")
            }
            FindingDetail::ForeignRelease {
                releaser,
                holder,
                key,
            } => format!(
                "{} deleted {holder}'s live lock on {key} after its own lock had ended",
                releaser
                    .as_deref()
                    .unwrap_or("a holder with no acquire in the log")
            ),
            _ => self.en_more(),
        }
    }

    fn zh(&self) -> String {
        match self {
            FindingDetail::NearMiss {
                holder,
                key,
                used_ms,
                ttl_ms,
            } => format!(
                "{holder} 自上次授予起持有 {key} {used_ms:.0} ms，达到其 {ttl_ms} ms TTL 的 {:.0} %",
                100.0 * used_ms / *ttl_ms as f64
            ),
            FindingDetail::NearMissStreak {
                holds,
                key,
                percent,
            } => format!("{key} 上连续 {holds} 次持有都达到了 TTL 的 {percent:.0} %"),
            FindingDetail::LateRenewal { late_ms } => {
                format!("租约过期 {late_ms:.0} ms 之后才续期，这次续期无效")
            }
            FindingDetail::RenewalGap { gap_ms, ttl_ms } => {
                format!("{gap_ms:.0} ms 没有续期，超过了 {ttl_ms} ms 的 TTL：看门狗停了")
            }
            FindingDetail::GhostRenewal {
                holder,
                key,
                renewals,
                after_ms,
            } => format!(
                "{holder} 在自己释放 {key} 之后续期了 {renewals} 次（释放后 {after_ms:.0} ms 起）：看门狗比解锁活得更久；这个锁键可能一直被锁着却无人工作，其他请求会被阻塞"
            ),
            FindingDetail::NoTtl { holder, key } => {
                format!("{holder} 获取 {key} 时没有设置 TTL：持有者一旦崩溃，这把锁永不过期")
            }
            FindingDetail::ForeignRelease {
                releaser,
                holder,
                key,
            } => {
                let who = releaser.as_ref().map_or_else(
                    || "日志中没有加锁记录的某个持有者".to_string(),
                    |r| format!("{r} "),
                );
                format!("{who}在自己的锁已结束后删除了 {holder} 在 {key} 上仍然有效的锁")
            }
            _ => self.zh_more(),
        }
    }
}

impl FindingDetail {
    /// The English of the variants [`Message::en`] leaves.
    fn en_more(&self) -> String {
        match self {
            FindingDetail::NoAcquire {
                holder,
                key,
                renewals,
                releases,
            } => format!(
                "{holder} renewed {key} {renewals} time(s) and released it (or lost it) {releases} time(s) with no acquire of its own in the log: the log starts inside its hold, or its acquire line was not read; these lines are not replayed, so an overlap with that hold cannot be seen"
            ),
            FindingDetail::FencingViolation {
                token,
                max,
                rejected,
            } => format!(
                "write with fencing token {token} after {max} was accepted; {}",
                if *rejected {
                    "storage rejected it (contained)"
                } else {
                    "storage accepted it too"
                }
            ),
            FindingDetail::ClockSkew {
                earlier,
                later,
                key,
                with_offsets,
            } => format!(
                "overlap of {earlier} and {later} on {key} appears {}",
                if *with_offsets {
                    "only once host clock offsets are applied"
                } else {
                    "only in the logged times: the host clock offsets explain it away"
                }
            ),
            FindingDetail::ClockSkewCount {
                key,
                with_offsets,
                logged,
            } => format!(
                "{key} has {with_offsets} overlap pairs once host clock offsets are applied and {logged} in the logged times (too many to compare pair by pair)"
            ),
            FindingDetail::HolderStall {
                host,
                stall_ms,
                kind,
                ttl_ms,
                file,
                line,
            } => format!(
                "{} stalled {stall_ms} ms ({}) inside a hold with a {ttl_ms} ms TTL ({file}:{line})",
                host.as_deref().unwrap_or("the process"),
                kind.as_str()
            ),
            _ => String::new(),
        }
    }

    /// The Chinese of the variants [`Message::zh`] leaves.
    fn zh_more(&self) -> String {
        match self {
            FindingDetail::NoAcquire {
                holder,
                key,
                renewals,
                releases,
            } => format!(
                "{holder} 在日志里没有自己的加锁记录，却续期 {key} {renewals} 次、释放（或失去）它 {releases} 次：日志从它持锁期间开始，或它的加锁行没有读到；这些行未被回放，因此看不出与这次持锁的重叠"
            ),
            FindingDetail::FencingViolation {
                token,
                max,
                rejected,
            } => format!(
                "在已接受栅栏令牌 {max} 之后又出现令牌 {token} 的写入；{}",
                if *rejected {
                    "存储拒绝了它（已拦住）"
                } else {
                    "存储也接受了它"
                }
            ),
            FindingDetail::ClockSkew {
                earlier,
                later,
                key,
                with_offsets,
            } => format!(
                "{earlier} 与 {later} 在 {key} 上的重叠{}",
                if *with_offsets {
                    "只在应用主机时钟偏移之后才出现"
                } else {
                    "只出现在日志记录的时间里：主机时钟偏移可以解释它"
                }
            ),
            FindingDetail::ClockSkewCount {
                key,
                with_offsets,
                logged,
            } => format!(
                "应用主机时钟偏移后 {key} 有 {with_offsets} 对重叠，按日志时间有 {logged} 对（太多，无法逐对比较）"
            ),
            FindingDetail::HolderStall {
                host,
                stall_ms,
                kind,
                ttl_ms,
                file,
                line,
            } => {
                let who = host
                    .as_ref()
                    .map_or_else(|| "该进程".to_string(), |h| format!("{h} "));
                format!(
                    "{who}在一次 TTL 为 {ttl_ms} ms 的持有中停顿了 {stall_ms} ms（{}）（{file}:{line}）",
                    kind.as_str()
                )
            }
            _ => String::new(),
        }
    }
}

impl std::fmt::Display for FindingDetail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.en())
    }
}

impl Serialize for FindingDetail {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.en())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::english_left;

    /// One detail of each variant, with the values it quotes.
    fn one_of_each() -> Vec<(FindingDetail, Vec<&'static str>)> {
        let s = String::from;
        vec![
            (
                FindingDetail::NearMiss {
                    holder: s("w-1"),
                    key: s("lock:a"),
                    used_ms: 1800.0,
                    ttl_ms: 2000,
                },
                vec!["w-1", "lock:a"],
            ),
            (
                FindingDetail::NearMissStreak {
                    holds: 3,
                    key: s("lock:a"),
                    percent: 80.0,
                },
                vec!["lock:a"],
            ),
            (FindingDetail::LateRenewal { late_ms: 120.0 }, vec![]),
            (
                FindingDetail::RenewalGap {
                    gap_ms: 5000.0,
                    ttl_ms: 3000,
                },
                vec![],
            ),
            (
                FindingDetail::GhostRenewal {
                    holder: s("w-1"),
                    key: s("lock:a"),
                    renewals: 2,
                    after_ms: 150.0,
                },
                vec!["w-1", "lock:a"],
            ),
            (
                FindingDetail::NoTtl {
                    holder: s("scheduler-1"),
                    key: s("reports:nightly"),
                },
                vec!["scheduler-1", "reports:nightly"],
            ),
            (
                FindingDetail::ForeignRelease {
                    releaser: None,
                    holder: s("worker-c"),
                    key: s("order-lock:sku-1001"),
                },
                vec!["worker-c", "order-lock:sku-1001"],
            ),
            (
                FindingDetail::NoAcquire {
                    holder: s("a"),
                    key: s("k1"),
                    renewals: 2,
                    releases: 1,
                },
                vec!["a", "k1"],
            ),
            (
                FindingDetail::FencingViolation {
                    token: 33,
                    max: 34,
                    rejected: true,
                },
                vec![],
            ),
            (
                FindingDetail::ClockSkew {
                    earlier: s("a"),
                    later: s("b"),
                    key: s("k"),
                    with_offsets: false,
                },
                vec!["a", "b", "k"],
            ),
            (
                FindingDetail::ClockSkewCount {
                    key: s("k"),
                    with_offsets: 40,
                    logged: 38,
                },
                vec!["k"],
            ),
            (
                FindingDetail::HolderStall {
                    host: None,
                    stall_ms: 3968.0,
                    kind: EvidenceKind::GcPause,
                    ttl_ms: 1000,
                    file: s("gc-web-01.log"),
                    line: 41,
                },
                vec!["gc_pause", "gc-web-01.log"],
            ),
        ]
    }

    /// A number for each variant: adding one does not compile until it is
    /// counted here, and then [`one_of_each`] must give one.
    fn variant(d: &FindingDetail) -> usize {
        match d {
            FindingDetail::NearMiss { .. } => 0,
            FindingDetail::NearMissStreak { .. } => 1,
            FindingDetail::LateRenewal { .. } => 2,
            FindingDetail::RenewalGap { .. } => 3,
            FindingDetail::GhostRenewal { .. } => 4,
            FindingDetail::NoTtl { .. } => 5,
            FindingDetail::ForeignRelease { .. } => 6,
            FindingDetail::NoAcquire { .. } => 7,
            FindingDetail::FencingViolation { .. } => 8,
            FindingDetail::ClockSkew { .. } => 9,
            FindingDetail::ClockSkewCount { .. } => 10,
            FindingDetail::HolderStall { .. } => 11,
        }
    }

    #[test]
    fn every_detail_reads_in_chinese_with_only_its_names_in_ascii() {
        let all = one_of_each();
        let variants: std::collections::BTreeSet<usize> =
            all.iter().map(|(d, _)| variant(d)).collect();
        assert_eq!(variants.len(), 12, "one detail of each variant");
        for (d, values) in all {
            assert!(!d.en().is_empty() && !d.zh().is_empty(), "{d:?}");
            let zh = d.zh();
            // TTL and ms are the reports' units in both languages.
            let mut values = values;
            values.extend(["TTL", "ms"]);
            assert!(english_left(&zh, &values).is_empty(), "{zh}");
            assert_eq!(
                serde_json::to_string(&d).expect("json"),
                serde_json::to_string(&d.en()).expect("json"),
                "the JSON holds the English"
            );
        }
    }

    #[test]
    fn the_english_is_the_rules_sentence() {
        let (near, _) = &one_of_each()[0];
        assert_eq!(
            near.en(),
            "w-1 held lock:a for 1800 ms since its last grant, 90 % of its 2000 ms TTL"
        );
        assert!(near.zh().contains("2000 ms TTL 的 90 %"), "{}", near.zh());
        let (stall, _) = &one_of_each()[11];
        assert_eq!(
            stall.en(),
            "the process stalled 3968 ms (gc_pause) inside a hold with a 1000 ms TTL (gc-web-01.log:41)"
        );
        assert_eq!(
            stall.zh(),
            "该进程在一次 TTL 为 1000 ms 的持有中停顿了 3968 ms（gc_pause）（gc-web-01.log:41）"
        );
    }
}

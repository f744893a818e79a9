//! What-if: replays the reconstructed holds of one file set under another
//! lock policy (a TTL, a watchdog, an owner-checked release, fencing at the
//! write) and counts what that policy would have changed: overlaps, oversold
//! units, loss, waits and timeouts (docs/semantics.md §10).
//!
//! It is a model, not a second analysis: each holder's work (when it asked
//! for the lock, how long it worked, its stock reads and deductions) is kept
//! as logged; only the lock's behaviour changes. Overlaps of the replayed
//! holds are found by the one rule, [`crate::analysis::detect_overlaps`].
//! Entry point: [`what_if`].

mod lock;
mod stock;

use crate::money::Loss;
use serde::{Deserialize, Serialize};

use crate::analysis::{Analysis, LeaseId, LockEnd, NS_PER_MS, Settings};
use crate::model::{LoadedLog, Message};

pub use lock::watchdog_expiry_ms;

/// A lock policy to replay the holds under. Each field left at its default
/// keeps the log's own behaviour, so `Policy::default()` replays the
/// incident as logged (the model check).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Policy {
    /// Every grant's TTL, ms; `None` keeps each hold's own TTL.
    pub ttl_ms: Option<i64>,
    /// A watchdog renews the lease every `renew_every_ms` while its holder
    /// works (the log's own renewals are then replaced by it).
    pub watchdog: bool,
    /// Watchdog interval, ms; `None`: a third of the TTL (Redisson's
    /// `lockWatchdogTimeout / 3`).
    pub renew_every_ms: Option<i64>,
    /// A gap of at least this many ms between two of a holder's own logged
    /// lines is taken as a pause (stop-the-world GC, partition): the
    /// watchdog's renewals due inside it are sent only when it ends, and
    /// fail if the lease expired meanwhile. `None`: no pauses.
    pub pause_ms: Option<i64>,
    /// Releases delete only the releaser's own lock (compare-and-delete): a
    /// foreign release deletes nothing. `false` keeps the log's behaviour
    /// (plain deletes on a key where the log shows a foreign release).
    pub owner_check: bool,
    /// Writes carry the hold's fencing token and the storage accepts only
    /// the newest token granted on the key: a stale holder's deduction is
    /// rejected.
    pub fencing: bool,
}

impl Policy {
    /// True when every field keeps the log's behaviour.
    pub fn is_as_logged(&self) -> bool {
        *self == Policy::default()
    }

    /// Short plain-words name: `TTL 5000 ms + watchdog every 1667 ms`.
    pub fn label(&self) -> String {
        self.label_in(false)
    }

    /// [`Policy::label`] in Simplified Chinese with `zh` (the words of the
    /// Chinese report: 过期时间, 看门狗, 栅栏令牌), else in English.
    pub fn label_in(&self, zh: bool) -> String {
        let mut parts = Vec::new();
        if let Some(t) = self.ttl_ms {
            parts.push(if zh {
                format!("过期时间 {t} ms")
            } else {
                format!("TTL {t} ms")
            });
        }
        if self.watchdog {
            let every = match (self.renew_every_ms, self.ttl_ms) {
                (Some(r), _) => Some(format!("{r} ms")),
                (None, Some(t)) => Some(format!("{} ms", (t / 3).max(1))),
                (None, None) => None,
            };
            parts.push(match (every, zh) {
                (Some(every), false) => format!("watchdog every {every}"),
                (None, false) => "watchdog every TTL/3".to_string(),
                (Some(every), true) => format!("看门狗每 {every} 续期"),
                (None, true) => "看门狗每隔三分之一过期时间续期".to_string(),
            });
            if let Some(p) = self.pause_ms {
                parts.push(if zh {
                    format!("停顿 >= {p} ms")
                } else {
                    format!("pauses >= {p} ms")
                });
            }
        }
        let words =
            |en: &'static str, zh_words: &'static str| if zh { zh_words } else { en }.to_string();
        if self.owner_check {
            parts.push(words("owner-checked release", "校验持有者的释放"));
        }
        if self.fencing {
            parts.push(words("fencing", "写入时校验栅栏令牌"));
        }
        if parts.is_empty() {
            words("as logged (model)", "按日志推演（模型）")
        } else {
            parts.join(" + ")
        }
    }

    /// Checks the numbers.
    ///
    /// # Errors
    /// A TTL, interval or pause that is not at least 1 ms.
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [
            ("TTL", self.ttl_ms),
            ("watchdog interval", self.renew_every_ms),
            ("pause", self.pause_ms),
        ] {
            if let Some(v) = v.filter(|&v| v < 1) {
                return Err(format!("the {name} must be at least 1 ms, got {v}"));
            }
        }
        Ok(())
    }

    /// The standard set compared when no policy is named: a watchdog alone,
    /// an owner-checked release alone, fencing alone, and all three.
    pub fn standard_set() -> Vec<Policy> {
        let watchdog = Policy {
            watchdog: true,
            ..Policy::default()
        };
        vec![
            watchdog.clone(),
            Policy {
                owner_check: true,
                ..Policy::default()
            },
            Policy {
                fencing: true,
                ..Policy::default()
            },
            Policy {
                owner_check: true,
                fencing: true,
                ..watchdog
            },
        ]
    }
}

/// One hold as replayed (parallel to [`Analysis::leases`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplayedHold {
    /// The hold in [`Analysis::leases`].
    pub lease: LeaseId,
    /// When it asked for the lock: its logged acquire, ns.
    pub arrival_ns: i64,
    /// When the replay granted it, ns; `None` when it timed out or was still
    /// waiting when the replay ended.
    pub start_ns: Option<i64>,
    /// End of its work (start + the logged work length), ns.
    pub end_ns: Option<i64>,
    /// When its lock ended in the replay, ns.
    pub lock_end_ns: Option<i64>,
    /// How its lock ended in the replay.
    pub lock_end: Option<LockEnd>,
    /// Time spent waiting for the lock, ms (up to the wait limit when it
    /// timed out).
    pub waited_ms: f64,
    /// Gave up after the wait limit: its work (and its sales) did not happen.
    pub timed_out: bool,
    /// Never granted: still waiting when the replay ended (a lock that is
    /// never released, no wait limit).
    pub still_waiting: bool,
    /// Its writes rejected by fencing.
    pub rejected_writes: usize,
}

/// What one policy gives on the file set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// The policy.
    pub policy: Policy,
    /// Its name in plain words.
    pub label: String,
    /// Overlap pairs of the replayed holds (docs/semantics.md §4).
    pub overlap_pairs: usize,
    /// Incidents of the replayed holds (§5).
    pub incidents: usize,
    /// Oversold units over all products (§7, with the replayed sales).
    pub oversold_units: i64,
    /// Of `oversold_units`, those kept as logged: products whose initial
    /// stock is unknown cannot be replayed.
    pub oversold_kept: i64,
    /// Loss, in `Settings::currency` ([`crate::money::loss`]).
    pub loss: Loss,
    /// The longest time a request waited for the lock, ms (the wait it adds:
    /// in the log every hold was granted when it asked).
    pub longest_wait_ms: f64,
    /// Requests that gave up after the wait limit.
    pub timed_out: usize,
    /// Requests still waiting when the replay ended.
    pub still_waiting: usize,
    /// Deductions or orders rejected by fencing.
    pub rejected_writes: usize,
    /// Sales the replay did not make (timeouts, fencing, or a holder that
    /// would have read that the stock was gone).
    pub sales_not_made: usize,
    /// Every hold, parallel to [`Analysis::leases`].
    pub holds: Vec<ReplayedHold>,
    /// Overlaps of the replayed holds as (earlier, later) lease ids.
    pub overlaps: Vec<(usize, usize)>,
}

/// What actually happened, from the analysis: the first row of the table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Actual {
    /// Overlap pairs.
    pub overlap_pairs: usize,
    /// Incidents.
    pub incidents: usize,
    /// Oversold units.
    pub oversold_units: i64,
    /// Loss, in `Settings::currency` ([`crate::money::loss`]).
    pub loss: Loss,
}

/// The what-if of one file set: what happened, the model replayed as
/// logged, and each policy asked for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WhatIf {
    /// What the analysis found.
    pub actual: Actual,
    /// The replay with the log's own behaviour ([`Policy::default`]): when
    /// it differs from `actual`, the model does not reproduce this log and
    /// the policies should be compared with this row.
    pub as_logged: Outcome,
    /// Each policy asked for, in order.
    pub policies: Vec<Outcome>,
    /// The wait limit used, ms.
    pub wait_limit_ms: Option<i64>,
    /// Caveats that concern this file set (unknown TTLs, unknown stock...).
    pub notes: Vec<WhatIfNote>,
}

impl WhatIf {
    /// True when the model replayed as logged gives what happened.
    pub fn model_matches(&self) -> bool {
        self.as_logged.overlap_pairs == self.actual.overlap_pairs
            && self.as_logged.oversold_units == self.actual.oversold_units
    }
}

/// Replays the holds of `analysis` (computed from `log` with `settings`)
/// under each of `policies`, a request waiting at most `wait_limit_ms`
/// (`None`: as long as it takes).
///
/// The model (docs/semantics.md §10): per lock key, each hold asks for the
/// lock at its logged acquire; it is granted at once when the lock is free
/// (or held by the same holder), else it waits in arrival order until the
/// lock is free; it then works as long as its logged believed window, with
/// its business lines shifted by its wait. Never panics; cost is O(n log n)
/// in holds and business lines per policy.
pub fn what_if(
    log: &LoadedLog,
    analysis: &Analysis,
    settings: &Settings,
    policies: &[Policy],
    wait_limit_ms: Option<i64>,
) -> WhatIf {
    let prepared = Prepared::new(log, analysis);
    what_if_prepared(&prepared, log, analysis, settings, policies, wait_limit_ms)
}

/// What every replay of one analysis reads from its log (each hold's lines,
/// the business lines, the initial stock), built once: most of a replay's
/// cost on a large log, so the window keeps it while policies change.
pub struct Prepared(stock::Input);

impl Prepared {
    /// Reads it from `log` and the `analysis` computed from it.
    pub fn new(log: &LoadedLog, analysis: &Analysis) -> Prepared {
        Prepared(stock::Input::new(log, analysis))
    }
}

/// [`what_if`] over a [`Prepared`] of the same `log` and `analysis`.
pub fn what_if_prepared(
    prepared: &Prepared,
    log: &LoadedLog,
    analysis: &Analysis,
    settings: &Settings,
    policies: &[Policy],
    wait_limit_ms: Option<i64>,
) -> WhatIf {
    let input = &prepared.0;
    let run = |p: &Policy| replay(input, log, analysis, settings, p, wait_limit_ms);
    let as_logged = run(&Policy::default());
    let outcomes = policies.iter().map(run).collect();
    WhatIf {
        actual: Actual {
            overlap_pairs: analysis.summary.overlap_pairs,
            incidents: analysis.summary.incidents,
            oversold_units: analysis.summary.oversold_units,
            loss: analysis.summary.loss,
        },
        as_logged,
        policies: outcomes,
        wait_limit_ms,
        notes: notes(log, analysis, input),
    }
}

/// One policy over the prepared input.
fn replay(
    input: &stock::Input,
    log: &LoadedLog,
    analysis: &Analysis,
    settings: &Settings,
    policy: &Policy,
    wait_limit_ms: Option<i64>,
) -> Outcome {
    let holds = lock::replay_locks(log, analysis, &input.gaps, policy, wait_limit_ms);
    let (overlap_pairs, incidents, overlaps) = lock::count_overlaps(analysis, &holds, settings);
    let mut holds = holds;
    let sales = stock::replay_sales(input, log, analysis, &mut holds, policy.fencing);
    let oversold_units = sales.oversold_units;
    let wait = |h: &ReplayedHold| h.waited_ms;
    Outcome {
        label: policy.label(),
        policy: policy.clone(),
        overlap_pairs,
        incidents,
        oversold_units,
        oversold_kept: input.kept_oversold(),
        loss: crate::money::loss(oversold_units, settings.unit_loss),
        longest_wait_ms: holds.iter().map(wait).fold(0.0, f64::max),
        timed_out: holds.iter().filter(|h| h.timed_out).count(),
        still_waiting: holds.iter().filter(|h| h.still_waiting).count(),
        rejected_writes: holds.iter().map(|h| h.rejected_writes).sum(),
        sales_not_made: sales.not_made,
        holds,
        overlaps,
    }
}

/// A caveat of the what-if on one file set, printed in English or Chinese
/// ([`WhatIfNote::text`]); it serialises as its English text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhatIfNote {
    /// Holds whose TTL is unknown.
    UnknownTtl {
        /// How many.
        holds: usize,
    },
    /// Locks that vanished on the server.
    Vanished {
        /// How many.
        locks: usize,
    },
    /// Products whose initial stock is unknown.
    NoInitialStock {
        /// How many.
        products: usize,
    },
    /// Sales made outside any hold.
    UnheldSales {
        /// How many.
        sales: usize,
    },
    /// Holds whose process stalled (a GC pause, a safepoint) for longer
    /// than their TTL, by the runtime's own log (docs/semantics.md §11): a
    /// watchdog in that process is stopped too.
    StallBeyondTtl {
        /// How many holds.
        holds: usize,
        /// The longest such stall, ms.
        longest_ms: i64,
        /// Its hold's TTL, ms.
        ttl_ms: i64,
    },
}

impl WhatIfNote {
    /// The caveat as a sentence without a final stop, in Simplified Chinese
    /// with `zh` (the words of the reports), else in English.
    pub fn text(&self, zh: bool) -> String {
        Message::text(self, zh)
    }
}

impl Message for WhatIfNote {
    fn en(&self) -> String {
        match *self {
            WhatIfNote::UnknownTtl { holds } => format!(
                "{holds} hold(s) have an unknown TTL: where their lock ended by the next acquire, \
                 the replay assumes it vanished then (the worst case), under every policy"
            ),
            WhatIfNote::Vanished { locks } => format!(
                "{locks} lock(s) vanished on the server (failover, flush, eviction): the replay \
                 deletes whatever lock is held at those instants; no lock policy prevents that, \
                 only fencing contains it"
            ),
            WhatIfNote::NoInitialStock { products } => format!(
                "{products} product(s) have no known initial stock: their oversold units are kept \
                 as logged under every policy"
            ),
            WhatIfNote::UnheldSales { sales } => {
                format!("{sales} sale(s) were made outside any hold: kept as logged")
            }
            WhatIfNote::StallBeyondTtl {
                holds,
                longest_ms,
                ttl_ms,
            } => format!(
                "with a watchdog, the {:.1} s pause still exceeds the {:.1} s TTL: the watchdog \
                 thread is paused too ({holds} hold(s) stalled longer than their TTL, by the \
                 runtime's log); the replay pauses the watchdog there",
                longest_ms as f64 / 1000.0,
                ttl_ms as f64 / 1000.0
            ),
        }
    }

    fn zh(&self) -> String {
        match *self {
            WhatIfNote::UnknownTtl { holds } => format!(
                "{holds} 次持有的过期时间未知：其锁在下一次获取时结束的，推演假定锁在那时消失（最坏情况），每种策略都如此"
            ),
            WhatIfNote::Vanished { locks } => format!(
                "{locks} 把锁从服务器上消失了（故障转移、清空或淘汰）：推演在这些时刻删除当时持有的锁；没有哪种锁策略能避免，只有栅栏令牌能拦住它"
            ),
            WhatIfNote::NoInitialStock { products } => {
                format!("{products} 个商品的初始库存未知：每种策略下它们的超卖件数都按日志保留")
            }
            WhatIfNote::UnheldSales { sales } => {
                format!("{sales} 笔销售发生在任何持有之外：按日志保留")
            }
            WhatIfNote::StallBeyondTtl {
                holds,
                longest_ms,
                ttl_ms,
            } => format!(
                "即使有看门狗，{:.1} 秒的停顿仍超过 {:.1} 秒的过期时间：看门狗线程也一起被暂停了（据运行时日志，{holds} 次持有的停顿超过其过期时间）；推演中看门狗在那段时间也暂停",
                longest_ms as f64 / 1000.0,
                ttl_ms as f64 / 1000.0
            ),
        }
    }
}

impl std::fmt::Display for WhatIfNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.en())
    }
}

impl Serialize for WhatIfNote {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.en())
    }
}

/// The caveats of this file set.
fn notes(log: &LoadedLog, analysis: &Analysis, input: &stock::Input) -> Vec<WhatIfNote> {
    let mut notes = Vec::new();
    if let Some(n) = stall_note(log, analysis) {
        notes.push(n);
    }
    let holds = analysis.leases.iter().filter(|l| l.ttl_unknown).count();
    if holds > 0 {
        notes.push(WhatIfNote::UnknownTtl { holds });
    }
    let locks = analysis
        .leases
        .iter()
        .filter(|l| l.lock_end == LockEnd::Vanished)
        .count();
    if locks > 0 {
        notes.push(WhatIfNote::Vanished { locks });
    }
    if input.products_without_stock > 0 {
        notes.push(WhatIfNote::NoInitialStock {
            products: input.products_without_stock,
        });
    }
    if input.unheld_sales > 0 {
        notes.push(WhatIfNote::UnheldSales {
            sales: input.unheld_sales,
        });
    }
    notes
}

/// The holds whose cited stall (a runtime's pause matched by host) lasted
/// longer than their TTL, as a [`WhatIfNote::StallBeyondTtl`].
fn stall_note(log: &LoadedLog, analysis: &Analysis) -> Option<WhatIfNote> {
    let mut holds = std::collections::BTreeSet::new();
    let mut longest: Option<(i64, i64)> = None;
    for c in &analysis.citations {
        let ev = log.evidence.get(c.evidence)?;
        let Some(ttl_ms) = analysis
            .leases
            .get(c.lease.index())
            .and_then(|l| l.ttl_ms.get())
        else {
            continue;
        };
        let len_ms = ev.length_ms().unwrap_or(0.0).round() as i64;
        if c.role == crate::analysis::evidence::CitationRole::Stall
            && c.tied
            && ev.kind != crate::model::EvidenceKind::SlowCommand
            && len_ms > ttl_ms
        {
            holds.insert(c.lease);
            if longest.is_none_or(|(l, _)| len_ms > l) {
                longest = Some((len_ms, ttl_ms));
            }
        }
    }
    longest.map(|(longest_ms, ttl_ms)| WhatIfNote::StallBeyondTtl {
        holds: holds.len(),
        longest_ms,
        ttl_ms,
    })
}

/// ms from ns, for display.
fn ms(ns: i64) -> f64 {
    ns as f64 / NS_PER_MS as f64
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::analysis::analyze;
    use crate::model::EventKind::{self, *};
    use crate::model::{Event, LogBuilder, SourceRef};

    /// `(ms, kind, key, holder, ttl_ms)` rows as a log.
    fn log_of(rows: &[(i64, EventKind, &str, &str, Option<i64>)]) -> LoadedLog {
        let mut b = LogBuilder::new();
        for (n, &(at_ms, kind, key, holder, ttl)) in rows.iter().enumerate() {
            let source = SourceRef {
                file: 0,
                line: n as u32 + 1,
            };
            let mut e = Event::new(at_ms * NS_PER_MS, kind, source);
            e.key = Some(b.intern(key));
            e.holder = Some(b.intern(holder));
            e.set_ttl_ms(ttl);
            b.push(e);
        }
        b.finish()
    }

    /// One key, holders `H0..`: (arrival ms, work ms, how the work ends).
    fn log_from(holds: &[(i64, i64, u8)], ttl_ms: i64) -> LoadedLog {
        let names: Vec<String> = (0..holds.len()).map(|i| format!("H{i}")).collect();
        let mut rows: Vec<(i64, EventKind, &str, &str, Option<i64>)> = Vec::new();
        for (i, &(at, work, end)) in holds.iter().enumerate() {
            rows.push((at, Acquired, "k", &names[i], Some(ttl_ms)));
            let kind = [Released, ReleaseFailed, Activity][usize::from(end % 3)];
            rows.push((at + work, kind, "k", &names[i], None));
        }
        rows.sort_by_key(|r| r.0);
        log_of(&rows)
    }

    /// `holds` as a lock would have granted them: in arrival order, each
    /// acquire waits until the one before is released (a release before
    /// its expiry) or has expired, plus 1 ms, so that the log has no lock
    /// that vanished (§3).
    fn granted(holds: &[(i64, i64, u8)], ttl_ms: i64) -> Vec<(i64, i64, u8)> {
        let mut sorted = holds.to_vec();
        sorted.sort_by_key(|h| h.0);
        let mut free_at = i64::MIN;
        for h in &mut sorted {
            h.0 = h.0.max(free_at.saturating_add(1));
            let released = h.2 % 3 == 0 && h.1 < ttl_ms;
            free_at = h.0 + if released { h.1 } else { ttl_ms };
        }
        sorted
    }

    /// True when a lock in the log vanished or ended unknown: a server
    /// event the replay keeps at its time, whoever holds the lock then.
    fn has_vanish(log: &LoadedLog) -> bool {
        analyze(log, &Settings::default())
            .leases
            .iter()
            .any(|l| matches!(l.lock_end, LockEnd::Vanished | LockEnd::Unknown))
    }

    fn pairs(log: &LoadedLog, policy: &Policy) -> usize {
        let a = analyze(log, &Settings::default());
        what_if(
            log,
            &a,
            &Settings::default(),
            std::slice::from_ref(policy),
            None,
        )
        .policies[0]
            .overlap_pairs
    }

    #[test]
    fn a_watchdog_stops_a_lease_expiry_overlap_an_owner_check_does_not() {
        let log = log_from(&[(0, 300, 1), (150, 50, 0)], 100);
        assert_eq!(pairs(&log, &Policy::default()), 1);
        let checked = Policy {
            owner_check: true,
            ..Policy::default()
        };
        assert_eq!(pairs(&log, &checked), 1);
        let watchdog = Policy {
            watchdog: true,
            ..Policy::default()
        };
        assert_eq!(pairs(&log, &watchdog), 0);
    }

    #[test]
    fn a_longer_ttl_still_below_the_work_can_shift_holds_into_a_new_overlap() {
        // The counterexample proptest found to "a longer TTL never gives
        // more overlaps": H1 works 789..1332 ms, H0 asks at 1025 for 908 ms,
        // H2 asks at 1933 for an instant. With TTL 100 H0 starts at 1025 and
        // its window ends at 1933, when H2 acquires: 1 overlap. With TTL 237
        // H0 waits 1 ms for H1's lease, so its window ends at 1934 and H2's
        // acquire falls inside it: 2 overlaps (docs/semantics.md §10).
        let log = log_from(&[(1025, 908, 0), (789, 543, 0), (1933, 0, 0)], 100);
        assert_eq!(pairs(&log, &Policy::default()), 1);
        let longer = Policy {
            ttl_ms: Some(237),
            ..Policy::default()
        };
        assert_eq!(pairs(&log, &longer), 2);
    }

    #[test]
    fn every_note_and_policy_name_reads_in_chinese_without_english_words() {
        let notes = [
            WhatIfNote::UnknownTtl { holds: 2 },
            WhatIfNote::Vanished { locks: 1 },
            WhatIfNote::NoInitialStock { products: 3 },
            WhatIfNote::UnheldSales { sales: 4 },
            WhatIfNote::StallBeyondTtl {
                holds: 1,
                longest_ms: 2900,
                ttl_ms: 2000,
            },
        ];
        for n in notes {
            let zh = n.text(true);
            assert!(!zh.chars().any(|c| c.is_ascii_alphabetic()), "{zh}");
            assert!(zh.chars().any(|c| c.is_ascii_digit()), "the count: {zh}");
            assert_ne!(zh, n.text(false));
            assert_eq!(
                serde_json::to_string(&n).expect("json"),
                serde_json::to_string(&n.text(false)).expect("json"),
                "the JSON keeps the English"
            );
        }
        let every = Policy {
            ttl_ms: Some(5000),
            watchdog: true,
            renew_every_ms: None,
            pause_ms: Some(400),
            owner_check: true,
            fencing: true,
        };
        assert_eq!(
            every.label(),
            "TTL 5000 ms + watchdog every 1666 ms + pauses >= 400 ms + owner-checked release + fencing"
        );
        for p in [every, Policy::default()] {
            let zh = p.label_in(true);
            let letters: String = zh.chars().filter(char::is_ascii_alphabetic).collect();
            assert!(letters.chars().all(|c| "ms".contains(c)), "{zh}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// A policy never gives more overlaps than a strictly stronger one,
        /// for the strengthenings that leave no lease to run out while its
        /// holder works: the same plus a watchdog (renewing within the TTL,
        /// no pauses), or plus a TTL above every hold's work. Fencing
        /// changes no overlap. (A longer TTL still below the work is not
        /// such a strengthening: see the test above.) Logs where a lock
        /// vanished are left out: the replay keeps a vanish at its logged
        /// time, and a stronger policy that keeps a holder longer can have
        /// it hit that holder (an acquire at the very deadline of a lease is
        /// such a vanish in §3's terms, and random logs make many).
        #[test]
        fn a_stronger_policy_never_gives_more_overlaps(
            holds in proptest::collection::vec((0i64..3000, 0i64..2500, 0u8..3), 1..7),
            log_ttl in 100i64..2000,
            ttl in proptest::option::of(100i64..2000),
            extra_ttl in 1i64..2000,
            owner_check: bool,
            watchdog: bool,
            which in 0u8..3,
        ) {
            let log = log_from(&granted(&holds, log_ttl), log_ttl);
            prop_assume!(!has_vanish(&log));
            let longest = holds.iter().map(|h| h.1).max().unwrap_or(0);
            let weak = Policy { ttl_ms: ttl, watchdog, owner_check, ..Policy::default() };
            let strong = match which {
                0 => Policy { fencing: true, ..weak.clone() },
                1 => Policy { watchdog: true, ..weak.clone() },
                _ => Policy { ttl_ms: Some(longest + extra_ttl), ..weak.clone() },
            };
            let (w, s) = (pairs(&log, &weak), pairs(&log, &strong));
            prop_assert!(s <= w, "weak {:?} gives {}, strong {:?} gives {}", weak, w, strong, s);
            if which == 0 {
                prop_assert_eq!(s, w, "fencing changes no overlap");
            }
        }

        /// An owner-checked release, added alone, is checked the same way.
        #[test]
        fn an_owner_checked_release_never_gives_more_overlaps(
            holds in proptest::collection::vec((0i64..3000, 0i64..2500, 0u8..3), 1..7),
            log_ttl in 100i64..2000,
        ) {
            let log = log_from(&granted(&holds, log_ttl), log_ttl);
            prop_assume!(!has_vanish(&log));
            let checked = Policy { owner_check: true, ..Policy::default() };
            let (w, s) = (pairs(&log, &Policy::default()), pairs(&log, &checked));
            prop_assert!(s <= w, "as logged {}, owner-checked {}", w, s);
        }
    }
}

//! Findings that are not (or not only) overlaps: near-misses, renewal gaps,
//! locks without TTL, foreign releases, clock skew and fencing violations
//! (docs/semantics.md §6).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::LeaseId;
use super::leases::time_of;
use super::leases::{LeaseSet, Orphan};
use super::{
    EventView, Finding, FindingDetail, FindingKind, Incident, Lease, LockEnd, NS_PER_MS, Overlap,
    Settings, apply_host_offsets, detect_overlaps, reconstruct_leases_in,
};
use crate::model::{EventKind, LoadedLog, Sym};

fn ms(ns: i64) -> f64 {
    ns as f64 / NS_PER_MS as f64
}

fn finding(kind: FindingKind, lease: &Lease, at_ns: i64, detail: FindingDetail) -> Finding {
    Finding {
        kind,
        key: Some(lease.key),
        holder: Some(lease.holder),
        lease: Some(lease.id),
        at_ns,
        detail,
    }
}

/// Every finding except `clock_skew` (see [`clock_skew`]).
///
/// - `near_miss`: a hold in no overlap whose time from its last grant
///   (acquire or last counted renewal) to the end of its window is at least
///   `near_miss_ratio` x TTL.
/// - `near_miss_streak`: `near_miss_streak` near-misses in a row on one key,
///   the usual alert rule ("hold time reached 80 % of the TTL N times").
/// - `renewal_gap`: a renewal after expiry, or, for a hold with renewals, a
///   gap longer than the TTL between consecutive points of acquire, renewals
///   and window end. One finding per hold.
/// - `ghost_renewal`: renewals logged after the holder's own release (a
///   watchdog that outlived the unlock); one finding per hold.
/// - `no_ttl`: an acquire whose TTL is absent, null or 0 in a file that has
///   a TTL field (an unknown TTL raises none).
/// - `foreign_release`: a hold whose lock another holder deleted.
/// - `fencing_violation`: a business write carrying a fencing token lower
///   than one already accepted on that key (a `write_rejected` was
///   contained by the storage; anything else was accepted). A business
///   write is a stock deduction, an order, a refused write or a line whose
///   event says it wrote ([`crate::model::Event::is_business_write`]); a
///   lock operation carrying the token (acquire, renewal, release, a lost
///   lock) is none.
/// - `no_acquire`: a holder's renewals, or releases that ended no live
///   lock and are not known to have deleted nothing, on a key where it has
///   no acquire before them (one per key and holder, at the first;
///   [`Orphan`]).
///
/// `in_overlap` is the holds in an incident
/// ([`Incident::holds_in_overlaps`]): none of them is a near-miss.
pub fn detect_findings(
    log: &LoadedLog,
    times_ns: &[i64],
    set: &LeaseSet,
    in_overlap: &foldhash::HashSet<LeaseId>,
    settings: &Settings,
) -> Vec<Finding> {
    let name = |s: Sym| log.strings.get(s);
    let mut out = Vec::new();
    let mut streak: (Option<Sym>, u32) = (None, 0);
    for lease in &set.leases {
        if let Some(ttl) = lease.ttl_ms.get().filter(|&t| t > 0) {
            let used = lease.since_last_grant_ms();
            let near =
                !in_overlap.contains(&lease.id) && used >= settings.near_miss_ratio * ttl as f64;
            if near {
                out.push(finding(
                    FindingKind::NearMiss,
                    lease,
                    lease.window_end_ns,
                    FindingDetail::NearMiss {
                        holder: name(lease.holder).to_string(),
                        key: name(lease.key).to_string(),
                        used_ms: used,
                        ttl_ms: ttl,
                    },
                ));
            }
            if streak.0 != Some(lease.key) {
                streak = (Some(lease.key), 0);
            }
            streak.1 = if near { streak.1 + 1 } else { 0 };
            if near && streak.1 == settings.near_miss_streak.max(1) {
                out.push(finding(
                    FindingKind::NearMissStreak,
                    lease,
                    lease.window_end_ns,
                    FindingDetail::NearMissStreak {
                        holds: streak.1,
                        key: name(lease.key).to_string(),
                        percent: settings.near_miss_ratio * 100.0,
                    },
                ));
            }
        }
        if let Some(gap) = renewal_gap(lease) {
            out.push(finding(FindingKind::RenewalGap, lease, gap.0, gap.1));
        }
        if let Some(&first) = lease.ghost_renewals_ns().first() {
            out.push(finding(
                FindingKind::GhostRenewal,
                lease,
                first,
                FindingDetail::GhostRenewal {
                    holder: name(lease.holder).to_string(),
                    key: name(lease.key).to_string(),
                    renewals: lease.ghost_renewals_ns().len(),
                    after_ms: ms(first - lease.window_end_ns),
                },
            ));
        }
        // An unknown TTL (no TTL field in the file) is said once, in the
        // file's notes, not per hold.
        if lease.ttl_ms.get().is_none() && !lease.ttl_unknown {
            out.push(finding(
                FindingKind::NoTtl,
                lease,
                lease.acquired_ns,
                FindingDetail::NoTtl {
                    holder: name(lease.holder).to_string(),
                    key: name(lease.key).to_string(),
                },
            ));
        }
        if lease.lock_end == LockEnd::ForeignRelease {
            let by = lease.ended_by.and_then(|b| set.leases.get(b.index()));
            out.push(Finding {
                kind: FindingKind::ForeignRelease,
                key: Some(lease.key),
                holder: by.map(|b| b.holder),
                lease: Some(lease.id),
                at_ns: lease.lock_end_ns,
                detail: FindingDetail::ForeignRelease {
                    releaser: by.map(|b| name(b.holder).to_string()),
                    holder: name(lease.holder).to_string(),
                    key: name(lease.key).to_string(),
                },
            });
        }
    }
    out.extend(set.orphans.iter().map(|o| no_acquire(o, &name)));
    out.extend(fencing_violations(log, times_ns));
    out
}

/// The `no_acquire` finding of an [`Orphan`].
fn no_acquire<'a>(o: &Orphan, name: &impl Fn(Sym) -> &'a str) -> Finding {
    Finding {
        kind: FindingKind::NoAcquire,
        key: Some(o.key),
        holder: Some(o.holder),
        lease: None,
        at_ns: o.first_ns,
        detail: FindingDetail::NoAcquire {
            holder: name(o.holder).to_string(),
            key: name(o.key).to_string(),
            renewals: o.renewals,
            releases: o.releases,
        },
    }
}

/// The first renewal problem of a hold: `(at_ns, detail)`.
fn renewal_gap(lease: &Lease) -> Option<(i64, FindingDetail)> {
    if let Some(&late) = lease.late_renewals_ns().first() {
        let expired = lease.expiry_ns.get().unwrap_or(late);
        return Some((
            late,
            FindingDetail::LateRenewal {
                late_ms: ms(late - expired),
            },
        ));
    }
    let ttl_ns = lease.ttl_ms.get()?.saturating_mul(NS_PER_MS);
    if lease.renewals_ns().is_empty() {
        return None;
    }
    let points: Vec<i64> = std::iter::once(lease.acquired_ns)
        .chain(lease.renewals_ns().iter().copied())
        .chain(std::iter::once(lease.window_end_ns))
        .collect();
    points.windows(2).find(|w| w[1] - w[0] > ttl_ns).map(|w| {
        (
            w[0],
            FindingDetail::RenewalGap {
                gap_ms: ms(w[1] - w[0]),
                ttl_ms: ttl_ns / NS_PER_MS,
            },
        )
    })
}

fn fencing_violations(log: &LoadedLog, times_ns: &[i64]) -> Vec<Finding> {
    let mut highest: HashMap<Sym, i64> = HashMap::new();
    let mut order: Vec<usize> = (0..log.events.len())
        .filter(|&i| {
            let e = &log.events[i];
            e.key.is_some() && e.fencing_token().is_some() && e.is_business_write()
        })
        .collect();
    // `i` makes the key unique: the unstable sort needs no scratch copy.
    order.sort_unstable_by_key(|&i| (time_of(times_ns, i, &log.events[i]), i));
    let mut out = Vec::new();
    for i in order {
        let e = &log.events[i];
        let (Some(key), Some(token)) = (e.key, e.fencing_token()) else {
            continue;
        };
        let rejected = e.kind == EventKind::WriteRejected;
        if let Some(&max) = highest.get(&key)
            && token < max
        {
            out.push(Finding {
                kind: FindingKind::FencingViolation,
                key: Some(key),
                holder: e.holder,
                lease: None,
                at_ns: time_of(times_ns, i, e),
                detail: FindingDetail::FencingViolation {
                    token,
                    max,
                    rejected,
                },
            });
        }
        if !rejected {
            let max = highest.entry(key).or_insert(token);
            *max = (*max).max(token);
        }
    }
    out
}

/// `clock_skew`: the set of overlap pairs (key, earlier holder, later holder)
/// changes once `host_offsets_ms` is applied. One finding per pair that
/// appears or disappears with the correction.
///
/// On a key where either side has more pairs than an incident lists
/// (`Settings::max_listed_pairs`), the pairs are not compared one by one:
/// one finding when the key's number of pairs changes.
pub fn clock_skew(
    log: &LoadedLog,
    settings: &Settings,
    corrected: &[Overlap],
    corrected_incidents: &[Incident],
    leases: &[Lease],
) -> Vec<Finding> {
    let raw_times = apply_host_offsets(log, &BTreeMap::new());
    let raw = reconstruct_leases_in(log, &raw_times, settings, &EventView::split(log).0);
    let raw_found = detect_overlaps(&raw.leases, &raw.log_lag, settings.max_listed_pairs);
    // Per key: (pairs, first incident start, some pairs unlisted).
    let per_key = |incs: &[Incident]| -> BTreeMap<Sym, (usize, i64, bool)> {
        let mut m: BTreeMap<Sym, (usize, i64, bool)> = BTreeMap::new();
        for inc in incs {
            let e = m.entry(inc.key).or_insert((0, inc.start_ns, false));
            e.0 += inc.overlaps.len() + inc.overlaps_unlisted;
            e.1 = e.1.min(inc.start_ns);
            e.2 |= inc.overlaps_unlisted > 0;
        }
        m
    };
    let with_keys = per_key(corrected_incidents);
    let without_keys = per_key(&raw_found.incidents);
    let capped =
        |k: &Sym| with_keys.get(k).is_some_and(|e| e.2) || without_keys.get(k).is_some_and(|e| e.2);
    let pairs = |os: &[Overlap], ls: &[Lease]| -> BTreeMap<(Sym, Sym, Sym), i64> {
        os.iter()
            .filter(|o| !capped(&o.key))
            .map(|o| {
                (
                    (o.key, ls[o.earlier].holder, ls[o.later].holder),
                    o.start_ns,
                )
            })
            .collect()
    };
    let with = pairs(corrected, leases);
    let without = pairs(&raw_found.overlaps, &raw.leases);
    let all: BTreeSet<&(Sym, Sym, Sym)> = with.keys().chain(without.keys()).collect();
    let mut out = Vec::new();
    for pair in all {
        let (key, a, b) = *pair;
        let with_offsets = match (with.get(pair), without.get(pair)) {
            (Some(_), None) => true,
            (None, Some(_)) => false,
            _ => continue,
        };
        out.push(Finding {
            kind: FindingKind::ClockSkew,
            key: Some(key),
            holder: Some(b),
            lease: None,
            at_ns: with.get(pair).or(without.get(pair)).copied().unwrap_or(0),
            detail: FindingDetail::ClockSkew {
                earlier: log.strings.get(a).to_string(),
                later: log.strings.get(b).to_string(),
                key: log.strings.get(key).to_string(),
                with_offsets,
            },
        });
    }
    let keys: BTreeSet<&Sym> = with_keys.keys().chain(without_keys.keys()).collect();
    for key in keys.into_iter().filter(|k| capped(k)) {
        let (w, w_at, _) = with_keys.get(key).copied().unwrap_or((0, i64::MAX, false));
        let (wo, wo_at, _) = without_keys
            .get(key)
            .copied()
            .unwrap_or((0, i64::MAX, false));
        if w == wo {
            continue;
        }
        out.push(Finding {
            kind: FindingKind::ClockSkew,
            key: Some(*key),
            holder: None,
            lease: None,
            at_ns: w_at.min(wo_at),
            detail: FindingDetail::ClockSkewCount {
                key: log.strings.get(*key).to_string(),
                with_offsets: w,
                logged: wo,
            },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use crate::analysis::leases::tests::{log_of, on_host};
    use crate::model::EventKind::*;
    use crate::model::Message;

    fn kinds(f: &[Finding]) -> Vec<FindingKind> {
        f.iter().map(|f| f.kind).collect()
    }

    #[test]
    fn a_watchdog_renewing_after_the_release_is_one_ghost_renewal_not_a_gap() {
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(1000)),
            (300, Released, "k", "A", None),
            (1200, Renewed, "k", "A", Some(1000)),
            (2100, Renewed, "k", "A", Some(1000)),
        ]);
        let a = analyze(&log, &Settings::default());
        assert_eq!(kinds(&a.findings), vec![FindingKind::GhostRenewal]);
        assert_eq!(a.findings[0].at_ns, 1200 * NS_PER_MS);
        assert!(
            a.findings[0].detail.en().contains("2 time(s)"),
            "{}",
            a.findings[0].detail
        );
    }

    /// A log that starts inside two holds (renewals and a release, no
    /// acquire) must not report "0 holders, 0 incidents" with exit 0, its
    /// lock events dropped unsaid.
    #[test]
    fn renewals_and_releases_with_no_acquire_are_no_acquire_findings() {
        let orphans = [
            (0, Renewed, "k", "A", Some(1000)),
            (500, Renewed, "k", "B", Some(1000)),
            (700, Renewed, "k", "A", Some(1000)),
            (3000, Released, "k", "A", None),
        ];
        let log = log_of(&orphans);
        let a = analyze(&log, &Settings::default());
        assert!(a.leases.is_empty());
        assert_eq!(kinds(&a.findings), vec![FindingKind::NoAcquire; 2]);
        let at: Vec<i64> = a.findings.iter().map(|f| f.at_ns / NS_PER_MS).collect();
        assert_eq!(at, [0, 500]);
        assert!(
            a.findings[0]
                .detail
                .en()
                .contains("A renewed k 2 time(s) and released it (or lost it) 1 time(s)")
        );
        let problems = crate::analysis::problems(&log, &a);
        assert_eq!(problems, [crate::analysis::Problem::NoHold { orphans: 2 }]);
        // Beside a hold on another key: the holds are read, the orphans
        // still said, and no problem (the analysis stands).
        let mut rows = orphans.to_vec();
        rows.push((0, Acquired, "j", "C", Some(1000)));
        rows.push((100, Released, "j", "C", None));
        let log = log_of(&rows);
        let a = analyze(&log, &Settings::default());
        assert_eq!(a.leases.len(), 1);
        assert_eq!(kinds(&a.findings), vec![FindingKind::NoAcquire; 2]);
        assert!(crate::analysis::problems(&log, &a).is_empty());
        // A holder's own acquire before its renewals: no finding.
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(1000)),
            (500, Renewed, "k", "A", Some(1000)),
        ]);
        assert!(analyze(&log, &Settings::default()).findings.is_empty());
    }

    #[test]
    fn an_unknown_ttl_is_no_no_ttl_and_claims_no_expiry() {
        let rows = [
            (0, Acquired, "k", "A", None),
            (2100, Acquired, "k", "B", None),
            (3000, ReleaseFailed, "k", "A", None),
            (3100, Released, "k", "B", None),
        ];
        let known_absent = analyze(&log_of(&rows), &Settings::default());
        assert_eq!(
            kinds(&known_absent.findings),
            vec![FindingKind::NoTtl, FindingKind::NoTtl]
        );
        assert_eq!(
            known_absent.overlaps[0].cause,
            crate::analysis::Cause::LockVanished
        );
        let log = crate::analysis::leases::tests::ttl_unknown(log_of(&rows));
        let a = analyze(&log, &Settings::default());
        assert!(a.findings.is_empty(), "{:?}", a.findings);
        assert_eq!(a.overlaps.len(), 1);
        assert_eq!(a.overlaps[0].cause, crate::analysis::Cause::TtlUnknown);
        assert_eq!(a.incidents[0].cause, crate::analysis::Cause::TtlUnknown);
    }

    #[test]
    fn near_miss_needs_the_ratio_and_no_overlap() {
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(5000)),
            (4600, Released, "k", "A", None),
            (5000, Acquired, "k", "B", Some(5000)),
            (5100, Released, "k", "B", None),
        ]);
        let a = analyze(&log, &Settings::default());
        assert_eq!(kinds(&a.findings), vec![FindingKind::NearMiss]);
        let strict = Settings {
            near_miss_ratio: 0.95,
            ..Settings::default()
        };
        assert!(analyze(&log, &strict).findings.is_empty());
    }

    #[test]
    fn three_near_misses_in_a_row_raise_the_alert() {
        let mut rows = Vec::new();
        for n in 0..3 {
            let t = n * 1000;
            rows.push((t, Acquired, "k", ["A", "B", "C"][n as usize], Some(1000)));
            rows.push((t + 900, Released, "k", ["A", "B", "C"][n as usize], None));
        }
        let a = analyze(&log_of(&rows), &Settings::default());
        assert_eq!(
            kinds(&a.findings),
            vec![
                FindingKind::NearMiss,
                FindingKind::NearMiss,
                FindingKind::NearMiss,
                FindingKind::NearMissStreak
            ]
        );
    }

    #[test]
    fn watchdog_that_stops_is_a_renewal_gap() {
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(1000)),
            (500, Renewed, "k", "A", Some(1000)),
            (1000, Renewed, "k", "A", Some(1000)),
            (1900, Released, "k", "A", None),
            (0, Acquired, "j", "B", Some(1000)),
            (500, Renewed, "j", "B", Some(1000)),
            (1200, Released, "j", "B", None),
        ]);
        let a = analyze(&log, &Settings::default());
        let gaps: Vec<&Finding> = a
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::RenewalGap)
            .collect();
        assert!(gaps.is_empty(), "{gaps:?}");
        let stopped = log_of(&[
            (0, Acquired, "k", "A", Some(1000)),
            (500, Renewed, "k", "A", Some(1000)),
            (1700, Renewed, "k", "A", Some(1000)),
            (1800, Released, "k", "A", None),
        ]);
        let a = analyze(&stopped, &Settings::default());
        assert_eq!(
            a.findings
                .iter()
                .filter(|f| f.kind == FindingKind::RenewalGap)
                .count(),
            1
        );
    }

    #[test]
    fn no_ttl_and_foreign_release_are_reported() {
        let log = log_of(&[
            (0, Acquired, "n", "S", None),
            (0, Acquired, "k", "A", Some(1000)),
            (1010, Acquired, "k", "B", Some(1000)),
            (1500, Released, "k", "A", None),
        ]);
        let a = analyze(&log, &Settings::default());
        let k = kinds(&a.findings);
        assert!(k.contains(&FindingKind::NoTtl));
        assert!(k.contains(&FindingKind::ForeignRelease));
    }

    #[test]
    fn lower_fencing_token_after_a_higher_one_is_a_violation() {
        let mut log = log_of(&[
            (0, StockDeducted, "k", "B", None),
            (10, WriteRejected, "k", "A", None),
            (20, StockDeducted, "k", "C", None),
        ]);
        log.events[0].update_detail(|d| d.fencing_token = Some(34));
        log.events[1].update_detail(|d| d.fencing_token = Some(33));
        log.events[2].update_detail(|d| d.fencing_token = Some(35));
        let f = fencing_violations(
            &log,
            &log.events.iter().map(|e| e.at_ns).collect::<Vec<_>>(),
        );
        assert_eq!(f.len(), 1);
        assert!(f[0].detail.en().contains("rejected"));
    }

    #[test]
    fn a_lock_operation_carrying_a_fencing_token_is_no_write() {
        // B holds token 34 and refreshes with it; A (token 33) logs its
        // acquire, its lost lock and a line of work that wrote nothing:
        // lock operations and plain work carry the token but write
        // nothing, so no violation (cases README, `fencing_violation`).
        let rows = [
            (0, Acquired, "k", "A", Some(1000)),
            (1100, Acquired, "k", "B", Some(1000)),
            (1200, Activity, "k", "B", None),
            (1300, Renewed, "k", "B", Some(1000)),
            (1400, LockLost, "k", "A", None),
            (1450, Activity, "k", "A", None),
            (1500, Released, "k", "A", None),
            (1600, AcquireFailed, "k", "A", None),
        ];
        let tokens = [33, 34, 34, 34, 33, 33, 33, 33];
        let mut log = log_of(&rows);
        for (e, t) in log.events.iter_mut().zip(tokens) {
            e.update_detail(|d| d.fencing_token = Some(t));
        }
        let times: Vec<i64> = log.events.iter().map(|e| e.at_ns).collect();
        assert!(fencing_violations(&log, &times).is_empty());
        // B's work line says it wrote (token 34), then A's does (33): a
        // violation, and the storage accepted it.
        log.events[2].set_says_it_wrote(true);
        log.events[5].set_says_it_wrote(true);
        let f = fencing_violations(&log, &times);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].at_ns, 1450 * NS_PER_MS);
        assert!(f[0].detail.en().contains("accepted it too"));
    }

    #[test]
    fn a_refresh_line_is_a_renewal_not_a_write() {
        // `refreshed` lines carrying the fencing token are renewals, not
        // writes (a false fencing_violation), and a refresh after the
        // expiry raises a renewal_gap.
        let text = br#"{"ts":"2024-09-01T10:00:00.000Z","event":"acquired","lock_key":"k","owner":"A","ttl_ms":1000,"fencing_token":34}
{"ts":"2024-09-01T10:00:00.500Z","event":"refreshed","lock_key":"k","owner":"A","ttl_ms":1000,"fencing_token":34}
{"ts":"2024-09-01T10:00:02.100Z","event":"acquired","lock_key":"k","owner":"B","ttl_ms":1000,"fencing_token":35}
{"ts":"2024-09-01T10:00:02.150Z","event":"refreshed","lock_key":"k","owner":"B","ttl_ms":1000,"fencing_token":35}
{"ts":"2024-09-01T10:00:02.250Z","event":"refreshed","lock_key":"k","owner":"A","ttl_ms":1000,"fencing_token":34}
{"ts":"2024-09-01T10:00:02.300Z","event":"released","lock_key":"k","owner":"A","fencing_token":34}
{"ts":"2024-09-01T10:00:02.400Z","event":"released","lock_key":"k","owner":"B","fencing_token":35}
"#;
        let mut b = crate::model::LogBuilder::new();
        crate::ingest::read_source(
            "app.jsonl",
            &text[..],
            &crate::ingest::IngestOptions::default(),
            &mut b,
            &crate::ingest::Progress::default(),
        )
        .expect("reads");
        let log = b.finish();
        assert_eq!(log.events[1].kind, Renewed);
        let a = analyze(&log, &Settings::default());
        let k = kinds(&a.findings);
        assert!(!k.contains(&FindingKind::FencingViolation), "{k:?}");
        assert!(k.contains(&FindingKind::RenewalGap), "{k:?}");
    }

    #[test]
    fn clock_offsets_that_create_an_overlap_are_clock_skew() {
        let log = on_host(
            log_of(&[
                (0, Acquired, "k", "A", Some(1000)),
                (1100, Acquired, "k", "B", Some(1000)),
                (1050, ReleaseFailed, "k", "A", None),
                (1300, Released, "k", "B", None),
            ]),
            "web-2",
            |line| line == 2 || line == 4,
        );
        let plain = analyze(&log, &Settings::default());
        assert!(plain.overlaps.is_empty());
        let skewed = Settings {
            host_offsets_ms: BTreeMap::from([("web-2".to_string(), 100.0)]),
            ..Settings::default()
        };
        let a = analyze(&log, &skewed);
        assert_eq!(a.overlaps.len(), 1);
        assert!(kinds(&a.findings).contains(&FindingKind::ClockSkew));
    }

    #[test]
    fn clock_skew_on_a_key_with_unlisted_pairs_compares_the_counts() {
        // Z's zombie window (expired at 1000, working until 2000) takes in
        // B, C and D; web-2 runs 100 ms behind, so in true time D acquires
        // after Z stopped: 3 pairs logged, 2 true.
        let log = on_host(
            log_of(&[
                (0, Acquired, "k", "Z", Some(1000)),
                (1100, Acquired, "k", "B", Some(1000)),
                (1150, Released, "k", "B", None),
                (1500, Acquired, "k", "C", Some(1000)),
                (1550, Released, "k", "C", None),
                (1950, Acquired, "k", "D", Some(1000)),
                (1990, Released, "k", "D", None),
                (2000, ReleaseFailed, "k", "Z", None),
            ]),
            "web-2",
            |line| (2..=7).contains(&line),
        );
        let skewed = |max_listed_pairs| Settings {
            host_offsets_ms: BTreeMap::from([("web-2".to_string(), -100.0)]),
            max_listed_pairs,
            ..Settings::default()
        };
        let skew = |a: &crate::analysis::Analysis| -> Vec<String> {
            a.findings
                .iter()
                .filter(|f| f.kind == FindingKind::ClockSkew)
                .map(|f| f.detail.en())
                .collect()
        };
        let listed = analyze(&log, &skewed(10));
        assert_eq!(listed.summary.overlap_pairs, 2);
        assert_eq!(
            skew(&listed),
            [
                "overlap of Z and D on k appears only in the logged times: the host clock offsets explain it away"
            ]
        );
        let capped = analyze(&log, &skewed(1));
        assert_eq!(capped.summary.overlap_pairs, 2);
        assert_eq!(
            skew(&capped),
            [
                "k has 2 overlap pairs once host clock offsets are applied and 3 in the logged times (too many to compare pair by pair)"
            ]
        );
    }
}

//! Overlaps (two holders believed they held one key at once) and their
//! grouping into incidents (docs/semantics.md §4–§5).

use std::collections::HashSet;

use super::{Cause, Incident, Lease, LockEnd, LogLagArtefact, Overlap};

/// Finds every overlap pair.
///
/// A pair (earlier, later) on one key with different holders is an overlap
/// when the later acquire falls strictly inside the earlier believed window
/// (so the windows intersect for more than 0 ns, or the later window is a
/// zero-length instant logged inside the earlier one) and the earlier
/// holder's lock had ended (expired, foreign release, vanished) at or before
/// the later acquire. Pairs in `log_lag` are returned separately as
/// artefacts, and only when their windows do intersect.
///
/// `leases` must be sorted by (key, acquire time) as
/// [`reconstruct_leases`](super::reconstruct_leases) returns them. A sweep
/// keeps the holds whose windows are still open, so the cost is
/// O(n x open windows), not O(n²).
pub fn detect_overlaps(
    leases: &[Lease],
    log_lag: &[LogLagArtefact],
) -> (Vec<Overlap>, Vec<LogLagArtefact>) {
    let lagged: HashSet<(usize, usize)> = log_lag.iter().map(|a| (a.earlier, a.later)).collect();
    let mut overlaps = Vec::new();
    let mut artefacts = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut current_key = None;
    for later in leases {
        if current_key != Some(later.key) {
            open.clear();
            current_key = Some(later.key);
        }
        let start = later.acquired_ns;
        open.retain(|&i| leases[i].window_end_ns > start);
        for &i in &open {
            let earlier = &leases[i];
            if earlier.holder == later.holder {
                continue;
            }
            // `open` holds only windows that end strictly after this acquire,
            // so the intersection is never negative. A zero-length later
            // window (acquire and release logged in the same tick of a
            // ms-resolution clock) still lasted a moment inside the earlier
            // window: it counts, with duration 0.
            let end = earlier.window_end_ns.min(later.window_end_ns);
            if lagged.contains(&(earlier.id, later.id)) {
                if let Some(a) = log_lag
                    .iter()
                    .find(|a| a.earlier == earlier.id && a.later == later.id)
                {
                    artefacts.push(a.clone());
                }
                continue;
            }
            let cause = match earlier.lock_end {
                LockEnd::Expired => Cause::LeaseExpired,
                LockEnd::ForeignRelease => Cause::ForeignRelease,
                LockEnd::Vanished => Cause::LockVanished,
                LockEnd::OwnRelease | LockEnd::Reacquired | LockEnd::StillHeld => continue,
            };
            if earlier.lock_end_ns > start {
                continue;
            }
            overlaps.push(Overlap {
                key: later.key,
                earlier: earlier.id,
                later: later.id,
                start_ns: start,
                end_ns: end,
                cause,
            });
        }
        open.push(later.id);
    }
    // Leases are grouped by key in name order: rank keys by their first lease.
    let rank = key_rank(leases);
    overlaps.sort_by_key(|o| (rank.get(&o.key).copied(), o.start_ns, o.earlier, o.later));
    (overlaps, artefacts)
}

/// Groups overlaps on one key into incidents, sorted by start time: an
/// overlap joins the incident before it when it intersects or touches it in
/// time, or shares a hold with it (one zombie overlapping several later
/// holders is one incident). At most `max_listed_pairs` overlaps are
/// listed per incident; the rest are counted in `overlaps_unlisted`.
/// Oversold units and loss are filled in later by
/// [`attribute_oversell`](super::attribute_oversell).
pub fn group_incidents(
    leases: &[Lease],
    overlaps: &[Overlap],
    max_listed_pairs: usize,
) -> Vec<Incident> {
    let mut incidents: Vec<Incident> = Vec::new();
    let mut current: Option<Incident> = None;
    for (idx, o) in overlaps.iter().enumerate() {
        if let Some(inc) = current.as_mut() {
            let shares_hold = inc.leases.contains(&o.earlier) || inc.leases.contains(&o.later);
            if inc.key == o.key && (o.start_ns <= inc.end_ns || shares_hold) {
                inc.end_ns = inc.end_ns.max(o.end_ns);
                inc.leases.extend([o.earlier, o.later]);
                if inc.overlaps.len() < max_listed_pairs {
                    inc.overlaps.push(idx);
                } else {
                    inc.overlaps_unlisted += 1;
                }
                continue;
            }
        }
        incidents.extend(current.take());
        current = Some(Incident {
            id: 0,
            key: o.key,
            start_ns: o.start_ns,
            end_ns: o.end_ns,
            leases: vec![o.earlier, o.later],
            overlaps: vec![idx],
            overlaps_unlisted: 0,
            cause: o.cause,
            sales: Vec::new(),
            oversold_units: 0,
            loss: 0.0,
        });
    }
    incidents.extend(current);
    for inc in &mut incidents {
        inc.leases.sort_by_key(|&l| (leases[l].acquired_ns, l));
        inc.leases.dedup();
    }
    let rank = key_rank(leases);
    incidents.sort_by_key(|i| (i.start_ns, rank.get(&i.key).copied()));
    for (id, inc) in incidents.iter_mut().enumerate() {
        inc.id = id;
    }
    incidents
}

/// Each key's position in the lease order (the id of its first lease).
fn key_rank(leases: &[Lease]) -> std::collections::HashMap<crate::model::Sym, usize> {
    let mut rank = std::collections::HashMap::new();
    for l in leases {
        rank.entry(l.key).or_insert(l.id);
    }
    rank
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::analysis::leases::tests::log_of;
    use crate::analysis::{NS_PER_MS, Settings, apply_host_offsets, reconstruct_leases};
    use crate::model::EventKind::*;

    fn run(
        rows: &[(i64, crate::model::EventKind, &str, &str, Option<i64>)],
    ) -> (Vec<Overlap>, Vec<LogLagArtefact>, Vec<Lease>) {
        let log = log_of(rows);
        let times = apply_host_offsets(&log, &BTreeMap::new());
        let set = reconstruct_leases(&log, &times, &Settings::default());
        let (o, a) = detect_overlaps(&set.leases, &set.log_lag);
        (o, a, set.leases)
    }

    #[test]
    fn expired_lease_overlap_lasts_until_the_zombie_stops() {
        let (o, _, _) = run(&[
            (0, Acquired, "k", "A", Some(5000)),
            (5100, Acquired, "k", "B", Some(5000)),
            (6000, ReleaseFailed, "k", "A", None),
            (8000, Released, "k", "B", None),
        ]);
        assert_eq!(o.len(), 1);
        assert_eq!(o[0].cause, Cause::LeaseExpired);
        assert!((o[0].duration_ms() - 900.0).abs() < 1e-9);
    }

    #[test]
    fn one_zombie_overlaps_every_later_holder_inside_its_window() {
        let (o, _, _) = run(&[
            (0, Acquired, "k", "Z", Some(1000)),
            (1100, Acquired, "k", "B", Some(1000)),
            (1200, Released, "k", "B", None),
            (1300, Acquired, "k", "C", Some(1000)),
            (1400, Released, "k", "C", None),
            (3000, ReleaseFailed, "k", "Z", None),
        ]);
        assert_eq!(o.len(), 2);
        assert!(
            o.iter()
                .all(|o| o.earlier == 0 && o.cause == Cause::LeaseExpired)
        );
    }

    #[test]
    fn log_lag_is_an_artefact_not_an_overlap() {
        let (o, a, _) = run(&[
            (0, Acquired, "k", "A", Some(2000)),
            (320, Acquired, "k", "B", Some(2000)),
            (321, Released, "k", "A", None),
            (900, Released, "k", "B", None),
        ]);
        assert!(o.is_empty());
        assert_eq!(a.len(), 1);
    }

    #[test]
    fn lag_beyond_tolerance_is_a_vanished_lock() {
        let (o, a, _) = run(&[
            (0, Acquired, "k", "A", Some(2000)),
            (320, Acquired, "k", "B", Some(2000)),
            (330, Released, "k", "A", None),
            (900, Released, "k", "B", None),
        ]);
        assert!(a.is_empty());
        assert_eq!(o.len(), 1);
        assert_eq!(o[0].cause, Cause::LockVanished);
    }

    #[test]
    fn touching_windows_are_no_overlap_and_same_holder_never_overlaps() {
        let (o, _, _) = run(&[
            (0, Acquired, "k", "A", Some(100)),
            (200, ReleaseFailed, "k", "A", None),
            (200, Acquired, "k", "B", Some(100)),
            (250, Released, "k", "B", None),
            (300, Acquired, "k", "C", Some(50)),
            (400, Acquired, "k", "C", Some(50)),
            (420, Released, "k", "C", None),
        ]);
        assert!(o.is_empty());
    }

    #[test]
    fn zero_length_window_inside_a_zombie_window_counts() {
        let (o, _, _) = run(&[
            (0, Acquired, "k", "Z", Some(1000)),
            (1500, Acquired, "k", "B", Some(1000)),
            (1500, Released, "k", "B", None),
            (3000, ReleaseFailed, "k", "Z", None),
            (3000, Acquired, "k", "C", Some(1000)),
            (3000, Released, "k", "C", None),
        ]);
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!(o[0].later, 1);
        assert_eq!(o[0].duration_ms(), 0.0);
    }

    #[test]
    fn incidents_group_touching_overlaps_per_key() {
        let (o, _, leases) = run(&[
            (0, Acquired, "k", "Z", Some(1000)),
            (1100, Acquired, "k", "B", Some(1000)),
            (1200, Released, "k", "B", None),
            (1300, Acquired, "k", "C", Some(1000)),
            (1400, Released, "k", "C", None),
            (3000, ReleaseFailed, "k", "Z", None),
            (0, Acquired, "j", "P", Some(10)),
            (20, Acquired, "j", "Q", Some(10)),
            (25, Released, "j", "P", None),
            (26, Released, "j", "Q", None),
        ]);
        let inc = group_incidents(&leases, &o, 10);
        assert_eq!(inc.len(), 2);
        assert_eq!(inc[0].start_ns, 20 * NS_PER_MS);
        assert_eq!(inc[1].overlaps.len(), 2);
        assert_eq!(inc[1].leases.len(), 3);
        assert_eq!(inc[1].label(), "INC-2");
        let capped = group_incidents(&leases, &o, 1);
        assert_eq!(capped[1].overlaps.len(), 1);
        assert_eq!(capped[1].overlaps_unlisted, 1);
    }
}

//! Overlaps (two holders believed they held one key at once) and their
//! grouping into incidents (docs/semantics.md §4–§5), in one sweep whose cost
//! does not grow with the number of pairs.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

use super::{
    Cause, Incident, IncidentId, Lease, LeaseId, LockEnd, LogLagArtefact, Overlap, OverlapId,
};
use crate::model::Sym;

/// What [`detect_overlaps`] found on a set of holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverlapSet {
    /// The listed overlap pairs, sorted by (key, start, earlier hold, later
    /// hold): each incident lists its first `max_listed_pairs` in that order.
    /// Every pair when no incident has more.
    pub overlaps: Vec<Overlap>,
    /// Every overlap pair, listed or not (exact).
    pub pairs: usize,
    /// Apparent overlaps that are log lag, sorted by (later, earlier) hold.
    pub artefacts: Vec<LogLagArtefact>,
    /// Incidents, sorted by start time (then key); `overlaps` index into
    /// [`OverlapSet::overlaps`].
    pub incidents: Vec<Incident>,
}

/// Finds the overlap pairs and groups them into incidents.
///
/// A pair (earlier, later) on one key with different holders is an overlap
/// when the later acquire falls strictly inside the earlier believed window
/// (so the windows intersect for more than 0 ns, or the later window is a
/// zero-length instant logged inside the earlier one) and the earlier
/// holder's lock had ended (expired, foreign release, vanished) at or before
/// the later acquire. Pairs in `log_lag` are returned separately as
/// artefacts, and only when their windows do intersect.
///
/// Incidents (§5): take the pairs of a key in (start, earlier, later) order;
/// a pair joins the incident before it when it starts at or before that
/// incident's end, or shares a hold with it; otherwise it starts a new one.
/// An incident lists its first `max_listed_pairs` pairs in that order and
/// counts the rest in `overlaps_unlisted`; its holds, window and the totals
/// are always exact.
///
/// `leases` must be as [`reconstruct_leases`](super::reconstruct_leases)
/// returns them: `id` is the index, sorted by (key, acquire time), and no
/// window ends before its acquire.
///
/// Cost: O(n log n) in holds, plus the pairs listed, plus each incident's
/// holds; never the number of pairs (given holds as reconstructed, where a
/// holder's earlier window on a key closes when it acquires again). One sweep per key in acquire order
/// keeps the "zombies": holds whose lock has ended (with a cause) and whose
/// window is still open. Every zombie forms a pair with each later acquire of
/// another holder, so a count and two ordered sets answer all that grouping
/// needs: how many pairs start at this instant, the first of them (whether a
/// new incident starts), the latest end, and which holds join.
pub fn detect_overlaps(
    leases: &[Lease],
    log_lag: &[LogLagArtefact],
    max_listed_pairs: usize,
) -> OverlapSet {
    let lag = LagIndex::new(log_lag);
    let mut sweep = Sweep {
        leases,
        log_lag,
        lag: &lag,
        zombies: Zombies::new(leases.len()),
        pending: BinaryHeap::new(),
        unmarked: Vec::new(),
        member_of: vec![usize::MAX; leases.len()],
        current: None,
        max_listed_pairs,
        out: OverlapSet::default(),
    };
    let mut start = 0;
    while start < leases.len() {
        let key = leases[start].key;
        let end = start + leases[start..].iter().take_while(|l| l.key == key).count();
        sweep.key(start..end);
        start = end;
    }
    let mut out = sweep.out;
    // In acquire order: within one key that is id order.
    for inc in &mut out.incidents {
        inc.leases.sort_unstable();
    }
    let rank = key_rank(leases);
    out.incidents
        .sort_by_key(|i| (i.start_ns, rank.get(&i.key).copied()));
    for (id, inc) in out.incidents.iter_mut().enumerate() {
        inc.id = IncidentId::new(id);
    }
    out
}

/// How the earlier hold's lock ended, when that can make an overlap.
fn cause_of(lease: &Lease) -> Option<Cause> {
    match lease.lock_end {
        LockEnd::Expired => Some(Cause::LeaseExpired),
        LockEnd::ForeignRelease => Some(Cause::ForeignRelease),
        LockEnd::Vanished => Some(Cause::LockVanished),
        LockEnd::Unknown => Some(Cause::TtlUnknown),
        LockEnd::OwnRelease | LockEnd::Reacquired | LockEnd::StillHeld => None,
    }
}

/// The log-lag pairs by later hold: (earlier hold, index of its first entry
/// in `log_lag`), sorted by earlier hold, one per pair.
struct LagIndex(HashMap<usize, Vec<(usize, usize)>>);

impl LagIndex {
    fn new(log_lag: &[LogLagArtefact]) -> LagIndex {
        let mut by_later: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
        for (i, a) in log_lag.iter().enumerate() {
            by_later
                .entry(a.later.index())
                .or_default()
                .push((a.earlier.index(), i));
        }
        for v in by_later.values_mut() {
            v.sort_unstable();
            v.dedup_by_key(|p| p.0);
        }
        LagIndex(by_later)
    }

    fn of(&self, later: usize) -> &[(usize, usize)] {
        self.0.get(&later).map_or(&[], Vec::as_slice)
    }

    fn contains(&self, earlier: usize, later: usize) -> bool {
        self.of(later)
            .binary_search_by_key(&earlier, |p| p.0)
            .is_ok()
    }
}

/// Holds of one key whose lock has ended with a cause and whose believed
/// window is still open at the sweep's time.
struct Zombies {
    by_id: BTreeSet<usize>,
    by_window_end: BTreeSet<(i64, usize)>,
    per_holder: hashbrown::HashMap<Sym, usize>,
    /// Indexed by lease id.
    open: Vec<bool>,
}

impl Zombies {
    fn new(n: usize) -> Zombies {
        Zombies {
            by_id: BTreeSet::new(),
            by_window_end: BTreeSet::new(),
            per_holder: hashbrown::HashMap::default(),
            open: vec![false; n],
        }
    }

    fn insert(&mut self, l: &Lease) {
        self.by_id.insert(l.id.index());
        self.by_window_end.insert((l.window_end_ns, l.id.index()));
        *self.per_holder.entry(l.holder).or_default() += 1;
        self.open[l.id.index()] = true;
    }

    /// Drops the zombies whose window ended at or before `t_ns`.
    fn close_until(&mut self, leases: &[Lease], t_ns: i64) {
        while let Some(&(end, id)) = self.by_window_end.first() {
            if end > t_ns {
                break;
            }
            self.by_window_end.pop_first();
            self.by_id.remove(&id);
            let holder = leases[id].holder;
            if let Some(c) = self.per_holder.get_mut(&holder) {
                *c -= 1;
                if *c == 0 {
                    self.per_holder.remove(&holder);
                }
            }
            self.open[id] = false;
        }
    }

    fn clear(&mut self) {
        for &id in &self.by_id {
            self.open[id] = false;
        }
        self.by_id.clear();
        self.by_window_end.clear();
        self.per_holder.clear();
    }
}

/// A later hold with at least one overlap, within one acquire instant.
struct Later {
    id: usize,
    /// Its pairs.
    pairs: usize,
    /// Its first pair's earlier hold (lowest id).
    first: usize,
    /// The latest end of its pairs.
    end_ns: i64,
}

struct Sweep<'a> {
    leases: &'a [Lease],
    log_lag: &'a [LogLagArtefact],
    lag: &'a LagIndex,
    zombies: Zombies,
    /// Processed holds whose lock ended with a cause, by lock end: they
    /// become zombies once the sweep reaches that time.
    pending: BinaryHeap<Reverse<(i64, usize)>>,
    /// Zombies not (yet) among the current incident's holds.
    unmarked: Vec<usize>,
    /// The last incident (index in `out.incidents`) each hold joined.
    member_of: Vec<usize>,
    /// The incident pairs join (index in `out.incidents`).
    current: Option<usize>,
    max_listed_pairs: usize,
    out: OverlapSet,
}

impl Sweep<'_> {
    /// True when (earlier, later) cannot be a pair even though `earlier` is a
    /// zombie at `later`'s acquire.
    fn excluded(&self, earlier: usize, later: usize) -> bool {
        self.leases[earlier].holder == self.leases[later].holder
            || self.lag.contains(earlier, later)
    }

    /// Sweeps the holds of one key (a range of `leases`), instant by instant.
    fn key(&mut self, range: std::ops::Range<usize>) {
        let leases = self.leases;
        self.zombies.clear();
        self.pending.clear();
        self.unmarked.clear();
        let mut at = range.start;
        while at < range.end {
            let t = leases[at].acquired_ns;
            let group_end = at
                + leases[at..range.end]
                    .iter()
                    .take_while(|l| l.acquired_ns == t)
                    .count();
            self.zombies.close_until(leases, t);
            let mut laters = Vec::new();
            for later in &leases[at..group_end] {
                self.wake(t);
                self.artefacts(later, range.start);
                if let Some(l) = self.pairs_of(later) {
                    laters.push(l);
                }
                if let Some((lock_end_ns, _)) = later.zombie_ns() {
                    self.pending.push(Reverse((lock_end_ns, later.id.index())));
                }
            }
            if !laters.is_empty() {
                self.group(t, &laters);
            }
            at = group_end;
        }
    }

    /// Turns pending holds whose lock ended at or before `t_ns` into zombies.
    fn wake(&mut self, t_ns: i64) {
        while let Some(&Reverse((lock_end, id))) = self.pending.peek() {
            if lock_end > t_ns {
                break;
            }
            self.pending.pop();
            if self.leases[id].window_end_ns > t_ns {
                self.zombies.insert(&self.leases[id]);
                self.unmarked.push(id);
            }
        }
    }

    /// Log-lag artefacts with `later`: its lagged earlier holds of this key
    /// whose window is still open and whose holder differs.
    fn artefacts(&mut self, later: &Lease, key_start: usize) {
        for &(earlier, entry) in self.lag.of(later.id.index()) {
            let Some(e) = self.leases.get(earlier) else {
                continue;
            };
            if (key_start..later.id.index()).contains(&earlier)
                && e.window_end_ns > later.acquired_ns
                && e.holder != later.holder
            {
                self.out.artefacts.push(self.log_lag[entry].clone());
            }
        }
    }

    /// The pairs `later` is the later hold of (the zombies at its acquire,
    /// less its own holder's and log lag), when there are any.
    fn pairs_of(&self, later: &Lease) -> Option<Later> {
        let z = &self.zombies;
        let own = z.per_holder.get(&later.holder).copied().unwrap_or(0);
        let lagged = self
            .lag
            .of(later.id.index())
            .iter()
            .filter(|&&(e, _)| {
                z.open.get(e).copied().unwrap_or(false) && self.leases[e].holder != later.holder
            })
            .count();
        let pairs = z.by_id.len() - own - lagged;
        if pairs == 0 {
            return None;
        }
        let first = z
            .by_id
            .iter()
            .copied()
            .find(|&e| !self.excluded(e, later.id.index()))?;
        let latest = z
            .by_window_end
            .iter()
            .rev()
            .find(|&&(_, e)| !self.excluded(e, later.id.index()))?
            .0;
        Some(Later {
            id: later.id.index(),
            pairs,
            first,
            end_ns: latest.min(later.window_end_ns),
        })
    }

    /// Puts the pairs that start at `t_ns` (all of whose later holds are
    /// `laters`, in id order) into the current incident or a new one.
    fn group(&mut self, t_ns: i64, laters: &[Later]) {
        let leases = self.leases;
        let Some((first, _)) = laters.iter().map(|l| (l.first, l.id)).min() else {
            return;
        };
        let key = leases[first].key;
        // Every pair at this instant starts at `t_ns` and ends at or after
        // it, so once the first one is in an incident the rest join it too:
        // only the first pair decides.
        let joins = self.current.is_some_and(|c| {
            let inc = &self.out.incidents[c];
            inc.key == key && (t_ns <= inc.end_ns || self.member_of[first] == c)
        });
        let c = match self.current {
            Some(c) if joins => c,
            _ => {
                self.out.incidents.push(Incident {
                    id: IncidentId::default(),
                    key,
                    start_ns: t_ns,
                    end_ns: t_ns,
                    leases: Vec::new(),
                    overlaps: Vec::new(),
                    overlaps_unlisted: 0,
                    cause: cause_of(&leases[first]).unwrap_or(Cause::LeaseExpired),
                    sales: Vec::new(),
                    oversold_units: 0,
                    loss: crate::money::Loss::default(),
                });
                self.unmarked = self.zombies.by_id.iter().copied().collect();
                self.out.incidents.len() - 1
            }
        };
        self.current = Some(c);
        let pairs: usize = laters.iter().map(|l| l.pairs).sum();
        self.out.pairs += pairs;
        let listed = self.list(t_ns, laters, c);
        let inc = &mut self.out.incidents[c];
        inc.end_ns = laters.iter().map(|l| l.end_ns).fold(inc.end_ns, i64::max);
        inc.overlaps_unlisted += pairs - listed;
        for l in laters {
            self.member_of[l.id] = c;
            inc.leases.push(LeaseId::new(l.id));
        }
        // A zombie joins when it is the earlier hold of some pair here.
        let mut unmarked = std::mem::take(&mut self.unmarked);
        unmarked.retain(|&e| {
            if !self.zombies.open[e] || self.member_of[e] == c {
                return false;
            }
            let from = laters.partition_point(|l| l.id <= e);
            if laters[from..].iter().any(|l| !self.excluded(e, l.id)) {
                self.member_of[e] = c;
                self.out.incidents[c].leases.push(LeaseId::new(e));
                return false;
            }
            true
        });
        self.unmarked = unmarked;
    }

    /// Lists the first pairs at `t_ns`, in (earlier, later) order, while
    /// incident `c` has room. Returns how many.
    fn list(&mut self, t_ns: i64, laters: &[Later], c: usize) -> usize {
        let room = self
            .max_listed_pairs
            .saturating_sub(self.out.incidents[c].overlaps.len());
        if room == 0 {
            return 0;
        }
        // The `room` smallest (earlier, later): each later hold's zombies in
        // id order, stopping where they can no longer make the cut.
        let mut best: BinaryHeap<(usize, usize)> = BinaryHeap::new();
        for l in laters {
            for &e in self.zombies.by_id.range(..l.id) {
                if best.len() == room && best.peek().is_some_and(|&top| (e, l.id) >= top) {
                    break;
                }
                if self.excluded(e, l.id) {
                    continue;
                }
                best.push((e, l.id));
                if best.len() > room {
                    best.pop();
                }
            }
        }
        let best = best.into_sorted_vec();
        for &(e, l) in &best {
            let (earlier, later) = (&self.leases[e], &self.leases[l]);
            self.out.incidents[c]
                .overlaps
                .push(OverlapId::new(self.out.overlaps.len()));
            self.out.overlaps.push(Overlap {
                key: later.key,
                earlier: LeaseId::new(e),
                later: LeaseId::new(l),
                start_ns: t_ns,
                end_ns: earlier.window_end_ns.min(later.window_end_ns),
                cause: cause_of(earlier).unwrap_or(Cause::LeaseExpired),
            });
        }
        best.len()
    }
}

/// Each key's position in the lease order (the id of its first lease).
fn key_rank(leases: &[Lease]) -> HashMap<Sym, usize> {
    let mut rank = HashMap::new();
    for l in leases {
        rank.entry(l.key).or_insert(l.id.index());
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

    type Row<'a> = (i64, crate::model::EventKind, &'a str, &'a str, Option<i64>);

    fn run_capped(rows: &[Row<'_>], max_listed_pairs: usize) -> OverlapSet {
        let log = log_of(rows);
        let times = apply_host_offsets(&log, &BTreeMap::new());
        let set = reconstruct_leases(&log, &times, &Settings::default());
        detect_overlaps(&set.leases, &set.log_lag, max_listed_pairs)
    }

    /// The overlaps of `rows` read from one file whose times are whole
    /// seconds.
    fn run_in_whole_seconds(rows: &[Row<'_>]) -> Vec<Overlap> {
        let mut log = log_of(rows);
        let mut info = crate::model::SourceInfo::new("app.jsonl", crate::model::Dialect::JsonLines);
        info.time_resolution = Some("s".into());
        log.sources = vec![info];
        let times = apply_host_offsets(&log, &BTreeMap::new());
        let set = reconstruct_leases(&log, &times, &Settings::default());
        detect_overlaps(&set.leases, &set.log_lag, 10_000).overlaps
    }

    fn run(rows: &[Row<'_>]) -> (Vec<Overlap>, Vec<LogLagArtefact>) {
        let set = run_capped(rows, 10_000);
        assert_eq!(set.pairs, set.overlaps.len());
        (set.overlaps, set.artefacts)
    }

    #[test]
    fn expired_lease_overlap_lasts_until_the_zombie_stops() {
        let (o, _) = run(&[
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
        let (o, _) = run(&[
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
                .all(|o| o.earlier.index() == 0 && o.cause == Cause::LeaseExpired)
        );
    }

    #[test]
    fn log_lag_is_an_artefact_not_an_overlap() {
        let (o, a) = run(&[
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
        let (o, a) = run(&[
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
        let (o, _) = run(&[
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
    fn in_one_logged_instant_the_order_of_the_file_says_who_was_first() {
        // A log of whole seconds (zerolog's default time): B acquired,
        // deducted and released, then A deducted and failed to release, all
        // in second 3. A still worked after B's acquire: an overlap below
        // the log's resolution, not a touch.
        let zombie_last = [
            (1000, Acquired, "k", "A", Some(2000)),
            (3000, Acquired, "k", "B", Some(2000)),
            (3000, StockDeducted, "k", "B", None),
            (3000, Released, "k", "B", None),
            (3000, StockDeducted, "k", "A", None),
            (3000, ReleaseFailed, "k", "A", None),
        ];
        let o = run_in_whole_seconds(&zombie_last);
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!(o[0].cause, Cause::LeaseExpired);
        assert_eq!(o[0].duration_ms(), 0.0);
        // Without its release line, A's last deduction ends its window.
        let o = run_in_whole_seconds(&zombie_last[..5]);
        assert_eq!(o.len(), 1, "{o:?}");
        // In a log of finer times the windows only touch: within
        // a millisecond the order of lines is no surer than the log lag.
        assert!(run(&zombie_last).0.is_empty());
        // A's lines before B's acquire: a hand-off in one second.
        let o = run_in_whole_seconds(&[
            (1000, Acquired, "k", "A", Some(2000)),
            (3000, StockDeducted, "k", "A", None),
            (3000, ReleaseFailed, "k", "A", None),
            (3000, Acquired, "k", "B", Some(2000)),
            (3000, Released, "k", "B", None),
        ]);
        assert!(o.is_empty(), "{o:?}");
    }

    #[test]
    fn a_file_newest_first_is_read_in_time_order_within_a_second() {
        // The same lines as a console downloads them, newest first (SLS,
        // CLS, Kibana): the order within second 3 is the file's reversed.
        let mut newest_first = vec![
            (1000, Acquired, "k", "A", Some(2000)),
            (1500, Activity, "k", "A", None),
            (2000, Activity, "k", "A", None),
            (2500, Activity, "k", "A", None),
            (3000, Acquired, "k", "B", Some(2000)),
            (3000, StockDeducted, "k", "B", None),
            (3000, Released, "k", "B", None),
            (3000, StockDeducted, "k", "A", None),
            (3000, ReleaseFailed, "k", "A", None),
        ];
        newest_first.reverse();
        let o = run_in_whole_seconds(&newest_first);
        assert_eq!(o.len(), 1, "{o:?}");
        // A hand-off in one second, newest first: no overlap (read in the
        // file's order it would have been one).
        let mut handoff = vec![
            (1000, Acquired, "k", "A", Some(2000)),
            (1500, Activity, "k", "A", None),
            (2000, StockDeducted, "k", "A", None),
            (3000, ReleaseFailed, "k", "A", None),
            (3000, Acquired, "k", "B", Some(2000)),
            (4000, Released, "k", "B", None),
        ];
        handoff.reverse();
        assert!(run_in_whole_seconds(&handoff).is_empty());
    }

    /// The instants newest first, each instant's lines in time order.
    fn newest_instants_first(rows: &[Row<'static>]) -> Vec<Row<'static>> {
        let mut out = Vec::new();
        for instant in rows.chunk_by(|a, b| a.0 == b.0).rev() {
            out.extend_from_slice(instant);
        }
        out
    }

    #[test]
    fn a_file_newest_first_only_between_instants_keeps_each_instants_order() {
        // A console sorted by time only, newest first: each second's lines
        // stay in the order they were written. The hand-off in second 3
        // reads A's failed release, then B's acquire: no overlap.
        let handoff = [
            (1000, Acquired, "k", "A", Some(2000)),
            (1500, Activity, "k", "A", None),
            (2000, StockDeducted, "k", "A", None),
            (3000, ReleaseFailed, "k", "A", None),
            (3000, Acquired, "k", "B", Some(2000)),
            (4000, Released, "k", "B", None),
        ];
        assert!(run_in_whole_seconds(&handoff).is_empty());
        let file = newest_instants_first(&handoff);
        assert_ne!(file, handoff);
        assert!(run_in_whole_seconds(&file).is_empty(), "read as reversed");
        // A zombie's lines after B's whole hold in second 3: one overlap,
        // as in the file in time order.
        let zombie = [
            (1000, Acquired, "k", "A", Some(2000)),
            (1500, Activity, "k", "A", None),
            (2000, Activity, "k", "A", None),
            (2500, Activity, "k", "A", None),
            (3000, Acquired, "k", "B", Some(2000)),
            (3000, StockDeducted, "k", "B", None),
            (3000, Released, "k", "B", None),
            (3000, StockDeducted, "k", "A", None),
            (3000, ReleaseFailed, "k", "A", None),
        ];
        let o = run_in_whole_seconds(&newest_instants_first(&zombie));
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!(o[0].cause, Cause::LeaseExpired);
    }

    #[test]
    fn zero_length_window_inside_a_zombie_window_counts() {
        let (o, _) = run(&[
            (0, Acquired, "k", "Z", Some(1000)),
            (1500, Acquired, "k", "B", Some(1000)),
            (1500, Released, "k", "B", None),
            (3000, ReleaseFailed, "k", "Z", None),
            (3000, Acquired, "k", "C", Some(1000)),
            (3000, Released, "k", "C", None),
        ]);
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!(o[0].later, LeaseId::new(1));
        assert_eq!(o[0].duration_ms(), 0.0);
    }

    #[test]
    fn incidents_group_touching_overlaps_per_key() {
        let rows = [
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
        ];
        let inc = run_capped(&rows, 10).incidents;
        assert_eq!(inc.len(), 2);
        assert_eq!(inc[0].start_ns, 20 * NS_PER_MS);
        assert_eq!(inc[1].overlaps.len(), 2);
        assert_eq!(inc[1].leases.len(), 3);
        assert_eq!(inc[1].label(), "INC-2");
        let capped = run_capped(&rows, 1);
        assert_eq!(capped.pairs, 3);
        assert_eq!(capped.overlaps.len(), 2, "one listed per incident");
        assert_eq!(capped.incidents[1].overlaps.len(), 1);
        assert_eq!(capped.incidents[1].overlaps_unlisted, 1);
        assert_eq!(capped.incidents[1].leases.len(), 3, "holds stay exact");
        assert_eq!(capped.incidents[1].end_ns, inc[1].end_ns);
    }
}

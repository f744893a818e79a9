//! The lock under a policy: per key, who is granted when, and how each
//! replayed lock ends (docs/semantics.md §10).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::{Policy, ReplayedHold, ms};
use crate::analysis::Analysis;
use crate::analysis::{
    Lease, LeaseId, LineSpan, LockEnd, NS_PER_MS, Opt64, Settings, WindowEnd, detect_overlaps,
};
use crate::model::{LoadedLog, SourceRef};

/// When a lease kept alive by a watchdog expires, ms after its grant.
///
/// The watchdog fires every `renew_every_ms` after the grant while the
/// holder works (`work_ms`); each renewal that reaches the server before
/// the expiry moves it to renewal + `ttl_ms` (a lease covers its grant up
/// to but not including grant plus TTL, docs/semantics.md §3). A renewal due inside a
/// pause (`pauses_ms`, open intervals after the grant, sorted) is sent when
/// the pause ends; one sent at or after the expiry fails and the watchdog stops
/// (Redisson's `renewExpiration` stops when the renewal returns false).
/// Cost: O(pauses), whatever the length of the hold.
pub fn watchdog_expiry_ms(
    work_ms: i64,
    ttl_ms: i64,
    renew_every_ms: i64,
    pauses_ms: &[(i64, i64)],
) -> i64 {
    let r = renew_every_ms.max(1);
    let mut expiry = ttl_ms;
    // The last renewal point so far, and the last tick (a multiple of r)
    // already accounted for.
    let mut last_tick = 0i64;
    // Regular ticks in (after, upto]: all succeed while r < ttl.
    let regular = |after: i64, upto: i64, expiry: &mut i64, last_tick: &mut i64| -> bool {
        let k = upto.div_euclid(r);
        let tick = k.saturating_mul(r);
        if tick <= after || tick <= *last_tick || k < 1 {
            return true;
        }
        let first = (after.div_euclid(r) + 1).saturating_mul(r).max(r);
        if first >= *expiry {
            return false;
        }
        *expiry = tick.saturating_add(ttl_ms);
        *last_tick = tick;
        true
    };
    let mut point = 0i64;
    for &(a, b) in pauses_ms {
        if a >= work_ms {
            break;
        }
        if !regular(point, a.min(work_ms - 1), &mut expiry, &mut last_tick) {
            return expiry;
        }
        // A tick strictly inside (a, b): sent at b.
        let next = (a.div_euclid(r) + 1).saturating_mul(r);
        if next < b && next < work_ms {
            if b >= work_ms {
                return expiry;
            }
            if b >= expiry {
                return expiry;
            }
            expiry = b.saturating_add(ttl_ms);
            last_tick = b.div_euclid(r).saturating_mul(r);
        }
        point = point.max(b);
    }
    if work_ms >= 1 {
        regular(point, work_ms - 1, &mut expiry, &mut last_tick);
    }
    expiry
}

/// The expiry of hold `l` granted at `start_ns` under `policy`, ns; `None`
/// when its lock never expires (no TTL).
/// `stalls_ms`: the hold's stalls by its runtime's own log
/// ([`evidence_stalls_ms`]), pauses whatever `policy.pause_ms` says.
fn expiry_ns(
    l: &Lease,
    start_ns: i64,
    offsets: &[i64],
    policy: &Policy,
    stalls_ms: &[(i64, i64)],
) -> Option<i64> {
    let ttl_ms = policy.ttl_ms.or(l.ttl_ms.get())?;
    let work_ns = (l.window_end_ns - l.acquired_ns).max(0);
    if policy.watchdog {
        let every = policy.renew_every_ms.unwrap_or((ttl_ms / 3).max(1));
        let pauses = merged(pauses_ms(offsets, policy.pause_ms), stalls_ms);
        let rel = watchdog_expiry_ms(work_ns / NS_PER_MS, ttl_ms, every, &pauses);
        return Some(start_ns.saturating_add(rel.saturating_mul(NS_PER_MS)));
    }
    // The log's own renewals (counted or late), shifted with the hold.
    let ttl_ns = ttl_ms.saturating_mul(NS_PER_MS);
    let mut renewals: Vec<i64> = l
        .renewals_ns()
        .iter()
        .chain(l.late_renewals_ns())
        .map(|r| r - l.acquired_ns)
        .collect();
    renewals.sort_unstable();
    let mut expiry = ttl_ns;
    for r in renewals {
        if r >= expiry {
            break;
        }
        expiry = r.saturating_add(ttl_ns);
    }
    Some(start_ns.saturating_add(expiry))
}

/// `a` and `b` as one sorted list of disjoint intervals.
fn merged(mut a: Vec<(i64, i64)>, b: &[(i64, i64)]) -> Vec<(i64, i64)> {
    if b.is_empty() {
        return a;
    }
    a.extend_from_slice(b);
    a.sort_unstable();
    let mut out: Vec<(i64, i64)> = Vec::with_capacity(a.len());
    for (x, y) in a {
        match out.last_mut() {
            Some(last) if x <= last.1 => last.1 = last.1.max(y),
            _ => out.push((x, y)),
        }
    }
    out
}

/// The stalls of hold `l` that its process's own log shows (a GC pause or
/// a safepoint cited for it and matched by host, docs/semantics.md §11),
/// ms after its acquire: a watchdog thread in that process stops too.
fn evidence_stalls_ms(log: &LoadedLog, analysis: &Analysis, l: &Lease) -> Vec<(i64, i64)> {
    use crate::analysis::evidence::CitationRole;
    analysis
        .citations
        .iter()
        .filter(|c| c.lease == l.id && c.role == CitationRole::Stall && c.tied)
        .filter_map(|c| log.evidence.get(c.evidence))
        .filter(|ev| ev.kind != crate::model::EvidenceKind::SlowCommand)
        .filter_map(|ev| {
            let end = ev.end_ns?;
            Some((
                (ev.at_ns - l.acquired_ns).max(0) / NS_PER_MS,
                (end - l.acquired_ns).max(0) / NS_PER_MS,
            ))
        })
        .filter(|(a, b)| b > a)
        .collect()
}

/// The pauses of a hold: gaps of at least `pause_ms` between its own lines
/// (offsets after its acquire, ns, sorted), as ms intervals.
fn pauses_ms(offsets: &[i64], pause_ms: Option<i64>) -> Vec<(i64, i64)> {
    let Some(p) = pause_ms else {
        return Vec::new();
    };
    offsets
        .windows(2)
        .filter(|w| w[1] - w[0] >= p.saturating_mul(NS_PER_MS))
        .map(|w| (w[0] / NS_PER_MS, w[1] / NS_PER_MS))
        .collect()
}

/// A line's place in the log: (file, line), the order of lines logged in
/// the same instant.
type Line = (u16, u32);

/// Where holds' lines were logged: the log and the analysis that holds
/// their event lists.
#[derive(Clone, Copy)]
struct LinesOf<'a> {
    log: &'a LoadedLog,
    analysis: &'a Analysis,
}

impl LinesOf<'_> {
    /// Where a hold's acquire was logged.
    fn first(&self, l: &Lease) -> Line {
        line(self.analysis.sources_of(self.log, l).next())
    }

    /// Where a hold's last line (its release, when it has one) was logged.
    fn last(&self, l: &Lease) -> Line {
        line(self.analysis.sources_of(self.log, l).next_back())
    }
}

/// A source line as a [`Line`]; (0, 0) for a hold without lines.
fn line(s: Option<SourceRef>) -> Line {
    s.map_or((0, 0), |s| (s.file, s.line))
}

/// True when the holder sent a release at the end of its work.
fn sends_release(l: &Lease) -> bool {
    matches!(l.window_end, WindowEnd::Released | WindowEnd::ReleaseFailed)
}

/// Replays every key's lock under `policy`; one [`ReplayedHold`] per lease.
/// `offsets[i]`: the times of hold `i`'s own lines after its acquire, ns.
pub(super) fn replay_locks(
    log: &LoadedLog,
    analysis: &Analysis,
    offsets: &[Vec<i64>],
    policy: &Policy,
    wait_limit_ms: Option<i64>,
) -> Vec<ReplayedHold> {
    let leases = &analysis.leases;
    let mut out: Vec<ReplayedHold> = leases
        .iter()
        .map(|l| ReplayedHold {
            lease: l.id,
            arrival_ns: l.acquired_ns,
            start_ns: None,
            end_ns: None,
            lock_end_ns: None,
            lock_end: None,
            waited_ms: 0.0,
            timed_out: false,
            still_waiting: false,
            rejected_writes: 0,
        })
        .collect();
    let lines = LinesOf { log, analysis };
    let mut start = 0;
    while start < leases.len() {
        let key = leases[start].key;
        let end = start + leases[start..].iter().take_while(|l| l.key == key).count();
        KeySim::new(leases, lines, start..end, offsets, policy, wait_limit_ms).run(&mut out);
        start = end;
    }
    out
}

/// The lock of one key being replayed.
struct KeySim<'a> {
    leases: &'a [Lease],
    lines: LinesOf<'a>,
    offsets: &'a [Vec<i64>],
    policy: &'a Policy,
    wait_limit_ns: Option<i64>,
    /// Hold ids of this key in arrival order.
    arrivals: Vec<usize>,
    /// Server-side vanish instants (the log's vanished or unknown lock ends).
    vanish: Vec<i64>,
    /// Plain deletes: the log shows a foreign release on this key.
    unchecked_release: bool,
    /// The lock: (hold, expiry).
    lock: Option<(usize, Option<i64>)>,
    queue: VecDeque<usize>,
    /// Started holds whose work has not ended: (end, its last line, hold).
    running: BinaryHeap<Reverse<(i64, Line, usize)>>,
}

impl<'a> KeySim<'a> {
    fn new(
        leases: &'a [Lease],
        lines: LinesOf<'a>,
        range: std::ops::Range<usize>,
        offsets: &'a [Vec<i64>],
        policy: &'a Policy,
        wait_limit_ms: Option<i64>,
    ) -> KeySim<'a> {
        let mut arrivals: Vec<usize> = range.clone().collect();
        arrivals.sort_by_key(|&i| (leases[i].acquired_ns, lines.first(&leases[i]), i));
        let mut vanish: Vec<i64> = leases[range.clone()]
            .iter()
            .filter(|l| matches!(l.lock_end, LockEnd::Vanished | LockEnd::Unknown))
            .map(|l| l.lock_end_ns)
            .collect();
        vanish.sort_unstable();
        vanish.dedup();
        KeySim {
            leases,
            lines,
            offsets,
            policy,
            wait_limit_ns: wait_limit_ms.map(|w| w.saturating_mul(NS_PER_MS)),
            arrivals,
            vanish,
            unchecked_release: leases[range]
                .iter()
                .any(|l| l.lock_end == LockEnd::ForeignRelease),
            lock: None,
            queue: VecDeque::new(),
            running: BinaryHeap::new(),
        }
    }

    /// Runs the key's events in time order; at one instant: work ends (and
    /// their releases), vanishes, expiry, arrivals, then timeouts; a freed
    /// lock goes to the head of the queue at once.
    fn run(mut self, out: &mut [ReplayedHold]) {
        let (mut next_arrival, mut next_vanish) = (0usize, 0usize);
        const NO_LINE: Line = (0, 0);
        loop {
            // (time, class, line): at one instant a vanish, then an expiry,
            // then work ends and arrivals in the log's own line order (an
            // acquire logged before a stale holder's delete of the same
            // millisecond is deleted by it), then timeouts.
            let work_end = self
                .running
                .peek()
                .map(|Reverse((t, line, _))| (*t, 2, *line));
            let expiry = self.lock.and_then(|(_, e)| e).map(|t| (t, 1, NO_LINE));
            let arrival = self.arrivals.get(next_arrival).map(|&i| {
                let l = &self.leases[i];
                (l.acquired_ns, 2, self.lines.first(l))
            });
            let vanish = self.vanish.get(next_vanish).map(|&t| (t, 0, NO_LINE));
            let timeout = match (self.wait_limit_ns, self.queue.front()) {
                (Some(w), Some(&i)) => {
                    Some((self.leases[i].acquired_ns.saturating_add(w), 3, NO_LINE))
                }
                _ => None,
            };
            let Some(next) = [work_end, vanish, expiry, arrival, timeout]
                .into_iter()
                .flatten()
                .min()
            else {
                break;
            };
            let now = next.0;
            if work_end == Some(next) {
                if let Some(Reverse((_, _, i))) = self.running.pop() {
                    self.work_ends(i, now, out);
                }
            } else if vanish == Some(next) {
                next_vanish += 1;
                if let Some((j, _)) = self.lock.take() {
                    end_lock(out, j, now, LockEnd::Vanished);
                }
            } else if expiry == Some(next) {
                if let Some((j, _)) = self.lock.take() {
                    end_lock(out, j, now, LockEnd::Expired);
                }
            } else if arrival == Some(next) {
                let i = self.arrivals[next_arrival];
                next_arrival += 1;
                self.arrive(i, now, out);
            } else if let Some(i) = self.queue.pop_front() {
                let h = &mut out[i];
                h.timed_out = true;
                h.waited_ms = ms(now - h.arrival_ns);
            }
            self.grant_waiting(now, out);
        }
        // Left at the end: a lock that never expires, and who waits for it.
        if let Some((j, _)) = self.lock.take() {
            out[j].lock_end = Some(LockEnd::StillHeld);
            out[j].lock_end_ns = out[j].end_ns;
        }
        let last = self
            .arrivals
            .iter()
            .filter_map(|&i| out[i].end_ns)
            .max()
            .unwrap_or(0);
        for i in self.queue.drain(..) {
            out[i].still_waiting = true;
            out[i].waited_ms = ms(last - out[i].arrival_ns).max(0.0);
        }
    }

    fn arrive(&mut self, i: usize, now: i64, out: &mut [ReplayedHold]) {
        match self.lock {
            None if self.queue.is_empty() => self.grant(i, now, out),
            Some((j, _)) if self.leases[j].holder == self.leases[i].holder => {
                // The same holder acquires again (re-entrant or retried).
                end_lock(out, j, now, LockEnd::Reacquired);
                self.lock = None;
                self.grant(i, now, out);
            }
            _ => self.queue.push_back(i),
        }
    }

    fn grant_waiting(&mut self, now: i64, out: &mut [ReplayedHold]) {
        if self.lock.is_none()
            && let Some(i) = self.queue.pop_front()
        {
            self.grant(i, now, out);
        }
    }

    fn grant(&mut self, i: usize, now: i64, out: &mut [ReplayedHold]) {
        let l = &self.leases[i];
        let work_ns = (l.window_end_ns - l.acquired_ns).max(0);
        let end = now.saturating_add(work_ns);
        let h = &mut out[i];
        h.start_ns = Some(now);
        h.end_ns = Some(end);
        h.waited_ms = ms(now - l.acquired_ns);
        let offsets = self.offsets.get(i).map_or(&[][..], Vec::as_slice);
        let stalls = evidence_stalls_ms(self.lines.log, self.lines.analysis, l);
        self.lock = Some((i, expiry_ns(l, now, offsets, self.policy, &stalls)));
        self.running.push(Reverse((end, self.lines.last(l), i)));
    }

    /// Hold `i`'s work ends at `now`: its release, when it sent one.
    fn work_ends(&mut self, i: usize, now: i64, out: &mut [ReplayedHold]) {
        if !sends_release(&self.leases[i]) {
            return;
        }
        match self.lock {
            Some((j, _)) if j == i => {
                self.lock = None;
                end_lock(out, i, now, LockEnd::OwnRelease);
            }
            Some((j, _)) if self.unchecked_release && !self.policy.owner_check => {
                self.lock = None;
                end_lock(out, j, now, LockEnd::ForeignRelease);
            }
            _ => {}
        }
    }
}

fn end_lock(out: &mut [ReplayedHold], i: usize, at_ns: i64, how: LockEnd) {
    out[i].lock_end = Some(how);
    out[i].lock_end_ns = Some(at_ns);
}

/// The overlaps of the replayed holds by the one rule
/// ([`detect_overlaps`], docs/semantics.md §4): (pairs, incidents, the
/// listed pairs as lease ids).
pub(super) fn count_overlaps(
    analysis: &Analysis,
    holds: &[ReplayedHold],
    settings: &Settings,
) -> (usize, usize, Vec<(usize, usize)>) {
    let started = started_in_key_order(analysis, holds);
    let synthetic: Vec<Lease> = started
        .iter()
        .enumerate()
        .map(|(id, &(_, s, lease))| {
            let l = &analysis.leases[lease];
            let h = &holds[lease];
            let end = h.end_ns.unwrap_or(s);
            Lease {
                id: LeaseId::new(id),
                acquired_ns: s,
                window_end_ns: end,
                lock_end_ns: h.lock_end_ns.unwrap_or(end),
                lock_end: h.lock_end.unwrap_or(LockEnd::StillHeld),
                ended_by: None,
                renewals: None,
                expiry_ns: Opt64::NONE,
                lines: LineSpan::default(),
                ..l.clone()
            }
        })
        .collect();
    let set = detect_overlaps(&synthetic, &[], settings.max_listed_pairs);
    let back = |id: usize| started[id].2;
    let pairs = set
        .overlaps
        .iter()
        .map(|o| (back(o.earlier.index()), back(o.later.index())))
        .collect();
    (set.pairs, set.incidents.len(), pairs)
}

/// The replayed holds that were granted, as (key rank, grant ns, lease
/// position), sorted: by key in the analysis's order, then by grant.
pub(super) fn started_in_key_order(
    analysis: &Analysis,
    holds: &[ReplayedHold],
) -> Vec<(usize, i64, usize)> {
    let rank = key_ranks(&analysis.leases);
    let mut started: Vec<(usize, i64, usize)> = holds
        .iter()
        .filter_map(|h| {
            h.start_ns
                .map(|s| (rank[h.lease.index()], s, h.lease.index()))
        })
        .collect();
    started.sort_unstable();
    started
}

/// The rank of each lease's key: the index of the first lease of that key
/// (leases are sorted by key, so equal keys are one run).
fn key_ranks(leases: &[Lease]) -> Vec<usize> {
    let mut rank = Vec::with_capacity(leases.len());
    for (i, l) in leases.iter().enumerate() {
        let r = match i.checked_sub(1) {
            Some(p) if leases[p].key == l.key => rank[p],
            _ => i,
        };
        rank.push(r);
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::watchdog_expiry_ms;

    #[test]
    fn a_watchdog_keeps_the_lease_past_the_work_and_a_long_pause_loses_it() {
        // 3 s of work, TTL 2 s, renew every 666 ms: the last tick at 2664 ms.
        assert_eq!(watchdog_expiry_ms(3000, 2000, 666, &[]), 2664 + 2000);
        // Slower than the TTL: the first renewal comes too late.
        assert_eq!(watchdog_expiry_ms(3000, 2000, 2500, &[]), 2000);
        // A pause from 100 to 2500 ms: the tick due at 666 is sent at 2500,
        // after the expiry at 2000: lost.
        assert_eq!(watchdog_expiry_ms(3000, 2000, 666, &[(100, 2500)]), 2000);
        // A pause from 100 to 1500 ms: sent at 1500 (< 2000), then regular.
        assert_eq!(
            watchdog_expiry_ms(3000, 2000, 666, &[(100, 1500)]),
            2664 + 2000
        );
        // A pause with no tick inside changes nothing.
        assert_eq!(
            watchdog_expiry_ms(3000, 2000, 666, &[(700, 800)]),
            2664 + 2000
        );
    }
}

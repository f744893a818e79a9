//! Lease reconstruction: from acquire, renew and release lines to holds with
//! a believed window and a server-side lock end (docs/semantics.md §1–§3).
//!
//! One pass per lock key in time order keeps a model of the server: which
//! hold's lock is live, and when it expires. The rules are the handed cases'
//! (`tests/fixtures/cases/README.md`, "The rules behind the answers").

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;

use rayon::prelude::*;
use smallvec::SmallVec;

use super::{
    AnalysisProgress, EventId, Lease, LeaseId, LineSpan, LockEnd, LogLagArtefact, NS_PER_MS,
    Settings, WindowEnd,
};
use crate::model::{EventKind, LoadedLog, PARALLEL_MIN, Sym};

/// Holds plus what the reconstruction learned on the way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeaseSet {
    /// Holds sorted by (key name, acquire time); `Lease::id` is the index.
    pub leases: Vec<Lease>,
    /// The events of every hold, each hold's a [`super::LineSpan`] of this
    /// list (acquire first). Read with [`LeaseSet::lines_of`].
    pub lines: Vec<EventId>,
    /// Apparent overlaps that are log lag (not incidents).
    pub log_lag: Vec<LogLagArtefact>,
    /// Holders whose renewals or releases on a key come with no acquire of
    /// theirs before them in the log, sorted by (key name, holder's first
    /// such event): not replayed, so said as `no_acquire` findings.
    pub orphans: Vec<Orphan>,
}

/// A holder's lock events on one key with no acquire of its own before
/// them (the log starts inside its hold, or its acquire line was not
/// read): renewals, and releases or lost locks that ended no live lock
/// (a release known to delete nothing is none).
/// They build no hold, so an overlap with that hold cannot be seen.
#[derive(Clone, Debug, PartialEq)]
pub struct Orphan {
    /// Lock key.
    pub key: Sym,
    /// Holder.
    pub holder: Sym,
    /// Time of the first such event, ns.
    pub first_ns: i64,
    /// Its renewals.
    pub renewals: u32,
    /// Its releases (not known to have deleted nothing) and lost locks.
    pub releases: u32,
}

/// One key's [`Orphan`]s, by holder, in order of their first event.
#[derive(Default)]
struct Orphans(Vec<Orphan>, hashbrown::HashMap<Sym, usize>);

impl Orphans {
    fn note(&mut self, key: Sym, holder: Sym, t: i64, renewal: bool) {
        let at = *self.1.entry(holder).or_insert_with(|| {
            self.0.push(Orphan {
                key,
                holder,
                first_ns: t,
                renewals: 0,
                releases: 0,
            });
            self.0.len() - 1
        });
        let o = &mut self.0[at];
        if renewal {
            o.renewals += 1;
        } else {
            o.releases += 1;
        }
    }
}

impl LeaseSet {
    /// The events of hold `l` of this set, acquire first.
    pub fn lines_of(&self, l: &Lease) -> &[EventId] {
        l.lines.of(&self.lines)
    }
}

/// Event times with per-host clock offsets applied: `true = logged - offset`
/// (`tests/fixtures/cases/README.md`, `host_offsets_ms`). Parallel to
/// `log.events`, or empty when no offset applies (none given, none of a
/// host in the log, or all 0): every reader then takes the logged time
/// (`times_ns.get(i)` falls back to [`crate::model::Event::at_ns`]), so a
/// log without offsets needs no copy of its times (80 MB at 10 M events).
pub fn apply_host_offsets(log: &LoadedLog, host_offsets_ms: &BTreeMap<String, f64>) -> Vec<i64> {
    let by_sym: HashMap<Sym, i64> = host_offsets_ms
        .iter()
        .filter_map(|(host, ms)| {
            let sym = log.strings.lookup(host)?;
            let off = (ms * NS_PER_MS as f64).round() as i64;
            (off != 0).then_some((sym, off))
        })
        .collect();
    if by_sym.is_empty() {
        return Vec::new();
    }
    log.events
        .iter()
        .map(|e| {
            let off = e.host.and_then(|h| by_sym.get(&h)).copied().unwrap_or(0);
            e.at_ns.saturating_sub(off)
        })
        .collect()
}

/// Event `i`'s time with host offsets applied, ns: from `times_ns` (see
/// [`apply_host_offsets`]; empty when no offset applies), else as logged.
/// `e` is event `i`.
#[inline]
pub(crate) fn time_of(times_ns: &[i64], i: usize, e: &crate::model::Event) -> i64 {
    times_ns.get(i).copied().unwrap_or(e.at_ns)
}

/// Which events a rule reads. When an application log and a MONITOR capture
/// describe the same lock key, the application's lines say what holders
/// believed (the primary view) and the capture says what the server did (the
/// server view); each is reconstructed on its own, linked by token.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventView {
    /// `skip[i]`: event `i` is not in this view. Empty: every event is.
    skip: Vec<bool>,
}

impl EventView {
    /// Every event.
    pub fn all() -> EventView {
        EventView::default()
    }

    /// True when event `i` is in the view.
    pub fn includes(&self, i: usize) -> bool {
        self.skip.get(i).is_none_or(|s| !s)
    }

    /// The primary and, when some key is described by both an application
    /// log and a MONITOR capture, the server view of those keys.
    ///
    /// Primary: everything except the inferred events of such keys, and
    /// except the inferred stock and order events of a capture of the same
    /// run when the application logs stock or orders itself (they are the
    /// same sales seen twice: docs/semantics.md §9). A capture is of the same
    /// run when one of its events is on such a key, or one of its orders
    /// carries an order id or a holder the application logged. Server: only
    /// the inferred events of such keys.
    pub fn split(log: &LoadedLog) -> (EventView, Option<EventView>) {
        use std::collections::HashSet;
        // No capture: nothing to split, and no reason to gather the
        // application's keys, holders and orders (doing so takes 0.95 s,
        // on one core, of a 10 M event log without a capture).
        if !log.any_event(|e| e.inferred) {
            return (EventView::all(), None);
        }
        let mut app_keys = HashSet::new();
        let mut inferred_keys = HashSet::new();
        let mut app_business = false;
        let mut app_orders = HashSet::new();
        let mut app_holders = HashSet::new();
        for e in &log.events {
            if e.inferred {
                if let Some(k) = e.key {
                    inferred_keys.insert(k);
                }
                continue;
            }
            app_business |= e.kind.is_business();
            if let Some(h) = e.holder {
                app_holders.insert(h);
            }
            if e.kind == EventKind::OrderCreated
                && let Some(o) = e.detail().order_id
            {
                app_orders.insert(o);
            }
            if let Some(k) = e.key
                && (e.kind == EventKind::Acquired || e.kind.is_business())
            {
                app_keys.insert(k);
            }
        }
        let mixed: HashSet<Sym> = app_keys.intersection(&inferred_keys).copied().collect();
        // Captures of the same run as the application log.
        let mut same_run: HashSet<u16> = HashSet::new();
        if app_business {
            for e in log.events.iter().filter(|e| e.inferred) {
                let linked = e.key.is_some_and(|k| mixed.contains(&k))
                    || (e.kind == EventKind::OrderCreated
                        && (e.holder.is_some_and(|h| app_holders.contains(&h))
                            || e.detail().order_id.is_some_and(|o| app_orders.contains(&o))));
                if linked {
                    same_run.insert(e.source.file);
                }
            }
        }
        if mixed.is_empty() && same_run.is_empty() {
            return (EventView::all(), None);
        }
        let on_mixed =
            |e: &crate::model::Event| e.inferred && e.key.is_some_and(|k| mixed.contains(&k));
        let seen_twice = |e: &crate::model::Event| {
            e.inferred && e.kind.is_business() && same_run.contains(&e.source.file)
        };
        let primary = EventView {
            skip: log
                .events
                .iter()
                .map(|e| on_mixed(e) || seen_twice(e))
                .collect(),
        };
        if mixed.is_empty() {
            return (primary, None);
        }
        let server = EventView {
            skip: log.events.iter().map(|e| !on_mixed(e)).collect(),
        };
        (primary, Some(server))
    }
}

/// A hold under construction.
struct Building {
    lease: Lease,
    /// The hold's events so far (acquire first); moved into the key's
    /// shared list when the key is done.
    lines: SmallVec<[EventId; 4]>,
    window_open: bool,
    last_event_ns: i64,
    lock_ended: bool,
    /// The holder's release line was already accounted for as log lag.
    release_absorbed: bool,
}

impl Building {
    /// A new hold: event `event`, `e` (an acquire at `t`, host offset
    /// applied), granted `key` to `holder` for `ttl_ms`; its window open,
    /// its lock held.
    fn start(
        (event, e): (EventId, &crate::model::Event),
        id: usize,
        key: Sym,
        holder: Sym,
        t: i64,
        ttl_ms: Option<i64>,
        ttl_unknown: bool,
    ) -> Building {
        Building {
            lease: Lease {
                id: LeaseId::new(id),
                key,
                holder,
                host: e.host,
                thread: e.thread,
                acquired_ns: t,
                ttl_ms: ttl_ms.into(),
                ttl_unknown,
                renewals: None,
                expiry_ns: ttl_ms
                    .map(|ttl| t.saturating_add(ttl.saturating_mul(NS_PER_MS)))
                    .into(),
                window_end_ns: t,
                window_end: WindowEnd::LastEvent,
                lock_end_ns: t,
                lock_end: LockEnd::StillHeld,
                ended_by: None,
                inferred: e.inferred,
                release_guessed: false,
                lines: LineSpan::default(),
            },
            lines: smallvec::smallvec![event],
            window_open: true,
            last_event_ns: t,
            lock_ended: false,
            release_absorbed: false,
        }
    }

    fn end_lock(&mut self, end: LockEnd, at_ns: i64, by: Option<LeaseId>) {
        if !self.lock_ended {
            self.lock_ended = true;
            self.lease.lock_end = end;
            self.lease.lock_end_ns = at_ns;
            self.lease.ended_by = by;
        }
    }

    fn close_window(&mut self, end: WindowEnd, at_ns: i64) {
        if self.window_open {
            self.window_open = false;
            self.lease.window_end = end;
            self.lease.window_end_ns = at_ns.max(self.lease.acquired_ns);
        }
    }

    /// A renewal at `t` carrying `ttl_ms` (rule 3 of [`reconstruct_leases`]):
    /// before expiry it moves the expiry; after expiry it is late; after
    /// the holder's own release it is a ghost (a watchdog that outlived the
    /// unlock) and extends nothing.
    fn renew(&mut self, t: i64, ttl_ms: Option<i64>) {
        if !self.window_open && self.lease.window_end == WindowEnd::Released {
            self.lease.renewals_mut().ghost_ns.push(t);
        } else if self.valid_at(t) {
            let ttl = ttl_ms.or(self.lease.ttl_ms.get()).filter(|&ttl| ttl >= 0);
            self.lease.renewals_mut().counted_ns.push(t);
            if self.lease.ttl_ms.get().is_none() {
                self.lease.ttl_ms = ttl.into();
            }
            self.lease.expiry_ns = ttl
                .map(|ttl| t.saturating_add(ttl.saturating_mul(NS_PER_MS)))
                .into();
        } else if self.lease.expiry_ns.get().is_some_and(|exp| t >= exp) {
            self.lease.renewals_mut().late_ns.push(t);
        }
        if self.window_open {
            self.last_event_ns = t;
        }
    }

    /// Still valid at `now_ns`? A lease granted at t with TTL d covers
    /// [t, t + d): at t + d it has expired, so an acquire or a renewal
    /// logged at exactly the expiry comes after it
    /// (`tests/fixtures/cases/README.md`, "Lease").
    fn valid_at(&self, now_ns: i64) -> bool {
        !self.lock_ended && self.lease.expiry_ns.get().is_none_or(|exp| now_ns < exp)
    }
}

/// Reconstructs every hold of every lock key.
///
/// `times_ns` are the event times to use (see [`apply_host_offsets`]).
/// Rules, in order of application at each event of a key:
/// 1. the live lock expires once time reaches its expiry (a lease covers
///    [grant, grant + TTL));
/// 2. `acquired` starts a new hold; the same holder's earlier hold on the
///    key, when its window is still open, ends at that holder's last logged
///    event on the key before this acquire ([`WindowEnd::Reacquired`]); a
///    live lock of another holder then ended
///    either by log lag (its holder's own successful release follows within
///    `log_lag_tolerance_ms`) or it vanished (or, with an unknown TTL,
///    [`LockEnd::Unknown`]: expired or vanished);
/// 3. `renewed` before expiry moves the expiry to renewal + TTL; after expiry
///    it does not count; after the holder's own release it is a ghost
///    renewal and does not count either;
/// 4. `released` closes the believed window (at its time minus
///    `elapsed_ms`); a successful delete ends the holder's own live lock, or,
///    when the releaser's lock had already ended, another holder's live lock
///    (a foreign release); `release_failed` and `lock_lost` close the window;
/// 5. a window with no release ends at the holder's last event on the key.
pub fn reconstruct_leases(log: &LoadedLog, times_ns: &[i64], settings: &Settings) -> LeaseSet {
    reconstruct_leases_in(log, times_ns, settings, &EventView::all())
}

/// Indices of the events that `keep(index, event)` selects, in the order the
/// rules read them: by (time with host offsets, file, line), equal keys in
/// log order.
///
/// Without host offsets (`times_ns` empty) and without a file read newest
/// first, that is the log's own order ([`LoadedLog::events`] is sorted by
/// time, file and line), and the kept events are taken as they are: a sort
/// costs 0.06-0.08 s of `analyze/leases` and as much of
/// `analyze/oversell` at 10 M events. Otherwise the sort keys are gathered
/// first ([`time_keys`]) and sorted as plain tuples: reading them from
/// `log.events[i]` inside every comparison is cache-miss bound at 10 M
/// events (docs/performance.md). The index last keeps equal (time, file,
/// line) in log order, as a stable sort would.
pub(crate) fn time_order(
    log: &LoadedLog,
    times_ns: &[i64],
    keep: impl Fn(usize, &crate::model::Event) -> bool + Sync,
) -> Vec<EventId> {
    time_order_unless_log_order(log, times_ns, &keep)
        .unwrap_or_else(|| kept_in_log_order(log, keep))
}

/// [`time_order`], or `None` when that is the log's own order (no host
/// offsets and no file read newest first).
fn time_order_unless_log_order(
    log: &LoadedLog,
    times_ns: &[i64],
    keep: impl Fn(usize, &crate::model::Event) -> bool + Sync,
) -> Option<Vec<EventId>> {
    let newest_first = newest_first_files(log);
    if times_ns.is_empty() && !newest_first.contains(&true) {
        return None;
    }
    let mut keyed = time_keys(log, times_ns, keep);
    for run in keyed.chunk_by_mut(|a, b| a.0 == b.0) {
        if run.len() > 1 {
            run.sort_unstable_by_key(|&(_, i)| {
                let s = log.events[i as usize].source;
                let flip = newest_first
                    .get(usize::from(s.file))
                    .copied()
                    .unwrap_or(false);
                (s.file, if flip { u32::MAX - s.line } else { s.line }, i)
            });
        }
    }
    // A fresh vector: `into_iter().map().collect()` would reuse the 16-byte
    // pairs' allocation and keep all of it.
    let mut order = Vec::with_capacity(keyed.len());
    order.extend(keyed.iter().map(|&(_, i)| EventId::new(i as usize)));
    Some(order)
}

/// The indices of the events `keep` selects, in the log's order, picked
/// on the pool from [`PARALLEL_MIN`] events.
fn kept_in_log_order(
    log: &LoadedLog,
    keep: impl Fn(usize, &crate::model::Event) -> bool + Sync,
) -> Vec<EventId> {
    let kept = |(i, e): (usize, &crate::model::Event)| keep(i, e).then(|| EventId::new(i));
    if log.events.len() >= PARALLEL_MIN {
        log.events.par_iter().enumerate().filter_map(kept).collect()
    } else {
        log.events.iter().enumerate().filter_map(kept).collect()
    }
}

/// Events one job of the pool counts and keys at once ([`time_keys`]).
const TIME_KEY_CHUNK: usize = 1 << 16;

/// The `(time, event index)` pairs of the events `keep` selects, sorted:
/// counted chunk by chunk, then each chunk's pairs written into its own
/// part of a vector sized exactly (a filtered `collect` grows by doubling,
/// up to 402 MB of 24-byte tuples for 240 MB of them at 10 M events), on
/// the pool. 16-byte pairs of plain integers, not the 24 of (time, file,
/// line, event): the caller puts each run of equal times in (file, line,
/// event) order, which is the same order; and a vector of zeros is had
/// from the allocator without writing it. On one core, gathering the
/// pairs of a 10 M-event log takes 0.09-0.12 s.
fn time_keys(
    log: &LoadedLog,
    times_ns: &[i64],
    keep: impl Fn(usize, &crate::model::Event) -> bool + Sync,
) -> Vec<(i64, u32)> {
    let chunks = log.events.par_chunks(TIME_KEY_CHUNK);
    let counts: Vec<usize> = chunks
        .clone()
        .enumerate()
        .map(|(c, events)| {
            let at = (c * TIME_KEY_CHUNK..).zip(events);
            at.filter(|&(i, e)| keep(i, e)).count()
        })
        .collect();
    let mut keyed = vec![(0i64, 0u32); counts.iter().sum()];
    let mut parts = Vec::with_capacity(counts.len());
    let mut rest = keyed.as_mut_slice();
    for &n in &counts {
        let (part, tail) = rest.split_at_mut(n);
        parts.push(part);
        rest = tail;
    }
    chunks
        .zip(parts)
        .enumerate()
        .for_each(|(c, (events, part))| {
            let at = (c * TIME_KEY_CHUNK..).zip(events);
            let kept = at.filter(|&(i, e)| keep(i, e));
            for (slot, (i, e)) in part.iter_mut().zip(kept) {
                *slot = (time_of(times_ns, i, e), i as u32);
            }
        });
    if keyed.len() >= PARALLEL_MIN {
        keyed.par_sort_unstable();
    } else {
        keyed.sort_unstable();
    }
    keyed
}

/// For each file, whether its lines of one logged instant are to be taken
/// last line first: the file runs newest first (a console's query result
/// downloaded as it was shown: SLS, CLS, Kibana), at least three pairs of
/// consecutive events of one key (in the file's order) whose time goes up
/// while the line number goes down and four times as many as the other
/// way, and its lines within an instant are reversed too. Pairs are taken
/// per key, so a few unrelated lines (a key each) appended in another
/// order never turn the file's keys with many lines around. Then the order of the lines (the log lag, the
/// whole-second rule of §4) means what it means in a file in time order.
/// A console that sorts by time only, newest first, keeps each instant's
/// lines in the order they were written ("newest first between instants"):
/// the file's lines within one instant on one key say which it is
/// ([`InstantVotes`]), and a file whose instants read forward, clearly, is
/// taken in its own order within an instant. Without such lines, a newest
/// first file is taken as wholly reversed. O(events), stopping once every
/// file is in time order beyond doubt.
fn newest_first_files(log: &LoadedLog) -> Vec<bool> {
    let n = log.sources.len().max(1);
    // Per file and key: the last event (time, line); per file the votes
    // (up, down).
    let mut last: hashbrown::HashMap<(u16, Option<Sym>), (i64, u32)> =
        hashbrown::HashMap::default();
    let mut votes = vec![(0u64, 0u64); n];
    let mut within = vec![InstantVotes::default(); n];
    let mut prev: Vec<Option<&crate::model::Event>> = vec![None; n];
    for (i, e) in log.events.iter().enumerate() {
        // Every file already in time order, beyond doubt: even if each
        // event left gave a pair the other way, none could reach the
        // majority below (a file in order is decided in its first fifth).
        if i % 4096 == 0
            && votes.iter().all(|&(up, down)| {
                down.saturating_add((log.events.len() - i) as u64) <= up.saturating_mul(4)
            })
        {
            break;
        }
        let f = usize::from(e.source.file);
        if f >= n {
            continue;
        }
        let here = (e.at_ns, e.source.line);
        if let Some((t, line)) = last.insert((e.source.file, e.key), here)
            && t != e.at_ns
            && line != e.source.line
        {
            let same_way = (e.at_ns > t) == (e.source.line > line);
            if same_way {
                votes[f].0 += 1;
            } else {
                votes[f].1 += 1;
            }
        }
        if let Some(p) = prev[f] {
            within[f].add(p, e);
        }
        prev[f] = Some(e);
    }
    // A clear majority: a file shuffled at random (half its pairs each way)
    // keeps its order, as do files of a few lines.
    votes
        .iter()
        .zip(&within)
        .map(|(&(up, down), w)| down >= 3 && down > 4 * up && !w.forward())
        .collect()
}

/// Evidence of the order of a file's lines within one logged instant: two
/// consecutive lines of one instant on one key, read in the file's order.
/// Forward: an acquire before its holder's other lines, a holder's lines
/// before its closing line (release, failed release, lock lost), one
/// holder's closing line before another's acquire (a hand-off). Backward:
/// each of these the other way round. A closing line before the same
/// holder's acquire (a release and a new acquire) and a renewal beside a
/// line of work say nothing.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct InstantVotes {
    forward: u64,
    backward: u64,
}

impl InstantVotes {
    /// Counts the pair `a` then `b` (consecutive lines of one file).
    fn add(&mut self, a: &crate::model::Event, b: &crate::model::Event) {
        if a.at_ns != b.at_ns || a.key.is_none() || a.key != b.key {
            return;
        }
        let (Some(ha), Some(hb)) = (a.holder, b.holder) else {
            return;
        };
        let closing = |k: EventKind| {
            matches!(
                k,
                EventKind::Released | EventKind::ReleaseFailed | EventKind::LockLost
            )
        };
        let acquire = |k: EventKind| k == EventKind::Acquired;
        let work = |k: EventKind| !acquire(k) && !closing(k) && k != EventKind::AcquireFailed;
        let (ka, kb) = (a.kind, b.kind);
        let vote = if ha == hb {
            if acquire(ka) && (work(kb) || closing(kb)) || work(ka) && closing(kb) {
                Some(true)
            } else if work(ka) && acquire(kb) || closing(ka) && work(kb) {
                Some(false)
            } else {
                None
            }
        } else if closing(ka) && acquire(kb) {
            Some(true)
        } else if acquire(ka) && closing(kb) {
            Some(false)
        } else {
            None
        };
        match vote {
            Some(true) => self.forward += 1,
            Some(false) => self.backward += 1,
            None => {}
        }
    }

    /// Whether the lines within an instant clearly read forward: at least
    /// one pair says so and four times as many as say otherwise.
    fn forward(&self) -> bool {
        self.forward >= 1 && self.forward > 4 * self.backward
    }
}

/// [`reconstruct_leases`] over the events of one [`EventView`] only.
pub fn reconstruct_leases_in(
    log: &LoadedLog,
    times_ns: &[i64],
    settings: &Settings,
    view: &EventView,
) -> LeaseSet {
    reconstruct_leases_counted(log, times_ns, settings, view, &AnalysisProgress::default())
}

/// [`reconstruct_leases_in`], counting the keys in `progress`: the total
/// once the keys are known, then one more done as each key's holds are
/// rebuilt (an atomic add per key, never per event).
pub fn reconstruct_leases_counted(
    log: &LoadedLog,
    times_ns: &[i64],
    settings: &Settings,
    view: &EventView,
    progress: &AnalysisProgress,
) -> LeaseSet {
    let batching = Batching {
        parallel_min: PARALLEL_MIN,
        batch_events: None,
    };
    reconstruct_batched(log, times_ns, settings, (view, batching), progress)
}

/// How [`reconstruct_batched`] rebuilds the keys: in parallel from
/// `parallel_min` events in view, in batches of `batch_events` events
/// (`None`: a 32nd of the events in view, at least 65 536). Every choice
/// gives the same holds in the same order.
#[derive(Clone, Copy, Debug)]
struct Batching {
    parallel_min: usize,
    batch_events: Option<usize>,
}

/// [`reconstruct_leases_counted`] with its [`Batching`] given.
fn reconstruct_batched(
    log: &LoadedLog,
    times_ns: &[i64],
    settings: &Settings,
    (view, batching): (&EventView, Batching),
    progress: &AnalysisProgress,
) -> LeaseSet {
    let KeyGroups {
        by_key,
        acquires,
        events_in_view,
    } = KeyGroups::of(log, times_ns, view, batching.parallel_min);
    let tolerance_ns = (settings.log_lag_tolerance_ms * NS_PER_MS as f64).round() as i64;
    // Keys are independent: each is rebuilt on its own (in parallel), with
    // lease ids counted from 0, then appended in key order with ids shifted.
    // Keys in name order, so that lease ids (and everything sorted by them)
    // do not depend on which line happened to intern a key first.
    let mut by_key: Vec<(Sym, Vec<EventId>)> = by_key.into_iter().collect();
    by_key.sort_unstable_by(|a, b| log.strings.get(a.0).cmp(log.strings.get(b.0)));
    progress
        .keys_total
        .store(by_key.len() as u64, Ordering::Relaxed);
    let one_key = |(key, events): (Sym, Vec<EventId>)| {
        let mut one = LeaseSet::default();
        reconstruct_key(log, times_ns, key, &events, tolerance_ns, &mut one);
        progress.keys_done.fetch_add(1, Ordering::Relaxed);
        one
    };
    // Keys go in batches of about `batch_events` events: a batch's keys are
    // rebuilt (in parallel, unless the log is small: see `PARALLEL_MIN`) and
    // appended before the next batch starts, into a vector sized once from
    // the acquires. So the holds are never in memory twice: the per-key sets
    // of the whole log beside the merged vector were the analysis's peak
    // (38 of 198 MB at 1 M overlap-heavy events, massif; docs/performance.md).
    let parallel = events_in_view >= batching.parallel_min;
    let batch_events = batching
        .batch_events
        .unwrap_or((events_in_view / 32).max(1 << 16))
        .max(1);
    let mut out = LeaseSet {
        leases: Vec::with_capacity(acquires),
        lines: Vec::new(),
        log_lag: Vec::new(),
        orphans: Vec::new(),
    };
    // Each batch's event lists are freed once its keys are done. A batch's
    // holds are appended while the next batch's keys are rebuilt, so that
    // the pool does not wait on the one core that appends (0.13 s of
    // `analyze/leases` at 10 M events).
    let mut rest: std::collections::VecDeque<(Sym, Vec<EventId>)> = by_key.into();
    let mut done: Option<Vec<LeaseSet>> = None;
    while !rest.is_empty() {
        let mut events = 0;
        let take = rest
            .iter()
            .position(|(_, e)| {
                events += e.len();
                events >= batch_events
            })
            .map_or(rest.len(), |p| p + 1);
        let batch: Vec<(Sym, Vec<EventId>)> = rest.drain(..take).collect();
        let rebuild = || -> Vec<LeaseSet> {
            if parallel {
                batch.into_par_iter().map(one_key).collect()
            } else {
                batch.into_iter().map(one_key).collect()
            }
        };
        done = Some(match done.take() {
            Some(before) if parallel => rayon::join(|| append_shifted(&mut out, before), rebuild).1,
            Some(before) => {
                append_shifted(&mut out, before);
                rebuild()
            }
            None => rebuild(),
        });
    }
    if let Some(last) = done {
        append_shifted(&mut out, last);
    }
    out
}

/// The events in a view grouped by lock key ([`KeyGroups::of`]).
struct KeyGroups {
    /// Each key's events in the order the rules read them ([`time_order`]).
    by_key: foldhash::HashMap<Sym, Vec<EventId>>,
    /// Acquires that name a holder: one hold each, the result's size.
    acquires: usize,
    /// Events in the view, with a key or not.
    events_in_view: usize,
}

impl KeyGroups {
    /// The events of `view` grouped by key, in the order the rules read
    /// them. From `parallel_min` events in view the order is cut into one
    /// part per thread of the pool, each part grouped on its own, and the
    /// parts' lists appended in order: a key's list is its events in order
    /// either way. When that order is the log's own, the parts are cut
    /// from the log itself: no vector of the indices in order is made (at
    /// 10 M events, 40 MB and 0.06-0.07 s).
    fn of(log: &LoadedLog, times_ns: &[i64], view: &EventView, parallel_min: usize) -> KeyGroups {
        let keep = |i: usize, _: &crate::model::Event| view.includes(i);
        let order = time_order_unless_log_order(log, times_ns, keep);
        let len = order.as_ref().map_or(log.events.len(), Vec::len);
        let id_at = |n: usize| order.as_ref().map_or(EventId::new(n), |o| o[n]);
        let part = |range: std::ops::Range<usize>| {
            let mut g = KeyGroups {
                by_key: foldhash::HashMap::default(),
                acquires: 0,
                events_in_view: 0,
            };
            for i in range.map(id_at).filter(|&i| view.includes(i.index())) {
                g.add(log, i);
            }
            g
        };
        if len < parallel_min {
            return part(0..len);
        }
        let parts = rayon::current_num_threads().max(1);
        let step = len.div_ceil(parts).max(1);
        let groups: Vec<KeyGroups> = (0..len)
            .step_by(step)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|start| part(start..(start + step).min(len)))
            .collect();
        let mut groups = groups.into_iter();
        let mut first = groups.next().unwrap_or_else(|| part(0..0));
        for g in groups {
            first.append(g);
        }
        first
    }

    /// Counts event `i` of `log` and puts it on its key's list.
    fn add(&mut self, log: &LoadedLog, i: EventId) {
        let e = &log.events[i];
        self.events_in_view += 1;
        if let Some(key) = e.key {
            self.by_key.entry(key).or_default().push(i);
            self.acquires += usize::from(e.kind == EventKind::Acquired && e.holder.is_some());
        }
    }

    /// Appends `later`'s lists (of the events after this part's) to this
    /// part's.
    fn append(&mut self, later: KeyGroups) {
        self.acquires += later.acquires;
        self.events_in_view += later.events_in_view;
        for (key, events) in later.by_key {
            match self.by_key.entry(key) {
                std::collections::hash_map::Entry::Occupied(mut o) => {
                    o.get_mut().extend(events);
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(events);
                }
            }
        }
    }
}

/// Appends each key's holds to `out` in order, shifting their lease ids
/// (counted from 0 within a key) by the holds before them.
fn append_shifted(out: &mut LeaseSet, per_key: Vec<LeaseSet>) {
    for one in per_key {
        let base = out.leases.len();
        let mut leases = one.leases;
        move_lines(&mut leases, &one.lines, &mut out.lines);
        out.leases.extend(leases.into_iter().map(|mut l| {
            l.id = l.id.shifted(base);
            l.ended_by = l.ended_by.map(|b| b.shifted(base));
            l
        }));
        out.log_lag.extend(one.log_lag.into_iter().map(|mut a| {
            a.earlier = a.earlier.shifted(base);
            a.later = a.later.shifted(base);
            a
        }));
        out.orphans.extend(one.orphans);
    }
}

/// Appends `lines`, the shared line list of `leases`, to `to`, and shifts
/// the holds' spans to point into `to`.
pub(super) fn move_lines(leases: &mut [Lease], lines: &[EventId], to: &mut Vec<EventId>) {
    let shift = to.len();
    for l in leases {
        l.lines = l.lines.shifted(shift);
    }
    to.extend_from_slice(lines);
}

/// One key's holds as they are rebuilt ([`reconstruct_key`]), event by
/// event in time order.
struct KeyReplay {
    key: Sym,
    /// Holds of the keys before this one (the offset of its lease ids).
    base: usize,
    holds: Vec<Building>,
    /// Each holder's latest hold on the key.
    latest_of: hashbrown::HashMap<Sym, usize>,
    /// The hold whose lock the server holds, if any.
    live: Option<usize>,
    /// Log-lag artefacts: (earlier hold, later hold, lag ns).
    lag: Vec<(usize, usize, i64)>,
    orphans: Orphans,
    /// The last acquire read on the key, when its file's times are whole
    /// seconds: (time ns, holder, file).
    last_acquire: Option<(i64, Sym, u16)>,
}

/// What [`KeyReplay::acquire`] reads besides the acquire line.
struct AcquireContext<'a> {
    log: &'a LoadedLog,
    times_ns: &'a [i64],
    /// The key's events, in time order.
    events: &'a [EventId],
    ends: &'a HolderEnds,
    tolerance_ns: i64,
}

fn reconstruct_key(
    log: &LoadedLog,
    times_ns: &[i64],
    key: Sym,
    events: &[EventId],
    tolerance_ns: i64,
    out: &mut LeaseSet,
) {
    let ends = HolderEnds::new(log, events);
    let cx = AcquireContext {
        log,
        times_ns,
        events,
        ends: &ends,
        tolerance_ns,
    };
    let mut k = KeyReplay {
        key,
        base: out.leases.len(),
        holds: Vec::new(),
        latest_of: hashbrown::HashMap::default(),
        live: None,
        lag: Vec::new(),
        orphans: Orphans::default(),
        last_acquire: None,
    };
    for (pos, &i) in events.iter().enumerate() {
        let i = i.index();
        let e = &log.events[i];
        let t = time_of(times_ns, i, e);
        k.expire_before(t);
        let Some(holder) = e.holder else { continue };
        match e.kind {
            EventKind::Acquired => k.acquire(&cx, pos, (i, e), holder, t),
            EventKind::Renewed => k.renew((i, e), holder, t),
            EventKind::Released | EventKind::ReleaseFailed | EventKind::LockLost => {
                k.release((i, e), holder, t);
            }
            EventKind::AcquireFailed => {}
            _ => k.work((i, e), holder, t),
        }
    }
    finish_key(k.holds, k.lag, k.base, out);
    out.orphans.append(&mut k.orphans.0);
}

impl KeyReplay {
    /// Ends the live lock when its lease ran out before `t`.
    fn expire_before(&mut self, t: i64) {
        if let Some(l) = self.live
            && !self.holds[l].valid_at(t)
        {
            let exp = self.holds[l].lease.expiry_ns.get().unwrap_or(t);
            self.holds[l].end_lock(LockEnd::Expired, exp, None);
            self.live = None;
        }
    }

    /// An acquire by `holder` at `t`, event `pos` of the key: ends the
    /// holder's earlier hold and the live lock (log lag, unknown or
    /// vanished), and starts a hold.
    fn acquire(
        &mut self,
        cx: &AcquireContext<'_>,
        pos: usize,
        (i, e): (usize, &crate::model::Event),
        holder: Sym,
        t: i64,
    ) {
        let holds = &mut self.holds;
        if let Some(prev) = self.latest_of.get(&holder).copied() {
            // The holder's earlier hold ends at its last logged event on
            // the key before this acquire (a host name or a thread reused
            // as the owner: the earlier request stopped working there, not
            // here).
            let last = holds[prev].last_event_ns;
            holds[prev].close_window(WindowEnd::Reacquired, last);
            if self.live == Some(prev) {
                holds[prev].end_lock(LockEnd::Reacquired, t, None);
                self.live = None;
            }
        }
        let new = holds.len();
        if let Some(l) = self.live {
            let releaser = holds[l].lease.holder;
            match cx.ends.own_release_within(
                cx.log,
                cx.times_ns,
                cx.events,
                pos,
                releaser,
                cx.tolerance_ns,
            ) {
                Some(lag_ns) => {
                    holds[l].end_lock(LockEnd::OwnRelease, t, None);
                    holds[l].release_absorbed = true;
                    self.lag.push((l, new, lag_ns));
                }
                // Without a known TTL it may as well have expired.
                None if holds[l].lease.ttl_unknown => {
                    holds[l].end_lock(LockEnd::Unknown, t, None);
                }
                None => holds[l].end_lock(LockEnd::Vanished, t, None),
            }
        }
        let ttl_ms = e.ttl_ms().filter(|&ttl| ttl >= 0);
        let ttl_unknown = ttl_ms.is_none()
            && cx
                .log
                .sources
                .get(usize::from(e.source.file))
                .is_some_and(|s| s.ttl_unknown);
        holds.push(Building::start(
            (EventId::new(i), e),
            self.base + new,
            self.key,
            holder,
            t,
            ttl_ms,
            ttl_unknown,
        ));
        self.latest_of.insert(holder, new);
        self.live = Some(new);
        // Only in a file of whole seconds: within a millisecond, the order
        // of lines is no surer than the log lag (§4), and the simulator's
        // truth has no pair there.
        let whole_seconds = cx
            .log
            .sources
            .get(usize::from(e.source.file))
            .is_some_and(|s| s.time_resolution.as_deref() == Some("s"));
        self.last_acquire = whole_seconds.then_some((t, holder, e.source.file));
    }

    /// When a line of `holder` at `t` in `file` ends or extends its window:
    /// `t`, or 1 ns after it when another holder's acquire was logged in
    /// the same second earlier in the same file of whole seconds. In such a log
    /// (zerolog's and logrus's default RFC 3339 time), B's acquire and A's
    /// later deduction and failed release all carry one second; the file's
    /// order says A still worked after B acquired, and the windows, which
    /// only touched, overlap by less than the log's resolution (a 0 ms pair,
    /// docs/semantics.md §4; else such a log's oversell has no incident,
    /// exit 0). Across files the order of
    /// lines says nothing.
    fn after_ties(&self, t: i64, holder: Sym, file: u16) -> i64 {
        match self.last_acquire {
            Some((at, other, f)) if at == t && other != holder && f == file => t.saturating_add(1),
            _ => t,
        }
    }

    /// A renewal: of the holder's latest hold, or an orphan.
    fn renew(&mut self, (i, e): (usize, &crate::model::Event), holder: Sym, t: i64) {
        let Some(h) = self.latest_of.get(&holder).copied() else {
            self.orphans.note(self.key, holder, t, true);
            return;
        };
        self.holds[h].lines.push(EventId::new(i));
        self.holds[h].renew(t, e.ttl_ms());
    }

    /// A release, failed release or lost lock: closes the holder's window;
    /// a release that deleted ends the live lock, its own or (a foreign
    /// release) another holder's.
    fn release(&mut self, (i, e): (usize, &crate::model::Event), holder: Sym, t: i64) {
        let mine = self.latest_of.get(&holder).copied();
        let tie_t = self.after_ties(t, holder, e.source.file);
        let elapsed_ns = e
            .detail()
            .elapsed_ms
            .filter(|ms| ms.is_finite() && *ms > 0.0)
            .map_or(0, |ms| (ms * NS_PER_MS as f64).round() as i64);
        // Without a hold of its own, a line ends a live lock only as a
        // delete that says it deleted (a foreign release, below). A release
        // known to delete nothing (a failed one, Redlock's unlock of every
        // node after a failed acquire, a replayed delete of an absent key)
        // is no sign of a hold.
        let ends_live =
            e.kind == EventKind::Released && e.deleted() == Some(true) && self.live.is_some();
        let deleted_nothing = e.kind == EventKind::ReleaseFailed || e.deleted() == Some(false);
        if mine.is_none() && !ends_live && !deleted_nothing {
            self.orphans.note(self.key, holder, t, false);
        }
        let holds = &mut self.holds;
        if let Some(h) = mine {
            holds[h].lines.push(EventId::new(i));
            let end = match e.kind {
                EventKind::Released => WindowEnd::Released,
                EventKind::ReleaseFailed => WindowEnd::ReleaseFailed,
                _ => WindowEnd::LockLost,
            };
            // The release began `elapsed_ms` before its line, but not
            // before the holder's own last line on the key: an elapsed time
            // reaching back past its work counted something else (the hold,
            // from its acquire: "held 2600 ms") and is
            // not the release's; the window then ends at the line.
            let began = t.saturating_sub(elapsed_ns).max(0);
            let b = &holds[h];
            let began = if elapsed_ns == 0 || (b.window_open && began < b.last_event_ns) {
                tie_t
            } else {
                began
            };
            holds[h].close_window(end, began);
        }
        if e.kind != EventKind::Released || e.deleted() == Some(false) {
            return;
        }
        if let Some(h) = mine
            && holds[h].release_absorbed
        {
            holds[h].release_absorbed = false;
            return;
        }
        match (self.live, mine) {
            (Some(l), Some(h)) if l == h => {
                holds[l].end_lock(LockEnd::OwnRelease, t, None);
                holds[l].lease.release_guessed = e.holder_guessed();
                self.live = None;
            }
            // The releaser's own lock had already ended (or it never
            // acquired in this log and says it deleted something).
            (Some(l), by) if by.is_some() || e.deleted() == Some(true) => {
                holds[l].end_lock(
                    LockEnd::ForeignRelease,
                    t,
                    by.map(|b| LeaseId::new(self.base + b)),
                );
                self.live = None;
            }
            _ => {}
        }
    }

    /// Any other line of the holder's: part of its latest hold while its
    /// window is open.
    fn work(&mut self, (i, e): (usize, &crate::model::Event), holder: Sym, t: i64) {
        let t = self.after_ties(t, holder, e.source.file);
        if let Some(h) = self.latest_of.get(&holder).copied() {
            let b = &mut self.holds[h];
            if b.window_open {
                b.last_event_ns = t;
                b.lines.push(EventId::new(i));
            }
        }
    }
}

/// Closes the holds of one key (rule: a window without an end closes at its
/// last event; a lock without one expires with its lease, or is still held
/// without TTL) and moves them and the key's log-lag artefacts into `out`,
/// their ids offset by `base`.
fn finish_key(
    mut holds: Vec<Building>,
    lag: Vec<(usize, usize, i64)>,
    base: usize,
    out: &mut LeaseSet,
) {
    for b in &mut holds {
        let last = b.last_event_ns;
        b.close_window(WindowEnd::LastEvent, last);
        if !b.lock_ended {
            match b.lease.expiry_ns.get() {
                Some(exp) => b.end_lock(LockEnd::Expired, exp, None),
                None => {
                    let end = b.lease.window_end_ns;
                    b.end_lock(LockEnd::StillHeld, end, None);
                }
            }
        }
    }
    out.leases.extend(holds.into_iter().map(|b| {
        let mut lease = b.lease;
        lease.lines = LineSpan::new(out.lines.len(), b.lines.len());
        out.lines.extend_from_slice(&b.lines);
        lease
    }));
    out.log_lag.extend(
        lag.into_iter()
            .map(|(earlier, later, lag_ns)| LogLagArtefact {
                earlier: LeaseId::new(base + earlier),
                later: LeaseId::new(base + later),
                lag_ms: lag_ns as f64 / NS_PER_MS as f64,
            }),
    );
}

/// Where each holder's lock-ending lines are among one key's events
/// (positions of its `released`, `release_failed` and `lock_lost`, in time
/// order), so that the log-lag rule finds a holder's next one by binary
/// search instead of scanning every event within the tolerance after each
/// acquire: a burst of n acquires inside the tolerance would cost n²
/// (300 000 acquires within 1 ms ran past 60 s).
struct HolderEnds(hashbrown::HashMap<Sym, Vec<usize>>);

impl HolderEnds {
    fn new(log: &LoadedLog, events: &[EventId]) -> HolderEnds {
        let mut by_holder: hashbrown::HashMap<Sym, Vec<usize>> = hashbrown::HashMap::default();
        for (pos, &i) in events.iter().enumerate() {
            let e = &log.events[i];
            if let Some(h) = e.holder
                && matches!(
                    e.kind,
                    EventKind::Released | EventKind::ReleaseFailed | EventKind::LockLost
                )
            {
                by_holder.entry(h).or_default().push(pos);
            }
        }
        HolderEnds(by_holder)
    }

    /// `holder`'s own successful release line within `tolerance_ns` after
    /// the acquire at `events[pos]`; returns how far it trails the acquire.
    /// As the scan it replaces ([`tests::own_release_within_by_scan`]): the
    /// holder's first lock-ending line after `pos` decides; a failed or
    /// not-deleting release, a lock loss, or a line past the tolerance is
    /// no log lag.
    fn own_release_within(
        &self,
        log: &LoadedLog,
        times_ns: &[i64],
        events: &[EventId],
        pos: usize,
        holder: Sym,
        tolerance_ns: i64,
    ) -> Option<i64> {
        let time = |i: usize| time_of(times_ns, i, &log.events[i]);
        let list = self.0.get(&holder)?;
        let next = *list.get(list.partition_point(|&p| p <= pos))?;
        let (t, i) = (time(events.get(pos)?.index()), events.get(next)?.index());
        let lag = time(i).saturating_sub(t);
        let e = &log.events[i];
        (lag <= tolerance_ns && e.kind == EventKind::Released && e.deleted() != Some(false))
            .then_some(lag)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{Event, LogBuilder, SourceRef};

    /// The log-lag look-ahead as it was (linear in the events within the
    /// tolerance): the reference [`HolderEnds`] must agree with.
    pub(crate) fn own_release_within_by_scan(
        log: &LoadedLog,
        rest: &[EventId],
        holder: Sym,
        t: i64,
        tolerance_ns: i64,
    ) -> Option<i64> {
        for &i in rest {
            let e = &log.events[i];
            if e.at_ns - t > tolerance_ns {
                return None;
            }
            if e.holder == Some(holder) {
                match e.kind {
                    EventKind::Released if e.deleted() != Some(false) => return Some(e.at_ns - t),
                    EventKind::Released | EventKind::ReleaseFailed | EventKind::LockLost => {
                        return None;
                    }
                    _ => {}
                }
            }
        }
        None
    }

    #[test]
    fn the_indexed_log_lag_look_ahead_agrees_with_the_scan() {
        // A deterministic mix of acquires, renewals, releases, failed
        // releases and lock losses by 5 holders, 0 to 3 ms apart.
        let kinds = [
            EventKind::Acquired,
            EventKind::Renewed,
            EventKind::Released,
            EventKind::ReleaseFailed,
            EventKind::LockLost,
        ];
        let holders = ["a", "b", "c", "d", "e"];
        let mut rows = Vec::new();
        let mut ms = 0i64;
        let mut x: u64 = 12345;
        for _ in 0..400 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ms += ((x >> 33) % 4) as i64;
            let kind = kinds[((x >> 40) % 5) as usize];
            let holder = holders[((x >> 50) % 5) as usize];
            rows.push((ms, kind, "k", holder, Some(1000)));
        }
        let log = log_of(&rows);
        let events: Vec<EventId> = (0..log.events.len()).map(EventId::new).collect();
        let ends = HolderEnds::new(&log, &events);
        let mut agreed = 0;
        for tol_ms in [0, 1, 2, 5, 50] {
            let tol = tol_ms * NS_PER_MS;
            for pos in 0..events.len() {
                for h in holders {
                    let h = log.strings.lookup(h).expect("interned");
                    let t = log.events[pos].at_ns;
                    let scan = own_release_within_by_scan(&log, &events[pos + 1..], h, t, tol);
                    let fast = ends.own_release_within(&log, &[], &events, pos, h, tol);
                    assert_eq!(fast, scan, "pos {pos}, tolerance {tol_ms} ms");
                    agreed += usize::from(scan.is_some());
                }
            }
        }
        assert!(agreed > 100, "the mix has log-lag answers: {agreed}");
    }

    #[test]
    fn time_order_breaks_ties_by_file_line_then_event() {
        // Host offsets that make every time equal: the order is then (file,
        // line, event), which neither the event index nor the line alone
        // gives. The 16-byte sort plus the per-run fix must equal the sort
        // of (time, file, line, event) it replaced.
        let mut b = LogBuilder::new();
        let at = [
            (5, 1, 9),
            (5, 0, 7),
            (3, 1, 2),
            (5, 0, 7),
            (5, 0, 2),
            (3, 0, 4),
        ];
        for &(ms, file, line) in &at {
            b.push(Event::new(
                ms * NS_PER_MS,
                EventKind::Acquired,
                SourceRef { file, line },
            ));
        }
        let log = b.finish();
        for times in [vec![0; at.len()], vec![1, 1, 0, 0, 1, 1]] {
            let order: Vec<usize> = time_order(&log, &times, |_, _| true)
                .iter()
                .map(|i| i.index())
                .collect();
            let mut reference: Vec<(i64, u16, u32, usize)> = log
                .events
                .iter()
                .enumerate()
                .map(|(i, e)| (times[i], e.source.file, e.source.line, i))
                .collect();
            reference.sort_unstable();
            let reference: Vec<usize> = reference.iter().map(|r| r.3).collect();
            assert_eq!(order, reference);
            if times[0] == 0 && times[5] == 0 {
                assert_eq!(order, vec![2, 0, 3, 4, 1, 5]);
            }
        }
    }

    #[test]
    fn time_order_over_many_chunks_equals_one_sort_of_the_kept_events() {
        // More events than three of the pool's chunks in three files read
        // oldest first, long runs of one time across the chunks' edges (a
        // run's order is by file, not by event), every third event left
        // out: the chunks' counts, parts and the tie fix together must
        // equal one sort of the kept events.
        let mut b = LogBuilder::new();
        let n = 3 * TIME_KEY_CHUNK + 1234;
        for i in 0..n {
            let ms = (i / 5000) as i64;
            let source = SourceRef {
                file: (2 - i % 3) as u16,
                line: i as u32,
            };
            b.push(Event::new(ms * NS_PER_MS, EventKind::Acquired, source));
        }
        let log = b.finish();
        let keep = |i: usize, _: &Event| i % 3 != 1;
        // Without offsets the log's own order is taken; with every time
        // given (the same times), the sort's.
        let logged: Vec<i64> = log.events.iter().map(|e| e.at_ns).collect();
        let orders = [&[][..], &logged[..]].map(|times| -> Vec<usize> {
            time_order(&log, times, keep)
                .iter()
                .map(|i| i.index())
                .collect()
        });
        let mut reference: Vec<(i64, u16, u32, usize)> = (0..n)
            .filter(|&i| keep(i, &log.events[i]))
            .map(|i| {
                let e = &log.events[i];
                (e.at_ns, e.source.file, e.source.line, i)
            })
            .collect();
        reference.sort_unstable();
        for order in orders {
            assert_eq!(order.len(), reference.len());
            assert!(order.iter().copied().eq(reference.iter().map(|r| r.3)));
        }
    }

    /// Tiny builder for hand-made logs: `(ms, kind, key, holder, ttl_ms)`.
    pub(crate) fn log_of(rows: &[(i64, EventKind, &str, &str, Option<i64>)]) -> LoadedLog {
        let mut b = LogBuilder::new();
        for (n, &(ms, kind, key, holder, ttl)) in rows.iter().enumerate() {
            let mut e = Event::new(
                ms * NS_PER_MS,
                kind,
                SourceRef {
                    file: 0,
                    line: n as u32 + 1,
                },
            );
            e.key = Some(b.intern(key));
            e.holder = (!holder.is_empty()).then(|| b.intern(holder));
            e.set_ttl_ms(ttl);
            b.push(e);
        }
        b.finish()
    }

    /// `log` with the lines whose number `lines` selects logged by `host`.
    pub(crate) fn on_host(
        mut log: LoadedLog,
        host: &str,
        lines: impl Fn(u32) -> bool,
    ) -> LoadedLog {
        let h = log.strings.intern(host);
        for e in log.events.iter_mut().filter(|e| lines(e.source.line)) {
            e.host = Some(h);
        }
        log
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Keys rebuilt in parallel, in batches of any size, give the holds
        /// (ids, lines, log-lag artefacts, orphans) of the serial rebuild,
        /// in the same order, ties included.
        #[test]
        fn parallel_batches_give_the_serial_holds(
            rows in proptest::collection::vec(
                (0i64..40, 0usize..6, 0usize..7, 0usize..4, proptest::option::of(1i64..30)),
                1..250,
            ),
            batch in 1usize..40,
        ) {
            const KINDS: [EventKind; 6] =
                [Acquired, Renewed, Released, ReleaseFailed, LockLost, AcquireFailed];
            const KEYS: [&str; 7] = ["a", "b", "c", "d", "e", "f", "g"];
            const HOLDERS: [&str; 4] = ["A", "B", "C", ""];
            let rows: Vec<(i64, EventKind, &str, &str, Option<i64>)> = rows
                .iter()
                .map(|&(ms, kind, key, holder, ttl)| (ms, KINDS[kind], KEYS[key], HOLDERS[holder], ttl))
                .collect();
            let log = log_of(&rows);
            let times = apply_host_offsets(&log, &BTreeMap::new());
            let settings = Settings { log_lag_tolerance_ms: 3.0, ..Settings::default() };
            let (view, _) = EventView::split(&log);
            let run = |parallel_min, batch_events| {
                let batching = Batching { parallel_min, batch_events };
                reconstruct_batched(&log, &times, &settings, (&view, batching), &AnalysisProgress::default())
            };
            let serial = run(usize::MAX, Some(usize::MAX));
            proptest::prop_assert_eq!(&run(0, Some(batch)), &serial);
            proptest::prop_assert_eq!(&run(0, None), &serial);
            // Grouped in parts from an order other than the log's (times
            // reversed, as host offsets could), each key's list is the
            // one-part grouping's.
            let reversed: Vec<i64> = log.events.iter().map(|e| -e.at_ns).collect();
            let groups = |parallel_min| KeyGroups::of(&log, &reversed, &view, parallel_min);
            let (parts, whole) = (groups(0), groups(usize::MAX));
            proptest::prop_assert_eq!(parts.by_key, whole.by_key);
            proptest::prop_assert_eq!(parts.acquires, whole.acquires);
            proptest::prop_assert_eq!(parts.events_in_view, whole.events_in_view);
        }
    }

    #[test]
    fn an_empty_log_groups_into_no_keys_in_parts_too() {
        let log = LogBuilder::new().finish();
        for parallel_min in [0, usize::MAX] {
            let groups = KeyGroups::of(&log, &[], &EventView::all(), parallel_min);
            assert!(groups.by_key.is_empty());
            assert_eq!((groups.acquires, groups.events_in_view), (0, 0));
        }
    }

    fn leases_of(log: &LoadedLog) -> LeaseSet {
        let times = apply_host_offsets(log, &BTreeMap::new());
        reconstruct_leases(log, &times, &Settings::default())
    }

    use EventKind::*;

    #[test]
    fn a_log_without_a_capture_is_one_view_and_a_capture_of_its_key_splits_it() {
        let rows = [
            (0, Acquired, "k", "a", Some(1000)),
            (10, Acquired, "k", "a", Some(1000)),
            (20, Acquired, "other", "b", Some(1000)),
        ];
        let app_only = log_of(&rows);
        assert_eq!(EventView::split(&app_only), (EventView::all(), None));
        // The second line as a MONITOR capture saw it: key `k` is described
        // by both, so the capture's line is the server's view only.
        let mut mixed = log_of(&rows);
        mixed.events[1].inferred = true;
        let (primary, server) = EventView::split(&mixed);
        let server = server.expect("a server view");
        assert!(primary.includes(0) && !primary.includes(1) && primary.includes(2));
        assert!(!server.includes(0) && server.includes(1) && !server.includes(2));
    }

    #[test]
    fn the_analysis_counts_every_key_done_up_to_the_total() {
        // Three keys on one thread; then enough events for the parallel
        // path, over 1 000 keys.
        let log = log_of(&[
            (0, Acquired, "a", "A", Some(2000)),
            (10, Acquired, "b", "B", Some(2000)),
            (20, Acquired, "c", "C", Some(2000)),
            (30, Released, "a", "A", None),
        ]);
        let progress = AnalysisProgress::default();
        let a = crate::analysis::analyze_counted(&log, &Settings::default(), &progress);
        assert_eq!(progress.keys(), (3, 3));
        assert_eq!(a.leases.len(), 3);
        let keys: Vec<String> = (0..1000).map(|k| format!("k{k}")).collect();
        let rows: Vec<(i64, EventKind, &str, &str, Option<i64>)> = (0..PARALLEL_MIN + 2000)
            .map(|i| {
                let kind = if i % 2 == 0 { Acquired } else { Released };
                (i as i64, kind, keys[i / 2 % 1000].as_str(), "h", Some(1000))
            })
            .collect();
        let progress = AnalysisProgress::default();
        crate::analysis::analyze_counted(&log_of(&rows), &Settings::default(), &progress);
        assert_eq!(progress.keys(), (1000, 1000));
    }

    #[test]
    fn expiry_while_working_is_a_zombie_hold() {
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(2000)),
            (2100, Acquired, "k", "B", Some(2000)),
            (3000, ReleaseFailed, "k", "A", None),
            (3100, Released, "k", "B", None),
        ]);
        let set = leases_of(&log);
        let a = &set.leases[0];
        assert_eq!(a.lock_end, LockEnd::Expired);
        assert_eq!(a.lock_end_ns, 2000 * NS_PER_MS);
        assert_eq!(a.window_end, WindowEnd::ReleaseFailed);
        assert_eq!(a.zombie_ns(), Some((2000 * NS_PER_MS, 3000 * NS_PER_MS)));
        assert_eq!(set.leases[1].lock_end, LockEnd::OwnRelease);
        // An acquire and its release: a span of the set's shared list.
        let sources = |l: &Lease| -> Vec<SourceRef> {
            set.lines_of(l)
                .iter()
                .map(|&i| log.events[i].source)
                .collect()
        };
        assert_eq!(
            sources(&set.leases[1]),
            [
                SourceRef { file: 0, line: 2 },
                SourceRef { file: 0, line: 4 }
            ]
        );
        assert_eq!(
            sources(&set.leases[0]),
            [
                SourceRef { file: 0, line: 1 },
                SourceRef { file: 0, line: 3 }
            ]
        );
        assert_eq!(set.lines.len(), 4);
        // Holds without renewals allocate no renewal lists, and a hold is
        // 96 bytes (the layout the memory budget counts on,
        // docs/performance.md).
        assert!(set.leases.iter().all(|l| l.renewals.is_none()));
        assert_eq!(std::mem::size_of::<Lease>(), 96);
    }

    #[test]
    fn each_hold_keeps_its_own_lines_across_keys_and_batches() {
        // Many keys, so that they are rebuilt in parallel batches and their
        // lists appended with shifted spans; each hold's lines must still
        // be its own: its acquire, its renewal, its release, on its key.
        const KEYS: usize = 30_000;
        let names: Vec<(String, String)> = (0..KEYS)
            .map(|k| (format!("k{k}"), format!("h{k}")))
            .collect();
        let mut rows = Vec::new();
        for (k, (key, holder)) in names.iter().enumerate() {
            let k = k as i64;
            rows.push((k, Acquired, key.as_str(), holder.as_str(), Some(2000)));
            rows.push((k + 40_000, Renewed, key, holder, Some(2000)));
            if k % 2 == 0 {
                rows.push((k + 80_000, Released, key, holder, None));
            }
        }
        let log = log_of(&rows);
        // More events than one batch (1 << 16) and than `PARALLEL_MIN`.
        assert!(log.events.len() > (1 << 16) && log.events.len() >= PARALLEL_MIN);
        let set = leases_of(&log);
        assert_eq!(set.leases.len(), KEYS);
        for l in &set.leases {
            let ids = set.lines_of(l);
            assert_eq!(
                ids.len(),
                if l.window_end == WindowEnd::Released {
                    3
                } else {
                    2
                }
            );
            let kinds: Vec<EventKind> = ids.iter().map(|&i| log.events[i].kind).collect();
            assert_eq!(kinds[..2], [Acquired, Renewed]);
            assert!(ids.iter().all(
                |&i| log.events[i].key == Some(l.key) && log.events[i].holder == Some(l.holder)
            ));
        }
        let spans: usize = set.leases.iter().map(|l| l.lines.len as usize).sum();
        assert_eq!(spans, set.lines.len());
    }

    #[test]
    fn a_holder_acquiring_again_ends_its_earlier_hold_at_its_last_line_before() {
        // web-1 is a host name reused as the owner: its first request
        // worked until 200 ms and logged no release; B took the expired
        // lock at 1 500 ms; web-1's second request acquired at 3 000 ms.
        // The first hold ends at 200 ms, not at 3 000 ms: no overlap
        // with B (cases README, "Holder").
        let log = log_of(&[
            (0, Acquired, "k", "web-1", Some(1000)),
            (200, Activity, "k", "web-1", None),
            (1500, Acquired, "k", "B", Some(1000)),
            (1600, Released, "k", "B", None),
            (3000, Acquired, "k", "web-1", Some(1000)),
            (3100, Released, "k", "web-1", None),
        ]);
        let set = leases_of(&log);
        let first = &set.leases[0];
        assert_eq!(first.window_end, WindowEnd::Reacquired);
        assert_eq!(first.window_end_ns, 200 * NS_PER_MS);
        assert_eq!(first.lock_end, LockEnd::Expired);
        let found = crate::analysis::detect_overlaps(&set.leases, &set.log_lag, 100);
        assert!(found.overlaps.is_empty(), "{:?}", found.overlaps);
        // With nothing logged between, the earlier hold is its acquire
        // alone, and a live lock ends at the new acquire.
        let log = log_of(&[
            (0, Acquired, "k", "web-1", Some(5000)),
            (300, Acquired, "k", "web-1", Some(5000)),
        ]);
        let a = &leases_of(&log).leases[0];
        assert_eq!((a.window_end_ns, a.lock_end_ns), (0, 300 * NS_PER_MS));
        assert_eq!(a.lock_end, LockEnd::Reacquired);
    }

    #[test]
    fn a_lease_covers_its_grant_up_to_but_not_including_the_expiry() {
        // TTL 1 000 ms granted at 0: at exactly 1 000 ms it has expired.
        // B's acquire there comes after the expiry (not a vanished lock),
        // and A's renewal there is late (cases README, "Lease").
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(1000)),
            (1000, Acquired, "k", "B", Some(1000)),
            (1500, ReleaseFailed, "k", "A", None),
            (1600, Released, "k", "B", None),
        ]);
        let set = leases_of(&log);
        assert_eq!(set.leases[0].lock_end, LockEnd::Expired);
        assert_eq!(set.leases[0].lock_end_ns, 1000 * NS_PER_MS);
        let found = crate::analysis::detect_overlaps(&set.leases, &set.log_lag, 100);
        assert_eq!(found.overlaps.len(), 1);
        assert_eq!(found.overlaps[0].cause, super::super::Cause::LeaseExpired);
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(1000)),
            (1000, Renewed, "k", "A", Some(1000)),
            (1200, Released, "k", "A", None),
        ]);
        let a = &leases_of(&log).leases[0];
        assert_eq!(a.late_renewals_ns(), vec![1000 * NS_PER_MS]);
        assert!(a.renewals_ns().is_empty());
        assert_eq!(a.lock_end, LockEnd::Expired);
        // One nanosecond before the expiry still counts.
        let mut log = log;
        log.events[1].at_ns -= 1;
        let a = &leases_of(&log).leases[0];
        assert_eq!(a.renewals_ns(), vec![1000 * NS_PER_MS - 1]);
        assert_eq!(a.lock_end, LockEnd::OwnRelease);
    }

    #[test]
    fn renewal_after_expiry_does_not_revive_the_lease() {
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(1000)),
            (900, Renewed, "k", "A", Some(1000)),
            (2500, Renewed, "k", "A", Some(1000)),
            (2600, Released, "k", "A", None),
        ]);
        let a = &leases_of(&log).leases[0];
        assert_eq!(a.renewals_ns(), vec![900 * NS_PER_MS]);
        assert_eq!(a.late_renewals_ns(), vec![2500 * NS_PER_MS]);
        assert_eq!(a.expiry_ns.get(), Some(1900 * NS_PER_MS));
        assert_eq!(a.lock_end, LockEnd::Expired);
    }

    #[test]
    fn delete_by_a_holder_whose_lock_ended_is_a_foreign_release() {
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(1000)),
            (1010, Acquired, "k", "B", Some(1000)),
            (1500, Released, "k", "A", None),
            (1600, Acquired, "k", "C", Some(1000)),
        ]);
        let set = leases_of(&log);
        let b = &set.leases[1];
        assert_eq!(b.lock_end, LockEnd::ForeignRelease);
        assert_eq!(b.ended_by, Some(LeaseId::new(0)));
        assert_eq!(b.lock_end_ns, 1500 * NS_PER_MS);
        assert_eq!(set.leases[0].lock_end, LockEnd::Expired);
    }

    #[test]
    fn release_line_just_after_the_next_acquire_is_log_lag() {
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(2000)),
            (320, Acquired, "k", "B", Some(2000)),
            (321, Released, "k", "A", None),
            (900, Released, "k", "B", None),
        ]);
        let set = leases_of(&log);
        assert_eq!(set.leases[0].lock_end, LockEnd::OwnRelease);
        assert_eq!(set.leases[1].lock_end, LockEnd::OwnRelease);
        assert_eq!(set.log_lag.len(), 1);
        assert!((set.log_lag[0].lag_ms - 1.0).abs() < 1e-9);
    }

    #[test]
    fn acquire_over_a_valid_lease_without_release_means_it_vanished() {
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(5000)),
            (1000, Acquired, "k", "B", Some(5000)),
            (1200, Released, "k", "A", None),
        ]);
        let set = leases_of(&log);
        assert_eq!(set.leases[0].lock_end, LockEnd::Vanished);
        assert_eq!(set.leases[0].lock_end_ns, 1000 * NS_PER_MS);
        assert!(set.log_lag.is_empty());
    }

    #[test]
    fn release_elapsed_moves_the_window_end_to_when_release_began() {
        let mut log = log_of(&[
            (0, Acquired, "k", "A", Some(2000)),
            (5000, ReleaseFailed, "k", "A", None),
        ]);
        log.events[1].update_detail(|d| d.elapsed_ms = Some(2072.0));
        let a = &leases_of(&log).leases[0];
        assert_eq!(a.window_end_ns, 2928 * NS_PER_MS);
    }

    #[test]
    fn an_elapsed_time_reaching_back_past_the_holders_work_is_not_the_releases() {
        // A wrapper that logs the time held ("elapsed_ms": 2600 since the
        // acquire) on its release line: taken as the release's, the window
        // would end at the acquire, before the holder's own stock
        // deduction, and the overlap would be lost.
        let mut log = log_of(&[
            (1000, Acquired, "k", "A", Some(2000)),
            (3500, StockDeducted, "k", "A", None),
            (3600, ReleaseFailed, "k", "A", None),
        ]);
        log.events[2].update_detail(|d| d.elapsed_ms = Some(2600.0));
        let a = &leases_of(&log).leases[0];
        assert_eq!(a.window_end_ns, 3600 * NS_PER_MS);
        // Within the work it still marks when the release began.
        log.events[2].update_detail(|d| d.elapsed_ms = Some(50.0));
        let a = &leases_of(&log).leases[0];
        assert_eq!(a.window_end_ns, 3550 * NS_PER_MS);
    }

    #[test]
    fn without_release_the_window_ends_at_the_last_event() {
        let log = log_of(&[
            (0, Acquired, "k", "A", None),
            (5, Activity, "k", "A", None),
            (9, AcquireFailed, "k", "B", None),
        ]);
        let a = &leases_of(&log).leases[0];
        assert_eq!(a.window_end, WindowEnd::LastEvent);
        assert_eq!(a.window_end_ns, 5 * NS_PER_MS);
        assert_eq!(a.lock_end, LockEnd::StillHeld);
        assert_eq!(a.expiry_ns.get(), None);
    }

    #[test]
    fn renewal_after_own_release_is_a_ghost_that_extends_nothing() {
        let log = log_of(&[
            (0, Acquired, "k", "A", Some(1000)),
            (500, Released, "k", "A", None),
            (900, Renewed, "k", "A", Some(1000)),
            (1900, Renewed, "k", "A", Some(1000)),
        ]);
        let a = &leases_of(&log).leases[0];
        assert_eq!(
            a.ghost_renewals_ns(),
            vec![900 * NS_PER_MS, 1900 * NS_PER_MS]
        );
        assert!(a.renewals_ns().is_empty());
        assert!(a.late_renewals_ns().is_empty());
        assert_eq!(a.lock_end, LockEnd::OwnRelease);
        assert_eq!(a.expiry_ns.get(), Some(1000 * NS_PER_MS));
    }

    /// `log` as if its only file had no TTL field.
    pub(crate) fn ttl_unknown(mut log: LoadedLog) -> LoadedLog {
        let mut info = crate::model::SourceInfo::new("app.jsonl", crate::model::Dialect::JsonLines);
        info.ttl_unknown = true;
        log.sources = vec![info];
        log
    }

    #[test]
    fn with_an_unknown_ttl_a_superseded_lock_ended_unknown_not_vanished() {
        let log = ttl_unknown(log_of(&[
            (0, Acquired, "k", "A", None),
            (2100, Acquired, "k", "B", None),
            (3000, ReleaseFailed, "k", "A", None),
            (3100, Released, "k", "B", None),
        ]));
        let set = leases_of(&log);
        let a = &set.leases[0];
        assert!(a.ttl_unknown);
        assert_eq!(a.lock_end, LockEnd::Unknown);
        assert_eq!(a.lock_end_ns, 2100 * NS_PER_MS);
        assert_eq!(a.zombie_ns(), Some((2100 * NS_PER_MS, 3000 * NS_PER_MS)));
        assert_eq!(set.leases[1].lock_end, LockEnd::OwnRelease);
    }

    #[test]
    fn host_offsets_shift_times_back() {
        let log = on_host(
            log_of(&[(1000, Acquired, "k", "A", Some(10))]),
            "web-1",
            |_| true,
        );
        let offsets = BTreeMap::from([("web-1".to_string(), 250.0)]);
        assert_eq!(apply_host_offsets(&log, &offsets), vec![750 * NS_PER_MS]);
        // No offset that applies (none, another host's, or 0 ms): no copy
        // of the times, and the analysis reads the logged ones.
        for none in [
            BTreeMap::new(),
            BTreeMap::from([("web-2".to_string(), 250.0)]),
            BTreeMap::from([("web-1".to_string(), 0.0)]),
        ] {
            assert!(apply_host_offsets(&log, &none).is_empty());
            let settings = Settings {
                host_offsets_ms: none,
                ..Settings::default()
            };
            let a = crate::analysis::analyze(&log, &settings);
            assert!(a.times_ns.is_empty());
            assert_eq!(a.time_of(&log, 0), 1000 * NS_PER_MS);
            assert_eq!(
                a.time_span(&log),
                Some((1000 * NS_PER_MS, 1000 * NS_PER_MS))
            );
        }
        let a = crate::analysis::analyze(
            &log,
            &Settings {
                host_offsets_ms: offsets,
                ..Settings::default()
            },
        );
        assert_eq!(a.time_of(&log, 0), 750 * NS_PER_MS);
        assert_eq!(a.time_span(&log), Some((750 * NS_PER_MS, 750 * NS_PER_MS)));
    }

    #[test]
    fn without_offsets_the_time_span_is_the_walks() {
        use EventKind::*;
        let log = log_of(&[
            (30, Acquired, "k", "A", Some(100)),
            (10, Acquired, "j", "B", Some(100)),
            (20, Released, "j", "B", None),
        ]);
        let a = crate::analysis::analyze(&log, &Settings::default());
        assert!(a.times_ns.is_empty());
        let times = log.events.iter().map(|e| e.at_ns);
        let walked = (times.clone().min(), times.max());
        assert_eq!(
            a.time_span(&log).map(|(a, b)| (Some(a), Some(b))),
            Some(walked)
        );
        assert_eq!(walked, (Some(10 * NS_PER_MS), Some(30 * NS_PER_MS)));
        let empty = log_of(&[]);
        assert_eq!(
            crate::analysis::analyze(&empty, &Settings::default()).time_span(&empty),
            None
        );
    }
}

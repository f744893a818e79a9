//! Several `redis-cli monitor` captures that write the same lock keys: are
//! they the nodes of one Redlock, or one server over time (a failover)?
//! Each capture is replayed on its own ([`super::monitor::read_monitor`]);
//! this module decides from the captures' own evidence what they are
//! together, replaces a Redlock's per-node lock events with quorum-level
//! ones, and says on the sources what it decided (docs/semantics.md §8).
//!
//! # Rules (sources: Redis's Redlock description,
//! <https://redis.io/docs/latest/develop/use/patterns/distributed-locks/>,
//! and Redisson's `uuid:threadId` lock names)
//! - **Lock nodes** of a lock key are the captures whose replay gave lock
//!   events on it (its `SET NX`, `HSET`/`HINCRBY`, `PEXPIRE`, deletes and
//!   compare-and-delete scripts). A capture holding only stock counters and
//!   order lists is no lock node and never counts toward a quorum.
//! - **Quorum**: a majority of the key's lock nodes, `N / 2 + 1` (the Redis
//!   page: a client that "was not able to lock N/2+1 instances" failed).
//! - **Replica copies**: a client of one capture that only repeats another
//!   capture's lock writes, made by several clients there, is a replica's
//!   replication link ([`replication_links`]); its events are copies and
//!   leave the log before anything else is decided.
//! - **Redlock or failover**, decided per set of lock nodes from the
//!   evidence, not from a token seen on two nodes (Redisson names every lock
//!   a thread takes `uuid:threadId`, `getLockName(threadId)`, so one token
//!   on two servers proves nothing):
//!   - the lock-key writes move from one node to the next (each node's
//!     first lock event comes at or after the previous node's last): a
//!     **failover**, one logical server over time. Nothing is merged: every
//!     node's holds are kept, so a lock lost in the failover shows as an
//!     overlap (`lock_vanished`).
//!   - else, more than half of the per-node acquires were also tried (won
//!     or lost) for the same key and token on another node within
//!     [`REDLOCK_SPAN_MS`] (and within the acquire's TTL): a Redlock client
//!     tries the nodes one after another, each try with a timeout "small
//!     compared to the total lock auto-release time" (the Redis page). The
//!     nodes are one **Redlock** and are merged by [`merge_redlock`].
//!   - else nothing is merged and the notes say why.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{FixedOffset, Offset};
use hashbrown::{HashMap, HashSet};

use crate::model::{Dialect, Event, EventKind, KeyList, LoadedLog, SourceNote, Sym};

/// Longest time, in ms, between a Redlock client's tries of one acquire on
/// two nodes (shortened to the acquire's TTL, past which the try is void).
/// The Redis page gives per-node timeouts of 5–50 ms for a 10 s lock; a
/// second covers tens of nodes tried one after another.
pub const REDLOCK_SPAN_MS: i64 = 1_000;

const NS_PER_MS: i64 = 1_000_000;

/// What captures that write the same lock keys were taken to be
/// ([`classify_nodes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodesVerdict {
    /// The nodes of one Redlock: a hold counts once `quorum` of them
    /// granted it. `matched` of the `acquires` per-node acquires were also
    /// tried on another node within [`REDLOCK_SPAN_MS`].
    Redlock {
        /// Majority of the lock nodes.
        quorum: usize,
        /// Per-node acquires tried on another node too.
        matched: usize,
        /// Per-node acquires (won).
        acquires: usize,
    },
    /// One server over time: the lock-key writes move from node to node.
    /// Each hand-off is (from capture, to capture, time of the first lock
    /// event on the new node).
    Failover {
        /// (from, to, at_ns) in time order.
        handoffs: Vec<(u16, u16, i64)>,
    },
    /// Neither: the nodes are written at the same time but their acquires
    /// are not the same acquires (at most half matched). Nothing is merged.
    Separate {
        /// Per-node acquires tried on another node too.
        matched: usize,
        /// Per-node acquires (won).
        acquires: usize,
    },
}

/// True for the events a capture's replay derives for a lock key.
fn is_lock_kind(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::Acquired
            | EventKind::AcquireFailed
            | EventKind::Renewed
            | EventKind::Released
            | EventKind::ReleaseFailed
    )
}

/// How far apart two tries of one acquire may be: the TTL, at most
/// [`REDLOCK_SPAN_MS`].
fn span_ns(ttl_ms: Option<i64>) -> i64 {
    let ms = ttl_ms
        .filter(|&t| t >= 0)
        .map_or(REDLOCK_SPAN_MS, |t| t.min(REDLOCK_SPAN_MS));
    ms.saturating_mul(NS_PER_MS)
}

/// Decides what the captures `nodes` are together from their lock events
/// `events` (events of other captures are ignored). See the module docs
/// for the rules; fewer than two nodes with lock events give
/// [`NodesVerdict::Separate`].
pub fn classify_nodes<'a>(
    events: impl IntoIterator<Item = &'a Event>,
    nodes: &[u16],
) -> NodesVerdict {
    // Per node: first and last lock event.
    let mut active: BTreeMap<u16, (i64, i64)> = BTreeMap::new();
    // Tries (won or lost) as (key, holder, node, time), sorted: one flat
    // vector, not a map per token (a capture can hold a token per acquire).
    let mut tries: Vec<(Sym, Sym, u16, i64)> = Vec::new();
    let mut won: Vec<(Sym, Sym, u16, i64, Option<i64>)> = Vec::new();
    for e in events {
        let node = e.source.file;
        if !nodes.contains(&node) || !is_lock_kind(e.kind) {
            continue;
        }
        let span = active.entry(node).or_insert((e.at_ns, e.at_ns));
        span.0 = span.0.min(e.at_ns);
        span.1 = span.1.max(e.at_ns);
        let (Some(key), Some(holder)) = (e.key, e.holder) else {
            continue;
        };
        if matches!(e.kind, EventKind::Acquired | EventKind::AcquireFailed) {
            tries.push((key, holder, node, e.at_ns));
        }
        if e.kind == EventKind::Acquired {
            won.push((key, holder, node, e.at_ns, e.ttl_ms()));
        }
    }
    let acquires = won.len();
    if active.len() < 2 {
        return NodesVerdict::Separate {
            matched: 0,
            acquires,
        };
    }
    if let Some(handoffs) = handoffs(&active) {
        return NodesVerdict::Failover { handoffs };
    }
    tries.sort_unstable();
    let matched = won
        .iter()
        .filter(|&&(key, holder, node, at, ttl)| {
            let span = span_ns(ttl);
            active.keys().any(|&other| {
                other != node && {
                    let from = (key, holder, other, at.saturating_sub(span));
                    let i = tries.partition_point(|t| *t < from);
                    tries.get(i).is_some_and(|&(k, h, n, t)| {
                        (k, h, n) == (key, holder, other) && t <= at.saturating_add(span)
                    })
                }
            })
        })
        .count();
    if matched * 2 > acquires {
        NodesVerdict::Redlock {
            quorum: active.len() / 2 + 1,
            matched,
            acquires,
        }
    } else {
        NodesVerdict::Separate { matched, acquires }
    }
}

/// The hand-offs when the nodes' lock activity follows one another (each
/// node's first lock event at or after the previous node's last), else
/// `None`.
fn handoffs(active: &BTreeMap<u16, (i64, i64)>) -> Option<Vec<(u16, u16, i64)>> {
    let mut order: Vec<(i64, i64, u16)> = active
        .iter()
        .map(|(&node, &(first, last))| (first, last, node))
        .collect();
    order.sort_unstable();
    order
        .windows(2)
        .map(|w| (w[0].1 <= w[1].0).then_some((w[0].2, w[1].2, w[1].0)))
        .collect()
}

/// A client of one capture whose lock events all repeat another capture's:
/// a replica's link to its master, as the replica's MONITOR shows it (the
/// master's writes, as `MULTI` ... `EXEC` from the master's address).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicationLink {
    /// The replica's capture.
    pub replica: u16,
    /// The client address the copies come from on the replica.
    pub client: Sym,
    /// The master's capture.
    pub master: u16,
    /// Lock events of the link (every one a copy).
    pub events: usize,
}

/// Share of a link's events that must repeat the master's, and of the
/// master's writes in the link's time that the link must repeat.
const LINK_SHARE: (usize, usize) = (9, 10);

/// What an event says about the lock, for matching a copy with its
/// original: a grant (acquire, or renewal: a replica gets Redisson's
/// `hincrby` and `pexpire` as two commands), a delete, a failure.
fn category(kind: EventKind) -> u8 {
    match kind {
        EventKind::Acquired | EventKind::Renewed => 0,
        EventKind::Released => 1,
        _ => 2,
    }
}

/// Where a lock event is looked up: (capture, client or `None` for any
/// client, key, holder, [`category`]).
type Slot = (u16, Option<Sym>, Sym, Sym, u8);

/// The lock events as (slot, time, client), sorted: one flat vector, not
/// a map per token (a capture can hold a token per acquire).
type Index = Vec<(Slot, i64, Option<Sym>)>;

/// The client of the first event of `index` in slot `k` within
/// `from..=to` (`Some(None)`: an event without a client), `None` when
/// there is none.
fn first_between(index: &Index, k: Slot, from: i64, to: i64) -> Option<Option<Sym>> {
    let i = index.partition_point(|&(slot, t, _)| (slot, t) < (k, from));
    index
        .get(i)
        .filter(|&&(slot, t, _)| slot == k && t <= to)
        .map(|&(_, _, host)| host)
}

/// Finds the replication links among the lock events `events` of the
/// captures (docs/semantics.md §8): a client of capture R is a link from
/// capture M when
/// - it has two or more lock events and none is a failed acquire or a
///   failed release (a replica receives only the writes that happened);
/// - at least 90 % of them repeat an event of M of the same kind, key and
///   holder at most [`REDLOCK_SPAN_MS`] earlier, and those originals come
///   from two or more clients of M (one link carries every client's
///   writes; a Redlock client's connection to one node repeats only its own
///   process's requests);
/// - it repeats at least 90 % of M's grants and deletes in its own time.
pub fn replication_links<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<ReplicationLink> {
    let mut index: Index = Vec::new();
    let mut by_client: BTreeMap<(u16, Sym), Vec<&Event>> = BTreeMap::new();
    let mut nodes: BTreeSet<u16> = BTreeSet::new();
    for e in events {
        let (Some(key), Some(holder)) = (e.key, e.holder) else {
            continue;
        };
        let (node, cat) = (e.source.file, category(e.kind));
        nodes.insert(node);
        index.push(((node, None, key, holder, cat), e.at_ns, e.host));
        if let Some(host) = e.host {
            index.push(((node, Some(host), key, holder, cat), e.at_ns, e.host));
            by_client.entry((node, host)).or_default().push(e);
        }
    }
    index.sort_unstable();
    let span = span_ns(None);
    let (num, den) = LINK_SHARE;
    let mut links = Vec::new();
    for (&(replica, client), list) in &by_client {
        if list.len() < 2 || list.iter().any(|e| category(e.kind) == 2) {
            continue;
        }
        let first = list.iter().map(|e| e.at_ns).min().unwrap_or(0);
        let last = list.iter().map(|e| e.at_ns).max().unwrap_or(0);
        let link = nodes.iter().filter(|&&m| m != replica).find_map(|&master| {
            let mut repeated = 0usize;
            let mut origins: BTreeSet<Option<Sym>> = BTreeSet::new();
            // Past this many events that repeat nothing, it is no link.
            let may_miss = list.len() - (list.len() * num).div_ceil(den);
            for (seen, e) in list.iter().enumerate() {
                let (Some(key), Some(holder)) = (e.key, e.holder) else {
                    continue;
                };
                let k = (master, None, key, holder, category(e.kind));
                if let Some(host) = first_between(&index, k, e.at_ns.saturating_sub(span), e.at_ns)
                {
                    repeated += 1;
                    origins.insert(host);
                } else if seen + 1 - repeated > may_miss {
                    return None;
                }
            }
            if repeated * den < list.len() * num || origins.len() < 2 {
                return None;
            }
            // The master's writes in the link's time, and how many it repeats.
            let (mut writes, mut copied) = (0usize, 0usize);
            let from = first.saturating_sub(span);
            for &((node, host, key, holder, cat), t, _) in &index {
                if node != master || host.is_some() || cat == 2 || t < from || t > last {
                    continue;
                }
                writes += 1;
                let mine = (replica, Some(client), key, holder, cat);
                if first_between(&index, mine, t, t.saturating_add(span)).is_some() {
                    copied += 1;
                }
            }
            (copied * den >= writes * num).then_some(ReplicationLink {
                replica,
                client,
                master,
                events: list.len(),
            })
        });
        links.extend(link);
    }
    links
}

/// One node's copy of a lock key: its holder and when it expires (`None`:
/// never).
#[derive(Clone, Copy, Debug)]
struct NodeHold {
    holder: Sym,
    deadline_ns: Option<i64>,
}

impl NodeHold {
    fn live_at(&self, t: i64) -> bool {
        self.deadline_ns.is_none_or(|d| d >= t)
    }
}

/// One Redlock acquire of a holder: its tries on the nodes, one after
/// another, until a quorum granted it or the client gave up.
#[derive(Clone, Debug)]
struct Attempt {
    first_ns: i64,
    span_ns: i64,
    /// The last try (won or lost), for the `AcquireFailed` of an attempt
    /// that never reached a quorum.
    last: Event,
    quorum: bool,
    /// Index in the output of the quorum hold's release, once released.
    release: Option<usize>,
    /// That release is the delete that broke the quorum (no later line of
    /// the round replaces it).
    release_final: bool,
    /// A failed attempt whose `AcquireFailed` is out.
    closed: bool,
    /// A quorum hold that lost its quorum to another holder's delete.
    lost: bool,
}

/// The quorum-level replay of one Redlock's per-node lock events.
struct Merge {
    quorum: usize,
    nodes: Vec<u16>,
    held: HashMap<(Sym, u16), NodeHold>,
    attempts: HashMap<(Sym, Sym), Attempt>,
    out: Vec<Event>,
}

impl Merge {
    /// Nodes of `key` that `holder` holds at `t`, with the earliest of
    /// their deadlines.
    fn live(&self, key: Sym, holder: Sym, t: i64) -> (usize, Option<i64>) {
        let mut count = 0;
        let mut first_deadline: Option<i64> = None;
        for &n in &self.nodes {
            if let Some(h) = self.held.get(&(key, n))
                && h.holder == holder
                && h.live_at(t)
            {
                count += 1;
                if let Some(d) = h.deadline_ns {
                    first_deadline = Some(first_deadline.map_or(d, |f| f.min(d)));
                }
            }
        }
        (count, first_deadline)
    }

    fn fail(&mut self, a: &Attempt) {
        let mut f = a.last.clone();
        f.kind = EventKind::AcquireFailed;
        f.set_ttl_ms(None);
        self.out.push(f);
    }

    /// The holder's current attempt, a new one when `e` (a try) comes after
    /// the last one ended or beyond its span; a replaced attempt that never
    /// reached a quorum gives its `AcquireFailed`.
    fn attempt(&mut self, key: Sym, holder: Sym, e: &Event) -> &mut Attempt {
        let t = e.at_ns;
        let fresh = match self.attempts.get(&(key, holder)) {
            None => true,
            Some(a) => a.release.is_some() || a.closed || t.saturating_sub(a.first_ns) > a.span_ns,
        };
        if fresh
            && let Some(old) = self.attempts.remove(&(key, holder))
            && !old.quorum
            && !old.closed
        {
            self.fail(&old);
        }
        let a = self
            .attempts
            .entry((key, holder))
            .or_insert_with(|| Attempt {
                first_ns: t,
                span_ns: span_ns(None),
                last: e.clone(),
                quorum: false,
                release: None,
                release_final: false,
                closed: false,
                lost: false,
            });
        a.last = e.clone();
        a.span_ns = a.span_ns.min(span_ns(e.ttl_ms()));
        a
    }

    fn acquired(&mut self, key: Sym, holder: Sym, e: &Event) {
        let t = e.at_ns;
        let deadline_ns = e
            .ttl_ms()
            .map(|ttl| t.saturating_add(ttl.saturating_mul(NS_PER_MS)));
        let node = e.source.file;
        self.held.insert(
            (key, node),
            NodeHold {
                holder,
                deadline_ns,
            },
        );
        let done = self.attempt(key, holder, e).quorum;
        if done {
            return; // a node tried after the quorum was reached
        }
        let (count, first_deadline) = self.live(key, holder, t);
        if count >= self.quorum {
            let mut q = e.clone();
            q.set_ttl_ms(first_deadline.map(|d| d.saturating_sub(t).div_euclid(NS_PER_MS)));
            self.out.push(q);
            if let Some(a) = self.attempts.get_mut(&(key, holder)) {
                a.quorum = true;
            }
        }
    }

    fn renewed(&mut self, key: Sym, holder: Sym, e: &Event) {
        if let Some(h) = self.held.get_mut(&(key, e.source.file))
            && h.holder == holder
        {
            h.deadline_ns = e
                .ttl_ms()
                .map(|ttl| e.at_ns.saturating_add(ttl.saturating_mul(NS_PER_MS)));
        }
        if self
            .attempts
            .get(&(key, holder))
            .is_some_and(|a| a.quorum && a.release.is_none())
        {
            self.out.push(e.clone());
        }
    }

    /// A release (or failed release) by `holder` on one node.
    fn released(&mut self, key: Sym, holder: Sym, e: &Event) {
        let t = e.at_ns;
        let deleted = e.kind == EventKind::Released && e.deleted() != Some(false);
        let victim = if deleted {
            self.held.remove(&(key, e.source.file))
        } else {
            None
        };
        let own_delete = victim.is_some_and(|v| v.holder == holder);
        // Its own delete that leaves it fewer than a quorum of live nodes:
        // the moment its lock stops being held by a majority.
        let breaks = own_delete && self.live(key, holder, t).0 < self.quorum;
        let mut emitted = false;
        match self.attempts.get(&(key, holder)).cloned() {
            // The quorum hold's first release line ends it, unless a later
            // delete of the same round is the one that breaks the quorum.
            Some(a) if a.quorum && a.release.is_none() => {
                if let Some(a) = self.attempts.get_mut(&(key, holder)) {
                    a.release = Some(self.out.len());
                    a.release_final = breaks;
                }
                self.out.push(e.clone());
                emitted = true;
            }
            Some(Attempt {
                quorum: true,
                release: Some(i),
                release_final: false,
                span_ns,
                ..
            }) if breaks => {
                if let Some(r) = self.out.get_mut(i)
                    && t.saturating_sub(r.at_ns) <= span_ns
                {
                    *r = e.clone();
                }
                if let Some(a) = self.attempts.get_mut(&(key, holder)) {
                    a.release_final = true;
                }
            }
            // A holder that never reached a quorum releases the nodes it
            // won: its own release of a hold it never had (no event), and
            // the end of its attempt.
            Some(a) if !a.quorum && !a.closed => {
                self.fail(&a);
                if let Some(a) = self.attempts.get_mut(&(key, holder)) {
                    a.closed = true;
                }
            }
            _ => {}
        }
        // Another holder's delete that leaves a quorum hold short of a
        // quorum is a release of it (the analysis calls it foreign).
        if let Some(v) = victim
            && v.holder != holder
            && v.live_at(t)
            && !emitted
        {
            let (left, _) = self.live(key, v.holder, t);
            if let Some(va) = self.attempts.get_mut(&(key, v.holder))
                && va.quorum
                && va.release.is_none()
                && !va.lost
                && left < self.quorum
                && left + 1 >= self.quorum
            {
                va.lost = true;
                self.out.push(e.clone());
            }
        }
    }
}

/// Combines the per-node lock events of one Redlock into quorum-level
/// events: a holder holds the lock once a majority of its `nodes` lock
/// nodes (`nodes / 2 + 1`) granted it (the Redis page: a client that "was
/// not able to lock N/2+1 instances" failed, and then unlocks every node,
/// which is why a failed holder's own deletes are no foreign release).
///
/// `events` are the lock events of the Redlock's keys on its nodes
/// (`source.file` tells the node), in any order; the result is sorted by
/// (time, file, line). Per lock key, in time order:
/// - a holder's tries (won or lost) within [`REDLOCK_SPAN_MS`] (and its
///   TTL) of its first are one attempt. The try that makes it hold a
///   majority of live nodes gives the `Acquired`, at its time, with the TTL
///   left on the first of those nodes to expire. An attempt that ends (its
///   holder releases, tries again later, or the capture ends) without a
///   quorum gives one `AcquireFailed` at its last try; its per-node
///   acquires, renewals and releases give nothing: deleting the node it won
///   is its own release of a hold it never had, never a foreign release.
/// - a quorum hold's renewals are kept. Its release round (release lines
///   within the attempt's span of the first) gives one release: the
///   holder's own delete that leaves it fewer than a quorum of live nodes
///   (when its lock stops being held by a majority), else the round's
///   first line (compare-and-deletes that found nothing).
/// - a delete of a quorum holder's node by another holder that leaves it
///   short of a quorum is kept (the analysis sees a foreign release).
/// - per-node failed acquires give nothing on their own (the quorum
///   decides).
pub fn merge_redlock(events: &[Event], nodes: usize) -> Vec<Event> {
    let mut sorted: Vec<&Event> = events.iter().collect();
    sorted.sort_by_key(|e| (e.at_ns, e.source.file, e.source.line));
    let node_ids: BTreeSet<u16> = events.iter().map(|e| e.source.file).collect();
    let mut m = Merge {
        quorum: nodes / 2 + 1,
        nodes: node_ids.into_iter().collect(),
        held: HashMap::new(),
        attempts: HashMap::new(),
        out: Vec::new(),
    };
    for e in sorted {
        let (Some(key), Some(holder)) = (e.key, e.holder) else {
            continue;
        };
        match e.kind {
            EventKind::Acquired => m.acquired(key, holder, e),
            EventKind::AcquireFailed => {
                m.attempt(key, holder, e);
            }
            EventKind::Renewed => m.renewed(key, holder, e),
            EventKind::Released | EventKind::ReleaseFailed => m.released(key, holder, e),
            _ => m.out.push(e.clone()),
        }
    }
    let mut open: Vec<Attempt> = m
        .attempts
        .values()
        .filter(|a| !a.quorum && !a.closed)
        .cloned()
        .collect();
    open.sort_by_key(|a| (a.last.at_ns, a.last.source.file, a.last.source.line));
    for a in &open {
        m.fail(a);
    }
    let mut out = m.out;
    out.sort_by_key(|e| (e.at_ns, e.source.file, e.source.line));
    out
}

/// A time for a note, in the log's display offset, to the millisecond.
fn clock(at_ns: i64, offset_s: i32) -> String {
    let offset = FixedOffset::east_opt(offset_s).unwrap_or_else(|| chrono::Utc.fix());
    chrono::DateTime::from_timestamp_nanos(at_ns)
        .with_timezone(&offset)
        .format("%Y-%m-%dT%H:%M:%S%.3f%:z")
        .to_string()
}

/// The note each capture of a set of lock nodes gets for `verdict`.
fn verdict_note(
    log: &LoadedLog,
    nodes: &[u16],
    keys: &[Sym],
    verdict: &NodesVerdict,
) -> SourceNote {
    let name = |n: u16| {
        log.sources
            .get(usize::from(n))
            .map_or("?", |s| s.name.as_str())
            .to_string()
    };
    let names: Vec<String> = nodes.iter().map(|&n| name(n)).collect();
    let keys = KeyList::of(keys.iter().map(|&k| log.strings.get(k)).collect());
    match verdict {
        NodesVerdict::Redlock {
            quorum,
            matched,
            acquires,
        } => SourceNote::Redlock {
            keys,
            nodes: names,
            quorum: *quorum as u64,
            matched: *matched as u64,
            acquires: *acquires as u64,
            span_ms: REDLOCK_SPAN_MS,
        },
        NodesVerdict::Failover { handoffs } => SourceNote::Failover {
            keys,
            moves: handoffs
                .iter()
                .map(|&(from, to, at)| (name(from), name(to), clock(at, log.display_offset_s)))
                .collect(),
        },
        NodesVerdict::Separate { matched, acquires } => SourceNote::NotRedlock {
            keys,
            nodes: names,
            matched: *matched as u64,
            acquires: *acquires as u64,
            span_ms: REDLOCK_SPAN_MS,
        },
    }
}

/// Decides, for MONITOR captures that write the same lock keys, whether
/// they are the nodes of one Redlock or one server over time
/// ([`classify_nodes`]), replaces a Redlock's per-node lock events with
/// quorum-level ones ([`merge_redlock`], quorum over that key's lock
/// nodes) and notes the decision on each capture concerned. A capture that
/// writes no lock key beside a Redlock is noted as a data node. Other
/// events are untouched.
pub fn combine_redlock_nodes(log: &mut LoadedLog) {
    let captures: HashSet<u16> = log
        .sources
        .iter()
        .enumerate()
        .filter(|(_, s)| s.dialect == Dialect::RedisMonitor)
        .filter_map(|(i, _)| u16::try_from(i).ok())
        .collect();
    if captures.len() < 2 {
        return;
    }
    let on_node =
        |e: &Event| e.inferred && is_lock_kind(e.kind) && captures.contains(&e.source.file);
    let count_nodes = |events: &[Event]| {
        let mut nodes_of: HashMap<Sym, BTreeSet<u16>> = HashMap::new();
        for e in events.iter().filter(|e| on_node(e)) {
            if let Some(k) = e.key {
                nodes_of.entry(k).or_default().insert(e.source.file);
            }
        }
        nodes_of
    };
    let mut nodes_of = count_nodes(&log.events);
    // A replica's copies of its master's writes are no grants of their
    // own: they leave the log (all of the link's events), and the nodes
    // are counted again without them.
    let shared = |k: Option<Sym>| {
        k.and_then(|k| nodes_of.get(&k))
            .is_some_and(|n| n.len() >= 2)
    };
    let links = replication_links(log.events.iter().filter(|e| on_node(e) && shared(e.key)));
    if !links.is_empty() {
        let copy: HashSet<(u16, Sym)> = links.iter().map(|l| (l.replica, l.client)).collect();
        log.events
            .retain(|e| !e.host.is_some_and(|h| copy.contains(&(e.source.file, h))));
        nodes_of = count_nodes(&log.events);
        note_links(log, &links);
    }
    // Keys grouped by their set of lock nodes (two or more).
    let mut groups: BTreeMap<Vec<u16>, Vec<Sym>> = BTreeMap::new();
    for (k, nodes) in &nodes_of {
        if nodes.len() >= 2 {
            groups
                .entry(nodes.iter().copied().collect())
                .or_default()
                .push(*k);
        }
    }
    if groups.is_empty() {
        return;
    }
    let mut redlock_of: HashMap<Sym, usize> = HashMap::new();
    let mut decided: Vec<(Vec<u16>, Vec<Sym>, NodesVerdict)> = Vec::new();
    for (nodes, keys) in groups {
        let key_set: HashSet<Sym> = keys.iter().copied().collect();
        let verdict = classify_nodes(
            log.events
                .iter()
                .filter(|e| on_node(e) && e.key.is_some_and(|k| key_set.contains(&k))),
            &nodes,
        );
        if matches!(verdict, NodesVerdict::Redlock { .. }) {
            redlock_of.extend(keys.iter().map(|&k| (k, decided.len())));
        }
        decided.push((nodes, keys, verdict));
    }
    if !redlock_of.is_empty() {
        let mut per_group: Vec<Vec<Event>> = vec![Vec::new(); decided.len()];
        let mut rest: Vec<Event> = Vec::with_capacity(log.events.len());
        for e in std::mem::take(&mut log.events) {
            match e.key.and_then(|k| redlock_of.get(&k)) {
                Some(&g) if on_node(&e) => per_group[g].push(e),
                _ => rest.push(e),
            }
        }
        for (g, events) in per_group.iter().enumerate() {
            if !events.is_empty() {
                rest.extend(merge_redlock(events, decided[g].0.len()));
            }
        }
        rest.sort_by_key(|e| (e.at_ns, e.source.file, e.source.line));
        log.events = rest;
    }
    note_verdicts(log, &captures, &nodes_of, &decided);
}

/// Says on each replica's capture which client was its replication link
/// and that its copies were left out.
fn note_links(log: &mut LoadedLog, links: &[ReplicationLink]) {
    for l in links {
        let master = log
            .sources
            .get(usize::from(l.master))
            .map_or("?", |s| s.name.as_str());
        let note = SourceNote::Replica {
            client: log.strings.get(l.client).to_string(),
            master: master.to_string(),
            events: l.events as u64,
        };
        if let Some(s) = log.sources.get_mut(usize::from(l.replica)) {
            s.notes.push(note);
        }
    }
}

/// Writes each decision on its captures, and a data-node note on the
/// captures beside a Redlock that write no lock key.
fn note_verdicts(
    log: &mut LoadedLog,
    captures: &HashSet<u16>,
    nodes_of: &HashMap<Sym, BTreeSet<u16>>,
    decided: &[(Vec<u16>, Vec<Sym>, NodesVerdict)],
) {
    let mut notes: Vec<(u16, SourceNote)> = Vec::new();
    for (nodes, keys, verdict) in decided {
        let note = verdict_note(log, nodes, keys, verdict);
        notes.extend(nodes.iter().map(|&n| (n, note.clone())));
    }
    if decided
        .iter()
        .any(|(_, _, v)| matches!(v, NodesVerdict::Redlock { .. }))
    {
        let lock_nodes: HashSet<u16> = nodes_of.values().flatten().copied().collect();
        let mut data: Vec<u16> = captures.difference(&lock_nodes).copied().collect();
        data.sort_unstable();
        notes.extend(data.into_iter().map(|n| (n, SourceNote::DataNode)));
    }
    for (n, note) in notes {
        if let Some(s) = log.sources.get_mut(usize::from(n)) {
            s.notes.push(note);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LogBuilder, SourceRef};

    const MS: i64 = NS_PER_MS;

    /// A per-node lock event of `key` at `at_ms` on capture `file`.
    fn ev(
        b: &mut LogBuilder,
        file: u16,
        at_ms: i64,
        kind: EventKind,
        holder: &str,
        ttl_ms: Option<i64>,
    ) -> Event {
        let mut e = Event::new(at_ms * MS, kind, SourceRef { file, line: 1 });
        e.key = Some(b.intern("lock:k"));
        e.holder = Some(b.intern(holder));
        e.inferred = true;
        e.set_ttl_ms(ttl_ms);
        e
    }

    fn deleted(mut e: Event, yes: bool) -> Event {
        e.update_detail(|d| d.deleted = Some(yes));
        e
    }

    /// (kind, holder, ms, ttl, deleted) of an output event.
    type Row = (EventKind, String, i64, Option<i64>, Option<bool>);

    fn view(b: &LogBuilder, out: &[Event]) -> Vec<Row> {
        out.iter()
            .map(|e| {
                (
                    e.kind,
                    b.log.strings.get_or_empty(e.holder).to_string(),
                    e.at_ns / MS,
                    e.ttl_ms(),
                    e.deleted(),
                )
            })
            .collect()
    }

    #[test]
    fn redlock_quorum() {
        let mut b = LogBuilder::new();
        let k = b.intern("lock:k");
        let mk = |file: u16, at: i64, holder: Sym, ttl: i64| {
            let mut e = Event::new(at, EventKind::Acquired, SourceRef { file, line: 1 });
            e.key = Some(k);
            e.holder = Some(holder);
            e.set_ttl_ms(Some(ttl));
            e
        };
        let a = b.intern("A");
        let bb = b.intern("B");
        let events = vec![
            mk(0, 10, a, 100),
            mk(1, 12, a, 90),
            mk(2, 11, bb, 100),
            mk(1, 30, a, 100),
        ];
        let m = merge_redlock(&events, 3);
        assert_eq!(m.len(), 2);
        assert_eq!(
            (m[0].kind, m[0].at_ns, m[0].ttl_ms()),
            (EventKind::AcquireFailed, 11, None)
        );
        assert_eq!(
            (m[1].kind, m[1].at_ns, m[1].ttl_ms()),
            (EventKind::Acquired, 12, Some(90))
        );
    }

    #[test]
    fn a_one_node_contender_releasing_its_own_key_gives_no_release() {
        use EventKind::*;
        let mut b = LogBuilder::new();
        let events = vec![
            ev(&mut b, 2, 9, Acquired, "C", Some(2000)),
            ev(&mut b, 0, 10, Acquired, "A", Some(2000)),
            ev(&mut b, 1, 11, Acquired, "A", Some(2000)),
            ev(&mut b, 2, 12, AcquireFailed, "A", None),
            ev(&mut b, 0, 13, AcquireFailed, "C", None),
            ev(&mut b, 0, 20, ReleaseFailed, "C", None),
            {
                let e = ev(&mut b, 2, 22, Released, "C", None);
                deleted(e, true)
            },
            {
                let e = ev(&mut b, 0, 800, Released, "A", None);
                deleted(e, true)
            },
        ];
        assert_eq!(
            view(&b, &merge_redlock(&events, 3)),
            vec![
                (Acquired, "A".into(), 11, Some(1999), None),
                (AcquireFailed, "C".into(), 13, None, None),
                (Released, "A".into(), 800, None, Some(true)),
            ]
        );
    }

    #[test]
    fn a_delete_that_leaves_a_quorum_hold_short_is_kept() {
        use EventKind::*;
        let mut b = LogBuilder::new();
        let events = vec![
            ev(&mut b, 0, 10, Acquired, "A", Some(2000)),
            ev(&mut b, 1, 11, Acquired, "A", Some(2000)),
            // D (whose own lock ended) deletes A's key on node 0 with a plain DEL.
            {
                let e = ev(&mut b, 0, 500, Released, "D", None);
                deleted(e, true)
            },
            {
                let e = ev(&mut b, 1, 501, Released, "D", None);
                deleted(e, true)
            },
        ];
        assert_eq!(
            view(&b, &merge_redlock(&events, 3)),
            vec![
                (Acquired, "A".into(), 11, Some(1999), None),
                (Released, "D".into(), 500, None, Some(true)),
            ]
        );
    }

    #[test]
    fn a_release_round_ends_the_hold_at_the_delete_that_breaks_the_quorum() {
        use EventKind::*;
        let mut b = LogBuilder::new();
        let events = vec![
            ev(&mut b, 0, 9, Acquired, "C", Some(2000)),
            ev(&mut b, 1, 10, Acquired, "A", Some(2000)),
            ev(&mut b, 2, 11, Acquired, "A", Some(2000)),
            // A's compare-and-delete reaches node 0 (C's) first; its delete
            // on node 1 leaves it one node: the lock ends there.
            ev(&mut b, 0, 500, ReleaseFailed, "A", None),
            {
                let e = ev(&mut b, 1, 501, Released, "A", None);
                deleted(e, true)
            },
            {
                let e = ev(&mut b, 2, 502, Released, "A", None);
                deleted(e, true)
            },
        ];
        assert_eq!(
            view(&b, &merge_redlock(&events, 3)),
            vec![
                (AcquireFailed, "C".into(), 9, None, None),
                (Acquired, "A".into(), 11, Some(1999), None),
                (Released, "A".into(), 501, None, Some(true)),
            ]
        );
    }

    #[test]
    fn a_token_reused_later_is_a_new_grant_and_renewals_follow_the_quorum_hold() {
        use EventKind::*;
        let mut b = LogBuilder::new();
        let mut events = Vec::new();
        for (n, t) in [(0u16, 10), (1, 11), (2, 12)] {
            events.push(ev(&mut b, n, t, Acquired, "u:1", Some(30000)));
            events.push(ev(&mut b, n, t + 10_000, Renewed, "u:1", Some(30000)));
            let e = ev(&mut b, n, t + 15_000, Released, "u:1", None);
            events.push(deleted(e, true));
            events.push(ev(&mut b, n, t + 20_000, Acquired, "u:1", Some(30000)));
        }
        let out = view(&b, &merge_redlock(&events, 3));
        assert_eq!(
            out,
            vec![
                (Acquired, "u:1".into(), 11, Some(29999), None),
                (Renewed, "u:1".into(), 10_010, Some(30000), None),
                (Renewed, "u:1".into(), 10_011, Some(30000), None),
                (Renewed, "u:1".into(), 10_012, Some(30000), None),
                (Released, "u:1".into(), 15_011, None, Some(true)),
                (Acquired, "u:1".into(), 20_011, Some(29999), None),
            ]
        );
    }

    fn from(mut e: Event, b: &mut LogBuilder, host: &str) -> Event {
        e.host = Some(b.intern(host));
        e
    }

    #[test]
    fn a_client_repeating_every_write_of_another_capture_is_a_replication_link() {
        use EventKind::*;
        let mut b = LogBuilder::new();
        let mut events = Vec::new();
        for (t, kind, holder, host) in [
            (100, Acquired, "A", "app-1:1"),
            (200, Released, "A", "app-1:1"),
            (300, Acquired, "B", "app-2:1"),
            (400, Released, "B", "app-2:1"),
        ] {
            let e = ev(&mut b, 0, t, kind, holder, Some(2000));
            events.push(from(e, &mut b, host));
            let copy = ev(&mut b, 1, t + 1, kind, holder, Some(2000));
            events.push(from(copy, &mut b, "master:6379"));
        }
        // The promoted replica's own client, later.
        let own = ev(&mut b, 1, 3000, Acquired, "B", Some(2000));
        events.push(from(own, &mut b, "app-2:2"));
        let link = b.intern("master:6379");
        assert_eq!(
            replication_links(&events),
            vec![ReplicationLink {
                replica: 1,
                client: link,
                master: 0,
                events: 4
            }]
        );
    }

    #[test]
    fn a_redlock_clients_connections_are_no_replication_links() {
        use EventKind::*;
        let mut b = LogBuilder::new();
        let mut events = Vec::new();
        // One process, one connection per node, trying node 0 then node 1:
        // its node-1 connection repeats only its own requests.
        for (t, kind, holder) in [
            (100, Acquired, "A"),
            (200, Released, "A"),
            (300, Acquired, "B"),
        ] {
            let e = ev(&mut b, 0, t, kind, holder, Some(2000));
            events.push(from(e, &mut b, "app:1"));
            let e = ev(&mut b, 1, t + 1, kind, holder, Some(2000));
            events.push(from(e, &mut b, "app:2"));
        }
        // Another process whose tries on node 1 lose: no replica loses.
        for (n, kind) in [(0u16, Acquired), (1, AcquireFailed)] {
            let e = ev(&mut b, n, 310 + i64::from(n), kind, "C", Some(2000));
            events.push(from(e, &mut b, "other:1"));
        }
        assert!(replication_links(&events).is_empty());
    }

    #[test]
    fn writes_that_move_from_node_to_node_are_a_failover() {
        use EventKind::*;
        let mut b = LogBuilder::new();
        let events = vec![
            ev(&mut b, 0, 100, Acquired, "u:57", Some(30000)),
            ev(&mut b, 0, 300, Released, "u:57", None),
            ev(&mut b, 0, 1000, Acquired, "u:57", Some(30000)),
            ev(&mut b, 1, 1000, Acquired, "u:61", Some(30000)),
            ev(&mut b, 1, 1500, Acquired, "u:57", Some(30000)),
        ];
        assert_eq!(
            classify_nodes(&events, &[0, 1]),
            NodesVerdict::Failover {
                handoffs: vec![(0, 1, 1000 * MS)]
            }
        );
    }

    #[test]
    fn acquires_tried_on_several_nodes_at_once_are_a_redlock() {
        use EventKind::*;
        let mut b = LogBuilder::new();
        let mut events = Vec::new();
        for n in 0..3u16 {
            let t = i64::from(n);
            events.push(ev(&mut b, n, 10 + t, Acquired, "A", Some(2000)));
            events.push(ev(&mut b, n, 500 + t, Released, "A", None));
            let kind = if n == 0 { Acquired } else { AcquireFailed };
            events.push(ev(&mut b, n, 1000 + t, kind, "B", None));
        }
        // A data-only node is not among the nodes asked about.
        events.push(ev(&mut b, 3, 5, Acquired, "Z", Some(2000)));
        assert_eq!(
            classify_nodes(&events, &[0, 1, 2]),
            NodesVerdict::Redlock {
                quorum: 2,
                matched: 4,
                acquires: 4
            }
        );
    }

    #[test]
    fn nodes_written_at_once_without_shared_acquires_are_separate() {
        use EventKind::*;
        let mut b = LogBuilder::new();
        let events = vec![
            ev(&mut b, 0, 10, Acquired, "A", Some(2000)),
            ev(&mut b, 1, 20, Acquired, "B", Some(2000)),
            ev(&mut b, 0, 3000, Acquired, "A", Some(2000)),
            ev(&mut b, 1, 3001, Acquired, "C", Some(2000)),
            // The same token again, beyond its TTL and the span: no match.
            ev(&mut b, 1, 5500, Acquired, "A", Some(2000)),
        ];
        assert_eq!(
            classify_nodes(&events, &[0, 1]),
            NodesVerdict::Separate {
                matched: 0,
                acquires: 5
            }
        );
    }
}

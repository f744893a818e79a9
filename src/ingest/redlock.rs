//! Several `redis-cli monitor` captures taken as the nodes of one Redlock:
//! their per-node lock events are combined into quorum-level ones.

use std::collections::BTreeMap;

use hashbrown::{HashMap, HashSet};

use crate::model::{Dialect, Event, EventKind, LoadedLog, Sym};

/// Combines the per-node events of a Redlock (one MONITOR capture per node,
/// each replayed by [`super::monitor::read_monitor`] into its own source) into quorum-level
/// events: a holder holds the lock while a majority of `nodes` hold it.
///
/// `events` are the replayed events of all nodes (`source.file` tells the
/// node). For each (lock key, holder) the `Acquired` events are grouped; the
/// quorum acquire is the one that completes a majority (`nodes / 2 + 1`
/// distinct nodes), at its time, with the smallest TTL among the nodes so far
/// (the Redlock validity is bounded by the first node to expire). Holders that
/// never reach a majority give one `AcquireFailed` at their last node's
/// acquire. `Released` events are kept once per (key, holder), at the first
/// node's release (the lock stops being held by a majority as soon as a
/// majority can no longer be reached, conservatively the first delete).
/// Other events are returned unchanged, except `AcquireFailed` per node,
/// which are dropped (the quorum decides). The output is sorted by time.
pub fn merge_redlock(events: &[Event], nodes: usize) -> Vec<Event> {
    let quorum = nodes / 2 + 1;
    let mut out = Vec::new();
    let mut acq: BTreeMap<(Option<Sym>, Option<Sym>), Vec<&Event>> = BTreeMap::new();
    let mut released: HashSet<(Option<Sym>, Option<Sym>)> = HashSet::new();
    let mut sorted: Vec<&Event> = events.iter().collect();
    sorted.sort_by_key(|e| (e.at_ns, e.source.file, e.source.line));
    for e in sorted {
        match e.kind {
            EventKind::Acquired => acq.entry((e.key, e.holder)).or_default().push(e),
            EventKind::AcquireFailed => {}
            EventKind::Released => {
                if released.insert((e.key, e.holder)) {
                    out.push(e.clone());
                }
            }
            _ => out.push(e.clone()),
        }
    }
    for list in acq.values() {
        let mut seen: HashSet<u16> = HashSet::new();
        let mut ttl: Option<i64> = None;
        let mut done = false;
        for e in list {
            seen.insert(e.source.file);
            ttl = match (ttl, e.ttl_ms()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if seen.len() >= quorum {
                let mut q = (*e).clone();
                q.set_ttl_ms(ttl);
                out.push(q);
                done = true;
                break;
            }
        }
        if !done && let Some(last) = list.last() {
            let mut f = (*last).clone();
            f.kind = EventKind::AcquireFailed;
            f.set_ttl_ms(None);
            out.push(f);
        }
    }
    out.sort_by_key(|e| (e.at_ns, e.source.file, e.source.line));
    out
}

/// When several MONITOR captures describe the same lock key with the same
/// tokens, they are the nodes of one Redlock: replaces their per-node lock
/// events with quorum-level ones ([`merge_redlock`], majority of the
/// captures) and notes it on each capture. Other events are untouched.
pub fn combine_redlock_nodes(log: &mut LoadedLog) {
    let captures: Vec<u16> = log
        .sources
        .iter()
        .enumerate()
        .filter(|(_, s)| s.dialect == Dialect::RedisMonitor)
        .filter_map(|(i, _)| u16::try_from(i).ok())
        .collect();
    if captures.len() < 2 {
        return;
    }
    let mut nodes_of: HashMap<(Sym, Sym), HashSet<u16>> = HashMap::new();
    for e in &log.events {
        if let (EventKind::Acquired, true, Some(k), Some(h)) = (e.kind, e.inferred, e.key, e.holder)
        {
            nodes_of.entry((k, h)).or_default().insert(e.source.file);
        }
    }
    let redlock_keys: HashSet<Sym> = nodes_of
        .iter()
        .filter(|(_, nodes)| nodes.len() >= 2)
        .map(|((k, _), _)| *k)
        .collect();
    if redlock_keys.is_empty() {
        return;
    }
    let on_redlock = |e: &Event| {
        e.inferred
            && e.key.is_some_and(|k| redlock_keys.contains(&k))
            && matches!(
                e.kind,
                EventKind::Acquired
                    | EventKind::AcquireFailed
                    | EventKind::Renewed
                    | EventKind::Released
                    | EventKind::ReleaseFailed
            )
    };
    let (lock_events, mut rest): (Vec<Event>, Vec<Event>) = std::mem::take(&mut log.events)
        .into_iter()
        .partition(|e| on_redlock(e));
    rest.extend(merge_redlock(&lock_events, captures.len()));
    rest.sort_by_key(|e| (e.at_ns, e.source.file, e.source.line));
    log.events = rest;
    for &c in &captures {
        if let Some(s) = log.sources.get_mut(usize::from(c)) {
            s.notes.push(format!(
                "Redlock: {} captures are nodes of one lock; a hold counts once a majority ({}) granted it",
                captures.len(),
                captures.len() / 2 + 1
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LogBuilder, SourceRef};

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
}

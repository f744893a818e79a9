//! Text logs often name neither lock key nor token on their business lines
//! (`stock deducted sku=... qty=1`), and some name no token on their lock
//! lines. A thread works under one hold at a time, so such a line belongs to
//! the hold its host's (or, without a host, its file's) thread is running
//! at that moment. The tie is inferred and the source's notes say so.

use foldhash::HashMap;

use crate::model::{EventKind, LoadedLog, SourceNote, Sym};

/// Where a thread runs: its host, else its file.
type ThreadKey = (Option<Sym>, u16, Sym);

/// Ties keyless, holderless lines to the hold running on their thread, and
/// names a token-less lock line's holder after its thread. Events must be
/// in time order (as [`crate::model::LogBuilder::finish`] leaves them).
/// Adds one note per source that had such lines.
pub(crate) fn tie_by_thread(log: &mut LoadedLog) {
    // Most logs name a key and a holder on every line that needs them:
    // then there is nothing to tie, and the walk (0.08 s of one core over
    // the 10 M simulator log) is skipped after a look on the pool.
    if log.any_event(needs_tie) {
        walk(log);
    }
}

/// True when [`walk`] may change `e`: a lock line on a thread that names
/// a key but no holder, or a business line on a thread that names neither
/// (but a stock level set, which belongs to no hold).
fn needs_tie(e: &crate::model::Event) -> bool {
    e.thread.is_some()
        && if e.kind.is_lock() {
            e.holder.is_none() && e.key.is_some()
        } else {
            e.kind.is_business()
                && e.kind != EventKind::StockInitialized
                && e.key.is_none()
                && e.holder.is_none()
        }
}

/// [`tie_by_thread`]'s walk through the events in time order.
fn walk(log: &mut LoadedLog) {
    let mut running: HashMap<ThreadKey, (Sym, Sym)> = HashMap::default();
    let n = log.sources.len();
    let (mut tied, mut named) = (vec![0u64; n], vec![0u64; n]);
    for i in 0..log.events.len() {
        let e = &log.events[i];
        let Some(thread) = e.thread else { continue };
        let file = e.source.file;
        let at = (e.host, if e.host.is_some() { 0 } else { file }, thread);
        let kind = e.kind;
        if kind.is_lock() && e.holder.is_none() && e.key.is_some() {
            let holder = match (kind, running.get(&at)) {
                (EventKind::Acquired, _) | (_, None) => {
                    let host = e.host.map(|h| log.strings.get(h).to_string());
                    let name = format!(
                        "{}{}",
                        log.strings.get(thread),
                        host.map(|h| format!("@{h}")).unwrap_or_default()
                    );
                    log.strings.intern(&name)
                }
                (_, Some((_, h))) => *h,
            };
            log.events[i].holder = Some(holder);
            named[usize::from(file)] += 1;
        }
        let e = &log.events[i];
        match (kind, e.key, e.holder) {
            (EventKind::Acquired, Some(k), Some(h)) => {
                running.insert(at, (k, h));
            }
            (EventKind::Released | EventKind::ReleaseFailed | EventKind::LockLost, _, Some(h))
                if running.get(&at).is_some_and(|(_, r)| *r == h) =>
            {
                running.remove(&at);
            }
            (k, None, None) if k.is_business() && k != EventKind::StockInitialized => {
                if let Some(&(key, holder)) = running.get(&at) {
                    let e = &mut log.events[i];
                    e.key = Some(key);
                    e.holder = Some(holder);
                    tied[usize::from(file)] += 1;
                }
            }
            _ => {}
        }
    }
    for (s, (t, m)) in log.sources.iter_mut().zip(tied.into_iter().zip(named)) {
        if t > 0 {
            s.notes.push(SourceNote::BusinessTied { lines: t });
        }
        if m > 0 {
            s.notes.push(SourceNote::ThreadHolders { lines: m });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Event, LogBuilder, SourceInfo, SourceRef};

    fn ev(
        b: &mut LogBuilder,
        at: i64,
        kind: EventKind,
        key: &str,
        holder: &str,
        thread: &str,
    ) -> Event {
        let mut e = Event::new(
            at,
            kind,
            SourceRef {
                file: 0,
                line: at as u32,
            },
        );
        e.key = (!key.is_empty()).then(|| b.intern(key));
        e.holder = (!holder.is_empty()).then(|| b.intern(holder));
        e.thread = Some(b.intern(thread));
        e
    }

    #[test]
    fn the_walk_changes_a_line_exactly_when_it_needs_a_tie() {
        // Each kind with each of key, holder and thread there or not,
        // after a hold acquired on the same thread: the look that skips
        // the walk must say yes for every line the walk changes.
        for kind in EventKind::ALL {
            for mask in 0..8u8 {
                let mut b = LogBuilder::new();
                b.add_source(SourceInfo::new("a.log", crate::model::Dialect::Text));
                let first = ev(&mut b, 1, EventKind::Acquired, "k", "A", "t1");
                let key = if mask & 1 != 0 { "k" } else { "" };
                let holder = if mask & 2 != 0 { "B" } else { "" };
                let mut e = ev(&mut b, 2, kind, key, holder, "t1");
                if mask & 4 == 0 {
                    e.thread = None;
                }
                let needs = needs_tie(&e);
                b.push(first);
                b.push(e.clone());
                let mut log = b.finish();
                walk(&mut log);
                let changed = log.events[1] != e;
                assert_eq!(changed, needs, "{kind:?} mask {mask}");
            }
        }
    }

    #[test]
    fn business_lines_follow_the_hold_on_their_thread() {
        let mut b = LogBuilder::new();
        b.add_source(SourceInfo::new("a.log", crate::model::Dialect::Text));
        let evs = [
            ev(&mut b, 1, EventKind::Acquired, "k", "A", "t1"),
            ev(&mut b, 2, EventKind::Acquired, "k", "B", "t2"),
            ev(&mut b, 3, EventKind::StockDeducted, "", "", "t1"),
            ev(&mut b, 4, EventKind::Released, "k", "A", "t1"),
            ev(&mut b, 5, EventKind::OrderCreated, "", "", "t1"),
            ev(&mut b, 6, EventKind::OrderCreated, "", "", "t2"),
        ];
        for e in evs {
            b.push(e);
        }
        let mut log = b.finish();
        tie_by_thread(&mut log);
        let holder = |i: usize| log.events[i].holder.map(|h| log.strings.get(h).to_string());
        assert_eq!(holder(2).as_deref(), Some("A"));
        // After A's release its thread runs no hold: no tie.
        assert_eq!(holder(4), None);
        assert_eq!(holder(5).as_deref(), Some("B"));
        assert!(
            log.sources[0].notes[0]
                .to_string()
                .starts_with("2 business line(s)")
        );
    }
}

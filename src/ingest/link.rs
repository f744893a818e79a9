//! One incident from several sources: an application log and the MONITOR
//! captures of the same run describe the same holds, but the capture names
//! the lock as Redis stores it (`redlock:product:1001:lock`, a library's
//! prefix) while the application names it as it knows it
//! (`product:1001:lock`). Linking the capture's lock keys to the
//! application's lets the analysis read the application's lines as what the
//! holders believed and the capture as what the server did
//! ([`crate::analysis::EventView::split`]), instead of counting each hold,
//! overlap and sale twice (docs/semantics.md §9).
//!
//! # Rule
//! A capture's lock key that no application line names is the application
//! key it shares the most holder tokens with (a token is random per acquire
//! in every library we read, so one shared token is strong evidence; a tie
//! is broken by the key's spelling, below). Without a shared token it is
//! the one application key it ends with after a library prefix
//! (`redlock:`, `lock:`, any prefix ending in `:`, `_` or `/`); that link
//! rests on the spelling alone and its note says so. A key that could be
//! several is left alone, with a note.

use foldhash::{HashMap, HashSet};

use crate::model::{Dialect, KeyLink, LoadedLog, SourceNote, Sym};

/// How a capture's lock key was linked to an application key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Evidence {
    /// This many holder tokens appear on both keys.
    Tokens(usize),
    /// The capture key is the application key behind a prefix.
    Spelling,
}

/// Renames the lock keys of MONITOR captures to the application key they
/// describe (see the module docs), and notes each link on the capture.
/// Application events are never changed. Does nothing when the load has no
/// application lock line or no capture.
pub(crate) fn link_capture_keys(log: &mut LoadedLog) {
    let capture: Vec<bool> = log
        .sources
        .iter()
        .map(|s| s.dialect == Dialect::RedisMonitor)
        .collect();
    // Without a capture there is nothing to link: return before the maps
    // of every holder's keys (374 MB and a serial pass over 10 M events in
    // the simulator's log, the peak of its heap; massif, docs/performance.md).
    if !capture.contains(&true) {
        return;
    }
    let from_capture = |file: u16| capture.get(usize::from(file)).copied().unwrap_or(false);
    // Application lock keys and the holders seen on each; the keys each
    // holder appears on.
    let mut app_keys: HashSet<Sym> = HashSet::default();
    let mut keys_of_holder: HashMap<Sym, HashSet<Sym>> = HashMap::default();
    for e in &log.events {
        if from_capture(e.source.file) || !e.kind.is_lock() {
            continue;
        }
        if let Some(k) = e.key {
            app_keys.insert(k);
            if let Some(h) = e.holder {
                keys_of_holder.entry(h).or_default().insert(k);
            }
        }
    }
    if app_keys.is_empty() {
        return;
    }
    // Capture lock keys that no application line names, with their holders,
    // and the keys of each capture.
    let mut capture_keys: HashMap<Sym, HashSet<Sym>> = HashMap::default();
    let mut keys_of_source: Vec<HashSet<Sym>> = vec![HashSet::default(); log.sources.len()];
    for e in &log.events {
        if let (true, true, Some(k)) = (from_capture(e.source.file), e.kind.is_lock(), e.key)
            && !app_keys.contains(&k)
        {
            if let Some(set) = keys_of_source.get_mut(usize::from(e.source.file)) {
                set.insert(k);
            }
            let holders = capture_keys.entry(k).or_default();
            if let Some(h) = e.holder {
                holders.insert(h);
            }
        }
    }
    let mut links: HashMap<Sym, (Sym, Evidence)> = HashMap::default();
    let mut ambiguous: Vec<Sym> = Vec::new();
    let mut order: Vec<Sym> = capture_keys.keys().copied().collect();
    order.sort_by(|a, b| log.strings.get(*a).cmp(log.strings.get(*b)));
    for ck in order {
        let holders = &capture_keys[&ck];
        match choose(log, ck, holders, &app_keys, &keys_of_holder) {
            Choice::Link(ak, ev) => {
                links.insert(ck, (ak, ev));
            }
            Choice::Ambiguous => ambiguous.push(ck),
            Choice::None => {}
        }
    }
    if links.is_empty() && ambiguous.is_empty() {
        return;
    }
    for e in &mut log.events {
        if let Some(k) = e.key
            && from_capture(e.source.file)
            && let Some(&(ak, _)) = links.get(&k)
        {
            e.key = Some(ak);
        }
    }
    note_links(log, &keys_of_source, &links, &ambiguous);
}

/// What [`choose`] decided for one capture key.
enum Choice {
    Link(Sym, Evidence),
    Ambiguous,
    None,
}

/// The application key a capture key `ck` (with `holders`) describes.
fn choose(
    log: &LoadedLog,
    ck: Sym,
    holders: &HashSet<Sym>,
    app_keys: &HashSet<Sym>,
    keys_of_holder: &HashMap<Sym, HashSet<Sym>>,
) -> Choice {
    let mut shared: HashMap<Sym, usize> = HashMap::default();
    for h in holders {
        for &ak in keys_of_holder.get(h).into_iter().flatten() {
            *shared.entry(ak).or_default() += 1;
        }
    }
    let spelled = |ak: Sym| behind_prefix(log.strings.get(ck), log.strings.get(ak));
    if let Some(&best) = shared.values().max() {
        let top: Vec<Sym> = shared
            .iter()
            .filter(|&(_, &n)| n == best)
            .map(|(&k, _)| k)
            .collect();
        if let [ak] = top[..] {
            return Choice::Link(ak, Evidence::Tokens(best));
        }
        let by_name: Vec<Sym> = top.into_iter().filter(|&ak| spelled(ak)).collect();
        return match by_name[..] {
            [ak] => Choice::Link(ak, Evidence::Tokens(best)),
            _ => Choice::Ambiguous,
        };
    }
    let by_name: Vec<Sym> = app_keys.iter().copied().filter(|&ak| spelled(ak)).collect();
    match by_name[..] {
        [] => Choice::None,
        [ak] => Choice::Link(ak, Evidence::Spelling),
        _ => {
            // `a:lock:1` behind both `lock:1` and `1`: the longest name wins,
            // it leaves the least to the prefix.
            let longest = by_name
                .iter()
                .map(|&ak| log.strings.get(ak).len())
                .max()
                .unwrap_or(0);
            let top: Vec<Sym> = by_name
                .into_iter()
                .filter(|&ak| log.strings.get(ak).len() == longest)
                .collect();
            match top[..] {
                [ak] => Choice::Link(ak, Evidence::Spelling),
                _ => Choice::Ambiguous,
            }
        }
    }
}

/// True when `capture_key` is `app_key` behind a prefix that ends in a
/// separator (`redlock:` + `product:1001:lock`, `lock:` + `order-42`,
/// `app/` + `x`). An `app_key` of fewer than 3 characters never matches:
/// too short to be told from a coincidence.
pub(crate) fn behind_prefix(capture_key: &str, app_key: &str) -> bool {
    app_key.len() >= 3
        && capture_key.len() > app_key.len()
        && capture_key.ends_with(app_key)
        && capture_key
            .as_bytes()
            .get(capture_key.len() - app_key.len() - 1)
            .is_some_and(|b| matches!(b, b':' | b'_' | b'/' | b'.'))
}

/// One note per capture whose keys were linked or left ambiguous, naming
/// those keys.
fn note_links(
    log: &mut LoadedLog,
    keys_of_source: &[HashSet<Sym>],
    links: &HashMap<Sym, (Sym, Evidence)>,
    ambiguous: &[Sym],
) {
    for (i, keys) in keys_of_source.iter().enumerate() {
        let mut lines: Vec<(String, KeyLink)> = Vec::new();
        for &ck in keys {
            let capture = log.strings.get(ck).to_string();
            let link = if let Some(&(ak, ev)) = links.get(&ck) {
                let app = log.strings.get(ak).to_string();
                match ev {
                    Evidence::Tokens(n) => KeyLink::Tokens {
                        capture,
                        app,
                        tokens: n as u64,
                    },
                    Evidence::Spelling => KeyLink::Spelling { capture, app },
                }
            } else if ambiguous.contains(&ck) {
                KeyLink::Ambiguous { capture }
            } else {
                continue;
            };
            lines.push((link.text(false), link));
        }
        if lines.is_empty() {
            continue;
        }
        lines.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some(s) = log.sources.get_mut(i) {
            s.notes.push(SourceNote::KeysLinked {
                links: lines.into_iter().map(|(_, l)| l).collect(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_ends_in_a_separator() {
        assert!(behind_prefix(
            "redlock:product:1001:lock",
            "product:1001:lock"
        ));
        assert!(behind_prefix("lock:order-42", "order-42"));
        assert!(!behind_prefix("xproduct:1001:lock", "product:1001:lock"));
        assert!(!behind_prefix("product:1001:lock", "product:1001:lock"));
        assert!(!behind_prefix("a:b", "b"));
    }
}

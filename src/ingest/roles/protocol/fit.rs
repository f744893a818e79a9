//! Roles by the lock protocol: which column is the event, the lock key and
//! the holder, and what each event value means, chosen by how well the
//! protocol fits under the choice. Per lock key, holders take turns; each
//! turn (a hold) is an acquire, some work and renewals, then a release or
//! nothing (expiry). Names only break ties.

use std::collections::HashMap;

use super::table::{Profile, Row, Shape, Table};
use crate::ingest::vocabulary::failure as words;

/// What an event value means (the lock and stock steps of
/// `docs/semantics.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Acquired,
    AcquireFailed,
    Renewed,
    Released,
    ReleaseFailed,
    LockLost,
    /// Work inside a hold that is not a lock step: a business step or
    /// activity (the business inference says which).
    Work,
}

/// A choice of columns for the event, the lock key and the holder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hypothesis {
    pub event: u32,
    pub key: u32,
    pub holder: u32,
}

/// How well the protocol fits under one [`Hypothesis`].
#[derive(Clone, Debug)]
pub struct Fit {
    pub hypothesis: Hypothesis,
    /// Event value -> kind, for the values seen on lock rows.
    pub kinds: Vec<(String, Kind)>,
    /// The TTL column, when the acquires carry one.
    pub ttl: Option<u32>,
    /// Holds found (a holder's turn on a key).
    pub holds: usize,
    /// Holds that open with an acquire and put no lock step out of place.
    pub fitting: usize,
    /// Score in 0..=1 (higher is better); see [`score`].
    pub score: f64,
    /// What the score was made of.
    pub parts: Parts,
}

/// Per event value, where it stands in the holds.
#[derive(Clone, Debug, Default)]
struct Stance {
    n: u32,
    /// First row of a hold of two rows or more.
    first: u32,
    /// Last row of a hold of two rows or more.
    last: u32,
    /// The only row of a hold.
    only: u32,
    /// Rows with a warning or error level.
    loud: u32,
    /// Rows that carry the TTL column.
    with_ttl: u32,
}

/// The lock rows of a hypothesis, grouped into per-(key, holder) runs in
/// time order: row indices.
fn runs(rows: &[Row], h: Hypothesis) -> Vec<Vec<usize>> {
    let mut at: HashMap<(&str, &str), usize> = HashMap::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let (Some(k), Some(who), Some(_)) = (r.get(h.key), r.get(h.holder), r.get(h.event)) else {
            continue;
        };
        let slot = *at.entry((k, who)).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[slot].push(i);
    }
    out
}

/// Each value's stance in `holds`.
fn stances<'a>(
    rows: &'a [Row],
    holds: &[Vec<usize>],
    h: Hypothesis,
    ttl: Option<u32>,
) -> HashMap<&'a str, Stance> {
    let mut s: HashMap<&str, Stance> = HashMap::new();
    for hold in holds {
        for (pos, &i) in hold.iter().enumerate() {
            let r = &rows[i];
            let Some(v) = r.get(h.event) else { continue };
            let e = s.entry(v).or_default();
            e.n += 1;
            e.loud += u32::from(r.severity.is_loud());
            e.with_ttl += u32::from(ttl.is_some_and(|c| r.get(c).is_some()));
            match (hold.len(), pos) {
                (1, _) => e.only += 1,
                (_, 0) => e.first += 1,
                (n, p) if p + 1 == n => e.last += 1,
                _ => {}
            }
        }
    }
    s
}

/// The acquire: the value that opens most holds of two rows or more, and
/// mostly opens them; a value whose words say it failed is a lost acquire,
/// not the acquire, while another value opens holds.
fn acquire_value<'a>(s: &HashMap<&'a str, Stance>) -> Option<&'a str> {
    s.iter()
        .filter(|(_, st)| st.first > 0 && st.first * 2 >= st.n)
        .max_by(|a, b| {
            let rank = |v: &str, st: &Stance| (!words::says_failure(v), st.first, st.n);
            rank(a.0, a.1).cmp(&rank(b.0, b.1)).then(b.0.cmp(a.0))
        })
        .map(|(v, _)| *v)
}

/// Splits each run at the acquires after its first row: a holder that
/// takes the key again starts a new hold.
fn split_at_acquires(
    rows: &[Row],
    runs: Vec<Vec<usize>>,
    h: Hypothesis,
    acquire: &str,
) -> Vec<Vec<usize>> {
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        let mut cur: Vec<usize> = Vec::new();
        for i in run {
            if rows[i].get(h.event) == Some(acquire) && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            cur.push(i);
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

/// The TTL column: a column of numbers or durations (not the event, key or
/// holder, not an epoch) that most acquires carry, with positive values.
fn ttl_column(
    table: &Table,
    (profiles, hints): (&[Profile], &[NameHint]),
    holds: &[Vec<usize>],
    h: Hypothesis,
) -> Option<u32> {
    let firsts: Vec<&Row> = holds
        .iter()
        .filter(|x| x.len() > 1)
        .map(|x| &table.rows[x[0]])
        .collect();
    if firsts.is_empty() {
        return None;
    }
    (0..table.names.len() as u32)
        .filter(|&c| {
            let p = &profiles[c as usize];
            c != h.event
                && c != h.key
                && c != h.holder
                && (p.is_numeric() || p.is_duration())
                && !p.is_meta()
                && hints.get(c as usize) != Some(&NameHint::Runtime)
        })
        .map(|c| {
            let on = firsts
                .iter()
                .filter(|r| {
                    r.get(c)
                        .map(Shape::of)
                        .and_then(|s| s.number.or(s.duration_ms))
                        .is_some_and(|n| n > 0.0)
                })
                .count();
            (c, on)
        })
        .filter(|&(_, on)| on * 5 >= firsts.len() * 3)
        // The column most acquires carry; then the one fewest other rows
        // carry (a TTL is on grants, a quantity on sales).
        .max_by_key(|&(c, on)| {
            (
                on,
                std::cmp::Reverse(profiles[c as usize].present),
                std::cmp::Reverse(c),
            )
        })
        .map(|(c, _)| c)
}

/// The kind of every value seen on lock rows.
fn assign(s: &HashMap<&str, Stance>, acquire: &str) -> Vec<(String, Kind)> {
    let mut out: Vec<(String, Kind)> = s
        .iter()
        .map(|(v, st)| {
            let failed = words::says_failure(v) || st.loud * 2 > st.n;
            let kind = if *v == acquire {
                Kind::Acquired
            } else if st.last * 2 >= st.n && st.last > 0 {
                if words::says_lost(v) {
                    Kind::LockLost
                } else if failed {
                    Kind::ReleaseFailed
                } else {
                    Kind::Released
                }
            } else if st.only * 2 > st.n && failed {
                Kind::AcquireFailed
            } else if st.with_ttl * 5 >= st.n * 3 && !failed {
                Kind::Renewed
            } else {
                Kind::Work
            };
            (v.to_string(), kind)
        })
        .collect();
    out.sort();
    out
}

/// Whether a hold fits the protocol under `kinds`: it opens with an
/// acquire (or is a lone failed acquire), renewals and work follow, and a
/// release, if any, closes it.
fn fits(rows: &[Row], hold: &[usize], h: Hypothesis, kinds: &HashMap<&str, Kind>) -> bool {
    let kind = |i: usize| {
        rows[i]
            .get(h.event)
            .and_then(|v| kinds.get(v))
            .copied()
            .unwrap_or(Kind::Work)
    };
    let first = kind(hold[0]);
    if hold.len() == 1 {
        return matches!(first, Kind::Acquired | Kind::AcquireFailed);
    }
    let last = hold.len() - 1;
    first == Kind::Acquired
        && hold[1..].iter().enumerate().all(|(p, &i)| match kind(i) {
            Kind::Acquired | Kind::AcquireFailed => false,
            Kind::Released | Kind::ReleaseFailed | Kind::LockLost => p + 1 == last,
            _ => true,
        })
}

/// What a hypothesis is scored on, each in 0..=1.
#[derive(Clone, Copy, Debug, Default)]
pub struct Parts {
    /// Holds that fit the protocol over all holds.
    pub fitting: f64,
    /// Rows the hypothesis reads as lock rows over the rows carrying any of
    /// its three columns.
    pub explained: f64,
    /// Holds whose key another holder also holds (a lock key is taken in
    /// turns; a column unique per hold is no key).
    pub shared: f64,
    /// Rows with both key and holder over rows with either: the holder is
    /// where the key is (a host or thread field is on every line).
    pub tracking: f64,
    /// Holds that do not interleave with another hold of the key: a lock
    /// excludes, so most holds follow one another (an incident is the
    /// exception, grouping by a wrong column the rule).
    pub exclusive: f64,
    /// Distinct holders over holds: a holder's token is new for each hold
    /// (a thread, a host or a level holds again and again).
    pub turnover: f64,
}

/// The score of a hypothesis: the product of its [`Parts`], the softer ones
/// with a floor; the holder's tracking of the key weighs most (a lock's
/// holder is on its lock's lines and nowhere else).
pub fn score(p: Parts) -> f64 {
    p.fitting
        * p.explained
        * (0.25 + 0.75 * p.shared)
        * p.tracking.powi(4)
        * (0.5 + 0.5 * p.exclusive)
        * (0.5 + 0.5 * p.turnover)
}

/// Distinct holders over holds.
fn turnover(rows: &[Row], holds: &[Vec<usize>], h: Hypothesis) -> f64 {
    let mut who: Vec<&str> = holds
        .iter()
        .filter_map(|x| rows[x[0]].get(h.holder))
        .collect();
    who.sort_unstable();
    who.dedup();
    who.len() as f64 / holds.len().max(1) as f64
}

/// The share of holds that do not interleave with another hold of their
/// key (one's span inside another's).
fn exclusive(rows: &[Row], holds: &[Vec<usize>], h: Hypothesis) -> f64 {
    let mut spans: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for hold in holds {
        if let Some(k) = rows[hold[0]].get(h.key) {
            spans
                .entry(k)
                .or_default()
                .push((hold[0], hold[hold.len() - 1]));
        }
    }
    let alone = spans
        .values()
        .flat_map(|v| {
            v.iter()
                .map(move |a| v.iter().filter(|b| b.0 < a.1 && a.0 < b.1).count() <= 1)
        })
        .filter(|&x| x)
        .count();
    alone as f64 / holds.len().max(1) as f64
}

/// The share of holds whose key another holder also holds.
fn key_shared(rows: &[Row], holds: &[Vec<usize>], h: Hypothesis) -> f64 {
    let mut holders: HashMap<&str, Vec<&str>> = HashMap::new();
    for hold in holds {
        let r = &rows[hold[0]];
        if let (Some(k), Some(who)) = (r.get(h.key), r.get(h.holder)) {
            let e = holders.entry(k).or_default();
            if !e.contains(&who) {
                e.push(who);
            }
        }
    }
    let shared = holds
        .iter()
        .filter(|hold| {
            rows[hold[0]]
                .get(h.key)
                .and_then(|k| holders.get(k))
                .is_some_and(|w| w.len() > 1)
        })
        .count();
    shared as f64 / holds.len().max(1) as f64
}

/// How well the holder column tracks the key column: rows with both over
/// rows with either.
fn tracking(rows: &[Row], h: Hypothesis) -> f64 {
    let (mut both, mut either) = (0u32, 0u32);
    for r in rows {
        let (k, w) = (r.get(h.key).is_some(), r.get(h.holder).is_some());
        both += u32::from(k && w);
        either += u32::from(k || w);
    }
    f64::from(both) / f64::from(either.max(1))
}

/// True when the holder column only renames the event column (each value
/// of one goes with one value of the other): grouping by it makes holds
/// of one step each, which is no protocol.
fn renames_event(rows: &[Row], h: Hypothesis) -> bool {
    let mut pairs: HashMap<&str, &str> = HashMap::new();
    let mut back: HashMap<&str, &str> = HashMap::new();
    for r in rows {
        if let (Some(e), Some(w)) = (r.get(h.event), r.get(h.holder))
            && (*pairs.entry(w).or_insert(e) != e || *back.entry(e).or_insert(w) != w)
        {
            return false;
        }
    }
    true
}

/// Assesses one hypothesis; `None` when it finds no hold.
pub fn assess(
    table: &Table,
    (profiles, hints): (&[Profile], &[NameHint]),
    h: Hypothesis,
) -> Option<Fit> {
    let rows = &table.rows;
    if renames_event(rows, h) {
        return None;
    }
    let first_runs = runs(rows, h);
    if first_runs.is_empty() {
        return None;
    }
    let s = stances(rows, &first_runs, h, None);
    let acquire = acquire_value(&s)?.to_string();
    let holds = split_at_acquires(rows, first_runs, h, &acquire);
    let ttl = ttl_column(table, (profiles, hints), &holds, h);
    let s = stances(rows, &holds, h, ttl);
    let kinds = assign(&s, &acquire);
    let by_value: HashMap<&str, Kind> = kinds.iter().map(|(v, k)| (v.as_str(), *k)).collect();
    let fitting = holds.iter().filter(|x| fits(rows, x, h, &by_value)).count();
    let lock_rows: usize = holds.iter().map(Vec::len).sum();
    let any = rows
        .iter()
        .filter(|r| r.get(h.event).is_some() || r.get(h.key).is_some() || r.get(h.holder).is_some())
        .count();
    let parts = Parts {
        fitting: fitting as f64 / holds.len() as f64,
        explained: lock_rows as f64 / any.max(1) as f64,
        shared: key_shared(rows, &holds, h),
        tracking: tracking(rows, h),
        exclusive: exclusive(rows, &holds, h),
        turnover: turnover(rows, &holds, h),
    };
    let score = score(parts);
    Some(Fit {
        hypothesis: h,
        kinds,
        ttl,
        holds: holds.len(),
        fitting,
        score,
        parts,
    })
}

/// Columns that may be an event: text on most rows, a few distinct values
/// (2 to 64), not numbers, not tokens.
pub fn event_candidates(profiles: &[Profile], rows: usize) -> Vec<u32> {
    candidates(profiles, |p| {
        p.present as usize * 2 >= rows
            && (2..=64).contains(&p.distinct)
            // A step is taken again and again: values recur (a message
            // written with its data is new on every line).
            && p.repeated >= 1
            && p.distinct * 5 <= p.present * 4
            && !p.is_meta()
            && !p.is_numeric()
            && p.token * 2 < p.present
            && p.keyish * 2 < p.present
    })
}

/// Columns that may be a lock key: text, repeated values (a key is taken
/// again and again), no phrases.
pub fn key_candidates(profiles: &[Profile]) -> Vec<u32> {
    candidates(profiles, |p| {
        p.present >= 2
            && p.repeated >= 1
            && p.phrase == 0
            && !p.is_numeric()
            && !p.is_meta()
            && p.distinct * 2 <= p.present
    })
}

/// Columns that may be a holder: repeated values (a hold's acquire,
/// renewals and release carry one), at least two of them, no phrases.
pub fn holder_candidates(profiles: &[Profile]) -> Vec<u32> {
    candidates(profiles, |p| {
        p.present >= 2 && p.distinct >= 2 && p.repeated >= 1 && p.phrase == 0 && !p.is_meta()
    })
}

/// The most candidates a role keeps for [`rank`]: the hypotheses are their
/// product, so a record of thousands of fields costs no more than one of
/// forty.
const MAX_CANDIDATES: usize = 40;

/// The object a flattened field name sits in (`LogMessage` for
/// `LogMessage.owner`; empty at the top).
fn parent(name: &str) -> &str {
    name.rsplit_once('.').map_or("", |(p, _)| p)
}

fn candidates(profiles: &[Profile], keep: impl Fn(&Profile) -> bool) -> Vec<u32> {
    (0..profiles.len() as u32)
        .filter(|&c| keep(&profiles[c as usize]))
        .collect()
}

/// What a column's name says, when a list knows it: the only use of names
/// here, as priors that tip close hypotheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameHint {
    /// The name is not on any list.
    Unknown,
    /// A lock key's name (`lock_key`, `resource`).
    Key,
    /// A holder's name (`owner`, `token`).
    Holder,
    /// An event's or message's name (`event`, `msg`).
    Event,
    /// The runtime's or shipper's own field: host, thread, process, logger,
    /// level, service. It is on every line, whatever the lock does.
    Runtime,
}

/// The priors of a column for key, holder and event: mild factors (about
/// 0.5 to 1.2) from its values' shapes and its name.
fn priors(p: &Profile, hint: NameHint) -> [f64; 3] {
    let frac = |n: u32| f64::from(n) / f64::from(p.present.max(1));
    let name = |want: NameHint| match hint {
        h if h == want => 1.2,
        NameHint::Runtime => 0.6,
        _ => 1.0,
    };
    [
        (0.7 + 0.3 * frac(p.keyish)) * name(NameHint::Key),
        (0.85 + 0.15 * frac(p.token)) * (1.0 - 0.5 * frac(p.path)) * name(NameHint::Holder),
        (0.85 + 0.15 * frac(p.phrase)) * name(NameHint::Event),
    ]
}

/// Every hypothesis over the candidates, assessed, best first (ties in
/// column order, so the answer never depends on a hash order). `hints`
/// gives a [`NameHint`] per column (missing ones are unknown).
pub fn rank(table: &Table, hints: &[NameHint]) -> Vec<Fit> {
    let profiles = table.profiles();
    let hint = |c: u32| hints.get(c as usize).copied().unwrap_or(NameHint::Unknown);
    let prior = |c: u32, role: usize| priors(&profiles[c as usize], hint(c))[role];
    let mut events = event_candidates(&profiles, table.rows.len());
    // A field named as the event or the message names steps, never who
    // holds what.
    let named_event = |c: &u32| hint(*c) == NameHint::Event;
    let mut keys = key_candidates(&profiles);
    keys.retain(|c| !named_event(c));
    let mut holders = holder_candidates(&profiles);
    holders.retain(|c| !named_event(c));
    // Bounded work on a record of thousands of fields: each role's
    // candidates cut to the [`MAX_CANDIDATES`] its prior ranks highest.
    for (list, role) in [(&mut events, 2), (&mut keys, 0), (&mut holders, 1)] {
        if list.len() > MAX_CANDIDATES {
            list.sort_by(|a, b| prior(*b, role).total_cmp(&prior(*a, role)).then(a.cmp(b)));
            list.truncate(MAX_CANDIDATES);
            list.sort_unstable();
        }
    }
    let mut fits = Vec::new();
    for &event in &events {
        for &key in &keys {
            for &holder in &holders {
                if event == key || key == holder || event == holder {
                    continue;
                }
                if let Some(mut f) =
                    assess(table, (&profiles, hints), Hypothesis { event, key, holder })
                {
                    f.score *= prior(key, 0) * prior(holder, 1) * prior(event, 2);
                    // A holder in another object than its key (an
                    // envelope's node beside the application's record)
                    // is the shipper's, on every line whatever the lock does.
                    if parent(&table.names[holder as usize]) != parent(&table.names[key as usize]) {
                        f.score *= 0.9;
                    }
                    fits.push(f);
                }
            }
        }
    }
    fits.sort_by(|a, b| {
        b.score.total_cmp(&a.score).then_with(|| {
            (a.hypothesis.event, a.hypothesis.key, a.hypothesis.holder).cmp(&(
                b.hypothesis.event,
                b.hypothesis.key,
                b.hypothesis.holder,
            ))
        })
    });
    fits
}

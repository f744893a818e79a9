//! A step's outcome field (`"ok": false` on an acquire whose SET NX lost)
//! found by the lock protocol, not by its name: SET NX fails exactly when
//! another holder's lease is live, so a field whose false values fall on
//! acquires made while another holder's lease is live, and whose true
//! values mostly do not, says whether each step succeeded. Read without it,
//! every failed attempt would be an acquire and a false overlap.

use std::collections::HashMap;

use super::table::Table;
use crate::ingest::vocabulary::failure::outcome_of;
use crate::model::EventKind;

/// The lock columns of a table the outcome is weighed against: key, holder,
/// event, and the TTL with its unit (ms in one of its numbers), if any.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LockColumns {
    pub key: u32,
    pub holder: u32,
    pub event: u32,
    pub ttl: Option<(u32, f64)>,
}

/// How a candidate outcome column falls on the acquires of a sample: its
/// false values (`failed`), those on acquires made while another holder's
/// lease was live (`failed_on_live`), and the same for its true values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OutcomeFit {
    pub column: u32,
    pub failed: u32,
    pub failed_on_live: u32,
    pub succeeded: u32,
    pub succeeded_on_live: u32,
}

impl OutcomeFit {
    /// True when the column reads as an outcome: a false value on an acquire
    /// while another lease was live, at least half of its false values so,
    /// and at most a quarter of its true values (an overlap the log
    /// records is a true value on a live lease, but a rare one).
    fn fits(&self) -> bool {
        self.failed_on_live >= 1
            && self.failed_on_live * 2 >= self.failed
            && self.succeeded_on_live * 4 <= self.succeeded
    }
}

/// Distinct values a column may have to be an outcome: a few words.
const MAX_DISTINCT: u32 = 6;

/// The column of `table` that reads as the acquires' outcome
/// ([`OutcomeFit::fits`]; the one with the most false values on live
/// leases when several do), other than the lock columns and `skip`.
/// `kind_of` gives a value of the event column its kind.
pub(crate) fn find_outcome(
    table: &Table,
    lock: LockColumns,
    skip: &[u32],
    kind_of: &mut dyn FnMut(&str) -> Option<EventKind>,
) -> Option<OutcomeFit> {
    let kinds: Vec<Option<EventKind>> = table
        .rows
        .iter()
        .map(|r| r.get(lock.event).and_then(&mut *kind_of))
        .collect();
    if !kinds.contains(&Some(EventKind::Acquired)) {
        return None;
    }
    let profiles = table.profiles();
    let taken = [lock.key, lock.holder, lock.event];
    (0..table.names.len() as u32)
        .filter(|c| !taken.contains(c) && !skip.contains(c) && lock.ttl.is_none_or(|t| t.0 != *c))
        .filter(|&c| {
            let p = profiles[c as usize];
            p.present > 0 && p.distinct <= MAX_DISTINCT && p.phrase == 0
        })
        .map(|c| replay(table, &kinds, lock, c))
        .filter(OutcomeFit::fits)
        .max_by_key(|f| (f.failed_on_live, std::cmp::Reverse(f.column)))
}

/// The acquires of `table` replayed per key with column `c` as their
/// outcome: an acquire it says failed takes nothing; any other starts a
/// lease (until its TTL, or until its holder's release).
fn replay(table: &Table, kinds: &[Option<EventKind>], lock: LockColumns, c: u32) -> OutcomeFit {
    let mut fit = OutcomeFit {
        column: c,
        ..OutcomeFit::default()
    };
    // Key -> (holder, lease end ns; `None` without a TTL).
    let mut live: HashMap<&str, (&str, Option<i64>)> = HashMap::new();
    for (row, kind) in table.rows.iter().zip(kinds) {
        let (Some(kind), Some(key), Some(holder)) = (kind, row.get(lock.key), row.get(lock.holder))
        else {
            continue;
        };
        let t = row.t_ns;
        let ok = row.get(c).and_then(outcome_of);
        let ttl_end = lock.ttl.and_then(|(col, unit_ms)| {
            let ms = row.get(col)?.parse::<f64>().ok()? * unit_ms;
            (ms.is_finite() && ms > 0.0).then(|| t.saturating_add((ms * 1e6) as i64))
        });
        let held_by_other = live
            .get(key)
            .is_some_and(|&(h, end)| h != holder && end.is_none_or(|e| t < e));
        match kind {
            EventKind::Acquired if ok == Some(false) => {
                fit.failed += 1;
                fit.failed_on_live += u32::from(held_by_other);
            }
            EventKind::Acquired => {
                if ok == Some(true) {
                    fit.succeeded += 1;
                    fit.succeeded_on_live += u32::from(held_by_other);
                }
                live.insert(key, (holder, ttl_end));
            }
            EventKind::Renewed if ok != Some(false) => {
                if let Some(l) = live.get_mut(key).filter(|l| l.0 == holder) {
                    l.1 = ttl_end.or(l.1);
                }
            }
            EventKind::Released | EventKind::ReleaseFailed | EventKind::LockLost
                if live.get(key).is_some_and(|l| l.0 == holder) =>
            {
                live.remove(key);
            }
            _ => {}
        }
    }
    fit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::roles::protocol::table::Severity;

    const MS: i64 = 1_000_000;

    fn kind(v: &str) -> Option<EventKind> {
        match v {
            "grab" => Some(EventKind::Acquired),
            "letgo" => Some(EventKind::Released),
            _ => None,
        }
    }

    /// A's lease of 2 s from 100 ms; B's two attempts while it is live, then
    /// B's grab after it expired; `flag` is another boolean column that says
    /// nothing of the outcome.
    fn flash(ok: [&str; 5]) -> (Table, LockColumns) {
        let mut t = Table::default();
        let rows = [
            (100, "grab", "a", ok[0], "true"),
            (1000, "grab", "b", ok[1], "false"),
            (2000, "grab", "b", ok[2], "true"),
            (2600, "grab", "b", ok[3], "false"),
            (3100, "letgo", "a", "", "true"),
            (3600, "letgo", "b", "", "false"),
            (4000, "grab", "a", ok[4], "true"),
        ];
        for (at, what, who, ok, flag) in rows {
            t.push(
                at * MS,
                Severity::Unknown,
                &[
                    ("what", what),
                    ("res", "lk:sku-42"),
                    ("who", who),
                    ("lease", "2000"),
                    ("ok", ok),
                    ("flag", flag),
                ],
            );
        }
        let lock = LockColumns {
            key: t.column("res"),
            holder: t.column("who"),
            event: t.column("what"),
            ttl: Some((t.column("lease"), 1.0)),
        };
        (t, lock)
    }

    #[test]
    fn false_values_on_live_leases_make_an_outcome_field() {
        let (t, lock) = flash(["true", "false", "false", "true", "true"]);
        let fit = find_outcome(&t, lock, &[], &mut kind).expect("found");
        assert_eq!(t.names[fit.column as usize], "ok");
        assert_eq!((fit.failed, fit.failed_on_live), (2, 2));
        assert_eq!((fit.succeeded, fit.succeeded_on_live), (3, 0));
    }

    #[test]
    fn false_values_on_free_keys_make_none() {
        // The false values fall on B's grab after A's lease expired and on
        // A's last grab: no failed SET NX, so no outcome field. `flag`
        // (false on one grab on a live lease, true on another) is none
        // either.
        let (t, lock) = flash(["true", "true", "true", "false", "false"]);
        assert_eq!(find_outcome(&t, lock, &[], &mut kind), None);
    }
}

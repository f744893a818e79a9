//! Which incidents a write-up leads with: every incident ranked by loss,
//! and the totals per lock key and per cause, so that report.md, its
//! pictures and the window's list put the costly incidents first whatever
//! the log's size.

use std::collections::HashMap;

use crate::analysis::{Cause, Incident, IncidentId};
use crate::model::Sym;
use crate::money::Loss;

/// Incidents written out in report.md and drawn in the report folder
/// unless `report --top N` says otherwise.
pub const TOP_INCIDENTS: usize = 20;

/// Rows of report.md's "by key" table; the other keys are counted.
pub const TOP_KEYS: usize = 10;

/// A loss to sort by, largest first: the amount when known, the oversold
/// units otherwise (a loss is units × one unit loss, so both orders agree).
pub fn loss_rank(loss: Loss, oversold_units: i64) -> f64 {
    loss.amount().unwrap_or(oversold_units as f64)
}

/// Every incident's id, the largest loss first, then the most oversold
/// units, the longest overlap and the earliest id.
pub fn by_loss(incidents: &[Incident]) -> Vec<IncidentId> {
    let mut ids: Vec<IncidentId> = incidents.iter().map(|i| i.id).collect();
    ids.sort_by(|&a, &b| {
        let (a, b) = (&incidents[a.index()], &incidents[b.index()]);
        loss_rank(b.loss, b.oversold_units)
            .total_cmp(&loss_rank(a.loss, a.oversold_units))
            .then(b.oversold_units.cmp(&a.oversold_units))
            .then((b.end_ns - b.start_ns).cmp(&(a.end_ns - a.start_ns)))
            .then(a.id.cmp(&b.id))
    });
    ids
}

/// The first `top` of [`by_loss`].
pub fn top_by_loss(incidents: &[Incident], top: usize) -> Vec<IncidentId> {
    let mut ids = by_loss(incidents);
    ids.truncate(top);
    ids
}

/// The incidents of one group (a lock key, a cause) added up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Total<T> {
    /// What the group is.
    pub of: T,
    /// Its incidents.
    pub incidents: usize,
    /// Their oversold units.
    pub oversold_units: i64,
    /// Their loss (unknown when any is).
    pub loss: Loss,
}

/// Incidents added up by `group`, the largest loss first, then the most
/// incidents, then the group first seen.
fn totals<T: Copy + Eq + std::hash::Hash>(
    incidents: &[Incident],
    group: impl Fn(&Incident) -> T,
) -> Vec<Total<T>> {
    let mut at: HashMap<T, usize> = HashMap::new();
    let mut out: Vec<Total<T>> = Vec::new();
    for inc in incidents {
        let g = group(inc);
        let i = *at.entry(g).or_insert_with(|| {
            out.push(Total {
                of: g,
                incidents: 0,
                oversold_units: 0,
                loss: Loss::default(),
            });
            out.len() - 1
        });
        let t = &mut out[i];
        t.incidents += 1;
        t.oversold_units += inc.oversold_units;
        t.loss = t.loss.plus(inc.loss);
    }
    let mut order: Vec<usize> = (0..out.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&out[a], &out[b]);
        loss_rank(y.loss, y.oversold_units)
            .total_cmp(&loss_rank(x.loss, x.oversold_units))
            .then(y.incidents.cmp(&x.incidents))
            .then(a.cmp(&b))
    });
    order.into_iter().map(|i| out[i]).collect()
}

/// The incidents added up per lock key, the largest loss first.
pub fn by_key(incidents: &[Incident]) -> Vec<Total<Sym>> {
    totals(incidents, |i| i.key)
}

/// The incidents added up per cause, the largest loss first.
pub fn by_cause(incidents: &[Incident]) -> Vec<Total<Cause>> {
    totals(incidents, |i| i.cause)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Interner;

    fn incident(i: usize, key: Sym, cause: Cause, units: i64) -> Incident {
        Incident {
            id: IncidentId::new(i),
            key,
            start_ns: i as i64,
            end_ns: i as i64 + 1,
            leases: Vec::new(),
            overlaps: Vec::new(),
            overlaps_unlisted: 0,
            cause,
            sales: Vec::new(),
            oversold_units: units,
            loss: crate::money::loss(units, Some(100.0)),
        }
    }

    #[test]
    fn the_costliest_incidents_come_first_ties_by_id() {
        let mut s = Interner::default();
        let (a, b) = (s.intern("a"), s.intern("b"));
        let incs = vec![
            incident(0, a, Cause::LeaseExpired, 0),
            incident(1, b, Cause::ForeignRelease, 3),
            incident(2, a, Cause::LeaseExpired, 1),
            incident(3, b, Cause::LeaseExpired, 3),
        ];
        let ids: Vec<usize> = by_loss(&incs).iter().map(|i| i.index()).collect();
        assert_eq!(ids, vec![1, 3, 2, 0]);
        assert_eq!(top_by_loss(&incs, 2).len(), 2);
        let keys = by_key(&incs);
        assert_eq!(
            (keys[0].of, keys[0].incidents, keys[0].oversold_units),
            (b, 2, 6)
        );
        assert_eq!(keys[0].loss, Loss::Known(600.0));
        let causes = by_cause(&incs);
        assert_eq!(causes[0].of, Cause::LeaseExpired);
        assert_eq!((causes[0].incidents, causes[0].oversold_units), (3, 4));
    }

    #[test]
    fn without_a_unit_loss_the_oversold_units_rank() {
        let mut s = Interner::default();
        let k = s.intern("k");
        let mut incs = vec![
            incident(0, k, Cause::LeaseExpired, 1),
            incident(1, k, Cause::LeaseExpired, 5),
        ];
        for i in &mut incs {
            i.loss = crate::money::loss(i.oversold_units, None);
        }
        let ids: Vec<usize> = by_loss(&incs).iter().map(|i| i.index()).collect();
        assert_eq!(ids, vec![1, 0]);
    }
}

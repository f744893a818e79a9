//! Stock accounting per product, oversold units, and their attribution to
//! incidents (docs/semantics.md §7).

use std::cell::OnceCell;

use foldhash::HashMap;

use super::leases::time_of;
use super::{
    EventId, EventView, Incident, IncidentId, Lease, LeaseId, ProductOversell, Sale, SaleId,
};
use crate::model::{Detail, Event, EventKind, LoadedLog, Sym};

/// The lock keys of a log, asked key by key: a key on which some hold was
/// taken, or (looked up only for a key with no hold) on which some lock
/// event in view stands. A business line's key that is no lock key names
/// its product (`"res":"sku-42"` beside the lock `lk:sku-42`).
struct LockKeys<'a> {
    log: &'a LoadedLog,
    leases: &'a [Lease],
    view: &'a EventView,
    known: HashMap<Sym, bool>,
    on_lock_events: OnceCell<foldhash::HashSet<Sym>>,
}

impl<'a> LockKeys<'a> {
    fn new(log: &'a LoadedLog, leases: &'a [Lease], view: &'a EventView) -> LockKeys<'a> {
        LockKeys {
            log,
            leases,
            view,
            known: HashMap::default(),
            on_lock_events: OnceCell::new(),
        }
    }

    /// True when `key` is a lock key. Holds are sorted by key name, so a
    /// key's holds are found by a binary search on its name.
    fn is_lock_key(&mut self, key: Sym) -> bool {
        if let Some(&known) = self.known.get(&key) {
            return known;
        }
        let strings = &self.log.strings;
        let name = strings.get(key);
        let held = self
            .leases
            .binary_search_by(|l| strings.get(l.key).cmp(name))
            .is_ok();
        let lock = held
            || self
                .on_lock_events
                .get_or_init(|| {
                    let events = self.log.events.iter().enumerate();
                    events
                        .filter(|(i, e)| e.kind.is_lock() && self.view.includes(*i))
                        .filter_map(|(_, e)| e.key)
                        .collect()
                })
                .contains(&key);
        self.known.insert(key, lock);
        lock
    }
}

/// The lock key an event was made under, and its own key when that is no
/// lock key: its own `key` when a lock key, else the key of the hold whose
/// believed window contains it for the same holder (a line without a key,
/// or whose key names no lock, docs/semantics.md §7).
fn key_of(
    log: &LoadedLog,
    times_ns: &[i64],
    (by_holder, lock_keys): (&OnceCell<Vec<(Sym, LeaseId)>>, &mut LockKeys<'_>),
    leases: &[Lease],
    i: usize,
) -> (Option<Sym>, Option<Sym>) {
    let e = &log.events[i];
    let not_lock = match e.key {
        Some(k) if lock_keys.is_lock_key(k) => return (Some(k), None),
        other => other,
    };
    let Some(holder) = e.holder else {
        return (None, not_lock);
    };
    let t = time_of(times_ns, i, e);
    // (holder, lease id) sorted: one holder's leases are a run in id order.
    // Built only when a business line lacks its lock key (most logs name it).
    let by_holder = by_holder.get_or_init(|| {
        let mut v: Vec<(Sym, LeaseId)> = leases.iter().map(|l| (l.holder, l.id)).collect();
        v.sort_unstable();
        v
    });
    let from = by_holder.partition_point(|&(h, _)| h < holder);
    let key = by_holder[from..]
        .iter()
        .take_while(|&&(h, _)| h == holder)
        .map(|&(_, l)| &leases[l])
        .find(|l| l.acquired_ns <= t && t <= l.window_end_ns)
        .map(|l| l.key);
    (key, not_lock)
}

/// Computes per-product stock accounting and the list of sales.
///
/// Rules (`tests/fixtures/cases/README.md`, "Oversold, per product"):
/// - product = the line's product field, else its key when that is no lock
///   key (no hold or lock event on it), else its lock key;
/// - lock key = the line's key when a lock key, else its holder's hold
///   whose believed window contains the line;
/// - sold = sum of order quantities, or of deducted quantities when there
///   are no orders (quantity 1 when absent); a `write_rejected` is no sale;
/// - initial stock = the `stock_initialized` event, else the first stock read
///   before any deduction or order;
/// - oversold = max(0, sold - initial); with no initial stock, minus the most
///   negative `stock_after`;
/// - lost updates = max(0, final stock - (initial - deducted)).
///
/// Which sales are oversold: the latest ones, walking back in time until the
/// oversold units are used up.
///
/// Returns products sorted by name and sales sorted by time.
pub fn compute_oversell(
    log: &LoadedLog,
    times_ns: &[i64],
    leases: &[Lease],
    view: &EventView,
) -> (Vec<ProductOversell>, Vec<Sale>) {
    let by_product = tally_products(log, times_ns, leases, view);
    let mut products = Vec::new();
    // Grown as the tallies are used up and freed: sized up front, the 2 M
    // sales of the 10 M overlap-heavy log sat beside every tally and raised
    // the heap's peak by 35 MB (massif, docs/performance.md).
    let mut sales = Vec::new();
    for (product, tally) in by_product {
        if let Some(p) = settle_product(log, times_ns, product, tally, &mut sales) {
            products.push(p);
        }
    }
    products.sort_by(|a, b| {
        let name = |p: Option<Sym>| p.map(|s| log.strings.get(s)).unwrap_or("");
        name(a.product)
            .cmp(name(b.product))
            .then(a.product.cmp(&b.product))
    });
    // A sale is one event, so (time, event) is unique and the unstable sort
    // gives the stable one's order without its scratch copy of half the
    // sales.
    sales.sort_unstable_by_key(|s| (s.at_ns, s.event));
    (products, sales)
}

/// One order or deduction, with what the sale needs from its event (so
/// that building the sales does not go back to the event array, a cache
/// miss per sale at 10 M events). Not a `Sale` itself: at 32 bytes
/// against 64 it keeps the 1 M-event peak 9 MB lower (measured at 40).
struct Seen {
    event: EventId,
    at_ns: i64,
    key: Option<Sym>,
    holder: Option<Sym>,
    order_id: Option<Sym>,
    quantity: i64,
}

impl Seen {
    fn of(e: &Event, d: &Detail, event: EventId, at_ns: i64, key: Option<Sym>) -> Seen {
        Seen {
            event,
            at_ns,
            key,
            holder: e.holder,
            order_id: d.order_id,
            quantity: d.quantity.unwrap_or(1),
        }
    }
}

/// What the business events of one product add up to.
#[derive(Default)]
struct Tally {
    initialized: Option<i64>,
    first_read: Option<i64>,
    sold_any: bool,
    /// Each order.
    orders: Vec<Seen>,
    /// (event, lock key) of each deduction: they are the sales only when
    /// a product has no orders, so they are not copied out up front.
    deductions: Vec<(EventId, Option<Sym>)>,
    deducted: i64,
    min_after: Option<i64>,
    final_stock: Option<(i64, i64)>,
}

/// Walks the business events in time order and tallies them per product.
fn tally_products(
    log: &LoadedLog,
    times_ns: &[i64],
    leases: &[Lease],
    view: &EventView,
) -> hashbrown::HashMap<Option<Sym>, Tally> {
    let by_holder = OnceCell::new();
    let mut lock_keys = LockKeys::new(log, leases, view);
    let order = super::leases::time_order(log, times_ns, |i, e| {
        e.kind.is_business() && view.includes(i)
    });
    // Hashed, not ordered: products are sorted by name below and sales by
    // (time, event), so the visiting order does not show.
    let mut by_product: hashbrown::HashMap<Option<Sym>, Tally> = hashbrown::HashMap::default();
    for i in order.iter().map(|i| i.index()) {
        let e = &log.events[i];
        let (key, own) = key_of(log, times_ns, (&by_holder, &mut lock_keys), leases, i);
        let d = e.detail();
        let tally = by_product.entry(d.product.or(own).or(key)).or_default();
        let t = time_of(times_ns, i, e);
        match e.kind {
            EventKind::StockInitialized => {
                if tally.initialized.is_none() {
                    tally.initialized = d.stock;
                }
                if let Some(s) = d.stock {
                    tally.final_stock = Some((t, s));
                }
            }
            EventKind::StockRead => {
                if !tally.sold_any && tally.first_read.is_none() {
                    tally.first_read = d.stock;
                }
                if let Some(s) = d.stock {
                    tally.final_stock = Some((t, s));
                }
            }
            EventKind::StockDeducted => {
                tally.sold_any = true;
                tally.deductions.push((EventId::new(i), key));
                tally.deducted = tally.deducted.saturating_add(d.quantity.unwrap_or(1));
                match d.stock_after {
                    Some(after) => {
                        tally.min_after =
                            Some(tally.min_after.map_or(after, |m: i64| m.min(after)));
                        tally.final_stock = Some((t, after));
                    }
                    // A deduction that logs no level after it leaves the
                    // level unknown until the next one logged.
                    None => tally.final_stock = None,
                }
            }
            EventKind::OrderCreated => {
                tally.sold_any = true;
                tally.orders.push(Seen::of(e, &d, EventId::new(i), t, key));
            }
            _ => {}
        }
    }
    by_product
}

/// A product's stock accounting from its tally, its sales appended to
/// `sales` with the latest ones marked oversold; `None` for a product with
/// no sale and no known stock.
fn settle_product(
    log: &LoadedLog,
    times_ns: &[i64],
    product: Option<Sym>,
    tally: Tally,
    sales: &mut Vec<Sale>,
) -> Option<ProductOversell> {
    let from_deductions: Vec<Seen>;
    let sale_events = if tally.orders.is_empty() {
        from_deductions = tally
            .deductions
            .iter()
            .map(|&(i, key)| {
                let e = &log.events[i];
                Seen::of(e, &e.detail(), i, time_of(times_ns, i.index(), e), key)
            })
            .collect();
        &from_deductions
    } else {
        &tally.orders
    };
    if sale_events.is_empty() && tally.initialized.is_none() && tally.first_read.is_none() {
        return None;
    }
    let initial = tally.initialized.or(tally.first_read);
    let sold: i64 = sale_events
        .iter()
        .map(|s| s.quantity)
        .fold(0i64, i64::saturating_add);
    let oversold = match initial {
        Some(init) => sold.saturating_sub(init).max(0),
        None => tally.min_after.map_or(0, |m| m.saturating_neg().max(0)),
    };
    let final_stock = tally.final_stock.map(|(_, s)| s);
    let lost_updates = match (initial, final_stock) {
        (Some(init), Some(fin)) if !tally.deductions.is_empty() => fin
            .saturating_sub(init.saturating_sub(tally.deducted))
            .max(0),
        _ => 0,
    };
    let first_sale = sales.len();
    for s in sale_events {
        sales.push(Sale {
            event: s.event,
            at_ns: s.at_ns,
            product,
            key: s.key,
            holder: s.holder,
            order_id: s.order_id,
            quantity: s.quantity,
            oversold_units: 0,
            incident: None,
        });
    }
    let mut left = oversold;
    for sale in sales[first_sale..].iter_mut().rev() {
        if left <= 0 {
            break;
        }
        let units = sale.quantity.max(0).min(left);
        sale.oversold_units = units;
        left -= units;
    }
    Some(ProductOversell {
        product,
        initial_stock: initial,
        sold,
        sales: sale_events.len(),
        oversold,
        final_stock,
        lost_updates,
    })
}

/// Ties sales to incidents and totals each incident's oversold units and loss.
///
/// A sale belongs to an incident on its lock key when it falls inside the
/// incident window, or when its holder is one of the incident's holds and it
/// falls inside that hold's believed window (a zombie may sell after the
/// other holder released). An oversold sale in no incident's window goes to
/// the latest incident on its key that began before it (else the first one
/// on the key): a stale write inside the incident left phantom stock that a
/// later, properly locked sale used up, so the incident caused that unit.
/// Loss = oversold units x `unit_loss` ([`crate::money::loss`]; unknown
/// without a unit loss).
pub fn attribute_oversell(
    sales: &mut [Sale],
    incidents: &mut [Incident],
    leases: &[Lease],
    unit_loss: Option<f64>,
) {
    let index = KeyIncidents::new(incidents, leases);
    for (s_idx, sale) in sales.iter_mut().enumerate() {
        let Some(key) = sale.key else { continue };
        let Some(k) = index.by_key.get(&key) else {
            continue;
        };
        let caused_by = || (sale.oversold_units > 0).then(|| k.latest_started(sale.at_ns));
        let found = k
            .window_at(sale.at_ns)
            .or_else(|| index.holder_at(key, sale.holder?, sale.at_ns))
            .or_else(caused_by);
        if let Some(n) = found {
            sale.incident = Some(IncidentId::new(n));
            incidents[n].sales.push(SaleId::new(s_idx));
            incidents[n].oversold_units += sale.oversold_units;
        }
    }
    for inc in incidents.iter_mut() {
        inc.loss = crate::money::loss(inc.oversold_units, unit_loss);
    }
}

/// True when `product` has no stock level anywhere in the log (no
/// initial stock, no stock after a sale): what it sold cannot be measured
/// against a stock, so its oversold units are unknown (docs/semantics.md
/// §7), not 0.
pub fn stock_unknown(products: &[ProductOversell], product: Option<Sym>) -> bool {
    !products
        .iter()
        .any(|p| p.product == product && (p.initial_stock.is_some() || p.final_stock.is_some()))
}

/// When the log reads no stock level at all (no product has an initial
/// stock or a stock after a sale), marks the loss of each incident with a
/// sale [`crate::money::Loss::StockUnknown`], whatever the unit loss; true
/// when it marked one (the summary's loss is then unknown too). Beside
/// products with a stock level, a product without one may be the same goods
/// under another name (a MONITOR capture's order list and its stock key):
/// its incident keeps its figure, and its paragraph says that whether its
/// sales went beyond the stock is unknown.
pub fn mark_stock_unknown(
    incidents: &mut [Incident],
    sales: &[Sale],
    products: &[ProductOversell],
) -> bool {
    if sales.is_empty()
        || products
            .iter()
            .any(|p| p.initial_stock.is_some() || p.final_stock.is_some())
    {
        return false;
    }
    let mut marked = false;
    for inc in incidents.iter_mut().filter(|i| !i.sales.is_empty()) {
        inc.loss = crate::money::Loss::StockUnknown;
        marked = true;
    }
    marked
}

/// The incidents of one lock key, in index order (which is start order:
/// `detect_overlaps` sorts incidents by start), with what the three rules of
/// [`attribute_oversell`] search by, so each sale costs O(log n) on its key
/// instead of a scan of every incident (18 000 incidents took 0.6 s as a
/// scan).
#[derive(Default)]
struct OneKey {
    /// Incident indices.
    incidents: Vec<usize>,
    /// Their starts, ns (non-decreasing).
    starts: Vec<i64>,
    /// The largest end among the first i + 1, ns (non-decreasing).
    max_end: Vec<i64>,
}

impl OneKey {
    /// The first incident (in index order) whose window holds `at_ns`.
    fn window_at(&self, at_ns: i64) -> Option<usize> {
        let started = self.starts.partition_point(|&s| s <= at_ns);
        // The first one whose end reaches `at_ns` is where the running
        // maximum of the ends first reaches it.
        let first = self.max_end.partition_point(|&e| e < at_ns);
        (first < started).then(|| self.incidents[first])
    }

    /// The latest incident that began at or before `at_ns` (the last of
    /// equal starts), else the first one.
    fn latest_started(&self, at_ns: i64) -> usize {
        let started = self.starts.partition_point(|&s| s <= at_ns);
        self.incidents[started.saturating_sub(1)]
    }
}

/// A hold in an incident: `(position among its key's incidents, acquire
/// ns, window end ns)`.
type HeldIn = (usize, i64, i64);

/// [`OneKey`] for every key, and each (key, holder)'s holds in an incident.
struct KeyIncidents {
    by_key: HashMap<Sym, OneKey>,
    holds: HashMap<(Sym, Sym), Vec<HeldIn>>,
}

impl KeyIncidents {
    fn new(incidents: &[Incident], leases: &[Lease]) -> KeyIncidents {
        debug_assert!(incidents.windows(2).all(|w| w[0].start_ns <= w[1].start_ns));
        let mut by_key: HashMap<Sym, OneKey> = HashMap::default();
        let mut holds: HashMap<(Sym, Sym), Vec<HeldIn>> = HashMap::default();
        for (n, inc) in incidents.iter().enumerate() {
            let k = by_key.entry(inc.key).or_default();
            let end = k.max_end.last().map_or(inc.end_ns, |&e| e.max(inc.end_ns));
            let pos = k.incidents.len();
            k.incidents.push(n);
            k.starts.push(inc.start_ns);
            k.max_end.push(end);
            for &l in &inc.leases {
                let l = &leases[l];
                holds.entry((inc.key, l.holder)).or_default().push((
                    pos,
                    l.acquired_ns,
                    l.window_end_ns,
                ));
            }
        }
        KeyIncidents { by_key, holds }
    }

    /// The first incident of `key` (in index order) with a hold of `holder`
    /// whose believed window holds `at_ns`.
    fn holder_at(&self, key: Sym, holder: Sym, at_ns: i64) -> Option<usize> {
        let pos = self
            .holds
            .get(&(key, holder))?
            .iter()
            .filter(|&&(_, from, to)| from <= at_ns && at_ns <= to)
            .map(|&(pos, _, _)| pos)
            .min()?;
        Some(self.by_key[&key].incidents[pos])
    }
}

#[cfg(test)]
mod attribution_reference {
    //! [`attribute_oversell`] against the scan it replaced (every incident of
    //! the key, in index order, for each sale), on random holds, incidents
    //! and sales.
    use proptest::prelude::*;

    use super::*;
    use crate::analysis::{Cause, LeaseId, LockEnd, Opt64, WindowEnd};
    use crate::model::Interner;

    fn lease(id: usize, key: Sym, holder: Sym, from: i64, to: i64) -> Lease {
        Lease {
            id: LeaseId::new(id),
            key,
            holder,
            host: None,
            thread: None,
            acquired_ns: from,
            ttl_ms: Opt64::NONE,
            ttl_unknown: false,
            renewals: None,
            expiry_ns: Opt64::NONE,
            window_end_ns: to,
            window_end: WindowEnd::LastEvent,
            lock_end_ns: to,
            lock_end: LockEnd::Expired,
            ended_by: None,
            inferred: false,
            release_guessed: false,
            lines: Default::default(),
        }
    }

    /// The attribution as a scan of all incidents for every sale.
    fn reference(sales: &mut [Sale], incidents: &mut [Incident], leases: &[Lease]) {
        for (s_idx, sale) in sales.iter_mut().enumerate() {
            let Some(key) = sale.key else { continue };
            let on_key = || incidents.iter().enumerate().filter(|(_, i)| i.key == key);
            let by_window = on_key()
                .find(|(_, i)| i.start_ns <= sale.at_ns && sale.at_ns <= i.end_ns)
                .map(|(n, _)| n);
            let by_holder = || {
                on_key()
                    .find(|(_, i)| {
                        i.leases.iter().any(|&l| {
                            let l = &leases[l];
                            Some(l.holder) == sale.holder
                                && l.acquired_ns <= sale.at_ns
                                && sale.at_ns <= l.window_end_ns
                        })
                    })
                    .map(|(n, _)| n)
            };
            let caused_by = || {
                if sale.oversold_units <= 0 {
                    return None;
                }
                on_key()
                    .filter(|(_, i)| i.start_ns <= sale.at_ns)
                    .max_by_key(|(_, i)| i.start_ns)
                    .or_else(|| on_key().min_by_key(|(_, i)| i.start_ns))
                    .map(|(n, _)| n)
            };
            if let Some(n) = by_window.or_else(by_holder).or_else(caused_by) {
                sale.incident = Some(IncidentId::new(n));
                incidents[n].sales.push(SaleId::new(s_idx));
                incidents[n].oversold_units += sale.oversold_units;
            }
        }
    }

    type Rows = (
        Vec<(u8, u8, i64, i64)>,
        Vec<(u8, i64, i64, Vec<usize>)>,
        Vec<(Option<u8>, Option<u8>, i64, i64)>,
    );

    fn rows() -> impl Strategy<Value = Rows> {
        (
            prop::collection::vec((0u8..3, 0u8..4, 0i64..100, 0i64..40), 1..20),
            prop::collection::vec(
                (
                    0u8..3,
                    0i64..100,
                    0i64..30,
                    prop::collection::vec(0usize..20, 0..4),
                ),
                0..12,
            ),
            prop::collection::vec(
                (
                    prop::option::of(0u8..3),
                    prop::option::of(0u8..4),
                    0i64..140,
                    0i64..3,
                ),
                0..30,
            ),
        )
    }

    proptest! {
        #[test]
        fn same_answer_as_the_scan((holds, incs, sold) in rows()) {
            let mut strings = Interner::default();
            let key = |k: u8, s: &mut Interner| s.intern(&format!("k{k}"));
            let holder = |h: u8, s: &mut Interner| s.intern(&format!("h{h}"));
            let leases: Vec<Lease> = holds
                .iter()
                .enumerate()
                .map(|(i, &(k, h, from, len))| {
                    lease(i, key(k, &mut strings), holder(h, &mut strings), from, from + len)
                })
                .collect();
            let mut incidents: Vec<Incident> = incs
                .iter()
                .map(|(k, start, len, ls)| {
                    let key = key(*k, &mut strings);
                    Incident {
                        id: IncidentId::default(),
                        key,
                        start_ns: *start,
                        end_ns: start + len,
                        leases: ls
                            .iter()
                            .filter(|&&l| l < leases.len() && leases[l].key == key)
                            .map(|&l| LeaseId::new(l))
                            .collect(),
                        overlaps: Vec::new(),
                        overlaps_unlisted: 0,
                        cause: Cause::LeaseExpired,
                        sales: Vec::new(),
                        oversold_units: 0,
                        loss: crate::money::Loss::default(),
                    }
                })
                .collect();
            incidents.sort_by_key(|i| i.start_ns);
            let mut sales: Vec<Sale> = sold
                .iter()
                .enumerate()
                .map(|(i, &(k, h, at, over))| Sale {
                    event: crate::analysis::EventId::new(i),
                    at_ns: at,
                    product: None,
                    key: k.map(|k| key(k, &mut strings)),
                    holder: h.map(|h| holder(h, &mut strings)),
                    order_id: None,
                    quantity: 1,
                    oversold_units: over,
                    incident: None,
                })
                .collect();
            let (mut want_sales, mut want_incidents) = (sales.clone(), incidents.clone());
            reference(&mut want_sales, &mut want_incidents, &leases);
            attribute_oversell(&mut sales, &mut incidents, &leases, Some(1.0));
            for i in &mut want_incidents {
                i.loss = crate::money::Loss::Known(i.oversold_units as f64);
            }
            prop_assert_eq!(sales, want_sales);
            prop_assert_eq!(incidents, want_incidents);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::leases::tests::log_of;
    use crate::analysis::{IncidentId, Settings, analyze};
    use crate::model::EventKind::*;

    #[test]
    fn a_seen_sale_and_a_deduction_stay_compact() {
        // The layout the 10 M-event peak counts on (docs/performance.md):
        // 2 M orders and 2 M deductions in the overlap-heavy log.
        assert_eq!(std::mem::size_of::<super::Seen>(), 32);
        assert_eq!(
            std::mem::size_of::<(crate::analysis::EventId, Option<crate::model::Sym>)>(),
            8
        );
    }

    #[test]
    fn tied_sale_times_go_in_event_order() {
        // Two products with orders, one with deductions only (its sales are
        // the deductions), and sales at equal times across products: the
        // unstable sort puts equal times in event order.
        let log = log_of(&[
            (10, OrderCreated, "b", "B", None),
            (10, OrderCreated, "a", "A", None),
            (10, StockDeducted, "c", "C", None),
            (5, OrderCreated, "a", "A", None),
            (10, StockDeducted, "a", "A", None),
            (7, StockDeducted, "c", "C", None),
        ]);
        let (_, sales) =
            super::compute_oversell(&log, &[], &[], &crate::analysis::leases::EventView::all());
        let got: Vec<(i64, usize)> = sales.iter().map(|s| (s.at_ns, s.event.index())).collect();
        // The sales: every order, and product c's deductions.
        let c = log.strings.lookup("c");
        let mut want: Vec<(i64, usize)> = (log.events.iter().enumerate())
            .filter(|(_, e)| e.kind == OrderCreated || (e.kind == StockDeducted && e.key == c))
            .map(|(i, e)| (e.at_ns, i))
            .collect();
        want.sort();
        assert_eq!(want.len(), 5);
        assert_eq!(got, want);
    }

    #[test]
    fn oversold_units_after_the_window_still_belong_to_the_incident() {
        // Z reads stock 1 before its lease expires, B sells the last unit
        // inside the overlap, Z writes its stale stock back, C sells that
        // phantom unit after the incident: 2 sold of 1, the incident caused it.
        let mut log = log_of(&[
            (0, StockInitialized, "k", "", None),
            (1, Acquired, "k", "Z", Some(100)),
            (150, Acquired, "k", "B", Some(100)),
            (160, OrderCreated, "k", "B", None),
            (170, Released, "k", "B", None),
            (180, StockDeducted, "k", "Z", None),
            (190, ReleaseFailed, "k", "Z", None),
            (400, Acquired, "k", "C", Some(100)),
            (410, OrderCreated, "k", "C", None),
            (420, Released, "k", "C", None),
        ]);
        log.events[0].update_detail(|d| d.stock = Some(1));
        let a = analyze(
            &log,
            &Settings {
                unit_loss: Some(200.0),
                ..Settings::default()
            },
        );
        assert_eq!(a.summary.oversold_units, 1);
        assert_eq!(a.incidents.len(), 1);
        assert_eq!(a.incidents[0].oversold_units, 1);
        assert_eq!(a.incidents[0].loss, crate::money::Loss::Known(200.0));
        let late = a
            .sales
            .iter()
            .find(|s| s.oversold_units == 1)
            .expect("oversold sale");
        assert_eq!(late.incident, Some(IncidentId::new(0)));
    }

    #[test]
    fn a_sale_keyed_by_its_product_is_tied_by_its_holder() {
        // The lock is `lk:sku`; the stock and sale lines name the product
        // `sku`, a key no lock event stands on. A's lease (100 ms) expires,
        // B takes the lock and both sell the one unit inside the overlap.
        let mut log = log_of(&[
            (0, StockRead, "sku", "A", None),
            (1, Acquired, "lk:sku", "A", Some(100)),
            (150, Acquired, "lk:sku", "B", Some(100)),
            (160, OrderCreated, "sku", "A", None),
            (170, OrderCreated, "sku", "B", None),
            (180, Released, "lk:sku", "A", None),
            (190, Released, "lk:sku", "B", None),
        ]);
        log.events[0].update_detail(|d| d.stock = Some(1));
        let a = analyze(&log, &Settings::default());
        let (lock, sku) = (log.strings.lookup("lk:sku"), log.strings.lookup("sku"));
        assert_eq!(a.products.len(), 1);
        assert_eq!((a.products[0].product, a.products[0].oversold), (sku, 1));
        assert!(a.sales.iter().all(|s| s.key == lock && s.product == sku));
        assert_eq!(a.incidents.len(), 1);
        assert_eq!(a.incidents[0].oversold_units, 1);
        assert_eq!(a.incidents[0].sales.len(), 2);
    }

    #[test]
    fn a_sale_on_a_lock_key_keeps_it() {
        // A line whose key a lock event names keeps that key, even when
        // its holder holds another lock at the time.
        let log = log_of(&[
            (1, Acquired, "lk:a", "A", Some(100)),
            (2, AcquireFailed, "lk:b", "A", None),
            (3, OrderCreated, "lk:b", "A", None),
        ]);
        let a = analyze(&log, &Settings::default());
        let lk_b = log.strings.lookup("lk:b");
        assert_eq!(a.sales.len(), 1);
        assert_eq!((a.sales[0].key, a.sales[0].product), (lk_b, lk_b));
    }
}

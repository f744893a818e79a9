//! What the stock plot draws, as plain values: per product of an incident,
//! the stock the log recorded, the orders counted against the units there
//! were, the deductions that sold a unit twice, and the overlap windows.
//! Built from the analysis when the selection changes; no drawing here.

use std::collections::BTreeMap;

use crate::analysis::{Analysis, EventId, EventView, Incident, IncidentId, SaleId};
use crate::model::{Event, EventKind, LoadedLog, Sym};

/// A stock level the log recorded, from `at_ns` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// When, ns (host offsets applied, as on the lanes).
    pub at_ns: i64,
    /// Units in stock.
    pub level: i64,
}

/// One order (or deduction, for a product without orders) counted against
/// the units there were.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderMark {
    /// When, ns.
    pub at_ns: i64,
    /// The sale in [`Analysis::sales`].
    pub sale: SaleId,
    /// Units it sold.
    pub quantity: i64,
    /// Units left once it and every order before it are counted: the
    /// initial stock minus the units sold so far; `None` without an
    /// initial stock.
    pub left_after: Option<i64>,
    /// True when the analysis counts some of its units beyond the stock
    /// (`Sale::oversold_units`, `analysis::compute_oversell`): drawn red.
    pub beyond_stock: bool,
}

/// A deduction that sold again a unit an earlier deduction of the product
/// had sold: it deducted from a level another deduction had already left
/// (two deductions from one read), so one of the two is lost and the
/// logged stock stays above what the orders left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostUpdate {
    /// When, ns.
    pub at_ns: i64,
    /// The deduction in [`LoadedLog::events`].
    pub event: EventId,
    /// Stock before it, as it logged.
    pub before: i64,
    /// Stock after it, as it logged.
    pub after: i64,
    /// Units of it an earlier deduction had already sold.
    pub units: i64,
}

/// An incident's window on one of the product's keys: shaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
    /// The incident.
    pub incident: IncidentId,
}

/// One product's stock over time, as the plot draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProductStock {
    /// Its index in [`Analysis::products`].
    pub product: usize,
    /// Its name: the product field, else the lock key.
    pub name: String,
    /// Units there were: the analysis's initial stock.
    pub initial: Option<i64>,
    /// The levels the log recorded (initialised, deducted to), in time
    /// order: a step at each.
    pub logged: Vec<Level>,
    /// Its sales in time order, counted against `initial`.
    pub orders: Vec<OrderMark>,
    /// Its deductions that sold a unit twice, in time order.
    pub lost: Vec<LostUpdate>,
    /// The overlap windows of the incidents on the keys it was sold
    /// under, by incident, then start.
    pub windows: Vec<Window>,
    /// Units sold beyond the stock (`ProductOversell::oversold`).
    pub oversold: i64,
    /// Deductions lost (`ProductOversell::lost_updates`).
    pub lost_updates: i64,
}

impl ProductStock {
    /// Orders drawn red: those with units beyond the stock.
    pub fn beyond_stock(&self) -> usize {
        self.orders.iter().filter(|o| o.beyond_stock).count()
    }

    /// Units the lost updates sold twice.
    pub fn lost_units(&self) -> i64 {
        self.lost.iter().map(|l| l.units).sum()
    }

    /// The lowest and highest value drawn (levels, units left, 0).
    pub fn value_range(&self) -> (i64, i64) {
        let values = self
            .logged
            .iter()
            .map(|l| l.level)
            .chain(self.orders.iter().filter_map(|o| o.left_after))
            .chain(self.initial)
            .chain([0]);
        values.fold((0, 0), |(lo, hi), v| (lo.min(v), hi.max(v)))
    }

    /// Where order `o` is drawn: the units left after it, else (without an
    /// initial stock) the level logged at its time, else 0.
    pub fn order_value(&self, o: &OrderMark) -> i64 {
        o.left_after.unwrap_or_else(|| {
            let n = self.logged.partition_point(|l| l.at_ns <= o.at_ns);
            n.checked_sub(1).map_or(0, |i| self.logged[i].level)
        })
    }
}

/// The stock of each product of `incident` that has a stock level in the
/// log (an initial or a final one), by product order; empty when none has
/// (the plot is then not shown).
pub fn incident_stock(
    log: &LoadedLog,
    analysis: &Analysis,
    incident: IncidentId,
) -> Vec<ProductStock> {
    let Some(inc) = analysis.incidents.get(incident.index()) else {
        return Vec::new();
    };
    let products = incident_products(analysis, inc);
    if products.is_empty() {
        return Vec::new();
    }
    let (view, _) = EventView::split(log);
    products
        .into_iter()
        .map(|p| product_stock(log, analysis, &view, p, inc.key))
        .collect()
}

/// The products of `inc` with a stock level: those its sales and the sales
/// under its key sold, and the one its key names (a product is its lock key
/// when the log names none).
fn incident_products(a: &Analysis, inc: &Incident) -> Vec<usize> {
    let mut names: Vec<Option<Sym>> = inc
        .sales
        .iter()
        .filter_map(|&s| a.sales.get(s.index()))
        .chain(a.sales.iter().filter(|s| s.key == Some(inc.key)))
        .map(|s| s.product)
        .chain([Some(inc.key)])
        .collect();
    names.sort_unstable();
    names.dedup();
    a.products
        .iter()
        .enumerate()
        .filter(|(_, p)| p.initial_stock.is_some() || p.final_stock.is_some())
        .filter(|(_, p)| names.binary_search(&p.product).is_ok())
        .map(|(i, _)| i)
        .collect()
}

/// The stock of product `p` (an index into [`Analysis::products`]), with
/// the windows of its keys' incidents (and of `key`'s).
fn product_stock(
    log: &LoadedLog,
    a: &Analysis,
    view: &EventView,
    p: usize,
    key: Sym,
) -> ProductStock {
    let po = &a.products[p];
    let mut left = po.initial_stock;
    let mut keys = vec![key];
    let mut orders = Vec::new();
    for (i, s) in a
        .sales
        .iter()
        .enumerate()
        .filter(|(_, s)| s.product == po.product)
    {
        left = left.map(|l| l.saturating_sub(s.quantity));
        keys.extend(s.key);
        orders.push(OrderMark {
            at_ns: s.at_ns,
            sale: SaleId::new(i),
            quantity: s.quantity,
            left_after: left,
            beyond_stock: s.oversold_units > 0,
        });
    }
    keys.sort_unstable();
    keys.dedup();
    let windows = a
        .incidents
        .iter()
        .filter(|i| keys.binary_search(&i.key).is_ok())
        .flat_map(|i| overlap_windows(a, i))
        .collect();
    let (logged, lost) = levels(log, a, view, p);
    ProductStock {
        product: p,
        name: po
            .product
            .map_or_else(String::new, |s| log.strings.get(s).to_string()),
        initial: po.initial_stock,
        logged,
        orders,
        lost,
        windows,
        oversold: po.oversold,
        lost_updates: po.lost_updates,
    }
}

/// The windows where two holders of `inc` believed they held its key: its
/// overlaps, those that touch merged; its whole window when it has more
/// overlaps than it lists.
fn overlap_windows(a: &Analysis, inc: &Incident) -> Vec<Window> {
    let whole = Window {
        start_ns: inc.start_ns,
        end_ns: inc.end_ns,
        incident: inc.id,
    };
    if inc.overlaps_unlisted > 0 || inc.overlaps.is_empty() {
        return vec![whole];
    }
    let mut spans: Vec<(i64, i64)> = inc
        .overlaps
        .iter()
        .filter_map(|&o| a.overlaps.get(o.index()))
        .map(|o| (o.start_ns, o.end_ns))
        .collect();
    spans.sort_unstable();
    let mut out: Vec<Window> = Vec::new();
    for (start_ns, end_ns) in spans {
        match out.last_mut() {
            Some(w) if start_ns <= w.end_ns => w.end_ns = w.end_ns.max(end_ns),
            _ => out.push(Window {
                start_ns,
                end_ns,
                ..whole
            }),
        }
    }
    out
}

/// The product event `i` counts for, by the rule of the analysis's stock
/// accounting and of the replay's stock levels (`playback`): its product
/// field, else its key; without either, the product of its sale (the key of
/// its holder's hold), else the log's one product.
fn product_of(a: &Analysis, log: &LoadedLog, i: usize, e: &Event) -> Option<Sym> {
    if let Some(p) = e.detail().product.or(e.key) {
        return Some(p);
    }
    let at = a.time_of(log, i);
    let event = EventId::new(i);
    let n = a
        .sales
        .partition_point(|s| (s.at_ns, s.event) < (at, event));
    match a.sales.get(n).filter(|s| s.event == event) {
        Some(s) => s.product,
        None if a.products.len() == 1 => a.products[0].product,
        None => None,
    }
}

/// The levels product `p`'s events recorded (its initial stock, then each
/// deduction's stock after), and its deductions that sold a unit twice.
fn levels(
    log: &LoadedLog,
    a: &Analysis,
    view: &EventView,
    p: usize,
) -> (Vec<Level>, Vec<LostUpdate>) {
    let product = a.products[p].product;
    let mut events: Vec<(i64, usize)> = log
        .events
        .iter()
        .enumerate()
        .filter(|(i, e)| {
            matches!(
                e.kind,
                EventKind::StockInitialized | EventKind::StockRead | EventKind::StockDeducted
            ) && view.includes(*i)
        })
        .filter(|&(i, e)| product_of(a, log, i, e) == product)
        .map(|(i, _)| (a.time_of(log, i), i))
        .collect();
    events.sort_unstable();
    let mut logged = Vec::new();
    let mut lost = Vec::new();
    let mut taken = Taken::default();
    let mut deducted = false;
    for (at_ns, i) in events {
        let e = &log.events[i];
        let d = e.detail();
        match e.kind {
            EventKind::StockInitialized => {
                logged.extend(d.stock.map(|level| Level { at_ns, level }))
            }
            // The first read before any deduction is the initial stock when
            // nothing initialised it.
            EventKind::StockRead if !deducted && logged.is_empty() => {
                logged.extend(d.stock.map(|level| Level { at_ns, level }));
            }
            EventKind::StockDeducted => {
                deducted = true;
                let q = d.quantity.unwrap_or(1);
                let (before, after) = match (d.stock_before, d.stock_after) {
                    (Some(b), Some(a)) => (b, a),
                    (Some(b), None) => (b, b.saturating_sub(q)),
                    (None, Some(a)) => (a.saturating_add(q), a),
                    (None, None) => continue,
                };
                logged.push(Level {
                    at_ns,
                    level: after,
                });
                let units = taken.take(after.saturating_add(1), before.saturating_add(1));
                if units > 0 {
                    lost.push(LostUpdate {
                        at_ns,
                        event: EventId::new(i),
                        before,
                        after,
                        units,
                    });
                }
            }
            _ => {}
        }
    }
    (logged, lost)
}

/// Stock levels already sold, as disjoint ranges `[from, to)` by `from`:
/// a deduction from `before` to `after` sells the units at levels
/// `after + 1 ..= before`.
#[derive(Default)]
struct Taken(BTreeMap<i64, i64>);

impl Taken {
    /// Marks `[from, to)` sold; returns how many of those levels were sold
    /// before.
    fn take(&mut self, from: i64, to: i64) -> i64 {
        if to <= from {
            return 0;
        }
        // Ranges touching `[from, to)`: those starting at or before `to`
        // whose end reaches `from` (ends rise with starts: they are disjoint).
        let touching: Vec<(i64, i64)> = self
            .0
            .range(..=to)
            .rev()
            .take_while(|&(_, &end)| end >= from)
            .map(|(&s, &e)| (s, e))
            .collect();
        let (mut lo, mut hi, mut again) = (from, to, 0);
        for (s, e) in touching {
            again += (e.min(to) - s.max(from)).max(0);
            lo = lo.min(s);
            hi = hi.max(e);
            self.0.remove(&s);
        }
        self.0.insert(lo, hi);
        again
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Settings, analyze};
    use crate::ingest::{IngestOptions, Progress, read_source};
    use crate::model::LogBuilder;

    fn analysed(jsonl: &str) -> (LoadedLog, Analysis) {
        let mut b = LogBuilder::new();
        read_source(
            "t.jsonl",
            jsonl.as_bytes(),
            &IngestOptions::default(),
            &mut b,
            &Progress::default(),
        )
        .expect("reads");
        let log = crate::ingest::settle(b.finish());
        let analysis = analyze(&log, &Settings::default());
        (log, analysis)
    }

    #[test]
    fn taken_counts_the_levels_sold_twice() {
        let mut t = Taken::default();
        assert_eq!(t.take(12, 13), 0);
        assert_eq!(t.take(11, 12), 0);
        assert_eq!(t.take(12, 13), 1);
        assert_eq!(t.take(8, 11), 0);
        // 7..=13 spans the sold 8..=12 and the new 7 and 13.
        assert_eq!(t.take(7, 14), 5);
        assert_eq!(t.0.len(), 1);
        assert_eq!(t.take(20, 22), 0);
        assert_eq!(t.take(3, 3), 0);
        assert_eq!(t.0.len(), 2);
    }

    /// Two holders read 3 and both deduct to 2 (a lost update), then the
    /// stock is sold out to 0 by the logged levels while four orders pass
    /// its three units: the fourth is beyond the stock.
    #[test]
    fn orders_are_counted_against_the_units_and_the_twice_sold_unit_is_marked() {
        let line = |t: &str, ev: &str, who: &str, rest: &str| {
            format!(
                "{{\"ts\":\"2026-01-01T00:00:{t}Z\",\"event\":\"{ev}\",\"lock_key\":\"lock:p1\",\"owner\":\"{who}\",\"product\":\"p1\"{rest}}}\n"
            )
        };
        let mut log = String::new();
        log += &line("00.000", "stock_initialized", "x", ",\"stock\":3");
        log += &line("01.000", "acquired", "A", ",\"ttl_ms\":1000");
        log += &line("01.100", "stock_read", "A", ",\"stock\":3");
        log += &line("02.100", "acquired", "B", ",\"ttl_ms\":1000");
        log += &line("02.200", "stock_read", "B", ",\"stock\":3");
        log += &line(
            "02.300",
            "stock_deducted",
            "B",
            ",\"quantity\":1,\"stock_before\":3,\"stock_after\":2",
        );
        log += &line(
            "02.310",
            "order_created",
            "B",
            ",\"quantity\":1,\"order_id\":\"o1\"",
        );
        log += &line(
            "02.500",
            "stock_deducted",
            "A",
            ",\"quantity\":1,\"stock_before\":3,\"stock_after\":2",
        );
        log += &line(
            "02.510",
            "order_created",
            "A",
            ",\"quantity\":1,\"order_id\":\"o2\"",
        );
        log += &line("02.600", "released", "B", "");
        log += &line("03.000", "acquired", "C", ",\"ttl_ms\":1000");
        log += &line(
            "03.100",
            "stock_deducted",
            "C",
            ",\"quantity\":1,\"stock_before\":2,\"stock_after\":1",
        );
        log += &line(
            "03.110",
            "order_created",
            "C",
            ",\"quantity\":1,\"order_id\":\"o3\"",
        );
        log += &line(
            "03.120",
            "stock_deducted",
            "C",
            ",\"quantity\":1,\"stock_before\":1,\"stock_after\":0",
        );
        log += &line(
            "03.130",
            "order_created",
            "C",
            ",\"quantity\":1,\"order_id\":\"o4\"",
        );
        log += &line("03.200", "released", "C", "");
        let (log, a) = analysed(&log);
        let inc = a.incidents.first().expect("A and B overlap");
        let plot = incident_stock(&log, &a, inc.id);
        assert_eq!(plot.len(), 1);
        let p = &plot[0];
        assert_eq!(p.name, "p1");
        assert_eq!(p.initial, Some(3));
        let levels: Vec<i64> = p.logged.iter().map(|l| l.level).collect();
        assert_eq!(levels, [3, 2, 2, 1, 0]);
        let left: Vec<Option<i64>> = p.orders.iter().map(|o| o.left_after).collect();
        assert_eq!(left, [Some(2), Some(1), Some(0), Some(-1)]);
        let red: Vec<bool> = p.orders.iter().map(|o| o.beyond_stock).collect();
        assert_eq!(red, [false, false, false, true]);
        assert_eq!((p.beyond_stock() as i64, p.oversold), (1, 1));
        assert_eq!(p.lost.len(), 1);
        assert_eq!(
            (p.lost[0].before, p.lost[0].after, p.lost[0].units),
            (3, 2, 1)
        );
        assert_eq!(p.lost_units(), p.lost_updates);
        assert_eq!(p.windows.len(), 1);
        assert_eq!(p.windows[0].incident, inc.id);
        assert_eq!(p.value_range(), (-1, 3));
    }

    #[test]
    fn an_incident_without_a_stock_level_has_no_plot() {
        let line = |t: &str, ev: &str, who: &str| {
            format!(
                "{{\"ts\":\"2026-01-01T00:00:{t}Z\",\"event\":\"{ev}\",\"lock_key\":\"lock:p1\",\"owner\":\"{who}\",\"ttl_ms\":2000}}\n"
            )
        };
        let log = [
            line("01.000", "acquired", "A"),
            line("02.100", "acquired", "B"),
            line("02.600", "released", "B"),
            line("02.700", "released", "A"),
        ]
        .concat();
        let (log, a) = analysed(&log);
        let inc = a.incidents.first().expect("A and B overlap");
        assert!(incident_stock(&log, &a, inc.id).is_empty());
    }

    #[test]
    fn without_an_initial_stock_an_order_sits_on_the_logged_level() {
        let p = ProductStock {
            product: 0,
            name: String::new(),
            initial: None,
            logged: vec![
                Level {
                    at_ns: 10,
                    level: 5,
                },
                Level {
                    at_ns: 20,
                    level: 4,
                },
            ],
            orders: Vec::new(),
            lost: Vec::new(),
            windows: Vec::new(),
            oversold: 0,
            lost_updates: 0,
        };
        let at = |at_ns| OrderMark {
            at_ns,
            sale: SaleId::new(0),
            quantity: 1,
            left_after: None,
            beyond_stock: false,
        };
        assert_eq!(p.order_value(&at(5)), 0);
        assert_eq!(p.order_value(&at(15)), 5);
        assert_eq!(p.order_value(&at(20)), 4);
    }
}

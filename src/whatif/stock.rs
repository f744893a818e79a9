//! The stock under a policy: each hold's business lines shifted with its
//! grant, stock reads and deductions replayed in the new order, fencing at
//! the write (docs/semantics.md §10).

use foldhash::HashMap;

use super::ReplayedHold;
use crate::analysis::{Analysis, EventView};
use crate::model::{EventKind, LoadedLog, Sym};

/// A business line and the hold it belongs to.
struct Biz {
    event: usize,
    at_ns: i64,
    hold: Option<usize>,
    product: Option<Sym>,
    /// Units when this line is one of the analysis's sales.
    sale: Option<i64>,
}

/// What every policy's replay reads from the log, built once.
pub(super) struct Input {
    /// Per hold: the times of its own lines after its acquire, ns, sorted.
    pub(super) gaps: Vec<Vec<i64>>,
    biz: Vec<Biz>,
    /// Initial stock per product (the analysis's), when known.
    initial: HashMap<Option<Sym>, i64>,
    /// Oversold units of the products without a known initial stock, kept.
    kept_oversold: i64,
    /// Products whose initial stock is unknown.
    pub(super) products_without_stock: usize,
    /// Sales that belong to no hold.
    pub(super) unheld_sales: usize,
}

impl Input {
    pub(super) fn new(log: &LoadedLog, analysis: &Analysis) -> Input {
        let (view, _) = EventView::split(log);
        let leases = &analysis.leases;
        // (key, holder) -> holds, and holder -> holds, in acquire order.
        let mut by_key_holder: HashMap<(Sym, Sym), Vec<usize>> = HashMap::default();
        let mut by_holder: HashMap<Sym, Vec<usize>> = HashMap::default();
        for l in leases {
            by_key_holder
                .entry((l.key, l.holder))
                .or_default()
                .push(l.id.index());
            by_holder.entry(l.holder).or_default().push(l.id.index());
        }
        for v in by_holder.values_mut() {
            v.sort_by_key(|&i| leases[i].acquired_ns);
        }
        // A line whose key no hold was taken on (a sale keyed by its
        // product) belongs to its holder's hold, as a line without a key
        // does (docs/semantics.md §7).
        let held: foldhash::HashSet<Sym> = leases.iter().map(|l| l.key).collect();
        let lock_key = |k: &Sym| held.contains(k);
        let find = |ids: &[usize], t: i64| {
            let n = ids.partition_point(|&i| leases[i].acquired_ns <= t);
            ids[..n]
                .iter()
                .rev()
                .find(|&&i| leases[i].window_end_ns >= t)
                .copied()
        };
        let sales: HashMap<usize, i64> = analysis
            .sales
            .iter()
            .map(|s| (s.event.index(), s.quantity))
            .collect();
        let mut gaps = vec![Vec::new(); leases.len()];
        let mut biz = Vec::new();
        for (i, e) in log.events.iter().enumerate() {
            if !view.includes(i) {
                continue;
            }
            let t = analysis.time_of(log, i);
            let hold = e.holder.and_then(|h| match e.key.filter(lock_key) {
                Some(k) => by_key_holder.get(&(k, h)).and_then(|ids| find(ids, t)),
                None => by_holder.get(&h).and_then(|ids| find(ids, t)),
            });
            if let Some(h) = hold {
                gaps[h].push(t - leases[h].acquired_ns);
            }
            if e.kind.is_business() {
                let key = e.key.or(hold.map(|h| leases[h].key));
                biz.push(Biz {
                    event: i,
                    at_ns: t,
                    hold,
                    product: e.detail().product.or(key),
                    sale: sales.get(&i).copied(),
                });
            }
        }
        for g in &mut gaps {
            g.sort_unstable();
        }
        let initial = analysis
            .products
            .iter()
            .filter_map(|p| p.initial_stock.map(|s| (p.product, s)))
            .collect();
        let without: Vec<_> = analysis
            .products
            .iter()
            .filter(|p| p.initial_stock.is_none())
            .collect();
        Input {
            gaps,
            unheld_sales: biz
                .iter()
                .filter(|b| b.sale.is_some() && b.hold.is_none())
                .count(),
            biz,
            initial,
            kept_oversold: without.iter().map(|p| p.oversold).sum(),
            products_without_stock: without.len(),
        }
    }
}

impl Input {
    /// Oversold units of the products without a known initial stock.
    pub(super) fn kept_oversold(&self) -> i64 {
        self.kept_oversold
    }
}

/// What the sales add up to under a policy.
pub(super) struct SalesResult {
    pub(super) oversold_units: i64,
    pub(super) not_made: usize,
}

/// A hold's state in the stock replay.
#[derive(Clone, Copy, Default)]
struct HoldStock {
    /// The stock it read last, in the replay.
    read: Option<i64>,
    /// It wrote (a deduction made).
    wrote: bool,
    /// Its sale will not be made (fenced, or it read that the stock was gone).
    blocked: bool,
}

/// Replays the business lines with the holds' new grants: a deduction is
/// made when its holder is not fenced out and read at least its quantity
/// (a holder that read the stock writes what it read minus its quantity,
/// the read-modify-write of the sample's holders; otherwise it subtracts);
/// an order is made when its hold's deduction was. Counts rejected writes
/// into `holds`.
pub(super) fn replay_sales(
    input: &Input,
    log: &LoadedLog,
    analysis: &Analysis,
    holds: &mut [ReplayedHold],
    fencing: bool,
) -> SalesResult {
    let next_grant = next_grants(analysis, holds);
    let mut not_made = 0usize;
    let mut line: Vec<(i64, usize, usize)> = Vec::with_capacity(input.biz.len());
    for (n, b) in input.biz.iter().enumerate() {
        let at = match b.hold {
            None => Some(b.at_ns),
            Some(h) => holds[h]
                .start_ns
                .map(|s| s.saturating_add(b.at_ns - analysis.leases[h].acquired_ns)),
        };
        match at {
            Some(at) => line.push((at, b.event, n)),
            None => not_made += usize::from(b.sale.is_some()),
        }
    }
    line.sort_unstable();
    let mut stock: HashMap<Option<Sym>, i64> = input.initial.clone();
    let mut sold: HashMap<Option<Sym>, i64> = HashMap::default();
    let mut st = vec![HoldStock::default(); holds.len()];
    for &(at, event, n) in &line {
        let b = &input.biz[n];
        let e = &log.events[event];
        let d = e.detail();
        let q = d.quantity.unwrap_or(1);
        let mut made = true;
        match (e.kind, b.hold) {
            (EventKind::StockInitialized, _) => {
                if let Some(s) = d.stock {
                    stock.insert(b.product, s);
                }
            }
            (EventKind::StockRead, Some(h)) => {
                st[h].read = stock.get(&b.product).copied().or(d.stock);
            }
            (EventKind::StockDeducted, None) => {
                if let Some(s) = stock.get_mut(&b.product) {
                    *s -= q;
                }
            }
            (EventKind::StockDeducted | EventKind::OrderCreated, Some(h)) => {
                let writes = e.kind == EventKind::StockDeducted || !st[h].wrote;
                if writes && !st[h].blocked {
                    if fencing && next_grant[h].is_some_and(|g| at > g) {
                        st[h].blocked = true;
                        holds[h].rejected_writes += 1;
                    } else if st[h].read.is_some_and(|r| r < q) {
                        st[h].blocked = true;
                    } else {
                        let base = st[h].read.or(stock.get(&b.product).copied());
                        if let Some(base) = base {
                            stock.insert(b.product, base - q);
                        }
                        st[h].wrote = true;
                    }
                }
                made = !st[h].blocked;
            }
            _ => {}
        }
        if let Some(units) = b.sale {
            if made {
                *sold.entry(b.product).or_default() += units;
            } else {
                not_made += 1;
            }
        }
    }
    let oversold: i64 = input
        .initial
        .iter()
        .map(|(p, init)| (sold.get(p).copied().unwrap_or(0) - init).max(0))
        .sum();
    SalesResult {
        oversold_units: oversold + input.kept_oversold,
        not_made,
    }
}

/// For each started hold, when the next hold on its key was granted (its
/// fencing token is stale from then on), ns.
fn next_grants(analysis: &Analysis, holds: &[ReplayedHold]) -> Vec<Option<i64>> {
    let started = super::lock::started_in_key_order(analysis, holds);
    let mut next = vec![None; holds.len()];
    for w in started.windows(2) {
        if w[0].0 == w[1].0 {
            next[w[0].2] = Some(w[1].1);
        }
    }
    next
}

//! The stock's own protocol: which columns are the product, the quantity,
//! the stock level read, the level left after a deduction, the order id and
//! the fencing token, chosen by the arithmetic they must obey. A deduction
//! leaves the level it found minus its quantity (the last level logged for
//! the product, or the level its holder read: a lost update); an order id
//! is new on every order; a fencing token grows from one hold to the next.
//! A deduction is a row of no lock step with a positive quantity; the level
//! left is no column most lock rows carry (an exporter's constant
//! `DroppedAttributes` 0 would check out against a level of 0), and one
//! field written twice (a message's pair and its copy) plays one role.

use std::collections::HashMap;

use super::fit::{Fit, Kind, NameHint};
use super::table::{Profile, Row, Shape, Table};

/// A business step (the stock and order events of `docs/semantics.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    StockInitialized,
    StockRead,
    StockDeducted,
    OrderCreated,
    /// Neither a lock step nor a stock or order step.
    Activity,
}

/// The business columns found, and the step of every event value that is
/// no lock step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Business {
    pub product: Option<u32>,
    pub quantity: Option<u32>,
    pub stock: Option<u32>,
    pub stock_after: Option<u32>,
    pub order_id: Option<u32>,
    pub fencing: Option<u32>,
    /// Event value -> step.
    pub steps: Vec<(String, Step)>,
    /// Relations that held (deductions whose level left checks out, orders
    /// with a new id, fencing tokens that grow) over those tried.
    pub checked: (u32, u32),
}

fn number(row: &Row, c: Option<u32>) -> Option<f64> {
    c.and_then(|c| row.get(c)).and_then(|v| Shape::of(v).number)
}

/// The columns left for the business roles: not the event, key, holder
/// or TTL, and none whose name says another role.
fn free_columns(fit: &Fit, hints: &[NameHint], n: usize) -> Vec<u32> {
    let h = fit.hypothesis;
    (0..n as u32)
        .filter(|&c| c != h.event && c != h.key && c != h.holder && Some(c) != fit.ttl)
        // A field named as a lock role or the runtime's is no business
        // field (a reader's own `event` pair, a logger's `line`).
        .filter(|&c| {
            hints
                .get(c as usize)
                .is_none_or(|h| *h == NameHint::Unknown)
        })
        .collect()
}

/// The fencing token: a numeric column on most acquires that stays the
/// same over a holder's rows and grows from one hold's acquire to the next
/// on a key.
fn fencing(table: &Table, fit: &Fit, numeric: &[u32]) -> Option<u32> {
    let h = fit.hypothesis;
    let acquire: Vec<&Row> = table
        .rows
        .iter()
        .filter(|r| kind_of(fit, r) == Some(Kind::Acquired))
        .collect();
    numeric.iter().copied().find(|&c| {
        let on: Vec<(&str, f64)> = acquire
            .iter()
            .filter_map(|r| Some((r.get(h.key)?, number(r, Some(c))?)))
            .collect();
        if on.len() < 2 || on.len() * 2 < acquire.len() {
            return false;
        }
        let mut last: HashMap<&str, f64> = HashMap::new();
        let grows = on.iter().all(|&(k, n)| {
            let grows = last.get(k).is_none_or(|&p| n > p);
            last.insert(k, n);
            grows
        });
        grows && steady_in_holds(table, fit, c)
    })
}

/// Whether column `c` keeps one value over each holder's rows on a key (a
/// fencing token is the hold's; a clock moves on).
fn steady_in_holds(table: &Table, fit: &Fit, c: u32) -> bool {
    let h = fit.hypothesis;
    let mut seen: HashMap<(&str, &str), &str> = HashMap::new();
    table.rows.iter().all(|r| {
        let (Some(k), Some(who), Some(v)) = (r.get(h.key), r.get(h.holder), r.get(c)) else {
            return true;
        };
        *seen.entry((k, who)).or_insert(v) == v
    })
}

fn kind_of(fit: &Fit, r: &Row) -> Option<Kind> {
    let v = r.get(fit.hypothesis.event)?;
    fit.kinds.iter().find(|(w, _)| w == v).map(|(_, k)| *k)
}

/// The order id: a column whose every value is new (unique per row), on
/// some rows only (two at least: one value alone is new whatever it is),
/// not a small number (a level or a quantity is one).
fn order_id(table: &Table, profiles: &[Profile], free: &[u32], taken: &[u32]) -> Option<u32> {
    free.iter()
        .copied()
        .filter(|c| !taken.contains(c))
        .find(|&c| {
            let p = &profiles[c as usize];
            let small_number = p.is_numeric()
                && table
                    .rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .all(|v| Shape::of(v).number.is_some_and(|n| n.abs() < 1e6));
            p.present >= 2
                && p.distinct == p.present
                && p.phrase == 0
                && !small_number
                && (p.present as usize) * 2 <= table.rows.len()
        })
}

/// The product: a text column with repeated values that goes with the
/// numeric business columns `with` (on the rows that carry them, not on
/// the others: a host or a stream name is on every row), most of its rows
/// carrying one of them.
fn product(table: &Table, profiles: &[Profile], free: &[u32], with: &[u32]) -> Option<u32> {
    if with.is_empty() {
        return None;
    }
    let together = |c: u32| {
        let (mut both, mut either) = (0u32, 0u32);
        for r in &table.rows {
            let p = r.get(c).is_some();
            let n = with.iter().any(|&w| r.get(w).is_some());
            both += u32::from(p && n);
            either += u32::from(p || n);
        }
        f64::from(both) / f64::from(either.max(1))
    };
    free.iter()
        .copied()
        .filter(|c| !with.contains(c))
        .filter(|&c| {
            let p = &profiles[c as usize];
            !p.is_numeric()
                && !p.is_meta()
                && p.phrase == 0
                && p.repeated >= 1
                && p.distinct * 2 <= p.present
        })
        .map(|c| (c, together(c)))
        .filter(|&(_, t)| t >= 0.5)
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(c, _)| c)
}

/// Relations that held over those tried.
type Checked = (u32, u32);

/// The (quantity, stock, stock after) columns of a choice.
type Columns = (u32, Option<u32>, u32);

/// The most numeric columns weighed as quantity, stock and level left.
const MAX_NUMERIC: usize = 16;

/// How many deductions check out under a choice of (quantity, stock,
/// after) columns, over how many were tried: per product, in time order,
/// a deduction's level left equals the last level logged minus its
/// quantity, or the level its holder last read minus it.
fn deductions_check(
    table: &Table,
    fit: &Fit,
    product: Option<u32>,
    q: u32,
    s: Option<u32>,
    a: u32,
) -> (u32, u32) {
    let h = fit.hypothesis;
    let mut level: HashMap<&str, f64> = HashMap::new();
    let mut read: HashMap<(&str, &str), f64> = HashMap::new();
    let (mut ok, mut tried) = (0, 0);
    for r in &table.rows {
        let p = product.and_then(|c| r.get(c)).unwrap_or("");
        let who = r.get(h.holder).unwrap_or("");
        // A lock step is no deduction, and a deduction takes a positive
        // quantity: a column that is 0 on every row (an exporter's
        // `DroppedAttributes`, `TraceFlags` "00") checks out trivially
        // against a level of 0 and is no quantity.
        let deduction = (number(r, Some(q)), number(r, Some(a)));
        if let (Some(qty), Some(after)) = deduction
            && qty > 0.0
            && kind_of(fit, r).is_none_or(|k| k == Kind::Work)
        {
            tried += 1;
            let global = level.get(p).map(|l| l - qty);
            let own = read.get(&(p, who)).map(|l| l - qty);
            if global == Some(after) || own == Some(after) {
                ok += 1;
            }
            level.insert(p, after);
        } else if let Some(n) = number(r, s) {
            level.insert(p, n);
            read.insert((p, who), n);
        }
    }
    (ok, tried)
}

/// Whether column `c` is on most rows of lock steps (acquires, renewals,
/// releases): a level left after a deduction is no field of those, while
/// an exporter's own number (`DroppedAttributes`, `TraceFlags`) is on
/// every record and would check out against a level of 0.
fn on_lock_steps(table: &Table, fit: &Fit, c: u32) -> bool {
    let (mut on, mut lock) = (0u32, 0u32);
    for r in &table.rows {
        if kind_of(fit, r).is_some_and(|k| k != Kind::Work) {
            lock += 1;
            on += u32::from(r.get(c).is_some());
        }
    }
    lock > 0 && on * 2 > lock
}

/// Whether columns `x` and `y` hold the same value on every row that has
/// both (and such rows exist): one field written twice (a message's pair
/// and its copy in the record's properties) plays one role, never a
/// quantity and the level left at once.
fn copies(table: &Table, x: u32, y: u32) -> bool {
    let mut both = 0u32;
    for r in &table.rows {
        if let (Some(a), Some(b)) = (r.get(x), r.get(y)) {
            if a != b {
                return false;
            }
            both += 1;
        }
    }
    both > 0
}

/// How a choice ranks: the most deductions that check out, over the fewest
/// tried; then, between choices that check out alike, a level-left column
/// that varies (a column of one value, an exporter's `DroppedAttributes`
/// of 0, checks out wherever the level reaches it) and that fewer rows
/// carry (a deduction's own field, not one on every record).
fn rank(
    c: Checked,
    after: &Profile,
) -> (u32, std::cmp::Reverse<u32>, bool, std::cmp::Reverse<u32>) {
    (
        c.0,
        std::cmp::Reverse(c.1),
        after.distinct > 1,
        std::cmp::Reverse(after.present),
    )
}

/// Finds the business columns and steps for `fit`.
pub fn infer(table: &Table, fit: &Fit, hints: &[NameHint]) -> Business {
    let profiles = table.profiles();
    let free = free_columns(fit, hints, table.names.len());
    let numeric: Vec<u32> = free
        .iter()
        .copied()
        .filter(|&c| profiles[c as usize].is_numeric() && !profiles[c as usize].is_meta())
        .collect();
    let fencing = fencing(table, fit, &numeric);
    let mut numeric: Vec<u32> = numeric
        .into_iter()
        .filter(|&c| Some(c) != fencing)
        .collect();
    // The choices below are cubic in the numeric columns: a record of
    // thousands of number fields keeps the [`MAX_NUMERIC`] most present.
    if numeric.len() > MAX_NUMERIC {
        numeric.sort_by_key(|&c| (std::cmp::Reverse(profiles[c as usize].present), c));
        numeric.truncate(MAX_NUMERIC);
        numeric.sort_unstable();
    }
    let mut best: Option<(Checked, Columns)> = None;
    let on_lock_rows: Vec<u32> = numeric
        .iter()
        .copied()
        .filter(|&c| on_lock_steps(table, fit, c))
        .collect();
    let copied: Vec<(u32, u32)> = numeric
        .iter()
        .flat_map(|&x| numeric.iter().map(move |&y| (x, y)))
        .filter(|&(x, y)| x < y && copies(table, x, y))
        .collect();
    let copies = |x: u32, y: u32| copied.contains(&(x.min(y), x.max(y)));
    for &q in &numeric {
        for &a in &numeric {
            if a == q || on_lock_rows.contains(&a) || copies(q, a) {
                continue;
            }
            let stocks = numeric
                .iter()
                .copied()
                .filter(|&s| s != q && s != a && !copies(s, q) && !copies(s, a))
                .map(Some)
                .chain([None]);
            for s in stocks {
                let c = deductions_check(table, fit, None, q, s, a);
                if c.0 > 0
                    && best.is_none_or(|(b, (_, _, ba))| {
                        rank(c, &profiles[a as usize]) > rank(b, &profiles[ba as usize])
                    })
                {
                    best = Some((c, (q, s, a)));
                }
            }
        }
    }
    let (checked, (quantity, stock, stock_after)) = match best {
        Some((c, (q, s, a))) => (c, (Some(q), s, Some(a))),
        None => ((0, 0), (None, None, None)),
    };
    let with: Vec<u32> = [quantity, stock, stock_after]
        .into_iter()
        .flatten()
        .collect();
    let product = product(table, &profiles, &free, &with);
    let taken: Vec<u32> = [fencing, quantity, stock, stock_after, product]
        .into_iter()
        .flatten()
        .collect();
    let order_id = order_id(table, &profiles, &free, &taken);

    let mut b = Business {
        product,
        quantity,
        stock,
        stock_after,
        order_id,
        fencing,
        steps: Vec::new(),
        checked,
    };
    b.steps = steps(table, fit, &b);
    b
}

/// The step of every event value that is no lock step, by the business
/// columns its rows carry (most of them): an order id makes an order; a
/// level left, or a quantity alone, a deduction; a level alone a read, or
/// the initial stock when no holder is on the row.
fn steps(table: &Table, fit: &Fit, b: &Business) -> Vec<(String, Step)> {
    let h = fit.hypothesis;
    let mut votes: HashMap<&str, HashMap<Step, u32>> = HashMap::new();
    for r in &table.rows {
        let Some(v) = r.get(h.event) else { continue };
        if matches!(kind_of(fit, r), Some(k) if k != Kind::Work) {
            continue;
        }
        let has = |c: Option<u32>| c.and_then(|c| r.get(c)).is_some();
        let step = if has(b.order_id) {
            Step::OrderCreated
        } else if has(b.stock_after) || (has(b.quantity) && b.quantity.is_some()) {
            Step::StockDeducted
        } else if has(b.stock) {
            if r.get(h.holder).is_some() {
                Step::StockRead
            } else {
                Step::StockInitialized
            }
        } else {
            Step::Activity
        };
        *votes.entry(v).or_default().entry(step).or_default() += 1;
    }
    let mut out: Vec<(String, Step)> = votes
        .into_iter()
        .map(|(v, n)| {
            let step = n
                .into_iter()
                .max_by_key(|&(s, c)| (c, std::cmp::Reverse(s)))
                .map_or(Step::Activity, |x| x.0);
            (v.to_string(), step)
        })
        .collect();
    out.sort();
    out
}

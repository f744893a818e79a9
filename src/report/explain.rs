//! One paragraph per incident, in the spirit of Jepsen's Elle anomaly
//! explanations: who held the lock, when and why their lease ended, who
//! acquired it next, what both sold, and what it cost. [`explain`] decides
//! once what the paragraph says ([`Explanation`]); `en.rs` and `zh.rs`
//! word it.

mod en;
mod zh;

use super::{LossText, ReportInput, format_ms, format_overlap_ms};
use crate::analysis::{Cause, Incident, Sale, WindowEnd};
use crate::model::Message;

/// Sales named in a list before "and N more".
const LISTED_SALES: usize = 6;

/// The facts of an incident's explanation, in the order it says them:
/// names and times as the report prints them.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// The holder of the incident's first overlap that held first.
    pub holder: String,
    /// Its host, when the log names one.
    pub host: Option<String>,
    /// The lock key.
    pub key: String,
    /// When it acquired.
    pub acquired: String,
    /// Its TTL (`format_ms`), when known.
    pub ttl: Option<String>,
    /// Its renewals.
    pub renewals: usize,
    /// Why its lock ended while it still believed it held it.
    pub cause: Cause,
    /// When its lock ended on the server.
    pub lock_end: String,
    /// Who deleted it, for a foreign release (`None`: not in the log).
    pub deleted_by: Option<String>,
    /// Until when it believed it held the lock.
    pub believed_until: String,
    /// How that belief ended.
    pub window_end: WindowEnd,
    /// The holder that acquired next.
    pub next_holder: String,
    /// When it acquired.
    pub next_acquired: String,
    /// Holders of the incident besides these two.
    pub more_holders: usize,
    /// All the incident's holders.
    pub holders: usize,
    /// How long holders believed they held the key at once (`format_ms`).
    pub duration: String,
    /// Overlap pairs, listed or not.
    pub pairs: usize,
    /// What was sold, and the loss.
    pub sales: SalesStory,
}

/// What an incident sold: inside its window, tied to it after, and the
/// oversold units' cost.
#[derive(Clone, Debug, PartialEq)]
pub struct SalesStory {
    /// The sales inside the window.
    pub inside: SaleList,
    /// The sales after it, tied to it (`analysis::attribute_oversell`).
    pub later: SaleList,
    /// Units sold beyond the stock.
    pub oversold_units: i64,
    /// Their cost.
    pub loss: LossText,
    /// True when a product sold has no stock level in the log (no initial
    /// stock, no stock after a sale): whether anything went beyond the
    /// stock is unknown, never "none".
    pub stock_unknown: bool,
}

/// Some sales: the first [`LISTED_SALES`] by name, and how many in all.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SaleList {
    /// The first sales.
    pub named: Vec<SaleName>,
    /// All of them.
    pub count: usize,
    /// Units they sold.
    pub units: i64,
}

/// A sale as the explanation names it.
#[derive(Clone, Debug, PartialEq)]
pub struct SaleName {
    /// Its order id; `None` for a stock deduction with none.
    pub order: Option<String>,
    /// Who sold it, when known.
    pub holder: Option<String>,
}

impl SaleList {
    /// Sales not named.
    pub fn unnamed(&self) -> usize {
        self.count.saturating_sub(self.named.len())
    }

    /// How many sales and units, in the explanation's words: `2 sales (4
    /// units)`, `2 笔（4 件）` with `zh`.
    pub fn counted(&self, zh: bool) -> String {
        if zh {
            zh::counted(self)
        } else {
            en::counted(self)
        }
    }
}

/// What the explanation of `incident` says; `None` for an incident
/// without a listed overlap.
pub fn explain(r: &ReportInput<'_>, incident: &Incident) -> Option<Explanation> {
    let a = r.analysis;
    let first = incident
        .overlaps
        .first()
        .and_then(|&o| a.overlaps.get(o.index()))?;
    let (earlier, later) = (&a.leases[first.earlier], &a.leases[first.later]);
    let s = |sym| r.log.strings.get(sym).to_string();
    let deleted_by = earlier
        .ended_by
        .and_then(|b| a.leases.get(b.index()))
        .map(|b| s(b.holder));
    Some(Explanation {
        holder: s(earlier.holder),
        host: earlier.host.map(s),
        key: s(incident.key),
        acquired: r.time(earlier.acquired_ns),
        ttl: earlier.ttl_ms.get().map(|t| format_ms(t as f64)),
        renewals: earlier.renewals_ns().len(),
        cause: first.cause,
        lock_end: r.time(earlier.lock_end_ns),
        deleted_by,
        believed_until: r.time(earlier.window_end_ns),
        window_end: earlier.window_end,
        next_holder: s(later.holder),
        next_acquired: r.time(later.acquired_ns),
        more_holders: incident.leases.len().saturating_sub(2),
        holders: incident.leases.len(),
        duration: format_overlap_ms(incident.duration_ms()),
        pairs: incident.overlaps.len() + incident.overlaps_unlisted,
        sales: incident_sales(r, incident),
    })
}

/// The incident's sales: those inside its window, and later ones tied to
/// it (a holder of the incident still believing it held the lock, or an
/// oversold sale using stock the overlap sold).
pub fn incident_sales(r: &ReportInput<'_>, incident: &Incident) -> SalesStory {
    let a = r.analysis;
    let sales: Vec<&Sale> = incident
        .sales
        .iter()
        .filter_map(|&i| a.sales.get(i.index()))
        .collect();
    let (inside, later): (Vec<&Sale>, Vec<&Sale>) = sales
        .iter()
        .partition(|x| (incident.start_ns..=incident.end_ns).contains(&x.at_ns));
    let list = |sales: &[&Sale]| SaleList {
        named: sales
            .iter()
            .take(LISTED_SALES)
            .map(|x| SaleName {
                order: x.order_id.map(|o| r.log.strings.get(o).to_string()),
                holder: x.holder.map(|h| r.log.strings.get(h).to_string()),
            })
            .collect(),
        count: sales.len(),
        units: sales.iter().map(|x| x.quantity).sum(),
    };
    let blind = |x: &&Sale| crate::analysis::stock_unknown(&a.products, x.product);
    SalesStory {
        inside: list(&inside),
        later: list(&later),
        oversold_units: incident.oversold_units,
        loss: LossText::of(incident.loss, &r.settings.currency),
        stock_unknown: sales.iter().any(blind),
    }
}

impl Message for Explanation {
    fn en(&self) -> String {
        en::explanation(self)
    }

    fn zh(&self) -> String {
        zh::explanation(self)
    }
}

/// Explains `incident` in plain English: who held the lock first and how
/// its lease ended, who acquired it next and for how long both believed
/// they held it, then what was sold and what it cost. Empty for an
/// incident without a listed overlap.
pub fn explain_incident(r: &ReportInput<'_>, incident: &Incident) -> String {
    explain_incident_in(r, incident, false)
}

/// [`explain_incident`] in Simplified Chinese with `zh`.
pub fn explain_incident_in(r: &ReportInput<'_>, incident: &Incident, zh: bool) -> String {
    explain(r, incident).map_or_else(String::new, |e| e.text(zh))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::english_left;

    fn story(cause: Cause, window_end: WindowEnd) -> Explanation {
        let s = String::from;
        let sale = |order: Option<&str>| SaleName {
            order: order.map(str::to_string),
            holder: Some(s("w-1")),
        };
        Explanation {
            holder: s("w-1"),
            host: Some(s("web-01")),
            key: s("lock:a"),
            acquired: s("T0"),
            ttl: Some(s("1.0 s")),
            renewals: 2,
            cause,
            lock_end: s("T1"),
            deleted_by: None,
            believed_until: s("T2"),
            window_end,
            next_holder: s("w-2"),
            next_acquired: s("T3"),
            more_holders: 1,
            holders: 3,
            duration: s("900 ms"),
            pairs: 2,
            sales: SalesStory {
                inside: SaleList {
                    named: vec![sale(Some("o-1")), sale(None)],
                    count: 8,
                    units: 9,
                },
                later: SaleList {
                    named: vec![sale(Some("o-9"))],
                    count: 1,
                    units: 1,
                },
                oversold_units: 2,
                loss: LossText {
                    amount: s("¥?"),
                    known: false,
                    stock_unknown: false,
                },
                stock_unknown: false,
            },
        }
    }

    #[test]
    fn sales_of_a_product_without_a_stock_level_are_never_within_the_stock() {
        let mut e = story(Cause::LeaseExpired, WindowEnd::Released);
        e.sales.oversold_units = 0;
        e.sales.stock_unknown = true;
        let (en, zh) = (e.en(), e.zh());
        assert!(
            en.contains("Whether any of it went beyond the stock is unknown"),
            "{en}"
        );
        assert!(!en.contains("None of it was beyond the stock"), "{en}");
        assert!(zh.contains("是否超出库存未知"), "{zh}");
        e.sales.stock_unknown = false;
        assert!(e.en().contains("None of it was beyond the stock"));
    }

    #[test]
    fn every_cause_and_belief_end_reads_in_both_languages() {
        let ends = [
            WindowEnd::Released,
            WindowEnd::ReleaseFailed,
            WindowEnd::LockLost,
            WindowEnd::LastEvent,
            WindowEnd::Reacquired,
        ];
        let causes = [
            Cause::LeaseExpired,
            Cause::ForeignRelease,
            Cause::TtlUnknown,
            Cause::LockVanished,
        ];
        let values = [
            "--unit-loss",
            "w-1",
            "w-2",
            "web-01",
            "lock:a",
            "T0",
            "T1",
            "T2",
            "T3",
            "o-1",
            "o-9",
            "ms",
            "s",
        ];
        for (cause, end) in causes.into_iter().zip(ends.into_iter().cycle()) {
            let e = story(cause, end);
            let (en, zh) = (e.en(), e.zh());
            assert!(english_left(&zh, &values).is_empty(), "{zh}");
            for v in ["w-1", "w-2", "lock:a", "T1", "T2", "T3", "o-1", "o-9"] {
                assert!(en.contains(v) && zh.contains(v), "{v}: {en} / {zh}");
            }
            assert!(
                en.contains("and 6 more") && zh.contains("等另外 6 笔"),
                "{en}"
            );
            assert!(en.contains("2 units went beyond the stock, costing ¥? (no --unit-loss)"));
            assert!(
                zh.contains("其中 2 件超出库存，损失 ¥?（未给出 --unit-loss）"),
                "{zh}"
            );
        }
    }
}

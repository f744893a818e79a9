//! What makes a load and its analysis an error rather than an answer
//! ([`Problem`], exit 2): "no incident" would then be a false all-clear.
//! Every printer and the window say each problem first, in its language.

use super::{Analysis, FindingKind};
use crate::model::{LoadedLog, Message, SourceNote, Unreadable};

/// One reason a run is no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A file from which no event could be read.
    Unreadable {
        /// The file's name, as given.
        file: String,
        /// What was recognised, and what would make it readable.
        why: Unreadable,
    },
    /// No file gave a lock event: business lines alone show no overlap.
    NoLockEvent,
    /// Lock events were read, but none names both a lock key and a holder.
    NoKeyAndHolder,
    /// Lock events name keys and holders, but no hold could be built: only
    /// renewals, releases or failed acquires (a log that starts inside the
    /// holds).
    NoHold {
        /// Holders that renew or release with no acquire before
        /// (`no_acquire` findings).
        orphans: usize,
    },
    /// Overlaps were found, but no stock deduction or order was read while
    /// `lines` lines of no known kind carry a quantity or an order id: the
    /// business steps are written in words no list has, so the oversold
    /// units and the loss are unknown, not 0 (the overlaps stand).
    BusinessUnread {
        /// Lines of no known kind with a quantity or an order id.
        lines: usize,
        /// The first of them, `file:line`.
        first: String,
    },
    /// Rows `lockreplay fetch` pulled out of a table (a
    /// [`SourceNote::Pulled`] source) give overlaps but not their loss
    /// (docs/semantics.md §7): no sale in them (`sold` 0), or `blind` of the
    /// `sold` products sold have no stock level in them. The table lacked
    /// the business rows, or they were not pulled: the oversold units and
    /// the loss are unknown, not 0 (the overlaps stand).
    PulledLossUnknown {
        /// Products sold in the pulled rows.
        sold: usize,
        /// Of them, those without any stock level (no initial stock, no
        /// stock after a sale).
        blind: usize,
    },
    /// Incidents sold products while no stock level was read anywhere in
    /// the log (no initial stock, no stock read, no `stock_after`): whether
    /// any of it went beyond the stock is unknown, so the oversold units and
    /// the loss are unknown, not 0 (docs/semantics.md §7; the overlaps
    /// stand).
    StockUnknown {
        /// Those products, sorted (at most [`NAMED_PRODUCTS`]).
        products: Vec<String>,
        /// How many there are in all.
        count: usize,
    },
    /// No incident, while most lines of a file (more than
    /// [`UNCLASSIFIED_SHARE`] of the lines read) became activity of no known
    /// kind (`Activity`: a lock key and a holder, no event word read): the
    /// lock's events may be written in words no list has, so "no incident"
    /// would be a false all-clear.
    MostlyUnclassified {
        /// The file's name, as given.
        file: String,
        /// Its lines read as `Activity`.
        activity: u64,
        /// Its lines read.
        lines: u64,
    },
}

/// The share of a file's lines read as `Activity` above which a run with
/// no incident is no answer ([`Problem::MostlyUnclassified`]): "most
/// lines". Measured on every handed file (tests/fixtures, the handed
/// cases): at most 45 % in a file with an incident, 25 % in one without.
pub const UNCLASSIFIED_SHARE: f64 = 0.5;

/// Products a [`Problem::StockUnknown`] names before "and N more".
pub const NAMED_PRODUCTS: usize = 3;

/// The problems of `log` and its `analysis`, in this order: each file
/// nothing was read from; then, when some file was read, no lock event
/// anywhere, or no lock event naming both a key and a holder; then, when
/// none of these, a loss that is unknown (business lines unread, rows
/// pulled without the business rows, a product sold without a stock
/// level); then no hold built; then, with no incident, each file most of
/// whose lines are of no known kind. Empty when the analysis can be
/// trusted to say "no incident".
pub fn problems(log: &LoadedLog, analysis: &Analysis) -> Vec<Problem> {
    let mut out: Vec<Problem> = log
        .sources
        .iter()
        .filter(|s| s.unreadable.is_some())
        .filter_map(|s| {
            Some(Problem::Unreadable {
                file: s.name.clone(),
                why: Unreadable::of(s)?,
            })
        })
        .collect();
    if log.sources.iter().all(|s| s.lock_events == 0) && out.len() < log.sources.len() {
        out.push(Problem::NoLockEvent);
    } else if out.is_empty()
        && !log
            .events
            .iter()
            .any(|e| e.kind.is_lock() && e.key.is_some() && e.holder.is_some())
    {
        out.push(Problem::NoKeyAndHolder);
    }
    if out.is_empty()
        && let Some(p) = business_unread(log, analysis)
            .or_else(|| pulled_loss_unknown(log, analysis))
            .or_else(|| stock_unknown(log, analysis))
    {
        out.push(p);
    }
    if out.is_empty() && analysis.leases.is_empty() {
        let orphans = analysis
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::NoAcquire)
            .count();
        out.push(Problem::NoHold { orphans });
    }
    if out.is_empty() && analysis.incidents.is_empty() {
        out.extend(mostly_unclassified(log));
    }
    out
}

/// [`Problem::MostlyUnclassified`] for each file of which more than
/// [`UNCLASSIFIED_SHARE`] of the lines read became `Activity`, in file
/// order. One pass over the events.
fn mostly_unclassified(log: &LoadedLog) -> Vec<Problem> {
    let mut activity = vec![0u64; log.sources.len()];
    for e in &log.events {
        if e.kind == crate::model::EventKind::Activity
            && let Some(n) = activity.get_mut(usize::from(e.source.file))
        {
            *n += 1;
        }
    }
    log.sources
        .iter()
        .zip(activity)
        .filter(|(s, n)| *n > 0 && *n as f64 > UNCLASSIFIED_SHARE * s.lines_read as f64)
        .map(|(s, n)| Problem::MostlyUnclassified {
            file: s.name.clone(),
            activity: n,
            lines: s.lines_read,
        })
        .collect()
}

impl Problem {
    /// True when nothing trustworthy was read (every problem but
    /// [`Problem::BusinessUnread`], [`Problem::PulledLossUnknown`] and
    /// [`Problem::StockUnknown`], whose overlaps stand and whose loss is what
    /// is unknown): printers head it "not readable", the others "loss
    /// unknown".
    pub fn is_unreadable(&self) -> bool {
        !matches!(
            self,
            Problem::BusinessUnread { .. }
                | Problem::PulledLossUnknown { .. }
                | Problem::StockUnknown { .. }
        )
    }
}

/// [`Problem::StockUnknown`] when it holds: an incident whose loss is
/// [`crate::money::Loss::StockUnknown`] (a sale, and no stock level in the
/// log), naming the products it sold.
fn stock_unknown(log: &LoadedLog, analysis: &Analysis) -> Option<Problem> {
    let mut products: Vec<&str> = analysis
        .incidents
        .iter()
        .filter(|i| i.loss == crate::money::Loss::StockUnknown)
        .flat_map(|i| &i.sales)
        .filter_map(|&s| analysis.sales.get(s.index()))
        .filter(|x| super::stock_unknown(&analysis.products, x.product))
        .map(|x| log.strings.get_or_empty(x.product))
        .collect();
    products.sort_unstable();
    products.dedup();
    (!products.is_empty()).then(|| Problem::StockUnknown {
        count: products.len(),
        products: products
            .iter()
            .take(NAMED_PRODUCTS)
            .map(|p| p.to_string())
            .collect(),
    })
}

/// [`Problem::PulledLossUnknown`] when it holds: a source of rows pulled
/// by `lockreplay fetch`, an incident, and no sale or a product sold
/// without any stock level.
fn pulled_loss_unknown(log: &LoadedLog, analysis: &Analysis) -> Option<Problem> {
    let pulled = log.sources.iter().any(|s| {
        s.notes
            .iter()
            .any(|n| matches!(n, SourceNote::Pulled { .. }))
    });
    if !pulled || analysis.incidents.is_empty() {
        return None;
    }
    let sold: Vec<_> = analysis.products.iter().filter(|p| p.sales > 0).collect();
    let blind = sold
        .iter()
        .filter(|p| p.initial_stock.is_none() && p.final_stock.is_none())
        .count();
    (sold.is_empty() || blind > 0).then_some(Problem::PulledLossUnknown {
        sold: sold.len(),
        blind,
    })
}

/// [`Problem::BusinessUnread`] when it holds: an overlap, no stock
/// deduction and no order read anywhere, and lines of no known kind
/// (`Activity`) that carry a quantity or an order id.
fn business_unread(log: &LoadedLog, analysis: &Analysis) -> Option<Problem> {
    use crate::model::EventKind;
    if analysis.overlaps.is_empty()
        || log
            .events
            .iter()
            .any(|e| matches!(e.kind, EventKind::StockDeducted | EventKind::OrderCreated))
    {
        return None;
    }
    let unread: Vec<&crate::model::Event> = log
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Activity)
        .filter(|e| {
            let d = e.detail();
            d.quantity.is_some() || d.order_id.is_some()
        })
        .collect();
    let first = unread.first()?;
    Some(Problem::BusinessUnread {
        lines: unread.len(),
        first: format!("{}:{}", log.source_name(first.source), first.source.line),
    })
}

impl Message for Problem {
    fn en(&self) -> String {
        match self {
            Problem::Unreadable { file, why } => format!("{file}: {}", why.en()),
            Problem::NoLockEvent => "no lock event (acquire, renewal, release, lock lost) was read from any file: \
                 the business lines alone cannot show an overlap"
                .to_string(),
            Problem::NoKeyAndHolder => "lock events were read, but none names both a lock key and a holder: no hold can be built; name the key and holder fields in a mapping file (`lockreplay inspect FILE --write-mapping M`, edit it, then --mapping M)".to_string(),
            Problem::NoHold { orphans } => format!(
                "lock events were read, but no hold could be built: no acquire names a lock key and a holder \
                 ({orphans} holder(s) renew or release with no acquire before it, see the no_acquire findings; \
                 the others are failed acquires); the log may start inside the holds"
            ),
            Problem::BusinessUnread { lines, first } => format!(
                "overlaps were found, but no stock deduction or order was read, while {lines} line(s) of no \
                 known kind carry a quantity or an order id (the first at {first}): the oversold units and the \
                 loss are unknown, not 0; name those events in a mapping file (`[events] \"<name>\" = \
                 \"stock_deducted\"` or `\"order_created\"`)"
            ),
            Problem::MostlyUnclassified {
                file,
                activity,
                lines,
            } => format!(
                "{file}: {activity} of {lines} line(s) were read as activity of no known kind (a lock key \
                 and a holder, but no event word read): the lock's events may be written in words no list \
                 has, so \"no incident\" is no answer; see `lockreplay inspect {file}`, and name the events \
                 in a mapping file (`[events] \"<name>\" = \"acquired\"`, `\"released\"`...)"
            ),
            Problem::StockUnknown { products, count } => {
                let more = count.saturating_sub(products.len());
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                format!(
                    "the incidents sold {}{more} with no stock level read anywhere (no stock_initialized, \
                     stock read or stock_after): whether any of it went beyond the stock is unknown, so the \
                     oversold units and the loss are unknown, not 0; log the stock level, or name its field \
                     or event in a mapping file (`[fields] stock = \"<field>\"`, `[events] \"<name>\" = \
                     \"stock_initialized\"`)",
                    products.join(", ")
                )
            }
            Problem::PulledLossUnknown { sold, blind } => {
                let what = if *sold == 0 {
                    "the rows `lockreplay fetch` pulled hold no sale (no order and no stock deduction)"
                        .to_string()
                } else {
                    format!(
                        "{blind} of {sold} product(s) sold in the rows `lockreplay fetch` pulled have no \
                         stock level in them"
                    )
                };
                format!(
                    "{what}: the oversold units and the loss are unknown, not 0; oversell needs the stock \
                     level (stock_initialized, a stock read or stock_after) and the orders or deductions: pull \
                     the business rows with --business-table TABLE, or --business-where SQL for this table's \
                     other events"
                )
            }
        }
    }

    fn zh(&self) -> String {
        match self {
            Problem::Unreadable { file, why } => format!("{file}：{}", why.zh()),
            Problem::NoLockEvent => "所有文件中都没有读到锁事件（获取、续期、释放、锁丢失）：仅凭业务行无法显示重叠".to_string(),
            Problem::NoKeyAndHolder => "读到了锁事件，但没有一条同时给出锁键和持有者：无法构建任何持有；请在映射文件中指定锁键和持有者字段（`lockreplay inspect FILE --write-mapping M`，编辑后使用 --mapping M）".to_string(),
            Problem::NoHold { orphans } => format!(
                "读到了锁事件，但无法构建任何持有：没有一条获取事件同时给出锁键和持有者（{orphans} 个持有者在没有获取之前就续期或释放，见 no_acquire 发现；其余是获取失败）；日志可能从持有期间开始"
            ),
            Problem::BusinessUnread { lines, first } => format!(
                "发现了重叠，但没有读到任何扣减库存或订单，而有 {lines} 行未知类型的记录带有数量或订单号（第一行在 {first}）：超卖件数和损失未知，而不是 0；请在映射文件中指定这些事件（`[events] \"<名称>\" = \"stock_deducted\"` 或 `\"order_created\"`）"
            ),
            Problem::MostlyUnclassified {
                file,
                activity,
                lines,
            } => format!(
                "{file}：{lines} 行中有 {activity} 行被读作未知类型的活动（有锁键和持有者，但没有读到事件词）：锁事件可能用了列表之外的词，因此“没有事故”不是结论；请查看 `lockreplay inspect {file}`，并在映射文件中指定这些事件（`[events] \"<名称>\" = \"acquired\"`、`\"released\"`……）"
            ),
            Problem::StockUnknown { products, count } => {
                let more = count.saturating_sub(products.len());
                let more = if more > 0 {
                    format!("等 {count} 个商品")
                } else {
                    String::new()
                };
                format!(
                    "事故中售出了 {}{more}，但任何地方都没有读到其库存水平（没有 stock_initialized、库存读取或 stock_after）：是否超出库存未知，因此超卖件数和损失未知，而不是 0；请记录库存水平，或在映射文件中指定其字段或事件（`[fields] stock = \"<字段>\"`、`[events] \"<名称>\" = \"stock_initialized\"`）",
                    products.join("、")
                )
            }
            Problem::PulledLossUnknown { sold, blind } => {
                let what = if *sold == 0 {
                    "`lockreplay fetch` 拉取的行中没有任何销售（没有订单，也没有扣减库存）".to_string()
                } else {
                    format!("`lockreplay fetch` 拉取的行中售出的 {sold} 个商品里有 {blind} 个没有库存水平")
                };
                format!(
                    "{what}：超卖件数和损失未知，而不是 0；计算超卖需要库存水平（stock_initialized、库存读取或 stock_after）以及订单或扣减：请用 --business-table TABLE 拉取业务行，或用 --business-where SQL 拉取本表的其他事件"
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::english_left;

    #[test]
    fn every_problem_reads_in_chinese() {
        let mut info =
            crate::model::SourceInfo::new("/tmp/logs/nginx.log", crate::model::Dialect::Text);
        info.lines_read = 2;
        let cases = [
            (Problem::NoLockEvent, vec![]),
            (Problem::NoKeyAndHolder, vec!["--mapping", "M"]),
            (Problem::NoHold { orphans: 3 }, vec!["no_acquire"]),
            (
                Problem::Unreadable {
                    file: info.name.clone(),
                    why: Unreadable::of(&info).expect("unreadable"),
                },
                vec!["/tmp/logs/nginx.log", "text", "UTF-8", "--mapping", "FILE"],
            ),
            (
                Problem::BusinessUnread {
                    lines: 2,
                    first: "app.jsonl:4".to_string(),
                },
                vec![
                    "app.jsonl:4",
                    "stock_deducted",
                    "order_created",
                    "[events]",
                    "<名称>",
                ],
            ),
            (
                Problem::StockUnknown {
                    products: vec!["sku-1".to_string(), "sku-2".to_string()],
                    count: 2,
                },
                vec!["sku-1", "sku-2", "stock_initialized", "stock_after"],
            ),
            (
                Problem::StockUnknown {
                    products: vec!["a".to_string(), "b".to_string(), "c".to_string()],
                    count: 5,
                },
                vec!["stock_initialized", "stock_after", "a", "b", "c"],
            ),
            (
                Problem::MostlyUnclassified {
                    file: "app.log".to_string(),
                    activity: 7,
                    lines: 10,
                },
                vec!["app.log"],
            ),
            (
                Problem::PulledLossUnknown { sold: 0, blind: 0 },
                vec![
                    "stock_initialized",
                    "stock_after",
                    "--business-table",
                    "TABLE",
                    "--business-where",
                    "SQL",
                ],
            ),
            (
                Problem::PulledLossUnknown { sold: 3, blind: 1 },
                vec![
                    "stock_initialized",
                    "stock_after",
                    "--business-table",
                    "TABLE",
                    "--business-where",
                    "SQL",
                ],
            ),
        ];
        for (p, values) in &cases {
            let zh = p.zh();
            assert!(english_left(&zh, values).is_empty(), "{zh}");
            assert!(zh.contains('：'), "{zh}");
            assert_ne!(zh, p.en());
        }
        assert!(
            cases[3]
                .0
                .zh()
                .starts_with("/tmp/logs/nginx.log：读不出任何锁事件"),
            "{}",
            cases[3].0.zh()
        );
    }
}

#[cfg(test)]
mod same_as_ingest {
    use crate::model::Message;

    /// The sentence of each hostile fixture nothing could be read from is
    /// the one the ingest keeps in `SourceInfo::unreadable`.
    #[test]
    fn each_unreadable_file_is_worded_as_the_ingest_recorded_it() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile");
        let mut seen = 0;
        for f in std::fs::read_dir(&dir).expect("hostile").flatten() {
            if !f.path().is_file() {
                continue;
            }
            let opts = crate::ingest::IngestOptions::default();
            let progress = crate::ingest::Progress::default();
            let Ok(log) = crate::ingest::load_paths(&[f.path()], &opts, &progress) else {
                continue;
            };
            for s in &log.sources {
                let typed = crate::model::Unreadable::of(s).map(|u| u.en());
                assert_eq!(typed, s.unreadable, "{}", s.name);
                seen += usize::from(typed.is_some());
            }
        }
        assert!(seen > 3, "only {seen} unreadable files");
    }
}

//! The Markdown report for the incident write-up: the totals, the top
//! incidents by loss, the incidents per key and per cause, then a section
//! for each top incident (explanation, holds, orders, loss), findings and
//! stock; every incident is in incidents.csv and incidents.json. Pictures are linked when the caller drew them ([`MarkdownImages`]).

use super::escape::markdown_text as md_text;
use super::escape::markdown_with_code as md_ours;
use super::holders::HolderNames;
use super::{INFERRED_LEGEND, ReportInput, format_overlap_ms, inferred_suffix, snake_name};
use crate::analysis::{Incident, IncidentId, Lease, LeaseId};
use crate::model::message::phrase;
use crate::model::{Message, Phrase, Sym};

fn cell(s: &str) -> String {
    super::escape::markdown_code(s)
}

/// A holder's cell in the holds table: its label, the one every picture
/// and the window show ([`HolderNames`]), then its whole id in a code span
/// when the label is not the id (for searching the log).
fn holder_cell(r: &ReportInput<'_>, names: &HolderNames, holder: Sym) -> String {
    let id = r.log.strings.get(holder);
    match names.get(holder) {
        Some(label) if label != id => format!("{} (`{}`)", md_text(label), cell(id)),
        _ => format!("`{}`", cell(id)),
    }
}

/// A holder's cell in the pair and order tables: its label alone (labels
/// never collide; the holds table above gives each one's id).
fn holder_label(r: &ReportInput<'_>, names: &HolderNames, holder: Sym) -> String {
    let id = r.log.strings.get(holder);
    match names.get(holder) {
        Some(label) if label != id => md_text(label),
        _ => format!("`{}`", cell(id)),
    }
}

/// The pictures a Markdown report links to, as paths relative to the report;
/// none by default.
#[derive(Clone, Debug, Default)]
pub struct MarkdownImages<'a> {
    /// The overview timeline, shown under the title.
    pub timeline: Option<String>,
    /// The picture of each incident, by incident id.
    pub incidents: Vec<Option<String>>,
    /// Incidents left without a picture by the report folder's cap
    /// (`report::folder::MAX_INCIDENT_PICTURES`); said under the title.
    pub not_pictured: usize,
    /// Each key's overview picture: (key, file), shown after the summary.
    pub keys: Vec<(String, String)>,
    /// Incidents in the "top incidents" table and written out, the largest
    /// loss first; `None`: [`super::rank::TOP_INCIDENTS`].
    pub top: Option<usize>,
    /// The holders' labels the pictures use, when the caller made them
    /// already; `None`: made here ([`HolderNames::of`]).
    pub names: Option<&'a HolderNames>,
}

impl MarkdownImages<'_> {
    /// How many incidents the report leads with and writes out.
    pub fn top(&self) -> usize {
        self.top.unwrap_or(super::rank::TOP_INCIDENTS)
    }
}

/// The Markdown report, linking the pictures in `images`.
pub fn to_markdown(r: &ReportInput<'_>, images: &MarkdownImages) -> String {
    to_markdown_in(r, images, false)
}

/// The Markdown report in Simplified Chinese (`--lang zh`): headings,
/// table headers, narratives, causes and finding names in Chinese; ids,
/// times and log text as they are.
pub fn to_markdown_zh(r: &ReportInput<'_>, images: &MarkdownImages) -> String {
    to_markdown_in(r, images, true)
}

fn to_markdown_in(r: &ReportInput<'_>, images: &MarkdownImages<'_>, zh: bool) -> String {
    let made;
    let names = match images.names {
        Some(n) => n,
        None => {
            made = HolderNames::of(r.log, r.analysis);
            &made
        }
    };
    let mut out = String::new();
    summary(&mut out, zh, r, images.timeline.as_deref());
    let top = super::rank::top_by_loss(&r.analysis.incidents, images.top());
    incident_table(&mut out, zh, r, &top);
    by_key_table(&mut out, zh, r);
    by_cause_table(&mut out, zh, r);
    if images.not_pictured > 0 {
        super::text::line(
            &mut out,
            zh,
            phrase!(
                "> Pictures: {} of {} incidents have one (the largest loss first); draw any other with `lockreplay render --incident ID`.\n",
                "> 图片：{} 起事故（共 {} 起）配有图片（损失大的优先）；其余事故可用 `lockreplay render --incident ID` 绘制。\n"
            ),
            &[
                &(r.analysis.incidents.len() - images.not_pictured).to_string(),
                &r.analysis.incidents.len().to_string(),
            ],
        );
    }
    if !images.keys.is_empty() {
        super::text::line(
            &mut out,
            zh,
            phrase!("## Keys with incidents\n", "## 有事故的锁键\n"),
            &[],
        );
        for (key, file) in &images.keys {
            super::text::line(
                &mut out,
                zh,
                Phrase::same("![{}]({})\n"),
                &[&md_text(key), file],
            );
        }
    }
    for &id in &top {
        let inc = &r.analysis.incidents[id];
        let image = images.incidents.get(id.index()).cloned().flatten();
        incident_section(
            &mut out,
            (zh, names),
            r,
            inc,
            (image.as_deref(), rows_listed(top.len())),
        );
    }
    findings(&mut out, zh, r);
    suggested_alert(&mut out, zh, r);
    stock(&mut out, zh, r);
    warnings(&mut out, zh, r);
    sources(&mut out, zh, r);
    out
}

/// The title, the overview picture, the files and the summary table.
fn summary(out: &mut String, zh: bool, r: &ReportInput<'_>, timeline: Option<&str>) {
    let sm = &r.analysis.summary;
    super::text::line(
        out,
        zh,
        phrase!("# Lock incident report\n", "# 锁事故报告\n"),
        &[],
    );
    for p in r.not_readable(zh) {
        out.push_str(&format!("> **{}**\n\n", md_text(&p)));
    }
    if let Some(img) = timeline {
        super::text::line(
            out,
            zh,
            phrase!("![Timeline]({})\n", "![时间线]({})\n"),
            &[&img.to_string()],
        );
    }
    let files: Vec<&str> = r.log.sources.iter().map(|x| x.name.as_str()).collect();
    super::text::line(
        out,
        zh,
        phrase!("Source: {}\n", "来源：{}\n"),
        &[&(files.join(", ")).to_string()],
    );
    super::text::line(
        out,
        zh,
        phrase!(
            "| Incidents | Overlap pairs | Oversold | Loss | Near-misses | Warnings | Events | Keys | Holders |",
            "| 事故 | 重叠对 | 超卖 | 损失 | 险情 | 警告 | 事件 | 锁键 | 持有者 |"
        ),
        &[],
    );
    super::text::line(
        out,
        zh,
        Phrase::same("|---:|---:|---:|---:|---:|---:|---:|---:|---:|"),
        &[],
    );
    super::text::line(
        out,
        zh,
        Phrase::same("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n"),
        &[
            &sm.incidents.to_string(),
            &sm.overlap_pairs.to_string(),
            &super::oversold_count(sm.oversold_units, sm.loss),
            &r.loss(sm.loss, zh),
            &sm.near_misses.to_string(),
            &sm.warnings.to_string(),
            &sm.events.to_string(),
            &sm.keys.to_string(),
            &sm.holders.to_string(),
        ],
    );
    super::text::line(
        out,
        zh,
        phrase!(
            "**{} oversold, {} lost** (unit loss {} per oversold unit).\n",
            "**超卖 {}，损失 {}**（每超卖一件损失 {}）。\n"
        ),
        &[
            &super::text::oversold_in(zh, sm.oversold_units, sm.loss),
            &r.loss(sm.loss, zh),
            &r.unit_loss(zh),
        ],
    );
    if r.shows_inferred() {
        super::text::line(
            out,
            zh,
            Phrase::same("_{}_\n"),
            &[&INFERRED_LEGEND.get(zh).to_string()],
        );
    }
}

/// The top incidents by loss (`top`, in that order), one row each, and
/// where the others are when `top` leaves some out.
fn incident_table(out: &mut String, zh: bool, r: &ReportInput<'_>, top: &[IncidentId]) {
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym);
    if a.incidents.is_empty() {
        return;
    }
    super::text::line(
        out,
        zh,
        phrase!("## Top incidents by loss\n", "## 损失最大的事故\n"),
        &[],
    );
    super::text::line(
        out,
        zh,
        phrase!(
            "| Incident | Start | Key | Holders | Duration | Cause | Oversold | Loss |",
            "| 事故 | 开始 | 锁键 | 持有者 | 时长 | 原因 | 超卖 | 损失 |"
        ),
        &[],
    );
    super::text::line(
        out,
        zh,
        Phrase::same("|---|---|---|---:|---:|---|---:|---:|"),
        &[],
    );
    for &id in top {
        let inc = &a.incidents[id];
        super::text::line(
            out,
            zh,
            Phrase::same("| {} | {} | `{}` | {} | {} | {}{} | {} | {} |"),
            &[
                &(inc.label()).to_string(),
                &(r.time(inc.start_ns)).to_string(),
                &(cell(s(inc.key))).to_string(),
                &(inc.leases.len()).to_string(),
                &(format_overlap_ms(inc.duration_ms())).to_string(),
                &super::text::word(zh, inc.cause.as_str()),
                &inferred_suffix(r.incident_inferred(inc))
                    .get(zh)
                    .to_string(),
                &super::oversold_count(inc.oversold_units, inc.loss),
                &r.loss(inc.loss, zh),
            ],
        );
    }
    out.push('\n');
    if top.len() < a.incidents.len() {
        super::text::line(
            out,
            zh,
            phrase!(
                "> {} of {} incidents above and written out below (`report --top N` for more); every incident is in incidents.csv and incidents.json.\n",
                "> 上表列出并在下文详述 {} 起事故（共 {} 起；`report --top N` 可列出更多）；全部事故见 incidents.csv 和 incidents.json。\n"
            ),
            &[&top.len().to_string(), &a.incidents.len().to_string()],
        );
    }
}

/// The incidents per lock key (the [`super::rank::TOP_KEYS`] costliest,
/// the rest counted), when more than one incident.
fn by_key_table(out: &mut String, zh: bool, r: &ReportInput<'_>) {
    if r.analysis.incidents.len() < 2 {
        return;
    }
    let keys = super::rank::by_key(&r.analysis.incidents);
    super::text::line(
        out,
        zh,
        phrase!(
            "## Incidents by key\n\n| Key | Incidents | Oversold | Loss |\n|---|---:|---:|---:|",
            "## 按锁键\n\n| 锁键 | 事故 | 超卖 | 损失 |\n|---|---:|---:|---:|"
        ),
        &[],
    );
    for t in keys.iter().take(super::rank::TOP_KEYS) {
        let key = format!("`{}`", cell(r.log.strings.get(t.of)));
        total_row(out, zh, r, &key, t);
    }
    out.push('\n');
    if keys.len() > super::rank::TOP_KEYS {
        super::text::line(
            out,
            zh,
            phrase!(
                "> And {} more keys (incidents.csv has every incident's key).\n",
                "> 另有 {} 个锁键（每起事故的锁键见 incidents.csv）。\n"
            ),
            &[&(keys.len() - super::rank::TOP_KEYS).to_string()],
        );
    }
}

/// The incidents per cause, when more than one incident.
fn by_cause_table(out: &mut String, zh: bool, r: &ReportInput<'_>) {
    if r.analysis.incidents.len() < 2 {
        return;
    }
    super::text::line(
        out,
        zh,
        phrase!(
            "## Incidents by cause\n\n| Cause | Incidents | Oversold | Loss |\n|---|---:|---:|---:|",
            "## 按原因\n\n| 原因 | 事故 | 超卖 | 损失 |\n|---|---:|---:|---:|"
        ),
        &[],
    );
    for t in super::rank::by_cause(&r.analysis.incidents) {
        total_row(out, zh, r, &super::text::word(zh, t.of.as_str()), &t);
    }
    out.push('\n');
}

/// One row of a totals table: `name`, incidents, oversold units, loss.
fn total_row<T>(
    out: &mut String,
    zh: bool,
    r: &ReportInput<'_>,
    name: &str,
    t: &super::rank::Total<T>,
) {
    super::text::line(
        out,
        zh,
        Phrase::same("| {} | {} | {} | {} |"),
        &[
            &name.to_string(),
            &t.incidents.to_string(),
            &super::oversold_count(t.oversold_units, t.loss),
            &r.loss(t.loss, zh),
        ],
    );
}

/// An incident's section: its explanation, picture, holds, orders and loss.
fn incident_section(
    out: &mut String,
    (zh, names): (bool, &HolderNames),
    r: &ReportInput<'_>,
    inc: &Incident,
    (image, rows): (Option<&str>, usize),
) {
    let s = |sym| r.log.strings.get(sym);
    super::text::line(
        out,
        zh,
        phrase!("## {} on `{}`\n", "## {}：`{}`\n"),
        &[&(inc.label()).to_string(), &(cell(s(inc.key))).to_string()],
    );
    super::text::line(
        out,
        zh,
        Phrase::same("{}\n"),
        &[&md_text(&super::explain_incident_in(r, inc, zh))],
    );
    for c in super::evidence::citations_of(r, inc) {
        let why = md_text(&super::evidence::sentence(r, inc, c, zh));
        super::text::line(out, zh, phrase!("- Why: {}\n", "- 原因：{}\n"), &[&why]);
    }
    if let Some(img) = image {
        super::text::line(
            out,
            zh,
            phrase!("![{} timeline]({})\n", "![{} 时间线]({})\n"),
            &[&(inc.label()).to_string(), &img.to_string()],
        );
    }
    holds_table(out, (zh, names), r, (inc, rows));
    pairs_table(out, (zh, names), r, (inc, rows.min(PAIRS_LISTED)));
    if !inc.sales.is_empty() {
        orders_table(out, (zh, names), r, (inc, rows));
    }
    super::text::line(
        out,
        zh,
        phrase!(
            "Oversold: **{}** · loss: **{}**\n",
            "超卖：**{}** · 损失：**{}**\n"
        ),
        &[
            &super::text::oversold_in(zh, inc.oversold_units, inc.loss),
            &r.loss(inc.loss, zh),
        ],
    );
}

/// The holds of an incident: grant, TTL, renewals, how the lease and the
/// believed window ended.
fn holds_table(
    out: &mut String,
    (zh, names): (bool, &HolderNames),
    r: &ReportInput<'_>,
    (inc, rows): (&Incident, usize),
) {
    let s = |sym| r.log.strings.get(sym);
    super::text::line(
        out,
        zh,
        phrase!(
            "| Holder | Host | Granted | TTL | Renewals | Lease ended | Believed until | Hold vs TTL |",
            "| 持有者 | 主机 | 获取 | 过期时间 | 续期 | 租约结束 | 自认为持有至 | 持有/过期时间 |"
        ),
        &[],
    );
    super::text::line(
        out,
        zh,
        Phrase::same("|---|---|---|---:|---:|---|---|---:|"),
        &[],
    );
    let listed = listed_holds(r.analysis, inc, rows);
    for &l in &listed {
        let l: &Lease = &r.analysis.leases[l];
        let mark = inferred_suffix(l.inferred).get(zh);
        let ratio = l
            .ttl_ms
            .get()
            .filter(|&t| t > 0)
            .map_or("-".to_string(), |t| {
                format!("{:.0} %", 100.0 * l.hold_ms() / t as f64)
            });
        super::text::line(
            out,
            zh,
            Phrase::same("| {}{} | {} | {} | {} | {} | {} ({}) | {} ({}) | {} |"),
            &[
                &holder_cell(r, names, l.holder),
                &mark.to_string(),
                &md_text(l.host.map_or("", s)),
                &r.time_near(l.acquired_ns, inc.start_ns),
                &(l.ttl_ms
                    .get()
                    .map_or(phrase!("none", "无").get(zh).to_string(), |t| {
                        format!("{t} ms")
                    }))
                .to_string(),
                &(l.renewals_ns().len()).to_string(),
                &r.time_near(l.lock_end_ns, inc.start_ns),
                &super::text::word(zh, &snake_name(&l.lock_end)),
                &r.time_near(l.window_end_ns, inc.start_ns),
                &super::text::word(zh, &snake_name(&l.window_end)),
                &ratio.to_string(),
            ],
        );
    }
    out.push('\n');
    let more = inc.leases.len() - listed.len();
    if more > 0 {
        super::text::line(
            out,
            zh,
            phrase!(
                "_... {} more holds (the JSON report lists every one)_\n",
                "_…… 另有 {} 个持有（JSON 报告列出全部）_\n"
            ),
            &[&more.to_string()],
        );
    }
}

/// The holds an incident's table lists, in the incident's order: those of
/// its first `rows` overlap pairs, then the others, at most `rows` (all
/// the pairs' holds when they are more).
fn listed_holds(a: &crate::analysis::Analysis, inc: &Incident, rows: usize) -> Vec<LeaseId> {
    if inc.leases.len() <= rows {
        return inc.leases.clone();
    }
    let mut keep: std::collections::HashSet<LeaseId> = inc
        .overlaps
        .iter()
        .take(rows)
        .flat_map(|&o| [a.overlaps[o].earlier, a.overlaps[o].later])
        .collect();
    for &l in &inc.leases {
        if keep.len() >= rows {
            break;
        }
        keep.insert(l);
    }
    inc.leases
        .iter()
        .copied()
        .filter(|l| keep.contains(l))
        .collect()
}

/// Overlap pairs an incident's section lists at most.
pub const PAIRS_LISTED: usize = 20;

/// Rows each table of an incident's section lists (holds, pairs up to
/// [`PAIRS_LISTED`], sales) when `detailed` incidents have a section: a
/// big write-up's sections stay a page each (every row is in the JSON
/// report), so that twenty sections keep report.md under 100 KB, while
/// one incident's tables list up to 120 rows.
pub fn rows_listed(detailed: usize) -> usize {
    (120 / detailed.max(1)).max(6)
}

/// The overlap pairs of an incident (the first `listed`): who held
/// first, who acquired after, from when, for how long both believed, and
/// why.
fn pairs_table(
    out: &mut String,
    (zh, names): (bool, &HolderNames),
    r: &ReportInput<'_>,
    (inc, listed): (&Incident, usize),
) {
    let a = r.analysis;
    super::text::line(
        out,
        zh,
        phrase!(
            "| Earlier holder | Later holder | From | Both believed | Cause |",
            "| 先持有者 | 后持有者 | 开始 | 同时认为持有 | 原因 |"
        ),
        &[],
    );
    super::text::line(out, zh, Phrase::same("|---|---|---|---:|---|"), &[]);
    for &o in inc.overlaps.iter().take(listed) {
        let o = &a.overlaps[o];
        super::text::line(
            out,
            zh,
            Phrase::same("| {} | {} | {} | {} | {}{} |"),
            &[
                &holder_label(r, names, a.leases[o.earlier].holder),
                &holder_label(r, names, a.leases[o.later].holder),
                &r.time_near(o.start_ns, inc.start_ns),
                &format_overlap_ms(o.duration_ms()),
                &super::text::word(zh, o.cause.as_str()),
                &inferred_suffix(r.overlap_inferred(o)).get(zh).to_string(),
            ],
        );
    }
    out.push('\n');
    let more = (inc.overlaps.len() + inc.overlaps_unlisted).saturating_sub(listed);
    if more > 0 {
        super::text::line(
            out,
            zh,
            phrase!("_... {} more overlap pair(s)_\n", "_…… 另有 {} 对重叠_\n"),
            &[&more.to_string()],
        );
    }
}

/// The orders (or deductions) tied to an incident.
fn orders_table(
    out: &mut String,
    (zh, names): (bool, &HolderNames),
    r: &ReportInput<'_>,
    (inc, rows): (&Incident, usize),
) {
    let s = |sym| r.log.strings.get(sym);
    super::text::line(
        out,
        zh,
        phrase!(
            "| Order | Holder | At | Units | Oversold |",
            "| 订单 | 持有者 | 时间 | 件数 | 超卖 |"
        ),
        &[],
    );
    super::text::line(out, zh, Phrase::same("|---|---|---|---:|---:|"), &[]);
    let listed = listed_sales(r.analysis, inc, rows);
    for &i in &listed {
        let x = &r.analysis.sales[i];
        super::text::line(
            out,
            zh,
            Phrase::same("| {}{} | {} | {} | {} | {} |"),
            &[
                &md_text(
                    x.order_id
                        .map_or(phrase!("(deduction)", "（扣减）").get(zh), s),
                ),
                &inferred_suffix(r.sale_inferred(x)).get(zh).to_string(),
                &x.holder
                    .map_or("``".to_string(), |h| holder_label(r, names, h)),
                &r.time_near(x.at_ns, inc.start_ns),
                &x.quantity.to_string(),
                &x.oversold_units.to_string(),
            ],
        );
    }
    out.push('\n');
    let more = inc.sales.len() - listed.len();
    if more > 0 {
        super::text::line(
            out,
            zh,
            phrase!(
                "_... {} more sales (the JSON report lists every one)_\n",
                "_…… 另有 {} 笔销售（JSON 报告列出全部）_\n"
            ),
            &[&more.to_string()],
        );
    }
}

/// The sales an incident's table lists, in the incident's order: the
/// oversold ones first, then the others, at most `rows`.
fn listed_sales(
    a: &crate::analysis::Analysis,
    inc: &Incident,
    rows: usize,
) -> Vec<crate::analysis::SaleId> {
    if inc.sales.len() <= rows {
        return inc.sales.clone();
    }
    let oversold = inc.sales.iter().filter(|&&i| a.sales[i].oversold_units > 0);
    let others = inc
        .sales
        .iter()
        .filter(|&&i| a.sales[i].oversold_units <= 0);
    let keep: std::collections::HashSet<_> = oversold.chain(others).take(rows).collect();
    inc.sales
        .iter()
        .copied()
        .filter(|i| keep.contains(i))
        .collect()
}

/// The findings, when there are any.
fn findings(out: &mut String, zh: bool, r: &ReportInput<'_>) {
    let s = |sym| r.log.strings.get(sym);
    if r.analysis.findings.is_empty() {
        return;
    }
    super::text::line(out, zh, phrase!("## Findings\n", "## 发现\n"), &[]);
    super::text::line(
        out,
        zh,
        phrase!(
            "| Kind | At | Key | Detail |",
            "| 类型 | 时间 | 锁键 | 说明 |"
        ),
        &[],
    );
    super::text::line(out, zh, Phrase::same("|---|---|---|---|"), &[]);
    for f in &r.analysis.findings {
        super::text::line(
            out,
            zh,
            Phrase::same("| {}{} | {} | `{}` | {} |"),
            &[
                &super::text::word(zh, f.kind.as_str()),
                &inferred_suffix(r.finding_inferred(f)).get(zh).to_string(),
                &(r.time(f.at_ns)).to_string(),
                &(cell(f.key.map_or("", s))).to_string(),
                &md_text(&f.detail.text(zh)),
            ],
        );
    }
    out.push('\n');
}

/// The action item the incident calls for: the near-miss streak and the
/// overlap alert (docs/alerts.md), with the command that writes them for a
/// log store; only when there was an overlap or a near-miss.
fn suggested_alert(out: &mut String, zh: bool, r: &ReportInput<'_>) {
    let sm = &r.analysis.summary;
    if sm.overlap_pairs == 0 && sm.near_misses == 0 {
        return;
    }
    super::text::line(
        out,
        zh,
        phrase!("## Suggested alert\n", "## 建议的告警\n"),
        &[],
    );
    super::text::line(
        out,
        zh,
        phrase!(
            "- Alert when {} holds in a row on one lock key reach {} % of their TTL (near-miss streak), and on every overlap.",
            "- 同一锁键连续 {} 次持有达到 TTL 的 {} %（连续险情）时告警，每次重叠也告警。"
        ),
        &[
            &r.settings.near_miss_streak.max(1).to_string(),
            &format!("{:.0}", r.settings.near_miss_ratio * 100.0),
        ],
    );
    super::text::line(
        out,
        zh,
        phrase!(
            "- The rule for your log store: `lockreplay sql --alert STORE --mapping FILE` (STORE: clickhouse, duckdb, sls, loki, elasticsearch; docs/alerts.md).\n",
            "- 日志库的告警规则：`lockreplay sql --alert STORE --mapping FILE`（STORE：clickhouse、duckdb、sls、loki、elasticsearch；见 docs/alerts.md）。\n"
        ),
        &[],
    );
}

/// Stock accounting per product, when the log has any.
fn stock(out: &mut String, zh: bool, r: &ReportInput<'_>) {
    let s = |sym| r.log.strings.get(sym);
    if r.analysis.products.is_empty() {
        return;
    }
    super::text::line(out, zh, phrase!("## Stock\n", "## 库存\n"), &[]);
    super::text::line(
        out,
        zh,
        phrase!(
            "| Product | Initial | Sold | Oversold | Final | Lost updates |",
            "| 商品 | 初始 | 售出 | 超卖 | 最终 | 丢失更新 |"
        ),
        &[],
    );
    super::text::line(out, zh, Phrase::same("|---|---:|---:|---:|---:|---:|"), &[]);
    let listed = listed_products(&r.analysis.products);
    for p in listed.iter().copied() {
        let opt = |v: Option<i64>| v.map_or("?".to_string(), |v| v.to_string());
        super::text::line(
            out,
            zh,
            Phrase::same("| `{}` | {} | {} | {} | {} | {} |"),
            &[
                &(cell(
                    p.product
                        .map_or(phrase!("(unknown)", "（未知商品）").get(zh), s),
                ))
                .to_string(),
                &(opt(p.initial_stock)).to_string(),
                &p.sold.to_string(),
                &p.oversold.to_string(),
                &(opt(p.final_stock)).to_string(),
                &p.lost_updates.to_string(),
            ],
        );
    }
    out.push('\n');
    let more = r.analysis.products.len() - listed.len();
    if more > 0 {
        let rest_clean = r.analysis.products.iter().filter(|p| hit(p)).count() <= listed.len();
        let said = if rest_clean {
            phrase!(
                "_... {} more products, none oversold or with a lost update (the JSON report lists every one)_\n",
                "_…… 另有 {} 个商品，均无超卖或丢失更新（JSON 报告列出全部）_\n"
            )
        } else {
            phrase!(
                "_... {} more products (the JSON report lists every one)_\n",
                "_…… 另有 {} 个商品（JSON 报告列出全部）_\n"
            )
        };
        super::text::line(out, zh, said, &[&more.to_string()]);
    }
}

/// Products the Stock table lists: every one up to [`PRODUCTS_LISTED`];
/// past it, those that oversold or lost an update, most oversold first.
pub const PRODUCTS_LISTED: usize = 30;

/// A product that oversold or lost an update: what the Stock table keeps
/// past [`PRODUCTS_LISTED`].
fn hit(p: &crate::analysis::ProductOversell) -> bool {
    p.oversold > 0 || p.lost_updates > 0
}

/// [`PRODUCTS_LISTED`]'s rows of `products`.
fn listed_products(
    products: &[crate::analysis::ProductOversell],
) -> Vec<&crate::analysis::ProductOversell> {
    if products.len() <= PRODUCTS_LISTED {
        return products.iter().collect();
    }
    let mut kept: Vec<&crate::analysis::ProductOversell> =
        products.iter().filter(|p| hit(p)).collect();
    kept.sort_by_key(|p| std::cmp::Reverse(p.oversold));
    kept.truncate(PRODUCTS_LISTED);
    kept
}

/// The first 100 load warnings, when there are any.
fn warnings(out: &mut String, zh: bool, r: &ReportInput<'_>) {
    if r.log.warnings.total() == 0 {
        return;
    }
    super::text::line(
        out,
        zh,
        phrase!("## Warnings ({})\n", "## 警告（{}）\n"),
        &[&(r.log.warnings.total()).to_string()],
    );
    for w in r.log.warnings.kept().iter().take(100) {
        super::text::line(
            out,
            zh,
            Phrase::same("- `{}:{}`: {}"),
            &[
                &(cell(&w.file)).to_string(),
                &w.line.to_string(),
                &md_ours(&w.reason.text(zh)),
            ],
        );
    }
    out.push('\n');
}

/// What was read from each file, then its unreadable reason and notes.
fn sources(out: &mut String, zh: bool, r: &ReportInput<'_>) {
    super::text::line(
        out,
        zh,
        phrase!("## What was read\n", "## 读取了什么\n"),
        &[],
    );
    super::text::line(
        out,
        zh,
        phrase!(
            "| file | read as | layout | application record in | time field | events | lock events |\n|---|---|---|---|---|---:|---:|",
            "| 文件 | 读作 | 布局 | 应用记录位于 | 时间字段 | 事件 | 锁事件 |\n|---|---|---|---|---|---:|---:|"
        ),
        &[],
    );
    for src in &r.log.sources {
        let time = src
            .fields
            .iter()
            .find(|(role, _)| role == "time")
            .map(|(_, f)| {
                format!(
                    "`{}`{}",
                    cell(f),
                    src.time_resolution
                        .as_ref()
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default()
                )
            })
            .unwrap_or_else(|| phrase!("none", "无").get(zh).into());
        super::text::line(
            out,
            zh,
            Phrase::same("| `{}` | {} ({}) | {} | {} | {} | {} | {} |"),
            &[
                &(cell(&src.name)).to_string(),
                &(snake_name(&src.dialect)).to_string(),
                &src.encoding.to_string(),
                &(src
                    .layout
                    .as_deref()
                    .map(cell)
                    .unwrap_or_else(|| "-".into()))
                .to_string(),
                &(src
                    .payload_field
                    .as_deref()
                    .map(|p| format!("`{}`", cell(p)))
                    .unwrap_or_else(|| "-".into()))
                .to_string(),
                &time.to_string(),
                &src.events_loaded.to_string(),
                &src.lock_events.to_string(),
            ],
        );
    }
    for src in &r.log.sources {
        if let Some(u) = crate::model::Unreadable::of(src).filter(|_| src.unreadable.is_some()) {
            super::text::line(
                out,
                zh,
                phrase!("\n**Not readable: `{}`**: {}", "\n**无法读取：`{}`**：{}"),
                &[&(cell(&src.name)).to_string(), &md_ours(&u.text(zh))],
            );
        }
        for note in &src.notes {
            super::text::line(
                out,
                zh,
                Phrase::same("\n- `{}`: {}"),
                &[&(cell(&src.name)).to_string(), &md_ours(&note.text(zh))],
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::rows_listed;

    #[test]
    fn one_incident_lists_its_rows_twenty_list_a_page_each() {
        assert_eq!(rows_listed(1), 120);
        assert_eq!(rows_listed(0), 120);
        assert_eq!(rows_listed(5), 24);
        assert_eq!(rows_listed(20), 6);
        assert_eq!(rows_listed(200), 6);
    }
}

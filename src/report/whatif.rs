//! The what-if printers (`lockreplay whatif`, `whatif.md` in the report
//! folder): a side-by-side table of what happened, the model replayed as
//! logged, and each policy, in text, Markdown and JSON, with the model's
//! assumptions (docs/semantics.md §10).

use serde::Serialize;

use super::text::fill;
use super::{ReportInput, format_ms};
use crate::model::Phrase;
use crate::model::message::phrase;
use crate::whatif::{Outcome, Policy, WhatIf, WhatIfNote};

/// File name of the what-if section in the report folder.
pub const WHATIF_MD: &str = "whatif.md";

/// Schema name of the what-if JSON.
pub const WHATIF_SCHEMA: &str = "lockreplay-whatif/1";

/// The model in one paragraph, printed with every table.
pub const MODEL_NOTE: &str = "This is a model, not a measurement (docs/semantics.md §10): each \
holder keeps its logged work (when it asked for the lock, how long it worked, its stock reads and \
deductions); only the lock changes. A request that would find the lock taken waits, in arrival \
order, until it is free; its work and lines move by its wait. A holder that read too little \
stock does not sell; requests that never got the lock in the log are not replayed.";

/// [`MODEL_NOTE`] in Simplified Chinese (`--lang zh`).
const MODEL_NOTE_ZH: &str = "这是模型而非实测（docs/semantics.md §10）：每个持有者保持日志中的\
工作（何时请求锁、工作多久、读到和扣减的库存），只改变锁的行为。遇到锁被占用的请求按到达顺序\
等待，直到锁空闲；它的工作和日志行随等待时间顺延。读到库存不足的持有者不会售出；日志中从未\
获得锁的请求不参与推演。";

/// The default policies of `whatif` when none is named.
pub fn default_policies() -> Vec<Policy> {
    Policy::standard_set()
}

/// One row of the table.
struct Row {
    label: String,
    overlaps: String,
    oversold: String,
    loss: String,
    wait: String,
    timed_out: String,
    rejected: String,
    not_made: String,
}

fn rows(r: &ReportInput<'_>, w: &WhatIf, zh: bool) -> Vec<Row> {
    // `¥?` alone when unknown: the table stays narrow, and the flag's
    // name would be the only English in a Chinese table.
    let money = |v: crate::money::Loss| v.format(&r.settings.currency);
    let mut rows = vec![Row {
        label: phrase!("What happened (log)", "实际发生（日志）")
            .get(zh)
            .to_string(),
        overlaps: w.actual.overlap_pairs.to_string(),
        oversold: w.actual.oversold_units.to_string(),
        loss: money(w.actual.loss),
        wait: "-".to_string(),
        timed_out: "-".to_string(),
        rejected: "-".to_string(),
        not_made: "-".to_string(),
    }];
    for o in std::iter::once(&w.as_logged).chain(&w.policies) {
        let timed_out = if o.still_waiting > 0 {
            fill(
                zh,
                phrase!("{} (+{} never granted)", "{}（另有 {} 个始终未获得锁）"),
                &[&o.timed_out.to_string(), &o.still_waiting.to_string()],
            )
        } else {
            o.timed_out.to_string()
        };
        rows.push(Row {
            label: o.policy.label_in(zh),
            overlaps: o.overlap_pairs.to_string(),
            oversold: if o.oversold_kept > 0 {
                fill(
                    zh,
                    phrase!("{} ({} as logged)", "{}（其中 {} 按日志保留）"),
                    &[&o.oversold_units.to_string(), &o.oversold_kept.to_string()],
                )
            } else {
                o.oversold_units.to_string()
            },
            loss: money(o.loss),
            wait: format_ms(o.longest_wait_ms),
            timed_out,
            rejected: o.rejected_writes.to_string(),
            not_made: o.sales_not_made.to_string(),
        });
    }
    rows
}

const HEADERS: [Phrase; 8] = [
    phrase!("Policy", "策略"),
    phrase!("Overlaps", "重叠"),
    phrase!("Oversold", "超卖"),
    phrase!("Loss", "损失"),
    phrase!("Longest wait", "最长等待"),
    phrase!("Timed out", "等待超时"),
    phrase!("Fenced writes", "被拒写入"),
    phrase!("Sales not made", "未成交销售"),
];

fn cells(row: &Row) -> [String; 8] {
    [
        row.label.clone(),
        row.overlaps.clone(),
        row.oversold.clone(),
        row.loss.clone(),
        row.wait.clone(),
        row.timed_out.clone(),
        row.rejected.clone(),
        row.not_made.clone(),
    ]
}

/// The table's header cells in the report's language.
fn headers(zh: bool) -> [String; 8] {
    HEADERS.map(|h| h.get(zh).to_string())
}

/// The model mismatch line: the model's overlaps and oversold units, then
/// the log's.
const MODEL_MISMATCH: Phrase = phrase!(
    "Model check: replayed as logged, the model gives {} overlaps and {} \
oversold where the log shows {} and {}: compare the policies with the \"as logged (model)\" row, \
not with what happened.",
    "模型检查：按日志推演，模型给出 {} 对重叠、超卖 {} 件，而日志显示 {} 对和 {} 件：请把各策略与“按日志推演（模型）”一行比较，而不是与实际发生比较。"
);

/// The lines after the table: the wait limit, the model check, the notes.
fn footer(w: &WhatIf, zh: bool) -> Vec<String> {
    let mut out = vec![match w.wait_limit_ms {
        Some(ms) => fill(
            zh,
            phrase!(
                "Wait limit: {} ms (a request waiting longer gives up: no sale).",
                "等待上限：{} ms（等待更久的请求放弃，不成交）。"
            ),
            &[&ms.to_string()],
        ),
        None => phrase!(
            "Wait limit: none (a request waits as long as it takes).",
            "等待上限：无（请求一直等到获得锁）。"
        )
        .get(zh)
        .to_string(),
    }];
    if !w.model_matches() {
        let counts = [
            w.as_logged.overlap_pairs.to_string(),
            w.as_logged.oversold_units.to_string(),
            w.actual.overlap_pairs.to_string(),
            w.actual.oversold_units.to_string(),
        ];
        out.push(fill(zh, MODEL_MISMATCH, &counts.iter().collect::<Vec<_>>()));
    } else {
        out.push(
            phrase!(
                "Model check: replayed as logged, the model gives what the log shows.",
                "模型检查：按日志推演，模型给出的结果与日志一致。"
            )
            .get(zh)
            .to_string(),
        );
    }
    let note = |n: &WhatIfNote| fill(zh, phrase!("Note: {}.", "说明：{}。"), &[&n.text(zh)]);
    out.extend(w.notes.iter().map(note));
    out.push(if zh { MODEL_NOTE_ZH } else { MODEL_NOTE }.to_string());
    out
}

/// The what-if as plain text for the terminal, in Simplified Chinese with
/// `zh` (`whatif --lang zh`): its words, the policies' names and the notes.
pub fn whatif_text(r: &ReportInput<'_>, w: &WhatIf, zh: bool) -> String {
    let warning: String = r
        .not_readable(zh)
        .iter()
        .map(|p| format!("{p}\n"))
        .collect();
    warning + &whatif_table_text(r, w, zh)
}

/// [`whatif_text`] without the not-readable lines.
fn whatif_table_text(r: &ReportInput<'_>, w: &WhatIf, zh: bool) -> String {
    let rows = rows(r, w, zh);
    let table: Vec<[String; 8]> = std::iter::once(headers(zh))
        .chain(rows.iter().map(cells))
        .collect();
    let mut width = [0usize; HEADERS.len()];
    for row in &table {
        for (c, cell) in row.iter().enumerate() {
            width[c] = width[c].max(super::text::columns(cell));
        }
    }
    let mut out = phrase!(
        "What-if: the incident replayed under other lock policies\n\n",
        "假设推演：在其他锁策略下重放事故\n\n"
    )
    .get(zh)
    .to_string();
    for row in &table {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = width[c] - super::text::columns(cell);
            if c == 0 {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str("  ");
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push('\n');
    for line in footer(w, zh) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The what-if as Markdown (the report folder's `whatif.md`), in
/// Simplified Chinese with `zh`.
pub fn whatif_markdown(r: &ReportInput<'_>, w: &WhatIf, zh: bool) -> String {
    let mut out = phrase!(
        "# What-if: the incident under other lock policies\n\n",
        "# 假设推演：其他锁策略下的事故\n\n"
    )
    .get(zh)
    .to_string();
    for p in r.not_readable(zh) {
        out.push_str(&format!("> **{}**\n\n", super::escape::markdown_text(&p)));
    }
    out.push_str(&format!("| {} |\n", headers(zh).join(" | ")));
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for row in rows(r, w, zh) {
        let c = cells(&row).map(|s| s.replace('|', "\\|"));
        out.push_str(&format!("| {} |\n", c.join(" | ")));
    }
    out.push('\n');
    for line in footer(w, zh) {
        out.push_str(&line);
        out.push_str("\n\n");
    }
    out
}

#[derive(Serialize)]
struct JsonRow<'a> {
    label: &'a str,
    policy: &'a Policy,
    overlap_pairs: usize,
    incidents: usize,
    oversold_units: i64,
    oversold_kept: i64,
    loss: crate::money::Loss,
    longest_wait_ms: f64,
    timed_out: usize,
    still_waiting: usize,
    rejected_writes: usize,
    sales_not_made: usize,
}

impl<'a> JsonRow<'a> {
    fn of(o: &'a Outcome) -> JsonRow<'a> {
        JsonRow {
            label: &o.label,
            policy: &o.policy,
            overlap_pairs: o.overlap_pairs,
            incidents: o.incidents,
            oversold_units: o.oversold_units,
            oversold_kept: o.oversold_kept,
            loss: o.loss,
            longest_wait_ms: o.longest_wait_ms,
            timed_out: o.timed_out,
            still_waiting: o.still_waiting,
            rejected_writes: o.rejected_writes,
            sales_not_made: o.sales_not_made,
        }
    }
}

/// The what-if as JSON (schema [`WHATIF_SCHEMA`]): what happened, the
/// model as logged, one row per policy, the notes.
pub fn whatif_json(r: &ReportInput<'_>, w: &WhatIf) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        schema: &'a str,
        currency: &'a str,
        unit_loss: Option<f64>,
        wait_limit_ms: Option<i64>,
        model: &'a str,
        model_matches_log: bool,
        actual: &'a crate::whatif::Actual,
        as_logged: JsonRow<'a>,
        policies: Vec<JsonRow<'a>>,
        notes: &'a [WhatIfNote],
    }
    let doc = Doc {
        schema: WHATIF_SCHEMA,
        currency: &r.settings.currency,
        unit_loss: r.settings.unit_loss,
        wait_limit_ms: w.wait_limit_ms,
        model: MODEL_NOTE,
        model_matches_log: w.model_matches(),
        actual: &w.actual,
        as_logged: JsonRow::of(&w.as_logged),
        policies: w.policies.iter().map(JsonRow::of).collect(),
        notes: &w.notes,
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|e| {
        format!("{{\"schema\": \"{WHATIF_SCHEMA}\", \"error\": \"cannot encode: {e}\"}}")
    });
    s.push('\n');
    s
}

/// Writes the report folder's what-if section ([`WHATIF_MD`]): the standard
/// policies ([`Policy::standard_set`]) with no wait limit, atomically and
/// never over `inputs`; in Simplified Chinese with `zh` (`report --lang zh`).
///
/// # Errors
/// When the file cannot be written.
pub fn write_whatif_section(
    r: &ReportInput<'_>,
    dir: &std::path::Path,
    inputs: &[std::path::PathBuf],
    zh: bool,
) -> anyhow::Result<()> {
    let w = crate::whatif::what_if(r.log, r.analysis, r.settings, &default_policies(), None);
    crate::fsio::write_atomic(
        &dir.join(WHATIF_MD),
        whatif_markdown(r, &w, zh).as_bytes(),
        inputs,
    )
}

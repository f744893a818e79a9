//! The terminal report: a summary line, one block per incident, findings,
//! stock per product and warnings.

use super::{INFERRED_LEGEND, ReportInput, format_overlap_ms, inferred_suffix, units};
use crate::model::message::phrase;
use crate::model::{Message, Phrase};
use crate::money::Loss;

/// Appends `template` in the report's language with each `{}` replaced
/// by the next of `args` ([`fill`]), and a newline.
pub(super) fn line(out: &mut String, zh: bool, template: Phrase, args: &[&String]) {
    out.push_str(&fill(zh, template, args));
    out.push('\n');
}

/// `template` in Chinese when `zh`, else in English, with each `{}`
/// replaced by the next of `args`, a line feed in an argument written as
/// `\u{a}`: arguments are names and values from the log, and a line feed
/// in a file name would print a fake report line.
pub(super) fn fill(zh: bool, template: Phrase, args: &[&String]) -> String {
    let args: Vec<std::borrow::Cow<'_, str>> = args
        .iter()
        .map(|a| {
            if a.contains('\n') {
                a.replace('\n', "\\u{a}").into()
            } else {
                a.as_str().into()
            }
        })
        .collect();
    let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
    template.fill(zh, &args)
}

/// The plain-text report.
pub fn to_text(r: &ReportInput<'_>) -> String {
    to_text_in(r, false)
}

/// The plain-text report in Simplified Chinese (`--lang zh`): the same
/// lines, their words, the narratives, causes and finding names in
/// Chinese; ids, times and log text as they are.
pub fn to_text_zh(r: &ReportInput<'_>) -> String {
    to_text_in(r, true)
}

/// `n` units in the report's language: `1 unit`, `3 units`, `3 件`.
pub(super) fn units_in(zh: bool, n: i64) -> String {
    if zh { format!("{n} 件") } else { units(n) }
}

/// `n` oversold units of an incident or a total whose loss is `loss`, in
/// the report's language ([`super::oversold_count`]: `? units` when the
/// stock level is unknown).
pub(super) fn oversold_in(zh: bool, n: i64, loss: Loss) -> String {
    match (loss, zh) {
        (Loss::StockUnknown, true) => format!("{} 件", super::oversold_count(n, loss)),
        (Loss::StockUnknown, false) => format!("{} units", super::oversold_count(n, loss)),
        _ => units_in(zh, n),
    }
}

/// `s` padded with spaces to `columns` terminal columns: East Asian wide
/// characters (CJK, fullwidth forms) take two, so Chinese names line up
/// with English ones (`format!("{:<18}")` counts characters).
pub(super) fn pad_to_columns(s: &str, columns: usize) -> String {
    format!(
        "{s}{}",
        " ".repeat(columns.saturating_sub(self::columns(s)))
    )
}

/// The terminal columns `s` takes: two for each East Asian wide character.
pub(super) fn columns(s: &str) -> usize {
    let wide = |c: char| {
        matches!(c, '\u{1100}'..='\u{115F}' | '\u{2E80}'..='\u{A4CF}' | '\u{AC00}'..='\u{D7A3}'
            | '\u{F900}'..='\u{FAFF}' | '\u{FE30}'..='\u{FE4F}' | '\u{FF00}'..='\u{FF60}'
            | '\u{FFE0}'..='\u{FFE6}')
    };
    s.chars().map(|c| if wide(c) { 2 } else { 1 }).sum()
}

/// A report word in the report's language.
pub(super) fn word(zh: bool, w: &str) -> String {
    if zh {
        super::zh::term(w).unwrap_or(w).to_string()
    } else {
        w.to_string()
    }
}

fn to_text_in(r: &ReportInput<'_>, zh: bool) -> String {
    let mut whole = String::new();
    let done = text_in(r, zh, &mut |part: &str| {
        whole.push_str(part);
        Ok::<(), std::convert::Infallible>(())
    });
    match done {
        Ok(()) => whole,
        Err(never) => match never {},
    }
}

/// Writes the text report (Chinese when `zh`) to `w` a part at a time,
/// each part (the head, one incident, the rest) passed through
/// [`super::escape::terminal`] on its way, so a report of many incidents is
/// never whole in memory: at 1 M overlap-heavy events the whole text was
/// 38 MB, 18 % of the peak heap (massif). The bytes are those of
/// `terminal(&to_text(r))`.
///
/// # Errors
/// The first error of `w`.
pub fn write_text(
    r: &ReportInput<'_>,
    zh: bool,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    text_in(r, zh, &mut |part: &str| {
        w.write_all(super::escape::terminal(part).as_bytes())
    })
}

/// The text report in parts, each handed to `emit` once complete.
fn text_in<E>(
    r: &ReportInput<'_>,
    zh: bool,
    emit: &mut dyn FnMut(&str) -> Result<(), E>,
) -> Result<(), E> {
    let mut out = String::new();
    for p in r.not_readable(zh) {
        out.push_str(&p);
        out.push('\n');
    }
    summary_lines(&mut out, r, zh);
    emit(&out)?;
    for inc in &r.analysis.incidents {
        out.clear();
        incident_lines(&mut out, r, zh, inc);
        emit(&out)?;
    }
    out.clear();
    findings_and_stock(&mut out, r, zh);
    warning_lines(&mut out, r, zh);
    source_lines(&mut out, r, zh);
    emit(&out)
}

/// The two summary lines and the inferred legend.
fn summary_lines(out: &mut String, r: &ReportInput<'_>, zh: bool) {
    let sm = &r.analysis.summary;
    line(
        out,
        zh,
        phrase!(
            "lockreplay: {} events from {} file(s); {} holders on {} lock key(s)",
            "lockreplay：{} 条事件，来自 {} 个文件；{} 个持有者，{} 个锁键"
        ),
        &[
            &sm.events.to_string(),
            &(r.log.sources.len()).to_string(),
            &sm.holders.to_string(),
            &sm.keys.to_string(),
        ],
    );
    line(
        out,
        zh,
        phrase!(
            "{} incident(s) · {} overlap pair(s) · {} oversold · {} lost · {} near-miss(es) · {} warning(s)",
            "{} 起事故 · {} 对重叠 · 超卖 {} · 损失 {} · {} 次险情 · {} 条警告"
        ),
        &[
            &sm.incidents.to_string(),
            &sm.overlap_pairs.to_string(),
            &oversold_in(zh, sm.oversold_units, sm.loss),
            &r.loss(sm.loss, zh),
            &sm.near_misses.to_string(),
            &sm.warnings.to_string(),
        ],
    );
    if r.shows_inferred() {
        line(
            out,
            zh,
            Phrase::same("{}"),
            &[&INFERRED_LEGEND.get(zh).to_string()],
        );
    }
}

/// One incident: its line, explanation, overlap pairs (the first 20) and loss.
fn incident_lines(
    out: &mut String,
    r: &ReportInput<'_>,
    zh: bool,
    inc: &crate::analysis::Incident,
) {
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym);
    line(
        out,
        zh,
        phrase!(
            "\n{}  {}  {} -> {}  ({})  {}{}",
            "\n{}  {}  {} -> {}  （{}）  {}{}"
        ),
        &[
            &(inc.label()).to_string(),
            &(s(inc.key)).to_string(),
            &(r.time(inc.start_ns)).to_string(),
            &(r.time(inc.end_ns)).to_string(),
            &(format_overlap_ms(inc.duration_ms())).to_string(),
            &word(zh, inc.cause.as_str()),
            &inferred_suffix(r.incident_inferred(inc))
                .get(zh)
                .to_string(),
        ],
    );
    line(
        out,
        zh,
        Phrase::same("  {}"),
        &[&super::explain_incident_in(r, inc, zh)],
    );
    for c in super::evidence::citations_of(r, inc) {
        let why = super::evidence::sentence(r, inc, c, zh);
        line(out, zh, phrase!("  why: {}", "  原因：{}"), &[&why]);
    }
    for &o in inc.overlaps.iter().take(20) {
        let o = &a.overlaps[o];
        line(
            out,
            zh,
            phrase!(
                "  overlap {} / {}: {} from {} ({}){}",
                "  重叠 {} / {}：{}，始于 {}（{}）{}"
            ),
            &[
                &(s(a.leases[o.earlier].holder)).to_string(),
                &(s(a.leases[o.later].holder)).to_string(),
                &(format_overlap_ms(o.duration_ms())).to_string(),
                &(r.time(o.start_ns)).to_string(),
                &word(zh, o.cause.as_str()),
                &inferred_suffix(r.overlap_inferred(o)).get(zh).to_string(),
            ],
        );
    }
    if inc.overlaps.len() + inc.overlaps_unlisted > 20 {
        line(
            out,
            zh,
            phrase!("  ... {} more overlap pair(s)", "  …… 另有 {} 对重叠"),
            &[&(inc.overlaps.len() + inc.overlaps_unlisted - 20).to_string()],
        );
    }
    if inc.oversold_units > 0 {
        line(
            out,
            zh,
            phrase!("  oversold {} · loss {}", "  超卖 {} · 损失 {}"),
            &[
                &oversold_in(zh, inc.oversold_units, inc.loss),
                &r.loss(inc.loss, zh),
            ],
        );
    }
}

/// The findings, then the stock per product.
fn findings_and_stock(out: &mut String, r: &ReportInput<'_>, zh: bool) {
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym);
    if !a.findings.is_empty() {
        line(out, zh, phrase!("\nFindings", "\n发现"), &[]);
        for f in &a.findings {
            line(
                out,
                zh,
                Phrase::same("  {} {}  {}{}"),
                &[
                    &pad_to_columns(&word(zh, f.kind.as_str()), 18),
                    &(r.time(f.at_ns)).to_string(),
                    &f.detail.text(zh),
                    &inferred_suffix(r.finding_inferred(f)).get(zh).to_string(),
                ],
            );
        }
    }
    if !a.products.is_empty() {
        line(out, zh, phrase!("\nStock", "\n库存"), &[]);
        for p in &a.products {
            line(
                out,
                zh,
                phrase!(
                    "  {}: initial {} · sold {} · oversold {} · final {}{}",
                    "  {}：初始 {} · 售出 {} · 超卖 {} · 最终 {}{}"
                ),
                &[
                    &(p.product
                        .map_or(phrase!("(unknown product)", "（未知商品）").get(zh), s))
                    .to_string(),
                    &(p.initial_stock.map_or("?".to_string(), |v| v.to_string())).to_string(),
                    &p.sold.to_string(),
                    &p.oversold.to_string(),
                    &(p.final_stock.map_or("?".to_string(), |v| v.to_string())).to_string(),
                    &(if p.lost_updates > 0 {
                        phrase!(" · {} lost update(s)", " · {} 次丢失更新")
                            .fill(zh, &[&p.lost_updates.to_string()])
                    } else {
                        String::new()
                    })
                    .to_string(),
                ],
            );
        }
    }
}

/// The first 50 warnings and how many more.
fn warning_lines(out: &mut String, r: &ReportInput<'_>, zh: bool) {
    if r.log.warnings.total() > 0 {
        line(out, zh, phrase!("\nWarnings", "\n警告"), &[]);
        for w in r.log.warnings.kept().iter().take(50) {
            line(
                out,
                zh,
                phrase!("  {}:{}: {}", "  {}:{}：{}"),
                &[&w.file.to_string(), &w.line.to_string(), &w.reason.text(zh)],
            );
        }
        let more = r.log.warnings.total().saturating_sub(50);
        if more > 0 {
            line(
                out,
                zh,
                phrase!(
                    "  ... {} more (see --format json)",
                    "  …… 另有 {} 条（见 --format json）"
                ),
                &[&more.to_string()],
            );
        }
    }
}

/// Each source: dialect, encoding, line accounting, layout and notes.
fn source_lines(out: &mut String, r: &ReportInput<'_>, zh: bool) {
    for src in &r.log.sources {
        line(
            out,
            zh,
            phrase!(
                "\n{}: {}, {}; {} lines = {} events + {} skipped + {} warned",
                "\n{}：{}，{}；{} 行 = {} 条事件 + 跳过 {} + 警告 {}"
            ),
            &[
                &src.name.to_string(),
                &(super::snake_name(&src.dialect)).to_string(),
                &src.encoding.to_string(),
                &src.lines_read.to_string(),
                &src.events_loaded.to_string(),
                &src.lines_skipped.to_string(),
                &src.lines_warned.to_string(),
            ],
        );
        if let Some(l) = &src.layout {
            line(
                out,
                zh,
                phrase!("  layout: {}", "  布局：{}"),
                &[&l.to_string()],
            );
        }
        if src.evidence_items > 0 {
            line(
                out,
                zh,
                phrase!(
                    "  evidence: {} infrastructure line(s) (not lock events)",
                    "  证据：{} 行基础设施日志（不是锁事件）"
                ),
                &[&src.evidence_items.to_string()],
            );
        }
        if let (Some((_, f)), Some(r)) = (
            src.fields.iter().find(|(role, _)| role == "time"),
            &src.time_resolution,
        ) {
            line(
                out,
                zh,
                phrase!("  time: {} ({})", "  时间：{}（{}）"),
                &[&f.to_string(), &r.to_string()],
            );
        }
        if let Some(p) = &src.payload_field {
            line(
                out,
                zh,
                phrase!(
                    "  application record inside field: {}",
                    "  应用记录位于字段：{}"
                ),
                &[&p.to_string()],
            );
        }
        for note in &src.notes {
            line(
                out,
                zh,
                phrase!("  note: {}", "  说明：{}"),
                &[&note.text(zh)],
            );
        }
        if let Some(u) = crate::model::Unreadable::of(src).filter(|_| src.unreadable.is_some()) {
            line(
                out,
                zh,
                phrase!("  ERROR: {}", "  错误：{}"),
                &[&u.text(zh)],
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::pad_to_columns;

    #[test]
    fn chinese_names_are_padded_by_terminal_columns() {
        assert_eq!(pad_to_columns("near_miss", 12), "near_miss   ");
        // Five wide characters take ten columns: two spaces make twelve.
        assert_eq!(pad_to_columns("被他人释放", 12), "被他人释放  ");
        assert_eq!(pad_to_columns("险情", 12), "险情        ");
        assert_eq!(
            pad_to_columns("a_very_long_finding_kind", 4),
            "a_very_long_finding_kind"
        );
    }

    #[test]
    fn the_streamed_text_is_the_escaped_whole_text() {
        use crate::analysis::{Settings, analyze};
        use crate::ingest::{IngestOptions, Progress, read_source};
        use crate::report::ReportInput;
        // An incident on a key holding a terminal escape (ESC [2J).
        let line = |t: &str, ev: &str, who: &str| {
            format!(
                r#"{{"ts":"2026-01-01T00:00:0{t}Z","event":"{ev}","key":"lock:\u001b[2J","holder":"{who}","ttl_ms":1000}}"#
            ) + "\n"
        };
        let escaped_key = [
            line("0", "acquired", "a"),
            line("1.2", "acquired", "b"),
            line("1.4", "released", "b"),
            line("1.5", "released", "a"),
        ]
        .concat();
        for bytes in [
            &include_bytes!("../../sample-logs/seed-incident.jsonl")[..],
            escaped_key.as_bytes(),
        ] {
            let mut b = crate::model::LogBuilder::new();
            read_source(
                "t.jsonl",
                bytes,
                &IngestOptions::default(),
                &mut b,
                &Progress::default(),
            )
            .expect("reads");
            let log = b.finish();
            let settings = Settings::default();
            let analysis = analyze(&log, &settings);
            let r = ReportInput {
                log: &log,
                settings: &settings,
                analysis: &analysis,
            };
            assert!(!analysis.incidents.is_empty());
            for zh in [false, true] {
                let mut streamed = Vec::new();
                super::write_text(&r, zh, &mut streamed).expect("writes");
                let whole = super::to_text_in(&r, zh);
                assert!(!streamed.contains(&0x1b), "no raw ESC reaches the terminal");
                assert_eq!(
                    String::from_utf8(streamed).expect("utf-8"),
                    crate::report::escape::terminal(&whole)
                );
            }
        }
    }
}

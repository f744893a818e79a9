//! The summary bar under the menu: incident, oversold, near-miss, warning,
//! event and key counts, and the lane filters.

use egui::{RichText, Ui};

use super::{ALERT, PanelContext};
use crate::analysis::FindingKind;
use crate::ui::i18n::{Lang, count_label, tr, words};
use crate::ui::session::Session;
use crate::ui::state::{Command, Panel};
use crate::ui::timeline::paint::finding_style;

/// The summary line, `3 oversold · ¥600`.
pub fn summary_text(session: Option<&Session>, lang: Lang) -> String {
    match session {
        Some(s) => {
            let sum = &s.analysis.summary;
            format!(
                "{} {} · {}",
                crate::report::oversold_count(sum.oversold_units, sum.loss),
                tr(lang, "oversold"),
                sum.loss.format(&s.settings.currency)
            )
        }
        None => String::new(),
    }
}

/// The summary bar.
pub fn summary_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    ui.horizontal_wrapped(|ui| {
        let Some(s) = context.session else {
            ui.label("—");
            return;
        };
        if let Some(i) = guessed_source(s) {
            let lang = context.lang();
            let hint = format!("{}: {}", s.log.sources[i].name, tr(lang, "map_fields_hint"));
            let map = ui.button(RichText::new(tr(lang, "map_fields")).strong());
            if map.on_hover_text(hint).clicked() {
                context.send(Command::EditMapping(i));
            }
            ui.separator();
        }
        counts_ui(ui, context, s);
        ui.separator();
        filters_ui(ui, context);
    });
}

/// The first source read by a guess (its lock roles said as a guess by the
/// protocol) or not at all, or the first source when what was read is no
/// answer ([`Session::problems`]), when the files were read without a
/// mapping file: the one whose roles to check first.
pub fn guessed_source(s: &Session) -> Option<usize> {
    if s.mapping.is_some() || s.log.sources.is_empty() {
        return None;
    }
    let guessed = s.log.sources.iter().position(|src| {
        src.events_loaded == 0
            || src.notes.iter().any(|n| {
                matches!(
                    n,
                    crate::model::SourceNote::RolesByProtocol { guess: true, .. }
                )
            })
    });
    guessed.or_else(|| (!s.problems.is_empty()).then_some(0))
}

/// The counts; the warning count toggles the warnings panel.
fn counts_ui(ui: &mut Ui, context: &mut PanelContext<'_>, s: &Session) {
    let lang = context.lang();
    let sum = &s.analysis.summary;
    let problems: &[crate::analysis::Problem] = &s.problems;
    if !problems.is_empty() {
        // A count of 0 incidents here would read as an all-clear.
        let head = crate::ui::i18n::problems_heading(problems, true);
        ui.label(RichText::new(tr(lang, head)).strong().color(ALERT));
        ui.separator();
    }
    ui.label(
        RichText::new(count_label(
            lang,
            sum.incidents as u64,
            "incident_one",
            "incidents_lc",
        ))
        .strong()
        .color(if sum.incidents > 0 {
            ALERT
        } else {
            ui.visuals().text_color()
        }),
    );
    ui.separator();
    let summary = RichText::new(summary_text(Some(s), lang)).strong();
    ui.label(if sum.oversold_units > 0 {
        summary.color(ALERT)
    } else {
        summary
    });
    if sum.oversold_units > 0 {
        super::money::ask_unit_loss_ui(ui, context);
    }
    ui.separator();
    ui.label(count_label(
        lang,
        sum.near_misses as u64,
        "near_miss_one",
        "near_misses",
    ));
    ui.separator();
    findings_count_ui(ui, lang, &s.analysis.findings);
    ui.separator();
    let warnings = count_label(lang, sum.warnings, "warning_one", "warnings_lc");
    if ui.link(warnings).clicked() {
        context.send(Command::SetPanelOpen(
            Panel::Warnings,
            !context.open.warnings,
        ));
    }
    ui.separator();
    ui.label(
        RichText::new(format!(
            "{} · {}",
            count_label(lang, sum.events as u64, "event_one", "events"),
            count_label(lang, sum.keys as u64, "key_one", "keys"),
        ))
        .weak(),
    );
}

/// Findings by kind, `kind n` each, in the order of the first of each kind.
pub fn findings_by_kind(findings: &[crate::analysis::Finding]) -> Vec<(FindingKind, usize)> {
    let mut counts: Vec<(FindingKind, usize)> = Vec::new();
    for f in findings {
        match counts.iter_mut().find(|(k, _)| *k == f.kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((f.kind, 1)),
        }
    }
    counts.sort_by_key(|(k, _)| k.as_str());
    counts
}

/// `5 findings` and, when there are any, each kind's count (the finding
/// marker's colour).
fn findings_count_ui(ui: &mut Ui, lang: Lang, findings: &[crate::analysis::Finding]) {
    ui.label(crate::ui::i18n::findings_label(lang, findings.len()));
    for (kind, n) in findings_by_kind(findings) {
        let (_, color) = finding_style(kind);
        ui.label(RichText::new(format!("{} {n}", words(lang, kind.as_str()))).color(color));
    }
}

/// The key, holder and host filters and "only incidents".
fn filters_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    let mut filters = context.state.filters.clone();
    ui.label(tr(lang, "filters"));
    let mut changed = false;
    for (text, hint, width) in [
        (&mut filters.key, "filter_key", 140.0),
        (&mut filters.holder, "filter_holder", 90.0),
        (&mut filters.host, "filter_host", 90.0),
    ] {
        changed |= ui
            .add(
                egui::TextEdit::singleline(text)
                    .hint_text(tr(lang, hint))
                    .desired_width(width),
            )
            .changed();
    }
    changed |= ui
        .checkbox(&mut filters.only_incidents, tr(lang, "only_incidents"))
        .changed();
    if context.model.bad_regex {
        ui.label(RichText::new(tr(lang, "bad_regex")).color(ALERT));
    }
    if changed {
        context.send(Command::SetFilters(filters));
    }
}

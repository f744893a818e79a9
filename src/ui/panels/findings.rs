//! The Findings list under the incidents: every finding of the analysis
//! (kind, key, holder, time), in time order; a click puts the cursor at
//! it and shows its key. The same findings are marked on the lanes.

use egui::{RichText, Ui};
use egui_extras::{Column, TableBuilder};

use super::PanelContext;
use crate::analysis::Finding;
use crate::model::LoadedLog;
use crate::ui::i18n::{finding_detail, tr, words};
use crate::ui::state::Command;
use crate::ui::timeline::paint::finding_style;

/// Height of a row, points.
const ROW_H: f32 = 20.0;

/// Indices of `findings` in time order (then kind, then key).
pub fn time_order(findings: &[Finding], log: &LoadedLog) -> Vec<usize> {
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&findings[a], &findings[b]);
        let key = |f: &Finding| f.key.map_or("", |k| log.strings.get(k));
        (x.at_ns, x.kind.as_str(), key(x)).cmp(&(y.at_ns, y.kind.as_str(), key(y)))
    });
    order
}

/// The Findings list.
pub fn findings_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    let Some(s) = context.session else { return };
    let findings = &s.analysis.findings;
    ui.label(RichText::new(crate::ui::i18n::findings_label(lang, findings.len())).heading());
    if findings.is_empty() {
        ui.label(tr(lang, "no_findings"));
        return;
    }
    let order = time_order(findings, &s.log);
    let name = |sym| s.log.strings.get(sym);
    let input = s.input();
    let mut clicked = None;
    ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
    egui::ScrollArea::horizontal()
        .id_salt("findings_table")
        .auto_shrink(false)
        .show(ui, |ui| {
            TableBuilder::new(ui)
                .id_salt("findings")
                .striped(true)
                .resizable(true)
                .sense(egui::Sense::click())
                .column(Column::auto().at_least(140.0))
                .column(Column::initial(96.0).clip(true))
                .column(Column::initial(80.0).clip(true))
                .column(Column::remainder().at_least(90.0))
                .header(ROW_H, |mut h| {
                    for key in ["kind", "key", "holder", "time"] {
                        h.col(|ui| {
                            ui.strong(tr(lang, key));
                        });
                    }
                })
                .body(|body| {
                    body.rows(ROW_H, order.len(), |mut row| {
                        let index = order[row.index()];
                        let f = &findings[index];
                        let selected = context.selection.finding == Some(index);
                        let mut hit = false;
                        row.col(|ui| {
                            ui.horizontal(|ui| {
                                let (letter, color) = finding_style(f.kind);
                                ui.label(RichText::new(letter).color(color).strong());
                                hit |= ui
                                    .selectable_label(selected, words(lang, f.kind.as_str()))
                                    .on_hover_text(finding_detail(lang, &f.detail))
                                    .clicked();
                            });
                        });
                        row.col(|ui| {
                            ui.label(f.key.map_or("—", name));
                        });
                        row.col(|ui| {
                            let holder = f.holder.map_or("—", name);
                            ui.label(crate::ui::timeline::labels::short_id(holder))
                                .on_hover_text(holder);
                        });
                        row.col(|ui| {
                            let t = input.time(f.at_ns);
                            ui.label(t.get(11..23).unwrap_or(&t).to_string());
                        });
                        if hit || row.response().clicked() {
                            clicked = Some(index);
                        }
                    });
                });
        });
    if let Some(i) = clicked {
        context.send(Command::SelectFinding(i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::FindingKind;

    #[test]
    fn findings_are_listed_in_time_order() {
        let mut log = crate::model::LogBuilder::new().finish();
        let k = log.strings.intern("k");
        let f = |kind, at_ns| Finding {
            kind,
            key: Some(k),
            holder: None,
            lease: None,
            at_ns,
            detail: crate::analysis::FindingDetail::LateRenewal { late_ms: 0.0 },
        };
        let findings = [
            f(FindingKind::NoTtl, 30),
            f(FindingKind::FencingViolation, 10),
            f(FindingKind::ClockSkew, 20),
        ];
        assert_eq!(time_order(&findings, &log), vec![1, 2, 0]);
    }
}

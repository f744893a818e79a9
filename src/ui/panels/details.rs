//! Details of the selected incident: its explanation, each hold (host,
//! thread, grant, renewals, how the lock and the belief ended, hold vs
//! TTL), the orders inside it, and the source lines.

use egui::{RichText, Ui};

use super::{ALERT, PanelContext};
use crate::analysis::{Incident, Lease};
use crate::model::SourceRef;
use crate::report::{ReportInput, explain_incident, format_ms, snake_name};
use crate::ui::i18n::{Lang, term, tr};
use crate::ui::session::Session;
use crate::ui::state::Command;

/// The details panel.
pub fn details_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    ui.heading(tr(lang, "details"));
    let Some(s) = context.session else { return };
    let Some(inc) = context
        .selection
        .incident
        .and_then(|i| s.analysis.incidents.get(i))
    else {
        ui.label(tr(lang, "select_incident"));
        return;
    };
    let input = s.input();
    // The right side scrolls as a whole (app.rs); text wraps to its width.
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(inc.label()).strong().size(16.0));
        ui.add(egui::Label::new(RichText::new(s.log.strings.get(inc.key)).monospace()).wrap());
        if ui.button(tr(lang, "zoom_incident")).clicked() {
            context.send(Command::ZoomToSelected);
        }
    });
    ui.label(RichText::new(tr(lang, "explanation")).strong());
    let story = match lang {
        Lang::En => explain_incident(&input, inc),
        Lang::Zh => crate::report::zh::explain_incident_zh(&input, inc),
    };
    ui.add(egui::Label::new(story).wrap());
    ui.separator();
    ui.label(RichText::new(tr(lang, "leases")).strong());
    for &li in &inc.leases {
        lease_ui(ui, lang, &input, &s.analysis.leases[li]);
    }
    if !inc.sales.is_empty() {
        ui.separator();
        orders_ui(ui, lang, s, inc);
    }
    ui.separator();
    source_lines_ui(ui, lang, s, inc);
}

/// One hold of the incident, in a frame.
fn lease_ui(ui: &mut Ui, lang: Lang, input: &ReportInput<'_>, l: &Lease) {
    let name = |sym| input.log.strings.get(sym);
    let time = |ns| input.time(ns);
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.label(RichText::new(name(l.holder)).monospace().strong());
        // Rows that wrap to the panel's width (a grid would widen the
        // panel past the window's right edge).
        let row = |ui: &mut Ui, k: &str, v: String| {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(k).weak());
                ui.add(egui::Label::new(v).wrap());
            });
        };
        row(
            ui,
            tr(lang, "host"),
            l.host.map(name).unwrap_or("").to_string(),
        );
        row(
            ui,
            tr(lang, "thread"),
            l.thread.map(name).unwrap_or("").to_string(),
        );
        row(ui, tr(lang, "granted"), time(l.acquired_ns));
        let renewals = l
            .renewals_ns
            .iter()
            .map(|&r| time(r).get(11..23).unwrap_or("").to_string())
            .collect::<Vec<_>>()
            .join(", ");
        row(
            ui,
            tr(lang, "renewals"),
            format!("{} {}", l.renewals_ns.len(), renewals),
        );
        row(
            ui,
            tr(lang, "lease_ended"),
            format!(
                "{} ({})",
                time(l.lock_end_ns),
                term(lang, &snake_name(&l.lock_end))
            ),
        );
        row(
            ui,
            tr(lang, "believed_until"),
            format!(
                "{} ({})",
                time(l.window_end_ns),
                term(lang, &snake_name(&l.window_end))
            ),
        );
        let ttl = l
            .ttl_ms
            .map_or_else(|| "∞".to_string(), |t| format_ms(t as f64));
        row(
            ui,
            tr(lang, "hold_vs_ttl"),
            format!("{} / {}", format_ms(l.hold_ms()), ttl),
        );
        if l.inferred {
            ui.label(RichText::new(tr(lang, "inferred")).italics());
        }
    });
}

/// The orders inside the incident: order, holder, time, units over.
fn orders_ui(ui: &mut Ui, lang: Lang, s: &Session, inc: &Incident) {
    let input = s.input();
    let name = |sym| s.log.strings.get(sym);
    ui.label(RichText::new(tr(lang, "orders")).strong());
    egui::Grid::new("orders")
        .striped(true)
        .num_columns(4)
        .show(ui, |ui| {
            for key in ["order", "holder", "time", "units_over"] {
                ui.label(RichText::new(tr(lang, key)).weak());
            }
            ui.end_row();
            for &si in &inc.sales {
                let sale = &s.analysis.sales[si];
                ui.label(sale.order_id.map(name).unwrap_or("—"));
                ui.label(sale.holder.map(name).unwrap_or("—"));
                let t = input.time(sale.at_ns);
                ui.label(t.get(11..23).unwrap_or(&t).to_string());
                if sale.oversold_units > 0 {
                    ui.label(
                        RichText::new(sale.oversold_units.to_string())
                            .color(ALERT)
                            .strong(),
                    );
                } else {
                    ui.label("0");
                }
                ui.end_row();
            }
        });
}

/// The incident's source lines as `file:line`, in file and line order,
/// each once (a hold's lines, then the next hold's, may repeat or
/// interleave); a click copies the line's reference.
fn source_lines_ui(ui: &mut Ui, lang: Lang, s: &Session, inc: &Incident) {
    ui.label(RichText::new(tr(lang, "source_lines")).strong());
    let refs = incident_source_refs(&s.analysis.leases, inc);
    for r in refs {
        let text = format!("{}:{}", s.log.source_name(r), r.line);
        let clicked = ui
            .add(egui::Label::new(RichText::new(&text).monospace()).sense(egui::Sense::click()))
            .on_hover_text(tr(lang, "click_to_copy"))
            .clicked();
        if clicked {
            ui.ctx().copy_text(text);
        }
    }
}

/// The source lines of `inc`'s holds, sorted, each once.
pub fn incident_source_refs(leases: &[Lease], inc: &Incident) -> Vec<SourceRef> {
    let mut refs: Vec<SourceRef> = inc
        .leases
        .iter()
        .filter_map(|&li| leases.get(li))
        .flat_map(|l| l.lines.iter().copied())
        .collect();
    refs.sort_unstable();
    refs.dedup();
    refs
}

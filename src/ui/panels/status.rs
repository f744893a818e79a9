//! The status bar: load progress and Cancel, the load error, the files
//! shown, the warning toggle, the notice, and the navigation hint.

use egui::{RichText, Ui};

use super::{ALERT, NOTICE, PanelContext};
use crate::ui::i18n::tr;
use crate::ui::loader::{self, Source};
use crate::ui::state::{Command, Panel};

/// The status bar.
pub fn status_ui(ui: &mut Ui, ctx: &mut PanelContext<'_>) {
    let lang = ctx.lang();
    ui.horizontal(|ui| {
        progress_ui(ui, ctx);
        if let Some(e) = ctx.error {
            ui.label(RichText::new(format!("{}: {e}", tr(lang, "load_failed"))).color(ALERT));
            ui.separator();
        }
        if let Some(s) = ctx.session {
            let name = match &s.source {
                Source::Sample => format!("{} ({})", loader::SAMPLE_NAME, tr(lang, "sample")),
                Source::Files(f) => f
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            ui.label(RichText::new(name).weak());
            ui.separator();
            let w = s.log.warnings.total();
            let warnings = format!("⚠ {} {}", w, tr(lang, "warnings_lc"));
            if ui.selectable_label(ctx.open.warnings, warnings).clicked() {
                ctx.send(Command::SetPanelOpen(Panel::Warnings, !ctx.open.warnings));
            }
        }
        if !ctx.cjk_ok {
            ui.separator();
            ui.label(RichText::new(tr(lang, "no_cjk_font")).color(NOTICE));
        }
        if let Some(n) = ctx.notice {
            ui.separator();
            ui.label(RichText::new(n).color(NOTICE));
            if ui.small_button("×").clicked() {
                ctx.send(Command::SetNotice(None));
            }
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.label(RichText::new(tr(lang, "help_nav")).weak().small());
        });
    });
}

/// A re-analysis spinner, or the load's progress bar with Cancel.
fn progress_ui(ui: &mut Ui, ctx: &mut PanelContext<'_>) {
    let lang = ctx.lang();
    let Some(l) = ctx.loading else { return };
    if l.reanalysis {
        ui.spinner();
        ui.label(tr(lang, "analysing"));
    } else {
        let (read, total) = l.bytes();
        ui.label(tr(lang, "loading"));
        ui.add(
            egui::ProgressBar::new(l.fraction())
                .desired_width(240.0)
                .text(format!("{} / {} KB", read >> 10, total >> 10)),
        );
        if ui.button(tr(lang, "cancel")).clicked() {
            ctx.send(Command::CancelLoad);
        }
    }
    ui.separator();
}

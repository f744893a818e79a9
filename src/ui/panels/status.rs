//! The status bar: load progress and Cancel, the load error, the files
//! shown, the warning toggle, the notice, and the navigation hint.

use egui::{RichText, Ui};

use super::{ALERT, NOTICE, PanelContext, spinner};
use crate::ui::i18n::{tr, trf};
use crate::ui::loader;
use crate::ui::session::Source;
use crate::ui::state::{Command, Panel};

/// The status bar.
pub fn status_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    ui.horizontal(|ui| {
        progress_ui(ui, context);
        if let Some(e) = context.error {
            ui.label(RichText::new(format!("{}: {e}", tr(lang, "load_failed"))).color(ALERT));
            ui.separator();
        }
        if let Some(s) = context.session {
            let name = match &s.source {
                Source::Sample => format!("{} ({})", loader::SAMPLE_NAME, tr(lang, "sample")),
                Source::Files(f) => f
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            // The file list is cut (whole on hover) so that it never runs
            // over the hint on the right.
            let max_w = (ui.available_width() * 0.35).max(80.0);
            ui.scope(|ui| {
                ui.set_max_width(max_w);
                ui.add(egui::Label::new(RichText::new(&name).weak()).truncate())
                    .on_hover_text(&name);
            });
            ui.separator();
            cache_ui(ui, lang, &s.cache);
            let w = s.log.warnings.total();
            let warnings = format!("⚠ {} {}", w, tr(lang, "warnings_lc"));
            if ui
                .selectable_label(context.open.warnings, warnings)
                .clicked()
            {
                context.send(Command::SetPanelOpen(
                    Panel::Warnings,
                    !context.open.warnings,
                ));
            }
        }
        if !context.cjk_ok {
            ui.separator();
            ui.label(RichText::new(tr(lang, "no_cjk_font")).color(NOTICE));
        }
        if let Some(n) = context.notice {
            ui.separator();
            ui.label(RichText::new(n).color(NOTICE));
            if ui.small_button("×").clicked() {
                context.send(Command::SetNotice(None));
            }
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.add(egui::Label::new(RichText::new(tr(lang, "help_nav")).weak().small()).truncate());
        });
    });
}

/// A re-analysis spinner, or the load's progress bar with Cancel.
fn progress_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    let Some(l) = context.loading else { return };
    // The bar moves without input: its next frame, a step from now.
    spinner::next_frame(ui);
    let phase = l.phase();
    let elapsed = format!("{:.1} s", l.started.elapsed().as_secs_f64());
    if !l.reanalysis && phase == loader::Phase::Reading {
        let (read, total) = l.bytes();
        ui.label(tr(lang, "loading"));
        ui.add(
            egui::ProgressBar::new(l.fraction())
                .desired_width(240.0)
                .text(format!("{} / {} KB", read >> 10, total >> 10)),
        );
    } else {
        // After the read: which step runs, out of how many, and for how
        // long; the analysis also says how many keys it has done.
        spinner::spinner(ui);
        let step = phase as u8 + 1;
        let keys = l.analysis.keys();
        let mut name = tr(lang, phase.label_key()).to_string();
        if phase == loader::Phase::Analysing && keys.1 > 0 {
            name = trf(
                lang,
                "phase_keys",
                &[&name, &keys.0.to_string(), &keys.1.to_string()],
            );
        }
        ui.add(
            egui::ProgressBar::new(phase.fraction(keys))
                .desired_width(240.0)
                .text(trf(
                    lang,
                    "phase_step",
                    &[
                        &name,
                        &step.to_string(),
                        &loader::Phase::COUNT.to_string(),
                        &elapsed,
                    ],
                )),
        );
    }
    if !l.reanalysis && ui.button(tr(lang, "cancel")).clicked() {
        context.send(Command::CancelLoad);
    }
    ui.separator();
}

/// What the load cache did: "loaded from cache" (the entry's path on
/// hover), or its notes (an entry ignored, a directory not written) on
/// hover of a short warning.
fn cache_ui(ui: &mut Ui, lang: crate::ui::i18n::Lang, cache: &crate::ingest::CacheReport) {
    if let Some(p) = &cache.used {
        ui.label(RichText::new(tr(lang, "from_cache")).weak())
            .on_hover_text(p.display().to_string());
        ui.separator();
    }
    if !cache.notes.is_empty() {
        ui.label(RichText::new(tr(lang, "cache_note")).color(NOTICE))
            .on_hover_text(cache.notes.join("\n"));
        ui.separator();
    }
}

//! The sources window: per input file, how it was read (dialect, encoding,
//! line counts, which field gave which role) and the reader's notes.

use egui::{RichText, Ui};

use super::PanelContext;
use crate::model::SourceInfo;
use crate::report::snake_name;
use crate::ui::i18n::{Lang, tr};
use crate::ui::state::{Command, Panel};

/// The window, when open.
pub fn sources_window(egui_context: &egui::Context, context: &mut PanelContext<'_>) {
    let Some(s) = context.session else { return };
    let lang = context.lang();
    let mut open = context.open.sources;
    egui::Window::new(tr(lang, "sources"))
        .id(egui::Id::unique("sources_window"))
        .open(&mut open)
        .default_width(520.0)
        .show(egui_context, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                for (i, src) in s.log.sources.iter().enumerate() {
                    egui::CollapsingHeader::new(&src.name)
                        .default_open(true)
                        .show(ui, |ui| {
                            source_ui(ui, lang, src);
                            let clear = mapping_ui(ui, lang, s.mapping.as_deref());
                            if clear {
                                context.commands.push(Command::SetMapping(None));
                            }
                            if ui.button(tr(lang, "map_fields")).clicked() {
                                context.commands.push(Command::EditMapping(i));
                            }
                        });
                }
            });
        });
    if open != context.open.sources {
        context.send(Command::SetPanelOpen(Panel::Sources, open));
    }
}

/// The mapping file a source was read with, and a button to read it
/// without: true when that button was clicked.
fn mapping_ui(ui: &mut Ui, lang: Lang, mapping: Option<&std::path::Path>) -> bool {
    let mut clear = false;
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("{}:", tr(lang, "read_with_mapping")));
        match mapping {
            Some(p) => {
                ui.monospace(p.display().to_string());
                clear = ui.button(tr(lang, "clear_mapping")).clicked();
            }
            None => {
                ui.label(tr(lang, "none"));
            }
        }
    });
    clear
}

/// One source file.
fn source_ui(ui: &mut Ui, lang: Lang, src: &SourceInfo) {
    egui::Grid::new(("src", &src.name))
        .num_columns(2)
        .show(ui, |ui| {
            ui.label(tr(lang, "dialect"));
            ui.label(format!(
                "{}{}",
                snake_name(&src.dialect),
                if src.gzip { " (gzip)" } else { "" }
            ));
            ui.end_row();
            ui.label(tr(lang, "encoding"));
            ui.label(&src.encoding);
            ui.end_row();
            ui.label(tr(lang, "lines"));
            ui.label(format!(
                "{} / {} / {} / {}",
                src.lines_read, src.events_loaded, src.lines_skipped, src.lines_warned
            ));
            ui.end_row();
            ui.label(tr(lang, "fields"));
            ui.vertical(|ui| {
                for (role, field) in &src.fields {
                    ui.monospace(format!("{role} ← {field}"));
                }
            });
            ui.end_row();
        });
    if !src.notes.is_empty() {
        ui.label(RichText::new(tr(lang, "notes")).strong());
        for n in &src.notes {
            ui.label(format!("• {}", n.text(lang == Lang::Zh)));
        }
    }
}

//! The field-mapping dialog: each field of a file with
//! its sample values and a role to choose, a live preview of the events the
//! choices give on the head of the file, and "Save and re-read", which
//! writes the mapping file (the format `--mapping` and `lockreplay inspect
//! --write-mapping` use) and loads the files again with it at once.
//!
//! Opened from the Sources window (per file) or from the message of a file
//! nothing could be read from.

mod editor;

use egui::{RichText, Ui};

pub use editor::{
    MappingEditor, NameRow, NamesFrom, PREVIEW_BYTES, Preview, Row, Unread, head_samples, preview,
};

use super::PanelContext;
use crate::model::EventKind;
use crate::ui::i18n::{Lang, tr};
use crate::ui::state::Command;

/// Roles a field can be given, as a mapping file names them.
pub const ROLES: [&str; 20] = [
    "time",
    "key",
    "holder",
    "event",
    "ttl",
    "ttl_s",
    "host",
    "thread",
    "product",
    "quantity",
    "stock",
    "stock_before",
    "stock_after",
    "order_id",
    "unit_price",
    "fencing_token",
    "elapsed_ms",
    "deleted",
    "outcome",
    "message",
];

/// Roles a part of a text line can be given in the line-pattern builder
/// (`date`, `level` and `message` beside the mapping's roles): `date` is
/// the date a `time` part without one is on; the message is the rest of
/// the line, its `name=value` pairs read as fields.
pub const LINE_ROLES: [&str; 16] = [
    "time",
    "date",
    "level",
    "host",
    "thread",
    "key",
    "holder",
    "event",
    "ttl",
    "ttl_s",
    "quantity",
    "stock",
    "stock_after",
    "order_id",
    "product",
    "message",
];

/// The dialog, while `editor` is set; closing it clears it. A mapping
/// saved keeps its dialog in `saved` (one per file), to open again as it
/// was.
pub fn mapping_window(
    egui_context: &egui::Context,
    context: &mut PanelContext<'_>,
    editor: &mut Option<MappingEditor>,
    saved: &mut Vec<MappingEditor>,
) {
    let Some(ed) = editor.as_mut() else { return };
    let lang = context.lang();
    let mut open = true;
    let mut save = false;
    egui::Window::new(tr(lang, "mapping_editor"))
        .id(egui::Id::unique("mapping_editor"))
        .open(&mut open)
        .default_width(680.0)
        .max_height(700.0)
        .show(egui_context, |ui| {
            ui.label(RichText::new(ed.file.display().to_string()).monospace());
            let mut changed = false;
            if ed.line.is_some() {
                changed |= line_builder_ui(ui, lang, ed);
                if !ed.rows.is_empty() {
                    ui.label(RichText::new(tr(lang, "message_pairs")).strong());
                }
            }
            if !ed.rows.is_empty() || ed.line.is_none() {
                changed |= fields_grid(ui, lang, ed);
            }
            if changed {
                ed.refresh();
            }
            ui.separator();
            if names_grid(ui, lang, ed) {
                ed.refresh_preview();
            }
            ui.separator();
            preview_ui(ui, lang, ed);
            ui.separator();
            ui.horizontal(|ui| {
                let label = ui.label(tr(lang, "save_to"));
                ui.add(egui::TextEdit::singleline(&mut ed.save_path).desired_width(380.0))
                    .labelled_by(label.id);
            });
            save = ui.button(tr(lang, "save_and_reread")).clicked();
        });
    if save {
        match ed.save() {
            Ok(path) => {
                context.send(Command::SetMapping(Some(path)));
                if let Some(done) = editor.take() {
                    saved.retain(|e| e.file != done.file);
                    saved.push(done);
                }
            }
            Err(e) => context.send(Command::SetNotice(Some(format!("{e:#}")))),
        }
    } else if !open {
        *editor = None;
    }
}

/// The grid of fields: name, a role to choose, samples. True when a role
/// changed.
fn fields_grid(ui: &mut Ui, lang: Lang, ed: &mut MappingEditor) -> bool {
    let mut changed = false;
    egui::ScrollArea::vertical()
        .id_salt("mapping_fields_scroll")
        .max_height(240.0)
        .show(ui, |ui| {
            egui::Grid::new("mapping_fields")
                .num_columns(3)
                .striped(true)
                .show(ui, |ui| {
                    ui.label(RichText::new(tr(lang, "fields")).strong());
                    ui.label(RichText::new(tr(lang, "role")).strong());
                    ui.label(RichText::new(tr(lang, "samples")).strong());
                    ui.end_row();
                    for (i, row) in ed.rows.iter_mut().enumerate() {
                        let name = ui.monospace(&row.field);
                        let shown = row.role.clone().unwrap_or_else(|| "—".into());
                        // The combo box is named by its field (screen readers,
                        // kittest).
                        let _ = egui::ComboBox::from_id_salt(("role", i))
                            .height(600.0)
                            .selected_text(shown)
                            .show_ui(ui, |ui| {
                                changed |= ui.selectable_value(&mut row.role, None, "—").changed();
                                for r in ROLES {
                                    changed |= ui
                                        .selectable_value(&mut row.role, Some(r.to_string()), r)
                                        .changed();
                                }
                            })
                            .response
                            .labelled_by(name.id);
                        ui.label(&row.samples);
                        ui.end_row();
                    }
                });
        });
    changed
}

/// The line-pattern builder: the sample line as clickable parts (each
/// with its role above it), a role for the selected part, the
/// `line_regex` they make. True when a role changed.
fn line_builder_ui(ui: &mut Ui, lang: Lang, ed: &mut MappingEditor) -> bool {
    let Some(pattern) = ed.line.as_mut() else {
        return false;
    };
    let mut changed = false;
    ui.label(RichText::new(tr(lang, "line_pattern")).strong());
    let slots = pattern.slot_chars(&LINE_ROLES);
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 2.0;
        for (i, width) in slots.iter().enumerate() {
            let role = pattern.tokens[i].role.as_deref();
            let text = pattern.text(i);
            let shown = part_label(text, role, *width);
            let shown = match role {
                Some(_) => RichText::new(shown).monospace().strong(),
                None => RichText::new(shown).monospace(),
            };
            let selected = ed.selected_part == Some(i);
            let name = match role {
                Some(r) => format!("{text} ⟨{r}⟩"),
                None => text.to_string(),
            };
            let part = ui.add(egui::Button::selectable(selected, shown));
            part.widget_info(|| {
                egui::WidgetInfo::selected(egui::accesskit::Role::Button, true, selected, &name)
            });
            if part.clicked() {
                ed.selected_part = Some(i);
            }
        }
    });
    if let Some(i) = ed.selected_part.filter(|i| *i < pattern.tokens.len()) {
        ui.horizontal(|ui| {
            let label = ui.label(tr(lang, "part_role"));
            let current = pattern.tokens[i].role.clone();
            let mut chosen = current.clone();
            let _ = egui::ComboBox::from_id_salt("part_role")
                .height(400.0)
                .selected_text(current.clone().unwrap_or_else(|| "—".into()))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut chosen, None, "—");
                    for r in LINE_ROLES {
                        ui.selectable_value(&mut chosen, Some(r.to_string()), r);
                    }
                })
                .response
                .labelled_by(label.id);
            if chosen != current {
                pattern.set_role(i, chosen);
                changed = true;
            }
        });
    }
    ui.label(RichText::new(format!("line_regex = {}", pattern.regex())).monospace());
    changed
}

/// A part of the sample line as the builder shows it: its role (`·` for
/// none) over its text, each centred in `width` characters, so that the
/// part's width does not change with its role.
pub fn part_label(text: &str, role: Option<&str>, width: usize) -> String {
    format!("{:^width$}\n{text:^width$}", role.unwrap_or("·"))
}

/// The event names (an event field's values or the message templates),
/// each with its count and a kind to choose among every kind. True when a
/// kind changed.
fn names_grid(ui: &mut Ui, lang: Lang, ed: &mut MappingEditor) -> bool {
    let mut changed = false;
    let title = match &ed.names_from {
        NamesFrom::Field(f) => format!("{} `{f}`", tr(lang, "event_names_field")),
        NamesFrom::Templates => tr(lang, "event_names_templates").to_string(),
        NamesFrom::Nothing => {
            ui.label(tr(lang, "event_names_none"));
            return false;
        }
    };
    ui.label(RichText::new(title).strong());
    egui::ScrollArea::vertical()
        .id_salt("mapping_names_scroll")
        .max_height(200.0)
        .show(ui, |ui| {
            egui::Grid::new("mapping_names")
                .num_columns(3)
                .striped(true)
                .show(ui, |ui| {
                    ui.label(RichText::new(tr(lang, "event_name")).strong());
                    ui.label(RichText::new(tr(lang, "count")).strong());
                    ui.label(RichText::new(tr(lang, "kind")).strong());
                    ui.end_row();
                    let templates = ed.names_from == NamesFrom::Templates;
                    for (i, row) in ed.names.iter_mut().enumerate() {
                        changed |= name_row_ui(ui, lang, i, row, templates);
                        ui.end_row();
                    }
                });
        });
    changed
}

/// One event name's row: the name (on hover, an example and, for a
/// template with a kind, the `[messages]` regex it is saved as), its
/// count, its kind's combo box (named by the name). True when the kind
/// changed.
fn name_row_ui(ui: &mut Ui, lang: Lang, i: usize, row: &mut NameRow, templates: bool) -> bool {
    let mut changed = false;
    let hover = match row.kind {
        Some(k) if templates => format!(
            "{}\n{}",
            row.example,
            crate::inspect::suggest::template_regex(&row.name, &row.example, k)
        ),
        _ => row.example.clone(),
    };
    let name = ui.monospace(&row.name).on_hover_text(hover);
    ui.label(row.count.to_string());
    let shown = row.kind.map_or_else(
        || tr(lang, "no_kind").to_string(),
        |k| k.as_str().to_string(),
    );
    let _ = egui::ComboBox::from_id_salt(("kind", i))
        .height(400.0)
        .selected_text(shown)
        .show_ui(ui, |ui| {
            changed |= ui
                .selectable_value(&mut row.kind, None, tr(lang, "no_kind"))
                .changed();
            for k in EventKind::ALL {
                changed |= ui
                    .selectable_value(&mut row.kind, Some(k), k.as_str())
                    .changed();
            }
        })
        .response
        .labelled_by(name.id);
    changed
}

/// What the mapping reads on the file's head: events per kind, then
/// holds, incidents, oversold units and loss; or why nothing was read.
fn preview_ui(ui: &mut Ui, lang: Lang, ed: &MappingEditor) {
    ui.label(RichText::new(tr(lang, "mapping_preview")).strong());
    match &ed.preview {
        Ok(p) => {
            let text: Vec<String> = p
                .kinds
                .iter()
                .map(|(k, n)| format!("{} {n}", k.as_str()))
                .collect();
            ui.label(text.join(" · "));
            ui.label(
                RichText::new(format!(
                    "{} {} · {} {} · {} {} · {} {}",
                    tr(lang, "preview_holds"),
                    p.holds,
                    tr(lang, "preview_incidents"),
                    p.incidents,
                    tr(lang, "preview_oversold"),
                    p.oversold,
                    tr(lang, "preview_loss"),
                    p.loss.format(&ed.settings.currency)
                ))
                .strong(),
            );
        }
        Err(Unread::Error(why)) => {
            ui.label(RichText::new(why).color(ui.visuals().error_fg_color));
        }
        Err(Unread::Nothing(why)) => {
            ui.label(RichText::new(tr(lang, "preview_nothing_yet")).strong());
            ui.label(RichText::new(why).weak());
        }
    }
}

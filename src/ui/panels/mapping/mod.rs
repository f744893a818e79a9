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
    MappingEditor, NameRow, NamesFrom, PREVIEW_BYTES, Preview, Row, TimeFormatGuess, Unread,
    head_samples, preview,
};

use super::PanelContext;
use crate::inspect::suggest;
use crate::model::EventKind;
use crate::ui::i18n::{Lang, tr, trf};
use crate::ui::state::Command;

/// Roles a field can be given, as a mapping file names them, in the
/// groups the dialog lists them in: what every lock log needs (the
/// outcome among them: an acquire it says failed is no hold), who ran a
/// step, the business fields, then a release's details.
pub const ROLE_GROUPS: [&[&str]; 4] = [
    &[
        "time", "key", "holder", "event", "outcome", "ttl", "ttl_s", "message",
    ],
    &["host", "thread"],
    &[
        "product",
        "quantity",
        "stock",
        "stock_before",
        "stock_after",
        "order_id",
        "unit_price",
        "fencing_token",
    ],
    &["elapsed_ms", "deleted"],
];

/// True when `role` is one a field can be given ([`ROLE_GROUPS`]).
pub fn is_field_role(role: &str) -> bool {
    ROLE_GROUPS.iter().any(|g| g.contains(&role))
}

/// A role in a field's list: the role, its group in [`ROLE_GROUPS`], and
/// what already has it (another field, or a part of the line), when one
/// does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleChoice {
    /// The role, as a mapping file names it.
    pub role: &'static str,
    /// Its group's index in [`ROLE_GROUPS`].
    pub group: usize,
    /// The field (or the line's part, by its text) that has it already.
    pub taken_by: Option<String>,
}

/// The roles field `row` can be given, in their groups' order, then those
/// another field or a part of the line (`parts`: (role, text)) has
/// already, at the end: a mapping gives a role to one field, so those are
/// shown disabled, saying which has it.
pub fn role_choices(rows: &[Row], row: usize, parts: &[(String, String)]) -> Vec<RoleChoice> {
    let taken_by = |role: &str| {
        let part = parts
            .iter()
            .find(|(r, _)| r == role)
            .map(|(_, t)| t.clone());
        let field = rows
            .iter()
            .enumerate()
            .find(|(i, r)| *i != row && r.role.as_deref() == Some(role))
            .map(|(_, r)| r.field.clone());
        part.or(field)
    };
    let all = ROLE_GROUPS
        .iter()
        .enumerate()
        .flat_map(|(group, roles)| roles.iter().map(move |role| (group, *role)));
    let (free, taken): (Vec<RoleChoice>, Vec<RoleChoice>) = all
        .map(|(group, role)| RoleChoice {
            role,
            group,
            taken_by: taken_by(role),
        })
        .partition(|c| c.taken_by.is_none());
    free.into_iter().chain(taken).collect()
}

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
    let parts = part_roles(ed.line.as_ref());
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
                    for i in 0..ed.rows.len() {
                        let choices = role_choices(&ed.rows, i, &parts);
                        let row = &mut ed.rows[i];
                        let name = ui.monospace(&row.field);
                        changed |= role_combo_ui(ui, lang, (i, name.id), row, &choices);
                        ui.label(&row.samples);
                        ui.end_row();
                    }
                });
        });
    changed
}

/// The roles the line pattern's parts have, with each part's text.
fn part_roles(line: Option<&suggest::LinePattern>) -> Vec<(String, String)> {
    let Some(p) = line else { return Vec::new() };
    p.tokens
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Some((t.role.clone()?, p.text(i).to_string())))
        .collect()
}

/// Field `row`'s role combo box (`i`: its place; named by `name`, its
/// field's label, for screen readers and kittest): none, then `choices`
/// in their groups (a line between groups), those another field has at
/// the end, disabled, saying which has it on hover. True when the role
/// changed.
fn role_combo_ui(
    ui: &mut Ui,
    lang: Lang,
    (i, name): (usize, egui::Id),
    row: &mut Row,
    choices: &[RoleChoice],
) -> bool {
    let mut changed = false;
    let shown = row.role.clone().unwrap_or_else(|| "—".into());
    let _ = egui::ComboBox::from_id_salt(("role", i))
        .height(600.0)
        .selected_text(shown)
        .show_ui(ui, |ui| {
            changed |= ui.selectable_value(&mut row.role, None, "—").changed();
            let mut group = None;
            let mut taken_shown = false;
            for c in choices {
                match &c.taken_by {
                    None => {
                        if group.is_some_and(|g| g != c.group) {
                            ui.separator();
                        }
                        group = Some(c.group);
                        let value = Some(c.role.to_string());
                        changed |= ui.selectable_value(&mut row.role, value, c.role).changed();
                    }
                    Some(by) => {
                        if !std::mem::replace(&mut taken_shown, true) {
                            ui.separator();
                            ui.label(RichText::new(tr(lang, "roles_taken")).weak().small());
                        }
                        ui.add_enabled(false, egui::Button::selectable(false, c.role))
                            .on_disabled_hover_text(trf(lang, "role_taken", &[by]));
                    }
                }
            }
        })
        .response
        .labelled_by(name);
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
    if let Some(guess) = &ed.time_format {
        time_format_ui(ui, lang, guess);
    }
    changed
}

/// The `time_format` the date and time parts make, marked as a guess, with
/// the sample's date as it reads it (a day-first or month-first date is
/// where a guess may be wrong).
fn time_format_ui(ui: &mut Ui, lang: Lang, guess: &TimeFormatGuess) {
    ui.horizontal_wrapped(|ui| {
        let value = toml::Value::String(guess.format.clone());
        ui.label(RichText::new(format!("time_format = {value}")).monospace());
        let read_as = guess.read_as.map_or_else(
            || tr(lang, "date_unread").to_string(),
            |d| match lang {
                Lang::Zh => d.format("%Y年%-m月%-d日").to_string(),
                Lang::En => d.format("%-d %B %Y").to_string(),
            },
        );
        let text = trf(lang, "time_format_guess", &[&guess.date, &read_as]);
        ui.label(RichText::new(text).weak());
    });
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

//! The field-mapping dialog: each field of a file with
//! its sample values and a role to choose, a live preview of the events the
//! choices give on the head of the file, and "Save and re-read", which
//! writes the mapping file (the format `--mapping` and `lockreplay inspect
//! --write-mapping` use) and loads the files again with it at once.
//!
//! Opened from the Sources window (per file) or from the message of a file
//! nothing could be read from.

use std::path::{Path, PathBuf};

use egui::{RichText, Ui};

use super::PanelContext;
use crate::model::{EventKind, LoadedLog};
use crate::ui::i18n::tr;
use crate::ui::state::Command;

/// Roles a field can be given, as a mapping file names them.
pub const ROLES: [&str; 19] = [
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
    "message",
];

/// Bytes of the file's head the preview reads.
pub const PREVIEW_BYTES: u64 = 1 << 20;

/// One field in the dialog.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The field's name.
    pub field: String,
    /// The role chosen, none for no role.
    pub role: Option<String>,
    /// Sample values, joined.
    pub samples: String,
}

/// The dialog's state: the file, its fields, where to save, the preview.
#[derive(Clone, Debug)]
pub struct MappingEditor {
    /// The file the mapping is for.
    pub file: PathBuf,
    /// Its fields.
    pub rows: Vec<Row>,
    /// Where "Save and re-read" writes the mapping.
    pub save_path: String,
    /// What the current choices give on the file's head: events per kind,
    /// or why nothing could be read.
    pub preview: Result<Vec<(EventKind, usize)>, String>,
}

impl MappingEditor {
    /// The dialog for source `index` of `log`, its roles as read, the
    /// preview computed.
    pub fn new(log: &LoadedLog, index: usize) -> MappingEditor {
        let rows = crate::inspect::field_rows(log, index, false)
            .into_iter()
            .map(|r| Row {
                field: r.field,
                role: r.role,
                samples: r.samples.join(" | "),
            })
            .collect();
        let file = PathBuf::from(&log.sources[index].name);
        let mut rows: Vec<Row> = rows;
        add_head_samples(&mut rows, &head_samples(&file));
        let mut editor = MappingEditor {
            save_path: default_save_path(&file).display().to_string(),
            file,
            rows,
            preview: Ok(Vec::new()),
        };
        editor.refresh_preview();
        editor
    }

    /// The mapping file of the current choices (TOML). A role given to two
    /// fields keeps the first.
    pub fn toml(&self) -> String {
        let header = format!(
            "# Field mapping for {}, written by lockreplay's mapping dialog.",
            self.file.display().to_string().replace('\n', " ")
        );
        let pairs = self
            .rows
            .iter()
            .filter_map(|r| Some((r.role.as_deref()?, r.field.as_str())));
        crate::inspect::fields_toml(&header, pairs)
    }

    /// Reads the file's head ([`PREVIEW_BYTES`]) with the current choices.
    pub fn refresh_preview(&mut self) {
        self.preview = preview(&self.file, &self.toml());
    }

    /// Writes the mapping to `save_path` (atomically; never over the file
    /// it maps) and returns the path.
    ///
    /// # Errors
    /// An empty path, the input itself, or a failed write.
    pub fn save(&self) -> anyhow::Result<PathBuf> {
        let path = PathBuf::from(self.save_path.trim());
        if path.as_os_str().is_empty() {
            anyhow::bail!("no path to save the mapping to");
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let text = self.toml();
        crate::fsio::write_atomic_with(&path, std::slice::from_ref(&self.file), |w| {
            use std::io::Write;
            w.write_all(text.as_bytes())?;
            Ok(())
        })?;
        Ok(path)
    }
}

/// The head of `file`: at most [`PREVIEW_BYTES`], cut after its last whole
/// line.
fn read_head(file: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(file)?
        .take(PREVIEW_BYTES)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 == PREVIEW_BYTES
        && let Some(end) = memchr::memrchr(b'\n', &bytes)
    {
        bytes.truncate(end + 1);
    }
    Ok(bytes)
}

/// Up to three values of each field of the JSON objects among the first
/// 50 lines of `file` (nested objects as dotted paths, two levels deep), in
/// the order the fields first appear: what a field holds when no event
/// could be read to show it.
pub fn head_samples(file: &Path) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let Ok(bytes) = read_head(file) else {
        return out;
    };
    let text = String::from_utf8_lossy(&bytes);
    for line in text.lines().filter(|l| !l.trim().is_empty()).take(50) {
        if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(line.trim()) {
            collect_values(&mut out, "", &map, 0);
        }
    }
    out
}

fn collect_values(
    out: &mut Vec<(String, Vec<String>)>,
    prefix: &str,
    map: &serde_json::Map<String, serde_json::Value>,
    depth: usize,
) {
    for (k, v) in map {
        let name = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        if let (serde_json::Value::Object(inner), true) = (v, depth < 2) {
            collect_values(out, &name, inner, depth + 1);
            continue;
        }
        let value = match v {
            serde_json::Value::String(s) => s.chars().take(60).collect(),
            other => other.to_string().chars().take(60).collect(),
        };
        let i = match out.iter().position(|(n, _)| *n == name) {
            Some(i) => i,
            None => {
                out.push((name, Vec::new()));
                out.len() - 1
            }
        };
        let vals = &mut out[i].1;
        if vals.len() < 3 && !vals.contains(&value) {
            vals.push(value);
        }
    }
}

/// Fills rows without samples from the file's head, adds the head's fields
/// no row names, and drops the rows neither the head nor an event shows (a
/// field detection made up from an envelope's payload that the records do
/// not carry as such).
fn add_head_samples(rows: &mut Vec<Row>, head: &[(String, Vec<String>)]) {
    if !head.is_empty() {
        rows.retain(|r| !r.samples.is_empty() || head.iter().any(|(f, _)| *f == r.field));
    }
    for (field, values) in head {
        match rows.iter_mut().find(|r| &r.field == field) {
            Some(r) if r.samples.is_empty() => r.samples = values.join(" | "),
            Some(_) => {}
            None => rows.push(Row {
                field: field.clone(),
                role: None,
                samples: values.join(" | "),
            }),
        }
    }
}

/// `<config>/lockreplay/mappings/<file name>.toml`, else beside the current
/// directory.
fn default_save_path(file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .map_or("log".into(), |n| n.to_string_lossy().into_owned());
    dirs::config_dir()
        .map(|d| d.join("lockreplay").join("mappings"))
        .unwrap_or_default()
        .join(format!("{name}.mapping.toml"))
}

/// Events per kind that `mapping` gives on the head of `file`, most first.
///
/// # Errors
/// The file or the mapping cannot be read, or no event came out (the
/// reason as the reader says it).
pub fn preview(file: &Path, mapping: &str) -> Result<Vec<(EventKind, usize)>, String> {
    let m: crate::ingest::Mapping = mapping.parse().map_err(|e| format!("{e}"))?;
    let bytes = read_head(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let opts = crate::ingest::IngestOptions {
        mapping: Some(m),
        ..crate::ingest::IngestOptions::default()
    };
    let mut builder = crate::model::LogBuilder::new();
    let name = file.display().to_string();
    crate::ingest::read_source(
        &name,
        bytes.as_slice(),
        &opts,
        &mut builder,
        &Default::default(),
    )
    .map_err(|e| format!("{e}"))?;
    let log = builder.finish();
    let counts = crate::inspect::kinds(&log, 0);
    if counts.is_empty() {
        return Err(log
            .sources
            .first()
            .and_then(|s| s.unreadable.clone())
            .unwrap_or_else(|| "no event".into()));
    }
    Ok(counts)
}

/// The dialog, while `editor` is set; closing it clears it.
pub fn mapping_window(
    egui_context: &egui::Context,
    context: &mut PanelContext<'_>,
    editor: &mut Option<MappingEditor>,
) {
    let Some(ed) = editor.as_mut() else { return };
    let lang = context.lang();
    let mut open = true;
    let mut save = false;
    egui::Window::new(tr(lang, "mapping_editor"))
        .id(egui::Id::unique("mapping_editor"))
        .open(&mut open)
        .default_width(640.0)
        .show(egui_context, |ui| {
            ui.label(RichText::new(ed.file.display().to_string()).monospace());
            let changed = fields_grid(ui, lang, ed);
            if changed {
                ed.refresh_preview();
            }
            ui.separator();
            preview_ui(ui, lang, &ed.preview);
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
                *editor = None;
            }
            Err(e) => context.send(Command::SetNotice(Some(format!("{e:#}")))),
        }
    } else if !open {
        *editor = None;
    }
}

/// The grid of fields: name, a role to choose, samples. True when a role
/// changed.
fn fields_grid(ui: &mut Ui, lang: crate::ui::i18n::Lang, ed: &mut MappingEditor) -> bool {
    let mut changed = false;
    egui::ScrollArea::vertical()
        .max_height(360.0)
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

fn preview_ui(
    ui: &mut Ui,
    lang: crate::ui::i18n::Lang,
    preview: &Result<Vec<(EventKind, usize)>, String>,
) {
    ui.label(RichText::new(tr(lang, "mapping_preview")).strong());
    match preview {
        Ok(counts) => {
            let text: Vec<String> = counts
                .iter()
                .map(|(k, n)| format!("{} {n}", k.as_str()))
                .collect();
            ui.label(text.join(" · "));
        }
        Err(why) => {
            ui.label(RichText::new(why).color(ui.visuals().error_fg_color));
        }
    }
}

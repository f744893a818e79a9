//! The settings window: analysis settings (re-analysed at once), how files
//! are read (zone, TTL, mapping; applied by reloading), and display
//! (time zone shown, language, theme, CJK font), plus host clock offsets.

use std::path::PathBuf;

use egui::Ui;

use super::PanelContext;
use crate::analysis::Settings;
use crate::ui::i18n::{Lang, tr};
use crate::ui::state::{AppState, Command, Panel};
use crate::ui::timeline::TimeDisplay;

/// The settings window's text fields, kept while it is open.
#[derive(Debug, Default)]
pub struct SettingsWindow {
    /// The zone field ([`AppState::read_tz`]).
    pub read_tz: String,
    /// The TTL field ([`AppState::read_ttl`]).
    pub read_ttl: String,
    /// The host of the clock offset being added.
    pub offset_host: String,
    /// Its offset, ms.
    pub offset_ms: f64,
    /// The mapping file field: the path of the mapping file of the files
    /// on screen.
    pub mapping: String,
}

impl SettingsWindow {
    /// Fills the fields from the saved state and the mapping the files on
    /// screen were read with, for opening.
    pub fn reset(&mut self, state: &AppState, mapping: Option<&std::path::Path>) {
        self.read_tz = state.read_tz.clone().unwrap_or_default();
        self.read_ttl = state.read_ttl.clone().unwrap_or_default();
        self.mapping = mapping.map(|p| p.display().to_string()).unwrap_or_default();
    }

    /// The window, when open.
    pub fn show(&mut self, egui_context: &egui::Context, context: &mut PanelContext<'_>) {
        let lang = context.lang();
        let mut open = context.open.settings;
        let mut settings = context.state.settings.clone();
        let mut reanalyze = false;
        // One id and width in both languages: a window's id comes from its
        // title otherwise, and a new language would move and resize it.
        egui::Window::new(tr(lang, "settings"))
            .id(egui::Id::unique("settings_window"))
            .min_width(460.0)
            .open(&mut open)
            .resizable(false)
            .show(egui_context, |ui| {
                egui::Grid::new("settings").num_columns(2).show(ui, |ui| {
                    reanalyze |= analysis_rows_ui(ui, lang, &mut settings);
                    time_display_row_ui(ui, context);
                    self.read_tz_row_ui(ui, context);
                    match ttl_setting_ui(ui, lang, &mut self.read_ttl) {
                        TtlEdit::Apply(ttl) => context.send(Command::SetReadTtl(ttl)),
                        TtlEdit::Unchanged => {}
                        TtlEdit::Invalid(e) => context.send(Command::SetNotice(Some(e))),
                    }
                    ui.end_row();
                    self.mapping_row_ui(ui, context);
                    display_rows_ui(ui, context);
                });
                ui.separator();
                reanalyze |= self.host_offsets_ui(ui, lang, &mut settings);
            });
        if open != context.open.settings {
            context.send(Command::SetPanelOpen(Panel::Settings, open));
        }
        if reanalyze {
            context.send(Command::SetSettings(settings));
        }
    }

    /// The zone of times without offset, applied by reloading.
    fn read_tz_row_ui(&mut self, ui: &mut Ui, context: &mut PanelContext<'_>) {
        let lang = context.lang();
        let l = ui.label(tr(lang, "read_tz"));
        ui.horizontal(|ui| {
            let edit = ui
                .add(
                    egui::TextEdit::singleline(&mut self.read_tz)
                        .hint_text("UTC")
                        .desired_width(120.0),
                )
                .labelled_by(l.id);
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui.button(tr(lang, "apply_reload")).clicked() || enter {
                // Empty reads naive times as UTC again.
                let zone = self.read_tz.trim();
                match crate::ingest::parse_tz(zone) {
                    Err(e) if !zone.is_empty() => {
                        context.send(Command::SetNotice(Some(e.to_string())))
                    }
                    _ => context.send(Command::SetReadZone(
                        (!zone.is_empty()).then(|| zone.to_string()),
                    )),
                }
            }
        });
        ui.end_row();
    }

    /// The mapping file of the files on screen: a path to type (no file
    /// dialog is needed) or to choose with `…`; applied by reloading.
    fn mapping_row_ui(&mut self, ui: &mut Ui, context: &mut PanelContext<'_>) {
        let lang = context.lang();
        let l = ui.label(tr(lang, "mapping_file"));
        let files = context.session.is_some_and(|s| !s.files().is_empty());
        ui.vertical(|ui| {
            ui.add_enabled_ui(files, |ui| {
                ui.horizontal(|ui| {
                    let edit = ui
                        .add(
                            egui::TextEdit::singleline(&mut self.mapping)
                                .hint_text(tr(lang, "none"))
                                .desired_width(220.0),
                        )
                        .labelled_by(l.id);
                    let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                    if ui.button(tr(lang, "read_with_it")).clicked() || enter {
                        let path = self.mapping.trim();
                        context.send(Command::SetMapping(
                            (!path.is_empty()).then(|| PathBuf::from(path)),
                        ));
                    }
                    if ui.button("…").clicked() {
                        context.send(Command::MappingDialog);
                    }
                });
            });
            ui.label(egui::RichText::new(tr(lang, "mapping_file_hint")).weak());
        });
        ui.end_row();
    }

    /// Clock offsets per host: edit, remove, add. True when they changed.
    fn host_offsets_ui(&mut self, ui: &mut Ui, lang: Lang, settings: &mut Settings) -> bool {
        let mut changed = false;
        ui.label(tr(lang, "host_offsets"));
        let mut remove = None;
        for (host, ms) in settings.host_offsets_ms.iter_mut() {
            ui.horizontal(|ui| {
                ui.label(host);
                changed |= ui
                    .add(egui::DragValue::new(ms).speed(1.0).suffix(" ms"))
                    .changed();
                if ui.small_button(tr(lang, "remove")).clicked() {
                    remove = Some(host.clone());
                }
            });
        }
        if let Some(h) = remove {
            settings.host_offsets_ms.remove(&h);
            changed = true;
        }
        ui.horizontal(|ui| {
            ui.add(
                egui::TextEdit::singleline(&mut self.offset_host)
                    .hint_text(tr(lang, "host"))
                    .desired_width(120.0),
            );
            ui.add(egui::DragValue::new(&mut self.offset_ms).suffix(" ms"));
            if ui.button(tr(lang, "add_host")).clicked() && !self.offset_host.trim().is_empty() {
                settings
                    .host_offsets_ms
                    .insert(self.offset_host.trim().to_string(), self.offset_ms);
                self.offset_host.clear();
                changed = true;
            }
        });
        changed
    }
}

/// Unit loss, currency, near-miss ratio and streak, log-lag tolerance.
/// True when one changed.
fn analysis_rows_ui(ui: &mut Ui, lang: Lang, st: &mut Settings) -> bool {
    let mut changed = false;
    let l = ui.label(tr(lang, "unit_loss"));
    ui.horizontal(|ui| {
        let mut known = st.unit_loss.is_some();
        if ui
            .checkbox(&mut known, tr(lang, "unit_loss_known"))
            .changed()
        {
            st.unit_loss = known.then_some(st.unit_loss.unwrap_or(0.0));
            changed = true;
        }
        if let Some(v) = st.unit_loss.as_mut() {
            changed |= ui
                .add(egui::DragValue::new(v).range(0.0..=1e9).speed(1.0))
                .labelled_by(l.id)
                .changed();
        } else {
            ui.label("¥?");
        }
    });
    ui.end_row();
    let l = ui.label(tr(lang, "currency"));
    changed |= ui
        .add(egui::TextEdit::singleline(&mut st.currency).desired_width(60.0))
        .labelled_by(l.id)
        .changed();
    ui.end_row();
    let l = ui.label(tr(lang, "near_miss_ratio"));
    changed |= ui
        .add(
            egui::DragValue::new(&mut st.near_miss_ratio)
                .range(0.01..=1.0)
                .speed(0.01),
        )
        .labelled_by(l.id)
        .changed();
    ui.end_row();
    let l = ui.label(tr(lang, "near_miss_streak"));
    changed |= ui
        .add(egui::DragValue::new(&mut st.near_miss_streak).range(1..=1000))
        .labelled_by(l.id)
        .changed();
    ui.end_row();
    let l = ui.label(tr(lang, "log_lag"));
    changed |= ui
        .add(
            egui::DragValue::new(&mut st.log_lag_tolerance_ms)
                .range(0.0..=60_000.0)
                .speed(0.5),
        )
        .labelled_by(l.id)
        .changed();
    ui.end_row();
    changed
}

/// How times are shown: the log's zone, UTC, local, relative.
fn time_display_row_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    ui.label(tr(lang, "time_zone"));
    let mut display = context.state.time_display;
    ui.horizontal(|ui| {
        for (d, k) in [
            (TimeDisplay::LogZone, "tz_log"),
            (TimeDisplay::Utc, "tz_utc"),
            (TimeDisplay::Local, "tz_local"),
            (TimeDisplay::Relative, "tz_relative"),
        ] {
            ui.radio_value(&mut display, d, tr(lang, k));
        }
    });
    if display != context.state.time_display {
        context.send(Command::SetTimeDisplay(display));
    }
    ui.end_row();
}

/// Language, theme, load cache and CJK font.
fn display_rows_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    let state = context.state;
    ui.label(tr(lang, "language"));
    let mut chosen = state.lang;
    ui.horizontal(|ui| {
        ui.radio_value(&mut chosen, Lang::En, "English");
        ui.radio_value(&mut chosen, Lang::Zh, "简体中文");
    });
    if chosen != state.lang {
        context.send(Command::SetLang(chosen));
    }
    ui.end_row();
    ui.label(tr(lang, "theme"));
    let mut dark = state.dark;
    ui.horizontal(|ui| {
        ui.radio_value(&mut dark, false, tr(lang, "light"));
        ui.radio_value(&mut dark, true, tr(lang, "dark"));
    });
    if dark != state.dark {
        context.send(Command::SetDarkTheme(dark));
    }
    ui.end_row();
    let mut use_cache = state.use_cache;
    ui.label(tr(lang, "load_cache"));
    ui.checkbox(&mut use_cache, tr(lang, "use_cache"));
    if use_cache != state.use_cache {
        context.send(Command::SetUseCache(use_cache));
    }
    ui.end_row();
    let font_label = ui.label(tr(lang, "cjk_font"));
    let mut font = state
        .cjk_font
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    if ui
        .text_edit_singleline(&mut font)
        .labelled_by(font_label.id)
        .lost_focus()
    {
        context.send(Command::SetCjkFont(
            (!font.is_empty()).then(|| PathBuf::from(&font)),
        ));
    }
    ui.end_row();
}

/// What the TTL row asks for.
enum TtlEdit {
    /// Nothing this frame.
    Unchanged,
    /// Apply this setting and reload (`None` leaves such files' TTL unknown
    /// again).
    Apply(Option<String>),
    /// The text is not a TTL setting: why.
    Invalid(String),
}

/// The settings row for [`AppState::read_ttl`]: the TTL of files without a
/// TTL field, edited in `edit`.
fn ttl_setting_ui(ui: &mut egui::Ui, lang: Lang, edit: &mut String) -> TtlEdit {
    let l = ui.label(tr(lang, "read_ttl"));
    let mut applied = TtlEdit::Unchanged;
    ui.horizontal(|ui| {
        let field = ui
            .add(
                egui::TextEdit::singleline(edit)
                    .hint_text(tr(lang, "unknown"))
                    .desired_width(120.0),
            )
            .labelled_by(l.id);
        let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if ui.button(tr(lang, "apply_ttl")).clicked() || enter {
            let text = edit.trim();
            applied = match crate::ingest::FileTtl::parse(&[text]) {
                Ok(_) => TtlEdit::Apply((!text.is_empty()).then(|| text.to_string())),
                Err(e) => TtlEdit::Invalid(e.to_string()),
            };
        }
    });
    applied
}

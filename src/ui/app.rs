//! The window: persisted [`AppState`], the immutable [`Session`] (log and
//! analysis), the [`Selection`], and [`Command`]s applied after each frame.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};

use egui::{Color32, RichText, Ui};
use serde::{Deserialize, Serialize};

use super::i18n::{Lang, tr};
use super::loader::{self, Loading, Source};
use super::swimlane::{
    Filters, SwimlaneModel, TimeDisplay, TimelineEvent, TimelineOptions, TimelineView, timeline_ui,
};
use crate::analysis::{Analysis, Settings, analyze};
use crate::cli::AnalysisArgs;
use crate::ingest::{IngestOptions, Mapping};
use crate::model::LoadedLog;
use crate::report::{ReportInput, explain_incident, format_money, format_ms, format_time};

/// Storage key for [`AppState`].
pub const STORAGE_KEY: &str = "lockreplay-state";

/// What survives a restart.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct AppState {
    /// Analysis settings.
    pub settings: Settings,
    /// Visible range.
    pub view: TimelineView,
    /// Recently opened file sets, newest first.
    pub recent: Vec<Vec<PathBuf>>,
    /// UI language.
    pub lang: Lang,
    /// Dark theme.
    pub dark: bool,
    /// Axis labels.
    pub time_display: TimeDisplay,
    /// Filters.
    pub filters: Filters,
    /// Mapping file for the next load.
    pub mapping: Option<PathBuf>,
    /// A CJK font file chosen by the user.
    pub cjk_font: Option<PathBuf>,
}

impl Default for AppState {
    fn default() -> Self {
        AppState {
            settings: Settings {
                unit_loss: 200.0,
                ..Settings::default()
            },
            view: TimelineView::default(),
            recent: Vec::new(),
            lang: Lang::from_env(),
            dark: false,
            time_display: TimeDisplay::default(),
            filters: Filters::default(),
            mapping: None,
            cjk_font: None,
        }
    }
}

/// A loaded log and its analysis; replaced whole, never edited.
pub struct Session {
    /// What was loaded.
    pub source: Source,
    /// The log.
    pub log: Arc<LoadedLog>,
    /// The analysis with `settings`.
    pub analysis: Arc<Analysis>,
    /// Settings of that analysis.
    pub settings: Settings,
}

impl Session {
    /// The printers' view.
    pub fn input(&self) -> ReportInput<'_> {
        ReportInput {
            log: &self.log,
            settings: &self.settings,
            analysis: &self.analysis,
        }
    }
}

/// What is selected.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Selection {
    /// Incident id.
    pub incident: Option<usize>,
}

/// A change requested while drawing, applied after the frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Load files.
    Open(Vec<PathBuf>),
    /// Show the open dialog.
    OpenDialog,
    /// Choose a mapping file.
    MappingDialog,
    /// Load the current source again.
    Reload,
    /// Stop loading.
    CancelLoad,
    /// Select an incident and zoom to it.
    SelectIncident(usize),
    /// Zoom to the selected incident.
    ZoomToSelected,
    /// Show everything.
    FitAll,
    /// Re-run the analysis with the state's settings.
    Reanalyze,
    /// Rebuild the swimlane model (filters changed).
    Rebuild,
}

/// Incident table sort column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SortBy {
    Start,
    Key,
    Duration,
    Oversold,
    Loss,
}

/// The application.
pub struct App {
    /// Persisted state.
    pub state: AppState,
    /// Current session.
    pub session: Option<Session>,
    /// Selection.
    pub selection: Selection,
    /// Display list for the timeline.
    pub model: SwimlaneModel,
    loading: Option<Loading>,
    commands: Vec<Command>,
    cli_args: AnalysisArgs,
    /// A one-line notice in the status bar.
    pub notice: Option<String>,
    /// Error of the last load.
    pub error: Option<String>,
    dialog_rx: Option<(Receiver<Option<Vec<PathBuf>>>, bool)>,
    show_settings: bool,
    show_sources: bool,
    show_warnings: bool,
    sort: (SortBy, bool),
    offset_edit: (String, f64),
    /// False when no CJK font could be installed.
    pub cjk_ok: bool,
    fonts_done: bool,
    ctx: Option<egui::Context>,
}

impl App {
    /// A new app with `state`, overriding settings with the CLI flags.
    pub fn new(mut state: AppState, cli_args: AnalysisArgs) -> App {
        if let Ok(s) = cli_args.settings(&state.settings) {
            state.settings = s;
        }
        App {
            state,
            session: None,
            selection: Selection::default(),
            model: SwimlaneModel::default(),
            loading: None,
            commands: Vec::new(),
            cli_args,
            notice: None,
            error: None,
            dialog_rx: None,
            show_settings: false,
            show_sources: false,
            show_warnings: false,
            sort: (SortBy::Start, true),
            offset_edit: (String::new(), 0.0),
            cjk_ok: true,
            fonts_done: false,
            ctx: None,
        }
    }

    fn ingest_options(&self) -> IngestOptions {
        let mut opts = self.cli_args.ingest_options().unwrap_or_default();
        if opts.mapping.is_none()
            && let Some(p) = &self.state.mapping
            && let Ok(m) = Mapping::from_path(p)
        {
            opts.mapping = Some(m);
        }
        opts
    }

    /// Starts loading `source` in the background.
    pub fn start_load(&mut self, ctx: &egui::Context, source: Source) {
        if let Some(l) = &self.loading {
            l.cancel();
        }
        let ctx2 = ctx.clone();
        self.error = None;
        self.loading = Some(loader::spawn(
            source,
            self.ingest_options(),
            self.state.settings.clone(),
            move || ctx2.request_repaint(),
        ));
    }

    /// Loads `source` on this thread (tests and headless use).
    pub fn load_blocking(&mut self, source: Source) {
        let progress = crate::ingest::Progress::default();
        match loader::load_now(
            &source,
            &self.ingest_options(),
            &self.state.settings,
            &progress,
        ) {
            Ok(r) => self.install(r),
            Err(e) => self.error = Some(e),
        }
    }

    /// True while a load runs.
    pub fn is_loading(&self) -> bool {
        self.loading.is_some()
    }

    fn install(&mut self, r: loader::LoadResult) {
        if let Source::Files(paths) = &r.source {
            self.state.recent.retain(|p| p != paths);
            self.state.recent.insert(0, paths.clone());
            self.state.recent.truncate(10);
        }
        self.session = Some(Session {
            source: r.source,
            log: Arc::new(r.log),
            analysis: Arc::new(r.analysis),
            settings: r.settings,
        });
        self.selection = Selection::default();
        self.rebuild();
        self.state.view.fit(&self.model);
    }

    fn rebuild(&mut self) {
        if let Some(s) = &self.session {
            self.model = SwimlaneModel::build(&s.log, &s.analysis, &self.state.filters);
        }
    }

    fn reanalyze(&mut self) {
        if let Some(s) = &self.session {
            let analysis = analyze(&s.log, &self.state.settings);
            self.session = Some(Session {
                source: s.source.clone(),
                log: s.log.clone(),
                analysis: Arc::new(analysis),
                settings: self.state.settings.clone(),
            });
            let view = self.state.view.clone();
            self.rebuild();
            self.state.view = view;
        }
    }

    fn poll(&mut self, ctx: &egui::Context) {
        if let Some(l) = &self.loading
            && let Ok(result) = l.rx.try_recv()
        {
            self.loading = None;
            match result {
                Ok(r) => self.install(r),
                Err(e) => self.error = Some(e),
            }
        }
        if let Some((rx, _)) = &self.dialog_rx
            && let Ok(result) = rx.try_recv()
        {
            let mapping = self.dialog_rx.take().is_some_and(|(_, m)| m);
            match result {
                Some(files) if !files.is_empty() => {
                    if mapping {
                        self.state.mapping = files.first().cloned();
                        self.commands.push(Command::Reload);
                    } else {
                        self.commands.push(Command::Open(files));
                    }
                }
                _ => self.notice = Some(tr(self.state.lang, "no_dialog").to_string()),
            }
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        if !dropped.is_empty() {
            self.commands.push(Command::Open(dropped));
        }
        ctx.input_mut(|i| {
            if i.consume_key(egui::Modifiers::COMMAND, egui::Key::O) {
                self.commands.push(Command::OpenDialog);
            }
            if i.consume_key(egui::Modifiers::NONE, egui::Key::F5) {
                self.commands.push(Command::Reload);
            }
        });
    }

    fn spawn_dialog(&mut self, mapping: bool) {
        let (tx, rx) = channel();
        let ctx = self.ctx.clone();
        // rfd may block (or find no backend): run it on its own thread so the
        // window keeps drawing.
        let spawned = std::thread::Builder::new()
            .name("file-dialog".into())
            .spawn(move || {
                let dialog = rfd::FileDialog::new();
                let files = if mapping {
                    dialog
                        .add_filter("mapping", &["toml", "json"])
                        .pick_file()
                        .map(|f| vec![f])
                } else {
                    dialog.pick_files()
                };
                let _ = tx.send(files);
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            });
        match spawned {
            Ok(_) => self.dialog_rx = Some((rx, mapping)),
            Err(_) => self.notice = Some(tr(self.state.lang, "no_dialog").to_string()),
        }
    }

    fn apply(&mut self, ctx: &egui::Context) {
        for cmd in std::mem::take(&mut self.commands) {
            match cmd {
                Command::Open(files) => self.start_load(ctx, Source::Files(files)),
                Command::OpenDialog => self.spawn_dialog(false),
                Command::MappingDialog => self.spawn_dialog(true),
                Command::Reload => {
                    if let Some(s) = &self.session {
                        let src = s.source.clone();
                        self.start_load(ctx, src);
                    }
                }
                Command::CancelLoad => {
                    if let Some(l) = self.loading.take() {
                        l.cancel();
                    }
                }
                Command::SelectIncident(id) => {
                    self.selection.incident = Some(id);
                    self.state.view.zoom_to_incident(&self.model, id);
                }
                Command::ZoomToSelected => {
                    if let Some(id) = self.selection.incident {
                        self.state.view.zoom_to_incident(&self.model, id);
                    }
                }
                Command::FitAll => self.state.view.fit(&self.model),
                Command::Reanalyze => self.reanalyze(),
                Command::Rebuild => self.rebuild(),
            }
        }
    }

    /// Draws the whole window into `ui` and applies the frame's commands.
    pub fn ui(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        if !self.fonts_done {
            self.fonts_done = true;
            self.cjk_ok = super::fonts::setup(&ctx, self.state.cjk_font.as_deref());
        }
        self.ctx = Some(ctx.clone());
        ctx.set_theme(if self.state.dark {
            egui::Theme::Dark
        } else {
            egui::Theme::Light
        });
        self.poll(&ctx);
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        egui::Panel::top("summary").show(ui, |ui| self.summary_ui(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui));
        if self.show_warnings {
            egui::Panel::bottom("warnings")
                .resizable(true)
                .default_size(140.0)
                .show(ui, |ui| self.warnings_ui(ui));
        }
        egui::Panel::left("incidents")
            .resizable(true)
            .default_size(600.0)
            .show(ui, |ui| self.incidents_ui(ui));
        egui::Panel::right("details")
            .resizable(true)
            .default_size(380.0)
            .show(ui, |ui| self.details_ui(ui));
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| self.central_ui(ui));
        self.settings_window(&ctx);
        self.sources_window(&ctx);
        self.apply(&ctx);
    }

    fn menu_ui(&mut self, ui: &mut Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button(tr(self.state.lang, "file"), |ui| {
                if ui
                    .button(format!("{}  Ctrl+O", tr(self.state.lang, "open")))
                    .clicked()
                {
                    self.commands.push(Command::OpenDialog);
                    ui.close();
                }
                ui.menu_button(tr(self.state.lang, "open_recent"), |ui| {
                    for files in self.state.recent.clone() {
                        let label = files
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ");
                        if ui.button(label).clicked() {
                            self.commands.push(Command::Open(files));
                            ui.close();
                        }
                    }
                });
                if ui
                    .button(format!("{}  F5", tr(self.state.lang, "reload")))
                    .clicked()
                {
                    self.commands.push(Command::Reload);
                    ui.close();
                }
                if ui.button(tr(self.state.lang, "load_mapping")).clicked() {
                    self.commands.push(Command::MappingDialog);
                    ui.close();
                }
                ui.separator();
                if ui.button(tr(self.state.lang, "quit")).clicked() {
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                }
            });
            ui.menu_button(tr(self.state.lang, "view"), |ui| {
                if ui.button(tr(self.state.lang, "fit_all")).clicked() {
                    self.commands.push(Command::FitAll);
                    ui.close();
                }
                if ui.button(tr(self.state.lang, "zoom_incident")).clicked() {
                    self.commands.push(Command::ZoomToSelected);
                    ui.close();
                }
                ui.checkbox(&mut self.show_sources, tr(self.state.lang, "sources"));
                ui.checkbox(&mut self.show_warnings, tr(self.state.lang, "warnings"));
            });
            if ui.button(tr(self.state.lang, "settings")).clicked() {
                self.show_settings = !self.show_settings;
            }
            if ui.button(tr(self.state.lang, "sources")).clicked() {
                self.show_sources = !self.show_sources;
            }
        });
    }

    /// The summary line, `3 oversold · ¥600`.
    pub fn summary_text(&self) -> String {
        match &self.session {
            Some(s) => {
                let sum = &s.analysis.summary;
                format!(
                    "{} {} · {}",
                    sum.oversold_units,
                    tr(self.state.lang, "oversold"),
                    format_money(sum.loss, &s.settings.currency)
                )
            }
            None => String::new(),
        }
    }

    fn summary_ui(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            let Some(s) = &self.session else {
                ui.label("—");
                return;
            };
            let sum = &s.analysis.summary;
            let red = Color32::from_rgb(210, 40, 40);
            ui.label(
                RichText::new(format!(
                    "{} {}",
                    sum.incidents,
                    tr(self.state.lang, "incidents_lc")
                ))
                .strong()
                .color(if sum.incidents > 0 {
                    red
                } else {
                    ui.visuals().text_color()
                }),
            );
            ui.separator();
            ui.label(RichText::new(self.summary_text()).strong().color(red));
            ui.separator();
            ui.label(format!(
                "{} {}",
                sum.near_misses,
                tr(self.state.lang, "near_misses")
            ));
            ui.separator();
            if ui
                .link(format!(
                    "{} {}",
                    sum.warnings,
                    tr(self.state.lang, "warnings_lc")
                ))
                .clicked()
            {
                self.show_warnings = !self.show_warnings;
            }
            ui.separator();
            ui.label(
                RichText::new(format!(
                    "{} {} · {} {}",
                    sum.events,
                    tr(self.state.lang, "events"),
                    sum.keys,
                    tr(self.state.lang, "keys")
                ))
                .weak(),
            );
            ui.separator();
            ui.label(tr(self.state.lang, "filters"));
            let mut changed = false;
            changed |= ui
                .add(
                    egui::TextEdit::singleline(&mut self.state.filters.key)
                        .hint_text(tr(self.state.lang, "filter_key"))
                        .desired_width(140.0),
                )
                .changed();
            changed |= ui
                .add(
                    egui::TextEdit::singleline(&mut self.state.filters.holder)
                        .hint_text(tr(self.state.lang, "filter_holder"))
                        .desired_width(90.0),
                )
                .changed();
            changed |= ui
                .add(
                    egui::TextEdit::singleline(&mut self.state.filters.host)
                        .hint_text(tr(self.state.lang, "filter_host"))
                        .desired_width(90.0),
                )
                .changed();
            changed |= ui
                .checkbox(
                    &mut self.state.filters.only_incidents,
                    tr(self.state.lang, "only_incidents"),
                )
                .changed();
            if self.model.bad_regex {
                ui.label(RichText::new(tr(self.state.lang, "bad_regex")).color(red));
            }
            if changed {
                self.commands.push(Command::Rebuild);
            }
        });
    }

    fn status_ui(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            if let Some(l) = &self.loading {
                let (read, total) = l.bytes();
                ui.label(tr(self.state.lang, "loading"));
                ui.add(
                    egui::ProgressBar::new(l.fraction())
                        .desired_width(240.0)
                        .text(format!("{} / {} KB", read >> 10, total >> 10)),
                );
                if ui.button(tr(self.state.lang, "cancel")).clicked() {
                    self.commands.push(Command::CancelLoad);
                }
                ui.separator();
            }
            if let Some(e) = &self.error {
                ui.label(
                    RichText::new(format!("{}: {e}", tr(self.state.lang, "load_failed")))
                        .color(Color32::from_rgb(210, 40, 40)),
                );
                ui.separator();
            }
            if let Some(s) = &self.session {
                let name = match &s.source {
                    Source::Sample => format!(
                        "{} ({})",
                        loader::SAMPLE_NAME,
                        tr(self.state.lang, "sample")
                    ),
                    Source::Files(f) => f
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                };
                ui.label(RichText::new(name).weak());
                ui.separator();
                let w = s.log.warnings.total();
                if ui
                    .selectable_label(
                        self.show_warnings,
                        format!("⚠ {} {}", w, tr(self.state.lang, "warnings_lc")),
                    )
                    .clicked()
                {
                    self.show_warnings = !self.show_warnings;
                }
            }
            if !self.cjk_ok {
                ui.separator();
                ui.label(
                    RichText::new(tr(self.state.lang, "no_cjk_font"))
                        .color(Color32::from_rgb(200, 120, 0)),
                );
            }
            if let Some(n) = &self.notice {
                ui.separator();
                ui.label(RichText::new(n).color(Color32::from_rgb(200, 120, 0)));
                if ui.small_button("✕").clicked() {
                    self.notice = None;
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                ui.label(
                    RichText::new(tr(self.state.lang, "help_nav"))
                        .weak()
                        .small(),
                );
            });
        });
    }

    fn warnings_ui(&mut self, ui: &mut Ui) {
        let Some(s) = &self.session else { return };
        ui.heading(format!(
            "{} ({})",
            tr(self.state.lang, "warnings"),
            s.log.warnings.total()
        ));
        egui::ScrollArea::vertical()
            .auto_shrink(false)
            .show(ui, |ui| {
                for w in s.log.warnings.kept() {
                    ui.monospace(format!("{}:{}: {}", w.file, w.line, w.reason));
                }
                if s.log.warnings.dropped() > 0 {
                    ui.label(format!("… +{}", s.log.warnings.dropped()));
                }
            });
    }

    fn incidents_ui(&mut self, ui: &mut Ui) {
        use egui_extras::{Column, TableBuilder};
        ui.heading(tr(self.state.lang, "incidents"));
        let Some(s) = &self.session else { return };
        let a = &s.analysis;
        if a.incidents.is_empty() {
            ui.label(tr(self.state.lang, "no_incidents"));
            return;
        }
        let mut order: Vec<usize> = (0..a.incidents.len()).collect();
        let (by, asc) = self.sort;
        order.sort_by(|&x, &y| {
            let (i, j) = (&a.incidents[x], &a.incidents[y]);
            let o = match by {
                SortBy::Start => i.start_ns.cmp(&j.start_ns),
                SortBy::Key => s.log.strings.get(i.key).cmp(s.log.strings.get(j.key)),
                SortBy::Duration => i.duration_ms().total_cmp(&j.duration_ms()),
                SortBy::Oversold => i.oversold_units.cmp(&j.oversold_units),
                SortBy::Loss => i.loss.total_cmp(&j.loss),
            };
            if asc { o } else { o.reverse() }
        });
        let lang = self.state.lang;
        let mut sort = self.sort;
        let mut clicked = None;
        let offset = s.log.display_offset_s;
        ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
        TableBuilder::new(ui)
            .striped(true)
            .resizable(true)
            .sense(egui::Sense::click())
            .column(Column::auto().at_least(52.0))
            .column(Column::auto().at_least(90.0))
            .column(Column::initial(110.0).clip(true))
            .column(Column::auto())
            .column(Column::auto())
            .column(Column::initial(90.0).clip(true))
            .column(Column::auto().at_least(56.0))
            .column(Column::remainder().at_least(60.0))
            .header(22.0, |mut h| {
                let mut head = |h: &mut egui_extras::TableRow<'_, '_>,
                                label: &str,
                                col: Option<SortBy>| {
                    h.col(|ui| {
                        let arrow = match col {
                            Some(c) if c == sort.0 => {
                                if sort.1 {
                                    " ▲"
                                } else {
                                    " ▼"
                                }
                            }
                            _ => "",
                        };
                        let r = ui.add(
                            egui::Button::new(RichText::new(format!("{label}{arrow}")).strong())
                                .frame(false),
                        );
                        if r.clicked()
                            && let Some(c) = col
                        {
                            sort = if sort.0 == c { (c, !sort.1) } else { (c, true) };
                        }
                    });
                };
                head(&mut h, "#", None);
                head(&mut h, tr(lang, "start"), Some(SortBy::Start));
                head(&mut h, tr(lang, "key"), Some(SortBy::Key));
                head(&mut h, tr(lang, "holders"), None);
                head(&mut h, tr(lang, "duration"), Some(SortBy::Duration));
                head(&mut h, tr(lang, "cause"), None);
                head(&mut h, tr(lang, "oversold"), Some(SortBy::Oversold));
                head(&mut h, tr(lang, "loss"), Some(SortBy::Loss));
            })
            .body(|body| {
                body.rows(20.0, order.len(), |mut row| {
                    let inc = &a.incidents[order[row.index()]];
                    let selected = self.selection.incident == Some(inc.id);
                    row.set_selected(selected);
                    let mut hit = false;
                    row.col(|ui| {
                        hit |= ui.selectable_label(selected, inc.label()).clicked();
                    });
                    row.col(|ui| {
                        let t = format_time(inc.start_ns, offset);
                        ui.label(t.get(11..23).unwrap_or(&t));
                    });
                    row.col(|ui| {
                        ui.label(s.log.strings.get(inc.key));
                    });
                    row.col(|ui| {
                        ui.label(inc.leases.len().to_string());
                    });
                    row.col(|ui| {
                        ui.label(format_ms(inc.duration_ms()));
                    });
                    row.col(|ui| {
                        ui.label(inc.cause.as_str());
                    });
                    row.col(|ui| {
                        let t = inc.oversold_units.to_string();
                        if inc.oversold_units > 0 {
                            ui.label(
                                RichText::new(t)
                                    .color(Color32::from_rgb(210, 40, 40))
                                    .strong(),
                            );
                        } else {
                            ui.label(t);
                        }
                    });
                    row.col(|ui| {
                        ui.label(format_money(inc.loss, &s.settings.currency));
                    });
                    if hit || row.response().clicked() {
                        clicked = Some(inc.id);
                    }
                });
            });
        self.sort = sort;
        if let Some(id) = clicked {
            self.commands.push(Command::SelectIncident(id));
        }
    }

    fn details_ui(&mut self, ui: &mut Ui) {
        ui.heading(tr(self.state.lang, "details"));
        let Some(s) = &self.session else { return };
        let Some(inc) = self
            .selection
            .incident
            .and_then(|i| s.analysis.incidents.get(i))
        else {
            ui.label(tr(self.state.lang, "select_incident"));
            return;
        };
        let lang = self.state.lang;
        let input = s.input();
        let a = &s.analysis;
        let name = |sym| s.log.strings.get(sym);
        let time = |ns| input.time(ns);
        egui::ScrollArea::vertical()
            .auto_shrink(false)
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.label(RichText::new(inc.label()).strong().size(16.0));
                    ui.label(RichText::new(name(inc.key)).monospace());
                    if ui.button(tr(lang, "zoom_incident")).clicked() {
                        self.commands.push(Command::ZoomToSelected);
                    }
                });
                ui.label(RichText::new(tr(lang, "explanation")).strong());
                ui.label(explain_incident(&input, inc));
                ui.separator();
                ui.label(RichText::new(tr(lang, "leases")).strong());
                for &li in &inc.leases {
                    let l = &a.leases[li];
                    egui::Frame::group(ui.style()).show(ui, |ui| {
                        ui.label(RichText::new(name(l.holder)).monospace().strong());
                        egui::Grid::new(("lease", li))
                            .num_columns(2)
                            .show(ui, |ui| {
                                let row = |ui: &mut Ui, k: &str, v: String| {
                                    ui.label(RichText::new(k).weak());
                                    ui.label(v);
                                    ui.end_row();
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
                                    format!("{} ({:?})", time(l.lock_end_ns), l.lock_end),
                                );
                                row(
                                    ui,
                                    tr(lang, "believed_until"),
                                    format!("{} ({:?})", time(l.window_end_ns), l.window_end),
                                );
                                row(
                                    ui,
                                    tr(lang, "hold_vs_ttl"),
                                    format!(
                                        "{} / {}",
                                        format_ms(l.hold_ms()),
                                        l.ttl_ms.map_or_else(
                                            || "∞".to_string(),
                                            |t| format_ms(t as f64)
                                        )
                                    ),
                                );
                            });
                        if l.inferred {
                            ui.label(RichText::new(tr(lang, "inferred")).italics());
                        }
                    });
                }
                if !inc.sales.is_empty() {
                    ui.separator();
                    ui.label(RichText::new(tr(lang, "orders")).strong());
                    egui::Grid::new("orders")
                        .striped(true)
                        .num_columns(4)
                        .show(ui, |ui| {
                            ui.label(RichText::new(tr(lang, "order")).weak());
                            ui.label(RichText::new(tr(lang, "holder")).weak());
                            ui.label(RichText::new(tr(lang, "time")).weak());
                            ui.label(RichText::new(tr(lang, "units_over")).weak());
                            ui.end_row();
                            for &si in &inc.sales {
                                let sale = &a.sales[si];
                                ui.label(sale.order_id.map(name).unwrap_or("—"));
                                ui.label(sale.holder.map(name).unwrap_or("—"));
                                let t = time(sale.at_ns);
                                ui.label(t.get(11..23).unwrap_or(&t).to_string());
                                if sale.oversold_units > 0 {
                                    ui.label(
                                        RichText::new(sale.oversold_units.to_string())
                                            .color(Color32::from_rgb(210, 40, 40))
                                            .strong(),
                                    );
                                } else {
                                    ui.label("0");
                                }
                                ui.end_row();
                            }
                        });
                }
                ui.separator();
                ui.label(RichText::new(tr(lang, "source_lines")).strong());
                for &li in &inc.leases {
                    for line in &a.leases[li].lines {
                        ui.monospace(format!("{}:{}", s.log.source_name(*line), line.line));
                    }
                }
            });
    }

    fn central_ui(&mut self, ui: &mut Ui) {
        if self.session.is_none() {
            ui.centered_and_justified(|ui| {
                if self.loading.is_some() {
                    ui.spinner();
                } else {
                    ui.label(tr(self.state.lang, "no_dialog"));
                }
            });
            return;
        }
        let opts = TimelineOptions {
            time_display: self.state.time_display,
            selected: self.selection.incident,
            lang: self.state.lang,
        };
        if let Some(TimelineEvent::IncidentClicked(id)) =
            timeline_ui(ui, &self.model, &mut self.state.view, opts)
        {
            self.selection.incident = Some(id);
        }
    }

    fn settings_window(&mut self, ctx: &egui::Context) {
        let mut open = self.show_settings;
        let lang = self.state.lang;
        let mut reanalyze = false;
        egui::Window::new(tr(lang, "settings"))
            .open(&mut open)
            .resizable(false)
            .show(ctx, |ui| {
                let st = &mut self.state.settings;
                egui::Grid::new("settings").num_columns(2).show(ui, |ui| {
                    let l = ui.label(tr(lang, "unit_loss"));
                    reanalyze |= ui
                        .add(
                            egui::DragValue::new(&mut st.unit_loss)
                                .range(0.0..=1e9)
                                .speed(1.0),
                        )
                        .labelled_by(l.id)
                        .changed();
                    ui.end_row();
                    let l = ui.label(tr(lang, "currency"));
                    reanalyze |= ui
                        .add(egui::TextEdit::singleline(&mut st.currency).desired_width(60.0))
                        .labelled_by(l.id)
                        .changed();
                    ui.end_row();
                    let l = ui.label(tr(lang, "near_miss_ratio"));
                    reanalyze |= ui
                        .add(
                            egui::DragValue::new(&mut st.near_miss_ratio)
                                .range(0.01..=1.0)
                                .speed(0.01),
                        )
                        .labelled_by(l.id)
                        .changed();
                    ui.end_row();
                    let l = ui.label(tr(lang, "near_miss_streak"));
                    reanalyze |= ui
                        .add(egui::DragValue::new(&mut st.near_miss_streak).range(1..=1000))
                        .labelled_by(l.id)
                        .changed();
                    ui.end_row();
                    let l = ui.label(tr(lang, "log_lag"));
                    reanalyze |= ui
                        .add(
                            egui::DragValue::new(&mut st.log_lag_tolerance_ms)
                                .range(0.0..=60_000.0)
                                .speed(0.5),
                        )
                        .labelled_by(l.id)
                        .changed();
                    ui.end_row();
                    ui.label(tr(lang, "time_zone"));
                    ui.horizontal(|ui| {
                        for (d, k) in [
                            (TimeDisplay::LogZone, "tz_log"),
                            (TimeDisplay::Utc, "tz_utc"),
                            (TimeDisplay::Local, "tz_local"),
                            (TimeDisplay::Relative, "tz_relative"),
                        ] {
                            ui.radio_value(&mut self.state.time_display, d, tr(lang, k));
                        }
                    });
                    ui.end_row();
                    ui.label(tr(lang, "language"));
                    ui.horizontal(|ui| {
                        ui.radio_value(&mut self.state.lang, Lang::En, "English");
                        ui.radio_value(&mut self.state.lang, Lang::Zh, "简体中文");
                    });
                    ui.end_row();
                    ui.label(tr(lang, "theme"));
                    ui.horizontal(|ui| {
                        ui.radio_value(&mut self.state.dark, false, tr(lang, "light"));
                        ui.radio_value(&mut self.state.dark, true, tr(lang, "dark"));
                    });
                    ui.end_row();
                    ui.label(tr(lang, "mapping_file"));
                    ui.horizontal(|ui| {
                        let m = self.state.mapping.as_ref().map_or_else(
                            || tr(lang, "none").to_string(),
                            |p| p.display().to_string(),
                        );
                        ui.label(m);
                        if ui.button("…").clicked() {
                            self.commands.push(Command::MappingDialog);
                        }
                    });
                    ui.end_row();
                    let font_label = ui.label(tr(lang, "cjk_font"));
                    let mut font = self
                        .state
                        .cjk_font
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default();
                    if ui
                        .text_edit_singleline(&mut font)
                        .labelled_by(font_label.id)
                        .lost_focus()
                    {
                        self.state.cjk_font = (!font.is_empty()).then(|| PathBuf::from(&font));
                        self.fonts_done = false;
                    }
                    ui.end_row();
                });
                ui.separator();
                ui.label(tr(lang, "host_offsets"));
                let st = &mut self.state.settings;
                let mut remove = None;
                for (host, ms) in st.host_offsets_ms.iter_mut() {
                    ui.horizontal(|ui| {
                        ui.label(host);
                        reanalyze |= ui
                            .add(egui::DragValue::new(ms).speed(1.0).suffix(" ms"))
                            .changed();
                        if ui.small_button(tr(lang, "remove")).clicked() {
                            remove = Some(host.clone());
                        }
                    });
                }
                if let Some(h) = remove {
                    st.host_offsets_ms.remove(&h);
                    reanalyze = true;
                }
                ui.horizontal(|ui| {
                    ui.add(
                        egui::TextEdit::singleline(&mut self.offset_edit.0)
                            .hint_text(tr(lang, "host"))
                            .desired_width(120.0),
                    );
                    ui.add(egui::DragValue::new(&mut self.offset_edit.1).suffix(" ms"));
                    if ui.button(tr(lang, "add_host")).clicked()
                        && !self.offset_edit.0.trim().is_empty()
                    {
                        st.host_offsets_ms
                            .insert(self.offset_edit.0.trim().to_string(), self.offset_edit.1);
                        self.offset_edit.0.clear();
                        reanalyze = true;
                    }
                });
            });
        self.show_settings = open;
        if reanalyze {
            self.commands.push(Command::Reanalyze);
        }
    }

    /// Opens the settings window (tests).
    pub fn open_settings(&mut self) {
        self.show_settings = true;
    }

    fn sources_window(&mut self, ctx: &egui::Context) {
        let Some(s) = &self.session else { return };
        let lang = self.state.lang;
        let mut open = self.show_sources;
        egui::Window::new(tr(lang, "sources"))
            .open(&mut open)
            .default_width(520.0)
            .show(ctx, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    for src in &s.log.sources {
                        egui::CollapsingHeader::new(&src.name)
                            .default_open(true)
                            .show(ui, |ui| {
                                egui::Grid::new(("src", &src.name))
                                    .num_columns(2)
                                    .show(ui, |ui| {
                                        ui.label(tr(lang, "dialect"));
                                        ui.label(format!(
                                            "{:?}{}",
                                            src.dialect,
                                            if src.gzip { " (gzip)" } else { "" }
                                        ));
                                        ui.end_row();
                                        ui.label(tr(lang, "encoding"));
                                        ui.label(&src.encoding);
                                        ui.end_row();
                                        ui.label(tr(lang, "lines"));
                                        ui.label(format!(
                                            "{} / {} / {} / {}",
                                            src.lines_read,
                                            src.events_loaded,
                                            src.lines_skipped,
                                            src.lines_warned
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
                                        ui.label(format!("• {n}"));
                                    }
                                }
                            });
                    }
                });
            });
        self.show_sources = open;
    }
}

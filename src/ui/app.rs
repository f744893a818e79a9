//! The window: persisted [`AppState`], the immutable [`Session`] (log and
//! analysis), the [`Selection`], and [`Command`]s applied after each frame.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use egui::{Color32, RichText, Ui};
use serde::{Deserialize, Serialize};

use super::i18n::{Lang, count_label, tr, trf};
use super::loader::{self, Job, Loading, Source};
use super::swimlane::{
    Filters, SwimlaneModel, TimeDisplay, TimelineEvent, TimelineOptions, TimelineView, timeline_ui,
};
use crate::analysis::{Analysis, Cause, Settings};
use crate::cli::AnalysisArgs;
use crate::ingest::{IngestOptions, Mapping};
use crate::model::LoadedLog;
use crate::replay::{LeaseStatus, Playback, PlaybackCommand, SPEED_PRESETS, StateIndex};
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
    /// Zone of times written without an offset (`+08:00`, `Asia/Shanghai`),
    /// for the next load; `None` reads them as UTC. `--tz` overrides it.
    pub read_tz: Option<String>,
    /// TTL of files whose records carry no TTL field, for the next load:
    /// `MS` for all of them, or `FILE=MS` items, comma-separated.
    /// `--ttl-ms` overrides it; `None` leaves their TTL unknown.
    pub read_ttl: Option<String>,
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
            read_tz: None,
            read_ttl: None,
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
    /// The replay's index over the analysis.
    pub index: Arc<StateIndex>,
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
    /// Change the replay's time cursor or playback.
    Playback(PlaybackCommand),
    /// Pause and put the cursor at the start of the selected incident.
    JumpToIncidentStart,
    /// Loop the selected incident (or the visible range) on or off.
    ToggleLoop,
    /// Take a screenshot and save or copy it.
    Screenshot(ShotAction),
    /// Write the report folder (the headless `report`), choosing the folder
    /// with a dialog.
    ExportReport,
}

/// What a screenshot is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShotAction {
    /// Only the timeline, not the whole window.
    pub timeline_only: bool,
    /// Copy to the clipboard instead of saving a PNG.
    pub copy: bool,
}

/// A screenshot being taken: frames still to wait (so a closing menu is not
/// in the picture), then the channel the image arrives on.
struct PendingShot {
    action: ShotAction,
    wait_frames: u8,
    rx: Option<Receiver<Arc<egui::ColorImage>>>,
}

/// A dialog that answers faster than this was never shown (no dialog
/// backend): fall back to a path in the current directory.
const NO_DIALOG_WITHIN: Duration = Duration::from_millis(300);

/// Asks `pick` (a native dialog) for a path when `dialogs` is on. A dialog
/// that answers "nothing" within [`NO_DIALOG_WITHIN`] was never shown (rfd
/// finds no portal), so the answer is `fallback`. Returns the path and
/// whether it is the fallback, or `None` when the user cancelled.
fn pick_or_fallback(
    dialogs: bool,
    pick: impl FnOnce() -> Option<PathBuf>,
    fallback: PathBuf,
) -> Option<(PathBuf, bool)> {
    if !dialogs {
        return Some((fallback, true));
    }
    let asked = Instant::now();
    match pick() {
        Some(p) => Some((p, false)),
        None if asked.elapsed() < NO_DIALOG_WITHIN => Some((fallback, true)),
        None => None,
    }
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
    /// The saved settings and the settings as the command-line flags made
    /// them, when flags changed anything: flags apply to this window only.
    settings_before_flags: Option<(Settings, Settings)>,
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
    /// The settings window's text for [`AppState::read_tz`].
    tz_edit: String,
    /// The settings window's text for [`AppState::read_ttl`].
    ttl_edit: String,
    /// False when no CJK font could be installed.
    pub cjk_ok: bool,
    fonts_done: bool,
    ctx: Option<egui::Context>,
    /// The replay's time cursor and playback.
    pub playback: Playback,
    /// Loop the selected incident (or the visible range).
    pub loop_on: bool,
    /// Where to put the cursor once loaded (`--cursor`).
    pub initial_cursor: Option<String>,
    /// Where the timeline was drawn last frame, points.
    timeline_rect: Option<egui::Rect>,
    shot: Option<PendingShot>,
    jobs: (Sender<String>, Receiver<String>),
    /// Ask where to save through rfd's native dialogs. When false (or when
    /// no dialog backend answers), pictures and reports go to
    /// `fallback_dir`.
    pub use_dialogs: bool,
    /// Where pictures and report folders go without a dialog: the current
    /// directory by default.
    pub fallback_dir: PathBuf,
}

impl App {
    /// A new app with `state`, overriding settings with the CLI flags (for
    /// this window only: see [`App::state_to_save`]).
    pub fn new(mut state: AppState, cli_args: AnalysisArgs) -> App {
        let mut settings_before_flags = None;
        if let Ok(s) = cli_args.settings(&state.settings)
            && s != state.settings
        {
            let saved = std::mem::replace(&mut state.settings, s.clone());
            settings_before_flags = Some((saved, s));
        }
        App {
            settings_before_flags,
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
            tz_edit: String::new(),
            ttl_edit: String::new(),
            cjk_ok: true,
            fonts_done: false,
            ctx: None,
            playback: Playback::new((0, 0)),
            loop_on: false,
            initial_cursor: None,
            timeline_rect: None,
            shot: None,
            jobs: channel(),
            use_dialogs: true,
            fallback_dir: PathBuf::from("."),
        }
    }

    /// The state to persist: the settings given as command-line flags are
    /// not saved (the next window without flags gets the saved ones back),
    /// unless they were changed in this window, which saves what is shown.
    pub fn state_to_save(&self) -> AppState {
        let mut s = self.state.clone();
        if let Some((saved, from_flags)) = &self.settings_before_flags
            && self.state.settings == *from_flags
        {
            s.settings = saved.clone();
        }
        s
    }

    fn ingest_options(&self) -> IngestOptions {
        let mut opts = self.cli_args.ingest_options().unwrap_or_default();
        if self.cli_args.tz.is_none()
            && let Some(zone) = &self.state.read_tz
            && let Ok(tz) = crate::ingest::parse_tz(zone)
        {
            opts.tz = Some(tz);
        }
        if self.cli_args.ttl_ms.is_empty()
            && let Some(ttl) = &self.state.read_ttl
            && let Ok(ttl) = crate::ingest::FileTtl::parse(&[ttl])
        {
            opts.ttl = ttl;
        }
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
        self.start_job(ctx, Job::Load(source));
    }

    /// Starts `job` on the loader thread, cancelling a running one.
    fn start_job(&mut self, ctx: &egui::Context, job: Job) {
        if let Some(l) = &self.loading {
            l.cancel();
        }
        let ctx2 = ctx.clone();
        self.error = None;
        self.loading = Some(loader::spawn(
            job,
            self.ingest_options(),
            self.state.settings.clone(),
            self.state.filters.clone(),
            move || ctx2.request_repaint(),
        ));
    }

    /// Loads `source` on this thread (tests and headless use).
    pub fn load_blocking(&mut self, source: Source) {
        let progress = crate::ingest::Progress::default();
        match loader::load_now(
            &Job::Load(source),
            &self.ingest_options(),
            &self.state.settings,
            &self.state.filters,
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
        let extent = r.index.extent();
        let rebuild = r.filters != self.state.filters;
        self.session = Some(Session {
            source: r.source,
            log: r.log,
            analysis: Arc::new(r.analysis),
            settings: r.settings,
            index: Arc::new(r.index),
        });
        self.model = r.model;
        if rebuild {
            // The filters changed while the worker ran.
            self.rebuild();
        }
        if r.reanalysis {
            // Same log, new settings: keep the view and the cursor; the
            // incident list may have changed, so drop a stale selection.
            self.playback.extent = extent;
            let n = self
                .session
                .as_ref()
                .map_or(0, |s| s.analysis.incidents.len());
            if self.selection.incident.is_some_and(|i| i >= n) {
                self.selection = Selection::default();
            }
            return;
        }
        if let Some(Source::Files(paths)) = self.session.as_ref().map(|s| &s.source) {
            let paths = paths.clone();
            self.state.recent.retain(|p| *p != paths);
            self.state.recent.insert(0, paths);
            self.state.recent.truncate(10);
        }
        self.selection = Selection::default();
        // Lines that could not be read are the first thing to know about a
        // file: show their reasons at once.
        self.show_warnings = self
            .session
            .as_ref()
            .is_some_and(|s| s.log.warnings.total() > 0);
        // Local times read as UTC shift every time shown: say so, and where
        // to set the zone (the command line prints the same note).
        self.notice = None;
        if self
            .session
            .as_ref()
            .is_some_and(|s| s.log.sources.iter().any(|src| src.naive_read_as_utc))
        {
            self.notice = Some(tr(self.state.lang, "naive_utc").to_string());
        }
        // A file without TTL: its TTL is unknown; say where to give it.
        if self
            .session
            .as_ref()
            .is_some_and(|s| s.log.sources.iter().any(|src| src.ttl_unknown))
        {
            let ttl = tr(self.state.lang, "ttl_unknown");
            self.notice = Some(match self.notice.take() {
                Some(n) => format!("{n} {ttl}"),
                None => ttl.to_string(),
            });
        }
        self.state.view.fit(&self.model);
        let speed = self.playback.speed;
        self.playback = Playback::new(extent);
        self.playback.speed = speed;
        // Until the user replays, the cursor rests at the end: nothing is
        // "in the future", so nothing on the timeline is faded.
        if let Some(s) = &self.session {
            self.playback
                .apply(PlaybackCommand::Seek(extent.1), &s.index.clone());
        }
        self.loop_on = false;
        if let Some(spec) = self.initial_cursor.take() {
            match crate::cli::parse_cursor(&spec, extent.0) {
                Ok(t) => self.seek_and_show(t),
                Err(e) => self.notice = Some(format!("{e:#}")),
            }
        }
    }

    /// Puts the cursor at `t`, selecting and showing the incident that
    /// contains it, if any.
    pub fn seek_and_show(&mut self, t: i64) {
        let Some(s) = &self.session else { return };
        self.playback
            .apply(PlaybackCommand::Seek(t), &s.index.clone());
        if let Some(inc) = s
            .analysis
            .incidents
            .iter()
            .find(|i| i.start_ns <= t && t <= i.end_ns)
        {
            self.selection.incident = Some(inc.id);
            self.state.view.zoom_to_incident(&self.model, inc.id);
        }
    }

    /// The range the loop toggle loops: the selected incident's holds from
    /// the first grant to the last end, else the visible range.
    fn loop_range(&self) -> Option<(i64, i64)> {
        let s = self.session.as_ref()?;
        let a = &s.analysis;
        if let Some(inc) = self.selection.incident.and_then(|i| a.incidents.get(i)) {
            let leases = inc.leases.iter().filter_map(|&l| a.leases.get(l));
            let lo = leases.clone().map(|l| l.acquired_ns).min()?;
            let hi = leases.map(|l| l.window_end_ns.max(l.lock_end_ns)).max()?;
            return Some((lo, hi));
        }
        let t0 = self.model.t0_ns;
        let ns = |x: f64| t0 + (x * 1e9).round() as i64;
        Some((ns(self.state.view.start_s), ns(self.state.view.end_s)))
    }

    /// Seconds since the first event of the cursor (the timeline's unit).
    fn cursor_s(&self) -> f64 {
        (self.playback.cursor_ns - self.model.t0_ns) as f64 / 1e9
    }

    /// Advances playback by the frame time and keeps the cursor in view.
    fn tick_playback(&mut self, ctx: &egui::Context) {
        if self.loop_on {
            let want = self.loop_range();
            if want != self.playback.loop_range
                && let Some(s) = &self.session
            {
                let index = s.index.clone();
                self.playback.apply(PlaybackCommand::SetLoop(want), &index);
            }
        } else if self.playback.loop_range.is_some()
            && let Some(s) = &self.session
        {
            let index = s.index.clone();
            self.playback.apply(PlaybackCommand::SetLoop(None), &index);
        }
        if !self.playback.playing {
            return;
        }
        let dt = ctx.input(|i| i.stable_dt).clamp(0.0, 0.25);
        self.playback.tick(Duration::from_secs_f32(dt));
        let c = self.cursor_s();
        let v = &mut self.state.view;
        let span = v.end_s - v.start_s;
        if c > v.end_s || c < v.start_s {
            v.start_s = c - span * 0.1;
            v.end_s = v.start_s + span;
        }
        ctx.request_repaint();
    }

    fn rebuild(&mut self) {
        if let Some(s) = &self.session {
            self.model = SwimlaneModel::build(&s.log, &s.analysis, &self.state.filters);
        }
    }

    /// Analyses the shown log again with the current settings, in the
    /// background; the old analysis stays on screen until then. A file still
    /// loading is loaded again with the new settings.
    fn reanalyze(&mut self, ctx: &egui::Context) {
        if let Some(l) = &self.loading
            && !l.reanalysis
        {
            let source = l.source.clone();
            self.start_job(ctx, Job::Load(source));
            return;
        }
        if let Some(s) = &self.session {
            let job = Job::Reanalyze {
                source: s.source.clone(),
                log: s.log.clone(),
            };
            self.start_job(ctx, job);
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
        if !ctx.egui_wants_keyboard_input() {
            ctx.input_mut(|i| {
                for (key, cmd) in [
                    (egui::Key::Space, PlaybackCommand::TogglePlay),
                    (egui::Key::Comma, PlaybackCommand::StepBack),
                    (egui::Key::Period, PlaybackCommand::StepForward),
                ] {
                    if i.consume_key(egui::Modifiers::NONE, key) {
                        self.commands.push(Command::Playback(cmd));
                    }
                }
            });
        }
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
                Command::Reanalyze => self.reanalyze(ctx),
                Command::Rebuild => self.rebuild(),
                Command::Playback(cmd) => {
                    if let Some(s) = &self.session {
                        let index = s.index.clone();
                        self.playback.apply(cmd, &index);
                    }
                }
                Command::JumpToIncidentStart => {
                    if let Some(s) = &self.session
                        && let Some(inc) = self
                            .selection
                            .incident
                            .and_then(|i| s.analysis.incidents.get(i))
                    {
                        let (index, t, id) = (s.index.clone(), inc.start_ns, inc.id);
                        self.playback.apply(PlaybackCommand::Pause, &index);
                        self.playback.apply(PlaybackCommand::Seek(t), &index);
                        self.state.view.zoom_to_incident(&self.model, id);
                    }
                }
                Command::ToggleLoop => self.loop_on = !self.loop_on,
                Command::Screenshot(action) => {
                    self.shot = Some(PendingShot {
                        action,
                        wait_frames: 2,
                        rx: None,
                    });
                    ctx.request_repaint();
                }
                Command::ExportReport => self.export_report(),
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
        self.poll_shot(&ctx);
        self.tick_playback(&ctx);
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        egui::Panel::top("summary").show(ui, |ui| self.summary_ui(ui));
        egui::Panel::top("replay").show(ui, |ui| self.replay_bar_ui(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui));
        if self.show_warnings {
            egui::Panel::bottom("warnings")
                .resizable(true)
                .default_size(140.0)
                .show(ui, |ui| self.warnings_ui(ui));
        }
        // The timeline is what the window is for: the side panels start as
        // narrow as their tables allow (both stay resizable).
        egui::Panel::left("incidents")
            .resizable(true)
            .default_size(560.0)
            .show(ui, |ui| self.incidents_ui(ui));
        egui::Panel::right("details")
            .resizable(true)
            .default_size(330.0)
            .show(ui, |ui| {
                self.state_ui(ui);
                ui.separator();
                self.details_ui(ui);
            });
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
                for (key, action) in [
                    (
                        "save_screenshot",
                        ShotAction {
                            timeline_only: false,
                            copy: false,
                        },
                    ),
                    (
                        "save_timeline_screenshot",
                        ShotAction {
                            timeline_only: true,
                            copy: false,
                        },
                    ),
                    (
                        "copy_image",
                        ShotAction {
                            timeline_only: false,
                            copy: true,
                        },
                    ),
                    (
                        "copy_timeline_image",
                        ShotAction {
                            timeline_only: true,
                            copy: true,
                        },
                    ),
                ] {
                    if ui.button(tr(self.state.lang, key)).clicked() {
                        self.commands.push(Command::Screenshot(action));
                        ui.close();
                    }
                }
                if ui
                    .add_enabled(
                        self.session.is_some(),
                        egui::Button::new(tr(self.state.lang, "export_report")),
                    )
                    .clicked()
                {
                    self.commands.push(Command::ExportReport);
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
                if self.show_settings {
                    self.show_settings = false;
                } else {
                    self.open_settings();
                }
            }
            if ui.button(tr(self.state.lang, "sources")).clicked() {
                self.show_sources = !self.show_sources;
            }
        });
    }

    /// The replay bar: play/pause, steps, speed, loop, jump to the incident
    /// start and the cursor's time.
    fn replay_bar_ui(&mut self, ui: &mut Ui) {
        let lang = self.state.lang;
        ui.horizontal(|ui| {
            ui.label(RichText::new(tr(lang, "replay")).strong());
            let enabled = self.session.is_some();
            ui.add_enabled_ui(enabled, |ui| {
                let has_incident = self.selection.incident.is_some();
                if ui
                    .add_enabled(
                        has_incident,
                        egui::Button::new(tr(lang, "jump_incident_start")),
                    )
                    .clicked()
                {
                    self.commands.push(Command::JumpToIncidentStart);
                }
                if ui.button(tr(lang, "step_back")).clicked() {
                    self.commands
                        .push(Command::Playback(PlaybackCommand::StepBack));
                }
                let play_label = if self.playback.playing {
                    tr(lang, "pause")
                } else {
                    tr(lang, "play")
                };
                if ui.button(play_label).clicked() {
                    self.commands
                        .push(Command::Playback(PlaybackCommand::TogglePlay));
                }
                if ui.button(tr(lang, "step_forward")).clicked() {
                    self.commands
                        .push(Command::Playback(PlaybackCommand::StepForward));
                }
                let speed_text = |v: f64| {
                    if v == 1.0 {
                        format!("1× ({})", tr(lang, "real_time"))
                    } else {
                        format!("{v}×")
                    }
                };
                let mut speed = self.playback.speed;
                let l = ui.label(tr(lang, "speed"));
                egui::ComboBox::from_id_salt("speed")
                    .selected_text(speed_text(speed))
                    .show_ui(ui, |ui| {
                        for v in SPEED_PRESETS {
                            ui.selectable_value(&mut speed, v, speed_text(v));
                        }
                    })
                    .response
                    .labelled_by(l.id);
                if speed != self.playback.speed {
                    self.commands
                        .push(Command::Playback(PlaybackCommand::SetSpeed(speed)));
                }
                if ui
                    .selectable_label(self.loop_on, tr(lang, "loop"))
                    .clicked()
                {
                    self.commands.push(Command::ToggleLoop);
                }
                ui.separator();
                if let Some(s) = &self.session {
                    ui.label(
                        RichText::new(format!(
                            "{}: {}",
                            tr(lang, "cursor"),
                            s.input().time(self.playback.cursor_ns)
                        ))
                        .monospace(),
                    );
                }
            });
        });
    }

    /// "State at cursor": per key who holds the lock on the server and who
    /// believe they hold it, stock per product, and the tickers.
    fn state_ui(&mut self, ui: &mut Ui) {
        /// Keys listed in full; the rest are counted.
        const MAX_KEYS: usize = 6;
        /// Products listed.
        const MAX_PRODUCTS: usize = 6;
        let lang = self.state.lang;
        ui.heading(tr(lang, "state_at_cursor"));
        let Some(s) = &self.session else { return };
        let st = s.index.state_at(&s.analysis, self.playback.cursor_ns);
        let name = |sym| s.log.strings.get(sym);
        let red = Color32::from_rgb(210, 40, 40);
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(trf(lang, "orders_so_far", &[&st.orders.to_string()])).strong());
            ui.separator();
            let over = RichText::new(trf(
                lang,
                "oversold_so_far",
                &[&st.oversold_units.to_string()],
            ))
            .strong();
            ui.label(if st.oversold_units > 0 {
                over.color(red)
            } else {
                over
            });
            ui.separator();
            let loss = RichText::new(trf(
                lang,
                "loss_so_far",
                &[&format_money(st.loss, &s.settings.currency)],
            ))
            .strong();
            ui.label(if st.loss > 0.0 { loss.color(red) } else { loss });
        });
        if !st.stock.is_empty() {
            ui.label(RichText::new(tr(lang, "stock")).weak());
            for p in st.stock.iter().take(MAX_PRODUCTS) {
                let product = p.product.map_or(tr(lang, "unknown_product"), name);
                let level = p
                    .level
                    .map_or_else(|| tr(lang, "stock_unknown").to_string(), |l| l.to_string());
                let text = RichText::new(format!("{product}: {level}")).monospace();
                ui.label(if p.level.is_some_and(|l| l <= 0) {
                    text.color(red)
                } else {
                    text
                });
            }
        }
        if st.keys.is_empty() {
            ui.label(RichText::new(tr(lang, "no_lock_held")).weak());
        }
        for k in st.keys.iter().take(MAX_KEYS) {
            ui.add_space(4.0);
            ui.label(RichText::new(name(k.key)).monospace().strong());
            ui.indent(("key_state", k.key.index()), |ui| {
                ui.label(match k.server_holder {
                    Some(h) => trf(lang, "server_holds", &[name(h)]),
                    None => tr(lang, "server_free").to_string(),
                });
                let n = k.believers.len();
                let believers = RichText::new(trf(lang, "believers", &[&n.to_string()]));
                ui.label(if n > 1 {
                    believers.color(red).strong()
                } else {
                    believers
                });
                for b in &k.believers {
                    let text = format!(
                        "{} — {}",
                        name(b.holder),
                        lease_status_text(lang, &b.status)
                    );
                    let zombie = matches!(b.status, LeaseStatus::EndedStillWorking { .. });
                    let rt = RichText::new(text).monospace();
                    ui.label(if zombie { rt.color(red) } else { rt });
                }
            });
        }
        if st.keys.len() > MAX_KEYS {
            ui.label(trf(
                lang,
                "more_keys",
                &[&(st.keys.len() - MAX_KEYS).to_string()],
            ));
        }
    }

    /// Requests the screenshot a few frames after the command, and saves or
    /// copies it when it arrives; shows background jobs' results.
    fn poll_shot(&mut self, ctx: &egui::Context) {
        while let Ok(msg) = self.jobs.1.try_recv() {
            self.notice = Some(msg);
        }
        let Some(shot) = &mut self.shot else { return };
        if shot.rx.is_none() {
            if shot.wait_frames > 0 {
                shot.wait_frames -= 1;
                ctx.request_repaint();
                return;
            }
            let (tx, rx) = channel();
            let ctx2 = ctx.clone();
            ctx.request_screenshot(move |image| {
                let _ = tx.send(image);
                ctx2.request_repaint();
            });
            shot.rx = Some(rx);
            return;
        }
        let Some(image) = shot.rx.as_ref().and_then(|rx| rx.try_recv().ok()) else {
            return;
        };
        let action = shot.action;
        self.shot = None;
        let image = match (action.timeline_only, self.timeline_rect) {
            (true, Some(rect)) => image.region(&rect, Some(ctx.pixels_per_point())),
            _ => (*image).clone(),
        };
        let lang = self.state.lang;
        if action.copy {
            ctx.copy_image(image);
            self.notice = Some(tr(lang, "copied").to_string());
            return;
        }
        let inputs = self.inputs();
        let tx = self.jobs.0.clone();
        let ctx2 = ctx.clone();
        let name = format!(
            "lockreplay-{}{}.png",
            if action.timeline_only {
                "timeline-"
            } else {
                ""
            },
            chrono::Local::now().format("%Y%m%d-%H%M%S")
        );
        let (dialogs, fallback) = (self.use_dialogs, self.fallback_dir.join(&name));
        let spawned = std::thread::Builder::new()
            .name("save-screenshot".into())
            .spawn(move || {
                let pick = || {
                    rfd::FileDialog::new()
                        .add_filter("PNG", &["png"])
                        .set_file_name(&name)
                        .save_file()
                };
                let Some((path, fell_back)) = pick_or_fallback(dialogs, pick, fallback) else {
                    return;
                };
                let msg = match super::write_color_image(&image, &path, &inputs) {
                    Ok(()) if fell_back => {
                        trf(lang, "no_dialog_saved_to", &[&path.display().to_string()])
                    }
                    Ok(()) => trf(lang, "saved_to", &[&path.display().to_string()]),
                    Err(e) => trf(lang, "save_failed", &[&format!("{e:#}")]),
                };
                let _ = tx.send(msg);
                ctx2.request_repaint();
            });
        if spawned.is_err() {
            self.notice = Some(tr(lang, "no_dialog").to_string());
        }
    }

    /// The files of the session (never written over).
    fn inputs(&self) -> Vec<PathBuf> {
        match self.session.as_ref().map(|s| &s.source) {
            Some(Source::Files(f)) => f.clone(),
            _ => Vec::new(),
        }
    }

    /// Writes the report folder on a background thread: the folder from a
    /// dialog, or `lockreplay-report-<time>` in the current directory when
    /// there is no dialog.
    fn export_report(&mut self) {
        let Some(s) = &self.session else { return };
        let lang = self.state.lang;
        let (log, analysis, settings) = (s.log.clone(), s.analysis.clone(), s.settings.clone());
        let inputs = self.inputs();
        let tx = self.jobs.0.clone();
        let ctx = self.ctx.clone();
        self.notice = Some(tr(lang, "exporting").to_string());
        let fallback = self.fallback_dir.join(format!(
            "lockreplay-report-{}",
            chrono::Local::now().format("%Y%m%d-%H%M%S")
        ));
        let dialogs = self.use_dialogs;
        let spawned = std::thread::Builder::new()
            .name("export-report".into())
            .spawn(move || {
                let pick = || rfd::FileDialog::new().pick_folder();
                let Some((dir, fallback)) = pick_or_fallback(dialogs, pick, fallback) else {
                    let _ = tx.send(tr(lang, "cancel").to_string());
                    return;
                };
                let loaded = crate::pipeline::AnalyzedLog {
                    log: (*log).clone(),
                    settings,
                    analysis: (*analysis).clone(),
                };
                let shown = dir.display().to_string();
                let written = crate::pipeline::write_report_folder(
                    &loaded,
                    &dir,
                    &inputs,
                    Some(super::render_png),
                );
                let msg = match written {
                    Ok(()) if fallback => trf(lang, "no_dialog_report", &[&shown]),
                    Ok(()) => trf(lang, "report_written", &[&shown]),
                    Err(e) => trf(lang, "save_failed", &[&format!("{e:#}")]),
                };
                let _ = tx.send(msg);
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            });
        if spawned.is_err() {
            self.notice = Some(tr(lang, "no_dialog").to_string());
        }
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
            if !crate::ingest::load_problems(&s.log).is_empty() {
                // A count of 0 incidents here would read as an all-clear.
                ui.label(
                    RichText::new(tr(self.state.lang, "not_readable_short"))
                        .strong()
                        .color(red),
                );
                ui.separator();
            }
            ui.label(
                RichText::new(count_label(
                    self.state.lang,
                    sum.incidents as u64,
                    "incident_one",
                    "incidents_lc",
                ))
                .strong()
                .color(if sum.incidents > 0 {
                    red
                } else {
                    ui.visuals().text_color()
                }),
            );
            ui.separator();
            let summary = RichText::new(self.summary_text()).strong();
            ui.label(if sum.oversold_units > 0 {
                summary.color(red)
            } else {
                summary
            });
            ui.separator();
            ui.label(count_label(
                self.state.lang,
                sum.near_misses as u64,
                "near_miss_one",
                "near_misses",
            ));
            ui.separator();
            if ui
                .link(count_label(
                    self.state.lang,
                    sum.warnings,
                    "warning_one",
                    "warnings_lc",
                ))
                .clicked()
            {
                self.show_warnings = !self.show_warnings;
            }
            ui.separator();
            ui.label(
                RichText::new(format!(
                    "{} · {}",
                    count_label(self.state.lang, sum.events as u64, "event_one", "events"),
                    count_label(self.state.lang, sum.keys as u64, "key_one", "keys"),
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
            if self.loading.as_ref().is_some_and(|l| l.reanalysis) {
                ui.spinner();
                ui.label(tr(self.state.lang, "analysing"));
                ui.separator();
            } else if let Some(l) = &self.loading {
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
                if ui.small_button("×").clicked() {
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
        let problems = crate::ingest::load_problems(&s.log);
        if !problems.is_empty() {
            ui.colored_label(
                ui.visuals().error_fg_color,
                tr(self.state.lang, "not_readable"),
            );
            for p in &problems {
                ui.add(egui::Label::new(p.as_str()).wrap());
            }
            ui.separator();
        }
        if a.incidents.is_empty() {
            if problems.is_empty() {
                ui.label(tr(self.state.lang, "no_incidents"));
            }
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
            .column(Column::initial(96.0).clip(true))
            .column(Column::auto())
            .column(Column::auto())
            .column(Column::initial(96.0).clip(true))
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
                head(&mut h, tr(lang, "oversold_col"), Some(SortBy::Oversold));
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
                        let causes = inc.overlaps.iter().map(|&o| a.overlaps[o].cause);
                        match cause_label(inc.cause, causes) {
                            (label, Some(all)) => {
                                ui.label(label).on_hover_text(all);
                            }
                            (label, None) => {
                                ui.label(label);
                            }
                        }
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
            let lang = self.state.lang;
            // The central panel has no frame (the timeline paints its own
            // background): paint one, or the message sits on the clear colour.
            ui.painter()
                .rect_filled(ui.max_rect(), 0.0, ui.visuals().panel_fill);
            ui.centered_and_justified(|ui| {
                if self.loading.is_some() {
                    ui.spinner();
                } else if let Some(e) = &self.error {
                    // Files were given but did not load: say why, and what next.
                    ui.label(
                        RichText::new(format!(
                            "{}: {e}\n\n{}",
                            tr(lang, "load_failed"),
                            tr(lang, "open_hint")
                        ))
                        .size(16.0)
                        .color(ui.visuals().error_fg_color),
                    );
                } else {
                    ui.label(RichText::new(tr(lang, "open_hint")).size(16.0));
                }
            });
            return;
        }
        let opts = TimelineOptions {
            time_display: self.state.time_display,
            selected: self.selection.incident,
            lang: self.state.lang,
            cursor_s: Some(self.cursor_s()),
        };
        self.timeline_rect = Some(ui.max_rect());
        match timeline_ui(ui, &self.model, &mut self.state.view, opts) {
            Some(TimelineEvent::IncidentClicked(id)) => self.selection.incident = Some(id),
            Some(TimelineEvent::Seek(at_s)) => {
                let t = self.model.t0_ns + (at_s * 1e9).round() as i64;
                self.commands
                    .push(Command::Playback(PlaybackCommand::Seek(t)));
            }
            None => {}
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
                    let l = ui.label(tr(lang, "read_tz"));
                    ui.horizontal(|ui| {
                        let edit = ui
                            .add(
                                egui::TextEdit::singleline(&mut self.tz_edit)
                                    .hint_text("UTC")
                                    .desired_width(120.0),
                            )
                            .labelled_by(l.id);
                        let enter =
                            edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                        if ui.button(tr(lang, "apply_reload")).clicked() || enter {
                            // Empty reads naive times as UTC again.
                            let zone = self.tz_edit.trim();
                            match crate::ingest::parse_tz(zone) {
                                Err(e) if !zone.is_empty() => self.notice = Some(e.to_string()),
                                _ => {
                                    self.state.read_tz =
                                        (!zone.is_empty()).then(|| zone.to_string());
                                    self.commands.push(Command::Reload);
                                }
                            }
                        }
                    });
                    ui.end_row();
                    match ttl_setting_ui(ui, lang, &mut self.ttl_edit, &mut self.state.read_ttl) {
                        Ok(true) => self.commands.push(Command::Reload),
                        Ok(false) => {}
                        Err(e) => self.notice = Some(e),
                    }
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

    /// The settings window's zone text (tests).
    pub fn tz_edit_text(&self) -> &str {
        &self.tz_edit
    }

    /// Opens the settings window, its zone field showing the saved zone.
    pub fn open_settings(&mut self) {
        self.tz_edit = self.state.read_tz.clone().unwrap_or_default();
        self.ttl_edit = self.state.read_ttl.clone().unwrap_or_default();
        self.show_settings = true;
    }

    /// The settings window's TTL text (tests).
    pub fn ttl_edit_text(&self) -> &str {
        &self.ttl_edit
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

/// A holder's lease at the cursor in words: time left, or how long ago the
/// lock ended while the holder kept working.
pub fn lease_status_text(lang: Lang, status: &LeaseStatus) -> String {
    match status {
        LeaseStatus::Valid {
            remaining_ms: Some(ms),
        } => trf(lang, "valid_left", &[&format_ms(*ms)]),
        LeaseStatus::Valid { remaining_ms: None } => tr(lang, "valid_no_ttl").to_string(),
        LeaseStatus::EndedStillWorking { end, ago_ms } => {
            let key = match end {
                crate::analysis::LockEnd::Expired => "expired_ago",
                crate::analysis::LockEnd::ForeignRelease => "deleted_ago",
                crate::analysis::LockEnd::Vanished => "vanished_ago",
                _ => "ended_ago",
            };
            trf(lang, key, &[&format_ms(*ago_ms)])
        }
    }
}

/// The settings row for [`AppState::read_ttl`]: the TTL of files without a
/// TTL field. Returns `Ok(true)` when the text was applied (reload), or the
/// reason it is not a TTL setting.
fn ttl_setting_ui(
    ui: &mut egui::Ui,
    lang: Lang,
    edit: &mut String,
    saved: &mut Option<String>,
) -> Result<bool, String> {
    let l = ui.label(tr(lang, "read_ttl"));
    let mut applied = Ok(false);
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
                Ok(_) => {
                    // Empty leaves such files' TTL unknown again.
                    *saved = (!text.is_empty()).then(|| text.to_string());
                    Ok(true)
                }
                Err(e) => Err(e.to_string()),
            };
        }
    });
    applied
}

/// The incident table's Cause cell: the first pair's cause, then `+N` when
/// the incident's pairs have N other causes, and (for the hover) all of
/// them. `causes` are the listed pairs' causes, in any order.
fn cause_label(first: Cause, causes: impl Iterator<Item = Cause>) -> (String, Option<String>) {
    let mut all: Vec<Cause> = causes.collect();
    all.sort_unstable();
    all.dedup();
    let others = all.iter().filter(|&&c| c != first).count();
    if others == 0 {
        return (first.as_str().to_string(), None);
    }
    let names: Vec<&str> = all.iter().map(|c| c.as_str()).collect();
    (
        format!("{} +{others}", first.as_str()),
        Some(names.join(", ")),
    )
}

#[cfg(test)]
mod cause_label_tests {
    use super::*;

    #[test]
    fn one_cause_is_shown_alone_and_more_are_counted() {
        let one = cause_label(
            Cause::LeaseExpired,
            [Cause::LeaseExpired, Cause::LeaseExpired].into_iter(),
        );
        assert_eq!(one, ("lease_expired".to_string(), None));
        let three = cause_label(
            Cause::LeaseExpired,
            [
                Cause::ForeignRelease,
                Cause::LeaseExpired,
                Cause::LockVanished,
                Cause::ForeignRelease,
            ]
            .into_iter(),
        );
        assert_eq!(
            three,
            (
                "lease_expired +2".to_string(),
                Some("lease_expired, foreign_release, lock_vanished".to_string())
            )
        );
    }
}

//! The window's application: the persisted [`AppState`], the immutable
//! [`Session`], the [`Selection`] and the replay, drawn by the panels each
//! frame; every change they ask for is a [`Command`], applied once after the
//! frame by `App::apply`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use egui::Ui;

use super::loader::{self, Job, Loading};
use super::panels::{self, PanelContext, Panels};
use super::session::{FlagSettings, Session, Source};
use super::shell::Shell;
use super::shell::dialogs::{OpenPurpose, SaveTo};
use super::shell::screenshot::{self, PendingShot};
use super::state::{AppState, Command, OpenPanels, Panel, Selection};
use super::timeline::SwimlaneModel;
use crate::config::{AnalysisConfig, Cursor, ReadConfig};
use crate::playback::{Playback, PlaybackCommand};
use crate::ui::i18n::{tr, trf};

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
    /// The replay's time cursor and playback.
    pub playback: Playback,
    /// Loop the selected incident (or the visible range).
    pub loop_on: bool,
    /// A one-line notice in the status bar.
    pub notice: Option<String>,
    /// A notice to show once the load running now is shown (before the
    /// load's own).
    pending_notice: Option<String>,
    /// Error of the last load.
    pub error: Option<String>,
    /// Where to put the cursor once loaded.
    pub initial_cursor: Option<Cursor>,
    /// False when no CJK font could be installed.
    pub cjk_ok: bool,
    /// Ask where to save through rfd's native dialogs. When false (or when
    /// no dialog backend answers), pictures and reports go to
    /// `fallback_dir`.
    pub use_dialogs: bool,
    /// Where pictures and report folders go without a dialog: the current
    /// directory by default.
    pub fallback_dir: PathBuf,
    /// True in a window opened to take `--screenshot`: the picture's
    /// title, legend and caption are drawn around the timeline.
    pub exit_shot: bool,
    /// The load or re-analysis running in the background.
    loading: Option<Loading>,
    /// What the last load's cache writes did, once done (they run after
    /// its result arrived): merged into the session's cache report.
    cache_written: Option<std::sync::mpsc::Receiver<crate::ingest::CacheReport>>,
    /// This frame's commands, applied after it.
    commands: Vec<Command>,
    /// The command-line flags and the settings they replaced.
    flags: FlagSettings,
    /// Which panels and windows are shown.
    open: OpenPanels,
    /// The panels' own state.
    panels: Panels,
    /// Dialogs, screenshots and exports in progress.
    shell: Shell,
    /// False until the fonts are installed (again after a new CJK font).
    fonts_done: bool,
    /// True when the last frame showed a log.
    log_shown: bool,
}

impl App {
    /// A new app with `state`, reading as `read` says and with the
    /// analysis settings of `analysis` over the saved ones (for this window
    /// only: see [`App::state_to_save`]).
    pub fn new(mut state: AppState, read: ReadConfig, analysis: AnalysisConfig) -> App {
        let flags = FlagSettings::apply(read, &analysis, &mut state);
        App {
            state,
            session: None,
            selection: Selection::default(),
            model: SwimlaneModel::default(),
            playback: Playback::new((0, 0)),
            loop_on: false,
            notice: None,
            pending_notice: None,
            error: None,
            initial_cursor: None,
            cjk_ok: true,
            use_dialogs: true,
            fallback_dir: PathBuf::from("."),
            exit_shot: false,
            loading: None,
            cache_written: None,
            commands: Vec::new(),
            flags,
            open: OpenPanels::default(),
            panels: Panels::default(),
            log_shown: false,
            shell: Shell::default(),
            fonts_done: false,
        }
    }

    /// The state to persist: the settings given as command-line flags are
    /// not saved (the next window without flags gets the saved ones back),
    /// unless they were changed in this window, which saves what is shown.
    pub fn state_to_save(&self) -> AppState {
        self.flags.state_to_save(&self.state)
    }

    /// Starts loading `source` in the background.
    pub fn start_load(&mut self, ctx: &egui::Context, source: Source) {
        self.start_job(ctx, Job::Load(source));
    }

    /// Starts loading `source` before the window exists: the loader wakes
    /// the window through `window` once it is set (a load done before that
    /// is picked up by the first frame). [`super::run_window`] starts the
    /// read while the window and its renderer are made.
    pub fn start_load_early(
        &mut self,
        source: Source,
        window: Arc<std::sync::OnceLock<egui::Context>>,
    ) {
        self.start_job_waking(Job::Load(source), move || {
            if let Some(ctx) = window.get() {
                ctx.request_repaint();
            }
        });
    }

    /// Stops the running load, if any, and forgets it.
    pub fn cancel_load(&mut self) {
        if let Some(l) = self.loading.take() {
            l.cancel();
        }
    }

    /// Starts `job` on the loader thread, cancelling a running one.
    fn start_job(&mut self, ctx: &egui::Context, job: Job) {
        let ctx2 = ctx.clone();
        self.start_job_waking(job, move || ctx2.request_repaint());
    }

    /// [`App::start_job`], the loader calling `repaint` when done.
    fn start_job_waking(&mut self, job: Job, repaint: impl Fn() + Send + Sync + 'static) {
        if let Some(l) = &self.loading {
            l.cancel();
        }
        self.error = None;
        let opts = self.read_options(job.source());
        self.loading = Some(loader::spawn(
            job,
            opts,
            self.state.settings.clone(),
            self.state.filters.clone(),
            repaint,
        ));
    }

    /// Loads `source` on this thread (tests and headless use).
    pub fn load_blocking(&mut self, source: Source) {
        let progress = crate::ingest::Progress::default();
        let opts = self.read_options(&source);
        match loader::load_now(
            &Job::Load(source),
            &opts,
            &self.state.settings,
            &self.state.filters,
            &progress,
        ) {
            Ok(r) => self.install(r),
            Err(e) => self.error = Some(e),
        }
    }

    /// Opens the mapping dialog on source `index`: as it was saved when the
    /// source was read with the mapping it saved, else from how the source
    /// was read.
    fn edit_mapping(&mut self, index: usize) {
        let Some(s) = &self.session else { return };
        let Some(src) = s.log.sources.get(index) else {
            return;
        };
        let saved = self.panels.mapping_saved.iter().find(|e| {
            e.file == std::path::Path::new(&src.name)
                && s.mapping.as_deref() == Some(std::path::Path::new(e.save_path.trim()))
        });
        self.panels.mapping = Some(match saved {
            Some(e) => {
                let mut e = e.clone();
                e.settings = s.settings.clone();
                e.refresh_preview();
                e
            }
            None => panels::mapping::MappingEditor::new(&s.log, index, s.settings.clone()),
        });
    }

    /// Reads the files on screen with `mapping` from now on (`None`:
    /// without one) and loads them again; a mapping file that does not
    /// read is refused with its error. A `--mapping` file of the command
    /// line no longer applies in this window, which the status line says.
    fn set_mapping(&mut self, ctx: &egui::Context, mapping: Option<PathBuf>) {
        if let Some(path) = &mapping
            && let Err(e) = crate::ingest::Mapping::from_path(path)
        {
            let (e, p) = (e.to_string(), path.display().to_string());
            self.notice = Some(if e.contains(&p) {
                e
            } else {
                format!("{p}: {e}")
            });
            return;
        }
        if let Some(flag) = self.flags.drop_mapping() {
            let flag = flag.display().to_string();
            self.pending_notice = Some(trf(self.state.lang, "flag_mapping_dropped", &[&flag]));
        }
        self.panels.settings.mapping = mapping
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        if let Some(s) = &self.session {
            let files = s.files().to_vec();
            self.state.set_mapping_for(&files, mapping);
        }
        self.reload(ctx);
    }

    /// How `source` is read: the flags and the saved state, with the
    /// mapping made for its files.
    fn read_options(&self, source: &Source) -> crate::ui::session::ReadOptions {
        let files = match source {
            Source::Files(f) => f.as_slice(),
            Source::Sample => &[],
        };
        self.flags.read_options(&self.state, files)
    }

    /// True while a load runs.
    pub fn is_loading(&self) -> bool {
        self.loading.is_some()
    }

    /// Shows a finished load.
    fn install(&mut self, r: loader::LoadResult) {
        let session = r.session;
        let extent = session.index.extent();
        let rebuild = r.filters != self.state.filters;
        self.model = r.model;
        if rebuild {
            // The filters changed while the worker ran.
            self.model = SwimlaneModel::build_lazy(
                &session.log,
                &session.analysis,
                &self.state.filters,
                &session.names,
            );
        }
        if r.reanalysis {
            // Same log, new settings: keep the view and the cursor; the
            // incident list may have changed, so drop a stale selection.
            self.playback.extent = extent;
            let n = session.analysis.incidents.len();
            if self.selection.incident.is_some_and(|i| i.index() >= n) {
                self.selection = Selection::default();
            }
            self.session = Some(session);
            return;
        }
        if let Source::Files(paths) = &session.source {
            self.state.remember(paths);
        }
        self.selection = Selection::default();
        // Lines that could not be read are the first thing to know about a
        // file: show their reasons at once.
        self.open.warnings = session.log.warnings.total() > 0;
        self.notice = match (
            self.pending_notice.take(),
            session.load_notice(self.state.lang),
        ) {
            (Some(a), Some(b)) => Some(format!("{a} {b}")),
            (a, b) => a.or(b),
        };
        self.state.view.fit(&self.model);
        let speed = self.playback.speed;
        self.playback = Playback::new(extent);
        self.playback.speed = speed;
        // Until the user replays, the cursor rests at the end: nothing is
        // "in the future", so nothing on the timeline is faded.
        self.playback
            .apply(PlaybackCommand::Seek(extent.1), session.index.get());
        self.session = Some(session);
        self.loop_on = false;
        if let Some(cursor) = self.initial_cursor.take() {
            self.seek_and_show(cursor.at(extent.0));
        }
    }

    /// Puts the cursor at `t`, selecting and showing the incident that
    /// contains it, if any.
    pub fn seek_and_show(&mut self, t: i64) {
        let Some(s) = &self.session else { return };
        self.playback.apply(PlaybackCommand::Seek(t), s.index.get());
        if let Some(inc) = s
            .analysis
            .incidents
            .iter()
            .find(|i| i.start_ns <= t && t <= i.end_ns)
        {
            self.selection = Selection::of_incident(inc.id);
            self.state.view.zoom_to_incident(&self.model, inc.id);
        }
    }

    /// The range the loop toggle loops: the selected incident's holds from
    /// the first grant to the last end, else the visible range.
    fn loop_range(&self) -> Option<(i64, i64)> {
        let s = self.session.as_ref()?;
        let a = &s.analysis;
        if let Some(inc) = self
            .selection
            .incident
            .and_then(|i| a.incidents.get(i.index()))
        {
            let leases = inc.leases.iter().filter_map(|&l| a.leases.get(l.index()));
            let lo = leases.clone().map(|l| l.acquired_ns).min()?;
            let hi = leases.map(|l| l.window_end_ns.max(l.lock_end_ns)).max()?;
            return Some((lo, hi));
        }
        let t0 = self.model.t0_ns;
        let ns = |x: f64| t0 + (x * 1e9).round() as i64;
        Some((ns(self.state.view.start_s), ns(self.state.view.end_s)))
    }

    /// Applies `command` to the replay, when a log is shown.
    fn playback_apply(&mut self, command: PlaybackCommand) {
        if let Some(s) = &self.session {
            self.playback.apply(command, s.index.get());
        }
    }

    /// Advances playback by the frame time and keeps the cursor in view.
    fn tick_playback(&mut self, ctx: &egui::Context) {
        let want = if self.loop_on {
            self.loop_range()
        } else {
            None
        };
        if want != self.playback.loop_range {
            self.playback_apply(PlaybackCommand::SetLoop(want));
        }
        if !self.playback.playing {
            return;
        }
        let dt = ctx.input(|i| i.stable_dt).clamp(0.0, 0.25);
        self.playback.tick(Duration::from_secs_f32(dt));
        let c = (self.playback.cursor_ns - self.model.t0_ns) as f64 / 1e9;
        let v = &mut self.state.view;
        let span = v.end_s - v.start_s;
        if c > v.end_s || c < v.start_s {
            v.start_s = c - span * 0.1;
            v.end_s = v.start_s + span;
        }
        ctx.request_repaint();
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

    /// Loads the shown source again (new reading options).
    fn reload(&mut self, ctx: &egui::Context) {
        if let Some(s) = &self.session {
            let source = s.source.clone();
            self.start_load(ctx, source);
        }
    }

    /// Merges what the last load's cache writes did, once they are done,
    /// into the session's cache report (the status bar's note).
    fn poll_cache_written(&mut self) {
        let Some(rx) = &self.cache_written else {
            return;
        };
        match rx.try_recv() {
            Ok(written) => {
                self.cache_written = None;
                crate::timing::mark("window/cache written");
                if let Some(s) = &mut self.session {
                    loader::merge_written(&mut s.cache, written);
                }
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {}
            Err(std::sync::mpsc::TryRecvError::Disconnected) => self.cache_written = None,
        }
    }

    /// Takes in what arrived since the last frame: the load's result, a
    /// dialog's answer, background jobs' outcomes, dropped files and the
    /// window's keys (the last three as commands).
    fn poll(&mut self, ctx: &egui::Context) {
        if let Some(l) = &self.loading
            && let Ok(result) = l.rx.try_recv()
        {
            self.loading = None;
            crate::timing::mark("window/load arrived");
            match result {
                Ok(mut r) => {
                    self.cache_written = r.written.take();
                    self.install(r);
                }
                Err(e) => self.error = Some(e),
            }
        }
        self.poll_cache_written();
        if let Some(answer) = self.shell.dialog.as_ref().and_then(|d| d.answer()) {
            self.shell.dialog = None;
            match answer {
                Ok(command) => self.commands.push(command),
                Err(purpose) => self.notice = Some(no_dialog_notice(self.state.lang, purpose)),
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
        self.commands.extend(window_keys(ctx));
    }

    /// Takes the screenshot in progress a step further, and shows the
    /// outcome of background saves.
    fn poll_shell(&mut self, ctx: &egui::Context) {
        for msg in self.shell.finished() {
            self.notice = Some(msg);
        }
        let Some(shot) = &mut self.shell.shot else {
            return;
        };
        let Some(image) = shot.poll(ctx) else { return };
        let request = shot.request;
        self.shell.shot = None;
        let inputs = self.session.as_ref().map(|s| s.files().to_vec());
        let save_to = SaveTo {
            dialogs: self.use_dialogs,
            fallback_dir: &self.fallback_dir,
        };
        if let Some(notice) = screenshot::deliver(
            ctx,
            &image,
            request,
            self.shell.timeline_rect,
            self.state.lang,
            inputs.unwrap_or_default(),
            save_to,
            self.shell.done_sender(),
        ) {
            self.notice = Some(notice);
        }
    }

    /// Opens a file dialog, or says there is none.
    fn open_dialog(&mut self, purpose: OpenPurpose) {
        if !self.shell.open_dialog(purpose) {
            self.notice = Some(no_dialog_notice(self.state.lang, purpose));
        }
    }

    /// Applies the frame's commands, in the order they were sent.
    fn apply(&mut self, ctx: &egui::Context) {
        let commands = std::mem::take(&mut self.commands);
        if !commands.is_empty() {
            // What they change is drawn by the next frame.
            ctx.request_repaint();
        }
        for command in commands {
            self.apply_one(ctx, command);
        }
    }

    fn apply_one(&mut self, ctx: &egui::Context, command: Command) {
        match command {
            Command::Open(files) => self.start_load(ctx, Source::Files(files)),
            Command::OpenDialog => self.open_dialog(OpenPurpose::Logs),
            Command::MappingDialog => self.open_dialog(OpenPurpose::Mapping),
            Command::Reload => self.reload(ctx),
            Command::CancelLoad => {
                if let Some(l) = self.loading.take() {
                    l.cancel();
                }
            }
            Command::Select(selection) => self.selection = selection,
            Command::ShowIncident(id) => {
                self.selection = Selection::of_incident(id);
                self.jump_to_incident(true);
            }
            Command::ZoomToSelected => {
                if let Some(id) = self.selection.incident {
                    self.state.view.zoom_to_incident(&self.model, id);
                }
            }
            Command::FitAll => self.state.view.fit(&self.model),
            Command::StepIncident(forward) => self.step_incident(forward),
            Command::ResetLayout => {
                self.state.layout_generation = self.state.layout_generation.wrapping_add(1);
                self.open.incidents = true;
                self.open.details = true;
            }
            Command::GoTo { at_ns, key } => self.go_to(at_ns, key.as_deref()),
            Command::SelectFinding(i) => self.select_finding(i),
            Command::SetView(view) => self.state.view = view,
            Command::SetFilters(filters) => {
                self.state.filters = filters;
                if let Some(s) = &self.session {
                    self.model = SwimlaneModel::build_lazy(
                        &s.log,
                        &s.analysis,
                        &self.state.filters,
                        &s.names,
                    );
                }
            }
            Command::SetSettings(settings) => {
                self.state.settings = settings;
                self.reanalyze(ctx);
            }
            Command::SetReadZone(zone) => {
                self.state.read_tz = zone;
                self.reload(ctx);
            }
            Command::SetReadTtl(ttl) => {
                self.state.read_ttl = ttl;
                self.reload(ctx);
            }
            Command::SetUseCache(on) => self.state.use_cache = on,
            Command::EditMapping(index) => self.edit_mapping(index),
            Command::SetMapping(mapping) => self.set_mapping(ctx, mapping),
            Command::SetLang(lang) => self.state.lang = lang,
            Command::SetDarkTheme(dark) => self.state.dark = dark,
            Command::SetTimeDisplay(display) => self.state.time_display = display,
            Command::SetCjkFont(font) => {
                self.state.cjk_font = font;
                self.fonts_done = false;
            }
            Command::OpenSettings => self.open_settings(),
            Command::SetPanelOpen(panel, open) => self.open.set(panel, open),
            Command::TogglePanel(panel) => self.open.set(panel, !self.open.get(panel)),
            Command::SetNotice(notice) => self.notice = notice,
            Command::Playback(command) => self.playback_command(command),
            Command::JumpToIncidentStart => self.jump_to_incident(false),
            Command::ToggleLoop => self.loop_on = !self.loop_on,
            Command::Screenshot(request) => {
                self.shell.shot = Some(PendingShot::new(request));
                ctx.request_repaint();
            }
            Command::ExportReport => self.export_report(),
            Command::Quit => ctx.send_viewport_cmd(egui::ViewportCommand::Close),
        }
    }

    /// Selects finding `i` alone (not the incident selected before) and
    /// goes to its time and key.
    fn select_finding(&mut self, i: usize) {
        let Some(s) = &self.session else { return };
        let Some(f) = s.analysis.findings.get(i) else {
            return;
        };
        let (at_ns, key) = (f.at_ns, f.key.map(|k| s.log.strings.get(k).to_string()));
        self.selection = Selection {
            finding: Some(i),
            ..Selection::default()
        };
        self.open.details = true;
        self.go_to(at_ns, key.as_deref());
    }

    /// Applies a playback command; a step never leaves the cursor off
    /// screen.
    fn playback_command(&mut self, command: PlaybackCommand) {
        self.playback_apply(command);
        if matches!(
            command,
            PlaybackCommand::StepBack | PlaybackCommand::StepForward
        ) {
            let c = (self.playback.cursor_ns - self.model.t0_ns) as f64 / 1e9;
            self.state.view.keep_visible(c);
        }
    }

    /// Writes the report folder of the session in the background, with a
    /// notice saying where.
    fn export_report(&mut self) {
        if let Some(s) = &self.session {
            let save_to = SaveTo {
                dialogs: self.use_dialogs,
                fallback_dir: &self.fallback_dir,
            };
            let (ctx, done) = (self.shell.ctx.clone(), self.shell.done_sender());
            let notice =
                super::shell::export::export_report(s, self.state.lang, save_to, ctx, done);
            self.notice = Some(notice);
        }
    }

    /// Selects the next or previous incident in start order, zooms to it
    /// and puts the cursor where its damage is; past either end it wraps
    /// around and says so, and with no incident it says that.
    fn step_incident(&mut self, forward: bool) {
        let Some(s) = &self.session else { return };
        let lang = self.state.lang;
        let next = panels::incidents::step_incident(
            &s.analysis.incidents,
            self.selection.incident,
            self.playback.cursor_ns,
            forward,
        );
        self.notice = match next {
            None => Some(super::i18n::tr(lang, "no_incident_to_step").to_string()),
            Some(panels::incidents::Step::Wrapped(_)) if s.analysis.incidents.len() > 1 => {
                let key = if forward {
                    "wrapped_first"
                } else {
                    "wrapped_last"
                };
                Some(super::i18n::tr(lang, key).to_string())
            }
            Some(_) => None,
        };
        if let Some(step) = next {
            self.selection = Selection::of_incident(step.id());
            self.jump_to_incident(true);
        }
    }

    /// Puts the cursor at `at_ns`, shows it on screen (keeping the zoom)
    /// and scrolls to `key`'s lanes when they are shown.
    fn go_to(&mut self, at_ns: i64, key: Option<&str>) {
        self.playback_apply(PlaybackCommand::Pause);
        self.playback_apply(PlaybackCommand::Seek(at_ns));
        self.state
            .view
            .keep_visible((at_ns - self.model.t0_ns) as f64 / 1e9);
        if let Some(g) = key.and_then(|k| self.model.groups.iter().position(|g| g.key == k)) {
            self.state.view.scroll_y = self.model.group_top(g);
        }
    }

    /// Pauses and puts the cursor in the selected incident, zoomed to it:
    /// at its damage (the first oversold order, else the overlap's start;
    /// `playback::damage_at`) when `to_damage`, as selecting an incident
    /// does, else at its start, as the "Incident start" button says.
    fn jump_to_incident(&mut self, to_damage: bool) {
        let Some(s) = &self.session else { return };
        let Some(inc) = self
            .selection
            .incident
            .and_then(|i| s.analysis.incidents.get(i.index()))
        else {
            return;
        };
        let t = if to_damage {
            crate::playback::damage_at(&s.analysis, inc).at_ns
        } else {
            inc.start_ns
        };
        let id = inc.id;
        let index = s.index.clone();
        self.playback.apply(PlaybackCommand::Pause, index.get());
        self.playback.apply(PlaybackCommand::Seek(t), index.get());
        self.state.view.zoom_to_incident(&self.model, id);
    }

    /// Draws the whole window into `ui` and applies the frame's commands.
    pub fn ui(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        if !self.fonts_done {
            self.fonts_done = true;
            self.cjk_ok = super::fonts::setup(&ctx, self.state.cjk_font.as_deref());
        }
        self.shell.ctx = Some(ctx.clone());
        ctx.set_theme(if self.state.dark {
            egui::Theme::Dark
        } else {
            egui::Theme::Light
        });
        self.poll(&ctx);
        self.poll_shell(&ctx);
        self.tick_playback(&ctx);
        self.dock_whatif();
        // Lanes grow into the room the plot had last frame.
        if self.model.fit_lane_height(self.state.view.plot_h) {
            ctx.request_repaint();
        }
        if (self.shell.shot.is_some() || self.exit_shot) && self.log_shown {
            // A picture's legend says what the whole model holds: built
            // whole from the second frame with the log on, before the
            // picture (a few frames later, [`super::shell::screenshot`]).
            self.model.build_all();
        }
        self.build_in_view();
        if self.session.is_none() {
            // No log shown: the panels over the window's clear colour,
            // which is their fill ([`unshown_clear_color`]).
            ui.style_mut().visuals.panel_fill = egui::Color32::TRANSPARENT;
        }
        self.panels_ui(ui);
        self.apply(&ctx);
        // Scrolled this frame to lanes not built: built for the next one.
        if self.build_in_view() {
            ctx.request_repaint();
        }
        self.log_shown = self.session.is_some();
    }

    /// Builds the lanes of the timeline's view and a screen around it
    /// ([`SwimlaneModel::build_in_view`]); true when it built some.
    fn build_in_view(&mut self) -> bool {
        let view = &self.state.view;
        self.model.build_in_view(view.scroll_y, view.plot_h)
    }

    /// Docks the what-if replay of the selected key in the timeline, right
    /// under its logged lanes, while the What-if view is open (and takes it
    /// out when it closes); built again only when the replay, the key or
    /// the model changed.
    fn dock_whatif(&mut self) {
        let Some(s) = &self.session else { return };
        let want = if self.open.whatif {
            self.panels.whatif.docked(s, self.selection.incident)
        } else {
            None
        };
        let Some((key, mark, o)) = want else {
            self.model.undock();
            return;
        };
        if self.model.docked.is_some_and(|d| d.1 == mark) {
            return;
        }
        self.model.undock();
        let name = s.log.strings.get(key);
        let Some(g) = self.model.groups.iter().position(|g| g.key == name) else {
            return;
        };
        // The replay's lanes follow the logged ones.
        self.model.build_groups(g..g + 1);
        let logged = &self.model.groups[g];
        let title = panels::whatif::replay_title(self.state.lang, o, name);
        let group = panels::whatif::replay_group(
            &s.log,
            &s.analysis,
            o,
            key,
            logged,
            self.model.t0_ns,
            title,
        );
        self.model.dock(name, group, mark);
    }

    /// The panels, in layout order: bars at the top and bottom, the
    /// incident list left, state and details right, the timeline in the
    /// middle, then the windows.
    fn panels_ui(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        let shooting = self.shell.shot.is_some() || self.exit_shot;
        let mut context = PanelContext {
            state: &self.state,
            session: self.session.as_ref(),
            selection: self.selection,
            playback: &self.playback,
            loop_on: self.loop_on,
            model: &self.model,
            open: self.open,
            loading: self.loading.as_ref(),
            error: self.error.as_deref(),
            notice: self.notice.as_deref(),
            cjk_ok: self.cjk_ok,
            commands: &mut self.commands,
        };
        let p = &mut self.panels;
        egui::Panel::top("menu").show(ui, |ui| panels::menu::menu_ui(ui, &mut context));
        egui::Panel::top("summary").show(ui, |ui| panels::summary::summary_ui(ui, &mut context));
        egui::Panel::top("replay")
            .show(ui, |ui| panels::replay_bar::replay_bar_ui(ui, &mut context));
        egui::Panel::bottom("status").show(ui, |ui| panels::status::status_ui(ui, &mut context));
        if context.open.warnings {
            egui::Panel::bottom("warnings")
                .resizable(true)
                .default_size(140.0)
                .show(ui, |ui| panels::warnings::warnings_ui(ui, &context));
        }
        sides_ui(ui, p, &mut context);
        // Under the timeline, between the side panels: the What-if view,
        // then, right under the lanes, the stock plot (in a shot, above the
        // shot's legend and caption).
        p.whatif.dock(ui, &mut context);
        if !shooting {
            p.stock_plot.dock(ui, &mut context);
        }
        let timeline = egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| {
                let whole = ui.max_rect();
                if shooting && let Some(s) = context.session {
                    // The picture says what it shows: title, legend and
                    // caption around the timeline, in the shot only.
                    let (selected, lang) = (context.selection.incident, context.lang());
                    super::render::chrome_ui(ui, &s.input(), context.model, selected, lang);
                    p.stock_plot.dock(ui, &mut context);
                    return panels::central::central_ui(ui, &mut context, true).map(|_| whole);
                }
                if context.session.is_some() {
                    egui::Frame::new()
                        .fill(ui.visuals().panel_fill)
                        .inner_margin(egui::Margin::symmetric(6, 3))
                        .show(ui, |ui| {
                            // The row's background spans the timeline.
                            ui.set_min_width(ui.available_width());
                            p.search.ui(ui, &mut context);
                        });
                }
                panels::central::central_ui(ui, &mut context, false)
            })
            .inner;
        p.settings.show(&ctx, &mut context);
        panels::sources::sources_window(&ctx, &mut context);
        panels::mapping::mapping_window(&ctx, &mut context, &mut p.mapping, &mut p.mapping_saved);
        if timeline.is_some() {
            self.shell.timeline_rect = timeline;
        }
    }

    /// The field-mapping dialog's state, while it is open (tests, and a
    /// caller that fills the roles in).
    pub fn mapping_editor_mut(&mut self) -> Option<&mut panels::mapping::MappingEditor> {
        self.panels.mapping.as_mut()
    }

    /// Queues `command` as a panel would (tests drive the window with it).
    #[cfg(test)]
    pub(crate) fn push_command(&mut self, command: Command) {
        self.commands.push(command);
    }

    /// What the stock plot under the lanes shows: the selected incident's
    /// products with stock; empty while it is hidden.
    pub fn stock_plot(&self) -> &[crate::ui::stock_plot::ProductStock] {
        self.panels.stock_plot.shown(self.selection.incident)
    }

    /// Where the timeline was drawn last frame, points.
    pub fn timeline_rect(&self) -> Option<egui::Rect> {
        self.shell.timeline_rect
    }

    /// The summary line, `3 oversold · ¥600`.
    pub fn summary_text(&self) -> String {
        panels::summary::summary_text(self.session.as_ref(), self.state.lang)
    }

    /// Opens the settings window, its zone field showing the saved zone
    /// and its mapping field the mapping the files on screen were read
    /// with.
    pub fn open_settings(&mut self) {
        let mapping = self.session.as_ref().and_then(|s| s.mapping.as_deref());
        self.panels.settings.reset(&self.state, mapping);
        self.open.set(Panel::Settings, true);
    }

    /// Shows `panel` (`--whatif`, tests).
    pub fn open_panel(&mut self, panel: Panel) {
        self.open.set(panel, true);
    }

    /// The What-if window's own state (tests).
    pub fn whatif_panel(&mut self) -> &mut panels::whatif::WhatIfPanel {
        &mut self.panels.whatif
    }

    /// The settings window's zone text (tests).
    pub fn tz_edit_text(&self) -> &str {
        &self.panels.settings.read_tz
    }

    /// The settings window's TTL text (tests).
    pub fn ttl_edit_text(&self) -> &str {
        &self.panels.settings.read_ttl
    }
}

/// The incident list on the left and the state and details on the right,
/// each collapsible; a panel closed or opened by its button becomes a
/// command.
fn sides_ui(ui: &mut Ui, p: &mut Panels, context: &mut PanelContext<'_>) {
    // The timeline is what the window is for: the side panels together
    // never take more than `SIDES_MAX_FRACTION` of the window, whatever
    // width was saved; each collapses (`[`, `]`, View menu).
    let widths = panels::sides::SideWidths::for_window(ui.max_rect().width());
    let generation = context.state.layout_generation;
    let (mut left_open, mut right_open) = (context.open.incidents, context.open.details);
    egui::Panel::left(("incidents", generation))
        .resizable(true)
        .default_size(widths.left_default)
        .size_range(widths.left_min()..=widths.left_max)
        .show_collapsible(ui, &mut left_open, |ui| {
            // Fill the panel's width: a panel shrinks to its content,
            // and a first frame with only a heading would be saved as
            // its width.
            ui.set_min_width(ui.available_width());
            left_side_ui(ui, p, context);
        });
    egui::Panel::right(("details", generation))
        .resizable(true)
        .default_size(widths.right_default)
        .size_range(widths.right_min()..=widths.right_max)
        .show_collapsible(ui, &mut right_open, |ui| {
            // Both ways: a long unbroken id scrolls sideways instead
            // of widening the panel past the window's edge.
            egui::ScrollArea::vertical()
                .id_salt("right_side")
                .auto_shrink(false)
                .show(ui, |ui| {
                    panels::cursor_state::cursor_state_ui(ui, context);
                    ui.separator();
                    p.details.ui(ui, context);
                });
        });
    if left_open != context.open.incidents {
        context.send(Command::SetPanelOpen(Panel::Incidents, left_open));
    }
    if right_open != context.open.details {
        context.send(Command::SetPanelOpen(Panel::Details, right_open));
    }
}

/// The left side: the incident list, and under it the Findings list
/// (the lower part, when there are findings).
fn left_side_ui(ui: &mut Ui, p: &mut Panels, context: &mut PanelContext<'_>) {
    let has_findings = context
        .session
        .is_some_and(|s| !s.analysis.findings.is_empty());
    if !has_findings {
        p.incidents.ui(ui, context);
        return;
    }
    let top_h = (ui.available_height() * 0.55).max(120.0);
    let size = egui::vec2(ui.available_width(), top_h);
    ui.allocate_ui(size, |ui| {
        ui.set_min_height(top_h);
        p.incidents.ui(ui, context);
    });
    ui.separator();
    panels::findings::findings_ui(ui, context);
}

/// What to say when a file dialog chose nothing or none could open: for a
/// mapping file, that its path can be typed in Settings.
fn no_dialog_notice(lang: crate::ui::i18n::Lang, purpose: OpenPurpose) -> String {
    let key = match purpose {
        OpenPurpose::Logs => "no_dialog",
        OpenPurpose::Mapping => "no_dialog_mapping",
    };
    tr(lang, key).to_string()
}

/// The window's own keys: Ctrl+O, F5, and (unless a text field has the
/// keyboard) Space, `,` and `.` for the replay.
fn window_keys(ctx: &egui::Context) -> Vec<Command> {
    let mut commands = Vec::new();
    ctx.input_mut(|i| {
        if i.consume_key(egui::Modifiers::COMMAND, egui::Key::O) {
            commands.push(Command::OpenDialog);
        }
        if i.consume_key(egui::Modifiers::NONE, egui::Key::F5) {
            commands.push(Command::Reload);
        }
    });
    if !ctx.egui_wants_keyboard_input() {
        ctx.input_mut(|i| {
            for (key, command) in [
                (egui::Key::Space, PlaybackCommand::TogglePlay),
                (egui::Key::Comma, PlaybackCommand::StepBack),
                (egui::Key::Period, PlaybackCommand::StepForward),
            ] {
                if i.consume_key(egui::Modifiers::NONE, key) {
                    commands.push(Command::Playback(command));
                }
            }
            for (key, command) in [
                (egui::Key::N, Command::StepIncident(true)),
                (egui::Key::P, Command::StepIncident(false)),
            ] {
                if i.consume_key(egui::Modifiers::NONE, key) {
                    commands.push(command);
                }
            }
            if i.consume_key(egui::Modifiers::SHIFT, egui::Key::N) {
                commands.push(Command::StepIncident(false));
            }
            for (key, panel) in [
                (egui::Key::OpenBracket, Panel::Incidents),
                (egui::Key::CloseBracket, Panel::Details),
            ] {
                if i.consume_key(egui::Modifiers::NONE, key) {
                    commands.push(Command::TogglePanel(panel));
                }
            }
        });
    }
    commands
}

/// The window's clear colour, opaque (eframe's default is a translucent
/// near-black): the panels' fill (`visuals`) while no log is shown, when
/// [`App::ui`] draws the panels without one, so the window looks the same
/// with one full-window layer fewer to shade. With Mesa's software
/// renderer (no GPU, as in CI) those layers cost most of a frame, and the
/// frames drawn while a log loads took CPU from the load: the 1 M
/// simulator log's first frame with the log came at 0.66-0.99 s (median
/// 0.71) against 0.84-1.26 s (median 0.92), 6 alternating runs
/// (docs/performance.md). Once a log is shown, `None`: eframe's default,
/// and the panels fill as before.
pub fn unshown_clear_color(visuals: &egui::Visuals, log_shown: bool) -> Option<egui::Color32> {
    (!log_shown).then(|| visuals.panel_fill.to_opaque())
}

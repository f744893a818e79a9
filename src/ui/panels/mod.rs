//! The window's panels, one file each. A panel reads the frame's
//! [`PanelContext`] and sends [`Command`]s; the few that keep state of
//! their own (the incident table's sort, the settings window's text fields)
//! own it in [`Panels`].

pub mod central;
pub mod cursor_state;
pub mod details;
pub mod findings;
pub mod incidents;
pub mod mapping;
pub mod menu;
pub mod money;
pub mod replay_bar;
pub mod search;
pub mod settings;
pub mod sides;
pub mod sources;
pub mod spinner;
pub mod status;
pub mod stock;
pub mod stock_plot;
pub mod summary;
pub mod warnings;
pub mod whatif;

use egui::Color32;

use super::i18n::Lang;
use super::loader::Loading;
use super::session::Session;
use super::state::{AppState, Command, OpenPanels, Selection};
use super::timeline::SwimlaneModel;
use crate::playback::Playback;

/// Red for what went wrong (oversold units, loss, zombie holds).
pub const ALERT: Color32 = Color32::from_rgb(210, 40, 40);
/// Orange for notices.
pub const NOTICE: Color32 = Color32::from_rgb(200, 120, 0);

/// What the panels read while one frame is drawn, and the queue their
/// commands go to.
pub struct PanelContext<'a> {
    /// The persisted state.
    pub state: &'a AppState,
    /// The log on screen.
    pub session: Option<&'a Session>,
    /// What is selected.
    pub selection: Selection,
    /// The replay's cursor and playback.
    pub playback: &'a Playback,
    /// Whether playback loops.
    pub loop_on: bool,
    /// The timeline's display list.
    pub model: &'a SwimlaneModel,
    /// Which panels are open.
    pub open: OpenPanels,
    /// The load in progress.
    pub loading: Option<&'a Loading>,
    /// Why the last load failed.
    pub error: Option<&'a str>,
    /// The status bar's notice.
    pub notice: Option<&'a str>,
    /// False when no CJK font could be installed.
    pub cjk_ok: bool,
    /// Where commands go.
    pub commands: &'a mut Vec<Command>,
}

impl PanelContext<'_> {
    /// The UI language.
    pub fn lang(&self) -> Lang {
        self.state.lang
    }

    /// Asks for `command`, applied after the frame.
    pub fn send(&mut self, command: Command) {
        self.commands.push(command);
    }

    /// Asks for `command` before those already sent this frame: for the
    /// timeline's own pan and zoom, so that a command chosen in the same
    /// frame (Fit all, an incident's zoom) still has the last word.
    pub fn send_first(&mut self, command: Command) {
        self.commands.insert(0, command);
    }
}

/// The state panels keep for themselves.
#[derive(Default)]
pub struct Panels {
    /// The incident table.
    pub incidents: incidents::IncidentsPanel,
    /// The settings window.
    pub settings: settings::SettingsWindow,
    /// The What-if window.
    pub whatif: whatif::WhatIfPanel,
    /// The details panel's source lines.
    pub details: details::DetailsPanel,
    /// The search box above the timeline.
    pub search: search::SearchPanel,
    /// The field-mapping dialog, while open.
    pub mapping: Option<mapping::MappingEditor>,
    /// The dialogs whose mappings were saved, by their files: opened again
    /// on those files, they show what was built.
    pub mapping_saved: Vec<mapping::MappingEditor>,
    /// The stock plot under the lanes.
    pub stock_plot: stock_plot::StockPlotPanel,
}

/// A label whose `text` names `id` in its short form
/// ([`crate::ui::timeline::labels::short_id`]): the full id on hover, and a
/// click copies it.
pub fn id_label(ui: &mut egui::Ui, lang: Lang, text: egui::RichText, id: &str) -> egui::Response {
    let r = ui
        .add(egui::Label::new(text).wrap().sense(egui::Sense::click()))
        .on_hover_text(format!("{id}\n{}", super::i18n::tr(lang, "click_to_copy")));
    if r.clicked() {
        ui.ctx().copy_text(id.to_string());
    }
    r
}

//! What the window remembers and what it can be asked to do: the persisted
//! [`AppState`], the [`Selection`], which panels are open, and the
//! [`Command`]s the panels send, applied once after each frame.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::i18n::Lang;
use super::timeline::{Filters, TimeDisplay, TimelineView};
use crate::analysis::{IncidentId, OverlapId, Settings};
use crate::playback::PlaybackCommand;

/// Storage key for [`AppState`]. Version 2: the state saved under the
/// first key can carry a unit loss of ¥200 nobody set, so it is not read
/// back.
pub const STORAGE_KEY: &str = "lockreplay-state-2";

/// The saved state's text in eframe's storage file `app_ron` (a RON map
/// from key to text, as eframe's `FileStorage` writes it), under
/// [`STORAGE_KEY`]; `None` when the file is missing or unreadable, or has
/// no state.
pub fn saved_text(app_ron: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(app_ron).ok()?;
    let mut kv: std::collections::HashMap<String, String> = ron::from_str(&text).ok()?;
    kv.remove(STORAGE_KEY)
}

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
    /// Mapping files by the files they were made for: a mapping applies
    /// when exactly those files are opened again, never to others.
    pub mappings: Vec<FileMapping>,
    /// A CJK font file chosen by the user.
    pub cjk_font: Option<PathBuf>,
    /// Zone of times written without an offset (`+08:00`, `Asia/Shanghai`),
    /// for the next load; `None` reads them as UTC. `--tz` overrides it.
    pub read_tz: Option<String>,
    /// TTL of files whose records carry no TTL field, for the next load:
    /// `MS` for all of them, or `FILE=MS` items, comma-separated.
    /// `--ttl-ms` overrides it; `None` leaves their TTL unknown.
    pub read_ttl: Option<String>,
    /// Bumped by View > Reset layout: the side panels' ids carry it, so
    /// their saved widths are forgotten and the defaults come back.
    pub layout_generation: u32,
    /// Read and save loads through the load cache (`ingest::cache`);
    /// `--no-cache` turns it off for one window.
    pub use_cache: bool,
}

impl Default for AppState {
    fn default() -> Self {
        AppState {
            settings: Settings::default(),
            view: TimelineView::default(),
            recent: Vec::new(),
            lang: Lang::from_env(),
            dark: false,
            time_display: TimeDisplay::default(),
            filters: Filters::default(),
            mappings: Vec::new(),
            cjk_font: None,
            read_tz: None,
            read_ttl: None,
            layout_generation: 0,
            use_cache: true,
        }
    }
}

impl AppState {
    /// Puts `files` first in the recent list (once), keeping ten.
    pub fn remember(&mut self, files: &[PathBuf]) {
        self.recent.retain(|p| p != files);
        self.recent.insert(0, files.to_vec());
        self.recent.truncate(10);
    }

    /// The mapping file made for exactly `files` (in any order), if any;
    /// none for no file (the sample).
    pub fn mapping_for(&self, files: &[PathBuf]) -> Option<&PathBuf> {
        if files.is_empty() {
            return None;
        }
        self.mappings
            .iter()
            .find(|m| same_files(&m.files, files))
            .map(|m| &m.mapping)
    }

    /// Reads `files` with `mapping` from now on (`None`: with none),
    /// keeping the mappings of the last [`MAX_MAPPINGS`] file sets. No
    /// file (the sample) keeps none.
    pub fn set_mapping_for(&mut self, files: &[PathBuf], mapping: Option<PathBuf>) {
        if files.is_empty() {
            return;
        }
        self.mappings.retain(|m| !same_files(&m.files, files));
        if let Some(mapping) = mapping {
            self.mappings.insert(
                0,
                FileMapping {
                    files: files.to_vec(),
                    mapping,
                },
            );
            self.mappings.truncate(MAX_MAPPINGS);
        }
    }
}

/// File sets whose mappings are remembered at most.
pub const MAX_MAPPINGS: usize = 50;

/// A mapping file and the files it was made for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileMapping {
    /// The files, as opened.
    pub files: Vec<PathBuf>,
    /// The mapping file.
    pub mapping: PathBuf,
}

/// True when `a` and `b` name the same files, in any order.
fn same_files(a: &[PathBuf], b: &[PathBuf]) -> bool {
    a.len() == b.len() && a.iter().all(|p| b.contains(p))
}

/// What is selected.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Selection {
    /// Incident id.
    pub incident: Option<IncidentId>,
    /// The overlap pair clicked on the timeline, within that incident.
    pub overlap: Option<OverlapId>,
    /// The finding clicked (in the list or on its marker): index into
    /// [`crate::analysis::Analysis::findings`]; Details explains it.
    pub finding: Option<usize>,
}

impl Selection {
    /// `incident` selected as a whole (no pair within it).
    pub fn of_incident(incident: IncidentId) -> Selection {
        Selection {
            incident: Some(incident),
            overlap: None,
            finding: None,
        }
    }
}

/// A panel or window that can be shown or hidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    /// The settings window.
    Settings,
    /// The sources window.
    Sources,
    /// The warnings panel at the bottom.
    Warnings,
    /// The What-if window.
    WhatIf,
    /// The incident and findings lists on the left.
    Incidents,
    /// State at cursor and Details on the right.
    Details,
}

/// Which panels and windows are shown (not persisted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenPanels {
    /// The settings window.
    pub settings: bool,
    /// The sources window.
    pub sources: bool,
    /// The warnings panel.
    pub warnings: bool,
    /// The What-if window.
    pub whatif: bool,
    /// The left side panel (incidents, findings); collapsed when false.
    pub incidents: bool,
    /// The right side panel (state at cursor, details); collapsed when false.
    pub details: bool,
}

impl Default for OpenPanels {
    fn default() -> Self {
        OpenPanels {
            settings: false,
            sources: false,
            warnings: false,
            whatif: false,
            incidents: true,
            details: true,
        }
    }
}

impl OpenPanels {
    /// Whether `panel` is shown.
    pub fn get(&self, panel: Panel) -> bool {
        match panel {
            Panel::Settings => self.settings,
            Panel::Sources => self.sources,
            Panel::Warnings => self.warnings,
            Panel::WhatIf => self.whatif,
            Panel::Incidents => self.incidents,
            Panel::Details => self.details,
        }
    }

    /// Shows or hides `panel`.
    pub fn set(&mut self, panel: Panel, open: bool) {
        match panel {
            Panel::Settings => self.settings = open,
            Panel::Sources => self.sources = open,
            Panel::Warnings => self.warnings = open,
            Panel::WhatIf => self.whatif = open,
            Panel::Incidents => self.incidents = open,
            Panel::Details => self.details = open,
        }
    }
}

/// Incident table sort column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    /// Start time.
    Start,
    /// Lock key.
    Key,
    /// Duration of the overlap.
    Duration,
    /// Oversold units.
    Oversold,
    /// Money lost.
    Loss,
}

/// How the incident table is sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IncidentSort {
    /// The column.
    pub by: SortBy,
    /// Smallest first.
    pub ascending: bool,
}

impl Default for IncidentSort {
    fn default() -> Self {
        IncidentSort {
            by: SortBy::Loss,
            ascending: false,
        }
    }
}

impl IncidentSort {
    /// The sort after clicking column `by`: the same column flips the
    /// direction; another column sorts its natural way (a start or a key
    /// smallest first, a loss, oversold units or a duration largest first).
    pub fn clicked(self, by: SortBy) -> IncidentSort {
        let first_ascending = matches!(by, SortBy::Start | SortBy::Key);
        IncidentSort {
            by,
            ascending: if self.by == by {
                !self.ascending
            } else {
                first_ascending
            },
        }
    }
}

/// What part of the window a screenshot shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScreenshotArea {
    /// The whole window.
    Window,
    /// The timeline only.
    Timeline,
}

/// Where a screenshot goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScreenshotDestination {
    /// A PNG file.
    File,
    /// The clipboard.
    Clipboard,
}

/// A screenshot to take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScreenshotRequest {
    /// What it shows.
    pub area: ScreenshotArea,
    /// Where it goes.
    pub destination: ScreenshotDestination,
}

/// A change requested while drawing, applied after the frame: the only way
/// the panels change the window's state.
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
    /// Select (the timeline's click), without moving the view.
    Select(Selection),
    /// Select an incident and zoom to it.
    ShowIncident(IncidentId),
    /// Zoom to the selected incident.
    ZoomToSelected,
    /// Show everything.
    FitAll,
    /// Select the next (`true`) or previous incident by start time, zoom
    /// to it and put the cursor at its start.
    StepIncident(bool),
    /// Forget the side panels' widths and show both (View > Reset layout).
    ResetLayout,
    /// Go to a time (s since the first event) on a key's group, keeping
    /// the zoom unless the time is off screen: a finding's or a search
    /// match's row was clicked.
    /// Select a finding (index into the analysis's findings) and go to it
    /// as [`Command::GoTo`] does.
    SelectFinding(usize),
    GoTo {
        /// Epoch ns.
        at_ns: i64,
        /// The key's group in the swimlane model, if shown.
        key: Option<String>,
    },
    /// The timeline's pan, zoom or scroll.
    SetView(TimelineView),
    /// New filters: rebuild the swimlane model.
    SetFilters(Filters),
    /// New analysis settings: re-run the analysis.
    SetSettings(Settings),
    /// Zone of times without offset, then reload.
    SetReadZone(Option<String>),
    /// TTL of files without one, then reload.
    SetReadTtl(Option<String>),
    /// The mapping file of the files on screen (`None`: read them without
    /// one), then reload.
    SetMapping(Option<PathBuf>),
    /// Open the field-mapping dialog on a source (index into the log's
    /// sources).
    EditMapping(usize),
    /// Use the load cache for the next loads ([`AppState::use_cache`]).
    SetUseCache(bool),
    /// The UI language.
    SetLang(Lang),
    /// Dark (or light) theme.
    SetDarkTheme(bool),
    /// How times are shown.
    SetTimeDisplay(TimeDisplay),
    /// A CJK font file (installed on the next frame).
    SetCjkFont(Option<PathBuf>),
    /// Open the settings window, its fields showing the saved values.
    OpenSettings,
    /// Show or hide a panel.
    SetPanelOpen(Panel, bool),
    /// Show a hidden panel, hide a shown one.
    TogglePanel(Panel),
    /// Show or hide the status bar's notice.
    SetNotice(Option<String>),
    /// Change the replay's time cursor or playback.
    Playback(PlaybackCommand),
    /// Pause and put the cursor at the start of the selected incident.
    JumpToIncidentStart,
    /// Loop the selected incident (or the visible range) on or off.
    ToggleLoop,
    /// Take a screenshot and save or copy it.
    Screenshot(ScreenshotRequest),
    /// Write the report folder (the headless `report`), choosing the folder
    /// with a dialog.
    ExportReport,
    /// Close the window.
    Quit,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_saved_state_is_read_as_eframe_keeps_it() {
        let tmp = tempfile::tempdir().expect("tmp");
        let file = tmp.path().join("app.ron");
        assert_eq!(saved_text(&file), None);
        let mut state = AppState::default();
        state.settings.unit_loss = Some(123.5);
        let text = ron::to_string(&state).expect("ron");
        // As eframe's FileStorage writes it: a pretty RON map, the
        // window's own keys beside ours.
        let kv: std::collections::BTreeMap<&str, &str> =
            [(STORAGE_KEY, text.as_str()), ("egui", "(zoom: 1.0)")].into();
        let pretty =
            ron::ser::to_string_pretty(&kv, ron::ser::PrettyConfig::default()).expect("ron");
        std::fs::write(&file, pretty).expect("write");
        let read = saved_text(&file).expect("the state");
        assert_eq!(read, text);
        let back: AppState = ron::from_str(&read).expect("decodes");
        assert_eq!(back.settings.unit_loss, Some(123.5));
        std::fs::write(&file, "{\"egui\": \"x\"}").expect("write");
        assert_eq!(saved_text(&file), None);
        std::fs::write(&file, "not ron {").expect("write");
        assert_eq!(saved_text(&file), None);
    }

    #[test]
    fn clicking_a_column_sorts_by_it_and_again_reverses() {
        let start = IncidentSort::default();
        let by_loss = start.clicked(SortBy::Loss);
        assert_eq!(
            by_loss,
            IncidentSort {
                by: SortBy::Loss,
                ascending: true
            }
        );
        assert!(!by_loss.clicked(SortBy::Loss).ascending);
        assert!(
            by_loss
                .clicked(SortBy::Loss)
                .clicked(SortBy::Loss)
                .ascending
        );
    }

    #[test]
    fn a_mapping_belongs_to_the_files_it_was_made_for() {
        let mut state = AppState::default();
        let flash = vec![PathBuf::from("/logs/flash.jsonl")];
        let both = vec![
            PathBuf::from("/logs/flash.jsonl"),
            PathBuf::from("/logs/flash_b.jsonl"),
        ];
        let shop = vec![PathBuf::from("/logs/shop.log")];
        state.set_mapping_for(&flash, Some("/m/flash.toml".into()));
        state.set_mapping_for(&both, Some("/m/both.toml".into()));
        assert_eq!(state.mapping_for(&shop), None, "never another file's");
        assert_eq!(state.mapping_for(&flash), Some(&"/m/flash.toml".into()));
        let reversed: Vec<PathBuf> = both.iter().rev().cloned().collect();
        assert_eq!(state.mapping_for(&reversed), Some(&"/m/both.toml".into()));
        state.set_mapping_for(&flash, None);
        assert_eq!(state.mapping_for(&flash), None);
        assert_eq!(state.mapping_for(&both), Some(&"/m/both.toml".into()));
        let saved = serde_json::to_string(&state).expect("json");
        let back: AppState = serde_json::from_str(&saved).expect("reads back");
        assert_eq!(back.mappings, state.mappings);
    }

    #[test]
    fn a_mapping_saved_for_any_file_is_no_longer_read_back() {
        let back: AppState =
            serde_json::from_str(r#"{"mapping": "/m/flash.toml", "dark": true}"#).expect("reads");
        assert!(back.mappings.is_empty() && back.dark);
    }
}

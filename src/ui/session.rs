//! The log on screen and how it is read: what to load ([`Source`]), the
//! immutable [`Session`] (log, analysis, playback index), the settings the
//! command line gave this window, and the reading options from them and the
//! saved state.

use std::path::PathBuf;
use std::sync::Arc;

use super::i18n::{Lang, tr};
use super::products::ProductFinder;
use super::state::AppState;
use crate::analysis::{Analysis, Settings};
use crate::config::{AnalysisConfig, ReadConfig};
use crate::ingest::{CacheConfig, CacheReport, IngestOptions, Mapping};
use crate::model::LoadedLog;
use crate::playback::StateIndex;
use crate::report::ReportInput;
use crate::report::holders::HolderNames;

/// How the window reads files: the ingest options and the load cache.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Zone, mapping, MONITOR globs, TTLs.
    pub ingest: IngestOptions,
    /// The load cache (off in tests).
    pub cache: CacheConfig,
    /// The mapping file `ingest` reads with, if any (the Sources window
    /// names it).
    pub mapping_path: Option<PathBuf>,
}

/// What to load.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The embedded sample.
    Sample,
    /// Files on disk.
    Files(Vec<PathBuf>),
}

/// The playback's index ([`StateIndex`]): its extent known when the log is
/// shown, the index itself once the loader has built it after sending
/// the log (0.5-0.6 s at 10 M events, off the first frame's path). Until
/// then stepping does nothing and the cursor's state says "indexing".
#[derive(Debug, Default)]
pub struct LazyIndex {
    extent: (i64, i64),
    built: std::sync::OnceLock<StateIndex>,
}

impl LazyIndex {
    /// An index still to build, over `extent` ([`crate::playback::extent_of`]).
    pub fn pending(extent: (i64, i64)) -> LazyIndex {
        LazyIndex {
            extent,
            built: std::sync::OnceLock::new(),
        }
    }

    /// First and last time there is anything to show, ns.
    pub fn extent(&self) -> (i64, i64) {
        self.extent
    }

    /// The index, once built.
    pub fn get(&self) -> Option<&StateIndex> {
        self.built.get()
    }

    /// Keeps `index` (built over the same extent); a second one is ignored.
    pub fn fill(&self, index: StateIndex) {
        let _ = self.built.set(index);
    }
}

/// A loaded log and its analysis; replaced whole, never edited but for
/// its playback index, filled once built, and its cache report, which
/// hears what the load's cache writes did.
pub struct Session {
    /// What was loaded.
    pub source: Source,
    /// The log.
    pub log: Arc<LoadedLog>,
    /// The analysis with `settings`.
    pub analysis: Arc<Analysis>,
    /// Settings of that analysis.
    pub settings: Settings,
    /// The playback's index over the analysis, built after the log is
    /// shown ([`LazyIndex`]).
    pub index: Arc<LazyIndex>,
    /// The analysis's products by name (the stock list's order).
    pub products: Arc<ProductFinder>,
    /// Every holder's one name ([`HolderNames`]).
    pub names: Arc<HolderNames>,
    /// The list price the log's events carry ([`crate::money::list_price`]),
    /// found once when the log is loaded: the unit-loss prompt offers it on
    /// every frame, and finding it reads every event's detail (26-35 ms at
    /// 10 M events, too long for a frame).
    pub list_price: Option<crate::money::ListPrice>,
    /// What the load cache did for this load (the status bar says it).
    pub cache: CacheReport,
    /// What makes this load no answer ([`crate::analysis::problems`]),
    /// computed once: the panels say it on every frame.
    pub problems: Arc<Vec<crate::analysis::Problem>>,
    /// The mapping file the log was read with, if any.
    pub mapping: Option<PathBuf>,
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

    /// The one name of `holder` on every surface ([`HolderNames`]).
    pub fn holder_name(&self, holder: crate::model::Sym) -> &str {
        self.names.label(&self.log, holder)
    }

    /// The files it was read from (never written over); none for the
    /// sample.
    pub fn files(&self) -> &[std::path::PathBuf] {
        match &self.source {
            Source::Files(f) => f,
            Source::Sample => &[],
        }
    }

    /// The status bar's notice after a load: local times read as UTC shift
    /// every time shown, and a file without TTL has unknown lease ends; both
    /// say which setting fixes them (the command line prints the same).
    pub fn load_notice(&self, lang: Lang) -> Option<String> {
        let sources = &self.log.sources;
        let naive = sources
            .iter()
            .any(|src| src.naive_read_as_utc)
            .then(|| tr(lang, "naive_utc"));
        let no_ttl = sources
            .iter()
            .any(|src| src.ttl_unknown)
            .then(|| tr(lang, "ttl_unknown"));
        match (naive, no_ttl) {
            (Some(n), Some(t)) => Some(format!("{n} {t}")),
            (n, t) => n.or(t).map(str::to_string),
        }
    }
}

/// The reading and analysis settings this window was started with. They
/// apply to this window only: the settings saved before them are what is
/// saved again, unless the user changed the settings in the window.
pub struct FlagSettings {
    /// How to read, over the saved settings.
    pub read: ReadConfig,
    /// The saved settings and the settings as the flags made them, when the
    /// flags changed anything.
    before_flags: Option<(Settings, Settings)>,
}

impl FlagSettings {
    /// Applies `analysis` to `state`'s settings, remembering the saved
    /// ones; reads as `read` says.
    pub fn apply(
        read: ReadConfig,
        analysis: &AnalysisConfig,
        state: &mut AppState,
    ) -> FlagSettings {
        let mut before_flags = None;
        let s = analysis.apply(&state.settings);
        if s != state.settings {
            let saved = std::mem::replace(&mut state.settings, s.clone());
            before_flags = Some((saved, s));
        }
        FlagSettings { read, before_flags }
    }

    /// Stops reading with the `--mapping` file of the command line, for
    /// this window (a mapping chosen or cleared in the window replaces
    /// it): its path, if one was given.
    pub fn drop_mapping(&mut self) -> Option<PathBuf> {
        self.read.mapping.take().map(|m| m.path)
    }

    /// The state to persist: the settings given as command-line flags are
    /// not saved (the next window without flags gets the saved ones back),
    /// unless they were changed in this window, which saves what is shown.
    pub fn state_to_save(&self, state: &AppState) -> AppState {
        let mut s = state.clone();
        if let Some((saved, from_flags)) = &self.before_flags
            && state.settings == *from_flags
        {
            s.settings = saved.clone();
        }
        s
    }

    /// How the window reads `files`: [`FlagSettings::ingest_options`] and
    /// the load cache, unless the flags or the setting
    /// ([`AppState::use_cache`]) turn it off.
    pub fn read_options(&self, state: &AppState, files: &[PathBuf]) -> ReadOptions {
        let (ingest, mapping_path) = self.ingest_options(state, files);
        ReadOptions {
            ingest,
            cache: CacheConfig::from_env(state.use_cache && self.read.use_cache),
            mapping_path,
        }
    }

    /// How to read `files`: the flags, then the saved zone, TTL and the
    /// mapping made for exactly these files ([`AppState::mapping_for`])
    /// where no flag gives them; with the path of the mapping file read. A
    /// mapping file given as a flag is read again at each load, so that an
    /// edited one applies on reload; when it no longer reads, the load goes
    /// as without the reading flags.
    pub fn ingest_options(
        &self,
        state: &AppState,
        files: &[PathBuf],
    ) -> (IngestOptions, Option<PathBuf>) {
        let mut opts = self.read.ingest_options();
        let mut path = None;
        if let Some(m) = &self.read.mapping {
            match Mapping::from_path(&m.path) {
                Ok(fresh) => {
                    opts.mapping = Some(fresh);
                    path = Some(m.path.clone());
                }
                Err(_) => opts = IngestOptions::default(),
            }
        }
        if self.read.tz.is_none()
            && let Some(zone) = &state.read_tz
            && let Ok(tz) = crate::ingest::parse_tz(zone)
        {
            opts.tz = Some(tz);
        }
        if self.read.file_ttl.is_none()
            && let Some(ttl) = &state.read_ttl
            && let Ok(ttl) = crate::ingest::FileTtl::parse(&[ttl])
        {
            opts.ttl = ttl;
        }
        if opts.mapping.is_none()
            && let Some(p) = state.mapping_for(files)
            && let Ok(m) = Mapping::from_path(p)
        {
            opts.mapping = Some(m);
            path = Some(p.clone());
        }
        (opts, path)
    }
}

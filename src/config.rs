//! The settings of a run as plain values, resolved once from the command
//! line by `cli` (ripgrep's low arguments -> high arguments): how logs are
//! read ([`ReadConfig`]), which analysis settings are given
//! ([`AnalysisConfig`]), how a report is printed ([`ReportConfig`]) and
//! what the window opens with ([`WindowConfig`]). Every value here is
//! already checked; `pipeline`, `inspect`, `sql` and `ui` take these, never
//! the flags.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::analysis::Settings;
use crate::ingest::{CacheConfig, FileTtl, IngestOptions, Mapping, TzSpec};
use crate::report::escape::{JsonForTerminal, terminal};
use crate::report::{
    MarkdownImages, Printer, ReportInput, to_markdown, to_markdown_zh, write_json, write_text,
};

/// A mapping file given to read with: where it is and what it said when
/// the settings were resolved.
#[derive(Clone, Debug)]
pub struct MappingFile {
    /// The file.
    pub path: PathBuf,
    /// Its mapping.
    pub mapping: Mapping,
}

/// How logs are read: the zone of naive times, the mapping file, the
/// MONITOR lock-key glob, the TTL of files without one, and whether the
/// load cache is used. `None` where none is given, so that a window can
/// fill it from its saved settings.
#[derive(Clone, Debug)]
pub struct ReadConfig {
    /// Zone of timestamps without offset.
    pub tz: Option<TzSpec>,
    /// Field and event-name mapping.
    pub mapping: Option<MappingFile>,
    /// Glob for lock keys in MONITOR captures.
    pub lock_pattern: Option<String>,
    /// TTL of the files whose records carry none.
    pub file_ttl: Option<FileTtl>,
    /// Read through the load cache (the user's, [`CacheConfig::from_env`]).
    pub use_cache: bool,
    /// Files of rows `lockreplay fetch` pulled (the path as given, mapped to
    /// the table they came from); empty for files given by the user.
    pub pulled: std::collections::BTreeMap<String, String>,
}

impl Default for ReadConfig {
    /// Nothing given; the load cache on.
    fn default() -> Self {
        ReadConfig {
            tz: None,
            mapping: None,
            lock_pattern: None,
            file_ttl: None,
            use_cache: true,
            pulled: Default::default(),
        }
    }
}

impl ReadConfig {
    /// The options of a load with these settings.
    pub fn ingest_options(&self) -> IngestOptions {
        let mut opts = IngestOptions {
            tz: self.tz,
            mapping: self.mapping.as_ref().map(|m| m.mapping.clone()),
            ttl: self.file_ttl.clone().unwrap_or_default(),
            pulled: self.pulled.clone(),
            ..IngestOptions::default()
        };
        if let Some(p) = &self.lock_pattern {
            opts.monitor.lock_pattern = p.clone();
        }
        opts
    }

    /// The load cache: the user's, or none when [`ReadConfig::use_cache`]
    /// is off.
    pub fn cache(&self) -> CacheConfig {
        CacheConfig::from_env(self.use_cache)
    }
}

/// The analysis settings given; each one replaces its base value (the
/// defaults, or the window's saved settings), the others are kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnalysisConfig {
    /// Money lost per oversold unit, in `currency` (0 up to 10^12).
    pub unit_loss: Option<f64>,
    /// Currency code of the unit loss.
    pub currency: Option<String>,
    /// Near-miss threshold as a fraction of the TTL (above 0, up to 1).
    pub near_miss_ratio: Option<f64>,
    /// Near-misses in a row that raise the alert finding.
    pub near_miss_streak: Option<u32>,
    /// Log-lag tolerance, ms.
    pub log_lag_tolerance_ms: Option<f64>,
    /// How far each host's clock runs ahead, ms; replaces the whole map.
    pub host_offsets_ms: Option<BTreeMap<String, f64>>,
}

impl AnalysisConfig {
    /// `base` with the settings given here.
    pub fn apply(&self, base: &Settings) -> Settings {
        let mut s = base.clone();
        if let Some(v) = self.unit_loss {
            s.unit_loss = Some(v);
        }
        if let Some(v) = &self.currency {
            s.currency = v.clone();
        }
        if let Some(v) = self.near_miss_ratio {
            s.near_miss_ratio = v;
        }
        if let Some(v) = self.near_miss_streak {
            s.near_miss_streak = v;
        }
        if let Some(v) = self.log_lag_tolerance_ms {
            s.log_lag_tolerance_ms = v;
        }
        if let Some(v) = &self.host_offsets_ms {
            s.host_offsets_ms = v.clone();
        }
        s
    }

    /// The defaults with the settings given here.
    pub fn settings(&self) -> Settings {
        self.apply(&Settings::default())
    }
}

/// The format of a printed report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReportFormat {
    /// Plain text for the terminal.
    #[default]
    Text,
    /// Markdown.
    Markdown,
    /// JSON (schema `lockreplay/1`, docs/json-schema.md).
    Json,
}

/// The language of what the user reads: a report's words, a picture's,
/// the window's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Simplified Chinese.
    Zh,
}

/// How a report is printed on standard output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReportConfig {
    /// The format.
    pub format: ReportFormat,
    /// The language of text and Markdown (JSON has none: its names are the
    /// report's snake_case ones).
    pub lang: Lang,
}

impl ReportConfig {
    /// True for Simplified Chinese.
    pub fn zh(&self) -> bool {
        self.lang == Lang::Zh
    }

    /// The printer of this format and language (Markdown without pictures).
    /// JSON and text are streamed, incident by incident; Markdown is
    /// written whole.
    pub fn printer(&self) -> Printer {
        match (self.format, self.lang) {
            (ReportFormat::Text, Lang::En) => |r, w| write_text(r, false, w),
            (ReportFormat::Text, Lang::Zh) => |r, w| write_text(r, true, w),
            (ReportFormat::Markdown, Lang::En) => |r, w| {
                let md = to_markdown(r, &MarkdownImages::default());
                w.write_all(terminal(&md).as_bytes())
            },
            (ReportFormat::Markdown, Lang::Zh) => |r, w| {
                let md = to_markdown_zh(r, &MarkdownImages::default());
                w.write_all(terminal(&md).as_bytes())
            },
            (ReportFormat::Json, _) => json_for_terminal,
        }
    }
}

/// The JSON report for standard output: streamed, with the characters
/// that could drive a terminal written as JSON escapes.
fn json_for_terminal(r: &ReportInput<'_>, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    write_json(r, &mut JsonForTerminal(w))
}

/// Where the window's replay cursor is placed once the log is loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cursor {
    /// At this time, ns since the epoch.
    At(i64),
    /// This many ns after the first event (saturating).
    AfterFirst(i64),
}

impl Cursor {
    /// The cursor's time, ns since the epoch, in a log whose first event
    /// is at `first_ns`.
    pub fn at(self, first_ns: i64) -> i64 {
        match self {
            Cursor::At(t) => t,
            Cursor::AfterFirst(d) => first_ns.saturating_add(d),
        }
    }
}

/// What the window opens with.
#[derive(Clone, Debug, Default)]
pub struct WindowConfig {
    /// Log files to open; the embedded sample when none.
    pub files: Vec<PathBuf>,
    /// Take a screenshot once loaded, write it to this PNG and exit.
    pub screenshot: Option<PathBuf>,
    /// Where to place the replay's cursor.
    pub cursor: Option<Cursor>,
    /// Open the What-if view.
    pub whatif: bool,
    /// The window's language, over the saved one.
    pub lang: Option<Lang>,
    /// How to read the files, over the saved settings.
    pub read: ReadConfig,
    /// Analysis settings, over the saved ones, for this window only.
    pub analysis: AnalysisConfig,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_settings_replace_their_base_and_keep_the_rest() {
        let base = Settings {
            currency: "USD".into(),
            near_miss_streak: 7,
            ..Settings::default()
        };
        assert_eq!(AnalysisConfig::default().apply(&base), base);
        let given = AnalysisConfig {
            unit_loss: Some(650.0),
            host_offsets_ms: Some(BTreeMap::from([("a".to_string(), 3.0)])),
            ..AnalysisConfig::default()
        };
        let s = given.apply(&base);
        assert_eq!(s.unit_loss, Some(650.0));
        assert_eq!((s.currency.as_str(), s.near_miss_streak), ("USD", 7));
        assert_eq!(s.host_offsets_ms.get("a"), Some(&3.0));
    }

    #[test]
    fn a_cursor_after_the_first_event_saturates() {
        assert_eq!(Cursor::At(5).at(100), 5);
        assert_eq!(Cursor::AfterFirst(5).at(100), 105);
        assert_eq!(Cursor::AfterFirst(i64::MAX).at(1), i64::MAX);
    }
}

//! Reads exported logs (JSON Lines, JSON arrays, CSV, Elasticsearch, Loki, SLS,
//! logfmt, `redis-cli monitor`) into a [`LoadedLog`](crate::model::LoadedLog).
//!
//! The dialect, the text encoding and which field plays which role are
//! detected per file from its content; a [`Mapping`] file can override them.
//! Unreadable lines become warnings, never errors: only I/O failures,
//! cancellation and bad options stop a load.

pub mod cache;
mod error;
mod infra;
mod link;
pub mod monitor;
pub mod redlock;
mod tie;

// The layers, lowest first (ARCHITECTURE.md, docs/ingest.md): vocabulary,
// records, roles, framing, readers, assembly. Each module names only its
// own layer's modules and lower ones (`tests/architecture/ingest_layers.rs`);
// the files beside the layers (`cache.rs`, `redlock.rs`, `link.rs`, `tie.rs`,
// `monitor/`, `infra/`, this one) stand with the assembly.
mod assembly;
mod framing;
mod readers;
mod records;
mod roles;
mod vocabulary;

pub use assembly::head::{
    LineParts, event_name_kind, field_values, is_data_pair, line_parts, mapped_event_kind,
    mapped_message_kind, message_kind, record_values, says_failure,
};
pub use assembly::load::{load_paths, settle};
pub use assembly::source::{looks_compressed, read_source, source_text};
pub use cache::{
    CacheConfig, CacheReport, PendingStore, load_paths_cached, load_paths_cached_later,
};
pub use error::IngestError;
pub use roles::mapping::{MAX_TTL_MS, Mapping, role_names};
pub use roles::time;
pub use roles::time::{TimeError, TzSpec, parse_time, parse_tz};

/// The JSON Lines field scanner, exposed for `bench/scan`, which
/// measures it against sonic-rs and simd-json. Not part of the API.
#[doc(hidden)]
pub mod scan_bench {
    /// Scans `line` for the fields `names` as the JSON Lines fast path does;
    /// returns how many were found, or `None` when the line would take the
    /// general `serde_json` path.
    pub fn scan_fields(line: &str, names: &[&str]) -> Option<usize> {
        let mut out = vec![None; names.len()];
        super::readers::fast::scan_line(line, names, &mut out)
            .then(|| out.iter().filter(|v| v.is_some()).count())
    }
}

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64};

/// Options for one load.
#[derive(Clone, Debug, Default)]
pub struct IngestOptions {
    /// Zone of timestamps that carry no offset; UTC when `None` (a note says
    /// so). Wins over the mapping's `tz`.
    pub tz: Option<TzSpec>,
    /// Field and event-name overrides.
    pub mapping: Option<Mapping>,
    /// Options for `redis-cli monitor` captures.
    pub monitor: monitor::MonitorOptions,
    /// TTLs for files whose records carry no TTL field (`--ttl-ms`); they
    /// win over the mapping's `ttl_ms`.
    pub ttl: FileTtl,
    /// Files of rows pulled from a table by `lockreplay fetch` (the path as
    /// given, mapped to the table): each gets a
    /// [`crate::model::SourceNote::Pulled`] note.
    pub pulled: std::collections::BTreeMap<String, String>,
}

/// Most bytes read from one input file, and most bytes a compressed file may
/// expand to (4 GiB): past it the file is refused with an error that says so,
/// instead of an allocation the machine cannot make (`/dev/zero` through a
/// pipe). Memory is about 1.7x the bytes kept (docs/reliability.md).
pub const MAX_INPUT_BYTES: u64 = 4 << 30;

pub use framing::decode::{MAX_EXPANSION_RATIO, RATIO_FREE_BYTES};

/// The TTL of files that never say it: for every such file, or by file.
/// Files whose records carry a TTL field are not affected.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileTtl {
    /// For every file without a TTL field, ms.
    pub all_ms: Option<i64>,
    /// By file (the path as given, or its file name), ms; wins over
    /// `all_ms`.
    pub by_file_ms: std::collections::BTreeMap<String, i64>,
}

impl FileTtl {
    /// Parses `N` (every file) and `FILE=N` items, N in ms; items may also
    /// be given comma-separated in one string (the window's field).
    ///
    /// # Errors
    /// [`IngestError::BadTtl`] naming the item that is not `N` or `FILE=N`
    /// with N a positive whole number of ms.
    pub fn parse<S: AsRef<str>>(items: &[S]) -> Result<FileTtl, IngestError> {
        let mut out = FileTtl::default();
        for item in items.iter().flat_map(|s| s.as_ref().split(',')) {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (file, ms) = match item.rsplit_once('=') {
                Some((f, ms)) => (Some(f.trim()), ms.trim()),
                None => (None, item),
            };
            let ms = ms
                .parse::<i64>()
                .ok()
                .filter(|&v| v > 0 && v < MAX_TTL_MS && file.is_none_or(|f| !f.is_empty()))
                .ok_or_else(|| IngestError::BadTtl(item.to_string()))?;
            match file {
                Some(f) => {
                    out.by_file_ms.insert(f.to_string(), ms);
                }
                None => out.all_ms = Some(ms),
            }
        }
        Ok(out)
    }

    /// The TTL given for the file shown as `name`, ms.
    pub fn for_file(&self, name: &str) -> Option<i64> {
        let base = Path::new(name)
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or(name);
        self.by_file_ms
            .get(name)
            .or_else(|| self.by_file_ms.get(base))
            .copied()
            .or(self.all_ms)
    }

    /// True when no TTL is given at all.
    pub fn is_empty(&self) -> bool {
        self.all_ms.is_none() && self.by_file_ms.is_empty()
    }
}

/// Load progress, shared with a UI thread through an `Arc`.
#[derive(Debug, Default)]
pub struct Progress {
    /// Bytes of input processed so far (file bytes as stored, compressed or not).
    pub bytes_read: AtomicU64,
    /// Total bytes of all inputs (set by [`load_paths`]).
    pub bytes_total: AtomicU64,
    /// Set by the UI to stop the load; the loader returns
    /// [`IngestError::Cancelled`] soon after.
    pub cancel: AtomicBool,
}

#[cfg(test)]
mod tests;

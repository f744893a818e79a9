//! `redis-cli monitor` captures: parse the command stream and replay it
//! through a model of the Redis keyspace to recover lock and stock events.
//!
//! (Stub: the agreed interface; the implementation lands with the MONITOR work.)

use std::io::BufRead;

use crate::model::{LogBuilder, SourceInfo};

/// Options for MONITOR replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonitorOptions {
    /// Glob for lock keys (`*` matches any run of characters). Default `*lock*`.
    pub lock_pattern: String,
}

impl Default for MonitorOptions {
    fn default() -> Self {
        MonitorOptions {
            lock_pattern: "*lock*".to_string(),
        }
    }
}

/// True when the first lines of a text look like a `redis-cli monitor`
/// capture (`<epoch.usec> [<db> <addr>] "CMD" ...`, possibly after a leading
/// `OK`).
pub fn looks_like_monitor(first_lines: &str) -> bool {
    let _ = first_lines;
    false
}

/// Replays one capture (one Redis node) and pushes the derived events into
/// `builder`, tagging them with source index `file`. Updates the accounting
/// counters in `info` (`lines_read`, `events_loaded`, `lines_skipped`,
/// `lines_warned`) and records warnings under `info.name`.
///
/// # Errors
/// Only I/O errors from `reader`; bad lines become warnings.
pub fn read_monitor<R: BufRead>(
    reader: R,
    file: u16,
    opts: &MonitorOptions,
    builder: &mut LogBuilder,
    info: &mut SourceInfo,
) -> std::io::Result<()> {
    let _ = (reader, file, opts, builder, info);
    Ok(())
}

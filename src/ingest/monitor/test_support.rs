//! What the replay's tests share: a capture's text in, its events out.

use super::{MonitorOptions, read_monitor};
use crate::model::{Dialect, EventKind, LogBuilder, SourceInfo};

/// The source a test capture loads into.
pub(super) fn info() -> SourceInfo {
    SourceInfo::new("cap.monitor", Dialect::RedisMonitor)
}

/// Replays `text` with the default options.
pub(super) fn replay(text: &str) -> (crate::model::LoadedLog, SourceInfo) {
    let mut b = LogBuilder::new();
    let mut i = info();
    let r = read_monitor(
        text.as_bytes(),
        0,
        &MonitorOptions::default(),
        &mut b,
        &mut i,
    );
    assert!(r.is_ok());
    (b.finish(), i)
}

/// (kind, holder, TTL, line) of every event.
pub(super) fn summary(log: &crate::model::LoadedLog) -> Vec<(EventKind, String, Option<i64>, u32)> {
    log.events
        .iter()
        .map(|e| {
            (
                e.kind,
                log.strings.get_or_empty(e.holder).to_string(),
                e.ttl_ms(),
                e.source.line,
            )
        })
        .collect()
}

//! The lock events of a load as JSON Lines for a SQL engine: one row per
//! event that names a lock key, in the order the rules read them, with the
//! columns of [`super::Columns::default`] (`lockreplay sql --export-events`).

use std::io::Write;

use serde::Serialize;

use crate::analysis::EventView;
use crate::pipeline::AnalyzedLog;

/// One exported row. Times have the host offsets applied (§0 of
/// docs/semantics.md), so the table needs no offsets of its own.
#[derive(Serialize)]
struct Row<'a> {
    /// Position in the rules' order (time, then file and line).
    seq: usize,
    /// ns since the Unix epoch, host offsets applied.
    ts_ns: i64,
    key: &'a str,
    holder: Option<&'a str>,
    /// The canonical kind (`acquired`, `renewed`...).
    event: &'static str,
    ttl_ms: Option<i64>,
    /// 1 when the row carries no TTL and its file has no TTL field (§3).
    ttl_unknown: u8,
    elapsed_ms: Option<f64>,
    /// 1 deleted, 0 deleted nothing, null not said.
    deleted: Option<u8>,
}

/// Writes the events the analysis read (its primary view: a capture's lines
/// on a key the application also logs are left out, as the analysis does,
/// docs/semantics.md §9) as JSON Lines; returns the rows written.
///
/// # Errors
/// The writer's.
pub fn write_events(loaded: &AnalyzedLog, w: &mut dyn Write) -> std::io::Result<usize> {
    let log = &loaded.log;
    let (view, _) = EventView::split(log);
    let mut order: Vec<(i64, crate::model::SourceRef, usize)> = log
        .events
        .iter()
        .enumerate()
        .filter(|&(i, e)| e.key.is_some() && view.includes(i))
        .map(|(i, e)| (loaded.analysis.time_of(log, i), e.source, i))
        .collect();
    order.sort_unstable();
    for (seq, &(ts_ns, _, i)) in order.iter().enumerate() {
        let e = &log.events[i];
        let ttl_ms = e.ttl_ms();
        let file_unknown = log
            .sources
            .get(usize::from(e.source.file))
            .is_some_and(|s| s.ttl_unknown);
        let row = Row {
            seq,
            ts_ns,
            key: log.strings.get_or_empty(e.key),
            holder: e.holder.map(|h| log.strings.get(h)),
            event: e.kind.as_str(),
            ttl_ms,
            ttl_unknown: u8::from(ttl_ms.is_none() && file_unknown),
            elapsed_ms: e.detail().elapsed_ms.filter(|v| v.is_finite()),
            deleted: e.deleted().map(u8::from),
        };
        serde_json::to_writer(&mut *w, &row)?;
        w.write_all(b"\n")?;
    }
    Ok(order.len())
}

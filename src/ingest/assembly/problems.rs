//! What a load says went wrong: why nothing could be read from a file and
//! what would make it readable ([`unreadable_reason`]), and what makes a
//! whole load an error rather than an answer ([`load_problems`]).

use crate::model::{Dialect, LoadedLog, SourceInfo};

/// What makes a load an error rather than an answer (exit 2; the window
/// says it in words): each file from which no event could be read, with its
/// reason, and a load without a single lock event. Empty when the analysis
/// can be trusted to say "no incident".
pub fn load_problems(log: &LoadedLog) -> Vec<String> {
    let mut out: Vec<String> = log
        .sources
        .iter()
        .filter_map(|s| s.unreadable.as_ref().map(|r| format!("{}: {r}", s.name)))
        .collect();
    if log.sources.iter().all(|s| s.lock_events == 0) && out.len() < log.sources.len() {
        out.push(
            "no lock event (acquire, renewal, release, lock lost) was read from any file: \
             the business lines alone cannot show an overlap"
                .to_string(),
        );
    } else if out.is_empty()
        && !log
            .events
            .iter()
            .any(|e| e.kind.is_lock() && e.key.is_some() && e.holder.is_some())
    {
        // Lock verbs were read, but no lock event says whose lock on which
        // key: no hold can be built, so "no incident" would be a false
        // all-clear (issue #31: reading by values finds the verbs first).
        out.push(
            "lock events were read, but none names both a lock key and a holder: no hold can be built; name the key and holder fields in a mapping file (`lockreplay inspect FILE --write-mapping M`, edit it, then --mapping M)"
                .to_string(),
        );
    }
    out
}

/// The layout named for a zip archive (an Excel workbook).
pub(crate) const ZIP_LAYOUT: &str = "zip archive";

/// Why nothing could be read from a file, and what would make it readable,
/// for [`SourceInfo::unreadable`]. `None` when the file gave an event.
pub fn unreadable_reason(info: &SourceInfo) -> Option<String> {
    if info.events_loaded > 0 || info.evidence_items > 0 {
        return None;
    }
    let mut out = format!(
        "no lock event could be read: read as {} ({}){}; {} line(s): {} unreadable, {} not lock or business events",
        info.dialect.as_str(),
        info.encoding,
        info.layout
            .as_ref()
            .map(|l| format!(", layout {l}"))
            .unwrap_or_default(),
        info.lines_read,
        info.lines_warned,
        info.lines_skipped
    );
    if !info.fields_seen.is_empty() {
        out.push_str(&format!(". Fields seen: {}", info.fields_seen.join(", ")));
    }
    let has = |role: &str| info.fields.iter().any(|(r, _)| r == role);
    let missing: Vec<&str> = ["time", "event", "key", "holder"]
        .into_iter()
        .filter(|r| !has(r))
        .collect();
    if !missing.is_empty() && info.dialect != Dialect::Unknown {
        out.push_str(&format!(". No field found for: {}", missing.join(", ")));
    }
    let hint = if info.layout.as_deref() == Some(ZIP_LAYOUT) {
        "save the workbook's sheet as CSV (UTF-8) and open the CSV"
    } else if info.dialect == Dialect::Unknown {
        "describe the lines with a mapping file (`line_regex = '...'` with named groups, `[messages]` regexes per event) and --mapping FILE"
    } else if info.times_of_day * 2 > info.lines_warned {
        "give the date of its times of day in a mapping file (`date = \"YYYY-MM-DD\"`), then --mapping FILE"
    } else if missing.contains(&"time") || info.times_unreadable * 2 > info.lines_warned {
        "name the time field in a mapping file: `[fields] time = \"<field>\"` (and `time_format = \"%Y-%m-%d %H:%M:%S\"` for an unusual format), then --mapping FILE"
    } else if missing.contains(&"event") {
        "name the event field (`[fields] event = \"<field>\"`) or the log's own event words (`[events] \"LOCK_OK\" = \"acquired\"`) in a mapping file, then --mapping FILE"
    } else {
        "map the log's event names onto lock events in a mapping file (`[events] \"<name>\" = \"acquired\"`), or check the warnings above"
    };
    out.push_str(&format!(". To read it: {hint}"));
    Some(out)
}

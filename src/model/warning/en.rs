//! The English of every [`super::WarningReason`]: what the JSON report
//! holds.

use super::{FieldWarning, FileWarning, InfraWarning, MonitorWarning, RecordWarning};

/// A whole file's reason in English.
pub(super) fn file(w: &FileWarning) -> String {
    match w {
        FileWarning::DamagedStream { codec, error } => format!(
            "damaged {} stream ({error}); reading what was recovered",
            codec.name()
        ),
        FileWarning::ZipArchive => "a zip archive (an Excel .xlsx workbook?), not a log: save the sheet as CSV and open that".into(),
        FileWarning::Blank => "the file has no records (empty or whitespace only)".into(),
        FileWarning::Unrecognised => "unrecognised format (not JSON, CSV, logfmt, text lines with timestamps or a redis-cli monitor capture)".into(),
        FileWarning::NoRecords => "the file has no records".into(),
        FileWarning::SameFile { first } => format!(
            "the same file as {first} (same device and inode, given twice or through a link): read once, not counted twice"
        ),
        FileWarning::RepeatedRecords { records, earlier } => format!(
            "{records} record(s) repeat records of {earlier} (same time, event, key and holder): overlapping exports? both are counted"
        ),
        FileWarning::UnseenMappingField {
            field,
            role,
            records,
        } => format!(
            "the mapping names `{field}` for {role}, but none of the first {records} records has that field"
        ),
        FileWarning::ParquetUnreadable { error } => {
            format!("not a readable Parquet file: {error}")
        }
        FileWarning::Parquet {
            row: Some(row),
            error,
        } => format!("Parquet: row {row}: {error}"),
        FileWarning::Parquet { row: None, error } => format!("Parquet: {error}"),
        FileWarning::ParquetTooLarge { limit_mib, row } => {
            format!("Parquet: the rows' text passes the {limit_mib} MiB limit at row {row}")
        }
    }
}

/// A field's reason in English.
pub(super) fn field(w: &FieldWarning) -> String {
    match w {
        FieldWarning::TooLong {
            role,
            bytes,
            kept,
            cut,
        } => format!(
            "the {role} field is {bytes} bytes long, more than the {kept} kept: read as its first bytes and a hash of the whole (\"{cut}\")"
        ),
        FieldWarning::NoTimeField => "no time field".into(),
        FieldWarning::NoTime { field } => format!("no time in field {field}"),
        FieldWarning::UnreadableTime {
            text,
            field,
            error,
            time_of_day,
        } => {
            let hint = if *time_of_day {
                ": a time of day without a date; give the date in a mapping file \
                 (`date = \"YYYY-MM-DD\"`) and --mapping FILE"
            } else {
                ""
            };
            format!("unreadable time \"{text}\" in field {field} ({error}){hint}")
        }
    }
}

/// A record's reason in English.
pub(super) fn record(w: &RecordWarning) -> String {
    match w {
        RecordWarning::InvalidJson {
            error,
            column: Some(c),
        } => format!("invalid JSON: {error} at column {c}"),
        RecordWarning::InvalidJson {
            error,
            column: None,
        } => format!("invalid JSON: {error}"),
        RecordWarning::PayloadJson {
            field,
            error,
            column,
        } => {
            let at = column.map(|c| format!(" at column {c}")).unwrap_or_default();
            format!(
                "the payload in field {field} is a JSON record that cannot be read: {error}{at}; the line is not read"
            )
        }
        RecordWarning::NotJsonObject => "not a JSON object".into(),
        RecordWarning::NoSource => "record without _source".into(),
        RecordWarning::NotJsonArray => "not a JSON array".into(),
        RecordWarning::TruncatedJson { line } => {
            format!("truncated JSON: element starting at line {line} is incomplete")
        }
        RecordWarning::ElementNotObject => "array element is not a JSON object".into(),
        RecordWarning::NotKeyValue => "not a key=value line".into(),
        RecordWarning::CsvRow { error } => format!("unreadable CSV row: {error}"),
        RecordWarning::CsvNoHeader { cell } => format!(
            "the first row looks like data, not a header (\"{cell}\" is a time): \
             the CSV has no header row, so its columns are unknown"
        ),
        RecordWarning::TooLongForRegex { bytes, limit } => format!(
            "a line of {bytes} bytes, longer than the {limit} the mapping's regexes take in the time a line may take: not read"
        ),
        RecordWarning::UnbalancedQuote => "unbalanced quote: a quoted cell does not close on its line; the row is skipped and the lines after it are read as rows".into(),
        RecordWarning::RepeatedHeader => "repeated header row (files joined together?)".into(),
        RecordWarning::CriUnclosed {
            stream,
            first,
            last,
        } => {
            let lines = if first == last {
                format!("line {first}")
            } else {
                format!("lines {first} to {last}")
            };
            format!(
                "partial line never closed: the CRI {stream} `P` chunks on {lines} have no `F` line after them; read as one line"
            )
        }
    }
}

/// A MONITOR line's reason in English.
pub(super) fn monitor(w: &MonitorWarning) -> String {
    match w {
        MonitorWarning::NoCommand => "no command after `[<db> <client>]`".into(),
        MonitorWarning::NoSpaceAfterTime => "no space after the timestamp".into(),
        MonitorWarning::BadTimestamp { text } => {
            format!("bad timestamp {text:?} (expected <epoch seconds>.<microseconds>)")
        }
        MonitorWarning::MissingHead => "missing `[<db> <client>]` after the timestamp".into(),
        MonitorWarning::UnterminatedHead => "unterminated `[<db> <client>]`".into(),
        MonitorWarning::ClientNotUtf8 => "client address is not UTF-8".into(),
        MonitorWarning::BadHead { inner } => {
            format!("bad `[{inner}]`: expected `[<db> <client>]`")
        }
        MonitorWarning::BadDatabase { text } => format!("bad database number {text:?}"),
        MonitorWarning::UnquotedText { column, argument } => {
            format!("unquoted text at column {column} (argument {argument})")
        }
        MonitorWarning::NotClosed { argument } => {
            format!("argument {argument} is not closed: line truncated or bad quoting")
        }
        MonitorWarning::BadHexEscape { argument } => {
            format!("bad \\x escape in argument {argument}")
        }
        MonitorWarning::TextAfterQuote { argument } => {
            format!("text right after the closing quote of argument {argument}")
        }
    }
}

/// An infrastructure line's reason in English.
pub(super) fn infra(w: &InfraWarning) -> String {
    match w {
        InfraWarning::GcPauseUnreadable => "unreadable GC pause time or length".into(),
        InfraWarning::StopUnreadable => "unreadable stop time or length".into(),
        InfraWarning::NotJvmLine => {
            "not a JVM unified-logging line ([decorations] message)".into()
        }
        InfraWarning::PauseLengthUnreadable => "unreadable pause length".into(),
        InfraWarning::GcUptimeOnly => "a GC pause with no wall-clock time (uptime only): log with the time decoration, -Xlog:gc*:file=gc.log:time,uptime,level,tags".into(),
        InfraWarning::GctraceUntimed => "a gctrace line with no wall-clock time before it (collect with kubectl logs --timestamps or docker logs -t)".into(),
        InfraWarning::KubeEventList { error } => {
            format!("unreadable Kubernetes event list: {error}")
        }
        InfraWarning::KubeEventUntimed { reason } => {
            format!("a Kubernetes {reason} event without a readable time")
        }
        InfraWarning::OperatorUntimed => "an operator log line without a readable time".into(),
        InfraWarning::NotRedisLine => {
            "not a Redis log line (pid:role dd Mon yyyy HH:MM:SS.mmm * message)".into()
        }
        InfraWarning::RedisTimeUnreadable { time } => {
            format!("unreadable Redis log time {time:?}")
        }
        InfraWarning::RedisTimeOutOfRange { time } => {
            format!("Redis log time out of range {time:?}")
        }
        InfraWarning::NotReplyLine => "not a redis-cli reply line (`N) value`)".into(),
        InfraWarning::ReplyFieldFirst => "a reply field before its entry".into(),
        InfraWarning::ReplyEntryUnknown => {
            "a reply entry that is neither SLOWLOG GET nor LATENCY LATEST/HISTORY".into()
        }
    }
}

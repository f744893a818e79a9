use super::*;
use crate::model::message::english_left;

fn s(t: &str) -> String {
    t.to_string()
}

/// One reason of each kind the ingest writes, its English as the ingest
/// words it, and the values its Chinese keeps as they are (log text, file
/// and field names, library messages).
fn one_of_each() -> Vec<(WarningReason, &'static str, Vec<&'static str>)> {
    let mut all = files();
    all.extend(fields());
    all.extend(records());
    all.extend(monitor_lines());
    all.extend(infra_lines());
    all
}

fn files() -> Vec<(WarningReason, &'static str, Vec<&'static str>)> {
    use FileWarning as F;
    vec![
        (
            F::DamagedStream {
                codec: Codec::Gzip,
                error: s("unexpected end of file"),
            }
            .into(),
            "damaged gzip stream (unexpected end of file); reading what was recovered",
            vec!["unexpected end of file"],
        ),
        (
            F::DamagedStream {
                codec: Codec::Zstd,
                error: s("Unknown frame descriptor"),
            }
            .into(),
            "damaged zstd stream (Unknown frame descriptor); reading what was recovered",
            vec!["Unknown frame descriptor"],
        ),
        (
            F::ZipArchive.into(),
            "a zip archive (an Excel .xlsx workbook?), not a log: save the sheet as CSV and open that",
            vec!["Excel"],
        ),
        (
            F::Blank.into(),
            "the file has no records (empty or whitespace only)",
            vec![],
        ),
        (
            F::Unrecognised.into(),
            "unrecognised format (not JSON, CSV, logfmt, text lines with timestamps or a redis-cli monitor capture)",
            vec![],
        ),
        (F::NoRecords.into(), "the file has no records", vec![]),
        (
            F::SameFile {
                first: s("logs/a.jsonl"),
            }
            .into(),
            "the same file as logs/a.jsonl (same device and inode, given twice or through a link): read once, not counted twice",
            vec!["logs/a.jsonl"],
        ),
        (
            F::RepeatedRecords {
                records: 3,
                earlier: s("logs/a.jsonl"),
            }
            .into(),
            "3 record(s) repeat records of logs/a.jsonl (same time, event, key and holder): overlapping exports? both are counted",
            vec!["logs/a.jsonl"],
        ),
        (
            F::UnseenMappingField {
                field: s("lock_name"),
                role: s("key"),
                records: 200,
            }
            .into(),
            "the mapping names `lock_name` for key, but none of the first 200 records has that field",
            vec![],
        ),
        (
            F::ParquetUnreadable {
                error: s("Invalid Parquet file. Corrupt footer"),
            }
            .into(),
            "not a readable Parquet file: Invalid Parquet file. Corrupt footer",
            vec!["Invalid Parquet file. Corrupt footer"],
        ),
        (
            F::Parquet {
                row: Some(7),
                error: s("EOF: eof decoding byte array"),
            }
            .into(),
            "Parquet: row 7: EOF: eof decoding byte array",
            vec!["EOF: eof decoding byte array"],
        ),
        (
            F::Parquet {
                row: None,
                error: s("Parquet error: Not yet implemented"),
            }
            .into(),
            "Parquet: Parquet error: Not yet implemented",
            vec!["Parquet error: Not yet implemented"],
        ),
        (
            F::ParquetTooLarge {
                limit_mib: 2048,
                row: 9000,
            }
            .into(),
            "Parquet: the rows' text passes the 2048 MiB limit at row 9000",
            vec![],
        ),
    ]
}

fn fields() -> Vec<(WarningReason, &'static str, Vec<&'static str>)> {
    use FieldWarning as F;
    let time = |text: &str, field: &str, error, time_of_day| -> WarningReason {
        F::UnreadableTime {
            text: s(text),
            field: s(field),
            error,
            time_of_day,
        }
        .into()
    };
    vec![
        (
            F::TooLong {
                role: s("message"),
                bytes: 70000,
                kept: 65536,
                cut: s("aaaa…#1f2e3d4c"),
            }
            .into(),
            "the message field is 70000 bytes long, more than the 65536 kept: read as its first bytes and a hash of the whole (\"aaaa…#1f2e3d4c\")",
            vec![],
        ),
        (F::NoTimeField.into(), "no time field", vec![]),
        (
            F::NoTime {
                field: s("timestamp"),
            }
            .into(),
            "no time in field timestamp",
            vec!["timestamp"],
        ),
        (
            time("not-a-time", "ts", TimeError::Unrecognised, false),
            "unreadable time \"not-a-time\" in field ts (not a recognised time format)",
            vec!["ts"],
        ),
        (
            time(
                "1600-01-01T00:00:00Z",
                "@timestamp",
                TimeError::OutOfRange,
                false,
            ),
            "unreadable time \"1600-01-01T00:00:00Z\" in field @timestamp (time out of range)",
            vec!["@timestamp"],
        ),
        (
            time(
                "2025-03-09 02:30:00",
                "ts",
                TimeError::NonexistentLocal,
                false,
            ),
            "unreadable time \"2025-03-09 02:30:00\" in field ts (local time does not exist in the zone)",
            vec!["ts"],
        ),
        (
            time("10:20:00.123", "ts", TimeError::Unrecognised, true),
            "unreadable time \"10:20:00.123\" in field ts (not a recognised time format): a time of day without a date; give the date in a mapping file (`date = \"YYYY-MM-DD\"`) and --mapping FILE",
            vec!["ts"],
        ),
    ]
}

fn records() -> Vec<(WarningReason, &'static str, Vec<&'static str>)> {
    use RecordWarning as R;
    let csv_error = "CSV error: record 2 (line: 3, byte: 40): found record with 3 fields, but the previous record has 2 fields";
    vec![
        (
            R::InvalidJson {
                error: s("expected value"),
                column: Some(1),
            }
            .into(),
            "invalid JSON: expected value at column 1",
            vec!["expected value"],
        ),
        (
            R::InvalidJson {
                error: s("EOF while parsing a string"),
                column: None,
            }
            .into(),
            "invalid JSON: EOF while parsing a string",
            vec!["EOF while parsing a string"],
        ),
        (
            R::PayloadJson {
                field: s("log"),
                error: s("EOF while parsing a string"),
                column: Some(40),
            }
            .into(),
            "the payload in field log is a JSON record that cannot be read: EOF while parsing a string at column 40; the line is not read",
            vec!["log", "EOF while parsing a string", "40"],
        ),
        (
            R::PayloadJson {
                field: s("content"),
                error: s("recursion limit exceeded"),
                column: None,
            }
            .into(),
            "the payload in field content is a JSON record that cannot be read: recursion limit exceeded; the line is not read",
            vec!["content", "recursion limit exceeded"],
        ),
        (R::NotJsonObject.into(), "not a JSON object", vec![]),
        (R::NoSource.into(), "record without _source", vec![]),
        (R::NotJsonArray.into(), "not a JSON array", vec![]),
        (
            R::TruncatedJson { line: 5 }.into(),
            "truncated JSON: element starting at line 5 is incomplete",
            vec![],
        ),
        (
            R::ElementNotObject.into(),
            "array element is not a JSON object",
            vec![],
        ),
        (R::NotKeyValue.into(), "not a key=value line", vec![]),
        (
            R::CsvRow {
                error: s(csv_error),
            }
            .into(),
            "unreadable CSV row: CSV error: record 2 (line: 3, byte: 40): found record with 3 fields, but the previous record has 2 fields",
            vec![csv_error],
        ),
        (
            R::CsvNoHeader {
                cell: s("2024-01-01T00:00:00Z"),
            }
            .into(),
            "the first row looks like data, not a header (\"2024-01-01T00:00:00Z\" is a time): the CSV has no header row, so its columns are unknown",
            vec!["2024-01-01T00:00:00Z"],
        ),
        (
            R::UnbalancedQuote.into(),
            "unbalanced quote: a quoted cell does not close on its line; the row is skipped and the lines after it are read as rows",
            vec![],
        ),
        (
            R::TooLongForRegex {
                bytes: 70_000,
                limit: 4096,
            }
            .into(),
            "a line of 70000 bytes, longer than the 4096 the mapping's regexes take in the time a line may take: not read",
            vec![],
        ),
        (
            R::RepeatedHeader.into(),
            "repeated header row (files joined together?)",
            vec![],
        ),
        (
            R::CriUnclosed {
                stream: s("stdout"),
                first: 7,
                last: 7,
            }
            .into(),
            "partial line never closed: the CRI stdout `P` chunks on line 7 have no `F` line after them; read as one line",
            vec!["stdout"],
        ),
        (
            R::CriUnclosed {
                stream: s("stderr"),
                first: 5,
                last: 6,
            }
            .into(),
            "partial line never closed: the CRI stderr `P` chunks on lines 5 to 6 have no `F` line after them; read as one line",
            vec!["stderr"],
        ),
    ]
}

fn monitor_lines() -> Vec<(WarningReason, &'static str, Vec<&'static str>)> {
    use MonitorWarning as M;
    vec![
        (
            M::NoCommand.into(),
            "no command after `[<db> <client>]`",
            vec![],
        ),
        (
            M::NoSpaceAfterTime.into(),
            "no space after the timestamp",
            vec![],
        ),
        (
            M::BadTimestamp {
                text: s("Warning:"),
            }
            .into(),
            "bad timestamp \"Warning:\" (expected <epoch seconds>.<microseconds>)",
            vec!["Warning:"],
        ),
        (
            M::MissingHead.into(),
            "missing `[<db> <client>]` after the timestamp",
            vec![],
        ),
        (
            M::UnterminatedHead.into(),
            "unterminated `[<db> <client>]`",
            vec![],
        ),
        (
            M::ClientNotUtf8.into(),
            "client address is not UTF-8",
            vec![],
        ),
        (
            M::BadHead { inner: s("0") }.into(),
            "bad `[0]`: expected `[<db> <client>]`",
            vec![],
        ),
        (
            M::BadDatabase { text: s("x1") }.into(),
            "bad database number \"x1\"",
            vec!["x1"],
        ),
        (
            M::UnquotedText {
                column: 7,
                argument: 2,
            }
            .into(),
            "unquoted text at column 7 (argument 2)",
            vec![],
        ),
        (
            M::NotClosed { argument: 2 }.into(),
            "argument 2 is not closed: line truncated or bad quoting",
            vec![],
        ),
        (
            M::BadHexEscape { argument: 2 }.into(),
            "bad \\x escape in argument 2",
            vec![],
        ),
        (
            M::TextAfterQuote { argument: 1 }.into(),
            "text right after the closing quote of argument 1",
            vec![],
        ),
    ]
}

fn infra_lines() -> Vec<(WarningReason, &'static str, Vec<&'static str>)> {
    use InfraWarning as I;
    vec![
        (
            I::GcPauseUnreadable.into(),
            "unreadable GC pause time or length",
            vec![],
        ),
        (
            I::StopUnreadable.into(),
            "unreadable stop time or length",
            vec![],
        ),
        (
            I::NotJvmLine.into(),
            "not a JVM unified-logging line ([decorations] message)",
            vec![],
        ),
        (
            I::PauseLengthUnreadable.into(),
            "unreadable pause length",
            vec![],
        ),
        (
            I::GcUptimeOnly.into(),
            "a GC pause with no wall-clock time (uptime only): log with the time decoration, -Xlog:gc*:file=gc.log:time,uptime,level,tags",
            vec![],
        ),
        (
            I::GctraceUntimed.into(),
            "a gctrace line with no wall-clock time before it (collect with kubectl logs --timestamps or docker logs -t)",
            vec![],
        ),
        (
            I::KubeEventList {
                error: s("expected `,` or `}` at line 3 column 5"),
            }
            .into(),
            "unreadable Kubernetes event list: expected `,` or `}` at line 3 column 5",
            vec!["expected `,` or `}` at line 3 column 5"],
        ),
        (
            I::KubeEventUntimed {
                reason: s("OOMKilled"),
            }
            .into(),
            "a Kubernetes OOMKilled event without a readable time",
            vec!["OOMKilled"],
        ),
        (
            I::OperatorUntimed.into(),
            "an operator log line without a readable time",
            vec![],
        ),
        (
            I::NotRedisLine.into(),
            "not a Redis log line (pid:role dd Mon yyyy HH:MM:SS.mmm * message)",
            vec![],
        ),
        (
            I::RedisTimeUnreadable {
                time: s("31 Foo 2024 10:00:00.000"),
            }
            .into(),
            "unreadable Redis log time \"31 Foo 2024 10:00:00.000\"",
            vec!["31 Foo 2024 10:00:00.000"],
        ),
        (
            I::RedisTimeOutOfRange {
                time: s("01 Jan 1600 10:00:00.000"),
            }
            .into(),
            "Redis log time out of range \"01 Jan 1600 10:00:00.000\"",
            vec!["01 Jan 1600 10:00:00.000"],
        ),
        (
            I::NotReplyLine.into(),
            "not a redis-cli reply line (`N) value`)",
            vec![],
        ),
        (
            I::ReplyFieldFirst.into(),
            "a reply field before its entry",
            vec![],
        ),
        (
            I::ReplyEntryUnknown.into(),
            "a reply entry that is neither SLOWLOG GET nor LATENCY LATEST/HISTORY",
            vec![],
        ),
    ]
}

/// A number for each reason: adding a variant does not compile until it
/// is counted here, and then [`one_of_each`] must give one.
fn variant(r: &WarningReason) -> usize {
    use WarningReason as W;
    match r {
        W::File(f) => match f {
            FileWarning::DamagedStream { .. } => 0,
            FileWarning::ZipArchive => 1,
            FileWarning::Blank => 2,
            FileWarning::Unrecognised => 3,
            FileWarning::NoRecords => 4,
            FileWarning::SameFile { .. } => 5,
            FileWarning::RepeatedRecords { .. } => 6,
            FileWarning::UnseenMappingField { .. } => 7,
            FileWarning::ParquetUnreadable { .. } => 8,
            FileWarning::Parquet { .. } => 9,
            FileWarning::ParquetTooLarge { .. } => 10,
        },
        W::Field(f) => match f {
            FieldWarning::TooLong { .. } => 11,
            FieldWarning::NoTimeField => 12,
            FieldWarning::NoTime { .. } => 13,
            FieldWarning::UnreadableTime { .. } => 14,
        },
        W::Record(r) => match r {
            RecordWarning::InvalidJson { .. } => 15,
            RecordWarning::NotJsonObject => 16,
            RecordWarning::NoSource => 17,
            RecordWarning::NotJsonArray => 18,
            RecordWarning::TruncatedJson { .. } => 19,
            RecordWarning::ElementNotObject => 20,
            RecordWarning::NotKeyValue => 21,
            RecordWarning::CsvRow { .. } => 22,
            RecordWarning::CsvNoHeader { .. } => 23,
            RecordWarning::UnbalancedQuote => 24,
            RecordWarning::RepeatedHeader => 25,
            RecordWarning::CriUnclosed { .. } => 26,
            RecordWarning::TooLongForRegex { .. } => 27,
            RecordWarning::PayloadJson { .. } => 28,
        },
        W::Monitor(m) => 29 + monitor_variant(m),
        W::Infra(i) => 41 + infra_variant(i),
    }
}

fn monitor_variant(m: &MonitorWarning) -> usize {
    match m {
        MonitorWarning::NoCommand => 0,
        MonitorWarning::NoSpaceAfterTime => 1,
        MonitorWarning::BadTimestamp { .. } => 2,
        MonitorWarning::MissingHead => 3,
        MonitorWarning::UnterminatedHead => 4,
        MonitorWarning::ClientNotUtf8 => 5,
        MonitorWarning::BadHead { .. } => 6,
        MonitorWarning::BadDatabase { .. } => 7,
        MonitorWarning::UnquotedText { .. } => 8,
        MonitorWarning::NotClosed { .. } => 9,
        MonitorWarning::BadHexEscape { .. } => 10,
        MonitorWarning::TextAfterQuote { .. } => 11,
    }
}

fn infra_variant(i: &InfraWarning) -> usize {
    match i {
        InfraWarning::GcPauseUnreadable => 0,
        InfraWarning::StopUnreadable => 1,
        InfraWarning::NotJvmLine => 2,
        InfraWarning::PauseLengthUnreadable => 3,
        InfraWarning::GcUptimeOnly => 4,
        InfraWarning::GctraceUntimed => 5,
        InfraWarning::KubeEventList { .. } => 6,
        InfraWarning::KubeEventUntimed { .. } => 7,
        InfraWarning::OperatorUntimed => 8,
        InfraWarning::NotRedisLine => 9,
        InfraWarning::RedisTimeUnreadable { .. } => 10,
        InfraWarning::RedisTimeOutOfRange { .. } => 11,
        InfraWarning::NotReplyLine => 12,
        InfraWarning::ReplyFieldFirst => 13,
        InfraWarning::ReplyEntryUnknown => 14,
    }
}

/// Names of formats, products and units, written the same in Chinese.
const NAMES: &[&str] = &[
    "JSON",
    "CSV",
    "logfmt",
    "UTF",
    "gzip",
    "zstd",
    "zip",
    "Parquet",
    "MiB",
    "CRI",
    "GC",
    "JVM",
    "Kubernetes",
    "Redis",
    "Operator",
];

#[test]
fn every_reason_reads_in_chinese_but_its_values() {
    let all = one_of_each();
    let variants: std::collections::BTreeSet<usize> =
        all.iter().map(|(r, ..)| variant(r)).collect();
    assert_eq!(variants.len(), 56, "one reason of each variant");
    for (reason, en, values) in &all {
        assert_eq!(reason.en(), *en, "the English of {reason:?}");
        assert_eq!(reason.to_string(), *en);
        assert_eq!(
            serde_json::to_string(reason).expect("json"),
            serde_json::to_string(en).expect("json"),
            "the JSON holds the English"
        );
        let zh = reason.zh();
        // The values first (a library's message may hold backquotes),
        // then a value quoted in "..." (a time, a cell): the log's text.
        let mut rest = zh.clone();
        for v in values {
            rest = rest.replace(v, "");
        }
        let no_code: String = rest.split('`').step_by(2).collect();
        let unquoted: String = no_code.split('"').step_by(2).collect();
        let left = english_left(&unquoted, NAMES);
        assert!(left.is_empty(), "{left:?} in {zh}");
        for v in values {
            assert!(zh.contains(v), "{v:?} lost: {en:?} -> {zh:?}");
        }
        assert!(
            zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
            "{zh}"
        );
    }
}

#[test]
fn a_time_reason_translates_its_error_and_hint_and_keeps_the_value() {
    let r: WarningReason = FieldWarning::UnreadableTime {
        text: s("10:20:00"),
        field: s("ts"),
        error: TimeError::Unrecognised,
        time_of_day: true,
    }
    .into();
    assert_eq!(
        r.zh(),
        "字段 ts 中的时间 \"10:20:00\" 无法读取（不是可识别的时间格式）：只有时刻没有日期；请在映射文件中给出日期（`date = \"YYYY-MM-DD\"`）并用 `--mapping FILE` 加载"
    );
    let r: WarningReason = FileWarning::UnseenMappingField {
        field: s("who"),
        role: s("holder"),
        records: 9,
    }
    .into();
    assert_eq!(
        r.zh(),
        "映射文件把 `who` 指定为持有者，但前 9 条记录都没有这个字段"
    );
}

#[test]
fn each_reason_has_the_kind_its_site_counted_it_under() {
    let kind_of = |en: &str| {
        one_of_each()
            .into_iter()
            .find(|(_, e, _)| *e == en)
            .map(|(r, ..)| r.kind())
    };
    assert_eq!(kind_of("no time field"), Some(WarningKind::Time));
    assert_eq!(kind_of("not a key=value line"), Some(WarningKind::Logfmt));
    assert_eq!(kind_of("the file has no records"), Some(WarningKind::File));
    assert_eq!(
        kind_of("damaged zstd stream (Unknown frame descriptor); reading what was recovered"),
        Some(WarningKind::Zstd)
    );
}

//! Why a line, a record or a whole file could not be read
//! ([`WarningReason`]): a value with the data its sentence quotes, made
//! where the ingest decides it and worded by an English and a Simplified
//! Chinese renderer (`warning/en.rs`, `warning/zh.rs`). The JSON report
//! keeps the English; a library's own error text (serde_json, csv, gzip,
//! Parquet) is quoted as it is in both.

use serde::Serialize;

use super::message::Message;

mod en;
mod zh;

/// The reason of a [`super::Warning`], grouped by what could not be read.
/// [`WarningReason::text`] prints it in either language; it serialises as
/// its English text.
#[derive(Clone, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum WarningReason {
    /// A whole file, or its format.
    File(FileWarning),
    /// One field of a record: its time, or a value too long to keep.
    Field(FieldWarning),
    /// A record its reader could not read (JSON, CSV, logfmt, CRI lines).
    Record(RecordWarning),
    /// A malformed line of a `redis-cli monitor` capture.
    Monitor(MonitorWarning),
    /// A line of an infrastructure log (Redis server, GC, Kubernetes
    /// events, an operator) that could not be read as evidence.
    Infra(InfraWarning),
}

/// A compressed stream's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum Codec {
    /// gzip.
    Gzip,
    /// Zstandard.
    Zstd,
}

impl Codec {
    /// Its name, the same in both languages (`gzip`, `zstd`).
    pub fn name(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Zstd => "zstd",
        }
    }
}

/// Why a whole file, or its format, gave a warning (line 0, except an
/// unrecognised format's, which is each line's).
#[derive(Clone, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum FileWarning {
    /// A gzip or zstd stream that broke off: what was recovered is read.
    DamagedStream {
        /// The stream's format.
        codec: Codec,
        /// The decompressor's message.
        error: String,
    },
    /// A zip archive (an Excel workbook), not a log.
    ZipArchive,
    /// An empty file, or blanks only.
    Blank,
    /// A line of a file no reader recognised.
    Unrecognised,
    /// A file of a known format that gave no line.
    NoRecords,
    /// The same file given twice (or through a link): read once.
    SameFile {
        /// The name it was read under first.
        first: String,
    },
    /// Records equal to another file's (same time, event, key, holder).
    RepeatedRecords {
        /// How many.
        records: u64,
        /// The file they repeat.
        earlier: String,
    },
    /// A field the mapping names that no record of the file has.
    UnseenMappingField {
        /// The field's name.
        field: String,
        /// The role it was given (`key`, `ttl_s`...).
        role: String,
        /// The records detection read.
        records: u64,
    },
    /// A Parquet file the library could not open.
    ParquetUnreadable {
        /// The library's message.
        error: String,
    },
    /// A Parquet file whose rows could not all be read.
    Parquet {
        /// The 1-based row, when the library named one.
        row: Option<u64>,
        /// The library's message.
        error: String,
    },
    /// A Parquet file whose rows, as text, pass the input limit.
    ParquetTooLarge {
        /// The limit, MiB.
        limit_mib: u64,
        /// The 1-based row that passed it.
        row: u64,
    },
}

/// Why one field of a record gave a warning.
#[derive(Clone, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum FieldWarning {
    /// A value longer than is kept: its first bytes and a hash are read.
    TooLong {
        /// The field's role (`key`, `holder`, `message`...).
        role: String,
        /// Its length, bytes.
        bytes: u64,
        /// The most kept, bytes.
        kept: u64,
        /// What was read, shortened for the sentence.
        cut: String,
    },
    /// The file has no time field: no record of it has a time.
    NoTimeField,
    /// The record has no value in the time field.
    NoTime {
        /// The time field's name.
        field: String,
    },
    /// The record's time could not be read.
    UnreadableTime {
        /// The time as written (shortened to 60 characters).
        text: String,
        /// The time field's name.
        field: String,
        /// Why.
        error: TimeError,
        /// True when the text is a time of day without a date.
        time_of_day: bool,
    },
}

/// Why a time value could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, bitcode::Encode, bitcode::Decode)]
pub enum TimeError {
    /// Neither an epoch number nor an ISO-8601 date-time.
    #[error("not a recognised time format")]
    Unrecognised,
    /// Parsed, but before the Unix epoch or after what `i64` nanoseconds
    /// can hold (2262-04-11).
    #[error("time out of range")]
    OutOfRange,
    /// A local time that the zone skips (daylight-saving gap).
    #[error("local time does not exist in the zone")]
    NonexistentLocal,
}

/// Why a reader could not read a record.
#[derive(Clone, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum RecordWarning {
    /// Not JSON: serde_json's message, and the column it names.
    InvalidJson {
        /// serde_json's message without its position.
        error: String,
        /// The 1-based column, when it named a line.
        column: Option<u64>,
    },
    /// JSON, but not an object.
    NotJsonObject,
    /// An Elasticsearch hit without `_source`.
    NoSource,
    /// A document that is not a JSON array.
    NotJsonArray,
    /// An array element the document ends inside.
    TruncatedJson {
        /// The 1-based line it starts on.
        line: u64,
    },
    /// An array element that is not an object.
    ElementNotObject,
    /// A logfmt line without `key=value` pairs.
    NotKeyValue,
    /// A row the csv library refused.
    CsvRow {
        /// The library's message.
        error: String,
    },
    /// A CSV whose first row is data, so it has no header.
    CsvNoHeader {
        /// The cell that reads as a time.
        cell: String,
    },
    /// A quoted CSV cell that does not close on its line.
    UnbalancedQuote,
    /// The header row again (files joined together).
    RepeatedHeader,
    /// A line too long for the mapping's regexes within the time a line
    /// may take: not read.
    TooLongForRegex {
        /// The line's bytes.
        bytes: u64,
        /// The longest line the mapping's regexes take, bytes.
        limit: u64,
    },
    /// An envelope's payload field holding a JSON object that cannot be
    /// read (cut before its end, or nested deeper than serde_json reads):
    /// the line is not read.
    PayloadJson {
        /// The payload field (`log`, `content`, `message`...).
        field: String,
        /// serde_json's message without its position.
        error: String,
        /// The 1-based column within the payload, when it named one.
        column: Option<u64>,
    },
    /// CRI partial lines no `F` line closed, read as one line.
    CriUnclosed {
        /// `stdout` or `stderr`.
        stream: String,
        /// The run's first line.
        first: u64,
        /// Its last line.
        last: u64,
    },
}

/// Why a line of a `redis-cli monitor` capture is malformed.
#[derive(Clone, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum MonitorWarning {
    /// Nothing after `[<db> <client>]`.
    NoCommand,
    /// The line has no space after its timestamp.
    NoSpaceAfterTime,
    /// A timestamp that is no `<epoch seconds>.<microseconds>`.
    BadTimestamp {
        /// The timestamp as written.
        text: String,
    },
    /// No `[<db> <client>]` after the timestamp.
    MissingHead,
    /// A `[<db> <client>]` that does not close.
    UnterminatedHead,
    /// A client address that is not UTF-8.
    ClientNotUtf8,
    /// A `[...]` without a space between database and client.
    BadHead {
        /// What is between the brackets.
        inner: String,
    },
    /// A database that is no number.
    BadDatabase {
        /// The database as written.
        text: String,
    },
    /// Text outside quotes among the arguments.
    UnquotedText {
        /// The 1-based column after the head.
        column: u64,
        /// The 1-based argument.
        argument: u64,
    },
    /// An argument whose quote does not close.
    NotClosed {
        /// The 1-based argument.
        argument: u64,
    },
    /// A `\x` escape without two hex digits.
    BadHexEscape {
        /// The 1-based argument.
        argument: u64,
    },
    /// Text right after an argument's closing quote.
    TextAfterQuote {
        /// The 1-based argument.
        argument: u64,
    },
}

/// Why a line of an infrastructure log could not be read as evidence.
#[derive(Clone, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum InfraWarning {
    /// A JDK 8 GC pause whose time or length does not parse.
    GcPauseUnreadable,
    /// A JDK 8 "stopped" line whose time or length does not parse.
    StopUnreadable,
    /// A line without JVM unified logging's `[decorations]`.
    NotJvmLine,
    /// A pause whose length does not parse, or is negative or longer than
    /// an hour (no plausible pause).
    PauseLengthUnreadable,
    /// A GC log with uptime only, no wall-clock time.
    GcUptimeOnly,
    /// A Go `gctrace` line with no timed line before it.
    GctraceUntimed,
    /// `kubectl get events -o json` that serde_json refused.
    KubeEventList {
        /// serde_json's message.
        error: String,
    },
    /// A Kubernetes event without a readable time.
    KubeEventUntimed {
        /// The event's reason (`OOMKilled`, `Killing`...).
        reason: String,
    },
    /// An operator's log line without a readable time.
    OperatorUntimed,
    /// A line that is no Redis server log line.
    NotRedisLine,
    /// A Redis server log time that does not parse.
    RedisTimeUnreadable {
        /// The time as written.
        time: String,
    },
    /// A Redis server log time out of range.
    RedisTimeOutOfRange {
        /// The time as written.
        time: String,
    },
    /// A line that is no `redis-cli` reply line (`N) value`).
    NotReplyLine,
    /// A reply field before any entry.
    ReplyFieldFirst,
    /// A reply entry of no command read as evidence.
    ReplyEntryUnknown,
}

/// What a warning is about, for keeping the first
/// [`super::Warnings::KEEP_PER_KIND`] of each.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, bitcode::Encode, bitcode::Decode,
)]
pub enum WarningKind {
    /// A damaged gzip stream.
    Gzip,
    /// A damaged zstd stream.
    Zstd,
    /// A format not recognised, or no log.
    Format,
    /// A whole file (empty, given twice, repeating another).
    File,
    /// A mapping's field no record has.
    Mapping,
    /// A Parquet file.
    Parquet,
    /// A value too long to keep.
    Field,
    /// A record's time.
    Time,
    /// CRI partial lines.
    Cri,
    /// A JSON record.
    Json,
    /// A logfmt line.
    Logfmt,
    /// A CSV row.
    Csv,
    /// A MONITOR line.
    Monitor,
    /// An infrastructure log's line.
    Infra,
}

impl WarningReason {
    /// What the warning is about.
    pub fn kind(&self) -> WarningKind {
        match self {
            WarningReason::File(f) => f.kind(),
            WarningReason::Field(FieldWarning::TooLong { .. }) => WarningKind::Field,
            WarningReason::Field(_) => WarningKind::Time,
            WarningReason::Record(r) => r.kind(),
            WarningReason::Monitor(_) => WarningKind::Monitor,
            WarningReason::Infra(_) => WarningKind::Infra,
        }
    }
}

impl FileWarning {
    fn kind(&self) -> WarningKind {
        match self {
            FileWarning::DamagedStream { codec, .. } => match codec {
                Codec::Gzip => WarningKind::Gzip,
                Codec::Zstd => WarningKind::Zstd,
            },
            FileWarning::ZipArchive | FileWarning::Unrecognised => WarningKind::Format,
            FileWarning::Blank
            | FileWarning::NoRecords
            | FileWarning::SameFile { .. }
            | FileWarning::RepeatedRecords { .. } => WarningKind::File,
            FileWarning::UnseenMappingField { .. } => WarningKind::Mapping,
            FileWarning::ParquetUnreadable { .. }
            | FileWarning::Parquet { .. }
            | FileWarning::ParquetTooLarge { .. } => WarningKind::Parquet,
        }
    }
}

impl RecordWarning {
    fn kind(&self) -> WarningKind {
        match self {
            RecordWarning::NotKeyValue => WarningKind::Logfmt,
            RecordWarning::CsvRow { .. }
            | RecordWarning::CsvNoHeader { .. }
            | RecordWarning::UnbalancedQuote
            | RecordWarning::RepeatedHeader => WarningKind::Csv,
            RecordWarning::CriUnclosed { .. } => WarningKind::Cri,
            RecordWarning::TooLongForRegex { .. } => WarningKind::Mapping,
            RecordWarning::InvalidJson { .. }
            | RecordWarning::PayloadJson { .. }
            | RecordWarning::NotJsonObject
            | RecordWarning::NoSource
            | RecordWarning::NotJsonArray
            | RecordWarning::TruncatedJson { .. }
            | RecordWarning::ElementNotObject => WarningKind::Json,
        }
    }
}

impl Message for WarningReason {
    fn en(&self) -> String {
        match self {
            WarningReason::File(w) => en::file(w),
            WarningReason::Field(w) => en::field(w),
            WarningReason::Record(w) => en::record(w),
            WarningReason::Monitor(w) => en::monitor(w),
            WarningReason::Infra(w) => en::infra(w),
        }
    }

    fn zh(&self) -> String {
        match self {
            WarningReason::File(w) => zh::file(w),
            WarningReason::Field(w) => zh::field(w),
            WarningReason::Record(w) => zh::record(w),
            WarningReason::Monitor(w) => zh::monitor(w),
            WarningReason::Infra(w) => zh::infra(w),
        }
    }
}

impl std::fmt::Display for WarningReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.en())
    }
}

impl std::fmt::Display for MonitorWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&en::monitor(self))
    }
}

impl Serialize for WarningReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.en())
    }
}

impl From<FileWarning> for WarningReason {
    fn from(w: FileWarning) -> Self {
        WarningReason::File(w)
    }
}

impl From<FieldWarning> for WarningReason {
    fn from(w: FieldWarning) -> Self {
        WarningReason::Field(w)
    }
}

impl From<RecordWarning> for WarningReason {
    fn from(w: RecordWarning) -> Self {
        WarningReason::Record(w)
    }
}

impl From<MonitorWarning> for WarningReason {
    fn from(w: MonitorWarning) -> Self {
        WarningReason::Monitor(w)
    }
}

impl From<InfraWarning> for WarningReason {
    fn from(w: InfraWarning) -> Self {
        WarningReason::Infra(w)
    }
}

#[cfg(test)]
mod tests;

//! Why nothing could be read from a file, and what would make it readable
//! ([`Unreadable`]): a message made from the file's [`SourceInfo`] and
//! worded in English (the JSON's `unreadable` and `not_readable`) or
//! Simplified Chinese.

use super::message::{Message, role_zh};
use super::{Dialect, SourceInfo};

/// The layout the readers name for a zip archive (an Excel workbook).
pub const ZIP_LAYOUT: &str = "zip archive";

/// What was recognised in a file from which no event could be read, and
/// the one step most likely to make it readable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// The dialect it was read as (`Dialect::as_str`: `text`, `unknown`...).
    pub dialect: &'static str,
    /// Its encoding (`UTF-8`, `GB18030`...).
    pub encoding: String,
    /// Its text layout, when one was recognised.
    pub layout: Option<String>,
    /// Lines (or records) read.
    pub lines: u64,
    /// Of them, lines that could not be read.
    pub warned: u64,
    /// Of them, lines that are not lock or business events.
    pub skipped: u64,
    /// Field names seen in the first records.
    pub fields_seen: Vec<String>,
    /// The roles among `time`, `event`, `key`, `holder` no field was found
    /// for (empty for a dialect not recognised).
    pub missing: Vec<&'static str>,
    /// What to do.
    pub hint: ReadingHint,
}

/// The step that would make an unreadable file readable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadingHint {
    /// A workbook: save its sheet as CSV.
    SaveAsCsv,
    /// No record at all (empty, or whitespace only): no mapping can help;
    /// export the log again.
    ExportAgain,
    /// Nothing recognised: describe the lines in a mapping file.
    DescribeLines,
    /// Times of day without a date: give the date in a mapping file.
    GiveDate,
    /// No time field, or times unreadable: name it in a mapping file.
    NameTime,
    /// No event field: name it, or the log's event words.
    NameEvent,
    /// Events read but none a lock event: map the log's event names.
    MapEvents,
}

impl Unreadable {
    /// Why nothing could be read from `info`; `None` when it gave an event
    /// or an evidence item. The hint is the first that applies: a
    /// workbook, nothing recognised, times of day (more than half the
    /// warned lines), no time field or unreadable times (more than half),
    /// no event field, else the event names.
    pub fn of(info: &SourceInfo) -> Option<Unreadable> {
        if info.events_loaded > 0 || info.evidence_items > 0 {
            return None;
        }
        let has = |role: &str| info.fields.iter().any(|(r, _)| r == role);
        let missing: Vec<&'static str> = if info.dialect == Dialect::Unknown {
            Vec::new()
        } else {
            ["time", "event", "key", "holder"]
                .into_iter()
                .filter(|r| !has(r))
                .collect()
        };
        let hint = if info.layout.as_deref() == Some(ZIP_LAYOUT) {
            ReadingHint::SaveAsCsv
        } else if info.lines_read == 0 {
            ReadingHint::ExportAgain
        } else if info.dialect == Dialect::Unknown {
            ReadingHint::DescribeLines
        } else if info.times_of_day * 2 > info.lines_warned {
            ReadingHint::GiveDate
        } else if missing.contains(&"time") || info.times_unreadable * 2 > info.lines_warned {
            ReadingHint::NameTime
        } else if missing.contains(&"event") {
            ReadingHint::NameEvent
        } else {
            ReadingHint::MapEvents
        };
        Some(Unreadable {
            dialect: info.dialect.as_str(),
            encoding: info.encoding.clone(),
            layout: info.layout.clone(),
            lines: info.lines_read,
            warned: info.lines_warned,
            skipped: info.lines_skipped,
            fields_seen: info.fields_seen.clone(),
            missing,
            hint,
        })
    }
}

impl Message for Unreadable {
    fn en(&self) -> String {
        let mut out = format!(
            "no lock event could be read: read as {} ({}){}; {} line(s): {} unreadable, {} not lock or business events",
            self.dialect,
            self.encoding,
            self.layout
                .as_ref()
                .map(|l| format!(", layout {l}"))
                .unwrap_or_default(),
            self.lines,
            self.warned,
            self.skipped
        );
        if !self.fields_seen.is_empty() {
            out.push_str(&format!(". Fields seen: {}", self.fields_seen.join(", ")));
        }
        if !self.missing.is_empty() {
            out.push_str(&format!(
                ". No field found for: {}",
                self.missing.join(", ")
            ));
        }
        out.push_str(&format!(". To read it: {}", self.hint.en()));
        out
    }

    fn zh(&self) -> String {
        let layout = self
            .layout
            .as_ref()
            .map(|l| format!("，布局 {l}"))
            .unwrap_or_default();
        let mut out = format!(
            "读不出任何锁事件：按 {}（{}）读取{layout}；共 {} 行：{} 行无法读取，{} 行不是锁事件或业务事件",
            self.dialect, self.encoding, self.lines, self.warned, self.skipped
        );
        if !self.fields_seen.is_empty() {
            out.push_str(&format!("。看到的字段：{}", self.fields_seen.join(", ")));
        }
        if !self.missing.is_empty() {
            let roles: Vec<String> = self.missing.iter().map(|r| role_zh(r)).collect();
            out.push_str(&format!("。没有找到这些字段：{}", roles.join("、")));
        }
        out.push_str(&format!("。读取方法：{}", self.hint.zh()));
        out
    }
}

impl Message for ReadingHint {
    fn en(&self) -> String {
        match self {
            ReadingHint::SaveAsCsv => "save the workbook's sheet as CSV (UTF-8) and open the CSV",
            ReadingHint::ExportAgain => {
                "the file holds no line at all: export the log again (or open the file it was meant to be); no mapping can read an empty file"
            }
            ReadingHint::DescribeLines => {
                "describe the lines with a mapping file (`line_regex = '...'` with named groups, `[messages]` regexes per event) and --mapping FILE"
            }
            ReadingHint::GiveDate => {
                "give the date of its times of day in a mapping file (`date = \"YYYY-MM-DD\"`), then --mapping FILE"
            }
            ReadingHint::NameTime => {
                "name the time field in a mapping file: `[fields] time = \"<field>\"` (and `time_format = \"%Y-%m-%d %H:%M:%S\"` for an unusual format), then --mapping FILE"
            }
            ReadingHint::NameEvent => {
                "name the event field (`[fields] event = \"<field>\"`) or the log's own event words (`[events] \"LOCK_OK\" = \"acquired\"`) in a mapping file, then --mapping FILE"
            }
            ReadingHint::MapEvents => {
                "map the log's event names onto lock events in a mapping file (`[events] \"<name>\" = \"acquired\"`), or check the warnings above"
            }
        }
        .to_string()
    }

    fn zh(&self) -> String {
        match self {
            ReadingHint::SaveAsCsv => "把工作簿的工作表另存为 `CSV`（`UTF-8`），再打开该 `CSV`",
            ReadingHint::ExportAgain => {
                "文件里没有任何一行：请重新导出日志（或打开本应打开的文件）；映射文件读不了空文件"
            }
            ReadingHint::DescribeLines => {
                "用映射文件描述这些行（带命名分组的 `line_regex = '...'`，以及每种事件的 `[messages]` 正则），然后使用 --mapping FILE"
            }
            ReadingHint::GiveDate => {
                "这些时间只有时刻没有日期：在映射文件中给出日期（`date = \"YYYY-MM-DD\"`），然后使用 --mapping FILE"
            }
            ReadingHint::NameTime => {
                "在映射文件中指定时间字段：`[fields] time = \"<field>\"`（格式特殊时再加 `time_format = \"%Y-%m-%d %H:%M:%S\"`），然后使用 --mapping FILE"
            }
            ReadingHint::NameEvent => {
                "在映射文件中指定事件字段（`[fields] event = \"<field>\"`）或日志自己的事件词（`[events] \"LOCK_OK\" = \"acquired\"`），然后使用 --mapping FILE"
            }
            ReadingHint::MapEvents => {
                "在映射文件中把日志的事件名映射为锁事件（`[events] \"<name>\" = \"acquired\"`），或查看上面的警告"
            }
        }
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::english_left;

    fn info(dialect: Dialect) -> SourceInfo {
        let mut i = SourceInfo::new("/tmp/logs/nginx.log", dialect);
        i.lines_read = 12;
        i.lines_warned = 2;
        i.lines_skipped = 10;
        i
    }

    #[test]
    fn a_file_that_gave_an_event_is_readable() {
        let mut i = info(Dialect::Text);
        i.events_loaded = 1;
        assert_eq!(Unreadable::of(&i), None);
    }

    #[test]
    fn every_hint_reads_in_both_languages() {
        let mut text = info(Dialect::Text);
        text.layout = Some("Spring Boot".into());
        text.fields_seen = vec!["time".into(), "msg".into()];
        text.fields = vec![("time".into(), "ts".into()), ("event".into(), "e".into())];
        let en = Unreadable::of(&text).expect("unreadable").en();
        assert_eq!(
            en,
            "no lock event could be read: read as text (UTF-8), layout Spring Boot; 12 line(s): 2 unreadable, 10 not lock or business events. Fields seen: time, msg. No field found for: key, holder. To read it: map the log's event names onto lock events in a mapping file (`[events] \"<name>\" = \"acquired\"`), or check the warnings above"
        );
        let zh = Unreadable::of(&text).expect("unreadable").zh();
        assert!(zh.contains("没有找到这些字段：锁键、持有者"), "{zh}");
        assert!(zh.contains("共 12 行：2 行无法读取，10 行"), "{zh}");
        let values = [
            "text",
            "UTF-8",
            "Spring Boot",
            "--mapping",
            "FILE",
            "time",
            "msg",
        ];
        for hint in [
            ReadingHint::SaveAsCsv,
            ReadingHint::ExportAgain,
            ReadingHint::DescribeLines,
            ReadingHint::GiveDate,
            ReadingHint::NameTime,
            ReadingHint::NameEvent,
            ReadingHint::MapEvents,
        ] {
            let u = Unreadable {
                hint,
                ..Unreadable::of(&text).expect("unreadable")
            };
            let zh = u.zh();
            assert!(english_left(&zh, &values).is_empty(), "{zh}");
            assert!(u.en().ends_with(&hint.en()), "{}", u.en());
        }
        let unknown = Unreadable::of(&info(Dialect::Unknown)).expect("unreadable");
        assert_eq!(unknown.hint, ReadingHint::DescribeLines);
        assert!(unknown.missing.is_empty());
    }

    /// An empty file is told to be exported again, not described in a
    /// mapping file that could never read it.
    #[test]
    fn an_empty_file_is_told_to_be_exported_again() {
        let mut empty = info(Dialect::Unknown);
        (empty.lines_read, empty.lines_warned, empty.lines_skipped) = (0, 0, 0);
        let u = Unreadable::of(&empty).expect("unreadable");
        assert_eq!(u.hint, ReadingHint::ExportAgain);
        assert!(u.en().contains("export the log again"), "{}", u.en());
        assert!(!u.en().contains("line_regex"), "{}", u.en());
    }
}

//! Warning reasons in Simplified Chinese: the ingest writes each reason
//! in English (the JSON report keeps it so); the Chinese reports and the
//! Chinese window show it through this table of the ingest's sentences.

use std::borrow::Cow;
use std::sync::OnceLock;

/// A warning's reason (written in English by `ingest`) in Chinese: each
/// sentence the ingest writes, with its values (quoted log text, numbers,
/// field and file names) and any library message it embeds (serde_json,
/// csv, gzip) carried over as they are. A reason of no known shape comes
/// back unchanged.
pub fn warning_reason(reason: &str) -> Cow<'_, str> {
    static SHAPES: OnceLock<Vec<(regex::Regex, &'static str)>> = OnceLock::new();
    let shapes = SHAPES.get_or_init(|| {
        REASON_SHAPES
            .iter()
            .filter_map(|(re, zh)| Some((regex::Regex::new(re).ok()?, *zh)))
            .collect()
    });
    let Some((re, zh)) = shapes.iter().find(|(re, _)| re.is_match(reason)) else {
        return Cow::Borrowed(reason);
    };
    let Some(caps) = re.captures(reason) else {
        return Cow::Borrowed(reason);
    };
    // Our own words inside a template (a role name, a time error, the
    // time-of-day hint) are translated before the values are put in.
    let mut template = (*zh).to_string();
    if let Some(role) = caps.name("role") {
        let zh_role = crate::model::role_zh(role.as_str());
        template = template.replace("${role}", &zh_role.replace('$', "$$"));
    }
    if let Some(err) = caps.name("terr") {
        template = template.replace("${terr}", time_error_zh(err.as_str()));
    }
    let hint = if caps.name("hint").is_some() {
        TIME_OF_DAY_HINT_ZH
    } else {
        ""
    };
    template = template.replace("${hint}", hint);
    let mut out = String::new();
    caps.expand(&template, &mut out);
    Cow::Owned(out)
}

/// The reason in Chinese with `zh` ([`warning_reason`]), else as written.
pub fn warning_reason_in(zh: bool, reason: &str) -> Cow<'_, str> {
    if zh {
        warning_reason(reason)
    } else {
        Cow::Borrowed(reason)
    }
}

/// `ingest::time::TimeError`'s messages in Chinese.
fn time_error_zh(en: &str) -> &'static str {
    match en {
        "time out of range" => "时间超出范围",
        "local time does not exist in the zone" => "该本地时间在此时区中不存在",
        _ => "不是可识别的时间格式",
    }
}

/// The hint after an unreadable time of day, in Chinese.
const TIME_OF_DAY_HINT_ZH: &str = "：只有时刻没有日期；请在映射文件中给出日期（`date = \"YYYY-MM-DD\"`）并用 `--mapping FILE` 加载";

/// `(English regex, Chinese template)` of every reason the ingest writes
/// (`$1`... are its values in the English order; `${role}`, `${terr}` and
/// `${hint}` are translated words).
const REASON_SHAPES: &[(&str, &str)] = &[
    // ingest/mod.rs
    (
        r"^damaged (gzip|zstd) stream \((.*)\); reading what was recovered$",
        "${1} 流已损坏（${2}）；读取已恢复的部分",
    ),
    (
        r"^the file has no records \(empty or whitespace only\)$",
        "文件中没有记录（为空或只有空白）",
    ),
    (
        r"^unrecognised format \(not JSON, CSV, logfmt, text lines with timestamps or a redis-cli monitor capture\)$",
        "无法识别的格式（不是 JSON、CSV、logfmt、带时间戳的文本行，也不是 `redis-cli monitor` 抓包）",
    ),
    (r"^the file has no records$", "文件中没有记录"),
    (
        r"^the mapping names `(.*)` for (?P<role>\S+), but none of the first (\d+) records has that field$",
        "映射文件把 `${1}` 指定为${role}，但前 ${3} 条记录都没有这个字段",
    ),
    (
        r"^the same file as (.*) \(same device and inode, given twice or through a link\): read once, not counted twice$",
        "与 ${1} 是同一个文件（同一设备、同一索引节点，给了两次或经由链接）：只读一次，不重复计数",
    ),
    (
        r"^(\d+) record\(s\) repeat records of (.*) \(same time, event, key and holder\): overlapping exports\? both are counted$",
        "${1} 条记录与 ${2} 的记录重复（时间、事件、锁键和持有者都相同）：导出的范围有重叠？两边都计入了",
    ),
    // ingest/extract.rs
    (
        r#"^the (?P<role>\S+) field is (\d+) bytes long, more than the (\d+) kept: read as its first bytes and a hash of the whole \("(.*)"\)$"#,
        "${role}字段长 ${2} 字节，超过保留的 ${3} 字节：读作其开头的字节加上整体的哈希（\"${4}\"）",
    ),
    (r"^no time field$", "没有时间字段"),
    // ingest/containers.rs (CRI partial lines)
    (
        r"^partial line never closed: the CRI (stdout|stderr) `P` chunks on line (\d+) have no `F` line after them; read as one line$",
        "部分行没有结束：第 ${2} 行的 CRI ${1} `P` 分片之后没有 `F` 行；合起来当作一行读取",
    ),
    (
        r"^partial line never closed: the CRI (stdout|stderr) `P` chunks on lines (\d+) to (\d+) have no `F` line after them; read as one line$",
        "部分行没有结束：第 ${2} 到 ${3} 行的 CRI ${1} `P` 分片之后没有 `F` 行；合起来当作一行读取",
    ),
    (r"^no time in field (.*)$", "字段 ${1} 中没有时间"),
    // `terr` is one of `ingest::time::TimeError`'s messages.
    (
        r#"^unreadable time "(.*)" in field (.*) \((?P<terr>not a recognised time format|time out of range|local time does not exist in the zone)\)(?P<hint>: a time of day without a date; give the date in a mapping file \(`date = "YYYY-MM-DD"`\) and --mapping FILE)?$"#,
        "字段 ${2} 中的时间 \"${1}\" 无法读取（${terr}）${hint}",
    ),
    // ingest/containers.rs
    (
        r"^invalid JSON: (.*) at column (\d+)$",
        "无效的 JSON：${1}（第 ${2} 列）",
    ),
    (r"^invalid JSON: (.*)$", "无效的 JSON：${1}"),
    (r"^not a JSON object$", "不是 JSON 对象"),
    (r"^record without _source$", "记录没有 `_source` 字段"),
    (r"^not a key=value line$", "不是 `key=value` 形式的行"),
    (r"^not a JSON array$", "不是 JSON 数组"),
    (
        r"^truncated JSON: element starting at line (\d+) is incomplete$",
        "JSON 被截断：从第 ${1} 行开始的元素不完整",
    ),
    (
        r"^array element is not a JSON object$",
        "数组元素不是 JSON 对象",
    ),
    (r"^unreadable CSV row: (.*)$", "无法读取的 CSV 行：${1}"),
    (
        r#"^the first row looks like data, not a header \("(.*)" is a time\): the CSV has no header row, so its columns are unknown$"#,
        "第一行看起来是数据而不是表头（\"${1}\" 是时间）：这个 CSV 没有表头行，因此各列的含义未知",
    ),
    (
        r"^unbalanced quote: a quoted cell does not close on its line; the row is skipped and the lines after it are read as rows$",
        "引号不配对：一个带引号的单元格在本行没有闭合；跳过这一行，其后各行仍逐行读取",
    ),
    (
        r"^repeated header row \(files joined together\?\)$",
        "重复的表头行（多个文件拼接在一起？）",
    ),
    // ingest/monitor/line.rs
    (
        r"^no command after `\[<db> <client>\]`$",
        "`[<db> <client>]` 之后没有命令",
    ),
    (r"^no space after the timestamp$", "时间戳之后没有空格"),
    (
        r#"^bad timestamp (".*") \(expected <epoch seconds>\.<microseconds>\)$"#,
        "错误的时间戳 ${1}（应为 <纪元秒>.<微秒>）",
    ),
    (
        r"^missing `\[<db> <client>\]` after the timestamp$",
        "时间戳之后缺少 `[<db> <client>]`",
    ),
    (
        r"^unterminated `\[<db> <client>\]`$",
        "`[<db> <client>]` 没有闭合",
    ),
    (
        r"^client address is not UTF-8$",
        "客户端地址不是 UTF-8 编码",
    ),
    (
        r"^bad `\[(.*)\]`: expected `\[<db> <client>\]`$",
        "错误的 `[${1}]`：应为 `[<db> <client>]`",
    ),
    (r#"^bad database number (".*")$"#, "错误的数据库编号 ${1}"),
    (
        r"^unquoted text at column (\d+) \(argument (\d+)\)$",
        "第 ${1} 列有未加引号的文本（第 ${2} 个参数）",
    ),
    (
        r"^argument (\d+) is not closed: line truncated or bad quoting$",
        "第 ${1} 个参数没有闭合：行被截断或引号有误",
    ),
    (
        r"^bad \\x escape in argument (\d+)$",
        "第 ${1} 个参数中有错误的 `\\x` 转义",
    ),
    (
        r"^text right after the closing quote of argument (\d+)$",
        "第 ${1} 个参数的右引号之后紧跟着文本",
    ),
];

#[cfg(test)]
mod tests {
    use super::{REASON_SHAPES, warning_reason};

    /// One reason of each shape the ingest writes (its `warn(` and
    /// `Item::Bad(` sites), with the values it keeps as they are: log text,
    /// field and file names, library messages.
    const ONE_OF_EACH: &[(&str, &[&str])] = &[
        (
            "damaged gzip stream (unexpected end of file); reading what was recovered",
            &["gzip", "unexpected end of file"],
        ),
        (
            "damaged zstd stream (Unknown frame descriptor); reading what was recovered",
            &["zstd", "Unknown frame descriptor"],
        ),
        ("the file has no records (empty or whitespace only)", &[]),
        (
            "unrecognised format (not JSON, CSV, logfmt, text lines with timestamps or a redis-cli monitor capture)",
            &[],
        ),
        ("the file has no records", &[]),
        (
            "the mapping names `lock_name` for key, but none of the first 200 records has that field",
            &[],
        ),
        (
            "the mapping names `expire` for ttl_s, but none of the first 12 records has that field",
            &[],
        ),
        (
            "the same file as logs/a.jsonl (same device and inode, given twice or through a link): read once, not counted twice",
            &["logs/a.jsonl"],
        ),
        (
            "3 record(s) repeat records of logs/a.jsonl (same time, event, key and holder): overlapping exports? both are counted",
            &["logs/a.jsonl"],
        ),
        (
            "the message field is 70000 bytes long, more than the 65536 kept: read as its first bytes and a hash of the whole (\"aaaa…#1f2e3d4c\")",
            &[],
        ),
        (
            "the key field is 300 bytes long, more than the 256 kept: read as its first bytes and a hash of the whole (\"lock:aaa…#9a8b\")",
            &[],
        ),
        ("no time field", &[]),
        (
            "partial line never closed: the CRI stdout `P` chunks on line 7 have no `F` line after them; read as one line",
            &["CRI", "stdout"],
        ),
        (
            "partial line never closed: the CRI stderr `P` chunks on lines 5 to 6 have no `F` line after them; read as one line",
            &["CRI", "stderr"],
        ),
        ("no time in field timestamp", &["timestamp"]),
        (
            "unreadable time \"not-a-time\" in field ts (not a recognised time format)",
            &["ts"],
        ),
        (
            "unreadable time \"1600-01-01T00:00:00Z\" in field @timestamp (time out of range)",
            &["@timestamp"],
        ),
        (
            "unreadable time \"2025-03-09 02:30:00\" in field ts (local time does not exist in the zone)",
            &["ts"],
        ),
        (
            "unreadable time \"10:20:00.123\" in field ts (not a recognised time format): a time of day without a date; give the date in a mapping file (`date = \"YYYY-MM-DD\"`) and --mapping FILE",
            &["ts"],
        ),
        (
            "invalid JSON: expected value at column 1",
            &["expected value"],
        ),
        (
            "invalid JSON: EOF while parsing a string",
            &["EOF while parsing a string"],
        ),
        ("not a JSON object", &[]),
        ("record without _source", &[]),
        ("not a key=value line", &[]),
        ("not a JSON array", &[]),
        (
            "truncated JSON: element starting at line 5 is incomplete",
            &[],
        ),
        ("array element is not a JSON object", &[]),
        (
            "unreadable CSV row: CSV error: record 2 (line: 3, byte: 40): found record with 3 fields, but the previous record has 2 fields",
            &[
                "CSV error: record 2 (line: 3, byte: 40): found record with 3 fields, but the previous record has 2 fields",
            ],
        ),
        (
            "the first row looks like data, not a header (\"2024-01-01T00:00:00Z\" is a time): the CSV has no header row, so its columns are unknown",
            &[],
        ),
        (
            "unbalanced quote: a quoted cell does not close on its line; the row is skipped and the lines after it are read as rows",
            &[],
        ),
        ("repeated header row (files joined together?)", &[]),
        ("no command after `[<db> <client>]`", &[]),
        ("no space after the timestamp", &[]),
        (
            "bad timestamp \"Warning:\" (expected <epoch seconds>.<microseconds>)",
            &[],
        ),
        ("missing `[<db> <client>]` after the timestamp", &[]),
        ("unterminated `[<db> <client>]`", &[]),
        ("client address is not UTF-8", &[]),
        ("bad `[0]`: expected `[<db> <client>]`", &[]),
        ("bad database number \"x1\"", &[]),
        ("unquoted text at column 7 (argument 2)", &[]),
        (
            "argument 2 is not closed: line truncated or bad quoting",
            &[],
        ),
        ("bad \\x escape in argument 2", &[]),
        ("text right after the closing quote of argument 1", &[]),
    ];

    /// Names of formats and encodings, written the same in Chinese.
    const FORMAT_NAMES: &[&str] = &["JSON", "CSV", "logfmt", "UTF", "gzip", "zstd"];

    /// `text` without its `code` and "quoted" spans and the values given.
    fn unquoted(text: &str, values: &[&str]) -> String {
        let mut rest: String = text.split('`').step_by(2).collect();
        rest = rest.split('"').step_by(2).collect();
        for v in values {
            rest = rest.replace(v, "");
        }
        rest
    }

    #[test]
    fn every_reason_the_ingest_writes_reads_in_chinese_but_its_values() {
        for (en, values) in ONE_OF_EACH {
            let zh = warning_reason(en);
            assert_ne!(zh, *en, "no Chinese for {en:?}");
            let rest = unquoted(&zh, values);
            let english: Vec<&str> = rest
                .split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| !w.is_empty() && !FORMAT_NAMES.contains(w))
                .collect();
            assert!(english.is_empty(), "{en:?} -> {zh:?}: {english:?}");
            for v in *values {
                assert!(zh.contains(v), "{v:?} lost: {en:?} -> {zh:?}");
            }
        }
        // Each shape of the table is one the examples above use.
        for (re, zh) in REASON_SHAPES {
            let re = regex::Regex::new(re).expect("a valid shape");
            assert!(
                ONE_OF_EACH.iter().any(|(en, _)| re.is_match(en)),
                "no example of {zh:?}"
            );
        }
        assert_eq!(warning_reason("some other text"), "some other text");
    }

    #[test]
    fn the_chinese_time_reasons_keep_the_value_and_translate_error_and_hint() {
        let zh = warning_reason(
            "unreadable time \"10:20:00\" in field ts (not a recognised time format): a time of day without a date; give the date in a mapping file (`date = \"YYYY-MM-DD\"`) and --mapping FILE",
        );
        assert_eq!(
            zh,
            "字段 ts 中的时间 \"10:20:00\" 无法读取（不是可识别的时间格式）：只有时刻没有日期；请在映射文件中给出日期（`date = \"YYYY-MM-DD\"`）并用 `--mapping FILE` 加载"
        );
        let zh = warning_reason(
            "the mapping names `who` for holder, but none of the first 9 records has that field",
        );
        assert_eq!(
            zh,
            "映射文件把 `who` 指定为持有者，但前 9 条记录都没有这个字段"
        );
    }

    fn load(path: &std::path::Path) -> Option<crate::model::LoadedLog> {
        let opts = crate::ingest::IngestOptions::default();
        let progress = crate::ingest::Progress::default();
        crate::ingest::load_paths(&[path.to_path_buf()], &opts, &progress).ok()
    }

    #[test]
    fn every_warning_of_the_hostile_fixtures_reads_in_chinese() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile");
        let mut seen = 0;
        for dir in [root.clone(), root.join("round2")] {
            for entry in std::fs::read_dir(&dir).expect("fixtures").flatten() {
                if !entry.path().is_file() {
                    continue;
                }
                let Some(log) = load(&entry.path()) else {
                    continue;
                };
                for w in log.warnings.kept() {
                    let zh = warning_reason(&w.reason);
                    assert_ne!(zh, w.reason, "{:?}: no Chinese", entry.path());
                    seen += 1;
                }
            }
        }
        assert!(seen > 40, "only {seen} warnings in the hostile fixtures");
    }

    #[test]
    fn the_chinese_reports_show_the_chinese_reason() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/hostile/round2/csv-unbalanced-quote.csv");
        let log = load(&path).expect("loads");
        let settings = crate::analysis::Settings::default();
        let analysis = crate::analysis::analyze(&log, &settings);
        let r = crate::report::ReportInput {
            log: &log,
            settings: &settings,
            analysis: &analysis,
        };
        let text = crate::report::to_text_zh(&r);
        let md = crate::report::to_markdown_zh(&r, &crate::report::MarkdownImages::default());
        for out in [&text, &md] {
            assert!(
                out.contains("引号不配对：一个带引号的单元格在本行没有闭合"),
                "{out}"
            );
            assert!(!out.contains("unbalanced quote"), "{out}");
        }
        assert!(crate::report::to_text(&r).contains("unbalanced quote: a quoted cell"));
    }
}

//! The Simplified Chinese of every [`super::WarningReason`]: the same
//! facts in the same order as `en.rs`, with the values from the log and a
//! library's own message as they are.

use super::{FieldWarning, FileWarning, InfraWarning, MonitorWarning, RecordWarning, TimeError};
use crate::model::message::role_zh;

/// A whole file's reason in Chinese.
pub(super) fn file(w: &FileWarning) -> String {
    match w {
        FileWarning::DamagedStream { codec, error } => {
            format!("{} 流已损坏（{error}）；读取已恢复的部分", codec.name())
        }
        FileWarning::ZipArchive => "是 zip 压缩包（Excel 的 `.xlsx` 工作簿？），不是日志：请把工作表另存为 `CSV`，再打开该 `CSV`".into(),
        FileWarning::Blank => "文件中没有记录（为空或只有空白）".into(),
        FileWarning::Unrecognised => "无法识别的格式（不是 JSON、CSV、logfmt、带时间戳的文本行，也不是 `redis-cli monitor` 抓包）".into(),
        FileWarning::NoRecords => "文件中没有记录".into(),
        FileWarning::SameFile { first } => format!(
            "与 {first} 是同一个文件（同一设备、同一索引节点，给了两次或经由链接）：只读一次，不重复计数"
        ),
        FileWarning::RepeatedRecords { records, earlier } => format!(
            "{records} 条记录与 {earlier} 的记录重复（时间、事件、锁键和持有者都相同）：导出的范围有重叠？两边都计入了"
        ),
        FileWarning::UnseenMappingField {
            field,
            role,
            records,
        } => format!(
            "映射文件把 `{field}` 指定为{}，但前 {records} 条记录都没有这个字段",
            role_zh(role)
        ),
        FileWarning::ParquetUnreadable { error } => {
            format!("不是可读的 Parquet 文件：{error}")
        }
        FileWarning::Parquet {
            row: Some(row),
            error,
        } => format!("读取 Parquet 第 {row} 行出错：{error}"),
        FileWarning::Parquet { row: None, error } => format!("读取 Parquet 出错：{error}"),
        FileWarning::ParquetTooLarge { limit_mib, row } => {
            format!("Parquet 各行的文本读到第 {row} 行时超过了 {limit_mib} MiB 的上限")
        }
    }
}

/// A field's reason in Chinese.
pub(super) fn field(w: &FieldWarning) -> String {
    match w {
        FieldWarning::TooLong {
            role,
            bytes,
            kept,
            cut,
        } => format!(
            "{}字段长 {bytes} 字节，超过保留的 {kept} 字节：读作其开头的字节加上整体的哈希（\"{cut}\"）",
            role_zh(role)
        ),
        FieldWarning::NoTimeField => "没有时间字段".into(),
        FieldWarning::NoTime { field } => format!("字段 {field} 中没有时间"),
        FieldWarning::UnreadableTime {
            text,
            field,
            error,
            time_of_day,
        } => {
            let hint = if *time_of_day {
                "：只有时刻没有日期；请在映射文件中给出日期（`date = \"YYYY-MM-DD\"`）并用 `--mapping FILE` 加载"
            } else {
                ""
            };
            format!(
                "字段 {field} 中的时间 \"{text}\" 无法读取（{}）{hint}",
                time_error(error)
            )
        }
    }
}

/// Why a time could not be read, in Chinese.
fn time_error(e: &TimeError) -> &'static str {
    match e {
        TimeError::Unrecognised => "不是可识别的时间格式",
        TimeError::OutOfRange => "时间超出范围",
        TimeError::NonexistentLocal => "该本地时间在此时区中不存在",
    }
}

/// A record's reason in Chinese.
pub(super) fn record(w: &RecordWarning) -> String {
    match w {
        RecordWarning::InvalidJson {
            error,
            column: Some(c),
        } => format!("无效的 JSON：{error}（第 {c} 列）"),
        RecordWarning::InvalidJson {
            error,
            column: None,
        } => format!("无效的 JSON：{error}"),
        RecordWarning::PayloadJson {
            field,
            error,
            column,
        } => {
            let at = column.map(|c| format!("（第 {c} 列）")).unwrap_or_default();
            format!("字段 {field} 中的内容是无法读取的 JSON 记录：{error}{at}；这一行未读取")
        }
        RecordWarning::NotJsonObject => "不是 JSON 对象".into(),
        RecordWarning::NoSource => "记录没有 `_source` 字段".into(),
        RecordWarning::NotJsonArray => "不是 JSON 数组".into(),
        RecordWarning::TruncatedJson { line } => {
            format!("JSON 被截断：从第 {line} 行开始的元素不完整")
        }
        RecordWarning::ElementNotObject => "数组元素不是 JSON 对象".into(),
        RecordWarning::NotKeyValue => "不是 `key=value` 形式的行".into(),
        RecordWarning::CsvRow { error } => format!("无法读取的 CSV 行：{error}"),
        RecordWarning::CsvNoHeader { cell } => format!(
            "第一行看起来是数据而不是表头（\"{cell}\" 是时间）：这个 CSV 没有表头行，因此各列的含义未知"
        ),
        RecordWarning::TooLongForRegex { bytes, limit } => format!(
            "这一行有 {bytes} 字节，超过映射文件的正则在单行时限内能处理的 {limit} 字节：未读取"
        ),
        RecordWarning::UnbalancedQuote => {
            "引号不配对：一个带引号的单元格在本行没有闭合；跳过这一行，其后各行仍逐行读取".into()
        }
        RecordWarning::RepeatedHeader => "重复的表头行（多个文件拼接在一起？）".into(),
        RecordWarning::CriUnclosed {
            stream,
            first,
            last,
        } => {
            let lines = if first == last {
                format!("第 {first} 行")
            } else {
                format!("第 {first} 到 {last} 行")
            };
            format!(
                "部分行没有结束：{lines}的 CRI {stream} `P` 分片之后没有 `F` 行；合起来当作一行读取"
            )
        }
    }
}

/// A MONITOR line's reason in Chinese.
pub(super) fn monitor(w: &MonitorWarning) -> String {
    match w {
        MonitorWarning::NoCommand => "`[<db> <client>]` 之后没有命令".into(),
        MonitorWarning::NoSpaceAfterTime => "时间戳之后没有空格".into(),
        MonitorWarning::BadTimestamp { text } => {
            format!("错误的时间戳 {text:?}（应为 <纪元秒>.<微秒>）")
        }
        MonitorWarning::MissingHead => "时间戳之后缺少 `[<db> <client>]`".into(),
        MonitorWarning::UnterminatedHead => "`[<db> <client>]` 没有闭合".into(),
        MonitorWarning::ClientNotUtf8 => "客户端地址不是 UTF-8 编码".into(),
        MonitorWarning::BadHead { inner } => {
            format!("错误的 `[{inner}]`：应为 `[<db> <client>]`")
        }
        MonitorWarning::BadDatabase { text } => format!("错误的数据库编号 {text:?}"),
        MonitorWarning::UnquotedText { column, argument } => {
            format!("第 {column} 列有未加引号的文本（第 {argument} 个参数）")
        }
        MonitorWarning::NotClosed { argument } => {
            format!("第 {argument} 个参数没有闭合：行被截断或引号有误")
        }
        MonitorWarning::BadHexEscape { argument } => {
            format!("第 {argument} 个参数中有错误的 `\\x` 转义")
        }
        MonitorWarning::TextAfterQuote { argument } => {
            format!("第 {argument} 个参数的右引号之后紧跟着文本")
        }
    }
}

/// An infrastructure line's reason in Chinese.
pub(super) fn infra(w: &InfraWarning) -> String {
    match w {
        InfraWarning::GcPauseUnreadable => "GC 停顿的时间或时长无法读取".into(),
        InfraWarning::StopUnreadable => "停顿（`stopped`）的时间或时长无法读取".into(),
        InfraWarning::NotJvmLine => {
            "不是 JVM 统一日志的行（`[decorations] message`）".into()
        }
        InfraWarning::PauseLengthUnreadable => "停顿时长无法读取".into(),
        InfraWarning::GcUptimeOnly => "GC 停顿没有挂钟时间（只有 `uptime`）：请带上 `time` 修饰输出日志，`-Xlog:gc*:file=gc.log:time,uptime,level,tags`".into(),
        InfraWarning::GctraceUntimed => "`gctrace` 行之前没有挂钟时间（请用 `kubectl logs --timestamps` 或 `docker logs -t` 收集）".into(),
        InfraWarning::KubeEventList { error } => {
            format!("无法读取的 Kubernetes 事件列表：{error}")
        }
        InfraWarning::KubeEventUntimed { reason } => {
            format!("Kubernetes {reason} 事件没有可读的时间")
        }
        InfraWarning::OperatorUntimed => "Operator 日志行没有可读的时间".into(),
        InfraWarning::NotRedisLine => {
            "不是 Redis 日志行（`pid:role dd Mon yyyy HH:MM:SS.mmm * message`）".into()
        }
        InfraWarning::RedisTimeUnreadable { time } => {
            format!("无法读取的 Redis 日志时间 {time:?}")
        }
        InfraWarning::RedisTimeOutOfRange { time } => {
            format!("Redis 日志时间超出范围 {time:?}")
        }
        InfraWarning::NotReplyLine => "不是 `redis-cli` 的回复行（`N) value`）".into(),
        InfraWarning::ReplyFieldFirst => "回复字段出现在它所属的条目之前".into(),
        InfraWarning::ReplyEntryUnknown => {
            "回复条目既不是 `SLOWLOG GET` 的，也不是 `LATENCY LATEST`/`HISTORY` 的".into()
        }
    }
}

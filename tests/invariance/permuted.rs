//! Text layouts in the orders the reader has no header for, records over
//! several lines, and message templates beside their properties: the
//! renaming generator's layout permutations (`renaming.rs`). Each names,
//! beside it, the logger whose documentation or source it follows; where a
//! logger only allows the order by configuration, the configuration is
//! named.
//!
//! Times are Asia/Shanghai local times without an offset unless the
//! logger writes one, as a server in that zone writes them.

use serde_json::{Map, Value, json};

use super::{Ordered, message_kv, obj, scalar};
use crate::layouts::Layout;
use crate::model::{Field, Level, Rec, flat_fields};
use crate::time::{SHANGHAI_S, at_offset, utc_fmt};

/// The process id every layout prints.
const PID: u32 = 4242;

/// The numeric thread id a runtime prints for a thread name (logcat's TID).
fn tid(thread: &str) -> u32 {
    match thread {
        "main" => PID,
        "watchdog-1" => PID + 30,
        t => {
            let n: u32 = t
                .rsplit('-')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            PID + 8 + n
        }
    }
}

/// `ms` as a Shanghai local time in `pattern`.
fn local(ms: i64, pattern: &str) -> String {
    at_offset(ms, SHANGHAI_S, pattern)
}

/// Renders `rec` in a permuted layout: the line (with `\n` between the
/// physical lines of a record over several) and, for a JSON layout, the
/// parsed object.
pub(super) fn render(
    layout: Layout,
    rec: &Rec,
    fields: &[Field],
    phrase: &str,
) -> (String, Option<Map<String, Value>>) {
    let ms = rec.epoch_ms();
    let warn = rec.kind.level() == Level::Warn;
    match layout {
        // ethereum/go-ethereum log/format.go (TerminalHandler.format): the
        // level as `LevelAlignedString` ("INFO ", "WARN "), then
        // `[`termTimeFormat`]` with `termTimeFormat = "01-02|15:04:05.000"`
        // (no year, local time), the message padded to `termMsgJust` (40)
        // when attributes follow, then ` key=value` (appendEscapeString:
        // quoted when a value has a space, `=`, `"` or a non-ASCII rune).
        // The level before the time, and no year.
        Layout::Geth => {
            let mut s = format!(
                "{}[{}] {phrase}",
                if warn { "WARN " } else { "INFO " },
                local(ms, "%m-%d|%H:%M:%S%.3f")
            );
            let pad = 40usize.saturating_sub(phrase.len());
            s.push_str(&" ".repeat(pad));
            for (k, v) in flat_fields(fields) {
                s.push_str(&format!(" {k}={}", geth_escape(&scalar(&v))));
            }
            (s, None)
        }
        // Android `logcat -v threadtime` (the default format; system/logging
        // liblog/logprint.cpp, FORMAT_THREADTIME: `"%s %5d %5d %c %-8s: "`):
        // `MM-DD HH:MM:SS.mmm PID TID L TAG: message`, no year; the message
        // as an app concatenates it, `phrase, key: value, key: value`.
        Layout::Logcat => {
            let mut msg = phrase.to_string();
            for (k, v) in flat_fields(fields) {
                msg.push_str(&format!(", {k}: {}", scalar(&v)));
            }
            (
                format!(
                    "{} {PID:>5} {:>5} {} {:<8}: {msg}",
                    local(ms, "%m-%d %H:%M:%S%.3f"),
                    tid(rec.thread),
                    if warn { 'W' } else { 'I' },
                    "LockService"
                ),
                None,
            )
        }
        // apache/logging-log4j2 log4j-core/.../config/DefaultConfiguration.java
        // (no configuration file): `DEFAULT_PATTERN = "%d{HH:mm:ss.SSS} [%t]
        // %-5level %logger{36} - %msg%n"`: a time of day, no date.
        Layout::Log4j2Default => {
            let lvl = if warn { "WARN " } else { "INFO " };
            (
                format!(
                    "{} [{}] {lvl} com.example.flashsale.LockService - {}",
                    local(ms, "%H:%M:%S%.3f"),
                    rec.thread,
                    message_kv(phrase, fields)
                ),
                None,
            )
        }
        // golang/glog glog.go (formatHeader; kubernetes/klog the same):
        // `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`: the level letter
        // fused to a date without a year, the pid right-aligned in 7.
        Layout::Glog => (
            format!(
                "{}{} {PID:>7} lock.go:88] {}",
                if warn { 'W' } else { 'I' },
                local(ms, "%m%d %H:%M:%S%.6f"),
                message_kv(phrase, fields)
            ),
            None,
        ),
        // https://logback.qos.ch/manual/layouts.html (PatternLayout): the
        // manual's conversion words in another order a team may configure,
        // `%logger{36} %d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] -
        // %msg%n`: the time after the logger name.
        Layout::LogbackLoggerFirst => {
            let lvl = if warn { "WARN " } else { "INFO " };
            (
                format!(
                    "c.e.flashsale.LockService {} {lvl} [{}] - {}",
                    local(ms, "%Y-%m-%d %H:%M:%S%.3f"),
                    rec.thread,
                    message_kv(phrase, fields)
                ),
                None,
            )
        }
        // dotnet/runtime src/libraries/Microsoft.Extensions.Logging.Console/
        // src/SimpleConsoleFormatter.cs (`SingleLine = false`, the default,
        // with `TimestampFormat = "yyyy-MM-dd HH:mm:ss.fff "`): the time, the
        // level (`info`, `warn`), `: `, the category and `[eventId]` on one
        // line, the message on the next, indented by `_messagePadding` (6).
        Layout::MelConsole => (
            format!(
                "{}{}: FlashSale.LockService[0]\n      {}",
                local(ms, "%Y-%m-%d %H:%M:%S%.3f "),
                if warn { "warn" } else { "info" },
                message_kv(phrase, fields)
            ),
            None,
        ),
        // erlang/otp lib/kernel/src/logger_formatter.erl with `legacy_header
        // => true` (the `error_logger` tty format): a blank line, `=INFO
        // REPORT==== 1-Dec-2026::07:06:55.100000 ===`, then the report of
        // `error_logger:info_report([Phrase, {Tag, Data}...])`, one element a
        // line indented by 4 (`~p`, `~p: ~p`; binaries as `<<"..">>`, with
        // `/utf8` for non-ASCII text; atoms quoted unless plain).
        Layout::ErlangReport => {
            let mut s = format!(
                "\n={} REPORT==== {} ===\n    {}",
                if warn { "WARNING" } else { "INFO" },
                local(ms, "%-d-%b-%Y::%H:%M:%S%.6f"),
                erlang_string(phrase)
            );
            for (k, v) in flat_fields(fields) {
                s.push_str(&format!("\n    {}: {}", erlang_atom(&k), erlang_term(&v)));
            }
            (s, None)
        }
        // serilog/serilog-formatting-compact README.md (CLEF): `@t`, `@mt` the
        // message template with `{Name}` holes, `@l` when not Information,
        // and the properties at the top level; no rendered message (`@m` is
        // RenderedCompactJsonFormatter's). The template is not data.
        Layout::SerilogTemplate => {
            let mut m = Ordered::default();
            m.insert(
                "@t".into(),
                json!(utc_fmt(ms, "%Y-%m-%dT%H:%M:%S%.3f0000Z")),
            );
            m.insert("@mt".into(), json!(template(phrase, fields)));
            if warn {
                m.insert("@l".into(), json!("Warning"));
            }
            m.extend_fields(fields);
            m.insert("SourceContext".into(), json!("FlashSale.LockService"));
            obj(m)
        }
        // dotnet/runtime src/libraries/Microsoft.Extensions.Logging.Console/
        // src/JsonConsoleFormatter.cs (`TimestampFormat =
        // "yyyy-MM-ddTHH:mm:ss.fffzzz"`): `Timestamp`, `EventId`, `LogLevel`,
        // `Category`, `Message` (rendered), `State` with `Message`, the
        // properties and `{OriginalFormat}` (the template) last.
        Layout::MelJson => {
            let rendered = message_kv(phrase, fields);
            let mut state = Ordered::default();
            state.insert("Message".into(), json!(rendered));
            for (k, v) in flat_fields(fields) {
                state.insert(k, v);
            }
            state.insert("{OriginalFormat}".into(), json!(template(phrase, fields)));
            let mut m = Ordered::default();
            m.insert(
                "Timestamp".into(),
                json!(local(ms, "%Y-%m-%dT%H:%M:%S%.3f%:z")),
            );
            m.insert("EventId".into(), json!(0));
            m.insert(
                "LogLevel".into(),
                json!(if warn { "Warning" } else { "Information" }),
            );
            m.insert("Category".into(), json!("FlashSale.LockService"));
            m.insert("Message".into(), json!(rendered));
            m.insert("State".into(), state.into_value());
            obj(m)
        }
        other => unreachable!("{other:?} is not a permuted layout"),
    }
}

/// A message template: the phrase, then `name={name}` for each field (what
/// `Log.Information("grabbed the mutex verrou={verrou}", key)` logs).
fn template(phrase: &str, fields: &[Field]) -> String {
    let mut s = phrase.to_string();
    for f in fields {
        let n = f.flat_name();
        s.push_str(&format!(" {n}={{{n}}}"));
    }
    s
}

/// go-ethereum's appendEscapeString: Go-quoted when a rune is `"` or below,
/// or above `~`; quoted when it has a space or `=`; else as it is.
fn geth_escape(s: &str) -> String {
    let escape = s.chars().any(|c| c != ' ' && (c <= '"' || c > '~'));
    if escape || s.contains([' ', '=']) {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        s.to_string()
    }
}

/// An Erlang string as `~p` prints it (`+pc unicode`): double-quoted.
fn erlang_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// An Erlang atom as `~p` prints it: bare when it is a lowercase ASCII
/// letter then letters, digits, `_` or `@`; else single-quoted.
fn erlang_atom(s: &str) -> String {
    let mut cs = s.chars();
    let plain = cs.next().is_some_and(|c| c.is_ascii_lowercase())
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '@');
    if plain {
        s.to_string()
    } else {
        format!("'{s}'")
    }
}

/// A field's value as an Erlang term: integers bare, text as a binary
/// (`<<"lock:sku:1001">>`, `<<"抢到锁"/utf8>>`).
fn erlang_term(v: &Value) -> String {
    match v {
        Value::String(s) if s.is_ascii() => format!("<<\"{s}\">>"),
        Value::String(s) => format!("<<\"{s}\"/utf8>>"),
        other => other.to_string(),
    }
}

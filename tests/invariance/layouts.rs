//! Runtime layouts: how a logging library writes one application record as a
//! line. Each layout names, beside it, the documentation page or source file
//! its shape follows. Text layouts carry the family's fields as the runtime
//! does (`key=value` in the message, logfmt pairs, or a JSON object where the
//! runtime prints one); JSON layouts put them among the runtime's own fields.

use serde_json::{Map, Value, json};

use crate::model::{Family, Field, Level, Rec, fields_object, flat_fields};
use crate::time::{SHANGHAI_S, at_offset, go_rfc3339_nano, rfc3339_ms_z, utc_fmt};

#[path = "permuted.rs"]
mod permuted;

/// A runtime layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Logback,
    Log4j2,
    SpringBoot,
    SpringBootEcs,
    LogstashLogback,
    ZapJson,
    ZapConsole,
    LogrusText,
    LogrusJson,
    SlogText,
    SlogJson,
    Pino,
    Winston,
    Bunyan,
    Structlog,
    PythonLogging,
    MonologLine,
    MonologJson,
    Serilog,
    NLog,
    RubyLogger,
    Rails,
    TracingFmt,
    TracingJson,
    OtelStdout,
    Log4j2Json,
    SlogJsonDuration,
    SerilogTimeSpan,
    // The permuted text layouts and message templates (`permuted.rs`),
    // written by the renaming generator only.
    Geth,
    Logcat,
    Log4j2Default,
    Glog,
    LogbackLoggerFirst,
    MelConsole,
    ErlangReport,
    SerilogTemplate,
    MelJson,
}

pub const LAYOUTS: &[Layout] = &[
    Layout::Logback,
    Layout::Log4j2,
    Layout::SpringBoot,
    Layout::SpringBootEcs,
    Layout::LogstashLogback,
    Layout::ZapJson,
    Layout::ZapConsole,
    Layout::LogrusText,
    Layout::LogrusJson,
    Layout::SlogText,
    Layout::SlogJson,
    Layout::Pino,
    Layout::Winston,
    Layout::Bunyan,
    Layout::Structlog,
    Layout::PythonLogging,
    Layout::MonologLine,
    Layout::MonologJson,
    Layout::Serilog,
    Layout::NLog,
    Layout::RubyLogger,
    Layout::Rails,
    Layout::TracingFmt,
    Layout::TracingJson,
    Layout::OtelStdout,
    Layout::Log4j2Json,
    Layout::SlogJsonDuration,
    Layout::SerilogTimeSpan,
];

/// The layouts whose headers no list of the reader has, or whose records
/// span several lines, or whose message is a template (`permuted.rs`).
#[allow(dead_code)]
pub const PERMUTED: &[Layout] = &[
    Layout::Geth,
    Layout::Logcat,
    Layout::Log4j2Default,
    Layout::Glog,
    Layout::LogbackLoggerFirst,
    Layout::MelConsole,
    Layout::ErlangReport,
    Layout::SerilogTemplate,
    Layout::MelJson,
];

/// One record as a layout wrote it.
#[derive(Clone, Debug)]
pub struct Line {
    pub rec: Rec,
    /// The line as the runtime wrote it (no newline).
    pub text: String,
    /// The same line parsed, for JSON layouts (a service that parses JSON
    /// logs, such as Datadog or Cloud Logging, stores this object).
    pub json: Option<Map<String, Value>>,
    /// The application fields (for envelopes that store them structured:
    /// OTLP attributes of an OpenTelemetry record).
    pub fields: Vec<Field>,
    /// The human message.
    pub phrase: &'static str,
}

const PID: u32 = 4242;

impl Layout {
    pub fn id(self) -> &'static str {
        match self {
            Layout::Logback => "logback",
            Layout::Log4j2 => "log4j2",
            Layout::SpringBoot => "springboot",
            Layout::SpringBootEcs => "springboot-ecs",
            Layout::LogstashLogback => "logstash-logback",
            Layout::ZapJson => "zap-json",
            Layout::ZapConsole => "zap-console",
            Layout::LogrusText => "logrus-text",
            Layout::LogrusJson => "logrus-json",
            Layout::SlogText => "slog-text",
            Layout::SlogJson => "slog-json",
            Layout::Pino => "pino",
            Layout::Winston => "winston",
            Layout::Bunyan => "bunyan",
            Layout::Structlog => "structlog",
            Layout::PythonLogging => "python-logging",
            Layout::MonologLine => "monolog-line",
            Layout::MonologJson => "monolog-json",
            Layout::Serilog => "serilog-clef",
            Layout::NLog => "nlog",
            Layout::RubyLogger => "ruby-logger",
            Layout::Rails => "rails",
            Layout::TracingFmt => "tracing-fmt",
            Layout::TracingJson => "tracing-json",
            Layout::OtelStdout => "otel-stdout",
            Layout::Log4j2Json => "log4j2-json",
            Layout::SlogJsonDuration => "slog-json-duration",
            Layout::SerilogTimeSpan => "serilog-timespan",
            Layout::Geth => "geth",
            Layout::Logcat => "logcat",
            Layout::Log4j2Default => "log4j2-default",
            Layout::Glog => "glog",
            Layout::LogbackLoggerFirst => "logback-logger-first",
            Layout::MelConsole => "mel-console",
            Layout::ErlangReport => "erlang-report",
            Layout::SerilogTemplate => "serilog-template",
            Layout::MelJson => "mel-json",
        }
    }

    /// Renders `rec` with its fields spelled in `family`.
    pub fn render(self, rec: &Rec, family: Family) -> Line {
        let fields = match self {
            // golang/go src/log/slog/json_handler.go: `case KindDuration: //
            // Do what json.Marshal does.` writes a `slog.Duration` attr as
            // its nanoseconds; the attr named without a unit (`ttl`).
            Layout::SlogJsonDuration => {
                duration_ttl(family, rec, family.fields(rec), |ms| json!(ms * 1_000_000))
            }
            // A .NET `TimeSpan` property: Serilog's JsonValueFormatter writes
            // a scalar it has no JSON form for with `ToString()`, the
            // constant ("c") format `[d.]hh:mm:ss[.fffffff]`.
            Layout::SerilogTimeSpan => {
                duration_ttl(family, rec, family.fields(rec), |ms| json!(timespan(ms)))
            }
            _ => family.fields(rec),
        };
        let phrase = family.phrase(rec.kind);
        let ms = rec.epoch_ms();
        let warn = rec.kind.level() == Level::Warn;
        let logger = "com.example.flashsale.LockService";
        let (text, json) = match self {
            Layout::Geth
            | Layout::Logcat
            | Layout::Log4j2Default
            | Layout::Glog
            | Layout::LogbackLoggerFirst
            | Layout::MelConsole
            | Layout::ErlangReport
            | Layout::SerilogTemplate
            | Layout::MelJson => permuted::render(self, rec, &fields, phrase),
            // https://logback.qos.ch/manual/layouts.html (PatternLayout): the
            // manual's pattern `%d{yyyy-MM-dd HH:mm:ss.SSS} [%thread] %-5level
            // %logger{36} - %msg%n`; %logger{36} abbreviates the package.
            Layout::Logback => {
                let lvl = if warn { "WARN " } else { "INFO " };
                (
                    format!(
                        "{} [{}] {lvl} c.e.flashsale.LockService - {}",
                        utc_fmt(ms, "%Y-%m-%d %H:%M:%S%.3f"),
                        rec.thread,
                        message_kv(phrase, &fields)
                    ),
                    None,
                )
            }
            // https://logging.apache.org/log4j/2.x/manual/pattern-layout.html:
            // `%d [%t] %-5level %c{1.} - %msg%n`; `%d` alone is the DEFAULT
            // date pattern `yyyy-MM-dd HH:mm:ss,SSS` (comma before the ms).
            Layout::Log4j2 => {
                let lvl = if warn { "WARN " } else { "INFO " };
                (
                    format!(
                        "{} [{}] {lvl} c.e.f.LockService - {}",
                        utc_fmt(ms, "%Y-%m-%d %H:%M:%S,%3f"),
                        rec.thread,
                        message_kv(phrase, &fields)
                    ),
                    None,
                )
            }
            // spring-projects/spring-boot
            // core/spring-boot/src/main/resources/org/springframework/boot/logging/logback/defaults.xml
            // CONSOLE_LOG_PATTERN (3.4): `%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %5p ${PID}
            // --- [app] [%15.15t] %-40.40logger{39} : %m%n`.
            Layout::SpringBoot => {
                let lvl = if warn { " WARN" } else { " INFO" };
                (
                    format!(
                        "{} {lvl} {PID} --- [flash-sale] [{:>15}] {:<40} : {}",
                        at_offset(ms, SHANGHAI_S, "%Y-%m-%dT%H:%M:%S%.3f%:z"),
                        rec.thread,
                        "c.e.flashsale.LockService",
                        message_kv(phrase, &fields)
                    ),
                    None,
                )
            }
            // spring-projects/spring-boot
            // .../logging/structured/ElasticCommonSchemaStructuredLogFormatter.java
            // (`logging.structured.format.console=ecs`, 3.4): `@timestamp`,
            // `log.level`, `process.pid`, `process.thread.name`, `service.name`,
            // `log.logger`, `message`, key-value pairs at the top, `ecs.version`.
            Layout::SpringBootEcs => {
                let mut m = Ordered::default();
                m.insert("@timestamp".into(), json!(rfc3339_ms_z(ms)));
                m.insert(
                    "log.level".into(),
                    json!(if warn { "WARN" } else { "INFO" }),
                );
                m.insert("process.pid".into(), json!(PID));
                m.insert("process.thread.name".into(), json!(rec.thread));
                m.insert("service.name".into(), json!("flash-sale"));
                m.insert("log.logger".into(), json!(logger));
                m.insert("message".into(), json!(phrase));
                m.extend_fields(&fields);
                m.insert("ecs.version".into(), json!("8.11"));
                obj(m)
            }
            // logfellow/logstash-logback-encoder README.md, "Standard Fields":
            // `@timestamp`, `@version`, `message`, `logger_name`, `thread_name`,
            // `level`, `level_value`; StructuredArguments at the top level.
            Layout::LogstashLogback => {
                let mut m = Ordered::default();
                m.insert(
                    "@timestamp".into(),
                    json!(at_offset(ms, SHANGHAI_S, "%Y-%m-%dT%H:%M:%S%.3f%:z")),
                );
                m.insert("@version".into(), json!("1"));
                m.insert("message".into(), json!(phrase));
                m.insert("logger_name".into(), json!(logger));
                m.insert("thread_name".into(), json!(rec.thread));
                m.insert("level".into(), json!(if warn { "WARN" } else { "INFO" }));
                m.insert(
                    "level_value".into(),
                    json!(if warn { 30000 } else { 20000 }),
                );
                m.extend_fields(&fields);
                obj(m)
            }
            // uber-go/zap config.go NewProductionEncoderConfig: `level`, `ts`
            // (EpochTimeEncoder: float seconds), `caller`, `msg`, then fields.
            Layout::ZapJson => {
                let mut m = Ordered::default();
                m.insert("level".into(), json!(if warn { "warn" } else { "info" }));
                // Go's AppendFloat(f, 'f', -1, 64): no `.0` on whole seconds.
                let ts = if ms % 1000 == 0 {
                    json!(ms / 1000)
                } else {
                    json!(ms as f64 / 1000.0)
                };
                m.insert("ts".into(), ts);
                m.insert("caller".into(), json!("lock/redis.go:88"));
                m.insert("msg".into(), json!(phrase));
                m.extend_fields(&fields);
                obj(m)
            }
            // uber-go/zap zapcore/console_encoder.go with
            // NewDevelopmentEncoderConfig: tab-separated ISO8601 time
            // (`2006-01-02T15:04:05.000Z0700`), capital level, caller, message,
            // then the fields as one JSON object.
            Layout::ZapConsole => {
                let ctx = Value::Object(fields_object(&fields)).to_string();
                (
                    format!(
                        "{}\t{}\tlock/redis.go:88\t{phrase}\t{ctx}",
                        at_offset(ms, SHANGHAI_S, "%Y-%m-%dT%H:%M:%S%.3f%z"),
                        if warn { "WARN" } else { "INFO" },
                    ),
                    None,
                )
            }
            // sirupsen/logrus text_formatter.go (not a terminal, so no colours;
            // TimestampFormat: time.RFC3339Nano): `time=`, `level=`, `msg=`, then
            // the fields sorted by name; a value is quoted (%q) unless it is
            // only `[A-Za-z0-9-._/@^+]`. A map field prints as Go's `map[k:v]`.
            Layout::LogrusText => {
                let mut pairs: Vec<(String, String)> = logrus_fields(&fields);
                pairs.sort();
                let mut s = format!(
                    "time={} level={} msg={}",
                    logrus_quote(&go_rfc3339_nano(ms, SHANGHAI_S)),
                    if warn { "warning" } else { "info" },
                    logrus_quote(phrase)
                );
                for (k, v) in pairs {
                    s.push_str(&format!(" {k}={}", logrus_quote(&v)));
                }
                (s, None)
            }
            // sirupsen/logrus json_formatter.go: the fields plus `level`, `msg`,
            // `time` (RFC3339Nano here), encoded from a Go map (keys sorted).
            Layout::LogrusJson => {
                let mut m = fields_object(&fields);
                m.insert("level".into(), json!(if warn { "warning" } else { "info" }));
                m.insert("msg".into(), json!(phrase));
                m.insert("time".into(), json!(go_rfc3339_nano(ms, SHANGHAI_S)));
                obj_sorted(m)
            }
            // golang/go src/log/slog/text_handler.go: `time=` (RFC 3339 with ms),
            // `level=`, `msg=`, then attrs; groups print as `group.key=`; a
            // value is quoted only when it has a space, `=`, `"` or a
            // non-printing character.
            Layout::SlogText => {
                let mut s = format!(
                    "time={} level={} msg={}",
                    at_offset(ms, SHANGHAI_S, "%Y-%m-%dT%H:%M:%S%.3f%:z"),
                    if warn { "WARN" } else { "INFO" },
                    slog_quote(phrase)
                );
                for (k, v) in flat_fields(&fields) {
                    s.push_str(&format!(" {k}={}", slog_quote(&scalar(&v))));
                }
                (s, None)
            }
            // golang/go src/log/slog/json_handler.go: `time` (RFC3339Nano),
            // `level`, `msg`, then attrs; groups are nested objects.
            Layout::SlogJson | Layout::SlogJsonDuration => {
                let mut m = Ordered::default();
                m.insert("time".into(), json!(go_rfc3339_nano(ms, SHANGHAI_S)));
                m.insert("level".into(), json!(if warn { "WARN" } else { "INFO" }));
                m.insert("msg".into(), json!(phrase));
                m.extend_fields(&fields);
                obj(m)
            }
            // pinojs/pino docs/api.md (default output): `level` 30/40, `time`
            // epoch ms, `pid`, `hostname`, the merged object, `msg`.
            Layout::Pino => {
                let mut m = Ordered::default();
                m.insert("level".into(), json!(if warn { 40 } else { 30 }));
                m.insert("time".into(), json!(ms));
                m.insert("pid".into(), json!(PID));
                m.insert("hostname".into(), json!(rec.host));
                m.extend_fields(&fields);
                m.insert("msg".into(), json!(phrase));
                obj(m)
            }
            // winstonjs/logform json.js (safe-stable-stringify, keys sorted) and
            // timestamp.js (ISO string): `level`, `message`, meta, `timestamp`.
            Layout::Winston => {
                let mut m = fields_object(&fields);
                m.insert("level".into(), json!(if warn { "warn" } else { "info" }));
                m.insert("message".into(), json!(phrase));
                m.insert("timestamp".into(), json!(rfc3339_ms_z(ms)));
                obj_sorted(m)
            }
            // trentm/node-bunyan README.md "Core fields": `name`, `hostname`,
            // `pid`, `level` (30 info, 40 warn), the fields, `msg`, `time`, `v`.
            Layout::Bunyan => {
                let mut m = Ordered::default();
                m.insert("name".into(), json!("flash-sale"));
                m.insert("hostname".into(), json!(rec.host));
                m.insert("pid".into(), json!(PID));
                m.insert("level".into(), json!(if warn { 40 } else { 30 }));
                m.extend_fields(&fields);
                m.insert("msg".into(), json!(phrase));
                m.insert("time".into(), json!(rfc3339_ms_z(ms)));
                m.insert("v".into(), json!(0));
                obj(m)
            }
            // hynek/structlog docs (api.html JSONRenderer, TimeStamper(fmt="iso",
            // utc=True), add_log_level): the key-value pairs, `event` = the
            // positional message (here the family's event name, as
            // `log.info("acquired", lock_key=...)`), `level`, `timestamp`.
            Layout::Structlog => {
                let mut m = Ordered::default();
                m.extend_fields(&fields[1..]);
                m.insert("event".into(), fields[0].value.clone());
                m.insert("level".into(), json!(if warn { "warning" } else { "info" }));
                m.insert(
                    "timestamp".into(),
                    json!(utc_fmt(ms, "%Y-%m-%dT%H:%M:%S%.6fZ")),
                );
                obj(m)
            }
            // https://docs.python.org/3/library/logging.html#logrecord-attributes:
            // `%(asctime)s %(levelname)s [%(threadName)s] %(name)s: %(message)s`;
            // asctime is `%Y-%m-%d %H:%M:%S,mmm` (Formatter.default_msec_format).
            Layout::PythonLogging => (
                format!(
                    "{} {} [{}] flashsale.lock: {}",
                    utc_fmt(ms, "%Y-%m-%d %H:%M:%S,%3f"),
                    if warn { "WARNING" } else { "INFO" },
                    rec.thread,
                    message_kv(phrase, &fields)
                ),
                None,
            ),
            // Seldaek/monolog src/Monolog/Formatter/LineFormatter.php
            // SIMPLE_FORMAT `[%datetime%] %channel%.%level_name%: %message%
            // %context% %extra%`, NormalizerFormatter SIMPLE_DATE
            // `Y-m-d\TH:i:s.uP`; context as JSON (unescaped slashes and unicode).
            Layout::MonologLine => {
                let ctx = Value::Object(fields_object(&fields)).to_string();
                (
                    format!(
                        "[{}] flashsale.{}: {phrase} {ctx} []",
                        at_offset(ms, SHANGHAI_S, "%Y-%m-%dT%H:%M:%S%.6f%:z"),
                        if warn { "WARNING" } else { "INFO" }
                    ),
                    None,
                )
            }
            // Seldaek/monolog src/Monolog/Formatter/JsonFormatter.php (LogRecord
            // toArray): `message`, `context`, `level`, `level_name`, `channel`,
            // `datetime`, `extra`.
            Layout::MonologJson => {
                let mut m = Ordered::default();
                m.insert("message".into(), json!(phrase));
                m.insert("context".into(), Value::Object(fields_object(&fields)));
                m.insert("level".into(), json!(if warn { 300 } else { 200 }));
                m.insert(
                    "level_name".into(),
                    json!(if warn { "WARNING" } else { "INFO" }),
                );
                m.insert("channel".into(), json!("flashsale"));
                m.insert(
                    "datetime".into(),
                    json!(at_offset(ms, SHANGHAI_S, "%Y-%m-%dT%H:%M:%S%.6f%:z")),
                );
                m.insert("extra".into(), json!({}));
                obj(m)
            }
            // serilog/serilog-formatting-compact README.md (CLEF): `@t` (UTC, 7
            // fraction digits), `@mt`, `@l` only when not Information, then
            // the properties at the top level (destructured objects nested).
            Layout::Serilog | Layout::SerilogTimeSpan => {
                let mut m = Ordered::default();
                m.insert(
                    "@t".into(),
                    json!(utc_fmt(ms, "%Y-%m-%dT%H:%M:%S%.3f0000Z")),
                );
                m.insert("@mt".into(), json!(phrase));
                if warn {
                    m.insert("@l".into(), json!("Warning"));
                }
                m.extend_fields(&fields);
                m.insert("SourceContext".into(), json!("FlashSale.LockService"));
                obj(m)
            }
            // apache/logging-log4j2, the manual's "JSON Layout" (layouts.html)
            // with `compact="true" eventEol="true"`: `instant` (2.11 on,
            // `{"epochSecond": .., "nanoOfSecond": ..}`), `thread`, `level`,
            // `loggerName`, `message`, `endOfBatch`, `loggerFqcn`,
            // `contextMap` (the MDC: string values), `threadId`,
            // `threadPriority`.
            Layout::Log4j2Json => {
                let mut m = Ordered::default();
                m.insert(
                    "instant".into(),
                    json!({"epochSecond": ms.div_euclid(1000), "nanoOfSecond": ms.rem_euclid(1000) * 1_000_000}),
                );
                m.insert("thread".into(), json!(rec.thread));
                m.insert("level".into(), json!(if warn { "WARN" } else { "INFO" }));
                m.insert("loggerName".into(), json!(logger));
                m.insert("message".into(), json!(phrase));
                m.insert("endOfBatch".into(), json!(false));
                m.insert(
                    "loggerFqcn".into(),
                    json!("org.apache.logging.slf4j.Log4jLogger"),
                );
                let ctx: Map<String, Value> = flat_fields(&fields)
                    .into_iter()
                    .map(|(k, v)| (k, json!(scalar(&v))))
                    .collect();
                m.insert("contextMap".into(), Value::Object(ctx));
                m.insert("threadId".into(), json!(31));
                m.insert("threadPriority".into(), json!(5));
                obj(m)
            }
            // https://github.com/NLog/NLog/wiki/SimpleLayout ("Many NLog Targets
            // has their Layout-option configured to this default-value:
            // ${longdate}|${level:uppercase=true}|${logger}|${message:withexception=true}");
            // https://github.com/NLog/NLog/wiki/LongDate-Layout-Renderer:
            // `yyyy-MM-dd HH:mm:ss.ffff`.
            Layout::NLog => (
                format!(
                    "{}|{}|FlashSale.LockService|{}",
                    utc_fmt(ms, "%Y-%m-%d %H:%M:%S%.3f0"),
                    if warn { "WARN" } else { "INFO" },
                    message_kv(phrase, &fields)
                ),
                None,
            ),
            // ruby/logger lib/logger/formatter.rb: Format `"%.1s, [%s #%d] %5s --
            // %s: %s\n"`, datetime `%Y-%m-%dT%H:%M:%S.%6N`, progname.
            Layout::RubyLogger => (
                format!(
                    "{}, [{} #{PID}] {:>5} -- flashsale: {}",
                    if warn { "W" } else { "I" },
                    utc_fmt(ms, "%Y-%m-%dT%H:%M:%S%.6f"),
                    if warn { "WARN" } else { "INFO" },
                    message_kv(phrase, &fields)
                ),
                None,
            ),
            // rails/rails activesupport/lib/active_support/tagged_logging.rb on
            // ruby/logger's Formatter (production: no progname, the request id
            // as a tag from `config.log_tags = [:request_id]`).
            Layout::Rails => (
                format!(
                    "{}, [{} #{PID}] {:>5} -- : [3f1c9a7e-5b2d-4e8f-a1c0-{:012}] {}",
                    if warn { "W" } else { "I" },
                    utc_fmt(ms, "%Y-%m-%dT%H:%M:%S%.6f"),
                    if warn { "WARN" } else { "INFO" },
                    rec.t_ms,
                    message_kv(phrase, &fields)
                ),
                None,
            ),
            // tokio-rs/tracing tracing-subscriber/src/fmt/format/mod.rs (Full,
            // no ANSI): RFC 3339 µs time, level right-aligned in 5, target, the
            // message, then fields `k=v` (strings Debug-quoted).
            Layout::TracingFmt => {
                let mut s = format!(
                    "{} {:>5} flash_sale::lock: {phrase}",
                    utc_fmt(ms, "%Y-%m-%dT%H:%M:%S%.6fZ"),
                    if warn { "WARN" } else { "INFO" },
                );
                for (k, v) in flat_fields(&fields) {
                    s.push_str(&format!(" {k}={v}"));
                }
                (s, None)
            }
            // tokio-rs/tracing tracing-subscriber/src/fmt/format/json.rs:
            // `timestamp`, `level`, `fields` {`message`, ...}, `target`.
            Layout::TracingJson => {
                let mut f = Ordered::default();
                f.insert("message".into(), json!(phrase));
                for (k, v) in flat_fields(&fields) {
                    f.insert(k, v);
                }
                let mut m = Ordered::default();
                m.insert(
                    "timestamp".into(),
                    json!(utc_fmt(ms, "%Y-%m-%dT%H:%M:%S%.6fZ")),
                );
                m.insert("level".into(), json!(if warn { "WARN" } else { "INFO" }));
                m.insert("fields".into(), f.into_value());
                m.insert("target".into(), json!("flash_sale::lock"));
                obj(m)
            }
            // open-telemetry/opentelemetry-go exporters/stdout/stdoutlog/record.go
            // (recordJSON, the log data model of opentelemetry-specification
            // specification/logs/data-model.md): `Timestamp`, `ObservedTimestamp`,
            // `Severity`, `SeverityText`, `Body` and `Attributes` as
            // attribute.Value JSON (`{"Type": "STRING", "Value": ..}`; the
            // attribute package has no map type, so groups are dotted keys),
            // `TraceID`, `SpanID`, `TraceFlags`, `Resource`, `Scope`.
            Layout::OtelStdout => {
                let mut m = Ordered::default();
                m.insert("Timestamp".into(), json!(go_rfc3339_nano(ms, 0)));
                m.insert(
                    "ObservedTimestamp".into(),
                    json!(go_rfc3339_nano(ms + 1, 0)),
                );
                m.insert("Severity".into(), json!(if warn { 13 } else { 9 }));
                m.insert(
                    "SeverityText".into(),
                    json!(if warn { "WARN" } else { "INFO" }),
                );
                m.insert("Body".into(), json!({"Type": "STRING", "Value": phrase}));
                let attrs: Vec<Value> = flat_fields(&fields)
                    .into_iter()
                    .map(|(k, v)| {
                        let t = if v.is_i64() { "INT64" } else { "STRING" };
                        json!({"Key": k, "Value": {"Type": t, "Value": v}})
                    })
                    .collect();
                m.insert("Attributes".into(), Value::Array(attrs));
                m.insert("TraceID".into(), json!("00000000000000000000000000000000"));
                m.insert("SpanID".into(), json!("0000000000000000"));
                m.insert("TraceFlags".into(), json!("00"));
                m.insert(
                    "Resource".into(),
                    json!([{"Key": "service.name", "Value": {"Type": "STRING", "Value": "flash-sale"}},
                           {"Key": "host.name", "Value": {"Type": "STRING", "Value": rec.host}}]),
                );
                m.insert(
                    "Scope".into(),
                    json!({"Name": "flash-sale/lock", "Version": "", "SchemaURL": "", "Attributes": null}),
                );
                m.insert("DroppedAttributes".into(), json!(0));
                obj(m)
            }
        };
        Line {
            rec: rec.clone(),
            text,
            json,
            fields,
            phrase,
        }
    }
}

/// A JSON object that keeps its keys in insertion order, as most
/// runtimes write them (`serde_json::Map` sorts them without the
/// `preserve_order` feature, which the crate does not enable).
#[derive(Default)]
struct Ordered(Vec<(String, Value)>);

impl Ordered {
    fn insert(&mut self, k: String, v: Value) {
        self.0.push((k, v));
    }

    /// Adds the family's fields in their order, a nested group at its first
    /// field's place.
    fn extend_fields(&mut self, fields: &[Field]) {
        let all = fields_object(fields);
        for f in fields {
            let head = f.path[0];
            if !self.0.iter().any(|(k, _)| k == head) {
                self.insert(head.to_string(), all[head].clone());
            }
        }
    }

    fn text(&self) -> String {
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    Value::Object(_) => v.to_string(),
                    other => other.to_string(),
                };
                format!("{}:{v}", Value::String(k.clone()))
            })
            .collect();
        format!("{{{}}}", parts.join(","))
    }

    /// As a JSON value (keys sorted: the services that store it re-encode).
    fn into_value(self) -> Value {
        Value::Object(self.0.into_iter().collect())
    }
}

/// A layout's JSON object: the line in the runtime's key order, and the
/// parsed object.
fn obj(m: Ordered) -> (String, Option<Map<String, Value>>) {
    let text = m.text();
    match m.into_value() {
        Value::Object(map) => (text, Some(map)),
        _ => unreachable!("an object"),
    }
}

/// A sorted object (Go maps, safe-stable-stringify) as a layout's line.
fn obj_sorted(m: Map<String, Value>) -> (String, Option<Map<String, Value>>) {
    (Value::Object(m.clone()).to_string(), Some(m))
}

/// A JSON value as plain text (strings without quotes).
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The message of a text layout: the phrase, then the fields as SLF4J-style
/// `key=value` pairs; a family that nests prints them as one JSON object
/// instead (what `log.info("{} {}", phrase, json)` gives).
fn message_kv(phrase: &str, fields: &[Field]) -> String {
    if fields.iter().any(|f| f.path.len() > 1) {
        return format!("{phrase} {}", Value::Object(fields_object(fields)));
    }
    let mut s = phrase.to_string();
    for (k, v) in flat_fields(fields) {
        s.push_str(&format!(" {k}={}", scalar(&v)));
    }
    s
}

/// logrus fields: nested groups become Go map strings `map[k:v k2:v2]`
/// (fmt's %v of a map, keys sorted).
fn logrus_fields(fields: &[Field]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (k, v) in fields_object(fields) {
        match v {
            Value::Object(inner) => {
                let mut parts: Vec<String> = inner
                    .iter()
                    .map(|(ik, iv)| format!("{ik}:{}", scalar(iv)))
                    .collect();
                parts.sort();
                out.push((k, format!("map[{}]", parts.join(" "))));
            }
            other => out.push((k, scalar(&other))),
        }
    }
    out
}

/// logrus `needsQuoting`: anything outside `[A-Za-z0-9-._/@^+]` quotes (%q).
fn logrus_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._/@^+".contains(c));
    if plain { s.to_string() } else { go_quote(s) }
}

/// slog's `needsQuoting`: empty, a space, `=`, `"` or a non-printing rune.
fn slog_quote(s: &str) -> String {
    let needs = s.is_empty()
        || s.chars()
            .any(|c| c == ' ' || c == '=' || c == '"' || c.is_control() || c.is_whitespace());
    if needs { go_quote(s) } else { s.to_string() }
}

/// Go's strconv.Quote for printable text: `"` and `\` escaped.
fn go_quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `fields` with the TTL field named without its unit (`ttl_ms` -> `ttl`,
/// `ttlMs` -> `ttl`, `过期时间毫秒` -> `过期时间`) and its value written by
/// `write` from the record's ms: a runtime's duration type logged as itself.
fn duration_ttl(
    family: Family,
    rec: &Rec,
    fields: Vec<Field>,
    write: impl Fn(i64) -> Value,
) -> Vec<Field> {
    let ttl_path = family.ttl_path();
    fields
        .into_iter()
        .map(|f| {
            if f.path != ttl_path {
                return f;
            }
            let ms = rec.ttl_ms.unwrap_or(0);
            let mut path = f.path.clone();
            if let Some(last) = path.last_mut() {
                *last = match *last {
                    "ttl_ms" | "ttlMs" => "ttl",
                    "lock.ttl_ms" => "lock.ttl",
                    "过期时间毫秒" => "过期时间",
                    other => other,
                };
            }
            Field {
                path,
                value: write(ms),
            }
        })
        .collect()
}

/// A .NET `TimeSpan` of `ms` in its constant format: `00:00:02`,
/// `00:00:01.5000000`.
fn timespan(ms: i64) -> String {
    let (s, frac) = (ms / 1000, ms % 1000);
    let base = format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    if frac == 0 {
        base
    } else {
        format!("{base}.{:07}", frac * 10_000)
    }
}

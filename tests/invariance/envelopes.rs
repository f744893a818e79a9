//! Envelopes: how a log service, shipper or container runtime stores or
//! exports the lines a runtime wrote. Each names, beside it, the documentation
//! page or source file its shape follows (several as in
//! `tests/fixtures/exports/SOURCES.md`, which has the longer notes).
//!
//! The services' own times are theirs, not the application's: a shipper's
//! time is when it read the line (a few ms later, a different lag per line),
//! SLS `__time__` is whole seconds, syslog RFC 3164 has no fraction. Only the
//! application's time gives the oracle's answer.

use serde_json::{Map, Value, json};

use crate::layouts::{Layout, Line};
use crate::time::{SHANGHAI_S, at_offset, go_rfc3339_nano, rfc3339_ms_z, utc_fmt};

/// A log service's or runtime's envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Envelope {
    File,
    SlsJsonl,
    SlsCsv,
    ClsJsonl,
    EsSearch,
    KibanaCsv,
    OpenSearchCsv,
    LokiQueryRange,
    LogcliJsonl,
    GrafanaJson,
    SplunkExport,
    Datadog,
    CloudWatchFilter,
    CloudWatchInsights,
    GcpLogging,
    AzureMonitor,
    Otlp,
    FluentdFile,
    FluentBitFile,
    Vector,
    Logstash,
    Filebeat,
    Syslog3164,
    Syslog5424,
    Journald,
    JournaldGbk,
    Docker,
    Cri,
    Kubectl,
}

pub const ENVELOPES: &[Envelope] = &[
    Envelope::File,
    Envelope::SlsJsonl,
    Envelope::SlsCsv,
    Envelope::ClsJsonl,
    Envelope::EsSearch,
    Envelope::KibanaCsv,
    Envelope::OpenSearchCsv,
    Envelope::LokiQueryRange,
    Envelope::LogcliJsonl,
    Envelope::GrafanaJson,
    Envelope::SplunkExport,
    Envelope::Datadog,
    Envelope::CloudWatchFilter,
    Envelope::CloudWatchInsights,
    Envelope::GcpLogging,
    Envelope::AzureMonitor,
    Envelope::Otlp,
    Envelope::FluentdFile,
    Envelope::FluentBitFile,
    Envelope::Vector,
    Envelope::Logstash,
    Envelope::Filebeat,
    Envelope::Syslog3164,
    Envelope::Syslog5424,
    Envelope::Journald,
    Envelope::JournaldGbk,
    Envelope::Docker,
    Envelope::Cri,
    Envelope::Kubectl,
];

fn ip(host: &str) -> &'static str {
    match host {
        "web-01" => "10.0.1.11",
        "web-02" => "10.0.1.12",
        _ => "10.0.1.13",
    }
}

fn pod(host: &str) -> String {
    format!("flash-sale-7d9c6b5f4-{}", &host[host.len() - 2..])
}

/// The lag of a shipper's or service's own time behind the app's, ms: 3 to
/// 31, a different one per line.
fn lag_ms(i: usize) -> i64 {
    3 + (i as i64 * 7) % 29
}

/// CSV cell quoting as RFC 4180 writers do: quoted when it holds `,`, `"`,
/// a newline or (`always`) every time; `"` doubled.
fn csv_cell(s: &str, always: bool) -> String {
    if always || s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

impl Envelope {
    pub fn id(self) -> &'static str {
        match self {
            Envelope::File => "file",
            Envelope::SlsJsonl => "sls-jsonl",
            Envelope::SlsCsv => "sls-csv",
            Envelope::ClsJsonl => "cls-jsonl",
            Envelope::EsSearch => "es-search",
            Envelope::KibanaCsv => "kibana-csv",
            Envelope::OpenSearchCsv => "opensearch-csv",
            Envelope::LokiQueryRange => "loki-api",
            Envelope::LogcliJsonl => "logcli-jsonl",
            Envelope::GrafanaJson => "grafana-json",
            Envelope::SplunkExport => "splunk-export",
            Envelope::Datadog => "datadog",
            Envelope::CloudWatchFilter => "cloudwatch-filter",
            Envelope::CloudWatchInsights => "cloudwatch-insights",
            Envelope::GcpLogging => "gcp-logging",
            Envelope::AzureMonitor => "azure-monitor",
            Envelope::Otlp => "otlp-json",
            Envelope::FluentdFile => "fluentd-file",
            Envelope::FluentBitFile => "fluentbit-file",
            Envelope::Vector => "vector",
            Envelope::Logstash => "logstash",
            Envelope::Filebeat => "filebeat",
            Envelope::Syslog3164 => "syslog-3164",
            Envelope::Syslog5424 => "syslog-5424",
            Envelope::Journald => "journald",
            Envelope::JournaldGbk => "journald-gbk",
            Envelope::Docker => "docker",
            Envelope::Cri => "cri",
            Envelope::Kubectl => "kubectl",
        }
    }

    /// Whether the file is text lines or CSV rather than JSON (a JSON file
    /// is UTF-8 by RFC 8259; a text or CSV file may be GB18030).
    pub fn is_text(self) -> bool {
        matches!(
            self,
            Envelope::File
                | Envelope::SlsCsv
                | Envelope::KibanaCsv
                | Envelope::OpenSearchCsv
                | Envelope::FluentdFile
                | Envelope::FluentBitFile
                | Envelope::Syslog3164
                | Envelope::Syslog5424
                | Envelope::Cri
                | Envelope::Kubectl
        )
    }

    /// Whether `layout` is meaningful inside this envelope. The OpenTelemetry
    /// stdout exporter's line goes to the process's stdout only (a container
    /// runtime's envelopes, the OTLP exporter's own record); every other
    /// layout is a line a file or stdout collector can ship anywhere.
    pub fn carries(self, layout: Layout) -> bool {
        if layout == Layout::OtelStdout {
            return matches!(
                self,
                Envelope::Otlp
                    | Envelope::Docker
                    | Envelope::Cri
                    | Envelope::Kubectl
                    | Envelope::File
            );
        }
        true
    }

    /// A file name extension for the export.
    pub fn ext(self) -> &'static str {
        match self {
            Envelope::SlsCsv | Envelope::KibanaCsv | Envelope::OpenSearchCsv => "csv",
            Envelope::EsSearch
            | Envelope::LokiQueryRange
            | Envelope::GrafanaJson
            | Envelope::Datadog
            | Envelope::CloudWatchFilter
            | Envelope::CloudWatchInsights
            | Envelope::GcpLogging
            | Envelope::AzureMonitor => "json",
            Envelope::SlsJsonl
            | Envelope::ClsJsonl
            | Envelope::LogcliJsonl
            | Envelope::SplunkExport
            | Envelope::Otlp
            | Envelope::Vector
            | Envelope::Logstash
            | Envelope::Filebeat
            | Envelope::Journald
            | Envelope::JournaldGbk => "jsonl",
            _ => "log",
        }
    }

    /// The export of `lines` (in time order), without a final encoding;
    /// lines end with `\n`.
    pub fn wrap(self, lines: &[Line], layout: Layout) -> String {
        let rows: Vec<String> = match self {
            // The runtime's own file (or stdout redirected to one).
            Envelope::File => lines.iter().map(|l| l.text.clone()).collect(),
            // https://www.alibabacloud.com/help/en/sls/product-overview/log (simple
            // mode: the raw line in `content`, `__time__` UNIX seconds, tags
            // `__tag__:`); https://www.alibabacloud.com/help/doc-detail/52797.htm.
            Envelope::SlsJsonl => lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let t = l.rec.epoch_ms();
                    let mut m = Map::new();
                    m.insert("__time__".into(), json!((t / 1000).to_string()));
                    m.insert("__topic__".into(), json!(""));
                    m.insert("__source__".into(), json!(ip(l.rec.host)));
                    m.insert("__tag__:__hostname__".into(), json!(l.rec.host));
                    m.insert("__tag__:__path__".into(), json!("/var/log/flash-sale/app.log"));
                    m.insert(
                        "__tag__:__receive_time__".into(),
                        json!(((t + lag_ms(i) + 900) / 1000).to_string()),
                    );
                    m.insert("content".into(), json!(l.text));
                    Value::Object(m).to_string()
                })
                .collect(),
            // SLS console, Raw Logs > Download Log (CSV): the field names as the
            // header in alphabetical order, `__time__` epoch seconds.
            Envelope::SlsCsv => {
                let mut rows = vec![
                    "__source__,__tag__:__hostname__,__tag__:__path__,__time__,__topic__,content"
                        .to_string(),
                ];
                for l in lines.iter().rev() {
                    rows.push(format!(
                        "{},{},/var/log/flash-sale/app.log,{},,{}",
                        ip(l.rec.host),
                        l.rec.host,
                        l.rec.epoch_ms() / 1000,
                        csv_cell(&l.text, false)
                    ));
                }
                rows
            }
            // https://www.tencentcloud.com/document/product/614/38888
            // (`__CONTENT__`, `__FILENAME__`, `__SOURCE__`, `__TIMESTAMP__` ms =
            // collection time), CreateExport (api/614/42798) Format json, Order
            // desc.
            Envelope::ClsJsonl => lines
                .iter()
                .enumerate()
                .rev()
                .map(|(i, l)| {
                    json!({
                        "__CONTENT__": l.text,
                        "__FILENAME__": "/var/log/flash-sale/app.log",
                        "__HOSTNAME__": l.rec.host,
                        "__SOURCE__": ip(l.rec.host),
                        "__TIMESTAMP__": (l.rec.epoch_ms() + lag_ms(i)).to_string(),
                    })
                    .to_string()
                })
                .collect(),
            // Elasticsearch `_search` response
            // (https://www.elastic.co/guide/en/elasticsearch/reference/current/search-search.html:
            // `took`, `timed_out`, `_shards`, `hits.total`, `hits.hits[]` with
            // `_index`, `_id`, `_score`, `_source`, `sort`), Filebeat's ECS
            // document in `_source`; newest first.
            Envelope::EsSearch => {
                let hits: Vec<Value> = lines
                    .iter()
                    .enumerate()
                    .rev()
                    .map(|(i, l)| {
                        let t = l.rec.epoch_ms() + lag_ms(i);
                        json!({
                            "_index": ".ds-filebeat-8.11.3-2026.11.30-000001",
                            "_id": format!("Xk{i:04}Pm"),
                            "_score": null,
                            "_source": filebeat_doc(l, i),
                            "sort": [t],
                        })
                    })
                    .collect();
                let doc = json!({
                    "took": 7, "timed_out": false,
                    "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
                    "hits": {"total": {"value": hits.len(), "relation": "eq"}, "max_score": null, "hits": hits},
                });
                vec![serde_json::to_string_pretty(&doc).expect("json")]
            }
            // elastic/kibana src/platform/packages/private/kbn-generate-csv/src/generate_csv.ts
            // (cells through escape_value: quoted unless alphanumeric, formulas
            // prefixed with `'`); dateFormat `MMM D, YYYY @ HH:mm:ss.SSS`
            // (browser zone UTC here); newest first.
            Envelope::KibanaCsv => {
                let mut rows = vec!["\"'@timestamp\",\"host.name\",message".to_string()];
                for (i, l) in lines.iter().enumerate().rev() {
                    let t = l.rec.epoch_ms() + lag_ms(i);
                    rows.push(format!(
                        "{},{},{}",
                        csv_cell(&utc_fmt(t, "%b %-d, %Y @ %H:%M:%S%.3f"), true),
                        csv_cell(l.rec.host, true),
                        csv_cell(&kibana_formula(&l.text), true)
                    ));
                }
                rows
            }
            // opensearch-project/dashboards-reporting
            // server/routes/utils/dataReportHelpers.ts (json-2-csv: only cells
            // with `,` `"` or a newline quoted, `\n`; dates in the user's zone).
            Envelope::OpenSearchCsv => {
                let mut rows = vec!["@timestamp,host.name,message".to_string()];
                for (i, l) in lines.iter().enumerate().rev() {
                    let t = l.rec.epoch_ms() + lag_ms(i);
                    rows.push(format!(
                        "{},{},{}",
                        utc_fmt(t, "%m/%d/%Y %H:%M:%S%.3f"),
                        l.rec.host,
                        csv_cell(&l.text, false)
                    ));
                }
                rows
            }
            // Loki HTTP API `GET /loki/api/v1/query_range`
            // (https://grafana.com/docs/loki/latest/reference/loki-http-api/):
            // `data.result[]` streams (one per label set) with `values` =
            // [ns string, line], direction backward (newest first).
            Envelope::LokiQueryRange => {
                let mut hosts: Vec<&str> = lines.iter().map(|l| l.rec.host).collect();
                hosts.sort();
                hosts.dedup();
                let result: Vec<Value> = hosts
                    .iter()
                    .map(|h| {
                        let values: Vec<Value> = lines
                            .iter()
                            .enumerate()
                            .rev()
                            .filter(|(_, l)| l.rec.host == *h)
                            .map(|(i, l)| {
                                json!([((l.rec.epoch_ms() + lag_ms(i)) * 1_000_000).to_string(), l.text])
                            })
                            .collect();
                        json!({"stream": {"host": h, "job": "flash-sale", "filename": "/var/log/flash-sale/app.log"}, "values": values})
                    })
                    .collect();
                let doc = json!({"status": "success", "data": {"resultType": "streams", "result": result,
                    "stats": {"summary": {"totalEntriesReturned": lines.len()}}}});
                vec![doc.to_string()]
            }
            // grafana/loki cmd/logcli (`logcli query --output=jsonl`,
            // pkg/logcli/output/jsonl.go): `{"labels": {...}, "line": ..,
            // "timestamp": RFC3339Nano}` per line.
            Envelope::LogcliJsonl => lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    json!({
                        "labels": {"host": l.rec.host, "job": "flash-sale"},
                        "line": l.text,
                        "timestamp": go_rfc3339_nano(l.rec.epoch_ms() + lag_ms(i), 0),
                    })
                    .to_string()
                })
                .collect(),
            // grafana/grafana public/app/features/logs/utils.ts
            // logRowsToReadableJson: `[{line, timestamp (ns string), date,
            // fields}]`, newest first.
            Envelope::GrafanaJson => {
                let rows: Vec<Value> = lines
                    .iter()
                    .enumerate()
                    .rev()
                    .map(|(i, l)| {
                        let t = l.rec.epoch_ms() + lag_ms(i);
                        json!({"line": l.text, "timestamp": (t * 1_000_000).to_string(),
                               "date": rfc3339_ms_z(t),
                               "fields": {"host": l.rec.host, "job": "flash-sale", "service_name": "flash-sale"}})
                    })
                    .collect();
                vec![Value::Array(rows).to_string()]
            }
            // splunk/splunk-sdk-python splunklib/results.py JSONResultsReader
            // (`/services/search/jobs/export?output_mode=json`: one
            // `{"preview":false,"offset":N,"result":{..}}` per line); newest first.
            Envelope::SplunkExport => {
                let n = lines.len();
                lines
                    .iter()
                    .enumerate()
                    .rev()
                    .enumerate()
                    .map(|(off, (i, l))| {
                        let mut v = json!({"preview": false, "offset": off, "result": {
                            "_raw": l.text, "_time": at_offset(l.rec.epoch_ms(), SHANGHAI_S, "%Y-%m-%dT%H:%M:%S%.3f%:z"),
                            "_indextime": ((l.rec.epoch_ms() + 2000) / 1000).to_string(),
                            "host": l.rec.host, "index": "main", "linecount": "1",
                            "source": "/var/log/flash-sale/app.log", "sourcetype": "flash-sale",
                            "splunk_server": "idx-1", "_serial": (off).to_string(), "_cd": format!("0:{}", 100 + i)}});
                        if off + 1 == n {
                            v["lastrow"] = json!(true);
                        }
                        v.to_string()
                    })
                    .collect()
            }
            // Datadog Logs API v2 `POST /api/v2/logs/events/search`
            // (https://docs.datadoghq.com/api/latest/logs/#search-logs): `data[]`
            // of `{id, type: "log", attributes: {timestamp, host, service,
            // status, message, tags, attributes: {the parsed JSON}}}`.
            Envelope::Datadog => {
                let data: Vec<Value> = lines
                    .iter()
                    .enumerate()
                    .map(|(i, l)| {
                        let (message, attrs) = match &l.json {
                            Some(m) => (json!(l.phrase), Value::Object(m.clone())),
                            None => (json!(l.text), json!({})),
                        };
                        json!({"id": format!("AQAAAY{i:06}"), "type": "log", "attributes": {
                            "timestamp": rfc3339_ms_z(l.rec.epoch_ms() + lag_ms(i)),
                            "host": l.rec.host, "service": "flash-sale",
                            "status": if l.rec.kind.level() == crate::model::Level::Warn { "warn" } else { "info" },
                            "message": message, "tags": ["env:prod", format!("host:{}", l.rec.host)],
                            "attributes": attrs}})
                    })
                    .collect();
                vec![serde_json::to_string_pretty(&json!({"data": data, "links": {}, "meta": {"status": "done", "elapsed": 42, "page": {}}})).expect("json")]
            }
            // AWS CLI `aws logs filter-log-events`
            // (https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_FilterLogEvents.html,
            // API_FilteredLogEvent.html): `events[]` of `logStreamName`,
            // `timestamp` (ms, ingestion by the agent), `message`,
            // `ingestionTime`, `eventId`.
            Envelope::CloudWatchFilter => {
                let events: Vec<Value> = lines
                    .iter()
                    .enumerate()
                    .map(|(i, l)| {
                        let t = l.rec.epoch_ms() + lag_ms(i);
                        json!({"logStreamName": format!("{}/app", l.rec.host), "timestamp": t,
                               "message": l.text, "ingestionTime": t + 400,
                               "eventId": format!("{:056}", i + 37_000)})
                    })
                    .collect();
                vec![serde_json::to_string_pretty(&json!({"events": events, "searchedLogStreams": []})).expect("json")]
            }
            // AWS CLI `aws logs get-query-results`
            // (https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_GetQueryResults.html):
            // `results` = rows of `{field, value}`, query `fields @timestamp,
            // @message, @logStream | sort @timestamp desc`.
            Envelope::CloudWatchInsights => {
                let rows: Vec<Value> = lines
                    .iter()
                    .enumerate()
                    .rev()
                    .map(|(i, l)| {
                        let t = l.rec.epoch_ms() + lag_ms(i);
                        json!([
                            {"field": "@timestamp", "value": utc_fmt(t, "%Y-%m-%d %H:%M:%S%.3f")},
                            {"field": "@message", "value": l.text},
                            {"field": "@logStream", "value": format!("{}/app", l.rec.host)},
                            {"field": "@ptr", "value": format!("CmAKJwoj{i:04}")},
                        ])
                    })
                    .collect();
                vec![serde_json::to_string_pretty(&json!({"results": rows,
                    "statistics": {"recordsMatched": lines.len() as f64, "recordsScanned": 100.0, "bytesScanned": 9000.0},
                    "status": "Complete"})).expect("json")]
            }
            // Google Cloud Logging LogEntry
            // (https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry):
            // a JSON line becomes `jsonPayload`, any other `textPayload`;
            // `gcloud logging read --format=json` prints a JSON array, newest
            // first.
            Envelope::GcpLogging => {
                let rows: Vec<Value> = lines
                    .iter()
                    .enumerate()
                    .rev()
                    .map(|(i, l)| {
                        let t = l.rec.epoch_ms() + lag_ms(i);
                        let mut m = Map::new();
                        m.insert("insertId".into(), json!(format!("x{i:04}abc")));
                        match &l.json {
                            Some(obj) => m.insert("jsonPayload".into(), Value::Object(obj.clone())),
                            None => m.insert("textPayload".into(), json!(l.text)),
                        };
                        m.insert("resource".into(), json!({"type": "k8s_container", "labels": {
                            "project_id": "shop-prod", "cluster_name": "prod", "namespace_name": "shop",
                            "pod_name": pod(l.rec.host), "container_name": "flash-sale"}}));
                        m.insert("timestamp".into(), json!(utc_fmt(t, "%Y-%m-%dT%H:%M:%S%.9fZ")));
                        m.insert("severity".into(), json!(if l.rec.kind.level() == crate::model::Level::Warn { "WARNING" } else { "INFO" }));
                        m.insert("logName".into(), json!("projects/shop-prod/logs/stdout"));
                        m.insert("receiveTimestamp".into(), json!(utc_fmt(t + 900, "%Y-%m-%dT%H:%M:%S%.9fZ")));
                        Value::Object(m)
                    })
                    .collect();
                vec![serde_json::to_string_pretty(&Value::Array(rows)).expect("json")]
            }
            // Azure Monitor Logs query API response
            // (https://learn.microsoft.com/azure/azure-monitor/logs/api/response-format:
            // `tables[]` of `columns[{name,type}]` and `rows[][]`), table
            // ContainerLogV2 (https://learn.microsoft.com/azure/azure-monitor/reference/tables/containerlogv2:
            // `TimeGenerated`, `Computer`, `PodName`, `LogMessage`, `LogSource`).
            Envelope::AzureMonitor => {
                let rows: Vec<Value> = lines
                    .iter()
                    .enumerate()
                    .map(|(i, l)| {
                        let msg = match &l.json {
                            Some(m) => Value::Object(m.clone()),
                            None => json!(l.text),
                        };
                        json!([rfc3339_ms_z(l.rec.epoch_ms() + lag_ms(i)), format!("aks-node-{}", l.rec.host),
                               pod(l.rec.host), "flash-sale", "stdout", msg])
                    })
                    .collect();
                let doc = json!({"tables": [{"name": "PrimaryResult", "columns": [
                    {"name": "TimeGenerated", "type": "datetime"}, {"name": "Computer", "type": "string"},
                    {"name": "PodName", "type": "string"}, {"name": "ContainerName", "type": "string"},
                    {"name": "LogSource", "type": "string"}, {"name": "LogMessage", "type": "dynamic"}],
                    "rows": rows}]});
                vec![doc.to_string()]
            }
            // OTLP JSON (open-telemetry/opentelemetry-proto examples/logs.json;
            // the collector's fileexporter writes one ExportLogsServiceRequest
            // a line): `resourceLogs[].scopeLogs[].logRecords[]` with
            // `timeUnixNano`, `severityText`, `body.stringValue`, `attributes`
            // as `[{key, value: {stringValue|intValue}}]`. An OpenTelemetry
            // SDK's record carries its fields as attributes; any other line
            // is the body (the filelog receiver).
            Envelope::Otlp => lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let t = l.rec.epoch_ms();
                    let (body, attrs) = if layout == Layout::OtelStdout {
                        let a: Vec<Value> = crate::model::flat_fields(&l.fields)
                            .into_iter()
                            .map(|(k, v)| match v {
                                Value::Number(n) => json!({"key": k, "value": {"intValue": n.to_string()}}),
                                other => json!({"key": k, "value": {"stringValue": other.as_str().unwrap_or_default()}}),
                            })
                            .collect();
                        (l.phrase.to_string(), a)
                    } else {
                        (l.text.clone(), vec![json!({"key": "log.file.path", "value": {"stringValue": "/var/log/flash-sale/app.log"}})])
                    };
                    json!({"resourceLogs": [{"resource": {"attributes": [
                        {"key": "service.name", "value": {"stringValue": "flash-sale"}},
                        {"key": "host.name", "value": {"stringValue": l.rec.host}}]},
                        "scopeLogs": [{"scope": {"name": "flash-sale"}, "logRecords": [{
                            "timeUnixNano": (t * 1_000_000).to_string(),
                            "observedTimeUnixNano": ((t + lag_ms(i)) * 1_000_000).to_string(),
                            "severityNumber": if l.rec.kind.level() == crate::model::Level::Warn { 13 } else { 9 },
                            "severityText": if l.rec.kind.level() == crate::model::Level::Warn { "WARN" } else { "INFO" },
                            "body": {"stringValue": body}, "attributes": attrs,
                            "traceId": "", "spanId": ""}]}]}]})
                    .to_string()
                })
                .collect(),
            // https://docs.fluentd.org/output/file with the out_file formatter
            // (https://docs.fluentd.org/formatter/out_file): `time<TAB>tag<TAB>record
            // JSON`, time `%Y-%m-%dT%H:%M:%S%z` (seconds); in_tail with
            // `@type json` parses a JSON line into the record, `@type none`
            // keeps it as `message`.
            Envelope::FluentdFile => lines
                .iter()
                .map(|l| {
                    let rec = match &l.json {
                        Some(m) => Value::Object(m.clone()),
                        None => json!({"message": l.text}),
                    };
                    format!(
                        "{}\tflash.app\t{}",
                        at_offset(l.rec.epoch_ms(), 0, "%Y-%m-%dT%H:%M:%S%z"),
                        rec
                    )
                })
                .collect(),
            // https://docs.fluentbit.io/manual/pipeline/outputs/file (no
            // `Format`: `tag: [time, {record}]`, time as float seconds); tail
            // input keeps the line as `log`.
            Envelope::FluentBitFile => lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    // flb_time: seconds, `.`, nine digits of ns.
                    let t = l.rec.epoch_ms() + lag_ms(i);
                    format!("flash.app: [{}.{:09}, {}]", t / 1000, (t % 1000) * 1_000_000, json!({"log": l.text}))
                })
                .collect(),
            // Vector file sink, `encoding.codec = "json"`, of a kubernetes_logs
            // source event
            // (https://vector.dev/docs/reference/configuration/sources/kubernetes_logs/#output-data):
            // `file`, `kubernetes.*`, `message`, `source_type`, `stream`,
            // `timestamp`.
            Envelope::Vector => lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    json!({"file": format!("/var/log/pods/shop_{}/flash-sale/0.log", pod(l.rec.host)),
                           "kubernetes": {"pod_name": pod(l.rec.host), "pod_namespace": "shop", "container_name": "flash-sale", "pod_node_name": l.rec.host},
                           "message": l.text, "source_type": "kubernetes_logs", "stream": "stdout",
                           "timestamp": utc_fmt(l.rec.epoch_ms() + lag_ms(i), "%Y-%m-%dT%H:%M:%S%.9fZ")})
                    .to_string()
                })
                .collect(),
            // Logstash file output (codec json_lines) with ECS compatibility
            // (https://www.elastic.co/guide/en/logstash/current/plugins-outputs-file.html,
            // https://www.elastic.co/guide/en/logstash/current/ecs-ls.html):
            // `@timestamp`, `@version`, `message`, `host.name`, `log.file.path`,
            // `event.original`.
            Envelope::Logstash => lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    json!({"@timestamp": rfc3339_ms_z(l.rec.epoch_ms() + lag_ms(i)), "@version": "1",
                           "message": l.text, "host": {"name": l.rec.host},
                           "log": {"file": {"path": "/var/log/flash-sale/app.log"}},
                           "event": {"original": l.text}})
                    .to_string()
                })
                .collect(),
            // Filebeat file output
            // (https://www.elastic.co/guide/en/beats/filebeat/current/file-output.html):
            // one event a line, `@timestamp`, `@metadata`, `log.offset`,
            // `log.file.path`, `message`, `input.type`, `ecs`, `host`, `agent`.
            Envelope::Filebeat => lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let mut d = filebeat_doc(l, i);
                    d["@metadata"] = json!({"beat": "filebeat", "type": "_doc", "version": "8.11.3"});
                    d.to_string()
                })
                .collect(),
            // RFC 3164 §4.1 (https://www.rfc-editor.org/rfc/rfc3164): `<PRI>Mmm dd
            // hh:mm:ss HOST TAG[pid]: MSG` (no year, no fraction); facility
            // local0, severity info (134) or warning (132).
            Envelope::Syslog3164 => lines
                .iter()
                .map(|l| {
                    let pri = if l.rec.kind.level() == crate::model::Level::Warn { 132 } else { 134 };
                    format!(
                        "<{pri}>{} {} flash-sale[4242]: {}",
                        utc_fmt(l.rec.epoch_ms(), "%b %e %H:%M:%S"),
                        l.rec.host,
                        l.text
                    )
                })
                .collect(),
            // RFC 5424 §6 (https://www.rfc-editor.org/rfc/rfc5424): `<PRI>1
            // TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG`.
            Envelope::Syslog5424 => lines
                .iter()
                .map(|l| {
                    let pri = if l.rec.kind.level() == crate::model::Level::Warn { 132 } else { 134 };
                    format!(
                        "<{pri}>1 {} {} flash-sale 4242 - - {}",
                        at_offset(l.rec.epoch_ms(), SHANGHAI_S, "%Y-%m-%dT%H:%M:%S%.6f%:z"),
                        l.rec.host,
                        l.text
                    )
                })
                .collect(),
            // systemd/systemd docs/JOURNAL_EXPORT_FORMATS.md, "Journal JSON
            // Format" (`journalctl -o json`): string values,
            // `__REALTIME_TIMESTAMP` µs, `_HOSTNAME`, `SYSLOG_IDENTIFIER`,
            // `PRIORITY`, `MESSAGE`.
            // A GBK application's lines through journald: a MESSAGE that is
            // not valid UTF-8 is written as "arrays containing the raw bytes
            // individually formatted as unsigned numbers" (journalctl(1),
            // "json").
            Envelope::Journald | Envelope::JournaldGbk => lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let message = if self == Envelope::JournaldGbk && !l.text.is_ascii() {
                        let (gbk, _, _) = encoding_rs::GBK.encode(&l.text);
                        json!(gbk.iter().map(|b| json!(b)).collect::<Vec<_>>())
                    } else {
                        json!(l.text)
                    };
                    let us = l.rec.epoch_ms() * 1000 + 80 + i as i64;
                    json!({"__CURSOR": format!("s=9f1c;i={:x}", 0x1000 + i), "__REALTIME_TIMESTAMP": us.to_string(),
                           "__MONOTONIC_TIMESTAMP": (us - 1_796_000_000_000_000).to_string(),
                           "_BOOT_ID": "1b2c3d4e5f60718293a4b5c6d7e8f901", "_HOSTNAME": l.rec.host,
                           "_TRANSPORT": "stdout", "PRIORITY": if l.rec.kind.level() == crate::model::Level::Warn { "4" } else { "6" },
                           "SYSLOG_IDENTIFIER": "flash-sale", "_PID": "4242", "_SYSTEMD_UNIT": "flash-sale.service",
                           "MESSAGE": message})
                    .to_string()
                })
                .collect(),
            // https://docs.docker.com/engine/logging/drivers/json-file/:
            // `{"log":"line\n","stream":"stdout","time":RFC3339Nano}`.
            Envelope::Docker => lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    json!({"log": format!("{}\n", l.text), "stream": "stdout",
                           "time": utc_fmt(l.rec.epoch_ms(), "%Y-%m-%dT%H:%M:%S%.3f") + &format!("{:03}{:03}Z", 80 + i, 0)})
                    .to_string()
                })
                .collect(),
            // kubernetes/kubernetes pkg/kubelet/kuberuntime/logs/logs.go (CRI log
            // format, cri-api docs/kubelet-cri-logging.md): `TIME STREAM TAG
            // line`, TIME RFC3339Nano, TAG `F` for a full line.
            Envelope::Cri => lines
                .iter()
                .enumerate()
                .map(|(i, l)| format!("{} stdout F {}", cri_time(l.rec.epoch_ms(), i), l.text))
                .collect(),
            // `kubectl logs --timestamps`
            // (https://kubernetes.io/docs/reference/kubectl/generated/kubectl_logs/):
            // the kubelet's RFC3339Nano time, a space, the line.
            Envelope::Kubectl => lines
                .iter()
                .enumerate()
                .map(|(i, l)| format!("{} {}", cri_time(l.rec.epoch_ms(), i), l.text))
                .collect(),
        };
        let mut out = rows.join("\n");
        out.push('\n');
        out
    }
}

/// The runtime's receipt time, RFC3339Nano with the trailing zeros trimmed
/// (Go's format): 80 µs and a few more after the app's time.
fn cri_time(ms: i64, i: usize) -> String {
    let ns = 80_000 + i as i64 * 1_000 + 123;
    let s = utc_fmt(ms, "%Y-%m-%dT%H:%M:%S");
    let frac = format!("{:09}", (ms % 1000) * 1_000_000 + ns);
    format!("{s}.{}Z", frac.trim_end_matches('0'))
}

/// Filebeat's ECS document of a line (filestream input).
fn filebeat_doc(l: &Line, i: usize) -> Value {
    json!({
        "@timestamp": rfc3339_ms_z(l.rec.epoch_ms() + lag_ms(i)),
        "log": {"offset": i * 180, "file": {"path": "/var/log/flash-sale/app.log"}},
        "message": l.text,
        "input": {"type": "filestream"},
        "ecs": {"version": "8.0.0"},
        "host": {"name": l.rec.host},
        "agent": {"type": "filebeat", "version": "8.11.3", "name": l.rec.host},
    })
}

/// Kibana's formula escape: a cell starting with `=`, `+`, `-` or `@` gets a
/// leading `'` (kbn-generate-csv formula_checks).
fn kibana_formula(s: &str) -> String {
    if s.starts_with(['=', '+', '-', '@']) {
        format!("'{s}")
    } else {
        s.to_string()
    }
}

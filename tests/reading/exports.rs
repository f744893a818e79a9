//! Log-service containers: the application's JSON line stored as a string inside one
//! field of a log service's record (SLS `content`, Filebeat `message`, Splunk `_raw`,
//! CloudWatch `@message`, journald `MESSAGE`, docker `log`, Grafana `line`, CLS
//! `__CONTENT__`...).
//!
//! Every file under `tests/fixtures/exports/` carries the same 11 application lines as
//! `plain.jsonl`, wrapped the way the named service exports them (see
//! `tests/fixtures/exports/SOURCES.md` for the page or source file each shape follows),
//! so every file must give the answer `plain.jsonl` gives: one overlap on
//! `lock:sku:1001`, `tok-A` (earlier) then `tok-B`, cause `lease_expired`, 200 ms, one
//! oversold unit, 200 lost at `--unit-loss 200`, exit code 1.
//!
//! The services' own times (`__time__` whole seconds, a shipper's `@timestamp` a few ms
//! after the application wrote the line, CLS `__TIMESTAMP__` = collection time...) are
//! deliberately not the application's: using them instead of the app's `ts` moves the
//! overlap by more than the 1 ms tolerance.

use std::path::PathBuf;

use serde_json::Value;

const UNIT_LOSS: &str = "200";
const TOL_MS: f64 = 1.0;

/// One sample: the file, extra flags, and the public doc/source its shape follows.
struct Case {
    file: &'static str,
    args: &'static [&'static str],
    source: &'static str,
}

const SHANGHAI: &[&str] = &["--tz", "Asia/Shanghai"];

fn fixture(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/exports")
        .join(file)
}

/// The answer a report gives, reduced to what the incident is about.
#[derive(Debug, Clone)]
struct Answer {
    exit: Option<i32>,
    /// `summary.overlap_pairs`
    overlap_pairs: Option<u64>,
    /// every `incidents[].overlaps[]`, as (key, earlier, later, cause, duration_ms)
    overlaps: Vec<(String, String, String, String, f64)>,
    oversold_units: Option<i64>,
    loss: Option<f64>,
    events: Option<u64>,
}

fn run(file: &str, args: &[&str]) -> Result<Answer, String> {
    let path = fixture(file);
    let out = crate::support::bin()
        .arg("analyze")
        .args(["--format", "json", "--unit-loss", UNIT_LOSS])
        .args(args)
        .arg(&path)
        .output()
        .map_err(|e| format!("{file}: could not run lockreplay: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(&stdout).map_err(|e| {
        format!(
            "{file}: stdout is not a JSON report ({e}); exit {:?}; stderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })?;
    let summary = &report["summary"];
    let mut overlaps = Vec::new();
    for inc in report["incidents"].as_array().into_iter().flatten() {
        for o in inc["overlaps"].as_array().into_iter().flatten() {
            let s = |k: &str| o[k].as_str().unwrap_or("<missing>").to_owned();
            overlaps.push((
                s("key"),
                s("earlier"),
                s("later"),
                s("cause"),
                o["duration_ms"].as_f64().unwrap_or(f64::NAN),
            ));
        }
    }
    Ok(Answer {
        exit: out.status.code(),
        overlap_pairs: summary["overlap_pairs"].as_u64(),
        overlaps,
        oversold_units: summary["oversold_units"].as_i64(),
        loss: summary["loss"]["amount"].as_f64(),
        events: summary["events"].as_u64(),
    })
}

/// The differences between `got` and `want`, one line each; empty when they agree.
fn differences(got: &Answer, want: &Answer) -> Vec<String> {
    let mut d = Vec::new();
    if got.exit != want.exit {
        d.push(format!("exit code {:?}, want {:?}", got.exit, want.exit));
    }
    if got.events != want.events {
        d.push(format!(
            "events loaded {:?}, want {:?}",
            got.events, want.events
        ));
    }
    if got.overlap_pairs != want.overlap_pairs {
        d.push(format!(
            "summary.overlap_pairs {:?}, want {:?}",
            got.overlap_pairs, want.overlap_pairs
        ));
    }
    if got.overlaps.len() != want.overlaps.len() {
        d.push(format!(
            "{} overlaps listed, want {} (got {:?})",
            got.overlaps.len(),
            want.overlaps.len(),
            got.overlaps
        ));
    } else {
        for (g, w) in got.overlaps.iter().zip(&want.overlaps) {
            if g.0 != w.0 {
                d.push(format!("overlap key {:?}, want {:?}", g.0, w.0));
            }
            if (&g.1, &g.2) != (&w.1, &w.2) {
                d.push(format!(
                    "holders earlier/later {:?}/{:?}, want {:?}/{:?}",
                    g.1, g.2, w.1, w.2
                ));
            }
            if g.3 != w.3 {
                d.push(format!("cause {:?}, want {:?}", g.3, w.3));
            }
            if g.4.is_nan() || (g.4 - w.4).abs() > TOL_MS {
                d.push(format!("duration {} ms, want {} ms ±{TOL_MS}", g.4, w.4));
            }
        }
    }
    if got.oversold_units != want.oversold_units {
        d.push(format!(
            "oversold units {:?}, want {:?}",
            got.oversold_units, want.oversold_units
        ));
    }
    match (got.loss, want.loss) {
        (Some(g), Some(w)) if (g - w).abs() < 1e-9 => {}
        (g, w) => d.push(format!("loss {g:?}, want {w:?}")),
    }
    d
}

/// The absolute answer of the canonical incident.
fn expected() -> Answer {
    Answer {
        exit: Some(1),
        overlap_pairs: Some(1),
        overlaps: vec![(
            "lock:sku:1001".into(),
            "tok-A".into(),
            "tok-B".into(),
            "lease_expired".into(),
            200.0,
        )],
        oversold_units: Some(1),
        loss: Some(200.0),
        events: None, // compared against plain.jsonl's own count, not a constant
    }
}

fn plain() -> Answer {
    let got = run("plain.jsonl", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut want = expected();
    want.events = got.events;
    let d = differences(&got, &want);
    assert!(d.is_empty(), "plain.jsonl: {}", d.join("; "));
    assert!(got.events.unwrap_or(0) > 0, "plain.jsonl: no events loaded");
    got
}

/// Runs every case against plain.jsonl's answer; one failure message per file.
fn check(cases: &[Case]) {
    let want = plain();
    let mut failures = Vec::new();
    for c in cases {
        assert!(fixture(c.file).is_file(), "{}: fixture missing", c.file);
        match run(c.file, c.args) {
            Ok(got) => {
                let d = differences(&got, &want);
                if !d.is_empty() {
                    failures.push(format!("{} ({}): {}", c.file, c.source, d.join("; ")));
                }
            }
            Err(e) => failures.push(format!("{e} ({})", c.source)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} samples differ from plain.jsonl:\n  {}",
        failures.len(),
        cases.len(),
        failures.join("\n  ")
    );
}

#[test]
fn plain_is_the_canonical_incident() {
    let p = plain();
    let o = &p.overlaps[0];
    assert_eq!(o.0, "lock:sku:1001");
    assert_eq!((o.1.as_str(), o.2.as_str()), ("tok-A", "tok-B"));
    assert_eq!(o.3, "lease_expired");
    assert!(
        (o.4 - 200.0).abs() <= TOL_MS,
        "plain.jsonl duration {} ms",
        o.4
    );
    assert_eq!(p.oversold_units, Some(1));
    assert_eq!(p.loss, Some(200.0));
    assert_eq!(p.exit, Some(1));
}

#[test]
fn alibaba_cloud_sls() {
    check(&[
        // SLS data model: simple mode puts the raw line in `content`; `__time__` UNIX
        // seconds; tags prefixed `__tag__:`
        // (https://www.alibabacloud.com/help/en/sls/product-overview/log), one JSON
        // object per line as SLS ships JSON (https://www.alibabacloud.com/help/doc-detail/52797.htm)
        Case {
            file: "sls-simple.jsonl",
            args: &[],
            source: "SLS simple mode, JSON Lines",
        },
        // the same, gzip (SLS download jobs: compressionType gzip)
        Case {
            file: "sls-simple.jsonl.gz",
            args: &[],
            source: "SLS simple mode, JSON Lines, gzip",
        },
        // LoongCollector container stdout: line in `content`, container meta as tags
        // (https://open.observability.cn/project/loongcollector/plugins-input-native-input-container-stdio),
        // as a JSON array, newest first as the console lists it
        Case {
            file: "sls-k8s-stdout.json",
            args: &[],
            source: "SLS Kubernetes stdout, JSON array",
        },
        // console "Download Log" CSV of the file logstore, newest first
        Case {
            file: "sls-console.csv",
            args: &[],
            source: "SLS console download, CSV",
        },
        // CreateDownloadJob sink contentType csv, compressionType zstd
        // (https://www.alibabacloud.com/help/en/sls/developer-reference/api-sls-2020-12-30-createdownloadjob)
        Case {
            file: "sls-download-job.csv.zst",
            args: &[],
            source: "SLS download job, CSV, zstd",
        },
    ]);
}

#[test]
fn tencent_cloud_cls() {
    check(&[
        // full text in a single line -> `__CONTENT__`, time = collection time
        // (https://www.tencentcloud.com/document/product/614/32287); reserved fields
        // `__TIMESTAMP__` (ms), `__FILENAME__`, `__SOURCE__`
        // (https://www.tencentcloud.com/document/product/614/38888); CreateExport Format
        // json (default) / csv, Order desc (default)
        // (https://www.tencentcloud.com/document/api/614/42798)
        Case {
            file: "cls-export.jsonl",
            args: &[],
            source: "CLS export, JSON",
        },
        Case {
            file: "cls-export.csv",
            args: &[],
            source: "CLS export, CSV",
        },
    ]);
}

#[test]
fn elasticsearch_filebeat() {
    check(&[
        // Elasticsearch 8 `_search` response (hits.hits[]._source), Filebeat 8 filestream
        // document: `message` = the line, `@timestamp` = harvest time (ms, Z)
        Case {
            file: "elasticsearch-filebeat-search.json",
            args: &[],
            source: "Elasticsearch 8 search hits, Filebeat 8",
        },
        // Elasticsearch 7: every hit carries `"_type": "_doc"` (the mapping type, not the event)
        Case {
            file: "elasticsearch7-filebeat-search.json",
            args: &[],
            source: "Elasticsearch 7 search hits, Filebeat 7",
        },
        // elasticdump --type=data output: one hit (_index, _type, _id, _score, _source) per line
        // (github.com/elasticsearch-dump/elasticsearch-dump)
        Case {
            file: "elasticdump-filebeat.jsonl",
            args: &[],
            source: "elasticdump, Filebeat 7",
        },
    ]);
}

#[test]
fn kibana_and_opensearch_dashboards_csv() {
    check(&[
        // Kibana Reporting "Generate CSV": elastic/kibana
        // src/platform/packages/private/kbn-generate-csv/src/generate_csv.ts (a missing
        // cell is '-', header and cells go through escapeValue: formula chars - + = @
        // prefixed with ', non-alphanumeric values quoted; see the '- cells in
        // __snapshots__/generate_csv.test.ts.snap); dates in dateFormat
        // "MMM D, YYYY @ HH:mm:ss.SSS", browser zone Asia/Shanghai
        Case {
            file: "kibana-discover.csv",
            args: SHANGHAI,
            source: "Kibana Generate CSV, defaults",
        },
        // the same with csv:escapeFormulaValues off: plain "-" cells and "@timestamp" header
        Case {
            file: "kibana-discover-noescape.csv",
            args: SHANGHAI,
            source: "Kibana Generate CSV, escapeFormulaValues off",
        },
        // OpenSearch Dashboards Reporting: opensearch-project/dashboards-reporting
        // server/routes/utils/dataReportHelpers.ts (json-2-csv, emptyFieldValue ' ', eol \n,
        // moment.utc(v).tz(timezone).format(dateFormat))
        Case {
            file: "opensearch-dashboards-report.csv",
            args: SHANGHAI,
            source: "OpenSearch Dashboards Reporting CSV",
        },
    ]);
}

#[test]
fn graylog() {
    check(&[
        // Graylog search export: Graylog2/graylog2-server
        // graylog2-server/src/main/java/org/graylog/plugins/views/search/export/SimpleMessageChunkCsvWriter.java
        // (opencsv CSVWriter defaults: every field quoted; header = fields_in_order), newest first
        Case {
            file: "graylog-search.csv",
            args: &[],
            source: "Graylog search export CSV",
        },
    ]);
}

#[test]
fn grafana_explore_download() {
    check(&[
        // Grafana Explore "Download logs" JSON: grafana/grafana public/app/features/logs/utils.ts
        // logRowsToReadableJson -> [{line, timestamp (ns string), date, fields}], JSON.stringify'd
        Case {
            file: "grafana-explore-logs.json",
            args: &[],
            source: "Grafana Explore download, JSON (Loki)",
        },
    ]);
}

#[test]
fn splunk() {
    check(&[
        // /services/search/jobs/export?output_mode=json: one {"preview","offset","result"} per
        // line (splunk/splunk-sdk-python splunklib/results.py JSONResultsReader)
        Case {
            file: "splunk-export.jsonl",
            args: &[],
            source: "Splunk search/jobs/export, JSON",
        },
        // results?output_mode=json: one document with "results": [...]
        Case {
            file: "splunk-results.json",
            args: &[],
            source: "Splunk results, JSON",
        },
        // Splunk Web "Export results" as CSV, _raw column
        Case {
            file: "splunk-web.csv",
            args: &[],
            source: "Splunk Web export, CSV",
        },
    ]);
}

#[test]
fn aws_cloudwatch_logs() {
    check(&[
        // aws logs filter-log-events: {"events": [FilteredLogEvent], "searchedLogStreams": [...]}
        // (https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_FilterLogEvents.html,
        // .../API_FilteredLogEvent.html)
        Case {
            file: "cloudwatch-filter-log-events.json",
            args: &[],
            source: "aws logs filter-log-events",
        },
        // Logs Insights console "Export results > Download table (CSV)"
        Case {
            file: "cloudwatch-insights.csv",
            args: &[],
            source: "CloudWatch Logs Insights export, CSV",
        },
        // aws logs get-query-results: "results": [[{"field","value"}...]]
        Case {
            file: "cloudwatch-insights-get-query-results.json",
            args: &[],
            source: "aws logs get-query-results",
        },
    ]);
}

#[test]
fn docker_json_file() {
    check(&[
        // {"log": "<line>\n", "stream": "stdout", "time": RFC 3339 ns}
        // (https://docs.docker.com/engine/logging/drivers/json-file/); two containers' files concatenated
        Case {
            file: "docker-json-file.log",
            args: &[],
            source: "Docker json-file driver",
        },
    ]);
}

#[test]
fn journald_json() {
    check(&[
        // journalctl -o json: every value a string, __REALTIME_TIMESTAMP µs as a string
        // (systemd/systemd docs/JOURNAL_EXPORT_FORMATS.md, "Journal JSON Format")
        Case {
            file: "journald-json.jsonl",
            args: &[],
            source: "journalctl -o json",
        },
    ]);
}

#[test]
fn journal_export_format() {
    check(&[
        // journalctl -o export: `FIELD=value` lines, a blank line between entries, a
        // value with a line end written binary-safe (name, line end, 64-bit LE length,
        // bytes) (systemd.io/JOURNAL_EXPORT_FORMATS, "Journal Export Format")
        Case {
            file: "journal-export.journal",
            args: &[],
            source: "journalctl -o export",
        },
    ]);
    let bytes = std::fs::read(fixture("journal-export.journal")).expect("fixture");
    assert!(lockreplay::ingest::looks_compressed(&bytes[..64]));
    let entries = lockreplay::ingest::source_text(bytes).expect("entries as text");
    assert_eq!(entries.lines().count(), 11, "one line per entry");
}

#[test]
fn xml_event_exports() {
    check(&[
        // wevtutil qe Application /f:xml: <Event> elements one after another, the time in
        // System/TimeCreated/@SystemTime (UTC, 100 ns), the fields as EventData/Data/@Name
        // (Microsoft Learn, "Event schema")
        Case {
            file: "windows-events.xml",
            args: &[],
            source: "Windows Event Log, wevtutil /f:xml",
        },
        // log4j 1.2 XMLLayout with properties=true: <log4j:event> elements, no root, the
        // prefix undeclared, timestamp in epoch ms, the MDC as log4j:data name/value
        Case {
            file: "log4j-xmllayout.xml",
            args: &[],
            source: "log4j XMLLayout",
        },
    ]);
}

/// Text no known layout reads, whose structure is found: a record's time where the layout
/// puts it and in its format, records over several lines, pairs in other syntaxes.
#[test]
fn text_whose_structure_is_found() {
    check(&[
        // Microsoft.Extensions.Logging's console, SimpleConsoleFormatter (SingleLine = false,
        // TimestampFormat = "yyyy-MM-dd HH:mm:ss.fff "): the level and category on one line,
        // the message on the next, indented by 6
        Case {
            file: "dotnet-console.log",
            args: SHANGHAI,
            source: ".NET console, two lines a record",
        },
        // golang/glog: the file's header, then `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`
        // (a level letter fused to a date without a year; the year from the file's name)
        Case {
            file: "shop.web-01.app.log.INFO.20261201-070655.4242",
            args: SHANGHAI,
            source: "glog",
        },
        // Erlang/OTP logger_formatter with legacy_header (error_logger's tty format): a blank
        // line, `=INFO REPORT==== 1-Dec-2026::07:06:55.100000 ===`, the report one term a line,
        // `key: <<"value">>`
        Case {
            file: "erlang-error-logger.log",
            args: SHANGHAI,
            source: "Erlang error_logger report",
        },
    ]);
}

/// `__time__` is whole seconds truncated from the app's millisecond time, so the two
/// disagree by less than a second (and by more than nothing on the lines that matter);
/// the overlap must still be 200 ms, measured on the app's time.
#[test]
fn sls_whole_second_time_loses_to_app_milliseconds() {
    let text = std::fs::read_to_string(fixture("sls-simple.jsonl")).expect("sls-simple.jsonl");
    let mut disagree = 0;
    for (n, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let rec: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("sls-simple.jsonl:{}: {e}", n + 1));
        let secs: i64 = rec["__time__"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                panic!(
                    "sls-simple.jsonl:{}: __time__ is not seconds as a string",
                    n + 1
                )
            });
        let app: Value = serde_json::from_str(rec["content"].as_str().expect("content"))
            .unwrap_or_else(|e| {
                panic!(
                    "sls-simple.jsonl:{}: content is not the app's JSON: {e}",
                    n + 1
                )
            });
        let ts = app["ts"].as_str().expect("ts");
        let app_ms = chrono::DateTime::parse_from_rfc3339(ts)
            .unwrap_or_else(|e| panic!("sls-simple.jsonl:{}: ts {ts}: {e}", n + 1))
            .timestamp_millis();
        let diff = app_ms - secs * 1000;
        assert!(
            (0..1000).contains(&diff),
            "sls-simple.jsonl:{}: __time__ {secs} is not ts {ts} truncated",
            n + 1
        );
        if diff != 0 {
            disagree += 1;
        }
    }
    assert!(
        disagree >= 3,
        "sls-simple.jsonl: __time__ should disagree with the app's ms time"
    );

    for file in ["sls-simple.jsonl", "sls-console.csv"] {
        let got = run(file, &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.overlaps.len(), 1, "{file}: overlaps {:?}", got.overlaps);
        let d = got.overlaps[0].4;
        assert!(
            (d - 200.0).abs() <= TOL_MS,
            "{file}: overlap {d} ms, want 200 ms: the whole-second __time__ won over the app's ts"
        );
    }
}

#[test]
fn nested_documents_and_attribute_lists() {
    check(&[
        // OTLP JSON (ExportLogsServiceRequest): resourceLogs[].scopeLogs[].logRecords[], attributes as
        // [{key, value: {stringValue|intValue}}], int64 as strings, timeUnixNano
        // (open-telemetry/opentelemetry-proto examples/logs.json, opentelemetry/proto/logs/v1/logs.proto,
        // common/v1/common.proto AnyValue; https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding).
        // The host is a resource attribute (host.name), not a record attribute.
        Case {
            file: "otlp-logs.json",
            args: &[],
            source: "OTLP JSON logs",
        },
        // The Collector's `file` exporter (opentelemetry-collector-contrib exporter/fileexporter, JSON
        // format): one OTLP JSON request per line, here one record each.
        Case {
            file: "otlp-file-exporter.jsonl",
            args: &[],
            source: "OTLP JSON Lines (Collector file exporter)",
        },
        // Datadog Logs API v2 `POST /api/v2/logs/events/search` response: data[] of {id, type: "log",
        // attributes: {timestamp, host, service, status, message, tags, attributes: {...}}}, links, meta
        // (https://docs.datadoghq.com/api/latest/logs/#search-logs). `type` is "log" on every record and
        // must not be taken for the event field.
        Case {
            file: "datadog-logs-search.json",
            args: &[],
            source: "Datadog logs search API",
        },
    ]);
}

/// Parquet exports, written by the real writers
/// (`tests/sql/make_parquet.py`): ClickHouse's `FORMAT Parquet` through chDB
/// (DateTime64 in UTC, zstd pages) and DuckDB's `COPY ... (FORMAT parquet)`
/// (a naive TIMESTAMP, Snappy pages). Each gives the answer of the JSON
/// Lines it was made from, reads only the columns the roles need, and a
/// damaged file is an error, never "no incident".
#[test]
fn parquet_from_clickhouse_and_duckdb() {
    let pairs = [
        (
            "BR-01",
            "../cases/BR-01-redispy-shared-lock-overrun/inventory-sync.jsonl",
        ),
        (
            "REAL-A",
            "../cases/REAL-A-redispy-no-renewal/a_redispy_lock_no_renewal.app.jsonl",
        ),
    ];
    let mut failures = Vec::new();
    for (name, jsonl) in pairs {
        let want = run(jsonl, &[]).expect("the JSON Lines case runs");
        assert!(
            want.overlap_pairs.unwrap_or(0) > 0,
            "{name}: the case has an overlap"
        );
        for writer in ["clickhouse", "duckdb"] {
            let file = format!("../parquet/{name}.{writer}.parquet");
            match run(&file, &[]) {
                Ok(got) => failures.extend(
                    differences(&got, &want)
                        .into_iter()
                        .map(|d| format!("{file}: {d}")),
                ),
                Err(e) => failures.push(e),
            }
            let text = crate::support::bin()
                .args(["analyze", "--unit-loss", UNIT_LOSS])
                .arg(fixture(&file))
                .output()
                .expect("runs");
            let stdout = String::from_utf8_lossy(&text.stdout);
            let note = stdout
                .lines()
                .find(|l| l.contains("note: Parquet:"))
                .unwrap_or_default();
            let (read, of) = note
                .split_once("; read ")
                .and_then(|(_, r)| r.split_once(" columns"))
                .and_then(|(r, _)| r.split_once(" of "))
                .map(|(a, b)| (a.parse::<u32>().unwrap_or(0), b.parse::<u32>().unwrap_or(0)))
                .unwrap_or((0, 0));
            if !(read > 0 && read < of) {
                failures.push(format!("{file}: not a projected read: {note:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // The window shows a source's raw line n as the ingest read it: for
    // Parquet, row n with every column.
    let bytes = std::fs::read(fixture("../parquet/BR-01.clickhouse.parquet")).expect("fixture");
    assert!(lockreplay::ingest::looks_compressed(&bytes[..64]));
    let rows = lockreplay::ingest::source_text(bytes).expect("rows as text");
    let jsonl = std::fs::read_to_string(fixture(pairs[0].1)).expect("case");
    assert_eq!(rows.lines().count(), jsonl.lines().count());
    let first: Value = serde_json::from_str(rows.lines().next().unwrap_or("")).expect("a JSON row");
    assert!(
        first["request_id"].is_string(),
        "every column, not only the roles': {first}"
    );

    // A Parquet file cut short: its footer is gone, so it is no Parquet,
    // nothing is read, and the load is an error (exit 2) with a reason.
    let dir = std::env::temp_dir().join(format!("lockreplay-parquet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bytes = std::fs::read(fixture("../parquet/BR-01.clickhouse.parquet")).expect("fixture");
    let mut damaged = bytes.clone();
    // Its magic kept at both ends, the footer's length made a lie.
    let n = damaged.len();
    damaged[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let bad = dir.join("damaged.parquet");
    std::fs::write(&bad, &damaged).expect("write");
    let out = crate::support::bin()
        .arg("analyze")
        .arg(&bad)
        .output()
        .expect("runs");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("Parquet"), "the reason names Parquet: {all}");
    let _ = std::fs::remove_dir_all(&dir);
}

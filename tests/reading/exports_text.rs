//! Plain-text log exports: the same 11-event incident as `tests/fixtures/exports/plain.jsonl`,
//! written the way container runtimes, log services and Java logging layouts write it. Every
//! sample must give the answer plain.jsonl gives: one overlap on `lock:sku:1001`, `tok-A`
//! (earlier) against `tok-B`, cause `lease_expired`, 200 ms, 1 oversold unit, loss 200 with
//! `--unit-loss 200`, exit code 1.
//!
//! Where each layout comes from (tool, version, file followed): `tests/fixtures/exports/SOURCES-text.md`;
//! the same source is named above each case below.

use std::path::{Path, PathBuf};

use serde_json::Value;

const TZ: &[&str] = &["--tz", "Asia/Shanghai"];
const NONE: &[&str] = &[];

struct Case {
    /// Files under tests/fixtures/exports/, passed together (one per host when a layout has no host).
    files: &'static [&'static str],
    /// Extra arguments; a mapping path is relative to the exports folder.
    args: &'static [&'static str],
    /// Business lines (stock read, deduction, order) carry neither key nor holder, so the
    /// tool has to tie them to the hold on the same host + pid + thread.
    untied_business_lines: bool,
    /// Prefix of `sources[].encoding` expected for every file of the case.
    encoding: Option<&'static str>,
}

const fn case(files: &'static [&'static str], args: &'static [&'static str], untied: bool) -> Case {
    Case {
        files,
        args,
        untied_business_lines: untied,
        encoding: None,
    }
}

const CASES: &[Case] = &[
    // kubectl logs -l app=shop --timestamps: kubelet's RFC3339NanoFixed UTC prefix
    // (kubernetes/kubernetes pkg/kubelet/kuberuntime/logs/logs.go, timeFormatOut), app JSON lines, pods one after the other.
    case(&["kubectl-json.log"], NONE, false),
    // kubectl logs --timestamps POD, one file per pod, Spring Boot 3.3 console lines
    // (spring-boot v3.3.13 logback/defaults.xml CONSOLE_LOG_PATTERN, spring.application.name=shop).
    case(
        &[
            "kubectl-springboot33.web-01.log",
            "kubectl-springboot33.web-02.log",
        ],
        NONE,
        true,
    ),
    // CRI log file /var/log/pods/...: containerd internal/cri/io/logger.go (time.RFC3339Nano, `stdout F|P`,
    // split at 16 KiB) read by kubelet parseCRILog; Spring Boot 3.0.13 console lines; one line as P + F.
    case(
        &["cri-springboot30.web-01.log", "cri-springboot30.web-02.log"],
        NONE,
        true,
    ),
    // logcli query default output: grafana/loki pkg/logcli/output/default.go (`%s %s %s`, time.RFC3339
    // in Local, labels padded, newest first); Spring Boot 3.3 lines with Chinese messages inside.
    case(&["logcli-default.log"], NONE, true),
    // logcli query --forward --timezone=UTC --output-timestamp-format=rfc3339nano; Log4j2 `%d [%t] %p %c - %m%n` inside.
    case(&["logcli-nano.log"], TZ, true),
    // Grafana Explore > Download > txt: grafana/grafana public/app/features/inspector/utils/download.ts
    // downloadLogsModelAsTxt (current: `epochMs \t ISO \t entry`, meta lines then a blank pair); JSON entries.
    case(&["grafana-explore.txt"], NONE, false),
    // The same download from an older download.ts: `dateTimeFormat(ms, { defaultWithMS: true }) \t entry`
    // (browser-local `YYYY-MM-DD HH:mm:ss.SSS`, no offset).
    case(&["grafana-explore-legacy.txt"], TZ, false),
    // journalctl -o short-iso, older systemd src/shared/logs-show.c (`%Y-%m-%dT%H:%M:%S%z`, whole seconds):
    // the Spring Boot 2.7 console line inside carries milliseconds, and they must win.
    case(&["journalctl-short-iso.log"], TZ, true),
    // journalctl -o short-iso-precise, current logs-show.c (`.%06u` then `%+03d:%02d`); Logback TTLLLayout
    // lines inside (time of day only: the date comes from journald's prefix).
    case(&["journalctl-short-iso-precise.log"], NONE, true),
    // Spring Boot 2.7.18 FILE_LOG_PATTERN (logback/defaults.xml), one file per host, naive local times.
    case(
        &["springboot2-file.web-01.log", "springboot2-file.web-02.log"],
        TZ,
        true,
    ),
    // Spring Boot 2.7.18 CONSOLE_LOG_PATTERN on Windows: GBK bytes, CRLF, Chinese messages, one file per host.
    Case {
        files: &["springboot2-gbk.web-01.log", "springboot2-gbk.web-02.log"],
        args: TZ,
        untied_business_lines: true,
        encoding: Some("GB"),
    },
    // Spring Boot 3.3.13 FILE_LOG_PATTERN (`%applicationName[%t]`), one file per host.
    case(
        &[
            "springboot33-file.web-01.log",
            "springboot33-file.web-02.log",
        ],
        NONE,
        true,
    ),
    // Logback documented pattern `%date [%thread] %-5level %logger - %msg%n`
    // (qos-ch/logback logback-examples/src/main/resources/chapters/appenders/countingConsole.xml; %date = ISO8601 `yyyy-MM-dd HH:mm:ss,SSS`).
    case(
        &["logback-dated.web-01.log", "logback-dated.web-02.log"],
        TZ,
        true,
    ),
    // Log4j2 documented pattern `%d [%t] %p %c - %m%n`
    // (apache/logging-log4j2 src/site/antora/modules/ROOT/examples/manual/appenders/console-dev.xml; %d = DEFAULT `yyyy-MM-dd HH:mm:ss,SSS`).
    case(
        &["log4j2-dated.web-01.log", "log4j2-dated.web-02.log"],
        TZ,
        true,
    ),
    // Lines with a header before a JSON object or logfmt pairs: each header from its
    // project's documentation or source, named in SOURCES-text.md and src/ingest/framing/header.rs.
    // fluent/fluentd-docs-gitbook plugins/formatter/out_file.md: `time<TAB>tag<TAB>record`, ISO 8601 seconds.
    case(&["fluentd-out-file.log"], NONE, false),
    // ruby/ruby lib/logger/formatter.rb: `%s, [%s#%d] %5s -- %s: %s`, `%Y-%m-%dT%H:%M:%S.%6N ` naive time.
    case(&["ruby-logger.log"], NONE, false),
    // Seldaek/monolog LineFormatter SIMPLE_FORMAT `[%datetime%] %channel%.%level_name%: %message% %context% %extra%`:
    // the time only in the prefix, the event only in the message words, key/holder/TTL only in the context.
    case(&["monolog.log"], NONE, false),
    // RFC 5424 §6 header (`<PRI>1 TIMESTAMP HOST APP PROCID MSGID SD`), SD `-` and `[meta sequenceId=..]`, JSON message.
    case(&["syslog-rfc5424.log"], NONE, false),
    // RFC 5424 header with a logfmt message.
    case(&["syslog-rfc5424-logfmt.log"], NONE, false),
    // RFC 3164 §4.1 header (`<PRI>Mmm dd hh:mm:ss HOST TAG[pid]: `, no year), JSON message.
    case(&["syslog-rfc3164.log"], NONE, false),
    // A team's own layout and wording, read through a mapping file (time_format, line_regex, [messages]; tz in the mapping).
    case(
        &["custom-team.log"],
        &["--mapping", "custom.mapping.toml"],
        true,
    ),
];

/// Layouts whose default writes the time of day only (no date): read with the mapping's date, or
/// on an assumed one said in a note.
/// The date of a time-of-day-only file, from a mapping (`date = "2026-12-01"`, with its zone).
const DATE: &[&str] = &["--mapping", "date.mapping.toml"];

const TIME_OF_DAY_ONLY: &[Case] = &[
    // Logback BasicConfigurator default: TTLLLayout `HH:mm:ss.SSS [thread] LEVEL logger -- msg`
    // (qos-ch/logback logback-classic/.../classic/layout/TTLLLayout.java).
    case(
        &["logback-ttll.web-01.log", "logback-ttll.web-02.log"],
        DATE,
        true,
    ),
    // Log4j2 DefaultConfiguration.DEFAULT_PATTERN `%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg%n`
    // (apache/logging-log4j2 log4j-core/.../config/DefaultConfiguration.java; needs -Dlog4j2.level=INFO to show INFO).
    case(
        &["log4j2-default.web-01.log", "log4j2-default.web-02.log"],
        DATE,
        true,
    ),
];

fn exports(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/exports")
        .join(file)
}

struct Run {
    code: Option<i32>,
    report: Result<Value, String>,
    stderr: String,
}

fn analyze(files: &[&str], args: &[&str]) -> Run {
    let mut cmd = crate::support::bin();
    cmd.args(["analyze", "--format", "json", "--unit-loss", "200"]);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        cmd.arg(a);
        if *a == "--mapping" {
            let m = it.next().expect("--mapping needs a file");
            cmd.arg(exports(m));
        }
    }
    cmd.args(files.iter().map(|f| exports(f)));
    let out = cmd.output().expect("run lockreplay");
    Run {
        code: out.status.code(),
        report: serde_json::from_slice(&out.stdout).map_err(|e| {
            format!(
                "stdout is not JSON ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        }),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Milliseconds since the epoch of an RFC 3339 time (`...T...(.frac)(Z|±hh:mm)`).
fn instant_ms(s: &str) -> Option<f64> {
    let (date, rest) = s.split_once('T')?;
    let mut d = date.split('-').map(|x| x.parse::<i64>().ok());
    let (y, mo, da) = (d.next()??, d.next()??, d.next()??);
    let split = rest.find(['Z', 'z', '+', '-'])?;
    let (clock, zone) = rest.split_at(split);
    let offset_min = match zone {
        "Z" | "z" => 0,
        z => {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            let (h, m) = z[1..].split_once(':')?;
            sign * (h.parse::<i64>().ok()? * 60 + m.parse::<i64>().ok()?)
        }
    };
    let mut c = clock.split(':');
    let (h, mi, sec) = (
        c.next()?.parse::<i64>().ok()?,
        c.next()?.parse::<i64>().ok()?,
        c.next()?,
    );
    let sec: f64 = sec.parse().ok()?;
    // days from civil (Howard Hinnant)
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if mo > 2 { mo - 3 } else { mo + 9 }) + 2) / 5 + da - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 - offset_min * 60;
    Some(secs as f64 * 1000.0 + sec * 1000.0)
}

fn get<'a>(v: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(v, |v, k| match k.parse::<usize>() {
        Ok(i) => &v[i],
        Err(_) => &v[k],
    })
}

/// The facts compared between a sample and plain.jsonl.
fn products(r: &Value) -> Vec<String> {
    let mut p: Vec<String> = get(r, "products")
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            format!(
                "{} initial={} sold={} oversold={} final={}",
                p["product"], p["initial_stock"], p["sold"], p["oversold_units"], p["final_stock"]
            )
        })
        .collect();
    p.sort();
    p
}

fn orders(r: &Value) -> Vec<String> {
    let mut o: Vec<String> = get(r, "incidents.0.orders")
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| {
            format!(
                "{} by {} oversold={}",
                o["order_id"], o["holder"], o["oversold_units"]
            )
        })
        .collect();
    o.sort();
    o
}

/// What differs from the expected answer (absolute values, and the plain.jsonl report when given).
fn differences(run: &Run, plain: Option<&Value>) -> Vec<String> {
    let mut d = Vec::new();
    if run.code != Some(1) {
        d.push(format!(
            "exit code {:?}, expected 1 (incidents found)",
            run.code
        ));
    }
    let r = match &run.report {
        Ok(r) => r,
        Err(e) => {
            d.push(e.clone());
            return d;
        }
    };
    let mut want = |path: &str, expected: Value| {
        let got = get(r, path);
        let same = match (got.as_f64(), expected.as_f64()) {
            (Some(a), Some(b)) => (a - b).abs() < 1e-9,
            _ => *got == expected,
        };
        if !same {
            d.push(format!("{path} = {got}, expected {expected}"));
        }
    };
    want("summary.incidents", 1.into());
    want("summary.overlap_pairs", 1.into());
    want("summary.oversold_units", 1.into());
    want("summary.loss.amount", 200.into());
    want("summary.warnings", 0.into());
    want("incidents.0.key", "lock:sku:1001".into());
    want("incidents.0.cause", "lease_expired".into());
    want("incidents.0.oversold_units", 1.into());
    want("incidents.0.overlaps.0.key", "lock:sku:1001".into());
    want("incidents.0.overlaps.0.earlier", "tok-A".into());
    want("incidents.0.overlaps.0.later", "tok-B".into());
    want("incidents.0.overlaps.0.cause", "lease_expired".into());
    let n = get(r, "incidents.0.overlaps")
        .as_array()
        .map_or(0, Vec::len);
    if n != 1 {
        d.push(format!("incidents[0].overlaps has {n} entries, expected 1"));
    }
    match get(r, "incidents.0.overlaps.0.duration_ms").as_f64() {
        Some(ms) if (ms - 200.0).abs() <= 1.0 => {}
        other => d.push(format!(
            "incidents[0].overlaps[0].duration_ms = {other:?}, expected 200 ± 1"
        )),
    }
    if let Some(p) = plain {
        let got = get(r, "summary.events");
        if got != get(p, "summary.events") {
            d.push(format!(
                "summary.events = {got}, plain.jsonl has {}",
                get(p, "summary.events")
            ));
        }
        for path in ["incidents.0.overlaps.0.start", "incidents.0.overlaps.0.end"] {
            let (g, w) = (get(r, path), get(p, path));
            match (
                g.as_str().and_then(instant_ms),
                w.as_str().and_then(instant_ms),
            ) {
                (Some(a), Some(b)) if (a - b).abs() <= 1.0 => {}
                _ => d.push(format!(
                    "{path} = {g}, plain.jsonl has {w} (not the same instant ± 1 ms)"
                )),
            }
        }
        if orders(r) != orders(p) {
            d.push(format!(
                "incidents[0].orders = {:?}, plain.jsonl has {:?}",
                orders(r),
                orders(p)
            ));
        }
        if products(r) != products(p) {
            d.push(format!(
                "products = {:?}, plain.jsonl has {:?}",
                products(r),
                products(p)
            ));
        }
    }
    d
}

fn plain_report() -> Value {
    let run = analyze(&["plain.jsonl"], NONE);
    let d = differences(&run, None);
    assert!(
        d.is_empty(),
        "plain.jsonl: {}\nstderr: {}",
        d.join("; "),
        run.stderr
    );
    run.report.expect("plain.jsonl gives a JSON report")
}

fn check_all(cases: &[Case]) {
    let plain = plain_report();
    let mut failures = Vec::new();
    for c in cases {
        let run = analyze(c.files, c.args);
        let mut d = differences(&run, Some(&plain));
        if let (Some(prefix), Ok(r)) = (c.encoding, &run.report) {
            for s in get(r, "sources").as_array().into_iter().flatten() {
                let enc = s["encoding"].as_str().unwrap_or("");
                if !enc.to_ascii_uppercase().starts_with(prefix) {
                    d.push(format!(
                        "sources[{}].encoding = {enc:?}, expected {prefix}*",
                        s["file"]
                    ));
                }
            }
        }
        if !d.is_empty() {
            failures.push(format!(
                "{} {}:\n    {}\n    stderr: {}",
                c.files.join(" + "),
                c.args.join(" "),
                d.join("\n    "),
                run.stderr.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} samples differ from plain.jsonl:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn plain_jsonl_gives_the_canonical_answer() {
    plain_report();
}

#[test]
fn every_text_sample_gives_the_answer_of_plain_jsonl() {
    check_all(CASES);
}

/// Times of day alone read with the date a mapping gives.
#[test]
fn time_of_day_only_samples_with_a_mapped_date() {
    check_all(TIME_OF_DAY_ONLY);
}

/// Without that date (no mapping, no date in the file's name, no line with a date) the times are
/// read on an assumed date, today's, which a note on each source says with how to give another;
/// the incident is the one the mapped date gives.
#[test]
fn time_of_day_only_samples_without_a_date_read_on_an_assumed_date_said_in_a_note() {
    for c in TIME_OF_DAY_ONLY {
        let run = analyze(c.files, TZ);
        assert_eq!(run.code, Some(1), "{:?}: {}", c.files, run.stderr);
        let report = run.report.expect("a JSON report");
        let mapped = analyze(c.files, c.args).report.expect("a JSON report");
        assert_eq!(
            report["summary"]["incidents"], mapped["summary"]["incidents"],
            "{:?}",
            c.files
        );
        for s in report["sources"].as_array().expect("sources") {
            let notes = s["notes"].to_string();
            assert!(
                notes.contains("times carry no date: read on") && notes.contains("assumed"),
                "{notes}"
            );
        }
    }
}

/// Where the stock and order lines carry no key and no holder, the report says how they were tied
/// to a hold: a note on the source naming the thread.
#[test]
fn the_report_says_how_business_lines_were_tied() {
    let mut failures = Vec::new();
    for c in CASES.iter().filter(|c| c.untied_business_lines) {
        let run = analyze(c.files, c.args);
        let notes: Vec<String> = run
            .report
            .as_ref()
            .ok()
            .and_then(|r| r["sources"].as_array().cloned())
            .into_iter()
            .flatten()
            .flat_map(|s| s["notes"].as_array().cloned().unwrap_or_default())
            .filter_map(|n| n.as_str().map(str::to_owned))
            .collect();
        let tied = notes.iter().any(|n| {
            let n = n.to_lowercase();
            n.contains("tied") && n.contains("thread")
        });
        if !tied {
            failures.push(format!(
                "{}: no sources[].notes entry with \"tied\" and \"thread\"; notes: {notes:?}",
                c.files.join(" + ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

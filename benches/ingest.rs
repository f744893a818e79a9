//! Criterion benchmarks for the parts of `lockreplay analyze`:
//! reading JSON Lines (the parallel streaming path and the general serial
//! path), parsing timestamps, and the analysis over a loaded log. The whole
//! program against `wc -l`, DuckDB and pandas is `bench/run.sh`.

use std::hint::black_box;
use std::io::Write;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lockreplay::analysis::{Settings, analyze};
use lockreplay::ingest::{IngestOptions, Progress, load_paths, parse_time, read_source};
use lockreplay::model::LogBuilder;

/// `n` app-style lines like `bench/gen_jsonl.py` writes (one hold is five
/// lines; ~300 bytes a line; 1 hold in 200 overruns its TTL).
fn log_lines(n: usize) -> String {
    let mut out = String::with_capacity(n * 330);
    let keys = (n / 100).clamp(10, 10_000);
    let mut hold = 0usize;
    while hold * 5 < n {
        let k = hold % keys;
        let t = hold / keys * 40 + (hold * 7) % 30;
        let stall = hold % 200 == 199;
        let host = hold % 50;
        let owner = format!(
            "{hold:016x}{:016x}",
            hold.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        );
        let rows: [(usize, &str, String); 5] = [
            (t, "acquired", "\"ttl_ms\": 2000, \"waited_ms\": 1".into()),
            (
                t + 1,
                "stock_read",
                format!("\"sku\": \"SKU-{k}\", \"stock\": 100"),
            ),
            (
                t + 2 + if stall { 2100 } else { 0 },
                "stock_deducted",
                format!(
                    "\"sku\": \"SKU-{k}\", \"quantity\": 1, \"stock_before\": 100, \"stock_after\": 99"
                ),
            ),
            (
                t + 3 + if stall { 2100 } else { 0 },
                "order_created",
                format!("\"sku\": \"SKU-{k}\", \"quantity\": 1, \"order_id\": \"SO{hold:012}\""),
            ),
            (
                t + 4 + if stall { 2100 } else { 0 },
                "released",
                "\"deleted\": 1, \"elapsed_ms\": 0.5".into(),
            ),
        ];
        for (ms, event, extra) in rows {
            out.push_str(&format!(
                "{{\"ts\": \"2026-11-29T09:{:02}:{:02}.{:03}+08:00\", \"level\": \"INFO\", \"event\": \"{event}\", \
                 \"host\": \"order-api-{host:02}\", \"logger\": \"shop.flashsale.OrderService\", \"pid\": {}, \
                 \"thread\": \"order-worker-{:02}\", \"lock_key\": \"product:{k}:lock\", \"owner\": \"{owner}\", \
                 \"request_id\": \"{host}-{hold:012x}\", {extra}}}\n",
                (ms / 60_000) % 60, (ms / 1000) % 60, ms % 1000, 1000 + host, hold % 16
            ));
        }
        hold += 1;
    }
    out
}

/// The same lines as Alibaba Cloud SLS exports them in simple mode: the
/// application's line as a string in `content`, `__time__` in seconds.
fn sls_content(plain: &str) -> String {
    let mut out = String::with_capacity(plain.len() * 3 / 2);
    for (i, line) in plain.lines().enumerate() {
        let content = serde_json::to_string(line).expect("string");
        out.push_str(&format!(
            "{{\"__time__\":\"{}\",\"__source__\":\"10.0.0.{}\",\"__tag__:__hostname__\":\"node-{}\",\"content\":{content}}}\n",
            1_796_000_000 + i / 1000,
            i % 250,
            i % 50
        ));
    }
    out
}

/// The same events as Spring Boot 2 text lines (`docs/ingest.md`, "Text
/// lines"): the lock lines name key and token, the business lines only the
/// thread.
fn spring_boot(plain: &str) -> String {
    let mut out = String::with_capacity(plain.len());
    for line in plain.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
        let ts = s("ts");
        let time = format!("{} {}", &ts[..10], &ts[11..23]);
        let msg = match s("event").as_str() {
            "acquired" => format!(
                "acquired lock key={} token={} ttl=2000ms",
                s("lock_key"),
                s("owner")
            ),
            "released" => format!("released lock key={} token={}", s("lock_key"), s("owner")),
            "stock_read" => format!("stock read sku={} stock=100", s("sku")),
            "stock_deducted" => format!("stock deducted sku={} qty=1 stockAfter=99", s("sku")),
            _ => format!(
                "order created orderId={} sku={} qty=1",
                s("order_id"),
                s("sku")
            ),
        };
        out.push_str(&format!(
            "{time}  INFO {} --- [{:>15}] c.e.shop.flashsale.OrderService          : {msg} host={}\n",
            v["pid"],
            s("thread"),
            s("host")
        ));
    }
    out
}

fn benches(c: &mut Criterion) {
    let n = 100_000;
    let text = log_lines(n);
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(text.as_bytes()).expect("write");
    let paths = [file.path().to_path_buf()];
    let opts = IngestOptions::default();

    let mut g = c.benchmark_group("ingest_100k_events");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(10);
    g.bench_function("load_paths (parallel fast path)", |b| {
        b.iter(|| load_paths(black_box(&paths), &opts, &Progress::default()).expect("load"))
    });
    g.bench_function("read_source (general serial path)", |b| {
        b.iter(|| {
            let mut builder = LogBuilder::new();
            read_source(
                "bench.jsonl",
                text.as_bytes(),
                &opts,
                &mut builder,
                &Progress::default(),
            )
            .expect("read");
            builder.finish()
        })
    });
    g.finish();

    // The same events in the shapes of real exports: per line they
    // should cost at most 2x the plain JSON Lines path above.
    let mut g = c.benchmark_group("ingest_100k_events_exports");
    g.sample_size(10);
    for (name, shaped) in [
        ("SLS content JSON", sls_content(&text)),
        ("Spring Boot text", spring_boot(&text)),
    ] {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        f.write_all(shaped.as_bytes()).expect("write");
        let p = [f.path().to_path_buf()];
        let log = load_paths(&p, &opts, &Progress::default()).expect("load");
        assert!(
            log.events.len() >= n * 9 / 10,
            "{name}: {} events",
            log.events.len()
        );
        g.bench_function(format!("load_paths ({name})"), |b| {
            b.iter(|| load_paths(black_box(&p), &opts, &Progress::default()).expect("load"))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("time");
    g.bench_function("parse_time rfc3339 +08:00", |b| {
        b.iter(|| parse_time(black_box("2026-11-29T16:10:39.627+08:00"), None))
    });
    g.finish();

    let log = load_paths(&paths, &opts, &Progress::default()).expect("load");
    let settings = Settings::default();
    let mut g = c.benchmark_group("analysis_100k_events");
    g.throughput(Throughput::Elements(log.events.len() as u64));
    g.sample_size(10);
    g.bench_function("analyze", |b| {
        b.iter(|| analyze(black_box(&log), &settings))
    });
    g.finish();
}

criterion_group!(ingest, benches);
criterion_main!(ingest);

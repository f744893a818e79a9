//! Tests of the infrastructure readers on the captured samples in
//! `tests/fixtures/infra/` (tests/fixtures/infra/README.md says how each was
//! made).

use super::*;
use crate::model::{EvidenceKind as K, LoadedLog};

fn read_fixture(rel: &str) -> LoadedLog {
    let path = format!("{}/tests/fixtures/infra/{rel}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("fixture");
    let kind = detect(&text).expect("detected as infrastructure");
    let mut b = LogBuilder::new();
    let mut info = SourceInfo::new(rel, Dialect::Unknown);
    read(kind, &text, 0, None, &mut b, &mut info);
    assert_eq!(
        info.lines_read,
        info.lines_skipped + info.lines_warned,
        "{rel}: every line accounted for"
    );
    assert_eq!(info.evidence_items as usize, b.log.evidence.len());
    b.add_source(info);
    b.finish()
}

fn utc(s: &str) -> i64 {
    crate::ingest::parse_time(s, None).expect("time").0
}

#[test]
fn sentinel_leader_log_gives_the_failover_and_its_steps() {
    let log = read_fixture("failover/sentinel-3.log");
    let sw: Vec<_> = log
        .evidence
        .iter()
        .filter(|e| e.kind == K::Failover)
        .collect();
    assert_eq!(sw.len(), 1);
    assert_eq!(sw[0].at_ns, utc("2026-12-03T16:34:20.462Z"));
    assert_eq!(sw[0].host.as_deref(), Some("127.0.0.1:27002"));
    assert!(sw[0].what.starts_with("+switch-master mymaster"));
    assert!(
        log.evidence
            .iter()
            .any(|e| e.kind == K::Promoted && e.what.starts_with("+promoted-slave"))
    );
    let steps = log
        .evidence
        .iter()
        .filter(|e| e.kind == K::Sentinel)
        .count();
    assert!(
        steps >= 5,
        "sdown, odown, try-failover, elected-leader, selected-slave...: {steps}"
    );
    assert_eq!(log.warnings.total(), 0);
}

#[test]
fn redis_server_log_gives_restart_shutdown_and_promotion() {
    let log = read_fixture("restart/redis-server.log");
    let starts: Vec<i64> = log
        .evidence
        .iter()
        .filter(|e| e.kind == K::Restart)
        .map(|e| e.at_ns)
        .collect();
    assert_eq!(
        starts,
        vec![
            utc("2026-12-03T16:34:38.000Z"),
            utc("2026-12-03T16:34:39.668Z")
        ]
    );
    // SIGTERM's line and "User requested shutdown" of one stop are one shutdown.
    let stops = log
        .evidence
        .iter()
        .filter(|e| e.kind == K::Shutdown)
        .count();
    assert_eq!(stops, 2);
    let replica = read_fixture("failover/redis-27002.log");
    let p = replica
        .evidence
        .iter()
        .find(|e| e.kind == K::Promoted)
        .expect("MASTER MODE enabled");
    assert_eq!(p.at_ns, utc("2026-12-03T16:34:19.556Z"));
    assert!(
        replica
            .evidence
            .iter()
            .any(|e| e.kind == K::Replication && e.what.starts_with("Connection with master lost"))
    );
}

#[test]
fn jvm_gc_log_gives_pauses_with_their_length_and_no_double_safepoint() {
    let log = read_fixture("gc-pause/gc-web-01.log");
    let full = log
        .evidence
        .iter()
        .find(|e| e.what.contains("Pause Full (System.gc())"))
        .expect("the full GC");
    assert_eq!(full.kind, K::GcPause);
    assert_eq!(full.end_ns, Some(utc("2026-12-03T16:48:02.730Z")));
    assert_eq!(full.length_ms().map(|m| m.round()), Some(3968.0));
    assert_eq!(full.host.as_deref(), Some("web-01"));
    assert_eq!(full.source.line, 41);
    // Every safepoint of this log is a GC pause already listed.
    assert!(!log.evidence.iter().any(|e| e.kind == K::Safepoint));
}

#[test]
fn jdk_8_gc_logs_give_stop_the_world_events_from_their_date_stamp() {
    let log = read_fixture("gc-pause-jdk8/gc-web-01.log");
    let full = log
        .evidence
        .iter()
        .find(|e| e.what.contains("Full GC (System.gc())"))
        .expect("the full GC");
    assert_eq!(full.at_ns, utc("2026-12-03T16:47:58.761Z"));
    assert_eq!(full.length_ms().map(|m| m.round()), Some(3968.0));
    assert_eq!(full.source.line, 7);
    // The young pause; the concurrent mark and both stopped-time lines
    // (each the pause just listed) are not listed.
    assert_eq!(log.evidence.len(), 2, "{:?}", log.evidence);
    // G1's and CMS's pause lines; concurrent phases are none.
    let text = "2024-11-11T00:00:01.000+0800: 1.0: [GC pause (G1 Evacuation Pause) (young), 0.0123450 secs]\n\
                   [Parallel Time: 11.2 ms, GC Workers: 4]\n\
                2024-11-11T00:00:02.000+0800: 2.0: [GC concurrent-root-region-scan-start]\n\
                2024-11-11T00:00:03.000+0800: 3.0: [GC remark 2024-11-11T00:00:03.000+0800: 3.0: [Finalize Marking, 0.0001 secs], 0.0050000 secs]\n\
                2024-11-11T00:00:04.000+0800: 4.0: [CMS-concurrent-sweep: 0.100/0.100 secs] [Times: user=0.1 sys=0.0, real=0.10 secs]\n";
    assert_eq!(detect(text), Some(InfraKind::Jdk8Gc));
    let mut b = LogBuilder::new();
    let mut info = SourceInfo::new("gc.log", Dialect::Unknown);
    read(InfraKind::Jdk8Gc, text, 0, None, &mut b, &mut info);
    let lengths: Vec<i64> = b
        .log
        .evidence
        .iter()
        .filter_map(|e| e.end_ns.map(|end| (end - e.at_ns) / 1_000_000))
        .collect();
    assert_eq!(lengths, vec![12, 5]);
}

#[test]
fn go_gctrace_with_collector_times_gives_stop_the_world_spans() {
    let log = read_fixture("runtime/gctrace-api-01.log");
    assert_eq!(log.evidence.len(), 4);
    let g2 = &log.evidence[1];
    assert_eq!(g2.kind, K::GcPause);
    // 0.006 + 1.5 ms stop the world.
    assert_eq!(g2.end_ns.map(|e| e - g2.at_ns), Some(1_506_000));
    assert_eq!(g2.host.as_deref(), Some("gctrace-api-01"));
}

#[test]
fn slowlog_and_latency_replies_give_slow_commands() {
    let log = read_fixture("slowlog/slowlog.txt");
    assert_eq!(log.evidence.len(), 2);
    let sleep = log
        .evidence
        .iter()
        .find(|e| e.what.contains("debug sleep 0.35"))
        .expect("DEBUG SLEEP");
    assert_eq!(sleep.kind, K::SlowCommand);
    assert_eq!(sleep.end_ns, Some(1_796_316_508 * 1_000_000_000));
    assert_eq!(sleep.length_ms(), Some(350.145));
    assert_eq!(sleep.source.line, 9);
    let latest = read_fixture("slowlog/latency-latest.txt");
    assert_eq!(latest.evidence[0].length_ms(), Some(350.0));
    let history = read_fixture("slowlog/latency-history.txt");
    assert_eq!(history.evidence[0].length_ms(), Some(350.0));
}

#[test]
fn an_application_log_is_not_infrastructure() {
    let app = std::fs::read_to_string(format!(
        "{}/tests/fixtures/infra/failover/app.json.log",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture");
    assert_eq!(detect(&app), None);
    assert_eq!(
        detect("2026-12-03 10:00:00 INFO acquired lock:x owner=a\n"),
        None
    );
}

#[test]
fn host_of_file_strips_gc_and_extensions() {
    assert_eq!(host_of_file("logs/gc-web-01.log"), "web-01");
    assert_eq!(host_of_file("web-01.gc.log"), "web-01");
    assert_eq!(host_of_file("sentinel-1.log"), "sentinel-1");
}

#[test]
fn kubernetes_events_give_a_redis_pod_restart_and_context() {
    let log = read_fixture("events/kube-events.json");
    let kinds: Vec<(K, Option<&str>)> = log
        .evidence
        .iter()
        .map(|e| (e.kind, e.host.as_deref()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (K::Restart, Some("redis-0")),
            (K::PodEvent, Some("web-01")),
            (K::PodEvent, Some("node-3")),
        ],
        "Pulled is not evidence"
    );
    assert_eq!(log.evidence[0].at_ns, utc("2026-12-03T08:12:11Z"));
    assert_eq!(log.evidence[0].source.line, 8);
}

#[test]
fn operator_log_words_become_kinds() {
    let log = read_fixture("events/operator.log");
    let kinds: Vec<K> = log.evidence.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        vec![
            K::Deploy,
            K::Failover,
            K::Promoted,
            K::Failover,
            K::Deploy,
            K::Restart,
            K::Flush
        ]
    );
}

#[test]
fn a_pid_in_a_gc_log_name_is_its_process_and_a_bare_number_is_not() {
    use super::pid_of_file;
    assert_eq!(pid_of_file("logs/gc-pid4242.log"), Some("4242".into()));
    assert_eq!(pid_of_file("java_pid31616.log"), Some("31616".into()));
    assert_eq!(pid_of_file("gc.log.pid77"), Some("77".into()));
    assert_eq!(pid_of_file("redis-6379.log"), None);
    assert_eq!(pid_of_file("gc-web-01.log"), None);
    assert_eq!(pid_of_file("pid.log"), None);
}

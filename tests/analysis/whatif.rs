//! The what-if (docs/semantics.md §10) on the seed flash sale,
//! the handed cases and hand-made logs: what each policy saves, and the
//! `whatif` command and report section as a user runs them.

use std::path::{Path, PathBuf};
use std::process::Command;

use lockreplay::analysis::Settings;
use lockreplay::ingest::{CacheConfig, IngestOptions};
use lockreplay::pipeline::{AnalyzedLog, load_and_analyze};
use lockreplay::whatif::{Outcome, Policy, WhatIf, what_if};

use crate::support;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn seed() -> PathBuf {
    root().join("sample-logs/seed-incident.jsonl")
}

fn load(files: &[PathBuf]) -> AnalyzedLog {
    let settings = Settings {
        unit_loss: Some(200.0),
        ..Settings::default()
    };
    load_and_analyze(
        files,
        &IngestOptions::default(),
        &CacheConfig::off(),
        settings,
    )
    .expect("load")
}

fn run(loaded: &AnalyzedLog, policies: &[Policy], wait_limit_ms: Option<i64>) -> WhatIf {
    what_if(
        &loaded.log,
        &loaded.analysis,
        &loaded.settings,
        policies,
        wait_limit_ms,
    )
}

fn one(loaded: &AnalyzedLog, policy: Policy) -> Outcome {
    let w = run(loaded, &[policy], None);
    w.policies.into_iter().next().expect("one outcome")
}

#[test]
fn the_seed_replayed_as_logged_gives_what_happened() {
    let loaded = load(&[seed()]);
    let w = run(&loaded, &[], None);
    assert_eq!(w.actual.overlap_pairs, 11);
    assert_eq!(w.actual.oversold_units, 3);
    assert_eq!(w.as_logged.overlap_pairs, 11);
    assert_eq!(w.as_logged.oversold_units, 3);
    assert!(w.model_matches());
    assert_eq!(w.as_logged.longest_wait_ms, 0.0, "nobody waits as logged");
}

#[test]
fn the_seed_with_a_watchdog_oversells_nothing() {
    let loaded = load(&[seed()]);
    let o = one(
        &loaded,
        Policy {
            watchdog: true,
            ..Policy::default()
        },
    );
    assert_eq!(o.oversold_units, 0);
    assert_eq!(o.loss, lockreplay::money::Loss::Known(0.0));
    assert_eq!(o.overlap_pairs, 0);
    // Serialised behind 3 s supplier pages, someone waits seconds.
    assert!(o.longest_wait_ms > 1000.0, "{}", o.longest_wait_ms);
    assert_eq!(o.timed_out, 0);
}

#[test]
fn a_ttl_above_the_longest_hold_saves_the_sale_one_below_does_not() {
    let loaded = load(&[seed()]);
    let longest_ms = loaded
        .analysis
        .leases
        .iter()
        .map(|l| l.hold_ms())
        .fold(0.0, f64::max);
    assert!(longest_ms > 2000.0, "the seed's slow holds outlive the TTL");
    let above = one(
        &loaded,
        Policy {
            ttl_ms: Some(longest_ms.ceil() as i64 + 1),
            ..Policy::default()
        },
    );
    assert_eq!(above.overlap_pairs, 0);
    assert_eq!(above.oversold_units, 0);
    let below = one(
        &loaded,
        Policy {
            ttl_ms: Some(2500),
            ..Policy::default()
        },
    );
    assert!(below.overlap_pairs > 0);
    assert!(below.oversold_units > 0, "{below:?}");
}

#[test]
fn fencing_alone_sells_nothing_extra_but_keeps_every_overlap() {
    let loaded = load(&[seed()]);
    let o = one(
        &loaded,
        Policy {
            fencing: true,
            ..Policy::default()
        },
    );
    assert_eq!(o.oversold_units, 0);
    assert_eq!(o.overlap_pairs, loaded.analysis.summary.overlap_pairs);
    assert!(o.rejected_writes > 0);
}

/// A lease-expiry overlap: A (TTL 1 s) works 3 s; B acquires at 1.5 s.
fn expiry_log(dir: &Path) -> PathBuf {
    let path = dir.join("expiry.jsonl");
    let line = |ms: u32, event: &str, owner: &str| {
        format!(
            "{{\"ts\": \"2026-01-01T00:00:{:02}.{:03}Z\", \"event\": \"{event}\", \"lock_key\": \"k\", \"owner\": \"{owner}\", \"ttl_ms\": 1000}}\n",
            ms / 1000,
            ms % 1000
        )
    };
    let text = [
        line(0, "acquired", "A"),
        line(1500, "acquired", "B"),
        line(1800, "released", "B"),
        line(3000, "release_failed", "A"),
    ]
    .concat();
    std::fs::write(&path, text).expect("write");
    path
}

#[test]
fn an_owner_checked_release_alone_does_not_stop_a_lease_expiry_overlap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let loaded = load(&[expiry_log(dir.path())]);
    assert_eq!(loaded.analysis.summary.overlap_pairs, 1);
    let checked = one(
        &loaded,
        Policy {
            owner_check: true,
            ..Policy::default()
        },
    );
    assert_eq!(checked.overlap_pairs, 1);
    // The same on the seed, whose overlaps are all lease expiries.
    let seed = load(&[seed()]);
    let checked = one(
        &seed,
        Policy {
            owner_check: true,
            ..Policy::default()
        },
    );
    assert_eq!(checked.overlap_pairs, 11);
    assert_eq!(checked.oversold_units, 3);
}

#[test]
fn a_wait_limit_times_requests_out_and_their_sales_are_not_made() {
    let loaded = load(&[seed()]);
    let o = run(
        &loaded,
        &[Policy {
            watchdog: true,
            ..Policy::default()
        }],
        Some(1000),
    )
    .policies
    .remove(0);
    assert!(o.timed_out > 0);
    assert!(o.longest_wait_ms <= 1000.0, "{}", o.longest_wait_ms);
    assert_eq!(o.oversold_units, 0);
    let timed_out = o.holds.iter().filter(|h| h.timed_out).count();
    assert_eq!(timed_out, o.timed_out);
    assert!(
        o.holds
            .iter()
            .filter(|h| h.timed_out)
            .all(|h| h.start_ns.is_none())
    );
}

#[test]
fn the_model_reproduces_every_handed_case_as_logged() {
    let cases = root().join("tests/fixtures/cases");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&cases)
        .expect("cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 10);
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("case")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.file_name().is_some_and(|n| n != "case.json"))
            .collect();
        files.sort();
        let loaded = load(&files);
        let w = run(&loaded, &Policy::standard_set(), None);
        assert!(w.model_matches(), "{}: {:?}", dir.display(), w.as_logged);
        // A watchdog with owner-checked release and fencing leaves no
        // overlap on any case whose holders keep working normally, unless
        // the server lost the lock (an eviction, a failover) or a holder's
        // process stalled longer than its TTL: no lock policy prevents that.
        let all = w.policies.last().expect("all three");
        let vanished: usize = w
            .notes
            .iter()
            .map(|n| match n {
                lockreplay::whatif::WhatIfNote::Vanished { locks } => *locks,
                lockreplay::whatif::WhatIfNote::StallBeyondTtl { holds, .. } => *holds,
                _ => 0,
            })
            .sum();
        assert!(all.overlap_pairs <= vanished, "{}", dir.display());
        // Nobody writes after a later grant when nobody overlaps: a write
        // logged in the instant of the next grant is its holder's own.
        if all.overlap_pairs == 0 {
            assert_eq!(all.rejected_writes, 0, "{}", dir.display());
        }
        assert!(all.oversold_units <= w.actual.oversold_units);
    }
}

#[test]
fn the_whatif_command_prints_the_table_in_three_formats() {
    let bin = env!("CARGO_BIN_EXE_lockreplay");
    let seed = seed();
    let out = Command::new(bin)
        .args([
            "whatif",
            "--ttl-ms",
            "5000",
            "--watchdog",
            "--unit-loss",
            "200",
        ])
        .arg(&seed)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "incidents in the log: {text}");
    assert!(text.contains("What happened (log)"), "{text}");
    assert!(
        text.contains("TTL 5000 ms + watchdog every 1666 ms"),
        "{text}"
    );
    assert!(text.contains("This is a model"), "{text}");
    let out = Command::new(bin)
        .args(["whatif", "--format", "json", "--fencing"])
        .arg(&seed)
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["schema"], "lockreplay-whatif/1");
    assert_eq!(v["actual"]["overlap_pairs"], 11);
    assert_eq!(v["policies"][0]["oversold_units"], 0);
    assert_eq!(v["policies"][0]["overlap_pairs"], 11);
    assert_eq!(v["model_matches_log"], true);
    let out = Command::new(bin)
        .args(["whatif", "--format", "md"])
        .arg(&seed)
        .output()
        .expect("run");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("| Policy | Overlaps |"), "{md}");
    assert_eq!(md.matches("\n| ").count(), 1 + 2 + 4, "{md}");
    let bad = Command::new(bin)
        .args(["whatif", "--ttl-ms", "0"])
        .arg(&seed)
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn the_report_folder_has_a_whatif_section() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = support::report_no_images(&[], dir.path(), &seed());
    assert_eq!(out.status.code(), Some(1));
    let md = std::fs::read_to_string(dir.path().join("whatif.md")).expect("whatif.md");
    assert!(md.starts_with("# What-if"), "{md}");
    assert!(md.contains("owner-checked release"), "{md}");
}

/// `text` once `docs/semantics.md` and the units `ms` and `s` are taken
/// out: the ASCII words left (the ids of the seed are digits and `¥`).
fn english_words(text: &str) -> Vec<String> {
    let rest = text.replace("docs/semantics.md", "");
    rest.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty() && *w != "ms" && *w != "s")
        .map(str::to_string)
        .collect()
}

#[test]
fn whatif_and_the_report_folder_speak_chinese_with_lang_zh_and_json_stays_english() {
    let bin = env!("CARGO_BIN_EXE_lockreplay");
    let run = |args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .arg(seed())
            .output()
            .expect("run");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let text = run(&["whatif", "--lang", "zh", "--wait-limit-ms", "500"]);
    assert!(text.contains("实际发生（日志）"), "{text}");
    assert!(
        text.contains("看门狗每隔三分之一过期时间续期") && text.contains("写入时校验栅栏令牌"),
        "{text}"
    );
    assert!(
        text.contains("等待上限：500 ms") && text.contains("这是模型而非实测"),
        "{text}"
    );
    assert_eq!(english_words(&text), Vec::<String>::new(), "{text}");
    let md = run(&[
        "whatif", "--lang", "zh", "--format", "md", "--ttl-ms", "900",
    ]);
    assert!(
        md.starts_with("# 假设推演") && md.contains("| 策略 | 重叠 |"),
        "{md}"
    );
    assert!(md.contains("过期时间 900 ms"), "{md}");
    assert_eq!(english_words(&md), Vec::<String>::new(), "{md}");
    assert_eq!(
        run(&["whatif", "--format", "json", "--lang", "zh"]),
        run(&["whatif", "--format", "json"]),
        "the JSON has no language"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let out = support::report_no_images(&["--lang", "zh"], dir.path(), &seed());
    assert_eq!(out.status.code(), Some(1));
    let md = std::fs::read_to_string(dir.path().join("whatif.md")).expect("whatif.md");
    assert!(
        md.starts_with("# 假设推演") && md.contains("校验持有者的释放"),
        "{md}"
    );
    assert_eq!(english_words(&md), Vec::<String>::new(), "{md}");
}

#[test]
fn the_model_reproduces_every_sample_log_as_logged() {
    for name in [
        "seed-incident.jsonl",
        "seed-fixed-watchdog.jsonl",
        "naive-setnx-expire-del.jsonl",
    ] {
        let loaded = load(&[root().join("sample-logs").join(name)]);
        let w = run(&loaded, &[], None);
        assert!(w.model_matches(), "{name}: {:?}", w.as_logged);
        assert_eq!(w.as_logged.longest_wait_ms, 0.0, "{name}");
    }
}

#[test]
fn a_gc_pause_longer_than_the_ttl_defeats_the_watchdog_a_long_ttl_with_a_wait_limit_times_out() {
    // BR-22: a holder's JVM pauses 11.8 s; its 10 s lease expires.
    let case = root().join("tests/fixtures/cases/BR-22-gc-pause-lock-expires-early");
    let loaded = load(&[case.join("inventory-svc.json.log")]);
    assert_eq!(loaded.analysis.summary.oversold_units, 1);
    let watchdog = Policy {
        watchdog: true,
        ..Policy::default()
    };
    // The log's own line says the JVM paused 11.8 s: the watchdog thread
    // was paused too, and renews nothing in the pause.
    assert_eq!(one(&loaded, watchdog.clone()).oversold_units, 1);
    // The pause is a gap of the holder's own lines: its renewals stop too.
    let paused = one(
        &loaded,
        Policy {
            pause_ms: Some(5000),
            ..watchdog
        },
    );
    assert_eq!(paused.overlap_pairs, 1);
    assert_eq!(paused.oversold_units, 1);
    // A TTL longer than the pause, and buyers who wait at most 500 ms.
    let long = run(
        &loaded,
        &[Policy {
            ttl_ms: Some(60_000),
            ..Policy::default()
        }],
        Some(500),
    )
    .policies
    .remove(0);
    assert_eq!(long.overlap_pairs, 0);
    assert_eq!(long.oversold_units, 0);
    assert_eq!(long.timed_out, 1);
    assert_eq!(long.sales_not_made, 1);
}

//! Infrastructure logs beside the locks, on the real incident
//! folders of `tests/fixtures/infra/` (README there says how each was
//! captured): each incident cites the failover, restart or GC pause that
//! explains it with its time and file:line, in the text, Markdown and JSON
//! reports and in Chinese; a file read as evidence is readable, and a file
//! nothing could be read from still makes the run exit 2.

use std::path::PathBuf;

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/infra")
        .join(rel)
}

fn run(args: &[&str], files: &[PathBuf]) -> (i32, String, String) {
    crate::support::analyze(args, files)
}

fn folder(name: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixture(name))
        .expect("folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    v.sort();
    v
}

/// The text report's block of the incident on `key`.
fn incident_block(text: &str, key: &str) -> String {
    let start = text.find(&format!("  {key}  ")).expect("incident on key");
    let block = &text[start..];
    let end = block.find("\n\n").unwrap_or(block.len());
    block[..end].to_string()
}

#[test]
fn a_sentinel_failover_is_cited_for_the_vanished_lock() {
    let (code, text, _) = run(&["--format", "text"], &folder("failover"));
    assert_eq!(code, 1, "an incident, every file readable");
    let b = incident_block(&text, "lock:order:sku-7");
    assert!(b.contains("lock_vanished"), "{b}");
    assert!(
        b.contains("why: lock vanished: the master failed over at 2026-12-03 16:34:20.462 +00:00 (sentinel `+switch-master`, sentinel-3.log:32)"),
        "{b}"
    );
    // The lock log names no server: the failover is tied by its time, a
    // guess said as one.
    assert!(b.contains("(matched by time only"), "{b}");
    assert!(!text.contains("NOT READABLE"), "{text}");
}

/// The failover folder's captures, one per server, named by port (or
/// copied under `names` into a fresh folder), with the server and Sentinel
/// logs.
fn monitor_folder(names: Option<(&str, &str)>) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, b) = names.unwrap_or(("monitor-27001.log", "monitor-27002.log"));
    let mut files = Vec::new();
    for (from, to) in [("monitor-27001.log", a), ("monitor-27002.log", b)] {
        let to = dir.path().join(to);
        std::fs::copy(fixture("failover-monitor").join(from), &to).expect("copy");
        files.push(to);
    }
    for f in [
        "redis-27001.log",
        "redis-27002.log",
        "sentinel-1.log",
        "sentinel-2.log",
        "sentinel-3.log",
    ] {
        files.push(fixture("failover-monitor").join(f));
    }
    (dir, files)
}

#[test]
fn captures_named_by_port_tie_the_failover_by_the_servers_address() {
    let (_dir, files) = monitor_folder(None);
    let (code, text, _) = run(&["--format", "text", "--unit-loss", "200"], &files);
    assert_eq!(code, 1, "{text}");
    let b = incident_block(&text, "lock:order:sku-7");
    assert!(
        b.contains("why: lock vanished: the master failed over at 2026-12-06 16:26:39.752 +00:00 (sentinel `+switch-master`, sentinel-3.log:32)"),
        "{b}"
    );
    // `+switch-master mymaster 127.0.0.1 27001 127.0.0.1 27002` names the
    // server of monitor-27001.log, where the first hold was granted.
    assert!(!b.contains("matched by time only"), "{b}");
    let (_, json, _) = run(&["--format", "json"], &files);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(v["incidents"][0]["evidence"][0]["by_host"], true, "{json}");
    // With the application's log beside them, the holds are the
    // application's lines; the captures that show the same tokens still name
    // the server.
    let mut with_app = files.clone();
    with_app.push(fixture("failover-monitor/app.json.log"));
    let (code, text, _) = run(&["--format", "text"], &with_app);
    assert_eq!(code, 1, "{text}");
    let b = incident_block(&text, "lock:order:sku-7");
    assert!(b.contains("+switch-master"), "{b}");
    assert!(!b.contains("matched by time only"), "{b}");
}

#[test]
fn captures_named_without_a_port_cite_the_failover_as_a_guess() {
    let (_dir, files) = monitor_folder(Some(("monitor-a.log", "monitor-b.log")));
    let (code, text, _) = run(&["--format", "text"], &files);
    assert_eq!(code, 1, "{text}");
    let b = incident_block(&text, "lock:order:sku-7");
    assert!(b.contains("+switch-master"), "{b}");
    assert!(b.contains("(matched by time only"), "{b}");
}

#[test]
fn a_failover_of_other_servers_than_the_captures_is_not_cited() {
    let (_dir, files) = monitor_folder(Some(("monitor-27005.log", "monitor-27006.log")));
    let (code, text, _) = run(&["--format", "text"], &files);
    assert_eq!(code, 1, "{text}");
    let b = incident_block(&text, "lock:order:sku-7");
    assert!(b.contains("lock_vanished"), "{b}");
    assert!(!b.contains("+switch-master"), "{b}");
}

#[test]
fn a_restart_without_persistence_is_cited_in_every_report_and_language() {
    let files = folder("restart");
    let (code, text, _) = run(&["--format", "text"], &files);
    assert_eq!(code, 1);
    assert!(
        incident_block(&text, "lock:cart:u42").contains(
            "the Redis server restarted at 2026-12-03 16:34:39.668 +00:00 (redis-server `Redis is starting`, redis-server.log:12)"
        ),
        "{text}"
    );
    let (_, zh, _) = run(&["--format", "text", "--lang", "zh"], &files);
    assert!(
        zh.contains("原因：锁消失：Redis 服务器重启，时间 2026-12-03 16:34:39.668 +00:00"),
        "{zh}"
    );
    let (_, md, _) = run(&["--format", "md"], &files);
    assert!(
        md.contains("- Why: lock vanished: the Redis server restarted at 2026-12-03 16:34:39.668"),
        "{md}"
    );
    let (_, json, _) = run(&["--format", "json"], &files);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let ev = &v["incidents"][0]["evidence"][0];
    assert_eq!(ev["kind"], "restart");
    assert_eq!(ev["role"], "vanished");
    assert_eq!(ev["line"], 12);
    assert!(
        ev["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("redis-server.log"))
    );
}

#[test]
fn a_gc_pause_is_cited_for_the_expired_lease_and_is_a_holder_stall() {
    let (code, text, _) = run(&["--format", "text"], &folder("gc-pause"));
    assert_eq!(code, 1);
    let b = incident_block(&text, "lock:sku-1001");
    assert!(b.contains("lease_expired"), "{b}");
    assert!(
        b.contains("why: the lease expired while web-01's JVM was paused by GC for 4.0 s (2026-12-03 16:47:58.761 +00:00 - 16:48:02.730, gc-web-01.log:41)"),
        "{b}"
    );
    let (_, json, _) = run(&["--format", "json"], &folder("gc-pause"));
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let stalls: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["kind"] == "holder_stall")
        .collect();
    assert_eq!(stalls.len(), 1, "{json}");
    assert!(
        stalls[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("3968 ms"))
    );
}

#[test]
fn a_jdk_8_gc_log_is_cited_as_the_unified_one_is() {
    // JDK 8's `-XX:+PrintGCDateStamps` log (easily taken for CSV and
    // unreadable, and the pause behind the overlap lost). Its
    // date stamp is when the collection began; its concurrent phase and the
    // stopped-time line of the same pause are not listed again.
    let (code, text, _) = run(&["--format", "text"], &folder("gc-pause-jdk8"));
    assert_eq!(code, 1);
    let b = incident_block(&text, "lock:sku-1001");
    assert!(b.contains("lease_expired"), "{b}");
    assert!(
        b.contains("why: the lease expired while web-01's JVM was paused by GC for 4.0 s (2026-12-03 16:47:58.761 +00:00 - 16:48:02.729, gc-web-01.log:7)"),
        "{b}"
    );
    assert!(text.contains("JDK 8 GC log"), "{text}");
    let (_, json, _) = run(&["--format", "json"], &folder("gc-pause-jdk8"));
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let cited = &v["incidents"][0]["evidence"];
    assert_eq!(cited.as_array().map(Vec::len), Some(1), "{cited}");
    assert_eq!(cited[0]["what"], "Full GC (System.gc())");
    let kinds: Vec<&str> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        vec!["holder_stall"],
        "one stall, not one per line of the pause"
    );
}

#[test]
fn without_its_gc_log_the_same_incident_cites_nothing() {
    let files: Vec<PathBuf> = folder("gc-pause")
        .into_iter()
        .filter(|p| !p.ends_with("gc-web-01.log"))
        .collect();
    let (code, text, _) = run(&["--format", "text"], &files);
    assert_eq!(code, 1);
    assert!(!text.contains("why:"), "{text}");
    assert!(!text.contains("holder_stall"), "{text}");
}

#[test]
fn an_unreadable_file_beside_evidence_still_exits_2_and_is_named() {
    let dir = std::env::temp_dir().join(format!("lockreplay-evidence-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let junk = dir.join("notes.txt");
    std::fs::write(&junk, "lunch at noon\nbring the slides\n").expect("write");
    let mut files = folder("gc-pause");
    files.push(junk.clone());
    let (code, text, err) = run(&["--format", "text"], &files);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("notes.txt"), "{err}");
    assert!(
        text.contains("NOT READABLE") && text.contains("notes.txt"),
        "{text}"
    );
    assert!(
        !err.contains("gc-web-01.log"),
        "the GC log is readable: {err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn evidence_alone_is_no_all_clear() {
    let (code, _, err) = run(&["--format", "text"], &[fixture("gc-pause/gc-web-01.log")]);
    assert_eq!(code, 2);
    assert!(err.contains("no lock event"), "{err}");
    assert!(
        !err.contains("gc-web-01.log: no lock event could be read"),
        "{err}"
    );
}

#[test]
fn healthy_gc_logs_beside_the_incident_are_notes_and_the_pause_is_cited() {
    let (code, text, err) = run(&["--format", "text", "--unit-loss", "90"], &folder("quiet"));
    assert_eq!(code, 1, "an incident, no error: {err}");
    let b = incident_block(&text, "lock:sku-42");
    assert!(
        b.contains("why: the lease expired while web-01's JVM was paused by GC for 2.8 s")
            && b.contains("gc-web-01.log:4"),
        "{b}"
    );
    assert!(!text.contains("NOT READABLE"), "{text}");
    let quiet = "no pause, failover or restart in this file";
    for f in ["gc-web-03.log", "sentinel-1.log"] {
        let at = text.find(&format!("{f}: infrastructure")).expect(f);
        let section = &text[at..];
        let section = &section[..section.find("\n\n").unwrap_or(section.len())];
        assert!(section.contains(quiet), "{section}");
    }
    let (code, text, _) = run(&["--format", "text", "--lang", "zh"], &folder("quiet"));
    assert_eq!(code, 1);
    assert!(text.contains("此文件中没有停顿、故障转移或重启"), "{text}");
}

#[test]
fn a_healthy_evidence_file_alone_is_still_no_answer() {
    for f in ["quiet/gc-web-03.log", "quiet/sentinel-1.log"] {
        let (code, _, err) = run(&["--format", "text"], &[fixture(f)]);
        assert_eq!(code, 2, "{f}: {err}");
    }
}

#[test]
fn an_ha_operators_json_event_log_is_evidence_and_its_failover_is_cited() {
    let (code, text, err) = run(&["--format", "text"], &folder("operator-json"));
    assert_eq!(code, 1, "an incident, every file readable: {err}");
    assert!(!text.contains("NOT READABLE"), "{text}");
    let b = incident_block(&text, "lock:order:77");
    assert!(b.contains("lock_vanished"), "{b}");
    assert!(
        b.contains("why: lock vanished: the master failed over at 2024-05-01 10:00:02.120 +00:00")
            && b.contains("`vip_switched`, ha-operator.json.log:4"),
        "{b}"
    );
    assert!(
        text.contains("evidence: 3 infrastructure line(s)"),
        "{text}"
    );
}

#[test]
fn an_apps_own_gc_pause_line_is_cited_with_its_host() {
    let case = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cases/BR-22-gc-pause-lock-expires-early/inventory-svc.json.log");
    let (code, text, err) = run(&["--format", "text"], &[case]);
    assert_eq!(code, 1, "{err}");
    let b = incident_block(&text, "lock:inventory:880021");
    assert!(
        b.contains(
            "why: the lease expired while inventory-svc-6f8d4-1 was paused for 11.8 s, as its own log says"
        ) && b.contains("inventory-svc.json.log:7"),
        "{b}"
    );
    assert!(!b.contains("matched by time only"), "tied by its host: {b}");
}

#[test]
fn a_file_of_business_events_only_is_a_note_beside_the_locks() {
    let dir = std::env::temp_dir().join(format!("lockreplay-business-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let app = std::fs::read_to_string(fixture("restart/cart.json.log")).expect("fixture");
    let (locks, sales): (Vec<&str>, Vec<&str>) = app
        .lines()
        .partition(|l| l.contains("\"acquired\"") || l.contains("release"));
    std::fs::write(dir.join("locks.json.log"), locks.join("\n") + "\n").expect("write");
    std::fs::write(dir.join("orders.json.log"), sales.join("\n") + "\n").expect("write");
    let files = [
        dir.join("locks.json.log"),
        dir.join("orders.json.log"),
        fixture("restart/redis-server.log"),
    ];
    let (code, text, err) = run(&["--format", "text"], &files);
    assert_eq!(code, 1, "{err}");
    assert!(
        text.contains("business event(s) and no lock event: the locks come from the other files"),
        "{text}"
    );
    assert!(!text.contains("NOT READABLE"), "{text}");
    let (code, _, _) = run(&["--format", "text"], &files[1..2]);
    assert_eq!(code, 2, "business events alone are no all-clear");
    std::fs::remove_dir_all(&dir).ok();
}

/// The overlap count of the what-if table's row `policy`.
fn whatif_overlaps(files: &[PathBuf], policy: &str) -> (u32, String) {
    let out = crate::support::bin()
        .arg("whatif")
        .args(files)
        .output()
        .expect("run lockreplay");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let row = text
        .lines()
        .find(|l| l.starts_with(policy) && l[policy.len()..].starts_with("  "))
        .unwrap_or_else(|| panic!("no row {policy}: {text}"));
    let n = row[policy.len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("overlaps");
    (n, text)
}

#[test]
fn a_watchdog_does_not_save_a_lease_whose_process_the_gc_log_shows_paused() {
    let all = folder("gc-pause");
    let (n, text) = whatif_overlaps(&all, "watchdog every TTL/3");
    assert_eq!(n, 1, "{text}");
    assert!(
        text.contains("with a watchdog, the 4.0 s pause still exceeds the 1.0 s TTL: the watchdog thread is paused too"),
        "{text}"
    );
    // Without the GC log nothing says the process stopped: the model's
    // watchdog keeps renewing.
    let app: Vec<PathBuf> = all
        .into_iter()
        .filter(|p| !p.ends_with("gc-web-01.log"))
        .collect();
    let (n, text) = whatif_overlaps(&app, "watchdog every TTL/3");
    assert_eq!(n, 0, "{text}");
}

#[test]
fn a_gc_log_named_by_its_pid_is_tied_to_the_holder_that_names_the_pid() {
    // The gc-pause incident with the GC log named as HotSpot writes `%p`
    // (`-Xloggc:gc-%p.log` -> `gc-pid31616.log`: no host in the name) and
    // web-01's holder id in Java's runtime name form `pid@host`. The pause
    // is tied by the process, not guessed by its time; without the pid in
    // the holder it is a guess, said as one.
    let dir = tempfile::tempdir().expect("tmp");
    let src = folder("gc-pause");
    let owner = "a561ead7-d9cf-4c19-abdb-546137bc90da";
    let mut files = Vec::new();
    for with_pid in [true, false] {
        let sub = dir.path().join(if with_pid { "pid" } else { "nopid" });
        std::fs::create_dir_all(&sub).expect("dir");
        files.clear();
        for p in &src {
            let name = p.file_name().and_then(|n| n.to_str()).expect("name");
            let text = std::fs::read_to_string(p).expect("read");
            let (name, text) = if name == "gc-web-01.log" {
                ("gc-pid31616.log".to_string(), text)
            } else if with_pid {
                (name.to_string(), text.replace(owner, "31616@web-01"))
            } else {
                (name.to_string(), text)
            };
            let out = sub.join(name);
            std::fs::write(&out, text).expect("write");
            files.push(out);
        }
        let (code, text, _) = run(&["--format", "text"], &files);
        assert_eq!(code, 1, "{text}");
        let b = incident_block(&text, "lock:sku-1001");
        assert!(b.contains("paused by GC for 4.0 s"), "{b}");
        let guessed = b.contains("matched by time only");
        assert_eq!(guessed, !with_pid, "pid in holder: {with_pid}\n{b}");
        let (_, json, _) = run(&["--format", "json"], &files);
        let v: serde_json::Value = serde_json::from_str(&json).expect("json");
        let stalls = v["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["kind"] == "holder_stall")
            .count();
        assert_eq!(stalls, usize::from(with_pid), "{json}");
        assert_eq!(v["incidents"][0]["evidence"][0]["by_host"], with_pid);
    }
}

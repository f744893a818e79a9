//! The third hostile round (issue #35): attacks on what was added since the
//! second (text layouts, CRI, mapping files, zstd, MONITOR replay, the
//! report folder, the pictures), each a run of the built binary or of the
//! library on input made here at run time. Every test here failed before
//! its fix.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lockreplay::model::RecordWarning;

mod support;
use support::{assert_error_saying, bin, load, stderr};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-logs")
        .join(name)
}

/// The handed seed incident with its lock key in Thai, one holder with an
/// emoji and one host in Devanagari: scripts egui's own fonts lack.
fn unicode_incident(dir: &Path, name: &std::ffi::OsStr) -> PathBuf {
    let text = std::fs::read_to_string(sample("seed-incident.jsonl")).expect("sample");
    let text = text
        .replace("product:1001:lock", "ล็อค:قفل:1001")
        .replace("\"owner\": \"0068", "\"owner\": \"😀0068")
        .replace("\"host\": \"web-02\"", "\"host\": \"वेब-02\"");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

/// `render` and `report` draw a lock key, holder or file name in any script
/// (a box where no font has the glyph), never a panic; a failure names its
/// real cause. Before: epaint's "No glyph for ..." panic, reported as
/// "the wgpu renderer panicked (no usable adapter?)", exit 2.
#[test]
fn render_and_report_draw_any_unicode() {
    let dir = tempfile::tempdir().expect("tempdir");
    #[cfg(unix)]
    let name: std::ffi::OsString = {
        use std::os::unix::ffi::OsStringExt;
        std::ffi::OsString::from_vec(b"INC-\xff\xfe.jsonl".to_vec())
    };
    #[cfg(not(unix))]
    let name: std::ffi::OsString = "INC-\u{fffd}.jsonl".into();
    let input = unicode_incident(dir.path(), &name);
    let png = dir.path().join("p.png");
    let out = bin()
        .arg("render")
        .arg(&input)
        .arg("--out")
        .arg(&png)
        .output()
        .expect("runs");
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("No glyph"), "{err}");
    if out.status.code() == Some(2)
        && (err.contains("no wgpu adapter") || err.contains("without the `gui` feature"))
    {
        println!("skipped: {err}");
        return;
    }
    assert!(matches!(out.status.code(), Some(0 | 1)), "{err}");
    assert!(png.is_file());
    let rep = dir.path().join("rep");
    let out = bin()
        .arg("report")
        .arg(&input)
        .arg("--out")
        .arg(&rep)
        .output()
        .expect("runs");
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert!(matches!(out.status.code(), Some(0 | 1)), "{err}");
    let pngs = std::fs::read_dir(&rep)
        .expect("report folder")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "png"))
        })
        .count();
    assert!(pngs >= 1, "no picture in the report");
}

fn export(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/exports")
        .join(name)
}

/// Waits for `child` at most `secs`, killing it after: a hang fails the
/// test instead of stopping the run (the bug it guards against was one).
fn wait_or_kill(mut child: std::process::Child, secs: u64) -> Output {
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if start.elapsed().as_secs() >= secs {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!("still running after {secs} s: {}", stderr(&out));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// 200 000 `HSET`s of a new field each on one hash, and one `HSET` of
/// 100 000 fields, replay in a debug build in no time that matters. Before:
/// each write scanned every field before it (200 000 took 82 s in a
/// release build). No timing assertion: it hung before; the speed is
/// measured by `benches/monitor_replay.rs` (`one_hash_1m`).
#[test]
fn writes_to_one_big_hash_replay_in_linear_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("one-hash.monitor");
    let mut text = String::from(
        "1795939839.000001 [0 10.0.0.1:5000] \"SET\" \"sku:3b:lock\" \"t1\" \"NX\" \"PX\" \"30000\"\n",
    );
    let n = 200_000u64;
    for i in 0..n {
        let us = 1 + i;
        text.push_str(&format!(
            "{}.{:06} [0 10.0.0.1:5000] \"HSET\" \"orders:sku:3b\" \"order-{i}\" \"1\"\n",
            1_795_939_840 + us / 1_000_000,
            us % 1_000_000
        ));
    }
    // The same on the lock key itself (a Redisson hash with many fields):
    // the lock rules read its holder, not a copy of every field.
    for i in 0..20_000u64 {
        text.push_str(&format!(
            "1795939841.{:06} [0 10.0.0.1:5000] \"HSET\" \"sku:3b:lock\" \"f-{i}\" \"1\"\n",
            i + 1
        ));
    }
    text.push_str("1795939842.000001 [0 10.0.0.1:5000] \"HSET\" \"orders:sku:4c\"");
    for i in 0..100_000 {
        text.push_str(&format!(" \"order-{i}\" \"1\""));
    }
    text.push('\n');
    std::fs::write(&path, text).expect("write");
    let log = load(&[path]);
    let s = &log.sources[0];
    assert_eq!(s.dialect, lockreplay::model::Dialect::RedisMonitor);
    assert_eq!(
        s.lines_read,
        s.events_loaded + s.lines_skipped + s.lines_warned
    );
    assert!(s.lines_read >= n + 2, "{}", s.lines_read);
    assert!(log.events.iter().any(|e| e.kind.is_lock()));
}

/// A CSV export on standard input through `/dev/stdin`: read once. Before:
/// its head went to the JSON Lines probe and the second open saw the rest
/// ("no lock event could be read", exit 2).
#[cfg(unix)]
#[test]
fn csv_on_stdin_is_read_once() {
    use std::io::Write;
    let csv = std::fs::read(export("kibana-discover.csv")).expect("fixture");
    let want = bin()
        .args(["analyze", "--format", "json"])
        .arg(export("kibana-discover.csv"))
        .output()
        .expect("runs");
    let mut child = bin()
        .args(["analyze", "--format", "json", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&csv);
    });
    let out = wait_or_kill(child, 120);
    feeder.join().expect("feeder");
    assert_eq!(out.status.code(), want.status.code(), "{}", stderr(&out));
    let events = |o: &Output| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        v["summary"].clone()
    };
    assert_eq!(events(&out), events(&want));
}

/// Makes a FIFO at `path` (with `mkfifo`, which every Unix has).
#[cfg(unix)]
fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(st.success());
}

/// A JSON Lines log and the same log gzipped, each through a FIFO fed by a
/// thread (what `<(zcat x.gz)` is): read once, the same answer as the
/// file. Before: the FIFO was opened a second time after its head was
/// read; with gzip the second open waited for a writer forever.
#[cfg(unix)]
#[test]
fn a_fifo_is_read_once_plain_or_gzipped() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = std::fs::read(sample("seed-incident.jsonl")).expect("sample");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).expect("gzip");
    let gz = gz.finish().expect("gzip");
    let want = bin()
        .args(["analyze", "--format", "json"])
        .arg(sample("seed-incident.jsonl"))
        .output()
        .expect("runs");
    for (name, bytes) in [("plain.jsonl", plain), ("zipped.jsonl.gz", gz)] {
        let fifo = dir.path().join(name);
        mkfifo(&fifo);
        let child = bin()
            .args(["analyze", "--format", "json"])
            .arg(&fifo)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let target = fifo.clone();
        let feeder = std::thread::spawn(move || {
            // Opening for writing waits for the reader; a second open of
            // the reader's finds no writer and would wait forever.
            if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&target) {
                let _ = f.write_all(&bytes);
            }
        });
        let out = wait_or_kill(child, 120);
        // Unblocks a feeder still waiting for a reader (the bug's case);
        // non-blocking, as no writer may be left.
        if !feeder.is_finished() {
            use std::os::unix::fs::OpenOptionsExt;
            const O_NONBLOCK: i32 = if cfg!(target_os = "linux") {
                0o4000
            } else {
                0x4
            };
            let _ = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(O_NONBLOCK)
                .open(&fifo);
        }
        feeder.join().expect("feeder");
        assert_eq!(
            out.status.code(),
            want.status.code(),
            "{name}: {}",
            stderr(&out)
        );
        let summary = |o: &Output| {
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
            v["summary"].clone()
        };
        assert_eq!(summary(&out), summary(&want), "{name}");
    }
}

/// A mapping file of 8 MB (sparse: no disk used; the attack had 1 GB) is refused with its size
/// before anything reads it whole. Before: read whole, and the TOML lexer
/// asked for 7.4 GB (an allocation abort).
#[test]
fn a_huge_mapping_file_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mapping = dir.path().join("huge.mapping.toml");
    let f = std::fs::File::create(&mapping).expect("create");
    f.set_len(8 << 20).expect("sparse 8 MB");
    let out = bin()
        .arg("analyze")
        .arg("--mapping")
        .arg(&mapping)
        .arg(sample("seed-incident.jsonl"))
        .output()
        .expect("runs");
    assert_error_saying(&out, "larger than 1024 KiB");
}

/// `report --out rep rep/INC-7.png`: an input inside the report folder, or
/// one named like its temporary folders, is refused and left as it was.
/// Before: the old folder was moved aside, input included, and deleted.
#[test]
fn the_report_folder_never_touches_an_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rep = dir.path().join("rep");
    std::fs::create_dir(&rep).expect("mkdir");
    // A report folder of ours from an earlier run, with the input in it.
    let inside = rep.join("INC-7.png");
    std::fs::copy(sample("seed-incident.jsonl"), &inside).expect("copy");
    std::fs::write(rep.join("report.md"), "old").expect("write");
    // Named like a temporary folder of a run killed long ago (pid 1 is
    // never gone; a huge pid is).
    let stale = dir.path().join(".rep.lockreplay-4000000-abc");
    std::fs::copy(sample("seed-incident.jsonl"), &stale).expect("copy");
    let before = std::fs::read(&inside).expect("read");
    for input in [&inside, &stale] {
        let out = bin()
            .args(["report", "--no-images", "--out"])
            .arg(&rep)
            .arg(input)
            .output()
            .expect("runs");
        assert_error_saying(&out, "refusing");
        assert_eq!(std::fs::read(input).expect("still there"), before);
    }
}

/// `report --out link` where `link` points nowhere: refused, and no
/// finished temporary folder is left beside it. Before: the rename failed
/// after the folder was written, and the folder stayed.
#[cfg(unix)]
#[test]
fn a_dangling_link_as_report_folder_leaves_nothing_behind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = dir.path().join("rep");
    std::os::unix::fs::symlink(dir.path().join("nowhere/at/all"), &link).expect("symlink");
    let out = bin()
        .args(["report", "--no-images", "--out"])
        .arg(&link)
        .arg(sample("seed-incident.jsonl"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .expect("read")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "rep")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A file read as unknown counts its lines as every format does: blank
/// lines are not read lines (docs/ingest.md). Before: 6 read, 4 of them
/// blank lines "skipped" as "not lock or business events".
#[test]
fn blank_lines_of_an_unknown_file_are_not_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("unknown.log");
    std::fs::write(&path, "garbage one\n\n  \n\nmore garbage\n\n").expect("write");
    let log = load(&[path]);
    let s = &log.sources[0];
    assert_eq!(
        [
            s.lines_read,
            s.events_loaded,
            s.lines_skipped,
            s.lines_warned
        ],
        [2, 0, 0, 2]
    );
    let lines: Vec<u64> = log.warnings.kept().iter().map(|w| w.line).collect();
    assert_eq!(lines, [1, 5]);
}

/// Logback's TTLLLayout (time of day only; see tests/exports_text.rs for
/// its source) read with the mapping's `date`, across midnight: the lines
/// after 00:00 are on the next day, so tok-B's grant falls inside tok-A's
/// lease (an overlap), and a source note says the date advanced. Before:
/// every line had the mapping's date, the hold ran backwards and the
/// overlap vanished (exit 0, a false all-clear).
#[test]
fn time_of_day_lines_advance_the_date_at_midnight() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("logback-ttll-midnight.web-01.log");
    let l = "INFO com.example.shop.lock.RedisLockService --";
    let s = "INFO com.example.shop.service.InventoryService --";
    let o = "INFO com.example.shop.service.OrderService --";
    let text = [
        "23:59:58.000 [main] INFO com.example.shop.StockBootstrap -- stock initialized sku=sku-1001 stock=1".to_string(),
        format!("23:59:59.100 [exec-1] {l} acquired lock key=lock:sku:1001 token=tok-A ttl=2000ms"),
        format!("23:59:59.150 [exec-1] {s} stock read sku=sku-1001 stock=1"),
        format!("00:00:00.300 [exec-7] {l} acquired lock key=lock:sku:1001 token=tok-B ttl=2000ms"),
        format!("00:00:00.350 [exec-7] {s} stock read sku=sku-1001 stock=1"),
        format!("00:00:00.400 [exec-7] {s} stock deducted sku=sku-1001 qty=1 stockAfter=0"),
        format!("00:00:00.420 [exec-7] {o} order created orderId=O-2 sku=sku-1001 qty=1"),
        format!("00:00:00.500 [exec-7] {l} released lock key=lock:sku:1001 token=tok-B"),
        format!("00:00:00.600 [exec-1] {s} stock deducted sku=sku-1001 qty=1 stockAfter=-1"),
        format!("00:00:00.620 [exec-1] {o} order created orderId=O-1 sku=sku-1001 qty=1"),
        format!("00:00:00.700 [exec-1] {l} released lock key=lock:sku:1001 token=tok-A"),
    ]
    .join("\n");
    std::fs::write(&log, text + "\n").expect("write");
    let out = bin()
        .args(["analyze", "--format", "json", "--mapping"])
        .arg(export("date.mapping.toml"))
        .arg(&log)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(
        v["summary"]["incidents"].as_u64() >= Some(1),
        "{}",
        v["summary"]
    );
    let text = v["sources"].to_string();
    assert!(text.contains("advanced 1 day(s)"), "{text}");
}

/// ESC and BEL in a file name, a mapping file's error and a report folder's
/// name reach stderr escaped, never raw (a terminal would obey them).
/// Before: the error line carried them as they were.
#[cfg(unix)]
#[test]
fn control_bytes_never_reach_stderr_raw() {
    let dir = tempfile::tempdir().expect("tempdir");
    let evil = dir.path().join("x\u{1b}]0;pwned\u{7}\u{1b}[2J.jsonl");
    std::fs::write(&evil, "not a log\n").expect("write");
    let mapping = dir.path().join("m\u{1b}[31m.toml");
    std::fs::write(
        &mapping,
        "[fields]\ntime = \"t\u{1b}[5m\u{7}\"\nnot toml \u{1b}[2J\n",
    )
    .expect("write");
    let runs = [
        bin().arg("analyze").arg(&evil).output().expect("runs"),
        bin()
            .arg("analyze")
            .arg("--mapping")
            .arg(&mapping)
            .arg(sample("seed-incident.jsonl"))
            .output()
            .expect("runs"),
        bin()
            .args(["report", "--no-images", "--out"])
            .arg(dir.path().join("r\u{7}ep"))
            .arg(sample("seed-incident.jsonl"))
            .output()
            .expect("runs"),
    ];
    for out in runs {
        assert!(!out.stderr.is_empty());
        assert!(
            !out.stderr.iter().any(|&c| c == 0x1b || c == 0x07),
            "{:?}",
            stderr(&out)
        );
    }
}

/// A 20-line Java stack trace (the shape `Throwable.printStackTrace` and
/// Logback's `%wEx` print: the exception's line, `\tat` frames, `Caused
/// by:`, `... N common frames omitted`) after every line of a Spring Boot
/// 3.3 file log (the default file pattern; see SOURCES-text.md for
/// `springboot33-file.web-01.log`).
fn with_traces(text: &str) -> String {
    let mut trace = vec![
        "java.lang.IllegalStateException: stock service timeout".to_string(),
        "\tat com.example.shop.service.InventoryService.deduct(InventoryService.java:42)"
            .to_string(),
    ];
    for i in 0..15 {
        trace.push(format!(
            "\tat org.springframework.aop.framework.ReflectiveMethodInvocation.proceed(ReflectiveMethodInvocation.java:{})",
            180 + i
        ));
    }
    trace.push("Caused by: java.net.SocketTimeoutException: Read timed out".into());
    trace.push("\tat java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:288)".into());
    trace.push("\t... 12 common frames omitted".into());
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        for t in &trace {
            out.push_str(t);
            out.push('\n');
        }
    }
    out
}

/// Stack traces between lock lines belong to the line before: the file is
/// still a text log, every lock line loads as without the traces, and no
/// trace line is a warning. Before: the file was "unknown", every line a
/// warning, exit 2.
#[test]
fn stack_traces_between_lock_lines_are_continuation_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = export("springboot33-file.web-01.log");
    let text = std::fs::read_to_string(&plain).expect("fixture");
    let traced = dir.path().join("springboot33-traces.web-01.log");
    std::fs::write(&traced, with_traces(&text)).expect("write");
    let want = load(&[plain]);
    let got = load(&[traced]);
    let s = &got.sources[0];
    assert_eq!(s.dialect, want.sources[0].dialect);
    assert_eq!(got.events.len(), want.events.len());
    assert_eq!(got.warnings.total(), want.warnings.total());
    assert_eq!(s.events_loaded, want.sources[0].events_loaded);
    assert_eq!(
        s.lines_read,
        s.events_loaded + s.lines_skipped + s.lines_warned
    );
}

/// `analyze --format json LOG` with the load cache in `cache`, saying on
/// stderr when an entry was read or written.
fn analyze_cached(cache: &Path, log: &Path, flags: &[&str]) -> Output {
    bin()
        .env("LOCKREPLAY_CACHE_DIR", cache)
        .env("LOCKREPLAY_CACHE_VERBOSE", "1")
        .args(["analyze", "--format", "json"])
        .args(flags)
        .arg(log)
        .output()
        .expect("lockreplay runs")
}

/// The load cache of issue #34 under attack: a stale entry (the input
/// rewritten to the same size), a truncated one, a corrupt one, and one
/// forged with a sound header and checksum over bytes that are no log.
/// Each is ignored with a note, never trusted, never a panic, and the
/// report is the fresh load's. Standard input is never cached.
#[test]
fn cache_entries_stale_truncated_corrupt_or_forged_are_never_trusted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let log = dir.path().join("sale.jsonl");
    std::fs::copy(sample("seed-fixed-watchdog.jsonl"), &log).expect("copy");
    let fresh = analyze_cached(&cache, &log, &["--no-cache"]);
    let first = analyze_cached(&cache, &log, &[]);
    assert_eq!(first.stdout, fresh.stdout);
    let entry = std::fs::read_dir(&cache)
        .expect("cache made")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "lrc"))
        .expect("an entry");
    let key = entry
        .file_stem()
        .and_then(|s| u128::from_str_radix(&s.to_string_lossy(), 16).ok())
        .expect("the entry is named by its key");
    let good = std::fs::read(&entry).expect("entry");
    let forged = {
        let payload = vec![0xa5u8; 4096];
        let mut b = lockreplay::ingest::cache::header(key, &payload);
        b.extend_from_slice(&payload);
        b
    };
    let mut corrupt = good.clone();
    let at = corrupt.len() / 2;
    corrupt[at] ^= 0x10;
    let attacks: [(&str, Vec<u8>, &str); 3] = [
        ("truncated", good[..good.len() - 100].to_vec(), "truncated"),
        ("corrupt", corrupt, "bad checksum"),
        ("forged", forged, "does not decode"),
    ];
    for (name, bytes, reason) in attacks {
        std::fs::write(&entry, bytes).expect("damage");
        // The report kept beside it would answer first: gone, so that the
        // load entry is read.
        remove_results(&cache);
        let out = analyze_cached(&cache, &log, &[]);
        let err = stderr(&out);
        assert!(
            !err.contains("panicked") && !err.contains("loaded from cache"),
            "{name}: {err}"
        );
        assert!(
            err.contains("ignored: ") && err.contains(reason),
            "{name}: {err}"
        );
        assert_eq!(out.stdout, fresh.stdout, "{name}");
    }
    // Stale: the same size, other bytes (its last line's time moved).
    let text = std::fs::read_to_string(&log).expect("log");
    let changed = text.replacen("16:10:4", "16:10:5", 1);
    assert_eq!(changed.len(), text.len());
    std::fs::write(&log, &changed).expect("rewrite");
    let out = analyze_cached(&cache, &log, &[]);
    assert!(
        !stderr(&out).contains("loaded from cache") && !stderr(&out).contains("report from cache"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        out.stdout,
        analyze_cached(&cache, &log, &["--no-cache"]).stdout
    );
    // Standard input is read once and never cached.
    let piped = bin()
        .env("LOCKREPLAY_CACHE_DIR", &cache)
        .env("LOCKREPLAY_CACHE_VERBOSE", "1")
        .args(["analyze", "--format", "json", "/dev/stdin"])
        .stdin(std::process::Stdio::from(
            std::fs::File::open(&log).expect("open"),
        ))
        .output()
        .expect("runs");
    assert!(!stderr(&piped).contains("cache ("), "{}", stderr(&piped));
}

/// Removes the result entries (`*.lrr`) of `cache`.
fn remove_results(cache: &Path) {
    for e in std::fs::read_dir(cache).expect("cache made").flatten() {
        if e.path().extension().is_some_and(|x| x == "lrr") {
            std::fs::remove_file(e.path()).expect("remove");
        }
    }
}

/// The result cache under attack: entries forged with a sound header and
/// checksum over a report no printer writes (a terminal escape, bytes that
/// are not UTF-8), an exit code that disagrees with its problems, or bytes
/// that are no entry at all; a truncated and a corrupt one. Each is ignored
/// with a note, never printed, and the report is the fresh run's.
#[test]
fn result_entries_forged_truncated_or_corrupt_are_never_printed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let log = dir.path().join("sale.jsonl");
    std::fs::copy(sample("seed-fixed-watchdog.jsonl"), &log).expect("copy");
    let fresh = analyze_cached(&cache, &log, &["--no-cache"]);
    let first = analyze_cached(&cache, &log, &[]);
    assert_eq!(first.stdout, fresh.stdout);
    let entry = std::fs::read_dir(&cache)
        .expect("cache made")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "lrr"))
        .expect("a result entry");
    let key = entry
        .file_stem()
        .and_then(|s| u128::from_str_radix(&s.to_string_lossy(), 16).ok())
        .expect("the entry is named by its key");
    let forge = |report: &[u8], exit_code: u8, problems: Vec<String>| {
        let mut payload = report.to_vec();
        payload.extend_from_slice(&bitcode::encode(
            &lockreplay::pipeline::results::StoredOutcome {
                exit_code,
                problems,
            },
        ));
        payload.extend_from_slice(&(report.len() as u64).to_le_bytes());
        let mut b = lockreplay::ingest::cache::header(key, &payload);
        b.extend_from_slice(&payload);
        b
    };
    let good = std::fs::read(&entry).expect("entry");
    let mut corrupt = good.clone();
    let at = corrupt.len() / 2;
    corrupt[at] ^= 0x10;
    let attacks: [(&str, Vec<u8>, &str); 6] = [
        (
            "escape",
            forge(b"{}\x1b]0;pwned\x07\n", 0, vec![]),
            "no printer writes",
        ),
        ("not utf-8", forge(b"{\xff}\n", 0, vec![]), "not UTF-8"),
        ("exit code", forge(b"{}\n", 2, vec![]), "disagrees"),
        (
            "no entry",
            forge(b"", 0, vec![])[..48].to_vec(),
            "truncated",
        ),
        ("truncated", good[..good.len() - 100].to_vec(), "truncated"),
        ("corrupt", corrupt, "bad checksum"),
    ];
    for (name, bytes, reason) in attacks {
        std::fs::write(&entry, bytes).expect("damage");
        let out = analyze_cached(&cache, &log, &[]);
        let err = stderr(&out);
        assert!(
            !err.contains("panicked") && !err.contains("report from cache"),
            "{name}: {err}"
        );
        assert!(
            err.contains("report cache entry") && err.contains(reason),
            "{name}: {err}"
        );
        assert_eq!(out.stdout, fresh.stdout, "{name}");
        assert_eq!(out.status.code(), fresh.status.code(), "{name}");
    }
    // The analysis kept beside it, forged: a sound header over bytes that
    // are no analysis. Read once the report entry is gone; never used.
    let analysis = std::fs::read_dir(&cache)
        .expect("cache made")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "lra"))
        .expect("an analysis entry");
    let akey = analysis
        .file_stem()
        .and_then(|s| u128::from_str_radix(&s.to_string_lossy(), 16).ok())
        .expect("named by its key");
    let payload = vec![0xa5u8; 4096];
    let mut forged = lockreplay::ingest::cache::header(akey, &payload);
    forged.extend_from_slice(&payload);
    std::fs::write(&analysis, forged).expect("forge");
    remove_results(&cache);
    let out = analyze_cached(&cache, &log, &[]);
    let err = stderr(&out);
    assert!(
        err.contains("analysis cache entry") && err.contains("does not decode"),
        "{err}"
    );
    assert!(!err.contains("analysis from cache"), "{err}");
    assert_eq!(out.stdout, fresh.stdout);
}

/// One CRI line: the node's RFC 3339 time, the stream, `P` or `F`, the
/// content (containerd's `internal/cri/io/logger.go`).
fn cri_line(ms: u64, stream: &str, tag: &str, content: &str) -> String {
    format!(
        "2026-11-30T23:{:02}:{:02}.{:03}000000Z {stream} {tag} {content}\n",
        (ms / 60_000) % 60,
        (ms / 1000) % 60,
        ms % 1000
    )
}

/// A Spring Boot 3 line at `ms` (the app's clock, +08:00).
fn spring(ms: u64, words: &str) -> String {
    format!(
        "2026-12-01T07:{:02}:{:02}.{:03}+08:00  INFO 1 --- [exec-1] c.e.shop.LockService : {words}",
        (ms / 60_000) % 60,
        (ms / 1000) % 60,
        ms % 1000
    )
}

/// Item 7: `P` chunks no `F` line closes at the end of the file are read
/// as the line they would have been, with a warning naming the file, the
/// lines and the reason; a `stdout P` waits for its own stream's `F`, never
/// glued to an interleaved `stderr F`. Before: the last grant vanished
/// without a word, and the stderr line took the stdout chunk (both lines'
/// lock words lost).
#[test]
fn cri_partial_lines_are_joined_per_stream_and_never_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("web-01.cri.log");
    let grant = spring(1000, "acquired lock key=lock:sku:1 token=a ttl=30s");
    let (a, b) = grant.split_at(70);
    let late = spring(3000, "acquired lock key=lock:sku:1 token=c ttl=30s");
    let (c, d) = late.split_at(50);
    let text = [
        cri_line(1000, "stdout", "P", a),
        cri_line(
            1001,
            "stderr",
            "F",
            &spring(1001, "released lock key=lock:sku:2 token=b"),
        ),
        cri_line(1002, "stdout", "F", b),
        cri_line(
            2000,
            "stdout",
            "F",
            &spring(2000, "released lock key=lock:sku:1 token=a"),
        ),
        cri_line(3000, "stdout", "P", c),
        cri_line(3001, "stdout", "P", d),
    ]
    .concat();
    std::fs::write(&path, text).expect("write");
    let log = load(&[path]);
    let holders: Vec<String> = log
        .events
        .iter()
        .map(|e| {
            e.holder
                .map(|h| log.strings.get_or_empty(Some(h)).to_string())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(holders, ["a", "b", "a", "c"]);
    assert_eq!(log.events[0].ttl_ms(), Some(30_000));
    let w = log.warnings.kept();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].file.ends_with("web-01.cri.log"), "{}", w[0].file);
    assert_eq!(w[0].line, 6);
    let want = RecordWarning::CriUnclosed {
        stream: "stdout".into(),
        first: 5,
        last: 6,
    };
    assert_eq!(w[0].reason, want.into());
    let s = &log.sources[0];
    assert_eq!(
        [
            s.lines_read,
            s.events_loaded,
            s.lines_skipped,
            s.lines_warned
        ],
        [6, 4, 2, 0]
    );
}

/// Item 7: past the 32 MB head, where chunks are read in parallel, a lock
/// line cut into `P` chunks at a chunk boundary is joined as in the head.
/// The file (~34 MB, made here) is Spring Boot CRI lines; past 32 MB every
/// lock line is cut in three with a stderr line between. Before: each
/// chunk line started with no partial line, the chunks were skipped and
/// the `F` rests loaded as nothing: every grant past the head was lost.
#[test]
fn cri_partial_lines_past_the_head_are_joined() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("big.cri.log");
    let mut text = String::with_capacity(35 << 20);
    let mut ms = 0u64;
    // Lock lines among the first ones, where the fields are picked.
    let mut grants = 0;
    while text.len() < 32 << 20 {
        let words = if ms < 400 && ms.is_multiple_of(2) {
            grants += 1;
            format!("acquired lock key=lock:{ms} token=t{ms} ttl=5s")
        } else {
            "healthy".to_string()
        };
        text.push_str(&cri_line(ms, "stdout", "F", &spring(ms, &words)));
        ms += 1;
    }
    while text.len() < 34 << 20 {
        let line = spring(
            ms,
            &format!("acquired lock key=lock:{ms} token=t{ms} ttl=5s"),
        );
        // Cut inside the words: no part names the event on its own.
        let words = line.find(" : ").expect("layout") + 3;
        let (a, rest) = line.split_at(words + 5);
        let (b, c) = rest.split_at(20);
        text.push_str(&cri_line(ms, "stdout", "P", a));
        text.push_str(&cri_line(ms, "stderr", "F", &spring(ms, "GC pause")));
        text.push_str(&cri_line(ms, "stdout", "P", b));
        text.push_str(&cri_line(ms, "stdout", "F", c));
        grants += 1;
        ms += 1;
    }
    std::fs::write(&path, &text).expect("write");
    drop(text);
    let log = load(&[path]);
    assert_eq!(log.events.len(), grants, "every grant, past the head too");
    assert!(log.events.iter().all(|e| e.ttl_ms() == Some(5000)));
    let s = &log.sources[0];
    assert_eq!(
        s.lines_read,
        s.events_loaded + s.lines_skipped + s.lines_warned
    );
    assert_eq!(log.warnings.total(), 0, "{:?}", log.warnings.kept());
}

/// Session 20 (the `cri` fuzz target's open fault of session 19): a CRI
/// pod log whose Spring Boot lines carry their own time beside lines that
/// have only the CRI prefix's (printed without the layout). The time pick
/// is the application's `time`; the lines without it fall back to
/// `prefix.time`. Before: that fallback existed only when a line with a JSON
/// message fell inside the detection window, so here the three plain lines
/// were warned "no time in field time" and the overlap on `lock:sku:43` was
/// lost (with interleaved stderr lines, the fuzz input loaded 0 events of 3).
#[test]
fn cri_lines_without_their_own_time_keep_the_prefix_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mixed.cri.log");
    let lines = [
        cri_line(
            100,
            "stdout",
            "F",
            &spring(100, "lock acquired key=lock:sku:42 holder=t1 ttl=2000"),
        ),
        cri_line(
            200,
            "stdout",
            "F",
            "lock acquired key=lock:sku:43 holder=t2 ttl=2000",
        ),
        cri_line(
            300,
            "stdout",
            "F",
            "stock deducted key=lock:sku:43 holder=t2 sku=43 qty=1",
        ),
        cri_line(
            400,
            "stdout",
            "F",
            "lock released key=lock:sku:43 holder=t2",
        ),
        cri_line(
            1100,
            "stdout",
            "F",
            &spring(1100, "lock released key=lock:sku:42 holder=t1"),
        ),
    ];
    std::fs::write(&path, lines.concat()).expect("write");
    let log = load(&[path]);
    assert_eq!(log.warnings.total(), 0, "{:?}", log.warnings.kept());
    assert_eq!(log.events.len(), 5, "every line is an event");
    let s = &log.sources[0];
    assert_eq!(s.lines_read, 5);
    assert_eq!(s.events_loaded, 5);
}

/// A docker json-file line (`kubectl logs` and docker's own format) whose
/// `log` holds `payload`.
fn docker_line(ms: u64, payload: &str) -> String {
    let log = serde_json::to_string(&format!("{payload}\n")).expect("json");
    format!(
        "{{\"log\":{log},\"stream\":\"stdout\",\"time\":\"2026-11-30T23:06:{:02}.{:03}Z\"}}\n",
        ms / 1000 % 60,
        ms % 1000
    )
}

/// Item 6: a docker json-file log whose payloads mix a JSON logger's
/// records (`owner`, `ttl_ms`) and Spring Boot text lines (`token=`,
/// `ttl=`): the fields are picked per kind, so both kinds' holders and TTLs
/// load and the two grants of one key by two holders are an overlap. Before:
/// one field per role for the file, the text lines' holders and TTLs were
/// dropped without a warning and the overlap vanished.
#[test]
fn envelope_payloads_mixing_json_and_text_keep_both_kinds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("shop-0.docker.log");
    let json = |ms: u64, ev: &str| {
        format!(
            "{{\"ts\":\"2026-12-01T07:00:{:02}.{:03}+08:00\",\"level\":\"info\",\"event\":\"{ev}\",\"lock_key\":\"lock:sku:1\",\"owner\":\"json-a\",\"ttl_ms\":30000}}",
            ms / 1000 % 60,
            ms % 1000
        )
    };
    let text = [
        docker_line(1000, &json(1000, "acquired")),
        docker_line(
            1500,
            &spring(1500, "acquired lock key=lock:sku:1 token=text-b ttl=30s"),
        ),
        docker_line(4000, &json(4000, "released")),
        docker_line(
            4500,
            &spring(4500, "released lock key=lock:sku:1 token=text-b"),
        ),
    ]
    .concat();
    std::fs::write(&path, text).expect("write");
    let log = load(&[path]);
    let got: Vec<(String, Option<i64>)> = log
        .events
        .iter()
        .map(|e| {
            let h = e
                .holder
                .map(|h| log.strings.get_or_empty(Some(h)).to_string());
            (h.unwrap_or_default(), e.ttl_ms())
        })
        .collect();
    assert_eq!(
        got,
        [
            ("json-a".to_string(), Some(30_000)),
            ("text-b".to_string(), Some(30_000)),
            ("json-a".to_string(), Some(30_000)),
            ("text-b".to_string(), None),
        ]
    );
    let analysis = lockreplay::analysis::analyze(&log, &lockreplay::analysis::Settings::default());
    assert_eq!(analysis.summary.overlap_pairs, 1);
}

/// Session 19's hostile-input probe, run as a user would. A log that
/// starts inside two holds (renewals and a release, no acquire) gave "0
/// holders, 0 incidents", exit 0: now exit 2 with the reason, and each
/// holder's lines are a `no_acquire` finding.
#[test]
fn lock_events_that_build_no_hold_are_an_error_not_an_all_clear() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("only-renewals.jsonl");
    let lines = [
        r#"{"ts":"2025-03-03T10:20:00Z","event":"renewed","lock_key":"k1","owner":"a","ttl_ms":1000}"#,
        r#"{"ts":"2025-03-03T10:20:00.5Z","event":"renewed","lock_key":"k1","owner":"b","ttl_ms":1000}"#,
        r#"{"ts":"2025-03-03T10:20:03Z","event":"released","lock_key":"k1","owner":"a"}"#,
    ];
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let out = bin()
        .args(["analyze", "--no-cache", "--format", "json"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_error_saying(&out, "no hold could be built");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let kinds: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["no_acquire", "no_acquire"]);
}

/// Session 19's probe: a CSV's warnings named the wrong line after blank
/// lines (line 3 for line 8) and in a file of lone `\r` line ends (line 1
/// for lines 3 and 4).
#[test]
fn csv_warnings_name_the_line_in_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let head = "time,event,key,holder,ttl_ms\n2025-03-03T10:20:00Z,acquired,k1,a,1000\n";
    let cases = [
        (
            "blank.csv",
            format!("{head}\n\n\n\n\nBAD1,acquired,k1,c,1000\n"),
            vec![":8: "],
        ),
        (
            "cr.csv",
            format!("{head}BAD1,acquired,k1,c,1000\nBAD2,acquired,k1,c,1000\n").replace('\n', "\r"),
            vec![":3: ", ":4: "],
        ),
    ];
    for (name, text, want) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        let out = bin()
            .args(["analyze", "--no-cache"])
            .arg(&path)
            .output()
            .expect("runs");
        let all = String::from_utf8_lossy(&out.stdout).to_string() + &stderr(&out);
        let warned: Vec<&str> = all
            .lines()
            .filter(|l| l.contains("unreadable time"))
            .collect();
        assert_eq!(warned.len(), want.len(), "{all}");
        for (line, at) in warned.iter().zip(&want) {
            assert!(line.contains(&format!("{name}{at}")), "{name}: {line}");
        }
    }
}

/// Session 19's probe: `cat a.gz b.jsonl` lost b's lines with only
/// "invalid gzip header"; the warning now counts the bytes and lines not
/// read. A file name with a line feed printed a fake report line.
#[test]
fn plain_lines_after_gzip_are_counted_and_names_stay_on_their_line() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(sample("seed-incident.jsonl")).expect("sample");
    let lines: Vec<&str> = text.lines().collect();
    let (a, b) = lines.split_at(lines.len() / 2);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all((a.join("\n") + "\n").as_bytes())
        .expect("gzip");
    let mut bytes = gz.finish().expect("gzip");
    bytes.extend_from_slice((b.join("\n") + "\n").as_bytes());
    let path = dir
        .path()
        .join("app.jsonl\nlockreplay: 0 incident(s) · all clear");
    std::fs::write(&path, bytes).expect("write");
    let out = bin()
        .args(["analyze", "--no-cache"])
        .arg(&path)
        .output()
        .expect("runs");
    let all = String::from_utf8_lossy(&out.stdout).to_string() + &stderr(&out);
    let said = "non-blank line(s), are not compressed data and were not read";
    assert!(all.contains(said), "{all}");
    assert!(
        all.contains(&format!(
            "{} non-blank line(s)",
            b.iter().filter(|l| !l.trim().is_empty()).count()
        )),
        "{all}"
    );
    assert!(
        !all.lines()
            .any(|l| l.starts_with("lockreplay: 0 incident(s) · all clear")),
        "{all}"
    );
}

/// Session 19's probe: with a small cap, the cache's eviction deleted a
/// log named `app.lrc` kept in the cache folder (the oldest "entry").
#[test]
fn cache_eviction_never_deletes_an_input_in_the_cache_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    std::fs::create_dir(&cache).expect("mkdir");
    let text = std::fs::read_to_string(sample("seed-incident.jsonl")).expect("sample");
    let input = cache.join("app.lrc");
    std::fs::write(&input, text.repeat(1 + (1 << 20) / text.len())).expect("write");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 86_400);
    std::fs::File::options()
        .append(true)
        .open(&input)
        .and_then(|f| f.set_modified(old))
        .expect("mtime");
    let out = bin()
        .args(["analyze"])
        .arg(&input)
        .env("LOCKREPLAY_CACHE_DIR", &cache)
        .env("LOCKREPLAY_CACHE_MAX_MB", "1")
        .output()
        .expect("runs");
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    assert!(input.is_file(), "the input was deleted");
}

/// Session 20's new-user trial: `analyze --format json` of a run that is
/// no answer (exit 2) said so only by the exit code when lock events were
/// read but none named a key and a holder (`sources[].unreadable` is null
/// then). The report's `not_readable` lists why; a readable run has none.
#[test]
fn the_json_report_of_a_run_that_is_no_answer_says_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let no_holder = dir.path().join("no-holder.jsonl");
    std::fs::write(
        &no_holder,
        "{\"ts\":\"2026-12-01T00:00:00Z\",\"event\":\"acquired\",\"ttl_ms\":2000}\n\
         {\"ts\":\"2026-12-01T00:00:01Z\",\"event\":\"released\"}\n",
    )
    .expect("write");
    let notes = dir.path().join("notes.log");
    std::fs::write(&notes, "hello\nworld\n").expect("write");
    for (file, says) in [
        (&no_holder, "none names both a lock key and a holder"),
        (&notes, "no lock event could be read"),
    ] {
        let out = bin()
            .args(["analyze", "--format", "json"])
            .arg(file)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let why = v["not_readable"].to_string();
        assert!(why.contains(says), "{}: {why}", file.display());
        assert_eq!(v["summary"]["incidents"], 0);
    }
    let fine = dir.path().join("fine.jsonl");
    std::fs::write(
        &fine,
        "{\"ts\":\"2026-12-01T00:00:00Z\",\"event\":\"acquired\",\"key\":\"k\",\"owner\":\"A\",\"ttl_ms\":2000}\n\
         {\"ts\":\"2026-12-01T00:00:01Z\",\"event\":\"released\",\"key\":\"k\",\"owner\":\"A\"}\n",
    )
    .expect("write");
    let out = bin()
        .args(["analyze", "--format", "json"])
        .arg(&fine)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(v.get("not_readable").is_none(), "{v}");
}

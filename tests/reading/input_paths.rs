//! What a path on the command line can be besides a regular file: the
//! same file twice (by another name or a link), a device, standard input,
//! a FIFO plain or gzipped, a mapping file too large to read. Each is read
//! once or refused at once, with a reason.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{assert_error_saying, bin, damaged, export, load, sample, stderr};

#[test]
fn the_same_file_twice_is_read_once_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = damaged("first-line-comment.jsonl");
    let once = load(std::slice::from_ref(&file));
    let link = dir.path().join("link.jsonl");
    let hard = dir.path().join("hard.jsonl");
    std::fs::copy(&file, dir.path().join("copy.jsonl")).expect("copy");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&file, &link).expect("symlink");
    std::fs::hard_link(dir.path().join("copy.jsonl"), &hard).expect("hard link");
    for paths in [
        vec![file.clone(), file.clone()],
        vec![file.clone(), link.clone()],
        vec![dir.path().join("copy.jsonl"), hard.clone()],
    ] {
        let log = load(&paths);
        assert_eq!(log.events.len(), once.events.len(), "{paths:?}");
        assert_eq!(log.sources.len(), 1, "{paths:?}");
        let said = log
            .warnings
            .kept()
            .iter()
            .any(|w| w.reason.to_string().contains("the same file as") && w.line == 0);
        assert!(said, "{paths:?}: {:?}", log.warnings.kept());
    }
}

#[cfg(unix)]
#[test]
fn a_device_as_input_is_refused_at_once() {
    let started = std::time::Instant::now();
    let out = bin().args(["analyze", "/dev/zero"]).output().expect("runs");
    assert_error_saying(&out, "is a device");
    // Not a timing test: only a guard against reading gigabytes first.
    assert!(started.elapsed().as_secs() < 60);
}

/// Waits for `child` at most `secs`, killing it after: a hang fails the
/// test instead of stopping the run (a hang is what these tests guard
/// against).
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

/// A CSV export on standard input through `/dev/stdin`: read once (a
/// second open would see only what the first left, "no lock event could be
/// read", exit 2).
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
/// file. A FIFO opened a second time after its head was read loses the
/// head, and with gzip the second open waits for a writer forever.
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
        // Unblocks a feeder still waiting for a reader;
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

/// A mapping file of 8 MB (sparse: no disk used) is refused with its size
/// before anything reads it whole: the TOML lexer asks for 7.4 GB to read a
/// 1 GB one (an allocation abort).
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

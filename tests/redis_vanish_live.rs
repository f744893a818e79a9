//! Lock keys a real redis-server dropped, captured with `redis-cli monitor`
//! while the real redis-py client (`tests/live/vanish.py`) takes and
//! releases the locks: a lock evicted under `maxmemory` with
//! `volatile-ttl` (three times), a `FLUSHDB` by another client, and a
//! restart without persistence (the capture is the two `redis-cli monitor`
//! runs, before and after, one after the other in one file). The replay
//! must find each vanished key from the command stream alone (MONITOR shows
//! no eviction and no reply), end the earlier holder's lease there as
//! `lock_vanished`, and name the cause from the evidence at hand: the
//! eviction policy in `INFO`, the `FLUSHDB` in the capture, the server
//! log's restart.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use lockreplay::analysis::{Cause, Settings, analyze};
use lockreplay::ingest::{IngestOptions, Progress, load_paths};
use lockreplay::model::{SourceNote, VanishCause, VanishProof};

/// Kills what it holds when dropped, so a failing assert leaves nothing
/// running.
struct Reaper(Vec<Child>);

impl Drop for Reaper {
    fn drop(&mut self) {
        for c in &mut self.0 {
            if c.try_wait().ok().flatten().is_none() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// True when redis-server and redis-py are here; else the test skips,
/// which CI (`.ci/run` installs both) never allows.
fn tools_present() -> bool {
    let server = Command::new("redis-server").arg("--version").output();
    let py = Command::new("python3")
        .args(["-c", "import redis"])
        .output();
    let ok = server.is_ok() && py.is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install redis-server and redis-py (.ci/run does)"
        );
        eprintln!("SKIP: redis-server or redis-py is not installed here; .ci/run installs them");
    }
    ok
}

fn cli(port: u16, args: &[&str]) -> String {
    let out = Command::new("redis-cli")
        .arg("-p")
        .arg(port.to_string())
        .args(args)
        .output()
        .expect("redis-cli");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Starts redis-server on `port` without persistence, logging to `log`.
fn server(dir: &Path, port: u16) -> Child {
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(dir)
        .arg("--logfile")
        .arg(dir.join("redis-server.log"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start redis-server");
    let start = Instant::now();
    while cli(port, &["ping"]).trim() != "PONG" {
        assert!(start.elapsed() < Duration::from_secs(10), "redis-server");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// `redis-cli monitor` appending its standard output to `capture`.
fn monitor(port: u16, capture: &Path) -> Child {
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(capture)
        .expect("capture");
    let child = Command::new("redis-cli")
        .args(["-p", &port.to_string(), "monitor"])
        .stdout(out)
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-cli monitor");
    std::thread::sleep(Duration::from_millis(300));
    child
}

/// Runs a scenario of `tests/live/vanish.py`; its JSON answer.
fn drive(port: u16, scenario: &str) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/live/vanish.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(port.to_string())
        .arg(scenario)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{scenario}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("driver JSON")
}

/// Stops the server (SHUTDOWN NOSAVE) and waits for it and the monitor.
fn stop(port: u16, server: &mut Child, monitor: &mut Child) {
    cli(port, &["shutdown", "nosave"]);
    for c in [server, monitor] {
        let start = Instant::now();
        while c.try_wait().ok().flatten().is_none() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = c.kill();
        let _ = c.wait();
    }
}

/// Runs the three scenarios; the capture, server log and `INFO` files.
fn capture_all(dir: &Path) -> Vec<PathBuf> {
    let port = free_port();
    let capture = dir.join("capture.monitor.log");
    let mut reaper = Reaper(vec![server(dir, port)]);
    reaper.0.push(monitor(port, &capture));
    // Away from the server's start, so its log's "Redis is starting" is
    // no evidence for the evictions.
    std::thread::sleep(Duration::from_millis(700));
    for round in drive(port, "evict").as_array().expect("rounds") {
        assert_eq!(round["a"], true, "{round}");
        assert_eq!(
            round["b"], true,
            "B's SET NX won once the lock was evicted: {round}"
        );
        assert_eq!(round["release_a"], 0, "{round}");
        assert_eq!(round["release_b"], 1, "{round}");
    }
    let f = drive(port, "flush");
    assert_eq!((&f["a"], &f["b"]), (&true.into(), &true.into()), "{f}");
    assert_eq!(f["release_a"], 0, "{f}");
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(drive(port, "restart1")["a"], true);
    let info = cli(port, &["info"]);
    std::fs::write(dir.join("info.txt"), &info).expect("info");
    let (mut s, mut m) = (reaper.0.remove(0), reaper.0.remove(0));
    stop(port, &mut s, &mut m);
    reaper.0.push(server(dir, port));
    reaper.0.push(monitor(port, &capture));
    let r = drive(port, "restart2");
    assert_eq!(r["b"], true, "the restart emptied the keyspace: {r}");
    assert_eq!((&r["release_a"], &r["release_b"]), (&0.into(), &1.into()));
    let (mut s, mut m) = (reaper.0.remove(0), reaper.0.remove(0));
    stop(port, &mut s, &mut m);
    vec![capture, dir.join("redis-server.log"), dir.join("info.txt")]
}

#[test]
fn evicted_flushed_and_restarted_locks_are_inferred_from_the_capture() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    let files = capture_all(dir.path());
    let log = load_paths(&files, &IngestOptions::default(), &Progress::default()).expect("load");
    assert_eq!(log.warnings.total(), 0, "{:?}", log.warnings.kept());
    let analysis = analyze(&log, &Settings::default());
    let pairs = |key: &str| -> Vec<Cause> {
        analysis
            .overlaps
            .iter()
            .filter(|o| log.strings.get(o.key) == key)
            .map(|o| o.cause)
            .collect()
    };
    assert_eq!(pairs("lock:evict"), vec![Cause::LockVanished; 3]);
    assert_eq!(pairs("lock:flush"), vec![Cause::LockVanished]);
    assert_eq!(pairs("lock:restart"), vec![Cause::LockVanished]);
    assert!(
        !analysis
            .findings
            .iter()
            .any(|f| f.kind.as_str() == "foreign_release"),
        "no false foreign release"
    );
    let notes: Vec<&SourceNote> = log.sources[0]
        .notes
        .iter()
        .filter(|n| matches!(n, SourceNote::LockVanished { .. }))
        .collect();
    let of = |key: &str| -> Vec<(&VanishProof, &VanishCause)> {
        notes
            .iter()
            .filter_map(|n| match n {
                SourceNote::LockVanished {
                    key: k,
                    proof,
                    cause,
                    ..
                } if k == key => Some((proof, cause)),
                _ => None,
            })
            .collect()
    };
    let evict = of("lock:evict");
    assert_eq!(evict.len(), 3, "{notes:?}");
    for (proof, cause) in &evict {
        assert!(matches!(proof, VanishProof::Won { command, .. } if command == "SET NX"));
        assert_eq!(
            **cause,
            VanishCause::Policy {
                policy: "volatile-ttl".into(),
                file: "info.txt".into()
            }
        );
    }
    let flush = of("lock:flush");
    assert!(
        matches!(flush.as_slice(), [(VanishProof::Dropped { command, .. }, VanishCause::InCapture)] if command == "FLUSHDB"),
        "{flush:?}"
    );
    let restart = of("lock:restart");
    assert!(
        matches!(restart.as_slice(), [(VanishProof::Won { shown_by, .. }, VanishCause::Evidence { kind, file, .. })]
            if shown_by == "PEXPIRE" && kind == "restart" && file == "redis-server.log"),
        "{restart:?}"
    );
}

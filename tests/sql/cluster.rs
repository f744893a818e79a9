//! The two-server ClickHouse cluster the SQL tests run on
//! (`tests/sql/ch_cluster.py`): the one `.ci/run` starts, named by
//! `LOCKREPLAY_CLICKHOUSE_CLUSTER` (its `cluster.json`), else one started
//! here for the test and stopped when it ends. Without Debian's
//! `clickhouse-server`, CI fails and elsewhere the test is skipped with a
//! message.

#![allow(dead_code)] // each test crate uses a part of this helper

use std::path::{Path, PathBuf};
use std::process::Command;

/// A running cluster: its `cluster.json`, name and the servers' HTTP
/// interfaces (the first is where queries through the cluster go).
pub struct Cluster {
    pub file: PathBuf,
    pub name: String,
    pub http: Vec<String>,
    own: Option<tempfile::TempDir>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(dir) = &self.own {
            let _ = Command::new("python3")
                .arg(script())
                .arg("stop")
                .arg(dir.path())
                .status();
        }
    }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sql/ch_cluster.py")
}

/// The cluster to test on, or `None` (skipped, said on stderr) where
/// `clickhouse-server` is missing outside CI.
pub fn cluster() -> Option<Cluster> {
    if let Some(file) = std::env::var_os("LOCKREPLAY_CLICKHOUSE_CLUSTER") {
        return Some(read(PathBuf::from(file), None));
    }
    let found = Command::new("clickhouse-server")
        .arg("--version")
        .output()
        .is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install clickhouse-server (.ci/run does)"
        );
        eprintln!(
            "SKIPPED: clickhouse-server is missing here (apt install clickhouse-server); CI runs this test"
        );
        return None;
    }
    let dir = tempfile::tempdir().expect("tmp");
    let out = Command::new("python3")
        .arg(script())
        .arg("start")
        .arg(dir.path())
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "ch_cluster.py start: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(read(dir.path().join("cluster.json"), Some(dir)))
}

fn read(file: PathBuf, own: Option<tempfile::TempDir>) -> Cluster {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).expect("cluster.json")).expect("json");
    Cluster {
        name: v["name"].as_str().expect("name").to_string(),
        http: v["http"]
            .as_array()
            .expect("http")
            .iter()
            .map(|u| u.as_str().expect("url").to_string())
            .collect(),
        file,
        own,
    }
}

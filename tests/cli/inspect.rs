//! `lockreplay inspect`: every handed case is shown
//! with its roles, and the mapping it writes reads the file to the same
//! answer as reading by evidence; a guess is shown as one; an unreadable
//! file is exit 2; an input is never written over.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_lockreplay");

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(BIN).args(args).output().expect("run")
}

fn cases() -> Vec<(PathBuf, Vec<PathBuf>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cases");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&root).expect("cases") {
        let dir = e.expect("entry").path();
        let Ok(text) = std::fs::read_to_string(dir.join("case.json")) else {
            continue;
        };
        let case: serde_json::Value = serde_json::from_str(&text).expect("case.json");
        let files = case["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| dir.join(f.as_str().expect("name")))
            .collect();
        out.push((dir, files));
    }
    out.sort();
    out
}

/// Overlap pairs and oversold units of `analyze --format json`.
fn answer(files: &[PathBuf], mapping: Option<&Path>) -> (Vec<String>, i64) {
    let mut cmd = Command::new(BIN);
    cmd.args(["analyze", "--no-cache", "--format", "json"]);
    if let Some(m) = mapping {
        cmd.arg("--mapping").arg(m);
    }
    let out = cmd.args(files).output().expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut pairs: Vec<String> = v["incidents"]
        .as_array()
        .expect("incidents")
        .iter()
        .flat_map(|i| i["overlaps"].as_array().expect("overlaps").clone())
        .map(|o| {
            format!(
                "{} {} {} {}",
                o["key"], o["earlier"], o["later"], o["cause"]
            )
        })
        .collect();
    pairs.sort();
    (pairs, v["summary"]["oversold_units"].as_i64().unwrap_or(-1))
}

#[test]
fn every_single_file_case_inspects_and_its_written_mapping_reads_it_the_same_way() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut checked = 0;
    for (dir, files) in cases() {
        let mapping = tmp.path().join(format!(
            "{}.toml",
            dir.file_name().expect("name").to_string_lossy()
        ));
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "inspect".as_ref(),
            "--write-mapping".as_ref(),
            mapping.as_os_str(),
        ];
        args.extend(files.iter().map(|f| f.as_os_str()));
        let out = run(&args);
        let text = String::from_utf8_lossy(&out.stdout);
        let name = dir.display();
        if files.len() != 1 || !mapping.exists() {
            // MONITOR captures and several files: shown, no single mapping.
            assert!(text.contains("container:"), "{name}: {text}");
            continue;
        }
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for want in [
            "container:",
            "readers' bids",
            " time ",
            " key ",
            " holder ",
            "events: ",
        ] {
            assert!(text.contains(want), "{name}: no {want:?} in\n{text}");
        }
        let toml = std::fs::read_to_string(&mapping).expect("mapping");
        assert!(
            toml.contains("[fields]") && toml.contains("time = "),
            "{toml}"
        );
        assert_eq!(
            answer(&files, Some(&mapping)),
            answer(&files, None),
            "{name}: the mapping reads differently:\n{toml}"
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} cases checked");
}

#[test]
fn a_guess_is_shown_as_one_and_an_unreadable_file_is_an_error() {
    let tmp = tempfile::tempdir().expect("tmp");
    // Two holder-like fields: `owner` is chosen, `token` is the other.
    let log = tmp.path().join("two-holders.jsonl");
    std::fs::write(
        &log,
        "{\"ts\":\"2026-12-01T10:00:00Z\",\"event\":\"acquired\",\"key\":\"lock:a\",\"owner\":\"w1\",\"token\":\"t1\",\"ttl_ms\":2000}\n\
         {\"ts\":\"2026-12-01T10:00:01Z\",\"event\":\"released\",\"key\":\"lock:a\",\"owner\":\"w1\",\"token\":\"t1\"}\n",
    )
    .expect("write");
    let out = run(&["inspect".as_ref(), log.as_os_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    let holder = text
        .lines()
        .find(|l| l.contains(" holder "))
        .expect("a holder row");
    assert!(holder.contains("guess (also: token)"), "{text}");

    let junk = tmp.path().join("junk.txt");
    std::fs::write(&junk, "nothing here\nat all\n").expect("write");
    let out = run(&["inspect".as_ref(), junk.as_os_str()]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // The mapping is never written over an input.
    let out = run(&[
        "inspect".as_ref(),
        "--write-mapping".as_ref(),
        log.as_os_str(),
        log.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        std::fs::read_to_string(&log)
            .expect("log")
            .contains("\"owner\":\"w1\"")
    );
}

/// A text layout no reader knows: `inspect` suggests a `line_regex` (the
/// mapping dialog's guess) and the message templates it gives.
#[test]
fn an_unknown_text_layout_gets_a_line_regex_suggestion() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mapping-dialog/own-layout.log");
    let out = run(&["inspect".as_ref(), file.as_os_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            r"suggested line_regex (a mapping file's; or the window's Map fields…): '^(?P<time>\d\d:\d\d:\d\d\.\d\d\d)\|(?P<level>[^\|]+)\|(?P<message>.*)$'"
        ),
        "{text}"
    );
    assert!(
        text.contains("2 × <*>|lock <*> by <*> got ttl=<*>"),
        "{text}"
    );
}

/// The rows of `inspect`'s event-template table in `stdout`: (lines, kind,
/// why, template) for each row under a heading (columns of 6, 17 and 13
/// characters, two spaces apart, after four).
fn template_rows(stdout: &str) -> Vec<(usize, String, String, String)> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in stdout.lines() {
        if line.starts_with("  event templates") {
            inside = true;
            continue;
        }
        inside = inside && line.starts_with("    ");
        let Some(count) = line.get(4..10).and_then(|c| c.trim().parse::<usize>().ok()) else {
            continue;
        };
        if inside {
            let col = |a: usize, b: usize| line.get(a..b.min(line.len())).unwrap_or("").trim();
            out.push((
                count,
                col(12, 29).to_string(),
                col(31, 44).to_string(),
                col(46, line.len()).to_string(),
            ));
        }
    }
    out
}

/// The row of `rows` whose template is `template`.
fn row<'a>(
    rows: &'a [(usize, String, String, String)],
    template: &str,
) -> &'a (usize, String, String, String) {
    rows.iter()
        .find(|r| r.3 == template)
        .unwrap_or_else(|| panic!("no row {template:?} in {rows:?}"))
}

/// A file read by the built-in words: each event name with its count, its
/// kind and `words`; a name no kind reads is `unread`.
#[test]
fn the_template_table_shows_words_read_by_the_vocabulary() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cases/BR-01-redispy-shared-lock-overrun/inventory-sync.jsonl");
    let out = run(&["inspect".as_ref(), "--no-cache".as_ref(), file.as_os_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  event templates (values of `event`;"),
        "{text}"
    );
    let rows = template_rows(&text);
    let acquired = row(&rows, "acquired");
    assert_eq!(
        (acquired.1.as_str(), acquired.2.as_str()),
        ("acquired", "words"),
        "{text}"
    );
    assert!(acquired.0 >= 2, "{text}");
    let attempt = row(&rows, "acquire_attempt");
    assert_eq!(attempt.2, "unread", "{text}");
}

/// A text file whose release is in words no list has (`归还锁`): the
/// protocol places those lines as releases, and the table says so.
#[test]
fn the_template_table_shows_words_placed_by_the_protocol() {
    // tests/fixtures/protocol/README.md tells the story.
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/protocol/unlisted-release.log");
    let out = run(&["inspect".as_ref(), "--no-cache".as_ref(), path.as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rows = template_rows(&stdout);
    let release = rows
        .iter()
        .find(|r| r.3.contains("归还锁"))
        .unwrap_or_else(|| panic!("no 归还锁 row: {stdout}"));
    assert_eq!(
        (release.0, release.1.as_str(), release.2.as_str()),
        (2, "released", "protocol"),
        "{stdout}"
    );
}

/// A file read with a mapping: its own event words get their kinds from
/// the mapping's `[events]`, and the table says `mapping`.
#[test]
fn the_template_table_shows_words_read_by_the_mapping() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mapping-dialog");
    let out = run(&[
        "inspect".as_ref(),
        "--no-cache".as_ref(),
        "--mapping".as_ref(),
        dir.join("odd-names.mapping.toml").as_os_str(),
        dir.join("odd-names.jsonl").as_os_str(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let rows = template_rows(&text);
    let grabbed = row(&rows, "grabbed");
    assert_eq!(
        (grabbed.1.as_str(), grabbed.2.as_str()),
        ("acquired", "mapping"),
        "{text}"
    );
    let stocked = row(&rows, "stocked");
    assert_eq!(
        (stocked.1.as_str(), stocked.2.as_str()),
        ("stock_initialized", "mapping"),
        "{text}"
    );
}

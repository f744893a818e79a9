//! Text from a log, a file name or a mapping file never drives the
//! terminal, a Markdown reader or a spreadsheet: escapes are shown
//! escaped, Markdown is quoted, formula cells are defused, and control
//! bytes never reach stderr raw.

use crate::support::{self, bin, damaged, sample, stderr};

#[test]
fn log_data_cannot_drive_a_terminal_markdown_or_a_spreadsheet() {
    let input = damaged("injection.jsonl");
    for format in ["text", "md"] {
        let out = bin()
            .args(["analyze", "--format", format])
            .arg(&input)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{format}: raw escapes"
        );
        assert!(text.contains("\\u{1b}[2J"), "{format}: the escape is shown");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("report");
    let out = support::report_no_images(&[], &folder, &input);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let md = std::fs::read_to_string(folder.join("report.md")).expect("report.md");
    assert!(
        !md.contains("w2|**bold**<script> acquired"),
        "raw Markdown in prose"
    );
    assert!(md.contains("w2\\|\\*\\*bold\\*\\*\\<script\\>"), "{md}");
    let csv = std::fs::read_to_string(folder.join("incidents.csv")).expect("incidents.csv");
    let mut rdr = csv::Reader::from_reader(csv.as_bytes());
    for row in rdr.records() {
        let row = row.expect("row");
        for cell in row.iter() {
            assert!(
                !cell.starts_with(['=', '+', '-', '@']),
                "a formula cell: {cell}"
            );
        }
    }
    assert!(csv.contains("'=HYPERLINK"), "{csv}");
}

/// ESC and BEL in a file name, a mapping file's error and a report folder's
/// name reach stderr escaped, never raw (a terminal would obey them).
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

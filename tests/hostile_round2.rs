//! The second hostile round (issue #18): our own attack corpus in
//! `tests/fixtures/hostile/round2/` (small files; big ones are made here at
//! run time) and the runs of the built binary that each defect of the issue
//! named. Every test here failed before its fix.

use std::path::{Path, PathBuf};

use lockreplay::model::{Dialect, LoadedLog};

mod support;
use support::{assert_error_saying, bin, load, stderr};

fn round2(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile/round2")
        .join(name)
}

/// (file, dialect, events, [read, loaded, skipped, warned], warned lines).
type Row = (&'static str, Dialect, usize, [u64; 4], &'static [u64]);

#[rustfmt::skip]
const CORPUS: &[Row] = &[
    // Lost lines: each damage costs its own line a warning, never the rest.
    ("first-line-comment.jsonl", Dialect::JsonLines, 4, [5, 4, 0, 1], &[1]),
    ("first-line-cut.jsonl", Dialect::JsonLines, 3, [4, 3, 0, 1], &[1]),
    ("logfmt-first-line-comment.logfmt", Dialect::Logfmt, 4, [5, 4, 0, 1], &[1]),
    ("monitor-password-warning.monitor", Dialect::RedisMonitor, 2, [6, 2, 3, 1], &[1]),
    ("json-arrays-joined.json", Dialect::JsonArray, 4, [4, 4, 0, 0], &[]),
    ("json-array-then-lines.json", Dialect::JsonArray, 4, [4, 4, 0, 0], &[]),
    ("csv-unbalanced-quote.csv", Dialect::Csv, 6, [7, 6, 0, 1], &[4]),
    // Its damaged line is the file's sixth (CRLF line ends; the csv
    // crate's own line number said 5 until session 19).
    ("gb18030-one-bad-sequence.csv", Dialect::Csv, 4, [5, 4, 0, 1], &[6]),
    ("lone-cr-in-lf.jsonl", Dialect::JsonLines, 4, [4, 4, 0, 0], &[]),
    ("logfmt-unterminated-quote.logfmt", Dialect::Logfmt, 4, [4, 4, 0, 0], &[]),
];

#[test]
fn one_damaged_line_costs_that_line_only() {
    let mut failures = Vec::new();
    for &(file, dialect, events, counts, warned) in CORPUS {
        let log = load(&[round2(file)]);
        let s = &log.sources[0];
        let got_counts = [
            s.lines_read,
            s.events_loaded,
            s.lines_skipped,
            s.lines_warned,
        ];
        let got_lines: Vec<u64> = log.warnings.kept().iter().map(|w| w.line).collect();
        assert_eq!(
            s.lines_read,
            s.events_loaded + s.lines_skipped + s.lines_warned,
            "{file}: accounting"
        );
        if (
            s.dialect,
            log.events.len(),
            got_counts,
            got_lines.as_slice(),
        ) != (dialect, events, counts, warned)
        {
            failures.push(format!(
                "{file}: got {:?} {} {got_counts:?} {got_lines:?}, want {dialect:?} {events} {counts:?} {warned:?}",
                s.dialect,
                log.events.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_unterminated_quote_keeps_the_event_of_its_line() {
    let log = load(&[round2("logfmt-unterminated-quote.logfmt")]);
    let first = log
        .events
        .iter()
        .find(|e| e.source.line == 1)
        .expect("line 1 loads");
    assert!(first.kind.is_lock(), "{:?}", first.kind);
    assert_eq!(log.strings.get(first.holder.expect("holder")), "w1");
}

#[test]
fn a_gb18030_file_with_one_bad_sequence_stays_gb18030() {
    let log = load(&[round2("gb18030-one-bad-sequence.csv")]);
    assert_eq!(log.sources[0].encoding, "GB18030");
    let holders: Vec<&str> = log
        .events
        .iter()
        .filter_map(|e| e.holder.map(|h| log.strings.get(h)))
        .collect();
    assert!(holders.contains(&"乙"), "{holders:?}");
}

#[test]
fn the_same_file_twice_is_read_once_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = round2("first-line-comment.jsonl");
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

#[test]
fn a_gzip_bomb_is_refused_with_its_numbers() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bomb.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).expect("create"),
        flate2::Compression::best(),
    );
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..100 {
        enc.write_all(&zeros).expect("write");
    }
    enc.finish().expect("finish");
    let out = bin().args(["analyze"]).arg(&path).output().expect("runs");
    assert_error_saying(&out, "decompression bomb");
}

fn app_log(dir: &Path) -> PathBuf {
    let path = dir.join("app.jsonl");
    std::fs::copy(round2("first-line-comment.jsonl"), &path).expect("copy");
    path
}

#[test]
fn render_never_writes_an_input_nor_a_device() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = app_log(dir.path());
    let before = std::fs::read(&input).expect("read");
    let out = bin()
        .arg("render")
        .arg(&input)
        .arg("--out")
        .arg(&input)
        .output()
        .expect("runs");
    assert_error_saying(&out, "refusing to write over the input");
    assert_eq!(std::fs::read(&input).expect("read"), before);
    #[cfg(unix)]
    for (cmd, args) in [
        (
            "render",
            vec![input.as_os_str(), "--out".as_ref(), "/dev/null".as_ref()],
        ),
        ("simulate", vec!["--out".as_ref(), "/dev/null".as_ref()]),
    ] {
        let out = bin().arg(cmd).args(&args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{cmd}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("character device"),
            "{cmd}: {}",
            stderr(&out)
        );
        use std::os::unix::fs::FileTypeExt;
        let meta = std::fs::metadata("/dev/null").expect("still there");
        assert!(meta.file_type().is_char_device());
    }
}

#[test]
fn render_sizes_out_of_range_are_refused_before_any_gpu_work() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = app_log(dir.path());
    for size in ["0x900", "1600x0", "8193x10", "10x100000", "x", "-5x10"] {
        let out = bin()
            .arg("render")
            .arg(&input)
            .args(["--out"])
            .arg(dir.path().join("t.png"))
            .arg(format!("--size={size}"))
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{size}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("--size"), "{size}: {err}");
        assert!(
            !err.contains("adapter") && !err.contains("panicked"),
            "{size}: {err}"
        );
    }
}

#[test]
fn every_numeric_flag_is_checked_with_our_own_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = app_log(dir.path());
    for (flag, value) in [
        ("--log-lag-ms", "NaN"),
        ("--log-lag-ms", "-1"),
        ("--log-lag-ms", "1e9"),
        ("--unit-loss", "1e308"),
        ("--unit-loss", "inf"),
        ("--unit-loss", "-3"),
        ("--near-miss-ratio", "NaN"),
        ("--near-miss-ratio", "0"),
        ("--near-miss-streak", "0"),
        ("--host-offset", "web-1=1e20"),
        ("--host-offset", "web-1=NaN"),
        ("--ttl-ms", "9223372036854775807"),
        ("--ttl-ms", "-5"),
    ] {
        let out = bin()
            .arg("analyze")
            .arg(&input)
            .arg(format!("{flag}={value}"))
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{flag} {value}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).starts_with("lockreplay: "),
            "{flag} {value}: not our message: {}",
            stderr(&out)
        );
    }
    for args in [
        ["--ttl-ms", "0"],
        ["--retry-ms", "0"],
        ["--slow-prob", "2"],
        ["--buyers", "0"],
        ["--unit-price", "NaN"],
        ["--events", "99999999999"],
    ] {
        let out = bin().arg("simulate").args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(args[0]), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn log_data_cannot_drive_a_terminal_markdown_or_a_spreadsheet() {
    let input = round2("injection.jsonl");
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

fn analyzed(
    path: &Path,
) -> (
    LoadedLog,
    lockreplay::analysis::Settings,
    lockreplay::analysis::Analysis,
) {
    let log = load(&[path.to_path_buf()]);
    let settings = lockreplay::analysis::Settings::default();
    let analysis = lockreplay::analysis::analyze(&log, &settings);
    (log, settings, analysis)
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_report_folder_is_replaced_as_a_whole_and_stale_temporaries_go() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("report");
    // An old run's folder with a picture this run does not make, and a
    // temporary folder of a run killed with kill -9 (pid 4194303 is above
    // any pid this machine hands out by default).
    std::fs::create_dir(&out).expect("mkdir");
    std::fs::write(out.join("INC-7.png"), b"old").expect("write");
    std::fs::write(out.join("report.md"), b"old").expect("write");
    let stale = dir.path().join(".report.lockreplay-4194303-AbCd12");
    std::fs::create_dir(&stale).expect("mkdir");
    std::fs::write(stale.join("trace.json"), vec![b' '; 1 << 16]).expect("write");
    let out_run = support::report_no_images(&[], &out, &round2("injection.jsonl"));
    assert_eq!(out_run.status.code(), Some(1), "{}", stderr(&out_run));
    assert_eq!(
        listing(&out),
        [
            "findings.csv",
            "incidents.csv",
            "incidents.json",
            "report.md",
            "trace.json",
            "whatif.md"
        ],
        "no file of the old run is left beside the new ones"
    );
    assert_eq!(listing(dir.path()), ["report"], "no temporary folder left");
    // A folder that also holds someone else's file keeps it.
    std::fs::write(out.join("notes.txt"), b"mine").expect("write");
    std::fs::write(out.join("INC-9.png"), b"old").expect("write");
    let out_run = support::report_no_images(&[], &out, &round2("injection.jsonl"));
    assert_eq!(out_run.status.code(), Some(1), "{}", stderr(&out_run));
    assert_eq!(std::fs::read(out.join("notes.txt")).expect("kept"), b"mine");
    assert!(
        !out.join("INC-9.png").exists(),
        "the old run's picture is gone"
    );
    assert_eq!(listing(dir.path()), ["report"], "no temporary folder left");
}

#[test]
fn a_failed_write_places_nothing_and_a_missing_picture_is_an_error() {
    let input = round2("injection.jsonl");
    let (log, settings, analysis) = analyzed(&input);
    let r = lockreplay::report::ReportInput {
        log: &log,
        settings: &settings,
        analysis: &analysis,
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("report");
    std::fs::create_dir(&out).expect("mkdir");
    std::fs::write(out.join("report.md"), b"the old report").expect("write");
    // A write that fails half-way (as on a full disk): the picture drawer
    // puts a folder where report.md is to be written.
    let sabotage = |_: lockreplay::report::PictureSubject, png: &Path| -> anyhow::Result<()> {
        let tmp = png.parent().expect("in the temporary folder");
        let _ = std::fs::create_dir(tmp.join("report.md"));
        std::fs::write(png, b"png")?;
        Ok(())
    };
    let err = lockreplay::report::write_report_dir(
        &r,
        &out,
        &[],
        Some(&sabotage),
        &lockreplay::report::FolderOptions::new(false),
    )
    .expect_err("report.md cannot be written");
    assert!(format!("{err:#}").contains("report.md"), "{err:#}");
    assert_eq!(
        std::fs::read(out.join("report.md")).expect("old"),
        b"the old report"
    );
    assert_eq!(listing(&out), ["report.md"], "the old folder as it was");
    assert_eq!(listing(dir.path()), ["report"], "no temporary folder left");
    // Pictures that fail: the folder is placed without them, and the error
    // names what is missing (the command line exits 2 on it).
    let no_gpu = |_: lockreplay::report::PictureSubject, _: &Path| -> anyhow::Result<()> {
        anyhow::bail!("no usable adapter")
    };
    let err = lockreplay::report::write_report_dir(
        &r,
        &out,
        &[],
        Some(&no_gpu),
        &lockreplay::report::FolderOptions::new(false),
    )
    .expect_err("incomplete");
    let msg = format!("{err:#}");
    assert!(
        msg.contains("INC-1.png") && msg.contains("timeline.png"),
        "{msg}"
    );
    assert!(out.join("incidents.json").is_file());
    assert_ne!(
        std::fs::read(out.join("report.md")).expect("new"),
        b"the old report"
    );
}

#[test]
fn a_huge_name_is_cut_with_a_warning_and_stays_distinct() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("long-holders.jsonl");
    let long = "x".repeat(100_000);
    let lines: Vec<String> = (0..3)
        .map(|i| {
            format!(
                "{{\"ts\":\"2024-01-01T00:00:0{i}Z\",\"event\":\"acquired\",\"key\":\"lock:a\",\"holder\":\"{long}{i}\",\"ttl_ms\":30000}}"
            )
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let log = load(&[path]);
    assert_eq!(log.events.len(), 3, "every line still loads");
    let holders: std::collections::BTreeSet<&str> = log
        .events
        .iter()
        .map(|e| log.strings.get(e.holder.expect("holder")))
        .collect();
    assert_eq!(
        holders.len(),
        3,
        "same start, different ends: still three holders"
    );
    assert!(holders.iter().all(|h| h.len() <= 1024), "cut to 1024 bytes");
    let warned: Vec<u64> = log
        .warnings
        .kept()
        .iter()
        .filter(|w| {
            w.reason
                .to_string()
                .contains("the holder field is 100001 bytes long")
        })
        .map(|w| w.line)
        .collect();
    assert_eq!(warned, [1, 2, 3]);
}

#[test]
fn records_repeated_across_files_are_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = round2("lone-cr-in-lf.jsonl");
    let text = std::fs::read_to_string(round2("first-line-comment.jsonl")).expect("read");
    // An overlapping export: the last 2 records of the first file, then
    // one of its own.
    let mut lines: Vec<&str> = text.lines().skip(3).collect();
    lines.push(r#"{"ts":"2024-01-01T00:00:09.000Z","event":"acquired","key":"lock:a","holder":"w9","ttl_ms":30000}"#);
    let b = dir.path().join("page-2.jsonl");
    std::fs::write(&b, lines.join("\n") + "\n").expect("write");
    let log = load(&[a.clone(), b.clone()]);
    assert_eq!(log.events.len(), 4 + 3, "both files are kept");
    let said: Vec<String> = log
        .warnings
        .kept()
        .iter()
        .filter(|w| w.line == 0 && w.file == b.display().to_string())
        .map(|w| w.reason.to_string())
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("2 record(s) repeat records of "),
        "{said:?}"
    );
    // Files that share no record say nothing.
    let log = load(&[a, round2("injection.jsonl")]);
    assert!(
        !log.warnings
            .kept()
            .iter()
            .any(|w| w.reason.to_string().contains("repeat records")),
        "{:?}",
        log.warnings.kept()
    );
}

/// Issue #18's class "every count is bounded": a report folder draws at most
/// `MAX_INCIDENT_PICTURES` incident pictures (200 k incidents had drawn 1 112
/// pictures, 177 MB, in 10 minutes before this), the oversold ones first,
/// says so in report.md, and is complete (no error) without the others.
#[test]
fn a_report_of_many_incidents_draws_a_bounded_number_of_pictures() {
    use lockreplay::report::{MAX_INCIDENT_PICTURES, PictureSubject};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("many.jsonl");
    let n = MAX_INCIDENT_PICTURES + 50;
    let mut text = String::new();
    for i in 0..n {
        let t = 1_700_000_000_000u64 + i as u64 * 1000;
        let line = |ms: u64, ev: &str, who: &str, extra: &str| {
            format!(
                "{{\"ts\":{},\"event\":\"{ev}\",\"key\":\"lock:{}\",\"holder\":\"{who}{i}\"{extra}}}\n",
                ms as f64 / 1000.0,
                i % 7
            )
        };
        text += &line(t, "acquired", "a", ",\"ttl_ms\":100");
        text += &line(t + 150, "acquired", "b", ",\"ttl_ms\":100");
        if i == n - 1 {
            // The last incident alone oversells: it must be among those drawn.
            text += &line(
                t + 160,
                "stock_deducted",
                "b",
                ",\"sku\":\"s\",\"quantity\":1,\"stock_after\":-1",
            );
        }
        text += &line(t + 200, "released", "a", "");
        text += &line(t + 240, "released", "b", "");
    }
    std::fs::write(&path, text).expect("write");
    let (log, settings, analysis) = analyzed(&path);
    assert_eq!(analysis.incidents.len(), n);
    let last = analysis.incidents.last().expect("incidents");
    assert!(last.oversold_units > 0, "the last incident oversells");
    let r = lockreplay::report::ReportInput {
        log: &log,
        settings: &settings,
        analysis: &analysis,
    };
    let drawn = std::cell::RefCell::new(Vec::new());
    let drawer = |subject: PictureSubject, png: &Path| -> anyhow::Result<()> {
        drawn.borrow_mut().push(match subject {
            PictureSubject::Incident(id) => Some(id),
            _ => None,
        });
        std::fs::write(png, b"png")?;
        Ok(())
    };
    let out = dir.path().join("report");
    let opts = lockreplay::report::FolderOptions {
        top: n,
        ..lockreplay::report::FolderOptions::new(false)
    };
    lockreplay::report::write_report_dir(&r, &out, &[], Some(&drawer), &opts)
        .expect("complete without the pictures left out");
    let drawn = drawn.into_inner();
    // The overview and one per key with incidents (`lock:0` to `lock:6`).
    assert_eq!(drawn.iter().filter(|d| d.is_none()).count(), 1 + 7);
    let incident_pictures = drawn.iter().filter(|d| d.is_some()).count();
    assert_eq!(incident_pictures, MAX_INCIDENT_PICTURES);
    assert!(
        drawn.contains(&Some(last.id)),
        "the oversold incident is drawn"
    );
    assert!(drawn.contains(&None), "the overview is drawn");
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(
        md.contains(&format!(
            "> Pictures: {MAX_INCIDENT_PICTURES} of {n} incidents have one"
        )),
        "{}",
        &md[..md.len().min(600)]
    );
    let pngs = listing(&out)
        .iter()
        .filter(|f| f.starts_with("INC-"))
        .count();
    assert_eq!(pngs, MAX_INCIDENT_PICTURES);
}

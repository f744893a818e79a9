//! The report folder as an attacker or a bad day meets it: it is replaced
//! as a whole (no file of an old run left beside the new ones, no
//! temporary folder left), a failed write places nothing, an input inside
//! it or named like its temporary folders is refused and left as it was, a
//! dangling link is refused without leftovers, and a report of many
//! incidents draws a bounded number of pictures.

use std::path::Path;

use lockreplay::model::LoadedLog;

use crate::support::{self, assert_error_saying, bin, damaged, load, sample, stderr};

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
    let out_run = support::report_no_images(&[], &out, &damaged("injection.jsonl"));
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
    let out_run = support::report_no_images(&[], &out, &damaged("injection.jsonl"));
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
    let input = damaged("injection.jsonl");
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

/// Every count a user's input sets is bounded: a report folder draws at
/// most `MAX_INCIDENT_PICTURES` incident pictures (200 k incidents unbounded
/// drew 1 112 pictures, 177 MB, in 10 minutes), the oversold ones first,
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

/// `report --out rep rep/INC-7.png`: an input inside the report folder, or
/// one named like its temporary folders, is refused and left as it was,
/// never moved aside with the old folder and deleted.
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

/// `report --out link` where `link` points nowhere, or is one of two links
/// to each other (a loop): refused, and no finished temporary folder is
/// left beside it (the rename fails after the folder is written).
#[cfg(unix)]
#[test]
fn a_dangling_link_as_report_folder_leaves_nothing_behind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let link = dir.path().join("rep");
    std::os::unix::fs::symlink(dir.path().join("nowhere/at/all"), &link).expect("symlink");
    let (a, b) = (dir.path().join("loop-a"), dir.path().join("loop-b"));
    std::os::unix::fs::symlink(&b, &a).expect("symlink");
    std::os::unix::fs::symlink(&a, &b).expect("symlink");
    for out_dir in [&link, &a] {
        let out = bin()
            .args(["report", "--no-images", "--out"])
            .arg(out_dir)
            .arg(sample("seed-incident.jsonl"))
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("read")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["loop-a", "loop-b", "rep"], "{out_dir:?}");
    }
}

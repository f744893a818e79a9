//! Issue #32's pictures for a document, as a user runs them: `render` and
//! `report` print nothing but their own messages (no graphics-stack noise),
//! `--scale` lays a picture out at `size / scale` points, and the report
//! folder has an overview picture per key with incidents, linked from
//! report.md. Skipped (with a line saying so) where no wgpu adapter exists;
//! CI runs them under Mesa.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn case_file(case: &str, file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cases")
        .join(case)
        .join(file)
}

/// The binary with the environment of a machine without a desktop session
/// (CI, a server): no `XDG_RUNTIME_DIR`, no `DISPLAY`, wgpu's own choice.
fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lockreplay"));
    c.env_remove("XDG_RUNTIME_DIR")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WGPU_BACKEND");
    c
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// True (and says so) when the machine cannot draw.
fn no_adapter(out: &Output) -> bool {
    let err = stderr(out);
    let none = err.contains("no wgpu adapter") || err.contains("without the `gui` feature");
    if none {
        println!("skipped: {err}");
    }
    none
}

fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).expect("png");
    // IHDR: width and height, big-endian, at bytes 16..24.
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    (be(16), be(20))
}

#[test]
fn render_prints_nothing_and_scale_lays_the_picture_out_in_points() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = case_file("BR-01-redispy-shared-lock-overrun", "inventory-sync.jsonl");
    let mut sizes = Vec::new();
    for scale in ["1", "2"] {
        let png = dir.path().join(format!("s{scale}.png"));
        let out = bin()
            .arg("render")
            .arg(&input)
            .args(["--incident", "1", "--scale", scale, "--out"])
            .arg(&png)
            .output()
            .expect("runs");
        if no_adapter(&out) {
            return;
        }
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        // Mesa's Vulkan loader said `XDG_RUNTIME_DIR is invalid` twice per
        // picture here (issue #32).
        assert_eq!(stderr(&out), "", "scale {scale}");
        sizes.push(png_size(&png));
    }
    // Both 1600 px wide; at 2 pixels a point the same lanes and chrome take
    // twice the pixels in height.
    assert_eq!((sizes[0].0, sizes[1].0), (1600, 1600));
    let ratio = sizes[1].1 as f64 / sizes[0].1 as f64;
    assert!((ratio - 2.0).abs() < 0.02, "{sizes:?}");
    let out = bin()
        .arg("render")
        .arg(&input)
        .args(["--scale", "9", "--out"])
        .arg(dir.path().join("x.png"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--scale 9"), "{}", stderr(&out));
}

#[test]
fn report_draws_a_picture_per_key_with_incidents_and_says_each_phase_and_where_it_went() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out_dir = dir.path().join("rep");
    let input = case_file("BR-01-redispy-shared-lock-overrun", "inventory-sync.jsonl");
    let out = bin()
        .arg("report")
        .arg(&input)
        .args(["--unit-loss", "200", "--out"])
        .arg(&out_dir)
        .output()
        .expect("runs");
    if no_adapter(&out) {
        return;
    }
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    // A line per phase (load, analysis, pictures, files), then where it went.
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 5, "{err}");
    for (line, phase) in lines.iter().zip([
        "loaded 9 events",
        "analysed: 1 incidents",
        "drew 3 pictures",
        "wrote the report files",
    ]) {
        assert!(line.starts_with(&format!("lockreplay: {phase} (")), "{err}");
    }
    assert!(
        lines[4].starts_with("lockreplay: report written to"),
        "{err}"
    );
    let key_png = out_dir.join("key-1-lock_sku_7731.png");
    assert!(
        key_png.is_file(),
        "{:?}",
        std::fs::read_dir(&out_dir).map(|d| d.count())
    );
    assert_eq!(png_size(&key_png).0, 1600);
    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    assert!(md.contains("## Keys with incidents"), "{md}");
    assert!(md.contains("(key-1-lock_sku_7731.png)"), "{md}");
}

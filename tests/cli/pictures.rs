//! Pictures for a document, as a user runs them: `render` and `report`
//! print nothing but their own messages (no graphics-stack noise), `--scale`
//! lays a picture out at `size / scale` points, and the report folder has an
//! overview picture per key with incidents, linked from report.md; `render`
//! never writes over an input or a device and refuses a size out of range
//! before any GPU work; any Unicode is drawn. Skipped (with a line saying
//! so) where no wgpu adapter exists; CI runs them under Mesa.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{self, app_log, assert_error_saying, case_file, sample, stderr};

/// The binary with the environment of a machine without a desktop session
/// (CI, a server): no `XDG_RUNTIME_DIR`, no `DISPLAY`, wgpu's own choice.
fn bin() -> Command {
    let mut c = support::bin();
    c.env_remove("XDG_RUNTIME_DIR")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WGPU_BACKEND");
    c
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
        // Mesa's Vulkan loader says `XDG_RUNTIME_DIR is invalid` twice per
        // picture when it is the renderer.
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
/// real cause (epaint panics "No glyph for ..." on a glyph no font has,
/// which would read as "the wgpu renderer panicked (no usable adapter?)").
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

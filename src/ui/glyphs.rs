//! Any Unicode can be drawn: a character no installed font has (a Thai or
//! Devanagari lock key, an emoji in a holder, U+FFFD from a file name) is
//! looked up among the system's fonts through fontconfig, and what no font
//! has is drawn as a box ("tofu"), never a panic.
//!
//! Correctness never depends on a font: without `fc-list` (a fresh machine,
//! Windows, macOS) the provider finds nothing and the text is tofu.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Installs [`SystemFallback`] on `ctx`. A character it finds no font
/// for is a box under egui's default policy (the window's); a headless
/// harness must ask for that too (`allow_missing_glyphs`: egui_kittest
/// panics on a missing glyph by default, and sets its policy after the
/// context's setup).
pub fn install(ctx: &egui::Context) {
    ctx.add_font_provider(Arc::new(SystemFallback::default()));
}

/// A [`egui::FontProvider`] that asks fontconfig (`fc-list :charset=`) for
/// a font file with the missing character and hands it to egui.
///
/// Each character is asked about once by egui; a Unicode block (128 code
/// points) where fontconfig found nothing is not asked again, so a page of
/// characters no font has costs one `fc-list` run, not one per character.
#[derive(Default)]
pub struct SystemFallback {
    state: Mutex<FallbackState>,
}

#[derive(Default)]
struct FallbackState {
    /// `fc-list` could not be run: ask no more.
    unavailable: bool,
    /// Blocks (code point >> 7) where nothing was found.
    empty_blocks: HashSet<u32>,
}

impl egui::FontProvider for SystemFallback {
    fn font_for(&self, request: &egui::FallbackRequest<'_>) -> Option<egui::FontInsert> {
        let c = request.cluster.chars().next()?;
        if c.is_control() {
            return None;
        }
        let mono = matches!(request.family, egui::FontFamily::Monospace);
        let path = {
            let mut st = self.state.lock().ok()?;
            if st.unavailable || st.empty_blocks.contains(&(u32::from(c) >> 7)) {
                return None;
            }
            match fc_list_with(c) {
                None => {
                    st.unavailable = true;
                    return None;
                }
                Some(list) => match best_face(&list, mono) {
                    Some(p) => p,
                    None => {
                        st.empty_blocks.insert(u32::from(c) >> 7);
                        return None;
                    }
                },
            }
        };
        let bytes = std::fs::read(&path.0).ok()?;
        let mut data = egui::FontData::from_owned(bytes);
        data.index = path.1;
        let name = format!("system:{}#{}", path.0.display(), path.1);
        Some(egui::epaint::text::FontInsert::new(&name, data, Vec::new()))
    }
}

/// `fc-list`'s faces with `c`, one `file\tindex\tstyle\tfamily` line each;
/// `None` when `fc-list` cannot be run.
fn fc_list_with(c: char) -> Option<String> {
    let out = std::process::Command::new("fc-list")
        .arg(format!(":charset={:x}", u32::from(c)))
        .args(["-f", "%{file}\t%{index}\t%{style}\t%{family}\n"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The face of `list` (lines of `fc-list`) to draw with: a regular upright
/// face, sans for the proportional family and mono for the monospace one;
/// `None` when the list has no font file egui reads (TrueType/OpenType).
pub fn best_face(list: &str, mono: bool) -> Option<(PathBuf, u32)> {
    let mut best: Option<(i32, (PathBuf, u32))> = None;
    for line in list.lines() {
        let mut parts = line.split('\t');
        let (Some(file), Some(index)) = (parts.next(), parts.next()) else {
            continue;
        };
        let style = parts.next().unwrap_or("");
        let family = parts.next().unwrap_or("");
        let lower = file.to_ascii_lowercase();
        if !(lower.ends_with(".ttf") || lower.ends_with(".otf") || lower.ends_with(".ttc")) {
            continue;
        }
        let mut score = 0;
        if style.contains("Regular") || style.contains("Book") {
            score += 4;
        }
        for bad in ["Bold", "Italic", "Oblique", "Light", "Condensed", "Thin"] {
            if style.contains(bad) || family.contains(bad) {
                score -= 2;
            }
        }
        if family.contains("Mono") == mono {
            score += 2;
        }
        if family.contains("Sans") {
            score += 1;
        }
        let face = (PathBuf::from(file), index.trim().parse().unwrap_or(0));
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, face));
        }
    }
    best.map(|(_, f)| f)
}

/// The text of a caught panic's payload (a `&str` or `String`; anything
/// else is named as such), for an error message that says the real cause.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with no message".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lock keys, holders and file names in scripts egui's own fonts lack:
    /// laid out in a harness that panics on a missing glyph by default.
    const HOSTILE: &[&str] = &[
        "ล็อคสินค้า:1001",
        "قفل:المخزون",
        "ताला:स्टॉक",
        "holder-😀-1",
        "INC-\u{fffd}\u{fffd}.log",
        "→ ⇄ ✓ ✗ ⚠",
        "\u{10ffff}\u{e000}",
    ];

    #[test]
    fn any_unicode_is_laid_out_as_the_pictures_are_without_a_panic() {
        let mut harness = egui_kittest::Harness::builder()
            .with_size(egui::vec2(400.0, 300.0))
            .allow_missing_glyphs()
            .with_context_setup(install)
            .build_ui(|ui| {
                for s in HOSTILE {
                    ui.label(*s);
                    ui.monospace(*s);
                }
            });
        harness.run_steps(2);
    }

    /// Where fontconfig runs and knows a face with the arrow (CI installs
    /// DejaVu), the provider hands egui a font that has it.
    #[test]
    fn fontconfig_finds_a_face_for_a_character_egui_lacks() {
        let Some(list) = fc_list_with('→') else {
            println!("skipped: no fc-list");
            return;
        };
        let Some((path, _)) = best_face(&list, false) else {
            println!("skipped: no face with U+2192");
            return;
        };
        let family = egui::FontFamily::Proportional;
        let req = egui::FallbackRequest {
            cluster: "→",
            family: &family,
        };
        let insert = egui::FontProvider::font_for(&SystemFallback::default(), &req)
            .expect("a font for the arrow");
        assert!(insert.name.contains(&path.display().to_string()));
    }

    #[test]
    fn the_regular_sans_face_is_chosen_over_bold_and_mono() {
        let list = "/f/DejaVuSans-Bold.ttf\t0\tBold\tDejaVu Sans\n\
                    /f/DejaVuSansMono.ttf\t0\tBook\tDejaVu Sans Mono\n\
                    /f/DejaVuSans.ttf\t0\tBook\tDejaVu Sans\n\
                    /f/font.pcf.gz\t0\tRegular\tFixed\n";
        assert_eq!(
            best_face(list, false),
            Some((PathBuf::from("/f/DejaVuSans.ttf"), 0))
        );
        assert_eq!(
            best_face(list, true),
            Some((PathBuf::from("/f/DejaVuSansMono.ttf"), 0))
        );
        assert_eq!(
            best_face("/f/font.pcf.gz\t0\tRegular\tFixed\n", false),
            None
        );
    }

    #[test]
    fn a_panic_payload_is_read_back() {
        let r: std::thread::Result<()> =
            std::panic::catch_unwind(|| panic!("No glyph for {:?}", "ก"));
        let p = r.expect_err("panics");
        assert!(panic_text(p.as_ref()).contains("No glyph for \"ก\""));
    }
}

//! Finds a CJK font on the system and adds it as a fallback: egui's own fonts
//! have no Chinese glyphs, and Chinese lock keys, hosts and labels must read.

use std::path::{Path, PathBuf};

/// Common locations of CJK fonts, tried when `fc-list` is unavailable.
const CANDIDATES: &[&str] = &[
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/wenquanyi/wqy-microhei/wqy-microhei.ttc",
    "C:\\Windows\\Fonts\\msyh.ttc",
    "/System/Library/Fonts/PingFang.ttc",
    "/System/Library/Fonts/STHeiti Medium.ttc",
];

/// A font file and the face index inside it.
#[derive(Clone, Debug, PartialEq)]
pub struct FontChoice {
    /// The file.
    pub path: PathBuf,
    /// Face index (a `.ttc` holds several).
    pub index: u32,
}

/// Looks for a font with Simplified Chinese glyphs: `fc-list :lang=zh`
/// first (preferring an SC face), then well-known paths.
pub fn find_cjk_font() -> Option<FontChoice> {
    if let Ok(out) = std::process::Command::new("fc-list")
        .args([":lang=zh", "-f", "%{file}\t%{index}\t%{family}\t%{style}\n"])
        .output()
        && out.status.success()
    {
        let text = String::from_utf8_lossy(&out.stdout);
        let mut best: Option<(i32, FontChoice)> = None;
        for line in text.lines() {
            let mut parts = line.split('\t');
            let (Some(file), Some(index)) = (parts.next(), parts.next()) else {
                continue;
            };
            let family = parts.next().unwrap_or("");
            let style = parts.next().unwrap_or("");
            let lower = file.to_ascii_lowercase();
            if !(lower.ends_with(".ttf") || lower.ends_with(".otf") || lower.ends_with(".ttc")) {
                continue;
            }
            let mut score = 0;
            if family.contains(" SC") || family.contains("Sans SC") {
                score += 4;
            }
            if style.contains("Regular") {
                score += 2;
            }
            if family.contains("Sans") || family.contains("Hei") {
                score += 1;
            }
            if family.contains("Mono") {
                score -= 1;
            }
            let choice = FontChoice {
                path: PathBuf::from(file),
                index: index.trim().parse().unwrap_or(0),
            };
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, choice));
            }
        }
        if let Some((_, c)) = best {
            return Some(c);
        }
    }
    CANDIDATES
        .iter()
        .map(Path::new)
        .find(|p| p.is_file())
        .map(|p| FontChoice {
            path: p.to_path_buf(),
            // Noto Sans CJK collections hold JP, KR, SC, TC: SC is face 2.
            index: if p.to_string_lossy().contains("NotoSansCJK") {
                2
            } else {
                0
            },
        })
}

/// Adds `font` as the last fallback of both families.
///
/// # Errors
/// When the file cannot be read.
pub fn install(ctx: &egui::Context, font: &FontChoice) -> std::io::Result<()> {
    let bytes = std::fs::read(&font.path)?;
    let mut data = egui::FontData::from_owned(bytes);
    data.index = font.index;
    insert(ctx, data);
    Ok(())
}

/// Installs `configured` (a file path from the settings) or the first CJK
/// font found. Returns false when none could be installed.
///
/// Also installs the system fallback for every other script
/// ([`super::glyphs::install`]): a character no font has is a box, not a
/// panic.
pub fn setup(ctx: &egui::Context, configured: Option<&Path>) -> bool {
    super::glyphs::install(ctx);
    match configured.filter(|p| p.is_file()) {
        Some(p) => {
            let choice = FontChoice {
                path: p.to_path_buf(),
                index: 0,
            };
            install(ctx, &choice).is_ok()
        }
        None => install_found(ctx),
    }
}

/// Adds `data` to `ctx` as the last fallback of both families.
fn insert(ctx: &egui::Context, data: egui::FontData) {
    ctx.add_font(egui::epaint::text::FontInsert::new(
        "cjk-fallback",
        data,
        vec![
            egui::epaint::text::InsertFontFamily {
                family: egui::FontFamily::Proportional,
                priority: egui::epaint::text::FontPriority::Lowest,
            },
            egui::epaint::text::InsertFontFamily {
                family: egui::FontFamily::Monospace,
                priority: egui::epaint::text::FontPriority::Lowest,
            },
        ],
    ));
}

/// The CJK font [`find_cjk_font`] finds, with its bytes, looked up and read
/// once per process: a report draws dozens of pictures, each with a context
/// of its own, and `fc-list` and reading the font took part of each.
static FOUND: std::sync::OnceLock<Option<(u32, Vec<u8>)>> = std::sync::OnceLock::new();

/// Installs the CJK font found ([`FOUND`]) in `ctx`; false when none.
fn install_found(ctx: &egui::Context) -> bool {
    let found = FOUND.get_or_init(|| {
        let c = find_cjk_font()?;
        std::fs::read(&c.path).ok().map(|bytes| (c.index, bytes))
    });
    let Some((index, bytes)) = found else {
        return false;
    };
    let mut data = egui::FontData::from_static(bytes);
    data.index = *index;
    insert(ctx, data);
    true
}

//! Screenshots of the window: File > Save screenshot / Copy image (the
//! whole window or the timeline only) and `--screenshot`, which saves one
//! once the log is drawn and closes the window.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use anyhow::Context as _;

use super::dialogs::{SaveTo, pick_or_fallback};
use crate::ui::i18n::{Lang, tr, trf};
use crate::ui::state::{ScreenshotArea, ScreenshotDestination, ScreenshotRequest};

/// Frames to wait before asking for the picture, so a closing menu is not
/// in it.
const WAIT_FRAMES: u8 = 2;

/// Asks egui for a screenshot of the next frame; the image arrives on the
/// returned channel.
fn request(ctx: &egui::Context) -> Receiver<Arc<egui::ColorImage>> {
    let (tx, rx) = channel();
    let ctx2 = ctx.clone();
    ctx.request_screenshot(move |image| {
        let _ = tx.send(image);
        ctx2.request_repaint();
    });
    rx
}

/// A screenshot being taken: frames still to wait, then the channel the
/// image arrives on.
pub struct PendingShot {
    /// What it is for.
    pub request: ScreenshotRequest,
    wait_frames: u8,
    rx: Option<Receiver<Arc<egui::ColorImage>>>,
}

impl PendingShot {
    /// A screenshot for `request`, taken a few frames from now.
    pub fn new(request: ScreenshotRequest) -> PendingShot {
        PendingShot {
            request,
            wait_frames: WAIT_FRAMES,
            rx: None,
        }
    }

    /// Advances by one frame: waits, then asks for the picture; returns it
    /// once it arrived.
    pub fn poll(&mut self, ctx: &egui::Context) -> Option<Arc<egui::ColorImage>> {
        let Some(rx) = &self.rx else {
            if self.wait_frames > 0 {
                self.wait_frames -= 1;
                ctx.request_repaint();
            } else {
                self.rx = Some(request(ctx));
            }
            return None;
        };
        rx.try_recv().ok()
    }
}

/// Copies `image` to the clipboard or saves it as a PNG (from a dialog, or
/// in the fallback folder) on the `save-screenshot` thread, cut to
/// `timeline` for a timeline shot. The saving thread's message arrives on
/// `done`; returns the notice to show now.
#[allow(clippy::too_many_arguments)]
pub fn deliver(
    ctx: &egui::Context,
    image: &egui::ColorImage,
    request: ScreenshotRequest,
    timeline: Option<egui::Rect>,
    lang: Lang,
    inputs: Vec<PathBuf>,
    save_to: SaveTo<'_>,
    done: Sender<String>,
) -> Option<String> {
    let timeline_only = request.area == ScreenshotArea::Timeline;
    let image = match (timeline_only, timeline) {
        (true, Some(rect)) => image.region(&rect, Some(ctx.pixels_per_point())),
        _ => image.clone(),
    };
    if request.destination == ScreenshotDestination::Clipboard {
        ctx.copy_image(image);
        return Some(tr(lang, "copied").to_string());
    }
    let ctx2 = ctx.clone();
    let name = format!(
        "lockreplay-{}{}.png",
        if timeline_only { "timeline-" } else { "" },
        chrono::Local::now().format("%Y%m%d-%H%M%S")
    );
    let (dialogs, fallback) = (save_to.dialogs, save_to.fallback_dir.join(&name));
    let spawned = std::thread::Builder::new()
        .name("save-screenshot".into())
        .spawn(move || {
            let pick = || {
                rfd::FileDialog::new()
                    .add_filter("PNG", &["png"])
                    .set_file_name(&name)
                    .save_file()
            };
            let Some((path, fell_back)) = pick_or_fallback(dialogs, pick, fallback) else {
                return;
            };
            let msg = match write_color_image(&image, &path, &inputs) {
                Ok(()) if fell_back => {
                    trf(lang, "no_dialog_saved_to", &[&path.display().to_string()])
                }
                Ok(()) => trf(lang, "saved_to", &[&path.display().to_string()]),
                Err(e) => trf(lang, "save_failed", &[&format!("{e:#}")]),
            };
            let _ = done.send(msg);
            ctx2.request_repaint();
        });
    spawned.is_err().then(|| tr(lang, "no_dialog").to_string())
}

/// Writes `image` as a PNG at `path`, never over `inputs`.
///
/// # Errors
/// Encoding or I/O failures.
pub fn write_color_image(
    image: &egui::ColorImage,
    path: &Path,
    inputs: &[PathBuf],
) -> anyhow::Result<()> {
    let [w, h] = image.size;
    let rgba: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
    let img = image::RgbaImage::from_raw(w as u32, h as u32, rgba)
        .context("screenshot has the wrong size")?;
    crate::ui::render::write_png(&img, path, inputs)
}

/// `--screenshot`: once the log is drawn, a screenshot is saved and the
/// window closed; the result goes to `result` for the command line.
pub struct ExitScreenshot {
    path: PathBuf,
    inputs: Vec<PathBuf>,
    frames_ready: u32,
    requested: bool,
    rx: Option<Receiver<Arc<egui::ColorImage>>>,
    result: Arc<Mutex<Option<anyhow::Result<()>>>>,
}

impl ExitScreenshot {
    /// A screenshot to `path` (never over `inputs`), reporting to `result`.
    pub fn new(
        path: PathBuf,
        inputs: Vec<PathBuf>,
        result: Arc<Mutex<Option<anyhow::Result<()>>>>,
    ) -> ExitScreenshot {
        ExitScreenshot {
            path,
            inputs,
            frames_ready: 0,
            requested: false,
            rx: None,
            result,
        }
    }

    /// Advances by one frame with the log drawn (`ready`): after three such
    /// frames asks for the picture, then saves it and closes the window.
    pub fn poll(&mut self, ctx: &egui::Context, ready: bool) {
        if !ready {
            // The load wakes the window when it is done (and its ticker
            // every 100 ms): no frame of our own until then.
            return;
        }
        if let Some(rx) = &self.rx
            && let Ok(image) = rx.try_recv()
        {
            crate::timing::mark("window/picture taken");
            let r = write_color_image(&image, &self.path, &self.inputs);
            if let Ok(mut slot) = self.result.lock() {
                *slot = Some(r);
            }
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        self.frames_ready += 1;
        if self.frames_ready >= 3 && !self.requested {
            self.requested = true;
            self.rx = Some(request(ctx));
        }
        ctx.request_repaint();
    }
}

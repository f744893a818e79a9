//! The desktop window (eframe/egui): swimlanes, incidents, details, and the
//! headless renderer that draws the same swimlane widget offscreen for
//! `lockreplay render` and the report pictures.

pub mod app;
pub mod fonts;
pub mod i18n;
pub mod loader;
pub mod render;
pub mod swimlane;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};

use anyhow::{Context, bail};

use crate::cli::Cli;

pub use app::{App, AppState};
pub use render::render_png;

/// Screenshot-and-exit state for `--screenshot`.
struct Screenshot {
    path: PathBuf,
    inputs: Vec<PathBuf>,
    frames_ready: u32,
    requested: bool,
    rx: Option<Receiver<Arc<egui::ColorImage>>>,
    result: Arc<Mutex<Option<anyhow::Result<()>>>>,
}

/// The eframe wrapper around [`App`].
struct WindowApp {
    app: App,
    shot: Option<Screenshot>,
}

impl eframe::App for WindowApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.app.ui(ui);
        let ctx = ui.ctx().clone();
        if let Some(shot) = &mut self.shot {
            if self.app.is_loading() || (self.app.session.is_none() && self.app.error.is_none()) {
                ctx.request_repaint();
                return;
            }
            if let Some(rx) = &shot.rx
                && let Ok(image) = rx.try_recv()
            {
                let r = write_color_image(&image, &shot.path, &shot.inputs);
                if let Ok(mut slot) = shot.result.lock() {
                    *slot = Some(r);
                }
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                return;
            }
            shot.frames_ready += 1;
            if shot.frames_ready >= 3 && !shot.requested {
                shot.requested = true;
                let (tx, rx) = channel();
                shot.rx = Some(rx);
                let ctx2 = ctx.clone();
                ctx.request_screenshot(move |image| {
                    let _ = tx.send(image);
                    ctx2.request_repaint();
                });
            }
            ctx.request_repaint();
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, app::STORAGE_KEY, &self.app.state_to_save());
    }
}

fn write_color_image(
    image: &egui::ColorImage,
    path: &std::path::Path,
    inputs: &[PathBuf],
) -> anyhow::Result<()> {
    let [w, h] = image.size;
    let rgba: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
    let img = image::RgbaImage::from_raw(w as u32, h as u32, rgba)
        .context("screenshot has the wrong size")?;
    render::write_png(&img, path, inputs)
}

/// Opens the window on the command line's files (or the embedded sample)
/// and runs it until it closes; with `--screenshot`, writes the picture and
/// exits.
///
/// # Errors
/// Bad flags, a window that cannot open, or a screenshot not taken.
pub fn run_window(cli: &Cli) -> anyhow::Result<u8> {
    let result = Arc::new(Mutex::new(None));
    let shot = cli.screenshot.as_ref().map(|p| Screenshot {
        path: p.clone(),
        inputs: cli.files.clone(),
        frames_ready: 0,
        requested: false,
        rx: None,
        result: result.clone(),
    });
    // Validate the flags before opening a window.
    cli.analysis.ingest_options()?;
    cli.analysis
        .settings(&crate::analysis::Settings::default())?;
    let files = cli.files.clone();
    let args = cli.analysis.clone();
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("lockreplay")
            .with_inner_size([1600.0, 1000.0])
            .with_drag_and_drop(true),
        persist_window: cli.screenshot.is_none(),
        ..Default::default()
    };
    let screenshot_mode = cli.screenshot.is_some();
    if let Some(c) = &cli.cursor {
        // Check the syntax now; the time is resolved against the loaded log.
        crate::cli::parse_cursor(c, 0)?;
    }
    let cursor = cli.cursor.clone();
    eframe::run_native(
        "lockreplay",
        options,
        Box::new(move |cc| {
            let state: AppState = if screenshot_mode {
                AppState::default()
            } else {
                cc.storage
                    .and_then(|s| eframe::get_value(s, app::STORAGE_KEY))
                    .unwrap_or_default()
            };
            let mut app = App::new(state, args);
            app.initial_cursor = cursor;
            let source = if files.is_empty() {
                loader::Source::Sample
            } else {
                loader::Source::Files(files)
            };
            app.start_load(&cc.egui_ctx, source);
            Ok(Box::new(WindowApp { app, shot }))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    if cli.screenshot.is_some() {
        match result.lock().ok().and_then(|mut r| r.take()) {
            Some(r) => r?,
            None => bail!("the window closed before the screenshot was taken"),
        }
    }
    Ok(0)
}

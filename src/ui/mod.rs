//! The desktop window (eframe/egui): swimlanes, incidents, details, and the
//! headless renderer that draws the same swimlane widget offscreen for
//! `lockreplay render` and the report pictures.

pub mod app;
pub mod fonts;
pub mod glyphs;
pub mod i18n;
pub mod loader;
pub mod panels;
pub mod products;
pub mod render;
pub mod session;
pub mod shell;
pub mod state;
pub mod stock_plot;
pub mod timeline;
pub mod window;

#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex};

use anyhow::bail;

use crate::config::WindowConfig;
use shell::screenshot::ExitScreenshot;
use window::WindowApp;

pub use app::App;
pub use render::render_png;
pub use state::AppState;

/// Opens the window as `config` says, on its files (or the embedded
/// sample), and runs it until it closes; with a screenshot asked for,
/// writes the picture and exits.
///
/// # Errors
/// A window that cannot open, or a screenshot not taken.
pub fn run_window(config: &WindowConfig) -> anyhow::Result<u8> {
    crate::timing::mark("window/start");
    let result = Arc::new(Mutex::new(None));
    let shot = config
        .screenshot
        .as_ref()
        .map(|p| ExitScreenshot::new(p.clone(), config.files.clone(), result.clone()));
    let files = config.files.clone();
    let read = config.read.clone();
    let analysis = config.analysis.clone();
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("lockreplay")
            .with_inner_size([1600.0, 1000.0])
            .with_drag_and_drop(true),
        persist_window: config.screenshot.is_none(),
        ..Default::default()
    };
    let screenshot_mode = config.screenshot.is_some();
    let cursor = config.cursor;
    let whatif = config.whatif;
    let lang = config.lang.map(i18n::Lang::from);
    eframe::run_native(
        "lockreplay",
        options,
        Box::new(move |cc| {
            let mut state: AppState = if screenshot_mode {
                // A screenshot never depends on what an earlier window
                // saved: neither the settings nor the panels' widths.
                cc.egui_ctx.memory_mut(|m| *m = egui::Memory::default());
                AppState::default()
            } else {
                cc.storage
                    .and_then(|s| eframe::get_value(s, state::STORAGE_KEY))
                    .unwrap_or_default()
            };
            if let Some(lang) = lang {
                state.lang = lang;
            }
            let mut app = App::new(state, read, analysis);
            app.initial_cursor = cursor;
            if whatif {
                app.open_panel(state::Panel::WhatIf);
            }
            let source = if files.is_empty() {
                session::Source::Sample
            } else {
                session::Source::Files(files)
            };
            app.start_load(&cc.egui_ctx, source);
            Ok(Box::new(WindowApp::new(app, shot)))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    crate::timing::mark("window/closed");
    if config.screenshot.is_some() {
        match result.lock().ok().and_then(|mut r| r.take()) {
            Some(r) => r?,
            None => bail!("the window closed before the screenshot was taken"),
        }
    }
    Ok(0)
}

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

/// The app's name for eframe: the window's and its saved state's.
const APP_ID: &str = "lockreplay";

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
    let (cursor, whatif) = (config.cursor, config.whatif);
    let lang = config.lang.map(i18n::Lang::from);
    // The app made from the saved state's text (as eframe's `get_value`
    // reads it); a screenshot never depends on what an earlier window
    // saved: neither the settings nor the panels' widths.
    let make_app = move |text: Option<&str>| {
        let mut state: AppState = text.and_then(|t| ron::from_str(t).ok()).unwrap_or_default();
        if let Some(lang) = lang {
            state.lang = lang;
        }
        let mut app = App::new(state, read.clone(), analysis.clone());
        app.initial_cursor = cursor;
        if whatif {
            app.open_panel(state::Panel::WhatIf);
        }
        app
    };
    let source = if files.is_empty() {
        session::Source::Sample
    } else {
        session::Source::Files(files)
    };
    // The read starts now, while the window and its renderer are made
    // (about 0.1 s with Mesa's software renderer), with the state the
    // window will have: read here from eframe's own file, and checked
    // against what eframe gives the window below.
    let early_text = if screenshot_mode {
        None
    } else {
        eframe::storage_dir(APP_ID).and_then(|dir| state::saved_text(&dir.join("app.ron")))
    };
    let window_ctx = Arc::new(std::sync::OnceLock::new());
    let mut early = make_app(early_text.as_deref());
    early.start_load_early(source.clone(), window_ctx.clone());
    eframe::run_native(
        APP_ID,
        options,
        Box::new(move |cc| {
            if screenshot_mode {
                cc.egui_ctx.memory_mut(|m| *m = egui::Memory::default());
            }
            let text = cc
                .storage
                .filter(|_| !screenshot_mode)
                .and_then(|s| s.get_string(state::STORAGE_KEY));
            let _ = window_ctx.set(cc.egui_ctx.clone());
            let app = if text == early_text {
                early
            } else {
                // The state changed between the two reads: loaded again.
                crate::timing::mark("window/saved state changed, loaded again");
                early.cancel_load();
                let mut app = make_app(text.as_deref());
                app.start_load(&cc.egui_ctx, source);
                app
            };
            Ok(Box::new(WindowApp::new(app, shot)))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    crate::timing::mark("window/closed");
    // The last load's cache entries, when still being written, are
    // finished (a few seconds for a 10 M-event log) so that the next open
    // finds them.
    if !loader::wait_for_background_work(std::time::Duration::from_secs(60)) {
        eprintln!("lockreplay: the load cache's entries were not all written before the exit");
    }
    crate::timing::mark("window/cache writes done");
    if config.screenshot.is_some() {
        match result.lock().ok().and_then(|mut r| r.take()) {
            Some(r) => r?,
            None => bail!("the window closed before the screenshot was taken"),
        }
    }
    Ok(0)
}

//! The desktop window (eframe/egui): swimlanes, incidents, details, and the
//! headless renderer that draws the same swimlane widget offscreen for
//! `lockreplay render` and the report pictures.

pub mod app;
pub mod fonts;
pub mod i18n;
pub mod loader;
pub mod panels;
pub mod render;
pub mod session;
pub mod shell;
pub mod state;
pub mod timeline;

#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex};

use anyhow::{Context, bail};

use crate::cli::{self, Cli, Loaded, RenderArgs, Theme, load_and_analyze};
use shell::screenshot::ExitScreenshot;
use shell::window::WindowApp;

pub use app::App;
pub use render::render_png;
pub use state::AppState;

/// Runs what needs the UI layer: the window, `render`, `report` with
/// pictures.
///
/// # Errors
/// Window or renderer start-up failures.
pub fn run_cli(cli: &Cli) -> anyhow::Result<u8> {
    match &cli.command {
        Some(cli::Command::Render(args)) => run_render(args),
        Some(cli::Command::Report(args)) => {
            let render_fn = |loaded: &Loaded, incident: Option<usize>, path: &std::path::Path| {
                render_png(loaded, incident, (1600, 900), false, path)
            };
            crate::export::write_report(args, Some(&render_fn))
        }
        _ => run_window(cli),
    }
}

fn run_render(args: &RenderArgs) -> anyhow::Result<u8> {
    let loaded = load_and_analyze(&args.files, &args.analysis)?;
    let (w, h) = args
        .size
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
        .with_context(|| format!("--size {:?} is not WIDTHxHEIGHT", args.size))?;
    let incident = match &args.incident {
        None => None,
        Some(s) => {
            let n: usize = s
                .trim()
                .trim_start_matches("INC-")
                .trim_start_matches("inc-")
                .parse()
                .with_context(|| format!("--incident {s:?} is not INC-N or N"))?;
            if n == 0 || n > loaded.analysis.incidents.len() {
                bail!(
                    "--incident {s}: {}",
                    match loaded.analysis.incidents.len() {
                        0 => "there are no incidents".to_string(),
                        1 => "there is 1 incident".to_string(),
                        n => format!("there are {n} incidents"),
                    }
                );
            }
            Some(n - 1)
        }
    };
    render_png(
        &loaded,
        incident,
        (w, h),
        args.theme == Theme::Dark,
        &args.out,
    )?;
    Ok(loaded.exit_code())
}

fn run_window(cli: &Cli) -> anyhow::Result<u8> {
    let result = Arc::new(Mutex::new(None));
    let shot = cli
        .screenshot
        .as_ref()
        .map(|p| ExitScreenshot::new(p.clone(), cli.files.clone(), result.clone()));
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
                    .and_then(|s| eframe::get_value(s, state::STORAGE_KEY))
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
            Ok(Box::new(WindowApp::new(app, shot)))
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

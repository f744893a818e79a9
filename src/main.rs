//! The `lockreplay` binary: parses the command line and hands it to the one
//! dispatch in [`lockreplay::cli::run`], lending it the window and the
//! timeline pictures when built with the `gui` feature.

use std::process::ExitCode;

use clap::Parser;
use lockreplay::cli::{Cli, Frontend, run};

fn main() -> ExitCode {
    run(&Cli::parse(), FRONTEND.as_ref())
}

/// The window layer.
#[cfg(feature = "gui")]
const FRONTEND: Option<Frontend> = Some(Frontend {
    window: lockreplay::ui::run_window,
    draw_timeline: lockreplay::ui::render_png,
});

/// No window layer in this build.
#[cfg(not(feature = "gui"))]
const FRONTEND: Option<Frontend> = None;

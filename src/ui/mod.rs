//! The desktop window (eframe/egui): swimlanes, incidents, details, replay.
//!
//! (Stub: the entry point `main` calls; the window lands separately.)

use crate::cli::Cli;

/// Runs what needs the UI layer: the window, `render`, `report` with
/// pictures.
///
/// # Errors
/// Window or renderer start-up failures.
pub fn run_cli(cli: &Cli) -> anyhow::Result<u8> {
    let _ = cli;
    anyhow::bail!("the window is not built yet")
}

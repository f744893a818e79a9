//! The `lockreplay` binary: parses the command line and hands it to the CLI
//! layer, or to the window and the headless renderer (`gui` feature).

use std::process::ExitCode;

use clap::Parser;
use lockreplay::cli::{Cli, fail, run_headless};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match run_headless(&cli) {
        Some(result) => result,
        None => run_with_ui(&cli),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => fail(&e),
    }
}

#[cfg(feature = "gui")]
fn run_with_ui(cli: &Cli) -> anyhow::Result<u8> {
    lockreplay::ui::run_cli(cli)
}

#[cfg(not(feature = "gui"))]
fn run_with_ui(cli: &Cli) -> anyhow::Result<u8> {
    use lockreplay::cli::Command;
    match &cli.command {
        Some(Command::Report(r)) => lockreplay::export::write_report(r, None),
        _ => anyhow::bail!(
            "this build has no window (built without the `gui` feature); use `lockreplay analyze`"
        ),
    }
}

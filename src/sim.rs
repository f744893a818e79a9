//! A deterministic discrete-event model of a flash sale guarded by a Redis
//! lock, writing app-style JSON Lines with its own ground truth.
//!
//! (Stub: the interface the CLI calls; the model lands separately.)

use std::path::PathBuf;

/// `lockreplay simulate` arguments.
#[derive(Clone, Debug, clap::Args)]
pub struct SimArgs {
    /// Where to write the JSON Lines (stdout when absent).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Runs the simulator with `args`.
///
/// # Errors
/// When the output cannot be written.
pub fn run(args: &SimArgs) -> anyhow::Result<()> {
    let _ = args;
    anyhow::bail!("the simulator is not built yet")
}

//! `lockreplay sql`: prints the rules' query for a table, or writes a log's
//! lock events as a table for it (`--export-events`).

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::alerts::Store;
use super::{QuerySpec, generate};
use crate::config::{AnalysisConfig, ReadConfig};

/// Writes the lock events of `files`, read as `read` says and analysed with
/// `analysis`, to `out` as JSON Lines (the query's default columns); 0.
///
/// # Errors
/// Unreadable logs, a load that is no answer (its problems), or a file
/// that cannot be written.
pub fn export_events(
    files: &[PathBuf],
    out: &Path,
    read: &ReadConfig,
    analysis: &AnalysisConfig,
) -> anyhow::Result<u8> {
    let loaded = crate::pipeline::load_files(files, read, analysis.settings())?;
    let problems = loaded.problems();
    if !problems.is_empty() {
        anyhow::bail!("{}", problems.join("; "));
    }
    let rows = crate::fsio::write_atomic_with(out, files, |w| {
        super::export::write_events(&loaded, w)
            .with_context(|| format!("cannot write {}", out.display()))
    })?;
    eprintln!(
        "lockreplay: {rows} lock event(s) written to {}",
        crate::report::terminal_safe(&out.display().to_string())
    );
    Ok(crate::pipeline::EXIT_CLEAN)
}

/// Prints the rules' query for `spec`, or the alert rule of `alert`'s log
/// store; 0.
///
/// # Errors
/// A table or filter the query cannot carry, or a name the store's
/// language cannot.
pub fn print_query(spec: &QuerySpec, alert: Option<Store>) -> anyhow::Result<u8> {
    let text = match alert {
        Some(store) => super::alerts::rule(store, spec)?,
        None => generate(spec)?,
    };
    print!("{text}");
    Ok(crate::pipeline::EXIT_CLEAN)
}

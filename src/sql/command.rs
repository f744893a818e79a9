//! `lockreplay sql`: prints the rules' query for a table, or writes a log's
//! lock events as a table for it (`--export-events`).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::{Dialect, QuerySpec, Select, TimeUnit, generate};
use crate::analysis::Settings;
use crate::cli::AnalysisArgs;
use crate::ingest::Mapping;

/// `lockreplay sql`.
#[derive(Debug, Args)]
pub struct SqlArgs {
    /// With `--export-events`: the log files whose lock events to write.
    pub files: Vec<PathBuf>,
    /// Engine the query is for.
    #[arg(long, value_enum, default_value = "clickhouse")]
    pub dialect: Dialect,
    /// Table (or table expression) holding the lock events.
    #[arg(long, default_value = "lock_events")]
    pub table: String,
    /// How the table's time column is stored.
    #[arg(long, value_enum, default_value = "ns")]
    pub time_unit: TimeUnit,
    /// What the query returns.
    #[arg(long, value_enum, default_value = "all")]
    pub select: Select,
    /// Width of ClickHouse's time buckets for the overlap join, ms.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub bucket_ms: i64,
    /// Extra SQL condition on the table's rows (a time range, a service).
    #[arg(long, value_name = "SQL")]
    pub filter: Option<String>,
    /// Write the lock events of FILES as JSON Lines to this file (the
    /// query's default columns) instead of printing a query.
    #[arg(long, value_name = "OUT")]
    pub export_events: Option<PathBuf>,
    /// Print the alert rule for a log store instead (docs/alerts.md).
    #[arg(long, value_enum, value_name = "STORE")]
    pub alert: Option<super::alerts::Store>,
    /// Settings of the rules; `--mapping` names the table's columns.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

impl SqlArgs {
    /// The query's spec from the flags (the mapping file, when given, names
    /// the columns).
    ///
    /// # Errors
    /// Bad settings or an unreadable or incomplete mapping.
    pub fn spec(&self) -> anyhow::Result<QuerySpec> {
        let settings = self.analysis.settings(&Settings::default())?;
        let mut spec = QuerySpec::new(self.dialect, &self.table);
        if let Some(path) = &self.analysis.read.mapping {
            let m = Mapping::from_path(path)?;
            spec = spec
                .with_mapping(&m)
                .with_context(|| format!("mapping {}", path.display()))?;
        }
        spec.time_unit = self.time_unit;
        spec.select = self.select;
        spec.bucket_ms = crate::cli::check_int("--bucket-ms", self.bucket_ms, 1, 86_400_000)?;
        spec.filter = self.filter.clone();
        spec.log_lag_ms = settings.log_lag_tolerance_ms;
        spec.near_miss_ratio = settings.near_miss_ratio;
        spec.near_miss_streak = settings.near_miss_streak;
        Ok(spec)
    }

    /// Runs the command: 0 on success.
    ///
    /// # Errors
    /// Bad flags, unreadable logs, or a file that cannot be written.
    pub fn run(&self) -> anyhow::Result<u8> {
        if let Some(out) = &self.export_events {
            if self.files.is_empty() {
                anyhow::bail!("--export-events needs the log files to read");
            }
            let loaded = self.analysis.load(&self.files)?;
            let problems = loaded.problems();
            if !problems.is_empty() {
                anyhow::bail!("{}", problems.join("; "));
            }
            let rows = crate::fsio::write_atomic_with(out, &self.files, |w| {
                super::export::write_events(&loaded, w)
                    .with_context(|| format!("cannot write {}", out.display()))
            })?;
            eprintln!(
                "lockreplay: {rows} lock event(s) written to {}",
                crate::report::terminal_safe(&out.display().to_string())
            );
            return Ok(crate::pipeline::EXIT_CLEAN);
        }
        if !self.files.is_empty() {
            anyhow::bail!("log files are read only with --export-events; the query reads --table");
        }
        let spec = self.spec()?;
        let text = match self.alert {
            Some(store) => super::alerts::rule(store, &spec)?,
            None => generate(&spec)?,
        };
        print!("{text}");
        Ok(crate::pipeline::EXIT_CLEAN)
    }
}

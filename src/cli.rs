//! The command line: its flags as clap reads them ([`args`]), checked and
//! resolved once into the plain settings of [`crate::config`]
//! ([`resolve`]), and the one dispatch of every subcommand ([`run`]). The
//! work itself is [`crate::pipeline`]'s, `inspect`'s and `sql`'s, which
//! take the resolved settings; the window and the pictures are lent by
//! `main` ([`Frontend`]), so this module never imports `ui`. Exit codes
//! follow ripgrep: 0 no incident, 1 incidents found, 2 error.

pub mod args;
pub mod resolve;

use std::process::ExitCode;

use anyhow::bail;

pub use args::{Cli, Command};
use args::{FetchArgs, RenderArgs, ReportLang, SqlArgs, Theme, WhatifArgs};
use resolve::{check_scale, parse_incident, parse_size, report_config};

use crate::config::ReportFormat;
use crate::pipeline::{DrawTimeline, EXIT_CLEAN, EXIT_ERROR, OpenWindow, load_files};

/// What the window layer (the `gui` feature) lends the dispatch: `main`
/// passes it in, so that this module never imports `ui`.
pub struct Frontend {
    /// Opens the window; returns the exit code.
    pub window: OpenWindow,
    /// Draws a timeline picture (`render`, and the pictures of `report`).
    pub draw_timeline: DrawTimeline,
}

/// Runs a parsed command line: the one dispatch of every subcommand, with
/// the window layer when this build has one. Errors are printed in
/// ripgrep's style and give exit code 2.
pub fn run(cli: &Cli, frontend: Option<&Frontend>) -> ExitCode {
    match dispatch(cli, frontend) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            // A file name, mapping error or field name may carry ESC or BEL:
            // escaped, never sent raw to the terminal.
            let text = format!("{err:#}");
            eprintln!("lockreplay: {}", crate::report::terminal_safe(&text));
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn dispatch(cli: &Cli, frontend: Option<&Frontend>) -> anyhow::Result<u8> {
    let no_window = || {
        anyhow::anyhow!(
            "this build has no window (built without the `gui` feature); use `lockreplay analyze`"
        )
    };
    match &cli.command {
        Some(Command::Analyze(args)) => {
            let report = report_config(args.format, args.lang);
            let (read, analysis) = args.analysis.resolve()?;
            crate::pipeline::analyze_and_print(&args.files, &read, analysis.settings(), &report)
        }
        Some(Command::Report(args)) => {
            let (read, analysis) = args.analysis.resolve()?;
            let phases = crate::pipeline::Phases::new(args.lang == ReportLang::Zh);
            let loaded =
                crate::pipeline::load_files_said(&args.files, &read, analysis.settings(), &phases)?;
            let draw = frontend
                .filter(|_| !args.no_images)
                .map(|f| f.draw_timeline);
            let style = crate::pipeline::PictureStyle {
                size: crate::pipeline::REPORT_PICTURE_SIZE,
                scale: check_scale(args.scale)?,
                dark: false,
                zh: args.lang == ReportLang::Zh,
            };
            let extent = (args.top, args.full_trace, Some(&phases));
            crate::pipeline::write_report_folder(
                &loaded,
                &args.out,
                &args.files,
                draw,
                style,
                extent,
            )?;
            // Say where it went (on stderr: stdout stays for printers).
            let sum = &loaded.analysis.summary;
            eprintln!(
                "lockreplay: report written to {} ({} incident(s), {} unit(s) oversold)",
                crate::report::terminal_safe(&args.out.display().to_string()),
                sum.incidents,
                sum.oversold_units
            );
            Ok(loaded.exit_code())
        }
        Some(Command::Render(args)) => render(args, frontend.ok_or_else(no_window)?),
        Some(Command::Simulate(args)) => {
            args.validate()?;
            for out in [&args.out, &args.truth].into_iter().flatten() {
                crate::fsio::check_output(out, &[])?;
            }
            crate::sim::run(&args.sim_args()).map(|()| EXIT_CLEAN)
        }
        Some(Command::Whatif(args)) => whatif(args),
        Some(Command::Sql(args)) => sql(args),
        Some(Command::Inspect(args)) => {
            let (read, analysis) = args.analysis.resolve()?;
            crate::inspect::run(&args.files, args.write_mapping.as_deref(), &read, &analysis)
        }
        Some(Command::Fetch(args)) => fetch(args, frontend.map(|f| f.window)),
        None => {
            let window = frontend.ok_or_else(no_window)?.window;
            window(&cli.window_config()?)
        }
    }
}

/// `lockreplay render`: the timeline of the files (zoomed to `--incident`)
/// as a PNG.
fn render(args: &RenderArgs, frontend: &Frontend) -> anyhow::Result<u8> {
    // Before any load or GPU work: a bad size or an --out that is an input
    // or a device is refused with our own message.
    let size = parse_size(&args.size)?;
    let scale = check_scale(args.scale)?;
    crate::fsio::check_output(&args.out, &args.files)?;
    let (read, analysis) = args.analysis.resolve()?;
    let loaded = load_files(&args.files, &read, analysis.settings())?;
    let incident = match &args.incident {
        None => None,
        Some(spec) => Some(parse_incident(spec, loaded.analysis.incidents.len())?),
    };
    let style = crate::pipeline::PictureStyle {
        size,
        scale,
        dark: args.theme == Theme::Dark,
        zh: args.lang == ReportLang::Zh,
    };
    let subject = incident.map_or(crate::pipeline::PictureSubject::Log, |i| {
        crate::pipeline::PictureSubject::Incident(i)
    });
    (frontend.draw_timeline)(&loaded, subject, style, &args.out)?;
    Ok(loaded.exit_code())
}

/// `lockreplay whatif`: loads, analyses, replays under the policies and
/// prints; the exit code of `analyze`.
fn whatif(args: &WhatifArgs) -> anyhow::Result<u8> {
    let policies = args.policies()?;
    let (read, analysis) = args.resolve()?;
    let report = report_config(args.format, args.lang);
    let loaded = load_files(&args.files, &read, analysis.settings())?;
    let r = loaded.input();
    let started = std::time::Instant::now();
    let w = crate::whatif::what_if(r.log, r.analysis, r.settings, &policies, args.wait_limit_ms);
    crate::timing::phase("whatif", started);
    let zh = report.zh();
    let out = match report.format {
        ReportFormat::Text => crate::report::whatif_text(&r, &w, zh),
        ReportFormat::Markdown => crate::report::whatif_markdown(&r, &w, zh),
        ReportFormat::Json => crate::report::whatif_json(&r, &w),
    };
    print!("{out}");
    Ok(loaded.exit_code())
}

/// `lockreplay sql`: the lock events of the files as a table
/// (`--export-events`), else the rules' query or an alert rule.
fn sql(args: &SqlArgs) -> anyhow::Result<u8> {
    if let Some(out) = &args.export_events {
        if args.files.is_empty() {
            bail!("--export-events needs the log files to read");
        }
        let (read, analysis) = args.analysis.resolve()?;
        return crate::sql::command::export_events(&args.files, out, &read, &analysis);
    }
    if !args.files.is_empty() {
        bail!("log files are read only with --export-events; the query reads --table");
    }
    crate::sql::command::print_query(&args.spec()?, args.alert)
}

/// `lockreplay fetch`; `window` opens the window (`--open`).
fn fetch(args: &FetchArgs, window: Option<OpenWindow>) -> anyhow::Result<u8> {
    if args.open && window.is_none() {
        bail!("this build has no window (built without the `gui` feature); drop --open");
    }
    crate::sql::fetch::run(&args.fetch_config()?, window)
}

//! File > Export report: the folder `lockreplay report` writes, written
//! from the window on a background thread.

use std::sync::mpsc::Sender;

use super::dialogs::{SaveTo, pick_or_fallback};
use crate::ui::i18n::{Lang, tr, trf};
use crate::ui::session::Session;

/// Writes the report folder of `session` on the `export-report` thread:
/// the folder from a dialog, or `lockreplay-report-<time>` in the fallback
/// folder when there is no dialog. The outcome arrives on `done` (and
/// `ctx` is repainted); returns the notice to show now.
pub fn export_report(
    session: &Session,
    lang: Lang,
    save_to: SaveTo<'_>,
    ctx: Option<egui::Context>,
    done: Sender<String>,
) -> String {
    let (log, analysis, settings) = (
        session.log.clone(),
        session.analysis.clone(),
        session.settings.clone(),
    );
    let inputs = session.files().to_vec();
    let fallback = save_to.fallback_dir.join(format!(
        "lockreplay-report-{}",
        chrono::Local::now().format("%Y%m%d-%H%M%S")
    ));
    let dialogs = save_to.dialogs;
    let spawned = std::thread::Builder::new()
        .name("export-report".into())
        .spawn(move || {
            let pick = || rfd::FileDialog::new().pick_folder();
            let Some((dir, fallback)) = pick_or_fallback(dialogs, pick, fallback) else {
                let _ = done.send(tr(lang, "cancel").to_string());
                return;
            };
            let loaded = crate::pipeline::AnalyzedLog::new(log.clone(), settings, analysis.clone());
            let shown = dir.display().to_string();
            let written = crate::pipeline::write_report_folder(
                &loaded,
                &dir,
                &inputs,
                Some(crate::ui::render_png),
                crate::pipeline::PictureStyle {
                    size: crate::pipeline::REPORT_PICTURE_SIZE,
                    scale: crate::pipeline::PICTURE_SCALE,
                    dark: false,
                    zh: lang == Lang::Zh,
                },
                (crate::report::rank::TOP_INCIDENTS, false, None),
            );
            let msg = match written {
                Ok(()) if fallback => trf(lang, "no_dialog_report", &[&shown]),
                Ok(()) => trf(lang, "report_written", &[&shown]),
                Err(e) => trf(lang, "save_failed", &[&format!("{e:#}")]),
            };
            let _ = done.send(msg);
            if let Some(ctx) = ctx {
                ctx.request_repaint();
            }
        });
    match spawned {
        Ok(_) => tr(lang, "exporting").to_string(),
        Err(_) => tr(lang, "no_dialog").to_string(),
    }
}

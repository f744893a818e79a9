//! The warnings panel: every line that could not be read, with its file,
//! line number and reason.

use egui::Ui;

use super::PanelContext;
use crate::model::Message;
use crate::ui::i18n::{Lang, tr};

/// The warnings panel.
pub fn warnings_ui(ui: &mut Ui, context: &PanelContext<'_>) {
    let Some(s) = context.session else { return };
    ui.heading(format!(
        "{} ({})",
        tr(context.lang(), "warnings"),
        s.log.warnings.total()
    ));
    egui::ScrollArea::vertical()
        .auto_shrink(false)
        .show(ui, |ui| {
            let zh = context.lang() == Lang::Zh;
            for w in s.log.warnings.kept() {
                let reason = w.reason.text(zh);
                ui.monospace(format!("{}:{}: {reason}", w.file, w.line));
            }
            if s.log.warnings.dropped() > 0 {
                ui.label(format!("… +{}", s.log.warnings.dropped()));
            }
        });
}

//! The warnings panel: every line that could not be read, with its file,
//! line number and reason.

use egui::Ui;

use super::PanelContext;
use crate::ui::i18n::tr;

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
            for w in s.log.warnings.kept() {
                ui.monospace(format!("{}:{}: {}", w.file, w.line, w.reason));
            }
            if s.log.warnings.dropped() > 0 {
                ui.label(format!("… +{}", s.log.warnings.dropped()));
            }
        });
}

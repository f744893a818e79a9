//! The window's loss, shown where a loss is shown: the figure of
//! [`crate::money::Loss`] (`¥?` when unknown) and, when no unit loss is set,
//! the input that sets it (persisted with the settings) beside it, with the
//! log's list price offered as a labelled estimate, never used silently.

use egui::{RichText, Ui};

use super::{ALERT, PanelContext};
use crate::money::Loss;
use crate::ui::i18n::{tr, trf};
use crate::ui::state::Command;

/// `loss` in the settings' currency, red when money was lost or unknown.
pub fn loss_label(ui: &mut Ui, context: &PanelContext<'_>, loss: Loss) -> egui::Response {
    let currency = context
        .session
        .map_or("CNY", |s| s.settings.currency.as_str());
    let text = RichText::new(loss.format(currency)).strong();
    let text = match loss {
        Loss::Known(a) if a > 0.0 => text.color(ALERT),
        Loss::Known(_) => text,
        Loss::Unknown => text.color(ALERT),
    };
    ui.label(text)
        .on_hover_text(tr(context.lang(), "loss_hover"))
}

/// When the log's unit loss is unset: "unit loss not set" with an input
/// and a Set button, and the list price offered with its label. Nothing
/// when it is set. Sends [`Command::SetSettings`].
pub fn ask_unit_loss_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let Some(s) = context.session else { return };
    if s.settings.unit_loss.is_some() {
        return;
    }
    let lang = context.lang();
    let zh = lang == crate::ui::i18n::Lang::Zh;
    let id = ui.make_persistent_id("unit_loss_input");
    let mut value: f64 = ui.data_mut(|d| *d.get_temp_mut_or(id, 0.0));
    let settings = s.settings.clone();
    let list = crate::money::list_price(&s.log);
    ui.horizontal_wrapped(|ui| {
        let l = ui.label(RichText::new(tr(lang, "unit_loss_unset")).color(ALERT));
        let r = ui
            .add(egui::DragValue::new(&mut value).range(0.0..=1e9).speed(1.0))
            .labelled_by(l.id);
        if r.changed() {
            ui.data_mut(|d| d.insert_temp(id, value));
        }
        if ui.button(tr(lang, "set_unit_loss")).clicked() {
            let mut st = settings.clone();
            st.unit_loss = Some(value);
            context.send(Command::SetSettings(st));
        }
        if let Some(p) = list {
            let offer = trf(lang, "use_list_price", &[&p.label(&settings.currency, zh)]);
            if ui
                .button(offer)
                .on_hover_text(tr(lang, "list_price_hover"))
                .clicked()
            {
                let mut st = settings.clone();
                st.unit_loss = Some(p.max);
                context.send(Command::SetSettings(st));
            }
        }
    });
}

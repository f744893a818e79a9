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
        Loss::Unknown | Loss::StockUnknown => text.color(ALERT),
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
    let list = s.list_price;
    ui.horizontal_wrapped(|ui| {
        let l = ui.label(RichText::new(tr(lang, "unit_loss_unset")).color(ALERT));
        let r = ui
            .add(egui::DragValue::new(&mut value).range(0.0..=1e9).speed(1.0))
            .labelled_by(l.id);
        if r.changed() {
            ui.data_mut(|d| d.insert_temp(id, value));
        }
        let refused_id = id.with("refused");
        if ui.button(tr(lang, "set_unit_loss")).clicked() {
            match accepted_unit_loss(value) {
                Some(v) => {
                    let mut st = settings.clone();
                    st.unit_loss = Some(v);
                    context.send(Command::SetSettings(st));
                }
                None => ui.data_mut(|d| {
                    d.insert_temp(refused_id, true);
                }),
            }
        }
        if r.changed() {
            ui.data_mut(|d| d.remove_temp::<bool>(refused_id));
        }
        if ui.data(|d| d.get_temp::<bool>(refused_id)).unwrap_or(false) {
            ui.label(RichText::new(tr(lang, "unit_loss_refused")).color(ALERT));
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

/// The unit loss a Set press stores: a positive, finite amount (CNY, or the
/// settings' currency); `None` for an empty or zero entry, which would
/// show a known ¥0 loss that nobody meant.
pub fn accepted_unit_loss(value: f64) -> Option<f64> {
    (value.is_finite() && value > 0.0).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::accepted_unit_loss;

    #[test]
    fn only_a_positive_amount_is_a_unit_loss() {
        assert_eq!(accepted_unit_loss(0.0), None);
        assert_eq!(accepted_unit_loss(-1.0), None);
        assert_eq!(accepted_unit_loss(f64::NAN), None);
        assert_eq!(accepted_unit_loss(0.5), Some(0.5));
        assert_eq!(accepted_unit_loss(650.0), Some(650.0));
    }
}

//! The replay's tickers at the cursor (orders, oversold units, loss so
//! far) and the stock level of each product.

use egui::{RichText, Ui};

use super::ALERT;
use crate::model::LoadedLog;
use crate::replay::ReplayState;
use crate::report::format_money;
use crate::ui::i18n::{Lang, tr, trf};

/// Products listed.
const MAX_PRODUCTS: usize = 6;

/// The tickers and stock levels of `st` (in `currency`).
pub fn stock_ui(ui: &mut Ui, lang: Lang, log: &LoadedLog, st: &ReplayState, currency: &str) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(trf(lang, "orders_so_far", &[&st.orders.to_string()])).strong());
        ui.separator();
        let over = RichText::new(trf(
            lang,
            "oversold_so_far",
            &[&st.oversold_units.to_string()],
        ))
        .strong();
        ui.label(if st.oversold_units > 0 {
            over.color(ALERT)
        } else {
            over
        });
        ui.separator();
        let loss = RichText::new(trf(
            lang,
            "loss_so_far",
            &[&format_money(st.loss, currency)],
        ))
        .strong();
        ui.label(if st.loss > 0.0 {
            loss.color(ALERT)
        } else {
            loss
        });
    });
    if st.stock.is_empty() {
        return;
    }
    ui.label(RichText::new(tr(lang, "stock")).weak());
    for p in st.stock.iter().take(MAX_PRODUCTS) {
        let product = p
            .product
            .map_or(tr(lang, "unknown_product"), |sym| log.strings.get(sym));
        let level = p
            .level
            .map_or_else(|| tr(lang, "stock_unknown").to_string(), |l| l.to_string());
        let text = RichText::new(format!("{product}: {level}")).monospace();
        ui.label(if p.level.is_some_and(|l| l <= 0) {
            text.color(ALERT)
        } else {
            text
        });
    }
}

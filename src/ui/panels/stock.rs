//! The replay's tickers at the cursor (orders, oversold units, loss so
//! far) and the stock level of each product.

use egui::{RichText, Ui};

use super::ALERT;
use crate::model::LoadedLog;
use crate::playback::ReplayState;
use crate::ui::i18n::{Lang, tr, trf};
use crate::ui::products::{ProductFinder, stock_order};

/// Products listed.
const MAX_PRODUCTS: usize = 6;

/// The tickers and stock levels of `st` (in `currency`), at most
/// `max_products` (and [`MAX_PRODUCTS`]), the products of the lock keys on
/// screen (found with `finder`) first. A level below zero is red (oversold); 0
/// is sold out, not an alarm.
pub fn stock_ui(
    ui: &mut Ui,
    lang: Lang,
    log: &LoadedLog,
    st: &ReplayState,
    currency: &str,
    (finder, keys_on_screen, max_products): (&ProductFinder, &[&str], usize),
) {
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
        let loss = RichText::new(trf(lang, "loss_so_far", &[&st.loss.format(currency)])).strong();
        ui.label(if st.loss != crate::money::Loss::Known(0.0) {
            loss.color(ALERT)
        } else {
            loss
        });
    });
    if st.stock.is_empty() {
        return;
    }
    ui.label(RichText::new(tr(lang, "stock")).weak());
    let order = stock_order(finder, keys_on_screen, max_products.min(MAX_PRODUCTS));
    for p in order.iter().filter_map(|&i| st.stock.get(i)) {
        let product = p
            .product
            .map_or(tr(lang, "unknown_product"), |sym| log.strings.get(sym));
        let level = p
            .level
            .map_or_else(|| tr(lang, "stock_unknown").to_string(), |l| l.to_string());
        let text = RichText::new(format!("{product}: {level}")).monospace();
        ui.label(if p.level.is_some_and(|l| l < 0) {
            text.color(ALERT)
        } else {
            text
        });
    }
}

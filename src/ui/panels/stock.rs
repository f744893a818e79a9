//! The replay's tickers at the cursor (orders, oversold units, loss so
//! far) and the stock level of each product.

use egui::{RichText, Ui};

use super::ALERT;
use crate::model::LoadedLog;
use crate::playback::ReplayState;
use crate::report::format_money;
use crate::ui::i18n::{Lang, tr, trf};

/// Products listed.
const MAX_PRODUCTS: usize = 6;

/// The indices of `products` in the order they are listed: those named in
/// a lock key on screen (`keys_on_screen`, top first) first, then the rest
/// in their order.
pub fn stock_order(products: &[&str], keys_on_screen: &[&str]) -> Vec<usize> {
    let rank = |p: &str| {
        keys_on_screen
            .iter()
            .position(|k| !p.is_empty() && k.contains(p))
            .unwrap_or(usize::MAX)
    };
    let mut order: Vec<usize> = (0..products.len()).collect();
    order.sort_by_key(|&i| rank(products[i]));
    order
}

/// The tickers and stock levels of `st` (in `currency`), the products of
/// the lock keys on screen first. A level below zero is red (oversold); 0
/// is sold out, not an alarm.
pub fn stock_ui(
    ui: &mut Ui,
    lang: Lang,
    log: &LoadedLog,
    st: &ReplayState,
    currency: &str,
    keys_on_screen: &[&str],
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
    let names: Vec<&str> = st
        .stock
        .iter()
        .map(|p| p.product.map_or("", |sym| log.strings.get(sym)))
        .collect();
    let order = stock_order(&names, keys_on_screen);
    for p in order.iter().take(MAX_PRODUCTS).map(|&i| &st.stock[i]) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_of_the_keys_on_screen_come_first() {
        let products = ["product:1001", "product:1002", "product:1203"];
        let on_screen = ["product:1203:lock", "product:1002:lock"];
        assert_eq!(stock_order(&products, &on_screen), vec![2, 1, 0]);
        assert_eq!(stock_order(&products, &[]), vec![0, 1, 2]);
    }
}

//! Money, once: the one type for a loss ([`Loss`]) and the one function that
//! computes it ([`loss`]) from oversold units and the unit loss, so every
//! surface (text, Markdown, JSON, CSV, trace.json, captions, the window, the
//! what-if) carries the same figure, known or unknown.
//!
//! The unit loss is what one oversold unit costs the business (a refund, a
//! make-good coupon), set by the user (`--unit-loss`, the window's input).
//! A `unit_price` in the log is the list price: it may be offered as an
//! estimate ([`list_price`]), always labelled so, never used silently.

use serde::{Serialize, Serializer};

use crate::model::LoadedLog;

/// Why a loss is unknown, as written in the JSON report beside
/// `"amount": null` (English, like the rest of the JSON).
pub const UNKNOWN_REASON: &str =
    "no unit loss given (--unit-loss); the log's unit_price is the list price, not the loss";

/// Why a [`Loss::StockUnknown`] is unknown, as the JSON report writes it.
pub const STOCK_UNKNOWN_REASON: &str = "products were sold but the log has no stock level (no initial \
     stock, no stock read or stock_after): whether any of it went beyond the stock is unknown";

/// A loss in the settings' currency: known, or unknown because units were
/// oversold and no unit loss was given, or because the log has no stock
/// level to measure what was sold against.
#[derive(Clone, Copy, Debug, PartialEq, bitcode::Encode, bitcode::Decode)]
pub enum Loss {
    /// The amount, in the settings' currency.
    Known(f64),
    /// Units were oversold but no unit loss was given.
    Unknown,
    /// Products were sold and no stock level was read anywhere in the log
    /// (docs/semantics.md §7): the oversold units, and so the loss, are
    /// unknown, whatever the unit loss.
    StockUnknown,
}

impl Default for Loss {
    fn default() -> Self {
        Loss::Known(0.0)
    }
}

/// The loss of `units` oversold units at `unit_loss` a unit: nothing
/// oversold costs nothing, whatever the unit loss; without a unit loss any
/// oversold unit makes the loss [`Loss::Unknown`]. The only place a loss is
/// multiplied out.
pub fn loss(units: i64, unit_loss: Option<f64>) -> Loss {
    match unit_loss {
        _ if units == 0 => Loss::Known(0.0),
        Some(u) => Loss::Known(units as f64 * u),
        None => Loss::Unknown,
    }
}

impl Loss {
    /// The amount when known.
    pub fn amount(self) -> Option<f64> {
        match self {
            Loss::Known(a) => Some(a),
            Loss::Unknown | Loss::StockUnknown => None,
        }
    }

    /// Why the amount is unknown, in English ([`UNKNOWN_REASON`],
    /// [`STOCK_UNKNOWN_REASON`]); `None` when it is known.
    pub fn unknown_reason(self) -> Option<&'static str> {
        match self {
            Loss::Known(_) => None,
            Loss::Unknown => Some(UNKNOWN_REASON),
            Loss::StockUnknown => Some(STOCK_UNKNOWN_REASON),
        }
    }

    /// True when the amount is known.
    pub fn is_known(self) -> bool {
        matches!(self, Loss::Known(_))
    }

    /// The sum of two losses; unknown when either is, for want of a stock
    /// level before a unit loss.
    pub fn plus(self, other: Loss) -> Loss {
        match (self, other) {
            (Loss::Known(a), Loss::Known(b)) => Loss::Known(a + b),
            (Loss::StockUnknown, _) | (_, Loss::StockUnknown) => Loss::StockUnknown,
            _ => Loss::Unknown,
        }
    }

    /// A value to sort by: unknown losses after every known one.
    pub fn sort_key(self) -> f64 {
        self.amount().unwrap_or(f64::INFINITY)
    }

    /// `¥600`, `¥12.50`, `600 SEK`; `¥?` when unknown. The one format of a
    /// loss on every surface; a surface may add why it is unknown.
    pub fn format(self, currency: &str) -> String {
        match self {
            Loss::Known(a) => format_money(a, currency),
            Loss::Unknown | Loss::StockUnknown => format_money(0.0, currency).replacen('0', "?", 1),
        }
    }

    /// The amount for a CSV cell: two decimals, empty when unknown.
    pub fn csv(self) -> String {
        self.amount().map_or(String::new(), |a| format!("{a:.2}"))
    }
}

/// Serialised as its amount to the cent (fen), `null` when unknown.
impl Serialize for Loss {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.amount().map(to_cents).serialize(s)
    }
}

/// `amount` rounded to two decimals (the cent, the fen): a sum of 3 x ¥19.9
/// is 59.699999999999996 in binary floating point and is written 59.7,
/// in the JSON report too.
pub fn to_cents(amount: f64) -> f64 {
    if amount.is_finite() && amount.abs() < 1e13 {
        (amount * 100.0).round() / 100.0
    } else {
        amount
    }
}

/// Money in `currency`: `¥1 499` is written `¥1499`; whole amounts without
/// decimals, others with two. Known symbols for CNY/JPY (¥), USD ($), EUR
/// (€), GBP (£); other codes after the number.
pub fn format_money(amount: f64, currency: &str) -> String {
    let number = if (amount - amount.round()).abs() < 0.005 {
        format!("{:.0}", amount)
    } else {
        format!("{:.2}", amount)
    };
    match currency_symbol(currency) {
        Some(sym) => format!("{sym}{number}"),
        None => format!("{number} {currency}"),
    }
}

/// The symbol of an ISO currency code, when it has a common one.
pub fn currency_symbol(currency: &str) -> Option<&'static str> {
    match currency.to_ascii_uppercase().as_str() {
        "CNY" | "RMB" | "JPY" => Some("¥"),
        "USD" => Some("$"),
        "EUR" => Some("€"),
        "GBP" => Some("£"),
        _ => None,
    }
}

/// The list price a unit carried in the log (`unit_price` of its orders and
/// stock deductions): the lowest and highest seen. Offered as an estimate of
/// the unit loss, labelled as list price, never used without the user's
/// choice. `None` when no event carries one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListPrice {
    /// The lowest `unit_price` seen.
    pub min: f64,
    /// The highest `unit_price` seen.
    pub max: f64,
}

/// The [`ListPrice`] of `log`'s events, `None` when none carries a
/// `unit_price` (or only non-finite or negative ones).
pub fn list_price(log: &LoadedLog) -> Option<ListPrice> {
    let mut found: Option<ListPrice> = None;
    for e in &log.events {
        let Some(p) = e.detail().unit_price else {
            continue;
        };
        if !p.is_finite() || p < 0.0 {
            continue;
        }
        found = Some(match found {
            None => ListPrice { min: p, max: p },
            Some(l) => ListPrice {
                min: l.min.min(p),
                max: l.max.max(p),
            },
        });
    }
    found
}

impl ListPrice {
    /// `list price ¥899 a unit` / `标价 ¥899/件` (a range when prices
    /// differ): the label every offer of it carries.
    pub fn label(self, currency: &str, zh: bool) -> String {
        let price = if self.min == self.max {
            format_money(self.min, currency)
        } else {
            format!(
                "{}–{}",
                format_money(self.min, currency),
                format_money(self.max, currency)
            )
        };
        if zh {
            format!("日志中的标价 {price}/件（标价不是损失）")
        } else {
            format!("list price in the log {price} a unit (a list price, not the loss)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_written_to_the_cent() {
        assert_eq!(to_cents(19.9 * 3.0), 59.7);
        assert_eq!(
            serde_json::to_string(&Loss::Known(19.9 * 3.0)).expect("json"),
            "59.7"
        );
        assert_eq!(to_cents(650.0), 650.0);
    }

    #[test]
    fn a_loss_is_units_times_the_unit_loss_and_unknown_without_one() {
        assert_eq!(loss(3, Some(200.0)), Loss::Known(600.0));
        assert_eq!(loss(3, None), Loss::Unknown);
        assert_eq!(loss(0, None), Loss::Known(0.0));
        assert_eq!(loss(3, Some(0.0)), Loss::Known(0.0));
        assert_eq!(loss(3, None).format("CNY"), "¥?");
        assert_eq!(loss(3, Some(499.5)).format("CNY"), "¥1498.50");
        assert_eq!(loss(2, Some(5.0)).format("SEK"), "10 SEK");
        assert_eq!(loss(2, None).format("SEK"), "? SEK");
        assert_eq!(Loss::Known(1.0).plus(Loss::Unknown), Loss::Unknown);
        assert_eq!(Loss::Known(1.0).plus(Loss::Known(2.0)), Loss::Known(3.0));
        assert_eq!(
            serde_json::to_string(&Loss::Unknown).ok().as_deref(),
            Some("null")
        );
        assert_eq!(loss(3, None).csv(), "");
    }
}

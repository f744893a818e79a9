//! Printers over one [`Analysis`]: plain text for the terminal, Markdown for
//! the incident write-up, JSON with a stable schema (`docs/json-schema.md`),
//! CSV and a Chrome trace, and the report folder that holds them.
//! Each incident is explained in one paragraph of plain words.

mod csv;
pub mod escape;
pub mod evidence;
mod explain;
mod folder;
pub mod holders;
mod json;
mod markdown;
pub mod rank;
mod text;
mod trace;
mod whatif;
pub mod zh;

use chrono::{DateTime, FixedOffset};

use crate::analysis::{Analysis, Finding, Incident, LeaseId, Overlap, Sale, Settings};
use crate::model::{LoadedLog, Message, Phrase};
use crate::money::Loss;

pub use crate::money::{currency_symbol, format_money};
pub use csv::{findings_csv, incidents_csv};
pub use explain::{
    Explanation, SaleList, SalesStory, explain, explain_incident, explain_incident_in,
    incident_sales,
};
pub use folder::{
    FolderOptions, MAX_INCIDENT_PICTURES, MAX_KEY_PICTURES, PictureFn, PictureSubject,
    key_pictures, pictured_incidents, write_report_dir,
};
pub use json::{JSON_SCHEMA_VERSION, to_json, write_json};
pub use markdown::{MarkdownImages, to_markdown, to_markdown_zh};
pub use text::{to_text, to_text_zh, write_text};

/// Writes a report of one format to a writer (`analyze`'s standard output).
pub type Printer = fn(&ReportInput<'_>, &mut dyn std::io::Write) -> std::io::Result<()>;
pub use trace::{Trace, TraceEvent, chrome_trace, incident_trace};
pub use whatif::{
    MODEL_NOTE, WHATIF_MD, WHATIF_SCHEMA, default_policies, whatif_json, whatif_markdown,
    whatif_text, write_whatif_section,
};

/// Everything a printer needs: the loaded log, the settings used, and the
/// analysis computed from them.
#[derive(Clone, Copy)]
pub struct ReportInput<'a> {
    /// The loaded log.
    pub log: &'a LoadedLog,
    /// The settings the analysis ran with.
    pub settings: &'a Settings,
    /// The analysis.
    pub analysis: &'a Analysis,
}

impl ReportInput<'_> {
    /// Formats a time in the log's display zone with ms precision,
    /// `2025-03-03 10:20:05.100 +08:00`.
    pub fn time(&self, at_ns: i64) -> String {
        format_time(at_ns, self.log.display_offset_s)
    }

    /// [`ReportInput::time`], as the time of day alone (`16:40:31.353`)
    /// when it falls on the same day as `near_ns` in the log's display zone
    /// (an incident's tables, under a paragraph that gives its date and
    /// offset).
    pub fn time_near(&self, at_ns: i64, near_ns: i64) -> String {
        let off = self.log.display_offset_s;
        match (datetime(at_ns, off), datetime(near_ns, off)) {
            (Some(a), Some(n)) if a.date_naive() == n.date_naive() => {
                a.format("%H:%M:%S%.3f").to_string()
            }
            _ => format_time(at_ns, off),
        }
    }

    /// Formats a time as RFC 3339 in the log's display zone, µs precision.
    pub fn rfc3339(&self, at_ns: i64) -> String {
        format_rfc3339(at_ns, self.log.display_offset_s)
    }

    /// Money in the settings' currency.
    pub fn money(&self, amount: f64) -> String {
        format_money(amount, &self.settings.currency)
    }

    /// What makes this load an error ([`crate::analysis::problems`]),
    /// each as a sentence that says the numbers after it are not an
    /// all-clear, in Chinese with `zh`; printers put these first. Empty
    /// for a readable load.
    pub fn not_readable(&self, zh: bool) -> Vec<String> {
        const NOT_READABLE: Phrase = Phrase::new(
            "NOT READABLE: {}. The numbers below are not an all-clear.",
            "无法读取：{}。下面的数字不代表一切正常。",
        );
        const LOSS_UNKNOWN: Phrase = Phrase::new(
            "LOSS UNKNOWN: {}. The oversold units and the loss below are not an answer.",
            "损失未知：{}。下面的超卖件数和损失不是结论。",
        );
        crate::analysis::problems(self.log, self.analysis)
            .iter()
            .map(|p| {
                let head = if p.is_unreadable() {
                    NOT_READABLE
                } else {
                    LOSS_UNKNOWN
                };
                head.fill(zh, &[&p.text(zh)])
            })
            .collect()
    }

    /// A loss for the reports ([`LossText`]), in Chinese with `zh`.
    pub fn loss(&self, loss: Loss, zh: bool) -> String {
        LossText::of(loss, &self.settings.currency).text(zh)
    }

    /// The unit loss as given, or `¥? (no --unit-loss)`; with the log's
    /// list price offered as an estimate, labelled so, when there is one.
    pub fn unit_loss(&self, zh: bool) -> String {
        match self.settings.unit_loss {
            Some(u) => self.money(u),
            None => {
                let unknown = self.loss(Loss::Unknown, zh);
                match crate::money::list_price(self.log) {
                    Some(p) if zh => format!("{unknown}；{}", p.label(&self.settings.currency, zh)),
                    Some(p) => format!("{unknown}; {}", p.label(&self.settings.currency, zh)),
                    None => unknown,
                }
            }
        }
    }

    /// True when hold `lease` was inferred from a MONITOR replay.
    pub fn lease_inferred(&self, lease: LeaseId) -> bool {
        self.analysis
            .leases
            .get(lease.index())
            .is_some_and(|l| l.inferred)
    }

    /// True when either hold of an overlap was inferred.
    pub fn overlap_inferred(&self, o: &Overlap) -> bool {
        self.lease_inferred(o.earlier) || self.lease_inferred(o.later)
    }

    /// True when the order or stock deduction of a sale was inferred.
    pub fn sale_inferred(&self, x: &Sale) -> bool {
        self.log
            .events
            .get(x.event.index())
            .is_some_and(|e| e.inferred)
    }

    /// True when any hold or sale of an incident was inferred.
    pub fn incident_inferred(&self, inc: &Incident) -> bool {
        inc.leases.iter().any(|&l| self.lease_inferred(l))
            || inc.sales.iter().any(|&i| {
                self.analysis
                    .sales
                    .get(i.index())
                    .is_some_and(|x| self.sale_inferred(x))
            })
    }

    /// True when the hold a finding is about was inferred.
    pub fn finding_inferred(&self, f: &Finding) -> bool {
        f.lease.is_some_and(|l| self.lease_inferred(l))
    }

    /// True when the report shows anything inferred (then it prints
    /// [`INFERRED_LEGEND`]).
    pub fn shows_inferred(&self) -> bool {
        let a = self.analysis;
        a.incidents.iter().any(|inc| self.incident_inferred(inc))
            || a.findings.iter().any(|f| self.finding_inferred(f))
    }
}

/// A loss as the reports print it: the amount ([`Loss::format`]), or `¥?`
/// and why when it is unknown (units oversold and no `--unit-loss`, or a
/// product sold without a stock level): "¥0 lost" would read as an
/// all-clear.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LossText {
    /// The amount in the currency, `¥?` when unknown.
    pub amount: String,
    /// False when unknown.
    pub known: bool,
    /// True when unknown for want of a stock level ([`Loss::StockUnknown`]),
    /// not of a unit loss.
    pub stock_unknown: bool,
}

impl LossText {
    /// `loss` in `currency`.
    pub fn of(loss: Loss, currency: &str) -> LossText {
        LossText {
            amount: loss.format(currency),
            known: loss.is_known(),
            stock_unknown: loss == Loss::StockUnknown,
        }
    }
}

impl Message for LossText {
    fn en(&self) -> String {
        match (self.known, self.stock_unknown) {
            (true, _) => self.amount.clone(),
            (false, true) => format!("{} (no stock level)", self.amount),
            (false, false) => format!("{} (no --unit-loss)", self.amount),
        }
    }

    fn zh(&self) -> String {
        match (self.known, self.stock_unknown) {
            (true, _) => self.amount.clone(),
            (false, true) => format!("{}（没有库存水平）", self.amount),
            (false, false) => format!("{}（未给出 --unit-loss）", self.amount),
        }
    }
}

/// The mark's text, written once for the constants below.
macro_rules! inferred_mark {
    () => {
        "(inferred)"
    };
}

/// Marks an outcome inferred from a MONITOR replay in the text and Markdown
/// reports.
pub const INFERRED_MARK: &str = inferred_mark!();

/// Says what [`INFERRED_MARK`] means, once per report that uses it.
pub const INFERRED_LEGEND: Phrase = Phrase::new(
    concat!(
        inferred_mark!(),
        " = inferred from MONITOR replay: the capture shows each command but not its reply, so the outcome is what replaying it through the keyspace model gives."
    ),
    "（推断）= 由 MONITOR 回放推断：抓包只有命令没有回复，结果是按键空间模型回放命令得出的。",
);

/// ` (inferred)` ([`INFERRED_MARK`] after a space) when `inferred`, else
/// nothing.
pub fn inferred_suffix(inferred: bool) -> Phrase {
    if inferred {
        Phrase::new(concat!(" ", inferred_mark!()), "（推断）")
    } else {
        Phrase::same("")
    }
}

fn datetime(at_ns: i64, offset_s: i32) -> Option<DateTime<FixedOffset>> {
    let offset = FixedOffset::east_opt(offset_s).or_else(|| FixedOffset::east_opt(0))?;
    Some(DateTime::from_timestamp_nanos(at_ns).with_timezone(&offset))
}

/// `2025-03-03 10:20:05.100 +08:00` for `at_ns` in a zone `offset_s` east of
/// UTC.
pub fn format_time(at_ns: i64, offset_s: i32) -> String {
    datetime(at_ns, offset_s).map_or_else(
        || at_ns.to_string(),
        |d| d.format("%Y-%m-%d %H:%M:%S%.3f %:z").to_string(),
    )
}

/// RFC 3339 with µs, `2025-03-03T10:20:05.100000+08:00`.
pub fn format_rfc3339(at_ns: i64, offset_s: i32) -> String {
    // The format's items, parsed once rather than for every time written
    // (parsing it each time costs 2 % of a report of a million events).
    static ITEMS: std::sync::OnceLock<Vec<chrono::format::Item<'static>>> =
        std::sync::OnceLock::new();
    let items = ITEMS.get_or_init(|| {
        chrono::format::StrftimeItems::new("%Y-%m-%dT%H:%M:%S%.6f%:z")
            .parse_to_owned()
            .unwrap_or_default()
    });
    datetime(at_ns, offset_s).map_or_else(
        || at_ns.to_string(),
        |d| d.format_with_items(items.iter()).to_string(),
    )
}

/// The name an enum has in the JSON report (`lease_expired`, `own_release`,
/// `json_lines`), for the text and Markdown reports; empty for a value that
/// does not serialise to a string.
pub fn snake_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// An oversold count as every surface prints it: `n`, or, when the loss is
/// unknown for want of a stock level ([`Loss::StockUnknown`]), `≥ n` (some
/// sales went beyond a known stock) or `?`: a bare 0 beside `¥?` would read
/// as "nothing oversold" (docs/semantics.md §7).
pub fn oversold_count(n: i64, loss: Loss) -> String {
    match (loss, n) {
        (Loss::StockUnknown, 0) => "?".to_string(),
        (Loss::StockUnknown, n) => format!("≥ {n}"),
        (_, n) => n.to_string(),
    }
}

/// `1 unit`, `3 units`.
pub fn units(n: i64) -> String {
    if n == 1 {
        "1 unit".to_string()
    } else {
        format!("{n} units")
    }
}

/// Milliseconds for people: `900 ms`, `1.8 s`, `2 min 3 s`.
pub fn format_ms(ms: f64) -> String {
    if ms.abs() < 1000.0 {
        if ms.fract().abs() < 0.05 {
            format!("{ms:.0} ms")
        } else {
            format!("{ms:.1} ms")
        }
    } else if ms.abs() < 60_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        let s = (ms / 1000.0).round() as i64;
        format!("{} min {} s", s / 60, s % 60)
    }
}

/// How long holders believed they held one key at once, for people:
/// [`format_ms`], except that an overlap at an instant (its length rounds
/// to 0, `duration_ms` 0 in the JSON) reads `< 1 ms`, never `0 ms`
/// (tests/fixtures/cases/README.md, "Overlap").
pub fn format_overlap_ms(ms: f64) -> String {
    if ms < 0.05 {
        "< 1 ms".to_string()
    } else {
        format_ms(ms)
    }
}

/// `s` with control characters (ESC, BEL, CR, LF...) and the Unicode
/// bidirectional controls (U+202A..U+202E, U+2066..U+2069, "Trojan
/// Source") written as `\u{1b}`, so that text from a log cannot drive or
/// reorder the terminal it is printed on, nor start a line of its own.
pub fn terminal_safe(s: &str) -> std::borrow::Cow<'_, str> {
    escape::terminal_line(s)
}

pub use escape::is_terminal_safe;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_uses_the_currency_symbol() {
        assert_eq!(format_money(600.0, "CNY"), "¥600");
        assert_eq!(format_money(40.5, "usd"), "$40.50");
        assert_eq!(format_money(120.0, "CHF"), "120 CHF");
    }

    #[test]
    fn times_show_the_log_zone() {
        let ns = 1_740_968_405_100_000_000; // 2025-03-03T02:20:05.100Z
        assert_eq!(format_time(ns, 8 * 3600), "2025-03-03 10:20:05.100 +08:00");
        assert_eq!(format_rfc3339(ns, 0), "2025-03-03T02:20:05.100000+00:00");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_ms(900.0), "900 ms");
        assert_eq!(format_ms(1800.3), "1.8 s");
        assert_eq!(format_ms(123_000.0), "2 min 3 s");
    }

    #[test]
    fn an_overlap_at_an_instant_is_under_a_millisecond_never_zero() {
        assert_eq!(format_overlap_ms(0.0), "< 1 ms");
        assert_eq!(format_overlap_ms(0.5), "0.5 ms");
        assert_eq!(format_overlap_ms(900.0), "900 ms");
    }
}

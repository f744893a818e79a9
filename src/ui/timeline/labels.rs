//! The words and numbers on the timeline: times on the axis and in the
//! corner in the chosen zone, shortened lane names, and the tooltip text of
//! what lies under the pointer.

use serde::{Deserialize, Serialize};

use super::layout::Hit;
use super::model::{InfraMark, Lane, LeaseBar, SwimlaneModel};
use crate::report::{format_ms, format_overlap_ms, format_time, snake_name};
use crate::ui::i18n::{Lang, term, tr, words};

/// How the time axis labels times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeDisplay {
    /// Wall clock in the log's zone.
    #[default]
    LogZone,
    /// Wall clock in UTC.
    Utc,
    /// Wall clock in this machine's zone.
    Local,
    /// Milliseconds since the first event.
    Relative,
}

/// Seconds east of UTC that `d` shows times in; `None` for relative times.
pub fn display_offset(model: &SwimlaneModel, d: TimeDisplay) -> Option<i32> {
    match d {
        TimeDisplay::LogZone => Some(model.log_offset_s),
        TimeDisplay::Utc => Some(0),
        TimeDisplay::Local => Some(chrono::Local::now().offset().local_minus_utc()),
        TimeDisplay::Relative => None,
    }
}

/// Formats `s` (seconds since the first event) for the axis or a tooltip.
pub fn format_at(model: &SwimlaneModel, d: TimeDisplay, s: f64) -> String {
    match display_offset(model, d) {
        Some(off) => {
            let ns = model.t0_ns.saturating_add((s * 1e9).round() as i64);
            format_time(ns, off)
        }
        None => format!("+{:.3} ms", s * 1000.0),
    }
}

/// The full time the corner's date and zone come from: the view's start, or
/// the first event when the view starts before it (the padding of a fit can
/// cross midnight and would show the day before every event).
pub fn corner_time(model: &SwimlaneModel, d: TimeDisplay, view_start_s: f64) -> String {
    match display_offset(model, d) {
        Some(_) => format_at(model, d, view_start_s.max(0.0)),
        None => "relative".to_string(),
    }
}

/// The label of the tick at `s` when ticks are `step` seconds apart: as
/// precise as the step needs.
pub fn tick_label(model: &SwimlaneModel, d: TimeDisplay, s: f64, step: f64) -> String {
    match display_offset(model, d) {
        Some(off) => {
            // Saturating: a time near the end of the ns range (a lease ending
            // in 2262) must not overflow.
            let ns = model.t0_ns.saturating_add((s * 1e9).round() as i64);
            let full = format_time(ns, off); // YYYY-MM-DD HH:MM:SS.mmm +zz:zz
            let hms = full.get(11..23).unwrap_or(&full);
            if step >= 365.0 * 86400.0 {
                full.get(..4).unwrap_or(&full).to_string()
            } else if step >= 86400.0 {
                full.get(..10).unwrap_or(&full).to_string()
            } else if step >= 1.0 {
                hms.get(..8).unwrap_or(hms).to_string()
            } else if step >= 0.01 {
                // With the hour: "30:09.50" alone could be any hour's.
                hms.get(..11).unwrap_or(hms).to_string()
            } else if step >= 0.001 {
                hms.to_string()
            } else {
                // Minutes, seconds and microseconds: `11:56.831250` (it
                // read `56.831000µs`, as if microseconds).
                format!(
                    "{}{:03}",
                    hms.get(3..12).unwrap_or(hms),
                    ((s * 1e6).round() as i64).rem_euclid(1000)
                )
            }
        }
        None => {
            let ms = s * 1000.0;
            if step >= 1.0 {
                format!("{:.0} s", s)
            } else if step >= 0.001 {
                format!("{:.0} ms", ms)
            } else {
                format!("{:.3} ms", ms)
            }
        }
    }
}

/// Shortens `text` to `max_chars` by cutting its middle: holder tokens and
/// host names of one key often share a long prefix (`order-api-1:24346:…`)
/// and differ at the end, so both ends stay visible.
pub fn truncate(text: &str, max_chars: usize) -> String {
    let n = text.chars().count();
    if n <= max_chars {
        return text.to_string();
    }
    let keep = max_chars.saturating_sub(1);
    let head = keep / 2;
    let tail = keep - head;
    let mut t: String = text.chars().take(head).collect();
    t.push('…');
    t.extend(text.chars().skip(n - tail));
    t
}

/// `id` for a narrow table cell: a long unbroken id (a 32-hex-digit token,
/// a UUID) as its first 8 and last 6 characters around `…`; anything with a
/// space, or of at most 20 characters, as it is. The full id goes in the
/// cell's hover text.
pub fn short_id(id: &str) -> std::borrow::Cow<'_, str> {
    let n = id.chars().count();
    if n <= 20 || id.chars().any(char::is_whitespace) {
        return std::borrow::Cow::Borrowed(id);
    }
    let head: String = id.chars().take(8).collect();
    let tail: String = id.chars().skip(n - 6).collect();
    std::borrow::Cow::Owned(format!("{head}…{tail}"))
}

pub use crate::report::holders::common_affixes;

/// `text` in at most `max_chars`: itself when it fits; else the part that
/// tells it from its siblings (without the `prefix` and `suffix` chars
/// they all share, each replaced by `…`), cut in the middle if still too
/// long. A 32-digit id whose siblings all end in `0000001` shows its
/// differing digits, not the shared tail.
pub fn distinct_label(text: &str, prefix: usize, suffix: usize, max_chars: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= max_chars || prefix + suffix >= chars.len() {
        return truncate(text, max_chars);
    }
    let core: String = chars[prefix..chars.len() - suffix].iter().collect();
    let marks = usize::from(prefix > 0) + usize::from(suffix > 0);
    let mut out = String::new();
    if prefix > 0 {
        out.push('…');
    }
    out.push_str(&truncate(&core, max_chars.saturating_sub(marks).max(1)));
    if suffix > 0 {
        out.push('…');
    }
    out
}

/// The tooltip of `hit`, times shown as `display`.
pub fn hover_text(
    model: &SwimlaneModel,
    hit: &Hit<'_>,
    display: TimeDisplay,
    lang: Lang,
) -> String {
    let at = |s: f64| format_at(model, display, s);
    match hit {
        Hit::Lease(lane, b) => lease_text(lane, b, &at, lang),
        Hit::Sale(lane, s) => format!(
            "{} {}\n{}: {}\n{}: {}\n×{}  {}: {}",
            tr(lang, "order"),
            s.order_id,
            tr(lang, "holder"),
            lane.holder,
            tr(lang, "time"),
            at(s.at_s),
            s.quantity,
            tr(lang, "units_over"),
            s.oversold_units
        ),
        Hit::Overlap(o) => format!(
            "{} {}: {}\n{} ⇄ {}\n{} → {} ({})",
            tr(lang, "overlap"),
            o.incident
                .map_or_else(String::new, |i| format!("INC-{}", i.index() + 1)),
            term(lang, o.cause.as_str()),
            o.holders.0,
            o.holders.1,
            at(o.start_s),
            at(o.end_s),
            format_overlap_ms((o.end_s - o.start_s) * 1000.0)
        ),
        Hit::Finding(m) => format!(
            "{}: {}\n{}\n{}",
            tr(lang, "finding"),
            term(lang, m.kind.as_str()),
            at(m.at_s),
            crate::ui::i18n::finding_detail(lang, &m.detail)
        ),
        Hit::Infra(m) => infra_text(m, &at, lang),
    }
}

/// The tooltip of lease bar `b` in `lane`: holder, host, thread, times,
/// how the lock ended, hold against TTL, renewals and its warnings.
fn lease_text(lane: &Lane, b: &LeaseBar, at: &dyn Fn(f64) -> String, lang: Lang) -> String {
    let mut t = format!(
        "{}: {}\n{}: {}\n{}: {}\n{}: {}\n{}: {} ({})\n{}: {} ({})\n{}: {} / {}\n{}: {}",
        tr(lang, "holder"),
        lane.holder,
        tr(lang, "host"),
        lane.host,
        tr(lang, "thread"),
        lane.thread,
        tr(lang, "granted"),
        at(b.start_s),
        tr(lang, "lease_ended"),
        at(b.lock_end_s),
        term(lang, &snake_name(&b.lock_end)),
        tr(lang, "believed_until"),
        at(b.window_end_s),
        term(lang, &snake_name(&b.window_end)),
        tr(lang, "hold_vs_ttl"),
        format_ms(b.hold_ms),
        b.ttl_ms
            .map_or_else(|| "∞".to_string(), |t| format_ms(t as f64)),
        tr(lang, "renewals"),
        b.renewals.len(),
    );
    if let Some((z0, z1)) = b.zombie {
        t.push_str(&format!(
            "\n⚠ {}: {}",
            tr(lang, "zombie"),
            format_ms((z1 - z0) * 1000.0)
        ));
    }
    if b.near_miss {
        t.push_str(&format!("\n⚠ {}", tr(lang, "near_miss")));
    }
    if b.no_ttl {
        t.push_str(&format!("\n⚠ {}", tr(lang, "no_ttl")));
    }
    if b.inferred {
        t.push_str(&format!("\n({})", tr(lang, "inferred")));
    }
    t
}

/// The tooltip of a server event or runtime pause `m`.
fn infra_text(m: &InfraMark, at: &dyn Fn(f64) -> String, lang: Lang) -> String {
    let mut t = format!("{}  {}", words(lang, m.kind.as_str()), at(m.start_s));
    if m.end_s > m.start_s {
        t.push_str(&format!(
            " → {} ({})",
            at(m.end_s),
            format_ms(m.length_ms())
        ));
    }
    t.push('\n');
    t.push_str(&m.detail);
    if m.also > 0 {
        t.push_str(&format!("\n+{} {}", m.also, tr(lang, "infra_also")));
    }
    if m.cited {
        t.push_str(&format!("\n{}", tr(lang, "infra_cited")));
    }
    if m.guess {
        t.push_str(&format!("\n({})", tr(lang, "infra_guess")));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_at_the_end_of_the_ns_range_are_labelled_not_a_panic() {
        // The first event on 2025-11-29, a tick 236 years later (near a
        // lease ending in 2262): its label is the year; nothing overflows.
        let model = SwimlaneModel {
            t0_ns: 1_764_403_200_000_000_000,
            ..SwimlaneModel::default()
        };
        let years = 236.0 * 365.25 * 86400.0;
        let label = tick_label(&model, TimeDisplay::Utc, years, 50.0 * 365.25 * 86400.0);
        assert_eq!(label, "2261");
        let far = tick_label(&model, TimeDisplay::Utc, 1e12, 1.0);
        assert!(!far.is_empty());
        assert!(
            tick_label(&model, TimeDisplay::Utc, 86400.0 * 3.0, 86400.0).starts_with("2025-12-")
        );
    }

    #[test]
    fn long_ids_are_shortened_for_table_cells_and_short_names_kept() {
        assert_eq!(
            short_id("3c5e0f3af8b511ef9a1d0242ac120004"),
            "3c5e0f3a…120004"
        );
        assert_eq!(short_id("worker-a"), "worker-a");
        assert_eq!(
            short_id("a name with spaces that is long"),
            "a name with spaces that is long"
        );
        assert_eq!(
            short_id("价格价格价格价格价格价格价格价格价格价格价格"),
            "价格价格价格价格…价格价格价格"
        );
    }

    #[test]
    fn zoomed_in_tick_labels_keep_the_hour() {
        let model = SwimlaneModel {
            // 2026-11-29T08:30:00Z, shown at +08:00.
            t0_ns: 1_795_941_000_000_000_000,
            log_offset_s: 8 * 3600,
            ..SwimlaneModel::default()
        };
        let label = |s, step| tick_label(&model, TimeDisplay::LogZone, s, step);
        assert_eq!(label(9.5, 2.0), "16:30:09");
        assert_eq!(label(9.5, 0.5), "16:30:09.50");
        assert_eq!(label(9.25, 0.05), "16:30:09.25");
        assert_eq!(label(9.253, 0.002), "16:30:09.253");
        assert_eq!(label(9.253_25, 0.000_5), "30:09.253250");
        // The first event at 00:00:00.2 local; a fit's padding starts the
        // view on the day before, the corner still shows the events' day.
        let midnight = SwimlaneModel {
            t0_ns: 1_795_968_000_200_000_000,
            ..model
        };
        let corner = corner_time(&midnight, TimeDisplay::LogZone, -0.5);
        assert!(corner.starts_with("2026-11-30 00:00:00.200"), "{corner}");
    }

    #[test]
    fn lane_labels_keep_the_part_that_differs_between_siblings() {
        let ids = [
            "006819f3a2b1c0d9e8f7a6b5c0000001",
            "9bf66f01a2b3c4d5e6f7a8b9c0000001",
        ];
        let (p, s) = common_affixes(ids.iter().copied());
        assert_eq!((p, s), (0, 8), "both end in c0000001");
        assert_eq!(distinct_label(ids[0], p, s, 14), "006819…f7a6b5…");
        // Shared prefix and suffix both dropped.
        let hosts = ["order-api-7f9c-1:web", "order-api-7f9c-2:web"];
        let (p, s) = common_affixes(hosts.iter().copied());
        assert_eq!((p, s), (15, 4));
        assert_eq!(distinct_label(hosts[1], p, s, 10), "…2…");
        // A short name or a lone lane is left as it is.
        assert_eq!(distinct_label("worker-a", 7, 0, 14), "worker-a");
        assert_eq!(common_affixes(["only-one"].into_iter()), (0, 0));
    }

    #[test]
    fn long_names_are_truncated_in_the_middle() {
        assert_eq!(truncate("abcdef", 4), "a…ef");
        assert_eq!(truncate("abc", 4), "abc");
        // Two holders that differ only at the end stay distinct.
        let a = truncate("inventory-svc-7f9c:thread-12", 14);
        let b = truncate("inventory-svc-7f9c:thread-13", 14);
        assert_eq!(a, "invent…read-12");
        assert_ne!(a, b);
        assert_eq!(truncate("库存服务-节点甲-线程一", 6), "库存…线程一");
    }
}

//! The words and numbers on the timeline: times on the axis and in the
//! corner in the chosen zone, shortened lane names, and the tooltip text of
//! what lies under the pointer.

use serde::{Deserialize, Serialize};

use super::layout::Hit;
use super::model::SwimlaneModel;
use crate::report::{format_ms, format_time, snake_name};
use crate::ui::i18n::{Lang, term, tr};

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
            let ns = model.t0_ns + (s * 1e9).round() as i64;
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
            let ns = model.t0_ns + (s * 1e9).round() as i64;
            let full = format_time(ns, off); // YYYY-MM-DD HH:MM:SS.mmm +zz:zz
            let hms = full.get(11..23).unwrap_or(&full);
            if step >= 1.0 {
                hms.get(..8).unwrap_or(hms).to_string()
            } else if step >= 0.01 {
                // With the hour: "30:09.50" alone could be any hour's.
                hms.get(..11).unwrap_or(hms).to_string()
            } else {
                format!(
                    "{}{:03}µs",
                    hms.get(6..12).unwrap_or(hms),
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

/// The tooltip of `hit`, times shown as `display`.
pub fn hover_text(
    model: &SwimlaneModel,
    hit: &Hit<'_>,
    display: TimeDisplay,
    lang: Lang,
) -> String {
    let at = |s: f64| format_at(model, display, s);
    match hit {
        Hit::Lease(lane, b) => {
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
                .map_or_else(String::new, |i| format!("INC-{}", i + 1)),
            term(lang, o.cause.as_str()),
            o.holders.0,
            o.holders.1,
            at(o.start_s),
            at(o.end_s),
            format_ms((o.end_s - o.start_s) * 1000.0)
        ),
        Hit::Finding(m) => format!(
            "{}: {}\n{}\n{}",
            tr(lang, "finding"),
            term(lang, m.kind.as_str()),
            at(m.at_s),
            m.detail
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

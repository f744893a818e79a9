//! The terminal report: a summary line, one block per incident, findings,
//! stock per product and warnings.

use std::fmt::Write;

use super::{INFERRED_LEGEND, ReportInput, explain_incident, format_ms, inferred_suffix, units};

/// The plain-text report.
pub fn to_text(r: &ReportInput<'_>) -> String {
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym);
    let sm = &a.summary;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "lockreplay: {} events from {} file(s); {} holders on {} lock key(s)",
        sm.events,
        r.log.sources.len(),
        sm.holders,
        sm.keys
    );
    let _ = writeln!(
        out,
        "{} incident(s) · {} overlap pair(s) · {} oversold · {} lost · {} near-miss(es) · {} warning(s)",
        sm.incidents,
        sm.overlap_pairs,
        units(sm.oversold_units),
        r.money(sm.loss),
        sm.near_misses,
        sm.warnings
    );
    if r.shows_inferred() {
        let _ = writeln!(out, "{INFERRED_LEGEND}");
    }
    for inc in &a.incidents {
        let _ = writeln!(
            out,
            "\n{}  {}  {} -> {}  ({})  {}{}",
            inc.label(),
            s(inc.key),
            r.time(inc.start_ns),
            r.time(inc.end_ns),
            format_ms(inc.duration_ms()),
            inc.cause.as_str(),
            inferred_suffix(r.incident_inferred(inc))
        );
        let _ = writeln!(out, "  {}", explain_incident(r, inc));
        for &o in inc.overlaps.iter().take(20) {
            let o = &a.overlaps[o];
            let _ = writeln!(
                out,
                "  overlap {} / {}: {} from {} ({}){}",
                s(a.leases[o.earlier].holder),
                s(a.leases[o.later].holder),
                format_ms(o.duration_ms()),
                r.time(o.start_ns),
                o.cause.as_str(),
                inferred_suffix(r.overlap_inferred(o))
            );
        }
        if inc.overlaps.len() + inc.overlaps_unlisted > 20 {
            let _ = writeln!(
                out,
                "  ... {} more overlap pairs",
                inc.overlaps.len() + inc.overlaps_unlisted - 20
            );
        }
        if inc.oversold_units > 0 {
            let _ = writeln!(
                out,
                "  oversold {} · loss {}",
                units(inc.oversold_units),
                r.money(inc.loss)
            );
        }
    }
    if !a.findings.is_empty() {
        let _ = writeln!(out, "\nFindings");
        for f in &a.findings {
            let _ = writeln!(
                out,
                "  {:<18} {}  {}{}",
                f.kind.as_str(),
                r.time(f.at_ns),
                f.detail,
                inferred_suffix(r.finding_inferred(f))
            );
        }
    }
    if !a.products.is_empty() {
        let _ = writeln!(out, "\nStock");
        for p in &a.products {
            let _ = writeln!(
                out,
                "  {}: initial {} · sold {} · oversold {} · final {}{}",
                p.product.map_or("(unknown product)", s),
                p.initial_stock.map_or("?".to_string(), |v| v.to_string()),
                p.sold,
                p.oversold,
                p.final_stock.map_or("?".to_string(), |v| v.to_string()),
                if p.lost_updates > 0 {
                    format!(" · {} lost update(s)", p.lost_updates)
                } else {
                    String::new()
                }
            );
        }
    }
    if r.log.warnings.total() > 0 {
        let _ = writeln!(out, "\nWarnings");
        for w in r.log.warnings.kept().iter().take(50) {
            let _ = writeln!(out, "  {}:{}: {}", w.file, w.line, w.reason);
        }
        let more = r.log.warnings.total().saturating_sub(50);
        if more > 0 {
            let _ = writeln!(out, "  ... {more} more (see --format json)");
        }
    }
    for src in &r.log.sources {
        let _ = writeln!(
            out,
            "\n{}: {}, {}; {} lines = {} events + {} skipped + {} warned",
            src.name,
            super::snake_name(&src.dialect),
            src.encoding,
            src.lines_read,
            src.events_loaded,
            src.lines_skipped,
            src.lines_warned
        );
        if let Some(l) = &src.layout {
            let _ = writeln!(out, "  layout: {l}");
        }
        if let (Some((_, f)), Some(r)) = (
            src.fields.iter().find(|(role, _)| role == "time"),
            &src.time_resolution,
        ) {
            let _ = writeln!(out, "  time: {f} ({r})");
        }
        if let Some(p) = &src.payload_field {
            let _ = writeln!(out, "  application record inside field: {p}");
        }
        for note in &src.notes {
            let _ = writeln!(out, "  note: {note}");
        }
        if let Some(u) = &src.unreadable {
            let _ = writeln!(out, "  ERROR: {u}");
        }
    }
    out
}

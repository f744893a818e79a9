//! The Markdown report for the incident write-up: a summary table, one
//! section per incident (explanation, holds, orders, loss), findings and
//! stock. Images are referenced when the caller rendered them.

use std::fmt::Write;

use super::{
    INFERRED_LEGEND, ReportInput, explain_incident, format_ms, inferred_suffix, snake_name, units,
};
use crate::analysis::Lease;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The Markdown report. `image_for(incident_id)` names the picture file of an
/// incident (relative to the report) when one was rendered.
pub fn to_markdown(r: &ReportInput<'_>, image_for: &dyn Fn(usize) -> Option<String>) -> String {
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym);
    let sm = &a.summary;
    let mut out = String::new();
    let _ = writeln!(out, "# Lock incident report\n");
    let files: Vec<&str> = r.log.sources.iter().map(|x| x.name.as_str()).collect();
    let _ = writeln!(out, "Source: {}\n", files.join(", "));
    let _ = writeln!(
        out,
        "| Incidents | Overlap pairs | Oversold | Loss | Near-misses | Warnings | Events | Keys | Holders |"
    );
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        sm.incidents,
        sm.overlap_pairs,
        sm.oversold_units,
        r.money(sm.loss),
        sm.near_misses,
        sm.warnings,
        sm.events,
        sm.keys,
        sm.holders
    );
    let _ = writeln!(
        out,
        "**{} oversold, {} lost** (unit loss {} per oversold unit).\n",
        units(sm.oversold_units),
        r.money(sm.loss),
        r.money(r.settings.unit_loss)
    );
    if r.shows_inferred() {
        let _ = writeln!(out, "_{INFERRED_LEGEND}_\n");
    }
    if !a.incidents.is_empty() {
        let _ = writeln!(
            out,
            "| Incident | Start | Key | Holders | Duration | Cause | Oversold | Loss |"
        );
        let _ = writeln!(out, "|---|---|---|---:|---:|---|---:|---:|");
        for inc in &a.incidents {
            let _ = writeln!(
                out,
                "| {} | {} | `{}` | {} | {} | {}{} | {} | {} |",
                inc.label(),
                r.time(inc.start_ns),
                cell(s(inc.key)),
                inc.leases.len(),
                format_ms(inc.duration_ms()),
                inc.cause.as_str(),
                inferred_suffix(r.incident_inferred(inc)),
                inc.oversold_units,
                r.money(inc.loss)
            );
        }
        out.push('\n');
    }
    for inc in &a.incidents {
        let _ = writeln!(out, "## {} on `{}`\n", inc.label(), cell(s(inc.key)));
        let _ = writeln!(out, "{}\n", explain_incident(r, inc));
        if let Some(img) = image_for(inc.id) {
            let _ = writeln!(out, "![{} timeline]({})\n", inc.label(), img);
        }
        let _ = writeln!(
            out,
            "| Holder | Host | Granted | TTL | Renewals | Lease ended | Believed until | Hold vs TTL |"
        );
        let _ = writeln!(out, "|---|---|---|---:|---:|---|---|---:|");
        for &l in &inc.leases {
            let l: &Lease = &a.leases[l];
            let mark = inferred_suffix(l.inferred);
            let ratio = l.ttl_ms.filter(|&t| t > 0).map_or("-".to_string(), |t| {
                format!("{:.0} %", 100.0 * l.hold_ms() / t as f64)
            });
            let _ = writeln!(
                out,
                "| `{}`{} | {} | {} | {} | {} | {} ({}) | {} ({}) | {} |",
                cell(s(l.holder)),
                mark,
                cell(l.host.map_or("", s)),
                r.time(l.acquired_ns),
                l.ttl_ms.map_or("none".to_string(), |t| format!("{t} ms")),
                l.renewals_ns.len(),
                r.time(l.lock_end_ns),
                snake_name(&l.lock_end),
                r.time(l.window_end_ns),
                snake_name(&l.window_end),
                ratio
            );
        }
        out.push('\n');
        if !inc.sales.is_empty() {
            let _ = writeln!(out, "| Order | Holder | At | Units | Oversold |");
            let _ = writeln!(out, "|---|---|---|---:|---:|");
            for &i in &inc.sales {
                let x = &a.sales[i];
                let _ = writeln!(
                    out,
                    "| {}{} | `{}` | {} | {} | {} |",
                    cell(x.order_id.map_or("(deduction)", s)),
                    inferred_suffix(r.sale_inferred(x)),
                    cell(x.holder.map_or("", s)),
                    r.time(x.at_ns),
                    x.quantity,
                    x.oversold_units
                );
            }
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "Oversold: **{}** · loss: **{}**\n",
            units(inc.oversold_units),
            r.money(inc.loss)
        );
    }
    if !a.findings.is_empty() {
        let _ = writeln!(out, "## Findings\n");
        let _ = writeln!(out, "| Kind | At | Key | Detail |");
        let _ = writeln!(out, "|---|---|---|---|");
        for f in &a.findings {
            let _ = writeln!(
                out,
                "| {}{} | {} | `{}` | {} |",
                f.kind.as_str(),
                inferred_suffix(r.finding_inferred(f)),
                r.time(f.at_ns),
                cell(f.key.map_or("", s)),
                cell(&f.detail)
            );
        }
        out.push('\n');
    }
    if !a.products.is_empty() {
        let _ = writeln!(out, "## Stock\n");
        let _ = writeln!(
            out,
            "| Product | Initial | Sold | Oversold | Final | Lost updates |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
        for p in &a.products {
            let opt = |v: Option<i64>| v.map_or("?".to_string(), |v| v.to_string());
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} |",
                cell(p.product.map_or("(unknown)", s)),
                opt(p.initial_stock),
                p.sold,
                p.oversold,
                opt(p.final_stock),
                p.lost_updates
            );
        }
        out.push('\n');
    }
    if r.log.warnings.total() > 0 {
        let _ = writeln!(out, "## Warnings ({})\n", r.log.warnings.total());
        for w in r.log.warnings.kept().iter().take(100) {
            let _ = writeln!(out, "- `{}:{}`: {}", cell(&w.file), w.line, cell(&w.reason));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "## What was read\n");
    let _ = writeln!(
        out,
        "| file | read as | layout | application record in | time field | events | lock events |\n|---|---|---|---|---|---:|---:|"
    );
    for src in &r.log.sources {
        let time = src
            .fields
            .iter()
            .find(|(role, _)| role == "time")
            .map(|(_, f)| {
                format!(
                    "`{}`{}",
                    cell(f),
                    src.time_resolution
                        .as_ref()
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default()
                )
            })
            .unwrap_or_else(|| "none".into());
        let _ = writeln!(
            out,
            "| `{}` | {} ({}) | {} | {} | {} | {} | {} |",
            cell(&src.name),
            super::snake_name(&src.dialect),
            src.encoding,
            src.layout
                .as_deref()
                .map(cell)
                .unwrap_or_else(|| "-".into()),
            src.payload_field
                .as_deref()
                .map(|p| format!("`{}`", cell(p)))
                .unwrap_or_else(|| "-".into()),
            time,
            src.events_loaded,
            src.lock_events
        );
    }
    for src in &r.log.sources {
        if let Some(u) = &src.unreadable {
            let _ = writeln!(
                out,
                "\n**Not readable: `{}`**: {}",
                cell(&src.name),
                cell(u)
            );
        }
        for note in &src.notes {
            let _ = writeln!(out, "\n- `{}`: {}", cell(&src.name), cell(note));
        }
    }
    out
}

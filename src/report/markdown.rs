//! The Markdown report for the incident write-up: a summary table, one
//! section per incident (explanation, holds, orders, loss), findings and
//! stock. Pictures are linked when the caller drew them ([`MarkdownImages`]).

use std::fmt::Write;

use super::escape::markdown_text as md_text;
use super::escape::markdown_with_code as md_ours;
use super::{
    INFERRED_LEGEND, ReportInput, explain_incident, format_ms, inferred_suffix, snake_name, units,
};
use crate::analysis::{Incident, Lease};

fn cell(s: &str) -> String {
    super::escape::markdown_code(s)
}

/// The pictures a Markdown report links to, as paths relative to the report;
/// none by default.
#[derive(Clone, Debug, Default)]
pub struct MarkdownImages {
    /// The overview timeline, shown under the title.
    pub timeline: Option<String>,
    /// The picture of each incident, by incident id.
    pub incidents: Vec<Option<String>>,
}

/// The Markdown report, linking the pictures in `images`.
pub fn to_markdown(r: &ReportInput<'_>, images: &MarkdownImages) -> String {
    let mut out = String::new();
    summary(&mut out, r, images.timeline.as_deref());
    incident_table(&mut out, r);
    for inc in &r.analysis.incidents {
        let image = images.incidents.get(inc.id).cloned().flatten();
        incident_section(&mut out, r, inc, image.as_deref());
    }
    findings(&mut out, r);
    stock(&mut out, r);
    warnings(&mut out, r);
    sources(&mut out, r);
    out
}

/// The title, the overview picture, the files and the summary table.
fn summary(out: &mut String, r: &ReportInput<'_>, timeline: Option<&str>) {
    let sm = &r.analysis.summary;
    let _ = writeln!(out, "# Lock incident report\n");
    if let Some(img) = timeline {
        let _ = writeln!(out, "![Timeline]({img})\n");
    }
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
}

/// One row per incident.
fn incident_table(out: &mut String, r: &ReportInput<'_>) {
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym);
    if a.incidents.is_empty() {
        return;
    }
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

/// An incident's section: its explanation, picture, holds, orders and loss.
fn incident_section(out: &mut String, r: &ReportInput<'_>, inc: &Incident, image: Option<&str>) {
    let s = |sym| r.log.strings.get(sym);
    let _ = writeln!(out, "## {} on `{}`\n", inc.label(), cell(s(inc.key)));
    let _ = writeln!(out, "{}\n", md_text(&explain_incident(r, inc)));
    if let Some(img) = image {
        let _ = writeln!(out, "![{} timeline]({})\n", inc.label(), img);
    }
    holds_table(out, r, inc);
    if !inc.sales.is_empty() {
        orders_table(out, r, inc);
    }
    let _ = writeln!(
        out,
        "Oversold: **{}** · loss: **{}**\n",
        units(inc.oversold_units),
        r.money(inc.loss)
    );
}

/// The holds of an incident: grant, TTL, renewals, how the lease and the
/// believed window ended.
fn holds_table(out: &mut String, r: &ReportInput<'_>, inc: &Incident) {
    let s = |sym| r.log.strings.get(sym);
    let _ = writeln!(
        out,
        "| Holder | Host | Granted | TTL | Renewals | Lease ended | Believed until | Hold vs TTL |"
    );
    let _ = writeln!(out, "|---|---|---|---:|---:|---|---|---:|");
    for &l in &inc.leases {
        let l: &Lease = &r.analysis.leases[l];
        let mark = inferred_suffix(l.inferred);
        let ratio = l.ttl_ms.filter(|&t| t > 0).map_or("-".to_string(), |t| {
            format!("{:.0} %", 100.0 * l.hold_ms() / t as f64)
        });
        let _ = writeln!(
            out,
            "| `{}`{} | {} | {} | {} | {} | {} ({}) | {} ({}) | {} |",
            cell(s(l.holder)),
            mark,
            md_text(l.host.map_or("", s)),
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
}

/// The orders (or deductions) tied to an incident.
fn orders_table(out: &mut String, r: &ReportInput<'_>, inc: &Incident) {
    let s = |sym| r.log.strings.get(sym);
    let _ = writeln!(out, "| Order | Holder | At | Units | Oversold |");
    let _ = writeln!(out, "|---|---|---|---:|---:|");
    for &i in &inc.sales {
        let x = &r.analysis.sales[i];
        let _ = writeln!(
            out,
            "| {}{} | `{}` | {} | {} | {} |",
            md_text(x.order_id.map_or("(deduction)", s)),
            inferred_suffix(r.sale_inferred(x)),
            cell(x.holder.map_or("", s)),
            r.time(x.at_ns),
            x.quantity,
            x.oversold_units
        );
    }
    out.push('\n');
}

/// The findings, when there are any.
fn findings(out: &mut String, r: &ReportInput<'_>) {
    let s = |sym| r.log.strings.get(sym);
    if r.analysis.findings.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Findings\n");
    let _ = writeln!(out, "| Kind | At | Key | Detail |");
    let _ = writeln!(out, "|---|---|---|---|");
    for f in &r.analysis.findings {
        let _ = writeln!(
            out,
            "| {}{} | {} | `{}` | {} |",
            f.kind.as_str(),
            inferred_suffix(r.finding_inferred(f)),
            r.time(f.at_ns),
            cell(f.key.map_or("", s)),
            md_text(&f.detail)
        );
    }
    out.push('\n');
}

/// Stock accounting per product, when the log has any.
fn stock(out: &mut String, r: &ReportInput<'_>) {
    let s = |sym| r.log.strings.get(sym);
    if r.analysis.products.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Stock\n");
    let _ = writeln!(
        out,
        "| Product | Initial | Sold | Oversold | Final | Lost updates |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    for p in &r.analysis.products {
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

/// The first 100 load warnings, when there are any.
fn warnings(out: &mut String, r: &ReportInput<'_>) {
    if r.log.warnings.total() == 0 {
        return;
    }
    let _ = writeln!(out, "## Warnings ({})\n", r.log.warnings.total());
    for w in r.log.warnings.kept().iter().take(100) {
        let _ = writeln!(
            out,
            "- `{}:{}`: {}",
            cell(&w.file),
            w.line,
            md_ours(&w.reason)
        );
    }
    out.push('\n');
}

/// What was read from each file, then its unreadable reason and notes.
fn sources(out: &mut String, r: &ReportInput<'_>) {
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
            snake_name(&src.dialect),
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
                md_ours(u)
            );
        }
        for note in &src.notes {
            let _ = writeln!(out, "\n- `{}`: {}", cell(&src.name), md_ours(note));
        }
    }
}

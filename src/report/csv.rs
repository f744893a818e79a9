//! The CSV files of the report folder (`incidents.csv`, `findings.csv`):
//! the incidents and findings of the JSON report as rows for a spreadsheet.
//! Cells of log text are neutralised against formulas ([`csv_cell`]).

use super::ReportInput;
use super::escape::csv_cell;

/// `incidents.csv`: one row per incident (id, key, start and end in RFC
/// 3339, duration, holders space-separated, cause, overlap pairs, orders,
/// oversold units, loss, currency, inferred).
///
/// # Errors
/// When the CSV writer fails.
pub fn incidents_csv(r: &ReportInput<'_>) -> anyhow::Result<Vec<u8>> {
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym);
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record([
        "id",
        "key",
        "start",
        "end",
        "duration_ms",
        "holders",
        "cause",
        "overlap_pairs",
        "orders",
        "oversold_units",
        "loss",
        "currency",
        "inferred",
    ])?;
    for inc in &a.incidents {
        let holders: Vec<&str> = inc.leases.iter().map(|&l| s(a.leases[l].holder)).collect();
        w.write_record([
            inc.label(),
            csv_cell(s(inc.key)).into_owned(),
            r.rfc3339(inc.start_ns),
            r.rfc3339(inc.end_ns),
            format!("{:.3}", inc.duration_ms()),
            csv_cell(&holders.join(" ")).into_owned(),
            inc.cause.as_str().to_string(),
            (inc.overlaps.len() + inc.overlaps_unlisted).to_string(),
            inc.sales.len().to_string(),
            inc.oversold_units.to_string(),
            inc.loss.csv(),
            r.settings.currency.clone(),
            r.incident_inferred(inc).to_string(),
        ])?;
    }
    Ok(w.into_inner()?)
}

/// `findings.csv`: one row per finding (kind, key, holder, time, detail,
/// inferred).
///
/// # Errors
/// When the CSV writer fails.
pub fn findings_csv(r: &ReportInput<'_>) -> anyhow::Result<Vec<u8>> {
    let s = |sym| r.log.strings.get(sym).to_string();
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(["kind", "key", "holder", "at", "detail", "inferred"])?;
    for f in &r.analysis.findings {
        w.write_record([
            f.kind.as_str().to_string(),
            csv_cell(&f.key.map(s).unwrap_or_default()).into_owned(),
            csv_cell(&f.holder.map(s).unwrap_or_default()).into_owned(),
            r.rfc3339(f.at_ns),
            csv_cell(&crate::model::Message::en(&f.detail)).into_owned(),
            r.finding_inferred(f).to_string(),
        ])?;
    }
    Ok(w.into_inner()?)
}

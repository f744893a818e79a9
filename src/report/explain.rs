//! One paragraph per incident, in the spirit of Jepsen's Elle anomaly
//! explanations: who held the lock, when and why their lease ended, who
//! acquired it next, what both sold, and what it cost.

use super::{ReportInput, format_ms, units};
use crate::analysis::{Cause, Incident, Lease, WindowEnd};

fn window_end_words(l: &Lease) -> &'static str {
    match l.window_end {
        WindowEnd::Released => "when it released",
        WindowEnd::ReleaseFailed => "when its release failed",
        WindowEnd::LockLost => "when it noticed the lock was lost",
        WindowEnd::LastEvent => "its last logged step",
        WindowEnd::Reacquired => "when it acquired again",
    }
}

/// Explains `incident` in plain words: who held the lock first and how its
/// lease ended, who acquired it next and for how long both believed they
/// held it, then what was sold and what it cost.
pub fn explain_incident(r: &ReportInput<'_>, incident: &Incident) -> String {
    let a = r.analysis;
    let Some(first) = incident
        .overlaps
        .first()
        .and_then(|&o| a.overlaps.get(o.index()))
    else {
        return String::new();
    };
    let earlier = &a.leases[first.earlier];
    let later = &a.leases[first.later];
    let mut out = String::new();
    first_hold(&mut out, r, incident, earlier);
    lease_end(&mut out, r, first.cause, earlier);
    next_hold(&mut out, r, incident, later);
    sales(&mut out, r, incident);
    out
}

/// "Holder X on H acquired K at T with a N TTL and renewed it N times."
fn first_hold(out: &mut String, r: &ReportInput<'_>, incident: &Incident, earlier: &Lease) {
    let s = |sym| r.log.strings.get(sym);
    let host = earlier
        .host
        .map(|h| format!(" on {}", s(h)))
        .unwrap_or_default();
    let ttl = earlier.ttl_ms.get().map_or_else(
        || "no TTL".to_string(),
        |t| format!("a {} TTL", format_ms(t as f64)),
    );
    out.push_str(&format!(
        "Holder {}{} acquired {} at {} with {}",
        s(earlier.holder),
        host,
        s(incident.key),
        r.time(earlier.acquired_ns),
        ttl
    ));
    if !earlier.renewals_ns().is_empty() {
        out.push_str(&format!(
            " and renewed it {} times",
            earlier.renewals_ns().len()
        ));
    }
    out.push_str(". ");
}

/// How the earlier holder's lock ended (the overlap's cause), and until when
/// it still believed it held the lock.
fn lease_end(out: &mut String, r: &ReportInput<'_>, cause: Cause, earlier: &Lease) {
    let s = |sym| r.log.strings.get(sym);
    match cause {
        Cause::LeaseExpired => out.push_str(&format!(
            "Its lease expired at {} while it was still working: it believed it held the lock until {} ({}).",
            r.time(earlier.lock_end_ns),
            r.time(earlier.window_end_ns),
            window_end_words(earlier)
        )),
        Cause::ForeignRelease => {
            let by = earlier
                .ended_by
                .and_then(|b| r.analysis.leases.get(b.index()))
                .map_or("another holder".to_string(), |b| s(b.holder).to_string());
            out.push_str(&format!(
                "At {} {}, whose own lock had already ended, deleted this lock; {} still believed it held the lock until {} ({}).",
                r.time(earlier.lock_end_ns),
                by,
                s(earlier.holder),
                r.time(earlier.window_end_ns),
                window_end_words(earlier)
            ));
        }
        Cause::TtlUnknown => out.push_str(&format!(
            "By {} its lock was gone: the next holder acquired and nobody had deleted it. The log gives no TTL, so whether the lease expired or the lock vanished cannot be told; it believed it held the lock until {} ({}).",
            r.time(earlier.lock_end_ns),
            r.time(earlier.window_end_ns),
            window_end_words(earlier)
        )),
        Cause::LockVanished => out.push_str(&format!(
            "At {} its lock vanished from the server while the lease was still valid (failover, flush or eviction); it believed it held the lock until {} ({}).",
            r.time(earlier.lock_end_ns),
            r.time(earlier.window_end_ns),
            window_end_words(earlier)
        )),
    }
}

/// Who acquired next (and how many more), and how long the holders believed
/// they held the key at once.
fn next_hold(out: &mut String, r: &ReportInput<'_>, incident: &Incident, later: &Lease) {
    let s = |sym| r.log.strings.get(sym);
    let others = incident.leases.len().saturating_sub(2);
    out.push_str(&format!(
        " {} acquired the lock at {}",
        s(later.holder),
        r.time(later.acquired_ns)
    ));
    if others > 0 {
        out.push_str(&format!(
            ", and {others} more {} acquired it before the incident ended",
            if others == 1 { "holder" } else { "holders" }
        ));
    }
    let pairs = incident.overlaps.len() + incident.overlaps_unlisted;
    let pairs = if pairs == 1 {
        "1 overlap pair".to_string()
    } else {
        format!("{pairs} overlap pairs")
    };
    let who = match incident.leases.len() {
        2 => "both holders".to_string(),
        n => format!("two or more of these {n} holders"),
    };
    out.push_str(&format!(
        ". For {} in all, {who} believed they held {} at once ({pairs}).",
        format_ms(incident.duration_ms()),
        s(incident.key),
    ));
}

/// What the incident's holders sold inside its window, the later sales tied
/// to it, and the oversold units and their cost.
fn sales(out: &mut String, r: &ReportInput<'_>, incident: &Incident) {
    let a = r.analysis;
    let s = |sym| r.log.strings.get(sym);
    let sales: Vec<_> = incident
        .sales
        .iter()
        .filter_map(|&i| a.sales.get(i.index()))
        .collect();
    // The incident's sales are those inside its window, and later ones tied
    // to it (`attribute_oversell`): a holder of the incident still believing
    // it held the lock, or an oversold sale using stock the overlap sold.
    let (inside, later): (Vec<_>, Vec<_>) = sales
        .iter()
        .partition(|x| (incident.start_ns..=incident.end_ns).contains(&x.at_ns));
    let list = |sales: &[&&crate::analysis::Sale]| {
        let ids: Vec<String> = sales
            .iter()
            .take(6)
            .map(|x| {
                let who = x
                    .holder
                    .map(|h| format!(" by {}", s(h)))
                    .unwrap_or_default();
                match x.order_id {
                    Some(o) => format!("{}{}", s(o), who),
                    None => format!("a deduction{who}"),
                }
            })
            .collect();
        let more = if sales.len() > 6 {
            format!(" and {} more", sales.len() - 6)
        } else {
            String::new()
        };
        format!("{}{more}", ids.join(", "))
    };
    let sold = |sales: &[&&crate::analysis::Sale]| units(sales.iter().map(|x| x.quantity).sum());
    let count = |n: usize| {
        if n == 1 {
            "1 sale".to_string()
        } else {
            format!("{n} sales")
        }
    };
    if inside.is_empty() {
        out.push_str(" No stock was sold inside the window.");
    } else {
        out.push_str(&format!(
            " Inside the window they sold {} in {} ({}).",
            sold(&inside),
            count(inside.len()),
            list(&inside)
        ));
    }
    if !later.is_empty() {
        out.push_str(&format!(
            " {} outside the window ({}: {}) {} tied to it: made by one of its holders while it still believed it held the lock, or using stock the overlap had already sold.",
            count(later.len()),
            sold(&later),
            list(&later),
            if later.len() == 1 { "is" } else { "are" },
        ));
    }
    if incident.oversold_units > 0 {
        out.push_str(&format!(
            " {} went beyond the stock, costing {}.",
            units(incident.oversold_units),
            r.loss(incident.loss, false)
        ));
    } else if !sales.is_empty() {
        out.push_str(" None of it was beyond the stock.");
    }
}

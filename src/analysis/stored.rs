//! The stored form of an [`Analysis`] for the result cache
//! (`pipeline::results`): encoded with `bitcode`, and on the way back
//! checked against the log it is read with before anything is trusted
//! (the bytes come from a file any process could have written): every id
//! names an item, every symbol a string of the log, every event id an
//! event, every hold's lines lie inside the shared list.

use super::{Analysis, Lease, LeaseId};
use crate::model::{LoadedLog, Sym};

/// Encodes `analysis` for the cache. Infallible: every analysis encodes.
pub fn encode(analysis: &Analysis) -> Vec<u8> {
    bitcode::encode(analysis)
}

/// Decodes what [`encode`] wrote and checks it against `log`, the log it
/// was computed from (found by the same key).
///
/// # Errors
/// What is wrong, in a few words ("an id out of range"), for the note that
/// says why the entry was ignored.
pub fn decode(bytes: &[u8], log: &LoadedLog) -> Result<Analysis, String> {
    let analysis = decode_unchecked(bytes)?;
    check_against(&analysis, log)?;
    Ok(analysis)
}

/// [`decode`] without the check against the log: an analysis read before
/// its log is, to be checked by [`check_against`] before it is used.
///
/// # Errors
/// As [`decode`], for bytes that do not decode.
pub fn decode_unchecked(bytes: &[u8]) -> Result<Analysis, String> {
    bitcode::decode(bytes).map_err(|e| format!("an analysis that does not decode ({e})"))
}

/// Whether `i` is below `n`.
fn below(i: usize, n: usize) -> Result<(), String> {
    if i < n {
        Ok(())
    } else {
        Err("an id out of range".into())
    }
}

/// The checks of [`decode`], for an analysis decoded before its log was
/// read ([`decode_unchecked`]): every id names an item, every symbol a
/// string of `log`, every event id an event.
///
/// # Errors
/// As [`decode`].
pub fn check_against(a: &Analysis, log: &LoadedLog) -> Result<(), String> {
    let n_strings = log.strings.len();
    let sym = |s: Sym| below(s.index(), n_strings).map_err(|_| "a symbol out of range".to_string());
    let opt_sym = |s: Option<Sym>| s.map_or(Ok(()), sym);
    let events = log.events.len();
    if !a.times_ns.is_empty() && a.times_ns.len() != events {
        return Err("event times for another log".into());
    }
    if a.summary.events != events {
        return Err("a summary of another log".into());
    }
    for id in &a.lease_lines {
        below(id.index(), events)?;
    }
    check_leases(&a.leases, a.lease_lines.len(), &sym)?;
    check_leases(&a.server_view, a.lease_lines.len(), &sym)?;
    let lease = |id: LeaseId| below(id.index(), a.leases.len());
    for o in &a.overlaps {
        sym(o.key)?;
        lease(o.earlier)?;
        lease(o.later)?;
    }
    for x in &a.artefacts {
        lease(x.earlier)?;
        lease(x.later)?;
    }
    for (i, inc) in a.incidents.iter().enumerate() {
        if inc.id.index() != i {
            return Err("an incident out of place".into());
        }
        sym(inc.key)?;
        inc.leases.iter().try_for_each(|&l| lease(l))?;
        for o in &inc.overlaps {
            below(o.index(), a.overlaps.len())?;
        }
        for s in &inc.sales {
            below(s.index(), a.sales.len())?;
        }
    }
    for f in &a.findings {
        opt_sym(f.key)?;
        opt_sym(f.holder)?;
        f.lease.map_or(Ok(()), lease)?;
    }
    for s in &a.sales {
        below(s.event.index(), events)?;
        [s.product, s.key, s.holder, s.order_id]
            .into_iter()
            .try_for_each(opt_sym)?;
        s.incident
            .map_or(Ok(()), |i| below(i.index(), a.incidents.len()))?;
    }
    a.products.iter().try_for_each(|p| opt_sym(p.product))?;
    for c in &a.citations {
        below(c.incident.index(), a.incidents.len())?;
        lease(c.lease)?;
        below(c.evidence, log.evidence.len())?;
    }
    Ok(())
}

/// Each hold of `leases` is in its place, names strings of the log, ends
/// by a hold of the same list and has its lines inside a list of `lines`.
fn check_leases(
    leases: &[Lease],
    lines: usize,
    sym: &impl Fn(Sym) -> Result<(), String>,
) -> Result<(), String> {
    for (i, l) in leases.iter().enumerate() {
        if l.id.index() != i {
            return Err("a hold out of place".into());
        }
        sym(l.key)?;
        sym(l.holder)?;
        l.host.map_or(Ok(()), sym)?;
        l.thread.map_or(Ok(()), sym)?;
        l.ended_by
            .map_or(Ok(()), |e| below(e.index(), leases.len()))?;
        let end = l.lines.start as usize + l.lines.len as usize;
        if end > lines {
            return Err("a hold's lines out of range".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Settings, analyze};

    /// A log with two holders overlapping on one key and a sale in the
    /// overlap.
    fn log() -> LoadedLog {
        let text = "\
{\"ts\":\"2026-01-01T00:00:00Z\",\"event\":\"lock_acquired\",\"key\":\"lock:sku1\",\"holder\":\"A\",\"ttl_ms\":1000}
{\"ts\":\"2026-01-01T00:00:01.5Z\",\"event\":\"lock_acquired\",\"key\":\"lock:sku1\",\"holder\":\"B\",\"ttl_ms\":1000}
{\"ts\":\"2026-01-01T00:00:01.7Z\",\"event\":\"stock_deducted\",\"key\":\"lock:sku1\",\"holder\":\"A\",\"product\":\"sku1\",\"quantity\":1,\"stock_before\":0,\"stock_after\":-1}
{\"ts\":\"2026-01-01T00:00:02Z\",\"event\":\"lock_released\",\"key\":\"lock:sku1\",\"holder\":\"A\"}
{\"ts\":\"2026-01-01T00:00:02.2Z\",\"event\":\"lock_released\",\"key\":\"lock:sku1\",\"holder\":\"B\"}
";
        let mut b = crate::model::LogBuilder::new();
        crate::ingest::read_source(
            "a.jsonl",
            text.as_bytes(),
            &crate::ingest::IngestOptions::default(),
            &mut b,
            &crate::ingest::Progress::default(),
        )
        .expect("reads");
        crate::ingest::settle(b.finish())
    }

    #[test]
    fn an_analysis_comes_back_as_it_was() {
        let log = log();
        let settings = Settings {
            unit_loss: Some(30.0),
            ..Settings::default()
        };
        let a = analyze(&log, &settings);
        assert!(!a.incidents.is_empty() && !a.leases.is_empty());
        let back = decode(&encode(&a), &log).expect("sound");
        assert_eq!(back, a);
        assert_eq!(back.lease_lines, a.lease_lines);
        assert_eq!(back.times_ns, a.times_ns);
    }

    #[test]
    fn ids_and_symbols_out_of_range_are_refused() {
        let log = log();
        let a = analyze(&log, &Settings::default());
        let refused = |f: &dyn Fn(&mut Analysis)| {
            let mut bad = a.clone();
            f(&mut bad);
            decode(&encode(&bad), &log).expect_err("refused")
        };
        let far = LeaseId::new(1000);
        assert!(refused(&|b| b.leases[0].ended_by = Some(far)).contains("out of range"));
        assert!(refused(&|b| b.leases[0].lines.len = 1000).contains("out of range"));
        assert!(refused(&|b| b.leases[0].id = far).contains("out of place"));
        assert!(refused(&|b| b.incidents[0].leases.push(far)).contains("out of range"));
        assert!(refused(&|b| b.overlaps[0].later = far).contains("out of range"));
        let other = {
            let mut big = crate::model::LogBuilder::new();
            (0..100).map(|i| big.intern(&format!("s{i}"))).last()
        }
        .expect("a symbol");
        assert!(refused(&|b| b.leases[0].key = other).contains("symbol out of range"));
        assert!(
            refused(&|b| b.lease_lines[0] = crate::analysis::EventId::new(99))
                .contains("out of range")
        );
        assert!(refused(&|b| b.summary.events = 99).contains("another log"));
        assert!(decode(b"\x01\x02", &log).is_err());
    }
}

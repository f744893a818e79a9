//! The stored form of a [`LoadedLog`] for the load cache
//! (`ingest::cache`): encoded with `bitcode`, and on the way back decoded
//! and then checked before anything is trusted, since the bytes come from a
//! file any process could have written.

use std::num::NonZeroU32;

use bitcode::{Decode, Encode};
use rayon::prelude::*;

use super::{
    D_MESSAGE, D_ORDER_ID, D_PRODUCT, D_TTL_WIDE, Event, EventKind, Evidence, Interner, LoadedLog,
    Packed, SourceInfo, SourceRef, Sym, WIDE_TTL, Warning, WarningKind, Warnings, get_zigzag,
    unpack_detail,
};

/// One event as stored: symbols as their number (0 for none), the packed
/// detail's bytes in [`StoredLog::details`].
#[derive(Encode, Decode)]
struct StoredEvent {
    at_ns: i64,
    kind: EventKind,
    key: u32,
    holder: u32,
    host: u32,
    thread: u32,
    ttl: i32,
    inferred: bool,
    source: SourceRef,
    detail_mask: u16,
    detail_len: u32,
}

/// [`Warnings`] as stored: the counts per kind in the kinds' order.
#[derive(Encode, Decode)]
struct StoredWarnings {
    kept: Vec<Warning>,
    per_kind: Vec<(WarningKind, u64)>,
    total: u64,
}

/// A [`LoadedLog`] as stored.
#[derive(Encode, Decode)]
struct StoredLog {
    events: Vec<StoredEvent>,
    /// Every event's packed detail, one after the other.
    details: Vec<u8>,
    /// The interner's text and the end of each string in it.
    text: String,
    ends: Vec<u64>,
    sources: Vec<SourceInfo>,
    warnings: StoredWarnings,
    display_offset_s: i32,
    evidence: Vec<Evidence>,
}

fn sym_number(s: Option<Sym>) -> u32 {
    s.map_or(0, |s| s.0.get())
}

fn sym_of(n: u32) -> Option<Sym> {
    NonZeroU32::new(n).map(Sym)
}

/// Encodes `log` for the cache. Infallible: every value of a log encodes.
pub fn encode(log: &LoadedLog) -> Vec<u8> {
    let mut details = Vec::new();
    let events = log
        .events
        .iter()
        .map(|e| {
            let d = e.detail.as_slice();
            details.extend_from_slice(d);
            StoredEvent {
                at_ns: e.at_ns,
                kind: e.kind,
                key: sym_number(e.key),
                holder: sym_number(e.holder),
                host: sym_number(e.host),
                thread: sym_number(e.thread),
                ttl: e.ttl,
                inferred: e.inferred,
                source: e.source,
                detail_mask: e.detail_mask,
                detail_len: d.len() as u32,
            }
        })
        .collect();
    let w = &log.warnings;
    let mut per_kind: Vec<(WarningKind, u64)> = w.per_kind.iter().map(|(k, n)| (*k, *n)).collect();
    per_kind.sort_unstable();
    let stored = StoredLog {
        events,
        details,
        text: log.strings.text.clone(),
        ends: log.strings.ends.iter().map(|&e| e as u64).collect(),
        sources: log.sources.clone(),
        warnings: StoredWarnings {
            kept: w.kept.clone(),
            per_kind,
            total: w.total,
        },
        display_offset_s: log.display_offset_s,
        evidence: log.evidence.clone(),
    };
    bitcode::encode(&stored)
}

/// One stored event as a plain tuple: time, kind, key, holder, host,
/// thread, TTL, inferred, file, line, detail mask, detail length.
#[doc(hidden)]
pub type EventColumns = (i64, u8, u32, u32, u32, u32, i32, bool, u16, u32, u16, u32);

/// The bulk of the stored form (events, packed details, the string table)
/// as plain values, for `benches/load_cache.rs` to measure other
/// serialisation crates on the very data the cache stores. Not part of the
/// API.
#[doc(hidden)]
pub fn bench_columns(log: &LoadedLog) -> (Vec<EventColumns>, Vec<u8>, String, Vec<u64>) {
    let mut details = Vec::new();
    let events = log
        .events
        .iter()
        .map(|e| {
            let d = e.detail.as_slice();
            details.extend_from_slice(d);
            (
                e.at_ns,
                e.kind as u8,
                sym_number(e.key),
                sym_number(e.holder),
                sym_number(e.host),
                sym_number(e.thread),
                e.ttl,
                e.inferred,
                e.source.file,
                e.source.line,
                e.detail_mask,
                d.len() as u32,
            )
        })
        .collect();
    let ends = log.strings.ends.iter().map(|&e| e as u64).collect();
    (events, details, log.strings.text.clone(), ends)
}

/// Decodes what [`encode`] wrote and checks it: every symbol names a
/// string, every event and evidence item names a source, both are sorted
/// by (time, file, line), the string table has no string twice, the packed
/// details end where they say, the warnings' counts add up.
///
/// # Errors
/// What is wrong, in a few words ("a symbol out of range"), for the note
/// that says the entry was ignored.
pub fn decode(bytes: &[u8]) -> Result<LoadedLog, String> {
    let started = std::time::Instant::now();
    let s: StoredLog =
        bitcode::decode(bytes).map_err(|e| format!("the payload does not decode ({e})"))?;
    crate::timing::phase("cache/bitcode", started);
    let n_sources = s.sources.len();
    if n_sources > usize::from(u16::MAX) + 1 {
        return Err("too many sources".into());
    }
    if s.display_offset_s.unsigned_abs() > 86_400 {
        return Err("a display offset beyond a day".into());
    }
    // The string table is rebuilt on one core while the events are
    // checked on the other: the events need only its length.
    let started = std::time::Instant::now();
    let (strings, events) = rayon::join(
        || interner(s.text, &s.ends),
        || events(&s.events, &s.details, s.ends.len(), n_sources),
    );
    let (strings, events) = (strings?, events?);
    crate::timing::phase("cache/strings+events", started);
    let in_order = |a: (i64, SourceRef), b: (i64, SourceRef)| {
        (a.0, a.1.file, a.1.line) <= (b.0, b.1.file, b.1.line)
    };
    if !s
        .evidence
        .iter()
        .all(|e| usize::from(e.source.file) < n_sources)
        || !s
            .evidence
            .windows(2)
            .all(|w| in_order((w[0].at_ns, w[0].source), (w[1].at_ns, w[1].source)))
    {
        return Err("evidence out of order or from no source".into());
    }
    Ok(LoadedLog {
        events,
        strings,
        sources: s.sources,
        warnings: warnings(s.warnings)?,
        display_offset_s: s.display_offset_s,
        evidence: s.evidence,
    })
}

/// The interner of `text` cut at `ends`, each string once.
fn interner(text: String, ends: &[u64]) -> Result<Interner, String> {
    let bad = || "a string table that does not add up".to_string();
    let mut out = Interner::with_capacity(ends.len(), text.len());
    let mut start = 0usize;
    for &end in ends {
        let end = usize::try_from(end).map_err(|_| bad())?;
        let s = text.get(start..end).ok_or_else(bad)?;
        let hash = out.hash(s);
        if out.find(hash, s.as_bytes()).is_some() {
            return Err("a string stored twice".into());
        }
        out.add(hash, s);
        start = end;
    }
    if start != text.len() || u32::try_from(ends.len()).is_err() {
        return Err(bad());
    }
    Ok(out)
}

/// The events, each checked: symbols below `n_strings`, a source below
/// `n_sources`, its detail's bytes where the mask says, sorted.
fn events(
    stored: &[StoredEvent],
    details: &[u8],
    n_strings: usize,
    n_sources: usize,
) -> Result<Vec<Event>, String> {
    let mut starts = Vec::with_capacity(stored.len());
    let mut at = 0usize;
    for e in stored {
        starts.push(at);
        at = at.saturating_add(e.detail_len as usize);
    }
    if at != details.len() {
        return Err("packed details that do not add up".into());
    }
    let sym_ok = |n: u32| (n as usize) <= n_strings;
    // Checked first, then built: an indexed collect writes the events in
    // place, where collecting `Result`s would gather them in pieces.
    stored
        .par_iter()
        .zip(starts.par_iter())
        .try_for_each(|(e, &start)| {
            let d = details
                .get(start..start + e.detail_len as usize)
                .ok_or("a detail out of range")?;
            if ![e.key, e.holder, e.host, e.thread].into_iter().all(sym_ok) {
                return Err("a symbol out of range".to_string());
            }
            if usize::from(e.source.file) >= n_sources {
                return Err("an event from no source".into());
            }
            check_detail(e, d, n_strings)
        })?;
    let events: Vec<Event> = stored
        .par_iter()
        .zip(starts.par_iter())
        .map(|(e, &start)| {
            let d = details
                .get(start..start + e.detail_len as usize)
                .unwrap_or_default();
            Event {
                at_ns: e.at_ns,
                kind: e.kind,
                key: sym_of(e.key),
                holder: sym_of(e.holder),
                host: sym_of(e.host),
                thread: sym_of(e.thread),
                ttl: e.ttl,
                inferred: e.inferred,
                source: e.source,
                detail_mask: e.detail_mask,
                detail: Packed::new(d),
            }
        })
        .collect();
    let key = |e: &Event| (e.at_ns, e.source.file, e.source.line);
    if !events.par_windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
        return Err("events out of order".into());
    }
    Ok(events)
}

/// Checks a packed detail: its symbols name strings, a wide TTL is there
/// exactly when the TTL says so, and the fields end where the bytes do.
fn check_detail(e: &StoredEvent, d: &[u8], n_strings: usize) -> Result<(), String> {
    let wide = e.detail_mask & D_TTL_WIDE != 0;
    if wide != (e.ttl == WIDE_TTL) {
        return Err("a TTL that does not match its detail".into());
    }
    if d.is_empty() && e.detail_mask & (D_PRODUCT | D_ORDER_ID | D_MESSAGE | D_TTL_WIDE) == 0 {
        return Ok(());
    }
    let (detail, mut end) = unpack_detail(e.detail_mask, d);
    if wide {
        get_zigzag(d, &mut end);
    }
    if end != d.len() {
        return Err("a packed detail that does not end where it says".into());
    }
    let ok = |s: Option<Sym>| s.is_none_or(|s| s.index() < n_strings);
    if ok(detail.product) && ok(detail.order_id) && ok(detail.message) {
        Ok(())
    } else {
        Err("a symbol out of range".into())
    }
}

/// The warnings, their counts checked: as many per kind as the total,
/// no kind twice, and no more kept of a kind than counted.
fn warnings(s: StoredWarnings) -> Result<Warnings, String> {
    let counted: u64 = s.per_kind.iter().map(|(_, n)| n).sum();
    let per_kind: std::collections::HashMap<WarningKind, u64> =
        s.per_kind.iter().copied().collect();
    let kept_over = |(k, n): (&WarningKind, &u64)| {
        s.kept.iter().filter(|w| w.reason.kind() == *k).count() as u64 > *n
    };
    if counted != s.total
        || per_kind.len() != s.per_kind.len()
        || s.kept
            .iter()
            .any(|w| !per_kind.contains_key(&w.reason.kind()))
        || per_kind.iter().any(kept_over)
    {
        return Err("warning counts that do not add up".into());
    }
    Ok(Warnings {
        kept: s.kept,
        per_kind,
        total: s.total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Detail, Dialect, LogBuilder, SourceNote};

    /// A small log with every part filled: details (a wide TTL too),
    /// notes, warnings, evidence.
    fn sample() -> LoadedLog {
        let mut b = LogBuilder::new();
        let mut info = SourceInfo::new("a.jsonl", Dialect::JsonLines);
        info.notes.push(SourceNote::TtlUnknown { file: "a".into() });
        info.notes.push(SourceNote::AlsoPresent {
            role: "time".into(),
            chosen: "ts".into(),
            others: vec!["@timestamp".into()],
        });
        info.naive_read_as_utc = true;
        let file = b.add_source(info);
        for i in 0..5u32 {
            let mut e = Event::new(
                i64::from(i) * 1000,
                EventKind::Acquired,
                SourceRef { file, line: i + 1 },
            );
            e.key = Some(b.intern("lock:a"));
            e.holder = Some(b.intern(&format!("h{i}")));
            e.set_ttl_ms(Some(if i == 3 { 1 << 40 } else { 2000 }));
            if i == 2 {
                let product = Some(b.intern("sku"));
                e.set_detail(Detail {
                    product,
                    quantity: Some(2),
                    unit_price: Some(9.5),
                    ..Detail::default()
                });
            }
            b.push(e);
        }
        b.warn("a.jsonl", 9, crate::model::RecordWarning::NotJsonObject);
        b.warn("a.jsonl", 10, crate::model::RecordWarning::NotJsonObject);
        b.log.evidence.push(Evidence {
            at_ns: 5,
            end_ns: Some(9),
            kind: crate::model::EvidenceKind::GcPause,
            origin: crate::model::EvidenceOrigin::JvmGc,
            host: Some("web-1".into()),
            process: None,
            what: "Pause Young".into(),
            source: SourceRef { file, line: 3 },
        });
        b.finish()
    }

    #[test]
    fn round_trip_keeps_everything() {
        let log = sample();
        let back = decode(&encode(&log)).expect("decodes");
        assert_eq!(back.events, log.events);
        assert_eq!(back.events[3].ttl_ms(), Some(1 << 40));
        assert_eq!(back.events[2].detail().quantity, Some(2));
        assert_eq!(back.strings.len(), log.strings.len());
        assert_eq!(back.strings.lookup("h4"), log.strings.lookup("h4"));
        assert_eq!(back.sources[0].notes, log.sources[0].notes);
        assert!(back.sources[0].naive_read_as_utc);
        assert_eq!(back.warnings.kept(), log.warnings.kept());
        assert_eq!(back.warnings.total(), 2);
        assert_eq!(back.evidence, log.evidence);
    }

    #[test]
    fn out_of_range_symbols_are_refused() {
        let mut log = sample();
        log.events[1].holder = sym_of(999);
        let err = decode(&encode(&log)).expect_err("refused");
        assert!(err.contains("symbol"), "{err}");
        let mut log = sample();
        log.events[2].update_detail(|d| d.product = sym_of(999));
        assert!(decode(&encode(&log)).is_err());
    }

    #[test]
    fn bad_sources_and_order_are_refused() {
        let mut log = sample();
        log.events[0].source.file = 7;
        assert!(decode(&encode(&log)).is_err());
        let mut log = sample();
        log.events.swap(0, 4);
        assert!(
            decode(&encode(&log))
                .expect_err("refused")
                .contains("order")
        );
        let mut log = sample();
        log.evidence[0].source.file = 3;
        assert!(decode(&encode(&log)).is_err());
    }

    #[test]
    fn garbage_and_truncation_are_errors_not_panics() {
        let bytes = encode(&sample());
        for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        for i in (0..flipped.len()).step_by(7) {
            flipped[i] ^= 0x5a;
        }
        let _ = decode(&flipped);
    }
}

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

/// A [`LoadedLog`] as stored, but its events: those are in chunks of
/// `chunk_events` ([`StoredChunk`]), each encoded on its own so that the
/// pool encodes and decodes them side by side.
#[derive(Encode, Decode)]
struct StoredHead {
    n_events: u64,
    chunk_events: u64,
    /// The interner's text and the end of each string in it.
    text: String,
    ends: Vec<u64>,
    sources: Vec<SourceInfo>,
    warnings: StoredWarnings,
    display_offset_s: i32,
    evidence: Vec<Evidence>,
}

/// A run of consecutive events as stored.
#[derive(Encode, Decode)]
struct StoredChunk {
    events: Vec<StoredEvent>,
    /// Every event's packed detail, one after the other.
    details: Vec<u8>,
}

/// Events a stored chunk holds (the last one fewer): 10 M events are 39
/// chunks of about 8 MB encoded, so that both cores encode and decode and
/// a chunk's plain form (12 MB) is all that is made beside the encoded one.
pub const CHUNK_EVENTS: usize = 1 << 18;

fn sym_number(s: Option<Sym>) -> u32 {
    s.map_or(0, |s| s.0.get())
}

fn sym_of(n: u32) -> Option<Sym> {
    NonZeroU32::new(n).map(Sym)
}

/// Encodes `log` for the cache, as one payload ([`encode_parts`] joined).
/// Infallible: every value of a log encodes.
pub fn encode(log: &LoadedLog) -> Vec<u8> {
    encode_parts(log, CHUNK_EVENTS).concat()
}

/// Encodes `log` for the cache in parts, whose concatenation is the
/// payload: a frame (the number of parts after it, `u32` LE, and each
/// one's length, `u64` LE), the head ([`StoredHead`]), then one part per
/// `chunk_events` events (at least 1), encoded in parallel.
pub fn encode_parts(log: &LoadedLog, chunk_events: usize) -> Vec<Vec<u8>> {
    let chunk_events = chunk_events.max(1);
    let mut parts: Vec<Vec<u8>> = vec![head(log, chunk_events)];
    parts.par_extend(log.events.par_chunks(chunk_events).map(chunk));
    let mut frame = Vec::with_capacity(4 + 8 * parts.len());
    frame.extend_from_slice(&(parts.len() as u32).to_le_bytes());
    for p in &parts {
        frame.extend_from_slice(&(p.len() as u64).to_le_bytes());
    }
    parts.insert(0, frame);
    parts
}

/// The encoded head of `log`: all of it but its events.
fn head(log: &LoadedLog, chunk_events: usize) -> Vec<u8> {
    let w = &log.warnings;
    let mut per_kind: Vec<(WarningKind, u64)> = w.per_kind.iter().map(|(k, n)| (*k, *n)).collect();
    per_kind.sort_unstable();
    bitcode::encode(&StoredHead {
        n_events: log.events.len() as u64,
        chunk_events: chunk_events as u64,
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
    })
}

/// One chunk of events, encoded.
fn chunk(events: &[Event]) -> Vec<u8> {
    let mut details = Vec::new();
    let events = events
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
    bitcode::encode(&StoredChunk { events, details })
}

/// The parts of a payload [`encode_parts`] framed.
fn parts(bytes: &[u8]) -> Result<Vec<&[u8]>, String> {
    let bad = || "the payload does not decode (its frame does not add up)".to_string();
    let n = bytes.get(..4).ok_or_else(bad)?;
    let n = u32::from_le_bytes(n.try_into().map_err(|_| bad())?) as usize;
    let lens_end = n
        .checked_mul(8)
        .and_then(|l| l.checked_add(4))
        .ok_or_else(bad)?;
    let lens = bytes.get(4..lens_end).ok_or_else(bad)?;
    let mut at = lens_end;
    let mut out = Vec::with_capacity(n);
    for len in lens.chunks_exact(8) {
        let len = u64::from_le_bytes(len.try_into().map_err(|_| bad())?);
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| at.checked_add(l))
            .ok_or_else(bad)?;
        out.push(bytes.get(at..end).ok_or_else(bad)?);
        at = end;
    }
    if at != bytes.len() || out.is_empty() {
        return Err(bad());
    }
    Ok(out)
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
    let parts = parts(bytes)?;
    let undecodable = |e: bitcode::Error| format!("the payload does not decode ({e})");
    let s: StoredHead = bitcode::decode(parts[0]).map_err(undecodable)?;
    let n_sources = s.sources.len();
    if n_sources > usize::from(u16::MAX) + 1 {
        return Err("too many sources".into());
    }
    if s.display_offset_s.unsigned_abs() > 86_400 {
        return Err("a display offset beyond a day".into());
    }
    let chunk_events = usize::try_from(s.chunk_events)
        .ok()
        .filter(|&c| c > 0)
        .ok_or("a chunk of no events")?;
    let n_events = usize::try_from(s.n_events).map_err(|_| "too many events")?;
    if n_events.div_ceil(chunk_events) != parts.len() - 1 {
        return Err("as many chunks as the events do not need".into());
    }
    // The string table is rebuilt on one core while the chunks are decoded
    // and the events checked on the others: the events need only its
    // length.
    let n_strings = s.ends.len();
    let (strings, events) = rayon::join(
        || {
            let t = std::time::Instant::now();
            let i = interner(s.text, &s.ends);
            crate::timing::phase("cache/strings", t);
            i
        },
        || {
            let chunks: Vec<StoredChunk> = parts[1..]
                .par_iter()
                .map(|p| bitcode::decode(p).map_err(undecodable))
                .collect::<Result<_, _>>()?;
            crate::timing::phase("cache/bitcode", started);
            events(&chunks, (chunk_events, n_events), n_strings, n_sources)
        },
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
    let ends = ends
        .iter()
        .map(|&e| usize::try_from(e))
        .collect::<Result<Vec<usize>, _>>()
        .map_err(|_| "a string table that does not add up".to_string())?;
    Interner::from_parts(text, ends)
}

/// Where each event's packed detail starts in its chunk's details,
/// checked to end where they do.
fn detail_starts(c: &StoredChunk) -> Result<Vec<usize>, String> {
    let mut starts = Vec::with_capacity(c.events.len());
    let mut at = 0usize;
    for e in &c.events {
        starts.push(at);
        at = at.saturating_add(e.detail_len as usize);
    }
    if at != c.details.len() {
        return Err("packed details that do not add up".into());
    }
    Ok(starts)
}

/// The events of `chunks` (`chunk_events` each, the last fewer, `n_events`
/// in all), each checked: symbols below `n_strings`, a source below
/// `n_sources`, its detail's bytes where the mask says, sorted.
fn events(
    chunks: &[StoredChunk],
    (chunk_events, n_events): (usize, usize),
    n_strings: usize,
    n_sources: usize,
) -> Result<Vec<Event>, String> {
    let sizes_ok = chunks.iter().enumerate().all(|(i, c)| {
        let last = i + 1 == chunks.len();
        let want = if last {
            n_events - i * chunk_events
        } else {
            chunk_events
        };
        c.events.len() == want
    });
    if !sizes_ok {
        return Err("a chunk of the wrong size".into());
    }
    let starts: Vec<Vec<usize>> = chunks
        .par_iter()
        .map(detail_starts)
        .collect::<Result<_, _>>()?;
    let sym_ok = |n: u32| (n as usize) <= n_strings;
    let at = |i: usize| {
        let (c, j) = (i / chunk_events, i % chunk_events);
        let (chunk, start) = (&chunks[c], starts[c][j]);
        let e = &chunk.events[j];
        (e, chunk.details.get(start..start + e.detail_len as usize))
    };
    // Checked first, then built: an indexed collect writes the events in
    // place, where collecting `Result`s would gather them in pieces.
    (0..n_events).into_par_iter().try_for_each(|i| {
        let (e, d) = at(i);
        let d = d.ok_or("a detail out of range")?;
        if ![e.key, e.holder, e.host, e.thread].into_iter().all(sym_ok) {
            return Err("a symbol out of range".to_string());
        }
        if usize::from(e.source.file) >= n_sources {
            return Err("an event from no source".into());
        }
        check_detail(e, d, n_strings)
    })?;
    let events: Vec<Event> = (0..n_events)
        .into_par_iter()
        .map(|i| {
            let (e, d) = at(i);
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
                detail: Packed::new(d.unwrap_or_default()),
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

    /// The payload of `parts` (a head, then chunks) under a frame of
    /// their lengths, as [`encode_parts`] frames them.
    fn framed(parts: &[&Vec<u8>]) -> Vec<u8> {
        let mut out = (parts.len() as u32).to_le_bytes().to_vec();
        for p in parts {
            out.extend_from_slice(&(p.len() as u64).to_le_bytes());
        }
        for p in parts {
            out.extend_from_slice(p);
        }
        out
    }

    #[test]
    fn chunks_of_any_size_round_trip_and_chunks_that_disagree_are_refused() {
        let log = sample();
        for c in [1, 2, 4, 5, 64] {
            let back = decode(&encode_parts(&log, c).concat()).expect("decodes");
            assert_eq!(back.events, log.events, "chunks of {c}");
        }
        // A frame, a head, and 5 events in chunks of 2, 2 and 1.
        let two = encode_parts(&log, 2);
        assert_eq!(two.len(), 5);
        assert_eq!(two.concat(), framed(&two[1..].iter().collect::<Vec<_>>()));
        // A chunk left out.
        let short = framed(&[&two[1], &two[2], &two[3]]);
        let err = decode(&short).expect_err("refused");
        assert!(err.contains("chunks"), "{err}");
        // A head saying 4 a chunk over chunks of 3 and 2.
        let (four, three) = (encode_parts(&log, 4), encode_parts(&log, 3));
        let mixed = framed(&[&four[1], &three[2], &three[3]]);
        let err = decode(&mixed).expect_err("refused");
        assert!(err.contains("wrong size"), "{err}");
        // A frame that claims more bytes than there are.
        let mut long = two.concat();
        long[4] = long[4].wrapping_add(1);
        assert!(decode(&long).expect_err("refused").contains("frame"));
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

//! Roles by the lock protocol itself, for a file whose names the lists do
//! not know: per lock key, holders take turns; each turn is an acquire
//! (with a TTL), work, renewals, then a release or an expiry. Every choice
//! of event, key and holder column is scored by how well that fits
//! ([`fit`]); the business columns by the arithmetic a stock obeys
//! ([`business`]); a unit-less TTL's unit by the takeovers ([`ttl`]); a
//! step's outcome field by the failed acquires it explains ([`outcome`]). Names
//! only tip close scores. The winner, its score and the runner-up are said
//! in the file's notes, as a guess when no name confirmed them; when no
//! choice fits well, nothing is chosen and the note says why
//! (`docs/ingest.md`, "Roles by the protocol").

pub(crate) mod business;
pub(crate) mod decide;
pub(crate) mod fit;
pub(crate) mod outcome;
pub(crate) mod sample;
pub(crate) mod table;
pub(crate) mod ttl;

#[cfg(test)]
mod tests;

use business::Step;
use decide::{Reading, Undecided};
use fit::{Kind, NameHint};
pub(crate) use sample::Sample;

use crate::ingest::roles::time::TzSpec;
use crate::ingest::vocabulary::events::{EventNames, normalize_event};
use crate::model::{EventKind, SourceNote};

/// What the protocol chose for a file: mapping entries for the roles
/// (`(role name as a mapping writes it, field)`), its event names, and the
/// notes that say so.
#[derive(Debug, Default)]
pub(crate) struct Inferred {
    pub fields: Vec<(&'static str, String)>,
    pub events: EventNames,
    pub notes: Vec<SourceNote>,
}

/// The protocol's reading of `det`'s sample, timed by `time_field` (read
/// in the zone and with the mapping's `time_format` of `time`,
/// [`Sample::table`]).
///
/// # Errors
/// A note saying what could not be decided.
pub(crate) fn infer(
    sample: &Sample,
    time_field: Option<&str>,
    time: (Option<&TzSpec>, Option<&str>),
) -> Result<Inferred, Box<SourceNote>> {
    let table = sample.table(time_field, time);
    let hints = sample.hints();
    let reading =
        decide::decide(&table, &hints).map_err(|u| Box::new(undecided_note(&u, sample.len())))?;
    Ok(inferred(&table.names, &hints, &reading))
}

fn undecided_note(u: &Undecided, records: usize) -> SourceNote {
    SourceNote::ProtocolUndecided {
        records: records as u64,
        fitting: match u {
            Undecided::NoHold => None,
            Undecided::PoorFit(f) => Some(format!("{:.0} %", f * 100.0)),
        },
    }
}

/// The event kind of a lock step; `None` for work, which the business
/// steps name.
fn lock_kind(k: Kind) -> Option<EventKind> {
    Some(match k {
        Kind::Acquired => EventKind::Acquired,
        Kind::AcquireFailed => EventKind::AcquireFailed,
        Kind::Renewed => EventKind::Renewed,
        Kind::Released => EventKind::Released,
        Kind::ReleaseFailed => EventKind::ReleaseFailed,
        Kind::LockLost => EventKind::LockLost,
        Kind::Work => return None,
    })
}

fn step_kind(s: Step) -> Option<EventKind> {
    Some(match s {
        Step::StockInitialized => EventKind::StockInitialized,
        Step::StockRead => EventKind::StockRead,
        Step::StockDeducted => EventKind::StockDeducted,
        Step::OrderCreated => EventKind::OrderCreated,
        Step::Activity => return None,
    })
}

/// `reading` as mapping entries, event names and notes.
fn inferred(names: &[String], hints: &[NameHint], reading: &Reading) -> Inferred {
    let name = |c: u32| names[c as usize].clone();
    let h = reading.fit.hypothesis;
    let mut out = Inferred::default();
    out.fields.push(("key", name(h.key)));
    out.fields.push(("holder", name(h.holder)));
    out.fields.push(("event", name(h.event)));
    if let (Some(c), Some((unit, _))) = (reading.fit.ttl, reading.ttl_unit) {
        let role = match unit {
            ttl::Unit::S => "ttl_s",
            ttl::Unit::Ms => "ttl_ms",
            ttl::Unit::Ns => "ttl_ns",
        };
        out.fields.push((role, name(c)));
    }
    let b = &reading.business;
    for (role, col) in [
        ("product", b.product),
        ("quantity", b.quantity),
        ("stock", b.stock),
        ("stock_after", b.stock_after),
        ("order_id", b.order_id),
        ("fencing_token", b.fencing),
    ] {
        if let Some(c) = col {
            out.fields.push((role, name(c)));
        }
    }
    let mut buf = String::new();
    let mut said: Vec<(String, String)> = Vec::new();
    let kinds = reading
        .fit
        .kinds
        .iter()
        .filter_map(|(v, k)| Some((v, lock_kind(*k)?)))
        .chain(
            b.steps
                .iter()
                .filter_map(|(v, s)| Some((v, step_kind(*s)?))),
        );
    for (value, kind) in kinds {
        normalize_event(value, &mut buf);
        out.events.insert(buf.clone(), kind);
        said.push((value.clone(), kind.as_str().to_string()));
    }
    out.notes = notes(names, hints, reading, said);
    out
}

/// The notes of a reading: the columns chosen, their score and runner-up
/// (a guess unless every lock role's name confirmed it), the event words'
/// kinds, the TTL's unit and the business columns.
fn notes(
    names: &[String],
    hints: &[NameHint],
    reading: &Reading,
    events: Vec<(String, String)>,
) -> Vec<SourceNote> {
    let name = |c: u32| names[c as usize].clone();
    let h = reading.fit.hypothesis;
    let hint = |c: u32| hints.get(c as usize).copied().unwrap_or(NameHint::Unknown);
    let confirmed = hint(h.key) == NameHint::Key
        && hint(h.holder) == NameHint::Holder
        && hint(h.event) == NameHint::Event;
    let runner_up = reading.runner_up.as_ref().map(|r| {
        let rh = r.hypothesis;
        (name(rh.key), name(rh.holder), format!("{:.2}", r.score))
    });
    let mut out = vec![SourceNote::RolesByProtocol {
        key: name(h.key),
        holder: name(h.holder),
        event: name(h.event),
        holds: reading.fit.holds as u64,
        fitting: reading.fit.fitting as u64,
        score: format!("{:.2}", reading.fit.score),
        runner_up,
        guess: !confirmed || reading.close_call,
    }];
    out.push(SourceNote::EventsByProtocol { kinds: events });
    if let (Some(c), Some((unit, because))) = (reading.fit.ttl, reading.ttl_unit)
        && because != ttl::Because::Written
    {
        out.push(SourceNote::TtlUnitByProtocol {
            field: name(c),
            unit: match unit {
                ttl::Unit::S => "s",
                ttl::Unit::Ms => "ms",
                ttl::Unit::Ns => "ns",
            }
            .to_string(),
            takeovers: match because {
                ttl::Because::Takeovers(n) => Some(u64::from(n)),
                ttl::Because::Size | ttl::Because::Written => None,
            },
        });
    }
    out
}

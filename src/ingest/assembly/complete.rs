//! A file's roles completed by the lock protocol (`roles/protocol/`) when
//! the names left them undecided: the roles the user's mapping does not
//! name are chosen from the detection's sample, the fields resolved again
//! with them, and the event names the protocol gave kept for the collector;
//! and a step's outcome field, which no name gives, found by the failed
//! acquires it explains.

use crate::ingest::readers::text::message_event;
use crate::ingest::roles::fields::Pick;
use crate::ingest::roles::fields::{Detector, Fields};
use crate::ingest::roles::mapping::Mapping;
use crate::ingest::roles::protocol::infer;
use crate::ingest::roles::protocol::outcome::{LockColumns, find_outcome};
use crate::ingest::roles::time::TzSpec;
use crate::ingest::vocabulary::events::event_kind;
use crate::ingest::vocabulary::roles::{Role, Unit};
use crate::model::{EventKind, SourceNote};

/// Whether the names left the lock reading incomplete: no key, holder or
/// event field, or an event field of which no value names an event
/// (`(values naming an event, values)` from the detection).
pub(crate) fn incomplete(fields: &Fields, event_share: Option<(u32, u32)>) -> bool {
    let lock_roles = [Role::Key, Role::Holder]
        .iter()
        .any(|r| fields.get(*r).is_none())
        || fields.event().is_none();
    let events_unknown = event_share.is_some_and(|(known, seen)| known == 0 && seen > 0);
    lock_roles || events_unknown
}

/// The event, key and holder fields the names chose, when all three are.
fn lock_fields(fields: &Fields) -> Option<(&str, &str, &str)> {
    Some((
        fields.event()?.field.as_str(),
        fields.get(Role::Key)?.field.as_str(),
        fields.get(Role::Holder)?.field.as_str(),
    ))
}

/// Whether the event field the names chose (one the reader derived from
/// the message's words, not one the file writes) is missing from more than
/// a third of the records that name a key and a holder: the words it knows
/// are a part of the protocol, and the field holding every step may be
/// another one.
fn sparse_events(det: &Detector, fields: &Fields) -> bool {
    let Some((e, k, h)) = lock_fields(fields) else {
        return false;
    };
    let (with, lock) = det.sample.coverage(e, (k, h));
    lock >= MIN_RECORDS as u32 && with * 3 < lock * 2
}

/// Whether the event field the names chose reads acquires but no release
/// while some of its values on the records that name a key and a holder
/// name no event, or some of those records have no value: the release
/// (and maybe more steps) is written in words the vocabulary lacks, and the
/// protocol, which gives unknown words only the kinds the vocabulary read
/// none of, may place them.
fn unread_release(det: &Detector, fields: &Fields) -> bool {
    let Some((e, k, h)) = lock_fields(fields) else {
        return false;
    };
    let mut buf = String::new();
    let kinds: Vec<Option<EventKind>> = det
        .sample
        .lock_values(e, (k, h))
        .into_iter()
        .map(|v| event_kind(v, None, &mut buf))
        .collect();
    let has = |k: EventKind| kinds.contains(&Some(k));
    // A record with a key and a holder whose message named no event (the
    // field the reader derives from the words is absent) is unread too.
    let (with, lock) = det.sample.coverage(e, (k, h));
    (kinds.contains(&None) || with < lock) && has(EventKind::Acquired) && !has(EventKind::Released)
}

/// The business roles (`roles/protocol/business.rs` finds them by their arithmetic).
const BUSINESS: [Role; 8] = [
    Role::Product,
    Role::Quantity,
    Role::Stock,
    Role::StockBefore,
    Role::StockAfter,
    Role::OrderId,
    Role::UnitPrice,
    Role::Fencing,
];

/// Records under which no note says the protocol found nothing.
const MIN_RECORDS: usize = 4;

/// Ranks under this are a whole synonym's (`vocabulary/names.rs`).
const STRONG_RANK: u32 = 100;

/// Completes a file's reading by the protocol when the names left it
/// incomplete ([`incomplete`]): the roles the user's mapping does not name
/// are chosen from `det`'s sample, the fields resolved again with them, and
/// the event names the protocol gave kept in [`Fields::events`]. `notes`
/// gets what was chosen, or why nothing was.
pub(crate) fn complete(
    det: &Detector,
    mapping: Option<&Mapping>,
    tz: Option<&TzSpec>,
    fields: &mut Fields,
    notes: &mut Vec<SourceNote>,
) {
    let event_share = fields.event().and_then(|p| det.event_share(&p.field));
    // A mapping that names the key, the holder and the event has decided.
    let decided = mapping.is_some_and(|m| {
        let named = m.field_roles();
        [Role::Key, Role::Holder, Role::Event]
            .iter()
            .all(|r| named.iter().any(|(x, _, _)| x == r))
    });
    if decided || det.sample.len() == 0 {
        return;
    }
    let names_incomplete = incomplete(fields, event_share);
    if !names_incomplete && !sparse_events(det, fields) && !unread_release(det, fields) {
        return;
    }
    let time = fields.get(Role::Time).map(|p| p.field.clone());
    let format = mapping.and_then(|m| m.time_format.as_deref());
    let inferred = match infer(&det.sample, time.as_deref(), (tz, format)) {
        Ok(i) => i,
        Err(note) => {
            // Two holds of two lines each are the least the protocol reads;
            // when the names found every lock role, their reading stands
            // and the note (which says no field names them) would be wrong.
            if det.sample.len() >= MIN_RECORDS && names_incomplete {
                notes.push(*note);
            }
            return;
        }
    };
    let mut merged = mapping.cloned().unwrap_or_default();
    for (role, field) in &inferred.fields {
        let taken = merged
            .field_roles()
            .iter()
            .any(|(r, _, _)| Role::from_mapping_name(role).is_some_and(|(x, _)| x == *r));
        if !taken {
            merged.fields.insert((*role).to_string(), field.clone());
        }
    }
    for (name, kind) in inferred.events {
        merged.events.entry(name).or_insert(kind);
    }
    let (mut again, again_notes) = det.resolve(Some(&merged));
    again.events = Some(merged.events);
    // A business role the protocol did not find keeps only a field whose
    // whole name says it: a part of a name, an abbreviation or a value
    // picked it from fields the protocol had weighed and left.
    for role in BUSINESS {
        let weak = again.get(role).is_some_and(|p| {
            !merged.fields.values().any(|f| *f == p.field)
                && det.rank_of(role, &p.field).is_none_or(|r| r >= STRONG_RANK)
        });
        if weak {
            again.clear(role);
        }
    }
    *fields = again;
    notes.clear();
    notes.extend(again_notes);
    notes.extend(inferred.notes);
}

/// Finds the file's outcome field by the protocol
/// ([`crate::ingest::roles::protocol::outcome`]) when no mapping names one
/// and the key, holder and event fields are chosen: the field is given the
/// outcome role and a note says it, as a guess.
pub(crate) fn complete_outcome(
    det: &Detector,
    (mapping, tz): (Option<&Mapping>, Option<&TzSpec>),
    fields: &mut Fields,
    notes: &mut Vec<SourceNote>,
) {
    let mapped =
        mapping.is_some_and(|m| m.field_roles().iter().any(|(r, _, _)| *r == Role::Outcome));
    if mapped || fields.get(Role::Outcome).is_some() || det.sample.len() < MIN_RECORDS {
        return;
    }
    let Some((event, key, holder)) = lock_fields(fields) else {
        return;
    };
    let time = fields.get(Role::Time).map(|p| p.field.clone());
    let format = mapping.and_then(|m| m.time_format.as_deref());
    let table = det.sample.table(time.as_deref(), (tz, format));
    let column = |f: &str| table.names.iter().position(|n| n == f).map(|c| c as u32);
    let (Some(event), Some(key), Some(holder)) = (column(event), column(key), column(holder))
    else {
        return;
    };
    let ttl = fields
        .get(Role::Ttl)
        .and_then(|p| Some((column(&p.field)?, p.unit.ms())));
    let skip: Vec<u32> = Role::ALL
        .iter()
        .filter_map(|r| fields.get(*r).and_then(|p| column(&p.field)))
        .collect();
    let names = fields.events.as_ref().or(mapping.map(|m| &m.events));
    let from_message = fields.event_from_message;
    let mut buf = String::new();
    let mut kind_of = |raw: &str| {
        let k = event_kind(raw, names, &mut buf);
        match k {
            None if from_message => message_event(raw).and_then(|n| event_kind(n, None, &mut buf)),
            k => k,
        }
    };
    let lock = LockColumns {
        key,
        holder,
        event,
        ttl,
    };
    let Some(fit) = find_outcome(&table, lock, &skip, &mut kind_of) else {
        return;
    };
    let field = table.names[fit.column as usize].clone();
    fields.set(
        Role::Outcome,
        Pick {
            field: field.clone(),
            unit: Unit::Ms,
            scope: Default::default(),
        },
    );
    notes.push(SourceNote::OutcomeByProtocol {
        field,
        failed: u64::from(fit.failed),
        on_live: u64::from(fit.failed_on_live),
    });
}

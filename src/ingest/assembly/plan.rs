//! A file's reading plan: what the parallel path's hot loop follows on
//! each flat JSON line, decided once from the fields detection chose. The
//! wanted fields are found on the line by the scanner (`readers/fast.rs`,
//! each key compared first with the line before's), each role reads its
//! field's slot, the time is read at fixed places within the minute the
//! plan learned last ([`TimeMemo`]), names equal to the role's last one
//! skip the interner's hash, and event names are mapped to kinds through a
//! table the first line of each name fills. A line that does not fit (its
//! time in another layout, a value the scanner is not sure of) takes the
//! general path for that step; both give the same events.

use std::fmt::Write as _;

use crate::ingest::roles::fields::Fields;
use crate::ingest::roles::mapping::Mapping;
use crate::ingest::vocabulary::roles::Role;

/// The slot of a role the file has no field for: past the end of any
/// line's values (a plan reads at most 255 fields).
pub(crate) const NO_SLOT: u8 = u8::MAX;

/// The plan of one file: each role's field and its place among the
/// scanner's names.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ReadPlan {
    /// (role, field, slot) for each role the file has, in role order.
    pub steps: Vec<(Role, String, usize)>,
    /// The event is read from the message's words (no event field).
    pub event_from_message: bool,
}

impl ReadPlan {
    /// The plan for a file whose lines the scanner reads into `names`
    /// (`by_role`: each role's index among them), `None` when a step
    /// depends on more than the line: a mapping's own time format or date,
    /// an envelope's time to date a time of day, records of several kinds.
    pub fn of(
        fields: &Fields,
        names: &[String],
        by_role: &[Option<usize>],
        mapping: Option<&Mapping>,
    ) -> Option<ReadPlan> {
        let mapped_time = mapping.is_some_and(|m| m.time_format.is_some() || m.date.is_some());
        if names.is_empty()
            || mapped_time
            || !fields.others.is_empty()
            || fields.payload.is_some()
            || fields.fallback(Role::Time).is_some()
        {
            return None;
        }
        if names.len() >= usize::from(NO_SLOT) {
            return None;
        }
        let steps = Role::ALL
            .iter()
            .filter_map(|r| {
                let slot = by_role.get(r.index()).copied().flatten()?;
                Some((*r, names.get(slot)?.clone(), slot))
            })
            .collect();
        Some(ReadPlan {
            steps,
            event_from_message: fields.event_from_message,
        })
    }

    /// Each role's slot (`Role as usize`), [`NO_SLOT`] for a role the
    /// file has no field for.
    pub fn slots(&self) -> [u8; Role::ALL.len()] {
        let mut slots = [NO_SLOT; Role::ALL.len()];
        for (role, _, slot) in &self.steps {
            slots[role.index()] = u8::try_from(*slot).unwrap_or(NO_SLOT);
        }
        slots
    }

    /// The plan's steps as `inspect` prints them, one a line: the fields,
    /// the event kind's source, the names; the time's line is
    /// `inspect`'s, from what the load learned.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let fields: Vec<String> = self
            .steps
            .iter()
            .map(|(role, field, slot)| format!("{field}→{} (slot {slot})", role.name()))
            .collect();
        let _ = writeln!(
            s,
            "fields found by key on each line, the rest skipped: {}",
            fields.join(", ")
        );
        let event = if self.event_from_message {
            "the message's words"
        } else {
            "the event field"
        };
        let _ = writeln!(
            s,
            "event kind: {event}, through a table filled by each name's first line"
        );
        let _ = writeln!(
            s,
            "names: compared with the role's last one before the interner's hash"
        );
        s
    }
}

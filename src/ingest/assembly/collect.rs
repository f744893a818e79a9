//! The last step of reading a file: one record into at most one [`Event`],
//! using the fields chosen for its file, and the file's counts of lines
//! read, skipped and warned. This is the per-line hot path; it is kept in
//! one place so it can be swapped for a borrowed / zero-copy parser later.

use crate::ingest::framing::timestamp::time_len;
use crate::ingest::readers::fast::trim;
use crate::ingest::readers::inner::read_inner;
use crate::ingest::readers::json::json_error_parts;
use crate::ingest::readers::text::message_event;
use crate::ingest::records::record::{FieldValue, Record};
use crate::ingest::roles::duration::text_duration_ms;
use crate::ingest::roles::fields::{Fields, RecordKind};
use crate::ingest::roles::mapping::Mapping;
use crate::ingest::roles::time::{
    TimeError, TimeOrigin, TzSpec, parse_time, parse_time_detail, parse_tz, parse_with_format,
    rfc3164_parts,
};
use crate::ingest::vocabulary::events::event_kind;
use crate::ingest::vocabulary::failure::outcome_of;
use crate::ingest::vocabulary::infra::{infra_kind_of, length_ms};
use crate::ingest::vocabulary::roles::{Role, Unit};
use crate::model::{
    DateFrom, Event, EventKind, Evidence, EvidenceKind, EvidenceOrigin, FieldWarning, LogBuilder,
    RecordWarning, SourceInfo, SourceNote, SourceRef, WarningReason,
};

use super::dates::DateHints;
use super::plan::ReadPlan;
use crate::ingest::roles::time_memo::TimeMemo;

/// Per-file state of the extraction.
pub(crate) struct Collector<'o> {
    /// Source index for [`SourceRef::file`].
    pub file: u16,
    /// Fields chosen for this file.
    pub fields: Fields,
    /// Zone of naive times.
    pub tz: Option<&'o TzSpec>,
    /// Event-name overrides.
    pub mapping: Option<&'o Mapping>,
    /// Counters and name of the file.
    pub info: SourceInfo,
    /// Set when a naive time was read (for the note about the zone).
    pub naive_seen: bool,
    /// Times of day dated by the mapping's `date`: the last one read (ns)
    /// and the days added so far ([`Collector::advance_at_midnight`]).
    day: (Option<i64>, i64),
    /// RFC 3164 times (no year): the year given to the last one and its
    /// month ([`Collector::with_year`]).
    year: Option<(i32, u32)>,
    /// Where the dates and years other times lack come from
    /// ([`Collector::date_of_day`], [`Collector::with_year`]).
    pub dates: DateHints,
    /// Times of month and day (no year): the year given to the last one
    /// and its month.
    year_of_day: Option<(i32, u32)>,
    /// Times of day dated from [`Collector::dates`]: the date given (its
    /// note is said once).
    date_noted: bool,
    buf: String,
    /// Event names already mapped to a kind (a log has few distinct ones),
    /// each with whether a name of no kind says its line wrote something.
    kinds: hashbrown::HashMap<Box<str>, (Option<EventKind>, bool)>,
    /// False while a record is read with another kind's picks that read
    /// events differently ([`Collector::record_of_kind`]): `kinds` is not
    /// used.
    cache_on: bool,
    /// A skipped line's words already read for evidence (the kind they
    /// name, if any): a structured log repeats a few event words on
    /// thousands of lines, and each reading runs the infrastructure
    /// families' regexes.
    infra: hashbrown::HashMap<Box<str>, Option<EvidenceKind>>,
    /// The file's reading plan, when the parallel path made one: times are
    /// then read through [`Collector::memo`].
    plan: Option<ReadPlan>,
    /// The plan's slot of each role's field (`Role as usize`), [`super::plan::NO_SLOT`]
    /// for a role the file lacks.
    slot_of: Option<[u8; Role::ALL.len()]>,
    /// The minute and layout of the last time read ([`TimeMemo`]).
    memo: TimeMemo,
    /// The last name interned for each role (`Role as usize`): a log
    /// repeats its key, host and thread from line to line, and comparing
    /// with the last one costs less than hashing.
    recent: [Option<crate::model::Sym>; Role::ALL.len()],
    /// Times read by [`Collector::memo`], and the first layout it learned.
    memo_hits: u64,
    first_layout: Option<String>,
}

/// At most this many distinct event names are remembered per collector.
const KIND_CACHE: usize = 4096;

/// A duration in ms: a number in `unit`, or text with its own units
/// ([`text_duration_ms`]: `2000ms`, `2s`, `1m30s`,
/// `PT2S`, `00:00:02`, `30秒`), which win over `unit`.
pub(crate) fn duration_ms(v: &FieldValue<'_>, unit: Unit) -> Option<f64> {
    if let Some(n) = v.as_f64() {
        return Some(n * unit.ms());
    }
    let FieldValue::Str(s) = v else { return None };
    text_duration_ms(s)
}

/// Longest lease an absolute expiry may give, ms (7 days): a time further
/// off is no lock's expiry.
const MAX_EXPIRY_AHEAD_MS: f64 = 7.0 * 86_400_000.0;

/// The TTL in ms a TTL field's value gives on an event at `at_ns`: a
/// duration ([`duration_ms`]), or, for an epoch-like number (at least 10^9
/// ms: 11.5 days) or a date-time, an absolute expiry: TTL = expiry - event
/// time, when that is from 0 to 7 days (a Redisson-style `expiration` of
/// epoch ms is no TTL of 55 years). A value of 10^12 ms or more that is no
/// such expiry gives no TTL.
pub(crate) fn ttl_of(
    v: &FieldValue<'_>,
    unit: Unit,
    at_ns: i64,
    tz: Option<&TzSpec>,
) -> Option<f64> {
    let dur = duration_ms(v, unit);
    if dur.is_some_and(|m| m < 1.0e9) {
        return dur;
    }
    let text = match (v.as_f64(), unit) {
        // A number in seconds is an epoch in seconds.
        (Some(n), Unit::S) => format!("{}", n.trunc() as i64),
        _ => v.text().into_owned(),
    };
    let expiry = parse_time(&text, tz)
        .ok()
        .map(|(ns, _)| (ns.saturating_sub(at_ns)) as f64 / 1e6)
        .filter(|d| *d > 0.0 && *d <= MAX_EXPIRY_AHEAD_MS);
    match (expiry, dur) {
        (Some(d), _) => Some(d),
        (None, Some(m)) if m < 1.0e12 => Some(m),
        _ => None,
    }
}

/// Longest key, holder, host, thread, product or order id kept, bytes: a
/// longer one keeps its first bytes and a hash of the whole, with a warning
/// (40 lines of 4 MB holder names would take 3.5 GB, every report
/// repeating them).
pub const MAX_NAME_BYTES: usize = 1024;

/// Longest message kept, bytes (as [`MAX_NAME_BYTES`]); a joined CRI line
/// or a stack trace may be long, so 64 KiB.
pub const MAX_MESSAGE_BYTES: usize = 64 << 10;

/// `t` cut to at most `max` bytes (at a character boundary), followed by
/// `…#` and a hash of the whole text, so two long values that share their
/// start stay apart.
fn cut_value(t: &str, max: usize) -> String {
    use std::hash::{Hash, Hasher};
    let mut end = max.saturating_sub(20).min(t.len());
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    t.hash(&mut h);
    format!("{}…#{:016x}", &t[..end], h.finish())
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 60 {
        let t: String = s.chars().take(57).collect();
        format!("{t}...")
    } else {
        s.to_string()
    }
}

impl<'o> Collector<'o> {
    /// A collector for source `file`.
    pub fn new(
        file: u16,
        fields: Fields,
        tz: Option<&'o TzSpec>,
        mapping: Option<&'o Mapping>,
        info: SourceInfo,
    ) -> Self {
        let dates = DateHints::of(mapping.and_then(|m| m.date.as_deref()), &info.name, None);
        Collector {
            file,
            fields,
            tz,
            mapping,
            info,
            naive_seen: false,
            day: (None, 0),
            year: None,
            dates,
            year_of_day: None,
            date_noted: false,
            buf: String::new(),
            kinds: hashbrown::HashMap::default(),
            infra: hashbrown::HashMap::default(),
            cache_on: true,
            plan: None,
            slot_of: None,
            memo: TimeMemo::default(),
            recent: [None; Role::ALL.len()],
            memo_hits: 0,
            first_layout: None,
        }
    }

    /// Reads the lines of the scanner's slots by `plan`.
    pub fn set_plan(&mut self, plan: Option<ReadPlan>) {
        self.slot_of = plan.as_ref().map(ReadPlan::slots);
        self.plan = plan;
    }

    /// What the reading plan did on this collector's lines, `None` without
    /// a plan.
    pub fn plan_report(&self) -> Option<crate::model::PlanReport> {
        let plan = self.plan.as_ref()?;
        Some(crate::model::PlanReport {
            steps: plan.describe(),
            layout: self.first_layout.clone(),
            by_layout: self.memo_hits,
        })
    }

    /// Counts an unreadable record and records its warning.
    pub fn bad(&mut self, b: &mut LogBuilder, line: u64, reason: impl Into<WarningReason>) {
        self.info.lines_read += 1;
        self.info.lines_warned += 1;
        b.warn(&self.info.name, line, reason);
    }

    /// Records a warning about `line` without counting the line (the item
    /// that follows for the same line counts it).
    pub fn warn(&mut self, b: &mut LogBuilder, line: u64, reason: WarningReason) {
        b.warn(&self.info.name, line, reason);
    }

    /// Counts a line that is no record and needs no warning.
    pub fn skip(&mut self) {
        self.info.lines_read += 1;
        self.info.lines_skipped += 1;
    }

    fn get<'a>(&self, rec: &Record<'a>, role: Role) -> Option<FieldValue<'a>> {
        if let Record::Slots { vals, by_role, .. } = rec {
            // The fast path knows where each role's field is.
            let i = by_role.get(role as usize).copied().flatten()?;
            return vals.get(i).cloned().flatten();
        }
        self.fields.value(rec, role)
    }

    /// The interned text of `role`'s field, cut to [`MAX_NAME_BYTES`] (a
    /// message to [`MAX_MESSAGE_BYTES`]) with a warning for the line.
    fn sym(
        &mut self,
        b: &mut LogBuilder,
        line: u64,
        rec: &Record<'_>,
        role: Role,
    ) -> Option<crate::model::Sym> {
        let v = self.get(rec, role)?;
        let t = v.text();
        self.sym_of(b, line, role, trim(&t))
    }

    /// [`Collector::sym`] of the trimmed text `t`: the last name of the
    /// role when `t` is it, else interned (and remembered).
    fn sym_of(
        &mut self,
        b: &mut LogBuilder,
        line: u64,
        role: Role,
        t: &str,
    ) -> Option<crate::model::Sym> {
        if t.is_empty() {
            return None;
        }
        let max = if role == Role::Message {
            MAX_MESSAGE_BYTES
        } else {
            MAX_NAME_BYTES
        };
        if t.len() <= max {
            let last = &mut self.recent[role.index()];
            if let Some(sym) = *last
                && b.log.strings.is(sym, t)
            {
                return Some(sym);
            }
            let sym = b.intern(t);
            *last = Some(sym);
            return Some(sym);
        }
        let cut = cut_value(t, max);
        let reason = FieldWarning::TooLong {
            role: role.name().to_string(),
            bytes: t.len() as u64,
            kept: max as u64,
            cut: shorten(&cut),
        };
        b.warn(&self.info.name, line, reason);
        Some(b.intern(&cut))
    }

    /// Reads one record: pushes an event, or counts it as skipped or warned.
    /// When the file's records are envelopes, the application's record is
    /// taken out of the payload field first (`payload.rs`).
    pub fn record(&mut self, b: &mut LogBuilder, line: u64, rec: &Record<'_>) {
        if let (Some(slots), Record::Slots { vals, .. }) = (self.slot_of, rec) {
            return self.record_planned(b, line, rec, vals, &slots);
        }
        match self.fields.payload.take() {
            // A record framed out of a text line (Fluent Bit's
            // `TAG: [time, {"log": "..."}]`) still holds the payload field
            // detection read through; one already taken out of its
            // envelope has it hidden, and `with_inner` hands it over as is.
            Some(field) if !matches!(rec, Record::Slots { .. }) => {
                let read = read_inner(rec, &field, &mut |r| self.record_of_kind(b, line, r));
                if let Err(e) = read {
                    let (error, column) = json_error_parts(&e);
                    let field = field.clone();
                    self.bad(
                        b,
                        line,
                        RecordWarning::PayloadJson {
                            field,
                            error,
                            column,
                        },
                    );
                }
                self.fields.payload = Some(field);
            }
            other => {
                self.fields.payload = other;
                self.record_of_kind(b, line, rec);
            }
        }
    }

    /// Reads one record with the fields picked for its kind
    /// ([`crate::ingest::roles::fields::RecordKind`]) when the file's kinds were picked
    /// apart (a file mixing JSON and text payloads).
    fn record_of_kind(&mut self, b: &mut LogBuilder, line: u64, rec: &Record<'_>) {
        if self.fields.others.is_empty() {
            return self.record_one(b, line, rec);
        }
        let kind = RecordKind::of(rec);
        let Some(i) = self.fields.other_for(kind) else {
            return self.record_one(b, line, rec);
        };
        // The kind's picks in place of the file's for this record; the
        // event-name cache holds for the file's own picks only when both
        // read events the same way.
        let mut others = std::mem::take(&mut self.fields.others);
        let same_events = others[i].event_from_message == self.fields.event_from_message;
        std::mem::swap(&mut self.fields, &mut others[i]);
        self.cache_on = same_events;
        self.record_one(b, line, rec);
        self.cache_on = true;
        std::mem::swap(&mut self.fields, &mut others[i]);
        self.fields.others = others;
    }

    /// Reads one record with the file's picks: its time, then its event
    /// kind (a line of no kind that names a key and a holder is an
    /// [`EventKind::Activity`], any other is skipped), then the event's
    /// fields.
    fn record_one(&mut self, b: &mut LogBuilder, line: u64, rec: &Record<'_>) {
        let Some((at_ns, origin)) = self.time_of(b, line, rec) else {
            return;
        };
        let (kind, wrote) = self.kind_of(rec);
        let failed = self.failed(rec);
        let kind = kind.and_then(|k| if failed { failed_form(k) } else { Some(k) });
        let key = self.sym(b, line, rec, Role::Key);
        let holder = self.sym(b, line, rec, Role::Holder);
        let Some(mut e) = self.event_or_skip(b, (line, rec, at_ns), (kind, wrote), [key, holder])
        else {
            return;
        };
        e.host = self.sym(b, line, rec, Role::Host);
        e.thread = self.sym(b, line, rec, Role::Thread);
        if let Some(v) = self.get(rec, Role::Ttl) {
            self.set_ttl(&mut e, &v, at_ns);
        }
        self.detail(b, line, rec, &mut e);
        self.pushed(b, e, origin);
    }

    /// [`Collector::record_one`] of a flat JSON line by the file's plan:
    /// each role's value read from its slot (`slots`, into `vals`), the time
    /// through the memo, names through the role's last one. A value the
    /// plan does not read itself (a time in another layout, a number as a
    /// name) takes the general step; the event is the same either way.
    fn record_planned(
        &mut self,
        b: &mut LogBuilder,
        line: u64,
        rec: &Record<'_>,
        vals: &[Option<FieldValue<'_>>],
        slots: &[u8; Role::ALL.len()],
    ) {
        let at = |role: Role| {
            vals.get(usize::from(slots[role.index()]))
                .and_then(Option::as_ref)
        };
        let memo_hit = at(Role::Time).and_then(|t| self.memo_time(t));
        let Some((at_ns, origin)) = memo_hit.or_else(|| self.time_of(b, line, rec)) else {
            return;
        };
        let (kind, wrote) = self.kind_of_value(at(self.fields.event_role()));
        let failed = at(Role::Outcome).is_some_and(|v| outcome_of(&v.text()) == Some(false));
        let kind = kind.and_then(|k| if failed { failed_form(k) } else { Some(k) });
        let key = self.planned_sym(b, line, rec, Role::Key, at(Role::Key));
        let holder = self.planned_sym(b, line, rec, Role::Holder, at(Role::Holder));
        let Some(mut e) = self.event_or_skip(b, (line, rec, at_ns), (kind, wrote), [key, holder])
        else {
            return;
        };
        e.host = self.planned_sym(b, line, rec, Role::Host, at(Role::Host));
        e.thread = self.planned_sym(b, line, rec, Role::Thread, at(Role::Thread));
        if let Some(v) = at(Role::Ttl) {
            self.set_ttl(&mut e, v, at_ns);
        }
        let syms = [Role::Product, Role::OrderId, Role::Message]
            .map(|r| self.planned_sym(b, line, rec, r, at(r)));
        set_detail(&mut e, |r| at(r).cloned(), syms, failed);
        self.pushed(b, e, origin);
    }

    /// The event of a line read at `at_ns` whose kind is `kind` (`wrote`:
    /// its name of no kind says it wrote), naming `key` and `holder`: a line
    /// of no kind that names both is an [`EventKind::Activity`]; any other
    /// is counted as skipped (and read for evidence), `None`.
    fn event_or_skip(
        &mut self,
        b: &mut LogBuilder,
        (line, rec, at_ns): (u64, &Record<'_>, i64),
        (kind, wrote): (Option<EventKind>, bool),
        [key, holder]: [Option<crate::model::Sym>; 2],
    ) -> Option<Event> {
        let kind = match kind {
            Some(k) => k,
            None if key.is_some() && holder.is_some() => EventKind::Activity,
            None => {
                self.info.lines_read += 1;
                self.info.lines_skipped += 1;
                self.evidence_of(b, line, rec, at_ns);
                return None;
            }
        };
        let source = SourceRef {
            file: self.file,
            line: u32::try_from(line).unwrap_or(u32::MAX),
        };
        let mut e = Event::new(at_ns, kind, source);
        e.set_says_it_wrote(kind == EventKind::Activity && wrote);
        e.key = key;
        e.holder = holder;
        Some(e)
    }

    /// The time of `tv` read by the memo of the last minute learned
    /// ([`TimeMemo::read`]), counted; `None` when it is no text of that
    /// minute and layout.
    fn memo_time(&mut self, tv: &FieldValue<'_>) -> Option<(i64, TimeOrigin)> {
        let FieldValue::Str(t) = tv else {
            return None;
        };
        let hit = self.memo.read(t)?;
        self.memo_hits += 1;
        Some(hit)
    }

    /// Sets the TTL of `e` (read at `at_ns`) from the TTL field's value `v`
    /// ([`ttl_of`] in the field's unit): kept when over 0 and under 9e15
    /// ms.
    fn set_ttl(&self, e: &mut Event, v: &FieldValue<'_>, at_ns: i64) {
        let Some(unit) = self.fields.get(Role::Ttl).map(|p| p.unit) else {
            return;
        };
        let ms = ttl_of(v, unit, at_ns, self.tz);
        e.set_ttl_ms(
            ms.filter(|m| *m > 0.0 && *m < 9.0e15)
                .map(|m| m.round() as i64),
        );
    }

    /// [`Collector::sym`] of the value `v` of `role` read from its slot:
    /// text through [`Collector::sym_of`], anything else (a number) by the
    /// general step.
    fn planned_sym(
        &mut self,
        b: &mut LogBuilder,
        line: u64,
        rec: &Record<'_>,
        role: Role,
        v: Option<&FieldValue<'_>>,
    ) -> Option<crate::model::Sym> {
        match v? {
            FieldValue::Str(s) => self.sym_of(b, line, role, trim(s)),
            _ => self.sym(b, line, rec, role),
        }
    }

    /// Adds the event `e` read at a time anchored by `origin`, and counts
    /// its line.
    fn pushed(&mut self, b: &mut LogBuilder, e: Event, origin: TimeOrigin) {
        match origin {
            TimeOrigin::Explicit(off) => b.saw_offset(off),
            TimeOrigin::Naive(_) => self.naive_seen = true,
            TimeOrigin::Epoch => {}
        }
        b.push(e);
        self.info.lines_read += 1;
        self.info.events_loaded += 1;
    }

    /// A line of the application's own that is no lock or business event
    /// but says, in the infrastructure's words (`vocabulary/infra.rs`),
    /// that the process paused for a stated length (`long GC pause 11800
    /// ms`: the pause ends at the line's time) or that the server failed
    /// over, restarted, was flushed or evicted keys: an evidence item, tied
    /// to the holds by the line's host like any other.
    fn evidence_of(&mut self, b: &mut LogBuilder, line: u64, rec: &Record<'_>, at_ns: i64) {
        let text = match (self.get(rec, Role::Message), self.get(rec, Role::Event)) {
            (Some(m), Some(e)) => std::borrow::Cow::Owned(format!("{} {}", m.text(), e.text())),
            (Some(v), None) | (None, Some(v)) => v.text(),
            (None, None) => return,
        };
        if text.is_empty() {
            return;
        }
        let kind = match self.infra.get(text.as_ref()) {
            Some(k) => *k,
            None => {
                let k = infra_kind_of(&text);
                if self.infra.len() < KIND_CACHE {
                    self.infra.insert(text.as_ref().into(), k);
                }
                k
            }
        };
        let Some(kind) = kind else {
            return;
        };
        let (at_ns, end_ns) = match (kind.is_stall(), length_ms(&text)) {
            (true, Some(ms)) if ms > 0.0 => (at_ns - (ms * 1e6) as i64, Some(at_ns)),
            (true, _) => return,
            (false, _) if kind.loses_keys() => (at_ns, None),
            (false, _) => return,
        };
        let host = self
            .get(rec, Role::Host)
            .map(|v| v.text().into_owned())
            .filter(|h| !h.is_empty());
        b.log.evidence.push(Evidence {
            at_ns,
            end_ns,
            kind,
            origin: EvidenceOrigin::Application,
            host,
            process: None,
            what: text.chars().take(160).collect(),
            source: SourceRef {
                file: self.file,
                line: u32::try_from(line).unwrap_or(u32::MAX),
            },
        });
        self.info.evidence_items += 1;
    }

    /// The record's time (ns) and how it was anchored to UTC. `None`, the
    /// line counted as warned with the reason, when the file has no time
    /// field, the record has no time, or its time cannot be read.
    fn time_of(
        &mut self,
        b: &mut LogBuilder,
        line: u64,
        rec: &Record<'_>,
    ) -> Option<(i64, TimeOrigin)> {
        let Some(tpick) = self.fields.get(Role::Time) else {
            self.bad(b, line, FieldWarning::NoTimeField);
            return None;
        };
        let Some(tv) = self.get(rec, Role::Time) else {
            let field = tpick.field.clone();
            self.bad(b, line, FieldWarning::NoTime { field });
            return None;
        };
        let memo_on = self.plan.is_some();
        if memo_on && let Some(hit) = self.memo_time(&tv) {
            return Some(hit);
        }
        let parsed = match &tv {
            FieldValue::Date { date, tz } => {
                let zone = tz.and_then(|z| parse_tz(z).ok());
                parse_time_detail(date, zone.as_ref().or(self.tz)).map(|(ns, o)| match (o, zone) {
                    (TimeOrigin::Naive(off), Some(_)) => (ns, TimeOrigin::Explicit(off)),
                    other => (ns, other.0),
                })
            }
            FieldValue::Bool(_) => Err(TimeError::Unrecognised),
            other => {
                let text = other.text();
                match self.anchored_time_of_day(rec, &text) {
                    Some(p) => Ok(p),
                    None => self.parse_text_time(&text),
                }
            }
        };
        match parsed {
            Ok(p) => {
                if memo_on && let FieldValue::Str(t) = &tv {
                    self.memo.learn(t, p, self.tz);
                    if self.first_layout.is_none() {
                        self.first_layout = self.memo.layout();
                    }
                }
                Some(p)
            }
            Err(e) => {
                self.unreadable_time(b, line, &tv.text(), e);
                None
            }
        }
    }

    /// A time of day (`07:06:55.000`, a found structure's `T07:06:55.000`)
    /// of an application record inside an envelope whose own time is full
    /// (the time field's fallback: a shipper's `@timestamp`), on the day
    /// that puts it nearest the envelope's time: the application's clock to
    /// the millisecond, the shipper's for the day. Said once in a note.
    /// `None` (the other ways apply) for any other time, without an
    /// envelope time, or when the mapping gives a date.
    fn anchored_time_of_day(&mut self, rec: &Record<'_>, text: &str) -> Option<(i64, TimeOrigin)> {
        const DAY_NS: i64 = 86_400 * 1_000_000_000;
        let outer = self.fields.fallback(Role::Time)?.value(rec)?;
        if self.mapping.is_some_and(|m| m.date.is_some()) {
            return None;
        }
        let t = text.trim();
        let clock = t.strip_prefix('T').unwrap_or(t);
        if !time_len(clock).is_some_and(|(n, only)| only && n == clock.len()) {
            return None;
        }
        let (anchor, anchor_origin) = match &outer {
            FieldValue::Date { date, .. } => parse_time_detail(date, None).ok()?,
            FieldValue::Bool(_) => return None,
            v => parse_time_detail(&v.text(), None).ok()?,
        };
        // An envelope time in a local offset (journald's short-iso, a
        // syslog header) is the host's zone: the clock is read in it. A UTC
        // one (a shipper's `Z`) says nothing of the application's zone.
        let local = match anchor_origin {
            TimeOrigin::Explicit(off) if off != 0 && self.tz.is_none() => Some(off),
            _ => None,
        };
        let off_ns = i64::from(local.unwrap_or(0)) * 1_000_000_000;
        let day = chrono::DateTime::from_timestamp_nanos(anchor + off_ns).date_naive();
        let text = format!("{} {clock}", day.format("%Y-%m-%d"));
        let (mut ns, origin) = match local {
            Some(off) => (
                parse_time_detail(&text, None).ok()?.0 - off_ns,
                TimeOrigin::Explicit(off),
            ),
            None => parse_time_detail(&text, self.tz).ok()?,
        };
        while ns - anchor > DAY_NS / 2 {
            ns -= DAY_NS;
        }
        while anchor - ns > DAY_NS / 2 {
            ns += DAY_NS;
        }
        if !self.date_noted {
            self.date_noted = true;
            let date = chrono::DateTime::from_timestamp_nanos(ns + off_ns).date_naive();
            self.info.notes.push(SourceNote::DateSupplied {
                value: date.format("%Y-%m-%d").to_string(),
                year_only: false,
                from: DateFrom::Envelope,
            });
        }
        Some((ns, origin))
    }

    /// Counts the line as warned: its time `text` could not be read (`e`),
    /// with a hint when it is a time of day without a date.
    fn unreadable_time(&mut self, b: &mut LogBuilder, line: u64, text: &str, e: TimeError) {
        let time_of_day = time_len(text.trim()).is_some_and(|(_, only)| only);
        let field = self
            .fields
            .get(Role::Time)
            .map_or("?", |p| p.field.as_str());
        let reason = FieldWarning::UnreadableTime {
            text: shorten(text),
            field: field.to_string(),
            error: e,
            time_of_day,
        };
        self.info.times_unreadable += 1;
        self.info.times_of_day += u64::from(time_of_day);
        self.bad(b, line, reason);
    }

    /// The record's event kind, from the event field (or the message's
    /// words when the file reads events from its message), through the
    /// per-file cache of names; and whether a name of no known kind says
    /// the line wrote something ([`says_it_wrote`]).
    fn kind_of(&mut self, rec: &Record<'_>) -> (Option<EventKind>, bool) {
        let ev = if let Record::Slots { .. } = rec {
            self.get(rec, self.fields.event_role())
        } else {
            self.fields.event().and_then(|ep| ep.value(rec))
        };
        self.kind_of_value(ev.as_ref())
    }

    /// [`Collector::kind_of`] of the event field's value `ev`.
    fn kind_of_value(&mut self, ev: Option<&FieldValue<'_>>) -> (Option<EventKind>, bool) {
        let Some(ev) = ev else {
            return (None, false);
        };
        let raw = ev.text();
        if self.cache_on
            && let Some(k) = self.kinds.get(raw.as_ref())
        {
            return *k;
        }
        let names = self
            .fields
            .events
            .as_ref()
            .or(self.mapping.map(|m| &m.events));
        let mut k = event_kind(&raw, names, &mut self.buf);
        if k.is_none() && self.fields.event_from_message {
            // A sentence: its words name the event.
            k = message_event(&raw).and_then(|name| event_kind(name, None, &mut self.buf));
        }
        // Only a line of no known kind can become an Activity.
        let found = (k, k.is_none() && says_it_wrote(&raw));
        if self.cache_on && self.kinds.len() < KIND_CACHE {
            self.kinds.insert(raw.as_ref().into(), found);
        }
        found
    }

    /// Whether the record's outcome field ([`Role::Outcome`]) says its
    /// step failed ([`outcome_of`]).
    fn failed(&self, rec: &Record<'_>) -> bool {
        self.get(rec, Role::Outcome)
            .is_some_and(|v| outcome_of(&v.text()) == Some(false))
    }

    /// A time written as text: the mapping's `time_format` first, a time of
    /// day completed with a date ([`Collector::date_of_day`]), a month and
    /// day with a year ([`Collector::with_year`], [`Collector::year_of_day`]),
    /// then the built-in formats.
    fn parse_text_time(&mut self, text: &str) -> Result<(i64, TimeOrigin), TimeError> {
        let dated;
        // A found structure's time of day (`T07:06:55.000`, ISO 8601's
        // truncated form) is a time of day.
        let mut text = match trim(text).strip_prefix('T') {
            Some(t) if is_time_of_day(t) => t,
            _ => text,
        };
        let with_year;
        if let Some(t) = self.with_year(text).or_else(|| self.year_of_day(text)) {
            with_year = t;
            text = &with_year;
        }
        let mut of_day = false;
        if is_time_of_day(trim(text)) {
            dated = format!("{} {}", self.date_of_day(), trim(text));
            text = &dated;
            of_day = true;
        }
        if let Some(m) = self.mapping
            && let Some(f) = &m.time_format
            && let Ok(p) = parse_with_format(text, f, self.tz)
        {
            return Ok(self.advance_at_midnight(p, of_day));
        }
        parse_time_detail(text, self.tz).map(|p| self.advance_at_midnight(p, of_day))
    }

    /// The date of a time of day ([`DateHints::date`]): the mapping's
    /// `date`, else the file name's, a dated line's or today's, said once
    /// in a note ([`SourceNote::DateSupplied`]).
    fn date_of_day(&mut self) -> chrono::NaiveDate {
        let (date, from) = self.dates.date();
        if from != DateFrom::Mapping && !self.date_noted {
            self.date_noted = true;
            self.info.notes.push(SourceNote::DateSupplied {
                value: date.format("%Y-%m-%d").to_string(),
                year_only: false,
                from,
            });
        }
        date
    }

    /// A month and day without a year (`--MM-dd HH:mm:ss`, ISO 8601's
    /// truncated form, as the structure finder writes glog's, logcat's and
    /// go-ethereum's times) with one ([`DateHints::year`]), advanced at
    /// each new year (the month going back by more than six; a late line
    /// from before it keeps its own year, [`late_line_year`]); said in a
    /// note. `None` for any other time.
    fn year_of_day(&mut self, text: &str) -> Option<String> {
        let rest = trim(text).strip_prefix("--")?;
        let month: u32 = rest.get(..2)?.parse().ok()?;
        let rest = rest.get(3..)?;
        if let Some(y) = late_line_year(self.year_of_day, month) {
            return Some(format!("{y}-{month:02}-{rest}"));
        }
        let year = match self.year_of_day {
            Some((y, last)) if month + 6 < last => y + 1,
            Some((y, _)) => y,
            None => {
                let (year, from) = self.dates.year(month, rest);
                self.info.notes.push(SourceNote::DateSupplied {
                    value: year.to_string(),
                    year_only: true,
                    from,
                });
                year
            }
        };
        self.year_of_day = Some((year, month));
        Some(format!("{year}-{month:02}-{rest}"))
    }

    /// An RFC 3164 time (`Nov 11 00:00:01`, rsyslog's file default), which
    /// has no year, with one ([`DateHints::year`]): the mapping's `date`'s
    /// year, else the file name's, else the first dated line's (a file
    /// mixing syslog lines with an application's dated ones), else this
    /// year (or last year when that puts the time more than a day ahead of now),
    /// then advanced at each new year (the month going back by more than
    /// six); a late line from before the new year keeps its own year
    /// ([`late_line_year`]). Said in a note ([`SourceNote::YearAssumed`]).
    /// `None` for any other time.
    fn with_year(&mut self, text: &str) -> Option<String> {
        let (month, rest) = rfc3164_parts(text)?;
        if let Some(y) = late_line_year(self.year, month) {
            return Some(format!("{y}-{month:02}-{rest}"));
        }
        let (year, from) = match self.year {
            Some((y, last)) if month + 6 < last => (y + 1, None),
            Some((y, _)) => (y, None),
            None => {
                let (y, from) = self.dates.year(month, &rest);
                (y, Some(from))
            }
        };
        match from {
            // A dated line or the file's name gave the year: said once.
            Some(from @ (DateFrom::DatedLine | DateFrom::FileName)) => {
                self.info.notes.push(SourceNote::DateSupplied {
                    value: year.to_string(),
                    year_only: true,
                    from,
                });
            }
            _ if self.year.is_none_or(|(y, _)| y != year)
                && !self.info.notes.iter().any(|n| {
                    matches!(
                        n,
                        SourceNote::DateSupplied {
                            year_only: true,
                            ..
                        }
                    )
                }) =>
            {
                self.info
                    .notes
                    .retain(|n| !matches!(n, SourceNote::YearAssumed { .. }));
                self.info.notes.push(SourceNote::YearAssumed {
                    year,
                    given: self.mapping.is_some_and(|m| m.date.is_some()),
                });
            }
            _ => {}
        }
        self.year = Some((year, month));
        Some(format!("{year}-{month:02}-{rest}"))
    }

    /// A time of day dated with the mapping's `date`, moved to the day it
    /// belongs to: the date advances when the time of day goes back by more
    /// than 12 h (past midnight; a log is in time order within seconds, not
    /// hours), and a line a little before the last midnight stays on the
    /// day before (with the first date on every line, a hold across
    /// midnight would run backwards). Counted for the source note.
    fn advance_at_midnight(
        &mut self,
        (ns, o): (i64, TimeOrigin),
        of_day: bool,
    ) -> (i64, TimeOrigin) {
        const DAY_NS: i64 = 86_400 * 1_000_000_000;
        const HALF_DAY_NS: i64 = DAY_NS / 2;
        if !of_day {
            return (ns, o);
        }
        let (last, days) = &mut self.day;
        let mut at = ns.saturating_add(*days * DAY_NS);
        if let Some(prev) = *last {
            if at < prev - HALF_DAY_NS {
                *days += 1;
                at = at.saturating_add(DAY_NS);
                self.info
                    .notes
                    .retain(|n| !matches!(n, SourceNote::DateAdvanced { .. }));
                self.info
                    .notes
                    .push(SourceNote::DateAdvanced { days: *days });
            } else if at > prev + HALF_DAY_NS && *days > 0 {
                return (at - DAY_NS, o);
            }
        }
        *last = Some(at);
        (at, o)
    }

    /// Business, release and message fields; the box is only made when one
    /// of them is present.
    fn detail(&mut self, b: &mut LogBuilder, line: u64, rec: &Record<'_>, e: &mut Event) {
        let product = self.sym(b, line, rec, Role::Product);
        let order_id = self.sym(b, line, rec, Role::OrderId);
        let message = self.sym(b, line, rec, Role::Message);
        let failed = e.kind == EventKind::Released && self.failed(rec);
        let get = |role| self.get(rec, role);
        set_detail(e, get, [product, order_id, message], failed);
    }
}

/// Sets the business, release and message fields of `e` from its line's
/// values (`get`), with the product, order id and message already interned
/// (`syms`) and whether the outcome field said the step failed. A line of
/// none of them keeps the new event's empty detail (packing it again would
/// give the same).
fn set_detail<'a>(
    e: &mut Event,
    get: impl Fn(Role) -> Option<FieldValue<'a>>,
    [product, order_id, message]: [Option<crate::model::Sym>; 3],
    failed: bool,
) {
    let int = |role| get(role).and_then(|v: FieldValue<'_>| v.as_i64());
    let release = matches!(e.kind, EventKind::Released | EventKind::ReleaseFailed);
    let d = crate::model::Detail {
        product,
        quantity: int(Role::Quantity),
        stock: int(Role::Stock),
        stock_before: int(Role::StockBefore),
        stock_after: int(Role::StockAfter),
        order_id,
        unit_price: get(Role::UnitPrice).and_then(|v| v.as_f64()),
        fencing_token: int(Role::Fencing),
        elapsed_ms: if release {
            get(Role::Elapsed).and_then(|v| duration_ms(&v, Unit::Ms))
        } else {
            None
        },
        // A release whose outcome field says it failed deleted nothing,
        // unless its `deleted` field says otherwise.
        deleted: if release {
            get(Role::Deleted)
                .and_then(|v| v.as_bool())
                .or_else(|| (e.kind == EventKind::Released && failed).then_some(false))
        } else {
            None
        },
        message,
    };
    if d != crate::model::Detail::default() || e.has_detail() {
        e.set_detail(d);
    }
}

/// A step's kind when its outcome field says it failed: an acquire is a
/// failed acquire; a renewal renewed nothing (`None`: like a renewal whose
/// words say it failed, [`crate::ingest::vocabulary::failure::negated`], it
/// is no renewal, and a line with a key and a holder is then activity); a
/// release stays a release that deleted nothing (its `deleted` set false, as
/// a `deleted` field of false does, in [`Collector::detail`]); an order or a deduction
/// that failed is no sale, a refused write. Other kinds are kept.
pub(crate) fn failed_form(kind: EventKind) -> Option<EventKind> {
    match kind {
        EventKind::Acquired => Some(EventKind::AcquireFailed),
        EventKind::Renewed => None,
        EventKind::OrderCreated | EventKind::StockDeducted => Some(EventKind::WriteRejected),
        k => Some(k),
    }
}

/// True when an event name says the line wrote something (`db_write`,
/// `record.saved`, `RowUpdated`, `已写入`): one of its words, split at
/// `_`, `-`, `.`, `:`, `/`, spaces and lower-to-upper steps, is a write
/// verb. Such a line, of no known kind, is a business write for the
/// fencing rule ([`crate::model::Event::says_it_wrote`]); lock words
/// (`refreshed`, `released`) are not write verbs.
pub(crate) fn says_it_wrote(raw: &str) -> bool {
    const VERBS: &[&str] = &[
        "write",
        "writes",
        "wrote",
        "written",
        "writing",
        "save",
        "saved",
        "store",
        "stored",
        "persist",
        "persisted",
        "commit",
        "committed",
        "insert",
        "inserted",
        "update",
        "updated",
        "upsert",
        "upserted",
        "put",
    ];
    if ["写入", "已写", "保存", "更新"]
        .iter()
        .any(|w| raw.contains(w))
    {
        return true;
    }
    let mut word = String::new();
    let mut prev_lower = false;
    let mut found = false;
    let mut end_word = |word: &mut String| {
        found |= VERBS.contains(&word.as_str());
        word.clear();
    };
    for c in raw.chars() {
        if !c.is_ascii_alphanumeric() || (c.is_ascii_uppercase() && prev_lower) {
            end_word(&mut word);
        }
        prev_lower = c.is_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
        }
    }
    end_word(&mut word);
    found
}

/// The year of a line whose `month` is more than six after the last
/// line's (a December line after January's): a late line from the year
/// before, read in that year and leaving the running year (`state`: the
/// year and the last line's month) as it was, so a line a second late
/// across a new year never moves the clock a year. `None` for any other
/// line.
fn late_line_year(state: Option<(i32, u32)>, month: u32) -> Option<i32> {
    let (year, last) = state?;
    (last + 6 < month).then(|| year - 1)
}

/// True for a time of day alone (`10:00:00.100`, [`time_len`]'s second
/// value), told from a date's start by its third byte first: every time
/// read asks, and most are dates.
fn is_time_of_day(s: &str) -> bool {
    s.as_bytes().get(2) == Some(&b':') && time_len(s).is_some_and(|(_, only)| only)
}

#[cfg(test)]
mod write_word_tests {
    use super::says_it_wrote;

    #[test]
    fn write_verbs_say_a_line_wrote_and_lock_words_do_not() {
        for w in [
            "db_write",
            "record.saved",
            "RowUpdated",
            "storage write",
            "已写入",
            "put",
        ] {
            assert!(says_it_wrote(w), "{w}");
        }
        for n in [
            "refreshed",
            "released",
            "lock.refresh",
            "prolonged",
            "rewrite_check",
            "output",
        ] {
            assert!(!says_it_wrote(n), "{n}");
        }
    }
}

//! Which field plays which role (time, lock key, holder, ...): the
//! per-file detection that counts candidate fields over the first records
//! and picks one field per role. The words it reads by live in
//! `vocabulary/` (field names in `names.rs`, event names in `events.rs`).

use std::collections::{HashMap, HashSet};

use crate::model::SourceNote;

use crate::ingest::records::record::{FieldValue, Record, Scope};
use crate::ingest::roles::mapping::Mapping;
use crate::ingest::vocabulary::events::event_kind;
use crate::ingest::vocabulary::names::{guessed_ttl, normalize_key, roles_of};
use crate::ingest::vocabulary::roles::{Role, Unit};

/// The field chosen for a role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pick {
    /// Field name / dotted path as it appears in the records.
    pub field: String,
    /// Unit (TTL only).
    pub unit: Unit,
    /// Where the field is looked up in a nested record.
    pub scope: Scope,
}

impl Pick {
    /// The field's value in `rec`.
    pub fn value<'a>(&self, rec: &Record<'a>) -> Option<FieldValue<'a>> {
        rec.get_in(&self.field, self.scope)
    }
}

/// The fields chosen for one file.
#[derive(Clone, Debug, Default)]
pub(crate) struct Fields {
    picks: [Option<Pick>; 19],
    /// For time, host and thread: the envelope's field, used on records whose
    /// application part lacks the chosen one.
    fallback: [Option<Pick>; 19],
    /// True when no event field exists and `msg`/`message` is read as the event.
    pub event_from_message: bool,
    /// The string field holding the application's own record, when the
    /// records are envelopes (SLS `content`, Filebeat `message`...).
    pub payload: Option<String>,
    /// The resolution of the chosen time field's values, in ns (1e9 for whole
    /// seconds), from the records detection saw.
    pub time_resolution_ns: Option<i64>,
    /// When an envelope file's records are of several kinds (JSON payloads,
    /// text payloads, records without a payload), the kind these picks were
    /// made for (the most frequent), and the picks made for each other kind
    /// on its own records (one pick per role for the whole file would drop
    /// the other kind's holders and TTLs without a word).
    pub kind: Option<RecordKind>,
    /// The picks of the other kinds, each made from its own records.
    pub others: Vec<Fields>,
    /// Event names chosen by the protocol (`protocol/`), with the mapping's
    /// over them: read before the vocabulary.
    pub events: Option<crate::ingest::vocabulary::events::EventNames>,
}

/// What a record read through its file's payload field is: the kinds whose
/// fields are picked apart when a file mixes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RecordKind {
    /// An envelope whose payload field holds no record (or a file without a
    /// payload field): its own fields are the record.
    Whole,
    /// An envelope whose payload is a JSON object (a JSON logger), possibly
    /// behind a text prefix.
    Json,
    /// An envelope whose payload is a text line (a text layout's pairs).
    Text,
}

impl RecordKind {
    /// Every kind, in detection's order.
    pub const ALL: [RecordKind; 3] = [RecordKind::Whole, RecordKind::Json, RecordKind::Text];

    /// The kind of `rec` as the collector sees it (after
    /// `readers::inner::with_inner`): a record nested in its envelope's payload
    /// field (`skip` names it) is a JSON or a text payload by its inner part.
    pub fn of(rec: &Record<'_>) -> RecordKind {
        match rec {
            Record::Nested { inner, skip, .. } if !skip.is_empty() => match inner {
                Record::Pairs(_) => RecordKind::Text,
                Record::Nested {
                    inner: Record::Pairs(_),
                    ..
                } => RecordKind::Text,
                _ => RecordKind::Json,
            },
            _ => RecordKind::Whole,
        }
    }

    /// The kind's words for notes: `JSON payloads`, `text payloads`,
    /// `records without a payload`.
    pub fn name(self) -> &'static str {
        match self {
            RecordKind::Whole => "records without a payload",
            RecordKind::Json => "JSON payloads",
            RecordKind::Text => "text payloads",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl Fields {
    /// Leaves `role` without a field.
    pub fn clear(&mut self, role: Role) {
        self.picks[role.index()] = None;
        self.fallback[role.index()] = None;
    }

    /// Gives `role` the field `pick` (a role the protocol found after the
    /// names had been resolved).
    pub fn set(&mut self, role: Role, pick: Pick) {
        self.picks[role.index()] = Some(pick);
    }

    /// The field for `role`.
    pub fn get(&self, role: Role) -> Option<&Pick> {
        self.picks[role.index()].as_ref()
    }

    /// The envelope's field for `role`, tried when the chosen one is absent.
    pub fn fallback(&self, role: Role) -> Option<&Pick> {
        self.fallback[role.index()].as_ref()
    }

    /// The value for `role` in `rec`: the chosen field, else the fallback.
    pub fn value<'a>(&self, rec: &Record<'a>, role: Role) -> Option<FieldValue<'a>> {
        self.get(role)
            .and_then(|p| p.value(rec))
            .or_else(|| self.fallback(role).and_then(|p| p.value(rec)))
    }

    /// The index in [`Fields::others`] of the picks for records of `kind`,
    /// `None` when these picks are theirs (or the file's kinds are not
    /// picked apart).
    pub fn other_for(&self, kind: RecordKind) -> Option<usize> {
        if self.kind == Some(kind) {
            return None;
        }
        self.others.iter().position(|f| f.kind == Some(kind))
    }

    /// The event field (or the message field when there is no event field).
    pub fn event(&self) -> Option<&Pick> {
        self.get(self.event_role())
    }

    /// The role whose field names the event: the message when no event
    /// field exists and its words are read ([`Fields::event_from_message`]).
    pub fn event_role(&self) -> Role {
        if self.event_from_message {
            Role::Message
        } else {
            Role::Event
        }
    }

    /// (role, field) pairs for `SourceInfo::fields`.
    pub fn listing(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for role in Role::ALL {
            if let Some(p) = self.get(role) {
                let name = match (role, p.unit) {
                    (Role::Ttl, Unit::S) => "ttl_s".to_string(),
                    (Role::Ttl, Unit::Ns) => "ttl_ns".to_string(),
                    _ => role.name().to_string(),
                };
                out.push((name, p.field.clone()));
            }
        }
        if self.event_from_message
            && let Some(p) = self.get(Role::Message)
        {
            out.push(("event".into(), p.field.clone()));
        }
        out
    }
}

/// The first segment of a dotted path with at least two; `None` for a
/// top-level name.
/// The segments of the object holding `field` (`a.b` of `a.b.c`).
fn parent_segments(field: &str) -> impl Iterator<Item = &str> {
    let parent = field.rsplit_once('.').map_or("", |(p, _)| p);
    parent.split('.').filter(|s| !s.is_empty())
}

/// How many leading segments of the object holding `field` are those of
/// `app`: the deeper a time sits inside the application's record, the more
/// surely it is the application's own.
fn shared_depth(field: &str, app: &[String]) -> usize {
    parent_segments(field)
        .zip(app)
        .take_while(|(a, b)| a == b)
        .count()
}

/// The resolution of a time without its date or year (a found
/// structure's `--MM-dd HH:mm:ss.SSS` and `THH:mm:ss.SSS`, a text layout's
/// bare `HH:mm:ss.SSS`; the date is supplied when the record becomes an
/// event): 10^(9 - d) ns for `d` fraction digits. `None` for any other
/// text.
fn undated_resolution(v: &str) -> Option<i64> {
    let v = v.trim();
    let bare = crate::ingest::roles::time::is_clock(v);
    let clock = v
        .strip_prefix("--")
        .or_else(|| v.strip_prefix('T'))
        .or(bare.then_some(v))?;
    if !clock.contains(':') {
        return None;
    }
    let digits = clock
        .rsplit_once('.')
        .map_or(0, |(_, f)| f.bytes().take_while(u8::is_ascii_digit).count())
        .min(9);
    Some(10i64.pow(9 - digits as u32))
}

/// Rank of a candidate found by its values, not its name: after every
/// name (roles by name, then by values).
const VALUE_RANK: u32 = 300;

/// The counts [`observe_by_value`] adds to.
struct ByValue<'a> {
    cands: &'a mut HashMap<(Role, String, bool), Candidate>,
    tokens: &'a mut HashMap<String, HashSet<u64>>,
    buf: &'a mut String,
    /// The roles still counted (past the window, only unseen ones).
    want: &'a dyn Fn(Role) -> bool,
}

/// Distinct values kept per token-like field.
const TOKEN_VALUES: usize = 4096;

/// True for a holder-like token: 16 to 40 characters of hex digits, `-`
/// and `:`, at least 16 of them hex digits and one a digit (a UUID, a
/// 32-hex id, redisson's `uuid:threadId`).
fn token_like(t: &str) -> bool {
    let hex = t.bytes().filter(u8::is_ascii_hexdigit).count();
    (16..=40).contains(&t.len())
        && hex >= 16
        && t.bytes().any(|c| c.is_ascii_digit())
        && t.bytes()
            .all(|c| c.is_ascii_hexdigit() || c == b'-' || c == b':')
}

/// A field whose name plays no role, judged by its value: a word that names
/// a lock or business event makes it an event candidate, a date-time text
/// a time candidate, a token a holder candidate (`kinds` counts the records
/// whose value did; for a holder, the records whose token an earlier record
/// had: the holder is the token that recurs across a hold's acquire,
/// renewals and release). Only the roles `by.want`
/// allows are counted; returns whether any was.
fn observe_by_value(by: ByValue<'_>, k: &str, text: &str, outer: bool) -> bool {
    let t = text.trim();
    if t.is_empty() || t.len() > 40 || t.contains(char::is_whitespace) {
        return false;
    }
    let event = event_kind(t, None, by.buf).is_some();
    let time = !event && t.contains('-') && t.contains(':');
    let parsed = time
        .then(|| crate::ingest::roles::time::parse_time_detail(t, None).ok())
        .flatten();
    let token = !event && parsed.is_none() && token_like(t);
    let recurs = token && {
        use std::hash::{BuildHasher, Hasher};
        let mut h = foldhash::fast::FixedState::with_seed(0x70c).build_hasher();
        h.write(t.as_bytes());
        let vals = by.tokens.entry(k.to_string()).or_default();
        let h = h.finish();
        vals.contains(&h) || {
            if vals.len() < TOKEN_VALUES {
                vals.insert(h);
            }
            false
        }
    };
    let mut counted = false;
    for (role, hit) in [
        (Role::Event, event),
        (Role::Time, parsed.is_some()),
        (Role::Holder, recurs),
    ] {
        if (role == Role::Time && !time) || (role == Role::Holder && !token) || !(by.want)(role) {
            continue;
        }
        counted = true;
        let c = by
            .cands
            .entry((role, k.to_string(), outer))
            .or_insert(Candidate::new(VALUE_RANK, Unit::Ms));
        c.seen += 1;
        if hit {
            c.kinds += 1;
        }
        if let Some((ns, _)) = parsed {
            c.resolution_ns = c.resolution_ns.min(resolution_of(ns));
        }
    }
    counted
}

/// What detection counted for one candidate field of one role.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    rank: u32,
    unit: Unit,
    /// Records seen with the field.
    seen: u32,
    /// Time candidates: the finest resolution of its values, in ns (1e9:
    /// whole seconds); `i64::MAX` until a value was read.
    resolution_ns: i64,
    /// Event candidates: records whose value names a lock or business
    /// event (a constant such as `type: "log"` names none).
    kinds: u32,
    /// TTL candidates: the largest bare number among their values (0 when
    /// none was positive); a duration with a unit (`3s`) is not counted.
    max_number: f64,
    /// TTL candidates: the smallest positive bare number among their values
    /// (`f64::MAX` when none).
    min_number: f64,
    /// TTL candidates: every positive bare number is a whole multiple of
    /// 10^6 (whole ms, if they are ns).
    whole_ms_as_ns: bool,
}

impl Candidate {
    /// A candidate not seen yet.
    fn new(rank: u32, unit: Unit) -> Candidate {
        Candidate {
            rank,
            unit,
            seen: 0,
            resolution_ns: i64::MAX,
            kinds: 0,
            max_number: 0.0,
            min_number: f64::MAX,
            whole_ms_as_ns: true,
        }
    }

    /// Counts a TTL candidate's bare number `n`.
    fn count_number(&mut self, n: f64) {
        self.max_number = self.max_number.max(n);
        if n > 0.0 {
            self.min_number = self.min_number.min(n);
            self.whole_ms_as_ns &= n % 1e6 == 0.0;
        }
    }

    /// Whether this TTL candidate, named without a unit, is read in
    /// nanoseconds by its values: every bare number is a whole number of ms
    /// written in ns, from [`NANOS_FROM`] (10 ms) and below 10^12 (past that
    /// an epoch in ms). Go writes a `time.Duration` as its nanoseconds
    /// (`slog.Duration("ttl", 2*time.Second)` -> `"ttl":2000000000` in the
    /// JSON handler, `encoding/json` likewise); as ms those are TTLs of days.
    fn ttl_in_nanos(&self, field: &str) -> bool {
        self.unit == Unit::Ms
            && self.max_number > 0.0
            && self.min_number >= NANOS_FROM
            && self.max_number < 1e12
            && self.whole_ms_as_ns
            && !ttl_name_has_ms(field)
    }

    /// Whether this TTL candidate, named without a unit (`ttl`, `expire`,
    /// a unit-less Chinese header), is read in seconds by its values: every
    /// bare number is under [`SECONDS_BELOW`]. A lock TTL of under 100 ms
    /// is not one a network lock can keep, and the runtimes that write a
    /// duration as a bare number of seconds do so by default (zap's
    /// production encoder, `zapcore.SecondsDurationEncoder`; redis-py's
    /// `Lock(timeout=10)` and python-redis-lock's `expire=60` are seconds).
    fn ttl_in_seconds(&self, field: &str) -> bool {
        self.unit == Unit::Ms
            && self.max_number > 0.0
            && self.max_number < SECONDS_BELOW
            && !ttl_name_has_ms(field)
    }
}

/// Below this, a unit-less TTL field's bare numbers are seconds
/// ([`Candidate::ttl_in_seconds`]).
const SECONDS_BELOW: f64 = 100.0;

/// From this on (10 ms in ns, 2.8 h in ms), a unit-less TTL field's bare
/// numbers may be nanoseconds ([`Candidate::ttl_in_nanos`]).
const NANOS_FROM: f64 = 1e7;

/// Whether a TTL field's name says milliseconds (`ttl_ms`, `leaseMillis`,
/// Redis's `px`, `过期时间(毫秒)`).
fn ttl_name_has_ms(field: &str) -> bool {
    let last = field.rsplit('.').next().unwrap_or(field);
    let n = normalize_key(last);
    n == "px"
        || n.contains("毫秒")
        || ["ms", "millis", "milliseconds", "msec", "msecs"]
            .iter()
            .any(|u| n.ends_with(u))
}

/// The resolution of one time value: 1e9 for whole seconds, 1e6 for ms,
/// 1e3 for µs, 1 for ns.
fn resolution_of(ns: i64) -> i64 {
    [1_000_000_000, 1_000_000, 1_000]
        .into_iter()
        .find(|r| ns % r == 0)
        .unwrap_or(1)
}

/// A resolution for the user: `s`, `ms`, `µs` or `ns`.
pub(crate) fn resolution_name(ns: i64) -> &'static str {
    match ns {
        1_000_000_000.. => "s",
        1_000_000.. => "ms",
        1_000.. => "µs",
        _ => "ns",
    }
}

/// Counts candidate fields over the first records of a file.
#[derive(Debug, Default)]
pub(crate) struct Detector {
    /// (role, field, from the envelope) -> what was counted
    cands: HashMap<(Role, String, bool), Candidate>,
    /// Field name -> its roles (memo).
    memo: HashMap<String, Vec<(Role, u32, Unit)>>,
    /// Records observed.
    pub records: u32,
    /// True when SLS-style `__time__` / `__tag__:` fields were seen.
    pub sls: bool,
    /// The envelope field holding the application's record (`payload.rs`).
    pub payload: Option<String>,
    /// Field names seen, in the order first seen (at most [`Detector::NAMES`]).
    pub names_seen: Vec<String>,
    /// With a payload field: the same counts per [`RecordKind`], each over
    /// its own records ([`Detector::observe_kind`]).
    kinds: Vec<Detector>,
    /// Shapes of late records that counted nothing ([`Detector::quiet_shape`]).
    quiet_shapes: HashSet<u64>,
    /// Token-like fields with no role by name: the hashes of their values
    /// (at most [`TOKEN_VALUES`] each), for the holder by recurrence.
    tokens: HashMap<String, HashSet<u64>>,
    /// The first records as text columns, for the roles by the protocol
    /// when the names leave them undecided (`protocol/`).
    pub sample: crate::ingest::roles::protocol::Sample,
}

impl Detector {
    /// Records whose fields decide the roles found in them.
    pub const WINDOW: u32 = 200;
    /// Records scanned for roles still missing after the window.
    pub const LATE_WINDOW: u32 = 20_000;
    /// Field names kept for [`Detector::names_seen`].
    pub const NAMES: usize = 40;

    /// Adds one record's fields. After [`Detector::WINDOW`] records only
    /// roles not yet seen are counted, by name or by value. Returns whether
    /// anything was counted (a late record that only repeats seen roles
    /// counts nothing; see [`Detector::quiet_shape`]).
    pub fn observe(&mut self, rec: &Record<'_>) -> bool {
        self.records += 1;
        let late = self.records > Self::WINDOW;
        let seen: Vec<Role> = if late {
            self.cands.keys().map(|(r, _, _)| *r).collect()
        } else {
            Vec::new()
        };
        let Detector {
            cands,
            memo,
            sls,
            names_seen,
            tokens,
            ..
        } = self;
        let mut counted = false;
        let buf = &mut String::new();
        rec.visit_scoped(&mut |k, v, outer| {
            if names_seen.len() < Self::NAMES && !names_seen.iter().any(|n| n == k) {
                names_seen.push(k.to_string());
            }
            if k == "__time__" || k.starts_with("__tag__:") {
                *sls = true;
            }
            if !memo.contains_key(k) {
                memo.insert(k.to_string(), roles_of(k));
            }
            let roles = memo.get(k).map(Vec::as_slice).unwrap_or_default();
            for &(role, rank, unit) in roles {
                if late && seen.contains(&role) {
                    continue;
                }
                counted = true;
                let c = cands
                    .entry((role, k.to_string(), outer))
                    .or_insert(Candidate::new(rank, unit));
                c.seen += 1;
                if role == Role::Event && event_kind(&v.text(), None, buf).is_some() {
                    c.kinds += 1;
                }
                if role == Role::Time {
                    let text = v.text();
                    let resolution =
                        match crate::ingest::roles::time::parse_time_detail(&text, None) {
                            Ok((ns, _)) => Some(resolution_of(ns)),
                            Err(_) => undated_resolution(&text),
                        };
                    if let Some(r) = resolution {
                        c.resolution_ns = c.resolution_ns.min(r);
                    }
                }
                if role == Role::Ttl
                    && let Some(n) = v.as_f64()
                {
                    c.count_number(n);
                }
            }
            let want = |r: Role| !(late && seen.contains(&r));
            if roles.is_empty()
                && [Role::Event, Role::Time, Role::Holder]
                    .into_iter()
                    .any(want)
            {
                let by = ByValue {
                    cands,
                    tokens,
                    buf,
                    want: &want,
                };
                counted |= observe_by_value(by, k, &v.text(), outer);
            }
        });
        // A TTL field present but null or blank is still the TTL field
        // (its acquires are `no_ttl`, not of unknown TTL).
        rec.visit_empty(&mut |k| {
            let roles = memo.entry(k.to_string()).or_insert_with(|| roles_of(k));
            for &(role, rank, unit) in roles.iter().filter(|r| r.0 == Role::Ttl) {
                if late && seen.contains(&role) {
                    continue;
                }
                counted = true;
                // A null or blank value is the application's own field.
                cands
                    .entry((role, k.to_string(), false))
                    .or_insert(Candidate::new(rank, unit))
                    .seen += 1;
            }
        });
        counted
    }

    /// True once the window is past: from here on a record's shape (the
    /// names it has) decides whether reading it can count anything
    /// ([`Detector::quiet_shape`]); inside the window every record is read.
    pub fn past_window(&self) -> bool {
        self.records >= Self::WINDOW
    }

    /// Counts a JSON Lines record without reading it when its shape (its
    /// field names in order, taken once [`Detector::past_window`]) is one a
    /// late record already had and
    /// nothing was counted for it then: past the window only unseen roles
    /// count, and the same names give the same roles, so reading it would
    /// count nothing either (the seen roles only grow). Returns true when
    /// the record was counted this way and needs no reading. The
    /// detection's fixed cost at 1 M lines (to stay under 5 % of a load)
    /// was in reading 20 000 such records.
    pub fn quiet_shape(&mut self, shape: Option<u64>) -> bool {
        let quiet = shape.is_some_and(|h| self.quiet_shapes.contains(&h));
        if quiet {
            self.records += 1;
        }
        quiet
    }

    /// Remembers the late shape of the record just observed as quiet when
    /// nothing was counted for it.
    pub fn note_shape(&mut self, shape: Option<u64>, counted: bool) {
        if let Some(h) = shape
            && !counted
            && self.quiet_shapes.len() < 4096
        {
            self.quiet_shapes.insert(h);
        }
    }

    /// Adds one record's fields to its kind's counts as well (files with a
    /// payload field; [`Detector::observe`] counts it for the whole file).
    pub fn observe_kind(&mut self, rec: &Record<'_>) {
        if self.kinds.is_empty() {
            self.kinds = RecordKind::ALL
                .iter()
                .map(|_| Detector::default())
                .collect();
        }
        if let Some(d) = self.kinds.get_mut(RecordKind::of(rec).index()) {
            d.observe(rec);
        }
    }

    /// The best rank `field` has for `role` among the candidates (a whole
    /// synonym ranks under 100; a last segment, an abbreviation or a value
    /// from 100 on).
    pub fn rank_of(&self, role: Role, field: &str) -> Option<u32> {
        self.cands
            .iter()
            .filter(|((r, f, _), _)| *r == role && f == field)
            .map(|(_, c)| c.rank)
            .min()
    }

    /// For the event field `field`: the records whose value named a lock or
    /// business event, and the records that had it (`None` when it was
    /// not counted as an event candidate).
    pub fn event_share(&self, field: &str) -> Option<(u32, u32)> {
        self.cands
            .iter()
            .filter(|((r, f, _), _)| *r == Role::Event && f == field)
            .map(|(_, c)| (c.kinds, c.seen))
            .max_by_key(|&(_, seen)| seen)
    }

    /// True when some observed record had a field named `field`.
    pub fn saw_field(&self, field: &str) -> bool {
        self.memo.contains_key(field)
    }

    /// True when scanning further cannot change anything useful.
    pub fn done(&self) -> bool {
        if self.records < Self::WINDOW {
            return false;
        }
        if self.records >= Self::LATE_WINDOW {
            return true;
        }
        Role::ALL
            .iter()
            .all(|r| self.cands.keys().any(|(role, _, _)| role == r))
    }

    /// Picks one field per role (lowest rank, then most frequent, then name;
    /// a field serves one role only, in role order) and applies the mapping's
    /// overrides. Returns the fields and notes for the user.
    ///
    /// When an envelope file's records are of more than one
    /// [`RecordKind`], each kind's fields are picked from its own records:
    /// the most frequent kind's picks are the file's (listed and noted),
    /// the others' in [`Fields::others`] with a note naming them.
    pub fn resolve(&self, mapping: Option<&Mapping>) -> (Fields, Vec<SourceNote>) {
        let present: Vec<(RecordKind, &Detector)> = RecordKind::ALL
            .iter()
            .zip(&self.kinds)
            .filter(|(_, d)| d.records > 0)
            .map(|(k, d)| (*k, d))
            .collect();
        let (combined, combined_notes) = self.resolve_one(mapping);
        // Picked apart only when some kind would lose a lock role: it has
        // a field for the lock key, holder, event or TTL, and the one the
        // whole file picked for that role is none of its own.
        let loses = |d: &Detector| {
            [Role::Key, Role::Holder, Role::Event, Role::Ttl]
                .iter()
                .any(|r| {
                    let own = |f: Option<&str>| {
                        d.cands
                            .keys()
                            .any(|(role, g, _)| role == r && f.is_none_or(|f| f == g))
                    };
                    own(None) && !own(combined.get(*r).map(|p| p.field.as_str()))
                })
        };
        if present.len() < 2 || !present.iter().any(|(_, d)| loses(d)) {
            return (combined, combined_notes);
        }
        // The most frequent kind first (ties in [`RecordKind::ALL`] order).
        let mut order = present;
        order.sort_by_key(|(_, d)| std::cmp::Reverse(d.records));
        let mut main: Option<(Fields, Vec<SourceNote>)> = None;
        let mut others = Vec::new();
        let mut notes_of_others = Vec::new();
        for (kind, d) in order {
            let mut one = Detector {
                payload: self.payload.clone(),
                sls: self.sls,
                ..Detector::default()
            };
            one.cands.clone_from(&d.cands);
            one.records = d.records;
            let (mut f, notes) = one.resolve_one(mapping);
            f.kind = Some(kind);
            if main.is_none() {
                main = Some((f, notes));
            } else {
                notes_of_others.push(SourceNote::FieldsOfKind {
                    kind: kind.name().to_string(),
                    records: d.records,
                    fields: f.listing(),
                });
                f.payload = None;
                others.push(f);
            }
        }
        let Some((mut fields, mut notes)) = main else {
            return (combined, combined_notes);
        };
        fields.others = others;
        notes.extend(notes_of_others);
        (fields, notes)
    }

    /// The object path under which the key and holder fields both sit (the
    /// mapping's when it names both, else the best candidates'), as
    /// segments (`jsonPayload` for `jsonPayload.lock.key` and
    /// `jsonPayload.owner`; `attributes.attributes.context.lock` in a
    /// Datadog hit of a Monolog record): the application's record inside
    /// an envelope object. When they sit at the top or apart, the object
    /// holding the payload field ([`Detector::payload_parent`]).
    fn app_path(&self, mapping: Option<&Mapping>) -> Vec<String> {
        let mapped = |role: Role| {
            mapping.and_then(|m| {
                m.field_roles()
                    .into_iter()
                    .find(|(r, _, _)| *r == role)
                    .map(|(_, _, f)| f)
            })
        };
        if let (Some(k), Some(h)) = (mapped(Role::Key), mapped(Role::Holder)) {
            return self.shared_parent(k, h);
        }
        let best = |role: Role| {
            self.cands
                .iter()
                .filter(|((r, _, _), c)| *r == role && c.rank < VALUE_RANK)
                // Ties broken by the name (then inside before outside): the
                // candidates sit in a hash map, whose order differs from one
                // read to the next (the same bytes read twice could pick two
                // time fields).
                .min_by(|a, b| {
                    (a.1.rank.cmp(&b.1.rank))
                        .then(b.1.seen.cmp(&a.1.seen))
                        .then_with(|| (&a.0.1, a.0.2).cmp(&(&b.0.1, b.0.2)))
                })
                .map(|((_, f, _), _)| f.as_str())
        };
        let (Some(k), Some(h)) = (best(Role::Key), best(Role::Holder)) else {
            return self.payload_parent();
        };
        self.shared_parent(k, h)
    }

    /// The object both `k` and `h` sit in, as segments; the payload's
    /// ([`Detector::payload_parent`]) when they sit at the top or apart.
    fn shared_parent(&self, k: &str, h: &str) -> Vec<String> {
        let shared: Vec<String> = parent_segments(k)
            .zip(parent_segments(h))
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a.to_string())
            .collect();
        if shared.is_empty() {
            self.payload_parent()
        } else {
            shared
        }
    }

    /// The object that holds the payload field, as segments (`jsonPayload`
    /// for GCP's `jsonPayload.Message`): the application's record, whose
    /// own fields (.NET's `jsonPayload.Timestamp`) sit beside its message.
    /// Key and holder read from inside the payload sit at the top of the
    /// record, so they name no object.
    fn payload_parent(&self) -> Vec<String> {
        self.payload
            .as_deref()
            .map(|p| parent_segments(p).map(str::to_string).collect())
            .unwrap_or_default()
    }

    /// The candidates for `role` not `used` by an earlier role, best first:
    /// fields found by their values only when no name plays the role and
    /// their values said so; then the application's own field before the
    /// envelope's; for time, a whole-second field (a shipper's `__time__`)
    /// never before a finer one, and the time deepest in the application's
    /// object (`app_path`) first; for events, the field naming more events;
    /// then synonym rank, the field seen in more records, the name.
    fn ranked<'s>(
        &'s self,
        role: Role,
        used: &[String],
        app_path: &[String],
    ) -> Vec<(&'s String, bool, &'s Candidate)> {
        let whole_seconds = |c: &Candidate| c.resolution_ns >= 1_000_000_000;
        let mut c: Vec<(&String, bool, &Candidate)> = self
            .cands
            .iter()
            .filter(|((r, f, _), _)| *r == role && !used.contains(f))
            .map(|((_, f, outer), v)| (f, *outer, v))
            .collect();
        // A field found by its values plays the role only when no name
        // does, and when most of its values said so.
        let named = c
            .iter()
            .any(|x| x.2.rank < VALUE_RANK && (role != Role::Event || x.2.kinds > 0));
        // A holder by value: its tokens recur (in at least a third of
        // its records: a hold's acquire, renewals and release share
        // one) and differ (a constant trace id is no holder).
        let by_value = |x: &(&String, bool, &Candidate)| match role {
            Role::Holder => {
                x.2.kinds * 3 >= x.2.seen
                    && self.tokens.get(x.0.as_str()).is_some_and(|v| v.len() >= 2)
            }
            _ => x.2.kinds * 2 >= x.2.seen,
        };
        c.retain(|x| x.2.rank < VALUE_RANK || (!named && by_value(x)));
        // The application's own field before the envelope's; for time, a
        // whole-second field (a shipper's `__time__`) never beats a finer
        // one; then synonym rank, then the field seen in more records.
        c.sort_by(|a, b| {
            let time_key =
                |x: &(&String, bool, &Candidate)| role == Role::Time && whole_seconds(x.2);
            // Events: the field whose values name more lock and
            // business events (a constant `type: "log"`, a rare
            // `err.type` lose to `event`), then the usual order.
            let kinds = |x: &(&String, bool, &Candidate)| {
                if role == Role::Event { x.2.kinds } else { 0 }
            };
            // Time: the deeper inside the object that holds the lock
            // fields (GCP's `jsonPayload.timestamp`, Datadog's
            // `attributes.attributes.datetime`), the better: the
            // envelope's own time is the shipper's, later.
            let apps = |x: &(&String, bool, &Candidate)| {
                if role == Role::Time {
                    shared_depth(x.0, app_path)
                } else {
                    0
                }
            };
            time_key(a)
                .cmp(&time_key(b))
                .then(a.1.cmp(&b.1))
                .then(apps(b).cmp(&apps(a)))
                .then(kinds(b).cmp(&kinds(a)))
                .then(a.2.rank.cmp(&b.2.rank))
                .then(b.2.seen.cmp(&a.2.seen))
                .then(a.0.cmp(b.0))
        });
        c
    }

    /// [`Detector::resolve`] over all the records counted, one pick per role.
    fn resolve_one(&self, mapping: Option<&Mapping>) -> (Fields, Vec<SourceNote>) {
        let mut p = Picking {
            fields: Fields {
                payload: self.payload.clone(),
                ..Fields::default()
            },
            notes: Vec::new(),
            used: Vec::new(),
            unsure: Vec::new(),
        };
        if let Some(m) = mapping {
            for (role, unit, field) in m.field_roles() {
                p.fields.picks[role.index()] = Some(Pick {
                    field: field.to_string(),
                    unit,
                    scope: Scope::Any,
                });
                p.used.push(field.to_string());
            }
        }
        let app_path = self.app_path(mapping);
        for role in Role::ALL {
            if p.fields.picks[role.index()].is_some() {
                continue;
            }
            let c = self.ranked(role, &p.used, &app_path);
            p.pick(role, &c);
        }
        let Picking {
            mut fields,
            mut notes,
            used,
            unsure,
        } = p;
        notes.extend(closing_notes(&mut fields, mapping, unsure, &used));
        (fields, notes)
    }
}

/// What [`Detector::resolve`] builds for one set of records, role after
/// role.
struct Picking {
    fields: Fields,
    notes: Vec<SourceNote>,
    /// The fields a role took (a field serves one role only).
    used: Vec<String>,
    /// The core roles another field could have played: (role, the field
    /// chosen, the others).
    unsure: Vec<(Role, String, Vec<String>)>,
}

impl Picking {
    /// Picks the best of `role`'s ranked candidates `c` ([`Detector::ranked`]),
    /// if any: where it is looked up, its unit (a TTL's by its values), the
    /// envelope's field as its fallback (time, host, thread), and the notes
    /// that say a pick was made by value, a TTL's unit by its values, or a
    /// coarse time passed over.
    fn pick(&mut self, role: Role, c: &[(&String, bool, &Candidate)]) {
        let whole_seconds = |c: &Candidate| c.resolution_ns >= 1_000_000_000;
        let Some(&(f, outer, best)) = c.first() else {
            return;
        };
        // A field the application's records have and others carry
        // only outside (a text line's `prefix.time` beside a JSON
        // payload, or alone when the line has no time of its own) is
        // looked up inside first, then outside: else the records that
        // have it only outside lose it.
        let also_outer = !outer && c.iter().any(|(g, o, _)| *o && *g == f);
        let scope = match (outer, also_outer) {
            (true, _) => Scope::Outer,
            (false, true) => Scope::Any,
            (false, false) => Scope::Inner,
        };
        let unit = self.unit_of(role, f, best);
        self.fields.picks[role.index()] = Some(Pick {
            field: f.clone(),
            unit,
            scope,
        });
        if role == Role::Time && best.resolution_ns != i64::MAX {
            self.fields.time_resolution_ns = Some(best.resolution_ns);
        }
        if best.rank >= VALUE_RANK {
            self.notes.push(SourceNote::ByValue {
                role: role.name().to_string(),
                field: f.clone(),
            });
        }
        self.used.push(f.clone());
        if !outer
            && matches!(role, Role::Time | Role::Host | Role::Thread)
            && let Some(&(fb, _, fc)) = c.iter().find(|(g, o, _)| *o && *g != f)
        {
            self.fields.fallback[role.index()] = Some(Pick {
                field: fb.clone(),
                unit: fc.unit,
                scope: Scope::Outer,
            });
        }
        let core = matches!(
            role,
            Role::Time | Role::Key | Role::Holder | Role::Event | Role::Ttl | Role::Host
        );
        let mut others: Vec<String> = Vec::new();
        for (g, _, _) in &c[1..] {
            if **g != *f && !others.contains(g) {
                others.push((*g).clone());
            }
        }
        if core && !others.is_empty() {
            self.unsure.push((role, f.clone(), others));
        }
        if role == Role::Time
            && let Some((g, _, _)) = c[1..].iter().find(|x| whole_seconds(x.2))
            && !whole_seconds(best)
        {
            self.notes.push(SourceNote::CoarseTime {
                coarse: (*g).clone(),
                chosen: f.clone(),
                resolution: resolution_name(best.resolution_ns).to_string(),
            });
        }
    }

    /// The unit of `role`'s field `f` (candidate `best`): a TTL named
    /// without a unit is in seconds or nanoseconds when its values say so
    /// (with a note), else the unit its name gave.
    fn unit_of(&mut self, role: Role, f: &str, best: &Candidate) -> Unit {
        if role == Role::Ttl && best.ttl_in_seconds(f) {
            self.notes.push(SourceNote::TtlSecondsByValue {
                field: f.to_string(),
                max: best.max_number.to_string(),
            });
            Unit::S
        } else if role == Role::Ttl && best.ttl_in_nanos(f) {
            self.notes.push(SourceNote::TtlNanosByValue {
                field: f.to_string(),
                min: best.min_number.to_string(),
            });
            Unit::Ns
        } else {
            best.unit
        }
    }
}

/// The notes on a file's picks once every role is picked: the other fields
/// that could have played a role (not those another role took), a TTL read
/// by its name alone, events read from the message when no field names
/// them (which `fields` then records).
fn closing_notes(
    fields: &mut Fields,
    mapping: Option<&Mapping>,
    unsure: Vec<(Role, String, Vec<String>)>,
    used: &[String],
) -> Vec<SourceNote> {
    let mut notes = Vec::new();
    // Candidates that another role took are no alternative.
    for (role, chosen, others) in unsure {
        let others: Vec<String> = others.into_iter().filter(|f| !used.contains(f)).collect();
        if !others.is_empty() {
            notes.push(SourceNote::AlsoPresent {
                role: role.name().to_string(),
                chosen,
                others,
            });
        }
    }
    if let Some(p) = fields.get(Role::Ttl)
        && mapping.is_none_or(|m| !m.field_roles().iter().any(|(r, ..)| *r == Role::Ttl))
        && guessed_ttl(&p.field)
    {
        notes.push(SourceNote::TtlByName {
            field: p.field.clone(),
            seconds: p.unit == Unit::S,
        });
    }
    if fields.get(Role::Event).is_none() && fields.get(Role::Message).is_some() {
        fields.event_from_message = true;
        notes.push(SourceNote::EventFromMessage);
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_without_its_date_has_the_resolution_of_its_fraction() {
        assert_eq!(undated_resolution("--12-01 07:06:57.800"), Some(1_000_000));
        assert_eq!(undated_resolution("T07:06:57"), Some(1_000_000_000));
        assert_eq!(undated_resolution("T07:06:57.123456"), Some(1_000));
        assert_eq!(undated_resolution("07:06:57.800"), Some(1_000_000));
        assert_eq!(undated_resolution("07:06:57.800 INFO"), None);
        assert_eq!(undated_resolution("2026-12-01 07:06:57"), None);
        assert_eq!(undated_resolution("Tuesday"), None);
    }
    use crate::model::EventKind;
    use Unit::{Ms, S};

    fn kind(s: &str) -> Option<EventKind> {
        event_kind(s, None, &mut String::new())
    }

    #[test]
    fn event_names_by_family_after_the_lists() {
        use EventKind::*;
        let kind = |s: &str| event_kind(s, None, &mut String::new());
        for (name, want) in [
            ("mutex.acquired", Some(Acquired)),
            ("acq", Some(Acquired)),
            ("redlock:extended", Some(Renewed)),
            ("lock_heartbeat", Some(Renewed)),
            ("heartbeat", None),
            ("rel", Some(Released)),
            ("lock-rel-fail", Some(ReleaseFailed)),
            ("acquire.denied", Some(AcquireFailed)),
            ("lease.expired", Some(LockLost)),
            ("stk_init", Some(StockInitialized)),
            ("stk_deduct", Some(StockDeducted)),
            ("seats.reserved", Some(StockDeducted)),
            ("seats.available", Some(StockRead)),
            ("inventory.loaded", Some(StockRead)),
            ("order", Some(OrderCreated)),
            ("order.placed", Some(OrderCreated)),
            // Not the event itself, or not one at all.
            ("acquire_attempt", None),
            ("waiting_for_lock", None),
            ("keepalive_failed", None),
            ("order_failed", None),
            ("acquire_and_release", None),
            ("released the cache", None),
            ("product_page_parsed", None),
        ] {
            assert_eq!(kind(name), want, "{name}");
        }
    }

    #[test]
    fn english_event_names() {
        assert_eq!(kind("acquired"), Some(EventKind::Acquired));
        assert_eq!(kind("Lock Acquired"), Some(EventKind::Acquired));
        assert_eq!(kind("lock-acquired"), Some(EventKind::Acquired));
        assert_eq!(kind("LOCK.BUSY"), Some(EventKind::AcquireFailed));
        assert_eq!(kind("watchdog_renewed"), Some(EventKind::Renewed));
        assert_eq!(kind("unlocked"), Some(EventKind::Released));
        assert_eq!(kind("unlock_failed"), Some(EventKind::ReleaseFailed));
        assert_eq!(kind("lock_lost"), Some(EventKind::LockLost));
        assert_eq!(kind("stock_init"), Some(EventKind::StockInitialized));
        assert_eq!(kind("stock_checked"), Some(EventKind::StockRead));
        assert_eq!(kind("stock_decremented"), Some(EventKind::StockDeducted));
        assert_eq!(kind("order_placed"), Some(EventKind::OrderCreated));
        assert_eq!(kind("fencing_rejected"), Some(EventKind::WriteRejected));
        assert_eq!(kind("+switch-master"), Some(EventKind::Failover));
        assert_eq!(
            kind("Could not obtain lock"),
            Some(EventKind::AcquireFailed)
        );
        assert_eq!(kind("LockAcquired"), Some(EventKind::Acquired));
        assert_eq!(kind("lockReleased"), Some(EventKind::Released));
        assert_eq!(kind("AcquireAttempt"), None);
        assert_eq!(kind("acquire_attempt"), None);
        assert_eq!(kind("sold_out"), None);
    }

    #[test]
    fn tair_event_names() {
        assert_eq!(kind("EXSET"), Some(EventKind::Acquired));
        assert_eq!(kind("exset_nx_failed"), Some(EventKind::AcquireFailed));
        assert_eq!(kind("CAD"), Some(EventKind::Released));
        assert_eq!(kind("excad"), Some(EventKind::Released));
        assert_eq!(kind("cad_failed"), Some(EventKind::ReleaseFailed));
        assert_eq!(kind("EXCAS rejected"), Some(EventKind::WriteRejected));
        assert_eq!(kind("cas-rejected"), Some(EventKind::WriteRejected));
        assert_eq!(kind("exget"), None);
    }

    #[test]
    fn chinese_event_names() {
        assert_eq!(kind("获取锁成功"), Some(EventKind::Acquired));
        assert_eq!(kind("加锁成功(重试)"), Some(EventKind::Acquired));
        assert_eq!(kind("获取锁失败"), Some(EventKind::AcquireFailed));
        assert_eq!(kind("锁续期"), Some(EventKind::Renewed));
        assert_eq!(kind("释放锁"), Some(EventKind::Released));
        assert_eq!(kind("释放锁失败"), Some(EventKind::ReleaseFailed));
        assert_eq!(kind("解锁失败"), Some(EventKind::ReleaseFailed));
        assert_eq!(kind("锁丢失"), Some(EventKind::LockLost));
        assert_eq!(kind("库存初始化"), Some(EventKind::StockInitialized));
        assert_eq!(kind("读取库存"), Some(EventKind::StockRead));
        assert_eq!(kind("扣减库存"), Some(EventKind::StockDeducted));
        assert_eq!(kind("创建订单"), Some(EventKind::OrderCreated));
        assert_eq!(kind("页面解析"), None);
    }

    fn role(f: &str) -> Option<(Role, Unit)> {
        let mut r = roles_of(f);
        r.sort_by_key(|x| x.1);
        r.first().map(|x| (x.0, x.2))
    }

    #[test]
    fn header_roles() {
        assert_eq!(role("时间"), Some((Role::Time, Ms)));
        assert_eq!(role("锁键"), Some((Role::Key, Ms)));
        assert_eq!(role("持有者"), Some((Role::Holder, Ms)));
        assert_eq!(role("事件"), Some((Role::Event, Ms)));
        assert_eq!(role("TTL(毫秒)"), Some((Role::Ttl, Ms)));
        assert_eq!(role("过期时间(秒)"), Some((Role::Ttl, S)));
        assert_eq!(role("扣减前库存"), Some((Role::StockBefore, Ms)));
        assert_eq!(role("扣减后库存"), Some((Role::StockAfter, Ms)));
        assert_eq!(role("剩余库存"), Some((Role::StockAfter, Ms)));
        assert_eq!(role("栅栏令牌"), Some((Role::Fencing, Ms)));
        assert_eq!(role("库存"), Some((Role::Stock, Ms)));
        assert_eq!(role("订单号"), Some((Role::OrderId, Ms)));
        assert_eq!(role("单价"), Some((Role::UnitPrice, Ms)));
        assert_eq!(role("商品"), Some((Role::Product, Ms)));
        assert_eq!(role("主机"), Some((Role::Host, Ms)));
        assert_eq!(role("线程"), Some((Role::Thread, Ms)));
        assert_eq!(role("消息"), Some((Role::Message, Ms)));
        assert_eq!(role("耗时"), Some((Role::Elapsed, Ms)));
        assert_eq!(role("级别"), None);
        assert_eq!(role("lockKey"), Some((Role::Key, Ms)));
        assert_eq!(role("context.client_id"), Some((Role::Holder, Ms)));
        assert_eq!(role("host.name"), Some((Role::Host, Ms)));
        assert_eq!(role("HOSTNAME"), Some((Role::Host, Ms)));
        assert_eq!(role("__tag__:__hostname__"), Some((Role::Host, Ms)));
        assert_eq!(role("__time__"), Some((Role::Time, Ms)));
        assert_eq!(role("@timestamp"), Some((Role::Time, Ms)));
        assert_eq!(role("ttl_s"), Some((Role::Ttl, S)));
        // A time name with a unit suffix (the SQL export's `ts_ns`).
        for name in [
            "ts_ns",
            "time_ms",
            "timestamp_us",
            "eventTimeUnix",
            "created_epoch",
        ] {
            assert_eq!(role(name), Some((Role::Time, Ms)), "{name}");
        }
        assert_eq!(role("ttl_ms"), Some((Role::Ttl, Ms)));
        assert_eq!(role("tsunami"), None);
        assert_eq!(role("slot_token"), None);
        assert_eq!(role("lock_value"), None);
        assert_eq!(role("stock_key"), None);
    }

    #[test]
    fn lease_name_families_and_their_units() {
        for (name, unit) in [
            ("expire_seconds", S),
            ("expireAfter", Ms),
            ("expireAfterSeconds", S),
            ("duration", Ms),
            ("durationMs", Ms),
            ("lease_seconds", S),
            ("leaseMillis", Ms),
            ("lockTimeout", Ms),
            ("timeout_ms", Ms),
            ("timeout_seconds", S),
            ("ttlSecs", S),
        ] {
            assert_eq!(role(name), Some((Role::Ttl, unit)), "{name}");
        }
        // Waits and elapsed times are no lease.
        assert_eq!(role("waitedMs"), None);
        assert_eq!(role("acquireTimeoutMs"), None);
        assert_eq!(role("LockId"), Some((Role::Key, Ms)));
        assert!(roles_of("LockId").iter().any(|r| r.0 == Role::Holder));
    }

    #[test]
    fn lock_namespaced_names_beat_generic_ones() {
        // `lock.ttl_ms` beats `duration_ms`, `lock.owner` beats `client`.
        let rank = |f: &str, role: Role| {
            roles_of(f)
                .into_iter()
                .find(|(r, _, _)| *r == role)
                .map(|(_, rank, _)| rank)
        };
        assert!(rank("lock.ttl_ms", Role::Ttl) < rank("duration_ms", Role::Ttl));
        assert!(rank("mutex.owner", Role::Holder) < rank("client", Role::Holder));
        // Outside a lock namespace a last segment still ranks after whole names.
        assert!(rank("http.duration_ms", Role::Ttl) > rank("duration_ms", Role::Ttl));
        assert_eq!(role("identifier"), Some((Role::Holder, Ms)));
        assert_eq!(role("jid"), Some((Role::Holder, Ms)));
        assert_eq!(role("lock.id"), Some((Role::Holder, Ms)));
        assert_eq!(role("expires_after"), Some((Role::Ttl, Ms)));
    }

    #[test]
    fn serilog_clef_names() {
        assert_eq!(role("@t"), Some((Role::Time, Ms)));
        assert_eq!(role("@mt"), Some((Role::Message, Ms)));
        assert_eq!(role("@m"), Some((Role::Message, Ms)));
        assert_eq!(role("EventId.Name"), Some((Role::Event, Ms)));
        assert_eq!(role("@l"), None);
        assert_eq!(role("@x"), None);
    }
}

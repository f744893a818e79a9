//! Lease reconstruction, overlaps, incidents, findings and oversell: pure
//! functions over a [`LoadedLog`], one rule per function, each documented
//! with its source in `docs/semantics.md`.
//!
//! Entry point: [`analyze`]. Results come back sorted (by key, then time) so
//! reports and snapshots are deterministic.

mod detail;
pub mod evidence;
mod findings;
mod ids;
mod leases;
mod overlaps;
mod oversell;
mod problems;
pub mod stored;

use std::collections::BTreeMap;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::model::{LoadedLog, Message, SourceRef, Sym};
use crate::money::Loss;
use crate::timing;

pub use detail::FindingDetail;
pub use findings::detect_findings;
pub use ids::{EventId, IncidentId, LeaseId, OverlapId, SaleId};
pub use leases::{EventView, apply_host_offsets, reconstruct_leases, reconstruct_leases_in};
pub use overlaps::{OverlapSet, detect_overlaps};
pub use oversell::{attribute_oversell, compute_oversell, stock_unknown};
pub use problems::{NAMED_PRODUCTS, Problem, UNCLASSIFIED_SHARE, problems};

/// Nanoseconds per millisecond.
pub const NS_PER_MS: i64 = 1_000_000;

/// User settings that change the answers. Defaults follow
/// `tests/fixtures/cases/README.md`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Money lost per oversold unit (not the list price); `None` when not
    /// given, which makes every loss of oversold units unknown
    /// ([`crate::money::loss`]).
    pub unit_loss: Option<f64>,
    /// ISO currency code of `unit_loss` (`CNY`, `USD`, `EUR`).
    pub currency: String,
    /// A hold is a near-miss when it lasts at least this fraction of its TTL
    /// since its last grant. Default 0.8 (the common 80 % alert).
    pub near_miss_ratio: f64,
    /// The alert rule: this many holds in a row on one key at or above the
    /// ratio raise a `near_miss_streak`. Default 3.
    pub near_miss_streak: u32,
    /// Log-lag tolerance, ms: an earlier holder's own successful release
    /// logged at most this long after the later acquire is a log-lag
    /// artefact, not an incident. Default 5.
    pub log_lag_tolerance_ms: f64,
    /// How far each host's clock runs ahead of true time, ms
    /// (true = logged - offset).
    pub host_offsets_ms: BTreeMap<String, f64>,
    /// Overlap pairs listed in full per incident; the rest are counted.
    pub max_listed_pairs: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            unit_loss: None,
            currency: "CNY".to_string(),
            near_miss_ratio: 0.8,
            near_miss_streak: 3,
            log_lag_tolerance_ms: 5.0,
            host_offsets_ms: BTreeMap::new(),
            max_listed_pairs: 10_000,
        }
    }
}

/// How a believed window ended, from the holder's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, bitcode::Encode, bitcode::Decode)]
#[serde(rename_all = "snake_case")]
pub enum WindowEnd {
    /// The holder logged a release.
    Released,
    /// The holder logged a failed release.
    ReleaseFailed,
    /// The holder logged that it lost the lock.
    LockLost,
    /// No release: the window ends at the holder's last logged event on the key.
    LastEvent,
    /// The same holder acquired the key again: the earlier hold ends there.
    Reacquired,
}

/// How the lock ended on the server, whichever came first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, bitcode::Encode, bitcode::Decode)]
#[serde(rename_all = "snake_case")]
pub enum LockEnd {
    /// The holder's own successful release.
    OwnRelease,
    /// The lease ran out (grant + TTL, after counted renewals).
    Expired,
    /// Another holder, whose own lock had already ended, deleted it.
    ForeignRelease,
    /// The next holder acquired while the lease was still valid and nobody
    /// deleted it (failover, flush, eviction).
    Vanished,
    /// The next holder acquired, nobody deleted it, and the TTL is unknown
    /// (its file has no TTL field): it expired or vanished, the log cannot
    /// say which (docs/semantics.md §3).
    Unknown,
    /// The same holder acquired again (re-entrant or retried acquire).
    Reacquired,
    /// Still held at the end of the log (no TTL, or TTL beyond the log).
    StillHeld,
}

/// One hold: a holder's successful acquire of a lock key and what followed.
#[derive(Clone, Debug, PartialEq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct Lease {
    /// Its id: the position in [`Analysis::leases`].
    pub id: LeaseId,
    /// Lock key.
    #[serde(skip)]
    pub key: Sym,
    /// Holder (token / owner / client id).
    #[serde(skip)]
    pub holder: Sym,
    /// Host that acquired.
    #[serde(skip)]
    pub host: Option<Sym>,
    /// Thread that acquired.
    #[serde(skip)]
    pub thread: Option<Sym>,
    /// Grant time, ns (host offset applied).
    pub acquired_ns: i64,
    /// TTL of the grant, ms. None: the lock never expires (`no_ttl`),
    /// unless `ttl_unknown`. Read with `.get()`.
    pub ttl_ms: Opt64,
    /// True when the TTL is unknown, not absent: the acquire's file carries
    /// no TTL field and no TTL was given for it (docs/semantics.md §3).
    pub ttl_unknown: bool,
    /// Its renewals; `None` when it has none (most holds: 8 bytes instead
    /// of three vectors' 72). Read with [`Lease::renewals_ns`],
    /// [`Lease::late_renewals_ns`] and [`Lease::ghost_renewals_ns`].
    pub renewals: Option<Box<Renewals>>,
    /// When the lease expires after counted renewals, ns; none without
    /// TTL. Read with `.get()`.
    pub expiry_ns: Opt64,
    /// End of the believed window, ns (a release with `elapsed_ms` ends the
    /// window when the release began).
    pub window_end_ns: i64,
    /// Why the believed window ended.
    pub window_end: WindowEnd,
    /// When the lock ended on the server, ns.
    pub lock_end_ns: i64,
    /// How the lock ended on the server.
    pub lock_end: LockEnd,
    /// For [`LockEnd::ForeignRelease`]: the lease whose holder deleted it.
    pub ended_by: Option<LeaseId>,
    /// True when the acquire was inferred from a MONITOR replay.
    pub inferred: bool,
    /// True when the lock ended by an own release whose holder was guessed:
    /// a replayed `DEL` that nothing in the capture ties to a request,
    /// credited to the holder (docs/semantics.md §8,
    /// [`crate::model::Event::holder_guessed`]).
    pub release_guessed: bool,
    /// This hold's events (acquire first), as a span of the shared
    /// [`Analysis::lease_lines`] (or [`leases::LeaseSet::lines`]): 8 bytes
    /// here and 4 a line there, where a list of its own cost 24 bytes and
    /// a heap block for every hold with three lines or more (62-128 MB and
    /// their malloc headers at 10 M events; docs/performance.md).
    #[serde(skip)]
    pub lines: LineSpan,
}

/// An `Option<i64>` in 8 bytes instead of 16: [`Opt64::NONE`] is
/// `i64::MIN`, and `Some(i64::MIN)` is stored as `i64::MIN + 1` (1 ns or
/// 1 ms off a value 292 years from 1970; no log holds one). It keeps a
/// [`Lease`] 16 bytes smaller (32 MB at 10 M events, docs/performance.md).
/// It serialises as the `Option`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, bitcode::Encode, bitcode::Decode)]
pub struct Opt64(i64);

impl Opt64 {
    /// No value.
    pub const NONE: Opt64 = Opt64(i64::MIN);

    /// The value, if any.
    #[inline]
    pub const fn get(self) -> Option<i64> {
        if self.0 == i64::MIN {
            None
        } else {
            Some(self.0)
        }
    }
}

impl Default for Opt64 {
    fn default() -> Opt64 {
        Opt64::NONE
    }
}

impl From<Option<i64>> for Opt64 {
    #[inline]
    fn from(v: Option<i64>) -> Opt64 {
        v.map_or(Opt64::NONE, |v| Opt64(v.max(i64::MIN + 1)))
    }
}

impl std::fmt::Debug for Opt64 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl Serialize for Opt64 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(s)
    }
}

/// Where one hold's events sit in a shared list of event ids: `len` ids from
/// `start`. Read through [`Analysis::lines_of`] (or
/// [`leases::LeaseSet::lines_of`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub struct LineSpan {
    /// Index of the first id.
    pub start: u32,
    /// Number of ids.
    pub len: u32,
}

impl LineSpan {
    /// The span of the `len` ids that follow the first `start`.
    ///
    /// # Panics
    /// When `start + len` does not fit 32 bits (four billion lines of
    /// holds: hundreds of GB of log before it could happen).
    pub fn new(start: usize, len: usize) -> LineSpan {
        let end = u32::try_from(start + len).expect("hold lines beyond 32 bits");
        let len = u32::try_from(len).expect("hold lines beyond 32 bits");
        LineSpan {
            start: end - len,
            len,
        }
    }

    /// The same span once the list it indexes is appended after `by` ids.
    ///
    /// # Panics
    /// As [`LineSpan::new`].
    pub fn shifted(self, by: usize) -> LineSpan {
        LineSpan::new(self.start as usize + by, self.len as usize)
    }

    /// The ids of this span in `lines`, empty when it does not fit (a hold
    /// made by hand, such as a what-if's).
    pub fn of(self, lines: &[EventId]) -> &[EventId] {
        let start = self.start as usize;
        lines
            .get(start..start + self.len as usize)
            .unwrap_or_default()
    }
}

/// The renewals of one [`Lease`], each list in time order, ns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct Renewals {
    /// Renewals that counted (logged before expiry).
    pub counted_ns: Vec<i64>,
    /// Renewals logged after expiry (not counted).
    pub late_ns: Vec<i64>,
    /// Renewals logged after the holder's own release (a watchdog that
    /// outlived the unlock; not counted, no `renewal_gap`).
    pub ghost_ns: Vec<i64>,
}

impl Lease {
    /// Times of renewals that counted (logged before expiry), ns.
    pub fn renewals_ns(&self) -> &[i64] {
        self.renewals.as_ref().map_or(&[], |r| &r.counted_ns)
    }

    /// Times of renewals logged after expiry (not counted), ns.
    pub fn late_renewals_ns(&self) -> &[i64] {
        self.renewals.as_ref().map_or(&[], |r| &r.late_ns)
    }

    /// Times of renewals logged after the holder's own release (a watchdog
    /// that outlived the unlock; not counted, no `renewal_gap`), ns.
    pub fn ghost_renewals_ns(&self) -> &[i64] {
        self.renewals.as_ref().map_or(&[], |r| &r.ghost_ns)
    }

    /// The renewal lists, made on first use.
    pub fn renewals_mut(&mut self) -> &mut Renewals {
        self.renewals.get_or_insert_with(Box::default)
    }

    /// Time from the last grant (acquire or last counted renewal) to the end
    /// of the believed window, ms.
    pub fn since_last_grant_ms(&self) -> f64 {
        let last = self
            .renewals_ns()
            .last()
            .copied()
            .unwrap_or(self.acquired_ns);
        self.window_end_ns.saturating_sub(last) as f64 / NS_PER_MS as f64
    }

    /// Length of the believed window, ms.
    pub fn hold_ms(&self) -> f64 {
        self.window_end_ns.saturating_sub(self.acquired_ns) as f64 / NS_PER_MS as f64
    }

    /// The zombie part of the hold: from the server-side lock end to the end
    /// of the believed window, when the holder kept believing after its lock
    /// ended. `(start_ns, end_ns)`.
    pub fn zombie_ns(&self) -> Option<(i64, i64)> {
        (self.lock_end_ns < self.window_end_ns
            && matches!(
                self.lock_end,
                LockEnd::Expired | LockEnd::ForeignRelease | LockEnd::Vanished | LockEnd::Unknown
            ))
        .then_some((self.lock_end_ns, self.window_end_ns))
    }
}

/// Why an overlap happened: how the earlier holder's lock ended.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    bitcode::Encode,
    bitcode::Decode,
)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// The earlier lease expired while its holder still worked.
    LeaseExpired,
    /// Another holder deleted the earlier holder's lock.
    ForeignRelease,
    /// The earlier lock disappeared while valid (failover, flush, eviction).
    LockVanished,
    /// The earlier lock was gone when the later holder acquired, nobody
    /// deleted it, and its TTL is unknown: expiry or a vanished lock, the
    /// log cannot tell which (docs/semantics.md §4).
    TtlUnknown,
}

impl Cause {
    /// The snake_case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::LeaseExpired => "lease_expired",
            Cause::ForeignRelease => "foreign_release",
            Cause::LockVanished => "lock_vanished",
            Cause::TtlUnknown => "ttl_unknown",
        }
    }
}

/// Two holders believed they held one lock key at once.
#[derive(Clone, Debug, PartialEq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct Overlap {
    /// Lock key.
    #[serde(skip)]
    pub key: Sym,
    /// The earlier hold.
    pub earlier: LeaseId,
    /// The later hold.
    pub later: LeaseId,
    /// Start of the intersection, ns (the later acquire).
    pub start_ns: i64,
    /// End of the intersection, ns.
    pub end_ns: i64,
    /// How the earlier lock ended.
    pub cause: Cause,
}

impl Overlap {
    /// Length of the intersection, ms.
    pub fn duration_ms(&self) -> f64 {
        self.end_ns.saturating_sub(self.start_ns) as f64 / NS_PER_MS as f64
    }
}

/// An apparent overlap explained by log lag: the earlier lease was valid and
/// its holder's own release line came within the tolerance.
#[derive(Clone, Debug, PartialEq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct LogLagArtefact {
    /// The earlier hold.
    pub earlier: LeaseId,
    /// The later hold.
    pub later: LeaseId,
    /// How far the release line trails the later acquire, ms.
    pub lag_ms: f64,
}

/// A sale (order, or deduction when no orders exist) in the log.
#[derive(Clone, Debug, PartialEq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct Sale {
    /// The event of the sale in [`LoadedLog::events`].
    pub event: EventId,
    /// Time, ns (host offset applied).
    pub at_ns: i64,
    /// Product id (product field, else the lock key); `None` when unknown.
    #[serde(skip)]
    pub product: Option<Sym>,
    /// Lock key the sale was made under, when known.
    #[serde(skip)]
    pub key: Option<Sym>,
    /// Holder that made it, when known.
    #[serde(skip)]
    pub holder: Option<Sym>,
    /// Order id, when an order.
    #[serde(skip)]
    pub order_id: Option<Sym>,
    /// Units sold.
    pub quantity: i64,
    /// Units of this sale beyond the initial stock.
    pub oversold_units: i64,
    /// Incident it is attributed to.
    pub incident: Option<IncidentId>,
}

/// Stock accounting for one product.
#[derive(Clone, Debug, PartialEq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct ProductOversell {
    /// Product id (product field, else the lock key); `None` when unknown.
    #[serde(skip)]
    pub product: Option<Sym>,
    /// Initial stock: the stock-initialised event, else the first stock read
    /// before any deduction. `None` when unknown.
    pub initial_stock: Option<i64>,
    /// Units sold (orders, or deductions when no orders).
    pub sold: i64,
    /// Number of orders (or deductions when no orders).
    pub sales: usize,
    /// Units sold beyond the initial stock (or the most negative
    /// `stock_after`, negated, without an initial stock).
    pub oversold: i64,
    /// Last stock level logged (`stock_after` or read), when known.
    pub final_stock: Option<i64>,
    /// Deductions lost to stale read-modify-write: final stock minus what it
    /// should be (initial - sold), when both are known and it is positive.
    pub lost_updates: i64,
}

/// A group of overlaps on one key that touch in time.
#[derive(Clone, Debug, PartialEq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct Incident {
    /// Its id: the position in [`Analysis::incidents`]; shown as `INC-{id+1}`.
    pub id: IncidentId,
    /// Lock key.
    #[serde(skip)]
    pub key: Sym,
    /// Start, ns (the earliest overlap start).
    pub start_ns: i64,
    /// End, ns (the latest overlap end).
    pub end_ns: i64,
    /// Holds involved, in acquire order.
    pub leases: Vec<LeaseId>,
    /// Overlaps listed in full: the
    /// first `Settings::max_listed_pairs` in (start, earlier, later) order.
    pub overlaps: Vec<OverlapId>,
    /// Overlaps beyond `Settings::max_listed_pairs`, counted only.
    pub overlaps_unlisted: usize,
    /// Cause of the first overlap.
    pub cause: Cause,
    /// Sales attributed to it ([`attribute_oversell`]): those made inside
    /// its window, and those outside it tied to it (by one of its holders
    /// while it still believed it held the lock, or oversold units using
    /// stock the overlap sold).
    pub sales: Vec<SaleId>,
    /// Oversold units attributed to this incident.
    pub oversold_units: i64,
    /// Loss, in `Settings::currency` ([`crate::money::loss`]).
    pub loss: Loss,
}

impl Incident {
    /// The holds in any overlap: every hold of an overlap is a hold of its
    /// incident, listed or not. A foldhash set: its readers ask once per
    /// hold of the log.
    pub fn holds_in_overlaps(incidents: &[Incident]) -> foldhash::HashSet<LeaseId> {
        incidents
            .iter()
            .flat_map(|i| i.leases.iter().copied())
            .collect()
    }

    /// Display id, `INC-1` for the first.
    pub fn label(&self) -> String {
        format!("INC-{}", self.id.index() + 1)
    }

    /// Length, ms.
    pub fn duration_ms(&self) -> f64 {
        self.end_ns.saturating_sub(self.start_ns) as f64 / NS_PER_MS as f64
    }
}

/// What kind of finding.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    bitcode::Encode,
    bitcode::Decode,
)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A hold in no overlap that used at least `near_miss_ratio` of its TTL.
    NearMiss,
    /// `near_miss_streak` near-misses in a row on one key (the alert rule).
    NearMissStreak,
    /// A renewal after expiry, or a gap longer than the TTL between
    /// consecutive grants / window end of a renewed hold.
    RenewalGap,
    /// A renewal logged after its holder's own release (a watchdog that
    /// outlived the unlock).
    GhostRenewal,
    /// An acquire with no TTL.
    NoTtl,
    /// A successful delete of another holder's live lock.
    ForeignRelease,
    /// The set of overlaps changes once host clock offsets are applied.
    ClockSkew,
    /// A write carrying a fencing token lower than one already accepted.
    FencingViolation,
    /// The holder's process (or the server) stalled inside a hold for most
    /// of its TTL: a GC pause, a safepoint, a slow command
    /// (`evidence::holder_stalls`, docs/semantics.md §11).
    HolderStall,
    /// Renewals or releases by a holder with no acquire of its own before
    /// them on the key ([`leases::Orphan`]): not replayed.
    NoAcquire,
}

impl FindingKind {
    /// The snake_case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::NearMiss => "near_miss",
            FindingKind::NearMissStreak => "near_miss_streak",
            FindingKind::RenewalGap => "renewal_gap",
            FindingKind::GhostRenewal => "ghost_renewal",
            FindingKind::NoTtl => "no_ttl",
            FindingKind::ForeignRelease => "foreign_release",
            FindingKind::ClockSkew => "clock_skew",
            FindingKind::FencingViolation => "fencing_violation",
            FindingKind::HolderStall => "holder_stall",
            FindingKind::NoAcquire => "no_acquire",
        }
    }
}

/// Something worth a look that is not (or not only) an overlap.
#[derive(Clone, Debug, PartialEq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct Finding {
    /// Kind.
    pub kind: FindingKind,
    /// Lock key, when the finding concerns one.
    #[serde(skip)]
    pub key: Option<Sym>,
    /// Holder, when the finding concerns one.
    #[serde(skip)]
    pub holder: Option<Sym>,
    /// The hold concerned, when there is one.
    pub lease: Option<LeaseId>,
    /// When, ns.
    pub at_ns: i64,
    /// What the rule saw, worded per language (the JSON holds its English).
    pub detail: FindingDetail,
}

/// Totals for the summary bar and the report header.
#[derive(Clone, Debug, Default, PartialEq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct Summary {
    /// Incidents (groups of overlaps).
    pub incidents: usize,
    /// Overlap pairs, listed or not.
    pub overlap_pairs: usize,
    /// Oversold units over all products.
    pub oversold_units: i64,
    /// Loss, in `Settings::currency` ([`crate::money::loss`]).
    pub loss: Loss,
    /// Near-miss findings.
    pub near_misses: usize,
    /// Warnings (unreadable lines) over all files.
    pub warnings: u64,
    /// Events loaded.
    pub events: usize,
    /// Distinct lock keys with at least one hold.
    pub keys: usize,
    /// Distinct holders with at least one hold.
    pub holders: usize,
}

/// Everything the analysis found. Indices point into the vectors here and
/// into the [`LoadedLog`] it was computed from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct Analysis {
    /// Holds, sorted by (key name, acquire time).
    pub leases: Vec<Lease>,
    /// Overlap pairs listed in incidents (every pair unless an incident has
    /// more than `Settings::max_listed_pairs`), sorted by (key, start,
    /// earlier, later). The total is [`Summary::overlap_pairs`].
    pub overlaps: Vec<Overlap>,
    /// Apparent overlaps that are log lag.
    pub artefacts: Vec<LogLagArtefact>,
    /// Incidents, sorted by start time.
    pub incidents: Vec<Incident>,
    /// Findings, sorted by (kind, time).
    pub findings: Vec<Finding>,
    /// Sales, sorted by time.
    pub sales: Vec<Sale>,
    /// Per-product stock accounting, sorted by product name.
    pub products: Vec<ProductOversell>,
    /// The server's view of keys that both an application log and a MONITOR
    /// capture describe: holds reconstructed from the capture alone (linked
    /// to `leases` by key and holder token). Empty otherwise.
    pub server_view: Vec<Lease>,
    /// The events of every hold of `leases` and `server_view`, each hold's
    /// a [`LineSpan`] of this list, in time order (acquire first). Read with
    /// [`Analysis::lines_of`] or [`Analysis::sources_of`].
    #[serde(skip)]
    pub lease_lines: Vec<EventId>,
    /// Event times with host offsets applied, parallel to
    /// `LoadedLog::events`; empty when no offset applies (see
    /// [`apply_host_offsets`]). Read with [`Analysis::time_of`].
    #[serde(skip)]
    pub times_ns: Vec<i64>,
    /// Infrastructure evidence each incident cites (a failover, a restart,
    /// a GC pause...), sorted by incident then time; empty when the load has
    /// no infrastructure log.
    #[serde(skip)]
    pub citations: Vec<evidence::Citation>,
    /// Totals.
    pub summary: Summary,
}

impl Analysis {
    /// Event `i`'s time with host offsets applied, ns (the logged time when
    /// no offset applies).
    ///
    /// # Panics
    /// When `i` is not an event of `log`.
    pub fn time_of(&self, log: &LoadedLog, i: usize) -> i64 {
        leases::time_of(&self.times_ns, i, &log.events[i])
    }

    /// The events of hold `l` (of `leases` or `server_view`), acquire first.
    pub fn lines_of(&self, l: &Lease) -> &[EventId] {
        l.lines.of(&self.lease_lines)
    }

    /// Where the events of hold `l` were logged, acquire first.
    ///
    /// # Panics
    /// When this analysis was not computed from `log`.
    pub fn sources_of<'a>(
        &'a self,
        log: &'a LoadedLog,
        l: &Lease,
    ) -> impl DoubleEndedIterator<Item = SourceRef> + 'a {
        self.lines_of(l).iter().map(|&i| log.events[i].source)
    }

    /// The first and the last event time with host offsets applied, ns;
    /// `None` when `log` has no events. Without offsets, the first and the
    /// last event's ([`LoadedLog::events`] is in time order), not a walk
    /// through every event (0.02-0.04 s at 10 M, twice in the window's
    /// display list).
    pub fn time_span(&self, log: &LoadedLog) -> Option<(i64, i64)> {
        if self.times_ns.is_empty() {
            return Some((log.events.first()?.at_ns, log.events.last()?.at_ns));
        }
        (0..log.events.len())
            .map(|i| self.time_of(log, i))
            .fold(None, |span, t| {
                Some(span.map_or((t, t), |(a, b): (i64, i64)| (a.min(t), b.max(t))))
            })
    }
}

/// How far an analysis has got, for a progress bar: the lock keys whose
/// holds were rebuilt (the per-key part of the analysis), of all keys.
/// Counted once per key with relaxed atomics, never per event, so it costs
/// nothing measurable; read from another thread while [`analyze_counted`]
/// runs.
#[derive(Debug, Default)]
pub struct AnalysisProgress {
    /// Keys whose holds are rebuilt.
    pub keys_done: std::sync::atomic::AtomicU64,
    /// Keys in the log (0 until they are known).
    pub keys_total: std::sync::atomic::AtomicU64,
}

impl AnalysisProgress {
    /// `(keys done, keys total)`.
    pub fn keys(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.keys_done.load(Relaxed), self.keys_total.load(Relaxed))
    }
}

/// Runs every rule over `log` with `settings`.
///
/// Never panics on any input; cost is O(n log n) in events plus the number of
/// overlap pairs listed (at most `max_listed_pairs` per incident) and the
/// holds of each incident, not the number of overlap pairs.
pub fn analyze(log: &LoadedLog, settings: &Settings) -> Analysis {
    analyze_counted(log, settings, &AnalysisProgress::default())
}

/// The findings of the holds ([`detect_findings`], with `in_overlap` the
/// holds that are in an incident, and the holder stalls).
fn hold_findings(
    log: &LoadedLog,
    settings: &Settings,
    times_ns: &[i64],
    lease_set: &leases::LeaseSet,
    in_overlap: &foldhash::HashSet<LeaseId>,
) -> Vec<Finding> {
    let mut findings = detect_findings(log, times_ns, lease_set, in_overlap, settings);
    findings.extend(evidence::holder_stalls(log, &lease_set.leases));
    findings
}

/// Every finding: those of the holds ([`hold_findings`]), and `clock_skew`
/// when host offsets are given, in the reports' order: by kind, time, key
/// and holder names, then (on a tie only, as it renders them) their
/// English detail.
fn all_findings(
    log: &LoadedLog,
    settings: &Settings,
    mut findings: Vec<Finding>,
    (leases, overlaps, incidents): (&[Lease], &[Overlap], &[Incident]),
) -> Vec<Finding> {
    if !settings.host_offsets_ms.is_empty() {
        findings.extend(findings::clock_skew(
            log, settings, overlaps, incidents, leases,
        ));
    }
    let name = |s: Option<Sym>| s.map_or("", |s| log.strings.get(s));
    findings.sort_by(|a, b| {
        (a.kind, a.at_ns, name(a.key), name(a.holder))
            .cmp(&(b.kind, b.at_ns, name(b.key), name(b.holder)))
            .then_with(|| a.detail.en().cmp(&b.detail.en()))
    });
    findings
}

/// [`analyze`], counting the keys done in `progress` as it goes.
pub fn analyze_counted(
    log: &LoadedLog,
    settings: &Settings,
    progress: &AnalysisProgress,
) -> Analysis {
    analyze_beside(log, settings, progress, |_, _| ()).0
}

/// [`analyze_counted`], calling `beside` with the holds (the log's, then
/// the server's own, [`Analysis::leases`] and [`Analysis::server_view`]
/// as they will be but for their lines) once they are made, on the pool
/// beside the rest of the analysis (overlaps, stock, findings): the
/// window makes the holders' labels there. Returns the analysis and what
/// `beside` returned.
pub fn analyze_beside<R: Send>(
    log: &LoadedLog,
    settings: &Settings,
    progress: &AnalysisProgress,
    beside: impl FnOnce(&[Lease], &[Lease]) -> R + Send,
) -> (Analysis, R) {
    let started = Instant::now();
    let times_ns = apply_host_offsets(log, &settings.host_offsets_ms);
    let (primary, server) = EventView::split(log);
    let lease_set =
        leases::reconstruct_leases_counted(log, &times_ns, settings, &primary, progress);
    timing::phase("analyze/leases", started);
    // The server's own holds and `beside` read the holds and the log only,
    // and so do the overlap sweep and the stock accounting: they run side
    // by side.
    let ((mut server_view, made), rest) = rayon::join(
        || {
            let server_view = server
                .map(|view| reconstruct_leases_in(log, &times_ns, settings, &view))
                .unwrap_or_default();
            let made = beside(&lease_set.leases, &server_view.leases);
            (server_view, made)
        },
        || past_leases(log, settings, &times_ns, (&lease_set, &primary)),
    );
    // The server view's lines follow the holds' in one shared list.
    let mut lease_lines = lease_set.lines;
    leases::move_lines(
        &mut server_view.leases,
        &server_view.lines,
        &mut lease_lines,
    );
    let analysis = Analysis {
        leases: lease_set.leases,
        lease_lines,
        overlaps: rest.overlaps,
        artefacts: rest.artefacts,
        incidents: rest.incidents,
        findings: rest.findings,
        sales: rest.sales,
        products: rest.products,
        server_view: server_view.leases,
        times_ns,
        citations: rest.citations,
        summary: rest.summary,
    };
    (analysis, made)
}

/// What the analysis finds from the holds on ([`past_leases`]).
struct PastLeases {
    overlaps: Vec<Overlap>,
    artefacts: Vec<LogLagArtefact>,
    incidents: Vec<Incident>,
    findings: Vec<Finding>,
    sales: Vec<Sale>,
    products: Vec<ProductOversell>,
    citations: Vec<evidence::Citation>,
    summary: Summary,
}

/// The overlaps, the stock accounting (side by side), the oversold units
/// attributed to incidents, the findings, the summary and the citations
/// of the holds of `lease_set`, reconstructed from `primary`.
fn past_leases(
    log: &LoadedLog,
    settings: &Settings,
    times_ns: &[i64],
    (lease_set, primary): (&leases::LeaseSet, &EventView),
) -> PastLeases {
    let started = Instant::now();
    let (overlap_set, (products, mut sales)) = rayon::join(
        || {
            let set = detect_overlaps(
                &lease_set.leases,
                &lease_set.log_lag,
                settings.max_listed_pairs,
            );
            timing::phase("analyze/overlaps", started);
            set
        },
        || {
            let oversell = compute_oversell(log, times_ns, &lease_set.leases, primary);
            timing::phase("analyze/oversell", started);
            oversell
        },
    );
    let OverlapSet {
        overlaps,
        pairs,
        artefacts,
        mut incidents,
    } = overlap_set;
    let started = Instant::now();
    // The holds' findings need of the incidents only which holds are in
    // them, which the attribution of oversold units (it sets sales and
    // loss) does not change: they are made beside it, and the holders are
    // counted (a sort of 2 M symbols at 10 M events, 0.03 s) beside both.
    // At 10 M events the two steps take 0.08-0.12 s one after the other,
    // 0.05-0.10 s side by side.
    let in_overlap = Incident::holds_in_overlaps(&incidents);
    let (stock_unknown, (findings, holders)) = rayon::join(
        || {
            attribute_oversell(
                &mut sales,
                &mut incidents,
                &lease_set.leases,
                settings.unit_loss,
            );
            oversell::mark_stock_unknown(&mut incidents, &sales, &products)
        },
        || {
            rayon::join(
                || hold_findings(log, settings, times_ns, lease_set, &in_overlap),
                || distinct_holders(&lease_set.leases),
            )
        },
    );
    let findings = all_findings(
        log,
        settings,
        findings,
        (&lease_set.leases, &overlaps, &incidents),
    );
    timing::phase("analyze/attribute+findings", started);
    let mut summary = summarize(
        log,
        settings,
        (&lease_set.leases, holders),
        (incidents.len(), pairs),
        &products,
        &findings,
    );
    let citations = evidence::cite(
        log,
        (&lease_set.leases, &lease_set.lines),
        &overlaps,
        &incidents,
        settings,
    );
    if stock_unknown {
        summary.loss = crate::money::Loss::StockUnknown;
    }
    PastLeases {
        overlaps,
        artefacts,
        incidents,
        findings,
        sales,
        products,
        citations,
        summary,
    }
}

/// The summary of an analysis: incidents and overlap pairs (as counted
/// by the sweep), oversold units and their loss, near-misses, warnings,
/// events, the distinct lock keys of the holds (which come sorted by key)
/// and their distinct holders, counted ([`distinct_holders`]).
fn summarize(
    log: &LoadedLog,
    settings: &Settings,
    (leases, holders): (&[Lease], usize),
    (incidents, pairs): (usize, usize),
    products: &[ProductOversell],
    findings: &[Finding],
) -> Summary {
    let mut keys: Vec<Sym> = leases.iter().map(|l| l.key).collect();
    keys.dedup();
    let oversold_units: i64 = products.iter().map(|p| p.oversold).sum();
    Summary {
        incidents,
        overlap_pairs: pairs,
        oversold_units,
        loss: crate::money::loss(oversold_units, settings.unit_loss),
        near_misses: findings
            .iter()
            .filter(|f| f.kind == FindingKind::NearMiss)
            .count(),
        warnings: log.warnings.total(),
        events: log.events.len(),
        keys: keys.len(),
        holders,
    }
}

/// How many holders hold `leases` (each counted once).
fn distinct_holders(leases: &[Lease]) -> usize {
    let mut holders: Vec<Sym> = leases.iter().map(|l| l.holder).collect();
    holders.sort_unstable();
    holders.dedup();
    holders.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opt64_keeps_every_option_but_the_one_value_it_reserves() {
        for v in [
            None,
            Some(0),
            Some(-1),
            Some(2000),
            Some(i64::MAX),
            Some(i64::MIN + 1),
        ] {
            assert_eq!(Opt64::from(v).get(), v);
            assert_eq!(
                serde_json::to_string(&Opt64::from(v)).expect("json"),
                serde_json::to_string(&v).expect("json")
            );
            assert_eq!(format!("{:?}", Opt64::from(v)), format!("{v:?}"));
        }
        // The reserved value is moved by one, never read back as none.
        assert_eq!(Opt64::from(Some(i64::MIN)).get(), Some(i64::MIN + 1));
        assert_eq!(Opt64::default().get(), None);
        assert_eq!(std::mem::size_of::<Opt64>(), 8);
    }

    #[test]
    fn a_line_span_reads_its_ids_and_nothing_past_the_list() {
        let ids: Vec<EventId> = (0..6).map(EventId::new).collect();
        let span = LineSpan::new(2, 3);
        assert_eq!(span.of(&ids), &ids[2..5]);
        assert_eq!(span.shifted(1).of(&ids), &ids[3..6]);
        assert!(span.shifted(2).of(&ids).is_empty());
        assert!(LineSpan::default().of(&ids).is_empty());
    }
}

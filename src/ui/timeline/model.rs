//! The timeline's display list: lock keys, holder lanes, leases, overlap
//! windows and sales as plain data in seconds since the first event, built
//! from the [`Analysis`] only when the data or the filters change.

// foldhash's maps: the display list looks up a lane per lease and a mark
// per lease id, hundreds of thousands a load, where SipHash cost a tenth
// of the build (perf, the 1 M simulator log).
use foldhash::{HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::analysis::{
    Analysis, Cause, FindingKind, Incident, IncidentId, Lease, LeaseId, LockEnd, OverlapId,
    WindowEnd,
};
use crate::model::{Evidence, EvidenceKind, EvidenceOrigin, LoadedLog, Sym};
use crate::report::holders::HolderNames;

/// Height of a holder lane, points: what a group is built with, and the
/// least the layout gives when many lanes share the room
/// ([`super::layout::lane_height`]).
pub const LANE_H: f32 = 18.0;

/// One lease as drawn, times in seconds since the first event.
#[derive(Clone, Debug)]
pub struct LeaseBar {
    /// Index into [`Analysis::leases`].
    pub lease: LeaseId,
    /// Grant.
    pub start_s: f64,
    /// Server-side lock end (expiry, release, ...).
    pub lock_end_s: f64,
    /// End of the believed window.
    pub window_end_s: f64,
    /// The zombie part (believed after the lock ended).
    pub zombie: Option<(f64, f64)>,
    /// Counted renewals.
    pub renewals: Vec<f64>,
    /// Renewals after expiry (not counted).
    pub late_renewals: Vec<f64>,
    /// Own release at this time.
    pub released_s: Option<f64>,
    /// No TTL: drawn open-ended.
    pub no_ttl: bool,
    /// Near-miss finding on this lease.
    pub near_miss: bool,
    /// Part of an overlap.
    pub in_overlap: bool,
    /// Inferred from MONITOR.
    pub inferred: bool,
    /// TTL, ms.
    pub ttl_ms: Option<i64>,
    /// Believed hold, ms.
    pub hold_ms: f64,
    /// How the lock ended.
    pub lock_end: LockEnd,
    /// How the believed window ended.
    pub window_end: WindowEnd,
}

impl LeaseBar {
    /// True when it must stay visible at any zoom.
    pub fn anomalous(&self) -> bool {
        self.zombie.is_some() || self.near_miss || self.in_overlap || self.no_ttl
    }

    /// The last time it covers.
    pub fn end_s(&self) -> f64 {
        self.lock_end_s.max(self.window_end_s)
    }

    /// A lock without TTL still held when the log ends: it never expires.
    pub fn open_ended(&self) -> bool {
        self.no_ttl && self.lock_end == LockEnd::StillHeld
    }
}

/// A sale marker.
#[derive(Clone, Debug)]
pub struct SaleMark {
    /// Index into [`Analysis::sales`].
    pub sale: usize,
    /// Time.
    pub at_s: f64,
    /// Oversold units in it.
    pub oversold_units: i64,
    /// Units sold.
    pub quantity: i64,
    /// Order id.
    pub order_id: String,
}

/// The holder name of the lane that shows what the server itself held.
pub const SERVER_LANE: &str = "[Redis]";

/// A finding's marker: on its holder's lane, or on the key's header row
/// when the holder has no lane.
#[derive(Clone, Debug)]
pub struct FindingMark {
    /// Index into [`Analysis::findings`].
    pub finding: usize,
    /// Kind.
    pub kind: FindingKind,
    /// Time.
    pub at_s: f64,
    /// What the finding saw (for the tooltip, in the window's language).
    pub detail: crate::analysis::FindingDetail,
}

/// A line of infrastructure evidence as drawn (docs/semantics.md §11): a
/// server's event across a key's lanes (a failover, a restart, a slow
/// command), or a runtime's pause on the lane of the holder whose process
/// it stopped.
#[derive(Clone, Debug)]
pub struct InfraMark {
    /// Index into [`LoadedLog::evidence`].
    pub evidence: usize,
    /// What happened.
    pub kind: EvidenceKind,
    /// When it began, s.
    pub start_s: f64,
    /// When a pause or a slow command ended, s (`start_s` for an instant).
    pub end_s: f64,
    /// An incident on this key cites it.
    pub cited: bool,
    /// Its line names no host, process or server of the log: tied by time only, a
    /// guess.
    pub guess: bool,
    /// For the tooltip: who said it, its words and `file:line`.
    pub detail: String,
    /// Lines of the same kind within [`MERGE_S`] folded into this mark
    /// (three Sentinels each announcing one `+switch-master`).
    pub also: u32,
}

/// Instants of the same kind closer than this, s, are one mark.
pub const MERGE_S: f64 = 1.0;

/// Adds `mark` to `marks` (in time order), or folds it into the last
/// instant of the same kind less than [`MERGE_S`] before it; a cited line
/// then stands for the mark.
fn merge_or_push(marks: &mut Vec<InfraMark>, mark: InfraMark) {
    let instant = |m: &InfraMark| m.end_s <= m.start_s;
    let same = marks.iter_mut().rev().find(|m| {
        m.kind == mark.kind && instant(m) && instant(&mark) && mark.start_s - m.start_s < MERGE_S
    });
    match same {
        Some(m) => {
            let also = m.also + 1;
            if mark.cited && !m.cited {
                *m = mark;
            }
            m.also = also;
        }
        None => marks.push(mark),
    }
}

impl InfraMark {
    /// The pause's length, ms (0 for an instant).
    pub fn length_ms(&self) -> f64 {
        (self.end_s - self.start_s) * 1e3
    }
}

/// One holder's row.
#[derive(Clone, Debug)]
pub struct Lane {
    /// Holder.
    pub holder: String,
    /// What the lane says of its holder: its one name on every surface
    /// ([`crate::report::holders::HolderNames`]).
    pub label: String,
    /// Host of its first lease (shared by the lanes of one host).
    pub host: Arc<str>,
    /// Thread of its first lease (shared by the lanes of one thread name).
    pub thread: Arc<str>,
    /// Leases sorted by start.
    pub leases: Vec<LeaseBar>,
    /// Longest lease, s (to find the first visible one by binary search).
    pub max_len_s: f64,
    /// Sales sorted by time.
    pub sales: Vec<SaleMark>,
    /// Findings on this holder and key, sorted by time.
    pub findings: Vec<FindingMark>,
    /// Its process's pauses (GC, safepoints) within its holds, sorted by
    /// time.
    pub stalls: Vec<InfraMark>,
}

/// The lock passing from one holder to the next: from the earlier
/// holder's lock end on its lane to the later holder's grant on its lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Handoff {
    /// When the earlier holder's lock ended.
    pub from_s: f64,
    /// The earlier holder's lane in the group.
    pub from_lane: usize,
    /// When the later holder acquired.
    pub to_s: f64,
    /// The later holder's lane in the group.
    pub to_lane: usize,
}

/// An overlap window across a key's lanes.
#[derive(Clone, Debug)]
pub struct OverlapBox {
    /// Index into [`Analysis::overlaps`].
    pub overlap: OverlapId,
    /// Start.
    pub start_s: f64,
    /// End.
    pub end_s: f64,
    /// Why.
    pub cause: Cause,
    /// Incident it belongs to.
    pub incident: Option<IncidentId>,
    /// Earlier and later holders.
    pub holders: (String, String),
    /// The arrow from the earlier holder's lock end to the later's grant,
    /// when both lanes are shown.
    pub handoff: Option<Handoff>,
}

/// A lock key with its lanes.
#[derive(Clone, Debug)]
pub struct LaneGroup {
    /// The key.
    pub key: String,
    /// Holder lanes, by first acquire.
    pub lanes: Vec<Lane>,
    /// Overlap windows.
    pub overlaps: Vec<OverlapBox>,
    /// Sales under this key with no known holder.
    pub loose_sales: Vec<SaleMark>,
    /// Number of incidents on this key.
    pub incidents: usize,
    /// Findings on this key with no holder lane, sorted by time (drawn on
    /// the header row).
    pub findings: Vec<FindingMark>,
    /// Server events within the key's time (failover, promotion, restart,
    /// flush, eviction, shutdown, slow commands) or cited by its incidents,
    /// sorted by time: drawn across every lane of the key.
    pub server_marks: Vec<InfraMark>,
    /// Height of each of its lanes, points ([`super::layout::lane_height`];
    /// [`LANE_H`] as built).
    pub lane_h: f32,
}

/// Filters applied when building the model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Filters {
    /// Key text or regex.
    pub key: String,
    /// Holder substring.
    pub holder: String,
    /// Host substring.
    pub host: String,
    /// Only keys with incidents.
    pub only_incidents: bool,
    /// Keys pinned to the top of the lanes, in pinning order.
    pub pinned: Vec<String>,
}

/// The display list.
#[derive(Clone, Debug, Default)]
pub struct SwimlaneModel {
    /// Epoch ns of time 0 (the first event).
    pub t0_ns: i64,
    /// Log display zone, seconds east of UTC.
    pub log_offset_s: i32,
    /// Full extent, s.
    pub extent: (f64, f64),
    /// Incident windows `(start_s, end_s, key group index)` by incident id.
    pub incidents: Vec<Option<(f64, f64, usize)>>,
    /// Groups in key order.
    pub groups: Vec<LaneGroup>,
    /// True when the key filter is not a valid regex (matched as text).
    pub bad_regex: bool,
    /// The what-if replay docked under a key's group ([`SwimlaneModel::dock`]):
    /// its group's index and what it was built from (the caller's mark).
    pub docked: Option<(usize, u64)>,
}

/// Case-insensitive substring match; an empty filter matches everything.
fn matches_text(filter: &str, text: &str) -> bool {
    filter.is_empty() || text.to_lowercase().contains(&filter.to_lowercase())
}

/// The key filter: a case-insensitive regex, or the text itself when it is
/// not a valid regex.
struct KeyFilter<'a> {
    text: &'a str,
    regex: Option<regex::Regex>,
    bad_regex: bool,
}

impl<'a> KeyFilter<'a> {
    fn new(text: &'a str) -> KeyFilter<'a> {
        let (regex, bad_regex) = if text.is_empty() {
            (None, false)
        } else {
            match regex::RegexBuilder::new(text)
                .case_insensitive(true)
                .build()
            {
                Ok(re) => (Some(re), false),
                Err(_) => (None, true),
            }
        };
        KeyFilter {
            text,
            regex,
            bad_regex,
        }
    }

    fn matches(&self, key: &str) -> bool {
        match &self.regex {
            Some(re) => re.is_match(key),
            None => matches_text(self.text, key),
        }
    }
}

/// What one lock key's group is built from: indices into the analysis's
/// vectors, each in the analysis's order.
#[derive(Default)]
struct GroupParts {
    key: Option<Sym>,
    /// Shown leases ([`Analysis::leases`]).
    leases: Vec<LeaseId>,
    /// [`Analysis::server_view`].
    server: Vec<usize>,
    /// [`Analysis::overlaps`].
    overlaps: Vec<usize>,
    /// [`Analysis::sales`].
    sales: Vec<usize>,
    /// [`Analysis::findings`].
    findings: Vec<usize>,
}

/// What every group's build reads: the log, the analysis and the marks
/// computed once for all keys.
struct Shared<'a> {
    log: &'a LoadedLog,
    analysis: &'a Analysis,
    t0_ns: i64,
    near: HashSet<LeaseId>,
    in_overlap: HashSet<LeaseId>,
    incident_of_overlap: HashMap<OverlapId, IncidentId>,
    incidents_per_key: HashMap<Sym, usize>,
    /// Per lock key, the evidence its incidents cite: (line, hold's
    /// holder, matched by host).
    cited: HashMap<Sym, Vec<(usize, Sym, bool)>>,
    /// Every holder's label.
    names: &'a HolderNames,
}

impl Shared<'_> {
    fn name(&self, sym: Sym) -> String {
        self.log.strings.get(sym).to_string()
    }

    fn secs(&self, ns: i64) -> f64 {
        (ns - self.t0_ns) as f64 / 1e9
    }

    fn lease_bar(&self, l: &Lease, near_miss: bool, in_overlap: bool) -> LeaseBar {
        let secs = |ns| self.secs(ns);
        LeaseBar {
            lease: l.id,
            start_s: secs(l.acquired_ns),
            lock_end_s: secs(l.lock_end_ns),
            window_end_s: secs(l.window_end_ns),
            zombie: l.zombie_ns().map(|(a, b)| (secs(a), secs(b))),
            renewals: l.renewals_ns().iter().map(|&r| secs(r)).collect(),
            late_renewals: l.late_renewals_ns().iter().map(|&r| secs(r)).collect(),
            released_s: (l.window_end == WindowEnd::Released).then_some(secs(l.window_end_ns)),
            no_ttl: l.ttl_ms.get().is_none(),
            near_miss,
            in_overlap,
            inferred: l.inferred,
            ttl_ms: l.ttl_ms.get(),
            hold_ms: l.hold_ms(),
            lock_end: l.lock_end,
            window_end: l.window_end,
        }
    }

    /// True when the filters show lease `l`.
    fn shows(&self, l: &Lease, key_filter: &KeyFilter<'_>, filters: &Filters) -> bool {
        let strings = &self.log.strings;
        if !key_filter.matches(strings.get(l.key))
            || (filters.only_incidents && !self.incidents_per_key.contains_key(&l.key))
        {
            return false;
        }
        // The lane shows the host or thread beside the holder: the host
        // filter matches either.
        let host = l.host.map_or("", |h| strings.get(h));
        let thread = l.thread.map_or("", |t| strings.get(t));
        matches_text(&filters.holder, strings.get(l.holder))
            && (matches_text(&filters.host, host) || matches_text(&filters.host, thread))
    }

    /// Splits what is shown by lock key, keys in order of their first shown
    /// lease; returns the parts and each key's index among them.
    fn split_by_key(
        &self,
        key_filter: &KeyFilter<'_>,
        filters: &Filters,
    ) -> (Vec<GroupParts>, HashMap<Sym, usize>) {
        let a = self.analysis;
        let mut parts: Vec<GroupParts> = Vec::new();
        let mut group_of_key: HashMap<Sym, usize> = HashMap::default();
        for l in a
            .leases
            .iter()
            .filter(|l| self.shows(l, key_filter, filters))
        {
            let g = *group_of_key.entry(l.key).or_insert_with(|| {
                parts.push(GroupParts {
                    key: Some(l.key),
                    ..GroupParts::default()
                });
                parts.len() - 1
            });
            parts[g].leases.push(l.id);
        }
        let mut put = |key: Option<Sym>, i: usize, list: fn(&mut GroupParts) -> &mut Vec<usize>| {
            if let Some(&g) = key.and_then(|k| group_of_key.get(&k)) {
                list(&mut parts[g]).push(i);
            }
        };
        for (i, l) in a.server_view.iter().enumerate() {
            put(Some(l.key), i, |p| &mut p.server);
        }
        for (i, o) in a.overlaps.iter().enumerate() {
            put(Some(o.key), i, |p| &mut p.overlaps);
        }
        for (i, sale) in a.sales.iter().enumerate() {
            put(sale.key, i, |p| &mut p.sales);
        }
        for (i, f) in a.findings.iter().enumerate() {
            put(f.key, i, |p| &mut p.findings);
        }
        (parts, group_of_key)
    }

    /// One key's group: a lane per holder by first acquire (the server's
    /// lane first when a capture showed what it held), its overlaps, sales
    /// and findings.
    fn group(&self, parts: &GroupParts) -> LaneGroup {
        let a = self.analysis;
        let key = parts.key.expect("a group has a key");
        let mut g = LaneGroup {
            key: self.name(key),
            lanes: Vec::new(),
            overlaps: Vec::new(),
            loose_sales: Vec::new(),
            incidents: self.incidents_per_key.get(&key).copied().unwrap_or(0),
            findings: Vec::new(),
            server_marks: Vec::new(),
            lane_h: LANE_H,
        };
        // The lane of each holder; host and thread names shared by lanes.
        let mut lane_of: HashMap<Sym, usize> = HashMap::default();
        let mut names: HashMap<Sym, Arc<str>> = HashMap::default();
        let mut shared_name = |sym: Option<Sym>| -> Arc<str> {
            sym.map(|s| {
                names
                    .entry(s)
                    .or_insert_with(|| self.log.strings.get(s).into())
                    .clone()
            })
            .unwrap_or_default()
        };
        for &id in &parts.leases {
            let l = &a.leases[id];
            let lane = *lane_of.entry(l.holder).or_insert_with(|| {
                let label = self.names.label(self.log, l.holder).to_string();
                let mut lane = self.lane_named(self.name(l.holder), label);
                lane.host = shared_name(l.host);
                lane.thread = shared_name(l.thread);
                g.lanes.push(lane);
                g.lanes.len() - 1
            });
            let bar = self.lease_bar(
                l,
                self.near.contains(&l.id),
                self.in_overlap.contains(&l.id),
            );
            add_lease(&mut g.lanes[lane], bar);
        }
        if !parts.server.is_empty() {
            // What the server itself held, first; the holders' lanes move
            // down one.
            let mut server = self.lane_named(SERVER_LANE.to_string(), SERVER_LANE.to_string());
            for &i in &parts.server {
                let mut bar = self.lease_bar(&a.server_view[i], false, false);
                // Its holder's zombie part is the application's: the server
                // lane shows only what the server held.
                bar.zombie = None;
                add_lease(&mut server, bar);
            }
            g.lanes.insert(0, server);
            lane_of.values_mut().for_each(|lane| *lane += 1);
        }
        for &i in &parts.overlaps {
            g.overlaps
                .push(self.overlap_box(OverlapId::new(i), &lane_of));
        }
        for &i in &parts.sales {
            let sale = &a.sales[i];
            let mark = SaleMark {
                sale: i,
                at_s: self.secs(sale.at_ns),
                oversold_units: sale.oversold_units,
                quantity: sale.quantity,
                order_id: sale.order_id.map(|o| self.name(o)).unwrap_or_default(),
            };
            // On its holder's lane, or under the key when the holder has none.
            match sale.holder.and_then(|h| lane_of.get(&h)) {
                Some(&lane) => g.lanes[lane].sales.push(mark),
                None => g.loose_sales.push(mark),
            }
        }
        for &i in &parts.findings {
            let f = &a.findings[i];
            let mark = FindingMark {
                finding: i,
                kind: f.kind,
                at_s: self.secs(f.at_ns),
                detail: f.detail.clone(),
            };
            // On its holder's lane, else on the key's header row.
            match f.holder.and_then(|h| lane_of.get(&h)) {
                Some(&lane) => g.lanes[lane].findings.push(mark),
                None => g.findings.push(mark),
            }
        }
        self.infra_marks(key, &parts.leases, &mut g);
        sort_group(&mut g);
        g
    }

    /// An evidence line as drawn.
    fn infra_mark(&self, i: usize, ev: &Evidence, cited: bool, guess: bool) -> InfraMark {
        let start_s = self.secs(ev.at_ns);
        let file = crate::analysis::evidence::base_name(self.log, ev);
        let who = match (ev.origin, ev.host.as_deref()) {
            (EvidenceOrigin::RedisServer | EvidenceOrigin::Slowlog, _) | (_, None) => {
                ev.origin.as_str().to_string()
            }
            (origin, Some(host)) => format!("{} {host}", origin.as_str()),
        };
        InfraMark {
            evidence: i,
            kind: ev.kind,
            start_s,
            end_s: ev.end_ns.map_or(start_s, |e| self.secs(e)),
            cited,
            guess,
            detail: format!("{who}: {} ({file}:{})", ev.what, ev.source.line),
            also: 0,
        }
    }

    /// The key's server marks and its lanes' stalls: a server event within
    /// the key's time or cited by its incidents; a runtime pause within a
    /// lane's time whose line names the lane's host (or, when cited, tied
    /// by time only: a guess).
    fn infra_marks(&self, key: Sym, shown: &[LeaseId], g: &mut LaneGroup) {
        let evidence = &self.log.evidence;
        if evidence.is_empty() {
            return;
        }
        let a = self.analysis;
        let cited: &[(usize, Sym, bool)] = self.cited.get(&key).map_or(&[], Vec::as_slice);
        let span = |ids: &mut dyn Iterator<Item = &Lease>| {
            ids.fold((i64::MAX, i64::MIN), |(lo, hi), l| {
                (
                    lo.min(l.acquired_ns),
                    hi.max(l.lock_end_ns.max(l.window_end_ns)),
                )
            })
        };
        let (lo, hi) = span(&mut shown.iter().map(|&id| &a.leases[id]));
        for (i, ev) in evidence.iter().enumerate() {
            let server = ev.kind.loses_keys()
                || matches!(ev.kind, EvidenceKind::Shutdown | EvidenceKind::SlowCommand);
            let is_cited = cited.iter().any(|c| c.0 == i);
            let end = ev.end_ns.unwrap_or(ev.at_ns);
            if server && (is_cited || (ev.at_ns <= hi && end >= lo)) {
                let mark = self.infra_mark(i, ev, is_cited, false);
                merge_or_push(&mut g.server_marks, mark);
            }
        }
        for lane in g.lanes.iter_mut().filter(|l| l.holder != SERVER_LANE) {
            let holds: Vec<&Lease> = lane.leases.iter().map(|b| &a.leases[b.lease]).collect();
            let (Some(first), (lo, hi)) = (holds.first(), span(&mut holds.iter().copied())) else {
                continue;
            };
            for (i, ev) in evidence.iter().enumerate() {
                if !matches!(ev.kind, EvidenceKind::GcPause | EvidenceKind::Safepoint) {
                    continue;
                }
                let end = ev.end_ns.unwrap_or(ev.at_ns);
                let citation = cited.iter().find(|c| c.0 == i && c.1 == first.holder);
                let same_host = ev
                    .host
                    .as_deref()
                    .is_some_and(|h| crate::analysis::evidence::same_host(self.log, h, first));
                if (same_host && ev.at_ns <= hi && end >= lo) || citation.is_some() {
                    let guess = citation.is_some_and(|c| !c.2);
                    lane.stalls
                        .push(self.infra_mark(i, ev, citation.is_some(), guess));
                }
            }
        }
    }

    fn lane_named(&self, holder: String, label: String) -> Lane {
        Lane {
            label,
            holder,
            host: Arc::default(),
            thread: Arc::default(),
            leases: Vec::new(),
            max_len_s: 0.0,
            sales: Vec::new(),
            findings: Vec::new(),
            stalls: Vec::new(),
        }
    }

    /// Overlap `id`'s box; `lane_of` gives the group's lane of a holder.
    fn overlap_box(&self, id: OverlapId, lane_of: &HashMap<Sym, usize>) -> OverlapBox {
        let a = self.analysis;
        let o = &a.overlaps[id];
        let (e, l) = (&a.leases[o.earlier], &a.leases[o.later]);
        let lane = |x: &Lease| lane_of.get(&x.holder).copied();
        let handoff = lane(e).zip(lane(l)).map(|(from_lane, to_lane)| Handoff {
            from_s: self.secs(e.lock_end_ns),
            from_lane,
            to_s: self.secs(l.acquired_ns),
            to_lane,
        });
        OverlapBox {
            handoff,
            overlap: id,
            start_s: self.secs(o.start_ns),
            end_s: self.secs(o.end_ns),
            cause: o.cause,
            incident: self.incident_of_overlap.get(&id).copied(),
            holders: (self.name(e.holder), self.name(l.holder)),
        }
    }
}

fn add_lease(lane: &mut Lane, bar: LeaseBar) {
    // An open-ended lock (no TTL, never released) reaches every later
    // view, so the lane's culling must never skip it.
    let len_s = if bar.open_ended() {
        f64::INFINITY
    } else {
        bar.end_s() - bar.start_s
    };
    lane.max_len_s = lane.max_len_s.max(len_s);
    lane.leases.push(bar);
}

fn sort_group(g: &mut LaneGroup) {
    for lane in &mut g.lanes {
        lane.leases.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
        lane.sales.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
        lane.findings.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
        lane.stalls.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
    }
    g.findings.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
    g.server_marks
        .sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
}

/// The order groups are shown in: pinned keys first (in pinning order),
/// then keys with incidents (most first), then by first activity, then by
/// name: a big log's interesting keys are on top, not `product:10000`
/// because it sorts first. Returns the group indices in that order.
fn group_order(groups: &[LaneGroup], pinned: &[String]) -> Vec<usize> {
    let sort_key = |g: &LaneGroup| {
        let pin = pinned
            .iter()
            .position(|k| *k == g.key)
            .unwrap_or(usize::MAX);
        let first = g
            .lanes
            .iter()
            .filter_map(|l| l.leases.first().map(|b| b.start_s))
            .fold(f64::INFINITY, f64::min);
        (pin, g.incidents, first)
    };
    let keys: Vec<(usize, usize, f64)> = groups.iter().map(sort_key).collect();
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by(|&a, &b| {
        let (ka, kb) = (keys[a], keys[b]);
        ka.0.cmp(&kb.0)
            .then(kb.1.cmp(&ka.1))
            .then(ka.2.total_cmp(&kb.2))
            .then_with(|| groups[a].key.cmp(&groups[b].key))
    });
    order
}

/// Below this many shown leases the groups are built on the calling
/// thread: waking the rayon pool costs more than a small log takes.
const PARALLEL_MIN_LEASES: usize = 1 << 12;

impl SwimlaneModel {
    /// Builds the display list from `analysis` of `log` with `filters`.
    ///
    /// Each lock key's group is built on its own (in parallel for big
    /// logs: `rayon`, which keeps the order), with a lane map of its own
    /// holders only: a single map of every `(key, holder)` at 10 M events
    /// was most of the window's wait (docs/performance.md).
    pub fn build(log: &LoadedLog, analysis: &Analysis, filters: &Filters) -> SwimlaneModel {
        let names = HolderNames::of(log, analysis);
        Self::build_with(log, analysis, filters, (&names, PARALLEL_MIN_LEASES))
    }

    /// [`SwimlaneModel::build`] with the holders' labels made already
    /// (a report's pictures share one [`HolderNames`]).
    pub fn build_named(
        log: &LoadedLog,
        analysis: &Analysis,
        filters: &Filters,
        names: &HolderNames,
    ) -> SwimlaneModel {
        Self::build_with(log, analysis, filters, (names, PARALLEL_MIN_LEASES))
    }

    /// [`SwimlaneModel::build`], in parallel from `parallel_min` shown
    /// leases.
    fn build_with(
        log: &LoadedLog,
        analysis: &Analysis,
        filters: &Filters,
        (names, parallel_min): (&HolderNames, usize),
    ) -> SwimlaneModel {
        use rayon::prelude::*;
        let span_ns = analysis.time_span(log);
        let t0_ns = span_ns.map_or(0, |(first, _)| first);
        let key_filter = KeyFilter::new(&filters.key);
        let mut shared = Shared {
            log,
            analysis,
            t0_ns,
            near: analysis
                .findings
                .iter()
                .filter(|f| f.kind == FindingKind::NearMiss)
                .filter_map(|f| f.lease)
                .collect(),
            in_overlap: Incident::holds_in_overlaps(&analysis.incidents),
            incident_of_overlap: HashMap::default(),
            incidents_per_key: HashMap::default(),
            cited: HashMap::default(),
            names,
        };
        for c in &analysis.citations {
            let l = &analysis.leases[c.lease];
            shared
                .cited
                .entry(l.key)
                .or_default()
                .push((c.evidence, l.holder, c.tied));
        }
        for inc in &analysis.incidents {
            *shared.incidents_per_key.entry(inc.key).or_default() += 1;
            for &o in &inc.overlaps {
                shared.incident_of_overlap.insert(o, inc.id);
            }
        }
        let (parts, group_of_key) = shared.split_by_key(&key_filter, filters);
        let shown: usize = parts.iter().map(|p| p.leases.len()).sum();
        let built: Vec<LaneGroup> = if shown >= parallel_min {
            parts.par_iter().map(|p| shared.group(p)).collect()
        } else {
            parts.iter().map(|p| shared.group(p)).collect()
        };
        let order = group_order(&built, &filters.pinned);
        let mut place = vec![0; built.len()];
        for (to, &from) in order.iter().enumerate() {
            place[from] = to;
        }
        let mut slots: Vec<Option<LaneGroup>> = built.into_iter().map(Some).collect();
        let groups = order.iter().filter_map(|&g| slots[g].take()).collect();
        let incidents = analysis
            .incidents
            .iter()
            .map(|inc| {
                group_of_key
                    .get(&inc.key)
                    .map(|&g| (shared.secs(inc.start_ns), shared.secs(inc.end_ns), place[g]))
            })
            .collect();
        SwimlaneModel {
            t0_ns,
            log_offset_s: log.display_offset_s,
            extent: extent(analysis, span_ns, |ns| shared.secs(ns)),
            incidents,
            groups,
            bad_regex: key_filter.bad_regex,
            docked: None,
        }
    }

    /// Puts `group` (a what-if replay, [`crate::ui::panels::whatif`]) right
    /// under the group of lock key `key`, in place of any replay docked
    /// before; `mark` says what it was built from. Incident windows keep
    /// pointing at their groups. False (nothing docked) when `key` is not
    /// shown.
    pub fn dock(&mut self, key: &str, group: LaneGroup, mark: u64) -> bool {
        self.undock();
        let Some(g) = self.groups.iter().position(|x| x.key == key) else {
            return false;
        };
        let at = g + 1;
        self.groups.insert(at, group);
        for (_, _, gi) in self.incidents.iter_mut().flatten() {
            if *gi >= at {
                *gi += 1;
            }
        }
        self.docked = Some((at, mark));
        true
    }

    /// Takes the docked replay out, if any.
    pub fn undock(&mut self) {
        let Some((at, _)) = self.docked.take() else {
            return;
        };
        if at < self.groups.len() {
            self.groups.remove(at);
        }
        for (_, _, gi) in self.incidents.iter_mut().flatten() {
            if *gi > at {
                *gi -= 1;
            }
        }
    }
}

/// From the first event to the last event or lease end, s (at least 1 ms).
/// `span_ns`: the first and last event time ([`Analysis::time_span`]).
fn extent(
    analysis: &Analysis,
    span_ns: Option<(i64, i64)>,
    secs: impl Fn(i64) -> f64,
) -> (f64, f64) {
    let (first, last_event) = span_ns.unwrap_or((0, 0));
    let last = last_event.max(
        analysis
            .leases
            .iter()
            .map(|l| l.lock_end_ns.max(l.window_end_ns))
            .max()
            .unwrap_or(0),
    );
    (secs(first), secs(last).max(secs(first) + 0.001))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Settings, analyze};
    use crate::ingest::{IngestOptions, Progress, read_source};
    use crate::model::LogBuilder;
    use crate::sim::{SimArgs, simulate};

    /// A simulated flash sale over several keys, with overlaps and sales.
    fn sim_log() -> LoadedLog {
        let args = SimArgs {
            buyers: 80,
            products: 6,
            hosts: 3,
            slow_prob: 0.3,
            initial_stock: 8,
            ..SimArgs::default()
        };
        let mut buf = Vec::new();
        simulate(&args, &mut buf).expect("simulates");
        let mut builder = LogBuilder::new();
        let (opts, progress) = (IngestOptions::default(), Progress::default());
        read_source("sim.jsonl", &buf[..], &opts, &mut builder, &progress).expect("reads");
        builder.finish()
    }

    /// The model of a folder of `tests/fixtures/infra`.
    fn infra_model(folder: &str) -> SwimlaneModel {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/infra")
            .join(folder);
        let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
            .expect("fixture folder")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .collect();
        paths.sort();
        let (opts, progress) = (IngestOptions::default(), Progress::default());
        let log = crate::ingest::load_paths(&paths, &opts, &progress).expect("loads");
        let a = analyze(&log, &Settings::default());
        SwimlaneModel::build(&log, &a, &Filters::default())
    }

    #[test]
    fn a_failover_is_marked_across_the_key_once_and_cited() {
        // Sentinel's three `+switch-master` lines (one per Sentinel, 2 ms
        // apart) are one mark; the cited one stands for it.
        let m = infra_model("failover");
        let g = &m.groups[0];
        let failovers: Vec<&InfraMark> = g
            .server_marks
            .iter()
            .filter(|k| k.kind == EvidenceKind::Failover)
            .collect();
        assert_eq!(failovers.len(), 1, "{:?}", g.server_marks);
        assert!(
            failovers[0].cited && failovers[0].also == 2,
            "{:?}",
            failovers[0]
        );
        assert!(
            failovers[0].detail.contains("+switch-master"),
            "{}",
            failovers[0].detail
        );
        assert!(g.lanes.iter().all(|l| l.stalls.is_empty()));
    }

    #[test]
    fn a_gc_pause_is_on_its_holders_lane_only() {
        let m = infra_model("gc-pause");
        let g = &m.groups[0];
        let with: Vec<&str> = g
            .lanes
            .iter()
            .filter(|l| !l.stalls.is_empty())
            .map(|l| l.host.as_ref())
            .collect();
        assert_eq!(with, ["web-01"], "{:?}", g.lanes);
        let pause = g.lanes.iter().flat_map(|l| &l.stalls).find(|s| s.cited);
        let ms = pause.map_or(0.0, InfraMark::length_ms);
        assert!((ms - 3968.3).abs() < 1.0, "{ms}");
        assert!(g.server_marks.is_empty(), "{:?}", g.server_marks);
    }

    #[test]
    fn groups_built_in_parallel_are_the_groups_built_one_after_another() {
        let log = sim_log();
        let a = analyze(&log, &Settings::default());
        assert!(
            !a.overlaps.is_empty() && !a.sales.is_empty(),
            "the log has something to show"
        );
        let pinned = Filters {
            pinned: vec![
                log.strings
                    .get(a.leases[a.leases.len() - 1].key)
                    .to_string(),
            ],
            ..Filters::default()
        };
        let only = Filters {
            only_incidents: true,
            ..Filters::default()
        };
        for filters in [Filters::default(), pinned, only] {
            let names = HolderNames::of(&log, &a);
            let serial = SwimlaneModel::build_with(&log, &a, &filters, (&names, usize::MAX));
            let parallel = SwimlaneModel::build_with(&log, &a, &filters, (&names, 0));
            assert!(serial.groups.len() > 1, "{filters:?}");
            assert_eq!(
                format!("{serial:?}"),
                format!("{parallel:?}"),
                "{filters:?}"
            );
        }
    }
}

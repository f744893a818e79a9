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
    /// A group whose lanes are not built yet ([`SwimlaneModel::build_lazy`]):
    /// what builds it and how many lanes it will have. Its lanes, overlaps,
    /// sales, findings and marks are empty until then.
    pub pending: Option<Pending>,
}

/// A group not built yet: its parts in the model's [`LazySource`] and its
/// lane count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    part: usize,
    /// Lanes it will have.
    pub lanes: usize,
}

impl LaneGroup {
    /// A group of lock key `key` with nothing in it, its lanes [`LANE_H`]
    /// high.
    pub fn empty(key: String) -> LaneGroup {
        LaneGroup {
            key,
            lanes: Vec::new(),
            overlaps: Vec::new(),
            loose_sales: Vec::new(),
            incidents: 0,
            findings: Vec::new(),
            server_marks: Vec::new(),
            lane_h: LANE_H,
            pending: None,
        }
    }

    /// Its lanes: as built, or as many as it will have when it is.
    pub fn lane_count(&self) -> usize {
        self.pending.map_or(self.lanes.len(), |p| p.lanes)
    }

    /// True when its lanes are built.
    pub fn is_built(&self) -> bool {
        self.pending.is_none()
    }
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
    /// What builds the groups not built yet ([`SwimlaneModel::build_lazy`]);
    /// `None` once every group is built.
    pub lazy: Option<Arc<LazySource>>,
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

/// The marks every group's build reads, computed once for all keys.
#[derive(Default)]
struct Marks {
    /// Epoch ns of time 0 (the first event).
    t0_ns: i64,
    near: HashSet<LeaseId>,
    in_overlap: HashSet<LeaseId>,
    incident_of_overlap: HashMap<OverlapId, IncidentId>,
    incidents_per_key: HashMap<Sym, usize>,
    /// Per lock key, the evidence its incidents cite: (line, hold's
    /// holder, matched by host).
    cited: HashMap<Sym, Vec<(usize, Sym, bool)>>,
}

impl Marks {
    /// The marks of `analysis`, times from `t0_ns`.
    fn of(analysis: &Analysis, t0_ns: i64) -> Marks {
        let mut marks = Marks {
            t0_ns,
            near: analysis
                .findings
                .iter()
                .filter(|f| f.kind == FindingKind::NearMiss)
                .filter_map(|f| f.lease)
                .collect(),
            in_overlap: Incident::holds_in_overlaps(&analysis.incidents),
            ..Marks::default()
        };
        for c in &analysis.citations {
            let l = &analysis.leases[c.lease];
            marks
                .cited
                .entry(l.key)
                .or_default()
                .push((c.evidence, l.holder, c.tied));
        }
        for inc in &analysis.incidents {
            *marks.incidents_per_key.entry(inc.key).or_default() += 1;
            for &o in &inc.overlaps {
                marks.incident_of_overlap.insert(o, inc.id);
            }
        }
        marks
    }
}

/// What every group's build reads: the log, the analysis, the holders'
/// labels and the marks.
struct Shared<'a> {
    log: &'a LoadedLog,
    analysis: &'a Analysis,
    marks: &'a Marks,
    /// Every holder's label.
    names: &'a HolderNames,
}

/// The groups to show, in the order shown, before any is built.
struct Plan {
    /// What each group is built from.
    parts: Vec<GroupParts>,
    /// How many lanes each group has.
    lanes: Vec<usize>,
    /// Each shown key's group.
    group_of_key: HashMap<Sym, usize>,
}

impl Shared<'_> {
    fn name(&self, sym: Sym) -> String {
        self.log.strings.get(sym).to_string()
    }

    fn secs(&self, ns: i64) -> f64 {
        (ns - self.marks.t0_ns) as f64 / 1e9
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
            || (filters.only_incidents && !self.marks.incidents_per_key.contains_key(&l.key))
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
    /// lease.
    fn split_by_key(&self, key_filter: &KeyFilter<'_>, filters: &Filters) -> Vec<GroupParts> {
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
        parts
    }

    /// The groups `filters` show, in the order shown ([`group_order`]),
    /// each with its lane count, none built yet.
    fn plan(&self, key_filter: &KeyFilter<'_>, filters: &Filters) -> Plan {
        use rayon::prelude::*;
        let parts = self.split_by_key(key_filter, filters);
        let shown: usize = parts.iter().map(|p| p.leases.len()).sum();
        let facts: Vec<(usize, f64)> = if shown >= PARALLEL_MIN_LEASES {
            parts.par_iter().map(|p| self.facts(p)).collect()
        } else {
            parts.iter().map(|p| self.facts(p)).collect()
        };
        let keys: Vec<(&str, usize, f64)> = parts
            .iter()
            .zip(&facts)
            .map(|(p, &(_, first_s))| {
                let key = p.key.expect("a group has a key");
                let incidents = self.marks.incidents_per_key.get(&key).copied();
                (self.log.strings.get(key), incidents.unwrap_or(0), first_s)
            })
            .collect();
        let order = group_order(&keys, &filters.pinned);
        let lanes = order.iter().map(|&g| facts[g].0).collect();
        let mut slots: Vec<Option<GroupParts>> = parts.into_iter().map(Some).collect();
        let parts: Vec<GroupParts> = order.iter().filter_map(|&g| slots[g].take()).collect();
        let group_of_key = parts
            .iter()
            .enumerate()
            .filter_map(|(g, p)| Some((p.key?, g)))
            .collect();
        Plan {
            parts,
            lanes,
            group_of_key,
        }
    }

    /// A group's lane count (one a holder, and the server's lane) and the
    /// start of its first lease, s, before it is built.
    fn facts(&self, parts: &GroupParts) -> (usize, f64) {
        let a = self.analysis;
        let mut holders: Vec<Sym> = parts.leases.iter().map(|&id| a.leases[id].holder).collect();
        holders.sort_unstable();
        holders.dedup();
        let server = parts.server.iter().map(|&i| &a.server_view[i]);
        let first_ns = parts
            .leases
            .iter()
            .map(|&id| &a.leases[id])
            .chain(server)
            .map(|l| l.acquired_ns)
            .min();
        let lanes = holders.len() + usize::from(!parts.server.is_empty());
        (lanes, first_ns.map_or(f64::INFINITY, |ns| self.secs(ns)))
    }

    /// A group as shown before it is built: its key's header, and room for
    /// `lanes` lanes; part `part` of the model's [`LazySource`] builds it.
    fn shell(&self, parts: &GroupParts, part: usize, lanes: usize) -> LaneGroup {
        LaneGroup {
            pending: Some(Pending { part, lanes }),
            ..self.header(parts)
        }
    }

    /// The group of `parts`'s key with its header only.
    fn header(&self, parts: &GroupParts) -> LaneGroup {
        let key = parts.key.expect("a group has a key");
        LaneGroup {
            incidents: self.marks.incidents_per_key.get(&key).copied().unwrap_or(0),
            ..LaneGroup::empty(self.name(key))
        }
    }

    /// One key's group: a lane per holder by first acquire (the server's
    /// lane first when a capture showed what it held), its overlaps, sales
    /// and findings.
    fn group(&self, parts: &GroupParts) -> LaneGroup {
        let a = self.analysis;
        let key = parts.key.expect("a group has a key");
        let mut g = self.header(parts);
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
                self.marks.near.contains(&l.id),
                self.marks.in_overlap.contains(&l.id),
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
        let cited: &[(usize, Sym, bool)] = self.marks.cited.get(&key).map_or(&[], Vec::as_slice);
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
            incident: self.marks.incident_of_overlap.get(&id).copied(),
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
/// because it sorts first. `keys`: each group's key, incident count and
/// first lease start, s. Returns the group indices in that order.
fn group_order(keys: &[(&str, usize, f64)], pinned: &[String]) -> Vec<usize> {
    let pin = |key: &str| pinned.iter().position(|k| k == key).unwrap_or(usize::MAX);
    let pins: Vec<usize> = keys.iter().map(|k| pin(k.0)).collect();
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| {
        let (ka, kb) = (keys[a], keys[b]);
        pins[a]
            .cmp(&pins[b])
            .then(kb.1.cmp(&ka.1))
            .then(ka.2.total_cmp(&kb.2))
            .then_with(|| ka.0.cmp(kb.0))
    });
    order
}

/// Below this many shown leases the groups are built on the calling
/// thread: waking the rayon pool costs more than a small log takes.
const PARALLEL_MIN_LEASES: usize = 1 << 12;

/// A lazily built model builds at once the groups, from the top, of at
/// least this many lanes: more than a screen of the tallest window shows
/// at [`LANE_H`], so its first frame has no group still to build.
pub const FIRST_LANES: usize = 400;

/// A lazily built model of at most this many lanes is built whole at once,
/// so nothing a small log shows is ever pending. The rule counts lanes, not
/// leases: a few holders with millions of leases are built at once, as every
/// model was before the lazy build (a group is the unit either way).
pub const WHOLE_MAX_LANES: usize = 4_000;

/// The plot's height assumed before the window has laid it out, points.
pub const FALLBACK_PLOT_H: f32 = 1_200.0;

/// How many groups, from the top, [`SwimlaneModel::build_lazy`] builds at
/// once, given each group's lane count: all of them up to
/// [`WHOLE_MAX_LANES`] lanes, else the fewest (at least one) holding
/// [`FIRST_LANES`].
fn first_groups(lanes: &[usize]) -> usize {
    if lanes.iter().sum::<usize>() <= WHOLE_MAX_LANES {
        return lanes.len();
    }
    let mut sum = 0;
    for (g, &n) in lanes.iter().enumerate() {
        sum += n;
        if sum >= FIRST_LANES {
            return g + 1;
        }
    }
    lanes.len()
}

/// What a lazily built model builds its groups from
/// ([`SwimlaneModel::build_lazy`]): the log, its analysis, the holders'
/// labels, the marks and each group's parts, in the order shown.
pub struct LazySource {
    log: Arc<LoadedLog>,
    analysis: Arc<Analysis>,
    names: Arc<HolderNames>,
    marks: Marks,
    parts: Vec<GroupParts>,
}

impl LazySource {
    fn shared(&self) -> Shared<'_> {
        Shared {
            log: &self.log,
            analysis: &self.analysis,
            marks: &self.marks,
            names: &self.names,
        }
    }
}

impl std::fmt::Debug for LazySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LazySource({} groups)", self.parts.len())
    }
}

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
        let marks = Marks::of(analysis, span_ns.map_or(0, |(first, _)| first));
        let shared = Shared {
            log,
            analysis,
            marks: &marks,
            names,
        };
        let key_filter = KeyFilter::new(&filters.key);
        let plan = shared.plan(&key_filter, filters);
        let shown: usize = plan.parts.iter().map(|p| p.leases.len()).sum();
        let groups = if shown >= parallel_min {
            plan.parts.par_iter().map(|p| shared.group(p)).collect()
        } else {
            plan.parts.iter().map(|p| shared.group(p)).collect()
        };
        Self::of_groups(&shared, (span_ns, &plan.group_of_key), groups, &key_filter)
    }

    /// The model of `groups` (in the order shown; `group_of_key` gives a
    /// key's) over `span_ns` ([`Analysis::time_span`]).
    fn of_groups(
        shared: &Shared<'_>,
        (span_ns, group_of_key): (Option<(i64, i64)>, &HashMap<Sym, usize>),
        groups: Vec<LaneGroup>,
        key_filter: &KeyFilter<'_>,
    ) -> SwimlaneModel {
        let incidents = shared
            .analysis
            .incidents
            .iter()
            .map(|inc| {
                group_of_key
                    .get(&inc.key)
                    .map(|&g| (shared.secs(inc.start_ns), shared.secs(inc.end_ns), g))
            })
            .collect();
        SwimlaneModel {
            t0_ns: shared.marks.t0_ns,
            log_offset_s: shared.log.display_offset_s,
            extent: extent(shared.analysis, span_ns, |ns| shared.secs(ns)),
            incidents,
            groups,
            bad_regex: key_filter.bad_regex,
            docked: None,
            lazy: None,
        }
    }

    /// [`SwimlaneModel::build_named`] for the window: every group's header
    /// and lane count at once, but its lanes only when they come into view
    /// ([`SwimlaneModel::build_in_view`]). The groups of the first
    /// [`FIRST_LANES`] lanes are built now, and all of them when there are
    /// at most [`WHOLE_MAX_LANES`]. At 10 M events the whole display list
    /// is 2 M lanes, built in 2.3 s on a first open, most of it the
    /// kernel handing out fresh pages (docs/performance.md).
    pub fn build_lazy(
        log: &Arc<LoadedLog>,
        analysis: &Arc<Analysis>,
        filters: &Filters,
        names: &Arc<HolderNames>,
    ) -> SwimlaneModel {
        Self::build_lazy_with((log, analysis, names), filters, first_groups)
    }

    /// [`SwimlaneModel::build_lazy`], building at once the number of
    /// groups `first` gives for their lane counts.
    fn build_lazy_with(
        (log, analysis, names): (&Arc<LoadedLog>, &Arc<Analysis>, &Arc<HolderNames>),
        filters: &Filters,
        first: impl Fn(&[usize]) -> usize,
    ) -> SwimlaneModel {
        let span_ns = analysis.time_span(log);
        let marks = Marks::of(analysis, span_ns.map_or(0, |(first, _)| first));
        let key_filter = KeyFilter::new(&filters.key);
        let shared = Shared {
            log,
            analysis,
            marks: &marks,
            names,
        };
        let plan = shared.plan(&key_filter, filters);
        let shells = plan.parts.iter().zip(&plan.lanes).enumerate();
        let groups = shells.map(|(i, (p, &n))| shared.shell(p, i, n)).collect();
        let mut model =
            Self::of_groups(&shared, (span_ns, &plan.group_of_key), groups, &key_filter);
        model.lazy = Some(Arc::new(LazySource {
            log: log.clone(),
            analysis: analysis.clone(),
            names: names.clone(),
            marks,
            parts: plan.parts,
        }));
        let first = first(&plan.lanes);
        model.build_groups(0..first);
        model
    }

    /// Builds the groups in `range` not built yet; true when it built one.
    pub fn build_groups(&mut self, range: std::ops::Range<usize>) -> bool {
        use rayon::prelude::*;
        let Some(source) = self.lazy.clone() else {
            return false;
        };
        let end = range.end.min(self.groups.len());
        let todo: Vec<(usize, usize)> = (range.start.min(end)..end)
            .filter_map(|g| self.groups[g].pending.map(|p| (g, p.part)))
            .collect();
        if todo.is_empty() {
            return false;
        }
        let shared = source.shared();
        let leases: usize = todo
            .iter()
            .map(|&(_, p)| source.parts[p].leases.len())
            .sum();
        let built: Vec<LaneGroup> = if leases >= PARALLEL_MIN_LEASES {
            todo.par_iter()
                .map(|&(_, p)| shared.group(&source.parts[p]))
                .collect()
        } else {
            todo.iter()
                .map(|&(_, p)| shared.group(&source.parts[p]))
                .collect()
        };
        for (&(g, _), mut group) in todo.iter().zip(built) {
            debug_assert_eq!(
                Some(group.lanes.len()),
                self.groups[g].pending.map(|p| p.lanes)
            );
            group.lane_h = self.groups[g].lane_h;
            self.groups[g] = group;
        }
        if self.groups.iter().all(LaneGroup::is_built) {
            self.lazy = None;
        }
        true
    }

    /// Builds every group not built yet (a picture's legend says what the
    /// whole model holds); true when it built one.
    pub fn build_all(&mut self) -> bool {
        self.build_groups(0..self.groups.len())
    }

    /// Builds the groups a plot `plot_h` points high scrolled by
    /// `scroll_y` shows, and those of a screen above and below it (so a
    /// scroll rarely comes to a group not built); true when it built one.
    /// A plot not laid out yet (`plot_h` 0) counts as [`FALLBACK_PLOT_H`].
    pub fn build_in_view(&mut self, scroll_y: f32, plot_h: f32) -> bool {
        if self.lazy.is_none() {
            return false;
        }
        let screen = if plot_h > 0.0 {
            plot_h
        } else {
            FALLBACK_PLOT_H
        };
        let range = self.groups_between(scroll_y - screen, scroll_y + 2.0 * screen);
        self.build_groups(range)
    }

    /// The groups reaching into `[top, bottom)`, points from the first
    /// group's top.
    pub fn groups_between(&self, top: f32, bottom: f32) -> std::ops::Range<usize> {
        let mut y = 0.0f32;
        let (mut first, mut end) = (self.groups.len(), 0);
        for (g, group) in self.groups.iter().enumerate() {
            if y >= bottom {
                break;
            }
            let next = y + group.height();
            if next > top {
                first = first.min(g);
                end = g + 1;
            }
            y = next;
        }
        first.min(end)..end
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

    /// The groups of `m` as text, built or not, and its incidents' groups.
    fn shown(m: &SwimlaneModel) -> String {
        format!(
            "{:?} {:?} {:?} {:?}",
            m.groups, m.incidents, m.extent, m.t0_ns
        )
    }

    #[test]
    fn a_model_built_lazily_is_the_model_built_whole() {
        let log = Arc::new(sim_log());
        let a = Arc::new(analyze(&log, &Settings::default()));
        let names = Arc::new(HolderNames::of(&log, &a));
        let pinned = Filters {
            pinned: vec![log.strings.get(a.leases[0].key).to_string()],
            ..Filters::default()
        };
        for filters in [Filters::default(), pinned] {
            let whole = SwimlaneModel::build_named(&log, &a, &filters, &names);
            assert!(whole.groups.len() > 2, "{}", whole.groups.len());
            // Only the first group built at once.
            let mut lazy = SwimlaneModel::build_lazy_with((&log, &a, &names), &filters, |_| 1);
            let built: Vec<bool> = lazy.groups.iter().map(LaneGroup::is_built).collect();
            assert!(built[0]);
            assert!(built[1..].iter().all(|b| !b), "{built:?}");
            // Same keys, order, lane counts and heights before a lane is built.
            let heads = |m: &SwimlaneModel| -> Vec<(String, usize, usize)> {
                let g = m.groups.iter();
                g.map(|g| (g.key.clone(), g.incidents, g.lane_count()))
                    .collect()
            };
            assert_eq!(heads(&lazy), heads(&whole));
            assert_eq!(lazy.content_height(), whole.content_height());
            assert_eq!(lazy.incidents, whole.incidents);
            assert!(lazy.lazy.is_some());
            assert!(lazy.build_all());
            assert!(lazy.lazy.is_none(), "the source goes once all is built");
            assert!(!lazy.build_all(), "nothing left to build");
            assert_eq!(shown(&lazy), shown(&whole), "{filters:?}");
        }
    }

    #[test]
    fn the_groups_in_view_are_built_and_no_others() {
        let log = Arc::new(sim_log());
        let a = Arc::new(analyze(&log, &Settings::default()));
        let names = Arc::new(HolderNames::of(&log, &a));
        let f = Filters::default();
        let mut m = SwimlaneModel::build_lazy_with((&log, &a, &names), &f, |_| 0);
        assert!(m.groups.iter().all(|g| !g.is_built()));
        let n = m.groups.len();
        // Scrolled to the top of the third group, a plot 1 point high: the
        // group above reaches into the screen above it, none below.
        let (top, h) = (m.group_top(2), 1.0);
        let want = m.groups_between(top - h, top + 2.0 * h);
        assert_eq!(want, 1..3);
        assert!(n > 3, "{n}");
        assert!(m.build_in_view(top, h));
        for (g, group) in m.groups.iter().enumerate() {
            assert_eq!(group.is_built(), want.contains(&g), "group {g} of {n}");
        }
        assert!(!m.build_in_view(top, h), "built already");
    }

    #[test]
    fn the_groups_between_two_heights_are_those_reaching_into_them() {
        let group = |lanes: usize| LaneGroup {
            pending: Some(Pending { part: 0, lanes }),
            ..LaneGroup::empty(String::new())
        };
        let m = SwimlaneModel {
            groups: vec![group(1), group(3), group(2)],
            ..SwimlaneModel::default()
        };
        let h: Vec<f32> = m.groups.iter().map(LaneGroup::height).collect();
        assert_eq!(h[1], 22.0 + 3.0 * LANE_H + 6.0);
        assert_eq!(m.groups_between(0.0, 1.0), 0..1);
        assert_eq!(m.groups_between(h[0] - 1.0, h[0] + 1.0), 0..2);
        // A group starting exactly at the bottom is not in.
        assert_eq!(m.groups_between(h[0], h[0] + h[1]), 1..2);
        assert_eq!(m.groups_between(-500.0, 1e6), 0..3);
        assert!(m.groups_between(1e6, 2e6).is_empty());
    }

    #[test]
    fn a_small_model_is_built_whole_and_a_big_one_from_the_top() {
        assert_eq!(first_groups(&[10, 20, 30]), 3);
        assert_eq!(first_groups(&[WHOLE_MAX_LANES, 1]), 1);
        assert_eq!(first_groups(&[FIRST_LANES - 1, 1, WHOLE_MAX_LANES]), 2);
        // One huge group first: that one.
        assert_eq!(first_groups(&[WHOLE_MAX_LANES + 1, 5, 5]), 1);
        assert_eq!(first_groups(&[]), 0);
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

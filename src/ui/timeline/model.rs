//! The timeline's display list: lock keys, holder lanes, leases, overlap
//! windows and sales as plain data in seconds since the first event, built
//! from the [`Analysis`] only when the data or the filters change.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::analysis::{
    Analysis, Cause, FindingKind, Incident, IncidentId, Lease, LeaseId, LockEnd, OverlapId,
    WindowEnd,
};
use crate::model::{LoadedLog, Sym};

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
    /// The finding's plain-words detail (for the tooltip).
    pub detail: String,
}

/// One holder's row.
#[derive(Clone, Debug)]
pub struct Lane {
    /// Holder.
    pub holder: String,
    /// Host of its first lease.
    pub host: String,
    /// Thread of its first lease.
    pub thread: String,
    /// Leases sorted by start.
    pub leases: Vec<LeaseBar>,
    /// Longest lease, s (to find the first visible one by binary search).
    pub max_len_s: f64,
    /// Sales sorted by time.
    pub sales: Vec<SaleMark>,
    /// Findings on this holder and key, sorted by time.
    pub findings: Vec<FindingMark>,
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

/// The model under construction: groups by key, lanes by `(key, holder)`.
struct Builder<'a> {
    log: &'a LoadedLog,
    t0_ns: i64,
    groups: Vec<LaneGroup>,
    group_of_key: HashMap<Sym, usize>,
    lane_of: HashMap<(Sym, Sym), (usize, usize)>,
}

impl Builder<'_> {
    fn name(&self, sym: Sym) -> String {
        self.log.strings.get(sym).to_string()
    }

    fn secs(&self, ns: i64) -> f64 {
        (ns - self.t0_ns) as f64 / 1e9
    }

    /// The lane of `l`'s key and holder, creating both when new.
    fn lane_for(&mut self, l: &Lease, incidents_on_key: usize) -> (usize, usize) {
        let g = match self.group_of_key.get(&l.key) {
            Some(&g) => g,
            None => {
                let key = self.name(l.key);
                self.groups.push(LaneGroup {
                    key,
                    lanes: Vec::new(),
                    overlaps: Vec::new(),
                    loose_sales: Vec::new(),
                    incidents: incidents_on_key,
                    findings: Vec::new(),
                });
                self.group_of_key.insert(l.key, self.groups.len() - 1);
                self.groups.len() - 1
            }
        };
        if let Some(&at) = self.lane_of.get(&(l.key, l.holder)) {
            return at;
        }
        let lane = Lane {
            holder: self.name(l.holder),
            host: l.host.map(|h| self.name(h)).unwrap_or_default(),
            thread: l.thread.map(|t| self.name(t)).unwrap_or_default(),
            leases: Vec::new(),
            max_len_s: 0.0,
            sales: Vec::new(),
            findings: Vec::new(),
        };
        let lanes = &mut self.groups[g].lanes;
        lanes.push(lane);
        let at = (g, lanes.len() - 1);
        self.lane_of.insert((l.key, l.holder), at);
        at
    }

    fn lease_bar(&self, l: &Lease, near_miss: bool, in_overlap: bool) -> LeaseBar {
        let secs = |ns| self.secs(ns);
        LeaseBar {
            lease: l.id,
            start_s: secs(l.acquired_ns),
            lock_end_s: secs(l.lock_end_ns),
            window_end_s: secs(l.window_end_ns),
            zombie: l.zombie_ns().map(|(a, b)| (secs(a), secs(b))),
            renewals: l.renewals_ns.iter().map(|&r| secs(r)).collect(),
            late_renewals: l.late_renewals_ns.iter().map(|&r| secs(r)).collect(),
            released_s: (l.window_end == WindowEnd::Released).then_some(secs(l.window_end_ns)),
            no_ttl: l.ttl_ms.is_none(),
            near_miss,
            in_overlap,
            inferred: l.inferred,
            ttl_ms: l.ttl_ms,
            hold_ms: l.hold_ms(),
            lock_end: l.lock_end,
            window_end: l.window_end,
        }
    }

    fn add_lease(&mut self, at: (usize, usize), bar: LeaseBar) {
        let lane = &mut self.groups[at.0].lanes[at.1];
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

    fn add_overlaps(
        &mut self,
        analysis: &Analysis,
        incident_of_overlap: &HashMap<OverlapId, IncidentId>,
    ) {
        for (i, o) in analysis.overlaps.iter().enumerate() {
            let i = OverlapId::new(i);
            let Some(&g) = self.group_of_key.get(&o.key) else {
                continue;
            };
            let holder = |l: LeaseId| self.name(analysis.leases[l].holder);
            let (e, l) = (&analysis.leases[o.earlier], &analysis.leases[o.later]);
            let lane = |x: &Lease| self.lane_of.get(&(x.key, x.holder)).map(|&(_, li)| li);
            let handoff = lane(e).zip(lane(l)).map(|(from_lane, to_lane)| Handoff {
                from_s: self.secs(e.lock_end_ns),
                from_lane,
                to_s: self.secs(l.acquired_ns),
                to_lane,
            });
            let overlap = OverlapBox {
                handoff,
                overlap: i,
                start_s: self.secs(o.start_ns),
                end_s: self.secs(o.end_ns),
                cause: o.cause,
                incident: incident_of_overlap.get(&i).copied(),
                holders: (holder(o.earlier), holder(o.later)),
            };
            self.groups[g].overlaps.push(overlap);
        }
    }

    /// Sales go on their holder's lane, or under the key when the holder
    /// has no lane.
    fn add_sales(&mut self, analysis: &Analysis) {
        for (i, sale) in analysis.sales.iter().enumerate() {
            let Some(key) = sale.key else { continue };
            let mark = SaleMark {
                sale: i,
                at_s: self.secs(sale.at_ns),
                oversold_units: sale.oversold_units,
                quantity: sale.quantity,
                order_id: sale.order_id.map(|o| self.name(o)).unwrap_or_default(),
            };
            match sale.holder.and_then(|h| self.lane_of.get(&(key, h))) {
                Some(&(g, li)) => self.groups[g].lanes[li].sales.push(mark),
                None => {
                    if let Some(&g) = self.group_of_key.get(&key) {
                        self.groups[g].loose_sales.push(mark);
                    }
                }
            }
        }
    }

    /// What the server held (the analysis's server view, from a MONITOR
    /// capture): one more lane under each shown key that has any, named
    /// [`SERVER_LANE`], first in the group.
    fn add_server_lanes(&mut self, analysis: &Analysis) {
        for l in &analysis.server_view {
            let Some(&g) = self.group_of_key.get(&l.key) else {
                continue;
            };
            let lanes = &mut self.groups[g].lanes;
            if lanes.first().is_none_or(|x| x.holder != SERVER_LANE) {
                lanes.insert(
                    0,
                    Lane {
                        holder: SERVER_LANE.to_string(),
                        host: String::new(),
                        thread: String::new(),
                        leases: Vec::new(),
                        max_len_s: 0.0,
                        sales: Vec::new(),
                        findings: Vec::new(),
                    },
                );
                // The holders' lanes moved down one.
                for at in self.lane_of.values_mut().filter(|at| at.0 == g) {
                    at.1 += 1;
                }
            }
            let mut bar = self.lease_bar(l, false, false);
            // Its holder's zombie part is the application's: the server
            // lane shows only what the server held.
            bar.zombie = None;
            self.add_lease((g, 0), bar);
        }
    }

    /// Every finding on a shown key gets a marker: on its holder's lane,
    /// else on the key's header row.
    fn add_findings(&mut self, analysis: &Analysis) {
        for (i, f) in analysis.findings.iter().enumerate() {
            let Some(key) = f.key else { continue };
            let Some(&g) = self.group_of_key.get(&key) else {
                continue;
            };
            let mark = FindingMark {
                finding: i,
                kind: f.kind,
                at_s: self.secs(f.at_ns),
                detail: f.detail.clone(),
            };
            match f.holder.and_then(|h| self.lane_of.get(&(key, h))) {
                Some(&(g, li)) => self.groups[g].lanes[li].findings.push(mark),
                None => self.groups[g].findings.push(mark),
            }
        }
    }

    /// Pinned keys first (in pinning order), then keys with incidents (most
    /// first), then by first activity, then by name: a big log's
    /// interesting keys are on top, not `product:10000` because it sorts
    /// first.
    fn order_groups(&mut self, pinned: &[String]) {
        let pin = |g: &LaneGroup| {
            pinned
                .iter()
                .position(|k| *k == g.key)
                .unwrap_or(usize::MAX)
        };
        let first = |g: &LaneGroup| {
            g.lanes
                .iter()
                .filter_map(|l| l.leases.first().map(|b| b.start_s))
                .fold(f64::INFINITY, f64::min)
        };
        let mut groups = std::mem::take(&mut self.groups);
        groups.sort_by(|a, b| {
            pin(a)
                .cmp(&pin(b))
                .then(b.incidents.cmp(&a.incidents))
                .then(first(a).total_cmp(&first(b)))
                .then_with(|| a.key.cmp(&b.key))
        });
        self.groups = groups;
        let index: HashMap<&str, usize> = self
            .groups
            .iter()
            .enumerate()
            .map(|(i, g)| (g.key.as_str(), i))
            .collect();
        let log = self.log;
        for (sym, g) in self.group_of_key.iter_mut() {
            *g = index.get(log.strings.get(*sym)).copied().unwrap_or(*g);
        }
    }

    fn sort_lanes(&mut self) {
        for g in &mut self.groups {
            for lane in &mut g.lanes {
                lane.leases.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
                lane.sales.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
                lane.findings.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
            }
            g.findings.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
        }
    }
}

impl SwimlaneModel {
    /// Builds the display list from `analysis` of `log` with `filters`.
    pub fn build(log: &LoadedLog, analysis: &Analysis, filters: &Filters) -> SwimlaneModel {
        let t0_ns = analysis.times_ns.iter().copied().min().unwrap_or(0);
        let key_filter = KeyFilter::new(&filters.key);
        let near: HashSet<LeaseId> = analysis
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::NearMiss)
            .filter_map(|f| f.lease)
            .collect();
        let in_overlap = Incident::holds_in_overlaps(&analysis.incidents);
        let mut incident_of_overlap = HashMap::new();
        let mut incidents_per_key: HashMap<Sym, usize> = HashMap::new();
        for inc in &analysis.incidents {
            *incidents_per_key.entry(inc.key).or_default() += 1;
            for &o in &inc.overlaps {
                incident_of_overlap.insert(o, inc.id);
            }
        }
        let mut b = Builder {
            log,
            t0_ns,
            groups: Vec::new(),
            group_of_key: HashMap::new(),
            lane_of: HashMap::new(),
        };
        for l in &analysis.leases {
            if !key_filter.matches(log.strings.get(l.key)) {
                continue;
            }
            if filters.only_incidents && !incidents_per_key.contains_key(&l.key) {
                continue;
            }
            // The lane shows the host or thread beside the holder: the
            // host filter matches either.
            let host = l.host.map_or("", |h| log.strings.get(h));
            let thread = l.thread.map_or("", |t| log.strings.get(t));
            if !matches_text(&filters.holder, log.strings.get(l.holder))
                || !(matches_text(&filters.host, host) || matches_text(&filters.host, thread))
            {
                continue;
            }
            let incidents_on_key = incidents_per_key.get(&l.key).copied().unwrap_or(0);
            let at = b.lane_for(l, incidents_on_key);
            let bar = b.lease_bar(l, near.contains(&l.id), in_overlap.contains(&l.id));
            b.add_lease(at, bar);
        }
        b.add_server_lanes(analysis);
        b.add_overlaps(analysis, &incident_of_overlap);
        b.add_sales(analysis);
        b.add_findings(analysis);
        b.sort_lanes();
        b.order_groups(&filters.pinned);
        let incidents = analysis
            .incidents
            .iter()
            .map(|inc| {
                b.group_of_key
                    .get(&inc.key)
                    .map(|&g| (b.secs(inc.start_ns), b.secs(inc.end_ns), g))
            })
            .collect();
        SwimlaneModel {
            t0_ns,
            log_offset_s: log.display_offset_s,
            extent: extent(analysis, |ns| b.secs(ns)),
            incidents,
            groups: b.groups,
            bad_regex: key_filter.bad_regex,
        }
    }
}

/// From the first event to the last event or lease end, s (at least 1 ms).
fn extent(analysis: &Analysis, secs: impl Fn(i64) -> f64) -> (f64, f64) {
    let first = analysis.times_ns.iter().copied().min().unwrap_or(0);
    let last = analysis.times_ns.iter().copied().max().unwrap_or(0).max(
        analysis
            .leases
            .iter()
            .map(|l| l.lock_end_ns.max(l.window_end_ns))
            .max()
            .unwrap_or(0),
    );
    (secs(first), secs(last).max(secs(first) + 0.001))
}

//! The swimlane timeline: a display list ([`SwimlaneModel`]) built from the
//! [`Analysis`] only when data or filters change, and a widget
//! ([`timeline_ui`]) that only maps it to the screen.
//!
//! Custom painter rather than egui_plot: lanes are rows of bars with a
//! fixed-width label column, sub-pixel quiet leases are merged into one rect
//! per pixel column (level of detail) while anomalies are painted on top at
//! least 2 px wide (Tracy's lock lanes), zombie windows are hatched, and
//! hit-testing walks the lane under the pointer only. egui_plot would
//! tessellate every item as its own shape each frame and has no such
//! merging, so 10 M events would not stay fast.

use std::collections::{HashMap, HashSet};

use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Shape, Stroke, Ui, pos2, vec2};
use serde::{Deserialize, Serialize};

use crate::analysis::{Analysis, Cause, FindingKind, Incident, LockEnd, WindowEnd};
use crate::model::{LoadedLog, Sym};
use crate::report::{format_ms, format_time};

/// Width of the label column on the left, points.
pub const LABEL_W: f32 = 236.0;
/// Height of the time axis, points.
pub const AXIS_H: f32 = 34.0;
/// Height of a key's header row, points.
pub const HEADER_H: f32 = 22.0;
/// Height of a holder lane, points.
pub const LANE_H: f32 = 18.0;
/// Gap after each key group, points.
pub const GROUP_GAP: f32 = 6.0;

/// How the time axis labels times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeDisplay {
    /// Wall clock in the log's zone.
    #[default]
    LogZone,
    /// Wall clock in UTC.
    Utc,
    /// Wall clock in this machine's zone.
    Local,
    /// Milliseconds since the first event.
    Relative,
}

/// One lease as drawn, times in seconds since the first event.
#[derive(Clone, Debug)]
pub struct LeaseBar {
    /// Index into [`Analysis::leases`].
    pub lease: usize,
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
}

/// An overlap window across a key's lanes.
#[derive(Clone, Debug)]
pub struct OverlapBox {
    /// Index into [`Analysis::overlaps`].
    pub overlap: usize,
    /// Start.
    pub start_s: f64,
    /// End.
    pub end_s: f64,
    /// Why.
    pub cause: Cause,
    /// Incident it belongs to.
    pub incident: Option<usize>,
    /// Earlier and later holders.
    pub holders: (String, String),
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
}

impl LaneGroup {
    /// Height in points.
    pub fn height(&self) -> f32 {
        HEADER_H + self.lanes.len() as f32 * LANE_H + GROUP_GAP
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

fn matches_text(filter: &str, text: &str) -> bool {
    filter.is_empty() || text.to_lowercase().contains(&filter.to_lowercase())
}

impl SwimlaneModel {
    /// Builds the display list from `analysis` of `log` with `filters`.
    pub fn build(log: &LoadedLog, analysis: &Analysis, filters: &Filters) -> SwimlaneModel {
        let s = |sym: Sym| log.strings.get(sym).to_string();
        let t0_ns = analysis.times_ns.iter().copied().min().unwrap_or(0);
        let secs = |ns: i64| (ns - t0_ns) as f64 / 1e9;
        let (key_re, bad_regex) = if filters.key.is_empty() {
            (None, false)
        } else {
            match regex::RegexBuilder::new(&filters.key)
                .case_insensitive(true)
                .build()
            {
                Ok(re) => (Some(re), false),
                Err(_) => (None, true),
            }
        };
        let key_ok = |k: &str| match &key_re {
            Some(re) => re.is_match(k),
            None => matches_text(&filters.key, k),
        };
        let near: HashSet<usize> = analysis
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

        let mut groups: Vec<LaneGroup> = Vec::new();
        let mut group_of_key: HashMap<Sym, usize> = HashMap::new();
        let mut lane_of: HashMap<(Sym, Sym), (usize, usize)> = HashMap::new();
        for l in &analysis.leases {
            let key = s(l.key);
            if !key_ok(&key) {
                continue;
            }
            if filters.only_incidents && !incidents_per_key.contains_key(&l.key) {
                continue;
            }
            let holder = s(l.holder);
            let host = l.host.map(s).unwrap_or_default();
            if !matches_text(&filters.holder, &holder) || !matches_text(&filters.host, &host) {
                continue;
            }
            let g = *group_of_key.entry(l.key).or_insert_with(|| {
                groups.push(LaneGroup {
                    key: key.clone(),
                    lanes: Vec::new(),
                    overlaps: Vec::new(),
                    loose_sales: Vec::new(),
                    incidents: incidents_per_key.get(&l.key).copied().unwrap_or(0),
                });
                groups.len() - 1
            });
            let (_, li) = *lane_of.entry((l.key, l.holder)).or_insert_with(|| {
                let lanes = &mut groups[g].lanes;
                lanes.push(Lane {
                    holder: holder.clone(),
                    host: host.clone(),
                    thread: l.thread.map(s).unwrap_or_default(),
                    leases: Vec::new(),
                    max_len_s: 0.0,
                    sales: Vec::new(),
                });
                (g, lanes.len() - 1)
            });
            let bar = LeaseBar {
                lease: l.id,
                start_s: secs(l.acquired_ns),
                lock_end_s: secs(l.lock_end_ns),
                window_end_s: secs(l.window_end_ns),
                zombie: l.zombie_ns().map(|(a, b)| (secs(a), secs(b))),
                renewals: l.renewals_ns.iter().map(|&r| secs(r)).collect(),
                late_renewals: l.late_renewals_ns.iter().map(|&r| secs(r)).collect(),
                released_s: (l.window_end == WindowEnd::Released).then_some(secs(l.window_end_ns)),
                no_ttl: l.ttl_ms.is_none(),
                near_miss: near.contains(&l.id),
                in_overlap: in_overlap.contains(&l.id),
                inferred: l.inferred,
                ttl_ms: l.ttl_ms,
                hold_ms: l.hold_ms(),
                lock_end: l.lock_end,
                window_end: l.window_end,
            };
            let lane = &mut groups[g].lanes[li];
            // An open-ended lock (no TTL, never released) reaches every later
            // view, so the lane's culling must never skip it.
            let len_s = if bar.no_ttl && bar.lock_end == LockEnd::StillHeld {
                f64::INFINITY
            } else {
                bar.end_s() - bar.start_s
            };
            lane.max_len_s = lane.max_len_s.max(len_s);
            lane.leases.push(bar);
        }
        for (i, o) in analysis.overlaps.iter().enumerate() {
            if let Some(&g) = group_of_key.get(&o.key) {
                groups[g].overlaps.push(OverlapBox {
                    overlap: i,
                    start_s: secs(o.start_ns),
                    end_s: secs(o.end_ns),
                    cause: o.cause,
                    incident: incident_of_overlap.get(&i).copied(),
                    holders: (
                        s(analysis.leases[o.earlier].holder),
                        s(analysis.leases[o.later].holder),
                    ),
                });
            }
        }
        for (i, sale) in analysis.sales.iter().enumerate() {
            let Some(key) = sale.key else { continue };
            let mark = SaleMark {
                sale: i,
                at_s: secs(sale.at_ns),
                oversold_units: sale.oversold_units,
                quantity: sale.quantity,
                order_id: sale.order_id.map(s).unwrap_or_default(),
            };
            match sale.holder.and_then(|h| lane_of.get(&(key, h))) {
                Some(&(g, li)) => groups[g].lanes[li].sales.push(mark),
                None => {
                    if let Some(&g) = group_of_key.get(&key) {
                        groups[g].loose_sales.push(mark);
                    }
                }
            }
        }
        for g in &mut groups {
            for lane in &mut g.lanes {
                lane.leases.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
                lane.sales.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
            }
        }
        let incidents = analysis
            .incidents
            .iter()
            .map(|inc| {
                group_of_key
                    .get(&inc.key)
                    .map(|&g| (secs(inc.start_ns), secs(inc.end_ns), g))
            })
            .collect();
        let first = analysis.times_ns.iter().copied().min().unwrap_or(0);
        let last = analysis.times_ns.iter().copied().max().unwrap_or(0).max(
            analysis
                .leases
                .iter()
                .map(|l| l.lock_end_ns.max(l.window_end_ns))
                .max()
                .unwrap_or(0),
        );
        SwimlaneModel {
            t0_ns,
            log_offset_s: log.display_offset_s,
            extent: (secs(first), secs(last).max(secs(first) + 0.001)),
            incidents,
            groups,
            bad_regex,
        }
    }

    /// Total height of the lanes, points.
    pub fn content_height(&self) -> f32 {
        self.groups.iter().map(LaneGroup::height).sum()
    }

    /// Top of group `g` relative to the first group, points.
    pub fn group_top(&self, g: usize) -> f32 {
        self.groups.iter().take(g).map(LaneGroup::height).sum()
    }
}

/// The visible time range and vertical scroll.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelineView {
    /// Left edge, s since the first event.
    pub start_s: f64,
    /// Right edge.
    pub end_s: f64,
    /// Vertical scroll, points.
    pub scroll_y: f32,
}

impl Default for TimelineView {
    fn default() -> Self {
        TimelineView {
            start_s: 0.0,
            end_s: 1.0,
            scroll_y: 0.0,
        }
    }
}

impl TimelineView {
    /// Shows all of `model` with a small margin.
    pub fn fit(&mut self, model: &SwimlaneModel) {
        let (a, b) = model.extent;
        let pad = (b - a) * 0.02;
        self.start_s = a - pad;
        self.end_s = b + pad;
        self.scroll_y = 0.0;
    }

    /// Shows `[a, b]` with context either side, and scrolls to group `g`.
    pub fn zoom_to(&mut self, model: &SwimlaneModel, a: f64, b: f64, g: Option<usize>) {
        let span = (b - a).max(0.001);
        self.start_s = a - span * 0.6;
        self.end_s = b + span * 0.6;
        if let Some(g) = g {
            self.scroll_y = model.group_top(g);
        }
    }

    /// Zooms to incident `id`.
    pub fn zoom_to_incident(&mut self, model: &SwimlaneModel, id: usize) {
        if let Some(Some((a, b, g))) = model.incidents.get(id) {
            self.zoom_to(model, *a, *b, Some(*g));
        }
    }

    fn zoom(&mut self, factor: f64, around_s: f64) {
        let factor = factor.clamp(0.01, 100.0);
        let new_start = around_s - (around_s - self.start_s) * factor;
        let new_end = around_s + (self.end_s - around_s) * factor;
        if new_end - new_start > 1e-7 && new_end - new_start < 1e9 {
            self.start_s = new_start;
            self.end_s = new_end;
        }
    }

    fn pan(&mut self, ds: f64) {
        self.start_s += ds;
        self.end_s += ds;
    }
}

/// What the timeline widget reports back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimelineEvent {
    /// An overlap window of this incident was clicked.
    IncidentClicked(usize),
    /// The time axis was clicked, or the cursor dragged, to this time
    /// (s since the first event).
    Seek(f64),
}

/// Colours of the timeline for one theme.
struct Palette {
    bg: Color32,
    lane_alt: Color32,
    header_bg: Color32,
    text: Color32,
    weak: Color32,
    grid: Color32,
    lease: Color32,
    lease_edge: Color32,
    quiet_lod: Color32,
    zombie: Color32,
    zombie_hatch: Color32,
    overlap: Color32,
    overlap_edge: Color32,
    near: Color32,
    sale_ok: Color32,
    sale_bad: Color32,
    selection: Color32,
    cursor: Color32,
}

impl Palette {
    fn new(dark: bool) -> Palette {
        if dark {
            Palette {
                bg: Color32::from_rgb(24, 26, 30),
                lane_alt: Color32::from_rgb(30, 33, 38),
                header_bg: Color32::from_rgb(40, 44, 52),
                text: Color32::from_rgb(220, 224, 230),
                weak: Color32::from_rgb(140, 146, 156),
                grid: Color32::from_rgb(52, 56, 64),
                lease: Color32::from_rgb(66, 133, 214),
                lease_edge: Color32::from_rgb(120, 176, 240),
                quiet_lod: Color32::from_rgb(70, 110, 160),
                zombie: Color32::from_rgba_unmultiplied(220, 50, 50, 150),
                zombie_hatch: Color32::from_rgb(255, 120, 110),
                overlap: Color32::from_rgba_unmultiplied(235, 40, 40, 60),
                overlap_edge: Color32::from_rgb(240, 80, 80),
                near: Color32::from_rgb(240, 170, 40),
                sale_ok: Color32::from_rgb(90, 190, 110),
                sale_bad: Color32::from_rgb(255, 70, 70),
                selection: Color32::from_rgb(255, 220, 80),
                cursor: Color32::from_rgb(255, 170, 40),
            }
        } else {
            Palette {
                bg: Color32::from_rgb(252, 252, 253),
                lane_alt: Color32::from_rgb(243, 245, 248),
                header_bg: Color32::from_rgb(226, 231, 238),
                text: Color32::from_rgb(30, 34, 40),
                weak: Color32::from_rgb(100, 108, 120),
                grid: Color32::from_rgb(222, 226, 232),
                lease: Color32::from_rgb(60, 120, 200),
                lease_edge: Color32::from_rgb(30, 80, 150),
                quiet_lod: Color32::from_rgb(120, 150, 190),
                zombie: Color32::from_rgba_unmultiplied(215, 40, 40, 120),
                zombie_hatch: Color32::from_rgb(190, 20, 20),
                overlap: Color32::from_rgba_unmultiplied(230, 30, 30, 45),
                overlap_edge: Color32::from_rgb(210, 40, 40),
                near: Color32::from_rgb(230, 150, 20),
                sale_ok: Color32::from_rgb(40, 150, 70),
                sale_bad: Color32::from_rgb(220, 20, 20),
                selection: Color32::from_rgb(150, 0, 0),
                cursor: Color32::from_rgb(230, 120, 0),
            }
        }
    }
}

/// Maps time to x for one frame.
#[derive(Clone, Copy)]
struct Mapping {
    rect: Rect,
    start_s: f64,
    end_s: f64,
}

impl Mapping {
    fn x_from_time(&self, s: f64) -> f32 {
        let t = (s - self.start_s) / (self.end_s - self.start_s);
        (self.rect.left() as f64 + t * self.rect.width() as f64) as f32
    }

    fn time_from_x(&self, x: f32) -> f64 {
        self.start_s
            + (x - self.rect.left()) as f64 / self.rect.width() as f64 * (self.end_s - self.start_s)
    }

    fn px_per_s(&self) -> f64 {
        self.rect.width() as f64 / (self.end_s - self.start_s)
    }
}

/// Options for drawing the timeline.
#[derive(Clone, Copy, Debug)]
pub struct TimelineOptions {
    /// How to label the axis.
    pub time_display: TimeDisplay,
    /// Selected incident.
    pub selected: Option<usize>,
    /// Mark inferred leases in tooltips with this text.
    pub lang: super::i18n::Lang,
    /// The replay's time cursor, s since the first event: drawn as a line,
    /// with what lies after it faded.
    pub cursor_s: Option<f64>,
}

/// Nice tick steps in seconds.
fn tick_step(px_per_s: f64, min_px: f64) -> f64 {
    let mut steps = Vec::new();
    for exp in -7..=3 {
        let base = 10f64.powi(exp);
        for m in [1.0, 2.0, 5.0] {
            let v = m * base;
            if v < 60.0 {
                steps.push(v);
            }
        }
    }
    steps.extend([
        60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0, 21600.0, 43200.0, 86400.0,
    ]);
    steps
        .into_iter()
        .find(|s| s * px_per_s >= min_px)
        .unwrap_or(86400.0 * 7.0)
}

fn display_offset(model: &SwimlaneModel, d: TimeDisplay) -> Option<i32> {
    match d {
        TimeDisplay::LogZone => Some(model.log_offset_s),
        TimeDisplay::Utc => Some(0),
        TimeDisplay::Local => Some(chrono::Local::now().offset().local_minus_utc()),
        TimeDisplay::Relative => None,
    }
}

/// Formats `s` (seconds since the first event) for the axis or a tooltip.
pub fn format_at(model: &SwimlaneModel, d: TimeDisplay, s: f64) -> String {
    match display_offset(model, d) {
        Some(off) => {
            let ns = model.t0_ns + (s * 1e9).round() as i64;
            format_time(ns, off)
        }
        None => format!("+{:.3} ms", s * 1000.0),
    }
}

/// The full time the corner's date and zone come from: the view's start, or
/// the first event when the view starts before it (the padding of a fit can
/// cross midnight and would show the day before every event).
fn corner_time(model: &SwimlaneModel, d: TimeDisplay, view_start_s: f64) -> String {
    match display_offset(model, d) {
        Some(_) => format_at(model, d, view_start_s.max(0.0)),
        None => "relative".to_string(),
    }
}

fn tick_label(model: &SwimlaneModel, d: TimeDisplay, s: f64, step: f64) -> String {
    match display_offset(model, d) {
        Some(off) => {
            let ns = model.t0_ns + (s * 1e9).round() as i64;
            let full = format_time(ns, off); // YYYY-MM-DD HH:MM:SS.mmm +zz:zz
            let hms = full.get(11..23).unwrap_or(&full);
            if step >= 1.0 {
                hms.get(..8).unwrap_or(hms).to_string()
            } else if step >= 0.01 {
                // With the hour: "30:09.50" alone could be any hour's.
                hms.get(..11).unwrap_or(hms).to_string()
            } else {
                format!(
                    "{}{:03}µs",
                    hms.get(6..12).unwrap_or(hms),
                    ((s * 1e6).round() as i64).rem_euclid(1000)
                )
            }
        }
        None => {
            let ms = s * 1000.0;
            if step >= 1.0 {
                format!("{:.0} s", s)
            } else if step >= 0.001 {
                format!("{:.0} ms", ms)
            } else {
                format!("{:.3} ms", ms)
            }
        }
    }
}

/// Shortens `text` to `max_chars` by cutting its middle: holder tokens and
/// host names of one key often share a long prefix (`order-api-1:24346:…`)
/// and differ at the end, so both ends stay visible.
fn truncate(text: &str, max_chars: usize) -> String {
    let n = text.chars().count();
    if n <= max_chars {
        return text.to_string();
    }
    let keep = max_chars.saturating_sub(1);
    let head = keep / 2;
    let tail = keep - head;
    let mut t: String = text.chars().take(head).collect();
    t.push('…');
    t.extend(text.chars().skip(n - tail));
    t
}

fn hatch(painter: &egui::Painter, rect: Rect, color: Color32) {
    let p = painter.with_clip_rect(rect.intersect(painter.clip_rect()));
    let step = 6.0;
    let h = rect.height();
    let mut x = rect.left() - h;
    while x < rect.right() {
        p.line_segment(
            [pos2(x, rect.bottom()), pos2(x + h, rect.top())],
            Stroke::new(1.2, color),
        );
        x += step;
    }
}

/// What the pointer is over.
enum Hit<'a> {
    Lease(&'a Lane, &'a LeaseBar),
    Sale(&'a Lane, &'a SaleMark),
    Overlap(&'a OverlapBox),
}

/// Draws the timeline of `model` into the rest of `ui`, handling zoom, pan,
/// box zoom and keys. Returns what was clicked.
pub fn timeline_ui(
    ui: &mut Ui,
    model: &SwimlaneModel,
    view: &mut TimelineView,
    opts: TimelineOptions,
) -> Option<TimelineEvent> {
    let dark = ui.visuals().dark_mode;
    let pal = Palette::new(dark);
    let (full, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    let painter = ui.painter_at(full);
    painter.rect_filled(full, 0.0, pal.bg);
    let plot = Rect::from_min_max(pos2(full.left() + LABEL_W, full.top() + AXIS_H), full.max);
    if plot.width() < 10.0 || plot.height() < 10.0 {
        return None;
    }
    if view.end_s.partial_cmp(&view.start_s) != Some(std::cmp::Ordering::Greater) {
        view.fit(model);
    }

    // ---- input ----
    let mut event = None;
    let box_id = response.id.with("box_zoom");
    if response.hovered() {
        let (scroll, zoom, ptr) =
            ui.input(|i| (i.smooth_scroll_delta, i.zoom_delta(), i.pointer.hover_pos()));
        if let Some(ptr) = ptr {
            let m = Mapping {
                rect: plot,
                start_s: view.start_s,
                end_s: view.end_s,
            };
            if ptr.x < plot.left() {
                view.scroll_y -= scroll.y;
            } else {
                let factor = (-(scroll.y as f64) * 0.003).exp() / zoom as f64;
                if (factor - 1.0).abs() > 1e-6 {
                    view.zoom(factor, m.time_from_x(ptr.x));
                }
                if scroll.x != 0.0 {
                    view.pan(-(scroll.x as f64) / m.px_per_s());
                }
            }
        }
    }
    let box_mode =
        ui.input(|i| i.modifiers.shift) || response.dragged_by(egui::PointerButton::Secondary);
    if response.drag_started()
        && box_mode
        && let Some(p) = response.interact_pointer_pos()
    {
        ui.data_mut(|d| d.insert_temp(box_id, p));
    }
    let box_start: Option<Pos2> = ui.data(|d| d.get_temp(box_id));
    if let Some(start) = box_start {
        if response.drag_stopped() {
            ui.data_mut(|d| d.remove::<Pos2>(box_id));
            if let Some(end) = response.interact_pointer_pos() {
                let m = Mapping {
                    rect: plot,
                    start_s: view.start_s,
                    end_s: view.end_s,
                };
                let (a, b) = (start.x.min(end.x), start.x.max(end.x));
                if b - a > 4.0 {
                    let (ta, tb) = (m.time_from_x(a), m.time_from_x(b));
                    view.start_s = ta;
                    view.end_s = tb;
                }
            }
        }
    } else if response.dragged() {
        let d = response.drag_delta();
        let pps = plot.width() as f64 / (view.end_s - view.start_s);
        view.pan(-(d.x as f64) / pps);
        view.scroll_y -= d.y;
    }
    if response.double_clicked() {
        view.fit(model);
    }
    if !ui.ctx().egui_wants_keyboard_input() {
        let span = view.end_s - view.start_s;
        let mid = (view.start_s + view.end_s) / 2.0;
        ui.input(|i| {
            if i.key_pressed(egui::Key::F) {
                view.fit(model);
            }
            if i.key_down(egui::Key::ArrowLeft) || i.key_down(egui::Key::A) {
                view.pan(-span * 0.02);
            }
            if i.key_down(egui::Key::ArrowRight) || i.key_down(egui::Key::D) {
                view.pan(span * 0.02);
            }
            if i.key_down(egui::Key::W)
                || i.key_pressed(egui::Key::Plus)
                || i.key_pressed(egui::Key::Equals)
            {
                view.zoom(0.9, mid);
            }
            if i.key_down(egui::Key::S) || i.key_pressed(egui::Key::Minus) {
                view.zoom(1.1, mid);
            }
            if i.key_down(egui::Key::ArrowUp) {
                view.scroll_y -= 10.0;
            }
            if i.key_down(egui::Key::ArrowDown) {
                view.scroll_y += 10.0;
            }
        });
    }
    let max_scroll = (model.content_height() - plot.height()).max(0.0);
    view.scroll_y = view.scroll_y.clamp(0.0, max_scroll);

    let m = Mapping {
        rect: plot,
        start_s: view.start_s,
        end_s: view.end_s,
    };

    // ---- time cursor input: click or drag on the axis, drag the line ----
    let mut seek = None;
    let axis_hit = Rect::from_min_max(
        pos2(plot.left(), full.top()),
        pos2(full.right(), plot.top()),
    );
    let axis_resp = ui
        .interact(
            axis_hit,
            response.id.with("time_axis"),
            Sense::click_and_drag(),
        )
        .on_hover_cursor(egui::CursorIcon::PointingHand);
    if (axis_resp.clicked() || axis_resp.dragged())
        && let Some(p) = axis_resp.interact_pointer_pos()
    {
        seek = Some(m.time_from_x(p.x.clamp(plot.left(), plot.right())));
    }
    if let Some(c) = opts.cursor_s {
        let x = m.x_from_time(c);
        if x >= plot.left() && x <= plot.right() {
            let handle = Rect::from_x_y_ranges(x - 4.0..=x + 4.0, plot.top()..=plot.bottom());
            let r = ui
                .interact(handle, response.id.with("cursor"), Sense::drag())
                .on_hover_cursor(egui::CursorIcon::ResizeHorizontal);
            if r.dragged()
                && let Some(p) = r.interact_pointer_pos()
            {
                seek = Some(m.time_from_x(p.x.clamp(plot.left(), plot.right())));
            }
        }
    }

    // ---- grid + axis ----
    let step = tick_step(m.px_per_s(), 110.0);
    let minor = tick_step(m.px_per_s(), 22.0);
    let axis = Rect::from_min_max(
        pos2(plot.left(), full.top()),
        pos2(full.right(), plot.top()),
    );
    painter.rect_filled(
        Rect::from_min_max(full.min, pos2(full.right(), plot.top())),
        0.0,
        pal.header_bg,
    );
    let first_minor = (view.start_s / minor).floor() as i64;
    let last_minor = (view.end_s / minor).ceil() as i64;
    if last_minor - first_minor < 2000 {
        for k in first_minor..=last_minor {
            let t = k as f64 * minor;
            let x = m.x_from_time(t);
            if x < plot.left() {
                continue;
            }
            painter.line_segment(
                [pos2(x, axis.bottom() - 4.0), pos2(x, axis.bottom())],
                Stroke::new(1.0, pal.weak),
            );
        }
    }
    let first = (view.start_s / step).floor() as i64;
    let last = (view.end_s / step).ceil() as i64;
    let font = FontId::proportional(12.0);
    for k in first..=last {
        let t = k as f64 * step;
        let x = m.x_from_time(t);
        if x < plot.left() || x > plot.right() {
            continue;
        }
        painter.line_segment(
            [pos2(x, plot.top()), pos2(x, plot.bottom())],
            Stroke::new(1.0, pal.grid),
        );
        painter.line_segment(
            [pos2(x, axis.bottom() - 9.0), pos2(x, axis.bottom())],
            Stroke::new(1.0, pal.text),
        );
        painter.text(
            pos2(x + 3.0, axis.bottom() - 10.0),
            Align2::LEFT_BOTTOM,
            tick_label(model, opts.time_display, t, step),
            font.clone(),
            pal.text,
        );
    }
    // Corner: date / zone / scale.
    let corner = corner_time(model, opts.time_display, view.start_s);
    let corner_rect = Rect::from_min_max(full.min, pos2(plot.left(), plot.top()));
    painter.rect_filled(corner_rect, 0.0, pal.header_bg);
    painter.text(
        corner_rect.left_top() + vec2(6.0, 4.0),
        Align2::LEFT_TOP,
        corner.get(..10).unwrap_or(&corner),
        FontId::proportional(11.0),
        pal.weak,
    );
    painter.text(
        corner_rect.left_bottom() + vec2(6.0, -4.0),
        Align2::LEFT_BOTTOM,
        format!(
            "{} / div · {}",
            format_ms(step * 1000.0),
            corner.get(24..).unwrap_or("")
        ),
        FontId::proportional(11.0),
        pal.weak,
    );

    // ---- lanes ----
    let lanes_clip = Rect::from_min_max(pos2(full.left(), plot.top()), full.max);
    let lp = painter.with_clip_rect(lanes_clip);
    let pp = painter.with_clip_rect(plot);
    let hover = response.hover_pos();
    let mut hit: Option<Hit<'_>> = None;
    let mut y = plot.top() - view.scroll_y;
    let x_min = plot.left();
    let x_max = plot.right();
    for (gi, g) in model.groups.iter().enumerate() {
        let gh = g.height();
        if y > plot.bottom() {
            break;
        }
        if y + gh < plot.top() {
            y += gh;
            continue;
        }
        let header = Rect::from_min_size(pos2(full.left(), y), vec2(full.width(), HEADER_H));
        lp.rect_filled(header, 0.0, pal.header_bg);
        let key_label = if g.incidents > 0 {
            format!("{}   ⚠ {}", g.key, g.incidents)
        } else {
            g.key.clone()
        };
        lp.text(
            pos2(full.left() + 6.0, y + HEADER_H / 2.0),
            Align2::LEFT_CENTER,
            key_label,
            FontId::proportional(13.0),
            pal.text,
        );
        let lanes_top = y + HEADER_H;
        let lanes_bottom = lanes_top + g.lanes.len() as f32 * LANE_H;
        // Lane backgrounds and labels.
        for (li, lane) in g.lanes.iter().enumerate() {
            let ly = lanes_top + li as f32 * LANE_H;
            if ly > plot.bottom() || ly + LANE_H < plot.top() {
                continue;
            }
            let row = Rect::from_min_size(pos2(full.left(), ly), vec2(full.width(), LANE_H));
            if li % 2 == 1 {
                lp.rect_filled(row, 0.0, pal.lane_alt);
            }
            let r = lp.text(
                pos2(full.left() + 14.0, ly + LANE_H / 2.0),
                Align2::LEFT_CENTER,
                truncate(&lane.holder, 14),
                FontId::monospace(11.0),
                pal.text,
            );
            let who = if lane.thread.is_empty() {
                &lane.host
            } else {
                &lane.thread
            };
            lp.text(
                pos2(r.right() + 6.0, ly + LANE_H / 2.0),
                Align2::LEFT_CENTER,
                truncate(who, 18),
                FontId::proportional(10.5),
                pal.weak,
            );
        }
        // Overlap windows across the key's lanes (under the bars).
        for o in &g.overlaps {
            if o.end_s < view.start_s || o.start_s > view.end_s {
                continue;
            }
            let x0 = m.x_from_time(o.start_s).max(x_min - 2.0);
            let mut x1 = m.x_from_time(o.end_s).min(x_max + 2.0);
            if x1 - x0 < 2.0 {
                x1 = x0 + 2.0;
            }
            let r = Rect::from_min_max(pos2(x0, y + 2.0), pos2(x1, lanes_bottom));
            pp.rect_filled(r, 0.0, pal.overlap);
            let selected = o.incident.is_some() && o.incident == opts.selected;
            pp.rect_stroke(
                r,
                0.0,
                Stroke::new(
                    if selected { 2.0 } else { 1.0 },
                    if selected {
                        pal.selection
                    } else {
                        pal.overlap_edge
                    },
                ),
                egui::StrokeKind::Inside,
            );
            if x1 - x0 > 40.0 {
                pp.text(
                    pos2(x0 + 3.0, y + HEADER_H / 2.0),
                    Align2::LEFT_CENTER,
                    o.cause.as_str(),
                    FontId::proportional(11.0),
                    pal.overlap_edge,
                );
            }
            if let Some(h) = hover
                && r.contains(h)
                && h.y < lanes_top
            {
                hit = Some(Hit::Overlap(o));
            }
        }
        // Bars.
        for (li, lane) in g.lanes.iter().enumerate() {
            let ly = lanes_top + li as f32 * LANE_H;
            if ly > plot.bottom() || ly + LANE_H < plot.top() {
                continue;
            }
            let bar_top = ly + 3.0;
            let bar_bot = ly + LANE_H - 3.0;
            let from = lane
                .leases
                .partition_point(|b| b.start_s < view.start_s - lane.max_len_s);
            let mut pending: Option<(f32, f32)> = None;
            let mut anomalies: Vec<&LeaseBar> = Vec::new();
            for b in &lane.leases[from..] {
                if b.start_s > view.end_s {
                    break;
                }
                if b.end_s() < view.start_s && !b.no_ttl {
                    continue;
                }
                if b.anomalous() {
                    anomalies.push(b);
                    continue;
                }
                let x0 = m.x_from_time(b.start_s);
                let x1 = m.x_from_time(b.lock_end_s.max(b.window_end_s));
                if x1 - x0 < 1.0 {
                    // Level of detail: merge sub-pixel quiet leases per pixel column.
                    match &mut pending {
                        Some((_, pe)) if x0 <= *pe + 1.0 => *pe = pe.max(x1.max(x0 + 1.0)),
                        _ => {
                            if let Some((a, e)) = pending.take() {
                                pp.rect_filled(
                                    Rect::from_min_max(pos2(a, bar_top), pos2(e, bar_bot)),
                                    0.0,
                                    pal.quiet_lod,
                                );
                            }
                            pending = Some((x0, x0 + 1.0));
                        }
                    }
                    continue;
                }
                draw_lease(&pp, &m, b, bar_top, bar_bot, &pal, x_max);
                if let Some(h) = hover
                    && h.y >= ly
                    && h.y < ly + LANE_H
                    && h.x >= x0 - 2.0
                    && h.x <= x1 + 2.0
                {
                    hit = Some(Hit::Lease(lane, b));
                }
            }
            if let Some((a, e)) = pending {
                pp.rect_filled(
                    Rect::from_min_max(pos2(a, bar_top), pos2(e, bar_bot)),
                    0.0,
                    pal.quiet_lod,
                );
            }
            for b in anomalies {
                let (x0, x1) = draw_lease(&pp, &m, b, bar_top, bar_bot, &pal, x_max);
                if let Some(h) = hover
                    && h.y >= ly
                    && h.y < ly + LANE_H
                    && h.x >= x0 - 2.0
                    && h.x <= x1 + 2.0
                {
                    hit = Some(Hit::Lease(lane, b));
                }
            }
            // Sales on top.
            let from = lane.sales.partition_point(|s| s.at_s < view.start_s);
            for s in &lane.sales[from..] {
                if s.at_s > view.end_s {
                    break;
                }
                let x = m.x_from_time(s.at_s);
                let c = pos2(x, ly + LANE_H / 2.0);
                let color = if s.oversold_units > 0 {
                    pal.sale_bad
                } else {
                    pal.sale_ok
                };
                let r = if s.oversold_units > 0 { 6.0 } else { 4.5 };
                pp.add(Shape::convex_polygon(
                    vec![
                        c + vec2(0.0, -r),
                        c + vec2(r, 0.0),
                        c + vec2(0.0, r),
                        c + vec2(-r, 0.0),
                    ],
                    color,
                    Stroke::new(1.0, pal.bg),
                ));
                if let Some(h) = hover
                    && (h - c).length() <= r + 2.0
                {
                    hit = Some(Hit::Sale(lane, s));
                }
            }
        }
        for s in &g.loose_sales {
            if s.at_s < view.start_s || s.at_s > view.end_s {
                continue;
            }
            let x = m.x_from_time(s.at_s);
            let color = if s.oversold_units > 0 {
                pal.sale_bad
            } else {
                pal.sale_ok
            };
            pp.circle_filled(pos2(x, y + HEADER_H - 5.0), 3.5, color);
        }
        if let Some(h) = hover
            && h.y >= y
            && h.y < y + HEADER_H
            && response.clicked()
            && let Some(Hit::Overlap(o)) = &hit
            && let Some(inc) = o.incident
        {
            event = Some(TimelineEvent::IncidentClicked(inc));
        }
        let _ = gi;
        y += gh;
    }
    // Clicking a bar inside an overlap window selects its incident too.
    if response.clicked()
        && event.is_none()
        && let Some(h) = hover
    {
        let t = m.time_from_x(h.x);
        let mut y = plot.top() - view.scroll_y;
        for g in &model.groups {
            let gh = g.height();
            if h.y >= y && h.y < y + gh {
                if let Some(o) = g.overlaps.iter().find(|o| {
                    let pad = 3.0 / m.px_per_s();
                    t >= o.start_s - pad && t <= o.end_s + pad
                }) {
                    event = o.incident.map(TimelineEvent::IncidentClicked);
                }
                break;
            }
            y += gh;
        }
    }

    // Time cursor: what lies in the future is faded; the line and a handle
    // on the axis mark the present.
    if let Some(c) = opts.cursor_s {
        let x = m.x_from_time(c);
        if x < plot.right() {
            let from = x.max(plot.left());
            painter.rect_filled(
                Rect::from_min_max(pos2(from, plot.top()), plot.max),
                0.0,
                pal.bg.gamma_multiply(0.6),
            );
        }
        if x >= plot.left() && x <= plot.right() {
            painter.line_segment(
                [pos2(x, full.top()), pos2(x, full.bottom())],
                Stroke::new(2.0, pal.cursor),
            );
            let top = full.top() + AXIS_H - 12.0;
            painter.add(Shape::convex_polygon(
                vec![pos2(x - 6.0, top), pos2(x + 6.0, top), pos2(x, top + 10.0)],
                pal.cursor,
                Stroke::NONE,
            ));
        }
    }

    // Label column edge and scrollbar hint.
    painter.line_segment(
        [
            pos2(plot.left(), full.top()),
            pos2(plot.left(), full.bottom()),
        ],
        Stroke::new(1.0, pal.grid),
    );
    if max_scroll > 0.0 {
        let frac = plot.height() / model.content_height();
        let h = (plot.height() * frac).max(20.0);
        let top = plot.top() + (plot.height() - h) * (view.scroll_y / max_scroll);
        painter.rect_filled(
            Rect::from_min_size(pos2(full.right() - 5.0, top), vec2(4.0, h)),
            2.0,
            pal.weak,
        );
    }

    // Box-zoom rubber band.
    if let (Some(start), Some(now)) = (box_start, response.interact_pointer_pos().or(hover)) {
        let r = Rect::from_two_pos(pos2(start.x, plot.top()), pos2(now.x, plot.bottom()));
        painter.rect_filled(r, 0.0, Color32::from_rgba_unmultiplied(80, 140, 255, 40));
        painter.rect_stroke(
            r,
            0.0,
            Stroke::new(1.0, Color32::from_rgb(80, 140, 255)),
            egui::StrokeKind::Inside,
        );
    }

    if let Some(h) = hit {
        let text = hover_text(model, &h, opts);
        response.on_hover_ui_at_pointer(|ui| {
            ui.label(text);
        });
    }
    seek.map(TimelineEvent::Seek).or(event)
}

/// Paints one lease; returns its x span.
fn draw_lease(
    p: &egui::Painter,
    m: &Mapping,
    b: &LeaseBar,
    top: f32,
    bot: f32,
    pal: &Palette,
    x_max: f32,
) -> (f32, f32) {
    let x0 = m.x_from_time(b.start_s);
    let mut x1 = m.x_from_time(b.lock_end_s);
    let min_w = if b.anomalous() { 2.0 } else { 1.0 };
    if x1 - x0 < min_w {
        x1 = x0 + min_w;
    }
    if b.no_ttl && b.lock_end == LockEnd::StillHeld {
        // A lock without TTL still held when the log ends never expires: it
        // is held through the whole visible range, then fades out.
        x1 = x1.max(x_max - 80.0);
    }
    let fill = if b.near_miss { pal.near } else { pal.lease };
    let bar = Rect::from_min_max(pos2(x0, top), pos2(x1, bot));
    p.rect_filled(bar, 2.0, fill);
    if x1 - x0 > 4.0 {
        p.rect_stroke(
            bar,
            2.0,
            Stroke::new(1.0, pal.lease_edge),
            egui::StrokeKind::Inside,
        );
    }
    let mut end = x1;
    if b.no_ttl {
        // Open-ended: fade towards the right edge with an arrow.
        let fade_to = (x1 + 80.0).min(x_max);
        let n = 8;
        for i in 0..n {
            let a = x1 + (fade_to - x1) * i as f32 / n as f32;
            let e = x1 + (fade_to - x1) * (i + 1) as f32 / n as f32;
            let alpha = (200.0 * (1.0 - i as f32 / n as f32)) as u8;
            p.rect_filled(
                Rect::from_min_max(pos2(a, top), pos2(e, bot)),
                0.0,
                Color32::from_rgba_unmultiplied(fill.r(), fill.g(), fill.b(), alpha),
            );
        }
        let mid = (top + bot) / 2.0;
        p.line_segment(
            [pos2(fade_to - 6.0, top), pos2(fade_to, mid)],
            Stroke::new(1.5, fill),
        );
        p.line_segment(
            [pos2(fade_to - 6.0, bot), pos2(fade_to, mid)],
            Stroke::new(1.5, fill),
        );
        end = fade_to;
    }
    if let Some((z0, z1)) = b.zombie {
        let zx0 = m.x_from_time(z0);
        let mut zx1 = m.x_from_time(z1);
        if zx1 - zx0 < 2.0 {
            zx1 = zx0 + 2.0;
        }
        let r = Rect::from_min_max(pos2(zx0, top), pos2(zx1, bot));
        p.rect_filled(r, 0.0, pal.zombie);
        if zx1 - zx0 > 6.0 {
            hatch(p, r, pal.zombie_hatch);
        }
        p.rect_stroke(
            r,
            0.0,
            Stroke::new(1.0, pal.zombie_hatch),
            egui::StrokeKind::Inside,
        );
        end = end.max(zx1);
    }
    let tick = Stroke::new(1.5, pal.text);
    for &r in &b.renewals {
        let x = m.x_from_time(r);
        p.line_segment([pos2(x, top - 2.0), pos2(x, top + 4.0)], tick);
    }
    for &r in &b.late_renewals {
        let x = m.x_from_time(r);
        p.line_segment(
            [pos2(x, top - 2.0), pos2(x, bot + 2.0)],
            Stroke::new(1.5, pal.sale_bad),
        );
    }
    if let Some(r) = b.released_s {
        let x = m.x_from_time(r);
        p.line_segment(
            [pos2(x, top - 1.0), pos2(x, bot + 1.0)],
            Stroke::new(2.0, pal.text),
        );
    }
    (x0, end)
}

fn hover_text(model: &SwimlaneModel, hit: &Hit<'_>, opts: TimelineOptions) -> String {
    use super::i18n::tr;
    let lang = opts.lang;
    let at = |s: f64| format_at(model, opts.time_display, s);
    match hit {
        Hit::Lease(lane, b) => {
            let mut t = format!(
                "{}: {}\n{}: {}\n{}: {}\n{}: {}\n{}: {} ({:?})\n{}: {} ({:?})\n{}: {} / {}\n{}: {}",
                tr(lang, "holder"),
                lane.holder,
                tr(lang, "host"),
                lane.host,
                tr(lang, "thread"),
                lane.thread,
                tr(lang, "granted"),
                at(b.start_s),
                tr(lang, "lease_ended"),
                at(b.lock_end_s),
                b.lock_end,
                tr(lang, "believed_until"),
                at(b.window_end_s),
                b.window_end,
                tr(lang, "hold_vs_ttl"),
                format_ms(b.hold_ms),
                b.ttl_ms
                    .map_or_else(|| "∞".to_string(), |t| format_ms(t as f64)),
                tr(lang, "renewals"),
                b.renewals.len(),
            );
            if let Some((z0, z1)) = b.zombie {
                t.push_str(&format!(
                    "\n⚠ {}: {}",
                    tr(lang, "zombie"),
                    format_ms((z1 - z0) * 1000.0)
                ));
            }
            if b.near_miss {
                t.push_str(&format!("\n⚠ {}", tr(lang, "near_miss")));
            }
            if b.no_ttl {
                t.push_str(&format!("\n⚠ {}", tr(lang, "no_ttl")));
            }
            if b.inferred {
                t.push_str(&format!("\n({})", tr(lang, "inferred")));
            }
            t
        }
        Hit::Sale(lane, s) => format!(
            "{} {}\n{}: {}\n{}: {}\n×{}  {}: {}",
            tr(lang, "order"),
            s.order_id,
            tr(lang, "holder"),
            lane.holder,
            tr(lang, "time"),
            at(s.at_s),
            s.quantity,
            tr(lang, "units_over"),
            s.oversold_units
        ),
        Hit::Overlap(o) => format!(
            "{} {}: {}\n{} ⇄ {}\n{} → {} ({})",
            tr(lang, "overlap"),
            o.incident
                .map_or_else(String::new, |i| format!("INC-{}", i + 1)),
            o.cause.as_str(),
            o.holders.0,
            o.holders.1,
            at(o.start_s),
            at(o.end_s),
            format_ms((o.end_s - o.start_s) * 1000.0)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoomed_in_tick_labels_keep_the_hour() {
        let model = SwimlaneModel {
            // 2026-11-29T08:30:00Z, shown at +08:00.
            t0_ns: 1_795_941_000_000_000_000,
            log_offset_s: 8 * 3600,
            ..SwimlaneModel::default()
        };
        let label = |s, step| tick_label(&model, TimeDisplay::LogZone, s, step);
        assert_eq!(label(9.5, 2.0), "16:30:09");
        assert_eq!(label(9.5, 0.5), "16:30:09.50");
        assert_eq!(label(9.25, 0.05), "16:30:09.25");
        // The first event at 00:00:00.2 local; a fit's padding starts the
        // view on the day before, the corner still shows the events' day.
        let midnight = SwimlaneModel {
            t0_ns: 1_795_968_000_200_000_000,
            ..model
        };
        let corner = corner_time(&midnight, TimeDisplay::LogZone, -0.5);
        assert!(corner.starts_with("2026-11-30 00:00:00.200"), "{corner}");
    }

    #[test]
    fn ticks_use_round_units() {
        assert_eq!(tick_step(1000.0, 100.0), 0.1);
        assert_eq!(tick_step(10.0, 100.0), 10.0);
        assert_eq!(tick_step(1.0, 100.0), 120.0);
    }

    #[test]
    fn long_names_are_truncated_in_the_middle() {
        assert_eq!(truncate("abcdef", 4), "a…ef");
        assert_eq!(truncate("abc", 4), "abc");
        // Two holders that differ only at the end stay distinct.
        let a = truncate("inventory-svc-7f9c:thread-12", 14);
        let b = truncate("inventory-svc-7f9c:thread-13", 14);
        assert_eq!(a, "invent…read-12");
        assert_ne!(a, b);
        assert_eq!(truncate("库存服务-节点甲-线程一", 6), "库存…线程一");
    }
}

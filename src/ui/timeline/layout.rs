//! Where everything on the timeline goes, as plain numbers: the rows of key
//! groups and holder lanes, each lane's items at the frame's [`TimeScale`]
//! (sub-pixel quiet leases merged, anomalies always kept visible), and the
//! one hit test that says what lies under a point. Nothing here paints or
//! reads input, so it is tested with tiny hand-built lanes.

use egui::{Pos2, Rect, pos2};

use super::model::{
    FindingMark, InfraMark, LANE_H, Lane, LaneGroup, LeaseBar, OverlapBox, SaleMark, SwimlaneModel,
};
use super::view::TimeScale;
use crate::analysis::{IncidentId, OverlapId};

/// Width of the label column on the left, points.
pub const LABEL_W: f32 = 236.0;
/// Height of the time axis, points.
pub const AXIS_H: f32 = 34.0;
/// Height of a key's header row, points.
pub const HEADER_H: f32 = 22.0;
/// Height of a holder lane when few lanes leave room, points.
pub const MAX_LANE_H: f32 = 32.0;
/// Share of the plot's height that lanes may grow into.
const LANE_ROOM_SHARE: f32 = 0.6;
/// Gap after each key group, points.
pub const GROUP_GAP: f32 = 6.0;
/// An anomaly (overlap, zombie hold, near-miss, no TTL) is never narrower
/// than this, points, so it stays visible at any zoom.
pub const ANOMALY_MIN_W: f32 = 2.0;
/// A quiet lease is never narrower than this, points.
pub const QUIET_MIN_W: f32 = 1.0;
/// Width over which an open-ended lease (no TTL) fades out, points.
pub const OPEN_END_FADE_W: f32 = 80.0;
/// Radius of an oversold order's diamond, points.
pub const SALE_BAD_R: f32 = 6.0;
/// Radius of an order's diamond, points.
pub const SALE_OK_R: f32 = 4.5;
/// Width of a finding's marker (a flag with the kind's letter), points.
pub const FINDING_W: f32 = 12.0;
/// How far beside a lease or an order the pointer still hits it, points.
const HIT_PAD: f32 = 2.0;
/// How far beside an overlap window a click still selects its incident,
/// points.
const OVERLAP_CLICK_PAD: f32 = 3.0;

impl LaneGroup {
    /// Height in points.
    pub fn height(&self) -> f32 {
        HEADER_H + self.lane_count() as f32 * self.lane_h + GROUP_GAP
    }
}

/// The height of each holder lane when `groups` key groups of `lanes`
/// lanes in all are shown in `room` points: [`LANE_H`] when many lanes
/// share the room, growing (in whole points) up to [`MAX_LANE_H`] when few
/// do, so that a two-lane incident does not leave most of the plot empty.
/// The lanes take at most [`LANE_ROOM_SHARE`] of the room.
pub fn lane_height(groups: usize, lanes: usize, room: f32) -> f32 {
    let for_lanes = room * LANE_ROOM_SHARE - groups as f32 * (HEADER_H + GROUP_GAP);
    (for_lanes / lanes.max(1) as f32)
        .floor()
        .clamp(LANE_H, MAX_LANE_H)
}

impl SwimlaneModel {
    /// Gives every lane the height [`lane_height`] says for `room` points;
    /// true when it changed.
    pub fn fit_lane_height(&mut self, room: f32) -> bool {
        let lanes = self.groups.iter().map(LaneGroup::lane_count).sum();
        let h = lane_height(self.groups.len(), lanes, room);
        let changed = self.groups.iter().any(|g| g.lane_h != h);
        for g in &mut self.groups {
            g.lane_h = h;
        }
        changed
    }
}

impl SwimlaneModel {
    /// Total height of the lanes, points.
    pub fn content_height(&self) -> f32 {
        self.groups.iter().map(LaneGroup::height).sum()
    }

    /// Top of group `g` relative to the first group, points.
    pub fn group_top(&self, g: usize) -> f32 {
        self.groups.iter().take(g).map(LaneGroup::height).sum()
    }
}

/// How far the lanes scroll in a plot `plot_height` points high.
pub fn max_scroll(model: &SwimlaneModel, plot_height: f32) -> f32 {
    (model.content_height() - plot_height).max(0.0)
}

/// Which lanes a picture shows: whole key groups, and whole lanes only.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaneFit {
    /// For each group shown (the model's first `lanes.len()` groups), the
    /// indexes of its lanes shown, in their order.
    pub lanes: Vec<Vec<usize>>,
    /// Lanes of the groups shown that are left out.
    pub hidden_lanes: usize,
    /// Groups left out after the last one shown.
    pub hidden_groups: usize,
    /// Height of the rows shown, points.
    pub height: f32,
}

/// The lanes a picture of `model` shows in `room` points: groups whole,
/// top to bottom, while they fit; a first group taller than `room` shows
/// as many whole lanes as fit, the lanes `wanted` says are wanted first
/// (the incident's holders), then the others in their order, all shown in
/// their order. At least the first group's header is shown, so no row is
/// ever cut. For a model built whole: a report's pictures (the window's
/// pictures use [`whole_rows`], which counts a pending group's lanes).
pub fn fit_lanes(model: &SwimlaneModel, room: f32, wanted: impl Fn(&Lane) -> bool) -> LaneFit {
    let mut fit = LaneFit::default();
    for (gi, g) in model.groups.iter().enumerate() {
        let n = g.lanes.len();
        if fit.height + g.height() <= room {
            fit.lanes.push((0..n).collect());
            fit.height += g.height();
            continue;
        }
        if gi == 0 {
            // The first group alone is taller than the picture.
            let fits = ((room - HEADER_H - GROUP_GAP) / g.lane_h).floor().max(0.0) as usize;
            let mut order: Vec<usize> = (0..n).filter(|&li| wanted(&g.lanes[li])).collect();
            order.extend((0..n).filter(|&li| !wanted(&g.lanes[li])));
            order.truncate(fits.min(n));
            order.sort_unstable();
            fit.height += HEADER_H + GROUP_GAP + order.len() as f32 * g.lane_h;
            fit.hidden_lanes = n - order.len();
            fit.lanes.push(order);
        }
        fit.hidden_groups = model.groups.len() - fit.lanes.len();
        break;
    }
    fit
}

impl SwimlaneModel {
    /// Keeps the groups and lanes `fit` shows; handoff arrows to a lane
    /// left out are dropped, the others follow their lanes.
    pub fn keep(&mut self, fit: &LaneFit) {
        self.groups.truncate(fit.lanes.len());
        for (g, kept) in self.groups.iter_mut().zip(&fit.lanes) {
            if kept.len() == g.lanes.len() {
                continue;
            }
            let new_index = |li: usize| kept.binary_search(&li).ok();
            let lanes = std::mem::take(&mut g.lanes);
            g.lanes = lanes
                .into_iter()
                .enumerate()
                .filter(|(li, _)| new_index(*li).is_some())
                .map(|(_, l)| l)
                .collect();
            for o in &mut g.overlaps {
                o.handoff = o.handoff.and_then(|h| {
                    Some(super::model::Handoff {
                        from_lane: new_index(h.from_lane)?,
                        to_lane: new_index(h.to_lane)?,
                        ..h
                    })
                });
            }
        }
    }
}

/// The rows of a picture of the window's timeline: the scroll moved up to
/// the top of the row it falls in, and as many whole rows as fit below it,
/// so the picture shows no cut row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WholeRows {
    /// The scroll, at the top of a row, points.
    pub scroll_y: f32,
    /// Height of the whole rows shown, points (at most the plot's).
    pub height: f32,
    /// Lanes not shown whole (above, below or cut).
    pub hidden_lanes: usize,
}

/// Each row of `model`, top to bottom, as (top, bottom, own height, is a
/// lane): a key's header, then its lanes; a group's gap goes with its last
/// row (in its bottom, not in its own height). Made as read, never stored:
/// a 10 M event log has 2 M lanes.
fn row_spans(model: &SwimlaneModel) -> impl Iterator<Item = (f32, f32, f32, bool)> + '_ {
    model
        .groups
        .iter()
        .scan(0.0f32, |y, g| {
            let top = *y;
            let lanes_end = top + g.height();
            *y = lanes_end;
            Some((top, lanes_end, g))
        })
        .flat_map(|(y, lanes_end, g)| {
            let n = g.lane_count();
            (0..=n).map(move |k| {
                let (top, own_h, is_lane) = match k {
                    0 => (y, HEADER_H, false),
                    k => (y + HEADER_H + (k - 1) as f32 * g.lane_h, g.lane_h, true),
                };
                let bottom = if k == n { lanes_end } else { top + own_h };
                (top, bottom, own_h, is_lane)
            })
        })
}

/// [`WholeRows`] of `model` scrolled by `scroll_y` in a plot `plot_h`
/// points high. A row is a key's header (with the gap after its group) or
/// a lane.
pub fn whole_rows(model: &SwimlaneModel, scroll_y: f32, plot_h: f32) -> WholeRows {
    // Row tops only grow: the last row starting at or above the scroll
    // line is the first shown.
    let top = row_spans(model)
        .take_while(|r| r.0 <= scroll_y + 0.5)
        .last()
        .map_or(0.0, |r| r.0);
    let mut bottom = top;
    let mut shown = 0;
    for (t, b, own_h, is_lane) in row_spans(model).skip_while(|r| r.0 < top) {
        // A group's gap may be cut; its rows may not.
        if t + own_h - top > plot_h + 0.5 {
            break;
        }
        bottom = b.min(top + plot_h);
        shown += usize::from(is_lane);
    }
    let lanes: usize = model.groups.iter().map(LaneGroup::lane_count).sum();
    WholeRows {
        scroll_y: top,
        height: bottom - top,
        hidden_lanes: lanes - shown,
    }
}

/// The vertical placement of the rows for one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rows {
    /// Top of the first group (the plot's top minus the scroll), points.
    pub first_top: f32,
    /// Top of the plot (below the axis), points.
    pub plot_top: f32,
    /// Bottom of the plot, points.
    pub plot_bottom: f32,
}

/// A key group placed on screen.
#[derive(Clone, Copy, Debug)]
pub struct PlacedGroup<'a> {
    /// The group.
    pub group: &'a LaneGroup,
    /// Its top (the header row's top), points.
    pub top: f32,
}

impl PlacedGroup<'_> {
    /// Top of the first lane, below the header row.
    pub fn lanes_top(&self) -> f32 {
        self.top + HEADER_H
    }

    /// Bottom of the last lane.
    pub fn lanes_bottom(&self) -> f32 {
        self.lanes_top() + self.group.lane_count() as f32 * self.group.lane_h
    }

    /// Height of its lanes.
    pub fn lane_h(&self) -> f32 {
        self.group.lane_h
    }

    /// Top of lane `li`.
    pub fn lane_top(&self, li: usize) -> f32 {
        self.lanes_top() + li as f32 * self.group.lane_h
    }

    /// True when lane `li` reaches into the plot of `rows`.
    pub fn lane_visible(&self, rows: &Rows, li: usize) -> bool {
        let top = self.lane_top(li);
        !(top > rows.plot_bottom || top + self.group.lane_h < rows.plot_top)
    }
}

impl Rows {
    /// The rows of `plot` scrolled down by `scroll_y`.
    pub fn new(plot: Rect, scroll_y: f32) -> Rows {
        Rows {
            first_top: plot.top() - scroll_y,
            plot_top: plot.top(),
            plot_bottom: plot.bottom(),
        }
    }

    /// The groups that reach into the plot, top to bottom.
    pub fn visible_groups<'a>(&self, model: &'a SwimlaneModel) -> Vec<PlacedGroup<'a>> {
        let mut out = Vec::new();
        let mut y = self.first_top;
        for group in &model.groups {
            let height = group.height();
            if y > self.plot_bottom {
                break;
            }
            if y + height >= self.plot_top {
                out.push(PlacedGroup { group, top: y });
            }
            y += height;
        }
        out
    }
}

/// Where one lease is drawn at a scale, points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LeaseGeometry {
    /// Grant.
    pub x0: f32,
    /// End of the solid bar: the lock's end, at least the minimum width,
    /// and through the view for an open-ended lock.
    pub bar_x1: f32,
    /// No TTL: the bar fades out from `bar_x1` to here.
    pub fade_to: Option<f32>,
    /// The zombie part, at least [`ANOMALY_MIN_W`] wide.
    pub zombie: Option<(f32, f32)>,
    /// The right end of everything drawn for it.
    pub end_x: f32,
}

impl LeaseGeometry {
    /// The geometry of `bar` at `scale`.
    pub fn new(bar: &LeaseBar, scale: &TimeScale) -> LeaseGeometry {
        let x0 = scale.x_from_time(bar.start_s);
        let mut bar_x1 = scale.x_from_time(bar.lock_end_s);
        let min_w = if bar.anomalous() {
            ANOMALY_MIN_W
        } else {
            QUIET_MIN_W
        };
        if bar_x1 - x0 < min_w {
            bar_x1 = x0 + min_w;
        }
        if bar.open_ended() {
            // A lock without TTL still held when the log ends never
            // expires: it is held through the whole visible range, then
            // fades out.
            bar_x1 = bar_x1.max(scale.right - OPEN_END_FADE_W);
        }
        let fade_to = bar
            .no_ttl
            .then(|| (bar_x1 + OPEN_END_FADE_W).min(scale.right));
        let mut end_x = fade_to.unwrap_or(bar_x1);
        let zombie = bar.zombie.map(|(z0, z1)| {
            let zx0 = scale.x_from_time(z0);
            let mut zx1 = scale.x_from_time(z1);
            if zx1 - zx0 < ANOMALY_MIN_W {
                zx1 = zx0 + ANOMALY_MIN_W;
            }
            end_x = end_x.max(zx1);
            (zx0, zx1)
        });
        LeaseGeometry {
            x0,
            bar_x1,
            fade_to,
            zombie,
            end_x,
        }
    }
}

/// One thing drawn in a lane, in paint order.
#[derive(Clone, Debug)]
pub enum LaneItem<'a> {
    /// Quiet leases narrower than a point, merged into one run per pixel
    /// column (level of detail).
    Merged {
        /// Left edge.
        x0: f32,
        /// Right edge.
        x1: f32,
    },
    /// A lease drawn as itself.
    Lease {
        /// The lease.
        bar: &'a LeaseBar,
        /// Where it is drawn.
        geometry: LeaseGeometry,
        /// The x span the pointer hits (before the hit margin).
        hit: (f32, f32),
    },
}

/// The leases of `lane` visible at `scale`, in paint order: quiet leases
/// (those at least a point wide as themselves, the narrower ones merged
/// into runs), then every anomalous lease on top, each at least
/// [`ANOMALY_MIN_W`] wide, however far out the view is zoomed (Tracy's
/// lock lanes: contention is never hidden by quiet regions).
pub fn lane_items<'a>(lane: &'a Lane, scale: &TimeScale) -> Vec<LaneItem<'a>> {
    let from = lane
        .leases
        .partition_point(|b| b.start_s < scale.start_s - lane.max_len_s);
    let mut items = Vec::new();
    let mut run: Option<(f32, f32)> = None;
    let mut anomalies: Vec<&LeaseBar> = Vec::new();
    for bar in &lane.leases[from..] {
        if bar.start_s > scale.end_s {
            break;
        }
        if bar.end_s() < scale.start_s && !bar.no_ttl {
            continue;
        }
        if bar.anomalous() {
            anomalies.push(bar);
            continue;
        }
        let x0 = scale.x_from_time(bar.start_s);
        let x1 = scale.x_from_time(bar.end_s());
        if x1 - x0 < 1.0 {
            match &mut run {
                Some((_, run_end)) if x0 <= *run_end + 1.0 => {
                    *run_end = run_end.max(x1.max(x0 + 1.0));
                }
                _ => {
                    if let Some((x0, x1)) = run.take() {
                        items.push(LaneItem::Merged { x0, x1 });
                    }
                    run = Some((x0, x0 + 1.0));
                }
            }
            continue;
        }
        let geometry = LeaseGeometry::new(bar, scale);
        items.push(LaneItem::Lease {
            bar,
            geometry,
            hit: (x0, x1),
        });
    }
    if let Some((x0, x1)) = run {
        items.push(LaneItem::Merged { x0, x1 });
    }
    for bar in anomalies {
        let geometry = LeaseGeometry::new(bar, scale);
        items.push(LaneItem::Lease {
            bar,
            geometry,
            hit: (geometry.x0, geometry.end_x),
        });
    }
    items
}

/// The sales of `lane` inside the visible range, by time.
pub fn visible_sales<'a>(lane: &'a Lane, scale: &TimeScale) -> &'a [SaleMark] {
    let from = lane.sales.partition_point(|s| s.at_s < scale.start_s);
    let to = from + lane.sales[from..].partition_point(|s| s.at_s <= scale.end_s);
    &lane.sales[from..to]
}

/// The diamond of `sale` in a lane whose top is `lane_top` (`lane_h`
/// high): centre and radius.
pub fn sale_diamond(sale: &SaleMark, scale: &TimeScale, lane_top: f32, lane_h: f32) -> (Pos2, f32) {
    let centre = pos2(scale.x_from_time(sale.at_s), lane_top + lane_h / 2.0);
    let r = if sale.oversold_units > 0 {
        SALE_BAD_R
    } else {
        SALE_OK_R
    };
    (centre, r)
}

/// The findings of `marks` (sorted by time) inside the visible range.
pub fn visible_findings<'a>(marks: &'a [FindingMark], scale: &TimeScale) -> &'a [FindingMark] {
    let from = marks.partition_point(|m| m.at_s < scale.start_s);
    let to = from + marks[from..].partition_point(|m| m.at_s <= scale.end_s);
    &marks[from..to]
}

/// Where the label of a runtime pause (`text_w` points wide) starts in the
/// pause's band (`band`: its left and right edges, points): 3 points in,
/// moved right past each finding flag (`flags`: left and right edges, in
/// time order) it would run under, as a holder-stall flag at the pause's
/// start would; `None` when it then no longer fits with 3 points to spare.
pub fn stall_label_left(band: (f32, f32), flags: &[(f32, f32)], text_w: f32) -> Option<f32> {
    let mut left = band.0 + 3.0;
    for &(flag_left, flag_right) in flags {
        if flag_left < left + text_w && flag_right > left {
            left = flag_right + 3.0;
        }
    }
    (left + text_w + 3.0 <= band.1).then_some(left)
}

/// The marker of a finding at `at_s` in a row whose top is `row_top` and
/// height `row_h`: a flag [`FINDING_W`] wide whose left edge is the time,
/// so it never hides the bar's start it points at.
pub fn finding_rect(at_s: f64, scale: &TimeScale, row_top: f32, row_h: f32) -> Rect {
    let x = scale.x_from_time(at_s);
    Rect::from_min_max(
        pos2(x, row_top + 1.0),
        pos2(x + FINDING_W, row_top + row_h - 1.0),
    )
}

/// The box of overlap `o` of `group` (under the bars, from the header row
/// down to the last lane), at least [`ANOMALY_MIN_W`] wide; `None` when it
/// is outside the visible range.
pub fn overlap_rect(o: &OverlapBox, group: &PlacedGroup<'_>, scale: &TimeScale) -> Option<Rect> {
    if o.end_s < scale.start_s || o.start_s > scale.end_s {
        return None;
    }
    let x0 = scale.x_from_time(o.start_s).max(scale.left - 2.0);
    let mut x1 = scale.x_from_time(o.end_s).min(scale.right + 2.0);
    if x1 - x0 < ANOMALY_MIN_W {
        x1 = x0 + ANOMALY_MIN_W;
    }
    Some(Rect::from_min_max(
        pos2(x0, group.top + 2.0),
        pos2(x1, group.lanes_bottom()),
    ))
}

/// Padding around a label inside its box and between two labels, points.
pub const LABEL_PAD: f32 = 3.0;

/// Where a band's label is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelSpot {
    /// Left edge of the text, points.
    pub x: f32,
    /// Row: 0 is the key's header row, 1 and on lie over its lanes.
    pub row: usize,
    /// True when the short form of the text is drawn.
    pub short: bool,
}

/// Where each overlap band's label goes. `labels` are `(band_left,
/// text_w, short_w)`, sorted by band; `(left, right)` is the plot's span;
/// `rows` how many rows the labels may use. Each label starts just right
/// of its band's left edge (moved left to end inside the plot, never past
/// its left edge) in the first row where it clears the labels already
/// there. When that leaves a label out, all take their short form if that
/// places more; `None` only for bands too dense for either. Labels are
/// never cut by the plot's edges and never overlap one another.
pub fn place_label_rows(
    labels: &[(f32, f32, f32)],
    (left, right): (f32, f32),
    rows: usize,
) -> Vec<Option<LabelSpot>> {
    let pass = |short: bool| -> Vec<Option<LabelSpot>> {
        let mut ends = vec![f32::NEG_INFINITY; rows];
        labels
            .iter()
            .map(|&(band_left, w, short_w)| {
                let width = if short { short_w } else { w };
                let x = (band_left + LABEL_PAD).min(right - LABEL_PAD - width);
                if x < left + LABEL_PAD {
                    return None;
                }
                let row = ends.iter().position(|&end| x >= end + LABEL_PAD)?;
                ends[row] = x + width;
                Some(LabelSpot { x, row, short })
            })
            .collect()
    };
    let placed = |spots: &[Option<LabelSpot>]| spots.iter().filter(|s| s.is_some()).count();
    let full = pass(false);
    if placed(&full) == labels.len() {
        return full;
    }
    let short = pass(true);
    if placed(&short) > placed(&full) {
        short
    } else {
        full
    }
}

/// [`place_label_rows`], and the labels it cannot place counted: when some
/// are left out, the labels are placed again with room kept at the right
/// end of the header row for the count (`+N`, `count_w(n)` points wide),
/// which is returned as `(its left edge, n)`. Every label is thus placed or
/// counted, and nothing overlaps.
pub fn place_labels_with_count(
    labels: &[(f32, f32, f32)],
    (left, right): (f32, f32),
    rows: usize,
    count_w: impl Fn(usize) -> f32,
) -> (Vec<Option<LabelSpot>>, Option<(f32, usize)>) {
    let spots = place_label_rows(labels, (left, right), rows);
    if spots.iter().all(Option::is_some) {
        return (spots, None);
    }
    // Room for the widest count there can be.
    let room = count_w(labels.len()) + 2.0 * LABEL_PAD;
    let spots = place_label_rows(labels, (left, right - room), rows);
    let dropped = spots.iter().filter(|s| s.is_none()).count();
    let x = right - LABEL_PAD - count_w(dropped);
    (spots, (dropped > 0).then_some((x, dropped)))
}

/// At most `max` handoff arrows: those of the selected incident (`true`
/// beside them) first, then the others evenly spread over the rest of the
/// room (every k-th in time order), so that a dense key shows the shape of
/// its handoffs without turning them to spaghetti. Returns the arrows kept,
/// in their order.
pub fn thin_arrows<T: Copy>(arrows: &[(T, bool)], max: usize) -> Vec<T> {
    let selected = arrows.iter().filter(|a| a.1).count();
    let others = arrows.len() - selected;
    let room = max.saturating_sub(selected);
    let step = if room == 0 {
        usize::MAX
    } else {
        others.div_ceil(room).max(1)
    };
    let mut n = 0usize;
    arrows
        .iter()
        .filter(|&&(_, sel)| {
            if sel {
                return true;
            }
            n += 1;
            step != usize::MAX && (n - 1).is_multiple_of(step)
        })
        .map(|a| a.0)
        .collect()
}

/// The arrow of a handoff in `group`: from the middle of the earlier
/// holder's lane at its lock's end to the middle of the later holder's
/// lane at its grant; `None` when neither end is in the visible range.
pub fn handoff_arrow(
    h: &super::model::Handoff,
    group: &PlacedGroup<'_>,
    scale: &TimeScale,
) -> Option<(Pos2, Pos2)> {
    if !scale.shows(h.from_s) && !scale.shows(h.to_s) {
        return None;
    }
    let y = |li: usize| group.lane_top(li) + group.lane_h() / 2.0;
    Some((
        pos2(scale.x_from_time(h.from_s), y(h.from_lane)),
        pos2(scale.x_from_time(h.to_s), y(h.to_lane)),
    ))
}

/// The time span of `m` at `scale` as x positions, at least
/// [`ANOMALY_MIN_W`] wide, `None` when it is out of view.
fn infra_xs(m: &InfraMark, scale: &TimeScale) -> Option<(f32, f32)> {
    if m.end_s < scale.start_s || m.start_s > scale.end_s {
        return None;
    }
    let x0 = scale.x_from_time(m.start_s).max(scale.left - 1.0);
    let x1 = scale
        .x_from_time(m.end_s)
        .min(scale.right + 1.0)
        .max(x0 + ANOMALY_MIN_W);
    Some((x0, x1))
}

/// Where a runtime pause is drawn on the lane whose top is `lane_top`
/// (`lane_h` high): its span over the lane's bar, `None` out of view.
pub fn stall_rect(m: &InfraMark, scale: &TimeScale, lane_top: f32, lane_h: f32) -> Option<Rect> {
    let (x0, x1) = infra_xs(m, scale)?;
    Some(Rect::from_min_max(
        pos2(x0, lane_top + 1.0),
        pos2(x1, lane_top + lane_h - 1.0),
    ))
}

/// Where a server event is drawn across its key's group: from the header
/// row's top to the last lane's bottom, as wide as its span (an instant:
/// [`ANOMALY_MIN_W`]), `None` out of view.
pub fn server_mark_rect(m: &InfraMark, scale: &TimeScale, group: &PlacedGroup<'_>) -> Option<Rect> {
    let (x0, x1) = infra_xs(m, scale)?;
    Some(Rect::from_min_max(
        pos2(x0, group.top),
        pos2(x1, group.lanes_bottom()),
    ))
}

/// The tag that names a server event in the header row, `text_w` points
/// wide: left of the event's line, so that a finding's flag (drawn right of
/// its time) stays clear; right of it when the plot's left edge
/// `plot_left` would cut it.
pub fn server_tag_rect(line_x: f32, text_w: f32, group_top: f32, plot_left: f32) -> Rect {
    let w = text_w + 6.0;
    let left = if line_x - w - 1.0 >= plot_left {
        line_x - w - 1.0
    } else {
        line_x + 1.0
    };
    Rect::from_min_size(pos2(left, group_top + 3.0), egui::vec2(w, HEADER_H - 6.0))
}

/// The tags of a group's server events, one per mark of `marks` given
/// each tag's text width (`None`: out of view, or left out): each left of
/// its line ([`server_tag_rect`]). Cited marks are placed first, then the
/// rest in time order; a tag that would cover one placed before it is left
/// out, so that tags never overlap (the lines are all drawn).
pub fn server_tags(
    marks: &[InfraMark],
    widths: &[f32],
    scale: &TimeScale,
    group: &PlacedGroup<'_>,
    plot_left: f32,
) -> Vec<Option<Rect>> {
    let mut order: Vec<usize> = (0..marks.len().min(widths.len())).collect();
    order.sort_by_key(|&i| !marks[i].cited);
    let mut tags: Vec<Option<Rect>> = vec![None; marks.len()];
    for i in order {
        let Some(line) = server_mark_rect(&marks[i], scale, group) else {
            continue;
        };
        let tag = server_tag_rect(line.left(), widths[i], group.top, plot_left);
        let clear = tags
            .iter()
            .flatten()
            .all(|k| !k.expand2(egui::vec2(2.0, 0.0)).intersects(tag));
        if clear {
            tags[i] = Some(tag);
        }
    }
    tags
}

/// Narrower than this on a picture's axis, points, the moment that decides
/// an incident gets an inset of its own (a 9 ms foreign release on a 10 s
/// axis is a hairline).
pub const INSET_BELOW_W: f32 = 24.0;

/// The overlap that decides incident `id` in `model` (the one holding its
/// first oversold order, else its shortest) and the time range an inset
/// shows around it (its length, at least 1 ms, twice on either side), when
/// it is narrower than [`INSET_BELOW_W`] at `px_per_s`; `None` when the
/// picture shows it wide enough.
pub fn decisive_inset(
    model: &SwimlaneModel,
    id: IncidentId,
    px_per_s: f64,
) -> Option<(&OverlapBox, (f64, f64))> {
    let boxes: Vec<&OverlapBox> = model
        .groups
        .iter()
        .flat_map(|g| &g.overlaps)
        .filter(|o| o.incident == Some(id))
        .collect();
    let oversold_at = |o: &OverlapBox| {
        model
            .groups
            .iter()
            .flat_map(|g| g.lanes.iter().flat_map(|l| &l.sales).chain(&g.loose_sales))
            .filter(|s| s.oversold_units > 0 && s.at_s >= o.start_s && s.at_s <= o.end_s)
            .map(|s| s.at_s)
            .fold(f64::INFINITY, f64::min)
    };
    let decisive = boxes
        .iter()
        .copied()
        .filter(|o| oversold_at(o).is_finite())
        .min_by(|a, b| oversold_at(a).total_cmp(&oversold_at(b)))
        .or_else(|| {
            boxes
                .iter()
                .copied()
                .min_by(|a, b| (a.end_s - a.start_s).total_cmp(&(b.end_s - b.start_s)))
        })?;
    let len = decisive.end_s - decisive.start_s;
    if (len * px_per_s) as f32 >= INSET_BELOW_W {
        return None;
    }
    let pad = len.max(0.001) * 2.0;
    Some((decisive, (decisive.start_s - pad, decisive.end_s + pad)))
}

/// What an item under the pointer is.
#[derive(Clone, Copy, Debug)]
pub enum Hit<'a> {
    /// A lease bar in a holder's lane.
    Lease(&'a Lane, &'a LeaseBar),
    /// An order's diamond in a holder's lane.
    Sale(&'a Lane, &'a SaleMark),
    /// An overlap window, at the part of it in the key's header row.
    Overlap(&'a OverlapBox),
    /// A finding's marker, on a lane or the header row.
    Finding(&'a FindingMark),
    /// A server event's line in the header row, or a runtime pause on a
    /// lane.
    Infra(&'a InfraMark),
}

/// What lies under a point of the timeline.
#[derive(Clone, Copy, Debug, Default)]
pub struct HitResult<'a> {
    /// The topmost item drawn there (what the tooltip describes).
    pub item: Option<Hit<'a>>,
    /// The first overlap window of the key group under the point that
    /// spans the point's time (give or take a few points), anywhere in the
    /// group's rows.
    pub window: Option<&'a OverlapBox>,
}

impl HitResult<'_> {
    /// The incident a click there selects: the overlap under the pointer in
    /// the header row, else the overlap window spanning that time.
    pub fn incident(&self) -> Option<IncidentId> {
        match self.item {
            Some(Hit::Overlap(o)) if o.incident.is_some() => o.incident,
            _ => self.window.and_then(|o| o.incident),
        }
    }

    /// The overlap pair a click there selects: the one under the pointer
    /// in the header row, else the overlap window spanning that time.
    pub fn overlap(&self) -> Option<OverlapId> {
        match self.item {
            Some(Hit::Overlap(o)) => Some(o.overlap),
            _ => self.window.map(|o| o.overlap),
        }
    }
}

/// The group (index into `model.groups`) whose rows are at height `y`.
pub fn group_at(model: &SwimlaneModel, rows: &Rows, y: f32) -> Option<usize> {
    let mut top = rows.first_top;
    for (i, group) in model.groups.iter().enumerate() {
        if y >= top && y < top + group.height() {
            return Some(i);
        }
        top += group.height();
    }
    None
}

/// What lies under `p`: walks the groups down to the one under the point
/// and, in its rows, the lane under the point only.
pub fn hit_test<'a>(
    model: &'a SwimlaneModel,
    rows: &Rows,
    scale: &TimeScale,
    p: Pos2,
) -> HitResult<'a> {
    let mut y = rows.first_top;
    for group in &model.groups {
        if y > p.y {
            break;
        }
        let height = group.height();
        if p.y < y + height {
            let placed = PlacedGroup { group, top: y };
            let visible = y <= rows.plot_bottom && y + height >= rows.plot_top;
            return HitResult {
                item: if visible {
                    hit_in_group(&placed, rows, scale, p)
                } else {
                    None
                },
                window: window_at(group, scale, p.x),
            };
        }
        y += height;
    }
    HitResult::default()
}

/// The topmost item under `p` in `group`: an overlap in the header row, or
/// a lease or order in the lane under the point (orders over anomalies over
/// quiet leases; later over earlier).
fn hit_in_group<'a>(
    group: &PlacedGroup<'a>,
    rows: &Rows,
    scale: &TimeScale,
    p: Pos2,
) -> Option<Hit<'a>> {
    let mut hit = None;
    if p.y < group.lanes_top() {
        for o in &group.group.overlaps {
            if overlap_rect(o, group, scale).is_some_and(|r| r.contains(p)) {
                hit = Some(Hit::Overlap(o));
            }
        }
        for m in &group.group.server_marks {
            if server_mark_rect(m, scale, group).is_some_and(|r| r.expand(HIT_PAD).contains(p)) {
                hit = Some(Hit::Infra(m));
            }
        }
        for m in visible_findings(&group.group.findings, scale) {
            if finding_rect(m.at_s, scale, group.top, HEADER_H).contains(p) {
                hit = Some(Hit::Finding(m));
            }
        }
        return hit;
    }
    let lanes = group.group.lanes.iter().enumerate();
    let (li, lane) = lanes.into_iter().find(|&(li, _)| {
        let top = group.lane_top(li);
        group.lane_visible(rows, li) && p.y >= top && p.y < top + group.lane_h()
    })?;
    let lane_top = group.lane_top(li);
    for item in lane_items(lane, scale) {
        if let LaneItem::Lease {
            bar, hit: (x0, x1), ..
        } = item
            && p.x >= x0 - HIT_PAD
            && p.x <= x1 + HIT_PAD
        {
            hit = Some(Hit::Lease(lane, bar));
        }
    }
    // A pause is drawn over the bars.
    for m in &lane.stalls {
        if stall_rect(m, scale, lane_top, group.lane_h()).is_some_and(|r| r.contains(p)) {
            hit = Some(Hit::Infra(m));
        }
    }
    for sale in visible_sales(lane, scale) {
        let (centre, r) = sale_diamond(sale, scale, lane_top, group.lane_h());
        if (p - centre).length() <= r + HIT_PAD {
            hit = Some(Hit::Sale(lane, sale));
        }
    }
    for m in visible_findings(&lane.findings, scale) {
        if finding_rect(m.at_s, scale, lane_top, group.lane_h()).contains(p) {
            hit = Some(Hit::Finding(m));
        }
    }
    hit
}

/// The first overlap of `group` whose window spans the time at `x`, give
/// or take [`OVERLAP_CLICK_PAD`] points.
fn window_at<'a>(group: &'a LaneGroup, scale: &TimeScale, x: f32) -> Option<&'a OverlapBox> {
    let t = scale.time_from_x(x);
    let pad = OVERLAP_CLICK_PAD as f64 / scale.px_per_s();
    group
        .overlaps
        .iter()
        .find(|o| t >= o.start_s - pad && t <= o.end_s + pad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Cause, LockEnd, WindowEnd};
    use crate::analysis::{LeaseId, OverlapId};
    use crate::ui::timeline::model::Handoff;
    use crate::ui::timeline::view::TimelineView;

    /// A quiet lease from `start_s` to `end_s`.
    fn bar(start_s: f64, end_s: f64) -> LeaseBar {
        LeaseBar {
            lease: LeaseId::new(0),
            start_s,
            lock_end_s: end_s,
            window_end_s: end_s,
            zombie: None,
            renewals: Vec::new(),
            late_renewals: Vec::new(),
            released_s: Some(end_s),
            no_ttl: false,
            near_miss: false,
            in_overlap: false,
            inferred: false,
            ttl_ms: Some(2000),
            hold_ms: (end_s - start_s) * 1000.0,
            lock_end: LockEnd::OwnRelease,
            window_end: WindowEnd::Released,
        }
    }

    fn lane(leases: Vec<LeaseBar>) -> Lane {
        let max_len_s = leases
            .iter()
            .map(|b| b.end_s() - b.start_s)
            .fold(0.0, f64::max);
        Lane {
            holder: "A".into(),
            label: "A".into(),
            host: Default::default(),
            thread: Default::default(),
            leases: leases
                .into_iter()
                .enumerate()
                .map(|(i, b)| LeaseBar {
                    lease: LeaseId::new(i),
                    ..b
                })
                .collect(),
            max_len_s,
            sales: Vec::new(),
            findings: Vec::new(),
            stalls: Vec::new(),
        }
    }

    /// 1 s per 100 points from x = 0: one point is 10 ms.
    fn scale(start_s: f64, end_s: f64) -> TimeScale {
        TimeScale {
            left: 0.0,
            right: ((end_s - start_s) * 100.0) as f32,
            start_s,
            end_s,
        }
    }

    fn leases_of<'a>(items: &[LaneItem<'a>]) -> Vec<usize> {
        items
            .iter()
            .filter_map(|i| match i {
                LaneItem::Lease { bar, .. } => Some(bar.lease.index()),
                LaneItem::Merged { .. } => None,
            })
            .collect()
    }

    #[test]
    fn two_sub_pixel_leases_a_fifth_of_a_point_apart_merge_into_one_run() {
        // 1 ms leases (0.1 pt) starting 2 ms apart (0.2 pt).
        let l = lane(vec![bar(1.000, 1.001), bar(1.002, 1.003)]);
        let items = lane_items(&l, &scale(0.0, 10.0));
        assert_eq!(items.len(), 1, "{items:?}");
        let LaneItem::Merged { x0, x1 } = items[0] else {
            panic!("{items:?}")
        };
        // From the first start to a point past the last start.
        assert!((x0 - 100.0).abs() < 1e-3, "{x0}");
        assert!((x1 - 101.2).abs() < 1e-3, "{x1}");
    }

    #[test]
    fn sub_pixel_leases_far_apart_make_two_runs_and_wide_ones_stay_themselves() {
        let l = lane(vec![bar(1.0, 1.001), bar(2.0, 2.5), bar(5.0, 5.001)]);
        let items = lane_items(&l, &scale(0.0, 10.0));
        assert_eq!(items.len(), 3, "{items:?}");
        assert!(matches!(items[0], LaneItem::Lease { bar, .. } if bar.lease == LeaseId::new(1)));
        assert!(matches!(items[1], LaneItem::Merged { .. }));
        assert!(matches!(items[2], LaneItem::Merged { .. }));
    }

    #[test]
    fn an_overlap_inside_a_merged_run_stays_its_own_item_on_top() {
        let mut overlapping = bar(1.002, 1.003);
        overlapping.in_overlap = true;
        let l = lane(vec![bar(1.000, 1.001), overlapping, bar(1.004, 1.005)]);
        let items = lane_items(&l, &scale(0.0, 10.0));
        // The quiet ones still merge around it; the overlap is painted after
        // the run, at least two points wide.
        assert_eq!(items.len(), 2, "{items:?}");
        assert!(matches!(items[0], LaneItem::Merged { .. }));
        let LaneItem::Lease { bar, geometry, .. } = &items[1] else {
            panic!("{items:?}")
        };
        assert_eq!(bar.lease, LeaseId::new(1));
        assert!(geometry.bar_x1 - geometry.x0 >= ANOMALY_MIN_W);
    }

    #[test]
    fn a_zombie_hold_stays_visible_zoomed_out() {
        // The lock ended at 1.001 s; the holder kept working 1 ms more.
        let mut zombie = bar(1.0, 1.001);
        zombie.window_end_s = 1.002;
        zombie.zombie = Some((1.001, 1.002));
        let l = lane(vec![bar(0.990, 0.991), zombie]);
        let items = lane_items(&l, &scale(0.0, 1000.0));
        assert_eq!(leases_of(&items), [1]);
        let LaneItem::Lease { geometry, .. } = items[1] else {
            panic!("{items:?}")
        };
        let (z0, z1) = geometry.zombie.expect("zombie part drawn");
        assert!(z1 - z0 >= ANOMALY_MIN_W);
        assert!(geometry.end_x >= z1);
    }

    #[test]
    fn leases_outside_the_view_are_left_out() {
        let l = lane(vec![bar(0.0, 1.0), bar(3.0, 4.0), bar(8.0, 9.0)]);
        let items = lane_items(&l, &scale(2.0, 6.0));
        assert_eq!(leases_of(&items), [1]);
    }

    fn model_with_overlap() -> SwimlaneModel {
        let mut a = bar(1.0, 3.0);
        a.in_overlap = true;
        let mut b = bar(2.0, 4.0);
        b.in_overlap = true;
        let mut lane_b = lane(vec![b]);
        lane_b.holder = "B".into();
        lane_b.sales.push(SaleMark {
            sale: 0,
            at_s: 2.5,
            oversold_units: 1,
            quantity: 1,
            order_id: "o-1".into(),
        });
        SwimlaneModel {
            groups: vec![LaneGroup {
                key: "lock:k".into(),
                lanes: vec![lane(vec![a]), lane_b],
                overlaps: vec![OverlapBox {
                    overlap: OverlapId::new(0),
                    start_s: 2.0,
                    end_s: 3.0,
                    cause: Cause::LeaseExpired,
                    incident: Some(IncidentId::new(0)),
                    holders: ("A".into(), "B".into()),
                    handoff: None,
                }],
                loose_sales: Vec::new(),
                incidents: 1,
                findings: vec![FindingMark {
                    finding: 0,
                    kind: crate::analysis::FindingKind::FencingViolation,
                    at_s: 4.0,
                    detail: crate::analysis::FindingDetail::FencingViolation {
                        token: 33,
                        max: 34,
                        rejected: false,
                    },
                }],
                server_marks: Vec::new(),
                lane_h: LANE_H,
                pending: None,
            }],
            ..SwimlaneModel::default()
        }
    }

    #[test]
    fn a_handoff_arrow_runs_from_the_lock_end_to_the_next_grant() {
        let model = model_with_overlap();
        let group = PlacedGroup {
            group: &model.groups[0],
            top: 0.0,
        };
        let h = super::super::model::Handoff {
            from_s: 2.0,
            from_lane: 0,
            to_s: 2.5,
            to_lane: 1,
        };
        let (a, b) = handoff_arrow(&h, &group, &scale(0.0, 5.0)).expect("in view");
        assert_eq!(a, pos2(200.0, HEADER_H + LANE_H / 2.0));
        assert_eq!(b, pos2(250.0, HEADER_H + LANE_H * 1.5));
        assert!(handoff_arrow(&h, &group, &scale(3.0, 5.0)).is_none());
    }

    #[test]
    fn group_at_finds_the_key_under_a_height() {
        let model = model_with_overlap();
        let rows = Rows::new(Rect::from_min_max(pos2(0.0, 10.0), pos2(500.0, 300.0)), 0.0);
        assert_eq!(group_at(&model, &rows, 12.0), Some(0));
        assert_eq!(
            group_at(&model, &rows, 10.0 + model.groups[0].height() + 1.0),
            None
        );
        assert_eq!(group_at(&model, &rows, 5.0), None);
    }

    #[test]
    fn three_close_bands_each_get_their_label_in_rows_none_cut_or_overlapping() {
        // Three bands 30 points apart, labels 70 points wide (short 25): on
        // one row only the first would fit.
        let labels = [
            (100.0, 70.0, 25.0),
            (130.0, 70.0, 25.0),
            (160.0, 70.0, 25.0),
        ];
        let spots = place_label_rows(&labels, (0.0, 1000.0), 3);
        let spots: Vec<LabelSpot> = spots.into_iter().map(|s| s.expect("placed")).collect();
        assert_eq!(
            spots.iter().map(|s| (s.row, s.short)).collect::<Vec<_>>(),
            vec![(0, false), (1, false), (2, false)]
        );
        assert_eq!(spots[0].x, 100.0 + LABEL_PAD);
        // One row only: all shorten, and then all fit, none over another.
        let spots = place_label_rows(&labels, (0.0, 1000.0), 1);
        let spots: Vec<LabelSpot> = spots.into_iter().map(|s| s.expect("placed")).collect();
        assert!(spots.iter().all(|s| s.short && s.row == 0), "{spots:?}");
        assert!(
            spots
                .windows(2)
                .all(|w| w[0].x + 25.0 + LABEL_PAD <= w[1].x)
        );
        // Too dense even short: the ones that clear are kept.
        let dense = [(100.0, 70.0, 25.0), (110.0, 70.0, 25.0)];
        let spots = place_label_rows(&dense, (0.0, 1000.0), 1);
        assert!(spots[0].is_some() && spots[1].is_none(), "{spots:?}");
        // A band at the right edge: its label ends inside the plot.
        let spots = place_label_rows(&[(990.0, 70.0, 25.0)], (0.0, 1000.0), 1);
        let s = spots[0].expect("placed");
        assert!(s.x + 70.0 <= 1000.0 && !s.short, "{s:?}");
        // Wider than the plot in both forms: not drawn, not cut.
        assert_eq!(
            place_label_rows(&[(0.0, 90.0, 80.0)], (0.0, 60.0), 2),
            vec![None]
        );
    }

    #[test]
    fn a_finding_marker_is_hit_on_its_row_and_only_in_view() {
        let mut model = model_with_overlap();
        model.groups[0].lanes[1].findings.push(FindingMark {
            finding: 1,
            kind: crate::analysis::FindingKind::ForeignRelease,
            at_s: 1.0,
            detail: crate::analysis::FindingDetail::LateRenewal { late_ms: 0.0 },
        });
        let narrow = scale(0.0, 0.5);
        let scale = scale(0.0, 5.0);
        let plot = Rect::from_min_max(pos2(0.0, 0.0), pos2(500.0, 300.0));
        let rows = Rows::new(plot, 0.0);
        let at = |x: f32, y: f32| hit_test(&model, &rows, &scale, pos2(x, y)).item;
        // The header row's marker at 4 s (x = 400).
        assert!(matches!(at(405.0, HEADER_H / 2.0), Some(Hit::Finding(m)) if m.finding == 0));
        // Lane B's marker at 1 s (x = 100), on lane B only.
        let lane_b = HEADER_H + LANE_H * 1.5;
        assert!(matches!(at(104.0, lane_b), Some(Hit::Finding(m)) if m.finding == 1));
        assert!(!matches!(
            at(104.0, HEADER_H + LANE_H / 2.0),
            Some(Hit::Finding(_))
        ));
        // Out of the view: not listed.
        assert!(visible_findings(&model.groups[0].findings, &narrow).is_empty());
        assert_eq!(visible_findings(&model.groups[0].findings, &scale).len(), 1);
    }

    fn mark(kind: crate::model::EvidenceKind, start_s: f64, end_s: f64, cited: bool) -> InfraMark {
        InfraMark {
            evidence: 0,
            kind,
            start_s,
            end_s,
            cited,
            guess: false,
            detail: String::new(),
            also: 0,
        }
    }

    #[test]
    fn lanes_grow_when_few_share_the_room_and_rows_follow() {
        // Two lanes in a 600-point plot grow to the most; 200 lanes keep
        // the least; in between, the room is shared.
        assert_eq!(lane_height(1, 2, 600.0), MAX_LANE_H);
        assert_eq!(lane_height(1, 200, 600.0), LANE_H);
        let mid = lane_height(1, 14, 600.0);
        assert!(mid > LANE_H && mid < MAX_LANE_H, "{mid}");
        assert!(14.0 * mid <= 0.6 * 600.0, "within the share");
        assert_eq!(lane_height(1, 2, 0.0), LANE_H, "no room known yet");
        let mut model = model_with_overlap();
        assert!(model.fit_lane_height(600.0));
        assert!(!model.fit_lane_height(600.0), "unchanged the second time");
        let g = PlacedGroup {
            group: &model.groups[0],
            top: 0.0,
        };
        assert_eq!(g.lane_top(1), HEADER_H + MAX_LANE_H);
        assert_eq!(
            model.groups[0].height(),
            HEADER_H + 2.0 * MAX_LANE_H + GROUP_GAP
        );
        // The hit test finds the second lane in its taller row.
        let rows = Rows {
            first_top: 0.0,
            plot_top: 0.0,
            plot_bottom: 500.0,
        };
        let sc = scale(0.0, 10.0);
        let y = HEADER_H + MAX_LANE_H * 1.5;
        let hit = hit_test(&model, &rows, &sc, pos2(300.0, y));
        assert!(
            matches!(hit.item, Some(Hit::Lease(lane, _)) if lane.holder == "B"),
            "{:?}",
            hit.item
        );
        // A picture's whole rows count the taller lanes.
        let w = whole_rows(&model, 0.0, HEADER_H + 1.5 * MAX_LANE_H);
        assert_eq!(w.height, HEADER_H + MAX_LANE_H);
        assert_eq!(w.hidden_lanes, 1);
    }

    #[test]
    fn a_hairline_decisive_overlap_gets_an_inset_around_it() {
        let mut model = model_with_overlap();
        // The overlap is 2.0 to 3.0 s with an oversold order at 2.5 s.
        let id = IncidentId::new(0);
        assert!(
            decisive_inset(&model, id, 100.0).is_none(),
            "100 points wide"
        );
        let (o, (a, b)) = decisive_inset(&model, id, 10.0).expect("10 points: an inset");
        assert_eq!(o.overlap, OverlapId::new(0));
        assert_eq!((a, b), (0.0, 5.0));
        // A 9 ms overlap: the inset spans 18 ms either side.
        model.groups[0].overlaps[0].end_s = 2.009;
        let (_, (a, b)) = decisive_inset(&model, id, 100.0).expect("0.9 points: an inset");
        assert!(
            (a - 1.982).abs() < 1e-9 && (b - 2.027).abs() < 1e-9,
            "{a} {b}"
        );
        assert!(
            decisive_inset(&model, IncidentId::new(1), 1.0).is_none(),
            "no such incident"
        );
    }

    #[test]
    fn every_label_is_placed_or_counted_and_none_overlaps_the_count() {
        // Twelve bands 8 points apart in a 200-point plot, labels 60 wide
        // (short 40): far more than three rows hold.
        let labels: Vec<(f32, f32, f32)> = (0..12).map(|i| (i as f32 * 8.0, 60.0, 40.0)).collect();
        let count_w = |n: usize| 8.0 + 6.0 * n.to_string().len() as f32;
        let (spots, count) = place_labels_with_count(&labels, (0.0, 200.0), 3, count_w);
        let placed: Vec<(f32, f32, usize)> = spots
            .iter()
            .zip(&labels)
            .filter_map(|(s, l)| s.map(|s| (s.x, s.x + if s.short { l.2 } else { l.1 }, s.row)))
            .collect();
        let (x, n) = count.expect("some are counted");
        assert_eq!(placed.len() + n, labels.len());
        for (i, a) in placed.iter().enumerate() {
            assert!(a.0 >= 0.0 && a.1 <= 200.0, "{a:?} inside the plot");
            for b in &placed[i + 1..] {
                assert!(a.2 != b.2 || a.1 <= b.0 || b.1 <= a.0, "{a:?} over {b:?}");
            }
            assert!(a.2 != 0 || a.1 <= x, "{a:?} over the count at {x}");
        }
        // Few labels: all placed, no count.
        let (spots, count) = place_labels_with_count(&labels[..2], (0.0, 400.0), 3, count_w);
        assert!(spots.iter().all(Option::is_some) && count.is_none());
    }

    #[test]
    fn arrows_thin_out_keeping_the_selected_incident_s() {
        let arrows: Vec<(usize, bool)> = (0..100).map(|i| (i, i == 57 || i == 58)).collect();
        let kept = thin_arrows(&arrows, 12);
        assert!(kept.len() <= 12, "{kept:?}");
        assert!(kept.contains(&57) && kept.contains(&58));
        assert!(
            kept.contains(&0) && kept.iter().any(|&i| i > 80),
            "spread: {kept:?}"
        );
        let few: Vec<(usize, bool)> = (0..5).map(|i| (i, false)).collect();
        assert_eq!(thin_arrows(&few, 12), vec![0, 1, 2, 3, 4]);
        assert_eq!(thin_arrows(&arrows, 2), vec![57, 58]);
    }

    #[test]
    fn server_tags_never_overlap_and_a_cited_one_wins_its_place() {
        use crate::model::EvidenceKind::{Failover, Promoted, Restart};
        let mut model = model_with_overlap();
        // 100 points a second: promoted 30 points before the cited failover.
        model.groups[0].server_marks = vec![
            mark(Promoted, 4.7, 4.7, false),
            mark(Failover, 5.0, 5.0, true),
            mark(Restart, 9.0, 9.0, false),
            mark(Restart, 30.0, 30.0, false),
        ];
        let placed = PlacedGroup {
            group: &model.groups[0],
            top: 50.0,
        };
        let sc = scale(0.0, 10.0);
        let tags = server_tags(&placed.group.server_marks, &[40.0; 4], &sc, &placed, 0.0);
        assert!(tags[1].is_some(), "the cited failover keeps its tag");
        assert!(tags[0].is_none(), "the promotion's tag would cover it");
        assert!(tags[2].is_some());
        assert!(tags[3].is_none(), "out of view");
        let (f, r) = (
            tags[1].unwrap_or(Rect::NOTHING),
            tags[2].unwrap_or(Rect::NOTHING),
        );
        assert!(!f.intersects(r));
        // Left of its line, in the header row.
        assert!(
            f.right() <= sc.x_from_time(5.0) && f.top() >= 50.0 && f.bottom() <= 50.0 + HEADER_H
        );
        // At the plot's left edge the tag goes right of the line.
        let edge = server_tag_rect(3.0, 40.0, 50.0, 0.0);
        assert!(edge.left() >= 3.0);
    }

    #[test]
    fn a_pause_spans_its_time_on_the_lane_and_is_hit_there() {
        use crate::model::EvidenceKind::{Failover, GcPause};
        let mut model = model_with_overlap();
        model.groups[0].lanes[0].stalls = vec![mark(GcPause, 1.0, 4.0, true)];
        model.groups[0].server_marks = vec![mark(Failover, 6.0, 6.0, true)];
        let sc = scale(0.0, 10.0);
        let r = stall_rect(&model.groups[0].lanes[0].stalls[0], &sc, 100.0, LANE_H);
        let r = r.unwrap_or(Rect::NOTHING);
        assert_eq!((r.left(), r.right()), (100.0, 400.0));
        // A pause shorter than a point stays visible.
        let short = mark(GcPause, 1.0, 1.000_01, false);
        let w = stall_rect(&short, &sc, 0.0, LANE_H).map_or(0.0, |r| r.width());
        assert!(w >= ANOMALY_MIN_W);
        assert!(stall_rect(&mark(GcPause, 11.0, 12.0, false), &sc, 0.0, LANE_H).is_none());
        let rows = Rows {
            first_top: 0.0,
            plot_top: 0.0,
            plot_bottom: 500.0,
        };
        let on_pause = hit_test(&model, &rows, &sc, pos2(250.0, HEADER_H + LANE_H / 2.0));
        assert!(matches!(on_pause.item, Some(Hit::Infra(m)) if m.kind == GcPause));
        let on_line = hit_test(&model, &rows, &sc, pos2(601.0, HEADER_H / 2.0));
        assert!(matches!(on_line.item, Some(Hit::Infra(m)) if m.kind == Failover));
    }

    #[test]
    fn hit_test_finds_the_item_under_a_point() {
        let model = model_with_overlap();
        let scale = scale(0.0, 5.0);
        let plot = Rect::from_min_max(pos2(0.0, 0.0), pos2(500.0, 300.0));
        let rows = Rows::new(plot, TimelineView::default().scroll_y);
        let at = |x: f32, y: f32| hit_test(&model, &rows, &scale, pos2(x, y));
        let lane_a = HEADER_H + LANE_H / 2.0;
        let lane_b = HEADER_H + LANE_H * 1.5;
        // A's lease at 1.5 s, in A's lane.
        assert!(matches!(at(150.0, lane_a).item, Some(Hit::Lease(l, _)) if l.holder == "A"));
        // B's oversold order sits on B's lease and wins.
        assert!(
            matches!(at(250.0, lane_b).item, Some(Hit::Sale(l, s)) if l.holder == "B" && s.order_id == "o-1")
        );
        assert!(matches!(at(350.0, lane_b).item, Some(Hit::Lease(l, _)) if l.holder == "B"));
        // The overlap window in the header row.
        let header = at(250.0, HEADER_H / 2.0);
        assert!(matches!(header.item, Some(Hit::Overlap(o)) if o.overlap == OverlapId::new(0)));
        assert_eq!(header.incident(), Some(IncidentId::new(0)));
        // A click on a lane inside the window selects its incident too.
        let in_lane = at(220.0, lane_a);
        assert!(matches!(in_lane.item, Some(Hit::Lease(..))));
        assert_eq!(in_lane.incident(), Some(IncidentId::new(0)));
        // Outside the window (and its 3-point margin) nothing is selected.
        assert_eq!(at(150.0, lane_a).incident(), None);
        assert_eq!(at(197.5, lane_a).incident(), Some(IncidentId::new(0)));
        // Below the last group: nothing.
        let below = at(250.0, 200.0);
        assert!(below.item.is_none() && below.window.is_none());
    }

    /// A group `key` of `n` lanes named `h0`, `h1`...
    fn group_of(key: &str, n: usize) -> LaneGroup {
        LaneGroup {
            lanes: (0..n)
                .map(|i| Lane {
                    holder: format!("h{i}"),
                    ..lane(Vec::new())
                })
                .collect(),
            ..LaneGroup::empty(key.into())
        }
    }

    #[test]
    fn groups_that_fit_are_shown_whole_and_the_rest_counted() {
        let model = SwimlaneModel {
            groups: vec![group_of("a", 2), group_of("b", 3), group_of("c", 40)],
            ..SwimlaneModel::default()
        };
        let (a, b) = (model.groups[0].height(), model.groups[1].height());
        let fit = fit_lanes(&model, a + b + 10.0, |_| false);
        assert_eq!(fit.lanes, vec![vec![0, 1], vec![0, 1, 2]]);
        assert_eq!((fit.hidden_groups, fit.hidden_lanes), (1, 0));
        assert_eq!(fit.height, a + b);
    }

    #[test]
    fn a_key_of_500_holders_shows_whole_lanes_only_the_wanted_ones_first() {
        let model = SwimlaneModel {
            groups: vec![group_of("k", 500), group_of("other", 1)],
            ..SwimlaneModel::default()
        };
        // Room for 10.5 lanes: 10 whole ones, the incident's holders (h450,
        // h499) among them, the others from the top; the next key is left
        // for a picture of its own.
        let room = HEADER_H + GROUP_GAP + 10.5 * LANE_H;
        let fit = fit_lanes(&model, room, |l| l.holder == "h450" || l.holder == "h499");
        assert_eq!(
            fit.lanes,
            vec![vec![0, 1, 2, 3, 4, 5, 6, 7, 450, 499]],
            "10 whole lanes fit, not a cut 11th"
        );
        assert_eq!((fit.hidden_groups, fit.hidden_lanes), (1, 490));
        assert_eq!(fit.height, HEADER_H + GROUP_GAP + 10.0 * LANE_H);
        assert!(fit.height <= room);
        // With room for all, the key is shown whole.
        let fit = fit_lanes(&model, model.groups[0].height(), |_| false);
        assert_eq!((fit.lanes[0].len(), fit.hidden_lanes), (500, 0));
    }

    #[test]
    fn keeping_lanes_moves_handoffs_with_them_and_drops_those_left_out() {
        let mut model = model_with_overlap();
        model.groups[0].lanes.push(lane(Vec::new()));
        let handoff = |from_lane, to_lane| Handoff {
            from_s: 1.0,
            from_lane,
            to_s: 2.0,
            to_lane,
        };
        let o = model.groups[0].overlaps[0].clone();
        model.groups[0].overlaps = vec![
            OverlapBox {
                handoff: Some(handoff(0, 2)),
                ..o.clone()
            },
            OverlapBox {
                handoff: Some(handoff(0, 1)),
                ..o
            },
        ];
        model.keep(&LaneFit {
            lanes: vec![vec![0, 2]],
            ..LaneFit::default()
        });
        assert_eq!(model.groups[0].lanes.len(), 2);
        assert_eq!(model.groups[0].overlaps[0].handoff, Some(handoff(0, 1)));
        assert_eq!(model.groups[0].overlaps[1].handoff, None);
    }

    /// The whole rows as found before rows were made as read: every row
    /// listed first.
    fn reference_whole_rows(model: &SwimlaneModel, scroll_y: f32, plot_h: f32) -> WholeRows {
        let mut rows: Vec<(f32, f32, f32, bool)> = Vec::new();
        let mut y = 0.0;
        for g in &model.groups {
            let lanes_end = y + g.height();
            rows.push((y, y + HEADER_H, HEADER_H, false));
            for li in 0..g.lanes.len() {
                let top = y + HEADER_H + li as f32 * g.lane_h;
                rows.push((top, top + g.lane_h, g.lane_h, true));
            }
            if let Some(last) = rows.last_mut() {
                last.1 = lanes_end;
            }
            y = lanes_end;
        }
        let top = rows
            .iter()
            .rev()
            .map(|r| r.0)
            .find(|&t| t <= scroll_y + 0.5)
            .unwrap_or(0.0);
        // The rows from there that fit whole.
        let fit: Vec<_> = rows
            .iter()
            .filter(|r| r.0 >= top)
            .take_while(|r| r.0 + r.2 - top <= plot_h + 0.5)
            .collect();
        let bottom = fit.last().map_or(top, |r| r.1.min(top + plot_h));
        let all = rows.iter().filter(|r| r.3).count();
        WholeRows {
            scroll_y: top,
            height: bottom - top,
            hidden_lanes: all - fit.iter().filter(|r| r.3).count(),
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Groups of 0 to 40 lanes of two heights, any scroll and plot.
        #[test]
        fn whole_rows_made_as_read_are_the_listed_ones(
            sizes in proptest::collection::vec((0usize..40, proptest::bool::ANY), 0..8),
            scroll in -10.0f32..3000.0,
            plot_h in 0.0f32..800.0,
        ) {
            let groups = sizes
                .iter()
                .enumerate()
                .map(|(i, &(n, tall))| LaneGroup {
                    lane_h: if tall { MAX_LANE_H } else { LANE_H },
                    ..group_of(&format!("k{i}"), n)
                })
                .collect();
            let model = SwimlaneModel { groups, ..SwimlaneModel::default() };
            proptest::prop_assert_eq!(
                whole_rows(&model, scroll, plot_h),
                reference_whole_rows(&model, scroll, plot_h)
            );
        }
    }

    #[test]
    fn a_window_picture_shows_whole_rows_only() {
        let model = SwimlaneModel {
            groups: vec![group_of("a", 2), group_of("b", 30)],
            ..SwimlaneModel::default()
        };
        let a = model.groups[0].height();
        // Scrolled 5 points into group b's first lane, 100 points high:
        // the picture starts at that lane and ends at the last whole lane.
        let scroll = a + HEADER_H + 5.0;
        let w = whole_rows(&model, scroll, 100.0);
        assert_eq!(w.scroll_y, a + HEADER_H);
        let lanes_shown = (100.0 / LANE_H).floor();
        assert_eq!(w.height, lanes_shown * LANE_H);
        assert_eq!(w.hidden_lanes, 32 - lanes_shown as usize);
        // Everything fits: nothing hidden, the gap after the last group kept.
        let w = whole_rows(&model, 0.0, 2000.0);
        assert_eq!((w.scroll_y, w.hidden_lanes), (0.0, 0));
        assert_eq!(w.height, model.content_height());
    }

    /// A pause's label starts 3 points in, past a finding flag it would
    /// run under (the holder-stall flag at the pause's start), and is not
    /// drawn when it no longer fits.
    #[test]
    fn a_pause_label_starts_past_the_flag_at_its_start() {
        assert_eq!(stall_label_left((100.0, 300.0), &[], 50.0), Some(103.0));
        // A flag at the band's start (10 points wide): the label after it.
        let at_start = [(100.0, 110.0)];
        assert_eq!(
            stall_label_left((100.0, 300.0), &at_start, 50.0),
            Some(113.0)
        );
        // A flag past the label's end moves nothing.
        let later = [(200.0, 210.0)];
        assert_eq!(stall_label_left((100.0, 300.0), &later, 50.0), Some(103.0));
        // Two flags in a row: past both.
        let two = [(100.0, 110.0), (112.0, 122.0)];
        assert_eq!(stall_label_left((100.0, 300.0), &two, 50.0), Some(125.0));
        // Moved past the flag it no longer fits: not drawn.
        assert_eq!(stall_label_left((100.0, 160.0), &at_start, 50.0), None);
        assert_eq!(stall_label_left((100.0, 160.0), &[], 50.0), Some(103.0));
    }
}

//! Pixels: paints the axis, the key groups with their lanes, the time
//! cursor and the frame's decorations from the layout, in a fixed order
//! (later shapes on top). No decisions about what is visible are made here.

use egui::{Align2, Color32, FontId, Painter, Pos2, Rect, Shape, Stroke, StrokeKind, pos2, vec2};

use super::labels::{TimeDisplay, corner_time, tick_label};
use super::layout::{
    AXIS_H, HEADER_H, LABEL_W, LaneItem, LeaseGeometry, PlacedGroup, Rows, finding_rect,
    handoff_arrow, lane_items, overlap_rect, place_labels_with_count, sale_diamond,
    visible_findings, visible_sales,
};
use super::model::{FindingMark, LeaseBar, OverlapBox, SwimlaneModel};
use super::view::{AxisTicks, TimeScale};
use crate::analysis::{FindingKind, IncidentId, OverlapId};
use crate::report::format_ms;
use crate::ui::i18n::{Lang, cause_short, trf, words};

/// Colours of the timeline for one theme.
pub struct Palette {
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
    infra: Color32,
    infra_band: Color32,
    stall: Color32,
    stall_edge: Color32,
}

impl Palette {
    /// The dark or the light palette.
    pub fn new(dark: bool) -> Palette {
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
                infra: Color32::from_rgb(180, 130, 240),
                infra_band: Color32::from_rgba_unmultiplied(180, 130, 240, 40),
                stall: Color32::from_rgba_unmultiplied(240, 170, 40, 110),
                stall_edge: Color32::from_rgb(250, 190, 70),
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
                infra: Color32::from_rgb(120, 60, 190),
                infra_band: Color32::from_rgba_unmultiplied(120, 60, 190, 35),
                stall: Color32::from_rgba_unmultiplied(235, 150, 20, 120),
                stall_edge: Color32::from_rgb(180, 100, 0),
            }
        }
    }

    /// The background.
    pub fn bg(&self) -> Color32 {
        self.bg
    }
}

/// The rectangles of one frame of the timeline.
#[derive(Clone, Copy, Debug)]
pub struct TimelineRects {
    /// The whole widget.
    pub full: Rect,
    /// The lanes' area: right of the label column, below the axis.
    pub plot: Rect,
}

impl TimelineRects {
    /// The axis strip above the plot.
    fn axis(&self) -> Rect {
        Rect::from_min_max(
            pos2(self.plot.left(), self.full.top()),
            pos2(self.full.right(), self.plot.top()),
        )
    }
}

/// The axis: its background, minor and labelled ticks with the grid, and
/// the corner with the date, the tick spacing and the zone.
pub fn axis(
    painter: &Painter,
    rects: TimelineRects,
    scale: &TimeScale,
    model: &SwimlaneModel,
    display: TimeDisplay,
    palette: &Palette,
    lang: Lang,
) {
    let TimelineRects { full, plot } = rects;
    let axis = rects.axis();
    let ticks = AxisTicks::aligned(
        scale,
        model.t0_ns,
        super::labels::display_offset(model, display),
    );
    painter.rect_filled(
        Rect::from_min_max(full.min, pos2(full.right(), plot.top())),
        0.0,
        palette.header_bg,
    );
    for t in ticks.minor(scale) {
        let x = scale.x_from_time(t);
        if x < plot.left() {
            continue;
        }
        painter.line_segment(
            [pos2(x, axis.bottom() - 4.0), pos2(x, axis.bottom())],
            Stroke::new(1.0, palette.weak),
        );
    }
    let font = FontId::proportional(12.0);
    let mut label_end = plot.left();
    for t in ticks.major(scale) {
        let x = scale.x_from_time(t);
        if x < plot.left() || x > plot.right() {
            continue;
        }
        painter.line_segment(
            [pos2(x, plot.top()), pos2(x, plot.bottom())],
            Stroke::new(1.0, palette.grid),
        );
        painter.line_segment(
            [pos2(x, axis.bottom() - 9.0), pos2(x, axis.bottom())],
            Stroke::new(1.0, palette.text),
        );
        let text = tick_label(model, display, t, ticks.major_step);
        let galley = painter.layout_no_wrap(text, font.clone(), palette.text);
        let Some(left) = tick_label_left(x, galley.size().x, plot.right(), label_end) else {
            continue;
        };
        label_end = left + galley.size().x;
        let at = pos2(left, axis.bottom() - 10.0 - galley.size().y);
        painter.galley(at, galley, palette.text);
    }
    // Corner: date / zone / scale.
    let corner = corner_time(model, display, scale.start_s);
    let corner_rect = Rect::from_min_max(full.min, pos2(plot.left(), plot.top()));
    painter.rect_filled(corner_rect, 0.0, palette.header_bg);
    painter.text(
        corner_rect.left_top() + vec2(6.0, 4.0),
        Align2::LEFT_TOP,
        corner.get(..10).unwrap_or(&corner),
        FontId::proportional(11.0),
        palette.weak,
    );
    painter.text(
        corner_rect.left_bottom() + vec2(6.0, -4.0),
        Align2::LEFT_BOTTOM,
        crate::ui::i18n::trf(
            lang,
            "per_tick",
            &[&step_text(ticks.major_step), corner.get(24..).unwrap_or("")],
        ),
        FontId::proportional(11.0),
        palette.weak,
    );
}

/// The diamond an order is drawn as: centre `c`, `r` points to each corner.
fn diamond(c: Pos2, r: f32, color: Color32, stroke: Stroke) -> Shape {
    Shape::convex_polygon(
        vec![
            c + vec2(0.0, -r),
            c + vec2(r, 0.0),
            c + vec2(0.0, r),
            c + vec2(-r, 0.0),
        ],
        color,
        stroke,
    )
}

/// Overlap windows narrower than this (points) get no outline of their own
/// unless selected: in a dense cluster the outlines would merge into one
/// dark block.
const DENSE_OUTLINE_MIN_W: f32 = 6.0;

/// The union of `spans` (start, end), sorted, touching ones merged.
pub fn union_spans(spans: Vec<(f32, f32)>) -> Vec<(f32, f32)> {
    spans_within(spans, 0.0)
}

/// `spans` (start, end) sorted, those less than `gap` apart merged: the
/// bands a label names, where bands a few points apart read as one.
pub fn spans_within(mut spans: Vec<(f32, f32)>, gap: f32) -> Vec<(f32, f32)> {
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f32, f32)> = Vec::new();
    for (a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1 + gap => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// Overlap bands closer than this, points, get one cause label.
const LABEL_BAND_GAP: f32 = 6.0;

/// The spacing of labelled ticks for the axis corner: milliseconds to
/// minutes as the reports write durations, then days and years.
pub fn step_text(step_s: f64) -> String {
    const DAY: f64 = 86400.0;
    const YEAR: f64 = 365.25 * DAY;
    if step_s >= YEAR {
        format!("{:.0} y", step_s / YEAR)
    } else if step_s >= DAY {
        format!("{:.0} d", step_s / DAY)
    } else {
        format_ms(step_s * 1000.0)
    }
}

/// Where a tick's label of `width` starts: right of its tick at `x`, or,
/// when that would run past the plot's right edge, ending at the edge; `None`
/// when it would then reach back over the previous label (ending at
/// `prev_end`), so a label is drawn whole or not at all, never cut
/// (never "10:20:").
pub fn tick_label_left(x: f32, width: f32, plot_right: f32, prev_end: f32) -> Option<f32> {
    const GAP: f32 = 3.0;
    let left = if x + GAP + width <= plot_right {
        x + GAP
    } else {
        plot_right - width
    };
    (left >= prev_end + GAP).then_some(left)
}

/// Tallest lease bar, points: a taller lane gives its bar room around it,
/// not a thicker bar.
const MAX_BAR_H: f32 = 16.0;

/// The top and bottom of a lease bar in a lane at `top`, `lane_h` high:
/// 3 points in from each edge, at most [`MAX_BAR_H`] high, centred.
fn bar_span(top: f32, lane_h: f32) -> (f32, f32) {
    let h = (lane_h - 6.0).min(MAX_BAR_H);
    let mid = top + lane_h / 2.0;
    (mid - h / 2.0, mid + h / 2.0)
}

/// Every key group reaching into the plot: header, lane labels, overlap
/// windows, lanes and orders. `selected` is the selected incident.
pub fn groups(
    painter: &Painter,
    rects: TimelineRects,
    rows: &Rows,
    scale: &TimeScale,
    model: &SwimlaneModel,
    opts: &super::TimelineOptions,
    palette: &Palette,
) {
    // Labels may use the label column; bars stay inside the plot.
    let labels = painter.with_clip_rect(Rect::from_min_max(
        pos2(rects.full.left(), rects.plot.top()),
        rects.full.max,
    ));
    let bars = painter.with_clip_rect(rects.plot);
    for group in rows.visible_groups(model) {
        group_labels(&labels, rects.full, rows, &group, palette);
        let selected = (opts.selected, opts.selected_pair);
        overlaps(&bars, scale, &group, selected, palette, opts.lang);
        let lane_h = group.lane_h();
        for (li, lane) in group.group.lanes.iter().enumerate() {
            let top = group.lane_top(li);
            if !group.lane_visible(rows, li) {
                continue;
            }
            let (bar_top, bar_bottom) = bar_span(top, lane_h);
            for item in lane_items(lane, scale) {
                match item {
                    LaneItem::Merged { x0, x1 } => {
                        let run = Rect::from_min_max(pos2(x0, bar_top), pos2(x1, bar_bottom));
                        bars.rect_filled(run, 0.0, palette.quiet_lod);
                    }
                    LaneItem::Lease { bar, geometry, .. } => {
                        lease(&bars, scale, bar, &geometry, bar_top, bar_bottom, palette);
                    }
                }
            }
            stalls(&bars, scale, lane, (top, lane_h), palette, opts.lang);
            // Sales on top.
            for sale in visible_sales(lane, scale) {
                let (c, r) = sale_diamond(sale, scale, top, lane_h);
                let color = if sale.oversold_units > 0 {
                    palette.sale_bad
                } else {
                    palette.sale_ok
                };
                bars.add(diamond(c, r, color, Stroke::new(1.0, palette.bg)));
            }
        }
        for (li, lane) in group.group.lanes.iter().enumerate() {
            if group.lane_visible(rows, li) {
                findings(&bars, scale, &lane.findings, group.lane_top(li), lane_h);
            }
        }
        server_marks(&bars, rects.plot, scale, &group, palette, opts.lang);
        findings(&bars, scale, &group.group.findings, group.top, HEADER_H);
        for sale in &group.group.loose_sales {
            if !scale.shows(sale.at_s) {
                continue;
            }
            let x = scale.x_from_time(sale.at_s);
            let color = if sale.oversold_units > 0 {
                palette.sale_bad
            } else {
                palette.sale_ok
            };
            bars.circle_filled(pos2(x, group.top + HEADER_H - 5.0), 3.5, color);
        }
    }
}

/// A measured span: a translucent band over the plot, its edges, and its
/// length in a tag at the top.
pub fn measure(painter: &Painter, plot: Rect, band: Rect, text: &str, palette: &Palette) {
    let painter = painter.with_clip_rect(plot);
    let c = palette.cursor;
    painter.rect_filled(band, 0.0, c.gamma_multiply(0.15));
    for x in [band.left(), band.right()] {
        painter.line_segment(
            [pos2(x, plot.top()), pos2(x, plot.bottom())],
            Stroke::new(1.0, c),
        );
    }
    let x = band
        .center()
        .x
        .clamp(plot.left() + 40.0, plot.right() - 40.0);
    let galley = painter.layout_no_wrap(text.to_string(), FontId::monospace(12.0), palette.text);
    let tag = Rect::from_center_size(pos2(x, plot.top() + 10.0), galley.size() + vec2(8.0, 4.0));
    painter.rect_filled(tag, 3.0, palette.bg);
    painter.rect_stroke(tag, 3.0, Stroke::new(1.0, c), StrokeKind::Inside);
    painter.galley(tag.min + vec2(4.0, 2.0), galley, palette.text);
}

/// Which marks a picture of a display list can show, so that its legend
/// names only those (a healthy log's picture has no overlap entry).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LegendItems {
    /// A hold whose lock ended while its holder kept working.
    pub zombie: bool,
    /// An overlap window.
    pub overlap: bool,
    /// A lock taken over (the handoff arrow).
    pub handoff: bool,
    /// An order or deduction within stock.
    pub order: bool,
    /// An oversold order.
    pub oversold_order: bool,
    /// A server event (failover, restart, slow command).
    pub server_event: bool,
    /// A runtime pause on a holder's lane.
    pub stall: bool,
}

impl LegendItems {
    /// What `model` holds.
    pub fn of(model: &SwimlaneModel) -> LegendItems {
        let mut items = LegendItems::default();
        for g in &model.groups {
            items.overlap |= !g.overlaps.is_empty();
            items.handoff |= g.overlaps.iter().any(|o| o.handoff.is_some());
            let lane_sales = g.lanes.iter().flat_map(|l| l.sales.iter());
            for s in lane_sales.chain(g.loose_sales.iter()) {
                items.order |= s.oversold_units <= 0;
                items.oversold_order |= s.oversold_units > 0;
            }
            items.zombie |= g
                .lanes
                .iter()
                .flat_map(|l| l.leases.iter())
                .any(|b| b.zombie.is_some());
            items.server_event |= !g.server_marks.is_empty();
            items.stall |= g.lanes.iter().any(|l| !l.stalls.is_empty());
        }
        items
    }
}

/// The legend of an exported picture, left to right in `rect`: a lease,
/// then of a zombie hold (hatched), an overlap window, a handoff arrow, an
/// order and an oversold order (diamonds) those `items` holds, then the
/// marker of each finding kind in `kinds`. What does not fit in 12-point
/// words is written in 10-point words closer together, and what does not
/// fit then is counted ("+2 more"), never cut off at the edge
/// ([`legend_fit`]).
pub fn legend(
    painter: &Painter,
    rect: Rect,
    palette: &Palette,
    (items, kinds): (LegendItems, &[FindingKind]),
    lang: Lang,
) {
    let entries = legend_entries(items, kinds, lang);
    let galleys = |size: f32| -> Vec<std::sync::Arc<egui::Galley>> {
        let font = FontId::proportional(size);
        entries
            .iter()
            .map(|(_, t)| painter.layout_no_wrap(t.clone(), font.clone(), palette.text))
            .collect()
    };
    let (normal, compact) = (galleys(12.0), galleys(10.0));
    let widths = |g: &[std::sync::Arc<egui::Galley>], gap: f32| -> Vec<f32> {
        entries
            .iter()
            .zip(g)
            .map(|((m, _), g)| m.width() + g.size().x + gap)
            .collect()
    };
    let more = |n: usize| trf(lang, "legend_more", &[&n.to_string()]);
    let more_w = painter
        .layout_no_wrap(more(99), FontId::proportional(10.0), palette.text)
        .size()
        .x;
    let fit = legend_fit(
        (&widths(&normal, LEGEND_GAP), &widths(&compact, COMPACT_GAP)),
        more_w,
        rect.width() - 4.0,
    );
    let (words, gap) = if fit.compact {
        (compact, COMPACT_GAP)
    } else {
        (normal, LEGEND_GAP)
    };
    let mid = rect.center().y;
    let mut x = rect.left() + 4.0;
    for ((mark, _), g) in entries.iter().zip(words).take(fit.shown) {
        mark.paint(painter, (x, mid), palette);
        x += mark.width();
        let w = g.size().x;
        painter.galley(pos2(x, mid - g.size().y / 2.0), g, palette.text);
        x += w + gap;
    }
    if fit.shown < entries.len() {
        let font = FontId::proportional(10.0);
        let g = painter.layout_no_wrap(more(entries.len() - fit.shown), font, palette.text);
        painter.galley(pos2(x, mid - g.size().y / 2.0), g, palette.text);
    }
}

/// Points between one legend entry's words and the next mark.
const LEGEND_GAP: f32 = 14.0;
/// [`LEGEND_GAP`] when the legend is written small to fit.
const COMPACT_GAP: f32 = 8.0;

/// How a picture's legend fits its width ([`legend_fit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegendFit {
    /// Written in the small words, closer together.
    pub compact: bool,
    /// Entries shown, from the first; the others are counted after them.
    pub shown: usize,
}

/// How entries of `normal` (mark, 12-point words and gap, points each) or
/// `compact` (the same in 10-point words) fit in `avail` points: all of
/// them as they are; else all of them compact; else, compact, as many as
/// leave room for the count of the rest (`more_w` points wide).
pub fn legend_fit((normal, compact): (&[f32], &[f32]), more_w: f32, avail: f32) -> LegendFit {
    if normal.iter().sum::<f32>() <= avail {
        return LegendFit {
            compact: false,
            shown: normal.len(),
        };
    }
    if compact.iter().sum::<f32>() <= avail {
        return LegendFit {
            compact: true,
            shown: compact.len(),
        };
    }
    let mut used = 0.0;
    let shown = compact
        .iter()
        .take_while(|&&w| {
            used += w;
            used + more_w <= avail
        })
        .count();
    LegendFit {
        compact: true,
        shown,
    }
}

/// The mark an entry of a picture's legend is drawn with.
#[derive(Clone, Copy, Debug)]
enum LegendMark {
    /// A lease bar.
    Lease,
    /// A zombie hold (hatched).
    Zombie,
    /// An overlap window.
    Overlap,
    /// A handoff arrow.
    Handoff,
    /// An order (`true`: oversold) as a diamond.
    Order(bool),
    /// A server event's dashed line.
    ServerEvent,
    /// A runtime pause.
    Stall,
    /// A finding kind's lettered marker.
    Finding(FindingKind),
}

/// The entries `items` and `kinds` call for, in the legend's order, each
/// with its words.
fn legend_entries(
    items: LegendItems,
    kinds: &[FindingKind],
    lang: Lang,
) -> Vec<(LegendMark, String)> {
    use crate::ui::i18n::tr;
    let mut out = vec![(LegendMark::Lease, tr(lang, "lease_legend").to_string())];
    for (shown, mark, key) in [
        (items.zombie, LegendMark::Zombie, "zombie"),
        (items.overlap, LegendMark::Overlap, "overlap"),
        (items.handoff, LegendMark::Handoff, "handoff_legend"),
        (items.order, LegendMark::Order(false), "order_legend"),
        (
            items.oversold_order,
            LegendMark::Order(true),
            "oversold_order_legend",
        ),
        (
            items.server_event,
            LegendMark::ServerEvent,
            "server_event_legend",
        ),
        (items.stall, LegendMark::Stall, "stall_legend"),
    ] {
        if shown {
            out.push((mark, tr(lang, key).to_string()));
        }
    }
    out.extend(
        kinds
            .iter()
            .map(|&k| (LegendMark::Finding(k), words(lang, k.as_str()))),
    );
    out
}

impl LegendMark {
    /// Points from the mark's left to its words.
    fn width(self) -> f32 {
        match self {
            LegendMark::Order(_) | LegendMark::Finding(_) => 16.0,
            _ => 26.0,
        }
    }

    /// Draws the mark from `x` on the legend's middle line `mid`.
    fn paint(self, painter: &Painter, (x, mid): (f32, f32), palette: &Palette) {
        let swatch = Rect::from_min_max(pos2(x, mid - 5.0), pos2(x + 22.0, mid + 5.0));
        match self {
            LegendMark::Lease => {
                painter.rect_filled(swatch, 0.0, palette.lease);
            }
            LegendMark::Zombie => {
                painter.rect_filled(swatch, 0.0, palette.zombie);
                hatch(painter, swatch, palette.zombie_hatch);
            }
            LegendMark::Overlap => {
                painter.rect_filled(swatch, 0.0, palette.overlap);
                let edge = Stroke::new(1.0, palette.overlap_edge);
                painter.rect_stroke(swatch, 0.0, edge, StrokeKind::Inside);
            }
            LegendMark::Handoff => {
                let stroke = Stroke::new(1.2, palette.overlap_edge);
                painter.arrow(pos2(x, mid - 4.0), vec2(20.0, 8.0), stroke);
            }
            LegendMark::Order(oversold) => {
                let (r, color) = if oversold {
                    (6.0, palette.sale_bad)
                } else {
                    (4.5, palette.sale_ok)
                };
                painter.add(diamond(pos2(x + 6.0, mid), r, color, Stroke::NONE));
            }
            LegendMark::ServerEvent => {
                let c = swatch.center().x;
                let line = [pos2(c, swatch.top() - 2.0), pos2(c, swatch.bottom() + 2.0)];
                let stroke = Stroke::new(1.5, palette.infra);
                painter.add(Shape::dashed_line(&line, stroke, 4.0, 2.0));
            }
            LegendMark::Stall => {
                painter.rect_filled(swatch, 0.0, palette.stall);
            }
            LegendMark::Finding(kind) => {
                let (letter, color) = finding_style(kind);
                let r = Rect::from_min_size(pos2(x, mid - 7.0), vec2(12.0, 14.0));
                painter.rect_filled(r, 2.0, color);
                let font = FontId::proportional(10.0);
                painter.text(
                    r.center(),
                    Align2::CENTER_CENTER,
                    letter,
                    font,
                    Color32::WHITE,
                );
            }
        }
    }
}

/// At most this many handoff arrows on screen in one key: past a few,
/// arrows tangle (a picture's caption counts those left out).
pub const MAX_HANDOFF_ARROWS: usize = 8;

/// The letter and colour of a finding kind's marker (the legend of the
/// exported pictures uses the same).
pub fn finding_style(kind: FindingKind) -> (&'static str, Color32) {
    match kind {
        FindingKind::FencingViolation => ("F", Color32::from_rgb(150, 30, 160)),
        FindingKind::ClockSkew => ("C", Color32::from_rgb(20, 130, 140)),
        FindingKind::ForeignRelease => ("R", Color32::from_rgb(200, 40, 40)),
        FindingKind::NoTtl => ("T", Color32::from_rgb(120, 90, 40)),
        FindingKind::RenewalGap => ("G", Color32::from_rgb(200, 100, 0)),
        FindingKind::GhostRenewal => ("W", Color32::from_rgb(90, 90, 200)),
        FindingKind::NearMiss => ("N", Color32::from_rgb(210, 150, 0)),
        FindingKind::NearMissStreak => ("S", Color32::from_rgb(180, 110, 0)),
        FindingKind::HolderStall => ("P", Color32::from_rgb(120, 120, 120)),
        FindingKind::NoAcquire => ("A", Color32::from_rgb(100, 100, 100)),
    }
}

/// A lane's runtime pauses over its bars: an amber band edged at both
/// ends, with its kind and length when they fit.
fn stalls(
    painter: &Painter,
    scale: &TimeScale,
    lane: &super::model::Lane,
    (top, lane_h): (f32, f32),
    palette: &Palette,
    lang: Lang,
) {
    for m in &lane.stalls {
        let Some(r) = super::layout::stall_rect(m, scale, top, lane_h) else {
            continue;
        };
        painter.rect_filled(r, 0.0, palette.stall);
        let edge = Stroke::new(1.5, palette.stall_edge);
        painter.line_segment([r.left_top(), r.left_bottom()], edge);
        painter.line_segment([r.right_top(), r.right_bottom()], edge);
        let text = format!(
            "{} {}",
            words(lang, m.kind.as_str()),
            format_ms(m.length_ms())
        );
        let g = painter.layout_no_wrap(text, FontId::proportional(10.0), palette.text);
        let flags: Vec<(f32, f32)> = super::layout::visible_findings(&lane.findings, scale)
            .iter()
            .map(|f| {
                let flag = super::layout::finding_rect(f.at_s, scale, top, lane_h);
                (flag.left(), flag.right())
            })
            .collect();
        let band = (r.left(), r.right());
        if let Some(left) = super::layout::stall_label_left(band, &flags, g.size().x) {
            let at = pos2(left, r.center().y - g.size().y / 2.0);
            painter.galley(at, g, palette.text);
        }
    }
}

/// A key's server events: a dashed line (a band for a slow command)
/// across the header row and every lane, and a tag in the header row
/// naming it.
fn server_marks(
    painter: &Painter,
    plot: Rect,
    scale: &TimeScale,
    group: &PlacedGroup<'_>,
    palette: &Palette,
    lang: Lang,
) {
    use super::layout::{server_mark_rect, server_tags};
    let marks = &group.group.server_marks;
    let font = FontId::proportional(10.0);
    let galleys: Vec<_> = marks
        .iter()
        .map(|m| painter.layout_no_wrap(words(lang, m.kind.as_str()), font.clone(), Color32::WHITE))
        .collect();
    let widths: Vec<f32> = galleys.iter().map(|g| g.size().x).collect();
    let tags = server_tags(marks, &widths, scale, group, plot.left());
    for ((m, g), tag) in marks.iter().zip(galleys).zip(tags) {
        let Some(r) = server_mark_rect(m, scale, group) else {
            continue;
        };
        if m.end_s > m.start_s {
            painter.rect_filled(r, 0.0, palette.infra_band);
        }
        let x = r.left();
        painter.add(Shape::dashed_line(
            &[pos2(x, r.top()), pos2(x, r.bottom())],
            Stroke::new(1.5, palette.infra),
            5.0,
            3.0,
        ));
        if let Some(tag) = tag {
            painter.rect_filled(tag, 2.0, palette.infra);
            let at = pos2(tag.left() + 3.0, tag.center().y - g.size().y / 2.0);
            painter.galley(at, g, Color32::WHITE);
        }
    }
}

/// The findings of one row (a lane, or a key's header row): a line at
/// the time and a flag with the kind's letter right of it.
fn findings(painter: &Painter, scale: &TimeScale, marks: &[FindingMark], top: f32, h: f32) {
    for m in visible_findings(marks, scale) {
        let (letter, color) = finding_style(m.kind);
        let r = finding_rect(m.at_s, scale, top, h);
        painter.line_segment(
            [pos2(r.left(), r.top()), pos2(r.left(), r.bottom())],
            Stroke::new(2.0, color),
        );
        painter.rect_filled(r, 2.0, color);
        painter.text(
            r.center(),
            Align2::CENTER_CENTER,
            letter,
            FontId::proportional(10.0),
            Color32::WHITE,
        );
    }
}

/// A group's header row with the key, and each visible lane's background
/// and holder / thread label.
fn group_labels(
    painter: &Painter,
    full: Rect,
    rows: &Rows,
    group: &PlacedGroup<'_>,
    palette: &Palette,
) {
    let g = group.group;
    let header = Rect::from_min_size(pos2(full.left(), group.top), vec2(full.width(), HEADER_H));
    painter.rect_filled(header, 0.0, palette.header_bg);
    let key_label = if g.incidents > 0 {
        format!("{}   ⚠ {}", g.key, g.incidents)
    } else {
        g.key.clone()
    };
    painter.text(
        pos2(full.left() + 6.0, group.top + HEADER_H / 2.0),
        Align2::LEFT_CENTER,
        key_label,
        FontId::proportional(13.0),
        palette.text,
    );
    let lane_h = group.lane_h();
    let max_w = LABEL_W - 20.0;
    for (li, lane) in g.lanes.iter().enumerate() {
        let top = group.lane_top(li);
        if !group.lane_visible(rows, li) {
            continue;
        }
        let row = Rect::from_min_size(pos2(full.left(), top), vec2(full.width(), lane_h));
        if li % 2 == 1 {
            painter.rect_filled(row, 0.0, palette.lane_alt);
        }
        let text = lane_label_galley(painter, &lane.label, max_w, palette.text);
        let at = pos2(full.left() + 14.0, top + (lane_h - text.size().y) / 2.0);
        let clip = Rect::from_min_max(
            pos2(full.left(), top),
            pos2(full.left() + LABEL_W - 4.0, top + lane_h),
        );
        painter.with_clip_rect(clip).galley(at, text, palette.text);
    }
}

/// Largest and smallest sizes of a lane's label, points.
pub const LANE_LABEL_PT: (f32, f32) = (15.0, 9.0);

/// A lane's label laid out in the largest size of [`LANE_LABEL_PT`] that
/// fits `max_w` points (a label is never cut: it is the holder's one
/// name, and a cut one could read as another's).
fn lane_label_galley(
    painter: &Painter,
    label: &str,
    max_w: f32,
    color: Color32,
) -> std::sync::Arc<egui::Galley> {
    let (big, small) = LANE_LABEL_PT;
    let mut size = big;
    loop {
        let g = painter.layout_no_wrap(label.to_string(), FontId::proportional(size), color);
        if g.size().x <= max_w || size <= small {
            return g;
        }
        size = (size - 0.5).max(small);
    }
}

/// A group's overlap windows across its lanes (under the bars), the
/// selected incident's outlined, and each band's cause.
fn overlaps(
    painter: &Painter,
    scale: &TimeScale,
    group: &PlacedGroup<'_>,
    (selected, pair): (Option<IncidentId>, Option<OverlapId>),
    palette: &Palette,
    lang: Lang,
) {
    let rects: Vec<(&OverlapBox, Rect)> = group
        .group
        .overlaps
        .iter()
        .filter_map(|o| Some((o, overlap_rect(o, group, scale)?)))
        .collect();
    // The fill once over the union of the windows: a dense cluster is one
    // even band, not a stack of translucent boxes darkening to a block.
    let spans: Vec<(f32, f32)> = rects.iter().map(|(_, r)| (r.left(), r.right())).collect();
    let bands = union_spans(spans);
    if let Some((_, first)) = rects.first() {
        for &(x0, x1) in &bands {
            let band = Rect::from_x_y_ranges(x0..=x1, first.top()..=first.bottom());
            painter.rect_filled(band, 0.0, palette.overlap);
            let edge = Stroke::new(1.0, palette.overlap_edge);
            painter.rect_stroke(band, 0.0, edge, StrokeKind::Inside);
        }
    }
    // A window alone in its band is the band, outlined above.
    let alone = |r: &Rect| bands.iter().any(|&(a, b)| a == r.left() && b == r.right());
    for &(o, r) in &rects {
        let is_selected = o.incident.is_some() && o.incident == selected;
        let stroke = if pair == Some(o.overlap) {
            Stroke::new(3.5, palette.selection)
        } else if is_selected {
            Stroke::new(2.0, palette.selection)
        } else if r.width() >= DENSE_OUTLINE_MIN_W && !alone(&r) {
            Stroke::new(1.0, palette.overlap_edge)
        } else {
            // Alone, its band's outline is its own; too narrow to tell
            // apart in a cluster, its outline would only darken the band.
            continue;
        };
        painter.rect_stroke(r, 0.0, stroke, StrokeKind::Inside);
    }
    handoff_arrows(painter, scale, group, selected, palette);
    band_labels(painter, scale, group, &rects, palette, lang);
}

/// The lock passing on: an arrow from the earlier holder's lock end to the
/// later holder's grant; past [`MAX_HANDOFF_ARROWS`] on screen, thinned
/// ([`super::layout::thin_arrows`]: the selected incident's kept, the rest
/// spread) so that they never hide the bars.
fn handoff_arrows(
    painter: &Painter,
    scale: &TimeScale,
    group: &PlacedGroup<'_>,
    selected: Option<IncidentId>,
    palette: &Palette,
) {
    let arrows: Vec<((Pos2, Pos2), bool)> = group
        .group
        .overlaps
        .iter()
        .filter_map(|o| {
            let arrow = o
                .handoff
                .as_ref()
                .and_then(|h| handoff_arrow(h, group, scale))?;
            Some((arrow, o.incident.is_some() && o.incident == selected))
        })
        .collect();
    for (a, b) in super::layout::thin_arrows(&arrows, MAX_HANDOFF_ARROWS) {
        painter.arrow(a, b - a, Stroke::new(1.2, palette.overlap_edge));
    }
}

/// Rows of cause labels at most: the header row and two over the lanes.
const MAX_LABEL_ROWS: usize = 3;

/// Each overlap band's cause (its windows' causes, each once) at its left
/// edge, placed by [`place_labels_with_count`]: in the key's header row, then in
/// rows over its lanes on a backing, shortened when that places more;
/// never cut, never over another.
fn band_labels(
    painter: &Painter,
    scale: &TimeScale,
    group: &PlacedGroup<'_>,
    rects: &[(&OverlapBox, Rect)],
    palette: &Palette,
    lang: Lang,
) {
    let font = FontId::proportional(11.0);
    let spans = rects.iter().map(|(_, r)| (r.left(), r.right())).collect();
    let bands = spans_within(spans, LABEL_BAND_GAP);
    let texts: Vec<(f32, String, String)> = bands
        .iter()
        .map(|&(x0, x1)| {
            let mut causes: Vec<crate::analysis::Cause> = Vec::new();
            for (o, r) in rects {
                if r.left() >= x0 && r.right() <= x1 && !causes.contains(&o.cause) {
                    causes.push(o.cause);
                }
            }
            let join = |f: &dyn Fn(crate::analysis::Cause) -> String| {
                causes.iter().map(|&c| f(c)).collect::<Vec<_>>().join(", ")
            };
            (
                x0,
                join(&|c| words(lang, c.as_str())),
                join(&|c| cause_short(lang, c).to_string()),
            )
        })
        .collect();
    let layout =
        |t: &str| painter.layout_no_wrap(t.to_string(), font.clone(), palette.overlap_edge);
    let galleys: Vec<_> = texts
        .iter()
        .map(|(_, t, s)| (layout(t), layout(s)))
        .collect();
    let sizes: Vec<(f32, f32, f32)> = texts
        .iter()
        .zip(&galleys)
        .map(|((x0, _, _), (g, sg))| (*x0, g.size().x, sg.size().x))
        .collect();
    let lanes = group.group.lanes.len();
    let rows = MAX_LABEL_ROWS.min(1 + lanes);
    let count_w = |n: usize| {
        let t = format!("+{n}");
        painter
            .layout_no_wrap(t, font.clone(), palette.overlap_edge)
            .size()
            .x
    };
    let (spots, count) = place_labels_with_count(&sizes, (scale.left, scale.right), rows, count_w);
    if let Some((x, n)) = count {
        let g = painter.layout_no_wrap(format!("+{n}"), font.clone(), palette.overlap_edge);
        let y = group.top + (HEADER_H - g.size().y) / 2.0;
        painter.galley(pos2(x, y), g, palette.overlap_edge);
    }
    for ((g, sg), spot) in galleys.into_iter().zip(spots) {
        let Some(spot) = spot else { continue };
        let galley = if spot.short { sg } else { g };
        let (row_top, row_h) = match spot.row {
            0 => (group.top, HEADER_H),
            r => (group.lane_top(r - 1), group.lane_h()),
        };
        let y = row_top + (row_h - galley.size().y) / 2.0;
        let back = Rect::from_min_size(pos2(spot.x, y), galley.size()).expand(1.5);
        painter.rect_filled(back, 2.0, palette.bg().gamma_multiply(0.85));
        painter.galley(pos2(spot.x, y), galley, palette.overlap_edge);
    }
}

/// One lease at `geometry`: the bar, an open end's fade, the zombie part
/// hatched, renewal ticks, late renewals and the own release.
fn lease(
    painter: &Painter,
    scale: &TimeScale,
    b: &LeaseBar,
    geometry: &LeaseGeometry,
    top: f32,
    bottom: f32,
    palette: &Palette,
) {
    let LeaseGeometry { x0, bar_x1, .. } = *geometry;
    let fill = if b.near_miss {
        palette.near
    } else {
        palette.lease
    };
    let bar = Rect::from_min_max(pos2(x0, top), pos2(bar_x1, bottom));
    painter.rect_filled(bar, 2.0, fill);
    if bar_x1 - x0 > 4.0 {
        painter.rect_stroke(
            bar,
            2.0,
            Stroke::new(1.0, palette.lease_edge),
            StrokeKind::Inside,
        );
    }
    if let Some(fade_to) = geometry.fade_to {
        open_end(painter, bar_x1, fade_to, top, bottom, fill);
    }
    if let Some((zx0, zx1)) = geometry.zombie {
        let r = Rect::from_min_max(pos2(zx0, top), pos2(zx1, bottom));
        painter.rect_filled(r, 0.0, palette.zombie);
        if zx1 - zx0 > 6.0 {
            hatch(painter, r, palette.zombie_hatch);
        }
        painter.rect_stroke(
            r,
            0.0,
            Stroke::new(1.0, palette.zombie_hatch),
            StrokeKind::Inside,
        );
    }
    let tick = Stroke::new(1.5, palette.text);
    for &r in &b.renewals {
        let x = scale.x_from_time(r);
        painter.line_segment([pos2(x, top - 2.0), pos2(x, top + 4.0)], tick);
    }
    for &r in &b.late_renewals {
        let x = scale.x_from_time(r);
        painter.line_segment(
            [pos2(x, top - 2.0), pos2(x, bottom + 2.0)],
            Stroke::new(1.5, palette.sale_bad),
        );
    }
    if let Some(r) = b.released_s {
        let x = scale.x_from_time(r);
        painter.line_segment(
            [pos2(x, top - 1.0), pos2(x, bottom + 1.0)],
            Stroke::new(2.0, palette.text),
        );
    }
}

/// An open-ended lease (no TTL) fading out from `x1` to `fade_to`, with an
/// arrow.
fn open_end(painter: &Painter, x1: f32, fade_to: f32, top: f32, bottom: f32, fill: Color32) {
    let n = 8;
    for i in 0..n {
        let a = x1 + (fade_to - x1) * i as f32 / n as f32;
        let e = x1 + (fade_to - x1) * (i + 1) as f32 / n as f32;
        let alpha = (200.0 * (1.0 - i as f32 / n as f32)) as u8;
        painter.rect_filled(
            Rect::from_min_max(pos2(a, top), pos2(e, bottom)),
            0.0,
            Color32::from_rgba_unmultiplied(fill.r(), fill.g(), fill.b(), alpha),
        );
    }
    let mid = (top + bottom) / 2.0;
    painter.line_segment(
        [pos2(fade_to - 6.0, top), pos2(fade_to, mid)],
        Stroke::new(1.5, fill),
    );
    painter.line_segment(
        [pos2(fade_to - 6.0, bottom), pos2(fade_to, mid)],
        Stroke::new(1.5, fill),
    );
}

/// Diagonal hatching over `rect`.
fn hatch(painter: &Painter, rect: Rect, color: Color32) {
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

/// The time cursor: what lies in the future is faded; the line and a handle
/// on the axis mark the present.
pub fn cursor(
    painter: &Painter,
    rects: TimelineRects,
    scale: &TimeScale,
    cursor_s: f64,
    palette: &Palette,
) {
    let TimelineRects { full, plot } = rects;
    let x = scale.x_from_time(cursor_s);
    if x < plot.right() {
        let from = x.max(plot.left());
        painter.rect_filled(
            Rect::from_min_max(pos2(from, plot.top()), plot.max),
            0.0,
            palette.bg.gamma_multiply(0.6),
        );
    }
    if x >= plot.left() && x <= plot.right() {
        painter.line_segment(
            [pos2(x, full.top()), pos2(x, full.bottom())],
            Stroke::new(2.0, palette.cursor),
        );
        let top = full.top() + AXIS_H - 12.0;
        painter.add(Shape::convex_polygon(
            vec![pos2(x - 6.0, top), pos2(x + 6.0, top), pos2(x, top + 10.0)],
            palette.cursor,
            Stroke::NONE,
        ));
    }
}

/// The label column's edge, and the scrollbar when the lanes are taller
/// than the plot (`scroll_y` of at most `max_scroll`).
pub fn edges(
    painter: &Painter,
    rects: TimelineRects,
    content_height: f32,
    scroll_y: f32,
    max_scroll: f32,
    palette: &Palette,
) {
    let TimelineRects { full, plot } = rects;
    painter.line_segment(
        [
            pos2(plot.left(), full.top()),
            pos2(plot.left(), full.bottom()),
        ],
        Stroke::new(1.0, palette.grid),
    );
    if max_scroll > 0.0 {
        let frac = plot.height() / content_height;
        let h = (plot.height() * frac).max(20.0);
        let top = plot.top() + (plot.height() - h) * (scroll_y / max_scroll);
        painter.rect_filled(
            Rect::from_min_size(pos2(full.right() - 5.0, top), vec2(4.0, h)),
            2.0,
            palette.weak,
        );
    }
}

/// The box-zoom rubber band from `start` to `now` across the plot.
pub fn rubber_band(painter: &Painter, plot: Rect, start: Pos2, now: Pos2) {
    let r = Rect::from_two_pos(pos2(start.x, plot.top()), pos2(now.x, plot.bottom()));
    painter.rect_filled(r, 0.0, Color32::from_rgba_unmultiplied(80, 140, 255, 40));
    painter.rect_stroke(
        r,
        0.0,
        Stroke::new(1.0, Color32::from_rgb(80, 140, 255)),
        StrokeKind::Inside,
    );
}

#[cfg(test)]
mod tick_labels {
    use super::tick_label_left;

    #[test]
    fn a_label_is_drawn_whole_or_not_at_all() {
        // Room right of the tick: just after it.
        assert_eq!(tick_label_left(100.0, 40.0, 500.0, 0.0), Some(103.0));
        // Near the right edge: moved left to end at the edge.
        assert_eq!(tick_label_left(480.0, 40.0, 500.0, 400.0), Some(460.0));
        // Moved left it would cover the previous label: left out.
        assert_eq!(tick_label_left(480.0, 40.0, 500.0, 459.0), None);
    }

    #[test]
    fn overlapping_windows_fill_as_one_band() {
        use super::{spans_within, union_spans};
        assert_eq!(
            union_spans(vec![(5.0, 7.0), (0.0, 2.0), (1.0, 3.0), (3.0, 4.0)]),
            vec![(0.0, 4.0), (5.0, 7.0)]
        );
        // For labels, bands a few points apart are one.
        assert_eq!(
            spans_within(vec![(5.0, 7.0), (0.0, 4.0), (20.0, 30.0)], 6.0),
            vec![(0.0, 7.0), (20.0, 30.0)]
        );
        assert!(union_spans(Vec::new()).is_empty());
    }

    #[test]
    fn the_corner_says_days_and_years_in_days_and_years() {
        use super::step_text;
        assert_eq!(step_text(50.0 * 365.25 * 86400.0), "50 y");
        assert_eq!(step_text(7.0 * 86400.0), "7 d");
        assert_eq!(step_text(0.5), crate::report::format_ms(500.0));
    }
}

#[cfg(test)]
mod legend_fits {
    use super::{LegendFit, legend_fit};

    /// A legend that fits is written as it is; one that does not is
    /// written small; one that does not fit small either shows the entries
    /// that leave room for the count of the rest, never one cut off.
    #[test]
    fn a_legend_too_wide_is_written_small_then_counted() {
        let normal = [60.0, 80.0, 70.0];
        let compact = [50.0, 60.0, 55.0];
        let fit = |avail| legend_fit((&normal, &compact), 30.0, avail);
        assert_eq!(
            fit(210.0),
            LegendFit {
                compact: false,
                shown: 3
            }
        );
        assert_eq!(
            fit(209.0),
            LegendFit {
                compact: true,
                shown: 3
            }
        );
        assert_eq!(
            fit(165.0),
            LegendFit {
                compact: true,
                shown: 3
            }
        );
        // 50 + 60 + the count's 30 fit in 140, the third entry does not.
        assert_eq!(
            fit(164.0),
            LegendFit {
                compact: true,
                shown: 2
            }
        );
        assert_eq!(
            fit(140.0),
            LegendFit {
                compact: true,
                shown: 2
            }
        );
        assert_eq!(
            fit(139.0),
            LegendFit {
                compact: true,
                shown: 1
            }
        );
        assert_eq!(
            fit(10.0),
            LegendFit {
                compact: true,
                shown: 0
            }
        );
    }
}

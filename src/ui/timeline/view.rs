//! What part of the timeline is on screen: the persisted [`TimelineView`]
//! (time range and vertical scroll), the frame's [`TimeScale`] between time
//! and x, and the axis ticks at that scale.

use egui::Rect;
use serde::{Deserialize, Serialize};

use super::model::SwimlaneModel;
use crate::analysis::IncidentId;

/// The visible time range and vertical scroll.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelineView {
    /// Left edge, s since the first event.
    pub start_s: f64,
    /// Right edge.
    pub end_s: f64,
    /// Vertical scroll, points.
    pub scroll_y: f32,
    /// Height of the plot in the last frame, points (the room the lanes
    /// grow into, [`super::layout::lane_height`]); not saved.
    #[serde(skip)]
    pub plot_h: f32,
}

impl Default for TimelineView {
    fn default() -> Self {
        TimelineView {
            start_s: 0.0,
            end_s: 1.0,
            scroll_y: 0.0,
            plot_h: 0.0,
        }
    }
}

impl TimelineView {
    /// Shows all of `model` with a margin either side (a twentieth of the
    /// span), so that the last hold's end is clear of the plot's edge and
    /// of the cursor resting at the end.
    pub fn fit(&mut self, model: &SwimlaneModel) {
        let (a, b) = model.extent;
        let pad = (b - a) * 0.05;
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

    /// Pans (keeping the zoom) so that `t_s` is on screen, with a tenth of
    /// the span as margin, when it is not already inside that margin.
    pub fn keep_visible(&mut self, t_s: f64) {
        let span = self.span_s();
        let margin = span * 0.1;
        if t_s < self.start_s + margin || t_s > self.end_s - margin {
            self.start_s = t_s - span / 2.0;
            self.end_s = self.start_s + span;
        }
    }

    /// Zooms to incident `id`.
    pub fn zoom_to_incident(&mut self, model: &SwimlaneModel, id: IncidentId) {
        if let Some(Some((a, b, g))) = model.incidents.get(id.index()) {
            self.zoom_to(model, *a, *b, Some(*g));
        }
    }

    /// True when the range runs forwards (a saved or fresh view may not).
    pub fn is_valid(&self) -> bool {
        self.end_s.partial_cmp(&self.start_s) == Some(std::cmp::Ordering::Greater)
    }

    /// Zooms by `factor` (below 1 zooms in) keeping `around_s` in place.
    pub fn zoom(&mut self, factor: f64, around_s: f64) {
        let factor = factor.clamp(0.01, 100.0);
        let new_start = around_s - (around_s - self.start_s) * factor;
        let new_end = around_s + (self.end_s - around_s) * factor;
        if new_end - new_start > 1e-7 && new_end - new_start < 1e9 {
            self.start_s = new_start;
            self.end_s = new_end;
        }
    }

    /// Moves the range by `ds` seconds.
    pub fn pan(&mut self, ds: f64) {
        self.start_s += ds;
        self.end_s += ds;
    }

    /// The visible span, s.
    pub fn span_s(&self) -> f64 {
        self.end_s - self.start_s
    }
}

/// The mapping between time (s since the first event) and x (points) for
/// one frame: the plot's horizontal extent and the view's time range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeScale {
    /// Left edge of the plot, points.
    pub left: f32,
    /// Right edge of the plot, points.
    pub right: f32,
    /// Time at `left`.
    pub start_s: f64,
    /// Time at `right`.
    pub end_s: f64,
}

impl TimeScale {
    /// The scale of `view` drawn across `plot`.
    pub fn new(plot: Rect, view: &TimelineView) -> TimeScale {
        TimeScale {
            left: plot.left(),
            right: plot.right(),
            start_s: view.start_s,
            end_s: view.end_s,
        }
    }

    /// Width of the plot, points.
    pub fn width(&self) -> f32 {
        self.right - self.left
    }

    /// The x of time `s`.
    pub fn x_from_time(&self, s: f64) -> f32 {
        let t = (s - self.start_s) / (self.end_s - self.start_s);
        (self.left as f64 + t * self.width() as f64) as f32
    }

    /// The time at `x`.
    pub fn time_from_x(&self, x: f32) -> f64 {
        self.start_s + (x - self.left) as f64 / self.width() as f64 * (self.end_s - self.start_s)
    }

    /// Points per second.
    pub fn px_per_s(&self) -> f64 {
        self.width() as f64 / (self.end_s - self.start_s)
    }

    /// True when `t` is inside the visible range.
    pub fn shows(&self, t: f64) -> bool {
        t >= self.start_s && t <= self.end_s
    }
}

/// Minimum spacing of labelled ticks, points.
const MAJOR_TICK_MIN_PX: f64 = 110.0;
/// Minimum spacing of unlabelled ticks, points.
const MINOR_TICK_MIN_PX: f64 = 22.0;
/// More minor ticks than this are not drawn (the axis would be solid).
const MAX_MINOR_TICKS: i64 = 2000;

/// The axis ticks at one scale: labelled major ticks with grid lines, and
/// short minor ticks between them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxisTicks {
    /// Seconds between major ticks.
    pub major_step: f64,
    /// Seconds between minor ticks.
    pub minor_step: f64,
    /// Where the ticks fall: at `k * step - phase` (s since the first
    /// event), so that they are round in wall-clock time, not counted from
    /// the first event.
    pub major_phase: f64,
    /// The same for the minor ticks.
    pub minor_phase: f64,
}

/// How far past a multiple of `step_s` the time `t0_ns` (shifted by
/// `offset_s` east of UTC) lies, s: in integers, as epoch nanoseconds do
/// not fit an f64.
pub fn tick_phase(t0_ns: i64, offset_s: i32, step_s: f64) -> f64 {
    let step_ns = (step_s * 1e9).round() as i64;
    if step_ns <= 0 {
        return 0.0;
    }
    let local = t0_ns.saturating_add(i64::from(offset_s) * 1_000_000_000);
    local.rem_euclid(step_ns) as f64 / 1e9
}

impl AxisTicks {
    /// The ticks for `scale`.
    pub fn new(scale: &TimeScale) -> AxisTicks {
        AxisTicks {
            major_step: tick_step(scale.px_per_s(), MAJOR_TICK_MIN_PX),
            minor_step: tick_step(scale.px_per_s(), MINOR_TICK_MIN_PX),
            major_phase: 0.0,
            minor_phase: 0.0,
        }
    }

    /// The ticks for `scale` on round wall-clock times: time 0 is `t0_ns`,
    /// shown `offset_s` east of UTC (`None`: times since the first event,
    /// counted from 0).
    pub fn aligned(scale: &TimeScale, t0_ns: i64, offset_s: Option<i32>) -> AxisTicks {
        let mut t = AxisTicks::new(scale);
        if let Some(offset) = offset_s {
            t.major_phase = tick_phase(t0_ns, offset, t.major_step);
            t.minor_phase = tick_phase(t0_ns, offset, t.minor_step);
        }
        t
    }

    /// Times of the major ticks covering the view (some may be off the plot).
    pub fn major(&self, scale: &TimeScale) -> impl Iterator<Item = f64> + use<> {
        steps(scale, self.major_step, self.major_phase, MAX_MINOR_TICKS)
    }

    /// Times of the minor ticks covering the view, none when too many.
    pub fn minor(&self, scale: &TimeScale) -> impl Iterator<Item = f64> + use<> {
        steps(scale, self.minor_step, self.minor_phase, MAX_MINOR_TICKS)
    }
}

/// The times `k * step - phase` from just before the view to just after
/// it; none when there would be `max` or more.
fn steps(scale: &TimeScale, step: f64, phase: f64, max: i64) -> impl Iterator<Item = f64> + use<> {
    let first = ((scale.start_s + phase) / step).floor() as i64;
    let last = ((scale.end_s + phase) / step).ceil() as i64;
    let last = if last - first < max { last } else { first - 1 };
    (first..=last).map(move |k| k as f64 * step - phase)
}

/// Nice tick steps in seconds: the smallest 1-2-5 step (or minute/hour
/// step) at least `min_px` apart.
pub fn tick_step(px_per_s: f64, min_px: f64) -> f64 {
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
    // Days and beyond: a lease that never ends (or ends in 2262)
    // stretches fit-all over centuries; the axis still gets a few labels
    // instead of thousands of weekly ones drawn into a black bar.
    const DAY: f64 = 86400.0;
    const YEAR: f64 = 365.25 * DAY;
    steps.extend([
        2.0 * DAY,
        7.0 * DAY,
        14.0 * DAY,
        30.0 * DAY,
        91.0 * DAY,
        182.0 * DAY,
    ]);
    steps.extend([1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0].map(|y| y * YEAR));
    steps
        .into_iter()
        .find(|s| s * px_per_s >= min_px)
        .unwrap_or(1000.0 * YEAR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_visible_pans_only_when_the_time_is_near_an_edge_or_off_screen() {
        let mut v = TimelineView {
            start_s: 10.0,
            end_s: 20.0,
            scroll_y: 0.0,
            plot_h: 0.0,
        };
        v.keep_visible(15.0);
        assert_eq!((v.start_s, v.end_s), (10.0, 20.0), "inside: unchanged");
        v.keep_visible(35.0);
        assert_eq!((v.start_s, v.end_s), (30.0, 40.0), "centred, same span");
        v.keep_visible(30.5);
        assert_eq!((v.start_s, v.end_s), (25.5, 35.5), "in the margin: centred");
    }

    #[test]
    fn a_range_of_centuries_gets_a_few_labelled_ticks_not_a_black_bar() {
        // Fit-all over a lease that ends in 2262: 236 years on 1000 points.
        let span_s = 236.0 * 365.25 * 86400.0;
        let scale = TimeScale::new(
            egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1000.0, 100.0)),
            &TimelineView {
                start_s: 0.0,
                end_s: span_s,
                scroll_y: 0.0,
                plot_h: 0.0,
            },
        );
        let ticks = AxisTicks::new(&scale);
        let majors = ticks.major(&scale).count();
        assert!((2..=12).contains(&majors), "{majors} labelled ticks");
        assert!(ticks.minor(&scale).count() <= 60);
    }

    #[test]
    fn ticks_use_round_units() {
        assert_eq!(tick_step(1000.0, 100.0), 0.1);
        assert_eq!(tick_step(10.0, 100.0), 10.0);
        assert_eq!(tick_step(1.0, 100.0), 120.0);
    }

    #[test]
    fn time_and_x_map_both_ways() {
        let view = TimelineView {
            start_s: 10.0,
            end_s: 20.0,
            scroll_y: 0.0,
            plot_h: 0.0,
        };
        let scale = TimeScale::new(
            Rect::from_min_max(egui::pos2(100.0, 0.0), egui::pos2(1100.0, 50.0)),
            &view,
        );
        assert_eq!(scale.x_from_time(10.0), 100.0);
        assert_eq!(scale.x_from_time(15.0), 600.0);
        assert_eq!(scale.time_from_x(1100.0), 20.0);
        assert_eq!(scale.px_per_s(), 100.0);
        let ticks = AxisTicks::new(&scale);
        assert_eq!(ticks.major_step, 2.0);
        assert_eq!(ticks.major(&scale).next(), Some(10.0));
    }

    #[test]
    fn ticks_fall_on_round_wall_clock_times_not_on_the_first_event() {
        // The first event at 16:10:39.627 (+08:00): 2 s ticks at :40, :42...
        let t0_ns = 1_795_939_839_627_000_000;
        let view = TimelineView {
            start_s: 0.0,
            end_s: 10.0,
            scroll_y: 0.0,
            plot_h: 0.0,
        };
        let scale = TimeScale::new(
            Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1000.0, 50.0)),
            &view,
        );
        let ticks = AxisTicks::aligned(&scale, t0_ns, Some(8 * 3600));
        assert_eq!(ticks.major_step, 2.0);
        let first_in_view = ticks.major(&scale).find(|&t| t >= 0.0).expect("a tick");
        assert!((first_in_view - 0.373).abs() < 1e-9, "{first_in_view}");
        // Relative times keep 0, 2, 4...
        let rel = AxisTicks::aligned(&scale, t0_ns, None);
        assert_eq!(rel.major(&scale).find(|&t| t >= 0.0), Some(0.0));
        assert_eq!(tick_phase(t0_ns, 0, 60.0), 39.627);
    }
}

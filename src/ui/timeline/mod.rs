//! The swimlane timeline: a display list ([`SwimlaneModel`]) built from the
//! analysis only when data or filters change, and a widget
//! ([`timeline_ui`]) that only maps it to the screen.
//!
//! Custom painter rather than egui_plot: lanes are rows of bars with a
//! fixed-width label column, sub-pixel quiet leases are merged into one rect
//! per pixel column (level of detail) while anomalies are painted on top at
//! least 2 px wide (Tracy's lock lanes), zombie windows are hatched, and
//! hit-testing walks the lane under the pointer only. egui_plot would
//! tessellate every item as its own shape each frame and has no such
//! merging, so 10 M events would not stay fast.
//!
//! One frame: [`input`] turns the pointer and keys into a new
//! [`TimelineView`]; the view gives the frame's one [`TimeScale`]; [`layout`]
//! places rows and lane items at that scale (pure, unit-tested); [`paint`]
//! draws them; [`layout::hit_test`] says what the pointer is over, for the
//! tooltip ([`labels`]) and the click.

pub mod input;
pub mod labels;
pub mod layout;
pub mod model;
pub mod overview;
pub mod paint;
pub mod view;

use egui::{Rect, Sense, Ui, pos2};

pub use labels::{TimeDisplay, format_at};
pub use layout::{AXIS_H, GROUP_GAP, HEADER_H, LABEL_W};
pub use model::{
    FIRST_LANES, Filters, FindingMark, LANE_H, Lane, LaneGroup, LeaseBar, OverlapBox, Pending,
    SaleMark, SwimlaneModel, WHOLE_MAX_LANES,
};
pub use view::{TimeScale, TimelineView};

use crate::analysis::{IncidentId, OverlapId};
use crate::ui::i18n::Lang;
use layout::{Rows, hit_test, max_scroll};
use paint::{Palette, TimelineRects};

/// What the timeline widget reports back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimelineEvent {
    /// An overlap window of this incident was clicked.
    IncidentClicked(IncidentId, Option<OverlapId>),
    /// The time axis was clicked, or the cursor dragged, to this time
    /// (s since the first event).
    Seek(f64),
    /// "Pin to top" or "Unpin" was chosen for this group (index into the
    /// model's groups).
    TogglePin(usize),
    /// A finding's marker was clicked (index into the analysis's findings).
    FindingClicked(usize),
}

/// Options for drawing the timeline.
#[derive(Clone, Copy, Debug)]
pub struct TimelineOptions<'a> {
    /// How to label the axis.
    pub time_display: TimeDisplay,
    /// Selected incident.
    pub selected: Option<IncidentId>,
    /// Selected overlap pair (drawn over its incident's outline).
    pub selected_pair: Option<OverlapId>,
    /// Language of the tooltips.
    pub lang: Lang,
    /// The replay's time cursor, s since the first event: drawn as a line,
    /// with what lies after it faded.
    pub cursor_s: Option<f64>,
    /// Keys pinned to the top.
    pub pinned: &'a [String],
    /// Drawn for a picture: whole rows only and no scrollbar; the lanes
    /// not shown are counted for the caption ([`picture_hidden_lanes`]).
    pub picture: bool,
}

/// The id under which a picture's timeline leaves the number of lanes it
/// could not show whole, for the caption drawn around it.
fn hidden_lanes_id() -> egui::Id {
    egui::Id::unique("picture_hidden_lanes")
}

/// Lanes the last timeline drawn for a picture left out (whole rows only);
/// 0 before one was drawn. The caption is laid out before the timeline, so
/// it reads the previous frame's count: pictures are taken a few frames
/// after they are asked for.
pub fn picture_hidden_lanes(ctx: &egui::Context) -> usize {
    ctx.data(|d| d.get_temp(hidden_lanes_id())).unwrap_or(0)
}

/// Draws the timeline of `model` into the rest of `ui`, handling zoom, pan,
/// box zoom and keys (which change `view`). Returns what was clicked.
pub fn timeline_ui(
    ui: &mut Ui,
    model: &SwimlaneModel,
    view: &mut TimelineView,
    opts: TimelineOptions<'_>,
) -> Option<TimelineEvent> {
    let palette = Palette::new(ui.visuals().dark_mode);
    let (mut full, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    let painter = ui.painter_at(full);
    painter.rect_filled(full, 0.0, palette.bg());
    let mut plot = Rect::from_min_max(pos2(full.left() + LABEL_W, full.top() + AXIS_H), full.max);
    if plot.width() < 10.0 || plot.height() < 10.0 {
        return None;
    }
    if !view.is_valid() {
        view.fit(model);
    }
    view.plot_h = plot.height();
    let box_start = input::navigate(ui, &response, plot, model, view);
    let scale = TimeScale::new(plot, view);
    let seek = input::seek(ui, &response, full, plot, &scale, opts.cursor_s);

    let mut scroll_y = view.scroll_y;
    if opts.picture {
        // Whole rows from the one the scroll falls in; what is below the
        // last whole row stays background.
        let whole = layout::whole_rows(model, scroll_y, plot.height());
        scroll_y = whole.scroll_y;
        plot.max.y = plot.top() + whole.height;
        full.max.y = plot.max.y;
        if picture_hidden_lanes(ui.ctx()) != whole.hidden_lanes {
            // The caption around the picture reads it: one more frame.
            ui.data_mut(|d| d.insert_temp(hidden_lanes_id(), whole.hidden_lanes));
            ui.ctx().request_repaint();
        }
    }
    let rects = TimelineRects { full, plot };
    let rows = Rows::new(plot, scroll_y);
    paint::axis(
        &painter,
        rects,
        &scale,
        model,
        opts.time_display,
        &palette,
        opts.lang,
    );
    paint::groups(&painter, rects, &rows, &scale, model, &opts, &palette);
    let hover = response.hover_pos();
    let hits = hover
        .map(|p| hit_test(model, &rows, &scale, p))
        .unwrap_or_default();
    let clicked = if response.clicked() && hover.is_some() {
        hits.incident()
            .map(|i| TimelineEvent::IncidentClicked(i, hits.overlap()))
    } else {
        None
    };
    if let Some(c) = opts.cursor_s {
        paint::cursor(&painter, rects, &scale, c, &palette);
    }
    // A picture has no scrollbar: it says in its caption what it leaves out.
    let max_scroll = if opts.picture {
        0.0
    } else {
        max_scroll(model, plot.height())
    };
    let content_height = model.content_height();
    paint::edges(
        &painter,
        rects,
        content_height,
        view.scroll_y,
        max_scroll,
        &palette,
    );
    if let (Some(start), Some(now)) = (box_start, response.interact_pointer_pos().or(hover)) {
        paint::rubber_band(&painter, plot, start, now);
    }
    if let Some(m) = input::measured(ui, &response) {
        measure_ui(ui, &response, rects, &scale, &m, &palette, opts.lang);
    }
    let pin = pin_menu(ui, &response, model, &rows, &opts);
    let marker_seek = finding_widgets(ui, response.id, model, &rows, &scale, plot, opts.lang);
    if let Some(item) = hits.item {
        let text = labels::hover_text(model, &item, opts.time_display, opts.lang);
        response.on_hover_ui_at_pointer(|ui| {
            ui.label(text);
        });
    }
    marker_seek
        .map(TimelineEvent::FindingClicked)
        .or(seek.map(TimelineEvent::Seek))
        .or(clicked)
        .or(pin)
}

/// A right-click on a key's rows opens a menu to pin the key to the top of
/// the lanes (or unpin it).
fn pin_menu(
    ui: &Ui,
    response: &egui::Response,
    model: &SwimlaneModel,
    rows: &Rows,
    opts: &TimelineOptions<'_>,
) -> Option<TimelineEvent> {
    let id = response.id.with("pin_menu_group");
    if response.secondary_clicked()
        && let Some(p) = response.interact_pointer_pos()
        && let Some(g) = layout::group_at(model, rows, p.y)
    {
        ui.data_mut(|d| d.insert_temp(id, g));
    }
    let g: usize = ui.data(|d| d.get_temp(id))?;
    let group = model.groups.get(g)?;
    let mut event = None;
    response.context_menu(|ui| {
        ui.label(egui::RichText::new(&group.key).monospace());
        let key = if opts.pinned.contains(&group.key) {
            "unpin"
        } else {
            "pin_to_top"
        };
        if ui.button(crate::ui::i18n::tr(opts.lang, key)).clicked() {
            event = Some(TimelineEvent::TogglePin(g));
            ui.close();
        }
    });
    event
}

/// The measured span: a band over the lanes, its edges, and its length
/// in a label at the top (an accessible `Measured: 1.2 s` widget).
fn measure_ui(
    ui: &Ui,
    response: &egui::Response,
    rects: TimelineRects,
    scale: &TimeScale,
    m: &input::Measure,
    palette: &Palette,
    lang: Lang,
) {
    let (a, b) = m.range();
    let (x0, x1) = (scale.x_from_time(a), scale.x_from_time(b));
    let plot = rects.plot;
    let band = Rect::from_x_y_ranges(x0..=x1.max(x0 + 1.0), plot.top()..=plot.bottom());
    let text = crate::report::format_ms(m.duration_ms());
    paint::measure(&ui.painter_at(rects.full), plot, band, &text, palette);
    let label = crate::ui::i18n::trf(lang, "measured", &[&text]);
    let tag = Rect::from_center_size(
        pos2(
            band.center()
                .x
                .clamp(plot.left() + 40.0, plot.right() - 40.0),
            plot.top() + 10.0,
        ),
        egui::vec2(80.0, 18.0),
    );
    let r = ui.interact(tag, response.id.with("measure_label"), Sense::hover());
    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, label.clone()));
}

/// At most this many finding markers are accessible widgets in a frame (a
/// zoomed-out big log may show thousands; they are all painted).
const MAX_MARKER_WIDGETS: usize = 300;

/// The visible finding markers as widgets named `<kind> marker` (so that
/// screen readers and tests find them); a click on one selects the
/// finding. Returns its index into the analysis's findings.
fn finding_widgets(
    ui: &Ui,
    id: egui::Id,
    model: &SwimlaneModel,
    rows: &Rows,
    scale: &TimeScale,
    plot: Rect,
    lang: Lang,
) -> Option<usize> {
    let mut seek = None;
    let mut n = 0;
    for group in rows.visible_groups(model) {
        let lanes = group.group.lanes.iter().enumerate();
        let rows_of = lanes
            .filter(|(li, _)| group.lane_visible(rows, *li))
            .map(|(li, lane)| (&lane.findings, group.lane_top(li), group.lane_h()))
            .chain([(&group.group.findings, group.top, HEADER_H)]);
        for (marks, top, h) in rows_of {
            for m in layout::visible_findings(marks, scale) {
                if n >= MAX_MARKER_WIDGETS {
                    return seek;
                }
                n += 1;
                let r = layout::finding_rect(m.at_s, scale, top, h).intersect(plot);
                if !r.is_positive() {
                    continue;
                }
                let name = crate::ui::i18n::trf(
                    lang,
                    "finding_marker",
                    &[&crate::ui::i18n::term(lang, m.kind.as_str())],
                );
                let r = ui.interact(r, id.with(("finding", m.finding)), Sense::click());
                r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, name.clone()));
                if r.clicked() {
                    seek = Some(m.finding);
                }
            }
        }
    }
    seek
}

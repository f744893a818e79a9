//! The stock plot: an incident's product stock over time, drawn with
//! egui_plot under the lanes, on the lanes' time axis (seconds since the
//! first event, the plot's left edge at the lanes' [`LABEL_W`]). The lanes
//! keep their own painter; this draws only what a plot is made for.
//!
//! The data is [`data::ProductStock`], built when the selection changes;
//! [`stock_plot_ui`] maps it to the screen each frame, in the window (with
//! the lanes' zoom, pan and cursor) and in an incident's picture.

pub mod data;

use egui::{Align2, Color32, FontId, Rect, RichText, Sense, Ui, UiBuilder, pos2, vec2};
use egui_plot::{HLine, Line, MarkerShape, Plot, PlotPoints, Points, Span, VLine};

use crate::analysis::IncidentId;
use crate::ui::i18n::{Lang, tr, trf};
use crate::ui::timeline::{
    LABEL_W, SwimlaneModel, TimeDisplay, TimeScale, TimelineView, format_at,
};
pub use data::{ProductStock, incident_stock};

/// Height of the docked plot when it first opens, points.
pub const DOCK_H: f32 = 190.0;
/// Height of the plot in a picture, points (one product).
pub const PICTURE_H: f32 = 100.0;
/// Width the plot's own values take left of it, points (inside
/// [`LABEL_W`]).
const VALUES_W: f32 = 36.0;
/// Gap between two products' plots, points.
const GAP: f32 = 6.0;

/// The plot's colours, in the lanes' spirit: red for what went wrong.
struct Colors {
    logged: Color32,
    orders: Color32,
    order_ok: Color32,
    beyond: Color32,
    lost: Color32,
    window: Color32,
    selected_window: Color32,
    cursor: Color32,
    zero: Color32,
}

impl Colors {
    fn new(dark: bool) -> Colors {
        if dark {
            Colors {
                logged: Color32::from_rgb(100, 160, 235),
                orders: Color32::from_rgb(200, 204, 210),
                order_ok: Color32::from_rgb(90, 190, 110),
                beyond: Color32::from_rgb(255, 70, 70),
                lost: Color32::from_rgb(240, 170, 40),
                window: Color32::from_rgba_unmultiplied(235, 40, 40, 30),
                selected_window: Color32::from_rgba_unmultiplied(235, 40, 40, 60),
                cursor: Color32::from_rgb(255, 170, 40),
                zero: Color32::from_rgb(140, 146, 156),
            }
        } else {
            Colors {
                logged: Color32::from_rgb(40, 100, 190),
                orders: Color32::from_rgb(60, 66, 76),
                order_ok: Color32::from_rgb(40, 150, 70),
                beyond: Color32::from_rgb(220, 20, 20),
                lost: Color32::from_rgb(215, 120, 0),
                window: Color32::from_rgba_unmultiplied(230, 30, 30, 25),
                selected_window: Color32::from_rgba_unmultiplied(230, 30, 30, 50),
                cursor: Color32::from_rgb(230, 120, 0),
                zero: Color32::from_rgb(100, 108, 120),
            }
        }
    }
}

/// What one frame of the plot shows.
#[derive(Clone, Copy)]
pub struct StockPlotView<'a> {
    /// The products, one plot each.
    pub products: &'a [ProductStock],
    /// The lanes' display list: time 0, the log's extent, its zone.
    pub model: &'a SwimlaneModel,
    /// The lanes' time range.
    pub view: &'a TimelineView,
    /// The replay's cursor, s since the first event.
    pub cursor_s: Option<f64>,
    /// The incident whose window is drawn stronger.
    pub selected: Option<IncidentId>,
    /// How times read on hover.
    pub time_display: TimeDisplay,
    /// The language of the labels.
    pub lang: Lang,
    /// False for a picture: no hover, no input.
    pub interactive: bool,
}

/// What the user did on the plot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StockPlotInput {
    /// The lanes' time range after a wheel zoom or a drag (the lanes'
    /// gestures).
    pub view: Option<TimelineView>,
    /// A click asks for the time cursor here, s since the first event.
    pub seek_s: Option<f64>,
}

/// `n` and the word for `one` (when `n` is 1) or `many`: `1 unit`,
/// `12 units` (Chinese: one form).
fn counted(lang: Lang, n: i64, one: &'static str, many: &'static str) -> String {
    format!("{n} {}", tr(lang, if n == 1 { one } else { many }))
}

/// `15 orders against 12 units`, or `15 orders` without an initial stock.
fn orders_text(p: &ProductStock, lang: Lang) -> String {
    let n = i64::try_from(p.orders.len()).unwrap_or(i64::MAX);
    let orders = counted(lang, n, "stock_plot_order_one", "stock_plot_order_many");
    match p.initial {
        Some(units) => {
            let units = counted(lang, units, "stock_plot_unit_one", "stock_plot_unit_many");
            trf(lang, "stock_plot_orders", &[&orders, &units])
        }
        None => orders,
    }
}

/// `3 lost updates`.
fn lost_text(p: &ProductStock, lang: Lang) -> String {
    let n = i64::try_from(p.lost.len()).unwrap_or(i64::MAX);
    counted(lang, n, "stock_plot_lost_one", "stock_plot_lost_many")
}

/// The accessible name of `p`'s plot: what it shows in numbers (the tests
/// and screen readers find it by this).
pub fn plot_label(p: &ProductStock, lang: Lang) -> String {
    trf(
        lang,
        "stock_plot_a11y",
        &[
            &p.name,
            &orders_text(p, lang),
            &p.beyond_stock().to_string(),
            &lost_text(p, lang),
        ],
    )
}

/// Draws one plot per product into the rest of `ui`, each as wide as the
/// lanes (its values and words in the lanes' label column), and returns
/// what the user did.
pub fn stock_plot_ui(ui: &mut Ui, v: StockPlotView<'_>) -> StockPlotInput {
    let mut input = StockPlotInput::default();
    let n = v.products.len().max(1) as f32;
    let whole = ui.available_rect_before_wrap();
    let h = ((whole.height() - GAP * (n - 1.0)) / n).max(40.0);
    for (i, p) in v.products.iter().enumerate() {
        let top = whole.top() + i as f32 * (h + GAP);
        let rect = Rect::from_min_size(pos2(whole.left(), top), vec2(whole.width(), h));
        let one = product_ui(ui, rect, p, &v);
        input.view = input.view.or(one.view);
        input.seek_s = input.seek_s.or(one.seek_s);
    }
    ui.advance_cursor_after_rect(whole);
    input
}

/// One product's plot in `rect`: the words left, the plot right.
fn product_ui(ui: &mut Ui, rect: Rect, p: &ProductStock, v: &StockPlotView<'_>) -> StockPlotInput {
    let colors = Colors::new(ui.visuals().dark_mode);
    let plot_rect = Rect::from_min_max(pos2(rect.left() + LABEL_W, rect.top()), rect.max);
    if plot_rect.width() < 10.0 {
        return StockPlotInput::default();
    }
    let words = Rect::from_min_max(
        rect.min,
        pos2(rect.left() + LABEL_W - VALUES_W, rect.bottom()),
    );
    ui.scope_builder(
        UiBuilder::new().max_rect(words.shrink2(vec2(6.0, 2.0))),
        |ui| {
            words_ui(ui, p, &colors, v.lang);
        },
    );
    let (lo, hi) = p.value_range();
    let (lo, hi) = (lo as f64 - 0.8, hi as f64 + 0.8);
    let response = ui
        .scope_builder(UiBuilder::new().max_rect(plot_rect), |ui| {
            let plot = Plot::new(("stock_plot", p.product))
                .width(plot_rect.width())
                .height(plot_rect.height())
                .show_axes(false)
                .show_grid([false, true])
                .allow_drag(false)
                .allow_zoom(false)
                .allow_scroll(false)
                .allow_boxed_zoom(false)
                .allow_double_click_reset(false)
                .show_x(false)
                .show_y(false)
                .sense(if v.interactive {
                    Sense::click_and_drag()
                } else {
                    Sense::hover()
                });
            plot.show(ui, |plot_ui| {
                plot_ui.set_plot_bounds_x(v.view.start_s..=v.view.end_s);
                plot_ui.set_plot_bounds_y(lo..=hi);
                for item in items(p, v, &colors) {
                    item.add_to(plot_ui);
                }
            })
        })
        .inner;
    let frame = *response.transform.frame();
    values_ui(ui, &response.transform, p, frame, &colors);
    let label = plot_label(p, v.lang);
    let r = response.response;
    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, label.clone()));
    if !v.interactive {
        return StockPlotInput::default();
    }
    hover_ui(&r, p, v);
    gestures(ui, &r, frame, v)
}

/// The wheel zooms around the pointer and a drag pans, as on the lanes; a
/// click moves the time cursor.
fn gestures(ui: &Ui, r: &egui::Response, frame: Rect, v: &StockPlotView<'_>) -> StockPlotInput {
    let drawn = TimeScale::new(frame, v.view);
    let mut view = v.view.clone();
    crate::ui::timeline::input::wheel(ui, r, &drawn, &mut view);
    if r.dragged() {
        view.pan(-(r.drag_delta().x as f64) / drawn.px_per_s());
    }
    let seek_s = r
        .clicked()
        .then(|| r.interact_pointer_pos())
        .flatten()
        .map(|p| drawn.time_from_x(p.x.clamp(frame.left(), frame.right())));
    StockPlotInput {
        view: (view != *v.view).then_some(view),
        seek_s,
    }
}

/// The time and the values at the pointer, on hover.
fn hover_ui(r: &egui::Response, p: &ProductStock, v: &StockPlotView<'_>) {
    let Some(pos) = r.hover_pos() else { return };
    let drawn = TimeScale::new(r.rect, v.view);
    let s = drawn.time_from_x(pos.x);
    let at_ns = v.model.t0_ns.saturating_add((s * 1e9).round() as i64);
    let logged = p.logged.partition_point(|l| l.at_ns <= at_ns);
    let sold = p.orders.partition_point(|o| o.at_ns <= at_ns);
    let level = logged
        .checked_sub(1)
        .map_or_else(|| "?".to_string(), |i| p.logged[i].level.to_string());
    let text = trf(
        v.lang,
        "stock_plot_hover",
        &[
            &format_at(v.model, v.time_display, s),
            &level,
            &sold.to_string(),
        ],
    );
    r.clone().on_hover_text_at_pointer(text);
}

/// The words left of the plot: the product, then each series in its
/// colour with its numbers.
fn words_ui(ui: &mut Ui, p: &ProductStock, c: &Colors, lang: Lang) {
    ui.spacing_mut().item_spacing.y = 1.0;
    let name = if p.name.is_empty() {
        tr(lang, "unknown_product")
    } else {
        &p.name
    };
    ui.add(
        egui::Label::new(RichText::new(trf(lang, "stock_plot_title", &[name])).strong()).truncate(),
    );
    let line = |ui: &mut Ui, text: String, color: Color32| {
        ui.add(egui::Label::new(RichText::new(text).color(color)).truncate())
    };
    let _ = line(ui, format!("— {}", tr(lang, "stock_plot_logged")), c.logged);
    let _ = line(ui, format!("— {}", orders_text(p, lang)), c.orders);
    let beyond = p.beyond_stock();
    if beyond > 0 {
        let _ = line(
            ui,
            format!(
                "● {}",
                trf(lang, "stock_plot_beyond", &[&beyond.to_string()])
            ),
            c.beyond,
        );
    }
    if !p.lost.is_empty() {
        let lost = format!("◆ {}", lost_text(p, lang));
        line(ui, lost, c.lost).on_hover_text(tr(lang, "stock_plot_lost_hint"));
    }
}

/// Points between two values' labels, at least.
const VALUE_GAP: f32 = 12.0;

/// The values the plot's levels read, right of the words: 0, the initial
/// stock and the lowest count, in that order, each left out where it
/// would cover one already drawn.
fn values_ui(ui: &Ui, t: &egui_plot::PlotTransform, p: &ProductStock, frame: Rect, c: &Colors) {
    let painter = ui.painter();
    let (lo, _) = p.value_range();
    let font = FontId::proportional(12.0);
    let mut drawn: Vec<(i64, f32)> = Vec::new();
    for value in [Some(0), p.initial, (lo < 0).then_some(lo)]
        .into_iter()
        .flatten()
    {
        let y = t.position_from_point_y(value as f64);
        if drawn
            .iter()
            .any(|&(v, at)| v == value || (at - y).abs() < VALUE_GAP)
        {
            continue;
        }
        drawn.push((value, y));
        let color = if value < 0 {
            c.beyond
        } else {
            ui.visuals().text_color()
        };
        painter.text(
            pos2(frame.left() - 6.0, y),
            Align2::RIGHT_CENTER,
            value.to_string(),
            font.clone(),
            color,
        );
    }
}

/// One thing the plot draws.
enum Item<'a> {
    Span(Span),
    HLine(HLine),
    VLine(VLine),
    Line(Line<'a>),
    Points(Points<'a>),
}

impl<'a> Item<'a> {
    fn add_to(self, plot_ui: &mut egui_plot::PlotUi<'a>) {
        match self {
            Item::Span(s) => plot_ui.span(s),
            Item::HLine(l) => plot_ui.hline(l),
            Item::VLine(l) => plot_ui.vline(l),
            Item::Line(l) => plot_ui.line(l),
            Item::Points(p) => plot_ui.points(p),
        }
    }
}

/// At most this many incident windows are shaded in a frame (those on
/// screen, the selected one first).
const MAX_WINDOWS: usize = 400;

/// What the plot draws of `p`, back to front: the incident windows, the
/// zero line, the logged stock, the units left by the orders, the orders
/// (red beyond the stock), the lost updates, the cursor.
fn items<'a>(p: &ProductStock, v: &StockPlotView<'_>, c: &Colors) -> Vec<Item<'a>> {
    let s = |ns: i64| ns.saturating_sub(v.model.t0_ns) as f64 / 1e9;
    let end_s = v.model.extent.1.max(v.view.end_s);
    let mut out = windows(p, v, c);
    out.push(Item::HLine(HLine::new("", 0.0).color(c.zero).width(1.0)));
    let logged = p.logged.iter().map(|l| (s(l.at_ns), l.level));
    let line = Line::new("", steps(logged, end_s))
        .color(c.logged)
        .width(2.0)
        .allow_band(false);
    out.push(Item::Line(line));
    let start_ns = p.logged.first().map(|l| l.at_ns).into_iter();
    let start_ns = start_ns.chain(p.orders.first().map(|o| o.at_ns)).min();
    if let (Some(initial), Some(start_ns)) = (p.initial, start_ns) {
        let left = p
            .orders
            .iter()
            .filter_map(|o| Some((s(o.at_ns), o.left_after?)));
        let line = Line::new(
            "",
            steps([(s(start_ns), initial)].into_iter().chain(left), end_s),
        )
        .color(c.orders)
        .width(1.5)
        .allow_band(false)
        .style(egui_plot::LineStyle::dashed_loose());
        out.push(Item::Line(line));
    }
    let dots = |beyond: bool, color: Color32, r: f32| {
        let pts: Vec<[f64; 2]> = p
            .orders
            .iter()
            .filter(|o| o.beyond_stock == beyond)
            .map(|o| [s(o.at_ns), p.order_value(o) as f64])
            .collect();
        Item::Points(Points::new("", pts).color(color).radius(r).filled(true))
    };
    out.push(dots(false, c.order_ok, 3.0));
    out.push(dots(true, c.beyond, 4.5));
    let lost: Vec<[f64; 2]> = p
        .lost
        .iter()
        .map(|l| [s(l.at_ns), l.after as f64])
        .collect();
    let lost = Points::new("", lost)
        .shape(MarkerShape::Diamond)
        .color(c.lost)
        .radius(6.0)
        .filled(true);
    out.push(Item::Points(lost));
    if let Some(cursor) = v.cursor_s {
        out.push(Item::VLine(
            VLine::new("", cursor).color(c.cursor).width(2.0),
        ));
    }
    out
}

/// The incident windows on screen, shaded (the selected incident's
/// stronger), at least a pixel wide so that an instant's overlap shows.
fn windows<'a>(p: &ProductStock, v: &StockPlotView<'_>, c: &Colors) -> Vec<Item<'a>> {
    let s = |ns: i64| ns.saturating_sub(v.model.t0_ns) as f64 / 1e9;
    let min_s = v.view.span_s() / 2000.0;
    p.windows
        .iter()
        .filter(|w| s(w.end_ns) >= v.view.start_s && s(w.start_ns) <= v.view.end_s)
        .take(MAX_WINDOWS)
        .map(|w| {
            let fill = if Some(w.incident) == v.selected {
                c.selected_window
            } else {
                c.window
            };
            let (a, b) = (s(w.start_ns), s(w.end_ns).max(s(w.start_ns) + min_s));
            Item::Span(Span::new("", a..=b).fill(fill))
        })
        .collect()
}

/// A step line through `(s, value)` points in time order: each value holds
/// until the next point, the last until `end_s`.
fn steps(points: impl Iterator<Item = (f64, i64)>, end_s: f64) -> PlotPoints<'static> {
    let mut pts: Vec<[f64; 2]> = Vec::new();
    for (at_s, value) in points {
        if let Some(&[_, prev]) = pts.last() {
            pts.push([at_s, prev]);
        }
        pts.push([at_s, value as f64]);
    }
    if let Some(&[at_s, last]) = pts.last() {
        pts.push([end_s.max(at_s), last]);
    }
    PlotPoints::new(pts)
}

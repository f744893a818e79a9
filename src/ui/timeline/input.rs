//! The timeline's input: wheel, drags, double-click and keys change the
//! [`TimelineView`]; a click or drag on the axis, or a drag of the cursor
//! line, asks to move the time cursor.

use egui::{Pos2, Rect, Response, Sense, Ui, pos2};

use super::layout::max_scroll;
use super::model::SwimlaneModel;
use super::view::{TimeScale, TimelineView};

/// Box zooms narrower than this (points) are taken for a click.
const MIN_BOX_W: f32 = 4.0;

/// A span measured with a Ctrl-drag (Cmd on macOS), s since the first
/// event: kept on screen until Esc or the next measure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measure {
    /// Where the drag started.
    pub from_s: f64,
    /// Where it is (or ended).
    pub to_s: f64,
    /// True while the button is held.
    pub dragging: bool,
}

impl Measure {
    /// The span's start and end, earlier first.
    pub fn range(&self) -> (f64, f64) {
        (self.from_s.min(self.to_s), self.from_s.max(self.to_s))
    }

    /// Its length, ms.
    pub fn duration_ms(&self) -> f64 {
        (self.to_s - self.from_s).abs() * 1000.0
    }
}

/// The measured span, if any (kept in egui's temporary memory).
pub fn measured(ui: &Ui, response: &Response) -> Option<Measure> {
    ui.data(|d| d.get_temp(response.id.with("measure")))
}

/// A Ctrl-drag (Cmd-drag) over the plot measures the span dragged; Esc
/// forgets it. True while a measure is being dragged (the drag does not
/// pan then).
fn measure(ui: &Ui, response: &Response, drawn: &TimeScale) -> bool {
    let id = response.id.with("measure");
    let time = |p: Pos2| drawn.time_from_x(p.x.clamp(drawn.left, drawn.right));
    // A drag starts once the pointer has moved a little: measure from
    // where the button went down.
    if response.drag_started()
        && ui.input(|i| i.modifiers.command)
        && let Some(p) = ui
            .input(|i| i.pointer.press_origin())
            .or(response.interact_pointer_pos())
    {
        let m = Measure {
            from_s: time(p),
            to_s: time(p),
            dragging: true,
        };
        ui.data_mut(|d| d.insert_temp(id, m));
    }
    let Some(mut m) = ui.data(|d| d.get_temp::<Measure>(id)) else {
        return false;
    };
    if !ui.ctx().egui_wants_keyboard_input() && ui.input(|i| i.key_pressed(egui::Key::Escape)) {
        ui.data_mut(|d| d.remove::<Measure>(id));
        return false;
    }
    if !m.dragging {
        return false;
    }
    if let Some(p) = response.interact_pointer_pos() {
        m.to_s = time(p);
    }
    if response.drag_stopped() || !response.dragged() {
        m.dragging = false;
    }
    ui.data_mut(|d| d.insert_temp(id, m));
    true
}

/// Applies this frame's wheel, drags, double-click and keys to `view`, the
/// pointer read against the view as it was drawn (the frame before).
/// Returns where a box-zoom drag started, while one is in progress.
pub fn navigate(
    ui: &Ui,
    response: &Response,
    plot: Rect,
    model: &SwimlaneModel,
    view: &mut TimelineView,
) -> Option<Pos2> {
    let drawn = TimeScale::new(plot, view);
    wheel(ui, response, &drawn, view);
    let box_start = if measure(ui, response, &drawn) {
        None
    } else {
        drag(ui, response, &drawn, view)
    };
    if response.double_clicked() {
        view.fit(model);
    }
    keys(ui, model, view);
    view.scroll_y = view.scroll_y.clamp(0.0, max_scroll(model, plot.height()));
    box_start
}

/// The wheel over the labels scrolls the lanes; over the plot it zooms
/// around the pointer (and pinches zoom), and a horizontal wheel pans.
pub(crate) fn wheel(ui: &Ui, response: &Response, drawn: &TimeScale, view: &mut TimelineView) {
    if !response.hovered() {
        return;
    }
    let (scroll, zoom, pointer) =
        ui.input(|i| (i.smooth_scroll_delta, i.zoom_delta(), i.pointer.hover_pos()));
    let Some(pointer) = pointer else { return };
    if pointer.x < drawn.left {
        view.scroll_y -= scroll.y;
        return;
    }
    let factor = (-(scroll.y as f64) * 0.003).exp() / zoom as f64;
    if (factor - 1.0).abs() > 1e-6 {
        view.zoom(factor, drawn.time_from_x(pointer.x));
    }
    if scroll.x != 0.0 {
        view.pan(-(scroll.x as f64) / drawn.px_per_s());
    }
}

/// Shift-drag or a right-drag zooms to the box dragged (kept in egui's
/// temporary memory between frames); any other drag pans and scrolls.
/// Returns the box's start while it is dragged.
fn drag(ui: &Ui, response: &Response, drawn: &TimeScale, view: &mut TimelineView) -> Option<Pos2> {
    let box_id = response.id.with("box_zoom");
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
                let (a, b) = (start.x.min(end.x), start.x.max(end.x));
                if b - a > MIN_BOX_W {
                    view.start_s = drawn.time_from_x(a);
                    view.end_s = drawn.time_from_x(b);
                }
            }
        }
    } else if response.dragged() {
        let d = response.drag_delta();
        view.pan(-(d.x as f64) / drawn.px_per_s());
        view.scroll_y -= d.y;
    }
    box_start
}

/// F fits; arrows or A/D pan, W/S or +/- zoom, up/down scroll (not while a
/// text field has the keyboard).
fn keys(ui: &Ui, model: &SwimlaneModel, view: &mut TimelineView) {
    if ui.ctx().egui_wants_keyboard_input() {
        return;
    }
    let span = view.span_s();
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

/// A click or drag on the axis, or a drag of the cursor line (at
/// `cursor_s`), asks for the time cursor at the pointer: returns that time.
pub fn seek(
    ui: &Ui,
    response: &Response,
    full: Rect,
    plot: Rect,
    scale: &TimeScale,
    cursor_s: Option<f64>,
) -> Option<f64> {
    let mut seek = None;
    let axis = Rect::from_min_max(
        pos2(plot.left(), full.top()),
        pos2(full.right(), plot.top()),
    );
    let on_axis = ui
        .interact(axis, response.id.with("time_axis"), Sense::click_and_drag())
        .on_hover_cursor(egui::CursorIcon::PointingHand);
    let time_at = |p: Pos2| scale.time_from_x(p.x.clamp(plot.left(), plot.right()));
    if (on_axis.clicked() || on_axis.dragged())
        && let Some(p) = on_axis.interact_pointer_pos()
    {
        seek = Some(time_at(p));
    }
    if let Some(c) = cursor_s {
        let x = scale.x_from_time(c);
        if x >= plot.left() && x <= plot.right() {
            let handle = Rect::from_x_y_ranges(x - 4.0..=x + 4.0, plot.top()..=plot.bottom());
            let line = ui
                .interact(handle, response.id.with("cursor"), Sense::drag())
                .on_hover_cursor(egui::CursorIcon::ResizeHorizontal);
            if line.dragged()
                && let Some(p) = line.interact_pointer_pos()
            {
                seek = Some(time_at(p));
            }
        }
    }
    seek
}

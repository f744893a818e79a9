//! The overview strip above the lanes: the whole time range of the log,
//! the incidents' density along it, and the range on screen as a box; a
//! click or drag centres the view on that time (Perfetto's and Tracy's
//! overview bars).

use egui::{Color32, Rect, Sense, Stroke, StrokeKind, Ui, pos2, vec2};

use super::model::SwimlaneModel;
use super::view::TimelineView;

/// Height of the strip, points.
pub const OVERVIEW_H: f32 = 18.0;

/// How many incidents start in each of `bins` equal parts of `extent`
/// (s since the first event); an incident outside it counts in the nearest
/// end bin.
pub fn density(
    incidents: &[Option<(f64, f64, usize)>],
    extent: (f64, f64),
    bins: usize,
) -> Vec<u32> {
    let mut out = vec![0u32; bins.max(1)];
    let span = (extent.1 - extent.0).max(1e-9);
    let last = out.len() - 1;
    for &(start, _, _) in incidents.iter().flatten() {
        let at = ((start - extent.0) / span * out.len() as f64).floor();
        let i = if at < 0.0 { 0 } else { (at as usize).min(last) };
        out[i] += 1;
    }
    out
}

/// The strip across `ui`'s width; a click or drag on it centres `view` on
/// that time, keeping the zoom. Returns true when the view moved.
pub fn overview_ui(
    ui: &mut Ui,
    model: &SwimlaneModel,
    view: &mut TimelineView,
    lang: crate::ui::i18n::Lang,
) -> bool {
    let (rect, response) = ui.allocate_exact_size(
        vec2(ui.available_width(), OVERVIEW_H),
        Sense::click_and_drag(),
    );
    let response = response.on_hover_text(crate::ui::i18n::tr(lang, "overview_hint"));
    let name = crate::ui::i18n::tr(lang, "overview");
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, name));
    let painter = ui.painter_at(rect);
    let dark = ui.visuals().dark_mode;
    painter.rect_filled(
        rect,
        0.0,
        if dark {
            Color32::from_rgb(36, 40, 46)
        } else {
            Color32::from_rgb(232, 236, 242)
        },
    );
    let (a, b) = model.extent;
    let span = (b - a).max(1e-9);
    let x_of = |t: f64| rect.left() + ((t - a) / span) as f32 * rect.width();
    let bins = (rect.width() / 3.0).max(1.0) as usize;
    let counts = density(&model.incidents, model.extent, bins);
    let top = counts.iter().copied().max().unwrap_or(0).max(1) as f32;
    let w = rect.width() / counts.len() as f32;
    for (i, &n) in counts.iter().enumerate() {
        if n == 0 {
            continue;
        }
        // At least a third of the height, so one incident is seen.
        let h = (OVERVIEW_H - 2.0) * (0.35 + 0.65 * n as f32 / top);
        let x = rect.left() + i as f32 * w;
        let bar = Rect::from_min_max(
            pos2(x, rect.bottom() - h),
            pos2(x + w.max(1.0), rect.bottom()),
        );
        painter.rect_filled(bar, 0.0, Color32::from_rgb(210, 40, 40));
    }
    let seen = Rect::from_x_y_ranges(
        x_of(view.start_s).max(rect.left())
            ..=x_of(view.end_s)
                .min(rect.right())
                .max(x_of(view.start_s).max(rect.left()) + 2.0),
        rect.y_range(),
    );
    painter.rect_stroke(
        seen,
        0.0,
        Stroke::new(1.5, ui.visuals().text_color()),
        StrokeKind::Inside,
    );
    if (response.clicked() || response.dragged())
        && let Some(p) = response.interact_pointer_pos()
    {
        let t = a + ((p.x - rect.left()) / rect.width()) as f64 * span;
        let half = view.span_s() / 2.0;
        view.start_s = t - half;
        view.end_s = t + half;
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn density_counts_incident_starts_per_bin() {
        let incs = [
            Some((0.5, 1.0, 0)),
            Some((2.5, 3.0, 0)),
            Some((3.9, 4.5, 0)),
            None,
            Some((9.99, 10.0, 0)),
            Some((12.0, 13.0, 0)),
        ];
        assert_eq!(density(&incs, (0.0, 10.0), 5), vec![1, 2, 0, 0, 2]);
        assert_eq!(density(&[], (0.0, 10.0), 3), vec![0, 0, 0]);
    }
}

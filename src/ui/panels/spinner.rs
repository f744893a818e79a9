//! The busy indicator shown while a log loads or is analysed again, and the
//! pace of the frames drawn meanwhile.
//!
//! egui's own `Spinner` asks for the next frame at once, so a window that
//! shows it renders as fast as it can: 92 frames a second under Xvfb while
//! a 10 M event log loaded (`cargo bench --bench frame`). With software
//! rendering (Mesa's llvmpipe, as on a machine without a GPU) a frame of
//! the window costs about 60 ms of CPU, so those frames took a whole core
//! from the load: the window read a 10 M event file in 10.5 s where the
//! command line took 6.4 s (docs/performance.md). This indicator
//! is three dots lit in turn, one step per [`FRAME`], and asks for the next
//! frame only then; the progress bar shown while loading does the same.
//!
//! Two frames a second, not four: on a slower machine a
//! llvmpipe frame of a 1920x1080 window took so much CPU that at four a
//! second the window read the 10 M event log in 17.8 s where the command
//! line took 11.1 s, and opened it in 1.67x `analyze`'s time; at two a
//! second it read it in 13.1 s and opened it in 1.30x (`bench/window.sh`).
//! Input still draws a frame at once; only the idle animation is slower.

use std::time::Duration;

use egui::{Response, Sense, Ui, vec2};

/// Time between two frames while loading: two a second.
pub const FRAME: Duration = Duration::from_millis(500);

/// Dots in the indicator.
const DOTS: usize = 3;

/// The dot lit at `time_s` seconds: the next one every [`FRAME`].
pub fn lit_dot(time_s: f64) -> usize {
    let step = (time_s.max(0.0) / FRAME.as_secs_f64()) as u64;
    (step % DOTS as u64) as usize
}

/// Asks for the next frame of a loading display, [`FRAME`] from now.
pub fn next_frame(ui: &Ui) {
    ui.ctx().request_repaint_after(FRAME);
}

/// Adds the indicator, as high as a button.
pub fn spinner(ui: &mut Ui) -> Response {
    let h = ui.style().spacing.interact_size.y;
    spinner_sized(ui, h)
}

/// Adds the indicator, `h` points high (the empty window's, larger).
pub fn spinner_sized(ui: &mut Ui, h: f32) -> Response {
    let (rect, response) = ui.allocate_exact_size(vec2(h * 1.5, h), Sense::hover());
    response.widget_info(|| egui::WidgetInfo::new(egui::Role::ProgressIndicator));
    if ui.is_rect_visible(rect) {
        next_frame(ui);
        let lit = lit_dot(ui.input(|i| i.time));
        let visuals = ui.visuals();
        let (on, off) = (visuals.strong_text_color(), visuals.weak_text_color());
        let r = rect.width() / (DOTS as f32 * 2.0 + 1.0);
        for i in 0..DOTS {
            let x = rect.left() + r * (2.0 * i as f32 + 1.5);
            let color = if i == lit { on } else { off };
            ui.painter()
                .circle_filled(egui::pos2(x, rect.center().y), r * 0.8, color);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The delay before the next frame that a pass showing `add` asks for.
    fn repaint_delay(add: impl Fn(&mut Ui)) -> Duration {
        let ctx = egui::Context::default();
        let mut delay = Duration::MAX;
        // A new context asks for its first few passes at once (fonts,
        // sizes): the fifth shows what the widget alone asks for.
        for _ in 0..5 {
            let mut out = ctx.run_ui(egui::RawInput::default(), |ui| add(ui));
            // No renderer takes the font atlas here.
            out.textures_delta.clear();
            delay = out.viewport_output[&egui::ViewportId::ROOT].repaint_delay;
        }
        delay
    }

    #[test]
    fn the_indicator_asks_for_the_next_frame_a_step_later_not_at_once() {
        assert_eq!(repaint_delay(|ui| drop(ui.label("idle"))), Duration::MAX);
        assert_eq!(repaint_delay(|ui| drop(ui.spinner())), Duration::ZERO);
        assert_eq!(repaint_delay(|ui| drop(spinner(ui))), FRAME);
    }

    #[test]
    fn the_lit_dot_moves_on_each_step_and_wraps() {
        let step = FRAME.as_secs_f64();
        let lit: Vec<usize> = (0..7).map(|i| lit_dot((i as f64 + 0.5) * step)).collect();
        assert_eq!(lit, [0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(lit_dot(-1.0), 0);
    }
}

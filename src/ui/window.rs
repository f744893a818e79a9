//! The eframe wrapper around [`App`]: draws it each frame, takes the
//! `--screenshot` picture when asked, and saves the state on exit.

use super::app::App;
use super::shell::screenshot::ExitScreenshot;
use super::state::STORAGE_KEY;

/// The native window's app.
pub struct WindowApp {
    app: App,
    shot: Option<ExitScreenshot>,
    /// Frames drawn (for `LOCKREPLAY_TIMINGS`).
    frames: u64,
    /// True once a frame showed a log (for `LOCKREPLAY_TIMINGS`).
    shown: bool,
}

impl WindowApp {
    /// `app` in a window, closing after `shot` when given.
    pub fn new(mut app: App, shot: Option<ExitScreenshot>) -> WindowApp {
        app.exit_shot = shot.is_some();
        WindowApp {
            app,
            shot,
            frames: 0,
            shown: false,
        }
    }
}

impl eframe::App for WindowApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.app.ui(ui);
        self.frames += 1;
        if self.frames == 1 {
            crate::timing::mark("window/first frame");
        }
        if !self.shown && self.app.session.is_some() {
            self.shown = true;
            if crate::timing::enabled() {
                let label = format!("window/first frame with the log (frame {})", self.frames);
                crate::timing::mark(&label);
            }
        }
        if let Some(shot) = &mut self.shot {
            let app = &self.app;
            let ready = !app.is_loading() && (app.session.is_some() || app.error.is_some());
            shot.poll(ui.ctx(), ready);
        }
    }

    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        match super::app::unshown_clear_color(visuals, self.app.session.is_some()) {
            Some(color) => color.to_normalized_gamma_f32(),
            // eframe's own default.
            None => {
                egui::Color32::from_rgba_unmultiplied(12, 12, 12, 180).to_normalized_gamma_f32()
            }
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.app.state_to_save());
    }
}

impl Drop for WindowApp {
    fn drop(&mut self) {
        if crate::timing::enabled() {
            crate::timing::mark(&format!("window/closing after {} frames", self.frames));
        }
    }
}

//! The eframe wrapper around [`App`]: draws it each frame, takes the
//! `--screenshot` picture when asked, and saves the state on exit.

use super::screenshot::ExitScreenshot;
use crate::ui::app::App;
use crate::ui::state::STORAGE_KEY;

/// The native window's app.
pub struct WindowApp {
    app: App,
    shot: Option<ExitScreenshot>,
}

impl WindowApp {
    /// `app` in a window, closing after `shot` when given.
    pub fn new(mut app: App, shot: Option<ExitScreenshot>) -> WindowApp {
        app.exit_shot = shot.is_some();
        WindowApp { app, shot }
    }
}

impl eframe::App for WindowApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.app.ui(ui);
        if let Some(shot) = &mut self.shot {
            let app = &self.app;
            let ready = !app.is_loading() && (app.session.is_some() || app.error.is_some());
            shot.poll(ui.ctx(), ready);
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.app.state_to_save());
    }
}

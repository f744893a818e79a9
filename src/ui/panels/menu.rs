//! The menu bar: File (open, recent, reload, mapping, screenshots, export,
//! quit), View (fit, zoom, panels), and the Settings and Sources buttons.

use egui::Ui;

use super::PanelContext;
use crate::ui::i18n::tr;
use crate::ui::state::{Command, Panel, ScreenshotArea, ScreenshotDestination, ScreenshotRequest};

/// The File menu's screenshot items: label key and request.
const SCREENSHOT_ITEMS: [(&str, ScreenshotArea, ScreenshotDestination); 4] = [
    (
        "save_screenshot",
        ScreenshotArea::Window,
        ScreenshotDestination::File,
    ),
    (
        "save_timeline_screenshot",
        ScreenshotArea::Timeline,
        ScreenshotDestination::File,
    ),
    (
        "copy_image",
        ScreenshotArea::Window,
        ScreenshotDestination::Clipboard,
    ),
    (
        "copy_timeline_image",
        ScreenshotArea::Timeline,
        ScreenshotDestination::Clipboard,
    ),
];

/// The menu bar.
pub fn menu_ui(ui: &mut Ui, ctx: &mut PanelContext<'_>) {
    let lang = ctx.lang();
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button(tr(lang, "file"), |ui| file_menu_ui(ui, ctx));
        ui.menu_button(tr(lang, "view"), |ui| view_menu_ui(ui, ctx));
        if ui.button(tr(lang, "settings")).clicked() {
            ctx.send(if ctx.open.settings {
                Command::SetPanelOpen(Panel::Settings, false)
            } else {
                Command::OpenSettings
            });
        }
        if ui.button(tr(lang, "sources")).clicked() {
            ctx.send(Command::SetPanelOpen(Panel::Sources, !ctx.open.sources));
        }
    });
}

/// Sends `command` and closes the menu.
fn choose(ui: &Ui, ctx: &mut PanelContext<'_>, command: Command) {
    ctx.send(command);
    ui.close();
}

fn file_menu_ui(ui: &mut Ui, ctx: &mut PanelContext<'_>) {
    let lang = ctx.lang();
    if ui.button(format!("{}  Ctrl+O", tr(lang, "open"))).clicked() {
        choose(ui, ctx, Command::OpenDialog);
    }
    ui.menu_button(tr(lang, "open_recent"), |ui| {
        for files in &ctx.state.recent {
            let label = files
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ");
            if ui.button(label).clicked() {
                ctx.commands.push(Command::Open(files.clone()));
                ui.close();
            }
        }
    });
    if ui.button(format!("{}  F5", tr(lang, "reload"))).clicked() {
        choose(ui, ctx, Command::Reload);
    }
    if ui.button(tr(lang, "load_mapping")).clicked() {
        choose(ui, ctx, Command::MappingDialog);
    }
    ui.separator();
    for (key, area, destination) in SCREENSHOT_ITEMS {
        if ui.button(tr(lang, key)).clicked() {
            let request = ScreenshotRequest { area, destination };
            choose(ui, ctx, Command::Screenshot(request));
        }
    }
    let export = egui::Button::new(tr(lang, "export_report"));
    if ui.add_enabled(ctx.session.is_some(), export).clicked() {
        choose(ui, ctx, Command::ExportReport);
    }
    ui.separator();
    if ui.button(tr(lang, "quit")).clicked() {
        ctx.send(Command::Quit);
    }
}

fn view_menu_ui(ui: &mut Ui, ctx: &mut PanelContext<'_>) {
    let lang = ctx.lang();
    if ui.button(tr(lang, "fit_all")).clicked() {
        choose(ui, ctx, Command::FitAll);
    }
    if ui.button(tr(lang, "zoom_incident")).clicked() {
        choose(ui, ctx, Command::ZoomToSelected);
    }
    for (panel, key) in [(Panel::Sources, "sources"), (Panel::Warnings, "warnings")] {
        let mut open = ctx.open.get(panel);
        if ui.checkbox(&mut open, tr(lang, key)).changed() {
            ctx.send(Command::SetPanelOpen(panel, open));
        }
    }
}

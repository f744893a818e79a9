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
pub fn menu_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button(tr(lang, "file"), |ui| file_menu_ui(ui, context));
        ui.menu_button(tr(lang, "view"), |ui| view_menu_ui(ui, context));
        if ui.button(tr(lang, "settings")).clicked() {
            context.send(if context.open.settings {
                Command::SetPanelOpen(Panel::Settings, false)
            } else {
                Command::OpenSettings
            });
        }
        if ui.button(tr(lang, "sources")).clicked() {
            context.send(Command::SetPanelOpen(Panel::Sources, !context.open.sources));
        }
    });
}

/// Sends `command` and closes the menu.
fn choose(ui: &Ui, context: &mut PanelContext<'_>, command: Command) {
    context.send(command);
    ui.close();
}

fn file_menu_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    if ui.button(format!("{}  Ctrl+O", tr(lang, "open"))).clicked() {
        choose(ui, context, Command::OpenDialog);
    }
    ui.menu_button(tr(lang, "open_recent"), |ui| {
        for files in &context.state.recent {
            let label = files
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ");
            if ui.button(label).clicked() {
                context.commands.push(Command::Open(files.clone()));
                ui.close();
            }
        }
    });
    if ui.button(format!("{}  F5", tr(lang, "reload"))).clicked() {
        choose(ui, context, Command::Reload);
    }
    if ui.button(tr(lang, "load_mapping")).clicked() {
        choose(ui, context, Command::MappingDialog);
    }
    ui.separator();
    for (key, area, destination) in SCREENSHOT_ITEMS {
        if ui.button(tr(lang, key)).clicked() {
            let request = ScreenshotRequest { area, destination };
            choose(ui, context, Command::Screenshot(request));
        }
    }
    let export = egui::Button::new(tr(lang, "export_report"));
    if ui.add_enabled(context.session.is_some(), export).clicked() {
        choose(ui, context, Command::ExportReport);
    }
    ui.separator();
    if ui.button(tr(lang, "quit")).clicked() {
        context.send(Command::Quit);
    }
}

fn view_menu_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    if ui.button(tr(lang, "fit_all")).clicked() {
        choose(ui, context, Command::FitAll);
    }
    if ui.button(tr(lang, "zoom_incident")).clicked() {
        choose(ui, context, Command::ZoomToSelected);
    }
    ui.separator();
    for (panel, key) in [
        (Panel::Incidents, "incident_list_toggle"),
        (Panel::Details, "details_toggle"),
        (Panel::Sources, "sources"),
        (Panel::Warnings, "warnings"),
        (Panel::WhatIf, "whatif_menu"),
    ] {
        let mut open = context.open.get(panel);
        if ui.checkbox(&mut open, tr(lang, key)).changed() {
            context.send(Command::SetPanelOpen(panel, open));
        }
    }
    if ui.button(tr(lang, "reset_layout")).clicked() {
        choose(ui, context, Command::ResetLayout);
    }
}

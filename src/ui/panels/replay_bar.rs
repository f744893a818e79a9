//! The replay bar: play/pause, steps, speed, loop, jump to the incident
//! start, and the cursor's time.

use egui::{RichText, Ui};

use super::PanelContext;
use crate::playback::{PlaybackCommand, SPEED_PRESETS};
use crate::ui::i18n::{Lang, tr};
use crate::ui::state::Command;

/// `1× (real time)`, `10×`.
fn speed_text(lang: Lang, v: f64) -> String {
    if v == 1.0 {
        format!("1× ({})", tr(lang, "real_time"))
    } else {
        format!("{v}×")
    }
}

/// The replay bar.
pub fn replay_bar_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(tr(lang, "replay")).strong());
        ui.add_enabled_ui(context.session.is_some(), |ui| buttons_ui(ui, context));
    });
}

fn buttons_ui(ui: &mut Ui, context: &mut PanelContext<'_>) {
    let lang = context.lang();
    let playback = |c| Command::Playback(c);
    let has_incidents = context
        .session
        .is_some_and(|s| !s.analysis.incidents.is_empty());
    if ui
        .add_enabled(has_incidents, egui::Button::new(tr(lang, "prev_incident")))
        .clicked()
    {
        context.send(Command::StepIncident(false));
    }
    if ui
        .add_enabled(has_incidents, egui::Button::new(tr(lang, "next_incident")))
        .clicked()
    {
        context.send(Command::StepIncident(true));
    }
    let jump = egui::Button::new(tr(lang, "jump_incident_start"));
    if ui
        .add_enabled(context.selection.incident.is_some(), jump)
        .clicked()
    {
        context.send(Command::JumpToIncidentStart);
    }
    if ui.button(tr(lang, "step_back")).clicked() {
        context.send(playback(PlaybackCommand::StepBack));
    }
    let play_label = if context.playback.playing {
        tr(lang, "pause")
    } else {
        tr(lang, "play")
    };
    if ui.button(play_label).clicked() {
        context.send(playback(PlaybackCommand::TogglePlay));
    }
    if ui.button(tr(lang, "step_forward")).clicked() {
        context.send(playback(PlaybackCommand::StepForward));
    }
    let mut speed = context.playback.speed;
    let l = ui.label(tr(lang, "speed"));
    egui::ComboBox::from_id_salt("speed")
        .selected_text(speed_text(lang, speed))
        .show_ui(ui, |ui| {
            for v in SPEED_PRESETS {
                ui.selectable_value(&mut speed, v, speed_text(lang, v));
            }
        })
        .response
        .labelled_by(l.id);
    if speed != context.playback.speed {
        context.send(playback(PlaybackCommand::SetSpeed(speed)));
    }
    if ui
        .selectable_label(context.loop_on, tr(lang, "loop"))
        .clicked()
    {
        context.send(Command::ToggleLoop);
    }
    ui.separator();
    if let Some(s) = context.session {
        // No event, no time: a dash rather than the epoch (1970-01-01).
        let at = if s.log.events.is_empty() {
            "—".to_string()
        } else {
            s.input().time(context.playback.cursor_ns)
        };
        ui.label(RichText::new(format!("{}: {at}", tr(lang, "cursor"))).monospace());
    }
}

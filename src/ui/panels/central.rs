//! The central area: the timeline, or, before a log is shown, the spinner,
//! why the load failed, or how to open one.

use egui::{Rect, RichText, Ui};

use super::PanelContext;
use crate::replay::PlaybackCommand;
use crate::ui::i18n::tr;
use crate::ui::state::{Command, Selection};
use crate::ui::timeline::{TimelineEvent, TimelineOptions, timeline_ui};

/// The central area. Returns where the timeline was drawn, if it was.
pub fn central_ui(ui: &mut Ui, ctx: &mut PanelContext<'_>) -> Option<Rect> {
    if ctx.session.is_none() {
        placeholder_ui(ui, ctx);
        return None;
    }
    let model = ctx.model;
    let opts = TimelineOptions {
        time_display: ctx.state.time_display,
        selected: ctx.selection.incident,
        lang: ctx.lang(),
        cursor_s: Some((ctx.playback.cursor_ns - model.t0_ns) as f64 / 1e9),
    };
    let rect = ui.max_rect();
    let mut view = ctx.state.view.clone();
    let event = timeline_ui(ui, model, &mut view, opts);
    if view != ctx.state.view {
        ctx.send_first(Command::SetView(view));
    }
    match event {
        Some(TimelineEvent::IncidentClicked(id)) => {
            ctx.send(Command::Select(Selection { incident: Some(id) }))
        }
        Some(TimelineEvent::Seek(at_s)) => {
            let t = model.t0_ns + (at_s * 1e9).round() as i64;
            ctx.send(Command::Playback(PlaybackCommand::Seek(t)));
        }
        None => {}
    }
    Some(rect)
}

/// The spinner while loading, why the load failed, or how to open a log.
fn placeholder_ui(ui: &mut Ui, ctx: &PanelContext<'_>) {
    let lang = ctx.lang();
    // The central panel has no frame (the timeline paints its own
    // background): paint one, or the message sits on the clear colour.
    ui.painter()
        .rect_filled(ui.max_rect(), 0.0, ui.visuals().panel_fill);
    ui.centered_and_justified(|ui| {
        if ctx.loading.is_some() {
            ui.spinner();
        } else if let Some(e) = ctx.error {
            // Files were given but did not load: say why, and what next.
            ui.label(
                RichText::new(format!(
                    "{}: {e}\n\n{}",
                    tr(lang, "load_failed"),
                    tr(lang, "open_hint")
                ))
                .size(16.0)
                .color(ui.visuals().error_fg_color),
            );
        } else {
            ui.label(RichText::new(tr(lang, "open_hint")).size(16.0));
        }
    });
}

//! The central area: the timeline, or, before a log is shown, the spinner,
//! why the load failed, or how to open one.

use egui::{Rect, RichText, Ui};

use super::{PanelContext, spinner};
use crate::model::Message;
use crate::playback::PlaybackCommand;
use crate::ui::i18n::tr;
use crate::ui::state::{Command, Selection};
use crate::ui::timeline::{TimelineEvent, TimelineOptions, timeline_ui};

/// The central area. Returns where the timeline was drawn, if it was.
/// For a `picture` (a screenshot being taken) the timeline shows whole
/// rows only and no scrollbar.
pub fn central_ui(ui: &mut Ui, context: &mut PanelContext<'_>, picture: bool) -> Option<Rect> {
    let Some(session) = context.session else {
        placeholder_ui(ui, context);
        return None;
    };
    // Nothing to draw because nothing could be read: say so, not an empty
    // axis at 1970 (a timeline over no event).
    if context.model.groups.is_empty() {
        let problems: &[crate::analysis::Problem] = &session.problems;
        if !problems.is_empty() {
            not_readable_ui(ui, context, problems);
            return None;
        }
    }
    let model = context.model;
    let opts = TimelineOptions {
        time_display: context.state.time_display,
        selected: context.selection.incident,
        selected_pair: context.selection.overlap,
        lang: context.lang(),
        cursor_s: Some((context.playback.cursor_ns - model.t0_ns) as f64 / 1e9),
        pinned: &context.state.filters.pinned,
        picture,
    };
    let mut view = context.state.view.clone();
    crate::ui::timeline::overview::overview_ui(ui, model, &mut view, context.lang());
    let rect = ui.available_rect_before_wrap();
    let event = timeline_ui(ui, model, &mut view, opts);
    if view != context.state.view {
        context.send_first(Command::SetView(view));
    }
    match event {
        Some(TimelineEvent::IncidentClicked(id, overlap)) => {
            context.send(Command::Select(Selection {
                incident: Some(id),
                overlap,
                finding: None,
            }))
        }
        Some(TimelineEvent::FindingClicked(i)) => context.send(Command::SelectFinding(i)),
        Some(TimelineEvent::Seek(at_s)) => {
            let t = model.t0_ns.saturating_add((at_s * 1e9).round() as i64);
            context.send(Command::Playback(PlaybackCommand::Seek(t)));
        }
        Some(TimelineEvent::TogglePin(g)) => {
            if let Some(group) = model.groups.get(g) {
                let mut filters = context.state.filters.clone();
                match filters.pinned.iter().position(|k| *k == group.key) {
                    Some(i) => {
                        filters.pinned.remove(i);
                    }
                    None => filters.pinned.push(group.key.clone()),
                }
                context.send(Command::SetFilters(filters));
            }
        }
        None => {}
    }
    Some(rect)
}

/// The spinner while loading, why the load failed, or how to open a log.
/// Why a loaded log has nothing to draw: each reason, in the error colour.
fn not_readable_ui(
    ui: &mut Ui,
    context: &mut PanelContext<'_>,
    problems: &[crate::analysis::Problem],
) {
    let lang = context.lang();
    ui.painter()
        .rect_filled(ui.max_rect(), 0.0, ui.visuals().panel_fill);
    // Nothing to draw: each file gets the field-mapping dialog (those
    // nothing was read from, and those whose lock events name no key or
    // holder).
    let files: Vec<(usize, String)> = context
        .session
        .map(|s| {
            s.log
                .sources
                .iter()
                .enumerate()
                .map(|(i, src)| (i, src.name.clone()))
                .collect()
        })
        .unwrap_or_default();
    let zh = lang == crate::ui::i18n::Lang::Zh;
    let problems: Vec<String> = problems.iter().map(|p| p.text(zh)).collect();
    ui.vertical_centered(|ui| {
        ui.add_space(ui.available_height() / 4.0);
        ui.label(
            RichText::new(format!(
                "{}\n\n{}\n\n{}",
                tr(lang, "not_readable"),
                problems.join("\n\n"),
                tr(lang, "not_readable_hint")
            ))
            .size(15.0)
            .color(ui.visuals().error_fg_color),
        );
        for (i, name) in files {
            let label = format!("{}  {name}", tr(lang, "map_fields"));
            if ui.button(label).clicked() {
                context.send(Command::EditMapping(i));
            }
        }
    });
}

fn placeholder_ui(ui: &mut Ui, context: &PanelContext<'_>) {
    let lang = context.lang();
    // The central panel has no frame (the timeline paints its own
    // background): paint one, or the message sits on the clear colour.
    ui.painter()
        .rect_filled(ui.max_rect(), 0.0, ui.visuals().panel_fill);
    ui.centered_and_justified(|ui| {
        if context.loading.is_some() {
            spinner::spinner_sized(ui, 36.0);
        } else if let Some(e) = context.error {
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

//! Search across events above the timeline: a key, holder, thread, host
//! or order id (case-insensitive, part of the text); the matches are
//! stepped through with Enter or the arrows, each putting the cursor at its
//! event and scrolling to its key; "No match" says when nothing matches.

use egui::{RichText, Ui};

use super::{ALERT, PanelContext};
use crate::model::LoadedLog;
use crate::ui::i18n::{tr, trf};
use crate::ui::state::Command;

/// More matches than this are not collected (the count says "10000+").
pub const MAX_MATCHES: usize = 10_000;

/// The events (indices into `log.events`, in time order) whose key,
/// holder, thread, host or order id contains `query`, ignoring case; at
/// most [`MAX_MATCHES`]. Each distinct string is tested once.
pub fn search_events(log: &LoadedLog, query: &str) -> Vec<usize> {
    let q = query.trim().to_lowercase();
    if q.is_empty() {
        return Vec::new();
    }
    let hit: Vec<bool> = (0..log.strings.len())
        .map(|i| {
            log.strings
                .lookup_index(i)
                .is_some_and(|s| log.strings.get(s).to_lowercase().contains(&q))
        })
        .collect();
    if !hit.iter().any(|&h| h) {
        return Vec::new();
    }
    let is_hit = |s: Option<crate::model::Sym>| s.is_some_and(|s| hit[s.index()]);
    log.events
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            is_hit(e.key)
                || is_hit(e.holder)
                || is_hit(e.thread)
                || is_hit(e.host)
                || is_hit(e.detail().order_id)
        })
        .map(|(i, _)| i)
        .take(MAX_MATCHES)
        .collect()
}

/// The search box's own state.
#[derive(Debug, Default)]
pub struct SearchPanel {
    /// What is typed.
    pub query: String,
    /// The query the matches are for, and the matches.
    matches: Option<(String, Vec<usize>)>,
    /// The match shown last (index into the matches).
    current: Option<usize>,
}

impl SearchPanel {
    /// The search row.
    pub fn ui(&mut self, ui: &mut Ui, context: &mut PanelContext<'_>) {
        let lang = context.lang();
        let Some(s) = context.session else { return };
        let mut step: Option<bool> = None;
        ui.horizontal(|ui| {
            let label = ui.label(tr(lang, "search"));
            let edit = ui
                .add(
                    egui::TextEdit::singleline(&mut self.query)
                        .hint_text(tr(lang, "search_hint"))
                        .desired_width(220.0),
                )
                .labelled_by(label.id);
            if edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                step = Some(!ui.input(|i| i.modifiers.shift));
                edit.request_focus();
            }
            if self.matches.as_ref().is_none_or(|(q, _)| *q != self.query) {
                self.matches = Some((self.query.clone(), search_events(&s.log, &self.query)));
                self.current = None;
            }
            let n = self.matches.as_ref().map_or(0, |(_, m)| m.len());
            if self.query.trim().is_empty() {
                return;
            }
            if n == 0 {
                ui.label(RichText::new(tr(lang, "no_match")).color(ALERT).strong());
                return;
            }
            if ui.button(tr(lang, "prev_match")).clicked() {
                step = Some(false);
            }
            if ui.button(tr(lang, "next_match")).clicked() {
                step = Some(true);
            }
            let count = if n >= MAX_MATCHES {
                format!("{MAX_MATCHES}+")
            } else {
                n.to_string()
            };
            let text = match self.current {
                Some(c) => trf(lang, "match_of", &[&(c + 1).to_string(), &count]),
                None => trf(lang, "matches", &[&count]),
            };
            ui.label(text);
        });
        let Some(forward) = step else { return };
        let Some((_, matches)) = &self.matches else {
            return;
        };
        if matches.is_empty() {
            return;
        }
        let next = match (self.current, forward) {
            (None, true) => 0,
            (None, false) => matches.len() - 1,
            (Some(c), true) => (c + 1) % matches.len(),
            (Some(c), false) => (c + matches.len() - 1) % matches.len(),
        };
        self.current = Some(next);
        let e = &s.log.events[matches[next]];
        context.send(Command::GoTo {
            at_ns: e.at_ns,
            key: e.key.map(|k| s.log.strings.get(k).to_string()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{IngestOptions, Progress, read_source};
    use crate::model::LogBuilder;

    fn log(text: &str) -> LoadedLog {
        let mut b = LogBuilder::new();
        read_source(
            "t.jsonl",
            text.as_bytes(),
            &IngestOptions::default(),
            &mut b,
            &Progress::default(),
        )
        .expect("reads");
        b.finish()
    }

    #[test]
    fn search_matches_key_holder_host_and_order_id_ignoring_case() {
        let log = log(concat!(
            r#"{"ts":"2024-01-01T00:00:00Z","event":"lock_acquired","key":"lock:sku-1","holder":"Worker-A","host":"web-7","ttl_ms":1000}"#,
            "\n",
            r#"{"ts":"2024-01-01T00:00:01Z","event":"order_created","key":"lock:sku-1","holder":"worker-b","order_id":"o-991","product":"sku-1","quantity":1}"#,
            "\n",
        ));
        assert_eq!(log.events.len(), 2, "{:?}", log.warnings);
        assert_eq!(search_events(&log, "worker-a"), vec![0]);
        assert_eq!(search_events(&log, "WEB-7"), vec![0]);
        assert_eq!(search_events(&log, "o-99"), vec![1]);
        assert_eq!(search_events(&log, "sku-1"), vec![0, 1]);
        assert!(search_events(&log, "nothing-like-it").is_empty());
        assert!(search_events(&log, "  ").is_empty());
    }
}

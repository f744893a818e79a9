//! "State at cursor": the replay's tickers and stock, and per key who holds
//! the lock on the server and who believe they hold it.

use egui::{RichText, Ui};

use super::{ALERT, PanelContext, id_label, stock::stock_ui};
use crate::analysis::LockEnd;
use crate::playback::{KeyState, LeaseStatus};
use crate::report::format_ms;
use crate::ui::i18n::{Lang, tr, trf};
use crate::ui::session::Session;

/// Keys listed in full; the rest are counted.
const MAX_KEYS: usize = 6;

/// The "State at cursor" panel.
pub fn cursor_state_ui(ui: &mut Ui, context: &PanelContext<'_>) {
    let lang = context.lang();
    ui.heading(tr(lang, "state_at_cursor"));
    let Some(s) = context.session else { return };
    let cursor = context.playback.cursor_ns;
    // Where the selected incident's damage is, when the cursor is on it.
    if let Some(inc) = context
        .selection
        .incident
        .and_then(|i| s.analysis.incidents.get(i.index()))
    {
        let damage = crate::playback::damage_at(&s.analysis, inc);
        if damage.at_ns == cursor {
            let key = if damage.oversold_order {
                "cursor_at_damage"
            } else {
                "cursor_at_overlap"
            };
            ui.label(RichText::new(trf(lang, key, &[&inc.label()])).color(ALERT));
        }
    }
    let Some(index) = s.index.get() else {
        // Built just after the log is shown.
        ui.label(RichText::new(tr(lang, "indexing")).weak());
        return;
    };
    let st = index.state_at(&s.analysis, cursor);
    // The keys from the top of the timeline's scroll down.
    let model = context.model;
    let scroll = context.state.view.scroll_y;
    let on_screen: Vec<&str> = model
        .groups
        .iter()
        .scan(0.0f32, |top, g| {
            let this = *top;
            *top += g.height();
            Some((this, g))
        })
        .filter(|(top, g)| top + g.height() >= scroll)
        .take(40)
        .map(|(_, g)| g.key.as_str())
        .collect();
    let selected_key = context
        .selection
        .incident
        .and_then(|i| s.analysis.incidents.get(i.index()))
        .map(|inc| inc.key);
    let limits = StateLimits::of(selected_key.is_some());
    stock_ui(
        ui,
        lang,
        &s.log,
        &st,
        &s.settings.currency,
        (&s.products, &on_screen, limits.products),
    );
    if st.keys.is_empty() {
        ui.label(RichText::new(tr(lang, "no_lock_held")).weak());
    }
    // The selected incident's key alone, so that its card stays in view.
    let keys: Vec<&KeyState> = match selected_key {
        Some(key) => st.keys.iter().filter(|k| k.key == key).collect(),
        None => st.keys.iter().collect(),
    };
    for k in keys.iter().take(limits.keys) {
        key_ui(ui, lang, s, k, limits.believers);
    }
    let listed = keys.len().min(limits.keys);
    if st.keys.len() > listed {
        ui.label(trf(
            lang,
            "more_keys",
            &[&(st.keys.len() - listed).to_string()],
        ));
    }
}

/// How much of the state at the cursor the right panel lists: with an
/// incident selected its key only and a few believers and products, so
/// that the card under it is on screen at 1366x768; else more keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateLimits {
    /// Lock keys listed.
    pub keys: usize,
    /// Believers listed per key (the others counted).
    pub believers: usize,
    /// Products listed.
    pub products: usize,
}

impl StateLimits {
    /// The limits with or without a selected incident.
    pub fn of(incident_selected: bool) -> StateLimits {
        if incident_selected {
            StateLimits {
                keys: 1,
                believers: 3,
                products: 1,
            }
        } else {
            StateLimits {
                keys: MAX_KEYS,
                believers: 8,
                products: 6,
            }
        }
    }
}

/// One key: the server's holder and the believers, red when more than one
/// believes or a believer's lock already ended.
fn key_ui(ui: &mut Ui, lang: Lang, s: &Session, k: &KeyState, max_believers: usize) {
    let name = |sym| s.log.strings.get(sym);
    ui.add_space(4.0);
    ui.label(RichText::new(name(k.key)).monospace().strong());
    ui.indent(("key_state", k.key.index()), |ui| {
        match k.server_holder {
            Some(h) => {
                let text = trf(lang, "server_holds", &[s.holder_name(h)]);
                id_label(ui, lang, RichText::new(text), name(h));
            }
            None => {
                ui.label(tr(lang, "server_free"));
            }
        }
        let n = k.believers.len();
        let believers = RichText::new(trf(lang, "believers", &[&n.to_string()]));
        ui.label(if n > 1 {
            believers.color(ALERT).strong()
        } else {
            believers
        });
        for b in k.believers.iter().take(max_believers) {
            let text = format!(
                "{} — {}",
                s.holder_name(b.holder),
                lease_status_text(lang, &b.status)
            );
            let zombie = matches!(b.status, LeaseStatus::EndedStillWorking { .. });
            let rt = RichText::new(text).monospace();
            let rt = if zombie { rt.color(ALERT) } else { rt };
            id_label(ui, lang, rt, name(b.holder));
        }
        if k.believers.len() > max_believers {
            let more = (k.believers.len() - max_believers).to_string();
            ui.label(RichText::new(trf(lang, "more_holders", &[&more])).weak());
        }
    });
}

/// A holder's lease at the cursor in words: time left, or how long ago the
/// lock ended while the holder kept working.
pub fn lease_status_text(lang: Lang, status: &LeaseStatus) -> String {
    match status {
        LeaseStatus::Valid {
            remaining_ms: Some(ms),
        } => trf(lang, "valid_left", &[&format_ms(*ms)]),
        LeaseStatus::Valid { remaining_ms: None } => tr(lang, "valid_no_ttl").to_string(),
        LeaseStatus::EndedStillWorking { end, ago_ms } => {
            let key = match end {
                LockEnd::Expired => "expired_ago",
                LockEnd::ForeignRelease => "deleted_ago",
                LockEnd::Vanished => "vanished_ago",
                _ => "ended_ago",
            };
            trf(lang, key, &[&format_ms(*ago_ms)])
        }
    }
}

//! The What-if view, docked under the timeline: a lock policy chosen with a
//! few controls and its numbers beside what happened (every column of
//! `lockreplay whatif`); for the selected key, the replayed holds are a lane
//! group of the main timeline right under the logged ones
//! ([`replay_group`], [`crate::ui::timeline::SwimlaneModel::dock`]), on its
//! time scale and layout (docs/semantics.md §10). The replay itself is
//! `crate::whatif`'s; this runs it again only when the analysis or the
//! policy changes.

use std::sync::Arc;

use egui::{RichText, Ui};

use super::{ALERT, NOTICE, PanelContext, spinner};
use crate::analysis::{Analysis, Cause, IncidentId, LockEnd, OverlapId};
use crate::model::{LoadedLog, Sym};
use crate::report::format_ms;
use crate::ui::i18n::{Lang, tr, trf};
use crate::ui::session::Session;
use crate::ui::state::{Command, Panel};
use crate::ui::timeline::{Lane, LaneGroup, LeaseBar, OverlapBox};
use crate::whatif::{Outcome, Policy, Prepared, WhatIf, what_if_prepared};

/// Below this many events the replay runs on the UI thread (the seed's
/// 2 500 take a few ms); above it, on a named thread while the window shows
/// a spinner (a million events take seconds in a debug build).
const BACKGROUND_MIN_EVENTS: usize = 200_000;

/// The window's own state: the policy being tried and the last replay.
pub struct WhatIfPanel {
    /// The policy tried.
    pub policy: Policy,
    /// Wait limit, ms.
    pub wait_limit_ms: Option<i64>,
    /// The text fields: TTL, watchdog interval, pause, wait limit.
    fields: [String; 4],
    /// Logs with at least this many events are replayed on a thread
    /// ([`BACKGROUND_MIN_EVENTS`]; tests lower it).
    pub background_min_events: usize,
    /// What every replay of the shown analysis reads, built once.
    prepared: Option<(Arc<Analysis>, Arc<Prepared>)>,
    cache: Option<Cached>,
    job: Option<Job>,
    /// Counts the replays taken in ([`WhatIfPanel::docked`]'s mark).
    generation: u64,
}

impl Default for WhatIfPanel {
    fn default() -> Self {
        WhatIfPanel {
            policy: Policy {
                watchdog: true,
                ..Policy::default()
            },
            wait_limit_ms: None,
            fields: Default::default(),
            background_min_events: BACKGROUND_MIN_EVENTS,
            prepared: None,
            cache: None,
            job: None,
            generation: 0,
        }
    }
}

/// A replay: of which analysis, under which policy and wait limit.
struct Cached {
    analysis: Arc<Analysis>,
    policy: Policy,
    wait_limit_ms: Option<i64>,
    result: WhatIf,
}

/// A replay running on its thread.
struct Job {
    analysis: Arc<Analysis>,
    policy: Policy,
    wait_limit_ms: Option<i64>,
    rx: std::sync::mpsc::Receiver<(Arc<Prepared>, WhatIf)>,
}

impl WhatIfPanel {
    fn wanted(
        &self,
        analysis: &Arc<Analysis>,
        policy: &Policy,
        wait: Option<i64>,
        s: &Session,
    ) -> bool {
        Arc::ptr_eq(analysis, &s.analysis) && *policy == self.policy && wait == self.wait_limit_ms
    }

    /// Takes in a finished background replay.
    fn poll_job(&mut self) {
        let Some(job) = &self.job else { return };
        match job.rx.try_recv() {
            Ok((prepared, result)) => {
                self.prepared = Some((job.analysis.clone(), prepared));
                self.cache = Some(Cached {
                    analysis: job.analysis.clone(),
                    policy: job.policy.clone(),
                    wait_limit_ms: job.wait_limit_ms,
                    result,
                });
                self.generation = self.generation.wrapping_add(1);
                self.job = None;
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {}
            Err(std::sync::mpsc::TryRecvError::Disconnected) => self.job = None,
        }
    }

    /// The replay of the shown analysis under the current policy, run again
    /// only when either changed (on a thread for a large log: meanwhile the
    /// last replay of this analysis, if any, stays on screen).
    fn result(&mut self, egui_context: &egui::Context, s: &Session) -> Option<&WhatIf> {
        self.poll_job();
        let fresh = self
            .cache
            .as_ref()
            .is_some_and(|c| self.wanted(&c.analysis, &c.policy, c.wait_limit_ms, s));
        let running = self
            .job
            .as_ref()
            .is_some_and(|j| self.wanted(&j.analysis, &j.policy, j.wait_limit_ms, s));
        if !fresh && !running {
            self.start(egui_context, s);
        }
        self.cache
            .as_ref()
            .filter(|c| Arc::ptr_eq(&c.analysis, &s.analysis))
            .map(|c| &c.result)
    }

    /// Replays the shown analysis under the current policy: here for a
    /// small log, else on a thread.
    fn start(&mut self, egui_context: &egui::Context, s: &Session) {
        let prepared = self
            .prepared
            .as_ref()
            .filter(|(a, _)| Arc::ptr_eq(a, &s.analysis))
            .map(|(_, p)| p.clone());
        let (log, analysis, settings) = (s.log.clone(), s.analysis.clone(), s.settings.clone());
        let (policy, wait) = (self.policy.clone(), self.wait_limit_ms);
        let compute = {
            let analysis = analysis.clone();
            let policy = policy.clone();
            move || {
                let prepared = prepared.unwrap_or_else(|| Arc::new(Prepared::new(&log, &analysis)));
                let result = what_if_prepared(
                    &prepared,
                    &log,
                    &analysis,
                    &settings,
                    std::slice::from_ref(&policy),
                    wait,
                );
                (prepared, result)
            }
        };
        let (tx, rx) = std::sync::mpsc::channel();
        let repaint = egui_context.clone();
        let spawned = (s.log.events.len() >= self.background_min_events)
            .then(|| {
                let tx = tx.clone();
                let compute = compute.clone();
                std::thread::Builder::new()
                    .name("whatif".into())
                    .spawn(move || {
                        let _ = tx.send(compute());
                        repaint.request_repaint();
                    })
                    .ok()
            })
            .flatten();
        if spawned.is_none() {
            let _ = tx.send(compute());
        }
        self.job = Some(Job {
            analysis,
            policy,
            wait_limit_ms: wait,
            rx,
        });
        self.poll_job();
    }

    /// The view when open, docked at the bottom of the window's middle
    /// (under the timeline, between the side panels); its shortcut (F8)
    /// either way.
    pub fn dock(&mut self, ui: &mut Ui, context: &mut PanelContext<'_>) {
        let toggle = ui
            .ctx()
            .input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::F8));
        if toggle {
            context.send(Command::SetPanelOpen(Panel::WhatIf, !context.open.whatif));
        }
        if !context.open.whatif || context.session.is_none() {
            return;
        }
        let lang = context.lang();
        egui::Panel::bottom("whatif")
            .resizable(true)
            .default_size(200.0)
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.strong(tr(lang, "whatif"));
                    if ui
                        .small_button("×")
                        .on_hover_text(tr(lang, "close"))
                        .clicked()
                    {
                        context.send(Command::SetPanelOpen(Panel::WhatIf, false));
                    }
                });
                egui::ScrollArea::vertical()
                    .id_salt("whatif_scroll")
                    .auto_shrink(false)
                    .show(ui, |ui| self.ui(ui, context));
            });
    }

    /// The replay shown for the selected key, to dock in the timeline:
    /// the key, a mark of what it was built from, and the outcome of the
    /// policy tried; `None` while the view is closed or nothing is replayed.
    pub fn docked<'a>(
        &'a self,
        s: &Session,
        incident: Option<IncidentId>,
    ) -> Option<(Sym, u64, &'a Outcome)> {
        let c = self
            .cache
            .as_ref()
            .filter(|c| Arc::ptr_eq(&c.analysis, &s.analysis))?;
        let o = c.result.policies.first()?;
        let key = selected_key(&s.analysis, incident)?;
        Some((
            key,
            self.generation ^ (u64::from(key.index() as u32) << 32),
            o,
        ))
    }

    fn ui(&mut self, ui: &mut Ui, context: &PanelContext<'_>) {
        let lang = context.lang();
        self.controls_ui(ui, lang);
        ui.separator();
        let Some(s) = context.session else { return };
        let currency = s.settings.currency.clone();
        let key = selected_key(&s.analysis, context.selection.incident);
        let busy = {
            let w = self.result(ui.ctx(), s);
            w.is_none()
        } || self.job.is_some();
        if busy {
            ui.horizontal(|ui| {
                spinner::spinner(ui);
                ui.label(tr(lang, "whatif_busy"));
            });
        }
        let Some(w) = self
            .cache
            .as_ref()
            .filter(|c| Arc::ptr_eq(&c.analysis, &s.analysis))
            .map(|c| &c.result)
        else {
            return;
        };
        table_ui(ui, lang, w, &currency);
        let Some(o) = w.policies.first() else { return };
        ui.label(
            RichText::new(trf(
                lang,
                "whatif_summary",
                &[
                    &policy_label(lang, &o.policy),
                    &o.overlap_pairs.to_string(),
                    &o.oversold_units.to_string(),
                    &o.loss.format(&currency),
                ],
            ))
            .strong(),
        );
        if !w.model_matches() {
            ui.label(RichText::new(tr(lang, "whatif_mismatch")).color(NOTICE));
        }
        for note in &w.notes {
            ui.label(RichText::new(note.text(lang == Lang::Zh)).small().weak());
        }
        ui.label(RichText::new(tr(lang, "whatif_model")).small().weak());
        match key {
            Some(key) => ui.label(trf(lang, "whatif_docked", &[s.log.strings.get(key)])),
            None => ui.label(tr(lang, "whatif_no_holds")),
        };
    }

    /// The policy's controls; a field that does not parse is shown red and
    /// not used.
    fn controls_ui(&mut self, ui: &mut Ui, lang: Lang) {
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(&mut self.policy.watchdog, tr(lang, "whatif_watchdog"));
            ui.checkbox(&mut self.policy.owner_check, tr(lang, "whatif_owner_check"));
            ui.checkbox(&mut self.policy.fencing, tr(lang, "whatif_fencing"));
        });
        ui.horizontal_wrapped(|ui| {
            let [ttl, every, pause, wait] = &mut self.fields;
            self.policy.ttl_ms = ms_field(ui, tr(lang, "whatif_ttl"), ttl, self.policy.ttl_ms);
            ui.add_enabled_ui(self.policy.watchdog, |ui| {
                self.policy.renew_every_ms = ms_field(
                    ui,
                    tr(lang, "whatif_every"),
                    every,
                    self.policy.renew_every_ms,
                );
                self.policy.pause_ms =
                    ms_field(ui, tr(lang, "whatif_pause"), pause, self.policy.pause_ms);
            });
            self.wait_limit_ms =
                ms_field(ui, tr(lang, "whatif_wait_limit"), wait, self.wait_limit_ms);
        });
    }
}

/// A labelled ms field: empty gives `None`, a whole number of at least 1
/// gives it, anything else keeps `current` and is shown red.
fn ms_field(ui: &mut Ui, label: &str, text: &mut String, current: Option<i64>) -> Option<i64> {
    ui.label(label);
    let parsed = match text.trim() {
        "" => Some(None),
        t => t.parse::<i64>().ok().filter(|&v| v >= 1).map(Some),
    };
    let mut edit = egui::TextEdit::singleline(text).desired_width(64.0);
    if parsed.is_none() {
        edit = edit.text_color(ALERT);
    }
    ui.add(edit).on_hover_text(label);
    parsed.unwrap_or(current)
}

/// The policy's name in the window's language.
fn policy_label(lang: Lang, p: &Policy) -> String {
    let mut parts = Vec::new();
    if let Some(t) = p.ttl_ms {
        parts.push(format!("TTL {t} ms"));
    }
    if p.watchdog {
        let every = p
            .renew_every_ms
            .or(p.ttl_ms.map(|t| (t / 3).max(1)))
            .map_or_else(|| "TTL/3".to_string(), |r| format!("{r} ms"));
        parts.push(trf(lang, "whatif_watchdog_every", &[&every]));
    }
    if p.owner_check {
        parts.push(tr(lang, "whatif_owner_check").to_string());
    }
    if p.fencing {
        parts.push(tr(lang, "whatif_fencing").to_string());
    }
    if parts.is_empty() {
        tr(lang, "whatif_as_logged").to_string()
    } else {
        parts.join(" + ")
    }
}

/// The side-by-side table: what happened, the model as logged, the policy.
fn table_ui(ui: &mut Ui, lang: Lang, w: &WhatIf, currency: &str) {
    egui::Grid::new("whatif_table")
        .striped(true)
        .num_columns(8)
        .show(ui, |ui| {
            for h in [
                "whatif_policy",
                "whatif_overlaps",
                "oversold_col",
                "whatif_loss",
                "whatif_longest_wait",
                "whatif_timed_out",
                "whatif_fenced",
                "whatif_not_made",
            ] {
                ui.label(RichText::new(tr(lang, h)).strong());
            }
            ui.end_row();
            ui.label(tr(lang, "whatif_happened"));
            ui.label(w.actual.overlap_pairs.to_string());
            let oversold = RichText::new(w.actual.oversold_units.to_string());
            ui.label(if w.actual.oversold_units > 0 {
                oversold.color(ALERT)
            } else {
                oversold
            });
            ui.label(w.actual.loss.format(currency));
            for _ in 0..4 {
                ui.label("-");
            }
            ui.end_row();
            for o in std::iter::once(&w.as_logged).chain(&w.policies) {
                row_ui(ui, lang, o, currency);
            }
        });
}

fn row_ui(ui: &mut Ui, lang: Lang, o: &Outcome, currency: &str) {
    ui.label(policy_label(lang, &o.policy));
    ui.label(o.overlap_pairs.to_string());
    // As the command line: the units kept as logged (no known initial
    // stock) said beside the total.
    let oversold = RichText::new(if o.oversold_kept > 0 {
        trf(
            lang,
            "whatif_kept",
            &[&o.oversold_units.to_string(), &o.oversold_kept.to_string()],
        )
    } else {
        o.oversold_units.to_string()
    });
    ui.label(if o.oversold_units > 0 {
        oversold.color(ALERT)
    } else {
        oversold
    });
    ui.label(o.loss.format(currency));
    ui.label(format_ms(o.longest_wait_ms));
    ui.label(if o.still_waiting > 0 {
        format!("{} (+{})", o.timed_out, o.still_waiting)
    } else {
        o.timed_out.to_string()
    });
    ui.label(o.rejected_writes.to_string());
    ui.label(o.sales_not_made.to_string());
    ui.end_row();
}

/// The key shown: the selected incident's, else the first incident's,
/// else the first hold's.
fn selected_key(a: &Analysis, incident: Option<IncidentId>) -> Option<Sym> {
    incident
        .and_then(|i| a.incidents.get(i.index()))
        .or(a.incidents.first())
        .map(|i| i.key)
        .or(a.leases.first().map(|l| l.key))
}

/// The id a replayed overlap window carries (the largest an id can be).
const REPLAYED_OVERLAP: usize = u32::MAX as usize;

/// The header of the docked replay's group: `What-if: <policy> · <key>`.
pub fn replay_title(lang: Lang, o: &Outcome, key: &str) -> String {
    format!(
        "{}: {} · {key}",
        tr(lang, "whatif"),
        policy_label(lang, &o.policy)
    )
}

/// The replayed holds of lock key `key` under `o` as a lane group for the
/// main timeline (the what-if docks under the logged holds, on the
/// timeline's own time scale and layout): one lane per holder, in the
/// order of the key's logged group `logged`, each with the holds the replay
/// granted; a lock lost before the work ended is the hatched zombie part
/// and each replayed overlap pair a window (of no incident). Holds the
/// replay never granted are left out (the table counts them).
pub fn replay_group(
    log: &LoadedLog,
    a: &Analysis,
    o: &Outcome,
    key: Sym,
    logged: &LaneGroup,
    t0_ns: i64,
    title: String,
) -> LaneGroup {
    let secs = |ns: i64| (ns - t0_ns) as f64 / 1e9;
    // Each holder's lane, looked up once per hold and per pair.
    let mut lanes_by_holder: std::collections::HashMap<&str, usize> = Default::default();
    for (i, l) in logged.lanes.iter().enumerate() {
        lanes_by_holder.entry(l.holder.as_str()).or_insert(i);
    }
    let lane_of = |holder: &str| lanes_by_holder.get(holder).copied();
    let in_pair: std::collections::HashSet<usize> =
        o.overlaps.iter().flat_map(|&(e, l)| [e, l]).collect();
    let mut lanes: Vec<Lane> = logged
        .lanes
        .iter()
        .map(|l| Lane {
            leases: Vec::new(),
            max_len_s: 0.0,
            sales: Vec::new(),
            findings: Vec::new(),
            stalls: Vec::new(),
            ..l.clone()
        })
        .collect();
    for h in &o.holds {
        let l = &a.leases[h.lease];
        let (Some(start), Some(end)) = (h.start_ns, h.end_ns) else {
            continue;
        };
        if l.key != key {
            continue;
        }
        let Some(li) = lane_of(log.strings.get(l.holder)) else {
            continue;
        };
        let lock_end = h.lock_end_ns.unwrap_or(end);
        let lost = matches!(
            h.lock_end,
            Some(LockEnd::Expired | LockEnd::ForeignRelease | LockEnd::Vanished)
        ) && lock_end < end;
        let bar = LeaseBar {
            lease: h.lease,
            start_s: secs(start),
            lock_end_s: secs(lock_end),
            window_end_s: secs(end),
            zombie: lost.then(|| (secs(lock_end), secs(end))),
            renewals: Vec::new(),
            late_renewals: Vec::new(),
            released_s: (h.lock_end == Some(LockEnd::OwnRelease)).then(|| secs(lock_end)),
            no_ttl: false,
            near_miss: false,
            in_overlap: in_pair.contains(&h.lease.index()),
            inferred: false,
            ttl_ms: o.policy.ttl_ms.or(l.ttl_ms.get()),
            hold_ms: (end - start) as f64 / 1e6,
            lock_end: h.lock_end.unwrap_or(l.lock_end),
            window_end: l.window_end,
        };
        let lane = &mut lanes[li];
        lane.max_len_s = lane.max_len_s.max(bar.end_s() - bar.start_s);
        lane.leases.push(bar);
    }
    for lane in &mut lanes {
        lane.leases.sort_by(|x, y| x.start_s.total_cmp(&y.start_s));
    }
    let overlaps = replayed_overlaps(log, a, o, key, &lanes_by_holder, t0_ns);
    LaneGroup {
        key: title,
        lanes,
        overlaps,
        loose_sales: Vec::new(),
        incidents: 0,
        findings: Vec::new(),
        server_marks: Vec::new(),
        lane_h: logged.lane_h,
        pending: None,
    }
}

/// The replayed overlap pairs of lock key `key` under `o` whose holders
/// both have a lane, as windows of no incident.
fn replayed_overlaps(
    log: &LoadedLog,
    a: &Analysis,
    o: &Outcome,
    key: Sym,
    lanes_by_holder: &std::collections::HashMap<&str, usize>,
    t0_ns: i64,
) -> Vec<OverlapBox> {
    let secs = |ns: i64| (ns - t0_ns) as f64 / 1e9;
    o.overlaps
        .iter()
        .filter_map(|&(e, l)| {
            let (he, hl) = (&o.holds[e], &o.holds[l]);
            let (le, ll) = (&a.leases[e], &a.leases[l]);
            if le.key != key
                || !lanes_by_holder.contains_key(log.strings.get(le.holder))
                || !lanes_by_holder.contains_key(log.strings.get(ll.holder))
            {
                return None;
            }
            let start = hl.start_ns?;
            let end = he.end_ns?.min(hl.end_ns?);
            (end > start).then(|| OverlapBox {
                // No overlap of the analysis: an id none has, so that it
                // is never taken for a selected pair.
                overlap: OverlapId::new(REPLAYED_OVERLAP),
                start_s: secs(start),
                end_s: secs(end),
                cause: match he.lock_end {
                    Some(LockEnd::ForeignRelease) => Cause::ForeignRelease,
                    Some(LockEnd::Vanished) => Cause::LockVanished,
                    _ => Cause::LeaseExpired,
                },
                incident: None,
                holders: (
                    log.strings.get(le.holder).to_string(),
                    log.strings.get(ll.holder).to_string(),
                ),
                handoff: None,
            })
        })
        .collect()
}

//! The What-if window: a lock policy chosen with a few controls, its
//! numbers beside what happened, and, for the selected key, the replayed
//! holds drawn under the logged ones on one time axis (docs/semantics.md
//! §10). The replay itself is `crate::whatif`'s; this only draws it, and
//! runs it again only when the analysis or the policy changes.

use std::sync::Arc;

use egui::{Color32, Pos2, Rect, RichText, Sense, Stroke, Ui, vec2};

use super::{ALERT, NOTICE, PanelContext, spinner};
use crate::analysis::{Analysis, IncidentId, Lease, LockEnd};
use crate::model::{LoadedLog, Sym};
use crate::report::{format_ms, snake_name};
use crate::ui::i18n::{Lang, tr, trf};
use crate::ui::session::Session;
use crate::ui::state::{Command, Panel};
use crate::whatif::{Outcome, Policy, Prepared, ReplayedHold, WhatIf, what_if_prepared};

/// Height of one lane, points.
const LANE_H: f32 = 14.0;
/// Gap between lanes, points.
const LANE_GAP: f32 = 3.0;
/// Height of the "waiting" strip, points.
const WAIT_H: f32 = 28.0;
/// Height of the time axis, points.
const AXIS_H: f32 = 18.0;
/// Most lanes drawn per section; the rest are counted.
const MAX_LANES: usize = 24;
/// Colour of a hold while its lock is its own.
const HELD: Color32 = Color32::from_rgb(60, 120, 200);
/// Colour of requests waiting for the lock.
const WAITING: Color32 = Color32::from_rgb(150, 150, 150);

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

    /// The window when open; its shortcut (F8; W-A-S-D move the
    /// timeline) either way.
    pub fn show(&mut self, egui_context: &egui::Context, context: &mut PanelContext<'_>) {
        let toggle =
            egui_context.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::F8));
        if toggle {
            context.send(Command::SetPanelOpen(Panel::WhatIf, !context.open.whatif));
        }
        if !context.open.whatif || context.session.is_none() {
            return;
        }
        let lang = context.lang();
        let mut open = true;
        egui::Window::new(tr(lang, "whatif"))
            .open(&mut open)
            .default_size(vec2(980.0, 520.0))
            .resizable(true)
            .show(egui_context, |ui| self.ui(ui, context));
        if !open {
            context.send(Command::SetPanelOpen(Panel::WhatIf, false));
        }
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
        ui.separator();
        match key {
            Some(key) => {
                ui.label(format!(
                    "{}: {}",
                    tr(lang, "whatif_key"),
                    s.log.strings.get(key)
                ));
                egui::ScrollArea::vertical().show(ui, |ui| {
                    lanes_ui(ui, lang, &s.log, &s.analysis, key, o);
                });
            }
            None => {
                ui.label(tr(lang, "whatif_no_holds"));
            }
        }
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
        .num_columns(7)
        .show(ui, |ui| {
            for h in [
                "whatif_policy",
                "whatif_overlaps",
                "oversold_col",
                "whatif_loss",
                "whatif_longest_wait",
                "whatif_timed_out",
                "whatif_fenced",
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
            for _ in 0..3 {
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
    let oversold = RichText::new(o.oversold_units.to_string());
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

/// One bar of a lane: the hold, its work, and when its lock ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    /// The hold in the analysis.
    pub lease: usize,
    /// Start of its work, ns.
    pub start_ns: i64,
    /// End of its work, ns.
    pub end_ns: i64,
    /// When its lock ended before its work did (the zombie part), ns.
    pub lock_lost_ns: Option<i64>,
}

/// Packs bars into lanes, first fit in start order: a lane takes a bar that
/// starts at or after its last bar's end, so bars in one lane never overlap
/// and the number of lanes is the most holds working at once.
pub fn pack_lanes(bars: &[Bar]) -> Vec<Vec<Bar>> {
    let mut sorted = bars.to_vec();
    sorted.sort_by_key(|b| (b.start_ns, b.lease));
    let mut lanes: Vec<Vec<Bar>> = Vec::new();
    for b in sorted {
        match lanes
            .iter_mut()
            .find(|l| l.last().is_some_and(|last| last.end_ns <= b.start_ns))
        {
            Some(lane) => lane.push(b),
            None => lanes.push(vec![b]),
        }
    }
    lanes
}

fn logged_bar(l: &Lease) -> Bar {
    Bar {
        lease: l.id.index(),
        start_ns: l.acquired_ns,
        end_ns: l.window_end_ns,
        lock_lost_ns: l.zombie_ns().map(|(s, _)| s),
    }
}

fn replayed_bar(h: &ReplayedHold) -> Option<Bar> {
    let (start_ns, end_ns) = (h.start_ns?, h.end_ns?);
    let lost = matches!(
        h.lock_end,
        Some(LockEnd::Expired | LockEnd::ForeignRelease | LockEnd::Vanished)
    );
    Some(Bar {
        lease: h.lease.index(),
        start_ns,
        end_ns,
        lock_lost_ns: h.lock_end_ns.filter(|&t| lost && t < end_ns),
    })
}

/// The logged lanes of `key` and, under them, the replayed ones, with the
/// requests waiting in between, on one time axis.
fn lanes_ui(ui: &mut Ui, lang: Lang, log: &LoadedLog, a: &Analysis, key: Sym, o: &Outcome) {
    let logged: Vec<Bar> = a
        .leases
        .iter()
        .filter(|l| l.key == key)
        .map(logged_bar)
        .collect();
    let replayed: Vec<Bar> = o
        .holds
        .iter()
        .filter(|h| a.leases[h.lease].key == key)
        .filter_map(replayed_bar)
        .collect();
    let waits: Vec<(i64, i64)> = o
        .holds
        .iter()
        .filter(|h| a.leases[h.lease].key == key)
        .map(|h| {
            let end = h
                .start_ns
                .unwrap_or(h.arrival_ns + (h.waited_ms * 1e6) as i64);
            (h.arrival_ns, end)
        })
        .filter(|(s, e)| e > s)
        .collect();
    let lo = logged.iter().chain(&replayed).map(|b| b.start_ns).min();
    let hi = logged.iter().chain(&replayed).map(|b| b.end_ns).max();
    let (Some(t0), Some(t1)) = (lo, hi) else {
        return;
    };
    let (t0, t1) = (t0, t1.max(t0 + 1));
    let (top, bottom) = (pack_lanes(&logged), pack_lanes(&replayed));
    let timed_out = o
        .holds
        .iter()
        .filter(|h| a.leases[h.lease].key == key && h.timed_out)
        .count();
    ui.label(
        RichText::new(trf(
            lang,
            "whatif_lanes",
            &[
                &logged.len().to_string(),
                &top.len().to_string(),
                &replayed.len().to_string(),
                &bottom.len().to_string(),
                &timed_out.to_string(),
            ],
        ))
        .small(),
    );
    let shown = |n: usize| n.min(MAX_LANES) as f32;
    let rows = shown(top.len()) + shown(bottom.len());
    let height = 2.0 * 16.0 + rows * (LANE_H + LANE_GAP) + WAIT_H + AXIS_H;
    let width = ui.available_width().max(200.0);
    let (rect, response) = ui.allocate_exact_size(vec2(width, height), Sense::hover());
    let painter = ui.painter_at(rect);
    let x_of =
        |t: i64| rect.left() + ((t - t0) as f64 / (t1 - t0) as f64 * rect.width() as f64) as f32;
    let text_color = ui.visuals().text_color();
    let bg = ui.visuals().window_fill();
    let font = egui::FontId::proportional(11.0);
    let mut y = rect.top();
    let mut hits: Vec<(Rect, usize, bool)> = Vec::new();
    for (title, lanes, replayed) in [
        (tr(lang, "whatif_logged").to_string(), &top, false),
        (policy_label(lang, &o.policy), &bottom, true),
    ] {
        painter.text(
            Pos2::new(rect.left(), y),
            egui::Align2::LEFT_TOP,
            title,
            font.clone(),
            text_color,
        );
        y += 16.0;
        for lane in lanes.iter().take(MAX_LANES) {
            for b in lane {
                let r = Rect::from_min_max(
                    Pos2::new(x_of(b.start_ns), y),
                    Pos2::new(x_of(b.end_ns).max(x_of(b.start_ns) + 1.0), y + LANE_H),
                );
                let held_end = b
                    .lock_lost_ns
                    .map_or(r.right(), |t| x_of(t).clamp(r.left(), r.right()));
                painter.rect_filled(
                    Rect::from_min_max(r.min, Pos2::new(held_end, r.bottom())),
                    2.0,
                    HELD,
                );
                if b.lock_lost_ns.is_some() {
                    let z = Rect::from_min_max(Pos2::new(held_end, r.top()), r.max);
                    painter.rect_filled(z.expand2(vec2(0.5, 0.0)), 0.0, ALERT);
                }
                if r.width() > 4.0 {
                    // One hold's end and the next one's start stay apart.
                    painter.line_segment([r.left_top(), r.left_bottom()], Stroke::new(1.0, bg));
                }
                hits.push((r, b.lease, replayed));
            }
            y += LANE_H + LANE_GAP;
        }
        if lanes.len() > MAX_LANES {
            painter.text(
                Pos2::new(rect.right(), y - LANE_H),
                egui::Align2::RIGHT_BOTTOM,
                format!("+{}", lanes.len() - MAX_LANES),
                font.clone(),
                text_color,
            );
        }
        if replayed {
            y = waiting_strip(&painter, lang, rect, y, &waits, &x_of, &font, text_color);
        }
    }
    time_axis(&painter, rect, y, t0, t1, &x_of, &font, text_color);
    if let Some(pos) = response.hover_pos()
        && let Some(&(_, lease, replayed)) = hits.iter().find(|(r, _, _)| r.contains(pos))
    {
        let text = hold_tooltip(lang, log, a, o, lease, replayed);
        response.on_hover_text_at_pointer(text);
    }
}

/// Ticks every 1, 2 or 5 × 10^k ms after `t0_ns`, at most eight.
#[allow(clippy::too_many_arguments)]
fn time_axis(
    painter: &egui::Painter,
    rect: Rect,
    y: f32,
    t0_ns: i64,
    t1_ns: i64,
    x_of: &dyn Fn(i64) -> f32,
    font: &egui::FontId,
    color: Color32,
) {
    let span_ms = ((t1_ns - t0_ns) as f64 / 1e6).max(1.0);
    let step_ms = tick_step_ms(span_ms);
    painter.line_segment(
        [Pos2::new(rect.left(), y), Pos2::new(rect.right(), y)],
        Stroke::new(0.5, color),
    );
    let mut n = 0i64;
    while (n as f64) * step_ms <= span_ms {
        let t = t0_ns.saturating_add((n as f64 * step_ms * 1e6) as i64);
        let x = x_of(t);
        painter.line_segment(
            [Pos2::new(x, y), Pos2::new(x, y + 4.0)],
            Stroke::new(0.5, color),
        );
        let align = if n == 0 {
            egui::Align2::LEFT_TOP
        } else {
            egui::Align2::CENTER_TOP
        };
        painter.text(
            Pos2::new(x, y + 4.0),
            align,
            format!("+{}", format_ms(n as f64 * step_ms)),
            font.clone(),
            color,
        );
        n += 1;
    }
}

/// The tick step for a span: 1, 2 or 5 × 10^k ms, at most eight ticks.
pub fn tick_step_ms(span_ms: f64) -> f64 {
    let mut step = 1.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if span_ms / (step * m) <= 8.0 {
                return step * m;
            }
        }
        step *= 10.0;
    }
}

/// The number of requests waiting over time, as a filled step strip.
#[allow(clippy::too_many_arguments)]
fn waiting_strip(
    painter: &egui::Painter,
    lang: Lang,
    rect: Rect,
    y: f32,
    waits: &[(i64, i64)],
    x_of: &dyn Fn(i64) -> f32,
    font: &egui::FontId,
    text_color: Color32,
) -> f32 {
    let mut steps: Vec<(i64, i32)> = waits.iter().flat_map(|&(s, e)| [(s, 1), (e, -1)]).collect();
    steps.sort_unstable();
    let mut level = 0i32;
    let mut peak = 0i32;
    let mut points = Vec::with_capacity(steps.len());
    for (t, d) in steps {
        level += d;
        peak = peak.max(level);
        points.push((t, level));
    }
    let base = y + WAIT_H - 4.0;
    for w in points.windows(2) {
        let (t, n) = w[0];
        if n <= 0 {
            continue;
        }
        let h = (WAIT_H - 14.0) * n as f32 / peak.max(1) as f32;
        let r = Rect::from_min_max(
            Pos2::new(x_of(t), base - h),
            Pos2::new(x_of(w[1].0).max(x_of(t) + 1.0), base),
        );
        painter.rect_filled(r, 0.0, WAITING);
    }
    painter.line_segment(
        [Pos2::new(rect.left(), base), Pos2::new(rect.right(), base)],
        Stroke::new(0.5, WAITING),
    );
    painter.text(
        Pos2::new(rect.left(), y),
        egui::Align2::LEFT_TOP,
        trf(lang, "whatif_waiting", &[&peak.to_string()]),
        font.clone(),
        text_color,
    );
    y + WAIT_H
}

fn hold_tooltip(
    lang: Lang,
    log: &LoadedLog,
    a: &Analysis,
    o: &Outcome,
    lease: usize,
    replayed: bool,
) -> String {
    let l = &a.leases[lease];
    let h = &o.holds[lease];
    let work = format_ms((l.window_end_ns - l.acquired_ns) as f64 / 1e6);
    let (waited, end) = if replayed {
        (
            format_ms(h.waited_ms),
            h.lock_end.map(|e| snake_name(&e)).unwrap_or_default(),
        )
    } else {
        ("0 ms".to_string(), snake_name(&l.lock_end))
    };
    format!(
        "{}\n{}: {work}\n{}: {waited}\n{}: {end}",
        log.strings.get(l.holder),
        tr(lang, "whatif_work"),
        tr(lang, "whatif_waited"),
        tr(lang, "whatif_lock_end"),
    )
}

#[cfg(test)]
mod tests {
    use super::{Bar, pack_lanes, tick_step_ms};

    #[test]
    fn ticks_are_1_2_or_5_times_a_power_of_ten_and_at_most_eight() {
        assert_eq!(tick_step_ms(7.0), 1.0);
        assert_eq!(tick_step_ms(60_000.0), 10_000.0);
        assert_eq!(tick_step_ms(12_000.0), 2_000.0);
        assert_eq!(tick_step_ms(0.5), 1.0);
    }

    fn bar(lease: usize, start_ns: i64, end_ns: i64) -> Bar {
        Bar {
            lease,
            start_ns,
            end_ns,
            lock_lost_ns: None,
        }
    }

    #[test]
    fn lanes_hold_no_overlapping_bars_and_are_as_many_as_the_most_at_once() {
        let lanes = pack_lanes(&[bar(0, 0, 10), bar(1, 5, 20), bar(2, 10, 12), bar(3, 6, 8)]);
        assert_eq!(lanes.len(), 3);
        for lane in &lanes {
            for w in lane.windows(2) {
                assert!(w[0].end_ns <= w[1].start_ns);
            }
        }
        // Touching bars share a lane.
        assert_eq!(pack_lanes(&[bar(0, 0, 10), bar(1, 10, 20)]).len(), 1);
    }
}

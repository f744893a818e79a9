//! The incident table on the left: one row per incident, sortable by
//! column; a click selects the incident and zooms to it. Above it, why a
//! file could not be read, when that is so.

use egui::{RichText, Ui};
use egui_extras::{Column, TableBuilder, TableRow};

use super::{ALERT, PanelContext};
use crate::analysis::{Analysis, Cause, Incident, IncidentId};
use crate::model::LoadedLog;
use crate::model::Message;
use crate::report::{format_overlap_ms, format_time};
use crate::ui::i18n::tr;
use crate::ui::session::Session;
use crate::ui::state::{Command, IncidentSort, SortBy};

/// Height of the header row, points.
const HEADER_H: f32 = 22.0;
/// Height of a row, points.
const ROW_H: f32 = 20.0;

/// The incident table's own state.
#[derive(Debug, Default)]
pub struct IncidentsPanel {
    /// How it is sorted.
    pub sort: IncidentSort,
    /// The selection the table last scrolled to: when the selection
    /// changes (N/P, the timeline, `--cursor`), the table scrolls to its
    /// row once, so with thousands of incidents the list follows.
    scrolled_to: Option<IncidentId>,
}

impl IncidentsPanel {
    /// The panel.
    pub fn ui(&mut self, ui: &mut Ui, context: &mut PanelContext<'_>) {
        let lang = context.lang();
        ui.heading(tr(lang, "incidents"));
        let Some(s) = context.session else { return };
        let problems: &[crate::analysis::Problem] = &s.problems;
        if !problems.is_empty() {
            let head = crate::ui::i18n::problems_heading(problems, false);
            ui.colored_label(ui.visuals().error_fg_color, tr(lang, head));
            let zh = lang == crate::ui::i18n::Lang::Zh;
            for p in problems {
                ui.add(egui::Label::new(p.text(zh)).wrap());
            }
            ui.separator();
        }
        if s.analysis.incidents.is_empty() {
            if problems.is_empty() {
                ui.label(tr(lang, "no_incidents"));
            }
            return;
        }
        // The panel may be narrower than the table: it scrolls sideways.
        let clicked = egui::ScrollArea::horizontal()
            .id_salt("incident_table")
            .auto_shrink(false)
            .show(ui, |ui| self.table_ui(ui, context, s))
            .inner;
        if let Some(id) = clicked {
            // The clicked row is on screen: no scroll.
            self.scrolled_to = Some(id);
            context.send(Command::ShowIncident(id));
        }
    }

    /// The table; returns the incident clicked.
    fn table_ui(
        &mut self,
        ui: &mut Ui,
        context: &PanelContext<'_>,
        s: &Session,
    ) -> Option<IncidentId> {
        let order = sorted(&s.analysis, &s.log, self.sort);
        let mut clicked: Option<IncidentId> = None;
        ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
        let selected = context.selection.incident;
        let scroll_to = if selected != self.scrolled_to {
            self.scrolled_to = selected;
            selected.and_then(|id| order.iter().position(|&i| i == id.index()))
        } else {
            None
        };
        let mut table = TableBuilder::new(ui);
        if let Some(row) = scroll_to {
            table = table.scroll_to_row(row, Some(egui::Align::Center));
        }
        table
            .striped(true)
            .resizable(true)
            .sense(egui::Sense::click())
            // What an incident cost first, then which key: a narrow
            // panel shows #, loss, oversold and the key's start.
            .column(Column::auto().at_least(48.0))
            .column(Column::auto().at_least(44.0))
            .column(Column::auto().at_least(36.0))
            .column(
                Column::initial(120.0)
                    .at_least(60.0)
                    .at_most(260.0)
                    .clip(true),
            )
            .column(Column::auto().at_least(90.0))
            .column(Column::auto())
            .column(Column::auto())
            .column(Column::remainder().at_least(96.0).clip(true))
            .header(HEADER_H, |mut h| self.header_ui(&mut h, context))
            .body(|body| {
                body.rows(ROW_H, order.len(), |mut row| {
                    let inc = &s.analysis.incidents[order[row.index()]];
                    if row_ui(&mut row, context, s, inc) {
                        clicked = Some(inc.id);
                    }
                });
            });
        clicked
    }

    /// The header; a click on a sortable column sorts by it.
    fn header_ui(&mut self, h: &mut TableRow<'_, '_>, context: &PanelContext<'_>) {
        let lang = context.lang();
        let columns = [
            ("#", None),
            (tr(lang, "loss"), Some(SortBy::Loss)),
            (tr(lang, "oversold_col"), Some(SortBy::Oversold)),
            (tr(lang, "key"), Some(SortBy::Key)),
            (tr(lang, "start"), Some(SortBy::Start)),
            (tr(lang, "duration"), Some(SortBy::Duration)),
            (tr(lang, "holders"), None),
            (tr(lang, "cause"), None),
        ];
        for (label, column) in columns {
            h.col(|ui| {
                let arrow = match column {
                    Some(c) if c == self.sort.by && self.sort.ascending => " ▲",
                    Some(c) if c == self.sort.by => " ▼",
                    _ => "",
                };
                let r = ui.add(
                    egui::Button::new(RichText::new(format!("{label}{arrow}")).strong())
                        .frame(false),
                );
                if r.clicked()
                    && let Some(c) = column
                {
                    self.sort = self.sort.clicked(c);
                }
            });
        }
    }
}

/// Indices of `analysis`'s incidents in the order of `sort`; equals in
/// start order. A loss sorts as the report ranks it
/// ([`crate::report::rank::loss_rank`]: the oversold units when unknown).
pub fn sorted(analysis: &Analysis, log: &LoadedLog, sort: IncidentSort) -> Vec<usize> {
    use crate::report::rank::loss_rank;
    let mut order: Vec<usize> = (0..analysis.incidents.len()).collect();
    order.sort_by(|&x, &y| {
        let (i, j) = (&analysis.incidents[x], &analysis.incidents[y]);
        let o = match sort.by {
            SortBy::Start => i.start_ns.cmp(&j.start_ns),
            SortBy::Key => log.strings.get(i.key).cmp(log.strings.get(j.key)),
            SortBy::Duration => i.duration_ms().total_cmp(&j.duration_ms()),
            SortBy::Oversold => i.oversold_units.cmp(&j.oversold_units),
            SortBy::Loss => loss_rank(i.loss, i.oversold_units)
                .total_cmp(&loss_rank(j.loss, j.oversold_units))
                .then(i.oversold_units.cmp(&j.oversold_units)),
        };
        let o = if sort.ascending { o } else { o.reverse() };
        o.then(i.start_ns.cmp(&j.start_ns)).then(x.cmp(&y))
    });
    order
}

/// The incident after (`forward`) or before the one selected, in start
/// order; without a selection, the first one starting after (or the last
/// one starting before) `cursor_ns`; around to the other end past either
/// end ([`Step::Wrapped`]). `None` only when there is no incident.
pub fn step_incident(
    incidents: &[Incident],
    selected: Option<IncidentId>,
    cursor_ns: i64,
    forward: bool,
) -> Option<Step> {
    let mut order: Vec<&Incident> = incidents.iter().collect();
    order.sort_by_key(|i| (i.start_ns, i.id));
    let (first, last) = (order.first()?.id, order.last()?.id);
    // Past either end, or with no incident beyond the cursor, N and P wrap
    // around (the window says so): after opening, the cursor rests at the
    // end, and N must still go somewhere.
    let pos = match selected.and_then(|s| order.iter().position(|i| i.id == s)) {
        Some(p) if forward => p + 1,
        Some(p) => match p.checked_sub(1) {
            Some(p) => p,
            None => return Some(Step::Wrapped(last)),
        },
        None if forward => match order.iter().position(|i| i.start_ns > cursor_ns) {
            Some(p) => p,
            None => return Some(Step::Wrapped(first)),
        },
        None => match order.iter().rposition(|i| i.start_ns < cursor_ns) {
            Some(p) => p,
            None => return Some(Step::Wrapped(last)),
        },
    };
    Some(match order.get(pos) {
        Some(i) => Step::To(i.id),
        None => Step::Wrapped(first),
    })
}

/// Where N or P goes ([`step_incident`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The next or previous incident in start order.
    To(IncidentId),
    /// Past the end (or the start): around to the first (or the last).
    Wrapped(IncidentId),
}

impl Step {
    /// The incident stepped to.
    pub fn id(self) -> IncidentId {
        match self {
            Step::To(id) | Step::Wrapped(id) => id,
        }
    }
}

/// One incident's row; true when it was clicked.
fn row_ui(
    row: &mut TableRow<'_, '_>,
    context: &PanelContext<'_>,
    s: &Session,
    inc: &Incident,
) -> bool {
    let a = &s.analysis;
    let selected = context.selection.incident == Some(inc.id);
    row.set_selected(selected);
    let mut hit = false;
    row.col(|ui| {
        hit |= ui.selectable_label(selected, inc.label()).clicked();
    });
    row.col(|ui| {
        ui.label(inc.loss.format(&s.settings.currency));
    });
    row.col(|ui| {
        let t = crate::report::oversold_count(inc.oversold_units, inc.loss);
        if inc.oversold_units > 0 {
            ui.label(RichText::new(t).color(ALERT).strong());
        } else {
            ui.label(t);
        }
    });
    row.col(|ui| {
        let key = s.log.strings.get(inc.key);
        ui.add(egui::Label::new(key).truncate()).on_hover_text(key);
    });
    row.col(|ui| {
        let t = format_time(inc.start_ns, s.log.display_offset_s);
        ui.label(t.get(11..23).unwrap_or(&t));
    });
    row.col(|ui| {
        ui.label(format_overlap_ms(inc.duration_ms()));
    });
    row.col(|ui| {
        ui.label(inc.leases.len().to_string());
    });
    row.col(|ui| {
        let causes = inc.overlaps.iter().map(|&o| a.overlaps[o].cause);
        match cause_label(inc.cause, causes, context.lang()) {
            (label, Some(all)) => {
                ui.label(label).on_hover_text(all);
            }
            (label, None) => {
                ui.label(label);
            }
        }
    });
    hit || row.response().clicked()
}

/// The incident table's Cause cell: the first pair's cause, then `+N` when
/// the incident's pairs have N other causes, and (for the hover) all of
/// them. `causes` are the listed pairs' causes, in any order.
fn cause_label(
    first: Cause,
    causes: impl Iterator<Item = Cause>,
    lang: crate::ui::i18n::Lang,
) -> (String, Option<String>) {
    let name = |c: Cause| crate::ui::i18n::term(lang, c.as_str());
    let mut all: Vec<Cause> = causes.collect();
    all.sort_unstable();
    all.dedup();
    let others = all.iter().filter(|&&c| c != first).count();
    if others == 0 {
        return (name(first), None);
    }
    let names: Vec<String> = all.iter().map(|&c| name(c)).collect();
    (format!("{} +{others}", name(first)), Some(names.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incident(id: usize, start_ns: i64, key: crate::model::Sym) -> Incident {
        Incident {
            id: IncidentId::new(id),
            key,
            start_ns,
            end_ns: start_ns + 10,
            leases: Vec::new(),
            overlaps: Vec::new(),
            overlaps_unlisted: 0,
            cause: Cause::LeaseExpired,
            sales: Vec::new(),
            oversold_units: 0,
            loss: crate::money::Loss::default(),
        }
    }

    #[test]
    fn next_and_previous_incident_follow_start_order_and_stop_at_the_ends() {
        let mut strings = crate::model::Interner::default();
        let k = strings.intern("k");
        #[allow(non_snake_case)]
        let I = IncidentId::new;
        // Ids out of start order, as after a sort by key.
        let incs = [
            incident(0, 300, k),
            incident(1, 100, k),
            incident(2, 200, k),
        ];
        use Step::{To, Wrapped};
        assert_eq!(step_incident(&incs, Some(I(1)), 0, true), Some(To(I(2))));
        assert_eq!(step_incident(&incs, Some(I(2)), 0, true), Some(To(I(0))));
        assert_eq!(
            step_incident(&incs, Some(I(0)), 0, true),
            Some(Wrapped(I(1)))
        );
        assert_eq!(step_incident(&incs, Some(I(0)), 0, false), Some(To(I(2))));
        assert_eq!(
            step_incident(&incs, Some(I(1)), 0, false),
            Some(Wrapped(I(0)))
        );
        // No selection: from the cursor; past the last, around to the first.
        assert_eq!(step_incident(&incs, None, 150, true), Some(To(I(2))));
        assert_eq!(step_incident(&incs, None, 150, false), Some(To(I(1))));
        assert_eq!(step_incident(&incs, None, 400, true), Some(Wrapped(I(1))));
        assert_eq!(step_incident(&incs, None, 50, false), Some(Wrapped(I(0))));
        assert_eq!(step_incident(&[], None, 50, true), None);
    }

    #[test]
    fn one_cause_is_shown_alone_and_more_are_counted() {
        let one = cause_label(
            Cause::LeaseExpired,
            [Cause::LeaseExpired, Cause::LeaseExpired].into_iter(),
            crate::ui::i18n::Lang::En,
        );
        assert_eq!(one, ("lease_expired".to_string(), None));
        let three = cause_label(
            Cause::LeaseExpired,
            [
                Cause::ForeignRelease,
                Cause::LeaseExpired,
                Cause::LockVanished,
                Cause::ForeignRelease,
            ]
            .into_iter(),
            crate::ui::i18n::Lang::En,
        );
        assert_eq!(
            three,
            (
                "lease_expired +2".to_string(),
                Some("lease_expired, foreign_release, lock_vanished".to_string())
            )
        );
    }
}

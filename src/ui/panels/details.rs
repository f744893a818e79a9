//! Details of the selected incident: its explanation, each hold (host,
//! thread, grant, renewals, how the lock and the belief ended, hold vs
//! TTL), the orders inside it, and the source lines.

use egui::{RichText, Ui};

use super::{ALERT, PanelContext, id_label};
use crate::analysis::{Analysis, Incident, IncidentId, Lease};
use crate::model::{LoadedLog, SourceRef};
use crate::report::{ReportInput, explain_incident_in, format_ms, format_overlap_ms, snake_name};
use crate::ui::i18n::{Lang, term, tr, trf};
use crate::ui::loader::SAMPLE_BYTES;
use crate::ui::session::{Session, Source};
use crate::ui::state::Command;
use crate::ui::timeline::labels::short_id;

/// The details panel.
fn details_ui(ui: &mut Ui, context: &mut PanelContext<'_>, panel: &mut DetailsPanel) {
    let lang = context.lang();
    ui.heading(tr(lang, "details"));
    let Some(s) = context.session else { return };
    if let Some(f) = context.selection.finding {
        finding_card_ui(ui, lang, s, f, panel);
        return;
    }
    let Some(inc) = context
        .selection
        .incident
        .and_then(|i| s.analysis.incidents.get(i.index()))
    else {
        ui.label(tr(lang, "select_incident"));
        return;
    };
    let input = s.input();
    // The right side scrolls as a whole (app.rs); text wraps to its width.
    card_ui(ui, context, s, inc);
    if let Some(o) = context
        .selection
        .overlap
        .filter(|o| inc.overlaps.contains(o))
        .map(|o| &s.analysis.overlaps[o])
    {
        let holder = |l: crate::analysis::LeaseId| s.log.strings.get(s.analysis.leases[l].holder);
        let name = |l: crate::analysis::LeaseId| s.holder_name(s.analysis.leases[l].holder);
        let pair = trf(
            lang,
            "selected_pair",
            &[
                name(o.earlier),
                name(o.later),
                &format_overlap_ms(o.duration_ms()),
                &term(lang, o.cause.as_str()),
            ],
        );
        ui.add(egui::Label::new(RichText::new(pair).color(ALERT)).wrap())
            .on_hover_text(format!("{}\n{}", holder(o.earlier), holder(o.later)));
    }
    egui::CollapsingHeader::new(RichText::new(tr(lang, "explanation")).strong())
        .id_salt(("explanation", inc.id))
        .default_open(false)
        .show(ui, |ui| {
            let story = explain_incident_in(&input, inc, lang == Lang::Zh);
            ui.add(egui::Label::new(story).wrap());
        });
    ui.separator();
    ui.label(RichText::new(tr(lang, "leases")).strong());
    for &li in &inc.leases {
        let l = &s.analysis.leases[li];
        lease_ui(ui, lang, &input, l, s.holder_name(l.holder));
    }
    if !inc.sales.is_empty() {
        ui.separator();
        orders_ui(ui, lang, s, inc);
    }
    ui.separator();
    let lines = panel.lines_of(s, inc);
    source_lines_ui(ui, lang, s, lines);
}

/// Holders the card lists before the others fold under "more"
/// ([`card_holders_shown`]).
pub const CARD_HOLDERS: usize = 6;

/// How many of an incident's `total` holders the card lists open: all of
/// them up to [`CARD_HOLDERS`] + 2 (a fold for one or two would cost the
/// line it saves), else [`CARD_HOLDERS`], the rest under a fold.
pub fn card_holders_shown(total: usize) -> usize {
    if total <= CARD_HOLDERS + 2 {
        total
    } else {
        CARD_HOLDERS
    }
}

/// The incident card, first thing under Details. Its first lines are what
/// a reader needs at a glance (what, key, how long, oversold, loss: no
/// scrolling at 1366x768 whatever the number of holders), then the
/// holders by their one name (hover shows and a click copies the id; past
/// [`card_holders_shown`] under a fold), the orders and why.
fn card_ui(ui: &mut Ui, context: &mut PanelContext<'_>, s: &Session, inc: &Incident) {
    let lang = context.lang();
    let weak = |ui: &mut Ui, k: &'static str| {
        ui.label(RichText::new(tr(lang, k)).weak());
    };
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(inc.label()).strong().size(16.0));
            weak(ui, "card_cause");
            ui.label(
                RichText::new(term(lang, inc.cause.as_str()))
                    .color(ALERT)
                    .strong(),
            );
        });
        let key = s.log.strings.get(inc.key);
        ui.horizontal(|ui| {
            weak(ui, "card_key");
            ui.add(egui::Label::new(RichText::new(key).monospace()).truncate())
                .on_hover_text(key);
        });
        ui.horizontal_wrapped(|ui| {
            weak(ui, "card_overlap");
            ui.label(RichText::new(format_overlap_ms(inc.duration_ms())).strong());
            ui.add_space(6.0);
            weak(ui, "card_oversold");
            let units =
                RichText::new(crate::report::oversold_count(inc.oversold_units, inc.loss)).strong();
            ui.label(if inc.oversold_units > 0 {
                units.color(ALERT)
            } else {
                units
            });
            ui.add_space(6.0);
            weak(ui, "card_loss");
            super::money::loss_label(ui, context, inc.loss);
        });
        if inc.loss == crate::money::Loss::Unknown {
            super::money::ask_unit_loss_ui(ui, context);
        }
        ui.horizontal_wrapped(|ui| {
            if ui.button(tr(lang, "zoom_incident")).clicked() {
                context.send(Command::ZoomToSelected);
            }
            card_sales_ui(ui, lang, s, inc);
        });
        card_holders_ui(ui, lang, s, inc);
        egui::Grid::new(("card_why", inc.id))
            .num_columns(2)
            .spacing([8.0, 2.0])
            .show(ui, |ui| why_rows(ui, lang, s, inc));
    });
}

/// The card's sales, counted as the incident's explanation counts them
/// (`report::incident_sales`): those inside the overlap window, then those
/// outside it tied to the incident (hover says how), in its words.
fn card_sales_ui(ui: &mut Ui, lang: Lang, s: &Session, inc: &Incident) {
    let story = crate::report::incident_sales(&s.input(), inc);
    let zh = lang == Lang::Zh;
    ui.label(RichText::new(tr(lang, "card_sales_inside")).weak());
    ui.label(story.inside.counted(zh));
    if story.later.count > 0 {
        ui.add_space(6.0);
        ui.label(RichText::new(tr(lang, "card_sales_tied")).weak())
            .on_hover_text(tr(lang, "card_sales_tied_hint"));
        ui.label(story.later.counted(zh));
    }
}

/// The card's holders, one a line by their one name, the first
/// [`card_holders_shown`] open and the rest under a fold.
fn card_holders_ui(ui: &mut Ui, lang: Lang, s: &Session, inc: &Incident) {
    let a = &s.analysis;
    let shown = card_holders_shown(inc.leases.len());
    let holder = |ui: &mut Ui, l: crate::analysis::LeaseId| {
        let h = a.leases[l].holder;
        let text = RichText::new(s.holder_name(h)).monospace();
        id_label(ui, lang, text, s.log.strings.get(h));
    };
    ui.horizontal(|ui| {
        ui.label(RichText::new(tr(lang, "card_holders")).weak());
        ui.label(RichText::new(format!("({})", inc.leases.len())).weak());
    });
    for &l in &inc.leases[..shown] {
        holder(ui, l);
    }
    let rest = &inc.leases[shown..];
    if !rest.is_empty() {
        egui::CollapsingHeader::new(trf(lang, "more_holders", &[&rest.len().to_string()]))
            .id_salt(("more_holders", inc.id))
            .default_open(false)
            .show(ui, |ui| {
                for &l in rest {
                    holder(ui, l);
                }
            });
    }
}

/// The card's "Why" row: each infrastructure line the incident cites
/// (a failover, a restart, a GC pause), in the report's own sentence
/// (docs/semantics.md §11); none when nothing explains it.
fn why_rows(ui: &mut Ui, lang: Lang, s: &Session, inc: &Incident) {
    let input = s.input();
    let zh = lang == Lang::Zh;
    let sentences: Vec<String> = crate::report::evidence::citations_of(&input, inc)
        .map(|c| crate::report::evidence::sentence(&input, inc, c, zh))
        .collect();
    if sentences.is_empty() {
        return;
    }
    ui.label(RichText::new(tr(lang, "card_why")).weak());
    ui.vertical(|ui| {
        for text in sentences {
            ui.add(egui::Label::new(text).wrap());
        }
    });
    ui.end_row();
}

/// The selected finding: its kind, what it means, what was seen, its key,
/// holder and time, then the source lines of its hold.
fn finding_card_ui(ui: &mut Ui, lang: Lang, s: &Session, i: usize, panel: &mut DetailsPanel) {
    let Some(f) = s.analysis.findings.get(i) else {
        return;
    };
    let input = s.input();
    let name = |sym| s.log.strings.get(sym);
    egui::Frame::group(ui.style()).show(ui, |ui| {
        let (letter, color) = crate::ui::timeline::paint::finding_style(f.kind);
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(letter).color(color).strong().size(16.0));
            ui.label(
                RichText::new(crate::ui::i18n::words(lang, f.kind.as_str()))
                    .strong()
                    .size(16.0),
            );
        });
        egui::Grid::new(("finding_card", i))
            .num_columns(2)
            .spacing([8.0, 2.0])
            .show(ui, |ui| {
                let row = |ui: &mut Ui, k: &'static str, v: String| {
                    ui.label(RichText::new(tr(lang, k)).weak());
                    ui.add(egui::Label::new(v).wrap());
                    ui.end_row();
                };
                let meaning = format!("meaning_{}", f.kind.as_str());
                row(
                    ui,
                    "finding_what",
                    crate::ui::i18n::tr_owned(lang, &meaning),
                );
                row(
                    ui,
                    "finding_seen",
                    crate::ui::i18n::finding_detail(lang, &f.detail),
                );
                row(ui, "card_key", f.key.map_or("—", name).to_string());
                row(ui, "holder", f.holder.map_or("—", name).to_string());
                row(ui, "time", input.time(f.at_ns));
            });
    });
    ui.separator();
    let lines = panel.finding_lines(s, i);
    if lines.is_empty() {
        ui.label(RichText::new(tr(lang, "finding_no_lines")).weak());
    } else {
        source_lines_ui(ui, lang, s, lines);
    }
}

/// One hold of the incident, in a frame.
fn lease_ui(ui: &mut Ui, lang: Lang, input: &ReportInput<'_>, l: &Lease, label: &str) {
    let name = |sym| input.log.strings.get(sym);
    let time = |ns| input.time(ns);
    egui::Frame::group(ui.style()).show(ui, |ui| {
        let holder = name(l.holder);
        let text = RichText::new(label).monospace().strong();
        id_label(ui, lang, text, holder);
        // Rows that wrap to the panel's width (a grid would widen the
        // panel past the window's right edge).
        let row = |ui: &mut Ui, k: &str, v: String| {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(k).weak());
                ui.add(egui::Label::new(v).wrap());
            });
        };
        row(
            ui,
            tr(lang, "host"),
            l.host.map(name).unwrap_or("").to_string(),
        );
        row(
            ui,
            tr(lang, "thread"),
            l.thread.map(name).unwrap_or("").to_string(),
        );
        row(ui, tr(lang, "granted"), time(l.acquired_ns));
        let renewals = l
            .renewals_ns()
            .iter()
            .map(|&r| time(r).get(11..23).unwrap_or("").to_string())
            .collect::<Vec<_>>()
            .join(", ");
        row(
            ui,
            tr(lang, "renewals"),
            format!("{} {}", l.renewals_ns().len(), renewals),
        );
        row(
            ui,
            tr(lang, "lease_ended"),
            format!(
                "{} ({})",
                time(l.lock_end_ns),
                term(lang, &snake_name(&l.lock_end))
            ),
        );
        row(
            ui,
            tr(lang, "believed_until"),
            format!(
                "{} ({})",
                time(l.window_end_ns),
                term(lang, &snake_name(&l.window_end))
            ),
        );
        let ttl = l
            .ttl_ms
            .get()
            .map_or_else(|| "∞".to_string(), |t| format_ms(t as f64));
        row(
            ui,
            tr(lang, "hold_vs_ttl"),
            format!("{} / {}", format_ms(l.hold_ms()), ttl),
        );
        if l.inferred {
            ui.label(RichText::new(tr(lang, "inferred")).italics());
        }
    });
}

/// The incident's orders, one wrapped row each: order, holder, time,
/// whether it was outside the window (tied to the incident), units over
/// (a grid would widen the panel past the window).
fn orders_ui(ui: &mut Ui, lang: Lang, s: &Session, inc: &Incident) {
    let input = s.input();
    let name = |sym| s.log.strings.get(sym);
    ui.label(RichText::new(tr(lang, "orders")).strong());
    for &si in &inc.sales {
        let sale = &s.analysis.sales[si];
        let t = input.time(sale.at_ns);
        ui.horizontal_wrapped(|ui| {
            let order = sale.order_id.map(name).unwrap_or("—");
            id_label(ui, lang, RichText::new(short_id(order)).monospace(), order);
            let holder = sale.holder.map(name).unwrap_or("—");
            let label = sale.holder.map_or("—", |h| s.holder_name(h));
            id_label(ui, lang, RichText::new(label).weak(), holder);
            ui.label(t.get(11..23).unwrap_or(&t).to_string());
            if !(inc.start_ns..=inc.end_ns).contains(&sale.at_ns) {
                ui.label(RichText::new(tr(lang, "sale_outside_window")).weak())
                    .on_hover_text(tr(lang, "card_sales_tied_hint"));
            }
            let over = format!("{} {}", tr(lang, "units_over"), sale.oversold_units);
            if sale.oversold_units > 0 {
                ui.label(RichText::new(over).color(ALERT).strong());
            } else {
                ui.label(RichText::new(over).weak());
            }
        });
    }
}

/// Most source lines read for one incident.
const MAX_SOURCE_LINES: usize = 200;

/// One source line of an incident: where it is, when, and its raw text
/// when the file can be read again (plain text files only).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceLine {
    /// File and line.
    pub at: SourceRef,
    /// Time of its event, ns.
    pub at_ns: i64,
    /// The line as written in the file.
    pub text: Option<String>,
}

/// The source lines of the incident shown, read once per incident.
#[derive(Debug, Default)]
pub struct DetailsPanel {
    /// The incident the lines are of, and the lines.
    lines: Option<(IncidentId, Vec<SourceLine>)>,
    /// The finding the lines are of, and the lines of its hold.
    finding_lines: Option<(usize, Vec<SourceLine>)>,
}

impl DetailsPanel {
    /// The details panel.
    pub fn ui(&mut self, ui: &mut Ui, context: &mut PanelContext<'_>) {
        details_ui(ui, context, self);
    }

    /// The source lines of `inc`, read when the incident changed.
    fn lines_of(&mut self, s: &Session, inc: &Incident) -> &[SourceLine] {
        if self.lines.as_ref().is_none_or(|(id, _)| *id != inc.id) {
            let refs = incident_source_refs(&s.log, &s.analysis, inc);
            let lines = read_source_lines(s, &refs);
            self.lines = Some((inc.id, lines));
        }
        self.lines.as_ref().map_or(&[], |(_, l)| l.as_slice())
    }

    /// The source lines of finding `i`: its hold's, and those logged at
    /// its time on its key; read when the finding changed.
    fn finding_lines(&mut self, s: &Session, i: usize) -> &[SourceLine] {
        if self.finding_lines.as_ref().is_none_or(|(f, _)| *f != i) {
            let a = &s.analysis;
            let f = a.findings.get(i);
            let mut refs: Vec<SourceRef> = f
                .and_then(|f| f.lease)
                .and_then(|l| a.leases.get(l.index()))
                .map(|l| a.sources_of(&s.log, l).collect())
                .unwrap_or_default();
            // The lines logged at the finding's own time on its key (a
            // fencing violation's business write has no hold).
            if let Some(f) = f {
                let first = s.log.events.partition_point(|e| e.at_ns < f.at_ns);
                let same = s.log.events[first..]
                    .iter()
                    .take_while(|e| e.at_ns == f.at_ns)
                    .filter(|e| e.key == f.key && f.holder.is_none_or(|h| e.holder == Some(h)));
                refs.extend(same.map(|e| e.source));
            }
            refs.sort_unstable();
            refs.dedup();
            self.finding_lines = Some((i, read_source_lines(s, &refs)));
        }
        self.finding_lines
            .as_ref()
            .map_or(&[], |(_, l)| l.as_slice())
    }
}

/// `refs` (sorted by file and line, each once) with the time of their event
/// and their raw text, sorted by time; at most [`MAX_SOURCE_LINES`].
fn read_source_lines(s: &Session, refs: &[SourceRef]) -> Vec<SourceLine> {
    let refs = &refs[..refs.len().min(MAX_SOURCE_LINES)];
    let wanted: std::collections::HashSet<SourceRef> = refs.iter().copied().collect();
    let mut time_of = std::collections::HashMap::new();
    for e in &s.log.events {
        if wanted.contains(&e.source) {
            time_of.entry(e.source).or_insert(e.at_ns);
        }
    }
    let mut out: Vec<SourceLine> = refs
        .iter()
        .map(|&at| SourceLine {
            at,
            at_ns: time_of.get(&at).copied().unwrap_or(i64::MAX),
            text: None,
        })
        .collect();
    // A source's name is its path as given on the command line or in the
    // open dialog; the embedded sample's bytes are in the binary.
    let sample = matches!(s.source, Source::Sample);
    for (fi, src) in s.log.sources.iter().enumerate() {
        let mut need: Vec<u32> = refs
            .iter()
            .filter(|r| usize::from(r.file) == fi)
            .map(|r| r.line)
            .collect();
        if need.is_empty() {
            continue;
        }
        need.sort_unstable();
        let texts = if sample {
            lines_of_text(SAMPLE_BYTES.to_vec(), &need)
        } else {
            read_lines(std::path::Path::new(&src.name), &need, &src.encoding)
        };
        for l in out.iter_mut().filter(|l| usize::from(l.at.file) == fi) {
            l.text = texts.get(&l.at.line).cloned();
        }
    }
    out.sort_by_key(|l| (l.at_ns, l.at));
    out
}

/// Lines `need` (1-based, sorted) of the file at `path` as the ingest read
/// it: a plain UTF-8 file is read up to the last line needed; any other
/// (gzip, zstd, UTF-16, GB18030, as `encoding` was detected when loading)
/// is decompressed and decoded whole by [`crate::ingest::source_text`], so
/// its line numbers are the ingest's. None for an unreadable file.
pub fn read_lines(
    path: &std::path::Path,
    need: &[u32],
    encoding: &str,
) -> std::collections::HashMap<u32, String> {
    use std::io::{BufRead, Read};
    let mut out = std::collections::HashMap::new();
    let Some(&last) = need.last() else { return out };
    let Ok(file) = std::fs::File::open(path) else {
        return out;
    };
    let mut reader = std::io::BufReader::new(file);
    let plain = encoding.eq_ignore_ascii_case("UTF-8")
        && reader
            .fill_buf()
            .is_ok_and(|head| !crate::ingest::looks_compressed(head));
    if !plain {
        let mut raw = Vec::new();
        if reader.read_to_end(&mut raw).is_err() {
            return out;
        }
        return lines_of_text(raw, need);
    }
    let mut buf = Vec::new();
    let mut n = 0u32;
    let mut next = need.iter().peekable();
    while n < last {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => n += 1,
        }
        while next.peek().is_some_and(|&&w| w < n) {
            next.next();
        }
        if next.peek().is_some_and(|&&w| w == n) {
            let text = String::from_utf8_lossy(&buf);
            let text = text.trim_start_matches('\u{feff}');
            out.insert(n, text.trim_end_matches(['\r', '\n']).to_string());
        }
    }
    out
}

/// Lines `need` (1-based, sorted) of a source's `raw` bytes, decompressed
/// and decoded as the ingest does.
fn lines_of_text(raw: Vec<u8>, need: &[u32]) -> std::collections::HashMap<u32, String> {
    let Ok(text) = crate::ingest::source_text(raw) else {
        return std::collections::HashMap::new();
    };
    let mut next = need.iter().peekable();
    let mut out = std::collections::HashMap::new();
    for (i, line) in text.split('\n').enumerate() {
        let n = i as u32 + 1;
        while next.peek().is_some_and(|&&w| w < n) {
            next.next();
        }
        match next.peek() {
            None => break,
            Some(&&w) if w == n => {
                out.insert(n, line.trim_end_matches('\r').to_string());
            }
            Some(_) => {}
        }
    }
    out
}

/// The incident's source lines by time, each once: `file:line` and the
/// raw log line under it; a click copies both.
fn source_lines_ui(ui: &mut Ui, lang: Lang, s: &Session, lines: &[SourceLine]) {
    ui.label(RichText::new(tr(lang, "source_lines")).strong());
    for l in lines {
        let path = s.log.source_name(l.at);
        let short = std::path::Path::new(path)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(path);
        let place = format!("{short}:{}", l.at.line);
        let text = l.text.as_deref().unwrap_or("");
        let r = ui
            .add(
                egui::Label::new(RichText::new(&place).monospace().weak())
                    .wrap()
                    .sense(egui::Sense::click()),
            )
            .on_hover_text(format!(
                "{path}:{}\n{}",
                l.at.line,
                tr(lang, "click_to_copy")
            ));
        let r2 = ui.add(
            egui::Label::new(RichText::new(text).monospace().size(11.0))
                .wrap()
                .sense(egui::Sense::click()),
        );
        if r.clicked() || r2.clicked() {
            ui.ctx().copy_text(format!("{path}:{} {text}", l.at.line));
        }
    }
}

/// The source lines of `inc`'s holds, sorted, each once.
pub fn incident_source_refs(log: &LoadedLog, a: &Analysis, inc: &Incident) -> Vec<SourceRef> {
    let mut refs: Vec<SourceRef> = inc
        .leases
        .iter()
        .filter_map(|&li| a.leases.get(li.index()))
        .flat_map(|l| a.sources_of(log, l))
        .collect();
    refs.sort_unstable();
    refs.dedup();
    refs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_lines_gives_the_lines_asked_and_no_more() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("a.log");
        std::fs::write(&path, "one\r\ntwo\nthree\nfour").expect("write");
        let got = read_lines(&path, &[2, 4, 9], "UTF-8");
        assert_eq!(got.get(&2).map(String::as_str), Some("two"));
        assert_eq!(got.get(&4).map(String::as_str), Some("four"));
        assert_eq!(got.len(), 2);
        assert!(read_lines(&dir.path().join("missing.log"), &[1], "UTF-8").is_empty());
    }

    #[test]
    fn a_gzip_file_s_lines_are_read_through_the_ingest_s_decoding() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("temp dir");
        // Named without .gz: the content says it is gzip, as for the ingest.
        let path = dir.path().join("app.log");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"first\n{\"event\":\"acquired\"}\r\nthird\n")
            .expect("gzip");
        std::fs::write(&path, gz.finish().expect("gzip")).expect("write");
        let got = read_lines(&path, &[2, 3], "UTF-8");
        assert_eq!(
            got.get(&2).map(String::as_str),
            Some("{\"event\":\"acquired\"}")
        );
        assert_eq!(got.get(&3).map(String::as_str), Some("third"));
    }

    #[test]
    fn a_gb18030_file_s_lines_are_decoded_line_by_line_as_the_ingest_did() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("export.csv");
        // A GB18030 line ("超卖"), then a line already in UTF-8 ("库存"),
        // as a console export mixing both may be: the ingest decodes each
        // line in its own encoding, and so must the lines shown.
        let gb = "锁已过期，库存扣减，订单超卖";
        let mut bytes = b"h\r\n".to_vec();
        bytes.extend_from_slice(&encoding_rs::GB18030.encode(gb).0);
        bytes.extend_from_slice("\r\n库存\r\n".as_bytes());
        std::fs::write(&path, &bytes).expect("write");
        let got = read_lines(&path, &[2, 3], "GB18030");
        assert_eq!(got.get(&2).map(String::as_str), Some(gb));
        assert_eq!(got.get(&3).map(String::as_str), Some("库存"));
        // UTF-16 with its BOM.
        let path = dir.path().join("utf16.log");
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend("a\nb-line\n".encode_utf16().flat_map(u16::to_le_bytes));
        std::fs::write(&path, utf16).expect("write");
        let got = read_lines(&path, &[2], "UTF-16LE");
        assert_eq!(got.get(&2).map(String::as_str), Some("b-line"));
    }
}

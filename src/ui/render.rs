//! Headless pictures: the same [`timeline_ui`] widget drawn offscreen by
//! egui_kittest's wgpu renderer, written as PNG (atomically).

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::i18n::{Lang, tr, trf, words};
use super::stock_plot::{PICTURE_H, ProductStock, StockPlotView, incident_stock, stock_plot_ui};
use super::timeline::layout::{LaneFit, decisive_inset, fit_lanes, thin_arrows};
use super::timeline::paint::{LegendItems, MAX_HANDOFF_ARROWS, Palette, legend};
use super::timeline::{
    AXIS_H, Filters, HEADER_H, LABEL_W, Lane, SwimlaneModel, TimeDisplay, TimelineOptions,
    TimelineView, picture_hidden_lanes, timeline_ui,
};
use crate::analysis::{FindingKind, IncidentId};
use crate::fsio::write_atomic;
use crate::model::Message;
use crate::money::Loss;
use crate::pipeline::{AnalyzedLog, MAX_PICTURE_SIDE, PictureStyle, PictureSubject};
use crate::report::{ReportInput, format_overlap_ms, format_time};

/// Encodes `img` as PNG and writes it atomically, never over `inputs`.
///
/// # Errors
/// Encoding or I/O failures.
pub fn write_png(img: &image::RgbaImage, path: &Path, inputs: &[PathBuf]) -> anyhow::Result<()> {
    let mut bytes = Vec::new();
    img.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )
    .context("cannot encode PNG")?;
    write_atomic(path, &bytes, inputs)
}

/// Height of the title line, points.
pub const TITLE_H: f32 = 30.0;
/// Height of the legend line, points.
const LEGEND_H: f32 = 26.0;
/// Height of the caption line, points.
const CAPTION_H: f32 = 26.0;
/// Room for the panels' separators and margins, points.
const BOTTOM_PAD: f32 = 16.0;

/// The sources' file names, comma-separated (the last path part of each).
fn source_names(r: &ReportInput<'_>) -> String {
    let names: Vec<&str> = r
        .log
        .sources
        .iter()
        .map(|s| {
            Path::new(&s.name)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(&s.name)
        })
        .collect();
    names.join(", ")
}

/// `start → end` in the log's zone; the end without its date when it is
/// the same day.
fn time_range(start_ns: i64, end_ns: i64, offset_s: i32) -> String {
    let (a, b) = (
        format_time(start_ns, offset_s),
        format_time(end_ns, offset_s),
    );
    match (a.get(..10), b.get(..10), b.get(11..23)) {
        (Some(da), Some(db), Some(tb)) if da == db => {
            let zone = a.get(24..).unwrap_or("");
            format!("{} → {tb} {zone}", a.get(..23).unwrap_or(&a))
        }
        _ => format!("{a} → {b}"),
    }
}

/// The picture's title: incident, key, time range (the whole log's,
/// without an incident) and the sources last, where a long list is cut
/// (`…`) rather than the time.
pub fn picture_title(r: &ReportInput<'_>, incident: Option<IncidentId>, lang: Lang) -> String {
    let a = r.analysis;
    let offset = r.log.display_offset_s;
    match incident.and_then(|i| a.incidents.get(i.index())) {
        Some(inc) => format!(
            "{} · {} · {} · {}",
            inc.label(),
            r.log.strings.get(inc.key),
            time_range(inc.start_ns, inc.end_ns, offset),
            source_names(r)
        ),
        None => {
            let (first, last) = a.time_span(r.log).unwrap_or((0, 0));
            format!(
                "{} · {} · {}",
                if a.summary.keys == 1 {
                    tr(lang, "all_keys_one").to_string()
                } else {
                    trf(lang, "all_keys", &[&a.summary.keys.to_string()])
                },
                time_range(first, last, offset),
                source_names(r)
            )
        }
    }
}

/// The picture's caption: the incident's oversold units and loss, cause,
/// holders and overlap; or the log's totals.
pub fn picture_caption(r: &ReportInput<'_>, incident: Option<IncidentId>, lang: Lang) -> String {
    let a = r.analysis;
    let money = |m: crate::money::Loss| m.format(&r.settings.currency);
    let units = |n: i64, loss: Loss| match (lang, loss) {
        (Lang::En, Loss::StockUnknown) => {
            format!("{} units", crate::report::oversold_count(n, loss))
        }
        (Lang::En, _) => crate::report::units(n),
        (Lang::Zh, _) => trf(lang, "units_n", &[&crate::report::oversold_count(n, loss)]),
    };
    match incident.and_then(|i| a.incidents.get(i.index())) {
        Some(inc) => trf(
            lang,
            "caption_incident",
            &[
                &inc.label(),
                &units(inc.oversold_units, inc.loss),
                &money(inc.loss),
                &words(lang, inc.cause.as_str()),
                &inc.leases.len().to_string(),
                &format_overlap_ms(inc.duration_ms()),
            ],
        ),
        None if a.summary.incidents == 1 => trf(
            lang,
            "caption_all_one",
            &[
                &units(a.summary.oversold_units, a.summary.loss),
                &money(a.summary.loss),
            ],
        ),
        None => trf(
            lang,
            "caption_all",
            &[
                &a.summary.incidents.to_string(),
                &units(a.summary.oversold_units, a.summary.loss),
                &money(a.summary.loss),
            ],
        ),
    }
}

/// The title of a picture of `subject`: [`picture_title`], or for a key's
/// overview the sources, the key and the time of its holds.
pub fn subject_title(r: &ReportInput<'_>, subject: PictureSubject, lang: Lang) -> String {
    match subject {
        PictureSubject::Log => picture_title(r, None, lang),
        PictureSubject::Incident(i) => picture_title(r, Some(i), lang),
        PictureSubject::Key(key) => {
            let holds = r.analysis.leases.iter().filter(|l| l.key == key);
            let (first, last) = holds.fold((i64::MAX, i64::MIN), |(a, b), l| {
                (
                    a.min(l.acquired_ns),
                    b.max(l.window_end_ns.max(l.lock_end_ns)),
                )
            });
            let range = if first <= last {
                time_range(first, last, r.log.display_offset_s)
            } else {
                String::new()
            };
            format!("{} · {range} · {}", r.log.strings.get(key), source_names(r))
        }
    }
}

/// The caption of a picture of `subject`: [`picture_caption`], or for a
/// key its incidents, oversold units and loss; when the run is not
/// readable ([`crate::analysis::problems`]) the first problem comes first
/// (at most [`PROBLEM_CHARS`] of it), so a picture pasted alone is no
/// all-clear (a file nothing was read from would otherwise be drawn as
/// "0 incidents · 0 units oversold · ¥0 lost").
pub fn subject_caption(r: &ReportInput<'_>, subject: PictureSubject, lang: Lang) -> String {
    let numbers = subject_numbers(r, subject, lang);
    let problems = crate::analysis::problems(r.log, r.analysis);
    let Some(first) = problems.first() else {
        return numbers;
    };
    let first = first.text(lang == Lang::Zh);
    let mut why: String = first.chars().take(PROBLEM_CHARS).collect();
    if first.chars().count() > PROBLEM_CHARS {
        why.push('…');
    }
    if problems.len() > 1 {
        why.push_str(&format!(" (+{})", problems.len() - 1));
    }
    let head = crate::ui::i18n::problems_heading(&problems, true);
    format!("{} — {why} · {numbers}", tr(lang, head))
}

/// Characters of a problem a picture's caption shows.
pub const PROBLEM_CHARS: usize = 160;

/// [`subject_caption`] of a readable run.
fn subject_numbers(r: &ReportInput<'_>, subject: PictureSubject, lang: Lang) -> String {
    match subject {
        PictureSubject::Log => picture_caption(r, None, lang),
        PictureSubject::Incident(i) => picture_caption(r, Some(i), lang),
        PictureSubject::Key(key) => {
            let incs = r.analysis.incidents.iter().filter(|i| i.key == key);
            let (n, units, loss) = incs.fold((0, 0, crate::money::Loss::default()), |acc, i| {
                (acc.0 + 1, acc.1 + i.oversold_units, acc.2.plus(i.loss))
            });
            let units = match lang {
                Lang::En => crate::report::units(units),
                Lang::Zh => trf(lang, "units_n", &[&units.to_string()]),
            };
            trf(
                lang,
                "caption_key",
                &[
                    r.log.strings.get(key),
                    &n.to_string(),
                    &units,
                    &loss.format(&r.settings.currency),
                ],
            )
        }
    }
}

/// The finding kinds marked in `model`, by name, each once (for the legend).
pub fn finding_kinds(model: &SwimlaneModel) -> Vec<FindingKind> {
    let mut kinds: Vec<FindingKind> = model
        .groups
        .iter()
        .flat_map(|g| {
            g.findings
                .iter()
                .chain(g.lanes.iter().flat_map(|l| l.findings.iter()))
        })
        .map(|m| m.kind)
        .collect();
    kinds.sort_by_key(|k| k.as_str());
    kinds.dedup();
    kinds
}

/// The title, legend and caption around the window's timeline while a
/// screenshot is taken, so that the saved or copied picture says what it
/// shows.
pub fn chrome_ui(
    ui: &mut egui::Ui,
    r: &ReportInput<'_>,
    model: &SwimlaneModel,
    incident: Option<IncidentId>,
    lang: Lang,
) {
    let bar = |ui: &egui::Ui| {
        egui::Frame::new()
            .fill(ui.visuals().panel_fill)
            .inner_margin(egui::Margin::symmetric(8, 4))
    };
    egui::Panel::top("shot_title")
        .exact_size(TITLE_H)
        .frame(bar(ui))
        .show(ui, |ui| {
            let title = egui::RichText::new(picture_title(r, incident, lang))
                .strong()
                .size(15.0);
            ui.add(egui::Label::new(title).truncate());
        });
    egui::Panel::bottom("shot_caption")
        .exact_size(CAPTION_H)
        .frame(bar(ui))
        .show(ui, |ui| {
            let hidden = hidden_text(lang, 0, picture_hidden_lanes(ui.ctx()));
            let caption = picture_caption(r, incident, lang) + &hidden;
            ui.label(caption_text(caption, caption_alarm(r, incident)));
        });
    let kinds = finding_kinds(model);
    egui::Panel::bottom("shot_legend")
        .exact_size(LEGEND_H)
        .frame(bar(ui))
        .show(ui, |ui| {
            let palette = Palette::new(ui.visuals().dark_mode);
            let items = LegendItems::of(model);
            legend(ui.painter(), ui.max_rect(), &palette, (items, &kinds), lang);
        });
}

/// Height of a picture's title, axis, legend, caption and margins, points.
pub(crate) const CHROME_H: f32 = TITLE_H + AXIS_H + BOTTOM_PAD + LEGEND_H + CAPTION_H;

/// The lanes a picture of `model` shows ([`fit_lanes`]) in a picture at
/// most `max_h` points high (itself at most [`MAX_PICTURE_SIDE`]): whole
/// keys, or whole lanes of a key too tall for it, those `wanted` first.
/// Returns the fit and the picture's height, points: as high as what it
/// shows, so it has no scrollbar and no cut row.
pub fn picture_fit(
    model: &SwimlaneModel,
    max_h: f32,
    wanted: impl Fn(&Lane) -> bool,
) -> (LaneFit, f32) {
    let max_h = max_h.min(MAX_PICTURE_SIDE as f32);
    let fit = fit_lanes(model, (max_h - CHROME_H).max(0.0), wanted);
    let height = (CHROME_H + fit.height).min(max_h).ceil();
    (fit, height)
}

/// What a picture leaves out, for its caption: ` · +2 more keys not shown
/// · +460 lanes not shown`; empty when it shows everything.
pub fn hidden_text(lang: Lang, keys: usize, lanes: usize) -> String {
    let mut t = String::new();
    if keys > 0 {
        t.push_str(" · ");
        t.push_str(&trf(lang, "more_keys_below", &[&keys.to_string()]));
    }
    if lanes > 0 {
        t.push_str(" · ");
        t.push_str(&trf(lang, "lanes_not_shown", &[&lanes.to_string()]));
    }
    t
}

/// Draws the timeline of `loaded` (zoomed to `incident` when given) into an
/// image `size.0` pixels wide and at most `size.1` high: a title line
/// (sources, incident, key, time range), the lanes it shows (the
/// incident's key only; without one, the keys with incidents first, as
/// many as fit), a legend and a caption with oversold units and loss.
///
/// # Errors
/// When no wgpu adapter exists or rendering fails.
pub fn render_image(
    loaded: &AnalyzedLog,
    incident: Option<IncidentId>,
    size: (u32, u32),
    dark: bool,
) -> anyhow::Result<image::RgbaImage> {
    let style = PictureStyle {
        size,
        scale: 1.0,
        dark,
        zh: false,
    };
    let subject = incident.map_or(PictureSubject::Log, PictureSubject::Incident);
    render_image_in(loaded, subject, style)
}

/// The wgpu device pictures are drawn with: wgpu on GL first (Mesa's EGL
/// renders without a display and says nothing), else wgpu's own choice
/// (Mesa's Vulkan loader prints `XDG_RUNTIME_DIR is invalid` twice per
/// picture on a machine without a session). `WGPU_BACKEND` set by the user
/// is left to wgpu. Made once per process: a report's
/// pictures share it, each with an egui renderer of its own.
fn picture_device() -> anyhow::Result<eframe::egui_wgpu::RenderState> {
    use egui_kittest::wgpu::{create_render_state, default_wgpu_setup};
    type Made = Result<eframe::egui_wgpu::RenderState, String>;
    static DEVICE: std::sync::OnceLock<Made> = std::sync::OnceLock::new();
    let options = eframe::egui_wgpu::RendererOptions::PREDICTABLE;
    let made = DEVICE.get_or_init(|| {
        if std::env::var_os("WGPU_BACKEND").is_none() {
            let gl_only = || {
                let mut setup = default_wgpu_setup();
                if let eframe::egui_wgpu::WgpuSetup::CreateNew(s) = &mut setup {
                    s.instance_descriptor.backends = eframe::egui_wgpu::wgpu::Backends::GL;
                }
                create_render_state(setup, options)
            };
            if let Ok(r) = std::panic::catch_unwind(gl_only) {
                return Ok(r);
            }
        }
        std::panic::catch_unwind(|| create_render_state(default_wgpu_setup(), options))
            .map_err(|_| "no wgpu adapter: cannot render pictures on this machine (try Mesa's llvmpipe/lavapipe, or use --no-images)".to_string())
    });
    made.clone().map_err(|e| anyhow::anyhow!(e))
}

/// A renderer for one picture on the shared device ([`picture_device`]).
fn picture_renderer() -> anyhow::Result<egui_kittest::wgpu::WgpuTestRenderer> {
    let mut state = picture_device()?;
    let options = eframe::egui_wgpu::RendererOptions::PREDICTABLE;
    let renderer = eframe::egui_wgpu::Renderer::new(&state.device, state.target_format, options);
    state.renderer = std::sync::Arc::new(eframe::egui::mutex::RwLock::new(renderer));
    Ok(egui_kittest::wgpu::WgpuTestRenderer::from_render_state(
        state,
    ))
}

/// The filters and the lanes wanted first of a picture of `subject`.
fn subject_filters(loaded: &AnalyzedLog, subject: PictureSubject) -> Filters {
    let key = match subject {
        PictureSubject::Log => None,
        PictureSubject::Incident(i) => loaded.analysis.incidents.get(i.index()).map(|inc| inc.key),
        PictureSubject::Key(k) => Some(k),
    };
    match key {
        Some(k) => Filters {
            key: format!("^{}$", regex::escape(loaded.log.strings.get(k))),
            ..Filters::default()
        },
        None => Filters::default(),
    }
}

/// Draws the picture of `subject` in `style`: laid out `style.size /
/// style.scale` points wide, at most that high (as high as the lanes it
/// shows), drawn at `style.scale` pixels per point, with its title, legend
/// and caption in `style.zh`'s language.
///
/// # Errors
/// No wgpu adapter, or rendering failures.
pub fn render_image_in(
    loaded: &AnalyzedLog,
    subject: PictureSubject,
    style: PictureStyle,
) -> anyhow::Result<image::RgbaImage> {
    let lang = if style.zh { Lang::Zh } else { Lang::En };
    let incident = match subject {
        PictureSubject::Incident(i) => Some(i),
        _ => None,
    };
    let mut model = SwimlaneModel::build_named(
        &loaded.log,
        &loaded.analysis,
        &subject_filters(loaded, subject),
        loaded.holder_names(),
    );
    let incident_leases = incident
        .and_then(|i| loaded.analysis.incidents.get(i.index()))
        .map(|inc| inc.leases.as_slice());
    let wanted = |lane: &Lane| lane_wanted(lane, incident_leases);
    let scale = style.scale.max(0.1);
    let (width_pt, max_h_pt) = (style.size.0 as f32 / scale, style.size.1 as f32 / scale);
    // The incident's stock under its lanes: its room is kept before the
    // lanes are fitted.
    let (stock, stock_h) = picture_stock(loaded, incident);
    // Few lanes grow into the page's room (as in the window).
    model.fit_lane_height(max_h_pt - CHROME_H - stock_h);
    let (fit, height) = picture_fit(&model, max_h_pt - stock_h, wanted);
    let height = height + stock_h;
    // The decisive pair comes from every lane: those the picture keeps
    // may leave one of the two out.
    let inset = incident.and_then(|id| {
        let view = picture_view(&model, incident);
        inset_of(&model, id, &view, width_pt - LABEL_W, lang)
    });
    model.keep(&fit);
    let view = picture_view(&model, incident);
    // The inset goes under the picture's lanes, within the size asked.
    let height = match &inset {
        Some(i) => (height + i.height).min(max_h_pt.max(height)),
        None => height,
    };
    let input = loaded.input();
    let (title, caption, alarm, caption_h) = picture_words(&input, subject, lang);
    let caption = caption + &arrows_text(&model, &view, incident, lang);
    let height = height + caption_h - CAPTION_H;
    let opts = TimelineOptions {
        time_display: TimeDisplay::LogZone,
        selected: incident,
        selected_pair: None,
        lang,
        cursor_s: None,
        pinned: &[],
        picture: true,
    };
    let hidden = (fit.hidden_groups, fit.hidden_lanes);
    let kinds = finding_kinds(&model);
    let renderer = picture_renderer()?;
    let run = std::panic::AssertUnwindSafe(|| {
        let mut harness = egui_kittest::Harness::builder()
            .with_size(egui::vec2(width_pt, height))
            .with_theme(if style.dark {
                egui::Theme::Dark
            } else {
                egui::Theme::Light
            })
            .with_pixels_per_point(scale)
            .allow_missing_glyphs()
            .with_context_setup(|ctx| {
                super::fonts::setup(ctx, None);
            })
            .renderer(renderer)
            .build_ui(move |ui| {
                let picture = Picture {
                    model: &model,
                    view: &view,
                    opts,
                    title: &title,
                    caption: (caption.as_str(), hidden, alarm),
                    caption_h,
                    kinds: &kinds,
                    inset: inset.as_ref(),
                    stock: (&stock, stock_h),
                };
                picture_ui(ui, &picture);
            });
        harness.run_steps(3);
        harness.render()
    });
    match std::panic::catch_unwind(run) {
        Ok(Ok(img)) => Ok(img),
        Ok(Err(e)) => anyhow::bail!("rendering failed: {e}"),
        Err(p) => anyhow::bail!(
            "drawing the picture failed: {}",
            super::glyphs::panic_text(p.as_ref())
        ),
    }
}

/// Whether a picture too small for every lane keeps `lane`: one of the
/// incident's holds (`incident_leases`), else, in a picture of no
/// incident, a lane with something wrong.
fn lane_wanted(lane: &Lane, incident_leases: Option<&[crate::analysis::LeaseId]>) -> bool {
    match incident_leases {
        Some(leases) => lane.leases.iter().any(|b| leases.contains(&b.lease)),
        None => {
            lane.leases.iter().any(|b| b.anomalous())
                || lane.sales.iter().any(|s| s.oversold_units > 0)
                || !lane.findings.is_empty()
        }
    }
}

/// A second, zoomed timeline under a picture's: the pair of holds whose
/// overlap decides the incident, when it is a hairline on the picture's
/// axis ([`decisive_inset`]).
pub(crate) struct Inset {
    pub(crate) model: SwimlaneModel,
    pub(crate) view: TimelineView,
    pub(crate) label: String,
    /// Its height with its label, points.
    pub(crate) height: f32,
}

/// Height of an inset's label line, points.
const INSET_LABEL_H: f32 = 22.0;

/// The inset of `model` (every lane, before the picture keeps some) for
/// incident `id` seen through `view` on a plot `plot_w` points wide;
/// `None` when the decisive overlap is wide enough.
pub(crate) fn inset_of(
    model: &SwimlaneModel,
    id: IncidentId,
    view: &TimelineView,
    plot_w: f32,
    lang: Lang,
) -> Option<Inset> {
    let px_per_s = f64::from(plot_w) / view.span_s().max(1e-9);
    let (o, (a, b)) = decisive_inset(model, id, px_per_s)?;
    let g = model
        .groups
        .iter()
        .position(|g| g.overlaps.iter().any(|x| x.overlap == o.overlap))?;
    let mut m = model.clone();
    m.groups = vec![m.groups.swap_remove(g)];
    let pair: Vec<usize> = (0..m.groups[0].lanes.len())
        .filter(|&li| {
            let h = &m.groups[0].lanes[li].holder;
            *h == o.holders.0 || *h == o.holders.1
        })
        .collect();
    let lanes = pair.len();
    m.keep(&LaneFit {
        lanes: vec![pair],
        hidden_lanes: 0,
        hidden_groups: 0,
        height: 0.0,
    });
    let label = trf(
        lang,
        "inset_label",
        &[
            &format_overlap_ms((o.end_s - o.start_s) * 1e3),
            &super::timeline::format_at(model, TimeDisplay::LogZone, o.start_s),
            &words(lang, o.cause.as_str()),
        ],
    );
    let lane_h = m.groups[0].lane_h;
    // A few points more than the rows: no scrollbar in the inset.
    let rows = m.groups[0].height().max(HEADER_H + lanes as f32 * lane_h);
    let height = INSET_LABEL_H + AXIS_H + rows + 8.0;
    let view = TimelineView {
        start_s: a,
        end_s: b,
        ..TimelineView::default()
    };
    Some(Inset {
        model: m,
        view,
        label,
        height,
    })
}

/// One picture: title, timeline (and its inset), legend, caption.
struct Picture<'a> {
    model: &'a SwimlaneModel,
    view: &'a TimelineView,
    opts: TimelineOptions<'a>,
    title: &'a str,
    caption: (&'a str, (usize, usize), bool),
    /// The caption's height, points: [`CAPTION_H`] a line.
    caption_h: f32,
    kinds: &'a [FindingKind],
    inset: Option<&'a Inset>,
    /// The incident's stock plot and its height, points (0: none).
    stock: (&'a [ProductStock], f32),
}

/// The stock plot of `incident`'s picture and its height, points (0
/// without an incident, or when no product of it has a stock level).
fn picture_stock(loaded: &AnalyzedLog, incident: Option<IncidentId>) -> (Vec<ProductStock>, f32) {
    let stock = incident
        .map(|id| incident_stock(&loaded.log, &loaded.analysis, id))
        .unwrap_or_default();
    let h = if stock.is_empty() {
        0.0
    } else {
        stock.len() as f32 * PICTURE_H + 8.0
    };
    (stock, h)
}

/// What a picture of `model` shows: all of it, or `incident` zoomed in.
fn picture_view(model: &SwimlaneModel, incident: Option<IncidentId>) -> TimelineView {
    let mut view = TimelineView::default();
    view.fit(model);
    if let Some(id) = incident {
        view.zoom_to_incident(model, id);
        view.scroll_y = 0.0;
    }
    view
}

fn picture_ui(ui: &mut egui::Ui, p: &Picture<'_>) {
    let (caption, (hidden_keys, hidden_lanes), alarm) = p.caption;
    let opts = p.opts;
    // The lanes the picture's height still cuts (counted by the timeline
    // of the previous frame) with those left out before drawing.
    let lanes = hidden_lanes + picture_hidden_lanes(ui.ctx());
    let caption = format!("{caption}{}", hidden_text(opts.lang, hidden_keys, lanes));
    let bar = |ui: &egui::Ui| {
        egui::Frame::new()
            .fill(ui.visuals().panel_fill)
            .inner_margin(egui::Margin::symmetric(8, 4))
    };
    egui::Panel::top("title")
        .exact_size(TITLE_H)
        .frame(bar(ui))
        .show(ui, |ui| {
            ui.add(egui::Label::new(egui::RichText::new(p.title).strong().size(15.0)).truncate());
        });
    egui::Panel::bottom("caption")
        .exact_size(p.caption_h)
        .frame(bar(ui))
        .show(ui, |ui| {
            ui.label(caption_text(caption, alarm));
        });
    egui::Panel::bottom("legend")
        .exact_size(LEGEND_H)
        .frame(bar(ui))
        .show(ui, |ui| {
            let rect = ui.max_rect();
            let palette = Palette::new(ui.visuals().dark_mode);
            let items = LegendItems::of(p.model);
            legend(ui.painter(), rect, &palette, (items, p.kinds), opts.lang);
        });
    if let Some(inset) = p.inset {
        egui::Panel::bottom("inset")
            .exact_size(inset.height)
            .frame(egui::Frame::NONE)
            .show(ui, |ui| {
                egui::Frame::new()
                    .inner_margin(egui::Margin::symmetric(8, 3))
                    .show(ui, |ui| {
                        ui.label(egui::RichText::new(&inset.label).strong());
                    });
                let mut v = inset.view.clone();
                // Not a picture of its own: it leaves the caption's count
                // of lanes not shown to the main timeline.
                let opts = TimelineOptions {
                    picture: false,
                    ..opts
                };
                ui.push_id("inset", |ui| timeline_ui(ui, &inset.model, &mut v, opts));
            });
    }
    egui::CentralPanel::default()
        .frame(egui::Frame::NONE)
        .show(ui, |ui| lanes_ui(ui, p));
}

/// The picture's lanes, and under them, on their time axis, the
/// incident's stock in the room the lanes were fitted without.
fn lanes_ui(ui: &mut egui::Ui, p: &Picture<'_>) {
    let mut v = p.view.clone();
    let (stock, stock_h) = p.stock;
    if stock.is_empty() {
        timeline_ui(ui, p.model, &mut v, p.opts);
        return;
    }
    let whole = ui.max_rect();
    let split = whole.bottom() - stock_h;
    let lanes = egui::Rect::from_min_max(whole.min, egui::pos2(whole.right(), split));
    let below = egui::Rect::from_min_max(egui::pos2(whole.left(), split), whole.max);
    ui.painter()
        .rect_filled(below, 0.0, ui.visuals().panel_fill);
    ui.scope_builder(egui::UiBuilder::new().max_rect(lanes), |ui| {
        timeline_ui(ui, p.model, &mut v, p.opts);
    });
    let plot = below.shrink2(egui::vec2(0.0, 4.0));
    ui.scope_builder(egui::UiBuilder::new().max_rect(plot), |ui| {
        let view = StockPlotView {
            products: stock,
            model: p.model,
            view: p.view,
            cursor_s: None,
            selected: p.opts.selected,
            time_display: p.opts.time_display,
            lang: p.opts.lang,
            interactive: false,
        };
        stock_plot_ui(ui, view);
    });
}

/// The caption: red when something went wrong, plain on a clean log (a
/// healthy run is not painted as an alarm).
fn caption_text(caption: impl Into<String>, alarm: bool) -> egui::RichText {
    let t = egui::RichText::new(caption).strong();
    if alarm { t.color(ALERT_TEXT) } else { t }
}

/// Whether the picture's caption reports something wrong: an incident, or
/// oversold units.
pub fn caption_alarm(r: &ReportInput<'_>, incident: Option<IncidentId>) -> bool {
    incident.is_some()
        || r.analysis.summary.incidents > 0
        || r.analysis.summary.oversold_units > 0
        || !crate::analysis::problems(r.log, r.analysis).is_empty()
}

/// The caption's colour (the window's red for losses).
const ALERT_TEXT: egui::Color32 = egui::Color32::from_rgb(190, 30, 30);

/// A picture's title, caption, whether the caption is an alarm, and the
/// caption's height, points: one line, three when it says why the run is
/// not readable.
fn picture_words(
    input: &ReportInput<'_>,
    subject: PictureSubject,
    lang: Lang,
) -> (String, String, bool, f32) {
    let incident = match subject {
        PictureSubject::Incident(i) => Some(i),
        _ => None,
    };
    let alarm = match subject {
        PictureSubject::Key(_) => true,
        _ => caption_alarm(input, incident),
    };
    let unreadable = !crate::analysis::problems(input.log, input.analysis).is_empty();
    (
        subject_title(input, subject, lang),
        subject_caption(input, subject, lang),
        alarm,
        if unreadable {
            3.0 * CAPTION_H
        } else {
            CAPTION_H
        },
    )
}

/// What a picture's caption says of the takeover arrows it leaves out
/// (past [`MAX_HANDOFF_ARROWS`] a key, [`thin_arrows`]): ` · 12 of 40
/// takeovers drawn`; empty when it draws them all.
fn arrows_text(
    model: &SwimlaneModel,
    view: &TimelineView,
    selected: Option<IncidentId>,
    lang: Lang,
) -> String {
    let (mut drawn, mut all) = (0, 0);
    for g in &model.groups {
        let arrows: Vec<((), bool)> = g
            .overlaps
            .iter()
            .filter(|o| {
                o.handoff
                    .is_some_and(|h| h.from_s <= view.end_s && h.to_s >= view.start_s)
            })
            .map(|o| ((), o.incident.is_some() && o.incident == selected))
            .collect();
        all += arrows.len();
        drawn += thin_arrows(&arrows, MAX_HANDOFF_ARROWS).len();
    }
    if drawn >= all {
        return String::new();
    }
    format!(
        " · {}",
        trf(
            lang,
            "arrows_drawn",
            &[&drawn.to_string(), &all.to_string()]
        )
    )
}

/// Renders the swimlane of `loaded` to a PNG at `path`: the picture of
/// `subject` ([`render_image_in`]).
///
/// # Errors
/// No wgpu adapter, rendering or write failures.
pub fn render_png(
    loaded: &AnalyzedLog,
    subject: PictureSubject,
    style: PictureStyle,
    path: &Path,
) -> anyhow::Result<()> {
    let img = render_image_in(loaded, subject, style)?;
    write_png(&img, path, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_range_on_one_day_gives_the_date_and_the_zone_once() {
        let t0 = 1_725_192_010_100_000_000; // 2024-09-01 12:00:10.100 UTC
        assert_eq!(
            time_range(t0, t0 + 5_000_000_000, 8 * 3600),
            "2024-09-01 20:00:10.100 → 20:00:15.100 +08:00"
        );
        let next_day = t0 + 86_400_000_000_000;
        assert_eq!(
            time_range(t0, next_day, 0),
            "2024-09-01 12:00:10.100 +00:00 → 2024-09-02 12:00:10.100 +00:00"
        );
    }

    #[test]
    fn a_picture_is_as_high_as_the_whole_lanes_it_shows() {
        let group = |lanes: usize| crate::ui::timeline::LaneGroup {
            key: "k".into(),
            lanes: (0..lanes)
                .map(|_| crate::ui::timeline::Lane {
                    holder: String::new(),
                    label: String::new(),
                    host: Default::default(),
                    thread: Default::default(),
                    leases: Vec::new(),
                    max_len_s: 0.0,
                    sales: Vec::new(),
                    findings: Vec::new(),
                    stalls: Vec::new(),
                })
                .collect(),
            overlaps: Vec::new(),
            loose_sales: Vec::new(),
            incidents: 0,
            findings: Vec::new(),
            server_marks: Vec::new(),
            lane_h: crate::ui::timeline::LANE_H,
            pending: None,
        };
        let mut model = SwimlaneModel {
            groups: vec![group(2), group(3), group(40)],
            ..SwimlaneModel::default()
        };
        // Two small groups fit a 900-point picture, the third does not:
        // the picture is as high as what it shows.
        let (fit, h) = picture_fit(&model, 900.0, |_| false);
        assert_eq!((fit.lanes.len(), fit.hidden_groups), (2, 1));
        let shown = model.groups[0].height() + model.groups[1].height();
        assert_eq!(h, (CHROME_H + shown).ceil());
        // One key of 500 holders in a 900-point picture: whole lanes only,
        // the rest counted, the picture no higher than asked.
        model.groups = vec![group(500)];
        let (fit, h) = picture_fit(&model, 900.0, |_| false);
        assert!(h <= 900.0, "{h}");
        assert_eq!(fit.lanes[0].len() + fit.hidden_lanes, 500);
        assert_eq!(h, (CHROME_H + fit.height).ceil());
        assert_eq!(
            hidden_text(Lang::En, 0, fit.hidden_lanes),
            format!(" · +{} lanes not shown", fit.hidden_lanes)
        );
        assert_eq!(hidden_text(Lang::En, 0, 0), "");
    }
}

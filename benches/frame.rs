//! GUI frame cost: the whole window, headless through
//! egui_kittest, on simulated logs of 10 k and 10 M events (the sizes of
//! `bench/run.sh`; set `LOCKREPLAY_FRAME_SIZES=10000,1000000` for others).
//!
//! For each size it prints:
//! - the frames run while the file loads in the background and the longest
//!   of them (the target: no frame blocked for more than 50 ms);
//! - the CPU time of one frame (layout, painting and tessellation, on the UI
//!   thread) with the timeline at fit-all and zoomed to the first incident:
//!   median and maximum of 30 frames (the target: the 10 M frame at most 2x
//!   the 10 k frame).
//!
//! Logs are generated once by the simulator into `$BENCH_DATA` (default
//! `/tmp/lockreplay-bench`, shared with `bench/run.sh`). Run with
//! `cargo bench --bench frame`. Not a criterion bench: one load of 10 M
//! events takes about a minute, and what matters is the worst frame.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use lockreplay::analysis::IncidentId;
use lockreplay::config::{AnalysisConfig, ReadConfig};
use lockreplay::sim::{SimArgs, run as simulate};
use lockreplay::ui::i18n::Lang;
use lockreplay::ui::session::Source;
use lockreplay::ui::timeline::{
    SwimlaneModel, TimeDisplay, TimelineOptions, TimelineView, timeline_ui,
};
use lockreplay::ui::{App, AppState};

/// Frames measured per view (`LOCKREPLAY_FRAME_COUNT` for more, e.g. to
/// profile them).
fn frames() -> usize {
    std::env::var("LOCKREPLAY_FRAME_COUNT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30)
}

/// Thread CPU time, for a frame's cost without the other threads' load.
fn cpu_now() -> Duration {
    cpu_time::ThreadTime::now().as_duration()
}

/// The timeline alone (no incident table or side panels, whose widget count
/// grows with the number of incidents on screen, not with the log), in a
/// 1200x800 window: median and maximum frame CPU time at fit-all and zoomed
/// to the first incident, ms.
fn timeline_only(model: SwimlaneModel, first_incident: Option<IncidentId>) -> [(f64, f64); 2] {
    let mut view = TimelineView::default();
    view.fit(&model);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1200.0, 800.0))
        .with_context_setup(|ctx| {
            lockreplay::ui::fonts::setup(ctx, None);
        })
        .build_ui_state(
            |ui, (model, view): &mut (SwimlaneModel, TimelineView)| {
                let opts = TimelineOptions {
                    time_display: TimeDisplay::LogZone,
                    selected: None,
                    selected_pair: None,
                    lang: Lang::En,
                    cursor_s: None,
                    pinned: &[],
                    picture: false,
                };
                egui::CentralPanel::default().show(ui, |ui| {
                    timeline_ui(ui, model, view, opts);
                });
            },
            (model, view),
        );
    let fit = median_max((0..frames()).map(|_| frame(&mut h)).collect());
    if let Some(id) = first_incident {
        let (model, view) = h.state_mut();
        view.zoom_to_incident(model, id);
    }
    let zoomed = median_max((0..frames()).map(|_| frame(&mut h)).collect());
    [fit, zoomed]
}

/// One frame: egui's pass over the whole window, then tessellation of what it
/// painted (what a real backend does next on the UI thread).
fn frame<S>(h: &mut Harness<'_, S>) -> Duration {
    let t0 = cpu_now();
    h.step();
    let out = h.output();
    let prims = h.ctx.tessellate(out.shapes.clone(), out.pixels_per_point);
    std::hint::black_box(prims.len());
    cpu_now() - t0
}

fn median_max(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (ms(v[v.len() / 2]), ms(*v.last().unwrap_or(&Duration::ZERO)))
}

fn log_for(n: u64) -> PathBuf {
    let dir = PathBuf::from(
        std::env::var("BENCH_DATA").unwrap_or_else(|_| "/tmp/lockreplay-bench".into()),
    );
    let path = dir.join(format!("events-{n}.jsonl"));
    if !path.exists() {
        std::fs::create_dir_all(&dir).expect("bench data dir");
        let args = SimArgs {
            events: Some(n),
            out: Some(path.clone()),
            ..SimArgs::default()
        };
        simulate(&args).expect("simulated log");
    }
    path
}

fn main() {
    let sizes: Vec<u64> = std::env::var("LOCKREPLAY_FRAME_SIZES")
        .unwrap_or_else(|_| "10000,10000000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    println!(
        "| events | load s | frames during load | longest frame during load ms | window fit-all ms (median / max) | window zoomed ms | timeline only, fit-all ms | timeline only, zoomed ms |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in sizes {
        let path = log_for(n);
        let app = App::new(
            AppState::default(),
            ReadConfig::default(),
            AnalysisConfig::default(),
        );
        let mut h = Harness::builder()
            .with_size(egui::vec2(1600.0, 1000.0))
            .build_ui_state(|ui, app: &mut App| app.ui(ui), app);
        h.step();
        let ctx = h.ctx.clone();
        let t0 = Instant::now();
        h.state_mut().start_load(&ctx, Source::Files(vec![path]));
        // The window keeps drawing (progress bar) while the worker loads; a
        // real window repaints on the worker's requests, here every 10 ms.
        let mut load_frames = Vec::new();
        while h.state().is_loading() {
            load_frames.push(frame(&mut h));
            std::thread::sleep(Duration::from_millis(10));
        }
        // The frame that installs the result.
        load_frames.push(frame(&mut h));
        let load_s = t0.elapsed().as_secs_f64();
        assert!(
            h.state().session.is_some(),
            "load failed: {:?}",
            h.state().error
        );
        let frames_during_load = load_frames.len();
        let (_, longest) = median_max(load_frames);

        let fit: Vec<_> = (0..frames()).map(|_| frame(&mut h)).collect();
        let app = h.state_mut();
        if let Some(inc) = app
            .session
            .as_ref()
            .and_then(|s| s.analysis.incidents.first())
        {
            let id = inc.id;
            app.state.view.zoom_to_incident(&app.model, id);
        }
        let zoomed: Vec<_> = (0..frames()).map(|_| frame(&mut h)).collect();
        let (fit_med, fit_max) = median_max(fit);
        let (zoom_med, zoom_max) = median_max(zoomed);
        let app = h.state_mut();
        let first = app
            .session
            .as_ref()
            .and_then(|s| s.analysis.incidents.first())
            .map(|i| i.id);
        let [(tf_med, tf_max), (tz_med, tz_max)] =
            timeline_only(std::mem::take(&mut app.model), first);
        println!(
            "| {n} | {load_s:.1} | {frames_during_load} | {longest:.1} | {fit_med:.2} / {fit_max:.2} | {zoom_med:.2} / {zoom_max:.2} | {tf_med:.2} / {tf_max:.2} | {tz_med:.2} / {tz_max:.2} |"
        );
    }
}

//! Window tests with egui_kittest: the summary, clicking an incident, and
//! a settings change, on the embedded sample; plus one image snapshot of the
//! timeline drawn by wgpu.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use super::app::{App, AppState};
use super::i18n::Lang;
use super::loader::{SAMPLE_BYTES, SAMPLE_NAME, Source};
use crate::analysis::{Settings, analyze};
use crate::cli::{AnalysisArgs, Loaded};
use crate::ingest::{IngestOptions, Progress, read_source};
use crate::model::LogBuilder;
use crate::report::format_money;

fn sample_loaded(unit_loss: f64) -> Loaded {
    let mut b = LogBuilder::new();
    read_source(
        SAMPLE_NAME,
        SAMPLE_BYTES,
        &IngestOptions::default(),
        &mut b,
        &Progress::default(),
    )
    .expect("sample loads");
    let log = b.finish();
    let settings = Settings {
        unit_loss,
        ..Settings::default()
    };
    let analysis = analyze(&log, &settings);
    Loaded {
        log,
        settings,
        analysis,
    }
}

fn sample_app() -> App {
    let state = AppState {
        lang: Lang::En,
        settings: Settings {
            unit_loss: 200.0,
            ..Settings::default()
        },
        ..AppState::default()
    };
    let mut app = App::new(state, AnalysisArgs::default());
    app.load_blocking(Source::Sample);
    app
}

fn harness(app: App) -> Harness<'static, App> {
    Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(|ui, app: &mut App| app.ui(ui), app)
}

#[test]
fn summary_shows_oversold_units_and_loss() {
    let loaded = sample_loaded(200.0);
    let sum = &loaded.analysis.summary;
    // The seed incident's numbers (sample-logs/README.md: 3 units, 600 CNY).
    assert_eq!(sum.oversold_units, 3);
    assert_eq!(sum.loss, 600.0);
    let expected = format!(
        "{} oversold · {}",
        sum.oversold_units,
        format_money(sum.loss, "CNY")
    );
    assert_eq!(expected, "3 oversold · ¥600");
    let mut h = harness(sample_app());
    h.run();
    h.get_by_label(&expected);
}

#[test]
fn clicking_an_incident_shows_both_holders() {
    let loaded = sample_loaded(200.0);
    let inc = &loaded.analysis.incidents[0];
    let o = &loaded.analysis.overlaps[inc.overlaps[0]];
    let holder = |l: usize| loaded.log.strings.get(loaded.analysis.leases[l].holder);
    let (a, b) = (holder(o.earlier), holder(o.later));
    let mut h = harness(sample_app());
    h.run();
    assert!(
        h.query_by_label(a).is_none(),
        "details empty before the click"
    );
    h.get_by_label(&inc.label()).click();
    h.run();
    assert_eq!(h.state().selection.incident, Some(inc.id));
    assert!(h.get_all_by_label(a).next().is_some(), "details name {a}");
    assert!(h.get_all_by_label(b).next().is_some(), "details name {b}");
}

#[test]
fn unit_loss_setting_reanalyses_at_once() {
    let mut app = sample_app();
    app.open_settings();
    let mut h = harness(app);
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::SpinButton, "Unit loss")
        .set_value_accesskit(300.0);
    h.run();
    let expected = sample_loaded(300.0).analysis.summary.loss;
    assert_eq!(expected, 900.0);
    h.get_by_label("3 oversold · ¥900");
    assert_eq!(h.state().summary_text(), "3 oversold · ¥900");
}

#[test]
fn timeline_snapshot_of_the_first_incident() {
    let loaded = sample_loaded(200.0);
    let img = match super::render::render_image(&loaded, Some(0), (1200, 500), false) {
        Ok(img) => img,
        Err(e) if e.to_string().contains("adapter") => {
            println!("skipped: {e:#}");
            return;
        }
        Err(e) => panic!("render failed: {e:#}"),
    };
    // llvmpipe (GL) and lavapipe (Vulkan) rasterise edges and text slightly
    // differently: allow small per-pixel differences on a few pixels.
    let options = egui_kittest::SnapshotOptions::new()
        .threshold(2.0)
        .max_failed_pixels(2500);
    egui_kittest::image_snapshot_options(&img, "timeline_inc1", &options);
}

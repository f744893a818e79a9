//! Headless pictures: the same [`timeline_ui`] widget drawn offscreen by
//! egui_kittest's wgpu renderer, written as PNG (atomically).

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::i18n::Lang;
use super::timeline::{
    Filters, SwimlaneModel, TimeDisplay, TimelineOptions, TimelineView, timeline_ui,
};
use crate::analysis::IncidentId;
use crate::fsio::write_atomic;
use crate::pipeline::AnalyzedLog;

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

/// Draws the timeline of `loaded` (zoomed to `incident` when given) into an
/// image of `size` pixels.
///
/// # Errors
/// When no wgpu adapter exists or rendering fails.
pub fn render_image(
    loaded: &AnalyzedLog,
    incident: Option<IncidentId>,
    size: (u32, u32),
    dark: bool,
) -> anyhow::Result<image::RgbaImage> {
    let model = SwimlaneModel::build(&loaded.log, &loaded.analysis, &Filters::default());
    let mut view = TimelineView::default();
    view.fit(&model);
    if let Some(id) = incident {
        view.zoom_to_incident(&model, id);
    }
    let opts = TimelineOptions {
        time_display: TimeDisplay::LogZone,
        selected: incident.map(IncidentId::index),
        lang: Lang::En,
        cursor_s: None,
    };
    let renderer = std::panic::catch_unwind(egui_kittest::wgpu::WgpuTestRenderer::new)
        .map_err(|_| anyhow::anyhow!("no wgpu adapter: cannot render pictures on this machine (try Mesa's llvmpipe/lavapipe, or use --no-images)"))?;
    let run = std::panic::AssertUnwindSafe(|| {
        let mut harness = egui_kittest::Harness::builder()
            .with_size(egui::vec2(size.0 as f32, size.1 as f32))
            .with_theme(if dark {
                egui::Theme::Dark
            } else {
                egui::Theme::Light
            })
            .with_pixels_per_point(1.0)
            .with_context_setup(|ctx| {
                super::fonts::setup(ctx, None);
            })
            .renderer(renderer)
            .build_ui(move |ui| {
                egui::CentralPanel::default()
                    .frame(egui::Frame::NONE)
                    .show(ui, |ui| {
                        let mut v = view.clone();
                        timeline_ui(ui, &model, &mut v, opts);
                    });
            });
        harness.run_steps(3);
        harness.render()
    });
    match std::panic::catch_unwind(run) {
        Ok(Ok(img)) => Ok(img),
        Ok(Err(e)) => anyhow::bail!("rendering failed: {e}"),
        Err(_) => anyhow::bail!("the wgpu renderer panicked (no usable adapter?)"),
    }
}

/// Renders the swimlane of `loaded` to a PNG at `path`, zoomed to
/// `incident` when given.
///
/// # Errors
/// No wgpu adapter, rendering or write failures.
pub fn render_png(
    loaded: &AnalyzedLog,
    incident: Option<IncidentId>,
    size: (u32, u32),
    dark: bool,
    path: &Path,
) -> anyhow::Result<()> {
    let img = render_image(loaded, incident, size, dark)?;
    write_png(&img, path, &[])
}

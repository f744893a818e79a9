//! The report folder (`lockreplay report`, and "Export report…" in the
//! window): report.md, incidents.json, incidents.csv, findings.csv and a
//! Chrome trace-event `trace.json` for Perfetto, plus the pictures when a
//! drawer is given. Every file is written atomically and never over an
//! input.

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::{MarkdownImages, ReportInput, chrome_trace, findings_csv, incidents_csv};
use super::{to_json, to_markdown};
use crate::analysis::IncidentId;
use crate::fsio::write_atomic;

/// Draws the picture of one incident (`Some(id)`) or of everything (`None`)
/// into a PNG path. The window layer supplies it; this layer never draws.
pub type PictureFn<'a> = &'a dyn Fn(Option<IncidentId>, &Path) -> anyhow::Result<()>;

/// File name of the overview picture in the folder.
const TIMELINE_PNG: &str = "timeline.png";

/// Writes the report files of `r` into `dir`, never over `inputs`; with
/// `picture`, a PNG per incident and the overview first. A picture that
/// fails is said on stderr and left out of the report.
///
/// # Errors
/// When `dir` cannot be created or a file cannot be written.
pub fn write_report_dir(
    r: &ReportInput<'_>,
    dir: &Path,
    inputs: &[PathBuf],
    picture: Option<PictureFn<'_>>,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut images = MarkdownImages {
        incidents: vec![None; r.analysis.incidents.len()],
        ..MarkdownImages::default()
    };
    if let Some(picture) = picture {
        draw_pictures(r, dir, picture, &mut images);
    }
    // The overview is linked whenever the folder has one.
    if dir.join(TIMELINE_PNG).exists() {
        images.timeline = Some(TIMELINE_PNG.to_string());
    }
    let md = to_markdown(r, &images);
    write_atomic(&dir.join("report.md"), md.as_bytes(), inputs)?;
    write_atomic(&dir.join("incidents.json"), to_json(r).as_bytes(), inputs)?;
    write_atomic(&dir.join("incidents.csv"), &incidents_csv(r)?, inputs)?;
    write_atomic(&dir.join("findings.csv"), &findings_csv(r)?, inputs)?;
    let trace = serde_json::to_vec(&chrome_trace(r)).context("cannot encode trace.json")?;
    write_atomic(&dir.join("trace.json"), &trace, inputs)?;
    super::write_whatif_section(r, dir, inputs)?;
    Ok(())
}

/// Draws each incident's picture (named after its label) and the overview
/// into `dir`, noting in `images` the incident pictures that were made.
fn draw_pictures(
    r: &ReportInput<'_>,
    dir: &Path,
    picture: PictureFn<'_>,
    images: &mut MarkdownImages,
) {
    for inc in &r.analysis.incidents {
        let name = format!("{}.png", inc.label());
        match picture(Some(inc.id), &dir.join(&name)) {
            Ok(()) => {
                if let Some(slot) = images.incidents.get_mut(inc.id.index()) {
                    *slot = Some(name);
                }
            }
            Err(e) => eprintln!("lockreplay: no picture for {}: {e:#}", inc.label()),
        }
    }
    if picture(None, &dir.join(TIMELINE_PNG)).is_err() {
        eprintln!("lockreplay: no overview picture");
    }
}

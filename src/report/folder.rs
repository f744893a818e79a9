//! The report folder (`lockreplay report`, and "Export report…" in the
//! window): report.md, incidents.json, incidents.csv, findings.csv and a
//! Chrome trace-event `trace.json` for Perfetto, plus the pictures when a
//! drawer is given. The folder is written as a whole, never over an input
//! ([`write_report_dir`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::{MarkdownImages, ReportInput, chrome_trace, findings_csv, incidents_csv};
use super::{to_json, to_markdown};
use crate::analysis::IncidentId;
use crate::fsio::{remove_stale_temporaries, temp_prefix, write_atomic};

/// What a picture shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PictureSubject {
    /// Everything: the keys with incidents first, as many as fit.
    Log,
    /// One incident, zoomed to it, with its key's lanes.
    Incident(IncidentId),
    /// One lock key over the whole log: its overview.
    Key(crate::model::Sym),
}

/// Draws the picture of a [`PictureSubject`] into a PNG path. The window
/// layer supplies it; this layer never draws.
pub type PictureFn<'a> = &'a dyn Fn(PictureSubject, &Path) -> anyhow::Result<()>;

/// At most this many per-key overview pictures in a report folder (the keys
/// with the most oversold units, then the most incidents).
pub const MAX_KEY_PICTURES: usize = 20;

/// File name of the overview picture in the folder.
const TIMELINE_PNG: &str = "timeline.png";

/// Writes the report files of `r` into `dir`, never over `inputs`; with
/// `picture`, a PNG per incident and the overview first.
///
/// The folder is written as a whole: every file goes into a
/// temporary folder beside `dir` (`.NAME.lockreplay-PID-XXXX`), which then
/// becomes `dir` by a rename; an existing `dir` that holds only a report's
/// files is replaced the same way (the old one renamed aside, then removed).
/// When `dir` also holds other files (a folder picked in the window), they
/// are kept: the old report's files are removed and the new ones moved in,
/// each by a rename, all complete before the first moves. A failure
/// (a full disk) leaves the old folder as it was and no temporary folder;
/// temporary folders of ours left by a killed run are removed first.
///
/// # Errors
/// When `dir` cannot be created or a file cannot be written (nothing is
/// placed then), or when a picture could not be drawn: the folder is placed
/// without it and the error names each missing picture, so that the command
/// line exits 2.
///
/// `zh`: report.md in Simplified Chinese (`report --lang zh`); the data
/// files (JSON, CSV, trace) keep the report's snake_case names.
pub fn write_report_dir(
    r: &ReportInput<'_>,
    dir: &Path,
    inputs: &[PathBuf],
    picture: Option<PictureFn<'_>>,
    zh: bool,
) -> anyhow::Result<()> {
    let (parent, name) = split_dir(dir)?;
    refuse_inputs_inside(dir, &parent, &name, inputs)?;
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    remove_stale_temporaries(&parent, &name, inputs);
    if dir.exists() && !dir.is_dir() {
        bail!(
            "cannot write the report folder {}: it is a file",
            dir.display()
        );
    }
    if !dir.exists() && dir.symlink_metadata().is_ok() {
        bail!(
            "cannot write the report folder {}: it is a link to nothing ({}); remove it or name another folder",
            dir.display(),
            std::fs::read_link(dir).map_or_else(|_| "?".into(), |t| t.display().to_string())
        );
    }
    let tmp = tempfile::Builder::new()
        .prefix(&temp_prefix(&name))
        .tempdir_in(&parent)
        .with_context(|| format!("cannot write in {}", parent.display()))?;
    let mut missing = Vec::new();
    let names = write_files(r, tmp.path(), picture, zh, &mut missing)?;
    for n in &names {
        crate::fsio::check_output(&dir.join(n), inputs)?;
    }
    place(tmp, dir, &parent, &name, &names)?;
    if !missing.is_empty() {
        let more = match missing.len() {
            n if n > 5 => format!("; and {} more pictures", n - 5),
            _ => String::new(),
        };
        bail!(
            "the report in {} is incomplete: {}{more}",
            dir.display(),
            missing[..missing.len().min(5)].join("; ")
        );
    }
    Ok(())
}

/// Writes every file of the report into `tmp`; returns their names.
fn write_files(
    r: &ReportInput<'_>,
    tmp: &Path,
    picture: Option<PictureFn<'_>>,
    zh: bool,
    missing: &mut Vec<String>,
) -> anyhow::Result<Vec<String>> {
    let mut images = MarkdownImages {
        incidents: vec![None; r.analysis.incidents.len()],
        ..MarkdownImages::default()
    };
    if let Some(picture) = picture {
        draw_pictures(r, tmp, picture, &mut images, missing);
    }
    if tmp.join(TIMELINE_PNG).exists() {
        images.timeline = Some(TIMELINE_PNG.to_string());
    }
    let md = if zh {
        super::to_markdown_zh(r, &images)
    } else {
        to_markdown(r, &images)
    };
    write_atomic(&tmp.join("report.md"), md.as_bytes(), &[])?;
    write_atomic(&tmp.join("incidents.json"), to_json(r).as_bytes(), &[])?;
    write_atomic(&tmp.join("incidents.csv"), &incidents_csv(r)?, &[])?;
    write_atomic(&tmp.join("findings.csv"), &findings_csv(r)?, &[])?;
    let trace = serde_json::to_vec(&chrome_trace(r)).context("cannot encode trace.json")?;
    write_atomic(&tmp.join("trace.json"), &trace, &[])?;
    super::write_whatif_section(r, tmp, &[], zh)?;
    let mut names: Vec<String> = std::fs::read_dir(tmp)
        .with_context(|| format!("cannot read {}", tmp.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}

/// Refuses a report folder that holds an input, or whose temporary
/// folders (`.NAME.lockreplay-...` beside it) would be one: `report --out
/// rep rep/INC-7.png` would move the old folder aside, input included, and
/// delete it. Paths are compared resolved, so a link to
/// the folder or to the input counts as well.
fn refuse_inputs_inside(
    dir: &Path,
    parent: &Path,
    name: &str,
    inputs: &[PathBuf],
) -> anyhow::Result<()> {
    let resolve = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let dir_r = resolve(dir);
    let parent_r = resolve(parent);
    let ours = format!(".{name}.lockreplay-");
    for input in inputs {
        let abs = std::path::absolute(input).unwrap_or_else(|_| input.clone());
        for i in [resolve(input), abs] {
            if i.starts_with(&dir_r) || i.starts_with(parent.join(name)) {
                bail!(
                    "refusing to write the report folder {}: it holds the input {} (name another folder)",
                    dir.display(),
                    input.display()
                );
            }
            let temporary = [&parent_r, &parent.to_path_buf()].iter().any(|p| {
                i.strip_prefix(p)
                    .ok()
                    .and_then(|rest| rest.components().next())
                    .is_some_and(|c| c.as_os_str().to_string_lossy().starts_with(&ours))
            });
            if temporary {
                bail!(
                    "refusing to write the report folder {}: the input {} is named like its temporary folders ({ours}...); rename it or name another folder",
                    dir.display(),
                    input.display()
                );
            }
        }
    }
    Ok(())
}

/// The folder that holds `dir` and `dir`'s own name.
fn split_dir(dir: &Path) -> anyhow::Result<(PathBuf, String)> {
    let abs = std::path::absolute(dir).with_context(|| format!("bad folder {}", dir.display()))?;
    let name = abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .with_context(|| format!("{} names no folder", dir.display()))?;
    let parent = abs
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
    Ok((parent, name))
}

/// Whether a file name is one a report folder of ours holds.
fn is_report_file(name: &str) -> bool {
    matches!(
        name,
        "report.md"
            | "incidents.json"
            | "incidents.csv"
            | "findings.csv"
            | "trace.json"
            | super::WHATIF_MD
    ) || (name.ends_with(".png") && (name == TIMELINE_PNG || name.starts_with("INC-")))
}

/// Moves the finished report in `tmp` to `dir` (see [`write_report_dir`]).
fn place(
    tmp: tempfile::TempDir,
    dir: &Path,
    parent: &Path,
    name: &str,
    names: &[String],
) -> anyhow::Result<()> {
    let cannot = || format!("cannot place the report folder {}", dir.display());
    let existing: Option<Vec<String>> = match std::fs::read_dir(dir) {
        Ok(rd) => Some(
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
        ),
        Err(_) => None,
    };
    match existing {
        None => {
            let kept = tmp.keep();
            if let Err(e) = std::fs::rename(&kept, dir) {
                let _ = std::fs::remove_dir_all(&kept);
                return Err(e).with_context(cannot);
            }
        }
        Some(old) if old.iter().all(|n| is_report_file(n)) => {
            let aside = tempfile::Builder::new()
                .prefix(&temp_prefix(name))
                .tempdir_in(parent)
                .with_context(cannot)?;
            let old_path = aside.path().join("old");
            std::fs::rename(dir, &old_path).with_context(cannot)?;
            let kept = tmp.keep();
            if let Err(e) = std::fs::rename(&kept, dir) {
                let _ = std::fs::rename(&old_path, dir);
                let _ = std::fs::remove_dir_all(&kept);
                return Err(e).with_context(cannot);
            }
            drop(aside);
        }
        Some(old) => {
            for n in old
                .iter()
                .filter(|n| is_report_file(n) && !names.contains(n))
            {
                let _ = std::fs::remove_file(dir.join(n));
            }
            for n in names {
                std::fs::rename(tmp.path().join(n), dir.join(n)).with_context(cannot)?;
            }
        }
    }
    Ok(())
}

/// At most this many incident pictures in a report folder. A picture costs
/// about half a second and 160 KB (1600x900 PNG): a log of 200 000
/// incidents had made 1 112 pictures (177 MB) after 10 minutes when it was
/// stopped, and every count a user's input sets is bounded. The
/// others are drawn on demand with `lockreplay render --incident ID`.
pub const MAX_INCIDENT_PICTURES: usize = 200;

/// The incidents that get a picture: all of them up to
/// [`MAX_INCIDENT_PICTURES`], else that many with the most oversold units,
/// then the longest, then the earliest; returned in report (id) order.
pub fn pictured_incidents(incidents: &[crate::analysis::Incident]) -> Vec<IncidentId> {
    let mut ranked: Vec<&crate::analysis::Incident> = incidents.iter().collect();
    if ranked.len() > MAX_INCIDENT_PICTURES {
        ranked.sort_by(|a, b| {
            b.oversold_units
                .cmp(&a.oversold_units)
                .then((b.end_ns - b.start_ns).cmp(&(a.end_ns - a.start_ns)))
                .then(a.id.cmp(&b.id))
        });
        ranked.truncate(MAX_INCIDENT_PICTURES);
    }
    let mut ids: Vec<IncidentId> = ranked.iter().map(|inc| inc.id).collect();
    ids.sort();
    ids
}

/// Draws the chosen incidents' pictures (each named after its label, see
/// [`pictured_incidents`]) and the overview into `dir`, noting in `images`
/// the incident pictures that were made.
fn draw_pictures(
    r: &ReportInput<'_>,
    dir: &Path,
    picture: PictureFn<'_>,
    images: &mut MarkdownImages,
    missing: &mut Vec<String>,
) {
    let chosen = pictured_incidents(&r.analysis.incidents);
    images.not_pictured = r.analysis.incidents.len() - chosen.len();
    for id in chosen {
        let inc = &r.analysis.incidents[id];
        let name = format!("{}.png", inc.label());
        match picture(PictureSubject::Incident(inc.id), &dir.join(&name)) {
            Ok(()) => {
                if let Some(slot) = images.incidents.get_mut(inc.id.index()) {
                    *slot = Some(name);
                }
            }
            Err(e) => missing.push(format!("no {name} ({e:#})")),
        }
    }
    for (key, name) in key_pictures(r) {
        match picture(PictureSubject::Key(key), &dir.join(&name)) {
            Ok(()) => images.keys.push((r.log.strings.get(key).to_string(), name)),
            Err(e) => missing.push(format!("no {name} ({e:#})")),
        }
    }
    if let Err(e) = picture(PictureSubject::Log, &dir.join(TIMELINE_PNG)) {
        missing.push(format!("no {TIMELINE_PNG} ({e:#})"));
    }
}

/// The keys with incidents that get an overview picture, with its file
/// name (`key-1-product_1001_lock.png`: a number, then the key with every
/// character a file name may not hold as `_`, at most 60 characters): at
/// most [`MAX_KEY_PICTURES`], those with the most oversold units first,
/// then the most incidents, then the first; in that order.
pub fn key_pictures(r: &ReportInput<'_>) -> Vec<(crate::model::Sym, String)> {
    let mut keys: Vec<(crate::model::Sym, i64, usize, IncidentId)> = Vec::new();
    for inc in &r.analysis.incidents {
        match keys.iter_mut().find(|k| k.0 == inc.key) {
            Some(k) => {
                k.1 += inc.oversold_units;
                k.2 += 1;
            }
            None => keys.push((inc.key, inc.oversold_units, 1, inc.id)),
        }
    }
    keys.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.3.cmp(&b.3)));
    keys.truncate(MAX_KEY_PICTURES);
    keys.iter()
        .enumerate()
        .map(|(i, k)| {
            let text: String = r
                .log
                .strings
                .get(k.0)
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(60)
                .collect();
            (k.0, format!("key-{}-{text}.png", i + 1))
        })
        .collect()
}

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

/// How a report folder is written: its language, how many incidents it
/// leads with, the trace's extent, and who hears of each file written.
#[derive(Clone, Copy)]
pub struct FolderOptions<'a> {
    /// report.md and the pictures' words in Simplified Chinese.
    pub zh: bool,
    /// Incidents written out in report.md and drawn, the largest loss
    /// first ([`super::rank::TOP_INCIDENTS`] by default).
    pub top: usize,
    /// trace.json holds every hold of the log, not only the holds in the
    /// incidents' windows.
    pub full_trace: bool,
    /// Told the name of each data file before it is written (progress).
    pub on_file: Option<&'a dyn Fn(&str)>,
    /// The holders' labels the pictures use, for report.md's tables;
    /// `None`: made for report.md alone.
    pub names: Option<&'a super::holders::HolderNames>,
}

impl FolderOptions<'_> {
    /// English, the default top, the incidents' trace, nobody told.
    pub fn new(zh: bool) -> FolderOptions<'static> {
        FolderOptions {
            zh,
            top: super::rank::TOP_INCIDENTS,
            full_trace: false,
            on_file: None,
            names: None,
        }
    }
}

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
/// `opts.zh`: report.md in Simplified Chinese (`report --lang zh`); the
/// data files (JSON, CSV, trace) keep the report's snake_case names.
/// report.md writes out and the pictures show the `opts.top` incidents of
/// the largest loss; incidents.csv and incidents.json list every one.
pub fn write_report_dir(
    r: &ReportInput<'_>,
    dir: &Path,
    inputs: &[PathBuf],
    picture: Option<PictureFn<'_>>,
    opts: &FolderOptions<'_>,
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
    let names = write_files(r, tmp.path(), picture, opts, &mut missing)?;
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
    opts: &FolderOptions<'_>,
    missing: &mut Vec<String>,
) -> anyhow::Result<Vec<String>> {
    let mut images = MarkdownImages {
        incidents: vec![None; r.analysis.incidents.len()],
        top: Some(opts.top),
        names: opts.names,
        ..MarkdownImages::default()
    };
    if let Some(picture) = picture {
        draw_pictures(r, tmp, picture, opts.top, &mut images, missing);
    }
    if tmp.join(TIMELINE_PNG).exists() {
        images.timeline = Some(TIMELINE_PNG.to_string());
    }
    let tell = |name: &str| {
        if let Some(f) = opts.on_file {
            f(name);
        }
    };
    tell("report.md");
    let md = if opts.zh {
        super::to_markdown_zh(r, &images)
    } else {
        to_markdown(r, &images)
    };
    write_atomic(&tmp.join("report.md"), md.as_bytes(), &[])?;
    tell("incidents.json");
    write_atomic(&tmp.join("incidents.json"), to_json(r).as_bytes(), &[])?;
    tell("incidents.csv");
    write_atomic(&tmp.join("incidents.csv"), &incidents_csv(r)?, &[])?;
    write_atomic(&tmp.join("findings.csv"), &findings_csv(r)?, &[])?;
    tell("trace.json");
    let trace = if opts.full_trace {
        chrome_trace(r)
    } else {
        super::incident_trace(r)
    };
    let trace = serde_json::to_vec(&trace).context("cannot encode trace.json")?;
    write_atomic(&tmp.join("trace.json"), &trace, &[])?;
    tell("whatif.md");
    super::write_whatif_section(r, tmp, &[], opts.zh)?;
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

/// At most this many incident pictures in a report folder, whatever
/// `report --top` asks. A picture costs a fraction of a second and 160 KB
/// (1600x900 PNG): a log of 200 000 incidents had made 1 112 pictures
/// (177 MB) after 10 minutes when it was stopped, and every count a user's
/// input sets is bounded. The others are drawn on demand with
/// `lockreplay render --incident ID`.
pub const MAX_INCIDENT_PICTURES: usize = 200;

/// The incidents that get a picture: the `top` (at most
/// [`MAX_INCIDENT_PICTURES`]) of the largest loss
/// ([`super::rank::top_by_loss`]), the ones report.md writes out;
/// returned in report (id) order.
pub fn pictured_incidents(incidents: &[crate::analysis::Incident], top: usize) -> Vec<IncidentId> {
    let mut ids = super::rank::top_by_loss(incidents, top.min(MAX_INCIDENT_PICTURES));
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
    top: usize,
    images: &mut MarkdownImages,
    missing: &mut Vec<String>,
) {
    let chosen = pictured_incidents(&r.analysis.incidents, top);
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
    for (key, name) in key_pictures(r, top) {
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
/// most `top` and [`MAX_KEY_PICTURES`], the largest loss first, then the
/// most incidents, then the first ([`super::rank::by_key`]); in that order.
pub fn key_pictures(r: &ReportInput<'_>, top: usize) -> Vec<(crate::model::Sym, String)> {
    let mut keys = super::rank::by_key(&r.analysis.incidents);
    keys.truncate(MAX_KEY_PICTURES.min(top));
    keys.iter()
        .enumerate()
        .map(|(i, k)| {
            let text: String = r
                .log
                .strings
                .get(k.of)
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
            (k.of, format!("key-{}-{text}.png", i + 1))
        })
        .collect()
}

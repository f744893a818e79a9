//! `lockreplay inspect`: how each file was read, field by field: the container
//! and layout, the readers' bids, every field with the role it plays, how sure
//! the choice is and sample values, the events each kind gave, and a ready
//! mapping file (`--write-mapping`) that pins the choices for the next read or
//! for `lockreplay sql`/`fetch`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::config::{AnalysisConfig, ReadConfig};
use crate::model::{EventKind, LoadedLog, SourceInfo, SourceNote};

pub mod suggest;
pub mod templates;

/// How sure the choice of a field for a role is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Confidence {
    /// The only candidate, chosen by its name and values.
    Sure,
    /// Chosen among several (a guess, shown as one): the others, in order.
    Guess(Vec<String>),
    /// A TTL chosen by its name alone.
    ByName,
    /// Event names taken from the message text (no event field).
    FromMessage,
    /// Named by the mapping file.
    Mapped,
    /// Chosen by its values, no name of it known (a guess).
    ByValue,
}

impl Confidence {
    fn text(&self) -> String {
        match self {
            Confidence::Sure => "sure".into(),
            Confidence::Guess(others) => format!("guess (also: {})", others.join(", ")),
            Confidence::ByName => "by name only".into(),
            Confidence::FromMessage => "from the message text".into(),
            Confidence::Mapped => "mapping file".into(),
            Confidence::ByValue => "guess (by its values)".into(),
        }
    }
}

/// One field of a file and what it plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldRow {
    /// The field's name (dotted path for nested JSON).
    pub field: String,
    /// The role (`time`, `key`, `ttl_s`...), none when it plays none.
    pub role: Option<String>,
    /// How sure the choice is (with a role).
    pub confidence: Option<Confidence>,
    /// Up to three sample values, as read.
    pub samples: Vec<String>,
}

/// The field rows of source `file` of `log`: chosen roles first, then
/// the fields seen that play none.
pub fn field_rows(log: &LoadedLog, file: usize, mapped: bool) -> Vec<FieldRow> {
    let info = &log.sources[file];
    let mut rows: Vec<FieldRow> = info
        .fields
        .iter()
        .map(|(role, field)| FieldRow {
            field: field.clone(),
            role: Some(role.clone()),
            confidence: Some(confidence(info, role, field, mapped)),
            samples: samples(log, file, role),
        })
        .collect();
    for f in &info.fields_seen {
        if !rows.iter().any(|r| &r.field == f) {
            rows.push(FieldRow {
                field: f.clone(),
                role: None,
                confidence: None,
                samples: Vec::new(),
            });
        }
    }
    rows
}

fn confidence(info: &SourceInfo, role: &str, field: &str, mapped: bool) -> Confidence {
    if mapped {
        return Confidence::Mapped;
    }
    for n in &info.notes {
        match n {
            SourceNote::AlsoPresent {
                role: r, others, ..
            } if r == role || (matches!(role, "ttl_s" | "ttl_ns") && r == "ttl") => {
                return Confidence::Guess(others.clone());
            }
            SourceNote::TtlByName { field: f, .. } if f == field && role.starts_with("ttl") => {
                return Confidence::ByName;
            }
            SourceNote::TtlSecondsByValue { field: f, .. }
            | SourceNote::TtlNanosByValue { field: f, .. }
                if f == field && role.starts_with("ttl") =>
            {
                return Confidence::ByValue;
            }
            SourceNote::EventFromMessage if role == "event" => return Confidence::FromMessage,
            SourceNote::ByValue { role: r, field: f } if r == role && f == field => {
                return Confidence::ByValue;
            }
            _ => {}
        }
    }
    Confidence::Sure
}

/// Up to three distinct values the events of `file` carry for `role`.
fn samples(log: &LoadedLog, file: usize, role: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in log
        .events
        .iter()
        .filter(|e| usize::from(e.source.file) == file)
    {
        let v = match role {
            "time" => Some(crate::report::format_rfc3339(e.at_ns, log.display_offset_s)),
            "key" => e.key.map(|s| log.strings.get(s).to_string()),
            "holder" => e.holder.map(|s| log.strings.get(s).to_string()),
            "host" => e.host.map(|s| log.strings.get(s).to_string()),
            "thread" => e.thread.map(|s| log.strings.get(s).to_string()),
            "ttl" | "ttl_s" | "ttl_ns" => e.ttl_ms().map(|ms| format!("{ms} ms")),
            "event" => Some(e.kind.as_str().to_string()),
            _ => detail_sample(log, &e.detail(), role),
        };
        if let Some(v) = v
            && !out.contains(&v)
        {
            out.push(v);
            if out.len() == 3 {
                break;
            }
        }
    }
    out
}

/// A business or release field's value in an event's detail.
fn detail_sample(log: &LoadedLog, d: &crate::model::Detail, role: &str) -> Option<String> {
    let sym = |s: Option<crate::model::Sym>| s.map(|s| log.strings.get(s).to_string());
    match role {
        "product" => sym(d.product),
        "order_id" => sym(d.order_id),
        "message" => sym(d.message),
        "quantity" => d.quantity.map(|v| v.to_string()),
        "stock" => d.stock.map(|v| v.to_string()),
        "stock_before" => d.stock_before.map(|v| v.to_string()),
        "stock_after" => d.stock_after.map(|v| v.to_string()),
        "unit_price" => d.unit_price.map(|v| v.to_string()),
        "fencing_token" => d.fencing_token.map(|v| v.to_string()),
        "elapsed_ms" => d.elapsed_ms.map(|v| format!("{v} ms")),
        "deleted" => d.deleted.map(|v| v.to_string()),
        _ => None,
    }
}

/// Events of source `file` per kind, most first (then by name).
pub(crate) fn kinds(log: &LoadedLog, file: usize) -> Vec<(EventKind, usize)> {
    let mut counts: BTreeMap<&'static str, (EventKind, usize)> = BTreeMap::new();
    for e in log
        .events
        .iter()
        .filter(|e| usize::from(e.source.file) == file)
    {
        counts.entry(e.kind.as_str()).or_insert((e.kind, 0)).1 += 1;
    }
    let mut v: Vec<_> = counts.into_values().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.as_str().cmp(b.0.as_str())));
    v
}

/// The inspection of every file, as text, with `suggestions[i]`'s lines
/// printed under source `i` ([`suggest::text_suggestions`]) and
/// `tables[i]` after its field table ([`templates::table`]; `None`: the
/// file has no event or message field, or its head could not be read).
pub fn to_text(
    log: &LoadedLog,
    mapped: bool,
    suggestions: &[Vec<String>],
    tables: &[Option<templates::TemplateTable>],
) -> String {
    let mut s = String::new();
    for (i, info) in log.sources.iter().enumerate() {
        let mut container = info.dialect.as_str().to_string();
        if info.gzip {
            container.push_str(", gzip");
        }
        if info.zstd {
            container.push_str(", zstd");
        }
        let _ = writeln!(s, "{}", crate::report::terminal_safe(&info.name));
        let _ = writeln!(s, "  container: {container}; encoding {}", info.encoding);
        if let Some(l) = &info.layout {
            let _ = writeln!(s, "  layout: {}", crate::report::terminal_safe(l));
        }
        if let Some(p) = &info.payload_field {
            let _ = writeln!(s, "  payload field: {}", crate::report::terminal_safe(p));
        }
        if !info.readers.is_empty() {
            let bids: Vec<String> = info
                .readers
                .iter()
                .enumerate()
                .map(|(j, (r, n))| match j {
                    0 => format!("{r} {n} (won)"),
                    1 => format!("{r} {n} (runner-up)"),
                    _ => format!("{r} {n}"),
                })
                .collect();
            let _ = writeln!(s, "  readers' bids (lock evidence): {}", bids.join(", "));
        }
        let _ = writeln!(
            s,
            "  lines: {} read = {} events + {} skipped + {} warned",
            info.lines_read, info.events_loaded, info.lines_skipped, info.lines_warned
        );
        write_plan(&mut s, info);
        write_fields(&mut s, &field_rows(log, i, mapped));
        match tables.get(i).and_then(Option::as_ref) {
            Some(t) => templates::write_table(&mut s, t),
            None => s.push_str("  event templates: none (no event or message field read)\n"),
        }
        let k: Vec<String> = kinds(log, i)
            .iter()
            .map(|(k, n)| format!("{} {n}", k.as_str()))
            .collect();
        let _ = writeln!(
            s,
            "  events: {}",
            if k.is_empty() {
                "none".into()
            } else {
                k.join(", ")
            }
        );
        if let Some(why) = &info.unreadable {
            let _ = writeln!(s, "  unreadable: {}", crate::report::terminal_safe(why));
        }
        for line in suggestions.get(i).into_iter().flatten() {
            let _ = writeln!(s, "  {}", crate::report::terminal_safe(line));
        }
        for n in &info.notes {
            let _ = writeln!(
                s,
                "  note: {}",
                crate::report::terminal_safe(&n.text(false))
            );
        }
        s.push('\n');
    }
    s
}

/// The file's reading plan (`ingest::assembly::plan`), when the parallel
/// path read it: each step, then the time layout learned and the share of
/// lines whose time was read by it.
fn write_plan(s: &mut String, info: &SourceInfo) {
    let Some(plan) = &info.plan else {
        return;
    };
    s.push_str("  reading plan:\n");
    for line in plan.steps.lines() {
        let _ = writeln!(s, "    {}", crate::report::terminal_safe(line));
    }
    match &plan.layout {
        Some(l) => {
            let share = plan.by_layout as f64 * 100.0 / info.lines_read.max(1) as f64;
            let _ = writeln!(
                s,
                "    time: layout {}, read at fixed places within a minute parsed once \
                 ({} of {} lines, {share:.1} %); the rest by the general parser",
                crate::report::terminal_safe(l),
                plan.by_layout,
                info.lines_read
            );
        }
        None => s.push_str("    time: the general parser (no layout learned)\n"),
    }
}

/// The first MiB of the file at `path` as text (cut after its last whole
/// line), `None` when it cannot be read.
fn head_text(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(1 << 20)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() == 1 << 20
        && let Some(end) = memchr::memrchr(b'\n', &bytes)
    {
        bytes.truncate(end + 1);
    }
    crate::ingest::source_text(bytes).ok()
}

/// `text` padded with spaces to `width` terminal columns (a CJK character
/// takes two).
fn pad(text: &str, width: usize) -> String {
    let w = unicode_width::UnicodeWidthStr::width(text);
    format!("{text}{}", " ".repeat(width.saturating_sub(w)))
}

fn write_fields(s: &mut String, rows: &[FieldRow]) {
    let width = |t: &str| unicode_width::UnicodeWidthStr::width(t);
    let w = rows
        .iter()
        .map(|r| width(&r.field))
        .max()
        .unwrap_or(5)
        .clamp(5, 40);
    let _ = writeln!(
        s,
        "  {}  {:<13}  {:<28}  samples",
        pad("field", w),
        "role",
        "confidence"
    );
    for r in rows {
        let role = r.role.clone().unwrap_or_else(|| "-".into());
        let conf = r.confidence.as_ref().map_or("-".into(), Confidence::text);
        let _ = writeln!(
            s,
            "  {}  {role:<13}  {conf:<28}  {}",
            pad(&crate::report::terminal_safe(&r.field), w),
            crate::report::terminal_safe(&r.samples.join(" | "))
        );
    }
}

/// A mapping file (TOML) pinning the roles chosen for `info`; `None` when
/// it has none. Event names from the message text are written as the
/// `message` role (the reader then finds the verbs in it again).
pub fn mapping_toml(info: &SourceInfo) -> Option<String> {
    if info.fields.is_empty() {
        return None;
    }
    let from_message = info
        .notes
        .iter()
        .any(|n| matches!(n, SourceNote::EventFromMessage));
    let header = format!(
        "# Written by `lockreplay inspect` from {}: the roles it chose,\n\
         # to read the same export the same way (`--mapping`), or to name the\n\
         # columns for `lockreplay sql` and `fetch`. Edit any line.",
        comment_safe(&info.name)
    );
    // Roles read from the text of a payload field that is the message
    // (`msg: "acquired lock key=lock:a"`) are no fields of the records: a
    // mapping naming them finds nothing, so they are left as comments and
    // the reader finds them in the message again.
    let in_message = info.payload_field.as_deref().filter(|p| {
        info.fields
            .iter()
            .any(|(r, f)| r == "message" && f.as_str() == *p)
    });
    let header = match in_message {
        Some(p) => {
            let mut h = header;
            for (role, field) in &info.fields {
                let _ = write!(
                    h,
                    "\n# {role}: `{}`, read from the text of `{}`",
                    comment_safe(field),
                    comment_safe(p)
                );
            }
            h
        }
        None => header,
    };
    let pairs = info
        .fields
        .iter()
        .filter(|_| in_message.is_none())
        .map(|(role, field)| {
            let role = if from_message && role == "event" {
                "message"
            } else {
                role.as_str()
            };
            (role, field.as_str())
        });
    Some(fields_toml(&header, pairs))
}

/// `text` for a TOML comment, which may hold no control character but a
/// tab: each other one written as its Rust escape (`\u{1b}`).
fn comment_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A mapping file's text: `header` (comment lines), then `[fields]` with
/// one `role = "field"` line per role, the first field given for a role
/// kept (the format [`crate::ingest::Mapping`] reads; written by `inspect`
/// and the window's mapping dialog).
pub fn fields_toml<'a>(
    header: &str,
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> String {
    let mut s = format!("{header}\n\n[fields]\n");
    let mut used: Vec<&str> = Vec::new();
    for (role, field) in pairs {
        if !used.contains(&role) {
            used.push(role);
            let _ = writeln!(s, "{role} = {}", toml::Value::String(field.to_string()));
        }
    }
    s
}

/// Runs `lockreplay inspect` on `files` read as `read` says: prints how
/// each was read and, with `write_mapping`, writes the roles found as a
/// mapping file there. 0, or 2 when a file could not be read.
///
/// # Errors
/// Unreadable files, a mapping path that is an input.
pub fn run(
    files: &[PathBuf],
    write_mapping: Option<&Path>,
    read: &ReadConfig,
    analysis: &AnalysisConfig,
) -> anyhow::Result<u8> {
    let loaded = crate::pipeline::load_files(files, read, analysis.settings())?;
    let mapped = read.mapping.is_some();
    let suggestions: Vec<Vec<String>> = loaded
        .log
        .sources
        .iter()
        .map(|info| match info.dialect {
            crate::model::Dialect::Text if !mapped && info.events_loaded == 0 => {
                head_text(Path::new(&info.name))
                    .map(|t| suggest::text_suggestions(&t))
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        })
        .collect();
    let mapping = read.mapping.as_ref().map(|m| &m.mapping);
    let tables: Vec<Option<templates::TemplateTable>> = (0..loaded.log.sources.len())
        .map(|i| {
            let head = head_text(Path::new(&loaded.log.sources[i].name))?;
            templates::table(&loaded.log, i, &head, mapping)
        })
        .collect();
    print!("{}", to_text(&loaded.log, mapped, &suggestions, &tables));
    if let Some(path) = write_mapping {
        let toml = loaded
            .log
            .sources
            .iter()
            .find_map(mapping_toml)
            .ok_or_else(|| anyhow::anyhow!("no role was found in any file: no mapping to write"))?;
        crate::fsio::write_atomic_with(path, files, |w| {
            use std::io::Write;
            w.write_all(toml.as_bytes())?;
            Ok(())
        })?;
        eprintln!(
            "lockreplay: mapping written to {}",
            crate::report::terminal_safe(&path.display().to_string())
        );
    }
    let problems = loaded.problems();
    for p in &problems {
        eprintln!("lockreplay: {}", crate::report::terminal_safe(p));
    }
    Ok(if problems.is_empty() {
        crate::pipeline::EXIT_CLEAN
    } else {
        crate::pipeline::EXIT_ERROR
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_file_name_with_control_characters_stays_inside_the_comment() {
        let name = "a\u{1b}]0;x\u{7}\rb\nc.log";
        let header = format!("# from {}", super::comment_safe(name));
        let text = super::fields_toml(&header, [("time", "t"), ("key", "k\"\\\n")]);
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        let m: crate::ingest::Mapping = text.parse().expect("the file reads back");
        assert_eq!(m.fields.get("key").map(String::as_str), Some("k\"\\\n"));
        assert_eq!(text.lines().filter(|l| l.starts_with('#')).count(), 1);
    }
}

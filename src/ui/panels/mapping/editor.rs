//! The mapping dialog's state without the window: the fields and their
//! roles, the event names (an event field's values or the message
//! templates) and their kinds, a text layout's line pattern, the mapping
//! file they make and what it reads on the file's head (events per kind,
//! holds, incidents, oversold units, loss). Pure enough to test without a
//! window.

use std::path::{Path, PathBuf};

use crate::analysis::Settings;
use crate::inspect::suggest::{self, LinePattern};
use crate::model::{EventKind, LoadedLog};
use crate::money::Loss;

/// Bytes of the file's head the preview reads.
pub const PREVIEW_BYTES: u64 = 1 << 20;

/// Event names shown at most.
const MAX_NAMES: usize = 60;

/// One field in the dialog.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The field's name.
    pub field: String,
    /// The role chosen, none for no role.
    pub role: Option<String>,
    /// Sample values, joined.
    pub samples: String,
}

/// Where the event names come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NamesFrom {
    /// The values of this event field: saved in `[events]`.
    Field(String),
    /// The message templates: saved in `[messages]`.
    Templates,
    /// Nothing to name yet (no event or message field, no line pattern).
    Nothing,
}

/// One event name (a value of the event field, or a message template).
#[derive(Clone, Debug, PartialEq)]
pub struct NameRow {
    /// The value, or the template (`lock <*> by <*>`).
    pub name: String,
    /// Records or lines in the head that carry it.
    pub count: usize,
    /// One message of the template (the value itself for a field's value).
    pub example: String,
    /// The kind reading gives it by itself.
    pub auto: Option<EventKind>,
    /// The kind chosen (pre-filled with `auto`).
    pub kind: Option<EventKind>,
}

/// What the current mapping reads on the file's head.
#[derive(Clone, Debug, PartialEq)]
pub struct Preview {
    /// Events per kind, most first.
    pub kinds: Vec<(EventKind, usize)>,
    /// Holds (leases) reconstructed.
    pub holds: usize,
    /// Incidents found.
    pub incidents: usize,
    /// Units oversold.
    pub oversold: i64,
    /// The loss, in the settings' currency.
    pub loss: Loss,
}

/// The `time_format` guessed for a line pattern with a date part
/// ([`LinePattern::time_format`]), and how it reads the sample line's
/// date: what a day-first or month-first guess makes of it.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeFormatGuess {
    /// The strftime format, date then time (`%d.%m.%Y %H:%M:%S%.3f`).
    pub format: String,
    /// The sample line's date part, as written.
    pub date: String,
    /// That date as the format reads it; `None` when it does not.
    pub read_as: Option<chrono::NaiveDate>,
}

impl TimeFormatGuess {
    /// The guess of `pattern` on `head`'s lines, with the sample line's
    /// date; `None` without a date and a time part.
    pub fn of(pattern: &LinePattern, head: &str) -> Option<TimeFormatGuess> {
        let format = pattern.time_format(head)?;
        let part = (0..pattern.tokens.len())
            .find(|&i| pattern.tokens[i].role.as_deref() == Some("date"))?;
        let date = pattern.text(part).to_string();
        let date_format = format.split(' ').next().unwrap_or_default();
        let read_as = chrono::NaiveDate::parse_from_str(&date, date_format).ok();
        Some(TimeFormatGuess {
            format,
            date,
            read_as,
        })
    }
}

/// Why the preview read nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unread {
    /// The mapping, the file or its head cannot be read: the reason.
    Error(String),
    /// It reads, but no event came out yet: the reader's reason.
    Nothing(String),
}

/// The dialog's state: the file, its fields, names and line pattern,
/// where to save, the preview.
#[derive(Clone, Debug)]
pub struct MappingEditor {
    /// The file the mapping is for.
    pub file: PathBuf,
    /// Its fields.
    pub rows: Vec<Row>,
    /// The event names and their kinds.
    pub names: Vec<NameRow>,
    /// Where the names come from.
    pub names_from: NamesFrom,
    /// A text file's line pattern (the builder), none for records with
    /// fields.
    pub line: Option<LinePattern>,
    /// The part of the line pattern's sample selected in the builder.
    pub selected_part: Option<usize>,
    /// Where "Save and re-read" writes the mapping.
    pub save_path: String,
    /// The analysis settings the preview runs with (the window's).
    pub settings: Settings,
    /// The file's head, as text.
    pub head: String,
    /// What the current choices give on the file's head, or why nothing
    /// could be read.
    pub preview: Result<Preview, Unread>,
    /// The `time_format` the line pattern's date and time parts make, a
    /// guess from the dates' values, kept from the last
    /// [`MappingEditor::refresh`] to show.
    pub time_format: Option<TimeFormatGuess>,
    /// The kinds reading learned for the file's event words from the lock
    /// protocol (`SourceNote::EventsByProtocol`): a word no list knows
    /// starts with the kind the window read it as, and is saved in
    /// `[events]`, so a mapping saved unchanged reads the file as before.
    pub learned: Vec<(String, EventKind)>,
}

impl MappingEditor {
    /// The dialog for source `index` of `log`, its roles as read (a field
    /// given two roles keeps one: never an error to start from), a text
    /// file nothing was read from with a line pattern guessed, the names
    /// and the preview computed.
    pub fn new(log: &LoadedLog, index: usize, settings: Settings) -> MappingEditor {
        let info = &log.sources[index];
        let file = PathBuf::from(&info.name);
        let mut rows = merge_roles(crate::inspect::field_rows(log, index, false));
        add_head_samples(&mut rows, &head_samples(&file));
        let head = read_head(&file)
            .ok()
            .and_then(|b| crate::ingest::source_text(b).ok())
            .unwrap_or_default();
        let line = (info.dialect == crate::model::Dialect::Text && info.events_loaded == 0)
            .then(|| {
                head.lines()
                    .take(50)
                    .find(|l| crate::ingest::line_parts(l).is_some())
                    .map(LinePattern::guess)
            })
            .flatten();
        let mut editor = MappingEditor {
            save_path: default_save_path(&file).display().to_string(),
            file,
            rows,
            names: Vec::new(),
            names_from: NamesFrom::Nothing,
            line,
            selected_part: None,
            settings,
            head,
            preview: Err(Unread::Nothing(String::new())),
            time_format: None,
            learned: learned_kinds(info),
        };
        editor.refresh();
        editor
    }

    /// Recomputes the names (keeping the kinds chosen) and the preview,
    /// after a role or the line pattern changed.
    pub fn refresh(&mut self) {
        if let Some(p) = &self.line {
            let mut rows = message_pair_rows(&self.head, p);
            for r in &mut rows {
                if let Some(o) = self.rows.iter().find(|o| o.field == r.field) {
                    r.role.clone_from(&o.role);
                }
            }
            self.rows = rows;
        }
        self.time_format = self
            .line
            .as_ref()
            .and_then(|p| TimeFormatGuess::of(p, &self.head));
        let (from, names) = self.find_names();
        let old = std::mem::take(&mut self.names);
        self.names = names
            .into_iter()
            .map(|mut n| {
                if let Some(o) = old.iter().find(|o| o.name == n.name) {
                    n.kind = o.kind;
                } else if n.kind.is_none()
                    && let Some((_, k)) = self.learned.iter().find(|(w, _)| *w == n.name)
                {
                    n.kind = Some(*k);
                }
                n
            })
            .collect();
        self.names_from = from;
        self.refresh_preview();
    }

    /// The names to give kinds: the line pattern's message templates, the
    /// event field's values, or the message field's templates.
    fn find_names(&self) -> (NamesFrom, Vec<NameRow>) {
        let field_of = |role: &str| {
            self.rows
                .iter()
                .find(|r| r.role.as_deref() == Some(role))
                .map(|r| r.field.clone())
        };
        if let Some(p) = &self.line {
            if p.tokens.iter().any(|t| t.role.as_deref() == Some("event")) {
                let values = p.values(&self.head, "event", 20_000);
                return (NamesFrom::Field("event".into()), value_rows(values));
            }
            let Ok(re) = regex::Regex::new(&p.regex()) else {
                return (NamesFrom::Nothing, Vec::new());
            };
            let messages = suggest::messages(&self.head, &re, 20_000);
            return (NamesFrom::Templates, template_rows(&messages));
        }
        if let Some(f) = field_of("event") {
            let rows = value_rows(crate::ingest::field_values(&self.head, &f));
            return (NamesFrom::Field(f), rows);
        }
        if let Some(f) = field_of("message") {
            let messages = crate::ingest::field_values(&self.head, &f);
            return (NamesFrom::Templates, template_rows(&messages));
        }
        (NamesFrom::Nothing, Vec::new())
    }

    /// The mapping file of the current choices (TOML): the line pattern's
    /// `line_regex` and, in `[fields]`, its named parts' roles (a mapping's
    /// roles are its fields, so reading does not guess others) and the
    /// roles given to the message's pairs; else `[fields]` (a role given to
    /// two fields keeps the first); the names
    /// whose kind differs from what reading gives by itself, in `[events]`
    /// or, as regexes made from their templates, in `[messages]`.
    pub fn toml(&self) -> String {
        use std::fmt::Write as _;
        let header = format!(
            "# Field mapping for {}, written by lockreplay's mapping dialog.",
            self.file.display().to_string().replace(['\n', '\r'], " ")
        );
        let mut s = match &self.line {
            Some(p) => {
                let mut s = format!(
                    "{header}\n\nline_regex = {}\n",
                    toml::Value::String(p.regex())
                );
                if let Some(f) = p.time_format(&self.head) {
                    let _ = writeln!(s, "time_format = {}", toml::Value::String(f));
                }
                let groups = p
                    .tokens
                    .iter()
                    .filter_map(|t| t.role.as_deref())
                    .filter(|r| super::is_field_role(r) && *r != "message")
                    .map(|r| (r, r));
                let pairs = self
                    .rows
                    .iter()
                    .filter_map(|r| Some((r.role.as_deref()?, r.field.as_str())));
                let mut fields: Vec<(&str, &str)> = Vec::new();
                for (role, field) in groups.chain(pairs) {
                    if !fields.iter().any(|(r, _)| *r == role) {
                        fields.push((role, field));
                    }
                }
                if !fields.is_empty() {
                    s.push_str("\n[fields]\n");
                }
                for (role, field) in fields {
                    let _ = writeln!(s, "{role} = {}", toml_key(field));
                }
                s
            }
            None => crate::inspect::fields_toml(
                &header,
                self.rows
                    .iter()
                    .filter_map(|r| Some((r.role.as_deref()?, r.field.as_str()))),
            ),
        };
        let chosen = self
            .names
            .iter()
            .filter_map(|n| n.kind.filter(|k| Some(*k) != n.auto).map(|k| (n, k)));
        match self.names_from {
            NamesFrom::Field(_) => {
                let mut first = true;
                for (n, k) in chosen {
                    if std::mem::take(&mut first) {
                        s.push_str("\n[events]\n");
                    }
                    let _ = writeln!(s, "{} = \"{}\"", toml_key(&n.name), k.as_str());
                }
            }
            NamesFrom::Templates => {
                let mut by_kind: Vec<(EventKind, Vec<String>)> = Vec::new();
                for (n, k) in chosen {
                    let rx = suggest::template_regex(&n.name, &n.example, k);
                    match by_kind.iter_mut().find(|(x, _)| *x == k) {
                        Some((_, v)) => v.push(rx),
                        None => by_kind.push((k, vec![rx])),
                    }
                }
                if !by_kind.is_empty() {
                    s.push_str("\n[messages]\n");
                }
                for (k, rxs) in by_kind {
                    let list: Vec<toml::Value> = rxs.into_iter().map(toml::Value::String).collect();
                    let _ = writeln!(s, "{} = {}", k.as_str(), toml::Value::Array(list));
                }
            }
            NamesFrom::Nothing => {}
        }
        s
    }

    /// Reads the file's head ([`PREVIEW_BYTES`]) with the current choices
    /// and analyses it.
    pub fn refresh_preview(&mut self) {
        self.preview = preview(&self.file, &self.toml(), &self.settings);
    }

    /// Writes the mapping to `save_path` (atomically; never over the file
    /// it maps) and returns the path.
    ///
    /// # Errors
    /// An empty path, the input itself, or a failed write.
    pub fn save(&self) -> anyhow::Result<PathBuf> {
        let path = PathBuf::from(self.save_path.trim());
        if path.as_os_str().is_empty() {
            anyhow::bail!("no path to save the mapping to");
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let text = self.toml();
        crate::fsio::write_atomic_with(&path, std::slice::from_ref(&self.file), |w| {
            use std::io::Write;
            w.write_all(text.as_bytes())?;
            Ok(())
        })?;
        Ok(path)
    }
}

/// The `name=value` pairs of the messages the line pattern parts from
/// `head`'s lines: one row per name (at most [`MAX_NAMES`]), in the order
/// first met, up to three values each, no role yet (reading names what
/// it knows by itself; a role given maps the name in `[fields]`).
fn message_pair_rows(head: &str, pattern: &LinePattern) -> Vec<Row> {
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let Ok(re) = regex::Regex::new(&pattern.regex()) else {
        return Vec::new();
    };
    for line in head.lines().take(5000) {
        let Some(message) = re.captures(line).and_then(|c| c.name("message")) else {
            continue;
        };
        for word in message.as_str().split_whitespace() {
            let Some((k, v)) = word.split_once('=') else {
                continue;
            };
            let name_like = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
            if !name_like || v.is_empty() {
                continue;
            }
            let full = rows.len() >= MAX_NAMES;
            match rows.iter_mut().find(|(n, _)| n == k) {
                Some((_, vals)) if vals.len() < 3 && !vals.iter().any(|x| x == v) => {
                    vals.push(v.to_string());
                }
                Some(_) => {}
                None if !full => rows.push((k.to_string(), vec![v.to_string()])),
                None => {}
            }
        }
    }
    rows.into_iter()
        .map(|(field, vals)| Row {
            field,
            role: None,
            samples: vals.join(" | "),
        })
        .collect()
}

/// `name` as a TOML key (quoted).
/// The kinds the lock protocol gave `info`'s event words, from its note.
fn learned_kinds(info: &crate::model::SourceInfo) -> Vec<(String, EventKind)> {
    info.notes
        .iter()
        .filter_map(|n| match n {
            crate::model::SourceNote::EventsByProtocol { kinds } => Some(kinds),
            _ => None,
        })
        .flatten()
        .filter_map(|(word, kind)| {
            let k = EventKind::ALL.into_iter().find(|k| k.as_str() == kind)?;
            Some((word.clone(), k))
        })
        .collect()
}

fn toml_key(name: &str) -> String {
    toml::Value::String(name.to_string()).to_string()
}

/// Rows for an event field's values and their counts, the kind pre-filled
/// with what reading gives the word by itself.
fn value_rows(values: Vec<(String, usize)>) -> Vec<NameRow> {
    values
        .into_iter()
        .take(MAX_NAMES)
        .map(|(v, n)| {
            let auto = crate::ingest::event_name_kind(&v);
            NameRow {
                example: v.clone(),
                name: v,
                count: n,
                auto,
                kind: auto,
            }
        })
        .collect()
}

/// Rows for the templates of `messages`, the kind pre-filled with what
/// reading finds in the template's example.
fn template_rows(messages: &[(String, usize)]) -> Vec<NameRow> {
    suggest::templates(messages)
        .into_iter()
        .take(MAX_NAMES)
        .map(|(t, n, example)| {
            let auto = crate::ingest::message_kind(&example);
            NameRow {
                name: t,
                count: n,
                example,
                auto,
                kind: auto,
            }
        })
        .collect()
}

/// One row per field: a field given two roles keeps the first, except that
/// an event read from the message's words leaves the field its `message`
/// role (reading finds the words there again); the other role is left
/// unset, so the dialog never opens on a mapping that is an error.
fn merge_roles(rows: Vec<crate::inspect::FieldRow>) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::new();
    for r in rows {
        let samples = r.samples.join(" | ");
        match out.iter_mut().find(|o| o.field == r.field) {
            Some(o) => {
                if r.role.as_deref() == Some("message") {
                    o.role = r.role;
                }
                if o.samples.is_empty() {
                    o.samples = samples;
                }
            }
            None => out.push(Row {
                field: r.field,
                role: r.role,
                samples,
            }),
        }
    }
    out
}

/// The head of `file`: at most [`PREVIEW_BYTES`], cut after its last whole
/// line.
fn read_head(file: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(file)?
        .take(PREVIEW_BYTES)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 == PREVIEW_BYTES
        && let Some(end) = memchr::memrchr(b'\n', &bytes)
    {
        bytes.truncate(end + 1);
    }
    Ok(bytes)
}
/// Up to three values of each field of the JSON objects among the first
/// 50 lines of `file` (nested objects as dotted paths, two levels deep), in
/// the order the fields first appear: what a field holds when no event
/// could be read to show it.
pub fn head_samples(file: &Path) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let Ok(bytes) = read_head(file) else {
        return out;
    };
    let text = String::from_utf8_lossy(&bytes);
    for line in text.lines().filter(|l| !l.trim().is_empty()).take(50) {
        if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(line.trim()) {
            collect_values(&mut out, "", &map, 0);
        }
    }
    out
}

fn collect_values(
    out: &mut Vec<(String, Vec<String>)>,
    prefix: &str,
    map: &serde_json::Map<String, serde_json::Value>,
    depth: usize,
) {
    for (k, v) in map {
        let name = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        if let (serde_json::Value::Object(inner), true) = (v, depth < 2) {
            collect_values(out, &name, inner, depth + 1);
            continue;
        }
        let value = match v {
            serde_json::Value::String(s) => s.chars().take(60).collect(),
            other => other.to_string().chars().take(60).collect(),
        };
        let i = match out.iter().position(|(n, _)| *n == name) {
            Some(i) => i,
            None => {
                out.push((name, Vec::new()));
                out.len() - 1
            }
        };
        let vals = &mut out[i].1;
        if vals.len() < 3 && !vals.contains(&value) {
            vals.push(value);
        }
    }
}

/// Shows each field's values as the file's head writes them (not as a role
/// read them: a row's samples stay right whatever role it is given), adds
/// the head's fields no row names, and drops the rows neither the head
/// nor an event shows (a field detection made up from an envelope's
/// payload that the records do not carry as such).
fn add_head_samples(rows: &mut Vec<Row>, head: &[(String, Vec<String>)]) {
    if !head.is_empty() {
        rows.retain(|r| !r.samples.is_empty() || head.iter().any(|(f, _)| *f == r.field));
    }
    for (field, values) in head {
        match rows.iter_mut().find(|r| &r.field == field) {
            Some(r) => r.samples = values.join(" | "),
            None => rows.push(Row {
                field: field.clone(),
                role: None,
                samples: values.join(" | "),
            }),
        }
    }
}

/// `<config>/lockreplay/mappings/<file name>.toml`, else beside the current
/// directory.
fn default_save_path(file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .map_or("log".into(), |n| n.to_string_lossy().into_owned());
    dirs::config_dir()
        .map(|d| d.join("lockreplay").join("mappings"))
        .unwrap_or_default()
        .join(format!("{name}.mapping.toml"))
}

/// What `mapping` reads on the head of `file` ([`PREVIEW_BYTES`]):
/// events per kind and, from the analysis the window runs
/// ([`crate::analysis::analyze`] with `settings`), holds, incidents,
/// oversold units and loss.
///
/// # Errors
/// [`Unread::Error`] when the file or the mapping cannot be read,
/// [`Unread::Nothing`] when no event came out (the reason as the reader
/// says it).
pub fn preview(file: &Path, mapping: &str, settings: &Settings) -> Result<Preview, Unread> {
    let m: crate::ingest::Mapping = mapping.parse().map_err(|e| Unread::Error(format!("{e}")))?;
    let bytes = read_head(file).map_err(|e| Unread::Error(format!("{}: {e}", file.display())))?;
    let opts = crate::ingest::IngestOptions {
        mapping: Some(m),
        ..crate::ingest::IngestOptions::default()
    };
    let mut builder = crate::model::LogBuilder::new();
    let name = file.display().to_string();
    crate::ingest::read_source(
        &name,
        bytes.as_slice(),
        &opts,
        &mut builder,
        &Default::default(),
    )
    .map_err(|e| Unread::Error(format!("{e}")))?;
    let log = crate::ingest::settle(builder.finish());
    let kinds = crate::inspect::kinds(&log, 0);
    if kinds.is_empty() {
        return Err(Unread::Nothing(
            log.sources
                .first()
                .and_then(|s| s.unreadable.clone())
                .unwrap_or_else(|| "no event".into()),
        ));
    }
    let analysis = crate::analysis::analyze(&log, settings);
    Ok(Preview {
        kinds,
        holds: analysis.leases.len(),
        incidents: analysis.incidents.len(),
        oversold: analysis.summary.oversold_units,
        loss: analysis.summary.loss,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/mapping-dialog")
            .join(name)
    }

    fn editor_on(name: &str) -> MappingEditor {
        let log = crate::ingest::load_paths(
            &[fixture(name)],
            &crate::ingest::IngestOptions::default(),
            &Default::default(),
        )
        .expect("loads");
        let settings = Settings {
            unit_loss: Some(100.0),
            ..Settings::default()
        };
        MappingEditor::new(&log, 0, settings)
    }

    fn choose_kind(ed: &mut MappingEditor, name: &str, kind: EventKind) {
        let row = ed.names.iter_mut().find(|n| n.name == name);
        row.unwrap_or_else(|| panic!("{name}")).kind = Some(kind);
    }

    /// (incidents, oversold, loss) of a preview.
    fn answer(p: &Result<Preview, Unread>) -> (usize, i64, Loss) {
        let p = p.as_ref().expect("a preview");
        (p.incidents, p.oversold, p.loss)
    }

    /// Event words no list knows, read by the lock protocol (grab, letgo,
    /// sell): the dialog opens with the kinds the window read them as, so
    /// its preview, and a mapping saved unchanged, read the incident the
    /// window shows.
    #[test]
    fn words_the_protocol_learned_open_with_their_kinds() {
        let ed = editor_on("protocol-words.jsonl");
        let kind = |w: &str| ed.names.iter().find(|n| n.name == w).and_then(|n| n.kind);
        assert_eq!(kind("grab"), Some(EventKind::Acquired), "{:?}", ed.names);
        assert_eq!(kind("letgo"), Some(EventKind::Released), "{:?}", ed.names);
        assert!(ed.toml().contains("[events]"), "{}", ed.toml());
        assert_eq!(answer(&ed.preview).0, 1, "{}", ed.toml());
    }

    /// Gives the part of the line pattern whose text is `text` `role`.
    fn name_part(ed: &mut MappingEditor, text: &str, role: &str) {
        let p = ed.line.as_mut().expect("a line pattern");
        let i = (0..p.tokens.len()).find(|&i| p.text(i) == text);
        p.set_role(
            i.unwrap_or_else(|| panic!("no part {text}")),
            Some(role.into()),
        );
        ed.refresh();
    }

    /// Events per kind of the preview, by name.
    fn kinds(ed: &MappingEditor) -> Vec<(&'static str, usize)> {
        let p = ed.preview.as_ref().expect("a preview");
        p.kinds.iter().map(|(k, n)| (k.as_str(), *n)).collect()
    }

    /// `dotted-date.log`: the failed acquires (`ok=no`) that reading finds
    /// by the protocol stay in the preview when the date part is named,
    /// whose day-first date makes the mapping's `time_format`: the outcome
    /// role, which the user never gave, keeps what reading found for it.
    #[test]
    fn naming_the_date_keeps_the_failed_acquires_reading_found() {
        let mut ed = editor_on("dotted-date.log");
        name_part(&mut ed, "TAKE", "event");
        name_part(&mut ed, "sku-9", "key");
        for r in &mut ed.rows {
            r.role = match r.field.as_str() {
                "holder" => Some("holder".into()),
                "ttl" => Some("ttl".into()),
                "qty" => Some("quantity".into()),
                "left" => Some("stock_after".into()),
                _ => None,
            };
        }
        ed.refresh();
        for (word, kind) in [
            ("TAKE", EventKind::Acquired),
            ("SOLD", EventKind::StockDeducted),
            ("DROP", EventKind::Released),
        ] {
            choose_kind(&mut ed, word, kind);
        }
        ed.refresh_preview();
        let before = kinds(&ed);
        assert!(before.contains(&("acquire_failed", 2)), "{before:?}");
        name_part(&mut ed, "07.12.2026", "date");
        assert!(ed.toml().contains("time_format"), "{}", ed.toml());
        assert_eq!(kinds(&ed), before, "{}", ed.toml());
        let p = ed.preview.as_ref().expect("read");
        assert_eq!((p.holds, p.incidents), (3, 1));
    }

    #[test]
    fn a_text_file_opens_with_a_mapping_that_reads() {
        let ed = editor_on("own-layout.log");
        let fields: Vec<(&str, &str)> = ed
            .rows
            .iter()
            .map(|r| (r.field.as_str(), r.samples.as_str()))
            .collect();
        assert_eq!(
            fields,
            [("stock", "1"), ("ttl", "2000"), ("price", "100")],
            "the message's pairs, to give roles"
        );
        ed.toml()
            .parse::<crate::ingest::Mapping>()
            .expect("the mapping it opens with is no error");
        assert!(ed.line.is_some(), "a line pattern to build");
        assert_eq!(ed.names_from, NamesFrom::Templates);
        let names: Vec<(&str, usize)> = ed
            .names
            .iter()
            .map(|n| (n.name.as_str(), n.count))
            .collect();
        assert!(
            names.contains(&("<*>|lock <*> by <*> got ttl=<*>", 2)),
            "{names:?}"
        );
    }

    #[test]
    fn kinds_given_to_templates_read_the_text_layout() {
        let mut ed = editor_on("own-layout.log");
        let p = ed.line.as_mut().expect("a line pattern");
        assert_eq!((p.text(2), p.text(3)), ("pod-1", "init"));
        p.set_role(2, Some("host".into()));
        p.set_role(3, Some("message".into()));
        ed.refresh();
        for (t, k) in [
            ("init <*> stock=<*>", EventKind::StockInitialized),
            ("lock <*> by <*> got ttl=<*>", EventKind::Acquired),
            ("check <*> stock=<*> by <*>", EventKind::StockRead),
            ("sold <*> <*> price=<*> by <*>", EventKind::OrderCreated),
            ("unlock <*> by <*>", EventKind::Released),
        ] {
            choose_kind(&mut ed, t, k);
        }
        ed.refresh_preview();
        assert_eq!(
            answer(&ed.preview),
            (1, 1, Loss::Known(100.0)),
            "{}",
            ed.toml()
        );
        let p = ed.preview.as_ref().expect("read");
        assert_eq!(p.holds, 2);
        let hand = std::fs::read_to_string(fixture("own-layout.mapping.toml")).expect("hand");
        let by_hand = preview(&ed.file, &hand, &ed.settings);
        assert_eq!(answer(&by_hand), answer(&ed.preview));
    }

    #[test]
    fn a_fields_samples_are_its_values_whatever_role_it_has() {
        let mut ed = editor_on("odd-names.jsonl");
        let samples = |ed: &MappingEditor, f: &str| {
            let row = ed.rows.iter().find(|r| r.field == f).expect("a row");
            row.samples.clone()
        };
        assert_eq!(samples(&ed, "what"), "stocked | grabbed | counted");
        assert_eq!(samples(&ed, "worker"), "pod-a/t1 | pod-b/t4");
        for r in &mut ed.rows {
            r.role = match r.field.as_str() {
                "worker" => Some("key".into()),
                "sku_lock" => Some("holder".into()),
                _ => r.role.take(),
            };
        }
        ed.refresh();
        assert_eq!(samples(&ed, "worker"), "pod-a/t1 | pod-b/t4");
    }

    #[test]
    fn the_hand_mapping_of_a_dated_text_layout_reads_the_answer() {
        let ed = editor_on("shop.log");
        let hand = std::fs::read_to_string(fixture("shop.mapping.toml")).expect("hand");
        assert_eq!(
            answer(&preview(&ed.file, &hand, &ed.settings)),
            (1, 1, Loss::Known(100.0))
        );
    }

    #[test]
    fn roles_and_event_names_read_a_json_log_with_odd_names() {
        let mut ed = editor_on("odd-names.jsonl");
        for r in &mut ed.rows {
            r.role = match r.field.as_str() {
                "ts" => Some("time".into()),
                "sku_lock" => Some("key".into()),
                "worker" => Some("holder".into()),
                "what" => Some("event".into()),
                "lease_s" => Some("ttl_s".into()),
                "left" => Some("stock".into()),
                _ => None,
            };
        }
        ed.refresh();
        assert_eq!(ed.names_from, NamesFrom::Field("what".into()));
        let names: Vec<(&str, usize)> = ed
            .names
            .iter()
            .map(|n| (n.name.as_str(), n.count))
            .collect();
        assert_eq!(
            names,
            [
                ("counted", 2),
                ("grabbed", 2),
                ("let_go", 2),
                ("sold", 2),
                ("stocked", 1)
            ]
        );
        assert!(
            ed.names.iter().all(|n| n.kind.is_none()),
            "no word is known"
        );
        for (t, k) in [
            ("grabbed", EventKind::Acquired),
            ("let_go", EventKind::Released),
            ("stocked", EventKind::StockInitialized),
            ("counted", EventKind::StockRead),
            ("sold", EventKind::OrderCreated),
        ] {
            choose_kind(&mut ed, t, k);
        }
        ed.refresh_preview();
        assert_eq!(
            answer(&ed.preview),
            (1, 1, Loss::Known(100.0)),
            "{}",
            ed.toml()
        );
        let hand = std::fs::read_to_string(fixture("odd-names.mapping.toml")).expect("hand");
        assert_eq!(
            answer(&preview(&ed.file, &hand, &ed.settings)),
            answer(&ed.preview)
        );
    }
}

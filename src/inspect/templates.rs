//! `inspect`'s event-template table: each event name or message template of
//! a file's head, how many lines carry it, the kind reading gave those
//! lines and why (the mapping, the built-in words, the protocol's placing,
//! a failure word, or nothing read), so that a user sees which words were
//! understood and by what before trusting an answer.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::ingest::Mapping;
use crate::model::{EventKind, EvidenceKind, LoadedLog, SourceInfo, SourceNote};

/// Rows of the table shown at most; the rest are counted.
pub const MAX_ROWS: usize = 30;

/// Records of a file's head the table counts at most.
const MAX_RECORDS: usize = 20_000;

/// Why lines got the kind they got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// The mapping file's `[events]` or `[messages]` named it.
    Mapping,
    /// The built-in words (the vocabulary, the known message words).
    Words,
    /// The lock protocol placed it by where it stands in the holds
    /// ([`SourceNote::EventsByProtocol`]).
    Protocol,
    /// Words read as a lock step, turned into its failed form by a negation,
    /// a failure word or an error level.
    FailureWords,
    /// Another field of the line gave the kind (an outcome, a business
    /// column), not the name's own words.
    Fields,
    /// No event, but infrastructure evidence (a GC pause, a failover):
    /// the analysis cites it as a cause, the holds do not see it.
    Evidence,
    /// No kind: the lines were skipped or read as activity.
    Unread,
}

impl Why {
    /// The word the table prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Why::Mapping => "mapping",
            Why::Words => "words",
            Why::Protocol => "protocol",
            Why::FailureWords => "failure words",
            Why::Fields => "other fields",
            Why::Evidence => "evidence",
            Why::Unread => "unread",
        }
    }
}

/// What the table's names are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Names {
    /// The values of this event field.
    EventField(String),
    /// The templates of this message field's text ([`template`]).
    Message(String),
}

/// One row: a name, its lines and their kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateRow {
    /// The event field's value, or the message's template.
    pub template: String,
    /// Lines of the head that carry it with this kind.
    pub count: usize,
    /// The kind those lines were given, `None` for lines that gave no
    /// event.
    pub kind: Option<EventKind>,
    /// The evidence those lines were read as, when they gave no event.
    pub evidence: Option<EvidenceKind>,
    /// Why.
    pub why: Why,
}

/// The table of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateTable {
    /// Where the names come from.
    pub names: Names,
    /// Records of the head counted.
    pub records: usize,
    /// The rows, most lines first, at most [`MAX_ROWS`].
    pub rows: Vec<TemplateRow>,
    /// Rows left out.
    pub more: usize,
}

/// What decides a row's [`Why`] besides its own words: the mapping the file
/// was read with and the event words the protocol placed (`(word, kind)`,
/// as [`SourceNote::EventsByProtocol`] says them).
#[derive(Clone, Copy, Debug, Default)]
pub struct Reading<'a> {
    /// The mapping file's mapping.
    pub mapping: Option<&'a Mapping>,
    /// The protocol's event words and their kinds' names.
    pub protocol: &'a [(String, String)],
}

/// A message's template for the table: [`super::suggest::template`], with
/// the value of every `name=value` pair that carries a role's data
/// ([`crate::ingest::is_data_pair`]: `owner=A`, `key=lock:a`) masked too,
/// so one step of several holders is one template.
pub fn template(message: &str) -> String {
    let slot = super::suggest::SLOT;
    super::suggest::template(message)
        .split(' ')
        .map(|word| match word.split_once('=') {
            Some((k, v)) if v != slot && !k.is_empty() && crate::ingest::is_data_pair(k) => {
                format!("{k}={slot}")
            }
            _ => word.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The failed form of a successful lock step (`None` for other kinds).
fn failed_form(kind: EventKind) -> Option<EventKind> {
    match kind {
        EventKind::Acquired => Some(EventKind::AcquireFailed),
        EventKind::Released => Some(EventKind::ReleaseFailed),
        _ => None,
    }
}

/// Why lines named `name` (an event field's value when `from_field`, else
/// a message, `name` being the message itself) got `kind`: the mapping
/// first, then no kind, then the protocol's words, then the built-in words
/// (`failure words` when a negation or failure word in the name, or an
/// error level with words of success, made the step its failed form),
/// else another field.
pub fn why(name: &str, from_field: bool, kind: Option<EventKind>, reading: Reading<'_>) -> Why {
    let mapped = reading.mapping.and_then(|m| {
        if from_field {
            crate::ingest::mapped_event_kind(name, m)
        } else {
            crate::ingest::mapped_message_kind(name, m)
        }
    });
    if mapped.is_some() && mapped == kind {
        return Why::Mapping;
    }
    let Some(kind) = kind.filter(|k| *k != EventKind::Activity) else {
        return Why::Unread;
    };
    if reading
        .protocol
        .iter()
        .any(|(w, k)| k == kind.as_str() && (w == name || (!from_field && mentions(name, w))))
    {
        return Why::Protocol;
    }
    let words = if from_field {
        crate::ingest::event_name_kind(name)
    } else {
        crate::ingest::message_kind(name)
    };
    let failure_word = is_failed(kind) && crate::ingest::says_failure(name);
    match words {
        Some(w) if w == kind && failure_word => Why::FailureWords,
        Some(w) if w == kind => Why::Words,
        Some(w) if failed_form(w) == Some(kind) => Why::FailureWords,
        _ => Why::Fields,
    }
}

/// True when `message` has `word` as one of its words (parted by white
/// space, `=`, `:` and brackets).
fn mentions(message: &str, word: &str) -> bool {
    message
        .split(|c: char| c.is_whitespace() || "=:,;[](){}\"'".contains(c))
        .any(|t| t == word)
}

/// True for the failed forms of lock steps.
fn is_failed(kind: EventKind) -> bool {
    matches!(kind, EventKind::AcquireFailed | EventKind::ReleaseFailed)
}

/// The table of `lines` ([`LineRead`]): each line's name (an event
/// field's value or a message), the kind the line was given and, for a
/// line that gave no event, the evidence it was read as
/// ([`Why::Evidence`]). Names are made templates unless `from_field`; rows
/// grouped by template, kind and evidence, most lines first (then by
/// template), capped at [`MAX_ROWS`].
pub fn rows(
    lines: impl IntoIterator<Item = LineRead>,
    from_field: bool,
    reading: Reading<'_>,
) -> (Vec<TemplateRow>, usize) {
    type Group = (String, Option<EventKind>, Option<EvidenceKind>);
    let mut groups: HashMap<Group, (usize, String)> = HashMap::new();
    for (name, kind, evidence) in lines {
        let t = if from_field {
            name.clone()
        } else {
            template(&name)
        };
        let evidence = evidence.filter(|_| kind.is_none());
        groups.entry((t, kind, evidence)).or_insert((0, name)).0 += 1;
    }
    let mut out: Vec<TemplateRow> = groups
        .into_iter()
        .map(
            |((template, kind, evidence), (count, example))| TemplateRow {
                why: match evidence {
                    Some(_) => Why::Evidence,
                    None => why(&example, from_field, kind, reading),
                },
                template,
                count,
                kind,
                evidence,
            },
        )
        .collect();
    out.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.template.cmp(&b.template))
            .then_with(|| row_kind(a).cmp(row_kind(b)))
    });
    let more = out.len().saturating_sub(MAX_ROWS);
    out.truncate(MAX_ROWS);
    (out, more)
}

/// One line for [`rows`]: its name, the event kind it was given and the
/// evidence it was read as.
pub type LineRead = (String, Option<EventKind>, Option<EvidenceKind>);

/// A row's kind as the table prints it: the event kind's name, else the
/// evidence's, else `-`.
fn row_kind(row: &TemplateRow) -> &'static str {
    match (row.kind, row.evidence) {
        (Some(k), _) => k.as_str(),
        (None, Some(e)) => e.as_str(),
        (None, None) => "-",
    }
}

/// Where the names of `info`'s lines come from: its event field when it has
/// one of its own (not words taken from the message, not the `event` a
/// text line's words give), else its message field; `None` when it has
/// neither.
fn names_of(info: &SourceInfo) -> Option<Names> {
    let field = |role: &str| {
        info.fields
            .iter()
            .find(|(r, _)| r == role)
            .map(|(_, f)| f.clone())
    };
    let from_message = info
        .notes
        .iter()
        .any(|n| matches!(n, SourceNote::EventFromMessage));
    let text = matches!(info.dialect, crate::model::Dialect::Text);
    match field("event") {
        Some(f) if !(from_message || text && f == "event") => Some(Names::EventField(f)),
        _ => field("message").map(Names::Message),
    }
}

/// The table of source `file` of `log`, from `head` (the file's first
/// text, read as the load read it with `mapping`): each record's name and
/// the kind of the load's first event on its line. `None` when the file
/// has no event or message field.
pub fn table(
    log: &LoadedLog,
    file: usize,
    head: &str,
    mapping: Option<&Mapping>,
) -> Option<TemplateTable> {
    let info = log.sources.get(file)?;
    let names = names_of(info)?;
    let (field, from_field) = match &names {
        Names::EventField(f) => (f.as_str(), true),
        Names::Message(f) => (f.as_str(), false),
    };
    let mut kinds: HashMap<u32, EventKind> = HashMap::new();
    for e in log
        .events
        .iter()
        .filter(|e| usize::from(e.source.file) == file)
    {
        kinds.entry(e.source.line).or_insert(e.kind);
    }
    let evidence: HashMap<u32, EvidenceKind> = log
        .evidence
        .iter()
        .filter(|e| usize::from(e.source.file) == file)
        .map(|e| (e.source.line, e.kind))
        .collect();
    let records = crate::ingest::record_values(head, mapping, &[field], MAX_RECORDS);
    let count = records.len();
    let lines = records.into_iter().filter_map(|(line, values)| {
        let name = values.into_iter().next().flatten()?;
        let line = u32::try_from(line).ok();
        let kind = line.and_then(|l| kinds.get(&l).copied());
        let evidence = line.and_then(|l| evidence.get(&l).copied());
        Some((name, kind, evidence))
    });
    let protocol = info
        .notes
        .iter()
        .find_map(|n| match n {
            SourceNote::EventsByProtocol { kinds } => Some(kinds.as_slice()),
            _ => None,
        })
        .unwrap_or(&[]);
    let (rows, more) = rows(lines, from_field, Reading { mapping, protocol });
    Some(TemplateTable {
        names,
        records: count,
        rows,
        more,
    })
}

/// Writes `table` under a file's field table: a heading naming where the
/// names come from and the lines counted, then one row per template
/// (count, kind, why, the template made terminal-safe).
pub fn write_table(s: &mut String, table: &TemplateTable) {
    let from = match &table.names {
        Names::EventField(f) => format!("values of `{}`", crate::report::terminal_safe(f)),
        Names::Message(f) => format!("templates of `{}`", crate::report::terminal_safe(f)),
    };
    let _ = writeln!(
        s,
        "  event templates ({from}; {} record(s) of the first MiB):",
        table.records
    );
    if table.rows.is_empty() {
        let _ = writeln!(s, "    none");
        return;
    }
    let _ = writeln!(
        s,
        "    {:>6}  {:<17}  {:<13}  template",
        "lines", "kind", "why"
    );
    for r in &table.rows {
        let _ = writeln!(
            s,
            "    {:>6}  {:<17}  {:<13}  {}",
            r.count,
            row_kind(r),
            r.why.as_str(),
            crate::report::terminal_safe(&r.template)
        );
    }
    if table.more > 0 {
        let _ = writeln!(s, "    and {} more", table.more);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: Reading<'static> = Reading {
        mapping: None,
        protocol: &[],
    };

    #[test]
    fn a_messages_template_masks_the_data_of_its_pairs() {
        assert_eq!(
            template("归还锁 e=归还锁 key=lock:a owner=A"),
            "归还锁 e=归还锁 key=<*> owner=<*>"
        );
        assert_eq!(
            template("acquired lock key=sku:1 ttl=2000"),
            "acquired lock key=<*> ttl=<*>"
        );
    }

    #[test]
    fn each_why_is_told_apart() {
        let m: Mapping =
            "[events]\ngrabbed = \"acquired\"\n\n[messages]\nreleased = '^handed back' \n"
                .parse()
                .expect("mapping");
        let protocol = [("giveback".to_string(), "released".to_string())];
        let r = Reading {
            mapping: Some(&m),
            protocol: &protocol,
        };
        let acq = Some(EventKind::Acquired);
        let rel = Some(EventKind::Released);
        assert_eq!(why("grabbed", true, acq, r), Why::Mapping);
        assert_eq!(why("handed back sku:1", false, rel, r), Why::Mapping);
        assert_eq!(why("giveback", true, rel, r), Why::Protocol);
        assert_eq!(why("giveback key=a", false, rel, r), Why::Protocol);
        assert_eq!(why("LOCK_ACQUIRED", true, acq, NONE), Why::Words);
        assert_eq!(why("released lock key=a", false, rel, NONE), Why::Words);
        assert_eq!(
            why("没抢到锁", false, Some(EventKind::AcquireFailed), NONE),
            Why::FailureWords
        );
        assert_eq!(
            why("LOCK_RELEASED", true, Some(EventKind::ReleaseFailed), NONE),
            Why::FailureWords
        );
        assert_eq!(why("grabbed", true, None, NONE), Why::Unread);
        assert_eq!(
            why("page parsed", false, Some(EventKind::Activity), NONE),
            Why::Unread
        );
        assert_eq!(
            why("zorblat", true, Some(EventKind::OrderCreated), NONE),
            Why::Fields
        );
    }

    #[test]
    fn rows_are_grouped_by_template_and_kind_most_first_and_capped() {
        let acq = Some(EventKind::Acquired);
        let gc = Some(EvidenceKind::GcPause);
        let lines = vec![
            ("acquired lock key=a owner=A".to_string(), acq, None),
            ("acquired lock key=b owner=B".to_string(), acq, None),
            ("page parsed".to_string(), None, None),
            ("GC pause 11800 ms".to_string(), None, gc),
        ];
        let (rows, more) = super::rows(lines, false, NONE);
        assert_eq!(more, 0);
        assert_eq!(
            rows,
            vec![
                TemplateRow {
                    template: "acquired lock key=<*> owner=<*>".into(),
                    count: 2,
                    kind: acq,
                    evidence: None,
                    why: Why::Words,
                },
                TemplateRow {
                    template: "GC pause <*> ms".into(),
                    count: 1,
                    kind: None,
                    evidence: gc,
                    why: Why::Evidence,
                },
                TemplateRow {
                    template: "page parsed".into(),
                    count: 1,
                    kind: None,
                    evidence: None,
                    why: Why::Unread,
                },
            ]
        );
        let many = (0..MAX_ROWS + 5).map(|i| (format!("step{i}"), None, None));
        let (rows, more) = super::rows(many, true, NONE);
        assert_eq!((rows.len(), more), (MAX_ROWS, 5));
    }

    #[test]
    fn the_table_is_written_with_control_characters_escaped() {
        let t = TemplateTable {
            names: Names::EventField("ev\u{1b}".into()),
            records: 3,
            rows: vec![TemplateRow {
                template: "x\u{1b}[31m".into(),
                count: 3,
                kind: None,
                evidence: None,
                why: Why::Unread,
            }],
            more: 2,
        };
        let mut s = String::new();
        write_table(&mut s, &t);
        assert!(!s.contains('\u{1b}'), "{s}");
        assert!(s.contains("and 2 more"), "{s}");
        assert!(s.contains("unread"), "{s}");
    }
}

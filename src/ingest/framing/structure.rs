//! The structure of a text log that no known layout reads: where each
//! record's time stands, in which format, what precedes it, what follows it
//! before the message, and so where a record starts. Learned once per file
//! on a sample of its first lines ([`Structure::find`]), then applied to
//! every line ([`Structure::split`]): a line that starts a record is
//! split into its time, level, logger, thread, process and message; any
//! other line continues the record before it (a message on the next line,
//! a report over several lines, a stack trace).
//!
//! The order is Elasticsearch's text-structure finder's
//! (`TextStructureUtils.java`, `LogTextStructureFinder.java`): the
//! timestamp first (a bank of formats tried near the start of each sampled
//! line, `stamps.rs`), then the preface before it, then the record's start
//! pattern made of both (its `multiline_start_pattern`), then the fields.
//! Nothing here knows a layout by name: a level before the time, a time
//! after the logger, a level letter fused to a date are all the same
//! search.

use super::stamps::{self, Format, LOOKAHEAD, Stamp};
use crate::ingest::vocabulary::message::is_level;

/// Lines of a file's head the finder learns on.
pub(crate) const SAMPLE_LINES: usize = 1000;

/// What the text before a record's time looks like: how many
/// space-separated words, and whether the last is fused to the time
/// (`I1201 …`, `[12-01|…`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Shape {
    /// Words before the time (a fused one counted).
    pub words: u8,
    /// The last word touches the time.
    pub fused: bool,
}

/// One part of the text between a record's time and its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Part {
    /// The closing bracket of a bracketed time (`]`, `)`, `|`).
    Close,
    /// A level word or letter (`INFO`, `info:`, `I`).
    Level,
    /// A number (a process or thread id).
    Num,
    /// `[...]` (a thread, an app, a trace id).
    Bracket,
    /// Spring Boot's `---`.
    Dashes,
    /// A name ending in `:` (logcat's tag), which ends the parts.
    Tag,
    /// `file.go:88]` (glog's source), which ends the parts.
    Source,
    /// `Name[0]` (Microsoft.Extensions.Logging's category and event id).
    Category,
    /// A dotted name before a separator (a Java logger).
    Logger,
    /// A separator (`-`, `:`, `--`, `|`, `===`), which ends the parts.
    Sep,
}

impl Part {
    /// True for a part after which the message starts.
    fn ends(self) -> bool {
        matches!(self, Part::Tag | Part::Source | Part::Sep)
    }
}

/// A text log's structure, learned on its first lines.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Structure {
    /// The time's format.
    pub format: Format,
    /// The format as a pattern of its first example (`MM-dd HH:mm:ss.SSS`).
    pub pattern: String,
    /// The shapes of the text before the time that start a record.
    pub shapes: Vec<Shape>,
    /// The first and last byte a record's time may start at.
    pub window: (usize, usize),
    /// The parts between the time and the message most sampled records
    /// have, in order; empty when they differ.
    pub parts: Vec<Part>,
    /// Whether some sampled lines continue a record (records over several
    /// lines).
    pub multiline: bool,
    /// Sampled lines, and those that start a record.
    pub sampled: (usize, usize),
    /// The first full date in the sample (`yyyy-MM-dd`), for times that
    /// lack one.
    pub first_date: Option<String>,
}

/// The first full date (`yyyy-MM-dd`) a time of the bank has among the
/// first [`SAMPLE_LINES`] lines of `text`: the date of times of day that
/// lack one.
pub(crate) fn first_date(text: &str) -> Option<String> {
    super::lines::first_lines(text, SAMPLE_LINES).find_map(|l| date_of(&stamps::find_any(l)?))
}

/// The date of a stamp that has one, `yyyy-MM-dd`.
fn date_of(s: &Stamp<'_>) -> Option<String> {
    Some(format!("{:04}-{:02}-{:02}", s.year?, s.month?, s.day?))
}

/// A line that starts a record, split. Text borrows from the line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Split<'a> {
    /// The time, as the time parser reads it ([`Stamp::normalized`]).
    pub time: String,
    /// Level word or letter.
    pub level: Option<&'a str>,
    /// Logger, tag, category or source location.
    pub logger: Option<&'a str>,
    /// Thread (a bracket, or the second number).
    pub thread: Option<&'a str>,
    /// Process id (the first number).
    pub pid: Option<&'a str>,
    /// The rest of the line: the message's first line.
    pub message: &'a str,
}

/// The stamp in `line` the finder counts: the bank's first, unless a CSV
/// cell's end (`,` `;` tab `"`) follows it: a row of a table is no record.
fn stamp_of(line: &str) -> Option<Stamp<'_>> {
    let s = stamps::find_any(line)?;
    let next = line.as_bytes().get(s.end).copied();
    (!matches!(next, Some(b',' | b';' | b'\t' | b'"'))).then_some(s)
}

/// The shape of the text before a time at `start`.
fn shape_of(line: &str, start: usize) -> Shape {
    let pre = &line[..start];
    Shape {
        words: pre.split_whitespace().count().min(255) as u8,
        fused: pre.chars().next_back().is_some_and(|c| !c.is_whitespace()),
    }
}

impl Structure {
    /// The structure of `text` found on its first [`SAMPLE_LINES`]
    /// non-blank lines: the time format most lines have, the preface
    /// shapes it stands after in at least a tenth of them, the parts after
    /// it most have. `None` when fewer than two lines, or fewer than a
    /// tenth of the sample, start a record that way.
    pub fn find(text: &str) -> Option<Structure> {
        let lines: Vec<&str> = super::lines::first_lines(text, SAMPLE_LINES).collect();
        let found: Vec<Option<Stamp<'_>>> = lines.iter().map(|l| stamp_of(l)).collect();
        let mut formats: Vec<(Format, usize)> = Vec::new();
        for s in found.iter().flatten() {
            match formats.iter_mut().find(|(f, _)| *f == s.format) {
                Some(e) => e.1 += 1,
                None => formats.push((s.format, 1)),
            }
        }
        let (format, _) = formats
            .into_iter()
            .max_by_key(|(f, n)| (*n, std::cmp::Reverse(*f)))?;
        let mut shapes: Vec<(Shape, usize)> = Vec::new();
        for (l, s) in lines.iter().zip(&found) {
            if let Some(s) = s.filter(|s| s.format == format) {
                let sh = shape_of(l, s.start);
                match shapes.iter_mut().find(|(x, _)| *x == sh) {
                    Some(e) => e.1 += 1,
                    None => shapes.push((sh, 1)),
                }
            }
        }
        let of_format: usize = shapes.iter().map(|(_, n)| n).sum();
        shapes.retain(|(_, n)| *n * 10 >= of_format && *n >= 2);
        shapes.sort();
        let mut st = Structure {
            format,
            pattern: String::new(),
            shapes: shapes.iter().map(|(s, _)| *s).collect(),
            window: (0, 0),
            parts: Vec::new(),
            multiline: false,
            sampled: (lines.len(), 0),
            first_date: None,
        };
        st.learn(&lines, &found);
        (st.sampled.1 >= 2 && st.sampled.1 * 10 >= lines.len()).then_some(st)
    }

    /// Learns from the sample the window the time stands in, the pattern,
    /// the parts after the time and whether records span lines.
    fn learn(&mut self, lines: &[&str], found: &[Option<Stamp<'_>>]) {
        let starts: Vec<(&str, Stamp<'_>)> = lines
            .iter()
            .zip(found)
            .filter_map(|(l, s)| {
                let s = s.filter(|s| s.format == self.format)?;
                self.shapes
                    .contains(&shape_of(l, s.start))
                    .then_some((*l, s))
            })
            .collect();
        let lo = starts.iter().map(|(_, s)| s.start).min().unwrap_or(0);
        let hi = starts.iter().map(|(_, s)| s.start).max().unwrap_or(0);
        self.window = (lo, (hi + 16).min(LOOKAHEAD));
        if let Some((l, s)) = starts.first() {
            self.pattern = s.pattern(l);
        }
        self.sampled.1 = starts.len();
        // Lines before the first record (a file's header) continue none.
        let first = lines
            .iter()
            .zip(found)
            .position(|(l, s)| {
                s.is_some_and(|s| {
                    s.format == self.format && self.shapes.contains(&shape_of(l, s.start))
                })
            })
            .unwrap_or(0);
        self.multiline = starts.len() < lines.len() - first;
        self.first_date = found.iter().flatten().find_map(date_of);
        let mut seqs: Vec<(Vec<Part>, usize)> = Vec::new();
        for (l, s) in &starts {
            let seq: Vec<Part> = tail_parts(&l[s.end..], None)
                .0
                .iter()
                .map(|p| p.0)
                .collect();
            match seqs.iter_mut().find(|(x, _)| *x == seq) {
                Some(e) => e.1 += 1,
                None => seqs.push((seq, 1)),
            }
        }
        if let Some((seq, n)) = seqs.into_iter().max_by_key(|(_, n)| *n)
            && n * 2 > starts.len()
        {
            self.parts = seq;
        }
    }

    /// The record start pattern, for the user: `^`, a `\S+` for each word
    /// of the most common preface (no space after a fused one), the time's
    /// pattern.
    pub fn start_pattern(&self) -> String {
        let mut s = String::from("^");
        if let Some(sh) = self.shapes.first() {
            for i in 0..sh.words {
                s.push_str(if sh.fused && i + 1 == sh.words {
                    "\\S*"
                } else {
                    "\\S+ "
                });
            }
        }
        s.push_str(&self.pattern);
        s
    }

    /// `line` split when it starts a record: its time in the learned format
    /// within the learned window, after a preface of a learned shape.
    /// `None` for a line that continues a record.
    pub fn split<'a>(&self, line: &'a str) -> Option<Split<'a>> {
        let s = stamps::find(line, self.format, self.window.0, self.window.1)?;
        if !self.shapes.contains(&shape_of(line, s.start)) {
            return None;
        }
        let plan = (!self.parts.is_empty()).then_some(self.parts.as_slice());
        Some(split_at(line, &s, plan))
    }
}

/// `line` split at the time `s` the bank found in it, when a single line
/// is all there is to learn from (an envelope's payload string): a time in
/// any format of the bank within the first [`LOOKAHEAD`] bytes starts the
/// record, its parts as [`Structure::split`] reads them without a plan.
pub(crate) fn split_any(line: &str) -> Option<Split<'_>> {
    let s = stamp_of(line).filter(|s| s.start <= LOOKAHEAD)?;
    Some(split_at(line, &s, None))
}

/// [`split_any`] for a time that leads its line: what precedes it is a
/// preface (a level, a logger, a fused letter), never a pair's name
/// (`ts=…`, `"time": …`, `at: …`). A message's own time is read this way
/// behind a shipper's header.
pub(crate) fn split_leading(line: &str) -> Option<Split<'_>> {
    let s = stamp_of(line).filter(|s| s.start <= LOOKAHEAD)?;
    let preface = &line[..s.start];
    if preface.contains(['=', '"']) || preface.contains(": ") || preface.ends_with(':') {
        return None;
    }
    Some(split_at(line, &s, None))
}

/// `line` split at its time `s`, the parts after it read by `plan` (the
/// parts most records have) or one by one.
fn split_at<'a>(line: &'a str, s: &Stamp<'a>, plan: Option<&[Part]>) -> Split<'a> {
    let mut out = Split {
        time: s.normalized(),
        ..Split::default()
    };
    preface(&line[..s.start], &mut out);
    let (parts, rest) = tail_parts(&line[s.end..], plan);
    // glog's `threadid file:line]`: the one number before the source is
    // the thread (C++ glog's `GetTID()`; Go's glog writes its pid there),
    // which ties a holder's business lines to it as a thread does.
    if let [(Part::Num, n), (Part::Source, _)] = parts.as_slice() {
        out.thread = Some(*n);
    }
    for (part, text) in parts {
        match part {
            Part::Level if out.level.is_none() => out.level = Some(text),
            Part::Num if out.pid.is_none() => out.pid = Some(text),
            Part::Num | Part::Bracket if out.thread.is_none() => out.thread = Some(text),
            Part::Tag | Part::Source | Part::Category | Part::Logger if out.logger.is_none() => {
                out.logger = Some(text)
            }
            _ => {}
        }
    }
    out.message = rest.trim_matches([' ', '\t']);
    out
}

/// The level, logger and thread in the text before a time: a level word
/// among its words (`=INFO REPORT====` has `INFO`), a level letter fused to
/// the time (glog's `I`), a dotted name (a logger), a `[thread]`.
fn preface<'a>(pre: &'a str, out: &mut Split<'a>) {
    let fused = pre.chars().next_back().is_some_and(|c| !c.is_whitespace());
    let words: Vec<&str> = pre.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let core = w.trim_matches(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '$')));
        let last_fused = fused && i + 1 == words.len();
        if out.level.is_none() && (level_word(core) || last_fused && level_letter(core)) {
            out.level = Some(core);
        } else if out.logger.is_none() && core.contains('.') && identifier(core) {
            out.logger = Some(core);
        } else if out.thread.is_none()
            && let Some(inner) = w.strip_prefix('[').and_then(|x| x.strip_suffix(']'))
            && !inner.is_empty()
        {
            out.thread = Some(inner);
        }
    }
}

/// A level word: the usual ones, any case, and
/// Microsoft.Extensions.Logging's console abbreviations (`trce`, `dbug`,
/// `info`, `warn`, `fail`, `crit`: `SimpleConsoleFormatter.GetLogLevelString`).
fn level_word(w: &str) -> bool {
    is_level(w)
        || matches!(
            w.to_ascii_lowercase().as_str(),
            "trace"
                | "debug"
                | "info"
                | "warn"
                | "warning"
                | "error"
                | "fatal"
                | "notice"
                | "critical"
                | "trce"
                | "dbug"
                | "fail"
                | "crit"
                | "verbose"
        )
}

/// A level letter: Android's `V D I W E F A`, glog's `I W E F`.
fn level_letter(w: &str) -> bool {
    matches!(w, "V" | "D" | "I" | "W" | "E" | "F" | "A" | "T")
}

/// Letters, digits, `.`, `_`, `$`, `-`, `/` only, at least one letter.
fn identifier(w: &str) -> bool {
    w.chars().any(char::is_alphabetic)
        && w.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '$' | '-' | '/'))
}

/// The parts after a time (each with its text) and the rest, the
/// message. With a `plan`, exactly the plan's parts are taken while the
/// line has them; else every part that looks like one, up to a part that
/// ends them.
fn tail_parts<'a>(s: &'a str, plan: Option<&[Part]>) -> (Vec<(Part, &'a str)>, &'a str) {
    let mut out: Vec<(Part, &'a str)> = Vec::new();
    let mut rest = s;
    if let Some(r) = rest.strip_prefix([']', ')', '|']) {
        rest = r;
        if plan.is_none_or(|p| p.first() == Some(&Part::Close)) {
            out.push((Part::Close, ""));
        }
    }
    for _ in 0..10 {
        if plan.is_some_and(|p| out.len() >= p.len()) {
            break;
        }
        let t = rest.trim_start_matches([' ', '\t']);
        let Some((part, text, after)) = next_part(t, out.iter().any(|p| p.0 == Part::Level)) else {
            break;
        };
        if let Some(p) = plan
            && p.get(out.len()) != Some(&part)
        {
            break;
        }
        out.push((part, text));
        rest = after;
        if part.ends() {
            break;
        }
    }
    (out, rest)
}

/// The part at the start of `t` (no leading space), its text and the text
/// after it; `None` when `t` starts with no part (the message).
fn next_part(t: &str, has_level: bool) -> Option<(Part, &str, &str)> {
    if let Some(inner) = t.strip_prefix('[') {
        let close = inner.find(']')?;
        return Some((Part::Bracket, inner[..close].trim(), &inner[close + 1..]));
    }
    let end = t.find([' ', '\t']).unwrap_or(t.len());
    let (w, after) = (&t[..end], &t[end..]);
    if w.is_empty() {
        return None;
    }
    let bare = w.strip_suffix(':').unwrap_or(w);
    let part = if !has_level && (level_word(bare) || level_letter(w)) {
        Part::Level
    } else if w.bytes().all(|c| c.is_ascii_digit()) {
        Part::Num
    } else if w == "---" {
        Part::Dashes
    } else if matches!(
        w,
        "-" | ":" | "--" | "|" | "===" | ">" | ">>" | "»" | "::" | "=>"
    ) {
        Part::Sep
    } else if w.ends_with(']') && !w.contains('[') && w.contains(':') {
        Part::Source
    } else if w.len() > 1 && w.ends_with(':') && identifier(bare) {
        Part::Tag
    } else if let Some((name, id)) = w.strip_suffix(']').and_then(|x| x.split_once('['))
        && identifier(name)
        && id.bytes().all(|c| c.is_ascii_digit())
    {
        Part::Category
    } else if w.contains('.') && identifier(w) && next_is_sep(after) {
        Part::Logger
    } else {
        return None;
    };
    let text = match part {
        Part::Level | Part::Tag => bare,
        Part::Source => w.trim_end_matches(']'),
        _ => w,
    };
    Some((part, text, after))
}

/// True when the next word of `s` is a separator.
fn next_is_sep(s: &str) -> bool {
    let w = s.split_whitespace().next().unwrap_or("");
    matches!(w, "-" | ":" | "--" | "|" | "::" | "=>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_is_split_at_a_time_of_the_bank_without_a_learned_structure() {
        // geth's layout: level, then `[MM-dd|HH:mm:ss.SSS]` without a year.
        let s =
            split_any("WARN [12-01|07:06:57.800] lock lost   key=lock:1 owner=a").expect("split");
        assert_eq!(s.time, "--12-01 07:06:57.800");
        assert_eq!(s.level, Some("WARN"));
        assert!(s.message.starts_with("lock lost"), "{}", s.message);
        assert_eq!(split_any("no time in this line at all"), None);
    }

    type Parts<'a> = (
        String,
        Option<&'a str>,
        Option<&'a str>,
        Option<&'a str>,
        Option<&'a str>,
        String,
    );

    fn parts<'a>(s: &Split<'a>) -> Parts<'a> {
        (
            s.time.clone(),
            s.level,
            s.logger,
            s.thread,
            s.pid,
            s.message.to_string(),
        )
    }

    #[test]
    fn level_before_the_time_and_no_year_go_ethereum() {
        let text = "INFO [12-01|07:06:55.000] lock taken                              k=v a=1\n\
                    WARN [12-01|07:06:55.500] lock lost                               k=v\n";
        let st = Structure::find(text).expect("geth");
        assert_eq!(st.pattern, "MM-dd|HH:mm:ss.SSS");
        assert_eq!(st.start_pattern(), "^\\S+ \\S*MM-dd|HH:mm:ss.SSS");
        let s = st.split(text.lines().next().expect("line")).expect("start");
        assert_eq!(
            parts(&s),
            (
                "--12-01 07:06:55.000".into(),
                Some("INFO"),
                None,
                None,
                None,
                "lock taken                              k=v a=1".into()
            )
        );
    }

    #[test]
    fn logcat_glog_and_the_time_after_the_logger() {
        let logcat = "12-01 07:06:55.000  4242  4242 I LockService: taken, lk: a\n\
                      12-01 07:06:55.100  4242  4251 W LockService: lost, lk: a\n";
        let st = Structure::find(logcat).expect("logcat");
        let s = st
            .split(logcat.lines().nth(1).expect("line"))
            .expect("start");
        assert_eq!(
            parts(&s),
            (
                "--12-01 07:06:55.100".into(),
                Some("W"),
                Some("LockService"),
                Some("4251"),
                Some("4242"),
                "lost, lk: a".into()
            )
        );
        let glog = "I1201 07:06:55.000000    4242 lock.go:88] taken k=a\n\
                    W1201 07:06:56.000000    4242 lock.go:91] lost k=a\n";
        let st = Structure::find(glog).expect("glog");
        let s = st.split(glog.lines().nth(1).expect("line")).expect("start");
        assert_eq!(
            parts(&s),
            (
                "--12-01 07:06:56.000000".into(),
                Some("W"),
                Some("lock.go:91"),
                Some("4242"),
                Some("4242"),
                "lost k=a".into()
            )
        );
        let first = "c.e.LockService 2026-12-01 07:06:55.000 INFO  [main] - taken k=a\n\
                     c.e.LockService 2026-12-01 07:06:55.100 WARN  [exec-1] - lost k=a\n";
        let st = Structure::find(first).expect("logger first");
        let s = st
            .split(first.lines().nth(1).expect("line"))
            .expect("start");
        assert_eq!(
            parts(&s),
            (
                "2026-12-01 07:06:55.100".into(),
                Some("WARN"),
                Some("c.e.LockService"),
                Some("exec-1"),
                None,
                "lost k=a".into()
            )
        );
    }

    #[test]
    fn records_over_several_lines_start_at_the_learned_pattern() {
        // Microsoft.Extensions.Logging's simple console: category, then the
        // message on the next line.
        let mel = "2026-12-01 07:06:55.000 info: Shop.Lock[0]\n      taken k=a\n\
                   2026-12-01 07:06:55.100 warn: Shop.Lock[0]\n      lost k=a at 07:06:55\n";
        let st = Structure::find(mel).expect("mel");
        assert!(st.multiline);
        let lines: Vec<&str> = mel.lines().map(str::trim).collect();
        let s = st.split(lines[2]).expect("start");
        assert_eq!(
            (s.level, s.logger, s.message),
            (Some("warn"), Some("Shop.Lock[0]"), "")
        );
        assert!(
            st.split(lines[3]).is_none(),
            "a time inside a message starts nothing"
        );
        // Erlang's error_logger reports.
        let erl = "\n=INFO REPORT==== 1-Dec-2026::07:06:55.000000 ===\n    \"taken\"\n    k: <<\"a\">>\n\n\
                   =WARNING REPORT==== 1-Dec-2026::07:06:56.000000 ===\n    \"lost\"\n";
        let st = Structure::find(erl).expect("erlang");
        let s = st
            .split("=WARNING REPORT==== 1-Dec-2026::07:06:56.000000 ===")
            .expect("start");
        assert_eq!(
            (s.time.as_str(), s.level, s.message),
            ("2026-12-01 07:06:56.000000", Some("WARNING"), "")
        );
        assert!(st.split("\"taken\"").is_none());
        assert_eq!(st.first_date.as_deref(), Some("2026-12-01"));
    }

    #[test]
    fn text_without_a_common_time_has_no_structure() {
        assert!(Structure::find("hello\nworld\n").is_none());
        assert!(Structure::find("a,2026-12-01 07:06:55,b\nc,2026-12-01 07:06:56,d\n").is_none());
        assert!(Structure::find("only 2026-12-01 07:06:55 once\n").is_none());
    }

    #[test]
    fn a_leading_time_is_no_pairs_value() {
        let glog =
            split_leading("I1201 07:06:55.100000    42 lock.go:88] taken k=a").expect("glog");
        assert_eq!(glog.time, "--12-01 07:06:55.100000");
        assert_eq!(glog.level, Some("I"));
        // glog's `threadid` ties a holder's lines as a thread does.
        assert_eq!(glog.thread, Some("42"));
        let logger =
            split_leading("c.e.Lock 2026-12-01 07:06:55.100 INFO [m] - x").expect("logger");
        assert_eq!(logger.message, "x");
        for pair in [
            "ts=2026-12-01T07:06:55.100Z taken",
            "\"time\": \"2026-12-01T07:06:55.100Z\"",
            "at: 2026-12-01T07:06:55.100Z taken",
        ] {
            assert!(split_leading(pair).is_none(), "{pair}");
        }
    }
}

//! Plain-text log lines: the prefixes that container runtimes and log tools
//! put before a line (`kubectl logs --timestamps`, CRI pod logs, logcli's
//! default output, `journalctl -o short-iso`), the default layouts of Java
//! logging (Spring Boot 2 and 3, Logback, Log4j2), and the message after
//! them: `key=value` pairs and the event words in English or Chinese.
//!
//! A line becomes ordered `(name, value)` pairs, the same shape as a logfmt
//! line or a CSV row, so field detection and extraction treat it like any
//! other record. Names of pairs found in the message are canonical role
//! names when the field detection knows them (`token=` and `owner=` both
//! become `holder`), so one file may word its lines differently.
//!
//! Sources of the layouts: docs/ingest.md, "Text lines".

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::ingest::framing::header::{self, Header, HeaderKind, LineStart};
use crate::ingest::framing::structure::Split;
use crate::ingest::framing::timestamp::{take_time, word};
use crate::ingest::vocabulary::message::is_level;
use crate::ingest::vocabulary::names::roles_of;
use crate::ingest::vocabulary::roles::{Role, Unit};
use crate::model::EventKind;

/// The application's own layout inside the line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Layout {
    /// A JSON object (the caller reads it as JSON).
    Json,
    /// `TIME LEVEL PID --- [thread] logger : message` (Spring Boot 2; 3 with
    /// an ISO time and an `[app]` bracket).
    SpringBoot,
    /// `TIME [thread] LEVEL logger - message` (Logback and Log4j2 patterns).
    Logback,
    /// `TIME LEVEL message` or `TIME message`.
    TimeMessage,
    /// Only a message.
    #[default]
    Message,
}

impl Layout {
    /// A name for the user.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Json => "JSON",
            Layout::SpringBoot => "Spring Boot",
            Layout::Logback => "Logback/Log4j2",
            Layout::TimeMessage => "time + message",
            Layout::Message => "message",
        }
    }
}

/// One text line split into its parts. Everything borrows from the line.
#[derive(Debug, Default)]
pub(crate) struct TextLine<'a> {
    /// The runtime's or shipper's time (kubectl, CRI, logcli, journald).
    pub prefix_time: Option<&'a str>,
    /// The application layout's own time.
    pub time: Option<&'a str>,
    /// Level word (`INFO`, `WARN`...).
    pub level: Option<&'a str>,
    /// Process id.
    pub pid: Option<&'a str>,
    /// Thread name (padding trimmed).
    pub thread: Option<&'a str>,
    /// Logger name.
    pub logger: Option<&'a str>,
    /// Host (journald).
    pub host: Option<&'a str>,
    /// logcli labels.
    pub labels: Vec<(&'a str, &'a str)>,
    /// The message (or the JSON payload when `layout` is [`Layout::Json`]).
    pub message: &'a str,
    /// With [`Layout::Json`]: the text around the JSON object (Monolog's
    /// message before its context), read for event words and pairs.
    pub around: &'a str,
    /// The header found (a shipper's or a runtime's).
    pub header: Option<HeaderKind>,
    /// The layout found.
    pub layout: Layout,
    /// True for a CRI partial line (`P`): its text continues on the next line.
    pub partial: bool,
    /// True when `time` is a time of day without a date (Logback's and
    /// Log4j2's default patterns).
    pub time_only: bool,
    /// Read the message's pairs in any common syntax
    /// ([`crate::ingest::readers::pairs::any_pairs`]), not only `k=v`: for
    /// text whose structure was found (`framing/structure.rs`).
    pub any_pairs: bool,
    /// Pair names kept as written, not renamed to their role: the fields a
    /// mapping names.
    pub keep: &'a [String],
}

/// The text line of a record split by a structure (`framing/structure.rs`),
/// with `msg` its message (the first line's rest and the lines that
/// continue it); `keep` names the fields kept as written.
pub(crate) fn of_split<'a>(split: &'a Split<'a>, msg: &'a str, keep: &'a [String]) -> TextLine<'a> {
    TextLine {
        time: Some(&split.time),
        level: split.level,
        logger: split.logger,
        thread: split.thread,
        pid: split.pid,
        message: msg,
        layout: Layout::TimeMessage,
        any_pairs: true,
        keep,
        ..TextLine::default()
    }
}

/// Reads the Java layouts after the time: level, pid, `---`, brackets,
/// logger and the ` : ` or ` - ` separator. Fills `t` and returns the layout.
fn java_layout<'a>(rest: &'a str, t: &mut TextLine<'a>) -> Layout {
    let mut s = rest;
    let mut brackets: Vec<&'a str> = Vec::new();
    let mut spring = false;
    let mut level = None;
    let mut pid = None;
    for _ in 0..8 {
        let trimmed = s.trim_start_matches([' ', '\t']);
        if let Some(inner) = trimmed.strip_prefix('[') {
            let Some(close) = inner.find(']') else { break };
            brackets.push(inner[..close].trim());
            s = &inner[close + 1..];
            continue;
        }
        let (w, after) = word(trimmed);
        if w.is_empty() {
            break;
        }
        if level.is_none() && is_level(w) {
            level = Some(w);
            s = after;
        } else if w == "---" {
            spring = true;
            s = after;
        } else if pid.is_none()
            && !spring
            && w.bytes().all(|c| c.is_ascii_digit())
            && level.is_some()
        {
            pid = Some(w);
            s = after;
        } else {
            break;
        }
    }
    // The logger, then its separator.
    let trimmed = s.trim_start_matches([' ', '\t']);
    let (logger, after) = word(trimmed);
    let sep_rest = after.trim_start_matches(' ');
    let logger_ok = !logger.is_empty()
        && logger
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'$' | b'-'));
    // ` : ` (Spring Boot), ` - ` (Logback/Log4j2 patterns), ` -- ` (Logback's
    // TTLLLayout without key-value pairs).
    let sep = sep_rest
        .strip_prefix(": ")
        .or_else(|| sep_rest.strip_prefix("-- "))
        .or_else(|| sep_rest.strip_prefix("- "));
    let message = match (sep, None::<&str>) {
        (Some(m), _) | (None, Some(m)) if logger_ok => {
            t.logger = Some(logger);
            Some(m)
        }
        _ if matches!(sep_rest, ":" | "-" | "--") => {
            t.logger = Some(logger);
            Some("")
        }
        _ => None,
    };
    t.level = level;
    t.pid = pid;
    // A trace id's bracket is no thread: SkyWalking's `[%tid]` prints
    // `TID:N/A` on every line when its agent is off, and read as a thread
    // it would make every holder one thread (and hide an incident).
    brackets.retain(|b| !trace_bracket(b));
    let layout = match (spring, brackets.len(), message) {
        (true, n, Some(_)) if n >= 1 => {
            // Spring Boot 3.2+: `[app] [thread]`; the thread is the last
            // bracket before the logger (a correlation id may follow it in 3.4).
            t.thread = Some(if n >= 2 { brackets[1] } else { brackets[0] });
            Layout::SpringBoot
        }
        (false, n, Some(_)) if n >= 1 => {
            t.thread = Some(brackets[0]);
            Layout::Logback
        }
        _ => {
            t.thread = brackets.first().copied();
            t.message = trimmed_message(if brackets.is_empty() && level.is_none() {
                rest
            } else {
                s
            });
            return Layout::TimeMessage;
        }
    };
    t.message = trimmed_message(message.unwrap_or(""));
    layout
}

/// True for a bracket that holds a trace id, not a thread: SkyWalking's
/// `%tid` (`TID:…`, `TID:N/A`; skywalking.apache.org, "apm-toolkit-logback-1.x"),
/// `traceId=…`/`trace_id:…` patterns, and an empty one (`N/A`, `-`).
fn trace_bracket(b: &str) -> bool {
    let lower = b.get(..b.len().min(9)).unwrap_or(b).to_ascii_lowercase();
    b.is_empty()
        || matches!(b, "N/A" | "-")
        || lower.starts_with("tid:")
        || lower.starts_with("traceid")
        || lower.starts_with("trace_id")
        || lower.starts_with("trace-id")
}

fn trimmed_message(s: &str) -> &str {
    s.trim_matches([' ', '\t'])
}

/// Splits one text line. Never fails: a line with nothing recognisable is
/// all message. A JSON object after any header and before any suffix is the
/// line's record ([`embedded_json`]); the text around it stays readable as
/// [`TextLine::around`].
pub(crate) fn parse_line(line: &str) -> TextLine<'_> {
    let mut t = match header::shipper(line) {
        Some(h) => framed_line(h, true),
        None => parse_layout(line),
    };
    if t.layout != Layout::Json
        && t.message.contains('{')
        && let Some((before, obj, _after)) = embedded_json(t.message)
    {
        t.around = before.trim_matches([' ', '\t']);
        t.message = obj;
        t.layout = Layout::Json;
    }
    t
}

/// A line whose shipper's header `header.rs` took off: the header's parts,
/// then the rest read as a Java layout, a time + message or a message; when
/// `nest`, the rest may carry one more header of another kind (never more:
/// a hostile line of alternating headers must not recurse without end).
fn framed_line(h: Header<'_>, nest: bool) -> TextLine<'_> {
    let rest = h.rest.trim_matches([' ', '\t']);
    // A runtime's own header inside the shipper's (Ruby's Logger behind a
    // syslog header): the inner one's time is the application's, finer
    // than the shipper's (RFC 3164 has whole seconds and no year).
    let inner = match header::shipper(rest).filter(|_| nest) {
        Some(h2) if h2.kind != h.kind => {
            let mut inner = framed_line(h2, false);
            if inner.time.is_none() {
                inner.time = inner.prefix_time.take();
            }
            inner
        }
        _ => parse_layout(rest),
    };
    let mut t = TextLine {
        header: Some(h.kind),
        prefix_time: h.time,
        host: h.host.or(inner.host),
        pid: inner.pid.or(h.pid),
        level: inner.level.or(h.level),
        labels: h.labels,
        ..inner
    };
    if let Some(app) = h.app {
        t.labels.push(("app", app));
    }
    t
}

/// [`parse_line`] without its search for a JSON object inside the line.
fn parse_layout(line: &str) -> TextLine<'_> {
    let mut t = TextLine {
        message: line,
        layout: Layout::Message,
        ..TextLine::default()
    };
    let payload = match header::runtime(line) {
        LineStart::Header(h) => {
            t.header = Some(h.kind);
            t.prefix_time = h.time;
            t.host = h.host;
            t.pid = h.pid;
            t.labels = h.labels;
            t.partial = h.partial;
            h.rest
        }
        LineStart::Timed { time, rest } => {
            t.time = Some(time);
            t.layout = java_layout(rest, &mut t);
            return t;
        }
        LineStart::Plain => line,
    };
    let payload = payload.trim_matches([' ', '\t']);
    if payload.starts_with('{') {
        t.layout = Layout::Json;
        t.message = payload;
        return t;
    }
    if let Some((time, rest, only)) = take_time(payload) {
        let pid = t.pid;
        let layout = java_layout(rest, &mut t);
        // A bare time of day counts only before a Java layout (Logback's and
        // Log4j2's defaults), not before any text.
        if !only || matches!(layout, Layout::Logback | Layout::SpringBoot) {
            t.time = Some(time);
            t.time_only = only;
            t.layout = layout;
            t.pid = t.pid.or(pid);
            return t;
        }
        t = TextLine {
            message: payload,
            header: t.header,
            prefix_time: t.prefix_time,
            host: t.host,
            pid,
            labels: std::mem::take(&mut t.labels),
            partial: t.partial,
            ..TextLine::default()
        };
    }
    t.message = payload;
    t
}

/// How many `{` a line is searched at for an embedded JSON object.
const TRIES: usize = 4;

/// The first JSON object with at least one field inside `msg`, as (text
/// before it, the object's text, text after it): Monolog's
/// `LineFormatter::SIMPLE_FORMAT`, `[%datetime%] %channel%.%level_name%:
/// %message% %context% %extra%`. `None` when there is none or `msg` is
/// itself one object.
pub(crate) fn embedded_json(msg: &str) -> Option<(&str, &str, &str)> {
    let mut from = 0;
    for _ in 0..TRIES {
        let i = from + msg.get(from..)?.find('{')?;
        let tail = &msg[i..];
        let mut it = serde_json::Deserializer::from_str(tail).into_iter::<Map<String, Value>>();
        if let Some(Ok(m)) = it.next()
            && !m.is_empty()
        {
            let end = i + it.byte_offset();
            return Some((&msg[..i], &msg[i..end], &msg[end..]));
        }
        from = i + 1;
    }
    None
}

/// A line of a stack trace (trimmed): a Java frame (`at pkg.Class.m(..)`),
/// `Caused by:`, `Suppressed:`, `... 12 more` / `... 12 common frames
/// omitted`, an exception's first line (`java.lang.IllegalStateException:
/// msg`: a dotted class name ending in Exception, Error or Throwable), or a
/// Python traceback's header and `File "x.py", line N` lines
/// (<https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/lang/Throwable.html#printStackTrace()>,
/// <https://docs.python.org/3/library/traceback.html>).
pub(crate) fn is_trace_line(l: &str) -> bool {
    if l.starts_with("at ") && l.ends_with(')')
        || l.starts_with("Caused by: ")
        || l.starts_with("Suppressed: ")
        || l.starts_with("Traceback (most recent call last)")
        || l.starts_with("File \"") && l.contains("\", line ")
    {
        return true;
    }
    if let Some(rest) = l.strip_prefix("... ") {
        return rest
            .split(' ')
            .next()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            && (rest.ends_with(" more") || rest.ends_with(" omitted"));
    }
    let class = l.split(": ").next().unwrap_or(l);
    class.contains('.')
        && !class.contains(' ')
        && ["Exception", "Error", "Throwable"]
            .iter()
            .any(|s| class.ends_with(s))
        && class
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'$'))
}

/// A mapping file's text rules: its `line_regex` and `[messages]`.
#[derive(Clone, Debug)]
pub(crate) struct TextRules {
    /// The line's layout; named groups are fields, `message` the message.
    pub line: Option<regex::Regex>,
    /// Per event kind, a regex over the message (named groups are fields).
    pub messages: Vec<(crate::model::EventKind, regex::Regex)>,
    /// The field names the mapping's `[fields]` gives: a message's pair of
    /// such a name keeps it, so the mapping finds it (`lk=` stays `lk`,
    /// not `key`).
    pub keep: Vec<String>,
    /// The longest line the regexes are run on, bytes: a longer line is a
    /// warning, not read (`mapping.rs`, `longest_line`).
    pub max_line: usize,
}

impl TextRules {
    /// The rules of `m`, `None` when it has none (no `line_regex`, no
    /// `[messages]`, no `[fields]`).
    pub fn of(m: &crate::ingest::roles::mapping::Mapping) -> Option<TextRules> {
        (m.line_regex.is_some() || !m.messages.is_empty() || !m.fields.is_empty()).then(|| {
            TextRules {
                line: m.line_regex.as_ref().map(|r| r.0.clone()),
                messages: m.messages.iter().map(|(k, r)| (*k, r.0.clone())).collect(),
                keep: m.fields.values().cloned().collect(),
                max_line: m
                    .line_regex
                    .iter()
                    .chain(m.messages.iter().map(|(_, r)| r))
                    .map(|r| r.1)
                    .min()
                    .unwrap_or(usize::MAX),
            }
        })
    }

    /// True when the rules read lines themselves (a `line_regex` or
    /// `[messages]`), not only keep the mapping's field names.
    pub fn reads_lines(&self) -> bool {
        self.line.is_some() || !self.messages.is_empty()
    }

    /// The pairs of a line these rules read: the line regex's groups (or
    /// the built-in layout when there is no line regex), then the event and
    /// groups of the first message regex that matches. `None` when the line
    /// regex does not match or no message regex does without a line regex:
    /// the built-in reading then decides.
    pub fn pairs<'a>(&'a self, line: &'a str) -> Option<Vec<(&'a str, Cow<'a, str>)>> {
        if !self.reads_lines() {
            return None;
        }
        let mut out: Vec<(&'a str, Cow<'a, str>)> = Vec::new();
        let message = match &self.line {
            Some(rx) => {
                let caps = rx.captures(line)?;
                let mut message = "";
                for name in rx.capture_names().flatten() {
                    let Some(m) = caps.name(name) else { continue };
                    if name == "message" {
                        message = m.as_str();
                    } else if name == "date" && caps.name("time").is_some() {
                        // Read with the time: `with_date`.
                    } else if !m.as_str().is_empty() {
                        out.push((canonical_group(name), Cow::Borrowed(m.as_str())));
                    }
                }
                with_date(&mut out, &caps);
                message
            }
            None => {
                let t = parse_line(line);
                let msg = t.message;
                out = to_pairs(&TextLine {
                    message: "",
                    labels: t.labels.clone(),
                    keep: &self.keep,
                    ..t
                });
                msg
            }
        };
        let hit = self
            .messages
            .iter()
            .find_map(|(k, rx)| rx.captures(message).map(|c| (*k, c, rx)));
        match hit {
            Some((kind, caps, rx)) => {
                out.push(("event", Cow::Borrowed(kind.as_str())));
                for name in rx.capture_names().flatten() {
                    if let Some(m) = caps.name(name).filter(|m| !m.as_str().is_empty()) {
                        out.push((canonical_group(name), Cow::Borrowed(m.as_str())));
                    }
                }
            }
            None if self.line.is_none() => return None,
            None => {
                let t = TextLine {
                    message,
                    keep: &self.keep,
                    ..TextLine::default()
                };
                out.extend(to_pairs(&t));
            }
        }
        if !message.is_empty() && !out.iter().any(|(k, _)| *k == "msg") {
            out.push(("msg", Cow::Borrowed(message)));
        }
        Some(out)
    }
}

/// A line regex's `date` group put before its `time` group's value (one
/// time, `date time`): a layout that parts the date from the time of day.
fn with_date<'a>(out: &mut [(&'a str, Cow<'a, str>)], caps: &regex::Captures<'a>) {
    let Some(date) = caps.name("date").filter(|d| !d.as_str().is_empty()) else {
        return;
    };
    let Some(time) = caps.name("time").filter(|t| !t.as_str().is_empty()) else {
        return;
    };
    let joined = format!("{} {}", date.as_str(), time.as_str());
    for (k, v) in out.iter_mut() {
        if *k == "time" && v.as_ref() == time.as_str() {
            *v = Cow::Owned(joined.clone());
        }
    }
}

/// A regex group's name as a field: the role names of docs/ingest.md
/// (`ttl_ms`, `order_id`...) are kept, other names are read like a
/// message pair's.
fn canonical_group(name: &str) -> &str {
    match name {
        "time" | "ttl_ms" | "ttl_s" | "stock_before" | "stock_after" | "order_id"
        | "unit_price" | "fencing_token" | "elapsed_ms" => name,
        other => canonical_name(other),
    }
}

/// The layout most of the first lines of `text` have, for the user:
/// `Spring Boot`, `CRI pod log + Spring Boot`, ...
pub(crate) fn describe_layout(text: &str) -> Option<String> {
    let mut counts: Vec<((Option<HeaderKind>, Layout), u32)> = Vec::new();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(50)
    {
        let t = parse_line(line);
        if t.time.is_none() && t.prefix_time.is_none() {
            continue;
        }
        let k = (t.header, t.layout);
        match counts.iter_mut().find(|(c, _)| *c == k) {
            Some(c) => c.1 += 1,
            None => counts.push((k, 1)),
        }
    }
    let ((header, layout), _) = counts.into_iter().max_by_key(|(_, n)| *n)?;
    Some(match header.map(HeaderKind::name) {
        Some(p) => format!("{p} + {}", layout.name()),
        None => layout.name().to_string(),
    })
}

/// The event a message's words name, as a canonical event name that
/// [`crate::ingest::roles::fields::event_kind`] maps: failure phrases before success ones,
/// Chinese by containment. `None` when no lock or business phrase is there.
pub(crate) fn message_event(msg: &str) -> Option<&'static str> {
    message_event_in(msg, None)
}

/// [`message_event`] with the message's pairs ([`message_pairs`]) when the
/// caller has them. After the phrases, the message's leading words are read
/// as an event name (`unlock success`, `release lock`: a lock word needed),
/// and an outcome pair decides an acquire or an attempt (`tryLock ...
/// locked=false` is a failed acquire, `... result=OK` an acquire):
/// [`crate::ingest::vocabulary::message`].
pub(crate) fn message_event_in(
    msg: &str,
    pairs: Option<&[(&str, Cow<'_, str>)]>,
) -> Option<&'static str> {
    // The Chinese vocabulary is the event field's (one list for both), its
    // negations too (`没抢到锁` is a failed acquire, as in an event field).
    if !msg.is_ascii()
        && let Some(k) = crate::ingest::vocabulary::events::chinese_kind(msg)
    {
        return crate::ingest::vocabulary::failure::negated(k, msg).map(EventKind::as_str);
    }
    thread_local! {
        /// The head in normal form (a message is read once per line: no
        /// allocation each time).
        static BUF: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    BUF.with(|b| message_kind_in(msg, pairs, &mut b.borrow_mut()))
        .map(EventKind::as_str)
}

/// [`message_event_in`]'s English part, with `buf` for the head.
fn message_kind_in(
    msg: &str,
    pairs: Option<&[(&str, Cow<'_, str>)]>,
    buf: &mut String,
) -> Option<EventKind> {
    use crate::ingest::vocabulary::{failure, message as m};
    let phrase = english_event(msg).and_then(EventKind::from_canonical);
    let head = if phrase.is_none() { m::head(msg) } else { None };
    if let Some(h) = head {
        crate::ingest::vocabulary::events::normalize_camel(h, buf);
    }
    let kind = phrase
        .or_else(|| head.and_then(|_| m::head_kind_of(buf)))
        .and_then(|k| failure::negated(k, m::head(msg).unwrap_or(msg)));
    let attempt = kind.is_none() && head.is_some() && m::head_is_attempt_of(buf);
    let has_pairs = match pairs {
        Some(p) => !p.is_empty(),
        None => memchr::memchr(b'=', msg.as_bytes()).is_some() || msg.contains('：'),
    };
    match kind {
        Some(EventKind::Acquired) | None if has_pairs && (kind.is_some() || attempt) => {
            let owned;
            let pairs = match pairs {
                Some(p) => p,
                None => {
                    owned = message_pairs(msg);
                    &owned
                }
            };
            m::with_outcome(kind, attempt, m::outcome(pairs))
        }
        k => k,
    }
}

/// English event phrases by kind, failure forms first: the first kind with
/// a phrase in the message (at word boundaries, any case) wins.
const ENGLISH_PHRASES: &[(&str, &[&str])] = &[
    (
        "release_failed",
        &[
            "release failed",
            "failed to release",
            "unlock failed",
            "failed to unlock",
            "release lock failed",
            "could not release",
            "unable to release",
        ],
    ),
    (
        "acquire_failed",
        &[
            "could not acquire",
            "failed to acquire",
            "unable to acquire",
            "acquire failed",
            "lock busy",
            "lock not acquired",
            "timed out acquiring",
            "acquire timeout",
            "could not obtain",
            "failed to obtain",
            "lock is held by",
        ],
    ),
    (
        "acquired",
        &[
            "acquired lock",
            "lock acquired",
            "acquired the lock",
            "got lock",
            "got the lock",
            "obtained lock",
            "lock obtained",
            "lock granted",
            "locked",
        ],
    ),
    (
        "renewed",
        &[
            "renewed",
            "lock extended",
            "extended lock",
            "lease extended",
            "watchdog renew",
        ],
    ),
    (
        "lock_lost",
        &["lock lost", "lost lock", "lost the lock", "lease lost"],
    ),
    (
        "released",
        &[
            "released lock",
            "lock released",
            "released the lock",
            "unlocked",
            "released",
        ],
    ),
    (
        "stock_initialized",
        &[
            "stock initialized",
            "stock initialised",
            "initialized stock",
            "inventory initialized",
        ],
    ),
    (
        "stock_deducted",
        &[
            "stock deducted",
            "deducted stock",
            "deduct stock",
            "stock decremented",
            "decremented stock",
            "inventory deducted",
        ],
    ),
    (
        "stock_read",
        &[
            "stock read",
            "read stock",
            "stock checked",
            "checked stock",
            "stock queried",
            "inventory read",
        ],
    ),
    (
        "order_created",
        &[
            "order created",
            "created order",
            "order placed",
            "placed order",
        ],
    ),
    (
        "write_rejected",
        &[
            "write rejected",
            "fencing token rejected",
            "stale token rejected",
        ],
    ),
];

/// One automaton over every phrase of [`ENGLISH_PHRASES`] (a message is
/// searched once, not once per phrase).
fn english_event(msg: &str) -> Option<&'static str> {
    use std::sync::LazyLock;
    static PHRASES: LazyLock<(Option<aho_corasick::AhoCorasick>, Vec<usize>)> =
        LazyLock::new(|| {
            let mut kinds = Vec::new();
            let mut pats = Vec::new();
            for (k, (_, ps)) in ENGLISH_PHRASES.iter().enumerate() {
                for p in ps.iter() {
                    pats.push(*p);
                    kinds.push(k);
                }
            }
            let ac = aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(pats)
                .ok();
            (ac, kinds)
        });
    let (Some(ac), kinds) = &*PHRASES else {
        return None;
    };
    let b = msg.as_bytes();
    let boundary = |i: usize| i == 0 || i >= b.len() || !b[i].is_ascii_alphanumeric();
    let best = ac
        .find_overlapping_iter(msg)
        // The byte before the match and the byte after it end words.
        .filter(|m| (m.start() == 0 || boundary(m.start() - 1)) && boundary(m.end()))
        // A pair's name (`locked=false`) is no phrase.
        .filter(|m| !matches!(b.get(m.end()), Some(b'=')))
        .map(|m| kinds[m.pattern().as_usize()])
        .min()?;
    Some(ENGLISH_PHRASES[best].0)
}

/// True for characters that may be part of a pair's name.
fn name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '@')
}

/// Characters that end an unquoted value.
fn value_end(c: char) -> bool {
    c.is_whitespace() || matches!(c, ',' | '，' | ';' | '；' | '、' | ')' | '）' | '}')
}

/// `key=value` pairs (also `key: value` is not taken: colons live in lock
/// keys) anywhere in a message. Values are bare (up to a space, comma,
/// semicolon or closing bracket, trailing `:` and `.` dropped) or quoted.
/// A message template's hole (`{Name}`) is never a value.
pub(crate) fn message_pairs(msg: &str) -> Vec<(&str, Cow<'_, str>)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(rel) = msg[from..].find(['=', '：']) {
        let eq = from + rel;
        let sep_len = msg[eq..].chars().next().map_or(1, char::len_utf8);
        // The name: the run of name characters before the separator.
        let start = msg[..eq]
            .char_indices()
            .rev()
            .take_while(|(_, c)| name_char(*c))
            .last()
            .map_or(eq, |(i, _)| i);
        let name = &msg[start..eq];
        let vstart = eq + sep_len;
        let rest = &msg[vstart..];
        let (value, next) = if let Some(q) = rest.strip_prefix('"') {
            match q.find('"') {
                Some(close) => (&q[..close], vstart + close + 2),
                None => (q, msg.len()),
            }
        } else {
            let end = rest.find(value_end).unwrap_or(rest.len());
            let v = rest[..end].trim_end_matches([':', '.', '。']);
            // An empty value moves on by one whole character: one byte
            // could land inside a multi-byte space (U+00A0).
            let step = match end {
                0 => rest.chars().next().map_or(0, char::len_utf8),
                n => n,
            };
            (v, vstart + step)
        };
        if !name.is_empty()
            && !value.is_empty()
            && !name.starts_with(['-', '.'])
            && !super::pairs::is_hole(value)
        {
            out.push((name, Cow::Borrowed(value)));
            // A logfmt line's quoted message (`msg="acquired lock key=k"`)
            // among lines of another layout: its own pairs are the line's
            // too, as the logfmt reader takes them from its payload.
            if rest.starts_with('"') && roles_of(name).iter().any(|(r, _, _)| *r == Role::Message) {
                for (k, v) in message_pairs(value) {
                    if !out.iter().any(|(n, _)| *n == k) {
                        out.push((k, v));
                    }
                }
            }
        }
        from = next.max(eq + sep_len);
        if from >= msg.len() {
            break;
        }
    }
    out
}

/// The canonical name for a message pair's name: the role it plays when the
/// field detection knows it (`token` -> `holder`, `leaseTime` -> `ttl`),
/// else the name as written. Time-like names are kept as written so they
/// never compete with the line's own time.
pub(crate) fn canonical_name(name: &str) -> &str {
    thread_local! {
        /// Name -> canonical name (`None`: kept as written). A log has few
        /// distinct pair names; bounded so odd input cannot grow it.
        static CACHE: std::cell::RefCell<hashbrown::HashMap<Box<str>, Option<&'static str>>> =
            std::cell::RefCell::new(hashbrown::HashMap::new());
    }
    let known = CACHE.with(|c| c.borrow().get(name).copied());
    let canon = match known {
        Some(c) => c,
        None => {
            let roles = roles_of(name);
            let c = match roles.iter().min_by_key(|(_, rank, _)| *rank) {
                Some((Role::Time, _, _)) | None => None,
                Some((Role::Ttl, _, Unit::S)) => Some("ttl_s"),
                Some((role, _, _)) => Some(role.name()),
            };
            CACHE.with(|cache| {
                let mut cache = cache.borrow_mut();
                if cache.len() < 4096 {
                    cache.insert(name.into(), c);
                }
            });
            c
        }
    };
    canon.unwrap_or(name)
}

/// The pairs of a message that writes none as `k=v` but at least two in
/// another common syntax ([`super::pairs::any_pairs`]: `k: v, k: v`,
/// Android's and many loggers' way); empty otherwise, so that one
/// `error: refused` is no field.
fn colon_pairs(msg: &str) -> Vec<(&str, Cow<'_, str>)> {
    let pairs = super::pairs::any_pairs(msg);
    if pairs.len() >= 2 { pairs } else { Vec::new() }
}

/// Names of the pairs [`to_pairs`] makes from a line's layout (outer names
/// for the runtime prefix are prefixed with `prefix.`).
pub(crate) const PREFIX_TIME: &str = "prefix.time";

/// Turns a parsed line into record pairs: the layout's fields, then an
/// `event` from the message's words (when no `event=` pair is there), then
/// the message's own pairs under canonical names, then the message itself
/// as `msg`.
pub(crate) fn to_pairs<'a>(t: &TextLine<'a>) -> Vec<(&'a str, Cow<'a, str>)> {
    let mut out: Vec<(&'a str, Cow<'a, str>)> = Vec::with_capacity(16);
    let mut push = |k: &'a str, v: Option<&'a str>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            out.push((k, Cow::Borrowed(v)));
        }
    };
    push("time", t.time);
    push(PREFIX_TIME, t.prefix_time);
    push("level", t.level);
    push("host", t.host);
    push("logger", t.logger);
    for (k, v) in &t.labels {
        push(k, Some(v));
    }
    let pairs = if t.any_pairs {
        super::pairs::any_pairs(t.message)
    } else {
        let pairs = message_pairs(t.message);
        if pairs.is_empty() {
            colon_pairs(t.message)
        } else {
            pairs
        }
    };
    let name = |k: &'a str| {
        if t.keep.iter().any(|x| x == k) {
            k
        } else {
            canonical_name(k)
        }
    };
    let has_event = pairs.iter().any(|(k, _)| name(k) == "event");
    if !has_event && let Some(ev) = message_event_in(t.message, Some(&pairs)) {
        out.push(("event", Cow::Borrowed(ev)));
    }
    // The thread, qualified by the process when the layout names one, so
    // that a tie by thread never crosses processes.
    match (t.thread, t.pid) {
        (Some(th), Some(pid)) if !th.is_empty() => {
            out.push(("thread", Cow::Owned(format!("{th}@{pid}"))))
        }
        (Some(th), _) if !th.is_empty() => out.push(("thread", Cow::Borrowed(th))),
        _ => {}
    }
    for (k, v) in pairs {
        out.push((name(k), v));
    }
    if !t.message.is_empty() {
        out.push(("msg", Cow::Borrowed(t.message)));
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn an_empty_value_before_a_multibyte_space_does_not_panic() {
        // `key=` then U+00A0: a step of one byte would split the space.
        assert!(
            message_pairs("time=\u{a0}20t=buffer_flushed")
                .contains(&("20t", "buffer_flushed".into()))
        );
        assert!(message_pairs("a=\u{3000}b=c").contains(&("b", "c".into())));
    }

    use super::*;

    fn get<'a>(p: &'a [(&str, Cow<'_, str>)], k: &str) -> Option<&'a str> {
        p.iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_ref())
    }

    #[test]
    fn a_ruby_logger_line_behind_a_syslog_header_keeps_its_own_time() {
        // rsyslog forwarding a Rails/Ruby Logger line (Ruby's logger/formatter.rb
        // `Format = "%.1s, [%s #%d] %5s -- %s: %s\n"`).
        let l = "<134>Nov 30 23:06:55 web-01 flash-sale[4242]: I, [2026-11-30T23:06:55.433000 #4242]  INFO -- flashsale: lock renewed ev=renew lk=lock:sku:2002";
        let t = parse_line(l);
        assert_eq!(t.header, Some(HeaderKind::Syslog3164));
        assert_eq!(t.time, Some("2026-11-30T23:06:55.433000"));
        assert_eq!(t.host, Some("web-01"));
        assert!(t.message.starts_with("lock renewed"), "{}", t.message);
        // Headers nest one deep only: a third is message text.
        let deep =
            format!("<134>Nov 30 23:06:55 h a[1]: I, [2026-11-30T23:06:55.4 #1]  INFO -- : {l}");
        assert!(parse_line(&deep).message.contains("<134>"));
    }

    #[test]
    fn spring_boot_2_and_3() {
        // Spring Boot 2.x CONSOLE_LOG_PATTERN (defaults.xml).
        let l = "2026-12-01 07:06:55.100  INFO 12345 --- [      exec-1] c.e.shop.StockService                    : acquired lock key=lock:sku:1001 token=tok-A ttl=2000ms";
        let t = parse_line(l);
        assert_eq!(t.layout, Layout::SpringBoot);
        assert_eq!(t.time, Some("2026-12-01 07:06:55.100"));
        assert_eq!(
            (t.level, t.pid, t.thread),
            (Some("INFO"), Some("12345"), Some("exec-1"))
        );
        assert_eq!(t.logger, Some("c.e.shop.StockService"));
        let p = to_pairs(&t);
        assert_eq!(get(&p, "event"), Some("acquired"));
        assert_eq!(get(&p, "key"), Some("lock:sku:1001"));
        assert_eq!(get(&p, "holder"), Some("tok-A"));
        assert_eq!(get(&p, "ttl"), Some("2000ms"));
        assert_eq!(get(&p, "thread"), Some("exec-1@12345"));
        // Spring Boot 3.2+: ISO time with offset and an [app] bracket.
        let l = "2026-12-01T07:06:55.100+08:00  INFO 12345 --- [shop] [      exec-1] c.e.shop.StockService                    : 释放锁失败 key=lock:sku:1001 token=tok-A";
        let t = parse_line(l);
        assert_eq!(t.layout, Layout::SpringBoot);
        assert_eq!(t.time, Some("2026-12-01T07:06:55.100+08:00"));
        assert_eq!(t.thread, Some("exec-1"));
        assert_eq!(get(&to_pairs(&t), "event"), Some("release_failed"));
    }

    #[test]
    fn logback_and_prefixes() {
        let t = parse_line(
            "2026-12-01 07:06:55.100 [exec-1] INFO  c.e.Stock - stock deducted sku=sku-1001 qty=1 stockAfter=0",
        );
        assert_eq!(t.layout, Layout::Logback);
        assert_eq!((t.thread, t.level), (Some("exec-1"), Some("INFO")));
        let p = to_pairs(&t);
        assert_eq!(get(&p, "event"), Some("stock_deducted"));
        assert_eq!(get(&p, "quantity"), Some("1"));
        assert_eq!(get(&p, "stock_after"), Some("0"));
        let t = parse_line("2026-11-30T23:06:55.100000000Z stdout F {\"a\":1}");
        assert_eq!(
            (t.header, t.layout, t.message),
            (Some(HeaderKind::Cri), Layout::Json, "{\"a\":1}")
        );
        let t = parse_line("2026-11-30T23:06:55.100000000Z {\"a\":1}");
        assert_eq!(
            (t.header, t.layout),
            (Some(HeaderKind::Kubectl), Layout::Json)
        );
        let t = parse_line(
            "2026-12-01T07:06:55+08:00 {app=\"shop\", pod=\"web-01\"} released lock key=k token=t",
        );
        assert_eq!(t.header, Some(HeaderKind::Logcli));
        assert_eq!(t.labels, vec![("app", "shop"), ("pod", "web-01")]);
        let t = parse_line(
            "2026-12-01T07:06:55+0800 web-01 shop[12345]: 2026-12-01 07:06:55.100  INFO 12345 --- [exec-1] c.e.S : released lock",
        );
        assert_eq!(
            (t.header, t.host, t.layout),
            (
                Some(HeaderKind::Journald),
                Some("web-01"),
                Layout::SpringBoot
            )
        );
        assert_eq!(t.time, Some("2026-12-01 07:06:55.100"));
        assert_eq!(t.prefix_time, Some("2026-12-01T07:06:55+0800"));
    }

    #[test]
    fn bracketed_times_with_an_offset_or_a_level_inside() {
        // gunicorn: `[%Y-%m-%d %H:%M:%S %z] [pid] [LEVEL] message`.
        let t = parse_line("[2024-11-11 00:00:01 +0800] [2345] [INFO] acquired lock key=a owner=b");
        assert_eq!(t.time, Some("2024-11-11 00:00:01 +0800"));
        assert!(
            t.message.ends_with("acquired lock key=a owner=b"),
            "{}",
            t.message
        );
        // Rust env_logger: `[TIME LEVEL target] message`.
        let t = parse_line("[2024-11-10T16:00:01Z INFO  shop::lock] acquired lock key=a owner=b");
        assert_eq!(t.time, Some("2024-11-10T16:00:01Z"));
        assert!(
            t.message.ends_with("acquired lock key=a owner=b"),
            "{}",
            t.message
        );
        // A bracket with no level after the time is no time.
        assert_eq!(parse_line("[2024-11-10T16:00:01Z shop] x").time, None);
    }

    #[test]
    fn message_words_and_pairs() {
        assert_eq!(
            message_event("Lock acquired: key=a, owner=b"),
            Some("acquired")
        );
        assert_eq!(
            message_event("could not acquire lock key=a"),
            Some("acquire_failed")
        );
        assert_eq!(
            message_event("release failed key=a token=b: lock not owned"),
            Some("release_failed")
        );
        assert_eq!(
            message_event("扣减库存成功，sku=1，数量=1"),
            Some("stock_deducted")
        );
        assert_eq!(message_event("没抢到锁"), Some("acquire_failed"));
        assert_eq!(message_event("抢到分布式锁"), Some("acquired"));
        assert_eq!(message_event("user logged in"), None);
        assert_eq!(message_event("unreleased"), None);
        let p = message_pairs("release failed key=lock:sku:1 token=tok-A: lock not owned");
        assert_eq!(
            p,
            vec![
                ("key", Cow::Borrowed("lock:sku:1")),
                ("token", Cow::Borrowed("tok-A"))
            ]
        );
        let p = message_pairs("扣减库存成功，sku=sku-1，数量=1，stock_after=0");
        assert_eq!(p.len(), 3);
        assert_eq!(p[1], ("数量", Cow::Borrowed("1")));
        let p = message_pairs("a=\"x y\" b= c=3");
        assert_eq!(
            p,
            vec![("a", Cow::Borrowed("x y")), ("c", Cow::Borrowed("3"))]
        );
        // A quoted message's own pairs follow it; another quoted value's
        // do not.
        let p = message_pairs("level=info msg=\"acquired lock key=k holder=x1\" sql=\"a=1\"");
        let names: Vec<&str> = p.iter().map(|(k, _)| *k).collect();
        assert_eq!(names, ["level", "msg", "key", "holder", "sql"]);
    }

    #[test]
    fn a_message_of_colon_pairs_gives_its_pairs_and_one_colon_none() {
        // Android logcat's way (`tag: words, k: v, k: v`) after a known
        // layout's time: the pairs are the message's fields.
        let t = parse_line(
            "2026-12-01T07:06:55.100Z grabbed the mutex, shijian: mutex_grabbed, suojian: lock:sku:2002, guoqi: 1",
        );
        let pairs = to_pairs(&t);
        let get = |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_ref());
        assert_eq!(get("suojian"), Some("lock:sku:2002"));
        assert_eq!(get("shijian"), Some("mutex_grabbed"));
        // One `word: text` is a message, not a field.
        let t = parse_line("2026-12-01T07:06:55.100Z error: connection refused");
        assert!(!to_pairs(&t).iter().any(|(n, _)| *n == "error"));
    }

    #[test]
    fn nothing_panics_on_odd_lines() {
        for l in [
            "",
            "[",
            "{",
            "2026-12-01",
            "2026-12-01 07:06",
            "x=",
            "=",
            "a=\"",
            "2026-12-01T07:06:55Z stdout",
            "2026-12-01T07:06:55Z {a=\"",
            "：=：",
            "é=é",
            "2026-12-01 07:06:55 [",
            "12:00:00 ",
        ] {
            let t = parse_line(l);
            let _ = to_pairs(&t);
        }
    }

    #[test]
    fn json_inside_a_line() {
        // Monolog LineFormatter: message, context, extra.
        let (before, obj, after) =
            embedded_json(r#"shop.INFO: lock acquired {"lock_key":"k","owner":"a"} []"#)
                .expect("monolog");
        assert_eq!(before, "shop.INFO: lock acquired ");
        assert_eq!(obj, r#"{"lock_key":"k","owner":"a"}"#);
        assert_eq!(after, " []");
        // A brace that opens no object is passed over; `{}` is no record.
        let (b, o, _) = embedded_json(r#"user {name} {} then {"k":1}"#).expect("later");
        assert_eq!((b, o), ("user {name} {} then ", r#"{"k":1}"#));
        assert!(embedded_json("no braces here").is_none());
        assert!(embedded_json("{not json").is_none());
    }
}

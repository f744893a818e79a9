//! A line's header: what a log shipper or a container runtime wrote before
//! the application's own line, one [`Header`] for all of them, with its
//! time, host, program, process, level and labels. Its fields are the
//! record's outer part (the envelope): a text line names its time
//! `prefix.time`, and the application's own fields win over it
//! (`records/record.rs`, [`crate::ingest::records::record::Scope`]).
//!
//! Shippers ([`shipper`]): syslog (RFC 5424 and RFC 3164, with or without
//! `<PRI>`), Ruby's `Logger::Formatter`, Fluentd's `out_file`, Fluent Bit's
//! `out_file`. Runtimes and log tools ([`runtime`], after a time at the
//! line's start): `kubectl logs --timestamps`, CRI pod logs (`framing/cri.rs`
//! reads their `stdout F` part), logcli's default output, `journalctl -o
//! short-iso`, Grafana Explore's `.txt` download.
//!
//! Sources (each test below names its own):
//! - RFC 5424 §6 (`<PRI>VERSION SP TIMESTAMP SP HOSTNAME SP APP-NAME SP
//!   PROCID SP MSGID SP STRUCTURED-DATA [SP MSG]`, `-` for a nil value,
//!   `[id name="value"]` elements with `\"`, `\\`, `\]` escaped).
//! - RFC 3164 §4.1 (`<PRI>Mmm dd hh:mm:ss HOSTNAME TAG[pid]: CONTENT`);
//!   rsyslog's `RSYSLOG_TraditionalFileFormat` writes the same without
//!   `<PRI>`.
//! - ruby/ruby `lib/logger/formatter.rb`: `"%s, [%s#%d] %5s -- %s: %s\n"`
//!   with the time as `%Y-%m-%dT%H:%M:%S.%6N ` (note the space).
//! - fluent/fluentd-docs-gitbook `plugins/formatter/out_file.md`:
//!   `time[TAB]tag[TAB]record` with an ISO 8601 time.
//! - docs.fluentbit.io, "File" output, format `out_file` (the default):
//!   `tag: [time, {"key1":"value1", ...}]`, the time as epoch seconds with
//!   a fraction (`flb_time`: nine digits).
//! - The runtimes' layouts: docs/ingest.md, "Text lines".

use super::cri;
use super::timestamp::{take_time, time_len, word};
use crate::ingest::roles::time::month_of;
use crate::ingest::vocabulary::message::is_level;

/// Which header a line has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum HeaderKind {
    /// `kubectl logs --timestamps`: an RFC 3339 time, a space, the line.
    Kubectl,
    /// CRI pod log: `TIME stdout|stderr F|P line`.
    Cri,
    /// logcli's default output: `TIME {labels} line`.
    Logcli,
    /// `journalctl -o short-iso`: `TIME host ident[pid]: message`.
    Journald,
    /// Grafana Explore's `.txt` download: `EPOCH_MS<TAB>TIME<TAB>line`.
    Grafana,
    /// Syslog RFC 5424.
    Syslog5424,
    /// Syslog RFC 3164 (BSD syslog; also a traditional syslog file line).
    Syslog3164,
    /// Ruby `Logger`: `I, [TIME #PID]  INFO -- prog: `.
    Ruby,
    /// Fluentd `out_file`: `TIME<TAB>TAG<TAB>`.
    Fluentd,
    /// Fluent Bit `out_file`: `TAG: [EPOCH, {record}]`.
    FluentBit,
}

impl HeaderKind {
    /// A name for the user.
    pub fn name(self) -> &'static str {
        match self {
            HeaderKind::Kubectl => "kubectl --timestamps",
            HeaderKind::Cri => "CRI pod log",
            HeaderKind::Logcli => "logcli",
            HeaderKind::Journald => "journalctl short-iso",
            HeaderKind::Grafana => "Grafana Explore txt",
            HeaderKind::Syslog5424 => "syslog RFC 5424",
            HeaderKind::Syslog3164 => "syslog RFC 3164",
            HeaderKind::Ruby => "Ruby Logger",
            HeaderKind::Fluentd => "Fluentd out_file",
            HeaderKind::FluentBit => "Fluent Bit out_file",
        }
    }
}

/// A line's header and the line after it; everything borrows from the
/// line.
#[derive(Debug)]
pub(crate) struct Header<'a> {
    /// Which header it is.
    pub kind: HeaderKind,
    /// The header's time as written (may lack a year: RFC 3164).
    pub time: Option<&'a str>,
    /// Host name.
    pub host: Option<&'a str>,
    /// Program, app name or Fluentd tag.
    pub app: Option<&'a str>,
    /// Process id.
    pub pid: Option<&'a str>,
    /// Level word (Ruby).
    pub level: Option<&'a str>,
    /// Labels: RFC 5424 structured-data parameters (`name="value"`, value
    /// unescaped only when it has no escapes), logcli's label set.
    pub labels: Vec<(&'a str, &'a str)>,
    /// True for a CRI partial line (`P`): its text continues on the next
    /// line of its stream.
    pub partial: bool,
    /// The line after the header.
    pub rest: &'a str,
}

impl<'a> Header<'a> {
    /// A header of `kind` with no parts yet, before `rest`.
    fn of(kind: HeaderKind, rest: &'a str) -> Header<'a> {
        Header {
            kind,
            time: None,
            host: None,
            app: None,
            pid: None,
            level: None,
            labels: Vec::new(),
            partial: false,
            rest,
        }
    }
}

/// Takes a shipper's header off `line`; `None` when it has none.
pub(crate) fn shipper(line: &str) -> Option<Header<'_>> {
    let b = line.as_bytes();
    match b.first()? {
        b'<' => syslog(line),
        b'A'..=b'Z' if b.get(1) == Some(&b',') => ruby(line),
        b'A'..=b'Z' => bsd_body(line),
        b'0'..=b'9' => fluentd(line),
        _ => None,
    }
    .or_else(|| fluentbit(line))
}

/// How a line without a shipper's header starts.
#[derive(Debug)]
pub(crate) enum LineStart<'a> {
    /// A runtime's or log tool's header ([`runtime`]).
    Header(Header<'a>),
    /// The application's own time (with a date), then `rest`: its layout.
    Timed { time: &'a str, rest: &'a str },
    /// Neither: the line as it is.
    Plain,
}

/// Reads the start of `line` (no shipper's header): a runtime's or log
/// tool's header after a time (CRI, logcli, kubectl, Grafana, journald),
/// else the application's own time, else nothing. A time of day alone
/// (no date) is neither.
pub(crate) fn runtime(line: &str) -> LineStart<'_> {
    // Grafana's txt rows start with the epoch in ms and a tab.
    let (line, grafana) = match line.split_once('\t') {
        Some((ms, rest)) if ms.len() >= 10 && ms.bytes().all(|c| c.is_ascii_digit()) => {
            (rest, true)
        }
        _ => (line, false),
    };
    let Some((time, rest, false)) = take_time(line) else {
        return LineStart::Plain;
    };
    let after = rest.trim_start_matches([' ', '\t']);
    let (w1, r1) = word(after);
    let header = |kind, rest| Header {
        time: Some(time),
        ..Header::of(kind, rest)
    };
    if let Some((partial, payload)) = cri::after_time(w1, r1) {
        return LineStart::Header(Header {
            partial,
            ..header(HeaderKind::Cri, payload)
        });
    }
    if let Some((labels, r)) = take_labels(after) {
        return LineStart::Header(Header {
            labels,
            ..header(HeaderKind::Logcli, r.trim_start_matches(' '))
        });
    }
    if grafana || after.starts_with('{') || take_time(after).is_some() {
        let kind = if grafana {
            HeaderKind::Grafana
        } else {
            HeaderKind::Kubectl
        };
        return LineStart::Header(header(kind, after));
    }
    if !is_level(w1)
        && !after.starts_with('[')
        && let Some((host, pid, msg)) = take_journald(after)
    {
        return LineStart::Header(Header {
            host: Some(host),
            pid,
            ..header(HeaderKind::Journald, msg)
        });
    }
    LineStart::Timed { time, rest }
}

/// Parses logcli's `{k="v", k2="v2"}` label set at the start of `s`;
/// returns the labels and the rest after the closing brace.
fn take_labels(s: &str) -> Option<(Vec<(&str, &str)>, &str)> {
    let mut rest = s.strip_prefix('{')?;
    let mut out = Vec::new();
    loop {
        rest = rest.trim_start_matches([' ', ',']);
        if let Some(r) = rest.strip_prefix('}') {
            return Some((out, r));
        }
        let eq = rest.find('=')?;
        let name = rest[..eq].trim();
        if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
            return None;
        }
        let v = rest[eq + 1..].strip_prefix('"')?;
        let close = v.find('"')?;
        out.push((name, &v[..close]));
        rest = &v[close + 1..];
    }
}

/// `host ident[pid]: message` (journald's short formats after the time).
fn take_journald(s: &str) -> Option<(&str, Option<&str>, &str)> {
    let (host, rest) = word(s);
    if host.is_empty() || host.contains([':', '[', '=']) {
        return None;
    }
    let rest = rest.trim_start_matches(' ');
    let colon = rest
        .find(": ")
        .or_else(|| rest.strip_suffix(':').map(str::len))?;
    let ident = &rest[..colon];
    if ident.is_empty() || ident.contains(' ') {
        return None;
    }
    let pid = ident
        .strip_suffix(']')
        .and_then(|i| i.rsplit_once('['))
        .map(|(_, p)| p)
        .filter(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()));
    let msg = rest.get(colon + 2..).unwrap_or("");
    Some((host, pid, msg))
}
/// Fluent Bit `out_file`: `TAG: [EPOCH.FRACTION, {record}]`.
fn fluentbit(line: &str) -> Option<Header<'_>> {
    let (tag, rest) = line.split_once(": [")?;
    if tag.is_empty() || tag.len() > 256 || tag.contains(char::is_whitespace) {
        return None;
    }
    let (time, body) = rest.split_once(", ")?;
    let digits = time.bytes().filter(u8::is_ascii_digit).count();
    if digits < 9 || !time.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let body = body.trim_end().strip_suffix(']')?.trim_end();
    if !body.starts_with('{') || !body.ends_with('}') {
        return None;
    }
    Some(Header {
        time: Some(time),
        app: Some(tag),
        ..Header::of(HeaderKind::FluentBit, body)
    })
}

/// `<PRI>` then RFC 5424 (`1 ` version) or RFC 3164.
fn syslog(line: &str) -> Option<Header<'_>> {
    let close = line.get(..5)?.find('>').or_else(|| line.find('>'))?;
    let pri = &line[1..close];
    if pri.is_empty() || pri.len() > 3 || !pri.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let rest = &line[close + 1..];
    if let Some(r) = rest.strip_prefix("1 ") {
        return rfc5424(r);
    }
    // rsyslog's forwarding format puts an RFC 3339 time in a 3164 header.
    if let Some((n, false)) = time_len(rest) {
        let (time, after) = rest.split_at(n);
        let mut f = host_tag(after.trim_start())?;
        f.time = Some(time);
        return Some(f);
    }
    bsd_body(rest)
}

/// The space-separated word at the start of `s`, and the rest after one
/// space.
fn field(s: &str) -> Option<(&str, &str)> {
    let end = s.find(' ').unwrap_or(s.len());
    let w = &s[..end];
    (!w.is_empty()).then(|| (w, s.get(end + 1..).unwrap_or("")))
}

/// A nil value (`-`) as `None`.
fn nil(s: &str) -> Option<&str> {
    (s != "-").then_some(s)
}

/// RFC 5424 after `<PRI>1 `.
fn rfc5424(s: &str) -> Option<Header<'_>> {
    let (time, s) = field(s)?;
    if time != "-" && time_len(time).is_none_or(|(n, only)| only || n != time.len()) {
        return None;
    }
    let (host, s) = field(s)?;
    let (app, s) = field(s)?;
    let (pid, s) = field(s)?;
    let (_msgid, s) = field(s)?;
    let mut f = Header {
        time: nil(time),
        host: nil(host),
        app: nil(app),
        pid: nil(pid),
        ..Header::of(HeaderKind::Syslog5424, "")
    };
    let rest = if let Some(r) = s.strip_prefix('-') {
        r
    } else {
        structured_data(s, &mut f.labels)?
    };
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    f.rest = rest.strip_prefix('\u{feff}').unwrap_or(rest);
    Some(f)
}

/// RFC 5424 STRUCTURED-DATA: one or more `[id name="value" ...]`; returns
/// the text after it and pushes its parameters.
fn structured_data<'a>(mut s: &'a str, params: &mut Vec<(&'a str, &'a str)>) -> Option<&'a str> {
    if !s.starts_with('[') {
        return None;
    }
    while let Some(body) = s.strip_prefix('[') {
        let (_id, mut r) = body.split_at(body.find([' ', ']'])?);
        loop {
            r = r.trim_start_matches(' ');
            if let Some(after) = r.strip_prefix(']') {
                s = after;
                break;
            }
            let eq = r.find('=')?;
            let name = &r[..eq];
            let v = r[eq + 1..].strip_prefix('"')?;
            // The value ends at the first quote not escaped by a backslash.
            let vb = v.as_bytes();
            let mut i = 0;
            while i < vb.len() && vb[i] != b'"' {
                i += if vb[i] == b'\\' { 2 } else { 1 };
            }
            let value = v.get(..i)?;
            params.push((name, value));
            r = v.get(i + 1..)?;
        }
    }
    Some(s)
}

/// RFC 3164 after `<PRI>` (or a traditional syslog file line):
/// `Mmm dd hh:mm:ss HOSTNAME TAG[pid]: CONTENT`.
fn bsd_body(s: &str) -> Option<Header<'_>> {
    let b = s.as_bytes();
    let month_ok = s.get(..3).is_some_and(|m| month_of(m).is_some()) && b.get(3) == Some(&b' ');
    // `Mmm dd hh:mm:ss` with the day padded by a space (`Dec  1`).
    let day_ok = b
        .get(4..6)
        .is_some_and(|d| (d[0] == b' ' || d[0].is_ascii_digit()) && d[1].is_ascii_digit());
    if !month_ok || !day_ok || b.get(6) != Some(&b' ') {
        return None;
    }
    let (n, true) = time_len(s.get(7..)?)? else {
        return None;
    };
    let time = &s[..7 + n];
    let mut f = host_tag(s.get(7 + n..)?.trim_start())?;
    f.time = Some(time);
    Some(f)
}

/// `HOSTNAME TAG[pid]: CONTENT` (also `TAG:` without a pid), an RFC 3164
/// header's end.
fn host_tag(s: &str) -> Option<Header<'_>> {
    let (host, r) = field(s)?;
    if host.contains([':', '[', '=', '{']) {
        return None;
    }
    let colon = r.find(": ").or_else(|| r.strip_suffix(':').map(str::len))?;
    let tag = &r[..colon];
    if tag.is_empty() || tag.contains([' ', '{', '"', '=']) {
        return None;
    }
    let (app, pid) = match tag.strip_suffix(']').and_then(|t| t.rsplit_once('[')) {
        Some((a, p)) if !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()) => (a, Some(p)),
        _ => (tag, None),
    };
    Some(Header {
        host: Some(host),
        app: Some(app),
        pid,
        ..Header::of(HeaderKind::Syslog3164, r.get(colon + 2..).unwrap_or(""))
    })
}

/// Ruby `Logger`: `I, [2026-12-01T07:06:55.100000 #4242]  INFO -- prog: msg`.
fn ruby(line: &str) -> Option<Header<'_>> {
    let s = line.get(1..)?.strip_prefix(", [")?;
    let (n, false) = time_len(s)? else {
        return None;
    };
    let time = &s[..n];
    let r = s[n..].trim_start().strip_prefix('#')?;
    let close = r.find(']')?;
    let pid = &r[..close];
    if pid.is_empty() || !pid.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let r = r[close + 1..].trim_start();
    let (level, r) = field(r)?;
    let r = r.strip_prefix("-- ")?;
    let colon = r.find(": ").or_else(|| r.strip_suffix(':').map(str::len))?;
    let prog = &r[..colon];
    Some(Header {
        time: Some(time),
        app: (!prog.is_empty()).then_some(prog),
        pid: Some(pid),
        level: Some(level),
        ..Header::of(HeaderKind::Ruby, r.get(colon + 2..).unwrap_or(""))
    })
}

/// Fluentd `out_file`: `TIME<TAB>TAG<TAB>{record}`.
fn fluentd(line: &str) -> Option<Header<'_>> {
    let mut parts = line.splitn(3, '\t');
    let (time, tag, rest) = (parts.next()?, parts.next()?, parts.next()?);
    let (n, false) = time_len(time)? else {
        return None;
    };
    if n != time.len() || tag.is_empty() || tag.contains(' ') || !rest.starts_with('{') {
        return None;
    }
    Some(Header {
        time: Some(time),
        app: Some(tag),
        ..Header::of(HeaderKind::Fluentd, rest)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc5424_examples() {
        // RFC 5424 §6.5, examples 1 and 3.
        let f = shipper("<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - BOM'su root' failed for lonvick on /dev/pts/8").expect("5424");
        assert_eq!(f.kind, HeaderKind::Syslog5424);
        assert_eq!(f.time, Some("2003-10-11T22:14:15.003Z"));
        assert_eq!(f.host, Some("mymachine.example.com"));
        assert_eq!(f.app, Some("su"));
        assert_eq!(f.pid, None);
        assert!(f.rest.starts_with("BOM'su root'"));
        let f = shipper(r#"<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"] BOMAn application event log entry..."#).expect("5424 sd");
        assert_eq!(
            f.labels,
            vec![
                ("iut", "3"),
                ("eventSource", "Application"),
                ("eventID", "1011")
            ]
        );
        assert_eq!(f.rest, "BOMAn application event log entry...");
        // Escaped `]` and `"` inside a value, two elements, no message.
        let f = shipper(r#"<165>1 - host app 12 - [a x="1\]2\"" y="z"][b k="v"]"#).expect("sd esc");
        assert_eq!(f.labels, vec![("x", r#"1\]2\""#), ("y", "z"), ("k", "v")]);
        assert_eq!(f.time, None);
        assert_eq!(f.rest, "");
    }

    #[test]
    fn rfc3164_examples() {
        // RFC 3164 §5.4, example 1; a day padded with a space.
        let f =
            shipper("<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8")
                .expect("3164");
        assert_eq!(f.kind, HeaderKind::Syslog3164);
        assert_eq!(
            (f.time, f.host, f.app),
            (Some("Oct 11 22:14:15"), Some("mymachine"), Some("su"))
        );
        assert!(f.rest.starts_with("'su root'"));
        let f = shipper("Dec  1 07:06:55 web-01 shop[4242]: {\"a\":1}").expect("file");
        assert_eq!(
            (f.time, f.pid, f.rest),
            (Some("Dec  1 07:06:55"), Some("4242"), "{\"a\":1}")
        );
        // Not a header: text that merely starts with a month word.
        assert!(shipper("Dec is a month: yes").is_none());
        assert!(shipper("<x>1 abc").is_none());
    }

    #[test]
    fn ruby_and_fluentd() {
        // ruby/ruby lib/logger/formatter.rb Format, empty progname.
        let f =
            shipper("I, [2026-12-01T07:06:55.100000 #4242]  INFO -- : {\"a\":1}").expect("ruby");
        assert_eq!(f.kind, HeaderKind::Ruby);
        assert_eq!(
            (f.time, f.pid, f.level, f.app),
            (
                Some("2026-12-01T07:06:55.100000"),
                Some("4242"),
                Some("INFO"),
                None
            )
        );
        assert_eq!(f.rest, "{\"a\":1}");
        let f = shipper("W, [2026-12-01T07:06:55.100000 #1] WARN -- shop: lock lost")
            .expect("ruby prog");
        assert_eq!((f.app, f.rest), (Some("shop"), "lock lost"));
        // fluentd out_file documented example.
        let f = shipper("2013-02-28T12:00:00+09:00\tapp.event\t{\"host\":\"192.168.0.1\",\"size\":777,\"method\":\"PUT\"}").expect("fluentd");
        assert_eq!(f.kind, HeaderKind::Fluentd);
        assert_eq!(
            (f.time, f.app),
            (Some("2013-02-28T12:00:00+09:00"), Some("app.event"))
        );
        assert!(f.rest.starts_with("{\"host\""));
    }

    #[test]
    fn fluent_bit_out_file() {
        // docs.fluentbit.io File output, `out_file` format, with the
        // dummy input's record and an flb_time.
        let f = shipper("dummy.0: [1592285839.245815000, {\"message\":\"dummy\"}]")
            .expect("fluent bit");
        assert_eq!(f.kind, HeaderKind::FluentBit);
        assert_eq!(
            (f.time, f.app, f.rest),
            (
                Some("1592285839.245815000"),
                Some("dummy.0"),
                "{\"message\":\"dummy\"}"
            )
        );
        // A Java line with a colon and a bracket is none.
        assert!(shipper("main: [INFO, x] lock acquired").is_none());
    }
}

//! Headers that shippers and runtimes write before an application's line,
//! and the record found after any prefix: syslog (RFC 5424 and RFC 3164,
//! with or without `<PRI>`), Ruby's `Logger::Formatter`, Fluentd's
//! `out_file`, and a JSON object anywhere in a line (Monolog's
//! `message {context} [extra]`).
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
//! - Seldaek/monolog `LineFormatter::SIMPLE_FORMAT`:
//!   `[%datetime%] %channel%.%level_name%: %message% %context% %extra%`.

use serde_json::{Map, Value};

/// Which header was taken off the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Header {
    /// RFC 5424.
    Syslog5424,
    /// RFC 3164 (BSD syslog; also a traditional syslog file line).
    Syslog3164,
    /// Ruby `Logger`.
    Ruby,
    /// Fluentd `out_file`.
    Fluentd,
    /// Fluent Bit `out_file`.
    FluentBit,
}

/// The parts of a header; everything borrows from the line.
#[derive(Debug, Default)]
pub(crate) struct Framed<'a> {
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
    /// RFC 5424 structured-data parameters (`name="value"`, value unescaped
    /// only when it has no escapes).
    pub params: Vec<(&'a str, &'a str)>,
    /// The line after the header.
    pub rest: &'a str,
}

/// Takes a known header off `line`; `None` when it has none.
pub(crate) fn header(line: &str) -> Option<(Header, Framed<'_>)> {
    let b = line.as_bytes();
    match b.first()? {
        b'<' => syslog(line),
        b'A'..=b'Z' if b.get(1) == Some(&b',') => ruby(line).map(|f| (Header::Ruby, f)),
        b'A'..=b'Z' => bsd_body(line).map(|f| (Header::Syslog3164, f)),
        b'0'..=b'9' => fluentd(line).map(|f| (Header::Fluentd, f)),
        _ => None,
    }
    .or_else(|| fluentbit(line).map(|f| (Header::FluentBit, f)))
}

/// Fluent Bit `out_file`: `TAG: [EPOCH.FRACTION, {record}]`.
fn fluentbit(line: &str) -> Option<Framed<'_>> {
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
    Some(Framed {
        time: Some(time),
        app: Some(tag),
        rest: body,
        ..Framed::default()
    })
}

/// `<PRI>` then RFC 5424 (`1 ` version) or RFC 3164.
fn syslog(line: &str) -> Option<(Header, Framed<'_>)> {
    let close = line.get(..5)?.find('>').or_else(|| line.find('>'))?;
    let pri = &line[1..close];
    if pri.is_empty() || pri.len() > 3 || !pri.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let rest = &line[close + 1..];
    if let Some(r) = rest.strip_prefix("1 ") {
        return rfc5424(r).map(|f| (Header::Syslog5424, f));
    }
    // rsyslog's forwarding format puts an RFC 3339 time in a 3164 header.
    if let Some((n, false)) = crate::ingest::readers::text::time_len(rest) {
        let (time, after) = rest.split_at(n);
        let mut f = host_tag(after.trim_start())?;
        f.time = Some(time);
        return Some((Header::Syslog3164, f));
    }
    bsd_body(rest).map(|f| (Header::Syslog3164, f))
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
fn rfc5424(s: &str) -> Option<Framed<'_>> {
    let (time, s) = field(s)?;
    if time != "-"
        && crate::ingest::readers::text::time_len(time)
            .is_none_or(|(n, only)| only || n != time.len())
    {
        return None;
    }
    let (host, s) = field(s)?;
    let (app, s) = field(s)?;
    let (pid, s) = field(s)?;
    let (_msgid, s) = field(s)?;
    let mut f = Framed {
        time: nil(time),
        host: nil(host),
        app: nil(app),
        pid: nil(pid),
        ..Framed::default()
    };
    let rest = if let Some(r) = s.strip_prefix('-') {
        r
    } else {
        structured_data(s, &mut f.params)?
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
fn bsd_body(s: &str) -> Option<Framed<'_>> {
    let b = s.as_bytes();
    let month_ok = s
        .get(..3)
        .is_some_and(|m| crate::ingest::roles::time::month_of(m).is_some())
        && b.get(3) == Some(&b' ');
    // `Mmm dd hh:mm:ss` with the day padded by a space (`Dec  1`).
    let day_ok = b
        .get(4..6)
        .is_some_and(|d| (d[0] == b' ' || d[0].is_ascii_digit()) && d[1].is_ascii_digit());
    if !month_ok || !day_ok || b.get(6) != Some(&b' ') {
        return None;
    }
    let (n, true) = crate::ingest::readers::text::time_len(s.get(7..)?)? else {
        return None;
    };
    let time = &s[..7 + n];
    let mut f = host_tag(s.get(7 + n..)?.trim_start())?;
    f.time = Some(time);
    Some(f)
}

/// `HOSTNAME TAG[pid]: CONTENT` (also `TAG:` without a pid).
fn host_tag(s: &str) -> Option<Framed<'_>> {
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
    Some(Framed {
        host: Some(host),
        app: Some(app),
        pid,
        rest: r.get(colon + 2..).unwrap_or(""),
        ..Framed::default()
    })
}

/// Ruby `Logger`: `I, [2026-12-01T07:06:55.100000 #4242]  INFO -- prog: msg`.
fn ruby(line: &str) -> Option<Framed<'_>> {
    let s = line.get(1..)?.strip_prefix(", [")?;
    let (n, false) = crate::ingest::readers::text::time_len(s)? else {
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
    Some(Framed {
        time: Some(time),
        app: (!prog.is_empty()).then_some(prog),
        pid: Some(pid),
        level: Some(level),
        rest: r.get(colon + 2..).unwrap_or(""),
        ..Framed::default()
    })
}

/// Fluentd `out_file`: `TIME<TAB>TAG<TAB>{record}`.
fn fluentd(line: &str) -> Option<Framed<'_>> {
    let mut parts = line.splitn(3, '\t');
    let (time, tag, rest) = (parts.next()?, parts.next()?, parts.next()?);
    let (n, false) = crate::ingest::readers::text::time_len(time)? else {
        return None;
    };
    if n != time.len() || tag.is_empty() || tag.contains(' ') || !rest.starts_with('{') {
        return None;
    }
    Some(Framed {
        time: Some(time),
        app: Some(tag),
        rest,
        ..Framed::default()
    })
}

/// How many `{` a line is searched at for an embedded JSON object.
const TRIES: usize = 4;

/// The first JSON object with at least one field inside `msg`, as (text
/// before it, the object's text, text after it). `None` when there is none
/// or `msg` is itself one object.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc5424_examples() {
        // RFC 5424 §6.5, examples 1 and 3.
        let (h, f) = header("<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - BOM'su root' failed for lonvick on /dev/pts/8").expect("5424");
        assert_eq!(h, Header::Syslog5424);
        assert_eq!(f.time, Some("2003-10-11T22:14:15.003Z"));
        assert_eq!(f.host, Some("mymachine.example.com"));
        assert_eq!(f.app, Some("su"));
        assert_eq!(f.pid, None);
        assert!(f.rest.starts_with("BOM'su root'"));
        let (_, f) = header(r#"<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"] BOMAn application event log entry..."#).expect("5424 sd");
        assert_eq!(
            f.params,
            vec![
                ("iut", "3"),
                ("eventSource", "Application"),
                ("eventID", "1011")
            ]
        );
        assert_eq!(f.rest, "BOMAn application event log entry...");
        // Escaped `]` and `"` inside a value, two elements, no message.
        let (_, f) =
            header(r#"<165>1 - host app 12 - [a x="1\]2\"" y="z"][b k="v"]"#).expect("sd esc");
        assert_eq!(f.params, vec![("x", r#"1\]2\""#), ("y", "z"), ("k", "v")]);
        assert_eq!(f.time, None);
        assert_eq!(f.rest, "");
    }

    #[test]
    fn rfc3164_examples() {
        // RFC 3164 §5.4, example 1; a day padded with a space.
        let (h, f) =
            header("<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8")
                .expect("3164");
        assert_eq!(h, Header::Syslog3164);
        assert_eq!(
            (f.time, f.host, f.app),
            (Some("Oct 11 22:14:15"), Some("mymachine"), Some("su"))
        );
        assert!(f.rest.starts_with("'su root'"));
        let (_, f) = header("Dec  1 07:06:55 web-01 shop[4242]: {\"a\":1}").expect("file");
        assert_eq!(
            (f.time, f.pid, f.rest),
            (Some("Dec  1 07:06:55"), Some("4242"), "{\"a\":1}")
        );
        // Not a header: text that merely starts with a month word.
        assert!(header("Dec is a month: yes").is_none());
        assert!(header("<x>1 abc").is_none());
    }

    #[test]
    fn ruby_and_fluentd() {
        // ruby/ruby lib/logger/formatter.rb Format, empty progname.
        let (h, f) =
            header("I, [2026-12-01T07:06:55.100000 #4242]  INFO -- : {\"a\":1}").expect("ruby");
        assert_eq!(h, Header::Ruby);
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
        let (_, f) = header("W, [2026-12-01T07:06:55.100000 #1] WARN -- shop: lock lost")
            .expect("ruby prog");
        assert_eq!((f.app, f.rest), (Some("shop"), "lock lost"));
        // fluentd out_file documented example.
        let (h, f) = header("2013-02-28T12:00:00+09:00\tapp.event\t{\"host\":\"192.168.0.1\",\"size\":777,\"method\":\"PUT\"}").expect("fluentd");
        assert_eq!(h, Header::Fluentd);
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
        let (h, f) =
            header("dummy.0: [1592285839.245815000, {\"message\":\"dummy\"}]").expect("fluent bit");
        assert_eq!(h, Header::FluentBit);
        assert_eq!(
            (f.time, f.app, f.rest),
            (
                Some("1592285839.245815000"),
                Some("dummy.0"),
                "{\"message\":\"dummy\"}"
            )
        );
        // A Java line with a colon and a bracket is none.
        assert!(header("main: [INFO, x] lock acquired").is_none());
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

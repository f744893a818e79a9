//! The lines of a `redis-cli monitor` capture: a timestamp, `[<db> <client>]`
//! and the command's quoted arguments, read without allocating
//! ([`LineParser`]), and the check that a text is such a capture
//! ([`looks_like_monitor`]). What the commands did is the replay's job.

use super::lossy;
use crate::model::MonitorWarning;

/// One command line of a capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonitorLine {
    /// Time, ns since the Unix epoch (MONITOR prints µs).
    pub at_ns: i64,
    /// Database number.
    pub db: u32,
    /// Client address (`127.0.0.1:34098`, `unix:/tmp/redis.sock`) or `lua`
    /// for a command run by a script.
    pub client: String,
    /// Command name then arguments, unescaped.
    pub args: Vec<Vec<u8>>,
}

impl MonitorLine {
    /// True for a `[<db> lua]` line (a command run by the previous script).
    pub fn is_lua(&self) -> bool {
        self.client == "lua"
    }
}

/// Parses one line of `redis-cli monitor` output into an owned
/// [`MonitorLine`]. [`LineParser`] does the same without allocating.
///
/// Returns `Ok(None)` for lines that are not commands and need no warning:
/// blank lines, the leading `OK`, and `Error: ...`/`(error) ...` lines that
/// redis-cli prints when the connection ends.
///
/// # Errors
/// Why the line is malformed: a bad timestamp, a missing `[db addr]`, bad
/// quoting, or a line cut off mid-argument.
pub fn parse_line(line: &[u8]) -> Result<Option<MonitorLine>, MonitorWarning> {
    Ok(LineParser::new().parse(line)?.map(|c| c.to_monitor_line()))
}

/// Where an argument's bytes are: in the line itself (no escape in it) or
/// unescaped in the parser's scratch buffer.
#[derive(Clone, Copy, Debug)]
enum Span {
    Line(usize, usize),
    Scratch(usize, usize),
}

/// A reusable `redis-cli monitor` line parser: arguments are borrowed from
/// the line, and only arguments with a backslash are unescaped (into a
/// buffer kept from line to line), so parsing allocates nothing once its
/// buffers have grown.
#[derive(Clone, Debug, Default)]
pub struct LineParser {
    scratch: Vec<u8>,
    spans: Vec<Span>,
}

/// One command line, borrowed from the line and its [`LineParser`].
#[derive(Clone, Copy, Debug)]
pub struct CommandLine<'a> {
    /// Time, ns since the Unix epoch (MONITOR prints µs).
    pub at_ns: i64,
    /// Database number.
    pub db: u32,
    /// Client address, or `lua` for a command run by a script (checked to
    /// be UTF-8).
    pub client: &'a [u8],
    line: &'a [u8],
    scratch: &'a [u8],
    spans: &'a [Span],
}

impl<'a> CommandLine<'a> {
    /// True for a `[<db> lua]` line (a command run by the previous script).
    pub fn is_lua(&self) -> bool {
        self.client == b"lua"
    }

    /// Number of arguments, the command name included (at least 1).
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Always false: a parsed line has a command name.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Argument `i` (0 is the command name), unescaped.
    pub fn arg(&self, i: usize) -> Option<&'a [u8]> {
        self.spans.get(i).map(|&sp| self.resolve(sp))
    }

    /// The command name then the arguments, unescaped.
    pub fn args(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + 'a {
        let (line, scratch) = (self.line, self.scratch);
        self.spans.iter().map(move |&sp| match sp {
            Span::Line(a, b) => &line[a..b],
            Span::Scratch(a, b) => &scratch[a..b],
        })
    }

    fn resolve(&self, sp: Span) -> &'a [u8] {
        match sp {
            Span::Line(a, b) => &self.line[a..b],
            Span::Scratch(a, b) => &self.scratch[a..b],
        }
    }

    /// An owned copy.
    pub fn to_monitor_line(&self) -> MonitorLine {
        MonitorLine {
            at_ns: self.at_ns,
            db: self.db,
            client: lossy(self.client),
            args: self.args().map(<[u8]>::to_vec).collect(),
        }
    }
}

impl LineParser {
    /// A parser with empty buffers.
    pub fn new() -> LineParser {
        LineParser::default()
    }

    /// Parses one line, as [`parse_line`] does.
    ///
    /// # Errors
    /// As [`parse_line`].
    pub fn parse<'a>(
        &'a mut self,
        line: &'a [u8],
    ) -> Result<Option<CommandLine<'a>>, MonitorWarning> {
        let line = trim_eol(line);
        if line.iter().all(u8::is_ascii_whitespace)
            || line == b"OK"
            || line.starts_with(b"Error:")
            || line.starts_with(b"(error)")
            || line.starts_with(CANNOT_CONNECT)
        {
            return Ok(None);
        }
        let (at_ns, db, client, args_at) = match fast_head(line) {
            Some(head) => head,
            None => general_head(line)?,
        };
        self.scratch.clear();
        self.spans.clear();
        parse_args(line, args_at, &mut self.scratch, &mut self.spans)?;
        if self.spans.is_empty() {
            return Err(MonitorWarning::NoCommand);
        }
        Ok(Some(CommandLine {
            at_ns,
            db,
            client,
            line,
            scratch: &self.scratch,
            spans: &self.spans,
        }))
    }
}

/// The head of the usual line, `<digits>.<digits> [<digits> <ASCII client>]`,
/// in one pass: (time, database, client, where the arguments start). `None`
/// for anything else, which [`general_head`] reads (and words the error
/// of); a head both accept, both read the same way.
fn fast_head(line: &[u8]) -> Option<(i64, u32, &[u8], usize)> {
    let digit = |i: usize| line.get(i).filter(|c| c.is_ascii_digit()).map(|c| c - b'0');
    let mut i = 0;
    let mut secs: i64 = 0;
    while let Some(d) = digit(i) {
        secs = secs.checked_mul(10)?.checked_add(i64::from(d))?;
        i += 1;
    }
    if i == 0 {
        return None;
    }
    let mut ns: i64 = 0;
    let mut places = 0;
    if line.get(i) == Some(&b'.') {
        i += 1;
        while let Some(d) = digit(i) {
            if places == 9 {
                return None;
            }
            ns = ns * 10 + i64::from(d);
            places += 1;
            i += 1;
        }
    }
    for _ in places..9 {
        ns *= 10;
    }
    let at_ns = secs.checked_mul(1_000_000_000)?.checked_add(ns)?;
    if line.get(i..i + 2) != Some(b" [") {
        return None;
    }
    i += 2;
    let db_at = i;
    let mut db: u32 = 0;
    while let Some(d) = digit(i) {
        db = db.checked_mul(10)?.checked_add(u32::from(d))?;
        i += 1;
    }
    if i == db_at || line.get(i) != Some(&b' ') {
        return None;
    }
    i += 1;
    let client_at = i;
    loop {
        let c = *line.get(i)?;
        if !c.is_ascii() {
            return None;
        }
        if c == b']' && matches!(line.get(i + 1), None | Some(b' ')) {
            return Some((at_ns, db, &line[client_at..i], i + 1));
        }
        i += 1;
    }
}

/// The head of any line (see [`fast_head`]): (time, database, client,
/// where the arguments start), or why it is malformed.
fn general_head(line: &[u8]) -> Result<(i64, u32, &[u8], usize), MonitorWarning> {
    let sp = memchr::memchr(b' ', line).ok_or(MonitorWarning::NoSpaceAfterTime)?;
    let at_ns = parse_time(&line[..sp]).ok_or_else(|| MonitorWarning::BadTimestamp {
        text: lossy(&line[..sp]),
    })?;
    let rest_at = sp + 1;
    let rest = &line[rest_at..];
    if rest.first() != Some(&b'[') {
        return Err(MonitorWarning::MissingHead);
    }
    let close = memchr::memchr_iter(b']', &rest[1..])
        .map(|i| i + 1)
        .find(|&i| i + 1 == rest.len() || rest[i + 1] == b' ')
        .ok_or(MonitorWarning::UnterminatedHead)?;
    let inner = &rest[1..close];
    if !inner.is_ascii() && std::str::from_utf8(inner).is_err() {
        return Err(MonitorWarning::ClientNotUtf8);
    }
    let Some(space) = memchr::memchr(b' ', inner) else {
        return Err(MonitorWarning::BadHead {
            inner: lossy(inner),
        });
    };
    let (db, client) = (&inner[..space], &inner[space + 1..]);
    let db = parse_u32(db).ok_or_else(|| MonitorWarning::BadDatabase { text: lossy(db) })?;
    Ok((at_ns, db, client, (rest_at + close + 1).min(line.len())))
}

fn trim_eol(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b'\n' | b'\r'] = line {
        line = rest;
    }
    line
}

/// A `u32` as `str::parse` reads one: an optional `+`, then digits.
fn parse_u32(s: &[u8]) -> Option<u32> {
    let digits = s.strip_prefix(b"+").unwrap_or(s);
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u32, |n, &c| {
        if c.is_ascii_digit() {
            n.checked_mul(10)?.checked_add(u32::from(c - b'0'))
        } else {
            None
        }
    })
}

/// `1795939840.805117` → ns since the epoch.
fn parse_time(s: &[u8]) -> Option<i64> {
    let (secs, frac) = match memchr::memchr(b'.', s) {
        Some(dot) => (&s[..dot], &s[dot + 1..]),
        None => (s, &[][..]),
    };
    if secs.is_empty() || frac.len() > 9 || !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut whole: i64 = 0;
    for &c in secs {
        if !c.is_ascii_digit() {
            return None;
        }
        whole = whole.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
    }
    let mut ns: i64 = 0;
    for i in 0..9 {
        ns = ns * 10 + frac.get(i).map_or(0, |c| i64::from(c - b'0'));
    }
    whole.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// Space-separated double-quoted arguments with the escapes redis-cli's
/// `sdscatrepr` writes: `\\ \" \n \r \t \a \b \xHH`. Scans `line` from
/// `start`; an argument without a backslash is a span of the line, one with
/// a backslash is unescaped into `scratch`.
fn parse_args(
    line: &[u8],
    start: usize,
    scratch: &mut Vec<u8>,
    spans: &mut Vec<Span>,
) -> Result<(), MonitorWarning> {
    let s = line;
    let mut i = start;
    while i < s.len() {
        if s[i] == b' ' {
            i += 1;
            continue;
        }
        if s[i] != b'"' {
            return Err(MonitorWarning::UnquotedText {
                column: (i - start + 1) as u64,
                argument: spans.len() as u64 + 1,
            });
        }
        i += 1;
        let not_closed = |n: usize| MonitorWarning::NotClosed { argument: n as u64 };
        let Some(n) = memchr::memchr2(b'"', b'\\', &s[i..]) else {
            return Err(not_closed(spans.len() + 1));
        };
        if s[i + n] == b'"' {
            spans.push(Span::Line(i, i + n));
            i += n + 1;
        } else {
            let from = scratch.len();
            scratch.extend_from_slice(&s[i..i + n]);
            i += n;
            loop {
                let Some(&c) = s.get(i) else {
                    return Err(not_closed(spans.len() + 1));
                };
                i += 1;
                match c {
                    b'"' => break,
                    b'\\' => {
                        let Some(&e) = s.get(i) else {
                            continue;
                        };
                        i += 1;
                        match e {
                            b'n' => scratch.push(b'\n'),
                            b'r' => scratch.push(b'\r'),
                            b't' => scratch.push(b'\t'),
                            b'a' => scratch.push(7),
                            b'b' => scratch.push(8),
                            b'x' => {
                                let hex = s
                                    .get(i..i + 2)
                                    .and_then(|h| std::str::from_utf8(h).ok())
                                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                                let Some(v) = hex else {
                                    return Err(MonitorWarning::BadHexEscape {
                                        argument: spans.len() as u64 + 1,
                                    });
                                };
                                scratch.push(v);
                                i += 2;
                            }
                            other => scratch.push(other),
                        }
                    }
                    other => scratch.push(other),
                }
            }
            spans.push(Span::Scratch(from, scratch.len()));
        }
        if s.get(i).is_some_and(|&c| c != b' ') {
            return Err(MonitorWarning::TextAfterQuote {
                argument: spans.len() as u64,
            });
        }
    }
    Ok(())
}

/// What redis-cli prints when the server refuses the connection (`Could not
/// connect to Redis at 127.0.0.1:6379: Connection refused`): a capture kept
/// through restarts by running `redis-cli monitor` again in a loop has such
/// lines while the server is down.
pub(crate) const CANNOT_CONNECT: &[u8] = b"Could not connect to Redis at ";

/// True when the first lines of a text look like a `redis-cli monitor`
/// capture (`<epoch.usec> [<db> <addr>] "CMD" ...`, possibly after a leading
/// `OK`). The first non-blank line must be a command (or `OK`); after it, a
/// few malformed lines are tolerated while commands outnumber them (they
/// become warnings), and a possibly truncated last line is not judged.
pub fn looks_like_monitor(first_lines: &str) -> bool {
    let lines: Vec<&str> = first_lines.lines().collect();
    let (mut commands, mut bad) = (0, 0);
    let mut parser = LineParser::new();
    for (n, l) in lines.iter().enumerate() {
        match parser.parse(l.as_bytes()) {
            Ok(Some(_)) => commands += 1,
            Ok(None) => {}
            Err(_) if n + 1 == lines.len() && commands > 0 => {}
            // Up to two bad lines before the first command (redis-cli's
            // password warning, a comment, a line cut at its start); more
            // and this is no capture.
            Err(_) if commands == 0 && bad >= 2 => return false,
            Err(_) => bad += 1,
        }
        if commands >= 3 {
            break;
        }
    }
    commands > bad
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_escapes_and_addresses() {
        let l = br#"1795939840.805117 [3 unix:/tmp/r.sock] "set" "a\"b\\c\n\r\t\x41" """#;
        let Ok(Some(m)) = parse_line(l) else {
            panic!("should parse");
        };
        assert_eq!(m.at_ns, 1_795_939_840_805_117_000);
        assert_eq!(m.db, 3);
        assert_eq!(m.client, "unix:/tmp/r.sock");
        assert_eq!(
            m.args,
            vec![b"set".to_vec(), b"a\"b\\c\n\r\tA".to_vec(), Vec::new()]
        );
        let Ok(Some(lua)) = parse_line(b"1.5 [0 lua] \"get\" \"k\"\r\n") else {
            panic!("lua line");
        };
        assert!(lua.is_lua());
        assert_eq!(lua.at_ns, 1_500_000_000);
    }

    #[test]
    fn skips_ok_and_error_lines_and_rejects_bad_ones() {
        assert_eq!(parse_line(b"OK\n"), Ok(None));
        assert_eq!(parse_line(b"Error: Server closed the connection"), Ok(None));
        assert_eq!(
            parse_line(b"Could not connect to Redis at 127.0.0.1:7621: Connection refused"),
            Ok(None)
        );
        assert_eq!(parse_line(b""), Ok(None));
        assert!(parse_line(b"17959x.1 [0 1.2.3.4:5] \"GET\" \"k\"").is_err());
        assert!(parse_line(b"1.1 [0 1.2.3.4:5] \"GET\" \"k").is_err());
        assert!(parse_line(b"1.1 [0 1.2.3.4:5] GET").is_err());
        assert!(parse_line(b"1.1 0 1.2.3.4:5 \"GET\"").is_err());
        assert!(parse_line(b"1.1 [0 1.2.3.4:5] \"a\\xZZ\"").is_err());
    }

    #[test]
    fn recognises_monitor_text() {
        let t = "OK\n1795939839.626396 [0 127.0.0.1:34098] \"HELLO\" \"3\"\n1795939839.627099 [0 127.0.0.1:34098] \"DEL\" \"k\"\n";
        assert!(looks_like_monitor(t));
        assert!(!looks_like_monitor("{\"ts\": 1}\n"));
        assert!(!looks_like_monitor("OK\n"));
        // A cut-off last line is not held against it.
        assert!(looks_like_monitor(&format!("{t}1795939839.6 [0 1")));
        // One garbage line among the first ten must not make the whole
        // capture "unrecognised", losing every command.
        let g = "1.1 [0 a:1] \"GET\" \"k\"\nnot a command\n1.2 [0 a:1] \"DEL\" \"k\"\n1.3 [0 a:1] \"DEL\" \"k\"\n";
        assert!(looks_like_monitor(g));
        assert!(!looks_like_monitor("1.1 [0 a:1] \"GET\" \"k\"\nx\ny\nz\n"));
    }

    #[test]
    fn the_fast_head_reads_as_the_general_one() {
        let heads = [
            "1795939840.805117 [0 127.0.0.1:34098]",
            "1795939840 [0 a:1]",
            "1795939840. [12 a:1]",
            "1.123456789 [0 a:1]",
            "1.1234567890 [0 a:1]",
            "9223372036.854775807 [0 a:1]",
            "9223372036.854775808 [0 a:1]",
            "99999999999999999999 [0 a:1]",
            "1.5 [4294967295 a:1]",
            "1.5 [4294967296 a:1]",
            "1.5 [+1 a:1]",
            "1.5 [ a:1]",
            "1.5 [0 ]",
            "1.5 [0 a]b c]",
            "1.5 [0] x]",
            "1.5 [0 lua]",
            "1.5 [0 unix:/tmp/r.sock]",
            "1.5 [0 [::1]:6379]",
            "1.5 [0 caf\u{e9}:1]",
            "1.2.3 [0 a:1]",
            "1.2x [0 a:1]",
            "+1.5 [0 a:1]",
            ".5 [0 a:1]",
            "1.5  [0 a:1]",
            "1.5 [0 a:1",
            "1.5 0 a:1]",
        ];
        for h in heads {
            for tail in ["", " \"GET\" \"k\"", "x"] {
                let line = format!("{h}{tail}");
                let fast = fast_head(line.as_bytes());
                let general = general_head(line.as_bytes());
                if let Some(f) = fast {
                    assert_eq!(Ok(f), general, "{line:?}");
                }
            }
        }
        assert!(fast_head(b"1795939840.805117 [0 127.0.0.1:34098] \"GET\"").is_some());
    }
}

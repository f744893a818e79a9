//! Escaping of log data for where it is shown: a terminal, Markdown, a
//! spreadsheet. Keys, holders, products and warnings come from the log, so
//! whoever wrote the log chooses them: unescaped, `ESC[2J` would clear the
//! screen, an OSC sequence set the window title, `**` and `<script>` reach
//! report.md, `=HYPERLINK(...)` reach incidents.csv as a formula.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as it is: C0 and C1 control
/// characters (ESC, BEL, CR, DEL, CSI...) other than line feed and tab, and
/// the Unicode bidirectional controls (U+202A..U+202E, U+2066..U+2069) that
/// reorder what is shown ("Trojan Source").
fn unsafe_on_terminal(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
}

/// The Unicode bidirectional controls (U+202A..U+202E, U+2066..U+2069).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `s` for a terminal: every C0 and C1 control character other than line
/// feed and tab, and every bidirectional control (U+202A..U+202E,
/// U+2066..U+2069), written as its escape (`\u{1b}`); line ends and tabs
/// kept. Borrowed when nothing needs it (the usual case: a report's text
/// costs no copy).
pub fn terminal(s: &str) -> Cow<'_, str> {
    if is_terminal_safe(s) {
        return Cow::Borrowed(s);
    }
    escaped(s, unsafe_on_terminal)
}

/// True when `s` holds no character [`terminal`] would escape: what every
/// printer's output is, so a stored report that is not is no printer's.
/// A pass over the bytes, 64 at a time (none of C0 but line feed and tab,
/// no DEL, no lead byte of the C1 controls or the bidirectional ones); in
/// a run that has such a candidate, the character starting at each one is
/// checked exactly. A candidate is never inside a character (UTF-8's
/// continuation bytes are 0x80..=0xBF), and every character `terminal`
/// escapes starts with one. (Every report has candidates, the lead bytes
/// of its "·" and "→": checking every character once one is found costs
/// half of a second open of the 1 M simulator log, whose report is 10 MB.)
pub fn is_terminal_safe(s: &str) -> bool {
    let candidate =
        |b: u8| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f || b == 0xc2 || b == 0xe2;
    let safe_at = |at: usize| {
        s.get(at..)
            .and_then(|rest| rest.chars().next())
            .is_none_or(|c| !unsafe_on_terminal(c))
    };
    s.as_bytes().chunks(64).enumerate().all(|(n, run)| {
        !run.iter().fold(false, |acc, &b| acc | candidate(b))
            || run
                .iter()
                .enumerate()
                .filter(|&(_, &b)| candidate(b))
                .all(|(i, _)| safe_at(n * 64 + i))
    })
}

/// `s` for one line of a terminal: as [`terminal`], and line feeds and tabs
/// escaped too, so that a name from the log cannot start a line of its own.
pub fn terminal_line(s: &str) -> Cow<'_, str> {
    escaped(s, |c| c.is_control() || is_bidi_control(c))
}

/// `s` with each character `unsafe_char` names written as its escape.
fn escaped(s: &str, unsafe_char: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(&unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Log text for Markdown prose and table cells: the ASCII punctuation that
/// Markdown or HTML acts on inline (`\` `` ` `` `*` `_` `[` `]` `<` `>` `|`
/// `~` `&`) escaped with a backslash (CommonMark §2.4), line ends as spaces
/// (a line end would end a table row), control characters as escapes.
pub fn markdown_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c if unsafe_on_terminal(c) || c == '\t' => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// Log text for the inside of a Markdown code span (`` `key` ``), where
/// backslash escapes do not work: a backtick (which would end the span) is
/// written `\u{60}`, `|` as `\|` (GitHub tables split cells on it even in
/// code), line ends as spaces, control characters as escapes.
pub fn markdown_code(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '`' => out.push_str("\\u{60}"),
            '|' => out.push_str("\\|"),
            '\n' | '\r' => out.push(' '),
            c if unsafe_on_terminal(c) || c == '\t' => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// Our own prose that quotes log values in code spans (notes, warnings,
/// unreadable reasons: ``using `host`; also present: `instance` ``): the
/// code spans stay code spans with their inside as [`markdown_code`]
/// (less the backticks that delimit them), the rest is escaped as
/// [`markdown_text`]. With an odd number of backticks (a value that holds
/// one) the last is written as text, so no span runs over the line.
pub fn markdown_with_code(s: &str) -> String {
    let ticks = s.matches('`').count();
    let literal_last = ticks % 2 == 1;
    let mut out = String::with_capacity(s.len() + 8);
    let mut in_code = false;
    let mut seen = 0;
    for part in s.split_inclusive('`') {
        let (body, tick) = match part.strip_suffix('`') {
            Some(b) => (b, true),
            None => (part, false),
        };
        if in_code {
            out.push_str(&markdown_code(body));
        } else {
            out.push_str(&markdown_text(body));
        }
        if tick {
            seen += 1;
            if literal_last && seen == ticks {
                out.push_str("\\`");
            } else {
                out.push('`');
                in_code = !in_code;
            }
        }
    }
    out
}

/// A CSV cell of log text, neutralised as OWASP's "CSV Injection" page
/// recommends: a cell that starts with `=`, `+`, `-`, `@`, a tab or a
/// carriage return gets a leading `'`, so a spreadsheet shows it as text
/// instead of running it as a formula. The CSV writer quotes the rest.
pub fn csv_cell(s: &str) -> Cow<'_, str> {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{s}"))
    } else {
        Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_safe_text_is_what_terminal_leaves_alone() {
        let samples = [
            "plain\tline\n",
            "中文、报告 — ok →\n",
            "\u{2013}\u{2069}x",
            "\u{85}",
            "\u{a0}nbsp",
            "\u{1b}[2J",
            "a\u{7f}",
            "\u{202a}",
            "\r\n",
        ];
        for s in samples {
            let long = s.repeat(40);
            for t in [s, long.as_str()] {
                assert_eq!(is_terminal_safe(t), terminal(t) == t, "{t:?}");
            }
        }
        // Long safe text full of candidates (a middle dot's and an arrow's
        // lead bytes), with one unsafe character at every offset, across
        // the 64-byte runs' edges too.
        let safe = "INC-1 · ¥600 → 3 oversold\n".repeat(12);
        assert!(is_terminal_safe(&safe));
        for bad in ["\u{1b}", "\u{9b}", "\u{202e}", "\u{2069}", "\u{7f}", "\r"] {
            for at in (0..safe.len()).filter(|&i| safe.is_char_boundary(i)) {
                let t = format!("{}{bad}{}", &safe[..at], &safe[at..]);
                assert!(!is_terminal_safe(&t), "{bad:?} at {at}");
            }
        }
    }

    #[test]
    fn terminal_escapes_controls_and_keeps_line_ends() {
        let s = "lock:\u{1b}[2J\u{1b}]0;pwned\u{7}a\tb\nc\u{202e}d";
        assert_eq!(
            terminal(s),
            "lock:\\u{1b}[2J\\u{1b}]0;pwned\\u{7}a\tb\nc\\u{202e}d"
        );
        assert!(matches!(terminal("plain 中文"), Cow::Borrowed(_)));
    }

    #[test]
    fn markdown_text_escapes_what_markdown_acts_on() {
        assert_eq!(
            markdown_text("w2|**bold**<script>[x](y)\nz"),
            "w2\\|\\*\\*bold\\*\\*\\<script\\>\\[x\\](y) z"
        );
        assert_eq!(markdown_text("a_b `c`"), "a\\_b \\`c\\`");
    }

    #[test]
    fn markdown_code_cannot_end_its_span() {
        assert_eq!(markdown_code("a`b|c\u{1b}"), "a\\u{60}b\\|c\\u{1b}");
        assert_eq!(markdown_code("**x**"), "**x**");
    }

    #[test]
    fn our_code_spans_stay_code_spans() {
        assert_eq!(
            markdown_with_code("host: using `host`; also present: `lock_key|x`"),
            "host: using `host`; also present: `lock_key\\|x`"
        );
        assert_eq!(
            markdown_with_code("bad \"**x**\" in `a`b`"),
            "bad \"\\*\\*x\\*\\*\" in `a`b\\`"
        );
    }

    #[test]
    fn csv_cells_that_would_be_formulas_get_a_quote() {
        assert_eq!(
            csv_cell("=HYPERLINK(\"http://x\")"),
            "'=HYPERLINK(\"http://x\")"
        );
        for s in ["+1", "-1+2", "@SUM(A1)", "\tx", "\rx"] {
            assert!(csv_cell(s).starts_with('\''), "{s}");
        }
        assert_eq!(csv_cell("lock:a"), "lock:a");
    }
}

/// A writer for JSON on its way to a terminal: the characters
/// [`terminal`] escapes that JSON leaves raw inside strings (C1 controls,
/// bidirectional controls; serde_json already escapes C0) are written as
/// JSON escapes (`\u202e`), so the document stays valid JSON with the same
/// data and cannot reorder or drive what a terminal shows. JSON puts
/// non-ASCII characters only inside strings, and serde_json hands each
/// write whole characters, so a per-write scan is exact.
pub struct JsonForTerminal<W: std::io::Write>(pub W);

impl<W: std::io::Write> std::io::Write for JsonForTerminal<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Every such character is 2 (C1: C2 80..9F) or 3 (E2 80 AA..AE,
        // E2 81 A6..A9) bytes long and starts with C2 or E2.
        // Only the characters those bytes lead are looked at (decoding
        // every character of a report with a dash in it costs 1.5 % of a
        // million-event run).
        let mut from = 0;
        for at in memchr::memchr2_iter(0xC2, 0xE2, buf) {
            let len = if buf[at] == 0xC2 { 2 } else { 3 };
            let Some(c) = buf
                .get(at..at + len)
                .and_then(|b| std::str::from_utf8(b).ok())
                .and_then(|s| s.chars().next())
            else {
                continue;
            };
            if unsafe_on_terminal(c) {
                self.0.write_all(&buf[from..at])?;
                write!(self.0, "\\u{:04x}", u32::from(c))?;
                from = at + len;
            }
        }
        self.0.write_all(&buf[from..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod json_for_terminal {
    use std::io::Write;

    use super::JsonForTerminal;

    #[test]
    fn in_one_write_only_the_controls_among_other_two_and_three_byte_characters_are_escaped() {
        let mut out = JsonForTerminal(Vec::new());
        let text = "\"— é\u{202e}价\u{85}\u{2069}→\"";
        out.write_all(text.as_bytes()).expect("writes");
        let written = String::from_utf8(out.0).expect("utf8");
        assert_eq!(written, "\"— é\\u202e价\\u0085\\u2069→\"");
        let parsed: String = serde_json::from_str(&written).expect("still JSON");
        assert_eq!(parsed, "— é\u{202e}价\u{85}\u{2069}→");
    }

    #[test]
    fn bidi_and_c1_controls_become_json_escapes_and_the_json_still_parses() {
        let value = serde_json::json!({ "holder": "ab\u{202e}cd\u{85}e\u{1b}[2J", "ok": "价格" });
        let mut out = JsonForTerminal(Vec::new());
        serde_json::to_writer_pretty(&mut out, &value).expect("writes");
        out.flush().expect("flush");
        let text = String::from_utf8(out.0).expect("utf-8");
        assert!(!text.contains('\u{202e}') && !text.contains('\u{85}') && !text.contains('\u{1b}'));
        assert!(text.contains("\\u202e") && text.contains("价格"), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(back, value);
    }
}

//! What lockreplay suggests for a file reading misses, shared by the
//! window's mapping dialog and `inspect`: a message's template (its
//! constant words, the varying tokens masked as in Drain), a `[messages]`
//! regex made from a template, and a `line_regex` built from a sample line
//! whose parts are named with roles.

use crate::model::EventKind;

/// A template's mark for a varying token.
pub const SLOT: &str = "<*>";

/// True when `word` varies from line to line: it has a digit (numbers,
/// ids, times, keys like `sku:1`), or is a long hex run or a UUID.
fn varies(word: &str) -> bool {
    word.bytes().any(|b| b.is_ascii_digit())
        || (word.len() >= 8 && word.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-'))
}

/// `message`'s template: its words split on white space and on the
/// delimiters of [`separates`] (kept), each part that [`varies`] replaced
/// by [`SLOT`] (the value of a `k=v` part only, so `ttl=2000` becomes
/// `ttl=<*>`), the words joined by one space.
pub fn template(message: &str) -> String {
    let words: Vec<String> = message.split_whitespace().map(word_template).collect();
    words.join(" ")
}

/// One word's template ([`template`]).
fn word_template(word: &str) -> String {
    let mut out = String::new();
    let mut part = String::new();
    let flush = |part: &mut String, out: &mut String| {
        match part.split_once('=') {
            Some((k, v)) if !k.is_empty() && varies(v) => {
                out.push_str(k);
                out.push('=');
                out.push_str(SLOT);
            }
            _ if varies(part) => out.push_str(SLOT),
            _ => out.push_str(part),
        }
        part.clear();
    };
    for c in word.chars() {
        if c != '=' && separates(c) {
            flush(&mut part, &mut out);
            out.push(c);
        } else {
            part.push(c);
        }
    }
    flush(&mut part, &mut out);
    out
}

/// The last plain word of a template's word (`<*>|lock` gives `lock`).
fn last_word(word: &str) -> &str {
    word.rsplit(|c: char| c != '=' && separates(c))
        .next()
        .unwrap_or(word)
        .rsplit(SLOT)
        .next()
        .unwrap_or("")
}

/// The templates of `messages` (each with its count), merged, most first
/// (then by template), with one message of each as its example.
pub fn templates(messages: &[(String, usize)]) -> Vec<(String, usize, String)> {
    let mut out: Vec<(String, usize, String)> = Vec::new();
    for (m, n) in messages {
        let t = template(m);
        match out.iter_mut().find(|(x, _, _)| *x == t) {
            Some(row) => row.1 += n,
            None => out.push((t, *n, m.clone())),
        }
    }
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// The role a value named `name` plays (a `k=v` pair's name, or the word
/// before it), for an event of `kind`: role names as such, and the usual
/// words for a holder, a key, a TTL, a quantity or a stock level.
fn role_for_word(name: &str, kind: EventKind) -> Option<&'static str> {
    let name = name.trim_end_matches([':', ',']).to_ascii_lowercase();
    if let Some(r) = crate::ingest::role_names().into_iter().find(|r| *r == name) {
        return Some(r);
    }
    let stock_kind = matches!(kind, EventKind::StockInitialized | EventKind::StockRead);
    Some(match name.as_str() {
        "by" | "owner" | "holder" | "client" | "worker" | "who" | "token" => "holder",
        "lock" | "unlock" | "lock_key" | "resource" | "res" => "key",
        "qty" | "count" | "units" if stock_kind => "stock",
        "qty" | "count" | "units" | "x" => "quantity",
        "left" | "remaining" | "stock_level" => "stock",
        "order" | "order_no" => "order_id",
        "price" => "unit_price",
        "lease" | "lease_ms" => "ttl",
        _ => return None,
    })
}

/// A `[messages]` regex for `template` (as [`template`] writes it) and the
/// events of `kind`: its constant words escaped (`regex::escape`), white
/// space as `\s+`, each slot `\S+`, named with a role where the word before
/// it or its `k=` says one (`by <*>` a holder, `ttl=<*>` a TTL) or, for
/// the first slot whose `example` token has a `:` or `/`, the lock key.
/// A role names one slot at most.
pub fn template_regex(template: &str, example: &str, kind: EventKind) -> String {
    let sample: Vec<&str> = example.split_whitespace().collect();
    let mut used: Vec<&str> = Vec::new();
    let mut parts: Vec<String> = Vec::new();
    let mut prev = "";
    for (i, word) in template.split_whitespace().enumerate() {
        let pieces: Vec<&str> = word.split(SLOT).collect();
        let mut pat = String::new();
        for (j, piece) in pieces.iter().enumerate() {
            pat.push_str(&regex::escape(piece));
            if j + 1 == pieces.len() {
                break;
            }
            let by_word = match piece.strip_suffix('=') {
                Some(k) => role_for_word(last_word(k), kind),
                None if piece.is_empty() && j == 0 => role_for_word(last_word(prev), kind),
                None => None,
            };
            let whole = pieces.len() == 2 && pieces.iter().all(|p| p.is_empty());
            let key_like = whole
                && sample
                    .get(i)
                    .is_some_and(|t| t.contains(':') || t.contains('/'));
            let role = by_word
                .or(key_like.then_some("key"))
                .filter(|r| !used.contains(r));
            match role {
                Some(r) => {
                    used.push(r);
                    pat.push_str(&format!("(?P<{r}>\\S+)"));
                }
                None => pat.push_str("\\S+"),
            }
        }
        parts.push(pat);
        prev = word;
    }
    format!("^{}$", parts.join("\\s+"))
}

/// One part of a sample line, byte range into it, and the role it is
/// given (`message`: the message starts here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// First byte.
    pub start: usize,
    /// Byte after the last.
    pub end: usize,
    /// The role (a mapping role, `level`, or `message`), none for none.
    pub role: Option<String>,
}

/// A text line's layout as named parts of a sample line: what the
/// line-pattern builder edits and [`LinePattern::regex`] makes a
/// `line_regex` of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinePattern {
    /// The sample line.
    pub line: String,
    /// Its parts, in order.
    pub tokens: Vec<Token>,
}

/// Characters that part a sample line's tokens (with white space).
fn separates(c: char) -> bool {
    c.is_whitespace() || "|=[](){},;\"'<>".contains(c)
}

impl LinePattern {
    /// The guess for `line`: split into tokens at white space, `=`, `|`
    /// and brackets, the time (found by the timestamp bank, one token even
    /// with a space in it) named `time`, a level word after it `level`,
    /// the message from the rest (`message` on its first token).
    pub fn guess(line: &str) -> LinePattern {
        let parts = crate::ingest::line_parts(line);
        let time = parts.map(|p| p.time);
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < line.len() {
            if let Some((a, b)) = time.filter(|(a, _)| *a == i) {
                tokens.push(Token {
                    start: a,
                    end: b,
                    role: Some("time".into()),
                });
                i = b;
                continue;
            }
            let rest = &line[i..];
            let Some(c) = rest.chars().next() else { break };
            if separates(c) {
                i += c.len_utf8();
                continue;
            }
            let len = rest
                .char_indices()
                .find(|(j, c)| separates(*c) || time.is_some_and(|(a, _)| i + j == a))
                .map_or(rest.len(), |(j, _)| j);
            tokens.push(Token {
                start: i,
                end: i + len,
                role: None,
            });
            i += len;
        }
        if let Some(p) = parts {
            for t in &mut tokens {
                if p.level == Some((t.start, t.end)) {
                    t.role = Some("level".into());
                }
            }
            if let Some(t) = tokens.iter_mut().find(|t| t.start >= p.message) {
                t.role = Some("message".into());
            }
        }
        LinePattern {
            line: line.to_string(),
            tokens,
        }
    }

    /// Gives token `index` `role`, taking it from any other token (a role
    /// names one part). The message is the rest of the line, so no part
    /// after it has a role: `message` on a part takes the roles of the
    /// parts after it, and another role on the message's part or after it
    /// moves the message to the part after that one (none at the line's
    /// end). What [`LinePattern::regex`] names is then what the parts say.
    pub fn set_role(&mut self, index: usize, role: Option<String>) {
        if index >= self.tokens.len() {
            return;
        }
        if let Some(r) = &role {
            for t in &mut self.tokens {
                if t.role.as_ref() == Some(r) {
                    t.role = None;
                }
            }
        }
        let message = self.message_part();
        let is_message = role.as_deref() == Some("message");
        self.tokens[index].role = role;
        if is_message {
            for t in &mut self.tokens[index + 1..] {
                t.role = None;
            }
        } else if self.tokens[index].role.is_some() && message.is_some_and(|m| m <= index) {
            if let Some(m) = message.filter(|m| *m < index) {
                self.tokens[m].role = None;
            }
            if let Some(next) = self.tokens.get_mut(index + 1) {
                next.role = Some("message".into());
            }
        }
    }

    /// The strftime format (chrono's) of the time a `date` part and a
    /// `time` part make together (`date time`, as reading joins them), or
    /// `None` without both or for a shape it does not know. The date's
    /// order comes from its values on `text`'s lines: a first number above
    /// 12 is a day (`%d/%m/%Y`), a second one above 12 a day
    /// (`%m/%d/%Y`); when none says, `/` is read month first and `.` or
    /// `-` day first.
    pub fn time_format(&self, text: &str) -> Option<String> {
        let time_part = self
            .tokens
            .iter()
            .position(|t| t.role.as_deref() == Some("time"))?;
        let time = time_of_day_format(self.text(time_part))?;
        let dates = self.values(text, "date", 5000);
        let first = dates.first()?.0.clone();
        let sep = first.chars().find(|c| !c.is_ascii_digit())?;
        let numbers = |d: &str| -> Option<Vec<String>> {
            let parts: Vec<String> = d.split(sep).map(str::to_string).collect();
            let digits = parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
            (parts.len() == 3 && digits).then_some(parts)
        };
        let shape = numbers(&first)?;
        let year = |p: &str| if p.len() == 4 { "%Y" } else { "%y" };
        let date = if shape[0].len() == 4 {
            format!("%Y{sep}%m{sep}%d")
        } else {
            let above = |i: usize| {
                dates.iter().any(|(d, _)| {
                    numbers(d).is_some_and(|n| n[i].parse::<u32>().is_ok_and(|v| v > 12))
                })
            };
            let day_first = above(0) || (!above(1) && sep != '/');
            let (a, b) = if day_first {
                ("%d", "%m")
            } else {
                ("%m", "%d")
            };
            format!("{a}{sep}{b}{sep}{}", year(&shape[2]))
        };
        Some(format!("{date} {time}"))
    }

    /// The part the message starts at, if any.
    pub fn message_part(&self) -> Option<usize> {
        self.tokens
            .iter()
            .position(|t| t.role.as_deref() == Some("message"))
    }

    /// Each part's width in characters in the builder: its text or the
    /// longest of `roles`, whichever is wider, so that a part keeps its
    /// place whatever roles are set.
    pub fn slot_chars(&self, roles: &[&str]) -> Vec<usize> {
        let widest = roles.iter().map(|r| r.chars().count()).max().unwrap_or(0);
        (0..self.tokens.len())
            .map(|i| self.text(i).chars().count().max(widest))
            .collect()
    }

    /// The values the part named `role` takes on `text`'s lines that the
    /// pattern matches (at most `lines`), each with its count, most first.
    pub fn values(&self, text: &str, role: &str, lines: usize) -> Vec<(String, usize)> {
        let Ok(re) = regex::Regex::new(&self.regex()) else {
            return Vec::new();
        };
        let mut counts: std::collections::HashMap<&str, usize> = Default::default();
        for line in text.lines().filter(|l| !l.trim().is_empty()).take(lines) {
            if let Some(m) = re.captures(line).and_then(|c| c.name(role)) {
                *counts.entry(m.as_str()).or_default() += 1;
            }
        }
        let mut out: Vec<(String, usize)> = counts
            .into_iter()
            .map(|(v, n)| (v.to_string(), n))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// Token `index`'s text.
    pub fn text(&self, index: usize) -> &str {
        self.tokens
            .get(index)
            .and_then(|t| self.line.get(t.start..t.end))
            .unwrap_or("")
    }

    /// The `line_regex` of the named parts: from the line's start, each
    /// token up to the message's (or the last named one) as a pattern of
    /// its shape (the time's digits as `\d`, any other token up to the
    /// character after it), named when it has a role, what parts them
    /// written as it stands (white space as `\s+`); then the message as
    /// `(?P<message>.*)`, or `.*` without one.
    pub fn regex(&self) -> String {
        let message = self
            .tokens
            .iter()
            .position(|t| t.role.as_deref() == Some("message"));
        let last = message.or_else(|| {
            self.tokens
                .iter()
                .rposition(|t| t.role.is_some())
                .map(|i| i + 1)
        });
        let mut out = String::from("^");
        let mut pos = 0;
        for (i, t) in self.tokens.iter().enumerate().take(last.unwrap_or(0)) {
            out.push_str(&between(&self.line[pos..t.start]));
            let text = &self.line[t.start..t.end];
            let pat = match t.role.as_deref() {
                Some("time" | "date") => shape(text),
                _ => match self.line[t.end..].chars().next() {
                    Some(c) if c.is_whitespace() => "\\S+".to_string(),
                    Some(c) => format!("[^{}]+", regex::escape(&c.to_string())),
                    None if i + 1 == self.tokens.len() => ".+".to_string(),
                    None => "\\S+".to_string(),
                },
            };
            match t.role.as_deref().filter(|r| group_name(r)) {
                Some(r) => out.push_str(&format!("(?P<{r}>{pat})")),
                None => out.push_str(&pat),
            }
            pos = t.end;
        }
        match message.and_then(|m| self.tokens.get(m)) {
            Some(t) => {
                out.push_str(&between(&self.line[pos..t.start]));
                out.push_str("(?P<message>.*)$");
            }
            None => out.push_str(".*$"),
        }
        out
    }
}

/// The strftime format of a time of day shaped `HH:MM:SS` with an
/// optional fraction after `.` or `,` (`%H:%M:%S%.3f`), `None` for another
/// shape.
fn time_of_day_format(text: &str) -> Option<String> {
    let (hms, fraction) = match text.find(['.', ',']) {
        Some(i) => (&text[..i], Some((&text[i..i + 1], &text[i + 1..]))),
        None => (text, None),
    };
    let parts: Vec<&str> = hms.split(':').collect();
    let two_digits = |p: &&str| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit());
    if parts.len() != 3 || !parts.iter().all(two_digits) {
        return None;
    }
    match fraction {
        None => Some("%H:%M:%S".into()),
        Some((sep, f)) if [3, 6, 9].contains(&f.len()) && f.bytes().all(|b| b.is_ascii_digit()) => {
            Some(format!("%H:%M:%S{sep}%{}f", f.len()))
        }
        Some(_) => None,
    }
}

/// True for a name a regex group may have.
fn group_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The text between two tokens as a pattern: white space as `\s+`, the
/// rest as written.
fn between(text: &str) -> String {
    let mut out = String::new();
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            if !space {
                out.push_str("\\s+");
            }
            space = true;
        } else {
            space = false;
            out.push_str(&regex::escape(&c.to_string()));
        }
    }
    out
}

/// A time as a pattern of its shape: each digit `\d`, each letter
/// `[A-Za-z]` (a month's name, `T`, `Z`), the rest as written.
fn shape(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_digit() {
                "\\d".to_string()
            } else if c.is_ascii_alphabetic() {
                "[A-Za-z]".to_string()
            } else if c.is_whitespace() {
                "\\s+".to_string()
            } else {
                regex::escape(&c.to_string())
            }
        })
        .collect()
}

/// The `line_regex` suggested for `text`: [`LinePattern::guess`] of its
/// first line that has a time near its start; `None` when none has.
pub fn suggest_line_regex(text: &str) -> Option<String> {
    text.lines()
        .take(50)
        .find(|l| crate::ingest::line_parts(l).is_some())
        .map(|l| LinePattern::guess(l).regex())
}

/// The messages of `text`'s first lines (at most `lines`) as `line_regex`
/// parts them: its `message` group, or the whole line without one; each
/// with its count, most first. Lines it does not match are left out.
pub fn messages(text: &str, line_regex: &regex::Regex, lines: usize) -> Vec<(String, usize)> {
    let mut counts: std::collections::HashMap<&str, usize> = Default::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()).take(lines) {
        if let Some(c) = line_regex.captures(line) {
            let m = c.name("message").map_or(line, |m| m.as_str());
            *counts.entry(m.trim()).or_default() += 1;
        }
    }
    let mut out: Vec<(String, usize)> = counts
        .into_iter()
        .map(|(m, n)| (m.to_string(), n))
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// What `inspect` suggests for a text file nothing could be read from:
/// the `line_regex` of [`suggest_line_regex`] and the message templates
/// it gives on the head (at most ten, with counts), as lines to print.
/// Empty when no line has a time near its start.
pub fn text_suggestions(text: &str) -> Vec<String> {
    let Some(rx) = suggest_line_regex(text) else {
        return Vec::new();
    };
    let mut out = vec![format!(
        "suggested line_regex (a mapping file's; or the window's Map fields…): '{rx}'"
    )];
    if let Ok(re) = regex::Regex::new(&rx) {
        let t = templates(&messages(text, &re, 5000));
        if !t.is_empty() {
            out.push(
                "message templates (give each its kind in [messages], a regex over the message):"
                    .to_string(),
            );
        }
        for (template, n, _) in t.iter().take(10) {
            out.push(format!("  {n:>6} × {template}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_masks_what_varies() {
        assert_eq!(
            template("lock sku:1 by w-3 got ttl=2000"),
            "lock <*> by <*> got ttl=<*>"
        );
        assert_eq!(
            template("acquired 3c5e0f3a-aaaa-bbbb lease  deadbeefcafe"),
            "acquired <*> lease <*>"
        );
        let t = templates(&[
            ("unlock sku:1 by w-3".into(), 2),
            ("lock sku:1 by w-3 got ttl=2000".into(), 1),
            ("unlock sku:2 by w-7".into(), 3),
        ]);
        assert_eq!(t[0].0, "unlock <*> by <*>");
        assert_eq!(t[0].1, 5);
        assert_eq!(t[1].2, "lock sku:1 by w-3 got ttl=2000");
    }

    #[test]
    fn a_template_regex_names_its_slots() {
        let rx = template_regex(
            "lock <*> by <*> got ttl=<*>",
            "lock sku:1 by w-3 got ttl=2000",
            EventKind::Acquired,
        );
        assert_eq!(
            rx,
            "^lock\\s+(?P<key>\\S+)\\s+by\\s+(?P<holder>\\S+)\\s+got\\s+ttl=(?P<ttl>\\S+)$"
        );
        let re = regex::Regex::new(&rx).expect("valid");
        let c = re
            .captures("lock sku:9 by w-1 got ttl=500")
            .expect("matches");
        assert_eq!(&c["key"], "sku:9");
        let rx = template_regex(
            "check <*> qty=<*> by <*>",
            "check sku:1 qty=1 by w-3",
            EventKind::StockRead,
        );
        assert!(rx.contains("(?P<stock>") && rx.contains("(?P<key>"), "{rx}");
        let rx = template_regex("a.b (x) <*>", "a.b (x) 5", EventKind::Activity);
        assert_eq!(rx, "^a\\.b\\s+\\(x\\)\\s+\\S+$");
        let t = template("pod-2|lock sku:1 by w-3 [t-9]");
        assert_eq!(t, "<*>|lock <*> by <*> [<*>]");
        let rx = template_regex(&t, "pod-2|lock sku:1 by w-3 [t-9]", EventKind::Acquired);
        let re = regex::Regex::new(&rx).expect("valid");
        let c = re.captures("pod-7|lock a:2 by w-1 [x1]").expect("matches");
        assert_eq!((&c["key"], &c["holder"]), ("a:2", "w-1"));
    }

    #[test]
    fn a_line_pattern_is_guessed_and_named() {
        let line = "12:00:01.250|W|lock sku:1 by w-3 got ttl=2000";
        let mut p = LinePattern::guess(line);
        assert_eq!(p.text(0), "12:00:01.250");
        assert_eq!(p.tokens[0].role.as_deref(), Some("time"));
        assert_eq!(p.text(1), "W");
        assert_eq!(p.text(2), "lock");
        assert_eq!(p.tokens[2].role.as_deref(), Some("message"));
        const GUESS: &str =
            "^(?P<time>\\d\\d:\\d\\d:\\d\\d\\.\\d\\d\\d)\\|(?P<level>[^\\|]+)\\|(?P<message>.*)$";
        assert_eq!(p.regex(), GUESS);
        p.set_role(1, None);
        assert_eq!(
            p.regex(),
            "^(?P<time>\\d\\d:\\d\\d:\\d\\d\\.\\d\\d\\d)\\|[^\\|]+\\|(?P<message>.*)$"
        );
        p.set_role(1, Some("level".into()));
        let re = regex::Regex::new(&p.regex()).expect("valid");
        let c = re
            .captures("12:00:03.800|I|unlock sku:1 by w-3")
            .expect("matches");
        assert_eq!(&c["level"], "I");
        assert_eq!(&c["message"], "unlock sku:1 by w-3");
        // A role names one part.
        p.set_role(3, Some("level".into()));
        assert_eq!(p.tokens[1].role, None);
        assert_eq!(
            suggest_line_regex("junk\n12:00:01.250|W|lock sku:1\n").as_deref(),
            Some(GUESS)
        );
        let lines = text_suggestions(
            "12:00:01.250|W|lock sku:1 by w-3 got ttl=2000\n12:00:03.800|W|unlock sku:1 by w-3\n\
             12:00:04.800|W|unlock sku:2 by w-7\n",
        );
        assert_eq!(
            lines[0],
            format!(
                "suggested line_regex (a mapping file's; or the window's Map fields…): '{GUESS}'"
            )
        );
        assert_eq!(lines[2], "       2 × unlock <*> by <*>");
        assert!(text_suggestions("no time\n").is_empty());
    }

    /// The group names of `p`'s regex.
    fn groups(p: &LinePattern) -> Vec<String> {
        let re = regex::Regex::new(&p.regex()).expect("valid");
        re.capture_names().flatten().map(str::to_string).collect()
    }

    /// The roles the parts show, in order.
    fn labels(p: &LinePattern) -> Vec<String> {
        p.tokens.iter().filter_map(|t| t.role.clone()).collect()
    }

    #[test]
    fn the_parts_roles_and_the_regex_agree_whatever_is_set() {
        let line = "07/12/2026|10:00:00.100|grab|sku-7|worker-a|ttl=2000";
        let mut p = LinePattern::guess(line);
        let texts: Vec<&str> = (0..p.tokens.len()).map(|i| p.text(i)).collect();
        assert_eq!(
            texts,
            [
                "07/12/2026",
                "10:00:00.100",
                "grab",
                "sku-7",
                "worker-a",
                "ttl",
                "2000"
            ]
        );
        let slots = p.slot_chars(&["time", "stock_after"]);
        for (i, role) in [
            (0, "date"),
            (2, "event"),
            (3, "key"),
            (4, "holder"),
            (4, "message"),
            (3, "message"),
            (3, "key"),
            (4, "holder"),
        ] {
            p.set_role(i, Some(role.into()));
            assert_eq!(groups(&p), labels(&p), "after {role} on {i}: {}", p.regex());
            assert_eq!(p.slot_chars(&["time", "stock_after"]), slots, "places kept");
        }
        assert_eq!(
            labels(&p),
            ["date", "time", "event", "key", "holder", "message"]
        );
        assert_eq!(p.message_part(), Some(5), "the rest is the message");
        let re = regex::Regex::new(&p.regex()).expect("valid");
        let c = re
            .captures("07/12/2026|10:00:02.800|sell|sku-7|worker-a|qty=1 left=0 order=o-17")
            .expect("matches");
        assert_eq!(&c["date"], "07/12/2026");
        assert_eq!(&c["message"], "qty=1 left=0 order=o-17");
        let c = re
            .captures("07/12/2026|10:00:03.100|letgo|sku-7|worker-a|")
            .expect("an empty rest matches");
        assert_eq!(&c["holder"], "worker-a");
        let head = "07/12/2026|10:00:00.100|grab|sku-7|worker-a|ttl=2000\n\
                    07/12/2026|10:00:03.100|letgo|sku-7|worker-a|\n\
                    07/12/2026|10:00:04.000|grab|sku-7|worker-a|ttl=2000\n";
        assert_eq!(
            p.values(head, "event", 100),
            [("grab".to_string(), 2), ("letgo".to_string(), 1)]
        );
        assert_eq!(
            p.time_format(head).as_deref(),
            Some("%m/%d/%Y %H:%M:%S.%3f"),
        );
        p.set_role(2, None);
        assert_eq!(groups(&p), labels(&p));
    }

    #[test]
    fn a_date_parts_order_is_read_from_its_values() {
        let part = |start, end, role: &str| Token {
            start,
            end,
            role: Some(role.to_string()),
        };
        let line = "13/07/2026 10:00:00 lock a by b";
        let mut p = LinePattern {
            line: line.to_string(),
            tokens: vec![
                part(0, 10, "date"),
                part(11, 19, "time"),
                part(20, 24, "message"),
            ],
        };
        let at = |p: &LinePattern, text: &str| p.time_format(text);
        assert_eq!(at(&p, line).as_deref(), Some("%d/%m/%Y %H:%M:%S"));
        assert_eq!(
            at(&p, "07/13/2026 10:00:00 x\n07/12/2026 10:00:01 y\n").as_deref(),
            Some("%m/%d/%Y %H:%M:%S")
        );
        assert_eq!(
            at(&p, "12.07.2026 10:00:00 x\n").as_deref(),
            None,
            "the regex's date shape is the sample's"
        );
        p.line = "12.07.26 10:00:00 lock a by b".to_string();
        p.tokens[0].end = 8;
        p.tokens[1] = part(9, 17, "time");
        p.tokens[2] = part(18, 22, "message");
        assert_eq!(
            at(&p, "12.07.26 10:00:00 x\n").as_deref(),
            Some("%d.%m.%y %H:%M:%S")
        );
        p.set_role(0, None);
        assert_eq!(at(&p, "12.07.26 10:00:00 x\n"), None);
    }
}

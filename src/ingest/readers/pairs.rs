//! Pairs in a line's text: `key=value` (logfmt), the syntax the line
//! readers and the contest of readers share; and pairs in any of the
//! common syntaxes a message writes them in ([`any_pairs`]), for text whose
//! structure was found (`framing/structure.rs`).

use std::borrow::Cow;

/// Parses one logfmt line into `(key, value)` pairs.
///
/// Values are bare (up to whitespace) or double-quoted with `\"`, `\\`, `\n`,
/// `\t`, `\r` escapes; an unterminated quote is read as a bare value (up to
/// the next space, the quote left out), so the pairs after it survive. A key
/// without `=` is ignored. Returns an empty list when nothing looks like
/// `key=value`.
pub(crate) fn parse_logfmt(line: &str) -> Vec<(&str, Cow<'_, str>)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let ks = i;
        while i < b.len() && b[i] != b'=' && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        let key = &line[ks..i];
        if i >= b.len() || b[i] != b'=' || key.is_empty() {
            // A bare word, or a stray `=` with no key: skip to the next
            // space so the scan always moves on.
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += 1;
            }
            continue;
        }
        i += 1; // '='
        if i < b.len() && b[i] == b'"' {
            i += 1;
            let vs = i;
            let mut owned: Option<String> = None;
            let mut seg = vs;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    let o = owned.get_or_insert_with(String::new);
                    o.push_str(&line[seg..i]);
                    let c = line[i + 1..].chars().next().unwrap_or('\\');
                    o.push(match c {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        c => c,
                    });
                    i += 1 + c.len_utf8();
                    seg = i;
                } else {
                    i += 1;
                }
            }
            if i >= b.len() {
                // An unterminated quote: the value ends at the next space,
                // as if unquoted, so it does not eat the pairs after it.
                i = vs;
                while i < b.len() && !b[i].is_ascii_whitespace() {
                    i += 1;
                }
                out.push((key, Cow::Borrowed(&line[vs..i])));
                continue;
            }
            let end = i.min(b.len());
            let val = match owned {
                Some(mut o) => {
                    o.push_str(&line[seg..end]);
                    Cow::Owned(o)
                }
                None => Cow::Borrowed(&line[vs..end]),
            };
            out.push((key, val));
            i = end + 1;
        } else {
            let vs = i;
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += 1;
            }
            out.push((key, Cow::Borrowed(&line[vs..i])));
        }
    }
    out
}

/// Every `key`/`value` pair in `msg`, whatever its syntax: `k=v`, `k: v`
/// (comma or space separated), `k => v`, `"k": v`, Erlang's binaries and
/// maps (`<<"k">> => <<"v">>`, `#{k => v}`, `k: <<"v"/utf8>>`), a
/// bracketed MDC `[k=v]`, and the full-width `k：v`. A key starts a word
/// (after a space, a comma, an opening bracket or a line's start) and has
/// a letter; `:` separates only before a space, so `lock:sku:1` is one
/// value, never a pair. A value is quoted (`"…"`, `'…'`), a binary, or
/// bare up to a space, a comma, a semicolon or a closing bracket (a
/// trailing `:` or `.` dropped). A message template's hole (`{Name}`) is
/// never a value.
pub(crate) fn any_pairs(msg: &str) -> Vec<(&str, Cow<'_, str>)> {
    let mut out = Vec::new();
    let b = msg.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let boundary = i == 0
            || matches!(
                b[i - 1],
                b' ' | b'\t' | b'\n' | b',' | b';' | b'{' | b'[' | b'(' | b'|'
            )
            || msg[..i].ends_with(['，', '；', '、']);
        if boundary && let Some((key, value, next)) = pair_at(msg, i) {
            if !is_hole(&value) {
                out.push((key, value));
            }
            i = next.max(i + 1);
        } else {
            i += msg[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// True for a message template's hole: `{Name}`, `{Name:format}`, `{@Name}`
/// (Serilog, Microsoft.Extensions.Logging), also with its `}` cut off by a
/// bare value's end.
pub(crate) fn is_hole(v: &str) -> bool {
    let Some(inner) = v.strip_prefix('{') else {
        return false;
    };
    let inner = inner.strip_suffix('}').unwrap_or(inner);
    let name = inner.split([':', ',']).next().unwrap_or("");
    let name = name.trim_start_matches(['@', '$']);
    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The pair whose key starts at byte `i` of `msg`: (key, value, the byte
/// after the value).
fn pair_at(msg: &str, i: usize) -> Option<(&str, Cow<'_, str>, usize)> {
    let (key, mut j) = key_at(msg, i)?;
    if !key.chars().any(char::is_alphabetic) {
        return None;
    }
    let b = msg.as_bytes();
    let spaces = |mut k: usize| {
        while b.get(k).is_some_and(|c| *c == b' ' || *c == b'\t') {
            k += 1;
        }
        k
    };
    let rest = &msg[j..];
    if rest.starts_with('=') && !rest.starts_with("=>") {
        j += 1;
    } else if rest.starts_with('：') {
        j += '：'.len_utf8();
    } else {
        let k = spaces(j);
        if msg[k..].starts_with("=>") {
            j = spaces(k + 2);
        } else if msg[j..].starts_with(':')
            && b.get(j + 1).is_some_and(|c| *c == b' ' || *c == b'\t')
        {
            j = spaces(j + 1);
        } else {
            return None;
        }
    }
    let (value, next) = value_at(msg, j)?;
    Some((key, value, next))
}

/// A key at byte `i`: `<<"k">>`, `"k"`, `'k'` or a bare name (letters,
/// digits, `_ . - @`); its text and the byte after it.
fn key_at(msg: &str, i: usize) -> Option<(&str, usize)> {
    let rest = &msg[i..];
    if let Some((q, n)) = quoted_at(rest) {
        return Some((q, i + n));
    }
    let n: usize = rest
        .char_indices()
        .take_while(|(_, c)| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '@'))
        .last()
        .map_or(0, |(k, c)| k + c.len_utf8());
    (n > 0 && !rest.starts_with(['-', '.'])).then(|| (&rest[..n], i + n))
}

/// A quoted text at the start of `s`: `<<"t">>` or `<<"t"/utf8>>`
/// (an Erlang binary), `"t"` or `'t'`; its text (escapes kept as written)
/// and its length.
fn quoted_at(s: &str) -> Option<(&str, usize)> {
    if let Some(r) = s.strip_prefix("<<\"") {
        let close = r.find('"')?;
        let after = &r[close + 1..];
        let after = after.strip_prefix("/utf8").unwrap_or(after);
        let tail = after.strip_prefix(">>")?;
        return Some((&r[..close], s.len() - tail.len()));
    }
    let q = s.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let r = &s[1..];
    let rb = r.as_bytes();
    let mut k = 0;
    while k < rb.len() && rb[k] != q as u8 {
        k += if rb[k] == b'\\' { 2 } else { 1 };
    }
    if k >= rb.len() {
        return None;
    }
    let text = r.get(..k)?;
    Some((text, 1 + k + 1))
}

/// A value at byte `j`: quoted, a binary, or bare up to its end.
fn value_at(msg: &str, j: usize) -> Option<(Cow<'_, str>, usize)> {
    let rest = msg.get(j..)?;
    if let Some((q, n)) = quoted_at(rest) {
        return (!q.is_empty()).then(|| (Cow::Borrowed(q), j + n));
    }
    let end = rest
        .find(|c: char| {
            c.is_whitespace()
                || matches!(c, ',' | '，' | ';' | '；' | '、' | ')' | '）' | '}' | ']')
        })
        .unwrap_or(rest.len());
    let v = rest[..end].trim_end_matches([':', '.', '。']);
    (!v.is_empty()).then(|| (Cow::Borrowed(v), j + end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any(msg: &str) -> Vec<(&str, String)> {
        any_pairs(msg)
            .into_iter()
            .map(|(k, v)| (k, v.into_owned()))
            .collect()
    }

    #[test]
    fn pairs_in_every_common_syntax() {
        let want = |v: &[(&'static str, &str)]| -> Vec<(&'static str, String)> {
            v.iter().map(|(k, v)| (*k, v.to_string())).collect()
        };
        // Android logcat as an app concatenates it.
        assert_eq!(
            any("taken, cerrojo: lock:sku:1, titular: tok-X, plazo: 3"),
            want(&[
                ("cerrojo", "lock:sku:1"),
                ("titular", "tok-X"),
                ("plazo", "3")
            ])
        );
        // Space separated, arrows, JSON-ish keys, quoted values.
        assert_eq!(
            any(r#"lk: a hd: b ttl => 3 "k": "v w" e="x y""#),
            want(&[
                ("lk", "a"),
                ("hd", "b"),
                ("ttl", "3"),
                ("k", "v w"),
                ("e", "x y")
            ])
        );
        // Erlang: a report's lines, binaries, maps.
        assert_eq!(
            any("\"taken\"\nsperre: <<\"lock:sku:1\">>\nereignis: <<\"抢到锁\"/utf8>>\nmenge: 2"),
            want(&[
                ("sperre", "lock:sku:1"),
                ("ereignis", "抢到锁"),
                ("menge", "2")
            ])
        );
        assert_eq!(
            any(r#"#{<<"key">> => <<"k1">>, holder => h1}"#),
            want(&[("key", "k1"), ("holder", "h1")])
        );
        // A bracketed MDC, the full-width colon.
        assert_eq!(
            any("[traceId=abc] [lk=k2] 数量：3"),
            want(&[("traceId", "abc"), ("lk", "k2"), ("数量", "3")])
        );
        // Colons inside a value, a time, a URL: no pair.
        assert!(any("lock:sku:1 at 07:06:55 from http://x").is_empty());
        // A template's holes are never values.
        assert_eq!(
            any("taken lk={LockKey} hd={Owner:l} n=3"),
            want(&[("n", "3")])
        );
        for odd in [
            "",
            ":",
            "=",
            "<<\"",
            "\"a",
            "k: ",
            "k =>",
            "é: é",
            "'k': '",
            "<<\"k\">>",
        ] {
            let _ = any(odd);
        }
    }

    #[test]
    fn logfmt_quotes_and_escapes() {
        let p = parse_logfmt(
            r#"time=2022-03-14T09:59:50.000Z level=INFO msg="lock acquired" token="q5c==" err="say \"hi\"\n" flag k= "#,
        );
        let got: Vec<(&str, &str)> = p.iter().map(|(k, v)| (*k, v.as_ref())).collect();
        assert_eq!(
            got,
            vec![
                ("time", "2022-03-14T09:59:50.000Z"),
                ("level", "INFO"),
                ("msg", "lock acquired"),
                ("token", "q5c=="),
                ("err", "say \"hi\"\n"),
                ("k", ""),
            ]
        );
        assert!(parse_logfmt("just some words").is_empty());
        assert_eq!(parse_logfmt("a=\"unterminated value").len(), 1);
        assert_eq!(parse_logfmt("a=\"x\\").len(), 1);
        assert_eq!(parse_logfmt("a=\"\\é\"")[0].1, "é");
    }

    #[test]
    fn a_stray_equals_sign_does_not_hang() {
        // A word starting with `=` must not stop the scan from moving on.
        assert!(parse_logfmt("==== \"unterminated").is_empty());
        assert!(parse_logfmt("=").is_empty());
        let p = parse_logfmt("=x a=1 ==b c=2");
        let got: Vec<(&str, &str)> = p.iter().map(|(k, v)| (*k, v.as_ref())).collect();
        assert_eq!(got, vec![("a", "1"), ("c", "2")]);
    }
}

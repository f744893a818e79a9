//! Pairs in a line's text: `key=value` (logfmt), the syntax the line
//! readers and the contest of readers share.

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

#[cfg(test)]
mod tests {
    use super::*;

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

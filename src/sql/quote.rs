//! Names and values written into another language's text, each by that
//! language's own quoting rules: a field or event name from a mapping file
//! must reach the query, the alert rule or the mapping file as a value, and
//! can never change what the text means. What a language cannot carry is
//! refused ([`QuoteError`]), never pasted.
//!
//! Sources of the rules:
//! - ClickHouse: "Syntax", string literals and identifiers (backslash escapes
//!   are honoured in both, beside a doubled quote).
//! - DuckDB and Presto (SLS's SQL): standard SQL, a quote doubled; no
//!   backslash escapes.
//! - SLS search syntax (help.aliyun.com, "查询字符串语法", 字符转义): a field
//!   name escapes its special characters with `\` and cannot be quoted; a
//!   value is double-quoted with `"`, `\`, `*` and `?` escaped by `\`.
//! - LogQL: strings are Go string literals (`strconv.Unquote`); regexes are
//!   RE2; labels that `| json` extracts are sanitised to `[a-zA-Z0-9_]`, `_`
//!   before a leading digit (Loki `pkg/logql/log/util.go`,
//!   `sanitizeLabelKey`).
//! - ES|QL: `x-pack/plugin/esql/src/main/antlr/EsqlBaseLexer.g4`: a STRING
//!   is `"` with `\t \n \r \" \\` escapes and no raw CR or LF; a
//!   QUOTED_IDENTIFIER is backquoted with a backquote doubled.

use super::Dialect;

/// A name that the target language cannot carry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuoteError {
    /// The name holds a character the language has no way to write inside
    /// the construct (a line break in an SLS query, a NUL).
    #[error("{what} {value:?} holds a control character that {lang} cannot carry in a query")]
    Control {
        /// Which input.
        what: &'static str,
        /// Its value.
        value: String,
        /// The target language.
        lang: &'static str,
    },
    /// The name is empty (no language can select by it).
    #[error("{what} is empty")]
    Empty {
        /// Which input.
        what: &'static str,
    },
}

fn no_control(what: &'static str, lang: &'static str, s: &str) -> Result<(), QuoteError> {
    if s.is_empty() {
        return Err(QuoteError::Empty { what });
    }
    if s.chars().any(char::is_control) {
        return Err(QuoteError::Control {
            what,
            value: s.to_string(),
            lang,
        });
    }
    Ok(())
}

/// An SQL string literal of `s` for `dialect`: ClickHouse escapes `\` and
/// `'` with a backslash (it reads `\'` as a quote inside the string);
/// DuckDB doubles `'` and reads `\` as itself.
pub fn sql_string(dialect: Dialect, s: &str) -> String {
    match dialect {
        Dialect::Clickhouse => {
            let mut out = String::with_capacity(s.len() + 2);
            out.push('\'');
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\'' => out.push_str("\\'"),
                    '\0' => out.push_str("\\0"),
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        Dialect::Duckdb => standard_string(s),
    }
}

/// A standard SQL string literal (DuckDB, Presto): `'` doubled.
pub fn standard_string(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A standard SQL quoted identifier (DuckDB, Presto): `"` doubled.
pub fn standard_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// An SQL identifier of `name` for `dialect`: ClickHouse backquotes it
/// with `\` and `` ` `` escaped by a backslash; DuckDB double-quotes it with
/// `"` doubled.
pub fn sql_ident(dialect: Dialect, name: &str) -> String {
    match dialect {
        Dialect::Clickhouse => {
            let mut out = String::with_capacity(name.len() + 2);
            out.push('`');
            for c in name.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '`' => out.push_str("\\`"),
                    '\0' => out.push_str("\\0"),
                    c => out.push(c),
                }
            }
            out.push('`');
            out
        }
        Dialect::Duckdb => standard_ident(name),
    }
}

/// A field's column for `dialect`: a dotted path (nested JSON) as the
/// engines' nested column `a.b`, each part an identifier.
pub fn sql_path(dialect: Dialect, field: &str) -> String {
    field
        .split('.')
        .map(|p| sql_ident(dialect, p))
        .collect::<Vec<_>>()
        .join(".")
}

/// An SLS search field name: every character but letters, digits, `_` and
/// non-ASCII ones escaped with `\` (SLS field names cannot be quoted).
///
/// # Errors
/// [`QuoteError`] for an empty name or a control character.
pub fn sls_field(name: &str) -> Result<String, QuoteError> {
    no_control("field", "SLS", name)?;
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if !(c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii()) {
            out.push('\\');
        }
        out.push(c);
    }
    Ok(out)
}

/// An SLS search value, double-quoted, with `"`, `\`, `*` and `?` escaped
/// (an unescaped `*` or `?` is a wildcard).
///
/// # Errors
/// [`QuoteError`] for an empty value or a control character.
pub fn sls_value(value: &str) -> Result<String, QuoteError> {
    no_control("event name", "SLS", value)?;
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        if matches!(c, '"' | '\\' | '*' | '?') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    Ok(out)
}

/// Checks that `s` can go into SLS's one-line query (no control character).
///
/// # Errors
/// [`QuoteError`].
pub fn sls_plain(what: &'static str, s: &str) -> Result<(), QuoteError> {
    no_control(what, "SLS", s)
}

/// A LogQL (Go) double-quoted string literal of `s`; JSON's escapes are a
/// subset of Go's, so serde_json writes it. DEL, the C1 controls, U+2028,
/// U+2029, U+FFFE and U+FFFF, which JSON leaves as they are, are written
/// as `\uXXXX` too: the rule is YAML (the Loki ruler's), where U+0085,
/// U+2028 and U+2029 end a line and the others may not appear (YAML 1.2
/// §5.1, §5.4).
pub fn logql_string(s: &str) -> String {
    let json = serde_json::Value::String(s.to_string()).to_string();
    let raw_in_yaml = |c: char| {
        matches!(
            c,
            '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}'
        )
    };
    if !json.contains(raw_in_yaml) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if raw_in_yaml(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A LogQL regex matching one of `names`, case-insensitively, as a string
/// literal: each name escaped as RE2 literal text (a label matcher's regex
/// is anchored at both ends).
pub fn logql_any_of(names: &[String]) -> String {
    let alts: Vec<String> = names.iter().map(|n| regex::escape(n)).collect();
    logql_string(&format!("(?i){}", alts.join("|")))
}

/// The label name Loki's `| json` gives a field: nested parts joined by
/// `_`, every character but `[a-zA-Z0-9_]` as `_`, `_` before a leading
/// digit (Loki `sanitizeLabelKey`).
///
/// # Errors
/// [`QuoteError::Empty`] for an empty name.
pub fn loki_label(field: &str) -> Result<String, QuoteError> {
    let trimmed = field.trim();
    if trimmed.is_empty() {
        return Err(QuoteError::Empty { what: "field" });
    }
    let mut out: String = trimmed
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    Ok(out)
}

/// An ES|QL string literal: `"` with `\`, `"`, tab, CR and LF escaped.
///
/// # Errors
/// [`QuoteError::Control`] for another control character (the grammar has
/// no escape for it).
pub fn esql_string(s: &str) -> Result<String, QuoteError> {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                return Err(QuoteError::Control {
                    what: "event name",
                    value: s.to_string(),
                    lang: "ES|QL",
                });
            }
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(out)
}

/// An ES|QL field: each dotted part (ES|QL's path into an object) as
/// written when it is an UNQUOTED_IDENTIFIER (`[A-Za-z_][A-Za-z0-9_]*`),
/// else backquoted with `` ` `` doubled.
///
/// # Errors
/// [`QuoteError::Empty`] for an empty name.
pub fn esql_field(field: &str) -> Result<String, QuoteError> {
    if field.is_empty() {
        return Err(QuoteError::Empty { what: "field" });
    }
    let part = |p: &str| {
        let plain = p.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if plain {
            p.to_string()
        } else {
            format!("`{}`", p.replace('`', "``"))
        }
    };
    Ok(field.split('.').map(part).collect::<Vec<_>>().join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clickhouse_escapes_backslash_and_quote_duckdb_doubles_the_quote() {
        assert_eq!(sql_string(Dialect::Clickhouse, r"a\'b"), r"'a\\\'b'");
        assert_eq!(sql_string(Dialect::Clickhouse, r"x\"), r"'x\\'");
        assert_eq!(sql_string(Dialect::Duckdb, r"a\'b"), r"'a\''b'");
        assert_eq!(sql_ident(Dialect::Clickhouse, "a`b\\"), r"`a\`b\\`");
        assert_eq!(sql_ident(Dialect::Duckdb, "a\"b"), "\"a\"\"b\"");
        assert_eq!(sql_path(Dialect::Duckdb, "lock.key"), "\"lock\".\"key\"");
    }

    #[test]
    fn sls_escapes_field_and_value_and_refuses_a_line_break() {
        assert_eq!(sls_field("__tag__:name").expect("ok"), r"__tag__\:name");
        assert_eq!(sls_field("锁键").expect("ok"), "锁键");
        assert_eq!(sls_value(r#"a"b\c*?"#).expect("ok"), r#""a\"b\\c\*\?""#);
        assert!(sls_value("a\nb").is_err());
        assert!(sls_field("").is_err());
    }

    #[test]
    fn logql_strings_regexes_and_labels() {
        assert_eq!(logql_string("a\"b\\\n"), r#""a\"b\\\n""#);
        assert_eq!(
            logql_string("a\u{2028}b\u{85}c\u{7f}"),
            r#""a\u2028b\u0085c\u007f""#
        );
        let re = logql_any_of(&["a|b".to_string(), "c.d".to_string()]);
        assert_eq!(re, r#""(?i)a\\|b|c\\.d""#);
        assert_eq!(loki_label("lock.key").expect("ok"), "lock_key");
        assert_eq!(loki_label("9x-锁").expect("ok"), "_9x__");
        assert!(loki_label(" ").is_err());
    }

    #[test]
    fn esql_strings_and_fields() {
        assert_eq!(esql_string("a\"b\\\n").expect("ok"), r#""a\"b\\\n""#);
        assert!(esql_string("a\u{1b}b").is_err());
        assert_eq!(esql_field("a|b.c`d").expect("ok"), "`a|b`.`c``d`");
        assert_eq!(esql_field("lock.key").expect("ok"), "lock.key");
        assert_eq!(esql_field("9x").expect("ok"), "`9x`");
    }
}

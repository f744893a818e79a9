//! No function of `src/` outside tests is longer than [`MAX_LINES`] lines,
//! counted from the line of its `fn` to the line of its closing brace: a
//! function a reader can take in on one screen (STYLE.md, "house style").
//!
//! The source is read by a small scanner that knows comments, strings,
//! character literals and braces, which is all a function's extent needs.
//! Items under `#[cfg(test)]` and the files of test-only modules (`mod
//! tests;` under `#[cfg(test)]`) are not counted: a test may be as long as
//! its story.

use std::collections::BTreeSet;
use std::path::Path;

/// The most lines a function may take, its `fn` line and closing brace
/// included.
const MAX_LINES: usize = 100;

/// A token of Rust source with the line it starts on: a name, a piece of
/// punctuation, or a literal (a string, a character or a number) whose text
/// does not matter here. Comments give none.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Punct(char),
    Literal,
}

/// The tokens of `src`, each with its 1-based line.
fn tokens(src: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let (ch, next) = (c[i], c.get(i + 1).copied());
        let start_line = line;
        let end = if ch.is_whitespace() {
            i + 1
        } else if ch == '/' && next == Some('/') {
            c[i..]
                .iter()
                .position(|&x| x == '\n')
                .map_or(c.len(), |n| i + n)
        } else if ch == '/' && next == Some('*') {
            block_comment_end(&c, i)
        } else if ch == '"' {
            let e = string_end(&c, i + 1);
            out.push((Tok::Literal, line));
            e
        } else if ch == '\'' {
            match char_literal_end(&c, i) {
                Some(e) => {
                    out.push((Tok::Literal, line));
                    e
                }
                // A lifetime or a label: its name follows as a token.
                None => i + 1,
            }
        } else if ch.is_alphanumeric() || ch == '_' {
            let mut e = i;
            while e < c.len() && (c[e].is_alphanumeric() || c[e] == '_') {
                e += 1;
            }
            let word: String = c[i..e].iter().collect();
            if let Some(s) = raw_or_byte_string_end(&c, e, &word) {
                out.push((Tok::Literal, line));
                s
            } else {
                let first = word.chars().next();
                if first.is_some_and(|f| f.is_ascii_digit()) {
                    out.push((Tok::Literal, line));
                } else {
                    out.push((Tok::Ident(word), line));
                }
                e
            }
        } else {
            out.push((Tok::Punct(ch), line));
            i + 1
        };
        line = start_line + c[i..end].iter().filter(|&&x| x == '\n').count();
        i = end;
    }
    out
}

/// The index after the (nested) block comment opening at `i`.
fn block_comment_end(c: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < c.len() {
        if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// The index after the string whose text starts at `i` (past its `"`).
fn string_end(c: &[char], mut i: usize) -> usize {
    while i < c.len() && c[i] != '"' {
        i += if c[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// The index after the character literal at `i` (`'a'`, `'\n'`,
/// `'\u{1F600}'`), or `None` for the `'` of a lifetime or a label.
fn char_literal_end(c: &[char], i: usize) -> Option<usize> {
    match (c.get(i + 1), c.get(i + 2)) {
        (Some('\\'), _) => {
            let close = c[i + 2..].iter().position(|&x| x == '\'')?;
            Some(i + 2 + close + 1)
        }
        (Some(_), Some('\'')) => Some(i + 3),
        _ => None,
    }
}

/// When `word` (ending at `i`) opens a string (`b"`, `r"`, `r#"`, `br#"`,
/// `c"`), the index after that string.
fn raw_or_byte_string_end(c: &[char], i: usize, word: &str) -> Option<usize> {
    if !matches!(word, "b" | "r" | "br" | "c" | "cr") {
        return None;
    }
    if !word.contains('r') {
        return (c.get(i) == Some(&'"')).then(|| string_end(c, i + 1));
    }
    let hashes = c[i..].iter().take_while(|&&x| x == '#').count();
    if c.get(i + hashes) != Some(&'"') {
        return None;
    }
    let mut j = i + hashes + 1;
    while j < c.len() {
        if c[j] == '"'
            && c[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&x| x == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(c.len())
}

/// The index after the attribute whose `#` is at `i`, and whether it is
/// `#[cfg(test)]`.
fn attribute_end(toks: &[(Tok, usize)], i: usize) -> (usize, bool) {
    let words: Vec<&Tok> = toks[i..].iter().take(7).map(|(t, _)| t).collect();
    let is_test = words
        == [
            &Tok::Punct('#'),
            &Tok::Punct('['),
            &Tok::Ident("cfg".into()),
            &Tok::Punct('('),
            &Tok::Ident("test".into()),
            &Tok::Punct(')'),
            &Tok::Punct(']'),
        ];
    let mut depth = 0;
    for (j, (t, _)) in toks.iter().enumerate().skip(i + 1) {
        match t {
            Tok::Punct('[') => depth += 1,
            Tok::Punct(']') => {
                depth -= 1;
                if depth == 0 {
                    return (j + 1, is_test);
                }
            }
            _ => {}
        }
    }
    (toks.len(), is_test)
}

/// The index after the item starting at `i`: past its `;` or its braces.
fn item_end(toks: &[(Tok, usize)], i: usize) -> usize {
    let mut depth = 0;
    for (j, (t, _)) in toks.iter().enumerate().skip(i) {
        match t {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            Tok::Punct(';') if depth == 0 => return j + 1,
            _ => {}
        }
    }
    toks.len()
}

/// A function of one file: its name, the line of its `fn` and its length
/// in lines.
#[derive(Debug, PartialEq, Eq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// What one file holds outside `#[cfg(test)]`: its functions with a body,
/// and the modules it declares test-only (`#[cfg(test)] mod x;`).
#[derive(Debug, Default)]
struct FileFunctions {
    functions: Vec<Function>,
    test_modules: Vec<String>,
}

/// Reads the functions of `src`.
fn functions(src: &str) -> FileFunctions {
    let toks = tokens(src);
    let mut out = FileFunctions::default();
    // Token ranges under `#[cfg(test)]`.
    let mut tested: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i].0 != Tok::Punct('#') {
            i += 1;
            continue;
        }
        let (mut after, is_test) = attribute_end(&toks, i);
        if !is_test {
            i = after;
            continue;
        }
        while toks.get(after).is_some_and(|(t, _)| *t == Tok::Punct('#')) {
            after = attribute_end(&toks, after).0;
        }
        let end = item_end(&toks, after);
        if let [
            (Tok::Ident(m), _),
            (Tok::Ident(name), _),
            (Tok::Punct(';'), _),
            ..,
        ] = &toks[after.min(toks.len())..]
            && m == "mod"
        {
            out.test_modules.push(name.clone());
        }
        tested.push((i, end));
        i = end;
    }
    for (i, (t, line)) in toks.iter().enumerate() {
        let (Tok::Ident(word), Some((Tok::Ident(name), _))) = (t, toks.get(i + 1)) else {
            continue;
        };
        if word != "fn" || tested.iter().any(|&(a, b)| (a..b).contains(&i)) {
            continue;
        }
        if let Some(end_line) = body_end_line(&toks, i + 2) {
            out.functions.push(Function {
                name: name.clone(),
                line: *line,
                lines: end_line - line + 1,
            });
        }
    }
    out
}

/// The line of the closing brace of the body of the function whose
/// signature continues at `i`; `None` for a declaration without a body
/// (`fn f();` in a trait).
fn body_end_line(toks: &[(Tok, usize)], i: usize) -> Option<usize> {
    let mut depth = 0;
    for (j, (t, _)) in toks.iter().enumerate().skip(i) {
        match t {
            Tok::Punct('(' | '[') => depth += 1,
            Tok::Punct(')' | ']') => depth -= 1,
            Tok::Punct(';') if depth == 0 => return None,
            Tok::Punct('{') if depth == 0 => {
                let end = item_end(toks, j);
                return toks.get(end - 1).map(|(_, l)| *l);
            }
            _ => {}
        }
    }
    None
}

/// Every `.rs` file under `dir`, as (path relative to `root` with `/`,
/// text).
fn rust_files(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read src")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(root).expect("under src");
            let rel = rel.to_string_lossy().replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&p).expect("read")));
        }
    }
}

/// The folder that holds the child modules of the file at `rel`:
/// `a/mod.rs`, `a.rs` -> `a/`; `lib.rs`, `main.rs` -> ``.
fn children_folder(rel: &str) -> String {
    match rel.rsplit_once('/') {
        Some((dir, "mod.rs")) => format!("{dir}/"),
        None if rel == "lib.rs" || rel == "main.rs" => String::new(),
        _ => format!("{}/", rel.trim_end_matches(".rs")),
    }
}

#[test]
fn no_function_outside_tests_is_longer_than_the_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &root, &mut files);
    let read: Vec<(String, FileFunctions)> = files
        .iter()
        .map(|(rel, text)| (rel.clone(), functions(text)))
        .collect();
    // `x/tests.rs` and everything under `x/tests/` for each test module.
    let test_prefixes: BTreeSet<String> = read
        .iter()
        .flat_map(|(rel, f)| {
            let folder = children_folder(rel);
            f.test_modules
                .iter()
                .flat_map(move |m| [format!("{folder}{m}.rs"), format!("{folder}{m}/")])
        })
        .collect();
    let mut long: Vec<String> = read
        .iter()
        .filter(|(rel, _)| !test_prefixes.iter().any(|p| rel.starts_with(p.as_str())))
        .flat_map(|(rel, f)| {
            f.functions
                .iter()
                .filter(|g| g.lines > MAX_LINES)
                .map(move |g| format!("src/{rel}:{} `{}`: {} lines", g.line, g.name, g.lines))
        })
        .collect();
    long.sort();
    assert!(
        long.is_empty(),
        "functions longer than {MAX_LINES} lines (split them):\n  {}",
        long.join("\n  ")
    );
    // The scanner read something: a library of this size has hundreds.
    let counted: usize = read.iter().map(|(_, f)| f.functions.len()).sum();
    assert!(counted > 500, "only {counted} functions found in src/");
}

#[test]
fn a_function_is_counted_from_its_fn_line_to_its_closing_brace() {
    let src = "/// Doc.\n#[inline]\npub fn a(x: [u8; 2]) -> u8 {\n    let s = \"}\";\n    // }\n    let c = '}';\n    x[0]\n}\n";
    assert_eq!(
        functions(src).functions,
        vec![Function {
            name: "a".into(),
            line: 3,
            lines: 6
        }]
    );
}

#[test]
fn strings_lifetimes_and_declarations_do_not_end_a_function() {
    let src = "trait T {\n    fn d(&self);\n}\nfn b<'a>(s: &'a str) -> &'a str {\n    let r = r#\"}\"\n\"#;\n    /* } /* } */ */\n    let _ = b'}';\n    s\n}\n";
    let f = functions(src).functions;
    assert_eq!(
        f,
        vec![Function {
            name: "b".into(),
            line: 4,
            lines: 7
        }]
    );
}

#[test]
fn test_items_and_test_modules_are_left_out() {
    let src = "#[cfg(test)]\nmod tests;\n#[cfg(test)]\n#[allow(dead_code)]\nfn helper() {\n}\n#[cfg(test)]\nmod inline {\n    fn t() {\n    }\n}\nfn kept() {}\n";
    let f = functions(src);
    assert_eq!(f.test_modules, vec!["tests".to_string()]);
    assert_eq!(
        f.functions,
        vec![Function {
            name: "kept".into(),
            line: 12,
            lines: 1
        }]
    );
    assert_eq!(children_folder("ingest/readers/mod.rs"), "ingest/readers/");
    assert_eq!(children_folder("ui.rs"), "ui/");
    assert_eq!(children_folder("lib.rs"), "");
}

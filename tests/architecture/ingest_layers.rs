//! Ingest's layers point one way: a module of `src/ingest` names only
//! modules of its own layer or of a lower one (ARCHITECTURE.md, "Ingest").
//! Lowest first: the error type (`error.rs`, a leaf), `vocabulary/`,
//! `records/`, `roles/`, `framing/`, `readers/`, then the assembly
//! (`assembly/` and every other file or folder of `src/ingest`, the root
//! `mod.rs` with its re-exports among them).
//!
//! The check reads the sources: every `use` declaration (its tree
//! expanded) and every path written from `crate::`, `super::` or `self::`
//! in the code, tests included; comments and string literals are left
//! out. A path is resolved to the module it names, and the module's layer
//! is that of its first folder under `src/ingest`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The layers below the assembly, lowest first: the first module name under
/// `ingest` that puts a module in each.
const LAYERS: &[(&str, &[&str])] = &[
    ("error", &["error"]),
    ("vocabulary", &["vocabulary"]),
    ("records", &["records"]),
    ("roles", &["roles"]),
    ("framing", &["framing"]),
    ("readers", &["readers"]),
];

/// The folders of `src/ingest` that stand with the assembly. A new folder
/// must be placed: here, or in [`LAYERS`].
const TOP_FOLDERS: &[&str] = &["assembly", "infra", "monitor"];

/// The layer of a module (its path under `ingest`, `[]` for the root):
/// its index in [`LAYERS`], or `LAYERS.len()` for the assembly.
fn layer_of(module: &[String]) -> usize {
    module
        .first()
        .and_then(|first| {
            LAYERS
                .iter()
                .position(|(_, names)| names.contains(&first.as_str()))
        })
        .unwrap_or(LAYERS.len())
}

fn layer_name(layer: usize) -> &'static str {
    LAYERS.get(layer).map_or("assembly", |(name, _)| name)
}

/// One file's source, by its path relative to `src/ingest`.
struct Source {
    rel: PathBuf,
    text: String,
}

/// The module path (under `ingest`) of the file at `rel`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs").to_string();
        if stem != "mod" {
            parts.push(stem);
        }
    }
    parts
}

/// `text` with comments, string and character literals blanked out (line
/// ends kept), so that only code is read.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if let Some(end) = raw_string_end(&b, i) {
            for &c in &b[i..end] {
                blank(&mut out, c);
            }
            i = end;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '"' {
                let step = if b[i] == '\\' { 2 } else { 1 };
                for &c in b.iter().skip(i).take(step) {
                    blank(&mut out, c);
                }
                i += step;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || b.get(i + 2) == Some(&'\'')) {
            // A character literal (a lifetime has no closing quote).
            let len = if next == Some('\\') {
                b[i + 3..]
                    .iter()
                    .position(|&c| c == '\'')
                    .map_or(1, |p| p + 4)
            } else {
                3
            };
            out.extend(std::iter::repeat_n(' ', len));
            i += len;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The end of a raw string literal (`r"..."`, `r#"..."#`, `br#"..."#`)
/// starting at `i`, `None` when none starts there.
fn raw_string_end(b: &[char], i: usize) -> Option<usize> {
    let prev_ident = i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_');
    let mut j = i;
    if b.get(j) == Some(&'b') {
        j += 1;
    }
    if prev_ident || b.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if b.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < b.len() {
        if b[j] == '"'
            && b[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(b.len())
}

/// Tokens of code: words, `::`, and single punctuation characters.
fn tokens(code: &str) -> Vec<String> {
    let b: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(b[start..i].iter().collect());
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

/// The paths of a `use` tree starting at `toks[*pos]`, each under
/// `prefix`; stops after the tree (at `,`, `}` or `;`).
fn use_tree(toks: &[String], pos: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    loop {
        let Some(t) = toks.get(*pos) else { return };
        match t.as_str() {
            "::" => *pos += 1,
            "{" => {
                *pos += 1;
                while toks.get(*pos).is_some_and(|t| t != "}") {
                    use_tree(toks, pos, &path, out);
                    if toks.get(*pos).is_some_and(|t| t == ",") {
                        *pos += 1;
                    }
                }
                *pos += 1;
                return;
            }
            "*" => {
                *pos += 1;
                out.push(path);
                return;
            }
            "as" => *pos += 2,
            "," | "}" | ";" => {
                out.push(path);
                return;
            }
            "self" if path.len() > prefix.len() || !prefix.is_empty() => {
                // `a::{self, b}`: `a` itself.
                *pos += 1;
            }
            word => {
                path.push(word.to_string());
                *pos += 1;
            }
        }
    }
}

/// Every path a file names, each with the module it is written in (the
/// file's module and the inline modules around it).
fn named_paths(module: &[String], text: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let toks = tokens(&code_only(text));
    let mut out = Vec::new();
    // Inline modules: (name, the brace depth inside them).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let here = || {
            let mut m = module.to_vec();
            m.extend(inline.iter().map(|(n, _)| n.clone()));
            m
        };
        match toks[i].as_str() {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "mod" if toks.get(i + 2).is_some_and(|t| t == "{") => {
                inline.push((toks[i + 1].clone(), depth + 1));
                depth += 1;
                i += 3;
                continue;
            }
            "use" => {
                let mut pos = i + 1;
                let mut paths = Vec::new();
                use_tree(&toks, &mut pos, &[], &mut paths);
                let m = here();
                out.extend(paths.into_iter().map(|p| (m.clone(), p)));
                i = pos;
                continue;
            }
            "crate" | "super" | "self" if toks.get(i + 1).is_some_and(|t| t == "::") => {
                let mut p = vec![toks[i].clone()];
                let mut j = i + 1;
                while toks.get(j).is_some_and(|t| t == "::")
                    && toks
                        .get(j + 1)
                        .is_some_and(|t| t.chars().all(|c| c.is_alphanumeric() || c == '_'))
                {
                    p.push(toks[j + 1].clone());
                    j += 2;
                }
                out.push((here(), p));
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The module under `ingest` a path written in module `at` names, `None`
/// for a path outside ingest (std, another crate, the crate's other
/// modules). `modules` are the file modules of ingest: a path may start
/// with a child module of `at`.
fn resolve(at: &[String], path: &[String], modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => {
            return (rest.first().map(String::as_str) == Some("ingest"))
                .then(|| rest[1..].to_vec());
        }
        "self" => at.to_vec(),
        "super" => {
            let mut b = at.to_vec();
            b.pop()?;
            let mut rest = rest;
            while let Some(("super", r)) = rest.split_first().map(|(s, r)| (s.as_str(), r)) {
                b.pop()?;
                rest = r;
            }
            b.extend(rest.iter().cloned());
            return Some(b);
        }
        _ => {
            let mut child = at.to_vec();
            child.push(first.clone());
            if !modules.contains(&child) {
                return None;
            }
            at.to_vec()
        }
    };
    let start = usize::from(first == "self");
    base.extend(path[start..].iter().cloned());
    Some(base)
}

/// A path a file names to a module of ingest.
struct Reference {
    file: PathBuf,
    /// The path as written.
    path: String,
    /// The named module's layer.
    layer: usize,
    /// The file's layer.
    own: usize,
}

/// Every path to a module of ingest that `sources` name.
fn references(sources: &[Source]) -> Vec<Reference> {
    let modules: BTreeSet<Vec<String>> = sources.iter().map(|s| module_of(&s.rel)).collect();
    let mut out = Vec::new();
    for s in sources {
        let module = module_of(&s.rel);
        let own = layer_of(&module);
        for (at, path) in named_paths(&module, &s.text) {
            if let Some(target) = resolve(&at, &path, &modules) {
                out.push(Reference {
                    file: s.rel.clone(),
                    path: path.join("::"),
                    layer: layer_of(&target),
                    own,
                });
            }
        }
    }
    out
}

/// Every reference in `sources` to a module of a higher layer, worded for
/// the failure message.
fn upward(sources: &[Source]) -> Vec<String> {
    let mut out: Vec<String> = references(sources)
        .into_iter()
        .filter(|r| r.layer > r.own)
        .map(|r| {
            format!(
                "src/ingest/{}: `{}` is in the {} layer, above the {} layer",
                r.file.display(),
                r.path,
                layer_name(r.layer),
                layer_name(r.own)
            )
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every `.rs` file under `dir`, with its path relative to `root`.
fn read_tree(root: &Path, dir: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read src/ingest")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            read_tree(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(Source {
                rel: p.strip_prefix(root).expect("under root").to_path_buf(),
                text: std::fs::read_to_string(&p).expect("read source"),
            });
        }
    }
}

fn ingest_sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ingest");
    let mut out = Vec::new();
    read_tree(&root, &root, &mut out);
    out
}

#[test]
fn no_ingest_module_imports_from_a_layer_above_it() {
    let sources = ingest_sources();
    assert!(
        sources.len() > 40,
        "src/ingest read: {} files",
        sources.len()
    );
    // The lower layers name each other: the reading found those paths.
    let down = references(&sources)
        .iter()
        .filter(|r| r.own < LAYERS.len() && r.layer < r.own)
        .count();
    assert!(
        down > 50,
        "only {down} paths down from the lower layers found"
    );
    let up = upward(&sources);
    assert!(
        up.is_empty(),
        "imports from a higher layer:\n{}",
        up.join("\n")
    );
}

#[test]
fn every_folder_of_ingest_has_its_layer() {
    let sources = ingest_sources();
    let folders: BTreeSet<String> = sources
        .iter()
        .filter(|s| s.rel.components().count() > 1)
        .filter_map(|s| s.rel.iter().next())
        .map(|f| f.to_string_lossy().into_owned())
        .collect();
    let placed = |f: &String| {
        TOP_FOLDERS.contains(&f.as_str()) || LAYERS.iter().any(|(_, n)| n.contains(&f.as_str()))
    };
    let unplaced: Vec<&String> = folders.iter().filter(|f| !placed(f)).collect();
    assert!(
        unplaced.is_empty(),
        "folders of src/ingest with no layer (add them to LAYERS or TOP_FOLDERS): {unplaced:?}"
    );
}

/// The checker itself, on invented files: each way of naming a module
/// above is found, and what is allowed is not.
#[test]
fn the_checker_finds_an_upward_import() {
    let src = |rel: &str, text: &str| Source {
        rel: PathBuf::from(rel),
        text: text.to_string(),
    };
    let files = vec![
        src(
            "mod.rs",
            "mod vocabulary;\nmod readers;\nmod assembly;\npub use readers::text::parse;\n",
        ),
        src("vocabulary/mod.rs", "pub(crate) mod words;\n"),
        src(
            "vocabulary/words.rs",
            concat!(
                "//! Words; `crate::ingest::readers::text` in a comment is no import.\n",
                "use super::other::Thing;\n",
                "use crate::ingest::{readers::text::{self, parse}, vocabulary::roles::Role};\n",
                "fn f() -> &'static str { let _ = 'x'; \"crate::ingest::assembly::steps\" }\n",
                "fn g() { crate::ingest::assembly::steps::run(); }\n",
                "#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::roles::Role;\n}\n",
            ),
        ),
        src("vocabulary/other.rs", "pub(crate) struct Thing;\n"),
        src(
            "readers/mod.rs",
            "pub(crate) mod text;\nuse super::vocabulary::words;\n",
        ),
        src(
            "readers/text.rs",
            "use crate::ingest::IngestOptions;\npub fn parse() {}\n",
        ),
        src(
            "assembly/mod.rs",
            "use crate::ingest::readers::text::parse;\n",
        ),
    ];
    let up = upward(&files);
    assert_eq!(
        up,
        vec![
            "src/ingest/readers/text.rs: `crate::ingest::IngestOptions` is in the assembly layer, above the readers layer",
            "src/ingest/vocabulary/words.rs: `crate::ingest::assembly::steps::run` is in the assembly layer, above the vocabulary layer",
            "src/ingest/vocabulary/words.rs: `crate::ingest::readers::text::parse` is in the readers layer, above the vocabulary layer",
            "src/ingest/vocabulary/words.rs: `crate::ingest::readers::text` is in the readers layer, above the vocabulary layer",
        ],
        "{up:#?}"
    );
}

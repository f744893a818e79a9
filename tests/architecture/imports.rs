//! The import graph of `src/`, read from the source text and checked
//! against ARCHITECTURE.md: no cycle between the top-level modules, none
//! between the files of one module folder, `ui` names nothing of `cli`,
//! nothing outside `ui` names egui, and every arrow between top-level
//! modules points down the layers.
//!
//! A file's arrows are its `use` trees and the `crate::`, `super::` and
//! `self::` paths in its code (not in comments or strings), outside
//! `#[cfg(test)]` items and test-only files: tests may reach anywhere.
//! `main.rs`, the binary, stands above every module and is not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level modules from the bottom up (ARCHITECTURE.md, "Layers"):
/// a module may name the modules of the rows below its own and, without a
/// cycle, those of its own row. Every module of `src/` is in one row.
const LAYERS: &[&[&str]] = &[
    &["fsio", "redis_model", "timing"],
    &["model"],
    &["money"],
    &["ingest"],
    &["analysis"],
    &["playback", "whatif"],
    &["report"],
    &["config"],
    &["pipeline"],
    &["inspect", "sim", "sql"],
    &["cli"],
    &["ui"],
];

/// Crates of the window: only `ui` may name them.
const GUI_CRATES: &[&str] = &[
    "eframe",
    "egui",
    "egui_extras",
    "egui_kittest",
    "egui_plot",
    "emath",
    "epaint",
    "ecolor",
    "wgpu",
    "winit",
];

/// A cycle another branch is removing: the folder (`""` for the top-level
/// modules), the modules in it, and whose work removes it. A listed cycle
/// that is no longer found fails the test until its line is struck.
struct KnownCycle {
    folder: &'static str,
    modules: &'static [&'static str],
    owner: &'static str,
}

/// The cycles still to remove.
const KNOWN_CYCLES: &[KnownCycle] = &[];

/// Upward arrows between top-level modules still to remove: (from, to,
/// whose work removes it). They are left out of the top-level cycles, and
/// struck like [`KNOWN_CYCLES`] once gone.
const KNOWN_UPWARD: &[(&str, &str, &str)] = &[];

/// True while `ui` may still name `cli` (while a branch moves the window
/// off the command line's types); false: the check is on.
const KNOWN_UI_TO_CLI: bool = false;

// ---------------------------------------------------------------------
// Tokens

/// A token of Rust source, as far as paths need: names, `::`, and single
/// punctuation. Comments, strings and character literals give none.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The tokens of `src`.
fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            i = skip_block_comment(&c, i);
        } else if ch == '"' {
            i = skip_string(&c, i + 1);
        } else if ch == '\'' {
            i = skip_quote(&c, i);
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            if let Some(end) = skip_prefixed_string(&c, i, &word) {
                i = end;
            } else {
                out.push(Tok::Ident(word));
            }
        } else if ch == ':' && next == Some(':') {
            out.push(Tok::PathSep);
            i += 2;
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

/// The index after the (nested) block comment opening at `i`.
fn skip_block_comment(c: &[char], mut i: usize) -> usize {
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
fn skip_string(c: &[char], mut i: usize) -> usize {
    while i < c.len() && c[i] != '"' {
        i += if c[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// The index after a character literal at `i`, or after the `'` of a
/// lifetime or label (whose name follows as a token).
fn skip_quote(c: &[char], i: usize) -> usize {
    if c.get(i + 1) == Some(&'\\') {
        let mut j = i + 2;
        while j < c.len() && c[j] != '\'' {
            j += 1;
        }
        j + 1
    } else if c.get(i + 2) == Some(&'\'') {
        i + 3
    } else {
        i + 1
    }
}

/// When `word` (ending at `i`) prefixes a string (`b"`, `r"`, `r#"`,
/// `br#"`...), the index after that string.
fn skip_prefixed_string(c: &[char], i: usize, word: &str) -> Option<usize> {
    if !matches!(word, "b" | "c" | "r" | "br" | "cr") {
        return None;
    }
    if !word.ends_with('r') {
        return (c.get(i) == Some(&'"')).then(|| skip_string(c, i + 1));
    }
    let hashes = c[i..].iter().take_while(|&&ch| ch == '#').count();
    if c.get(i + hashes) != Some(&'"') {
        return None;
    }
    let mut j = i + hashes + 1;
    while j < c.len() {
        if c[j] == '"'
            && c[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&h| h == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(j)
}

// ---------------------------------------------------------------------
// One file's paths

/// What one file names.
#[derive(Debug, Default, PartialEq)]
struct FileRefs {
    /// Module paths named, from the crate root (`crate::a::B` is `[a, B]`).
    paths: Vec<Vec<String>>,
    /// The first names of the other paths (crates, types, modules in scope).
    roots: BTreeSet<String>,
    /// Modules declared `#[cfg(test)] mod x;`: their files are tests.
    test_modules: Vec<Vec<String>>,
    /// Names bound by `use` (seen by the module and, through `super::`,
    /// its children; with `pub`, by others): where, and what they name.
    aliases: Vec<(Vec<String>, Vec<String>)>,
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// The modules `toks` declares (`mod x;`, `mod x { .. }`).
fn declared_modules(toks: &[Tok]) -> BTreeSet<String> {
    toks.windows(3)
        .filter_map(|w| match (&w[0], &w[1], &w[2]) {
            (Tok::Ident(m), Tok::Ident(name), Tok::Punct(';' | '{')) if m == "mod" => {
                Some(name.clone())
            }
            _ => None,
        })
        .collect()
}

/// Where a path is named: the module, and the names of its child modules
/// (a path may start at one of them).
struct Scope<'a> {
    module: &'a [String],
    children: &'a BTreeSet<String>,
}

/// Reads the file of module `module` (`[]` for `lib.rs`).
fn read_file(module: &[String], toks: &[Tok]) -> FileRefs {
    let mut refs = FileRefs::default();
    let children = declared_modules(toks);
    let none = BTreeSet::new();
    // Inline modules open: (their path, the brace depth inside them).
    let mut scopes: Vec<(Vec<String>, usize)> = vec![(module.to_vec(), 0)];
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let here = scopes.last().map(|s| s.0.clone()).unwrap_or_default();
        let scope = Scope {
            module: &here,
            children: if scopes.len() == 1 { &children } else { &none },
        };
        let after_sep = i > 0 && toks[i - 1] == Tok::PathSep;
        match &toks[i] {
            Tok::Punct('#') => {
                let (end, test_only) = attribute(toks, i);
                i = if test_only {
                    skip_item(toks, end, &here, &mut refs.test_modules)
                } else {
                    end
                };
                continue;
            }
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if scopes.len() > 1 && scopes.last().is_some_and(|s| s.1 == depth) {
                    scopes.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Ident(w) if w == "mod" => {
                if let (Some(name), Some(Tok::Punct('{'))) =
                    (ident(toks.get(i + 1)), toks.get(i + 2))
                {
                    let mut inner = here.clone();
                    inner.push(name.to_string());
                    scopes.push((inner, depth + 1));
                    i += 2;
                    continue;
                }
            }
            Tok::Ident(w) if w == "use" => {
                let mut trees = Vec::new();
                i = use_tree(toks, i + 1, Vec::new(), &mut trees);
                for (p, name) in trees {
                    if let Some(target) = resolve(&scope, &p).filter(|_| name != "*") {
                        let mut at = here.clone();
                        at.push(name);
                        refs.aliases.push((at, target));
                    }
                    note_path(&scope, &p, &mut refs);
                }
                continue;
            }
            Tok::Ident(_) if !after_sep && toks.get(i + 1) == Some(&Tok::PathSep) => {
                let mut p = Vec::new();
                let mut j = i;
                while let Some(name) = ident(toks.get(j)) {
                    p.push(name.to_string());
                    if toks.get(j + 1) != Some(&Tok::PathSep) {
                        break;
                    }
                    j += 2;
                }
                note_path(&scope, &p, &mut refs);
                i = j + 1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    refs
}

/// Records path `p` named in `scope`.
fn note_path(scope: &Scope<'_>, p: &[String], refs: &mut FileRefs) {
    match resolve(scope, p) {
        Some(abs) => refs.paths.push(abs),
        None => {
            if let Some(first) = p.first() {
                refs.roots.insert(first.clone());
            }
        }
    }
}

/// `p` named in `scope`, from the crate root; `None` for a path that does
/// not start at `crate`, `super`, `self` or a child module.
fn resolve(scope: &Scope<'_>, p: &[String]) -> Option<Vec<String>> {
    let first = p.first()?;
    let (mut base, mut rest): (Vec<String>, &[String]) = match first.as_str() {
        "crate" => (Vec::new(), &p[1..]),
        "self" => (scope.module.to_vec(), &p[1..]),
        "super" => (scope.module.to_vec(), p),
        _ if scope.children.contains(first) => (scope.module.to_vec(), p),
        _ => return None,
    };
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(base)
}

/// `p` with the names bound by `use` it passes through replaced by what
/// they name (`crate::a::B`, re-exported from `a::b`, is `[a, b, B]`).
/// Glob imports (`use x::*`) bind no name here.
fn through_aliases(p: &[String], aliases: &BTreeMap<Vec<String>, Vec<String>>) -> Vec<String> {
    let mut p = p.to_vec();
    for _ in 0..8 {
        let Some(n) = (1..=p.len()).rev().find(|&n| aliases.contains_key(&p[..n])) else {
            break;
        };
        let mut q = aliases[&p[..n]].clone();
        q.extend_from_slice(&p[n..]);
        if q == p {
            break;
        }
        p = q;
    }
    p
}

/// Parses the use tree at `i` under `prefix` into `out` as (path, the name
/// it binds: the last segment, its alias, or `*`); the index after it
/// (past the `;` when it ends the statement).
fn use_tree(
    toks: &[Tok],
    mut i: usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, String)>,
) -> usize {
    let mut path = prefix;
    while let Some(t) = toks.get(i) {
        match t {
            Tok::PathSep => i += 1,
            Tok::Ident(w) => {
                path.push(w.clone());
                i += 1;
                if toks.get(i) != Some(&Tok::PathSep) {
                    let mut name = path.iter().rev().find(|s| *s != "self").cloned();
                    if ident(toks.get(i)) == Some("as") {
                        name = ident(toks.get(i + 1)).map(str::to_string);
                        i += 2;
                    }
                    out.push((path, name.unwrap_or_default()));
                    return end_of_tree(toks, i);
                }
            }
            Tok::Punct('*') => {
                out.push((path, "*".into()));
                return end_of_tree(toks, i + 1);
            }
            Tok::Punct('{') => {
                i += 1;
                while let Some(t) = toks.get(i) {
                    match t {
                        Tok::Punct('}') => break,
                        Tok::Punct(',') => i += 1,
                        _ => i = use_tree(toks, i, path.clone(), out),
                    }
                }
                return end_of_tree(toks, i + 1);
            }
            _ => return i + 1,
        }
    }
    i
}

/// Past the `;` that ends a use statement at `i`, else `i`.
fn end_of_tree(toks: &[Tok], i: usize) -> usize {
    if toks.get(i) == Some(&Tok::Punct(';')) {
        i + 1
    } else {
        i
    }
}

/// The attribute at `i` (`#[...]` or `#![...]`): the index after it, and
/// whether it is `cfg(test)`.
fn attribute(toks: &[Tok], i: usize) -> (usize, bool) {
    let mut j = i + 1;
    if toks.get(j) == Some(&Tok::Punct('!')) {
        j += 1;
    }
    if toks.get(j) != Some(&Tok::Punct('[')) {
        return (i + 1, false);
    }
    let start = j + 1;
    let mut depth = 0;
    while let Some(t) = toks.get(j) {
        match t {
            Tok::Punct('[') => depth += 1,
            Tok::Punct(']') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    let test = [
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
    ];
    (j + 1, toks.get(start..j) == Some(&test[..]))
}

/// Skips the item at `i` (after its `#[cfg(test)]`): to its `;` or past its
/// braces. A `mod x;` is recorded as a test module of `scope`.
fn skip_item(toks: &[Tok], mut i: usize, scope: &[String], tests: &mut Vec<Vec<String>>) -> usize {
    while toks.get(i) == Some(&Tok::Punct('#')) {
        i = attribute(toks, i).0;
    }
    if let (Some("mod"), Some(name), Some(Tok::Punct(';'))) =
        (ident(toks.get(i)), ident(toks.get(i + 1)), toks.get(i + 2))
    {
        let mut m = scope.to_vec();
        m.push(name.to_string());
        tests.push(m);
        return i + 3;
    }
    let (mut parens, mut braces) = (0i32, 0i32);
    while let Some(t) = toks.get(i) {
        i += 1;
        match t {
            Tok::Punct('(' | '[') => parens += 1,
            Tok::Punct(')' | ']') => parens -= 1,
            Tok::Punct(';') if parens == 0 && braces == 0 => return i,
            Tok::Punct('{') if parens == 0 => braces += 1,
            Tok::Punct('}') if parens == 0 => {
                braces -= 1;
                if braces == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    i
}

// ---------------------------------------------------------------------
// The graph

/// The module of the file at `rel` (relative to `src/`, `/`-separated):
/// `ui/panels/mod.rs` is `[ui, panels]`, `lib.rs` is `[]`.
fn module_of(rel: &str) -> Vec<String> {
    let mut m: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if m.last().is_some_and(|s| s == "mod") || m == ["lib"] {
        m.pop();
    }
    m
}

/// One file of `src/` that is no test: its module, name and what it names.
struct Source {
    module: Vec<String>,
    file: String,
    refs: FileRefs,
}

/// Reads `files` (path relative to `src/`, text); drops the binary and the
/// files of test-only modules.
fn sources(files: &[(String, String)]) -> Vec<Source> {
    let all: Vec<Source> = files
        .iter()
        .filter(|(rel, _)| rel != "main.rs")
        .map(|(rel, text)| {
            let module = module_of(rel);
            let refs = read_file(&module, &tokens(text));
            Source {
                module,
                file: rel.clone(),
                refs,
            }
        })
        .collect();
    let tests: Vec<Vec<String>> = all
        .iter()
        .flat_map(|s| s.refs.test_modules.clone())
        .collect();
    all.into_iter()
        .filter(|s| !tests.iter().any(|t| s.module.starts_with(t)))
        .collect()
}

/// Arrows between the modules right under `folder` (`[]`: the top-level
/// modules): from -> to -> one file and path that make it, for messages.
type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// The graph of the modules right under `folder`: a file of module
/// `folder::a::...` naming `folder::b::...` is an arrow `a -> b` when `b`
/// is a module (a file or folder of its own), and an arrow to the module
/// that defines an item named through a `use` elsewhere (a re-export). The
/// folder's own file is in no arrow (it declares and re-exports its
/// children).
fn graph(sources: &[Source], folder: &[String]) -> Graph {
    let under = |m: &[String]| -> Option<String> {
        (m.len() > folder.len() && m.starts_with(folder)).then(|| m[folder.len()].clone())
    };
    let modules: BTreeSet<String> = sources.iter().filter_map(|s| under(&s.module)).collect();
    let aliases: BTreeMap<Vec<String>, Vec<String>> = sources
        .iter()
        .flat_map(|s| s.refs.aliases.iter().cloned())
        .collect();
    let mut g = Graph::new();
    for s in sources {
        let Some(from) = under(&s.module) else {
            continue;
        };
        g.entry(from.clone()).or_default();
        let named = s.refs.paths.iter().cloned();
        let defined = s.refs.paths.iter().map(|p| through_aliases(p, &aliases));
        for p in named.chain(defined) {
            if let Some(to) = under(&p).filter(|to| *to != from && modules.contains(to)) {
                g.entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| format!("{} names {}", s.file, p.join("::")));
            }
        }
    }
    g
}

/// The folders of `src/`: every module with modules under it.
fn folders(sources: &[Source]) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    for s in sources {
        for n in 0..s.module.len() {
            out.insert(s.module[..n].to_vec());
        }
    }
    out
}

/// The cycles of `g`: each set of two or more modules that reach each
/// other, sorted.
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for to in g.get(&n).into_iter().flat_map(|e| e.keys()) {
                if seen.insert(to.clone()) {
                    todo.push(to.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> = g.keys().map(|k| (k, reach(k))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for (a, ra) in &reaches {
        let scc: Vec<String> = ra
            .iter()
            .filter(|b| reaches.get(b).is_some_and(|rb| rb.contains(*a)))
            .cloned()
            .collect();
        if scc.len() > 1 && !out.contains(&scc) {
            out.push(scc);
        }
    }
    out
}

/// The arrows of `g` inside `cycle`, one line each, with what makes them.
fn explain(g: &Graph, cycle: &[String]) -> String {
    let mut s = String::new();
    for a in cycle {
        for (b, why) in g.get(a).into_iter().flatten() {
            if cycle.contains(b) {
                s.push_str(&format!("\n    {a} -> {b}: {why}"));
            }
        }
    }
    s
}

/// Every cycle in `src/` as (folder, modules, the arrows that make it):
/// the top-level modules' without the arrows `skip`, and each folder's.
fn all_cycles(sources: &[Source], skip: &[(&str, &str)]) -> Vec<(String, Vec<String>, String)> {
    let mut out = Vec::new();
    for folder in folders(sources) {
        let mut g = graph(sources, &folder);
        if folder.is_empty() {
            for (from, to) in skip {
                if let Some(tos) = g.get_mut(*from) {
                    tos.remove(*to);
                }
            }
        }
        for c in cycles(&g) {
            out.push((folder.join("::"), c.clone(), explain(&g, &c)));
        }
    }
    out
}

/// The row of `module` in [`LAYERS`].
fn layer_of(layers: &[&[&str]], module: &str) -> Option<usize> {
    layers.iter().position(|row| row.contains(&module))
}

/// The arrows between top-level modules that point up the layers, and the
/// modules in no layer.
fn upward(g: &Graph, layers: &[&[&str]]) -> (Vec<(String, String, String)>, Vec<String>) {
    let mut up = Vec::new();
    let unplaced = g
        .keys()
        .filter(|m| layer_of(layers, m).is_none())
        .cloned()
        .collect();
    for (from, tos) in g {
        for (to, why) in tos {
            if let (Some(a), Some(b)) = (layer_of(layers, from), layer_of(layers, to))
                && b > a
            {
                up.push((from.clone(), to.clone(), why.clone()));
            }
        }
    }
    (up, unplaced)
}

/// Files outside `ui` that name a crate of the window.
fn gui_outside_ui(sources: &[Source]) -> Vec<String> {
    sources
        .iter()
        .filter(|s| s.module.first().is_none_or(|m| m != "ui"))
        .flat_map(|s| {
            s.refs
                .roots
                .iter()
                .filter(|r| GUI_CRATES.contains(&r.as_str()))
                .map(|r| format!("{} names {r}", s.file))
        })
        .collect()
}

// ---------------------------------------------------------------------
// The checks on src/

fn read_src() -> Vec<Source> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("src/ is readable")
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let rel = p.strip_prefix(root).expect("under src/");
                let rel = rel.to_string_lossy().replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&p).expect("a source file")));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    sources(&files)
}

#[test]
fn no_module_cycle_in_src() {
    let known_up: Vec<(&str, &str)> = KNOWN_UPWARD.iter().map(|k| (k.0, k.1)).collect();
    let found = all_cycles(&read_src(), &known_up);
    let known = |folder: &str, c: &[String]| {
        KNOWN_CYCLES
            .iter()
            .any(|k| k.folder == folder && k.modules.iter().eq(c.iter()))
    };
    let new: Vec<String> = found
        .iter()
        .filter(|(f, c, _)| !known(f, c))
        .map(|(f, c, why)| format!("in {:?}: {}{why}", f, c.join(" <-> ")))
        .collect();
    assert!(new.is_empty(), "module cycles:\n  {}", new.join("\n  "));
    let gone: Vec<String> = KNOWN_CYCLES
        .iter()
        .filter(|k| {
            !found
                .iter()
                .any(|(f, c, _)| f == k.folder && k.modules.iter().eq(c.iter()))
        })
        .map(|k| format!("{:?}: {} ({})", k.folder, k.modules.join(" <-> "), k.owner))
        .collect();
    assert!(
        gone.is_empty(),
        "no longer found, strike from KNOWN_CYCLES:\n  {}",
        gone.join("\n  ")
    );
}

#[test]
fn ui_names_nothing_of_cli() {
    let g = graph(&read_src(), &[]);
    let to_cli = g.get("ui").and_then(|tos| tos.get("cli"));
    if KNOWN_UI_TO_CLI {
        assert!(
            to_cli.is_some(),
            "ui -> cli is gone: set KNOWN_UI_TO_CLI to false"
        );
    } else {
        assert!(to_cli.is_none(), "ui -> cli: {to_cli:?}");
    }
}

#[test]
fn nothing_below_ui_names_egui() {
    let found = gui_outside_ui(&read_src());
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn top_level_modules_import_down_the_layers() {
    let g = graph(&read_src(), &[]);
    let (up, unplaced) = upward(&g, LAYERS);
    assert!(
        unplaced.is_empty(),
        "modules in no row of LAYERS: {unplaced:?}"
    );
    let new: Vec<String> = up
        .iter()
        .filter(|(a, b, _)| !KNOWN_UPWARD.iter().any(|k| k.0 == a && k.1 == b))
        .map(|(a, b, why)| format!("{a} -> {b}: {why}"))
        .collect();
    assert!(
        new.is_empty(),
        "arrows up the layers:\n  {}",
        new.join("\n  ")
    );
    let gone: Vec<String> = KNOWN_UPWARD
        .iter()
        .filter(|k| !up.iter().any(|(a, b, _)| a == k.0 && b == k.1))
        .map(|k| format!("{} -> {} ({})", k.0, k.1, k.2))
        .collect();
    assert!(
        gone.is_empty(),
        "no longer found, strike from KNOWN_UPWARD:\n  {}",
        gone.join("\n  ")
    );
}

// ---------------------------------------------------------------------
// The checker on invented files

fn files(list: &[(&str, &str)]) -> Vec<Source> {
    let owned: Vec<(String, String)> = list
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    sources(&owned)
}

fn path(s: &str) -> Vec<String> {
    s.split("::").map(str::to_string).collect()
}

#[test]
fn comments_strings_and_characters_name_nothing() {
    let src = r##"
        // use crate::cli::Cli;
        /* crate::cli /* nested */ crate::cli */
        /// [`crate::cli::run`]
        const A: &str = "crate::cli::X { ";
        const B: &str = r#"crate::cli "quoted" {"#;
        const C: char = '{';
        const D: char = '\'';
        fn f<'a>(x: &'a str) -> &'a str { crate::model::g(x) }
    "##;
    let refs = read_file(&path("a"), &tokens(src));
    assert_eq!(refs.paths, vec![path("model::g")]);
}

#[test]
fn use_trees_expand_and_super_climbs_from_the_files_module() {
    let src = "use crate::{a::B, b::{self, C as D}, c::*};\n\
               use super::sibling::X;\n\
               use super::super::top;\n\
               mod inner { use super::Y; }\n\
               fn g() { let _ = self::inner::Y; let _ = egui::Ui::new; }";
    let refs = read_file(&path("m::f"), &tokens(src));
    let want: Vec<Vec<String>> = [
        "a::B",
        "b",
        "b::C",
        "c",
        "m::sibling::X",
        "top",
        "m::f::Y",
        "m::f::inner::Y",
    ]
    .iter()
    .map(|p| path(p))
    .collect();
    assert_eq!(refs.paths, want);
    assert!(refs.roots.contains("egui"));
}

#[test]
fn a_reexport_leads_to_the_module_that_defines_the_item() {
    let s = files(&[
        (
            "e/mod.rs",
            "mod one;\nmod two;\npub use one::A;\npub(crate) use two::B as Bee;",
        ),
        ("e/two.rs", "use super::A;"),
        ("e/one.rs", "fn f() { crate::e::Bee::new(); }"),
        ("f.rs", "use crate::e::A;"),
    ]);
    let e = graph(&s, &path("e"));
    assert!(e["two"].contains_key("one") && e["one"].contains_key("two"));
    let top = graph(&s, &[]);
    assert_eq!(top["f"].keys().collect::<Vec<_>>(), ["e"]);
}

#[test]
fn test_items_and_test_files_are_not_read() {
    let s = files(&[
        (
            "a.rs",
            "use crate::b::X;\n\
             #[cfg(test)]\nmod tests { use crate::c::Y; fn t() { let _ = [0u8; 2]; } }\n\
             #[cfg(test)]\nmod more;\n\
             #[cfg(test)]\nuse crate::c::Z;\n\
             fn after() { crate::d::w(); }",
        ),
        ("a/more.rs", "use crate::c::Q;"),
        ("b.rs", ""),
        ("c.rs", ""),
        ("d.rs", ""),
    ]);
    let g = graph(&s, &[]);
    let from_a: Vec<&String> = g["a"].keys().collect();
    assert_eq!(from_a, ["b", "d"]);
    assert!(s.iter().all(|s| s.file != "a/more.rs"));
}

#[test]
fn module_of_names_folders_by_their_mod_file() {
    assert_eq!(module_of("lib.rs"), Vec::<String>::new());
    assert_eq!(module_of("ui/mod.rs"), path("ui"));
    assert_eq!(module_of("report/zh.rs"), path("report::zh"));
    assert_eq!(module_of("ui/panels/menu.rs"), path("ui::panels::menu"));
}

#[test]
fn cycles_are_found_at_the_top_and_inside_folders() {
    let s = files(&[
        ("a.rs", "use crate::b::X;"),
        ("b.rs", "fn f() { crate::c::g() }"),
        ("c.rs", "use crate::a;"),
        ("d.rs", "use crate::a::Z;"),
        ("e/mod.rs", "pub use one::A; pub use two::B;"),
        ("e/one.rs", "use super::two::B; use super::A;"),
        ("e/two.rs", "fn f() { super::one::A::new(); }"),
        ("e/three.rs", "use super::one::A;"),
    ]);
    let found: Vec<(String, Vec<String>)> = all_cycles(&s, &[])
        .into_iter()
        .map(|(f, c, _)| (f, c))
        .collect();
    let want = vec![
        (String::new(), path("a::b::c")),
        ("e".to_string(), vec!["one".to_string(), "two".to_string()]),
    ];
    assert_eq!(found, want);
    let acyclic = files(&[
        ("a.rs", "use crate::b::X;"),
        ("b.rs", "use crate::c;"),
        ("c.rs", ""),
    ]);
    assert!(all_cycles(&acyclic, &[]).is_empty());
    // An arrow known to be wrong is left out of the top-level cycles only.
    let known: Vec<String> = all_cycles(&s, &[("c", "a"), ("two", "one")])
        .into_iter()
        .map(|(f, _, _)| f)
        .collect();
    assert_eq!(known, ["e"]);
}

#[test]
fn an_arrow_up_the_layers_and_an_unplaced_module_are_found() {
    let s = files(&[
        ("low.rs", "use crate::high::X;"),
        ("high.rs", "use crate::low::Y;"),
        ("stray.rs", ""),
    ]);
    let g = graph(&s, &[]);
    let (up, unplaced) = upward(&g, &[&["low"], &["high"]]);
    let arrows: Vec<(&str, &str)> = up
        .iter()
        .map(|(a, b, _)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(arrows, [("low", "high")]);
    assert_eq!(unplaced, ["stray"]);
}

#[test]
fn egui_outside_ui_is_found() {
    let s = files(&[
        ("ui/mod.rs", "use egui::Ui;"),
        (
            "report.rs",
            "fn f(ui: &mut egui::Ui) {} const S: &str = \"eframe::run\";",
        ),
    ]);
    assert_eq!(gui_outside_ui(&s), ["report.rs names egui"]);
}

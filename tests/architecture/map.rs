//! ARCHITECTURE.md is the map of the tree, so every file and folder it
//! names exists: a file moved or renamed without the map fails here. A
//! path may be written whole (`src/ingest/readers/csv.rs`) or from any
//! folder on the way (`readers/csv.rs`, `note/en.rs`), as the map's tables
//! do under their heading's folder.

use std::path::Path;

/// The endings of the paths the map is checked for: source, docs, SQL,
/// scripts and lists; a word ending in `/` is a folder.
const ENDINGS: &[&str] = &[".rs", ".md", ".sql", ".sh", ".py", ".txt", "/"];

/// Every file and folder under `dir` (folders with a trailing `/`), as
/// paths relative to `root` with `/`; `target/` and `.git/` left out.
fn tree(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let rel = p.strip_prefix(root).expect("under root");
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel == "target" || rel.starts_with(".git") {
            continue;
        }
        if p.is_dir() {
            out.push(format!("{rel}/"));
            tree(&p, root, out);
        } else {
            out.push(rel);
        }
    }
}

/// The path-like words of `text` (letters, digits, `_`, `-`, `.` and at
/// least one `/`) that end in one of [`ENDINGS`], trailing `.` and `,`
/// dropped.
fn paths_in(text: &str) -> Vec<String> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
    text.split(|c: char| !is_path_char(c))
        .map(|w| w.trim_end_matches(['.', ',']))
        .filter(|w| w.contains('/') && !w.starts_with('/'))
        .filter(|w| ENDINGS.iter().any(|e| w.ends_with(e)))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_path_the_architecture_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut files = Vec::new();
    tree(root, root, &mut files);
    let mut missing: Vec<String> = paths_in(&map)
        .into_iter()
        .filter(|p| {
            !files
                .iter()
                .any(|f| f == p || f.ends_with(&format!("/{p}")))
        })
        .collect();
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths the tree does not have:\n  {}",
        missing.join("\n  ")
    );
    assert!(paths_in(&map).len() > 100, "the map names few paths");
}

#[test]
fn paths_are_read_from_prose_and_tables() {
    assert_eq!(
        paths_in("| CSV | `readers/csv.rs` |, see src/ui/panels/, and acquire/release."),
        ["readers/csv.rs", "src/ui/panels/"]
    );
}

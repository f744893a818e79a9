//! The invariance generator: several small incidents, each
//! written through runtime layouts x log-service envelopes x field-name
//! families x compression and encodings, must give the answer the same
//! incident gives as plain JSON Lines (the oracle).
//!
//! The oracle is the library itself on `model::canonical_jsonl` (the names
//! it reads best); its answers are first checked against what each incident
//! was built to show (an overlap, oversold units, the finding it is about,
//! nothing at all for the negative control). The answer compared is: load
//! error or not, the holds (key, holder), the overlap pairs (key, earlier
//! holder, later holder, cause, duration within 1 ms), oversold units and
//! the findings counted by kind.
//!
//! Ratchet: `tests/invariance/known_misses.txt` lists the combinations that
//! fail today, one id a line with its first difference. The test fails when a
//! combination outside the list fails, and when a listed one passes (remove
//! its line: the list only shrinks). `INVARIANCE_BLESS=1` rewrites the list
//! from the current run (for a change that is meant to move it; review the
//! diff). Every run writes `target/invariance-report.txt` (counts per layout,
//! envelope, family, encoding and incident) and
//! `target/invariance-failures.txt` (every failing id with its difference),
//! `target/invariance-results.txt` (every id, `ok` or its difference);
//! `INVARIANCE_DUMP=DIR` keeps every generated export in DIR, named by its id.
//!
//! The layouts, envelopes and encodings, each with its source, are in
//! `tests/invariance/`.

#[path = "invariance/answer.rs"]
mod answer;
#[path = "invariance/encodings.rs"]
mod encodings;
#[path = "invariance/envelopes.rs"]
mod envelopes;
#[path = "invariance/layouts.rs"]
mod layouts;
#[path = "invariance/model.rs"]
mod model;
#[path = "invariance/time.rs"]
mod time;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use lockreplay::ingest::IngestOptions;

use answer::{Answer, answer_of, check_oracle, first_difference};
use encodings::{ENCODINGS, Encoding};
use envelopes::{ENVELOPES, Envelope};
use layouts::{LAYOUTS, Layout};
use model::{FAMILIES, Family, Incident, incidents};

/// One generated export.
struct Combo {
    incident: usize,
    layout: Layout,
    envelope: Envelope,
    family: Family,
    encoding: Encoding,
}

impl Combo {
    fn id(&self, incs: &[Incident]) -> String {
        format!(
            "{}/{}/{}/{}/{}",
            incs[self.incident].name,
            self.layout.id(),
            self.envelope.id(),
            self.family.id(),
            self.encoding.id()
        )
    }
}

/// The combinations: every layout with every envelope that carries it, in
/// every family; the incident and the encoding turn with the indices, so
/// each (layout, envelope) meets every incident and each envelope every
/// encoding that fits it.
fn combos(n_incidents: usize) -> Vec<Combo> {
    let mut out = Vec::new();
    for (li, &layout) in LAYOUTS.iter().enumerate() {
        for (ei, &envelope) in ENVELOPES.iter().enumerate() {
            if !envelope.carries(layout) {
                continue;
            }
            let encs: Vec<Encoding> = ENCODINGS
                .iter()
                .copied()
                .filter(|e| e.fits(envelope.is_text()))
                .collect();
            for (fi, &family) in FAMILIES.iter().enumerate() {
                out.push(Combo {
                    incident: (li + ei + fi) % n_incidents,
                    layout,
                    envelope,
                    family,
                    encoding: encs[(li * 7 + ei * 3 + fi) % encs.len()],
                });
            }
        }
    }
    out
}

/// The bytes of one combination's export.
fn render(c: &Combo, incs: &[Incident]) -> Vec<u8> {
    let lines: Vec<layouts::Line> = incs[c.incident]
        .recs
        .iter()
        .map(|r| c.layout.render(r, c.family))
        .collect();
    let text = c.envelope.wrap(&lines, c.layout);
    // The generator's own check: no export loses a lock key, holder, order id
    // or record (a failure must be the reader's, not the writer's). A GBK
    // journald message is bytes: its key is not there as text.
    let plain = c.envelope != Envelope::JournaldGbk;
    for r in incs[c.incident].recs.iter().filter(|_| plain) {
        for v in [r.key, r.holder, r.order_id].into_iter().flatten() {
            assert!(
                text.contains(v),
                "{}: {v} is missing from the export",
                c.id(incs)
            );
        }
    }
    for r in incs[c.incident].recs.iter().filter(|_| plain) {
        if let Some(h) = r.holder {
            let want = incs[c.incident]
                .recs
                .iter()
                .filter(|o| o.holder == Some(h))
                .count();
            assert!(
                text.matches(h).count() >= want,
                "{}: a record of {h} is missing",
                c.id(incs)
            );
        }
    }
    c.encoding.apply(&text)
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The committed list: id -> the difference it had.
fn read_known(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once('\t') {
            Some((id, d)) => (id.to_string(), d.to_string()),
            None => (l.trim().to_string(), String::new()),
        })
        .collect()
}

/// Counts of (passing, failing) under a name.
type Tally = BTreeMap<&'static str, (usize, usize)>;

fn tally(t: &mut Tally, name: &'static str, ok: bool) {
    let e = t.entry(name).or_insert((0, 0));
    if ok {
        e.0 += 1;
    } else {
        e.1 += 1;
    }
}

fn tally_text(title: &str, t: &Tally) -> String {
    let mut s = format!("\n{title:<22} {:>6} {:>6} {:>6}\n", "total", "pass", "fail");
    for (name, (p, f)) in t {
        let _ = writeln!(s, "{name:<22} {:>6} {:>6} {:>6}", p + f, p, f);
    }
    s
}

/// Passing combinations of each (layout, envelope) pair, as a table:
/// layouts down, envelopes across (numbered, with a legend), `p/n` a cell.
fn pair_matrix(all: &[Combo], results: &[(String, Option<String>)]) -> String {
    let mut cells: BTreeMap<(&str, &str), (usize, usize)> = BTreeMap::new();
    for (c, (_, d)) in all.iter().zip(results) {
        let e = cells
            .entry((c.layout.id(), c.envelope.id()))
            .or_insert((0, 0));
        e.1 += 1;
        if d.is_none() {
            e.0 += 1;
        }
    }
    let mut s = String::from("\npassing per (layout, envelope), p/n; envelopes:\n");
    for (i, e) in ENVELOPES.iter().enumerate() {
        let _ = writeln!(s, "  e{i:02} {}", e.id());
    }
    let _ = write!(s, "{:<18}", "");
    for i in 0..ENVELOPES.len() {
        let _ = write!(s, " e{i:02}");
    }
    s.push('\n');
    for l in LAYOUTS {
        let _ = write!(s, "{:<18}", l.id());
        for e in ENVELOPES {
            match cells.get(&(l.id(), e.id())) {
                Some((p, n)) => {
                    let _ = write!(s, " {p}/{n}");
                }
                None => s.push_str("   -"),
            }
        }
        s.push('\n');
    }
    s
}

#[test]
fn every_export_path_gives_the_plain_answer() {
    let incs = incidents();
    let dir = tempfile::tempdir().expect("tempdir");

    // The oracle: each incident as plain JSON Lines.
    let oracle: Vec<Answer> = incs
        .iter()
        .map(|inc| {
            let p = dir.path().join(format!("oracle-{}.jsonl", inc.name));
            std::fs::write(&p, model::canonical_jsonl(&inc.recs)).expect("write oracle");
            let a = answer_of(&p, &IngestOptions::default());
            check_oracle(inc, &a);
            a
        })
        .collect();

    let all = combos(incs.len());
    let layouts_used: BTreeSet<&str> = all.iter().map(|c| c.layout.id()).collect();
    let envelopes_used: BTreeSet<&str> = all.iter().map(|c| c.envelope.id()).collect();
    assert!(
        all.len() >= 2000,
        "{} combinations, want at least 2 000",
        all.len()
    );
    assert!(layouts_used.len() >= 15 && envelopes_used.len() >= 20);

    // `INVARIANCE_DUMP=DIR` keeps every export there, named by its id.
    let dump = std::env::var_os("INVARIANCE_DUMP").map(PathBuf::from);
    if let Some(d) = &dump {
        std::fs::create_dir_all(d).expect("dump dir");
    }

    // Every combination, in parallel: (id, first difference).
    let results: Vec<(String, Option<String>)> = all
        .par_iter()
        .enumerate()
        .map(|(n, c)| {
            let id = c.id(&incs);
            let name = format!("c{n:05}.{}{}", c.envelope.ext(), c.encoding.suffix());
            let path = dir.path().join(name);
            let bytes = render(c, &incs);
            std::fs::write(&path, &bytes).expect("write export");
            let got = answer_of(&path, &IngestOptions::default());
            let _ = std::fs::remove_file(&path);
            if let Some(d) = &dump {
                let name = format!(
                    "{}.{}{}",
                    id.replace('/', "+"),
                    c.envelope.ext(),
                    c.encoding.suffix()
                );
                std::fs::write(d.join(name), &bytes).expect("dump export");
            }
            (id, first_difference(&got, &oracle[c.incident]))
        })
        .collect();

    // Counts for the report.
    let (mut by_layout, mut by_envelope, mut by_family, mut by_encoding, mut by_incident) = (
        Tally::new(),
        Tally::new(),
        Tally::new(),
        Tally::new(),
        Tally::new(),
    );
    for (c, (_, diff)) in all.iter().zip(&results) {
        let ok = diff.is_none();
        tally(&mut by_layout, c.layout.id(), ok);
        tally(&mut by_envelope, c.envelope.id(), ok);
        tally(&mut by_family, c.family.id(), ok);
        tally(&mut by_encoding, c.encoding.id(), ok);
        tally(&mut by_incident, incs[c.incident].name, ok);
    }
    let failing: BTreeMap<&str, &str> = results
        .iter()
        .filter_map(|(id, d)| d.as_deref().map(|d| (id.as_str(), d)))
        .collect();
    let passing = results.len() - failing.len();

    let known_path = manifest().join("tests/invariance/known_misses.txt");
    let bless = std::env::var_os("INVARIANCE_BLESS").is_some();
    if bless {
        let mut s = String::from(
            "# Combinations of tests/invariance.rs that fail today: id<TAB>first difference.\n\
             # The list only shrinks: remove a line when its combination passes.\n",
        );
        for (id, d) in &failing {
            let _ = writeln!(s, "{id}\t{d}");
        }
        std::fs::write(&known_path, s).expect("write known misses");
    }
    let known = read_known(&known_path);
    let ids: BTreeSet<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    let unexpected: Vec<(&str, &str)> = failing
        .iter()
        .filter(|(id, _)| !known.contains_key(**id))
        .map(|(i, d)| (*i, *d))
        .collect();
    let now_pass: Vec<&str> = known
        .keys()
        .map(String::as_str)
        .filter(|id| ids.contains(id) && !failing.contains_key(id))
        .collect();
    let stale: Vec<&str> = known
        .keys()
        .map(String::as_str)
        .filter(|id| !ids.contains(id))
        .collect();

    // The report for the reader's authors.
    let mut report = format!(
        "invariance generator: {} combinations, {} passing, {} failing \
         ({} outside known_misses.txt, {} listed that now pass, {} listed ids not generated)\n\
         layouts {}, envelopes {}, families {}, encodings {}, incidents {}\n",
        results.len(),
        passing,
        failing.len(),
        unexpected.len(),
        now_pass.len(),
        stale.len(),
        layouts_used.len(),
        envelopes_used.len(),
        FAMILIES.len(),
        ENCODINGS.len(),
        incs.len()
    );
    report += &tally_text("layout", &by_layout);
    report += &tally_text("envelope", &by_envelope);
    report += &tally_text("family", &by_family);
    report += &tally_text("encoding", &by_encoding);
    report += &tally_text("incident", &by_incident);
    report += &pair_matrix(&all, &results);
    report += "\nthe oracle (each incident as plain JSON Lines)\n";
    for (inc, a) in incs.iter().zip(&oracle) {
        let _ = writeln!(
            report,
            "{:<10} holds {}, overlaps {:?}, oversold {}, findings {:?}",
            inc.name,
            a.holds.len(),
            a.overlaps,
            a.oversold,
            a.findings
        );
    }
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for d in failing.values() {
        // The reason up to its first `;` (for an unreadable file: what it was
        // read as), numbers kept: "0 holds, want 2", "oversold 0, want 1".
        let head: String = d.split(';').next().unwrap_or(d).chars().take(90).collect();
        *reasons.entry(head).or_insert(0) += 1;
    }
    report += "\nfirst differences, grouped\n";
    for (r, n) in &reasons {
        let _ = writeln!(report, "{n:>6}  {r}");
    }
    let target = manifest().join("target");
    let _ = std::fs::create_dir_all(&target);
    let _ = std::fs::write(target.join("invariance-report.txt"), &report);
    let mut all_fail = String::new();
    for (id, d) in &failing {
        let _ = writeln!(all_fail, "{id}\t{d}");
    }
    let _ = std::fs::write(target.join("invariance-failures.txt"), all_fail);
    let mut every = String::new();
    for (id, d) in &results {
        let _ = writeln!(every, "{id}\t{}", d.as_deref().unwrap_or("ok"));
    }
    let _ = std::fs::write(target.join("invariance-results.txt"), every);
    println!("{report}");

    // The table of what broke the ratchet.
    let mut msg = String::new();
    if !unexpected.is_empty() {
        let _ = writeln!(
            msg,
            "{} combinations fail that known_misses.txt does not list \
             (incident/layout/envelope/family/encoding -> first difference):",
            unexpected.len()
        );
        for (id, d) in unexpected.iter().take(80) {
            let _ = writeln!(msg, "  {id:<70} -> {d}");
        }
        if unexpected.len() > 80 {
            let _ = writeln!(
                msg,
                "  ... and {} more (target/invariance-failures.txt)",
                unexpected.len() - 80
            );
        }
    }
    if !now_pass.is_empty() {
        let _ = writeln!(
            msg,
            "{} combinations listed in known_misses.txt now pass: remove their lines \
             (or run with INVARIANCE_BLESS=1 and review the diff):",
            now_pass.len()
        );
        for id in now_pass.iter().take(40) {
            let _ = writeln!(msg, "  {id}");
        }
    }
    if !stale.is_empty() {
        let _ = writeln!(
            msg,
            "{} ids in known_misses.txt are not generated any more:",
            stale.len()
        );
        for id in stale.iter().take(20) {
            let _ = writeln!(msg, "  {id}");
        }
    }
    assert!(msg.is_empty(), "{msg}");
}

//! The renaming and relayout generator: the invariance generator's incidents
//! (each with a contender's lost acquire added) written with every
//! application field name and event word replaced by ones no list of the
//! reader has, through the invariance layouts, the permuted text layouts
//! and the log-service envelopes. Each variant must give the answer the
//! plain JSON Lines incident gives (the oracle), or say honestly (a load
//! error or a problem that makes the run exit 2) what it could not decide.
//! A different answer without a problem is SILENT-WRONG.
//!
//! Each variant's outcome: PASS (the plain answer), HONEST (a load error or
//! exit-2 problem), SILENT-WRONG (no problem, a different answer). A sanity
//! check reads the variants of the runtime's own file again with a mapping
//! naming their fields and words (`tests/invariance/mapping.rs`): those must
//! pass, which proves the files are fine.
//!
//! Ratchet: `tests/invariance/renaming_known.txt` lists today's HONEST and
//! SILENT-WRONG ids, grouped under their first difference. The test fails when a
//! variant outside the list is silent-wrong or honest, when a listed one now
//! passes (remove its line), and when a listed silent-wrong one turns
//! honest or a listed honest one silent-wrong (update its line): the list
//! only shrinks or moves from silent to honest to gone. `RENAMING_BLESS=1`
//! rewrites the list from the run (review the diff). Whatever the list
//! says, any silent-wrong variant and a pass rate under 95 % fail the test.
//!
//! Every run writes `target/renaming-report.txt` (counts by name family,
//! phrase family, layout, envelope, incident and TTL style, the grouped
//! first differences, the sanity check) and `target/renaming-results.txt`
//! (every id with its outcome); `RENAMING_DUMP=DIR` keeps every export.

#[path = "invariance/answer.rs"]
mod answer;
// Shared with tests/invariance.rs, which uses parts this generator does not.
#[allow(dead_code)]
#[path = "invariance/envelopes.rs"]
mod envelopes;
#[path = "invariance/layouts.rs"]
mod layouts;
#[path = "invariance/mapping.rs"]
mod mapping;
#[allow(dead_code)]
#[path = "invariance/model.rs"]
mod model;
#[path = "invariance/renaming.rs"]
mod renaming;
#[path = "invariance/time.rs"]
mod time;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use lockreplay::ingest::{IngestOptions, Mapping};

use answer::{Answer, answer_of, check_oracle, first_difference};
use envelopes::{ENVELOPES, Envelope};
use layouts::{LAYOUTS, Layout, PERMUTED};
use model::{Family, Incident, Renaming};
use renaming::{NameFamily, PHRASE_FAMILIES};

/// Variants per (layout, envelope) pair.
const PER_PAIR: usize = 3;

/// The least pass rate, % (issue #47: at least 95 % give the answer).
const STRICT_PASS_PERCENT: f64 = 95.0;

/// One generated export.
struct Variant {
    incident: usize,
    layout: Layout,
    envelope: Envelope,
    /// The dimension of the name family (`random` for every seed).
    names_family: &'static str,
    renaming: &'static Renaming,
}

impl Variant {
    fn id(&self, incs: &[Incident]) -> String {
        format!(
            "{}/{}/{}/{}/{}/{}",
            incs[self.incident].name,
            self.layout.id(),
            self.envelope.id(),
            self.renaming.names_id,
            self.renaming.phrases_id,
            self.ttl_id()
        )
    }

    fn ttl_id(&self) -> &'static str {
        if self.renaming.ttl_s {
            "ttl-s"
        } else {
            "ttl-ms"
        }
    }

    fn family(&self) -> Family {
        Family::Renamed(self.renaming)
    }
}

/// The variants: every layout (the invariance ones and the permuted ones)
/// with every envelope that carries it, [`PER_PAIR`] each. Within a layout
/// the name family and the phrase family turn so that every pair of them
/// meets the layout; the incident, the TTL style and the random seed turn
/// with the indices. Each renaming is made once.
fn variants(n_incidents: usize, names: &[NameFamily]) -> Vec<Variant> {
    let fixed = renaming::NAME_FAMILIES.len();
    let n_names = fixed + 1;
    let mut made: BTreeMap<(&str, &str, bool), &'static Renaming> = BTreeMap::new();
    let mut out = Vec::new();
    let layouts = LAYOUTS.iter().chain(PERMUTED);
    for (li, &layout) in layouts.enumerate() {
        for (ei, &envelope) in ENVELOPES.iter().enumerate() {
            if !envelope.carries(layout) {
                continue;
            }
            for j in 0..PER_PAIR {
                let n = ei * PER_PAIR + j;
                let name_at = (n + li * 5) % n_names;
                let nf = if name_at < fixed {
                    &names[name_at]
                } else {
                    &names[fixed + (li * 29 + n) % renaming::RANDOM_SEEDS]
                };
                let pf = &PHRASE_FAMILIES[(n + n / n_names + li) % PHRASE_FAMILIES.len()];
                let ttl_s = (n + li) % 2 == 1;
                let renaming = *made
                    .entry((nf.id, pf.id, ttl_s))
                    .or_insert_with(|| renaming::renaming(nf, pf, ttl_s));
                out.push(Variant {
                    incident: (li + ei + j) % n_incidents,
                    layout,
                    envelope,
                    names_family: nf.family,
                    renaming,
                });
            }
        }
    }
    out
}

/// Whether an envelope stores each physical line as its own entry (a
/// container runtime, syslog, the journal): a record over several lines
/// becomes several entries. The shippers and services are taken to join a
/// record's lines (their multiline settings), as one entry.
fn line_based(e: Envelope) -> bool {
    matches!(
        e,
        Envelope::Docker
            | Envelope::Cri
            | Envelope::Kubectl
            | Envelope::Syslog3164
            | Envelope::Syslog5424
            | Envelope::Journald
            | Envelope::JournaldGbk
    )
}

/// The export of one variant, as text.
fn render(v: &Variant, incs: &[Incident]) -> String {
    let mut lines: Vec<layouts::Line> = Vec::new();
    for r in &incs[v.incident].recs {
        let line = v.layout.render(r, v.family());
        if line.text.contains('\n') && line_based(v.envelope) {
            for physical in line.text.split('\n') {
                lines.push(layouts::Line {
                    text: physical.to_string(),
                    json: None,
                    ..line.clone()
                });
            }
        } else if v.envelope == Envelope::File {
            lines.push(line);
        } else {
            let text = line.text.trim_start_matches('\n').to_string();
            lines.push(layouts::Line { text, ..line });
        }
    }
    let text = v.envelope.wrap(&lines, v.layout);
    // The generator's own check: no export loses a lock key, holder or
    // order id, or a holder's record (a GBK journald message is bytes).
    if v.envelope != Envelope::JournaldGbk {
        let recs = &incs[v.incident].recs;
        for r in recs {
            for value in [r.key, r.holder, r.order_id].into_iter().flatten() {
                let want = recs
                    .iter()
                    .filter(|o| [o.key, o.holder, o.order_id].contains(&Some(value)))
                    .count();
                assert!(
                    text.matches(value).count() >= want,
                    "{}: a record with {value} is missing from the export",
                    v.id(incs)
                );
            }
        }
    }
    text
}

/// A variant's outcome against the oracle.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Pass,
    /// A load error or exit-2 problem: what it said.
    Honest(String),
    /// No problem and a different answer: the first difference.
    Silent(String),
}

impl Outcome {
    fn of(got: &Answer, want: &Answer) -> Outcome {
        match (&got.error, first_difference(got, want)) {
            (Some(e), _) => Outcome::Honest(e.chars().take(140).collect()),
            (None, Some(d)) => Outcome::Silent(d),
            (None, None) => Outcome::Pass,
        }
    }

    fn class(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Honest(_) => "honest",
            Outcome::Silent(_) => "silent",
        }
    }

    fn detail(&self) -> &str {
        match self {
            Outcome::Pass => "",
            Outcome::Honest(d) | Outcome::Silent(d) => d,
        }
    }
}

/// The sanity check's result for one variant.
#[derive(Clone, Debug)]
enum Sanity {
    /// Not checked (only the runtime's own file is).
    NotRun,
    Ran(Outcome),
}

/// Reads `path` with the variant's sanity mapping.
fn sanity(v: &Variant, path: &Path, want: &Answer) -> Sanity {
    if v.envelope != Envelope::File {
        return Sanity::NotRun;
    }
    let m: Mapping = mapping::plan(v.layout, v.renaming)
        .parse()
        .expect("the sanity mapping parses");
    let opts = IngestOptions {
        mapping: Some(m),
        ..IngestOptions::default()
    };
    Sanity::Ran(Outcome::of(&answer_of(path, &opts), want))
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The head of a first difference that groups variants: up to its first
/// `;`, at most 100 characters.
fn difference_head(d: &str) -> String {
    d.split(';')
        .next()
        .unwrap_or("")
        .chars()
        .take(100)
        .collect()
}

/// The committed list: id -> (class, the head of its first difference). A
/// line `== CLASS: HEAD` starts a group; the ids under it are its variants.
fn read_known(path: &Path) -> BTreeMap<String, (String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = BTreeMap::new();
    let (mut class, mut head) = (String::new(), String::new());
    for l in text.lines().map(str::trim) {
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if let Some(g) = l.strip_prefix("== ") {
            let (c, h) = g.split_once(": ").unwrap_or((g, ""));
            (class, head) = (c.to_string(), h.to_string());
        } else {
            out.insert(l.to_string(), (class.clone(), head.clone()));
        }
    }
    out
}

/// The list a bless writes: the variants not answered right, grouped by
/// class (silent first) and the head of their first difference (largest
/// group first), ids sorted.
fn known_text(results: &[(String, Outcome, Sanity)]) -> String {
    let mut s = String::from(
        "# Variants of tests/renaming.rs that are not answered right today, grouped as\n\
         # `== silent|honest: first difference` then their ids. The list only shrinks\n\
         # (silent -> honest -> gone); RENAMING_BLESS=1 rewrites it.\n",
    );
    let mut groups: BTreeMap<(&str, String), Vec<&str>> = BTreeMap::new();
    for (id, o, _) in results.iter().filter(|r| r.1 != Outcome::Pass) {
        groups
            .entry((o.class(), difference_head(o.detail())))
            .or_default()
            .push(id);
    }
    let mut rows: Vec<((&str, String), Vec<&str>)> = groups.into_iter().collect();
    rows.sort_by(|a, b| {
        (b.0.0 == "silent")
            .cmp(&(a.0.0 == "silent"))
            .then(b.1.len().cmp(&a.1.len()))
            .then(a.0.cmp(&b.0))
    });
    for ((class, head), mut ids) in rows {
        ids.sort_unstable();
        let _ = writeln!(s, "\n== {class}: {head}");
        for id in ids {
            let _ = writeln!(s, "{id}");
        }
    }
    s
}

/// What breaks the ratchet: one line each.
fn ratchet(
    results: &[(String, Outcome, Sanity)],
    known: &BTreeMap<String, (String, String)>,
) -> Vec<String> {
    let mut out = Vec::new();
    let ids: BTreeSet<&str> = results.iter().map(|r| r.0.as_str()).collect();
    for (id, o, _) in results {
        let listed = known.get(id).map(|k| k.0.as_str());
        let why = match (o, listed) {
            (Outcome::Silent(_), Some("silent")) | (Outcome::Honest(_), Some("honest")) => None,
            (Outcome::Silent(_), None) => Some("SILENT-WRONG, not listed"),
            (Outcome::Silent(_), Some(_)) => Some("SILENT-WRONG, listed as honest"),
            (Outcome::Honest(_), None) => Some("honest, not listed (it passed before)"),
            (Outcome::Honest(_), Some(_)) => Some("honest now, listed as silent: update its line"),
            (Outcome::Pass, Some(_)) => Some("passes now: remove its line"),
            (Outcome::Pass, None) => None,
        };
        if let Some(why) = why {
            out.push(format!("{id}  {why}  {}", o.detail()));
        }
    }
    for id in known.keys().filter(|id| !ids.contains(id.as_str())) {
        out.push(format!("{id}  listed, not generated any more"));
    }
    out
}

/// Counts of (pass, honest, silent) under a name.
type Tally = BTreeMap<&'static str, [usize; 3]>;

fn tally(t: &mut Tally, name: &'static str, o: &Outcome) {
    let i = match o {
        Outcome::Pass => 0,
        Outcome::Honest(_) => 1,
        Outcome::Silent(_) => 2,
    };
    t.entry(name).or_insert([0; 3])[i] += 1;
}

fn tally_text(title: &str, t: &Tally) -> String {
    let mut s = format!(
        "\n{title:<22} {:>6} {:>6} {:>6} {:>6}\n",
        "total", "pass", "honest", "silent"
    );
    for (name, [p, h, w]) in t {
        let _ = writeln!(s, "{name:<22} {:>6} {p:>6} {h:>6} {w:>6}", p + h + w);
    }
    s
}

/// The report's counts by every dimension.
fn dimension_tables(
    all: &[Variant],
    results: &[(String, Outcome, Sanity)],
    incs: &[Incident],
) -> String {
    let mut t: [Tally; 6] = Default::default();
    for (v, (_, o, _)) in all.iter().zip(results) {
        tally(&mut t[0], v.names_family, o);
        tally(&mut t[1], v.renaming.phrases_id, o);
        tally(&mut t[2], v.layout.id(), o);
        tally(&mut t[3], v.envelope.id(), o);
        tally(&mut t[4], incs[v.incident].name, o);
        tally(&mut t[5], v.ttl_id(), o);
    }
    let titles = [
        "name family",
        "phrase family",
        "layout",
        "envelope",
        "incident",
        "ttl",
    ];
    titles
        .iter()
        .zip(&t)
        .map(|(title, t)| tally_text(title, t))
        .collect()
}

/// The first differences grouped, most frequent first, numbers kept.
fn grouped(results: &[(String, Outcome, Sanity)], class: &str) -> String {
    let mut groups: BTreeMap<String, usize> = BTreeMap::new();
    for (_, o, _) in results.iter().filter(|r| r.1.class() == class) {
        *groups.entry(difference_head(o.detail())).or_insert(0) += 1;
    }
    let mut rows: Vec<(String, usize)> = groups.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut s = format!("\n{class}: first differences, grouped\n");
    for (r, n) in rows {
        let _ = writeln!(s, "{n:>6}  {r}");
    }
    s
}

/// The sanity check's summary and its failures.
fn sanity_text(all: &[Variant], results: &[(String, Outcome, Sanity)]) -> (String, Vec<String>) {
    let (mut ran, mut passed) = (0, 0);
    let mut failures = Vec::new();
    // Plain answers with a mapping per name family and per phrase family.
    let mut cover: [BTreeMap<&str, (usize, usize)>; 2] = Default::default();
    for (v, (id, _, s)) in all.iter().zip(results) {
        let Sanity::Ran(o) = s else { continue };
        for (t, k) in cover
            .iter_mut()
            .zip([v.names_family, v.renaming.phrases_id])
        {
            let e = t.entry(k).or_default();
            e.0 += usize::from(*o == Outcome::Pass);
            e.1 += 1;
        }
        ran += 1;
        if *o == Outcome::Pass {
            passed += 1;
        } else {
            failures.push(format!("{id}  {}: {}", o.class(), o.detail()));
        }
    }
    let mut s = format!(
        "\nsanity (the runtime's own file read with a mapping naming its fields and words): \
         {ran} read, {passed} give the plain answer\n"
    );
    for (title, t) in ["name family", "phrase family"].iter().zip(&cover) {
        let cells: Vec<String> = t.iter().map(|(k, (p, n))| format!("{k} {p}/{n}")).collect();
        let _ = writeln!(s, "  plain/read by {title}: {}", cells.join(", "));
    }
    for f in &failures {
        let _ = writeln!(s, "  FAILS {f}");
    }
    (s, failures)
}

/// Every variant, in parallel: (id, outcome, sanity).
fn run(
    all: &[Variant],
    incs: &[Incident],
    oracle: &[Answer],
    dir: &Path,
) -> Vec<(String, Outcome, Sanity)> {
    let dump = std::env::var_os("RENAMING_DUMP").map(PathBuf::from);
    if let Some(d) = &dump {
        std::fs::create_dir_all(d).expect("dump dir");
    }
    all.par_iter()
        .enumerate()
        .map(|(n, v)| {
            let id = v.id(incs);
            let path = dir.join(format!("v{n:05}.{}", v.envelope.ext()));
            let text = render(v, incs);
            std::fs::write(&path, &text).expect("write export");
            let want = &oracle[v.incident];
            let outcome = Outcome::of(&answer_of(&path, &IngestOptions::default()), want);
            let checked = sanity(v, &path, want);
            let _ = std::fs::remove_file(&path);
            if let Some(d) = &dump {
                let name = format!("{}.{}", id.replace('/', "+"), v.envelope.ext());
                std::fs::write(d.join(name), &text).expect("dump export");
            }
            (id, outcome, checked)
        })
        .collect()
}

/// (pass, honest, silent) counts.
fn counts(results: &[(String, Outcome, Sanity)]) -> [usize; 3] {
    let count = |c: &str| results.iter().filter(|r| r.1.class() == c).count();
    [count("pass"), count("honest"), count("silent")]
}

/// The report for the reader's authors.
fn report_text(
    all: &[Variant],
    results: &[(String, Outcome, Sanity)],
    incs: &[Incident],
    oracle: &[Answer],
    broken: usize,
    sanity_report: &str,
) -> String {
    let [pass, honest, silent] = counts(results);
    let pct = |n: usize| 100.0 * n as f64 / results.len() as f64;
    let mut report = format!(
        "renaming generator: {} variants: {pass} pass ({:.1} %), {honest} honest ({:.1} %), \
         {silent} SILENT-WRONG ({:.1} %); {broken} break the ratchet\n\
         name families {} ({} random seeds), phrase families {}, layouts {} + {} permuted, \
         envelopes {}, incidents {}, TTL styles 2\n",
        results.len(),
        pct(pass),
        pct(honest),
        pct(silent),
        renaming::NAME_FAMILIES.len() + 1,
        renaming::RANDOM_SEEDS,
        PHRASE_FAMILIES.len(),
        LAYOUTS.len(),
        PERMUTED.len(),
        ENVELOPES.len(),
        incs.len(),
    );
    report += &dimension_tables(all, results, incs);
    report += &grouped(results, "silent");
    report += &grouped(results, "honest");
    report += sanity_report;
    report += "\nthe oracle (each incident as plain JSON Lines)\n";
    for (inc, a) in incs.iter().zip(oracle) {
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
    report
}

/// What fails the test: sanity failures, any silent-wrong variant, a pass
/// rate under [`STRICT_PASS_PERCENT`], and what breaks the ratchet.
fn verdict(
    results: &[(String, Outcome, Sanity)],
    sanity_failures: &[String],
    broken: &[String],
) -> String {
    let mut msg = String::new();
    if !sanity_failures.is_empty() {
        let _ = writeln!(
            msg,
            "{} variants do not give the plain answer even with a mapping naming their \
             fields and words (the generator or the mapping is wrong):",
            sanity_failures.len()
        );
        for f in sanity_failures.iter().take(40) {
            let _ = writeln!(msg, "  {f}");
        }
    }
    let [pass, _, silent] = counts(results);
    let rate = 100.0 * pass as f64 / results.len() as f64;
    if silent > 0 {
        let _ = writeln!(
            msg,
            "{silent} variants are SILENT-WRONG (target/renaming-results.txt)"
        );
    }
    if rate < STRICT_PASS_PERCENT {
        let _ = writeln!(
            msg,
            "pass rate {rate:.1} %, want at least {STRICT_PASS_PERCENT} %"
        );
    }
    if !broken.is_empty() {
        let _ = writeln!(
            msg,
            "{} variants break the ratchet of renaming_known.txt (pass rate {rate:.1} %; \
             id  why  first difference; RENAMING_BLESS=1 rewrites the list: review the diff):",
            broken.len()
        );
        for b in broken.iter().take(80) {
            let _ = writeln!(msg, "  {b}");
        }
        if broken.len() > 80 {
            let _ = writeln!(msg, "  ... and {} more", broken.len() - 80);
        }
    }
    msg
}

#[test]
fn renamed_and_relaid_out_variants_give_the_plain_answer_or_say_why_not() {
    let root = manifest();
    let names = renaming::name_families();
    renaming::check_unseen(&root, &names, PHRASE_FAMILIES);
    let incs = renaming::renaming_incidents();
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

    let all = variants(incs.len(), &names);
    assert!(
        all.len() >= 3000,
        "{} variants, want at least 3 000",
        all.len()
    );
    let results = run(&all, &incs, &oracle, dir.path());

    let known_path = root.join("tests/invariance/renaming_known.txt");
    if std::env::var_os("RENAMING_BLESS").is_some() {
        std::fs::write(&known_path, known_text(&results)).expect("write renaming_known.txt");
    }
    let broken = ratchet(&results, &read_known(&known_path));
    let (sanity_report, sanity_failures) = sanity_text(&all, &results);
    let report = report_text(&all, &results, &incs, &oracle, broken.len(), &sanity_report);
    let target = root.join("target");
    let _ = std::fs::create_dir_all(&target);
    let _ = std::fs::write(target.join("renaming-report.txt"), &report);
    let mut every = String::new();
    for (id, o, _) in &results {
        let _ = writeln!(every, "{id}\t{}\t{}", o.class(), o.detail());
    }
    let _ = std::fs::write(target.join("renaming-results.txt"), every);
    println!("{report}");

    let msg = verdict(&results, &sanity_failures, &broken);
    assert!(msg.is_empty(), "{msg}");
}

/// The vocabulary check is no formality: a listed name, a header word and a
/// listed phrase are each seen.
#[test]
#[should_panic(expected = "words the reader has on a list")]
fn the_vocabulary_check_sees_listed_words() {
    let names = [NameFamily {
        id: "listed",
        family: "listed",
        names: [
            "event",
            "lock_key",
            "持有者",
            "ttl",
            "f",
            "p",
            "q",
            "s",
            "a",
            "o",
        ],
        ttl_s: "x1",
    }];
    let phrases = [renaming::PhraseFamily {
        id: "listed",
        events: ["lock_acquired"; 9],
        phrases: ["lease extended by watchdog"; 9],
    }];
    renaming::check_unseen(&manifest(), &names, &phrases);
}

//! What a load and its analysis answered, reduced to what an incident is
//! about, and the first way two answers differ: shared by the invariance
//! generator (`tests/invariance.rs`) and the renaming generator
//! (`tests/renaming.rs`).

use std::collections::BTreeMap;
use std::path::Path;

use lockreplay::analysis::{Settings, analyze};
use lockreplay::ingest::{IngestOptions, Progress, load_paths};

use crate::model::Incident;

/// Duration tolerance between an answer and the oracle's, ms.
const TOL_MS: f64 = 1.0;

/// What a load and analysis answered, reduced to what the incident is about.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    /// The load's error, or what makes the run exit 2
    /// (`pipeline::problems`).
    pub error: Option<String>,
    /// Every hold as (key, holder), sorted.
    pub holds: Vec<(String, String)>,
    /// Every overlap pair as (key, earlier holder, later holder, cause,
    /// duration ms), in the analysis's order.
    pub overlaps: Vec<(String, String, String, String, f64)>,
    pub oversold: i64,
    pub findings: BTreeMap<String, usize>,
}

/// Loads `path` with `opts` and analyses it with the default settings. A
/// load error or a problem that makes the run exit 2
/// (`pipeline::problems`: a file nothing was read from, no lock event, no
/// hold) is the answer's `error`.
pub fn answer_of(path: &Path, opts: &IngestOptions) -> Answer {
    // The file's name is a temporary one: reasons name it FILE.
    let shown = path.display().to_string();
    let log = match load_paths(&[path.to_path_buf()], opts, &Progress::default()) {
        Ok(log) => log,
        Err(e) => {
            let e = e.to_string().replace(&shown, "FILE");
            return Answer {
                error: Some(format!("load error: {e}")),
                ..Answer::default()
            };
        }
    };
    let a = analyze(&log, &Settings::default());
    let problems: Vec<String> = lockreplay::analysis::problems(&log, &a)
        .iter()
        .map(lockreplay::model::Message::en)
        .collect();
    let s = |sym| log.strings.get(sym).to_string();
    let mut holds: Vec<(String, String)> =
        a.leases.iter().map(|l| (s(l.key), s(l.holder))).collect();
    holds.sort();
    let overlaps = a
        .overlaps
        .iter()
        .map(|o| {
            (
                s(o.key),
                s(a.leases[o.earlier].holder),
                s(a.leases[o.later].holder),
                o.cause.as_str().to_string(),
                o.duration_ms(),
            )
        })
        .collect();
    let mut findings = BTreeMap::new();
    for f in &a.findings {
        *findings.entry(f.kind.as_str().to_string()).or_insert(0) += 1;
    }
    Answer {
        error: (!problems.is_empty()).then(|| problems.join("; ").replace(&shown, "FILE")),
        holds,
        overlaps,
        oversold: a.summary.oversold_units,
        findings,
    }
}

/// The first way `got` differs from `want`, in a few words; `None` when they
/// agree.
pub fn first_difference(got: &Answer, want: &Answer) -> Option<String> {
    if let Some(e) = &got.error {
        let short: String = e.chars().take(90).collect();
        return Some(format!("unreadable: {short}"));
    }
    if got.holds.len() != want.holds.len() {
        return Some(format!(
            "{} holds, want {}",
            got.holds.len(),
            want.holds.len()
        ));
    }
    if got.holds != want.holds {
        let (g, w) = got
            .holds
            .iter()
            .zip(&want.holds)
            .find(|(g, w)| g != w)
            .expect("a hold differs");
        return Some(format!("hold {}/{}, want {}/{}", g.0, g.1, w.0, w.1));
    }
    if got.overlaps.len() != want.overlaps.len() {
        return Some(format!(
            "{} overlaps, want {}",
            got.overlaps.len(),
            want.overlaps.len()
        ));
    }
    for (g, w) in got.overlaps.iter().zip(&want.overlaps) {
        if (&g.0, &g.1, &g.2) != (&w.0, &w.1, &w.2) {
            return Some(format!(
                "overlap {} {}>{}, want {} {}>{}",
                g.0, g.1, g.2, w.0, w.1, w.2
            ));
        }
        if g.3 != w.3 {
            return Some(format!("overlap cause {}, want {}", g.3, w.3));
        }
        if (g.4 - w.4).abs() > TOL_MS {
            return Some(format!("overlap {:.1} ms, want {:.1}", g.4, w.4));
        }
    }
    if got.oversold != want.oversold {
        return Some(format!("oversold {}, want {}", got.oversold, want.oversold));
    }
    if got.findings != want.findings {
        return Some(format!(
            "findings {:?}, want {:?}",
            got.findings, want.findings
        ));
    }
    None
}

/// Checks that the oracle's answer shows what the incident was built to show.
pub fn check_oracle(inc: &Incident, a: &Answer) {
    let e = &inc.expect;
    assert!(
        a.error.is_none(),
        "{}: the oracle's plain JSON Lines did not load: {:?}",
        inc.name,
        a.error
    );
    assert!(!a.holds.is_empty(), "{}: no hold in the oracle", inc.name);
    assert!(
        a.overlaps.len() >= e.overlaps_at_least,
        "{}: oracle has {} overlaps, built for at least {}: {a:?}",
        inc.name,
        a.overlaps.len(),
        e.overlaps_at_least
    );
    assert!(
        a.oversold >= e.oversold_at_least,
        "{}: oracle oversold {}: {a:?}",
        inc.name,
        a.oversold
    );
    for f in e.findings {
        assert!(
            a.findings.contains_key(*f),
            "{}: oracle lacks finding {f}: {a:?}",
            inc.name
        );
    }
    if e.clean {
        assert!(
            a.overlaps.is_empty() && a.oversold == 0 && a.findings.is_empty(),
            "{}: the negative control is not clean: {a:?}",
            inc.name
        );
    }
}

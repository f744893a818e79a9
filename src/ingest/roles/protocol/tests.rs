//! The protocol's choices on the invariance generator's five incidents,
//! written with field names and event words no list has (random
//! identifiers and coined English words; pinyin names and Chinese words
//! with the TTL in seconds): the right columns, kinds, TTL unit and
//! business columns.

#[path = "testdata.rs"]
mod testdata;

use super::fit::{Kind, NameHint, rank};
use testdata::*;

fn expected(k: K) -> Kind {
    match k {
        K::Acq => Kind::Acquired,
        K::Ren => Kind::Renewed,
        K::Rel => Kind::Released,
        K::RelFail => Kind::ReleaseFailed,
        _ => Kind::Work,
    }
}

/// The names' hints of a test table: the logger's `hostname` and `thread`
/// are the runtime's, every other name unknown.
fn hints_of(t: &super::table::Table) -> Vec<NameHint> {
    t.names
        .iter()
        .map(|n| match n.as_str() {
            "hostname" | "thread" => NameHint::Runtime,
            _ => NameHint::Unknown,
        })
        .collect()
}

#[test]
fn every_incident_in_every_spelling() {
    let spellings = [
        Spelling {
            names: RANDOM,
            words: coined,
            ttl_seconds: false,
        },
        Spelling {
            names: PINYIN,
            words: chinese,
            ttl_seconds: true,
        },
    ];
    let mut bad = Vec::new();
    for sp in &spellings {
        for (name, recs) in all() {
            let t = table(&recs, sp);
            let hints = hints_of(&t);
            let fits = rank(&t, &hints);
            let Some(best) = fits.first() else {
                bad.push(format!("{name} {}: nothing", sp.names[0]));
                continue;
            };
            let h = best.hypothesis;
            let got = (
                t.names[h.event as usize].as_str(),
                t.names[h.key as usize].as_str(),
                t.names[h.holder as usize].as_str(),
            );
            let want = (sp.names[0], sp.names[1], sp.names[2]);
            let runner = fits.get(1).map(|f| {
                (
                    f.score,
                    t.names[f.hypothesis.event as usize].clone(),
                    t.names[f.hypothesis.key as usize].clone(),
                    t.names[f.hypothesis.holder as usize].clone(),
                )
            });
            if got != want {
                bad.push(format!(
                    "{name}: got {got:?} score {:.3} want {want:?}; runner {runner:?}",
                    best.score
                ));
                continue;
            }
            for x in &recs {
                if x.key.is_none() {
                    continue;
                }
                let w = (sp.words)(x.kind);
                let k = best.kinds.iter().find(|(v, _)| v == w).map(|(_, k)| *k);
                if k != Some(expected(x.kind)) {
                    bad.push(format!(
                        "{name}: {w:?} -> {k:?}, want {:?}",
                        expected(x.kind)
                    ));
                }
            }
            let b = super::business::infer(&t, best, &hints);
            let nm = |c: Option<u32>| c.map(|c| t.names[c as usize].as_str());
            let got_b = [
                nm(b.fencing),
                nm(b.product),
                nm(b.quantity),
                nm(b.stock),
                nm(b.stock_after),
                nm(b.order_id),
            ];
            let has = |f: fn(&R) -> bool, i: usize| recs.iter().any(f).then_some(sp.names[i]);
            let want_b = [
                has(|x| x.fence.is_some(), 4),
                has(|x| x.sku.is_some(), 5),
                has(|x| x.qty.is_some(), 6),
                has(|x| x.stock.is_some(), 7),
                has(|x| x.after.is_some(), 8),
                has(|x| x.order.is_some(), 9),
            ];
            if got_b != want_b {
                bad.push(format!(
                    "{name}: business {got_b:?} want {want_b:?} checked {:?}",
                    b.checked
                ));
            }
            for x in &recs {
                use super::business::Step;
                let want = match x.kind {
                    K::Init => Step::StockInitialized,
                    K::Read => Step::StockRead,
                    K::Deduct => Step::StockDeducted,
                    K::Order => Step::OrderCreated,
                    _ => continue,
                };
                let w = (sp.words)(x.kind);
                let got = b.steps.iter().find(|(v, _)| v == w).map(|(_, s)| *s);
                if got != Some(want) {
                    bad.push(format!("{name}: {w:?} step {got:?} want {want:?}"));
                }
            }
            let ttl = best.ttl.map(|c| t.names[c as usize].as_str());
            if ttl != Some(sp.names[3]) {
                bad.push(format!("{name}: ttl {ttl:?}"));
            }
            if let Some(c) = best.ttl {
                let (u, why) = super::ttl::unit(&t, best, c);
                let want = if sp.ttl_seconds {
                    super::ttl::Unit::S
                } else {
                    super::ttl::Unit::Ms
                };
                if u != want {
                    bad.push(format!("{name}: ttl unit {u:?} ({why:?})"));
                }
                eprintln!("{name}: ttl unit {u:?} by {why:?}");
            }
            eprintln!(
                "{name} {}: score {:.3} runner {:?}",
                sp.names[0],
                best.score,
                runner.map(|r| r.0)
            );
        }
    }
    bad.sort();
    bad.dedup();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn an_exporters_constant_numbers_and_a_fields_copy_play_no_business_role() {
    // OpenTelemetry's stdout exporter writes `DroppedAttributes` 0 and
    // `TraceFlags` "00" on every record; a .NET logger writes each property
    // twice (the message's pair and `State.*`). None of them is the quantity
    // or the level left, though a 0 checks out against a level of 0.
    let sp = Spelling {
        names: RANDOM,
        words: coined,
        ttl_seconds: false,
    };
    let recs = oversell();
    let t = table_with(&recs, &sp, |x| {
        let mut v = vec![
            ("DroppedAttributes", "0".to_string()),
            ("TraceFlags", "00".to_string()),
        ];
        if let Some(q) = x.qty {
            v.push(("State.qty", q.to_string()));
        }
        v
    });
    let hints = hints_of(&t);
    let fits = rank(&t, &hints);
    let best = fits.first().expect("a fit");
    let b = super::business::infer(&t, best, &hints);
    let nm = |c: Option<u32>| c.map(|c| t.names[c as usize].as_str());
    assert!(
        matches!(nm(b.quantity), Some(q) if q == RANDOM[6] || q == "State.qty"),
        "quantity {:?}",
        nm(b.quantity)
    );
    assert_eq!(nm(b.stock_after), Some(RANDOM[8]), "level left");
    assert_eq!(nm(b.stock), Some(RANDOM[7]), "stock");
}

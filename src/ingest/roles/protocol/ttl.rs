//! A unit-less TTL's unit, from the protocol: when another holder takes a
//! key its holder never released, the lease had run out, so the TTL (from
//! the holder's last grant) fits inside the gap. The unit that makes the
//! TTLs fit the most takeovers, as close to the gaps as they come, wins;
//! without takeovers, the values' size decides.

use std::collections::HashMap;

use super::fit::{Fit, Kind};
use super::table::{Shape, Table};

/// A TTL's unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Ns,
    Ms,
    S,
}

impl Unit {
    /// ms in one of this unit.
    pub fn ms(self) -> f64 {
        match self {
            Unit::Ns => 1e-6,
            Unit::Ms => 1.0,
            Unit::S => 1000.0,
        }
    }
}

/// Why a unit was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Because {
    /// The TTLs fit this many takeovers in this unit.
    Takeovers(u32),
    /// No takeover to judge by: the values' size (under 100: seconds; whole
    /// ms written in ns: nanoseconds; else ms).
    Size,
    /// The values are durations written with their unit (`2s`, `PT2S`).
    Written,
}

/// A takeover: the TTL of a holder's last grant before another holder
/// acquired its key without a release between, and the gap, ms.
fn takeovers(table: &Table, fit: &Fit, ttl: u32) -> Vec<(f64, f64)> {
    let h = fit.hypothesis;
    let kind = |v: &str| fit.kinds.iter().find(|(w, _)| w == v).map(|(_, k)| *k);
    // Per key: the live grant (holder, time ms, TTL value).
    let mut live: HashMap<&str, (&str, f64, f64)> = HashMap::new();
    let mut out = Vec::new();
    for r in &table.rows {
        let (Some(k), Some(who), Some(ev)) = (r.get(h.key), r.get(h.holder), r.get(h.event)) else {
            continue;
        };
        let t_ms = r.t_ns as f64 / 1e6;
        match kind(ev) {
            Some(Kind::Acquired) => {
                if let Some(&(prev, at, x)) = live.get(k)
                    && prev != who
                {
                    out.push((x, t_ms - at));
                }
                if let Some(x) = r.get(ttl).and_then(|v| Shape::of(v).number) {
                    live.insert(k, (who, t_ms, x));
                }
            }
            Some(Kind::Renewed) => {
                if let Some(x) = r.get(ttl).and_then(|v| Shape::of(v).number)
                    && live.get(k).is_some_and(|l| l.0 == who)
                {
                    live.insert(k, (who, t_ms, x));
                }
            }
            // A release deletes the key, whoever logs it (a foreign release
            // too): the next acquire is no takeover.
            Some(Kind::Released) => {
                live.remove(k);
            }
            _ => {}
        }
    }
    out
}

/// A lock TTL's plausible range, ms: from 10 ms (no network lock lives
/// shorter) to a day.
fn plausible(ms: f64) -> bool {
    (10.0..=86_400_000.0).contains(&ms)
}

/// The unit of the TTL column `ttl` under `fit`.
pub fn unit(table: &Table, fit: &Fit, ttl: u32) -> (Unit, Because) {
    let written = table
        .rows
        .iter()
        .filter_map(|r| r.get(ttl))
        .all(|v| Shape::of(v).duration_ms.is_some());
    if written {
        return (Unit::Ms, Because::Written);
    }
    let takes = takeovers(table, fit, ttl);
    if !takes.is_empty() {
        let judge = |u: Unit| {
            let fit_in = takes.iter().filter(|(x, gap)| x * u.ms() <= *gap).count() as u32;
            let closeness: f64 = takes
                .iter()
                .map(|(x, gap)| (x * u.ms() / gap.max(1e-9)).min(1.0))
                .sum();
            (fit_in, closeness)
        };
        let best = [Unit::S, Unit::Ms, Unit::Ns]
            .into_iter()
            .filter(|u| takes.iter().all(|(x, _)| plausible(x * u.ms())))
            .map(|u| (u, judge(u)))
            .max_by(|a, b| a.1.0.cmp(&b.1.0).then(a.1.1.total_cmp(&b.1.1)));
        if let Some((u, (n, _))) = best
            && n > 0
        {
            return (u, Because::Takeovers(n));
        }
    }
    let values: Vec<f64> = table
        .rows
        .iter()
        .filter_map(|r| r.get(ttl).and_then(|v| Shape::of(v).number))
        .filter(|&n| n > 0.0)
        .collect();
    let max = values.iter().copied().fold(0.0, f64::max);
    let min = values.iter().copied().fold(f64::MAX, f64::min);
    let unit = if max > 0.0 && max < 100.0 {
        Unit::S
    } else if min >= 1e7 && max < 1e12 && values.iter().all(|n| n % 1e6 == 0.0) {
        Unit::Ns
    } else {
        Unit::Ms
    };
    (unit, Because::Size)
}

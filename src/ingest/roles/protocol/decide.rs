//! The reading the protocol chose for a sample, or what it could not
//! decide: the winner, its score and the runner-up, the TTL's unit, the
//! business columns. Never a confident answer from a partial reading.

use super::business::{self, Business};
use super::fit::{Fit, NameHint, rank};
use super::table::Table;
use super::ttl::{self, Because, Unit};

/// Below this score no hypothesis reads the file: the lock roles are
/// undecided (exit 2).
pub const MIN_SCORE: f64 = 0.15;

/// Holds that must fit the protocol under the winner.
pub const MIN_FITTING: f64 = 0.6;

/// A runner-up this close (its score over the winner's) makes the choice
/// a guess said as one.
pub const CLOSE: f64 = 0.9;

/// What the protocol chose.
#[derive(Clone, Debug)]
pub struct Reading {
    pub fit: Fit,
    /// The best hypothesis that differs in its key or holder column.
    pub runner_up: Option<Fit>,
    /// The TTL's unit and why, when there is a TTL column.
    pub ttl_unit: Option<(Unit, Because)>,
    pub business: Business,
    /// The runner-up is within [`CLOSE`] of the winner.
    pub close_call: bool,
}

/// Why nothing was chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum Undecided {
    /// No column pair gave a hold: no key or holder could be found.
    NoHold,
    /// The best reading leaves too many holds out of the protocol (its
    /// share of fitting holds).
    PoorFit(f64),
}

/// Chooses a reading for `table`.
///
/// # Errors
/// [`Undecided`] when no hypothesis reads the protocol well enough.
pub fn decide(table: &Table, hints: &[NameHint]) -> Result<Reading, Undecided> {
    let fits = rank(table, hints);
    let best = fits.first().ok_or(Undecided::NoHold)?.clone();
    // One hold is no protocol: turns need two holders on a key.
    if best.holds < 2 || best.parts.shared == 0.0 {
        return Err(Undecided::NoHold);
    }
    if best.parts.fitting < MIN_FITTING || best.score < MIN_SCORE {
        return Err(Undecided::PoorFit(best.parts.fitting));
    }
    let h = best.hypothesis;
    let runner_up = fits
        .iter()
        .find(|f| f.hypothesis.key != h.key || f.hypothesis.holder != h.holder)
        .cloned();
    let close_call = runner_up
        .as_ref()
        .is_some_and(|r| r.score >= best.score * CLOSE);
    let ttl_unit = best.ttl.map(|c| ttl::unit(table, &best, c));
    let business = business::infer(table, &best, hints);
    Ok(Reading {
        fit: best,
        runner_up,
        ttl_unit,
        business,
        close_call,
    })
}

//! The English of an incident's [`Explanation`] (the JSON report's
//! `explanation`).

use super::{Explanation, SaleList, SalesStory};
use crate::analysis::{Cause, WindowEnd};
use crate::model::Message;
use crate::report::units;

/// The paragraph.
pub(super) fn explanation(e: &Explanation) -> String {
    let mut out = first_hold(e);
    out.push_str(&lease_end(e));
    out.push_str(&next_hold(e));
    out.push_str(&sales(&e.sales));
    out
}

/// How the belief ended.
fn window_end_words(w: WindowEnd) -> &'static str {
    match w {
        WindowEnd::Released => "when it released",
        WindowEnd::ReleaseFailed => "when its release failed",
        WindowEnd::LockLost => "when it noticed the lock was lost",
        WindowEnd::LastEvent => "its last logged step",
        WindowEnd::Reacquired => "when it acquired again",
    }
}

/// "Holder X on H acquired K at T with a N TTL and renewed it N times. "
fn first_hold(e: &Explanation) -> String {
    let host = e
        .host
        .as_ref()
        .map(|h| format!(" on {h}"))
        .unwrap_or_default();
    let ttl = e
        .ttl
        .as_ref()
        .map_or_else(|| "no TTL".to_string(), |t| format!("a {t} TTL"));
    let mut out = format!(
        "Holder {}{host} acquired {} at {} with {ttl}",
        e.holder, e.key, e.acquired
    );
    if e.renewals > 0 {
        out.push_str(&format!(" and renewed it {} times", e.renewals));
    }
    out.push_str(". ");
    out
}

/// How the earlier holder's lock ended (the overlap's cause), and until
/// when it still believed it held the lock.
fn lease_end(e: &Explanation) -> String {
    let (end, until, how) = (
        &e.lock_end,
        &e.believed_until,
        window_end_words(e.window_end),
    );
    match e.cause {
        Cause::LeaseExpired => format!(
            "Its lease expired at {end} while it was still working: it believed it held the lock until {until} ({how})."
        ),
        Cause::ForeignRelease => format!(
            "At {end} {}, whose own lock had already ended, deleted this lock; {} still believed it held the lock until {until} ({how}).",
            e.deleted_by.as_deref().unwrap_or("another holder"),
            e.holder
        ),
        Cause::TtlUnknown => format!(
            "By {end} its lock was gone: the next holder acquired and nobody had deleted it. The log gives no TTL, so whether the lease expired or the lock vanished cannot be told; it believed it held the lock until {until} ({how})."
        ),
        Cause::LockVanished => format!(
            "At {end} its lock vanished from the server while the lease was still valid (failover, flush or eviction); it believed it held the lock until {until} ({how})."
        ),
    }
}

/// Who acquired next (and how many more), and how long the holders
/// believed they held the key at once.
fn next_hold(e: &Explanation) -> String {
    let mut out = format!(
        " {} acquired the lock at {}",
        e.next_holder, e.next_acquired
    );
    if e.more_holders > 0 {
        out.push_str(&format!(
            ", and {} more {} acquired it before the incident ended",
            e.more_holders,
            if e.more_holders == 1 {
                "holder"
            } else {
                "holders"
            }
        ));
    }
    let pairs = if e.pairs == 1 {
        "1 overlap pair".to_string()
    } else {
        format!("{} overlap pairs", e.pairs)
    };
    let who = match e.holders {
        2 => "both holders".to_string(),
        n => format!("two or more of these {n} holders"),
    };
    out.push_str(&format!(
        ". For {} in all, {who} believed they held {} at once ({pairs}).",
        e.duration, e.key,
    ));
    out
}

/// `order-1 by w-1, a deduction by w-2 and 3 more`.
fn list(l: &SaleList) -> String {
    let ids: Vec<String> = l
        .named
        .iter()
        .map(|x| {
            let who = x
                .holder
                .as_ref()
                .map(|h| format!(" by {h}"))
                .unwrap_or_default();
            match &x.order {
                Some(o) => format!("{o}{who}"),
                None => format!("a deduction{who}"),
            }
        })
        .collect();
    let more = match l.unnamed() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!("{}{more}", ids.join(", "))
}

/// `2 sales (4 units)`.
pub(super) fn counted(l: &SaleList) -> String {
    format!("{} ({})", count(l.count), units(l.units))
}

/// `1 sale`, `3 sales`.
fn count(n: usize) -> String {
    if n == 1 {
        "1 sale".to_string()
    } else {
        format!("{n} sales")
    }
}

/// What was sold inside the window and tied to it, and what it cost.
fn sales(s: &SalesStory) -> String {
    let mut out = if s.inside.count == 0 {
        " No stock was sold inside the window.".to_string()
    } else {
        format!(
            " Inside the window they sold {} in {} ({}).",
            units(s.inside.units),
            count(s.inside.count),
            list(&s.inside)
        )
    };
    if s.later.count > 0 {
        out.push_str(&format!(
            " {} outside the window ({}: {}) {} tied to it: made by one of its holders while it still believed it held the lock, or using stock the overlap had already sold.",
            count(s.later.count),
            units(s.later.units),
            list(&s.later),
            if s.later.count == 1 { "is" } else { "are" },
        ));
    }
    if s.oversold_units > 0 {
        out.push_str(&format!(
            " {} went beyond the stock, costing {}.",
            units(s.oversold_units),
            s.loss.en()
        ));
    } else if s.stock_unknown {
        out.push_str(
            " Whether any of it went beyond the stock is unknown: no stock level was read for its product.",
        );
    } else if s.inside.count + s.later.count > 0 {
        out.push_str(" None of it was beyond the stock.");
    }
    out
}

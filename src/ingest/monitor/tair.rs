//! The lock and stock events of Tair's commands in a MONITOR replay
//! (docs/semantics.md §8; the commands' rules and sources are in
//! [`crate::redis_model::tair`]):
//!
//! - `EXSET ... NX` is an acquire like `SET ... NX` (handled beside it).
//! - `CAS key old new` / `EXCAS key new version` that write a lock key:
//!   `Renewed` when the value stays the holder's (Tair's renewal recipe,
//!   `CAS key token token EX s`), else `Acquired` by the new value. One that
//!   does not write is a renewal that failed: no event, as for a renewal
//!   script whose check failed.
//! - `CAD key value` that deletes: `Released` by that value (the lock's
//!   token, so its own release); one that deletes nothing (another value, or
//!   no key) is a `ReleaseFailed` of that value.
//! - `EXCAD key version` that deletes: `Released`, attributed as a `DEL` is
//!   (a version is no token: after the key is re-created the versions start
//!   over, so a stale holder's `EXCAD 1` can delete the next holder's lock);
//!   one that deletes nothing: `ReleaseFailed` of its request's owner.
//! - A write refused because its version is stale (`EXSET ... VER v`,
//!   `EXCAS`, `EXINCRBY ... VER v`), on a lock or a stock key, is a
//!   `WriteRejected` (fencing that worked: no sale, no loss) with the
//!   version as its fencing token; so is a `CAS` of a stock key whose
//!   compare fails.
//! - On stock keys `EXSET`, `EXCAS`, `CAS` and `EXINCRBY` are the stock
//!   writes `SET` and `DECRBY` are, and `EXGET` is a read.

use super::{Client, Replay, Value, token_of};
use crate::model::{Event, EventKind, LogBuilder};
use crate::redis_model::{Outcome, parse_i64};

/// The version a refused write named: `VER v` among `EXSET`/`EXINCRBY`'s
/// options, or `EXCAS`'s third argument.
fn version_named(args: &[&[u8]]) -> Option<i64> {
    let opts = args.get(2..).unwrap_or(&[]);
    opts.iter()
        .position(|o| o.eq_ignore_ascii_case(b"VER"))
        .and_then(|i| opts.get(i + 1))
        .or_else(|| args.get(2))
        .and_then(|v| parse_i64(v))
}

/// The integer a stock write leaves: `EXINCRBY`'s reply (alone or with
/// `WITHVERSION`).
fn int_reply(out: &Outcome) -> Option<i64> {
    match out {
        Outcome::Int(n) => Some(*n),
        Outcome::Array(a) => match a.first() {
            Some(Outcome::Int(n)) => Some(*n),
            _ => None,
        },
        _ => None,
    }
}

impl Replay {
    /// A write of `key` refused because its version was stale: a
    /// `WriteRejected` by `holder` (else the connection's request owner),
    /// with the version named as fencing token. The caller emits it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn version_rejected(
        &mut self,
        b: &mut LogBuilder,
        at_ns: i64,
        line: u32,
        client: &Client,
        key: &[u8],
        holder: Option<&[u8]>,
        args: &[&[u8]],
    ) -> Event {
        let mut e = self.new_event(b, EventKind::WriteRejected, at_ns, line, client, key);
        let owner = holder
            .map(<[u8]>::to_vec)
            .or_else(|| self.requests.owner(client));
        e.holder = owner.map(|h| b.intern_bytes(&h));
        let version = version_named(args);
        e.update_detail(|d| d.fencing_token = version);
        e
    }

    /// `CAS`, `EXCAS`, `CAD`, `EXCAD` on lock `key` (other lock commands
    /// give nothing here). `before` is the key's value before the command.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tair_lock_cmd(
        &mut self,
        b: &mut LogBuilder,
        at_ns: i64,
        line: u32,
        client: &Client,
        db: u32,
        c: &[u8],
        args: &[&[u8]],
        before: Option<&Value>,
        out: &Outcome,
    ) {
        let key = args[0];
        let now_ms = at_ns.div_euclid(1_000_000);
        match (c, out) {
            (b"CAS" | b"EXCAS", Outcome::Stale { .. }) => {
                let e =
                    self.version_rejected(b, at_ns, line, client, key, args.get(1).copied(), args);
                self.emit(b, e);
            }
            (b"CAS", Outcome::Int(1)) | (b"EXCAS", Outcome::Array(_)) => {
                let new = if c == b"CAS" {
                    args.get(2)
                } else {
                    args.get(1)
                };
                let Some(&new) = new else { return };
                let kind = if before.and_then(token_of).as_deref() == Some(new) {
                    EventKind::Renewed
                } else {
                    EventKind::Acquired
                };
                let mut e = self.new_event(b, kind, at_ns, line, client, key);
                e.holder = Some(b.intern_bytes(new));
                let ttl = self
                    .ks
                    .get_live(now_ms, db, key)
                    .and_then(|e| e.deadline_ms)
                    .map(|d| d - now_ms);
                e.set_ttl_ms(ttl);
                if kind == EventKind::Acquired {
                    self.set_last_token(client, key, new);
                }
                self.emit(b, e);
            }
            (b"CAD", Outcome::Int(1)) => {
                let Some(&token) = args.get(1) else { return };
                let mut e = self.new_event(b, EventKind::Released, at_ns, line, client, key);
                e.holder = Some(b.intern_bytes(token));
                e.update_detail(|d| d.deleted = Some(true));
                self.last_token.forget(token);
                self.emit(b, e);
            }
            (b"EXCAD", Outcome::Int(1)) => {
                self.lock_removed(b, at_ns, line, client, key, before);
            }
            (b"CAD" | b"EXCAD", Outcome::Int(_)) => {
                let holder = if c == b"CAD" {
                    args.get(1).map(|t| t.to_vec())
                } else {
                    self.request_owner(client, key).map(|(owner, _)| owner)
                };
                let Some(holder) = holder else { return };
                let mut e = self.new_event(b, EventKind::ReleaseFailed, at_ns, line, client, key);
                e.holder = Some(b.intern_bytes(&holder));
                self.emit(b, e);
            }
            _ => {}
        }
    }

    /// The stock event of a Tair command on stock key `args[0]`, which held
    /// `prev` before it (`None` when absent): `EXGET` a read; `EXSET` an
    /// initialisation (key absent) or a deduction; `EXCAS`, `CAS`,
    /// `EXINCRBY` a deduction when they lower the stock; a stale version or
    /// a failed compare a `WriteRejected` of the connection's request owner.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tair_stock_event(
        &mut self,
        b: &mut LogBuilder,
        at_ns: i64,
        line: u32,
        client: &Client,
        c: &[u8],
        args: &[&[u8]],
        prev: Option<i64>,
        out: &Outcome,
    ) -> Option<Event> {
        let key = args[0];
        if matches!(out, Outcome::Stale { .. }) || (c == b"CAS" && *out == Outcome::Int(0)) {
            return Some(self.version_rejected(b, at_ns, line, client, key, None, args));
        }
        let (after, set_like) = match (c, out) {
            (b"EXGET", Outcome::Array(a)) => {
                let Some(Outcome::Bulk(v)) = a.first() else {
                    return None;
                };
                let n = parse_i64(v)?;
                let mut e = self.new_event(b, EventKind::StockRead, at_ns, line, client, key);
                e.update_detail(|d| d.stock = Some(n));
                return Some(e);
            }
            (b"EXSET", Outcome::Set { written: true, .. }) if prev.is_none() => {
                let n = args.get(1).and_then(|v| parse_i64(v))?;
                let mut e =
                    self.new_event(b, EventKind::StockInitialized, at_ns, line, client, key);
                e.update_detail(|d| d.stock = Some(n));
                return Some(e);
            }
            (b"EXSET", Outcome::Set { written: true, .. }) | (b"EXCAS", Outcome::Array(_)) => {
                (args.get(1).and_then(|v| parse_i64(v))?, true)
            }
            (b"CAS", Outcome::Int(1)) => (args.get(2).and_then(|v| parse_i64(v))?, true),
            (b"EXINCRBY", _) => (int_reply(out)?, false),
            _ => return None,
        };
        // A write of a new value is a read-modify-write, as `SET` is (a lost
        // update when it does not lower the stock); an increment that does
        // not lower it is a restock.
        if !set_like && prev.is_none_or(|p| after >= p) {
            return None;
        }
        let mut e = self.new_event(b, EventKind::StockDeducted, at_ns, line, client, key);
        e.update_detail(|d| {
            d.stock_before = prev;
            d.stock_after = Some(after);
            d.quantity = prev.map(|p| p - after).filter(|&q| q > 0);
        });
        Some(e)
    }
}

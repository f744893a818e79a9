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

use super::replay::{Cmd, Replay, StockSeen, token_of};
use crate::model::{Event, EventKind, LogBuilder};
use crate::redis_model::{Outcome, Value, parse_i64};

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
    pub(super) fn version_rejected(
        &mut self,
        b: &mut LogBuilder,
        cmd: &Cmd<'_>,
        holder: Option<&[u8]>,
    ) -> Event {
        let (at_ns, line, client, _, _, args) = cmd.parts();
        let mut e = self.new_event(b, EventKind::WriteRejected, at_ns, line, client, args[0]);
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
    pub(super) fn tair_lock_cmd(
        &mut self,
        b: &mut LogBuilder,
        cmd: &Cmd<'_>,
        before: Option<&Value>,
        out: &Outcome,
    ) {
        let (at_ns, line, client, db, c, args) = cmd.parts();
        let key = args[0];
        let now_ms = at_ns.div_euclid(1_000_000);
        match (c, out) {
            (b"CAS" | b"EXCAS", Outcome::Stale { .. }) => {
                let e = self.version_rejected(b, cmd, args.get(1).copied());
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
                    .keyspace
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
    pub(super) fn tair_stock_event(
        &mut self,
        b: &mut LogBuilder,
        cmd: &Cmd<'_>,
        prev: Option<i64>,
        out: &Outcome,
    ) -> Option<Event> {
        let (c, args) = (cmd.name, cmd.args);
        if matches!(out, Outcome::Stale { .. }) || (c == b"CAS" && *out == Outcome::Int(0)) {
            return Some(self.version_rejected(b, cmd, None));
        }
        let seen = match (c, out) {
            (b"EXGET", Outcome::Array(a)) => {
                let Some(Outcome::Bulk(v)) = a.first() else {
                    return None;
                };
                StockSeen::Read(parse_i64(v)?)
            }
            (b"EXSET", Outcome::Set { written: true, .. }) if prev.is_none() => {
                StockSeen::Init(args.get(1).and_then(|v| parse_i64(v))?)
            }
            (b"EXSET", Outcome::Set { written: true, .. }) | (b"EXCAS", Outcome::Array(_)) => {
                StockSeen::Write {
                    prev,
                    after: args.get(1).and_then(|v| parse_i64(v))?,
                    set_like: true,
                }
            }
            (b"CAS", Outcome::Int(1)) => StockSeen::Write {
                prev,
                after: args.get(2).and_then(|v| parse_i64(v))?,
                set_like: true,
            },
            (b"EXINCRBY", _) => StockSeen::Write {
                prev,
                after: int_reply(out)?,
                set_like: false,
            },
            _ => return None,
        };
        self.stock_event(b, cmd, seen)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{replay, summary};
    use super::*;

    #[test]
    fn tair_plain_string_lock_cas_renews_and_cad_releases() {
        let text = "1.000 [0 c:1] \"SET\" \"lock:k\" \"A\" \"NX\" \"PX\" \"200\"\n\
             1.002 [0 ?:0] \"GET\" \"lock:k\"\n\
             1.002 [0 c:1] \"CAS\" \"lock:k\" \"A\" \"A\" \"PX\" \"300\"\n\
             1.010 [0 c:1] \"CAD\" \"lock:k\" \"A\"\n\
             1.020 [0 c:2] \"SET\" \"lock:k\" \"B\" \"NX\" \"PX\" \"50\"\n\
             1.080 [0 c:3] \"SET\" \"lock:k\" \"C\" \"NX\" \"PX\" \"50\"\n\
             1.090 [0 c:2] \"CAD\" \"lock:k\" \"B\"\n\
             1.095 [0 c:3] \"CAS\" \"lock:k\" \"B\" \"B\" \"PX\" \"50\"\n\
             1.100 [0 c:3] \"CAD\" \"lock:k\" \"C\"\n\
             1.110 [0 c:3] \"CAD\" \"lock:k\" \"C\"\n";
        let (log, info) = replay(text);
        assert_eq!(
            summary(&log),
            vec![
                (EventKind::Acquired, "A".into(), Some(200), 1),
                (EventKind::Renewed, "A".into(), Some(300), 3),
                (EventKind::Released, "A".into(), None, 4),
                (EventKind::Acquired, "B".into(), Some(50), 5),
                (EventKind::Acquired, "C".into(), Some(50), 6),
                (EventKind::ReleaseFailed, "B".into(), None, 7),
                (EventKind::Released, "C".into(), None, 9),
                (EventKind::ReleaseFailed, "C".into(), None, 10),
            ]
        );
        assert!(
            !info
                .notes
                .iter()
                .map(ToString::to_string)
                .any(|n| n.contains("unknown")),
            "{:?}",
            info.notes
        );
    }

    #[test]
    fn tair_exset_lock_renewals_versions_and_excad() {
        let text = "1.000 [0 c:1] \"EXSET\" \"lock:k\" \"D\" \"NX\" \"PX\" \"300\"\n\
             1.001 [0 c:2] \"EXSET\" \"lock:k\" \"E\" \"NX\" \"PX\" \"300\"\n\
             1.002 [0 c:1] \"EXSET\" \"lock:k\" \"D\" \"XX\" \"PX\" \"400\" \"VER\" \"1\"\n\
             1.003 [0 c:1] \"EXSET\" \"lock:k\" \"D\" \"XX\" \"PX\" \"400\" \"VER\" \"1\"\n\
             1.004 [0 c:1] \"CAD\" \"lock:k\" \"D\"\n\
             1.005 [0 c:1] \"EXCAD\" \"lock:k\" \"1\"\n\
             1.006 [0 c:1] \"EXCAD\" \"lock:k\" \"2\"\n\
             1.010 [0 c:3] \"EXSET\" \"lock:k\" \"G\" \"NX\" \"EX\" \"1\" \"ABS\" \"10\"\n\
             1.011 [0 c:3] \"EXCAS\" \"lock:k\" \"G\" \"10\" \"PX\" \"300\"\n\
             1.012 [0 c:4] \"EXCAS\" \"lock:k\" \"H\" \"10\"\n";
        let (log, _) = replay(text);
        assert_eq!(
            summary(&log),
            vec![
                (EventKind::Acquired, "D".into(), Some(300), 1),
                (EventKind::AcquireFailed, "E".into(), None, 2),
                (EventKind::Renewed, "D".into(), Some(400), 3),
                (EventKind::WriteRejected, "D".into(), None, 4),
                (EventKind::ReleaseFailed, "D".into(), None, 6),
                (EventKind::Released, "D".into(), None, 7),
                (EventKind::Acquired, "G".into(), Some(1000), 8),
                (EventKind::Renewed, "G".into(), Some(300), 9),
                (EventKind::WriteRejected, "H".into(), None, 10),
            ]
        );
        assert_eq!(log.events[3].fencing_token(), Some(1));
        assert_eq!(log.events[8].fencing_token(), Some(10));
        assert_eq!(log.events[5].deleted(), Some(true));
    }

    #[test]
    fn tair_stock_writes_reads_and_rejections() {
        let text = "1.000 [0 c:1] \"EXSET\" \"product:7:stock\" \"3\"\n\
             1.001 [0 c:1] \"SET\" \"product:7:lock\" \"A\" \"NX\" \"PX\" \"100\"\n\
             1.002 [0 c:1] \"EXGET\" \"product:7:stock\"\n\
             1.003 [0 c:1] \"EXCAS\" \"product:7:stock\" \"2\" \"1\"\n\
             1.004 [0 c:2] \"SET\" \"product:7:lock\" \"B\" \"NX\" \"PX\" \"100\"\n\
             1.150 [0 c:2] \"SET\" \"product:7:lock\" \"B\" \"NX\" \"PX\" \"100\"\n\
             1.151 [0 c:2] \"EXCAS\" \"product:7:stock\" \"1\" \"1\"\n\
             1.152 [0 c:2] \"EXINCRBY\" \"product:7:stock\" \"-2\" \"MIN\" \"0\"\n\
             1.153 [0 c:2] \"EXINCRBY\" \"product:7:stock\" \"-1\" \"MIN\" \"0\"\n\
             1.154 [0 c:2] \"EXINCRBY\" \"product:7:stock\" \"-1\" \"MIN\" \"0\"\n";
        let (log, _) = replay(text);
        let got: Vec<(EventKind, String, Option<i64>, Option<i64>)> = log
            .events
            .iter()
            .map(|e| {
                let d = e.detail();
                (
                    e.kind,
                    log.strings.get_or_empty(e.holder).to_string(),
                    d.stock.or(d.stock_after),
                    d.quantity.or(d.fencing_token),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (EventKind::StockInitialized, String::new(), Some(3), None),
                (EventKind::Acquired, "A".into(), None, None),
                (EventKind::StockRead, String::new(), Some(3), None),
                (EventKind::StockDeducted, String::new(), Some(2), Some(1)),
                (EventKind::AcquireFailed, "B".into(), None, None),
                (EventKind::Acquired, "B".into(), None, None),
                (EventKind::WriteRejected, "B".into(), None, Some(1)),
                (EventKind::StockDeducted, String::new(), Some(0), Some(2)),
            ]
        );
        assert!(
            log.events
                .iter()
                .all(|e| log.strings.get_or_empty(e.key) == "product:7:lock")
        );
    }
}

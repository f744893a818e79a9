//! The replay's side of lock keys that vanished ([`super::vanish`]): the
//! doubts recorded when a `SET NX`/`SETNX` loses on a held key, the model
//! and the event put right once the stream proves the write won, a script's
//! acquire that takes a held key, and a note for every lock key a flush or
//! a restart in the capture dropped.

use super::replay::{Cmd, Replay, token_of};
use super::vanish::{Doubt, Verdict, verdict};
use crate::model::{EventKind, LogBuilder, SourceNote, VanishCause, VanishProof};

/// A lossy string of bytes.
fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl Replay {
    /// The token the model holds for `key` in `db` at `now_ms`.
    fn held_token(&mut self, now_ms: i64, db: u32, key: &[u8]) -> Option<Vec<u8>> {
        self.keyspace
            .get_live(now_ms, db, key)
            .and_then(|e| token_of(&e.value.lock_view()))
    }

    /// Before lock command `cmd` runs: settles its connection's doubt on
    /// the key (proved won: the model and the acquire put right), takes a
    /// held key out of the model when a script's acquire writes it as
    /// absent, and remembers that the key was seen.
    pub(super) fn vanish_before(&mut self, b: &mut LogBuilder, cmd: &Cmd<'_>) {
        let key = cmd.args[0];
        let now_ms = cmd.at_ns.div_euclid(1_000_000);
        if !self.vanish.doubts.is_empty()
            && let Some(i) = self.vanish.find(cmd.client.id, key)
        {
            let argv = self.script.as_ref().map(|s| s.argv.as_slice());
            match verdict(cmd.name, &self.vanish.doubts[i], argv) {
                Verdict::Won => {
                    let d = self.vanish.doubts.swap_remove(i);
                    self.doubt_won(b, d, cmd);
                }
                Verdict::Open => {}
                Verdict::Dropped => {
                    self.vanish.doubts.swap_remove(i);
                }
            }
        }
        if self.script.is_some()
            && matches!(cmd.name, b"HSET" | b"HINCRBY")
            && let Some(&field) = cmd.args.get(1)
            && let Some(held) = self.held_token(now_ms, cmd.db, key)
            && held != field
        {
            self.script_took_held_key(cmd, held);
        }
        if !matches!(cmd.name, b"SET" | b"SETNX" | b"EXSET") {
            self.vanish.saw(key, cmd.at_ns, cmd.line);
        }
    }

    /// A lost `SET NX`/`SETNX` of `cmd` on a key the model holds with
    /// another token: a doubt, settled by the connection's next command on
    /// the key. `event` is the index its `AcquireFailed` event will have.
    pub(super) fn note_doubt(&mut self, cmd: &Cmd<'_>, token: &[u8], event: usize) {
        let now_ms = cmd.at_ns.div_euclid(1_000_000);
        let key = cmd.args[0];
        let Some(held) = self.held_token(now_ms, cmd.db, key) else {
            return;
        };
        if held == token || self.script.is_some() {
            return;
        }
        if let Some(i) = self.vanish.find(cmd.client.id, key) {
            self.vanish.doubts.swap_remove(i);
        }
        self.vanish.doubts.push(Doubt {
            client: cmd.client.id,
            db: cmd.db,
            key: key.to_vec(),
            token: token.to_vec(),
            held,
            command: cmd.name.to_vec(),
            args: cmd.args.iter().map(|a| a.to_vec()).collect(),
            at_ns: cmd.at_ns,
            line: cmd.line,
            event,
            seen: self.vanish.last_seen(key, cmd.at_ns),
        });
    }

    /// Doubt `d` proved won by `cmd`: the key vanished before `d`'s write.
    /// The model drops the earlier holder's key and runs the write at its
    /// own time; its event becomes the acquire it was (with the TTL the
    /// write set, or the classic `SETNX` waiting for its `EXPIRE`); a note
    /// says where and why.
    fn doubt_won(&mut self, b: &mut LogBuilder, d: Doubt, cmd: &Cmd<'_>) {
        let now_ms = cmd.at_ns.div_euclid(1_000_000);
        let at_ms = d.at_ns.div_euclid(1_000_000);
        self.keyspace.apply(now_ms, d.db, b"DEL", &[&d.key]);
        self.keyspace.apply(at_ms, d.db, &d.command, &d.args);
        let ttl = self
            .keyspace
            .get_live(at_ms, d.db, &d.key)
            .and_then(|e| e.deadline_ms)
            .map(|dl| dl - at_ms);
        if let Some(e) = b.log.events.get_mut(d.event)
            && e.kind == EventKind::AcquireFailed
        {
            e.kind = EventKind::Acquired;
            e.set_ttl_ms(ttl);
        }
        if d.command == b"SETNX" && ttl.is_none() {
            self.wait_for_expiry(cmd.client.id, &d.key, d.event, at_ms);
        }
        self.set_last_token(cmd.client, &d.key, &d.token);
        let (from_ns, seen_line) = d.seen;
        self.vanish.saw(&d.key, d.at_ns, d.line);
        let command = if d.command == b"SETNX" {
            "SETNX".to_string()
        } else {
            format!("{} NX", text(&d.command))
        };
        let shown_by = if self.script.is_some() {
            text(&cmd.name.to_ascii_lowercase())
        } else {
            text(cmd.name)
        };
        self.vanish_notes.push(SourceNote::LockVanished {
            key: text(&d.key),
            holder: text(&d.held),
            seen_line: u64::from(seen_line),
            proof: VanishProof::Won {
                command,
                winner: text(&d.token),
                line: u64::from(d.line),
                shown_by,
                shown_line: u64::from(cmd.line),
            },
            from_ns,
            to_ns: d.at_ns,
            cause: VanishCause::Unknown,
        });
    }

    /// A script's `hset`/`hincrby` of a new holder on a key the model
    /// holds for `held`: an acquire script writes only an absent key
    /// (Redisson's `exists == 0`), so the key vanished before it.
    fn script_took_held_key(&mut self, cmd: &Cmd<'_>, held: Vec<u8>) {
        let key = cmd.args[0];
        let now_ms = cmd.at_ns.div_euclid(1_000_000);
        self.keyspace.apply(now_ms, cmd.db, b"DEL", &[key]);
        let (from_ns, seen_line) = self.vanish.last_seen(key, cmd.at_ns);
        self.vanish.saw(key, cmd.at_ns, cmd.line);
        let name = text(&cmd.name.to_ascii_lowercase());
        self.vanish_notes.push(SourceNote::LockVanished {
            key: text(key),
            holder: text(&held),
            seen_line: u64::from(seen_line),
            proof: VanishProof::Won {
                command: name.clone(),
                winner: cmd.args.get(1).map(|f| text(f)).unwrap_or_default(),
                line: u64::from(cmd.line),
                shown_by: name,
                shown_line: u64::from(cmd.line),
            },
            from_ns,
            to_ns: cmd.at_ns,
            cause: VanishCause::Unknown,
        });
    }

    /// Before `FLUSHDB`/`FLUSHALL` (`all`) in `db`, or a restart the
    /// capture shows (`restart`: its gap's lines): a note for every lock
    /// key the model holds then, which the command or the restart drops.
    pub(super) fn note_dropped_locks(
        &mut self,
        now_ms: i64,
        db: Option<u32>,
        proof: &VanishProof,
        at_ns: i64,
    ) {
        let mut keys: Vec<Vec<u8>> = self.lock_keys_held().collect();
        keys.sort();
        for key in keys {
            let dbs: Vec<u32> = match db {
                Some(d) => vec![d],
                None => self.keyspace.dbs(),
            };
            for d in dbs {
                let Some(held) = self.held_token(now_ms, d, &key) else {
                    continue;
                };
                let (from_ns, seen_line) = self.vanish.last_seen(&key, at_ns);
                self.vanish_notes.push(SourceNote::LockVanished {
                    key: text(&key),
                    holder: text(&held),
                    seen_line: u64::from(seen_line),
                    proof: proof.clone(),
                    from_ns,
                    to_ns: at_ns,
                    cause: VanishCause::InCapture,
                });
            }
        }
    }
}

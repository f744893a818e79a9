//! Lock keys that vanished from the server, inferred from the command
//! stream: MONITOR shows no evictions, no restarts it did not see and no
//! replies, but a write that succeeds only on an absent key, followed by a
//! command that only its winner sends, proves that the key was gone before
//! it (docs/semantics.md §8, "Keys that vanish").
//!
//! A `SET ... NX` or `SETNX` that the model says lost (another holder's key
//! held) is a doubt; it is proved won when the same connection's next
//! command on that key is one a loser never sends: an expiry set on the key
//! (`PEXPIRE` after `SET NX`, the classic `SETNX` then `EXPIRE`), or a
//! script whose `ARGV` names the doubt's token and which deletes or expires
//! the key (a compare-and-delete whose compare passed). A read keeps the
//! doubt open; any other command on the key ends it unproved.

use std::collections::HashMap;

/// A `SET NX`/`SETNX` the model said lost.
#[derive(Clone, Debug)]
pub(super) struct Doubt {
    /// The connection that sent it.
    pub(super) client: u32,
    /// Its database.
    pub(super) db: u32,
    /// The lock key.
    pub(super) key: Vec<u8>,
    /// The token it tried.
    pub(super) token: Vec<u8>,
    /// The token the model held for the key then.
    pub(super) held: Vec<u8>,
    /// Its command, upper case (`SET`, `SETNX`), and every argument.
    pub(super) command: Vec<u8>,
    pub(super) args: Vec<Vec<u8>>,
    /// When and where it was sent.
    pub(super) at_ns: i64,
    pub(super) line: u32,
    /// Its `AcquireFailed` event's index in the log's events.
    pub(super) event: usize,
    /// The (time, line) of the last command that saw the key before it
    /// (line 0: none).
    pub(super) seen: (i64, u32),
}

/// What the next command of a doubt's connection on its key says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// It proves the write won.
    Won,
    /// It says nothing (a read): the doubt stays open.
    Open,
    /// Anything else: the doubt ends unproved.
    Dropped,
}

/// The verdict of command `c` (upper case) on a doubt's key from its own
/// connection; `script_argv` is the running script's `ARGV` when `c` is one
/// of its lines.
pub(super) fn verdict(c: &[u8], doubt: &Doubt, script_argv: Option<&[Vec<u8>]>) -> Verdict {
    let expiry = matches!(c, b"EXPIRE" | b"PEXPIRE" | b"EXPIREAT" | b"PEXPIREAT");
    let read = matches!(
        c,
        b"GET" | b"EXISTS" | b"TTL" | b"PTTL" | b"HGET" | b"HEXISTS" | b"HGETALL" | b"TYPE"
    );
    match script_argv {
        Some(argv) if argv.contains(&doubt.token) => {
            if expiry || matches!(c, b"DEL" | b"UNLINK") {
                Verdict::Won
            } else if read {
                Verdict::Open
            } else {
                Verdict::Dropped
            }
        }
        Some(_) if read => Verdict::Open,
        Some(_) => Verdict::Dropped,
        None if expiry => Verdict::Won,
        None if read => Verdict::Open,
        None => Verdict::Dropped,
    }
}

/// The doubts open and where each lock key was last seen.
#[derive(Debug, Default)]
pub(super) struct Vanishes {
    /// Open doubts (few at a time: one per connection racing for a held
    /// key).
    pub(super) doubts: Vec<Doubt>,
    /// Per lock key: the (time, line) of the last command that touched it.
    pub(super) seen: HashMap<Vec<u8>, (i64, u32)>,
}

impl Vanishes {
    /// The open doubt of connection `client` on `key`, by position.
    pub(super) fn find(&self, client: u32, key: &[u8]) -> Option<usize> {
        self.doubts
            .iter()
            .position(|d| d.client == client && d.key == key)
    }

    /// Remembers that a command at (`at_ns`, `line`) saw `key`.
    pub(super) fn saw(&mut self, key: &[u8], at_ns: i64, line: u32) {
        match self.seen.get_mut(key) {
            Some(s) => *s = (at_ns, line),
            None => {
                self.seen.insert(key.to_vec(), (at_ns, line));
            }
        }
    }

    /// Where `key` was last seen: (time, line), `(at_ns, 0)` when never.
    pub(super) fn last_seen(&self, key: &[u8], at_ns: i64) -> (i64, u32) {
        self.seen.get(key).copied().unwrap_or((at_ns, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doubt() -> Doubt {
        Doubt {
            client: 1,
            db: 0,
            key: b"lock:a".to_vec(),
            token: b"tok-b".to_vec(),
            held: b"tok-a".to_vec(),
            command: b"SET".to_vec(),
            args: vec![],
            at_ns: 0,
            line: 1,
            event: 0,
            seen: (0, 0),
        }
    }

    #[test]
    fn an_expiry_or_a_script_of_the_token_that_deletes_proves_the_win() {
        let d = doubt();
        assert_eq!(verdict(b"PEXPIRE", &d, None), Verdict::Won);
        assert_eq!(verdict(b"GET", &d, None), Verdict::Open);
        assert_eq!(verdict(b"SET", &d, None), Verdict::Dropped);
        let mine = [b"tok-b".to_vec()];
        let other = [b"tok-c".to_vec()];
        assert_eq!(verdict(b"DEL", &d, Some(&mine)), Verdict::Won);
        assert_eq!(verdict(b"GET", &d, Some(&mine)), Verdict::Open);
        assert_eq!(verdict(b"DEL", &d, Some(&other)), Verdict::Dropped);
    }
}

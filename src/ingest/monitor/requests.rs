//! Who sent a delete that names no token: MONITOR shows the connection a
//! command came on, not the request. A client with one connection per
//! worker sends a request's `SET NX` and its `DEL` on the same connection;
//! a pooled client (redis-py's `ConnectionPool`, Jedis' `JedisPool`,
//! Lettuce's pool) borrows any free connection for each command, so the
//! `DEL` may travel on a connection that another request used for its
//! acquire.
//!
//! The rule (docs/semantics.md §8): a connection's *request chain* is the
//! run of commands it sent since its last acquire attempt, delete or
//! script; on a pooled capture the chain also breaks at a pause longer than
//! [`REQUEST_GAP_NS`]. Within a chain, the commands name the request's
//! owner: an order pushed with `lock_owner`/`owner`, a `GET`/`EXGET` of a
//! lock key (the holder the request read), an argument equal to a token
//! that won a lock. A token-less delete is credited to the owner its chain
//! named last, else to the winning acquire in its chain (on a capture that
//! is not pooled: the connection's last winning acquire of that key, as
//! before), else to the key's holder as its own release, marked guessed
//! ([`crate::model::Event::holder_guessed`]). Connection reuse alone never
//! makes a foreign release.
//!
//! A capture is taken as pooled once the same token is sent on two
//! connections (a retry of `SET NX` that moved, an order pushed on another
//! connection than its acquire); commands before that were read as one
//! connection per worker.

use std::cell::{Cell, RefCell};
use std::hash::BuildHasher;
use std::rc::Rc;

use hashbrown::{HashMap, HashSet};

use super::link::LinkSigns;
use crate::model::{SourceNote, Sym};

/// A client of the capture: its address, a number for maps keyed by
/// client, and its address's symbol once an event has interned it.
#[derive(Debug)]
pub(super) struct ClientInfo {
    pub(super) name: Box<str>,
    pub(super) id: u32,
    pub(super) sym: Cell<Option<Sym>>,
    /// Its current request chain.
    pub(super) chain: RefCell<Chain>,
    /// Whether it looks like a replica's replication link ([`super::link`]).
    pub(super) signs: Cell<LinkSigns>,
}

pub(super) type Client = Rc<ClientInfo>;

pub(super) fn new_client(name: &str, id: u32) -> Client {
    Rc::new(ClientInfo {
        name: name.into(),
        id,
        sym: Cell::new(None),
        chain: RefCell::default(),
        signs: Cell::default(),
    })
}

/// Longest pause between two commands of one request on one connection of
/// a pooled capture, ns: a request's own commands come back to back (a
/// stock write, the order push and the `DEL` within a millisecond in the
/// redis-py pool capture, `tests/fixtures/monitor/pool/`), while a
/// connection left idle longer goes back to the pool.
pub(super) const REQUEST_GAP_NS: i64 = 50_000_000;

/// Tokens remembered before the sets start over (a bound on memory).
const TOKENS_MAX: usize = 1 << 20;

/// Tokens are kept as 64-bit hashes: no allocation per token (a capture may
/// send a new token with every `SET NX`), and a collision only makes one
/// capture read as pooled or one argument name a request.
type TokenHash = u64;

/// One connection's current request chain, kept in its
/// [`ClientInfo`] (no map lookup per command).
#[derive(Clone, Debug, Default)]
pub(super) struct Chain {
    /// Bumped each time the chain breaks.
    id: u32,
    /// Time of the connection's last command, ns.
    last_ns: i64,
    /// The owner the chain named last.
    named: Option<Vec<u8>>,
    /// The token of the chain's winning acquire.
    acquired: Option<Vec<u8>>,
}

impl Chain {
    fn restart(&mut self) {
        self.id = self.id.wrapping_add(1);
        self.named = None;
        self.acquired = None;
    }
}

/// What tells a pooled client in one capture, and the rules over each
/// connection's [`Chain`].
#[derive(Debug, Default)]
pub(super) struct Requests {
    /// Token → the connection that first sent it.
    first_sent: HashMap<TokenHash, u32>,
    /// Tokens that won a lock key.
    won: HashSet<TokenHash>,
    hasher: foldhash::fast::FixedState,
    /// True once the capture showed a pooled client.
    pub(super) pooled: bool,
    /// Deletes credited to the key's holder for want of evidence.
    pub(super) guessed: u64,
    /// Deletes credited from the chain to someone else than the
    /// connection's last winning acquire (what a rule by connection alone
    /// would say).
    pub(super) by_request: u64,
}

/// The chain of a client.
fn chain(c: &ClientInfo) -> &RefCell<Chain> {
    &c.chain
}

impl Requests {
    /// A command from `c` at `at_ns` (not a script's own lines): on a
    /// pooled capture, a pause longer than [`REQUEST_GAP_NS`] ends the
    /// chain.
    pub(super) fn touch(&self, c: &ClientInfo, at_ns: i64) {
        let mut ch = chain(c).borrow_mut();
        if self.pooled && at_ns.saturating_sub(ch.last_ns) > REQUEST_GAP_NS {
            ch.restart();
        }
        ch.last_ns = at_ns;
    }

    /// Starts a new chain on `c` (an acquire attempt, a delete, a script).
    pub(super) fn restart(&self, c: &ClientInfo) {
        chain(c).borrow_mut().restart();
    }

    /// `c`'s chain won a lock with `token`.
    pub(super) fn acquired(&self, c: &ClientInfo, token: &[u8]) {
        chain(c).borrow_mut().acquired = Some(token.to_vec());
    }

    /// Who `c`'s current request is: the owner its chain named, else the
    /// token its chain acquired with (for a write a version refused).
    pub(super) fn owner(&self, c: &ClientInfo) -> Option<Vec<u8>> {
        let ch = chain(c).borrow();
        ch.named.clone().or_else(|| ch.acquired.clone())
    }

    /// The chain number of `c`, to tell later whether an acquire is still
    /// in the connection's current request.
    pub(super) fn chain(&self, c: &ClientInfo) -> u32 {
        chain(c).borrow().id
    }

    /// True when an acquire made in chain `id` of `c` may still speak for
    /// the connection: always on a capture of one connection per worker,
    /// only within the same chain on a pooled one.
    pub(super) fn acquire_holds(&self, c: &ClientInfo, id: u32) -> bool {
        !self.pooled || self.chain(c) == id
    }

    /// The owner the current chain of `c` named.
    pub(super) fn named(&self, c: &ClientInfo) -> Option<Vec<u8>> {
        chain(c).borrow().named.clone()
    }

    /// `c`'s chain names `owner`; a token first sent on another connection
    /// shows a pooled client.
    pub(super) fn name(&mut self, c: &ClientInfo, owner: &[u8]) {
        self.sent(c.id, owner);
        chain(c).borrow_mut().named = Some(owner.to_vec());
    }

    /// `client` sent `token` (in an acquire attempt or an order); notes a
    /// pooled client when another connection sent it first.
    pub(super) fn sent(&mut self, client: u32, token: &[u8]) {
        if self.pooled {
            return; // nothing more to learn
        }
        let h = self.hasher.hash_one(token);
        match self.first_sent.get(&h) {
            Some(&first) if first != client => {
                self.pooled = true;
                self.first_sent = HashMap::new();
            }
            Some(_) => {}
            None => {
                if self.first_sent.len() >= TOKENS_MAX {
                    self.first_sent.clear();
                }
                self.first_sent.insert(h, client);
            }
        }
    }

    /// `token` won a lock key.
    pub(super) fn won(&mut self, token: &[u8]) {
        if self.won.len() >= TOKENS_MAX {
            self.won.clear();
        }
        self.won.insert(self.hasher.hash_one(token));
    }

    /// Names the first of `values` (a command's arguments after its key)
    /// that is a token which won a lock, if any (`SET order:9:owner
    /// <token>`, `HSET order:9 owner <token>`).
    pub(super) fn name_known_token(&mut self, c: &ClientInfo, values: &[&[u8]]) {
        if self.won.is_empty() {
            return;
        }
        if let Some(t) = values
            .iter()
            .find(|a| self.won.contains(&self.hasher.hash_one(**a)))
        {
            self.name(c, t);
        }
    }

    /// The notes a capture gets about how its deletes were attributed.
    pub(super) fn notes(&self) -> Vec<SourceNote> {
        let mut out = Vec::new();
        if self.pooled {
            out.push(SourceNote::PooledClient {
                gap_ms: REQUEST_GAP_NS / 1_000_000,
            });
        }
        if self.by_request > 0 {
            out.push(SourceNote::DelsByRequest {
                dels: self.by_request,
            });
        }
        if self.guessed > 0 {
            out.push(SourceNote::DelsGuessed { dels: self.guessed });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::replay;
    use super::*;
    use crate::model::EventKind;

    fn client(id: u32) -> ClientInfo {
        ClientInfo {
            name: "c".into(),
            id,
            sym: std::cell::Cell::new(None),
            chain: RefCell::default(),
            signs: std::cell::Cell::default(),
        }
    }

    #[test]
    fn a_token_on_two_connections_shows_a_pool() {
        let mut r = Requests::default();
        r.sent(1, b"A");
        r.sent(1, b"A");
        assert!(!r.pooled);
        r.sent(2, b"A");
        assert!(r.pooled);
    }

    #[test]
    fn chains_break_on_restart_and_on_long_pauses_once_pooled() {
        let mut r = Requests::default();
        let c = client(1);
        r.touch(&c, 0);
        r.name(&c, b"A");
        // One connection per worker: a pause keeps the chain.
        r.touch(&c, 10 * REQUEST_GAP_NS);
        assert_eq!(r.named(&c).as_deref(), Some(&b"A"[..]));
        let id = r.chain(&c);
        r.pooled = true;
        assert!(r.acquire_holds(&c, id));
        r.touch(&c, 10 * REQUEST_GAP_NS + REQUEST_GAP_NS);
        assert_eq!(r.named(&c).as_deref(), Some(&b"A"[..]));
        r.touch(&c, 12 * REQUEST_GAP_NS + 1);
        assert_eq!(r.named(&c), None);
        assert!(!r.acquire_holds(&c, id));
        r.name(&c, b"B");
        r.restart(&c);
        assert_eq!(r.named(&c), None);
    }

    #[test]
    fn known_tokens_name_the_request() {
        let mut r = Requests::default();
        let c = client(3);
        r.name_known_token(&c, &[b"x", b"A"]);
        assert_eq!(r.named(&c), None);
        r.won(b"A");
        r.name_known_token(&c, &[b"x", b"A"]);
        assert_eq!(r.named(&c).as_deref(), Some(&b"A"[..]));
        assert_eq!(r.owner(&c).as_deref(), Some(&b"A"[..]));
    }

    /// (kind, holder, deleted, holder guessed) of every release.
    fn releases(log: &crate::model::LoadedLog) -> Vec<(EventKind, String, Option<bool>, bool)> {
        log.events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Released | EventKind::ReleaseFailed))
            .map(|e| {
                (
                    e.kind,
                    log.strings.get_or_empty(e.holder).to_string(),
                    e.deleted(),
                    e.holder_guessed(),
                )
            })
            .collect()
    }

    /// Two lines that show a pooled client: loser Z retries its `SET NX` on
    /// another connection.
    const POOL_SIGNAL: &str = "0.900 [0 c:8] \"SET\" \"lock:other\" \"Z0\" \"NX\" \"PX\" \"10\"\n\
         0.910 [0 c:9] \"SET\" \"lock:other\" \"Z0\" \"NX\" \"PX\" \"10\"\n";

    #[test]
    fn a_pooled_del_after_an_order_is_the_orders_owner() {
        // A's lease runs out, B acquires; A's request then pushes its order
        // and sends the DEL on a third connection: A deleted B's lock.
        let text = format!(
            "{POOL_SIGNAL}\
             1.000 [0 c:1] \"SET\" \"product:7:lock\" \"A\" \"NX\" \"PX\" \"100\"\n\
             1.150 [0 c:2] \"SET\" \"product:7:lock\" \"B\" \"NX\" \"PX\" \"1000\"\n\
             1.200 [0 c:3] \"RPUSH\" \"product:7:orders\" \"{{\\\"order_id\\\": \\\"O1\\\", \\\"lock_owner\\\": \\\"A\\\"}}\"\n\
             1.201 [0 c:3] \"DEL\" \"product:7:lock\"\n"
        );
        let (log, info) = replay(&text);
        assert_eq!(
            releases(&log),
            vec![(EventKind::Released, "A".into(), Some(true), false)]
        );
        assert!(
            info.notes
                .iter()
                .map(ToString::to_string)
                .any(|n| n.starts_with("pooled client")),
            "{:?}",
            info.notes
        );
    }

    #[test]
    fn a_pooled_del_on_another_requests_connection_is_no_foreign_release() {
        // A acquires on c:1 and its lease runs out; B acquires on c:2 and
        // its DEL comes, 150 ms later, on c:1. Connection reuse alone says
        // nothing: B's own release, holder guessed (not A deleting B's lock).
        let text = format!(
            "{POOL_SIGNAL}\
             1.000 [0 c:1] \"SET\" \"lock:k\" \"A\" \"NX\" \"PX\" \"100\"\n\
             1.150 [0 c:2] \"SET\" \"lock:k\" \"B\" \"NX\" \"PX\" \"1000\"\n\
             1.300 [0 c:1] \"DEL\" \"lock:k\"\n"
        );
        let (log, info) = replay(&text);
        assert_eq!(
            releases(&log),
            vec![(EventKind::Released, "B".into(), Some(true), true)]
        );
        assert!(
            info.notes.iter().any(|n| n
                .to_string()
                .starts_with("1 DEL(s) of a lock came with nothing")),
            "{:?}",
            info.notes
        );
        // The same lines from one connection per worker (no token moved):
        // c:1's last acquire speaks for it, A deleted B's lock.
        let (log, _) = replay(&text[POOL_SIGNAL.len()..]);
        assert_eq!(
            releases(&log),
            vec![(EventKind::Released, "A".into(), Some(true), false)]
        );
    }

    #[test]
    fn a_check_then_delete_names_the_holder_it_read() {
        // c:5 reads A's token, A's lease runs out, B acquires, c:5 deletes:
        // the holder it read (A) deleted B's lock.
        let text = "1.000 [0 c:1] \"SET\" \"lock:k\" \"A\" \"NX\" \"PX\" \"100\"\n\
             1.099 [0 c:5] \"GET\" \"lock:k\"\n\
             1.120 [0 c:2] \"SET\" \"lock:k\" \"B\" \"NX\" \"PX\" \"1000\"\n\
             1.130 [0 c:5] \"DEL\" \"lock:k\"\n\
             1.140 [0 c:2] \"DEL\" \"lock:k\"\n";
        let (log, _) = replay(text);
        assert_eq!(
            releases(&log),
            vec![
                (EventKind::Released, "A".into(), Some(true), false),
                (EventKind::Released, "B".into(), Some(false), false),
            ]
        );
    }

    #[test]
    fn a_known_token_in_a_write_names_the_request() {
        let text = "1.000 [0 c:1] \"SET\" \"lock:k\" \"A\" \"NX\" \"PX\" \"100\"\n\
             1.150 [0 c:2] \"SET\" \"lock:k\" \"B\" \"NX\" \"PX\" \"1000\"\n\
             1.160 [0 c:4] \"SET\" \"audit:last_buyer\" \"A\"\n\
             1.161 [0 c:4] \"DEL\" \"lock:k\"\n";
        let (log, info) = replay(text);
        assert_eq!(
            releases(&log),
            vec![(EventKind::Released, "A".into(), Some(true), false)]
        );
        assert!(
            info.notes
                .iter()
                .any(|n| n.to_string().starts_with("1 DEL(s) of a lock credited"))
        );
    }
}

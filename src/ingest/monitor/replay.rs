//! The replay of one capture through the keyspace model
//! ([`crate::redis_model`]): each command runs where the capture says (its
//! client's database, `MULTI` queue, or the script it belongs to), and its
//! effect on a lock key, stock counter or order list becomes an event. The
//! rules are in the module docs of [`super`]; Tair's commands are in
//! `tair.rs`, who sent a delete in `requests.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use hashbrown::{HashMap, HashSet};

use super::glob::Glob;
use super::orders::Order;
use super::requests::{self, Client, ClientInfo, new_client};
use super::vanish::Vanishes;
use super::{
    CommandLine, LOCK_WORDS, LineParser, MonitorOptions, ORDER_WORDS, STOCK_WORDS, lossy,
    product_of, product_tie,
};
use crate::model::{Event, EventKind, LogBuilder, SourceRef, Sym};
use crate::redis_model::{Connection, Keyspace, Outcome, Step, UppercaseName, Value, parse_i64};

/// The values of a command's keys before it runs
/// ([`Replay::before_command`]).
struct Before<'a> {
    /// The lock key's value, for a command that creates or deletes one.
    lock: Option<Value>,
    /// The stock key's number, for a command that changes it.
    stock: Option<i64>,
    /// The other lock keys a multi-key delete names, with their values.
    other_locks: Vec<(&'a [u8], Option<Value>)>,
}

/// The token a lock value names: the string, or a hash's first field.
pub(super) fn token_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Str(s) | Value::ExStr { value: s, .. } => Some(s.clone()),
        Value::Hash(h) => h.first().map(|(f, _)| f.clone()),
        Value::List(_) => None,
    }
}

/// Empties `v` and hands its allocation back for slices of another line,
/// so that the replay loop allocates no argument list per line.
fn recycle<'b>(mut v: Vec<&[u8]>) -> Vec<&'b [u8]> {
    v.clear();
    v.into_iter().map(|_| &[][..]).collect()
}

/// Which of the lock keys' holders (client, key) last acquired with each
/// token, and in which of the client's request chains
/// ([`requests::Requests::chain`]), both ways: what [`Replay::lock_removed`]
/// asks, and a way to forget every (client, key) of a released token
/// without scanning them all.
#[derive(Debug, Default)]
pub(super) struct LastTokens {
    by_client_key: HashMap<ClientKey, (Vec<u8>, u32)>,
    by_token: HashMap<Vec<u8>, Vec<ClientKey>>,
}

impl LastTokens {
    fn get(&self, client: u32, key: &[u8]) -> Option<&(Vec<u8>, u32)> {
        self.by_client_key.get(&ClientKeyRef(client, key))
    }

    fn set(&mut self, client: u32, key: &[u8], token: &[u8], chain: u32) {
        match self.by_client_key.get_mut(&ClientKeyRef(client, key)) {
            Some(t) if t.0.as_slice() == token => {
                t.1 = chain;
                return;
            }
            Some(t) => {
                let old = std::mem::replace(t, (token.to_vec(), chain)).0;
                if let Some(list) = self.by_token.get_mut(old.as_slice()) {
                    list.retain(|ck| !(ck.0 == client && ck.1 == key));
                    if list.is_empty() {
                        self.by_token.remove(old.as_slice());
                    }
                }
            }
            None => {
                self.by_client_key
                    .insert(ClientKey(client, key.to_vec()), (token.to_vec(), chain));
            }
        }
        self.by_token
            .entry_ref(token)
            .or_default()
            .push(ClientKey(client, key.to_vec()));
    }

    /// Forgets every (client, key) whose last token is `token`.
    pub(super) fn forget(&mut self, token: &[u8]) {
        for ck in self.by_token.remove(token).unwrap_or_default() {
            self.by_client_key.remove(&ck);
        }
    }
}

/// (client, lock key), owned: the key of [`Replay::last_token`].
#[derive(Debug, Hash, PartialEq, Eq)]
struct ClientKey(u32, Vec<u8>);

/// (client, lock key), borrowed, to look [`ClientKey`]s up without
/// allocating. Hashes as [`ClientKey`] does (a `Vec<u8>` hashes as its
/// slice).
#[derive(Hash)]
struct ClientKeyRef<'a>(u32, &'a [u8]);

impl hashbrown::Equivalent<ClientKey> for ClientKeyRef<'_> {
    fn equivalent(&self, k: &ClientKey) -> bool {
        self.0 == k.0 && self.1 == k.1.as_slice()
    }
}

/// Line numbers that gave at least one event, as a bit set (lines are
/// numbered densely from 1).
#[derive(Debug, Default)]
struct LineSet {
    bits: Vec<u64>,
    len: u64,
}

impl LineSet {
    fn remove(&mut self, line: u32) {
        let (word, bit) = (line as usize / 64, 1u64 << (line % 64));
        if let Some(w) = self.bits.get_mut(word)
            && *w & bit != 0
        {
            *w &= !bit;
            self.len -= 1;
        }
    }

    fn insert(&mut self, line: u32) {
        let (word, bit) = (line as usize / 64, 1u64 << (line % 64));
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
        }
        if self.bits[word] & bit == 0 {
            self.bits[word] |= bit;
            self.len += 1;
        }
    }
}

/// A script being replayed: the `EVAL`/`EVALSHA` line and what its `lua`
/// lines did so far.
#[derive(Debug)]
pub(super) struct Script {
    client: Client,
    /// SHA or body, to learn what kind of script it is.
    id: Vec<u8>,
    /// True for `EVAL`/`EVAL_RO`, whose `id` is the body.
    id_is_body: bool,
    pub(super) argv: Vec<Vec<u8>>,
    lua_lines: usize,
    /// Lock keys read, each with the (time, line) of its first read.
    reads: Vec<(Vec<u8>, (i64, u32))>,
    /// Lock keys written (any write command).
    writes: Vec<Vec<u8>>,
    pttl: Vec<Vec<u8>>,
    deleted: bool,
    expired: bool,
    events: Vec<Event>,
}

impl Script {
    /// The releaser's token: the `ARGV` element equal to `token`, else the
    /// first non-numeric `ARGV`, else `token`.
    fn holder_for(&self, token: &[u8]) -> Vec<u8> {
        if self.argv.iter().any(|a| a == token) {
            return token.to_vec();
        }
        self.argv
            .iter()
            .find(|a| parse_i64(a).is_none())
            .cloned()
            .unwrap_or_else(|| token.to_vec())
    }
}

/// Adds `key` to a small set kept as a list.
fn note_key(set: &mut Vec<Vec<u8>>, key: &[u8]) {
    if !set.iter().any(|k| k == key) {
        set.push(key.to_vec());
    }
}

/// Keys the replay remembers before it starts over (a bound on memory for
/// captures touching many distinct keys; forgetting changes no result).
const KEY_CACHE_MAX: usize = 1 << 20;

/// What the replay knows about a key.
#[derive(Clone, Copy, Debug)]
struct KeyInfo {
    lock: bool,
    stock: bool,
    order: bool,
    /// In [`Replay::lock_keys`] already.
    noted: bool,
    /// Its symbol, once an event has interned it.
    sym: Option<Sym>,
}

/// What earlier runs taught about a script (by SHA or body).
#[derive(Clone, Copy, Debug, Default)]
struct ScriptKind {
    deletes: bool,
    expires: bool,
    /// The body (an `EVAL` with these bytes) has been read for `del` and
    /// `expire` already.
    body_read: bool,
}

/// What a finished replay counted, for its source's accounting and notes.
#[derive(Debug)]
pub(super) struct Tally {
    /// Events pushed.
    pub(super) events: u64,
    /// Lines that gave at least one event.
    pub(super) event_lines: u64,
    /// Commands replayed, those inside Lua scripts included.
    pub(super) commands: u64,
    /// Commands replayed inside Lua scripts.
    pub(super) lua_commands: u64,
    /// How the deletes were attributed ([`requests::Requests::notes`]).
    pub(super) request_notes: Vec<crate::model::SourceNote>,
    /// Commands the keyspace model does not know, by upper-case name.
    pub(super) unknown: BTreeMap<String, u64>,
}

/// The replay of one capture: the keyspace model, each client's connection
/// (database, `MULTI` queue, request chain), the script being run, and what
/// the events need (which keys match which pattern, the lock keys seen, the
/// business events waiting for their lock key, the counts).
/// The command being replayed: when and where it was seen, the connection
/// that sent it, and what it is (its upper-cased name and its arguments,
/// the key first). One value instead of six arguments for every rule below
/// `Replay::exec`.
#[derive(Clone, Copy)]
pub(super) struct Cmd<'a> {
    /// Capture time, ns.
    pub at_ns: i64,
    /// Line in the capture, 1-based.
    pub line: u32,
    /// The connection that sent it.
    pub client: &'a Client,
    /// The selected database.
    pub db: u32,
    /// The command name, upper-cased.
    pub name: &'a [u8],
    /// The arguments (the key first).
    pub args: &'a [&'a [u8]],
}

impl<'a> Cmd<'a> {
    /// Its fields as a tuple: `(at_ns, line, client, db, name, args)`.
    pub fn parts(&self) -> (i64, u32, &'a Client, u32, &'a [u8], &'a [&'a [u8]]) {
        (
            self.at_ns,
            self.line,
            self.client,
            self.db,
            self.name,
            self.args,
        )
    }
}

/// The lock commands whose rules need the lock key's value before they run
/// (a delete or a compare names the holder it removed or checked).
const NEEDS_LOCK_BEFORE: &[&[u8]] = &[
    b"HSET", b"HINCRBY", b"DEL", b"UNLINK", b"GETDEL", b"HDEL", b"CAS", b"EXCAS", b"CAD", b"EXCAD",
];

/// The stock commands whose rules need the stock level before they run (a
/// deduction is the change from it).
const NEEDS_STOCK_BEFORE: &[&[u8]] = &[
    b"SET",
    b"DECR",
    b"DECRBY",
    b"INCRBY",
    b"INCR",
    b"EXSET",
    b"EXCAS",
    b"CAS",
    b"EXINCRBY",
];

/// What a command did to a stock key ([`Replay::stock_event`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum StockSeen {
    /// It read this level.
    Read(i64),
    /// It created the key with this level.
    Init(i64),
    /// It changed the level from `prev` (`None`: unknown) to `after`;
    /// `set_like` when it wrote a new value rather than an increment.
    Write {
        prev: Option<i64>,
        after: i64,
        set_like: bool,
    },
    /// It lowered by `quantity` a level the capture never saw written: the
    /// server's value from before the capture began is unknown, and so are
    /// the levels on both sides.
    Unleveled { quantity: i64 },
}

pub(super) struct Replay {
    lock_glob: Glob,
    stock_glob: Glob,
    order_glob: Glob,
    file: u16,
    name: String,
    pub(super) keyspace: Keyspace,
    /// An open gap in the capture: (its first line, the server was down).
    gap: Option<(u32, bool)>,
    /// The gaps closed so far, as notes.
    gaps: Vec<crate::model::SourceNote>,
    connections: HashMap<Box<[u8]>, (Client, Connection)>,
    /// The client of a `lua` line outside any script.
    lua: Client,
    pub(super) script: Option<Script>,
    kinds: HashMap<Vec<u8>, ScriptKind>,
    /// (client, lock key) → token of that client's last winning acquire.
    pub(super) last_token: LastTokens,
    /// Each connection's request chain, to tell who sent a `DEL`.
    pub(super) requests: requests::Requests,
    /// What each key seen matches, and its symbol once an event interned
    /// it (at most [`KEY_CACHE_MAX`] keys; then it starts over).
    keys: HashMap<Box<[u8]>, KeyInfo>,
    unknown: BTreeMap<String, u64>,
    lock_keys: HashSet<Vec<u8>>,
    /// Stock keys whose level this capture has seen written (a `SET`).
    /// Before that a key holds what the server had before the capture
    /// began, unknown: a read of it is not reported, and a `DECRBY` is a
    /// deduction of known quantity between unknown levels (the model's
    /// "missing key is 0" would give levels below zero and a false
    /// oversell).
    stock_known: HashSet<Vec<u8>>,
    /// Business events, tied to their lock key at the end.
    business: Vec<Event>,
    /// Locks a client took with `SETNX` (no TTL) and has not given one
    /// yet: (client id, key) -> (the acquire's index in the log's events,
    /// its time in ms). The classic two-step acquire, `SETNX` then
    /// `EXPIRE`: the `EXPIRE` is the acquire's TTL, not a renewal (else
    /// "renewed 1 times" and a `renewal_gap` saying the watchdog stopped,
    /// in a log with no watchdog).
    untimed: HashMap<ClientKey, (usize, i64)>,
    event_lines: LineSet,
    /// Doubts about lost acquires and where lock keys were last seen.
    pub(super) vanish: Vanishes,
    /// A note for every lock key that vanished ([`SourceNote::LockVanished`]).
    pub(super) vanish_notes: Vec<crate::model::SourceNote>,
    /// The time of the last command replayed, ns.
    last_at_ns: i64,
    events: u64,
    commands: u64,
    lua_commands: u64,
    /// The argument list's allocation, kept between lines.
    arg_list: Vec<&'static [u8]>,
}

impl Replay {
    /// A replay of the capture `name`, whose events get source index `file`.
    pub(super) fn new(opts: &MonitorOptions, file: u16, name: String) -> Replay {
        Replay {
            lock_glob: Glob::new(opts.lock_pattern.as_bytes()),
            stock_glob: Glob::new(opts.stock_pattern.as_bytes()),
            order_glob: Glob::new(opts.order_pattern.as_bytes()),
            file,
            name,
            keyspace: Keyspace::new(),
            gap: None,
            gaps: Vec::new(),
            connections: HashMap::new(),
            lua: new_client("lua", u32::MAX),
            script: None,
            kinds: HashMap::new(),
            last_token: LastTokens::default(),
            requests: requests::Requests::default(),
            keys: HashMap::new(),
            unknown: BTreeMap::new(),
            lock_keys: HashSet::new(),
            stock_known: HashSet::new(),
            business: Vec::new(),
            untimed: HashMap::new(),
            event_lines: LineSet::default(),
            vanish: Vanishes::default(),
            vanish_notes: Vec::new(),
            last_at_ns: 0,
            events: 0,
            commands: 0,
            lua_commands: 0,
            arg_list: Vec::new(),
        }
    }

    /// Ends the capture: runs out the last script, ties the business events
    /// to their lock keys and pushes them, and hands back the counts.
    pub(super) fn finish(mut self, b: &mut LogBuilder) -> Tally {
        self.finish_script(b);
        let link_notes = self.leave_out_links(b);
        self.flush_business(b);
        Tally {
            events: self.events,
            event_lines: self.event_lines.len,
            commands: self.commands,
            lua_commands: self.lua_commands,
            request_notes: {
                let mut notes = std::mem::take(&mut self.gaps);
                if let Some((from, restart)) = self.gap {
                    // The capture ended inside a gap.
                    notes.push(crate::model::SourceNote::CaptureGap {
                        from_line: u64::from(from),
                        to_line: 0,
                        restart,
                    });
                }
                notes.extend(self.requests.notes());
                notes.append(&mut self.vanish_notes);
                notes.extend(link_notes);
                notes
            },
            unknown: self.unknown,
        }
    }

    /// Leaves out the events of every client whose signs say it is a
    /// replica's replication link ([`super::link`]): its writes stay in the
    /// keyspace model (what the replica held when it was promoted) but its
    /// copies of the master's grants, releases and sales give no event.
    /// Their lines count as skipped. Returns a note per link.
    fn leave_out_links(&mut self, b: &mut LogBuilder) -> Vec<crate::model::SourceNote> {
        let mut links: Vec<&Client> = self
            .connections
            .values()
            .map(|(c, _)| c)
            .filter(|c| c.signs.get().is_link())
            .collect();
        links.sort_by_key(|c| c.id);
        let syms: HashSet<Sym> = links.iter().filter_map(|c| c.sym.get()).collect();
        let file = self.file;
        let of_link =
            |e: &Event| e.source.file == file && e.host.is_some_and(|h| syms.contains(&h));
        let mut lines: BTreeSet<u32> = BTreeSet::new();
        let mut left_out = 0u64;
        let mut count = |e: &Event| {
            let link = of_link(e);
            if link {
                lines.insert(e.source.line);
                left_out += 1;
            }
            !link
        };
        if !syms.is_empty() {
            b.log.events.retain(&mut count);
            self.business.retain(&mut count);
        }
        for &line in &lines {
            self.event_lines.remove(line);
        }
        self.events -= left_out;
        links
            .iter()
            .map(|c| crate::model::SourceNote::ReplicaLink {
                client: c.name.to_string(),
                commands: u64::from(c.signs.get().commands),
            })
            .collect()
    }

    /// Which patterns `key` matches (globs run once per key).
    fn key_info(&mut self, key: &[u8]) -> KeyInfo {
        if let Some(k) = self.keys.get(key) {
            return *k;
        }
        let info = KeyInfo {
            lock: self.lock_glob.matches(key),
            stock: self.stock_glob.matches(key),
            order: self.order_glob.matches(key),
            noted: false,
            sym: None,
        };
        if self.keys.len() >= KEY_CACHE_MAX {
            self.keys.clear();
        }
        self.keys.insert(key.into(), info);
        info
    }

    fn is_lock(&mut self, key: &[u8]) -> bool {
        self.key_info(key).lock
    }

    /// The symbol of a key's text, interned at its first event and kept
    /// (interning the same text again gives the same symbol, so keeping it
    /// changes no symbol).
    fn key_sym(&mut self, b: &mut LogBuilder, key: &[u8]) -> Sym {
        match self.keys.get_mut(key) {
            Some(KeyInfo { sym: Some(sym), .. }) => *sym,
            Some(info) => {
                let sym = b.intern_bytes(key);
                info.sym = Some(sym);
                sym
            }
            None => b.intern_bytes(key),
        }
    }

    fn note_lock_key(&mut self, key: &[u8]) {
        if let Some(info) = self.keys.get_mut(key) {
            info.noted = true;
        }
        if !self.lock_keys.contains(key) {
            self.lock_keys.insert(key.to_vec());
        }
    }

    /// The client named `name` (registered on first sight) and its
    /// connection state.
    fn client(&mut self, name: &[u8]) -> (Client, &mut Connection) {
        let id = u32::try_from(self.connections.len()).unwrap_or(u32::MAX - 1);
        let (client, conn) = self.connections.entry_ref(name).or_insert_with(|| {
            (
                new_client(&String::from_utf8_lossy(name), id),
                Connection::default(),
            )
        });
        (Rc::clone(client), conn)
    }

    /// The lock keys seen in the capture so far.
    pub(super) fn lock_keys_held(&self) -> impl Iterator<Item = Vec<u8>> + '_ {
        self.lock_keys.iter().cloned()
    }

    /// A `SETNX` acquire (event `event`, at `at_ms`) of `client` on `key`
    /// whose TTL its next `EXPIRE` gives.
    pub(super) fn wait_for_expiry(&mut self, client: u32, key: &[u8], event: usize, at_ms: i64) {
        self.untimed
            .insert(ClientKey(client, key.to_vec()), (event, at_ms));
    }

    pub(super) fn set_last_token(&mut self, client: &Client, key: &[u8], token: &[u8]) {
        let chain = self.requests.chain(client);
        self.last_token.set(client.id, key, token, chain);
        self.requests.won(token);
        self.requests.acquired(client, token);
    }

    /// Who the current request of `client` says it is, for a delete of lock
    /// `key` that names no token (docs/semantics.md §8): the owner its
    /// chain named, else the token of its winning acquire of `key` while
    /// that still speaks for the connection
    /// ([`requests::Requests::acquire_holds`]). True beside it when the
    /// chain named it.
    pub(super) fn request_owner(&self, client: &ClientInfo, key: &[u8]) -> Option<(Vec<u8>, bool)> {
        if let Some(n) = self.requests.named(client) {
            return Some((n, true));
        }
        self.last_token
            .get(client.id, key)
            .filter(|(_, chain)| self.requests.acquire_holds(client, *chain))
            .map(|(t, _)| (t.clone(), false))
    }

    pub(super) fn new_event(
        &mut self,
        b: &mut LogBuilder,
        kind: EventKind,
        at_ns: i64,
        line: u32,
        client: &Client,
        key: &[u8],
    ) -> Event {
        let mut e = Event::new(
            at_ns,
            kind,
            SourceRef {
                file: self.file,
                line,
            },
        );
        e.inferred = true;
        e.host = Some(match client.sym.get() {
            Some(sym) => sym,
            None => {
                let sym = b.intern(&client.name);
                client.sym.set(Some(sym));
                sym
            }
        });
        e.key = Some(self.key_sym(b, key));
        e
    }

    pub(super) fn emit(&mut self, b: &mut LogBuilder, e: Event) {
        if let Some(s) = self.script.as_mut() {
            s.events.push(e);
        } else {
            self.event_lines.insert(e.source.line);
            self.events += 1;
            b.push(e);
        }
    }

    fn emit_business(&mut self, e: Event) {
        self.event_lines.insert(e.source.line);
        self.events += 1;
        self.business.push(e);
    }

    fn finish_script(&mut self, b: &mut LogBuilder) {
        let Some(mut s) = self.script.take() else {
            return;
        };
        if s.lua_lines == 0 {
            return; // NOSCRIPT: the script never ran.
        }
        let body_says = (s.id_is_body
            && !self.kinds.get(s.id.as_slice()).is_some_and(|k| k.body_read))
        .then(|| {
            let lower = s.id.to_ascii_lowercase();
            let has = |w: &[u8]| memchr::memmem::find(&lower, w).is_some();
            (
                has(b"'del'") || has(b"\"del\"") || has(b"unlink"),
                has(b"expire"),
            )
        });
        let kind = {
            let k = self.kinds.entry(std::mem::take(&mut s.id)).or_default();
            k.deletes |= s.deleted;
            k.expires |= s.expired;
            if let Some((deletes, expires)) = body_says {
                k.deletes |= deletes;
                k.expires |= expires;
                k.body_read = true;
            }
            *k
        };
        // Fold a TTL set later in the same script into its acquire.
        let mut events = std::mem::take(&mut s.events);
        let mut drop = vec![false; events.len()];
        for i in 0..events.len() {
            if events[i].kind != EventKind::Acquired || events[i].ttl_ms().is_some() {
                continue;
            }
            if let Some(j) = (i + 1..events.len())
                .find(|&j| events[j].kind == EventKind::Renewed && events[j].key == events[i].key)
            {
                let ttl = events[j].ttl_ms();
                events[i].set_ttl_ms(ttl);
                drop[j] = true;
            }
        }
        s.reads.sort_by(|a, b| a.0.cmp(&b.0));
        for (reads_key, (at_ns, line)) in &s.reads {
            if s.writes.contains(reads_key) {
                continue;
            }
            let kind_out = if s.pttl.contains(reads_key) {
                EventKind::AcquireFailed
            } else if kind.expires && !kind.deletes {
                continue; // a renewal script whose check failed
            } else {
                EventKind::ReleaseFailed
            };
            let mut e = self.new_event(b, kind_out, *at_ns, *line, &s.client, reads_key);
            let holder = s.holder_for(&[]);
            if !holder.is_empty() {
                e.holder = Some(b.intern_bytes(&holder));
            }
            events.push(e);
            drop.push(false);
        }
        for (e, d) in events.into_iter().zip(drop) {
            if !d {
                self.event_lines.insert(e.source.line);
                self.events += 1;
                b.push(e);
            }
        }
    }

    /// Parses and replays one raw line; true when it was malformed (a
    /// warning).
    pub(super) fn feed(
        &mut self,
        b: &mut LogBuilder,
        parser: &mut LineParser,
        raw: &[u8],
        line: u32,
    ) -> bool {
        self.connection_state(raw, line);
        match parser.parse(raw) {
            Ok(Some(cl)) => {
                let mut args = recycle(std::mem::take(&mut self.arg_list));
                args.extend(cl.args());
                self.line(b, &cl, &args, line);
                self.arg_list = recycle(args);
                false
            }
            Ok(None) => false,
            Err(reason) => {
                b.warn(&self.name, u64::from(line), reason);
                true
            }
        }
    }

    /// Follows redis-cli's own lines about its connection: `Error: Server
    /// closed the connection` opens a gap in the capture, `Could not connect
    /// to Redis at ...` says the server itself was down, and the `OK` of a
    /// new `monitor` closes the gap. A gap with the server down is a
    /// restart: without persistence its keyspace is empty after it, so the
    /// model forgets every key (a lock of before then vanished, and the
    /// next holder's acquire wins, as on the real server). A gap without is
    /// the MONITOR connection closed and opened again (Sentinel's `CLIENT
    /// KILL TYPE normal` when it reconfigures a server, or the network):
    /// commands in between are missing and the keyspace is kept. Each gap
    /// is a note (docs/semantics.md §8, "Gaps and restarts").
    fn connection_state(&mut self, raw: &[u8], line: u32) {
        let l = raw.trim_ascii();
        if l.starts_with(b"Error:") {
            self.gap.get_or_insert((line, false));
        } else if l.starts_with(super::line::CANNOT_CONNECT) {
            self.gap.get_or_insert((line, true)).1 = true;
        } else if l == b"OK"
            && let Some((from, restart)) = self.gap.take()
        {
            if restart {
                let proof = crate::model::VanishProof::Restarted {
                    from_line: u64::from(from),
                    to_line: u64::from(line),
                };
                let now_ms = self.last_at_ns.div_euclid(1_000_000);
                self.note_dropped_locks(now_ms, None, &proof, self.last_at_ns);
                self.keyspace.flush_all();
            }
            self.gaps.push(crate::model::SourceNote::CaptureGap {
                from_line: u64::from(from),
                to_line: u64::from(line),
                restart,
            });
        }
    }

    fn line(&mut self, b: &mut LogBuilder, cl: &CommandLine<'_>, all: &[&[u8]], line: u32) {
        let Some((&cmd, args)) = all.split_first() else {
            return;
        };
        if cl.is_lua() {
            let client = self
                .script
                .as_ref()
                .map_or_else(|| self.lua.clone(), |s| s.client.clone());
            if let Some(s) = self.script.as_mut() {
                s.lua_lines += 1;
            }
            self.lua_commands += 1;
            self.exec(
                b,
                cl.at_ns,
                line,
                &client,
                cl.db,
                cmd,
                &UppercaseName::new(cmd),
                args,
            );
            return;
        }
        self.finish_script(b);
        let up = UppercaseName::new(cmd);
        let c = up.as_bytes();
        let (client, conn) = self.client(cl.client);
        let mut signs = client.signs.get();
        signs.observe(cmd, c, args);
        client.signs.set(signs);
        match conn.step_upper(cmd, &up, args) {
            Step::Run => {
                // The line names the database the command ran in.
                let db = cl.db;
                if matches!(c, b"EVAL" | b"EVALSHA" | b"EVAL_RO" | b"EVALSHA_RO") {
                    self.requests.touch(&client, cl.at_ns);
                    self.requests.restart(&client);
                    self.script = Some(start_script(&client, c, args));
                }
                self.exec(b, cl.at_ns, line, &client, db, cmd, &up, args);
            }
            Step::Exec(q) => {
                let db = cl.db;
                for full in q {
                    if let Some((qc, qa)) = full.split_first() {
                        let qa: Vec<&[u8]> = qa.iter().map(Vec::as_slice).collect();
                        let queued = UppercaseName::new(qc);
                        self.exec(b, cl.at_ns, line, &client, db, qc, &queued, &qa);
                    }
                }
            }
            Step::Queued | Step::Handled => {
                self.commands += 1;
            }
        }
    }

    /// What the rules of [`Replay::exec`] need of the keys before command
    /// `c` runs (the keyspace is already expired to `now_ms`, so looking
    /// changes nothing): a lock key's value for the commands that create or
    /// delete one (`lock`), a stock key's number for the ones that change it
    /// (`stock`), and for a delete (`del`) the other lock keys it names with
    /// their values.
    fn before_command<'a>(
        &mut self,
        now_ms: i64,
        db: u32,
        c: &[u8],
        args: &[&'a [u8]],
        (lock, stock, del): (bool, bool, bool),
    ) -> Before<'a> {
        let mut before = None;
        let mut stock_before = None;
        if let Some(&k) = args.first() {
            if lock && NEEDS_LOCK_BEFORE.contains(&c) {
                before = self
                    .keyspace
                    .get_live(now_ms, db, k)
                    .map(|e| e.value.lock_view());
            } else if stock && NEEDS_STOCK_BEFORE.contains(&c) {
                stock_before = self
                    .keyspace
                    .get_live(now_ms, db, k)
                    .and_then(|e| e.value.as_int());
            }
        }
        let mut other_locks: Vec<(&[u8], Option<Value>)> = Vec::new();
        if del {
            for &k in args.iter().skip(1) {
                if self.is_lock(k) {
                    let v = self
                        .keyspace
                        .get_live(now_ms, db, k)
                        .map(|e| e.value.lock_view());
                    other_locks.push((k, v));
                }
            }
        }
        Before {
            lock: before,
            stock: stock_before,
            other_locks,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn exec(
        &mut self,
        b: &mut LogBuilder,
        at_ns: i64,
        line: u32,
        client: &Client,
        db: u32,
        cmd: &[u8],
        up: &UppercaseName,
        args: &[&[u8]],
    ) {
        self.commands += 1;
        let now_ms = at_ns.div_euclid(1_000_000);
        self.keyspace.expire_due(now_ms);
        self.last_at_ns = at_ns;
        let c = up.as_bytes();
        let command = Cmd {
            at_ns,
            line,
            client,
            db,
            name: c,
            args,
        };
        let key = args.first().copied();
        let info = key.map(|k| self.key_info(k));
        let lock0 = info.is_some_and(|i| i.lock);
        let stock0 = !lock0 && info.is_some_and(|i| i.stock);
        let del = matches!(c, b"DEL" | b"UNLINK");
        if lock0 {
            self.vanish_before(b, &command);
        } else if matches!(c, b"FLUSHDB" | b"FLUSHALL") {
            let proof = crate::model::VanishProof::Dropped {
                command: lossy(c),
                client: client.name.to_string(),
                line: u64::from(line),
            };
            let flushed = (c == b"FLUSHDB").then_some(db);
            self.note_dropped_locks(now_ms, flushed, &proof, at_ns);
        }
        // Not a script's line, nor a module's own call (Tair's `CAS`/`CAD`
        // show their internal `GET` from client `?:0`).
        let direct = self.script.is_none() && !client.name.starts_with('?');
        if direct {
            self.requests.touch(client, at_ns);
        }
        let Before {
            lock: before0,
            stock: stock_before,
            other_locks,
        } = self.before_command(now_ms, db, c, args, (lock0, stock0, del));
        // Only a lock key's plain `SET` compares the old value (a renewal).
        let want_old = lock0
            && !args
                .get(2..)
                .is_some_and(|o| o.iter().any(|o| o.eq_ignore_ascii_case(b"NX")));
        let out = self
            .keyspace
            .apply_upper(now_ms, db, cmd, up, args, want_old);
        if matches!(out, Outcome::Unknown) {
            *self
                .unknown
                .entry(lossy(&cmd.to_ascii_uppercase()))
                .or_insert(0) += 1;
            return;
        }
        if matches!(out, Outcome::Error(_)) {
            return;
        }
        let Some(key) = key else {
            return;
        };
        let order = matches!(c, b"RPUSH" | b"LPUSH") && info.is_some_and(|i| i.order);
        if lock0 {
            if !info.is_some_and(|i| i.noted) {
                self.note_lock_key(key);
            }
            if direct {
                self.request_starts(client, c, args);
            }
            self.lock_cmd(b, &command, before0, &out);
        } else if stock0 {
            self.stock_cmd(b, &command, stock_before, &out);
        } else if order {
            self.order_cmd(b, at_ns, line, client, args);
        }
        let deleted_lock = lock0 || !other_locks.is_empty();
        // Other keys a multi-key DEL names.
        for (k, v) in other_locks {
            self.note_lock_key(k);
            self.lock_removed(b, at_ns, line, client, k, v.as_ref());
        }
        if direct {
            self.request_names(client, c, args, lock0, deleted_lock && del, order, &out);
        }
    }

    /// Before a lock command runs: an acquire attempt (`SET ... NX`,
    /// `SETNX`, `EXSET ... NX`) starts a new request chain on its
    /// connection; another write of a token (a renewal by `SET`, `EXSET`,
    /// `GETSET`, `CAS`, `EXCAS`) names it. Either way a token first sent on
    /// another connection shows a pooled client.
    fn request_starts(&mut self, client: &Client, c: &[u8], args: &[&[u8]]) {
        let nx = || {
            args.get(2..)
                .is_some_and(|o| o.iter().any(|o| o.eq_ignore_ascii_case(b"NX")))
        };
        let (token, acquire) = match c {
            b"SETNX" => (args.get(1), true),
            b"SET" | b"EXSET" => (args.get(1), nx()),
            b"GETSET" | b"EXCAS" => (args.get(1), false),
            b"CAS" => (args.get(2), false),
            _ => (None, false),
        };
        match (token, acquire) {
            (Some(t), true) => {
                self.requests.restart(client);
                self.requests.sent(client.id, t);
            }
            (Some(t), false) => self.requests.name(client, t),
            (None, _) => {}
        }
    }

    /// After a command of a connection (not a script's line): what it says
    /// about the connection's request. A read of a lock key names the holder
    /// it read; a delete of a lock ends the request; an argument equal to a
    /// token that won a lock names that token (orders name their owner in
    /// [`Replay::order_cmd`]).
    #[allow(clippy::too_many_arguments)]
    fn request_names(
        &mut self,
        client: &Client,
        c: &[u8],
        args: &[&[u8]],
        lock: bool,
        deleted_lock: bool,
        order: bool,
        out: &Outcome,
    ) {
        // A compare-and-delete that deleted nothing may be retried (with
        // the right version): the request goes on.
        let removed = match c {
            b"GETDEL" => true,
            b"CAD" | b"EXCAD" => *out == Outcome::Int(1),
            _ => false,
        };
        if deleted_lock || (lock && removed) {
            self.requests.restart(client);
        } else if lock && matches!(c, b"GET" | b"EXGET") {
            let read = match out {
                Outcome::Bulk(v) => Some(v),
                Outcome::Array(a) => match a.first() {
                    Some(Outcome::Bulk(v)) => Some(v),
                    _ => None,
                },
                _ => None,
            };
            if let Some(v) = read {
                let v = v.clone();
                self.requests.name(client, &v);
            }
        } else if !lock && !order {
            self.requests
                .name_known_token(client, args.get(1..).unwrap_or(&[]));
        }
    }

    /// Inside a script: `c` on lock key `key` noted for the script's
    /// reading (a write or a read of the key, a `PTTL`, a delete, an
    /// expiry set).
    fn note_script_access(&mut self, c: &[u8], key: &[u8], at_ns: i64, line: u32) {
        let Some(s) = self.script.as_mut() else {
            return;
        };
        let is_write = !matches!(
            c,
            b"GET" | b"EXGET" | b"EXISTS" | b"HEXISTS" | b"HGET" | b"TTL" | b"PTTL" | b"HGETALL"
        );
        if is_write {
            note_key(&mut s.writes, key);
        } else if !s.reads.iter().any(|(k, _)| k == key) {
            s.reads.push((key.to_vec(), (at_ns, line)));
        }
        if c == b"PTTL" || c == b"TTL" {
            note_key(&mut s.pttl, key);
        }
        if matches!(c, b"DEL" | b"UNLINK" | b"GETDEL" | b"CAD" | b"EXCAD") {
            s.deleted = true;
        }
        if c.ends_with(b"EXPIRE") || c.ends_with(b"EXPIREAT") {
            s.expired = true;
        }
    }

    /// The ms left before `key`'s deadline in database `db` at `now_ms`.
    fn ttl_left(&mut self, now_ms: i64, db: u32, key: &[u8]) -> Option<i64> {
        self.keyspace
            .get_live(now_ms, db, key)
            .and_then(|e| e.deadline_ms)
            .map(|d| d - now_ms)
    }

    /// `SET`/`EXSET` on a lock key: with `NX` an acquire or a failed one;
    /// without, a renewal when the old value is the token, else an acquire;
    /// a version an `EXSET` rejected is a rejected write.
    fn set_cmd(&mut self, b: &mut LogBuilder, cmd: &Cmd<'_>, out: &Outcome) {
        let (at_ns, line, client, db, _, args) = cmd.parts();
        let key = args[0];
        let Some(&token) = args.get(1) else {
            return;
        };
        let nx = args[2..].iter().any(|o| o.eq_ignore_ascii_case(b"NX"));
        if let Outcome::Stale { .. } = out {
            let e = self.version_rejected(b, cmd, Some(token));
            self.emit(b, e);
            return;
        }
        let Outcome::Set { written, old } = out else {
            return;
        };
        let kind = match (nx, *written) {
            (true, true) => EventKind::Acquired,
            (true, false) => EventKind::AcquireFailed,
            (false, true) if old.as_deref() == Some(token) => EventKind::Renewed,
            (false, true) => EventKind::Acquired,
            (false, false) => return,
        };
        if kind == EventKind::AcquireFailed {
            self.note_doubt(cmd, token, b.log.events.len());
        }
        let mut e = self.new_event(b, kind, at_ns, line, client, key);
        e.holder = Some(b.intern_bytes(token));
        if kind != EventKind::AcquireFailed {
            e.set_ttl_ms(self.ttl_left(at_ns.div_euclid(1_000_000), db, key));
        }
        if kind == EventKind::Acquired {
            self.set_last_token(client, key, token);
            self.vanish.saw(key, at_ns, line);
        }
        self.emit(b, e);
    }

    /// An expiry set on a lock key (`EXPIRE`, `PEXPIRE`, `EXPIREAT`,
    /// `PEXPIREAT`): the TTL of this client's own `SETNX` just before (the
    /// lease runs from the acquire to the server's deadline), else a
    /// renewal by the key's holder.
    fn expire_cmd(&mut self, b: &mut LogBuilder, cmd: &Cmd<'_>, out: &Outcome) {
        let (at_ns, line, client, db, _, args) = cmd.parts();
        let key = args[0];
        let now_ms = at_ns.div_euclid(1_000_000);
        if *out != Outcome::Int(1) {
            return;
        }
        let Some(v) = self
            .keyspace
            .get_live(now_ms, db, key)
            .map(|e| e.value.lock_view())
        else {
            return; // a deadline in the past deleted it
        };
        let holder = token_of(&v).map(|t| b.intern_bytes(&t));
        if !self.untimed.is_empty()
            && let Some((at, acquired_ms)) = self.untimed.remove(&ClientKeyRef(client.id, key))
            && let Some(ev) = b.log.events.get_mut(at)
            && ev.holder.is_some()
            && ev.holder == holder
            && let Some(left) = self.ttl_left(now_ms, db, key)
        {
            ev.set_ttl_ms(Some(now_ms - acquired_ms + left));
            return;
        }
        let mut e = self.new_event(b, EventKind::Renewed, at_ns, line, client, key);
        e.holder = holder;
        e.set_ttl_ms(self.ttl_left(now_ms, db, key));
        self.emit(b, e);
    }

    fn lock_cmd(
        &mut self,
        b: &mut LogBuilder,
        cmd: &Cmd<'_>,
        before: Option<Value>,
        out: &Outcome,
    ) {
        let (at_ns, line, client, db, c, args) = cmd.parts();
        let key = args[0];
        let now_ms = at_ns.div_euclid(1_000_000);
        let in_script = self.script.is_some();
        self.note_script_access(c, key, at_ns, line);
        match c {
            b"SET" | b"EXSET" => self.set_cmd(b, cmd, out),
            b"SETNX" | b"GETSET" => {
                let Some(&token) = args.get(1) else {
                    return;
                };
                let kind = match (c, out) {
                    (b"SETNX", Outcome::Int(1)) => EventKind::Acquired,
                    (b"SETNX", _) => EventKind::AcquireFailed,
                    (_, Outcome::Bulk(old)) if old.as_slice() == token => EventKind::Renewed,
                    _ => EventKind::Acquired,
                };
                if kind == EventKind::AcquireFailed && c == b"SETNX" {
                    self.note_doubt(cmd, token, b.log.events.len());
                }
                let mut e = self.new_event(b, kind, at_ns, line, client, key);
                e.holder = Some(b.intern_bytes(token));
                if kind == EventKind::Acquired {
                    self.set_last_token(client, key, token);
                    self.vanish.saw(key, at_ns, line);
                    if c == b"SETNX" && !in_script {
                        self.untimed.insert(
                            ClientKey(client.id, key.to_vec()),
                            (b.log.events.len(), now_ms),
                        );
                    }
                }
                self.emit(b, e);
            }
            b"HSET" | b"HINCRBY" => {
                if before.is_none()
                    && let Some(&field) = args.get(1)
                {
                    let mut e = self.new_event(b, EventKind::Acquired, at_ns, line, client, key);
                    e.holder = Some(b.intern_bytes(field));
                    e.set_ttl_ms(self.ttl_left(now_ms, db, key));
                    self.set_last_token(client, key, field);
                    self.emit(b, e);
                }
            }
            b"EXPIRE" | b"PEXPIRE" | b"EXPIREAT" | b"PEXPIREAT" => self.expire_cmd(b, cmd, out),
            b"DEL" | b"UNLINK" | b"GETDEL" | b"HDEL" => {
                let gone = self.keyspace.get_live(now_ms, db, key).is_none();
                if c == b"HDEL" && !(gone && before.is_some()) {
                    return;
                }
                if !in_script || before.is_some() {
                    self.lock_removed(b, at_ns, line, client, key, before.as_ref());
                }
            }
            _ => self.tair_lock_cmd(b, cmd, before.as_ref(), out),
        }
    }

    /// A delete of lock `key` that held `before` (None: nothing to delete).
    pub(super) fn lock_removed(
        &mut self,
        b: &mut LogBuilder,
        at_ns: i64,
        line: u32,
        client: &Client,
        key: &[u8],
        before: Option<&Value>,
    ) {
        let token = before.and_then(token_of);
        // Nothing deleted by a plain DEL: only worth an event when the
        // connection's request says who sent it.
        let (releaser, guessed) = match (&self.script, &token) {
            (Some(s), Some(t)) => (Some(s.holder_for(t)), false),
            (Some(_), None) => (None, false),
            (None, _) => match self.request_owner(client, key) {
                Some((owner, named)) => {
                    self.requests.by_request += u64::from(named);
                    (Some(owner), false)
                }
                None => (token.clone(), token.is_some()),
            },
        };
        let Some(holder) = releaser else {
            return;
        };
        let mut e = self.new_event(b, EventKind::Released, at_ns, line, client, key);
        e.holder = Some(b.intern_bytes(&holder));
        e.update_detail(|d| d.deleted = Some(token.is_some()));
        if guessed {
            e.set_holder_guessed(true);
            self.requests.guessed += 1;
        }
        if token.as_ref() == Some(&holder) {
            self.last_token.forget(&holder);
        }
        self.emit(b, e);
    }

    /// A command on stock key `args[0]`, which held `prev` before it
    /// (`None` when absent): `GET` a read, `SET` an initialisation (key
    /// absent) or a deduction, `DECR`/`DECRBY`/`INCR`/`INCRBY` a deduction
    /// when they lower the stock (a missing key counts as 0, as Redis does,
    /// once the capture has seen the key written; before, the levels are
    /// unknown: [`StockSeen::Unleveled`]); Tair's commands in
    /// [`Replay::tair_stock_event`].
    fn stock_cmd(&mut self, b: &mut LogBuilder, cmd: &Cmd<'_>, prev: Option<i64>, out: &Outcome) {
        let key = cmd.args[0];
        let known = self.stock_known.contains(key);
        let seen = match (cmd.name, out) {
            (b"GET", Outcome::Bulk(v)) if known => parse_i64(v).map(StockSeen::Read),
            (b"SET", Outcome::Set { written: true, .. }) => {
                if !known {
                    self.stock_known.insert(key.to_vec());
                }
                cmd.args
                    .get(1)
                    .and_then(|v| parse_i64(v))
                    .map(|n| match prev {
                        Some(_) if known => StockSeen::Write {
                            prev,
                            after: n,
                            set_like: true,
                        },
                        // Absent, or first seen: the level the capture
                        // learns, whatever the server held before.
                        _ => StockSeen::Init(n),
                    })
            }
            (b"DECR" | b"DECRBY" | b"INCRBY" | b"INCR", Outcome::Int(after)) if known => {
                Some(StockSeen::Write {
                    prev: Some(prev.unwrap_or(0)),
                    after: *after,
                    set_like: false,
                })
            }
            (b"DECR" | b"DECRBY" | b"INCRBY" | b"INCR", Outcome::Int(_)) => {
                lowered_by(cmd.name, cmd.args.get(1).copied())
                    .filter(|&q| q > 0)
                    .map(|quantity| StockSeen::Unleveled { quantity })
            }
            (b"GET" | b"SET" | b"DECR" | b"DECRBY" | b"INCRBY" | b"INCR", _) => None,
            _ => {
                let Some(e) = self.tair_stock_event(b, cmd, prev, out) else {
                    return;
                };
                self.emit_stock(b, e, key);
                return;
            }
        };
        if let Some(e) = seen.and_then(|s| self.stock_event(b, cmd, s)) {
            self.emit_stock(b, e, key);
        }
    }

    /// Emits stock event `e` of stock key `key` as a business event of the
    /// product the key names.
    fn emit_stock(&mut self, b: &mut LogBuilder, mut e: Event, key: &[u8]) {
        e.key = None;
        let product = b.intern(&product_of(&String::from_utf8_lossy(key), STOCK_WORDS));
        e.update_detail(|d| d.product = Some(product));
        self.emit_business(e);
    }

    /// The stock event of `cmd`'s key for what the command did to it: a read,
    /// an initialisation, or a write that is a deduction unless it is an
    /// increment that does not lower the stock (a restock: `None`). A write
    /// of a new value (`set_like`) is a read-modify-write: a deduction even
    /// when it does not lower the stock (then a lost update, no quantity).
    pub(super) fn stock_event(
        &mut self,
        b: &mut LogBuilder,
        cmd: &Cmd<'_>,
        seen: StockSeen,
    ) -> Option<Event> {
        let (at_ns, line, client, key) = (cmd.at_ns, cmd.line, cmd.client, cmd.args[0]);
        let (kind, stock) = match seen {
            StockSeen::Read(n) => (EventKind::StockRead, n),
            StockSeen::Init(n) => (EventKind::StockInitialized, n),
            StockSeen::Write {
                prev,
                after,
                set_like,
            } => {
                if !set_like && prev.is_none_or(|p| after >= p) {
                    return None;
                }
                let mut e = self.new_event(b, EventKind::StockDeducted, at_ns, line, client, key);
                e.update_detail(|d| {
                    d.stock_before = prev;
                    d.stock_after = Some(after);
                    d.quantity = prev.map(|p| p - after).filter(|&q| q > 0);
                });
                return Some(e);
            }
            StockSeen::Unleveled { quantity } => {
                let mut e = self.new_event(b, EventKind::StockDeducted, at_ns, line, client, key);
                e.update_detail(|d| d.quantity = Some(quantity));
                return Some(e);
            }
        };
        let mut e = self.new_event(b, kind, at_ns, line, client, key);
        e.update_detail(|d| d.stock = Some(stock));
        Some(e)
    }

    fn order_cmd(
        &mut self,
        b: &mut LogBuilder,
        at_ns: i64,
        line: u32,
        client: &Client,
        args: &[&[u8]],
    ) {
        let key = args[0];
        let key_text = String::from_utf8_lossy(key);
        let product = product_of(&key_text, ORDER_WORDS);
        for elem in &args[1..] {
            let mut e = self.new_event(b, EventKind::OrderCreated, at_ns, line, client, key);
            e.key = None;
            let order = Order::read(elem);
            if let Some(o) = order.owner {
                e.holder = Some(b.intern(&o));
                if self.script.is_none() && !client.name.starts_with('?') {
                    self.requests.name(client, o.as_bytes());
                }
            }
            let order_sym: Option<Sym> = order.order_id.map(|o| b.intern(&o));
            let product_sym = b.intern(&product);
            e.update_detail(|d| {
                d.quantity = Some(order.quantity);
                d.order_id = order_sym;
                d.unit_price = order.unit_price;
                d.product = Some(product_sym);
            });
            self.emit_business(e);
        }
    }

    /// Ties business events to the lock key of their product and pushes them.
    fn flush_business(&mut self, b: &mut LogBuilder) {
        let lock_keys: BTreeSet<String> = self.lock_keys.iter().map(|k| lossy(k)).collect();
        // Of two lock keys of one product, the shorter: Redisson publishes
        // on `redisson_lock__channel:{lock:sku:1}`, whose product is the
        // lock's (else the deductions are tied to the channel, and the
        // incident has none).
        let mut by_product: HashMap<String, &str> = HashMap::new();
        for k in &lock_keys {
            let tie = product_tie(&product_of(k, LOCK_WORDS));
            let held = by_product.entry(tie).or_insert(k.as_str());
            if k.len() < held.len() {
                *held = k.as_str();
            }
        }
        // product → its lock key, interned at the product's first event.
        let mut tied: HashMap<Option<Sym>, Option<Sym>> = HashMap::new();
        for mut e in std::mem::take(&mut self.business) {
            let product = e.detail().product;
            let key = match tied.get(&product) {
                Some(&k) => k,
                None => {
                    let p = b.log.strings.get_or_empty(product).to_string();
                    let lock = by_product.get(&product_tie(&p)).copied().or_else(|| {
                        lock_keys
                            .iter()
                            .find(|k| k.contains(p.as_str()))
                            .map(String::as_str)
                    });
                    let k = lock.map(|k| b.intern(k));
                    tied.insert(product, k);
                    k
                }
            };
            e.key = key;
            b.push(e);
        }
    }
}

fn start_script(client: &Client, c: &[u8], args: &[&[u8]]) -> Script {
    let numkeys = args
        .get(1)
        .and_then(|n| parse_i64(n))
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0);
    let argv = args
        .get(2 + numkeys..)
        .unwrap_or(&[])
        .iter()
        .map(|a| a.to_vec())
        .collect();
    Script {
        client: client.clone(),
        id: args.first().map(|a| a.to_vec()).unwrap_or_default(),
        id_is_body: c == b"EVAL" || c == b"EVAL_RO",
        argv,
        lua_lines: 0,
        reads: Vec::new(),
        writes: Vec::new(),
        pttl: Vec::new(),
        deleted: false,
        expired: false,
        events: Vec::new(),
    }
}

/// How much an increment command lowers a level: `DECR` 1, `DECRBY n` n,
/// `INCRBY n` -n, `INCR` -1; `None` when its argument is no integer.
fn lowered_by(name: &[u8], arg: Option<&[u8]>) -> Option<i64> {
    match name {
        b"DECR" => Some(1),
        b"INCR" => Some(-1),
        b"DECRBY" => parse_i64(arg?),
        b"INCRBY" => parse_i64(arg?).and_then(i64::checked_neg),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{replay, summary};

    #[test]
    fn an_order_lists_product_is_its_key_without_the_list_name() {
        use super::super::{ORDER_WORDS, product_of};
        let order = |k| product_of(k, ORDER_WORDS);
        assert_eq!(order("orders:product:1001"), "product:1001");
        assert_eq!(order("product:7:orders"), "product:7");
        assert_eq!(order("shop:Order_List:sku-9"), "shop:sku-9");
        assert_eq!(order("orders"), "orders");
    }
    use super::*;

    #[test]
    fn set_nx_wins_loses_and_wins_after_expiry() {
        let (log, info) = replay(concat!(
            "OK\n",
            "1000.000000 [0 c:1] \"SET\" \"lock:k\" \"A\" \"NX\" \"PX\" \"100\"\n",
            "1000.050000 [0 c:2] \"SET\" \"lock:k\" \"B\" \"NX\" \"PX\" \"100\"\n",
            "1000.100999 [0 c:2] \"set\" \"lock:k\" \"B\" \"nx\" \"px\" \"100\"\n",
            "1000.101000 [0 c:2] \"SET\" \"lock:k\" \"B\" \"NX\" \"PX\" \"100\"\n",
            "Error: Server closed the connection\n",
        ));
        assert_eq!(
            summary(&log),
            vec![
                (EventKind::Acquired, "A".into(), Some(100), 2),
                (EventKind::AcquireFailed, "B".into(), None, 3),
                (EventKind::AcquireFailed, "B".into(), None, 4),
                (EventKind::Acquired, "B".into(), Some(100), 5),
            ]
        );
        assert!(log.events.iter().all(|e| e.inferred));
        assert_eq!(log.strings.get_or_empty(log.events[0].host), "c:1");
        assert_eq!(log.warnings.total(), 0);
        assert_eq!(info.lines_read, 6);
        assert_eq!(info.events_loaded, 4);
        assert_eq!(info.lines_skipped, 2);
    }

    const RELEASE_SHA: &str = "\"EVALSHA\" \"c3f8\" \"1\" \"lock:k\"";

    #[test]
    fn lua_compare_and_delete_release_and_failed_release() {
        let text = format!(
            "1.000 [0 c:1] \"SET\" \"lock:k\" \"A\" \"NX\" \"PX\" \"50\"\n\
             1.010 [0 c:9] {RELEASE_SHA} \"A\"\n\
             1.010 [0 lua] \"get\" \"lock:k\"\n\
             1.011 [0 lua] \"del\" \"lock:k\"\n\
             1.020 [0 c:1] \"SET\" \"lock:k\" \"B\" \"NX\" \"PX\" \"50\"\n\
             1.200 [0 c:1] {RELEASE_SHA} \"B\"\n\
             1.200 [0 lua] \"get\" \"lock:k\"\n"
        );
        let (log, _) = replay(&text);
        assert_eq!(
            summary(&log),
            vec![
                (EventKind::Acquired, "A".into(), Some(50), 1),
                (EventKind::Released, "A".into(), None, 4),
                (EventKind::Acquired, "B".into(), Some(50), 5),
                (EventKind::ReleaseFailed, "B".into(), None, 7),
            ]
        );
        // The release is attributed to the client that ran the script.
        assert_eq!(log.strings.get_or_empty(log.events[1].host), "c:9");
    }

    #[test]
    fn noscript_evalsha_derives_nothing() {
        let text = format!(
            "1.000 [0 c:1] \"SET\" \"lock:k\" \"A\" \"NX\" \"PX\" \"50\"\n\
             1.010 [0 c:1] {RELEASE_SHA} \"A\"\n\
             1.011 [0 c:1] \"SCRIPT\" \"LOAD\" \"return 1\"\n"
        );
        let (log, info) = replay(&text);
        assert_eq!(log.events.len(), 1);
        assert!(
            !info
                .notes
                .iter()
                .map(ToString::to_string)
                .any(|n| n.contains("unknown"))
        );
    }

    #[test]
    fn foreign_release_by_script_and_by_plain_del() {
        // A's lease expires, B acquires, A's script deletes B's key.
        let text = "1.000 [0 c:1] \"SET\" \"lock:k\" \"A\" \"NX\" \"PX\" \"10\"\n\
             1.020 [0 c:2] \"SET\" \"lock:k\" \"B\" \"NX\" \"PX\" \"1000\"\n\
             1.030 [0 c:1] \"EVAL\" \"redis.call('del', KEYS[1])\" \"1\" \"lock:k\" \"A\"\n\
             1.030 [0 lua] \"del\" \"lock:k\"\n\
             1.040 [0 c:3] \"SET\" \"lock:k\" \"C\" \"NX\" \"PX\" \"1000\"\n\
             1.050 [0 c:2] \"DEL\" \"lock:k\"\n";
        let (log, _) = replay(text);
        assert_eq!(
            summary(&log),
            vec![
                (EventKind::Acquired, "A".into(), Some(10), 1),
                (EventKind::Acquired, "B".into(), Some(1000), 2),
                (EventKind::Released, "A".into(), None, 4),
                (EventKind::Acquired, "C".into(), Some(1000), 5),
                (EventKind::Released, "B".into(), None, 6),
            ]
        );
        assert!(
            log.events
                .iter()
                .filter(|e| e.kind == EventKind::Released)
                .all(|e| e.detail().deleted == Some(true))
        );
    }

    #[test]
    fn setnx_then_expire_and_renewals() {
        let text = "1.000 [0 c:1] \"SETNX\" \"lock:k\" \"A\"\n\
             1.001 [0 c:1] \"PEXPIRE\" \"lock:k\" \"300\"\n\
             1.100 [0 c:1] \"SET\" \"lock:k\" \"A\" \"XX\" \"PX\" \"500\"\n\
             1.200 [0 c:2] \"SETNX\" \"lock:k\" \"B\"\n\
             1.250 [0 c:1] \"EXPIRE\" \"lock:k\" \"2\"\n";
        let (log, _) = replay(text);
        assert_eq!(
            summary(&log),
            vec![
                // The PEXPIRE right after the client's own SETNX is the
                // acquire's TTL, from the SETNX to the deadline: 1 + 300 ms.
                (EventKind::Acquired, "A".into(), Some(301), 1),
                (EventKind::Renewed, "A".into(), Some(500), 3),
                (EventKind::AcquireFailed, "B".into(), None, 4),
                (EventKind::Renewed, "A".into(), Some(2000), 5),
            ]
        );
    }

    #[test]
    fn redisson_hash_lock_acquire_folds_ttl_and_unlock() {
        let text = "1.000 [0 c:1] \"EVAL\" \"if (redis.call('exists', KEYS[1]) == 0) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);\" \"1\" \"lock:k\" \"30000\" \"u1:1\"\n\
             1.000 [0 lua] \"exists\" \"lock:k\"\n\
             1.000 [0 lua] \"hincrby\" \"lock:k\" \"u1:1\" \"1\"\n\
             1.000 [0 lua] \"pexpire\" \"lock:k\" \"30000\"\n\
             1.100 [0 c:2] \"EVAL\" \"if (redis.call('exists', KEYS[1]) == 0) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);\" \"1\" \"lock:k\" \"30000\" \"u2:1\"\n\
             1.100 [0 lua] \"exists\" \"lock:k\"\n\
             1.100 [0 lua] \"pttl\" \"lock:k\"\n\
             1.200 [0 c:1] \"EVAL\" \"unlock\" \"2\" \"lock:k\" \"chan\" \"0\" \"30000\" \"u1:1\"\n\
             1.200 [0 lua] \"hexists\" \"lock:k\" \"u1:1\"\n\
             1.200 [0 lua] \"hincrby\" \"lock:k\" \"u1:1\" \"-1\"\n\
             1.200 [0 lua] \"del\" \"lock:k\"\n\
             1.200 [0 lua] \"publish\" \"chan\" \"0\"\n";
        let (log, _) = replay(text);
        assert_eq!(
            summary(&log),
            vec![
                (EventKind::Acquired, "u1:1".into(), Some(30000), 3),
                (EventKind::AcquireFailed, "u2:1".into(), None, 6),
                (EventKind::Released, "u1:1".into(), None, 11),
            ]
        );
    }

    #[test]
    fn multi_exec_and_select_per_client() {
        let text = "1.000 [0 c:1] \"SELECT\" \"1\"\n\
             1.000 [1 c:1] \"MULTI\"\n\
             1.001 [1 c:1] \"SET\" \"lock:k\" \"A\" \"NX\" \"PX\" \"100\"\n\
             1.002 [0 c:2] \"SET\" \"lock:k\" \"B\" \"NX\" \"PX\" \"100\"\n\
             1.003 [1 c:1] \"EXEC\"\n\
             1.004 [0 c:3] \"SET\" \"lock:k\" \"C\" \"NX\" \"PX\" \"100\"\n";
        let (log, _) = replay(text);
        // A is in db 1, B in db 0: both win; C loses in db 0.
        assert_eq!(
            summary(&log),
            vec![
                (EventKind::Acquired, "B".into(), Some(100), 4),
                (EventKind::Acquired, "A".into(), Some(100), 5),
                (EventKind::AcquireFailed, "C".into(), None, 6),
            ]
        );
    }

    #[test]
    fn a_stock_key_never_written_in_the_capture_has_unknown_levels() {
        // The capture began after the stock was set: the server's value is
        // unknown, not the model's "missing key is 0".
        let text = "1.000 [0 c:1] \"GET\" \"product:7:stock\"\n\
             1.001 [0 c:1] \"DECRBY\" \"product:7:stock\" \"2\"\n\
             1.002 [0 c:1] \"GET\" \"product:7:stock\"\n\
             1.003 [0 c:1] \"INCRBY\" \"product:7:stock\" \"-3\"\n\
             1.004 [0 c:1] \"INCR\" \"product:7:stock\"\n\
             1.005 [0 c:1] \"SET\" \"product:7:stock\" \"10\"\n\
             1.006 [0 c:1] \"DECR\" \"product:7:stock\"\n";
        let (log, _) = replay(text);
        let seen: Vec<_> = log
            .events
            .iter()
            .map(|e| {
                let d = e.detail();
                (e.kind, d.quantity, d.stock_before, d.stock_after, d.stock)
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                (EventKind::StockDeducted, Some(2), None, None, None),
                (EventKind::StockDeducted, Some(3), None, None, None),
                (EventKind::StockInitialized, None, None, None, Some(10)),
                (EventKind::StockDeducted, Some(1), Some(10), Some(9), None),
            ]
        );
    }

    #[test]
    fn stock_and_orders_tie_to_the_lock_key() {
        let text = "1.000 [0 c:1] \"SET\" \"product:7:stock\" \"3\"\n\
             1.001 [0 c:1] \"SET\" \"product:7:lock\" \"A\" \"NX\" \"PX\" \"100\"\n\
             1.002 [0 c:1] \"GET\" \"product:7:stock\"\n\
             1.003 [0 c:1] \"SET\" \"product:7:stock\" \"2\"\n\
             1.004 [0 c:1] \"DECRBY\" \"product:7:stock\" \"2\"\n\
             1.005 [0 c:1] \"RPUSH\" \"product:7:orders\" \"{\\\"order_id\\\": \\\"O1\\\", \\\"qty\\\": 2, \\\"lock_owner\\\": \\\"A\\\"}\" \"plain\"\n\
             1.006 [0 c:1] \"FROB\" \"x\"\n\
             1.007 [0 c:1] \"FROB\" \"y\"\n";
        let (log, info) = replay(text);
        let kinds: Vec<EventKind> = log.events.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            vec![
                EventKind::StockInitialized,
                EventKind::Acquired,
                EventKind::StockRead,
                EventKind::StockDeducted,
                EventKind::StockDeducted,
                EventKind::OrderCreated,
                EventKind::OrderCreated,
            ]
        );
        let s = &log.strings;
        for e in &log.events {
            assert_eq!(s.get_or_empty(e.key), "product:7:lock");
        }
        assert_eq!(log.events[0].detail().stock, Some(3));
        assert_eq!(s.get_or_empty(log.events[0].detail().product), "product:7");
        assert_eq!(log.events[2].detail().stock, Some(3));
        let d = log.events[3].detail();
        assert_eq!(
            (d.stock_before, d.stock_after, d.quantity),
            (Some(3), Some(2), Some(1))
        );
        let d = log.events[4].detail();
        assert_eq!(
            (d.stock_before, d.stock_after, d.quantity),
            (Some(2), Some(0), Some(2))
        );
        let o = &log.events[5];
        assert_eq!(o.detail().quantity, Some(2));
        assert_eq!(s.get_or_empty(o.detail().order_id), "O1");
        assert_eq!(s.get_or_empty(o.holder), "A");
        assert_eq!(log.events[6].detail().quantity, Some(1));
        assert!(
            info.notes
                .iter()
                .map(ToString::to_string)
                .any(|n| n == "unknown commands: FROB x2")
        );
    }
}

//! A small, pure model of a Redis keyspace, so that a `redis-cli monitor`
//! capture can be replayed to learn what each command did (MONITOR shows a
//! `SET NX` that lost exactly like one that won).
//!
//! Only the commands lock libraries and flash-sale code use are modelled:
//! strings, hashes (Redisson locks), lists (order queues), key expiry and the
//! per-connection state of `SELECT` and `MULTI`/`EXEC`. Each rule cites the
//! redis.io page of its command. Times are whole milliseconds since the Unix
//! epoch, as Redis keeps them.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use hashbrown::HashMap;
use hashbrown::hash_map::EntryRef;

mod hash;
pub mod tair;

pub use hash::HashFields;

/// A value stored at a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A string (`SET`, `INCR`, ...).
    Str(Vec<u8>),
    /// A hash (`HSET`, `HINCRBY`); fields in insertion order.
    Hash(HashFields),
    /// A list (`RPUSH`, `LPUSH`).
    List(VecDeque<Vec<u8>>),
    /// A TairString (`EXSET`; the module's `exstrtype`): a string with a
    /// version that every write increments ([`tair`]).
    ExStr {
        /// The string.
        value: Vec<u8>,
        /// Its version (1 after the first `EXSET`, unless `ABS` set it).
        version: i64,
    },
}

impl Value {
    /// The integer in a string value, if it is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Str(s) | Value::ExStr { value: s, .. } => parse_i64(s),
            _ => None,
        }
    }

    /// What a lock rule reads of a value, at a cost independent of its
    /// size: a string whole, a hash's first field and value only (its
    /// holder; [`crate::ingest::monitor`]), a list empty.
    pub fn lock_view(&self) -> Value {
        match self {
            Value::Hash(h) => Value::Hash(h.first().map(|(f, v)| (f, v)).into_iter().collect()),
            Value::List(_) => Value::List(VecDeque::new()),
            v => v.clone(),
        }
    }
}

/// One key: its value and its absolute expiry deadline (ms since the epoch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The stored value.
    pub value: Value,
    /// Expiry deadline in ms since the epoch; `None` for a persistent key.
    /// The key is gone once `now_ms > deadline_ms`.
    pub deadline_ms: Option<i64>,
}

/// What a command did: the reply Redis would send, with a little more for
/// `SET` (whether it wrote), which its reply cannot always tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `+OK` (also for modelled no-ops such as `PING` or `HELLO`).
    Ok,
    /// A nil reply.
    Nil,
    /// An integer reply.
    Int(i64),
    /// A bulk string reply.
    Bulk(Vec<u8>),
    /// An array reply (`EXEC`).
    Array(Vec<Outcome>),
    /// An error reply (wrong type, syntax, not an integer).
    Error(String),
    /// `SET`: whether it wrote, and the live string value before it
    /// (`None` when the key was absent or expired). The wire reply is `OK`,
    /// nil, or with `GET` the old value.
    Set {
        /// True when the value was written.
        written: bool,
        /// The previous live value.
        old: Option<Vec<u8>>,
    },
    /// A TairString write refused because the version it named is not the
    /// key's (`EXSET ... VER v`: the wire reply is `ERR update version is
    /// stale`; `EXCAS`: `CAS_FAILED`, the value, the version). Nothing was
    /// written.
    Stale {
        /// The key's version.
        version: i64,
    },
    /// `QUEUED` inside `MULTI`.
    Queued,
    /// A command this model does not know; the caller counts it.
    Unknown,
}

/// A key removed because its deadline passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expired {
    /// Database number.
    pub db: u32,
    /// The key.
    pub key: Vec<u8>,
    /// When it expired: its deadline, ms since the epoch.
    pub at_ms: i64,
    /// What it held.
    pub value: Value,
}

/// The keyspace of one Redis node: every database, with expiry.
///
/// Expiry follows <https://redis.io/docs/latest/commands/expire/>: a key is
/// expired once the current time in ms is greater than its deadline (Redis
/// `keyIsExpired`: `now > when`), so it is still alive at `now == deadline`.
/// It is checked lazily on every access, and [`Keyspace::expire_due`] flushes
/// every key whose deadline has passed using a min-heap of deadlines.
#[derive(Clone, Debug, Default)]
pub struct Keyspace {
    dbs: HashMap<u32, HashMap<Vec<u8>, Entry>>,
    deadlines: BinaryHeap<Reverse<(i64, u32, Vec<u8>)>>,
    expired: Vec<Expired>,
}

/// Parses a decimal `i64` as Redis does (no spaces, no `+`).
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    let (negative, digits) = match s {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let magnitude = digits.iter().try_fold(0u64, |n, &c| {
        if c.is_ascii_digit() {
            n.checked_mul(10)?.checked_add(u64::from(c - b'0'))
        } else {
            None
        }
    })?;
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// A command name or option in upper case, kept on the stack: every name
/// this model knows is short. A longer name becomes empty, which matches
/// nothing (the caller words an unknown command from its own bytes).
#[derive(Clone, Copy)]
pub(crate) struct UppercaseName {
    buf: [u8; UppercaseName::MAX],
    len: usize,
}

impl UppercaseName {
    const MAX: usize = 24;

    pub(crate) fn new(s: &[u8]) -> UppercaseName {
        let mut buf = [0u8; Self::MAX];
        let len = if s.len() <= Self::MAX { s.len() } else { 0 };
        for (d, c) in buf.iter_mut().zip(&s[..len]) {
            *d = c.to_ascii_uppercase();
        }
        UppercaseName { buf, len }
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// An option of `SET`, named in any case.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SetOption {
    Nx,
    Xx,
    Get,
    KeepTtl,
    Ex,
    Px,
    ExAt,
    PxAt,
    Other,
}

impl SetOption {
    fn of(o: &[u8]) -> SetOption {
        const NAMES: [(&[u8], SetOption); 8] = [
            (b"NX", SetOption::Nx),
            (b"PX", SetOption::Px),
            (b"EX", SetOption::Ex),
            (b"XX", SetOption::Xx),
            (b"GET", SetOption::Get),
            (b"KEEPTTL", SetOption::KeepTtl),
            (b"EXAT", SetOption::ExAt),
            (b"PXAT", SetOption::PxAt),
        ];
        NAMES
            .iter()
            .find(|(name, _)| o.eq_ignore_ascii_case(name))
            .map_or(SetOption::Other, |&(_, opt)| opt)
    }
}

/// Calls `f` with `args` as byte slices, without allocating for the usual
/// handful of arguments.
fn with_refs<A: AsRef<[u8]>, T>(args: &[A], f: impl FnOnce(&[&[u8]]) -> T) -> T {
    const SMALL: usize = 8;
    if args.len() <= SMALL {
        let mut small: [&[u8]; SMALL] = [&[]; SMALL];
        for (s, a) in small.iter_mut().zip(args) {
            *s = a.as_ref();
        }
        f(&small[..args.len()])
    } else {
        let v: Vec<&[u8]> = args.iter().map(AsRef::as_ref).collect();
        f(&v)
    }
}

fn wrongtype() -> Outcome {
    Outcome::Error("WRONGTYPE Operation against a key holding the wrong kind of value".into())
}

fn syntax() -> Outcome {
    Outcome::Error("ERR syntax error".into())
}

fn not_int() -> Outcome {
    Outcome::Error("ERR value is not an integer or out of range".into())
}

fn wrong_args(cmd: &[u8]) -> Outcome {
    Outcome::Error(format!(
        "ERR wrong number of arguments for '{}' command",
        String::from_utf8_lossy(cmd).to_lowercase()
    ))
}

impl Keyspace {
    /// An empty keyspace.
    pub fn new() -> Keyspace {
        Keyspace::default()
    }

    /// The live entry at `key`, removing it first if its deadline passed
    /// (lazy expiry).
    pub fn get_live(&mut self, now_ms: i64, db: u32, key: &[u8]) -> Option<&Entry> {
        let Keyspace { dbs, expired, .. } = self;
        let EntryRef::Occupied(o) = dbs.get_mut(&db)?.entry_ref(key) else {
            return None;
        };
        match o.get().deadline_ms {
            Some(d) if now_ms > d => {
                let e = o.remove();
                expired.push(Expired {
                    db,
                    key: key.to_vec(),
                    at_ms: d,
                    value: e.value,
                });
                None
            }
            _ => Some(o.into_mut()),
        }
    }

    /// Number of live keys in `db` at `now_ms`.
    pub fn len(&mut self, now_ms: i64, db: u32) -> usize {
        self.expire_due(now_ms);
        self.dbs.get(&db).map_or(0, HashMap::len)
    }

    /// True when `db` holds no live key at `now_ms`.
    pub fn is_empty(&mut self, now_ms: i64, db: u32) -> bool {
        self.len(now_ms, db) == 0
    }

    fn expire_if_needed(&mut self, now_ms: i64, db: u32, key: &[u8]) {
        let due = self
            .dbs
            .get(&db)
            .and_then(|m| m.get(key))
            .and_then(|e| e.deadline_ms)
            .is_some_and(|d| now_ms > d);
        if due {
            self.expire_key(now_ms, db, key);
        }
    }

    /// Removes `key`, whose deadline has passed, and notes its expiry.
    fn expire_key(&mut self, now_ms: i64, db: u32, key: &[u8]) {
        if let Some(e) = self.dbs.get_mut(&db).and_then(|m| m.remove(key)) {
            self.expired.push(Expired {
                db,
                key: key.to_vec(),
                at_ms: e.deadline_ms.unwrap_or(now_ms),
                value: e.value,
            });
        }
    }

    /// Removes every key whose deadline is before `now_ms` and returns all
    /// expiries not yet reported (including lazy ones), oldest first. The
    /// time of each is its deadline.
    pub fn expire_due(&mut self, now_ms: i64) -> Vec<Expired> {
        while let Some(Reverse((d, _, _))) = self.deadlines.peek() {
            if *d >= now_ms {
                break;
            }
            let Some(Reverse((d, db, key))) = self.deadlines.pop() else {
                break;
            };
            let live = self
                .dbs
                .get(&db)
                .and_then(|m| m.get(&key))
                .is_some_and(|e| e.deadline_ms == Some(d));
            if live {
                self.expire_if_needed(now_ms, db, &key);
            }
        }
        let mut out = std::mem::take(&mut self.expired);
        out.sort_by_key(|e| e.at_ms);
        out
    }

    fn db_mut(&mut self, db: u32) -> &mut HashMap<Vec<u8>, Entry> {
        self.dbs.entry(db).or_default()
    }

    fn set_deadline(&mut self, db: u32, key: &[u8], deadline_ms: Option<i64>) {
        if let Some(e) = self.db_mut(db).get_mut(key) {
            e.deadline_ms = deadline_ms;
            if let Some(d) = deadline_ms {
                self.deadlines.push(Reverse((d, db, key.to_vec())));
            }
        }
    }

    /// Stores `value` at `key` with `deadline_ms`, in place when the key
    /// exists (no new key allocation).
    fn put(&mut self, db: u32, key: &[u8], value: Value, deadline_ms: Option<i64>) {
        let m = self.db_mut(db);
        match m.get_mut(key) {
            Some(e) => {
                e.value = value;
                e.deadline_ms = deadline_ms;
            }
            None => {
                m.insert(key.to_vec(), Entry { value, deadline_ms });
            }
        }
        if let Some(d) = deadline_ms {
            self.deadlines.push(Reverse((d, db, key.to_vec())));
        }
    }

    fn remove(&mut self, now_ms: i64, db: u32, key: &[u8]) -> Option<Entry> {
        self.expire_if_needed(now_ms, db, key);
        self.dbs.get_mut(&db).and_then(|m| m.remove(key))
    }

    /// The databases that hold keys, in order.
    pub fn dbs(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.dbs.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Removes every key of `db` (`FLUSHDB`,
    /// <https://redis.io/docs/latest/commands/flushdb/>).
    pub fn flush_db(&mut self, db: u32) {
        self.dbs.remove(&db);
    }

    /// Removes every key of every database (`FLUSHALL`,
    /// <https://redis.io/docs/latest/commands/flushall/>).
    pub fn flush_all(&mut self) {
        self.dbs.clear();
        self.deadlines.clear();
    }

    /// Applies one data command (`cmd` in any case, `args` after it) at
    /// `now_ms` in database `db`.
    ///
    /// Connection state (`SELECT`, `MULTI`/`EXEC`) lives in [`Connection`];
    /// `EVAL`/`EVALSHA` and other commands without a keyspace effect are
    /// no-ops here (`Outcome::Ok`), since MONITOR shows a script's own calls
    /// as separate lines. Unknown commands give [`Outcome::Unknown`].
    pub fn apply<A: AsRef<[u8]>>(
        &mut self,
        now_ms: i64,
        db: u32,
        cmd: &[u8],
        args: &[A],
    ) -> Outcome {
        with_refs(args, |args| {
            self.apply_upper(now_ms, db, cmd, &UppercaseName::new(cmd), args, true)
        })
    }

    /// [`Keyspace::apply`] with the command name already upper-cased.
    /// `want_old: false` says the caller will not read
    /// [`Outcome::Set`]'s `old` (then `None` unless the `SET` has `GET`),
    /// which spares a copy of the value for every `SET NX` that loses.
    pub(crate) fn apply_upper(
        &mut self,
        now_ms: i64,
        db: u32,
        cmd: &[u8],
        up: &UppercaseName,
        args: &[&[u8]],
        want_old: bool,
    ) -> Outcome {
        let c = up.as_bytes();
        match c {
            b"GET" => self.cmd_get(now_ms, db, cmd, args),
            b"SET" => self.cmd_set(now_ms, db, args, want_old),
            b"SETNX" => self.cmd_setnx(now_ms, db, cmd, args),
            b"GETSET" => self.cmd_getset(now_ms, db, cmd, args),
            b"GETDEL" => self.cmd_getdel(now_ms, db, cmd, args),
            b"DEL" | b"UNLINK" => self.cmd_del(now_ms, db, cmd, args),
            b"EXISTS" => {
                let n = args
                    .iter()
                    .filter(|k| self.get_live(now_ms, db, k).is_some())
                    .count();
                Outcome::Int(n as i64)
            }
            b"EXPIRE" | b"PEXPIRE" | b"EXPIREAT" | b"PEXPIREAT" => {
                self.cmd_expire(now_ms, db, c, args)
            }
            b"PERSIST" => self.cmd_persist(now_ms, db, cmd, args),
            b"TTL" | b"PTTL" => self.cmd_ttl(now_ms, db, c, args),
            b"HSET" | b"HMSET" => self.cmd_hset(now_ms, db, c, args),
            b"HINCRBY" => self.cmd_hincrby(now_ms, db, cmd, args),
            b"HDEL" => self.cmd_hdel(now_ms, db, cmd, args),
            b"HEXISTS" | b"HGET" => self.cmd_hget(now_ms, db, c, args),
            b"INCR" | b"DECR" | b"INCRBY" | b"DECRBY" => self.cmd_incr(now_ms, db, c, args),
            b"RPUSH" | b"LPUSH" => self.cmd_push(now_ms, db, c, args),
            b"LLEN" => self.cmd_llen(now_ms, db, cmd, args),
            b"EXSET" | b"EXGET" | b"EXSETVER" | b"EXINCRBY" | b"EXCAS" | b"EXCAD" | b"CAS"
            | b"CAD" => self.apply_tair(now_ms, db, c, args, want_old),
            b"FLUSHDB" => {
                self.flush_db(db);
                Outcome::Ok
            }
            b"FLUSHALL" => {
                self.flush_all();
                Outcome::Ok
            }
            b"EVAL" | b"EVALSHA" | b"EVAL_RO" | b"EVALSHA_RO" | b"SCRIPT" | b"HELLO" | b"PING"
            | b"CLIENT" | b"INFO" | b"AUTH" | b"ECHO" | b"CONFIG" | b"COMMAND" | b"MONITOR"
            | b"QUIT" | b"RESET" | b"READONLY" | b"READWRITE" | b"WAIT" | b"TIME" | b"PUBLISH"
            | b"SUBSCRIBE" | b"UNSUBSCRIBE" | b"PSUBSCRIBE" | b"PUNSUBSCRIBE" | b"SELECT"
            | b"WATCH" | b"UNWATCH" | b"DBSIZE" | b"KEYS" | b"SCAN" | b"TYPE" | b"MEMORY"
            | b"SLOWLOG" | b"LATENCY" | b"ROLE" => Outcome::Ok,
            _ => Outcome::Unknown,
        }
    }

    /// `GET key` (<https://redis.io/docs/latest/commands/get/>).
    fn cmd_get(&mut self, now_ms: i64, db: u32, cmd: &[u8], args: &[&[u8]]) -> Outcome {
        let [key] = args else {
            return wrong_args(cmd);
        };
        match self.get_live(now_ms, db, key).map(|e| &e.value) {
            None => Outcome::Nil,
            Some(Value::Str(s)) => Outcome::Bulk(s.clone()),
            Some(_) => wrongtype(),
        }
    }

    /// `SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]`
    /// (<https://redis.io/docs/latest/commands/set/>). A SET without an
    /// expiry option or `KEEPTTL` discards the old TTL; a non-positive
    /// `EX`/`PX` is an error.
    fn cmd_set(&mut self, now_ms: i64, db: u32, args: &[&[u8]], want_old: bool) -> Outcome {
        let [key, value, opts @ ..] = args else {
            return wrong_args(b"set");
        };
        let (mut nx, mut xx, mut get, mut keepttl) = (false, false, false, false);
        let mut deadline: Option<i64> = None;
        let mut i = 0;
        while i < opts.len() {
            let o = SetOption::of(opts[i]);
            match o {
                SetOption::Nx => nx = true,
                SetOption::Xx => xx = true,
                SetOption::Get => get = true,
                SetOption::KeepTtl => keepttl = true,
                SetOption::Ex | SetOption::Px | SetOption::ExAt | SetOption::PxAt => {
                    if deadline.is_some() {
                        return syntax();
                    }
                    let Some(n) = opts.get(i + 1).and_then(|v| parse_i64(v)) else {
                        return syntax();
                    };
                    if n <= 0 {
                        return Outcome::Error("ERR invalid expire time in 'set' command".into());
                    }
                    let d = match o {
                        SetOption::Ex => now_ms.saturating_add(n.saturating_mul(1000)),
                        SetOption::Px => now_ms.saturating_add(n),
                        SetOption::ExAt => n.saturating_mul(1000),
                        _ => n,
                    };
                    deadline = Some(d);
                    i += 1;
                }
                SetOption::Other => return syntax(),
            }
            i += 1;
        }
        if (nx && xx) || (keepttl && deadline.is_some()) {
            return syntax();
        }
        let (exists, old, prev_deadline) = match self.get_live(now_ms, db, key) {
            None => (false, None, None),
            Some(Entry {
                value: Value::Str(s),
                deadline_ms,
            }) => (true, (want_old || get).then(|| s.clone()), *deadline_ms),
            Some(_) if get => return wrongtype(),
            Some(e) => (true, None, e.deadline_ms),
        };
        let write = if exists { !nx } else { !xx };
        if write {
            let keep = if keepttl { prev_deadline } else { deadline };
            self.put(db, key, Value::Str(value.to_vec()), keep);
        }
        Outcome::Set {
            written: write,
            old,
        }
    }

    /// `SETNX key value`: 1 when set, 0 when the key exists
    /// (<https://redis.io/docs/latest/commands/setnx/>).
    fn cmd_setnx(&mut self, now_ms: i64, db: u32, cmd: &[u8], args: &[&[u8]]) -> Outcome {
        let [key, value] = args else {
            return wrong_args(cmd);
        };
        if self.get_live(now_ms, db, key).is_some() {
            return Outcome::Int(0);
        }
        self.put(db, key, Value::Str(value.to_vec()), None);
        Outcome::Int(1)
    }

    /// `GETSET key value`: sets, discards the TTL, returns the old value
    /// (<https://redis.io/docs/latest/commands/getset/>).
    fn cmd_getset(&mut self, now_ms: i64, db: u32, cmd: &[u8], args: &[&[u8]]) -> Outcome {
        let [key, value] = args else {
            return wrong_args(cmd);
        };
        let old = match self.get_live(now_ms, db, key).map(|e| &e.value) {
            None => Outcome::Nil,
            Some(Value::Str(s)) => Outcome::Bulk(s.clone()),
            Some(_) => return wrongtype(),
        };
        self.put(db, key, Value::Str(value.to_vec()), None);
        old
    }

    /// `GETDEL key` (<https://redis.io/docs/latest/commands/getdel/>).
    fn cmd_getdel(&mut self, now_ms: i64, db: u32, cmd: &[u8], args: &[&[u8]]) -> Outcome {
        let [key] = args else {
            return wrong_args(cmd);
        };
        match self.get_live(now_ms, db, key).map(|e| &e.value) {
            None => Outcome::Nil,
            Some(Value::Str(s)) => {
                let s = s.clone();
                self.remove(now_ms, db, key);
                Outcome::Bulk(s)
            }
            Some(_) => wrongtype(),
        }
    }

    /// `DEL`/`UNLINK key...`: the number of live keys removed
    /// (<https://redis.io/docs/latest/commands/del/>,
    /// <https://redis.io/docs/latest/commands/unlink/>).
    fn cmd_del(&mut self, now_ms: i64, db: u32, cmd: &[u8], args: &[&[u8]]) -> Outcome {
        if args.is_empty() {
            return wrong_args(cmd);
        }
        let n = args
            .iter()
            .filter(|k| self.remove(now_ms, db, k).is_some())
            .count();
        Outcome::Int(n as i64)
    }

    /// `EXPIRE`/`PEXPIRE`/`EXPIREAT`/`PEXPIREAT key t [NX|XX|GT|LT]`
    /// (<https://redis.io/docs/latest/commands/expire/>): 1 when the timeout
    /// was set, 0 when the key is absent or the condition failed. NX: only
    /// without a TTL; XX: only with one; GT/LT: only if the new deadline is
    /// greater/less, a key without TTL counting as infinite. A deadline at or
    /// before now deletes the key (and still returns 1).
    fn cmd_expire(&mut self, now_ms: i64, db: u32, c: &[u8], args: &[&[u8]]) -> Outcome {
        let [key, t, opts @ ..] = args else {
            return wrong_args(c);
        };
        let Some(t) = parse_i64(t) else {
            return not_int();
        };
        let deadline = match c {
            b"EXPIRE" => now_ms.saturating_add(t.saturating_mul(1000)),
            b"PEXPIRE" => now_ms.saturating_add(t),
            b"EXPIREAT" => t.saturating_mul(1000),
            _ => t,
        };
        let (mut nx, mut xx, mut gt, mut lt) = (false, false, false, false);
        for o in opts {
            let is = |name: &[u8]| o.eq_ignore_ascii_case(name);
            if is(b"NX") {
                nx = true;
            } else if is(b"XX") {
                xx = true;
            } else if is(b"GT") {
                gt = true;
            } else if is(b"LT") {
                lt = true;
            } else {
                return Outcome::Error("ERR Unsupported option".into());
            }
        }
        if (nx && (xx || gt || lt)) || (gt && lt) {
            return Outcome::Error(
                "ERR NX and XX, GT or LT options at the same time are not compatible".into(),
            );
        }
        let Some(cur) = self.get_live(now_ms, db, key).map(|e| e.deadline_ms) else {
            return Outcome::Int(0);
        };
        let ok = match cur {
            None => !(xx || gt),
            Some(d) => !nx && (!gt || deadline > d) && (!lt || deadline < d),
        };
        if !ok {
            return Outcome::Int(0);
        }
        if deadline <= now_ms {
            self.remove(now_ms, db, key);
        } else {
            self.set_deadline(db, key, Some(deadline));
        }
        Outcome::Int(1)
    }

    /// `PERSIST key`: 1 when a TTL was removed
    /// (<https://redis.io/docs/latest/commands/persist/>).
    fn cmd_persist(&mut self, now_ms: i64, db: u32, cmd: &[u8], args: &[&[u8]]) -> Outcome {
        let [key] = args else {
            return wrong_args(cmd);
        };
        match self.get_live(now_ms, db, key).map(|e| e.deadline_ms) {
            Some(Some(_)) => {
                self.set_deadline(db, key, None);
                Outcome::Int(1)
            }
            _ => Outcome::Int(0),
        }
    }

    /// `TTL`/`PTTL key`: -2 absent, -1 no TTL, else the time left
    /// (<https://redis.io/docs/latest/commands/pttl/>).
    fn cmd_ttl(&mut self, now_ms: i64, db: u32, c: &[u8], args: &[&[u8]]) -> Outcome {
        let [key] = args else {
            return wrong_args(c);
        };
        match self.get_live(now_ms, db, key).map(|e| e.deadline_ms) {
            None => Outcome::Int(-2),
            Some(None) => Outcome::Int(-1),
            Some(Some(d)) if c == b"PTTL" => Outcome::Int(d - now_ms),
            Some(Some(d)) => Outcome::Int((d - now_ms + 500) / 1000),
        }
    }

    fn hash_mut(&mut self, now_ms: i64, db: u32, key: &[u8]) -> Result<&mut HashFields, Outcome> {
        if self.get_live(now_ms, db, key).is_none() {
            self.put(db, key, Value::Hash(HashFields::new()), None);
        }
        match self.db_mut(db).get_mut(key).map(|e| &mut e.value) {
            Some(Value::Hash(h)) => Ok(h),
            _ => Err(wrongtype()),
        }
    }

    /// `HSET key field value [field value ...]`: the number of new fields
    /// (<https://redis.io/docs/latest/commands/hset/>).
    fn cmd_hset(&mut self, now_ms: i64, db: u32, c: &[u8], args: &[&[u8]]) -> Outcome {
        let [key, pairs @ ..] = args else {
            return wrong_args(c);
        };
        if pairs.is_empty() || pairs.len() % 2 != 0 {
            return wrong_args(c);
        }
        let h = match self.hash_mut(now_ms, db, key) {
            Ok(h) => h,
            Err(e) => return e,
        };
        let mut added = 0;
        for p in pairs.chunks(2) {
            if let [f, v] = p
                && h.insert(f, v.to_vec())
            {
                added += 1;
            }
        }
        if c == b"HMSET" {
            Outcome::Ok
        } else {
            Outcome::Int(added)
        }
    }

    /// `HINCRBY key field n`: the new value
    /// (<https://redis.io/docs/latest/commands/hincrby/>).
    fn cmd_hincrby(&mut self, now_ms: i64, db: u32, cmd: &[u8], args: &[&[u8]]) -> Outcome {
        let [key, field, n] = args else {
            return wrong_args(cmd);
        };
        let Some(n) = parse_i64(n) else {
            return not_int();
        };
        let h = match self.hash_mut(now_ms, db, key) {
            Ok(h) => h,
            Err(e) => return e,
        };
        if let Some(slot) = h.get_mut(field) {
            let Some(v) = parse_i64(slot).and_then(|v| v.checked_add(n)) else {
                return Outcome::Error("ERR hash value is not an integer".into());
            };
            *slot = v.to_string().into_bytes();
            Outcome::Int(v)
        } else {
            h.insert(field, n.to_string().into_bytes());
            Outcome::Int(n)
        }
    }

    /// `HDEL key field...`: fields removed; an emptied hash is deleted
    /// (<https://redis.io/docs/latest/commands/hdel/>).
    fn cmd_hdel(&mut self, now_ms: i64, db: u32, cmd: &[u8], args: &[&[u8]]) -> Outcome {
        let [key, fields @ ..] = args else {
            return wrong_args(cmd);
        };
        let Some(e) = self.get_live(now_ms, db, key) else {
            return Outcome::Int(0);
        };
        if !matches!(e.value, Value::Hash(_)) {
            return wrongtype();
        }
        let mut n = 0;
        let mut empty = false;
        if let Some(Value::Hash(h)) = self.db_mut(db).get_mut(*key).map(|e| &mut e.value) {
            n = fields.iter().filter(|f| h.remove(f)).count();
            empty = h.is_empty();
        }
        if empty {
            self.remove(now_ms, db, key);
        }
        Outcome::Int(n as i64)
    }

    /// `HEXISTS key field` (0/1) and `HGET key field` (value or nil)
    /// (<https://redis.io/docs/latest/commands/hexists/>,
    /// <https://redis.io/docs/latest/commands/hget/>).
    fn cmd_hget(&mut self, now_ms: i64, db: u32, c: &[u8], args: &[&[u8]]) -> Outcome {
        let [key, field] = args else {
            return wrong_args(c);
        };
        let v = match self.get_live(now_ms, db, key).map(|e| &e.value) {
            None => None,
            Some(Value::Hash(h)) => h.get(field).cloned(),
            Some(_) => return wrongtype(),
        };
        match (c, v) {
            (b"HEXISTS", v) => Outcome::Int(i64::from(v.is_some())),
            (_, Some(v)) => Outcome::Bulk(v),
            (_, None) => Outcome::Nil,
        }
    }

    /// `INCR`/`DECR`/`INCRBY`/`DECRBY`: the new value; an absent key counts
    /// as 0; the TTL is kept
    /// (<https://redis.io/docs/latest/commands/incrby/>,
    /// <https://redis.io/docs/latest/commands/decrby/>).
    fn cmd_incr(&mut self, now_ms: i64, db: u32, c: &[u8], args: &[&[u8]]) -> Outcome {
        let (key, delta) = match (c, args) {
            (b"INCR", [k]) => (k, 1),
            (b"DECR", [k]) => (k, -1),
            (b"INCRBY", [k, n]) => match parse_i64(n) {
                Some(n) => (k, n),
                None => return not_int(),
            },
            (b"DECRBY", [k, n]) => match parse_i64(n).and_then(i64::checked_neg) {
                Some(n) => (k, n),
                None => return not_int(),
            },
            _ => return wrong_args(c),
        };
        let (cur, deadline) = match self.get_live(now_ms, db, key) {
            None => (0, None),
            Some(
                e @ Entry {
                    value: Value::Str(_),
                    ..
                },
            ) => match e.value.as_int() {
                Some(v) => (v, e.deadline_ms),
                None => return not_int(),
            },
            Some(_) => return wrongtype(),
        };
        let Some(new) = cur.checked_add(delta) else {
            return Outcome::Error("ERR increment or decrement would overflow".into());
        };
        self.put(db, key, Value::Str(new.to_string().into_bytes()), deadline);
        Outcome::Int(new)
    }

    /// `RPUSH`/`LPUSH key element...`: the new length
    /// (<https://redis.io/docs/latest/commands/rpush/>).
    fn cmd_push(&mut self, now_ms: i64, db: u32, c: &[u8], args: &[&[u8]]) -> Outcome {
        let [key, elems @ ..] = args else {
            return wrong_args(c);
        };
        if elems.is_empty() {
            return wrong_args(c);
        }
        if self.get_live(now_ms, db, key).is_none() {
            self.put(db, key, Value::List(VecDeque::new()), None);
        }
        let Some(Value::List(l)) = self.db_mut(db).get_mut(*key).map(|e| &mut e.value) else {
            return wrongtype();
        };
        for e in elems {
            if c == b"RPUSH" {
                l.push_back(e.to_vec());
            } else {
                l.push_front(e.to_vec());
            }
        }
        Outcome::Int(l.len() as i64)
    }

    /// `LLEN key` (<https://redis.io/docs/latest/commands/llen/>).
    fn cmd_llen(&mut self, now_ms: i64, db: u32, cmd: &[u8], args: &[&[u8]]) -> Outcome {
        let [key] = args else {
            return wrong_args(cmd);
        };
        match self.get_live(now_ms, db, key).map(|e| &e.value) {
            None => Outcome::Int(0),
            Some(Value::List(l)) => Outcome::Int(l.len() as i64),
            Some(_) => wrongtype(),
        }
    }
}

/// What a [`Connection`] decided about a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Run this command now (`cmd`, `args`) in the connection's database.
    Run,
    /// Queued inside `MULTI`; nothing happens yet.
    Queued,
    /// `EXEC`: run these queued commands now, in order (each is the command
    /// name followed by its arguments).
    Exec(Vec<Vec<Vec<u8>>>),
    /// A connection command that changed only connection state (`SELECT`,
    /// `MULTI`, `DISCARD`) or an `EXEC` without `MULTI`.
    Handled,
}

/// Per-connection state: the selected database and a `MULTI` queue.
///
/// `SELECT db` (<https://redis.io/docs/latest/commands/select/>) changes the
/// database of this connection only. `MULTI` queues the following commands
/// until `EXEC` runs them together or `DISCARD` drops them
/// (<https://redis.io/docs/latest/develop/interact/transactions/>).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Connection {
    /// The selected database (0 initially).
    pub db: u32,
    queue: Option<Vec<Vec<Vec<u8>>>>,
}

impl Connection {
    /// A connection on database `db`.
    pub fn new(db: u32) -> Connection {
        Connection { db, queue: None }
    }

    /// True inside `MULTI`.
    pub fn in_multi(&self) -> bool {
        self.queue.is_some()
    }

    /// Decides what to do with `cmd args`.
    pub fn step<A: AsRef<[u8]>>(&mut self, cmd: &[u8], args: &[A]) -> Step {
        self.step_upper(cmd, &UppercaseName::new(cmd), args)
    }

    /// [`Connection::step`] with the command name already upper-cased.
    pub(crate) fn step_upper<A: AsRef<[u8]>>(
        &mut self,
        cmd: &[u8],
        up: &UppercaseName,
        args: &[A],
    ) -> Step {
        let c = up.as_bytes();
        match c {
            b"MULTI" => {
                self.queue.get_or_insert_with(Vec::new);
                Step::Handled
            }
            b"EXEC" => match self.queue.take() {
                Some(q) => Step::Exec(q),
                None => Step::Handled,
            },
            b"DISCARD" => {
                self.queue = None;
                Step::Handled
            }
            _ => {
                if let Some(q) = self.queue.as_mut() {
                    let mut full = Vec::with_capacity(args.len() + 1);
                    full.push(cmd.to_vec());
                    full.extend(args.iter().map(|a| a.as_ref().to_vec()));
                    q.push(full);
                    return Step::Queued;
                }
                if c == b"SELECT" {
                    if let Some(db) = args
                        .first()
                        .and_then(|a| parse_i64(a.as_ref()))
                        .and_then(|n| u32::try_from(n).ok())
                    {
                        self.db = db;
                    }
                    return Step::Handled;
                }
                Step::Run
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No arguments.
    const NONE: &[&[u8]] = &[];

    fn a(parts: &[&str]) -> Vec<Vec<u8>> {
        parts.iter().map(|p| p.as_bytes().to_vec()).collect()
    }

    fn run(ks: &mut Keyspace, now: i64, line: &str) -> Outcome {
        let parts: Vec<&str> = line.split(' ').collect();
        ks.apply(now, 0, parts[0].as_bytes(), &a(&parts[1..]))
    }

    fn get(ks: &mut Keyspace, now: i64, key: &str) -> Option<Vec<u8>> {
        match run(ks, now, &format!("GET {key}")) {
            Outcome::Bulk(v) => Some(v),
            _ => None,
        }
    }

    fn written(o: &Outcome) -> bool {
        matches!(o, Outcome::Set { written: true, .. })
    }

    #[test]
    fn set_nx_loses_on_live_key_and_wins_on_expired_key() {
        let mut ks = Keyspace::new();
        assert!(written(&run(&mut ks, 1000, "SET k a NX PX 100")));
        assert!(!written(&run(&mut ks, 1050, "SET k b NX PX 100")));
        assert_eq!(get(&mut ks, 1050, "k"), Some(b"a".to_vec()));
        // Alive at now == deadline (1100), gone at deadline + 1.
        assert!(!written(&run(&mut ks, 1100, "SET k b NX PX 100")));
        assert!(written(&run(&mut ks, 1101, "set k b nx px 100")));
        assert_eq!(get(&mut ks, 1101, "k"), Some(b"b".to_vec()));
    }

    #[test]
    fn expiry_boundary_is_inclusive_of_the_deadline() {
        let mut ks = Keyspace::new();
        run(&mut ks, 0, "SET k v PX 10");
        assert!(ks.get_live(10, 0, b"k").is_some());
        assert!(ks.get_live(11, 0, b"k").is_none());
        let exp = ks.expire_due(11);
        assert_eq!(exp.len(), 1);
        assert_eq!(exp[0].at_ms, 10);
    }

    #[test]
    fn expire_due_flushes_with_deadline_as_time() {
        let mut ks = Keyspace::new();
        run(&mut ks, 0, "SET a v PX 10");
        run(&mut ks, 0, "SET b v PX 30");
        run(&mut ks, 5, "PEXPIRE a 100"); // stale heap entry at 10
        assert!(ks.expire_due(20).is_empty());
        let exp = ks.expire_due(31);
        assert_eq!(exp.len(), 1);
        assert_eq!((exp[0].key.as_slice(), exp[0].at_ms), (&b"b"[..], 30));
        let exp = ks.expire_due(200);
        assert_eq!((exp[0].key.as_slice(), exp[0].at_ms), (&b"a"[..], 105));
    }

    #[test]
    fn set_ex_exat_pxat_keepttl_and_plain_set_clears_ttl() {
        let mut ks = Keyspace::new();
        run(&mut ks, 1000, "SET k v EX 2");
        assert_eq!(
            ks.get_live(1000, 0, b"k").and_then(|e| e.deadline_ms),
            Some(3000)
        );
        run(&mut ks, 1000, "SET k v EXAT 5");
        assert_eq!(
            ks.get_live(1000, 0, b"k").and_then(|e| e.deadline_ms),
            Some(5000)
        );
        run(&mut ks, 1000, "SET k v PXAT 4500");
        assert_eq!(
            ks.get_live(1000, 0, b"k").and_then(|e| e.deadline_ms),
            Some(4500)
        );
        run(&mut ks, 1000, "SET k w KEEPTTL");
        assert_eq!(
            ks.get_live(1000, 0, b"k").and_then(|e| e.deadline_ms),
            Some(4500)
        );
        run(&mut ks, 1000, "SET k w");
        assert_eq!(ks.get_live(1000, 0, b"k").and_then(|e| e.deadline_ms), None);
        assert!(matches!(
            run(&mut ks, 1000, "SET k v PX 0"),
            Outcome::Error(_)
        ));
        assert!(matches!(
            run(&mut ks, 1000, "SET k v NX XX"),
            Outcome::Error(_)
        ));
        assert!(matches!(
            run(&mut ks, 1000, "SET k v PX 5 KEEPTTL"),
            Outcome::Error(_)
        ));
    }

    #[test]
    fn set_xx_and_get_option() {
        let mut ks = Keyspace::new();
        assert!(!written(&run(&mut ks, 0, "SET k v XX")));
        assert_eq!(get(&mut ks, 0, "k"), None);
        assert_eq!(
            run(&mut ks, 0, "SET k v GET"),
            Outcome::Set {
                written: true,
                old: None
            }
        );
        assert_eq!(
            run(&mut ks, 0, "SET k w XX GET"),
            Outcome::Set {
                written: true,
                old: Some(b"v".to_vec())
            }
        );
        assert_eq!(
            run(&mut ks, 0, "SET k z NX GET"),
            Outcome::Set {
                written: false,
                old: Some(b"w".to_vec())
            }
        );
    }

    #[test]
    fn setnx_getset_getdel() {
        let mut ks = Keyspace::new();
        assert_eq!(run(&mut ks, 0, "SETNX k a"), Outcome::Int(1));
        assert_eq!(run(&mut ks, 0, "SETNX k b"), Outcome::Int(0));
        run(&mut ks, 0, "PEXPIRE k 50");
        assert_eq!(run(&mut ks, 0, "GETSET k c"), Outcome::Bulk(b"a".to_vec()));
        assert_eq!(ks.get_live(0, 0, b"k").and_then(|e| e.deadline_ms), None);
        assert_eq!(run(&mut ks, 0, "GETDEL k"), Outcome::Bulk(b"c".to_vec()));
        assert_eq!(run(&mut ks, 0, "GETDEL k"), Outcome::Nil);
    }

    #[test]
    fn del_counts_only_live_keys() {
        let mut ks = Keyspace::new();
        run(&mut ks, 0, "SET a 1");
        run(&mut ks, 0, "SET b 1 PX 5");
        assert_eq!(run(&mut ks, 10, "DEL a b c"), Outcome::Int(1));
        run(&mut ks, 10, "SET c 1");
        assert_eq!(run(&mut ks, 10, "UNLINK c"), Outcome::Int(1));
    }

    #[test]
    fn expire_options_nx_xx_gt_lt() {
        let mut ks = Keyspace::new();
        assert_eq!(run(&mut ks, 0, "PEXPIRE nokey 100"), Outcome::Int(0));
        run(&mut ks, 0, "SET k v");
        // No TTL: XX and GT fail, NX and LT succeed.
        assert_eq!(run(&mut ks, 0, "PEXPIRE k 100 XX"), Outcome::Int(0));
        assert_eq!(run(&mut ks, 0, "PEXPIRE k 100 GT"), Outcome::Int(0));
        assert_eq!(run(&mut ks, 0, "PEXPIRE k 100 LT"), Outcome::Int(1));
        assert_eq!(run(&mut ks, 0, "PEXPIRE k 500 NX"), Outcome::Int(0));
        assert_eq!(run(&mut ks, 0, "PEXPIRE k 50 GT"), Outcome::Int(0));
        assert_eq!(run(&mut ks, 0, "PEXPIRE k 200 GT"), Outcome::Int(1));
        assert_eq!(run(&mut ks, 0, "PEXPIRE k 300 LT"), Outcome::Int(0));
        assert_eq!(run(&mut ks, 0, "EXPIRE k 1 XX"), Outcome::Int(1));
        assert_eq!(
            ks.get_live(0, 0, b"k").and_then(|e| e.deadline_ms),
            Some(1000)
        );
        assert_eq!(run(&mut ks, 0, "PEXPIREAT k 700"), Outcome::Int(1));
        assert_eq!(run(&mut ks, 0, "EXPIREAT k 2"), Outcome::Int(1));
        assert_eq!(
            ks.get_live(0, 0, b"k").and_then(|e| e.deadline_ms),
            Some(2000)
        );
        assert!(matches!(
            run(&mut ks, 0, "PEXPIRE k 1 NX GT"),
            Outcome::Error(_)
        ));
        // A deadline not after now deletes the key.
        assert_eq!(run(&mut ks, 0, "PEXPIRE k 0"), Outcome::Int(1));
        assert!(ks.get_live(0, 0, b"k").is_none());
    }

    #[test]
    fn persist_removes_ttl() {
        let mut ks = Keyspace::new();
        run(&mut ks, 0, "SET k v PX 10");
        assert_eq!(run(&mut ks, 0, "PTTL k"), Outcome::Int(10));
        assert_eq!(run(&mut ks, 0, "PERSIST k"), Outcome::Int(1));
        assert_eq!(run(&mut ks, 0, "PERSIST k"), Outcome::Int(0));
        assert_eq!(run(&mut ks, 100, "PTTL k"), Outcome::Int(-1));
        assert!(ks.expire_due(100).is_empty());
    }

    #[test]
    fn incr_family_keeps_ttl_and_rejects_non_integers() {
        let mut ks = Keyspace::new();
        assert_eq!(run(&mut ks, 0, "INCR n"), Outcome::Int(1));
        assert_eq!(run(&mut ks, 0, "INCRBY n 10"), Outcome::Int(11));
        assert_eq!(run(&mut ks, 0, "DECR n"), Outcome::Int(10));
        run(&mut ks, 0, "PEXPIRE n 100");
        assert_eq!(run(&mut ks, 0, "DECRBY n 3"), Outcome::Int(7));
        assert_eq!(
            ks.get_live(0, 0, b"n").and_then(|e| e.deadline_ms),
            Some(100)
        );
        run(&mut ks, 0, "SET s abc");
        assert!(matches!(run(&mut ks, 0, "INCR s"), Outcome::Error(_)));
    }

    #[test]
    fn lists_push_and_len() {
        let mut ks = Keyspace::new();
        assert_eq!(run(&mut ks, 0, "RPUSH l a b"), Outcome::Int(2));
        assert_eq!(run(&mut ks, 0, "LPUSH l c"), Outcome::Int(3));
        assert_eq!(run(&mut ks, 0, "LLEN l"), Outcome::Int(3));
        assert_eq!(run(&mut ks, 0, "LLEN none"), Outcome::Int(0));
        assert!(matches!(run(&mut ks, 0, "GET l"), Outcome::Error(_)));
    }

    #[test]
    fn hashes_for_redisson_locks() {
        let mut ks = Keyspace::new();
        assert_eq!(run(&mut ks, 0, "HINCRBY lock u:1 1"), Outcome::Int(1));
        assert_eq!(run(&mut ks, 0, "HINCRBY lock u:1 1"), Outcome::Int(2));
        assert_eq!(run(&mut ks, 0, "HEXISTS lock u:1"), Outcome::Int(1));
        assert_eq!(run(&mut ks, 0, "HEXISTS lock u:2"), Outcome::Int(0));
        assert_eq!(
            run(&mut ks, 0, "HGET lock u:1"),
            Outcome::Bulk(b"2".to_vec())
        );
        assert_eq!(run(&mut ks, 0, "HSET lock u:2 1 u:3 1"), Outcome::Int(2));
        assert_eq!(run(&mut ks, 0, "HDEL lock u:1 u:2 u:3"), Outcome::Int(3));
        assert_eq!(run(&mut ks, 0, "EXISTS lock"), Outcome::Int(0));
    }

    #[test]
    fn multi_exec_queues_and_discard_drops() {
        let mut ks = Keyspace::new();
        let mut c = Connection::default();
        assert_eq!(c.step(b"MULTI", NONE), Step::Handled);
        assert_eq!(c.step(b"SET", &a(&["k", "v"])), Step::Queued);
        assert_eq!(c.step(b"INCR", &a(&["n"])), Step::Queued);
        assert_eq!(get(&mut ks, 0, "k"), None);
        let Step::Exec(q) = c.step(b"exec", NONE) else {
            panic!("expected exec");
        };
        assert_eq!(q.len(), 2);
        for cmd in &q {
            ks.apply(0, c.db, &cmd[0], &cmd[1..]);
        }
        assert_eq!(get(&mut ks, 0, "k"), Some(b"v".to_vec()));
        c.step(b"MULTI", NONE);
        c.step(b"SET", &a(&["k", "w"]));
        assert_eq!(c.step(b"DISCARD", NONE), Step::Handled);
        assert!(!c.in_multi());
        assert_eq!(c.step(b"EXEC", NONE), Step::Handled);
        assert_eq!(get(&mut ks, 0, "k"), Some(b"v".to_vec()));
    }

    #[test]
    fn select_isolates_databases_and_flushes() {
        let mut ks = Keyspace::new();
        let mut c = Connection::default();
        assert_eq!(c.step(b"SELECT", &a(&["2"])), Step::Handled);
        assert_eq!(c.db, 2);
        ks.apply(0, c.db, b"SET", &a(&["k", "in2"]));
        ks.apply(0, 0, b"SET", &a(&["k", "in0"]));
        assert_eq!(
            ks.apply(0, 2, b"GET", &a(&["k"])),
            Outcome::Bulk(b"in2".to_vec())
        );
        ks.apply(0, 2, b"FLUSHDB", NONE);
        assert_eq!(ks.apply(0, 2, b"GET", &a(&["k"])), Outcome::Nil);
        assert_eq!(
            ks.apply(0, 0, b"GET", &a(&["k"])),
            Outcome::Bulk(b"in0".to_vec())
        );
        ks.apply(0, 1, b"SET", &a(&["x", "1", "PX", "5"]));
        ks.apply(0, 3, b"FLUSHALL", NONE);
        assert!(ks.is_empty(0, 0));
        assert!(ks.is_empty(0, 1));
        assert!(ks.expire_due(100).is_empty());
    }

    #[test]
    fn parse_i64_reads_as_str_parse_does_without_a_plus() {
        for t in [
            "0",
            "7",
            "-7",
            "007",
            "-0",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999",
            "",
            "-",
            "+5",
            "5+",
            " 5",
            "5 ",
            "1e3",
            "1.0",
            "--1",
            "-+1",
            "٣",
        ] {
            let want = if t.starts_with('+') {
                None
            } else {
                t.parse::<i64>().ok()
            };
            assert_eq!(parse_i64(t.as_bytes()), want, "{t:?}");
        }
        assert_eq!(parse_i64(b"\xff1"), None);
    }

    #[test]
    fn unknown_and_noop_commands() {
        let mut ks = Keyspace::new();
        assert_eq!(run(&mut ks, 0, "FROBNICATE x"), Outcome::Unknown);
        assert_eq!(run(&mut ks, 0, "PING"), Outcome::Ok);
        assert_eq!(run(&mut ks, 0, "HELLO 3"), Outcome::Ok);
    }
}

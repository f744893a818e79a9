//! `redis-cli monitor` captures: parse the command stream and replay it
//! through a model of the Redis keyspace ([`crate::redis_model`]) to recover
//! lock and stock events, because MONITOR prints every command but not its
//! result (a `SET NX` that lost looks exactly like one that won).
//!
//! # What is derived
//! Every event is `inferred: true`, its `source` is the capture and the
//! command's line, its `host` the client address (`127.0.0.1:34098`; for a
//! script's `[0 lua]` lines, the client that ran the `EVAL`/`EVALSHA`).
//!
//! - Lock keys (glob [`MonitorOptions::lock_pattern`]):
//!   - `SET key token NX [PX|EX ...]` that wins, `SETNX` that wins, or
//!     `HSET`/`HINCRBY` creating an absent hash (Redisson: the field,
//!     `uuid:threadId`, is the holder) → `Acquired` with `ttl_ms` from the
//!     expiry option (`None` without one: a `no_ttl` lock). A losing `SET NX`
//!     or `SETNX` → `AcquireFailed` with the token tried.
//!   - `SETNX` followed by a separate `EXPIRE`/`PEXPIRE` (the old two-step
//!     pattern): the TTL arrives later, so the `Acquired` at the `SETNX` has
//!     `ttl_ms: None` and the `EXPIRE` gives a `Renewed` with the TTL. Inside
//!     one Lua script (Redisson: `hincrby` then `pexpire`) the two are folded
//!     into one `Acquired` with the TTL.
//!   - `EXPIRE`/`PEXPIRE`/`EXPIREAT`/`PEXPIREAT` that set a timeout on a live
//!     lock key, or a `SET` (plain or `XX`) that rewrites the same token →
//!     `Renewed` with the current token and the new TTL.
//!   - A `DEL`/`UNLINK`/`GETDEL` (direct or in a script) that removes a lock
//!     key → `Released` with `deleted = Some(true)`. Its holder is the token
//!     the key held, unless the releaser is known to be someone else: in a
//!     script, when no `ARGV` element equals the deleted token (holder = the
//!     first non-numeric `ARGV`); for a plain `DEL`, when the client's last
//!     winning acquire on that key used another token (holder = that token).
//!     The analysis then sees a delete by a holder whose lock had ended while
//!     another was live: a foreign release. A plain `DEL` of an absent lock
//!     key by a client that acquired it → `Released` with
//!     `deleted = Some(false)`.
//!   - A script that reads a lock key (`get`, `hexists`, ...) and writes
//!     nothing to it → `ReleaseFailed` (a compare-and-delete whose compare
//!     failed) with the script's token, unless the script is known to be a
//!     renewal (its body, or an earlier run of the same SHA, expires but never
//!     deletes) or asked for `pttl` (a Redisson acquire that lost →
//!     `AcquireFailed`). An `EVALSHA` with no `lua` lines (`NOSCRIPT`)
//!     derives nothing.
//!   - Expiry is modelled (so later `SET NX` outcomes are right) but emits no
//!     event: the analysis computes leases from acquire + TTL + renewals.
//! - Stock keys (glob [`MonitorOptions::stock_pattern`]): a `SET` of an
//!   absent key (the first, or after a `DEL`/`FLUSHALL`) → `StockInitialized`;
//!   `GET` →
//!   `StockRead` with the modelled value; a later `SET` (read-modify-write)
//!   or `DECR`/`DECRBY`/negative `INCRBY` → `StockDeducted` with
//!   `stock_before` (the modelled value), `stock_after` and
//!   `quantity = before - after` (left `None` when a `SET` does not lower the
//!   modelled stock: a lost update, whose own quantity the capture cannot
//!   tell).
//! - Order lists (glob [`MonitorOptions::order_pattern`]): each element of an
//!   `RPUSH`/`LPUSH` → `OrderCreated`, quantity from JSON `qty`/`quantity`
//!   (else 1), `order_id`, `unit_price`, holder from `lock_owner`/`owner`.
//! - Business events carry `product` = the key without its last
//!   `:`-component (`product:1001:stock` → `product:1001`) and `key` = the
//!   lock key with the same product part seen anywhere in the capture
//!   (`product:1001:lock`), as the application logs do.
//!
//! # Several nodes
//! One capture is one Redis node; each replays independently into its own
//! source. [`merge_redlock`] combines the per-node acquires of a Redlock.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::BufRead;

use crate::model::{Dialect, Event, EventKind, LoadedLog, LogBuilder, SourceInfo, SourceRef, Sym};
use crate::redis_model::{Connection, Keyspace, Outcome, Step, Value, parse_i64};

/// Options for MONITOR replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonitorOptions {
    /// Glob for lock keys (`*` matches any run of characters, `?` one
    /// character). Default `*lock*`.
    pub lock_pattern: String,
    /// Glob for stock counters. Default `*stock*`.
    pub stock_pattern: String,
    /// Glob for order lists. Default `*order*`.
    pub order_pattern: String,
}

impl Default for MonitorOptions {
    fn default() -> Self {
        MonitorOptions {
            lock_pattern: "*lock*".to_string(),
            stock_pattern: "*stock*".to_string(),
            order_pattern: "*order*".to_string(),
        }
    }
}

/// One command line of a capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MonitorLine {
    /// Time, ns since the Unix epoch (MONITOR prints µs).
    pub at_ns: i64,
    /// Database number.
    pub db: u32,
    /// Client address (`127.0.0.1:34098`, `unix:/tmp/redis.sock`) or `lua`
    /// for a command run by a script.
    pub client: String,
    /// Command name then arguments, unescaped.
    pub args: Vec<Vec<u8>>,
}

impl MonitorLine {
    /// True for a `[<db> lua]` line (a command run by the previous script).
    pub fn is_lua(&self) -> bool {
        self.client == "lua"
    }
}

/// Parses one line of `redis-cli monitor` output.
///
/// Returns `Ok(None)` for lines that are not commands and need no warning:
/// blank lines, the leading `OK`, and `Error: ...`/`(error) ...` lines that
/// redis-cli prints when the connection ends.
///
/// # Errors
/// A reason in plain words when the line is malformed: a bad timestamp, a
/// missing `[db addr]`, bad quoting, or a line cut off mid-argument.
pub fn parse_line(line: &[u8]) -> Result<Option<MonitorLine>, String> {
    let line = trim_eol(line);
    if line.iter().all(u8::is_ascii_whitespace)
        || line == b"OK"
        || line.starts_with(b"Error:")
        || line.starts_with(b"(error)")
    {
        return Ok(None);
    }
    let sp = line
        .iter()
        .position(|&c| c == b' ')
        .ok_or_else(|| "no space after the timestamp".to_string())?;
    let at_ns = parse_time(&line[..sp]).ok_or_else(|| {
        format!(
            "bad timestamp {:?} (expected <epoch seconds>.<microseconds>)",
            String::from_utf8_lossy(&line[..sp])
        )
    })?;
    let rest = &line[sp + 1..];
    if rest.first() != Some(&b'[') {
        return Err("missing `[<db> <client>]` after the timestamp".into());
    }
    let close = (1..rest.len())
        .find(|&i| rest[i] == b']' && (i + 1 == rest.len() || rest[i + 1] == b' '))
        .ok_or_else(|| "unterminated `[<db> <client>]`".to_string())?;
    let inner = std::str::from_utf8(&rest[1..close])
        .map_err(|_| "client address is not UTF-8".to_string())?;
    let (db, client) = inner
        .split_once(' ')
        .ok_or_else(|| format!("bad `[{inner}]`: expected `[<db> <client>]`"))?;
    let db: u32 = db
        .parse()
        .map_err(|_| format!("bad database number {db:?}"))?;
    let args = parse_args(rest.get(close + 1..).unwrap_or(&[]))?;
    if args.is_empty() {
        return Err("no command after `[<db> <client>]`".into());
    }
    Ok(Some(MonitorLine {
        at_ns,
        db,
        client: client.to_string(),
        args,
    }))
}

fn trim_eol(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b'\n' | b'\r'] = line {
        line = rest;
    }
    line
}

/// `1795939840.805117` → ns since the epoch.
fn parse_time(s: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(s).ok()?;
    let (secs, frac) = s.split_once('.').unwrap_or((s, ""));
    if secs.is_empty()
        || !secs.bytes().all(|c| c.is_ascii_digit())
        || frac.len() > 9
        || !frac.bytes().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let secs: i64 = secs.parse().ok()?;
    let mut ns: i64 = 0;
    for i in 0..9 {
        ns = ns * 10 + frac.as_bytes().get(i).map_or(0, |c| i64::from(c - b'0'));
    }
    secs.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// Space-separated double-quoted arguments with the escapes redis-cli's
/// `sdscatrepr` writes: `\\ \" \n \r \t \a \b \xHH`.
fn parse_args(s: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if s[i] == b' ' {
            i += 1;
            continue;
        }
        if s[i] != b'"' {
            return Err(format!(
                "unquoted text at column {} (argument {})",
                i + 1,
                out.len() + 1
            ));
        }
        i += 1;
        let mut arg = Vec::new();
        loop {
            let Some(&c) = s.get(i) else {
                return Err(format!(
                    "argument {} is not closed: line truncated or bad quoting",
                    out.len() + 1
                ));
            };
            i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = s.get(i) else {
                        continue;
                    };
                    i += 1;
                    match e {
                        b'n' => arg.push(b'\n'),
                        b'r' => arg.push(b'\r'),
                        b't' => arg.push(b'\t'),
                        b'a' => arg.push(7),
                        b'b' => arg.push(8),
                        b'x' => {
                            let hex = s
                                .get(i..i + 2)
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u8::from_str_radix(h, 16).ok());
                            let Some(v) = hex else {
                                return Err(format!(
                                    "bad \\x escape in argument {}",
                                    out.len() + 1
                                ));
                            };
                            arg.push(v);
                            i += 2;
                        }
                        other => arg.push(other),
                    }
                }
                other => arg.push(other),
            }
        }
        if s.get(i).is_some_and(|&c| c != b' ') {
            return Err(format!(
                "text right after the closing quote of argument {}",
                out.len() + 1
            ));
        }
        out.push(arg);
    }
    Ok(out)
}

/// True when the first lines of a text look like a `redis-cli monitor`
/// capture (`<epoch.usec> [<db> <addr>] "CMD" ...`, possibly after a leading
/// `OK`). The first non-blank line must be a command (or `OK`); after it, a
/// few malformed lines are tolerated while commands outnumber them (they
/// become warnings), and a possibly truncated last line is not judged.
pub fn looks_like_monitor(first_lines: &str) -> bool {
    let lines: Vec<&str> = first_lines.lines().collect();
    let (mut commands, mut bad) = (0, 0);
    for (n, l) in lines.iter().enumerate() {
        match parse_line(l.as_bytes()) {
            Ok(Some(_)) => commands += 1,
            Ok(None) => {}
            Err(_) if n + 1 == lines.len() && commands > 0 => {}
            Err(_) if commands == 0 => return false,
            Err(_) => bad += 1,
        }
        if commands >= 3 {
            break;
        }
    }
    commands > bad
}

/// Glob match with `*` (any run) and `?` (one byte).
pub fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// The product part of a key: without its last `:`-component
/// (`product:1001:stock` → `product:1001`), or the key itself.
pub fn product_part(key: &str) -> &str {
    key.rsplit_once(':').map_or(key, |(p, _)| p)
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The token a lock value names: the string, or a hash's first field.
fn token_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Str(s) => Some(s.clone()),
        Value::Hash(h) => h.first().map(|(f, _)| f.clone()),
        Value::List(_) => None,
    }
}

/// A script being replayed: the `EVAL`/`EVALSHA` line and what its `lua`
/// lines did so far.
#[derive(Debug)]
struct Script {
    client: String,
    /// SHA or body, to learn what kind of script it is.
    id: Vec<u8>,
    body: Option<Vec<u8>>,
    argv: Vec<Vec<u8>>,
    lua_lines: usize,
    /// Lock keys read: key → (time, line).
    reads: BTreeMap<Vec<u8>, (i64, u32)>,
    /// Lock keys written (any write command).
    writes: HashSet<Vec<u8>>,
    pttl: HashSet<Vec<u8>>,
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

/// What earlier runs taught about a script (by SHA or body).
#[derive(Clone, Copy, Debug, Default)]
struct ScriptKind {
    deletes: bool,
    expires: bool,
}

struct Replay<'a> {
    opts: &'a MonitorOptions,
    file: u16,
    name: String,
    ks: Keyspace,
    conns: HashMap<String, Connection>,
    script: Option<Script>,
    kinds: HashMap<Vec<u8>, ScriptKind>,
    /// (client, lock key) → token of that client's last winning acquire.
    last_token: HashMap<(String, Vec<u8>), Vec<u8>>,
    unknown: BTreeMap<String, u64>,
    lock_keys: BTreeSet<String>,
    business: Vec<(Event, String)>,
    event_lines: HashSet<u32>,
    events: u64,
    commands: u64,
    lua_commands: u64,
}

impl Replay<'_> {
    fn is_lock(&self, key: &[u8]) -> bool {
        glob_match(self.opts.lock_pattern.as_bytes(), key)
    }

    fn new_event(
        &self,
        b: &mut LogBuilder,
        kind: EventKind,
        at_ns: i64,
        line: u32,
        client: &str,
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
        e.host = Some(b.intern(client));
        e.key = Some(b.intern(&String::from_utf8_lossy(key)));
        e
    }

    fn emit(&mut self, b: &mut LogBuilder, e: Event) {
        if let Some(s) = self.script.as_mut() {
            s.events.push(e);
        } else {
            self.event_lines.insert(e.source.line);
            self.events += 1;
            b.push(e);
        }
    }

    fn emit_business(&mut self, e: Event, product: String) {
        self.event_lines.insert(e.source.line);
        self.events += 1;
        self.business.push((e, product));
    }

    fn finish_script(&mut self, b: &mut LogBuilder) {
        let Some(mut s) = self.script.take() else {
            return;
        };
        if s.lua_lines == 0 {
            return; // NOSCRIPT: the script never ran.
        }
        let kind = {
            let k = self.kinds.entry(s.id.clone()).or_default();
            k.deletes |= s.deleted;
            k.expires |= s.expired;
            if let Some(body) = &s.body {
                let lower = body.to_ascii_lowercase();
                let has = |w: &[u8]| lower.windows(w.len()).any(|x| x == w);
                k.deletes |= has(b"'del'") || has(b"\"del\"") || has(b"unlink");
                k.expires |= has(b"expire");
            }
            *k
        };
        // Fold a TTL set later in the same script into its acquire.
        let mut events = std::mem::take(&mut s.events);
        let mut drop = vec![false; events.len()];
        for i in 0..events.len() {
            if events[i].kind != EventKind::Acquired || events[i].ttl_ms.is_some() {
                continue;
            }
            if let Some(j) = (i + 1..events.len())
                .find(|&j| events[j].kind == EventKind::Renewed && events[j].key == events[i].key)
            {
                events[i].ttl_ms = events[j].ttl_ms;
                drop[j] = true;
            }
        }
        for (reads_key, &(at_ns, line)) in &s.reads {
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
            let mut e = self.new_event(b, kind_out, at_ns, line, &s.client, reads_key);
            let holder = s.holder_for(&[]);
            if !holder.is_empty() {
                e.holder = Some(b.intern(&lossy(&holder)));
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

    fn line(&mut self, b: &mut LogBuilder, ml: MonitorLine, line: u32) {
        let Some((cmd, args)) = ml.args.split_first() else {
            return;
        };
        if ml.is_lua() {
            let client = self
                .script
                .as_ref()
                .map_or_else(|| "lua".to_string(), |s| s.client.clone());
            if let Some(s) = self.script.as_mut() {
                s.lua_lines += 1;
            }
            self.lua_commands += 1;
            self.exec(b, ml.at_ns, line, &client, ml.db, cmd, args);
            return;
        }
        self.finish_script(b);
        let c = cmd.to_ascii_uppercase();
        let conn = self.conns.entry(ml.client.clone()).or_default();
        match conn.step(cmd, args) {
            Step::Run => {
                // The line names the database the command ran in.
                let db = ml.db;
                if matches!(
                    c.as_slice(),
                    b"EVAL" | b"EVALSHA" | b"EVAL_RO" | b"EVALSHA_RO"
                ) {
                    self.script = Some(start_script(&ml.client, &c, args));
                }
                self.exec(b, ml.at_ns, line, &ml.client, db, cmd, args);
            }
            Step::Exec(q) => {
                let db = ml.db;
                for full in q {
                    if let Some((qc, qa)) = full.split_first() {
                        self.exec(b, ml.at_ns, line, &ml.client, db, qc, qa);
                    }
                }
            }
            Step::Queued | Step::Handled => {
                self.commands += 1;
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn exec(
        &mut self,
        b: &mut LogBuilder,
        at_ns: i64,
        line: u32,
        client: &str,
        db: u32,
        cmd: &[u8],
        args: &[Vec<u8>],
    ) {
        self.commands += 1;
        let now_ms = at_ns.div_euclid(1_000_000);
        self.ks.expire_due(now_ms);
        let c = cmd.to_ascii_uppercase();
        // Snapshot the keys this command names, before it runs.
        let before: Vec<Option<Value>> = args
            .iter()
            .take(if matches!(c.as_slice(), b"DEL" | b"UNLINK") {
                args.len()
            } else {
                1
            })
            .map(|k| self.ks.get_live(now_ms, db, k).map(|e| e.value.clone()))
            .collect();
        let out = self.ks.apply(now_ms, db, cmd, args);
        if out == Outcome::Unknown {
            *self.unknown.entry(lossy(&c)).or_insert(0) += 1;
            return;
        }
        if matches!(out, Outcome::Error(_)) {
            return;
        }
        let Some(key) = args.first() else {
            return;
        };
        if self.is_lock(key) {
            self.lock_keys.insert(lossy(key));
            let before0 = before.first().cloned().flatten();
            self.lock_cmd(b, at_ns, line, client, db, &c, args, before0, &out);
        } else if glob_match(self.opts.stock_pattern.as_bytes(), key) {
            let before0 = before.first().cloned().flatten();
            self.stock_cmd(b, at_ns, line, client, &c, args, before0, &out);
        } else if glob_match(self.opts.order_pattern.as_bytes(), key)
            && matches!(c.as_slice(), b"RPUSH" | b"LPUSH")
        {
            self.order_cmd(b, at_ns, line, client, args);
        }
        // Other keys a multi-key DEL names.
        if matches!(c.as_slice(), b"DEL" | b"UNLINK") {
            for (k, v) in args.iter().zip(&before).skip(1) {
                if self.is_lock(k) {
                    self.lock_keys.insert(lossy(k));
                    self.lock_removed(b, at_ns, line, client, k, v.as_ref());
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn lock_cmd(
        &mut self,
        b: &mut LogBuilder,
        at_ns: i64,
        line: u32,
        client: &str,
        db: u32,
        c: &[u8],
        args: &[Vec<u8>],
        before: Option<Value>,
        out: &Outcome,
    ) {
        let key = &args[0];
        let now_ms = at_ns.div_euclid(1_000_000);
        let in_script = self.script.is_some();
        let is_write = !matches!(
            c,
            b"GET" | b"EXISTS" | b"HEXISTS" | b"HGET" | b"TTL" | b"PTTL" | b"HGETALL"
        );
        if let Some(s) = self.script.as_mut() {
            if is_write {
                s.writes.insert(key.clone());
            } else {
                s.reads.entry(key.clone()).or_insert((at_ns, line));
            }
            if c == b"PTTL" || c == b"TTL" {
                s.pttl.insert(key.clone());
            }
            if matches!(c, b"DEL" | b"UNLINK" | b"GETDEL") {
                s.deleted = true;
            }
            if c.ends_with(b"EXPIRE") || c.ends_with(b"EXPIREAT") {
                s.expired = true;
            }
        }
        let ttl_left = |ks: &mut Keyspace| {
            ks.get_live(now_ms, db, key)
                .and_then(|e| e.deadline_ms)
                .map(|d| d - now_ms)
        };
        match c {
            b"SET" => {
                let Some(token) = args.get(1) else {
                    return;
                };
                let nx = args[2..].iter().any(|o| o.eq_ignore_ascii_case(b"NX"));
                let Outcome::Set { written, old } = out else {
                    return;
                };
                let kind = match (nx, *written) {
                    (true, true) => EventKind::Acquired,
                    (true, false) => EventKind::AcquireFailed,
                    (false, true) if old.as_ref() == Some(token) => EventKind::Renewed,
                    (false, true) => EventKind::Acquired,
                    (false, false) => return,
                };
                let mut e = self.new_event(b, kind, at_ns, line, client, key);
                e.holder = Some(b.intern(&lossy(token)));
                if kind != EventKind::AcquireFailed {
                    e.ttl_ms = ttl_left(&mut self.ks);
                }
                if kind == EventKind::Acquired {
                    self.last_token
                        .insert((client.to_string(), key.clone()), token.clone());
                }
                self.emit(b, e);
            }
            b"SETNX" | b"GETSET" => {
                let Some(token) = args.get(1) else {
                    return;
                };
                let kind = match (c, out) {
                    (b"SETNX", Outcome::Int(1)) => EventKind::Acquired,
                    (b"SETNX", _) => EventKind::AcquireFailed,
                    (_, Outcome::Bulk(old)) if old == token => EventKind::Renewed,
                    _ => EventKind::Acquired,
                };
                let mut e = self.new_event(b, kind, at_ns, line, client, key);
                e.holder = Some(b.intern(&lossy(token)));
                if kind == EventKind::Acquired {
                    self.last_token
                        .insert((client.to_string(), key.clone()), token.clone());
                }
                self.emit(b, e);
            }
            b"HSET" | b"HINCRBY" => {
                if before.is_none()
                    && let Some(field) = args.get(1)
                {
                    let mut e = self.new_event(b, EventKind::Acquired, at_ns, line, client, key);
                    e.holder = Some(b.intern(&lossy(field)));
                    e.ttl_ms = ttl_left(&mut self.ks);
                    self.last_token
                        .insert((client.to_string(), key.clone()), field.clone());
                    self.emit(b, e);
                }
            }
            b"EXPIRE" | b"PEXPIRE" | b"EXPIREAT" | b"PEXPIREAT" => {
                if *out != Outcome::Int(1) {
                    return;
                }
                let Some(v) = self.ks.get_live(now_ms, db, key).map(|e| e.value.clone()) else {
                    return; // a deadline in the past deleted it
                };
                let mut e = self.new_event(b, EventKind::Renewed, at_ns, line, client, key);
                e.holder = token_of(&v).map(|t| b.intern(&lossy(&t)));
                e.ttl_ms = ttl_left(&mut self.ks);
                self.emit(b, e);
            }
            b"DEL" | b"UNLINK" | b"GETDEL" | b"HDEL" => {
                let gone = self.ks.get_live(now_ms, db, key).is_none();
                if c == b"HDEL" && !(gone && before.is_some()) {
                    return;
                }
                if !in_script || before.is_some() {
                    self.lock_removed(b, at_ns, line, client, key, before.as_ref());
                }
            }
            _ => {}
        }
    }

    /// A delete of lock `key` that held `before` (None: nothing to delete).
    fn lock_removed(
        &mut self,
        b: &mut LogBuilder,
        at_ns: i64,
        line: u32,
        client: &str,
        key: &[u8],
        before: Option<&Value>,
    ) {
        let token = before.and_then(token_of);
        let releaser = match (&self.script, &token) {
            (Some(s), Some(t)) => Some(s.holder_for(t)),
            (Some(_), None) => None,
            (None, _) => self
                .last_token
                .get(&(client.to_string(), key.to_vec()))
                .cloned()
                .or_else(|| token.clone()),
        };
        let Some(holder) = releaser else {
            return;
        };
        if token.is_none() && self.script.is_none() {
            // Nothing deleted: only worth an event when this client acquired it.
            if !self
                .last_token
                .contains_key(&(client.to_string(), key.to_vec()))
            {
                return;
            }
        }
        let mut e = self.new_event(b, EventKind::Released, at_ns, line, client, key);
        e.holder = Some(b.intern(&lossy(&holder)));
        e.detail_mut().deleted = Some(token.is_some());
        if token.as_ref() == Some(&holder) {
            self.last_token.retain(|_, t| *t != holder);
        }
        self.emit(b, e);
    }

    #[allow(clippy::too_many_arguments)]
    fn stock_cmd(
        &mut self,
        b: &mut LogBuilder,
        at_ns: i64,
        line: u32,
        client: &str,
        c: &[u8],
        args: &[Vec<u8>],
        before: Option<Value>,
        out: &Outcome,
    ) {
        let key = &args[0];
        let product = product_part(&lossy(key)).to_string();
        let prev = before.as_ref().and_then(Value::as_int);
        let mut e = match c {
            b"GET" => {
                let Outcome::Bulk(v) = out else { return };
                let Some(n) = parse_i64(v) else { return };
                let mut e = self.new_event(b, EventKind::StockRead, at_ns, line, client, key);
                e.detail_mut().stock = Some(n);
                e
            }
            b"SET" => {
                let Outcome::Set { written: true, .. } = out else {
                    return;
                };
                let Some(n) = args.get(1).and_then(|v| parse_i64(v)) else {
                    return;
                };
                if prev.is_none() {
                    let mut e =
                        self.new_event(b, EventKind::StockInitialized, at_ns, line, client, key);
                    e.detail_mut().stock = Some(n);
                    e
                } else {
                    let mut e =
                        self.new_event(b, EventKind::StockDeducted, at_ns, line, client, key);
                    let d = e.detail_mut();
                    d.stock_before = prev;
                    d.stock_after = Some(n);
                    d.quantity = prev.map(|p| p - n).filter(|&q| q > 0);
                    e
                }
            }
            b"DECR" | b"DECRBY" | b"INCRBY" | b"INCR" => {
                let Outcome::Int(after) = out else { return };
                let before_n = prev.unwrap_or(0);
                if *after >= before_n {
                    return; // a restock, not a sale
                }
                let mut e = self.new_event(b, EventKind::StockDeducted, at_ns, line, client, key);
                let d = e.detail_mut();
                d.stock_before = Some(before_n);
                d.stock_after = Some(*after);
                d.quantity = Some(before_n - after);
                e
            }
            _ => return,
        };
        e.key = None;
        e.detail_mut().product = Some(b.intern(&product));
        self.emit_business(e, product);
    }

    fn order_cmd(
        &mut self,
        b: &mut LogBuilder,
        at_ns: i64,
        line: u32,
        client: &str,
        args: &[Vec<u8>],
    ) {
        let key = &args[0];
        let product = product_part(&lossy(key)).to_string();
        for elem in &args[1..] {
            let mut e = self.new_event(b, EventKind::OrderCreated, at_ns, line, client, key);
            e.key = None;
            let json: Option<serde_json::Value> = serde_json::from_slice(elem).ok();
            let obj = json.as_ref().and_then(serde_json::Value::as_object);
            let field = |names: &[&str]| {
                obj.and_then(|o| names.iter().find_map(|n| o.get(*n)))
                    .filter(|v| !v.is_null())
            };
            let as_text = |v: &serde_json::Value| match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let qty = field(&["qty", "quantity"])
                .and_then(|v| {
                    v.as_i64()
                        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                })
                .unwrap_or(1);
            let order_id = field(&["order_id", "orderId"]).map(as_text);
            let owner = field(&["lock_owner", "owner", "lockOwner"]).map(as_text);
            let price = field(&["unit_price", "unitPrice", "price"]).and_then(|v| v.as_f64());
            if let Some(o) = owner {
                e.holder = Some(b.intern(&o));
            }
            let order_sym: Option<Sym> = order_id.map(|o| b.intern(&o));
            let product_sym = b.intern(&product);
            let d = e.detail_mut();
            d.quantity = Some(qty);
            d.order_id = order_sym;
            d.unit_price = price;
            d.product = Some(product_sym);
            self.emit_business(e, product.clone());
        }
    }

    /// Ties business events to the lock key of their product and pushes them.
    fn flush_business(&mut self, b: &mut LogBuilder) {
        let by_product: HashMap<&str, &str> = self
            .lock_keys
            .iter()
            .map(|k| (product_part(k), k.as_str()))
            .collect();
        for (mut e, product) in std::mem::take(&mut self.business) {
            let lock = by_product.get(product.as_str()).copied().or_else(|| {
                self.lock_keys
                    .iter()
                    .find(|k| k.contains(product.as_str()))
                    .map(String::as_str)
            });
            e.key = lock.map(|k| b.intern(k));
            b.push(e);
        }
    }
}

fn start_script(client: &str, c: &[u8], args: &[Vec<u8>]) -> Script {
    let numkeys = args
        .get(1)
        .and_then(|n| parse_i64(n))
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0);
    let argv = args.get(2 + numkeys..).unwrap_or(&[]).to_vec();
    let id = args.first().cloned().unwrap_or_default();
    let body = (c == b"EVAL" || c == b"EVAL_RO").then(|| id.clone());
    Script {
        client: client.to_string(),
        id,
        body,
        argv,
        lua_lines: 0,
        reads: BTreeMap::new(),
        writes: HashSet::new(),
        pttl: HashSet::new(),
        deleted: false,
        expired: false,
        events: Vec::new(),
    }
}

/// Replays one capture (one Redis node) and pushes the derived events into
/// `builder`, tagging them with source index `file`. Updates the accounting
/// counters in `info` (`lines_read`, `events_loaded`, `lines_skipped`,
/// `lines_warned`; a line that gives k > 1 events counts as k records read),
/// lists unknown commands in `info.notes`
/// (`unknown commands: FOO x3`) and records warnings (kind `"monitor"`, with
/// `info.name` and the 1-based line) for malformed lines; the rest still
/// loads.
///
/// # Errors
/// Only I/O errors from `reader`; bad lines become warnings.
pub fn read_monitor<R: BufRead>(
    mut reader: R,
    file: u16,
    opts: &MonitorOptions,
    builder: &mut LogBuilder,
    info: &mut SourceInfo,
) -> std::io::Result<()> {
    let mut r = Replay {
        opts,
        file,
        name: info.name.clone(),
        ks: Keyspace::new(),
        conns: HashMap::new(),
        script: None,
        kinds: HashMap::new(),
        last_token: HashMap::new(),
        unknown: BTreeMap::new(),
        lock_keys: BTreeSet::new(),
        business: Vec::new(),
        event_lines: HashSet::new(),
        events: 0,
        commands: 0,
        lua_commands: 0,
    };
    let mut buf = Vec::with_capacity(256);
    let mut line_no: u32 = 0;
    let mut read = 0u64;
    let mut warned = 0u64;
    let mut bytes = 0u64;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        line_no = line_no.saturating_add(1);
        read += 1;
        match parse_line(&buf) {
            Ok(Some(ml)) => r.line(builder, ml, line_no),
            Ok(None) => {}
            Err(reason) => {
                warned += 1;
                builder.warn("monitor", &r.name, u64::from(line_no), reason);
            }
        }
    }
    r.finish_script(builder);
    r.flush_business(builder);
    if info.bytes == 0 {
        info.bytes = bytes;
    }
    // A command can give several events (`DEL` of two held locks, a script
    // that takes several keys): it then counts as that many records, so that
    // `lines_read = events_loaded + lines_skipped + lines_warned` holds.
    let event_lines = r.event_lines.len() as u64;
    let extra = r.events.saturating_sub(event_lines);
    info.lines_read += read + extra;
    info.lines_warned += warned;
    info.events_loaded += r.events;
    info.lines_skipped += read.saturating_sub(warned + event_lines);
    if extra > 0 {
        info.notes.push(format!(
            "{event_lines} command line(s) gave {} events; each extra event counts as a record read",
            r.events
        ));
    }
    info.notes.push(format!(
        "replayed {} commands ({} inside Lua scripts) through the keyspace model",
        r.commands, r.lua_commands
    ));
    if !r.unknown.is_empty() {
        let list: Vec<String> = r.unknown.iter().map(|(c, n)| format!("{c} x{n}")).collect();
        info.notes
            .push(format!("unknown commands: {}", list.join(", ")));
    }
    Ok(())
}

/// Combines the per-node events of a Redlock (one MONITOR capture per node,
/// each replayed by [`read_monitor`] into its own source) into quorum-level
/// events: a holder holds the lock while a majority of `nodes` hold it.
///
/// `events` are the replayed events of all nodes (`source.file` tells the
/// node). For each (lock key, holder) the `Acquired` events are grouped; the
/// quorum acquire is the one that completes a majority (`nodes / 2 + 1`
/// distinct nodes), at its time, with the smallest TTL among the nodes so far
/// (the Redlock validity is bounded by the first node to expire). Holders that
/// never reach a majority give one `AcquireFailed` at their last node's
/// acquire. `Released` events are kept once per (key, holder), at the first
/// node's release (the lock stops being held by a majority as soon as a
/// majority can no longer be reached, conservatively the first delete).
/// Other events are returned unchanged, except `AcquireFailed` per node,
/// which are dropped (the quorum decides). The output is sorted by time.
pub fn merge_redlock(events: &[Event], nodes: usize) -> Vec<Event> {
    let quorum = nodes / 2 + 1;
    let mut out = Vec::new();
    let mut acq: BTreeMap<(Option<Sym>, Option<Sym>), Vec<&Event>> = BTreeMap::new();
    let mut released: HashSet<(Option<Sym>, Option<Sym>)> = HashSet::new();
    let mut sorted: Vec<&Event> = events.iter().collect();
    sorted.sort_by_key(|e| (e.at_ns, e.source.file, e.source.line));
    for e in sorted {
        match e.kind {
            EventKind::Acquired => acq.entry((e.key, e.holder)).or_default().push(e),
            EventKind::AcquireFailed => {}
            EventKind::Released => {
                if released.insert((e.key, e.holder)) {
                    out.push(e.clone());
                }
            }
            _ => out.push(e.clone()),
        }
    }
    for list in acq.values() {
        let mut seen: HashSet<u16> = HashSet::new();
        let mut ttl: Option<i64> = None;
        let mut done = false;
        for e in list {
            seen.insert(e.source.file);
            ttl = match (ttl, e.ttl_ms) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if seen.len() >= quorum {
                let mut q = (*e).clone();
                q.ttl_ms = ttl;
                out.push(q);
                done = true;
                break;
            }
        }
        if !done && let Some(last) = list.last() {
            let mut f = (*last).clone();
            f.kind = EventKind::AcquireFailed;
            f.ttl_ms = None;
            out.push(f);
        }
    }
    out.sort_by_key(|e| (e.at_ns, e.source.file, e.source.line));
    out
}

/// When several MONITOR captures describe the same lock key with the same
/// tokens, they are the nodes of one Redlock: replaces their per-node lock
/// events with quorum-level ones ([`merge_redlock`], majority of the
/// captures) and notes it on each capture. Other events are untouched.
pub fn combine_redlock_nodes(log: &mut LoadedLog) {
    let captures: Vec<u16> = log
        .sources
        .iter()
        .enumerate()
        .filter(|(_, s)| s.dialect == Dialect::RedisMonitor)
        .filter_map(|(i, _)| u16::try_from(i).ok())
        .collect();
    if captures.len() < 2 {
        return;
    }
    let mut nodes_of: HashMap<(Sym, Sym), HashSet<u16>> = HashMap::new();
    for e in &log.events {
        if let (EventKind::Acquired, true, Some(k), Some(h)) = (e.kind, e.inferred, e.key, e.holder)
        {
            nodes_of.entry((k, h)).or_default().insert(e.source.file);
        }
    }
    let redlock_keys: HashSet<Sym> = nodes_of
        .iter()
        .filter(|(_, nodes)| nodes.len() >= 2)
        .map(|((k, _), _)| *k)
        .collect();
    if redlock_keys.is_empty() {
        return;
    }
    let on_redlock = |e: &Event| {
        e.inferred
            && e.key.is_some_and(|k| redlock_keys.contains(&k))
            && matches!(
                e.kind,
                EventKind::Acquired
                    | EventKind::AcquireFailed
                    | EventKind::Renewed
                    | EventKind::Released
                    | EventKind::ReleaseFailed
            )
    };
    let (lock_events, mut rest): (Vec<Event>, Vec<Event>) = std::mem::take(&mut log.events)
        .into_iter()
        .partition(|e| on_redlock(e));
    rest.extend(merge_redlock(&lock_events, captures.len()));
    rest.sort_by_key(|e| (e.at_ns, e.source.file, e.source.line));
    log.events = rest;
    for &c in &captures {
        if let Some(s) = log.sources.get_mut(usize::from(c)) {
            s.notes.push(format!(
                "Redlock: {} captures are nodes of one lock; a hold counts once a majority ({}) granted it",
                captures.len(),
                captures.len() / 2 + 1
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> SourceInfo {
        SourceInfo::new("cap.monitor", Dialect::RedisMonitor)
    }

    fn replay(text: &str) -> (crate::model::LoadedLog, SourceInfo) {
        let mut b = LogBuilder::new();
        let mut i = info();
        let r = read_monitor(
            text.as_bytes(),
            0,
            &MonitorOptions::default(),
            &mut b,
            &mut i,
        );
        assert!(r.is_ok());
        (b.finish(), i)
    }

    fn summary(log: &crate::model::LoadedLog) -> Vec<(EventKind, String, Option<i64>, u32)> {
        log.events
            .iter()
            .map(|e| {
                (
                    e.kind,
                    log.strings.get_or_empty(e.holder).to_string(),
                    e.ttl_ms,
                    e.source.line,
                )
            })
            .collect()
    }

    #[test]
    fn parses_escapes_and_addresses() {
        let l = br#"1795939840.805117 [3 unix:/tmp/r.sock] "set" "a\"b\\c\n\r\t\x41" """#;
        let Ok(Some(m)) = parse_line(l) else {
            panic!("should parse");
        };
        assert_eq!(m.at_ns, 1_795_939_840_805_117_000);
        assert_eq!(m.db, 3);
        assert_eq!(m.client, "unix:/tmp/r.sock");
        assert_eq!(
            m.args,
            vec![b"set".to_vec(), b"a\"b\\c\n\r\tA".to_vec(), Vec::new()]
        );
        let Ok(Some(lua)) = parse_line(b"1.5 [0 lua] \"get\" \"k\"\r\n") else {
            panic!("lua line");
        };
        assert!(lua.is_lua());
        assert_eq!(lua.at_ns, 1_500_000_000);
    }

    #[test]
    fn a_command_with_several_events_keeps_the_accounting() {
        // Found by the fuzz harness's accounting check: `DEL` of two held
        // locks gave 2 events from 1 line, so read != loaded + skipped + warned.
        let (log, i) = replay(
            "1.000000 [0 1.1.1.1:1] \"SET\" \"lock:a\" \"t1\" \"NX\" \"PX\" \"1000\"\n\
             1.100000 [0 1.1.1.1:1] \"SET\" \"lock:b\" \"t1\" \"NX\" \"PX\" \"1000\"\n\
             1.200000 [0 1.1.1.1:1] \"DEL\" \"lock:a\" \"lock:b\"\n",
        );
        assert_eq!(log.events.len(), 4);
        let acc = [
            i.lines_read,
            i.events_loaded,
            i.lines_skipped,
            i.lines_warned,
        ];
        assert_eq!(acc, [4, 4, 0, 0]);
        assert!(
            i.notes.iter().any(|n| n
                == "3 command line(s) gave 4 events; each extra event counts as a record read"),
            "{:?}",
            i.notes
        );
    }

    #[test]
    fn skips_ok_and_error_lines_and_rejects_bad_ones() {
        assert_eq!(parse_line(b"OK\n"), Ok(None));
        assert_eq!(parse_line(b"Error: Server closed the connection"), Ok(None));
        assert_eq!(parse_line(b""), Ok(None));
        assert!(parse_line(b"17959x.1 [0 1.2.3.4:5] \"GET\" \"k\"").is_err());
        assert!(parse_line(b"1.1 [0 1.2.3.4:5] \"GET\" \"k").is_err());
        assert!(parse_line(b"1.1 [0 1.2.3.4:5] GET").is_err());
        assert!(parse_line(b"1.1 0 1.2.3.4:5 \"GET\"").is_err());
        assert!(parse_line(b"1.1 [0 1.2.3.4:5] \"a\\xZZ\"").is_err());
    }

    #[test]
    fn recognises_monitor_text() {
        let t = "OK\n1795939839.626396 [0 127.0.0.1:34098] \"HELLO\" \"3\"\n1795939839.627099 [0 127.0.0.1:34098] \"DEL\" \"k\"\n";
        assert!(looks_like_monitor(t));
        assert!(!looks_like_monitor("{\"ts\": 1}\n"));
        assert!(!looks_like_monitor("OK\n"));
        // A cut-off last line is not held against it.
        assert!(looks_like_monitor(&format!("{t}1795939839.6 [0 1")));
        // Found by the hostile corpus: one garbage line among the first ten
        // made the whole capture "unrecognised", losing every command.
        let g = "1.1 [0 a:1] \"GET\" \"k\"\nnot a command\n1.2 [0 a:1] \"DEL\" \"k\"\n1.3 [0 a:1] \"DEL\" \"k\"\n";
        assert!(looks_like_monitor(g));
        assert!(!looks_like_monitor("1.1 [0 a:1] \"GET\" \"k\"\nx\ny\nz\n"));
    }

    #[test]
    fn glob_and_product() {
        assert!(glob_match(b"*lock*", b"product:1001:lock"));
        assert!(glob_match(b"lock:?", b"lock:a"));
        assert!(!glob_match(b"*lock*", b"product:1001:stock"));
        assert!(glob_match(b"*", b""));
        assert_eq!(product_part("product:1001:stock"), "product:1001");
        assert_eq!(product_part("stock"), "stock");
    }

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

    #[test]
    fn truncated_line_warns_with_its_number_and_the_rest_loads() {
        let (log, info) = replay(concat!(
            "OK\n",
            "1000.0 [0 c:1] \"SET\" \"lock:k\" \"A\" \"NX\n",
            "bogus 1.2\n",
            "1000.1 [0 c:1] \"SET\" \"lock:k\" \"A\" \"NX\"\n",
            "1000.2 [0 c:1] \"DEL\" \"lock:k\"\n",
            "1000.3 [0 c:1] \"SET\" \"lock:k\" \"B",
        ));
        let w = log.warnings.kept();
        assert_eq!(w.len(), 3);
        assert_eq!(w.iter().map(|w| w.line).collect::<Vec<_>>(), vec![2, 3, 6]);
        assert_eq!(w[0].file, "cap.monitor");
        assert!(w[0].reason.contains("not closed"), "{}", w[0].reason);
        assert_eq!(info.lines_warned, 3);
        assert_eq!(
            summary(&log),
            vec![
                (EventKind::Acquired, "A".into(), None, 4),
                (EventKind::Released, "A".into(), None, 5),
            ]
        );
        assert_eq!(log.events[1].detail().deleted, Some(true));
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
        assert!(!info.notes.iter().any(|n| n.contains("unknown")));
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
                (EventKind::Acquired, "A".into(), None, 1),
                (EventKind::Renewed, "A".into(), Some(300), 2),
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
        assert!(info.notes.iter().any(|n| n == "unknown commands: FROB x2"));
    }

    #[test]
    fn redlock_quorum() {
        let mut b = LogBuilder::new();
        let k = b.intern("lock:k");
        let mk = |file: u16, at: i64, holder: Sym, ttl: i64| {
            let mut e = Event::new(at, EventKind::Acquired, SourceRef { file, line: 1 });
            e.key = Some(k);
            e.holder = Some(holder);
            e.ttl_ms = Some(ttl);
            e
        };
        let a = b.intern("A");
        let bb = b.intern("B");
        let events = vec![
            mk(0, 10, a, 100),
            mk(1, 12, a, 90),
            mk(2, 11, bb, 100),
            mk(1, 30, a, 100),
        ];
        let m = merge_redlock(&events, 3);
        assert_eq!(m.len(), 2);
        assert_eq!(
            (m[0].kind, m[0].at_ns, m[0].ttl_ms),
            (EventKind::AcquireFailed, 11, None)
        );
        assert_eq!(
            (m[1].kind, m[1].at_ns, m[1].ttl_ms),
            (EventKind::Acquired, 12, Some(90))
        );
    }
}

//! A replica's replication link, told from one capture alone: the client
//! through which a replica receives its master's writes shows in the
//! replica's MONITOR like any client, and its copies must not count twice
//! (a promoted replica's capture would count a sale the master's capture
//! already counted).
//!
//! # The signs (Redis's own propagation, `src/server.c` `propagateNow`,
//! `src/replication.c` `replicationFeedSlaves`, and Redis 7.0's absolute
//! expiries, redis/redis#8474)
//! - A link only **writes**: the master propagates writes, never reads, and
//!   never a script call (scripts replicate as their effects since Redis
//!   5); it sends no `HELLO`, `AUTH` or `CLIENT` (those are a client's
//!   session).
//! - Since Redis 7.0 every relative expiry is propagated **absolute**:
//!   `SET k v NX PX 10000` arrives as `SET k v PXAT <unix ms>`, `EXPIRE` /
//!   `PEXPIRE` as `PEXPIREAT`. An application rarely writes those.
//! - The stream begins with **`SELECT`** (the master names the database
//!   first after a sync), and a script's effects arrive as the script called
//!   them: **lowercase** names (`hincrby`, `del`) and, when more than one,
//!   inside `MULTI` / `EXEC` (which applications send too, so it is no sign).
//!
//! A client is a link when it sent at least one write, nothing a link never
//! sends, and either an absolute expiry or a `SELECT` first followed by a
//! script's effects. A capture whose link starts before the capture and
//! uses Redis 6's verbatim forms shows none of these: the captures'
//! comparison in [`crate::ingest::redlock`] still finds it when the master
//! was captured too.

/// What one client of a capture has shown so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct LinkSigns {
    /// Lines from this client.
    pub(super) commands: u32,
    /// Lines that write (neither a read, a session command nor `SELECT`,
    /// `PING`, `MULTI`, `EXEC`).
    pub(super) writes: u32,
    /// Its first line was `SELECT`.
    pub(super) select_first: bool,
    /// A write with an absolute expiry (`PXAT`, `EXAT`, `PEXPIREAT`,
    /// `EXPIREAT`).
    pub(super) absolute_expiry: bool,
    /// A lowercase command name: a script's effects (`MULTI` alone is not:
    /// applications send it too).
    pub(super) effects: bool,
    /// Something a link never sends (a read, a script call, a session
    /// command).
    pub(super) not_a_link: bool,
}

/// Commands a replication link never sends: reads, script and function
/// calls, and a client's session (upper case).
const NEVER_FROM_A_LINK: &[&[u8]] = &[
    b"GET",
    b"MGET",
    b"GETRANGE",
    b"STRLEN",
    b"EXISTS",
    b"TTL",
    b"PTTL",
    b"EXPIRETIME",
    b"PEXPIRETIME",
    b"TYPE",
    b"HGET",
    b"HMGET",
    b"HGETALL",
    b"HEXISTS",
    b"HLEN",
    b"HKEYS",
    b"HVALS",
    b"HSCAN",
    b"LRANGE",
    b"LLEN",
    b"LINDEX",
    b"SCARD",
    b"SMEMBERS",
    b"SISMEMBER",
    b"SSCAN",
    b"ZRANGE",
    b"ZRANGEBYSCORE",
    b"ZSCORE",
    b"ZCARD",
    b"ZSCAN",
    b"SCAN",
    b"KEYS",
    b"DBSIZE",
    b"RANDOMKEY",
    b"OBJECT",
    b"DUMP",
    b"EXGET",
    b"BLPOP",
    b"BRPOP",
    b"BLMOVE",
    b"XREAD",
    b"XREADGROUP",
    b"EVAL",
    b"EVALSHA",
    b"EVAL_RO",
    b"EVALSHA_RO",
    b"FCALL",
    b"FCALL_RO",
    b"SCRIPT",
    b"FUNCTION",
    b"HELLO",
    b"AUTH",
    b"CLIENT",
    b"INFO",
    b"CONFIG",
    b"WATCH",
    b"UNWATCH",
    b"SUBSCRIBE",
    b"PSUBSCRIBE",
    b"SSUBSCRIBE",
    b"UNSUBSCRIBE",
    b"PUNSUBSCRIBE",
    b"ECHO",
    b"WAIT",
    b"COMMAND",
    b"QUIT",
    b"RESET",
];

/// Commands that are neither a write nor a sign against a link.
const NEUTRAL: &[&[u8]] = &[b"SELECT", b"PING", b"MULTI", b"EXEC", b"DISCARD"];

impl LinkSigns {
    /// Notes one line of this client: `cmd` as written, `up` upper-cased,
    /// `args` its arguments.
    pub(super) fn observe(&mut self, cmd: &[u8], up: &[u8], args: &[&[u8]]) {
        if self.commands == 0 {
            self.select_first = up == b"SELECT";
        }
        self.commands = self.commands.saturating_add(1);
        if NEVER_FROM_A_LINK.contains(&up) {
            self.not_a_link = true;
            return;
        }
        if cmd.iter().any(u8::is_ascii_lowercase) {
            self.effects = true;
        }
        if NEUTRAL.contains(&up) {
            return;
        }
        self.writes = self.writes.saturating_add(1);
        let absolute_option = || {
            args.iter()
                .any(|a| a.eq_ignore_ascii_case(b"PXAT") || a.eq_ignore_ascii_case(b"EXAT"))
        };
        if matches!(up, b"PEXPIREAT" | b"EXPIREAT")
            || (matches!(up, b"SET" | b"EXSET" | b"GETEX") && absolute_option())
        {
            self.absolute_expiry = true;
        }
    }

    /// True when the signs say this client is a replica's replication link.
    pub(super) fn is_link(&self) -> bool {
        !self.not_a_link
            && self.writes > 0
            && (self.absolute_expiry || (self.select_first && self.effects))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signs(lines: &[&str]) -> LinkSigns {
        let mut s = LinkSigns::default();
        for l in lines {
            let parts: Vec<&[u8]> = l.split(' ').map(str::as_bytes).collect();
            let up = parts[0].to_ascii_uppercase();
            s.observe(parts[0], &up, &parts[1..]);
        }
        s
    }

    #[test]
    fn a_redis_7_link_writes_absolute_expiries_and_effects() {
        // From tests/fixtures/captures/failover-synced/node-6497.monitor.log.
        let s = signs(&[
            "SELECT 0",
            "SET product:1001:stock 2",
            "SET product:1001:lock b84261a4 PXAT 1796325690305",
            "DECRBY product:1001:stock 1",
            "del product:1001:lock",
        ]);
        assert!(s.is_link(), "{s:?}");
        // From tests/fixtures/captures/failover/node-6397.monitor.log
        // (Redisson's scripts as effects).
        let s = signs(&["SELECT 0", "MULTI", "hincrby l u:63 1", "EXEC"]);
        assert!(s.is_link(), "{s:?}");
    }

    #[test]
    fn an_application_client_is_no_link() {
        // redis-py with RESP3: HELLO first; a read.
        assert!(!signs(&["HELLO 3", "SET l t NX PX 10000"]).is_link());
        assert!(!signs(&["SET l t NX PX 10000", "GET product:1:stock"]).is_link());
        // A write-only pooled connection of a client on database 1: SELECT
        // first, upper case, no absolute expiry; with a transaction.
        assert!(!signs(&["SELECT 1", "DECRBY s 1", "RPUSH o x"]).is_link());
        assert!(!signs(&["SELECT 1", "MULTI", "SET l A NX PX 100", "EXEC"]).is_link());
        // A script call is a client's, even with PXAT inside.
        assert!(!signs(&["EVALSHA abc 1 l", "SET l t PXAT 5"]).is_link());
        // Nothing written: nothing to leave out.
        assert!(!signs(&["SELECT 0", "PING"]).is_link());
    }
}

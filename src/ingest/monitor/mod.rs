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
//!     first non-numeric `ARGV`); for a plain `DEL`, when the connection's
//!     request chain names another owner (`monitor/requests.rs`: an order pushed, a
//!     read of the lock, a token, or its winning acquire). The analysis then
//!     sees a delete by a holder whose lock had ended while another was
//!     live: a foreign release. A plain `DEL` whose chain names nobody is
//!     the holder's own release with
//!     [`Event::holder_guessed`](crate::model::Event::holder_guessed) set. A
//!     plain `DEL` of an absent lock key whose chain names an owner →
//!     `Released` with `deleted = Some(false)`.
//!   - Tair: `EXSET ... NX` as `SET ... NX`; `CAS`/`EXCAS` renewals,
//!     `CAD`/`EXCAD` releases, writes refused for a stale version →
//!     `WriteRejected` (`monitor/tair.rs`).
//!   - A script that reads a lock key (`get`, `hexists`, ...) and writes
//!     nothing to it → `ReleaseFailed` (a compare-and-delete whose compare
//!     failed) with the script's token, unless the script is known to be a
//!     renewal (its body, or an earlier run of the same SHA, expires but never
//!     deletes) or asked for `pttl` (a Redisson acquire that lost →
//!     `AcquireFailed`). An `EVALSHA` with no `lua` lines (`NOSCRIPT`)
//!     derives nothing.
//!   - Expiry is modelled (so later `SET NX` outcomes are right) but emits no
//!     event: the analysis computes leases from acquire + TTL + renewals.
//! - Stock keys (glob [`MonitorOptions::stock_pattern`]; Tair's `EXSET`,
//!   `EXGET`, `EXCAS`, `CAS`, `EXINCRBY` as in `monitor/tair.rs`): a `SET` of an
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
//! - Business events carry `product` = the key without the `:`-parts that
//!   name its role, wherever they stand ([`product_of`]:
//!   `product:1001:stock` and `stock:product:1001` → `product:1001`; for an
//!   order list `orders:product:1001` and `product:1001:orders` →
//!   `product:1001`) and `key` = the lock key of the same product seen
//!   anywhere in the capture, compared by their words and numbers
//!   ([`product_tie`]: `stock:sku-2001` ties to `lock:sku:2001`; of two such
//!   lock keys the shorter), as the application logs do.
//!
//! # Several nodes
//! One capture is one Redis node; each replays independently into its own
//! source. [`super::redlock`] decides whether several captures are the
//! nodes of one Redlock or one server over time, and merges a Redlock's
//! per-node lock events.
//!
//! # Where the code is
//! - This file: the options and [`read_monitor`], which feeds the replay
//!   line by line and keeps the source's accounting.
//! - `line.rs`: one line's timestamp, `[<db> <client>]` and quoted
//!   arguments ([`LineParser`]), and [`looks_like_monitor`].
//! - `glob.rs`: the key patterns ([`glob_match`]).
//! - `replay.rs`: the replay: clients and their connections, scripts, and
//!   the rules above for lock, stock and order commands; `tair.rs` Tair's
//!   commands, `requests.rs` who sent a delete, `orders.rs` the order JSON;
//!   `vanish.rs` and `vanished.rs` lock keys the server dropped, inferred
//!   from a write that succeeds only on an absent key (docs/semantics.md §8,
//!   "Keys that vanish").

use std::io::BufRead;

use crate::model::{LogBuilder, SourceInfo, SourceNote};

mod glob;
mod line;
mod link;
mod orders;
mod replay;
mod requests;
mod tair;
#[cfg(test)]
mod test_support;
mod vanish;
mod vanished;

use replay::Replay;

pub use glob::glob_match;
pub use line::{CommandLine, LineParser, MonitorLine, looks_like_monitor, parse_line};

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

/// Words whose `:`-part names a stock key's role, not its product.
pub const STOCK_WORDS: &[&str] = &["stock", "inventory", "库存"];
/// Words whose `:`-part names an order list's role.
pub const ORDER_WORDS: &[&str] = &["order"];
/// Words whose `:`-part names a lock key's role.
pub const LOCK_WORDS: &[&str] = &["lock", "mutex", "锁"];

/// The product a key names: the key without its `:`-parts that contain one
/// of `role` (case-insensitive), wherever they stand
/// (`product:1001:stock`, `stock:product:1001` → `product:1001`;
/// `seckill:stock:2001` → `seckill:2001`), or the whole key when every
/// part names the role (`stock`, `stock_2001`). The key without its last
/// part would make `stock:sku-2001` and `stock:sku-2002` both the product
/// `stock` (two SKUs of one unit each read as one oversold).
pub fn product_of(key: &str, role: &[&str]) -> String {
    let parts: Vec<&str> = key
        .split(':')
        .filter(|p| {
            let p = p.to_lowercase();
            !role.iter().any(|w| p.contains(w))
        })
        .collect();
    if parts.is_empty() {
        key.to_string()
    } else {
        parts.join(":")
    }
}

/// The form in which a product and a lock key's product are compared: the
/// words and numbers of `product_of`, lowercase, joined by `:` (`sku-2001`
/// from `stock:sku-2001` ties to `sku:2001` from `lock:sku:2001`).
pub fn product_tie(product: &str) -> String {
    product
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(":")
}

/// `b` as an owned string, invalid UTF-8 replaced.
fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
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
    let mut r = Replay::new(opts, file, info.name.clone());
    let mut parser = LineParser::new();
    // A line that spans two reads of `reader`'s buffer; other lines are
    // parsed where they lie.
    let mut pending: Vec<u8> = Vec::new();
    let mut line_no: u32 = 0;
    let mut read = 0u64;
    let mut warned = 0u64;
    let mut bytes = 0u64;
    loop {
        let avail = reader.fill_buf()?;
        if avail.is_empty() {
            break;
        }
        let (end, complete) = match memchr::memchr(b'\n', avail) {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        if complete {
            line_no = line_no.saturating_add(1);
            read += 1;
            let raw = if pending.is_empty() {
                &avail[..end]
            } else {
                pending.extend_from_slice(&avail[..end]);
                &pending[..]
            };
            bytes += raw.len() as u64;
            if r.feed(builder, &mut parser, raw, line_no) {
                warned += 1;
            }
            pending.clear();
        } else {
            pending.extend_from_slice(avail);
        }
        reader.consume(end);
    }
    if !pending.is_empty() {
        line_no = line_no.saturating_add(1);
        read += 1;
        bytes += pending.len() as u64;
        if r.feed(builder, &mut parser, &pending, line_no) {
            warned += 1;
        }
    }
    let tally = r.finish(builder);
    if info.bytes == 0 {
        info.bytes = bytes;
    }
    // A command can give several events (`DEL` of two held locks, a script
    // that takes several keys): it then counts as that many records, so that
    // `lines_read = events_loaded + lines_skipped + lines_warned` holds.
    let event_lines = tally.event_lines;
    let extra = tally.events.saturating_sub(event_lines);
    info.lines_read += read + extra;
    info.lines_warned += warned;
    info.events_loaded += tally.events;
    info.lines_skipped += read.saturating_sub(warned + event_lines);
    if extra > 0 {
        info.notes.push(SourceNote::ExtraEvents {
            lines: event_lines,
            events: tally.events,
        });
    }
    info.notes.push(SourceNote::Replayed {
        commands: tally.commands,
        in_scripts: tally.lua_commands,
    });
    info.notes.extend(tally.request_notes);
    if !tally.unknown.is_empty() {
        info.notes.push(SourceNote::UnknownCommands {
            commands: tally.unknown.into_iter().collect(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::test_support::{info, replay, summary};
    use super::*;
    use crate::model::EventKind;

    #[test]
    fn a_command_with_several_events_keeps_the_accounting() {
        // `DEL` of two held locks gives 2 events from 1 line: the line
        // still counts once, so read = loaded + skipped + warned.
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
            i.notes.iter().map(ToString::to_string).any(|n| n
                == "3 command line(s) gave 4 events; each extra event counts as a record read"),
            "{:?}",
            i.notes
        );
    }

    #[test]
    fn lines_split_across_reads_replay_the_same() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "tests/fixtures/cases/REAL-A-redispy-no-renewal/a_redispy_lock_no_renewal.monitor.log",
        );
        let Ok(full) = std::fs::read(path) else {
            panic!("REAL-A capture");
        };
        // The first 300 lines, a `\r\n` line and a last line cut off without
        // its newline.
        let mut text: Vec<u8> = full
            .split_inclusive(|&c| c == b'\n')
            .take(300)
            .flatten()
            .copied()
            .collect();
        text.extend_from_slice(b"1795939841.000000 [0 c:1] \"SET\" \"lock:z\" \"A\" \"NX\"\r\n");
        text.extend_from_slice(b"1795939841.100000 [0 c:1] \"DEL\" \"lock:z\"");
        let run = |cap: usize| {
            let mut b = LogBuilder::new();
            let mut i = info();
            let r = read_monitor(
                std::io::BufReader::with_capacity(cap, &text[..]),
                0,
                &MonitorOptions::default(),
                &mut b,
                &mut i,
            );
            assert!(r.is_ok());
            let log = b.finish();
            (summary(&log), log.warnings.total(), i.lines_read, i.bytes)
        };
        let whole = run(1 << 20);
        assert!(whole.0.len() > 100, "{}", whole.0.len());
        assert_eq!(whole.2, 302);
        assert_eq!(whole.3, text.len() as u64);
        for cap in [1, 2, 7, 64, 100, 4096] {
            assert_eq!(run(cap), whole, "buffer of {cap} bytes");
        }
    }

    #[test]
    fn glob_and_product() {
        assert!(glob_match(b"*lock*", b"product:1001:lock"));
        assert!(glob_match(b"lock:?", b"lock:a"));
        assert!(!glob_match(b"*lock*", b"product:1001:stock"));
        assert!(glob_match(b"*", b""));
        let stock = |k| product_of(k, STOCK_WORDS);
        assert_eq!(stock("product:1001:stock"), "product:1001");
        assert_eq!(stock("stock"), "stock");
        assert_eq!(stock("stock_2001"), "stock_2001");
        assert_eq!(stock("stock:sku-2001"), "sku-2001");
        assert_eq!(stock("stock:sku-2002"), "sku-2002");
        assert_eq!(stock("seckill:STOCK:2001"), "seckill:2001");
        assert_eq!(stock("商品:1001:库存"), "商品:1001");
        let lock = product_of("lock:sku:2001", LOCK_WORDS);
        assert_eq!(lock, "sku:2001");
        assert_eq!(product_tie(&stock("stock:sku-2001")), product_tie(&lock));
        assert_ne!(product_tie(&stock("stock:sku-2002")), product_tie(&lock));
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
        assert_eq!(
            w[0].reason,
            crate::model::MonitorWarning::NotClosed { argument: 4 }.into(),
            "{}",
            w[0].reason
        );
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
}

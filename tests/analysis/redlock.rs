//! Redlock detection from evidence. Several MONITOR
//! captures, one per Redis node, loaded with the library API: the quorum
//! is a majority of the nodes where the lock key is written (not of every
//! capture), a one-node contender's release of its own key is no foreign
//! release, and a failover (an old master and its promoted replica, with
//! Redisson's `uuid:threadId` tokens on both) is not taken for a Redlock.

use crate::support;

use std::path::PathBuf;

use lockreplay::analysis::{Analysis, Cause, FindingKind, LockEnd, Settings, analyze};
use lockreplay::ingest::{IngestOptions, Progress, load_paths};
use lockreplay::model::LoadedLog;
use support::{CAD, monitor_line, write_lines};

/// 2025-12-01T14:40:00Z as epoch seconds.
const T0: i64 = 1_764_600_000;

const KEY: &str = "redlock:product:1001:lock";

/// One MONITOR line at `ms` after `T0`.
fn mon(ms: i64, client: &str, args: &[&str]) -> String {
    monitor_line(T0, ms, client, args)
}

/// A winning or losing `SET NX PX` try.
fn set_nx(ms: i64, client: &str, token: &str, ttl_ms: i64) -> String {
    mon(
        ms,
        client,
        &["SET", KEY, token, "NX", "PX", &ttl_ms.to_string()],
    )
}

/// A compare-and-delete of `token`; `deletes` when the node holds it.
fn cad(ms: i64, client: &str, token: &str, deletes: bool) -> Vec<String> {
    let mut lines = vec![
        mon(ms, client, &["EVAL", CAD, "1", KEY, token]),
        mon(ms, "lua", &["get", KEY]),
    ];
    if deletes {
        lines.push(mon(ms, "lua", &["del", KEY]));
    }
    lines
}

fn load(files: &[PathBuf]) -> (LoadedLog, Analysis) {
    let log = load_paths(files, &IngestOptions::default(), &Progress::default()).expect("load");
    let a = analyze(&log, &Settings::default());
    (log, a)
}

fn holders(log: &LoadedLog, a: &Analysis) -> Vec<String> {
    a.leases
        .iter()
        .map(|l| log.strings.get(l.holder).to_string())
        .collect()
}

fn notes(log: &LoadedLog, file: usize) -> String {
    log.sources[file]
        .notes
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The data node: a stock counter and an order list, no lock key.
fn data_node() -> Vec<String> {
    let order = |id: &str, owner: &str| {
        format!(r#"{{"order_id":"{id}","qty":1,"unit_price":200,"lock_owner":"{owner}"}}"#)
    };
    vec![
        mon(0, "10.0.0.9:50000", &["SET", "product:1001:stock", "2"]),
        mon(
            300,
            "10.0.0.5:50011",
            &["DECRBY", "product:1001:stock", "1"],
        ),
        mon(
            310,
            "10.0.0.5:50011",
            &["RPUSH", "orders:product:1001", &order("o-A", "tok-A")],
        ),
        mon(
            1200,
            "10.0.0.6:50012",
            &["DECRBY", "product:1001:stock", "1"],
        ),
        mon(
            1210,
            "10.0.0.6:50012",
            &["RPUSH", "orders:product:1001", &order("o-B", "tok-B")],
        ),
    ]
}

#[test]
fn quorum_is_a_majority_of_the_lock_nodes_not_of_every_capture() {
    // Three lock nodes and a data node. Node 3 never sees tok-A's SET (a
    // slow or partitioned node): tok-A holds 2 of the 3 lock nodes, a
    // quorum; counted over the 4 captures it would need 3.
    let dir = tempfile::tempdir().expect("tempdir");
    let lock_node = |n: i64| {
        let a = format!("10.0.0.5:4000{n}");
        let b = format!("10.0.0.6:4100{n}");
        let mut lines = Vec::new();
        if n != 3 {
            lines.push(set_nx(10 + n, &a, "tok-A", 2000));
        }
        lines.extend(cad(500 + n, &a, "tok-A", n != 3));
        lines.push(set_nx(1000 + n, &b, "tok-B", 2000));
        lines.extend(cad(1400 + n, &b, "tok-B", true));
        lines
    };
    let mut files: Vec<PathBuf> = (1..=3)
        .map(|n| write_lines(dir.path(), &format!("node{n}.monitor.log"), &lock_node(n)))
        .collect();
    files.push(write_lines(dir.path(), "data.monitor.log", &data_node()));
    let (log, a) = load(&files);
    assert_eq!(
        holders(&log, &a),
        ["tok-A", "tok-B"],
        "tok-A had 2 of 3 lock nodes"
    );
    assert_eq!(
        a.leases[0].ttl_ms.get(),
        Some(1999),
        "TTL left on its first node to expire"
    );
    assert_eq!(a.leases[0].lock_end, LockEnd::OwnRelease);
    assert!(a.overlaps.is_empty());
    for n in 0..3 {
        let notes = notes(&log, n);
        assert!(notes.contains("quorum 2 of 3"), "{notes}");
        assert!(
            notes.starts_with("Redlock") || notes.contains("\nRedlock"),
            "{notes}"
        );
    }
    let data = notes(&log, 3);
    assert!(data.contains("a data node"), "{data}");
    assert!(!data.contains("quorum 2"), "{data}");
}

#[test]
fn a_one_node_contender_deleting_its_own_key_is_no_foreign_release() {
    // tok-C wins node 3 first, loses nodes 1 and 2 to tok-A, and, as Redlock
    // clients do after failing the quorum, releases every node: its
    // compare-and-delete deletes its own key on node 3. That is its own
    // release of a hold it never had, not a delete of tok-A's lock.
    let dir = tempfile::tempdir().expect("tempdir");
    let node = |n: i64| {
        let a = format!("10.0.0.5:4000{n}");
        let c = format!("10.0.0.7:4200{n}");
        let b = format!("10.0.0.6:4100{n}");
        let mut lines = Vec::new();
        if n == 3 {
            lines.push(set_nx(9, &c, "tok-C", 2000));
            lines.push(set_nx(12, &a, "tok-A", 2000));
        } else {
            lines.push(set_nx(10 + n, &a, "tok-A", 2000));
            lines.push(set_nx(12 + n, &c, "tok-C", 2000));
        }
        lines.extend(cad(20 + n, &c, "tok-C", n == 3));
        lines.extend(cad(800 + n, &a, "tok-A", n != 3));
        lines.push(set_nx(1000 + n, &b, "tok-B", 2000));
        lines.extend(cad(1400 + n, &b, "tok-B", true));
        lines
    };
    let files: Vec<PathBuf> = (1..=3)
        .map(|n| write_lines(dir.path(), &format!("node{n}.monitor.log"), &node(n)))
        .collect();
    let (log, a) = load(&files);
    assert_eq!(holders(&log, &a), ["tok-A", "tok-B"]);
    assert!(
        !a.findings
            .iter()
            .any(|f| f.kind == FindingKind::ForeignRelease),
        "{:?}",
        a.findings
    );
    let lease_a = &a.leases[0];
    assert_eq!(lease_a.lock_end, LockEnd::OwnRelease);
    assert_eq!(
        lease_a.lock_end_ns,
        (T0 * 1000 + 801) * 1_000_000,
        "tok-A's lock ends at its own release, not at tok-C's"
    );
    assert!(a.overlaps.is_empty());
}

/// Redisson's lock script (`RedissonLock.tryLockInnerAsync`): KEYS[1] the
/// lock, ARGV[1] the lease, ARGV[2] `uuid:threadId`.
const REDISSON_LOCK: &str = "if (redis.call('exists', KEYS[1]) == 0) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);";

/// Redisson's unlock script (`RedissonLock.unlockInnerAsync`): KEYS[2] the
/// channel, ARGV[1] the message, ARGV[2] the lease, ARGV[3] the lock name.
const REDISSON_UNLOCK: &str = "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; end; return nil;";

const RKEY: &str = "order:42:lock";

/// A Redisson `lock()` that finds the key absent.
fn redisson_lock(ms: i64, client: &str, name: &str) -> Vec<String> {
    vec![
        mon(
            ms,
            client,
            &["EVAL", REDISSON_LOCK, "1", RKEY, "30000", name],
        ),
        mon(ms, "lua", &["exists", RKEY]),
        mon(ms, "lua", &["hincrby", RKEY, name, "1"]),
        mon(ms, "lua", &["pexpire", RKEY, "30000"]),
    ]
}

/// A Redisson `unlock()`; `holds` when the hash has the caller's field.
fn redisson_unlock(ms: i64, client: &str, name: &str, holds: bool) -> Vec<String> {
    let chan = format!("redisson_lock__channel:{{{RKEY}}}");
    let mut lines = vec![
        mon(
            ms,
            client,
            &[
                "EVAL",
                REDISSON_UNLOCK,
                "2",
                RKEY,
                &chan,
                "0",
                "30000",
                name,
            ],
        ),
        mon(ms, "lua", &["hexists", RKEY, name]),
    ];
    if holds {
        lines.push(mon(ms, "lua", &["hincrby", RKEY, name, "-1"]));
        lines.push(mon(ms, "lua", &["del", RKEY]));
        lines.push(mon(ms, "lua", &["publish", &chan, "0"]));
    }
    lines
}

/// What a replica's MONITOR shows of its master's Redisson lock or
/// unlock (Redis 7 replicates a script's effects in `MULTI` ... `EXEC`,
/// with absolute expiry times), from the master's address.
fn replicated(ms: i64, name: &str, lock: bool) -> Vec<String> {
    let link = "10.0.0.1:6379";
    let chan = format!("redisson_lock__channel:{{{RKEY}}}");
    let at = (T0 * 1000 + ms + 30_000).to_string();
    let mut lines = vec![mon(ms, link, &["MULTI"])];
    if lock {
        lines.push(mon(ms, link, &["hincrby", RKEY, name, "1"]));
        lines.push(mon(ms, link, &["PEXPIREAT", RKEY, &at]));
    } else {
        lines.push(mon(ms, link, &["hincrby", RKEY, name, "-1"]));
        lines.push(mon(ms, link, &["del", RKEY]));
        lines.push(mon(ms, link, &["publish", &chan, "0"]));
    }
    lines.push(mon(ms, link, &["EXEC"]));
    lines
}

/// The old master grants thread 57 the lock at 1.0 s and dies before
/// replicating it; its capture ends. The promoted replica grants thread 61
/// the same lock at 3.0 s: the lock was lost in the failover. Both
/// threads' `uuid:threadId` appear on both servers, as Redisson reuses them
/// for every lock. With `copies`, the replica's capture began before the
/// failure and shows the replicated writes before its own.
fn failover(copies: bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (t57, t61) = (
        "8743c9c0-0795-4907-87fd-6c719a6b4586:57",
        "8743c9c0-0795-4907-87fd-6c719a6b4586:61",
    );
    let (c57, c61) = ("10.0.0.5:40001", "10.0.0.6:40002");
    let mut master = Vec::new();
    master.extend(redisson_lock(100, c57, t57));
    master.extend(redisson_unlock(300, c57, t57, true));
    master.extend(redisson_lock(400, c61, t61));
    master.extend(redisson_unlock(600, c61, t61, true));
    master.extend(redisson_lock(1000, c57, t57));
    let (n57, n61) = ("10.0.0.5:40101", "10.0.0.6:40102");
    let mut promoted = Vec::new();
    if copies {
        promoted.push(mon(50, "10.0.0.1:6379", &["SELECT", "0"]));
        promoted.extend(replicated(101, t57, true));
        promoted.extend(replicated(301, t57, false));
        promoted.extend(replicated(401, t61, true));
        promoted.extend(replicated(601, t61, false));
    }
    promoted.extend(redisson_lock(3000, n61, t61));
    promoted.extend(redisson_unlock(4000, n57, t57, false));
    promoted.extend(redisson_unlock(5000, n61, t61, true));
    promoted.extend(redisson_lock(6000, n57, t57));
    promoted.extend(redisson_unlock(6500, n57, t57, true));
    let files = vec![
        write_lines(dir.path(), "redis-6379.monitor.log", &master),
        write_lines(dir.path(), "redis-6380.monitor.log", &promoted),
    ];
    let (log, a) = load(&files);
    let tid = |h: String| h.rsplit(':').next().unwrap_or("").to_string();
    let tids: Vec<String> = holders(&log, &a).into_iter().map(tid).collect();
    assert_eq!(
        tids,
        ["57", "61", "57", "61", "57"],
        "every hold of either server is kept, once"
    );
    assert_eq!(a.overlaps.len(), 1, "{:?}", a.overlaps);
    let o = &a.overlaps[0];
    assert_eq!(o.cause, Cause::LockVanished);
    assert_eq!(log.strings.get(a.leases[o.earlier].holder), t57);
    assert_eq!(log.strings.get(a.leases[o.later].holder), t61);
    assert!(
        (o.duration_ms() - 1000.0).abs() < 1e-6,
        "{}",
        o.duration_ms()
    );
    for n in 0..2 {
        let notes = notes(&log, n);
        assert!(
            notes.contains("Failover")
                && notes.contains("from `")
                && notes.contains("redis-6379.monitor.log` to `")
                && notes.contains("2025-12-01T14:40:03.000+00:00"),
            "{notes}"
        );
        assert!(!notes.contains("quorum"), "{notes}");
    }
    let replica = notes(&log, 1);
    assert_eq!(
        // The link is told by its own signs (SELECT first, PEXPIREAT, the
        // scripts' effects in MULTI/EXEC) before the captures are compared.
        replica.contains("Replica: client `10.0.0.1:6379` is the replication link"),
        copies,
        "{replica}"
    );
}

#[test]
fn a_failover_with_redisson_tokens_on_both_nodes_is_not_a_redlock() {
    failover(false);
}

#[test]
fn a_replicas_copies_of_its_masters_writes_are_no_redlock_grants() {
    failover(true);
}

#[test]
fn a_redlock_whose_tokens_are_on_every_node_still_merges_each_grant() {
    // A true 3-node Redlock. Redisson's RedissonRedLock names its lock
    // `uuid:threadId` on every node and a thread reuses it: tok-A takes the
    // lock twice, and both grants count.
    let dir = tempfile::tempdir().expect("tempdir");
    let node = |n: i64| {
        let a = format!("10.0.0.5:4000{n}");
        let b = format!("10.0.0.6:4100{n}");
        let mut lines = Vec::new();
        lines.push(set_nx(10 + n, &a, "uuid-a:1", 2000));
        lines.extend(cad(500 + n, &a, "uuid-a:1", true));
        lines.push(set_nx(1000 + n, &b, "uuid-b:1", 2000));
        lines.extend(cad(1400 + n, &b, "uuid-b:1", true));
        lines.push(set_nx(2000 + n, &a, "uuid-a:1", 2000));
        lines.extend(cad(2300 + n, &a, "uuid-a:1", true));
        lines
    };
    let files: Vec<PathBuf> = (1..=3)
        .map(|n| write_lines(dir.path(), &format!("node{n}.monitor.log"), &node(n)))
        .collect();
    let (log, a) = load(&files);
    assert_eq!(holders(&log, &a), ["uuid-a:1", "uuid-b:1", "uuid-a:1"]);
    // Granted at the second node's SET; released at the second node's
    // delete, which leaves it fewer than a quorum.
    let ms = |l: usize| {
        (
            a.leases[l].acquired_ns / 1_000_000 - T0 * 1000,
            a.leases[l].window_end_ns / 1_000_000 - T0 * 1000,
        )
    };
    assert_eq!(
        [ms(0), ms(1), ms(2)],
        [(12, 502), (1002, 1402), (2002, 2302)]
    );
    assert!(a.leases.iter().all(|l| l.lock_end == LockEnd::OwnRelease));
    assert!(a.overlaps.is_empty());
    assert!(
        a.findings
            .iter()
            .all(|f| f.kind != FindingKind::ForeignRelease)
    );
    for n in 0..3 {
        let notes = notes(&log, n);
        assert!(
            notes.contains("Redlock")
                && notes.contains("quorum 2 of 3")
                && notes.contains("9 of 9 per-node acquires"),
            "{notes}"
        );
    }
}

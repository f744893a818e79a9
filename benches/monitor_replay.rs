//! Criterion benchmarks for `redis-cli monitor` captures (the target: replay
//! at least 1 M commands/s): the line parser alone, and parse + replay
//! through the keyspace model to events ([`read_monitor`]), in commands per
//! second, on two captures:
//!
//! - `real_a_x100`: the REAL-A capture (redis-py, one lock key) repeated 100
//!   times, each copy shifted 20 s later so that time moves forward;
//! - `flash_sale`: a synthetic capture of 300 clients on 1,000 products:
//!   `SET NX PX`, `GET` and `DECRBY` of the stock, `RPUSH` of a JSON order,
//!   some `PEXPIRE` renewals, and an `EVALSHA` compare-and-delete with its
//!   `lua` lines; most attempts are on 20 hot products, and one hold in 100
//!   stalls past its TTL.
//!
//! - `one_hash_1m`: 1,000,000 `HSET orders:sku:3b order-N 1` on one hash
//!   (a write that scanned the hash would make it quadratic), and
//!   `one_hset_1m_fields`: one `HSET` with 1,000,000 fields.
//!
//! Set `LOCKREPLAY_BENCH_WRITE=DIR` to also write both captures to `DIR`
//! (to profile `lockreplay analyze` or a test on them).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lockreplay::ingest::monitor::{LineParser, MonitorOptions, parse_line, read_monitor};
use lockreplay::model::{Dialect, LogBuilder, SourceInfo};

/// The REAL-A capture `reps` times, copy `r` shifted by `r * 20` s (the
/// capture spans 13 s). The leading `OK` stays only at the top.
fn real_a(reps: usize) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/cases/REAL-A-redispy-no-renewal/a_redispy_lock_no_renewal.monitor.log",
    );
    let one = std::fs::read_to_string(path).expect("REAL-A capture");
    let mut out = Vec::with_capacity(one.len() * reps);
    out.extend_from_slice(b"OK\n");
    for r in 0..reps {
        for line in one.lines() {
            let Some((secs, rest)) = line.split_once('.') else {
                continue; // `OK`
            };
            let secs: u64 = secs.parse().expect("epoch seconds");
            out.extend_from_slice(format!("{}.{rest}\n", secs + 20 * r as u64).as_bytes());
        }
    }
    out
}

/// A small deterministic generator (xorshift), so every run sees the same
/// capture.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[derive(Clone)]
enum Client {
    Idle,
    Holding {
        product: usize,
        token: String,
        step: u8,
        renew: bool,
    },
}

/// A flash sale of about `commands` command lines: 300 clients, 1,000
/// products, TTL 2 s. The generator keeps its own view of each lock so that
/// the scripts' `lua` lines are the ones Redis would print.
fn flash_sale(commands: usize) -> Vec<u8> {
    const CLIENTS: usize = 300;
    const PRODUCTS: usize = 1_000;
    const HOT: usize = 20;
    const TTL_MS: i64 = 2_000;
    const SHA: &str = "c3f8721cbb97f72bc19e972846bd7aaf91901658";
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut cap = Capture {
        out: Vec::with_capacity(commands * 120),
        lines: 0,
    };
    let mut now_us: i64 = 1_795_939_839_000_000;
    cap.out.extend_from_slice(b"OK\n");
    let addr: Vec<String> = (0..CLIENTS)
        .map(|c| format!("10.0.{}.{}:{}", c / 250, c % 250, 40_000 + c))
        .collect();
    for p in 0..PRODUCTS {
        cap.line(
            now_us,
            &addr[0],
            &["SET", &format!("product:{p}:stock"), "1000"],
        );
    }
    // Per product: (holder token, deadline in ms) as Redis holds it.
    let mut locks: Vec<Option<(String, i64)>> = vec![None; PRODUCTS];
    let mut clients = vec![Client::Idle; CLIENTS];
    let mut asleep_until = vec![0i64; CLIENTS];
    let mut holds = 0u64;
    while cap.lines < commands {
        now_us += 1 + rng.below(40) as i64;
        let now_ms = now_us / 1000;
        let c = rng.below(CLIENTS);
        if asleep_until[c] > now_us {
            continue;
        }
        let a = &addr[c];
        let live = |l: &Option<(String, i64)>| l.as_ref().filter(|(_, d)| now_ms <= *d).cloned();
        match clients[c].clone() {
            Client::Idle => {
                // Four attempts in five are on the 20 hot products.
                let p = if rng.below(5) < 4 {
                    rng.below(HOT)
                } else {
                    rng.below(PRODUCTS)
                };
                let token = format!("{:016x}{:016x}", rng.next(), c);
                let key = format!("product:{p}:lock");
                cap.line(now_us, a, &["SET", &key, &token, "NX", "PX", "2000"]);
                if live(&locks[p]).is_none() {
                    locks[p] = Some((token.clone(), now_ms + TTL_MS));
                    holds += 1;
                    if holds.is_multiple_of(100) {
                        asleep_until[c] = now_us + 2_500_000;
                    }
                    clients[c] = Client::Holding {
                        product: p,
                        token,
                        step: 0,
                        renew: holds.is_multiple_of(7),
                    };
                }
            }
            Client::Holding {
                product: p,
                token,
                step,
                renew,
            } => {
                let next = |step| Client::Holding {
                    product: p,
                    token: token.clone(),
                    step,
                    renew,
                };
                let lock = format!("product:{p}:lock");
                match step {
                    0 => cap.line(now_us, a, &["GET", &format!("product:{p}:stock")]),
                    1 => cap.line(now_us, a, &["DECRBY", &format!("product:{p}:stock"), "1"]),
                    2 => {
                        let order = format!(
                            "{{\"order_id\": \"SO{holds:010}{c:03}\", \"sku\": \"product:{p}\", \"qty\": 1, \"unit_price\": 199.0, \"lock_owner\": \"{token}\"}}"
                        );
                        cap.line(
                            now_us,
                            a,
                            &["RPUSH", &format!("product:{p}:orders"), &order],
                        );
                    }
                    3 if renew => {
                        cap.line(now_us, a, &["PEXPIRE", &lock, "2000"]);
                        if let Some((t, _)) = live(&locks[p]) {
                            locks[p] = Some((t, now_ms + TTL_MS));
                        }
                    }
                    3 => {}
                    _ => {
                        cap.line(now_us, a, &["EVALSHA", SHA, "1", &lock, &token]);
                        cap.line(now_us, "lua", &["get", &lock]);
                        if live(&locks[p]).is_some_and(|(t, _)| t == token) {
                            cap.line(now_us, "lua", &["del", &lock]);
                            locks[p] = None;
                        }
                        clients[c] = Client::Idle;
                        continue;
                    }
                }
                clients[c] = next(step + 1);
            }
        }
    }
    cap.out
}

/// A capture being written.
struct Capture {
    out: Vec<u8>,
    lines: usize,
}

impl Capture {
    /// One command line, its arguments quoted as redis-cli does.
    fn line(&mut self, now_us: i64, client: &str, args: &[&str]) {
        let out = &mut self.out;
        out.extend_from_slice(
            format!(
                "{}.{:06} [0 {client}]",
                now_us / 1_000_000,
                now_us % 1_000_000
            )
            .as_bytes(),
        );
        for a in args {
            out.extend_from_slice(b" \"");
            for &c in a.as_bytes() {
                if c == b'"' || c == b'\\' {
                    out.push(b'\\');
                }
                out.push(c);
            }
            out.push(b'"');
        }
        out.push(b'\n');
        self.lines += 1;
    }
}

/// `n` `HSET`s of a new field each on one hash, after one lock grant (a
/// capture with no lock is not replayed for events but is parsed the same).
fn one_hash(n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * 72);
    out.extend_from_slice(
        b"1795939839.000001 [0 10.0.0.1:5000] \"SET\" \"sku:3b:lock\" \"t1\" \"NX\" \"PX\" \"30000\"\n",
    );
    for i in 0..n {
        let us = 1 + i as u64;
        out.extend_from_slice(
            format!(
                "{}.{:06} [0 10.0.0.1:5000] \"HSET\" \"orders:sku:3b\" \"order-{i}\" \"1\"\n",
                1_795_939_840 + us / 1_000_000,
                us % 1_000_000
            )
            .as_bytes(),
        );
    }
    out
}

/// One `HSET` of `n` fields on one hash, after one lock grant.
fn one_hset(n: usize) -> Vec<u8> {
    let mut out = b"1795939839.000001 [0 10.0.0.1:5000] \"SET\" \"sku:3b:lock\" \"t1\" \"NX\" \"PX\" \"30000\"\n1795939840.000001 [0 10.0.0.1:5000] \"HSET\" \"orders:sku:3b\"".to_vec();
    for i in 0..n {
        out.extend_from_slice(format!(" \"order-{i}\" \"1\"").as_bytes());
    }
    out.push(b'\n');
    out
}

/// Command lines in a capture (everything but the leading `OK`).
fn command_lines(text: &[u8]) -> u64 {
    text.split(|&c| c == b'\n')
        .filter(|l| matches!(parse_line(l), Ok(Some(_))))
        .count() as u64
}

fn replay(text: &[u8]) -> LogBuilder {
    let mut b = LogBuilder::new();
    let mut info = SourceInfo::new("bench.monitor", Dialect::RedisMonitor);
    read_monitor(text, 0, &MonitorOptions::default(), &mut b, &mut info).expect("replay");
    b
}

fn benches(c: &mut Criterion) {
    let inputs = [
        ("real_a_x100", real_a(100)),
        ("flash_sale", flash_sale(400_000)),
        ("one_hash_1m", one_hash(1_000_000)),
        ("one_hset_1m_fields", one_hset(1_000_000)),
    ];
    if let Ok(dir) = std::env::var("LOCKREPLAY_BENCH_WRITE") {
        for (name, text) in &inputs {
            std::fs::write(format!("{dir}/{name}.monitor.log"), text).expect("write");
        }
    }
    for (name, text) in &inputs {
        let commands = command_lines(text);
        let mut g = c.benchmark_group(format!("monitor_{name}"));
        g.throughput(Throughput::Elements(commands));
        g.sample_size(10);
        g.bench_function("LineParser::parse", |b| {
            b.iter(|| {
                let mut parser = LineParser::new();
                let mut n = 0u64;
                for l in black_box(&text[..]).split(|&c| c == b'\n') {
                    if let Ok(Some(m)) = parser.parse(l) {
                        n += m.len() as u64;
                    }
                }
                n
            })
        });
        g.bench_function("read_monitor (parse + replay)", |b| {
            b.iter(|| replay(black_box(&text[..])))
        });
        g.finish();
    }
}

criterion_group!(monitor, benches);
criterion_main!(monitor);

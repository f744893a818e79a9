//! A deterministic discrete-event model of a flash sale guarded by a Redis
//! lock, writing app-style JSON Lines with its own ground truth.
//!
//! Buyers arrive, try `SET key token NX PX ttl` (or the naive `SETNX` +
//! `EXPIRE`), poll every `retry_ms` until `blocking_timeout_ms`, read the
//! stock, parse a supplier page (sometimes slowly), write `stock - qty` back
//! (a read-modify-write that loses updates when two holders overlap), create
//! an order and release (Lua compare-and-delete, or a plain `DEL`). An
//! optional watchdog renews the lease while its holder works.
//!
//! Time is integer milliseconds; there are no threads and no wall clock: a
//! seed fixes every line. The model keeps its own ground truth (units sold
//! beyond the initial stock, overlap pairs under the rules of
//! `tests/fixtures/cases/README.md`) from its view of the stock and the Redis key,
//! never from `crate::analysis`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// Default number of buyers per wave.
pub const DEFAULT_BUYERS: u32 = 500;
/// Default products (lock keys) per wave.
pub const DEFAULT_PRODUCTS: u32 = 1;
/// Default number of hosts.
pub const DEFAULT_HOSTS: u32 = 2;
/// Default seed of the pseudo-random generator.
pub const DEFAULT_SEED: u64 = 1;
/// Default lock TTL, ms.
pub const DEFAULT_TTL_MS: i64 = 2000;
/// Default probability that a supplier-page parse is slow.
pub const DEFAULT_SLOW_PROB: f64 = 0.05;
/// Default length of a slow parse, ms.
pub const DEFAULT_SLOW_MS: i64 = 3000;
/// Default initial stock per product, units.
pub const DEFAULT_INITIAL_STOCK: i64 = 12;
/// Default list price per unit (CNY).
pub const DEFAULT_UNIT_PRICE: f64 = 299.0;
/// Default poll interval of a blocked acquire, ms.
pub const DEFAULT_RETRY_MS: i64 = 100;
/// Default blocking timeout of an acquire, ms.
pub const DEFAULT_BLOCKING_TIMEOUT_MS: i64 = 20_000;
/// Default spread of buyer arrivals in a wave, ms.
pub const DEFAULT_ARRIVAL_MS: i64 = 1000;
/// First event time: 2026-11-29T16:10:39.627+08:00, ms since the Unix epoch.
pub const START_MS: i64 = 1_795_939_839_627;
/// Offset of the logged timestamps (+08:00), seconds.
const LOG_OFFSET_S: i64 = 8 * 3600;
/// Quiet time between two waves, ms.
const WAVE_GAP_MS: i64 = 1000;

/// What to simulate and where to write it (`lockreplay simulate` maps its
/// flags onto this; the defaults are the `DEFAULT_*` constants).
#[derive(Clone, Debug)]
pub struct SimArgs {
    /// Buyers per wave (concurrent requests).
    pub buyers: u32,
    /// Products (SKUs) per wave; each has its own lock key and stock.
    pub products: u32,
    /// Hosts the buyers are spread over.
    pub hosts: u32,
    /// Lock TTL, ms.
    pub ttl_ms: i64,
    /// Probability (0..=1) that a supplier-page parse is slow.
    pub slow_prob: f64,
    /// Length of a slow parse, ms.
    pub slow_ms: i64,
    /// Run a watchdog that renews the lease while its holder works.
    pub watchdog: bool,
    /// Watchdog interval, ms (default: half the TTL).
    pub renew_every_ms: Option<i64>,
    /// The naive pattern: SETNX + separate EXPIRE, release by plain DEL
    /// without an owner check.
    pub naive: bool,
    /// Initial stock per product, units.
    pub initial_stock: i64,
    /// List price per unit, CNY (logged on orders; not the loss).
    pub unit_price: f64,
    /// Seed of the pseudo-random generator; the same seed gives the same log.
    pub seed: u64,
    /// Poll interval of a blocked acquire, ms.
    pub retry_ms: i64,
    /// How long a buyer waits for the lock before giving up, ms.
    pub blocking_timeout_ms: i64,
    /// Buyers of a wave arrive spread over this many ms.
    pub arrival_ms: i64,
    /// Target event count (benchmarks): keep generating waves of buyers on
    /// fresh products until at least this many lines are written.
    pub events: Option<u64>,
    /// Where to write the JSON Lines, atomically (stdout when absent).
    pub out: Option<PathBuf>,
    /// Where to write the ground truth as JSON.
    pub truth: Option<PathBuf>,
}

impl Default for SimArgs {
    fn default() -> Self {
        SimArgs {
            buyers: DEFAULT_BUYERS,
            products: DEFAULT_PRODUCTS,
            hosts: DEFAULT_HOSTS,
            ttl_ms: DEFAULT_TTL_MS,
            slow_prob: DEFAULT_SLOW_PROB,
            slow_ms: DEFAULT_SLOW_MS,
            watchdog: false,
            renew_every_ms: None,
            naive: false,
            initial_stock: DEFAULT_INITIAL_STOCK,
            unit_price: DEFAULT_UNIT_PRICE,
            seed: DEFAULT_SEED,
            retry_ms: DEFAULT_RETRY_MS,
            blocking_timeout_ms: DEFAULT_BLOCKING_TIMEOUT_MS,
            arrival_ms: DEFAULT_ARRIVAL_MS,
            events: None,
            out: None,
            truth: None,
        }
    }
}

/// How a lock ended on the (modelled) server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TruthLockEnd {
    /// The holder deleted its own lock.
    OwnRelease,
    /// The lease ran out.
    Expired,
    /// Another holder's plain `DEL` removed it (naive mode).
    ForeignRelease,
}

/// One overlap pair in the model's ground truth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TruthOverlap {
    /// Lock key.
    pub key: String,
    /// Token of the earlier holder.
    pub earlier: String,
    /// Token of the later holder.
    pub later: String,
    /// The later acquire, ms since the Unix epoch.
    pub start_ms: i64,
    /// Length of the intersection of the two believed windows, ms.
    pub duration_ms: i64,
    /// `lease_expired` or `foreign_release`: how the earlier lock ended.
    pub cause: String,
}

/// Stock accounting of one product in the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProductTruth {
    /// Lock key (`product:{id}:lock`), which is also the product id the
    /// analysis uses.
    pub lock_key: String,
    /// Stock at `stock_initialized`, units.
    pub initial_stock: i64,
    /// Units sold (sum of order quantities).
    pub sold: i64,
    /// Orders created.
    pub orders: u64,
    /// Units sold beyond the initial stock.
    pub oversold_units: i64,
    /// Stock left in the model at the end (higher than `initial - sold`
    /// when updates were lost).
    pub final_stock: i64,
}

/// What really happened in a simulated run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Truth {
    /// `no_renewal`, `watchdog`, `naive` or `naive_watchdog`.
    pub mode: String,
    /// Seed used.
    pub seed: u64,
    /// Lines written.
    pub events: u64,
    /// Waves of buyers simulated.
    pub waves: u64,
    /// Buyers (requests).
    pub buyers: u64,
    /// Successful acquires (holds).
    pub holds: u64,
    /// Buyers that gave up waiting for the lock.
    pub acquire_timeouts: u64,
    /// Successful renewals.
    pub renewals: u64,
    /// Locks that ended by expiry while their holder still worked.
    pub expired_while_held: u64,
    /// Plain `DEL`s that removed another holder's lock (naive mode).
    pub foreign_deletes: u64,
    /// Units sold over all products.
    pub sold: i64,
    /// Oversold units over all products.
    pub oversold_units: i64,
    /// Per product, in lock-key order of creation.
    pub products: Vec<ProductTruth>,
    /// Overlap pairs, sorted by (key, start, earlier, later).
    pub overlaps: Vec<TruthOverlap>,
}

/// splitmix64: small, fast, good enough for a simulation, and fully
/// determined by its seed.
#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi]` (inclusive); `lo` when the range is empty.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo) as u64 + 1;
        lo + (self.next_u64() % span) as i64
    }

    fn hex(&mut self, digits: usize) -> String {
        let mut s = String::with_capacity(digits);
        while s.len() < digits {
            let v = self.next_u64();
            s.push_str(&format!("{v:016x}"));
        }
        s.truncate(digits);
        s
    }
}

/// A step of one buyer, run at its scheduled time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Arrive,
    TryAcquire,
    GiveUp,
    ReadStock,
    SoldOut,
    Parsed,
    Deduct,
    Order,
    Release,
    Renew,
}

/// The modelled Redis value of a lock key.
#[derive(Clone, Copy, Debug)]
struct KeyState {
    /// Index of the hold whose token is stored.
    hold: usize,
    /// The key is gone once now > deadline, ms.
    deadline_ms: i64,
}

struct Product {
    key: String,
    stock_key: String,
    stock: i64,
    initial: i64,
    sold: i64,
    orders: u64,
    redis: Option<KeyState>,
}

struct Buyer {
    product: usize,
    host: usize,
    thread: String,
    user_id: String,
    request_id: String,
    arrival_ms: i64,
    qty: i64,
    work_ms: i64,
    hold: Option<usize>,
    read_stock: i64,
    renew_no: u32,
    working: bool,
}

struct Hold {
    product: usize,
    token: String,
    acquired_ms: i64,
    window_end_ms: i64,
    lock_end: Option<(TruthLockEnd, i64)>,
}

struct Host {
    host: String,
    instance: String,
    pid: u32,
}

/// Lines already formatted for one second, so most timestamps reuse it.
struct Clock {
    second: i64,
    prefix: String,
}

impl Clock {
    /// Writes `"ts": "2026-11-29T16:10:40.804+08:00"` for `ms`.
    fn ts(&mut self, ms: i64) -> String {
        let second = ms.div_euclid(1000);
        if second != self.second || self.prefix.is_empty() {
            self.second = second;
            self.prefix = chrono::DateTime::from_timestamp(second + LOG_OFFSET_S, 0)
                .map(|d| d.naive_utc().format("%Y-%m-%dT%H:%M:%S").to_string())
                .unwrap_or_else(|| "1970-01-01T00:00:00".to_string());
        }
        format!("{}.{:03}+08:00", self.prefix, ms.rem_euclid(1000))
    }
}

/// The writer plus what was written.
struct LogWriter<W: Write> {
    w: W,
    clock: Clock,
    lines: u64,
}

impl<W: Write> LogWriter<W> {
    /// Writes one line: the common head, then `rest` (already JSON, starting
    /// with `, `) and the closing brace.
    #[allow(clippy::too_many_arguments)]
    fn line(
        &mut self,
        ms: i64,
        level: &str,
        event: &str,
        host: &Host,
        thread: &str,
        rest: &str,
    ) -> io::Result<()> {
        let ts = self.clock.ts(ms);
        writeln!(
            self.w,
            "{{\"ts\": \"{ts}\", \"level\": \"{level}\", \"event\": \"{event}\", \"host\": \"{}\", \"instance\": \"{}\", \"logger\": \"daigou.flashsale.OrderService\", \"pid\": {}, \"thread\": \"{thread}\"{rest}}}",
            host.host, host.instance, host.pid
        )?;
        self.lines += 1;
        Ok(())
    }
}

/// One wave of buyers over fresh products: the event queue and the state.
struct Wave<'a> {
    args: &'a SimArgs,
    products: Vec<Product>,
    buyers: Vec<Buyer>,
    holds: Vec<Hold>,
    queue: BinaryHeap<Reverse<(i64, u64, usize, Step)>>,
    seq: u64,
    last_ms: i64,
}

impl Wave<'_> {
    fn schedule(&mut self, at_ms: i64, buyer: usize, step: Step) {
        self.seq += 1;
        self.queue.push(Reverse((at_ms, self.seq, buyer, step)));
    }

    /// The live lock of product `p` at `now`, expiring it lazily
    /// (a key is gone once now > deadline).
    fn live(&mut self, p: usize, now: i64) -> Option<KeyState> {
        let ks = self.products[p].redis?;
        if now > ks.deadline_ms {
            self.end_lock(ks.hold, TruthLockEnd::Expired, ks.deadline_ms);
            self.products[p].redis = None;
            return None;
        }
        Some(ks)
    }

    fn end_lock(&mut self, hold: usize, how: TruthLockEnd, at_ms: i64) {
        if let Some(h) = self.holds.get_mut(hold)
            && h.lock_end.is_none()
        {
            h.lock_end = Some((how, at_ms));
        }
    }
}

fn mode_name(args: &SimArgs) -> &'static str {
    match (args.naive, args.watchdog) {
        (false, false) => "no_renewal",
        (false, true) => "watchdog",
        (true, false) => "naive",
        (true, true) => "naive_watchdog",
    }
}

/// Runs the model and streams its JSON Lines to `out`; returns the ground
/// truth. Deterministic: the same `args` give the same bytes.
///
/// # Errors
/// Write failures of `out`, or arguments out of range (`ttl_ms`,
/// `retry_ms`, `renew_every_ms` not positive; no buyers, products or hosts).
pub fn simulate<W: Write>(args: &SimArgs, out: W) -> io::Result<Truth> {
    let invalid = |m: &str| io::Error::new(io::ErrorKind::InvalidInput, m.to_string());
    if args.ttl_ms <= 0 || args.retry_ms <= 0 || args.renew_every_ms.is_some_and(|r| r <= 0) {
        return Err(invalid(
            "--ttl-ms, --retry-ms and --renew-every-ms must be positive",
        ));
    }
    if args.buyers == 0 || args.products == 0 || args.hosts == 0 {
        return Err(invalid(
            "--buyers, --products and --hosts must be at least 1",
        ));
    }
    if !(0.0..=1.0).contains(&args.slow_prob) {
        return Err(invalid("--slow-prob must be between 0 and 1"));
    }
    let mut rng = Rng(args.seed ^ 0x6c6f_636b_7265_706c);
    let hosts: Vec<Host> = (0..args.hosts)
        .map(|h| Host {
            host: format!("web-{:02}", h + 1),
            instance: format!("daigou-order-api-{}", h + 1),
            pid: 24000 + 2 * h + (rng.next_u64() % 2000) as u32 * 16,
        })
        .collect();
    let mut out = LogWriter {
        w: out,
        clock: Clock {
            second: 0,
            prefix: String::new(),
        },
        lines: 0,
    };
    let mut truth = Truth {
        mode: mode_name(args).to_string(),
        seed: args.seed,
        ..Truth::default()
    };
    let mut start_ms = START_MS;
    let mut product_base = 1001u64;
    let mut order_no = 0u64;
    loop {
        let end_ms = run_wave(
            args,
            &mut rng,
            &hosts,
            &mut out,
            &mut truth,
            start_ms,
            product_base,
            &mut order_no,
        )?;
        truth.waves += 1;
        product_base += u64::from(args.products);
        start_ms = end_ms + WAVE_GAP_MS;
        if args.events.is_none_or(|n| out.lines >= n) {
            break;
        }
    }
    out.w.flush()?;
    truth.events = out.lines;
    truth.sold = truth.products.iter().map(|p| p.sold).sum();
    truth.oversold_units = truth.products.iter().map(|p| p.oversold_units).sum();
    Ok(truth)
}

/// Simulates one wave starting at `start_ms`; returns the time of its last
/// line, ms.
#[allow(clippy::too_many_arguments)]
fn run_wave<W: Write>(
    args: &SimArgs,
    rng: &mut Rng,
    hosts: &[Host],
    out: &mut LogWriter<W>,
    truth: &mut Truth,
    start_ms: i64,
    product_base: u64,
    order_no: &mut u64,
) -> io::Result<i64> {
    let products: Vec<Product> = (0..u64::from(args.products))
        .map(|k| Product {
            key: format!("product:{}:lock", product_base + k),
            stock_key: format!("product:{}:stock", product_base + k),
            stock: args.initial_stock,
            initial: args.initial_stock,
            sold: 0,
            orders: 0,
            redis: None,
        })
        .collect();
    let main = &hosts[0];
    for p in &products {
        out.line(
            start_ms,
            "INFO",
            "stock_initialized",
            main,
            "MainThread",
            &format!(
                ", \"lock_key\": \"{}\", \"stock_key\": \"{}\", \"stock\": {}",
                p.key, p.stock_key, p.stock
            ),
        )?;
    }
    let mut wave = Wave {
        args,
        products,
        buyers: Vec::with_capacity(args.buyers as usize),
        holds: Vec::new(),
        queue: BinaryHeap::new(),
        seq: 0,
        last_ms: start_ms,
    };
    add_buyers(&mut wave, args, rng, hosts, start_ms);

    while let Some(Reverse((now, _, b, step))) = wave.queue.pop() {
        wave.last_ms = wave.last_ms.max(now);
        step_buyer(&mut wave, rng, hosts, out, truth, now, b, step, order_no)?;
    }
    // Locks still in Redis at the end of the wave expire (or were never
    // released: every hold releases, so only expiry is left).
    for p in 0..wave.products.len() {
        if let Some(ks) = wave.products[p].redis.take() {
            wave.end_lock(ks.hold, TruthLockEnd::Expired, ks.deadline_ms);
        }
    }
    truth.holds += wave.holds.len() as u64;
    truth.buyers += wave.buyers.len() as u64;
    truth.expired_while_held += wave
        .holds
        .iter()
        .filter(|h| {
            h.lock_end
                .is_some_and(|(how, at)| how == TruthLockEnd::Expired && at < h.window_end_ms)
        })
        .count() as u64;
    truth
        .overlaps
        .extend(overlap_pairs(&wave.products, &wave.holds));
    for p in &wave.products {
        truth.products.push(ProductTruth {
            lock_key: p.key.clone(),
            initial_stock: p.initial,
            sold: p.sold,
            orders: p.orders,
            oversold_units: (p.sold - p.initial).max(0),
            final_stock: p.stock,
        });
    }
    Ok(wave.last_ms)
}

/// Adds the wave's buyers, each on a random host with a random product,
/// work time and arrival after `start_ms`, and schedules their arrivals.
fn add_buyers(wave: &mut Wave<'_>, args: &SimArgs, rng: &mut Rng, hosts: &[Host], start_ms: i64) {
    let mut per_host = vec![0u32; hosts.len()];
    let first_arrival = start_ms + 1000;
    for b in 0..args.buyers as usize {
        let host = (rng.next_u64() % hosts.len() as u64) as usize;
        per_host[host] += 1;
        let work_ms = if rng.unit() < args.slow_prob {
            args.slow_ms + rng.range(0, 40)
        } else {
            rng.range(80, 350)
        };
        let buyer = Buyer {
            product: (rng.next_u64() % u64::from(args.products)) as usize,
            host,
            thread: format!("order-worker-{:02}", per_host[host]),
            user_id: format!("u{}", rng.range(100_000, 999_999)),
            request_id: format!("{}-{}", host + 1, rng.hex(12)),
            arrival_ms: first_arrival + rng.range(0, args.arrival_ms.max(0)),
            qty: 1,
            work_ms,
            hold: None,
            read_stock: 0,
            renew_no: 0,
            working: false,
        };
        let at = buyer.arrival_ms;
        wave.buyers.push(buyer);
        wave.schedule(at, b, Step::Arrive);
    }
}

/// Runs one step of buyer `b` at `now`.
#[allow(clippy::too_many_arguments)]
fn step_buyer<W: Write>(
    wave: &mut Wave<'_>,
    rng: &mut Rng,
    hosts: &[Host],
    out: &mut LogWriter<W>,
    truth: &mut Truth,
    now: i64,
    b: usize,
    step: Step,
    order_no: &mut u64,
) -> io::Result<()> {
    let turn = Turn::of(wave, hosts, now, b);
    match step {
        Step::Arrive => arrive(wave, out, &turn),
        Step::TryAcquire => try_acquire(wave, rng, out, &turn),
        Step::GiveUp => give_up(wave, out, truth, &turn),
        Step::ReadStock => read_stock(wave, out, &turn),
        Step::SoldOut => sold_out(wave, out, &turn),
        Step::Parsed => parsed(wave, out, &turn),
        Step::Deduct => deduct(wave, out, &turn),
        Step::Order => order(wave, out, order_no, &turn),
        Step::Release => release(wave, out, truth, &turn),
        Step::Renew => renew(wave, out, truth, &turn),
    }
}

/// What a step knows of its buyer, copied out of the wave so that the step
/// can change the wave.
struct Turn<'h> {
    /// The time of the step, ms.
    now: i64,
    /// The buyer's index.
    b: usize,
    host: &'h Host,
    product: usize,
    /// The product's lock key.
    key: String,
    /// The token of the buyer's hold, once it acquired.
    token: Option<String>,
    thread: String,
    request_id: String,
    user_id: String,
    arrival_ms: i64,
    qty: i64,
    work_ms: i64,
    read_stock: i64,
    hold: Option<usize>,
    working: bool,
}

impl<'h> Turn<'h> {
    fn of(wave: &Wave<'_>, hosts: &'h [Host], now: i64, b: usize) -> Turn<'h> {
        let by = &wave.buyers[b];
        Turn {
            now,
            b,
            host: &hosts[by.host],
            product: by.product,
            key: wave.products[by.product].key.clone(),
            token: by.hold.map(|h| wave.holds[h].token.clone()),
            thread: by.thread.clone(),
            request_id: by.request_id.clone(),
            user_id: by.user_id.clone(),
            arrival_ms: by.arrival_ms,
            qty: by.qty,
            work_ms: by.work_ms,
            read_stock: by.read_stock,
            hold: by.hold,
            working: by.working,
        }
    }

    /// Writes one line of this buyer at the step's time, on its host and
    /// thread.
    fn log<W: Write>(
        &self,
        out: &mut LogWriter<W>,
        level: &str,
        event: &str,
        rest: &str,
    ) -> io::Result<()> {
        out.line(self.now, level, event, self.host, &self.thread, rest)
    }

    /// The hold's token as logged (`owner`), empty before it acquired.
    fn owner(&self) -> &str {
        self.token.as_deref().unwrap_or("")
    }
}

/// The buyer arrives and logs its attempt.
fn arrive<W: Write>(wave: &mut Wave<'_>, out: &mut LogWriter<W>, t: &Turn<'_>) -> io::Result<()> {
    let args = wave.args;
    let ttl = args.ttl_ms;
    let (key, rid, user, now, b) = (&t.key, &t.request_id, &t.user_id, t.now, t.b);
    t.log(
        out,
        "INFO",
        "acquire_attempt",
        &format!(
            ", \"lock_key\": \"{key}\", \"ttl_ms\": {ttl}, \"user_id\": \"{}\", \"request_id\": \"{rid}\", \"blocking_timeout_ms\": {}",
            user, args.blocking_timeout_ms
        ),
    )?;
    wave.schedule(now, b, Step::TryAcquire);
    Ok(())
}

/// `SET NX PX` (or `SETNX` + `EXPIRE`): takes the lock when it is free,
/// else polls again after `retry_ms` or gives up after `blocking_timeout_ms`.
fn try_acquire<W: Write>(
    wave: &mut Wave<'_>,
    rng: &mut Rng,
    out: &mut LogWriter<W>,
    t: &Turn<'_>,
) -> io::Result<()> {
    let args = wave.args;
    let ttl = args.ttl_ms;
    let (host, p, key, thread, rid, user, arrival_ms, now, b) = (
        t.host,
        t.product,
        &t.key,
        &t.thread,
        &t.request_id,
        &t.user_id,
        t.arrival_ms,
        t.now,
        t.b,
    );
    if wave.live(p, now).is_some() {
        let next = now + args.retry_ms;
        if next - arrival_ms > args.blocking_timeout_ms {
            let give_up = (arrival_ms + args.blocking_timeout_ms).max(now);
            wave.schedule(give_up, b, Step::GiveUp);
        } else {
            wave.schedule(next, b, Step::TryAcquire);
        }
        return Ok(());
    }
    // SET NX PX, or SETNX then EXPIRE in the same millisecond.
    let token = if args.watchdog {
        format!("{}:{}:{}:{}", host.instance, host.pid, thread, rng.hex(16))
    } else {
        format!("{}02fc00000001", rng.hex(20))
    };
    let hold = wave.holds.len();
    wave.holds.push(Hold {
        product: p,
        token: token.clone(),
        acquired_ms: now,
        window_end_ms: now,
        lock_end: None,
    });
    wave.products[p].redis = Some(KeyState {
        hold,
        deadline_ms: now + ttl,
    });
    let waited = now - arrival_ms;
    let by = &mut wave.buyers[b];
    by.hold = Some(hold);
    by.working = true;
    let cmd = if args.naive {
        ", \"command\": \"SETNX+EXPIRE\""
    } else {
        ""
    };
    t.log(
        out,
        "INFO",
        "acquired",
        &format!(
            ", \"lock_key\": \"{key}\", \"owner\": \"{token}\", \"ttl_ms\": {ttl}, \"user_id\": \"{user}\", \"request_id\": \"{rid}\", \"waited_ms\": {waited}{cmd}"
        ),
    )?;
    wave.schedule(now + 1, b, Step::ReadStock);
    if args.watchdog {
        let every = args.renew_every_ms.unwrap_or((ttl / 2).max(1));
        wave.schedule(now + every, b, Step::Renew);
    }
    Ok(())
}

/// The buyer stops waiting for the lock.
fn give_up<W: Write>(
    wave: &mut Wave<'_>,
    out: &mut LogWriter<W>,
    truth: &mut Truth,
    t: &Turn<'_>,
) -> io::Result<()> {
    let ttl = wave.args.ttl_ms;
    let (key, rid, user, arrival_ms, now) =
        (&t.key, &t.request_id, &t.user_id, t.arrival_ms, t.now);
    truth.acquire_timeouts += 1;
    t.log(
        out,
        "WARNING",
        "acquire_timeout",
        &format!(
            ", \"lock_key\": \"{key}\", \"ttl_ms\": {ttl}, \"user_id\": \"{}\", \"request_id\": \"{rid}\", \"waited_ms\": {}",
            user,
            now - arrival_ms
        ),
    )?;
    Ok(())
}

/// The holder reads the stock; enough left means parsing the supplier page,
/// else sold out.
fn read_stock<W: Write>(
    wave: &mut Wave<'_>,
    out: &mut LogWriter<W>,
    t: &Turn<'_>,
) -> io::Result<()> {
    let (p, key, owner, rid, qty, work_ms, now, b) = (
        t.product,
        &t.key,
        t.owner(),
        &t.request_id,
        t.qty,
        t.work_ms,
        t.now,
        t.b,
    );
    let stock = wave.products[p].stock;
    wave.buyers[b].read_stock = stock;
    t.log(
        out,
        "INFO",
        "stock_read",
        &format!(
            ", \"lock_key\": \"{key}\", \"owner\": \"{owner}\", \"stock\": {stock}, \"request_id\": \"{rid}\""
        ),
    )?;
    if stock >= qty && stock > 0 {
        wave.schedule(now + work_ms, b, Step::Parsed);
    } else {
        wave.schedule(now + 1, b, Step::SoldOut);
    }
    Ok(())
}

/// Nothing left to sell: the holder logs it and releases.
fn sold_out<W: Write>(wave: &mut Wave<'_>, out: &mut LogWriter<W>, t: &Turn<'_>) -> io::Result<()> {
    let (key, owner, rid, user, read_stock, now, b) = (
        &t.key,
        t.owner(),
        &t.request_id,
        &t.user_id,
        t.read_stock,
        t.now,
        t.b,
    );
    t.log(
        out,
        "WARNING",
        "sold_out",
        &format!(
            ", \"lock_key\": \"{key}\", \"owner\": \"{owner}\", \"stock\": {}, \"user_id\": \"{}\", \"request_id\": \"{rid}\"",
            read_stock, user
        ),
    )?;
    wave.schedule(now + 1, b, Step::Release);
    Ok(())
}

/// The supplier page is parsed (slowly, sometimes).
fn parsed<W: Write>(wave: &mut Wave<'_>, out: &mut LogWriter<W>, t: &Turn<'_>) -> io::Result<()> {
    let (key, owner, rid, work_ms, now, b) =
        (&t.key, t.owner(), &t.request_id, t.work_ms, t.now, t.b);
    t.log(
        out,
        "INFO",
        "product_page_parsed",
        &format!(
            ", \"lock_key\": \"{key}\", \"owner\": \"{owner}\", \"source\": \"1688\", \"elapsed_ms\": {}, \"request_id\": \"{rid}\"",
            work_ms
        ),
    )?;
    wave.schedule(now + 1, b, Step::Deduct);
    Ok(())
}

/// The stale write: stock = what was read - quantity.
fn deduct<W: Write>(wave: &mut Wave<'_>, out: &mut LogWriter<W>, t: &Turn<'_>) -> io::Result<()> {
    let (p, key, owner, rid, qty, read_stock, now, b) = (
        t.product,
        &t.key,
        t.owner(),
        &t.request_id,
        t.qty,
        t.read_stock,
        t.now,
        t.b,
    );
    // The stale write: stock = what was read - qty.
    let before = read_stock;
    let after = before - qty;
    wave.products[p].stock = after;
    t.log(
        out,
        "INFO",
        "stock_deducted",
        &format!(
            ", \"lock_key\": \"{key}\", \"owner\": \"{owner}\", \"quantity\": {qty}, \"stock_before\": {before}, \"stock_after\": {after}, \"request_id\": \"{rid}\""
        ),
    )?;
    wave.schedule(now + 1, b, Step::Order);
    Ok(())
}

/// The order is created and counted as sold.
fn order<W: Write>(
    wave: &mut Wave<'_>,
    out: &mut LogWriter<W>,
    order_no: &mut u64,
    t: &Turn<'_>,
) -> io::Result<()> {
    let args = wave.args;
    let (p, key, owner, rid, user, qty, now, b) = (
        t.product,
        &t.key,
        t.owner(),
        &t.request_id,
        &t.user_id,
        t.qty,
        t.now,
        t.b,
    );
    *order_no += 1;
    let price = args.unit_price;
    let amount = price * qty as f64;
    t.log(
        out,
        "INFO",
        "order_created",
        &format!(
            ", \"lock_key\": \"{key}\", \"owner\": \"{owner}\", \"order_id\": \"DG1261129{:010}\", \"user_id\": \"{}\", \"quantity\": {qty}, \"unit_price\": {price:.1}, \"amount\": {amount:.1}, \"currency\": \"CNY\", \"request_id\": \"{rid}\"",
            *order_no, user
        ),
    )?;
    let prod = &mut wave.products[p];
    prod.sold += qty;
    prod.orders += 1;
    wave.schedule(now + 1, b, Step::Release);
    Ok(())
}

/// Release: a plain `DEL` in naive mode, else a Lua compare-and-delete
/// that fails when the token no longer matches.
fn release<W: Write>(
    wave: &mut Wave<'_>,
    out: &mut LogWriter<W>,
    truth: &mut Truth,
    t: &Turn<'_>,
) -> io::Result<()> {
    let args = wave.args;
    let ttl = args.ttl_ms;
    let (p, key, owner, rid, now, b) = (t.product, &t.key, t.owner(), &t.request_id, t.now, t.b);
    let Some(hold) = t.hold else { return Ok(()) };
    wave.buyers[b].working = false;
    wave.holds[hold].window_end_ms = now;
    let live = wave.live(p, now);
    if args.naive {
        // Plain DEL: removes whatever is there.
        let deleted = match live {
            Some(ks) => {
                if ks.hold == hold {
                    wave.end_lock(hold, TruthLockEnd::OwnRelease, now);
                } else {
                    truth.foreign_deletes += 1;
                    wave.end_lock(ks.hold, TruthLockEnd::ForeignRelease, now);
                }
                wave.products[p].redis = None;
                true
            }
            None => false,
        };
        t.log(
            out,
            "INFO",
            "released",
            &format!(
                ", \"lock_key\": \"{key}\", \"owner\": \"{owner}\", \"ttl_ms\": {ttl}, \"command\": \"DEL\", \"deleted\": {deleted}, \"request_id\": \"{rid}\""
            ),
        )?;
    } else if live.is_some_and(|ks| ks.hold == hold) {
        // Lua compare-and-delete, token matches.
        wave.end_lock(hold, TruthLockEnd::OwnRelease, now);
        wave.products[p].redis = None;
        t.log(
            out,
            "INFO",
            "released",
            &format!(
                ", \"lock_key\": \"{key}\", \"owner\": \"{owner}\", \"ttl_ms\": {ttl}, \"request_id\": \"{rid}\""
            ),
        )?;
    } else {
        t.log(
            out,
            "ERROR",
            "release_failed",
            &format!(
                ", \"lock_key\": \"{key}\", \"owner\": \"{owner}\", \"ttl_ms\": {ttl}, \"reason\": \"lock_not_owned\", \"detail\": \"Cannot release a lock that's no longer owned\", \"request_id\": \"{rid}\""
            ),
        )?;
    }
    Ok(())
}

/// The watchdog renews the lease while the holder works and the token
/// still matches; it stops quietly once the lock is lost.
fn renew<W: Write>(
    wave: &mut Wave<'_>,
    out: &mut LogWriter<W>,
    truth: &mut Truth,
    t: &Turn<'_>,
) -> io::Result<()> {
    let args = wave.args;
    let ttl = args.ttl_ms;
    let (host, p, key, owner, thread, rid, now, b) = (
        t.host,
        t.product,
        &t.key,
        t.owner(),
        &t.thread,
        &t.request_id,
        t.now,
        t.b,
    );
    let Some(hold) = t.hold else { return Ok(()) };
    if !t.working {
        return Ok(());
    }
    // Lua compare-and-pexpire: only while the token still matches.
    match wave.live(p, now) {
        Some(ks) if ks.hold == hold => {
            wave.products[p].redis = Some(KeyState {
                hold,
                deadline_ms: now + ttl,
            });
            truth.renewals += 1;
            let by = &mut wave.buyers[b];
            by.renew_no += 1;
            let n = by.renew_no;
            out.line(
                now,
                "INFO",
                "renewed",
                host,
                &format!("{thread}-watchdog"),
                &format!(
                    ", \"lock_key\": \"{key}\", \"owner\": \"{owner}\", \"ttl_ms\": {ttl}, \"renew_no\": {n}, \"request_id\": \"{rid}\""
                ),
            )?;
            let every = args.renew_every_ms.unwrap_or((ttl / 2).max(1));
            wave.schedule(now + every, b, Step::Renew);
        }
        // Lost the lock: the watchdog stops quietly.
        _ => {}
    }
    Ok(())
}

/// Overlap pairs of one wave from the model's holds: two holders' believed
/// windows (acquire to release or failed release) on one key intersect for
/// more than 0 ms, and the earlier holder's lock had ended (expiry or a
/// foreign `DEL`) at or before the later acquire.
fn overlap_pairs(products: &[Product], holds: &[Hold]) -> Vec<TruthOverlap> {
    let mut pairs = Vec::new();
    for (p, product) in products.iter().enumerate() {
        // Holds are created in acquire order, so this is (acquire, seq) order.
        let on_key: Vec<&Hold> = holds.iter().filter(|h| h.product == p).collect();
        let mut open: Vec<usize> = Vec::new();
        for (j, later) in on_key.iter().enumerate() {
            let start = later.acquired_ms;
            open.retain(|&i| on_key[i].window_end_ms > start);
            for &i in &open {
                let earlier = on_key[i];
                let end = earlier.window_end_ms.min(later.window_end_ms);
                if end <= start || earlier.token == later.token {
                    continue;
                }
                let cause = match earlier.lock_end {
                    Some((TruthLockEnd::Expired, at)) if at <= start => "lease_expired",
                    Some((TruthLockEnd::ForeignRelease, at)) if at <= start => "foreign_release",
                    _ => continue,
                };
                pairs.push(TruthOverlap {
                    key: product.key.clone(),
                    earlier: earlier.token.clone(),
                    later: later.token.clone(),
                    start_ms: start,
                    duration_ms: end - start,
                    cause: cause.to_string(),
                });
            }
            open.push(j);
        }
    }
    pairs.sort_by(|a, b| {
        (&a.key, a.start_ms, &a.earlier, &a.later).cmp(&(&b.key, b.start_ms, &b.earlier, &b.later))
    });
    pairs
}

/// Runs the simulator with `args`: JSON Lines to `out` (atomically, via a
/// temporary file in the same folder) or stdout, ground truth to `truth`.
///
/// # Errors
/// When the output cannot be written or an argument is out of range.
pub fn run(args: &SimArgs) -> anyhow::Result<()> {
    let truth = match &args.out {
        Some(path) => crate::fsio::write_atomic_with(path, &[], |w| {
            simulate(args, w).with_context(|| format!("{}", path.display()))
        })?,
        None => {
            let stdout = io::stdout();
            let w = io::BufWriter::with_capacity(1 << 20, stdout.lock());
            simulate(args, w).context("cannot write to stdout")?
        }
    };
    if let Some(path) = &args.truth {
        let mut json = serde_json::to_vec_pretty(&truth)?;
        json.push(b'\n');
        let inputs: Vec<PathBuf> = args.out.iter().cloned().collect();
        crate::fsio::write_atomic(path, &json, &inputs)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_to_string(args: &SimArgs) -> (String, Truth) {
        let mut buf = Vec::new();
        let truth = simulate(args, &mut buf).expect("simulates");
        (String::from_utf8(buf).expect("utf8"), truth)
    }

    #[test]
    fn same_seed_same_bytes() {
        let args = SimArgs {
            buyers: 80,
            ..SimArgs::default()
        };
        let (a, ta) = run_to_string(&args);
        let (b, tb) = run_to_string(&args);
        assert_eq!(a, b);
        assert_eq!(ta, tb);
        assert_eq!(ta.events, a.lines().count() as u64);
    }

    #[test]
    fn lines_are_sorted_and_about_300_bytes() {
        let (text, truth) = run_to_string(&SimArgs {
            buyers: 200,
            products: 2,
            hosts: 3,
            slow_prob: 0.2,
            ..SimArgs::default()
        });
        let mut last = String::new();
        let mut total = 0usize;
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("json");
            let ts = v["ts"].as_str().expect("ts").to_string();
            assert!(ts >= last, "{ts} < {last}");
            last = ts;
            total += line.len() + 1;
        }
        let avg = total as f64 / truth.events as f64;
        assert!((200.0..=400.0).contains(&avg), "{avg}");
        assert_eq!(truth.products.len(), 2);
    }

    #[test]
    fn watchdog_never_oversells() {
        for seed in 1..=5 {
            let (_, t) = run_to_string(&SimArgs {
                buyers: 300,
                watchdog: true,
                slow_prob: 0.2,
                seed,
                ..SimArgs::default()
            });
            assert_eq!(t.oversold_units, 0, "seed {seed}");
            assert!(t.overlaps.is_empty(), "seed {seed}");
            assert!(t.renewals > 0, "seed {seed}");
        }
    }

    #[test]
    fn slow_parses_without_renewal_overlap() {
        let (_, t) = run_to_string(&SimArgs {
            buyers: 300,
            slow_prob: 0.3,
            ..SimArgs::default()
        });
        assert!(!t.overlaps.is_empty());
        assert!(t.expired_while_held > 0);
    }

    #[test]
    fn naive_deletes_foreign_locks() {
        let (text, t) = run_to_string(&SimArgs {
            buyers: 300,
            slow_prob: 0.3,
            naive: true,
            ..SimArgs::default()
        });
        assert!(t.foreign_deletes > 0);
        assert!(t.overlaps.iter().any(|o| o.cause == "foreign_release"));
        assert!(text.contains("\"deleted\": true"));
    }

    #[test]
    fn events_target_adds_waves() {
        let (_, t) = run_to_string(&SimArgs {
            buyers: 20,
            events: Some(1000),
            ..SimArgs::default()
        });
        assert!(t.events >= 1000);
        assert!(t.waves > 1);
        assert_eq!(t.products.len() as u64, t.waves);
    }

    #[test]
    fn timestamps_are_iso_with_offset() {
        let mut c = Clock {
            second: 0,
            prefix: String::new(),
        };
        assert_eq!(c.ts(START_MS), "2026-11-29T16:10:39.627+08:00");
        assert_eq!(c.ts(START_MS + 373), "2026-11-29T16:10:40.000+08:00");
    }
}

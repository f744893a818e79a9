//! A real redis-server on a loopback port: a small flash sale driven through
//! the `redis` crate while `redis-cli monitor` captures it on a second
//! connection. The replay of that capture must agree with Redis's own final
//! state (stock, order list length) and with every SET NX outcome the driver
//! saw. The test starts the server with a temporary directory and no
//! persistence, and stops it (SHUTDOWN, then by its pid if still running).

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lockreplay::analysis::{Settings, analyze};
use lockreplay::ingest::{IngestOptions, Progress, read_source};
use lockreplay::model::{EventKind, LogBuilder};

/// Kills what it holds when dropped, so a failing assert leaves no server.
struct Reaper(Vec<Child>);

impl Drop for Reaper {
    fn drop(&mut self) {
        for c in &mut self.0 {
            if c.try_wait().ok().flatten().is_none() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

fn wait_for(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

const RELEASE_LUA: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/// A redis-server on a free loopback port (a temporary directory, no
/// persistence) with `redis-cli monitor` writing its capture; stopped by
/// [`Live::finish`] (SHUTDOWN, then by its pid), or killed when dropped.
struct Live {
    reaper: Reaper,
    client: redis::Client,
    dir: tempfile::TempDir,
    capture_path: std::path::PathBuf,
    server_pid: u32,
}

impl Live {
    /// Starts the server and the capture; `None` (the test skips) when
    /// redis-server is not installed, which CI never allows.
    fn start() -> Option<Live> {
        if Command::new("redis-server")
            .arg("--version")
            .output()
            .is_err()
        {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must install redis-server (.ci/run does)"
            );
            eprintln!("SKIP: redis-server is not installed here; .ci/run installs it");
            return None;
        }
        let dir = tempfile::tempdir().expect("tmp");
        let port = crate::free_port();
        let server = Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .arg("--dir")
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        let server_pid = server.id();
        let mut reaper = Reaper(vec![server]);
        let client = redis::Client::open(format!("redis://127.0.0.1:{port}/")).expect("client");
        wait_for("redis-server", Duration::from_secs(10), || {
            client
                .get_connection()
                .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c))
                .is_ok()
        });

        let capture_path = dir.path().join("capture.monitor.log");
        let capture = std::fs::File::create(&capture_path).expect("capture file");
        let monitor = Command::new("redis-cli")
            .args(["-p", &port.to_string(), "monitor"])
            .stdout(capture)
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-cli monitor");
        reaper.0.push(monitor);
        // Give MONITOR a moment to attach before the workload starts.
        std::thread::sleep(Duration::from_millis(300));

        Some(Live {
            reaper,
            client,
            dir,
            capture_path,
            server_pid,
        })
    }

    /// Shuts the server down through `con`, waits for the capture to end
    /// and replays it: a MONITOR capture, without a warning.
    fn finish(self, con: &mut redis::Connection) -> lockreplay::model::LoadedLog {
        let Live {
            mut reaper,
            capture_path,
            server_pid,
            dir,
            ..
        } = self;
        // Stop the server; redis-cli then prints its closing error and exits,
        // flushing the capture. Then make sure, by pid, that the server is gone.
        let _: Result<(), _> = redis::cmd("SHUTDOWN").arg("NOSAVE").query(con);
        let mut monitor = reaper.0.pop().expect("monitor child");
        let start = Instant::now();
        while monitor.try_wait().ok().flatten().is_none()
            && start.elapsed() < Duration::from_secs(5)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = monitor.kill();
        let _ = monitor.wait();
        let mut server = reaper.0.pop().expect("server child");
        assert_eq!(server.id(), server_pid);
        if server.try_wait().ok().flatten().is_none() {
            std::thread::sleep(Duration::from_millis(500));
            if server.try_wait().ok().flatten().is_none() {
                let _ = server.kill();
            }
        }
        let _ = server.wait();

        // Replay the capture.
        let text = std::fs::read(&capture_path).expect("read capture");
        assert!(
            text.len() > 100,
            "capture has content: {:?}",
            String::from_utf8_lossy(&text)
        );
        let mut b = LogBuilder::new();
        let opts = IngestOptions::default();
        read_source(
            &display(&capture_path),
            text.as_slice(),
            &opts,
            &mut b,
            &Progress::default(),
        )
        .expect("replay");
        let log = b.finish();
        assert_eq!(
            log.sources[0].dialect,
            lockreplay::model::Dialect::RedisMonitor
        );
        assert_eq!(log.warnings.total(), 0, "{:?}", log.warnings.kept());
        drop(dir);
        log
    }
}

#[test]
fn replay_of_a_live_capture_matches_redis_state() {
    let Some(live) = Live::start() else {
        return;
    };
    let client = live.client.clone();
    let mut con = client.get_connection().expect("connection");
    let initial_stock = 4i64;
    let _: () = redis::cmd("SET")
        .arg("shop:sku1:stock")
        .arg(initial_stock)
        .query(&mut con)
        .expect("init stock");

    // Six buyers; two of them work longer than the 200 ms TTL, none renews.
    let outcomes: Arc<Mutex<HashMap<String, Vec<bool>>>> = Arc::default();
    let mut buyers = Vec::new();
    for n in 0..6u64 {
        let client = client.clone();
        let outcomes = outcomes.clone();
        buyers.push(std::thread::spawn(move || {
            let mut con = client.get_connection().expect("buyer connection");
            let token = format!("buyer-{n}-{:08x}", n * 2_654_435_761);
            let work = if n % 3 == 0 { 320 } else { 25 };
            std::thread::sleep(Duration::from_millis(n * 15));
            let deadline = Instant::now() + Duration::from_secs(6);
            while Instant::now() < deadline {
                let won: Option<String> = redis::cmd("SET")
                    .arg("shop:sku1:lock")
                    .arg(&token)
                    .arg("NX")
                    .arg("PX")
                    .arg(200)
                    .query(&mut con)
                    .expect("SET NX");
                outcomes
                    .lock()
                    .expect("lock")
                    .entry(token.clone())
                    .or_default()
                    .push(won.is_some());
                if won.is_none() {
                    std::thread::sleep(Duration::from_millis(30));
                    continue;
                }
                let stock: i64 = redis::cmd("GET")
                    .arg("shop:sku1:stock")
                    .query(&mut con)
                    .expect("GET");
                std::thread::sleep(Duration::from_millis(work));
                if stock > 0 {
                    let _: () = redis::cmd("SET")
                        .arg("shop:sku1:stock")
                        .arg(stock - 1)
                        .query(&mut con)
                        .expect("SET stock");
                    let _: i64 = redis::cmd("RPUSH")
                        .arg("shop:sku1:orders")
                        .arg(format!(
                            "{{\"order_id\":\"o-{n}\",\"qty\":1,\"lock_owner\":\"{token}\"}}"
                        ))
                        .query(&mut con)
                        .expect("RPUSH");
                }
                let _: i64 = redis::cmd("EVAL")
                    .arg(RELEASE_LUA)
                    .arg(1)
                    .arg("shop:sku1:lock")
                    .arg(&token)
                    .query(&mut con)
                    .expect("EVAL release");
                break;
            }
        }));
    }
    for b in buyers {
        b.join().expect("buyer thread");
    }
    let final_stock: i64 = redis::cmd("GET")
        .arg("shop:sku1:stock")
        .query(&mut con)
        .expect("GET");
    let orders: i64 = redis::cmd("LLEN")
        .arg("shop:sku1:orders")
        .query(&mut con)
        .expect("LLEN");

    let log = live.finish(&mut con);

    let replayed_orders = log
        .events
        .iter()
        .filter(|e| e.kind == EventKind::OrderCreated)
        .count() as i64;
    assert_eq!(replayed_orders, orders, "orders: replay vs LLEN");
    let replayed_final = log
        .events
        .iter()
        .rev()
        .find_map(|e| match e.kind {
            EventKind::StockDeducted => e.detail().stock_after,
            EventKind::StockInitialized | EventKind::StockRead => e.detail().stock,
            _ => None,
        })
        .expect("a stock event");
    assert_eq!(replayed_final, final_stock, "stock: replay vs GET");

    // Every SET NX outcome, per token in order, as the driver saw it.
    let mut replayed: HashMap<String, Vec<bool>> = HashMap::new();
    for e in &log.events {
        let won = match e.kind {
            EventKind::Acquired => true,
            EventKind::AcquireFailed => false,
            _ => continue,
        };
        let holder = log.strings.get_or_empty(e.holder).to_string();
        replayed.entry(holder).or_default().push(won);
    }
    let driver = outcomes.lock().expect("lock").clone();
    assert_eq!(replayed, driver, "SET NX outcomes");

    // And the analysis on the replay sees the sale the model saw.
    let analysis = analyze(&log, &Settings::default());
    let sold = orders;
    assert_eq!(
        analysis.summary.oversold_units,
        (sold - initial_stock).max(0)
    );
    // buyer-0 starts first and works 320 ms on a 200 ms lease: whoever gets
    // the lock after its expiry overlaps it.
    assert!(
        analysis.summary.overlap_pairs >= 1,
        "the slow buyer's expiry gives an overlap"
    );
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

/// Runs `args` on `con` and returns the reply.
fn run<T: redis::FromRedisValue>(con: &mut redis::Connection, args: &[&str]) -> T {
    let mut c = redis::cmd(args[0]);
    for a in &args[1..] {
        c.arg(*a);
    }
    c.query(con).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// Two SKUs whose stock keys put the role first (`stock:sku-2001`, as
/// many shops name them) and whose locks are `lock:sku:2001`: on SKU 2001
/// a slow buyer outlives its 200 ms lease, a second one acquires and
/// decrements, then the slow one decrements too (`DECRBY`); SKU 2002 sells
/// its one unit cleanly. A stock key's product is not the key without its
/// last part (both SKUs would be the product `stock`: one oversold across
/// the two, and no stock tied to the incident, "no stock was sold inside
/// the window").
#[test]
fn stock_keys_named_role_first_are_one_product_each_and_tied_to_their_lock() {
    let Some(live) = Live::start() else {
        return;
    };
    let mut con = live.client.get_connection().expect("connection");
    let mut slow = live.client.get_connection().expect("connection");
    let mut other = live.client.get_connection().expect("connection");
    let _: () = run(&mut con, &["SET", "stock:sku-2001", "1"]);
    let _: () = run(&mut con, &["SET", "stock:sku-2002", "1"]);
    let acquire = |c: &mut redis::Connection, lock: &str, token: &str| -> bool {
        run::<Option<String>>(c, &["SET", lock, token, "NX", "PX", "200"]).is_some()
    };
    let release = |c: &mut redis::Connection, lock: &str, token: &str| -> i64 {
        run(c, &["EVAL", RELEASE_LUA, "1", lock, token])
    };
    assert!(acquire(&mut slow, "lock:sku:2001", "tok-slow"));
    let _: i64 = run(&mut slow, &["GET", "stock:sku-2001"]);
    std::thread::sleep(Duration::from_millis(260));
    assert!(acquire(&mut other, "lock:sku:2001", "tok-fast"));
    let _: i64 = run(&mut other, &["DECRBY", "stock:sku-2001", "1"]);
    std::thread::sleep(Duration::from_millis(40));
    let _: i64 = run(&mut slow, &["DECRBY", "stock:sku-2001", "1"]);
    assert_eq!(release(&mut slow, "lock:sku:2001", "tok-slow"), 0);
    assert_eq!(release(&mut other, "lock:sku:2001", "tok-fast"), 1);
    assert!(acquire(&mut other, "lock:sku:2002", "tok-2002"));
    let _: i64 = run(&mut other, &["DECRBY", "stock:sku-2002", "1"]);
    assert_eq!(release(&mut other, "lock:sku:2002", "tok-2002"), 1);
    let final_2001: i64 = run(&mut con, &["GET", "stock:sku-2001"]);
    let final_2002: i64 = run(&mut con, &["GET", "stock:sku-2002"]);
    assert_eq!((final_2001, final_2002), (-1, 0), "Redis's own final stock");
    let log = live.finish(&mut con);

    let analysis = analyze(&log, &Settings::default());
    let mut products: Vec<(String, i64)> = analysis
        .products
        .iter()
        .map(|p| (log.strings.get_or_empty(p.product).to_string(), p.oversold))
        .collect();
    products.sort();
    assert_eq!(
        products,
        vec![("sku-2001".to_string(), 1), ("sku-2002".to_string(), 0)]
    );
    assert_eq!(analysis.summary.oversold_units, 1);
    assert_eq!(analysis.incidents.len(), 1);
    let inc = &analysis.incidents[0];
    assert_eq!(log.strings.get_or_empty(Some(inc.key)), "lock:sku:2001");
    assert_eq!(inc.oversold_units, 1, "the deductions are the incident's");
}

/// The classic two-step acquire on a real server: `SETNX` then `EXPIRE`
/// (here `PEXPIRE 200`), the release a plain `DEL`. The slow buyer's lock
/// expires, the fast one takes it, the slow one's `DEL` then deletes the
/// fast one's lock. The `PEXPIRE` is each acquire's TTL, not a renewal
/// ("renewed 1 times", and a `renewal_gap` saying the watchdog stopped, in
/// a program with no watchdog).
#[test]
fn setnx_then_expire_is_one_acquire_with_its_ttl_not_a_renewal() {
    let Some(live) = Live::start() else {
        return;
    };
    let mut con = live.client.get_connection().expect("connection");
    let mut slow = live.client.get_connection().expect("connection");
    let mut fast = live.client.get_connection().expect("connection");
    let _: () = run(&mut con, &["SET", "stock:sku-3001", "1"]);
    let acquire = |c: &mut redis::Connection, token: &str| -> bool {
        let got: i64 = run(c, &["SETNX", "lock:sku:3001", token]);
        let _: i64 = run(c, &["PEXPIRE", "lock:sku:3001", "200"]);
        got == 1
    };
    assert!(acquire(&mut slow, "tok-slow"));
    std::thread::sleep(Duration::from_millis(260));
    assert!(acquire(&mut fast, "tok-fast"));
    let _: i64 = run(&mut fast, &["DECRBY", "stock:sku-3001", "1"]);
    let _: i64 = run(&mut slow, &["DECRBY", "stock:sku-3001", "1"]);
    let deleted: i64 = run(&mut slow, &["DEL", "lock:sku:3001"]);
    assert_eq!(deleted, 1, "the slow buyer deleted the fast one's lock");
    let log = live.finish(&mut con);

    let analysis = analyze(&log, &Settings::default());
    let ttls: Vec<Option<i64>> = analysis.leases.iter().map(|l| l.ttl_ms.get()).collect();
    assert_eq!(ttls.len(), 2, "{ttls:?}");
    for ttl in &ttls {
        // The lease runs from the SETNX to the server's deadline: 200 ms
        // after the PEXPIRE, sent right after the SETNX.
        assert!(ttl.is_some_and(|t| (200..230).contains(&t)), "{ttls:?}");
    }
    assert!(analysis.leases.iter().all(|l| l.renewals_ns().is_empty()));
    let kinds: Vec<String> = analysis
        .findings
        .iter()
        .map(|f| format!("{:?}", f.kind))
        .collect();
    assert!(
        !kinds
            .iter()
            .any(|k| k.contains("RenewalGap") || k.contains("NoTtl")),
        "{kinds:?}"
    );
    assert!(
        kinds.iter().any(|k| k.contains("ForeignRelease")),
        "{kinds:?}"
    );
    assert_eq!(analysis.incidents.len(), 1);
    assert_eq!(analysis.summary.oversold_units, 1);
}

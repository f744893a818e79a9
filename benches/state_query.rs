//! Benchmark of the replay's state query (`StateIndex::state_at`) over a
//! synthetic log of 10 M events (set `LOCKREPLAY_BENCH_EVENTS` for another
//! size): 2.5 M holds on 1,000 lock keys, each an acquire, a stock
//! deduction, an order and a release, with an expired overlapping hold every
//! 50th grant. The analysis results are built directly (the rules are not
//! what is measured here); the index is built from them as the window does.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use lockreplay::analysis::{
    Analysis, EventId, Lease, LeaseId, LockEnd, ProductOversell, Sale, WindowEnd,
};
use lockreplay::model::{Event, EventKind, LoadedLog, LogBuilder, SourceRef};
use lockreplay::playback::StateIndex;

const KEYS: usize = 1_000;
const MS: i64 = 1_000_000;

fn synthetic(events: usize) -> (LoadedLog, Analysis) {
    let holds = events / 4;
    let mut b = LogBuilder::new();
    let keys: Vec<_> = (0..KEYS)
        .map(|k| b.intern(&format!("product:{k}:lock")))
        .collect();
    let holders: Vec<_> = (0..64).map(|h| b.intern(&format!("worker-{h}"))).collect();
    let mut leases = Vec::with_capacity(holds);
    let mut sales = Vec::with_capacity(holds);
    let mut log = b.log;
    log.events.reserve(holds * 4);
    // Each key gets a hold every 10 ms; keys are staggered by 10 µs.
    for i in 0..holds {
        let k = i % KEYS;
        let round = (i / KEYS) as i64;
        let t0 = 1_700_000_000_000 * MS + round * 10 * MS + k as i64 * 10_000;
        let expired = i % 50 == 0;
        let (end, lock_end, lock_end_ns) = if expired {
            (t0 + 25 * MS, LockEnd::Expired, t0 + 8 * MS)
        } else {
            (t0 + 6 * MS, LockEnd::OwnRelease, t0 + 6 * MS)
        };
        let holder = holders[i % holders.len()];
        let src = |n: usize| SourceRef {
            file: 0,
            line: (i * 4 + n) as u32,
        };
        let mut ev = |at: i64, kind: EventKind, n: usize, stock: Option<i64>| {
            let mut e = Event::new(at, kind, src(n));
            e.key = Some(keys[k]);
            e.holder = Some(holder);
            if let Some(s) = stock {
                e.update_detail(|d| d.stock_after = Some(s));
                e.update_detail(|d| d.quantity = Some(1));
            }
            log.events.push(e);
        };
        ev(t0, EventKind::Acquired, 0, None);
        ev(
            t0 + 2 * MS,
            EventKind::StockDeducted,
            1,
            Some(1_000_000 - round),
        );
        ev(t0 + 3 * MS, EventKind::OrderCreated, 2, None);
        ev(end, EventKind::Released, 3, None);
        leases.push(Lease {
            id: LeaseId::new(i),
            key: keys[k],
            holder,
            host: None,
            thread: None,
            acquired_ns: t0,
            ttl_ms: Some(8).into(),
            ttl_unknown: false,
            renewals: None,
            expiry_ns: Some(t0 + 8 * MS).into(),
            window_end_ns: end,
            window_end: WindowEnd::Released,
            lock_end_ns,
            lock_end,
            ended_by: None,
            inferred: false,
            release_guessed: false,
            lines: Default::default(),
        });
        sales.push(Sale {
            event: EventId::new(i * 4 + 2),
            at_ns: t0 + 3 * MS,
            product: Some(keys[k]),
            key: Some(keys[k]),
            holder: Some(holder),
            order_id: None,
            quantity: 1,
            oversold_units: i64::from(expired),
            incident: None,
        });
    }
    log.events.sort_by_key(|e| (e.at_ns, e.source.line));
    leases.sort_by_key(|l| (l.key, l.acquired_ns));
    for (i, l) in leases.iter_mut().enumerate() {
        l.id = LeaseId::new(i);
    }
    sales.sort_by_key(|s| s.at_ns);
    let products = keys
        .iter()
        .map(|&k| ProductOversell {
            product: Some(k),
            initial_stock: Some(1_000_000),
            sold: 0,
            sales: 0,
            oversold: 0,
            final_stock: None,
            lost_updates: 0,
        })
        .collect();
    let times_ns = log.events.iter().map(|e| e.at_ns).collect();
    let analysis = Analysis {
        leases,
        sales,
        products,
        times_ns,
        ..Analysis::default()
    };
    (log, analysis)
}

fn state_query(c: &mut Criterion) {
    let events: usize = std::env::var("LOCKREPLAY_BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000);
    let t = Instant::now();
    let (log, analysis) = synthetic(events);
    eprintln!(
        "synthetic log: {} events, {} holds in {:.1?}",
        log.events.len(),
        analysis.leases.len(),
        t.elapsed()
    );
    let t = Instant::now();
    let index = StateIndex::build(&log, &analysis, Some(200.0));
    eprintln!("StateIndex::build: {:.1?}", t.elapsed());
    let (lo, hi) = index.extent();
    let mid = lo + (hi - lo) / 2;
    let st = index.state_at(&analysis, mid);
    eprintln!(
        "state at the middle: {} keys held, {} believers, {} orders",
        st.keys.len(),
        st.keys.iter().map(|k| k.believers.len()).sum::<usize>(),
        st.orders
    );
    let mut g = c.benchmark_group("replay");
    g.bench_function(format!("state_at/{events}_events"), |b| {
        let mut t = lo;
        let step = ((hi - lo) / 997).max(1);
        b.iter(|| {
            t = if t + step > hi { lo } else { t + step };
            black_box(index.state_at(&analysis, black_box(t)))
        });
    });
    g.bench_function(format!("next_step/{events}_events"), |b| {
        b.iter(|| black_box(index.next_step(black_box(mid))));
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = state_query
}
criterion_main!(benches);

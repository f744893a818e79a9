//! Playback of an incident without a window: the [`Playback`] model (time cursor,
//! play/pause, speed, step, loop, seek) driven by [`PlaybackCommand`]s, and
//! the [`StateIndex`] that answers "what was the lock and stock state at time
//! t" from the [`Analysis`] results, in O(log n + holders alive at t).
//!
//! Modelled on rerun's time control: the UI only sends commands and draws
//! what [`StateIndex::state_at`] returns, so playback is tested headlessly.
//! There is one set of rules: leases, their ends, sales and oversold units
//! all come from the analysis; this module only indexes them by time.

use std::collections::HashMap;
use std::time::Duration;

use rayon::prelude::*;

use crate::analysis::{Analysis, Incident, Lease, LeaseId, LockEnd};
use crate::model::{EventKind, LoadedLog, Sym};

/// Slowest playback speed.
pub const MIN_SPEED: f64 = 0.1;
/// Fastest playback speed.
pub const MAX_SPEED: f64 = 100.0;
/// Speeds offered in the speed menu (1x is real time).
pub const SPEED_PRESETS: [f64; 10] = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0];

/// A change to the [`Playback`] model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlaybackCommand {
    /// Start playing (from the start, or the loop start, when at the end).
    Play,
    /// Stop playing; the cursor stays.
    Pause,
    /// Play when paused, pause when playing.
    TogglePlay,
    /// Playback speed, clamped to [`MIN_SPEED`]..=[`MAX_SPEED`]; 1.0 is real
    /// time.
    SetSpeed(f64),
    /// Pause and move to the next event or lease end after the cursor.
    StepForward,
    /// Pause and move to the previous event or lease end before the cursor.
    StepBack,
    /// Move the cursor to this time, ns (clamped to the extent).
    Seek(i64),
    /// The range to loop, ns, or `None` to stop looping.
    SetLoop(Option<(i64, i64)>),
}

/// Where an incident's damage is: its first oversold order, else the start of
/// its overlap (the cursor lands there, so "State at cursor" shows what went
/// wrong, not the quiet instant before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Damage {
    /// Epoch ns.
    pub at_ns: i64,
    /// True when `at_ns` is an oversold order's, false for the overlap's
    /// start.
    pub oversold_order: bool,
}

/// The [`Damage`] of `inc`: the earliest of its sales with oversold
/// units, else its start.
pub fn damage_at(analysis: &Analysis, inc: &Incident) -> Damage {
    let first_oversold = inc
        .sales
        .iter()
        .filter_map(|&s| analysis.sales.get(s.index()))
        .filter(|s| s.oversold_units > 0)
        .map(|s| s.at_ns)
        .min();
    match first_oversold {
        Some(at_ns) => Damage {
            at_ns,
            oversold_order: true,
        },
        None => Damage {
            at_ns: inc.start_ns,
            oversold_order: false,
        },
    }
}

/// The time cursor and how it moves.
#[derive(Clone, Debug, PartialEq)]
pub struct Playback {
    /// Cursor, epoch ns.
    pub cursor_ns: i64,
    /// True while playing.
    pub playing: bool,
    /// Log time per wall time (1.0 = real time).
    pub speed: f64,
    /// When set, playback wraps from its end to its start.
    pub loop_range: Option<(i64, i64)>,
    /// Earliest and latest time the cursor can take, ns.
    pub extent: (i64, i64),
}

impl Playback {
    /// A paused cursor at the start of `extent` (`(first, last)` ns), 1x.
    pub fn new(extent: (i64, i64)) -> Playback {
        let extent = (extent.0, extent.1.max(extent.0));
        Playback {
            cursor_ns: extent.0,
            playing: false,
            speed: 1.0,
            loop_range: None,
            extent,
        }
    }

    /// Where playing starts and ends: the loop range when set, else the
    /// extent.
    fn range(&self) -> (i64, i64) {
        self.loop_range.unwrap_or(self.extent)
    }

    /// Applies `cmd`; stepping uses the step times of `index`, and does
    /// nothing without one (the window builds it after showing the log).
    pub fn apply(&mut self, cmd: PlaybackCommand, index: Option<&StateIndex>) {
        match cmd {
            PlaybackCommand::Play => self.play(),
            PlaybackCommand::Pause => self.playing = false,
            PlaybackCommand::TogglePlay => {
                if self.playing {
                    self.playing = false;
                } else {
                    self.play();
                }
            }
            PlaybackCommand::SetSpeed(s) => {
                self.speed = if s.is_finite() {
                    s.clamp(MIN_SPEED, MAX_SPEED)
                } else {
                    1.0
                };
            }
            PlaybackCommand::StepForward => {
                self.playing = false;
                if let Some(t) = index.and_then(|ix| ix.next_step(self.cursor_ns)) {
                    self.cursor_ns = t;
                }
            }
            PlaybackCommand::StepBack => {
                self.playing = false;
                if let Some(t) = index.and_then(|ix| ix.prev_step(self.cursor_ns)) {
                    self.cursor_ns = t;
                }
            }
            PlaybackCommand::Seek(t) => self.cursor_ns = t.clamp(self.extent.0, self.extent.1),
            PlaybackCommand::SetLoop(range) => {
                self.loop_range = range
                    .map(|(a, b)| (a.min(b), a.max(b)))
                    .filter(|(a, b)| b > a);
            }
        }
    }

    fn play(&mut self) {
        let (a, b) = self.range();
        if self.cursor_ns >= b || self.cursor_ns < a {
            self.cursor_ns = a;
        }
        self.playing = true;
    }

    /// Advances the cursor by `speed x elapsed` while playing. Past the end
    /// of the loop range it wraps; past the end of the extent it stops there.
    pub fn tick(&mut self, elapsed: Duration) {
        if !self.playing {
            return;
        }
        let step = (elapsed.as_secs_f64() * 1e9 * self.speed).round();
        let step = if step.is_finite() { step as i64 } else { 0 };
        self.cursor_ns = self.cursor_ns.saturating_add(step.max(0));
        match self.loop_range {
            Some((a, b)) if self.cursor_ns >= b => {
                self.cursor_ns = a + (self.cursor_ns - b) % (b - a);
            }
            _ => {
                if self.cursor_ns >= self.extent.1 {
                    self.cursor_ns = self.extent.1;
                    self.playing = false;
                }
            }
        }
    }
}

/// Leases sorted by grant time with a max-end tree over blocks, so all
/// leases alive at `t` (grant <= t < end) are found in O(log n + k).
#[derive(Clone, Debug, Default)]
struct Stabbing {
    start: Vec<i64>,
    end: Vec<i64>,
    id: Vec<u32>,
    /// Max `end` per node of a binary tree over blocks; leaves at
    /// `leaves..2*leaves`.
    tree: Vec<i64>,
    leaves: usize,
}

/// Leases per tree leaf.
const BLOCK: usize = 32;

impl Stabbing {
    /// `items` are `(start, end, id)`.
    fn build(mut items: Vec<(i64, i64, u32)>) -> Stabbing {
        items.par_sort_unstable();
        let blocks = items.len().div_ceil(BLOCK).max(1);
        let leaves = blocks.next_power_of_two();
        let mut tree = vec![i64::MIN; 2 * leaves];
        for (b, chunk) in items.chunks(BLOCK).enumerate() {
            tree[leaves + b] = chunk.iter().map(|x| x.1).max().unwrap_or(i64::MIN);
        }
        for i in (1..leaves).rev() {
            tree[i] = tree[2 * i].max(tree[2 * i + 1]);
        }
        Stabbing {
            start: items.iter().map(|x| x.0).collect(),
            end: items.iter().map(|x| x.1).collect(),
            id: items.iter().map(|x| x.2).collect(),
            tree,
            leaves,
        }
    }

    /// Pushes the ids of items with `start <= t < end` onto `out`.
    fn query(&self, t: i64, out: &mut Vec<usize>) {
        let p = self.start.partition_point(|&s| s <= t);
        if p == 0 {
            return;
        }
        let last_block = (p - 1) / BLOCK;
        // (node, first block, block count)
        let mut stack = vec![(1usize, 0usize, self.leaves)];
        while let Some((node, lo, len)) = stack.pop() {
            if lo > last_block || self.tree[node] <= t {
                continue;
            }
            if len == 1 {
                let from = lo * BLOCK;
                let to = ((lo + 1) * BLOCK).min(p);
                for i in from..to {
                    if self.end[i] > t {
                        out.push(self.id[i] as usize);
                    }
                }
            } else {
                let half = len / 2;
                stack.push((2 * node + 1, lo + half, half));
                stack.push((2 * node, lo, half));
            }
        }
    }
}

/// Stock levels of every product over time: the changes in time order plus
/// a snapshot of all levels every `every` changes, so the levels at `t` are
/// one snapshot copied and at most `every` changes applied, read in order
/// (no cache miss per product, as a binary search per product would have).
#[derive(Clone, Debug, Default)]
struct StockTimeline {
    products: usize,
    /// `(time, product slot, level)`, by time (log order within a time).
    changes: Vec<(i64, u32, i64)>,
    every: usize,
    /// Levels after `changes[..c * every]`, `products` per snapshot;
    /// [`NO_LEVEL`] when nothing was logged yet.
    snapshots: Vec<i64>,
}

/// No stock level logged yet.
const NO_LEVEL: i64 = i64::MIN;

impl StockTimeline {
    fn build(products: usize, mut changes: Vec<(i64, u32, i64)>) -> StockTimeline {
        changes.sort_by_key(|c| c.0); // stable: the last line at a time wins
        let every = products.max(1024);
        let mut levels = vec![NO_LEVEL; products];
        let mut snapshots = levels.clone();
        for (i, &(_, slot, level)) in changes.iter().enumerate() {
            if let Some(l) = levels.get_mut(slot as usize) {
                *l = level;
            }
            if (i + 1) % every == 0 {
                snapshots.extend_from_slice(&levels);
            }
        }
        StockTimeline {
            products,
            changes,
            every,
            snapshots,
        }
    }

    /// Level per product slot at `t` (everything logged at `t` applied).
    fn levels_at(&self, t: i64) -> Vec<Option<i64>> {
        let p = self.changes.partition_point(|c| c.0 <= t);
        let c = p / self.every;
        let from = c * self.products;
        let mut levels: Vec<i64> = self
            .snapshots
            .get(from..from + self.products)
            .map(<[i64]>::to_vec)
            .unwrap_or_else(|| vec![NO_LEVEL; self.products]);
        for &(_, slot, level) in self.changes.get(c * self.every..p).unwrap_or(&[]) {
            if let Some(l) = levels.get_mut(slot as usize) {
                *l = level;
            }
        }
        levels
            .into_iter()
            .map(|l| (l != NO_LEVEL).then_some(l))
            .collect()
    }
}

/// What a holder's lease looks like at the cursor.
#[derive(Clone, Debug, PartialEq)]
pub enum LeaseStatus {
    /// The lease is valid on the server: `remaining_ms` until it expires
    /// (`None`: no TTL, never expires).
    Valid {
        /// Time left, ms.
        remaining_ms: Option<f64>,
    },
    /// The lock ended on the server `ago_ms` ago but the holder still
    /// believes it holds it (a zombie hold).
    EndedStillWorking {
        /// How the lock ended.
        end: LockEnd,
        /// Time since it ended, ms.
        ago_ms: f64,
    },
}

/// A holder who believes it holds a key at the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct Believer {
    /// The hold.
    pub lease: LeaseId,
    /// Holder.
    pub holder: Sym,
    /// Its state.
    pub status: LeaseStatus,
}

/// One lock key at the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyState {
    /// Lock key.
    pub key: Sym,
    /// Who holds it in the server's view (the MONITOR capture's holds when
    /// there are any for this key, else the reconstructed lock ends).
    pub server_holder: Option<Sym>,
    /// Who believe they hold it, in grant order.
    pub believers: Vec<Believer>,
}

/// One product's stock at the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct StockState {
    /// Product (`None`: unknown).
    pub product: Option<Sym>,
    /// Last stock level logged at or before the cursor, if any.
    pub level: Option<i64>,
}

/// The state of everything at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayState {
    /// The instant, ns.
    pub at_ns: i64,
    /// Keys with a believer or a server-side holder, by key.
    pub keys: Vec<KeyState>,
    /// Stock per product, in [`Analysis::products`] order.
    pub stock: Vec<StockState>,
    /// Sales (orders, or deductions) made so far.
    pub orders: usize,
    /// Oversold units so far.
    pub oversold_units: i64,
    /// Loss so far ([`crate::money::loss`] of the oversold units so far).
    pub loss: crate::money::Loss,
}

/// An index over one [`Analysis`] for [`StateIndex::state_at`] and stepping.
#[derive(Clone, Debug, Default)]
pub struct StateIndex {
    /// Believed windows of `Analysis::leases`, alive = [grant, max(window end, lock end)).
    leases: Stabbing,
    /// Server-side holds of `Analysis::server_view`, alive = [grant, lock end).
    server: Stabbing,
    /// Keys that the server view describes.
    server_keys: Vec<Sym>,
    /// Sorted, deduplicated step times: events and server-side lock ends.
    steps: Vec<i64>,
    /// Sale times (sorted, as `Analysis::sales`).
    sale_at: Vec<i64>,
    /// Oversold units of sales `0..i`.
    oversold_prefix: Vec<i64>,
    /// Products, in `Analysis::products` order.
    products: Vec<Option<Sym>>,
    /// Their stock levels over time.
    stock: StockTimeline,
    unit_loss: Option<f64>,
    extent: (i64, i64),
}

fn lease_id(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The stock level changes the log records, as (time, product slot in
/// `Analysis::products`, level): the product each business event counts
/// for is the one the analysis gave its sale, else its product field,
/// else its key.
fn stock_changes(log: &LoadedLog, analysis: &Analysis) -> Vec<(i64, u32, i64)> {
    let time = |i: usize| analysis.time_of(log, i);
    let sale_product: HashMap<usize, Option<Sym>> = analysis
        .sales
        .iter()
        .map(|s| (s.event.index(), s.product))
        .collect();
    let product_slot: HashMap<Option<Sym>, usize> = analysis
        .products
        .iter()
        .enumerate()
        .map(|(i, p)| (p.product, i))
        .collect();
    let only = (analysis.products.len() == 1).then_some(0);
    let mut changes = Vec::new();
    for (i, e) in log.events.iter().enumerate() {
        if !e.has_detail() {
            continue;
        }
        let d = e.detail();
        // The levels `compute_oversell` tracks as the final stock.
        let level = match e.kind {
            EventKind::StockInitialized | EventKind::StockRead => d.stock,
            EventKind::StockDeducted => d.stock_after,
            _ => None,
        };
        let Some(level) = level else {
            continue;
        };
        let product = sale_product.get(&i).copied().unwrap_or(d.product.or(e.key));
        if let Some(slot) = product_slot.get(&product).copied().or(only) {
            changes.push((time(i), lease_id(slot), level));
        }
    }
    changes
}

/// First and last time there is anything to show, ns, as
/// [`StateIndex::extent`] gives it: from the first step time (an event, or
/// a lock ending by expiry or vanishing) to the last step time or the last
/// lease's end, whichever is later; (0, 0) for nothing. Known without
/// building the index (a parallel pass).
pub fn extent_of(log: &LoadedLog, analysis: &Analysis) -> (i64, i64) {
    let times = (0..log.events.len())
        .into_par_iter()
        .map(|i| analysis.time_of(log, i));
    let lock_ends = analysis.leases.par_iter().filter_map(step_lock_end);
    let span = |(a, b): (i64, i64), (c, d): (i64, i64)| (a.min(c), b.max(d));
    let (first, last) = times
        .chain(lock_ends)
        .map(|t| (t, t))
        .reduce(|| (i64::MAX, i64::MIN), span);
    extent_over((first <= last).then_some((first, last)), analysis)
}

/// The extent of [`extent_of`] from the first and last step times (none
/// without a step).
fn extent_over(steps: Option<(i64, i64)>, analysis: &Analysis) -> (i64, i64) {
    let (first, last) = steps.unwrap_or((0, 0));
    let ends = analysis
        .leases
        .par_iter()
        .map(|l| l.lock_end_ns.max(l.window_end_ns));
    (first, last.max(ends.max().unwrap_or(first)))
}

/// A lease's lock end when it is a step of the playback: an expiry or a
/// vanishing (a release is the release's event already).
fn step_lock_end(l: &Lease) -> Option<i64> {
    matches!(l.lock_end, LockEnd::Expired | LockEnd::Vanished).then_some(l.lock_end_ns)
}

/// Each lease's believed window as the lease index holds it: (grant,
/// max(window end, lock end), id).
fn lease_windows(analysis: &Analysis) -> Vec<(i64, i64, u32)> {
    let windows = analysis.leases.par_iter().enumerate();
    windows
        .map(|(i, l)| {
            (
                l.acquired_ns,
                l.window_end_ns.max(l.lock_end_ns),
                lease_id(i),
            )
        })
        .collect()
}

/// The playback's step times: every event's time and every lock end by
/// expiry or vanishing, sorted, each once.
fn step_times(log: &LoadedLog, analysis: &Analysis) -> Vec<i64> {
    let time = |i: usize| analysis.time_of(log, i);
    let mut steps: Vec<i64> = (0..log.events.len()).into_par_iter().map(time).collect();
    steps.extend(analysis.leases.iter().filter_map(step_lock_end));
    steps.par_sort_unstable();
    steps.dedup();
    steps
}

impl StateIndex {
    /// Indexes `analysis` of `log`; `unit_loss` prices the oversold units
    /// (the analysis setting). O(n log n).
    pub fn build(log: &LoadedLog, analysis: &Analysis, unit_loss: Option<f64>) -> StateIndex {
        // The two interval indexes and the step times side by side: at 10 M
        // events the steps alone are 10 M times to sort.
        let ((leases, server), steps) = rayon::join(
            || {
                rayon::join(
                    || Stabbing::build(lease_windows(analysis)),
                    || {
                        let holds = analysis.server_view.iter().enumerate();
                        let items = holds.map(|(i, l)| (l.acquired_ns, l.lock_end_ns, lease_id(i)));
                        Stabbing::build(items.collect())
                    },
                )
            },
            || step_times(log, analysis),
        );
        let mut server_keys: Vec<Sym> = analysis.server_view.iter().map(|l| l.key).collect();
        server_keys.sort_unstable();
        server_keys.dedup();

        let sale_at: Vec<i64> = analysis.sales.iter().map(|s| s.at_ns).collect();
        let mut oversold_prefix = Vec::with_capacity(sale_at.len() + 1);
        let mut acc = 0i64;
        oversold_prefix.push(0);
        for s in &analysis.sales {
            acc = acc.saturating_add(s.oversold_units);
            oversold_prefix.push(acc);
        }

        let changes = stock_changes(log, analysis);
        let products: Vec<Option<Sym>> = analysis.products.iter().map(|p| p.product).collect();
        let stock = StockTimeline::build(products.len(), changes);
        let extent = extent_over(
            steps.first().zip(steps.last()).map(|(&a, &b)| (a, b)),
            analysis,
        );
        StateIndex {
            leases,
            server,
            server_keys,
            steps,
            sale_at,
            oversold_prefix,
            products,
            stock,
            unit_loss,
            extent,
        }
    }

    /// First and last time there is anything to show, ns.
    pub fn extent(&self) -> (i64, i64) {
        self.extent
    }

    /// The first step time after `t`.
    pub fn next_step(&self, t: i64) -> Option<i64> {
        self.steps
            .get(self.steps.partition_point(|&s| s <= t))
            .copied()
    }

    /// The last step time before `t`.
    pub fn prev_step(&self, t: i64) -> Option<i64> {
        let p = self.steps.partition_point(|&s| s < t);
        p.checked_sub(1).and_then(|i| self.steps.get(i)).copied()
    }

    /// The state at `t`: per key who believe they hold it and who holds it
    /// on the server, stock per product, and the tickers. Everything logged
    /// at exactly `t` has happened.
    pub fn state_at(&self, analysis: &Analysis, t: i64) -> ReplayState {
        let mut alive = Vec::new();
        self.leases.query(t, &mut alive);
        let mut server_alive = Vec::new();
        self.server.query(t, &mut server_alive);
        let mut by_key: Vec<KeyState> = Vec::new();
        alive.sort_unstable(); // analysis order: by key, then grant
        for li in alive {
            let Some(l) = analysis.leases.get(li) else {
                continue;
            };
            let ks = match by_key.last_mut() {
                Some(k) if k.key == l.key => k,
                _ => {
                    by_key.push(KeyState {
                        key: l.key,
                        server_holder: None,
                        believers: Vec::new(),
                    });
                    let n = by_key.len() - 1;
                    &mut by_key[n]
                }
            };
            let on_server = t < l.lock_end_ns;
            if on_server && self.server_keys.binary_search(&l.key).is_err() {
                ks.server_holder = Some(l.holder);
            }
            if t < l.window_end_ns {
                ks.believers.push(Believer {
                    lease: LeaseId::new(li),
                    holder: l.holder,
                    status: lease_status(l, t),
                });
            }
        }
        for si in server_alive {
            let Some(l) = analysis.server_view.get(si) else {
                continue;
            };
            match by_key.iter_mut().find(|k| k.key == l.key) {
                Some(k) => k.server_holder = Some(l.holder),
                None => by_key.push(KeyState {
                    key: l.key,
                    server_holder: Some(l.holder),
                    believers: Vec::new(),
                }),
            }
        }
        by_key.retain(|k| k.server_holder.is_some() || !k.believers.is_empty());
        by_key.sort_by_key(|k| k.key);

        let stock = self
            .products
            .iter()
            .zip(self.stock.levels_at(t))
            .map(|(&product, level)| StockState { product, level })
            .collect();
        let orders = self.sale_at.partition_point(|&s| s <= t);
        let oversold_units = self.oversold_prefix.get(orders).copied().unwrap_or(0);
        ReplayState {
            at_ns: t,
            keys: by_key,
            stock,
            orders,
            oversold_units,
            loss: crate::money::loss(oversold_units, self.unit_loss),
        }
    }
}

fn lease_status(l: &Lease, t: i64) -> LeaseStatus {
    const MS: f64 = 1e6;
    if t < l.lock_end_ns {
        LeaseStatus::Valid {
            remaining_ms: l.expiry_ns.get().map(|e| (e - t) as f64 / MS),
        }
    } else {
        LeaseStatus::EndedStillWorking {
            end: l.lock_end,
            ago_ms: (t - l.lock_end_ns) as f64 / MS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Settings, analyze};
    use crate::ingest::{IngestOptions, Progress, read_source};
    use crate::model::LogBuilder;

    const SEED: &[u8] = include_bytes!("../sample-logs/seed-incident.jsonl");

    fn seed() -> (LoadedLog, Analysis, StateIndex) {
        let mut b = LogBuilder::new();
        read_source(
            "seed-incident.jsonl",
            SEED,
            &IngestOptions::default(),
            &mut b,
            &Progress::default(),
        )
        .expect("seed loads");
        let log = b.finish();
        let settings = Settings {
            unit_loss: Some(200.0),
            ..Settings::default()
        };
        let a = analyze(&log, &settings);
        let idx = StateIndex::build(&log, &a, Some(200.0));
        (log, a, idx)
    }

    fn empty_index(steps: Vec<i64>) -> StateIndex {
        StateIndex {
            steps,
            ..StateIndex::default()
        }
    }

    #[test]
    fn play_advances_by_speed_times_elapsed() {
        let idx = empty_index(vec![]);
        let mut p = Playback::new((0, 10_000_000_000));
        p.apply(PlaybackCommand::SetSpeed(0.1), Some(&idx));
        p.apply(PlaybackCommand::Play, Some(&idx));
        p.tick(Duration::from_millis(500));
        assert_eq!(p.cursor_ns, 50_000_000);
        p.apply(PlaybackCommand::SetSpeed(100.0), Some(&idx));
        p.tick(Duration::from_millis(10));
        assert_eq!(p.cursor_ns, 1_050_000_000);
        p.apply(PlaybackCommand::Pause, Some(&idx));
        p.tick(Duration::from_secs(1));
        assert_eq!(p.cursor_ns, 1_050_000_000, "paused: no movement");
        p.apply(PlaybackCommand::SetSpeed(1000.0), Some(&idx));
        assert_eq!(p.speed, MAX_SPEED);
        p.apply(PlaybackCommand::SetSpeed(0.0), Some(&idx));
        assert_eq!(p.speed, MIN_SPEED);
    }

    #[test]
    fn play_stops_at_the_end_and_restarts_from_the_start() {
        let idx = empty_index(vec![]);
        let mut p = Playback::new((100, 1_100));
        p.apply(PlaybackCommand::Play, Some(&idx));
        p.tick(Duration::from_secs(1));
        assert_eq!(p.cursor_ns, 1_100);
        assert!(!p.playing);
        p.apply(PlaybackCommand::TogglePlay, Some(&idx));
        assert!(p.playing);
        assert_eq!(p.cursor_ns, 100);
    }

    #[test]
    fn a_loop_wraps() {
        let idx = empty_index(vec![]);
        let mut p = Playback::new((0, 10_000_000_000));
        p.apply(PlaybackCommand::SetLoop(Some((2_000, 1_000))), Some(&idx));
        assert_eq!(p.loop_range, Some((1_000, 2_000)));
        p.apply(PlaybackCommand::Play, Some(&idx));
        assert_eq!(p.cursor_ns, 1_000, "play enters the loop");
        p.tick(Duration::from_nanos(900));
        assert_eq!(p.cursor_ns, 1_900);
        p.tick(Duration::from_nanos(250));
        assert_eq!(p.cursor_ns, 1_150, "2150 wraps to 1150");
        p.tick(Duration::from_nanos(3_000));
        assert_eq!(p.cursor_ns, 1_150, "whole turns wrap too");
        assert!(p.playing);
        p.apply(PlaybackCommand::SetLoop(None), Some(&idx));
        p.tick(Duration::from_nanos(850));
        assert_eq!(p.cursor_ns, 2_000, "no loop: goes on");
    }

    #[test]
    fn a_step_lands_exactly_on_the_next_event() {
        let (log, a, idx) = seed();
        let mut p = Playback::new(idx.extent());
        let first = a.time_of(&log, 0);
        assert_eq!(p.cursor_ns, first);
        p.apply(PlaybackCommand::Play, Some(&idx));
        p.apply(PlaybackCommand::StepForward, Some(&idx));
        assert!(!p.playing, "a step pauses");
        let next = (0..log.events.len())
            .map(|i| a.time_of(&log, i))
            .filter(|&t| t > first)
            .min()
            .expect("more than one time");
        assert_eq!(p.cursor_ns, next);
        // From between two events, a step lands on the next one exactly.
        let (t1, t2) = (log.events[100].at_ns, log.events[101].at_ns);
        assert!(t2 > t1);
        p.apply(PlaybackCommand::Seek(t1 + 1), Some(&idx));
        p.apply(PlaybackCommand::StepForward, Some(&idx));
        assert!(p.cursor_ns <= t2 && p.cursor_ns > t1);
        p.apply(PlaybackCommand::StepBack, Some(&idx));
        assert_eq!(p.cursor_ns, t1);
        // Lease expiries are steps too.
        let expiry = a
            .leases
            .iter()
            .find(|l| l.lock_end == LockEnd::Expired)
            .expect("the seed has an expired lease")
            .lock_end_ns;
        p.apply(PlaybackCommand::Seek(expiry - 1), Some(&idx));
        p.apply(PlaybackCommand::StepForward, Some(&idx));
        assert_eq!(p.cursor_ns, expiry);
    }

    #[test]
    fn the_extent_is_known_without_the_index_and_a_step_waits_for_it() {
        let (log, a, idx) = seed();
        let extent = extent_of(&log, &a);
        assert_eq!(extent, idx.extent());
        assert!(extent.0 < extent.1);
        // The step times' bounds: the first event, the last lease's end.
        assert_eq!(
            extent.0,
            (0..log.events.len())
                .map(|i| a.time_of(&log, i))
                .min()
                .expect("events")
        );
        let empty = LoadedLog::default();
        let none = analyze(&empty, &Settings::default());
        assert_eq!(extent_of(&empty, &none), (0, 0));
        assert_eq!(StateIndex::build(&empty, &none, None).extent(), (0, 0));
        // Without an index a step does nothing; a seek still moves.
        let mut p = Playback::new(extent);
        p.apply(PlaybackCommand::StepForward, None);
        assert_eq!(p.cursor_ns, extent.0);
        p.apply(PlaybackCommand::Seek(extent.0 + 5), None);
        assert_eq!(p.cursor_ns, extent.0 + 5);
    }

    #[test]
    fn state_at_the_second_acquire_agrees_with_the_analysis() {
        let (_, a, idx) = seed();
        let o = &a.overlaps[a.incidents[0].overlaps[0]];
        let (first, second) = (&a.leases[o.earlier], &a.leases[o.later]);
        let st = idx.state_at(&a, o.start_ns);
        assert_eq!(o.start_ns, second.acquired_ns);
        let k = st
            .keys
            .iter()
            .find(|k| k.key == o.key)
            .expect("the key is held");
        let holders: Vec<Sym> = k.believers.iter().map(|b| b.holder).collect();
        assert_eq!(holders, vec![first.holder, second.holder]);
        assert!(matches!(
            k.believers[0].status,
            LeaseStatus::EndedStillWorking {
                end: LockEnd::Expired,
                ..
            }
        ));
        assert_eq!(
            k.believers[1].status,
            LeaseStatus::Valid {
                remaining_ms: Some(2000.0)
            }
        );
        assert_eq!(k.server_holder, Some(second.holder));
        if let LeaseStatus::EndedStillWorking { ago_ms, .. } = k.believers[0].status {
            assert_eq!(ago_ms, (o.start_ns - first.lock_end_ns) as f64 / 1e6);
        }
    }

    #[test]
    fn state_at_every_instant_agrees_with_a_scan_of_the_analysis() {
        let (_, a, idx) = seed();
        let (lo, hi) = idx.extent();
        let mut t = lo - 1_000_000;
        while t <= hi + 1_000_000 {
            let st = idx.state_at(&a, t);
            let mut believers: Vec<LeaseId> = a
                .leases
                .iter()
                .filter(|l| l.acquired_ns <= t && t < l.window_end_ns)
                .map(|l| l.id)
                .collect();
            believers.sort_unstable();
            let mut got: Vec<LeaseId> = st
                .keys
                .iter()
                .flat_map(|k| k.believers.iter().map(|b| b.lease))
                .collect();
            got.sort_unstable();
            assert_eq!(got, believers, "believers at {t}");
            let oversold: i64 = a
                .sales
                .iter()
                .filter(|s| s.at_ns <= t)
                .map(|s| s.oversold_units)
                .sum();
            assert_eq!(st.oversold_units, oversold);
            assert_eq!(st.loss, crate::money::Loss::Known(oversold as f64 * 200.0));
            t += 7_000_000;
        }
        let end = idx.state_at(&a, hi);
        assert_eq!(end.oversold_units, a.summary.oversold_units);
        assert_eq!(end.loss, a.summary.loss);
        assert_eq!(end.orders, a.sales.len());
        assert_eq!(
            end.stock.iter().map(|s| s.level).collect::<Vec<_>>(),
            a.products.iter().map(|p| p.final_stock).collect::<Vec<_>>()
        );
    }

    #[test]
    fn stock_snapshots_agree_with_a_scan() {
        let mut changes = Vec::new();
        for i in 0..5000i64 {
            changes.push((i / 3, (i % 7) as u32, 1000 - i));
        }
        let st = StockTimeline::build(7, changes.clone());
        assert_eq!(st.every, 1024);
        for t in -1..1700 {
            let mut want = vec![None; 7];
            for &(at, slot, level) in &changes {
                if at <= t {
                    want[slot as usize] = Some(level);
                }
            }
            assert_eq!(st.levels_at(t), want, "t = {t}");
        }
    }

    #[test]
    fn stabbing_finds_exactly_the_intervals_alive() {
        let mut items = Vec::new();
        for i in 0..1000u32 {
            let s = i64::from((i * 37) % 500);
            let len = if i % 97 == 0 {
                10_000
            } else {
                i64::from(i % 7)
            };
            items.push((s, s + len, i));
        }
        let st = Stabbing::build(items.clone());
        for t in -5..700 {
            let mut got = Vec::new();
            st.query(t, &mut got);
            got.sort_unstable();
            let want: Vec<usize> = items
                .iter()
                .filter(|x| x.0 <= t && t < x.1)
                .map(|x| x.2 as usize)
                .collect();
            let mut want = want;
            want.sort_unstable();
            assert_eq!(got, want, "t = {t}");
        }
    }
}

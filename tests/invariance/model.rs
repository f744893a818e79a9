//! The incidents the invariance generator writes, and the field-name families
//! their application fields are spelled in.
//!
//! An incident is a list of [`Rec`]s: what the application did, in canonical
//! terms (`docs/semantics.md`). A [`Family`] spells a record's application
//! fields (event, lock key, holder, TTL, fencing token, product, quantity,
//! stock, order id) the way one naming style does: snake_case, camelCase,
//! dotted (ECS style), nested objects, abbreviated, Chinese. Layouts
//! (`layouts.rs`) add the runtime's own fields (time, level, logger, thread)
//! around them; envelopes (`envelopes.rs`) add the log service's record.

use serde_json::{Map, Value, json};

/// Epoch ms of every incident's start: 2026-11-30T23:06:55.000Z
/// (2026-12-01 07:06:55 in Asia/Shanghai), as in `tests/fixtures/exports/`.
pub const BASE_MS: i64 = 1_796_080_015_000;

/// What a line says happened (the canonical event kinds of `EventKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Acquired,
    /// An acquire that lost (the renaming generator's contenders only).
    #[allow(dead_code)]
    AcquireFailed,
    Renewed,
    Released,
    ReleaseFailed,
    StockInitialized,
    StockRead,
    StockDeducted,
    OrderCreated,
}

impl Kind {
    /// The canonical name (`EventKind::as_str`): the oracle's spelling.
    pub fn canonical(self) -> &'static str {
        match self {
            Kind::Acquired => "acquired",
            Kind::AcquireFailed => "acquire_failed",
            Kind::Renewed => "renewed",
            Kind::Released => "released",
            Kind::ReleaseFailed => "release_failed",
            Kind::StockInitialized => "stock_initialized",
            Kind::StockRead => "stock_read",
            Kind::StockDeducted => "stock_deducted",
            Kind::OrderCreated => "order_created",
        }
    }

    /// Every kind, in declaration order ([`Kind::index`]).
    #[allow(dead_code)]
    pub const ALL: [Kind; 9] = [
        Kind::Acquired,
        Kind::AcquireFailed,
        Kind::Renewed,
        Kind::Released,
        Kind::ReleaseFailed,
        Kind::StockInitialized,
        Kind::StockRead,
        Kind::StockDeducted,
        Kind::OrderCreated,
    ];

    /// The position of this kind in [`Kind::ALL`] (a renaming's tables).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The log level a lock library or shop service logs it at (a lost
    /// acquire is routine: logged at INFO, its words alone say it failed).
    pub fn level(self) -> Level {
        match self {
            Kind::ReleaseFailed => Level::Warn,
            _ => Level::Info,
        }
    }
}

/// A log level, rendered by each layout in its own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
}

/// One application record of an incident.
#[derive(Clone, Debug)]
pub struct Rec {
    /// ms after [`BASE_MS`].
    pub t_ms: i64,
    pub host: &'static str,
    pub thread: &'static str,
    pub kind: Kind,
    pub key: Option<&'static str>,
    pub holder: Option<&'static str>,
    pub ttl_ms: Option<i64>,
    pub fence: Option<i64>,
    pub sku: Option<&'static str>,
    pub quantity: Option<i64>,
    pub stock: Option<i64>,
    pub stock_after: Option<i64>,
    pub order_id: Option<&'static str>,
}

impl Rec {
    /// Epoch ms of this record.
    pub fn epoch_ms(&self) -> i64 {
        BASE_MS + self.t_ms
    }
}

/// One incident: its name and its records in time order.
pub struct Incident {
    pub name: &'static str,
    pub recs: Vec<Rec>,
    /// What the oracle's answer must show, checked before the oracle is
    /// trusted (so that a broken incident fails loudly, not silently).
    pub expect: Expect,
}

/// The shape of an incident's right answer.
pub struct Expect {
    pub overlaps_at_least: usize,
    pub oversold_at_least: i64,
    /// Finding kinds that must be present.
    pub findings: &'static [&'static str],
    /// Exactly no overlap, no oversell, no finding (the negative control).
    pub clean: bool,
}

fn r(t_ms: i64, host: &'static str, thread: &'static str, kind: Kind) -> Rec {
    Rec {
        t_ms,
        host,
        thread,
        kind,
        key: None,
        holder: None,
        ttl_ms: None,
        fence: None,
        sku: None,
        quantity: None,
        stock: None,
        stock_after: None,
        order_id: None,
    }
}

impl Rec {
    fn lock(mut self, key: &'static str, holder: &'static str) -> Rec {
        self.key = Some(key);
        self.holder = Some(holder);
        self
    }
    fn ttl(mut self, ms: i64) -> Rec {
        self.ttl_ms = Some(ms);
        self
    }
    fn fence(mut self, f: i64) -> Rec {
        self.fence = Some(f);
        self
    }
    fn stock(mut self, sku: &'static str, stock: i64) -> Rec {
        self.sku = Some(sku);
        self.stock = Some(stock);
        self
    }
    fn sale(
        mut self,
        sku: &'static str,
        qty: i64,
        after: Option<i64>,
        order: Option<&'static str>,
    ) -> Rec {
        self.sku = Some(sku);
        self.quantity = Some(qty);
        self.stock_after = after;
        self.order_id = order;
        self
    }
}

/// The incidents: an oversell after a lease expired, watchdog renewals with a
/// late one, a foreign release, a stale fencing token, and a negative control
/// (two holders taking turns, no overlap).
pub fn incidents() -> Vec<Incident> {
    use Kind::*;
    let k1 = "lock:sku:1001";
    let oversell = vec![
        r(0, "web-01", "main", StockInitialized).stock("sku-1001", 1),
        r(100, "web-01", "exec-1", Acquired)
            .lock(k1, "tok-A")
            .ttl(2000),
        r(150, "web-01", "exec-1", StockRead)
            .lock(k1, "tok-A")
            .stock("sku-1001", 1),
        r(2300, "web-02", "exec-7", Acquired)
            .lock(k1, "tok-B")
            .ttl(2000),
        r(2350, "web-02", "exec-7", StockRead)
            .lock(k1, "tok-B")
            .stock("sku-1001", 1),
        r(2400, "web-02", "exec-7", StockDeducted)
            .lock(k1, "tok-B")
            .sale("sku-1001", 1, Some(0), None),
        r(2420, "web-02", "exec-7", OrderCreated)
            .lock(k1, "tok-B")
            .sale("sku-1001", 1, None, Some("O-2")),
        r(2500, "web-02", "exec-7", Released).lock(k1, "tok-B"),
        r(3100, "web-01", "exec-1", StockDeducted)
            .lock(k1, "tok-A")
            .sale("sku-1001", 1, Some(-1), None),
        r(3120, "web-01", "exec-1", OrderCreated)
            .lock(k1, "tok-A")
            .sale("sku-1001", 1, None, Some("O-1")),
        r(3200, "web-01", "exec-1", ReleaseFailed).lock(k1, "tok-A"),
    ];
    // Redisson-style holders (`UUID:threadId`), a 1 s watchdog lease
    // renewed every third of it, then a pause and a renewal logged late.
    let k2 = "lock:sku:2002";
    let (a2, b2) = (
        "8f14e45f-ceea-467a-9575-6f2b0c1d2e3f:61",
        "c9f0f895-fb98-4b91-a1c5-3d4e5f607182:77",
    );
    let renewals = vec![
        r(0, "web-01", "main", StockInitialized).stock("sku-2002", 1),
        r(100, "web-01", "exec-2", Acquired).lock(k2, a2).ttl(1000),
        r(433, "web-01", "watchdog-1", Renewed)
            .lock(k2, a2)
            .ttl(1000),
        r(766, "web-01", "watchdog-1", Renewed)
            .lock(k2, a2)
            .ttl(1000),
        r(2100, "web-02", "exec-3", Acquired).lock(k2, b2).ttl(1000),
        r(2150, "web-02", "exec-3", StockDeducted)
            .lock(k2, b2)
            .sale("sku-2002", 1, Some(0), None),
        r(2170, "web-02", "exec-3", OrderCreated).lock(k2, b2).sale(
            "sku-2002",
            1,
            None,
            Some("O-21"),
        ),
        r(2300, "web-01", "watchdog-1", Renewed)
            .lock(k2, a2)
            .ttl(1000),
        r(2350, "web-01", "exec-2", StockDeducted)
            .lock(k2, a2)
            .sale("sku-2002", 1, Some(-1), None),
        r(2370, "web-01", "exec-2", OrderCreated).lock(k2, a2).sale(
            "sku-2002",
            1,
            None,
            Some("O-22"),
        ),
        r(2500, "web-02", "exec-3", Released).lock(k2, b2),
        r(2600, "web-01", "exec-2", ReleaseFailed).lock(k2, a2),
    ];
    // A's lease expires, B acquires, A's release deletes B's lock (a foreign
    // release), C acquires while B still works.
    let k3 = "lock:order:77";
    let (a3, b3, c3) = (
        "5f1d7a2e-9c3b-4e8a-b6d4-0a1b2c3d4e5f",
        "7e2b4c55-1f2e-4d3c-8b1a-9f8e7d6c5b4a",
        "0c1d2e3f-4a5b-4c6d-9e8f-a0b1c2d3e4f5",
    );
    let foreign = vec![
        r(0, "web-01", "exec-4", Acquired).lock(k3, a3).ttl(1000),
        r(1200, "web-02", "exec-5", Acquired).lock(k3, b3).ttl(3000),
        r(1500, "web-01", "exec-4", Released).lock(k3, a3),
        r(1600, "web-03", "exec-6", Acquired).lock(k3, c3).ttl(3000),
        r(2000, "web-03", "exec-6", Released).lock(k3, c3),
        r(2800, "web-02", "exec-5", ReleaseFailed).lock(k3, b3),
    ];
    // Fencing tokens: the paused holder writes with a token lower than one
    // the store already accepted.
    let k4 = "lock:sku:3003";
    let fencing = vec![
        r(0, "web-01", "main", StockInitialized).stock("sku-3003", 10),
        r(100, "web-01", "exec-1", Acquired)
            .lock(k4, "tok-33")
            .ttl(1000)
            .fence(33),
        r(1500, "web-02", "exec-2", Acquired)
            .lock(k4, "tok-34")
            .ttl(1000)
            .fence(34),
        r(1550, "web-02", "exec-2", StockDeducted)
            .lock(k4, "tok-34")
            .fence(34)
            .sale("sku-3003", 2, Some(8), None),
        r(1570, "web-02", "exec-2", OrderCreated)
            .lock(k4, "tok-34")
            .fence(34)
            .sale("sku-3003", 2, None, Some("O-31")),
        r(1700, "web-02", "exec-2", Released).lock(k4, "tok-34"),
        r(2000, "web-01", "exec-1", StockDeducted)
            .lock(k4, "tok-33")
            .fence(33)
            .sale("sku-3003", 1, Some(7), None),
        r(2020, "web-01", "exec-1", OrderCreated)
            .lock(k4, "tok-33")
            .fence(33)
            .sale("sku-3003", 1, None, Some("O-32")),
        r(2100, "web-01", "exec-1", ReleaseFailed).lock(k4, "tok-33"),
    ];
    // The negative control: two holders take turns, every sale inside its
    // holder's lease, stock left over.
    let k5 = "lock:sku:4004";
    let control = vec![
        r(0, "web-01", "main", StockInitialized).stock("sku-4004", 5),
        r(100, "web-01", "exec-1", Acquired)
            .lock(k5, "tok-X")
            .ttl(3000),
        r(150, "web-01", "exec-1", StockRead)
            .lock(k5, "tok-X")
            .stock("sku-4004", 5),
        r(200, "web-01", "exec-1", StockDeducted)
            .lock(k5, "tok-X")
            .sale("sku-4004", 1, Some(4), None),
        r(220, "web-01", "exec-1", OrderCreated)
            .lock(k5, "tok-X")
            .sale("sku-4004", 1, None, Some("O-41")),
        r(300, "web-01", "exec-1", Released).lock(k5, "tok-X"),
        r(500, "web-02", "exec-2", Acquired)
            .lock(k5, "tok-Y")
            .ttl(3000),
        r(560, "web-02", "exec-2", StockDeducted)
            .lock(k5, "tok-Y")
            .sale("sku-4004", 1, Some(3), None),
        r(580, "web-02", "exec-2", OrderCreated)
            .lock(k5, "tok-Y")
            .sale("sku-4004", 1, None, Some("O-42")),
        r(700, "web-02", "exec-2", Released).lock(k5, "tok-Y"),
    ];
    vec![
        Incident {
            name: "oversell",
            recs: oversell,
            expect: Expect {
                overlaps_at_least: 1,
                oversold_at_least: 1,
                findings: &[],
                clean: false,
            },
        },
        Incident {
            name: "renewals",
            recs: renewals,
            expect: Expect {
                overlaps_at_least: 1,
                oversold_at_least: 1,
                findings: &["renewal_gap"],
                clean: false,
            },
        },
        Incident {
            name: "foreign",
            recs: foreign,
            expect: Expect {
                overlaps_at_least: 1,
                oversold_at_least: 0,
                findings: &["foreign_release"],
                clean: false,
            },
        },
        Incident {
            name: "fencing",
            recs: fencing,
            expect: Expect {
                overlaps_at_least: 1,
                oversold_at_least: 0,
                findings: &["fencing_violation"],
                clean: false,
            },
        },
        Incident {
            name: "control",
            recs: control,
            expect: Expect {
                overlaps_at_least: 0,
                oversold_at_least: 0,
                findings: &[],
                clean: true,
            },
        },
    ]
}

/// The oracle's file: plain JSON Lines with the canonical snake_case names
/// the product reads best (`src/ingest/vocabulary/names.rs`: `ts`, `event`, `key`,
/// `holder`, `ttl_ms`, ...), RFC 3339 UTC times in ms.
pub fn canonical_jsonl(recs: &[Rec]) -> String {
    let mut out = String::new();
    for rec in recs {
        let mut m = Map::new();
        m.insert(
            "ts".into(),
            json!(crate::time::rfc3339_ms_z(rec.epoch_ms())),
        );
        m.insert("event".into(), json!(rec.kind.canonical()));
        m.insert("host".into(), json!(rec.host));
        m.insert("thread".into(), json!(rec.thread));
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                m.insert(k.into(), v);
            }
        };
        put("key", rec.key.map(|v| json!(v)));
        put("holder", rec.holder.map(|v| json!(v)));
        put("ttl_ms", rec.ttl_ms.map(|v| json!(v)));
        put("fencing_token", rec.fence.map(|v| json!(v)));
        put("sku", rec.sku.map(|v| json!(v)));
        put("quantity", rec.quantity.map(|v| json!(v)));
        put("stock", rec.stock.map(|v| json!(v)));
        put("stock_after", rec.stock_after.map(|v| json!(v)));
        put("order_id", rec.order_id.map(|v| json!(v)));
        out.push_str(&Value::Object(m).to_string());
        out.push('\n');
    }
    out
}

/// A field-name family: how one naming style spells the application's fields
/// and event names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `event`, `lock_key`, `owner`, `ttl_ms`, ... (Python, Go, Rust habit).
    Snake,
    /// `event`, `lockKey`, `lockOwner`, `ttlMs`, ... (Java, JS, .NET habit).
    Camel,
    /// ECS-style dotted names as literal keys: `event.action`, `lock.key`, ...
    Dotted,
    /// The dotted names as nested objects: `{"lock": {"key": ..}}`.
    Nested,
    /// Terse names: `ev`, `lk`, `tok`, `ttl`, `qty`, `oid`, ...
    Abbrev,
    /// Chinese names and event words: `事件`, `锁`, `持有者`, `获取锁成功`, ...
    Chinese,
    /// Names and event words no vocabulary of the reader has (the renaming
    /// generator's, `renaming.rs`).
    #[allow(dead_code)]
    Renamed(&'static Renaming),
}

/// A family of the renaming generator: every application field name and
/// event word replaced by one the reader's vocabulary does not have.
#[derive(Debug, PartialEq, Eq)]
pub struct Renaming {
    /// The name family (`fr`, `ru-cyrillic`, `random`...).
    pub names_id: &'static str,
    /// The phrase family (`en-synonym`, `zh-negated`...).
    pub phrases_id: &'static str,
    /// (event, key, holder, TTL, fencing token, product, quantity, stock,
    /// stock after, order id), one segment each.
    pub names: [&'static str; 10],
    /// The TTL is written in whole seconds under a short word with no unit
    /// (`exp: 2`); otherwise in ms under a name with no unit.
    pub ttl_s: bool,
    /// The event field's value per kind ([`Kind::index`]).
    pub events: [&'static str; 9],
    /// The message per kind ([`Kind::index`]).
    pub phrases: [&'static str; 9],
}

pub const FAMILIES: &[Family] = &[
    Family::Snake,
    Family::Camel,
    Family::Dotted,
    Family::Nested,
    Family::Abbrev,
    Family::Chinese,
];

/// One application field: its path (one segment unless the family nests)
/// and value.
#[derive(Clone, Debug)]
pub struct Field {
    pub path: Vec<&'static str>,
    pub value: Value,
}

impl Field {
    /// The path joined with dots (how nested names print flat).
    pub fn flat_name(&self) -> String {
        self.path.join(".")
    }
}

impl Family {
    pub fn id(self) -> &'static str {
        match self {
            Family::Snake => "snake",
            Family::Camel => "camel",
            Family::Dotted => "dotted",
            Family::Nested => "nested",
            Family::Abbrev => "abbrev",
            Family::Chinese => "chinese",
            Family::Renamed(r) => r.names_id,
        }
    }

    /// The names of (event, key, holder, ttl_ms, fencing token, product,
    /// quantity, stock, stock after, order id), as paths.
    fn names(self) -> [&'static [&'static str]; 10] {
        match self {
            Family::Renamed(r) => std::array::from_fn(|i| std::slice::from_ref(&r.names[i])),
            Family::Snake => [
                &["event"],
                &["lock_key"],
                &["owner"],
                &["ttl_ms"],
                &["fencing_token"],
                &["sku"],
                &["quantity"],
                &["stock"],
                &["stock_after"],
                &["order_id"],
            ],
            Family::Camel => [
                &["eventType"],
                &["lockKey"],
                &["lockOwner"],
                &["ttlMs"],
                &["fencingToken"],
                &["skuId"],
                &["quantity"],
                &["stockLevel"],
                &["stockAfter"],
                &["orderId"],
            ],
            Family::Dotted => [
                &["event.action"],
                &["lock.key"],
                &["lock.owner"],
                &["lock.ttl_ms"],
                &["lock.fencing_token"],
                &["product.sku"],
                &["order.quantity"],
                &["stock.level"],
                &["stock.after"],
                &["order.id"],
            ],
            Family::Nested => [
                &["event", "action"],
                &["lock", "key"],
                &["lock", "owner"],
                &["lock", "ttl_ms"],
                &["lock", "fencing_token"],
                &["product", "sku"],
                &["order", "quantity"],
                &["stock", "level"],
                &["stock", "after"],
                &["order", "id"],
            ],
            Family::Abbrev => [
                &["ev"],
                &["lk"],
                &["tok"],
                &["ttl"],
                &["fence"],
                &["sku"],
                &["qty"],
                &["stk"],
                &["stk_after"],
                &["oid"],
            ],
            Family::Chinese => [
                &["事件"],
                &["锁"],
                &["持有者"],
                &["过期时间毫秒"],
                &["栅栏令牌"],
                &["商品"],
                &["数量"],
                &["库存"],
                &["剩余库存"],
                &["订单号"],
            ],
        }
    }

    /// The path of the TTL field in this family (ms, or seconds for a
    /// renaming that writes seconds).
    pub fn ttl_path(self) -> Vec<&'static str> {
        self.names()[3].to_vec()
    }

    /// The event name this family logs for `kind`.
    pub fn event_name(self, kind: Kind) -> &'static str {
        use Kind::*;
        match self {
            Family::Snake | Family::Nested => kind.canonical(),
            Family::Camel => match kind {
                Acquired => "lockAcquired",
                AcquireFailed => "lockAcquireFailed",
                Renewed => "lockRenewed",
                Released => "lockReleased",
                ReleaseFailed => "lockReleaseFailed",
                StockInitialized => "stockInitialized",
                StockRead => "stockRead",
                StockDeducted => "stockDeducted",
                OrderCreated => "orderCreated",
            },
            Family::Dotted => match kind {
                Acquired => "lock.acquired",
                AcquireFailed => "lock.acquire_failed",
                Renewed => "lock.renewed",
                Released => "lock.released",
                ReleaseFailed => "lock.release_failed",
                StockInitialized => "stock.initialized",
                StockRead => "stock.read",
                StockDeducted => "stock.deducted",
                OrderCreated => "order.created",
            },
            Family::Abbrev => match kind {
                Acquired => "acq",
                AcquireFailed => "acq_fail",
                Renewed => "renew",
                Released => "rel",
                ReleaseFailed => "rel_fail",
                StockInitialized => "stk_init",
                StockRead => "stk_read",
                StockDeducted => "stk_deduct",
                OrderCreated => "order",
            },
            Family::Chinese => kind_phrase(kind, true),
            Family::Renamed(r) => r.events[kind.index()],
        }
    }

    /// The record's application fields in this family, event first.
    pub fn fields(self, rec: &Rec) -> Vec<Field> {
        let n = self.names();
        let mut out = vec![Field {
            path: n[0].to_vec(),
            value: json!(self.event_name(rec.kind)),
        }];
        let vals: [Option<Value>; 9] = [
            rec.key.map(|v| json!(v)),
            rec.holder.map(|v| json!(v)),
            rec.ttl_ms.map(|ms| match self {
                Family::Renamed(r) if r.ttl_s => {
                    assert!(ms % 1000 == 0, "a TTL in whole seconds");
                    json!(ms / 1000)
                }
                _ => json!(ms),
            }),
            rec.fence.map(|v| json!(v)),
            rec.sku.map(|v| json!(v)),
            rec.quantity.map(|v| json!(v)),
            rec.stock.map(|v| json!(v)),
            rec.stock_after.map(|v| json!(v)),
            rec.order_id.map(|v| json!(v)),
        ];
        for (i, v) in vals.into_iter().enumerate() {
            if let Some(value) = v {
                out.push(Field {
                    path: n[i + 1].to_vec(),
                    value,
                });
            }
        }
        out
    }

    /// The human message this family logs for `kind`.
    pub fn phrase(self, kind: Kind) -> &'static str {
        match self {
            Family::Renamed(r) => r.phrases[kind.index()],
            _ => kind_phrase(kind, self == Family::Chinese),
        }
    }
}

/// A human message for `kind`, in English or Chinese.
pub fn kind_phrase(kind: Kind, chinese: bool) -> &'static str {
    use Kind::*;
    match (kind, chinese) {
        (Acquired, false) => "lock acquired",
        (AcquireFailed, false) => "lock acquire failed",
        (Renewed, false) => "lock renewed",
        (Released, false) => "lock released",
        (ReleaseFailed, false) => "lock release failed",
        (StockInitialized, false) => "stock initialized",
        (StockRead, false) => "stock read",
        (StockDeducted, false) => "stock deducted",
        (OrderCreated, false) => "order created",
        (Acquired, true) => "获取锁成功",
        (AcquireFailed, true) => "获取锁失败",
        (Renewed, true) => "锁续期成功",
        (Released, true) => "释放锁",
        (ReleaseFailed, true) => "释放锁失败",
        (StockInitialized, true) => "初始化库存",
        (StockRead, true) => "查询库存",
        (StockDeducted, true) => "扣减库存",
        (OrderCreated, true) => "创建订单",
    }
}

/// Fields as one JSON object, nesting multi-segment paths.
pub fn fields_object(fields: &[Field]) -> Map<String, Value> {
    let mut m = Map::new();
    for f in fields {
        insert_path(&mut m, &f.path, f.value.clone());
    }
    m
}

/// Inserts `value` at `path` inside `m`, making objects on the way.
pub fn insert_path(m: &mut Map<String, Value>, path: &[&str], value: Value) {
    if path.len() == 1 {
        m.insert(path[0].to_string(), value);
        return;
    }
    let inner = m
        .entry(path[0].to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(o) = inner {
        insert_path(o, &path[1..], value);
    }
}

/// Fields flattened to (dotted name, value) pairs.
pub fn flat_fields(fields: &[Field]) -> Vec<(String, Value)> {
    fields
        .iter()
        .map(|f| (f.flat_name(), f.value.clone()))
        .collect()
}

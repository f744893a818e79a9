//! The invariance generator's five incidents (`tests/invariance/model.rs`)
//! as tables, with any field names and event words.

use super::super::table::{Severity, Table};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum K {
    Acq,
    Ren,
    Rel,
    RelFail,
    Init,
    Read,
    Deduct,
    Order,
}

pub struct R {
    pub t: i64,
    pub host: &'static str,
    pub thread: &'static str,
    pub kind: K,
    pub key: Option<&'static str>,
    pub holder: Option<&'static str>,
    pub ttl: Option<i64>,
    pub fence: Option<i64>,
    pub sku: Option<&'static str>,
    pub qty: Option<i64>,
    pub stock: Option<i64>,
    pub after: Option<i64>,
    pub order: Option<&'static str>,
}

fn r(t: i64, host: &'static str, thread: &'static str, kind: K) -> R {
    R {
        t,
        host,
        thread,
        kind,
        key: None,
        holder: None,
        ttl: None,
        fence: None,
        sku: None,
        qty: None,
        stock: None,
        after: None,
        order: None,
    }
}
impl R {
    fn lock(mut self, k: &'static str, h: &'static str) -> R {
        self.key = Some(k);
        self.holder = Some(h);
        self
    }
    fn ttl(mut self, t: i64) -> R {
        self.ttl = Some(t);
        self
    }
    fn fence(mut self, f: i64) -> R {
        self.fence = Some(f);
        self
    }
    fn stock(mut self, s: &'static str, n: i64) -> R {
        self.sku = Some(s);
        self.stock = Some(n);
        self
    }
    fn sale(
        mut self,
        s: &'static str,
        q: i64,
        after: Option<i64>,
        order: Option<&'static str>,
    ) -> R {
        self.sku = Some(s);
        self.qty = Some(q);
        self.after = after;
        self.order = order;
        self
    }
}

pub fn oversell() -> Vec<R> {
    use K::*;
    let k = "lock:sku:1001";
    vec![
        r(0, "web-01", "main", Init).stock("sku-1001", 1),
        r(100, "web-01", "exec-1", Acq).lock(k, "tok-A").ttl(2000),
        r(150, "web-01", "exec-1", Read)
            .lock(k, "tok-A")
            .stock("sku-1001", 1),
        r(2300, "web-02", "exec-7", Acq).lock(k, "tok-B").ttl(2000),
        r(2350, "web-02", "exec-7", Read)
            .lock(k, "tok-B")
            .stock("sku-1001", 1),
        r(2400, "web-02", "exec-7", Deduct)
            .lock(k, "tok-B")
            .sale("sku-1001", 1, Some(0), None),
        r(2420, "web-02", "exec-7", Order)
            .lock(k, "tok-B")
            .sale("sku-1001", 1, None, Some("O-2")),
        r(2500, "web-02", "exec-7", Rel).lock(k, "tok-B"),
        r(3100, "web-01", "exec-1", Deduct)
            .lock(k, "tok-A")
            .sale("sku-1001", 1, Some(-1), None),
        r(3120, "web-01", "exec-1", Order)
            .lock(k, "tok-A")
            .sale("sku-1001", 1, None, Some("O-1")),
        r(3200, "web-01", "exec-1", RelFail).lock(k, "tok-A"),
    ]
}

pub fn renewals() -> Vec<R> {
    use K::*;
    let k = "lock:sku:2002";
    let (a, b) = (
        "8f14e45f-ceea-467a-9575-6f2b0c1d2e3f:61",
        "c9f0f895-fb98-4b91-a1c5-3d4e5f607182:77",
    );
    vec![
        r(0, "web-01", "main", Init).stock("sku-2002", 1),
        r(100, "web-01", "exec-2", Acq).lock(k, a).ttl(1000),
        r(433, "web-01", "watchdog-1", Ren).lock(k, a).ttl(1000),
        r(766, "web-01", "watchdog-1", Ren).lock(k, a).ttl(1000),
        r(2100, "web-02", "exec-3", Acq).lock(k, b).ttl(1000),
        r(2150, "web-02", "exec-3", Deduct)
            .lock(k, b)
            .sale("sku-2002", 1, Some(0), None),
        r(2170, "web-02", "exec-3", Order)
            .lock(k, b)
            .sale("sku-2002", 1, None, Some("O-21")),
        r(2300, "web-01", "watchdog-1", Ren).lock(k, a).ttl(1000),
        r(2350, "web-01", "exec-2", Deduct)
            .lock(k, a)
            .sale("sku-2002", 1, Some(-1), None),
        r(2370, "web-01", "exec-2", Order)
            .lock(k, a)
            .sale("sku-2002", 1, None, Some("O-22")),
        r(2500, "web-02", "exec-3", Rel).lock(k, b),
        r(2600, "web-01", "exec-2", RelFail).lock(k, a),
    ]
}

pub fn foreign() -> Vec<R> {
    use K::*;
    let k = "lock:order:77";
    let (a, b, c) = (
        "5f1d7a2e-9c3b-4e8a-b6d4-0a1b2c3d4e5f",
        "7e2b4c55-1f2e-4d3c-8b1a-9f8e7d6c5b4a",
        "0c1d2e3f-4a5b-4c6d-9e8f-a0b1c2d3e4f5",
    );
    vec![
        r(0, "web-01", "exec-4", Acq).lock(k, a).ttl(1000),
        r(1200, "web-02", "exec-5", Acq).lock(k, b).ttl(3000),
        r(1500, "web-01", "exec-4", Rel).lock(k, a),
        r(1600, "web-03", "exec-6", Acq).lock(k, c).ttl(3000),
        r(2000, "web-03", "exec-6", Rel).lock(k, c),
        r(2800, "web-02", "exec-5", RelFail).lock(k, b),
    ]
}

pub fn fencing() -> Vec<R> {
    use K::*;
    let k = "lock:sku:3003";
    vec![
        r(0, "web-01", "main", Init).stock("sku-3003", 10),
        r(100, "web-01", "exec-1", Acq)
            .lock(k, "tok-33")
            .ttl(1000)
            .fence(33),
        r(1500, "web-02", "exec-2", Acq)
            .lock(k, "tok-34")
            .ttl(1000)
            .fence(34),
        r(1550, "web-02", "exec-2", Deduct)
            .lock(k, "tok-34")
            .fence(34)
            .sale("sku-3003", 2, Some(8), None),
        r(1570, "web-02", "exec-2", Order)
            .lock(k, "tok-34")
            .fence(34)
            .sale("sku-3003", 2, None, Some("O-31")),
        r(1700, "web-02", "exec-2", Rel).lock(k, "tok-34"),
        r(2000, "web-01", "exec-1", Deduct)
            .lock(k, "tok-33")
            .fence(33)
            .sale("sku-3003", 1, Some(7), None),
        r(2020, "web-01", "exec-1", Order)
            .lock(k, "tok-33")
            .fence(33)
            .sale("sku-3003", 1, None, Some("O-32")),
        r(2100, "web-01", "exec-1", RelFail).lock(k, "tok-33"),
    ]
}

pub fn control() -> Vec<R> {
    use K::*;
    let k = "lock:sku:4004";
    vec![
        r(0, "web-01", "main", Init).stock("sku-4004", 5),
        r(100, "web-01", "exec-1", Acq).lock(k, "tok-X").ttl(3000),
        r(150, "web-01", "exec-1", Read)
            .lock(k, "tok-X")
            .stock("sku-4004", 5),
        r(200, "web-01", "exec-1", Deduct)
            .lock(k, "tok-X")
            .sale("sku-4004", 1, Some(4), None),
        r(220, "web-01", "exec-1", Order)
            .lock(k, "tok-X")
            .sale("sku-4004", 1, None, Some("O-41")),
        r(300, "web-01", "exec-1", Rel).lock(k, "tok-X"),
        r(500, "web-02", "exec-2", Acq).lock(k, "tok-Y").ttl(3000),
        r(560, "web-02", "exec-2", Deduct)
            .lock(k, "tok-Y")
            .sale("sku-4004", 1, Some(3), None),
        r(580, "web-02", "exec-2", Order)
            .lock(k, "tok-Y")
            .sale("sku-4004", 1, None, Some("O-42")),
        r(700, "web-02", "exec-2", Rel).lock(k, "tok-Y"),
    ]
}

/// Field names for (event, key, holder, ttl, fence, sku, qty, stock, after,
/// order), and event words per kind.
pub struct Spelling {
    pub names: [&'static str; 10],
    pub words: fn(K) -> &'static str,
    /// TTL written in seconds.
    pub ttl_seconds: bool,
}

pub fn coined(k: K) -> &'static str {
    match k {
        K::Acq => "florped the gate",
        K::Ren => "gate reflorped",
        K::Rel => "gate unflorped",
        K::RelFail => "could not unflorp the gate",
        K::Init => "shelf primed",
        K::Read => "shelf peeked",
        K::Deduct => "shelf nibbled",
        K::Order => "ticket minted",
    }
}

pub fn chinese(k: K) -> &'static str {
    match k {
        K::Acq => "抢到分布式锁",
        K::Ren => "续期成功",
        K::Rel => "归还锁",
        K::RelFail => "释放锁时发现锁已易主",
        K::Init => "库存就绪",
        K::Read => "查看余量",
        K::Deduct => "余量扣减",
        K::Order => "下单完成",
    }
}

pub const RANDOM: [&str; 10] = [
    "fx_q7", "c3", "zb9", "w_t", "pq", "m4x", "ud", "kk2", "r_a", "vv",
];
pub const PINYIN: [&str; 10] = [
    "shijian",
    "suojian",
    "chiyouzhe",
    "guoqi",
    "zhalan",
    "shangpin",
    "shuliang",
    "kucun",
    "shengyu",
    "dingdan",
];

/// A table of `recs` as a JSON logger would write them: the runtime's own
/// `time`, `level`, `hostname`, `thread` and the application's fields.
pub fn table(recs: &[R], sp: &Spelling) -> Table {
    table_with(recs, sp, |_| Vec::new())
}

/// [`table`], with the pairs `extra` gives each record first.
pub fn table_with(
    recs: &[R],
    sp: &Spelling,
    extra: impl Fn(&R) -> Vec<(&'static str, String)>,
) -> Table {
    let mut t = Table::default();
    for x in recs {
        let mut pairs: Vec<(&str, String)> = extra(x);
        pairs.extend([
            ("hostname", x.host.to_string()),
            ("thread", x.thread.to_string()),
        ]);
        pairs.push((sp.names[0], (sp.words)(x.kind).to_string()));
        let n = &sp.names;
        let mut put = |i: usize, v: Option<String>| {
            if let Some(v) = v {
                pairs.push((n[i], v));
            }
        };
        put(1, x.key.map(str::to_string));
        put(2, x.holder.map(str::to_string));
        put(
            3,
            x.ttl.map(|v| {
                if sp.ttl_seconds {
                    (v / 1000).max(1).to_string()
                } else {
                    v.to_string()
                }
            }),
        );
        put(4, x.fence.map(|v| v.to_string()));
        put(5, x.sku.map(str::to_string));
        put(6, x.qty.map(|v| v.to_string()));
        put(7, x.stock.map(|v| v.to_string()));
        put(8, x.after.map(|v| v.to_string()));
        put(9, x.order.map(str::to_string));
        let sev = if x.kind == K::RelFail {
            Severity::Warn
        } else {
            Severity::Normal
        };
        let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        t.push(1_796_080_015_000_000_000 + x.t * 1_000_000, sev, &refs);
    }
    t
}

pub fn all() -> Vec<(&'static str, Vec<R>)> {
    vec![
        ("oversell", oversell()),
        ("renewals", renewals()),
        ("foreign", foreign()),
        ("fencing", fencing()),
        ("control", control()),
    ]
}

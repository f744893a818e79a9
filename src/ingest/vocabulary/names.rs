//! The field-name vocabulary of the roles: synonym
//! tables for English field names in normal form, meaning-based rules for
//! Chinese headers, abbreviations, unit suffixes and lock namespaces; what
//! [`roles_of`] answers for a field's name. The detection that weighs
//! these against the values is `roles/fields.rs`.

use std::collections::HashMap;

use super::roles::{Role, Unit};

/// Field-name normal form: lowercase, without `_`, `-`, `@` and spaces.
pub(crate) fn normalize_key(k: &str) -> String {
    k.chars()
        .filter(|c| !matches!(c, '_' | '-' | '@' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

use Unit::{Ms, S};

/// Synonyms per role in normal form, best first.
fn synonyms(role: Role) -> &'static [(&'static str, Unit)] {
    match role {
        Role::Time => TIME_NAMES,
        Role::Key => KEY_NAMES,
        Role::Holder => HOLDER_NAMES,
        Role::Event => EVENT_NAMES,
        Role::Ttl => TTL_NAMES,
        Role::Host => HOST_NAMES,
        Role::Thread => THREAD_NAMES,
        Role::Product => PRODUCT_NAMES,
        Role::Quantity => QUANTITY_NAMES,
        Role::Stock => STOCK_NAMES,
        Role::StockBefore => STOCK_BEFORE_NAMES,
        Role::StockAfter => STOCK_AFTER_NAMES,
        Role::OrderId => ORDER_ID_NAMES,
        Role::UnitPrice => UNIT_PRICE_NAMES,
        Role::Fencing => FENCING_NAMES,
        Role::Elapsed => ELAPSED_NAMES,
        Role::Deleted => DELETED_NAMES,
        // A step's outcome has no names: a field is one by the protocol
        // (`roles/protocol/outcome.rs`) or by a mapping.
        Role::Outcome => &[],
        Role::Message => MESSAGE_NAMES,
    }
}

/// Names of the time role, best first.
const TIME_NAMES: &[(&str, Unit)] = &[
    ("ts", Ms),
    ("time", Ms),
    ("timestamp", Ms),
    ("tsms", Ms),
    ("created", Ms),
    ("datetime", Ms),
    ("date", Ms),
    ("eventtime", Ms),
    ("logtime", Ms),
    ("asctime", Ms),
    ("timems", Ms),
    ("timestampms", Ms),
    ("time.local", Ms),
    // Serilog CLEF (`@t`).
    ("t", Ms),
    // OTLP JSON log records (opentelemetry-proto `logs.proto` `time_unix_nano`,
    // `observed_time_unix_nano`, lowerCamelCase in JSON).
    ("timeunixnano", Ms),
    ("observedtimeunixnano", Ms),
    // Log4j2 `JsonLayout`: `instant` (2.11 on, an object read as epoch
    // seconds with nine decimals) and `timeMillis` (before 2.11).
    ("instant", Ms),
    ("timemillis", Ms),
    // journald (`journalctl -o json`, systemd.journal-fields(7)): when the
    // entry was made (`_SOURCE_REALTIME_TIMESTAMP`) and received
    // (`__REALTIME_TIMESTAMP`), µs since the epoch as decimal strings.
    ("sourcerealtimetimestamp", Ms),
    ("realtimetimestamp", Ms),
];

/// Names of the key role, best first.
const KEY_NAMES: &[(&str, Unit)] = &[
    ("key", Ms),
    ("lockkey", Ms),
    ("resource", Ms),
    ("lock", Ms),
    ("lockname", Ms),
    ("lock.key", Ms),
    ("lock.name", Ms),
    ("lockid", Ms),
    ("mutex", Ms),
    ("mutexname", Ms),
    ("resourcekey", Ms),
];

/// Names of the holder role, best first.
const HOLDER_NAMES: &[(&str, Unit)] = &[
    ("owner", Ms),
    ("holder", Ms),
    ("token", Ms),
    ("locktoken", Ms),
    ("clientid", Ms),
    ("lockowner", Ms),
    ("lockholder", Ms),
    ("ownerid", Ms),
    ("holderid", Ms),
    ("client", Ms),
    // RedLock.net / DistributedLock: `Resource` is the key, `LockId`
    // the holder's unique value (the key role is resolved first, so
    // a file whose only lock field is `lockId` keeps it as the key).
    ("lockid", Ms),
    ("leaseid", Ms),
    // `lock.id` (a dotted lock namespace), redis-lock's and
    // node-redlock's `identifier`, sidekiq-unique-jobs' `jid`.
    ("lock.id", Ms),
    ("identifier", Ms),
    ("jid", Ms),
];

/// Names of the event role, best first.
const EVENT_NAMES: &[(&str, Unit)] = &[
    ("event", Ms),
    ("event.action", Ms),
    ("action", Ms),
    ("eventtype", Ms),
    ("eventname", Ms),
    ("type", Ms),
    ("op", Ms),
    ("operation", Ms),
    // Microsoft.Extensions.Logging's `EventId.Name` (Serilog).
    ("eventid.name", Ms),
];

/// Names of the TTL role, best first; the unit comes from the suffix.
const TTL_NAMES: &[(&str, Unit)] = &[
    ("ttlms", Ms),
    ("leasems", Ms),
    ("expirems", Ms),
    ("expiryms", Ms),
    ("leasetimems", Ms),
    ("ttl", Ms),
    ("leasetime", Ms),
    ("px", Ms),
    ("ttls", S),
    ("ttlsec", S),
    ("ttlseconds", S),
    ("leases", S),
    ("leasesec", S),
    ("expires", S),
    ("expiresec", S),
    ("ex", S),
    ("seconds", S),
    // The families lock libraries use, below the
    // names above so that existing files keep their choice; the unit
    // comes from the suffix, unit-less names are ms.
    ("ttlmillis", Ms),
    ("ttlmilliseconds", Ms),
    ("lockttl", Ms),
    ("lockttlms", Ms),
    ("leasemillis", Ms),
    ("leasetimemillis", Ms),
    ("leaseduration", Ms),
    ("leasedurationms", Ms),
    ("lockleasetime", Ms),
    ("lockleasems", Ms),
    ("expire", Ms),
    ("expiry", Ms),
    ("expiration", Ms),
    ("expirationms", Ms),
    ("expirytime", Ms),
    ("expiretime", Ms),
    ("expiretimems", Ms),
    ("expireafter", Ms),
    ("expireafterms", Ms),
    ("expiryinms", Ms),
    ("locktimeout", Ms),
    ("locktimeoutms", Ms),
    ("timeoutms", Ms),
    ("timeout", Ms),
    ("durationms", Ms),
    ("duration", Ms),
    ("lease", Ms),
    ("ttlsecs", S),
    ("leaseseconds", S),
    ("leasesecs", S),
    ("leasetimeseconds", S),
    ("leasetimesec", S),
    ("expireseconds", S),
    ("expiresecs", S),
    ("expiryseconds", S),
    ("expirysec", S),
    ("expirationseconds", S),
    ("expireafterseconds", S),
    ("expireafters", S),
    ("locktimeoutseconds", S),
    ("timeoutseconds", S),
    ("timeoutsec", S),
    ("durationseconds", S),
    ("durationsec", S),
    // `expires_after` (a duration after the acquire).
    ("expiresafter", Ms),
    ("expiresafterms", Ms),
];

/// Names of the host role, best first.
const HOST_NAMES: &[(&str, Unit)] = &[
    ("host", Ms),
    ("hostname", Ms),
    ("host.name", Ms),
    ("host.hostname", Ms),
    ("tag:hostname", Ms),
    ("pod", Ms),
    ("podname", Ms),
    ("kubernetes.pod.name", Ms),
    ("server", Ms),
    ("node", Ms),
    ("instance", Ms),
    // Serilog's `Enrich.WithMachineName()` (.NET's `Environment.MachineName`).
    ("machinename", Ms),
];

/// Names of the thread role, best first.
const THREAD_NAMES: &[(&str, Unit)] = &[
    ("thread", Ms),
    ("threadname", Ms),
    ("thread.name", Ms),
    ("process.thread.name", Ms),
    ("tid", Ms),
];

/// Names of the product role, best first.
const PRODUCT_NAMES: &[(&str, Unit)] = &[
    ("sku", Ms),
    ("product", Ms),
    ("productid", Ms),
    ("itemid", Ms),
    ("skuid", Ms),
    ("goodsid", Ms),
    ("item", Ms),
];

/// Names of the quantity role, best first.
const QUANTITY_NAMES: &[(&str, Unit)] = &[("quantity", Ms), ("qty", Ms), ("count", Ms)];

/// Names of the stock role, best first.
const STOCK_NAMES: &[(&str, Unit)] = &[
    ("stock", Ms),
    ("stocklevel", Ms),
    ("inventory", Ms),
    ("stockleft", Ms),
];

/// Names of the stock before role, best first.
const STOCK_BEFORE_NAMES: &[(&str, Unit)] = &[("stockbefore", Ms)];

/// Names of the stock after role, best first.
const STOCK_AFTER_NAMES: &[(&str, Unit)] = &[("stockafter", Ms)];

/// Names of the order id role, best first.
const ORDER_ID_NAMES: &[(&str, Unit)] = &[("orderid", Ms), ("orderno", Ms), ("ordernumber", Ms)];

/// Names of the unit price role, best first.
const UNIT_PRICE_NAMES: &[(&str, Unit)] = &[("unitprice", Ms), ("price", Ms)];

/// Names of the fencing role, best first.
const FENCING_NAMES: &[(&str, Unit)] = &[("fencingtoken", Ms), ("fence", Ms), ("fencetoken", Ms)];

/// Names of the elapsed role, best first.
const ELAPSED_NAMES: &[(&str, Unit)] = &[("elapsedms", Ms)];

/// Names of the deleted role, best first.
const DELETED_NAMES: &[(&str, Unit)] = &[("deleted", Ms), ("delresult", Ms), ("result", Ms)];

/// Names of the message role, best first.
/// Serilog CLEF: `@mt` (message template), `@m` (rendered message).
const MESSAGE_NAMES: &[(&str, Unit)] = &[("msg", Ms), ("message", Ms), ("mt", Ms), ("m", Ms)];

/// TTL names that may well mean something else (a request's `duration`, a
/// client `timeout`, an `expire` time), in normal form: choosing one is noted.
const GUESSED_TTL: &[&str] = &[
    "duration",
    "durationms",
    "durationsec",
    "durationseconds",
    "timeout",
    "timeoutms",
    "timeoutsec",
    "timeoutseconds",
    "locktimeout",
    "locktimeoutms",
    "locktimeoutseconds",
    "lease",
    "expire",
    "expiry",
    "expiration",
];

/// True when `field` (its last dotted segment) is one of [`GUESSED_TTL`].
pub(crate) fn guessed_ttl(field: &str) -> bool {
    let n = normalize_key(field);
    let last = n.rsplit('.').next().unwrap_or(&n);
    GUESSED_TTL.contains(&last)
}

/// Meaning-based rules for headers with Chinese (or other) words in them.
/// Order matters: the more specific words come first.
fn contains_rule(raw: &str) -> Option<(Role, Unit)> {
    let has = |ws: &[&str]| ws.iter().any(|w| raw.contains(w));
    let upper = raw.to_uppercase();
    let unit = if has(&["毫秒"]) || upper.contains("MS") {
        Ms
    } else if has(&["秒"]) || upper.ends_with('S') || upper.contains("(S)") {
        S
    } else {
        Ms
    };
    if has(&["扣减前库存"]) {
        Some((Role::StockBefore, Ms))
    } else if has(&["扣减后库存", "剩余库存", "库存余量"]) {
        // Stock after the deduction: what remains.
        Some((Role::StockAfter, Ms))
    } else if has(&["栅栏", "围栏", "防护令牌", "隔离令牌"]) {
        // Kleppmann's fencing token, as Chinese write-ups name it.
        Some((Role::Fencing, Ms))
    } else if has(&["过期", "租约"]) || upper.contains("TTL") {
        Some((Role::Ttl, unit))
    } else if has(&["耗时"]) {
        Some((Role::Elapsed, Ms))
    } else if has(&["时间"]) {
        Some((Role::Time, Ms))
    } else if has(&["持有者", "持有人"]) {
        Some((Role::Holder, Ms))
    } else if has(&["锁键", "锁名"]) {
        Some((Role::Key, Ms))
    } else if has(&["事件", "动作", "操作"]) {
        Some((Role::Event, Ms))
    } else if has(&["数量"]) {
        Some((Role::Quantity, Ms))
    } else if has(&["库存"]) {
        Some((Role::Stock, Ms))
    } else if has(&["订单"]) {
        Some((Role::OrderId, Ms))
    } else if has(&["单价"]) {
        Some((Role::UnitPrice, Ms))
    } else if has(&["商品"]) || upper == "SKU" {
        Some((Role::Product, Ms))
    } else if has(&["主机"]) {
        Some((Role::Host, Ms))
    } else if has(&["线程"]) {
        Some((Role::Thread, Ms))
    } else if has(&["消息"]) {
        Some((Role::Message, Ms))
    } else if has(&["锁"]) {
        Some((Role::Key, Ms))
    } else {
        None
    }
}

/// True when the segment before a dotted name's last one names a lock
/// (`lock.ttl_ms`, `redis.lock.owner`, `mutex.holder`, `redlock.resource`).
fn lock_namespace(full: &str) -> bool {
    let mut segs = full.rsplit('.');
    segs.next();
    segs.next().is_some_and(|ns| {
        matches!(
            ns,
            "lock" | "mutex" | "lease" | "redlock" | "distlock" | "redislock"
        )
    })
}

/// The roles a field name can play, as (role, rank, unit); lower rank is
/// better. Exact synonyms of the whole dotted path rank first, then synonyms
/// of its last segment, then the meaning-based rules for non-ASCII headers.
///
/// Memoised per thread ([`ROLE_MEMO_CAP`] names, then started afresh):
/// detection asks for every field of every head record, and the answer
/// depends on the name only (measured in the `payload` fuzz target, where
/// a small input's detection spent 33 % of its instructions here).
pub(crate) fn roles_of(field: &str) -> Vec<(Role, u32, Unit)> {
    thread_local! {
        static MEMO: std::cell::RefCell<HashMap<Box<str>, Vec<RoleRank>>> =
            std::cell::RefCell::new(HashMap::new());
    }
    if let Some(hit) = MEMO.with(|m| m.borrow().get(field).cloned()) {
        return hit;
    }
    let out = roles_of_uncached(field);
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= ROLE_MEMO_CAP {
            m.clear();
        }
        m.insert(field.into(), out.clone());
    });
    out
}

/// A role a name can play, its rank (lower is better) and unit.
type RoleRank = (Role, u32, Unit);

/// Most field names [`roles_of`] remembers per thread; a file of random
/// names (a hostile one) cannot grow it past this.
const ROLE_MEMO_CAP: usize = 4096;

fn roles_of_uncached(field: &str) -> Vec<(Role, u32, Unit)> {
    let mut out = Vec::new();
    let full = normalize_key(field);
    let last = full.rsplit('.').next().unwrap_or(&full).to_string();
    for role in Role::ALL {
        let syn = synonyms(role);
        if let Some((i, (_, u))) = syn.iter().enumerate().find(|(_, (s, _))| *s == full) {
            out.push((role, i as u32, *u));
        } else if last != full
            && let Some((i, (_, u))) = syn.iter().enumerate().find(|(_, (s, _))| *s == last)
        {
            // Under a lock namespace (`lock.ttl_ms`, `mutex.owner`) the name
            // is as specific as a whole-path synonym and beats a generic one
            // (`duration_ms`); elsewhere a last segment ranks after them.
            let base = if lock_namespace(&full) { 0 } else { 100 };
            out.push((role, base + i as u32, *u));
        }
    }
    // A dotted path whose last two segments make a name together
    // (`stock.after`, `order.id`, `stock.level`): as specific as a whole
    // name, after it.
    if let Some((head, tail)) = full.rsplit_once('.') {
        let joined = format!("{}{tail}", head.rsplit('.').next().unwrap_or(head));
        for role in Role::ALL {
            if out.iter().any(|r| r.0 == role) {
                continue;
            }
            if let Some((i, (_, u))) = synonyms(role)
                .iter()
                .enumerate()
                .find(|(_, (s, _))| *s == joined)
            {
                out.push((role, 50 + i as u32, *u));
            }
        }
    }
    if out.is_empty() {
        abbreviated_roles(&last, &mut out);
    }
    if !out.iter().any(|r| r.0 == Role::Time)
        && let Some(i) = time_with_unit(&last)
    {
        // `ts_ns`, `time_ms`, `timestamp_us`, `event_time_unix`: a time name
        // with a unit or epoch suffix (the value's magnitude gives the
        // unit, `time::parse_time`). After the plain names, before a last
        // segment's.
        out.push((Role::Time, 50 + i, Ms));
    }
    if out.is_empty()
        && !field.is_ascii()
        && let Some((role, unit)) = contains_rule(field)
    {
        out.push((role, 200, unit));
    }
    out
}

/// Roles an abbreviated name can stand for (`lk`,
/// `tok`, `ev`, `stk`, `oid`): the lock and business roles, not the
/// envelope's (time, host, thread, message), whose short names are common.
const ABBREVIABLE: [Role; 11] = [
    Role::Key,
    Role::Holder,
    Role::Event,
    Role::Ttl,
    Role::Fencing,
    Role::Product,
    Role::Quantity,
    Role::Stock,
    Role::StockBefore,
    Role::StockAfter,
    Role::OrderId,
];

/// Rank of a role an abbreviation gives: after every whole name.
const ABBREV_RANK: u32 = 250;

/// A short name (2 to 8 letters, normal form, `_` taken out) that is an
/// abbreviation of a synonym: its letters in order within the synonym, the
/// same first letter, and at least 40 % of the synonym's letters
/// (`lk` of `lock`, `tok` of `token`, `oid` of `orderid`, `stkafter` of
/// `stockafter`). The shortest synonym it abbreviates gives each role.
fn abbreviated_roles(name: &str, out: &mut Vec<(Role, u32, Unit)>) {
    if !(2..=8).contains(&name.len()) || !name.bytes().all(|b| b.is_ascii_lowercase()) {
        return;
    }
    for role in ABBREVIABLE {
        let best = synonyms(role)
            .iter()
            .filter(|(syn, _)| !syn.contains('.') && abbreviates(name, syn))
            .min_by_key(|(syn, _)| syn.len());
        if let Some((_, unit)) = best {
            out.push((role, ABBREV_RANK, *unit));
        }
    }
}

/// Whether `short` abbreviates `long` (see [`abbreviated_roles`]).
fn abbreviates(short: &str, long: &str) -> bool {
    if short.len() >= long.len() || short.len() * 5 < long.len() * 2 {
        return false;
    }
    if short.as_bytes().first() != long.as_bytes().first() {
        return false;
    }
    let mut rest = long.bytes();
    short.bytes().all(|c| rest.any(|l| l == c))
}

/// Suffixes that say a time field's unit or epoch, in normal form.
const TIME_UNIT_SUFFIXES: [&str; 14] = [
    "unixnano",
    "unixnanos",
    "unixms",
    "unix",
    "epochms",
    "epochns",
    "epoch",
    "nanos",
    "micros",
    "millis",
    "ns",
    "us",
    "ms",
    "sec",
];

/// The rank of the time synonym a normalised name is, once a unit suffix
/// ([`TIME_UNIT_SUFFIXES`]) is taken off.
fn time_with_unit(name: &str) -> Option<u32> {
    TIME_UNIT_SUFFIXES.iter().find_map(|suffix| {
        let stem = name.strip_suffix(suffix).filter(|s| !s.is_empty())?;
        TIME_NAMES
            .iter()
            .position(|(s, _)| *s == stem)
            .map(|i| i as u32)
    })
}

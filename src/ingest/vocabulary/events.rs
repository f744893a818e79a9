//! The event-name vocabulary: a line's event word,
//! English or Chinese, in any case and separator style, onto an
//! [`EventKind`]: the lists first, then the families of stems and affixes
//! (acquire, renew, release, fail, lost, expired; stock and order words),
//! never an attempt or wait word.

use std::collections::BTreeMap;

use crate::model::EventKind;

/// A team's own event names, in [`normalize_event`]'s normal form, each
/// with the kind it names (a mapping file's `[events]`).
pub(crate) type EventNames = BTreeMap<String, EventKind>;

/// Event-name normal form: lowercase, runs of `-`, `.`, space, `/`, `:`
/// and `_` become one `_`, trimmed; a leading `+` is dropped.
pub(crate) fn normalize_event(raw: &str, out: &mut String) {
    out.clear();
    let mut pending_sep = false;
    for c in raw.trim().trim_start_matches('+').chars() {
        if matches!(c, '-' | '.' | ' ' | '_' | '/' | ':' | '\t') {
            pending_sep = !out.is_empty();
        } else {
            if pending_sep {
                out.push('_');
                pending_sep = false;
            }
            out.extend(c.to_lowercase());
        }
    }
}

/// [`normalize_event`] of [`split_camel`] of `raw` (its camelCase words
/// apart: `tryLock` -> `try_lock`), in one pass into `out`, without the
/// split's allocation: a message's head is read so on every message
/// without a phrase.
pub(crate) fn normalize_camel(raw: &str, out: &mut String) {
    out.clear();
    let mut pending_sep = false;
    let mut prev_lower = false;
    for c in raw.trim().trim_start_matches('+').chars() {
        if matches!(c, '-' | '.' | ' ' | '_' | '/' | ':' | '\t') {
            pending_sep = !out.is_empty();
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower {
            pending_sep = true;
        }
        if pending_sep {
            out.push('_');
            pending_sep = false;
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
}

/// Built-in English vocabulary, on normalised names.
fn english_kind(n: &str) -> Option<EventKind> {
    use EventKind::*;
    Some(match n {
        "acquired" | "lock_acquired" | "acquire_ok" | "acquire_success" | "acquire_succeeded"
        | "locked" | "lock_ok" | "lock_success" | "lock_obtained" | "obtained" | "got_lock"
        | "lock_granted" | "granted" | "acquire_lock_ok" | "lock_acquire_ok" => Acquired,
        // Tair / TairString: `EXSET key value NX PX ms` took the lock.
        "exset" | "exset_nx" | "exset_ok" | "exset_nx_ok" | "exset_success" => Acquired,
        "exset_failed" | "exset_nx_failed" | "exset_fail" | "exset_nil" => AcquireFailed,
        // `CAD key value` / `EXCAD`: delete when the value matches (a release).
        "cad" | "excad" | "cad_ok" | "excad_ok" | "cad_success" => Released,
        "cad_failed" | "excad_failed" | "cad_fail" | "cad_mismatch" | "excad_mismatch" => {
            ReleaseFailed
        }
        // A write refused by its version (`EXCAS`, `CAS`, `EXSET ... VER n`):
        // fencing that worked.
        "excas_rejected"
        | "excas_failed"
        | "cas_rejected"
        | "cas_failed"
        | "excas_version_mismatch"
        | "exset_ver_rejected"
        | "exset_version_mismatch"
        | "version_mismatch"
        | "version_rejected" => WriteRejected,
        "acquire_failed"
        | "lock_busy"
        | "acquire_timeout"
        | "acquire_fail"
        | "acquire_error"
        | "lock_failed"
        | "lock_timeout"
        | "lock_not_acquired"
        | "not_acquired"
        | "busy"
        | "could_not_obtain_lock"
        | "lock_contended"
        | "lock_acquire_failed" => AcquireFailed,
        "renewed" | "renew" | "extended" | "extend" | "lock_extended" | "lock_renewed"
        | "watchdog_renewed" | "watchdog_renew" | "watchdog_extended" | "renew_ok"
        | "extend_ok" | "lease_renewed" | "lease_extended" | "refreshed" | "refresh"
        | "lock_refreshed" | "refresh_ok" | "lease_refreshed" | "prolonged" | "prolong"
        | "lock_prolonged" => Renewed,
        "released" | "unlocked" | "lock_released" | "release_ok" | "unlock_ok" | "release"
        | "unlock" | "release_success" | "lock_release_ok" => Released,
        "release_failed"
        | "unlock_failed"
        | "release_error"
        | "unlock_error"
        | "release_fail"
        | "lock_not_owned"
        | "not_owner"
        | "lock_release_failed" => ReleaseFailed,
        "lock_lost" | "lost_lock" | "lease_lost" | "lock_lost_detected" => LockLost,
        "stock_initialized"
        | "stock_initialised"
        | "stock_init"
        | "stock_set"
        | "inventory_initialized" => StockInitialized,
        "stock_read" | "stock_checked" | "stock_check" | "stock_get" | "stock_query"
        | "stock_queried" | "inventory_read" | "inventory_checked" => StockRead,
        "stock_deducted" | "stock_decremented" | "deducted" | "stock_decreased" | "decremented"
        | "stock_reduced" | "stock_deduct" | "inventory_deducted" => StockDeducted,
        "order_created" | "order_placed" | "order_create" | "order_saved" | "order_submitted" => {
            OrderCreated
        }
        "write_rejected" | "fencing_rejected" | "rejected_write" | "stale_token_rejected" => {
            WriteRejected
        }
        "failover" | "master_failover" | "failover_completed" | "failover_end"
        | "switch_master" | "sentinel_failover" => Failover,
        _ => return None,
    })
}

/// Chinese vocabulary, for an event field's value and a message alike
/// (`text::message_event`): a sentence about the lock (`锁`) by the verb
/// nearest the lock ([`chinese_lock_kind`]), renewals by `续期`/`续约`,
/// stock and orders by their phrases.
pub(crate) fn chinese_kind(raw: &str) -> Option<EventKind> {
    use EventKind::*;
    let has = |ws: &[&str]| ws.iter().any(|w| raw.contains(w));
    if let Some(k) = chinese_lock_kind(raw) {
        return Some(k);
    }
    Some(if has(&["续期", "续约"]) {
        Renewed
    } else if has(&["库存初始化", "初始化库存"]) {
        StockInitialized
    } else if has(&["扣减库存", "库存扣减", "扣库存"]) {
        StockDeducted
    } else if has(&["读取库存", "查询库存", "库存查询"]) {
        StockRead
    } else if has(&["创建订单", "下单成功", "订单创建"]) {
        OrderCreated
    } else {
        return None;
    })
}

/// Verbs of a Chinese lock sentence and the kind each starts from.
const ZH_LOCK_VERBS: &[(&str, EventKind)] = &[
    ("获取", EventKind::Acquired),
    ("获得", EventKind::Acquired),
    ("取得", EventKind::Acquired),
    ("拿到", EventKind::Acquired),
    ("抢到", EventKind::Acquired),
    ("加锁", EventKind::Acquired),
    ("上锁", EventKind::Acquired),
    ("释放", EventKind::Released),
    ("解锁", EventKind::Released),
    ("续期", EventKind::Renewed),
    ("续约", EventKind::Renewed),
    ("丢失", EventKind::LockLost),
];

/// A Chinese sentence about a lock: the verb nearest before `锁` (else the
/// first after it: `锁已释放`) says what happened, so `获取分布式锁成功`,
/// `成功获取分布式锁`, `上锁成功`, `释放分布式锁` read as the phrases
/// `获取锁成功` and `释放锁` do, and
/// `获取锁失败，释放资源` stays a failed acquire. A failure word (`失败`,
/// `超时`, `未`...) makes an acquire or release a failed one; an acquire
/// needs a word of success (`成功`, `已`, or a verb that is one: `拿到`)
/// and an attempt (`尝试获取锁`) is none. `锁已过期` is a lost lock.
fn chinese_lock_kind(raw: &str) -> Option<EventKind> {
    use EventKind::*;
    let lock = raw.find('锁')?;
    let has = |ws: &[&str]| ws.iter().any(|w| raw.contains(w));
    if has(&["锁已过期", "锁过期"]) {
        return Some(LockLost);
    }
    let found = ZH_LOCK_VERBS.iter().filter_map(|&(w, k)| {
        raw.match_indices(w)
            .map(move |(at, _)| (at, at + w.len(), w, k))
            .next()
    });
    let (before, after): (Vec<_>, Vec<_>) = found.partition(|v| v.0 <= lock);
    let (_, _, verb, kind) = before
        .into_iter()
        .max_by_key(|v| (v.1, v.0))
        .or_else(|| after.into_iter().min_by_key(|v| v.0))?;
    let failed = has(&[
        "失败",
        "超时",
        "未能",
        "未获取",
        "没有获取",
        "没拿到",
        "未拿到",
        "异常",
    ]);
    let done = has(&["成功", "已"]) || matches!(verb, "拿到" | "抢到" | "获得" | "取得");
    let attempt = has(&["尝试", "等待", "开始获取", "准备", "正在"]) && !has(&["成功", "失败"]);
    match kind {
        Acquired if failed => Some(AcquireFailed),
        Released if failed => Some(ReleaseFailed),
        Acquired if attempt || !done => None,
        Renewed if failed => None,
        k => Some(k),
    }
}

/// Maps an event name onto a kind: the team's own `names` first (a mapping
/// file's `[events]`), then the built-in English names (case-insensitive,
/// `-`/`.`/space/`_` alike), then Chinese names by containment. `buf` is
/// scratch space.
pub(crate) fn event_kind(
    raw: &str,
    names: Option<&EventNames>,
    buf: &mut String,
) -> Option<EventKind> {
    normalize_event(raw, buf);
    if let Some(k) = names.and_then(|n| n.get(buf.as_str())) {
        return Some(*k);
    }
    let kind = built_in_kind(raw, names, buf)?;
    super::failure::negated(kind, raw)
}

/// [`event_kind`] by the built-in words only: English names, camelCase,
/// Chinese names, then the families of an identifier's words.
fn built_in_kind(raw: &str, names: Option<&EventNames>, buf: &mut String) -> Option<EventKind> {
    english_kind(buf)
        .or_else(|| camel_kind(raw, names, buf))
        .or_else(|| {
            if raw.is_ascii() {
                None
            } else {
                chinese_kind(raw)
            }
        })
        .or_else(|| {
            // An identifier, not a sentence: its words by family.
            if raw.trim().contains(char::is_whitespace) {
                return None;
            }
            // Words of a camelCase name apart (`AcquireAttempt`).
            normalize_camel(raw, buf);
            family_words(buf)
        })
}

/// Words that make a name something other than the event it names: an
/// attempt, a wait or a start is not the acquire itself
/// (`acquire_attempt`, `acquire_start`, `waiting_for_lock`).
pub(crate) const NOT_YET: [&str; 18] = [
    "attempt",
    "attempting",
    "attempted",
    "try",
    "trying",
    "tried",
    "retry",
    "retrying",
    "start",
    "started",
    "begin",
    "wait",
    "waiting",
    "waited",
    "request",
    "requested",
    "pending",
    "about",
];

/// Event names by family, after the lists: the words of
/// a normalised name (`mutex_acquired`, `lock_rel_fail`, `stk_deduct`,
/// `seats_reserved`), at most four, matched by stem: acquire (`acq...`,
/// `locked`, `obtain...`, `grant...`), renew (`renew...`, `extend...`,
/// `refresh...`, `prolong...`, `heartbeat...`, `keepalive...`, `touch...`),
/// release (`rel`, `releas...`, `unlock...`, `freed`), with a failure word
/// (`fail...`, `error`, `timeout`, `busy`, `denied`, `rejected`) the failed
/// kind; `lost`/`expired` the lost lock; stock words (`stock`, `stk`,
/// `inventory`, `inv`, `seats`, `quota`, `balance`) with init, read or
/// deduct words; `order` alone or with `created`/`placed`/`booked`. A name
/// with a word of [`NOT_YET`] names none.
pub(crate) fn family_words(n: &str) -> Option<EventKind> {
    use EventKind::*;
    // At most four words are read: a fifth makes it no name (no allocation
    // for the sentences a message's head reading passes here).
    let toks: smallvec::SmallVec<[&str; 5]> =
        n.split('_').filter(|t| !t.is_empty()).take(5).collect();
    if toks.is_empty() || toks.len() > 4 || toks.iter().any(|t| NOT_YET.contains(t)) {
        return None;
    }
    let any = |f: fn(&str) -> bool| toks.iter().any(|t| f(t));
    let fail = any(|t| {
        t.starts_with("fail")
            || matches!(
                t,
                "error" | "err" | "timeout" | "busy" | "denied" | "rejected" | "nok"
            )
    });
    // Generic words (`heartbeat`, `got`, `expired`) name a lock event only
    // beside a lock word: a service's own `heartbeat` is not a renewal.
    let lockish = any(lock_word);
    let acquire = any(|t| t.starts_with("acq") || t == "locked")
        || (lockish
            && any(|t| {
                t.starts_with("obtain") || t.starts_with("grant") || matches!(t, "got" | "taken")
            }));
    let renew = any(|t| {
        ["renew", "extend", "refresh", "prolong"]
            .iter()
            .any(|s| t.starts_with(s))
    }) || (lockish
        && any(|t| {
            ["heartbeat", "keepalive", "touch"]
                .iter()
                .any(|s| t.starts_with(s))
        }));
    // A lock deleted (`del lock`, `lock_deleted`) is released.
    let release = any(|t| t == "rel" || t.starts_with("releas") || t.starts_with("unlock"))
        || (lockish && any(|t| matches!(t, "freed" | "del" | "delete" | "deleted")));
    let lost = lockish && any(|t| matches!(t, "lost" | "expired" | "lapsed" | "stolen"));
    let stock = any(|t| {
        matches!(
            t,
            "stock" | "stk" | "inventory" | "inv" | "seats" | "seat" | "quota" | "balance"
        )
    });
    if stock {
        return stock_family(&toks);
    }
    if any(|t| matches!(t, "order" | "orders" | "booking")) {
        let made = toks.len() == 1
            || any(|t| matches!(t, "created" | "create" | "placed" | "booked" | "new"));
        return (made && !fail).then_some(OrderCreated);
    }
    match (acquire, renew, release) {
        (true, false, false) if fail => Some(AcquireFailed),
        (true, false, false) => Some(Acquired),
        (false, true, false) if !fail => Some(Renewed),
        (false, false, true) if fail => Some(ReleaseFailed),
        (false, false, true) => Some(Released),
        (false, false, false) if lost && !fail => Some(LockLost),
        _ => None,
    }
}

/// True for a word that names a lock: `lock`, `mutex`, `lease`, `redlock`,
/// `watchdog`, `semaphore`, `dlm` and short forms.
pub(crate) fn lock_word(t: &str) -> bool {
    matches!(
        t,
        "lock" | "lck" | "lk" | "lease" | "mutex" | "redlock" | "watchdog" | "semaphore" | "dlm"
    )
}

/// A stock name's kind by its other words: init, deduct or read.
fn stock_family(toks: &[&str]) -> Option<EventKind> {
    let starts = |stems: &[&str]| toks.iter().any(|t| stems.iter().any(|s| t.starts_with(s)));
    if starts(&["init", "seeded"]) || toks.contains(&"set") {
        Some(EventKind::StockInitialized)
    } else if starts(&[
        "deduct",
        "decrement",
        "reserv",
        "reduc",
        "sold",
        "sell",
        "dec",
        "minus",
    ]) {
        Some(EventKind::StockDeducted)
    } else if starts(&["read", "check", "get", "quer", "load", "avail"]) {
        Some(EventKind::StockRead)
    } else {
        None
    }
}

/// PascalCase / camelCase names (`LockAcquired`, `EventId.Name` in .NET
/// logs) split at each lower-to-upper step and matched again.
fn camel_kind(raw: &str, names: Option<&EventNames>, buf: &mut String) -> Option<EventKind> {
    let split = split_camel(raw);
    if split.len() == raw.len() {
        return None;
    }
    normalize_event(&split, buf);
    names
        .and_then(|n| n.get(buf.as_str()).copied())
        .or_else(|| english_kind(buf))
}

/// `raw` with `_` between a lower-case letter or digit and the upper-case
/// letter after it (`LockAcquired` -> `Lock_Acquired`).
fn split_camel(raw: &str) -> String {
    let mut split = String::with_capacity(raw.len() + 4);
    let mut prev_lower = false;
    for c in raw.chars() {
        if c.is_ascii_uppercase() && prev_lower {
            split.push('_');
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        split.push(c);
    }
    split
}

#[cfg(test)]
mod tests {
    use super::chinese_kind;
    use crate::model::EventKind::*;

    #[test]
    fn normalize_camel_is_normalize_event_of_split_camel() {
        let (mut one, mut two) = (String::new(), String::new());
        for raw in [
            "tryLock",
            " +LockAcquired ",
            "lock.unlock()",
            "acquire_attempt",
            "HTTPLock",
            "x2Y",
            "Lock--Released",
            "获取Lock",
            "ÉtatLock",
            "a_B",
            "",
            "+",
            "__",
        ] {
            super::normalize_camel(raw, &mut one);
            super::normalize_event(&super::split_camel(raw.trim()), &mut two);
            assert_eq!(one, two, "{raw:?}");
        }
    }

    #[test]
    fn chinese_lock_sentences_read_by_the_verb_nearest_the_lock() {
        for (s, want) in [
            // The phrases of before.
            ("获取锁成功", Some(Acquired)),
            ("加锁成功", Some(Acquired)),
            ("获取锁失败", Some(AcquireFailed)),
            ("释放锁失败", Some(ReleaseFailed)),
            ("释放锁", Some(Released)),
            ("解锁", Some(Released)),
            ("锁丢失", Some(LockLost)),
            ("锁已过期", Some(LockLost)),
            ("看门狗续期成功", Some(Renewed)),
            // Words between verb and lock, the success before the verb,
            // another verb for locking.
            ("获取分布式锁成功", Some(Acquired)),
            ("成功获取分布式锁", Some(Acquired)),
            ("上锁成功", Some(Acquired)),
            ("释放分布式锁", Some(Released)),
            ("拿到锁了", Some(Acquired)),
            ("未获取到锁", Some(AcquireFailed)),
            ("获取锁超时", Some(AcquireFailed)),
            ("锁已释放", Some(Released)),
            // The verb nearest the lock decides, not the first.
            ("获取锁失败，释放资源", Some(AcquireFailed)),
            // An attempt or a bare verb is no acquire.
            ("尝试获取分布式锁", None),
            ("获取锁", None),
            // Stock and orders; reserving stock is no lock.
            ("扣减库存成功", Some(StockDeducted)),
            ("锁定库存", None),
            ("创建订单", Some(OrderCreated)),
            ("用户登录", None),
        ] {
            assert_eq!(chinese_kind(s), want, "{s}");
        }
    }
}

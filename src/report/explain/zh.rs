//! The Simplified Chinese of an incident's [`Explanation`]: the same facts
//! in the same order as the English, in the reports' words.

use super::{Explanation, SaleList, SalesStory};
use crate::analysis::{Cause, WindowEnd};
use crate::model::Message;

/// The paragraph.
pub(super) fn explanation(e: &Explanation) -> String {
    let mut out = first_hold(e);
    out.push_str(&lease_end(e));
    out.push_str(&next_hold(e));
    out.push_str(&sales(&e.sales));
    out
}

/// How the belief ended.
fn window_end_words(w: WindowEnd) -> &'static str {
    match w {
        WindowEnd::Released => "释放锁时",
        WindowEnd::ReleaseFailed => "释放失败时",
        WindowEnd::LockLost => "发现锁已丢失时",
        WindowEnd::LastEvent => "其最后一条日志",
        WindowEnd::Reacquired => "再次获取锁时",
    }
}

/// "持有者 X（主机 H）于 T 获取了 K，过期时间为 N，并续期 N 次。"
fn first_hold(e: &Explanation) -> String {
    let host = e
        .host
        .as_ref()
        .map(|h| format!("（主机 {h}）"))
        .unwrap_or_default();
    let ttl = e
        .ttl
        .as_ref()
        .map_or_else(|| "未设过期时间".to_string(), |t| format!("过期时间为 {t}"));
    let mut out = format!(
        "持有者 {}{host} 于 {} 获取了 {}，{ttl}",
        e.holder, e.acquired, e.key
    );
    if e.renewals > 0 {
        out.push_str(&format!("，并续期 {} 次", e.renewals));
    }
    out.push('。');
    out
}

/// How the earlier holder's lock ended, and until when it believed it
/// held the lock.
fn lease_end(e: &Explanation) -> String {
    let until = format!(
        "它认为自己一直持有锁，直到 {}（{}）",
        e.believed_until,
        window_end_words(e.window_end)
    );
    let end = &e.lock_end;
    match e.cause {
        Cause::LeaseExpired => format!("它的租约在 {end} 过期，而它仍在工作：{until}。"),
        Cause::ForeignRelease => format!(
            "{end}，自身的锁已结束的 {} 删除了这把锁；{until}。",
            e.deleted_by.as_deref().unwrap_or("另一个持有者")
        ),
        Cause::TtlUnknown => format!(
            "到 {end} 它的锁已不在：下一个持有者获取了锁，而没有人删除过它。日志没有给出过期时间，无法判断是租约过期还是锁消失；{until}。"
        ),
        Cause::LockVanished => format!(
            "{end}，它的锁在租约仍有效时从服务器上消失了（故障转移、清空或淘汰）；{until}。"
        ),
    }
}

/// Who acquired next (and how many more), and how long the holders
/// believed they held the key at once.
fn next_hold(e: &Explanation) -> String {
    let mut out = format!("{} 于 {} 获取了锁", e.next_holder, e.next_acquired);
    if e.more_holders > 0 {
        out.push_str(&format!(
            "，事故结束前又有 {} 个持有者获取了锁",
            e.more_holders
        ));
    }
    let who = match e.holders {
        2 => "两个持有者".to_string(),
        n => format!("这 {n} 个持有者中的两个或更多"),
    };
    out.push_str(&format!(
        "。{who}同时认为自己持有 {}，合计 {}（{} 对重叠）。",
        e.key, e.duration, e.pairs
    ));
    out
}

/// `order-1（w-1）、一次扣减（w-2） 等另外 3 笔`.
fn list(l: &SaleList) -> String {
    let ids: Vec<String> = l
        .named
        .iter()
        .map(|x| {
            let who = x
                .holder
                .as_ref()
                .map(|h| format!("（{h}）"))
                .unwrap_or_default();
            match &x.order {
                Some(o) => format!("{o}{who}"),
                None => format!("一次扣减{who}"),
            }
        })
        .collect();
    let more = match l.unnamed() {
        0 => String::new(),
        n => format!(" 等另外 {n} 笔"),
    };
    format!("{}{more}", ids.join("、"))
}

/// `2 笔（4 件）`.
pub(super) fn counted(l: &SaleList) -> String {
    format!("{} 笔（{} 件）", l.count, l.units)
}

/// What was sold inside the window and tied to it, and what it cost.
fn sales(s: &SalesStory) -> String {
    let mut out = if s.inside.count == 0 {
        "窗口内没有售出库存。".to_string()
    } else {
        format!(
            "窗口内共售出 {} 件，{} 笔（{}）。",
            s.inside.units,
            s.inside.count,
            list(&s.inside)
        )
    };
    if s.later.count > 0 {
        out.push_str(&format!(
            "窗口外还有 {} 笔（{} 件：{}）与之相关：由其持有者在仍认为持有锁时售出，或用掉了重叠期间已售出的库存。",
            s.later.count,
            s.later.units,
            list(&s.later)
        ));
    }
    if s.oversold_units > 0 {
        out.push_str(&format!(
            "其中 {} 件超出库存，损失 {}。",
            s.oversold_units,
            s.loss.zh()
        ));
    } else if s.stock_unknown {
        out.push_str("是否超出库存未知：没有读到该商品的库存量。");
    } else if s.inside.count + s.later.count > 0 {
        out.push_str("没有超出库存。");
    }
    out
}

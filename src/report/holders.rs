//! The one name of a holder on every surface (the window's lanes, card and
//! state panel, the pictures, the reports): the part a reader recognises
//! first (thread, pod, host, worker), shortened the same way everywhere and
//! never into a name another holder of the log shows.

use crate::analysis::Analysis;
use crate::model::{LoadedLog, Sym};

/// What names one holder: its id and the thread and host of its first hold
/// (empty when the log has none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HolderParts<'a> {
    /// The holder's id as logged (a token, a UUID, `worker-a`).
    pub id: &'a str,
    /// Its thread (`http-nio-8080-exec-3`), or empty.
    pub thread: &'a str,
    /// Its host or pod (`inventory-7d9f8-x2k4p`), or empty.
    pub host: &'a str,
}

/// Characters of the human part at the shortest level.
const SHORT_HUMAN: usize = 16;
/// Characters of the human part at the middle levels.
const LONG_HUMAN: usize = 24;
/// Characters of a host beside its thread at the shortest level.
const SHORT_HOST: usize = 12;

/// Whether `id` reads as a token (a long run of hex digits: a UUID, a
/// 32-digit token) rather than a name a reader recognises.
pub fn is_token(id: &str) -> bool {
    let mut run = 0usize;
    let mut longest = 0usize;
    for c in id.chars() {
        if c.is_ascii_hexdigit() {
            run += 1;
            longest = longest.max(run);
        } else if c != '-' {
            run = 0;
        }
    }
    longest >= 12
}

/// The last `max` characters of `name`, starting at a word boundary
/// (`-`, `_`, `.`, `:`, `/`, `@`, space) when one is near, with `…`
/// before when cut.
pub fn tail(name: &str, max: usize) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= max {
        return name.to_string();
    }
    let from = chars.len() - max.saturating_sub(1).max(1);
    let boundary = |c: char| matches!(c, '-' | '_' | '.' | ':' | '/' | '@' | ' ');
    let start = (from..chars.len())
        .take(max / 2)
        .find(|&i| i > 0 && boundary(chars[i - 1]))
        .unwrap_or(from);
    let mut out = String::from("…");
    out.extend(&chars[start..]);
    out
}

/// `name` when it has at most `max` characters, else its last two words
/// (`exec-3` of `http-nio-8080-exec-3`) with `…` before, at most `max`.
pub fn last_words(name: &str, max: usize) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= max {
        return name.to_string();
    }
    let boundary = |c: &char| matches!(c, '-' | '_' | '.' | ':' | '/' | '@' | ' ');
    let mut starts = vec![0];
    starts.extend((1..chars.len()).filter(|&i| boundary(&chars[i - 1]) && !boundary(&chars[i])));
    let from = match starts.len() {
        n if n >= 3 => starts[n - 2],
        _ => return tail(name, max),
    };
    let words: String = chars[from..].iter().collect();
    if words.chars().count() < max {
        format!("…{words}")
    } else {
        tail(&words, max)
    }
}

/// The part of a token id that tells it from the log's other token ids:
/// `id` without the `prefix` and `suffix` characters every token shares,
/// its first `len` characters, `…` where anything is left out.
fn token_part(id: &str, (prefix, suffix): (usize, usize), len: usize) -> String {
    let chars: Vec<char> = id.chars().collect();
    let (prefix, suffix) = if prefix + suffix + 2 > chars.len() {
        (0, 0)
    } else {
        (prefix, suffix)
    };
    let core = &chars[prefix..chars.len() - suffix];
    let mut out = String::new();
    if prefix > 0 {
        out.push('…');
    }
    out.extend(core.iter().take(len));
    if core.len() > len || suffix > 0 {
        out.push('…');
    }
    out
}

/// The human part of a holder: its id when the id is a name, else its
/// thread, else its host; empty for a token with neither.
fn human<'a>(p: &HolderParts<'a>) -> &'a str {
    let useful = |s: &str| !s.is_empty() && s != p.id;
    if !is_token(p.id) {
        p.id
    } else if useful(p.thread) {
        p.thread
    } else if useful(p.host) {
        p.host
    } else {
        ""
    }
}

/// The host beside a human part that is a thread, when there is one.
fn host_of<'a>(p: &HolderParts<'a>) -> &'a str {
    let h = human(p);
    if !h.is_empty() && h == p.thread && p.host != p.id && p.host != h {
        p.host
    } else {
        ""
    }
}

/// What the labels of one log share: the characters every token id
/// starts and ends with, and whether every holder runs on one host (which
/// then tells none apart).
#[derive(Clone, Copy)]
struct Shared {
    affixes: (usize, usize),
    one_host: bool,
}

/// Holder `p`'s label at `level` (0 the shortest, [`LEVELS`] - 1 the id
/// itself).
fn label_at(p: &HolderParts<'_>, level: usize, shared: Shared) -> String {
    let affixes = shared.affixes;
    let h = human(p);
    let host = if shared.one_host { "" } else { host_of(p) };
    let token = is_token(p.id);
    let at_host = |n: usize, m: usize| match host {
        "" => shorten(h, n),
        host => format!("{}@{}", shorten(h, n), shorten(host, m)),
    };
    let with_token = |name: String, len: usize| match (token, name.is_empty()) {
        (false, _) => name,
        (true, true) => token_part(p.id, affixes, len),
        (true, false) => format!("{name} {}", token_part(p.id, affixes, len)),
    };
    match level {
        0 if h.is_empty() => token_part(p.id, affixes, 6),
        0 => last_words(h, SHORT_HUMAN),
        1 => with_token(at_host(SHORT_HUMAN, SHORT_HOST), 4),
        2 => with_token(at_host(LONG_HUMAN, LONG_HUMAN), 8),
        3 => with_token(at_host(usize::MAX, usize::MAX), 12),
        _ => p.id.to_string(),
    }
}

/// `name` in at most `max` characters: the last two words at the
/// shortest levels, a longer tail above; whole at `usize::MAX`.
fn shorten(name: &str, max: usize) -> String {
    match max {
        usize::MAX => name.to_string(),
        SHORT_HUMAN | SHORT_HOST => last_words(name, max),
        _ => tail(name, max),
    }
}

/// Levels of [`label_at`]; the last is the id, which no other holder has.
const LEVELS: usize = 5;

/// The label of each of `holders` (ids distinct), in their order: the
/// shortest level of [`label_at`] that no other holder shows. Holders
/// whose labels meet move up a level together until none meet; at the
/// last level a label is its id, so it ends.
pub fn holder_labels(holders: &[HolderParts<'_>]) -> Vec<String> {
    let affixes = common_affixes(holders.iter().filter(|p| is_token(p.id)).map(|p| p.id));
    let hosts: foldhash::HashSet<&str> = holders.iter().map(|p| p.host).collect();
    let shared = Shared {
        affixes,
        one_host: hosts.len() <= 1,
    };
    let mut level = vec![0usize; holders.len()];
    let mut labels: Vec<String> = holders.iter().map(|p| label_at(p, 0, shared)).collect();
    // Counted, not listed: a list per label would cost an allocation for
    // each of a big log's hundreds of thousands of holders at every level.
    loop {
        let mut count: foldhash::HashMap<&str, u32> = foldhash::HashMap::default();
        count.reserve(labels.len());
        for l in &labels {
            *count.entry(l.as_str()).or_default() += 1;
        }
        let bump: Vec<usize> = (0..labels.len())
            .filter(|&i| level[i] + 1 < LEVELS && count.get(labels[i].as_str()) > Some(&1))
            .collect();
        if bump.is_empty() {
            return labels;
        }
        for i in bump {
            level[i] += 1;
            labels[i] = label_at(&holders[i], level[i], shared);
        }
    }
}

/// The lengths (in chars) of the prefix and the suffix all of `names`
/// share; `(0, 0)` for fewer than two names.
pub fn common_affixes<'a>(names: impl Iterator<Item = &'a str>) -> (usize, usize) {
    let names: Vec<Vec<char>> = names.map(|n| n.chars().collect()).collect();
    let Some((first, rest)) = names.split_first() else {
        return (0, 0);
    };
    if rest.is_empty() {
        return (0, 0);
    }
    let shortest = names.iter().map(Vec::len).min().unwrap_or(0);
    let same = |i: usize, at: &dyn Fn(&Vec<char>) -> char| {
        let c = at(first);
        rest.iter().all(|n| at(n) == c) && i < shortest
    };
    let mut prefix = 0;
    while prefix < shortest && same(prefix, &|n| n[prefix]) {
        prefix += 1;
    }
    let mut suffix = 0;
    while suffix < shortest - prefix && same(suffix, &|n| n[n.len() - 1 - suffix]) {
        suffix += 1;
    }
    (prefix, suffix)
}

/// The labels of every holder of a log ([`holder_labels`]), each holder
/// named by the thread and host of its first hold.
#[derive(Clone, Debug, Default)]
pub struct HolderNames {
    labels: foldhash::HashMap<Sym, String>,
}

impl HolderNames {
    /// The names of the holders of `analysis`'s holds in `log`.
    pub fn of(log: &LoadedLog, analysis: &Analysis) -> HolderNames {
        let mut first: foldhash::HashMap<Sym, (Option<Sym>, Option<Sym>)> =
            foldhash::HashMap::default();
        let mut order: Vec<Sym> = Vec::new();
        for l in analysis.leases.iter().chain(&analysis.server_view) {
            first.entry(l.holder).or_insert_with(|| {
                order.push(l.holder);
                (l.thread, l.host)
            });
        }
        let s = |sym: Option<Sym>| sym.map_or("", |x| log.strings.get(x));
        let parts: Vec<HolderParts<'_>> = order
            .iter()
            .map(|h| HolderParts {
                id: log.strings.get(*h),
                thread: s(first[h].0),
                host: s(first[h].1),
            })
            .collect();
        let labels = holder_labels(&parts);
        HolderNames {
            labels: order.into_iter().zip(labels).collect(),
        }
    }

    /// The label of `holder`; `None` for a holder with no hold.
    pub fn get(&self, holder: Sym) -> Option<&str> {
        self.labels.get(&holder).map(String::as_str)
    }

    /// The label of `holder`, else its id in `log`.
    pub fn label<'a>(&'a self, log: &'a LoadedLog, holder: Sym) -> &'a str {
        self.get(holder).unwrap_or_else(|| log.strings.get(holder))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts<'a>(id: &'a str, thread: &'a str, host: &'a str) -> HolderParts<'a> {
        HolderParts { id, thread, host }
    }

    fn unique(labels: &[String]) -> bool {
        let set: std::collections::HashSet<&String> = labels.iter().collect();
        set.len() == labels.len()
    }

    #[test]
    fn a_named_holder_is_its_name_a_token_its_thread() {
        let l = holder_labels(&[
            parts("worker-a", "", "h1"),
            parts(
                "3c5e0f3af8b511ef9a1d0242ac120004",
                "http-nio-8080-exec-3",
                "pod-1",
            ),
        ]);
        assert_eq!(l, vec!["worker-a", "…exec-3"]);
    }

    #[test]
    fn one_thread_on_two_pods_reads_the_pod_never_the_same_label() {
        let l = holder_labels(&[
            parts(
                "3c5e0f3af8b511ef9a1d0242ac120004",
                "http-nio-8080-exec-3",
                "inventory-service-7d9f8-x2k4p",
            ),
            parts(
                "9b21aa03f8b511ef9a1d0242ac120004",
                "http-nio-8080-exec-3",
                "inventory-service-7d9f8-q8r2m",
            ),
        ]);
        assert!(unique(&l), "{l:?}");
        assert!(l[0].starts_with("…exec-3@"), "{l:?}");
        assert!(l[0].contains("x2k4p") && l[1].contains("q8r2m"), "{l:?}");
    }

    #[test]
    fn tokens_alone_show_the_digits_that_differ() {
        let l = holder_labels(&[
            parts("3c5e0f3af8b511ef9a1d0242ac120004", "", ""),
            parts("9b21aa03f8b511ef9a1d0242ac120004", "", ""),
        ]);
        assert_eq!(l, vec!["3c5e0f…", "9b21aa…"]);
    }

    #[test]
    fn labels_never_meet_even_when_every_short_form_does() {
        let ids: Vec<String> = (0..40)
            .map(|i| format!("{:032x}", 0xabcdef_u128 << 64 | i))
            .collect();
        let holders: Vec<HolderParts<'_>> = ids
            .iter()
            .map(|id| parts(id, "pool-1-thread-1", "host"))
            .collect();
        let l = holder_labels(&holders);
        assert!(unique(&l), "{l:?}");
        let names = [
            "a-very-long-worker-name-1",
            "a-very-long-worker-name-11",
            "x",
        ];
        let holders: Vec<HolderParts<'_>> = names.iter().map(|n| parts(n, "", "")).collect();
        assert!(unique(&holder_labels(&holders)));
    }

    #[test]
    fn tails_cut_at_a_word() {
        assert_eq!(tail("http-nio-8080-exec-3", 16), "…nio-8080-exec-3");
        assert_eq!(last_words("http-nio-8080-exec-3", 16), "…exec-3");
        assert_eq!(last_words("pool-1-thread-12", 16), "pool-1-thread-12");
        assert_eq!(tail("short", 16), "short");
        assert!(tail("a".repeat(40).as_str(), 10).chars().count() <= 10);
    }
}

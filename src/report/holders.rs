//! The one name of a holder on every surface (the window's lanes, card and
//! state panel, the pictures, the reports): the part a reader recognises
//! first (thread, pod, host, worker), shortened the same way everywhere and
//! never into a name another holder of the log shows.

use crate::analysis::{Analysis, Lease};
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
    // Bytes, not chars: hex digits and `-` are ASCII, and every byte of a
    // character beyond ASCII is neither, so it ends a run as the character
    // would.
    let mut run = 0usize;
    let mut longest = 0usize;
    for &b in id.as_bytes() {
        if b.is_ascii_hexdigit() {
            run += 1;
            longest = longest.max(run);
        } else if b != b'-' {
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
/// its first `len` characters, `…` where anything is left out; written
/// at the end of `out`.
fn push_token_part(out: &mut String, id: &str, (prefix, suffix): (usize, usize), len: usize) {
    let n = id.chars().count();
    let (prefix, suffix) = if prefix + suffix + 2 > n {
        (0, 0)
    } else {
        (prefix, suffix)
    };
    let core = n - prefix - suffix;
    if prefix > 0 {
        out.push('…');
    }
    out.extend(id.chars().skip(prefix).take(len.min(core)));
    if core > len || suffix > 0 {
        out.push('…');
    }
}

/// One holder, read once for every level of its label: its id, whether
/// the id is a token, and which distinct pair of human part
/// ([`human_of`]) and host shown beside it (empty when every holder runs
/// on one host) it has, an index into [`NameParts`].
struct Prepared<'a> {
    id: &'a str,
    token: bool,
    pair: u32,
}

/// The name parts of each distinct pair of human part and host, at each
/// level that shows them: a log's hundreds of thousands of holders share a
/// few hundred threads and hosts, so each is shortened once, not once per
/// holder and level.
struct NameParts<'a> {
    pairs: Vec<(&'a str, &'a str)>,
    /// `parts[level][pair]`: levels 0 to 3 ([`name_part`]).
    parts: [Vec<String>; 4],
}

/// The name part of human part `h` beside `host` at `level` 0 to 3: the
/// last words of `h` at level 0, then `h@host` shortened less at each
/// level, whole at level 3.
fn name_part(h: &str, host: &str, level: usize) -> String {
    let (n, m) = match level {
        0 => return last_words(h, SHORT_HUMAN),
        1 => (SHORT_HUMAN, SHORT_HOST),
        2 => (LONG_HUMAN, LONG_HUMAN),
        _ => (usize::MAX, usize::MAX),
    };
    match host {
        "" => shorten(h, n),
        host => format!("{}@{}", shorten(h, n), shorten(host, m)),
    }
}

impl<'a> NameParts<'a> {
    /// Each holder of `holders` prepared (`token`: whether each one's id
    /// is a token), and the name parts of their distinct pairs; no host is
    /// shown when every holder runs on `one_host` (it tells none apart).
    fn of(
        holders: &[HolderParts<'a>],
        token: &[bool],
        one_host: bool,
    ) -> (Vec<Prepared<'a>>, NameParts<'a>) {
        let mut ids: foldhash::HashMap<(&'a str, &'a str), u32> = foldhash::HashMap::default();
        let mut pairs = Vec::new();
        let prepared = holders
            .iter()
            .zip(token)
            .map(|(p, &token)| {
                let h = human_of(p, token);
                let host = if one_host { "" } else { host_beside(p, h) };
                let pair = *ids.entry((h, host)).or_insert_with(|| {
                    pairs.push((h, host));
                    (pairs.len() - 1) as u32
                });
                Prepared {
                    id: p.id,
                    token,
                    pair,
                }
            })
            .collect();
        let level = |l: usize| {
            pairs
                .iter()
                .map(|&(h, host)| name_part(h, host, l))
                .collect()
        };
        let parts = [level(0), level(1), level(2), level(3)];
        (prepared, NameParts { pairs, parts })
    }

    /// Holder `p`'s label at `level` (0 the shortest, [`LEVELS`] - 1 the
    /// id itself).
    fn label(&self, p: &Prepared<'_>, level: usize, affixes: (usize, usize)) -> String {
        let mut out = String::new();
        let pair = p.pair as usize;
        let h = self.pairs[pair].0;
        let name = |l: usize| self.parts[l][pair].as_str();
        let mut with_token = |name: &str, len: usize| {
            out.push_str(name);
            if p.token {
                if !name.is_empty() {
                    out.push(' ');
                }
                push_token_part(&mut out, p.id, affixes, len);
            }
        };
        match level {
            0 if h.is_empty() => push_token_part(&mut out, p.id, affixes, 6),
            0 => out.push_str(name(0)),
            1 => with_token(name(1), 4),
            2 => with_token(name(2), 8),
            3 => with_token(name(3), 12),
            _ => out.push_str(p.id),
        }
        out
    }
}

/// The human part of a holder whose id is a `token` or not: its id when
/// the id is a name, else its thread, else its host; empty for a token
/// with neither.
fn human_of<'a>(p: &HolderParts<'a>, token: bool) -> &'a str {
    let useful = |s: &str| !s.is_empty() && s != p.id;
    if !token {
        p.id
    } else if useful(p.thread) {
        p.thread
    } else if useful(p.host) {
        p.host
    } else {
        ""
    }
}

/// The host beside a human part `h` that is a thread, when there is one.
fn host_beside<'a>(p: &HolderParts<'a>, h: &str) -> &'a str {
    if !h.is_empty() && h == p.thread && p.host != p.id && p.host != h {
        p.host
    } else {
        ""
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

/// Levels of a label; the last is the id, which no other holder has.
const LEVELS: usize = 5;

/// The fewest holders one job of rayon's pool labels (fewer are labelled
/// in one job).
const PARALLEL_MIN: usize = 4096;

/// The label of each of `holders` (ids distinct), in their order: the
/// shortest level that no other holder shows. Holders whose labels meet
/// move up a level together until none meet; at the last level a label is
/// its id, so it ends.
///
/// Labels are counted by their 128-bit xxh3 hash, kept up to date as
/// holders move up rather than counted again: a 10 M event log's 2 M
/// holders took 0.3 s a level counted by text. Two labels that differ but
/// share a hash (about 1 in 10^26 for 2 M labels) would both move up a
/// level, longer than needed but never the same.
pub fn holder_labels(holders: &[HolderParts<'_>]) -> Vec<String> {
    use rayon::prelude::*;
    let token: Vec<bool> = if holders.len() < PARALLEL_MIN {
        holders.iter().map(|p| is_token(p.id)).collect()
    } else {
        holders.par_iter().map(|p| is_token(p.id)).collect()
    };
    let tokens: Vec<&str> = holders
        .iter()
        .zip(&token)
        .filter_map(|(p, &t)| t.then_some(p.id))
        .collect();
    let affixes = common_affixes_of(&tokens);
    let one_host = holders.iter().all(|p| p.host == holders[0].host);
    let (prepared, names) = NameParts::of(holders, &token, one_host);
    let at = |i: usize, level: usize| names.label(&prepared[i], level, affixes);
    let hashed = |label: &String| xxhash_rust::xxh3::xxh3_128(label.as_bytes());
    let mut level = vec![0usize; holders.len()];
    let (mut labels, mut hashes): (Vec<String>, Vec<u128>) = (0..holders.len())
        .into_par_iter()
        .with_min_len(PARALLEL_MIN)
        .map(|i| {
            let label = at(i, 0);
            let hash = hashed(&label);
            (label, hash)
        })
        .unzip();
    let mut count = HashCounts::of(&hashes);
    loop {
        // Each holder that meets another (counted before any moves) moves
        // up a level: its label made again and the old one dropped, on the
        // pool; the hashes it moved from and to.
        let moved: Vec<(u128, u128)> = labels
            .par_iter_mut()
            .zip(&mut hashes)
            .zip(&mut level)
            .enumerate()
            .with_min_len(PARALLEL_MIN)
            .filter_map(|(i, ((label, hash), level))| {
                let meets = *level + 1 < LEVELS && count.get(*hash) > 1;
                meets.then(|| {
                    *level += 1;
                    *label = at(i, *level);
                    let from = *hash;
                    *hash = hashed(label);
                    (from, *hash)
                })
            })
            .collect();
        if moved.is_empty() {
            return labels;
        }
        count.moved(&moved);
    }
}

/// Bits of a label's hash that choose its part of [`HashCounts`].
const SHARD_BITS: u32 = 6;

/// How many labels have each hash, in `1 << SHARD_BITS` parts chosen by
/// the hash's top bits. In one map of 2 M entries, moving a 10 M event
/// log's 2 M holders up one level takes 0.52 s, a cache miss a count; the
/// parts are small enough to stay in cache and are counted side by side.
struct HashCounts {
    parts: Vec<foldhash::HashMap<u128, u32>>,
}

impl HashCounts {
    /// The part of `hash`.
    fn part(hash: u128) -> usize {
        (hash >> (128 - SHARD_BITS)) as usize
    }

    /// The counts of `hashes`.
    fn of(hashes: &[u128]) -> HashCounts {
        let mut counts = HashCounts {
            parts: vec![foldhash::HashMap::default(); 1 << SHARD_BITS],
        };
        counts.apply(&[], hashes.iter().copied());
        counts
    }

    /// Labels with `hash`.
    fn get(&self, hash: u128) -> u32 {
        self.parts[Self::part(hash)]
            .get(&hash)
            .copied()
            .unwrap_or(0)
    }

    /// Each of `moved`'s labels counted at its new hash, not its old.
    fn moved(&mut self, moved: &[(u128, u128)]) {
        self.apply(moved, moved.iter().map(|m| m.1));
    }

    /// Counts `added` and, for each of `moved`, one fewer at its old hash.
    fn apply(&mut self, moved: &[(u128, u128)], added: impl Iterator<Item = u128>) {
        use rayon::prelude::*;
        let n = 1 << SHARD_BITS;
        let (mut gone, mut new) = (vec![Vec::new(); n], vec![Vec::new(); n]);
        for &(from, _) in moved {
            gone[Self::part(from)].push(from);
        }
        for h in added {
            new[Self::part(h)].push(h);
        }
        let parts = self.parts.par_iter_mut().zip(gone).zip(new);
        parts.for_each(|((part, gone), new)| {
            for h in gone {
                if let Some(c) = part.get_mut(&h) {
                    *c -= 1;
                }
            }
            part.reserve(new.len());
            for h in new {
                *part.entry(h).or_default() += 1;
            }
        });
    }
}

/// The lengths (in chars) of the prefix and the suffix all of `names`
/// share; `(0, 0)` for fewer than two names. Each name is compared with the
/// first where they could still share more, without copying it (a big log
/// has hundreds of thousands).
pub fn common_affixes<'a>(mut names: impl Iterator<Item = &'a str>) -> (usize, usize) {
    let Some(first) = names.next() else {
        return (0, 0);
    };
    Shared::against(first, names).affixes()
}

/// What `first` shares with each of a list of names: the prefix and suffix
/// lengths (in chars) it shares with all of them, the shortest length
/// among them and `first`, and how many they are.
#[derive(Clone, Copy)]
struct Shared {
    prefix: usize,
    suffix: usize,
    shortest: usize,
    others: usize,
}

impl Shared {
    /// `first` against `names`.
    fn against<'a>(first: &str, names: impl Iterator<Item = &'a str>) -> Shared {
        let len = first.chars().count();
        let mut s = Shared {
            prefix: len,
            suffix: len,
            shortest: len,
            others: 0,
        };
        for n in names {
            s.others += 1;
            s.shortest = s.shortest.min(n.chars().count());
            if s.prefix > 0 {
                let same = first.chars().zip(n.chars());
                s.prefix = s.prefix.min(same.take_while(|(a, b)| a == b).count());
            }
            if s.suffix > 0 {
                let same = first.chars().rev().zip(n.chars().rev());
                s.suffix = s.suffix.min(same.take_while(|(a, b)| a == b).count());
            }
        }
        s
    }

    /// `first` against both lists.
    fn and(self, o: Shared) -> Shared {
        Shared {
            prefix: self.prefix.min(o.prefix),
            suffix: self.suffix.min(o.suffix),
            shortest: self.shortest.min(o.shortest),
            others: self.others + o.others,
        }
    }

    /// The affixes every name shares; `(0, 0)` for `first` alone.
    fn affixes(self) -> (usize, usize) {
        if self.others == 0 {
            return (0, 0);
        }
        let prefix = self.prefix.min(self.shortest);
        (prefix, self.suffix.min(self.shortest - prefix))
    }
}

/// [`common_affixes`] of `names`, in chunks on rayon's pool when they
/// are many.
fn common_affixes_of(names: &[&str]) -> (usize, usize) {
    use rayon::prelude::*;
    let Some((first, rest)) = names.split_first() else {
        return (0, 0);
    };
    if rest.len() < PARALLEL_MIN {
        return common_affixes(names.iter().copied());
    }
    rest.par_chunks(PARALLEL_MIN)
        .map(|chunk| Shared::against(first, chunk.iter().copied()))
        .reduce(|| Shared::against(first, std::iter::empty()), Shared::and)
        .affixes()
}

/// The labels of every holder of a log ([`holder_labels`]), each holder
/// named by the thread and host of its first hold.
#[derive(Clone, Debug, Default)]
pub struct HolderNames {
    /// For each string of the log by [`Sym::index`], its label's place in
    /// the labels plus one; 0 for a string that names no holder. Dense: the
    /// timeline asks for a label per lease, hundreds of thousands a load.
    slot: Vec<u32>,
    /// Every label, one after another, in their order: one allocation,
    /// not one a holder (the 10 M simulator log has 1.98 M), so the result
    /// cache reads them back in one piece.
    text: String,
    /// Where each label ends in `text`, bytes: label `i` is
    /// `text[ends[i - 1]..ends[i]]` (from 0 for the first).
    ends: Vec<usize>,
}

impl HolderNames {
    /// The names of the holders of `analysis`'s holds in `log`.
    pub fn of(log: &LoadedLog, analysis: &Analysis) -> HolderNames {
        HolderNames::of_holds(log, &analysis.leases, &analysis.server_view)
    }

    /// The names of the holders of `leases`, then of `server_view` (an
    /// analysis's [`Analysis::leases`] and [`Analysis::server_view`]), in
    /// `log`.
    pub fn of_holds(log: &LoadedLog, leases: &[Lease], server_view: &[Lease]) -> HolderNames {
        let mut slot = vec![0u32; log.strings.len()];
        let mut order: Vec<(Sym, Option<Sym>, Option<Sym>)> = Vec::new();
        for l in leases.iter().chain(server_view) {
            if let Some(s) = slot.get_mut(l.holder.index()).filter(|s| **s == 0) {
                order.push((l.holder, l.thread, l.host));
                *s = order.len() as u32;
            }
        }
        let s = |sym: Option<Sym>| sym.map_or("", |x| log.strings.get(x));
        let parts: Vec<HolderParts<'_>> = order
            .iter()
            .map(|&(h, thread, host)| HolderParts {
                id: log.strings.get(h),
                thread: s(thread),
                host: s(host),
            })
            .collect();
        let labels = holder_labels(&parts);
        let mut text = String::with_capacity(labels.iter().map(String::len).sum());
        let ends = labels
            .iter()
            .map(|l| {
                text.push_str(l);
                text.len()
            })
            .collect();
        HolderNames { slot, text, ends }
    }

    /// The label at place `at` of the labels.
    fn at(&self, at: usize) -> Option<&str> {
        let start = match at.checked_sub(1) {
            Some(before) => *self.ends.get(before)?,
            None => 0,
        };
        self.text.get(start..*self.ends.get(at)?)
    }

    /// The label of `holder`; `None` for a holder with no hold.
    pub fn get(&self, holder: Sym) -> Option<&str> {
        let at = (*self.slot.get(holder.index())? as usize).checked_sub(1)?;
        self.at(at)
    }

    /// The label of `holder`, else its id in `log`.
    pub fn label<'a>(&'a self, log: &'a LoadedLog, holder: Sym) -> &'a str {
        self.get(holder).unwrap_or_else(|| log.strings.get(holder))
    }

    /// The labels as bytes for the result cache (`.lrn`,
    /// `pipeline::results`): each holder's string index, then the labels'
    /// text and where each ends, in the labels' order (bitcode).
    pub fn encode(&self) -> Vec<u8> {
        let mut holders = vec![0u32; self.ends.len()];
        for (index, &s) in self.slot.iter().enumerate() {
            if let Some(h) = (s as usize)
                .checked_sub(1)
                .and_then(|at| holders.get_mut(at))
            {
                *h = index as u32;
            }
        }
        let mut start = 0;
        let lens = self.ends.iter().map(|&end| {
            let len = end - start;
            start = end;
            u32::try_from(len).unwrap_or(u32::MAX)
        });
        bitcode::encode(&StoredNames {
            holders,
            text: self.text.as_str(),
            lens: lens.collect(),
        })
    }

    /// Labels [`HolderNames::encode`] made, for holders of `log`.
    ///
    /// # Errors
    /// Bytes that do not decode, or name a string `log` does not have, or
    /// one twice, or give a holder an empty label, or end a label outside
    /// the text or inside a character, in a few words.
    pub fn decode(bytes: &[u8], log: &LoadedLog) -> Result<HolderNames, String> {
        let stored: StoredNames<String> =
            bitcode::decode(bytes).map_err(|e| format!("labels that do not decode ({e})"))?;
        if stored.holders.len() != stored.lens.len() {
            return Err("as many labels as holders it does not have".into());
        }
        let mut ends = Vec::with_capacity(stored.lens.len());
        let mut start = 0usize;
        for &len in &stored.lens {
            if len == 0 {
                return Err("a holder with an empty label".into());
            }
            let end = start.saturating_add(len as usize);
            // (Not a boundary past the text's end either.)
            if !stored.text.is_char_boundary(end) {
                return Err("a label that ends outside its text".into());
            }
            ends.push(end);
            start = end;
        }
        if start != stored.text.len() {
            return Err("text after the last label".into());
        }
        let mut slot = vec![0u32; log.strings.len()];
        for (at, &index) in stored.holders.iter().enumerate() {
            match slot.get_mut(index as usize) {
                Some(s) if *s == 0 => *s = at as u32 + 1,
                Some(_) => return Err("a holder labelled twice".into()),
                None => return Err("a holder the log does not have".into()),
            }
        }
        Ok(HolderNames {
            slot,
            text: stored.text,
            ends,
        })
    }
}

/// [`HolderNames`] as kept in the result cache: written with the text
/// borrowed (`&str`), read back owned (`String`); bitcode writes both
/// alike.
#[derive(bitcode::Encode, bitcode::Decode)]
struct StoredNames<S> {
    /// Each holder's [`Sym::index`].
    holders: Vec<u32>,
    /// The labels, one after another, in the same order.
    text: S,
    /// Each label's length in `text`, bytes (small numbers, which bitcode
    /// packs into a byte or two, where the ends took eight).
    lens: Vec<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts<'a>(id: &'a str, thread: &'a str, host: &'a str) -> HolderParts<'a> {
        HolderParts { id, thread, host }
    }

    /// [`push_token_part`] into a string of its own.
    fn token_part(id: &str, affixes: (usize, usize), len: usize) -> String {
        let mut out = String::with_capacity(len + 8);
        push_token_part(&mut out, id, affixes, len);
        out
    }

    fn unique(labels: &[String]) -> bool {
        let set: std::collections::HashSet<&String> = labels.iter().collect();
        set.len() == labels.len()
    }

    /// The labelling as it was before the name parts were shared (the
    /// reference the faster one must equal): every label made from
    /// scratch at each level.
    fn reference_labels(holders: &[HolderParts<'_>]) -> Vec<String> {
        let affixes = common_affixes(holders.iter().filter(|p| is_token(p.id)).map(|p| p.id));
        let hosts: std::collections::HashSet<&str> = holders.iter().map(|p| p.host).collect();
        let one_host = hosts.len() <= 1;
        let label_at = |p: &HolderParts<'_>, level: usize| {
            let token = is_token(p.id);
            let h = human_of(p, token);
            let host = if one_host { "" } else { host_beside(p, h) };
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
        };
        let mut level = vec![0usize; holders.len()];
        let mut labels: Vec<String> = holders.iter().map(|p| label_at(p, 0)).collect();
        loop {
            let mut count: std::collections::HashMap<&str, u32> = Default::default();
            for l in &labels {
                *count.entry(l.as_str()).or_default() += 1;
            }
            let bump: Vec<usize> = (0..labels.len())
                .filter(|&i| level[i] + 1 < LEVELS && count[labels[i].as_str()] > 1)
                .collect();
            if bump.is_empty() {
                return labels;
            }
            for i in bump {
                level[i] += 1;
                labels[i] = label_at(&holders[i], level[i]);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Holders drawn from a few ids, threads and hosts (tokens and
        /// names, shared and not), many enough to take the parallel path.
        #[test]
        fn shared_name_parts_label_as_the_reference_does(
            picks in proptest::collection::vec((0usize..6, 0usize..5, 0usize..4, 0u32..100_000), 1..40),
            many in proptest::bool::ANY,
        ) {
            let stems = ["worker-", "3c5e0f3af8b511ef9a1d0242ac12", "9b21aa03-f8b5-11ef-9a1d-", "x", "order-worker-36", "ab"];
            let threads = ["", "http-nio-8080-exec-3", "pool-1-thread-12", "a-very-long-thread-name-of-the-pool-7", "main"];
            let hosts = ["", "web-02", "inventory-service-7d9f8-x2k4p", "web-03"];
            let repeat = if many { PARALLEL_MIN / picks.len() + 1 } else { 1 };
            let mut seen = std::collections::HashSet::new();
            let mut ids = Vec::new();
            for r in 0..repeat {
                for (k, &(stem, thread, host, n)) in picks.iter().enumerate() {
                    let id = format!("{}{:x}", stems[stem], n as usize * 7919 + r * 131 + k);
                    if seen.insert(id.clone()) {
                        ids.push((id, threads[thread], hosts[host]));
                    }
                }
            }
            let holders: Vec<HolderParts<'_>> =
                ids.iter().map(|(id, t, h)| parts(id, t, h)).collect();
            proptest::prop_assert_eq!(holder_labels(&holders), reference_labels(&holders));
        }
    }

    /// [`is_token`] and [`token_part`] as they were written before they
    /// read bytes and wrote in place: over characters, copied out.
    fn reference_token(id: &str) -> bool {
        let (mut run, mut longest) = (0usize, 0usize);
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

    fn reference_token_part(id: &str, (prefix, suffix): (usize, usize), len: usize) -> String {
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

    proptest::proptest! {
        /// Ids of hex digits, dashes, letters and characters beyond ASCII
        /// (a CJK character's bytes must end a run as the character does).
        #[test]
        fn tokens_read_from_bytes_as_from_characters(
            id in "[0-9a-f\\-g订单é]{0,40}",
            prefix in 0usize..12,
            suffix in 0usize..12,
            len in 0usize..16,
        ) {
            proptest::prop_assert_eq!(is_token(&id), reference_token(&id));
            proptest::prop_assert_eq!(
                token_part(&id, (prefix, suffix), len),
                reference_token_part(&id, (prefix, suffix), len)
            );
        }
    }

    /// Counts kept part by part equal counts made again after every move.
    #[test]
    fn hash_counts_follow_moves() {
        let h = |i: u128| xxhash_rust::xxh3::xxh3_128(&i.to_le_bytes());
        let mut hashes: Vec<u128> = (0..5000).map(|i| h(i % 700)).collect();
        let mut counts = HashCounts::of(&hashes);
        for round in 0..3u128 {
            let moved: Vec<(u128, u128)> = (0..hashes.len())
                .filter(|i| i % 3 == round as usize)
                .map(|i| {
                    let to = h(1000 + (i as u128 % 50) + round * 100);
                    let from = std::mem::replace(&mut hashes[i], to);
                    (from, to)
                })
                .collect();
            counts.moved(&moved);
            for &x in &hashes {
                let naive = hashes.iter().filter(|&&y| y == x).count() as u32;
                assert_eq!(counts.get(x), naive);
            }
        }
        assert_eq!(counts.get(h(999_999)), 0);
    }

    /// The affixes as they were found before (every name copied into
    /// characters): the reference [`common_affixes`] must equal.
    fn reference_affixes(names: &[&str]) -> (usize, usize) {
        let names: Vec<Vec<char>> = names.iter().map(|n| n.chars().collect()).collect();
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

    proptest::proptest! {
        /// Names over a small alphabet (so that they share affixes),
        /// CJK included, equal ones and empty ones too.
        #[test]
        fn affixes_are_found_as_the_reference_finds_them(
            names in proptest::collection::vec("[ab锁]{0,6}", 0..8),
        ) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(
                common_affixes(names.iter().copied()),
                reference_affixes(&names)
            );
            // Many: found in chunks on rayon's pool.
            let many: Vec<&str> = names.iter().copied().cycle().take(2 * PARALLEL_MIN + 3).collect();
            proptest::prop_assert_eq!(common_affixes_of(&many), reference_affixes(&many));
        }
    }

    #[test]
    fn labels_kept_read_back_whole_and_damaged_ones_are_refused() {
        let mut b = crate::model::LogBuilder::new();
        crate::ingest::read_source(
            "seed-incident.jsonl",
            &include_bytes!("../../sample-logs/seed-incident.jsonl")[..],
            &crate::ingest::IngestOptions::default(),
            &mut b,
            &crate::ingest::Progress::default(),
        )
        .expect("seed loads");
        let log = b.finish();
        let a = crate::analysis::analyze(&log, &crate::analysis::Settings::default());
        let names = HolderNames::of(&log, &a);
        assert!(names.ends.len() > 100, "{}", names.ends.len());
        let back = HolderNames::decode(&names.encode(), &log).expect("decodes");
        assert_eq!(back.slot, names.slot);
        assert_eq!((&back.text, &back.ends), (&names.text, &names.ends));
        for l in &a.leases {
            assert_eq!(back.get(l.holder), names.get(l.holder));
            assert!(back.get(l.holder).is_some());
        }
        let refused = |stored: StoredNames<String>| {
            HolderNames::decode(&bitcode::encode(&stored), &log)
                .err()
                .unwrap_or_default()
        };
        let first = a.leases[0].holder.index() as u32;
        let two = |holders: Vec<u32>, labels: [&str; 2]| StoredNames {
            holders,
            text: labels.concat(),
            lens: labels.iter().map(|l| l.len() as u32).collect(),
        };
        assert!(refused(two(vec![first, first], ["a", "b"])).contains("twice"));
        assert!(refused(two(vec![first, u32::MAX], ["a", "b"])).contains("does not have"));
        assert!(refused(two(vec![first, first + 1], ["a", ""])).contains("empty label"));
        assert!(refused(two(vec![first], ["a", "b"])).contains("as many labels"));
        let cut = |lens: Vec<u32>| StoredNames {
            holders: vec![first, first + 1],
            text: "订单b".to_string(),
            lens,
        };
        assert!(refused(cut(vec![1, 3])).contains("outside"));
        assert!(refused(cut(vec![3, 6])).contains("outside"));
        assert!(refused(cut(vec![3, u32::MAX])).contains("outside"));
        assert!(refused(cut(vec![3, 0])).contains("empty label"));
        assert!(refused(cut(vec![3, 3])).contains("text after"));
        assert_eq!(
            HolderNames::decode(&bitcode::encode(&cut(vec![3, 4])), &log)
                .expect("whole")
                .get(a.leases[0].holder),
            Some("订")
        );
        assert!(HolderNames::decode(&[1, 2, 3], &log).is_err());
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

//! The plain data every other layer shares: interned strings, one normalised
//! [`Event`] per log line, the sources they came from and the warnings about
//! lines that could not be read.
//!
//! Nothing here parses or analyses; `ingest` fills a [`LogBuilder`], and
//! `analysis` reads the finished [`LoadedLog`].

use std::collections::HashMap;
use std::num::NonZeroU32;

use serde::Serialize;

mod evidence;
pub mod message;
mod note;
mod server_addr;
pub mod stored;
mod unreadable;
mod warning;
pub use evidence::{Evidence, EvidenceKind, EvidenceOrigin};
pub use message::{Message, Phrase};
pub use note::{DateFrom, KeyLink, KeyList, SourceNote, VanishCause, VanishProof};
pub use server_addr::ServerAddr;
pub use unreadable::{ReadingHint, Unreadable, ZIP_LAYOUT};
pub use warning::{
    Codec, FieldWarning, FileWarning, InfraWarning, MonitorWarning, RecordWarning, TimeError,
    WarningKind, WarningReason,
};

/// An interned string (lock key, holder, host, thread, product, order id).
///
/// `Option<Sym>` is 4 bytes. Resolve it with [`Interner::get`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, bitcode::Encode, bitcode::Decode,
)]
pub struct Sym(NonZeroU32);

impl Sym {
    /// The position of this string in interning order (0-based).
    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// The interner's hash of a string's bytes (the same for `&str` and
/// `&[u8]`), folded to 32 bits so that the table can keep it beside each
/// symbol.
fn hash_text(hasher: &foldhash::fast::FixedState, b: &[u8]) -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = hasher.build_hasher();
    h.write(b);
    let h = h.finish();
    (h ^ (h >> 32)) as u32
}

/// The table's 64-bit hash of a 32-bit one: the low bits pick the bucket,
/// the top bits are the tag, both from the kept hash, so that growing the
/// table rehashes without reading the strings.
fn table_hash(h: u32) -> u64 {
    let h = u64::from(h);
    h | (h << 32)
}

/// Deduplicating string table. Interning is O(1) amortised; every distinct
/// string is stored once however many events name it, all of them in one
/// text buffer (no allocation per string).
#[derive(Clone, Debug, Default)]
pub struct Interner {
    /// Symbols, hashed by their text, each with that hash.
    table: hashbrown::HashTable<(Sym, u32)>,
    /// Every string, one after the other.
    text: String,
    /// End of each string in `text`, in symbol order.
    ends: Vec<usize>,
    hasher: foldhash::fast::FixedState,
}

impl Interner {
    fn hash(&self, s: &str) -> u32 {
        hash_text(&self.hasher, s.as_bytes())
    }

    /// The symbol of the interned string whose hash is `hash` and whose
    /// bytes are `b`.
    fn find(&self, hash: u32, b: &[u8]) -> Option<Sym> {
        self.table
            .find(table_hash(hash), |&(sym, h)| {
                h == hash && slice(&self.text, &self.ends, sym).as_bytes() == b
            })
            .map(|&(sym, _)| sym)
    }

    /// An empty interner with room for `strings` strings of `bytes` bytes.
    pub fn with_capacity(strings: usize, bytes: usize) -> Interner {
        Interner {
            table: hashbrown::HashTable::with_capacity(strings),
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(strings),
            hasher: foldhash::fast::FixedState::default(),
        }
    }

    /// The interner of the strings of `text` ending at `ends` (in symbol
    /// order), as [`Interner::intern`] of each in turn would make it,
    /// without copying the text: the hashes computed on rayon's pool, the
    /// table filled after (the load cache's second open: 2-3 M strings at
    /// 10 M events).
    ///
    /// # Errors
    /// A string stored twice, an end before the one before it or past the
    /// text (or not on a character boundary), text after the last end, or
    /// more strings than symbols.
    pub fn from_parts(text: String, ends: Vec<usize>) -> Result<Interner, String> {
        use rayon::prelude::*;
        let bad = || "a string table that does not add up".to_string();
        if u32::try_from(ends.len()).is_err() || ends.last().copied().unwrap_or(0) != text.len() {
            return Err(bad());
        }
        let hasher = foldhash::fast::FixedState::default();
        let hashes: Vec<u32> = (0..ends.len())
            .into_par_iter()
            .map(|i| {
                let start = if i == 0 { 0 } else { ends[i - 1] };
                let s = text.get(start..ends[i]).ok_or_else(bad)?;
                Ok(hash_text(&hasher, s.as_bytes()))
            })
            .collect::<Result<_, String>>()?;
        let mut out = Interner {
            table: hashbrown::HashTable::with_capacity(ends.len()),
            text,
            ends,
            hasher,
        };
        for (i, &hash) in hashes.iter().enumerate() {
            let sym = Sym(NonZeroU32::new(i as u32 + 1).unwrap_or(NonZeroU32::MIN));
            if out.find(hash, out.get(sym).as_bytes()).is_some() {
                return Err("a string stored twice".into());
            }
            out.index(sym, hash);
        }
        Ok(out)
    }

    /// Returns the symbol for `s`, adding it if it is new.
    pub fn intern(&mut self, s: &str) -> Sym {
        let hash = self.hash(s);
        match self.find(hash, s.as_bytes()) {
            Some(sym) => sym,
            None => self.add(hash, s),
        }
    }

    /// Adds `s`, not interned yet, whose hash is `hash`.
    fn add(&mut self, hash: u32, s: &str) -> Sym {
        self.text.push_str(s);
        self.ends.push(self.text.len());
        let n = u32::try_from(self.ends.len()).unwrap_or(u32::MAX);
        let sym = Sym(NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN));
        self.index(sym, hash);
        sym
    }

    /// Puts `sym`, whose text is in the table already and hashes to
    /// `hash`, in the hash table.
    fn index(&mut self, sym: Sym, hash: u32) {
        self.table
            .insert_unique(table_hash(hash), (sym, hash), |&(_, h)| table_hash(h));
    }

    /// [`Interner::intern`] of bytes: a string already interned is found
    /// without checking that the bytes are UTF-8; a new one is interned as
    /// text, invalid UTF-8 replaced as `String::from_utf8_lossy` does.
    pub fn intern_bytes(&mut self, b: &[u8]) -> Sym {
        let hash = hash_text(&self.hasher, b);
        if let Some(sym) = self.find(hash, b) {
            return sym;
        }
        match std::str::from_utf8(b) {
            Ok(s) => self.add(hash, s),
            Err(_) => self.intern(&String::from_utf8_lossy(b)),
        }
    }

    /// True when `sym`'s text is `s` (a symbol of another interner: false).
    pub fn is(&self, sym: Sym, s: &str) -> bool {
        let i = sym.index();
        let Some(&end) = self.ends.get(i) else {
            return false;
        };
        let start = match i.checked_sub(1) {
            Some(j) => self.ends.get(j).copied().unwrap_or(0),
            None => 0,
        };
        end.checked_sub(start) == Some(s.len())
            && self.text.as_bytes().get(start..end) == Some(s.as_bytes())
    }

    /// Looks a string up without adding it.
    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.find(self.hash(s), s.as_bytes())
    }

    /// The text of a symbol. Symbols from another interner give `"?"`.
    pub fn get(&self, sym: Sym) -> &str {
        if sym.index() >= self.ends.len() {
            return "?";
        }
        slice(&self.text, &self.ends, sym)
    }

    /// The text of an optional symbol, `""` for `None`.
    pub fn get_or_empty(&self, sym: Option<Sym>) -> &str {
        sym.map_or("", |s| self.get(s))
    }

    /// Interns every string of `other` here; returns, for each of `other`'s
    /// symbols (by [`Sym::index`]), the symbol of the same text in `self`.
    pub fn remap_from(&mut self, other: &Interner) -> Vec<Sym> {
        let mut start = 0;
        other
            .ends
            .iter()
            .map(|&end| {
                let s = other.text.get(start..end).unwrap_or("");
                start = end;
                self.intern(s)
            })
            .collect()
    }

    /// The symbol at position `i` in interning order (`None` past the end).
    pub fn lookup_index(&self, i: usize) -> Option<Sym> {
        (i < self.ends.len())
            .then(|| u32::try_from(i + 1).ok().and_then(NonZeroU32::new))
            .flatten()
            .map(Sym)
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when nothing has been interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// The text of `sym` in an interner's buffer (`""` when out of range).
fn slice<'t>(text: &'t str, ends: &[usize], sym: Sym) -> &'t str {
    let i = sym.index();
    let start = if i == 0 {
        0
    } else {
        ends.get(i - 1).copied().unwrap_or(0)
    };
    let end = ends.get(i).copied().unwrap_or(start);
    text.get(start..end).unwrap_or("")
}

/// What a log line says happened. Names follow the product's vocabulary
/// (`docs/semantics.md`); `ingest` maps each dialect's synonyms onto these.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    bitcode::Encode,
    bitcode::Decode,
)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A holder's acquire succeeded (SET NX won): a new hold starts.
    Acquired,
    /// An acquire attempt lost (the lock was taken).
    AcquireFailed,
    /// The holder (or its watchdog) extended the TTL.
    Renewed,
    /// The holder released the lock. `Detail::deleted == Some(false)` means the
    /// delete removed nothing.
    Released,
    /// The holder tried to release and the server refused (not owner, expired).
    ReleaseFailed,
    /// The holder learned that it had lost the lock.
    LockLost,
    /// Initial stock of a product was set.
    StockInitialized,
    /// A stock level was read.
    StockRead,
    /// Stock was decremented (a write).
    StockDeducted,
    /// An order was created (a sale).
    OrderCreated,
    /// A write was refused by storage (for example a stale fencing token); it
    /// is not a sale.
    WriteRejected,
    /// A Redis master failed over.
    Failover,
    /// Any other line that names a lock key and a holder (work in progress,
    /// such as "supplier page parsed"). It extends a believed window that has
    /// no release.
    Activity,
}

impl EventKind {
    /// The canonical snake_case name, as used in JSON and mapping files.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Acquired => "acquired",
            EventKind::AcquireFailed => "acquire_failed",
            EventKind::Renewed => "renewed",
            EventKind::Released => "released",
            EventKind::ReleaseFailed => "release_failed",
            EventKind::LockLost => "lock_lost",
            EventKind::StockInitialized => "stock_initialized",
            EventKind::StockRead => "stock_read",
            EventKind::StockDeducted => "stock_deducted",
            EventKind::OrderCreated => "order_created",
            EventKind::WriteRejected => "write_rejected",
            EventKind::Failover => "failover",
            EventKind::Activity => "activity",
        }
    }

    /// Parses a canonical name (the inverse of [`EventKind::as_str`]).
    pub fn from_canonical(s: &str) -> Option<EventKind> {
        EventKind::ALL.iter().copied().find(|k| k.as_str() == s)
    }

    /// Every kind, in declaration order.
    pub const ALL: [EventKind; 13] = [
        EventKind::Acquired,
        EventKind::AcquireFailed,
        EventKind::Renewed,
        EventKind::Released,
        EventKind::ReleaseFailed,
        EventKind::LockLost,
        EventKind::StockInitialized,
        EventKind::StockRead,
        EventKind::StockDeducted,
        EventKind::OrderCreated,
        EventKind::WriteRejected,
        EventKind::Failover,
        EventKind::Activity,
    ];

    /// True for the kinds that say what happened to a lock: acquire (or a
    /// failed one), renewal, release (or a failed one), lock lost.
    pub fn is_lock(self) -> bool {
        matches!(
            self,
            EventKind::Acquired
                | EventKind::AcquireFailed
                | EventKind::Renewed
                | EventKind::Released
                | EventKind::ReleaseFailed
                | EventKind::LockLost
        )
    }

    /// True for the stock and order kinds.
    pub fn is_business(self) -> bool {
        matches!(
            self,
            EventKind::StockInitialized
                | EventKind::StockRead
                | EventKind::StockDeducted
                | EventKind::OrderCreated
                | EventKind::WriteRejected
        )
    }
}

/// Where an event came from: index into [`LoadedLog::sources`] and the
/// 1-based line number (for a JSON array, the 1-based element number's first
/// line; for a MONITOR capture, the command's line).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    bitcode::Encode,
    bitcode::Decode,
)]
pub struct SourceRef {
    /// Index into [`LoadedLog::sources`].
    pub file: u16,
    /// 1-based line number in that file.
    pub line: u32,
}

/// Fields most lines do not carry: business numbers, release duration,
/// fencing token. An [`Event`] keeps them packed (see [`Event::detail`]);
/// this is the decoded, by-value form.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Detail {
    /// Product / SKU the line is about.
    pub product: Option<Sym>,
    /// Units in a deduction or order.
    pub quantity: Option<i64>,
    /// Stock level read or initialised.
    pub stock: Option<i64>,
    /// Stock before a deduction.
    pub stock_before: Option<i64>,
    /// Stock after a deduction.
    pub stock_after: Option<i64>,
    /// Order id.
    pub order_id: Option<Sym>,
    /// List price per unit, in the log's currency. Not the loss.
    pub unit_price: Option<f64>,
    /// Fencing token carried by an acquire or a write.
    pub fencing_token: Option<i64>,
    /// How long a release took, client side (`elapsed_ms`). A release line at
    /// time t with `elapsed_ms` e began at t - e.
    pub elapsed_ms: Option<f64>,
    /// Result of a delete: `Some(false)` when a release deleted nothing.
    pub deleted: Option<bool>,
    /// Free text of the line (`msg`/`message`), kept for tooltips.
    pub message: Option<Sym>,
}

/// One normalised log line.
///
/// Times are nanoseconds since the Unix epoch, UTC, as logged (per-host clock
/// offsets are applied by the analysis, not here).
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Time as logged, ns since the Unix epoch (UTC).
    pub at_ns: i64,
    /// What happened.
    pub kind: EventKind,
    /// The lock key, when the line names one.
    pub key: Option<Sym>,
    /// The holder (token / owner / client id).
    pub holder: Option<Sym>,
    /// Host or instance that logged the line.
    pub host: Option<Sym>,
    /// Thread or task that logged the line.
    pub thread: Option<Sym>,
    /// TTL in ms carried by the line (acquire, renewal), [`NO_TTL`] when
    /// absent or null, [`WIDE_TTL`] when it does not fit 32 bits (24.8
    /// days; the value is then packed after the detail). Read with
    /// [`Event::ttl_ms`] (4 bytes, not the 16 of an `Option<i64>`, so that
    /// the event is 56 bytes).
    ttl: i32,
    /// True when the outcome was inferred by replaying a MONITOR capture
    /// rather than logged by the application.
    pub inferred: bool,
    /// Where the line is.
    pub source: SourceRef,
    /// Which business / release fields are present (bits `D_*`); kept
    /// inline so that "has it a fencing token / was it deleted" needs no
    /// trip to the heap.
    detail_mask: u16,
    /// The present fields' values, packed by [`pack_detail`]. Read with
    /// [`Event::detail`].
    detail: Packed,
}

/// The stored value of an [`Event`] without TTL.
const NO_TTL: i32 = i32::MIN;

/// The stored value of an [`Event`] whose TTL does not fit an `i32`: the
/// value follows the packed detail (mask bit `D_TTL_WIDE`).
const WIDE_TTL: i32 = i32::MIN + 1;

/// Bytes of a packed detail kept inside the event: a sale line's needs ~10,
/// a release's 8 (its `elapsed_ms`).
const INLINE_DETAIL: usize = 14;

/// A detail's packed bytes: inline when they fit (no allocation), else
/// boxed twice so that the boxed variant is one thin pointer and the enum
/// stays 16 bytes.
#[derive(Clone, Debug, PartialEq)]
enum Packed {
    Inline { len: u8, bytes: [u8; INLINE_DETAIL] },
    Heap(Box<Box<[u8]>>),
}

impl Packed {
    const EMPTY: Packed = Packed::Inline {
        len: 0,
        bytes: [0; INLINE_DETAIL],
    };

    fn new(b: &[u8]) -> Packed {
        if b.len() <= INLINE_DETAIL {
            let mut bytes = [0; INLINE_DETAIL];
            bytes[..b.len()].copy_from_slice(b);
            Packed::Inline {
                len: b.len() as u8,
                bytes,
            }
        } else {
            Packed::Heap(Box::new(b.into()))
        }
    }

    fn as_slice(&self) -> &[u8] {
        match self {
            Packed::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Packed::Heap(b) => b,
        }
    }
}

impl Event {
    /// A bare event of `kind` at `at_ns` from `source`; other fields empty.
    pub fn new(at_ns: i64, kind: EventKind, source: SourceRef) -> Event {
        Event {
            at_ns,
            kind,
            key: None,
            holder: None,
            host: None,
            thread: None,
            ttl: NO_TTL,
            inferred: false,
            source,
            detail_mask: 0,
            detail: Packed::EMPTY,
        }
    }

    /// The business / release fields (all `None` when the line had none).
    /// Decodes the packed form: call once per use, not per field in a loop.
    pub fn detail(&self) -> Detail {
        if self.detail_mask & !D_TTL_WIDE == 0 {
            return Detail::default();
        }
        unpack_detail(self.detail_mask, self.detail.as_slice()).0
    }

    /// The TTL in ms the line carried (acquire, renewal); `None` when absent
    /// or null: an acquire without TTL is a `no_ttl` lock.
    pub fn ttl_ms(&self) -> Option<i64> {
        match self.ttl {
            NO_TTL => None,
            WIDE_TTL => Some(self.wide_ttl()),
            ttl => Some(i64::from(ttl)),
        }
    }

    /// The TTL packed after the detail (see [`WIDE_TTL`]).
    fn wide_ttl(&self) -> i64 {
        let b = self.detail.as_slice();
        let (_, mut at) = unpack_detail(self.detail_mask, b);
        get_zigzag(b, &mut at)
    }

    /// Sets the TTL in ms (`None`: no TTL). `Some(i64::MIN)`, a TTL no
    /// parser produces, reads back as `None`.
    pub fn set_ttl_ms(&mut self, ttl_ms: Option<i64>) {
        let was_wide = self.ttl == WIDE_TTL;
        let narrow = match ttl_ms {
            None | Some(i64::MIN) => Some(NO_TTL),
            Some(v) => i32::try_from(v).ok().filter(|&v| v > WIDE_TTL),
        };
        match narrow {
            Some(ttl) => {
                self.ttl = ttl;
                if was_wide {
                    self.repack(self.detail(), None);
                }
            }
            None => {
                self.ttl = WIDE_TTL;
                self.repack(self.detail(), ttl_ms);
            }
        }
    }

    /// Packs `d` and, when given, a wide TTL after it; keeps
    /// [`Event::holder_guessed`].
    fn repack(&mut self, d: Detail, wide_ttl: Option<i64>) {
        let flags = self.detail_mask & (D_HOLDER_GUESSED | D_SAYS_WROTE);
        (self.detail_mask, self.detail) = pack_detail(&d, wide_ttl);
        self.detail_mask |= flags;
    }

    /// True when the line carried any business / release field.
    pub fn has_detail(&self) -> bool {
        self.detail_mask & !(D_HOLDER_GUESSED | D_TTL_WIDE | D_SAYS_WROTE) != 0
    }

    /// True when the line's own event name says it wrote (`db_write`,
    /// `record_saved`, `row_updated`...) though it is none of the known
    /// kinds: with a fencing token it is a business write, as a stock
    /// deduction or an order is (`tests/fixtures/cases/README.md`,
    /// `fencing_violation`). Read from the inline mask alone.
    pub fn says_it_wrote(&self) -> bool {
        self.detail_mask & D_SAYS_WROTE != 0
    }

    /// Marks the line as one whose event says it wrote (see
    /// [`Event::says_it_wrote`]).
    pub fn set_says_it_wrote(&mut self, wrote: bool) {
        if wrote {
            self.detail_mask |= D_SAYS_WROTE;
        } else {
            self.detail_mask &= !D_SAYS_WROTE;
        }
    }

    /// True when this line is a business write, the only kind a fencing
    /// token is checked on: a stock deduction, an order, a write the
    /// storage refused, or a line whose event says it wrote. A lock
    /// operation carrying the token (acquire, renewal, release) is not a
    /// write (`tests/fixtures/cases/README.md`, `fencing_violation`).
    pub fn is_business_write(&self) -> bool {
        match self.kind {
            EventKind::StockDeducted | EventKind::OrderCreated | EventKind::WriteRejected => true,
            EventKind::Activity => self.says_it_wrote(),
            _ => false,
        }
    }

    /// The fencing token, without decoding the rest when there is none.
    pub fn fencing_token(&self) -> Option<i64> {
        if self.detail_mask & D_FENCING == 0 {
            return None;
        }
        self.detail().fencing_token
    }

    /// Whether a release deleted the key (`Some(false)`: it deleted
    /// nothing); read from the inline mask alone.
    pub fn deleted(&self) -> Option<bool> {
        (self.detail_mask & D_DELETED != 0).then_some(self.detail_mask & D_DELETED_TRUE != 0)
    }

    /// Replaces the business / release fields (an all-`None` detail stores
    /// nothing). Keeps [`Event::holder_guessed`].
    pub fn set_detail(&mut self, d: Detail) {
        let wide = (self.ttl == WIDE_TTL).then(|| self.wide_ttl());
        self.repack(d, wide);
    }

    /// True when the line did not say who its holder is and the ingest
    /// credited one by a default rule that the evidence could not confirm:
    /// a replayed MONITOR `DEL` whose sender the capture cannot tell is
    /// credited to the key's holder as its own release (docs/semantics.md
    /// §8). Read from the inline mask alone.
    pub fn holder_guessed(&self) -> bool {
        self.detail_mask & D_HOLDER_GUESSED != 0
    }

    /// Marks the holder as guessed (see [`Event::holder_guessed`]).
    pub fn set_holder_guessed(&mut self, guessed: bool) {
        if guessed {
            self.detail_mask |= D_HOLDER_GUESSED;
        } else {
            self.detail_mask &= !D_HOLDER_GUESSED;
        }
    }

    /// Changes the business / release fields in place: `f` gets the decoded
    /// detail and the result is packed again.
    pub fn update_detail(&mut self, f: impl FnOnce(&mut Detail)) {
        let mut d = self.detail();
        f(&mut d);
        self.set_detail(d);
    }
}

// Packed detail: a u16 mask of the present fields (bit i for the i-th field
// in `Detail` order; `deleted` uses bit 9 for present and bit 10 for its
// value), kept in the event, and the bytes of each present field in that
// order: symbols as LEB128, integers as zigzag LEB128, floats as 8
// little-endian bytes. A sale line's detail (product, quantity, stock
// before/after) packs into ~10 bytes instead of a boxed 136-byte struct; see
// docs/performance.md.
const D_PRODUCT: u16 = 1;
const D_QUANTITY: u16 = 1 << 1;
const D_STOCK: u16 = 1 << 2;
const D_STOCK_BEFORE: u16 = 1 << 3;
const D_STOCK_AFTER: u16 = 1 << 4;
const D_ORDER_ID: u16 = 1 << 5;
const D_UNIT_PRICE: u16 = 1 << 6;
const D_FENCING: u16 = 1 << 7;
const D_ELAPSED: u16 = 1 << 8;
const D_DELETED: u16 = 1 << 9;
const D_DELETED_TRUE: u16 = 1 << 10;
const D_MESSAGE: u16 = 1 << 11;
/// Not a field of [`Detail`]: [`Event::holder_guessed`], no bytes.
const D_HOLDER_GUESSED: u16 = 1 << 12;
/// A TTL beyond 32 bits follows the detail's fields (see [`WIDE_TTL`]).
const D_TTL_WIDE: u16 = 1 << 13;
/// Not a field of [`Detail`]: [`Event::says_it_wrote`], no bytes.
const D_SAYS_WROTE: u16 = 1 << 14;

fn put_uvarint(out: &mut smallvec::SmallVec<[u8; 96]>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_uvarint(b: &[u8], at: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    while let Some(&byte) = b.get(*at) {
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 || shift >= 63 {
            break;
        }
        shift += 7;
    }
    v
}

/// Packs `d` (and a TTL beyond 32 bits, after it) into its mask and bytes.
fn pack_detail(d: &Detail, wide_ttl: Option<i64>) -> (u16, Packed) {
    let mut mask = 0u16;
    // At most 3 symbols of 5 bytes, 6 integers of 10 and 2 floats of 8:
    // packed on the stack, as every event line is.
    let mut body = smallvec::SmallVec::<[u8; 96]>::new();
    type Body = smallvec::SmallVec<[u8; 96]>;
    let sym = |bit: u16, s: Option<Sym>, mask: &mut u16, body: &mut Body| {
        if let Some(s) = s {
            *mask |= bit;
            put_uvarint(body, u64::from(s.0.get()));
        }
    };
    let int = |bit: u16, v: Option<i64>, mask: &mut u16, body: &mut Body| {
        if let Some(v) = v {
            *mask |= bit;
            put_uvarint(body, ((v << 1) ^ (v >> 63)) as u64);
        }
    };
    let float = |bit: u16, v: Option<f64>, mask: &mut u16, body: &mut Body| {
        if let Some(v) = v {
            *mask |= bit;
            body.extend_from_slice(&v.to_le_bytes());
        }
    };
    sym(D_PRODUCT, d.product, &mut mask, &mut body);
    int(D_QUANTITY, d.quantity, &mut mask, &mut body);
    int(D_STOCK, d.stock, &mut mask, &mut body);
    int(D_STOCK_BEFORE, d.stock_before, &mut mask, &mut body);
    int(D_STOCK_AFTER, d.stock_after, &mut mask, &mut body);
    sym(D_ORDER_ID, d.order_id, &mut mask, &mut body);
    float(D_UNIT_PRICE, d.unit_price, &mut mask, &mut body);
    int(D_FENCING, d.fencing_token, &mut mask, &mut body);
    float(D_ELAPSED, d.elapsed_ms, &mut mask, &mut body);
    match d.deleted {
        Some(true) => mask |= D_DELETED | D_DELETED_TRUE,
        Some(false) => mask |= D_DELETED,
        None => {}
    }
    sym(D_MESSAGE, d.message, &mut mask, &mut body);
    int(D_TTL_WIDE, wide_ttl, &mut mask, &mut body);
    (mask, Packed::new(&body))
}

/// Reads a zigzag LEB128 integer at `at` (as [`pack_detail`] writes them).
fn get_zigzag(b: &[u8], at: &mut usize) -> i64 {
    let z = get_uvarint(b, at);
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

/// Decodes what [`pack_detail`] wrote, and where its fields end (a wide
/// TTL follows them).
fn unpack_detail(mask: u16, b: &[u8]) -> (Detail, usize) {
    let has = |bit: u16| mask & bit != 0;
    let sym = |bit: u16, at: &mut usize| {
        if !has(bit) {
            return None;
        }
        u32::try_from(get_uvarint(b, at))
            .ok()
            .and_then(NonZeroU32::new)
            .map(Sym)
    };
    let int = |bit: u16, at: &mut usize| has(bit).then(|| get_zigzag(b, at));
    let float = |bit: u16, at: &mut usize| {
        has(bit).then(|| {
            let mut x = [0u8; 8];
            if let Some(s) = b.get(*at..*at + 8) {
                x.copy_from_slice(s);
            }
            *at += 8;
            f64::from_le_bytes(x)
        })
    };
    let mut at = 0;
    // Fields are evaluated in the order written: the packing order.
    let d = Detail {
        product: sym(D_PRODUCT, &mut at),
        quantity: int(D_QUANTITY, &mut at),
        stock: int(D_STOCK, &mut at),
        stock_before: int(D_STOCK_BEFORE, &mut at),
        stock_after: int(D_STOCK_AFTER, &mut at),
        order_id: sym(D_ORDER_ID, &mut at),
        unit_price: float(D_UNIT_PRICE, &mut at),
        fencing_token: int(D_FENCING, &mut at),
        elapsed_ms: float(D_ELAPSED, &mut at),
        deleted: has(D_DELETED).then_some(has(D_DELETED_TRUE)),
        message: sym(D_MESSAGE, &mut at),
    };
    (d, at)
}

/// The container / dialect a source was read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, bitcode::Encode, bitcode::Decode)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    /// One JSON object per line.
    JsonLines,
    /// One JSON array of objects.
    JsonArray,
    /// Elasticsearch / OpenSearch search response (`hits.hits[]._source`).
    Elasticsearch,
    /// Grafana Loki export (logcli JSON lines or a `query_range` response).
    Loki,
    /// Alibaba Cloud SLS export (JSON).
    SlsJson,
    /// CSV with a header row (SLS console exports included).
    Csv,
    /// `key=value` lines.
    Logfmt,
    /// `redis-cli monitor` capture, replayed through the keyspace model.
    RedisMonitor,
    /// An XML export of events (Windows Event Log, log4j's XMLLayout).
    Xml,
    /// Plain-text lines: a runtime's prefix (kubectl, CRI, logcli,
    /// journald) and/or a Java layout (Spring Boot, Logback, Log4j2).
    Text,
    /// An infrastructure log (Redis server, Sentinel, GC, Kubernetes
    /// events, an operator's log) read as evidence, not lock events.
    Infrastructure,
    /// Nothing usable could be recognised.
    Unknown,
}

impl Dialect {
    /// The snake_case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::JsonLines => "json_lines",
            Dialect::JsonArray => "json_array",
            Dialect::Elasticsearch => "elasticsearch",
            Dialect::Loki => "loki",
            Dialect::SlsJson => "sls_json",
            Dialect::Csv => "csv",
            Dialect::Logfmt => "logfmt",
            Dialect::RedisMonitor => "redis_monitor",
            Dialect::Xml => "xml",
            Dialect::Text => "text",
            Dialect::Infrastructure => "infrastructure",
            Dialect::Unknown => "unknown",
        }
    }
}

/// What the importer learned about one input file.
#[derive(Clone, Debug, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct SourceInfo {
    /// Display name (the path as given).
    pub name: String,
    /// Size in bytes as read (after decompression).
    pub bytes: u64,
    /// Detected dialect.
    pub dialect: Dialect,
    /// Detected text encoding (`UTF-8`, `GB18030`, `UTF-16LE`, ...).
    pub encoding: String,
    /// True when the file was gzip-compressed.
    pub gzip: bool,
    /// True when the file was zstd-compressed.
    pub zstd: bool,
    /// Text layout of the lines (`Spring Boot`, `CRI pod log + JSON`...),
    /// for text logs and for application records found inside a field.
    pub layout: Option<String>,
    /// The field of the log service's record that held the application's
    /// own record (SLS `content`, Filebeat `message`...), when there was one.
    pub payload_field: Option<String>,
    /// The chosen time field's resolution as read (`s`, `ms`, `µs`, `ns`).
    pub time_resolution: Option<String>,
    /// Field names detection saw in the first records (at most 40), to say
    /// what a file holds when nothing could be read from it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields_seen: Vec<String>,
    /// Lock events (acquire, renewal, release, lock lost) loaded from this
    /// file.
    pub lock_events: u64,
    /// Infrastructure evidence items read from this file (a file read as
    /// evidence is readable without a lock event).
    #[serde(skip_serializing_if = "is_zero")]
    pub evidence_items: u64,
    /// Set when no event at all could be read from the file: what was
    /// recognised and what would make it readable. A file like this is an
    /// error (exit 2), never "no incident".
    pub unreadable: Option<String>,
    /// Field chosen for each role: (`time`, `ts`), (`holder`, `owner`), ...
    pub fields: Vec<(String, String)>,
    /// Notes on detection the user should see (ambiguous fields, assumed
    /// zone), each printable in English or Chinese.
    pub notes: Vec<SourceNote>,
    /// The readers' bids on the head of the file, best first: (reader,
    /// lock evidence found); the first read the file
    /// (`ingest::readers::contest`). Empty for sources not read from
    /// lines (a replayed capture).
    pub readers: Vec<(String, u32)>,
    /// Lines (or records) read.
    pub lines_read: u64,
    /// Events loaded from this file.
    pub events_loaded: u64,
    /// Lines that were readable but are not lock or business events.
    pub lines_skipped: u64,
    /// Lines that could not be read (each has a warning, possibly counted
    /// rather than kept, see [`Warnings`]).
    pub lines_warned: u64,
    /// True when times without an offset were read as UTC because no time
    /// zone was given (the notes say so too; the window points at the
    /// setting).
    #[serde(skip)]
    pub naive_read_as_utc: bool,
    /// True when no record carries a TTL field and no TTL was given for the
    /// file: its holds' TTL is unknown, not infinite (docs/semantics.md §3;
    /// the notes say how to give it).
    #[serde(skip)]
    pub ttl_unknown: bool,
    /// Lines warned because their time could not be read (for the hint of
    /// a file nothing was read from: the time's format, not the events).
    #[serde(skip)]
    pub times_unreadable: u64,
    /// Of those, times of day without a date (the hint is then the
    /// mapping's `date`).
    #[serde(skip)]
    pub times_of_day: u64,
    /// How the parallel path's reading plan read the file (`inspect`
    /// prints it); `None` when the general path read it.
    #[serde(skip)]
    pub plan: Option<PlanReport>,
}

/// The reading plan of a file read on the parallel path, as `inspect`
/// prints it (`ingest::assembly::plan`).
#[derive(Clone, Debug, Default, PartialEq, bitcode::Encode, bitcode::Decode)]
pub struct PlanReport {
    /// The plan's steps, one a line: each field with its role and slot,
    /// where the event kind comes from, how names are interned.
    pub steps: String,
    /// The time layout learned first (`YYYY-MM-DDTHH:MM:SS.fff+08:00`:
    /// the digits of the date and minute as letters), if any.
    pub layout: Option<String>,
    /// Lines whose time was read at fixed places by a learned layout.
    pub by_layout: u64,
}

impl SourceInfo {
    /// A source named `name` read as `dialect`, UTF-8, with zero counters.
    pub fn new(name: impl Into<String>, dialect: Dialect) -> SourceInfo {
        SourceInfo {
            name: name.into(),
            bytes: 0,
            dialect,
            encoding: "UTF-8".to_string(),
            gzip: false,
            zstd: false,
            layout: None,
            payload_field: None,
            time_resolution: None,
            fields_seen: Vec::new(),
            lock_events: 0,
            evidence_items: 0,
            unreadable: None,
            fields: Vec::new(),
            notes: Vec::new(),
            readers: Vec::new(),
            lines_read: 0,
            events_loaded: 0,
            lines_skipped: 0,
            lines_warned: 0,
            naive_read_as_utc: false,
            ttl_unknown: false,
            times_unreadable: 0,
            times_of_day: 0,
            plan: None,
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct Warning {
    /// Display name of the file.
    pub file: String,
    /// 1-based line number (0 when the problem concerns the whole file).
    pub line: u64,
    /// What was wrong, in either language.
    pub reason: WarningReason,
}

/// Warnings with bounded memory: the first [`Warnings::KEEP_PER_KIND`] of
/// each kind ([`WarningReason::kind`]) are kept in full, the rest are only
/// counted.
#[derive(Clone, Debug, Default)]
pub struct Warnings {
    kept: Vec<Warning>,
    per_kind: HashMap<WarningKind, u64>,
    total: u64,
}

impl Warnings {
    /// How many warnings of one kind are kept in full.
    pub const KEEP_PER_KIND: u64 = 1000;

    /// Records a warning, counted under its reason's kind.
    pub fn push(&mut self, warning: Warning) {
        self.total += 1;
        let n = self.per_kind.entry(warning.reason.kind()).or_insert(0);
        *n += 1;
        if *n <= Self::KEEP_PER_KIND {
            self.kept.push(warning);
        }
    }

    /// Appends warnings that came after these (the next chunk of the same
    /// file): the result is what pushing them one by one would have given,
    /// the first [`Warnings::KEEP_PER_KIND`] of each kind kept overall.
    pub fn append_in_order(&mut self, other: Warnings) {
        let mut kept_of: HashMap<WarningKind, u64> = HashMap::new();
        for w in other.kept {
            *kept_of.entry(w.reason.kind()).or_insert(0) += 1;
            self.push(w);
        }
        for (kind, n) in other.per_kind {
            let only_counted = n - kept_of.get(&kind).copied().unwrap_or(0);
            *self.per_kind.entry(kind).or_insert(0) += only_counted;
            self.total += only_counted;
        }
    }

    /// Adds `by` to the line number of every kept warning (a chunk read on
    /// its own, placed in its file).
    pub fn shift_lines(&mut self, by: u64) {
        for w in &mut self.kept {
            if w.line > 0 {
                w.line += by;
            }
        }
    }

    /// Warnings kept in full, in the order they were pushed.
    pub fn kept(&self) -> &[Warning] {
        &self.kept
    }

    /// All warnings, kept or only counted.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Warnings counted but not kept.
    pub fn dropped(&self) -> u64 {
        self.total - self.kept.len() as u64
    }

    /// Appends another list (used when merging per-file results).
    pub fn extend(&mut self, other: Warnings) {
        for (kind, n) in other.per_kind {
            *self.per_kind.entry(kind).or_insert(0) += n;
        }
        self.total += other.total;
        self.kept.extend(other.kept);
    }
}

/// Everything loaded from a set of files: sorted events plus the tables they
/// point into. Immutable once built.
#[derive(Clone, Debug, Default)]
pub struct LoadedLog {
    /// Events sorted by (`at_ns`, file, line): stable and deterministic.
    pub events: Vec<Event>,
    /// String table for every [`Sym`] in `events`.
    pub strings: Interner,
    /// One entry per input file, in the order given.
    pub sources: Vec<SourceInfo>,
    /// Unreadable lines.
    pub warnings: Warnings,
    /// UTC offset (seconds) to display times in: the first explicit offset
    /// seen in the input, else the `--tz` zone, else 0.
    pub display_offset_s: i32,
    /// Infrastructure evidence (server, Sentinel, GC, Kubernetes, operator
    /// logs), sorted by time; not events (docs/semantics.md §11).
    pub evidence: Vec<Evidence>,
}

impl LoadedLog {
    /// True when `pred` holds for some event: a look on the pool from
    /// [`PARALLEL_MIN`] events (a serial pass over 10 M events is 0.02 s
    /// of one core), on this thread below.
    pub fn any_event(&self, pred: impl Fn(&Event) -> bool + Sync + Send) -> bool {
        if self.events.len() >= PARALLEL_MIN {
            use rayon::prelude::*;
            self.events.par_iter().any(pred)
        } else {
            self.events.iter().any(pred)
        }
    }

    /// Display name of a source.
    pub fn source_name(&self, s: SourceRef) -> &str {
        self.sources
            .get(s.file as usize)
            .map_or("?", |info| info.name.as_str())
    }
}

/// Below this many events (or records) work stays on the calling thread:
/// waking the rayon pool costs more than a small input takes, and on a busy
/// machine the wait for a worker thread dominates.
pub(crate) const PARALLEL_MIN: usize = 1 << 14;

/// What [`LogBuilder::finish`] needs to know of the events' order, found
/// in one pass over them: the pass is memory bound (about 0.02 s of one
/// core at 10 M events), so each extra pass costs as much again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OrderFacts {
    /// Each file's events form one run (no file comes back later) with
    /// strictly increasing lines: (file, line) is unique.
    one_per_line: bool,
    /// Already in (time, file, line) order.
    sorted: bool,
}

impl OrderFacts {
    fn of(events: &[Event]) -> OrderFacts {
        let mut facts = OrderFacts {
            one_per_line: true,
            sorted: true,
        };
        let mut seen = std::collections::HashSet::new();
        if let Some(first) = events.first() {
            seen.insert(first.source.file);
        }
        for w in events.windows(2) {
            let (a, b) = (&w[0].source, &w[1].source);
            facts.sorted &= (w[0].at_ns, a.file, a.line) <= (w[1].at_ns, b.file, b.line);
            facts.one_per_line &= if a.file == b.file {
                a.line < b.line
            } else {
                seen.insert(b.file)
            };
        }
        facts
    }
}

/// Accumulates events from one or more sources, then sorts them into a
/// [`LoadedLog`].
#[derive(Debug, Default)]
pub struct LogBuilder {
    /// The log being built; `events` is unsorted until [`LogBuilder::finish`].
    pub log: LoadedLog,
    display_offset_set: bool,
}

impl LogBuilder {
    /// An empty builder.
    pub fn new() -> LogBuilder {
        LogBuilder::default()
    }

    /// Registers a source and returns its index for [`SourceRef::file`].
    pub fn add_source(&mut self, info: SourceInfo) -> u16 {
        self.log.sources.push(info);
        u16::try_from(self.log.sources.len() - 1).unwrap_or(u16::MAX)
    }

    /// Interns a string.
    pub fn intern(&mut self, s: &str) -> Sym {
        self.log.strings.intern(s)
    }

    /// Interns bytes as text ([`Interner::intern_bytes`]).
    pub fn intern_bytes(&mut self, b: &[u8]) -> Sym {
        self.log.strings.intern_bytes(b)
    }

    /// Adds an event.
    pub fn push(&mut self, event: Event) {
        self.log.events.push(event);
    }

    /// Notes the UTC offset of a parsed timestamp; the first one wins.
    pub fn saw_offset(&mut self, offset_s: i32) {
        if !self.display_offset_set {
            self.log.display_offset_s = offset_s;
            self.display_offset_set = true;
        }
    }

    /// The first explicit UTC offset noted with [`LogBuilder::saw_offset`].
    pub fn first_offset(&self) -> Option<i32> {
        self.display_offset_set.then_some(self.log.display_offset_s)
    }

    /// Records a warning about `line` of `file` (0: the whole file).
    pub fn warn(&mut self, file: &str, line: u64, reason: impl Into<WarningReason>) {
        self.log.warnings.push(Warning {
            file: file.to_string(),
            line,
            reason: reason.into(),
        });
    }

    /// Sorts events by (time, file, line) and returns the log.
    ///
    /// When (file, line) is unique, as it is when each line gives at most one
    /// event, an in-place unstable sort gives the same order as a stable one,
    /// without its buffer of half the events. Uniqueness is checked: events
    /// arrive file by file with strictly increasing lines. Events already in
    /// order (a log written in time order, read alone) are not sorted at
    /// all: either sort would leave them as they are.
    pub fn finish(mut self) -> LoadedLog {
        let key = |e: &Event| (e.at_ns, e.source.file, e.source.line);
        let OrderFacts {
            one_per_line,
            sorted,
        } = OrderFacts::of(&self.log.events);
        // Keys are unique when each line gives one event, so an unstable sort
        // gives the same order; below `PARALLEL_MIN` events, handing the sort
        // to the thread pool costs more than it saves.
        let events = &mut self.log.events;
        match (sorted, one_per_line) {
            (true, _) => {}
            (false, true) if events.len() >= PARALLEL_MIN => {
                rayon::slice::ParallelSliceMut::par_sort_unstable_by_key(&mut events[..], key);
            }
            (false, true) => events.sort_unstable_by_key(key),
            (false, false) => events.sort_by_key(key),
        }
        self.log
            .evidence
            .sort_by_key(|e| (e.at_ns, e.source.file, e.source.line));
        self.log
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn any_sym() -> impl Strategy<Value = Option<Sym>> {
        proptest::option::of(any::<NonZeroU32>().prop_map(Sym))
    }

    fn any_detail() -> impl Strategy<Value = Detail> {
        let ints = proptest::array::uniform5(proptest::option::of(any::<i64>()));
        let floats = proptest::array::uniform2(proptest::option::of(
            any::<f64>().prop_filter("NaN never equals itself", |f| !f.is_nan()),
        ));
        (
            (any_sym(), any_sym(), any_sym()),
            ints,
            floats,
            proptest::option::of(any::<bool>()),
        )
            .prop_map(|((product, order_id, message), i, f, deleted)| Detail {
                product,
                quantity: i[0],
                stock: i[1],
                stock_before: i[2],
                stock_after: i[3],
                order_id,
                unit_price: f[0],
                fencing_token: i[4],
                elapsed_ms: f[1],
                deleted,
                message,
            })
    }

    /// `any_event` answers alike on the pool (from `PARALLEL_MIN` events)
    /// and on this thread.
    #[test]
    fn any_event_answers_alike_on_both_sides_of_the_pool_threshold() {
        for n in [3, PARALLEL_MIN + 1] {
            let mut log = LoadedLog {
                events: (0..n)
                    .map(|i| {
                        Event::new(
                            i as i64,
                            EventKind::Acquired,
                            SourceRef {
                                file: 0,
                                line: i as u32 + 1,
                            },
                        )
                    })
                    .collect(),
                ..LoadedLog::default()
            };
            assert!(!log.any_event(|e| e.inferred), "{n}");
            if let Some(last) = log.events.last_mut() {
                last.inferred = true;
            }
            assert!(log.any_event(|e| e.inferred), "{n}");
        }
    }

    proptest! {
        /// The one pass of [`OrderFacts`] says what two separate checks
        /// say (lines strictly rising within a file, each file one run),
        /// and whether a stable sort would change anything; `finish` gives
        /// the stable sort's order either way.
        #[test]
        fn order_facts_match_the_two_separate_checks(
            at in proptest::collection::vec((0i64..4, 0u16..3, 0u32..5), 0..12)
        ) {
            let events: Vec<Event> = at
                .iter()
                .map(|&(t, file, line)| Event::new(t, EventKind::Acquired, SourceRef { file, line }))
                .collect();
            let strictly = events.windows(2).all(|w| {
                w[0].source.file != w[1].source.file || w[0].source.line < w[1].source.line
            });
            let mut seen = std::collections::HashSet::new();
            let mut last = None;
            let runs = events.iter().all(|e| {
                let fresh = last == Some(e.source.file) || seen.insert(e.source.file);
                last = Some(e.source.file);
                fresh
            });
            let key = |e: &Event| (e.at_ns, e.source.file, e.source.line);
            let mut stable = events.clone();
            stable.sort_by_key(key);
            let facts = OrderFacts::of(&events);
            prop_assert_eq!(facts.one_per_line, strictly && runs);
            prop_assert_eq!(facts.sorted, stable == events);
            let mut b = LogBuilder::new();
            b.log.events = events;
            let finished: Vec<_> = b.finish().events.iter().map(key).collect();
            prop_assert_eq!(finished, stable.iter().map(key).collect::<Vec<_>>());
        }

        #[test]
        fn packed_detail_round_trips(d in any_detail()) {
            let mut e = Event::new(0, EventKind::StockDeducted, SourceRef { file: 0, line: 1 });
            e.set_detail(d);
            prop_assert_eq!(e.detail(), d);
            prop_assert_eq!(e.has_detail(), d != Detail::default());
            prop_assert_eq!(e.deleted(), d.deleted);
            prop_assert_eq!(e.fencing_token(), d.fencing_token);
        }

        /// Any TTL reads back as set, whether it fits the event's 32 bits
        /// or follows the detail, in either order with the detail and the
        /// guessed-holder mark, and the detail is unchanged by it.
        #[test]
        fn every_ttl_round_trips_beside_the_detail(
            d in any_detail(),
            ttl in prop_oneof![
                Just(None),
                (-3_000_000_000i64..3_000_000_000).prop_map(Some),
                any::<i64>().prop_map(Some),
                prop_oneof![
                    Just(i64::from(i32::MIN)),
                    Just(i64::from(i32::MIN) + 1),
                    Just(i64::from(i32::MAX)),
                    Just(i64::MAX),
                    Just(i64::MIN + 1),
                ].prop_map(Some),
            ],
            guessed in any::<bool>(),
            detail_first in any::<bool>(),
        ) {
            let mut e = Event::new(0, EventKind::Acquired, SourceRef { file: 0, line: 1 });
            e.set_holder_guessed(guessed);
            if detail_first {
                e.set_detail(d);
                e.set_ttl_ms(ttl);
            } else {
                e.set_ttl_ms(ttl);
                e.set_detail(d);
            }
            let want = ttl.filter(|&t| t != i64::MIN);
            prop_assert_eq!(e.ttl_ms(), want);
            prop_assert_eq!(e.detail(), d);
            prop_assert_eq!(e.has_detail(), d != Detail::default());
            prop_assert_eq!(e.holder_guessed(), guessed);
            prop_assert_eq!(e.fencing_token(), d.fencing_token);
            // Back to a narrow TTL (or none): the wide value is dropped.
            e.set_ttl_ms(Some(2000));
            prop_assert_eq!(e.ttl_ms(), Some(2000));
            prop_assert_eq!(e.detail(), d);
            prop_assert_eq!(e.detail_mask & D_TTL_WIDE, 0);
        }
    }

    #[test]
    fn a_sale_lines_detail_packs_small() {
        let d = Detail {
            product: Some(Sym(NonZeroU32::new(70_000).expect("non-zero"))),
            quantity: Some(1),
            stock_before: Some(1_000_000),
            stock_after: Some(999_999),
            ..Detail::default()
        };
        let (mask, packed) = pack_detail(&d, None);
        // product 3 + quantity 1 + 2 x 3-byte zigzag varints, inline.
        assert!(matches!(packed, Packed::Inline { len: 10, .. }));
        assert_eq!(unpack_detail(mask, packed.as_slice()).0, d);
        assert_eq!(pack_detail(&Detail::default(), None), (0, Packed::EMPTY));
        // Every field present does not fit inline.
        let full = Detail {
            unit_price: Some(199.0),
            elapsed_ms: Some(2.5),
            order_id: d.product,
            ..d
        };
        let (mask, packed) = pack_detail(&full, None);
        assert!(matches!(packed, Packed::Heap(_)));
        assert_eq!(unpack_detail(mask, packed.as_slice()).0, full);
        // The layout the 10 M-event budget counts on (docs/performance.md).
        assert_eq!(std::mem::size_of::<Packed>(), 16);
        assert_eq!(std::mem::size_of::<Event>(), 56);
        let mut e = Event::new(0, EventKind::Released, SourceRef { file: 0, line: 1 });
        e.set_detail(Detail {
            deleted: Some(false),
            ..Detail::default()
        });
        assert_eq!((e.deleted(), e.fencing_token()), (Some(false), None));
        assert!(e.has_detail() && e.detail.as_slice().is_empty());
        e.set_ttl_ms(Some(0));
        assert_eq!(e.ttl_ms(), Some(0));
        e.set_ttl_ms(None);
        assert_eq!(e.ttl_ms(), None);
    }

    #[test]
    fn a_guessed_holder_survives_detail_changes() {
        let mut e = Event::new(0, EventKind::Released, SourceRef { file: 0, line: 1 });
        assert!(!e.holder_guessed());
        e.set_holder_guessed(true);
        e.update_detail(|d| d.deleted = Some(true));
        assert!(e.holder_guessed());
        assert_eq!(e.deleted(), Some(true));
        assert_eq!(e.detail().deleted, Some(true));
        e.set_detail(Detail::default());
        assert!(e.holder_guessed() && e.detail() == Detail::default());
        e.set_holder_guessed(false);
        assert!(!e.holder_guessed() && !e.has_detail());
    }

    #[test]
    fn interner_dedups_and_resolves() {
        let mut i = Interner::default();
        let a = i.intern("lock:a");
        let b = i.intern("lock:b");
        assert_ne!(a, b);
        assert_eq!(i.intern("lock:a"), a);
        assert_eq!(i.get(b), "lock:b");
        assert_eq!(i.len(), 2);
        assert_eq!(std::mem::size_of::<Option<Sym>>(), 4);
    }

    #[test]
    fn an_interner_from_its_parts_is_the_one_interning_made() {
        let words = ["lock:a", "", "h-1", "订单", "h-2", "lock:b"];
        let mut made = Interner::default();
        let syms: Vec<Sym> = words.iter().map(|w| made.intern(w)).collect();
        let (text, ends) = (made.text.clone(), made.ends.clone());
        let back = Interner::from_parts(text.clone(), ends.clone()).expect("sound");
        for (w, &sym) in words.iter().zip(&syms) {
            assert_eq!(back.lookup(w), Some(sym), "{w}");
            assert_eq!(back.get(sym), *w);
        }
        let mut grown = back.clone();
        assert_eq!(grown.intern("lock:a"), syms[0]);
        assert_eq!(grown.intern("new").index(), words.len());
        // A string twice, ends out of order or off the text are refused.
        let mut twice = ends.clone();
        twice.push(text.len() + 6);
        let err = Interner::from_parts(format!("{text}lock:a"), twice).expect_err("twice");
        assert!(err.contains("twice"), "{err}");
        let mut swapped = ends.clone();
        swapped.swap(2, 3);
        assert!(Interner::from_parts(text.clone(), swapped).is_err());
        assert!(Interner::from_parts(format!("{text}x"), ends.clone()).is_err());
        // Inside a character.
        let mut cut = ends;
        cut[3] -= 1;
        assert!(Interner::from_parts(text, cut).is_err());
    }

    #[test]
    fn interning_bytes_finds_the_same_symbols() {
        let mut i = Interner::default();
        let a = i.intern("lock:a");
        assert_eq!(i.intern_bytes(b"lock:a"), a);
        let t = i.intern_bytes(b"token-1");
        assert_eq!(i.intern("token-1"), t);
        assert_eq!(
            i.intern_bytes("caf\u{e9}".as_bytes()),
            i.intern("caf\u{e9}")
        );
        // Invalid UTF-8 is interned as its lossy text, once.
        let bad = i.intern_bytes(b"a\xffb");
        assert_eq!(i.get(bad), "a\u{fffd}b");
        assert_eq!(i.intern_bytes(b"a\xffb"), bad);
        assert_eq!(i.intern("a\u{fffd}b"), bad);
        assert_eq!(i.len(), 4);
    }

    #[test]
    fn warnings_keep_first_n_per_kind_and_count_the_rest() {
        let mut w = Warnings::default();
        for n in 0..(Warnings::KEEP_PER_KIND + 5) {
            w.push(Warning {
                file: "f".into(),
                line: n,
                reason: RecordWarning::NotJsonObject.into(),
            });
        }
        w.push(Warning {
            file: "f".into(),
            line: 1,
            reason: FieldWarning::NoTimeField.into(),
        });
        assert_eq!(w.total(), Warnings::KEEP_PER_KIND + 6);
        assert_eq!(w.kept().len() as u64, Warnings::KEEP_PER_KIND + 1);
        assert_eq!(w.dropped(), 5);
    }

    #[test]
    fn builder_sorts_by_time_then_source() {
        let mut b = LogBuilder::new();
        b.push(Event::new(
            20,
            EventKind::Released,
            SourceRef { file: 0, line: 1 },
        ));
        b.push(Event::new(
            10,
            EventKind::Acquired,
            SourceRef { file: 0, line: 3 },
        ));
        b.push(Event::new(
            10,
            EventKind::Acquired,
            SourceRef { file: 0, line: 2 },
        ));
        let log = b.finish();
        let lines: Vec<u32> = log.events.iter().map(|e| e.source.line).collect();
        assert_eq!(lines, vec![2, 3, 1]);
    }
}

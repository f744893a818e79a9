//! A message's event beyond the phrase list: its leading words read like an
//! event name (`unlock success`, `release lock`, `lock.unlock()`), and an
//! outcome pair deciding an acquire (`tryLock ... locked=false`). Without
//! them, Spring Boot lines `unlock success key=...` read as work of the
//! holder, not its release (a false incident), and `tryLock ...
//! locked=false` as a successful acquire (the phrase `locked` matches the
//! pair's name). Also the level words a line may carry
//! ([`is_level`]).

use super::events::{NOT_YET, family_words, lock_word};
use crate::model::EventKind;
use std::borrow::Cow;

/// Most words a message's head may have to be read as an event name: a
/// longer sentence is left to the phrases (`family_words` reads at most four).
const MAX_HEAD_WORDS: usize = 4;

/// The leading words of `msg`: up to its first `name=value` pair, and up to
/// and including a word that ends in `:`, `,` or `;` (that punctuation
/// dropped). `None` past [`MAX_HEAD_WORDS`] words or when empty.
pub(crate) fn head(msg: &str) -> Option<&str> {
    let b = msg.as_bytes();
    let blank = |c: u8| c == b' ' || c == b'\t';
    let mut i = 0;
    while i < b.len() && blank(b[i]) {
        i += 1;
    }
    let start = i;
    let mut end = start;
    let mut words = 0;
    while i < b.len() {
        let w = i;
        while i < b.len() && !blank(b[i]) {
            if b[i] == b'=' {
                return (end > start).then(|| &msg[start..end]);
            }
            i += 1;
        }
        let word = &msg[w..i];
        if word.contains('：') {
            break;
        }
        words += 1;
        if words > MAX_HEAD_WORDS {
            return None;
        }
        let trimmed = word.trim_end_matches([':', ',', ';', '.']);
        end = w + trimmed.len();
        if trimmed.len() < word.len() {
            break;
        }
        while i < b.len() && blank(b[i]) {
            i += 1;
        }
    }
    (end > start).then(|| &msg[start..end])
}

/// The kind a message's head ([`head`], in normal form:
/// [`super::events::normalize_camel`]) names, read as an event name is
/// (the English names, then the families of stems), for a lock event only
/// when its words say lock: a lock word (`lock`, `mutex`, `lease`...) or an
/// acquire or release verb (`acq...`, `unlock...`, `releas...`); a renewal
/// word alone (`refresh token`) is no lock's. Stock and order words stand on
/// their own. An attempt's head (`tryLock`) names no kind.
pub(crate) fn head_kind_of(buf: &str) -> Option<EventKind> {
    let kind = family_words(buf)?;
    let toks = || buf.split('_');
    let lockish = toks().any(|t| {
        lock_word(t) || t.starts_with("acq") || t.starts_with("unlock") || t.starts_with("releas")
    });
    match kind {
        EventKind::StockInitialized
        | EventKind::StockRead
        | EventKind::StockDeducted
        | EventKind::OrderCreated => Some(kind),
        _ if lockish => Some(kind),
        _ => None,
    }
}

/// True when a message's head (in normal form) is an attempt at a lock
/// (`tryLock`, `try acquire lock`, `attempting to lock`): an attempt word and a lock or
/// acquire word. Such a line is an acquire or a failed one by its outcome
/// pair ([`outcome`]).
pub(crate) fn head_is_attempt_of(buf: &str) -> bool {
    let toks = || buf.split('_');
    toks().any(|t| NOT_YET.contains(&t))
        && toks().any(|t| lock_word(t) || t.starts_with("acq") || t == "locked")
}

/// True for a pair's name that says whether an acquire succeeded: its
/// letters and digits, lowercase, one of `locked`, `islocked`, `acquired`,
/// `isacquired`, `success`, `succeeded`, `successful`, `ok`, `result`,
/// `lockresult`, `acquireresult`, `gotlock`, `obtained` (`is_locked`,
/// `isLocked` and `islocked` are one). No allocation: it runs on every pair
/// of every acquire line.
fn outcome_name(name: &str) -> bool {
    let mut buf = [0u8; 16];
    let mut n = 0;
    for c in name.bytes().filter(u8::is_ascii_alphanumeric) {
        if n == buf.len() {
            return false;
        }
        buf[n] = c.to_ascii_lowercase();
        n += 1;
    }
    matches!(
        &buf[..n],
        b"locked"
            | b"islocked"
            | b"acquired"
            | b"isacquired"
            | b"success"
            | b"succeeded"
            | b"successful"
            | b"ok"
            | b"result"
            | b"lockresult"
            | b"acquireresult"
            | b"gotlock"
            | b"obtained"
    )
}

/// What an outcome pair of a message says about an acquire: `true` for
/// `locked=true`, `acquired=1`, `result=OK` (Redis' reply to a `SET NX` that
/// set), `false` for `locked=false`, `success=0`, `result=nil` (the reply
/// when the key was there). `None` without such a pair, or when its value
/// is neither.
pub(crate) fn outcome(pairs: &[(&str, Cow<'_, str>)]) -> Option<bool> {
    pairs.iter().find_map(|(name, value)| {
        if name.len() > 24 || !outcome_name(name) {
            return None;
        }
        let v = value.trim();
        let is = |words: &[&str]| words.iter().any(|w| v.eq_ignore_ascii_case(w));
        if is(&["true", "yes", "ok", "success", "succeeded", "1"]) {
            Some(true)
        } else if is(&[
            "false", "no", "nil", "(nil)", "null", "none", "fail", "failed", "0",
        ]) {
            Some(false)
        } else {
            None
        }
    })
}

/// The kind of an acquire-like message once its outcome pair is read: an
/// acquire (or an attempt, [`head_is_attempt_of`]) that says it failed is a
/// failed acquire, an attempt that says it succeeded is an acquire; every
/// other kind is kept.
pub(crate) fn with_outcome(
    kind: Option<EventKind>,
    attempt: bool,
    outcome: Option<bool>,
) -> Option<EventKind> {
    match (kind, outcome) {
        (Some(EventKind::Acquired), Some(false)) => Some(EventKind::AcquireFailed),
        (None, Some(true)) if attempt => Some(EventKind::Acquired),
        (None, Some(false)) if attempt => Some(EventKind::AcquireFailed),
        (k, _) => k,
    }
}

/// True for the level words of common logging libraries.
pub(crate) fn is_level(w: &str) -> bool {
    matches!(
        w,
        "TRACE"
            | "DEBUG"
            | "INFO"
            | "WARN"
            | "WARNING"
            | "ERROR"
            | "FATAL"
            | "SEVERE"
            | "NOTICE"
            | "CRITICAL"
            | "trace"
            | "debug"
            | "info"
            | "warn"
            | "warning"
            | "error"
            | "fatal"
            | "I"
            | "W"
            | "E"
            | "D"
    )
}

#[cfg(test)]
mod tests {
    use super::super::events::normalize_camel;
    use super::*;
    use crate::model::EventKind::*;

    /// [`head_kind_of`] of `msg`'s head.
    fn head_kind(msg: &str, buf: &mut String) -> Option<EventKind> {
        normalize_camel(head(msg)?, buf);
        head_kind_of(buf)
    }

    /// [`head_is_attempt_of`] of `msg`'s head.
    fn head_is_attempt(msg: &str, buf: &mut String) -> bool {
        head(msg).is_some_and(|h| {
            normalize_camel(h, buf);
            head_is_attempt_of(buf)
        })
    }

    #[test]
    fn a_message_head_is_its_words_before_the_pairs() {
        assert_eq!(head("unlock success key=a owner=b"), Some("unlock success"));
        assert_eq!(head("Lock released: key=a"), Some("Lock released"));
        assert_eq!(head("  lock.unlock() key=a"), Some("lock.unlock()"));
        assert_eq!(head("tryLock key=a locked=false"), Some("tryLock"));
        assert_eq!(head("key=a unlock"), None);
        assert_eq!(
            head("the request for the page took too long key=a"),
            None,
            "a sentence is left to the phrases"
        );
    }

    #[test]
    fn heads_name_lock_events_only_with_a_lock_word() {
        let mut buf = String::new();
        for (msg, want) in [
            // Spring Boot and Go lines.
            ("unlock success key=lock:sku:1 owner=a", Some(Released)),
            ("release lock key=lock:sku:1", Some(Released)),
            ("lock.unlock() key=lock:sku:1", Some(Released)),
            ("unlock key=lock:sku:1 owner=a", Some(Released)),
            ("del lock key=lock:sku:1 result=1", Some(Released)),
            ("acquire ok key=a", Some(Acquired)),
            ("unlock error key=a", Some(ReleaseFailed)),
            ("stock deduct sku=1", Some(StockDeducted)),
            // No lock word: a token's refresh is no renewal.
            ("refresh token user=a", None),
            ("tryLock key=a locked=true", None),
            ("user logged in", None),
        ] {
            assert_eq!(head_kind(msg, &mut buf), want, "{msg}");
        }
    }

    #[test]
    fn an_outcome_pair_decides_an_acquire() {
        let mut buf = String::new();
        // The message's `key=value` words as pairs (what the text reader's
        // `message_pairs` gives for these).
        let pairs = |s: &'static str| -> Vec<(&str, Cow<'_, str>)> {
            s.split_whitespace()
                .filter_map(|w| w.split_once('='))
                .map(|(k, v)| (k, Cow::Borrowed(v)))
                .collect()
        };
        let msg = "tryLock key=a owner=b leaseTime=2000ms locked=false";
        assert!(head_is_attempt(msg, &mut buf));
        assert_eq!(outcome(&pairs(msg)), Some(false));
        assert_eq!(with_outcome(None, true, Some(false)), Some(AcquireFailed));
        assert_eq!(with_outcome(None, true, Some(true)), Some(Acquired));
        assert_eq!(
            with_outcome(Some(Acquired), false, Some(false)),
            Some(AcquireFailed)
        );
        assert_eq!(outcome(&pairs("SET NX key=a result=nil")), Some(false));
        assert_eq!(outcome(&pairs("SET NX key=a result=OK")), Some(true));
        assert_eq!(outcome(&pairs("acquire key=a owner=b")), None);
        assert_eq!(outcome(&pairs("tryLock key=a isLocked=true")), Some(true));
        // No outcome: an attempt stays no event, a release stays one.
        assert_eq!(with_outcome(None, true, None), None);
        assert_eq!(
            with_outcome(Some(Released), false, Some(false)),
            Some(Released)
        );
        assert!(!head_is_attempt("unlock key=a", &mut buf));
    }
}

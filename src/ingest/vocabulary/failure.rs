//! The few closed-class words that turn a step into its failed form, in
//! several languages: negations and failure words. Unlike event names, they
//! do not change between libraries: a library invents its own word for
//! "acquired", not for "failed" or "not". Used by the event vocabulary (a
//! known verb under a negation is its failed form) and by the roles chosen
//! by the protocol (`roles/protocol/`); the values of a step's outcome
//! field (`"ok": false`) read with them.

/// Whole words (ASCII, compared lower-case) that mark a failure or a
/// negation.
const FAILURE_WORDS: &[&str] = &[
    // English
    "fail",
    "failed",
    "fails",
    "failure",
    "failing",
    "error",
    "errored",
    "unable",
    "cannot",
    "can't",
    "cant",
    "couldn't",
    "couldnt",
    "could",
    "not",
    "no",
    "never",
    "denied",
    "refused",
    "rejected",
    "timeout",
    "timed",
    "busy",
    "mismatch",
    "conflict",
    "unsuccessful",
    "didn't",
    "didnt",
    "wasn't",
    "isn't",
    "won't",
    "without",
    // German, French, Spanish, Portuguese, Italian, Dutch
    "nicht",
    "kein",
    "keine",
    "fehler",
    "fehlgeschlagen",
    "echec",
    "échec",
    "impossible",
    "pas",
    "erreur",
    "fallo",
    "falló",
    "fallido",
    "fallida",
    "nao",
    "não",
    "falha",
    "falhou",
    "errore",
    "fallito",
    "niet",
    "mislukt",
    // Russian
    "не",
    "ошибка",
    "неудача",
    "нет",
];

/// Substrings (CJK: no word boundaries) that mark a failure or a negation.
const FAILURE_MARKS: &[&str] = &[
    "失败",
    "没",
    "未",
    "不",
    "无法",
    "错误",
    "异常",
    "超时",
    "拒绝",
    "冲突",
    "易主",
    "失敗",
    "できない",
    "できません",
    "ません",
    "エラー",
    "실패",
    "못",
    "않",
    "오류",
];

/// Words of a lock lost while held (`lost`, `丢失`).
const LOST_WORDS: &[&str] = &["lost", "verloren", "perdu", "perdido", "perso"];
const LOST_MARKS: &[&str] = &["丢失", "失去", "失った"];

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// True when `text` says something failed or did not happen ("could not
/// grab the lock", "没抢到锁", "at release the lock had changed owner").
pub fn says_failure(text: &str) -> bool {
    words(text).any(|w| FAILURE_WORDS.contains(&w.as_str()))
        || FAILURE_MARKS.iter().any(|m| text.contains(m))
}

/// True when `text` says a lock was lost.
pub fn says_lost(text: &str) -> bool {
    words(text).any(|w| LOST_WORDS.contains(&w.as_str()))
        || LOST_MARKS.iter().any(|m| text.contains(m))
}

/// `kind` as `text` says it happened: a success under a failure or a
/// negation word is its failed form ("lease was not obtained" is no
/// acquire, "没抢到锁" no grab, "mutex was not handed back" no release); a
/// renewal that says it failed renewed nothing.
pub fn negated(kind: crate::model::EventKind, text: &str) -> Option<crate::model::EventKind> {
    use crate::model::EventKind::*;
    if !says_failure(text) {
        return Some(kind);
    }
    match kind {
        Acquired => Some(AcquireFailed),
        Released => Some(ReleaseFailed),
        Renewed => None,
        k => Some(k),
    }
}

/// Values of an outcome field that say a step succeeded.
const SUCCESS_VALUES: &[&str] = &[
    "true",
    "yes",
    "y",
    "t",
    "ok",
    "success",
    "succeeded",
    "successful",
    "done",
    "pass",
    "passed",
    "成功",
];

/// Values of an outcome field that say a step did nothing: a false, a
/// Redis null reply (`SET NX` that lost), an empty answer.
const NOTHING_VALUES: &[&str] = &["false", "n", "f", "nil", "(nil)", "null", "none", "err"];

/// What an outcome field's value (`"ok": false`, `result=nil`, `status=
/// "failed"`) says of its step: `Some(true)` it succeeded, `Some(false)` it
/// failed, `None` it does not say. A number is a Redis integer reply: a
/// positive one succeeded (keys set, renewed or deleted), 0 or a negative
/// one (no key, not the owner) failed. A text is a success word, a null
/// reply or false, or any text that [`says_failure`] (`failed`, `error`,
/// `denied`, `失败`).
pub fn outcome_of(value: &str) -> Option<bool> {
    let v = value.trim();
    if let Ok(n) = v.parse::<i64>() {
        return Some(n > 0);
    }
    let lower = v.to_lowercase();
    if SUCCESS_VALUES.contains(&lower.as_str()) {
        Some(true)
    } else if NOTHING_VALUES.contains(&lower.as_str()) || says_failure(v) {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_and_negations_in_several_languages() {
        for t in [
            "did not grab the lock",
            "could not obtain lease",
            "没抢到锁",
            "未能获取锁",
            "释放锁时发现锁已易主",
            "Sperre nicht erhalten",
            "unlock_failed",
        ] {
            assert!(says_failure(t), "{t}");
        }
        for t in [
            "grabbed the mutex",
            "抢到分布式锁",
            "lease extended",
            "florped the gate",
            "notary",
        ] {
            assert!(!says_failure(t), "{t}");
        }
        assert!(says_lost("lease lost"));
        assert!(says_lost("锁丢失"));
    }

    #[test]
    fn outcome_values_say_success_failure_or_nothing() {
        for v in ["true", "OK", "1", "2", "success", "成功"] {
            assert_eq!(outcome_of(v), Some(true), "{v}");
        }
        for v in [
            "false",
            "0",
            "-1",
            "nil",
            "(nil)",
            "fail",
            "ERROR",
            "not_acquired",
            "失败",
        ] {
            assert_eq!(outcome_of(v), Some(false), "{v}");
        }
        for v in ["", "pending", "sku-42", "1.5"] {
            assert_eq!(outcome_of(v), None, "{v}");
        }
    }
}

//! Messages as values. Every sentence lockreplay says to a user (a source
//! note, a warning's reason, why a run is no answer, a finding's detail,
//! an incident's explanation, a what-if caveat) is a value with its data,
//! worded by an English and a Simplified Chinese renderer; no language is
//! made from another's sentences, so changing an English sentence cannot
//! break the Chinese. The JSON report holds the English.
//!
//! Each message type lives in the layer that decides it (a note or a
//! warning's reason here in `model`, a problem or a finding's detail in `analysis`, an explanation
//! in `report`) and implements [`Message`]; the fixed words of a report's
//! layout (headings, table headers, a line's template) are [`Phrase`]s,
//! both languages side by side where they are used.

/// A value that reads as a sentence in English and in Simplified Chinese.
///
/// The two renderers say the same facts in the same order; values from
/// the log (names, numbers, times) appear in both as they are, and field
/// or command names the user types are quoted in backquotes.
pub trait Message {
    /// The English sentence (what the JSON report holds).
    fn en(&self) -> String;

    /// The Simplified Chinese sentence.
    fn zh(&self) -> String;

    /// The sentence in Simplified Chinese with `zh`, else in English.
    fn text(&self, zh: bool) -> String {
        if zh { self.zh() } else { self.en() }
    }
}

/// A fixed phrase of a report's layout in both languages (a heading, a
/// table's header, a line with `{}` for each value, in the same order in
/// both). Made with `phrase!`, which checks at compile time that both
/// have the same number of values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phrase {
    en: &'static str,
    zh: &'static str,
}

impl Phrase {
    /// The phrase `en` whose Chinese is `zh`.
    ///
    /// # Panics
    /// When the two have a different number of `{}`: in a `const` (as
    /// `phrase!` makes it), the build fails.
    pub const fn new(en: &'static str, zh: &'static str) -> Phrase {
        assert!(
            placeholders(en) == placeholders(zh),
            "a phrase's English and Chinese take different numbers of values"
        );
        Phrase { en, zh }
    }

    /// A phrase with no words to translate (`| {} | {} |`): the same in
    /// both languages.
    pub const fn same(both: &'static str) -> Phrase {
        Phrase { en: both, zh: both }
    }

    /// The template in Chinese with `zh`, else in English.
    pub const fn get(&self, zh: bool) -> &'static str {
        if zh { self.zh } else { self.en }
    }

    /// The template with each `{}` replaced by the next of `args` (an
    /// empty string when they run out).
    pub fn fill(&self, zh: bool, args: &[&str]) -> String {
        let mut out = String::new();
        let mut rest = self.get(zh);
        let mut args = args.iter();
        while let Some(i) = rest.find("{}") {
            out.push_str(&rest[..i]);
            out.push_str(args.next().copied().unwrap_or(""));
            rest = &rest[i + 2..];
        }
        out.push_str(rest);
        out
    }
}

/// How many `{}` a template has.
const fn placeholders(s: &str) -> usize {
    let b = s.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i + 1 < b.len() {
        if b[i] == b'{' && b[i + 1] == b'}' {
            n += 1;
            i += 2;
        } else {
            i += 1;
        }
    }
    n
}

/// `phrase!("{} incident(s)", "{} 起事故")`: a [`Phrase`] made at compile
/// time, so a Chinese template that lost or gained a `{}` does not build.
macro_rules! phrase {
    ($en:expr, $zh:expr) => {
        const { $crate::model::message::Phrase::new($en, $zh) }
    };
}
pub(crate) use phrase;

/// `names` each in backquotes, joined by `sep`.
pub(crate) fn quoted(names: &[String], sep: &str) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    q.join(sep)
}

/// A field role's name in Chinese (the reports' words: 时间, 锁键,
/// 持有者...), else the role quoted as it is.
pub(crate) fn role_zh(role: &str) -> String {
    match role {
        "time" => "时间".to_string(),
        "key" => "锁键".to_string(),
        "holder" => "持有者".to_string(),
        "event" => "事件".to_string(),
        "ttl" => "过期时间".to_string(),
        "host" => "主机".to_string(),
        "thread" => "线程".to_string(),
        other => format!("`{other}`"),
    }
}

/// A time resolution's name in Chinese (`ms` -> 毫秒).
pub(crate) fn resolution_zh(r: &str) -> &str {
    match r {
        "s" => "秒",
        "ms" => "毫秒",
        "µs" => "微秒",
        "ns" => "纳秒",
        other => other,
    }
}

/// What a Chinese sentence has left in English: the ASCII letters outside
/// its backquoted spans once the `values` it quotes (names, file names,
/// flags) are taken out. Empty for a sentence that reads in Chinese.
#[cfg(test)]
pub(crate) fn english_left(zh: &str, values: &[&str]) -> String {
    let mut rest: String = zh.split('`').step_by(2).collect();
    for v in values {
        rest = rest.replace(v, "");
    }
    rest.chars().filter(char::is_ascii_alphabetic).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_fills_its_values_in_either_language() {
        let p = phrase!("{} of {} files", "{} 个文件中的 {} 个");
        assert_eq!(p.fill(false, &["2", "3"]), "2 of 3 files");
        assert_eq!(p.fill(true, &["3", "2"]), "3 个文件中的 2 个");
        assert_eq!(p.fill(false, &["2"]), "2 of  files");
        assert_eq!(Phrase::same("| {} |").fill(true, &["x"]), "| x |");
        assert_eq!(placeholders("{}{} {x} {"), 2);
    }

    #[test]
    fn english_left_ignores_quoted_names_and_given_values() {
        assert_eq!(english_left("使用 `owner` 与 w-1", &["w-1"]), "");
        assert_eq!(english_left("使用 owner", &[]), "owner");
    }
}

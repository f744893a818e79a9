//! The renaming generator's words: field names and event phrases that no
//! list of the reader has, the check that they have none, and the incidents
//! with a contender's lost acquire added.
//!
//! Name families spell the ten application fields (event, lock key, holder,
//! TTL, fencing token, product, quantity, stock, stock after, order id) in
//! other languages (French, German, Spanish, Portuguese, Russian in Latin and
//! Cyrillic letters, Japanese in romaji and kana, Korean, Chinese words the
//! header rules do not have, pinyin), as two-letter abbreviations, or as
//! seeded random identifiers. Phrase families give every event kind an
//! identifier (the event field's value) and a sentence (the message):
//! English synonyms, coined words, Chinese synonyms; each has the negated
//! forms that are failures (`did not grab the mutex`, `没抢到锁`,
//! `释放锁时发现锁已易主`: at release the lock had changed owner) and
//! business words (stock set, read, deducted; an order) the lists lack.
//!
//! [`check_unseen`] reads the reader's vocabulary files
//! (`src/ingest/vocabulary/names.rs`, `events.rs`, `message.rs` and the
//! English phrase list of `src/ingest/readers/text.rs`) as text and fails
//! when a name or phrase here is on one of their lists.

use std::collections::BTreeSet;
use std::path::Path;

use crate::model::{Incident, Kind, Rec, Renaming, incidents};

/// A name family: the ten application field names (the TTL's for a TTL in
/// ms, without a unit) and the short word a TTL in seconds is logged under.
pub struct NameFamily {
    /// `fr`, `ru-cyrillic`, `random-3`...
    pub id: &'static str,
    /// The dimension of the report (`random` for every random seed).
    pub family: &'static str,
    pub names: [&'static str; 10],
    pub ttl_s: &'static str,
}

/// A phrase family: per event kind ([`Kind::index`]) the event field's
/// identifier and the message.
pub struct PhraseFamily {
    pub id: &'static str,
    pub events: [&'static str; 9],
    pub phrases: [&'static str; 9],
}

/// The name families with fixed words, in the field order of
/// [`crate::model::Renaming::names`].
pub const NAME_FAMILIES: &[NameFamily] = &[
    NameFamily {
        id: "fr",
        family: "fr",
        names: [
            "événement",
            "verrou",
            "détenteur",
            "durée_bail",
            "jeton_clôture",
            "article",
            "quantité",
            "réserve",
            "reste",
            "num_commande",
        ],
        ttl_s: "bail",
    },
    NameFamily {
        id: "de",
        family: "de",
        names: [
            "ereignis",
            "sperre",
            "besitzer",
            "ablaufdauer",
            "zaunmarke",
            "artikel",
            "menge",
            "bestand",
            "restbestand",
            "bestellnummer",
        ],
        ttl_s: "frist",
    },
    NameFamily {
        id: "es",
        family: "es",
        names: [
            "suceso",
            "cerrojo",
            "titular",
            "caducidad",
            "ficha_valla",
            "articulo",
            "cantidad",
            "existencias",
            "existencias_restantes",
            "num_pedido",
        ],
        ttl_s: "plazo",
    },
    NameFamily {
        id: "pt",
        family: "pt",
        names: [
            "ocorrencia",
            "trava",
            "detentor",
            "validade",
            "senha_cerca",
            "produto",
            "quantidade",
            "estoque",
            "estoque_restante",
            "numero_pedido",
        ],
        ttl_s: "prazo",
    },
    NameFamily {
        id: "ru-latin",
        family: "ru-latin",
        names: [
            "sobytie",
            "zamok",
            "vladelets",
            "srok_deystviya",
            "metka",
            "tovar",
            "kolichestvo",
            "ostatok",
            "ostatok_posle",
            "nomer_zakaza",
        ],
        ttl_s: "srok",
    },
    NameFamily {
        id: "ru-cyrillic",
        family: "ru-cyrillic",
        names: [
            "событие",
            "замок",
            "владелец",
            "срок_действия",
            "метка",
            "товар",
            "количество",
            "остаток",
            "остаток_после",
            "номер_заказа",
        ],
        ttl_s: "срок",
    },
    NameFamily {
        id: "ja-romaji",
        family: "ja-romaji",
        names: [
            "dekigoto",
            "kagi",
            "mochinushi",
            "yuukou_kigen",
            "bangou",
            "shinamono",
            "kazu",
            "zaiko",
            "nokori",
            "chuumon_bangou",
        ],
        ttl_s: "kigen",
    },
    NameFamily {
        id: "ja-kana",
        family: "ja-kana",
        names: [
            "できごと",
            "かぎ",
            "もちぬし",
            "ゆうこうきげん",
            "ばんごう",
            "しなもの",
            "かず",
            "ざいこ",
            "のこり",
            "ちゅうもんばんごう",
        ],
        ttl_s: "きげん",
    },
    NameFamily {
        id: "ko",
        family: "ko",
        names: [
            "사건",
            "잠금키",
            "보유자",
            "유효기간",
            "펜싱토큰",
            "상품코드",
            "수량",
            "재고",
            "남은재고",
            "주문번호",
        ],
        ttl_s: "만료",
    },
    NameFamily {
        id: "zh-unseen",
        family: "zh-unseen",
        names: [
            "环节",
            "资源标识",
            "占用方",
            "有效期",
            "序号",
            "货品",
            "件数",
            "存量",
            "余量",
            "单号",
        ],
        ttl_s: "时效",
    },
    NameFamily {
        id: "pinyin",
        family: "pinyin",
        names: [
            "shijian",
            "suojian",
            "chiyouzhe",
            "guoqi_haomiao",
            "zhalan_lingpai",
            "shangpin",
            "shuliang",
            "kucun",
            "shengyu_kucun",
            "dingdan_hao",
        ],
        ttl_s: "guoqi",
    },
    NameFamily {
        id: "abbrev",
        family: "abbrev",
        names: ["e", "lk", "hd", "tl", "fc", "pd", "qt", "sk", "sa", "od"],
        ttl_s: "exp",
    },
];

/// How many seeds the random name family has.
pub const RANDOM_SEEDS: usize = 12;

/// The phrase families, in [`Kind::ALL`] order: acquired, acquire failed,
/// renewed, released, release failed, stock initialized, stock read, stock
/// deducted, order created.
pub const PHRASE_FAMILIES: &[PhraseFamily] = &[
    PhraseFamily {
        id: "en-synonym",
        events: [
            "mutex_grabbed",
            "mutex_not_grabbed",
            "lease_stretched_by_watchdog",
            "mutex_handed_back",
            "mutex_hand_back_refused",
            "shelf_count_loaded",
            "shelf_count_looked_up",
            "shelf_count_lowered",
            "purchase_written",
        ],
        phrases: [
            "grabbed the mutex",
            "did not grab the mutex",
            "lease stretched by watchdog",
            "mutex handed back",
            "mutex was not handed back",
            "shelf count loaded",
            "shelf count looked up",
            "one unit taken off the shelf",
            "purchase written down",
        ],
    },
    PhraseFamily {
        id: "en-lease",
        events: [
            "lease_obtained",
            "lease_not_obtained",
            "lease_topped_up",
            "lease_given_back",
            "lease_give_back_refused",
            "units_on_hand_set",
            "units_on_hand_counted",
            "units_on_hand_cut",
            "sale_booked",
        ],
        phrases: [
            "lease obtained",
            "lease was not obtained",
            "lease topped up",
            "lease given back",
            "lease could not be given back",
            "units on hand set",
            "units on hand counted",
            "units on hand cut by one",
            "sale booked",
        ],
    },
    PhraseFamily {
        id: "en-coined",
        events: [
            "gate_florped",
            "gate_not_florped",
            "gate_reflorped",
            "gate_unflorped",
            "gate_unflorp_botched",
            "bin_tally_primed",
            "bin_tally_glimpsed",
            "bin_tally_snipped",
            "ticket_minted",
        ],
        phrases: [
            "florped the gate",
            "did not florp the gate",
            "reflorped the gate",
            "unflorped the gate",
            "could not unflorp the gate",
            "bin tally primed",
            "bin tally glimpsed",
            "bin tally snipped",
            "ticket minted",
        ],
    },
    PhraseFamily {
        id: "zh-synonym",
        events: [
            "抢到分布式锁",
            "没抢到锁",
            "续期成功",
            "归还锁",
            "释放锁时发现锁已易主",
            "备货完成",
            "查看余量",
            "减掉一件货",
            "生成订单",
        ],
        phrases: [
            "抢到分布式锁",
            "没抢到锁",
            "续期成功",
            "归还锁",
            "释放锁时发现锁已易主",
            "备货完成",
            "查看余量",
            "减掉一件货",
            "生成订单",
        ],
    },
    PhraseFamily {
        id: "zh-unseen",
        events: [
            "占用分布式锁成功",
            "未能获取锁",
            "延长锁的有效期",
            "交还锁",
            "锁没能交还",
            "货架备货",
            "核对存货",
            "存货减一",
            "订单已生成",
        ],
        phrases: [
            "占用分布式锁成功",
            "未能获取锁",
            "延长锁的有效期",
            "交还锁",
            "锁没能交还",
            "货架备货",
            "核对存货",
            "存货减一",
            "订单已生成",
        ],
    },
];

/// splitmix64: the seeded generator of the random names.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One random identifier: one or two letters, maybe `_` and a letter, then
/// one or two digits (`fx_q7`, `c3`, `mw41`).
fn random_name(state: &mut u64) -> String {
    let letter = |s: &mut u64| (b'a' + (splitmix(s) % 26) as u8) as char;
    let mut n = String::new();
    n.push(letter(state));
    if splitmix(state).is_multiple_of(2) {
        n.push(letter(state));
    }
    if splitmix(state).is_multiple_of(3) {
        n.push('_');
        n.push(letter(state));
    }
    n.push_str(
        &(splitmix(state)
            % if splitmix(state).is_multiple_of(2) {
                10
            } else {
                100
            })
        .to_string(),
    );
    n
}

/// The random name family of `seed`: eleven distinct identifiers (the ten
/// fields and the TTL's short word).
pub fn random_family(seed: usize) -> NameFamily {
    let mut state = 0x5EED_0000 + seed as u64;
    let mut seen = BTreeSet::new();
    let mut pick = || loop {
        let n = random_name(&mut state);
        if seen.insert(n.clone()) {
            return &*n.leak();
        }
    };
    let names: [&'static str; 10] = std::array::from_fn(|_| pick());
    let ttl_s = pick();
    NameFamily {
        id: format!("random-{seed}").leak(),
        family: "random",
        names,
        ttl_s,
    }
}

/// Every name family: the fixed ones, then the random seeds.
pub fn name_families() -> Vec<NameFamily> {
    let mut out: Vec<NameFamily> = NAME_FAMILIES
        .iter()
        .map(|f| NameFamily {
            id: f.id,
            family: f.family,
            names: f.names,
            ttl_s: f.ttl_s,
        })
        .collect();
    out.extend((0..RANDOM_SEEDS).map(random_family));
    out
}

/// The renaming of a name family, a phrase family and a TTL style, kept
/// for the run (a [`crate::model::Family`] holds it by a `'static`
/// reference).
pub fn renaming(names: &NameFamily, phrases: &PhraseFamily, ttl_s: bool) -> &'static Renaming {
    let mut n = names.names;
    if ttl_s {
        n[3] = names.ttl_s;
    }
    Box::leak(Box::new(Renaming {
        names_id: names.id,
        phrases_id: phrases.id,
        names: n,
        ttl_s,
        events: phrases.events,
        phrases: phrases.phrases,
    }))
}

/// The incidents of `model.rs`, each with a contender's lost acquire while
/// the lock is held (a holder that acquires the key later, or a third one):
/// a reader that takes the negated phrase for an acquire makes a hold that
/// is not there.
pub fn renaming_incidents() -> Vec<Incident> {
    let contenders: [(&str, i64, &str, &str, &str); 5] = [
        ("oversell", 1000, "web-03", "exec-9", "tok-C"),
        (
            "renewals",
            600,
            "web-02",
            "exec-3",
            "c9f0f895-fb98-4b91-a1c5-3d4e5f607182:77",
        ),
        (
            "foreign",
            300,
            "web-02",
            "exec-5",
            "7e2b4c55-1f2e-4d3c-8b1a-9f8e7d6c5b4a",
        ),
        ("fencing", 500, "web-02", "exec-2", "tok-34"),
        ("control", 250, "web-02", "exec-2", "tok-Y"),
    ];
    let mut incs = incidents();
    for inc in &mut incs {
        let &(_, t_ms, host, thread, holder) = contenders
            .iter()
            .find(|c| c.0 == inc.name)
            .expect("a contender for every incident");
        let key = inc.recs.iter().find_map(|r| r.key).expect("a lock key");
        let at = inc
            .recs
            .iter()
            .position(|r| r.t_ms > t_ms)
            .unwrap_or(inc.recs.len());
        inc.recs.insert(
            at,
            Rec {
                t_ms,
                host,
                thread,
                kind: Kind::AcquireFailed,
                key: Some(key),
                holder: Some(holder),
                ttl_ms: None,
                fence: None,
                sku: None,
                quantity: None,
                stock: None,
                stock_after: None,
                order_id: None,
            },
        );
    }
    incs
}

/// The string literals of a Rust source file (escapes left as written).
fn literals(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = src.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        match c {
            '/' if chars.peek().is_some_and(|(_, c)| *c == '/') => {
                // A comment: to the end of the line.
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '\'' => {
                // A char literal (`'"'`, `'\''`, `'\t'`) is skipped; a
                // lifetime (`'static`) has no closing quote after one char.
                let ahead: Vec<char> = chars.clone().take(2).map(|(_, c)| c).collect();
                if ahead.first() == Some(&'\\') {
                    chars.next();
                    chars.next();
                    for (_, c) in chars.by_ref() {
                        if c == '\'' {
                            break;
                        }
                    }
                } else if ahead.get(1) == Some(&'\'') {
                    chars.next();
                    chars.next();
                }
            }
            '"' => {
                let mut s = String::new();
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some((_, e)) = chars.next() {
                                s.push('\\');
                                s.push(e);
                            }
                        }
                        '"' => break,
                        c => s.push(c),
                    }
                }
                out.push(s);
            }
            _ => {}
        }
    }
    out
}

/// The reader's field-name normal form (names.rs `normalize_key`).
fn normalize_key(k: &str) -> String {
    k.chars()
        .filter(|c| !matches!(c, '_' | '-' | '@' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The reader's event-name normal form (events.rs `normalize_event`): runs
/// of separators one `_`, lowercase.
fn normalize_event(raw: &str) -> String {
    raw.to_lowercase()
        .split(['-', '.', ' ', '_', '/', ':', '\t'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("_")
}

/// The English phrases of `text.rs` (its `ENGLISH_PHRASES` table).
fn english_phrases(text_rs: &str) -> Vec<String> {
    let start = text_rs
        .find("const ENGLISH_PHRASES")
        .expect("text.rs has ENGLISH_PHRASES");
    let end = start + text_rs[start..].find("\n];").expect("its end");
    literals(&text_rs[start..end])
        .into_iter()
        .filter(|p| !p.contains('_'))
        .collect()
}

/// Whether `phrase` has `words` at word boundaries.
fn has_words(phrase: &str, words: &str) -> bool {
    let p: Vec<&str> = phrase.split_whitespace().collect();
    let w: Vec<&str> = words.split_whitespace().collect();
    !w.is_empty() && p.windows(w.len()).any(|win| win == w.as_slice())
}

/// Fails, naming each, when a name or phrase here is on a list of the
/// reader: a field name whose normal form (or last dotted segment) is a
/// literal of `names.rs`, a non-ASCII name holding a word of its header
/// rules; an event identifier or phrase whose normal form is a literal of
/// `events.rs`, `message.rs` or `text.rs`'s phrase table, or an English
/// phrase holding one of those phrases at word boundaries. A Chinese phrase
/// may hold a verb of the reader (`抢到`, `获取`) when its negation or its
/// context changes what it means (`没抢到锁`, `释放锁时发现锁已易主`):
/// only the whole phrase must be new.
pub fn check_unseen(root: &Path, names: &[NameFamily], phrases: &[PhraseFamily]) {
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect("a vocabulary file");
    let names_rs = literals(&read("src/ingest/vocabulary/names.rs"));
    let text_rs = read("src/ingest/readers/text.rs");
    let listed_names: BTreeSet<String> = names_rs.iter().map(|l| normalize_key(l)).collect();
    let header_words: Vec<&String> = names_rs.iter().filter(|l| !l.is_ascii()).collect();
    let mut event_lits = literals(&read("src/ingest/vocabulary/events.rs"));
    event_lits.extend(literals(&read("src/ingest/vocabulary/message.rs")));
    let phrase_list = english_phrases(&text_rs);
    event_lits.extend(phrase_list.iter().cloned());
    let listed_events: BTreeSet<String> = event_lits.iter().map(|l| normalize_event(l)).collect();
    assert!(
        listed_names.len() > 100 && header_words.len() > 20 && phrase_list.len() > 40,
        "the vocabulary files were not read: {} names, {} header words, {} phrases",
        listed_names.len(),
        header_words.len(),
        phrase_list.len()
    );
    let mut seen = Vec::new();
    for f in names {
        for n in f.names.iter().chain([&f.ttl_s]) {
            let k = normalize_key(n);
            if listed_names.contains(&k) {
                seen.push(format!("{}: field name {n} is on a list of names.rs", f.id));
            }
            if let Some(w) = header_words.iter().find(|w| n.contains(w.as_str())) {
                seen.push(format!(
                    "{}: field name {n} holds the header word {w}",
                    f.id
                ));
            }
        }
    }
    for f in phrases {
        for w in f.events.iter().chain(&f.phrases) {
            if listed_events.contains(&normalize_event(w)) {
                seen.push(format!("{}: {w} is on an event list", f.id));
            }
            if let Some(p) = phrase_list.iter().find(|p| has_words(&w.to_lowercase(), p)) {
                seen.push(format!("{}: {w} holds the listed phrase {p:?}", f.id));
            }
        }
    }
    assert!(
        seen.is_empty(),
        "words the reader has on a list:\n{}",
        seen.join("\n")
    );
}

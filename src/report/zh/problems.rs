//! Why a run is no answer ([`crate::pipeline::problems`]) in Simplified
//! Chinese: the ingest and the pipeline write each reason in English (the
//! JSON report keeps it so); the Chinese reports, pictures and window show
//! it through this table, values (file and field names, counts, the
//! reader's and encoding's names) carried over as they are. A reason of no
//! known shape comes back unchanged. Found by a new-user trial: the Chinese
//! window said why in English.

use std::borrow::Cow;
use std::sync::OnceLock;

/// `ingest::unreadable_reason`'s sentence, after the file's name.
const NO_LOCK_EVENT: &str = r"^(?P<file>.*?): no lock event could be read: read as (?P<dialect>\S+) \((?P<enc>[^)]*)\)(?:, layout (?P<layout>[^;]*))?; (?P<lines>\d+) line\(s\): (?P<warned>\d+) unreadable, (?P<skipped>\d+) not lock or business events(?:\. Fields seen: (?P<seen>.*?))?(?:\. No field found for: (?P<missing>[a-z, ]+))?\. To read it: (?P<hint>.*)$";

/// `ingest::unreadable_reason`'s hints, in English and Chinese.
const HINTS: [(&str, &str); 6] = [
    (
        "describe the lines with a mapping file (`line_regex = '...'` with named groups, `[messages]` regexes per event) and --mapping FILE",
        "用映射文件描述这些行（带命名分组的 `line_regex = '...'`，以及每种事件的 `[messages]` 正则），然后使用 --mapping FILE",
    ),
    (
        "name the time field in a mapping file: `[fields] time = \"<field>\"` (and `time_format = \"%Y-%m-%d %H:%M:%S\"` for an unusual format), then --mapping FILE",
        "在映射文件中指定时间字段：`[fields] time = \"<field>\"`（格式特殊时再加 `time_format = \"%Y-%m-%d %H:%M:%S\"`），然后使用 --mapping FILE",
    ),
    (
        "name the event field (`[fields] event = \"<field>\"`) or the log's own event words (`[events] \"LOCK_OK\" = \"acquired\"`) in a mapping file, then --mapping FILE",
        "在映射文件中指定事件字段（`[fields] event = \"<field>\"`）或日志自己的事件词（`[events] \"LOCK_OK\" = \"acquired\"`），然后使用 --mapping FILE",
    ),
    (
        "map the log's event names onto lock events in a mapping file (`[events] \"<name>\" = \"acquired\"`), or check the warnings above",
        "在映射文件中把日志的事件名映射为锁事件（`[events] \"<name>\" = \"acquired\"`），或查看上面的警告",
    ),
    (
        "save the workbook's sheet as CSV (UTF-8) and open the CSV",
        "把工作簿的工作表另存为 `CSV`（`UTF-8`），再打开该 `CSV`",
    ),
    (
        "give the date of its times of day in a mapping file (`date = \"YYYY-MM-DD\"`), then --mapping FILE",
        "这些时间只有时刻没有日期：在映射文件中给出日期（`date = \"YYYY-MM-DD\"`），然后使用 --mapping FILE",
    ),
];

/// The pipeline's and `ingest::load_problems`' other sentences.
const FIXED: [(&str, &str); 2] = [
    (
        "no lock event (acquire, renewal, release, lock lost) was read from any file: the business lines alone cannot show an overlap",
        "所有文件中都没有读到锁事件（获取、续期、释放、锁丢失）：仅凭业务行无法显示重叠",
    ),
    (
        "lock events were read, but none names both a lock key and a holder: no hold can be built; name the key and holder fields in a mapping file (`lockreplay inspect FILE --write-mapping M`, edit it, then --mapping M)",
        "读到了锁事件，但没有一条同时给出锁键和持有者：无法构建任何持有；请在映射文件中指定锁键和持有者字段（`lockreplay inspect FILE --write-mapping M`，编辑后使用 --mapping M）",
    ),
];

/// `pipeline::problems`' sentence when lock events build no hold.
const NO_HOLD: &str = r"^lock events were read, but no hold could be built: no acquire names a lock key and a holder \((?P<n>\d+) holder\(s\) renew or release with no acquire before it, see the no_acquire findings; the others are failed acquires\); the log may start inside the holds$";

/// A problem (`pipeline::problems`) in Chinese, or unchanged when its
/// shape is unknown.
pub fn problem(p: &str) -> Cow<'_, str> {
    static SHAPES: OnceLock<Option<(regex::Regex, regex::Regex)>> = OnceLock::new();
    if let Some((_, zh)) = FIXED.iter().find(|(en, _)| *en == p) {
        return Cow::Borrowed(zh);
    }
    let Some((no_event, no_hold)) = SHAPES
        .get_or_init(|| {
            Some((
                regex::Regex::new(NO_LOCK_EVENT).ok()?,
                regex::Regex::new(NO_HOLD).ok()?,
            ))
        })
        .as_ref()
    else {
        return Cow::Borrowed(p);
    };
    if let Some(c) = no_hold.captures(p) {
        return Cow::Owned(format!(
            "读到了锁事件，但无法构建任何持有：没有一条获取事件同时给出锁键和持有者（{} 个持有者在没有获取之前就续期或释放，见 no_acquire 发现；其余是获取失败）；日志可能从持有期间开始",
            &c["n"]
        ));
    }
    match no_event.captures(p) {
        Some(c) => no_lock_event(&c).map_or(Cow::Borrowed(p), Cow::Owned),
        None => Cow::Borrowed(p),
    }
}

/// The problem in Chinese with `zh` ([`problem`]), else as written.
pub fn problem_in(zh: bool, p: &str) -> Cow<'_, str> {
    if zh { problem(p) } else { Cow::Borrowed(p) }
}

/// [`NO_LOCK_EVENT`]'s sentence in Chinese; `None` for a hint of no known
/// shape.
fn no_lock_event(c: &regex::Captures<'_>) -> Option<String> {
    let hint = HINTS.iter().find(|(en, _)| *en == &c["hint"])?.1;
    let layout = c
        .name("layout")
        .map(|l| format!("，布局 {}", l.as_str()))
        .unwrap_or_default();
    let seen = c
        .name("seen")
        .map(|s| format!("。看到的字段：{}", s.as_str()))
        .unwrap_or_default();
    let missing = c
        .name("missing")
        .map(|m| {
            let roles: Vec<String> = m.as_str().split(", ").map(crate::model::role_zh).collect();
            format!("。没有找到这些字段：{}", roles.join("、"))
        })
        .unwrap_or_default();
    Some(format!(
        "{}：读不出任何锁事件：按 {}（{}）读取{layout}；共 {} 行：{} 行无法读取，{} 行不是锁事件或业务事件{seen}{missing}。读取方法：{hint}",
        &c["file"], &c["dialect"], &c["enc"], &c["lines"], &c["warned"], &c["skipped"]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ASCII letters outside backquotes and the values given.
    fn english_left(zh: &str, values: &[&str]) -> String {
        let mut rest: String = zh.split('`').step_by(2).collect();
        for v in values {
            rest = rest.replace(v, "");
        }
        rest.replace("no_acquire", "")
            .replace("JSON", "")
            .chars()
            .filter(char::is_ascii_alphabetic)
            .collect()
    }

    #[test]
    fn every_problem_the_pipeline_writes_reads_in_chinese() {
        let file = "/tmp/logs/nginx.log";
        let mut cases: Vec<(String, Vec<&str>)> = vec![
            (FIXED[0].0.to_string(), vec![]),
            (FIXED[1].0.to_string(), vec!["--mapping", "M"]),
            (
                "lock events were read, but no hold could be built: no acquire names a lock key and a holder (3 holder(s) renew or release with no acquire before it, see the no_acquire findings; the others are failed acquires); the log may start inside the holds".to_string(),
                vec![],
            ),
        ];
        for (hint, _) in HINTS {
            cases.push((
                format!("{file}: no lock event could be read: read as text (UTF-8), layout Spring Boot; 12 line(s): 2 unreadable, 10 not lock or business events. Fields seen: time, msg. No field found for: key, holder. To read it: {hint}"),
                vec![file, "text", "UTF-8", "Spring Boot", "--mapping", "FILE", "time", "msg"],
            ));
        }
        cases.push((
            format!("{file}: no lock event could be read: read as unknown (UTF-8); 2 line(s): 2 unreadable, 0 not lock or business events. To read it: {}", HINTS[0].0),
            vec![file, "unknown", "UTF-8", "--mapping", "FILE"],
        ));
        for (en, values) in &cases {
            let zh = problem(en);
            assert_ne!(zh, en.as_str(), "untranslated: {en}");
            assert!(english_left(&zh, values).is_empty(), "{zh}");
            assert!(zh.contains('：'), "{zh}");
        }
        let full = problem(&cases[3].0);
        assert!(
            full.starts_with("/tmp/logs/nginx.log：读不出任何锁事件"),
            "{full}"
        );
        assert!(full.contains("没有找到这些字段：锁键、持有者"), "{full}");
        assert!(full.contains("共 12 行：2 行无法读取，10 行"), "{full}");
        // Anything else comes back as it was; English stays English.
        assert_eq!(problem("something new"), "something new");
        assert_eq!(problem_in(false, FIXED[0].0), FIXED[0].0);
    }
}

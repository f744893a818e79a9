//! What a reader noted about a file ([`SourceNote`]), typed so that the
//! reports and the window print it in English or Simplified Chinese; the
//! JSON report keeps the English sentence.

use serde::Serialize;

/// A note on how one file was read (fields chosen among several, the
/// zone assumed, how captures were combined). [`SourceNote::text`] prints
/// it in either language; it serialises as its English text.
#[derive(Clone, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum SourceNote {
    /// Lines with bytes the file's encoding does not allow.
    DamagedBytes {
        /// How many lines.
        lines: u64,
        /// The encoding (`UTF-8`, `GB18030`...).
        encoding: String,
    },
    /// A whole-second time field was passed over for a finer one.
    CoarseTime {
        /// The whole-second field.
        coarse: String,
        /// The field chosen.
        chosen: String,
        /// Its resolution: `s`, `ms`, `µs` or `ns`.
        resolution: String,
    },
    /// Other fields could have played a role.
    AlsoPresent {
        /// The role (`time`, `key`, `holder`...).
        role: String,
        /// The field chosen.
        chosen: String,
        /// The others, in order.
        others: Vec<String>,
    },
    /// An envelope file whose payloads are of several kinds (JSON records
    /// and text lines, or records without a payload): the records of
    /// `kind` have fields of their own, picked from them (issue #35).
    FieldsOfKind {
        /// `JSON payloads`, `text payloads` or `records without a payload`.
        kind: String,
        /// Records of that kind among those detection saw.
        records: u32,
        /// (role, field) picked for them.
        fields: Vec<(String, String)>,
    },
    /// A field read as the TTL by its name only.
    TtlByName {
        /// The field.
        field: String,
        /// In seconds (else ms).
        seconds: bool,
    },
    /// A TTL field named without a unit read in seconds because every
    /// bare number among its values was small (under 100: no lock's TTL
    /// in ms); a guess, said as one.
    TtlSecondsByValue {
        /// The field.
        field: String,
        /// Its largest value, as read.
        max: String,
    },
    /// A TTL field named without a unit read in nanoseconds because every
    /// bare number among its values was a whole number of ms in ns and at
    /// least 10^7 (Go's `time.Duration` as a number: `slog`'s JSON handler,
    /// `encoding/json`); a guess, said as one.
    TtlNanosByValue {
        /// The field.
        field: String,
        /// Its smallest value, as read.
        min: String,
    },
    /// docker json-file entries that were parts of a line longer than
    /// 16 KiB, joined into the entry that ended each run
    /// (`src/ingest/framing/docker.rs`).
    DockerParts {
        /// Entries that were parts (counted as skipped).
        parts: usize,
        /// Lines they were joined into.
        lines: usize,
        /// Runs the file ended in without their last entry.
        open: usize,
    },
    /// RFC 3164 times carry no year: `year` was put on them (from the
    /// mapping's `date` when `given`, else assumed: this year, or last
    /// year when that put them ahead of now).
    YearAssumed {
        /// The year of the first such time.
        year: i32,
        /// From the mapping's `date`.
        given: bool,
    },
    /// No event field: event names come from the message.
    EventFromMessage,
    /// Line numbers are record numbers (a JSON document export).
    RecordNumbers,
    /// Times without an offset were read in this zone: a fixed offset
    /// (`+08:00`), a zone name, or UTC because none was given.
    NaiveTimes {
        /// The fixed offset as written after `UTC`.
        offset: Option<String>,
        /// The zone's name.
        zone: Option<String>,
    },
    /// Times of day were dated with the mapping's `date`, and the date
    /// advanced `days` time(s) where the time of day went back by more than
    /// 12 h (midnight).
    DateAdvanced {
        /// Days added by the last line.
        days: i64,
    },
    /// No TTL field: the TTL given for the file is used.
    TtlGiven {
        /// That TTL, ms.
        ttl_ms: i64,
    },
    /// No TTL field and none given: the TTL is unknown.
    TtlUnknown {
        /// The file's name, for the `--ttl-ms FILE=MS` hint.
        file: String,
    },
    /// MONITOR: command lines that gave several events.
    ExtraEvents {
        /// The command lines.
        lines: u64,
        /// The events they gave.
        events: u64,
    },
    /// MONITOR: the commands replayed through the keyspace model.
    Replayed {
        /// Commands.
        commands: u64,
        /// Of them, inside Lua scripts.
        in_scripts: u64,
    },
    /// MONITOR: one token on several connections (a pool).
    PooledClient {
        /// The longest gap between two commands of one request, ms.
        gap_ms: i64,
    },
    /// MONITOR: deletes credited to the owner their request named.
    DelsByRequest {
        /// How many.
        dels: u64,
    },
    /// MONITOR: deletes with no sender, credited to the key's holder.
    DelsGuessed {
        /// How many.
        dels: u64,
    },
    /// MONITOR: the capture's connection dropped and came back (redis-cli's
    /// `Error: Server closed the connection`, then a new `OK`): commands in
    /// between are missing. `restart`: redis-cli could not connect in
    /// between (the server was down), taken as a restart without
    /// persistence: the keyspace is empty after it.
    CaptureGap {
        /// The line where the connection dropped.
        from_line: u64,
        /// The line of the new `OK`; 0 when the capture ended in the gap.
        to_line: u64,
        /// The server was down in between.
        restart: bool,
    },
    /// MONITOR: commands the model does not know, with their counts.
    UnknownCommands {
        /// (command, times), in name order.
        commands: Vec<(String, u64)>,
    },
    /// Capture keys linked to the application's keys.
    KeysLinked {
        /// One per capture key, in the order of their English text.
        links: Vec<KeyLink>,
    },
    /// Business lines tied to the hold running on their thread.
    BusinessTied {
        /// How many.
        lines: u64,
    },
    /// Lock lines with no token: their thread is the holder.
    ThreadHolders {
        /// How many.
        lines: u64,
    },
    /// A replica's capture: its replication link's copies are left out.
    Replica {
        /// The link's client address.
        client: String,
        /// The master's capture.
        master: String,
        /// The link's lock events.
        events: u64,
    },
    /// A replica's capture: a client told by its own signs (writes only, in
    /// the master's replication form) is the replication link; its writes
    /// are modelled but give no events.
    ReplicaLink {
        /// The link's client address.
        client: String,
        /// Its command lines.
        commands: u64,
    },
    /// The captures are the nodes of one Redlock.
    Redlock {
        /// The lock keys they write.
        keys: KeyList,
        /// The captures.
        nodes: Vec<String>,
        /// Majority of the nodes.
        quorum: u64,
        /// Per-node acquires tried on another node too.
        matched: u64,
        /// Per-node acquires.
        acquires: u64,
        /// The span that counts as "too", ms.
        span_ms: i64,
    },
    /// The captures are one server over time.
    Failover {
        /// The lock keys they write.
        keys: KeyList,
        /// Each move: (from capture, to capture, time).
        moves: Vec<(String, String, String)>,
    },
    /// The captures write the same keys but are no Redlock.
    NotRedlock {
        /// The lock keys they write.
        keys: KeyList,
        /// The captures.
        nodes: Vec<String>,
        /// Per-node acquires tried on another node too.
        matched: u64,
        /// Per-node acquires.
        acquires: u64,
        /// The span that counts as "too", ms.
        span_ms: i64,
    },
    /// A capture beside a Redlock that writes no lock key.
    DataNode,
    /// A file of business events only (stock, orders) beside files that
    /// carry the locks: read and tied to their holds, not an error.
    BusinessOnly {
        /// Its events.
        events: u64,
    },
    /// Which reader read the file: the contest of readers on its head
    /// (`ingest::readers::contest`), winner and runner-up with the lock
    /// evidence each found.
    /// A role's field chosen by its values, no name of it known (event
    /// words, date-time texts, tokens that recur across a hold's lines):
    /// a guess, said as one (issue #31 item 2).
    ByValue {
        /// The role (`event`, `time`, `holder`).
        role: String,
        /// The field chosen.
        field: String,
    },
    /// A Parquet file, read as one record per row (line numbers are row
    /// numbers), only the columns the roles need when they could be told
    /// from the first rows (issue #31 item 6).
    Parquet {
        /// Rows read.
        rows: u64,
        /// The columns read, in the file's order.
        read: Vec<String>,
        /// Columns in the file.
        columns: u64,
    },
    Readers {
        /// The winning reader (`text lines`, `CSV`...).
        winner: String,
        /// Its score.
        score: u32,
        /// The runner-up.
        runner_up: String,
        /// Its score.
        runner_score: u32,
    },
}

/// Lock keys named in a note: the first by name and how many more.
#[derive(Clone, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub struct KeyList {
    /// The first key by name; `None` for no key.
    pub first: Option<String>,
    /// How many others.
    pub more: usize,
}

impl KeyList {
    /// The keys `names`: the first by name and the count of the rest.
    pub fn of(mut names: Vec<&str>) -> KeyList {
        names.sort_unstable();
        KeyList {
            first: names.first().map(|f| (*f).to_string()),
            more: names.len().saturating_sub(1),
        }
    }

    fn text(&self, zh: bool) -> String {
        match (&self.first, self.more, zh) {
            (None, ..) => String::new(),
            (Some(first), 0, _) => format!("`{first}`"),
            (Some(first), n, false) => format!("`{first}` and {n} more"),
            (Some(first), n, true) => format!("`{first}` 等 {} 个", n + 1),
        }
    }
}

/// How a capture key was linked to the application's (or not).
#[derive(Clone, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum KeyLink {
    /// Linked by the holder tokens both share.
    Tokens {
        /// The capture's key.
        capture: String,
        /// The application's key.
        app: String,
        /// Tokens on both.
        tokens: u64,
    },
    /// Linked by its spelling behind a library prefix (inferred).
    Spelling {
        /// The capture's key.
        capture: String,
        /// The application's key.
        app: String,
    },
    /// It could be several application keys: left as it is.
    Ambiguous {
        /// The capture's key.
        capture: String,
    },
}

impl KeyLink {
    /// The link as a clause, in Simplified Chinese with `zh`.
    pub fn text(&self, zh: bool) -> String {
        match (self, zh) {
            (
                KeyLink::Tokens {
                    capture,
                    app,
                    tokens,
                },
                false,
            ) => format!(
                "`{capture}` is the application's `{app}` ({tokens} holder token(s) on both)"
            ),
            (KeyLink::Spelling { capture, app }, false) => format!(
                "`{capture}` is the application's `{app}` (no shared token: by its spelling behind a library prefix, inferred)"
            ),
            (KeyLink::Ambiguous { capture }, false) => {
                format!("`{capture}` could be several application keys and was left as it is")
            }
            (
                KeyLink::Tokens {
                    capture,
                    app,
                    tokens,
                },
                true,
            ) => {
                format!("`{capture}` 即应用的 `{app}`（两边共有 {tokens} 个持有者令牌）")
            }
            (KeyLink::Spelling { capture, app }, true) => {
                format!("`{capture}` 即应用的 `{app}`（没有共同令牌：按去掉库前缀后的拼写，推断）")
            }
            (KeyLink::Ambiguous { capture }, true) => {
                format!("`{capture}` 可能对应多个应用锁键，保持原样")
            }
        }
    }
}

/// `names` each in backticks, joined by `sep`.
fn quoted(names: &[String], sep: &str) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    q.join(sep)
}

/// A field role's name in Chinese (the report's words), else quoted.
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

/// A time resolution's name in Chinese.
fn resolution_zh(r: &str) -> &str {
    match r {
        "s" => "秒",
        "ms" => "毫秒",
        "µs" => "微秒",
        "ns" => "纳秒",
        other => other,
    }
}

impl SourceNote {
    /// The note as a sentence, in Simplified Chinese with `zh` (ids, field
    /// and file names quoted as they are), else in English.
    pub fn text(&self, zh: bool) -> String {
        if zh { self.zh() } else { self.en() }
    }

    /// The English sentence (what the JSON report holds).
    fn en(&self) -> String {
        match self {
            SourceNote::DamagedBytes { lines, encoding } => {
                format!("{lines} line(s) had bytes invalid in {encoding}")
            }
            SourceNote::CoarseTime {
                coarse,
                chosen,
                resolution,
            } => format!(
                "time: `{coarse}` has whole seconds only; `{chosen}` ({resolution}) was preferred"
            ),
            SourceNote::AlsoPresent {
                role,
                chosen,
                others,
            } => format!(
                "{role}: using `{chosen}`; also present: {}",
                quoted(others, ", ")
            ),
            SourceNote::FieldsOfKind {
                kind,
                records,
                fields,
            } => {
                let f: Vec<String> = fields.iter().map(|(r, f)| format!("{r} `{f}`")).collect();
                format!(
                    "{kind} ({records} of the records read to pick fields) have fields of their own: {}",
                    f.join(", ")
                )
            }
            SourceNote::TtlByName { field, seconds } => {
                let unit = if *seconds { "seconds" } else { "ms" };
                format!(
                    "ttl: `{field}` is read as the lease TTL in {unit}, by its name only (map `ttl_ms` or `ttl_s` to another field if it is not)"
                )
            }
            SourceNote::TtlSecondsByValue { field, max } => format!(
                "ttl: `{field}` has no unit in its name and its values are at most {max}: read as seconds, a guess (no lock keeps a TTL of {max} ms; map `ttl_ms` to it if it is ms)"
            ),
            SourceNote::TtlNanosByValue { field, min } => format!(
                "ttl: `{field}` has no unit in its name and its values are whole milliseconds in nanoseconds, at least {min}: read as nanoseconds (Go's `time.Duration`), a guess (map `ttl_ms` to it if it is ms)"
            ),
            SourceNote::DockerParts { parts, lines, open } => format!(
                "{parts} docker json-file entr(ies) were parts of lines over 16 KiB, joined into the {lines} entr(ies) ending them (counted as skipped){}",
                if *open > 0 {
                    format!(
                        "; {open} ran to the end of the file without their last part, read as they are"
                    )
                } else {
                    String::new()
                }
            ),
            SourceNote::YearAssumed { year, given: true } => format!(
                "RFC 3164 times carry no year: read in {year}, the year of the mapping's date"
            ),
            SourceNote::YearAssumed { year, given: false } => format!(
                "RFC 3164 times carry no year: read in {year}, assumed (give it with `date = \"YYYY-MM-DD\"` in a mapping file if it is another)"
            ),
            SourceNote::EventFromMessage => {
                "no event field: event names are read from the message".to_string()
            }
            SourceNote::RecordNumbers => {
                "line numbers are record numbers in this export".to_string()
            }
            SourceNote::NaiveTimes { offset, zone } => match (offset, zone) {
                (Some(f), _) => format!("times without an offset were read as UTC{f}"),
                (None, Some(z)) => format!("times without an offset were read in {z}"),
                (None, None) => {
                    "times without an offset were read as UTC (set a time zone if they are local)"
                        .to_string()
                }
            },
            SourceNote::DateAdvanced { days } => format!(
                "times of day were dated with the mapping's date, which advanced {days} day(s) where the time went back by more than 12 h (midnight)"
            ),
            SourceNote::TtlGiven { ttl_ms } => {
                format!("no TTL field: holds use the TTL given for this file, {ttl_ms} ms")
            }
            SourceNote::TtlUnknown { file } => format!(
                "no TTL field: the lock TTL is unknown (not infinite), so no lease is said to expire and no hold to lack a TTL; give it with a mapped field (`[fields] ttl_ms = \"...\"` in a mapping file) or a TTL for this file (`--ttl-ms {file}=MS`, `ttl_ms = MS` in a mapping file, or the TTL setting in the window)"
            ),
            _ => self.en_capture(),
        }
    }

    /// The English of the MONITOR and capture notes.
    fn en_capture(&self) -> String {
        match self {
            SourceNote::ExtraEvents { lines, events } => format!(
                "{lines} command line(s) gave {events} events; each extra event counts as a record read"
            ),
            SourceNote::Replayed {
                commands,
                in_scripts,
            } => format!(
                "replayed {commands} commands ({in_scripts} inside Lua scripts) through the keyspace model"
            ),
            SourceNote::PooledClient { gap_ms } => format!(
                "pooled client: the same token was sent on several connections, so a DEL is tied to \
                 a request only by commands on its own connection, each within {gap_ms} ms of the last"
            ),
            SourceNote::DelsByRequest { dels } => format!(
                "{dels} DEL(s) of a lock credited to the owner their connection's request named just \
                 before (an order, a read of the lock, a token) (inferred)"
            ),
            SourceNote::DelsGuessed { dels } => format!(
                "{dels} DEL(s) of a lock came with nothing in the capture saying who sent them: each is \
                 credited to the key's holder as its own release (inferred, holder guessed)"
            ),
            SourceNote::CaptureGap {
                from_line,
                to_line,
                restart,
            } => {
                let to = if *to_line == 0 {
                    "the end of the capture".to_string()
                } else {
                    format!("line {to_line}")
                };
                if *restart {
                    format!(
                        "gap from line {from_line} to {to}: the server closed the MONITOR connection and refused new ones (it was down): taken as a restart without persistence, so every key, every lock with it, is gone after it (a lock of before vanished); commands in the gap are not in the capture (inferred)"
                    )
                } else {
                    format!(
                        "gap from line {from_line} to {to}: the MONITOR connection was closed and opened again (a CLIENT KILL, as Sentinel sends to a server it reconfigures, or the network); commands in the gap are not in the capture, and the keyspace is kept"
                    )
                }
            }
            SourceNote::UnknownCommands { commands } => {
                let list: Vec<String> = commands.iter().map(|(c, n)| format!("{c} x{n}")).collect();
                format!("unknown commands: {}", list.join(", "))
            }
            SourceNote::KeysLinked { links } => {
                let lines: Vec<String> = links.iter().map(|l| l.text(false)).collect();
                format!(
                    "capture keys linked to the application log, so each hold counts once (the capture is the server's view): {}",
                    lines.join("; ")
                )
            }
            SourceNote::BusinessTied { lines } => format!(
                "{lines} business line(s) named no lock key or holder: each was tied to the hold \
                 running on the same host, process and thread at that moment (inferred)"
            ),
            SourceNote::ThreadHolders { lines } => {
                format!(
                    "{lines} lock line(s) named no token: the holder is their thread (inferred)"
                )
            }
            SourceNote::BusinessOnly { events } => format!(
                "{events} business event(s) and no lock event: the locks come from the other files"
            ),
            _ => self.en_nodes(),
        }
    }

    /// The English of the notes on captures combined (Redlock, failover).
    fn en_nodes(&self) -> String {
        match self {
            SourceNote::Replica {
                client,
                master,
                events,
            } => format!(
                "Replica: client `{client}` only repeats the writes of `{master}` (its {events} lock events each \
                 follow the same one there, and none failed): the replication link; its copies are \
                 left out, so that each grant counts once"
            ),
            SourceNote::ReplicaLink { client, commands } => format!(
                "Replica: client `{client}` is the replication link (it only writes, in the master's \
                 replication form: SELECT first, absolute expiries such as PXAT and PEXPIREAT, scripts as \
                 their effects); its {commands} command line(s) update this node's keyspace but give no \
                 events: each grant and sale counts once, from the master's own capture"
            ),
            SourceNote::Redlock {
                keys,
                nodes,
                quorum,
                matched,
                acquires,
                span_ms,
            } => format!(
                "Redlock: lock key {} is written on {} captures ({}), the nodes of one Redlock: \
                 quorum {quorum} of {} (a hold counts once {quorum} nodes granted it); {matched} of \
                 {acquires} per-node acquires were also tried on another node within {span_ms} ms",
                keys.text(false),
                nodes.len(),
                quoted(nodes, ", "),
                nodes.len(),
            ),
            SourceNote::Failover { keys, moves } => {
                let moves: Vec<String> = moves
                    .iter()
                    .map(|(from, to, at)| format!("from `{from}` to `{to}` at {at}"))
                    .collect();
                format!(
                    "Failover: the writes to lock key {} move {} (one node's lock writes stop, then \
                     the next one's begin): one server over time, not a Redlock; every node's holds are \
                     kept",
                    keys.text(false),
                    moves.join(", then ")
                )
            }
            SourceNote::NotRedlock {
                keys,
                nodes,
                matched,
                acquires,
                span_ms,
            } => format!(
                "Not a Redlock: lock key {} is written on {} captures ({}) at the same time, but only \
                 {matched} of {acquires} per-node acquires were tried on another node within {span_ms} ms; \
                 every node's holds are kept",
                keys.text(false),
                nodes.len(),
                quoted(nodes, ", "),
            ),
            SourceNote::ByValue { role, field } => format!(
                "{role}: `{field}` was chosen by its values, not its name (a guess; name it in a mapping file if it is wrong)"
            ),
            SourceNote::Parquet {
                rows,
                read,
                columns,
            } => format!(
                "Parquet: {rows} rows (line numbers are row numbers); read {} of {columns} columns: `{}`",
                read.len(),
                read.join("`, `")
            ),
            SourceNote::Readers {
                winner,
                score,
                runner_up,
                runner_score,
            } => format!(
                "read as `{winner}` (lock evidence {score} in the first lines; `{runner_up}` found {runner_score})"
            ),
            SourceNote::DataNode => {
                "Redlock: no lock key is written in this capture: a data node, not one of the lock \
                 nodes, and it does not count toward any quorum"
                    .to_string()
            }
            _ => String::new(),
        }
    }

    /// The Chinese sentence (the words of `report::zh`: 锁键, 持有者,
    /// 租约, 过期时间).
    fn zh(&self) -> String {
        match self {
            SourceNote::DamagedBytes { lines, encoding } => {
                format!("{lines} 行含有在 {encoding} 中无效的字节")
            }
            SourceNote::CoarseTime {
                coarse,
                chosen,
                resolution,
            } => format!(
                "时间：`{coarse}` 只有整秒；选用了 `{chosen}`（{}）",
                resolution_zh(resolution)
            ),
            SourceNote::AlsoPresent {
                role,
                chosen,
                others,
            } => format!(
                "{}：使用 `{chosen}`；另有：{}",
                role_zh(role),
                quoted(others, "、")
            ),
            SourceNote::FieldsOfKind {
                kind,
                records,
                fields,
            } => {
                let f: Vec<String> = fields
                    .iter()
                    .map(|(r, f)| format!("{} `{f}`", role_zh(r)))
                    .collect();
                let kind = match kind.as_str() {
                    "JSON payloads" => "载荷为 JSON 记录的行",
                    "text payloads" => "载荷为文本行的行",
                    _ => "没有载荷的记录",
                };
                format!(
                    "{kind}（选字段时读到的记录中有 {records} 条）有自己的字段：{}",
                    f.join("、")
                )
            }
            SourceNote::TtlByName { field, seconds } => format!(
                "过期时间：仅凭字段名把 `{field}` 读作租约的过期时间，单位为{}（若不是，请把 `ttl_ms` 或 `ttl_s` 映射到另一个字段）",
                if *seconds { "秒" } else { "毫秒" }
            ),
            SourceNote::TtlSecondsByValue { field, max } => format!(
                "过期时间：`{field}` 的字段名没有单位，其值最大为 {max}：按秒读取，这是推测（没有锁的过期时间会是 {max} 毫秒；若确是毫秒，请把 `ttl_ms` 映射到它）"
            ),
            SourceNote::TtlNanosByValue { field, min } => format!(
                "过期时间：`{field}` 的字段名没有单位，其值都是以纳秒写的整毫秒，最小为 {min}：按纳秒读取（`time.Duration`），这是推测（若确是毫秒，请把 `ttl_ms` 映射到它）"
            ),
            SourceNote::DockerParts { parts, lines, open } => format!(
                "{parts} 条 `docker json-file` 记录是超过 16384 字节的行被拆开的部分，已拼入结束它们的 {lines} 条记录（计为跳过）{}",
                if *open > 0 {
                    format!("；{open} 段直到文件结尾也没有最后一部分，按原样读取")
                } else {
                    String::new()
                }
            ),
            SourceNote::YearAssumed { year, given: true } => {
                format!("`RFC 3164` 时间没有年份：按映射文件日期的年份 {year} 读取")
            }
            SourceNote::YearAssumed { year, given: false } => format!(
                "`RFC 3164` 时间没有年份：按推测的 {year} 年读取（若不是，请在映射文件中用 `date = \"YYYY-MM-DD\"` 给出）"
            ),
            SourceNote::EventFromMessage => "没有事件字段：事件名从消息中读取".to_string(),
            SourceNote::RecordNumbers => "此导出中的行号是记录序号".to_string(),
            SourceNote::NaiveTimes { offset, zone } => match (offset, zone) {
                (Some(f), _) => format!("没有时区偏移的时间按 UTC{f} 读取"),
                (None, Some(z)) => format!("没有时区偏移的时间按 {z} 时区读取"),
                (None, None) => {
                    "没有时区偏移的时间按 UTC 读取（若是本地时间，请设置时区）".to_string()
                }
            },
            SourceNote::DateAdvanced { days } => format!(
                "只有时刻的时间用映射文件的日期补全；时刻倒退超过 12 小时处（午夜）日期前进，共前进 {days} 天"
            ),
            SourceNote::TtlGiven { ttl_ms } => {
                format!("没有过期时间字段：持有使用为此文件给出的过期时间 {ttl_ms} 毫秒")
            }
            SourceNote::TtlUnknown { file } => format!(
                "没有过期时间字段：锁的过期时间未知（不是永不过期），因此不判定任何租约过期，也不判定任何持有缺少过期时间；可在映射文件中映射一个字段（`[fields] ttl_ms = \"...\"`），或为此文件给出过期时间（`--ttl-ms {file}=MS`、映射文件中的 `ttl_ms = MS`，或窗口中的过期时间设置）"
            ),
            _ => self.zh_capture(),
        }
    }

    /// The Chinese of the MONITOR and capture notes.
    fn zh_capture(&self) -> String {
        match self {
            SourceNote::ExtraEvents { lines, events } => {
                format!("{lines} 行命令产生了 {events} 条事件；每条多出的事件都计为读取的一条记录")
            }
            SourceNote::Replayed {
                commands,
                in_scripts,
            } => format!("通过键空间模型回放了 {commands} 条命令（其中 {in_scripts} 条在脚本内）"),
            SourceNote::PooledClient { gap_ms } => format!(
                "连接池客户端：同一令牌在多个连接上发送，因此一次 `DEL` 只按它所在连接上的命令关联到请求，相邻命令间隔不超过 {gap_ms} 毫秒"
            ),
            SourceNote::DelsByRequest { dels } => format!(
                "{dels} 次对锁的 `DEL` 记在其连接上刚刚的请求所指的持有者名下（订单、读锁或令牌）（推断）"
            ),
            SourceNote::DelsGuessed { dels } => format!(
                "{dels} 次对锁的 `DEL` 在抓包中看不出是谁发出的：每次都记为该锁键持有者的自行释放（推断，持有者为猜测）"
            ),
            SourceNote::CaptureGap {
                from_line,
                to_line,
                restart,
            } => {
                let to = if *to_line == 0 {
                    "抓包结束".to_string()
                } else {
                    format!("第 {to_line} 行")
                };
                if *restart {
                    format!(
                        "从第 {from_line} 行到{to}有缺口：服务器关闭了 `MONITOR` 连接并拒绝新连接（服务器已停机）：视为无持久化的重启，之后所有键（连同锁）都已不存在（之前的锁消失）；缺口期间的命令不在抓包中（推断）"
                    )
                } else {
                    format!(
                        "从第 {from_line} 行到{to}有缺口：`MONITOR` 连接被关闭后重新打开（`CLIENT KILL`，哨兵重新配置服务器时会发送，或网络中断）；缺口期间的命令不在抓包中，键空间保持不变"
                    )
                }
            }
            SourceNote::UnknownCommands { commands } => {
                let list: Vec<String> = commands
                    .iter()
                    .map(|(c, n)| format!("`{c}` {n} 次"))
                    .collect();
                format!("未知命令：{}", list.join("、"))
            }
            SourceNote::KeysLinked { links } => {
                let lines: Vec<String> = links.iter().map(|l| l.text(true)).collect();
                format!(
                    "抓包中的锁键已关联到应用日志，每次持有只计一次（抓包是服务器视角）：{}",
                    lines.join("；")
                )
            }
            SourceNote::BusinessTied { lines } => format!(
                "{lines} 行业务日志没有锁键或持有者：每行都关联到当时在同一主机、进程和线程上运行的持有（推断）"
            ),
            SourceNote::ThreadHolders { lines } => {
                format!("{lines} 行锁日志没有令牌：持有者取其线程（推断）")
            }
            SourceNote::BusinessOnly { events } => {
                format!("{events} 条业务事件，没有锁事件：锁来自其他文件")
            }
            _ => self.zh_nodes(),
        }
    }

    /// The Chinese of the notes on captures combined.
    fn zh_nodes(&self) -> String {
        match self {
            SourceNote::Replica {
                client,
                master,
                events,
            } => format!(
                "副本：客户端 `{client}` 只是重复 `{master}` 的写入（它的 {events} 条锁事件都紧跟在那边相同的事件之后，且没有失败）：这是复制链路；它的副本被略去，每次授予只计一次"
            ),
            SourceNote::ReplicaLink { client, commands } => format!(
                "副本：客户端 `{client}` 是复制链路（它只写入，且是主节点复制的形式：先选库、绝对过期时间、脚本按其效果复制）；它的 {commands} 行命令更新本节点的键空间模型，但不产生事件：每次授予和每笔销售只按主节点自己的抓取计一次"
            ),
            SourceNote::Redlock {
                keys,
                nodes,
                quorum,
                matched,
                acquires,
                span_ms,
            } => format!(
                "Redlock：锁键 {} 写在 {} 份抓包上（{}），它们是同一个 Redlock 的节点：法定数量为 {} 个中的 {quorum} 个（{quorum} 个节点授予后才算一次持有）；{acquires} 次单节点获取中有 {matched} 次在 {span_ms} 毫秒内也在另一个节点上尝试过",
                keys.text(true),
                nodes.len(),
                quoted(nodes, "、"),
                nodes.len(),
            ),
            SourceNote::Failover { keys, moves } => {
                let moves: Vec<String> = moves
                    .iter()
                    .map(|(from, to, at)| format!("于 {at} 从 `{from}` 转到 `{to}`"))
                    .collect();
                format!(
                    "故障转移：锁键 {} 的写入{}（一个节点的锁写入停止后，下一个节点的才开始）：这是先后更替的同一个服务器，不是 Redlock；每个节点的持有都保留",
                    keys.text(true),
                    moves.join("，随后")
                )
            }
            SourceNote::NotRedlock {
                keys,
                nodes,
                matched,
                acquires,
                span_ms,
            } => format!(
                "不是 Redlock：锁键 {} 同时写在 {} 份抓包上（{}），但 {acquires} 次单节点获取中只有 {matched} 次在 {span_ms} 毫秒内也在另一个节点上尝试过；每个节点的持有都保留",
                keys.text(true),
                nodes.len(),
                quoted(nodes, "、"),
            ),
            SourceNote::ByValue { role, field } => format!(
                "{}：`{field}` 是按取值而非字段名选出的（推测；若不对，请在映射文件中指定）",
                role_zh(role)
            ),
            SourceNote::Parquet {
                rows,
                read,
                columns,
            } => format!(
                "Parquet：{rows} 行（行号即行序号）；读取了 {columns} 列中的 {} 列：`{}`",
                read.len(),
                read.join("`, `")
            ),
            SourceNote::Readers {
                winner,
                score,
                runner_up,
                runner_score,
            } => {
                format!(
                    "按 `{winner}` 读取（前几行的锁证据 {score}；`{runner_up}` 为 {runner_score}）"
                )
            }
            SourceNote::DataNode => {
                "Redlock：这份抓包没有写任何锁键：它是数据节点，不是锁节点之一，不计入任何法定数量"
                    .to_string()
            }
            _ => String::new(),
        }
    }
}

impl std::fmt::Display for SourceNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.en())
    }
}

impl Serialize for SourceNote {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.en())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One note of each kind, with the values it quotes.
    fn one_of_each() -> Vec<(SourceNote, Vec<&'static str>)> {
        let s = String::from;
        let keys = KeyList::of(vec!["lock:b", "lock:a"]);
        vec![
            (
                SourceNote::DamagedBytes {
                    lines: 2,
                    encoding: s("GB18030"),
                },
                vec!["GB18030"],
            ),
            (
                SourceNote::CoarseTime {
                    coarse: s("__time__"),
                    chosen: s("ts"),
                    resolution: s("ms"),
                },
                vec![],
            ),
            (
                SourceNote::AlsoPresent {
                    role: s("holder"),
                    chosen: s("owner"),
                    others: vec![s("client")],
                },
                vec![],
            ),
            (
                SourceNote::FieldsOfKind {
                    kind: s("text payloads"),
                    records: 3,
                    fields: vec![(s("key"), s("key")), (s("holder"), s("token"))],
                },
                vec!["JSON"],
            ),
            (
                SourceNote::TtlByName {
                    field: s("expire"),
                    seconds: true,
                },
                vec![],
            ),
            (
                SourceNote::TtlSecondsByValue {
                    field: s("ttl"),
                    max: s("3"),
                },
                vec!["3"],
            ),
            (
                SourceNote::TtlNanosByValue {
                    field: s("ttl"),
                    min: s("2000000000"),
                },
                vec!["2000000000"],
            ),
            (
                SourceNote::DockerParts {
                    parts: 3,
                    lines: 1,
                    open: 1,
                },
                vec!["3", "1", "1"],
            ),
            (
                SourceNote::YearAssumed {
                    year: 2026,
                    given: false,
                },
                vec!["2026"],
            ),
            (SourceNote::EventFromMessage, vec![]),
            (SourceNote::RecordNumbers, vec![]),
            (
                SourceNote::NaiveTimes {
                    offset: Some(s("+08:00")),
                    zone: None,
                },
                vec![],
            ),
            (
                SourceNote::NaiveTimes {
                    offset: None,
                    zone: Some(s("Asia/Shanghai")),
                },
                vec!["Asia/Shanghai"],
            ),
            (
                SourceNote::NaiveTimes {
                    offset: None,
                    zone: None,
                },
                vec![],
            ),
            (SourceNote::DateAdvanced { days: 1 }, vec![]),
            (SourceNote::TtlGiven { ttl_ms: 3000 }, vec![]),
            (SourceNote::TtlUnknown { file: s("app.log") }, vec![]),
            (
                SourceNote::ExtraEvents {
                    lines: 3,
                    events: 5,
                },
                vec![],
            ),
            (
                SourceNote::Replayed {
                    commands: 10,
                    in_scripts: 4,
                },
                vec![],
            ),
            (SourceNote::PooledClient { gap_ms: 50 }, vec![]),
            (SourceNote::DelsByRequest { dels: 2 }, vec![]),
            (SourceNote::DelsGuessed { dels: 1 }, vec![]),
            (
                SourceNote::CaptureGap {
                    from_line: 4,
                    to_line: 8,
                    restart: true,
                },
                vec![],
            ),
            (
                SourceNote::UnknownCommands {
                    commands: vec![(s("FROB"), 2)],
                },
                vec![],
            ),
            (
                SourceNote::KeysLinked {
                    links: vec![
                        KeyLink::Tokens {
                            capture: s("{a}"),
                            app: s("a"),
                            tokens: 3,
                        },
                        KeyLink::Spelling {
                            capture: s("lib:b"),
                            app: s("b"),
                        },
                        KeyLink::Ambiguous { capture: s("c") },
                    ],
                },
                vec![],
            ),
            (SourceNote::BusinessTied { lines: 7 }, vec![]),
            (SourceNote::ThreadHolders { lines: 1 }, vec![]),
            (SourceNote::BusinessOnly { events: 3 }, vec![]),
            (
                SourceNote::Replica {
                    client: s("10.0.0.2:6379"),
                    master: s("m.log"),
                    events: 9,
                },
                vec![],
            ),
            (
                SourceNote::ReplicaLink {
                    client: s("127.0.0.1:6486"),
                    commands: 6,
                },
                vec![],
            ),
            (
                SourceNote::Redlock {
                    keys: keys.clone(),
                    nodes: vec![s("n1.log"), s("n2.log"), s("n3.log")],
                    quorum: 2,
                    matched: 5,
                    acquires: 6,
                    span_ms: 1000,
                },
                vec![],
            ),
            (
                SourceNote::Failover {
                    keys: keys.clone(),
                    moves: vec![(s("a.log"), s("b.log"), s("2025-03-03T10:20:05.100+08:00"))],
                },
                vec!["2025-03-03T10:20:05.100+08:00"],
            ),
            (
                SourceNote::NotRedlock {
                    keys,
                    nodes: vec![s("n1.log"), s("n2.log")],
                    matched: 0,
                    acquires: 6,
                    span_ms: 1000,
                },
                vec![],
            ),
            (SourceNote::DataNode, vec![]),
            (
                SourceNote::Readers {
                    winner: s("text lines"),
                    score: 120,
                    runner_up: s("CSV"),
                    runner_score: 0,
                },
                vec![],
            ),
            (
                SourceNote::ByValue {
                    role: s("holder"),
                    field: s("x_ref"),
                },
                vec![],
            ),
            (
                SourceNote::Parquet {
                    rows: 12,
                    read: vec![s("ts"), s("lock_key")],
                    columns: 9,
                },
                vec!["Parquet"],
            ),
        ]
    }

    /// A number for each kind: adding a kind does not compile until it is
    /// counted here, and then [`one_of_each`] must give one.
    fn kind(n: &SourceNote) -> usize {
        match n {
            SourceNote::DamagedBytes { .. } => 0,
            SourceNote::CoarseTime { .. } => 1,
            SourceNote::AlsoPresent { .. } => 2,
            SourceNote::TtlByName { .. } => 3,
            SourceNote::EventFromMessage => 4,
            SourceNote::RecordNumbers => 5,
            SourceNote::NaiveTimes { .. } => 6,
            SourceNote::TtlGiven { .. } => 7,
            SourceNote::TtlUnknown { .. } => 8,
            SourceNote::ExtraEvents { .. } => 9,
            SourceNote::Replayed { .. } => 10,
            SourceNote::PooledClient { .. } => 11,
            SourceNote::DelsByRequest { .. } => 12,
            SourceNote::DelsGuessed { .. } => 13,
            SourceNote::UnknownCommands { .. } => 14,
            SourceNote::KeysLinked { .. } => 15,
            SourceNote::BusinessTied { .. } => 16,
            SourceNote::ThreadHolders { .. } => 17,
            SourceNote::Replica { .. } => 18,
            SourceNote::Redlock { .. } => 19,
            SourceNote::Failover { .. } => 20,
            SourceNote::NotRedlock { .. } => 21,
            SourceNote::DataNode => 22,
            SourceNote::CaptureGap { .. } => 23,
            SourceNote::DateAdvanced { .. } => 24,
            SourceNote::BusinessOnly { .. } => 25,
            SourceNote::Readers { .. } => 26,
            SourceNote::ReplicaLink { .. } => 27,
            SourceNote::FieldsOfKind { .. } => 28,
            SourceNote::Parquet { .. } => 29,
            SourceNote::ByValue { .. } => 30,
            SourceNote::TtlSecondsByValue { .. } => 31,
            SourceNote::TtlNanosByValue { .. } => 32,
            SourceNote::DockerParts { .. } => 33,
            SourceNote::YearAssumed { .. } => 34,
        }
    }

    /// `text` without its `quoted` spans and the unquoted values given.
    fn unquoted(text: &str, values: &[&str]) -> String {
        let mut rest: String = text.split('`').step_by(2).collect();
        for v in values {
            rest = rest.replace(v, "");
        }
        rest
    }

    #[test]
    fn every_note_kind_reads_in_chinese_with_only_its_quoted_names_in_ascii() {
        let notes = one_of_each();
        let kinds: std::collections::BTreeSet<usize> = notes.iter().map(|(n, _)| kind(n)).collect();
        assert_eq!(kinds.len(), 35, "one note of each kind");
        for (note, values) in &notes {
            let en = note.text(false);
            let zh = note.text(true);
            assert!(!en.is_empty() && !zh.is_empty(), "{note:?}");
            assert_eq!(en, note.to_string());
            assert_eq!(
                serde_json::to_string(note).expect("json"),
                serde_json::to_string(&en).expect("json"),
                "the JSON holds the English"
            );
            // Proper names that Chinese writes as they are.
            let rest = unquoted(&zh, values)
                .replace("Redlock", "")
                .replace("UTC", "");
            let ascii: String = rest.chars().filter(char::is_ascii_alphabetic).collect();
            assert!(ascii.is_empty(), "{ascii:?} in {zh}");
            assert!(
                zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{zh}"
            );
        }
    }

    #[test]
    fn the_english_of_a_note_is_the_sentence_the_readers_wrote() {
        let n = SourceNote::DamagedBytes {
            lines: 1,
            encoding: "UTF-8".into(),
        };
        assert_eq!(n.to_string(), "1 line(s) had bytes invalid in UTF-8");
        let keys = KeyList::of(vec!["k2", "k1", "k3"]);
        let n = SourceNote::Failover {
            keys,
            moves: vec![("a".into(), "b".into(), "T1".into())],
        };
        assert!(
            n.to_string().starts_with(
                "Failover: the writes to lock key `k1` and 2 more move from `a` to `b` at T1 ("
            ),
            "{n}"
        );
        assert!(n.text(true).contains("`k1` 等 3 个"), "{}", n.text(true));
    }
}

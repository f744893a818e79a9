//! What a reader noted about a file ([`SourceNote`]), typed so that the
//! reports and the window print it in English or Simplified Chinese; the
//! JSON report keeps the English sentence.

use serde::Serialize;

use super::message::Message;

mod en;
mod zh;

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
    /// `kind` have fields of their own, picked from them.
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
    /// The lock roles chosen by how well the lock protocol fits, no list
    /// knowing the names (`ingest/roles/protocol/`): the columns, the holds
    /// found and how many fit, the score (0 to 1) and the runner-up; a
    /// guess unless every name confirmed it and no runner-up came close.
    RolesByProtocol {
        /// The lock key's field.
        key: String,
        /// The holder's field.
        holder: String,
        /// The event's field.
        event: String,
        /// Holds found in the sample.
        holds: u64,
        /// Holds that fit acquire, work, renewals, release.
        fitting: u64,
        /// The score, two decimals.
        score: String,
        /// The best choice with another key or holder: its key and holder
        /// fields and its score.
        runner_up: Option<(String, String, String)>,
        /// Said as a guess.
        guess: bool,
    },
    /// What each event word means, chosen by where it stands in the holds
    /// (a holder's first step an acquire, its last a release, a step
    /// repeated between them with a TTL a renewal; a failure word or a
    /// warning level its failed form) and by the business columns its
    /// lines carry: `(word, kind)`.
    EventsByProtocol {
        /// (the word as written, its kind's name)
        kinds: Vec<(String, String)>,
    },
    /// A TTL field's unit chosen by the protocol: the unit that makes the
    /// TTLs fit inside the gaps before other holders took the key
    /// (`takeovers`), or by the values' size when no key was taken over.
    TtlUnitByProtocol {
        /// The field.
        field: String,
        /// `s`, `ms` or `ns`.
        unit: String,
        /// Takeovers the TTLs fit in that unit; `None`: by size.
        takeovers: Option<u64>,
    },
    /// The names left the lock roles undecided and no choice of columns
    /// fits the protocol: nothing was chosen.
    ProtocolUndecided {
        /// Records looked at.
        records: u64,
        /// The share of holds that fit under the best choice; `None` when
        /// no choice gave two holders a key.
        fitting: Option<String>,
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
    /// Rows `lockreplay fetch` pulled out of a table: whether they can give
    /// the loss depends on what was pulled beside them
    /// ([`crate::analysis::Problem::PulledLossUnknown`]).
    Pulled {
        /// The table (or the cluster's table) the rows came from.
        table: String,
    },
    /// A file read as evidence (a server's, Sentinel's, GC or operator log)
    /// in which nothing explains a lock (no pause, failover, restart, flush
    /// or eviction), beside files that carry the locks: read, not an error.
    NoEvidence {
        /// The layout it was read as (`JVM unified GC log (-Xlog:gc*)`).
        layout: String,
        /// Its lines.
        lines: u64,
    },
    /// The server's eviction policy, from `INFO` or `CONFIG GET` output:
    /// under `maxmemory` it may evict lock keys (any policy but
    /// `noeviction`).
    EvictionPolicy {
        /// `maxmemory-policy` (`volatile-ttl`, `allkeys-lru`...).
        policy: String,
        /// `INFO`'s `evicted_keys`, when given.
        evicted: Option<u64>,
    },
    /// A MONITOR capture shows that a lock key vanished from the server
    /// while its holder's lease ran (docs/semantics.md §8, "Keys that
    /// vanish"): the model drops it where the stream says, and the holder's
    /// lease ends there as `lock_vanished`.
    LockVanished {
        /// The lock key.
        key: String,
        /// The holder whose key vanished.
        holder: String,
        /// The last line of the capture that saw the key held (0: none).
        seen_line: u64,
        /// What shows it vanished.
        proof: VanishProof,
        /// From when it may have vanished (the last command that saw it),
        /// ns since the epoch: where evidence of the cause is looked for.
        from_ns: i64,
        /// When it had vanished at the latest, ns.
        to_ns: i64,
        /// The likely cause, from the evidence at hand.
        cause: VanishCause,
    },
    /// A role's field chosen by its values, no name of it known (event
    /// words, date-time texts, tokens that recur across a hold's lines):
    /// a guess, said as one.
    ByValue {
        /// The role (`event`, `time`, `holder`).
        role: String,
        /// The field chosen.
        field: String,
    },
    /// A Parquet file, read as one record per row (line numbers are row
    /// numbers), only the columns the roles need when they could be told
    /// from the first rows.
    Parquet {
        /// Rows read.
        rows: u64,
        /// The columns read, in the file's order.
        read: Vec<String>,
        /// Columns in the file.
        columns: u64,
    },
    /// The structure found on a text file's head, which no known layout
    /// reads (`ingest::framing::structure`): the time's format, the start
    /// pattern of a record, and whether records span several lines.
    TextStructure {
        /// The time's format as a pattern (`MM-dd HH:mm:ss.SSS`).
        format: String,
        /// A record's start pattern (`^\S+ yyyy-MM-dd HH:mm:ss.SSS`).
        start: String,
        /// Some records continue on the lines after their first.
        multiline: bool,
        /// Lines of the head the structure was learned on.
        sampled: u64,
        /// Of them, the lines that start a record.
        starts: u64,
    },
    /// Times without a date or a year were completed: with `value` (a
    /// date `yyyy-MM-dd`, or a year) from `from`.
    DateSupplied {
        /// The date or the year put on the first such time.
        value: String,
        /// Only the year was missing.
        year_only: bool,
        /// Where it came from.
        from: DateFrom,
    },
    /// A systemd journal export (`journalctl -o export`), read as one
    /// JSON record per entry: line numbers are entry numbers.
    JournalExport {
        /// Entries read.
        entries: u64,
        /// Fields written binary-safe (a length, then the bytes).
        binary: u64,
    },
    /// Which reader read the file: the contest of readers on its head
    /// (`ingest::containers::contest`), winner and runner-up with the lock
    /// evidence each found.
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
    /// A field chosen as the steps' outcome by the lock protocol, no name
    /// of it known: its false values fall on acquires made while another
    /// holder's lease was live (SET NX failed), its true values mostly do
    /// not. A guess, said as one; an acquire it says failed is a failed
    /// acquire.
    OutcomeByProtocol {
        /// The field.
        field: String,
        /// Acquires in the sample it says failed.
        failed: u64,
        /// Of those, the ones made while another holder's lease was live.
        on_live: u64,
    },
}

/// Where a date or a year a time lacks was taken from, in the order they
/// are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum DateFrom {
    /// The mapping file's `date`.
    Mapping,
    /// The file's name (`app-2026-12-01.log`).
    FileName,
    /// The first line of the file that has a full date.
    DatedLine,
    /// Each record's envelope time (the shipper's full time on the same
    /// record): the day that puts the time of day nearest it. `value` is
    /// the first record's date.
    Envelope,
    /// Assumed: today's date, or this year (last year when that put the
    /// times ahead of now).
    Assumed,
}

/// What in a MONITOR capture shows that a lock key vanished.
#[derive(Clone, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum VanishProof {
    /// A write that succeeds only on an absent key won while the model
    /// held the key: `command` (`SET NX`, `SETNX`, a script's `hincrby`)
    /// by `winner` at `line`, as `shown_by` (`PEXPIRE`, the script's `del`)
    /// at `shown_line` shows. The key is dropped just before `line`.
    Won {
        /// The winning write's command.
        command: String,
        /// The holder whose write won.
        winner: String,
        /// Its line.
        line: u64,
        /// The command that shows it won (the write itself for a script's
        /// acquire).
        shown_by: String,
        /// That command's line.
        shown_line: u64,
    },
    /// A command of the capture dropped it (`FLUSHDB`, `FLUSHALL`).
    Dropped {
        /// The command.
        command: String,
        /// The client that sent it.
        client: String,
        /// Its line.
        line: u64,
    },
    /// The server could not be reached in a gap of the capture: it
    /// restarted, without persistence its keys are gone.
    Restarted {
        /// The gap's first line.
        from_line: u64,
        /// The line that closes it.
        to_line: u64,
    },
}

/// The likely cause of a vanished lock key, from the evidence at hand.
#[derive(Clone, Debug, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub enum VanishCause {
    /// The capture itself shows it ([`VanishProof::Dropped`],
    /// [`VanishProof::Restarted`]).
    InCapture,
    /// An evidence line between the last command that saw the key and the
    /// write that found it gone (a restart, a failover, a flush, an
    /// eviction).
    Evidence {
        /// Its kind (`restart`, `eviction`...).
        kind: String,
        /// Its file (no folders).
        file: String,
        /// Its line.
        line: u64,
    },
    /// The server evicts keys under `maxmemory` (its policy, read from
    /// `INFO` or `CONFIG GET` output), but no eviction is logged at that
    /// time: a guess.
    Policy {
        /// The policy (`volatile-ttl`, `allkeys-lru`...).
        policy: String,
        /// The file that says it.
        file: String,
    },
    /// Nothing at hand says why.
    Unknown,
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
        Message::text(self, zh)
    }
}

impl Message for KeyLink {
    fn en(&self) -> String {
        en::key_link(self)
    }

    fn zh(&self) -> String {
        zh::key_link(self)
    }
}

impl SourceNote {
    /// The note as a sentence, in Simplified Chinese with `zh` (ids, field
    /// and file names quoted as they are), else in English.
    pub fn text(&self, zh: bool) -> String {
        Message::text(self, zh)
    }
}

impl Message for SourceNote {
    fn en(&self) -> String {
        en::note(self)
    }

    fn zh(&self) -> String {
        zh::note(self)
    }
}

impl std::fmt::Display for SourceNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&en::note(self))
    }
}

impl Serialize for SourceNote {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&en::note(self))
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
            (
                SourceNote::RolesByProtocol {
                    key: s("cerrojo"),
                    holder: s("titular"),
                    event: s("suceso"),
                    holds: 3,
                    fitting: 3,
                    score: s("0.39"),
                    runner_up: Some((s("cerrojo"), s("hostname"), s("0.26"))),
                    guess: true,
                },
                vec!["cerrojo", "titular", "suceso", "hostname"],
            ),
            (
                SourceNote::EventsByProtocol {
                    kinds: vec![(s("mutex_grabbed"), s("acquired"))],
                },
                vec!["mutex_grabbed", "acquired"],
            ),
            (
                SourceNote::TtlUnitByProtocol {
                    field: s("plazo"),
                    unit: s("s"),
                    takeovers: Some(2),
                },
                vec!["plazo"],
            ),
            (
                SourceNote::ProtocolUndecided {
                    records: 40,
                    fitting: Some(s("30 %")),
                },
                vec![],
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
                SourceNote::Pulled {
                    table: s("shop.locks"),
                },
                vec!["shop.locks", "lockreplay fetch"],
            ),
            (
                SourceNote::OutcomeByProtocol {
                    field: s("ok"),
                    failed: 2,
                    on_live: 2,
                },
                vec!["ok"],
            ),
            (
                SourceNote::NoEvidence {
                    layout: s("JVM unified GC log (-Xlog:gc*)"),
                    lines: 6,
                },
                vec!["JVM unified GC log (-Xlog:gc*)"],
            ),
            (
                SourceNote::EvictionPolicy {
                    policy: s("volatile-ttl"),
                    evicted: Some(23),
                },
                vec![],
            ),
            (
                SourceNote::EvictionPolicy {
                    policy: s("noeviction"),
                    evicted: None,
                },
                vec![],
            ),
            (
                SourceNote::LockVanished {
                    key: s("lock:evict"),
                    holder: s("buyer-a"),
                    seen_line: 3,
                    proof: VanishProof::Won {
                        command: s("SET NX"),
                        winner: s("buyer-b"),
                        line: 9,
                        shown_by: s("PEXPIRE"),
                        shown_line: 10,
                    },
                    from_ns: 0,
                    to_ns: 1,
                    cause: VanishCause::Policy {
                        policy: s("volatile-ttl"),
                        file: s("info.txt"),
                    },
                },
                vec![
                    "SET NX",
                    "PEXPIRE",
                    "volatile-ttl",
                    "info.txt",
                    "lock_vanished",
                ],
            ),
            (
                SourceNote::LockVanished {
                    key: s("lock:flush"),
                    holder: s("buyer-a"),
                    seen_line: 3,
                    proof: VanishProof::Dropped {
                        command: s("FLUSHDB"),
                        client: s("127.0.0.1:35382"),
                        line: 5,
                    },
                    from_ns: 0,
                    to_ns: 1,
                    cause: VanishCause::InCapture,
                },
                vec!["FLUSHDB", "127.0.0.1:35382", "lock_vanished"],
            ),
            (
                SourceNote::LockVanished {
                    key: s("lock:r"),
                    holder: s("buyer-a"),
                    seen_line: 0,
                    proof: VanishProof::Restarted {
                        from_line: 4,
                        to_line: 6,
                    },
                    from_ns: 0,
                    to_ns: 1,
                    cause: VanishCause::InCapture,
                },
                vec!["lock_vanished"],
            ),
            (
                SourceNote::LockVanished {
                    key: s("lock:u"),
                    holder: s("buyer-a"),
                    seen_line: 3,
                    proof: VanishProof::Won {
                        command: s("hincrby"),
                        winner: s("b:1"),
                        line: 9,
                        shown_by: s("hincrby"),
                        shown_line: 9,
                    },
                    from_ns: 0,
                    to_ns: 1,
                    cause: VanishCause::Evidence {
                        kind: s("restart"),
                        file: s("redis.log"),
                        line: 12,
                    },
                },
                vec!["hincrby", "b:1", "redis.log", "lock_vanished"],
            ),
            (
                SourceNote::LockVanished {
                    key: s("lock:v"),
                    holder: s("buyer-a"),
                    seen_line: 3,
                    proof: VanishProof::Won {
                        command: s("SETNX"),
                        winner: s("b"),
                        line: 9,
                        shown_by: s("EXPIRE"),
                        shown_line: 10,
                    },
                    from_ns: 0,
                    to_ns: 1,
                    cause: VanishCause::Unknown,
                },
                vec!["SETNX", "EXPIRE", "lock_vanished"],
            ),
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
                SourceNote::TextStructure {
                    format: s("MM-dd HH:mm:ss.SSS"),
                    start: s("^\\S+ MM-dd HH:mm:ss.SSS"),
                    multiline: true,
                    sampled: 40,
                    starts: 20,
                },
                vec!["MM-dd HH:mm:ss.SSS", "^\\S+ MM-dd HH:mm:ss.SSS"],
            ),
            (
                SourceNote::DateSupplied {
                    value: s("2026"),
                    year_only: true,
                    from: DateFrom::FileName,
                },
                vec!["2026"],
            ),
            (
                SourceNote::DateSupplied {
                    value: s("2026-12-01"),
                    year_only: false,
                    from: DateFrom::Assumed,
                },
                vec!["2026-12-01", "YYYY-MM-DD"],
            ),
            (
                SourceNote::DateSupplied {
                    value: s("2026-12-01"),
                    year_only: false,
                    from: DateFrom::DatedLine,
                },
                vec!["2026-12-01"],
            ),
            (
                SourceNote::DateSupplied {
                    value: s("2026"),
                    year_only: true,
                    from: DateFrom::Mapping,
                },
                vec!["2026"],
            ),
            (
                SourceNote::DateSupplied {
                    value: s("2026-11-30"),
                    year_only: false,
                    from: DateFrom::Envelope,
                },
                vec!["2026-11-30"],
            ),
            (
                SourceNote::JournalExport {
                    entries: 12,
                    binary: 1,
                },
                vec!["systemd"],
            ),
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
            SourceNote::RolesByProtocol { .. } => 35,
            SourceNote::EventsByProtocol { .. } => 36,
            SourceNote::TtlUnitByProtocol { .. } => 37,
            SourceNote::ProtocolUndecided { .. } => 38,
            SourceNote::TextStructure { .. } => 39,
            SourceNote::DateSupplied { .. } => 40,
            SourceNote::JournalExport { .. } => 41,
            SourceNote::NoEvidence { .. } => 42,
            SourceNote::LockVanished { .. } => 43,
            SourceNote::EvictionPolicy { .. } => 44,
            SourceNote::Pulled { .. } => 45,
            SourceNote::OutcomeByProtocol { .. } => 46,
        }
    }

    #[test]
    fn every_note_kind_reads_in_chinese_with_only_its_quoted_names_in_ascii() {
        let notes = one_of_each();
        let kinds: std::collections::BTreeSet<usize> = notes.iter().map(|(n, _)| kind(n)).collect();
        assert_eq!(kinds.len(), 47, "one note of each kind");
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
            let mut values = values.clone();
            values.extend(["Redlock", "UTC"]);
            let ascii = crate::model::message::english_left(&zh, &values);
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

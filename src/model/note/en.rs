//! The English of every [`SourceNote`]: what the JSON report holds.

use super::{DateFrom, KeyLink, KeyList, SourceNote, VanishCause, VanishProof};
use crate::model::message::quoted;

/// The lock keys of a note: `` `k1` `` or `` `k1` and 2 more ``.
pub(super) fn key_list(k: &KeyList) -> String {
    match (&k.first, k.more) {
        (None, _) => String::new(),
        (Some(first), 0) => format!("`{first}`"),
        (Some(first), n) => format!("`{first}` and {n} more"),
    }
}

/// How a capture key was linked, as a clause.
pub(super) fn key_link(l: &KeyLink) -> String {
    match l {
        KeyLink::Tokens {
            capture,
            app,
            tokens,
        } => format!("`{capture}` is the application's `{app}` ({tokens} holder token(s) on both)"),
        KeyLink::Spelling { capture, app } => format!(
            "`{capture}` is the application's `{app}` (no shared token: by its spelling behind a library prefix, inferred)"
        ),
        KeyLink::Ambiguous { capture } => {
            format!("`{capture}` could be several application keys and was left as it is")
        }
    }
}

/// The English sentence of `n`.
pub(super) fn note(n: &SourceNote) -> String {
    match n {
        SourceNote::RolesByProtocol { .. } => roles_by_protocol(n),
        SourceNote::EventsByProtocol { kinds } => format!(
            "event words by where they stand in the holds: {}",
            kinds
                .iter()
                .map(|(w, k)| format!("`{w}` {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        SourceNote::TtlUnitByProtocol {
            field,
            unit,
            takeovers: Some(n),
        } => format!(
            "ttl: `{field}` read in {unit}: in that unit the TTLs fit the {n} takeover(s) of a key by another holder, a guess (map `ttl_ms` or `ttl_s` to it if it is another)"
        ),
        SourceNote::TtlUnitByProtocol {
            field,
            unit,
            takeovers: None,
        } => format!(
            "ttl: `{field}` read in {unit} by its values' size (no key was taken over to judge by), a guess"
        ),
        SourceNote::ProtocolUndecided { records, fitting } => match fitting {
            Some(f) => format!(
                "no field names the lock key, holder or event, and no choice of fields fits the lock protocol in the first {records} records (at best {f} of the holds fit): name them in a mapping file"
            ),
            None => format!(
                "no field names the lock key, holder or event, and no choice of fields gives two holders one key in the first {records} records: name them in a mapping file"
            ),
        },
        SourceNote::EventFromMessage => {
            "no event field: event names are read from the message".to_string()
        }
        SourceNote::RecordNumbers => "line numbers are record numbers in this export".to_string(),
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
        _ => reading(n),
    }
}

/// The English of the notes on how the file's bytes, times, fields and TTL
/// were read.
fn reading(n: &SourceNote) -> String {
    match n {
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
        SourceNote::YearAssumed { year, given: true } => {
            format!("RFC 3164 times carry no year: read in {year}, the year of the mapping's date")
        }
        SourceNote::YearAssumed { year, given: false } => format!(
            "RFC 3164 times carry no year: read in {year}, assumed (give it with `date = \"YYYY-MM-DD\"` in a mapping file if it is another)"
        ),
        _ => capture(n),
    }
}

/// The English of the MONITOR and capture notes.
fn capture(n: &SourceNote) -> String {
    match n {
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
            let lines: Vec<String> = links.iter().map(key_link).collect();
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
            format!("{lines} lock line(s) named no token: the holder is their thread (inferred)")
        }
        SourceNote::BusinessOnly { events } => format!(
            "{events} business event(s) and no lock event: the locks come from the other files"
        ),
        SourceNote::Pulled { table } => {
            format!("rows pulled from {table} by `lockreplay fetch`")
        }
        SourceNote::OutcomeByProtocol {
            field,
            failed,
            on_live,
        } => format!(
            "outcome: `{field}` read as each step's result: {on_live} of the {failed} acquire(s) it says failed came while another holder's lease was live, a guess (an acquire it says failed is a failed attempt; map `outcome` to another field if it is not)"
        ),
        SourceNote::LockVanished { .. } => vanished(n),
        SourceNote::EvictionPolicy { policy, evicted } => {
            let evicted = evicted
                .map(|n| format!(", {n} key(s) evicted so far"))
                .unwrap_or_default();
            if policy == "noeviction" {
                format!("eviction policy `{policy}`: the server evicts no key{evicted}")
            } else {
                format!(
                    "eviction policy `{policy}`: under maxmemory the server may evict lock keys{evicted}"
                )
            }
        }
        SourceNote::NoEvidence { layout, lines } => format!(
            "read as evidence ({layout}, {lines} line(s)): no pause, failover or restart in this \
             file, nothing in it explains the locks of the other files"
        ),
        _ => nodes(n),
    }
}

/// The English of the notes on captures combined (Redlock, failover).
fn nodes(n: &SourceNote) -> String {
    match n {
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
            key_list(keys),
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
                key_list(keys),
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
            key_list(keys),
            nodes.len(),
            quoted(nodes, ", "),
        ),
        SourceNote::DataNode => {
            "Redlock: no lock key is written in this capture: a data node, not one of the lock \
             nodes, and it does not count toward any quorum"
                .to_string()
        }
        _ => layout(n),
    }
}

/// The English of the notes on how the file's layout was read: a field
/// chosen by its values, Parquet columns, the reader contest, a structure
/// found, a journal export, a date supplied.
fn layout(n: &SourceNote) -> String {
    match n {
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
        SourceNote::TextStructure {
            format,
            start,
            multiline,
            sampled,
            starts,
        } => format!(
            "structure found: no known layout reads this text, so records were found by their time (`{format}`): a record starts at `{start}` ({starts} of the first {sampled} lines){}",
            if *multiline {
                "; the lines between continue the record before them"
            } else {
                ""
            }
        ),
        SourceNote::JournalExport { entries, binary } => format!(
            "systemd journal export: {entries} entr(ies) read as one record each ({binary} binary-safe field(s)); line numbers are entry numbers"
        ),
        SourceNote::DateSupplied {
            value,
            year_only,
            from,
        } => {
            let what = if *year_only {
                "times carry no year: read in"
            } else {
                "times carry no date: read on"
            };
            let whence = match from {
                DateFrom::Mapping => "the mapping's date",
                DateFrom::FileName => "from the file's name",
                DateFrom::DatedLine => "from the first line with a date",
                DateFrom::Envelope => {
                    "on each record the day nearest its envelope's time (the first shown)"
                }
                DateFrom::Assumed => {
                    "assumed (give it with `date = \"YYYY-MM-DD\"` in a mapping file if it is another)"
                }
            };
            format!("{what} {value}, {whence}")
        }
        _ => String::new(),
    }
}

/// [`SourceNote::RolesByProtocol`] in English.
fn roles_by_protocol(note: &SourceNote) -> String {
    let SourceNote::RolesByProtocol {
        key,
        holder,
        event,
        holds,
        fitting,
        score,
        runner_up,
        guess,
    } = note
    else {
        return String::new();
    };
    let runner = runner_up.as_ref().map_or(String::new(), |(k, h, s)| {
        format!("; runner-up key `{k}`, holder `{h}` ({s})")
    });
    format!(
        "roles by the lock protocol{}: key `{key}`, holder `{holder}`, event `{event}` ({fitting} of {holds} holds fit, score {score}{runner})",
        if *guess { ", a guess" } else { "" }
    )
}

/// [`SourceNote::LockVanished`] in English.
fn vanished(n: &SourceNote) -> String {
    let SourceNote::LockVanished {
        key,
        holder,
        seen_line,
        proof,
        cause,
        ..
    } = n
    else {
        return String::new();
    };
    let seen = if *seen_line > 0 {
        format!(" after line {seen_line} (the last command that saw it)")
    } else {
        String::new()
    };
    let how = match proof {
        VanishProof::Won {
            command,
            winner,
            line,
            shown_by,
            shown_line,
        } => {
            let shown = if shown_line == line {
                String::new()
            } else {
                format!(", as its `{shown_by}` at line {shown_line} shows")
            };
            format!(
                "`{command}` by `{winner}` at line {line} won while the model still held the key{shown}: \
                 the key was gone before it (dropped there, at the latest time the stream allows)"
            )
        }
        VanishProof::Dropped {
            command,
            client,
            line,
        } => format!("`{command}` from `{client}` at line {line} dropped it"),
        VanishProof::Restarted { from_line, to_line } => format!(
            "the server could not be reached between lines {from_line} and {to_line}: it restarted, \
             and without persistence its keys are gone"
        ),
    };
    let why = match cause {
        VanishCause::InCapture => String::new(),
        VanishCause::Evidence { kind, file, line } => {
            format!("; likely cause: the {kind} at {file}:{line}")
        }
        VanishCause::Policy { policy, file } => format!(
            "; likely cause: an eviction under maxmemory (policy `{policy}` in {file}; no eviction is \
             logged at that time: a guess)"
        ),
        VanishCause::Unknown => "; cause unknown (no restart, failover, flush or eviction policy \
             at hand)"
            .to_string(),
    };
    format!(
        "lock key `{key}` of `{holder}` vanished from the server{seen}: {how}; its lease ends there \
         (lock_vanished){why}"
    )
}

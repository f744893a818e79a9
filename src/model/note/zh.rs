//! The Simplified Chinese of every [`SourceNote`], in the reports' words
//! (锁键, 持有者, 租约, 过期时间); field, file and command names quoted as
//! they are.

use super::{DateFrom, KeyLink, KeyList, SourceNote, VanishCause, VanishProof};
use crate::model::message::{quoted, resolution_zh, role_zh};

/// The lock keys of a note: `` `k1` `` or `` `k1` 等 3 个 ``.
pub(super) fn key_list(k: &KeyList) -> String {
    match (&k.first, k.more) {
        (None, _) => String::new(),
        (Some(first), 0) => format!("`{first}`"),
        (Some(first), n) => format!("`{first}` 等 {} 个", n + 1),
    }
}

/// How a capture key was linked, as a clause.
pub(super) fn key_link(l: &KeyLink) -> String {
    match l {
        KeyLink::Tokens {
            capture,
            app,
            tokens,
        } => format!("`{capture}` 即应用的 `{app}`（两边共有 {tokens} 个持有者令牌）"),
        KeyLink::Spelling { capture, app } => {
            format!("`{capture}` 即应用的 `{app}`（没有共同令牌：按去掉库前缀后的拼写，推断）")
        }
        KeyLink::Ambiguous { capture } => format!("`{capture}` 可能对应多个应用锁键，保持原样"),
    }
}

/// The Chinese sentence of `n`.
pub(super) fn note(n: &SourceNote) -> String {
    match n {
        SourceNote::RolesByProtocol { .. } => roles_by_protocol(n),
        SourceNote::EventsByProtocol { kinds } => format!(
            "按事件词在持有过程中的位置判断：{}",
            kinds
                .iter()
                .map(|(w, k)| format!("`{w}` 为 {k}"))
                .collect::<Vec<_>>()
                .join("，")
        ),
        SourceNote::TtlUnitByProtocol {
            field,
            unit,
            takeovers: Some(n),
        } => format!(
            "过期时间：`{field}` 按 {} 读取：以此单位，过期时间与 {n} 次被其他持有者接手的间隔相符，这是推测（若不是，请把 `ttl_ms` 或 `ttl_s` 映射到它）",
            unit_zh(unit)
        ),
        SourceNote::TtlUnitByProtocol {
            field,
            unit,
            takeovers: None,
        } => format!(
            "过期时间：`{field}` 按其值的大小以 {} 读取（没有可供判断的接手），这是推测",
            unit_zh(unit)
        ),
        SourceNote::ProtocolUndecided { records, fitting } => match fitting {
            Some(f) => format!(
                "没有字段名标明锁键、持有者或事件，前 {records} 条记录中也没有哪种字段组合符合加锁协议（最好也只有 {f} 的持有过程符合）：请在映射文件中指定"
            ),
            None => format!(
                "没有字段名标明锁键、持有者或事件，前 {records} 条记录中也没有哪种字段组合让两个持有者共用一个锁键：请在映射文件中指定"
            ),
        },
        SourceNote::EventFromMessage => "没有事件字段：事件名从消息中读取".to_string(),
        SourceNote::RecordNumbers => "此导出中的行号是记录序号".to_string(),
        SourceNote::NaiveTimes { offset, zone } => match (offset, zone) {
            (Some(f), _) => format!("没有时区偏移的时间按 UTC{f} 读取"),
            (None, Some(z)) => format!("没有时区偏移的时间按 {z} 时区读取"),
            (None, None) => "没有时区偏移的时间按 UTC 读取（若是本地时间，请设置时区）".to_string(),
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
        _ => reading(n),
    }
}

/// The Chinese of the notes on how the file's bytes, times, fields and TTL
/// were read.
fn reading(n: &SourceNote) -> String {
    match n {
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
        _ => capture(n),
    }
}

/// The Chinese of the MONITOR and capture notes.
fn capture(n: &SourceNote) -> String {
    match n {
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
            let lines: Vec<String> = links.iter().map(key_link).collect();
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
        SourceNote::Pulled { table } => format!("由 `lockreplay fetch` 从 {table} 拉取的行"),
        SourceNote::OutcomeByProtocol {
            field,
            failed,
            on_live,
        } => format!(
            "结果：`{field}` 被读作每一步的结果：它标为失败的 {failed} 次加锁中，有 {on_live} 次发生在另一持有者的租约仍有效时，这是推测（它标为失败的加锁算作加锁失败；若不是，请把 `outcome` 映射到别的字段）"
        ),
        SourceNote::LockVanished { .. } => vanished(n),
        SourceNote::EvictionPolicy { policy, evicted } => {
            let evicted = evicted
                .map(|n| format!("，至今已淘汰 {n} 个键"))
                .unwrap_or_default();
            if policy == "noeviction" {
                format!("淘汰策略 `{policy}`：服务器不淘汰任何键{evicted}")
            } else {
                format!("淘汰策略 `{policy}`：内存达到 `maxmemory` 时服务器可能淘汰锁键{evicted}")
            }
        }
        SourceNote::NoEvidence { layout, lines } => format!(
            "作为证据读取（{layout}，{lines} 行）：此文件中没有停顿、故障转移或重启，其中没有能解释其他文件中锁的内容"
        ),
        _ => nodes(n),
    }
}

/// The Chinese of the notes on captures combined.
fn nodes(n: &SourceNote) -> String {
    match n {
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
            key_list(keys),
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
                key_list(keys),
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
            key_list(keys),
            nodes.len(),
            quoted(nodes, "、"),
        ),
        SourceNote::DataNode => {
            "Redlock：这份抓包没有写任何锁键：它是数据节点，不是锁节点之一，不计入任何法定数量"
                .to_string()
        }
        _ => layout(n),
    }
}

/// The Chinese of the notes on how the file's layout was read: a field
/// chosen by its values, Parquet columns, the reader contest, a structure
/// found, a journal export, a date supplied.
fn layout(n: &SourceNote) -> String {
    match n {
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
            format!("按 `{winner}` 读取（前几行的锁证据 {score}；`{runner_up}` 为 {runner_score}）")
        }
        SourceNote::TextStructure {
            format,
            start,
            multiline,
            sampled,
            starts,
        } => format!(
            "已找出结构：没有已知格式能读这份文本，于是按时间（`{format}`）找记录：记录从 `{start}` 开始（前 {sampled} 行中有 {starts} 行）{}",
            if *multiline {
                "；其间的行接续前一条记录"
            } else {
                ""
            }
        ),
        SourceNote::JournalExport { entries, binary } => format!(
            "systemd 日志导出格式：{entries} 条记录各读作一条（{binary} 个二进制安全字段）；行号即记录序号"
        ),
        SourceNote::DateSupplied {
            value,
            year_only,
            from,
        } => {
            let what = if *year_only {
                "时间没有年份：按"
            } else {
                "时间没有日期：按"
            };
            let whence = match from {
                DateFrom::Mapping => "取自映射文件的日期",
                DateFrom::FileName => "取自文件名",
                DateFrom::DatedLine => "取自第一行带日期的记录",
                DateFrom::Envelope => {
                    "每条记录取最接近其外层（采集端）时间的那一天，此处为第一条的日期"
                }
                DateFrom::Assumed => "推测；若不是，请在映射文件中用 `date = \"YYYY-MM-DD\"` 给出",
            };
            format!("{what} {value} 读取（{whence}）")
        }
        _ => String::new(),
    }
}

/// A TTL unit's name in Chinese.
fn unit_zh(unit: &str) -> &'static str {
    match unit {
        "s" => "秒",
        "ns" => "纳秒",
        _ => "毫秒",
    }
}

/// [`SourceNote::RolesByProtocol`] in Chinese.
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
        format!("；次选锁键 `{k}`，持有者 `{h}`（{s}）")
    });
    format!(
        "按加锁协议判断字段{}：锁键 `{key}`，持有者 `{holder}`，事件 `{event}`（{holds} 个持有过程中 {fitting} 个符合，得分 {score}{runner}）",
        if *guess { "（推测）" } else { "" }
    )
}

/// [`SourceNote::LockVanished`] in Chinese.
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
        format!("在第 {seen_line} 行（最后一条见到它的命令）之后")
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
                format!("，其第 {shown_line} 行的 `{shown_by}` 表明了这一点")
            };
            format!(
                "`{winner}` 在第 {line} 行的 `{command}` 成功了，而模型中该键仍被持有{shown}：该键在此之前已消失（按命令流允许的最晚时刻在此处删除）"
            )
        }
        VanishProof::Dropped {
            command,
            client,
            line,
        } => format!("`{client}` 在第 {line} 行的 `{command}` 删除了它"),
        VanishProof::Restarted { from_line, to_line } => format!(
            "第 {from_line} 行到第 {to_line} 行之间服务器无法连接：它重启了，没有持久化时其键全部丢失"
        ),
    };
    let why = match cause {
        VanishCause::InCapture => String::new(),
        VanishCause::Evidence { kind, file, line } => {
            format!("；可能的原因：`{file}:{line}` 的 `{kind}`")
        }
        VanishCause::Policy { policy, file } => format!(
            "；可能的原因：`maxmemory` 下的淘汰（`{file}` 中的策略 `{policy}`；该时刻没有记录淘汰：推测）"
        ),
        VanishCause::Unknown => {
            "；原因未知（手头没有重启、故障转移、清空或淘汰策略的证据）".to_string()
        }
    };
    format!(
        "持有者 `{holder}` 的锁键 `{key}` 从服务器上消失了{seen}：{how}；其租约在此结束（锁消失）{why}"
    )
}

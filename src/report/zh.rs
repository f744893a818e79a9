//! Simplified Chinese for the reports (`--lang zh`) and the window: the
//! report's words (finding kinds, causes, how a lock or a belief ended)
//! and its fixed phrases, translated through one table each. The English
//! output is never touched: it is the source of these tables.

mod warnings;

pub use warnings::{warning_reason, warning_reason_in};

#[cfg(test)]
use super::ReportInput;

/// The Chinese template of a fixed phrase of the text or Markdown report
/// (its English template, `{}` for each value, in the same order), if
/// it has one.
pub fn phrase(en: &str) -> Option<&'static str> {
    PHRASES.iter().find(|(e, _)| *e == en).map(|(_, zh)| *zh)
}

/// `(English template, Chinese template)` of the reports' fixed phrases.
const PHRASES: &[(&str, &str)] = &[
    ("  why: {}", "  原因：{}"),
    (
        "  evidence: {} infrastructure line(s) (not lock events)",
        "  证据：{} 行基础设施日志（不是锁事件）",
    ),
    ("- Why: {}\n", "- 原因：{}\n"),
    ("## Suggested alert\n", "## 建议的告警\n"),
    (
        "- Alert when {} holds in a row on one lock key reach {} % of their TTL (near-miss streak), and on every overlap.",
        "- 同一锁键连续 {} 次持有达到 TTL 的 {} %（连续险情）时告警，每次重叠也告警。",
    ),
    (
        "- The rule for your log store: `lockreplay sql --alert STORE --mapping FILE` (STORE: clickhouse, duckdb, sls, loki, elasticsearch; docs/alerts.md).\n",
        "- 日志库的告警规则：`lockreplay sql --alert STORE --mapping FILE`（STORE：clickhouse、duckdb、sls、loki、elasticsearch；见 docs/alerts.md）。\n",
    ),
    (
        "> Sections: {} of {} incidents are written out below (the most oversold units first); every incident is a row of the table above and of incidents.csv.\n",
        "> 详述：{} 起事故（共 {} 起）在下文逐一写出（超卖件数最多的优先）；每起事故都在上表和 incidents.csv 中各占一行。\n",
    ),
    (
        "lockreplay: {} events from {} file(s); {} holders on {} lock key(s)",
        "lockreplay：{} 条事件，来自 {} 个文件；{} 个持有者，{} 个锁键",
    ),
    (
        "{} incident(s) · {} overlap pair(s) · {} oversold · {} lost · {} near-miss(es) · {} warning(s)",
        "{} 起事故 · {} 对重叠 · 超卖 {} · 损失 {} · {} 次险情 · {} 条警告",
    ),
    (
        "\n{}  {}  {} -> {}  ({})  {}{}",
        "\n{}  {}  {} -> {}  （{}）  {}{}",
    ),
    ("  {}", "  {}"),
    (
        "  overlap {} / {}: {} from {} ({}){}",
        "  重叠 {} / {}：{}，始于 {}（{}）{}",
    ),
    ("  ... {} more overlap pairs", "  …… 另有 {} 对重叠"),
    ("  oversold {} · loss {}", "  超卖 {} · 损失 {}"),
    ("\nFindings", "\n发现"),
    ("  {} {}  {}{}", "  {} {}  {}{}"),
    ("\nStock", "\n库存"),
    (
        "  {}: initial {} · sold {} · oversold {} · final {}{}",
        "  {}：初始 {} · 售出 {} · 超卖 {} · 最终 {}{}",
    ),
    ("(unknown product)", "（未知商品）"),
    (" · {} lost update(s)", " · {} 次丢失更新"),
    ("\nWarnings", "\n警告"),
    ("  {}:{}: {}", "  {}:{}：{}"),
    (
        "  ... {} more (see --format json)",
        "  …… 另有 {} 条（见 --format json）",
    ),
    (
        "\n{}: {}, {}; {} lines = {} events + {} skipped + {} warned",
        "\n{}：{}，{}；{} 行 = {} 条事件 + 跳过 {} + 警告 {}",
    ),
    ("  layout: {}", "  布局：{}"),
    ("  time: {} ({})", "  时间：{}（{}）"),
    (
        "  application record inside field: {}",
        "  应用记录位于字段：{}",
    ),
    ("  note: {}", "  说明：{}"),
    ("  ERROR: {}", "  错误：{}"),
    ("{}", "{}"),
    (
        super::INFERRED_LEGEND,
        "（推断）= 由 MONITOR 回放推断：抓包只有命令没有回复，结果是按键空间模型回放命令得出的。",
    ),
    (" (inferred)", "（推断）"),
    ("none", "无"),
    ("(deduction)", "（扣减）"),
    ("# Lock incident report\n", "# 锁事故报告\n"),
    ("## Keys with incidents\n", "## 有事故的锁键\n"),
    ("![{}]({})\n", "![{}]({})\n"),
    (
        "> Pictures: {} of {} incidents have one (the most oversold units first); draw any other with `lockreplay render --incident ID`.\n",
        "> 图片：{} 起事故（共 {} 起）配有图片（超卖件数多的优先）；其余事故可用 `lockreplay render --incident ID` 绘制。\n",
    ),
    (
        "| Earlier holder | Later holder | From | Both believed | Cause |",
        "| 先持有者 | 后持有者 | 开始 | 同时认为持有 | 原因 |",
    ),
    ("|---|---|---|---:|---|", "|---|---|---|---:|---|"),
    (
        "| `{}` | `{}` | {} | {} | {}{} |",
        "| `{}` | `{}` | {} | {} | {}{} |",
    ),
    ("_... {} more overlap pairs_\n", "_…… 另有 {} 对重叠_\n"),
    ("![Timeline]({})\n", "![时间线]({})\n"),
    ("Source: {}\n", "来源：{}\n"),
    (
        "| Incidents | Overlap pairs | Oversold | Loss | Near-misses | Warnings | Events | Keys | Holders |",
        "| 事故 | 重叠对 | 超卖 | 损失 | 险情 | 警告 | 事件 | 锁键 | 持有者 |",
    ),
    (
        "**{} oversold, {} lost** (unit loss {} per oversold unit).\n",
        "**超卖 {}，损失 {}**（每超卖一件损失 {}）。\n",
    ),
    ("_{}_\n", "_{}_\n"),
    (
        "| Incident | Start | Key | Holders | Duration | Cause | Oversold | Loss |",
        "| 事故 | 开始 | 锁键 | 持有者 | 时长 | 原因 | 超卖 | 损失 |",
    ),
    ("## {} on `{}`\n", "## {}：`{}`\n"),
    ("{}\n", "{}\n"),
    ("![{} timeline]({})\n", "![{} 时间线]({})\n"),
    (
        "Oversold: **{}** · loss: **{}**\n",
        "超卖：**{}** · 损失：**{}**\n",
    ),
    (
        "| Holder | Host | Granted | TTL | Renewals | Lease ended | Believed until | Hold vs TTL |",
        "| 持有者 | 主机 | 获取 | 过期时间 | 续期 | 租约结束 | 自认为持有至 | 持有/过期时间 |",
    ),
    (
        "| Order | Holder | At | Units | Oversold |",
        "| 订单 | 持有者 | 时间 | 件数 | 超卖 |",
    ),
    ("## Findings\n", "## 发现\n"),
    (
        "| Kind | At | Key | Detail |",
        "| 类型 | 时间 | 锁键 | 说明 |",
    ),
    ("## Stock\n", "## 库存\n"),
    (
        "| Product | Initial | Sold | Oversold | Final | Lost updates |",
        "| 商品 | 初始 | 售出 | 超卖 | 最终 | 丢失更新 |",
    ),
    ("## Warnings ({})\n", "## 警告（{}）\n"),
    ("## What was read\n", "## 读取了什么\n"),
    (
        "| file | read as | layout | application record in | time field | events | lock events |\n|---|---|---|---|---|---:|---:|",
        "| 文件 | 读作 | 布局 | 应用记录位于 | 时间字段 | 事件 | 锁事件 |\n|---|---|---|---|---|---:|---:|",
    ),
    ("\n**Not readable: `{}`**: {}", "\n**无法读取：`{}`**：{}"),
    (
        "What-if: the incident replayed under other lock policies\n\n",
        "假设推演：在其他锁策略下重放事故\n\n",
    ),
    (
        "# What-if: the incident under other lock policies\n\n",
        "# 假设推演：其他锁策略下的事故\n\n",
    ),
    ("Policy", "策略"),
    ("Overlaps", "重叠"),
    ("Oversold", "超卖"),
    ("Loss", "损失"),
    ("Longest wait", "最长等待"),
    ("Timed out", "等待超时"),
    ("Fenced writes", "被拒写入"),
    ("Sales not made", "未成交销售"),
    ("What happened (log)", "实际发生（日志）"),
    ("{} (+{} never granted)", "{}（另有 {} 个始终未获得锁）"),
    ("{} ({} as logged)", "{}（其中 {} 按日志保留）"),
    (
        "Wait limit: {} ms (a request waiting longer gives up: no sale).",
        "等待上限：{} ms（等待更久的请求放弃，不成交）。",
    ),
    (
        "Wait limit: none (a request waits as long as it takes).",
        "等待上限：无（请求一直等到获得锁）。",
    ),
    (
        super::whatif::MODEL_MISMATCH,
        "模型检查：按日志推演，模型给出 {} 对重叠、超卖 {} 件，而日志显示 {} 对和 {} 件：请把各策略与“按日志推演（模型）”一行比较，而不是与实际发生比较。",
    ),
    (
        "Model check: replayed as logged, the model gives what the log shows.",
        "模型检查：按日志推演，模型给出的结果与日志一致。",
    ),
    ("Note: {}.", "说明：{}。"),
];

/// The Chinese name of a report word (`fencing_violation`,
/// `lease_expired`, `own_release`), if it has one.
pub fn term(word: &str) -> Option<&'static str> {
    TERMS.iter().find(|(w, _)| *w == word).map(|(_, zh)| *zh)
}

/// `(report word, Chinese)`: finding kinds, causes, lock and belief ends.
const TERMS: &[(&str, &str)] = &[
    ("near_miss", "险情"),
    ("near_miss_streak", "连续险情"),
    ("renewal_gap", "续期中断"),
    ("ghost_renewal", "幽灵续期"),
    ("no_ttl", "无过期时间"),
    ("foreign_release", "被他人释放"),
    ("clock_skew", "时钟偏差"),
    ("fencing_violation", "栅栏令牌违规"),
    ("holder_stall", "持有者停顿"),
    ("no_acquire", "无加锁记录"),
    ("failover", "故障转移"),
    ("promoted", "副本提升"),
    ("restart", "重启"),
    ("shutdown", "关闭"),
    ("flush", "清空"),
    ("eviction", "驱逐"),
    ("gc_pause", "GC 停顿"),
    ("safepoint", "安全点停顿"),
    ("slow_command", "慢命令"),
    ("lease_expired", "租约过期"),
    ("lock_vanished", "锁消失"),
    ("ttl_unknown", "过期时间未知"),
    ("own_release", "自行释放"),
    ("expired", "已过期"),
    ("vanished", "已消失"),
    ("unknown", "未知"),
    ("reacquired", "重新获取"),
    ("still_held", "仍持有"),
    ("released", "已释放"),
    ("release_failed", "释放失败"),
    ("lock_lost", "锁丢失"),
    ("last_event", "最后一条事件"),
    ("overlap", "重叠"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_incident_is_explained_in_chinese_with_its_holders_and_loss() {
        use crate::analysis::{Settings, analyze};
        use crate::ingest::{IngestOptions, Progress, read_source};
        let mut b = crate::model::LogBuilder::new();
        read_source(
            "seed-incident.jsonl",
            &include_bytes!("../../sample-logs/seed-incident.jsonl")[..],
            &IngestOptions::default(),
            &mut b,
            &Progress::default(),
        )
        .expect("the sample reads");
        let log = b.finish();
        let settings = Settings {
            unit_loss: Some(200.0),
            ..Settings::default()
        };
        let analysis = analyze(&log, &settings);
        let r = ReportInput {
            log: &log,
            settings: &settings,
            analysis: &analysis,
        };
        let text = super::super::to_text_zh(&r);
        assert!(
            text.contains("1 起事故") && text.contains("超卖 3 件"),
            "{text}"
        );
        for en in [
            "incident(s)",
            "overlap pair",
            "Findings",
            "Stock",
            "oversold",
        ] {
            assert!(
                !text.contains(en),
                "{en} in the Chinese text report:\n{text}"
            );
        }
        let md = super::super::to_markdown_zh(&r, &super::super::MarkdownImages::default());
        assert!(
            md.starts_with("# 锁事故报告") && md.contains("| 事故 | 开始 |"),
            "{md}"
        );
        for en in ["Lock incident report", "| Holder |", "## Stock", "oversold"] {
            assert!(!md.contains(en), "{en} in the Chinese Markdown:\n{md}");
        }
        let inc = &analysis.incidents[0];
        let zh = super::super::explain_incident_in(&r, inc, true);
        let first = &analysis.leases[analysis.overlaps[inc.overlaps[0]].earlier];
        assert!(zh.contains(log.strings.get(first.holder)), "{zh}");
        assert!(zh.contains("租约在"), "{zh}");
        assert!(zh.contains("3 件超出库存，损失 ¥600"), "{zh}");
        // No English sentence words: what is left once ids are removed.
        let mut rest = zh.clone();
        for l in &inc.leases {
            rest = rest.replace(log.strings.get(analysis.leases[*l].holder), "");
        }
        for &s in &inc.sales {
            if let Some(o) = analysis.sales[s].order_id {
                rest = rest.replace(log.strings.get(o), "");
            }
        }
        rest = rest.replace(log.strings.get(inc.key), "");
        for word in ["Holder", "acquired", "lease", "expired", "believed", "sold"] {
            assert!(!rest.contains(word), "{word} in {rest}");
        }
    }

    #[test]
    fn every_finding_kind_and_cause_has_a_chinese_name() {
        use crate::analysis::{Cause, FindingKind};
        let kinds = [
            FindingKind::NearMiss,
            FindingKind::NearMissStreak,
            FindingKind::RenewalGap,
            FindingKind::GhostRenewal,
            FindingKind::NoTtl,
            FindingKind::ForeignRelease,
            FindingKind::ClockSkew,
            FindingKind::FencingViolation,
            FindingKind::HolderStall,
            FindingKind::NoAcquire,
        ];
        for k in kinds {
            assert!(term(k.as_str()).is_some(), "{}", k.as_str());
        }
        let causes = [
            Cause::LeaseExpired,
            Cause::ForeignRelease,
            Cause::LockVanished,
            Cause::TtlUnknown,
        ];
        for c in causes {
            assert!(term(c.as_str()).is_some(), "{}", c.as_str());
        }
        assert_eq!(term("no_such_word"), None);
    }
}

/// The logs of the handed cases (`tests/fixtures/cases/*/case.json`),
/// each read from the files its `case.json` lists under `lists`.
#[cfg(test)]
fn handed_case_logs(lists: &[&str]) -> Vec<crate::model::LoadedLog> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cases");
    let mut logs = Vec::new();
    for case in std::fs::read_dir(&root).expect("cases").flatten() {
        let Ok(text) = std::fs::read_to_string(case.path().join("case.json")) else {
            continue;
        };
        let spec: serde_json::Value = serde_json::from_str(&text).expect("case.json");
        let files: Vec<std::path::PathBuf> = lists
            .iter()
            .filter_map(|k| spec[*k].as_array())
            .flatten()
            .filter_map(|f| f.as_str().map(|f| case.path().join(f)))
            .collect();
        let opts = crate::ingest::IngestOptions::default();
        let progress = crate::ingest::Progress::default();
        logs.push(crate::ingest::load_paths(&files, &opts, &progress).expect("loads"));
    }
    logs
}

#[cfg(test)]
mod source_notes {
    use super::handed_case_logs;

    #[test]
    fn the_chinese_reports_of_the_handed_cases_print_every_note_in_chinese() {
        let mut seen = 0;
        for log in handed_case_logs(&["files", "monitor_files"]) {
            let settings = crate::analysis::Settings::default();
            let analysis = crate::analysis::analyze(&log, &settings);
            let r = super::ReportInput {
                log: &log,
                settings: &settings,
                analysis: &analysis,
            };
            let text = super::super::to_text_zh(&r);
            let md = super::super::to_markdown_zh(&r, &super::super::MarkdownImages::default());
            for note in log.sources.iter().flat_map(|s| &s.notes) {
                let (en, zh) = (note.text(false), note.text(true));
                assert!(text.contains(&format!("说明：{zh}")), "{zh} not in\n{text}");
                assert!(!text.contains(&en), "{en} in the Chinese text report");
                assert!(!md.contains(&en), "{en} in the Chinese Markdown");
                seen += 1;
            }
        }
        assert!(seen > 5, "only {seen} notes in the handed cases");
    }
}

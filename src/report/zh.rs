//! Simplified Chinese for the reports (`--lang zh`) and the window: the
//! Chinese names of the report's words (finding kinds, causes, how a lock
//! or a belief ended), looked up by their snake_case names. Every sentence
//! is a value with its own Chinese renderer (`crate::model::message`).

#[cfg(test)]
use super::ReportInput;

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

#[cfg(test)]
mod warnings {
    use crate::model::Message;

    fn load(path: &std::path::Path) -> Option<crate::model::LoadedLog> {
        let opts = crate::ingest::IngestOptions::default();
        let progress = crate::ingest::Progress::default();
        crate::ingest::load_paths(&[path.to_path_buf()], &opts, &progress).ok()
    }

    #[test]
    fn every_warning_of_the_hostile_fixtures_has_its_chinese() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile");
        let mut seen = 0;
        for dir in [root.clone(), root.join("damaged")] {
            for entry in std::fs::read_dir(&dir).expect("fixtures").flatten() {
                let Some(log) = entry
                    .path()
                    .is_file()
                    .then(|| load(&entry.path()))
                    .flatten()
                else {
                    continue;
                };
                for w in log.warnings.kept() {
                    assert_ne!(w.reason.zh(), w.reason.en(), "{:?}", entry.path());
                    seen += 1;
                }
            }
        }
        assert!(seen > 40, "only {seen} warnings in the hostile fixtures");
    }

    #[test]
    fn the_chinese_reports_show_the_chinese_reason() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/hostile/damaged/csv-unbalanced-quote.csv");
        let log = load(&path).expect("loads");
        let settings = crate::analysis::Settings::default();
        let analysis = crate::analysis::analyze(&log, &settings);
        let r = crate::report::ReportInput {
            log: &log,
            settings: &settings,
            analysis: &analysis,
        };
        let text = crate::report::to_text_zh(&r);
        let md = crate::report::to_markdown_zh(&r, &crate::report::MarkdownImages::default());
        for out in [&text, &md] {
            assert!(
                out.contains("引号不配对：一个带引号的单元格在本行没有闭合"),
                "{out}"
            );
            assert!(!out.contains("unbalanced quote"), "{out}");
        }
        assert!(crate::report::to_text(&r).contains("unbalanced quote: a quoted cell"));
    }
}

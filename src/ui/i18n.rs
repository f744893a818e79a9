//! English and Simplified Chinese labels for the window: one table, looked
//! up with [`tr`], so every label has both languages in one place.

use serde::{Deserialize, Serialize};

/// The UI language.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Simplified Chinese.
    Zh,
}

impl From<crate::config::Lang> for Lang {
    fn from(l: crate::config::Lang) -> Lang {
        match l {
            crate::config::Lang::En => Lang::En,
            crate::config::Lang::Zh => Lang::Zh,
        }
    }
}

impl Lang {
    /// The language the system locale asks for (`LC_ALL`, `LC_MESSAGES`,
    /// `LANG` starting with `zh` → Chinese).
    pub fn from_env() -> Lang {
        for var in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let Ok(v) = std::env::var(var)
                && !v.is_empty()
            {
                return if v.to_ascii_lowercase().starts_with("zh") {
                    Lang::Zh
                } else {
                    Lang::En
                };
            }
        }
        Lang::En
    }
}

/// `(key, English, Chinese)`.
const TABLE: &[(&str, &str, &str)] = &[
    ("file", "File", "文件"),
    ("open", "Open…", "打开…"),
    ("open_recent", "Open recent", "最近打开"),
    ("reload", "Reload", "重新加载"),
    ("load_mapping", "Load mapping file…", "加载映射文件…"),
    ("export_report", "Export report…", "导出报告…"),
    ("quit", "Quit", "退出"),
    ("view", "View", "视图"),
    ("fit_all", "Fit all (F)", "全部显示 (F)"),
    ("zoom_incident", "Zoom to incident", "缩放到事故"),
    ("click_to_copy", "Click to copy", "点击复制"),
    ("pin_to_top", "Pin to top", "置顶"),
    ("unpin", "Unpin", "取消置顶"),
    ("phase_reading", "Reading", "读取"),
    ("phase_analysing", "Analysing", "分析"),
    ("phase_keys", "{}: {} / {} keys", "{}：{} / {} 个锁键"),
    ("phase_indexing", "Indexing the replay", "建立回放索引"),
    ("phase_drawing", "Building the timeline", "生成时间线"),
    (
        "phase_step",
        "{} (step {} of {}) · {}",
        "{}（第 {} 步，共 {} 步）· {}",
    ),
    ("overview", "Overview", "总览"),
    (
        "overview_hint",
        "Overview: incidents along the whole log; click to jump",
        "总览：整个日志中的事故分布；点击跳转",
    ),
    ("per_tick", "{} / div · {}", "每格 {} · {}"),
    ("search", "Search", "搜索"),
    (
        "search_hint",
        "key, holder, thread, host, order id",
        "锁键、持有者、线程、主机、订单号",
    ),
    ("no_match", "No match", "无匹配"),
    ("prev_match", "◀ Previous match", "◀ 上一个匹配"),
    ("next_match", "Next match ▶", "下一个匹配 ▶"),
    ("matches", "{} matches", "{} 个匹配"),
    ("match_of", "Match {} of {}", "第 {} 个，共 {} 个"),
    ("measured", "Measured: {}", "测量：{}"),
    ("finding", "Finding", "发现"),
    ("findings", "Findings", "发现"),
    ("kind", "Kind", "类型"),
    ("no_findings", "No findings.", "没有发现。"),
    ("findings_count", "{} findings", "{} 项发现"),
    ("finding_count_one", "1 finding", "1 项发现"),
    ("finding_marker", "{} marker", "{} 标记"),
    ("reset_layout", "Reset layout", "重置布局"),
    ("incident_list_toggle", "Incident list  [", "事故列表  ["),
    ("details_toggle", "Details  ]", "详情  ]"),
    (
        "collapse_left",
        "Hide the incident list ([)",
        "隐藏事故列表（[）",
    ),
    ("collapse_right", "Hide details (])", "隐藏详情（]）"),
    ("prev_incident", "Previous incident (P)", "上一个事故（P）"),
    ("next_incident", "Next incident (N)", "下一个事故（N）"),
    ("settings", "Settings", "设置"),
    ("sources", "Sources", "数据源"),
    ("warnings", "Warnings", "警告"),
    ("whatif", "What-if", "假设推演"),
    ("whatif_menu", "What-if (F8)", "假设推演 (F8)"),
    ("whatif_watchdog", "Watchdog", "看门狗续期"),
    (
        "whatif_watchdog_every",
        "watchdog every {}",
        "看门狗每 {} 续期",
    ),
    (
        "whatif_owner_check",
        "Owner-checked release",
        "校验持有者的释放",
    ),
    ("whatif_fencing", "Fencing", "写入时校验栅栏令牌"),
    ("whatif_ttl", "TTL (ms)", "TTL（毫秒）"),
    ("whatif_every", "Renew every (ms)", "续期间隔（毫秒）"),
    (
        "whatif_pause",
        "Pauses from gaps ≥ (ms)",
        "日志间隔视为停顿 ≥（毫秒）",
    ),
    ("whatif_wait_limit", "Wait limit (ms)", "等待上限（毫秒）"),
    (
        "whatif_as_logged",
        "As logged (model)",
        "按日志推演（模型）",
    ),
    ("whatif_happened", "What happened (log)", "实际发生（日志）"),
    ("whatif_policy", "Policy", "策略"),
    ("whatif_overlaps", "Overlaps", "重叠"),
    ("whatif_loss", "Loss", "损失"),
    ("whatif_longest_wait", "Longest wait", "最长等待"),
    ("whatif_timed_out", "Timed out", "等待超时"),
    ("whatif_fenced", "Fenced writes", "被拒写入"),
    ("whatif_not_made", "Sales not made", "未成交"),
    ("whatif_kept", "{} ({} as logged)", "{}（其中 {} 按日志）"),
    (
        "whatif_docked",
        "The replayed holds of {} are drawn in the timeline, right under its logged lanes.",
        "{} 的重放持有画在时间线上，紧挨在其日志记录的泳道下方。",
    ),
    ("close", "Close", "关闭"),
    (
        "whatif_summary",
        "{}: {} overlaps · {} oversold · {}",
        "{}：{} 次重叠 · 超卖 {} · {}",
    ),
    (
        "whatif_mismatch",
        "Replayed as logged, the model does not give what the log shows: compare the policy with the model row, not with what happened.",
        "按日志推演的模型结果与日志不一致：请把策略与“模型”一行比较，而不是与实际发生比较。",
    ),
    (
        "whatif_model",
        "A model, not a measurement: each holder keeps its logged work; only the lock changes; a request that finds the lock taken waits in arrival order (docs/semantics.md §10).",
        "这是模型而非实测：每个持有者的工作保持日志中的样子，只改变锁的行为；遇到锁被占用的请求按到达顺序等待（docs/semantics.md §10）。",
    ),
    ("whatif_key", "Lock key", "锁键"),
    ("whatif_busy", "Replaying…", "推演中…"),
    (
        "whatif_no_holds",
        "No holds to replay.",
        "没有可推演的持有。",
    ),
    ("whatif_logged", "Logged", "日志中"),
    ("whatif_waiting", "waiting (peak {})", "等待中（峰值 {}）"),
    (
        "whatif_lanes",
        "Logged: {} holds in {} lanes · replayed: {} holds in {} lanes · {} timed out",
        "日志中：{} 次持有，{} 条泳道 · 推演：{} 次持有，{} 条泳道 · {} 次超时",
    ),
    ("whatif_work", "Work", "工作时长"),
    ("whatif_waited", "Waited", "等待"),
    ("whatif_lock_end", "Lock ended", "锁的结束方式"),
    ("incidents", "Incidents", "事故"),
    ("details", "Details", "详情"),
    ("oversold", "oversold", "超卖"),
    ("oversold_col", "Oversold", "超卖"),
    (
        "open_hint",
        "Open a log with File > Open (Ctrl+O), or drop files onto the window.",
        "用“文件 > 打开”（Ctrl+O）打开日志，或把文件拖放到窗口上。",
    ),
    (
        "not_readable_hint",
        "Map the file's fields with a button below, or open another log (File > Open, Ctrl+O).",
        "用下面的按钮映射文件的字段，或打开另一个日志（“文件 > 打开”，Ctrl+O）。",
    ),
    (
        "naive_utc",
        "Times without an offset were read as UTC. If they are local times, set \"Zone of times without offset\" in Settings.",
        "没有时区偏移的时间按 UTC 读取。如果是本地时间，请在“设置”中填写“无偏移时间的时区”。",
    ),
    (
        "read_tz",
        "Zone of times without offset",
        "无偏移时间的时区",
    ),
    ("apply_reload", "Apply and reload", "应用并重新加载"),
    ("load_cache", "Load cache", "加载缓存"),
    ("use_cache", "Use the load cache", "使用加载缓存"),
    ("from_cache", "loaded from cache", "从缓存加载"),
    ("cache_note", "load cache: see the note", "加载缓存：见提示"),
    (
        "read_ttl",
        "TTL of files without one (ms, or FILE=ms)",
        "无 TTL 文件的 TTL（毫秒，或 文件=毫秒）",
    ),
    ("apply_ttl", "Apply TTL and reload", "应用 TTL 并重新加载"),
    (
        "ttl_unknown",
        "A file has no TTL field: its lock TTL is unknown, so no lease is said to expire. Give it with \"TTL of files without one\" in Settings, a mapped field, or --ttl-ms.",
        "有文件没有 TTL 字段：锁的 TTL 未知，因此不判断租约是否过期。请在“设置”中填写“无 TTL 文件的 TTL”，或映射字段，或使用 --ttl-ms。",
    ),
    ("unknown", "unknown", "未知"),
    ("near_misses", "near-misses", "险情"),
    ("near_miss_one", "near-miss", "险情"),
    ("incident_one", "incident", "起事故"),
    ("event_one", "event", "条事件"),
    ("key_one", "key", "个锁键"),
    ("analysing", "Analysing…", "正在分析…"),
    ("warning_one", "warning", "警告"),
    ("warnings_lc", "warnings", "警告"),
    ("incidents_lc", "incidents", "起事故"),
    ("loading", "Loading", "加载中"),
    ("indexing", "Indexing the playback…", "正在建立回放索引…"),
    ("cancel", "Cancel", "取消"),
    ("start", "Start", "开始"),
    ("key", "Key", "锁键"),
    ("holders", "Holders", "持有者"),
    ("duration", "Duration", "时长"),
    ("cause", "Cause", "原因"),
    ("loss", "Loss", "损失"),
    ("filter_key", "Key (text or regex)", "锁键（文本或正则）"),
    ("filter_holder", "Holder", "持有者"),
    ("filter_host", "Host or thread", "主机或线程"),
    (
        "only_incidents",
        "Only keys with incidents",
        "只看有事故的锁键",
    ),
    (
        "bad_regex",
        "invalid regex, matching as text",
        "正则无效，按文本匹配",
    ),
    ("unit_loss", "Unit loss", "单件损失"),
    ("currency", "Currency", "货币"),
    ("near_miss_ratio", "Near-miss ratio", "险情阈值（TTL 比例）"),
    ("near_miss_streak", "Near-miss streak N", "连续险情告警 N"),
    ("log_lag", "Log-lag tolerance (ms)", "日志延迟容差（毫秒）"),
    ("time_zone", "Time axis", "时间轴"),
    ("tz_log", "Log zone", "日志时区"),
    ("tz_utc", "UTC", "UTC"),
    ("tz_local", "Local", "本地时区"),
    ("tz_relative", "Relative (ms)", "相对时间（毫秒）"),
    (
        "host_offsets",
        "Host clock offsets (ms, ahead)",
        "主机时钟偏移（毫秒，超前）",
    ),
    ("add_host", "Add host", "添加主机"),
    ("remove", "Remove", "删除"),
    ("mapping_file", "Mapping file", "映射文件"),
    ("none", "none", "无"),
    ("language", "Language", "语言"),
    ("theme", "Theme", "主题"),
    ("light", "Light", "浅色"),
    ("dark", "Dark", "深色"),
    ("cjk_font", "CJK font file", "中文字体文件"),
    (
        "no_cjk_font",
        "No CJK font found: Chinese text shows as boxes. Set a font file in Settings.",
        "未找到中文字体：中文显示为方框。请在设置中指定字体文件。",
    ),
    (
        "no_dialog_mapping",
        "No mapping file was chosen. If no dialog appeared, this system has no file-dialog backend: type the mapping file's path in Settings > Mapping file and press Read with it.",
        "未选择映射文件。如果没有出现对话框，说明系统缺少文件对话框支持：请在 设置 > 映射文件 中输入映射文件的路径并点击“用它读取”。",
    ),
    ("read_with_it", "Read with it", "用它读取"),
    (
        "mapping_file_hint",
        "For the files on screen only; type a path or choose one with …",
        "仅用于当前打开的文件；输入路径或用 … 选择",
    ),
    ("read_with_mapping", "Mapping file", "映射文件"),
    ("clear_mapping", "Clear mapping", "清除映射"),
    (
        "flag_mapping_dropped",
        "The command line's --mapping {} no longer applies in this window.",
        "命令行的 --mapping {} 在此窗口中不再生效。",
    ),
    (
        "message_pairs",
        "Fields in the message (name=value): a role maps a name reading does not know",
        "消息中的字段（名=值）：为读取不认识的名字指定角色",
    ),
    (
        "no_dialog",
        "No file was chosen. If no dialog appeared, this system has no file-dialog backend: pass files on the command line (lockreplay FILE…) or drag and drop them onto the window.",
        "未选择文件。如果没有出现对话框，说明系统缺少文件对话框支持：请在命令行传入文件（lockreplay 文件…）或把文件拖放到窗口上。",
    ),
    ("explanation", "What happened", "经过"),
    (
        "selected_pair",
        "Selected pair: {} then {}, both believed they held it for {} ({})",
        "所选重叠：{} 之后 {}，两者同时认为持有锁 {}（{}）",
    ),
    ("leases", "Leases", "租约"),
    ("orders", "Orders", "订单"),
    ("source_lines", "Source lines", "原始日志行"),
    ("holder", "Holder", "持有者"),
    ("host", "Host", "主机"),
    ("thread", "Thread", "线程"),
    ("granted", "Granted", "获得"),
    ("renewals", "Renewals", "续期"),
    ("lease_ended", "Lease ended", "租约结束"),
    ("believed_until", "Believed until", "自认持有至"),
    ("hold_vs_ttl", "Hold / TTL", "持有 / TTL"),
    ("order", "Order", "订单"),
    ("time", "Time", "时间"),
    ("units_over", "Oversold units", "超卖件数"),
    (
        "select_incident",
        "Select an incident in the list or click a red overlap.",
        "在列表中选择事故，或点击红色重叠区域。",
    ),
    (
        "loss_unknown_short",
        "Loss unknown: no all-clear",
        "损失未知：不能视为正常",
    ),
    (
        "loss_unknown",
        "Not an all-clear: the overlaps below stand, but business lines were not understood, so what they cost is unknown:",
        "不能视为一切正常：下面的重叠成立，但业务行没有读懂，损失未知：",
    ),
    (
        "not_readable_short",
        "Not readable: no all-clear",
        "无法读取：不能视为正常",
    ),
    (
        "not_readable",
        "Not an all-clear: nothing trustworthy was read. The analysis below cannot say \"no incident\":",
        "不能视为一切正常：没有读到可信的锁事件，下面的分析不能说明“没有事故”：",
    ),
    (
        "no_incidents",
        "No incidents: no two holders believed they held a key at once.",
        "没有事故：没有两个持有者同时认为自己持有同一把锁。",
    ),
    (
        "inferred",
        "inferred from MONITOR replay",
        "由 MONITOR 回放推断",
    ),
    (
        "zombie",
        "zombie hold (lock already ended)",
        "僵尸持有（锁已结束）",
    ),
    ("near_miss", "near-miss", "险情"),
    ("overlap", "overlap", "重叠"),
    ("no_ttl", "no TTL: never expires", "无 TTL：永不过期"),
    ("events", "events", "条事件"),
    ("keys", "keys", "个锁键"),
    ("dialect", "Dialect", "格式"),
    ("encoding", "Encoding", "编码"),
    ("fields", "Fields", "字段"),
    ("map_fields", "Map fields…", "字段映射…"),
    (
        "map_fields_hint",
        "its roles were guessed or nothing was read: check them, name its events",
        "其字段角色为推测或未读出任何事件：请核对角色并为事件命名",
    ),
    ("mapping_editor", "Field mapping", "字段映射"),
    ("roles_taken", "Given to another field", "已分配给其他字段"),
    (
        "time_format_guess",
        "(a guess from the dates' values: {} reads as {})",
        "（由日期的值推测：{} 读作 {}）",
    ),
    ("date_unread", "a date it cannot read", "无法读取的日期"),
    (
        "role_taken",
        "`{}` has this role: set that one to — to give it here",
        "`{}` 已有此角色：先将其设为 —，才能在此选择",
    ),
    ("role", "Role", "角色"),
    ("samples", "Samples", "示例值"),
    (
        "mapping_preview",
        "What this mapping reads on the file's first MiB",
        "按此映射读取文件前 1 MiB 的结果",
    ),
    ("save_to", "Save to", "保存到"),
    (
        "line_pattern",
        "Line pattern: click a part of the sample line, then give it a role",
        "行格式：点击示例行的一部分，再为它选择角色",
    ),
    ("part_role", "Role of the selected part", "所选部分的角色"),
    (
        "event_names_field",
        "Event names: the values of",
        "事件名：取自字段",
    ),
    (
        "event_names_templates",
        "Event names: the message templates (<*> varies)",
        "事件名：消息模板（<*> 为变化部分）",
    ),
    (
        "event_names_none",
        "Give a field the role event or message to name its events here.",
        "为某个字段选择 event 或 message 角色后，可在此为事件名指定类型。",
    ),
    ("event_name", "Name", "名称"),
    ("count", "Count", "次数"),
    ("no_kind", "(none)", "（无）"),
    (
        "preview_nothing_yet",
        "Nothing read yet: give the fields their roles and the event names their kinds.",
        "尚未读到事件：请为字段选择角色，并为事件名选择类型。",
    ),
    ("preview_holds", "holds", "持有"),
    ("preview_incidents", "incidents", "事故"),
    ("preview_oversold", "oversold", "超卖"),
    ("preview_loss", "loss", "损失"),
    ("save_and_reread", "Save and re-read", "保存并重新读取"),
    ("notes", "Notes", "说明"),
    (
        "lines",
        "Lines read / loaded / skipped / warned",
        "读取 / 载入 / 跳过 / 警告 行数",
    ),
    ("sample", "embedded sample", "内置示例"),
    ("load_failed", "Loading failed", "加载失败"),
    ("filters", "Filters", "筛选"),
    (
        "help_nav",
        "Wheel: zoom · drag: pan · shift/right-drag: box zoom · Ctrl-drag: measure · N/P: incidents · [ ]: panels · F: fit",
        "滚轮缩放 · 拖动平移 · Shift/右键拖动框选缩放 · Ctrl 拖动测量 · N/P 切换事故 · [ ] 面板 · F 全部显示",
    ),
    ("lease_legend", "lease", "租约"),
    ("order_legend", "order", "订单"),
    ("handoff_legend", "lock taken over", "锁被接手"),
    ("oversold_order_legend", "oversold order", "超卖订单"),
    (
        "server_event_legend",
        "server event (failover, restart)",
        "服务器事件（故障转移、重启）",
    ),
    ("stall_legend", "process paused (GC)", "进程停顿（GC）"),
    ("legend_more", "+{} more", "另有 {} 项"),
    ("card_why", "Why", "原因"),
    ("finding_what", "What it means", "含义"),
    ("finding_seen", "Seen", "所见"),
    (
        "finding_no_lines",
        "This finding has no hold of its own to show lines of.",
        "该发现没有对应的持有记录，无源日志行可显示。",
    ),
    (
        "meaning_near_miss",
        "A hold that took most of its TTL (more than the near-miss ratio) without an overlap: the next slower request overruns its lease.",
        "一次持有用掉了大部分 TTL（超过险情比例）但未重叠：下一个更慢的请求就会超出租约。",
    ),
    (
        "meaning_near_miss_streak",
        "Near-misses on one key in a row: the condition of the suggested alert.",
        "同一锁键连续出现险情：即建议告警的条件。",
    ),
    (
        "meaning_renewal_gap",
        "A renewal logged after its lease had expired: it did not count, and the lock was free in between.",
        "续期记录在租约过期之后：不计入，期间锁是空闲的。",
    ),
    (
        "meaning_ghost_renewal",
        "A renewal after the holder's own release or after another holder took the lock: a watchdog that outlived its unlock.",
        "持有者释放后或他人已取得锁后仍有续期：看门狗比解锁活得更久。",
    ),
    (
        "meaning_no_ttl",
        "A lock taken without a TTL: if its holder dies, nothing ever frees it.",
        "加锁时没有设置过期时间：持有者一旦崩溃，锁永远不会释放。",
    ),
    (
        "meaning_foreign_release",
        "A holder deleted a lock that another holder held: a release without an owner check.",
        "一个持有者删除了另一个持有者的锁：释放时没有校验所有者。",
    ),
    (
        "meaning_clock_skew",
        "Hosts' clocks disagree: the times from that host are suspect.",
        "主机之间时钟不一致：该主机的时间可疑。",
    ),
    (
        "meaning_fencing_violation",
        "A business write carried an older fencing token than one already used: the storage should have refused it.",
        "业务写入携带的栅栏令牌比已使用过的更旧：存储端本应拒绝它。",
    ),
    (
        "meaning_holder_stall",
        "The holder's process (or the server) stalled for most of its TTL inside the hold: a GC pause, a safepoint or a slow command.",
        "持有期间，持有者进程（或服务器）停顿了大部分 TTL：GC 停顿、安全点或慢命令。",
    ),
    (
        "meaning_no_acquire",
        "Renewals or releases by a holder whose acquire is not in the log (the log starts inside its hold): they are not replayed, so an overlap with that hold cannot be seen.",
        "持有者的续期或释放之前日志里没有它的加锁记录（日志从持锁期间开始）：这些行未被回放，与该次持锁的重叠无法看出。",
    ),
    (
        "infra_also",
        "more line(s) alike within 1 s",
        "条相同的行（1 秒内）",
    ),
    (
        "infra_cited",
        "cited by this key's incident",
        "本键的事故引用了它",
    ),
    (
        "infra_guess",
        "matched by time only: the line names no host, process or server of this log",
        "仅按时间匹配：该行未指明本日志中的主机、进程或服务器",
    ),
    ("all_keys", "{} keys", "{} 个锁键"),
    ("all_keys_one", "1 key", "1 个锁键"),
    (
        "caption_all_one",
        "1 incident · {} oversold · {} lost",
        "1 起事故 · 超卖 {} · 损失 {}",
    ),
    (
        "caption_incident",
        "{}: {} oversold, {} lost · {} · {} holders · overlap {}",
        "{}：超卖 {}，损失 {} · {} · {} 个持有者 · 重叠 {}",
    ),
    (
        "caption_all",
        "{} incidents · {} oversold · {} lost",
        "{} 起事故 · 超卖 {} · 损失 {}",
    ),
    (
        "inset_label",
        "Zoomed in: the {} overlap at {} ({})",
        "放大：{} 的重叠，始于 {}（{}）",
    ),
    (
        "caption_key",
        "{}: {} incident(s) · {} oversold · {} lost",
        "{}：{} 起事故 · 超卖 {} · 损失 {}",
    ),
    ("units_n", "{} units", "{} 件"),
    (
        "more_keys_below",
        "+{} more keys not shown",
        "另有 {} 个锁键未显示",
    ),
    (
        "lanes_not_shown",
        "+{} lanes not shown",
        "另有 {} 条泳道未显示",
    ),
    ("released", "released", "已释放"),
    ("expired", "expired", "已过期"),
    ("replay", "Replay", "回放"),
    ("play", "Play (Space)", "播放 (空格)"),
    ("pause", "Pause (Space)", "暂停 (空格)"),
    ("step_back", "Previous event (,)", "上一事件 (,)"),
    ("step_forward", "Next event (.)", "下一事件 (.)"),
    ("speed", "Speed", "速度"),
    ("real_time", "real time", "实时"),
    ("loop", "Loop selection", "循环所选范围"),
    ("jump_incident_start", "Incident start", "事故开始"),
    ("cursor", "Cursor", "游标"),
    ("state_at_cursor", "State at cursor", "游标时刻的状态"),
    ("valid_left", "valid, {} left", "有效，剩余 {}"),
    ("valid_no_ttl", "valid, no TTL", "有效，无 TTL"),
    ("cause_short_lease_expired", "expired", "过期"),
    ("cause_short_foreign_release", "foreign", "他人释放"),
    ("cause_short_lock_vanished", "vanished", "消失"),
    ("cause_short_ttl_unknown", "TTL?", "TTL 未知"),
    (
        "expired_ago",
        "expired {} ago, still working",
        "已过期 {}，仍在工作",
    ),
    (
        "deleted_ago",
        "lock deleted by another holder {} ago, still working",
        "锁已被他人删除 {}，仍在工作",
    ),
    (
        "vanished_ago",
        "lock vanished {} ago, still working",
        "锁已消失 {}，仍在工作",
    ),
    (
        "ended_ago",
        "lock ended {} ago, still working",
        "锁已结束 {}，仍在工作",
    ),
    (
        "server_holds",
        "Server: {} holds the lock",
        "服务端：{} 持有锁",
    ),
    (
        "server_free",
        "Server: nobody holds the lock",
        "服务端：无人持锁",
    ),
    ("believers", "Believe they hold: {}", "自认为持有：{}"),
    ("orders_so_far", "Orders: {}", "订单：{}"),
    ("oversold_so_far", "Oversold: {}", "超卖：{}"),
    ("loss_so_far", "Loss: {}", "损失：{}"),
    (
        "loss_hover",
        "Oversold units × the unit loss; ¥? until a unit loss is set",
        "超卖件数 × 单件损失；未设单件损失时为 ¥?",
    ),
    (
        "unit_loss_unset",
        "Loss unknown: set the unit loss",
        "损失未知：请设置单件损失",
    ),
    ("set_unit_loss", "Set", "设置"),
    (
        "unit_loss_refused",
        "Type the loss of one oversold unit first: more than 0",
        "请先输入一件超卖的损失：须大于 0",
    ),
    ("use_list_price", "Use the {}", "使用{}"),
    (
        "list_price_hover",
        "An estimate: the list price a unit in the log, not what an oversold unit cost",
        "估算：日志中每件的标价，而不是超卖一件的实际损失",
    ),
    ("unit_loss_known", "Known", "已知"),
    ("card_key", "Key", "锁键"),
    (
        "no_incident_to_step",
        "No incident in this log: N and P have nowhere to go",
        "此日志中没有事故：N 和 P 无处可去",
    ),
    (
        "wrapped_first",
        "Past the last incident: back to the first",
        "已过最后一起事故：回到第一起",
    ),
    (
        "wrapped_last",
        "Before the first incident: on to the last",
        "已在第一起事故之前：转到最后一起",
    ),
    (
        "cursor_at_damage",
        "Cursor at {}'s first oversold order",
        "光标位于 {} 的第一笔超卖订单",
    ),
    (
        "cursor_at_overlap",
        "Cursor at {}'s overlap start (no oversold order)",
        "光标位于 {} 的重叠开始处（无超卖订单）",
    ),
    ("card_cause", "Cause", "原因"),
    ("card_holders", "Holders", "持有者"),
    ("card_overlap", "Overlap", "重叠"),
    ("card_oversold", "Oversold", "超卖"),
    ("card_loss", "Loss", "损失"),
    ("card_sales_inside", "Inside the window", "窗口内售出"),
    ("card_sales_tied", "Tied to it", "窗口外相关"),
    (
        "card_sales_tied_hint",
        "Sales outside the window tied to it: made by one of its holders while it still believed it held the lock, or using stock the overlap had already sold",
        "窗口外与之相关的销售：由其持有者在仍认为持有锁时售出，或用掉了重叠期间已售出的库存",
    ),
    ("sale_outside_window", "outside the window", "窗口外"),
    ("more_holders", "{} more holders", "另外 {} 个持有者"),
    (
        "arrows_drawn",
        "{} of {} takeovers drawn as arrows",
        "画出 {} 个接管箭头（共 {} 个）",
    ),
    ("stock", "Stock", "库存"),
    ("stock_unknown", "not logged yet", "尚无记录"),
    ("stock_plot_title", "Stock · {}", "库存 · {}"),
    (
        "stock_plot_logged",
        "stock the log recorded",
        "日志记录的库存",
    ),
    ("stock_plot_orders", "{} against {}", "{}对 {}"),
    ("stock_plot_order_one", "order", "笔订单"),
    ("stock_plot_order_many", "orders", "笔订单"),
    ("stock_plot_unit_one", "unit", "件库存"),
    ("stock_plot_unit_many", "units", "件库存"),
    ("stock_plot_beyond", "{} beyond the stock", "{} 笔超出库存"),
    ("stock_plot_lost_one", "lost update", "次丢失更新"),
    ("stock_plot_lost_many", "lost updates", "次丢失更新"),
    (
        "stock_plot_lost_hint",
        "A deduction from a stock level another deduction had already left: two deductions from one read, one of them lost",
        "从另一次扣减已经扣过的库存值再扣减：同一次读取扣减两次，其中一次丢失",
    ),
    (
        "stock_plot_a11y",
        "Stock plot of {}: {}, {} beyond the stock, {}",
        "{} 的库存图：{}，{} 笔超出库存，{}",
    ),
    (
        "stock_plot_hover",
        "{}\nstock logged: {} · orders so far: {}",
        "{}\n日志库存：{} · 已下单：{}",
    ),
    ("unknown_product", "(unknown product)", "(未知商品)"),
    (
        "no_lock_held",
        "No lock is held or believed held",
        "无人持锁，也无人自认为持锁",
    ),
    ("more_keys", "… {} more keys", "… 另有 {} 个锁键"),
    ("save_screenshot", "Save screenshot…", "保存截图…"),
    (
        "save_timeline_screenshot",
        "Save timeline screenshot…",
        "保存时间线截图…",
    ),
    ("copy_image", "Copy image", "复制图片"),
    (
        "copy_timeline_image",
        "Copy timeline image",
        "复制时间线图片",
    ),
    ("saved_to", "Saved {}", "已保存 {}"),
    (
        "no_dialog_saved_to",
        "No file dialog: saved to {}",
        "没有文件对话框：已保存到 {}",
    ),
    (
        "copied",
        "Image copied to the clipboard",
        "图片已复制到剪贴板",
    ),
    ("save_failed", "Could not save: {}", "无法保存：{}"),
    ("exporting", "Exporting report…", "正在导出报告…"),
    ("report_written", "Report written to {}", "报告已写入 {}"),
    (
        "no_dialog_report",
        "No folder dialog: report written to {}",
        "没有文件夹对话框：报告已写入 {}",
    ),
];

/// A report word (a finding kind, a cause, how a lock or a belief ended:
/// `fencing_violation`, `lease_expired`, `own_release`) in `lang`: itself
/// in English, where the report's words are the names users search for;
/// its Chinese name in Chinese; the word itself when there is none.
pub fn term(lang: Lang, word: &str) -> String {
    match lang {
        Lang::En => word.to_string(),
        Lang::Zh => crate::report::zh::term(word).unwrap_or(word).to_string(),
    }
}

/// A report's snake_case name in words, for pictures and the window: the
/// Chinese term, or in English with spaces (`lease expired`).
pub fn words(lang: Lang, word: &str) -> String {
    match lang {
        Lang::En => word.replace('_', " "),
        Lang::Zh => term(lang, word),
    }
}

/// An overlap cause in one short word, for a label with little room.
pub fn cause_short(lang: Lang, cause: crate::analysis::Cause) -> &'static str {
    use crate::analysis::Cause;
    tr(
        lang,
        match cause {
            Cause::LeaseExpired => "cause_short_lease_expired",
            Cause::ForeignRelease => "cause_short_foreign_release",
            Cause::LockVanished => "cause_short_lock_vanished",
            Cause::TtlUnknown => "cause_short_ttl_unknown",
        },
    )
}

/// The translation key heading `problems` (`crate::analysis::problems`):
/// `not_readable` when any is unreadable, else `loss_unknown`; `short`
/// picks the one-line form.
pub fn problems_heading(problems: &[crate::analysis::Problem], short: bool) -> &'static str {
    match (
        problems.iter().any(crate::analysis::Problem::is_unreadable),
        short,
    ) {
        (true, false) => "not_readable",
        (true, true) => "not_readable_short",
        (false, false) => "loss_unknown",
        (false, true) => "loss_unknown_short",
    }
}

/// The label for `key` in `lang`; the key itself when it is missing (so a
/// missing entry shows up in the window rather than panicking).
pub fn tr(lang: Lang, key: &'static str) -> &'static str {
    lookup(lang, key).unwrap_or(key)
}

/// The table's text for `key` in `lang`, if it has the key.
fn lookup(lang: Lang, key: &str) -> Option<&'static str> {
    TABLE
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|(_, en, zh)| match lang {
            Lang::En => *en,
            Lang::Zh => *zh,
        })
}

/// [`tr`] for a key made at run time (`meaning_<finding kind>`): the
/// key itself when the table lacks it.
pub fn tr_owned(lang: Lang, key: &str) -> String {
    lookup(lang, key).unwrap_or(key).to_string()
}

/// `n` followed by the word for `one` (when `n` is 1) or `many`: `1 incident`,
/// `3 incidents`. Chinese has one form for both.
pub fn count_label(lang: Lang, n: impl Into<u64>, one: &'static str, many: &'static str) -> String {
    let n = n.into();
    format!("{n} {}", tr(lang, if n == 1 { one } else { many }))
}

/// `1 finding`, `3 findings` (Chinese: one form).
pub fn findings_label(lang: Lang, n: usize) -> String {
    if n == 1 {
        tr(lang, "finding_count_one").to_string()
    } else {
        trf(lang, "findings_count", &[&n.to_string()])
    }
}

/// A finding's detail in `lang`.
pub fn finding_detail(lang: Lang, detail: &crate::analysis::FindingDetail) -> String {
    crate::model::Message::text(detail, lang == Lang::Zh)
}

/// The label for `key` in `lang` with each `{}` replaced by the next of
/// `args`, so the word order can differ between languages.
pub fn trf(lang: Lang, key: &'static str, args: &[&str]) -> String {
    let mut out = String::new();
    let mut rest = tr(lang, key);
    let mut args = args.iter();
    while let Some(i) = rest.find("{}") {
        out.push_str(&rest[..i]);
        out.push_str(args.next().copied().unwrap_or(""));
        rest = &rest[i + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_both_languages_and_is_unique() {
        let mut keys = std::collections::HashSet::new();
        for (k, en, zh) in TABLE {
            assert!(keys.insert(*k), "duplicate key {k}");
            assert!(!en.is_empty() && !zh.is_empty(), "{k}");
        }
        assert_eq!(tr(Lang::Zh, "settings"), "设置");
        for (k, en, zh) in TABLE {
            assert_eq!(en.matches("{}").count(), zh.matches("{}").count(), "{k}");
        }
        assert_eq!(trf(Lang::En, "loss_so_far", &["¥600"]), "Loss: ¥600");
        assert_eq!(trf(Lang::Zh, "valid_left", &["3 ms"]), "有效，剩余 3 ms");
    }
}

//! Infrastructure logs read as evidence, not lock events: Redis server and
//! Sentinel logs, JVM unified GC logs, Go `gctrace`, `SLOWLOG GET` and
//! `LATENCY` output, `kubectl get events -o json`, and an operator's or
//! deploy tool's event log. Detected by content like every other file
//! (docs/ingest.md); each line read becomes an [`Evidence`] item, each line
//! skipped is counted, each line that looks like one but cannot be read is a
//! warning (docs/semantics.md §11 says what the evidence explains).

mod events;
mod redis;
mod runtime;

use crate::model::{
    Dialect, Evidence, EvidenceKind, EvidenceOrigin, InfraWarning, LogBuilder, SourceInfo,
    SourceRef,
};

use super::TzSpec;

/// Which infrastructure log a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InfraKind {
    /// `pid:role dd Mon yyyy HH:MM:SS.mmm * message` (server or Sentinel).
    RedisLog,
    /// JVM unified logging with `[time]` decorations and `gc`/`safepoint` tags.
    JvmGc,
    /// JDK 8's GC log with `-XX:+PrintGCDateStamps`.
    Jdk8Gc,
    /// Go `GODEBUG=gctrace=1` lines, each after an RFC 3339 time.
    GoGc,
    /// `SLOWLOG GET` / `LATENCY LATEST` / `LATENCY HISTORY` as redis-cli
    /// prints them.
    RedisReply,
    /// redis-cli's `INFO` output or `CONFIG GET maxmemory*` reply.
    RedisInfo,
    /// `kubectl get events -o json`.
    KubeEvents,
    /// An operator's or deploy tool's event log.
    Operator,
}

impl InfraKind {
    /// The layout name shown for the file.
    fn layout(self) -> &'static str {
        match self {
            InfraKind::RedisLog => "Redis server / Sentinel log",
            InfraKind::JvmGc => "JVM unified GC log (-Xlog:gc*)",
            InfraKind::Jdk8Gc => "JDK 8 GC log (-XX:+PrintGCDateStamps)",
            InfraKind::GoGc => "Go GODEBUG=gctrace=1",
            InfraKind::RedisReply => "redis-cli SLOWLOG / LATENCY output",
            InfraKind::RedisInfo => "redis-cli INFO / CONFIG GET output",
            InfraKind::KubeEvents => "kubectl get events -o json",
            InfraKind::Operator => "operator event log",
        }
    }
}

/// How many non-blank lines detection looks at.
const SAMPLE_LINES: usize = 40;

/// The infrastructure log `text` is, from its first lines; `None` for
/// anything else (an application log, a MONITOR capture).
pub(crate) fn detect(text: &str) -> Option<InfraKind> {
    let sample: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .take(SAMPLE_LINES)
        .collect();
    if sample.is_empty() {
        return None;
    }
    let share =
        |f: &dyn Fn(&str) -> bool| sample.iter().filter(|l| f(l)).count() * 2 >= sample.len();
    if share(&|l| redis::parse_line(l).is_some()) {
        return Some(InfraKind::RedisLog);
    }
    if share(&|l| runtime::jvm_decorations(l).is_some())
        && sample.iter().any(|l| runtime::is_jvm_gc_tagged(l))
    {
        return Some(InfraKind::JvmGc);
    }
    // JDK 8: a header (`Java HotSpot(TM)`, `Memory:`, `CommandLine flags:`)
    // and `PrintGCDetails` lines between the stamped events.
    if sample.iter().filter(|l| runtime::is_jdk8_gc(l)).count() >= 2
        || (sample.iter().any(|l| runtime::is_jdk8_gc(l))
            && sample.iter().any(|l| l.starts_with("CommandLine flags:")))
    {
        return Some(InfraKind::Jdk8Gc);
    }
    if sample.iter().any(|l| runtime::go_gctrace(l).is_some())
        && share(&|l| runtime::go_gctrace(l).is_some())
    {
        return Some(InfraKind::GoGc);
    }
    if redis::looks_like_reply(&sample) {
        return Some(InfraKind::RedisReply);
    }
    if redis::looks_like_info(&sample) {
        return Some(InfraKind::RedisInfo);
    }
    if events::looks_like_kube_events(text) {
        return Some(InfraKind::KubeEvents);
    }
    if events::looks_like_operator_log(&sample) {
        return Some(InfraKind::Operator);
    }
    None
}

/// The longest pause read as one (1 h): a JVM's or Go runtime's pause
/// past it is no plausible pause (a line claiming 10^23 ms), a warning,
/// never a cause.
pub(crate) const MAX_PAUSE_NS: i64 = 3_600 * 1_000_000_000;

/// Where one reader puts what it reads.
pub(crate) struct Sink<'a> {
    /// The file's index.
    pub file: u16,
    /// Zone of times without an offset.
    pub tz: Option<&'a TzSpec>,
    /// The log being built.
    pub builder: &'a mut LogBuilder,
    /// The file's info (counters, notes).
    pub info: &'a mut SourceInfo,
    /// True once a time without an offset was read.
    pub naive: bool,
    /// The process id the file's name gives ([`pid_of_file`]), for lines
    /// that do not name their process.
    pub file_pid: Option<String>,
}

impl Sink<'_> {
    /// Adds one evidence item from line `line` (1-based).
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        line: usize,
        at_ns: i64,
        end_ns: Option<i64>,
        kind: EvidenceKind,
        origin: EvidenceOrigin,
        host: Option<String>,
        process: Option<String>,
        what: &str,
    ) {
        let pause = matches!(kind, EvidenceKind::GcPause | EvidenceKind::Safepoint);
        if pause
            && end_ns.is_some_and(|end| !(0..=MAX_PAUSE_NS).contains(&end.saturating_sub(at_ns)))
        {
            self.bad(line, InfraWarning::PauseLengthUnreadable);
            return;
        }
        let what: String = what.chars().take(160).collect();
        let process = process.or_else(|| self.file_pid.clone());
        self.builder.log.evidence.push(Evidence {
            at_ns,
            end_ns,
            kind,
            origin,
            host,
            process,
            what,
            source: SourceRef {
                file: self.file,
                line: u32::try_from(line).unwrap_or(u32::MAX),
            },
        });
        self.info.evidence_items += 1;
        self.info.lines_skipped += 1;
    }

    /// Counts a line that is readable but says nothing the evidence needs.
    pub fn skip(&mut self) {
        self.info.lines_skipped += 1;
    }

    /// Counts a line that could not be read, with its warning.
    pub fn bad(&mut self, line: usize, reason: InfraWarning) {
        self.info.lines_warned += 1;
        let name = self.info.name.clone();
        self.builder.warn(&name, line as u64, reason);
    }
}

/// Reads `text` (an infrastructure log of `kind`) into `builder` as
/// evidence; fills `info`'s counters, dialect and layout.
pub(crate) fn read(
    kind: InfraKind,
    text: &str,
    file: u16,
    tz: Option<&TzSpec>,
    builder: &mut LogBuilder,
    info: &mut SourceInfo,
) {
    info.dialect = Dialect::Infrastructure;
    info.layout = Some(kind.layout().to_string());
    let host = host_of_file(&info.name);
    let file_pid = pid_of_file(&info.name);
    let mut sink = Sink {
        file,
        tz,
        builder,
        info,
        naive: false,
        file_pid,
    };
    match kind {
        InfraKind::RedisLog => redis::read_log(text, &host, &mut sink),
        InfraKind::JvmGc => runtime::read_jvm(text, &host, &mut sink),
        InfraKind::Jdk8Gc => runtime::read_jdk8(text, &host, &mut sink),
        InfraKind::GoGc => runtime::read_go(text, &host, &mut sink),
        InfraKind::RedisReply => redis::read_reply(text, &host, &mut sink),
        InfraKind::RedisInfo => redis::read_info(text, &mut sink),
        InfraKind::KubeEvents => events::read_kube(text, &mut sink),
        InfraKind::Operator => events::read_operator(text, &mut sink),
    }
    if sink.naive {
        crate::ingest::roles::time::note_naive_times(sink.info, tz);
    }
}

/// The host a file's name gives (`gc-web-01.log` -> `web-01`,
/// `web-01.gc.log` -> `web-01`): its stem without `gc`, `log` and
/// separators. Used for lines that do not name their host.
pub(crate) fn host_of_file(name: &str) -> String {
    let base = std::path::Path::new(name)
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or(name);
    let parts: Vec<&str> = base
        .split(['.', '_'])
        .flat_map(|p| {
            let p = p.strip_prefix("gc-").unwrap_or(p);
            let p = p.strip_suffix("-gc").unwrap_or(p);
            std::iter::once(p)
        })
        .filter(|p| !p.is_empty() && !matches!(*p, "log" | "gc" | "txt" | "json" | "gz" | "zst"))
        .collect();
    if parts.is_empty() {
        base.to_string()
    } else {
        parts.join(".")
    }
}

/// The process id a file's name gives: a part `pid` followed by digits
/// (HotSpot writes `%p` in `-Xloggc:gc-%p.log` as `pid4242`;
/// `java_pid4242.hprof` names a heap dump the same way). A bare number is
/// never taken (it is as often a port: `redis-6379.log`).
pub(crate) fn pid_of_file(name: &str) -> Option<String> {
    let base = std::path::Path::new(name)
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or(name);
    base.split(['.', '_', '-'])
        .filter_map(|p| p.strip_prefix("pid"))
        .find(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_string)
}

/// Ns since the epoch for a naive time read in `tz` (UTC when `None`).
pub(crate) fn naive_ns(t: chrono::NaiveDateTime, sink: &mut Sink<'_>) -> Option<i64> {
    let utc = t.and_utc().timestamp_nanos_opt()?;
    sink.naive = true;
    let off = sink.tz.map_or(0, |z| z.offset_at(utc));
    let ns = utc.checked_sub(i64::from(off) * 1_000_000_000)?;
    crate::ingest::roles::time::in_range((ns, ()))
        .ok()
        .map(|(ns, ())| ns)
}

#[cfg(test)]
mod tests;

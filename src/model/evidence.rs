//! Evidence from the infrastructure: what a Redis server, Sentinel, a
//! runtime's GC log, Kubernetes or an operator said happened, read beside the
//! locks to explain them (docs/semantics.md §11). Not lock events.

use serde::Serialize;

use super::SourceRef;

/// What an infrastructure line says happened.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    bitcode::Encode,
    bitcode::Decode,
)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    /// A master was replaced: Sentinel's `+switch-master`, an operator's
    /// "failover"/"switched".
    Failover,
    /// A replica became master: Sentinel's `+promoted-slave`, the server's
    /// `MASTER MODE enabled`, an operator's "promoted".
    Promoted,
    /// A Redis server started (its keyspace is what it loaded, or empty):
    /// `Redis is starting`, an operator's "restarted"/"crashed", a Redis pod
    /// killed or OOM-killed.
    Restart,
    /// A Redis server shut down or was killed.
    Shutdown,
    /// A flush of the keyspace (an operator's "flushed").
    Flush,
    /// Keys evicted (an operator's "evicted", the server's maxmemory/OOM lines).
    Eviction,
    /// A replica lost its master or resynchronised, a network partition or
    /// a timeout (context, explains nothing alone).
    Replication,
    /// Sentinel's view of a server: `+sdown`, `+odown`, `+try-failover`,
    /// `+elected-leader`, `+selected-slave`, `+failover-end`, `-sdown`
    /// (context).
    Sentinel,
    /// A stop-the-world GC pause of a process; `end_ns` is set.
    GcPause,
    /// A JVM safepoint that is not a GC pause already listed; `end_ns` is set.
    Safepoint,
    /// A command that ran long on the Redis server (SLOWLOG, LATENCY): every
    /// client waited; `end_ns` is set.
    SlowCommand,
    /// A pod or process was killed, evicted or backed off (Kubernetes), or a
    /// node went not ready (context unless it is a Redis pod).
    PodEvent,
    /// A deploy or a scale (context).
    Deploy,
}

impl EvidenceKind {
    /// The snake_case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceKind::Failover => "failover",
            EvidenceKind::Promoted => "promoted",
            EvidenceKind::Restart => "restart",
            EvidenceKind::Shutdown => "shutdown",
            EvidenceKind::Flush => "flush",
            EvidenceKind::Eviction => "eviction",
            EvidenceKind::Replication => "replication",
            EvidenceKind::Sentinel => "sentinel",
            EvidenceKind::GcPause => "gc_pause",
            EvidenceKind::Safepoint => "safepoint",
            EvidenceKind::SlowCommand => "slow_command",
            EvidenceKind::PodEvent => "pod_event",
            EvidenceKind::Deploy => "deploy",
        }
    }

    /// True when the server lost (or may have lost) its keys here: the
    /// mechanisms of a `lock_vanished` (docs/semantics.md §11).
    pub fn loses_keys(self) -> bool {
        matches!(
            self,
            EvidenceKind::Failover
                | EvidenceKind::Promoted
                | EvidenceKind::Restart
                | EvidenceKind::Flush
                | EvidenceKind::Eviction
        )
    }

    /// True for a stall: a span of time in which a process (or every client
    /// of the server) could do nothing.
    pub fn is_stall(self) -> bool {
        matches!(
            self,
            EvidenceKind::GcPause | EvidenceKind::Safepoint | EvidenceKind::SlowCommand
        )
    }
}

/// Which product wrote the line.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    bitcode::Encode,
    bitcode::Decode,
)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceOrigin {
    /// A `redis-server` log.
    RedisServer,
    /// A `redis-server --sentinel` log.
    Sentinel,
    /// A JVM unified GC log (`-Xlog:gc*`).
    JvmGc,
    /// Go's `GODEBUG=gctrace=1` lines.
    GoGc,
    /// `SLOWLOG GET` (redis-cli) output.
    Slowlog,
    /// `kubectl get events -o json`.
    Kubernetes,
    /// An operator's or deploy tool's event log.
    Operator,
    /// The application's own line (`long GC pause 11800 ms`), in a file
    /// that carries the locks.
    Application,
}

impl EvidenceOrigin {
    /// The short name used in citations (`sentinel`, `GC log`...).
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceOrigin::RedisServer => "redis-server",
            EvidenceOrigin::Sentinel => "sentinel",
            EvidenceOrigin::JvmGc => "JVM GC",
            EvidenceOrigin::GoGc => "Go GC",
            EvidenceOrigin::Slowlog => "SLOWLOG",
            EvidenceOrigin::Kubernetes => "Kubernetes",
            EvidenceOrigin::Operator => "operator",
            EvidenceOrigin::Application => "application log",
        }
    }
}

/// One line of infrastructure evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, bitcode::Encode, bitcode::Decode)]
pub struct Evidence {
    /// When it happened (a pause's start), ns since the epoch.
    pub at_ns: i64,
    /// A pause's or a slow command's end, ns; `None` for an instant.
    pub end_ns: Option<i64>,
    /// What happened.
    pub kind: EvidenceKind,
    /// Which product said it.
    pub origin: EvidenceOrigin,
    /// The host, pod or server address it concerns (`127.0.0.1:27002`,
    /// `web-01`), when the line or the file name says it.
    pub host: Option<String>,
    /// The process (pid, container) it concerns, when known.
    pub process: Option<String>,
    /// The line's own words, short (`+switch-master mymaster ...`).
    pub what: String,
    /// Where it was logged.
    pub source: SourceRef,
}

impl Evidence {
    /// A pause's length, ms; `None` for an instant.
    pub fn length_ms(&self) -> Option<f64> {
        self.end_ns.map(|e| (e - self.at_ns) as f64 / 1e6)
    }
}

//! Why a load stops: the one error type of ingest. Bad lines are warnings,
//! never errors. A leaf every layer of ingest may return (it names no other
//! module of ingest).

use std::path::PathBuf;

/// Why a load stopped. Bad lines are not errors: they are warnings in the log.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// A file could not be opened or read.
    /// The reason is part of the message and deliberately not an error
    /// `source`: printers that walk the chain (anyhow's `{:#}`) would say it
    /// twice.
    #[error("cannot read {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        error: std::io::Error,
    },
    /// [`Progress::cancel`](crate::ingest::Progress::cancel) was set.
    #[error("loading was cancelled")]
    Cancelled,
    /// A mapping file is invalid.
    #[error("bad mapping {source_name}: {reason}")]
    BadMapping {
        /// The mapping file (or `mapping` for text).
        source_name: String,
        /// What is wrong.
        reason: String,
    },
    /// A time-zone option is invalid.
    #[error("unknown time zone {0:?} (use +08:00, UTC or a name like Asia/Shanghai)")]
    BadTz(String),
    /// A TTL setting is not `N` or `FILE=N` (ms).
    #[error(
        "TTL setting {0:?} is not MS or FILE=MS with MS a positive whole number of milliseconds"
    )]
    BadTtl(String),
    /// More input files than a [`SourceRef`](crate::model::SourceRef) can index.
    #[error("too many input files (at most 65535)")]
    TooManySources,
    /// A file is larger than lockreplay reads, or expands past the limits
    /// ([`MAX_INPUT_BYTES`](crate::ingest::MAX_INPUT_BYTES),
    /// [`MAX_EXPANSION_RATIO`](crate::ingest::MAX_EXPANSION_RATIO)).
    #[error("{name}: {reason}")]
    TooLarge {
        /// The file.
        name: String,
        /// Which limit, with its number.
        reason: String,
    },
    /// The path is a device, not a file (`/dev/zero`, `/dev/urandom`).
    #[error("{0}: is a device, not a log file")]
    Device(String),
}

//! The framing layer: bytes to lines and what a line carries before the
//! application's record. Decompression and decoding ([`decode`]: gzip,
//! zstd, BOM, UTF-16, GB18030), docker json-file's parts of long lines
//! joined ([`docker`]), CRI pod logs ([`cri`]), the time a line starts with
//! ([`timestamp`]) and a shipper's or runtime's header taken off a line
//! ([`header`]: syslog 3164/5424, Ruby Logger, Fluentd, Fluent Bit,
//! kubectl, logcli, journald, Grafana), and durations as text
//! ([`duration`]); the application's record found inside an envelope's
//! field ([`payload`]) and the event built from it ([`extract`]).

pub(crate) mod cri;
pub(crate) mod decode;
pub(crate) mod docker;
pub(crate) mod duration;
pub(crate) mod extract;
pub(crate) mod header;
pub(crate) mod payload;
pub(crate) mod timestamp;

//! The framing layer: bytes to lines and what a line carries before the
//! application's record. Decompression and decoding ([`decode`]: gzip,
//! zstd, BOM, UTF-16, GB18030), a text's lines ([`lines`]), docker
//! json-file's parts of long lines joined ([`docker`]), the systemd
//! journal's export format made JSON Lines ([`journal`]), CRI pod logs and
//! their partial lines ([`cri`]), the time a line starts with
//! ([`timestamp`]), a shipper's or runtime's header taken off a line
//! ([`header`]: syslog 3164/5424, Ruby Logger, Fluentd, Fluent Bit,
//! kubectl, logcli, journald, Grafana), and, for a text no known layout
//! reads, the bank of timestamp formats ([`stamps`]) and the structure
//! found with it ([`structure`]: where a record's time stands, where a
//! record starts, what precedes its message).

pub(crate) mod cri;
pub(crate) mod decode;
pub(crate) mod docker;
pub(crate) mod header;
pub(crate) mod journal;
pub(crate) mod lines;
pub(crate) mod stamps;
pub(crate) mod structure;
pub(crate) mod timestamp;

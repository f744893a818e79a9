//! Stage 1, framing: bytes to records. Decompression and decoding
//! ([`decode`]: gzip, zstd, BOM, UTF-16, GB18030), a shipper's or runtime's
//! header taken off a line ([`frame`]: syslog 3164/5424, Ruby Logger,
//! Fluentd, Fluent Bit), docker json-file's parts of long lines joined
//! ([`docker`]), durations as text ([`duration`]), and the application's
//! record found inside an envelope's field ([`payload`], [`extract`]).

pub(crate) mod decode;
pub(crate) mod docker;
pub(crate) mod duration;
pub(crate) mod extract;
pub(crate) mod frame;
pub(crate) mod payload;

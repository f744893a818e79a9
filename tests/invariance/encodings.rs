//! The bytes of an export: compression and text encoding, applied last.
//!
//! gzip (RFC 1952, `flate2`), zstd (RFC 8878; SLS download jobs,
//! `compressionType` zstd), a UTF-8 BOM (Windows tools, Excel-friendly CSV
//! downloads), GB18030 (the WHATWG encoding `encoding_rs` implements; a
//! Chinese Windows JVM's `file.encoding=GBK`) and CRLF line ends.

use std::io::Write;

/// How the export's bytes are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Plain,
    Gzip,
    Zstd,
    Bom,
    Gb18030,
    Crlf,
}

pub const ENCODINGS: &[Encoding] = &[
    Encoding::Plain,
    Encoding::Gzip,
    Encoding::Zstd,
    Encoding::Bom,
    Encoding::Gb18030,
    Encoding::Crlf,
];

impl Encoding {
    pub fn id(self) -> &'static str {
        match self {
            Encoding::Plain => "plain",
            Encoding::Gzip => "gzip",
            Encoding::Zstd => "zstd",
            Encoding::Bom => "bom",
            Encoding::Gb18030 => "gb18030",
            Encoding::Crlf => "crlf",
        }
    }

    /// Whether this encoding is meaningful for an envelope (GB18030 only
    /// where the file is text or CSV, not JSON).
    pub fn fits(self, text_envelope: bool) -> bool {
        self != Encoding::Gb18030 || text_envelope
    }

    /// The file name suffix a user would see.
    pub fn suffix(self) -> &'static str {
        match self {
            Encoding::Gzip => ".gz",
            Encoding::Zstd => ".zst",
            _ => "",
        }
    }

    /// `text` stored this way.
    pub fn apply(self, text: &str) -> Vec<u8> {
        match self {
            Encoding::Plain => text.as_bytes().to_vec(),
            Encoding::Gzip => {
                let mut e =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(text.as_bytes()).expect("gzip");
                e.finish().expect("gzip")
            }
            Encoding::Zstd => zstd::stream::encode_all(text.as_bytes(), 3).expect("zstd"),
            Encoding::Bom => {
                let mut v = vec![0xEF, 0xBB, 0xBF];
                v.extend_from_slice(text.as_bytes());
                v
            }
            Encoding::Gb18030 => {
                let (bytes, _, unmappable) = encoding_rs::GB18030.encode(text);
                assert!(!unmappable, "GB18030 encodes every character");
                bytes.into_owned()
            }
            Encoding::Crlf => text.replace('\n', "\r\n").into_bytes(),
        }
    }
}

//! Turns a file's raw bytes into UTF-8 text: transparent gzip, BOM sniffing
//! (UTF-8, UTF-16 LE/BE) and, for bytes that are not valid UTF-8, a guessed
//! legacy encoding (GB18030 for Chinese console exports).

use std::io::Read;

use encoding_rs::{Encoding, GB18030, GBK, UTF_8, UTF_16BE, UTF_16LE};

/// Most a compressed file may expand, as a ratio of its compressed size,
/// once past [`RATIO_FREE_BYTES`]: logs compress 5 to 30 times, a gzip bomb
/// about 1 000 times.
pub const MAX_EXPANSION_RATIO: u64 = 200;

/// Expanded bytes allowed whatever the ratio (64 MiB): a small, very
/// repetitive log may compress more than [`MAX_EXPANSION_RATIO`].
pub const RATIO_FREE_BYTES: u64 = 64 << 20;

/// Text of one source, ready for dialect detection.
#[derive(Debug)]
pub(crate) struct Decoded {
    /// The whole text, UTF-8, without BOM.
    pub text: String,
    /// Encoding name for [`crate::model::SourceInfo::encoding`].
    pub encoding: &'static str,
    /// Lines whose bytes were invalid in the chosen encoding (replaced).
    pub damaged_lines: u64,
}

/// How a source was compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compression {
    /// Not compressed.
    None,
    /// gzip (magic `1f 8b`), several members allowed.
    Gzip,
    /// Zstandard (magic `28 b5 2f fd`; SLS download jobs deliver `.csv.zst`).
    Zstd,
}

/// True when `head` starts with a compression format's magic bytes.
pub(crate) fn is_compressed(head: &[u8]) -> bool {
    head.starts_with(&[0x1f, 0x8b]) || is_zstd(head)
}

/// A zstd stream: a frame's magic, or a skippable frame's (`5? 2a 4d 18`,
/// RFC 8878 §3.1.2), which pzstd and the seekable format put first.
fn is_zstd(head: &[u8]) -> bool {
    head.starts_with(&ZSTD_MAGIC)
        || (head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18])
}

/// Decodes the zstd frames of `raw` one by one into `out` (at most `cap`
/// bytes), after a whole-stream decode failed on a checksum: a frame whose
/// content checksum does not match is decoded again without it (RFC 8878
/// §3.1.1: the flag is bit 2 of the frame header descriptor, the checksum
/// the frame's last 4 bytes), so its data is kept with a warning, as a
/// damaged gzip member's is. Returns the error text for the warning.
fn zstd_by_frame(raw: &[u8], cap: u64, out: &mut Vec<u8>) -> String {
    let decode = |frame: &[u8], out: &mut Vec<u8>| -> Result<(), String> {
        let room = (cap + 1).saturating_sub(out.len() as u64);
        let dec = zstd::stream::read::Decoder::new(frame).map_err(|e| e.to_string())?;
        dec.take(room)
            .read_to_end(out)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    out.clear();
    let mut said = String::new();
    let mut rest = raw;
    while !rest.is_empty() && out.len() as u64 <= cap {
        let Ok(n) = zstd::zstd_safe::find_frame_compressed_size(rest) else {
            first_reason(&mut said, "a damaged frame; the frames before it were kept");
            break;
        };
        let frame = &rest[..n.min(rest.len())];
        let start = out.len();
        if let Err(e) = decode(frame, out) {
            out.truncate(start);
            let checksum =
                frame.starts_with(&ZSTD_MAGIC) && frame.len() > 8 && frame[4] & 0x04 != 0;
            if !checksum {
                first_reason(&mut said, &e);
                break;
            }
            let mut bare = frame[..frame.len() - 4].to_vec();
            bare[4] &= !0x04;
            if decode(&bare, out).is_err() {
                out.truncate(start);
            }
            first_reason(
                &mut said,
                &format!("{e}: a frame's checksum does not match; its data was kept"),
            );
        }
        rest = &rest[n.min(rest.len())..];
    }
    said
}

/// Decompresses the gzip members of `raw` one after another into `out` (at
/// most `cap` + 1 bytes), as `gzip -d` does. Returns the error text for the
/// warning: a member's own damage, or bytes after the last member that are
/// no gzip member (a plain log appended to a `.gz`: counted and said, since
/// they are not read).
fn gunzip_members(raw: &[u8], cap: u64, out: &mut Vec<u8>) -> Option<String> {
    let mut rest = raw;
    while !rest.is_empty() && out.len() as u64 <= cap {
        if !rest.starts_with(&[0x1f, 0x8b]) {
            return Some(not_read_after(rest, "gzip member"));
        }
        let room = (cap + 1).saturating_sub(out.len() as u64);
        let mut dec = flate2::bufread::GzDecoder::new(rest);
        if let Err(e) = dec.by_ref().take(room).read_to_end(out) {
            return Some(e.to_string());
        }
        let left = dec.into_inner();
        if left.len() == rest.len() {
            break;
        }
        rest = left;
    }
    None
}

/// The warning's reason for `rest`, bytes after the last `what` that are
/// none: how many bytes and lines were not read.
fn not_read_after(rest: &[u8], what: &str) -> String {
    let lines = rest
        .split(|&b| b == b'\n')
        .filter(|l| !l.trim_ascii().is_empty())
        .count();
    format!(
        "{} byte(s) after the last {what}, {lines} non-blank line(s), are not compressed data and were not read",
        rest.len()
    )
}

/// When the frames of `raw` are whole and are followed by bytes that start
/// no frame, the warning's reason for those bytes; else `None` (the
/// decoder's own error says the damage).
fn after_zstd_frames(raw: &[u8]) -> Option<String> {
    let mut rest = raw;
    while !rest.is_empty() {
        match zstd::zstd_safe::find_frame_compressed_size(rest) {
            Ok(n) if n > 0 && n <= rest.len() => rest = &rest[n..],
            _ if is_zstd(rest) => return None,
            _ => return Some(not_read_after(rest, "zstd frame")),
        }
    }
    None
}

/// Keeps the first reason given (the warning names the first damage).
fn first_reason(said: &mut String, reason: &str) {
    if said.is_empty() {
        said.push_str(reason);
    }
}

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// How far a compressed file may expand ([`decompress_if_needed`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ExpandLimit {
    /// Most expanded bytes in all.
    pub max_bytes: u64,
    /// Most expanded bytes per compressed byte, past `free_bytes`.
    pub ratio: u64,
    /// Expanded bytes allowed whatever the ratio.
    pub free_bytes: u64,
}

impl ExpandLimit {
    /// Most bytes `compressed` bytes may expand to.
    fn cap(&self, compressed: usize) -> u64 {
        (compressed as u64)
            .saturating_mul(self.ratio)
            .max(self.free_bytes)
            .min(self.max_bytes)
    }
}

/// Decompresses `raw` when it starts with the gzip or zstd magic bytes,
/// never past `limit` (a gzip bomb is refused, not expanded).
///
/// Returns (bytes, compression, error text when the stream was damaged: the
/// bytes decompressed before the damage are kept).
///
/// # Errors
/// The reason, with the numbers, when the stream expands past `limit`.
pub(crate) fn decompress_if_needed(
    raw: Vec<u8>,
    limit: &ExpandLimit,
) -> Result<(Vec<u8>, Compression, Option<String>), String> {
    let cap = limit.cap(raw.len());
    let mut out = Vec::with_capacity(raw.len().saturating_mul(4).min(cap as usize));
    let too_big = |out: &Vec<u8>| {
        (out.len() as u64 > cap).then(|| {
            format!(
                "the compressed file ({} bytes) expands past {} MiB ({}x its size, or {} MiB, at most {} MiB): a damaged file or a decompression bomb; decompress it yourself if it is a real log",
                raw.len(),
                cap >> 20,
                limit.ratio,
                limit.free_bytes >> 20,
                limit.max_bytes >> 20
            )
        })
    };
    if raw.starts_with(&[0x1f, 0x8b]) {
        let err = gunzip_members(&raw, cap, &mut out);
        if let Some(reason) = too_big(&out) {
            return Err(reason);
        }
        return Ok((out, Compression::Gzip, err));
    }
    if is_zstd(&raw) {
        let mut err = match zstd::stream::read::Decoder::new(raw.as_slice()) {
            Ok(dec) => dec
                .take(cap + 1)
                .read_to_end(&mut out)
                .err()
                .map(|e| e.to_string()),
            Err(e) => Some(e.to_string()),
        };
        if err.as_deref().is_some_and(|e| e.contains("checksum")) {
            err = Some(zstd_by_frame(&raw, cap, &mut out));
        } else if err.is_some()
            && let Some(said) = after_zstd_frames(&raw)
        {
            err = Some(said);
        }
        if let Some(reason) = too_big(&out) {
            return Err(reason);
        }
        return Ok((out, Compression::Zstd, err));
    }
    Ok((raw, Compression::None, None))
}

/// Decodes bytes to text.
///
/// Order: a BOM decides (UTF-8, UTF-16LE, UTF-16BE); valid UTF-8 is taken as
/// is (no copy); otherwise each line that is valid UTF-8 stays UTF-8 and the
/// other lines are decoded with the encoding `chardetng` guesses from them
/// (GBK is read as its superset GB18030). The reported name is the guessed
/// encoding when most non-ASCII lines needed it, else `UTF-8`.
pub(crate) fn decode(mut bytes: Vec<u8>) -> Decoded {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes.drain(..3);
    } else if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        let enc = if bytes[0] == 0xFF { UTF_16LE } else { UTF_16BE };
        let (text, had_errors) = enc.decode_with_bom_removal(&bytes);
        return Decoded {
            text: text.into_owned(),
            encoding: enc.name(),
            damaged_lines: u64::from(had_errors),
        };
    }
    match String::from_utf8(bytes) {
        Ok(text) => Decoded {
            text,
            encoding: UTF_8.name(),
            damaged_lines: 0,
        },
        Err(e) => decode_mixed(e.into_bytes()),
    }
}

/// Per-line decoding for input that is not valid UTF-8 as a whole.
fn decode_mixed(bytes: Vec<u8>) -> Decoded {
    const SAMPLE_CAP: usize = 4 << 20;
    // chardetng rules an encoding out on one sequence invalid in it, so one
    // damaged row (or a file cut inside its last character) would make a
    // GB18030 file Windows-1252 as a whole: 0 events. When most non-UTF-8
    // lines are clean GB18030, only those are shown to the detector; a
    // Latin-1 file's lone high bytes are rarely valid GB18030, so it keeps
    // its guess.
    let mut sample: Vec<(&[u8], bool)> = Vec::new();
    let mut fed = 0usize;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if fed < SAMPLE_CAP && std::str::from_utf8(line).is_err() {
            let clean = GB18030
                .decode_without_bom_handling_and_without_replacement(line)
                .is_some();
            sample.push((line, clean));
            fed += line.len();
        }
    }
    let clean = sample.iter().filter(|(_, c)| *c).count();
    let only_clean = clean < sample.len() && clean * 2 > sample.len();
    let mut det = chardetng::EncodingDetector::new();
    for (line, c) in &sample {
        if *c || !only_clean {
            det.feed(line, false);
        }
    }
    det.feed(&[], true);
    let mut guess: &'static Encoding = det.guess(None, false);
    if guess == GBK || guess == UTF_8 {
        guess = GB18030;
    }
    let mut text = String::with_capacity(bytes.len() + bytes.len() / 2);
    let (mut legacy_lines, mut utf8_non_ascii, mut damaged) = (0u64, 0u64, 0u64);
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        match std::str::from_utf8(line) {
            Ok(s) => {
                if !s.is_ascii() {
                    utf8_non_ascii += 1;
                }
                text.push_str(s);
            }
            Err(_) => {
                let (s, had_errors) = guess.decode_without_bom_handling(line);
                legacy_lines += 1;
                damaged += u64::from(had_errors);
                text.push_str(&s);
            }
        }
    }
    let total_lines = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.trim_ascii().is_empty())
        .count() as u64;
    let multibyte = [
        GB18030,
        encoding_rs::BIG5,
        encoding_rs::SHIFT_JIS,
        encoding_rs::EUC_JP,
        encoding_rs::EUC_KR,
    ]
    .contains(&guess);
    // A few undecodable lines in an otherwise UTF-8 file are damage, not
    // another encoding.
    let mostly_legacy = legacy_lines * 2 >= total_lines || (multibyte && damaged == 0);
    let encoding =
        if legacy_lines > utf8_non_ascii && damaged * 2 < legacy_lines.max(1) && mostly_legacy {
            guess.name()
        } else {
            UTF_8.name()
        };
    // In a file read as UTF-8, a line that was not UTF-8 is damage even when
    // the guessed encoding could decode it: say so (the note in `SourceInfo`).
    let damaged_lines = if encoding == UTF_8.name() {
        legacy_lines
    } else {
        damaged
    };
    Decoded {
        text,
        encoding,
        damaged_lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const LIMIT: ExpandLimit = ExpandLimit {
        max_bytes: 1 << 30,
        ratio: 200,
        free_bytes: 1 << 20,
    };

    #[test]
    fn a_gzip_bomb_is_refused_with_its_numbers() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&vec![b'a'; 8 << 20]).expect("write");
        let gz = enc.finish().expect("finish");
        assert!(gz.len() < 40_000, "{}", gz.len());
        let err = decompress_if_needed(gz, &LIMIT).expect_err("a bomb");
        assert!(err.contains("decompression bomb"), "{err}");
        // The same bytes within the ratio-free allowance load.
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&vec![b'a'; 1 << 20]).expect("write");
        let gz = enc.finish().expect("finish");
        let (out, _, err) = decompress_if_needed(gz, &LIMIT).expect("within");
        assert_eq!((out.len(), err), (1 << 20, None));
    }

    #[test]
    fn one_bad_sequence_keeps_a_gb18030_file_gb18030() {
        let mut src = String::from("时间,事件,锁键,持有者,数量\r\n");
        for i in 0..40 {
            src.push_str(&format!(
                "2023-05-20 14:30:{:02}.000,获取锁成功,锁:商品{i},甲{i},扣减库存\r\n",
                i % 60
            ));
        }
        let (bytes, _, _) = GB18030.encode(&src);
        let mut bytes = bytes.into_owned();
        // One bad byte sequence in a middle row, and a cut inside the last
        // character.
        let mid = bytes.len() / 2;
        let nl = mid
            + bytes[mid..]
                .iter()
                .position(|&b| b == b'\n')
                .expect("a line");
        bytes.splice(nl - 1..nl - 1, [0x81, 0x20]);
        bytes.extend_from_slice(&[b'x', 0xD6]);
        let d = decode(bytes);
        assert_eq!(d.encoding, "gb18030");
        assert!(d.text.contains("获取锁成功,锁:商品39,甲39"), "{}", d.text);
        assert_eq!(d.damaged_lines, 2);
    }

    #[test]
    fn utf8_with_and_without_bom() {
        let d = decode(b"\xEF\xBB\xBFa,b\n".to_vec());
        assert_eq!((d.text.as_str(), d.encoding), ("a,b\n", "UTF-8"));
        let d = decode("时间\n".as_bytes().to_vec());
        assert_eq!((d.text.as_str(), d.encoding), ("时间\n", "UTF-8"));
    }

    #[test]
    fn utf16_boms() {
        let mut le = vec![0xFF, 0xFE];
        for u in "时间,a\n".encode_utf16() {
            le.extend_from_slice(&u.to_le_bytes());
        }
        let d = decode(le);
        assert_eq!((d.text.as_str(), d.encoding), ("时间,a\n", "UTF-16LE"));
        let mut be = vec![0xFE, 0xFF];
        for u in "ok\n".encode_utf16() {
            be.extend_from_slice(&u.to_be_bytes());
        }
        let d = decode(be);
        assert_eq!((d.text.as_str(), d.encoding), ("ok\n", "UTF-16BE"));
    }

    #[test]
    fn gb18030_is_detected() {
        let src = "时间,事件,锁键,持有者\r\n2023-05-20 14:30:00.000072,获取锁成功,lock:a,甲\r\n";
        let (bytes, _, _) = GB18030.encode(src);
        assert!(std::str::from_utf8(&bytes).is_err());
        let d = decode(bytes.into_owned());
        assert_eq!(d.encoding, "gb18030");
        assert_eq!(d.text, src);
    }

    #[test]
    fn garbage_lines_in_utf8_stay_utf8() {
        let mut b = "{\"a\":\"时间\"}\n{\"b\":\"库存\"}\n{\"c\":\"扣减\"}\n"
            .as_bytes()
            .to_vec();
        b.extend_from_slice(b"\xff\xfe\x00\x81garbage\n{\"d\":1}\n");
        let d = decode(b);
        assert_eq!(d.encoding, "UTF-8");
        assert_eq!(d.text.lines().count(), 5);
        // The damaged line is counted, not decoded silently.
        assert_eq!(d.damaged_lines, 1);
        assert!(d.text.starts_with("{\"a\":\"时间\"}"));
    }

    #[test]
    fn gzip_is_transparent() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"{\"ts\":1}\n").expect("write");
        let gz = enc.finish().expect("finish");
        let (bytes, was_gz, err) = decompress_if_needed(gz.clone(), &LIMIT).expect("within");
        assert_eq!(
            (bytes.as_slice(), was_gz, err),
            (&b"{\"ts\":1}\n"[..], Compression::Gzip, None)
        );
        let (bytes, was_gz, err) =
            decompress_if_needed(gz[..gz.len() - 6].to_vec(), &LIMIT).expect("within");
        assert!(was_gz == Compression::Gzip && err.is_some());
        assert!(bytes.len() <= 9);
        let (bytes, was_gz, _) = decompress_if_needed(b"plain".to_vec(), &LIMIT).expect("within");
        assert_eq!(
            (bytes.as_slice(), was_gz),
            (&b"plain"[..], Compression::None)
        );
    }

    #[test]
    fn zstd_is_transparent() {
        let z = zstd::stream::encode_all(&b"{\"ts\":1}\n"[..], 3).expect("zstd");
        assert!(is_compressed(&z));
        let (bytes, c, err) = decompress_if_needed(z.clone(), &LIMIT).expect("within");
        assert_eq!(
            (bytes.as_slice(), c, err),
            (&b"{\"ts\":1}\n"[..], Compression::Zstd, None)
        );
        let (_, c, err) = decompress_if_needed(z[..z.len() - 3].to_vec(), &LIMIT).expect("within");
        assert!(c == Compression::Zstd && err.is_some());
    }

    /// A plain log appended to a compressed one (`cat a.gz b.jsonl`): the
    /// members are read, and the bytes after them are counted in the
    /// warning, not dropped with "invalid gzip header" (which would take the
    /// lines of a second incident out of the line accounting).
    #[test]
    fn plain_bytes_after_compressed_data_are_counted_in_the_warning() {
        let plain = b"{\"ts\":2}\n\n{\"ts\":3}\n";
        let mut two = Vec::new();
        for text in [&b"{\"ts\":1}\n"[..], &b"{\"ts\":4}\n"[..]] {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(text).expect("write");
            two.extend(enc.finish().expect("finish"));
        }
        let (bytes, _, err) = decompress_if_needed(two.clone(), &LIMIT).expect("within");
        assert_eq!(
            (bytes.as_slice(), err),
            (&b"{\"ts\":1}\n{\"ts\":4}\n"[..], None)
        );
        let said = "19 byte(s) after the last gzip member, 2 non-blank line(s), are not compressed data and were not read";
        two.extend_from_slice(plain);
        let (bytes, _, err) = decompress_if_needed(two, &LIMIT).expect("within");
        assert_eq!(bytes.as_slice(), &b"{\"ts\":1}\n{\"ts\":4}\n"[..]);
        assert_eq!(err.as_deref(), Some(said));
        let mut z = zstd::stream::encode_all(&b"{\"ts\":1}\n"[..], 3).expect("zstd");
        z.extend_from_slice(plain);
        let (bytes, _, err) = decompress_if_needed(z, &LIMIT).expect("within");
        assert_eq!(bytes.as_slice(), &b"{\"ts\":1}\n"[..]);
        assert_eq!(
            err.as_deref(),
            Some(&*said.replace("gzip member", "zstd frame"))
        );
    }

    /// pzstd and the seekable format start with a skippable frame (RFC 8878
    /// §3.1.2): still zstd, not binary text.
    #[test]
    fn zstd_after_a_skippable_frame_is_recognised() {
        let mut z = vec![0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4];
        z.extend(zstd::stream::encode_all(&b"{\"ts\":1}\n"[..], 3).expect("zstd"));
        assert!(is_compressed(&z));
        let (bytes, c, err) = decompress_if_needed(z, &LIMIT).expect("within");
        assert_eq!(
            (bytes.as_slice(), c, err),
            (&b"{\"ts\":1}\n"[..], Compression::Zstd, None)
        );
    }

    /// Two frames with content checksums, the second's checksum damaged:
    /// both frames' data is kept, with the reason, as gzip keeps a damaged
    /// member's.
    #[test]
    fn a_zstd_frame_with_a_bad_checksum_keeps_its_data() {
        let frame = |text: &[u8]| {
            let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).expect("encoder");
            enc.include_checksum(true).expect("checksum");
            std::io::Write::write_all(&mut enc, text).expect("write");
            enc.finish().expect("finish")
        };
        let mut z = frame(b"{\"a\":1}\n");
        let mut second = frame(b"{\"b\":2}\n");
        let last = second.len() - 1;
        second[last] ^= 0xff;
        z.extend(second);
        let (bytes, c, err) = decompress_if_needed(z, &LIMIT).expect("within");
        assert_eq!(bytes.as_slice(), &b"{\"a\":1}\n{\"b\":2}\n"[..]);
        assert_eq!(c, Compression::Zstd);
        assert!(err.is_some_and(|e| e.contains("checksum")));
    }
}

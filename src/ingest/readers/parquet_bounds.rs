//! Bounds on a Parquet file, checked on its footer and page headers before
//! the parquet crate reads a page: the crate allocates whatever a page
//! header declares, inflates a gzip page to its end whatever it declares,
//! recurses once per level of the schema and panics on some malformed
//! pages. Checked here: the schema's depth ([`MAX_SCHEMA_DEPTH`]), every
//! column chunk's byte range, every page's sizes and, for gzip, its real
//! size, the sum of what the pages expand to against the file's size
//! ([`expansion_budget`]), dictionary pages against their values, and
//! dictionary-coded pages without a dictionary (docs/reliability.md).
//!
//! The footer and page headers are Thrift compact protocol structures
//! (apache/thrift `doc/specs/thrift-compact-protocol.md`) with the field ids
//! of apache/parquet-format `src/main/thrift/parquet.thrift`; only the
//! fields the bounds need are read, the others skipped.

use std::io::Read;

use crate::ingest::framing::decode::{MAX_EXPANSION_RATIO, RATIO_FREE_BYTES};

/// Deepest schema read: groups within groups. The crate recurses once per
/// level (a schema 100 000 deep overflowed the stack); real exports nest a
/// few levels.
pub(crate) const MAX_SCHEMA_DEPTH: usize = 64;

/// Deepest Thrift nesting skipped in the footer or a page header (structs
/// in structs); parquet.thrift's deepest is under 10.
const MAX_THRIFT_DEPTH: u8 = 32;

/// Most bytes a Parquet file of `file_len` bytes may expand to, as its
/// pages' uncompressed bytes and again as its rows' text: the same bound as
/// a compressed file's ([`MAX_EXPANSION_RATIO`] times its size, at least
/// [`RATIO_FREE_BYTES`]), and at most `max_bytes`.
pub(crate) fn expansion_budget(file_len: u64, max_bytes: u64) -> u64 {
    file_len
        .saturating_mul(MAX_EXPANSION_RATIO)
        .max(RATIO_FREE_BYTES)
        .min(max_bytes)
}

/// Codec ids (parquet.thrift `CompressionCodec`).
const GZIP: i64 = 2;
const LZ4: i64 = 5;
/// The LZ4 frame format's magic (lz4 `doc/lz4_Frame_format.md`).
const LZ4_FRAME: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];
/// Page types (parquet.thrift `PageType`).
const DATA_PAGE: i64 = 0;
const INDEX_PAGE: i64 = 1;
const DICTIONARY_PAGE: i64 = 2;
const DATA_PAGE_V2: i64 = 3;
/// Dictionary-coded encodings (parquet.thrift `Encoding`).
const PLAIN_DICTIONARY: i64 = 2;
const RLE_DICTIONARY: i64 = 8;
/// BYTE_ARRAY (parquet.thrift `Type`).
const BYTE_ARRAY: i64 = 6;

/// One column chunk as its footer describes it.
#[derive(Debug, Default)]
pub(crate) struct Chunk {
    /// Physical type (parquet.thrift `Type`).
    pub physical: i64,
    /// Compression codec.
    codec: i64,
    /// First byte: the dictionary page's offset, else the first data page's.
    start: i64,
    /// Compressed bytes of the chunk.
    len: i64,
    /// Fixed width of FIXED_LEN_BYTE_ARRAY values (the schema's `type_length`).
    type_length: i64,
}

impl Chunk {
    /// The chunk's first byte and length, as the footer gives them.
    pub(crate) fn range(&self) -> (i64, i64) {
        (self.start, self.len)
    }
}

/// Checks `bytes` (a whole file, [`super::parquet::is_parquet`]) against
/// the bounds of this module, expanding within `budget` bytes; returns the
/// column chunks, in row-group then column order.
///
/// # Errors
/// Why the file is refused, in words naming the bound.
pub(crate) fn check(bytes: &[u8], budget: u64) -> Result<Vec<Chunk>, String> {
    let footer = footer(bytes)?;
    let data_end = bytes.len() - 8 - footer.len();
    let meta = file_meta(footer)?;
    schema_depth(&meta.children)?;
    let mut expanded = 0u64;
    for chunk in &meta.chunks {
        let start =
            u64::try_from(chunk.start).map_err(|_| "a column chunk starts before the file")?;
        let len = u64::try_from(chunk.len).map_err(|_| "a column chunk of negative length")?;
        let end = start
            .checked_add(len)
            .filter(|&e| e <= data_end as u64)
            .ok_or("a column chunk reaches past the file's data")?;
        // Both ends are within `bytes`, so they fit usize.
        let range = &bytes[start as usize..end as usize];
        check_pages(range, chunk, &mut expanded, budget)?;
    }
    Ok(meta.chunks)
}

/// The footer's Thrift bytes: its length is the 4 bytes before the closing
/// magic.
fn footer(bytes: &[u8]) -> Result<&[u8], String> {
    let n = bytes.len();
    let len_at = n.checked_sub(8).ok_or("too short for a footer")?;
    let mut le = [0u8; 4];
    le.copy_from_slice(&bytes[len_at..len_at + 4]);
    let len = u32::from_le_bytes(le) as usize;
    let from = len_at
        .checked_sub(len)
        .filter(|&f| f >= 4)
        .ok_or_else(|| format!("the footer claims {len} bytes, more than the file holds"))?;
    Ok(&bytes[from..len_at])
}

/// What the bounds need of the footer's `FileMetaData`.
#[derive(Debug, Default)]
struct FileMeta {
    /// Each schema element's `num_children` (0 for a leaf), in order.
    children: Vec<i64>,
    /// Each leaf's `type_length`, in order.
    leaf_lengths: Vec<i64>,
    chunks: Vec<Chunk>,
}

/// Reads `FileMetaData` (field 2: the schema, 4: the row groups).
fn file_meta(footer: &[u8]) -> Result<FileMeta, String> {
    let mut c = Compact {
        buf: footer,
        pos: 0,
    };
    let mut meta = FileMeta::default();
    c.each_field(|c, id, ty| match (id, ty) {
        (2, T_LIST) => c.each_element(|c| {
            let (mut kids, mut width) = (0, 0);
            c.each_field(|c, id, ty| match (id, ty) {
                (2, T_I32) => c.int().map(|v| width = v),
                (5, T_I32) => c.int().map(|v| kids = v),
                _ => c.skip(ty, MAX_THRIFT_DEPTH),
            })?;
            if kids <= 0 {
                meta.leaf_lengths.push(width);
            }
            meta.children.push(kids);
            Ok(())
        }),
        (4, T_LIST) => c.each_element(|c| row_group(c, &mut meta.chunks)),
        _ => c.skip(ty, MAX_THRIFT_DEPTH),
    })?;
    let leaves = meta.leaf_lengths.len().max(1);
    for (i, chunk) in meta.chunks.iter_mut().enumerate() {
        chunk.type_length = meta.leaf_lengths.get(i % leaves).copied().unwrap_or(0);
    }
    Ok(meta)
}

/// Reads one `RowGroup`'s column chunks (field 1) into `out`.
fn row_group(c: &mut Compact<'_>, out: &mut Vec<Chunk>) -> Result<(), String> {
    c.each_field(|c, id, ty| match (id, ty) {
        (1, T_LIST) => c.each_element(|c| {
            let mut chunk = None;
            c.each_field(|c, id, ty| match (id, ty) {
                (3, T_STRUCT) => column_meta(c).map(|m| chunk = Some(m)),
                _ => c.skip(ty, MAX_THRIFT_DEPTH),
            })?;
            // A chunk without metadata (encrypted) is the crate's to refuse.
            out.extend(chunk);
            Ok(())
        }),
        _ => c.skip(ty, MAX_THRIFT_DEPTH),
    })
}

/// Reads a `ColumnMetaData`: type (1), codec (4), total compressed size
/// (7), first data page (9), dictionary page (11).
fn column_meta(c: &mut Compact<'_>) -> Result<Chunk, String> {
    let mut chunk = Chunk::default();
    let (mut data, mut dict) = (None, None);
    c.each_field(|c, id, ty| match (id, ty) {
        (1, T_I32) => c.int().map(|v| chunk.physical = v),
        (4, T_I32) => c.int().map(|v| chunk.codec = v),
        (7, T_I64) => c.int().map(|v| chunk.len = v),
        (9, T_I64) => c.int().map(|v| data = Some(v)),
        (11, T_I64) => c.int().map(|v| dict = Some(v)),
        _ => c.skip(ty, MAX_THRIFT_DEPTH),
    })?;
    chunk.start = dict.or(data).unwrap_or(-1);
    Ok(chunk)
}

/// Refuses a schema nested past [`MAX_SCHEMA_DEPTH`], walking the
/// depth-first element list with a stack of children still to come.
fn schema_depth(children: &[i64]) -> Result<(), String> {
    let mut open: Vec<i64> = Vec::new();
    for (i, &kids) in children.iter().enumerate() {
        if i > 0 {
            while open.last() == Some(&0) {
                open.pop();
            }
            match open.last_mut() {
                Some(left) => *left -= 1,
                None => return Err("more schema elements than the schema's tree holds".into()),
            }
        }
        if kids > 0 {
            open.push(kids);
            if open.len() > MAX_SCHEMA_DEPTH {
                return Err(format!(
                    "the schema nests deeper than {MAX_SCHEMA_DEPTH} levels"
                ));
            }
        }
    }
    Ok(())
}

/// One page header's fields the bounds need.
#[derive(Debug, Default)]
struct PageHeader {
    kind: i64,
    uncompressed: i64,
    compressed: i64,
    num_values: i64,
    encoding: i64,
    /// Data page v2: bytes of levels, stored uncompressed before the values.
    levels: i64,
    /// Data page v2: whether the values are compressed.
    is_compressed: bool,
}

/// Walks the pages of one column chunk (`range`), adding what they expand
/// to into `expanded`.
fn check_pages(range: &[u8], chunk: &Chunk, expanded: &mut u64, budget: u64) -> Result<(), String> {
    let mut pos = 0usize;
    let mut dictionary = false;
    while pos < range.len() {
        let mut c = Compact {
            buf: &range[pos..],
            pos: 0,
        };
        let h = page_header(&mut c)?;
        pos += c.pos;
        let comp = usize::try_from(h.compressed)
            .ok()
            .filter(|&n| n <= range.len() - pos)
            .ok_or("a page reaches past its column chunk")?;
        let unc = u64::try_from(h.uncompressed).map_err(|_| "a page of negative size")?;
        *expanded = expanded.saturating_add(unc);
        if *expanded > budget {
            return Err(format!(
                "its pages expand past {} MiB ({}x the file's size, at least {} MiB)",
                budget >> 20,
                MAX_EXPANSION_RATIO,
                RATIO_FREE_BYTES >> 20
            ));
        }
        let body = &range[pos..pos + comp];
        pos += comp;
        if h.kind == INDEX_PAGE {
            continue;
        }
        if chunk.codec == GZIP && h.is_compressed {
            gzip_within(body, h.levels, unc)?;
        }
        if chunk.codec == LZ4 && body.starts_with(&LZ4_FRAME) {
            // The crate inflates an LZ4 frame to its end, whatever the
            // header declares; Hadoop's framing and raw blocks are bounded.
            return Err("an LZ4 frame page (its size is not bounded) is not read".into());
        }
        match h.kind {
            DICTIONARY_PAGE => {
                dictionary = true;
                let width = min_width(chunk);
                if h.num_values < 0 || (h.num_values as u64).saturating_mul(width) > unc {
                    return Err(format!(
                        "a dictionary page promises {} values in {unc} bytes",
                        h.num_values
                    ));
                }
            }
            DATA_PAGE | DATA_PAGE_V2 => {
                if matches!(h.encoding, PLAIN_DICTIONARY | RLE_DICTIONARY) && !dictionary {
                    return Err("a dictionary-coded page without a dictionary page".into());
                }
                if h.num_values < 0 {
                    return Err("a page of a negative number of values".into());
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Fewest bytes one value of `chunk` takes in a PLAIN dictionary page:
/// a 4-byte length for BYTE_ARRAY, the type's width otherwise.
fn min_width(chunk: &Chunk) -> u64 {
    match chunk.physical {
        0 => 0, // BOOLEAN: bits
        1 | 4 => 4,
        2 | 5 => 8,
        3 => 12,
        BYTE_ARRAY => 4,
        _ => u64::try_from(chunk.type_length).unwrap_or(0),
    }
}

/// Refuses a gzip page (`body`, its first `levels` bytes stored as they
/// are) that inflates past the `declared` size of its header: the crate
/// inflates gzip to its end whatever the header says.
fn gzip_within(body: &[u8], levels: i64, declared: u64) -> Result<(), String> {
    let levels = usize::try_from(levels).unwrap_or(0).min(body.len());
    let values = declared.saturating_sub(levels as u64);
    let mut inflate = flate2::read::MultiGzDecoder::new(&body[levels..]).take(values + 1);
    // A damaged stream is the crate's to report; only the size is checked.
    let n = std::io::copy(&mut inflate, &mut std::io::sink()).unwrap_or(0);
    if n > values {
        return Err(format!(
            "a gzip page inflates past the {declared} bytes its header declares"
        ));
    }
    Ok(())
}

/// Reads a `PageHeader`: type (1), sizes (2, 3), and the values and
/// encoding of its data (5), dictionary (7) or data v2 (8) header.
fn page_header(c: &mut Compact<'_>) -> Result<PageHeader, String> {
    let mut h = PageHeader {
        is_compressed: true,
        ..PageHeader::default()
    };
    c.each_field(|c, id, ty| match (id, ty) {
        (1, T_I32) => c.int().map(|v| h.kind = v),
        (2, T_I32) => c.int().map(|v| h.uncompressed = v),
        (3, T_I32) => c.int().map(|v| h.compressed = v),
        (5 | 7 | 8, T_STRUCT) => c.each_field(|c, sub, ty| match (id, sub, ty) {
            (_, 1, T_I32) => c.int().map(|v| h.num_values = v),
            (5 | 7, 2, T_I32) | (8, 4, T_I32) => c.int().map(|v| h.encoding = v),
            (8, 5 | 6, T_I32) => c.int().map(|v| h.levels = h.levels.saturating_add(v)),
            (8, 7, T_TRUE | T_FALSE) => {
                h.is_compressed = ty == T_TRUE;
                Ok(())
            }
            _ => c.skip(ty, MAX_THRIFT_DEPTH),
        }),
        _ => c.skip(ty, MAX_THRIFT_DEPTH),
    })?;
    Ok(h)
}

/// Compact protocol type ids.
const T_TRUE: u8 = 1;
const T_FALSE: u8 = 2;
const T_BYTE: u8 = 3;
const T_I16: u8 = 4;
const T_I32: u8 = 5;
const T_I64: u8 = 6;
const T_DOUBLE: u8 = 7;
const T_BINARY: u8 = 8;
const T_LIST: u8 = 9;
const T_SET: u8 = 10;
const T_MAP: u8 = 11;
const T_STRUCT: u8 = 12;
const T_UUID: u8 = 13;

/// A Thrift compact protocol reader over `buf`.
struct Compact<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Compact<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or("a footer or page header cut short")?;
        self.pos += 1;
        Ok(b)
    }

    fn advance(&mut self, n: u64) -> Result<(), String> {
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| self.pos.checked_add(n))
            .filter(|&e| e <= self.buf.len())
            .ok_or("a footer or page header cut short")?;
        self.pos = end;
        Ok(())
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a varint longer than 10 bytes".into())
    }

    /// A zigzag-coded integer (i16, i32 or i64).
    fn int(&mut self) -> Result<i64, String> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// Calls `f` with each field's id and type until the struct's stop byte.
    fn each_field(
        &mut self,
        mut f: impl FnMut(&mut Self, i64, u8) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut last = 0i64;
        loop {
            let b = self.byte()?;
            if b == 0 {
                return Ok(());
            }
            let delta = i64::from(b >> 4);
            let id = if delta == 0 {
                self.int()?
            } else {
                last + delta
            };
            last = id;
            f(self, id, b & 0x0f)?;
        }
    }

    /// A list or set header: element type and count.
    fn list_header(&mut self) -> Result<(u8, u64), String> {
        let b = self.byte()?;
        let n = match b >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        Ok((b & 0x0f, n))
    }

    /// Calls `f` on each element of a list of structs.
    fn each_element(
        &mut self,
        mut f: impl FnMut(&mut Self) -> Result<(), String>,
    ) -> Result<(), String> {
        let (ty, n) = self.list_header()?;
        if ty != T_STRUCT {
            for _ in 0..n {
                self.skip_element(ty, MAX_THRIFT_DEPTH)?;
            }
            return Ok(());
        }
        for _ in 0..n {
            f(self)?;
        }
        Ok(())
    }

    /// Skips a field's value of type `ty`.
    fn skip(&mut self, ty: u8, depth: u8) -> Result<(), String> {
        match ty {
            T_TRUE | T_FALSE => Ok(()),
            _ => self.skip_element(ty, depth),
        }
    }

    /// Skips a value of type `ty` (a boolean is a byte of its own in a list).
    fn skip_element(&mut self, ty: u8, depth: u8) -> Result<(), String> {
        let depth = depth
            .checked_sub(1)
            .ok_or("a footer or page header nested too deep")?;
        match ty {
            T_TRUE | T_FALSE | T_BYTE => self.advance(1),
            T_I16 | T_I32 | T_I64 => self.varint().map(drop),
            T_DOUBLE => self.advance(8),
            T_UUID => self.advance(16),
            T_BINARY => {
                let n = self.varint()?;
                self.advance(n)
            }
            T_LIST | T_SET => {
                let (et, n) = self.list_header()?;
                for _ in 0..n {
                    self.skip_element(et, depth)?;
                }
                Ok(())
            }
            T_MAP => {
                let n = self.varint()?;
                if n > 0 {
                    let kv = self.byte()?;
                    for _ in 0..n {
                        self.skip_element(kv >> 4, depth)?;
                        self.skip_element(kv & 0x0f, depth)?;
                    }
                }
                Ok(())
            }
            T_STRUCT => self.each_field(|c, _, ty| c.skip(ty, depth)),
            _ => Err(format!("an unknown Thrift type {ty}")),
        }
    }
}

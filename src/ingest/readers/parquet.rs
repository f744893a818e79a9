//! Parquet exports: ClickHouse's `FORMAT Parquet`,
//! Athena's and DuckDB's `COPY ... TO`, SLS shipped to OSS. A file is read
//! as one JSON record per row, so every rule of the JSON Lines reader
//! applies and a row's number is its line number. The roles are found on
//! the first rows with every column; the rest of the file is then read
//! with only the columns the roles need (the Parquet record API's
//! projection skips the others' pages).
//!
//! Values: text, numbers and booleans as themselves; timestamps as RFC 3339
//! text, in UTC when the column says it is adjusted to UTC, else without an
//! offset (a naive time, read in `--tz`), dates as `YYYY-MM-DD`; groups
//! and maps as objects (read as dotted fields), lists as arrays; bytes as
//! text when they are UTF-8.

use std::sync::Arc;

use ::parquet::basic::LogicalType;
use ::parquet::file::reader::{FileReader, SerializedFileReader};
use ::parquet::record::{Field, Row};
use ::parquet::schema::types::Type;
use serde_json::{Map, Value};

use super::container::Container;
use super::parquet_bounds as bounds;
use crate::ingest::roles::mapping::Mapping;
use crate::ingest::vocabulary::roles::Role;
use crate::model::FileWarning;

/// Rows read with every column to find the roles.
const HEAD_ROWS: usize = 1000;

/// The format's magic, at both ends of a file (apache/parquet-format
/// `README.md`: "File Format").
pub(crate) const MAGIC: &[u8; 4] = b"PAR1";

/// True when `bytes` is a Parquet file: [`MAGIC`] at both ends.
pub(crate) fn is_parquet(bytes: &[u8]) -> bool {
    bytes.len() >= 12 && bytes.starts_with(MAGIC) && bytes.ends_with(MAGIC)
}

/// A Parquet file as JSON Lines text, one row a line.
#[derive(Debug)]
pub(crate) struct AsLines {
    /// The rows as JSON Lines.
    pub text: String,
    /// Rows read.
    pub rows: u64,
    /// The columns read, in the file's order.
    pub read: Vec<String>,
    /// Columns in the file.
    pub columns: u64,
}

/// Which columns [`to_json_lines`] reads.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Columns<'a> {
    /// Every column (the window's view of a source's raw rows).
    All,
    /// Those the roles need, found on the first [`HEAD_ROWS`] rows with this
    /// mapping; every column when the mapping names fields.
    ForRoles(Option<&'a Mapping>),
}

/// Reads `bytes` (a whole Parquet file) as JSON Lines text, one row a line
/// in the file's order (so row numbers are line numbers whatever the
/// columns): with [`Columns::ForRoles`], the first [`HEAD_ROWS`] rows
/// decide the roles, then every row is read with the columns those roles
/// need, all of them when a role's field is no column's. The file is
/// first checked against the bounds of `parquet_bounds.rs` (schema depth,
/// pages, what they expand to); its rows' text stops with an error past
/// [`bounds::expansion_budget`] of the file's size and `max_text`.
///
/// # Errors
/// A bound the file passes, the Parquet library's message (a damaged
/// footer, an unsupported encoding or compression, a malformed page), or
/// the size limit.
pub(crate) fn to_json_lines(
    bytes: Vec<u8>,
    columns: Columns<'_>,
    max_text: u64,
) -> Result<AsLines, FileWarning> {
    let budget = bounds::expansion_budget(bytes.len() as u64, max_text);
    let unreadable = |error: String| FileWarning::ParquetUnreadable { error };
    let checked = bounds::check(&bytes, budget).map_err(unreadable)?;
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes))
        .map_err(|e| unreadable(e.to_string()))?;
    // The bounds hold for the pages the crate reads only if it found the
    // same column chunks in the footer.
    if !checked
        .iter()
        .map(bounds::Chunk::range)
        .eq(chunk_ranges(&reader))
    {
        return Err(unreadable(
            "the footer's column chunks read differently to the Parquet library".into(),
        ));
    }
    let stopped = || "the Parquet library stopped on a malformed page".to_string();
    // The crate's page reader unwraps a data page's own header when it
    // peeks at the page, so the dictionaries are checked inside the net too.
    quiet_unwind(|| dictionaries_hold_their_values(&reader))
        .unwrap_or_else(|| Err(stopped()))
        .map_err(unreadable)?;
    quiet_unwind(|| read_rows(&reader, columns, budget))
        .unwrap_or_else(|| Err(unreadable(stopped())))
}

/// Each column chunk's first byte and length as the crate read the footer
/// (its `ColumnChunkMetaData::byte_range`, which asserts what this does not).
fn chunk_ranges(reader: &SerializedFileReader<bytes::Bytes>) -> impl Iterator<Item = (i64, i64)> {
    let meta = reader.metadata();
    meta.row_groups().iter().flat_map(|g| g.columns()).map(|c| {
        let start = c
            .dictionary_page_offset()
            .unwrap_or_else(|| c.data_page_offset());
        (start, c.compressed_size())
    })
}

/// Reads the rows of `reader` as [`to_json_lines`] says, within `budget`
/// bytes of text.
fn read_rows(
    reader: &SerializedFileReader<bytes::Bytes>,
    columns: Columns<'_>,
    budget: u64,
) -> Result<AsLines, FileWarning> {
    let schema = reader.metadata().file_metadata().schema();
    let all: Vec<Arc<Type>> = schema.get_fields().to_vec();
    let names: Vec<String> = all.iter().map(|t| t.name().to_string()).collect();
    let naive: Vec<&str> = all
        .iter()
        .filter(|t| {
            matches!(t.get_basic_info().logical_type_ref(),
                Some(LogicalType::Timestamp(ts)) if !ts.is_adjusted_to_u_t_c)
        })
        .map(|t| t.name())
        .collect();
    let too_large = |row: u64| FileWarning::ParquetTooLarge {
        limit_mib: budget >> 20,
        row,
    };
    let wanted = match columns {
        Columns::ForRoles(mapping) if mapping.is_none_or(|m| m.fields.is_empty()) => {
            let mut head = String::new();
            let rows = reader.get_row_iter(None).map_err(parquet_error(None))?;
            for (i, row) in rows.take(HEAD_ROWS).enumerate() {
                push_row(&mut head, &naive, &row.map_err(parquet_error(None))?);
                if head.len() as u64 > budget {
                    return Err(too_large(i as u64 + 1));
                }
            }
            needed_columns(&head, mapping, &names)
        }
        _ => None,
    };
    let projection = match &wanted {
        Some(keep) => Some(
            Type::group_type_builder(schema.name())
                .with_fields(
                    all.iter()
                        .filter(|t| keep.iter().any(|k| k == t.name()))
                        .cloned()
                        .collect(),
                )
                .build()
                .map_err(parquet_error(None))?,
        ),
        None => None,
    };
    let mut text = String::new();
    let mut n = 0u64;
    for row in reader
        .get_row_iter(projection)
        .map_err(parquet_error(None))?
    {
        push_row(&mut text, &naive, &row.map_err(parquet_error(Some(n + 1)))?);
        n += 1;
        if text.len() as u64 > budget {
            return Err(too_large(n));
        }
    }
    Ok(AsLines {
        text,
        rows: n,
        read: wanted.unwrap_or_else(|| names.clone()),
        columns: names.len() as u64,
    })
}

/// Checks that every PLAIN dictionary page of a BYTE_ARRAY column holds the
/// values it promises (each a 4-byte length and that many bytes): the
/// crate's decoder panics past the page's end. Pages are inflated by the
/// crate within the bounds [`bounds::check`] has checked.
///
/// # Errors
/// The page that promises more, or the crate's message.
fn dictionaries_hold_their_values(
    reader: &SerializedFileReader<bytes::Bytes>,
) -> Result<(), String> {
    use ::parquet::basic::{Encoding, Type as Physical};
    use ::parquet::column::page::Page;
    for g in 0..reader.num_row_groups() {
        let group = reader.get_row_group(g).map_err(|e| e.to_string())?;
        for c in 0..group.num_columns() {
            if group.metadata().column(c).column_type() != Physical::BYTE_ARRAY {
                continue;
            }
            let mut pages = group.get_column_page_reader(c).map_err(|e| e.to_string())?;
            if !pages
                .peek_next_page()
                .map_err(|e| e.to_string())?
                .is_some_and(|p| p.is_dict)
            {
                continue;
            }
            if let Some(Page::DictionaryPage {
                buf,
                num_values,
                encoding: Encoding::PLAIN | Encoding::PLAIN_DICTIONARY,
                ..
            }) = pages.get_next_page().map_err(|e| e.to_string())?
                && !byte_arrays_fit(&buf, num_values as usize)
            {
                return Err(format!(
                    "a dictionary page promises {num_values} values it does not hold"
                ));
            }
        }
    }
    Ok(())
}

/// True when `buf` holds `n` PLAIN byte arrays (a 4-byte little-endian
/// length, then that many bytes).
fn byte_arrays_fit(buf: &[u8], n: usize) -> bool {
    let mut pos = 0usize;
    for _ in 0..n {
        let Some(len) = buf.get(pos..pos + 4) else {
            return false;
        };
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        pos = pos + 4 + len;
        if pos > buf.len() {
            return false;
        }
    }
    true
}

thread_local! {
    /// Set while [`quiet_unwind`] runs on this thread: its panics are caught
    /// and said as a warning, so the panic hook stays silent for them.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, turning a panic inside it into `None` without the panic
/// message: the last resort around the Parquet library for malformed pages
/// the bounds above cannot see without decoding (a PLAIN data page that
/// promises more values than it holds). The hook that stays silent is
/// installed once, and is silent only on a thread inside `quiet_unwind`.
fn quiet_unwind<T>(f: impl FnOnce() -> T) -> Option<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let loud = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                loud(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    QUIET.with(|q| q.set(was));
    out
}

/// The Parquet library's error `e` (at 1-based `row`, when known) as a
/// warning's reason.
fn parquet_error(row: Option<u64>) -> impl Fn(::parquet::errors::ParquetError) -> FileWarning {
    move |e| FileWarning::Parquet {
        row,
        error: e.to_string(),
    }
}

/// The top-level columns holding the fields the roles picked on `head`
/// (a field `lock.key` is column `lock`'s, or the column `lock.key`), in
/// the file's order; `None` when some picked field is no column's.
fn needed_columns(head: &str, mapping: Option<&Mapping>, names: &[String]) -> Option<Vec<String>> {
    let det = super::sample::detect_fields(&Container::JsonLines { loki: false }, head, mapping);
    let (fields, _) = det.resolve(mapping);
    let mut picked: Vec<&str> = Vec::new();
    for role in Role::ALL {
        picked.extend(fields.get(role).map(|p| p.field.as_str()));
        picked.extend(fields.fallback(role).map(|p| p.field.as_str()));
    }
    picked.extend(fields.payload.as_deref());
    if picked.is_empty() {
        return None;
    }
    let column_of = |f: &str| {
        names
            .iter()
            .filter(|c| {
                f == c.as_str()
                    || f.strip_prefix(c.as_str())
                        .is_some_and(|r| r.starts_with('.'))
            })
            .max_by_key(|c| c.len())
            .cloned()
    };
    let cols: Vec<String> = picked.iter().map(|f| column_of(f)).collect::<Option<_>>()?;
    Some(names.iter().filter(|c| cols.contains(c)).cloned().collect())
}

/// Appends `row` as one JSON line; the columns named in `naive` hold
/// timestamps not adjusted to UTC.
fn push_row(out: &mut String, naive: &[&str], row: &Row) {
    let map: Map<String, Value> = row
        .get_column_iter()
        .map(|(k, v)| (k.clone(), json_of(v, naive.contains(&k.as_str()))))
        .collect();
    out.push_str(&Value::Object(map).to_string());
    out.push('\n');
}

/// One Parquet value as JSON (see the module's comment); a timestamp
/// without an offset when `naive`.
fn json_of(f: &Field, naive: bool) -> Value {
    use chrono::{DateTime, NaiveDate};
    let ts = |secs: i64, nanos: u32| {
        DateTime::from_timestamp(secs, nanos)
            .map(|t| {
                Value::String(if naive {
                    t.naive_utc().format("%Y-%m-%dT%H:%M:%S%.f").to_string()
                } else {
                    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
                })
            })
            .unwrap_or(Value::Null)
    };
    match f {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Byte(x) => Value::from(*x),
        Field::Short(x) => Value::from(*x),
        Field::Int(x) => Value::from(*x),
        Field::Long(x) => Value::from(*x),
        Field::UByte(x) => Value::from(*x),
        Field::UShort(x) => Value::from(*x),
        Field::UInt(x) => Value::from(*x),
        Field::ULong(x) => Value::from(*x),
        Field::Float(x) => {
            serde_json::Number::from_f64(f64::from(*x)).map_or(Value::Null, Value::Number)
        }
        Field::Double(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
        Field::Str(s) => Value::String(s.clone()),
        Field::Bytes(b) => match std::str::from_utf8(b.data()) {
            Ok(s) => Value::String(s.to_string()),
            Err(_) => Value::String(f.to_string()),
        },
        Field::Date(days) => NaiveDate::from_num_days_from_ce_opt(719_163 + *days)
            .map_or(Value::Null, |d| Value::String(d.to_string())),
        Field::TimestampMillis(ms) => ts(
            ms.div_euclid(1000),
            (ms.rem_euclid(1000) * 1_000_000) as u32,
        ),
        Field::TimestampMicros(us) => ts(
            us.div_euclid(1_000_000),
            (us.rem_euclid(1_000_000) * 1000) as u32,
        ),
        Field::Group(row) => Value::Object(
            row.get_column_iter()
                .map(|(k, v)| (k.clone(), json_of(v, false)))
                .collect(),
        ),
        Field::ListInternal(list) => {
            Value::Array(list.elements().iter().map(|x| json_of(x, false)).collect())
        }
        Field::MapInternal(map) => Value::Object(
            map.entries()
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Field::Str(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (key, json_of(v, false))
                })
                .collect(),
        ),
        other => Value::String(other.to_string()),
    }
}

//! CSV and TSV exports with a header row (Kibana's and OpenSearch
//! Dashboards' "Download CSV", a log store's query result saved as CSV):
//! which delimiter a text has, whether its first row is a header, and its
//! rows as records under the header's names.

use std::borrow::Cow;
use std::ops::ControlFlow;

use crate::ingest::framing::lines::first_lines;
use crate::ingest::framing::stamps;
use crate::ingest::framing::timestamp::time_len;
use crate::ingest::records::item::{Item, Visit};
use crate::ingest::records::record::Record;
use crate::ingest::roles::time::parse_time;
use crate::model::RecordWarning;

/// The delimiter (comma, tab or semicolon) the first line has most of.
pub(crate) fn any_delim(text: &str) -> Option<u8> {
    let first = first_lines(text, 1).next()?;
    let count = |c: char| first.matches(c).count();
    let (delim, n) = [(b',', count(',')), (b'\t', count('\t')), (b';', count(';'))]
        .into_iter()
        .max_by_key(|(_, n)| *n)?;
    (n >= 1).then_some(delim)
}

/// Whether header cell `cell` is data: it reads as a time, or starts with
/// a time of the stamp bank (a text line such as logcat's `12-01
/// 07:06:55.000  4242  4242 I Tag: ...` in a row that only looks like a
/// CSV's: a header names columns, it never starts with a time).
pub(crate) fn cell_is_data(cell: &str) -> bool {
    let cell = cell.trim();
    parse_time(cell, None).is_ok() || stamps::find_any(cell).is_some_and(|s| s.start == 0)
}

/// The delimiter [`any_delim`] finds, unless the first row is data (a
/// cell of it [`cell_is_data`]): a CSV without its header row has unknown
/// columns, and its lines are better read as text.
pub(crate) fn headed_delim(text: &str) -> Option<u8> {
    let delim = any_delim(text)?;
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delim)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let first = rdr.records().next()?.ok()?;
    (!first.iter().any(cell_is_data)).then_some(delim)
}

/// The delimiter of a CSV whose first row is a header (no cell reads as a
/// time) over at least one row, with most of the first rows as wide as the
/// header.
pub(crate) fn csv_with_header(text: &str) -> Option<u8> {
    let delim = any_delim(text)?;
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delim)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut rows = rdr.records().take(11).filter_map(Result::ok);
    let header = rows.next()?;
    if header.len() < 2
        || header.get(0).is_some_and(|c| time_len(c.trim()).is_some())
        || header
            .iter()
            .any(|c| c.trim().is_empty() || cell_is_data(c))
    {
        return None;
    }
    let widths: Vec<usize> = rows.map(|r| r.len()).collect();
    let same = widths.iter().filter(|w| **w == header.len()).count();
    (!widths.is_empty() && same * 2 > widths.len()).then_some(delim)
}

/// Walks CSV rows under the first row's headers; empty cells are absent.
/// A row whose quote never closes on its line (so that the quoted cell ran
/// over the next lines and the row came out of the header's width) is one
/// warning, and the lines after it are read again as rows (not swallowed
/// by the unbalanced quote). One reader serves the
/// whole text: after such a row it seeks to the next line rather than being
/// built again (building one costs about a quarter of a small file's
/// read).
pub(crate) fn walk_csv(text: &str, delim: u8, visit: &mut Visit<'_>) {
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delim)
        .has_headers(false)
        .flexible(true)
        .from_reader(std::io::Cursor::new(text.as_bytes()));
    let mut headers: Option<Vec<String>> = None;
    let mut row = csv::StringRecord::new();
    let mut lines = LineCounter::default();
    loop {
        match rdr.read_record(&mut row) {
            Ok(false) => return,
            Ok(true) => match csv_row(text, &row, &mut headers, &mut lines, visit) {
                Row::Next => {}
                Row::Stop => return,
                Row::ResumeAt(off, line) => {
                    let mut pos = csv::Position::new();
                    pos.set_byte(off as u64).set_line(line);
                    if rdr
                        .seek_raw(std::io::SeekFrom::Start(off as u64), pos)
                        .is_err()
                    {
                        return;
                    }
                }
            },
            Err(e) => {
                let no = e.position().map_or(0, |p| {
                    lines.line_at(text, LineCounter::row_start(text, p.byte() as usize))
                });
                let error = e.to_string();
                if visit(no, 0, Item::Bad(RecordWarning::CsvRow { error }.into())).is_break() {
                    return;
                }
                if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                    return;
                }
            }
        }
    }
}

/// The 1-based line number of a byte offset, counted as [`lines`] counts
/// (a line ends at `\n`, `\r\n` or a lone `\r`), for offsets that only
/// grow. The `csv` crate's own line number skips blank lines and does not
/// count a lone `\r`, so a warning named the wrong line.
#[derive(Default)]
struct LineCounter {
    /// The offset counted up to.
    off: usize,
    /// Line ends before `off`.
    ends: u64,
}

impl LineCounter {
    /// The first byte at or after `off` that is no line end (the `csv`
    /// crate places a row after blank lines at the start of the blanks).
    fn row_start(text: &str, off: usize) -> usize {
        let b = text.as_bytes();
        let off = off.min(b.len());
        off + b[off..]
            .iter()
            .position(|c| !matches!(c, b'\n' | b'\r'))
            .unwrap_or(b.len() - off)
    }

    /// The line of byte `off` (not before the last asked).
    fn line_at(&mut self, text: &str, off: usize) -> u64 {
        let b = text.as_bytes();
        let off = off.min(b.len());
        if off > self.off {
            let span = &b[self.off..off];
            let lf = memchr::memchr_iter(b'\n', span).count();
            let lone_cr = memchr::memchr_iter(b'\r', span)
                .filter(|&i| b.get(self.off + i + 1) != Some(&b'\n'))
                .count();
            self.ends += (lf + lone_cr) as u64;
            self.off = off;
        }
        self.ends + 1
    }
}

/// What [`walk_csv`] does after a row.
enum Row {
    /// Read the next row.
    Next,
    /// `visit` broke, or nothing follows.
    Stop,
    /// Read on from this byte offset, which starts this (1-based) line.
    ResumeAt(usize, u64),
}

/// Visits one CSV row: the header row, a repeated header, a row cut by an
/// unbalanced quote, or a record.
fn csv_row(
    text: &str,
    row: &csv::StringRecord,
    headers: &mut Option<Vec<String>>,
    lines: &mut LineCounter,
    visit: &mut Visit<'_>,
) -> Row {
    let off = LineCounter::row_start(text, row.position().map_or(0, |p| p.byte() as usize));
    let no = lines.line_at(text, off);
    let stop = |flow: ControlFlow<()>| {
        if flow.is_break() {
            Row::Stop
        } else {
            Row::Next
        }
    };
    if row.iter().all(|f| f.trim().is_empty()) {
        return Row::Next;
    }
    let Some(h) = headers.as_ref() else {
        let names: Vec<String> = row.iter().map(|f| f.trim().to_string()).collect();
        // A header cell that reads as a time means the export lost its
        // header: the row is data we cannot place, so say so.
        let dated = names.iter().find(|n| cell_is_data(n));
        let mut flow = ControlFlow::Continue(());
        if let Some(cell) = dated {
            let reason = RecordWarning::CsvNoHeader { cell: cell.clone() };
            flow = visit(no, off, Item::Bad(reason.into()));
        }
        *headers = Some(names);
        return stop(flow);
    };
    if row.len() != h.len() && row.iter().any(|f| f.contains('\n')) {
        if visit(no, off, Item::Bad(RecordWarning::UnbalancedQuote.into())).is_break() {
            return Row::Stop;
        }
        return match memchr::memchr(b'\n', &text.as_bytes()[off..]) {
            Some(eol) => Row::ResumeAt(off + eol + 1, no + 1),
            None => Row::Stop,
        };
    }
    if row.len() == h.len() && row.iter().zip(h).all(|(f, n)| f.trim() == n) {
        let item = Item::Bad(RecordWarning::RepeatedHeader.into());
        return stop(visit(no, off, item));
    }
    let mut pairs: Vec<(&str, Cow<'_, str>)> = h
        .iter()
        .zip(row.iter())
        // Kibana and OpenSearch Dashboards write `-` for a field the row
        // lacks.
        .filter(|(_, v)| !matches!(v.trim(), "" | "-"))
        .map(|(k, v)| (k.as_str(), Cow::Borrowed(v.trim())))
        .collect();
    super::json::sls_time_ns_pairs(&mut pairs);
    stop(visit(no, off, Item::Record(Record::Pairs(&pairs))))
}

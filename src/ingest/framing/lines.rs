//! A text's lines: where each ends (`\n`, `\r\n` or a lone `\r`), the
//! non-blank ones with their numbers and offsets, and a walk over them
//! that stops when its visitor does. Every reader of lines counts them
//! here, so a line number means the same line everywhere.

use std::ops::ControlFlow;

use crate::ingest::records::item::Visit;

/// Each non-blank line of `text`, trimmed, with its 1-based number and byte
/// offset. A line ends at `\n`, `\r\n` or a lone `\r` (old Mac exports), so
/// no record hides behind a carriage return.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = (u64, usize, &str)> {
    let b = text.as_bytes();
    let mut start = 0usize;
    let mut no = 0u64;
    std::iter::from_fn(move || {
        while start < b.len() {
            let (end, next) = line_end(b, start);
            let at = start;
            no += 1;
            start = next;
            let line = text.get(at..end).unwrap_or("").trim();
            if !line.is_empty() {
                return Some((no, at, line));
            }
        }
        None
    })
}

/// Calls `f` for each line of [`lines`], stopping when it breaks.
pub(crate) fn walk_lines(
    text: &str,
    visit: &mut Visit<'_>,
    mut f: impl FnMut(&str, &mut Visit<'_>, u64, usize) -> ControlFlow<()>,
) -> ControlFlow<()> {
    for (no, off, line) in lines(text) {
        f(line, visit, no, off)?;
    }
    ControlFlow::Continue(())
}

/// The end of the line starting at `start` (before its `\n`, `\r\n` or
/// lone `\r`) and the start of the next.
pub(crate) fn line_end(b: &[u8], start: usize) -> (usize, usize) {
    match memchr::memchr2(b'\n', b'\r', &b[start..]) {
        Some(i) if b[start + i] == b'\r' && b.get(start + i + 1) == Some(&b'\n') => {
            (start + i, start + i + 2)
        }
        Some(i) => (start + i, start + i + 1),
        None => (b.len(), b.len()),
    }
}

/// The first `n` non-blank lines of `text`, trimmed.
pub(crate) fn first_lines(text: &str, n: usize) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(n)
}

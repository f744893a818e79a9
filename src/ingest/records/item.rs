//! What a reader hands on for each line or record of a file: a record,
//! a line to skip, an unreadable record or a warning. Every reader walks a
//! file into these, and every stage above takes them.

use std::ops::ControlFlow;

use super::record::Record;
use crate::model::WarningReason;

/// What a walker hands to its visitor for each record.
#[derive(Debug)]
pub(crate) enum Item<'a> {
    /// A readable record.
    Record(Record<'a>),
    /// A line that is no record and needs no warning (a stack-trace line
    /// under a text log's entry, a CRI partial line joined to the next).
    Skip,
    /// An unreadable record, and why.
    Bad(WarningReason),
    /// A warning about the line that counts no line: the item for the same
    /// line number that follows it counts the line (a CRI partial line no
    /// `F` closed, warned and then read as the line it would have been).
    Warn(WarningReason),
}

/// Visitor: (1-based line, byte offset in the text, item).
pub(crate) type Visit<'v> = dyn FnMut(u64, usize, Item<'_>) -> ControlFlow<()> + 'v;

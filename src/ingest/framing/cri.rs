//! CRI pod logs (the kubelet's files under `/var/log/pods`, `kubectl logs`
//! of a containerd or CRI-O node): `TIME STREAM TAG line`, `STREAM` `stdout`
//! or `stderr`, `TAG` `F` for a full line or `P` for a part of a longer one
//! (kubernetes `pkg/kubelet/kuberuntime/logs/logs.go`). The header's words
//! after the time ([`after_time`], for `header.rs`), a line's parts
//! ([`parts`]), and the partial lines of each stream joined into the line
//! they make ([`Partials`]), also across the parallel path's chunks
//! ([`partials_after`]).

use super::lines::line_end;
use super::timestamp::word;
use crate::model::RecordWarning;

/// The CRI streams a partial line can belong to.
pub(crate) const STREAMS: [&str; 2] = ["stdout", "stderr"];

/// A CRI line's words after its time (`stdout F line`, spaces or tabs
/// between them), given its first word `stream` and the text after it:
/// whether it is a partial line (`P`) and the line it carries (one space
/// after the tag taken off). `None` for anything else.
pub(crate) fn after_time<'a>(stream: &str, rest: &'a str) -> Option<(bool, &'a str)> {
    if !matches!(stream, "stdout" | "stderr") {
        return None;
    }
    let (tag, line) = word(rest);
    matches!(tag, "F" | "P").then(|| (tag == "P", line.strip_prefix(' ').unwrap_or(line)))
}

/// A CRI line's parts, one space apart: (time, stream index in
/// [`STREAMS`], partial, content), `None` for a line of another layout.
pub(crate) fn parts(line: &str) -> Option<(&str, usize, bool, &str)> {
    let mut parts = line.splitn(4, ' ');
    let (ts, stream, tag) = (parts.next()?, parts.next()?, parts.next()?);
    let s = STREAMS.iter().position(|c| *c == stream)?;
    let partial = match tag {
        "P" => true,
        "F" => false,
        _ => return None,
    };
    Some((ts, s, partial, parts.next().unwrap_or("")))
}

/// CRI partial lines (`TIME STREAM P chunk`) waiting for the `F` line of
/// the same stream that ends them: one run per stream, so a `stdout` chunk is
/// never glued to an interleaved `stderr` line (kubelet's `ReadLogs` in
/// `pkg/kubelet/kuberuntime/logs/logs.go` joins per stream the same way).
/// The serial walk carries it from line to line; the parallel chunks
/// start each chunk from the state the line before it left.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Partials {
    /// One run for `stdout`, one for `stderr` ([`STREAMS`]).
    runs: [Option<PartialRun>; 2],
}

/// One stream's partial chunks so far.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PartialRun {
    /// The chunks, joined with nothing in between.
    text: String,
    /// The time of the last chunk (the time of a run no `F` closes).
    time: String,
    /// Line number of the first chunk.
    first: u64,
    /// Line number of the last chunk: the one line of the run not yet
    /// counted (it counts as the joined line when no `F` comes).
    last: u64,
}

/// A run of partial lines the text ended in, no `F` line after it.
#[derive(Debug)]
pub(crate) struct Unclosed {
    /// Its last line: where it is read, as the line it would have been.
    pub last: u64,
    /// The warning naming its stream and lines.
    pub reason: RecordWarning,
    /// The line its chunks make (`TIME STREAM F text`).
    pub line: String,
}

impl Partials {
    /// True when no stream has a partial line pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.runs.iter().all(Option::is_none)
    }

    /// Keeps the chunk of P line `no` (stream index `s`). Returns the line
    /// before it in the run, if any: counted now (skipped, its text is in
    /// the run).
    pub(crate) fn push(&mut self, s: usize, time: &str, chunk: &str, no: u64) -> Option<u64> {
        match &mut self.runs[s] {
            Some(run) => {
                let before = std::mem::replace(&mut run.last, no);
                run.text.push_str(chunk);
                time.clone_into(&mut run.time);
                Some(before)
            }
            none => {
                *none = Some(PartialRun {
                    text: chunk.to_string(),
                    time: time.to_string(),
                    first: no,
                    last: no,
                });
                None
            }
        }
    }

    /// The `F` line of stream `s` (its `time` and `chunk`) ends the stream's
    /// run: the run's last line (counted now, skipped) and the line the run
    /// and `chunk` make, joined with nothing in between. `None` when the
    /// stream has no run.
    pub(crate) fn close(&mut self, s: usize, time: &str, chunk: &str) -> Option<(u64, String)> {
        let run = self.runs[s].take()?;
        let joined = format!("{time} {} F {}{chunk}", STREAMS[s], run.text);
        Some((run.last, joined))
    }

    /// Every run no `F` line closed, in the order they began, each as the
    /// warning to give and the line it would have been; the state is then
    /// empty.
    pub(crate) fn finish(&mut self) -> Vec<Unclosed> {
        let mut open: Vec<(usize, PartialRun)> = self
            .runs
            .iter_mut()
            .enumerate()
            .filter_map(|(s, r)| Some((s, r.take()?)))
            .collect();
        open.sort_by_key(|(_, r)| r.first);
        open.into_iter()
            .map(|(s, run)| {
                let stream = STREAMS[s];
                let reason = RecordWarning::CriUnclosed {
                    stream: stream.to_string(),
                    first: run.first,
                    last: run.last,
                };
                Unclosed {
                    last: run.last,
                    reason,
                    line: format!("{} {stream} F {}", run.time, run.text),
                }
            })
            .collect()
    }
}

/// The CRI state after `text` (whole lines), starting from `state`, and
/// the number of lines in `text`, without reading the lines for records:
/// what the chunk after `text` starts from. The lines of `text` are numbered
/// from `base + 1`.
pub(crate) fn partials_after(text: &str, mut state: Partials, base: u64) -> (Partials, u64) {
    let b = text.as_bytes();
    let (mut start, mut no) = (0usize, 0u64);
    while start < b.len() {
        let (end, next) = line_end(b, start);
        no += 1;
        let line = text.get(start..end).unwrap_or("").trim_start();
        match parts(line) {
            Some((time, s, true, chunk)) => {
                let _ = state.push(s, time, chunk, base + no);
            }
            Some((_, s, false, _)) => state.runs[s] = None,
            None => {}
        }
        start = next;
    }
    (state, no)
}

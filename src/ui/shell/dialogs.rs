//! Native file dialogs (rfd) on their own thread, so the window keeps
//! drawing while one is open, and the fallback when no dialog backend
//! answers (no XDG portal): a path in the current directory.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use crate::ui::state::Command;

/// A dialog that answers faster than this was never shown (no dialog
/// backend): fall back to a path in the current directory.
const NO_DIALOG_WITHIN: Duration = Duration::from_millis(300);

/// Where pictures and reports are saved.
#[derive(Clone, Copy, Debug)]
pub struct SaveTo<'a> {
    /// Ask through a native dialog first.
    pub dialogs: bool,
    /// Where they go without a dialog.
    pub fallback_dir: &'a Path,
}

/// Asks `pick` (a native dialog) for a path when `dialogs` is on. A dialog
/// that answers "nothing" within `NO_DIALOG_WITHIN` was never shown (rfd
/// finds no portal), so the answer is `fallback`. Returns the path and
/// whether it is the fallback, or `None` when the user cancelled.
pub fn pick_or_fallback(
    dialogs: bool,
    pick: impl FnOnce() -> Option<PathBuf>,
    fallback: PathBuf,
) -> Option<(PathBuf, bool)> {
    if !dialogs {
        return Some((fallback, true));
    }
    let asked = Instant::now();
    match pick() {
        Some(p) => Some((p, false)),
        None if asked.elapsed() < NO_DIALOG_WITHIN => Some((fallback, true)),
        None => None,
    }
}

/// What an open dialog chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenPurpose {
    /// Log files to load.
    Logs,
    /// A mapping file (TOML or JSON).
    Mapping,
}

/// An open dialog whose answer has not arrived.
pub struct PendingDialog {
    rx: Receiver<Option<Vec<PathBuf>>>,
    purpose: OpenPurpose,
}

impl PendingDialog {
    /// Opens a dialog for `purpose` on the `file-dialog` thread; `ctx` is
    /// repainted when it answers. `None` when the thread cannot
    /// start.
    pub fn spawn(purpose: OpenPurpose, ctx: Option<egui::Context>) -> Option<PendingDialog> {
        let (tx, rx) = channel();
        // rfd may block (or find no backend): run it on its own thread so the
        // window keeps drawing.
        let spawned = std::thread::Builder::new()
            .name("file-dialog".into())
            .spawn(move || {
                let dialog = rfd::FileDialog::new();
                let files = match purpose {
                    OpenPurpose::Mapping => dialog
                        .add_filter("mapping", &["toml", "json"])
                        .pick_file()
                        .map(|f| vec![f]),
                    OpenPurpose::Logs => dialog.pick_files(),
                };
                let _ = tx.send(files);
                if let Some(ctx) = ctx {
                    ctx.request_repaint();
                }
            });
        spawned.ok().map(|_| PendingDialog { rx, purpose })
    }

    /// The answer once it arrived: the command it asks for, or `Err` with
    /// the dialog's purpose when nothing was chosen (or no dialog was
    /// shown).
    pub fn answer(&self) -> Option<Result<Command, OpenPurpose>> {
        let files = self.rx.try_recv().ok()?;
        Some(match files {
            Some(files) if !files.is_empty() => Ok(match self.purpose {
                OpenPurpose::Mapping => Command::SetMapping(files.into_iter().next()),
                OpenPurpose::Logs => Command::Open(files),
            }),
            _ => Err(self.purpose),
        })
    }
}

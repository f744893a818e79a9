//! What the window does outside its panels: native dialogs, screenshots
//! and the report export. Their threads report back as notices over one
//! channel, drained each frame.

pub mod dialogs;
pub mod export;
pub mod screenshot;

use std::sync::mpsc::{Receiver, Sender, channel};

use dialogs::{OpenPurpose, PendingDialog};
use screenshot::PendingShot;

/// The dialog, screenshot and export in progress, and the channel their
/// threads send their outcome on.
pub struct Shell {
    /// The context, for threads that wake the window when done.
    pub ctx: Option<egui::Context>,
    /// Where the timeline was drawn last frame, points.
    pub timeline_rect: Option<egui::Rect>,
    /// An open dialog.
    pub dialog: Option<PendingDialog>,
    /// A screenshot being taken.
    pub shot: Option<PendingShot>,
    done_tx: Sender<String>,
    done_rx: Receiver<String>,
}

impl Default for Shell {
    fn default() -> Self {
        let (done_tx, done_rx) = channel();
        Shell {
            ctx: None,
            timeline_rect: None,
            dialog: None,
            shot: None,
            done_tx,
            done_rx,
        }
    }
}

impl Shell {
    /// Where background threads send their outcome (a notice).
    pub fn done_sender(&self) -> Sender<String> {
        self.done_tx.clone()
    }

    /// The outcomes that arrived since the last frame, oldest first.
    pub fn finished(&self) -> Vec<String> {
        self.done_rx.try_iter().collect()
    }

    /// Opens a file dialog for `purpose`; false when it cannot start.
    pub fn open_dialog(&mut self, purpose: OpenPurpose) -> bool {
        match PendingDialog::spawn(purpose, self.ctx.clone()) {
            Some(d) => {
                self.dialog = Some(d);
                true
            }
            None => false,
        }
    }
}

//! lockreplay: replays distributed-lock incidents from their logs.
//!
//! Layers, one arrow: `model <- ingest <- analysis <- report <- cli`, with `ui`
//! on top behind the `gui` feature. Nothing below `ui` imports egui.

pub mod analysis;
pub mod cli;
pub mod export;
pub mod ingest;
pub mod model;
pub mod redis_model;
pub mod replay;
pub mod report;
pub mod sim;
#[cfg(feature = "gui")]
pub mod ui;

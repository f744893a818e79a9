//! lockreplay: replays distributed-lock incidents from their logs.
//!
//! Layers, one arrow: `model <- ingest <- analysis <- report <- pipeline <-
//! cli`, with `ui` on top behind the `gui` feature. Nothing below `ui`
//! imports egui. Beside them: `fsio` (atomic writes, used by every layer
//! that writes), `sim` (the flash-sale simulator, used by `cli`) and
//! `whatif` (the incident replayed under another lock policy, over the
//! analysis).

pub mod analysis;
pub mod cli;
pub mod fsio;
pub mod ingest;
pub mod inspect;
pub mod model;
pub mod money;
pub mod pipeline;
pub mod playback;
pub mod redis_model;
pub mod report;
pub mod sim;
pub mod sql;
pub mod timing;
#[cfg(feature = "gui")]
pub mod ui;
pub mod whatif;

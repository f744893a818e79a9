//! lockreplay: replays distributed-lock incidents from their logs.
//!
//! Layers, one arrow: `model <- ingest <- analysis <- report <- config <-
//! pipeline <- inspect, sql <- cli`, with `ui` on top behind the `gui`
//! feature. `cli` resolves the command line once into `config`'s plain
//! settings, which everything else takes; `ui` never imports `cli`, and
//! nothing below `ui` imports egui. Beside them: `fsio` (atomic writes,
//! used by every layer that writes), `sim` (the flash-sale simulator, used
//! by `cli`) and `whatif` (the incident replayed under another lock
//! policy, over the analysis). `tests/architecture/imports.rs` checks the
//! arrows.

pub mod analysis;
pub mod cli;
pub mod config;
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

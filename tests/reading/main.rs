//! How files are read: the handed cases (`cases`), log services' exports
//! (`exports`, `exports_text`), runtimes' dialects (`runtime_dialects`,
//! `ttl_and_names`, `dialect_edges`), MONITOR captures beside application
//! logs (`mixed_sources`, `monitor_redispy`, `monitor_pool_tair`,
//! `captures`), a step's outcome field and sales keyed by their product
//! (`outcome`), and hostile input by what it attacks: the line accounting
//! under random damage (`accounting`), the made corpus (`hostile_corpus`),
//! damaged files (`damaged_files`), paths that are no regular file
//! (`input_paths`) and the fuzz targets' seeds and saved crashes
//! (`fuzz_replay`).

#[path = "../support/mod.rs"]
mod support;

mod accounting;
mod captures;
mod cases;
mod damaged_files;
mod dialect_edges;
mod exports;
mod exports_text;
mod fuzz_replay;
mod hostile_corpus;
mod input_paths;
mod mixed_sources;
mod monitor_pool_tair;
mod monitor_redispy;
mod outcome;
mod runtime_dialects;
mod ttl_and_names;

//! The shape of `src/`, read from its source text and checked against
//! ARCHITECTURE.md: the import graph of the top-level modules and of each
//! module folder (`imports`), the layers inside `src/ingest`
//! (`ingest_layers`), the length of every function outside tests
//! (`function_length`), and the paths ARCHITECTURE.md names (`map`).

mod function_length;
mod imports;
mod ingest_layers;
mod map;

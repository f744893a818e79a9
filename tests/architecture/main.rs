//! The shape of `src/`, read from its source text and checked against
//! ARCHITECTURE.md: the import graph of the top-level modules and of each
//! module folder (`imports`), and the layers inside `src/ingest`
//! (`ingest_layers`).

mod imports;
mod ingest_layers;

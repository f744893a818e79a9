//! The built binary as a user runs it: exit codes, warnings and the files
//! it writes (`runs`), a run that cannot answer (`no_answer`), the numeric
//! flags (`flags`), `inspect`, the load cache (`cache`), the report folder
//! (`report_folder`), the pictures (`pictures`), and text from a log that
//! must not drive a terminal, a Markdown reader or a spreadsheet
//! (`untrusted_text`).

#[path = "../support/mod.rs"]
mod support;

mod cache;
mod flags;
mod inspect;
mod no_answer;
mod pictures;
mod report_folder;
mod runs;
mod untrusted_text;

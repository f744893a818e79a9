//! Printers over one `Analysis`: text, Markdown, JSON.

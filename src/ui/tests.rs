//! Window tests with egui_kittest: the summary, clicking an incident, and
//! a settings change, on the embedded sample.

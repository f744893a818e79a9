//! Phase times for `bench/` and profiling: with `LOCKREPLAY_TIMINGS` set in
//! the environment, each phase prints how long it took on stderr
//! (`timing: PHASE 0.123 s`). A leaf module every layer may use.

use std::sync::OnceLock;
use std::time::Instant;

/// True when `LOCKREPLAY_TIMINGS` is set (read once).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("LOCKREPLAY_TIMINGS").is_some())
}

/// Prints how long `phase` took since `started`, when enabled.
pub fn phase(phase: &str, started: Instant) {
    if enabled() {
        eprintln!("timing: {phase} {:.3} s", started.elapsed().as_secs_f64());
    }
}

/// Prints how long since the first mark of this process (`timing: at
/// LABEL 1.234 s`), when enabled: a timeline of one run across threads,
/// such as the window's open, load, first drawn frame and close.
pub fn mark(label: &str) {
    static START: OnceLock<Instant> = OnceLock::new();
    let start = *START.get_or_init(Instant::now);
    if enabled() {
        eprintln!("timing: at {label} {:.3} s", start.elapsed().as_secs_f64());
    }
}

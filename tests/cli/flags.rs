//! Every numeric flag is checked by our own code before any work, with a
//! message that names the flag: no NaN, infinity, negative or absurd value
//! reaches the analysis or the simulator.

use crate::support::{app_log, bin, stderr};

#[test]
fn every_numeric_flag_is_checked_with_our_own_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = app_log(dir.path());
    for (flag, value) in [
        ("--log-lag-ms", "NaN"),
        ("--log-lag-ms", "-1"),
        ("--log-lag-ms", "1e9"),
        ("--unit-loss", "1e308"),
        ("--unit-loss", "inf"),
        ("--unit-loss", "-3"),
        ("--near-miss-ratio", "NaN"),
        ("--near-miss-ratio", "0"),
        ("--near-miss-streak", "0"),
        ("--host-offset", "web-1=1e20"),
        ("--host-offset", "web-1=NaN"),
        ("--ttl-ms", "9223372036854775807"),
        ("--ttl-ms", "-5"),
    ] {
        let out = bin()
            .arg("analyze")
            .arg(&input)
            .arg(format!("{flag}={value}"))
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{flag} {value}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).starts_with("lockreplay: "),
            "{flag} {value}: not our message: {}",
            stderr(&out)
        );
    }
    for args in [
        ["--ttl-ms", "0"],
        ["--retry-ms", "0"],
        ["--slow-prob", "2"],
        ["--buyers", "0"],
        ["--unit-price", "NaN"],
        ["--events", "99999999999"],
    ] {
        let out = bin().arg("simulate").args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(args[0]), "{args:?}: {}", stderr(&out));
    }
}

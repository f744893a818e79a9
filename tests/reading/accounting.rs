//! Accounting under random mixes of good and bad lines: for every file,
//! `lines_read = events_loaded + lines_skipped + lines_warned`, and each
//! count is exactly the number of lines of that sort in the mix.

use lockreplay::ingest::{IngestOptions, Progress, read_source};
use lockreplay::model::LogBuilder;
use proptest::prelude::*;

/// What a generated line is: loaded, skipped (readable, not an event) or
/// warned (unreadable); blank lines are not counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sort {
    Loaded,
    Skipped,
    Warned,
    Blank,
}

/// One line of a dialect in the given sort, varied by `n`.
fn line(dialect: u8, sort: Sort, n: u32) -> String {
    let ms = 1_704_067_200_000u64 + u64::from(n);
    let holder = format!("w{}", n % 7);
    match (dialect, sort) {
        (_, Sort::Blank) => ["", " ", "\t"][n as usize % 3].to_string(),
        (0, Sort::Loaded) => format!(
            "{{\"ts\":{ms},\"event\":\"{}\",\"key\":\"lock:{}\",\"holder\":\"{holder}\",\"ttl_ms\":{}}}",
            ["acquired", "released", "renewed", "frobnicated"][n as usize % 4],
            n % 3,
            n % 5000
        ),
        (0, Sort::Skipped) => format!("{{\"ts\":{ms},\"event\":\"heartbeat\",\"note\":\"{n}\"}}"),
        (0, Sort::Warned) => [
            format!("{{\"ts\":{ms},\"event\":\"acquired\""),
            format!(
                "{{\"ts\":\"yesterday {n}\",\"event\":\"acquired\",\"key\":\"k\",\"holder\":\"h\"}}"
            ),
            format!("[{n}]"),
            format!("{{\"event\":\"released\",\"key\":\"k\",\"holder\":\"{holder}\"}}"),
            "\u{1}\u{2}garbage".to_string(),
        ][n as usize % 5]
            .clone(),
        (1, Sort::Loaded) => format!(
            "{ms},{},lock:{},{holder},{}",
            ["acquired", "released", "renewed"][n as usize % 3],
            n % 3,
            n % 5000
        ),
        (1, Sort::Skipped) => format!("{ms},heartbeat,,,"),
        (1, Sort::Warned) => [
            format!("yesterday {n},acquired,k,h,1"),
            format!(",acquired,k,{holder},1"),
        ][n as usize % 2]
            .clone(),
        (_, Sort::Loaded) => format!(
            "ts={ms} event={} key=lock:{} holder={holder} ttl_ms={}",
            ["acquired", "released", "renewed"][n as usize % 3],
            n % 3,
            n % 5000
        ),
        (_, Sort::Skipped) => format!("ts={ms} event=heartbeat note=\"n {n}\""),
        (_, Sort::Warned) => [
            format!("ts=never{n} event=acquired key=k holder=h"),
            "just words".to_string(),
        ][n as usize % 2]
            .clone(),
    }
}

fn sort_strategy() -> impl Strategy<Value = Sort> {
    prop_oneof![
        4 => Just(Sort::Loaded),
        2 => Just(Sort::Skipped),
        2 => Just(Sort::Warned),
        1 => Just(Sort::Blank),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn lines_read_is_loaded_plus_skipped_plus_warned(
        dialect in 0u8..3,
        mix in prop::collection::vec((sort_strategy(), any::<u32>()), 0..200),
        crlf in any::<bool>(),
    ) {
        // A header (CSV) or a good first line fixes the dialect.
        let mut lines = match dialect {
            0 => vec![line(0, Sort::Loaded, 0)],
            1 => vec!["time,event,key,holder,ttl_ms".to_string(), line(1, Sort::Loaded, 0)],
            _ => vec![line(2, Sort::Loaded, 0)],
        };
        let mut want = [1u64, 0, 0];
        for (sort, n) in &mix {
            lines.push(line(dialect, *sort, *n));
            match sort {
                Sort::Loaded => want[0] += 1,
                Sort::Skipped => want[1] += 1,
                Sort::Warned => want[2] += 1,
                Sort::Blank => {}
            }
        }
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        let mut b = LogBuilder::new();
        read_source("mix", text.as_bytes(), &IngestOptions::default(), &mut b, &Progress::default())
            .expect("reads");
        let s = &b.log.sources[0];
        prop_assert_eq!(s.lines_read, s.events_loaded + s.lines_skipped + s.lines_warned);
        prop_assert_eq!([s.events_loaded, s.lines_skipped, s.lines_warned], want, "{}", text);
        prop_assert_eq!(b.log.events.len() as u64, want[0]);
        prop_assert_eq!(b.log.warnings.total(), want[2]);
    }
}

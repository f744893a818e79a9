//! The date or year a layout's times lack (a time of day alone, a month and
//! day without a year), and where it comes from, in this order: the
//! mapping's `date`, the file's name (`app-2026-12-01.log`,
//! `app.log.20261201`), the first line of the file with a full date, or
//! assumed (today's date; this year, or last year when that puts the times
//! ahead of now). The collector puts it on the times and says where it came
//! from in a source note ([`crate::model::SourceNote::DateSupplied`]).

use chrono::{Datelike, NaiveDate};

use crate::model::DateFrom;

/// What a file offers for the dates its times lack.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct DateHints {
    /// The mapping's `date`.
    pub mapping: Option<NaiveDate>,
    /// A date in the file's name.
    pub name: Option<NaiveDate>,
    /// The first full date among the file's first lines.
    pub line: Option<NaiveDate>,
}

impl DateHints {
    /// The hints of a file named `name` with the mapping's `date` and the
    /// first full date of its lines (`yyyy-MM-dd`), when any.
    pub fn of(mapping: Option<&str>, name: &str, line: Option<&str>) -> DateHints {
        let parse = |d: &str| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok();
        DateHints {
            mapping: mapping.and_then(parse),
            name: date_in_name(name),
            line: line.and_then(parse),
        }
    }

    /// The date for times of day, and where it came from (today's, in
    /// UTC, assumed, when nothing gives one).
    pub fn date(&self) -> (NaiveDate, DateFrom) {
        self.given()
            .unwrap_or_else(|| (chrono::Utc::now().date_naive(), DateFrom::Assumed))
    }

    /// The year for times of month `month` and the rest `dd HH:mm:ss`,
    /// and where it came from; assumed: this year, or last year when that
    /// puts the time more than a day ahead of now.
    pub fn year(&self, month: u32, rest: &str) -> (i32, DateFrom) {
        match self.given() {
            Some((d, from)) => (d.year(), from),
            None => (
                crate::ingest::roles::time::year_not_ahead(month, rest),
                DateFrom::Assumed,
            ),
        }
    }

    /// The first date given: the mapping's, the name's, a line's.
    fn given(&self) -> Option<(NaiveDate, DateFrom)> {
        self.mapping
            .map(|d| (d, DateFrom::Mapping))
            .or(self.name.map(|d| (d, DateFrom::FileName)))
            .or(self.line.map(|d| (d, DateFrom::DatedLine)))
    }
}

/// A date in a file's name (its last path part): `yyyy-MM-dd`,
/// `yyyy_MM_dd`, `yyyy.MM.dd` or `yyyyMMdd`, not inside a longer number,
/// from 1970 to 2200. The rotated names of logging libraries
/// (Logback's `%d{yyyy-MM-dd}`, Python's `TimedRotatingFileHandler`
/// `app.log.2026-12-01`, glog's `app.host.user.log.INFO.20261201-070655.4242`).
pub(crate) fn date_in_name(name: &str) -> Option<NaiveDate> {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let b = file.as_bytes();
    for i in 0..b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_digit()) {
            continue;
        }
        let digits = |from: usize, n: usize| -> Option<u32> {
            let d = b.get(from..from + n)?;
            d.iter()
                .all(u8::is_ascii_digit)
                .then(|| d.iter().fold(0, |a, c| a * 10 + u32::from(c - b'0')))
        };
        let Some(y) = digits(i, 4).filter(|y| (1970..=2200).contains(y)) else {
            continue;
        };
        let sep = b.get(i + 4).copied();
        let (m, d, end) = match sep {
            Some(s @ (b'-' | b'_' | b'.')) if b.get(i + 7) == Some(&s) => {
                (digits(i + 5, 2), digits(i + 8, 2), i + 10)
            }
            _ => (digits(i + 4, 2), digits(i + 6, 2), i + 8),
        };
        if b.get(end).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        if let (Some(m), Some(d)) = (m, d)
            && let Some(date) = NaiveDate::from_ymd_opt(y as i32, m, d)
        {
            return Some(date);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_rotated_file_names() {
        let d = NaiveDate::from_ymd_opt(2026, 12, 1);
        for n in [
            "app-2026-12-01.log",
            "/var/log/x-2025-01-01/app.log.2026-12-01",
            "app_20261201.log",
            "shop.web-01.log.INFO.20261201-070655.4242",
            "2026.12.01.log",
        ] {
            assert_eq!(date_in_name(n), d, "{n}");
        }
        for n in [
            "app.log",
            "web-01.log",
            "app-2026-13-01.log",
            "id-120261201.log",
            "v2026.log",
        ] {
            assert_eq!(date_in_name(n), None, "{n}");
        }
    }

    #[test]
    fn the_mapping_then_the_name_then_a_line_then_assumed() {
        let h = DateHints::of(Some("2026-01-02"), "app-2025-03-04.log", Some("2024-05-06"));
        assert_eq!(h.date().1, DateFrom::Mapping);
        let h = DateHints::of(None, "app-2025-03-04.log", Some("2024-05-06"));
        assert_eq!(
            h.date(),
            (
                NaiveDate::from_ymd_opt(2025, 3, 4).expect("date"),
                DateFrom::FileName
            )
        );
        assert_eq!(h.year(12, "01 07:06:55").0, 2025);
        let h = DateHints::of(None, "app.log", Some("2024-05-06"));
        assert_eq!(h.year(12, "01 07:06:55"), (2024, DateFrom::DatedLine));
        assert_eq!(
            DateHints::of(None, "app.log", None).date().1,
            DateFrom::Assumed
        );
    }
}

//! A sample of a file's records as named columns: what the protocol
//! inference reads. Every value is text as the log wrote it; numbers are
//! recognised when asked.

use std::collections::HashMap;

/// How loud a record is: a warning or an error makes a step its failed
/// form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Severity {
    /// No level in the record.
    #[default]
    Unknown,
    /// Trace, debug, info, notice.
    Normal,
    /// Warn.
    Warn,
    /// Error, fatal, critical.
    Error,
}

impl Severity {
    /// The severity a level word or number names (`WARN`, `W`, `40`
    /// in bunyan/pino, `Warning`, `错误`); `Unknown` for anything else.
    pub fn of_level(level: &str) -> Severity {
        let l = level.trim().to_ascii_lowercase();
        match l.as_str() {
            "w" | "warn" | "warning" | "wrn" | "40" | "4" | "警告" => Severity::Warn,
            "e" | "f" | "c" | "error" | "err" | "fatal" | "crit" | "critical" | "alert"
            | "emerg" | "severe" | "50" | "60" | "3" | "2" | "1" | "0" | "错误" | "严重" => {
                Severity::Error
            }
            "i" | "d" | "t" | "v" | "info" | "information" | "debug" | "trace" | "verbose"
            | "notice" | "fine" | "finer" | "finest" | "config" | "inf" | "dbg" | "30" | "20"
            | "10" | "6" | "7" | "5" | "信息" | "调试" => Severity::Normal,
            _ => Severity::Unknown,
        }
    }

    /// True for a warning or an error.
    pub fn is_loud(self) -> bool {
        self >= Severity::Warn
    }
}

/// One record: its time, severity and values by column.
#[derive(Clone, Debug, Default)]
pub struct Row {
    /// Time, ns since the epoch.
    pub t_ns: i64,
    /// From the record's level, if it has one.
    pub severity: Severity,
    /// (column, value), at most one per column, sorted by column.
    pub cells: Vec<(u32, String)>,
}

impl Row {
    /// The value of column `c`.
    pub fn get(&self, c: u32) -> Option<&str> {
        self.cells
            .binary_search_by_key(&c, |(k, _)| *k)
            .ok()
            .map(|i| self.cells[i].1.as_str())
    }
}

/// Named columns and the rows, in time order.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Column names: a field's path, or a derived column's name.
    pub names: Vec<String>,
    /// Records in time order (ties in the file's order).
    pub rows: Vec<Row>,
}

impl Table {
    /// The column named `name`, added when new.
    #[cfg(test)]
    pub fn column(&mut self, name: &str) -> u32 {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return i as u32;
        }
        self.names.push(name.to_string());
        (self.names.len() - 1) as u32
    }

    /// Adds a row from (name, value) pairs; empty values are left out.
    #[cfg(test)]
    pub fn push(&mut self, t_ns: i64, severity: Severity, pairs: &[(&str, &str)]) {
        let mut cells: Vec<(u32, String)> = pairs
            .iter()
            .filter(|(_, v)| !v.trim().is_empty())
            .map(|(k, v)| (self.column(k), v.trim().to_string()))
            .collect();
        cells.sort_by_key(|(c, _)| *c);
        cells.dedup_by_key(|(c, _)| *c);
        self.rows.push(Row {
            t_ns,
            severity,
            cells,
        });
    }

    /// Every column's profile.
    pub fn profiles(&self) -> Vec<Profile> {
        let mut out: Vec<Profile> = (0..self.names.len()).map(|_| Profile::default()).collect();
        let mut values: Vec<HashMap<&str, u32>> = vec![HashMap::new(); self.names.len()];
        for row in &self.rows {
            for (c, v) in &row.cells {
                let p = &mut out[*c as usize];
                p.present += 1;
                let shape = Shape::of(v);
                p.numeric += u32::from(shape.number.is_some());
                p.duration += u32::from(shape.duration_ms.is_some());
                p.phrase += u32::from(shape.phrase);
                p.token += u32::from(shape.token);
                p.keyish += u32::from(shape.keyish);
                p.meta += u32::from(shape.meta);
                p.path += u32::from(v.contains('/'));
                p.max_len = p.max_len.max(v.len() as u32);
                let seen = &mut values[*c as usize];
                if seen.len() < DISTINCT_CAP {
                    *seen.entry(v.as_str()).or_insert(0) += 1;
                }
            }
        }
        for (p, seen) in out.iter_mut().zip(values) {
            p.distinct = seen.len() as u32;
            p.repeated = seen.values().filter(|&&n| n > 1).count() as u32;
        }
        out
    }
}

/// Distinct values counted per column.
const DISTINCT_CAP: usize = 4096;

/// What a column's values look like, counted over the rows that have it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Profile {
    /// Rows with a value.
    pub present: u32,
    /// Distinct values (at most [`DISTINCT_CAP`]).
    pub distinct: u32,
    /// Distinct values seen in more than one row.
    pub repeated: u32,
    /// Values that are numbers.
    pub numeric: u32,
    /// Values that are durations written with a unit.
    pub duration: u32,
    /// Values with inner whitespace (phrases).
    pub phrase: u32,
    /// Token-like values ([`Shape::token`]).
    pub token: u32,
    /// Key-like values ([`Shape::keyish`]).
    pub keyish: u32,
    /// Values that are the runtime's own by their look ([`Shape::meta`]).
    pub meta: u32,
    /// Values with a `/` (a path, a stream name).
    pub path: u32,
    /// Longest value, bytes.
    pub max_len: u32,
}

impl Profile {
    /// True when most values are numbers.
    pub fn is_numeric(&self) -> bool {
        self.present > 0 && self.numeric * 10 >= self.present * 9
    }

    /// True when most values are durations written with their unit.
    pub fn is_duration(&self) -> bool {
        self.present > 0 && self.duration * 10 >= self.present * 9
    }

    /// True when most values are a level, a time or an address: the
    /// runtime's or the shipper's field, never a lock's. A column of one
    /// number is no clock (a TTL of 2 s in ns reads like an epoch).
    pub fn is_meta(&self) -> bool {
        self.meta * 2 > self.present && !(self.is_numeric() && self.distinct < 2)
    }
}

/// A value's shape.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shape {
    /// The value as a number.
    pub number: Option<f64>,
    /// The value as a duration written with its unit (`2s`, `PT2S`,
    /// `00:00:02`), ms.
    pub duration_ms: Option<f64>,
    /// It has inner whitespace.
    pub phrase: bool,
    /// An identifier-like token: letters and digits with `-`, `_`, `:`, `.`,
    /// at least one digit or 8+ hex characters, no whitespace.
    pub token: bool,
    /// A key-like name: words joined by `:` or `/` (`lock:sku:1001`).
    pub keyish: bool,
    /// A level word (`INFO`, `warn`), a time (a date, a time of day, an
    /// epoch number) or an IPv4 address.
    pub meta: bool,
}

impl Shape {
    /// The shape of `v`.
    pub fn of(v: &str) -> Shape {
        let number = v.parse::<f64>().ok().filter(|n| n.is_finite());
        let phrase = v.trim().contains(char::is_whitespace);
        let word_chars =
            |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '.' | '/' | '@' | '#');
        let token = number.is_none()
            && !phrase
            && !v.is_empty()
            && v.chars().all(word_chars)
            && (v.chars().any(|c| c.is_ascii_digit())
                || v.chars().filter(char::is_ascii_hexdigit).count() >= 8);
        let keyish = !phrase
            && (v.contains(':') || v.contains('/'))
            && v.split([':', '/']).filter(|p| !p.is_empty()).count() >= 2;
        let duration_ms = if number.is_none() && !phrase {
            crate::ingest::roles::duration::text_duration_ms(v)
        } else {
            None
        };
        // A clock form without a date (`00:00:02`) may be a duration.
        let meta = (number.is_none() && Severity::of_level(v) != Severity::Unknown)
            || number.is_some_and(epoch)
            || (timeish(v) && duration_ms.is_none())
            || v.parse::<std::net::Ipv4Addr>().is_ok();
        Shape {
            number,
            duration_ms,
            phrase,
            token,
            keyish,
            meta,
        }
    }
}

/// Whether `n` reads as an epoch time of 2015 to 2040, in s, ms, µs or ns.
fn epoch(n: f64) -> bool {
    [1.0, 1e3, 1e6, 1e9]
        .iter()
        .any(|scale| (1.42e9 * scale..=2.21e9 * scale).contains(&n))
}

/// Whether `v` holds a date (`2026-11-30`) or a time of day (`23:06:55`).
fn timeish(v: &str) -> bool {
    let b = v.as_bytes();
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    b.windows(8).any(|w| {
        digits(&w[0..2]) && w[2] == b':' && digits(&w[3..5]) && w[5] == b':' && digits(&w[6..8])
    }) || b.windows(10).any(|w| {
        digits(&w[0..4])
            && matches!(w[4], b'-' | b'/')
            && digits(&w[5..7])
            && w[7] == w[4]
            && digits(&w[8..10])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_count_shapes_and_distinct_values() {
        let mut t = Table::default();
        t.push(
            1,
            Severity::Normal,
            &[("k", "lock:sku:1"), ("n", "2000"), ("m", "grabbed it")],
        );
        t.push(
            2,
            Severity::Warn,
            &[("k", "lock:sku:1"), ("n", "2000"), ("m", "let go")],
        );
        let p = t.profiles();
        assert_eq!((p[0].present, p[0].distinct, p[0].keyish), (2, 1, 2));
        assert!(p[1].is_numeric());
        assert_eq!((p[2].phrase, p[2].distinct, p[2].repeated), (2, 2, 0));
        assert_eq!(t.rows[1].get(0), Some("lock:sku:1"));
        assert_eq!(Severity::of_level("WARNING"), Severity::Warn);
        assert!(Shape::of("8f14e45f-ceea-467a-9575-6f2b0c1d2e3f:61").token);
        assert!(!Shape::of("exec-1 main").token);
    }
}

//! The flags of the command line checked and turned into the plain
//! settings of [`crate::config`] (ripgrep's low arguments -> high
//! arguments): every range, zone, mapping file, pair and time is checked
//! here, once, with a message that names the flag.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};

use super::args::{
    AnalysisArgs, Cli, FetchArgs, Format, ReadArgs, ReportLang, SimulateArgs, SqlArgs, WhatifArgs,
};
use crate::analysis::IncidentId;
use crate::config::{
    AnalysisConfig, Cursor, Lang, MappingFile, ReadConfig, ReportConfig, ReportFormat, WindowConfig,
};
use crate::ingest::{FileTtl, Mapping, parse_tz};
use crate::pipeline::MAX_PICTURE_SIDE;
use crate::sim::SimArgs;
use crate::sql::client::ServerConfig;
use crate::sql::fetch::FetchConfig;
use crate::sql::{Dialect, QuerySpec, Select, Slice};

/// Largest `--unit-loss`, CNY (or the currency given) per unit: beyond it a
/// loss could overflow to infinity (`"loss": null` in JSON).
pub const MAX_UNIT_LOSS: f64 = 1e12;
/// Largest `--log-lag-ms`, ms: a minute; the log-lag rule's cost grows with
/// the events inside the tolerance.
pub const MAX_LOG_LAG_MS: f64 = 60_000.0;
/// Largest `--host-offset`, ms (366 days): far enough for any clock, near
/// enough that no time in the ns range wraps.
pub const MAX_HOST_OFFSET_MS: f64 = 366.0 * 86_400_000.0;
/// Longest duration a `simulate` flag takes, ms (a day).
const MAX_SIM_MS: i64 = 86_400_000;

impl From<Format> for ReportFormat {
    fn from(f: Format) -> ReportFormat {
        match f {
            Format::Text => ReportFormat::Text,
            Format::Md => ReportFormat::Markdown,
            Format::Json => ReportFormat::Json,
        }
    }
}

impl From<ReportLang> for Lang {
    fn from(l: ReportLang) -> Lang {
        match l {
            ReportLang::En => Lang::En,
            ReportLang::Zh => Lang::Zh,
        }
    }
}

/// The report of `--format` in `--lang`.
pub fn report_config(format: Format, lang: ReportLang) -> ReportConfig {
    ReportConfig {
        format: format.into(),
        lang: lang.into(),
    }
}

impl ReadArgs {
    /// How to read, from `--tz`, `--mapping`, `--lock-pattern`,
    /// `--no-cache` and `ttl_ms` (the items of `--ttl-ms`, or of `whatif`'s
    /// `--file-ttl-ms`).
    ///
    /// # Errors
    /// An unknown zone, an unreadable mapping file or a TTL item that is
    /// not `MS` or `FILE=MS`.
    pub fn read_config(&self, ttl_ms: &[String]) -> anyhow::Result<ReadConfig> {
        let tz = match &self.tz {
            Some(tz) => Some(parse_tz(tz)?),
            None => None,
        };
        let mapping = match &self.mapping {
            Some(path) => Some(MappingFile {
                path: path.clone(),
                mapping: Mapping::from_path(path)?,
            }),
            None => None,
        };
        let file_ttl = match ttl_ms {
            [] => None,
            items => Some(FileTtl::parse(items)?),
        };
        Ok(ReadConfig {
            tz,
            mapping,
            lock_pattern: self.lock_pattern.clone(),
            file_ttl,
            use_cache: !self.no_cache,
            pulled: Default::default(),
        })
    }
}

impl AnalysisArgs {
    /// The analysis settings given: `--unit-loss`, `--currency`,
    /// `--near-miss-ratio`, `--near-miss-streak`, `--log-lag-ms`,
    /// `--host-offset`.
    ///
    /// # Errors
    /// A `--host-offset` that is not `HOST=MS` within a year, or a number
    /// out of its range or not finite ([`check_f64`], [`check_int`]).
    pub fn analysis_config(&self) -> anyhow::Result<AnalysisConfig> {
        let mut c = AnalysisConfig::default();
        if let Some(v) = self.read.unit_loss {
            c.unit_loss = Some(check_f64("--unit-loss", v, 0.0, MAX_UNIT_LOSS).map_err(
                |_| {
                    anyhow::anyhow!(
                        "--unit-loss must be zero or a positive amount up to {MAX_UNIT_LOSS}, got {v}"
                    )
                },
            )?);
        }
        c.currency = self.read.currency.clone();
        if let Some(v) = self.near_miss_ratio {
            if v <= 0.0 {
                bail!("--near-miss-ratio must be above 0, got {v}");
            }
            c.near_miss_ratio = Some(check_f64("--near-miss-ratio", v, 0.0, 1.0)?);
        }
        if let Some(v) = self.near_miss_streak {
            c.near_miss_streak =
                Some(check_int("--near-miss-streak", v.into(), 1, 1_000_000)? as u32);
        }
        if let Some(v) = self.log_lag_ms {
            c.log_lag_tolerance_ms = Some(check_f64("--log-lag-ms", v, 0.0, MAX_LOG_LAG_MS)?);
        }
        if !self.read.host_offsets.is_empty() {
            c.host_offsets_ms = Some(parse_host_offsets(&self.read.host_offsets)?);
        }
        Ok(c)
    }

    /// How to read ([`ReadArgs::read_config`] with `--ttl-ms`), then the
    /// analysis settings ([`AnalysisArgs::analysis_config`]): the first
    /// bad flag in that order is the error.
    ///
    /// # Errors
    /// As those two.
    pub fn resolve(&self) -> anyhow::Result<(ReadConfig, AnalysisConfig)> {
        let read = self.read.read_config(&self.ttl_ms)?;
        Ok((read, self.analysis_config()?))
    }
}

impl Cli {
    /// What the window opens with.
    ///
    /// # Errors
    /// A bad reading or analysis flag ([`AnalysisArgs::resolve`]) or
    /// `--cursor` ([`parse_cursor`]).
    pub fn window_config(&self) -> anyhow::Result<WindowConfig> {
        let (read, analysis) = self.analysis.resolve()?;
        let cursor = self.cursor.as_deref().map(parse_cursor).transpose()?;
        Ok(WindowConfig {
            files: self.files.clone(),
            screenshot: self.screenshot.clone(),
            cursor,
            whatif: self.whatif,
            lang: self.lang.map(Lang::from),
            read,
            analysis,
        })
    }
}

/// `v` when it is a finite number in `min..=max`, else our own message naming
/// `flag` (NaN, infinities and out-of-range values alike).
///
/// # Errors
/// Says the range.
pub fn check_f64(flag: &str, v: f64, min: f64, max: f64) -> anyhow::Result<f64> {
    if v.is_finite() && (min..=max).contains(&v) {
        Ok(v)
    } else {
        bail!("{flag} must be a number from {min} to {max}, got {v}")
    }
}

/// `v` when it is in `min..=max`, else our own message naming `flag`.
///
/// # Errors
/// Says the range.
pub fn check_int(flag: &str, v: i64, min: i64, max: i64) -> anyhow::Result<i64> {
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        bail!("{flag} must be from {min} to {max}, got {v}")
    }
}

/// Parses `HOST=MS` pairs.
///
/// # Errors
/// Names the pair that is not `HOST=MS` with a finite number.
pub fn parse_host_offsets(pairs: &[String]) -> anyhow::Result<BTreeMap<String, f64>> {
    pairs
        .iter()
        .map(|p| {
            let (host, ms) = p
                .rsplit_once('=')
                .with_context(|| format!("--host-offset {p:?} is not HOST=MS"))?;
            let ms: f64 = ms
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .with_context(|| format!("--host-offset {p:?}: {ms:?} is not a number of ms"))?;
            if ms.abs() > MAX_HOST_OFFSET_MS {
                bail!(
                    "--host-offset {p:?}: a clock offset must be within ±{MAX_HOST_OFFSET_MS} ms (366 days)"
                );
            }
            Ok((host.trim().to_string(), ms))
        })
        .collect()
}

/// Parses a `--cursor` value: an RFC 3339 time, or `+MS` (milliseconds,
/// fractions allowed) after the first event.
///
/// # Errors
/// When it is neither.
pub fn parse_cursor(spec: &str) -> anyhow::Result<Cursor> {
    let spec = spec.trim();
    if let Some(ms) = spec.strip_prefix('+') {
        let ms: f64 = ms
            .trim()
            .trim_end_matches("ms")
            .trim()
            .parse()
            .with_context(|| format!("--cursor {spec:?}: +MS wants a number of milliseconds"))?;
        anyhow::ensure!(
            ms.is_finite() && ms.abs() < 1e15,
            "--cursor {spec:?} is out of range"
        );
        return Ok(Cursor::AfterFirst((ms * 1e6).round() as i64));
    }
    chrono::DateTime::parse_from_rfc3339(spec)
        .ok()
        .and_then(|t| t.timestamp_nanos_opt())
        .map(Cursor::At)
        .with_context(|| format!("--cursor {spec:?} is neither an RFC 3339 time nor +MS"))
}

impl SimulateArgs {
    /// Checks every number against its range: no flag may make the
    /// simulator loop, overflow or divide by zero.
    ///
    /// # Errors
    /// Names the first flag out of range.
    pub fn validate(&self) -> anyhow::Result<()> {
        check_int("--buyers", self.buyers.into(), 1, 1_000_000)?;
        check_int("--products", self.products.into(), 1, 100_000)?;
        check_int("--hosts", self.hosts.into(), 1, 10_000)?;
        check_int("--ttl-ms", self.ttl_ms, 1, MAX_SIM_MS)?;
        check_f64("--slow-prob", self.slow_prob, 0.0, 1.0)?;
        check_int("--slow-ms", self.slow_ms, 0, MAX_SIM_MS)?;
        if let Some(v) = self.renew_every_ms {
            check_int("--renew-every-ms", v, 1, MAX_SIM_MS)?;
        }
        check_int("--initial-stock", self.initial_stock, 0, 1_000_000_000)?;
        check_f64("--unit-price", self.unit_price, 0.0, MAX_UNIT_LOSS)?;
        check_int("--retry-ms", self.retry_ms, 1, MAX_SIM_MS)?;
        check_int(
            "--blocking-timeout-ms",
            self.blocking_timeout_ms,
            0,
            MAX_SIM_MS,
        )?;
        check_int("--arrival-ms", self.arrival_ms, 0, MAX_SIM_MS)?;
        if let Some(v) = self.events {
            check_int(
                "--events",
                i64::try_from(v).unwrap_or(i64::MAX),
                1,
                1_000_000_000,
            )?;
        }
        Ok(())
    }

    /// The simulator's arguments from these flags.
    pub fn sim_args(&self) -> SimArgs {
        SimArgs {
            buyers: self.buyers,
            products: self.products,
            hosts: self.hosts,
            ttl_ms: self.ttl_ms,
            slow_prob: self.slow_prob,
            slow_ms: self.slow_ms,
            watchdog: self.watchdog,
            renew_every_ms: self.renew_every_ms,
            naive: self.naive,
            initial_stock: self.initial_stock,
            unit_price: self.unit_price,
            seed: self.seed,
            retry_ms: self.retry_ms,
            blocking_timeout_ms: self.blocking_timeout_ms,
            arrival_ms: self.arrival_ms,
            events: self.events,
            out: self.out.clone(),
            truth: self.truth.clone(),
        }
    }
}

impl WhatifArgs {
    /// The policies asked for: the one the flags name, else the standard set.
    ///
    /// # Errors
    /// A TTL, interval, pause or wait limit below 1 ms.
    pub fn policies(&self) -> anyhow::Result<Vec<crate::whatif::Policy>> {
        if let Some(w) = self.wait_limit_ms.filter(|&w| w < 0) {
            bail!("--wait-limit-ms must be zero or more, got {w}");
        }
        let p = crate::whatif::Policy {
            ttl_ms: self.policy_ttl_ms,
            watchdog: self.watchdog,
            renew_every_ms: self.renew_every_ms,
            pause_ms: self.pause_ms,
            owner_check: self.owner_check,
            fencing: self.fencing,
        };
        p.validate().map_err(|e| anyhow::anyhow!("whatif: {e}"))?;
        Ok(if p.is_as_logged() {
            crate::report::default_policies()
        } else {
            vec![p]
        })
    }

    /// How to read (`--file-ttl-ms` as the files' TTL) and the pricing.
    ///
    /// # Errors
    /// As [`AnalysisArgs::resolve`].
    pub fn resolve(&self) -> anyhow::Result<(ReadConfig, AnalysisConfig)> {
        AnalysisArgs {
            read: self.read.clone(),
            ttl_ms: self.file_ttl_ms.clone(),
            ..AnalysisArgs::default()
        }
        .resolve()
    }
}

/// `spec` with the columns and events `mapping` names.
fn with_mapping(spec: QuerySpec, path: &Path, mapping: &Mapping) -> anyhow::Result<QuerySpec> {
    spec.with_mapping(mapping)
        .with_context(|| format!("mapping {}", path.display()))
}

impl SqlArgs {
    /// The query's spec from the flags (the mapping file, when given, names
    /// the columns). The reading flags other than `--mapping` are not read.
    ///
    /// # Errors
    /// Bad settings or an unreadable or incomplete mapping.
    pub fn spec(&self) -> anyhow::Result<QuerySpec> {
        let settings = self.analysis.analysis_config()?.settings();
        let mut spec = QuerySpec::new(self.dialect, &self.table);
        if let Some(path) = &self.analysis.read.mapping {
            spec = with_mapping(spec, path, &Mapping::from_path(path)?)?;
        }
        spec.time_unit = self.time_unit;
        spec.select = self.select;
        spec.filter = self.filter.clone();
        if let (Some(s), Some(u)) = (&self.since, &self.until) {
            let (lo_ns, hi_ns) = (parse_instant("--since", s)?, parse_instant("--until", u)?);
            if hi_ns <= lo_ns {
                bail!("--until must be after --since");
            }
            let carry_ns = check_int("--carry-ms", self.carry_ms, 0, 366 * 86_400_000)? * 1_000_000;
            spec.slice = Some(Slice {
                lo_ns,
                hi_ns,
                carry_ns,
            });
        }
        spec.log_lag_ms = settings.log_lag_tolerance_ms;
        spec.near_miss_ratio = settings.near_miss_ratio;
        spec.near_miss_streak = settings.near_miss_streak;
        Ok(spec)
    }
}

impl FetchArgs {
    /// What `fetch` does: the server, the reading and analysis settings,
    /// the listing's query, the keys and times to pull, in that order.
    ///
    /// # Errors
    /// The first bad flag, or a password file that cannot be read.
    pub fn fetch_config(&self) -> anyhow::Result<FetchConfig> {
        let server = self.server()?;
        let (read, analysis) = self.analysis.resolve()?;
        let settings = analysis.settings();
        let mut spec = QuerySpec::new(Dialect::Clickhouse, &self.table);
        if let Some(m) = &read.mapping {
            spec = with_mapping(spec, &m.path, &m.mapping)?;
        }
        spec.time_unit = self.time_unit;
        spec.select = Select::Keys;
        spec.log_lag_ms = settings.log_lag_tolerance_ms;
        spec.near_miss_ratio = settings.near_miss_ratio;
        spec.near_miss_streak = settings.near_miss_streak;
        let context_ns =
            check_int("--context-ms", self.context_ms, 0, 31 * 86_400_000)? * 1_000_000;
        spec.filter = self.where_sql.clone();
        let range = match (&self.since, &self.until) {
            (Some(s), Some(u)) => {
                let (lo, hi) = (parse_instant("--since", s)?, parse_instant("--until", u)?);
                if hi <= lo {
                    bail!("--until must be after --since");
                }
                Some((lo, hi))
            }
            _ => None,
        };
        // With keys the range is the rows to pull; without, the listing's.
        let range_ns = range.filter(|_| !self.keys.is_empty());
        spec.slice = range
            .filter(|_| self.keys.is_empty())
            .map(|(lo_ns, hi_ns)| Slice {
                lo_ns,
                hi_ns,
                carry_ns: context_ns,
            });
        Ok(FetchConfig {
            server,
            spec,
            list: self.list,
            keys: self.keys.clone(),
            range_ns,
            cluster: self.cluster.clone(),
            shard_urls: self.shard_urls.clone(),
            business_table: self.business_table.clone(),
            business_where: self.business_where.clone(),
            top: self.top,
            context_ns,
            max_rows: self.max_rows,
            out: self.out.clone(),
            open: self.open,
            screenshot: self.screenshot.clone(),
            report: report_config(self.format, self.lang),
            inputs: [
                read.mapping.as_ref().map(|m| m.path.clone()),
                self.password_file.clone(),
                self.ca_file.clone(),
            ]
            .into_iter()
            .flatten()
            .collect(),
            read,
            analysis,
        })
    }

    /// The server and its credentials: the flags, else `CLICKHOUSE_URL`,
    /// `CLICKHOUSE_USER` (else `default`) and `CLICKHOUSE_PASSWORD`; a
    /// user and password in the URL (`http://user:pw@host`) are used and
    /// taken out of it.
    fn server(&self) -> anyhow::Result<ServerConfig> {
        let given = self
            .url
            .clone()
            .or_else(|| std::env::var("CLICKHOUSE_URL").ok())
            .context("no server: give --url http://HOST:8123 or set CLICKHOUSE_URL")?;
        // Credentials in the URL are used, never printed: the URL kept has
        // none.
        let (url, in_url) = crate::sql::client::split_credentials(&given);
        if in_url.is_some() && (self.user.is_some() || self.password_file.is_some()) {
            bail!(
                "the URL carries a user and password, and --user or --password-file give them too: give them once"
            );
        }
        let (user, password) = match in_url {
            Some(creds) => creds,
            None => {
                let user = self
                    .user
                    .clone()
                    .or_else(|| std::env::var("CLICKHOUSE_USER").ok())
                    .unwrap_or_else(|| "default".into());
                let password = match &self.password_file {
                    Some(p) => crate::sql::client::read_password_file(p)?,
                    None => std::env::var("CLICKHOUSE_PASSWORD").unwrap_or_default(),
                };
                (user, password)
            }
        };
        let timeout = Duration::from_secs(check_int(
            "--timeout-s",
            i64::try_from(self.timeout_s).unwrap_or(i64::MAX),
            1,
            86_400,
        )? as u64);
        Ok(ServerConfig {
            url,
            user,
            password,
            ca_file: self.ca_file.clone(),
            timeout,
        })
    }
}

/// A time given as RFC 3339 or integer ns since the epoch, in ns.
///
/// # Errors
/// Neither.
pub fn parse_instant(flag: &str, v: &str) -> anyhow::Result<i64> {
    if let Ok(ns) = v.trim().parse::<i64>() {
        return Ok(ns);
    }
    chrono::DateTime::parse_from_rfc3339(v.trim())
        .ok()
        .and_then(|t| t.timestamp_nanos_opt())
        .with_context(|| format!("{flag} {v:?} is neither RFC 3339 nor ns since the epoch"))
}

/// Checks `--scale`: 0.5 to 4 pixels per point.
pub fn check_scale(scale: f32) -> anyhow::Result<f32> {
    if !(0.5..=4.0).contains(&scale) {
        bail!("--scale {scale}: pixels per point must be 0.5 to 4");
    }
    Ok(scale)
}

/// Parses `--size WIDTHxHEIGHT`, each side 1 to [`MAX_PICTURE_SIDE`].
pub fn parse_size(spec: &str) -> anyhow::Result<(u32, u32)> {
    let (w, h): (u32, u32) = spec
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
        .with_context(|| format!("--size {spec:?} is not WIDTHxHEIGHT"))?;
    if !(1..=MAX_PICTURE_SIDE).contains(&w) || !(1..=MAX_PICTURE_SIDE).contains(&h) {
        bail!("--size {spec}: each side must be 1 to {MAX_PICTURE_SIDE} pixels");
    }
    Ok((w, h))
}

/// Parses `--incident INC-N` or `N` into an incident id, given how many
/// incidents there are.
pub fn parse_incident(spec: &str, incidents: usize) -> anyhow::Result<IncidentId> {
    let n: usize = spec
        .trim()
        .trim_start_matches("INC-")
        .trim_start_matches("inc-")
        .parse()
        .with_context(|| format!("--incident {spec:?} is not INC-N or N"))?;
    if n == 0 || n > incidents {
        bail!(
            "--incident {spec}: {}",
            match incidents {
                0 => "there are no incidents".to_string(),
                1 => "there is 1 incident".to_string(),
                n => format!("there are {n} incidents"),
            }
        );
    }
    Ok(IncidentId::new(n - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_is_rfc3339_or_ms_after_the_first_event() {
        let t = parse_cursor("2026-11-29T16:10:44.650+08:00").expect("rfc3339");
        let utc = parse_cursor("2026-11-29T08:10:44.650Z").expect("rfc3339 utc");
        assert_eq!(t, utc);
        assert_eq!(parse_cursor("+1.5").expect("+ms").at(1_000), 1_501_000);
        assert_eq!(parse_cursor("+250ms").expect("+ms").at(0), 250_000_000);
        assert!(parse_cursor("yesterday").is_err());
        assert!(parse_cursor("+NaN").is_err());
    }

    #[test]
    fn an_instant_is_ns_or_rfc3339() {
        assert_eq!(
            parse_instant("--since", "1700000000000000000").expect("ns"),
            1_700_000_000_000_000_000
        );
        assert_eq!(
            parse_instant("--since", "2023-11-14T22:13:20+00:00").expect("rfc3339"),
            1_700_000_000_000_000_000
        );
        assert!(parse_instant("--since", "yesterday").is_err());
    }
}

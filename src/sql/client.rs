//! The HTTP client of a ClickHouse server (`fetch`, and `listing` on each
//! shard): credentials taken out of the URL and never printed, a password
//! read from a file with a bound, TLS with a given authority, answers and
//! errors read with a bound on their size.
//!
//! The HTTP interface as documented at
//! <https://clickhouse.com/docs/interfaces/http>: the query is the POST
//! body, `default_format` names the output, and the credentials go in HTTP
//! basic auth. Errors are said with the server's own text (`Code: N.
//! DB::Exception: ...`) and, for connection problems, the URL.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};

/// A ClickHouse server's HTTP interface and its credentials.
#[derive(Clone)]
pub struct ServerConfig {
    /// `http://HOST:8123` or `https://HOST:8443`.
    pub url: String,
    /// User.
    pub user: String,
    /// Password (empty for none).
    pub password: String,
    /// PEM file of the certificate authority of `https://` (the Mozilla
    /// roots when `None`).
    pub ca_file: Option<PathBuf>,
    /// How long a request may take, connection included.
    pub timeout: Duration,
}

/// Longest row the server may send, bytes: a longer one is an error, not
/// a memory exhaustion.
pub const MAX_ROW_BYTES: u64 = 16 << 20;

/// Most bytes of a server's error answer read (its first lines say what
/// went wrong).
pub const MAX_ERROR_BYTES: u64 = 64 << 10;

/// Most characters of a server's error answer shown.
pub const MAX_ERROR_CHARS: usize = 2000;

/// A ClickHouse server's HTTP interface.
pub struct Client {
    agent: ureq::Agent,
    url: String,
    auth: String,
}

impl Client {
    /// A client for `url` with `user` and `password`.
    ///
    /// # Errors
    /// A URL that is not `http://` or `https://`, or an unreadable or empty
    /// `ca_file`.
    pub fn new(
        url: &str,
        user: &str,
        password: &str,
        ca_file: Option<&Path>,
        timeout: Duration,
    ) -> anyhow::Result<Client> {
        let (url, _) = split_credentials(url.trim_end_matches('/'));
        let url = url.as_str();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            bail!(
                "--url {:?}: the HTTP interface's URL starts with http:// or https://",
                crate::report::terminal_safe(url)
            );
        }
        let mut tls = ureq::tls::TlsConfig::builder();
        if let Some(ca) = ca_file {
            let pem = std::fs::read(ca).with_context(|| format!("cannot read {}", ca.display()))?;
            let certs: Vec<_> = ureq::tls::parse_pem(&pem)
                .filter_map(|item| match item {
                    Ok(ureq::tls::PemItem::Certificate(c)) => Some(c.to_owned()),
                    _ => None,
                })
                .collect();
            if certs.is_empty() {
                bail!("{}: no PEM certificate in it", ca.display());
            }
            tls = tls.root_certs(ureq::tls::RootCerts::new_with_certs(&certs));
        }
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .tls_config(tls.build())
            .build()
            .new_agent();
        let auth = basic_auth(user, password);
        Ok(Client {
            agent,
            url: url.to_string(),
            auth,
        })
    }

    /// Runs one statement in `session` (when given); the output in
    /// `format`, streamed to `sink` line by line.
    ///
    /// # Errors
    /// No connection, a timeout, or the server's error (its text and code).
    pub fn query_lines(
        &self,
        sql: &str,
        session: Option<&str>,
        format: &str,
        sink: &mut dyn FnMut(&str) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut req = self
            .agent
            .post(&self.url)
            .header("Authorization", &self.auth)
            .query("default_format", format)
            .query("output_format_json_quote_64bit_integers", "0");
        if let Some(s) = session {
            req = req.query("session_id", s);
        }
        let mut resp = req
            .send(sql.as_bytes())
            .map_err(|e| anyhow::anyhow!("ClickHouse at {}: {e}", self.url))?;
        let status = resp.status().as_u16();
        let code = resp_code(&resp);
        let mut reader = std::io::BufReader::new(resp.body_mut().as_reader());
        if status != 200 {
            return Err(error_answer(
                status,
                code.as_deref(),
                &mut reader,
                &AnswerLimits::STANDARD,
            ));
        }
        read_rows(&mut reader, &AnswerLimits::STANDARD, &self.url, sink)
    }

    /// The server's version (`SELECT version()`), as `(major, text)`.
    ///
    /// # Errors
    /// As [`Client::query_lines`].
    pub fn version(&self) -> anyhow::Result<(u32, String)> {
        let mut text = String::new();
        self.query_lines("SELECT version()", None, "TabSeparated", &mut |l| {
            text = l.trim().to_string();
            Ok(())
        })?;
        Ok(version_of(text))
    }
}

/// `(major, text)` of a server's answer to `SELECT version()` (its last
/// line, trimmed); major 0 when the text does not start with a number.
pub fn version_of(text: String) -> (u32, String) {
    let major = text
        .split('.')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    (major, text)
}

/// The bounds a server's answer is read with: a row, an error answer and
/// the part of it shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnswerLimits {
    /// Longest row, bytes.
    pub row_bytes: u64,
    /// Most bytes of an error answer read.
    pub error_bytes: u64,
    /// Most characters of an error answer shown (before escaping).
    pub error_chars: usize,
}

impl AnswerLimits {
    /// [`MAX_ROW_BYTES`], [`MAX_ERROR_BYTES`] and [`MAX_ERROR_CHARS`]: what
    /// [`Client::query_lines`] reads with.
    pub const STANDARD: AnswerLimits = AnswerLimits {
        row_bytes: MAX_ROW_BYTES,
        error_bytes: MAX_ERROR_BYTES,
        error_chars: MAX_ERROR_CHARS,
    };
}

/// The rows of a successful answer from `reader`, each non-blank line
/// (line end taken off, bytes that are not UTF-8 replaced) handed to
/// `sink`; a row longer than `limits.row_bytes` is an error, so at most
/// that much of a row is held. `origin` names the server in errors.
///
/// # Errors
/// A read error, a row over the limit, or `sink`'s error.
pub fn read_rows(
    reader: &mut dyn BufRead,
    limits: &AnswerLimits,
    origin: &str,
    sink: &mut dyn FnMut(&str) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = (&mut *reader)
            .take(limits.row_bytes + 1)
            .read_until(b'\n', &mut buf)
            .with_context(|| format!("reading ClickHouse's answer from {origin}"))?;
        if n == 0 {
            return Ok(());
        }
        if n as u64 > limits.row_bytes {
            bail!(
                "ClickHouse at {origin} sent a row over {} MiB",
                limits.row_bytes >> 20
            );
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches(['\n', '\r']);
        if !line.trim().is_empty() {
            sink(line)?;
        }
    }
}

/// The error a non-200 answer says: at most `limits.error_bytes` of its
/// body read, its first 20 lines and `limits.error_chars` characters
/// shown, escaped for a terminal ([`server_error`]).
pub fn error_answer(
    status: u16,
    code: Option<&str>,
    reader: &mut dyn Read,
    limits: &AnswerLimits,
) -> anyhow::Error {
    let mut head = Vec::new();
    let _ = reader.take(limits.error_bytes).read_to_end(&mut head);
    let text: String = String::from_utf8_lossy(&head)
        .lines()
        .take(20)
        .collect::<Vec<_>>()
        .join("\n")
        .chars()
        .take(limits.error_chars)
        .collect();
    server_error(status, code, text.trim())
}

fn resp_code(resp: &ureq::http::Response<ureq::Body>) -> Option<String> {
    resp.headers()
        .get("X-ClickHouse-Exception-Code")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The server's error as our message: authentication named as such.
fn server_error(status: u16, code: Option<&str>, text: &str) -> anyhow::Error {
    let text = crate::report::terminal_safe(text);
    let is_auth = status == 401
        || status == 403
        || code == Some("516")
        || code == Some("192")
        || text.contains("Authentication failed")
        || text.contains("Wrong password");
    if is_auth {
        anyhow::anyhow!(
            "ClickHouse refused the credentials (HTTP {status}): {text}\n\
             set CLICKHOUSE_USER and CLICKHOUSE_PASSWORD, or --user and --password-file"
        )
    } else {
        anyhow::anyhow!("ClickHouse answered HTTP {status}: {text}")
    }
}

/// `url` with the credentials of its userinfo (`http://user:password@host`,
/// RFC 3986 §3.2.1) taken out, and those credentials percent-decoded. The
/// URL returned carries none, so it can be printed.
pub fn split_credentials(url: &str) -> (String, Option<(String, String)>) {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return (url.to_string(), None);
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return (url.to_string(), None);
    };
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let userinfo = &rest[..at];
    let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    let clean = format!("{}{}", &url[..scheme_end], &rest[at + 1..]);
    (clean, Some((decode(user), decode(password))))
}

/// The most bytes of a password file read (its first line is the
/// password).
pub const MAX_PASSWORD_FILE_BYTES: u64 = 64 << 10;

/// The first line of the password file at `path`, reading at most
/// [`MAX_PASSWORD_FILE_BYTES`] (a device such as `/dev/zero` is not read
/// without end).
///
/// # Errors
/// An unreadable file, or no line end within the limit.
pub fn read_password_file(path: &Path) -> anyhow::Result<String> {
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_PASSWORD_FILE_BYTES).read_to_end(&mut head))
        .with_context(|| format!("cannot read the password file {}", path.display()))?;
    let text = String::from_utf8_lossy(&head);
    if head.len() as u64 >= MAX_PASSWORD_FILE_BYTES && !text.contains('\n') {
        bail!(
            "the password file {} has no line end in its first {} KiB: not a password file",
            path.display(),
            MAX_PASSWORD_FILE_BYTES >> 10
        );
    }
    Ok(text.lines().next().unwrap_or("").to_string())
}

/// The HTTP basic auth header's value (RFC 7617) for `user` and `password`.
fn basic_auth(user: &str, password: &str) -> String {
    use base64::Engine as _;
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!("Basic {token}")
}

impl Client {
    /// A client for the server of `c`.
    ///
    /// # Errors
    /// As [`Client::new`].
    pub fn of(c: &ServerConfig) -> anyhow::Result<Client> {
        Client::new(
            &c.url,
            &c.user,
            &c.password,
            c.ca_file.as_deref(),
            c.timeout,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::Dialect;

    #[test]
    fn credentials_come_out_of_the_url_percent_decoded() {
        assert_eq!(
            split_credentials("http://ann%40shop:p%3Ass@ch.local:8123/?db=x"),
            (
                "http://ch.local:8123/?db=x".to_string(),
                Some(("ann@shop".to_string(), "p:ss".to_string()))
            )
        );
        assert_eq!(
            split_credentials("https://h:8443"),
            ("https://h:8443".to_string(), None)
        );
        // An @ after the authority is no userinfo.
        assert_eq!(split_credentials("http://h/a@b").1, None);
        assert_eq!(
            split_credentials("http://bob@h").1,
            Some(("bob".to_string(), String::new()))
        );
    }

    #[test]
    fn literals_and_credentials() {
        assert_eq!(
            super::super::quote::sql_string(Dialect::Clickhouse, "a'b\\c"),
            "'a\\'b\\\\c'"
        );
        // RFC 7617 §2's example.
        assert_eq!(
            basic_auth("Aladdin", "open sesame"),
            "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
        );
        assert!(
            server_error(401, None, "Code: 193")
                .to_string()
                .contains("refused the credentials")
        );
        assert!(
            !server_error(500, Some("62"), "Code: 62. Syntax error")
                .to_string()
                .contains("credentials")
        );
    }
}

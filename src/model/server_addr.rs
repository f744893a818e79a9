//! Redis server addresses as lines and file names give them, so that a
//! server's evidence (a Sentinel's `+switch-master mymaster 127.0.0.1 27001
//! 127.0.0.1 27002`, the log of `redis-27001`) can be tied to the holds
//! granted by that server (a `redis-cli -p 27001 monitor` capture saved as
//! `monitor-27001.log`, a lock line that says `on 127.0.0.1:27001`).

use std::sync::LazyLock;

use regex::Regex;

/// A server's address: its TCP port, and its host when the text gives one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServerAddr {
    /// The host (`127.0.0.1`, `redis-a.internal`), lower case; `None` when
    /// only a port is known (a file name `monitor-27001.log`).
    pub host: Option<String>,
    /// The TCP port.
    pub port: u16,
}

/// `host:port` (also inside `redis://host:port`) or Sentinel's `ip port`
/// (an IPv4 address, a space, a port): Sentinel writes instances as
/// `<ip> <port>` (`sentinel.c`, `sentinelEvent`'s `%@` format).
static IN_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(\d{1,3}(?:\.\d{1,3}){3})[: ](\d{2,5})\b|\b(localhost|[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+):(\d{2,5})\b",
    )
    .expect("static regex")
});

/// A date inside a file name (`2026-12-06`, `20261206`), skipped before a
/// port is looked for.
static DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d{4}-?\d{2}-?\d{2}").expect("static regex"));

/// An IPv4 address inside a file name (`monitor-10.0.0.5-6379.log`).
static IPV4: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d{1,3}(?:\.\d{1,3}){3}").expect("static regex"));

impl ServerAddr {
    /// True when `self` and `other` can be the same server: the same port,
    /// and the same host when both give one (`localhost` is `127.0.0.1`).
    pub fn same(&self, other: &ServerAddr) -> bool {
        let norm = |h: &str| {
            if h == "localhost" {
                "127.0.0.1".to_string()
            } else {
                h.to_string()
            }
        };
        self.port == other.port
            && match (&self.host, &other.host) {
                (Some(a), Some(b)) => norm(a) == norm(b),
                _ => true,
            }
    }

    /// Every address `text` writes as `host:port` or `ip port`, in order.
    pub fn in_text(text: &str) -> Vec<ServerAddr> {
        IN_TEXT
            .captures_iter(text)
            .filter_map(|c| {
                let (host, port) = match (c.get(1), c.get(2)) {
                    (Some(h), Some(p)) => (h.as_str(), p.as_str()),
                    _ => (c.get(3)?.as_str(), c.get(4)?.as_str()),
                };
                Some(ServerAddr {
                    host: Some(host.to_ascii_lowercase()),
                    port: port.parse().ok().filter(|&p| p > 0)?,
                })
            })
            .collect()
    }

    /// The address a file's name gives: a part of 4 or 5 digits that is a
    /// port (1024 to 65535; a date is skipped), with the IPv4 address beside
    /// it when there is one (`monitor-27001.log`, `redis-6379.log`,
    /// `10.0.0.5_6379.monitor`). `None` when the name has no such part or
    /// more than one.
    pub fn of_file_name(name: &str) -> Option<ServerAddr> {
        let base = std::path::Path::new(name)
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or(name);
        let host = IPV4.find(base).map(|m| m.as_str().to_string());
        let rest = DATE.replace_all(base, "-");
        let rest = IPV4.replace_all(&rest, "-");
        let ports: Vec<u16> = rest
            .split(|c: char| !c.is_ascii_digit())
            .filter(|p| (4..=5).contains(&p.len()))
            .filter_map(|p| p.parse().ok())
            .filter(|&p| p >= 1024)
            .collect();
        match ports[..] {
            [port] => Some(ServerAddr { host, port }),
            _ => None,
        }
    }
}

impl std::fmt::Display for ServerAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.host {
            Some(h) => write!(f, "{h}:{}", self.port),
            None => write!(f, "port {}", self.port),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ServerAddr;

    fn a(host: Option<&str>, port: u16) -> ServerAddr {
        ServerAddr {
            host: host.map(str::to_string),
            port,
        }
    }

    #[test]
    fn sentinel_and_colon_forms_are_read_in_order() {
        assert_eq!(
            ServerAddr::in_text("+switch-master mymaster 127.0.0.1 27001 127.0.0.1 27002"),
            vec![a(Some("127.0.0.1"), 27001), a(Some("127.0.0.1"), 27002)]
        );
        assert_eq!(
            ServerAddr::in_text("lock taken on redis://Redis-A.internal:6380 (db 0)"),
            vec![a(Some("redis-a.internal"), 6380)]
        );
        assert!(ServerAddr::in_text("took 27001 ms at 12:30:45").is_empty());
    }

    #[test]
    fn a_file_name_gives_one_port_and_its_ip() {
        assert_eq!(
            ServerAddr::of_file_name("caps/monitor-27001.log"),
            Some(a(None, 27001))
        );
        assert_eq!(
            ServerAddr::of_file_name("10.0.0.5_6379.monitor"),
            Some(a(Some("10.0.0.5"), 6379))
        );
        assert_eq!(
            ServerAddr::of_file_name("monitor-2026-12-06-6379.log"),
            Some(a(None, 6379))
        );
        assert_eq!(ServerAddr::of_file_name("monitor.log"), None);
        assert_eq!(ServerAddr::of_file_name("monitor-6379-6380.log"), None);
        assert_eq!(ServerAddr::of_file_name("node-42.log"), None);
    }

    #[test]
    fn same_compares_hosts_only_when_both_are_known() {
        assert!(a(None, 27001).same(&a(Some("127.0.0.1"), 27001)));
        assert!(a(Some("localhost"), 6379).same(&a(Some("127.0.0.1"), 6379)));
        assert!(!a(Some("10.0.0.1"), 6379).same(&a(Some("10.0.0.2"), 6379)));
        assert!(!a(None, 27001).same(&a(None, 27002)));
    }
}

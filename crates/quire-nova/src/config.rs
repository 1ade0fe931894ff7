//! Which client the nova tools use and how the HTTP one reaches the Task
//! Manager, read from the environment (`USE_MOCK_CLIENT`,
//! `TASK_MANAGER_HOST`, `TASK_MANAGER_PORT`, `TASK_MANAGER_TIMEOUT`).

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;
use std::time::Duration;

use super::client::TaskManagerClient;
use super::error::NovaError;
use super::http::HttpClient;
use super::mock::MockClient;

/// Where and how patiently [`HttpClient`] asks the Task Manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpConfig {
    /// The Task Manager's host name or IP address (`localhost`).
    pub host: String,
    /// Its port (8080).
    pub port: u16,
    /// How long one request may take, connecting included (30 s).
    pub timeout: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            host: "localhost".to_owned(),
            port: 8080,
            timeout: Duration::from_secs(30),
        }
    }
}

impl HttpConfig {
    /// `http://host:port`, an IPv6 address in brackets.
    pub fn base_url(&self) -> String {
        if self.host.contains(':') && !self.host.starts_with('[') {
            format!("http://[{}]:{}", self.host, self.port)
        } else {
            format!("http://{}:{}", self.host, self.port)
        }
    }
}

/// The nova tools' client, as the environment chooses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientConfig {
    /// `USE_MOCK_CLIENT=true`: the in-memory Task Manager
    /// ([`ClientKind::Mock`](super::ClientKind::Mock)).
    pub use_mock: bool,
    /// How the HTTP client reaches the Task Manager (read, and checked,
    /// even when the mock is chosen, so a typo shows before it matters).
    pub http: HttpConfig,
}

impl ClientConfig {
    /// The configuration the variables give, read through `lookup` (a
    /// variable's value, or `None` when unset): `USE_MOCK_CLIENT` (`true`
    /// or `false`, any case; unset is `false`), `TASK_MANAGER_HOST`
    /// (`localhost`), `TASK_MANAGER_PORT` (8080), `TASK_MANAGER_TIMEOUT` (in
    /// seconds, 30). A variable set to an empty value counts as unset; a
    /// value that cannot be used is a [`NovaError::Config`] naming it.
    ///
    /// ```
    /// use std::time::Duration;
    /// use quire_nova::ClientConfig;
    ///
    /// let config = ClientConfig::from_env(|name| match name {
    ///     "TASK_MANAGER_PORT" => Some("9000".to_owned()),
    ///     "TASK_MANAGER_TIMEOUT" => Some("2.5".to_owned()),
    ///     _ => None,
    /// })?;
    /// assert!(!config.use_mock);
    /// assert_eq!(config.http.base_url(), "http://localhost:9000");
    /// assert_eq!(config.http.timeout, Duration::from_millis(2500));
    /// # Ok::<(), quire_nova::NovaError>(())
    /// ```
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<ClientConfig, NovaError> {
        let read = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        let defaults = HttpConfig::default();
        let use_mock = match read("USE_MOCK_CLIENT") {
            None => false,
            Some(value) => parse_switch(&value)?,
        };
        let host = match read("TASK_MANAGER_HOST") {
            None => defaults.host,
            Some(value) => parse_host(value)?,
        };
        let port = match read("TASK_MANAGER_PORT") {
            None => defaults.port,
            Some(value) => parse_port(&value)?,
        };
        let timeout = match read("TASK_MANAGER_TIMEOUT") {
            None => defaults.timeout,
            Some(value) => parse_timeout(&value)?,
        };
        Ok(ClientConfig {
            use_mock,
            http: HttpConfig {
                host,
                port,
                timeout,
            },
        })
    }

    /// [`ClientConfig::from_env`] over this process's environment.
    pub fn from_process_env() -> Result<ClientConfig, NovaError> {
        ClientConfig::from_env(|name| std::env::var(name).ok())
    }

    /// The client this configuration chooses.
    pub fn client(&self) -> Result<Arc<dyn TaskManagerClient>, NovaError> {
        Ok(if self.use_mock {
            Arc::new(MockClient::new())
        } else {
            Arc::new(HttpClient::new(&self.http)?)
        })
    }
}

fn parse_switch(value: &str) -> Result<bool, NovaError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(NovaError::Config {
            variable: "USE_MOCK_CLIENT",
            value: value.to_owned(),
            expected: "set it to `true` (the in-memory mock) or `false` (the Task Manager over HTTP), or leave it unset",
        }),
    }
}

fn parse_host(value: String) -> Result<String, NovaError> {
    let host = value.trim();
    if is_host(host) {
        Ok(host.to_owned())
    } else {
        Err(not_a_host(value))
    }
}

/// [`NovaError::Config`] naming `TASK_MANAGER_HOST` unless `host` is a host
/// name or an IP address: for an [`HttpConfig`] made in code rather than
/// read from the environment.
pub(crate) fn check_host(host: &str) -> Result<(), NovaError> {
    if is_host(host) {
        Ok(())
    } else {
        Err(not_a_host(host.to_owned()))
    }
}

fn not_a_host(value: String) -> NovaError {
    NovaError::Config {
        variable: "TASK_MANAGER_HOST",
        value,
        expected: "write a host name (letters, digits, `-` and `_` in labels joined by dots: `localhost`, `tm.internal`) or an IP address (`10.0.0.5`, `::1`) and nothing else: no scheme, port, path, `\\`, `%` or spaces; the port goes in TASK_MANAGER_PORT",
    }
}

/// Whether `host` is an IP address (IPv6 with or without brackets) or a
/// host name, alone. Anything else would put more than a host into
/// `http://host:port`: the URL parser reads `\` as `/`, so
/// `127.0.0.1\` was `http://127.0.0.1/:8080` (port 80), and `%2f` is
/// decoded into a host no resolver knows.
fn is_host(host: &str) -> bool {
    if let Some(inner) = host
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    {
        return inner.parse::<Ipv6Addr>().is_ok();
    }
    host.parse::<Ipv4Addr>().is_ok() || host.parse::<Ipv6Addr>().is_ok() || is_host_name(host)
}

/// RFC 1123 labels (letters, digits and inner hyphens, 1 to 63 each, 253 in
/// all, an optional final dot), with `_` allowed too: Docker Compose
/// service names use it (`task_manager`), resolvers accept it, and it
/// means nothing in a URL. A name whose last label is a number is
/// refused: URL parsers read it as an IPv4 address in another notation
/// (`1.2.3` is 1.2.0.3, `0x7f.1` is 127.0.0.1), so it would not be the
/// host written; an address must be written in full (`127.0.0.1`).
fn is_host_name(host: &str) -> bool {
    let name = host.strip_suffix('.').unwrap_or(host);
    if name.is_empty() || name.len() > 253 {
        return false;
    }
    let label_ok = |label: &str| {
        (1..=63).contains(&label.len())
            && label
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_'))
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    let numeric = |label: &str| {
        let hex = label
            .strip_prefix("0x")
            .or_else(|| label.strip_prefix("0X"));
        match hex {
            Some(digits) => digits.bytes().all(|byte| byte.is_ascii_hexdigit()),
            None => label.bytes().all(|byte| byte.is_ascii_digit()),
        }
    };
    name.split('.').all(label_ok) && !name.rsplit('.').next().is_some_and(numeric)
}

fn parse_port(value: &str) -> Result<u16, NovaError> {
    match value.trim().parse::<u16>() {
        Ok(port) if port > 0 => Ok(port),
        _ => Err(NovaError::Config {
            variable: "TASK_MANAGER_PORT",
            value: value.to_owned(),
            expected: "a port number from 1 to 65535 (8080 when unset)",
        }),
    }
}

/// Seconds, whole or not; at most a day, which is more than any request
/// to the Task Manager should take.
fn parse_timeout(value: &str) -> Result<Duration, NovaError> {
    const DAY: f64 = 86_400.0;
    match value.trim().parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds <= DAY => Ok(Duration::from_secs_f64(seconds)),
        _ => Err(NovaError::Config {
            variable: "TASK_MANAGER_TIMEOUT",
            value: value.to_owned(),
            expected: "a number of seconds greater than 0 and at most 86400 (30 when unset)",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClientKind;

    fn config(vars: &[(&str, &str)]) -> Result<ClientConfig, NovaError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        ClientConfig::from_env(move |name| {
            vars.iter()
                .find(|(variable, _)| variable == name)
                .map(|(_, value)| value.clone())
        })
    }

    fn refused(vars: &[(&str, &str)]) -> (&'static str, String) {
        match config(vars) {
            Err(NovaError::Config {
                variable, expected, ..
            }) => (variable, expected.to_owned()),
            other => panic!("{vars:?} gave {other:?}"),
        }
    }

    #[test]
    fn unset_variables_give_the_defaults_and_the_http_client() {
        let defaults = config(&[]).unwrap();
        assert_eq!(
            defaults,
            ClientConfig {
                use_mock: false,
                http: HttpConfig {
                    host: "localhost".into(),
                    port: 8080,
                    timeout: Duration::from_secs(30),
                },
            }
        );
        assert_eq!(defaults.http.base_url(), "http://localhost:8080");
        assert_eq!(config(&[("TASK_MANAGER_PORT", "")]).unwrap(), defaults);
        assert_eq!(config(&[("USE_MOCK_CLIENT", "false")]).unwrap(), defaults);
        assert_eq!(defaults.client().unwrap().kind(), ClientKind::Http);
    }

    #[test]
    fn use_mock_client_true_chooses_the_mock() {
        for value in ["true", "TRUE", " True "] {
            let chosen = config(&[("USE_MOCK_CLIENT", value)]).unwrap();
            assert!(chosen.use_mock, "{value}");
            assert_eq!(chosen.client().unwrap().kind(), ClientKind::Mock);
        }
        for value in ["1", "yes", "on", "tru"] {
            let (variable, expected) = refused(&[("USE_MOCK_CLIENT", value)]);
            assert_eq!(variable, "USE_MOCK_CLIENT");
            assert!(expected.contains("`true`"), "{expected}");
        }
    }

    /// Only a host name or an IP address is a host: anything else would
    /// make `http://host:port` name another place (`127.0.0.1\` was
    /// `http://127.0.0.1/:8080`, port 80).
    #[test]
    fn a_host_is_a_host_name_or_an_ip_address_alone() {
        for host in [
            "localhost",
            "LOCALHOST",
            "tm.internal",
            "tm.internal.",
            "task_manager",
            "a-b.c9",
            "9tm.example",
            "127.0.0.1",
            "::1",
            "[::1]",
            &"a".repeat(63),
        ] {
            let chosen = config(&[("TASK_MANAGER_HOST", host)])
                .unwrap_or_else(|error| panic!("{host}: {error}"));
            // What was accepted is the URL's host, unchanged but for case
            // and IPv6 brackets.
            let url = url::Url::parse(&chosen.http.base_url()).unwrap();
            assert_eq!(
                url.host_str().unwrap().trim_matches(['[', ']']),
                host.to_ascii_lowercase().trim_matches(['[', ']']),
                "{host}"
            );
            assert_eq!(url.port(), Some(8080), "{host}");
        }
        for host in [
            r"127.0.0.1\",
            r"tm\x",
            "h%2f",
            "tm/",
            "tm?x",
            "tm#x",
            "tm;x",
            "tm\u{0}",
            "tm x",
            "user@tm",
            "tm:8080",
            "http://tm",
            "[tm]",
            "[::1",
            "fe80::1%eth0",
            "-tm",
            "tm-",
            "tm..internal",
            ".tm",
            "..",
            "täsk.example",
            "1.2.3",
            "01.2.3.4",
            "10.0.0.256",
            "0x7f.1",
            "tm.0x1F",
            "4294967295",
            &"a".repeat(64),
            &["a"; 130].join("."),
        ] {
            let (variable, expected) = refused(&[("TASK_MANAGER_HOST", host)]);
            assert_eq!(variable, "TASK_MANAGER_HOST", "{host}");
            assert!(expected.contains("host name") && expected.contains("IP address"));
        }
        let error = config(&[("TASK_MANAGER_HOST", r"127.0.0.1\")]).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with(r"TASK_MANAGER_HOST is `127.0.0.1\`: write a host name"),
            "{error}"
        );
    }

    #[test]
    fn host_port_and_timeout_are_read_and_checked() {
        let chosen = config(&[
            ("TASK_MANAGER_HOST", "tm.internal"),
            ("TASK_MANAGER_PORT", "9000"),
            ("TASK_MANAGER_TIMEOUT", "0.25"),
        ])
        .unwrap();
        assert_eq!(chosen.http.base_url(), "http://tm.internal:9000");
        assert_eq!(chosen.http.timeout, Duration::from_millis(250));
        let ipv6 = config(&[("TASK_MANAGER_HOST", "::1")]).unwrap();
        assert_eq!(ipv6.http.base_url(), "http://[::1]:8080");

        for port in ["0", "65536", "-1", "80a", "http"] {
            assert_eq!(
                refused(&[("TASK_MANAGER_PORT", port)]).0,
                "TASK_MANAGER_PORT"
            );
        }
        for timeout in ["0", "-3", "abc", "NaN", "inf", "1e9", "30s"] {
            assert_eq!(
                refused(&[("TASK_MANAGER_TIMEOUT", timeout)]).0,
                "TASK_MANAGER_TIMEOUT",
                "{timeout}"
            );
        }
        for host in ["http://tm", "tm:8080", "tm:8080/api", "tm host", "user@tm"] {
            assert_eq!(
                refused(&[("TASK_MANAGER_HOST", host)]).0,
                "TASK_MANAGER_HOST"
            );
        }
        // The HTTP settings are checked even when the mock is chosen.
        assert_eq!(
            refused(&[("USE_MOCK_CLIENT", "true"), ("TASK_MANAGER_HOST", "h%2f")]).0,
            "TASK_MANAGER_HOST"
        );
        assert_eq!(
            refused(&[("USE_MOCK_CLIENT", "true"), ("TASK_MANAGER_PORT", "x")]).0,
            "TASK_MANAGER_PORT"
        );
    }
}

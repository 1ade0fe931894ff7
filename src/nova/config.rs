//! Which client the nova tools use and how the HTTP one reaches the Task
//! Manager, read from the environment (`USE_MOCK_CLIENT`,
//! `TASK_MANAGER_HOST`, `TASK_MANAGER_PORT`, `TASK_MANAGER_TIMEOUT`).

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
    /// `USE_MOCK_CLIENT=true`: the in-memory [`MockClient`].
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
    /// use quire::nova::ClientConfig;
    ///
    /// let config = ClientConfig::from_env(|name| match name {
    ///     "TASK_MANAGER_PORT" => Some("9000".to_owned()),
    ///     "TASK_MANAGER_TIMEOUT" => Some("2.5".to_owned()),
    ///     _ => None,
    /// })?;
    /// assert!(!config.use_mock);
    /// assert_eq!(config.http.base_url(), "http://localhost:9000");
    /// assert_eq!(config.http.timeout, Duration::from_millis(2500));
    /// # Ok::<(), quire::nova::NovaError>(())
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
    // A colon belongs only in an IPv6 address (`::1`, `[::1]`); `tm:8080`
    // is a port in the wrong variable.
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let colon_ok = !host.contains(':') || bare.parse::<std::net::Ipv6Addr>().is_ok();
    let usable = colon_ok
        && !host
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '/' | '?' | '#' | '@'));
    if usable {
        Ok(host.to_owned())
    } else {
        Err(NovaError::Config {
            variable: "TASK_MANAGER_HOST",
            value,
            expected: "a host name or IP address alone (`localhost`, `10.0.0.5`), without scheme, port or path; the port goes in TASK_MANAGER_PORT",
        })
    }
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
    use crate::nova::ClientKind;

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
            refused(&[("USE_MOCK_CLIENT", "true"), ("TASK_MANAGER_PORT", "x")]).0,
            "TASK_MANAGER_PORT"
        );
    }
}

//! What a server is: its validated name, how to reach it, its timeouts and tool filters.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use url::Url;

use crate::error::ConfigError;

/// A server's name as the user wrote it: `[A-Za-z0-9_-]{1,64}`, so it can sit inside a tool name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ServerName(String);

impl ServerName {
    /// Longest name accepted (tool names built from it stay under providers' 64-128 limits).
    pub const MAX_LEN: usize = 64;

    /// Checks `name` against `[A-Za-z0-9_-]{1,64}`.
    pub fn new(name: impl Into<String>) -> Result<Self, ConfigError> {
        let name = name.into();
        let valid = !name.is_empty()
            && name.len() <= Self::MAX_LEN
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if valid {
            Ok(Self(name))
        } else {
            Err(ConfigError::BadName {
                name: name.escape_debug().to_string(),
            })
        }
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ServerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A credential that must never be printed: `Debug` shows only that one is set.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value read from the environment variable the config names.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value, for the one place that sends it (the `Authorization` header).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// How the client reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP: https anywhere, plain http only to a loopback address.
    Http {
        url: Url,
        headers: BTreeMap<String, String>,
        bearer_token: Option<Secret>,
    },
}

impl Transport {
    /// Refuses what the client will not connect to: an empty command, a URL that is neither
    /// https nor loopback http, header names or values HTTP cannot carry.
    pub fn check(&self) -> Result<(), ConfigError> {
        match self {
            Transport::Stdio { command, .. } => {
                if command.trim().is_empty() {
                    return Err(ConfigError::EmptyCommand);
                }
                Ok(())
            }
            Transport::Http { url, headers, .. } => {
                check_url(url)?;
                for (name, value) in headers {
                    if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
                        return Err(ConfigError::BadHeader {
                            name: name.escape_debug().to_string(),
                            why: "not a valid HTTP header name",
                        });
                    }
                    if reqwest::header::HeaderValue::from_str(value).is_err() {
                        return Err(ConfigError::BadHeader {
                            name: name.clone(),
                            why: "its value has characters HTTP headers cannot carry",
                        });
                    }
                }
                Ok(())
            }
        }
    }
}

/// https anywhere; http only when the host is a loopback address or `localhost`, because a
/// bearer token or tool arguments in clear text must not cross a network.
pub fn check_url(url: &Url) -> Result<(), ConfigError> {
    match url.scheme() {
        "https" => Ok(()),
        "http" => {
            let loopback = match url.host() {
                Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
                Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
                Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
                None => false,
            };
            if loopback {
                Ok(())
            } else {
                Err(ConfigError::InsecureUrl {
                    url: url.as_str().to_string(),
                })
            }
        }
        other => Err(ConfigError::UnsupportedScheme {
            scheme: other.to_string(),
        }),
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    pub name: ServerName,
    pub transport: Transport,
    pub enabled: bool,
    /// Bound on `initialize` plus the first `tools/list`.
    pub startup_timeout: Duration,
    /// Bound on one `tools/call`; past it the call is cancelled and ends with `Timeout`.
    pub tool_timeout: Duration,
    /// When set, only these tools are offered.
    pub enabled_tools: Option<Vec<String>>,
    /// Never offered, even when listed in `enabled_tools`.
    pub disabled_tools: Vec<String>,
}

impl ServerConfig {
    /// The startup bound when the config names none.
    pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);
    /// The call bound when the config names none.
    pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);

    /// An enabled server with the default timeouts and no tool filter.
    pub fn new(name: ServerName, transport: Transport) -> Self {
        Self {
            name,
            transport,
            enabled: true,
            startup_timeout: Self::DEFAULT_STARTUP_TIMEOUT,
            tool_timeout: Self::DEFAULT_TOOL_TIMEOUT,
            enabled_tools: None,
            disabled_tools: Vec::new(),
        }
    }

    /// Whether the filters let tool `name` through.
    pub fn offers(&self, name: &str) -> bool {
        let enabled = self
            .enabled_tools
            .as_ref()
            .is_none_or(|list| list.iter().any(|t| t == name));
        enabled && !self.disabled_tools.iter().any(|t| t == name)
    }
}

/// What a stdio server's process gets: ansa passes a scrubbed base environment (PATH, HOME, LANG,
/// TERM…, never ansa's withheld secrets) plus the server's own `env`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChildEnv {
    pub base: Vec<(OsString, OsString)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_the_alphabet_or_too_long_are_refused() {
        assert!(ServerName::new("fs_1-a").is_ok());
        assert!(ServerName::new("").is_err());
        assert!(ServerName::new("a b").is_err());
        assert!(ServerName::new("a/b").is_err());
        assert!(ServerName::new("é").is_err());
        assert!(ServerName::new("x".repeat(64)).is_ok());
        assert!(ServerName::new("x".repeat(65)).is_err());
    }

    #[test]
    fn http_is_accepted_only_on_loopback() -> Result<(), url::ParseError> {
        assert!(check_url(&Url::parse("https://example.com/mcp")?).is_ok());
        assert!(check_url(&Url::parse("http://127.0.0.1:3000/mcp")?).is_ok());
        assert!(check_url(&Url::parse("http://127.9.0.1/mcp")?).is_ok());
        assert!(check_url(&Url::parse("http://[::1]:8080/mcp")?).is_ok());
        assert!(check_url(&Url::parse("http://localhost/mcp")?).is_ok());
        let refused = check_url(&Url::parse("http://example.com/mcp")?);
        assert!(
            matches!(&refused, Err(ConfigError::InsecureUrl { url }) if url.contains("example.com")),
            "{refused:?}"
        );
        assert!(check_url(&Url::parse("http://10.0.0.1/mcp")?).is_err());
        assert!(check_url(&Url::parse("http://localhost.evil.com/mcp")?).is_err());
        assert!(check_url(&Url::parse("ftp://localhost/mcp")?).is_err());
        Ok(())
    }

    #[test]
    fn secrets_never_show_in_debug_output() -> Result<(), url::ParseError> {
        let transport = Transport::Http {
            url: Url::parse("https://example.com")?,
            headers: BTreeMap::new(),
            bearer_token: Some(Secret::new("sk-very-secret")),
        };
        assert!(!format!("{transport:?}").contains("very-secret"));
        Ok(())
    }

    #[test]
    fn enabled_and_disabled_filters_combine() -> Result<(), ConfigError> {
        let mut config = ServerConfig::new(
            ServerName::new("s")?,
            Transport::Stdio {
                command: "x".into(),
                args: vec![],
                env: BTreeMap::new(),
                cwd: None,
            },
        );
        assert!(config.offers("echo"));
        config.enabled_tools = Some(vec!["echo".into(), "add".into()]);
        config.disabled_tools = vec!["add".into()];
        assert!(config.offers("echo"));
        assert!(!config.offers("add"));
        assert!(!config.offers("other"));
        Ok(())
    }
}

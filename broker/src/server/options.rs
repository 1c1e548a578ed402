//! What a broker is started with, checked before anything is opened.

use std::path::PathBuf;
use std::time::Duration;

use super::BrokerError;

/// The provider origin a broker forwards to: `https://host[:port]`, nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    host: String,
    port: u16,
}

impl Upstream {
    /// Parses the provider's base URL (a path after the origin is allowed and ignored: the
    /// broker checks origins, the client builds paths).
    pub fn parse(given: &str) -> Result<Upstream, BrokerError> {
        let err = |reason| BrokerError::Upstream {
            given: given.chars().take(200).collect(),
            reason,
        };
        let url = reqwest::Url::parse(given).map_err(|_| err("not a URL"))?;
        if url.scheme() != "https" {
            return Err(err("only https:// providers are brokered"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(err("a URL with credentials is refused"));
        }
        let host = url.host_str().ok_or_else(|| err("the URL has no host"))?;
        let port = url.port_or_known_default().unwrap_or(443);
        Ok(Upstream {
            host: host.to_ascii_lowercase(),
            port,
        })
    }

    /// Whether `url` is an `https://` URL on this origin, without credentials.
    pub fn admits(&self, url: &reqwest::Url) -> bool {
        url.scheme() == "https"
            && url.username().is_empty()
            && url.password().is_none()
            && url
                .host_str()
                .is_some_and(|h| h.eq_ignore_ascii_case(&self.host))
            && url.port_or_known_default() == Some(self.port)
    }

    /// `host:port`, for messages.
    pub fn origin(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }
}

/// A broker's settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// The socket to listen on (inside a 0700 directory).
    pub socket: PathBuf,
    /// The interactive shell the broker belongs to.
    pub parent_pid: u32,
    /// The lease file refreshed by every routed request.
    pub lease: PathBuf,
    /// The only provider origin forwarded to.
    pub upstream: Upstream,
    /// Exit after this long without a request.
    pub idle: Duration,
    /// How often the parent shell is looked for.
    pub check: Duration,
    /// Most idle connections kept per host.
    pub pool: usize,
    /// Extra PEM roots (`AI_CA_FILE`), as for `ansa`.
    pub ca_file: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_origins_without_credentials_are_brokered() {
        assert!(Upstream::parse("http://api.example.test/v1").is_err());
        assert!(Upstream::parse("https://user:pw@api.example.test").is_err());
        assert!(Upstream::parse("not a url").is_err());
        let up = Upstream::parse("https://API.example.test/v1").unwrap_or_else(|e| panic!("{e}"));
        let url = |s: &str| reqwest::Url::parse(s).unwrap_or_else(|e| panic!("{e}"));
        assert!(up.admits(&url("https://api.example.test/v1/responses")));
        assert!(up.admits(&url("https://api.example.test:443/v1/models")));
        assert!(!up.admits(&url("https://api.example.test:8443/v1/responses")));
        assert!(!up.admits(&url("https://evil.example.test/v1/responses")));
        assert!(!up.admits(&url("http://api.example.test/v1/responses")));
        assert!(!up.admits(&url("https://x@api.example.test/v1/responses")));
    }
}

//! Provider base URLs: `https://` anywhere, plain `http://` only for loopback hosts.
//!
//! Deliberately narrow: no user info, query or fragment, so a base URL can only ever name a host,
//! a port and a path prefix to which the adapter appends `/responses` or `/chat/completions`.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

/// The default base URL of the `responses` provider.
pub const DEFAULT_RESPONSES_BASE_URL: &str = "https://api.openai.com/v1";

/// A validated, normalised provider base URL (lower-case scheme and host, no trailing `/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    url: String,
    tls: bool,
}

impl Endpoint {
    /// Validates and normalises `raw`; the error says what is wrong.
    pub fn parse(raw: &str) -> Result<Self, String> {
        if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!("{raw:?} contains whitespace or control characters"));
        }
        let (scheme, rest) = raw
            .split_once("://")
            .ok_or_else(|| format!("{raw:?} is not an absolute http(s) URL"))?;
        let tls = match scheme.to_ascii_lowercase().as_str() {
            "https" => true,
            "http" => false,
            other => return Err(format!("scheme {other:?} is not supported; use https://")),
        };
        if rest.contains(['?', '#']) {
            return Err(format!("{raw:?} must not have a query or a fragment"));
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        if authority.contains('@') {
            return Err(format!(
                "{raw:?} must not carry credentials; use the API key instead"
            ));
        }
        let (host, loopback) = parse_authority(authority).map_err(|e| format!("{raw:?}: {e}"))?;
        if !tls && !loopback {
            return Err(format!(
                "{raw:?}: plain http:// is accepted only for loopback hosts (localhost, 127.0.0.0/8, [::1]); use https://"
            ));
        }
        let scheme = if tls { "https" } else { "http" };
        let url = format!("{scheme}://{host}{}", path.trim_end_matches('/'));
        Ok(Endpoint { url, tls })
    }

    /// The normalised URL.
    pub fn as_str(&self) -> &str {
        &self.url
    }

    /// Whether the endpoint uses TLS (false only for loopback hosts).
    pub fn is_tls(&self) -> bool {
        self.tls
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url)
    }
}

/// Returns the normalised `host[:port]` and whether the host is loopback.
fn parse_authority(authority: &str) -> Result<(String, bool), String> {
    let (host, port) = if let Some(inner) = authority.strip_prefix('[') {
        let (addr, after) = inner.split_once(']').ok_or("unterminated IPv6 literal")?;
        let ip: Ipv6Addr = addr
            .parse()
            .map_err(|_| format!("bad IPv6 address {addr:?}"))?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or("junk after the IPv6 literal")?),
        };
        (format!("[{ip}]"), port)
    } else {
        match authority.split_once(':') {
            Some((h, p)) => (h.to_ascii_lowercase(), Some(p)),
            None => (authority.to_ascii_lowercase(), None),
        }
    };
    if host.is_empty() {
        return Err("missing host".into());
    }
    if !host.starts_with('[')
        && !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
    {
        return Err(format!("bad host name {host:?}"));
    }
    let port = match port {
        None => String::new(),
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 && p.bytes().all(|b| b.is_ascii_digit()) => format!(":{n}"),
            _ => return Err(format!("bad port {p:?}")),
        },
    };
    let loopback = is_loopback(&host);
    Ok((format!("{host}{port}"), loopback))
}

fn is_loopback(host: &str) -> bool {
    if host == "localhost" {
        return true;
    }
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback());
    }
    host.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_and_normalises() {
        let e = Endpoint::parse("HTTPS://API.example.com/v1/").unwrap();
        assert_eq!(e.as_str(), "https://api.example.com/v1");
        assert!(e.is_tls());
        for ok in [
            "http://localhost:11434/v1",
            "http://127.0.0.1:8080",
            "http://127.9.9.9/x",
            "http://[::1]:1/v1",
        ] {
            let e = Endpoint::parse(ok).unwrap();
            assert!(!e.is_tls(), "{ok}");
        }
    }

    #[test]
    fn refuses_plain_http_elsewhere_and_odd_urls() {
        for bad in [
            "http://example.com/v1",
            "http://10.0.0.1/v1",
            "http://[::2]/v1",
            "http://localhost.evil.com/",
            "ftp://x/",
            "api.openai.com/v1",
            "https://user:pw@host/",
            "https://host/?q=1",
            "https://host/#f",
            "https://host:0/",
            "https://host:99999/",
            "https:///v1",
            "https://ho st/",
            "https://host:+80/",
        ] {
            assert!(Endpoint::parse(bad).is_err(), "{bad}");
        }
        let msg = Endpoint::parse("http://example.com").unwrap_err();
        assert!(msg.contains("loopback"), "{msg}");
    }
}

//! Which URLs the client talks to: `https://` anywhere, plain `http://` only to loopback hosts,
//! never with credentials, a query or a fragment in the base URL.

use std::net::{Ipv4Addr, Ipv6Addr};

use reqwest::Url;

use super::HttpError;

/// A validated base URL; request paths are appended to it.
#[derive(Debug, Clone)]
pub(crate) struct Base {
    /// Normalised, without a trailing `/`.
    prefix: String,
    loopback: bool,
}

impl Base {
    /// Validates `raw`.
    pub(crate) fn parse(raw: &str) -> Result<Self, HttpError> {
        let bad = |reason: &str| HttpError::BadUrl {
            url: sanitize(raw),
            reason: reason.to_string(),
        };
        let url = Url::parse(raw).map_err(|e| bad(&e.to_string()))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("must not carry credentials; use the API key instead"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(bad("must not have a query or a fragment"));
        }
        let loopback = is_loopback(&url);
        match url.scheme() {
            "https" => {}
            "http" if loopback => {}
            "http" => {
                return Err(HttpError::InsecureUrl { url: sanitize(raw) });
            }
            other => return Err(bad(&format!("scheme {other:?} is not supported"))),
        }
        if url.host().is_none() {
            return Err(bad("missing host"));
        }
        let prefix = url.as_str().trim_end_matches('/').to_string();
        Ok(Base { prefix, loopback })
    }

    /// Whether the host is loopback (no proxy is ever used for it).
    pub(crate) fn is_loopback(&self) -> bool {
        self.loopback
    }

    /// The base URL.
    pub(crate) fn as_str(&self) -> &str {
        &self.prefix
    }

    /// The URL of `path` (which starts with `/`) below the base.
    pub(crate) fn join(&self, path: &str) -> Result<Url, HttpError> {
        let full = format!("{}{path}", self.prefix);
        let bad = |reason: &str| HttpError::BadUrl {
            url: sanitize(&full),
            reason: reason.to_string(),
        };
        if !path.starts_with('/') || path.contains(['?', '#']) || path.contains("//") {
            return Err(bad(
                "request path must start with / and have no query or fragment",
            ));
        }
        let url = Url::parse(&full).map_err(|e| bad(&e.to_string()))?;
        if !url.as_str().starts_with(&self.prefix) {
            return Err(bad("request path leaves the base URL"));
        }
        Ok(url)
    }
}

/// `url` without user info, query or fragment, for messages.
pub(crate) fn sanitize(raw: &str) -> String {
    let Ok(mut url) = Url::parse(raw) else {
        let cut = raw.find(['?', '#', '@']).unwrap_or(raw.len());
        return clip(&raw[..cut]);
    };
    // Setting these cannot fail on a URL with a host; ignore the cases where it can.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    clip(url.as_str())
}

fn clip(s: &str) -> String {
    const MAX: usize = 200;
    let clean: String = s.chars().filter(|c| !c.is_control()).collect();
    match clean.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &clean[..i]),
        None => clean,
    }
}

/// Whether the URL's host is `localhost`, in 127.0.0.0/8 or `::1`.
fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback());
    }
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_http_only() {
        for ok in [
            "https://api.openai.com/v1",
            "http://localhost:11434/v1",
            "http://127.0.0.1:8080",
            "http://127.9.9.9/x",
            "http://[::1]:1/v1",
            "HTTP://LOCALHOST/v1/",
        ] {
            assert!(Base::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://example.com/v1",
            "http://10.0.0.1/v1",
            "http://[::2]/v1",
            "http://localhost.evil.com/",
            "http://0.0.0.0/",
        ] {
            assert!(
                matches!(Base::parse(bad), Err(HttpError::InsecureUrl { .. })),
                "{bad}"
            );
        }
        for bad in [
            "ftp://x/",
            "api.openai.com/v1",
            "https://user:pw@host/",
            "https://host/?q=1",
            "https://host/#f",
        ] {
            assert!(
                matches!(Base::parse(bad), Err(HttpError::BadUrl { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn credentials_never_shown() {
        let err = Base::parse("https://user:hunter2@host/v1?key=sk-secret").unwrap_err();
        let text = err.to_string();
        assert!(
            !text.contains("hunter2") && !text.contains("sk-secret"),
            "{text}"
        );
        assert_eq!(sanitize("https://u:p@h/x?k=v#f"), "https://h/x");
    }

    #[test]
    fn join_stays_below_the_base() {
        let base = Base::parse("https://h/v1/").unwrap();
        assert_eq!(
            base.join("/responses").unwrap().as_str(),
            "https://h/v1/responses"
        );
        for bad in ["responses", "/x?y", "//evil.com/x", "/a#b"] {
            assert!(base.join(bad).is_err(), "{bad}");
        }
    }
}

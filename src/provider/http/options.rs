//! What a caller chooses: client-wide options, per-request limits and headers.

use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};

use super::{HttpError, RetryPolicy};
use crate::config::Secret;

/// Client-wide settings, fixed at construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientOptions {
    /// Extra PEM roots trusted besides the system's (`AI_CA_FILE`).
    pub ca_file: Option<PathBuf>,
    /// Bound on establishing the TCP connection and the TLS session.
    pub connect_timeout: Duration,
    /// When and how long to wait before trying a failed request again.
    pub retry: RetryPolicy,
    /// Seed of the backoff jitter; `None` seeds it from the clock (tests pass a fixed seed).
    pub jitter_seed: Option<u64>,
    /// The shell's broker, when `ASH_BROKER_SOCKET`/`ASH_BROKER_TOKEN` name one: requests go
    /// through it while it answers.
    pub broker: Option<ash_broker::client::Route>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            ca_file: None,
            connect_timeout: Duration::from_secs(15),
            retry: RetryPolicy::default(),
            jitter_seed: None,
            broker: None,
        }
    }
}

/// Bounds of one request attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// From sending the request to receiving the response headers.
    pub response_timeout: Duration,
    /// Longest silence between two chunks of the body (slow-loris bound).
    pub idle_timeout: Duration,
    /// Whole attempt, from sending the request to the end of the body.
    pub total_timeout: Duration,
    /// Largest successful response body, in bytes.
    pub max_body_bytes: u64,
    /// How much of an error response body is read to explain the error.
    pub max_error_body_bytes: u64,
}

impl Limits {
    /// Defaults for a streamed model turn: long pauses are normal while a model reasons.
    pub fn streaming() -> Self {
        Limits {
            response_timeout: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(300),
            total_timeout: Duration::from_secs(30 * 60),
            max_body_bytes: 64 * 1024 * 1024,
            max_error_body_bytes: 64 * 1024,
        }
    }

    /// Defaults for a small JSON document such as `GET /models`.
    pub fn json() -> Self {
        Limits {
            response_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30),
            total_timeout: Duration::from_secs(60),
            max_body_bytes: 8 * 1024 * 1024,
            max_error_body_bytes: 64 * 1024,
        }
    }
}

/// Which `Content-Type` a streamed 200 response may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MimePolicy {
    /// Exactly `text/event-stream` (parameters allowed).
    EventStream,
    /// `text/event-stream`, or no `Content-Type` at all: only for the exact Responses POST.
    EventStreamOrMissing,
}

/// Request headers: an optional bearer token plus extra headers. `Debug` shows header names
/// only, never values.
#[derive(Clone, Default)]
pub struct Headers {
    bearer: Option<Secret>,
    extra: Vec<(HeaderName, HeaderValue)>,
}

impl Headers {
    /// No headers.
    pub fn new() -> Self {
        Headers::default()
    }

    /// Sends `Authorization: Bearer <token>`; fails (without showing the token) when the token
    /// cannot be a header value.
    pub fn bearer(mut self, token: &Secret) -> Result<Self, HttpError> {
        let value = format!("Bearer {}", token.expose());
        if HeaderValue::from_str(&value).is_err() || token.expose().is_empty() {
            return Err(HttpError::InvalidHeader {
                name: "authorization".into(),
                reason: "the API key is empty or has characters a header cannot carry (spaces at the ends, newlines); check AI_API_KEY".into(),
            });
        }
        self.bearer = Some(token.clone());
        Ok(self)
    }

    /// Adds `name: value`; its value is treated as sensitive (never logged).
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, HttpError> {
        let invalid = |reason: &str| HttpError::InvalidHeader {
            name: name.chars().filter(|c| !c.is_control()).take(64).collect(),
            reason: reason.into(),
        };
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid("bad name"))?;
        let mut value = HeaderValue::from_str(value)
            .map_err(|_| invalid("the value has characters a header cannot carry"))?;
        value.set_sensitive(true);
        self.extra.push((name, value));
        Ok(self)
    }

    /// The bearer token, to redact it from server messages.
    pub(crate) fn secret(&self) -> Option<&str> {
        self.bearer.as_ref().map(Secret::expose)
    }

    /// The headers to send.
    pub(crate) fn to_map(&self) -> reqwest::header::HeaderMap {
        let mut map = reqwest::header::HeaderMap::new();
        if let Some(token) = &self.bearer
            && let Ok(mut v) = HeaderValue::from_str(&format!("Bearer {}", token.expose()))
        {
            v.set_sensitive(true);
            map.insert(reqwest::header::AUTHORIZATION, v);
        }
        for (name, value) in &self.extra {
            map.append(name.clone(), value.clone());
        }
        map
    }
}

impl fmt::Debug for Headers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        if self.bearer.is_some() {
            list.entry(&"authorization: Bearer <redacted>");
        }
        for (name, _) in &self.extra {
            list.entry(&format_args!("{name}: <redacted>"));
        }
        list.finish()
    }
}

/// One streaming POST: `body` is the exact JSON to send.
#[derive(Debug, Clone, Copy)]
pub struct StreamRequest<'a> {
    /// Path below the client's base URL, e.g. `/responses`.
    pub path: &'a str,
    /// Headers, usually the bearer API key.
    pub headers: &'a Headers,
    /// The JSON body, sent as is with `Content-Type: application/json`.
    pub body: &'a [u8],
    /// Bounds of each attempt.
    pub limits: Limits,
    /// Accepted `Content-Type` of the 200 response.
    pub mime: MimePolicy,
    /// Raised to stop the transfer (checked between chunks and while waiting).
    pub cancel: &'a AtomicBool,
    /// Told before each wait for another attempt.
    pub on_retry: Option<Notify<'a, Retrying>>,
}

/// A callback a request tells of its progress (a retry, a growing reasoning summary).
pub struct Notify<'a, T: ?Sized>(pub &'a dyn Fn(&T));

// By hand: derives would require `T: Clone` / `T: Debug`, which `str` and `Retrying` need not be.
impl<T: ?Sized> Clone for Notify<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Notify<'_, T> {}

impl<T: ?Sized> std::fmt::Debug for Notify<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notify(..)")
    }
}

/// A failed attempt that will be tried again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retrying {
    /// The attempt about to be made (2 for the first retry).
    pub attempt: u32,
    /// Attempts the policy allows in all.
    pub of: u32,
    /// The wait before it.
    pub delay: Duration,
    /// Why the last attempt failed (`429 Too Many Requests`).
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_values() {
        let h = Headers::new()
            .bearer(&Secret::new("sk-very-secret".into()))
            .unwrap()
            .header("api-key", "also-secret")
            .unwrap();
        let text = format!("{h:?}");
        assert!(!text.contains("secret"), "{text}");
        assert!(
            text.contains("authorization") && text.contains("api-key"),
            "{text}"
        );
        let map = h.to_map();
        assert_eq!(map["authorization"], "Bearer sk-very-secret");
        assert!(map["authorization"].is_sensitive());
    }

    #[test]
    fn bad_token_is_refused_without_showing_it() {
        let err = Headers::new()
            .bearer(&Secret::new("sk-line\nbreak".into()))
            .unwrap_err();
        assert!(!err.to_string().contains("sk-line"), "{err}");
        assert!(Headers::new().bearer(&Secret::new(String::new())).is_err());
    }
}

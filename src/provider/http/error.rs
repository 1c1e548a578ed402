//! What can go wrong with one HTTP exchange, said so that a person knows what failed, where and
//! what to do. No error, message or `Debug` output ever contains the API key.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Which part of the transport failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// DNS resolution or the TCP connection failed.
    Connect,
    /// The TLS handshake failed (certificate not trusted, wrong host name, protocol).
    Tls,
    /// No connection within the connect timeout.
    ConnectTimeout,
    /// The server accepted the request but sent no response headers in time.
    ResponseTimeout,
    /// The response body stalled: no data for longer than the idle timeout.
    IdleTimeout,
    /// The exchange took longer than its total bound.
    TotalTimeout,
    /// Sending the request or reading the response headers failed (reset, protocol error).
    Request,
    /// Reading the response body failed (connection closed or reset mid-body).
    Body,
}

impl TransportKind {
    /// What a person can do about it.
    pub fn hint(self) -> &'static str {
        match self {
            TransportKind::Connect => "check AI_ENDPOINT and the network",
            TransportKind::Tls => {
                "if the server uses a private CA, point AI_CA_FILE at its PEM certificate"
            }
            TransportKind::ConnectTimeout | TransportKind::ResponseTimeout => {
                "the server is slow or unreachable; try again later"
            }
            TransportKind::IdleTimeout | TransportKind::TotalTimeout => {
                "the transfer was stopped; try again"
            }
            TransportKind::Request | TransportKind::Body => "the connection broke; try again",
        }
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TransportKind::Connect => "cannot connect",
            TransportKind::Tls => "TLS handshake failed",
            TransportKind::ConnectTimeout => "connect timed out",
            TransportKind::ResponseTimeout => "no response in time",
            TransportKind::IdleTimeout => "response stalled (idle timeout)",
            TransportKind::TotalTimeout => "transfer took too long (total timeout)",
            TransportKind::Request => "request failed",
            TransportKind::Body => "response body interrupted",
        })
    }
}

/// A failed HTTP exchange or client setup. URLs in it never carry credentials or a query.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// The base URL or a request path is not a usable provider URL.
    #[error("provider URL {url:?}: {reason}; set AI_ENDPOINT to an https:// base URL")]
    BadUrl {
        /// The URL as given (sanitised).
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Plain `http://` to a host that is not loopback.
    #[error(
        "provider URL {url}: plain http:// is accepted only for loopback hosts (localhost, 127.0.0.0/8, [::1]); use https://"
    )]
    InsecureUrl {
        /// The refused URL (sanitised).
        url: String,
    },
    /// The extra CA file (`AI_CA_FILE`) could not be used.
    #[error(
        "AI_CA_FILE {}: {reason}; point AI_CA_FILE at a readable PEM file of CA certificates",
        path.display()
    )]
    CaFile {
        /// The file.
        path: PathBuf,
        /// Why it is unusable.
        reason: String,
    },
    /// The HTTP client or its runtime could not be built.
    #[error("cannot set up the HTTP client: {0}")]
    Setup(String),
    /// A request header name or value is invalid (the value itself is never shown).
    #[error("request header {name}: {reason}")]
    InvalidHeader {
        /// The header name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The transport failed: connect, TLS, reset or a timeout.
    #[error("{url}: {kind} ({detail}); {hint}", hint = kind.hint())]
    Transport {
        /// Which part failed.
        kind: TransportKind,
        /// The URL of the request.
        url: String,
        /// Details from the network stack.
        detail: String,
    },
    /// The shell's broker forwarded the request and then failed: whether the provider acted on
    /// it is unknown, so it is not sent again.
    #[error(
        "{url}: the shell's ash-broker forwarded the request, then failed ({detail}); it is not sent again because the provider may have acted on it"
    )]
    BrokerFailed {
        /// The URL of the request.
        url: String,
        /// What failed.
        detail: String,
    },
    /// The server answered with a redirect, which is never followed.
    #[error(
        "{url} answered HTTP {status} redirecting to {location}; redirects are not followed: set AI_ENDPOINT to the final base URL"
    )]
    Redirect {
        /// The URL of the request.
        url: String,
        /// The 3xx status.
        status: u16,
        /// The `Location` header (sanitised), or `(none)`.
        location: String,
    },
    /// 401 or 403: the credentials were refused.
    #[error(
        "{url} refused the credentials (HTTP {status}): {message}; check AI_API_KEY (or OPENAI_API_KEY) or log in again"
    )]
    Auth {
        /// The URL of the request.
        url: String,
        /// 401 or 403.
        status: u16,
        /// The server's message, if any.
        message: String,
    },
    /// 429: too many requests.
    #[error("{url} is rate limiting requests (HTTP 429{}): {message}; wait and try again", after(.retry_after))]
    RateLimited {
        /// The URL of the request.
        url: String,
        /// How long the server asked to wait (`retry-after-ms` / `retry-after`).
        retry_after: Option<Duration>,
        /// The server's message, if any.
        message: String,
    },
    /// 429 with `insufficient_quota`: waiting does not help.
    #[error(
        "{url}: the account's quota is exhausted (HTTP 429): {message}; check the plan and billing"
    )]
    QuotaExceeded {
        /// The URL of the request.
        url: String,
        /// The server's message, if any.
        message: String,
    },
    /// 5xx: the server failed.
    #[error("{url} failed with HTTP {status}{}: {message}; the service may be down, try again later", after(.retry_after))]
    Server {
        /// The URL of the request.
        url: String,
        /// The 5xx status.
        status: u16,
        /// `retry-after`, if the server sent one.
        retry_after: Option<Duration>,
        /// The server's message, if any.
        message: String,
    },
    /// 400 `context_length_exceeded`: the request is larger than the model's context window.
    #[error(
        "{url}: the request exceeds the model's context window: {message}; compact the session or start a new one"
    )]
    ContextLength {
        /// The URL of the request.
        url: String,
        /// The server's message.
        message: String,
    },
    /// A 400 naming a request parameter the server or model does not support.
    #[error("{url} does not accept the request parameter `{parameter}` (HTTP 400): {message}")]
    UnsupportedParameter {
        /// The URL of the request.
        url: String,
        /// The parameter, as the server named it (`reasoning`, `include`, …).
        parameter: String,
        /// The server's message.
        message: String,
    },
    /// Any other 4xx.
    #[error("{url} rejected the request (HTTP {status}): {message}")]
    Rejected {
        /// The URL of the request.
        url: String,
        /// The 4xx status.
        status: u16,
        /// The server's message, if any.
        message: String,
    },
    /// A success status other than 200.
    #[error("{url} answered HTTP {status}, expected 200; is AI_ENDPOINT the API base URL?")]
    UnexpectedStatus {
        /// The URL of the request.
        url: String,
        /// The status.
        status: u16,
    },
    /// The response has the wrong (or no) `Content-Type`.
    #[error(
        "{url} answered with Content-Type {}, expected {expected}; is AI_ENDPOINT the API base URL?",
        found.as_deref().unwrap_or("(none)")
    )]
    ContentType {
        /// The URL of the request.
        url: String,
        /// The media type received, if any.
        found: Option<String>,
        /// The media type required.
        expected: &'static str,
    },
    /// The response body is larger than allowed.
    #[error("{url}: the response body exceeds {limit} bytes; the transfer was stopped")]
    BodyTooLarge {
        /// The URL of the request.
        url: String,
        /// The bound, in bytes.
        limit: u64,
    },
    /// The cancel flag was raised.
    #[error("request cancelled")]
    Cancelled,
}

fn after(retry_after: &Option<Duration>) -> String {
    match retry_after {
        Some(d) => format!(", retry after {:.3}s", d.as_secs_f64()),
        None => String::new(),
    }
}

impl HttpError {
    /// Why a retry happens, in a few words for a status line: `429 Too Many Requests`,
    /// `503 Service Unavailable`, `connection failed`.
    pub fn retry_reason(&self) -> String {
        let status = |code: u16| {
            let reason = reqwest::StatusCode::from_u16(code)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("error");
            format!("{code} {reason}")
        };
        match self {
            HttpError::RateLimited { .. } => status(429),
            HttpError::Server { status: code, .. } => status(*code),
            HttpError::Transport { kind, .. } => match kind {
                TransportKind::Connect => "connection failed",
                TransportKind::Tls => "TLS handshake failed",
                TransportKind::ConnectTimeout => "connect timed out",
                TransportKind::ResponseTimeout => "no response in time",
                TransportKind::IdleTimeout => "the response stalled",
                TransportKind::TotalTimeout => "the request took too long",
                TransportKind::Request => "the request failed",
                TransportKind::Body => "the response broke off",
            }
            .to_owned(),
            other => other.status().map_or_else(|| "error".to_owned(), status),
        }
    }

    /// The transport kind, for [`HttpError::Transport`].
    pub fn transport_kind(&self) -> Option<TransportKind> {
        match self {
            HttpError::Transport { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    /// The HTTP status the server answered with, when the error comes from one.
    pub fn status(&self) -> Option<u16> {
        match self {
            HttpError::Redirect { status, .. }
            | HttpError::Auth { status, .. }
            | HttpError::Server { status, .. }
            | HttpError::Rejected { status, .. }
            | HttpError::UnexpectedStatus { status, .. } => Some(*status),
            HttpError::RateLimited { .. } | HttpError::QuotaExceeded { .. } => Some(429),
            HttpError::ContextLength { .. } | HttpError::UnsupportedParameter { .. } => Some(400),
            _ => None,
        }
    }
}

/// A streaming POST that failed. Which variant it is encodes the retry rule: only
/// [`StreamError::Request`] (nothing reached `on_chunk`) may be retried; the client has already
/// done so as far as its [`RetryPolicy`](super::RetryPolicy) allows.
#[derive(Debug, thiserror::Error)]
pub enum StreamError<E> {
    /// The exchange failed before any byte reached `on_chunk`.
    #[error("{0}")]
    Request(HttpError),
    /// The transfer broke after `delivered` bytes reached `on_chunk`. It is never retried: the
    /// caller decides (a turn pauses, and Resume retries it safely).
    #[error("{error} ({delivered} response bytes had been received)")]
    Interrupted {
        /// Bytes already passed to `on_chunk`.
        delivered: u64,
        /// What broke.
        error: HttpError,
    },
    /// `on_chunk` refused a chunk; the transfer was stopped there.
    #[error("{0}")]
    Callback(E),
}

impl<E> StreamError<E> {
    /// The HTTP error, unless the callback failed.
    pub fn http(&self) -> Option<&HttpError> {
        match self {
            StreamError::Request(e) | StreamError::Interrupted { error: e, .. } => Some(e),
            StreamError::Callback(_) => None,
        }
    }

    /// The error a retry policy may look at: only a failure before any byte reached `on_chunk`.
    /// After that, retrying would replay part of a response the caller has already consumed.
    pub fn retryable_error(&self) -> Option<&HttpError> {
        match self {
            StreamError::Request(e) => Some(e),
            StreamError::Interrupted { .. } | StreamError::Callback(_) => None,
        }
    }

    /// Whether the transfer stopped because the cancel flag was raised.
    pub fn is_cancelled(&self) -> bool {
        matches!(self.http(), Some(HttpError::Cancelled))
    }
}

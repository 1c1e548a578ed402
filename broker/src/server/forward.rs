//! One routed request: checked (token, target, method, headers, declared size) before
//! anything is forwarded, then sent on the shared client with its body streamed through (at
//! most [`MAX_UPLOADS`] at once), and the answer streamed back.

use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http_body::Body;
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use subtle::ConstantTimeEq;

use tokio::sync::Semaphore;

use super::BrokerError;
use super::lease::Lease;
use super::limits::{MAX_UPLOADS, UPLOAD_WAIT};
use super::options::{Options, Upstream};
use super::stream::ChannelBody;
use super::upload::{Upload, drain};
use crate::wire::{
    FAILED, FORWARDED_HEADERS, HOP_BY_HOP, MAX_BODY_BYTES, MAX_HEADER_BYTES, REFUSED, TARGET, TOKEN,
};

/// Largest `AI_CA_FILE` read.
const CA_FILE_MAX: u64 = 4 * 1024 * 1024;

/// What every request handler shares.
pub(super) struct State {
    client: reqwest::Client,
    token: String,
    upstream: Upstream,
    lease: Arc<Lease>,
    last: Mutex<Instant>,
    uploads: Arc<Semaphore>,
}

/// The shared upstream client: TLS-verified (system roots plus `AI_CA_FILE`), HTTP/2 where the
/// server offers it, no redirects, no proxy guessing beyond the usual variables, at most
/// `pool` idle connections per host.
pub(super) fn client(options: &Options) -> Result<reqwest::Client, BrokerError> {
    let mut certs = Vec::new();
    if let Some(path) = &options.ca_file {
        let fail = |reason: String| BrokerError::CaFile {
            path: path.clone(),
            reason,
        };
        let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
        if meta.len() > CA_FILE_MAX {
            return Err(fail(format!("larger than {CA_FILE_MAX} bytes")));
        }
        let pem = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
        certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| fail(e.to_string()))?;
        if certs.is_empty() {
            return Err(fail("no PEM certificate in it".into()));
        }
    }
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(15))
        .pool_max_idle_per_host(options.pool)
        .pool_idle_timeout(options.idle)
        .referer(false)
        .tls_certs_merge(certs)
        .build()
        .map_err(|e| BrokerError::Client(e.to_string()))
}

impl State {
    /// The shared state of a broker with `client`, `token` and `lease`.
    pub(super) fn new(
        client: reqwest::Client,
        token: String,
        lease: Arc<Lease>,
        options: &Options,
    ) -> State {
        State {
            client,
            token,
            upstream: options.upstream.clone(),
            lease,
            last: Mutex::new(Instant::now()),
            uploads: Arc::new(Semaphore::new(MAX_UPLOADS)),
        }
    }

    /// How long since the last routed request.
    pub(super) fn idle_for(&self) -> Duration {
        self.last
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or(Duration::ZERO)
    }

    /// Writes the lease: the time of the latest routed request.
    pub(super) fn refresh(&self) -> Result<(), BrokerError> {
        if let Ok(mut t) = self.last.lock() {
            *t = Instant::now();
        }
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.lease.write(secs)
    }
}

/// Answers one request on the socket.
pub(super) async fn handle(
    request: Request<Incoming>,
    state: &State,
) -> Result<Response<ChannelBody>, Infallible> {
    let checked = match check(request, state).await {
        Ok(checked) => checked,
        Err((status, reason)) => return Ok(refusal(status, reason)),
    };
    // The lease marks use; a broker that cannot write it still serves.
    let _ = state.refresh();
    Ok(forward(checked, state).await)
}

/// A request that passed every check; its body is not read yet.
struct Checked {
    method: Method,
    url: reqwest::Url,
    headers: HeaderMap,
    body: Incoming,
    /// The body's declared length (0 for none).
    length: u64,
}

type Refusal = (StatusCode, &'static str);

async fn check(request: Request<Incoming>, state: &State) -> Result<Checked, Refusal> {
    let (parts, body) = request.into_parts();
    let token = parts
        .headers
        .get(TOKEN)
        .map(HeaderValue::as_bytes)
        .unwrap_or_default();
    if !same(token, state.token.as_bytes()) {
        return Err((StatusCode::FORBIDDEN, "the capability token does not match"));
    }
    let target = parts
        .headers
        .get(TARGET)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| reqwest::Url::parse(v).ok())
        .ok_or((StatusCode::BAD_REQUEST, "no usable target URL"))?;
    if !state.upstream.admits(&target) {
        return Err((
            StatusCode::FORBIDDEN,
            "the target is not the configured provider",
        ));
    }
    if parts.method != Method::POST && parts.method != Method::GET {
        return Err((
            StatusCode::METHOD_NOT_ALLOWED,
            "only GET and POST are forwarded",
        ));
    }
    let mut headers = HeaderMap::new();
    let mut size = 0usize;
    for name in FORWARDED_HEADERS {
        for value in parts.headers.get_all(*name) {
            size += name.len() + value.len();
            headers.append(HeaderName::from_static(name), value.clone());
        }
    }
    if size > MAX_HEADER_BYTES {
        return Err((
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "the headers are too large",
        ));
    }
    // A body must say how long it is, so one too large is refused before any of it is read
    // and the provider gets the same `content-length` the client sent.
    let length = if body.is_end_stream() {
        0
    } else {
        body.size_hint().exact().ok_or((
            StatusCode::LENGTH_REQUIRED,
            "a request body needs a content-length",
        ))?
    };
    if length > MAX_BODY_BYTES {
        return Err((
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request body is too large",
        ));
    }
    Ok(Checked {
        method: parts.method,
        url: target,
        headers,
        body,
        length,
    })
}

async fn forward(checked: Checked, state: &State) -> Response<ChannelBody> {
    let request = state
        .client
        .request(checked.method, checked.url)
        .headers(checked.headers);
    let (request, passed) = if checked.length == 0 {
        // An empty body can be sent again, so the client's own retry of a pooled connection
        // that closed before the request left stays possible.
        (request, None)
    } else {
        let wait = Arc::clone(&state.uploads).acquire_owned();
        let Ok(Ok(slot)) = tokio::time::timeout(UPLOAD_WAIT, wait).await else {
            drain(checked.body).await;
            return refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "the broker is busy: every upload slot stayed taken",
            );
        };
        let (upload, passed) = Upload::new(checked.body, slot);
        // A streamed body cannot be replayed: the broker never sends a request twice.
        (request.body(reqwest::Body::wrap(upload)), Some(passed))
    };
    let mut upstream = match request.send().await {
        Ok(response) => response,
        // Nothing reached the provider: the client may send it itself.
        Err(e) if e.is_connect() => {
            return refusal(StatusCode::BAD_GATEWAY, "the provider could not be reached");
        }
        // Not one byte of the body left: the provider cannot have the whole request.
        Err(_) if passed.is_some_and(|p| p.load(Ordering::SeqCst) == 0) => {
            return refusal(
                StatusCode::BAD_GATEWAY,
                "the provider's connection failed before the body was sent",
            );
        }
        Err(_) => return failed("the provider's answer broke off before its headers"),
    };
    let mut response = Response::builder().status(upstream.status().as_u16());
    for (name, value) in upstream.headers() {
        if !HOP_BY_HOP.contains(&name.as_str()) {
            response = response.header(name, value);
        }
    }
    let (tx, body) = ChannelBody::new();
    tokio::spawn(async move {
        loop {
            match upstream.chunk().await {
                Ok(Some(chunk)) => {
                    if tx.send(Ok(chunk)).await.is_err() {
                        return;
                    }
                }
                Ok(None) => return,
                Err(_) => {
                    let _ = tx
                        .send(Err(std::io::Error::other(
                            "the provider's stream broke off",
                        )))
                        .await;
                    return;
                }
            }
        }
    });
    response
        .body(body)
        .unwrap_or_else(|_| failed("the provider's headers could not be passed on"))
}

/// A refusal before anything was forwarded.
fn refusal(status: StatusCode, reason: &'static str) -> Response<ChannelBody> {
    let mut response = Response::new(ChannelBody::full(reason));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(REFUSED, HeaderValue::from_static(reason));
    response
}

/// A failure after forwarding: the outcome is unknown.
fn failed(reason: &'static str) -> Response<ChannelBody> {
    let mut response = Response::new(ChannelBody::full(reason));
    *response.status_mut() = StatusCode::BAD_GATEWAY;
    response
        .headers_mut()
        .insert(FAILED, HeaderValue::from_static(reason));
    response
}

/// Equal bytes, compared in constant time for equal lengths.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.ct_eq(b).into()
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"abcd", b"abcd"));
        assert!(!same(b"abcd", b"abce"));
        assert!(!same(b"abcd", b"abc"));
        assert!(!same(b"", b"a"));
    }
}

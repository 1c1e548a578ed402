//! One attempt of a request: send, check status and MIME, then read the body within bounds.

use std::sync::atomic::AtomicBool;

use ash_broker::wire;
use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use reqwest::{RequestBuilder, Response, Url};
use tokio::time::Instant;

use super::broker::socket_url;
use super::client::Clients;
use super::guard::{Stop, deadline_after, guard};
use super::status::{classify, media_type, redirect};
use super::{Headers, HttpError, Limits, MimePolicy, StreamError, StreamRequest, TransportKind};

const EVENT_STREAM: &str = "text/event-stream";
const JSON: &str = "application/json";

/// The fixed parts of one attempt.
pub(crate) struct Exchange<'a> {
    /// The URL for messages (no credentials, no query).
    pub(crate) url: String,
    pub(crate) headers: &'a Headers,
    pub(crate) limits: Limits,
    pub(crate) cancel: &'a AtomicBool,
    pub(crate) deadline: Instant,
}

impl<'a> Exchange<'a> {
    pub(crate) fn new(
        url: &Url,
        headers: &'a Headers,
        limits: Limits,
        cancel: &'a AtomicBool,
    ) -> Self {
        Exchange {
            url: url.as_str().to_string(),
            headers,
            limits,
            cancel,
            deadline: deadline_after(limits.total_timeout),
        }
    }

    /// POSTs `request.body` and passes the event stream to `on_chunk` as it arrives; returns the
    /// bytes delivered.
    pub(crate) async fn stream<E>(
        &self,
        clients: &Clients<'_>,
        url: Url,
        request: &StreamRequest<'_>,
        on_chunk: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<u64, StreamError<E>> {
        let build = |client: &reqwest::Client, to: Url| {
            client
                .post(to)
                .headers(self.headers.to_map())
                .header(CONTENT_TYPE, JSON)
                .header(ACCEPT, EVENT_STREAM)
                .body(request.body.to_vec())
        };
        let (mut response, brokered) = self
            .open(clients, &url, build)
            .await
            .map_err(StreamError::Request)?;
        let media = media_type(response.headers());
        let allowed = match media.as_deref() {
            Some(m) => m == EVENT_STREAM,
            None => request.mime == MimePolicy::EventStreamOrMissing,
        };
        if !allowed {
            return Err(StreamError::Request(HttpError::ContentType {
                url: self.url.clone(),
                found: media,
                expected: EVENT_STREAM,
            }));
        }
        self.check_length(&response).map_err(StreamError::Request)?;
        let fail = |delivered: u64, error: HttpError| match delivered {
            // Forwarded by the broker: even with nothing delivered the provider may have
            // acted, so it is never sent again.
            0 if brokered => StreamError::Request(HttpError::BrokerFailed {
                url: self.url.clone(),
                detail: error.to_string(),
            }),
            0 => StreamError::Request(error),
            _ => StreamError::Interrupted { delivered, error },
        };
        let mut delivered = 0u64;
        loop {
            let chunk = match self.next_chunk(&mut response).await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => return Ok(delivered),
                Err(error) => return Err(fail(delivered, error)),
            };
            let total = delivered.saturating_add(chunk.len() as u64);
            if total > self.limits.max_body_bytes {
                return Err(fail(delivered, self.too_large()));
            }
            if !chunk.is_empty() {
                on_chunk(&chunk).map_err(StreamError::Callback)?;
                delivered = total;
            }
        }
    }

    /// GETs a JSON document and returns its body.
    pub(crate) async fn json(&self, clients: &Clients<'_>, url: Url) -> Result<Vec<u8>, HttpError> {
        let build = |client: &reqwest::Client, to: Url| {
            client
                .get(to)
                .headers(self.headers.to_map())
                .header(ACCEPT, JSON)
        };
        let (mut response, _) = self.open(clients, &url, build).await?;
        let media = media_type(response.headers());
        if media.as_deref() != Some(JSON) {
            return Err(HttpError::ContentType {
                url: self.url.clone(),
                found: media,
                expected: JSON,
            });
        }
        self.check_length(&response)?;
        let mut body = Vec::new();
        while let Some(chunk) = self.next_chunk(&mut response).await? {
            if (body.len() + chunk.len()) as u64 > self.limits.max_body_bytes {
                return Err(self.too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// Sends the request through the broker while it is usable, else directly; any answer
    /// but 200 becomes the matching error. Says whether the broker forwarded it.
    async fn open(
        &self,
        clients: &Clients<'_>,
        url: &Url,
        build: impl Fn(&reqwest::Client, Url) -> RequestBuilder,
    ) -> Result<(Response, bool), HttpError> {
        if let Some((client, route)) = clients.broker() {
            let mut token = HeaderValue::from_str(route.token())
                .map_err(|_| HttpError::Setup("the broker token is not a header value".into()))?;
            token.set_sensitive(true);
            let builder = build(client, socket_url(url))
                .header(wire::TOKEN, token)
                .header(wire::TARGET, url.as_str());
            match self.send_brokered(builder).await? {
                Some(response) => return Ok((self.accept(response).await?, true)),
                None => clients.broker_down(),
            }
        }
        let response = self.send(build(clients.direct()?, url.clone())).await?;
        Ok((self.accept(response).await?, false))
    }

    /// Sends one request within the response timeout, the deadline and the cancel flag.
    async fn sent(&self, builder: RequestBuilder) -> Result<reqwest::Result<Response>, Stop> {
        guard(
            builder.send(),
            self.cancel,
            self.limits.response_timeout,
            self.deadline,
        )
        .await
    }

    /// Sends one request directly.
    async fn send(&self, builder: RequestBuilder) -> Result<Response, HttpError> {
        match self.sent(builder).await {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => Err(self.transport(e, TransportKind::Request)),
            Err(stop) => Err(self.stopped(stop, TransportKind::ResponseTimeout)),
        }
    }

    /// Sends one request through the broker: `None` when it refused before forwarding (or
    /// its socket could not be reached), so the request may go direct. Once forwarded, a
    /// failure has an unknown outcome and is never sent again.
    async fn send_brokered(&self, builder: RequestBuilder) -> Result<Option<Response>, HttpError> {
        let sent = self.sent(builder).await;
        let failed = |detail: String| HttpError::BrokerFailed {
            url: self.url.clone(),
            detail,
        };
        match sent {
            Ok(Ok(response)) if response.headers().contains_key(wire::REFUSED) => Ok(None),
            Ok(Ok(response)) => match response.headers().get(wire::FAILED) {
                Some(reason) => Err(failed(String::from_utf8_lossy(reason.as_bytes()).into())),
                None => Ok(Some(response)),
            },
            Ok(Err(e)) if e.is_connect() => Ok(None),
            Ok(Err(e)) => Err(failed(describe(&e.without_url()))),
            Err(stop) => Err(self.stopped(stop, TransportKind::ResponseTimeout)),
        }
    }

    /// Checks the status of an answer: any but 200 becomes the matching error.
    async fn accept(&self, mut response: Response) -> Result<Response, HttpError> {
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            return Err(redirect(&self.url, status, response.headers()));
        }
        if !(200..300).contains(&status) {
            let body = self.error_body(&mut response).await?;
            let secret = self.headers.secret();
            return Err(classify(
                &self.url,
                status,
                response.headers(),
                &body,
                secret,
            ));
        }
        if status != 200 {
            return Err(HttpError::UnexpectedStatus {
                url: self.url.clone(),
                status,
            });
        }
        Ok(response)
    }

    /// Up to `max_error_body_bytes` of an error body; a broken or slow one is cut short.
    async fn error_body(&self, response: &mut Response) -> Result<Vec<u8>, HttpError> {
        let max = usize::try_from(self.limits.max_error_body_bytes).unwrap_or(usize::MAX);
        let mut body = Vec::new();
        while body.len() < max {
            match self.next_chunk(response).await {
                Ok(Some(chunk)) => {
                    let take = chunk.len().min(max - body.len());
                    body.extend_from_slice(&chunk[..take]);
                }
                Err(HttpError::Cancelled) => return Err(HttpError::Cancelled),
                Ok(None) | Err(_) => break,
            }
        }
        Ok(body)
    }

    /// The next body chunk, within the idle timeout and the deadline.
    async fn next_chunk(&self, response: &mut Response) -> Result<Option<Bytes>, HttpError> {
        match guard(
            response.chunk(),
            self.cancel,
            self.limits.idle_timeout,
            self.deadline,
        )
        .await
        {
            Ok(Ok(chunk)) => Ok(chunk),
            Ok(Err(e)) => Err(self.transport(e, TransportKind::Body)),
            Err(stop) => Err(self.stopped(stop, TransportKind::IdleTimeout)),
        }
    }

    /// Refuses a declared `Content-Length` over the bound before reading anything.
    fn check_length(&self, response: &Response) -> Result<(), HttpError> {
        match response.content_length() {
            Some(n) if n > self.limits.max_body_bytes => Err(self.too_large()),
            _ => Ok(()),
        }
    }

    fn too_large(&self) -> HttpError {
        HttpError::BodyTooLarge {
            url: self.url.clone(),
            limit: self.limits.max_body_bytes,
        }
    }

    fn stopped(&self, stop: Stop, timeout: TransportKind) -> HttpError {
        let (kind, detail) = match stop {
            Stop::Cancelled => return HttpError::Cancelled,
            Stop::Timeout if timeout == TransportKind::ResponseTimeout => (
                timeout,
                format!(
                    "no response headers within {:?}",
                    self.limits.response_timeout
                ),
            ),
            Stop::Timeout => (
                timeout,
                format!("no data for {:?}", self.limits.idle_timeout),
            ),
            Stop::Deadline => (
                TransportKind::TotalTimeout,
                format!("not done within {:?}", self.limits.total_timeout),
            ),
        };
        HttpError::Transport {
            kind,
            url: self.url.clone(),
            detail,
        }
    }

    fn transport(&self, error: reqwest::Error, default: TransportKind) -> HttpError {
        let error = error.without_url();
        let detail = describe(&error);
        let kind = if is_tls(&error) || detail.contains("certificate") {
            TransportKind::Tls
        } else if error.is_connect() && error.is_timeout() {
            TransportKind::ConnectTimeout
        } else if error.is_connect() {
            TransportKind::Connect
        } else {
            default
        };
        HttpError::Transport {
            kind,
            url: self.url.clone(),
            detail,
        }
    }
}

/// Whether a rustls error is anywhere in the chain (also inside an `io::Error`).
fn is_tls(error: &reqwest::Error) -> bool {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = next {
        if e.is::<rustls::Error>() {
            return true;
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && io
                .get_ref()
                .is_some_and(|inner| inner.is::<rustls::Error>())
        {
            return true;
        }
        next = e.source();
    }
    false
}

/// The messages of the error chain, joined, without repeats; bounded.
pub(crate) fn describe(error: &reqwest::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = next {
        let text = e.to_string();
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && let Some(inner) = io.get_ref()
        {
            let inner = inner.to_string();
            if !parts.iter().any(|p| p.contains(&inner)) {
                parts.push(inner);
            }
        }
        if !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = e.source();
    }
    let joined = parts.join(": ");
    match joined.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &joined[..i]),
        None => joined,
    }
}

//! Shared helpers: clients for a mock, request shorthands.

use std::convert::Infallible;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use ansa::config::Secret;
use ansa::provider::http::{
    ClientOptions, Headers, HttpClient, Limits, MimePolicy, RetryPolicy, StreamDone, StreamError,
    StreamRequest,
};

use crate::mock_provider::MockProvider;

/// The API key the tests send.
pub const KEY: &str = "sk-test-0123456789";
/// The Responses path below the mock's base URL.
pub const RESPONSES: &str = "/v1/responses";
/// The body every streaming test POSTs.
pub const BODY: &[u8] = br#"{"model":"m","stream":true,"input":[]}"#;

/// Options trusting the mock's CA (if any), never retrying.
pub fn options(mock: &MockProvider) -> ClientOptions {
    ClientOptions {
        ca_file: mock.ca_file().map(Into::into),
        connect_timeout: Duration::from_secs(2),
        retry: RetryPolicy::NEVER,
        jitter_seed: Some(7),
        broker: None,
    }
}

/// A client for the mock's base URL.
pub fn client(mock: &MockProvider) -> HttpClient {
    HttpClient::new(&mock.base_url(), &options(mock)).expect("client")
}

/// A client for the mock with `retry`.
pub fn retrying(mock: &MockProvider, retry: RetryPolicy) -> HttpClient {
    let options = ClientOptions {
        retry,
        ..options(mock)
    };
    HttpClient::new(&mock.base_url(), &options).expect("client")
}

/// Small, fast bounds.
pub fn limits() -> Limits {
    Limits {
        response_timeout: Duration::from_secs(3),
        idle_timeout: Duration::from_secs(3),
        total_timeout: Duration::from_secs(6),
        max_body_bytes: 1024 * 1024,
        max_error_body_bytes: 16 * 1024,
    }
}

/// The bearer header with [`KEY`].
pub fn headers() -> Headers {
    Headers::new()
        .bearer(&Secret::new(KEY.into()))
        .expect("header")
}

/// What a streaming POST delivered, chunk by chunk, and how it ended.
pub struct Outcome {
    pub chunks: Vec<Vec<u8>>,
    pub result: Result<StreamDone, StreamError<Infallible>>,
}

impl Outcome {
    /// All delivered bytes as text.
    pub fn text(&self) -> String {
        String::from_utf8(self.chunks.concat()).expect("utf-8")
    }

    /// The error, which must be there.
    pub fn error(&self) -> &StreamError<Infallible> {
        match &self.result {
            Ok(done) => panic!("expected an error, got {done:?}"),
            Err(e) => e,
        }
    }
}

/// POSTs [`BODY`] to `/responses` with `limits`, `mime` and `cancel`.
pub fn stream_with(
    client: &HttpClient,
    limits: Limits,
    mime: MimePolicy,
    cancel: &AtomicBool,
) -> Outcome {
    let headers = headers();
    let request = StreamRequest {
        path: "/responses",
        headers: &headers,
        body: BODY,
        limits,
        mime,
        cancel,
        on_retry: None,
    };
    let mut chunks = Vec::new();
    let result = client.post_stream(&request, |chunk: &[u8]| {
        chunks.push(chunk.to_vec());
        Ok::<(), Infallible>(())
    });
    Outcome { chunks, result }
}

/// POSTs [`BODY`] to `/responses` with the default test bounds.
pub fn stream(client: &HttpClient) -> Outcome {
    stream_with(
        client,
        limits(),
        MimePolicy::EventStream,
        &AtomicBool::new(false),
    )
}

//! Streaming: incremental delivery, MIME policy, size and time bounds, cancellation.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ansa::provider::http::{HttpError, MimePolicy, StreamError, StreamRequest, TransportKind};

use crate::common::*;
use crate::mock_provider::{Gate, MockChunk, MockProvider, MockResponse, sse_event, within};

/// Each chunk after the first is sent only once the client has received the previous one, so the
/// test can only pass if chunks reach `on_chunk` as they arrive.
fn incremental(mock: MockProvider, version: &str) {
    let (g1, g2) = (Gate::new(), Gate::new());
    mock.push(
        RESPONSES,
        MockResponse::sse([sse_event("one", "{}")])
            .chunk(MockChunk::new(sse_event("two", "{}")).gated(&g1))
            .chunk(MockChunk::new(sse_event("three", "{}")).gated(&g2)),
    );
    let client = client(&mock);
    let headers = headers();
    let cancel = AtomicBool::new(false);
    let request = StreamRequest {
        path: "/responses",
        headers: &headers,
        body: BODY,
        limits: limits(),
        mime: MimePolicy::EventStream,
        cancel: &cancel,
        on_retry: None,
    };
    let mut got = String::new();
    let done = client
        .post_stream(&request, |chunk: &[u8]| {
            got.push_str(std::str::from_utf8(chunk).expect("utf-8"));
            if got.contains("event: one\n") && !got.contains("two") {
                g1.open();
            }
            if got.contains("event: two\n") && !got.contains("three") {
                g2.open();
            }
            Ok::<(), ()>(())
        })
        .expect("stream");
    let expected = format!(
        "{}{}{}",
        sse_event("one", "{}"),
        sse_event("two", "{}"),
        sse_event("three", "{}")
    );
    assert_eq!(got, expected);
    assert_eq!(done.bytes, expected.len() as u64);
    assert_eq!(done.attempts, 1);

    let [req] = mock.requests().try_into().expect("one request");
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/v1/responses");
    assert_eq!(req.version, version);
    assert_eq!(req.body, BODY, "the exact body bytes");
    assert_eq!(req.header("authorization"), Some(&*format!("Bearer {KEY}")));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.header("accept"), Some("text/event-stream"));
    assert!(
        req.header("user-agent")
            .is_some_and(|ua| ua.starts_with("ansa/"))
    );
}

#[test]
fn chunks_arrive_incrementally_over_http() {
    incremental(MockProvider::http(), "HTTP/1.1");
}

#[test]
fn chunks_arrive_incrementally_over_https_h2() {
    incremental(MockProvider::https(), "HTTP/2.0");
}

#[test]
fn callback_error_stops_the_transfer() {
    let mock = MockProvider::http();
    mock.push(RESPONSES, MockResponse::sse(["a", "b"]).stall());
    let client = client(&mock);
    let headers = headers();
    let cancel = AtomicBool::new(false);
    let request = StreamRequest {
        path: "/responses",
        headers: &headers,
        body: BODY,
        limits: limits(),
        mime: MimePolicy::EventStream,
        cancel: &cancel,
        on_retry: None,
    };
    let err = client
        .post_stream(&request, |_: &[u8]| Err("parser refused"))
        .unwrap_err();
    assert!(
        matches!(err, StreamError::Callback("parser refused")),
        "{err:?}"
    );
}

#[test]
fn wrong_mime_is_refused_before_any_byte() {
    let mock = MockProvider::http();
    mock.push(
        RESPONSES,
        MockResponse::sse(["<html>login</html>"])
            .without_header("content-type")
            .header("content-type", "text/html; charset=utf-8"),
    );
    let out = stream(&client(&mock));
    assert!(out.chunks.is_empty());
    match out.error() {
        StreamError::Request(HttpError::ContentType {
            found, expected, ..
        }) => {
            assert_eq!(found.as_deref(), Some("text/html"));
            assert_eq!(*expected, "text/event-stream");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn missing_mime_only_when_permitted() {
    let mock = MockProvider::http();
    let bare = || MockResponse::sse(["data: x\n\n"]).without_header("content-type");
    mock.push(RESPONSES, bare()).push(RESPONSES, bare());
    let client = client(&mock);
    let never = AtomicBool::new(false);
    let strict = stream_with(&client, limits(), MimePolicy::EventStream, &never);
    assert!(
        matches!(
            strict.error(),
            StreamError::Request(HttpError::ContentType { found: None, .. })
        ),
        "{:?}",
        strict.result
    );
    let lenient = stream_with(&client, limits(), MimePolicy::EventStreamOrMissing, &never);
    assert!(lenient.result.is_ok(), "{:?}", lenient.result);
    assert_eq!(lenient.text(), "data: x\n\n");
}

#[test]
fn oversized_body_is_stopped() {
    let mock = MockProvider::http();
    let kb = "x".repeat(400);
    mock.push(RESPONSES, MockResponse::sse(vec![kb.clone(); 5]));
    mock.push(
        RESPONSES,
        MockResponse::sse(vec![kb; 5]).with_content_length(),
    );
    let client = client(&mock);
    let small = ansa::provider::http::Limits {
        max_body_bytes: 1000,
        ..limits()
    };
    let never = AtomicBool::new(false);
    // Streamed without a length: cut at the chunk that would cross the bound.
    let out = stream_with(&client, small, MimePolicy::EventStream, &never);
    assert_eq!(out.chunks.concat().len(), 800);
    assert!(
        matches!(
            out.error(),
            StreamError::Interrupted {
                delivered: 800,
                error: HttpError::BodyTooLarge { limit: 1000, .. }
            }
        ),
        "{:?}",
        out.result
    );
    // A declared length over the bound is refused before reading.
    let out = stream_with(&client, small, MimePolicy::EventStream, &never);
    assert!(out.chunks.is_empty());
    assert!(
        matches!(
            out.error(),
            StreamError::Request(HttpError::BodyTooLarge { .. })
        ),
        "{:?}",
        out.result
    );
}

fn dropped_mid_body(mock: MockProvider) {
    mock.push(
        RESPONSES,
        MockResponse::sse([sse_event("one", "{}"), sse_event("two", "{}")])
            .chunk_delay(Duration::from_millis(50))
            .drop_after(30),
    );
    let out = stream(&client(&mock));
    let delivered = out.chunks.concat().len();
    assert!(delivered > 0 && delivered <= 30, "{delivered}");
    match out.error() {
        StreamError::Interrupted {
            delivered: d,
            error,
        } => {
            assert_eq!(*d as usize, delivered);
            assert_eq!(error.transport_kind(), Some(TransportKind::Body), "{error}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn connection_dropped_mid_body_over_http() {
    dropped_mid_body(MockProvider::http());
}

#[test]
fn stream_reset_mid_body_over_https_h2() {
    dropped_mid_body(MockProvider::https());
}

#[test]
fn stalled_stream_hits_the_idle_timeout() {
    let mock = MockProvider::http();
    mock.push(RESPONSES, MockResponse::sse(["data: 1\n\n"]).stall());
    let idle = ansa::provider::http::Limits {
        idle_timeout: Duration::from_millis(300),
        ..limits()
    };
    let start = Instant::now();
    let out = stream_with(
        &client(&mock),
        idle,
        MimePolicy::EventStream,
        &AtomicBool::new(false),
    );
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(out.text(), "data: 1\n\n");
    let error = out.error().http().expect("http error");
    assert_eq!(
        error.transport_kind(),
        Some(TransportKind::IdleTimeout),
        "{error}"
    );
    assert!(error.to_string().contains("idle"), "{error}");
}

#[test]
fn trickling_stream_hits_the_total_timeout() {
    let mock = MockProvider::http();
    // A slow-loris: a byte every 50 ms keeps the idle timer happy for ever.
    mock.push(
        RESPONSES,
        MockResponse::sse(vec![":\n"; 100]).chunk_delay(Duration::from_millis(50)),
    );
    let bounded = ansa::provider::http::Limits {
        idle_timeout: Duration::from_secs(1),
        total_timeout: Duration::from_millis(500),
        ..limits()
    };
    let start = Instant::now();
    let out = stream_with(
        &client(&mock),
        bounded,
        MimePolicy::EventStream,
        &AtomicBool::new(false),
    );
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    let error = out.error().http().expect("http error");
    assert_eq!(
        error.transport_kind(),
        Some(TransportKind::TotalTimeout),
        "{error}"
    );
}

#[test]
fn cancel_during_a_stall_returns_promptly() {
    let mock = MockProvider::http();
    mock.push(RESPONSES, MockResponse::sse(["data: 1\n\n"]).stall());
    let client = client(&mock);
    let cancel = Arc::new(AtomicBool::new(false));
    let raiser = Arc::clone(&cancel);
    let out = within(Duration::from_secs(5), move || {
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            raiser.store(true, Ordering::Release);
        });
        let start = Instant::now();
        let out = stream_with(&client, limits(), MimePolicy::EventStream, &cancel);
        (
            out.result.map_err(|e| e.is_cancelled()),
            out.chunks,
            start.elapsed(),
        )
    });
    let (result, chunks, elapsed) = out;
    assert_eq!(result, Err(true));
    assert_eq!(chunks.concat(), b"data: 1\n\n");
    assert!(elapsed < Duration::from_millis(800), "{elapsed:?}");
}

#[test]
fn a_raised_flag_sends_nothing() {
    let mock = MockProvider::http();
    let out = stream_with(
        &client(&mock),
        limits(),
        MimePolicy::EventStream,
        &AtomicBool::new(true),
    );
    assert!(out.error().is_cancelled());
    assert!(mock.requests().is_empty());
}

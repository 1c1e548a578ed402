//! Retries: 429 waits for `retry-after`, 5xx backs off, nothing is retried once bytes reached
//! the caller, credentials and rejections never are, and a cancel ends the wait.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ansa::provider::http::{
    HttpError, Limits, MimePolicy, Notify, RetryPolicy, Retrying, StreamError, StreamRequest,
};

use crate::common::*;
use crate::mock_provider::{MockProvider, MockResponse, within};

fn quick() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(20),
        max_delay: Duration::from_millis(50),
        max_retry_after: Duration::from_secs(5),
        max_total_wait: Duration::from_secs(8),
    }
}

#[test]
fn rate_limit_waits_retry_after_then_succeeds() {
    let mock = MockProvider::http();
    mock.push(
        RESPONSES,
        MockResponse::json(429, r#"{"error":{"message":"slow"}}"#).header("retry-after", "1"),
    );
    mock.push(RESPONSES, MockResponse::sse(["data: ok\n\n"]));
    let start = Instant::now();
    let out = stream(&retrying(&mock, quick()));
    let elapsed = start.elapsed();
    let done = out.result.as_ref().expect("success after the wait");
    assert_eq!(done.attempts, 2);
    assert_eq!(out.text(), "data: ok\n\n");
    assert!(elapsed >= Duration::from_secs(1), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    let reqs = mock.requests_to(RESPONSES);
    assert_eq!(reqs.len(), 2);
    assert!(
        reqs.iter().all(|r| r.body == BODY),
        "every attempt sends the same body"
    );
}

#[test]
fn each_retry_is_announced_before_its_wait() {
    let mock = MockProvider::http();
    mock.push(
        RESPONSES,
        MockResponse::json(429, r#"{"error":{"message":"slow"}}"#).header("retry-after-ms", "20"),
    );
    mock.push(RESPONSES, MockResponse::new(503));
    mock.push(RESPONSES, MockResponse::sse(["data: ok\n\n"]));
    let client = retrying(&mock, quick());
    let seen = std::cell::RefCell::new(Vec::new());
    let on_retry = |r: &Retrying| seen.borrow_mut().push(r.clone());
    let headers = headers();
    let cancel = AtomicBool::new(false);
    let request = StreamRequest {
        path: "/responses",
        headers: &headers,
        body: BODY,
        limits: Limits::streaming(),
        mime: MimePolicy::EventStream,
        cancel: &cancel,
        on_retry: Some(Notify(&on_retry)),
    };
    let done = client
        .post_stream(&request, |_| Ok::<(), std::convert::Infallible>(()))
        .expect("third attempt succeeds");
    assert_eq!(done.attempts, 3);
    let seen = seen.into_inner();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(
        (seen[0].attempt, seen[0].of, seen[0].reason.as_str()),
        (2, quick().max_attempts, "429 Too Many Requests")
    );
    assert_eq!(
        seen[0].delay,
        Duration::from_millis(20),
        "the server's retry-after"
    );
    assert_eq!(
        (seen[1].attempt, seen[1].reason.as_str()),
        (3, "503 Service Unavailable")
    );
}

#[test]
fn server_errors_back_off_then_succeed() {
    let mock = MockProvider::https();
    mock.push(RESPONSES, MockResponse::json(500, r#"{"error":"boom"}"#));
    mock.push(RESPONSES, MockResponse::new(503));
    mock.push(RESPONSES, MockResponse::sse(["data: ok\n\n"]));
    let out = stream(&retrying(&mock, quick()));
    assert_eq!(out.result.as_ref().expect("third time lucky").attempts, 3);
    assert_eq!(mock.requests_to(RESPONSES).len(), 3);
}

#[test]
fn attempts_are_bounded() {
    let mock = MockProvider::http();
    for _ in 0..4 {
        mock.push(RESPONSES, MockResponse::new(500));
    }
    let out = stream(&retrying(&mock, quick()));
    assert!(
        matches!(
            out.error(),
            StreamError::Request(HttpError::Server { status: 500, .. })
        ),
        "{:?}",
        out.result
    );
    assert_eq!(mock.requests_to(RESPONSES).len(), 3);
    assert_eq!(mock.pending(RESPONSES), 1);
}

#[test]
fn a_drop_before_the_first_byte_is_retried() {
    let mock = MockProvider::http();
    mock.push(
        RESPONSES,
        MockResponse::sse(["data: lost\n\n"]).drop_after(0),
    );
    mock.push(RESPONSES, MockResponse::sse(["data: ok\n\n"]));
    let out = stream(&retrying(&mock, quick()));
    assert_eq!(out.text(), "data: ok\n\n");
    assert_eq!(out.result.as_ref().expect("retried").attempts, 2);
}

#[test]
fn nothing_is_retried_after_bytes_reached_the_caller() {
    let mock = MockProvider::http();
    mock.push(
        RESPONSES,
        MockResponse::sse(["data: 1\n\n", "data: 2\n\n"])
            .chunk_delay(Duration::from_millis(30))
            .drop_after(12),
    );
    mock.push(RESPONSES, MockResponse::sse(["data: fresh\n\n"]));
    let out = stream(&retrying(&mock, quick()));
    assert!(
        matches!(out.error(), StreamError::Interrupted { .. }),
        "{:?}",
        out.result
    );
    assert!(!out.text().contains("fresh"));
    assert_eq!(mock.requests_to(RESPONSES).len(), 1);
    assert_eq!(mock.pending(RESPONSES), 1);
}

#[test]
fn never_retried() {
    for first in [
        MockResponse::openai_error(401, "invalid_api_key", "no"),
        MockResponse::openai_error(400, "context_length_exceeded", "too long"),
        MockResponse::openai_error(422, "invalid_value", "no"),
        MockResponse::openai_error(429, "insufficient_quota", "no"),
    ] {
        let mock = MockProvider::http();
        mock.push(RESPONSES, first);
        mock.push(RESPONSES, MockResponse::sse(["data: ok\n\n"]));
        let out = stream(&retrying(&mock, quick()));
        assert!(out.result.is_err());
        assert_eq!(mock.requests_to(RESPONSES).len(), 1, "{:?}", out.result);
    }
}

#[test]
fn a_retry_after_beyond_the_cap_is_not_waited_for() {
    let mock = MockProvider::http();
    mock.push(
        RESPONSES,
        MockResponse::new(429).header("retry-after", "3600"),
    );
    mock.push(RESPONSES, MockResponse::sse(["data: ok\n\n"]));
    let start = Instant::now();
    let out = stream(&retrying(&mock, quick()));
    assert!(start.elapsed() < Duration::from_secs(1));
    assert!(
        matches!(out.error(), StreamError::Request(HttpError::RateLimited { retry_after: Some(d), .. }) if *d == Duration::from_secs(3600)),
        "{:?}",
        out.result
    );
}

#[test]
fn cancel_ends_the_wait_between_attempts() {
    let mock = MockProvider::http();
    mock.push(RESPONSES, MockResponse::new(429).header("retry-after", "4"));
    mock.push(RESPONSES, MockResponse::sse(["data: ok\n\n"]));
    let client = retrying(&mock, quick());
    let cancel = Arc::new(AtomicBool::new(false));
    let raiser = Arc::clone(&cancel);
    let (cancelled, elapsed) = within(Duration::from_secs(5), move || {
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            raiser.store(true, Ordering::Release);
        });
        let start = Instant::now();
        let out = stream_with(&client, limits(), MimePolicy::EventStream, &cancel);
        (out.error().is_cancelled(), start.elapsed())
    });
    assert!(cancelled);
    assert!(elapsed < Duration::from_millis(800), "{elapsed:?}");
    assert_eq!(mock.requests_to(RESPONSES).len(), 1);
}

#[test]
fn get_json_is_retried() {
    let mock = MockProvider::http();
    mock.push("/v1/models", MockResponse::new(502));
    mock.push("/v1/models", MockResponse::json(200, "[]"));
    let body = retrying(&mock, quick())
        .get_json("/models", &headers(), &limits(), &AtomicBool::new(false))
        .expect("models");
    assert_eq!(body, b"[]");
}

/// A restartable stream: chunks, how many times the caller was told to start over, and the
/// retries announced.
fn restarting(client: &ansa::provider::http::HttpClient) -> (Outcome, u32, Vec<Retrying>) {
    let headers = headers();
    let cancel = AtomicBool::new(false);
    let seen = std::cell::RefCell::new(Vec::new());
    let on_retry = |r: &Retrying| seen.borrow_mut().push(r.clone());
    let request = StreamRequest {
        path: "/responses",
        headers: &headers,
        body: BODY,
        limits: limits(),
        mime: MimePolicy::EventStream,
        cancel: &cancel,
        on_retry: Some(Notify(&on_retry)),
    };
    let chunks = std::cell::RefCell::new(Vec::new());
    let mut restarts = 0;
    let mut restart = || {
        restarts += 1;
        chunks.borrow_mut().clear();
    };
    let result = client.post_stream_restarting(&request, &mut restart, |chunk: &[u8]| {
        chunks.borrow_mut().push(chunk.to_vec());
        Ok::<(), std::convert::Infallible>(())
    });
    let outcome = Outcome {
        chunks: chunks.into_inner(),
        result,
    };
    (outcome, restarts, seen.into_inner())
}

#[test]
fn a_caller_that_can_start_over_gets_a_cut_stream_retried_from_the_start() {
    let mock = MockProvider::http();
    mock.push(
        RESPONSES,
        MockResponse::sse(["data: 1\n\n", "data: 2\n\n"])
            .chunk_delay(Duration::from_millis(30))
            .drop_after(12),
    );
    mock.push(RESPONSES, MockResponse::sse(["data: fresh\n\n"]));
    let (out, restarts, seen) = restarting(&retrying(&mock, quick()));
    assert_eq!(out.result.as_ref().expect("retried").attempts, 2);
    assert_eq!(restarts, 1, "told to forget the cut attempt once");
    assert_eq!(
        out.text(),
        "data: fresh\n\n",
        "nothing of the cut attempt is kept"
    );
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(
        (seen[0].attempt, seen[0].of, seen[0].reason.as_str()),
        (2, 3, ansa::provider::http::CONNECTION_LOST)
    );
    assert_eq!(mock.requests_to(RESPONSES).len(), 2);
}

#[test]
fn a_stream_cut_every_time_ends_after_the_policy_s_attempts() {
    let mock = MockProvider::http();
    for _ in 0..4 {
        mock.push(
            RESPONSES,
            MockResponse::sse(["data: 1\n\n", "data: 2\n\n"])
                .chunk_delay(Duration::from_millis(30))
                .drop_after(12),
        );
    }
    let (out, restarts, seen) = restarting(&retrying(&mock, quick()));
    assert!(
        matches!(out.error(), StreamError::Interrupted { .. }),
        "{:?}",
        out.result
    );
    assert_eq!((restarts, seen.len()), (2, 2));
    assert_eq!(mock.requests_to(RESPONSES).len(), 3);
}

#[test]
fn a_retry_after_http_date_is_honoured() {
    let mock = MockProvider::http();
    let at = std::time::SystemTime::now() + Duration::from_secs(2);
    mock.push(
        RESPONSES,
        MockResponse::new(503).header("retry-after", &httpdate::fmt_http_date(at)),
    );
    mock.push(RESPONSES, MockResponse::sse(["data: ok\n\n"]));
    let start = Instant::now();
    let out = stream(&retrying(&mock, quick()));
    assert_eq!(out.result.as_ref().expect("after the date").attempts, 2);
    // The date has whole seconds: the wait is between one and two of them.
    let elapsed = start.elapsed();
    assert!(elapsed >= Duration::from_millis(900), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
}

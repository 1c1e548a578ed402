//! Status codes become typed errors; redirects are never followed; URLs are checked up front.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use ansa::provider::http::{
    ClientOptions, HttpClient, HttpError, RetryPolicy, StreamError, TransportKind,
};

use crate::common::*;
use crate::mock_provider::{MockProvider, MockResponse};

/// The error of a streaming POST answered by `response`, which must fail before any byte.
fn refused(response: MockResponse) -> HttpError {
    let mock = MockProvider::http();
    mock.push(RESPONSES, response);
    let out = stream(&client(&mock));
    assert!(out.chunks.is_empty());
    match out.result {
        Err(StreamError::Request(e)) => e,
        other => panic!("{other:?}"),
    }
}

#[test]
fn redirects_are_not_followed() {
    let mock = MockProvider::http();
    let target = format!("{}/v1/elsewhere", mock.origin());
    mock.push(
        RESPONSES,
        MockResponse::redirect(302, &format!("{target}?token=abc")),
    );
    mock.push("/v1/elsewhere", MockResponse::sse(["data: hijacked\n\n"]));
    let out = stream(&client(&mock));
    match out.error() {
        StreamError::Request(
            e @ HttpError::Redirect {
                status: 302,
                location,
                ..
            },
        ) => {
            assert_eq!(location, &target, "named without its query");
            assert!(e.to_string().contains(&target), "{e}");
            assert!(!e.to_string().contains("abc"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(mock.requests_to("/v1/elsewhere").is_empty());
    assert_eq!(mock.pending("/v1/elsewhere"), 1);
}

#[test]
fn auth_errors() {
    for status in [401, 403] {
        let echo = format!("Incorrect API key provided: {KEY}");
        let e = refused(MockResponse::openai_error(status, "invalid_api_key", &echo));
        match &e {
            HttpError::Auth {
                status: s, message, ..
            } => {
                assert_eq!(*s, status);
                assert_eq!(message, "Incorrect API key provided: <redacted>");
            }
            other => panic!("{other:?}"),
        }
        let text = e.to_string();
        assert!(!text.contains(KEY), "{text}");
        assert!(!format!("{e:?}").contains(KEY));
        assert!(text.contains("AI_API_KEY"), "{text}");
    }
}

#[test]
fn rate_limited_carries_the_wait() {
    let e = refused(
        MockResponse::json(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "2"),
    );
    assert_eq!(
        e,
        HttpError::RateLimited {
            url: e_url(&e),
            retry_after: Some(Duration::from_secs(2)),
            message: "slow down".into(),
        }
    );
    let e = refused(MockResponse::new(429).header("retry-after-ms", "1500"));
    assert!(
        matches!(e, HttpError::RateLimited { retry_after: Some(d), .. } if d == Duration::from_millis(1500)),
        "{e:?}"
    );
}

fn e_url(e: &HttpError) -> String {
    match e {
        HttpError::RateLimited { url, .. } => {
            assert!(url.ends_with("/v1/responses"), "{url}");
            url.clone()
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn server_context_and_other_client_errors() {
    assert!(matches!(
        refused(MockResponse::json(503, r#"{"error":"down"}"#)),
        HttpError::Server { status: 503, ref message, .. } if message == "down"
    ));
    let e = refused(MockResponse::openai_error(
        400,
        "context_length_exceeded",
        "Your input exceeds the context window of this model.",
    ));
    assert!(matches!(e, HttpError::ContextLength { .. }), "{e:?}");
    assert!(e.to_string().contains("compact"), "{e}");
    let e = refused(MockResponse::openai_error(
        400,
        "invalid_value",
        "bad tool schema",
    ));
    assert_eq!(e.status(), Some(400));
    assert!(
        matches!(&e, HttpError::Rejected { status: 400, message, .. } if message == "bad tool schema"),
        "{e:?}"
    );
    let e = refused(MockResponse::openai_error(
        429,
        "insufficient_quota",
        "no credit",
    ));
    assert!(matches!(e, HttpError::QuotaExceeded { .. }), "{e:?}");
    let e = refused(MockResponse::new(204));
    assert!(
        matches!(e, HttpError::UnexpectedStatus { status: 204, .. }),
        "{e:?}"
    );
    // An HTML error page from a proxy is described, not dumped.
    let e = refused(
        MockResponse::new(502)
            .header("content-type", "text/html")
            .body("<html>bad gateway</html>"),
    );
    assert!(
        matches!(&e, HttpError::Server { status: 502, message, .. } if message.contains("text/html")),
        "{e:?}"
    );
}

#[test]
fn plain_http_to_a_remote_host_is_refused_at_construction() {
    for url in [
        "http://example.com/v1",
        "http://10.1.2.3:8080/v1",
        "http://[2001:db8::1]/v1",
    ] {
        let e = HttpClient::new(url, &ClientOptions::default()).unwrap_err();
        assert!(matches!(e, HttpError::InsecureUrl { .. }), "{url}: {e:?}");
        assert!(e.to_string().contains("https://"), "{e}");
    }
    for url in [
        "http://localhost:1/v1",
        "http://127.0.0.2:1/v1",
        "http://[::1]:1/v1",
    ] {
        assert!(
            HttpClient::new(url, &ClientOptions::default()).is_ok(),
            "{url}"
        );
    }
}

#[test]
fn connection_refused_is_a_connect_error() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let client = HttpClient::new(
        &format!("http://127.0.0.1:{port}/v1"),
        &ClientOptions {
            retry: RetryPolicy::NEVER,
            ..ClientOptions::default()
        },
    )
    .expect("client");
    let out = stream(&client);
    let e = out.error().http().expect("http error");
    assert_eq!(e.transport_kind(), Some(TransportKind::Connect), "{e}");
    assert!(e.to_string().contains(&format!("127.0.0.1:{port}")), "{e}");
}

#[test]
fn get_json_models() {
    let mock = MockProvider::http();
    let models = r#"{"object":"list","data":[{"id":"m"}]}"#;
    mock.push("/v1/models", MockResponse::json(200, models));
    mock.push("/v1/models", MockResponse::sse(["data: x\n\n"]));
    mock.push("/v1/models", MockResponse::json(200, &"x".repeat(5000)));
    let client = client(&mock);
    let never = AtomicBool::new(false);
    let body = client
        .get_json("/models", &headers(), &limits(), &never)
        .expect("models");
    assert_eq!(body, models.as_bytes());
    let [req] = mock.requests().try_into().expect("one request");
    assert_eq!(
        (req.method.as_str(), req.path.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(req.header("authorization"), Some(&*format!("Bearer {KEY}")));
    let e = client
        .get_json("/models", &headers(), &limits(), &never)
        .unwrap_err();
    assert!(
        matches!(
            e,
            HttpError::ContentType {
                expected: "application/json",
                ..
            }
        ),
        "{e:?}"
    );
    let small = ansa::provider::http::Limits {
        max_body_bytes: 1000,
        ..limits()
    };
    let e = client
        .get_json("/models", &headers(), &small, &never)
        .unwrap_err();
    assert!(
        matches!(e, HttpError::BodyTooLarge { limit: 1000, .. }),
        "{e:?}"
    );
}

//! The transport through a real `ash-broker`: event streams pass through as they arrive, and a
//! failure after forwarding is never sent again.

use std::sync::atomic::AtomicBool;

use ansa::provider::http::{
    ClientOptions, HttpClient, HttpError, MimePolicy, RetryPolicy, StreamError, StreamRequest,
};
use ash_broker::client::Route;

use crate::broker_support::Broker;
use crate::common::{BODY, RESPONSES, headers, limits, options, stream};
use crate::mock_provider::{Gate, MockChunk, MockProvider, MockResponse, sse_event};

fn through(mock: &MockProvider, broker: &Broker, retry: RetryPolicy) -> HttpClient {
    let route = Route::from_values(broker.socket.to_str(), Some(&broker.token))
        .unwrap()
        .unwrap();
    let options = ClientOptions {
        broker: Some(route),
        retry,
        ..options(mock)
    };
    HttpClient::new(&mock.base_url(), &options).unwrap()
}

#[test]
fn an_event_stream_passes_through_the_broker_as_it_arrives() {
    let mock = MockProvider::https();
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(&dir.path().join("run"), &mock);
    let (g1, g2) = (Gate::new(), Gate::new());
    mock.push(
        RESPONSES,
        MockResponse::sse([sse_event("one", "{}")])
            .chunk(MockChunk::new(sse_event("two", "{}")).gated(&g1))
            .chunk(MockChunk::new(sse_event("three", "{}")).gated(&g2)),
    );
    let client = through(&mock, &broker, RetryPolicy::NEVER);
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
    // Each later chunk is sent only after the client saw the one before: a broker that
    // buffered the stream would stall this until the idle timeout.
    client
        .post_stream(&request, |chunk: &[u8]| {
            got.push_str(std::str::from_utf8(chunk).unwrap());
            if got.contains("event: one\n") && !got.contains("two") {
                g1.open();
            }
            if got.contains("event: two\n") && !got.contains("three") {
                g2.open();
            }
            Ok::<(), ()>(())
        })
        .unwrap();
    assert!(got.contains("event: three\n"), "{got}");
    let seen = mock.requests_to(RESPONSES);
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].body, BODY, "the body is forwarded byte for byte");
    assert_eq!(mock.handshakes(), 1);
}

#[test]
fn a_stream_cut_after_forwarding_is_never_sent_again() {
    let mock = MockProvider::https();
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(&dir.path().join("run"), &mock);
    mock.push(
        RESPONSES,
        MockResponse::sse([sse_event("one", "{}")]).drop_after(0),
    );
    mock.push(RESPONSES, MockResponse::sse([sse_event("one", "{}")]));
    let retry = RetryPolicy {
        max_attempts: 3,
        ..RetryPolicy::default()
    };
    let client = through(&mock, &broker, retry);
    let outcome = stream(&client);
    let err = outcome.error();
    let StreamError::Request(failed @ HttpError::BrokerFailed { .. }) = err else {
        panic!("not a broker failure: {err:?}");
    };
    assert!(failed.to_string().contains("not sent again"), "{failed}");
    assert_eq!(
        mock.requests_to(RESPONSES).len(),
        1,
        "sent once, not retried"
    );
}

//! TLS: the test CA comes in through the CA-file option; without it the handshake fails.

use std::path::PathBuf;

use ansa::provider::http::{ClientOptions, HttpClient, HttpError, StreamError, TransportKind};

use crate::common::*;
use crate::mock_provider::{MockProvider, MockResponse};

#[test]
fn untrusted_certificate_is_a_tls_error() {
    let mock = MockProvider::https();
    mock.push(RESPONSES, MockResponse::sse(["data: secret\n\n"]));
    let no_ca = ClientOptions {
        ca_file: None,
        ..options(&mock)
    };
    let client = HttpClient::new(&mock.base_url(), &no_ca).expect("client");
    let out = stream(&client);
    assert!(out.chunks.is_empty());
    let e = out.error().http().expect("http error");
    assert_eq!(e.transport_kind(), Some(TransportKind::Tls), "{e}");
    assert!(e.to_string().contains("AI_CA_FILE"), "{e}");
    assert!(mock.requests().is_empty());
    assert!(matches!(out.error(), StreamError::Request(_)));
}

#[test]
fn trusted_via_ca_file_by_ip_and_by_name() {
    let mock = MockProvider::https();
    for base in [mock.base_url(), mock.localhost_base_url()] {
        mock.push(RESPONSES, MockResponse::sse(["data: ok\n\n"]));
        let client = HttpClient::new(&base, &options(&mock)).expect("client");
        let out = stream(&client);
        assert_eq!(out.text(), "data: ok\n\n", "{base}: {:?}", out.result.err());
    }
    assert!(mock.requests().iter().all(|r| r.version == "HTTP/2.0"));
}

#[test]
fn bad_ca_file_is_refused_at_construction() {
    let dir = tempfile::tempdir().expect("dir");
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "not a certificate").expect("write");
    for path in [junk, PathBuf::from("/nonexistent/ca.pem")] {
        let options = ClientOptions {
            ca_file: Some(path.clone()),
            ..ClientOptions::default()
        };
        let e = HttpClient::new("https://127.0.0.1:1/v1", &options).unwrap_err();
        assert!(matches!(e, HttpError::CaFile { .. }), "{path:?}: {e:?}");
        assert!(e.to_string().contains("AI_CA_FILE"), "{e}");
    }
}

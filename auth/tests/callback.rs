//! The loopback callback with real TCP clients, as a browser would reach it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread::JoinHandle;
use std::time::Duration;

use ansa_auth::{Callback, CallbackError, CallbackServer};

const STATE: &str = "st-0123456789abcdef";

fn serve(timeout: Duration) -> (String, JoinHandle<Result<Callback, CallbackError>>) {
    let server = CallbackServer::bind().unwrap();
    let uri = server.redirect_uri();
    assert!(
        uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback"),
        "{uri}"
    );
    (uri, std::thread::spawn(move || server.wait(STATE, timeout)))
}

/// Sends `GET target` to the callback's port and returns the status line and body.
fn get(uri: &str, target: &str) -> std::io::Result<String> {
    let addr = uri
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .unwrap();
    let mut s = TcpStream::connect(addr)?;
    write!(s, "GET {target} HTTP/1.1\r\nhost: {addr}\r\n\r\n")?;
    let mut out = String::new();
    s.read_to_string(&mut out)?;
    Ok(out)
}

#[test]
fn the_callback_with_the_right_state_gives_the_code_and_the_issued_client_id() {
    let (uri, waiting) = serve(Duration::from_secs(20));
    // A browser asks for its icon first; that is not the callback.
    assert!(
        get(&uri, "/favicon.ico")
            .unwrap()
            .starts_with("HTTP/1.1 404")
    );
    let page = get(
        &uri,
        &format!("/callback?code=c%2Fode-1&state={STATE}&client_id=app_issued_9"),
    )
    .unwrap();
    assert!(
        page.starts_with("HTTP/1.1 200") && page.contains("Signed in"),
        "{page}"
    );
    let callback = waiting.join().unwrap().unwrap();
    assert_eq!(callback.code, "c/ode-1");
    assert_eq!(callback.client_id.as_deref(), Some("app_issued_9"));
    assert!(!format!("{callback:?}").contains("c/ode-1"));
    // The listener is gone: a second callback finds nobody.
    assert!(get(&uri, &format!("/callback?code=x&state={STATE}")).is_err());
}

#[test]
fn a_wrong_state_an_error_and_a_missing_code_end_the_sign_in() {
    let cases = [
        (
            "/callback?code=c&state=forged".to_owned(),
            CallbackError::StateMismatch,
        ),
        ("/callback?code=c".to_owned(), CallbackError::StateMismatch),
        (
            format!("/callback?state={STATE}&error=access_denied&error_description=User+said+no"),
            CallbackError::Denied {
                error: "access_denied".into(),
                description: Some("User said no".into()),
            },
        ),
        (
            format!("/callback?state={STATE}"),
            CallbackError::Missing("code"),
        ),
    ];
    for (target, expected) in cases {
        let (uri, waiting) = serve(Duration::from_secs(20));
        let page = get(&uri, &target).unwrap();
        assert!(page.starts_with("HTTP/1.1 400"), "{target}: {page}");
        let err = waiting.join().unwrap().unwrap_err();
        assert_eq!(err, expected, "{target}");
        assert!(err.to_string().contains("ansa --login"), "{err}");
    }
}

#[test]
fn an_oversized_request_is_refused_and_silence_times_out() {
    let (uri, waiting) = serve(Duration::from_secs(20));
    let huge = format!("/callback?state={STATE}&code={}", "x".repeat(20_000));
    let page = get(&uri, &huge).unwrap_or_default();
    assert!(
        page.is_empty() || page.starts_with("HTTP/1.1 431"),
        "{page}"
    );
    assert_eq!(
        waiting.join().unwrap().unwrap_err(),
        CallbackError::TooLarge
    );

    let (_uri, waiting) = serve(Duration::from_millis(300));
    let err = waiting.join().unwrap().unwrap_err();
    assert!(matches!(err, CallbackError::Timeout { .. }), "{err}");
}

#[test]
fn a_connection_that_sends_nothing_does_not_block_the_real_callback() {
    let (uri, waiting) = serve(Duration::from_secs(30));
    let addr = uri
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .unwrap()
        .to_owned();
    let idle = TcpStream::connect(&addr).unwrap();
    drop(idle);
    let page = get(&uri, &format!("/callback?code=ok&state={STATE}")).unwrap();
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert_eq!(waiting.join().unwrap().unwrap().code, "ok");
}

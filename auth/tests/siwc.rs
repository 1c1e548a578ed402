//! The browser sign-in against a real issuer and a real browser: npm `oidc-provider`
//! configured as a Sign in with ChatGPT issuer (`tests/support/oidc/issuer.mjs`), and
//! Debian's `chromium-headless-shell` loading the printed URL as a user's browser would. The
//! callback must carry the issued client ID, and the code must exchange with the PKCE
//! verifier (and only with it).
//!
//! Skipped with a notice unless `ANSA_OIDC_MODULES` names a node_modules directory holding
//! oidc-provider and `ANSA_CHROMIUM` (or `chromium-headless-shell` on PATH) a headless browser;
//! `.ci/run` provides both.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use ansa_auth::{
    AuthDir, AuthorizeOptions, CallbackServer, DYNAMIC_CLIENT_ID, Discovery, ExchangeError,
    Expected, HostId, Http, RESOURCE, authorize, exchange_code, refresh, verify_id_token,
};

/// A process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn browser() -> Option<String> {
    std::env::var("ANSA_CHROMIUM").ok().or_else(|| {
        let found = Command::new("sh")
            .args(["-c", "command -v chromium-headless-shell"])
            .output()
            .ok()?;
        let path = String::from_utf8_lossy(&found.stdout).trim().to_owned();
        (!path.is_empty()).then_some(path)
    })
}

/// Starts the issuer; `None` (with a notice) when the test's tools are missing.
fn issuer() -> Option<(Killed, String)> {
    let Some(modules) = std::env::var_os("ANSA_OIDC_MODULES") else {
        eprintln!("skipped: set ANSA_OIDC_MODULES to a node_modules directory with oidc-provider");
        return None;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/support/oidc/issuer.mjs"
    );
    let mut child = Command::new("node")
        .args([script, &port.to_string()])
        .env("ANSA_OIDC_MODULES", modules)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("node runs the issuer");
    let stdout = child.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    assert!(
        line.starts_with("listening "),
        "the issuer did not start: {line:?}"
    );
    Some((Killed(child), format!("http://127.0.0.1:{port}")))
}

/// One HTTP/1.0 request to the loopback issuer; returns (status, body).
fn http(url: &str, method: &str, form: Option<&str>) -> (u16, Vec<u8>) {
    let rest = url.strip_prefix("http://").unwrap();
    let (addr, path) = rest.split_at(rest.find('/').unwrap());
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let body = form.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.0\r\nhost: {addr}\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]);
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, raw[split + 4..].to_vec())
}

fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| {
            let enc: String = v
                .bytes()
                .map(|b| match b {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                        (b as char).to_string()
                    }
                    _ => format!("%{b:02X}"),
                })
                .collect();
            format!("{k}={enc}")
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[test]
fn a_browser_sign_in_returns_the_issued_client_and_a_code_only_the_verifier_redeems() {
    let Some(chromium) = browser() else {
        eprintln!("skipped: no chromium-headless-shell (set ANSA_CHROMIUM)");
        return;
    };
    let Some((_issuer, issuer)) = issuer() else {
        return;
    };
    let (status, doc) = http(
        &format!("{issuer}/.well-known/openid-configuration"),
        "GET",
        None,
    );
    assert_eq!(status, 200);
    let discovery = Discovery::parse(&issuer, &doc).unwrap();
    assert!(discovery.device_authorization_endpoint.is_some());
    assert!(discovery.revocation_endpoint.is_some());

    let store = tempfile::tempdir().unwrap();
    let dir = AuthDir::create(&store.path().join("auth")).unwrap();
    let host = HostId::load_or_create(&dir).unwrap();
    let callback = CallbackServer::bind().unwrap();
    let redirect = callback.redirect_uri();
    let sign_in = authorize(&discovery, &redirect, &host, AuthorizeOptions::default()).unwrap();
    let state = sign_in.state.clone();
    let waiting = std::thread::spawn(move || callback.wait(&state, Duration::from_secs(60)));
    let mut args = vec!["--disable-gpu", "--dump-dom", "--timeout=30000"];
    if nix::unistd::Uid::effective().is_root() {
        args.push("--no-sandbox");
    }
    let _browser = Killed(
        Command::new(&chromium)
            .args(&args)
            .arg(&sign_in.url)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the browser starts"),
    );
    let got = waiting.join().unwrap().expect("a callback");
    let client_id = got.client_id.clone().expect("the issued client ID");
    assert!(
        client_id.starts_with("app_") && client_id != DYNAMIC_CLIENT_ID,
        "{client_id}"
    );

    let exchange = |verifier: &str| {
        http(
            &format!("{}", discovery.token_endpoint),
            "POST",
            Some(&form(&[
                ("grant_type", "authorization_code"),
                ("code", &got.code),
                ("redirect_uri", &redirect),
                ("client_id", &client_id),
                ("code_verifier", verifier),
                ("resource", RESOURCE),
            ])),
        )
    };
    let (status, body) = exchange("a-wrong-verifier-of-the-right-length-0123456789abcdef");
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    // The right verifier redeems it, through the crate's own exchange.
    let http_client = Http::new().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let tokens = runtime
        .block_on(exchange_code(
            &http_client,
            &discovery,
            &client_id,
            &got.code,
            &redirect,
            sign_in.verifier,
        ))
        .expect("the code redeems");
    let first_refresh = tokens.refresh_token.clone().expect("a refresh token");
    assert!(tokens.earliest_refresh_at.is_some(), "{tokens:?}");
    assert!(
        tokens
            .scope
            .iter()
            .any(|s| s == "chatgpt.tokens.use.direct"),
        "{tokens:?}"
    );
    // The id_token verifies against the issuer's live key set, for this sign-in only.
    let (status, jwks) = http(discovery.jwks_uri.as_str(), "GET", None);
    assert_eq!(status, 200);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let expected = Expected {
        issuer: &issuer,
        client_id: &client_id,
        nonce: &sign_in.nonce,
        subject: None,
        now,
    };
    let id_token = tokens.id_token.as_deref().expect("an id_token");
    let claims = verify_id_token(id_token, &jwks, expected).expect("a valid id_token");
    assert_eq!(claims.subject, "user-1");
    let other = Expected {
        nonce: "another-sign-in",
        ..expected
    };
    assert!(verify_id_token(id_token, &jwks, other).is_err());
    // A replayed code is refused.
    let (status, _) = exchange("anything");
    assert_eq!(status, 400);

    // Refresh rotates; spending an old refresh token again ends the sign-in (the issuer revokes
    // the grant, so the rotated one is dead too).
    let rotated = runtime
        .block_on(refresh(
            &http_client,
            &discovery,
            &client_id,
            &first_refresh,
        ))
        .expect("a refresh");
    let second_refresh = rotated
        .refresh_token
        .clone()
        .expect("a rotated refresh token");
    assert_ne!(second_refresh, first_refresh);
    assert_ne!(rotated.access_token, tokens.access_token);
    for spent in [&first_refresh, &second_refresh] {
        let err = runtime
            .block_on(refresh(&http_client, &discovery, &client_id, spent))
            .unwrap_err();
        assert!(
            matches!(&err, ExchangeError::Ended { code, .. } if code == "invalid_grant"),
            "{err}"
        );
        assert!(err.to_string().contains("ansa --login"), "{err}");
    }
}

/// A token endpoint that reads the request and hangs up without answering: the outcome of
/// a refresh sent there is unknown.
#[test]
fn a_refresh_without_an_answer_is_uncertain_and_an_unreachable_issuer_is_not() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
        }
    });
    let doc = |token: String| {
        format!(
            r#"{{"issuer":"http://127.0.0.1:{port}","authorization_endpoint":"http://127.0.0.1:{port}/auth","token_endpoint":"{token}","jwks_uri":"http://127.0.0.1:{port}/jwks"}}"#
        )
    };
    let issuer = format!("http://127.0.0.1:{port}");
    let hanging = Discovery::parse(&issuer, doc(format!("{issuer}/token")).as_bytes()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let http_client = Http::new().unwrap();
    let err = runtime
        .block_on(refresh(&http_client, &hanging, "app_x", "rt"))
        .unwrap_err();
    assert!(matches!(err, ExchangeError::Uncertain(_)), "{err}");
    assert!(
        err.to_string().starts_with("auth_refresh_uncertain"),
        "{err}"
    );
    // Nothing listens on port 9 of loopback: the request never left.
    let closed =
        Discovery::parse(&issuer, doc("http://127.0.0.1:9/token".into()).as_bytes()).unwrap();
    let err = runtime
        .block_on(refresh(&http_client, &closed, "app_x", "rt"))
        .unwrap_err();
    assert!(matches!(err, ExchangeError::Unreachable(_)), "{err}");
}

//! The browser sign-in against a real issuer and a real browser: npm `oidc-provider`
//! configured as a Sign in with ChatGPT issuer (`tests/support/oidc/issuer.mjs`), and
//! Debian's `chromium-headless-shell` loading the printed URL as a user's browser would. The
//! callback must carry the issued client ID, and the code must exchange with the PKCE
//! verifier (and only with it).
//!
//! They need `ANSA_OIDC_MODULES` naming a node_modules directory holding oidc-provider and
//! `ANSA_CHROMIUM` (or `chromium-headless-shell` on PATH) a headless browser, so `cargo test`
//! reports them as ignored; `cargo xtask test` provides both and runs them. Run by hand
//! (`--ignored`) without them, they fail and say how to install them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use ansa_auth::{
    AuthDir, AuthorizeOptions, BrowserSignIn, CallbackError, CallbackServer, Credentials,
    DYNAMIC_CLIENT_ID, Discovery, ExchangeError, Expected, HostId, Http, PENDING_FILE, PLAN_SCOPE,
    RefreshError, Revocation, SignInError, StoreChoice, authorize, ensure_fresh, exchange_code,
    now_ms, refresh_tokens as refresh, revoke, sign_in_browser, sign_in_device, sign_out,
    verify_id_token,
};
use oauth2::PkceCodeVerifier;

#[path = "../../tests/support/oidc/harness.rs"]
mod harness;

use harness::{Killed, Pki, browser, issuer, pki};

/// Everything a browser test needs: the browser, a running HTTPS issuer, a client that
/// trusts it, a runtime, and the issuer's discovery. Without the browser or the issuer's
/// modules the test fails and says how to install them.
struct World {
    chromium: String,
    pki: Pki,
    _issuer: Killed,
    issuer: String,
    http: Http,
    runtime: tokio::runtime::Runtime,
    discovery: Discovery,
}

fn world() -> World {
    let chromium = browser().unwrap_or_else(|| {
        panic!(
            "these tests drive a real headless browser: install it (Debian: apt-get install chromium-headless-shell) or set ANSA_CHROMIUM to one"
        )
    });
    let pki = pki();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (guard, issuer) = issuer(&pki, &root);
    let http = Http::with_roots(Some(pki.ca_pem.as_bytes())).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let doc = runtime
        .block_on(http.get(&format!("{issuer}/.well-known/openid-configuration")))
        .expect("discovery");
    let discovery = Discovery::parse(&issuer, &doc).unwrap();
    World {
        chromium,
        pki,
        _issuer: guard,
        issuer,
        http,
        runtime,
        discovery,
    }
}

#[test]
#[ignore = "needs chromium-headless-shell and oidc-provider: run cargo xtask test"]
fn a_browser_sign_in_returns_the_issued_client_and_a_code_only_the_verifier_redeems() {
    let w = world();
    let World {
        chromium,
        issuer,
        http: http_client,
        runtime,
        discovery,
        ..
    } = &w;
    assert!(discovery.device_authorization_endpoint.is_some());
    assert!(discovery.revocation_endpoint.is_some());
    // Without the test CA the issuer is not trusted.
    assert!(
        runtime
            .block_on(Http::new().unwrap().get(&format!("{issuer}/jwks")))
            .is_err()
    );

    let store = tempfile::tempdir().unwrap();
    let dir = AuthDir::create(&store.path().join("auth")).unwrap();
    let host = HostId::load_or_create(&dir).unwrap();
    let callback = CallbackServer::bind().unwrap();
    let redirect = callback.redirect_uri();
    let sign_in = authorize(discovery, &redirect, &host, AuthorizeOptions::default()).unwrap();
    let state = sign_in.state.clone();
    let waiting = std::thread::spawn(move || callback.wait(&state, Duration::from_secs(60)));
    // The test CA is not in the browser's store; a user's browser trusts the real issuer.
    let mut args = vec![
        "--disable-gpu",
        "--dump-dom",
        "--timeout=55000",
        "--ignore-certificate-errors",
    ];
    if nix::unistd::Uid::effective().is_root() {
        args.push("--no-sandbox");
    }
    let _browser = Killed(
        Command::new(chromium)
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

    let redeem = |verifier: PkceCodeVerifier| {
        runtime.block_on(exchange_code(
            http_client,
            discovery,
            &client_id,
            &got.code,
            &redirect,
            verifier,
        ))
    };
    let wrong =
        PkceCodeVerifier::new("a-wrong-verifier-of-the-right-length-0123456789abcdef".into());
    assert!(matches!(redeem(wrong), Err(ExchangeError::Ended { .. })));
    // The right verifier redeems it, once.
    let tokens = redeem(sign_in.verifier).expect("the code redeems");
    let replay =
        PkceCodeVerifier::new("a-replay-verifier-of-the-right-length-0123456789abcd".into());
    assert!(matches!(redeem(replay), Err(ExchangeError::Ended { .. })));
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
    let jwks = runtime
        .block_on(http_client.get(discovery.jwks_uri.as_str()))
        .expect("the key set");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let expected = Expected {
        issuer,
        client_id: &client_id,
        nonce: Some(&sign_in.nonce),
        subject: None,
        now,
    };
    let id_token = tokens.id_token.as_deref().expect("an id_token");
    let claims = verify_id_token(id_token, &jwks, expected).expect("a valid id_token");
    assert_eq!(claims.subject, "user-1");
    let other = Expected {
        nonce: Some("another-sign-in"),
        ..expected
    };
    assert!(verify_id_token(id_token, &jwks, other).is_err());
    // Refresh rotates; spending an old refresh token again ends the sign-in (the issuer revokes
    // the grant, so the rotated one is dead too).
    let rotated = runtime
        .block_on(refresh(http_client, discovery, &client_id, &first_refresh))
        .expect("a refresh");
    let second_refresh = rotated
        .refresh_token
        .clone()
        .expect("a rotated refresh token");
    assert_ne!(second_refresh, first_refresh);
    assert_ne!(rotated.access_token, tokens.access_token);
    // Signing out revokes the live refresh token; the issuer confirms it.
    let revoked = runtime.block_on(revoke(http_client, discovery, &client_id, &second_refresh));
    assert_eq!(revoked, Revocation::Confirmed);
    assert!(revoked.confirmed());
    for spent in [&first_refresh, &second_refresh] {
        let err = runtime
            .block_on(refresh(http_client, discovery, &client_id, spent))
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
    // Revocation where nobody answers is not confirmed, and says why.
    let revoking = format!(
        r#"{{"issuer":"{issuer}","authorization_endpoint":"{issuer}/auth","token_endpoint":"{issuer}/token","jwks_uri":"{issuer}/jwks","revocation_endpoint":"http://127.0.0.1:9/revoke"}}"#
    );
    let d = Discovery::parse(&issuer, revoking.as_bytes()).unwrap();
    let r = runtime.block_on(revoke(&http_client, &d, "app_x", "rt"));
    assert!(
        matches!(&r, Revocation::NotConfirmed(why) if !why.is_empty()),
        "{r:?}"
    );
    let r = runtime.block_on(revoke(&http_client, &hanging, "app_x", "rt"));
    assert!(!r.confirmed(), "no revocation endpoint: {r:?}");
}

fn open_in_browser(chromium: &str, url: &str) -> Killed {
    let mut args = vec![
        "--disable-gpu",
        "--dump-dom",
        "--timeout=55000",
        "--ignore-certificate-errors",
    ];
    if nix::unistd::Uid::effective().is_root() {
        args.push("--no-sandbox");
    }
    Killed(
        Command::new(chromium)
            .args(&args)
            .arg(url)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the browser starts"),
    )
}

#[test]
#[ignore = "needs chromium-headless-shell and oidc-provider: run cargo xtask test"]
fn a_whole_browser_sign_in_saves_the_credentials_only_when_every_check_passed() {
    let w = world();
    let World {
        chromium,
        issuer,
        http: http_client,
        runtime,
        ..
    } = &w;
    let home = tempfile::tempdir().unwrap();
    let store = AuthDir::create(&home.path().join("auth")).unwrap();

    // Nobody opens the URL: the wait ends, and nothing was written.
    let err = runtime
        .block_on(sign_in_browser(
            BrowserSignIn {
                issuer,
                store: &store,
                http: http_client,
                consent: false,
                wait: Duration::from_millis(300),
            },
            |_| {},
        ))
        .unwrap_err();
    assert!(
        matches!(err, SignInError::Callback(CallbackError::Timeout { .. })),
        "{err}"
    );
    assert!(Credentials::load(&store).unwrap().is_none());

    let mut browser_process = None;
    let signed = runtime
        .block_on(sign_in_browser(
            BrowserSignIn {
                issuer,
                store: &store,
                http: http_client,
                consent: false,
                wait: Duration::from_secs(60),
            },
            |url| browser_process = Some(open_in_browser(chromium, url)),
        ))
        .expect("signed in");
    assert_eq!(signed.subject, "user-1");
    let saved = Credentials::load(&store)
        .unwrap()
        .expect("saved credentials");
    assert!(saved.client_id.starts_with("app_"), "{saved:?}");
    assert_eq!(saved.subject, "user-1");
    assert!(saved.scope.iter().any(|s| s == PLAN_SCOPE), "{saved:?}");
    assert!(saved.earliest_refresh_at_ms.is_some());
    assert_eq!(
        StoreChoice::load(&store).unwrap().map(|c| c.backend),
        Some(harness::expected_backend())
    );
    harness::assert_backend(store.path());

    // A returning sign-in sends its id_token hint and gets new tokens for the same account.
    let again = runtime
        .block_on(sign_in_browser(
            BrowserSignIn {
                issuer,
                store: &store,
                http: http_client,
                consent: true,
                wait: Duration::from_secs(60),
            },
            |url| {
                assert!(
                    url.contains("id_token_hint=") && url.contains("prompt=consent"),
                    "{url}"
                );
                browser_process = Some(open_in_browser(chromium, url));
            },
        ))
        .expect("signed in again");
    assert_eq!(again.subject, "user-1");
    let renewed = Credentials::load(&store).unwrap().unwrap();
    assert_ne!(renewed.refresh_token, saved.refresh_token);
    assert_eq!(
        renewed.client_id, saved.client_id,
        "one registration per host"
    );
}

/// Signs in to a fresh store through the browser; returns the store's directory.
fn signed_in(
    runtime: &tokio::runtime::Runtime,
    chromium: &str,
    issuer: &str,
    http_client: &Http,
    home: &std::path::Path,
) -> AuthDir {
    let store = AuthDir::create(&home.join("auth")).unwrap();
    let mut browser_process = None;
    runtime
        .block_on(sign_in_browser(
            BrowserSignIn {
                issuer,
                store: &store,
                http: http_client,
                consent: false,
                wait: Duration::from_secs(60),
            },
            |url| browser_process = Some(open_in_browser(chromium, url)),
        ))
        .expect("signed in");
    store
}

/// The child process of the refresh race: refreshes the store named by the environment and
/// writes the access token it ended with.
#[test]
#[ignore = "the child process of refreshes_happen_once_under_the_lock_and_never_with_an_uncertain_token"]
fn child_refresher() {
    let spec = std::env::var("ANSA_AUTH_REFRESH_CHILD").expect("run by the refresh test");
    let mut parts = spec.split('\n');
    let (store, issuer, ca, out) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let http_client = Http::with_roots(Some(&std::fs::read(ca).unwrap())).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let doc = runtime
        .block_on(http_client.get(&format!("{issuer}/.well-known/openid-configuration")))
        .unwrap();
    let discovery = Discovery::parse(issuer, &doc).unwrap();
    let store = AuthDir::open(std::path::Path::new(store)).unwrap();
    let fresh = runtime
        .block_on(ensure_fresh(&store, &http_client, &discovery, false))
        .expect("fresh credentials");
    std::fs::write(out, fresh.access_token).unwrap();
}

#[test]
#[ignore = "needs chromium-headless-shell and oidc-provider: run cargo xtask test"]
fn refreshes_happen_once_under_the_lock_and_never_with_an_uncertain_token() {
    let w = world();
    let World {
        chromium,
        pki,
        issuer,
        http: http_client,
        runtime,
        discovery,
        ..
    } = &w;
    let home = tempfile::tempdir().unwrap();
    let store = signed_in(runtime, chromium, issuer, http_client, home.path());
    let first = Credentials::load(&store).unwrap().unwrap();

    // A fresh token costs nothing.
    let same = runtime
        .block_on(ensure_fresh(&store, http_client, discovery, false))
        .unwrap();
    assert_eq!(same, first);

    // Expired: two processes at once, exactly one exchange; both end with the same token.
    let expire = |store: &AuthDir| {
        let mut c = Credentials::load(store).unwrap().unwrap();
        c.expires_at_ms = now_ms();
        c.earliest_refresh_at_ms = None;
        c.save(store).unwrap();
        c
    };
    expire(&store);
    let ca = home.path().join("ca.pem");
    std::fs::write(&ca, &pki.ca_pem).unwrap();
    let children: Vec<(Child, std::path::PathBuf)> = (0..2)
        .map(|n| {
            let out = home.path().join(format!("token-{n}"));
            let spec = format!(
                "{}\n{issuer}\n{}\n{}",
                store.path().display(),
                ca.display(),
                out.display()
            );
            let child = Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "child_refresher",
                    "--ignored",
                    "--test-threads=1",
                ])
                .env("ANSA_AUTH_REFRESH_CHILD", spec)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            (child, out)
        })
        .collect();
    let mut tokens = Vec::new();
    for (mut child, out) in children {
        assert!(child.wait().unwrap().success(), "a refresher failed");
        tokens.push(std::fs::read_to_string(out).unwrap());
    }
    assert_eq!(
        tokens[0], tokens[1],
        "the second process used the first one's refresh"
    );
    assert_ne!(tokens[0], first.access_token);
    let refreshed = Credentials::load(&store).unwrap().unwrap();
    assert_eq!(refreshed.access_token, tokens[0]);
    assert!(store.read(PENDING_FILE).unwrap().is_none());

    // Not before the server's earliest time.
    let mut early = refreshed.clone();
    early.earliest_refresh_at_ms = Some(now_ms() + 60_000);
    early.save(&store).unwrap();
    let err = runtime
        .block_on(ensure_fresh(&store, http_client, discovery, true))
        .unwrap_err();
    assert!(
        err.to_string().starts_with("auth_refresh_not_ready"),
        "{err}"
    );

    // An earlier attempt with this token that got no answer: never sent again.
    let uncertain = expire(&store);
    let tail: String = uncertain.refresh_token.chars().rev().take(8).collect();
    let tail: String = tail.chars().rev().collect();
    store
        .write_atomic(PENDING_FILE, format!("{tail}\n").as_bytes())
        .unwrap();
    let err = runtime
        .block_on(ensure_fresh(&store, http_client, discovery, false))
        .unwrap_err();
    assert!(matches!(err, RefreshError::Uncertain), "{err}");
    assert_eq!(
        Credentials::load(&store).unwrap().unwrap(),
        uncertain,
        "the store is unchanged"
    );
    store.remove(PENDING_FILE).unwrap();

    // A grant the issuer revoked ends the sign-in, and the tokens are deleted.
    assert!(
        runtime
            .block_on(revoke(
                http_client,
                discovery,
                &uncertain.client_id,
                &uncertain.refresh_token
            ))
            .confirmed()
    );
    let err = runtime
        .block_on(ensure_fresh(&store, http_client, discovery, false))
        .unwrap_err();
    assert!(
        matches!(err, RefreshError::Exchange(ExchangeError::Ended { .. })),
        "{err}"
    );
    assert!(Credentials::load(&store).unwrap().is_none());
    let err = runtime
        .block_on(ensure_fresh(&store, http_client, discovery, false))
        .unwrap_err();
    assert!(matches!(err, RefreshError::SignedOut), "{err}");
}

#[test]
#[ignore = "needs chromium-headless-shell and oidc-provider: run cargo xtask test"]
fn sign_out_deletes_first_then_revokes_and_says_honestly_what_it_confirmed() {
    let w = world();
    let World {
        chromium,
        issuer,
        http: http_client,
        runtime,
        discovery,
        ..
    } = &w;

    let home = tempfile::tempdir().unwrap();
    let store = signed_in(runtime, chromium, issuer, http_client, home.path());
    let c = Credentials::load(&store).unwrap().unwrap();
    let out = runtime
        .block_on(sign_out(&store, http_client, Some(discovery)))
        .unwrap();
    assert!(out.local_deleted && out.remote.confirmed(), "{out:?}");
    assert!(Credentials::load(&store).unwrap().is_none());
    let err = runtime
        .block_on(refresh(
            http_client,
            discovery,
            &c.client_id,
            &c.refresh_token,
        ))
        .unwrap_err();
    assert!(matches!(err, ExchangeError::Ended { .. }), "revoked: {err}");
    let again = runtime
        .block_on(sign_out(&store, http_client, Some(discovery)))
        .unwrap();
    assert!(!again.local_deleted && !again.remote.confirmed());

    // Without the issuer, or after an uncertain refresh, nothing is confirmed.
    let home = tempfile::tempdir().unwrap();
    let store = signed_in(runtime, chromium, issuer, http_client, home.path());
    let out = runtime
        .block_on(sign_out(&store, http_client, None))
        .unwrap();
    assert!(out.local_deleted && !out.remote.confirmed(), "{out:?}");
    let home = tempfile::tempdir().unwrap();
    let store = signed_in(runtime, chromium, issuer, http_client, home.path());
    let c = Credentials::load(&store).unwrap().unwrap();
    let tail: String = c
        .refresh_token
        .chars()
        .rev()
        .take(8)
        .collect::<String>()
        .chars()
        .rev()
        .collect();
    store
        .write_atomic(PENDING_FILE, format!("{tail}\n").as_bytes())
        .unwrap();
    let out = runtime
        .block_on(sign_out(&store, http_client, Some(discovery)))
        .unwrap();
    assert!(out.local_deleted && !out.remote.confirmed(), "{out:?}");
    assert!(matches!(&out.remote, Revocation::NotConfirmed(why) if why.contains("unknown")));
    assert!(store.read(PENDING_FILE).unwrap().is_none());
}

#[test]
#[ignore = "needs chromium-headless-shell and oidc-provider: run cargo xtask test"]
fn a_device_sign_in_is_confirmed_in_a_browser_elsewhere_and_saved() {
    let w = world();
    let World {
        chromium,
        issuer,
        http: http_client,
        runtime,
        ..
    } = &w;
    let home = tempfile::tempdir().unwrap();
    let store = AuthDir::create(&home.path().join("auth")).unwrap();
    let mut browser_process = None;
    let mut shown = None;
    let signed = runtime
        .block_on(sign_in_device(
            issuer,
            &store,
            http_client,
            Duration::from_secs(60),
            |code| {
                shown = Some(code.clone());
                let url = code
                    .verification_uri_complete
                    .clone()
                    .expect("a complete URI");
                let mut args = vec![
                    "--disable-gpu".to_owned(),
                    "--ignore-certificate-errors".to_owned(),
                    "--virtual-time-budget=15000".to_owned(),
                    "--dump-dom".to_owned(),
                ];
                if nix::unistd::Uid::effective().is_root() {
                    args.push("--no-sandbox".to_owned());
                }
                browser_process = Some(Killed(
                    Command::new(chromium)
                        .args(&args)
                        .arg(url)
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .spawn()
                        .expect("the browser starts"),
                ));
            },
        ))
        .expect("signed in on the device");
    let code = shown.expect("the user was told what to do");
    assert!(code.verification_uri.ends_with("/device"), "{code:?}");
    assert_eq!(code.user_code.len(), 9, "{code:?}");
    assert_eq!(signed.subject, "user-1");
    let saved = Credentials::load(&store).unwrap().expect("saved");
    assert!(
        saved.client_id.starts_with("app_"),
        "the issued client: {saved:?}"
    );
    assert!(saved.scope.iter().any(|s| s == PLAN_SCOPE));
}

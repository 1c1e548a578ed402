//! The sign-in commands of the built binary against the real test issuer (HTTPS, test CA in
//! `AI_CA_FILE`) with a real headless browser as `$BROWSER`: sign in, status, refresh,
//! sign out, and the device flow. `cargo test` reports them as ignored (they need the issuer's
//! modules and a browser); `cargo xtask test` provides both and runs them. Run by hand
//! without them, they fail and say how to install them.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;

use serde_json::Value;

use crate::harness::World;
use crate::oidc::{Killed, assert_backend, browser, issuer_with, pki, saved};

/// A `$BROWSER` that loads the URL headless, trusting any certificate (the test CA).
fn browser_script(w: &World, chromium: &str) -> std::path::PathBuf {
    let root = if nix::unistd::Uid::effective().is_root() {
        " --no-sandbox"
    } else {
        ""
    };
    let script = w.path("browser.sh");
    // What the browser inherits is kept beside it (`browser.env`), to check no secret is in it.
    let inherited = w.path("browser.env");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nenv > '{}'\nexec {chromium}{root} --disable-gpu --ignore-certificate-errors --virtual-time-budget=15000 --dump-dom \"$1\" >/dev/null 2>&1\n",
            inherited.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

pub fn json(out: &std::process::Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "not one JSON line ({e}): {text}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The issuer, a world whose user config points at it, the test CA's file and the browser
/// script. Without the browser or the issuer's modules the test fails and says how to install
/// them.
pub struct Signing {
    pub _issuer: Killed,
    pub w: World,
    pub ca: std::path::PathBuf,
    pub script: std::path::PathBuf,
    /// The issuer's URL.
    pub issuer: String,
    /// The issuer's CA, PEM.
    pub ca_pem: String,
}

impl Signing {
    /// Calls one of the test issuer's control endpoints (`POST`, e.g. `/test/account?sub=x`).
    pub fn control(&self, path_and_query: &str) -> Value {
        let url = format!("{}{path_and_query}", self.issuer);
        let ca = reqwest::Certificate::from_pem(self.ca_pem.as_bytes()).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (status, body) = runtime.block_on(async {
            let answer = reqwest::Client::builder()
                .add_root_certificate(ca)
                .build()
                .unwrap()
                .post(url)
                .send()
                .await
                .unwrap();
            (answer.status(), answer.bytes().await.unwrap())
        });
        assert!(status.is_success(), "{path_and_query}: {status}");
        serde_json::from_slice(&body).unwrap()
    }

    /// How many requests the issuer served so far, all paths together.
    pub fn issuer_requests(&self) -> u64 {
        self.control("/test/requests")
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum()
    }
}

fn signing() -> Signing {
    signing_with(&[])
}

/// [`signing`] with extra issuer environment.
pub fn signing_with(env: &[(&str, &str)]) -> Signing {
    let chromium = browser().unwrap_or_else(|| {
        panic!(
            "these tests drive a real headless browser: install it (Debian: apt-get install chromium-headless-shell) or set ANSA_CHROMIUM to one"
        )
    });
    let pki = pki();
    let (guard, issuer) = issuer_with(&pki, std::path::Path::new(env!("CARGO_MANIFEST_DIR")), env);
    let w = World::new();
    let ca = w.path("ca.pem");
    std::fs::write(&ca, &pki.ca_pem).unwrap();
    std::fs::write(
        w.ansa_home().join("config.json"),
        format!(r#"{{"auth":{{"issuer":"{issuer}"}}}}"#),
    )
    .unwrap();
    let script = browser_script(&w, &chromium);
    Signing {
        _issuer: guard,
        w,
        ca,
        script,
        issuer,
        ca_pem: pki.ca_pem.clone(),
    }
}

#[test]
#[ignore = "needs chromium-headless-shell and oidc-provider: run cargo xtask test"]
fn sign_in_status_refresh_and_sign_out_through_the_cli() {
    let Signing {
        _issuer: _guard,
        w,
        ca,
        script,
        ..
    } = signing();
    let ansa = |args: &[&str]| {
        w.command(args)
            .env("AI_CA_FILE", &ca)
            .env("BROWSER", &script)
            .output()
            .unwrap()
    };

    let status = json(&ansa(&["--auth-status"]));
    assert_eq!(status["state"], "signed_out", "{status}");

    // An API key in ansa's environment is withheld from the browser, like from any child.
    let out = w
        .command(&["--login"])
        .env("AI_CA_FILE", &ca)
        .env("BROWSER", &script)
        .env("AI_API_KEY", "sk-never-in-the-browser-7")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stderr: {stderr}");
    assert!(stderr.contains("To sign in, open this URL"), "{stderr}");
    assert_eq!(json(&out)["signed_in"], true);
    let inherited = std::fs::read_to_string(w.path("browser.env")).unwrap();
    assert!(
        inherited.contains("PATH="),
        "the browser's environment was recorded"
    );
    assert!(
        !inherited.contains("sk-never-in-the-browser-7"),
        "the browser inherited the API key"
    );
    let status = json(&ansa(&["--auth-status"]));
    assert_eq!(status["state"], "signed_in", "{status}");
    let hash = status["account_hash"].as_str().unwrap().to_owned();
    assert_eq!(hash.len(), 64);
    let auth = w.ansa_home().join("auth");
    assert_backend(&auth);
    let backend = match crate::oidc::expected_backend() {
        ansa_auth::StoreBackend::Files => "files",
        ansa_auth::StoreBackend::Keyring => "keyring",
    };
    assert_eq!(status["backend"], backend, "{status}");
    let saved = saved(&auth).expect("saved credentials");
    assert!(!status.to_string().contains("user-1") && !saved.refresh_token.is_empty());

    let refreshed = ansa(&["--refresh-auth"]);
    assert!(
        refreshed.status.success(),
        "{}",
        String::from_utf8_lossy(&refreshed.stderr)
    );
    assert_eq!(json(&refreshed)["account_hash"], hash.as_str());

    let out = json(&ansa(&["--logout"]));
    assert_eq!(out["signed_out"], true, "{out}");
    assert_eq!(out["remote_revocation_confirmed"], true, "{out}");
    assert_eq!(json(&ansa(&["--auth-status"]))["state"], "signed_out");
    let twice = ansa(&["--logout"]);
    assert!(twice.status.success());
    assert_eq!(json(&twice)["signed_out"], false);
    let again = ansa(&["--refresh-auth"]);
    assert_eq!(again.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&again.stderr).contains("ansa --login"));

    // --auth-dir must be absolute, and keeps a sign-in apart from the default one.
    let bad = ansa(&["--auth-status", "--auth-dir", "relative/auth"]);
    assert_eq!(bad.status.code(), Some(2));
    let elsewhere = w.path("elsewhere-auth");
    let status = json(&ansa(&[
        "--auth-status",
        "--auth-dir",
        elsewhere.to_str().unwrap(),
    ]));
    assert_eq!(status["state"], "signed_out");
    let none = ansa(&["--logout", "--auth-dir", elsewhere.to_str().unwrap()]);
    assert!(
        none.status.success(),
        "{}",
        String::from_utf8_lossy(&none.stderr)
    );
    assert_eq!(json(&none)["reason"], "nobody was signed in");
    assert!(!elsewhere.exists(), "status and sign-out create no store");
}

#[test]
#[ignore = "needs chromium-headless-shell and oidc-provider: run cargo xtask test"]
fn a_device_sign_in_prints_the_code_and_waits_for_it() {
    let Signing {
        _issuer: _guard,
        w,
        ca,
        script,
        ..
    } = signing();
    let mut child = w
        .command(&["--login", "--device"])
        .env("AI_CA_FILE", &ca)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut complete = None;
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 {
        if let Some(url) = line
            .trim()
            .strip_prefix("(or open ")
            .and_then(|r| r.strip_suffix(')'))
        {
            complete = Some(url.to_owned());
            break;
        }
        line.clear();
    }
    let url = complete.expect("the device URL with its code");
    let _browser = Killed(
        std::process::Command::new(&script)
            .arg(&url)
            .spawn()
            .unwrap(),
    );
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(json(&out)["signed_in"], true);
}

#[test]
#[ignore = "needs chromium-headless-shell and oidc-provider: run cargo xtask test"]
fn a_refresh_killed_mid_exchange_never_sends_its_refresh_token_again() {
    let s = signing();
    let ansa = |args: &[&str]| {
        s.w.command(args)
            .env("AI_CA_FILE", &s.ca)
            .env("BROWSER", &s.script)
            .output()
            .unwrap()
    };
    assert!(ansa(&["--login"]).status.success());
    let auth = s.w.ansa_home().join("auth");
    assert_backend(&auth);
    let before = saved(&auth).unwrap();
    // The issuer holds the refresh answer; the refreshing process dies while it waits.
    s.control("/test/token-delay?ms=20000");
    let mut child =
        s.w.command(&["--refresh-auth"])
            .env("AI_CA_FILE", &s.ca)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
    let pending = s.w.ansa_home().join("auth/refresh.pending");
    crate::harness::eventually("the refresh is sent", || pending.exists());
    std::thread::sleep(std::time::Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    s.control("/test/token-delay?ms=0");

    // The store is the old one, whole; the sign-in is marked uncertain and its refresh
    // token is never sent again.
    assert_eq!(saved(&auth).unwrap(), before);
    let status = json(&ansa(&["--auth-status"]));
    assert_eq!(status["state"], "auth_refresh_uncertain", "{status}");
    let again = ansa(&["--refresh-auth"]);
    assert_eq!(again.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("auth_refresh_uncertain"), "{stderr}");
    assert_eq!(saved(&auth).unwrap(), before);
    // A new sign-in ends it.
    assert!(ansa(&["--login"]).status.success());
    assert_eq!(json(&ansa(&["--auth-status"]))["state"], "signed_in");
}

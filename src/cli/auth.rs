//! The sign-in commands: `--login` (browser; `--login-consent`, `--device`), `--auth-status`,
//! `--refresh-auth` and `--logout`, each on the store `--auth-dir` names (else the default
//! one, docs/auth.md). Results go to stdout as one JSON line (the URL or code to open goes to
//! stderr); failures exit 4 with a message that says what to do.

use std::path::PathBuf;

use ansa_auth::{
    AuthDir, AuthError, BROWSER_WAIT, BrowserSignIn, Discovery, Http, Location, locate,
    sign_in_browser, sign_in_device, sign_out, status,
};
use ansa_ui::sanitize::{exact, json_line};
use serde_json::{Value, json};

use super::{Args, Exit, Failure, start};
use crate::config::Env;
use crate::home::AnsaHome;

/// Whether `args` asks for a sign-in command.
pub fn wanted(args: &Args) -> bool {
    args.login || args.login_consent || args.auth_status || args.refresh_auth || args.logout
}

fn auth_failure(message: impl std::fmt::Display) -> Failure {
    Failure {
        exit: Exit::Auth,
        message: message.to_string(),
    }
}

/// Where the store is for this run.
pub fn location(home: &AnsaHome, args: &Args) -> Result<Location, Failure> {
    let env_path = |name: &str| std::env::var_os(name).map(PathBuf::from);
    locate(
        args.auth_dir.as_deref(),
        home.root(),
        env_path("HOME").as_deref(),
        env_path("XDG_STATE_HOME").as_deref(),
    )
    .map_err(|e| match e {
        AuthError::RelativeDir { .. } => Failure::usage(e),
        other => Failure::config(other),
    })
}

/// Runs the sign-in command of `args`.
pub fn run(home: &AnsaHome, env: &Env, args: &Args) -> Result<Exit, Failure> {
    let place = location(home, args)?;
    if args.auth_status {
        return print_status(&place);
    }
    let cwd = start::workspace(args.cwd.as_deref(), None)?;
    let config = start::load_config(home, &cwd, env, args)?;
    let roots = match &config.ca_file {
        Some(path) => Some(
            std::fs::read(path)
                .map_err(|e| Failure::config(format!("AI_CA_FILE {}: {e}", path.display())))?,
        ),
        None => None,
    };
    let http = Http::with_roots(roots.as_deref()).map_err(Failure::config)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Failure::io)?;
    let issuer = config.auth_issuer.trim_end_matches('/').to_owned();
    if args.login || args.login_consent {
        let store = AuthDir::create(&place.path).map_err(Failure::config)?;
        let signed = if args.device {
            runtime.block_on(sign_in_device(
                &issuer,
                &store,
                &http,
                BROWSER_WAIT,
                |code| {
                    // The URIs and the code are the server's text.
                    eprintln!(
                        "To sign in, open {} and enter the code {}",
                        exact(&code.verification_uri),
                        exact(&code.user_code)
                    );
                    if let Some(complete) = &code.verification_uri_complete {
                        eprintln!("(or open {})", exact(complete));
                    }
                },
            ))
        } else {
            let request = BrowserSignIn {
                issuer: &issuer,
                store: &store,
                http: &http,
                consent: args.login_consent,
                wait: BROWSER_WAIT,
            };
            let withheld = config.withheld_env.names();
            runtime.block_on(sign_in_browser(request, |url| {
                eprintln!("To sign in, open this URL in a browser:\n{}", exact(url));
                open_browser(url, withheld);
            }))
        }
        .map_err(auth_failure)?;
        let minutes = signed.expires_at_ms.saturating_sub(ansa_auth::now_ms()) / 60_000;
        print_json(&json!({"signed_in": true, "expires_in_minutes": minutes, "store": place.path}));
        return Ok(Exit::Success);
    }
    let Some(store) = existing(&place)? else {
        if args.logout {
            // Signing out twice is not an error: there is simply nothing to delete.
            print_json(
                &json!({"signed_out": false, "remote_revocation_confirmed": false, "reason": "nobody was signed in"}),
            );
            return Ok(Exit::Success);
        }
        return Err(auth_failure("not signed in: run `ansa --login`"));
    };
    let discovery = runtime.block_on(discover(&http, &issuer));
    if args.refresh_auth {
        let discovery = discovery.map_err(auth_failure)?;
        runtime
            .block_on(ansa_auth::ensure_fresh(&store, &http, &discovery, true))
            .map_err(auth_failure)?;
        return print_status(&place);
    }
    let out = runtime
        .block_on(sign_out(&store, &http, discovery.as_ref().ok()))
        .map_err(Failure::config)?;
    let reason = match &out.remote {
        ansa_auth::Revocation::Confirmed => None,
        ansa_auth::Revocation::NotConfirmed(why) => Some(why.clone()),
    };
    print_json(&json!({
        "signed_out": out.local_deleted,
        "remote_revocation_confirmed": out.remote.confirmed(),
        "reason": reason,
        "users_stopped": out.users_stopped,
    }));
    Ok(Exit::Success)
}

/// The store when it exists (never created by a status or sign-out).
pub fn existing(place: &Location) -> Result<Option<AuthDir>, Failure> {
    if place.path.symlink_metadata().is_err() {
        return Ok(None);
    }
    AuthDir::open(&place.path)
        .map(Some)
        .map_err(Failure::config)
}

fn print_status(place: &Location) -> Result<Exit, Failure> {
    let shown = match existing(place)? {
        Some(store) => {
            let s = status(&store).map_err(Failure::config)?;
            let backend = match ansa_auth::StoreChoice::backend(&store).map_err(Failure::config)? {
                ansa_auth::StoreBackend::Files => "files",
                ansa_auth::StoreBackend::Keyring => "keyring",
            };
            json!({
                "state": s.state.as_str(),
                "backend": backend,
                "account_hash": s.account_hash,
                "expires_in_seconds": s.expires_in,
                "refresh_in_seconds": s.refresh_in,
                "store": place.path,
            })
        }
        None => json!({"state": "signed_out", "account_hash": null, "store": place.path}),
    };
    print_json(&shown);
    Ok(Exit::Success)
}

async fn discover(http: &Http, issuer: &str) -> Result<Discovery, String> {
    ansa_auth::discover(http, issuer)
        .await
        .map_err(|e| e.to_string())
}

/// Opens `url` with `$BROWSER` when it names one (the URL is printed either way), without
/// the `withheld` secret variables, as for every child. The browser runs detached; its failure
/// only means the user opens the URL by hand.
fn open_browser(url: &str, withheld: &[String]) {
    let Some(browser) = std::env::var_os("BROWSER").filter(|b| !b.is_empty()) else {
        return;
    };
    let mut command = std::process::Command::new(browser);
    for name in withheld {
        command.env_remove(name);
    }
    let _ = command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

/// Prints one JSON document on a line; the server's and the store's text in it cannot act on
/// a terminal (`json_line`).
fn print_json(value: &Value) {
    println!("{}", json_line(&value.to_string()));
}

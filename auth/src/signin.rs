//! A whole browser sign-in: discovery, the authorization URL (shown to the user), the
//! loopback callback, the code exchange for the issued client, id_token verification, the
//! granted scope check, and only then the credentials saved (atomically, with the store
//! choice). Nothing is written before every check passed.

use std::time::Duration;

use super::authorize::{AuthorizeOptions, authorize};
use super::callback::{CallbackError, CallbackServer};
use super::credentials::{Credentials, StoreChoice};
use super::dir::AuthDir;
use super::discovery::{Discovery, DiscoveryError};
use super::error::AuthError;
use super::exchange::{ExchangeError, Tokens, exchange_code};
use super::host::HostId;
use super::http::{Http, HttpError};
use super::idtoken::{Expected, IdTokenError, verify};
use super::lease::LOGOUT_FILE;
use super::refresh::now_ms;

/// The scope without which ChatGPT plan use is not possible.
pub const PLAN_SCOPE: &str = "chatgpt.tokens.use.direct";

/// How long the browser may take.
pub const BROWSER_WAIT: Duration = Duration::from_secs(300);

/// What a browser sign-in needs.
#[derive(Debug, Clone, Copy)]
pub struct BrowserSignIn<'a> {
    /// The issuer (`https://auth.openai.com` by default).
    pub issuer: &'a str,
    /// The store to sign in to.
    pub store: &'a AuthDir,
    /// The HTTP client.
    pub http: &'a Http,
    /// Ask for consent again (`--login-consent`).
    pub consent: bool,
    /// How long to wait for the browser.
    pub wait: Duration,
}

/// The outcome of a sign-in, for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedIn {
    /// The account.
    pub subject: String,
    /// Its email, when shared.
    pub email: Option<String>,
    /// When the access token expires, Unix milliseconds.
    pub expires_at_ms: u64,
}

/// Why a sign-in did not complete; the store is unchanged in every case.
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// The issuer could not be asked.
    #[error("cannot reach the issuer: {0}")]
    Http(#[from] HttpError),
    /// Its discovery document is not usable.
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// The callback did not bring a code.
    #[error(transparent)]
    Callback(#[from] CallbackError),
    /// The callback did not say which client the issuer registered.
    #[error(
        "the sign-in callback did not carry the issued client_id; the issuer is not a Sign in with ChatGPT issuer"
    )]
    NoClientId,
    /// The exchange failed.
    #[error(transparent)]
    Exchange(#[from] ExchangeError),
    /// The token response lacks something a sign-in needs.
    #[error("the token response has no {0}; the sign-in is refused")]
    Missing(&'static str),
    /// The id_token does not verify.
    #[error(transparent)]
    IdToken(#[from] IdTokenError),
    /// Plan use was not granted.
    #[error(
        "the sign-in did not grant `{PLAN_SCOPE}` (granted: {granted}); ChatGPT plan use needs it: run `ansa --login-consent` and allow it"
    )]
    Scope {
        /// What was granted.
        granted: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] AuthError),
    /// The device sign-in failed.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The callback thread died.
    #[error("the sign-in callback listener stopped unexpectedly")]
    Listener,
}

/// The discovery document of `issuer`, fetched and checked.
pub async fn discover(http: &Http, issuer: &str) -> Result<Discovery, SignInError> {
    let document = http
        .get(&format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        ))
        .await?;
    Ok(Discovery::parse(issuer, &document)?)
}

/// The file where sign-in keeps the issuer's checked discovery document.
pub const DISCOVERY_FILE: &str = "discovery.json";

/// The discovery of `issuer` as the store kept it at sign-in (so a due refresh costs one round
/// trip, the token request), else fetched, checked and kept.
pub async fn discover_cached(
    http: &Http,
    store: &AuthDir,
    issuer: &str,
) -> Result<Discovery, SignInError> {
    if let Some(bytes) = store.read(DISCOVERY_FILE)?
        && let Ok(kept) = Discovery::parse(issuer, &bytes)
    {
        return Ok(kept);
    }
    let fetched = discover(http, issuer).await?;
    store.write_atomic(DISCOVERY_FILE, &fetched.to_document())?;
    Ok(fetched)
}

/// Why a device sign-in could not even start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// Discovery lists no device authorization endpoint.
    #[error(
        "the issuer offers no device sign-in; run `ansa --login` and open the URL it prints in any browser"
    )]
    Unavailable,
    /// The issuer did not say which client it registered.
    #[error(
        "the device authorization did not carry the issued client_id; the issuer is not a Sign in with ChatGPT issuer"
    )]
    NoClientId,
    /// The issuer refused the device authorization or the token polling ended.
    #[error("the device sign-in did not complete: {0}; run `ansa --login --device` again")]
    Ended(String),
}

/// Checks that plan use was granted.
pub fn check_scope(granted: &[String]) -> Result<(), SignInError> {
    if granted.iter().any(|s| s == PLAN_SCOPE) {
        Ok(())
    } else {
        Err(SignInError::Scope {
            granted: granted.join(" "),
        })
    }
}

/// Runs a browser sign-in; `show` receives the URL to open (print it, open a browser).
pub async fn sign_in_browser(
    request: BrowserSignIn<'_>,
    show: impl FnOnce(&str),
) -> Result<SignedIn, SignInError> {
    let BrowserSignIn {
        issuer,
        store,
        http,
        consent,
        wait,
    } = request;
    let discovery = discover(http, issuer).await?;
    let host = HostId::load_or_create(store)?;
    let previous = Credentials::load(store).ok().flatten();
    let callback = CallbackServer::bind()?;
    let redirect = callback.redirect_uri();
    let authorization = authorize(
        &discovery,
        &redirect,
        &host,
        AuthorizeOptions {
            id_token_hint: previous.as_ref().map(|p| p.id_token.as_str()),
            consent,
        },
    )
    .map_err(|e| SignInError::Callback(CallbackError::Io(e.to_string())))?;
    show(&authorization.url);
    let state = authorization.state.clone();
    let waited = std::thread::spawn(move || callback.wait(&state, wait));
    let got = loop {
        if waited.is_finished() {
            break waited.join().map_err(|_| SignInError::Listener)??;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let client_id = got.client_id.clone().ok_or(SignInError::NoClientId)?;
    let tokens = exchange_code(
        http,
        &discovery,
        &client_id,
        &got.code,
        &redirect,
        authorization.verifier,
    )
    .await?;
    complete(
        Completion {
            store,
            http,
            discovery: &discovery,
            issuer,
            client_id,
            nonce: Some(&authorization.nonce),
            previous: previous.as_ref(),
        },
        tokens,
    )
    .await
}

/// What a finished authorization needs to become a saved sign-in.
pub(crate) struct Completion<'a> {
    pub store: &'a AuthDir,
    pub http: &'a Http,
    pub discovery: &'a Discovery,
    pub issuer: &'a str,
    pub client_id: String,
    /// The sign-in's nonce (`None` for the device flow).
    pub nonce: Option<&'a str>,
    /// The credentials being replaced, whose account the new one must be.
    pub previous: Option<&'a Credentials>,
}

/// Checks the tokens of a browser or device sign-in (an id_token and a refresh token present,
/// the id_token valid against the live key set, the plan scope granted), then writes the
/// store choice and the credentials; nothing is written when a check fails.
pub(crate) async fn complete(c: Completion<'_>, tokens: Tokens) -> Result<SignedIn, SignInError> {
    let id_token = tokens.id_token.ok_or(SignInError::Missing("id_token"))?;
    let refresh_token = tokens
        .refresh_token
        .ok_or(SignInError::Missing("refresh_token"))?;
    let jwks = c.http.get(c.discovery.jwks_uri.as_str()).await?;
    let now = now_ms();
    let claims = verify(
        &id_token,
        &jwks,
        Expected {
            issuer: c.issuer,
            client_id: &c.client_id,
            nonce: c.nonce,
            subject: c.previous.map(|p| p.subject.as_str()),
            now: now / 1000,
        },
    )?;
    check_scope(&tokens.scope)?;
    let expires_at_ms = now + tokens.expires_in.unwrap_or(0) * 1000;
    let credentials = Credentials {
        issuer: c.issuer.to_owned(),
        client_id: c.client_id,
        subject: claims.subject.clone(),
        access_token: tokens.access_token,
        refresh_token,
        id_token,
        scope: tokens.scope,
        expires_at_ms,
        earliest_refresh_at_ms: tokens.earliest_refresh_at.map(|s| s * 1000),
        signed_in_at_ms: now,
    };
    // Chosen once, at the first sign-in of this store; kept by every later one.
    let backend = match StoreChoice::load(c.store)? {
        Some(choice) => choice.backend,
        None => StoreChoice::choose(c.store),
    };
    StoreChoice::save(backend, c.store)?;
    c.store
        .write_atomic(DISCOVERY_FILE, &c.discovery.to_document())?;
    credentials.save(c.store)?;
    // A sign-out interrupted before it finished no longer blocks anything: this is a new
    // sign-in.
    c.store.remove(LOGOUT_FILE)?;
    Ok(SignedIn {
        subject: claims.subject,
        email: claims.email,
        expires_at_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_use_needs_its_scope() {
        assert!(check_scope(&["openid".into(), PLAN_SCOPE.into()]).is_ok());
        let err = check_scope(&["openid".into(), "resource.invoke".into()]).unwrap_err();
        assert!(err.to_string().contains("ansa --login-consent"), "{err}");
    }
}

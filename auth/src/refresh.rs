//! Keeping the access token fresh: refreshed shortly before it expires, one process at a
//! time (`refresh.lock`, credentials re-read under it, so a process that waited uses what the
//! other obtained), never before the server's `earliest_refresh_at`, and never with a refresh
//! token whose last use has an unknown outcome.
//!
//! Before a refresh token is sent, `refresh.pending` records which one (its last 8
//! characters, never the token). It is removed when the new tokens are saved or when the
//! request provably never left. If it
//! is still there for the saved token, the earlier attempt may have rotated the token on the
//! server: sending it again would be a reuse, so the sign-in ends instead
//! (`auth_refresh_uncertain`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::credentials::Credentials;
use super::dir::AuthDir;
use super::discovery::Discovery;
use super::error::AuthError;
use super::exchange::{ExchangeError, refresh};
use super::http::Http;
use super::lock::RefreshLock;

/// Refresh this long before the access token expires.
pub const REFRESH_MARGIN: Duration = Duration::from_secs(300);

/// How long a process waits for another's refresh.
const LOCK_WAIT: Duration = Duration::from_secs(60);

/// The in-flight marker.
pub const PENDING_FILE: &str = "refresh.pending";

/// Why no fresh credentials are available.
#[derive(Debug, thiserror::Error)]
pub enum RefreshError {
    /// Nobody is signed in.
    #[error("not signed in: run `ansa --login`")]
    SignedOut,
    /// The token expires soon but the server does not accept a refresh yet.
    #[error("auth_refresh_not_ready: the issuer accepts a refresh only in {seconds} s")]
    NotReady {
        /// Seconds until it does.
        seconds: u64,
    },
    /// An earlier refresh's outcome is unknown; the sign-in ended.
    #[error(
        "auth_refresh_uncertain: an earlier refresh got no answer, so its token is never sent again; run `ansa --login`"
    )]
    Uncertain,
    /// The exchange failed.
    #[error(transparent)]
    Exchange(#[from] ExchangeError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] AuthError),
}

/// Unix milliseconds now.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn fresh(c: &Credentials, now: u64) -> bool {
    c.is_fresh(now)
}

/// The `refresh.pending` content for `token`.
pub(crate) fn marker(token: &str) -> String {
    let tail: String = token.chars().rev().take(8).collect();
    format!("{}\n", tail.chars().rev().collect::<String>())
}

/// Whether `refresh.pending` names `token`: its last refresh has an unknown outcome.
pub(crate) fn pending_for(store: &AuthDir, token: &str) -> Result<bool, AuthError> {
    Ok(store
        .read(PENDING_FILE)?
        .is_some_and(|p| p == marker(token).as_bytes()))
}

/// Fresh credentials of `store`: the saved ones while they last (no network), else refreshed
/// once under the lock. `force` refreshes even a fresh token (`--refresh-auth`), still not
/// before `earliest_refresh_at`.
pub async fn ensure_fresh(
    store: &AuthDir,
    http: &Http,
    discovery: &Discovery,
    force: bool,
) -> Result<Credentials, RefreshError> {
    let now = now_ms();
    let saved = Credentials::load(store)?.ok_or(RefreshError::SignedOut)?;
    if !force && fresh(&saved, now) {
        return Ok(saved);
    }
    let _lock = RefreshLock::acquire(store, LOCK_WAIT)?;
    let current = Credentials::load(store)?.ok_or(RefreshError::SignedOut)?;
    if current.refresh_token != saved.refresh_token && fresh(&current, now_ms()) {
        // Another process refreshed while this one waited.
        return Ok(current);
    }
    if !force && fresh(&current, now_ms()) {
        return Ok(current);
    }
    if pending_for(store, &current.refresh_token)? {
        return Err(RefreshError::Uncertain);
    }
    if let Some(earliest) = current.earliest_refresh_at_ms
        && earliest > now_ms()
    {
        let seconds = (earliest - now_ms()).div_ceil(1000);
        if force || current.expires_at_ms <= now_ms() {
            return Err(RefreshError::NotReady { seconds });
        }
        return Ok(current);
    }
    store.write_atomic(PENDING_FILE, marker(&current.refresh_token).as_bytes())?;
    let tokens = match refresh(http, discovery, &current.client_id, &current.refresh_token).await {
        Ok(tokens) => tokens,
        Err(ExchangeError::Unreachable(reason)) => {
            store.remove(PENDING_FILE)?;
            return Err(ExchangeError::Unreachable(reason).into());
        }
        Err(e @ ExchangeError::Ended { .. }) => {
            // The grant is gone: so is the sign-in.
            Credentials::delete(store)?;
            store.remove(PENDING_FILE)?;
            return Err(e.into());
        }
        Err(e) => return Err(e.into()),
    };
    let renewed = Credentials {
        access_token: tokens.access_token,
        refresh_token: tokens
            .refresh_token
            .unwrap_or(current.refresh_token.clone()),
        id_token: tokens.id_token.unwrap_or(current.id_token.clone()),
        scope: if tokens.scope.is_empty() {
            current.scope.clone()
        } else {
            tokens.scope
        },
        expires_at_ms: now_ms() + tokens.expires_in.unwrap_or(0) * 1000,
        earliest_refresh_at_ms: tokens.earliest_refresh_at.map(|s| s * 1000),
        ..current
    };
    renewed.save(store)?;
    store.remove(PENDING_FILE)?;
    Ok(renewed)
}

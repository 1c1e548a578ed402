//! What `--auth-status` shows and what sign-out does, without and with the network.
//!
//! Status reads only the store: the state, the account-binding hash (what a live session is
//! bound to; never the account's identifiers themselves), and the time to expiry and to the
//! earliest refresh.

use std::time::Duration;

use super::credentials::{Credentials, StoreChoice};
use super::dir::AuthDir;
use super::discovery::Discovery;
use super::error::AuthError;
use super::http::Http;
use super::lease::LogoutGate;
use super::lock::RefreshLock;
use super::refresh::{PENDING_FILE, now_ms, pending_for};
use super::revoke::{Revocation, revoke};

/// How long sign-out waits for a refresh in progress.
const LOCK_WAIT: Duration = Duration::from_secs(60);

/// How long sign-out waits for the requests in flight on the sign-in to stop.
pub const LEASE_WAIT: Duration = Duration::from_secs(30);

/// The state of a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthState {
    /// Nobody is signed in.
    SignedOut,
    /// Signed in; the access token is valid.
    SignedIn,
    /// Signed in; the access token expired (the next use refreshes it).
    Expired,
    /// An earlier refresh's outcome is unknown: a new sign-in is needed.
    RefreshUncertain,
}

impl AuthState {
    /// The state's name as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthState::SignedOut => "signed_out",
            AuthState::SignedIn => "signed_in",
            AuthState::Expired => "expired",
            AuthState::RefreshUncertain => "auth_refresh_uncertain",
        }
    }
}

/// `--auth-status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthStatus {
    /// The state.
    pub state: AuthState,
    /// BLAKE3 of the issuer and the account, the session binding (`None` when signed out).
    pub account_hash: Option<String>,
    /// Seconds until the access token expires (negative: expired).
    pub expires_in: Option<i64>,
    /// Seconds until the issuer accepts a refresh (0: now).
    pub refresh_in: Option<u64>,
}

/// The account-binding hash of a sign-in: it identifies the account to sessions without
/// naming it.
pub fn account_hash(c: &Credentials) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"ansa-account/1\n");
    for part in [c.issuer.as_str(), c.subject.as_str()] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize().to_hex().to_string()
}

/// The status of `store`, from the store alone.
pub fn status(store: &AuthDir) -> Result<AuthStatus, AuthError> {
    let Some(c) = Credentials::load(store)? else {
        StoreChoice::load(store)?;
        return Ok(AuthStatus {
            state: AuthState::SignedOut,
            account_hash: None,
            expires_in: None,
            refresh_in: None,
        });
    };
    let now = now_ms();
    let uncertain = pending_for(store, &c.refresh_token)?;
    let expires_in = (c.expires_at_ms as i64 - now as i64).div_euclid(1000);
    let state = if uncertain {
        AuthState::RefreshUncertain
    } else if expires_in <= 0 {
        AuthState::Expired
    } else {
        AuthState::SignedIn
    };
    Ok(AuthStatus {
        state,
        account_hash: Some(account_hash(&c)),
        expires_in: Some(expires_in),
        refresh_in: Some(
            c.earliest_refresh_at_ms
                .map_or(0, |e| e.saturating_sub(now).div_ceil(1000)),
        ),
    })
}

/// What sign-out did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedOut {
    /// Local tokens were deleted (false: nobody was signed in).
    pub local_deleted: bool,
    /// `remote_revocation_confirmed`, with the reason when not.
    pub remote: Revocation,
    /// Every process using the sign-in let go of it within [`LEASE_WAIT`] (false: one was
    /// still in a request; its token was deleted under it).
    pub users_stopped: bool,
}

/// Signs out of `store`: blocks new dispatch on it at once, waits for the requests in flight
/// (their processes watch for the sign-out and stop) and for a refresh in progress, deletes
/// the local tokens, then asks the issuer (`discovery`, `None` when it could not be reached)
/// to revoke the refresh token. Revocation is not even tried for a token whose last refresh
/// has an unknown outcome: the issuer may already know it as spent, so nothing could be
/// confirmed.
pub async fn sign_out(
    store: &AuthDir,
    http: &Http,
    discovery: Option<&Discovery>,
) -> Result<SignedOut, AuthError> {
    let gate = LogoutGate::close(store, LEASE_WAIT)?;
    let users_stopped = gate.drained;
    let lock = RefreshLock::acquire(store, LOCK_WAIT)?;
    let Some(c) = Credentials::load(store)? else {
        drop(lock);
        gate.open(store)?;
        return Ok(SignedOut {
            local_deleted: false,
            remote: Revocation::NotConfirmed("nobody was signed in".into()),
            users_stopped,
        });
    };
    let uncertain = pending_for(store, &c.refresh_token)?;
    Credentials::delete(store)?;
    store.remove(PENDING_FILE)?;
    drop(lock);
    gate.open(store)?;
    let remote = match (discovery, uncertain) {
        (_, true) => Revocation::NotConfirmed(
            "an earlier refresh's outcome is unknown, so the issuer may hold a newer token; revoke forgotten sessions in ChatGPT's settings".into(),
        ),
        (None, false) => Revocation::NotConfirmed("the issuer could not be reached".into()),
        (Some(d), false) => revoke(http, d, &c.client_id, &c.refresh_token).await,
    };
    Ok(SignedOut {
        local_deleted: true,
        remote,
        users_stopped,
    })
}

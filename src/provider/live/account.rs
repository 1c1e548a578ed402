//! A signed-in ChatGPT account as the live provider's credential (docs/auth.md, "Use").
//!
//! Nothing here runs before a task is submitted: the store is read and, when the access token
//! is due, refreshed in the worker, per generation. Each generation holds the store's auth
//! lease, so a sign-out in any process blocks new requests at once and waits for this one,
//! which stops as soon as it sees the sign-out.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use ansa_auth::{
    AuthDir, AuthLease, Credentials, Discovery, Http, LeaseError, RefreshError, SignInError,
    account_hash, now_ms,
};

use super::super::ProviderError;
use crate::config::Secret;

/// How often a request in flight looks for a sign-out.
const WATCH_EVERY: Duration = Duration::from_millis(20);

/// The signed-in account a live session uses.
pub struct SignedInAccount {
    store: AuthDir,
    issuer: String,
    roots: Option<Vec<u8>>,
    /// Built on the first refresh, in the worker: opening a session costs nothing.
    client: OnceLock<Result<Client, String>>,
    bound: String,
    discovery: Mutex<Option<Discovery>>,
}

/// What a refresh needs: the issuer's client and a runtime to drive it.
struct Client {
    http: Http,
    runtime: tokio::runtime::Runtime,
}

impl std::fmt::Debug for SignedInAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignedInAccount")
            .field("store", &self.store.path())
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

/// The token of one generation, with the lease that keeps sign-out waiting for it.
pub struct Use {
    /// The access token.
    pub token: Secret,
    /// The sign-in's epoch (new with every sign-in, kept by refreshes).
    pub epoch: u64,
    _lease: AuthLease,
}

impl SignedInAccount {
    /// The account signed in at `store` (`account` is its binding hash, read at start),
    /// refreshed through `issuer`; `roots` are extra PEM roots (`AI_CA_FILE`).
    pub fn new(
        store: &Path,
        issuer: &str,
        account: String,
        roots: Option<&[u8]>,
    ) -> Result<SignedInAccount, String> {
        let store = AuthDir::open(store).map_err(|e| e.to_string())?;
        Ok(SignedInAccount {
            store,
            issuer: issuer.trim_end_matches('/').to_owned(),
            roots: roots.map(<[u8]>::to_vec),
            client: OnceLock::new(),
            bound: account,
            discovery: Mutex::new(None),
        })
    }

    fn client(&self) -> Result<&Client, ProviderError> {
        self.client
            .get_or_init(|| {
                let http = Http::with_roots(self.roots.as_deref()).map_err(|e| e.to_string())?;
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| format!("cannot start the sign-in client: {e}"))?;
                Ok(Client { http, runtime })
            })
            .as_ref()
            .map_err(|e| ProviderError::Auth(format!("the sign-in cannot be refreshed: {e}")))
    }

    /// The store directory.
    pub fn store(&self) -> &Path {
        self.store.path()
    }

    /// A usable token for one generation: the saved one while it is fresh (no network),
    /// else refreshed once; `force` refreshes even a fresh one (after a 401).
    pub fn token(&self, force: bool) -> Result<Use, ProviderError> {
        let lease = AuthLease::take(&self.store).map_err(|e| match e {
            LeaseError::SigningOut { .. } => ProviderError::Auth(format!("{e}, then resume")),
            LeaseError::Store(e) => ProviderError::Auth(e.to_string()),
        })?;
        let saved = Credentials::load(&self.store)
            .map_err(|e| ProviderError::Auth(e.to_string()))?
            .ok_or_else(signed_out)?;
        self.check_account(&saved)?;
        let current = if !force && saved.is_fresh(now_ms()) {
            saved
        } else {
            let discovery = self.discovery()?;
            let client = self.client()?;
            let renewed = client
                .runtime
                .block_on(ansa_auth::ensure_fresh(
                    &self.store,
                    &client.http,
                    &discovery,
                    force,
                ))
                .map_err(refresh_failure)?;
            self.check_account(&renewed)?;
            renewed
        };
        Ok(Use {
            token: Secret::new(current.access_token.clone()),
            epoch: current.signed_in_at_ms,
            _lease: lease,
        })
    }

    /// Runs `request` (given its own cancel flag) while watching for a sign-out: a sign-out
    /// raises that flag, and the outcome says which of the two stopped it.
    pub fn watched<T>(
        &self,
        cancel: &AtomicBool,
        request: impl FnOnce(&AtomicBool) -> T,
    ) -> Watched<T> {
        let stop = AtomicBool::new(false);
        let done = AtomicBool::new(false);
        let signed_out = AtomicBool::new(false);
        let out = std::thread::scope(|s| {
            let watch = || {
                while !done.load(Ordering::Acquire) {
                    if cancel.load(Ordering::Acquire) {
                        stop.store(true, Ordering::Release);
                    } else if ansa_auth::signing_out(&self.store).unwrap_or(false) {
                        signed_out.store(true, Ordering::Release);
                        stop.store(true, Ordering::Release);
                        return;
                    }
                    std::thread::sleep(WATCH_EVERY);
                }
            };
            // Without a watcher (no thread to be had) a sign-out still blocks new requests;
            // this one then runs to its end, and the user's cancel still reaches it.
            let watcher = std::thread::Builder::new()
                .name("ansa-signout-watch".into())
                .spawn_scoped(s, watch);
            let out = request(if watcher.is_ok() { &stop } else { cancel });
            done.store(true, Ordering::Release);
            out
        });
        Watched {
            out,
            signed_out: signed_out.load(Ordering::Acquire),
        }
    }

    fn check_account(&self, c: &Credentials) -> Result<(), ProviderError> {
        let now = account_hash(c);
        if now == self.bound {
            return Ok(());
        }
        Err(ProviderError::Auth(format!(
            "the store {} is signed in to another account (hash {}) than this session's ({}); sign in to that account and resume, or start a new session",
            self.store.path().display(),
            &now[..12],
            &self.bound[..self.bound.len().min(12)]
        )))
    }

    fn discovery(&self) -> Result<Discovery, ProviderError> {
        let mut cached = self
            .discovery
            .lock()
            .map_err(|_| ProviderError::Auth("the sign-in client failed earlier".into()))?;
        if let Some(d) = cached.as_ref() {
            return Ok(d.clone());
        }
        let client = self.client()?;
        let d = client
            .runtime
            .block_on(ansa_auth::discover_cached(
                &client.http,
                &self.store,
                &self.issuer,
            ))
            .map_err(|e| match e {
                SignInError::Http(e) => ProviderError::Unavailable(format!(
                    "cannot reach the issuer to refresh the sign-in ({e}); resume to try again"
                )),
                other => ProviderError::Auth(other.to_string()),
            })?;
        *cached = Some(d.clone());
        Ok(d)
    }
}

/// A request's outcome and whether a sign-out stopped it.
pub struct Watched<T> {
    /// What the request returned.
    pub out: T,
    /// A sign-out began while it ran (and raised its cancel flag).
    pub signed_out: bool,
}

fn signed_out() -> ProviderError {
    ProviderError::Auth(
        "not signed in (signed out since the session started): run `ansa --login`, then resume"
            .into(),
    )
}

fn refresh_failure(e: RefreshError) -> ProviderError {
    match e {
        RefreshError::Exchange(ansa_auth::ExchangeError::Unreachable(reason)) => {
            ProviderError::Unavailable(format!(
                "the sign-in could not be refreshed: the issuer did not answer ({reason}); resume to try again"
            ))
        }
        RefreshError::SignedOut => signed_out(),
        other => ProviderError::Auth(other.to_string()),
    }
}

/// Where the live CLI's sign-in is, and for which account: read from the store alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignInSource {
    /// The store directory.
    pub store: PathBuf,
    /// Its account hash.
    pub account: String,
}

//! What the store keeps: the signed-in credentials (`tokens.json`) and the non-secret choice of
//! backend made once at sign-in (`store.json`). Both decode strictly; a truncated or garbled
//! file is a clear "damaged, sign in again", never a guess.

use serde::{Deserialize, Serialize};

use super::dir::AuthDir;
use super::error::AuthError;
use super::keyring;

/// The credentials file of the files backend.
pub const TOKENS_FILE: &str = "tokens.json";

/// The backend record.
pub const STORE_FILE: &str = "store.json";

/// One sign-in: the issued registration and the current tokens.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// The issuer the tokens came from.
    pub issuer: String,
    /// The client ID the issuer gave this registration (used for every exchange and refresh).
    pub client_id: String,
    /// The account's `sub` from the verified id_token.
    pub subject: String,
    /// Bearer token for the API.
    pub access_token: String,
    /// Rotating refresh token (each one is used at most once).
    pub refresh_token: String,
    /// The last verified id_token (sent as `id_token_hint` on a returning sign-in).
    pub id_token: String,
    /// Granted scopes.
    pub scope: Vec<String>,
    /// When the access token expires, Unix milliseconds.
    pub expires_at_ms: u64,
    /// The server's earliest time for a refresh, Unix milliseconds.
    pub earliest_refresh_at_ms: Option<u64>,
    /// When this sign-in was made, Unix milliseconds: the auth session's epoch (kept by
    /// refreshes, new with every sign-in; 0 in stores written before it was recorded).
    #[serde(default)]
    pub signed_in_at_ms: u64,
}

impl std::fmt::Debug for Credentials {
    // Tokens never reach a log or a panic message.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("subject", &self.subject)
            .field("access_token", &"<redacted>")
            .field("refresh_token", &"<redacted>")
            .field("id_token", &"<redacted>")
            .field("scope", &self.scope)
            .field("expires_at_ms", &self.expires_at_ms)
            .field("earliest_refresh_at_ms", &self.earliest_refresh_at_ms)
            .field("signed_in_at_ms", &self.signed_in_at_ms)
            .finish()
    }
}

impl Credentials {
    /// The credentials in `dir` (in its files or its keyring, as `store.json` records),
    /// `None` when nobody is signed in there.
    pub fn load(dir: &AuthDir) -> Result<Option<Credentials>, AuthError> {
        let (bytes, source) = match StoreChoice::backend(dir)? {
            StoreBackend::Files => (dir.read(TOKENS_FILE)?, dir.path().join(TOKENS_FILE)),
            StoreBackend::Keyring => (keyring::get(dir.path())?, keyring_item(dir)),
        };
        let Some(bytes) = bytes else {
            return Ok(None);
        };
        decode(&source, &bytes).map(Some)
    }

    /// Replaces the credentials in `dir` atomically (a temporary file renamed over
    /// `tokens.json`, or the keyring item replaced whole; never both backends).
    pub fn save(&self, dir: &AuthDir) -> Result<(), AuthError> {
        let bytes = serde_json::to_vec(self).map_err(|e| AuthError::Damaged {
            path: dir.path().join(TOKENS_FILE),
            reason: format!("cannot encode: {e}"),
        })?;
        match StoreChoice::backend(dir)? {
            StoreBackend::Files => dir.write_atomic(TOKENS_FILE, &bytes),
            StoreBackend::Keyring => {
                keyring::set(dir.path(), &bytes)?;
                dir.remove(TOKENS_FILE)
            }
        }
    }

    /// Whether the access token is usable at `now_ms` without a refresh (more than
    /// [`REFRESH_MARGIN`](crate::REFRESH_MARGIN) left).
    pub fn is_fresh(&self, now_ms: u64) -> bool {
        self.expires_at_ms > now_ms + crate::REFRESH_MARGIN.as_millis() as u64
    }

    /// Deletes the credentials in `dir` (signing out locally).
    pub fn delete(dir: &AuthDir) -> Result<(), AuthError> {
        if StoreChoice::backend(dir)? == StoreBackend::Keyring {
            keyring::delete(dir.path())?;
        }
        dir.remove(TOKENS_FILE)
    }
}

/// Where tokens are kept, chosen once at sign-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreBackend {
    /// `tokens.json` in the private store directory.
    Files,
    /// The OS keyring (Secret Service).
    Keyring,
}

/// The non-secret `store.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreChoice {
    /// Format version (1).
    pub version: u32,
    /// The backend in use.
    pub backend: StoreBackend,
}

impl StoreChoice {
    /// The choice recorded in `dir`, `None` before the first sign-in.
    pub fn load(dir: &AuthDir) -> Result<Option<StoreChoice>, AuthError> {
        let Some(bytes) = dir.read(STORE_FILE)? else {
            return Ok(None);
        };
        let choice: StoreChoice = decode(&dir.path().join(STORE_FILE), &bytes)?;
        if choice.version != 1 {
            return Err(AuthError::Damaged {
                path: dir.path().join(STORE_FILE),
                reason: format!("format version {} is not 1", choice.version),
            });
        }
        Ok(Some(choice))
    }

    /// The backend `dir` uses: the recorded one, files before the first sign-in.
    pub fn backend(dir: &AuthDir) -> Result<StoreBackend, AuthError> {
        Ok(StoreChoice::load(dir)?.map_or(StoreBackend::Files, |c| c.backend))
    }

    /// The backend a first sign-in records: the keyring when a Secret Service answers a set,
    /// get and delete probe in time, else files.
    pub fn choose(dir: &AuthDir) -> StoreBackend {
        if keyring::probe(dir.path()) {
            StoreBackend::Keyring
        } else {
            StoreBackend::Files
        }
    }

    /// Records `backend` in `dir`.
    pub fn save(backend: StoreBackend, dir: &AuthDir) -> Result<(), AuthError> {
        let choice = StoreChoice {
            version: 1,
            backend,
        };
        let bytes = serde_json::to_vec(&choice).map_err(|e| AuthError::Damaged {
            path: dir.path().join(STORE_FILE),
            reason: format!("cannot encode: {e}"),
        })?;
        dir.write_atomic(STORE_FILE, &bytes)
    }
}

/// How the keyring item of `dir` is named in messages.
fn keyring_item(dir: &AuthDir) -> std::path::PathBuf {
    std::path::PathBuf::from(format!(
        "keyring item {}/store:{}",
        keyring::SERVICE,
        dir.path().display()
    ))
}

fn decode<T: for<'de> Deserialize<'de>>(
    source: &std::path::Path,
    bytes: &[u8],
) -> Result<T, AuthError> {
    serde_json::from_slice(bytes).map_err(|e| AuthError::Damaged {
        path: source.to_path_buf(),
        // The message names a line and column, never the secret text around it.
        reason: format!("not the expected JSON: {e}"),
    })
}

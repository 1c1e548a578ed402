//! The keyring backend: the credentials as one Secret Service item (service `ansa-auth`, user
//! `store:<store directory>`), so several stores (`--auth-dir`) keep apart.
//!
//! Every call runs on its own thread with a deadline: the Secret Service client drives its own
//! async runtime, which must not start inside a caller's (the sign-in is async), and a locked
//! keyring may wait for a password prompt nobody answers. A probe that does not answer in
//! time means "no keyring", a later call that does not is an error that says what to do.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use super::error::AuthError;

/// The item's service attribute.
pub const SERVICE: &str = "ansa-auth";

/// How long the sign-in's probe waits for the Secret Service.
const PROBE_WAIT: Duration = Duration::from_secs(3);

/// How long a read, write or delete waits.
const CALL_WAIT: Duration = Duration::from_secs(15);

/// Whether this build can use a keyring at all.
pub const BUILT: bool = cfg!(feature = "keyring");

fn user(dir: &Path) -> String {
    format!("store:{}", dir.display())
}

fn failure(dir: &Path, action: &'static str, reason: String) -> AuthError {
    AuthError::Keyring {
        path: dir.to_path_buf(),
        action,
        reason,
    }
}

/// Runs `call` on its own thread, waiting up to `wait`.
fn bounded<T: Send + 'static>(
    wait: Duration,
    call: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("ansa-keyring".into())
        .spawn(move || {
            let _ = tx.send(call());
        })
        .map_err(|e| format!("cannot start the keyring client: {e}"))?;
    match rx.recv_timeout(wait) {
        Ok(out) => out,
        Err(_) => Err(format!(
            "the Secret Service did not answer within {} s (is the keyring locked?)",
            wait.as_secs()
        )),
    }
}

#[cfg(feature = "keyring")]
mod client {
    use keyring_core::api::CredentialStoreApi;
    use keyring_core::{Entry, Error};

    pub fn entry(user: &str) -> Result<Entry, String> {
        let store = zbus_secret_service_keyring_store::Store::new().map_err(|e| e.to_string())?;
        store
            .build(super::SERVICE, user, None)
            .map_err(|e| e.to_string())
    }

    pub fn get(user: &str) -> Result<Option<Vec<u8>>, String> {
        match entry(user)?.get_secret() {
            Ok(bytes) => Ok(Some(bytes)),
            Err(Error::NoEntry) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    pub fn set(user: &str, bytes: &[u8]) -> Result<(), String> {
        entry(user)?.set_secret(bytes).map_err(|e| e.to_string())
    }

    pub fn delete(user: &str) -> Result<(), String> {
        match entry(user)?.delete_credential() {
            Ok(()) | Err(Error::NoEntry) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    }
}

#[cfg(not(feature = "keyring"))]
mod client {
    const ABSENT: &str = "this ansa was built without keyring support (cargo feature `keyring`)";

    pub fn get(_: &str) -> Result<Option<Vec<u8>>, String> {
        Err(ABSENT.into())
    }

    pub fn set(_: &str, _: &[u8]) -> Result<(), String> {
        Err(ABSENT.into())
    }

    pub fn delete(_: &str) -> Result<(), String> {
        Err(ABSENT.into())
    }
}

/// Whether a Secret Service answers a set, a get and a delete of a probe item in time.
pub fn probe(dir: &Path) -> bool {
    if !BUILT {
        return false;
    }
    let probe_user = format!("{}#probe", user(dir));
    bounded(PROBE_WAIT, move || {
        let value = b"ansa keyring probe";
        client::set(&probe_user, value)?;
        let back = client::get(&probe_user)?;
        client::delete(&probe_user)?;
        if back.as_deref() == Some(&value[..]) {
            Ok(())
        } else {
            Err("the probe item read back differently".into())
        }
    })
    .is_ok()
}

/// The credentials item of the store `dir`, `None` when there is none.
pub fn get(dir: &Path) -> Result<Option<Vec<u8>>, AuthError> {
    let u = user(dir);
    bounded(CALL_WAIT, move || client::get(&u)).map_err(|r| failure(dir, "read", r))
}

/// Replaces the credentials item of `dir` (the Secret Service replaces a secret whole).
pub fn set(dir: &Path, bytes: &[u8]) -> Result<(), AuthError> {
    let (u, b) = (user(dir), bytes.to_vec());
    bounded(CALL_WAIT, move || client::set(&u, &b)).map_err(|r| failure(dir, "write", r))
}

/// Deletes the credentials item of `dir` (none is fine).
pub fn delete(dir: &Path) -> Result<(), AuthError> {
    let u = user(dir);
    bounded(CALL_WAIT, move || client::delete(&u)).map_err(|r| failure(dir, "delete", r))
}

//! Which directory holds the store: `--auth-dir` when given (absolute only), else ansa's own
//! `auth/`, else an earlier own directory of the project (`oh-my-harness` under the XDG state
//! home) when that one exists, so a rename needs no new sign-in.

use std::path::{Path, PathBuf};

use super::error::AuthError;

/// Name of the earlier own state directory that is reused.
const LEGACY_NAME: &str = "oh-my-harness";

/// Why this directory was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocationSource {
    /// `--auth-dir`.
    Explicit,
    /// `<ansa home>/auth`.
    Default,
    /// An existing `oh-my-harness` directory.
    Legacy,
}

/// The chosen store directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The directory.
    pub path: PathBuf,
    /// Why it was chosen.
    pub source: LocationSource,
}

/// Chooses the store directory. `ansa_home` is ansa's per-user home (`~/.ansa` or
/// `ANSA_HOME`); `home` and `xdg_state_home` come from the environment.
pub fn locate(
    explicit: Option<&Path>,
    ansa_home: &Path,
    home: Option<&Path>,
    xdg_state_home: Option<&Path>,
) -> Result<Location, AuthError> {
    if let Some(path) = explicit {
        if !path.is_absolute() {
            return Err(AuthError::RelativeDir {
                path: path.to_path_buf(),
            });
        }
        return Ok(Location {
            path: path.to_path_buf(),
            source: LocationSource::Explicit,
        });
    }
    let own = ansa_home.join("auth");
    if own.symlink_metadata().is_ok() {
        return Ok(Location {
            path: own,
            source: LocationSource::Default,
        });
    }
    let state_homes = [
        xdg_state_home
            .filter(|p| p.is_absolute())
            .map(Path::to_path_buf),
        home.map(|h| h.join(".local/state")),
    ];
    for state in state_homes.into_iter().flatten() {
        let legacy = state.join(LEGACY_NAME);
        if legacy.is_dir() {
            return Ok(Location {
                path: legacy,
                source: LocationSource::Legacy,
            });
        }
    }
    Ok(Location {
        path: own,
        source: LocationSource::Default,
    })
}

//! `session.json`: the session's identity, written once at creation.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Result, SessionError};
use crate::fsutil::write_atomic;
use crate::ids::{Profile, SessionId};

/// File name of the session metadata.
pub const META_FILE: &str = "session.json";

/// Identity of a session: ID, cwd and profile (used by `--continue`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionMeta {
    /// Format version.
    pub schema_version: u32,
    /// The session ID.
    pub id: SessionId,
    /// Working directory the session was created in.
    pub cwd: PathBuf,
    /// Live or offline.
    pub profile: Profile,
}

impl SessionMeta {
    /// Reads and validates `<dir>/session.json`.
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(META_FILE);
        let bytes = std::fs::read(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                SessionError::NotFound {
                    dir: dir.to_owned(),
                }
            } else {
                SessionError::io("cannot read", &path, e)
            }
        })?;
        serde_json::from_slice(&bytes).map_err(|e| {
            SessionError::io(
                "invalid session metadata in",
                &path,
                std::io::Error::other(e),
            )
        })
    }

    /// Writes `<dir>/session.json` atomically.
    pub(crate) fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(META_FILE);
        let json = serde_json::to_vec(self)
            .map_err(|e| SessionError::io("cannot encode", &path, std::io::Error::other(e)))?;
        write_atomic(&path, &json)
    }
}

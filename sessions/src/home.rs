//! The per-user home (`~/.ansa`, or `ANSA_HOME`) and where sessions live in it.

use std::path::{Path, PathBuf};

use crate::error::{Result, SessionError};
use crate::ids::SessionId;

/// The per-user `ansa` home directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnsaHome {
    root: PathBuf,
}

impl AnsaHome {
    /// `$ANSA_HOME`, else `$HOME/.ansa`.
    pub fn from_env() -> Result<Self> {
        if let Some(h) = std::env::var_os("ANSA_HOME").filter(|h| !h.is_empty()) {
            return Ok(Self::at(h));
        }
        match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            Some(home) => Ok(Self::at(Path::new(&home).join(".ansa"))),
            None => Err(SessionError::io(
                "cannot locate the ansa home: neither ANSA_HOME nor HOME is set for",
                "~/.ansa",
                std::io::Error::from(std::io::ErrorKind::NotFound),
            )),
        }
    }

    /// A home at an explicit path.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The home directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `<home>/sessions`.
    pub fn sessions_dir(&self) -> PathBuf {
        self.root.join("sessions")
    }

    /// `<home>/sessions/<ID>`.
    pub fn session_dir(&self, id: &SessionId) -> PathBuf {
        self.sessions_dir().join(id.as_str())
    }

    /// `<home>/sessions/.index`: the `--continue` pointers.
    pub fn index_dir(&self) -> PathBuf {
        self.sessions_dir().join(".index")
    }
}

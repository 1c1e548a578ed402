//! Where sessions live inside the per-user home. Locating the home (`ANSA_HOME`, `~/.ansa`)
//! and checking its modes is the agent's job (`ansa::home`), which hands the root in with `at`.

use std::path::{Path, PathBuf};

use crate::ids::SessionId;

/// Where the sessions of one `ansa` home live (`<home>/sessions`, its index); the home itself
/// is `ansa::home::AnsaHome`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionStore {
    root: PathBuf,
}

impl SessionStore {
    /// The sessions of the home at `root`.
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

//! Telling a sandbox denial from an ordinary failure, after the command ended.

use std::fmt;
use std::path::PathBuf;

/// What the sandbox refused a command, as far as its output tells.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DenialKind {
    /// A change to this path, outside the writable roots.
    Write(PathBuf),
    /// A network socket or connection.
    Network,
    /// A permission error naming no path (a namespace, a signal, a mount...).
    Other,
}

/// The first sandbox denial seen in one command's output.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SandboxDenial {
    /// What was refused.
    pub kind: DenialKind,
    /// The command's own error line that showed it (trimmed, at most 200 bytes, control
    /// characters replaced; still untrusted text).
    pub line: String,
}

impl fmt::Display for SandboxDenial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            DenialKind::Write(path) => write!(
                f,
                "the OS sandbox denied a write to {} (outside the writable roots)",
                path.display()
            ),
            DenialKind::Network => f.write_str("the OS sandbox denied network access"),
            DenialKind::Other => f.write_str("the OS sandbox denied an operation"),
        }
    }
}

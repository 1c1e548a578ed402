//! What the sandbox did to one request, told to the embedder beside the (unchanged) answer.

use super::denial::SandboxDenial;
use super::error::SandboxError;

/// What the OS sandbox did to one request; never part of the ASH/1 answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SandboxOutcome {
    /// No command ran under a sandbox (mode `off`, no policy, or not an `x` request).
    #[default]
    Unsandboxed,
    /// The command ran sandboxed; `denied` is the first denial its stderr showed, if any.
    Ran {
        /// The first denial seen (see [`SandboxDenial`] for how it is detected).
        denied: Option<SandboxDenial>,
    },
    /// The command was not run: the policy cannot be enforced here or could not be applied.
    Refused(SandboxError),
}

impl SandboxOutcome {
    /// The denial the command hit, if it ran and hit one.
    pub fn denied(&self) -> Option<&SandboxDenial> {
        match self {
            SandboxOutcome::Ran { denied } => denied.as_ref(),
            _ => None,
        }
    }

    /// Why the command was not run, if the sandbox refused it.
    pub fn refused(&self) -> Option<&SandboxError> {
        match self {
            SandboxOutcome::Refused(e) => Some(e),
            _ => None,
        }
    }
}

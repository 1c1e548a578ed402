//! The line a command's answer gets when the OS sandbox denied it something, so the model asks
//! instead of retrying blindly; and the same fact in a few words for the user's tool row.

use ash_engine::exec::sandbox::SandboxOutcome;

/// What to add for one sandbox outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DenialLine {
    /// Appended to the model's view of the answer: one line, after the normal output and
    /// exit status.
    pub for_model: String,
    /// Appended to the tool row's summary.
    pub for_user: String,
}

/// The line for `outcome`, if the sandbox denied or refused anything.
pub(super) fn line(outcome: &SandboxOutcome) -> Option<DenialLine> {
    match outcome {
        SandboxOutcome::Unsandboxed | SandboxOutcome::Ran { denied: None } => None,
        SandboxOutcome::Ran {
            denied: Some(denial),
        } => Some(DenialLine {
            for_model: format!(
                "\nsandbox: {denial}; the command ran inside the OS sandbox and was denied, not broken. Do not retry it the same way: work inside the writable roots, or, if it truly needs this, say why and ask the user (in ask mode, exec with outside_sandbox: true asks them).\n"
            ),
            for_user: "denied by the sandbox".to_owned(),
        }),
        SandboxOutcome::Refused(reason) => Some(DenialLine {
            for_model: format!(
                "\nsandbox: the command was not run: {reason}. Tell the user; only they can choose to run unsandboxed.\n"
            ),
            for_user: format!("not run: {reason}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash_engine::exec::sandbox::{DenialKind, SandboxDenial, SandboxError};
    use std::path::PathBuf;

    #[test]
    fn only_a_denial_or_a_refusal_adds_a_line() {
        assert_eq!(line(&SandboxOutcome::Unsandboxed), None);
        assert_eq!(line(&SandboxOutcome::Ran { denied: None }), None);
        let denied = SandboxOutcome::Ran {
            denied: Some(SandboxDenial {
                kind: DenialKind::Write(PathBuf::from("/home/u/x")),
                line: "sh: 1: cannot create /home/u/x: Permission denied".to_owned(),
            }),
        };
        let text = line(&denied).map(|l| l.for_model).unwrap_or_default();
        assert!(text.starts_with("\nsandbox: "), "{text}");
        assert!(text.contains("/home/u/x"), "{text}");
        assert!(text.contains("outside_sandbox"), "{text}");
        assert_eq!(text.trim().lines().count(), 1, "{text}");
        let refused = line(&SandboxOutcome::Refused(SandboxError::NoSeccomp))
            .map(|l| l.for_model)
            .unwrap_or_default();
        assert!(refused.contains("not run"), "{refused}");
        assert!(refused.contains("`off`"), "{refused}");
    }
}

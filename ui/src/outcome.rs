//! How a task ended, and the exit code that goes with it (docs/contract/agent-behaviour.md §1).

use ansa_sessions::protocol::ErrorCode;
use ansa_sessions::{RequestId, TurnState};

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: the task failed, was cancelled or is paused.
pub const EXIT_TASK_FAILED: u8 = 1;
/// Exit code: the session is busy or unusable (read-only, storage failed).
pub const EXIT_SESSION_UNUSABLE: u8 = 5;
/// Exit code when the provider refused the credentials.
pub const EXIT_AUTH: u8 = 4;

/// The end of one submitted task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnOutcome {
    /// Final state: `Done`, `Paused`, `Cancelled` or `Failed` (also `Failed` when the
    /// runtime refused the submit; see `error`).
    pub state: TurnState,
    /// Why, when the runtime said (or the error message of a refused submit).
    pub reason: Option<String>,
    /// The turn's request ID; `None` when the submit was refused.
    pub request_id: Option<RequestId>,
    /// The error code when the runtime answered the submit with an `error` event.
    pub error: Option<ErrorCode>,
}

impl TurnOutcome {
    /// The process exit code for this outcome: 0 done; 5 when the session is busy or
    /// unusable; 1 for a failed, cancelled or paused task or any other refusal.
    pub fn exit_code(&self) -> u8 {
        match (self.error, self.state) {
            (Some(ErrorCode::SessionBusy | ErrorCode::ReadOnly | ErrorCode::StorageFailed), _) => {
                EXIT_SESSION_UNUSABLE
            }
            (Some(ErrorCode::AuthFailed), _) => EXIT_AUTH,
            (Some(_), _) => EXIT_TASK_FAILED,
            (None, TurnState::Done) => EXIT_OK,
            (None, _) => EXIT_TASK_FAILED,
        }
    }
}

/// What a one-shot run ended with.
pub type OneShotOutcome = TurnOutcome;

/// What a line-mode run ended with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LinesOutcome {
    /// Tasks submitted to the runtime.
    pub tasks: u64,
    /// Input lines and tasks that did not end `done` (rejected lines included).
    pub unfinished: u64,
    /// How the last task ended, if any was submitted.
    pub last: Option<TurnOutcome>,
}

impl LinesOutcome {
    /// The process exit code: the last task's code when it is not 0 (5 for an unusable
    /// session, 1 otherwise); else 1 when any earlier task or line did not finish; else 0.
    pub fn exit_code(&self) -> u8 {
        match self.last.as_ref().map(TurnOutcome::exit_code) {
            Some(code) if code != EXIT_OK => code,
            _ if self.unfinished > 0 => EXIT_TASK_FAILED,
            _ => EXIT_OK,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(state: TurnState, error: Option<ErrorCode>) -> TurnOutcome {
        TurnOutcome {
            state,
            reason: None,
            request_id: None,
            error,
        }
    }

    #[test]
    fn exit_codes_follow_the_spec() {
        assert_eq!(outcome(TurnState::Done, None).exit_code(), 0);
        for s in [TurnState::Failed, TurnState::Cancelled, TurnState::Paused] {
            assert_eq!(outcome(s, None).exit_code(), 1);
        }
        for c in [
            ErrorCode::ReadOnly,
            ErrorCode::StorageFailed,
            ErrorCode::SessionBusy,
        ] {
            assert_eq!(outcome(TurnState::Failed, Some(c)).exit_code(), 5);
        }
        assert_eq!(
            outcome(TurnState::Failed, Some(ErrorCode::QueueFull)).exit_code(),
            1
        );
        let mut lines = LinesOutcome::default();
        assert_eq!(lines.exit_code(), 0);
        lines.last = Some(outcome(TurnState::Done, None));
        assert_eq!(lines.exit_code(), 0);
        lines.unfinished = 1;
        assert_eq!(lines.exit_code(), 1);
        lines.last = Some(outcome(TurnState::Failed, Some(ErrorCode::ReadOnly)));
        assert_eq!(lines.exit_code(), 5);
    }
}

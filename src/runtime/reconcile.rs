//! Tool intents without an outcome after a crash: recovered from the exec supervisor's saved
//! evidence when it exists, otherwise recorded as `effect_unknown` (which blocks Resume).
//! Nothing is ever re-run here.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ansa_sessions::protocol::ToolPhase;
use ansa_sessions::{
    CallId, OpenIntent, Record, RequestId, Session, SessionError, ToolOutcome, ToolOutcomeStatus,
};
use ash_engine::exec::supervisor::{Evidence, Termination, read_evidence};

use super::context::encode_output;
use crate::tools::ToolRegistry;

/// How long a missing evidence file is waited for: a supervisor whose runtime was killed
/// kills the command tree and writes its evidence within milliseconds, possibly just after
/// the new process opened the session.
const EVIDENCE_WAIT: Duration = Duration::from_millis(500);

/// What reconciliation decided for one intent (published after the first snapshot).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reconciled {
    /// The turn.
    pub request_id: RequestId,
    /// The call.
    pub call_id: CallId,
    /// The tool.
    pub tool: String,
    /// What frontends are told.
    pub phase: ToolPhase,
}

/// Where the supervisor of one exec call leaves its evidence.
pub fn evidence_path(dir: &Path, request_id: RequestId, call_id: &CallId) -> PathBuf {
    let hash = blake3::hash(call_id.0.as_bytes());
    dir.join(format!("r{}-{}.json", request_id.0, &hash.to_hex()[..16]))
}

/// Records an outcome for every open intent of the journal.
/// A tool the registry marks `read_only` changes nothing, so a lost result can simply be
/// asked for again.
pub fn open_intents(
    session: &mut Session,
    registry: &ToolRegistry,
    evidence_dir: &Path,
) -> Result<Vec<Reconciled>, SessionError> {
    if session.read_only().is_some() {
        return Ok(Vec::new());
    }
    let open: Vec<OpenIntent> = session.recovery().open_intents.clone();
    let mut done = Vec::new();
    for intent in open {
        let read_only = registry.get(&intent.tool).is_some_and(|t| t.read_only());
        let (status, output) = decide(&intent, read_only, evidence_dir);
        let phase = match status {
            ToolOutcomeStatus::EffectUnknown => ToolPhase::EffectUnknown,
            ToolOutcomeStatus::Ok => ToolPhase::Finished,
            _ => ToolPhase::Failed,
        };
        let output = encode_output(&output).map_err(|e| SessionError::Encode {
            seq: session.appended_seq(),
            reason: e.to_string(),
        })?;
        session.append(Record::ToolOutcome(ToolOutcome {
            request_id: intent.request_id,
            call_id: intent.call_id.clone(),
            status,
            reconciled: status != ToolOutcomeStatus::EffectUnknown,
            output,
            answer: None,
            instructions: Vec::new(),
        }))?;
        done.push(Reconciled {
            request_id: intent.request_id,
            call_id: intent.call_id,
            tool: intent.tool,
            phase,
        });
    }
    if !done.is_empty() {
        session.sync()?;
    }
    Ok(done)
}

fn decide(
    intent: &OpenIntent,
    read_only: bool,
    evidence_dir: &Path,
) -> (ToolOutcomeStatus, String) {
    let tool = intent.tool.as_str();
    if read_only {
        return (
            ToolOutcomeStatus::Error,
            format!(
                "The runtime stopped before the result of this `{tool}` call was saved. `{tool}` changes nothing, so nothing needs checking; call it again if you still need the result."
            ),
        );
    }
    if tool == "exec" {
        let path = evidence_path(evidence_dir, intent.request_id, &intent.call_id);
        match wait_for(&path) {
            Ok(Some(evidence)) => return from_evidence(&evidence),
            Ok(None) => {}
            Err(reason) => {
                return unknown(
                    tool,
                    &format!("its supervisor evidence is unreadable ({reason})"),
                );
            }
        }
        return unknown(
            tool,
            "no supervisor evidence exists (the supervisor did not finish)",
        );
    }
    unknown(
        tool,
        "there is no trustworthy record of whether it was applied",
    )
}

fn wait_for(path: &Path) -> Result<Option<Evidence>, String> {
    let give_up = Instant::now() + EVIDENCE_WAIT;
    loop {
        match read_evidence(path) {
            Ok(Some(e)) => return Ok(Some(e)),
            Ok(None) if Instant::now() < give_up => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => return Ok(None),
            Err(e) => return Err(e.to_string()),
        }
    }
}

fn from_evidence(e: &Evidence) -> (ToolOutcomeStatus, String) {
    let lost = "its stdout and stderr were not saved";
    let ms = e.elapsed_ms;
    match e.termination {
        Termination::Exited { code } => (
            ToolOutcomeStatus::Ok,
            format!(
                "exec finished while the runtime was stopped: exit code {code} after {ms} ms (recovered from the supervisor; {lost}). It was not re-run."
            ),
        ),
        Termination::Signaled { signal } => (
            ToolOutcomeStatus::Ok,
            format!(
                "exec finished while the runtime was stopped: killed by signal {signal} after {ms} ms (recovered from the supervisor; {lost}). It was not re-run."
            ),
        ),
        Termination::KilledRuntimeGone => (
            ToolOutcomeStatus::Cancelled,
            format!(
                "exec was stopped by its supervisor after {ms} ms because the runtime stopped; it may have made partial changes ({lost}). It was not re-run."
            ),
        ),
        Termination::KilledOnRequest => (
            ToolOutcomeStatus::Cancelled,
            format!(
                "exec was stopped by its supervisor after {ms} ms on a cancel or timeout; it may have made partial changes ({lost}). It was not re-run."
            ),
        ),
    }
}

fn unknown(tool: &str, why: &str) -> (ToolOutcomeStatus, String) {
    (
        ToolOutcomeStatus::EffectUnknown,
        format!(
            "The runtime stopped while this `{tool}` call was running and {why}: its effect is unknown. It was not re-run and will not be; check the workspace before relying on it."
        ),
    )
}

#[cfg(test)]
mod tests;

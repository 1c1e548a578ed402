//! Tool intents without an outcome after a crash: recovered from the exec supervisor's saved
//! evidence, or from what the engine's recovery did with the call's workspace transaction
//! when the workspace was opened (matched by the transaction's tag, [`txn_tag`]); otherwise
//! recorded as `effect_unknown` (which blocks Resume). Nothing is ever re-run here.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ansa_sessions::protocol::{ReportTone, ToolPhase, ToolReport};
use ansa_sessions::{
    CallId, OpenIntent, Record, RequestId, Session, SessionError, SessionId, ToolOutcome,
    ToolOutcomeStatus,
};
use ash_engine::exec::supervisor::{Evidence, Termination, read_evidence};
use ash_engine::txn::{Outcome, Recovered, Tag};

use super::context::encode_output;
use crate::tools::ToolRegistry;

/// How long a missing evidence file is waited for: a supervisor whose runtime was killed
/// kills the command tree and writes its evidence within milliseconds, possibly just after
/// the new process opened the session.
const EVIDENCE_WAIT: Duration = Duration::from_millis(500);

/// The names of MCP tools (`mcp__SERVER__TOOL`) start with this; no standard tool's does.
const MCP_PREFIX: &str = "mcp__";

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
    /// What the tool row shows, when reconciliation knows more than the phase.
    pub report: Option<ToolReport>,
    /// The MCP server of an `mcp__…` call (from the `mcp_tools` record in force).
    pub server: Option<String>,
}

/// The tag of the workspace transaction one call makes: the same call of the same session
/// always gets the same tag, and another call (of any session) practically never does.
/// (Always `Some`: the text is 37 printable ASCII bytes.)
pub fn txn_tag(session: &SessionId, request_id: RequestId, call_id: &CallId) -> Option<Tag> {
    let mut hasher = blake3::Hasher::new();
    for part in [session.as_str(), &request_id.0.to_string(), &call_id.0] {
        // Length-prefixed, so no two different triples hash the same bytes.
        hasher.update(&(part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    let hex = hasher.finalize().to_hex();
    Tag::new(format!("ansa-{}", &hex[..32])).ok()
}

/// Where the supervisor of one exec call leaves its evidence.
pub fn evidence_path(dir: &Path, request_id: RequestId, call_id: &CallId) -> PathBuf {
    let hash = blake3::hash(call_id.0.as_bytes());
    dir.join(format!("r{}-{}.json", request_id.0, &hash.to_hex()[..16]))
}

/// Records an outcome for every open intent of the journal.
/// A tool the registry marks `read_only` changes nothing, so a lost result can simply be
/// asked for again. `recovered` is what opening the workspace did with interrupted
/// transactions; a call whose transaction is among them gets that outcome.
pub fn open_intents(
    session: &mut Session,
    registry: &ToolRegistry,
    evidence_dir: &Path,
    recovered: &[Recovered],
) -> Result<Vec<Reconciled>, SessionError> {
    if session.read_only().is_some() {
        return Ok(Vec::new());
    }
    let open: Vec<OpenIntent> = session.recovery().open_intents.clone();
    let session_id = session.meta().id.clone();
    // MCP calls are judged by what their tool declared (the `mcp_tools` record in force).
    let records = match open.iter().any(|i| i.tool.starts_with(MCP_PREFIX)) {
        true => session.read_records()?,
        false => Vec::new(),
    };
    let mut done = Vec::new();
    for intent in open {
        if intent.tool == ansa_sessions::child::DELEGATE_TOOL {
            // Resumed with its children (each reconciles its own calls), never re-run whole.
            continue;
        }
        let read_only = registry.get(&intent.tool).is_some_and(|t| t.read_only());
        let tag = txn_tag(&session_id, intent.request_id, &intent.call_id);
        let transaction = recovered
            .iter()
            .find(|r| tag.is_some() && r.tag.as_ref() == tag.as_ref());
        let mut server = None;
        let (status, output, report) = match transaction {
            _ if intent.tool.starts_with(MCP_PREFIX) => {
                let tools = super::mcp::recover::tools_at(&records, intent.seq);
                server = tools
                    .and_then(|t| t.find(&intent.tool))
                    .map(|e| e.server.clone());
                let (status, output) = super::mcp::recover::interrupted(&intent.tool, tools);
                (status, output, None)
            }
            Some(r) if !read_only => from_transaction(&intent.tool, r),
            _ => {
                let (status, output) = decide(&intent, read_only, evidence_dir);
                (status, output, None)
            }
        };
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
            report: None,
        }))?;
        done.push(Reconciled {
            request_id: intent.request_id,
            call_id: intent.call_id,
            tool: intent.tool,
            phase,
            report,
            server,
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

/// The outcome of a call whose transaction the engine recovered when the workspace opened.
fn from_transaction(tool: &str, r: &Recovered) -> (ToolOutcomeStatus, String, Option<ToolReport>) {
    let paths = if r.paths.is_empty() {
        String::new()
    } else {
        format!(" ({})", r.paths.join(", "))
    };
    match &r.outcome {
        Outcome::RolledBack => (
            ToolOutcomeStatus::Error,
            format!(
                "The runtime stopped while this `{tool}` call was being applied. When the workspace was opened again, its transaction was rolled back: none of its changes remain, and every file it touched{paths} holds what it held before the call. It was not re-run and will not be; make the change again if you still need it."
            ),
            Some(ToolReport::new(
                ReportTone::Warn,
                format!("interrupted by a crash and rolled back: nothing changed{paths}"),
            )),
        ),
        Outcome::Committed => (
            ToolOutcomeStatus::Ok,
            format!(
                "The runtime stopped just after this `{tool}` call's transaction had committed: all of its changes are in place{paths}. Its answer was not saved, so read the files again if you need their new digests. It was not re-run."
            ),
            Some(ToolReport::new(
                ReportTone::Warn,
                format!("applied before a crash; recovered on restart{paths}"),
            )),
        ),
        Outcome::Unresolved { reason } => {
            let (status, text) = unknown(
                tool,
                &format!(
                    "the workspace's transaction journal could not be recovered ({reason}); the journal and the files were left as they are for inspection, and every later `edit` or `files` call fails (recovery required) until it is resolved"
                ),
            );
            (
                status,
                text,
                Some(ToolReport::new(
                    ReportTone::Error,
                    format!("transaction journal unrecoverable: {reason}"),
                )),
            )
        }
    }
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
#[path = "reconcile/txn_tests.rs"]
mod txn_tests;

#[cfg(test)]
mod tests;

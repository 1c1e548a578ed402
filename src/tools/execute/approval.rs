//! Ask mode from the tools' side: the engine session carries an ASH/1 approval policy
//! (reads granted, writes and processes approval-required), and this process is the trusted
//! harness that signs one-time permits for exactly the actions the user approved.
//!
//! The signing key is random per process, so a permit (or a challenge) never outlives the
//! process that made it: after a restart the same call is asked about again.

use ash_engine::exec::sandbox::SandboxPolicy;
use ash_engine::protocol::{Caps, Challenge, Request, to_lower_hex};
use ash_engine::session::Session;
use ash_engine::session::approval::{
    ApprovalAuthority, ApprovalPolicy, MAX_TTL_MS, PermitError, PolicyError,
};

use super::current::CurrentFile;
use super::shown::{self, Shown};
use ansa_sessions::protocol::ApprovalRequest;
use ansa_sessions::{CallId, RequestId};

/// The policy id hashed into every challenge's policy digest.
const POLICY_ID: &str = "ansa-ask-v1";

/// What an ask-mode call would do, as the engine's challenge and in words for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    /// The engine's challenge for the canonical action.
    pub challenge: Challenge,
    /// The canonical action document (ASON) the challenge's digest covers.
    pub action: String,
    /// The action digest, hex.
    pub digest: String,
    /// One line: `run cargo test`, `edit src/lib.rs (+3 −1)`, `move a → b`.
    pub summary: String,
    /// The whole action in words, derived from the same request as `action`.
    pub shown: Shown,
}

/// Why ask mode could not be set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HarnessError {
    /// The OS random generator gave no key for signing permits.
    #[error("no random key for signing approvals: the system's random generator failed")]
    Randomness,
    /// The approval policy could not be built.
    #[error(transparent)]
    Policy(#[from] PolicyError),
}

impl Approval {
    /// What a frontend is asked: this approval for call `call_id` of turn `request_id`.
    pub fn request(&self, request_id: RequestId, call_id: CallId, tool: &str) -> ApprovalRequest {
        ApprovalRequest {
            request_id,
            call_id,
            tool: tool.to_owned(),
            action: self.action.clone(),
            digest: self.digest.clone(),
            summary: self.summary.clone(),
            argv: self.shown.argv.clone(),
            cwd: self.shown.cwd.clone(),
            env: self.shown.env.clone(),
            stdin: self.shown.stdin.clone(),
            diffs: self.shown.diffs.clone(),
            actions: self.shown.actions.clone(),
            created: self.shown.created.clone(),
            withheld: self.shown.withheld.clone(),
            outside_sandbox: self.shown.outside_sandbox,
        }
    }
}

/// The signer of one executor's permits.
#[derive(Debug, Clone)]
pub(super) struct Harness {
    authority: ApprovalAuthority,
}

impl Harness {
    /// A harness with a fresh random key, and the policy it installs: reads and retained
    /// values granted, writes and processes only with a permit, bound to `session`.
    pub fn new(session: &str) -> Result<(Harness, ApprovalPolicy), HarnessError> {
        let mut key = [0u8; 32];
        aws_lc_rs::rand::fill(&mut key).map_err(|_| HarnessError::Randomness)?;
        let authority = ApprovalAuthority::new(key);
        let mut binding = [0u8; 16];
        binding.copy_from_slice(&blake3::hash(session.as_bytes()).as_bytes()[..16]);
        let policy = ApprovalPolicy::new(
            POLICY_ID,
            Caps::READ.union(Caps::RETAINED),
            Caps::WRITE.union(Caps::PROCESS),
            binding,
            authority.clone(),
        )?
        .with_ttl_ms(MAX_TTL_MS)?;
        Ok((Harness { authority }, policy))
    }

    /// Signs a permit for `approval` into `request`. A challenge that expired while the user
    /// thought is replaced by a fresh one, but only for the very same action.
    /// `sandbox` is where the prepared call runs: a decision made for a sandboxed run (its
    /// digest covers the sandbox) never signs an unsandboxed one, nor the reverse.
    pub fn grant(
        &self,
        session: &Session,
        request: &mut Request,
        sandbox: Option<&SandboxPolicy>,
        approval: &Approval,
    ) -> Result<(), PermitError> {
        request.permit = None;
        // The engine's challenge binds the sandbox; a decision taken for another one is refused
        // here, before the engine would refuse its permit.
        if approval.digest != to_lower_hex(&approval.challenge.action)
            || approval.challenge.action != SandboxPolicy::bind(request.action_digest().0, sandbox)
        {
            return Err(PermitError::Mismatch);
        }
        let permit = match self.authority.issue(&approval.challenge) {
            Err(PermitError::Expired) => {
                let fresh = session
                    .authorize_under(request, sandbox)
                    .and_then(|denied| session.take_challenge(&denied))
                    .ok_or(PermitError::NotPending)?;
                if fresh.action != approval.challenge.action {
                    return Err(PermitError::Mismatch);
                }
                self.authority.issue(&fresh)?
            }
            other => other?,
        };
        request.permit = Some(permit);
        Ok(())
    }
}

/// The engine's challenge for `request` and all it does in words, both from the request
/// itself; `None` when it needs no approval (it may run at once). `preimages` are the files
/// an edit's patch applies to.
/// `sandbox` is the policy the command runs under (bound into the digest); `outside` marks a
/// command the model asked to run outside the configured sandbox, which the approval says first.
pub(super) fn ask(
    session: &Session,
    request: &Request,
    preimages: &[CurrentFile],
    sandbox: Option<&SandboxPolicy>,
    outside: bool,
) -> Option<Approval> {
    let denied = session.authorize_under(request, sandbox)?;
    let challenge = session.take_challenge(&denied)?;
    let mut shown = shown::shown(request, preimages);
    if outside {
        shown.outside_sandbox = true;
        // First in the summary, so that no cut of a long one can hide it.
        shown.summary = shown::cut_summary(&format!("OUTSIDE the sandbox: {}", shown.summary));
    }
    Some(Approval {
        challenge,
        digest: to_lower_hex(&challenge.action),
        action: ash_engine::ason::encode(&request.action_document()),
        summary: shown.summary.clone(),
        shown,
    })
}

/// Ask mode: signs the permit of a command that runs inside the sandbox without asking the
/// user (the sandbox, not a person, bounds what it can do); the permit's digest binds the
/// sandbox like any other.
pub(super) fn sign_sandboxed(
    harness: &Harness,
    session: &Session,
    request: &mut Request,
    sandbox: &SandboxPolicy,
) -> Result<(), PermitError> {
    let Some(approval) = ask(session, request, &[], Some(sandbox), false) else {
        // The policy grants it already: nothing to sign.
        return Ok(());
    };
    harness.grant(session, request, Some(sandbox), &approval)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash_engine::compute::ComputePlane;
    use ash_engine::protocol::{Budget, ErrorCode, Formula, Op};
    use ash_engine::session::SessionConfig;
    use std::sync::Arc;

    /// The policy is by capability: a `>` (materialize, write) is asked about like an edit,
    /// even though no agent tool sends one today.
    #[test]
    fn a_materialize_needs_a_permit_too() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let plane = Arc::new(ComputePlane::new(1)?);
        let session = Session::open(dir.path(), SessionConfig::run(), plane)?;
        let (_, policy) = Harness::new("s")?;
        session.set_approval_policy(Some(policy));
        let alias = session.store().retain(b"data".to_vec())?;
        let request = Request {
            id: 1,
            op: Op::Formula(Formula::Materialize {
                source: alias,
                path: "out.txt".into(),
            }),
            budget: Budget {
                tok: 100,
                rec: 10,
                ms: 1000,
            },
            permit: None,
        };
        let denied = session
            .authorize(&request)
            .ok_or("a write must be asked about")?;
        let code = denied.error.map(|e| e.code);
        assert_eq!(code, Some(ErrorCode::PermitRequired));
        assert!(!dir.path().join("out.txt").exists());
        Ok(())
    }
}

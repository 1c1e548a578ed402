//! `x` exec: run the process, project both streams under the budget split, retain every
//! stream that is not shown whole, and answer with the contract's status for how it ended.

use crate::answer::Answer;
use crate::exec::gate::GateStop;
use crate::exec::sandbox::{self, SandboxDenial, SandboxOutcome, SandboxPolicy};
use crate::exec::{self, CaptureLimits, Captured, ExecContext, ExecError, Launch, ProcessOutcome};
use crate::protocol::{
    Data, ErrorCode, ErrorRecord, ExecArgs, ExecResult, ExitKind, Flags, Response, Stage, Stdin,
};
use crate::reduce::{ExitOutcome, Projection, project_sample, project_stream, stream_budgets};
use crate::store::{Body, Pending};

/// Largest retained value accepted as stdin (docs/contract/ash-protocol.md §5 "formula full reads").
const MAX_STDIN_REF: u64 = 64 * 1024 * 1024;

/// Runs an exec request.
pub(crate) fn run(answer: &mut Answer<'_>, args: &ExecArgs) -> Result<Response, ErrorRecord> {
    let launch = Launch::resolve(args, &answer.session.workspace)
        .map_err(|e| exec_error(&e))?
        .with_hardening(answer.session.hardening)
        .with_withheld_env(std::sync::Arc::clone(&answer.session.withheld_env))
        .with_supervision(answer.supervision.cloned())
        .with_sandbox(answer.sandbox.cloned());
    if let Some(Err(e)) = launch.sandbox().map(|p| p.check(&sandbox::probe())) {
        answer.sandbox_outcome = SandboxOutcome::Refused(e.clone());
        return Err(exec_error(&ExecError::Sandbox(e)));
    }
    let (stdin, leased) = match &args.stdin {
        Stdin::Null => (None, None),
        Stdin::Text(t) => (Some(Body::Memory(t.as_bytes().into())), None),
        Stdin::Ref(alias) => {
            let body = answer.store().lease(*alias).map_err(|e| e.record())?;
            (Some(body), Some(*alias))
        }
    };
    let outcome = match &stdin {
        Some(body) if body.len() > MAX_STDIN_REF => Err(ErrorRecord::work_limit()),
        // Queue for a process slot; the wait is not part of `ms`.
        _ => match answer
            .session
            .processes
            .acquire(&answer.cancel, answer.deadline)
        {
            Ok(_permit) => spawn(answer, &launch, stdin.as_ref()),
            Err(GateStop::Cancelled) => Err(ErrorRecord::typical(ErrorCode::Cancelled)),
            Err(GateStop::TimedOut) => Err(ErrorRecord::typical(ErrorCode::TimedOut)),
        },
    };
    if let Some(alias) = leased {
        answer.store().unlease(alias);
    }
    respond(answer, outcome?)
}

fn spawn(
    answer: &mut Answer<'_>,
    launch: &Launch,
    stdin: Option<&Body>,
) -> Result<ProcessOutcome, ErrorRecord> {
    let meter = answer.store().meter();
    let spool = answer
        .session
        .spool_root()
        .map_err(|_| ErrorRecord::store_io())?;
    let cx = ExecContext {
        deadline: answer.deadline,
        cancel: &answer.cancel,
        meter: &meter,
        spool: &spool,
        limits: CaptureLimits::default(),
        live: answer.live,
    };
    let outcome = exec::run(launch, stdin, &cx);
    if let Some(policy) = launch.sandbox() {
        answer.sandbox_outcome = match &outcome {
            Err(ExecError::Sandbox(e)) => SandboxOutcome::Refused(e.clone()),
            Err(_) => SandboxOutcome::Ran { denied: None },
            Ok(ran) => SandboxOutcome::Ran {
                denied: denial(policy, launch, &ran.stderr),
            },
        };
    }
    outcome.map_err(|e| exec_error(&e))
}

/// The first sandbox denial the command's stderr shows.
fn denial(policy: &SandboxPolicy, launch: &Launch, stderr: &Captured) -> Option<SandboxDenial> {
    let roots = policy.writable_roots(launch.workspace_root());
    let allowed = sandbox::Allowed {
        roots: &roots,
        cwd: launch.cwd(),
        network: policy.network_allowed(),
    };
    let sample = stderr.sample();
    let (head, tail) = sample
        .as_ref()
        .map_or((&[][..], &[][..]), |s| (s.head, s.tail));
    sandbox::detect(&sandbox::scan_parts(stderr.bytes(), head, tail), &allowed)
}

/// How the process ended, for projection.
fn exit_outcome(outcome: &ProcessOutcome) -> ExitOutcome {
    match outcome.kind {
        ExitKind::Exited if outcome.code == Some(0) => ExitOutcome::Succeeded,
        ExitKind::Exited | ExitKind::Signaled => ExitOutcome::ExitedUnsuccessfully,
        ExitKind::TimedOut | ExitKind::Cancelled | ExitKind::Killed => {
            ExitOutcome::TimedOutOrCancelled
        }
    }
}

/// One stream's projection and whether its full bytes must be retained.
struct Shown {
    projection: Projection,
    retain: bool,
}

/// The `z` bits of one stream: any reduction, a head/tail cut, or bytes shown without text
/// (not UTF-8) sets both truncated and reduced, as the reference does; CRLF normalisation
/// sets its own bit.
fn stream_bits(shown: &Shown) -> u8 {
    let p = &shown.projection;
    let reduced = p.truncated || p.reduced || (shown.retain && p.text.is_none());
    (if reduced { 0b11 } else { 0 }) | u8::from(p.normalized) << 2
}

fn show(
    answer: &Answer<'_>,
    captured: &Captured,
    exit: ExitOutcome,
    budget: usize,
) -> Result<Shown, ErrorRecord> {
    let projection = match (captured.bytes(), captured.sample()) {
        (Some(bytes), _) => project_stream(&answer.session.plane, bytes, exit, budget),
        (None, Some(sample)) => {
            project_sample(&sample, budget).map_err(|_| ErrorRecord::internal_execute())?
        }
        (None, None) => return Err(ErrorRecord::store_quota()),
    };
    let retain = projection.retains(captured.len);
    Ok(Shown { projection, retain })
}

/// How the process ended, without its captures.
struct Ended {
    kind: ExitKind,
    code: Option<i64>,
    ms: u64,
    incomplete: bool,
}

fn respond(answer: &mut Answer<'_>, outcome: ProcessOutcome) -> Result<Response, ErrorRecord> {
    let exit = exit_outcome(&outcome);
    let ProcessOutcome {
        kind,
        code,
        elapsed_ms,
        stdout,
        stderr,
        incomplete,
    } = outcome;
    if stdout.lost().is_some() || stderr.lost().is_some() {
        return Err(ErrorRecord::store_quota());
    }
    let ended = Ended {
        kind,
        code,
        ms: elapsed_ms,
        incomplete,
    };
    let id = answer.request.id;
    let limit = answer.limit();
    let mut budgets = stream_budgets(limit, exit);
    let mut out = show(answer, &stdout, exit, budgets.stdout)?;
    let mut err = show(answer, &stderr, exit, budgets.stderr)?;
    // Escapes can make the encoded answer longer than the byte budgets; shrink both budgets by
    // the overshoot (measured with worst-case references) until it fits.
    for _ in 0..8 {
        let size = build(id, &ended, &out, &err, Some(u64::MAX), Some(u64::MAX))
            .encode()
            .len();
        if size <= limit {
            break;
        }
        let over = size - limit;
        budgets.stdout = budgets.stdout.saturating_sub(over);
        budgets.stderr = budgets.stderr.saturating_sub(over);
        out = show(answer, &stdout, exit, budgets.stdout)?;
        err = show(answer, &stderr, exit, budgets.stderr)?;
    }
    // stdout then stderr, committed together or not at all.
    let mut pending: Vec<Pending> = Vec::new();
    for (shown, captured) in [(&out, stdout), (&err, stderr)] {
        if shown.retain {
            pending.push(
                captured
                    .into_pending()
                    .map_err(|_| ErrorRecord::store_quota())?,
            );
        }
    }
    let mut aliases = answer
        .store()
        .retain_all(pending)
        .map_err(|e| e.record())?
        .into_iter();
    let ro = if out.retain { aliases.next() } else { None };
    let re = if err.retain { aliases.next() } else { None };
    let response = build(id, &ended, &out, &err, ro, re);
    if response.encode().len() > limit {
        return Err(ErrorRecord::typical(ErrorCode::OutputBudget));
    }
    Ok(response)
}

fn build(
    id: u64,
    ended: &Ended,
    out: &Shown,
    err: &Shown,
    ro: Option<u64>,
    re: Option<u64>,
) -> Response {
    let ro = ro.filter(|_| out.retain);
    let re = re.filter(|_| err.retain);
    let data = Data::Exec(ExecResult {
        kind: ended.kind,
        code: ended.code,
        ms: ended.ms,
        stdout: out.projection.text.clone(),
        stderr: err.projection.text.clone(),
        stdout_ref: ro,
        stderr_ref: re,
    });
    let bits = stream_bits(out) | stream_bits(err);
    let mut flags = Flags::from_bits(bits).unwrap_or(Flags::NONE);
    if ro.is_some() || re.is_some() {
        flags = flags.with(Flags::RETAINED);
    }
    if ended.incomplete {
        flags = flags.with(Flags::PARTIAL);
    }
    let error = match ended.kind {
        ExitKind::Exited if ended.code == Some(0) => None,
        ExitKind::Exited | ExitKind::Signaled | ExitKind::Killed => {
            Some(ErrorRecord::typical(ErrorCode::ProcessFailed))
        }
        ExitKind::TimedOut => Some(ErrorRecord::typical_at(ErrorCode::TimedOut, Stage::Execute)),
        ExitKind::Cancelled => Some(ErrorRecord::typical(ErrorCode::Cancelled)),
    };
    let mut response = Response::success(id, data);
    if let Some(error) = error {
        response.status = error.status();
        response.error = Some(error);
    }
    response.flags = flags;
    response
}

/// The error record for a process that could not be run.
fn exec_error(e: &ExecError) -> ErrorRecord {
    match e {
        ExecError::Path(fs) => super::fs_error(fs),
        ExecError::ProgramNotFound { .. } | ExecError::CwdNotFound { .. } => {
            ErrorRecord::typical(ErrorCode::PathNotFound)
        }
        ExecError::CwdNotADirectory { .. } => ErrorRecord::filesystem(),
        ExecError::Spawn { .. } | ExecError::Sandbox(_) => {
            ErrorRecord::typical(ErrorCode::SpawnFailed)
        }
        ExecError::Internal(_) => ErrorRecord::internal_execute(),
    }
}

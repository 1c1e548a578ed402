//! Operation execution: each module turns a validated request into a response.

mod batch;
mod exec;
mod formula;
mod fs;
mod list;
mod materialize;
mod patch;
mod read;
mod reply;
mod rows;
mod search;
mod snapshot;

use crate::answer::pathdict::PathDelta;
use crate::answer::{Answer, Charge, Executed, Shared};
use crate::cancel::CancelToken;
use crate::deadline::Deadline;
use crate::exec::sandbox::{SandboxOutcome, SandboxPolicy};
use crate::files::workspace::FsError;
use crate::protocol::{CancelResult, Data, ErrorCode, ErrorRecord, Op, Request, Response, Stage};
use crate::session::Attachments;

/// Runs the request in `answer`; an `Err` becomes an error response.
fn dispatch(answer: &mut Answer<'_>) -> Result<Response, ErrorRecord> {
    match &answer.request.op {
        Op::Read(args) => read::run(answer, args),
        Op::List(args) => list::run(answer, args),
        Op::Search(args) => search::run(answer, args),
        Op::Formula(formula) => formula::run(answer, formula),
        Op::Exec(args) => exec::run(answer, args),
        Op::Snapshot(args) => snapshot::run(answer, args),
        Op::Patch(args) => patch::run(answer, args),
        Op::Fs(args) => fs::run(answer, args),
        Op::Batch(args) => batch::run(answer, args),
        // Outside `ash rpc` no other request of this session can be active, so there is
        // nothing to flip: `z:0`. The rpc transport answers `k` itself, before dispatch.
        Op::Cancel(args) => Ok(Response::success(
            answer.request.id,
            Data::Cancel(CancelResult {
                target: args.target,
                flipped: false,
            }),
        )),
    }
}

/// The error record for a filesystem-plane failure.
pub(crate) fn fs_error(e: &FsError) -> ErrorRecord {
    match e.code() {
        ErrorCode::InvalidArgument => ErrorRecord::invalid_argument(),
        ErrorCode::StorageBudget => ErrorRecord::work_limit(),
        ErrorCode::Filesystem => ErrorRecord::filesystem(),
        ErrorCode::TimedOut => ErrorRecord::typical_at(ErrorCode::TimedOut, Stage::Execute),
        code => ErrorRecord::typical(code),
    }
}

/// Executes an authorized request (batch children run through here: their batch was
/// authorized once for the union of its leaves, and run unsupervised).
pub(crate) fn perform(
    shared: &Shared,
    request: &Request,
    cancel: CancelToken,
    deadline: Deadline,
    output: u64,
    (attached, sandbox): (&Attachments, Option<&SandboxPolicy>),
    charge: Charge,
) -> Executed {
    let id = request.id;
    let mut answer = Answer {
        session: shared,
        request,
        delta: PathDelta::default(),
        deadline,
        cancel,
        output,
        supervision: attached.supervision.as_ref(),
        tag: attached.tag.as_ref(),
        live: attached.live.as_ref(),
        sandbox,
        sandbox_outcome: SandboxOutcome::Unsandboxed,
        charge,
        reserved: 0,
        applies: false,
    };
    let response = dispatch(&mut answer).unwrap_or_else(|e| Response::error(id, e));
    // Cancel answers are tiny and always sent (§9), so no presentation limit applies.
    let limit = match request.op {
        Op::Cancel(_) => None,
        _ => Some(request.budget.presentation_limit(output)),
    };
    Executed {
        response,
        delta: answer.delta,
        limit,
        reserved: answer.reserved,
        applied: answer.applies,
        sandbox: answer.sandbox_outcome,
    }
}

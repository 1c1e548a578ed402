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

use crate::protocol::{CancelResult, Data, ErrorCode, ErrorRecord, Op, Response, Stage};
use crate::session::Answer;
use crate::workspace::FsError;

/// Runs the request in `answer`; an `Err` becomes an error response.
pub(crate) fn dispatch(answer: &mut Answer<'_>) -> Result<Response, ErrorRecord> {
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

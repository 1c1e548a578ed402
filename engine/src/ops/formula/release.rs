//! `-` release: forget a retained value; its alias is never handed out again.

use crate::answer::Answer;
use crate::protocol::{Data, ErrorCode, ErrorRecord, ReleaseResult, Response};

/// Runs `-` on `source`: 700 when unknown, 600 when even the answer does not fit, 701 when
/// leased; nothing is released unless the answer is emitted.
pub(super) fn run(answer: &mut Answer<'_>, source: u64) -> Result<Response, ErrorRecord> {
    if answer.store().get(source).is_none() {
        return Err(ErrorRecord::typical(ErrorCode::UnknownReference));
    }
    let response = Response::success(
        answer.request.id,
        Data::Release(ReleaseResult {
            reference: source,
            released: true,
        }),
    );
    if response.encode().len() > answer.limit() {
        return Err(ErrorRecord::typical(ErrorCode::OutputBudget));
    }
    answer.store().release(source).map_err(|e| e.record())?;
    Ok(response)
}

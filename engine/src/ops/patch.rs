//! `p` patch: byte edits of existing files, preflighted against their digests and committed
//! through the transaction journal as replace actions.

use super::reply::{self, Planned};
use crate::answer::Answer;
use crate::files::workspace::Workspace;
use crate::protocol::{
    Data, Digest, ErrorCode, ErrorRecord, Flags, MutationState, PatchArgs, PatchRow, Response,
};
use crate::txn::preflight::{self, Target, check_target, content_bytes, failed_with, txn_record};
use crate::txn::{
    self, Action, CommitFailure, Entry, Kind, MAX_FILE_BYTES, MAX_TOTAL_BYTES, Stop, Txn, TxnError,
};

/// Runs `p`. Order of checks: path syntax (100) and `.ash` (300), replacement references
/// (700), locks and recovery, target resolution (201/202), size ceilings (601), digests
/// (501, nothing touched), edit bounds (100), result ceilings (601), the answer's fit (600),
/// commit.
pub(super) fn run(answer: &mut Answer<'_>, args: &PatchArgs) -> Result<Response, ErrorRecord> {
    for file in &args.files {
        check_target(&answer.session.workspace, &file.path)?;
    }
    let inserts: Vec<Vec<Vec<u8>>> = args
        .files
        .iter()
        .map(|f| {
            f.edits
                .iter()
                .map(|e| content_bytes(answer.session, &e.insert))
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let stop = Stop::new(answer.deadline, answer.cancel.clone());
    let ws = answer.session.workspace.clone();
    // A patch that fails leaves a workspace without a state directory untouched: it is
    // preflighted once before `.ash` is made. Every transaction makes `.ash` before it changes
    // anything and `.ash` is never removed, so while `.ash` is still absent after this
    // preflight no transaction ran during it, and its failure is the answer.
    if txn::state_dir_absent(&ws) {
        let early = match preflight(answer, &ws, args, &inserts, &stop) {
            Ok(Preflight::Ready { planned, .. }) => {
                reply::presentable(answer, &planned).err().map(Err)
            }
            Ok(Preflight::Refused(response)) => Some(Ok(response)),
            Err(record) => Some(Err(record)),
        };
        if let Some(done) = early
            && txn::state_dir_absent(&ws)
        {
            return done;
        }
    }
    let txn = match Txn::begin(&ws, stop) {
        Ok(txn) => txn,
        Err(e) => return unapplied(answer, args, &e),
    };
    let ws = txn.workspace().clone();
    match preflight(answer, &ws, args, &inserts, txn.stop())? {
        Preflight::Refused(response) => Ok(response),
        Preflight::Ready { actions, planned } => {
            reply::commit(answer, txn, actions, planned, |answer, failure| {
                failed(answer, args, failure)
            })
        }
    }
}

/// What the preflight of a patch decided.
enum Preflight {
    /// A digest is stale: the answer lists every file's state, and nothing changes.
    Refused(Response),
    /// Every check passed: the actions to commit and the answer to give once they are.
    Ready {
        actions: Vec<Action>,
        planned: Planned,
    },
}

/// Resolves the targets, reads and checks them, and builds the actions and the planned answer;
/// reads only, so it can run before the locks (see [`run`]) and again under them.
fn preflight(
    answer: &mut Answer<'_>,
    ws: &Workspace,
    args: &PatchArgs,
    inserts: &[Vec<Vec<u8>>],
    stop: &Stop,
) -> Result<Preflight, ErrorRecord> {
    let mut total = 0u64;
    let mut modes = Vec::with_capacity(args.files.len());
    for file in &args.files {
        match preflight::inspect(ws, &file.path).map_err(|f| f.record())? {
            Target::Missing => return Err(ErrorRecord::typical(ErrorCode::PathNotFound)),
            Target::File(meta) => {
                total = total.saturating_add(meta.size);
                if meta.size > MAX_FILE_BYTES || total > MAX_TOTAL_BYTES {
                    return Err(ErrorRecord::work_limit());
                }
                modes.push(meta.mode);
            }
        }
    }
    let mut originals = Vec::with_capacity(args.files.len());
    for (file, mode) in args.files.iter().zip(modes) {
        let (bytes, digest) = preflight::read(ws, &file.path, stop).map_err(|f| f.record())?;
        originals.push((bytes, digest, mode));
    }
    if originals
        .iter()
        .zip(&args.files)
        .any(|((_, actual, _), f)| *actual != f.digest)
    {
        let rows = args
            .files
            .iter()
            .zip(&originals)
            .map(|(f, (_, actual, _))| {
                let stale = *actual != f.digest;
                Ok(PatchRow {
                    path: answer.path_id(&f.path)?,
                    state: if stale {
                        MutationState::Conflict
                    } else {
                        MutationState::Skipped
                    },
                    digest: stale.then_some(*actual),
                })
            })
            .collect::<Result<Vec<_>, ErrorRecord>>()?;
        let record = ErrorRecord::typical(ErrorCode::ContentConflict);
        return Ok(Preflight::Refused(failed_with(
            answer.request.id,
            record,
            Data::Patch(rows),
        )));
    }
    let mut actions = Vec::with_capacity(args.files.len());
    let mut result_total = 0u64;
    for ((file, inserts), (original, digest, mode)) in args.files.iter().zip(inserts).zip(originals)
    {
        let patched = apply_edits(&original, file, inserts)?;
        result_total = result_total.saturating_add(patched.len() as u64);
        if patched.len() as u64 > MAX_FILE_BYTES || result_total > MAX_TOTAL_BYTES {
            return Err(ErrorRecord::work_limit());
        }
        actions.push(Action {
            entry: Entry {
                kind: Kind::Replace,
                path: file.path.clone(),
                destination: None,
                digest: Digest::of(&patched),
                size: patched.len() as u64,
                preimage: Some((digest, original.len() as u64)),
            },
            stage: Some(patched),
            preimage: Some(original),
            mode: Some(mode),
        });
    }
    let mut paths = Vec::new();
    let rows = args
        .files
        .iter()
        .zip(&actions)
        .map(|(f, a)| PatchRow {
            path: reply::local_id(&mut paths, &f.path),
            state: MutationState::Committed,
            digest: Some(a.entry.digest),
        })
        .collect();
    let planned = Planned {
        data: Data::Patch(rows),
        empty: Data::Patch(Vec::new()),
        paths,
        kind: Some("p"),
        flags: Flags::NONE,
        reference: None,
    };
    Ok(Preflight::Ready { actions, planned })
}

/// Splices the edits (sorted, non-overlapping) into `original`; an edit ending past the end
/// of the file is 100.
fn apply_edits(
    original: &[u8],
    file: &crate::protocol::PatchFile,
    inserts: &[Vec<u8>],
) -> Result<Vec<u8>, ErrorRecord> {
    let size = original.len() as u64;
    let mut out = Vec::with_capacity(original.len());
    let mut at = 0usize;
    for (edit, insert) in file.edits.iter().zip(inserts) {
        let end = edit.offset.saturating_add(edit.delete);
        if end > size {
            return Err(ErrorRecord::invalid_argument());
        }
        // Both fit in usize: they are at most the in-memory file's length.
        let (start, end) = (edit.offset as usize, end as usize);
        out.extend_from_slice(&original[at..start]);
        out.extend_from_slice(insert);
        at = end;
    }
    out.extend_from_slice(&original[at..]);
    Ok(out)
}

/// A failure before anything was applied: 502 marks every file "recovery required".
fn unapplied(
    answer: &mut Answer<'_>,
    args: &PatchArgs,
    error: &TxnError,
) -> Result<Response, ErrorRecord> {
    failed(
        answer,
        args,
        &CommitFailure {
            error: error.clone(),
            rolled_back: 0,
        },
    )
}

/// The answer of a failed commit: 502 and apply-time 501 carry rows, the rest do not.
fn failed(
    answer: &mut Answer<'_>,
    args: &PatchArgs,
    failure: &CommitFailure,
) -> Result<Response, ErrorRecord> {
    let record = txn_record(&failure.error);
    let state_of = |i: usize| -> (MutationState, Option<Digest>) {
        match &failure.error {
            TxnError::Recovery(_) => (MutationState::RecoveryRequired, None),
            TxnError::Conflict { index, observed } if *index == i => {
                (MutationState::Conflict, *observed)
            }
            _ if i < failure.rolled_back => (MutationState::RolledBack, None),
            _ => (MutationState::Skipped, None),
        }
    };
    if !matches!(
        failure.error,
        TxnError::Recovery(_) | TxnError::Conflict { .. }
    ) {
        return Err(record);
    }
    let rows = args
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (state, digest) = state_of(i);
            Ok(PatchRow {
                path: answer.path_id(&f.path)?,
                state,
                digest,
            })
        })
        .collect::<Result<Vec<_>, ErrorRecord>>()?;
    Ok(failed_with(answer.request.id, record, Data::Patch(rows)))
}

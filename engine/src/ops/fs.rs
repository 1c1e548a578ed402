//! `f` fs: a table of create, copy, move and remove actions committed as one transaction.

use super::reply::{self, Planned};
use crate::answer::Answer;
use crate::files::workspace::Workspace;
use crate::protocol::{
    Data, Digest, ErrorCode, ErrorRecord, Flags, FsAction, FsArgs, FsOp, FsRow, MutationState,
    Response,
};
use crate::txn::preflight::{
    self, Target, check_target, content_bytes, failed_with, observe, txn_record,
};
use crate::txn::{
    Action, CommitFailure, Entry, Kind, MAX_FILE_BYTES, MAX_TOTAL_BYTES, Stop, Txn, TxnError,
};

/// What preflight learned about one action before hashing.
struct Resolved {
    /// The source (copy, move, remove) or created file size.
    size: u64,
    /// Source permission bits (copy keeps them).
    mode: Option<u32>,
    /// The destination (create target, copy/move destination) already exists.
    occupied: bool,
}

/// Runs `f`. Order of checks: path syntax (100) and `.ash` (300), create references (700),
/// locks and recovery, resolution of every path (201/202), size ceilings (601), then per
/// action in order digests and destinations (501 at the first conflict, nothing touched),
/// commit.
pub(super) fn run(answer: &mut Answer<'_>, args: &FsArgs) -> Result<Response, ErrorRecord> {
    for a in &args.actions {
        check_target(&answer.session.workspace, a.op.path())?;
        if let Some(to) = a.op.destination() {
            check_target(&answer.session.workspace, to)?;
        }
    }
    let contents: Vec<Option<Vec<u8>>> = args
        .actions
        .iter()
        .map(|a| match &a.op {
            FsOp::Create { content, .. } => content_bytes(answer.session, content).map(Some),
            _ => Ok(None),
        })
        .collect::<Result<_, _>>()?;
    let stop = Stop::new(answer.deadline, answer.cancel.clone());
    let txn = match Txn::begin(&answer.session.workspace, stop) {
        Ok(txn) => txn,
        Err(error) => {
            let failure = CommitFailure {
                error,
                rolled_back: 0,
            };
            return failed(answer, args, &failure);
        }
    };
    let ws = txn.workspace().clone();
    let mut resolved = Vec::with_capacity(args.actions.len());
    let mut total = 0u64;
    for (a, content) in args.actions.iter().zip(&contents) {
        let r = resolve(&ws, a, content.as_deref())?;
        total = total.saturating_add(r.size);
        if r.size > MAX_FILE_BYTES || total > MAX_TOTAL_BYTES {
            return Err(ErrorRecord::work_limit());
        }
        resolved.push(r);
    }
    let mut actions = Vec::with_capacity(args.actions.len());
    for (i, ((a, content), r)) in args.actions.iter().zip(contents).zip(&resolved).enumerate() {
        match prepare(&ws, a, content, r, txn.stop())? {
            Ok(action) => actions.push(action),
            Err(observed) => {
                let failure = CommitFailure {
                    error: TxnError::Conflict { index: i, observed },
                    rolled_back: 0,
                };
                return failed(answer, args, &failure);
            }
        }
    }
    let mut paths = Vec::new();
    let rows = args
        .actions
        .iter()
        .zip(&actions)
        .map(|(a, action)| FsRow {
            id: a.id,
            kind: a.op.kind(),
            path: reply::local_id(&mut paths, a.op.path()),
            destination: a.op.destination().map(|to| reply::local_id(&mut paths, to)),
            state: MutationState::Committed,
            digest: Some(action.entry.digest),
        })
        .collect();
    let planned = Planned {
        data: Data::Fs(rows),
        empty: Data::Fs(Vec::new()),
        paths,
        kind: Some("f"),
        flags: Flags::NONE,
        reference: None,
    };
    reply::commit(answer, txn, actions, planned, |answer, failure| {
        failed(answer, args, failure)
    })
}

/// Resolves an action's paths: sources must be regular files, destinations must have an
/// existing parent directory; both without symlinked components.
fn resolve(ws: &Workspace, a: &FsAction, content: Option<&[u8]>) -> Result<Resolved, ErrorRecord> {
    let inspect = |p: &str| preflight::inspect(ws, p).map_err(|f| f.record());
    let source = |p: &str| match inspect(p)? {
        Target::File(meta) => Ok(meta),
        Target::Missing => Err(ErrorRecord::typical(ErrorCode::PathNotFound)),
    };
    Ok(match &a.op {
        FsOp::Create { path, .. } => Resolved {
            size: content.map_or(0, |c| c.len() as u64),
            mode: None,
            occupied: matches!(inspect(path)?, Target::File(_)),
        },
        FsOp::Copy { from, to, .. } | FsOp::Move { from, to, .. } => {
            let meta = source(from)?;
            Resolved {
                size: meta.size,
                mode: Some(meta.mode),
                occupied: matches!(inspect(to)?, Target::File(_)),
            }
        }
        FsOp::Remove { path, .. } => Resolved {
            size: source(path)?.size,
            mode: None,
            occupied: false,
        },
    })
}

/// Hashes sources and builds the journal action; `Ok(Err(observed))` is a conflict.
fn prepare(
    ws: &Workspace,
    a: &FsAction,
    content: Option<Vec<u8>>,
    r: &Resolved,
    stop: &Stop,
) -> Result<Result<Action, Option<Digest>>, ErrorRecord> {
    let entry = |kind, digest, size, destination: Option<&str>| Entry {
        kind,
        path: a.op.path().to_owned(),
        destination: destination.map(str::to_owned),
        digest,
        size,
        preimage: None,
    };
    let occupied = |to: &str| observe(ws, to);
    let action = match &a.op {
        FsOp::Create { .. } => {
            let bytes = content.unwrap_or_default();
            if r.occupied {
                return Ok(Err(occupied(a.op.path())));
            }
            Action {
                entry: entry(Kind::Create, Digest::of(&bytes), bytes.len() as u64, None),
                stage: Some(bytes),
                preimage: None,
                mode: None,
            }
        }
        FsOp::Copy { from, to, digest } => {
            let (bytes, actual) = preflight::read(ws, from, stop).map_err(|f| f.record())?;
            if actual != *digest {
                return Ok(Err(Some(actual)));
            }
            if r.occupied {
                return Ok(Err(occupied(to)));
            }
            Action {
                entry: entry(Kind::Copy, actual, bytes.len() as u64, Some(to)),
                stage: Some(bytes),
                preimage: None,
                mode: r.mode,
            }
        }
        FsOp::Move { from, to, digest } => {
            let (actual, size) = preflight::hash(ws, from, stop).map_err(|f| f.record())?;
            if actual != *digest {
                return Ok(Err(Some(actual)));
            }
            if r.occupied {
                return Ok(Err(occupied(to)));
            }
            Action {
                entry: entry(Kind::Move, actual, size, Some(to)),
                stage: None,
                preimage: None,
                mode: None,
            }
        }
        FsOp::Remove { path, digest } => {
            let (actual, size) = preflight::hash(ws, path, stop).map_err(|f| f.record())?;
            if actual != *digest {
                return Ok(Err(Some(actual)));
            }
            Action {
                entry: entry(Kind::Remove, actual, size, None),
                stage: None,
                preimage: None,
                mode: None,
            }
        }
    };
    Ok(Ok(action))
}

/// One result row; path ids go source first, then destination.
fn row(
    answer: &mut Answer<'_>,
    a: &FsAction,
    state: MutationState,
    digest: Option<Digest>,
) -> Result<FsRow, ErrorRecord> {
    let path = answer.path_id(a.op.path())?;
    let destination = match a.op.destination() {
        Some(to) => Some(answer.path_id(to)?),
        None => None,
    };
    Ok(FsRow {
        id: a.id,
        kind: a.op.kind(),
        path,
        destination,
        state,
        digest,
    })
}

/// The answer of a failed transaction: 501 and 502 carry rows, the rest do not.
fn failed(
    answer: &mut Answer<'_>,
    args: &FsArgs,
    failure: &CommitFailure,
) -> Result<Response, ErrorRecord> {
    let record = txn_record(&failure.error);
    if !matches!(
        failure.error,
        TxnError::Recovery(_) | TxnError::Conflict { .. }
    ) {
        return Err(record);
    }
    let rows = args
        .actions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let (state, digest) = match &failure.error {
                TxnError::Recovery(_) => (MutationState::RecoveryRequired, None),
                TxnError::Conflict { index, observed } if *index == i => {
                    (MutationState::Conflict, *observed)
                }
                _ if i < failure.rolled_back => (MutationState::RolledBack, None),
                _ => (MutationState::Skipped, None),
            };
            row(answer, a, state, digest)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(failed_with(answer.request.id, record, Data::Fs(rows)))
}

//! `>` materialize: write a retained value to a new workspace file through the fs journal.

use super::reply::{self, Planned};
use crate::answer::Answer;
use crate::protocol::{
    Content, Data, Digest, ErrorCode, ErrorRecord, Flags, MaterializeResult, MutationState,
    Response,
};
use crate::txn::preflight::{self, Target, check_target, content_bytes, failed_with, txn_record};
use crate::txn::{Action, Entry, Kind, Stop, Txn, TxnError};

/// Runs `>` `[@source, path]`: unknown reference (700) first, then the path (100/300), the
/// 128 MiB ceiling (601), locks and recovery, resolution (201/202); an existing file is a
/// conflict reporting the value's size and the file's digest. Every answer with data names
/// the source.
pub(super) fn run(
    answer: &mut Answer<'_>,
    source: u64,
    path: &str,
) -> Result<Response, ErrorRecord> {
    if answer.store().get(source).is_none() {
        return Err(ErrorRecord::typical(ErrorCode::UnknownReference));
    }
    check_target(&answer.session.workspace, path)?;
    let bytes = content_bytes(answer.session, &Content::Ref(source))?;
    let digest = Digest::of(&bytes);
    let size = bytes.len() as u64;
    let stop = Stop::new(answer.deadline, answer.cancel.clone());
    let txn = match Txn::begin(&answer.session.workspace, stop) {
        Ok(txn) => txn,
        Err(e) => return failed(answer, source, path, &e, (size, digest)),
    };
    let ws = txn.workspace().clone();
    match preflight::inspect(&ws, path).map_err(|f| f.record())? {
        Target::Missing => {}
        Target::File(_) => {
            let observed = preflight::hash(&ws, path, txn.stop()).map_err(|f| f.record())?;
            let error = TxnError::Conflict {
                index: 0,
                observed: Some(observed.0),
            };
            return failed(answer, source, path, &error, (size, observed.0));
        }
    }
    let action = Action {
        entry: Entry {
            kind: Kind::Create,
            path: path.to_owned(),
            destination: None,
            digest,
            size,
            preimage: None,
        },
        stage: Some(bytes),
        preimage: None,
        mode: None,
    };
    let mut paths = Vec::new();
    let planned = Planned {
        data: Data::Materialize(MaterializeResult {
            path: reply::local_id(&mut paths, path),
            state: MutationState::Committed,
            size,
            digest,
        }),
        empty: Data::Materialize(MaterializeResult {
            path: 1,
            state: MutationState::Committed,
            size,
            digest,
        }),
        paths,
        // A record cannot be cut: either it fits or nothing is written.
        kind: None,
        flags: Flags::NONE.with(Flags::RETAINED),
        reference: Some(source),
    };
    reply::commit(answer, txn, vec![action], planned, |answer, failure| {
        // The size cell is the value's, the digest the existing file's (as the reference
        // reports a conflict).
        let seen = match &failure.error {
            TxnError::Conflict {
                observed: Some(d), ..
            } => (size, *d),
            _ => (size, digest),
        };
        failed(answer, source, path, &failure.error, seen)
    })
}

fn result(
    answer: &mut Answer<'_>,
    path: &str,
    state: MutationState,
    (size, digest): (u64, Digest),
) -> Result<Data, ErrorRecord> {
    Ok(Data::Materialize(MaterializeResult {
        path: answer.path_id(path)?,
        state,
        size,
        digest,
    }))
}

/// `r` names the source, as for every formula but release.
fn named(response: &mut Response, source: u64) {
    response.reference = Some(source);
    response.flags = response.flags.with(Flags::RETAINED);
}

/// 501 (with the existing file's size and digest) and 502 carry data; the rest do not.
fn failed(
    answer: &mut Answer<'_>,
    source: u64,
    path: &str,
    error: &TxnError,
    seen: (u64, Digest),
) -> Result<Response, ErrorRecord> {
    let record = txn_record(error);
    let state = match error {
        TxnError::Recovery(_) => MutationState::RecoveryRequired,
        TxnError::Conflict {
            observed: Some(_), ..
        } => MutationState::Conflict,
        _ => return Err(record),
    };
    let data = result(answer, path, state, seen)?;
    let mut response = failed_with(answer.request.id, record, data);
    named(&mut response, source);
    Ok(response)
}

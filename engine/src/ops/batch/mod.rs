//! `b` batch (docs/contract/ash-protocol.md §3.4): a dependency graph of leaf operations run under budget shares,
//! ready nodes concurrently; every executed child response is retained in node order.

mod schedule;

use crate::answer::pathdict::PathDictionary;
use crate::answer::{Answer, Charge, Executed, resolve};
use crate::compute::host_parallelism;
use crate::ops::perform;
use crate::protocol::{
    BatchArgs, BatchRow, Budget, Data, ErrorCode, ErrorRecord, Flags, NodeState, Request, Response,
    Status,
};
use schedule::{Outcome, Plan};
use std::collections::HashMap;

/// One executed child: its final status and canonical encoding.
struct Child {
    status: Status,
    encoded: String,
}

/// Runs the batch in `answer`.
pub(crate) fn run(answer: &mut Answer<'_>, args: &BatchArgs) -> Result<Response, ErrorRecord> {
    let id = answer.request.id;
    let budget = answer.request.budget;
    let n = args.nodes.len() as u64;
    let share = Budget {
        tok: budget.tok / n,
        rec: budget.rec / n,
        ms: budget.ms,
    };
    let output = answer.output / n;
    if share.tok == 0 || share.rec == 0 || output == 0 {
        return Err(ErrorRecord::typical(ErrorCode::OutputBudget));
    }
    // Before any node runs (nodes may change the workspace), the batch answer must be sure
    // to go out: its worst case fits L and is taken from the output ceiling now.
    answer.reserve(worst_case_len(id, args))?;
    let index: HashMap<u64, usize> = args
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| (node.id, i))
        .collect();
    let deps: Vec<Vec<usize>> = args
        .nodes
        .iter()
        .map(|node| {
            node.deps
                .iter()
                .filter_map(|d| index.get(d).copied())
                .collect()
        })
        .collect();
    let session = answer.session;
    let (cancel, deadline) = (&answer.cancel, answer.deadline);
    let sandbox = answer.sandbox;
    let children = Plan::new(&deps).run(
        node_parallelism(),
        |i| {
            let node = &args.nodes[i];
            let child = Request {
                id: node.id,
                op: node.op.clone(),
                budget: share,
                permit: None,
            };
            let executed = if cancel.is_cancelled() {
                // Not started before the batch was cancelled: answered like a queued request.
                Executed::ready(Response::error(
                    node.id,
                    ErrorRecord::typical(ErrorCode::Cancelled),
                ))
            } else {
                perform(
                    session,
                    &child,
                    cancel.clone(),
                    deadline,
                    output,
                    // No tag: a batch may hold several transactions; the sandbox covers
                    // every command in it.
                    (&crate::session::Attachments::default(), sandbox),
                    Charge::Share,
                )
            };
            seal_local(executed)
        },
        |c| {
            if c.status == Status::Success {
                Outcome::Ok
            } else {
                Outcome::NotOk
            }
        },
        |i| seal_local(Executed::ready(internal(args.nodes[i].id))),
    );
    Ok(assemble(answer, args, children))
}

/// Retains the executed children in node order and builds the batch answer.
fn assemble(answer: &mut Answer<'_>, args: &BatchArgs, children: Vec<Option<Child>>) -> Response {
    let mut rows = Vec::with_capacity(children.len());
    let mut failed = false;
    let mut store_failure = None;
    for (node, child) in args.nodes.iter().zip(children) {
        let row = match child {
            None => BatchRow {
                id: node.id,
                op: node.op.kind(),
                state: NodeState::Skipped,
                status: None,
                reference: None,
            },
            Some(child) => {
                let reference = match answer.retain(child.encoded.into_bytes()) {
                    Ok(alias) => Some(alias),
                    Err(e) => {
                        store_failure.get_or_insert(e);
                        None
                    }
                };
                BatchRow {
                    id: node.id,
                    op: node.op.kind(),
                    state: match child.status {
                        Status::Success => NodeState::Ok,
                        Status::Cancelled => NodeState::Cancelled,
                        _ => NodeState::Failed,
                    },
                    status: Some(child.status),
                    reference,
                }
            }
        };
        failed |= row.state != NodeState::Ok;
        rows.push(row);
    }
    let id = answer.request.id;
    let error = match store_failure {
        // A child answer that could not be kept is evidence lost: report the quota, but keep
        // the rows, because nodes may have changed the workspace.
        Some(e) => e,
        None if failed => ErrorRecord::typical(ErrorCode::BatchFailed),
        None => return Response::success(id, Data::Batch(rows)),
    };
    let data = Data::Batch(rows);
    let mut flags = Flags::PARTIAL;
    if data.has_retained_reference() {
        flags |= Flags::RETAINED;
    }
    Response {
        id,
        status: error.status(),
        paths: Vec::new(),
        data: Some(data),
        error: Some(error),
        flags,
        reference: None,
    }
}

/// Seals a child against a fresh node-local path dictionary (ids from 1) and encodes it with
/// `i` = node id.
fn seal_local(executed: Executed) -> Child {
    let response = match resolve(&PathDictionary::new(), executed) {
        Ok((response, encoded, _)) => {
            return Child {
                status: response.status,
                encoded,
            };
        }
        Err(response) => response,
    };
    Child {
        status: response.status,
        encoded: response.encode(),
    }
}

fn internal(id: u64) -> Response {
    Response::error(id, ErrorRecord::internal_execute())
}

/// The longest answer this batch can produce: every row cancelled/failed with a two-digit
/// child status and a 20-digit reference, plus the 800 error record and `z:24`.
fn worst_case_len(id: u64, args: &BatchArgs) -> usize {
    let rows = args
        .nodes
        .iter()
        .map(|node| BatchRow {
            id: node.id,
            op: node.op.kind(),
            state: NodeState::Cancelled,
            status: Some(Status::Internal),
            reference: Some(u64::MAX),
        })
        .collect();
    let error = ErrorRecord::typical(ErrorCode::BatchFailed);
    Response {
        id,
        status: error.status(),
        paths: Vec::new(),
        data: Some(Data::Batch(rows)),
        error: Some(error),
        flags: Flags::PARTIAL | Flags::RETAINED,
        reference: None,
    }
    .encode()
    .len()
}

/// Nodes running at once: enough to overlap I/O-bound reads with exec nodes, which queue on
/// the process governor anyway.
fn node_parallelism() -> usize {
    (2 * host_parallelism()).clamp(2, 16)
}

//! How a mutation (`p`, `f`, `>`) answers once it has committed, decided before the first byte
//! changes. Every check that could refuse the answer runs first (the presentation limit, the
//! session's output ceiling, the store quota for the evidence), so a change that was applied is
//! never answered as a failure: either the full answer fits, or a compact one does (no rows,
//! `z:11`, `r` naming the complete result retained as literal-path evidence), or the request is
//! refused with `600` and nothing changes. Once planned, the answer is sent as a success
//! whatever the seal finds: with its final path ids it may come out a few bytes longer than
//! measured (ids of a session that knows many paths have more digits); it is never turned
//! into a failure (docs/protocol.md).

use crate::answer::Answer;
use crate::answer::truncate::WORST_ID;
use crate::ason::{Atom, Cell, Document, Value, encode};
use crate::protocol::{Data, ErrorCode, ErrorRecord, Flags, Response};
use crate::txn::{Action, CommitFailure, Txn};

/// Plans the answer (see [`plan`]), commits `actions` and answers: the planned success, or
/// whatever `failed` makes of the transaction's failure (nothing was applied, or it was rolled
/// back).
pub(crate) fn commit(
    answer: &mut Answer<'_>,
    txn: Txn,
    actions: Vec<Action>,
    planned: Planned,
    failed: impl FnOnce(&mut Answer<'_>, &CommitFailure) -> Result<Response, ErrorRecord>,
) -> Result<Response, ErrorRecord> {
    // Last check before anything changes: the success answer can be sent.
    let reply = plan(answer, &planned)?;
    match txn.with_tag(answer.tag.cloned()).commit(actions) {
        Ok(()) => respond(answer, reply, planned),
        Err(failure) => {
            abandon(answer, reply);
            failed(answer, &failure)
        }
    }
}

/// `Ok` when the answer [`plan`] would choose fits the presentation limit: a check without
/// side effects, for a preflight before the locks; the session's output ceiling and the store
/// quota are [`plan`]'s to check, under them.
pub(crate) fn presentable(answer: &Answer<'_>, planned: &Planned) -> Result<(), ErrorRecord> {
    let id = answer.request.id;
    let limit = answer.limit();
    if provisional_full(id, planned).encode().len() <= limit {
        return Ok(());
    }
    if planned.kind.is_some() && provisional_compact(id, planned).encode().len() <= limit {
        Ok(())
    } else {
        Err(ErrorRecord::typical(ErrorCode::OutputBudget))
    }
}

/// How the committed mutation will be answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reply {
    /// With every row.
    Full,
    /// With no rows; the complete result is the retained evidence `@evidence`.
    Compact {
        /// The alias of the evidence document.
        evidence: u64,
    },
}

/// A planned success answer: its rows, the paths they name, and the evidence kind (`k`) when
/// rows may be cut.
pub(crate) struct Planned {
    /// The rows, with local path ids: `n` is `paths[n - 1]` (see [`local_id`]).
    pub data: Data,
    /// The same kind of data without rows (the compact answer's `d`).
    pub empty: Data,
    /// The distinct logical paths the rows name, in first-use order.
    pub paths: Vec<String>,
    /// `k` of the evidence document; `None` when the answer cannot be cut (a record).
    pub kind: Option<&'static str>,
    /// Flags of the full answer.
    pub flags: Flags,
    /// Top-level `r` of the full answer.
    pub reference: Option<u64>,
}

/// Decides the reply and reserves its bytes (see the module docs). Sizes are measured with the
/// answer numbered like the first answer of a fresh session (provisional ids, every path in
/// `p`), as every operation measures, so the decision never depends on which concurrent
/// request was sealed first; a compact answer is measured with a 20-digit reference.
fn plan(answer: &mut Answer<'_>, planned: &Planned) -> Result<Reply, ErrorRecord> {
    let id = answer.request.id;
    if answer
        .reserve(provisional_full(id, planned).encode().len())
        .is_ok()
    {
        answer.applies = true;
        return Ok(Reply::Full);
    }
    let Some(kind) = planned.kind else {
        return Err(ErrorRecord::typical(ErrorCode::OutputBudget));
    };
    answer.reserve(provisional_compact(id, planned).encode().len())?;
    let evidence = answer.retain(evidence(kind, planned).into_bytes())?;
    answer.applies = true;
    Ok(Reply::Compact { evidence })
}

/// The success answer for `reply`: a full one introduces its paths (in first-use order), a
/// compact one none.
fn respond(
    answer: &mut Answer<'_>,
    reply: Reply,
    planned: Planned,
) -> Result<Response, ErrorRecord> {
    let id = answer.request.id;
    match reply {
        Reply::Full => {
            let ids = planned
                .paths
                .iter()
                .map(|p| answer.path_id(p))
                .collect::<Result<Vec<u64>, _>>()?;
            let mut data = planned.data;
            data.map_path_ids(|local| {
                usize::try_from(local)
                    .ok()
                    .and_then(|n| n.checked_sub(1))
                    .and_then(|n| ids.get(n).copied())
                    .unwrap_or(local)
            });
            let mut response = Response::success(id, data);
            response.flags = planned.flags;
            response.reference = planned.reference;
            Ok(response)
        }
        Reply::Compact { evidence } => {
            let mut response = Response::success(id, planned.empty);
            response.flags = compact_flags(planned.flags);
            response.reference = Some(evidence);
            Ok(response)
        }
    }
}

/// The transaction failed after [`plan`]: drop the evidence of a result that never happened
/// (the reservation is returned when the failure is sealed).
fn abandon(answer: &mut Answer<'_>, reply: Reply) {
    answer.applies = false;
    if let Reply::Compact { evidence } = reply {
        let _ = answer.store().release(evidence);
    }
}

fn compact_flags(base: Flags) -> Flags {
    base.with(Flags::TRUNCATED)
        .with(Flags::REDUCED)
        .with(Flags::RETAINED)
}

/// The full answer as [`plan`] measures it.
fn provisional_full(id: u64, planned: &Planned) -> Response {
    provisional(id, planned, planned.flags, planned.reference, true)
}

/// The compact answer as [`plan`] measures it: no rows, a 20-digit reference.
fn provisional_compact(id: u64, planned: &Planned) -> Response {
    provisional(
        id,
        planned,
        compact_flags(planned.flags),
        Some(WORST_ID),
        false,
    )
}

/// The answer as the first answer of a fresh session would be: local ids, every path in `p`.
fn provisional(
    id: u64,
    planned: &Planned,
    flags: Flags,
    reference: Option<u64>,
    with_rows: bool,
) -> Response {
    let data = if with_rows {
        planned.data.clone()
    } else {
        planned.empty.clone()
    };
    let mut response = Response::success(id, data);
    if with_rows {
        response.paths = (1u64..).zip(planned.paths.iter().cloned()).collect();
    }
    response.flags = flags;
    response.reference = reference;
    response
}

/// The complete result as an ASON document with literal paths (`k` + `d`).
fn evidence(kind: &str, planned: &Planned) -> String {
    let mut value = planned.data.to_value();
    if let Value::Table(table) = &mut value {
        let path_cols: Vec<usize> = table
            .cols
            .iter()
            .enumerate()
            .filter(|(_, c)| *c == "p" || *c == "q")
            .map(|(i, _)| i)
            .collect();
        for row in &mut table.rows {
            for &i in &path_cols {
                if let Some(Cell::Atom(Atom::Text(n))) = row.get(i)
                    && let Some(path) = n
                        .parse::<usize>()
                        .ok()
                        .and_then(|n| n.checked_sub(1))
                        .and_then(|n| planned.paths.get(n))
                {
                    row[i] = Cell::Atom(Atom::text(path.as_str()));
                }
            }
        }
    }
    encode(
        &Document::new()
            .with("k", Value::Scalar(Atom::text(kind)))
            .with("d", value),
    )
}

/// Path ids for a planned answer: `1` for `paths[0]` and so on, registering paths in order.
pub(crate) fn local_id(paths: &mut Vec<String>, path: &str) -> u64 {
    let index = match paths.iter().position(|p| p == path) {
        Some(i) => i,
        None => {
            paths.push(path.to_owned());
            paths.len() - 1
        }
    };
    index as u64 + 1
}

//! Formulas over retained values (docs/contract/ash-protocol.md §3.4): `/` and `#` slices, `?` find, `-` release and
//! `|` project. Every result but release names its source in the top-level `r`.

mod find;
mod project;
mod release;
mod slice;
mod stream;

use crate::answer::Answer;
use crate::protocol::{Data, ErrorRecord, Flags, Formula, Response};
use crate::store::Body;

/// Runs a formula request.
pub(crate) fn run(answer: &mut Answer<'_>, formula: &Formula) -> Result<Response, ErrorRecord> {
    match formula {
        Formula::Slice {
            source,
            offset,
            len,
        } => slice::bytes(answer, *source, *offset, *len),
        Formula::LineSlice {
            source,
            line,
            lines,
        } => slice::lines(answer, *source, *line, *lines),
        Formula::Find {
            source,
            offset,
            len,
            query,
            regex,
            case_insensitive,
        } => find::run(
            answer,
            *source,
            find::Query {
                offset: *offset,
                len: *len,
                text: query,
                regex: *regex,
                case_insensitive: *case_insensitive,
            },
        ),
        Formula::Release { source } => release::run(answer, *source),
        Formula::Project {
            source,
            table,
            offset,
            rows,
            columns,
        } => project::run(
            answer,
            *source,
            project::Window {
                table,
                offset: *offset,
                rows: *rows,
                columns,
            },
        ),
        Formula::Materialize { source, path } => super::materialize::run(answer, *source, path),
    }
}

/// Runs `work` on the value behind `source` while holding a lease on it, so it cannot be
/// released underneath; 700 when the reference is unknown or released.
fn leased<'a, T>(
    answer: &mut Answer<'a>,
    source: u64,
    work: impl FnOnce(&mut Answer<'a>, &Body) -> Result<T, ErrorRecord>,
) -> Result<T, ErrorRecord> {
    let body = answer.store().lease(source).map_err(|e| e.record())?;
    let result = work(answer, &body);
    answer.store().unlease(source);
    result
}

/// A successful formula answer: `r` is the source and `z` its retained bit plus `extra`.
fn answered(id: u64, source: u64, data: Data, extra: Flags) -> Response {
    let mut response = Response::success(id, data);
    response.flags = Flags::RETAINED.with(extra);
    response.reference = Some(source);
    response
}

/// The flags a row-prefix cut adds to a formula answer (1|2; the source stays the reference).
fn truncation(truncated: bool) -> Flags {
    if truncated {
        Flags::TRUNCATED.with(Flags::REDUCED)
    } else {
        Flags::NONE
    }
}

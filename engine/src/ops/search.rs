//! `g` search: compile, search on the compute plane, project rows `d[N]{p,l,c,t}`, retain the
//! full match list when truncated.

use super::fs_error;
use super::rows::{PathRow, project};
use crate::ason::Atom;
use crate::protocol::{Data, ErrorRecord, Flags, Response, SearchArgs, SearchRow};
use crate::search::{self, MatchFlags};
use crate::session::Answer;

/// Runs a search request.
pub(crate) fn run(answer: &mut Answer<'_>, args: &SearchArgs) -> Result<Response, ErrorRecord> {
    let matcher = search::compile(
        &args.query,
        MatchFlags {
            regex: args.regex,
            case_insensitive: args.case_insensitive,
        },
    )
    .map_err(|e| fs_error(&e))?;
    let session = answer.session;
    let out = search::search(
        &session.plane,
        &session.workspace,
        &matcher,
        &args.paths,
        args.hidden,
        Some(answer.deadline),
    )
    .map_err(|e| fs_error(&e))?;
    let mut base = Flags::NONE;
    if out.normalized {
        base = base.with(Flags::NORMALIZED);
    }
    if out.partial {
        base = base.with(Flags::PARTIAL);
    }
    let rows: Vec<PathRow> = out
        .matches
        .iter()
        .map(|m| PathRow {
            path: m.path.clone(),
            rest: vec![
                Atom::uint(m.line),
                Atom::uint(m.column),
                Atom::text(m.text.as_str()),
            ],
        })
        .collect();
    let projected = project(answer, "g", &["p", "l", "c", "t"], &rows, base)?;
    let data = out
        .matches
        .into_iter()
        .zip(projected.ids)
        .map(|(m, path)| SearchRow {
            path,
            line: m.line,
            column: m.column,
            text: m.text,
        })
        .collect();
    let mut response = Response::success(answer.request.id, Data::Search(data));
    response.flags = projected.flags;
    response.reference = projected.reference;
    Ok(response)
}

//! `l` list: walk, project rows `d[N]{p,k,z}`, retain the full listing when truncated.

use super::fs_error;
use super::rows::{PathRow, project};
use crate::answer::Answer;
use crate::ason::Atom;
use crate::files::walk::{self, Depth, LIST_MAX_ENTRIES, WalkOptions};
use crate::files::workspace::FilterOp;
use crate::protocol::{Data, EntryKind, ErrorRecord, Flags, ListArgs, ListRow, Response};

/// Runs a list request.
pub(crate) fn run(answer: &mut Answer<'_>, args: &ListArgs) -> Result<Response, ErrorRecord> {
    let depth = Depth::new(u64::from(args.depth)).ok_or(ErrorRecord::invalid_argument())?;
    let options = WalkOptions {
        depth,
        hidden: args.hidden,
        filter: args.filter,
        max_entries: LIST_MAX_ENTRIES,
        deadline: Some(answer.deadline),
        op: FilterOp::List,
        file_sizes: true,
    };
    let session = answer.session;
    let out = walk::walk(&session.plane, &session.workspace, &args.paths, options)
        .map_err(|e| fs_error(&e))?;
    let base = if out.skipped.any() {
        Flags::PARTIAL
    } else {
        Flags::NONE
    };
    let rows: Vec<PathRow> = out
        .entries
        .iter()
        .map(|e| PathRow {
            path: e.path.clone(),
            rest: vec![
                Atom::uint(u64::from(e.kind.as_u8())),
                Atom::opt_uint(size(e)),
            ],
        })
        .collect();
    let projected = project(answer, "l", &["p", "k", "z"], &rows, base)?;
    let data = out
        .entries
        .iter()
        .zip(projected.ids)
        .map(|(e, path)| ListRow {
            path,
            kind: e.kind,
            size: size(e),
        })
        .collect();
    let mut response = Response::success(answer.request.id, Data::List(data));
    response.flags = projected.flags;
    response.reference = projected.reference;
    Ok(response)
}

/// The `z` cell: a file's size, 0 for every other kind (docs/contract/ash-protocol.md §3.4 `l`).
fn size(e: &walk::WalkEntry) -> Option<u64> {
    match e.kind {
        EntryKind::File => Some(e.size),
        EntryKind::Symlink | EntryKind::Dir | EntryKind::Other => Some(0),
    }
}

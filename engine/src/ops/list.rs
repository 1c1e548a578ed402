//! `l` list: walk, project rows `d[N]{p,k,z}`, retain the full listing when truncated.

use super::fs_error;
use super::rows::{PathRow, project};
use crate::ason::Atom;
use crate::protocol::{Data, EntryKind, ErrorRecord, Flags, ListArgs, ListFilter, ListRow, Response};
use crate::session::Answer;
use crate::walk::{self, Depth, KindFilter, LIST_MAX_ENTRIES, WalkOptions};

/// Runs a list request.
pub(crate) fn run(answer: &mut Answer<'_>, args: &ListArgs) -> Result<Response, ErrorRecord> {
    let depth = Depth::new(u64::from(args.depth)).ok_or(ErrorRecord::invalid_argument())?;
    let options = WalkOptions {
        depth,
        hidden: args.hidden,
        filter: match args.filter {
            ListFilter::All => KindFilter::All,
            ListFilter::FilesOnly => KindFilter::FilesOnly,
            ListFilter::DirsOnly => KindFilter::DirsOnly,
        },
        max_entries: LIST_MAX_ENTRIES,
    };
    let session = &*answer.session;
    let out = walk::walk(&session.plane, &session.workspace, &args.paths, options).map_err(|e| fs_error(&e))?;
    let base = if out.skipped.any() { Flags::PARTIAL } else { Flags::NONE };
    let rows: Vec<PathRow> = out
        .entries
        .iter()
        .map(|e| PathRow {
            path: e.path.clone(),
            rest: vec![
                Atom::uint(u64::from(e.kind.code())),
                if e.kind == walk::EntryKind::File {
                    Atom::uint(e.size)
                } else {
                    Atom::Null
                },
            ],
        })
        .collect();
    let projected = project(answer, "l", &["p", "k", "z"], &rows, base)?;
    let data = out
        .entries
        .iter()
        .zip(projected.ids)
        .map(|(e, path)| {
            let kind = EntryKind::from_u8(e.kind.code()).ok_or(ErrorRecord::internal_execute())?;
            Ok(ListRow {
                path,
                kind,
                size: (kind == EntryKind::File).then_some(e.size),
            })
        })
        .collect::<Result<Vec<_>, ErrorRecord>>()?;
    let mut response = Response::success(answer.request.id, Data::List(data));
    response.flags = projected.flags;
    response.reference = projected.reference;
    Ok(response)
}

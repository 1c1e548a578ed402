//! `s` snapshot: capture a manifest of a scope (m 0) or the delta against a retained baseline
//! manifest (m 1). The new manifest is always retained (`r:@n`, `z` bit 3), so deltas chain.
//!
//! Check order: baseline (700 unknown, 100 not a manifest or another scope), then each root in
//! request order (path errors as for list, 100 for a root that is itself a symlink), then the
//! walk and hashing, then the row-prefix fit (600) and retention of the manifest.

use super::fs_error;
use super::rows::{PathRow, project_retaining};
use crate::answer::Answer;
use crate::ason::Atom;
use crate::files::capture::{self, Entry, MANIFEST_MAGIC, Manifest, Scope};
use crate::files::walk::Depth;
use crate::protocol::{
    Change, Data, ErrorCode, ErrorRecord, Flags, Response, SnapshotArgs, SnapshotMode, SnapshotRow,
};

/// Response columns of capture and delta rows.
const COLS: [&str; 5] = ["p", "c", "k", "z", "h"];

/// Runs a snapshot request.
pub(crate) fn run(answer: &mut Answer<'_>, args: &SnapshotArgs) -> Result<Response, ErrorRecord> {
    let depth = Depth::new(u64::from(args.depth)).ok_or(ErrorRecord::invalid_argument())?;
    let scope = Scope {
        paths: args.paths.clone(),
        depth: args.depth,
        hidden: args.hidden,
    };
    let baseline = match args.mode {
        SnapshotMode::Capture => None,
        SnapshotMode::Delta(alias) => Some(baseline(answer, alias, &scope)?),
    };
    refuse_symlinked_roots(answer, &args.paths)?;
    let session = answer.session;
    let captured = capture::capture(
        &session.plane,
        &session.workspace,
        &args.paths,
        depth,
        args.hidden,
        Some(answer.deadline),
    )
    .map_err(|e| fs_error(&e))?;
    let manifest = Manifest {
        scope,
        entries: captured.entries,
    };
    let (changes, document, rows) = session.plane.install(|| {
        let changes: Vec<(Change, &Entry)> = match &baseline {
            None => manifest
                .entries
                .iter()
                .map(|e| (Change::Captured, e))
                .collect(),
            Some(old) => capture::diff(&old.entries, &manifest.entries),
        };
        let rows: Vec<PathRow> = changes.iter().map(|(c, e)| path_row(*c, e)).collect();
        (changes, manifest.encode().into_bytes(), rows)
    });
    let base = if captured.partial {
        Flags::PARTIAL
    } else {
        Flags::NONE
    };
    let projected = project_retaining(answer, &COLS, &rows, base, document)?;
    let data = changes
        .iter()
        .zip(projected.ids)
        .map(|((change, e), path)| SnapshotRow {
            path,
            change: *change,
            kind: e.kind,
            size: e.size,
            digest: e.digest,
        })
        .collect();
    let mut response = Response::success(answer.request.id, Data::Snapshot(data));
    response.flags = projected.flags;
    response.reference = projected.reference;
    Ok(response)
}

/// The baseline manifest behind `alias`, whose scope must equal the request's.
fn baseline(answer: &Answer<'_>, alias: u64, scope: &Scope) -> Result<Manifest, ErrorRecord> {
    let body = answer
        .store()
        .get(alias)
        .ok_or(ErrorRecord::typical(ErrorCode::UnknownReference))?;
    // Reject other values (an exec log, say) without reading them whole.
    let head = body
        .read_range(0, MANIFEST_MAGIC.len() as u64)
        .map_err(|_| ErrorRecord::store_io())?;
    // A value that is not a manifest has no scope to equal the request's: 100, as a scope
    // mismatch is (and as the reference answers).
    if head != MANIFEST_MAGIC {
        return Err(ErrorRecord::invalid_argument());
    }
    let bytes = body.read_all().map_err(|_| ErrorRecord::store_io())?;
    let manifest = answer
        .session
        .plane
        .install(|| Manifest::decode(&bytes))
        .map_err(|_| ErrorRecord::invalid_argument())?;
    if manifest.scope != *scope {
        return Err(ErrorRecord::invalid_argument());
    }
    Ok(manifest)
}

/// Resolves each root in request order; a root that is itself a symlink is refused (100).
fn refuse_symlinked_roots(answer: &Answer<'_>, roots: &[String]) -> Result<(), ErrorRecord> {
    for root in roots {
        let resolved = answer
            .session
            .workspace
            .resolve(root)
            .map_err(|e| fs_error(&e))?;
        if resolved.requested_is_symlink {
            return Err(ErrorRecord::invalid_argument());
        }
    }
    Ok(())
}

/// The cells of a response row after its path.
fn path_row(change: Change, e: &Entry) -> PathRow {
    PathRow {
        path: e.path.clone(),
        rest: vec![
            Atom::uint(u64::from(change.as_u8())),
            Atom::uint(u64::from(e.kind.as_u8())),
            Atom::opt_uint(e.size),
            e.digest.map_or(Atom::Null, |d| Atom::text(d.to_hex())),
        ],
    }
}

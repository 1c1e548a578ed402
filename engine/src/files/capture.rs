//! Snapshot capture (ASH/1 §3.4 `s`): walk the roots like list, then hash every regular file
//! with BLAKE3 and every symlink's raw target bytes, on the compute plane.
//!
//! Files are streamed through the hasher in bounded buffers, one file per task, and results are
//! collected in walk order, so the entries do not depend on the worker count. An entry that
//! vanishes or cannot be read between the walk and its hashing is left out and makes the capture
//! `partial`, the same rule the walk applies to unreadable directories.

mod delta;
mod manifest;
#[cfg(test)]
mod tests;

use std::io::Read;

use rayon::prelude::*;

pub use delta::diff;
pub use manifest::{MANIFEST_MAGIC, Manifest, Scope};

use crate::compute::ComputePlane;
use crate::deadline::Deadline;
use crate::files::walk::{self, Depth, ListFilter, SNAPSHOT_MAX_ENTRIES, WalkEntry, WalkOptions};
use crate::files::workspace::{Ceiling, FilterOp, FsError, Workspace};
use crate::protocol::{Digest, EntryKind};

/// Per-file size ceiling of snapshot (601 beyond it).
pub const SNAPSHOT_MAX_FILE_BYTES: u64 = 128 * 1024 * 1024;

/// Ceiling on the bytes of all files of one snapshot (601 beyond it).
pub const SNAPSHOT_MAX_TOTAL_BYTES: u64 = 1024 * 1024 * 1024;

/// One entry of a snapshot manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Logical path (literal, as in the manifest).
    pub path: String,
    /// What the entry is.
    pub kind: EntryKind,
    /// Bytes hashed for a file, 0 for a symlink, `None` for directories and other kinds.
    pub size: Option<u64>,
    /// BLAKE3 of the file content or of the symlink's target bytes; `None` otherwise.
    pub digest: Option<Digest>,
}

/// The result of capturing a scope.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capture {
    /// Entries sorted by the bytes of `path`, without duplicates.
    pub entries: Vec<Entry>,
    /// Some entry was left out (wire `z` bit 4).
    pub partial: bool,
}

/// Walks `roots` to `depth` and hashes what it finds. Symlinked roots are not refused here
/// (that is a request rule); the walk follows them like list does.
pub fn capture<S: AsRef<str> + Sync>(
    plane: &ComputePlane,
    workspace: &Workspace,
    roots: &[S],
    depth: Depth,
    hidden: bool,
    deadline: Option<Deadline>,
) -> Result<Capture, FsError> {
    plane.install(|| {
        let options = WalkOptions {
            depth,
            hidden,
            filter: ListFilter::All,
            max_entries: SNAPSHOT_MAX_ENTRIES,
            deadline,
            op: FilterOp::Snapshot,
            file_sizes: true,
        };
        let walked = walk::walk_in_pool(workspace, roots, options)?;
        check_sizes(roots, &walked.entries)?;
        let described: Vec<Result<Option<Entry>, FsError>> = walked
            .entries
            .par_iter()
            .map(|entry| {
                if let (Some(deadline), EntryKind::File | EntryKind::Symlink) =
                    (deadline, entry.kind)
                {
                    deadline.check()?;
                }
                describe(workspace, entry)
            })
            .collect();
        let mut capture = Capture {
            entries: Vec::with_capacity(described.len()),
            partial: walked.skipped.any(),
        };
        let mut total = 0u64;
        for entry in described {
            match entry? {
                Some(entry) => {
                    if entry.kind == EntryKind::File {
                        total += entry.size.unwrap_or(0);
                    }
                    capture.entries.push(entry);
                }
                None => capture.partial = true,
            }
        }
        // Files may have grown since the walk measured them.
        check_total(roots, total)?;
        Ok(capture)
    })
}

/// Fails before any hashing when the walk already saw a file or a total over the ceilings.
fn check_sizes<S: AsRef<str>>(roots: &[S], entries: &[WalkEntry]) -> Result<(), FsError> {
    let files = entries.iter().filter(|e| e.kind == EntryKind::File);
    if let Some(big) = files.clone().find(|e| e.size > SNAPSHOT_MAX_FILE_BYTES) {
        return Err(file_too_large(&big.path, big.size));
    }
    check_total(roots, files.map(|e| e.size).fold(0u64, u64::saturating_add))
}

fn check_total<S: AsRef<str>>(roots: &[S], total: u64) -> Result<(), FsError> {
    if total <= SNAPSHOT_MAX_TOTAL_BYTES {
        return Ok(());
    }
    Err(FsError::Ceiling {
        path: roots.first().map_or(".", |r| r.as_ref()).to_owned(),
        ceiling: Ceiling::TotalBytes {
            size: total,
            limit: SNAPSHOT_MAX_TOTAL_BYTES,
        },
    })
}

fn file_too_large(path: &str, size: u64) -> FsError {
    FsError::Ceiling {
        path: path.to_owned(),
        ceiling: Ceiling::FileSize {
            size,
            limit: SNAPSHOT_MAX_FILE_BYTES,
        },
    }
}

/// The manifest entry of one walked entry; `None` when it can no longer be read as walked.
fn describe(workspace: &Workspace, entry: &WalkEntry) -> Result<Option<Entry>, FsError> {
    let (size, digest) = match entry.kind {
        EntryKind::File => match hash_file(workspace, &entry.path)? {
            Some((size, digest)) => (Some(size), Some(digest)),
            None => return Ok(None),
        },
        EntryKind::Symlink => match workspace.locate(&entry.path).and_then(|at| at.read_link()) {
            Ok(target) => (
                Some(0),
                Some(Digest::of(target.as_os_str().as_encoded_bytes())),
            ),
            Err(_) => return Ok(None),
        },
        // Like list rows: every kind but a file has size 0 (the reference's rule).
        EntryKind::Dir | EntryKind::Other => (Some(0), None),
    };
    Ok(Some(Entry {
        path: entry.path.clone(),
        kind: entry.kind,
        size,
        digest,
    }))
}

/// Streams a regular file through BLAKE3: `(bytes, digest)`, or `None` when it vanished, cannot
/// be read, or is no longer a regular file. Opened through real directories without following
/// a link and without blocking on a fifo, so an entry swapped after the walk can neither leave
/// the workspace nor hang the hasher.
fn hash_file(workspace: &Workspace, logical: &str) -> Result<Option<(u64, Digest)>, FsError> {
    let Ok(file) = workspace.locate(logical).and_then(|at| at.open_read()) else {
        return Ok(None);
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let mut hasher = blake3::Hasher::new();
    // One byte past the ceiling is enough to know the file is too large.
    if hasher
        .update_reader(file.take(SNAPSHOT_MAX_FILE_BYTES + 1))
        .is_err()
    {
        return Ok(None);
    }
    let size = hasher.count();
    if size > SNAPSHOT_MAX_FILE_BYTES {
        return Err(file_too_large(logical, size));
    }
    Ok(Some((size, Digest(*hasher.finalize().as_bytes()))))
}

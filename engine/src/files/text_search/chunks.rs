//! The chunk pipeline: files left after the walk's match budget are scanned in parallel
//! chunks, each handed on in row order while the next is scanned.

use std::collections::HashMap;
use std::ops::Range;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::{FileRows, FileScan, MAX_MATCHES_TOTAL, RowSink, Scanner, SearchSummary};
use crate::files::walk::WalkEntry;
use crate::files::workspace::{Ceiling, FsError};

/// Bytes of matches (line text and per-row overhead) one chunk may hold: the matches of two
/// chunks (one being handed on, the next being scanned) are all that is held at once, whatever
/// the tree holds. A file whose matches would take its chunk past this is left for a later
/// pass, unless it is the chunk's first (one file's matches are bounded by its size ceiling).
#[cfg(not(test))]
pub(super) const CHUNK_MATCH_BYTES: usize = 8 << 20;
/// Small in unit tests, so that files are deferred and scanned again in their trees.
#[cfg(test)]
pub(super) const CHUNK_MATCH_BYTES: usize = 2 << 10;
/// Bytes of matches one file may hold: half a chunk's, so that with their encoding (about as
/// large again for long lines) a chunk's first file holds no more than a chunk may. A file with
/// more is only counted when scanned, and handed on a part at a time (`stream.rs`).
#[cfg(not(test))]
pub(super) const FILE_MATCH_BYTES: usize = CHUNK_MATCH_BYTES / 2;
/// Larger than a chunk's budget in unit tests, so that files are deferred as well as streamed.
#[cfg(test)]
pub(super) const FILE_MATCH_BYTES: usize = 8 << 10;
/// Files per chunk, at most.
#[cfg(not(test))]
pub(super) const CHUNK_FILES: usize = 1024;
/// Small in unit tests, so their trees span many chunks and the overlap of handing on one
/// chunk while scanning the next is what the worker-count invariance test sees.
#[cfg(test)]
pub(super) const CHUNK_FILES: usize = 16;
/// Files of the first and the last chunk: chunks grow from this to [`CHUNK_FILES`] and shrink
/// back towards the end, so handing on starts early and what is left to hand on once the
/// last chunk is scanned is small.
const CHUNK_FILES_LEAST: usize = CHUNK_FILES / 8;

/// The chunks of `files` walked files: each about as large as the files before it and half
/// of those after it, within [`CHUNK_FILES_LEAST`] and [`CHUNK_FILES`].
pub(super) fn chunk_ranges(files: usize) -> Vec<Range<usize>> {
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < files {
        let size = start
            .min((files - start) / 2)
            .clamp(CHUNK_FILES_LEAST, CHUNK_FILES);
        let end = files.min(start + size);
        chunks.push(start..end);
        start = end;
    }
    chunks
}

/// What handing on a chunk needs besides the chunk: the walked files and the scanner that
/// scans deferred files again and streams the files with too many matches to hold.
pub(super) struct Handing<'h> {
    pub(super) scanner: &'h Scanner<'h>,
    pub(super) entries: &'h [WalkEntry],
}

/// Hands on the rows of the scanned files `range`, scanning again from the first file that
/// was deferred until every file of the range is handed on.
pub(super) fn hand_range(
    handing: &Handing<'_>,
    mut range: Range<usize>,
    mut scans: Vec<Result<FileScan, FsError>>,
    summary: &mut SearchSummary,
    rows: &mut RowSink<'_>,
) -> Result<(), FsError> {
    loop {
        match hand_on(
            handing,
            &handing.entries[range.clone()],
            scans,
            summary,
            rows,
        )? {
            None => return Ok(()),
            Some(deferred) => {
                // The chunk's first file is never deferred, so each pass makes progress.
                range.start += deferred;
                scans = handing
                    .scanner
                    .scan_chunk(&handing.entries[range.clone()], Vec::new());
            }
        }
    }
}

/// Counts `count` more matches, found in `path`: an error past the total match ceiling.
pub(super) fn count_matches(
    summary: &mut SearchSummary,
    count: usize,
    path: &str,
) -> Result<(), FsError> {
    if summary.total + count > MAX_MATCHES_TOTAL {
        return Err(past_total(path));
    }
    summary.total += count;
    Ok(())
}

/// The total match ceiling, reached in `path`.
fn past_total(path: &str) -> FsError {
    FsError::Ceiling {
        path: path.to_owned(),
        ceiling: Ceiling::TotalMatches {
            limit: MAX_MATCHES_TOTAL,
        },
    }
}

/// Hands one scanned chunk's rows to `rows`, in row order: entries are sorted by path and each
/// file's matches by line. Stops at the first deferred file and returns its index in `chunk`.
fn hand_on(
    handing: &Handing<'_>,
    chunk: &[WalkEntry],
    scans: Vec<Result<FileScan, FsError>>,
    summary: &mut SearchSummary,
    rows: &mut RowSink<'_>,
) -> Result<Option<usize>, FsError> {
    for (index, (entry, scanned)) in chunk.iter().zip(scans).enumerate() {
        match scanned? {
            FileScan::Skipped => summary.partial = true,
            FileScan::Deferred => return Ok(Some(index)),
            FileScan::Streamed { count, crlf } => {
                summary.normalized |= crlf;
                // The ceiling is checked against the count, as for a file scanned whole,
                // before any of its rows is handed on.
                if summary.total + count > MAX_MATCHES_TOTAL {
                    return Err(past_total(&entry.path));
                }
                handing.scanner.stream_file(entry, summary, rows)?;
            }
            FileScan::Scanned {
                matches,
                crlf,
                encoded,
            } => {
                summary.normalized |= crlf;
                let count = matches.len();
                count_matches(summary, count, &entry.path)?;
                if count > 0 {
                    rows(FileRows {
                        path: &entry.path,
                        matches: &matches,
                        encoded: &encoded,
                    })?;
                }
            }
        }
    }
    Ok(None)
}

impl Scanner<'_> {
    /// Reads and scans the files of one chunk in parallel, in chunk order, except those `done`
    /// already holds (scanned during the walk; `done` may be shorter than the chunk). Each parent
    /// directory of a file left to scan is opened once for the chunk, so a file costs one `openat`
    /// in its directory rather than a lookup from the workspace root; the parent was reached
    /// through real directories only, so a directory swapped for a symlink since the walk cannot
    /// lead outside.
    pub(super) fn scan_chunk(
        &self,
        chunk: &[WalkEntry],
        mut done: Vec<Option<Box<Result<FileScan, FsError>>>>,
    ) -> Vec<Result<FileScan, FsError>> {
        done.resize_with(chunk.len(), || None);
        let mut parents: Vec<&str> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        let files: Vec<ChunkFile<'_>> = chunk
            .iter()
            .zip(done)
            .map(|(entry, done)| match done {
                Some(done) => ChunkFile::Done(*done),
                None => {
                    let (parent, name) = entry.path.rsplit_once('/').unwrap_or((".", &entry.path));
                    let at = *index.entry(parent).or_insert_with(|| {
                        parents.push(parent);
                        parents.len() - 1
                    });
                    ChunkFile::In { parent: at, name }
                }
            })
            .collect();
        let dirs: Vec<Option<Arc<OwnedFd>>> = parents
            .par_iter()
            .map(|parent| self.workspace.open_dir(parent).ok().map(Arc::new))
            .collect();
        let held = AtomicUsize::new(0);
        chunk
            .par_iter()
            .zip(files)
            .enumerate()
            .map(|(index, (entry, file))| {
                let (at, name) = match file {
                    ChunkFile::Done(done) => return done,
                    ChunkFile::In { parent, name } => (parent, name),
                };
                if let Some(deadline) = self.deadline {
                    deadline.check()?;
                }
                // Once the budget is spent every later file would be deferred: skip the read.
                if index > 0 && held.load(Ordering::Relaxed) > CHUNK_MATCH_BYTES {
                    return Ok(FileScan::Deferred);
                }
                let Some(dir) = &dirs[at] else {
                    return Ok(FileScan::Skipped);
                };
                let scanned = self.scan_in(dir, name, &entry.path)?;
                let bytes = scanned.held_bytes();
                let before = held.fetch_add(bytes, Ordering::Relaxed);
                if index > 0 && before + bytes > CHUNK_MATCH_BYTES {
                    return Ok(FileScan::Deferred);
                }
                Ok(scanned)
            })
            .collect()
    }
}

/// A file of a chunk: scanned already, or to be opened in the chunk's `parent`-th directory.
enum ChunkFile<'a> {
    Done(Result<FileScan, FsError>),
    In { parent: usize, name: &'a str },
}

//! Text search over walked files (ASH/1 §3.4 `g`).
//!
//! Roots are walked to depth 64 keeping regular files (symlinks are not followed); files are read
//! and scanned in parallel on the compute plane and the rows come back sorted by (path, line,
//! column). Files that cannot be searched — content that is not UTF-8, names that are not UTF-8,
//! files or directories that cannot be read — are skipped and make the result `partial`.

mod scan;
#[cfg(test)]
mod tests;

use std::io::Read;

use rayon::prelude::*;

pub use scan::{MatchFlags, Matcher, REGEX_SIZE_LIMIT};

use crate::compute::ComputePlane;
use crate::deadline::Deadline;
use crate::files::walk::{self, Depth, LIST_MAX_ENTRIES, ListFilter, WalkOptions};
use crate::files::workspace::{Ceiling, FilterOp, FsError, Workspace};

/// Per-file size ceiling of search (601 beyond it).
pub const SEARCH_MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Per-file match ceiling.
pub const MAX_MATCHES_PER_FILE: usize = 100_000;

/// Total match ceiling.
pub const MAX_MATCHES_TOTAL: usize = 1_000_000;

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchMatch {
    /// Logical path of the file.
    pub path: String,
    /// 1-based line number.
    pub line: u64,
    /// 1-based byte column of the first match in the line.
    pub column: u64,
    /// The whole line, without its LF or CRLF.
    pub text: String,
}

/// The result of a search.
#[cfg(test)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchOutput {
    /// Matches sorted by (path bytes, line, column).
    pub matches: Vec<SearchMatch>,
    /// Some scanned file had CRLF line ends (wire `z` bit 2), even if it had no match.
    pub normalized: bool,
    /// Some file or directory was skipped (wire `z` bit 4).
    pub partial: bool,
}

/// Compiles a query; an invalid pattern is [`FsError::InvalidRegex`] with the regex error text.
pub fn compile(query: &str, flags: MatchFlags) -> Result<Matcher, FsError> {
    Matcher::new(query, flags).map_err(|err| FsError::InvalidRegex {
        message: err.to_string(),
    })
}

/// Searches all regular files under `roots` (hidden ones only if `hidden`), collecting every
/// match (see [`search_into`] for a bounded-memory consumer).
#[cfg(test)]
pub fn search<S: AsRef<str> + Sync>(
    plane: &ComputePlane,
    workspace: &Workspace,
    matcher: &Matcher,
    roots: &[S],
    hidden: bool,
    deadline: Option<Deadline>,
) -> Result<SearchOutput, FsError> {
    let mut matches = Vec::new();
    let summary = search_into(
        plane,
        workspace,
        matcher,
        roots,
        hidden,
        deadline,
        &mut |m| {
            matches.push(m);
            Ok(())
        },
    )?;
    Ok(SearchOutput {
        matches,
        normalized: summary.normalized,
        partial: summary.partial,
    })
}

/// What a search found besides its rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchSummary {
    /// Some scanned file had CRLF line ends (wire `z` bit 2), even if it had no match.
    pub normalized: bool,
    /// Some file or directory was skipped (wire `z` bit 4).
    pub partial: bool,
    /// Matches in all.
    pub total: usize,
}

/// File bytes scanned in parallel before their matches are handed on: the matches of one
/// chunk are all that is held at once, whatever the tree holds.
const CHUNK_BYTES: u64 = 8 << 20;
/// Files per chunk, for trees of many small files.
const CHUNK_FILES: usize = 1024;

/// Searches like [`search`] and hands every match to `rows` in row order (path bytes, line,
/// column), as soon as its chunk of files is scanned; `rows` decides what to keep. Files are
/// scanned in parallel chunks of about [`CHUNK_BYTES`], so memory follows the consumer, not the
/// tree.
pub fn search_into<S: AsRef<str> + Sync>(
    plane: &ComputePlane,
    workspace: &Workspace,
    matcher: &Matcher,
    roots: &[S],
    hidden: bool,
    deadline: Option<Deadline>,
    rows: &mut (dyn FnMut(SearchMatch) -> Result<(), FsError> + Send),
) -> Result<SearchSummary, FsError> {
    plane.install(|| search_in_pool(workspace, matcher, roots, hidden, deadline, rows))
}

/// What scanning one file produced.
enum FileScan {
    /// Content or the file itself could not be searched.
    Skipped,
    /// Scanned: matches and whether the file had CRLF line ends.
    Scanned {
        matches: Vec<scan::LineMatch>,
        crlf: bool,
    },
}

fn search_in_pool<S: AsRef<str> + Sync>(
    workspace: &Workspace,
    matcher: &Matcher,
    roots: &[S],
    hidden: bool,
    deadline: Option<Deadline>,
    rows: &mut (dyn FnMut(SearchMatch) -> Result<(), FsError> + Send),
) -> Result<SearchSummary, FsError> {
    let options = WalkOptions {
        depth: Depth::MAX,
        hidden,
        filter: ListFilter::FilesOnly,
        max_entries: LIST_MAX_ENTRIES,
        deadline,
        op: FilterOp::Search,
    };
    let walked = walk::walk_in_pool(workspace, roots, options)?;
    let mut summary = SearchSummary {
        partial: walked.skipped.any(),
        ..SearchSummary::default()
    };
    let mut start = 0;
    while start < walked.entries.len() {
        let mut end = start;
        let mut bytes = 0u64;
        while end < walked.entries.len()
            && end - start < CHUNK_FILES
            && (end == start || bytes + walked.entries[end].size <= CHUNK_BYTES)
        {
            bytes += walked.entries[end].size;
            end += 1;
        }
        let chunk = &walked.entries[start..end];
        let scans: Vec<Result<FileScan, FsError>> = chunk
            .par_iter()
            .map(|entry| {
                if let Some(deadline) = deadline {
                    deadline.check()?;
                }
                scan_file(workspace, matcher, &entry.path)
            })
            .collect();
        // Entries are sorted by path and each file's matches by line, so rows come out sorted.
        for (entry, scanned) in chunk.iter().zip(scans) {
            match scanned? {
                FileScan::Skipped => summary.partial = true,
                FileScan::Scanned { matches, crlf } => {
                    summary.normalized |= crlf;
                    if summary.total + matches.len() > MAX_MATCHES_TOTAL {
                        return Err(FsError::Ceiling {
                            path: entry.path.clone(),
                            ceiling: Ceiling::TotalMatches {
                                limit: MAX_MATCHES_TOTAL,
                            },
                        });
                    }
                    summary.total += matches.len();
                    for (line, column, text) in matches {
                        rows(SearchMatch {
                            path: entry.path.clone(),
                            line,
                            column,
                            text,
                        })?;
                    }
                }
            }
        }
        start = end;
    }
    Ok(summary)
}

/// Reads and scans one walked file.
fn scan_file(workspace: &Workspace, matcher: &Matcher, path: &str) -> Result<FileScan, FsError> {
    let Some(buf) = read_bounded(workspace, path)? else {
        return Ok(FileScan::Skipped);
    };
    if std::str::from_utf8(&buf).is_err() {
        return Ok(FileScan::Skipped);
    }
    let crlf = scan::has_crlf(&buf);
    let matches =
        matcher
            .scan(&buf, crlf, MAX_MATCHES_PER_FILE)
            .map_err(|scan::TooManyMatches| FsError::Ceiling {
                path: path.to_owned(),
                ceiling: Ceiling::FileMatches {
                    limit: MAX_MATCHES_PER_FILE,
                },
            })?;
    Ok(FileScan::Scanned { matches, crlf })
}

/// The file's bytes, `None` if it vanished or cannot be read, or a ceiling error if too large.
fn read_bounded(workspace: &Workspace, path: &str) -> Result<Option<Vec<u8>>, FsError> {
    let too_large = |size: u64| FsError::Ceiling {
        path: path.to_owned(),
        ceiling: Ceiling::FileSize {
            size,
            limit: SEARCH_MAX_FILE_BYTES,
        },
    };
    // Through real directories from the root, never following a link, so a directory swapped
    // for a symlink since the walk cannot lead outside.
    let Ok(file) = workspace.locate(path).and_then(|at| at.open_read()) else {
        return Ok(None);
    };
    // The walk saw a regular file; if it was swapped for something else since, skip it.
    // Another name of a hidden file is hidden too, when the filter says so.
    let size = match file.metadata() {
        Ok(meta)
            if meta.is_file()
                && !workspace.hides_linked(std::os::unix::fs::MetadataExt::nlink(&meta)) =>
        {
            meta.len()
        }
        _ => return Ok(None),
    };
    if size > SEARCH_MAX_FILE_BYTES {
        return Err(too_large(size));
    }
    let capacity = usize::try_from(size).unwrap_or(0).saturating_add(1);
    let mut buf = Vec::with_capacity(capacity);
    // `read_to_end` retries interruptions itself; the bound catches a file that grew.
    if file
        .take(SEARCH_MAX_FILE_BYTES + 1)
        .read_to_end(&mut buf)
        .is_err()
    {
        return Ok(None);
    }
    let read = buf.len() as u64;
    if read > SEARCH_MAX_FILE_BYTES {
        return Err(too_large(read));
    }
    Ok(Some(buf))
}

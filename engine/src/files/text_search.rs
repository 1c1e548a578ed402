//! Text search over walked files (ASH/1 §3.4 `g`).
//!
//! Roots are walked to depth 64 keeping regular files (symlinks are not followed); files are read
//! and scanned in parallel on the compute plane and the rows come back sorted by (path, line,
//! column). Files that cannot be searched — content that is not UTF-8, names that are not UTF-8,
//! files or directories that cannot be read — are skipped and make the result `partial`.

mod chunks;
mod mapped;
mod read;
mod scan;
mod stream;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::ops::Range;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use scan::{MatchFlags, Matcher, REGEX_SIZE_LIMIT};

use chunks::{CHUNK_MATCH_BYTES, FILE_MATCH_BYTES, chunk_ranges, hand_range};
use read::{Scratch, open_bounded, read_bounded, with_scratch};

use crate::compute::ComputePlane;
use crate::deadline::Deadline;
use crate::files::walk::{self, Depth, LIST_MAX_ENTRIES, ListFilter, WalkEntry, WalkOptions};
use crate::files::workspace::{At, Ceiling, FilterOp, FsError, Workspace};

/// Per-file size ceiling of search (601 beyond it).
pub const SEARCH_MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Per-file match ceiling.
pub const MAX_MATCHES_PER_FILE: usize = 100_000;

/// Total match ceiling.
pub const MAX_MATCHES_TOTAL: usize = 1_000_000;

/// One matching line, owned (what the tests collect).
#[cfg(test)]
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

/// One matching line as handed to a consumer: the path is borrowed from the walk and the text
/// from its file's matches, so a row that is only counted or streamed costs no copy of either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchRow<'a> {
    /// Logical path of the file.
    pub path: &'a str,
    /// 1-based line number.
    pub line: u64,
    /// 1-based byte column of the first match in the line.
    pub column: u64,
    /// The whole line, without its LF or CRLF.
    pub text: &'a str,
}

#[cfg(test)]
impl MatchRow<'_> {
    /// The row with its path and text owned.
    pub fn to_match(&self) -> SearchMatch {
        SearchMatch {
            path: self.path.to_owned(),
            line: self.line,
            column: self.column,
            text: self.text.to_owned(),
        }
    }
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
    let query = SearchQuery {
        matcher,
        roots,
        hidden,
        deadline,
        encoder: None,
    };
    let summary = search_into(plane, workspace, &query, &mut |file| {
        matches.extend(file.rows().map(|m| m.to_match()));
        Ok(())
    })?;
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

/// Bytes of matches the files scanned during the walk may hold. Their rows can only be handed
/// on once the walk is done, with no scanning left to do beside it; past this much, the rest
/// of the tree is scanned in chunks while the rows before it are handed on.
const WALK_MATCH_BYTES: usize = CHUNK_MATCH_BYTES / 16;

/// Searches like [`search`] and hands every match to `rows` in row order (path bytes, line,
/// column), as soon as its chunk of files is scanned; `rows` decides what to keep. Files are
/// scanned in parallel chunks of up to [`CHUNK_FILES`](chunks::CHUNK_FILES) holding at most
/// [`CHUNK_MATCH_BYTES`] of matches, and chunk k + 1 is scanned while the rows of chunk k are
/// handed on, so memory follows the consumer (at most two chunks of matches are held, besides
/// the up to [`WALK_MATCH_BYTES`] of files scanned while the walk listed them), not the tree.
/// A file with more than [`FILE_MATCH_BYTES`] of matches is handed on a part at a time, its
/// rows in several [`FileRows`] in line order, so one file never holds more than a chunk.
///
/// `encoder`, when given, runs on the scanning threads for each file with matches and may
/// write the file's rows in the consumer's encoding, which [`FileRows::encoded`] hands on;
/// when it answers [`RowsNeeded::EncodingOnly`], the rows themselves are not kept.
pub fn search_into<S: AsRef<str> + Sync>(
    plane: &ComputePlane,
    workspace: &Workspace,
    query: &SearchQuery<'_, S>,
    rows: &mut RowSink<'_>,
) -> Result<SearchSummary, FsError> {
    let scanner = Scanner {
        workspace,
        matcher: query.matcher,
        encoder: query.encoder,
        deadline: query.deadline,
    };
    plane.install(|| search_in_pool(&scanner, query.roots, query.hidden, rows))
}

/// What one search looks for, where, and how its rows are encoded: all of [`search_into`]'s
/// request but the workspace and the consumer.
pub struct SearchQuery<'q, S> {
    /// The compiled query.
    pub matcher: &'q Matcher,
    /// Logical paths walked (files or directories).
    pub roots: &'q [S],
    /// Whether hidden files and directories are searched.
    pub hidden: bool,
    /// When the search gives up.
    pub deadline: Option<Deadline>,
    /// Runs on the scanning threads for each file with matches (see [`RowEncoder`]).
    pub encoder: Option<&'q RowEncoder<'q>>,
}

/// The consumer of a search's rows, one file (or part of a file) at a time; an error stops
/// the search.
pub type RowSink<'r> = dyn for<'a> FnMut(FileRows<'a>) -> Result<(), FsError> + Send + 'r;

/// Writes a file's rows into the string it is given, on the thread that scanned the file, or
/// leaves it empty to have the consumer handle the rows one by one; says whether the consumer
/// will still need the rows themselves.
pub type RowEncoder<'e> = dyn Fn(&FileRows<'_>, &mut String) -> RowsNeeded + Sync + 'e;

/// Whether a file's rows must be kept beside what a [`RowEncoder`] wrote for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowsNeeded {
    /// The consumer may take the rows one by one: they are kept.
    Rows,
    /// The consumer takes the encoding alone, so only the rows' count and text bytes are
    /// kept; [`FileRows::rows`] is then empty. Ignored when nothing was written.
    EncodingOnly,
}

/// The matching lines of one file in line order: all of them, or the next part of them when
/// the file has more than one file may hold (the next `FileRows` has the rest).
pub struct FileRows<'a> {
    path: &'a str,
    matches: &'a scan::FileMatches,
    encoded: &'a str,
}

impl<'a> FileRows<'a> {
    /// Logical path of the file.
    pub fn path(&self) -> &'a str {
        self.path
    }

    /// Matching lines.
    pub fn len(&self) -> usize {
        self.matches.len()
    }

    /// Bytes of the lines' texts together.
    pub fn text_bytes(&self) -> usize {
        self.matches.text_bytes()
    }

    /// True when the rows were not kept, only their encoding ([`RowsNeeded::EncodingOnly`]).
    pub fn encoding_only(&self) -> bool {
        self.matches.lines_dropped()
    }

    /// The rows; none when only their encoding was kept.
    pub fn rows(&self) -> impl Iterator<Item = MatchRow<'a>> + 'a {
        let path = self.path;
        self.matches
            .iter()
            .map(move |(line, column, text)| MatchRow {
                path,
                line,
                column,
                text,
            })
    }

    /// What the search's [`RowEncoder`] wrote for these rows; empty when it wrote nothing.
    pub fn encoded(&self) -> &'a str {
        self.encoded
    }
}

/// What every file of one search is scanned with.
struct Scanner<'s> {
    workspace: &'s Workspace,
    matcher: &'s Matcher,
    encoder: Option<&'s RowEncoder<'s>>,
    deadline: Option<Deadline>,
}

/// What scanning one file produced.
enum FileScan {
    /// Content or the file itself could not be searched.
    Skipped,
    /// Scanned: matches and whether the file had CRLF line ends.
    Scanned {
        /// Without their lines when the encoder said only the encoding is needed.
        matches: scan::FileMatches,
        crlf: bool,
        /// What the encoder wrote for the matches.
        encoded: String,
    },
    /// Left for a later pass: its matches would have taken the chunk past its budget.
    Deferred,
    /// Scanned, but its matches are more than one file may hold ([`FILE_MATCH_BYTES`]): only
    /// counted, and scanned again a part at a time as it is handed on (`stream.rs`).
    Streamed {
        /// Matching lines the scan counted.
        count: usize,
        crlf: bool,
    },
}

impl FileScan {
    /// Bytes of matches (and their encoding) the result holds.
    fn held_bytes(&self) -> usize {
        match self {
            FileScan::Scanned {
                matches, encoded, ..
            } => matches.held_bytes() + encoded.capacity(),
            FileScan::Skipped | FileScan::Deferred | FileScan::Streamed { .. } => 0,
        }
    }
}

fn search_in_pool<S: AsRef<str> + Sync>(
    scanner: &Scanner<'_>,
    roots: &[S],
    hidden: bool,
    rows: &mut RowSink<'_>,
) -> Result<SearchSummary, FsError> {
    let deadline = scanner.deadline;
    let options = WalkOptions {
        depth: Depth::MAX,
        hidden,
        filter: ListFilter::FilesOnly,
        max_entries: LIST_MAX_ENTRIES,
        deadline,
        op: FilterOp::Search,
        // Each file's size comes from the open file: a walk `fstatat` would be a second
        // lookup of every name.
        file_sizes: false,
    };
    // Files are scanned as the walk lists their directories, until the matches held reach
    // [`WALK_MATCH_BYTES`]; the files left are scanned in chunks once the walk is done.
    let held = AtomicUsize::new(0);
    let visit = |dir: &Arc<OwnedFd>, name: &str, entry: &WalkEntry| {
        if held.load(Ordering::Relaxed) > WALK_MATCH_BYTES
            || deadline.is_some_and(|deadline| deadline.check().is_err())
        {
            return None;
        }
        let scanned = scanner.scan_in(dir, name, &entry.path);
        if let Ok(scanned) = &scanned {
            let bytes = scanned.held_bytes();
            if bytes > WALK_MATCH_BYTES {
                // One file past the whole budget would be held until the walk ends: it is
                // dropped, scanned again in its chunk, and the walk scans no more files (so
                // at most one such file a thread is scanned twice).
                held.fetch_add(WALK_MATCH_BYTES + 1, Ordering::Relaxed);
                return None;
            }
            held.fetch_add(bytes, Ordering::Relaxed);
        }
        // Boxed: the walk sorts its entries with these beside them.
        Some(Box::new(scanned))
    };
    let walked = walk::walk_visiting(scanner.workspace, roots, options, Some(&visit))?;
    let mut summary = SearchSummary {
        partial: walked.skipped.any(),
        ..SearchSummary::default()
    };
    let (entries, visited): (Vec<WalkEntry>, Vec<_>) = walked.entries.into_iter().unzip();
    let entries = &entries[..];
    let chunks = chunk_ranges(entries.len());
    // Taken chunk by chunk, in order, as each chunk is scanned.
    let mut visited = visited.into_iter();
    let mut scan = |range: Range<usize>| {
        let done = visited.by_ref().take(range.len()).collect();
        move || scanner.scan_chunk(&entries[range], done)
    };
    let Some(first) = chunks.first() else {
        return Ok(summary);
    };
    let mut scanned = scan(first.clone())();
    for (at, range) in chunks.iter().enumerate() {
        let next = chunks.get(at + 1).map(|next| scan(next.clone()));
        let (handed, following) = rayon::join(
            || {
                let handing = chunks::Handing { scanner, entries };
                hand_range(&handing, range.clone(), scanned, &mut summary, rows)
            },
            || next.map(|scan_next| scan_next()),
        );
        handed?;
        match following {
            Some(following) => scanned = following,
            None => break,
        }
    }
    Ok(summary)
}

impl Scanner<'_> {
    /// Scans the walked file `path`, opened as `name` in its directory `dir`, with this
    /// thread's scratch buffers.
    fn scan_in(&self, dir: &Arc<OwnedFd>, name: &str, path: &str) -> Result<FileScan, FsError> {
        let file = At::new(Arc::clone(dir), OsString::from(name));
        with_scratch(|scratch| self.scan_file(path, &file, scratch))
    }

    /// Reads and scans one walked file with this thread's `scratch`, and has the encoder
    /// write its matches. A file of [`mapped::MAP_MIN_BYTES`] or more is scanned through a
    /// memory map; if it was truncated or its matched lines changed while mapped, it is read
    /// and scanned again. What is kept of a file is copied out of the scratch exactly sized
    /// (growing each file's buffers from empty cost a dozen allocator calls a file with
    /// matches, and fresh pages), or taken whole when larger than a thread keeps anyway. A
    /// file with more than [`FILE_MATCH_BYTES`] of matches is [`FileScan::Streamed`].
    fn scan_file(&self, path: &str, file: &At, scratch: &mut Scratch) -> Result<FileScan, FsError> {
        let Some((file, size)) = open_bounded(self.workspace, path, file)? else {
            return Ok(FileScan::Skipped);
        };
        let Scratch {
            read,
            mapper,
            matches,
            encoded,
        } = scratch;
        if size >= mapped::MAP_MIN_BYTES
            && let Ok(len) = usize::try_from(size)
            && let Some(mapping) = mapper
                .get()
                .and_then(|mapper| mapper.map(file.as_fd(), len))
        {
            let scanned = self.scan_bytes(path, mapping.bytes(), matches, encoded, &mut |done| {
                mapping.release_before(done)
            });
            if !mapping.truncated() && !matches!(scanned, Ok(Scanned::Torn)) {
                return scanned.map(Scanned::into_file);
            }
        }
        let Some(len) = read_bounded(path, &file, size, read)? else {
            return Ok(FileScan::Skipped);
        };
        // A read buffer is this thread's alone: its lines cannot change while scanned.
        self.scan_bytes(path, &read[..len], matches, encoded, &mut |_| ())
            .map(Scanned::into_file)
    }

    /// Scans one file's `bytes` into the scratch `matches` and `encoded`, and returns what is
    /// kept of them; `done` is told how far the scan will not read again.
    fn scan_bytes(
        &self,
        path: &str,
        bytes: &[u8],
        matches: &mut scan::FileMatches,
        encoded: &mut String,
        done: &mut impl FnMut(usize),
    ) -> Result<Scanned, FsError> {
        let limits = scan::Limits {
            max: MAX_MATCHES_PER_FILE,
            keep_bytes: FILE_MATCH_BYTES,
        };
        let crlf = match self.matcher.scan_file(bytes, limits, matches, done) {
            Ok(scan::FileText::Text { crlf }) => crlf,
            Ok(scan::FileText::NotUtf8) => return Ok(Scanned::File(FileScan::Skipped)),
            Err(stop) => return scan_stopped(path, stop),
        };
        if matches.lines_dropped() {
            return Ok(Scanned::File(FileScan::Streamed {
                count: matches.len(),
                crlf,
            }));
        }
        let needed = self.encode(path, matches, encoded);
        let kept = if needed == RowsNeeded::EncodingOnly && !encoded.is_empty() {
            matches.count_only()
        } else {
            read::keep_matches(matches)
        };
        Ok(Scanned::File(FileScan::Scanned {
            matches: kept,
            crlf,
            encoded: read::keep_encoded(encoded),
        }))
    }

    /// Has the encoder, if any, write the rows of `matches` (of the file `path`) into
    /// `encoded`, which is cleared first.
    fn encode(&self, path: &str, matches: &scan::FileMatches, encoded: &mut String) -> RowsNeeded {
        encoded.clear();
        match self.encoder.filter(|_| matches.len() > 0) {
            Some(encode) => {
                let rows = FileRows {
                    path,
                    matches,
                    encoded: "",
                };
                encode(&rows, encoded)
            }
            None => RowsNeeded::Rows,
        }
    }
}

/// What a scan of `path` stopped by `stop` gives: a torn file, or the per-file match ceiling.
fn scan_stopped(path: &str, stop: scan::ScanStop) -> Result<Scanned, FsError> {
    match stop {
        scan::ScanStop::Torn => Ok(Scanned::Torn),
        scan::ScanStop::TooManyMatches => Err(FsError::Ceiling {
            path: path.to_owned(),
            ceiling: Ceiling::FileMatches {
                limit: MAX_MATCHES_PER_FILE,
            },
        }),
    }
}

/// What scanning one file's bytes gave.
enum Scanned {
    /// The file's scan.
    File(FileScan),
    /// The bytes changed under the scan, which left no usable lines.
    Torn,
}

impl Scanned {
    /// The file's scan; torn bytes of a file that is no longer text are a file skipped.
    fn into_file(self) -> FileScan {
        match self {
            Scanned::File(scan) => scan,
            Scanned::Torn => FileScan::Skipped,
        }
    }
}

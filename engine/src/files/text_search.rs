//! Text search over walked files (ASH/1 §3.4 `g`).
//!
//! Roots are walked to depth 64 keeping regular files (symlinks are not followed); files are read
//! and scanned in parallel on the compute plane and the rows come back sorted by (path, line,
//! column). Files that cannot be searched — content that is not UTF-8, names that are not UTF-8,
//! files or directories that cannot be read — are skipped and make the result `partial`.

mod scan;
#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Read;
use std::ops::Range;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

pub use scan::{MatchFlags, Matcher, REGEX_SIZE_LIMIT};

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
    let summary = search_into(
        plane,
        workspace,
        matcher,
        roots,
        hidden,
        deadline,
        None,
        &mut |file| {
            matches.extend(file.rows().map(|m| m.to_match()));
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

/// Bytes of matches (line text and per-row overhead) one chunk may hold: the matches of two
/// chunks (one being handed on, the next being scanned) are all that is held at once, whatever
/// the tree holds. A file whose matches would take its chunk past this is left for a later
/// pass, unless it is the chunk's first (one file's matches are bounded by its size ceiling).
#[cfg(not(test))]
const CHUNK_MATCH_BYTES: usize = 8 << 20;
/// Small in unit tests, so that files are deferred and scanned again in their trees.
#[cfg(test)]
const CHUNK_MATCH_BYTES: usize = 2 << 10;
/// Bytes of matches the files scanned during the walk may hold. Their rows can only be handed
/// on once the walk is done, with no scanning left to do beside it; past this much, the rest
/// of the tree is scanned in chunks while the rows before it are handed on.
const WALK_MATCH_BYTES: usize = CHUNK_MATCH_BYTES / 16;
/// Files per chunk, at most.
#[cfg(not(test))]
const CHUNK_FILES: usize = 1024;
/// Small in unit tests, so their trees span many chunks and the overlap of handing on one
/// chunk while scanning the next is what the worker-count invariance test sees.
#[cfg(test)]
const CHUNK_FILES: usize = 16;
/// Files of the first and the last chunk: chunks grow from this to [`CHUNK_FILES`] and shrink
/// back towards the end, so handing on starts early and what is left to hand on once the
/// last chunk is scanned is small.
const CHUNK_FILES_LEAST: usize = CHUNK_FILES / 8;

/// The chunks of `files` walked files: each about as large as the files before it and half
/// of those after it, within [`CHUNK_FILES_LEAST`] and [`CHUNK_FILES`].
fn chunk_ranges(files: usize) -> Vec<Range<usize>> {
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

/// Searches like [`search`] and hands every match to `rows` in row order (path bytes, line,
/// column), as soon as its chunk of files is scanned; `rows` decides what to keep. Files are
/// scanned in parallel chunks of up to [`CHUNK_FILES`] holding at most [`CHUNK_MATCH_BYTES`] of
/// matches, and chunk k + 1 is scanned while the rows of chunk k are handed on, so memory
/// follows the consumer (at most two chunks of matches are held, besides the up to
/// [`WALK_MATCH_BYTES`] of files scanned while the walk listed them), not the tree.
///
/// `encoder`, when given, runs on the scanning threads for each file with matches and may
/// write the file's rows in the consumer's encoding, which [`FileRows::encoded`] hands on;
/// when it answers [`RowsNeeded::EncodingOnly`], the rows themselves are not kept.
#[allow(clippy::too_many_arguments)]
pub fn search_into<S: AsRef<str> + Sync>(
    plane: &ComputePlane,
    workspace: &Workspace,
    matcher: &Matcher,
    roots: &[S],
    hidden: bool,
    deadline: Option<Deadline>,
    encoder: Option<&RowEncoder<'_>>,
    rows: &mut RowSink<'_>,
) -> Result<SearchSummary, FsError> {
    let scanner = Scanner {
        workspace,
        matcher,
        encoder,
        deadline,
    };
    plane.install(|| search_in_pool(&scanner, roots, hidden, rows))
}

/// The consumer of a search's rows, one file at a time; an error stops the search.
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

/// The matching lines of one file, in line order.
pub struct FileRows<'a> {
    path: &'a str,
    held: HeldRows<'a>,
    encoded: &'a str,
}

/// A file's matching lines as they are held until handed on.
#[derive(Clone, Copy)]
enum HeldRows<'a> {
    /// The lines themselves.
    Lines(&'a scan::FileMatches),
    /// Only how many lines there are and their text bytes.
    Counted { len: usize, text_bytes: usize },
}

impl HeldRows<'_> {
    fn len(self) -> usize {
        match self {
            HeldRows::Lines(matches) => matches.len(),
            HeldRows::Counted { len, .. } => len,
        }
    }

    fn text_bytes(self) -> usize {
        match self {
            HeldRows::Lines(matches) => matches.text_bytes(),
            HeldRows::Counted { text_bytes, .. } => text_bytes,
        }
    }
}

impl<'a> FileRows<'a> {
    /// Logical path of the file.
    pub fn path(&self) -> &'a str {
        self.path
    }

    /// Matching lines.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Bytes of the lines' texts together.
    pub fn text_bytes(&self) -> usize {
        self.held.text_bytes()
    }

    /// True when the rows were not kept, only their encoding ([`RowsNeeded::EncodingOnly`]).
    pub fn encoding_only(&self) -> bool {
        matches!(self.held, HeldRows::Counted { .. })
    }

    /// The rows; none when only their encoding was kept.
    pub fn rows(&self) -> impl Iterator<Item = MatchRow<'a>> + 'a {
        let path = self.path;
        static NONE: scan::FileMatches = scan::FileMatches::EMPTY;
        let matches = match self.held {
            HeldRows::Lines(matches) => matches,
            HeldRows::Counted { .. } => &NONE,
        };
        matches.iter().map(move |(line, column, text)| MatchRow {
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
        matches: KeptRows,
        crlf: bool,
        /// What the encoder wrote for the matches.
        encoded: String,
    },
    /// Left for a later pass: its matches would have taken the chunk past its budget.
    Deferred,
}

/// What is kept of a scanned file's matching lines (see [`HeldRows`]).
enum KeptRows {
    /// The lines, for a consumer that may take them one by one.
    Lines(scan::FileMatches),
    /// Their count and text bytes, for one that takes the encoding alone.
    Counted { len: usize, text_bytes: usize },
}

impl KeptRows {
    fn held(&self) -> HeldRows<'_> {
        match self {
            KeptRows::Lines(matches) => HeldRows::Lines(matches),
            &KeptRows::Counted { len, text_bytes } => HeldRows::Counted { len, text_bytes },
        }
    }

    fn held_bytes(&self) -> usize {
        match self {
            KeptRows::Lines(matches) => matches.held_bytes(),
            KeptRows::Counted { .. } => 0,
        }
    }
}

impl FileScan {
    /// Bytes of matches (and their encoding) the result holds.
    fn held_bytes(&self) -> usize {
        match self {
            FileScan::Scanned {
                matches, encoded, ..
            } => matches.held_bytes() + encoded.capacity(),
            FileScan::Skipped | FileScan::Deferred => 0,
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
        let file = At::new(Arc::clone(dir), OsString::from(name));
        let scanned = with_scratch(|scratch| scanner.scan_file(&entry.path, &file, scratch));
        if let Ok(scanned) = &scanned {
            held.fetch_add(scanned.held_bytes(), Ordering::Relaxed);
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
    let rescan = |range: Range<usize>| scanner.scan_chunk(&entries[range], Vec::new());
    let Some(first) = chunks.first() else {
        return Ok(summary);
    };
    let mut scanned = scan(first.clone())();
    for (at, range) in chunks.iter().enumerate() {
        let next = chunks.get(at + 1).map(|next| scan(next.clone()));
        let (handed, following) = rayon::join(
            || hand_range(entries, range.clone(), scanned, &rescan, &mut summary, rows),
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

/// Hands on the rows of the scanned files `range`, scanning again from the first file that
/// was deferred until every file of the range is handed on.
fn hand_range(
    entries: &[WalkEntry],
    mut range: Range<usize>,
    mut scans: Vec<Result<FileScan, FsError>>,
    rescan: &(dyn Fn(Range<usize>) -> Vec<Result<FileScan, FsError>> + Sync),
    summary: &mut SearchSummary,
    rows: &mut RowSink<'_>,
) -> Result<(), FsError> {
    loop {
        match hand_on(&entries[range.clone()], scans, summary, rows)? {
            None => return Ok(()),
            Some(deferred) => {
                // The chunk's first file is never deferred, so each pass makes progress.
                range.start += deferred;
                scans = rescan(range.clone());
            }
        }
    }
}

/// Hands one scanned chunk's rows to `rows`, in row order: entries are sorted by path and each
/// file's matches by line. Stops at the first deferred file and returns its index in `chunk`.
fn hand_on(
    chunk: &[WalkEntry],
    scans: Vec<Result<FileScan, FsError>>,
    summary: &mut SearchSummary,
    rows: &mut RowSink<'_>,
) -> Result<Option<usize>, FsError> {
    for (index, (entry, scanned)) in chunk.iter().zip(scans).enumerate() {
        match scanned? {
            FileScan::Skipped => summary.partial = true,
            FileScan::Deferred => return Ok(Some(index)),
            FileScan::Scanned {
                matches,
                crlf,
                encoded,
            } => {
                summary.normalized |= crlf;
                let held = matches.held();
                let count = held.len();
                if summary.total + count > MAX_MATCHES_TOTAL {
                    return Err(FsError::Ceiling {
                        path: entry.path.clone(),
                        ceiling: Ceiling::TotalMatches {
                            limit: MAX_MATCHES_TOTAL,
                        },
                    });
                }
                summary.total += count;
                if count > 0 {
                    rows(FileRows {
                        path: &entry.path,
                        held,
                        encoded: &encoded,
                    })?;
                }
            }
        }
    }
    Ok(None)
}

/// Reads and scans the files of one chunk in parallel, in chunk order, except those `done`
/// already holds (scanned during the walk; `done` may be shorter than the chunk). Each parent
/// directory of a file left to scan is opened once for the chunk, so a file costs one `openat`
/// in its directory rather than a lookup from the workspace root; the parent was reached
/// through real directories only, so a directory swapped for a symlink since the walk cannot
/// lead outside.
impl Scanner<'_> {
    fn scan_chunk(
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
                let file = At::new(Arc::clone(dir), OsString::from(name));
                let scanned = with_scratch(|scratch| self.scan_file(&entry.path, &file, scratch))?;
                let bytes = scanned.held_bytes();
                let before = held.fetch_add(bytes, Ordering::Relaxed);
                if index > 0 && before + bytes > CHUNK_MATCH_BYTES {
                    return Ok(FileScan::Deferred);
                }
                Ok(scanned)
            })
            .collect()
    }

    /// Reads and scans one walked file with this thread's `scratch`, and has the encoder
    /// write its matches. What is kept of a file is copied out of the scratch exactly sized:
    /// growing each file's buffers from empty cost a dozen allocator calls a file with matches
    /// and fresh pages for what the allocator's arenas had not yet handed out.
    fn scan_file(&self, path: &str, file: &At, scratch: &mut Scratch) -> Result<FileScan, FsError> {
        let Scratch {
            read,
            matches,
            encoded,
        } = scratch;
        let Some(len) = read_bounded(self.workspace, path, file, read)? else {
            return Ok(FileScan::Skipped);
        };
        let buf = &read[..len];
        let Ok(text) = simdutf8::basic::from_utf8(buf) else {
            return Ok(FileScan::Skipped);
        };
        let crlf = scan::has_crlf(buf);
        self.matcher
            .scan_into(text, crlf, MAX_MATCHES_PER_FILE, matches)
            .map_err(|scan::TooManyMatches| FsError::Ceiling {
                path: path.to_owned(),
                ceiling: Ceiling::FileMatches {
                    limit: MAX_MATCHES_PER_FILE,
                },
            })?;
        encoded.clear();
        let mut needed = RowsNeeded::Rows;
        if let Some(encode) = self.encoder.filter(|_| matches.len() > 0) {
            let rows = FileRows {
                path,
                held: HeldRows::Lines(matches),
                encoded: "",
            };
            needed = encode(&rows, encoded);
        }
        let kept = if needed == RowsNeeded::EncodingOnly && !encoded.is_empty() {
            KeptRows::Counted {
                len: matches.len(),
                text_bytes: matches.text_bytes(),
            }
        } else {
            KeptRows::Lines(matches.clone())
        };
        Ok(FileScan::Scanned {
            matches: kept,
            crlf,
            encoded: encoded.as_str().to_owned(),
        })
    }
}

/// A file of a chunk: scanned already, or to be opened in the chunk's `parent`-th directory.
enum ChunkFile<'a> {
    Done(Result<FileScan, FsError>),
    In { parent: usize, name: &'a str },
}

/// A read buffer kept by each compute thread up to this size; a larger one (a big file) is
/// given back after use, so a long-lived server holds at most this much per thread. The same
/// bound applies to the thread's match and encoding buffers.
const KEPT_READ_BUFFER: usize = 1 << 20;

/// What each compute thread reuses from file to file: files of one thread reuse its pages
/// instead of allocating and faulting in fresh ones per file.
#[derive(Default)]
struct Scratch {
    /// The file's bytes.
    read: Vec<u8>,
    /// Its matches, before the exactly sized copy that is kept.
    matches: scan::FileMatches,
    /// The encoder's output, before the exactly sized copy that is kept.
    encoded: String,
}

impl Scratch {
    /// Gives back whatever a big file made grow past [`KEPT_READ_BUFFER`].
    fn trim(&mut self) {
        if self.read.len() > KEPT_READ_BUFFER {
            self.read = Vec::new();
        }
        if self.matches.held_bytes() > KEPT_READ_BUFFER {
            self.matches = scan::FileMatches::default();
        }
        if self.encoded.capacity() > KEPT_READ_BUFFER {
            self.encoded = String::new();
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Runs `f` with this thread's [`Scratch`], or a fresh one if `f` runs inside another `f` on
/// the same thread (a scan that waits in the pool may pick up another file).
fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => {
            let out = f(&mut scratch);
            scratch.trim();
            out
        }
        Err(_) => f(&mut Scratch::default()),
    })
}

/// Reads `file` to its end into `buf` from the start, expecting `size` bytes, and returns how
/// many it read (`None` on a read error); stops once past [`SEARCH_MAX_FILE_BYTES`].
///
/// `read_to_end` caps its first reads at 8 KiB and doubles, so a 32 KiB file took four calls;
/// up to [`KEPT_READ_BUFFER`] this asks for the whole expected size and one byte more at once.
/// A regular file reads short only at its end, so once `size` bytes are in, a short read ends
/// the file and a file that did not change takes a single read. Below `size` (or for a file
/// whose size is 0, as `/proc` reports) only a read of 0 bytes ends it.
fn read_all(mut file: &std::fs::File, size: u64, buf: &mut Vec<u8>) -> Option<usize> {
    let cap = usize::try_from(SEARCH_MAX_FILE_BYTES + 1).unwrap_or(usize::MAX);
    let want = usize::try_from(size)
        .unwrap_or(cap)
        .saturating_add(1)
        .min(cap);
    if want > KEPT_READ_BUFFER {
        // A buffer this large is not kept, so zeroing it first (which the scratch reuse below
        // needs) would touch every byte twice; `read_to_end` fills spare capacity instead.
        buf.clear();
        buf.reserve(want);
        return file.take(SEARCH_MAX_FILE_BYTES + 1).read_to_end(buf).ok();
    }
    // Bytes beyond `filled` are scratch, kept between files so they are not zeroed again.
    if buf.len() < want {
        buf.resize(want, 0);
    }
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            if filled >= cap {
                return Some(filled);
            }
            // The file grew since its size was read.
            let grown = buf.len().saturating_mul(2).clamp(want, cap);
            buf.resize(grown, 0);
        }
        let asked = buf.len() - filled;
        match file.read(&mut buf[filled..]) {
            Ok(0) => return Some(filled),
            Ok(n) => {
                filled += n;
                if n < asked && size > 0 && filled as u64 >= size {
                    return Some(filled);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

/// Reads the file into the start of `buf` and returns its length: `None` if it vanished or
/// cannot be read, a ceiling error if too large.
fn read_bounded(
    workspace: &Workspace,
    path: &str,
    at: &At,
    buf: &mut Vec<u8>,
) -> Result<Option<usize>, FsError> {
    let too_large = |size: u64| FsError::Ceiling {
        path: path.to_owned(),
        ceiling: Ceiling::FileSize {
            size,
            limit: SEARCH_MAX_FILE_BYTES,
        },
    };
    // The final name is opened without following a link.
    let Ok(file) = at.open_read() else {
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
    let Some(filled) = read_all(&file, size, buf) else {
        return Ok(None);
    };
    if filled as u64 > SEARCH_MAX_FILE_BYTES {
        return Err(too_large(filled as u64));
    }
    Ok(Some(filled))
}

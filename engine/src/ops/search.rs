//! `g` search: compile, search on the compute plane, project rows `d[N]{p,l,c,t}`, retain the
//! full match list when truncated.
//!
//! Memory follows the request, not the tree: matches arrive in row order, and only the rows the
//! answer could possibly show are kept (at most `rec`, and no more than L bytes of them at their
//! least encoded size). Once a row arrives that cannot be shown, the result is known to be cut,
//! and from then on every row is streamed into the retained evidence: in memory up to 4 MiB (the
//! resident size of an exec stream's capture), past that in a session spool file.
//!
//! Rows are encoded where they are scanned once the rows seen so far cannot all be shown; a
//! file scanned after the evidence started keeps its encoding alone, not its lines as well.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::fs_error;
use super::rows::{TableRow, least_row_bytes, project, project_prefix};
use crate::answer::{Answer, Shared};
use crate::ason::{Atom, Document, Value, encode, encode_text};
use crate::exec::RESIDENT_BYTES;
use crate::exec::spool::PartialSpool;
use crate::files::text_search::{self, FileRows, MatchFlags, MatchRow, RowsNeeded, SearchQuery};
use crate::files::workspace::FsError;
use crate::protocol::{
    Data, ErrorRecord, Flags, Response, SearchArgs, SearchRow, encode_search_rest,
};
use crate::store::{Body, Pending, Reservation, Resident};

/// Columns of the rows and of the evidence table.
const COLS: [&str; 4] = ["p", "l", "c", "t"];

/// Runs a search request.
pub(crate) fn run(answer: &mut Answer<'_>, args: &SearchArgs) -> Result<Response, ErrorRecord> {
    let matcher = text_search::compile(
        &args.query,
        MatchFlags {
            regex: args.regex,
            case_insensitive: args.case_insensitive,
        },
    )
    .map_err(|e| fs_error(&e))?;
    let session = answer.session;
    let (rec, limit) = (answer.rec(), answer.limit());
    let spooling = AtomicBool::new(false);
    let mut rows = Collector::new(session, rec, limit, &spooling);
    let seen = Seen::default();
    let encoder = |file: &FileRows<'_>, out: &mut String| {
        // Set only by the collector once it streams every row into the evidence. A file
        // scanned after that is one the collector has not been handed yet, so it will take
        // this file's encoding alone.
        if spooling.load(Ordering::Relaxed) {
            encode_file_rows(file, out);
            return RowsNeeded::EncodingOnly;
        }
        if seen.add(file).cut(rec, limit) {
            encode_file_rows(file, out);
        }
        RowsNeeded::Rows
    };
    let query = SearchQuery {
        matcher: &matcher,
        roots: &args.paths,
        hidden: args.hidden,
        deadline: Some(answer.deadline),
        encoder: Some(&encoder),
    };
    let searched =
        text_search::search_into(&session.plane, &session.workspace, &query, &mut |file| {
            rows.push_file(file)
        });
    if let Some(failure) = rows.failure.take() {
        return Err(failure);
    }
    let summary = searched.map_err(|e| fs_error(&e))?;
    let mut base = Flags::NONE;
    if summary.normalized {
        base = base.with(Flags::NORMALIZED);
    }
    if summary.partial {
        base = base.with(Flags::PARTIAL);
    }
    let projected = match rows.spool.take() {
        None => project(answer, "g", &COLS, &rows.kept, base)?,
        Some(spool) => project_prefix(answer, &COLS, &rows.kept, summary.total, base, |answer| {
            spool.finish(answer)
        })?,
    };
    let data = rows
        .kept
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

/// A row the answer may show: its path shared with the file's other kept rows, so a kept
/// row costs one allocation (its text), not two.
struct KeptRow {
    path: Arc<str>,
    line: u64,
    column: u64,
    text: String,
}

impl TableRow for KeptRow {
    fn path(&self) -> &str {
        &self.path
    }

    fn encode_rest(&self, out: &mut String) {
        encode_search_rest(self.line, self.column, &self.text, out);
    }

    fn rest_cells(&self) -> Vec<Atom> {
        vec![
            Atom::uint(self.line),
            Atom::uint(self.column),
            Atom::text(self.text.as_str()),
        ]
    }
}

/// Rows scanned so far, in whatever order the scanning threads finish files.
#[derive(Default)]
struct Seen {
    rows: AtomicUsize,
    least_bytes: AtomicUsize,
}

/// Rows and least answer bytes of the files [`Seen::add`] has counted so far.
struct SeenSoFar {
    rows: usize,
    least_bytes: usize,
}

impl Seen {
    /// Counts `file`'s rows and a lower bound of the bytes they would add to an answer.
    fn add(&self, file: &FileRows<'_>) -> SeenSoFar {
        // A row's least bytes grow with its cells' raw length; a line and a column are at
        // least one digit each.
        let least = file.len() * least_row_bytes(2, 3) + file.text_bytes();
        SeenSoFar {
            rows: self.rows.fetch_add(file.len(), Ordering::Relaxed) + file.len(),
            least_bytes: self.least_bytes.fetch_add(least, Ordering::Relaxed) + least,
        }
    }
}

impl SeenSoFar {
    /// True when these rows alone cannot all be shown: the answer is cut and every row goes
    /// into the evidence, so encoding a file's rows where it is scanned is never wasted.
    fn cut(&self, rec: usize, limit: usize) -> bool {
        self.rows > rec || self.least_bytes > limit
    }
}

thread_local! {
    /// The encoded path of the file a scanning thread encodes rows for, kept between files.
    static ENCODED_PATH: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Writes `file`'s rows as [`EvidenceRows::push`] writes them one by one.
fn encode_file_rows(file: &FileRows<'_>, out: &mut String) {
    ENCODED_PATH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut path) => {
            path.clear();
            encode_rows_with(file, &mut path, out);
        }
        Err(_) => encode_rows_with(file, &mut String::new(), out),
    });
}

/// [`encode_file_rows`] with `path` as the (empty) buffer for the file's encoded path.
fn encode_rows_with(file: &FileRows<'_>, path: &mut String, out: &mut String) {
    encode_text(file.path(), path);
    // Each row adds its path, its text and at most 44 bytes (two 20-digit numbers, commas,
    // LF), more only when its text needs quotes or escapes: a hint, not a bound.
    out.reserve(file.len() * (path.len() + 44) + file.text_bytes());
    for row in file.rows() {
        encode_row(path, row.line, row.column, row.text, out);
    }
}

/// One evidence row, its path already encoded: `p,l,c,t` and LF.
fn encode_row(path: &str, line: u64, column: u64, text: &str, out: &mut String) {
    out.push_str(path);
    encode_search_rest(line, column, text, out);
    out.push('\n');
}

/// Keeps the rows an answer could show and streams the rest into the evidence spool.
struct Collector<'s> {
    session: &'s Shared,
    /// Set once `spool` is: from then on, files scanned need not keep their rows.
    spooling: &'s AtomicBool,
    rec: usize,
    limit: usize,
    kept: Vec<KeptRow>,
    kept_bytes: usize,
    spool: Option<EvidenceRows<'s>>,
    failure: Option<ErrorRecord>,
}

impl<'s> Collector<'s> {
    fn new(session: &'s Shared, rec: usize, limit: usize, spooling: &'s AtomicBool) -> Self {
        Collector {
            session,
            spooling,
            rec,
            limit,
            kept: Vec::new(),
            kept_bytes: 0,
            spool: None,
            failure: None,
        }
    }

    /// Takes a file's rows: whole, as its scanning thread encoded them, once the answer is
    /// known to be cut; otherwise one by one.
    fn push_file(&mut self, file: FileRows<'_>) -> Result<(), FsError> {
        if let Some(spool) = self.spool.as_mut().filter(|_| !file.encoded().is_empty()) {
            return spool
                .push_encoded(file.encoded(), file.len())
                .map_err(|e| self.fail(e));
        }
        if file.encoding_only() {
            // Only a file scanned after the spool started can come without its rows, and it
            // comes with its encoding: rows would be lost here.
            return Err(self.fail(ErrorRecord::internal_execute()));
        }
        file.rows().try_for_each(|row| self.push(row))
    }

    fn push(&mut self, m: MatchRow<'_>) -> Result<(), FsError> {
        if self.spool.is_none() {
            let digits = |n: u64| n.checked_ilog10().map_or(1, |d| d as usize + 1);
            let least = least_row_bytes(digits(m.line) + digits(m.column) + m.text.len(), 3);
            if self.kept.len() < self.rec && self.kept_bytes + least <= self.limit {
                self.kept_bytes += least;
                let path = match self.kept.last() {
                    Some(last) if *last.path == *m.path => Arc::clone(&last.path),
                    _ => Arc::from(m.path),
                };
                self.kept.push(KeptRow {
                    path,
                    line: m.line,
                    column: m.column,
                    text: m.text.to_owned(),
                });
                return Ok(());
            }
            // This row can never be shown: the answer is cut and needs the whole result.
            let started = EvidenceRows::start(self.session).and_then(|mut spool| {
                for earlier in &self.kept {
                    spool.push(&earlier.path, earlier.line, earlier.column, &earlier.text)?;
                }
                Ok(spool)
            });
            match started {
                Ok(spool) => {
                    self.spool = Some(spool);
                    self.spooling.store(true, Ordering::Relaxed);
                }
                Err(e) => return Err(self.fail(e)),
            }
        }
        let pushed = match self.spool.as_mut() {
            Some(spool) => spool.push(m.path, m.line, m.column, m.text),
            None => Ok(()),
        };
        pushed.map_err(|e| self.fail(e))
    }

    /// Records why the evidence could not be written and stops the search.
    fn fail(&mut self, e: ErrorRecord) -> FsError {
        self.failure = Some(e);
        FsError::Io {
            path: ".".into(),
            kind: std::io::ErrorKind::Other,
            message: "the search result could not be retained".into(),
        }
    }
}

/// Bytes gathered before they are charged and kept (in memory or in the spool file).
const WRITE_BYTES: usize = 64 << 10;

/// Bytes of spooled evidence read back at a time for its digest, into one buffer.
const DIGEST_READ_BYTES: usize = 1 << 20;

/// Bytes kept before the rows for the evidence header, whose row count is known only at the
/// end: `k:g`, the `d[N]{p,l,c,t}:` line with N below [`text_search::MAX_MATCHES_TOTAL`], and
/// room to spare. The value starts where the header does; the bytes before it are not read.
const HEADER_ROOM: usize = 64;

/// Where the evidence rows kept so far are, both starting with [`HEADER_ROOM`] bytes.
enum Kept {
    Resident(Vec<u8>),
    Spooled(PartialSpool),
}

/// The evidence rows of a cut search, kept as they arrive (in memory up to
/// [`RESIDENT_BYTES`], as an exec stream is; past it the whole document moves to a spool file)
/// and charged to the store quota as they are kept.
struct EvidenceRows<'s> {
    session: &'s Shared,
    kept: Kept,
    buf: String,
    /// The path of the last row and its encoding: a file's rows share both.
    path: (String, String),
    count: usize,
    charge: Reservation,
}

impl<'s> EvidenceRows<'s> {
    fn start(session: &'s Shared) -> Result<Self, ErrorRecord> {
        let charge = session.store().meter().reserve(0).map_err(|e| e.record())?;
        Ok(EvidenceRows {
            session,
            kept: Kept::Resident(vec![b'\n'; HEADER_ROOM]),
            buf: String::with_capacity(WRITE_BYTES),
            path: (String::new(), String::new()),
            count: 0,
            charge,
        })
    }

    /// Appends one row, encoded as the encoder writes a `{p,l,c,t}` row, without building its
    /// cells.
    fn push(&mut self, path: &str, line: u64, column: u64, text: &str) -> Result<(), ErrorRecord> {
        // An encoding is never empty, so the empty cache of the first row never matches.
        if self.path.0 != path || self.path.1.is_empty() {
            self.path.0.clear();
            self.path.0.push_str(path);
            self.path.1.clear();
            encode_text(path, &mut self.path.1);
        }
        encode_row(&self.path.1, line, column, text, &mut self.buf);
        self.count += 1;
        if self.buf.len() >= WRITE_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends `count` rows already encoded as [`EvidenceRows::push`] encodes them.
    fn push_encoded(&mut self, rows: &str, count: usize) -> Result<(), ErrorRecord> {
        self.buf.push_str(rows);
        self.count += count;
        if self.buf.len() >= WRITE_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Charges the gathered rows to the store quota and keeps them: nothing is kept beyond
    /// what the quota allows, and the meter is asked once per [`WRITE_BYTES`], not once a row.
    fn flush(&mut self) -> Result<(), ErrorRecord> {
        self.charge
            .grow(self.buf.len() as u64)
            .map_err(|e| e.record())?;
        let rows = self.buf.as_bytes();
        match &mut self.kept {
            Kept::Resident(bytes) if bytes.len() + rows.len() <= RESIDENT_BYTES => {
                bytes.extend_from_slice(rows);
            }
            Kept::Resident(bytes) => {
                let root = self
                    .session
                    .spool_root()
                    .map_err(|_| ErrorRecord::store_io())?;
                let mut file = root.create_file().map_err(|_| ErrorRecord::store_io())?;
                file.write_all(bytes)
                    .and_then(|()| file.write_all(rows))
                    .map_err(|_| ErrorRecord::store_io())?;
                self.kept = Kept::Spooled(file);
            }
            Kept::Spooled(file) => file.write_all(rows).map_err(|_| ErrorRecord::store_io())?,
        }
        self.buf.clear();
        Ok(())
    }

    /// Writes the evidence document's header (`k:g` and the `d[N]` line) into the room kept
    /// before the rows and retains the document from there, returning its alias: the rows are
    /// kept once, and a spooled document is read back once for the digest.
    fn finish(mut self, answer: &mut Answer<'_>) -> Result<u64, ErrorRecord> {
        self.flush()?;
        let header = table_header(self.count);
        let start = HEADER_ROOM
            .checked_sub(header.len())
            .ok_or(ErrorRecord::internal_execute())?;
        self.charge
            .grow(header.len() as u64)
            .map_err(|e| e.record())?;
        let plane = &self.session.plane;
        let mut hasher = blake3::Hasher::new();
        // The compute plane is idle now that the search is done: each piece is hashed on all
        // of its workers.
        let body = match self.kept {
            Kept::Resident(mut bytes) => {
                bytes[start..HEADER_ROOM].copy_from_slice(header.as_bytes());
                plane.install(|| hasher.update_rayon(&bytes[start..]));
                Body::Memory(Resident::from_offset(bytes, start))
            }
            Kept::Spooled(mut file) => {
                file.write_at(start as u64, header.as_bytes())
                    .map_err(|_| ErrorRecord::store_io())?;
                let body = Body::Spool(std::sync::Arc::new(file.finish_from(start as u64)));
                plane
                    .install(|| {
                        body.for_each_chunk(DIGEST_READ_BYTES, |chunk| {
                            hasher.update_rayon(chunk);
                        })
                    })
                    .map_err(|_| ErrorRecord::store_io())?;
                body
            }
        };
        let pending = Pending {
            body,
            digest: hasher.finalize(),
            charge: self.charge,
        };
        answer
            .store()
            .retain_all(vec![pending])
            .map_err(|e| e.record())?
            .into_iter()
            .next()
            .ok_or(ErrorRecord::internal_execute())
    }
}

/// `k:g` and the table line of an evidence document with `rows` rows, exactly as the encoder
/// writes them.
fn table_header(rows: usize) -> String {
    let empty = Document::new()
        .with("k", Value::Scalar(Atom::text("g")))
        .with("d", Value::table(&COLS, Vec::new()));
    encode(&empty).replacen("d[0]", &format!("d[{rows}]"), 1)
}

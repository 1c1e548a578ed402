//! Handing on a file whose matches are more than one file may hold
//! ([`FILE_MATCH_BYTES`](super::chunks::FILE_MATCH_BYTES)):
//! its scan in the chunk only counted them, and it is scanned again as it is handed on, its
//! rows handed on a part of about [`PART_BYTES`] at a time. What such a file costs in memory
//! is then a part and its encoding, whatever the length of its lines.
//!
//! The count of the first scan decides the total match ceiling before any row is handed on, as
//! for a file scanned whole. The file can change between the two scans: rows the second scan
//! finds are counted against both ceilings as they are handed on, and a file that is no longer
//! text, is truncated while mapped, or vanished, ends where the second scan found that, and
//! the result is `partial`.

use std::ffi::OsString;
use std::os::fd::AsFd;
use std::sync::Arc;

use super::chunks::count_matches;
use super::read::{Scratch, open_bounded, read_bounded, with_scratch};
use super::scan::{self, Cursor, FileText, Limits};
use super::{
    FileRows, MAX_MATCHES_PER_FILE, RowSink, Scanner, SearchSummary, mapped, scan_stopped,
};
use crate::files::walk::WalkEntry;
use crate::files::workspace::{At, FsError};

/// Bytes of lines (and their rows) a part of a streamed file holds, about: a part ends after
/// the segment of lines that reaches it.
#[cfg(not(test))]
const PART_BYTES: usize = 1 << 20;
/// Small in unit tests, so that a streamed file is handed on in many parts.
#[cfg(test)]
const PART_BYTES: usize = 1 << 10;

/// Where the parts of one streamed file go.
struct Parts<'p, 'r> {
    path: &'p str,
    summary: &'p mut SearchSummary,
    rows: &'p mut RowSink<'r>,
    matches: &'p mut scan::FileMatches,
    encoded: &'p mut String,
}

impl Scanner<'_> {
    /// Scans the walked file `entry` again and hands its rows to `rows` a part at a time.
    pub(super) fn stream_file(
        &self,
        entry: &WalkEntry,
        summary: &mut SearchSummary,
        rows: &mut RowSink<'_>,
    ) -> Result<(), FsError> {
        let path = entry.path.as_str();
        let (parent, name) = path.rsplit_once('/').unwrap_or((".", path));
        let Ok(dir) = self.workspace.open_dir(parent) else {
            summary.partial = true;
            return Ok(());
        };
        let at = At::new(Arc::new(dir), OsString::from(name));
        let Some((file, size)) = open_bounded(self.workspace, path, &at)? else {
            summary.partial = true;
            return Ok(());
        };
        with_scratch(|scratch| {
            let Scratch {
                read,
                mapper,
                matches,
                encoded,
            } = scratch;
            let mut parts = Parts {
                path,
                summary,
                rows,
                matches,
                encoded,
            };
            if size >= mapped::MAP_MIN_BYTES
                && let Ok(len) = usize::try_from(size)
                && let Some(mapping) = mapper
                    .get()
                    .and_then(|mapper| mapper.map(file.as_fd(), len))
            {
                return self.stream_bytes(
                    &mut parts,
                    mapping.bytes(),
                    &mut |done| mapping.release_before(done),
                    &|| mapping.truncated(),
                );
            }
            let Some(len) = read_bounded(path, &file, size, read)? else {
                parts.summary.partial = true;
                return Ok(());
            };
            // A read buffer is this thread's alone: it is never truncated under the scan.
            self.stream_bytes(&mut parts, &read[..len], &mut |_| (), &|| false)
        })
    }

    /// Scans the file `bytes` a part at a time and hands each part on; `done` is told how far
    /// the scan will not read again, and `truncated` says whether the bytes scanned may have
    /// been cut to zeros.
    fn stream_bytes(
        &self,
        parts: &mut Parts<'_, '_>,
        bytes: &[u8],
        done: &mut impl FnMut(usize),
        truncated: &dyn Fn() -> bool,
    ) -> Result<(), FsError> {
        let mut cursor = Cursor::default();
        let mut handed = 0;
        loop {
            if let Some(deadline) = self.deadline {
                deadline.check()?;
            }
            let limits = Limits {
                max: MAX_MATCHES_PER_FILE - handed,
                keep_bytes: usize::MAX,
            };
            let scanned = self.matcher.scan_file_from(
                bytes,
                &mut cursor,
                limits,
                Some(PART_BYTES),
                parts.matches,
                done,
            );
            let crlf = match scanned {
                Ok(FileText::Text { crlf }) => crlf,
                Ok(FileText::NotUtf8) => {
                    parts.summary.partial = true;
                    return Ok(());
                }
                Err(stop) => {
                    // A torn part is the file changing under the scan: it ends there.
                    return scan_stopped(parts.path, stop).map(|_| parts.summary.partial = true);
                }
            };
            if truncated() {
                parts.summary.partial = true;
                return Ok(());
            }
            parts.summary.normalized |= crlf;
            let count = parts.matches.len();
            if count > 0 {
                count_matches(parts.summary, count, parts.path)?;
                handed += count;
                // The rows are handed on as well as their encoding, so what the encoder
                // says the consumer needs makes no difference here.
                self.encode(parts.path, parts.matches, parts.encoded);
                (parts.rows)(FileRows {
                    path: parts.path,
                    matches: parts.matches,
                    encoded: parts.encoded,
                })?;
            }
            if cursor.at_end(bytes.len()) {
                return Ok(());
            }
        }
    }
}

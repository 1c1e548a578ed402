//! File reads with byte or line selection and a whole-file BLAKE3 digest (ASH/1 §3.4 `r`).
//!
//! The file is streamed once: every chunk feeds the hasher and only the selected bytes are kept,
//! so memory stays at the selection size however large the file is.

#[cfg(test)]
mod tests;

use std::fs::File;
use std::io::{self, Read};
use std::num::NonZeroU64;

use rayon::prelude::*;

use crate::compute::ComputePlane;
use crate::deadline::Deadline;
use crate::files::workspace::{Ceiling, FsError, Workspace, type_of};
use crate::protocol::Digest;
use nix::sys::stat::SFlag;

/// Per-file size ceiling of read (601 beyond it).
pub const READ_MAX_FILE_BYTES: u64 = 128 * 1024 * 1024;

/// Bytes read per I/O call.
const CHUNK_BYTES: usize = 256 * 1024;

/// What part of a file to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// `len` bytes starting at zero-based byte `offset` (clamped to the file).
    Bytes {
        /// Zero-based start offset.
        offset: u64,
        /// Maximum number of bytes.
        len: NonZeroU64,
    },
    /// `count` LF-terminated lines starting at one-based line `first`.
    Lines {
        /// One-based first line.
        first: NonZeroU64,
        /// Maximum number of lines.
        count: NonZeroU64,
    },
}

/// The outcome of reading one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOutput {
    /// The path as requested (a symlink is reported under its own name).
    pub path: String,
    /// Byte mode: `min(offset, size)`; line mode: the requested first line.
    pub offset: u64,
    /// Byte mode: bytes returned; line mode: lines returned.
    pub count: u64,
    /// BLAKE3 of the whole file.
    pub digest: Digest,
    /// Size of the whole file in bytes.
    pub size: u64,
    /// The selected bytes (the caller decides between inline text and retention).
    pub bytes: Vec<u8>,
}

/// Reads every path with the same selection on the compute plane; results are in request order.
pub fn read_paths<S: AsRef<str> + Sync>(
    plane: &ComputePlane,
    workspace: &Workspace,
    paths: &[S],
    selection: Selection,
    deadline: Option<Deadline>,
) -> Vec<Result<ReadOutput, FsError>> {
    plane.install(|| {
        paths
            .par_iter()
            .map(|path| {
                if let Some(deadline) = deadline {
                    deadline.check()?;
                }
                read_file(workspace, path.as_ref(), selection)
            })
            .collect()
    })
}

/// Reads one path on the calling thread (callers on the compute plane, or tests).
pub fn read_file(
    workspace: &Workspace,
    path: &str,
    selection: Selection,
) -> Result<ReadOutput, FsError> {
    let resolved = workspace.resolve(path)?;
    let kind = resolved
        .at
        .stat()
        .map(|stat| type_of(&stat))
        .map_err(|e| FsError::from_lookup(path, &e))?;
    if kind == SFlag::S_IFDIR {
        return Err(FsError::IsDirectory {
            path: path.to_owned(),
        });
    }
    // Opening a fifo or device could block or never end; refuse before opening, and open
    // without blocking or following in case the entry is swapped in between.
    if kind != SFlag::S_IFREG {
        return Err(FsError::NotRegularFile {
            path: path.to_owned(),
        });
    }
    let file = resolved
        .at
        .open_read()
        .map_err(|e| FsError::from_lookup(path, &e))?;
    let meta = file.metadata().map_err(|e| FsError::io(path, &e))?;
    if !meta.is_file() {
        return Err(FsError::NotRegularFile {
            path: path.to_owned(),
        });
    }
    if workspace.hides_linked(std::os::unix::fs::MetadataExt::nlink(&meta)) {
        return Err(FsError::Hidden {
            path: path.to_owned(),
        });
    }
    check_size(path, meta.len())?;
    let mut selector = Selector::new(selection);
    let (digest, size) = stream(path, file, meta.len(), &mut selector)?;
    let (offset, count, bytes) = selector.finish(size);
    Ok(ReadOutput {
        path: path.to_owned(),
        offset,
        count,
        digest,
        size,
        bytes,
    })
}

fn check_size(path: &str, size: u64) -> Result<(), FsError> {
    if size > READ_MAX_FILE_BYTES {
        return Err(FsError::Ceiling {
            path: path.to_owned(),
            ceiling: Ceiling::FileSize {
                size,
                limit: READ_MAX_FILE_BYTES,
            },
        });
    }
    Ok(())
}

/// Feeds the whole file to the hasher and the selector; returns the digest and the bytes read.
fn stream(
    path: &str,
    mut file: File,
    expected: u64,
    selector: &mut Selector,
) -> Result<(Digest, u64), FsError> {
    let chunk =
        usize::try_from(expected.saturating_add(1)).map_or(CHUNK_BYTES, |n| n.min(CHUNK_BYTES));
    let mut buf = vec![0u8; chunk.max(1)];
    let mut hasher = blake3::Hasher::new();
    let mut total: u64 = 0;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(FsError::io(path, &err)),
        };
        let data = &buf[..n];
        total += n as u64;
        // The file may have grown since it was measured.
        check_size(path, total)?;
        hasher.update(data);
        selector.feed(data);
    }
    Ok((Digest(*hasher.finalize().as_bytes()), total))
}

/// Incremental selection of bytes or lines from a stream.
enum Selector {
    Bytes {
        offset: u64,
        len: u64,
        pos: u64,
        out: Vec<u8>,
    },
    Lines {
        first: u64,
        count: u64,
        /// One-based line the next byte belongs to, while skipping up to `first`.
        line: u64,
        /// Complete (LF-terminated) lines kept so far.
        taken: u64,
        out: Vec<u8>,
    },
}

impl Selector {
    fn new(selection: Selection) -> Selector {
        match selection {
            Selection::Bytes { offset, len } => Selector::Bytes {
                offset,
                len: len.get(),
                pos: 0,
                out: Vec::new(),
            },
            Selection::Lines { first, count } => Selector::Lines {
                first: first.get(),
                count: count.get(),
                line: 1,
                taken: 0,
                out: Vec::new(),
            },
        }
    }

    fn feed(&mut self, mut data: &[u8]) {
        match self {
            Selector::Bytes {
                offset,
                len,
                pos,
                out,
            } => {
                let start = (*offset).max(*pos);
                let end = offset.saturating_add(*len).min(*pos + data.len() as u64);
                if start < end {
                    // Both bounds lie inside this chunk, so they fit in usize.
                    let from = usize::try_from(start - *pos).unwrap_or(data.len());
                    let to = usize::try_from(end - *pos).unwrap_or(data.len());
                    out.extend_from_slice(&data[from..to]);
                }
                *pos += data.len() as u64;
            }
            Selector::Lines {
                first,
                count,
                line,
                taken,
                out,
            } => {
                if *line < *first {
                    match nth_lf(data, *first - *line) {
                        Some(at) => {
                            *line = *first;
                            data = &data[at + 1..];
                        }
                        None => {
                            *line += count_lf(data);
                            return;
                        }
                    }
                }
                if *taken < *count {
                    match nth_lf(data, *count - *taken) {
                        Some(at) => {
                            out.extend_from_slice(&data[..=at]);
                            *taken = *count;
                        }
                        None => {
                            out.extend_from_slice(data);
                            *taken += count_lf(data);
                        }
                    }
                }
            }
        }
    }

    /// Returns (result offset, result count, selected bytes) once the file has `size` bytes.
    fn finish(self, size: u64) -> (u64, u64, Vec<u8>) {
        match self {
            Selector::Bytes { offset, out, .. } => (offset.min(size), out.len() as u64, out),
            Selector::Lines {
                first, taken, out, ..
            } => {
                // A kept tail without LF is the file's last, unterminated line.
                let partial = out.last().is_some_and(|&b| b != b'\n');
                (first, taken + u64::from(partial), out)
            }
        }
    }
}

/// Block size for counting LFs before pinpointing one.
const LF_BLOCK: usize = 4096;

/// Index of the `n`-th LF (1-based) in `data`, or `None` if it has fewer.
fn nth_lf(data: &[u8], n: u64) -> Option<usize> {
    let mut remaining = n;
    let mut base = 0;
    for block in data.chunks(LF_BLOCK) {
        let in_block = count_lf(block);
        if in_block < remaining {
            remaining -= in_block;
            base += block.len();
            continue;
        }
        // The target LF is in this block: walk to it.
        let mut seen = 0;
        for (i, &b) in block.iter().enumerate() {
            if b == b'\n' {
                seen += 1;
                if seen == remaining {
                    return Some(base + i);
                }
            }
        }
    }
    None
}

/// Number of LF bytes (a plain counting loop the compiler vectorises).
fn count_lf(data: &[u8]) -> u64 {
    data.iter().filter(|&&b| b == b'\n').count() as u64
}

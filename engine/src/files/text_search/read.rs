//! Reading a walked file: into a per-thread buffer, with as few `read` calls as a file that
//! did not change needs, bounded by the per-file size ceiling.

use std::cell::RefCell;
use std::io::Read;

use rustix::fs::FileType;

use super::mapped::Mapper;
use super::{SEARCH_MAX_FILE_BYTES, scan};
use crate::files::workspace::{At, Ceiling, FsError, Workspace};

/// A read buffer kept by each compute thread up to this size; a larger one (a big file) is
/// given back after use, so a long-lived server holds at most this much per thread. The same
/// bound applies to the thread's match and encoding buffers.
const KEPT_READ_BUFFER: usize = 1 << 20;

/// What each compute thread reuses from file to file: files of one thread reuse its pages
/// instead of allocating and faulting in fresh ones per file.
#[derive(Default)]
pub(super) struct Scratch {
    /// The file's bytes, when it is read rather than mapped.
    pub(super) read: Vec<u8>,
    /// What the thread maps its large files with.
    pub(super) mapper: MapperState,
    /// Its matches, before the exactly sized copy that is kept.
    pub(super) matches: scan::FileMatches,
    /// The encoder's output, before the exactly sized copy that is kept.
    pub(super) encoded: String,
}

/// A thread's [`Mapper`], made on its first file large enough to map.
#[derive(Default)]
pub(super) enum MapperState {
    /// No file has needed it yet.
    #[default]
    Unmade,
    /// Made.
    Ready(Mapper),
    /// It could not be had: this thread reads its files.
    Unavailable,
}

impl MapperState {
    /// The mapper, made on first use.
    pub(super) fn get(&mut self) -> Option<&mut Mapper> {
        if matches!(self, MapperState::Unmade) {
            *self = Mapper::new().map_or(MapperState::Unavailable, MapperState::Ready);
        }
        match self {
            MapperState::Ready(mapper) => Some(mapper),
            MapperState::Unmade | MapperState::Unavailable => None,
        }
    }
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

/// What is kept of the scratch matches: an exactly sized copy, or the matches themselves when
/// they are past what a thread keeps, so a big file's matches are never held twice.
pub(super) fn keep_matches(matches: &mut scan::FileMatches) -> scan::FileMatches {
    if matches.held_bytes() > KEPT_READ_BUFFER {
        std::mem::take(matches)
    } else {
        matches.clone()
    }
}

/// What is kept of the scratch encoding, as [`keep_matches`] keeps the matches.
pub(super) fn keep_encoded(encoded: &mut String) -> String {
    if encoded.capacity() > KEPT_READ_BUFFER {
        std::mem::take(encoded)
    } else {
        encoded.as_str().to_owned()
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Runs `f` with this thread's [`Scratch`], or a fresh one if `f` runs inside another `f` on
/// the same thread (a scan that waits in the pool may pick up another file).
pub(super) fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
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
pub(super) fn read_all(mut file: &std::fs::File, size: u64, buf: &mut Vec<u8>) -> Option<usize> {
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

/// Opens the walked file `at` for a search: `None` if it vanished, cannot be read or is no
/// longer a regular file (or is hidden by another name); otherwise the file and its size, or
/// a ceiling error if it is too large.
// Inlined into the per-file scan as it was before that grew a second caller (the
// streamed pass): out of line it cost about 60 instructions a file.
#[inline]
pub(super) fn open_bounded(
    workspace: &Workspace,
    path: &str,
    at: &At,
) -> Result<Option<(std::fs::File, u64)>, FsError> {
    // The final name is opened without following a link.
    let Ok(file) = at.open_read() else {
        return Ok(None);
    };
    // The walk saw a regular file; if it was swapped for something else since, skip it.
    // Another name of a hidden file is hidden too, when the filter says so. `fstat`, not
    // `File::metadata`: std asks `statx` with an empty path, which cost this VM's kernel about
    // 0.4 µs more a file (1.7 ms of CPU in a search of 4096 files; issue 22, in the history of docs/benchmarks.md).
    let Ok(stat) = rustix::fs::fstat(&file) else {
        return Ok(None);
    };
    let regular = FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile;
    let size = match u64::try_from(stat.st_size) {
        Ok(size) if regular && !workspace.hides_linked(stat.st_nlink) => size,
        _ => return Ok(None),
    };
    if size > SEARCH_MAX_FILE_BYTES {
        return Err(too_large(path, size));
    }
    Ok(Some((file, size)))
}

/// Reads the opened `file` of `size` bytes into the start of `buf` and returns its length:
/// `None` if it cannot be read, a ceiling error if it grew too large.
// Inlined into the per-file scan as it was before that grew a second caller (the
// streamed pass): out of line it cost about 60 instructions a file.
#[inline]
pub(super) fn read_bounded(
    path: &str,
    file: &std::fs::File,
    size: u64,
    buf: &mut Vec<u8>,
) -> Result<Option<usize>, FsError> {
    let Some(filled) = read_all(file, size, buf) else {
        return Ok(None);
    };
    if filled as u64 > SEARCH_MAX_FILE_BYTES {
        return Err(too_large(path, filled as u64));
    }
    Ok(Some(filled))
}

fn too_large(path: &str, size: u64) -> FsError {
    FsError::Ceiling {
        path: path.to_owned(),
        ceiling: Ceiling::FileSize {
            size,
            limit: SEARCH_MAX_FILE_BYTES,
        },
    }
}

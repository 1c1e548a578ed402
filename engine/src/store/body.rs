//! Where a retained value's bytes live: in memory, or in a spool file on disk.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A retained value's bytes. Cloning is cheap; a spool file is deleted when the last clone
/// (the store entry and every lease) is dropped.
#[derive(Debug, Clone)]
pub enum Body {
    /// Resident bytes.
    Memory(Resident),
    /// Bytes in a session-private spool file.
    Spool(Arc<SpoolFile>),
}

/// Resident bytes of a value, shared by clones. Built from a `Vec` without a copy: a value
/// of megabytes (a cut search's evidence) would otherwise be copied into fresh pages, faulting
/// each one in. The value may begin past the start of the buffer (room kept for a header that
/// turned out shorter), as a spool file's may.
#[derive(Debug, Clone)]
pub struct Resident {
    bytes: Arc<Vec<u8>>,
    start: usize,
}

impl Resident {
    /// The bytes of `bytes` from `start` on; a `start` past the end leaves none.
    pub fn from_offset(bytes: Vec<u8>, start: usize) -> Resident {
        let start = start.min(bytes.len());
        Resident {
            bytes: Arc::new(bytes),
            start,
        }
    }
}

impl From<Vec<u8>> for Resident {
    fn from(bytes: Vec<u8>) -> Resident {
        Resident::from_offset(bytes, 0)
    }
}

impl From<&[u8]> for Resident {
    fn from(bytes: &[u8]) -> Resident {
        Resident::from(bytes.to_vec())
    }
}

impl std::ops::Deref for Resident {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.bytes.get(self.start..).unwrap_or_default()
    }
}

/// A spool file holding the value's `len` bytes from `start` on; removed from disk on drop.
#[derive(Debug)]
pub struct SpoolFile {
    path: PathBuf,
    start: u64,
    len: u64,
    // Dropped after the file is removed: keeps the spool directory alive while files are in it.
    _owner: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

impl SpoolFile {
    /// Takes ownership of a complete spool file of `len` bytes at `path`.
    pub fn adopt(path: PathBuf, len: u64) -> SpoolFile {
        SpoolFile {
            path,
            start: 0,
            len,
            _owner: None,
        }
    }

    /// Like `adopt`, also holding `owner` (the spool directory) until the file is removed.
    pub fn adopt_owned(
        path: PathBuf,
        len: u64,
        owner: Arc<dyn std::any::Any + Send + Sync>,
    ) -> SpoolFile {
        SpoolFile::adopt_from(path, 0, len, owner)
    }

    /// Like `adopt_owned` for a value whose bytes begin `start` bytes into the file (the room
    /// kept for a header that turned out shorter).
    pub fn adopt_from(
        path: PathBuf,
        start: u64,
        len: u64,
        owner: Arc<dyn std::any::Any + Send + Sync>,
    ) -> SpoolFile {
        SpoolFile {
            path,
            start,
            len,
            _owner: Some(owner),
        }
    }

    /// Where the file is; the value may begin past the file's start, so read it through
    /// [`Body::read_range`].
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SpoolFile {
    fn drop(&mut self) {
        // Best effort: a file that is already gone is fine, and a failure here must not panic.
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Body {
    /// Total bytes.
    pub fn len(&self) -> u64 {
        match self {
            Body::Memory(b) => b.len() as u64,
            Body::Spool(f) => f.len,
        }
    }

    /// Whether the value is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads `len` bytes from `offset`, clamped to the value; only that range is read from disk.
    pub fn read_range(&self, offset: u64, len: u64) -> io::Result<Vec<u8>> {
        let start = offset.min(self.len());
        let end = start.saturating_add(len).min(self.len());
        match self {
            Body::Memory(b) => Ok(b[start as usize..end as usize].to_vec()),
            Body::Spool(f) => {
                let mut file = File::open(&f.path)?;
                file.seek(SeekFrom::Start(f.start + start))?;
                let want = (end - start) as usize;
                let mut buf = Vec::with_capacity(want);
                file.take(end - start).read_to_end(&mut buf)?;
                if buf.len() != want {
                    return Err(shorter_than_recorded(f));
                }
                Ok(buf)
            }
        }
    }

    /// Hands the value to `each` in order, `chunk` bytes at a time (the last may be shorter):
    /// a spool file is opened once and read into one buffer, so a long value costs neither an
    /// open nor fresh pages per chunk.
    pub fn for_each_chunk(&self, chunk: usize, mut each: impl FnMut(&[u8])) -> io::Result<()> {
        let chunk = chunk.max(1);
        match self {
            Body::Memory(b) => {
                b.chunks(chunk).for_each(each);
                Ok(())
            }
            Body::Spool(f) => {
                let mut file = File::open(&f.path)?;
                file.seek(SeekFrom::Start(f.start))?;
                let mut left = f.len;
                let mut buf = vec![0; usize::try_from(left).map_or(chunk, |l| l.min(chunk))];
                while left > 0 {
                    let want = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
                    file.read_exact(&mut buf[..want]).map_err(|e| {
                        if e.kind() == io::ErrorKind::UnexpectedEof {
                            shorter_than_recorded(f)
                        } else {
                            e
                        }
                    })?;
                    each(&buf[..want]);
                    left -= want as u64;
                }
                Ok(())
            }
        }
    }

    /// Reads the whole value.
    pub fn read_all(&self) -> io::Result<Vec<u8>> {
        self.read_range(0, self.len())
    }

    /// Whether both bodies hold the same bytes (compared in bounded chunks for spool files).
    pub fn same_bytes(&self, other: &Body) -> io::Result<bool> {
        if self.len() != other.len() {
            return Ok(false);
        }
        const CHUNK: u64 = 1 << 20;
        let mut at = 0;
        while at < self.len() {
            if self.read_range(at, CHUNK)? != other.read_range(at, CHUNK)? {
                return Ok(false);
            }
            at += CHUNK;
        }
        Ok(true)
    }
}

/// A spool file that lost bytes after it was recorded (truncated by another process).
fn shorter_than_recorded(f: &SpoolFile) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!(
            "spool file {} is shorter than recorded: it was truncated outside ash, so the retained value is lost",
            f.path.display()
        ),
    )
}

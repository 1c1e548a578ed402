//! The second pass of a capture: one file's content, read through the workspace's directory
//! descriptors (no symlink followed, a fifo never blocks), hashed with BLAKE3 and, when the
//! store lacks it, staged compressed. The file's status before and after the read must agree,
//! so the stamp recorded is the one of the bytes kept.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::sync::Mutex;

use crate::checkpoint::error::CheckpointError;
use crate::checkpoint::manifest::{CHANGED_DURING_CAPTURE, Stamp, Unrestorable};
use crate::checkpoint::store::{Staged, Store};
use crate::files::workspace::Workspace;
use crate::protocol::Digest;

use super::walk::reason;

/// Files up to this size are read whole into memory (one read, compressed in one call);
/// larger ones are streamed in [`CHUNK_BYTES`] pieces, so memory does not grow with a file.
const WHOLE_BYTES: u64 = 1 << 20;

/// Read size of a streamed file.
const CHUNK_BYTES: usize = 256 << 10;

/// Reads of a file that keeps changing before it is recorded as unreadable.
const ATTEMPTS: usize = 3;

/// What reading one file gave.
#[derive(Debug)]
pub(super) enum Outcome {
    /// The content, with the stamp and mode it had while read.
    Content {
        digest: Digest,
        size: u64,
        stamp: Stamp,
        mode: u32,
        /// The staged content when this read staged it (the store lacked it and nobody else
        /// of this capture staged it).
        staged: Option<Staged>,
    },
    /// Not kept, with the stamp and mode of the file when known.
    NotKept(Unrestorable, Option<(Stamp, u32)>),
    /// The file no longer exists.
    Gone,
}

/// What a read is allowed to do.
pub(super) struct Reader<'a> {
    pub(super) ws: &'a Workspace,
    pub(super) store: &'a Store,
    pub(super) max_file_bytes: u64,
    /// False once the capture is over budget: contents are hashed (a content the store has is
    /// still kept) but not staged.
    pub(super) stage: bool,
    /// Digests staged by this capture and not yet committed.
    pub(super) claimed: &'a Mutex<HashSet<Digest>>,
}

impl Reader<'_> {
    /// Reads the file at `path`.
    pub(super) fn read(&self, path: &str) -> Result<Outcome, CheckpointError> {
        let file = match self.ws.locate(path).and_then(|at| at.open_read()) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Outcome::Gone),
            Err(e) => {
                return Ok(Outcome::NotKept(
                    Unrestorable::Unreadable {
                        reason: reason(&format!("it cannot be opened: {e}")),
                    },
                    None,
                ));
            }
        };
        let mut last = None;
        for _ in 0..ATTEMPTS {
            match self.attempt(&file)? {
                Attempt::Done(outcome) => return Ok(outcome),
                Attempt::Changed(stamp, mode) => last = Some((stamp, mode)),
            }
        }
        Ok(Outcome::NotKept(
            Unrestorable::Unreadable {
                reason: format!("it kept changing {CHANGED_DURING_CAPTURE} ({ATTEMPTS} reads)"),
            },
            last,
        ))
    }

    fn attempt(&self, file: &File) -> Result<Attempt, CheckpointError> {
        let unreadable = |e: io::Error, what: &str| {
            Attempt::Done(Outcome::NotKept(
                Unrestorable::Unreadable {
                    reason: reason(&format!("{what}: {e}")),
                },
                None,
            ))
        };
        let before = match file.metadata() {
            Ok(meta) => meta,
            Err(e) => return Ok(unreadable(e, "its status cannot be read")),
        };
        let stamp = stamp_of(&before);
        let mode = before.mode() & 0o7777;
        if !before.is_file() {
            return Ok(Attempt::Done(Outcome::NotKept(
                Unrestorable::Unreadable {
                    reason: format!("it was replaced by something else {CHANGED_DURING_CAPTURE}"),
                },
                Some((stamp, mode)),
            )));
        }
        if before.len() > self.max_file_bytes {
            return Ok(Attempt::Done(Outcome::NotKept(
                Unrestorable::TooLarge {
                    limit: self.max_file_bytes,
                },
                Some((stamp, mode)),
            )));
        }
        let read = if before.len() <= WHOLE_BYTES {
            self.read_whole(file)
        } else {
            self.read_streamed(file)
        };
        let (digest, size, staged) = match read {
            Ok(Some(read)) => read,
            Ok(None) => {
                return Ok(Attempt::Done(Outcome::NotKept(
                    Unrestorable::TooLarge {
                        limit: self.max_file_bytes,
                    },
                    Some((stamp, mode)),
                )));
            }
            Err(ReadError::Io(e)) => return Ok(unreadable(e, "it cannot be read")),
            Err(ReadError::Store(e)) => return Err(e),
        };
        let after = match file.metadata() {
            Ok(meta) => meta,
            Err(e) => return Ok(unreadable(e, "its status cannot be read")),
        };
        if stamp_of(&after) != stamp || after.mode() & 0o7777 != mode || size != stamp.size {
            if let Some(staged) = staged {
                self.unclaim(&digest);
                self.store.discard(staged);
            }
            return Ok(Attempt::Changed(stamp_of(&after), after.mode() & 0o7777));
        }
        Ok(Attempt::Done(Outcome::Content {
            digest,
            size,
            stamp,
            mode,
            staged,
        }))
    }

    /// Reads a small file whole; `None` when it grew past the size limit.
    fn read_whole(
        &self,
        mut file: &File,
    ) -> Result<Option<(Digest, u64, Option<Staged>)>, ReadError> {
        file.seek(SeekFrom::Start(0)).map_err(ReadError::Io)?;
        let mut content = Vec::with_capacity(4096);
        file.take(self.max_file_bytes.saturating_add(1))
            .read_to_end(&mut content)
            .map_err(ReadError::Io)?;
        let size = content.len() as u64;
        if size > self.max_file_bytes {
            return Ok(None);
        }
        let digest = Digest::of(&content);
        let staged = if self.claim(&digest) {
            match self.store.stage_bytes(&content) {
                Ok(staged) => Some(staged),
                Err(e) => {
                    self.unclaim(&digest);
                    return Err(ReadError::Store(e));
                }
            }
        } else {
            None
        };
        Ok(Some((digest, size, staged)))
    }

    /// Hashes a large file in chunks; when the store lacks its content, reads it again into
    /// a staged object, checking the second read hashes the same.
    fn read_streamed(
        &self,
        mut file: &File,
    ) -> Result<Option<(Digest, u64, Option<Staged>)>, ReadError> {
        let mut buf = vec![0u8; CHUNK_BYTES];
        let mut hasher = blake3::Hasher::new();
        let size = self.pass(file, &mut buf, |chunk| {
            hasher.update(chunk);
            Ok(())
        })?;
        let Some(size) = size else {
            return Ok(None);
        };
        let digest = Digest(*hasher.finalize().as_bytes());
        if !self.claim(&digest) {
            return Ok(Some((digest, size, None)));
        }
        let staged = (|| {
            let mut writer = self.store.stage_stream().map_err(ReadError::Store)?;
            let mut again = blake3::Hasher::new();
            file.seek(SeekFrom::Start(0)).map_err(ReadError::Io)?;
            let second = self.pass(file, &mut buf, |chunk| {
                again.update(chunk);
                writer.write(chunk).map_err(ReadError::Store)
            })?;
            let staged = writer.finish().map_err(ReadError::Store)?;
            if second != Some(size) || Digest(*again.finalize().as_bytes()) != digest {
                // Changed between the two reads: the caller's status check sees it too.
                self.store.discard(staged);
                return Ok(None);
            }
            Ok(Some(staged))
        })();
        match staged {
            Ok(staged) => {
                if staged.is_none() {
                    self.unclaim(&digest);
                }
                Ok(Some((digest, size, staged)))
            }
            Err(e) => {
                self.unclaim(&digest);
                Err(e)
            }
        }
    }

    /// Feeds the file from its start to `sink` chunk by chunk; `None` past the size limit.
    fn pass(
        &self,
        mut file: &File,
        buf: &mut [u8],
        mut sink: impl FnMut(&[u8]) -> Result<(), ReadError>,
    ) -> Result<Option<u64>, ReadError> {
        file.seek(SeekFrom::Start(0)).map_err(ReadError::Io)?;
        let mut total = 0u64;
        loop {
            let n = match file.read(buf) {
                Ok(0) => return Ok(Some(total)),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ReadError::Io(e)),
            };
            total += n as u64;
            if total > self.max_file_bytes {
                return Ok(None);
            }
            sink(&buf[..n])?;
        }
    }

    /// True when this read is to stage `digest`: staging is on, the store lacks it and no
    /// other read of this capture has claimed it.
    fn claim(&self, digest: &Digest) -> bool {
        if !self.stage || self.store.contains(digest) {
            return false;
        }
        self.claimed
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .insert(*digest)
    }

    fn unclaim(&self, digest: &Digest) {
        self.claimed
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .remove(digest);
    }
}

enum Attempt {
    Done(Outcome),
    Changed(Stamp, u32),
}

enum ReadError {
    Io(io::Error),
    Store(CheckpointError),
}

fn stamp_of(meta: &std::fs::Metadata) -> Stamp {
    Stamp {
        size: meta.size(),
        mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        ino: meta.ino(),
        dev: meta.dev(),
    }
}

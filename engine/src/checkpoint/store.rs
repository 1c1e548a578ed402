//! The session-private content-addressed store of checkpoints.
//!
//! Layout under the store directory (0700, owned by this user):
//! - `objects/<2 hex>/<62 hex>`: one file per distinct content, named by the BLAKE3 of the
//!   content; the file is `ACKOBJ01`, the content length (u64 little-endian) and one zstd frame;
//! - `manifests/<64 hex>`: one file per distinct manifest, named by its `ManifestId`
//!   (`store/manifests.rs`: compressed against the previous one);
//! - `tmp/`: files being written. Every file is written there, made durable, then renamed into
//!   place (`store/durable.rs`), so a name under `objects/` or `manifests/` always holds a
//!   whole file; leftovers of a killed writer are removed when the store is opened.
//!
//! Every read is verified: the framing, the length, and the BLAKE3 of what decompresses. The
//! budget counts the bytes of the files in `objects/` and `manifests/`; an object that would
//! pass it is not kept (the capture records its content `OverBudget`); a manifest is always
//! kept, since without it the checkpoint would not exist.

use std::cell::RefCell;
use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat, renameat};
use nix::sys::stat::{Mode, SFlag, fchmod, fstat, fstatat, mkdirat};
use nix::unistd::{UnlinkatFlags, unlinkat};
use rayon::prelude::*;

use crate::checkpoint::error::CheckpointError;
use crate::protocol::{Digest, to_lower_hex};

/// Default total budget of one session's store (1 GiB, the default).
pub const DEFAULT_BUDGET_BYTES: u64 = 1 << 30;

/// First bytes of every stored file.
const OBJECT_MAGIC: &[u8; 8] = b"ACKOBJ01";

/// Bytes before the zstd frame: the magic and the content length.
const HEADER_BYTES: usize = 16;

/// zstd level of stored files: 3 (zstd's default) compresses source text about as well as 9 at
/// several times the speed, which the first checkpoint's 1.5 s target needs.
const LEVEL: i32 = 3;

/// Largest content length a stored file may claim; bounds what a damaged header can make a
/// reader allocate (no workspace file a checkpoint keeps is near it).
const MAX_STORED_BYTES: u64 = 1 << 34;

/// Largest zstd window a reader accepts (8 MiB); level 3 never writes a larger one, so a
/// damaged frame cannot make decompression allocate more.
const WINDOW_LOG_MAX: u32 = 23;

mod durable;
mod manifests;

/// A content being written to `tmp/`, not yet in the store.
#[derive(Debug)]
pub(crate) struct Staged {
    name: String,
    /// Bytes of the staged file (header and frame): what keeping it costs the budget.
    pub(crate) stored_bytes: u64,
}

/// What [`Store::commit`] did with a staged content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Commit {
    /// Renamed into `objects/`.
    Kept,
    /// The store already had this content; the staged file was removed.
    AlreadyThere,
    /// Keeping it would pass the budget; the staged file was removed.
    OverBudget,
}

/// A session's checkpoint store: manifests and contents, each kept once.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    root: OwnedFd,
    objects: OwnedFd,
    manifests: OwnedFd,
    tmp: OwnedFd,
    /// Device and inode of the store directory: a capture of a workspace that contains the
    /// store records it as state rather than copying the store into itself.
    identity: (u64, u64),
    budget: u64,
    used: AtomicU64,
    /// Digests under `objects/`.
    known: Mutex<HashSet<Digest>>,
    next_tmp: AtomicU64,
    /// The last manifest kept: the dictionary of the next (`store/manifests.rs`).
    recent: Mutex<Option<std::sync::Arc<manifests::Recent>>>,
    /// Held by a capture from start to end: one capture at a time per store.
    pub(crate) capturing: Mutex<()>,
}

impl Store {
    /// Opens the store at `dir`, creating it (0700) if needed; `budget_bytes` bounds the bytes
    /// kept (see the module docs). An existing directory must be a real directory of this user;
    /// its group and other permission bits are removed.
    pub fn open(dir: &Path, budget_bytes: u64) -> Result<Store, CheckpointError> {
        create_private_dir(dir)?;
        let root = open_dir_at(None, dir.as_os_str())
            .map_err(|e| CheckpointError::io("open the checkpoint store", dir, e))?;
        let stat = fstat(root.as_fd()).map_err(|e| {
            CheckpointError::io("inspect the checkpoint store", dir, io::Error::from(e))
        })?;
        if stat.st_uid != nix::unistd::geteuid().as_raw() {
            return Err(CheckpointError::UnsafeStore {
                path: dir.to_path_buf(),
                reason: "it belongs to another user",
            });
        }
        if stat.st_mode & 0o077 != 0 {
            fchmod(root.as_fd(), Mode::from_bits_truncate(0o700)).map_err(|e| {
                CheckpointError::io("make the checkpoint store private", dir, e.into())
            })?;
        }
        let sub = |name: &str| -> Result<OwnedFd, CheckpointError> {
            let path = dir.join(name);
            match mkdirat(root.as_fd(), name, Mode::from_bits_truncate(0o700)) {
                Ok(()) | Err(Errno::EEXIST) => {}
                Err(e) => {
                    return Err(CheckpointError::io(
                        "create a store directory",
                        path,
                        e.into(),
                    ));
                }
            }
            open_dir_at(Some(root.as_fd()), OsStr::new(name))
                .map_err(|e| CheckpointError::io("open a store directory", path, e))
        };
        let objects = sub("objects")?;
        let manifests = sub("manifests")?;
        let tmp = sub("tmp")?;
        let store = Store {
            path: dir.to_path_buf(),
            root,
            objects,
            manifests,
            tmp,
            identity: (stat.st_dev, stat.st_ino),
            budget: budget_bytes,
            used: AtomicU64::new(0),
            known: Mutex::new(HashSet::new()),
            next_tmp: AtomicU64::new(0),
            recent: Mutex::new(None),
            capturing: Mutex::new(()),
        };
        store.clear_tmp()?;
        store.count_existing()?;
        Ok(store)
    }

    /// The store directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The budget given at open.
    pub fn budget_bytes(&self) -> u64 {
        self.budget
    }

    /// Bytes of all kept objects and manifests (their files, compressed).
    pub fn used_bytes(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Whether the store keeps the content `digest`.
    pub fn contains(&self, digest: &Digest) -> bool {
        self.known_set().contains(digest)
    }

    /// Number of distinct contents kept.
    pub fn object_count(&self) -> usize {
        self.known_set().len()
    }

    /// `(st_dev, st_ino)` of the store directory.
    pub(crate) fn identity(&self) -> (u64, u64) {
        self.identity
    }

    /// The content `digest`, verified (length and BLAKE3).
    pub fn object(&self, digest: &Digest) -> Result<Vec<u8>, CheckpointError> {
        let (dir, name) = object_name(digest);
        let file = match open_file_at(self.objects.as_fd(), &format!("{dir}/{name}")) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(CheckpointError::MissingObject(*digest));
            }
            Err(e) => {
                return Err(CheckpointError::io(
                    "open a checkpoint object",
                    self.path.join("objects").join(dir).join(name),
                    e,
                ));
            }
        };
        let bytes = read_framed(file).map_err(|reason| CheckpointError::CorruptObject {
            digest: *digest,
            reason,
        })?;
        if Digest::of(&bytes) != *digest {
            return Err(CheckpointError::CorruptObject {
                digest: *digest,
                reason: "its content does not hash to its name".to_owned(),
            });
        }
        Ok(bytes)
    }

    /// Stages a content held whole in memory.
    pub(crate) fn stage_bytes(&self, content: &[u8]) -> Result<Staged, CheckpointError> {
        let compressed = compress(content)
            .map_err(|e| CheckpointError::io("compress a content", &self.path, e))?;
        self.stage_whole(content.len() as u64, &compressed)
    }

    /// Starts staging a content streamed in chunks.
    pub(crate) fn stage_stream(&self) -> Result<StagedWriter<'_>, CheckpointError> {
        let (name, file) = self.create_tmp()?;
        let mut out = BufWriter::with_capacity(128 << 10, file);
        out.write_all(&[0u8; HEADER_BYTES])
            .map_err(|e| self.tmp_error(&name, e))?;
        let encoder =
            zstd::stream::write::Encoder::new(out, LEVEL).map_err(|e| self.tmp_error(&name, e))?;
        Ok(StagedWriter {
            store: self,
            name,
            encoder: Some(encoder),
            len: 0,
        })
    }

    /// Drops a staged content.
    pub(crate) fn discard(&self, staged: Staged) {
        // A leftover is removed at the next open; nothing depends on this succeeding.
        let _ = unlinkat(
            self.tmp.as_fd(),
            staged.name.as_str(),
            UnlinkatFlags::NoRemoveDir,
        );
    }

    /// Decides whether a staged content of `stored_bytes` becomes object `digest`: not when
    /// the store has it, not when it would pass the budget; otherwise its bytes are counted and
    /// the digest is known from now on (so a later entry of the same capture sees it kept).
    /// Callers decide in a fixed order, so which contents a tight budget keeps does not depend
    /// on thread timing, then [`Store::publish`] what was admitted.
    pub(crate) fn admit(&self, digest: &Digest, stored_bytes: u64) -> Commit {
        let mut known = self.known_set();
        if known.contains(digest) {
            return Commit::AlreadyThere;
        }
        if self.used_bytes().saturating_add(stored_bytes) > self.budget {
            return Commit::OverBudget;
        }
        self.used.fetch_add(stored_bytes, Ordering::Relaxed);
        known.insert(*digest);
        Commit::Kept
    }

    /// Makes admitted staged contents durable, renames them into `objects/` and makes the
    /// renames durable. A content that cannot be published is forgotten again (its bytes and
    /// digest), so no manifest can name an object that is not there.
    pub(crate) fn publish(&self, admitted: Vec<(Staged, Digest)>) -> Result<(), CheckpointError> {
        if admitted.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = admitted.iter().map(|(s, _)| s.name.as_str()).collect();
        if let Err(e) = durable::sync_files(self, &names) {
            for (staged, digest) in admitted {
                self.forget(&digest, staged.stored_bytes);
                self.discard(staged);
            }
            return Err(e);
        }
        let renamed: Vec<Result<String, CheckpointError>> = admitted
            .par_iter()
            .map(|(staged, digest)| self.rename_into_place(staged, digest))
            .collect();
        let mut failure = None;
        let mut dirs = Vec::new();
        for ((staged, digest), result) in admitted.into_iter().zip(renamed) {
            match result {
                Ok(dir) => dirs.push(dir),
                Err(e) => {
                    self.forget(&digest, staged.stored_bytes);
                    self.discard(staged);
                    failure.get_or_insert(e);
                }
            }
        }
        dirs.sort_unstable();
        dirs.dedup();
        durable::sync_dirs(self, &dirs)?;
        failure.map_or(Ok(()), Err)
    }

    /// Renames a staged content to its object name; returns its fan-out directory.
    fn rename_into_place(
        &self,
        staged: &Staged,
        digest: &Digest,
    ) -> Result<String, CheckpointError> {
        let (dir, name) = object_name(digest);
        match mkdirat(
            self.objects.as_fd(),
            dir.as_str(),
            Mode::from_bits_truncate(0o700),
        ) {
            Ok(()) | Err(Errno::EEXIST) => {}
            Err(e) => {
                return Err(CheckpointError::io(
                    "create an object directory",
                    self.path.join("objects").join(&dir),
                    e.into(),
                ));
            }
        }
        renameat(
            self.tmp.as_fd(),
            staged.name.as_str(),
            self.objects.as_fd(),
            format!("{dir}/{name}").as_str(),
        )
        .map_err(|e| {
            CheckpointError::io(
                "keep a checkpoint object",
                self.path.join("objects").join(&dir),
                e.into(),
            )
        })?;
        Ok(dir)
    }

    fn forget(&self, digest: &Digest, stored_bytes: u64) {
        self.known_set().remove(digest);
        self.used.fetch_sub(stored_bytes, Ordering::Relaxed);
    }

    fn known_set(&self) -> std::sync::MutexGuard<'_, HashSet<Digest>> {
        // A panic while holding the lock leaves the set as it was: recover it.
        self.known
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    fn create_tmp(&self) -> Result<(String, File), CheckpointError> {
        let n = self.next_tmp.fetch_add(1, Ordering::Relaxed);
        let name = format!("{}-{n}", std::process::id());
        let flags =
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let fd = openat(
            self.tmp.as_fd(),
            name.as_str(),
            flags,
            Mode::from_bits_truncate(0o600),
        )
        .map_err(|e| self.tmp_error(&name, e.into()))?;
        Ok((name, File::from(fd)))
    }

    fn stage_whole(&self, len: u64, compressed: &[u8]) -> Result<Staged, CheckpointError> {
        let (name, mut file) = self.create_tmp()?;
        let written = file
            .write_all(&header(len))
            .and_then(|()| file.write_all(compressed));
        if let Err(e) = written {
            let _ = unlinkat(self.tmp.as_fd(), name.as_str(), UnlinkatFlags::NoRemoveDir);
            return Err(self.tmp_error(&name, e));
        }
        Ok(Staged {
            name,
            stored_bytes: (HEADER_BYTES + compressed.len()) as u64,
        })
    }

    fn tmp_error(&self, name: &str, e: io::Error) -> CheckpointError {
        CheckpointError::io(
            "write a checkpoint file",
            self.path.join("tmp").join(name),
            e,
        )
    }

    /// Removes what a killed writer left in `tmp/`.
    fn clear_tmp(&self) -> Result<(), CheckpointError> {
        let dir = self.path.join("tmp");
        let entries = std::fs::read_dir(&dir).map_err(|e| CheckpointError::io("list", &dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| CheckpointError::io("list", &dir, e))?;
            let name = entry.file_name();
            match unlinkat(
                self.tmp.as_fd(),
                name.as_os_str(),
                UnlinkatFlags::NoRemoveDir,
            ) {
                Ok(()) | Err(Errno::ENOENT) => {}
                Err(e) => {
                    return Err(CheckpointError::io("remove", dir.join(name), e.into()));
                }
            }
        }
        Ok(())
    }

    /// Counts the files already kept (a resumed session's store) toward the budget and
    /// learns which contents are there.
    fn count_existing(&self) -> Result<(), CheckpointError> {
        let mut used = 0u64;
        let mut known = HashSet::new();
        let objects = self.path.join("objects");
        let list =
            |dir: &Path| std::fs::read_dir(dir).map_err(|e| CheckpointError::io("list", dir, e));
        for fan in list(&objects)? {
            let fan = fan.map_err(|e| CheckpointError::io("list", &objects, e))?;
            let Some(prefix) = fan.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if prefix.len() != 2 || !fan.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let fan_path = fan.path();
            for object in list(&fan_path)? {
                let object = object.map_err(|e| CheckpointError::io("list", &fan_path, e))?;
                let Some(rest) = object.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                let Some(digest) = Digest::from_hex(&format!("{prefix}{rest}")) else {
                    continue;
                };
                let meta = object
                    .metadata()
                    .map_err(|e| CheckpointError::io("inspect", object.path(), e))?;
                used = used.saturating_add(meta.len());
                known.insert(digest);
            }
        }
        let manifests = self.path.join("manifests");
        for manifest in list(&manifests)? {
            let manifest = manifest.map_err(|e| CheckpointError::io("list", &manifests, e))?;
            let meta = manifest
                .metadata()
                .map_err(|e| CheckpointError::io("inspect", manifest.path(), e))?;
            used = used.saturating_add(meta.len());
        }
        self.used.store(used, Ordering::Relaxed);
        *self.known_set() = known;
        Ok(())
    }
}

/// A content being compressed into `tmp/` chunk by chunk.
pub(crate) struct StagedWriter<'s> {
    store: &'s Store,
    name: String,
    encoder: Option<zstd::stream::write::Encoder<'static, BufWriter<File>>>,
    len: u64,
}

impl StagedWriter<'_> {
    /// Appends a chunk of the content.
    pub(crate) fn write(&mut self, chunk: &[u8]) -> Result<(), CheckpointError> {
        let Some(encoder) = self.encoder.as_mut() else {
            return Ok(());
        };
        encoder
            .write_all(chunk)
            .map_err(|e| self.store.tmp_error(&self.name, e))?;
        self.len += chunk.len() as u64;
        Ok(())
    }

    /// Ends the frame and writes the header.
    pub(crate) fn finish(mut self) -> Result<Staged, CheckpointError> {
        let name = std::mem::take(&mut self.name);
        let encoder = self.encoder.take();
        let finished = encoder
            .ok_or_else(|| io::Error::other("the writer was already finished"))
            .and_then(|e| e.finish())
            .and_then(|out| out.into_inner().map_err(|e| e.into_error()))
            .and_then(|file| {
                file.write_all_at(&header(self.len), 0)?;
                Ok(file.metadata()?.len())
            });
        match finished {
            Ok(stored_bytes) => Ok(Staged { name, stored_bytes }),
            Err(e) => {
                let _ = unlinkat(
                    self.store.tmp.as_fd(),
                    name.as_str(),
                    UnlinkatFlags::NoRemoveDir,
                );
                Err(self.store.tmp_error(&name, e))
            }
        }
    }
}

impl Drop for StagedWriter<'_> {
    fn drop(&mut self) {
        if self.encoder.is_some() {
            // Abandoned mid-content (a read failed): the staged file is of no use.
            let _ = unlinkat(
                self.store.tmp.as_fd(),
                self.name.as_str(),
                UnlinkatFlags::NoRemoveDir,
            );
        }
    }
}

thread_local! {
    /// One compression context per thread: creating one per content cost more than
    /// compressing a small file.
    static COMPRESSOR: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
}

fn compress(content: &[u8]) -> io::Result<Vec<u8>> {
    COMPRESSOR.with(|cell| {
        let mut cell = cell.borrow_mut();
        let compressor = match cell.as_mut() {
            Some(compressor) => compressor,
            None => cell.insert(zstd::bulk::Compressor::new(LEVEL)?),
        };
        compressor.compress(content)
    })
}

fn header(len: u64) -> [u8; HEADER_BYTES] {
    let mut out = [0u8; HEADER_BYTES];
    out[..8].copy_from_slice(OBJECT_MAGIC);
    out[8..].copy_from_slice(&len.to_le_bytes());
    out
}

/// `objects/` fan-out directory and file name of a digest.
fn object_name(digest: &Digest) -> (String, String) {
    let hex = to_lower_hex(&digest.0);
    let (dir, name) = hex.split_at(2);
    (dir.to_owned(), name.to_owned())
}

/// Reads one stored file: the header, then exactly the length it claims from the frame.
fn read_framed(mut file: File) -> Result<Vec<u8>, String> {
    let mut head = [0u8; HEADER_BYTES];
    file.read_exact(&mut head)
        .map_err(|e| format!("its header cannot be read: {e}"))?;
    if &head[..8] != OBJECT_MAGIC {
        return Err("its header is not a checkpoint file's".to_owned());
    }
    let mut len_bytes = [0u8; 8];
    len_bytes.copy_from_slice(&head[8..]);
    let len = u64::from_le_bytes(len_bytes);
    if len > MAX_STORED_BYTES {
        return Err(format!(
            "its header claims {len} bytes, over any kept content"
        ));
    }
    let mut decoder = zstd::stream::read::Decoder::new(file)
        .map_err(|e| format!("it cannot be decompressed: {e}"))?;
    decoder
        .window_log_max(WINDOW_LOG_MAX)
        .map_err(|e| format!("it cannot be decompressed: {e}"))?;
    let mut out = Vec::new();
    decoder
        .take(len + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("it does not decompress: {e}"))?;
    if out.len() as u64 != len {
        return Err(format!(
            "it decompresses to {} bytes where its header says {len}",
            out.len()
        ));
    }
    Ok(out)
}

/// Creates `dir` (and missing parents) with mode 0700 unless it exists.
fn create_private_dir(dir: &Path) -> Result<(), CheckpointError> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => Ok(()),
        Err(e) => Err(CheckpointError::io("create the checkpoint store", dir, e)),
    }
}

/// Opens a directory without following a final symlink (a symlinked store is refused).
fn open_dir_at(dir: Option<BorrowedFd<'_>>, name: &OsStr) -> io::Result<OwnedFd> {
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let fd = match dir {
        Some(dir) => openat(dir, name, flags, Mode::empty())?,
        None => nix::fcntl::open(Path::new(name), flags, Mode::empty())?,
    };
    Ok(fd)
}

fn open_file_at(dir: BorrowedFd<'_>, name: &str) -> io::Result<File> {
    let flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let fd = openat(dir, name, flags, Mode::empty())?;
    let file = File::from(fd);
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a regular file",
        ));
    }
    Ok(file)
}

fn exists_at(dir: BorrowedFd<'_>, name: &str) -> bool {
    fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)
        .is_ok_and(|st| SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG)
}

/// Restores read kept contents through this: a damaged object is `Corrupt` naming its digest,
/// so the restore refuses before anything changes.
impl crate::checkpoint::restore::ObjectSource for Store {
    fn object(&self, digest: &Digest) -> Result<Vec<u8>, crate::checkpoint::restore::SourceError> {
        use crate::checkpoint::restore::SourceError;
        Store::object(self, digest).map_err(|e| match e {
            CheckpointError::MissingObject(d) => SourceError::Missing(d),
            CheckpointError::CorruptObject { digest, .. } => SourceError::Corrupt(digest),
            other => SourceError::Io(other.to_string()),
        })
    }
}

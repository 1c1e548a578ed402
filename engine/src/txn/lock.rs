//! The `.ash` state directory and the two mutation locks: a per-process set of busy workspaces
//! and an OS advisory lock on `.ash/LOCK`, both polled every 10 ms while checking the stop
//! conditions.

use super::{Stop, TxnError, fsx, io_err};
use crate::workspace::{STATE_DIR, STATE_FORMAT_MARKER, Workspace};
use std::collections::HashSet;
use std::fs::{self, DirBuilder, File, OpenOptions, Permissions, TryLockError};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

const POLL: Duration = Duration::from_millis(10);

/// Workspaces this process is mutating right now.
static BUSY: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// Both locks on one workspace; dropping releases them.
pub(crate) struct Locked {
    root: PathBuf,
    // The OS lock lives as long as the open file description.
    _file: File,
}

impl Drop for Locked {
    fn drop(&mut self) {
        let mut busy = BUSY.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(set) = busy.as_mut() {
            set.remove(&self.root);
        }
    }
}

/// Returns `<root>/.ash`, creating it (0700, with `FORMAT`) when absent; a `.ash` without our
/// marker is never taken over.
pub(crate) fn ensure_state_dir(ws: &Workspace) -> Result<PathBuf, TxnError> {
    let dir = ws.root().join(STATE_DIR);
    match fs::symlink_metadata(&dir) {
        Ok(_) => {}
        Err(e) if fsx::is_missing(&e) => create_state_dir(ws.root(), &dir)?,
        Err(e) => return Err(io_err("inspecting", &dir, &e)),
    }
    if ws.has_state_dir() {
        Ok(dir)
    } else {
        Err(TxnError::ForeignStateDir(format!(
            "{} exists but is not an ash state directory (no valid FORMAT marker); \
             move it away to allow mutations",
            dir.display()
        )))
    }
}

/// Builds the directory under a private name and renames it into place without replacing, so
/// `.ash` never exists without its marker and a concurrent creator simply wins.
fn create_state_dir(root: &Path, dir: &Path) -> Result<(), TxnError> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let temp = root.join(format!(".ash.new-{}-{nanos}", std::process::id()));
    DirBuilder::new()
        .mode(0o700)
        .create(&temp)
        .map_err(|e| io_err("creating", &temp, &e))?;
    let built = (|| {
        fs::set_permissions(&temp, Permissions::from_mode(0o700))?;
        fsx::write_new(&temp.join("FORMAT"), STATE_FORMAT_MARKER, Some(0o600))?;
        fsx::sync_dir(&temp)?;
        let root_fd = File::open(root)?;
        nix::fcntl::renameat2(
            &root_fd,
            &temp,
            &root_fd,
            dir,
            nix::fcntl::RenameFlags::RENAME_NOREPLACE,
        )
        .map_err(std::io::Error::from)?;
        fsx::sync(&root_fd)
    })();
    if let Err(e) = built {
        let _ = fs::remove_dir_all(&temp);
        // Someone else created `.ash` first: use (or refuse) theirs.
        if e.kind() != std::io::ErrorKind::AlreadyExists {
            return Err(io_err("creating", dir, &e));
        }
    }
    Ok(())
}

/// Takes the per-process workspace slot, then the OS lock on `.ash/LOCK`.
pub(crate) fn acquire(ws: &Workspace, state: &Path, stop: &Stop) -> Result<Locked, TxnError> {
    let root = ws.root().to_path_buf();
    loop {
        stop.check()?;
        let mut busy = BUSY.lock().unwrap_or_else(PoisonError::into_inner);
        if busy.get_or_insert_with(HashSet::new).insert(root.clone()) {
            break;
        }
        drop(busy);
        std::thread::sleep(POLL);
    }
    let lock_path = state.join("LOCK");
    let file = match OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(&lock_path)
    {
        Ok(file) => file,
        Err(e) => {
            release_slot(&root);
            return Err(io_err("opening", &lock_path, &e));
        }
    };
    loop {
        if let Err(halt) = stop.check() {
            release_slot(&root);
            return Err(halt.into());
        }
        match file.try_lock() {
            Ok(()) => return Ok(Locked { root, _file: file }),
            Err(TryLockError::WouldBlock) => std::thread::sleep(POLL),
            Err(TryLockError::Error(e)) => {
                release_slot(&root);
                return Err(io_err("locking", &lock_path, &e));
            }
        }
    }
}

fn release_slot(root: &Path) {
    let mut busy = BUSY.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(set) = busy.as_mut() {
        set.remove(root);
    }
}

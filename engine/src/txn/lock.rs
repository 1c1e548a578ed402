//! The `.ash` state directory and the two mutation locks: a per-process set of busy workspaces
//! and an OS advisory lock on `.ash/LOCK`, both polled every 10 ms while checking the stop
//! conditions.

use super::{Stop, TxnError, fsx, io_err};
use crate::files::workspace::{STATE_DIR, STATE_FORMAT_MARKER, Workspace};
use nix::fcntl::{OFlag, openat};
use nix::sys::stat::Mode;
use std::collections::HashSet;
use std::fs::{File, Permissions, TryLockError};
use std::os::unix::fs::PermissionsExt;
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

/// Makes sure `<root>/.ash` is our state directory, creating it (0700, with `FORMAT`) when
/// absent; a `.ash` without our marker is never taken over.
pub(crate) fn ensure_state_dir(ws: &Workspace) -> Result<(), TxnError> {
    match fsx::probe(ws, STATE_DIR) {
        Ok(Some(_)) => {}
        Ok(None) => create_state_dir(ws)?,
        Err(e) => return Err(io_err("inspecting", STATE_DIR, &e)),
    }
    if ws.has_state_dir() {
        Ok(())
    } else {
        Err(TxnError::ForeignStateDir(format!(
            "{} exists but is not an ash state directory (no valid FORMAT marker); \
             move it away to allow mutations",
            ws.root().join(STATE_DIR).display()
        )))
    }
}

/// True when the workspace has no `.ash` of any kind yet (an unreadable root counts as
/// present, so the caller takes the locked path and reports the failure there).
pub(crate) fn state_dir_absent(ws: &Workspace) -> bool {
    matches!(fsx::probe(ws, STATE_DIR), Ok(None))
}

/// Builds the directory under a private name and renames it into place without replacing, so
/// `.ash` never exists without its marker and a concurrent creator simply wins. The private
/// directory is flocked while it is built: that lock, with the PID in its name, is how
/// [`super::litter`] tells a creator at work from the remains of a killed one.
fn create_state_dir(ws: &Workspace) -> Result<(), TxnError> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let temp = super::litter::temp_name(std::process::id(), nanos);
    fsx::mkdir(ws, &temp, 0o700).map_err(|e| io_err("creating", &temp, &e))?;
    let built = (|| {
        let dir = File::from(ws.open_dir(&temp)?);
        dir.lock()?;
        dir.set_permissions(Permissions::from_mode(0o700))?;
        fsx::write_new(
            ws,
            &format!("{temp}/FORMAT"),
            STATE_FORMAT_MARKER,
            // The directory is private (0700); the files take the umask like the reference's.
            None,
        )?;
        fsx::sync_dir(ws, &temp)?;
        super::crash::state_dir();
        fsx::rename_new(ws, &temp, STATE_DIR)?;
        fsx::sync_dir(ws, ".")
    })();
    if let Err(e) = built {
        let _ = fsx::remove_tree(ws, &temp);
        // Someone else created `.ash` first: use (or refuse) theirs.
        if e.kind() != std::io::ErrorKind::AlreadyExists {
            return Err(io_err("creating", STATE_DIR, &e));
        }
    }
    Ok(())
}

/// Takes the per-process workspace slot, then the OS lock on `.ash/LOCK`.
pub(crate) fn acquire(ws: &Workspace, stop: &Stop) -> Result<Locked, TxnError> {
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
    let file = match open_lock(ws) {
        Ok(file) => file,
        Err(e) => {
            release_slot(&root);
            return Err(e);
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
                return Err(io_err("locking", LOCK, &e));
            }
        }
    }
}

const LOCK: &str = ".ash/LOCK";

/// Opens (creating) `.ash/LOCK` without following a symlink.
fn open_lock(ws: &Workspace) -> Result<File, TxnError> {
    ws.locate(LOCK)
        .and_then(|at| {
            let flags = OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
            openat(at.dir(), at.name(), flags, Mode::from_bits_truncate(0o666))
                .map(File::from)
                .map_err(std::io::Error::from)
        })
        .map_err(|e| io_err("opening", LOCK, &e))
}

fn release_slot(root: &Path) {
    let mut busy = BUSY.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(set) = busy.as_mut() {
        set.remove(root);
    }
}

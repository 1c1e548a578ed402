//! File modes, directory fsync and atomic small-file writes.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use crate::error::{Result, SessionError};

/// Mode of session directories.
pub const DIR_MODE: u32 = 0o700;
/// Mode of journal parts and other session files.
pub const FILE_MODE: u32 = 0o600;

/// Fails when `path` grants any access to group or others.
pub(crate) fn check_private(path: &Path, expected: u32) -> Result<()> {
    let meta = fs::metadata(path).map_err(|e| SessionError::io("cannot inspect", path, e))?;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(SessionError::InsecurePermissions {
            path: path.to_owned(),
            mode,
            expected,
        });
    }
    Ok(())
}

/// Creates `path` (and missing parents) with mode 0700; an existing directory must be private.
pub(crate) fn create_private_dir(path: &Path) -> Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(path)
        .map_err(|e| SessionError::io("cannot create directory", path, e))?;
    check_private(path, DIR_MODE)
}

/// Fsyncs a directory so that entries created in it survive a crash.
pub(crate) fn sync_dir(path: &Path) -> io::Result<()> {
    File::open(path)?.sync_all()
}

/// Writes a small file atomically (temp file, fsync, rename, directory fsync), mode 0600.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let write = || -> io::Result<()> {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(FILE_MODE)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_data()?;
        fs::rename(&tmp, path)?;
        sync_dir(dir)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        SessionError::io("cannot write", path, e)
    })
}

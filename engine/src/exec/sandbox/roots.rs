//! The writable roots of a sandboxed command, pinned to the directories they were when the
//! session's sandbox was set up: each root is opened without following a symlink in any
//! component, and its (device, inode) must still be the recorded one on every exec. A
//! sandboxed command could otherwise move a root away and put a symlink to any directory in
//! its place, and the next command's rules would grant writes there.

use super::error::SandboxError;
use nix::fcntl::{OFlag, openat};
use nix::sys::stat::{Mode, fstat};
use std::collections::HashMap;
use std::fmt;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};

/// The identity of a directory: its device and inode numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DirId {
    /// `st_dev`.
    pub dev: u64,
    /// `st_ino`.
    pub ino: u64,
}

impl fmt::Display for DirId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.dev, self.ino)
    }
}

/// Text that is not `DEV:INO` in decimal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a directory identity DEV:INO")]
pub struct BadDirId(pub String);

impl FromStr for DirId {
    type Err = BadDirId;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadDirId(s.to_owned());
        let (dev, ino) = s.split_once(':').ok_or_else(bad)?;
        Ok(DirId {
            dev: dev.parse().map_err(|_| bad())?,
            ino: ino.parse().map_err(|_| bad())?,
        })
    }
}

/// A writable root and the directory it must still be.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WritableRoot {
    /// The absolute path, without symlinks.
    pub path: PathBuf,
    /// The directory recorded when the sandbox was set up.
    pub id: DirId,
}

impl WritableRoot {
    /// Opens the root without following symlinks and checks it is still the recorded
    /// directory; the descriptor is what the rule is built on, so nothing is looked up by
    /// path afterwards.
    pub(crate) fn open_checked(&self) -> Result<OwnedFd, SandboxError> {
        // Gone, a symlink now, or another directory: in each case no longer the one pinned.
        let opened = open_dir_nofollow(&self.path).ok();
        let Some((fd, now)) = opened else {
            return Err(SandboxError::RootReplaced {
                path: self.path.clone(),
            });
        };
        if now != self.id {
            return Err(SandboxError::RootReplaced {
                path: self.path.clone(),
            });
        }
        Ok(fd)
    }
}

/// Opens the absolute directory `path` as an `O_PATH` descriptor, component by component
/// with `O_NOFOLLOW`, so a symlink anywhere on the way is refused rather than followed.
pub(crate) fn open_dir_nofollow(path: &Path) -> Result<(OwnedFd, DirId), SandboxError> {
    let missing = |reason: String| SandboxError::WritableMissing {
        path: path.to_path_buf(),
        reason,
    };
    if !path.is_absolute() {
        return Err(SandboxError::WritableNotAbsolute(path.to_path_buf()));
    }
    let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let mut fd = nix::fcntl::open("/", flags, Mode::empty()).map_err(|e| missing(e.to_string()))?;
    for component in path.components() {
        match component {
            Component::RootDir => {}
            Component::Normal(name) => {
                fd = openat(fd.as_fd(), name, flags, Mode::empty()).map_err(|e| {
                    if matches!(e, nix::Error::ELOOP | nix::Error::ENOTDIR) {
                        missing(format!(
                            "{} is a symlink or not a directory (writable roots are opened without following symlinks; list the real directory)",
                            name.to_string_lossy()
                        ))
                    } else {
                        missing(e.to_string())
                    }
                })?;
            }
            Component::CurDir | Component::ParentDir | Component::Prefix(_) => {
                return Err(missing(
                    "the path has `.` or `..` components; list the real directory".to_owned(),
                ));
            }
        }
    }
    let st = fstat(fd.as_fd()).map_err(|e| missing(e.to_string()))?;
    Ok((fd, id_of(&st)))
}

/// The identity in a `stat` result.
pub(crate) fn id_of(st: &nix::sys::stat::FileStat) -> DirId {
    // st_dev/st_ino are u64 on every Linux target this crate builds for.
    #[allow(clippy::useless_conversion, reason = "u64 on 64-bit targets already")]
    DirId {
        dev: u64::from(st.st_dev),
        ino: u64::from(st.st_ino),
    }
}

/// The identities of roots this process has seen, recorded on first sight. The first
/// sandboxed command of a session runs after that, so no sandboxed command can have swapped
/// a root before it was recorded.
fn pins() -> &'static Mutex<HashMap<PathBuf, DirId>> {
    static PINS: OnceLock<Mutex<HashMap<PathBuf, DirId>>> = OnceLock::new();
    PINS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// `path` pinned: its identity recorded now if it is new to this process, checked against
/// the record otherwise.
pub(crate) fn pin(path: &Path) -> Result<WritableRoot, SandboxError> {
    let mut table = pins()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(id) = table.get(path) {
        let root = WritableRoot {
            path: path.to_path_buf(),
            id: *id,
        };
        root.open_checked()?;
        return Ok(root);
    }
    let (_fd, id) = open_dir_nofollow(path)?;
    table.insert(path.to_path_buf(), id);
    Ok(WritableRoot {
        path: path.to_path_buf(),
        id,
    })
}

/// Records `path` as the directory `id` (the workspace, whose identity comes from the
/// engine's open root descriptor) and checks the path still leads there.
pub(crate) fn pin_as(path: &Path, id: DirId) -> Result<WritableRoot, SandboxError> {
    let root = WritableRoot {
        path: path.to_path_buf(),
        id,
    };
    root.open_checked()?;
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_bad_text_is_refused() {
        let id = DirId { dev: 2049, ino: 17 };
        assert_eq!(id.to_string().parse::<DirId>(), Ok(id));
        for bad in ["", "1", "1:", ":2", "a:b", "1:2:3"] {
            assert!(bad.parse::<DirId>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_symlinked_component_is_refused() {
        let dir = std::env::temp_dir().join(format!("ash-roots-{}", std::process::id()));
        let real = dir.join("real");
        std::fs::create_dir_all(&real).expect("mkdir");
        let link = dir.join("link");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        assert!(open_dir_nofollow(&real).is_ok());
        let err = open_dir_nofollow(&link.join(".")).expect_err("dot");
        assert!(matches!(err, SandboxError::WritableMissing { .. }), "{err}");
        let err = open_dir_nofollow(&link).expect_err("symlink");
        assert!(err.to_string().contains("symlink"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! Race-free lookups below the workspace root.
//!
//! Every lookup starts at a directory file descriptor held for the root and goes one component
//! at a time through directory descriptors, so a directory that a hostile process swaps for a
//! symlink between a check and a use can never redirect an operation outside the root
//! (`docs/security.md`). Two rules exist:
//!
//! - [`Beneath::locate`] follows no symlink at all: every parent must be a real directory and
//!   the final name is looked at, never through. Walks, search, snapshot and every mutation use it.
//! - [`Beneath::follow`] follows symlinks the way `realpath` does (ASH/1 §3.3: read and walk roots
//!   follow in-workspace links), but resolves each link itself, relative to the directory
//!   descriptor it was found in, and reports the canonical logical path.
//!
//! On Linux the no-follow walk of a path's parents is one `openat2` call with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`; where `openat2` is missing (old kernels, seccomp
//! filters) it falls back to one `openat(O_DIRECTORY | O_NOFOLLOW)` per component.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
#[cfg(target_os = "linux")]
use std::sync::atomic::{AtomicBool, Ordering};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat, readlinkat};
use nix::sys::stat::{FileStat, Mode, SFlag, fstatat};

/// Symlinks one resolution may follow before it fails with `ELOOP`, as the kernel does.
const MAX_SYMLINK_HOPS: usize = 40;

/// An entry reached without leaving the root: the open directory that holds it and its name
/// there (`.` for a directory named by its own descriptor, such as the root).
#[derive(Debug, Clone)]
pub struct At {
    dir: Arc<OwnedFd>,
    name: OsString,
}

impl At {
    /// The entry `name` in the open directory `dir`.
    pub(crate) fn new(dir: Arc<OwnedFd>, name: OsString) -> At {
        At { dir, name }
    }

    /// The directory descriptor holding the entry.
    pub fn dir(&self) -> BorrowedFd<'_> {
        self.dir.as_fd()
    }

    /// The entry's name in [`At::dir`].
    pub fn name(&self) -> &OsStr {
        &self.name
    }

    /// `lstat` of the entry: a symlink is described, not followed.
    pub fn stat(&self) -> io::Result<FileStat> {
        fstatat(
            self.dir.as_fd(),
            self.name.as_os_str(),
            AtFlags::AT_SYMLINK_NOFOLLOW,
        )
        .map_err(io::Error::from)
    }

    /// Opens the entry for reading. A final symlink fails (`ELOOP`) and a fifo does not block;
    /// callers check the type on the handle.
    pub fn open_read(&self) -> io::Result<File> {
        let flags = OFlag::O_RDONLY
            | OFlag::O_NOFOLLOW
            | OFlag::O_NONBLOCK
            | OFlag::O_NOCTTY
            | OFlag::O_CLOEXEC;
        let fd = openat(
            self.dir.as_fd(),
            self.name.as_os_str(),
            flags,
            Mode::empty(),
        )?;
        Ok(File::from(fd))
    }

    /// Opens the entry as a directory; a symlink or anything but a directory fails.
    pub fn open_dir(&self) -> io::Result<OwnedFd> {
        open_dir_at(self.dir.as_fd(), &self.name)
    }

    /// The raw target of a symlink.
    pub fn read_link(&self) -> io::Result<OsString> {
        readlinkat(self.dir.as_fd(), self.name.as_os_str()).map_err(io::Error::from)
    }
}

/// Opens `name` in `dir` as a directory without following a symlink.
pub(crate) fn open_dir_at(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<OwnedFd> {
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    openat(dir, name, flags, Mode::empty()).map_err(io::Error::from)
}

/// The file type bits of a stat.
pub fn type_of(stat: &FileStat) -> SFlag {
    SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT
}

/// What [`Beneath::follow`] found.
#[derive(Debug, Clone)]
pub struct Followed {
    /// The canonical target, never a symlink at the time it was found.
    pub at: At,
    /// The root-relative components of the canonical target (empty for the root itself).
    pub components: Vec<OsString>,
    /// The final requested component was itself a symlink.
    pub requested_is_symlink: bool,
}

/// Why [`Beneath::follow`] failed.
#[derive(Debug)]
pub enum FollowError {
    /// The canonical target lies outside the root.
    Escape,
    /// Looking up a component failed (missing, not a directory, too many links, …).
    Io(io::Error),
}

/// The root directory descriptor and the canonical absolute root path (used only to recognise
/// absolute symlink targets and to name paths in messages, never to open anything).
#[derive(Debug, Clone)]
pub struct Beneath {
    root: Arc<OwnedFd>,
    root_path: PathBuf,
}

impl Beneath {
    /// Opens `root_path`, which must already be canonical, as the root of lookups.
    pub fn open(root_path: &Path) -> io::Result<Beneath> {
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        let fd = nix::fcntl::open(root_path, flags, Mode::empty())?;
        Ok(Beneath {
            root: Arc::new(fd),
            root_path: root_path.to_path_buf(),
        })
    }

    /// The root itself as an entry.
    pub fn root_at(&self) -> At {
        At {
            dir: Arc::clone(&self.root),
            name: OsString::from("."),
        }
    }

    /// The entry `logical` names, following no symlink: each parent must be a real directory
    /// (a symlink gives `ELOOP`/`ENOTDIR`, a file `ENOTDIR`, a missing one `ENOENT`). The final
    /// name is not looked up. `logical` must be a valid logical path.
    pub fn locate(&self, logical: &str) -> io::Result<At> {
        if logical == "." {
            return Ok(self.root_at());
        }
        match logical.rsplit_once('/') {
            None => Ok(At {
                dir: Arc::clone(&self.root),
                name: OsString::from(logical),
            }),
            Some((parents, name)) => Ok(At {
                dir: Arc::new(self.open_dirs(parents)?),
                name: OsString::from(name),
            }),
        }
    }

    /// Opens the directory `logical` names, following no symlink on the way or at the end.
    pub fn open_dir(&self, logical: &str) -> io::Result<OwnedFd> {
        if logical == "." {
            return open_dir_at(self.root.as_fd(), OsStr::new("."));
        }
        self.open_dirs(logical)
    }

    /// Opens a `/`-separated chain of real directories below the root.
    fn open_dirs(&self, chain: &str) -> io::Result<OwnedFd> {
        #[cfg(target_os = "linux")]
        if let Some(result) = openat2_beneath(self.root.as_fd(), chain) {
            return result;
        }
        let mut parts = chain.split('/');
        let first = parts.next().unwrap_or(".");
        let mut dir = open_dir_at(self.root.as_fd(), OsStr::new(first))?;
        for part in parts {
            dir = open_dir_at(dir.as_fd(), OsStr::new(part))?;
        }
        Ok(dir)
    }

    /// Resolves `requested` (a valid logical path) like `realpath`, following symlinks that stay
    /// in the root; every step goes through a directory descriptor, so the result is below the
    /// root even while other processes rename and swap entries.
    pub fn follow(&self, requested: &str) -> Result<Followed, FollowError> {
        if let Some(direct) = self.follow_direct(requested) {
            return Ok(direct);
        }
        let mut walk = Walk::start(self, requested);
        let mut hops = 0usize;
        while let Some((component, original_last)) = walk.pending.pop_front() {
            if component == ".." {
                if walk.stack.len() == 1 {
                    walk.pending.push_front((component, false));
                    walk.reenter(self)?;
                } else {
                    walk.stack.pop();
                }
                continue;
            }
            let top = walk.top();
            let stat = fstatat(
                top.as_fd(),
                component.as_os_str(),
                AtFlags::AT_SYMLINK_NOFOLLOW,
            )
            .map_err(|e| FollowError::Io(e.into()))?;
            let kind = type_of(&stat);
            if kind == SFlag::S_IFLNK {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(FollowError::Io(Errno::ELOOP.into()));
                }
                if original_last {
                    walk.requested_is_symlink = true;
                }
                let target = readlinkat(top.as_fd(), component.as_os_str())
                    .map_err(|e| FollowError::Io(e.into()))?;
                walk.expand(self, &target)?;
                continue;
            }
            if walk.pending.is_empty() {
                let at = At {
                    dir: top,
                    name: component.clone(),
                };
                let mut components = walk.names();
                components.push(component);
                return Ok(Followed {
                    at,
                    components,
                    requested_is_symlink: walk.requested_is_symlink,
                });
            }
            match open_dir_at(top.as_fd(), &component) {
                Ok(fd) => walk.stack.push((Arc::new(fd), component)),
                // Swapped for a link since the stat: look at it again (bounded by the hops).
                Err(e) if e.raw_os_error() == Some(libc::ELOOP) && hops < MAX_SYMLINK_HOPS => {
                    hops += 1;
                    walk.pending.push_front((component, original_last));
                }
                Err(e) => return Err(FollowError::Io(e)),
            }
        }
        // Every component was consumed by `..` or a link to a directory already on the stack.
        Ok(walk.finish_at_top())
    }

    /// The common case in one `openat2` and one `fstatat`: no component of `requested` is a
    /// symlink, so it is its own canonical path. `None` sends every other case (a link
    /// anywhere, a missing or odd component) through the component walk, which decides.
    fn follow_direct(&self, requested: &str) -> Option<Followed> {
        let at = self.locate(requested).ok()?;
        let stat = at.stat().ok()?;
        if type_of(&stat) == SFlag::S_IFLNK {
            return None;
        }
        let components = if requested == "." {
            Vec::new()
        } else {
            requested.split('/').map(OsString::from).collect()
        };
        Some(Followed {
            at,
            components,
            requested_is_symlink: false,
        })
    }

    /// The absolute path a root-relative chain names, for messages and `realpath` only.
    pub fn display_path(&self, components: &[OsString]) -> PathBuf {
        let mut path = self.root_path.clone();
        path.extend(components);
        path
    }
}

/// The state of one [`Beneath::follow`]: the open directories from the root down, each with
/// its name in its parent, and the components still to resolve (with "is the requested path's
/// final component").
struct Walk {
    stack: Vec<(Arc<OwnedFd>, OsString)>,
    pending: VecDeque<(OsString, bool)>,
    requested_is_symlink: bool,
    root_path: PathBuf,
}

impl Walk {
    fn start(beneath: &Beneath, requested: &str) -> Walk {
        let mut pending: VecDeque<(OsString, bool)> = VecDeque::new();
        if requested != "." {
            let parts: Vec<&str> = requested.split('/').collect();
            let last = parts.len() - 1;
            for (i, part) in parts.into_iter().enumerate() {
                pending.push_back((OsString::from(part), i == last));
            }
        }
        Walk {
            stack: vec![(Arc::clone(&beneath.root), OsString::from("."))],
            pending,
            requested_is_symlink: false,
            root_path: beneath.root_path.clone(),
        }
    }

    fn top(&self) -> Arc<OwnedFd> {
        // The stack always holds the root.
        Arc::clone(&self.stack[self.stack.len() - 1].0)
    }

    fn names(&self) -> Vec<OsString> {
        self.stack[1..]
            .iter()
            .map(|(_, name)| name.clone())
            .collect()
    }

    /// Puts a link's target in front of the pending components.
    fn expand(&mut self, beneath: &Beneath, target: &OsStr) -> Result<(), FollowError> {
        let parts: Vec<OsString> = target
            .as_bytes()
            .split(|&b| b == b'/')
            .filter(|p| !p.is_empty() && *p != b".")
            .map(|p| OsStr::from_bytes(p).to_os_string())
            .collect();
        for part in parts.into_iter().rev() {
            self.pending.push_front((part, false));
        }
        if target.as_bytes().first() == Some(&b'/') {
            // Absolute: it names a place in the root only through the root's own path.
            let rest: PathBuf = self.pending.iter().map(|(p, _)| p.as_os_str()).collect();
            return self.reenter_from(beneath, Path::new("/").join(rest));
        }
        Ok(())
    }

    /// The walk is about to step above the root: ask `realpath` where the rest leads and, if
    /// that is inside the root, continue from the root with the canonical remainder.
    fn reenter(&mut self, beneath: &Beneath) -> Result<(), FollowError> {
        let mut path = self.root_path.clone();
        path.extend(self.names());
        path.extend(self.pending.iter().map(|(p, _)| p.as_os_str()));
        self.reenter_from(beneath, path)
    }

    fn reenter_from(&mut self, beneath: &Beneath, path: PathBuf) -> Result<(), FollowError> {
        // `realpath` only proposes a remainder; the descriptor walk below re-checks every step.
        let canonical = std::fs::canonicalize(&path).map_err(FollowError::Io)?;
        let Ok(relative) = canonical.strip_prefix(&self.root_path) else {
            return Err(FollowError::Escape);
        };
        self.stack.truncate(1);
        self.stack[0].0 = Arc::clone(&beneath.root);
        self.pending = relative
            .iter()
            .map(|part| (part.to_os_string(), false))
            .collect();
        Ok(())
    }

    fn finish_at_top(mut self) -> Followed {
        let components = self.names();
        let name = if self.stack.len() > 1 {
            self.stack.pop().map(|(_, name)| name)
        } else {
            None
        };
        Followed {
            at: At {
                dir: self.top(),
                name: name.unwrap_or_else(|| OsString::from(".")),
            },
            components,
            requested_is_symlink: self.requested_is_symlink,
        }
    }
}

/// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` of a directory chain; `None` when the
/// kernel or a seccomp filter does not offer `openat2` (then never asked again).
#[cfg(target_os = "linux")]
fn openat2_beneath(root: BorrowedFd<'_>, chain: &str) -> Option<io::Result<OwnedFd>> {
    use nix::fcntl::{OpenHow, ResolveFlag, openat2};
    static UNAVAILABLE: AtomicBool = AtomicBool::new(false);
    if UNAVAILABLE.load(Ordering::Relaxed) {
        return None;
    }
    let how = OpenHow::new()
        .flags(OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC)
        .resolve(
            ResolveFlag::RESOLVE_BENEATH
                | ResolveFlag::RESOLVE_NO_SYMLINKS
                | ResolveFlag::RESOLVE_NO_MAGICLINKS,
        );
    match openat2(root, chain, how) {
        Ok(fd) => Some(Ok(fd)),
        Err(Errno::ENOSYS | Errno::EPERM) => {
            UNAVAILABLE.store(true, Ordering::Relaxed);
            None
        }
        Err(e) => Some(Err(e.into())),
    }
}

//! Finding the object a notified call names, the way the kernel would for the target: a
//! relative path from the target's working directory (`/proc/PID/cwd`) or from its directory
//! descriptor (`/proc/PID/fd/N`), symlinks in the last component followed unless the call says
//! not to, `AT_EMPTY_PATH` naming the descriptor itself. Every step opens an `O_PATH`
//! descriptor, so the object acted on later is the one resolved here whatever the target does
//! to its paths meanwhile. Intermediate components are resolved with `RESOLVE_NO_MAGICLINKS`,
//! and a symlink on procfs is never followed: `/proc/self/...` would mean the supervisor, not
//! the target, so such paths are refused.

use super::call::Dir;
use rustix::fs::{FileType, Mode, OFlags, ResolveFlags, Stat};
use rustix::io::Errno;
use std::ffi::OsStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

/// `MAXSYMLINKS` of the kernel's path walk.
const MAX_SYMLINKS: usize = 40;
/// `PROC_SUPER_MAGIC`.
const PROC_SUPER_MAGIC: i64 = 0x9fa0;

/// The object a call acts on.
pub(super) struct Resolved {
    /// An `O_PATH` descriptor of the object itself (a symlink when not followed).
    pub object: OwnedFd,
    /// Its `stat` when it was opened.
    pub stat: Stat,
    /// For a non-directory, the directory it was found in (its identity is where it lies);
    /// `None` for a directory, whose own `..` chain says where it lies.
    pub parent: Option<OwnedFd>,
}

impl Resolved {
    fn new(object: OwnedFd, parent: Option<OwnedFd>) -> Result<Resolved, Errno> {
        let stat = rustix::fs::fstat(&object)?;
        let parent = if is_dir(&stat) { None } else { parent };
        Ok(Resolved {
            object,
            stat,
            parent,
        })
    }

    /// Whether the object is a symlink (lchown, `AT_SYMLINK_NOFOLLOW`).
    pub(super) fn is_symlink(&self) -> bool {
        FileType::from_raw_mode(self.stat.st_mode) == FileType::Symlink
    }
}

pub(super) fn is_dir(stat: &Stat) -> bool {
    FileType::from_raw_mode(stat.st_mode) == FileType::Directory
}

fn path_flags() -> OFlags {
    OFlags::PATH | OFlags::CLOEXEC
}

/// The object behind descriptor `fd` of process `pid`.
pub(super) fn descriptor(pid: u32, fd: i32) -> Result<Resolved, Errno> {
    if fd < 0 {
        return Err(Errno::BADF);
    }
    let object = open_proc(pid, &format!("fd/{fd}"))
        .map_err(|e| if e == Errno::NOENT { Errno::BADF } else { e })?;
    let parent = linked_parent(&object);
    Resolved::new(object, parent)
}

/// Opens `/proc/PID/what` following its magic link: the one place the supervisor follows
/// one, on a path it built itself.
fn open_proc(pid: u32, what: &str) -> Result<OwnedFd, Errno> {
    rustix::fs::open(format!("/proc/{pid}/{what}"), path_flags(), Mode::empty())
}

/// The directory in which a non-directory object opened through a descriptor is linked now,
/// found through the kernel's name for it and checked to hold that very object; `None` when
/// the object has no name any more (deleted) or its name moved meanwhile.
fn linked_parent(object: &OwnedFd) -> Option<OwnedFd> {
    let stat = rustix::fs::fstat(object).ok()?;
    if is_dir(&stat) {
        return None;
    }
    let name = std::fs::read_link(format!("/proc/self/fd/{}", raw(object.as_fd()))).ok()?;
    let (dir, last) = (name.parent()?, name.file_name()?);
    if !name.is_absolute() {
        return None;
    }
    let parent = rustix::fs::openat2(
        rustix::fs::CWD,
        dir,
        path_flags() | OFlags::DIRECTORY,
        Mode::empty(),
        ResolveFlags::NO_MAGICLINKS | ResolveFlags::NO_SYMLINKS,
    )
    .ok()?;
    let there = rustix::fs::statat(&parent, last, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
    (there.st_dev == stat.st_dev && there.st_ino == stat.st_ino).then_some(parent)
}

fn raw(fd: BorrowedFd<'_>) -> i32 {
    std::os::fd::AsRawFd::as_raw_fd(&fd)
}

/// The object at `path` for process `pid`, relative to `dir`.
pub(super) fn path(
    pid: u32,
    dir: Dir,
    path: &[u8],
    follow: bool,
    empty_ok: bool,
) -> Result<Resolved, Errno> {
    if path.is_empty() {
        if !empty_ok {
            return Err(Errno::NOENT);
        }
        return match dir {
            Dir::Cwd => {
                let object = open_proc(pid, "cwd")?;
                Resolved::new(object, None)
            }
            Dir::Fd(fd) => descriptor(pid, fd),
        };
    }
    let path = own_proc_view(pid, path);
    let path = path.as_slice();
    // glibc emulates lchmod and friends by chmod-ing `/proc/self/fd/N` of an O_PATH
    // descriptor: the target's own descriptor, which the kernel follows for it.
    if follow && let Some(fd) = own_descriptor(pid, path) {
        return descriptor(pid, fd);
    }
    let base = if path.first() == Some(&b'/') {
        rustix::fs::open("/", path_flags() | OFlags::DIRECTORY, Mode::empty())?
    } else {
        let base = match dir {
            Dir::Cwd => open_proc(pid, "cwd")?,
            Dir::Fd(fd) if fd < 0 => return Err(Errno::BADF),
            Dir::Fd(fd) => open_proc(pid, &format!("fd/{fd}"))
                .map_err(|e| if e == Errno::NOENT { Errno::BADF } else { e })?,
        };
        if !is_dir(&rustix::fs::fstat(&base)?) {
            return Err(Errno::NOTDIR);
        }
        base
    };
    walk(base, path.to_vec(), follow)
}

/// `path` with `/proc/self/` and `/proc/thread-self/` spelled as the target's own
/// `/proc/PID/` (PID is the calling thread's id, under which procfs also lists it), since the
/// supervisor resolving them would otherwise reach itself.
fn own_proc_view(pid: u32, path: &[u8]) -> Vec<u8> {
    for prefix in [&b"/proc/self/"[..], b"/proc/thread-self/"] {
        if let Some(rest) = path.strip_prefix(prefix) {
            let mut out = format!("/proc/{pid}/").into_bytes();
            out.extend_from_slice(rest);
            return out;
        }
    }
    path.to_vec()
}

/// N when `path` is exactly `/proc/PID/fd/N` for the target's PID.
fn own_descriptor(pid: u32, path: &[u8]) -> Option<i32> {
    let rest = path.strip_prefix(format!("/proc/{pid}/fd/").as_bytes())?;
    let text = std::str::from_utf8(rest).ok()?;
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Resolves `path` from `base`: all but the last component by `openat2`, the last one by
/// hand so that a symlink there is followed (from the directory it is in) only when asked.
fn walk(mut base: OwnedFd, mut path: Vec<u8>, mut follow: bool) -> Result<Resolved, Errno> {
    for _ in 0..=MAX_SYMLINKS {
        let mut p: &[u8] = &path;
        let mut must_dir = false;
        while p.len() > 1 && p.ends_with(b"/") {
            p = &p[..p.len() - 1];
            must_dir = true;
        }
        if p == b"/" {
            let root = rustix::fs::open("/", path_flags() | OFlags::DIRECTORY, Mode::empty())?;
            return Resolved::new(root, None);
        }
        let (dir_part, last): (&[u8], &[u8]) = match p.iter().rposition(|b| *b == b'/') {
            Some(at) => (&p[..=at], &p[at + 1..]),
            None => (b".", p),
        };
        let parent = rustix::fs::openat2(
            &base,
            OsStr::from_bytes(dir_part),
            path_flags() | OFlags::DIRECTORY,
            Mode::empty(),
            ResolveFlags::NO_MAGICLINKS,
        )?;
        let last = OsStr::from_bytes(last);
        if last == "." || last == ".." {
            let object = rustix::fs::openat(
                &parent,
                last,
                path_flags() | OFlags::DIRECTORY,
                Mode::empty(),
            )?;
            return Resolved::new(object, None);
        }
        let object = rustix::fs::openat(
            &parent,
            last,
            path_flags() | OFlags::NOFOLLOW,
            Mode::empty(),
        )?;
        let stat = rustix::fs::fstat(&object)?;
        let symlink = FileType::from_raw_mode(stat.st_mode) == FileType::Symlink;
        if symlink && (follow || must_dir) {
            if on_procfs(&parent) {
                return Err(Errno::PERM);
            }
            let target = rustix::fs::readlinkat(&object, "", Vec::new())?;
            path = target.into_bytes();
            if must_dir {
                path.push(b'/');
            }
            base = parent;
            follow = true;
            continue;
        }
        if must_dir && !is_dir(&stat) {
            return Err(Errno::NOTDIR);
        }
        return Resolved::new(object, Some(parent));
    }
    Err(Errno::LOOP)
}

fn on_procfs(dir: &OwnedFd) -> bool {
    // Unknown counts as procfs: the symlink is then not followed.
    #[allow(
        clippy::useless_conversion,
        reason = "f_type is i64 on x86_64 glibc, narrower elsewhere"
    )]
    rustix::fs::fstatfs(dir).map_or(true, |s| i64::from(s.f_type) == PROC_SUPER_MAGIC)
}

/// Whether the object is itself one of the roots and a shared one (sticky, like /tmp and
/// /dev/shm): its own mode, owner and ACLs belong to every user of the machine, so a command
/// may change what lies beneath it but not the directory itself.
pub(super) fn is_shared_root(resolved: &Resolved, roots: &[crate::exec::sandbox::DirId]) -> bool {
    is_dir(&resolved.stat)
        && resolved.stat.st_mode & libc::S_ISVTX != 0
        && roots
            .iter()
            .any(|r| r.dev == resolved.stat.st_dev && r.ino == resolved.stat.st_ino)
}

/// Whether the object lies beneath (or is) one of the directories `roots`, by identity:
/// from the object (a directory) or the directory it was found in, up the `..` chain to `/`.
pub(super) fn beneath(resolved: &Resolved, roots: &[crate::exec::sandbox::DirId]) -> bool {
    let start = match (&resolved.parent, is_dir(&resolved.stat)) {
        (_, true) => resolved.object.as_fd(),
        (Some(parent), false) => parent.as_fd(),
        // A file with no name left cannot be placed: refused.
        (None, false) => return false,
    };
    let mut owned: Option<OwnedFd> = None;
    // Deeper than any real tree; a bound keeps a filesystem loop from spinning.
    for _ in 0..4096 {
        let cur = owned.as_ref().map_or(start, AsFd::as_fd);
        let Ok(st) = rustix::fs::fstat(cur) else {
            return false;
        };
        if roots
            .iter()
            .any(|r| r.dev == st.st_dev && r.ino == st.st_ino)
        {
            return true;
        }
        let Ok(up) = rustix::fs::openat(cur, "..", path_flags() | OFlags::DIRECTORY, Mode::empty())
        else {
            return false;
        };
        let Ok(up_st) = rustix::fs::fstat(&up) else {
            return false;
        };
        if up_st.st_dev == st.st_dev && up_st.st_ino == st.st_ino {
            return false;
        }
        owned = Some(up);
    }
    false
}

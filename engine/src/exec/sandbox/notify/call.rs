//! What one intercepted system call asks for, decoded from its number and raw arguments: the
//! file it names (a path relative to a directory, or a descriptor) and the change to make.
//! Pointers stay pointers here; [`super::memory`] reads them from the target.

use super::filter::{SYS_FCHMODAT2, SYS_REMOVEXATTRAT, SYS_SETXATTRAT};
use rustix::io::Errno;

/// The directory a relative path starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dir {
    /// The process's working directory (`AT_FDCWD`).
    Cwd,
    /// One of the process's descriptors.
    Fd(i32),
}

/// The file a call changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    /// A path in the target's memory, resolved from `dir`.
    Path {
        dir: Dir,
        path: u64,
        /// Whether a symlink in the last component is followed.
        follow: bool,
        /// `AT_EMPTY_PATH`: an empty path names `dir` itself.
        empty_ok: bool,
    },
    /// A descriptor of the target (`fchmod`, `fchown`, `futimens`, `fsetxattr`...).
    Fd(i32),
}

/// Where the new times are, in the target's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Times {
    /// A null pointer: both times become now.
    Now,
    /// `struct utimbuf` (seconds only).
    Utimbuf(u64),
    /// `struct timeval[2]`.
    Timeval(u64),
    /// `struct timespec[2]` (with `UTIME_NOW` / `UTIME_OMIT`).
    Timespec(u64),
}

/// The change a call makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    /// New permission bits.
    Mode(u32),
    /// New owner and group (`u32::MAX`: unchanged).
    Owner { uid: u32, gid: u32 },
    /// New access and modification times.
    Times(Times),
    /// Set an extended attribute: name and value pointers, value size, `XATTR_*` flags.
    SetXattr {
        name: u64,
        value: u64,
        size: u64,
        flags: u32,
    },
    /// `setxattrat`: the value, size and flags are in a `struct xattr_args` at `args`.
    SetXattrArgs {
        name: u64,
        args: u64,
        args_size: u64,
    },
    /// Remove an extended attribute.
    RemoveXattr { name: u64 },
}

/// One decoded call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Call {
    pub target: Target,
    pub change: Change,
}

/// The `*at` flags a call may carry: anything else is `EINVAL`, as from the kernel.
const AT_FLAGS: u64 = (libc::AT_SYMLINK_NOFOLLOW | libc::AT_EMPTY_PATH) as u64;

fn dir(raw: u64) -> Dir {
    // The descriptor argument is an int: the kernel reads its low 32 bits.
    let fd = raw as u32 as i32;
    if fd == libc::AT_FDCWD {
        Dir::Cwd
    } else {
        Dir::Fd(fd)
    }
}

fn at(dirfd: u64, path: u64, flags: u64) -> Result<Target, Errno> {
    if flags & !AT_FLAGS != 0 {
        return Err(Errno::INVAL);
    }
    Ok(Target::Path {
        dir: dir(dirfd),
        path,
        follow: flags & libc::AT_SYMLINK_NOFOLLOW as u64 == 0,
        empty_ok: flags & libc::AT_EMPTY_PATH as u64 != 0,
    })
}

fn plain(path: u64, follow: bool) -> Target {
    Target::Path {
        dir: Dir::Cwd,
        path,
        follow,
        empty_ok: false,
    }
}

fn fd(raw: u64) -> Target {
    Target::Fd(raw as u32 as i32)
}

/// Decodes call `nr` with arguments `a`; `None` for a call the filter does not hand over.
pub(super) fn decode(nr: i64, a: [u64; 6]) -> Option<Result<Call, Errno>> {
    let call = |target, change| Some(Ok(Call { target, change }));
    // Mode, uid and gid arguments are 32-bit in the kernel's prototypes.
    let mode = |raw: u64| Change::Mode(raw as u32);
    let owner = |uid: u64, gid: u64| Change::Owner {
        uid: uid as u32,
        gid: gid as u32,
    };
    let set = |name, value, size, flags: u64| Change::SetXattr {
        name,
        value,
        size,
        flags: flags as u32,
    };
    #[cfg(target_arch = "x86_64")]
    {
        let times = |ptr: u64, kind: fn(u64) -> Times| {
            Change::Times(if ptr == 0 { Times::Now } else { kind(ptr) })
        };
        match nr {
            libc::SYS_chmod => return call(plain(a[0], true), mode(a[1])),
            libc::SYS_chown => return call(plain(a[0], true), owner(a[1], a[2])),
            libc::SYS_lchown => return call(plain(a[0], false), owner(a[1], a[2])),
            libc::SYS_utime => return call(plain(a[0], true), times(a[1], Times::Utimbuf)),
            libc::SYS_utimes => return call(plain(a[0], true), times(a[1], Times::Timeval)),
            libc::SYS_futimesat => {
                // A null path (glibc's futimes on old kernels) names the descriptor.
                let target = if a[1] == 0 {
                    fd(a[0])
                } else {
                    Target::Path {
                        dir: dir(a[0]),
                        path: a[1],
                        follow: true,
                        empty_ok: false,
                    }
                };
                return call(target, times(a[2], Times::Timeval));
            }
            _ => {}
        }
    }
    match nr {
        libc::SYS_fchmod => call(fd(a[0]), mode(a[1])),
        libc::SYS_fchmodat => call(
            Target::Path {
                dir: dir(a[0]),
                path: a[1],
                follow: true,
                empty_ok: false,
            },
            mode(a[2]),
        ),
        SYS_FCHMODAT2 => Some(at(a[0], a[1], a[3]).map(|t| Call {
            target: t,
            change: mode(a[2]),
        })),
        libc::SYS_fchown => call(fd(a[0]), owner(a[1], a[2])),
        libc::SYS_fchownat => Some(at(a[0], a[1], a[4]).map(|t| Call {
            target: t,
            change: owner(a[2], a[3]),
        })),
        libc::SYS_utimensat => {
            let times = Change::Times(if a[2] == 0 {
                Times::Now
            } else {
                Times::Timespec(a[2])
            });
            if a[1] == 0 {
                // A null path (futimens) names the descriptor itself.
                if a[3] & !(libc::AT_SYMLINK_NOFOLLOW as u64) != 0 {
                    return Some(Err(Errno::INVAL));
                }
                return call(fd(a[0]), times);
            }
            Some(at(a[0], a[1], a[3]).map(|t| Call {
                target: t,
                change: times,
            }))
        }
        libc::SYS_setxattr => call(plain(a[0], true), set(a[1], a[2], a[3], a[4])),
        libc::SYS_lsetxattr => call(plain(a[0], false), set(a[1], a[2], a[3], a[4])),
        libc::SYS_fsetxattr => call(fd(a[0]), set(a[1], a[2], a[3], a[4])),
        libc::SYS_removexattr => call(plain(a[0], true), Change::RemoveXattr { name: a[1] }),
        libc::SYS_lremovexattr => call(plain(a[0], false), Change::RemoveXattr { name: a[1] }),
        libc::SYS_fremovexattr => call(fd(a[0]), Change::RemoveXattr { name: a[1] }),
        SYS_SETXATTRAT => Some(at(a[0], a[1], a[2]).map(|t| Call {
            target: t,
            change: Change::SetXattrArgs {
                name: a[3],
                args: a[4],
                args_size: a[5],
            },
        })),
        SYS_REMOVEXATTRAT => Some(at(a[0], a[1], a[2]).map(|t| Call {
            target: t,
            change: Change::RemoveXattr { name: a[3] },
        })),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_calls_honour_their_flags_and_refuse_unknown_ones() {
        let cwd = libc::AT_FDCWD as u32 as u64;
        let nofollow = libc::AT_SYMLINK_NOFOLLOW as u64;
        let got = decode(libc::SYS_fchownat, [cwd, 0x1000, 5, 6, nofollow, 0]);
        assert_eq!(
            got,
            Some(Ok(Call {
                target: Target::Path {
                    dir: Dir::Cwd,
                    path: 0x1000,
                    follow: false,
                    empty_ok: false
                },
                change: Change::Owner { uid: 5, gid: 6 },
            }))
        );
        let empty = libc::AT_EMPTY_PATH as u64;
        assert!(matches!(
            decode(SYS_FCHMODAT2, [3, 0x1000, 0o755, empty, 0, 0]),
            Some(Ok(Call {
                target: Target::Path {
                    dir: Dir::Fd(3),
                    follow: true,
                    empty_ok: true,
                    ..
                },
                change: Change::Mode(0o755),
            }))
        ));
        assert_eq!(
            decode(SYS_FCHMODAT2, [3, 0x1000, 0o755, 0x8000, 0, 0]),
            Some(Err(Errno::INVAL))
        );
        assert_eq!(
            decode(libc::SYS_utimensat, [4, 0, 0, 0, 0, 0]),
            Some(Ok(Call {
                target: Target::Fd(4),
                change: Change::Times(Times::Now)
            }))
        );
        assert_eq!(decode(libc::SYS_openat, [0; 6]), None);
    }
}

//! The notify loop: one thread per sandboxed command (in the engine for a directly spawned
//! command, in the exec supervisor otherwise) that receives each metadata call of the command
//! and of every process it starts, decides by the object's identity, makes allowed changes
//! itself and answers with their result; refused ones get `EPERM`. It ends when no process
//! uses the filter any more (the listener reports hang-up).
#![allow(
    unsafe_code,
    reason = "seccomp user-notification ioctls on the listener descriptor"
)]

use super::call::{self, Target};
use super::memory::{Memory, PATH_MAX};
use super::{perform, resolve};
use crate::exec::caps;
use crate::exec::sandbox::DirId;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use rustix::io::Errno;
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};

/// Starts serving `listener` on a thread of its own; writable means beneath one of `roots`.
pub(crate) fn spawn(listener: OwnedFd, roots: Vec<DirId>) -> io::Result<()> {
    std::thread::Builder::new()
        .name("ash-sandbox-notify".to_owned())
        .spawn(move || serve(&listener, &roots))
        .map(drop)
}

fn serve(listener: &OwnedFd, roots: &[DirId]) {
    // Credentials are per thread: without capabilities this thread can change no more than
    // the command itself could (same user, none of CAP_CHOWN, CAP_FOWNER, CAP_DAC_OVERRIDE).
    // If they cannot be dropped it acts on nothing and refuses every call.
    let can_act = caps::drop_all().is_ok();
    loop {
        let mut fds = [PollFd::new(listener.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            // Closing the listener makes every later call fail: closed, not open.
            Err(_) => return,
        }
        let revents = fds[0].revents().unwrap_or(PollFlags::empty());
        if revents.contains(PollFlags::POLLIN) {
            if !handle_one(listener, roots, can_act) {
                return;
            }
            continue;
        }
        if revents.intersects(PollFlags::POLLHUP | PollFlags::POLLERR | PollFlags::POLLNVAL) {
            return;
        }
    }
}

/// Receives and answers one notification; `false` when the listener is unusable.
fn handle_one(listener: &OwnedFd, roots: &[DirId], can_act: bool) -> bool {
    // SAFETY: an all-zero seccomp_notif is what SECCOMP_IOCTL_NOTIF_RECV requires.
    let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
    // SAFETY: the kernel writes one seccomp_notif into the struct passed.
    let rc = unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_RECV,
            &raw mut req,
        )
    };
    if rc != 0 {
        // ENOENT: the caller died or was interrupted before we read it.
        let e = io::Error::last_os_error().raw_os_error();
        return matches!(e, Some(libc::ENOENT | libc::EINTR));
    }
    let answer = if can_act {
        answer(listener, &req, roots)
    } else {
        Some(Err(Errno::PERM))
    };
    let Some(answer) = answer else {
        return true;
    };
    let resp = libc::seccomp_notif_resp {
        id: req.id,
        val: 0,
        error: match answer {
            Ok(()) => 0,
            Err(e) => -e.raw_os_error(),
        },
        flags: 0,
    };
    // SAFETY: the kernel reads one seccomp_notif_resp from the struct passed. ENOENT (the
    // caller is gone) needs nothing more.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_SEND,
            &raw const resp,
        );
    }
    true
}

/// Whether notification `id` still waits for an answer: its process is alive and blocked in
/// the call, so `/proc/PID` opened before this check was that process's.
fn still_valid(listener: &OwnedFd, id: u64) -> bool {
    // SAFETY: the kernel reads one u64 from the variable passed.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_ID_VALID,
            &raw const id,
        ) == 0
    }
}

/// The answer to one call; `None` when the call is no longer waiting.
fn answer(
    listener: &OwnedFd,
    req: &libc::seccomp_notif,
    roots: &[DirId],
) -> Option<Result<(), Errno>> {
    let decoded = call::decode(i64::from(req.data.nr), req.data.args);
    let result = decide(req, roots, decoded);
    // Everything read or opened through /proc/PID happened before this check.
    if !still_valid(listener, req.id) {
        return None;
    }
    Some(result.and_then(|(resolved, prepared)| perform::perform(&resolved, &prepared)))
}

/// Resolves and checks the call; `Ok` carries what to do, `Err` the answer.
fn decide(
    req: &libc::seccomp_notif,
    roots: &[DirId],
    decoded: Option<Result<call::Call, Errno>>,
) -> Result<(resolve::Resolved, perform::Prepared), Errno> {
    // A call the filter hands over but this build cannot read: refused.
    let call = decoded.ok_or(Errno::PERM)??;
    let pid = req.pid;
    let mem = Memory::open(pid).map_err(|_| Errno::PERM)?;
    let resolved = match call.target {
        Target::Fd(fd) => resolve::descriptor(pid, fd)?,
        Target::Path {
            dir,
            path,
            follow,
            empty_ok,
        } => {
            let path = mem.string(path, PATH_MAX - 1, Errno::NAMETOOLONG)?;
            resolve::path(pid, dir, &path, follow, empty_ok)?
        }
    };
    let prepared = perform::prepare(call.change, &mem)?;
    if !resolve::beneath(&resolved, roots) {
        return Err(Errno::PERM);
    }
    // Touching a shared root's times is harmless; its mode, owner or ACLs are not ours.
    if resolve::is_shared_root(&resolved, roots) && !matches!(prepared, perform::Prepared::Times(_))
    {
        return Err(Errno::PERM);
    }
    Ok((resolved, prepared))
}

//! Handing the seccomp listener from the command's process to the supervising one: a
//! socketpair made before the fork; the child, between fork and exec, sends the listener over
//! it with `SCM_RIGHTS` (stack memory only, no allocation) and closes its own copy; the parent
//! collects it once the spawn returned (the exec happened, so the message is already queued).
#![allow(
    unsafe_code,
    reason = "sendmsg/recvmsg with SCM_RIGHTS control messages on raw descriptors"
)]

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Room for one `cmsghdr` carrying one descriptor, aligned for `cmsghdr`.
type ControlBuffer = [u64; 4];

/// The two ends of the hand-off socketpair.
#[derive(Debug)]
pub(crate) struct Handoff {
    parent: OwnedFd,
    child: OwnedFd,
}

impl Handoff {
    /// A close-on-exec `SOCK_SEQPACKET` pair: the command inherits neither end.
    pub(crate) fn new() -> io::Result<Handoff> {
        let mut fds: [RawFd; 2] = [-1, -1];
        // SAFETY: socketpair writes two descriptors into the array passed.
        let rc = unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both descriptors were just created and are owned by nobody else.
        let (parent, child) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok(Handoff { parent, child })
    }

    /// In the forked child: sends `listener` to the parent and closes it here. Only syscalls
    /// on stack memory, so it may run between fork and exec.
    pub(crate) fn send_in_child(&self, listener: RawFd) -> io::Result<()> {
        let mut byte = [0u8; 1];
        let mut iov = libc::iovec {
            iov_base: byte.as_mut_ptr().cast(),
            iov_len: 1,
        };
        let mut control: ControlBuffer = [0; 4];
        // SAFETY: a zeroed msghdr is a valid empty message; the fields set below point at
        // stack buffers that outlive the sendmsg call.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &raw mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        // SAFETY: CMSG_SPACE only computes a size.
        msg.msg_controllen = unsafe { libc::CMSG_SPACE(size_of::<RawFd>() as u32) } as _;
        // SAFETY: the control buffer is large enough for one descriptor (checked by the size
        // assertion in the tests), so the first header and its data lie inside it.
        let sent = unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&raw const msg);
            if cmsg.is_null() {
                libc::close(listener);
                return Err(io::Error::from_raw_os_error(libc::ENOBUFS));
            }
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(size_of::<RawFd>() as u32) as _;
            std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), listener);
            libc::sendmsg(self.child.as_raw_fd(), &raw const msg, libc::MSG_NOSIGNAL)
        };
        let result = if sent == 1 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        };
        // SAFETY: the listener is this process's own descriptor; the parent now has a copy.
        unsafe {
            libc::close(listener);
        }
        result
    }

    /// In the parent, after the spawn returned: the listener the child sent, if it did.
    pub(crate) fn receive(&self) -> io::Result<OwnedFd> {
        let mut byte = [0u8; 1];
        let mut iov = libc::iovec {
            iov_base: byte.as_mut_ptr().cast(),
            iov_len: 1,
        };
        let mut control: ControlBuffer = [0; 4];
        // SAFETY: as in `send_in_child`; recvmsg fills the stack buffers passed.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &raw mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = size_of::<ControlBuffer>() as _;
        // SAFETY: recvmsg writes at most the lengths given into the buffers above.
        let got = unsafe {
            libc::recvmsg(
                self.parent.as_raw_fd(),
                &raw mut msg,
                libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC,
            )
        };
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the kernel set msg_controllen to what it wrote; CMSG_FIRSTHDR checks it.
        let cmsg = unsafe { libc::CMSG_FIRSTHDR(&raw const msg) };
        // SAFETY: a non-null header lies within the control buffer the kernel filled.
        let fd = unsafe {
            if cmsg.is_null()
                || (*cmsg).cmsg_level != libc::SOL_SOCKET
                || (*cmsg).cmsg_type != libc::SCM_RIGHTS
            {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the command's process sent no seccomp listener",
                ));
            }
            std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>())
        };
        // SAFETY: SCM_RIGHTS installed a fresh descriptor in this process for us alone.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_descriptor_crosses_and_a_missing_one_is_an_error() {
        // SAFETY: CMSG_SPACE only computes a size.
        let space = unsafe { libc::CMSG_SPACE(size_of::<RawFd>() as u32) } as usize;
        assert!(space <= size_of::<ControlBuffer>());
        let h = Handoff::new().expect("socketpair");
        assert!(h.receive().is_err(), "nothing sent yet");
        let file = std::fs::File::open("/dev/null").expect("null");
        let raw = rustix::io::dup(&file).expect("dup");
        h.send_in_child(std::os::fd::IntoRawFd::into_raw_fd(raw))
            .expect("sent");
        let got = h.receive().expect("received");
        let a = rustix::fs::fstat(&got).expect("stat");
        let b = rustix::fs::fstat(&file).expect("stat");
        assert_eq!((a.st_dev, a.st_ino), (b.st_dev, b.st_ino));
    }
}

//! Dropping capabilities a command could pass on: the ambient set and the inheritable set.
//! Permitted and effective sets stay as they are for unsandboxed commands (they run with the
//! user's own rights); a sandboxed command loses every capability ([`drop_all`]).
//!
//! Both functions issue raw syscalls on stack memory only, so they are async-signal-safe and may
//! run between fork and exec.
#![allow(
    unsafe_code,
    reason = "raw capget/capset syscalls on stack memory, between fork and exec"
)]

use std::io;

/// `_LINUX_CAPABILITY_VERSION_3`: 64-bit capability sets, as two 32-bit words.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// `struct __user_cap_header_struct`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

/// `struct __user_cap_data_struct`, one per 32-bit word of each set.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Clears the ambient capability set; a kernel without ambient capabilities (before 4.3) has
/// nothing to clear.
pub(crate) fn clear_ambient() -> io::Result<()> {
    // SAFETY: prctl with integer arguments touches no memory of this process.
    let rc = unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    };
    if rc != 0 {
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EINVAL) {
            return Err(err);
        }
    }
    Ok(())
}

/// Clears the inheritable capability set of the calling thread (lowering it is always allowed).
/// Nothing is set when it is already empty, so an environment that filters `capset` only
/// fails here when there really is something to drop.
pub(crate) fn clear_inheritable() -> io::Result<()> {
    let mut header = CapHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: capget writes one header and two data words, exactly the stack buffers passed.
    let rc = unsafe { libc::syscall(libc::SYS_capget, &raw mut header, data.as_mut_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    if data.iter().all(|d| d.inheritable == 0) {
        return Ok(());
    }
    for word in &mut data {
        word.inheritable = 0;
    }
    header.version = CAPABILITY_VERSION_3;
    header.pid = 0;
    // SAFETY: capset only reads the header and the two data words passed.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &raw mut header, data.as_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `CAP_SETPCAP`, needed to shrink the bounding set.
const CAP_SETPCAP: u32 = 8;

/// The highest capability number probed; `PR_CAPBSET_DROP` gives `EINVAL` past the kernel's
/// last one, which ends the loop earlier.
const CAP_MAX: u32 = 63;

/// Drops every capability of the calling thread: the bounding set (when it may: with
/// `CAP_SETPCAP`; without it nothing can be gained back anyway under no_new_privs), then
/// the effective, permitted and inheritable sets, and with them the ambient set.
pub(crate) fn drop_all() -> io::Result<()> {
    let mut header = CapHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: capget writes one header and two data words, exactly the stack buffers passed.
    let rc = unsafe { libc::syscall(libc::SYS_capget, &raw mut header, data.as_mut_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    if data[0].effective & (1 << CAP_SETPCAP) != 0 {
        for cap in 0..=CAP_MAX {
            // SAFETY: prctl with integer arguments touches no memory of this process.
            let rc = unsafe {
                libc::prctl(
                    libc::PR_CAPBSET_DROP,
                    libc::c_ulong::from(cap),
                    0 as libc::c_ulong,
                    0 as libc::c_ulong,
                    0 as libc::c_ulong,
                )
            };
            if rc != 0 {
                let err = io::Error::last_os_error();
                if err.raw_os_error() == Some(libc::EINVAL) {
                    break;
                }
                return Err(err);
            }
        }
    }
    let empty = |d: &CapData| d.effective == 0 && d.permitted == 0 && d.inheritable == 0;
    if data.iter().all(empty) {
        return Ok(());
    }
    let none = [CapData::default(); 2];
    header.version = CAPABILITY_VERSION_3;
    header.pid = 0;
    // SAFETY: capset only reads the header and the two data words passed.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &raw mut header, none.as_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::ExecHardening;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    /// Raises CAP_CHOWN (bit 0) into the inheritable set, if it is permitted.
    fn raise_chown_inheritable() -> io::Result<bool> {
        let mut header = CapHeader {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let mut data = [CapData::default(); 2];
        // SAFETY: as in `clear_inheritable`.
        if unsafe { libc::syscall(libc::SYS_capget, &raw mut header, data.as_mut_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if data[0].permitted & 1 == 0 {
            return Ok(false);
        }
        data[0].inheritable |= 1;
        // SAFETY: as in `clear_inheritable`.
        if unsafe { libc::syscall(libc::SYS_capset, &raw mut header, data.as_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(true)
    }

    /// The `CapInh` line of a child that raised CAP_CHOWN and then applied `hardening`.
    fn child_inheritable(hardening: ExecHardening) -> Option<String> {
        let mut cmd = Command::new("grep");
        cmd.args(["^CapInh", "/proc/self/status"]);
        // SAFETY: the hook only issues capget/capset/prctl syscalls on stack memory.
        unsafe {
            cmd.pre_exec(move || {
                if !raise_chown_inheritable()? {
                    return Err(io::Error::other("CAP_CHOWN not permitted"));
                }
                hardening.apply()
            });
        }
        let out = cmd.output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }

    #[test]
    #[ignore = "needs root: raises CAP_CHOWN to see it cleared (cargo xtask test runs it as root)"]
    fn clearing_drops_an_inheritable_capability_across_exec() {
        // Without CAP_CHOWN permitted (not root) there is nothing to raise, hence to check.
        let raised = child_inheritable(ExecHardening::default())
            .unwrap_or_else(|| panic!("this test needs root: CAP_CHOWN must be permitted"));
        assert_eq!(raised, "CapInh:\t0000000000000001");
        let cleared = ExecHardening {
            clear_inheritable_caps: true,
            ..ExecHardening::default()
        };
        assert_eq!(
            child_inheritable(cleared).as_deref(),
            Some("CapInh:\t0000000000000000")
        );
    }
}

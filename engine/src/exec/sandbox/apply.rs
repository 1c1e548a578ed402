//! Applying the sandbox in the command's process between fork and exec. Everything that
//! allocates (opening the roots, creating the Landlock ruleset, compiling the BPF) happens
//! before the fork in [`Confinement::build`]; the child only issues `prctl`,
//! `landlock_restrict_self`, `seccomp`, one `sendmsg` and `close` (handing the metadata
//! filter's listener to the parent, see [`super::notify`]) and, on failure, one `write`, all
//! on memory prepared beforehand, as required between fork and exec.
#![allow(
    unsafe_code,
    reason = "raw prctl, landlock_restrict_self and seccomp system calls in a forked child"
)]

use super::error::SandboxError;
use super::notify::{self, Handoff};
use super::roots::{DirId, WritableRoot};
use super::{landlock_rules, probe, seccomp_filter};
use crate::exec::caps;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, OwnedFd};

/// `SECCOMP_SET_MODE_FILTER` operation of `seccomp(2)`.
const SECCOMP_SET_MODE_FILTER: libc::c_uint = 1;
/// `SECCOMP_FILTER_FLAG_NEW_LISTENER`: the filter's `seccomp` call returns a listener.
const SECCOMP_FILTER_FLAG_NEW_LISTENER: libc::c_uint = 1 << 3;

/// What a sandboxed command is confined to, in the form both the engine and the supervisor
/// build a [`Confinement`] from (the supervisor reads it from its command line).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Restrictions {
    /// Directories writable beneath, each pinned to its identity (empty in read-only mode).
    pub writable: Vec<WritableRoot>,
    /// Whether network sockets are allowed.
    pub network: bool,
}

/// The step of applying the sandbox that failed in the child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Step {
    NoNewPrivs = 1,
    Landlock = 2,
    Seccomp = 3,
    Capabilities = 4,
    Notify = 5,
}

const STEPS: [Step; 5] = [
    Step::NoNewPrivs,
    Step::Landlock,
    Step::Seccomp,
    Step::Capabilities,
    Step::Notify,
];

impl Step {
    fn from_byte(b: u8) -> Option<Step> {
        STEPS.into_iter().find(|s| *s as u8 == b)
    }

    fn name(self) -> &'static str {
        match self {
            Step::NoNewPrivs => "setting no_new_privs",
            Step::Landlock => "landlock_restrict_self",
            Step::Seccomp => "installing the seccomp filter",
            Step::Capabilities => "dropping all capabilities",
            Step::Notify => "handing file-metadata changes to the supervising process",
        }
    }
}

/// A sandbox ready to apply in a forked child: the Landlock ruleset descriptor, the BPF
/// programs, the metadata filter and the socket its listener is handed over on, and a pipe
/// on which the child reports a failure before exec.
#[derive(Debug)]
pub(crate) struct Confinement {
    ruleset: OwnedFd,
    programs: Vec<Vec<libc::sock_filter>>,
    metadata: Vec<libc::sock_filter>,
    handoff: Handoff,
    roots: Vec<DirId>,
    failure_reader: OwnedFd,
    failure_writer: OwnedFd,
}

impl Confinement {
    /// Opens the roots and builds the ruleset and filters for this kernel.
    pub(crate) fn build(restrictions: &Restrictions) -> Result<Confinement, SandboxError> {
        let support = probe::probe();
        let abi = support.landlock_abi.ok_or(SandboxError::NoLandlock)?;
        if !support.user_notif {
            return Err(SandboxError::NoUserNotif);
        }
        let ruleset = landlock_rules::ruleset(abi, &restrictions.writable, restrictions.network)?;
        let programs = seccomp_filter::programs(restrictions.network)?;
        let metadata = notify::program();
        if programs
            .iter()
            .chain([&metadata])
            .any(|p| u16::try_from(p.len()).is_err())
        {
            return Err(SandboxError::Build("seccomp program too long".to_owned()));
        }
        // Both ends close on exec: the command inherits neither.
        let (reader, writer) =
            io::pipe().map_err(|e| SandboxError::Build(format!("failure report pipe: {e}")))?;
        let handoff = Handoff::new()
            .map_err(|e| SandboxError::Build(format!("listener hand-off socket: {e}")))?;
        Ok(Confinement {
            ruleset,
            programs,
            metadata,
            handoff,
            roots: restrictions.writable.iter().map(|r| r.id).collect(),
            failure_reader: reader.into(),
            failure_writer: writer.into(),
        })
    }

    /// Restricts the calling (forked, single-threaded) process. Only system calls on memory
    /// prepared before the fork; on failure the step and errno go to the report pipe.
    pub(crate) fn apply_in_child(&self) -> io::Result<()> {
        // SAFETY: prctl with integer arguments only.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(self.fail(Step::NoNewPrivs));
        }
        // Root (in a container, say) keeps no capability: CAP_MKNOD, CAP_SYS_ADMIN,
        // CAP_DAC_OVERRIDE and the rest would each undo part of the sandbox.
        if caps::drop_all().is_err() {
            return Err(self.fail(Step::Capabilities));
        }
        // SAFETY: the ruleset descriptor is open while `self` lives; flags 0.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_landlock_restrict_self,
                self.ruleset.as_raw_fd(),
                0u32,
            )
        };
        if ret != 0 {
            return Err(self.fail(Step::Landlock));
        }
        for program in &self.programs {
            let prog = libc::sock_fprog {
                // Checked in `build`.
                len: program.len() as u16,
                filter: program.as_ptr().cast_mut(),
            };
            // SAFETY: the kernel copies the program from memory that lives as long as `self`.
            let ret = unsafe {
                libc::syscall(
                    libc::SYS_seccomp,
                    SECCOMP_SET_MODE_FILTER,
                    0u32,
                    std::ptr::from_ref(&prog),
                )
            };
            if ret != 0 {
                return Err(self.fail(Step::Seccomp));
            }
        }
        let prog = libc::sock_fprog {
            // Checked in `build`.
            len: self.metadata.len() as u16,
            filter: self.metadata.as_ptr().cast_mut(),
        };
        // SAFETY: as above; with NEW_LISTENER the call returns the listener descriptor.
        let listener = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                SECCOMP_SET_MODE_FILTER,
                SECCOMP_FILTER_FLAG_NEW_LISTENER,
                std::ptr::from_ref(&prog),
            )
        };
        let Ok(listener) = i32::try_from(listener) else {
            return Err(self.fail(Step::Notify));
        };
        if listener < 0 {
            return Err(self.fail(Step::Notify));
        }
        if let Err(e) = self.handoff.send_in_child(listener) {
            return Err(self.fail_with(Step::Notify, e));
        }
        Ok(())
    }

    /// In the parent, once the spawn returned: takes the metadata filter's listener from the
    /// command's process and starts serving it (see [`super::notify`]). On error the caller
    /// kills the command: its metadata calls could never be answered.
    pub(crate) fn serve_metadata(&self) -> Result<(), SandboxError> {
        let failed = |e: io::Error| SandboxError::Apply {
            step: Step::Notify.name(),
            message: e.to_string(),
        };
        let listener = self.handoff.receive().map_err(failed)?;
        notify::serve(listener, self.roots.clone()).map_err(failed)
    }

    fn fail(&self, step: Step) -> io::Error {
        self.fail_with(step, io::Error::last_os_error())
    }

    fn fail_with(&self, step: Step, err: io::Error) -> io::Error {
        let errno = err.raw_os_error().unwrap_or(libc::EIO).to_le_bytes();
        let record = [step as u8, errno[0], errno[1], errno[2], errno[3]];
        // SAFETY: write of a stack buffer to a descriptor open while `self` lives.
        unsafe {
            libc::write(
                self.failure_writer.as_raw_fd(),
                record.as_ptr().cast(),
                record.len(),
            );
        }
        err
    }

    /// After a spawn failed: the sandbox error the child reported, if it was the sandbox's.
    pub(crate) fn failure(self) -> Option<SandboxError> {
        let Confinement {
            failure_reader,
            failure_writer,
            ..
        } = self;
        // Every child copy of the write end is gone once spawn returned, so this is EOF-bound.
        drop(failure_writer);
        let mut record = Vec::new();
        File::from(failure_reader).read_to_end(&mut record).ok()?;
        decode(&record)
    }
}

fn decode(record: &[u8]) -> Option<SandboxError> {
    let (&step, errno) = record.split_first()?;
    let step = Step::from_byte(step)?;
    let errno = i32::from_le_bytes(<[u8; 4]>::try_from(errno.get(..4)?).ok()?);
    Some(SandboxError::Apply {
        step: step.name(),
        message: io::Error::from_raw_os_error(errno).to_string(),
    })
}

/// Encodes a failure as the supervisor reports it to the engine (same record as the pipe).
pub(crate) fn encode_failure(err: &SandboxError) -> Vec<u8> {
    match err {
        SandboxError::Apply { step, message } => {
            let mut out = vec![b'A'];
            out.extend_from_slice(step.as_bytes());
            out.push(0);
            out.extend_from_slice(message.as_bytes());
            out
        }
        other => {
            let mut out = vec![b'B'];
            out.extend_from_slice(other.to_string().as_bytes());
            out
        }
    }
}

/// Reads what [`encode_failure`] wrote (a build failure comes back as [`SandboxError::Build`]).
pub(crate) fn decode_failure(bytes: &[u8]) -> Option<SandboxError> {
    match bytes.split_first()? {
        (b'A', rest) => {
            let at = rest.iter().position(|b| *b == 0)?;
            let step_text = String::from_utf8_lossy(&rest[..at]);
            let step = STEPS.into_iter().find(|s| s.name() == step_text)?;
            Some(SandboxError::Apply {
                step: step.name(),
                message: String::from_utf8_lossy(&rest[at + 1..]).into_owned(),
            })
        }
        (b'B', rest) => Some(SandboxError::Build(
            String::from_utf8_lossy(rest).into_owned(),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_round_trip_through_the_supervisor_report() {
        let apply = SandboxError::Apply {
            step: Step::Landlock.name(),
            message: "Operation not permitted (os error 1)".to_owned(),
        };
        assert_eq!(decode_failure(&encode_failure(&apply)), Some(apply));
        let build = SandboxError::Build("x".to_owned());
        assert!(matches!(
            decode_failure(&encode_failure(&build)),
            Some(SandboxError::Build(t)) if t.contains('x')
        ));
        assert_eq!(decode_failure(b"Zjunk"), None);
        assert_eq!(
            decode(&[2, 1, 0, 0, 0]).map(|e| e.to_string().contains("landlock")),
            Some(true)
        );
        assert_eq!(decode(&[9, 1, 0, 0, 0]), None);
    }
}

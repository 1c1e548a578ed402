//! The OS sandbox for exec commands: Landlock (filesystem writes, TCP, scoping of signals and
//! abstract Unix sockets) and a seccomp filter (non-Unix sockets, namespaces, io_uring),
//! built before fork and applied in the command's process between fork and exec, so every
//! process the command starts inherits them. No user namespaces, no setuid helper, no external
//! binary. File-metadata changes, which neither can decide, go to the supervising process
//! ([`notify`]). See docs/security.md, "OS sandbox (engine)".

mod apply;
mod denial;
mod error;
mod landlock_rules;
mod notify;
mod outcome;
mod policy;
mod probe;
mod roots;
mod seccomp_filter;

pub(crate) use apply::{Confinement, Restrictions, decode_failure, encode_failure};
pub(crate) use denial::{Allowed, detect, scan_parts};
pub use denial::{DenialKind, SandboxDenial};
pub use error::SandboxError;
pub use outcome::SandboxOutcome;
pub use policy::{
    REQUIRED_LANDLOCK_ABI, SCRATCH_ROOTS, SandboxMode, SandboxPolicy, UnknownMode, WRITABLE_DEVICES,
};
pub use probe::{Support, probe};
pub use roots::{BadDirId, DirId, WritableRoot};

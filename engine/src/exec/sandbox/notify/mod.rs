//! File-metadata changes (chmod, chown, utime(s), xattrs) of a sandboxed command, decided by
//! the supervising process. Landlock has no right for them and a seccomp filter cannot see
//! paths, so the command's filter hands each such call to the supervisor as a seccomp user
//! notification ([`filter`]); the listener descriptor travels from the command's process to
//! the supervisor before exec ([`handoff`]); a thread there ([`server`]) copies the call's
//! arguments out of the target ([`call`], [`memory`]), resolves the object as the kernel would
//! for the target ([`resolve`]), allows it only beneath a writable root by identity, and makes
//! the change itself on the descriptor it resolved ([`perform`]). See docs/security.md,
//! "OS sandbox: file metadata".

mod call;
mod filter;
mod handoff;
mod memory;
mod perform;
mod resolve;
mod server;

pub(crate) use filter::program;
pub(crate) use handoff::Handoff;
pub(crate) use server::spawn as serve;

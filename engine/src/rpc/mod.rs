//! `ash rpc`: a framed, pipelined ASH/1 session over a byte stream (docs/contract/ash-protocol.md §3.2, §7).
//!
//! One dedicated thread reads frames (blocking reads, never inside a `select!`, so a frame
//! is never half-consumed), handles the handshake, answers cancels inline and registers every
//! other request before reading the next frame. Requests run on Tokio's blocking pool under
//! the in-flight window; an ordered writer thread seals and writes their answers in input
//! order.

pub mod frame;
mod handshake;
mod server;
mod window;
mod writer;

pub use handshake::open_session;
pub use server::{RpcSettings, serve};

use crate::bootstrap::{BootstrapError, exit};

/// Serves `ash rpc` reading frames from `stdin` (the process's, already locked by the caller)
/// and writing answers to a duplicate of the stdout descriptor, so the writer thread never
/// contends for the `Stdout` lock the caller may hold.
pub fn serve_stdio(stdin: &mut dyn std::io::Read) -> Result<(), BootstrapError> {
    use std::os::fd::AsFd;
    let io = |what: &str, e: std::io::Error| {
        BootstrapError::new(
            crate::bootstrap::BootstrapCode::Io,
            exit::SOFTWARE,
            format!("{what}: {e}"),
        )
    };
    let cwd = std::env::current_dir().map_err(|e| io("the current directory is unusable", e))?;
    let stdout = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map_err(|e| io("duplicating stdout", e))?;
    serve(
        stdin,
        Box::new(std::fs::File::from(stdout)),
        &cwd,
        &RpcSettings::host(),
    )
}

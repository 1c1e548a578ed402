//! `ash rpc` end to end over pipes: bootstrap codes, handshake negotiation, ordering,
//! pipelining, cancellation, backpressure and the 102/602 windows.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod client;
#[path = "../common/mod.rs"]
mod common;
mod inprocess;
#[path = "../common/memory.rs"]
mod memory;
mod session;
mod transport;

use tempfile::TempDir;

/// A workspace with `a.txt`, `b.txt` and `notes/` .
pub fn workspace() -> TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write a");
    std::fs::write(dir.path().join("b.txt"), "bravo\n").expect("write b");
    std::fs::create_dir(dir.path().join("notes")).expect("mkdir");
    dir
}

//! ash-broker: one broker per interactive shell keeps a bounded pool of provider connections
//! open, so the short `ansa` processes of that shell skip the TCP and TLS handshakes
//! (`docs/broker.md`). It has no provider logic: it forwards already-built HTTP requests.
//!
//! - [`wire`]: the contract between the two halves (header names, limits, refusals).
//! - [`client`]: the half `ansa` uses: where the broker is, from the shell's environment.
//! - `server` (feature `server`): the broker itself, run by the `ash-broker` binary.

#![forbid(unsafe_code)]

pub mod client;
#[cfg(feature = "server")]
pub mod server;
pub mod wire;

//! Behaviour of snapshot (`s`) through [`Session`] on real temporary workspaces (docs/contract/ash-protocol.md §3.4
//! `s`, §5 row-prefix truncation, §9 symlink roots): exact capture and delta answers, the retained
//! manifest, chaining, baseline and argument rules, path errors, ceilings, truncation and
//! worker-count invariance.
//!
//! Every answer goes through [`client::Client::ask`], which checks the invariants shared by all
//! answers (canonical encoding, L, output charge, path-id deltas).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod capture;
mod client;
#[path = "../common/mod.rs"]
mod common;
mod delta;
mod invariance;
mod rules;

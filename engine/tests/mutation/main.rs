//! Guarded mutation through [`Session`]: `p` patch, `f` fs and `>` materialize — every
//! validation rule and status code with exact answer bytes, the journal's on-disk layout after
//! a transaction, and the refusal of a foreign `.ash`.
//!
//! Modules by concern: [`client`] holds the harness (on top of [`common`]); [`patch`], [`fs`]
//! and [`materialize`] one operation each; [`journal`] the state directory.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod answers;
mod apply_failure;
mod apply_race;
mod client;
#[path = "../common/mod.rs"]
mod common;
mod cross_fs;
mod fs;
mod journal;
mod materialize;
mod patch;
mod root;

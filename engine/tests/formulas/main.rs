//! Behaviour of the retained-result formulas `/ # ? - |` through [`Session`]: exact answer bytes
//! for every formula, operand validation (100), unknown and released references (700), leased
//! release (701), wrong value types (202), missing tables and columns (100), presentation-limit
//! cuts and row-prefix truncation (1|2, 600), spooled values read by range, and `>` (its full
//! coverage lives in the `mutation` tests).
//!
//! Modules by concern: [`client`] holds the harness (on top of [`common`]); [`slice`] `/` and
//! `#`; [`find`] `?`; [`project`] `|`; [`references`] release, leases, unknown references,
//! validation and caps.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod client;
#[path = "../common/mod.rs"]
mod common;
mod find;
mod project;
mod references;
mod slice;

//! Checkpoint capture and store through the public API (`ash_engine::checkpoint`), on real
//! trees in temp directories: what a manifest records for each kind of entry, what is left
//! out and why, reuse of unchanged files, deduplication, the budget, corruption, determinism.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

#[path = "checkpoint/support.rs"]
mod support;

#[path = "checkpoint/kinds.rs"]
mod kinds;
#[path = "checkpoint/left_out.rs"]
mod left_out;
#[path = "checkpoint/reuse.rs"]
mod reuse;
#[path = "checkpoint/store.rs"]
mod store;
#[path = "checkpoint/unreadable.rs"]
mod unreadable;

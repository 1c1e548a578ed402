//! Text handling of the Carbon TUI: sanitizing, word wrap and Markdown.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod markdown;
mod rng;
mod sanitize;
mod wrap;

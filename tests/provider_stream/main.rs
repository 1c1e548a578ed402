//! The streaming protocol layer of the live providers (issue 8) against the canonical recorded
//! streams in `spec/sse/`: SSE framing, the strict Responses and Chat Completions reducers, and
//! the request bodies.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod chat_faults;
mod common;
mod compatible;
mod fixtures;
mod request;
mod responses_faults;
mod splits;

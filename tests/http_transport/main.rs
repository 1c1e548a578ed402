//! The HTTP transport of the live providers against a real mock server, over plain HTTP and
//! HTTPS with a test CA: incremental streaming, TLS trust, no redirects, MIME policy, size and
//! time bounds, typed errors, retries and cancellation.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

#[path = "../support/broker.rs"]
mod broker_support;
#[path = "../support/mock_provider.rs"]
mod mock_provider;

mod broker;
mod common;
mod errors;
mod retry;
mod streaming;
mod tls;

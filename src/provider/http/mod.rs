//! The HTTP transport of the live providers (docs/contract/agent-behaviour.md §5): TLS-verified, bounded in size and
//! time, no redirects, a strict MIME policy, typed errors and a retry policy.
//!
//! The API is synchronous, like the [`Provider`](super::Provider) trait: an [`HttpClient`] owns a
//! current-thread tokio runtime and blocks on it; a streamed body reaches the caller's
//! `on_chunk` on the calling thread as it arrives. Provider-specific parsing lives elsewhere.

mod broker;
mod client;
mod error;
mod exchange;
mod guard;
mod options;
mod retry;
mod status;
mod target;

pub use client::{CONNECTION_LOST, HttpClient, StreamDone};
pub use error::{HttpError, StreamError, TransportKind};
pub use options::{ClientOptions, Headers, Limits, MimePolicy, Notify, Retrying, StreamRequest};
pub use retry::{Jitter, RetryPolicy, SplitMix64};

//! The streaming protocol layer of the live providers (issue 8) against the canonical recorded
//! streams in `spec/sse/`: SSE framing, the strict Responses and Chat Completions reducers, and
//! the request bodies.

mod chat_faults;
mod common;
mod compatible;
mod fixtures;
mod request;
mod responses_faults;
mod splits;

//! End-to-end tests of the built `ansa` binary: JSONL sessions, one-shot and line mode, crash
//! recovery at every durable boundary, config and instruction edge cases.

mod compaction;
mod crash;
mod harness;
mod jsonl;
mod live;
mod llama;
mod malformed;
#[path = "../support/mock_provider.rs"]
mod mock_provider;
mod oneshot;
mod secrets;
mod tmux;
mod tui;

//! End-to-end tests of the built `ansa` binary: JSONL sessions, one-shot and line mode, crash
//! recovery at every durable boundary, config and instruction edge cases.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod approvals;
mod ask;
mod auth;
mod broker;
mod broker_limits;
#[path = "../support/broker.rs"]
mod broker_support;
mod compaction;
mod crash;
mod docs_match;
mod harness;
mod install;
mod jsonl;
mod live;
#[path = "../support/live_runtime.rs"]
mod live_runtime;
mod llama;
mod local_model;
mod maintenance;
mod malformed;
mod mcp;
mod mentions;
#[path = "../support/mock_provider.rs"]
mod mock_provider;
mod model_bind;
mod model_view;
#[path = "../support/oidc/harness.rs"]
mod oidc;
mod oneshot;
mod orchestrate;
mod picker;
#[path = "../support/processes.rs"]
mod processes;
mod prompt_cache;
mod prompts;
mod recovery;
mod redaction;
#[path = "../support/responses_script.rs"]
mod responses_script;
mod resume_access;
mod rewind;
mod rewind_gaps;
mod sandbox;
mod secrets;
mod sessions_list;
mod signed_in;
#[path = "../support/tasks.rs"]
mod tasks;
mod terminal;
mod tmux;
mod tui;
mod tui_mcp;
mod tui_model;
mod tui_orchestrate;
mod tui_resume;
mod tui_rewind;
mod tui_stream;
mod txn_recovery;

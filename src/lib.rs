//! The `ansa` agent as a library: the per-user home, the configuration, the instructions, the
//! tool registry, the model providers, the runtime, and the command line that wires them to a
//! frontend (only `cli` prints).

#![forbid(unsafe_code)]

mod canonical;
pub mod cli;
pub mod config;
pub mod environment;
pub mod home;
pub mod instructions;
pub mod prompt;
pub mod provider;
pub mod runtime;
mod safe_open;
pub mod tools;

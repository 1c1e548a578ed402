//! ash-engine: the ASH/1 engine — ASON codec, protocol model, operations, retained store.

pub mod ason;
pub mod bootstrap;
pub mod session;
pub mod compute;
pub mod deadline;
pub mod workspace;
pub mod walk;
pub mod search;
pub mod read;
pub mod protocol;
pub mod cli;
mod ops;
pub mod run;

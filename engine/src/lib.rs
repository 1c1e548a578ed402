//! ash-engine: the ASH/1 engine — ASON codec, protocol model, operations, retained store.

pub mod ason;
pub mod bootstrap;
pub mod cancel;
pub mod cli;
pub mod compute;
pub mod deadline;
pub mod exec;
mod ops;
pub mod protocol;
pub mod read;
pub mod reduce;
pub mod rpc;
pub mod run;
pub mod search;
pub mod session;
pub mod snapshot;
pub mod txn;
pub mod walk;
pub mod workspace;

#[cfg(test)]
pub(crate) mod testrng;

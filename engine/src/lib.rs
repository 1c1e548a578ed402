//! ash-engine: the ASH/1 engine — ASON codec, protocol model, operations, retained store.

mod answer;
pub mod ason;
pub mod bootstrap;
pub mod cancel;
pub mod checkpoint;
pub mod command_line;
pub mod compute;
pub mod deadline;
pub mod exec;
pub mod files;
mod ops;
pub mod protocol;
pub mod reduce;
pub mod rpc;
pub mod session;
pub mod store;
mod sync;
pub mod txn;

#[cfg(test)]
pub(crate) mod testrng;

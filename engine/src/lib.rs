//! ash-engine: the ASH/1 engine — ASON codec, protocol model, operations, retained store.

pub mod ason;

//! The engine session: path dictionary, budgets, truncation, retained store and dispatch.

pub mod pathdict;
pub mod store;
pub mod truncate;

//! The `ansa` agent as a library: the per-user home, the configuration, the instructions, the
//! tool registry and the model providers.
//! The binary wires these together; nothing here prints or exits.

#![forbid(unsafe_code)]

pub mod config;
pub mod home;
pub mod instructions;
pub mod provider;
mod safe_open;
pub mod tools;

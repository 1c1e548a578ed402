//! The `ansa` agent as a library: the per-user home, the configuration and the instructions.
//! The binary wires these together; nothing here prints or exits.

#![forbid(unsafe_code)]

pub mod config;
pub mod home;
pub mod instructions;
mod safe_open;

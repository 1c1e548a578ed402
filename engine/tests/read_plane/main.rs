//! Behaviour of read (`r`), list (`l`) and search (`g`) through [`Session`] on real temporary
//! workspaces: every validation rule and status/error code of docs/contract/ash-protocol.md §3.3–§3.4, the budgets,
//! row-prefix truncation and retained evidence of §5, the path dictionary, capability denial and
//! the output ceiling.
//!
//! Every answer goes through [`Client::ask`], which also checks the invariants that hold for all
//! answers: the encoding decodes back to the same typed response, a success fits the presentation
//! limit L and is charged to the output ceiling (a failure is not), and the `p` delta introduces
//! only paths new to the session with consecutive ids.
//!
//! Modules by concern: [`client`] holds the harness (on top of [`common`]); [`paths`] the §3.3
//! path rules, reserved `.ash`, capabilities, hidden entries and symlinks; [`read`], [`list`] and
//! [`search`] each operation's own rules; [`budgets`] `tok`/`rec`, truncation, the path
//! dictionary and the output ceiling.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod budgets;
mod client;
#[path = "../common/mod.rs"]
mod common;
mod list;
mod paths;
mod read;
mod search;

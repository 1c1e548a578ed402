//! The crate's errors: a config the client refuses, and why a call did not produce a result.

use thiserror::Error;

/// A server configuration the client will not run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    #[error("MCP server name \"{name}\" is invalid: use 1 to 64 of A-Z a-z 0-9 _ -")]
    BadName { name: String },
    #[error("MCP server command is empty: set \"command\" to the program to run")]
    EmptyCommand,
    #[error(
        "MCP server URL {url} uses plain http to a host that is not loopback: use https, or http://127.0.0.1 / http://localhost"
    )]
    InsecureUrl { url: String },
    #[error("MCP server URL scheme \"{scheme}\" is not supported: use https (or http on loopback)")]
    UnsupportedScheme { scheme: String },
    #[error("MCP server header \"{name}\" is refused: {why}")]
    BadHeader { name: String, why: &'static str },
}

/// Why a `tools/call` produced no result. A result with `isError` is a result, not this.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CallError {
    #[error("no MCP server of that name is configured")]
    NoSuchServer,
    #[error("the MCP server is not ready: {0}")]
    NotReady(String),
    #[error("the MCP tool call timed out")]
    Timeout,
    #[error("the MCP tool call was cancelled")]
    Cancelled,
    #[error("the MCP server stopped during the call: {0}")]
    ServerDied(String),
    #[error("the MCP server broke the protocol: {0}")]
    Protocol(String),
}

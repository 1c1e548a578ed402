//! ansa's MCP client: Model Context Protocol servers over stdio and streamable HTTP, on the
//! official SDK (`rmcp`), behind the blocking `McpHub` ansa's threads call.
//!
//! `McpHub::start` starts every enabled server in the background; `tools` lists the tools of
//! the ready ones; `call` runs one tool with the server's timeout and the caller's cancel flag;
//! dead servers restart on the next call with backoff; `shutdown` (or drop) kills every stdio
//! server's process group. This crate depends on no workspace crate.

#![forbid(unsafe_code)]

mod cancel;
mod config;
mod content;
mod error;
mod hub;
mod progress;
mod sanitize;
mod server;
mod status;
mod tool;

pub use cancel::CancelFlag;
pub use config::{ChildEnv, Secret, ServerConfig, ServerName, Transport, check_url};
pub use content::{CallResult, Content};
pub use error::{CallError, ConfigError};
pub use hub::{McpHub, Watched};
pub use progress::{Progress, ProgressSink};
pub use sanitize::one_line;
pub use status::{ServerState, ServerStatus};
pub use tool::{McpTool, ToolHints};
/// The URL type of `Transport::Http` (the `url` crate's).
pub use url::Url;

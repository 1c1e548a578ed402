//! The strict configuration of docs/contract/agent-behaviour.md §2: defaults, then `~/.ansa/config.json`, then
//! `<cwd>/.ansa/config.json`, then the environment (§5).

mod endpoint;
mod env;
mod error;
mod layer;
mod load;
mod mcp;
#[cfg(test)]
mod mcp_tests;
mod models;
mod orchestrate;
mod output;
mod sandbox;
mod strict;
#[cfg(test)]
mod tests;
mod withheld;

use std::fmt;
use std::path::PathBuf;

pub use endpoint::{DEFAULT_RESPONSES_BASE_URL, Endpoint};
pub use env::{AI_API_KEY, AI_CA_FILE, AI_ENDPOINT, AI_MODEL, AI_PROVIDER, Env, OPENAI_API_KEY};
pub use error::ConfigError;
pub use load::load;
pub use mcp::{
    DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS, McpServer, McpSettings, McpTransport,
    valid_server_name,
};
pub use models::ModelTable;
pub use orchestrate::{
    CHILD_TOKEN_BUDGET_MAX, CHILD_TOKEN_BUDGET_MIN, DEFAULT_CHILD_TOKEN_BUDGET,
    DEFAULT_MAX_CHILDREN, MAX_CHILDREN_MAX,
};
pub use sandbox::SandboxSettings;
pub use withheld::WithheldEnv;

/// Bounds of the numeric fields, as in the table of docs/contract/agent-behaviour.md §2.
pub mod bounds {
    /// Smallest `compact_bytes`.
    pub const COMPACT_BYTES_MIN: u64 = 16_384;
    /// Largest `tool_rounds` (per Resume segment and per turn).
    pub const TOOL_ROUNDS_MAX: u64 = 64;
    /// Largest `tool_calls` (per Resume segment and per turn).
    pub const TOOL_CALLS_MAX: u64 = 256;
    /// Largest `process_timeout_ms` (ten minutes).
    pub const PROCESS_TIMEOUT_MS_MAX: u64 = 600_000;
    /// Largest `process_output_bytes`; the spec gives no bound, this one keeps retained output in
    /// memory reasonable.
    pub const PROCESS_OUTPUT_BYTES_MAX: u64 = 16 * 1024 * 1024;
    /// Largest config file automatic loading reads.
    pub const CONFIG_FILE_MAX: u64 = 64 * 1024;
}

/// Files larger than this are recorded in a checkpoint without their content (16 MiB).
pub const DEFAULT_CHECKPOINT_MAX_FILE_BYTES: u64 = ash_engine::checkpoint::DEFAULT_MAX_FILE_BYTES;
/// What a session's checkpoint store may keep before checkpoints stop keeping contents (1 GiB).
pub const DEFAULT_CHECKPOINT_BUDGET_BYTES: u64 = ash_engine::checkpoint::DEFAULT_BUDGET_BYTES;

/// The Sign in with ChatGPT issuer unless the user config's `auth.issuer` names another.
pub const DEFAULT_AUTH_ISSUER: &str = "https://auth.openai.com";

/// The model the `responses` provider uses when none is configured.
pub const DEFAULT_RESPONSES_MODEL: &str = "gpt-6.1-sol";
/// The model name of the deterministic offline provider.
pub const OFFLINE_MODEL: &str = "offline";

/// Which provider adapter runs generations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI Responses API over HTTPS + SSE.
    Responses {
        /// Base URL; the adapter appends `/responses`.
        base_url: Endpoint,
    },
    /// OpenAI-compatible Chat Completions.
    Chat {
        /// Base URL; the adapter appends `/chat/completions`.
        base_url: Endpoint,
        /// Name of the variable that holds this server's API key, if it needs one.
        api_key_env: Option<String>,
    },
    /// Deterministic and network-free.
    Offline,
}

/// The provider kinds, without their settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// `responses`.
    Responses,
    /// `chat`.
    Chat,
    /// `offline`.
    Offline,
}

impl ProviderKind {
    /// The name used in config files and `AI_PROVIDER`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Responses => "responses",
            ProviderKind::Chat => "chat",
            ProviderKind::Offline => "offline",
        }
    }
}

impl Provider {
    /// The kind of this provider.
    pub fn kind(&self) -> ProviderKind {
        match self {
            Provider::Responses { .. } => ProviderKind::Responses,
            Provider::Chat { .. } => ProviderKind::Chat,
            Provider::Offline => ProviderKind::Offline,
        }
    }

    /// The default `responses` provider endpoint.
    pub(crate) fn default_responses_url() -> Endpoint {
        Endpoint::parse(DEFAULT_RESPONSES_BASE_URL)
            .unwrap_or_else(|e| unreachable!("built-in URL: {e}"))
    }

    /// The model used when none is configured; `chat` servers have no universal default.
    fn default_model(&self) -> Option<&'static str> {
        match self {
            Provider::Responses { .. } => Some(DEFAULT_RESPONSES_MODEL),
            Provider::Chat { .. } => None,
            Provider::Offline => Some(OFFLINE_MODEL),
        }
    }
}

/// What the agent's tools may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessMode {
    /// Read, write and execute.
    FullAccess,
    /// Only tools marked `read_only`.
    ReadOnly,
    /// Read freely; every command, edit and file change runs only after the user approves it.
    Ask,
}

impl AccessMode {
    /// The config-file spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AccessMode::FullAccess => "full_access",
            AccessMode::ReadOnly => "read_only",
            AccessMode::Ask => "ask",
        }
    }
}

/// A secret string whose `Debug` never shows the value.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: String) -> Self {
        Secret(value)
    }

    /// The value itself, for building the request header only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// An API key and the variable it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// The variable name, e.g. `AI_API_KEY`.
    pub source: String,
    /// The key.
    pub value: Secret,
}

/// The effective configuration: every field resolved and validated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// Provider adapter and its settings.
    pub provider: Provider,
    /// Requested model.
    pub model: String,
    /// The exact model name the provider must report back.
    pub returned_model: String,
    /// Soft JSON-context budget.
    pub compact_bytes: u64,
    /// Tool rounds per Resume segment and per turn.
    pub tool_rounds: u32,
    /// Tool calls per Resume segment and per turn.
    pub tool_calls: u32,
    /// Timeout of one command.
    pub process_timeout_ms: u64,
    /// Retained stdout+stderr of one command.
    pub process_output_bytes: u64,
    /// Globs hidden from file tools (user's first, then the project's); checkpoints record
    /// matching paths without their content.
    pub exclude: Vec<String>,
    /// Files larger than this are checkpointed without their content (not restorable).
    pub checkpoint_max_file_bytes: u64,
    /// Bytes a session's checkpoint store may keep; past it, checkpoints keep no new content
    /// and say so.
    pub checkpoint_budget_bytes: u64,
    /// What tools may do.
    pub access_mode: AccessMode,
    /// Whether direct `sudo` is allowed.
    pub allow_sudo: bool,
    /// Whether the file tools may write inside `.git` without asking (user config only).
    pub allow_git_writes: bool,
    /// Orchestrate mode's child agents at once (`max_children`; more wait).
    pub max_children: u32,
    /// Tokens one child may use per Resume segment before it pauses (`child_token_budget`).
    pub child_token_budget: u64,
    /// Extra environment variables exec children never inherit (user config only).
    pub exec_env_deny: Vec<String>,
    /// The OS sandbox commands run under (`sandbox`, `sandbox_network`, `sandbox_writable`).
    pub sandbox: SandboxSettings,
    /// The MCP servers (`mcp_servers`, `mcp_allow_read_only`; user config only). Not part of
    /// the session binding: servers come and go between runs, and their tools are journaled
    /// call by call.
    pub mcp: McpSettings,
    /// Every variable exec children never inherit: each one ansa reads a secret from (the key
    /// variables, every provider's `api_key_env`, the broker token), then `exec_env_deny`.
    pub withheld_env: WithheldEnv,
    /// The Sign in with ChatGPT issuer (`auth.issuer`, user config only).
    pub auth_issuer: String,
    /// Whether Responses requests ask for reasoning: `models.<model>.reasoning`, else OpenAI's
    /// catalog for api.openai.com, else no.
    pub reasoning: bool,
    /// The model's context window in tokens (`models.<model>.context_window`), which the TUI
    /// measures the context against; not bound to a session (it changes no request).
    pub context_window: Option<u64>,
    /// Every model's context window the config gives, in config order: a model chosen later
    /// (`--model`, `/model`) is measured against its own.
    pub context_windows: Vec<(String, u64)>,
    /// What the config says about each model's reasoning (for a model chosen later).
    pub model_table: ModelTable,
    /// API key from the environment, if any (login tokens live elsewhere).
    pub api_key: Option<ApiKey>,
    /// Extra PEM roots (`AI_CA_FILE`), canonicalised.
    pub ca_file: Option<PathBuf>,
    /// The shell's `ash-broker` (`ASH_BROKER_SOCKET`, `ASH_BROKER_TOKEN`): ephemeral shell
    /// state, never printed, digested or bound to a session.
    pub broker: Option<ash_broker::client::Route>,
    /// The config files that were read, in order.
    pub sources: Vec<PathBuf>,
}

impl Config {
    /// The effective config as canonical JSON (sorted keys, no whitespace), secrets redacted:
    /// what `--print-config` shows.
    pub fn to_print_json(&self) -> String {
        crate::canonical::canonical(&output::print_value(self))
    }

    /// Hex BLAKE3 of the settings a session is bound to (everything except secrets, the CA
    /// file and the list of source files); stable across key order and file layout.
    pub fn digest(&self) -> String {
        output::digest(self)
    }

    /// The fields the digest covers, as a JSON object (no secret is among them).
    pub fn binding_fields(&self) -> serde_json::Value {
        serde_json::Value::Object(output::binding_value(self))
    }
}

/// The context window `windows` (the config's `models.<model>.context_window` entries) gives
/// `model`, if any.
pub fn window_of(windows: &[(String, u64)], model: &str) -> Option<u64> {
    windows
        .iter()
        .find(|(name, _)| name == model)
        .map(|(_, w)| *w)
}

//! The session's MCP servers on ansa's side (issue 45): the hub built from the config (with a
//! scrubbed environment), the registry's MCP tools kept in step with the hub before each
//! request, the `mcp_tools` record and the note the model gets when tools are withdrawn.
//! Calls themselves run in the worker (`worker/mcp.rs`).

mod env;
pub mod recover;
mod status;

use std::path::Path;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use ansa_mcp::{McpHub, McpTool, ServerConfig, ServerName, Transport, Watched};
use ansa_sessions::mcp::{McpToolName, McpTools};

use super::core::Shared;
use crate::config::{McpSettings, McpTransport, WithheldEnv};
use crate::tools::ToolRegistry;
use crate::tools::mcp::{McpHints, McpToolSpec, offered_names};

pub use env::child_env;
pub use status::status_lines;

/// The longest the first request waits for servers still starting.
const FIRST_SETTLE_MAX: Duration = Duration::from_secs(30);
/// How long the state watcher waits before it looks again whether the session is gone.
const WATCH_WAKE: Duration = Duration::from_secs(1);

/// The session's hub and what the model was last offered of it.
pub struct McpSession {
    hub: Arc<McpHub>,
    /// `mcp_allow_read_only`.
    allow_read_only: bool,
    /// How long the first request may wait for servers to finish starting.
    first_settle: Duration,
    /// Whether the first request's wait happened.
    settled: bool,
    /// The hub generation the registry reflects.
    generation: Option<u64>,
    /// What the last `mcp_tools` record said.
    offered: Vec<McpToolName>,
}

/// Starts a session's MCP servers in the background: at once for a one-shot or a JSONL
/// driver, after its first frame for the TUI (node servers starting compete with it for the
/// CPU); a request starts them anyway.
pub struct McpLauncher(Arc<McpHub>);

impl McpLauncher {
    /// Starts the servers not started yet; returns at once.
    pub fn launch(&self) {
        self.0.launch();
    }
}

/// What changed since the last request.
pub struct McpChange {
    /// The new `mcp_tools` record, when the offered names changed.
    pub record: Option<McpTools>,
    /// A note for the model when tools were withdrawn.
    pub note: Option<String>,
}

impl McpSession {
    /// The session's servers, not started yet: [`McpLauncher::launch`] starts them in the
    /// background (a request launches them too). Stderr logs go to `log_dir`, processes get
    /// `env` plus their own `env`.
    pub fn start(settings: &McpSettings, log_dir: &Path, withheld: &WithheldEnv) -> Option<Self> {
        if settings.servers.is_empty() {
            return None;
        }
        let configs = server_configs(settings);
        let first_settle = settings
            .servers
            .iter()
            .filter(|s| s.enabled)
            .map(|s| Duration::from_millis(s.startup_timeout_ms))
            .max()
            .unwrap_or_default()
            .min(FIRST_SETTLE_MAX);
        let hub = McpHub::new(configs, log_dir, child_env(withheld));
        Some(McpSession {
            hub: Arc::new(hub),
            allow_read_only: settings.allow_read_only,
            first_settle,
            settled: false,
            generation: None,
            offered: Vec::new(),
        })
    }

    /// What starts the servers, for whoever decides when.
    pub fn launcher(&self) -> McpLauncher {
        McpLauncher(Arc::clone(&self.hub))
    }

    /// Publishes the servers' states whenever they change, between requests too (a server
    /// that could not start is shown before the user asks anything), from a thread of its own
    /// that ends when the servers stop or the session is gone. It holds neither the hub nor
    /// the core: dropping them still stops the servers.
    pub fn watch(&self, shared: Weak<Shared>) -> std::io::Result<()> {
        let hub = Arc::downgrade(&self.hub);
        std::thread::Builder::new()
            .name("ansa-mcp-watch".into())
            .spawn(move || {
                let mut seen = None;
                loop {
                    let Some(hub) = hub.upgrade() else { return };
                    match hub.watch(seen, WATCH_WAKE) {
                        Watched::Closed => return,
                        Watched::Quiet => {}
                        Watched::Changed(generation) => {
                            seen = Some(generation);
                            let Some(shared) = shared.upgrade() else {
                                return;
                            };
                            // Read under the core's lock, as a request's refresh does: the
                            // states frontends see keep their order.
                            let mut core = shared.lock();
                            match hub.statuses_while_open() {
                                Some(statuses) => core.mcp_statuses(&statuses),
                                None => return,
                            }
                        }
                    }
                }
            })
            .map(drop)
    }

    /// The hub (for calls and `/mcp`).
    pub fn hub(&self) -> &Arc<McpHub> {
        &self.hub
    }

    /// Whether a call of a tool with `hints` runs without approval in ask mode.
    pub fn runs_unasked(&self, hints: &McpHints) -> bool {
        self.allow_read_only && hints.read_only
    }

    /// Brings `registry` up to date with the hub before a request. The first time, waits
    /// (bounded) for servers still starting, so the first request offers their tools.
    pub fn refresh(&mut self, registry: &mut ToolRegistry) -> Option<McpChange> {
        if !self.settled {
            self.settled = true;
            self.hub.settle(Instant::now() + self.first_settle);
        }
        let generation = self.hub.generation();
        if self.generation == Some(generation) {
            return None;
        }
        self.generation = Some(generation);
        let specs = specs(&self.hub.tools());
        let names: Vec<McpToolName> = specs
            .iter()
            .map(|t| McpToolName {
                name: t.name.clone(),
                server: t.server.clone(),
                tool: t.tool.clone(),
                read_only: t.hints.read_only,
                idempotent: t.hints.idempotent,
            })
            .collect();
        // Tools offered before and gone now stay callable (a call restarts their server) but
        // are no longer listed; the model is told once.
        let withdrawn: Vec<McpToolSpec> = registry
            .mcp_tools()
            .iter()
            .chain(registry.mcp_withdrawn())
            .filter(|old| !specs.iter().any(|t| t.name == old.name))
            .cloned()
            .collect();
        let newly_withdrawn: Vec<&McpToolSpec> = withdrawn
            .iter()
            .filter(|t| registry.mcp_tool(&t.name).is_some())
            .collect();
        let note = withdrawn_note(&newly_withdrawn, &self.hub.statuses());
        registry.set_mcp(specs, withdrawn);
        let record = (names != self.offered).then(|| McpTools {
            tools: names.clone(),
        });
        self.offered = names;
        Some(McpChange { record, note })
    }

    /// Stops every server.
    pub fn shutdown(&self) {
        self.hub.shutdown();
    }
}

/// The registry's view of the hub's tools, named `mcp__SERVER__TOOL`.
fn specs(tools: &[McpTool]) -> Vec<McpToolSpec> {
    let pairs: Vec<(&str, &str)> = tools
        .iter()
        .map(|t| (t.server.as_str(), t.name.as_str()))
        .collect();
    offered_names(&pairs)
        .into_iter()
        .zip(tools)
        .map(|(name, t)| {
            let description = match &t.title {
                Some(title) if !t.description.contains(title.as_str()) => {
                    format!("{title}: {}", t.description)
                }
                _ => t.description.clone(),
            };
            McpToolSpec::new(
                name,
                t.server.as_str().to_owned(),
                t.name.clone(),
                description,
                t.input_schema.clone(),
                McpHints {
                    read_only: t.hints.read_only,
                    idempotent: t.hints.idempotent,
                    destructive: t.hints.destructive,
                    open_world: t.hints.open_world,
                },
            )
        })
        .collect()
}

/// One short note naming the servers whose tools were withdrawn and why.
fn withdrawn_note(
    withdrawn: &[&McpToolSpec],
    statuses: &[ansa_mcp::ServerStatus],
) -> Option<String> {
    if withdrawn.is_empty() {
        return None;
    }
    let mut servers: Vec<&str> = withdrawn.iter().map(|t| t.server.as_str()).collect();
    servers.dedup();
    let parts: Vec<String> = servers
        .iter()
        .map(|server| {
            let tools: Vec<&str> = withdrawn
                .iter()
                .filter(|t| t.server == *server)
                .map(|t| t.name.as_str())
                .collect();
            let why = statuses
                .iter()
                .find(|s| s.name.as_str() == *server)
                .map(|s| match &s.last_error {
                    Some(e) => format!("{}: {e}", s.state.as_str()),
                    None => s.state.as_str().to_owned(),
                })
                .unwrap_or_else(|| "gone".into());
            format!(
                "MCP server `{server}` is not available ({why}); its tools {} are withdrawn",
                tools.join(", ")
            )
        })
        .collect();
    Some(format!(
        "{}. Calling one of them again restarts the server first; if that fails, the call fails with the reason.",
        parts.join("; ")
    ))
}

/// The client's server configs from ansa's settings (names were checked when the config was read).
fn server_configs(settings: &McpSettings) -> Vec<ServerConfig> {
    settings
        .servers
        .iter()
        .filter_map(|s| {
            let name = ServerName::new(s.name.clone()).ok()?;
            let transport = match &s.transport {
                McpTransport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                } => Transport::Stdio {
                    command: command.clone(),
                    args: args.clone(),
                    env: env
                        .iter()
                        .map(|(k, v)| (k.clone(), v.expose().to_owned()))
                        .collect(),
                    cwd: cwd.clone(),
                },
                McpTransport::Http {
                    url,
                    headers,
                    bearer_token,
                    ..
                } => Transport::Http {
                    url: ansa_mcp::Url::parse(url.as_str()).ok()?,
                    headers: headers
                        .iter()
                        .map(|(k, v)| (k.clone(), v.expose().to_owned()))
                        .collect(),
                    bearer_token: bearer_token
                        .as_ref()
                        .map(|t| ansa_mcp::Secret::new(t.expose())),
                },
            };
            Some(ServerConfig {
                name,
                transport,
                enabled: s.enabled,
                startup_timeout: Duration::from_millis(s.startup_timeout_ms),
                tool_timeout: Duration::from_millis(s.tool_timeout_ms),
                enabled_tools: s.enabled_tools.clone(),
                disabled_tools: s.disabled_tools.clone(),
            })
        })
        .collect()
}

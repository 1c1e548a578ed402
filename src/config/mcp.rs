//! `mcp_servers` and `mcp_allow_read_only` (issue 45): the Model Context Protocol servers whose
//! tools a session offers. User config only: a server is a command ansa runs (or a URL it sends
//! headers to), so a repository must never add one. Every value that may hold a credential
//! (a stdio server's `env` values, an HTTP server's `headers` values, the bearer token read
//! from `bearer_token_env`) is a [`Secret`]: printed as `<set>`, never journaled or digested.

use std::path::PathBuf;

use super::endpoint::Endpoint;
use super::env::Env;
use super::error::ConfigError;
use super::strict::{Reader, Value};
use super::{Secret, WithheldEnv};

/// How long a server may take for `initialize` and `tools/list` unless configured (10 s).
pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 10_000;
/// How long one tool call may take unless configured (60 s).
pub const DEFAULT_TOOL_TIMEOUT_MS: u64 = 60_000;
/// Largest `startup_timeout_ms` (ten minutes).
pub const STARTUP_TIMEOUT_MS_MAX: u64 = 600_000;
/// Largest `tool_timeout_ms` (one hour).
pub const TOOL_TIMEOUT_MS_MAX: u64 = 3_600_000;
/// Most servers one config may name.
pub const SERVERS_MAX: usize = 32;

/// What the config's MCP fields say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpSettings {
    /// The configured servers, in file order.
    pub servers: Vec<McpServer>,
    /// `mcp_allow_read_only`: in ask mode, a tool that declares `readOnlyHint` runs without
    /// asking (default: every MCP call is asked about).
    pub allow_read_only: bool,
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    /// Its name (`[A-Za-z0-9_-]{1,64}`), the `SERVER` of `mcp__SERVER__TOOL`.
    pub name: String,
    /// How ansa talks to it.
    pub transport: McpTransport,
    /// `enabled` (default true): a disabled server is listed but never started.
    pub enabled: bool,
    /// `startup_timeout_ms`: bound of `initialize` plus `tools/list`.
    pub startup_timeout_ms: u64,
    /// `tool_timeout_ms`: bound of one `tools/call`.
    pub tool_timeout_ms: u64,
    /// `enabled_tools`: only these tools are offered (absent: all).
    pub enabled_tools: Option<Vec<String>>,
    /// `disabled_tools`: never offered.
    pub disabled_tools: Vec<String>,
}

/// A server's transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set for it (on top of the scrubbed base); values are secrets.
        env: Vec<(String, Secret)>,
        /// Its working directory (absolute), else the session's.
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP.
    Http {
        /// `https://`, or `http://` on a loopback host.
        url: Endpoint,
        /// Headers sent with every request; values are secrets.
        headers: Vec<(String, Secret)>,
        /// The variable the bearer token is read from.
        bearer_token_env: Option<String>,
        /// The token read from it (through [`Env::secret`], so exec children never inherit it).
        bearer_token: Option<Secret>,
    },
}

/// What one file says, before the environment is read.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct McpLayer {
    pub(crate) servers: Option<Vec<McpServer>>,
    pub(crate) allow_read_only: Option<bool>,
}

/// The fields of this file a project config may not set.
pub(crate) const USER_ONLY_FIELDS: [&str; 2] = ["mcp_servers", "mcp_allow_read_only"];

/// Reads one of the MCP fields into `layer`; `false` when `key` is not one of them.
pub(crate) fn read_field(
    r: &Reader<'_>,
    key: &str,
    v: &Value,
    layer: &mut McpLayer,
) -> Result<bool, ConfigError> {
    match key {
        "mcp_servers" => layer.servers = Some(servers(r, v)?),
        "mcp_allow_read_only" => layer.allow_read_only = Some(r.bool(key, v)?),
        _ => return Ok(false),
    }
    Ok(true)
}

/// `upper` wins field by field (only the user file can set these, so there is one layer).
pub(crate) fn overlay(lower: McpLayer, upper: McpLayer) -> McpLayer {
    McpLayer {
        servers: upper.servers.or(lower.servers),
        allow_read_only: upper.allow_read_only.or(lower.allow_read_only),
    }
}

/// The settings with their bearer tokens read from the environment: each variable is
/// registered as withheld before it is read.
pub(crate) fn finish(
    layer: McpLayer,
    env: &Env,
    withheld: &mut WithheldEnv,
) -> Result<McpSettings, ConfigError> {
    let mut servers = layer.servers.unwrap_or_default();
    for server in &mut servers {
        if let McpTransport::Http {
            bearer_token_env: Some(var),
            bearer_token,
            ..
        } = &mut server.transport
        {
            *bearer_token = env.secret(var, withheld)?.map(Secret::new);
            if bearer_token.is_none() && server.enabled {
                return Err(ConfigError::env(
                    var,
                    format!(
                        "is not set, but mcp_servers.{}.bearer_token_env names it: export it, or set \"enabled\": false for that server",
                        server.name
                    ),
                ));
            }
        }
    }
    Ok(McpSettings {
        servers,
        allow_read_only: layer.allow_read_only.unwrap_or(false),
    })
}

/// Whether `name` is a valid server name: `[A-Za-z0-9_-]{1,64}`.
pub fn valid_server_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn servers(r: &Reader<'_>, v: &Value) -> Result<Vec<McpServer>, ConfigError> {
    let entries = r.object("mcp_servers", v)?;
    if entries.len() > SERVERS_MAX {
        return Err(r.err(
            "mcp_servers",
            format!(
                "{} servers; at most {SERVERS_MAX} are supported",
                entries.len()
            ),
        ));
    }
    entries
        .iter()
        .map(|(name, entry)| server(r, name, entry))
        .collect()
}

fn server(r: &Reader<'_>, name: &str, v: &Value) -> Result<McpServer, ConfigError> {
    let at = format!("mcp_servers.{name}");
    if !valid_server_name(name) {
        return Err(r.err(
            &at,
            format!(
                "{name:?} is not a server name: 1 to 64 letters, digits, `_` or `-` (it becomes part of tool names)"
            ),
        ));
    }
    let fields = r.object(&at, v)?;
    let has = |k: &str| fields.iter().any(|(key, _)| key == k);
    let stdio = has("command");
    let http = has("url");
    let allowed: &[&str] = match (stdio, http) {
        (true, true) => {
            return Err(r.err(
                &at,
                "has both `command` (stdio) and `url` (HTTP); a server is one or the other",
            ));
        }
        (false, false) => {
            return Err(r.err(
                &at,
                "needs `command` (a stdio server) or `url` (a streamable HTTP server)",
            ));
        }
        (true, false) => &["command", "args", "env", "cwd"],
        (false, true) => &["url", "headers", "bearer_token_env"],
    };
    const COMMON: [&str; 5] = [
        "enabled",
        "startup_timeout_ms",
        "tool_timeout_ms",
        "enabled_tools",
        "disabled_tools",
    ];
    let mut out = McpServer {
        name: name.to_owned(),
        transport: if stdio {
            McpTransport::Stdio {
                command: String::new(),
                args: Vec::new(),
                env: Vec::new(),
                cwd: None,
            }
        } else {
            McpTransport::Http {
                url: Endpoint::parse("http://127.0.0.1")
                    .unwrap_or_else(|e| unreachable!("built-in URL: {e}")),
                headers: Vec::new(),
                bearer_token_env: None,
                bearer_token: None,
            }
        },
        enabled: true,
        startup_timeout_ms: DEFAULT_STARTUP_TIMEOUT_MS,
        tool_timeout_ms: DEFAULT_TOOL_TIMEOUT_MS,
        enabled_tools: None,
        disabled_tools: Vec::new(),
    };
    for (key, v) in fields {
        let field = format!("{at}.{key}");
        if !allowed.contains(&key.as_str()) && !COMMON.contains(&key.as_str()) {
            let kind = if stdio { "a stdio" } else { "an HTTP" };
            return Err(r.err(
                &field,
                format!(
                    "unknown field for {kind} server; it has {}, {}",
                    allowed.join(", "),
                    COMMON.join(", ")
                ),
            ));
        }
        match (key.as_str(), &mut out.transport) {
            ("enabled", _) => out.enabled = r.bool(&field, v)?,
            ("startup_timeout_ms", _) => {
                out.startup_timeout_ms = r.int(&field, v, 1, STARTUP_TIMEOUT_MS_MAX)?
            }
            ("tool_timeout_ms", _) => {
                out.tool_timeout_ms = r.int(&field, v, 1, TOOL_TIMEOUT_MS_MAX)?
            }
            ("enabled_tools", _) => out.enabled_tools = Some(names(r, &field, v)?),
            ("disabled_tools", _) => out.disabled_tools = names(r, &field, v)?,
            ("command", McpTransport::Stdio { command, .. }) => {
                *command = r.name(&field, v)?;
            }
            ("args", McpTransport::Stdio { args, .. }) => *args = strings(r, &field, v)?,
            ("env", McpTransport::Stdio { env, .. }) => *env = env_values(r, &field, v)?,
            ("cwd", McpTransport::Stdio { cwd, .. }) => {
                let text = r.name(&field, v)?;
                let path = PathBuf::from(&text);
                if !path.is_absolute() {
                    return Err(r.err(&field, format!("{text:?} is not an absolute path")));
                }
                *cwd = Some(path);
            }
            ("url", McpTransport::Http { url, .. }) => {
                *url = Endpoint::parse(r.string(&field, v)?).map_err(|e| r.err(&field, e))?;
            }
            ("headers", McpTransport::Http { headers, .. }) => {
                *headers = header_values(r, &field, v)?
            }
            (
                "bearer_token_env",
                McpTransport::Http {
                    bearer_token_env, ..
                },
            ) => {
                let var = r.string(&field, v)?;
                super::layer::check_env_name(var).map_err(|e| r.err(&field, e))?;
                *bearer_token_env = Some(var.to_owned());
            }
            _ => return Err(r.err(&field, "unknown field")),
        }
    }
    Ok(out)
}

fn strings(r: &Reader<'_>, field: &str, v: &Value) -> Result<Vec<String>, ConfigError> {
    r.array(field, v)?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("{field}[{i}]");
            let s = r.string(&at, item)?;
            if s.contains('\0') {
                return Err(r.err(&at, "contains a NUL character"));
            }
            Ok(s.to_owned())
        })
        .collect()
}

fn names(r: &Reader<'_>, field: &str, v: &Value) -> Result<Vec<String>, ConfigError> {
    r.array(field, v)?
        .iter()
        .enumerate()
        .map(|(i, item)| r.name(&format!("{field}[{i}]"), item))
        .collect()
}

/// A stdio server's `env`: variable names and secret values.
fn env_values(
    r: &Reader<'_>,
    field: &str,
    v: &Value,
) -> Result<Vec<(String, Secret)>, ConfigError> {
    let mut out = Vec::new();
    for (name, value) in r.object(field, v)? {
        let at = format!("{field}.{name}");
        super::layer::check_env_name(name).map_err(|e| r.err(&at, e))?;
        // The value is a secret: a wrong one is refused without echoing it.
        let text = r.string(&at, value)?;
        if text.contains('\0') {
            return Err(r.err(&at, "the value contains a NUL character"));
        }
        out.push((name.clone(), Secret::new(text.to_owned())));
    }
    Ok(out)
}

/// An HTTP server's `headers`: token names (RFC 9110) and secret values.
fn header_values(
    r: &Reader<'_>,
    field: &str,
    v: &Value,
) -> Result<Vec<(String, Secret)>, ConfigError> {
    let mut out = Vec::new();
    for (name, value) in r.object(field, v)? {
        let at = format!("{field}.{name}");
        let token = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !token {
            return Err(r.err(&at, format!("{name:?} is not an HTTP header name")));
        }
        let text = r.string(&at, value)?;
        if text.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
            return Err(r.err(&at, "the value contains control characters"));
        }
        out.push((name.clone(), Secret::new(text.to_owned())));
    }
    Ok(out)
}

/// `--print-config`'s view: names, never values (`<set>`).
pub(crate) fn print_value(settings: &McpSettings) -> serde_json::Value {
    use serde_json::json;
    let set = |pairs: &[(String, Secret)]| -> serde_json::Map<String, serde_json::Value> {
        pairs
            .iter()
            .map(|(k, _)| (k.clone(), json!("<set>")))
            .collect()
    };
    let servers: serde_json::Map<String, serde_json::Value> = settings
        .servers
        .iter()
        .map(|s| {
            let mut v = match &s.transport {
                McpTransport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                } => json!({
                    "command": command, "args": args, "env": set(env),
                    "cwd": cwd.as_ref().map(|p| p.to_string_lossy().into_owned()),
                }),
                McpTransport::Http {
                    url,
                    headers,
                    bearer_token_env,
                    bearer_token,
                } => json!({
                    "url": url.as_str(), "headers": set(headers),
                    "bearer_token_env": bearer_token_env,
                    "bearer_token": bearer_token.as_ref().map(|_| "<set>"),
                }),
            };
            v["enabled"] = json!(s.enabled);
            v["startup_timeout_ms"] = json!(s.startup_timeout_ms);
            v["tool_timeout_ms"] = json!(s.tool_timeout_ms);
            v["enabled_tools"] = json!(s.enabled_tools);
            v["disabled_tools"] = json!(s.disabled_tools);
            (s.name.clone(), v)
        })
        .collect();
    json!(servers)
}

//! One config file, checked field by field into a partial layer.

use super::endpoint::Endpoint;
use super::error::ConfigError;
use super::mcp::{self, McpLayer};
use super::sandbox::{self, SandboxLayer};
use super::strict::{Reader, Value, parse_object};
use super::{AccessMode, Provider, bounds};

/// Where a config file sits, which decides the fields it may set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// `~/.ansa/config.json`: every field.
    User,
    /// `<cwd>/.ansa/config.json`: no security-relevant field.
    Project,
}

/// Fields only the user's own file may set: a repository must not widen its own rights or pick
/// where the user's credentials are sent.
pub(crate) const USER_ONLY: &[&str] = &[
    "provider",
    "access_mode",
    "allow_sudo",
    "allow_git_writes",
    "exec_env_deny",
    "auth",
];

/// The settings one file makes; `None` leaves the lower layer's value.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Layer {
    pub(crate) model: Option<String>,
    pub(crate) returned_model: Option<String>,
    pub(crate) provider: Option<Provider>,
    pub(crate) compact_bytes: Option<u64>,
    pub(crate) tool_rounds: Option<u32>,
    pub(crate) tool_calls: Option<u32>,
    pub(crate) process_timeout_ms: Option<u64>,
    pub(crate) process_output_bytes: Option<u64>,
    pub(crate) exclude: Option<Vec<String>>,
    pub(crate) checkpoint_max_file_bytes: Option<u64>,
    pub(crate) checkpoint_budget_bytes: Option<u64>,
    pub(crate) access_mode: Option<AccessMode>,
    pub(crate) allow_sudo: Option<bool>,
    pub(crate) allow_git_writes: Option<bool>,
    pub(crate) exec_env_deny: Option<Vec<String>>,
    /// Per-model settings (`"models": {"<model>": {"reasoning": bool}}`).
    pub(crate) models: Option<Vec<(String, ModelEntry)>>,
    /// `"auth": {"issuer": "https://…"}`: where Sign in with ChatGPT goes.
    pub(crate) auth_issuer: Option<Endpoint>,
    /// `sandbox`, `sandbox_network`, `sandbox_writable` (a project file may only tighten them).
    pub(crate) sandbox: SandboxLayer,
    /// `max_children` (orchestrate mode).
    pub(crate) max_children: Option<u32>,
    /// `child_token_budget` (orchestrate mode).
    pub(crate) child_token_budget: Option<u64>,
    /// `mcp_servers`, `mcp_allow_read_only` (user config only).
    pub(crate) mcp: McpLayer,
}

/// What the config says about one model.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ModelEntry {
    /// Whether Responses requests ask for reasoning (`reasoning`, `include`).
    pub(crate) reasoning: Option<bool>,
    /// The model's context window in tokens, which the footer and `/status` measure the
    /// context against (`context_window`).
    pub(crate) context_window: Option<u64>,
}

/// Parses and validates one config file's bytes; `file` names it in errors.
pub(crate) fn parse_layer(file: &str, bytes: &[u8], origin: Origin) -> Result<Layer, ConfigError> {
    let fields = parse_object(file, bytes)?;
    let r = Reader { file };
    let mut layer = Layer::default();
    for (key, v) in &fields {
        let key = key.as_str();
        if origin == Origin::Project
            && (USER_ONLY.contains(&key) || mcp::USER_ONLY_FIELDS.contains(&key))
        {
            return Err(r.err(
                key,
                "may only be set in the user config (~/.ansa/config.json), not in a project file",
            ));
        }
        // Counters are at most 600000, so the `as u32` casts below cannot truncate.
        match key {
            "schema_version" => {
                r.int(key, v, 1, 1)?;
            }
            "model" => layer.model = Some(r.name(key, v)?),
            "returned_model" => layer.returned_model = Some(r.name(key, v)?),
            "provider" => layer.provider = Some(provider(&r, v)?),
            "compact_bytes" => {
                layer.compact_bytes = Some(r.int(key, v, bounds::COMPACT_BYTES_MIN, u64::MAX)?)
            }
            "tool_rounds" => {
                layer.tool_rounds = Some(r.int(key, v, 1, bounds::TOOL_ROUNDS_MAX)? as u32)
            }
            "tool_calls" => {
                layer.tool_calls = Some(r.int(key, v, 1, bounds::TOOL_CALLS_MAX)? as u32)
            }
            "process_timeout_ms" => {
                layer.process_timeout_ms = Some(r.int(key, v, 1, bounds::PROCESS_TIMEOUT_MS_MAX)?)
            }
            "process_output_bytes" => {
                layer.process_output_bytes =
                    Some(r.int(key, v, 1, bounds::PROCESS_OUTPUT_BYTES_MAX)?)
            }
            "exclude" => layer.exclude = Some(exclude(&r, v)?),
            "checkpoint_max_file_bytes" => {
                layer.checkpoint_max_file_bytes = Some(r.int(key, v, 1, u64::MAX)?)
            }
            "checkpoint_budget_bytes" => {
                layer.checkpoint_budget_bytes = Some(r.int(key, v, 0, u64::MAX)?)
            }
            "access_mode" => {
                layer.access_mode = Some(
                    match r.choice(key, v, &["full_access", "read_only", "ask"])? {
                        "read_only" => AccessMode::ReadOnly,
                        "ask" => AccessMode::Ask,
                        _ => AccessMode::FullAccess,
                    },
                )
            }
            "allow_sudo" => layer.allow_sudo = Some(r.bool(key, v)?),
            "allow_git_writes" => layer.allow_git_writes = Some(r.bool(key, v)?),
            "max_children" => {
                layer.max_children = Some(r.int(key, v, 1, super::MAX_CHILDREN_MAX)? as u32)
            }
            "child_token_budget" => {
                layer.child_token_budget = Some(r.int(
                    key,
                    v,
                    super::CHILD_TOKEN_BUDGET_MIN,
                    super::CHILD_TOKEN_BUDGET_MAX,
                )?)
            }
            "exec_env_deny" => layer.exec_env_deny = Some(env_names(&r, v)?),
            "models" => layer.models = Some(models(&r, v)?),
            "auth" => layer.auth_issuer = Some(auth(&r, v)?),
            _ => {
                if !sandbox::read_field(&r, key, v, &mut layer.sandbox)?
                    && !mcp::read_field(&r, key, v, &mut layer.mcp)?
                {
                    return Err(r.err(key, "unknown field"));
                }
            }
        }
    }
    Ok(layer)
}

fn auth(r: &Reader<'_>, v: &Value) -> Result<Endpoint, ConfigError> {
    let mut issuer = None;
    for (key, v) in r.object("auth", v)? {
        let field = format!("auth.{key}");
        match key.as_str() {
            "issuer" => {
                let text = r.string(&field, v)?;
                issuer = Some(Endpoint::parse(text).map_err(|reason| r.err(&field, reason))?);
            }
            _ => return Err(r.err(&field, "unknown field; `auth` has `issuer`")),
        }
    }
    issuer.ok_or_else(|| r.err("auth.issuer", "missing: the issuer's https:// URL"))
}

/// The largest `context_window` taken (a billion tokens): larger is a typo, not a model.
const CONTEXT_WINDOW_MAX: u64 = 1_000_000_000;

fn models(r: &Reader<'_>, v: &Value) -> Result<Vec<(String, ModelEntry)>, ConfigError> {
    let mut out = Vec::new();
    for (name, entry) in r.object("models", v)? {
        let at = format!("models.{name}");
        super::strict::check_name(name).map_err(|reason| r.err(&at, reason))?;
        let mut parsed = ModelEntry::default();
        for (key, v) in r.object(&at, entry)? {
            let field = format!("{at}.{key}");
            match key.as_str() {
                "reasoning" => parsed.reasoning = Some(r.bool(&field, v)?),
                "context_window" => {
                    parsed.context_window = Some(r.int(&field, v, 1, CONTEXT_WINDOW_MAX)?)
                }
                _ => {
                    return Err(r.err(
                        &field,
                        "unknown field; a model entry has `reasoning` and `context_window`",
                    ));
                }
            }
        }
        out.push((name.clone(), parsed));
    }
    Ok(out)
}

fn exclude(r: &Reader<'_>, v: &Value) -> Result<Vec<String>, ConfigError> {
    let mut out = Vec::new();
    for (i, item) in r.array("exclude", v)?.iter().enumerate() {
        let field = format!("exclude[{i}]");
        let pattern = r.string(&field, item)?;
        check_glob(pattern).map_err(|reason| r.err(&field, reason))?;
        out.push(pattern.to_string());
    }
    Ok(out)
}

/// Environment variable names (`[A-Za-z_][A-Za-z0-9_]*`), as exec's own rule has them.
fn env_names(r: &Reader<'_>, v: &Value) -> Result<Vec<String>, ConfigError> {
    let mut out = Vec::new();
    for (i, item) in r.array("exec_env_deny", v)?.iter().enumerate() {
        let field = format!("exec_env_deny[{i}]");
        let name = r.string(&field, item)?;
        let mut bytes = name.bytes();
        let valid = bytes
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            return Err(r.err(
                &field,
                format!("{name:?} is not an environment variable name (letters, digits, _; not starting with a digit)"),
            ));
        }
        out.push(name.to_string());
    }
    Ok(out)
}

/// Accepts a glob pattern that the exclusion predicate can compile.
pub(crate) fn check_glob(pattern: &str) -> Result<(), String> {
    if pattern.is_empty() {
        return Err("an empty pattern matches nothing; remove it".into());
    }
    globset::Glob::new(pattern)
        .map(drop)
        .map_err(|e| format!("{pattern:?} is not a valid glob: {}", e.kind()))
}

fn provider(r: &Reader<'_>, v: &Value) -> Result<Provider, ConfigError> {
    let fields = r.object("provider", v)?;
    let kind_value = fields
        .iter()
        .find(|(k, _)| k == "kind")
        .map(|(_, v)| v)
        .ok_or_else(|| {
            r.err(
                "provider.kind",
                "missing: expected responses, chat or offline",
            )
        })?;
    let kind = r.choice(
        "provider.kind",
        kind_value,
        &["responses", "chat", "offline"],
    )?;
    let allowed: &[&str] = match kind {
        "responses" => &["kind", "base_url"],
        "chat" => &["kind", "base_url", "api_key_env"],
        _ => &["kind"],
    };
    let mut base_url = None;
    let mut api_key_env = None;
    for (key, v) in fields {
        let field = format!("provider.{key}");
        if !allowed.contains(&key.as_str()) {
            return Err(r.err(&field, format!("unknown field for provider kind {kind:?}")));
        }
        match key.as_str() {
            "base_url" => {
                let s = r.string(&field, v)?;
                base_url = Some(Endpoint::parse(s).map_err(|e| r.err(&field, e))?);
            }
            "api_key_env" => {
                let s = r.string(&field, v)?;
                check_env_name(s).map_err(|e| r.err(&field, e))?;
                api_key_env = Some(s.to_string());
            }
            _ => {}
        }
    }
    Ok(match kind {
        "responses" => Provider::Responses {
            base_url: base_url.unwrap_or_else(Provider::default_responses_url),
        },
        "chat" => Provider::Chat {
            base_url: base_url.ok_or_else(|| {
                r.err(
                    "provider.base_url",
                    "missing: the chat provider needs the server's base URL",
                )
            })?,
            api_key_env,
        },
        _ => Provider::Offline,
    })
}

/// Accepts a portable environment variable name.
pub(crate) fn check_env_name(s: &str) -> Result<(), String> {
    let mut chars = s.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Ok(())
    } else {
        Err(format!(
            "{s:?} is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)"
        ))
    }
}

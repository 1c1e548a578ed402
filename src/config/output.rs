//! `--print-config` JSON and the session-binding digest.

use serde_json::{Map, Value, json};

use ash_engine::exec::sandbox::{self, SandboxMode};

use super::{Config, Provider};
use crate::canonical::canonical;

/// Replaces every secret in printed output.
pub(crate) const REDACTED: &str = "<redacted>";

fn provider_value(p: &Provider) -> Value {
    match p {
        Provider::Responses { base_url } => {
            json!({"kind": "responses", "base_url": base_url.as_str()})
        }
        Provider::Chat {
            base_url,
            api_key_env,
        } => {
            json!({"kind": "chat", "base_url": base_url.as_str(), "api_key_env": api_key_env})
        }
        Provider::Offline => json!({"kind": "offline"}),
    }
}

/// The fields a session is bound to.
pub(crate) fn binding_value(c: &Config) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("schema_version".into(), json!(1));
    m.insert("provider".into(), provider_value(&c.provider));
    m.insert("model".into(), json!(c.model));
    m.insert("returned_model".into(), json!(c.returned_model));
    m.insert("compact_bytes".into(), json!(c.compact_bytes));
    m.insert("tool_rounds".into(), json!(c.tool_rounds));
    m.insert("tool_calls".into(), json!(c.tool_calls));
    m.insert("process_timeout_ms".into(), json!(c.process_timeout_ms));
    m.insert("process_output_bytes".into(), json!(c.process_output_bytes));
    m.insert("exclude".into(), json!(c.exclude));
    m.insert("access_mode".into(), json!(c.access_mode.as_str()));
    m.insert("allow_sudo".into(), json!(c.allow_sudo));
    // Bound only when set, so that sessions made before the field existed keep their digest.
    if c.allow_git_writes {
        m.insert("allow_git_writes".into(), json!(true));
    }
    if c.checkpoint_max_file_bytes != super::DEFAULT_CHECKPOINT_MAX_FILE_BYTES {
        m.insert(
            "checkpoint_max_file_bytes".into(),
            json!(c.checkpoint_max_file_bytes),
        );
    }
    if c.checkpoint_budget_bytes != super::DEFAULT_CHECKPOINT_BUDGET_BYTES {
        m.insert(
            "checkpoint_budget_bytes".into(),
            json!(c.checkpoint_budget_bytes),
        );
    }
    m.insert("exec_env_deny".into(), json!(c.exec_env_deny));
    // Bound only when not the default, so that sessions made before the sandbox keep their
    // digest; a session resumed under another sandbox is then a different binding.
    if c.sandbox.mode != SandboxMode::Off {
        m.insert("sandbox".into(), json!(c.sandbox.mode.as_str()));
    }
    if c.sandbox.network {
        m.insert("sandbox_network".into(), json!(true));
    }
    if !c.sandbox.writable.is_empty() {
        let roots: Vec<String> = c
            .sandbox
            .writable
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        m.insert("sandbox_writable".into(), json!(roots));
    }
    m.insert("reasoning".into(), json!(c.reasoning));
    m.insert("auth".into(), json!({"issuer": c.auth_issuer}));
    m
}

/// Everything `--print-config` shows: the binding fields plus provenance, secrets redacted.
pub(crate) fn print_value(c: &Config) -> Value {
    let mut m = binding_value(c);
    let key = c
        .api_key
        .as_ref()
        .map(|k| json!({"source": k.source, "value": REDACTED}));
    m.insert("api_key".into(), key.unwrap_or(Value::Null));
    let ca = c.ca_file.as_ref().map(|p| p.to_string_lossy().into_owned());
    m.insert("ca_file".into(), json!(ca));
    let sources: Vec<String> = c
        .sources
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    m.insert("sources".into(), json!(sources));
    // Not bound (a resumed session may run more or fewer children at once); shown when set.
    if c.max_children != super::DEFAULT_MAX_CHILDREN {
        m.insert("max_children".into(), json!(c.max_children));
    }
    if c.child_token_budget != super::DEFAULT_CHILD_TOKEN_BUDGET {
        m.insert("child_token_budget".into(), json!(c.child_token_budget));
    }
    m.insert("digest".into(), json!(digest(c)));
    // Not part of the binding; shown only when set, so the common output stays as it was.
    if let Some(window) = c.context_window {
        m.insert("context_window".into(), json!(window));
    }
    // Shown whatever the mode (the binding omits the defaults), with what this kernel can
    // enforce: the user sees before a task whether a chosen sandbox would hold.
    m.insert("sandbox".into(), json!(c.sandbox.mode.as_str()));
    m.insert("sandbox_network".into(), json!(c.sandbox.network));
    m.insert(
        "sandbox_writable".into(),
        json!(
            c.sandbox
                .writable
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        ),
    );
    m.insert("sandbox_enforcement".into(), enforcement_value(c));
    m.insert("mcp_servers".into(), super::mcp::print_value(&c.mcp));
    m.insert("mcp_allow_read_only".into(), json!(c.mcp.allow_read_only));
    Value::Object(m)
}

/// What this kernel enforces of the configured sandbox: the Landlock ABI, seccomp, and
/// whether commands can run (`null` reason) or why they cannot.
fn enforcement_value(c: &Config) -> Value {
    let support = sandbox::probe();
    let refused = c
        .sandbox
        .policy()
        .check(&support)
        .err()
        .map(|e| e.to_string());
    json!({
        "landlock_abi": support.landlock_abi,
        "seccomp": support.seccomp,
        "refused": refused,
    })
}

/// Hex BLAKE3 over a domain tag and the canonical binding JSON.
pub(crate) fn digest(c: &Config) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"ansa-config-binding/1\n");
    h.update(canonical(&Value::Object(binding_value(c))).as_bytes());
    h.finalize().to_hex().to_string()
}

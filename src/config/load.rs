//! Finding, reading and merging the config layers.

use std::path::Path;

use super::env::{self, Env};
use super::error::ConfigError;
use super::layer::{Layer, ModelEntry, Origin, parse_layer};
use super::sandbox::{self, SandboxLayer, SandboxSettings};
use super::{
    AccessMode, Config, DEFAULT_AUTH_ISSUER, DEFAULT_CHECKPOINT_BUDGET_BYTES,
    DEFAULT_CHECKPOINT_MAX_FILE_BYTES, Provider, WithheldEnv, bounds,
};
use crate::home::{AnsaHome, CONFIG_FILE};
use crate::safe_open::{Dir, Lookup};

/// Loads the effective config for a session in `cwd`.
pub fn load(home: &AnsaHome, cwd: &Path, env: &Env) -> Result<Config, ConfigError> {
    let mut sources = Vec::new();
    let mut merged = Layer::default();
    let home_dir = if home.verify_if_exists()? {
        open_dir(home.root())?
    } else {
        None
    };
    if let Some(dir) = &home_dir
        && let Some(layer) = read_layer(dir, Origin::User)?
    {
        sources.push(dir.path().join(CONFIG_FILE));
        merged = overlay(merged, layer);
    }
    if let Some(project) = project_dir(cwd)? {
        // Run in $HOME, `<cwd>/.ansa` is the user's own home: read it once, as the user file.
        let same = match &home_dir {
            Some(h) => h.same_as(&project).map_err(|e| io(project.path(), e))?,
            None => false,
        };
        if !same && let Some(layer) = read_layer(&project, Origin::Project)? {
            let file = project.path().join(CONFIG_FILE);
            let user = SandboxSettings::from_layer(merged.sandbox.clone());
            sandbox::check_tightens(&file.display().to_string(), &user, &layer.sandbox)?;
            sources.push(file);
            merged = overlay(merged, layer);
        }
    }
    finish(merged, env, sources)
}

fn io(path: &Path, source: std::io::Error) -> ConfigError {
    ConfigError::Io {
        file: path.display().to_string(),
        source,
    }
}

fn open_dir(path: &Path) -> Result<Option<Dir>, ConfigError> {
    match Dir::open_trusted(path).map_err(|e| io(path, e))? {
        Lookup::Found(d) => Ok(Some(d)),
        Lookup::Missing => Ok(None),
        Lookup::Refused(r) => Err(ConfigError::Refused {
            file: path.display().to_string(),
            reason: r.to_string(),
        }),
    }
}

fn project_dir(cwd: &Path) -> Result<Option<Dir>, ConfigError> {
    let Some(cwd_dir) = open_dir(cwd)? else {
        return Err(io(cwd, std::io::Error::from(std::io::ErrorKind::NotFound)));
    };
    let path = cwd.join(".ansa");
    match cwd_dir.child_dir(".ansa").map_err(|e| io(&path, e))? {
        Lookup::Found(d) => Ok(Some(d)),
        Lookup::Missing => Ok(None),
        Lookup::Refused(r) => Err(ConfigError::Refused {
            file: path.display().to_string(),
            reason: r.to_string(),
        }),
    }
}

fn read_layer(dir: &Dir, origin: Origin) -> Result<Option<Layer>, ConfigError> {
    let path = dir.path().join(CONFIG_FILE);
    let file = path.display().to_string();
    match dir
        .read_file(CONFIG_FILE, bounds::CONFIG_FILE_MAX)
        .map_err(|e| io(&path, e))?
    {
        Lookup::Missing => Ok(None),
        Lookup::Refused(r) => Err(ConfigError::Refused {
            file,
            reason: r.to_string(),
        }),
        Lookup::Found(bytes) => parse_layer(&file, &bytes, origin).map(Some),
    }
}

/// `upper` wins field by field; exclusion lists add up, so a project can hide more but never
/// un-hide what the user hid.
pub(crate) fn overlay(lower: Layer, upper: Layer) -> Layer {
    let exclude = match (lower.exclude, upper.exclude) {
        (Some(mut a), Some(b)) => {
            for p in b {
                if !a.contains(&p) {
                    a.push(p);
                }
            }
            Some(a)
        }
        (a, b) => b.or(a),
    };
    Layer {
        model: upper.model.or(lower.model),
        returned_model: upper.returned_model.or(lower.returned_model),
        provider: upper.provider.or(lower.provider),
        compact_bytes: upper.compact_bytes.or(lower.compact_bytes),
        tool_rounds: upper.tool_rounds.or(lower.tool_rounds),
        tool_calls: upper.tool_calls.or(lower.tool_calls),
        process_timeout_ms: upper.process_timeout_ms.or(lower.process_timeout_ms),
        process_output_bytes: upper.process_output_bytes.or(lower.process_output_bytes),
        exclude,
        checkpoint_max_file_bytes: upper
            .checkpoint_max_file_bytes
            .or(lower.checkpoint_max_file_bytes),
        checkpoint_budget_bytes: upper
            .checkpoint_budget_bytes
            .or(lower.checkpoint_budget_bytes),
        access_mode: upper.access_mode.or(lower.access_mode),
        allow_sudo: upper.allow_sudo.or(lower.allow_sudo),
        allow_git_writes: upper.allow_git_writes.or(lower.allow_git_writes),
        max_children: upper.max_children.or(lower.max_children),
        child_token_budget: upper.child_token_budget.or(lower.child_token_budget),
        exec_env_deny: upper.exec_env_deny.or(lower.exec_env_deny),
        models: merge_models(lower.models, upper.models),
        auth_issuer: upper.auth_issuer.or(lower.auth_issuer),
        sandbox: SandboxLayer {
            mode: upper.sandbox.mode.or(lower.sandbox.mode),
            network: upper.sandbox.network.or(lower.sandbox.network),
            writable: upper.sandbox.writable.or(lower.sandbox.writable),
        },
        mcp: super::mcp::overlay(lower.mcp, upper.mcp),
    }
}

/// Model entries add up; an upper entry for the same model wins field by field.
fn merge_models(
    lower: Option<Vec<(String, ModelEntry)>>,
    upper: Option<Vec<(String, ModelEntry)>>,
) -> Option<Vec<(String, ModelEntry)>> {
    let (mut out, upper) = match (lower, upper) {
        (None, None) => return None,
        (a, b) => (a.unwrap_or_default(), b.unwrap_or_default()),
    };
    for (name, entry) in upper {
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, old)) => {
                old.reasoning = entry.reasoning.or(old.reasoning);
                old.context_window = entry.context_window.or(old.context_window);
            }
            None => out.push((name, entry)),
        }
    }
    Some(out)
}

/// Applies the environment and the defaults.
pub(crate) fn finish(
    layer: Layer,
    env: &Env,
    sources: Vec<std::path::PathBuf>,
) -> Result<Config, ConfigError> {
    let mut withheld = WithheldEnv::built_in();
    let o = env::read_overrides(env, &mut withheld)?;
    let file_provider = layer.provider.unwrap_or_else(|| Provider::Responses {
        base_url: Provider::default_responses_url(),
    });
    // The file's key variable stays withheld when the environment selects another provider:
    // the user keeps it set for the provider they configured.
    withheld.add_provider(&file_provider);
    let provider = env::override_provider(file_provider, &o)?;
    withheld.add_provider(&provider);
    // A returned_model from a file names the file's model; once AI_MODEL replaces the model it
    // would bind the session to a stale name, so it falls back to the new model.
    let (model, returned_model) = match o.model {
        Some(m) => (m.clone(), m),
        None => {
            let model = match layer
                .model
                .or_else(|| provider.default_model().map(str::to_string))
            {
                Some(m) => m,
                None => {
                    return Err(ConfigError::Inconsistent(format!(
                        "the {} provider has no default model: set \"model\" in a config file or AI_MODEL",
                        provider.kind().as_str()
                    )));
                }
            };
            let returned = layer.returned_model.unwrap_or_else(|| model.clone());
            (model, returned)
        }
    };
    let api_key = env::api_key(env, &provider, &mut withheld)?;
    let exec_env_deny = layer.exec_env_deny.unwrap_or_default();
    let mcp = super::mcp::finish(layer.mcp, env, &mut withheld)?;
    for name in &exec_env_deny {
        withheld.add(name);
    }
    let context_windows: Vec<(String, u64)> = layer
        .models
        .iter()
        .flatten()
        .filter_map(|(name, entry)| entry.context_window.map(|w| (name.clone(), w)))
        .collect();
    let context_window = super::window_of(&context_windows, &model);
    let model_table = super::models::ModelTable::new(
        layer
            .models
            .into_iter()
            .flatten()
            .filter_map(|(name, entry)| entry.reasoning.map(|r| (name, r))),
    );
    let reasoning = model_table.reasoning_for(&provider, &model);
    Ok(Config {
        reasoning,
        context_window,
        context_windows,
        model_table,
        auth_issuer: layer
            .auth_issuer
            .map_or_else(|| DEFAULT_AUTH_ISSUER.to_owned(), |e| e.as_str().to_owned()),
        model,
        returned_model,
        compact_bytes: layer.compact_bytes.unwrap_or(262_144),
        tool_rounds: layer.tool_rounds.unwrap_or(32),
        tool_calls: layer.tool_calls.unwrap_or(64),
        process_timeout_ms: layer.process_timeout_ms.unwrap_or(60_000),
        process_output_bytes: layer.process_output_bytes.unwrap_or(16_384),
        exclude: layer.exclude.unwrap_or_default(),
        checkpoint_max_file_bytes: layer
            .checkpoint_max_file_bytes
            .unwrap_or(DEFAULT_CHECKPOINT_MAX_FILE_BYTES),
        checkpoint_budget_bytes: layer
            .checkpoint_budget_bytes
            .unwrap_or(DEFAULT_CHECKPOINT_BUDGET_BYTES),
        access_mode: layer.access_mode.unwrap_or(AccessMode::FullAccess),
        allow_sudo: layer.allow_sudo.unwrap_or(false),
        allow_git_writes: layer.allow_git_writes.unwrap_or(false),
        max_children: layer.max_children.unwrap_or(super::DEFAULT_MAX_CHILDREN),
        child_token_budget: layer
            .child_token_budget
            .unwrap_or(super::DEFAULT_CHILD_TOKEN_BUDGET),
        exec_env_deny,
        sandbox: SandboxSettings::from_layer(layer.sandbox),
        mcp,
        withheld_env: withheld,
        provider,
        api_key,
        ca_file: o.ca_file,
        broker: o.broker,
        sources,
    })
}

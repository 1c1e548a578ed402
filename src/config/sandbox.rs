//! The OS sandbox settings (`sandbox`, `sandbox_network`, `sandbox_writable`): reading them
//! from a file, and the rule that a project file may only tighten what the user chose.

use std::path::{Path, PathBuf};

use ash_engine::exec::sandbox::{SandboxMode, SandboxPolicy};

use super::error::ConfigError;
use super::strict::{Reader, Value};

/// The sandbox settings one file makes; `None` leaves the lower layer's value.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct SandboxLayer {
    pub(crate) mode: Option<SandboxMode>,
    pub(crate) network: Option<bool>,
    pub(crate) writable: Option<Vec<PathBuf>>,
}

/// The effective sandbox settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// `sandbox`: how much of the system a command may change (default `off`).
    pub mode: SandboxMode,
    /// `sandbox_network`: whether `workspace-write` commands may use the network.
    pub network: bool,
    /// `sandbox_writable`: absolute, existing, canonical directories writable besides the
    /// workspace and the temp directories.
    pub writable: Vec<PathBuf>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        SandboxSettings {
            mode: SandboxMode::Off,
            network: false,
            writable: Vec::new(),
        }
    }
}

impl SandboxSettings {
    /// The engine policy every command runs under (mode `off`: the engine's unrestricted one,
    /// whatever the other two fields say).
    pub fn policy(&self) -> SandboxPolicy {
        if self.mode == SandboxMode::Off {
            return SandboxPolicy::off();
        }
        SandboxPolicy {
            mode: self.mode,
            writable: self.writable.clone(),
            network: self.network,
        }
    }

    /// Refuses a workspace-write sandbox that protects nothing that matters: a workspace at
    /// `/`, or a workspace or `sandbox_writable` root holding ansa's home `home`, whose
    /// config a command could rewrite to turn the sandbox off for later sessions.
    pub fn check_workspace(&self, workspace: &Path, home: &Path) -> Result<(), ConfigError> {
        if self.mode != SandboxMode::WorkspaceWrite {
            return Ok(());
        }
        let workspace = real(workspace);
        if workspace.parent().is_none() {
            return Err(ConfigError::Sandbox(
                "the workspace is the whole filesystem (/), so workspace-write would let commands write everywhere; start ansa in a project directory, or choose --sandbox read-only".to_owned(),
            ));
        }
        let home = real(home);
        let roots = std::iter::once((&workspace, "the workspace")).chain(
            self.writable
                .iter()
                .map(|r| (r, "the sandbox_writable root")),
        );
        for (root, what) in roots {
            if home.starts_with(root) {
                return Err(ConfigError::Sandbox(format!(
                    "{what} {} contains ansa's home {}, so a sandboxed command could rewrite ansa's config and turn the sandbox off for later sessions; move ansa's home out of it (set ANSA_HOME), or run ansa from a directory that does not contain it",
                    root.display(),
                    home.display()
                )));
            }
        }
        Ok(())
    }

    /// The settings of `layer` over the defaults.
    pub(crate) fn from_layer(layer: SandboxLayer) -> SandboxSettings {
        let d = SandboxSettings::default();
        SandboxSettings {
            mode: layer.mode.unwrap_or(d.mode),
            network: layer.network.unwrap_or(d.network),
            writable: layer.writable.unwrap_or(d.writable),
        }
    }
}

/// `path` with symlinks resolved where it exists (as the sandbox will enforce it), as given
/// otherwise (a home not created yet).
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// How strict a mode is: a project may only move up this order.
fn strictness(mode: SandboxMode) -> u8 {
    match mode {
        SandboxMode::Off => 0,
        SandboxMode::WorkspaceWrite => 1,
        SandboxMode::ReadOnly => 2,
    }
}

/// Reads one of the sandbox fields into `layer`; `false` when `key` is not one of them.
pub(crate) fn read_field(
    r: &Reader<'_>,
    key: &str,
    v: &Value,
    layer: &mut SandboxLayer,
) -> Result<bool, ConfigError> {
    match key {
        "sandbox" => {
            let name = r.string(key, v)?;
            let mode = name
                .parse::<SandboxMode>()
                .map_err(|e| r.err(key, e.to_string()))?;
            layer.mode = Some(mode);
        }
        "sandbox_network" => layer.network = Some(r.bool(key, v)?),
        "sandbox_writable" => layer.writable = Some(writable(r, v)?),
        _ => return Ok(false),
    }
    Ok(true)
}

/// `sandbox_writable`: absolute paths of existing directories, none of them `/`; kept in
/// their canonical form so a symlinked spelling and the digest agree with what is enforced.
fn writable(r: &Reader<'_>, v: &Value) -> Result<Vec<PathBuf>, ConfigError> {
    let mut out = Vec::new();
    for (i, item) in r.array("sandbox_writable", v)?.iter().enumerate() {
        let field = format!("sandbox_writable[{i}]");
        let text = r.string(&field, item)?;
        let path = Path::new(text);
        if !path.is_absolute() {
            return Err(r.err(
                &field,
                format!("{text:?} is not an absolute path; write the directory's full path"),
            ));
        }
        let canonical = std::fs::canonicalize(path).map_err(|e| {
            r.err(
                &field,
                format!(
                    "{text:?} is not an existing directory ({e}); create it or remove the entry"
                ),
            )
        })?;
        if !canonical.is_dir() {
            return Err(r.err(
                &field,
                format!("{text:?} is not a directory; list directories only"),
            ));
        }
        if canonical.parent().is_none() {
            return Err(r.err(
                &field,
                format!(
                    "{text:?} is the whole filesystem, which would leave nothing protected; list narrower directories, or choose \"sandbox\": \"off\""
                ),
            ));
        }
        if !out.contains(&canonical) {
            out.push(canonical);
        }
    }
    Ok(out)
}

/// A project file may only tighten the user's sandbox: a stricter mode, the network off, fewer
/// writable roots. `user` is what the user's file (or the defaults) chose; the refusal names
/// the project file's field.
pub(crate) fn check_tightens(
    file: &str,
    user: &SandboxSettings,
    project: &SandboxLayer,
) -> Result<(), ConfigError> {
    let r = Reader { file };
    if let Some(mode) = project.mode
        && strictness(mode) < strictness(user.mode)
    {
        return Err(r.err(
            "sandbox",
            format!(
                "a project may only tighten the sandbox: {mode:?} is looser than the user's {:?}; change ~/.ansa/config.json or pass --sandbox {mode} to choose it yourself",
                user.mode.as_str(),
                mode = mode.as_str()
            ),
        ));
    }
    if project.network == Some(true) && !user.network {
        return Err(r.err(
            "sandbox_network",
            "a project may only tighten the sandbox: it cannot turn the network on; set \"sandbox_network\": true in ~/.ansa/config.json to allow it yourself",
        ));
    }
    if let Some(roots) = &project.writable
        && let Some((i, root)) = roots
            .iter()
            .enumerate()
            .find(|(_, root)| !user.writable.contains(root))
    {
        return Err(r.err(
            &format!("sandbox_writable[{i}]"),
            format!(
                "a project may only tighten the sandbox: it cannot add the writable root {}; list it in ~/.ansa/config.json to allow it yourself",
                root.display()
            ),
        ));
    }
    Ok(())
}

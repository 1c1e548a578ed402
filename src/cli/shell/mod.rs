//! Shell integration: `ansa --install-shell bash|zsh` writes the wrapper that starts one
//! `ash-broker` per interactive shell (`docs/broker.md`), and `ansa --broker-upstream` tells
//! the wrapper which provider to broker.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use ansa_ui::sanitize::exact;

use super::{Args, Exit, Failure, start};
use crate::config::Env;
use crate::home::AnsaHome;
use crate::provider::live::LiveProvider;

/// The wrapper, with `@SHELL@` for the shell's name.
const WRAPPER: &str = include_str!("wrapper.sh");
/// Marks the line this integration adds to an rc file.
const MARK: &str = "# ansa shell integration";

/// A shell the integration supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    /// GNU Bash (`~/.bashrc`).
    Bash,
    /// Z shell (`~/.zshrc`).
    Zsh,
}

impl Shell {
    fn name(self) -> &'static str {
        match self {
            Shell::Bash => "bash",
            Shell::Zsh => "zsh",
        }
    }

    /// The rc file the source line goes into.
    fn rc(self, home: &Path) -> PathBuf {
        match self {
            Shell::Bash => home.join(".bashrc"),
            Shell::Zsh => home.join(".zshrc"),
        }
    }
}

/// Prints the base URL of the live provider a broker may forward to, or exits 1 (printing
/// nothing) when no live provider with credentials is configured: then nothing is brokered.
pub fn broker_upstream(home: &AnsaHome, env: &Env, args: &Args) -> Result<Exit, Failure> {
    let cwd = start::workspace(args.cwd.as_deref(), None)?;
    let config = start::load_config(home, &cwd, env, args)?;
    let signin = start::signin_source(home, args, &config)?;
    match LiveProvider::check(&config, signin.as_ref()) {
        Ok((_, base)) if base.as_str().starts_with("https://") => {
            println!("{}", base.as_str());
            Ok(Exit::Success)
        }
        _ => Ok(Exit::TaskFailed),
    }
}

/// Writes the integration for `shell` and sources it from the shell's rc file (once).
pub fn install(home: &AnsaHome, shell: Shell, overwrite: bool) -> Result<Exit, Failure> {
    let user_home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| Failure::config("HOME is not set; cannot find the shell's rc file"))?;
    home.ensure().map_err(Failure::config)?;
    let script = home.root().join(format!(".ansa_{}rc", shell.name()));
    let text = WRAPPER.replace("@SHELL@", shell.name());
    // Whether the wrapper was there before, and whether this run wrote it.
    let (had_script, wrote_script) = match std::fs::read_to_string(&script) {
        Ok(existing) if existing == text => (true, false),
        Ok(_) if !overwrite => {
            return Err(Failure::usage(format!(
                "{} exists and differs from this version's integration; pass --overwrite to replace it",
                script.display()
            )));
        }
        Ok(_) => {
            write_new(&script, &text)?;
            (true, true)
        }
        Err(_) => {
            write_new(&script, &text)?;
            (false, true)
        }
    };
    let rc = shell.rc(&user_home);
    let line = format!("[ -f \"{0}\" ] && . \"{0}\"  {MARK}", script.display());
    let current = match std::fs::read_to_string(&rc) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(Failure::config(format!(
                "cannot read {}: {e}",
                rc.display()
            )));
        }
    };
    let ours = |l: &str| l.ends_with(MARK);
    let same = current.lines().any(|l| l == line);
    let had = current.lines().any(ours);
    if !same {
        if had {
            // An older integration line is replaced where it stands; nothing else changes.
            let mut updated: String = current
                .lines()
                .map(|l| if ours(l) { line.as_str() } else { l })
                .collect::<Vec<_>>()
                .join("\n");
            updated.push('\n');
            rewrite_in_place(&rc, &updated)?;
        } else {
            append(&rc, &current, &line)?;
        }
    }
    let (script, rc) = (script.display().to_string(), rc.display().to_string());
    let (script, rc) = (exact(&script), exact(&rc));
    let name = shell.name();
    let line = match Outcome::of(had_script, wrote_script, same, had) {
        Outcome::Unchanged => format!(
            "the {name} integration is already installed: {script} (sourced from {rc}); nothing changed"
        ),
        done => format!(
            "{} the {name} integration: {script} (sourced from {rc}); open a new shell to use it",
            done.verb()
        ),
    };
    let _ = writeln!(std::io::stdout(), "{line}");
    Ok(Exit::Success)
}

/// What `--install-shell` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Neither the wrapper nor the rc line was there.
    Installed,
    /// Something of an earlier integration was replaced.
    Updated,
    /// Both were already this version's: nothing was written.
    Unchanged,
}

impl Outcome {
    /// From whether the wrapper existed and was written, and whether the rc file held this
    /// exact source line or an older one.
    fn of(had_script: bool, wrote_script: bool, same_line: bool, had_line: bool) -> Self {
        if !wrote_script && same_line {
            Outcome::Unchanged
        } else if had_script || had_line {
            Outcome::Updated
        } else {
            Outcome::Installed
        }
    }

    fn verb(self) -> &'static str {
        match self {
            Outcome::Installed => "installed",
            Outcome::Updated => "updated",
            Outcome::Unchanged => "kept",
        }
    }
}

/// Replaces `path` (our own file) with `text` through a temporary file beside it, so an
/// interrupted write leaves the old file whole.
fn write_new(path: &Path, text: &str) -> Result<(), Failure> {
    let fail = |e: std::io::Error| Failure::config(format!("cannot write {}: {e}", path.display()));
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(name);
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(fail)
}

/// Adds `line` at the end of the rc file (through a symlink, if the user keeps it as one).
fn append(rc: &Path, current: &str, line: &str) -> Result<(), Failure> {
    let fail = |e: std::io::Error| Failure::config(format!("cannot write {}: {e}", rc.display()));
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o644)
        .open(rc)
        .map_err(fail)?;
    let gap = if current.is_empty() || current.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    file.write_all(format!("{gap}{line}\n").as_bytes())
        .map_err(fail)
}

/// Writes the rc file's new text into the same file (a symlinked rc file stays a symlink).
fn rewrite_in_place(rc: &Path, text: &str) -> Result<(), Failure> {
    let fail = |e: std::io::Error| Failure::config(format!("cannot write {}: {e}", rc.display()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(rc)
        .map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)
}

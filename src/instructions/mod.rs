//! Instructions (docs/contract/agent-behaviour.md §3): AGENTS.md discovery, nested delivery, and the files that file tools
//! must never expose.
//!
//! Decision: an AGENTS.md that automatic loading must not use (a symlink, a hard link, not a
//! regular file, too large, not UTF-8) is *skipped with a reason*, not a fatal error. Repositories
//! commonly symlink AGENTS.md to another file; refusing to start there would help nobody, while
//! silently reading the link target would let a link redirect what the model is told. The
//! runtime shows every [`Skipped`] entry to the user. Real I/O failures are errors.

mod discover;
mod exclude;
mod nested;
mod render;

use std::fmt;
use std::path::{Path, PathBuf};

pub use discover::discover;
pub use exclude::{ExclusionReason, FileExclusion};
pub use nested::NestedInstructions;
pub use render::render;

use crate::home::{AGENTS_FILE, HomeError};
use crate::safe_open::{Dir, Lookup, Refusal};

/// Largest AGENTS.md that is loaded.
pub const AGENTS_MAX_BYTES: u64 = 256 * 1024;

/// Where an instruction file sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `~/.ansa/AGENTS.md`.
    Home,
    /// A directory from the filesystem root down to the cwd.
    Ancestor,
    /// A directory below the cwd, delivered by the tools.
    Nested,
}

impl Scope {
    fn tag(self) -> &'static str {
        match self {
            Scope::Home => "home",
            Scope::Ancestor => "ancestor",
            Scope::Nested => "nested",
        }
    }
}

/// One loaded AGENTS.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instruction {
    /// The file's path.
    pub path: PathBuf,
    /// Its scope.
    pub scope: Scope,
    /// Its contents.
    pub text: String,
}

/// An AGENTS.md that exists but was not loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The file's path.
    pub path: PathBuf,
    /// Why, in the user's terms.
    pub reason: String,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} skipped: {}", self.path.display(), self.reason)
    }
}

/// Instructions in delivery order, plus what was skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstructionSet {
    /// Loaded files, in order.
    pub instructions: Vec<Instruction>,
    /// Files that exist but were refused.
    pub skipped: Vec<Skipped>,
}

impl InstructionSet {
    /// Whether nothing was found at all.
    pub fn is_empty(&self) -> bool {
        self.instructions.is_empty() && self.skipped.is_empty()
    }

    /// Each loaded file as (what it is, digest of its text), for naming what changed.
    pub fn sources(&self) -> Vec<(String, String)> {
        self.instructions
            .iter()
            .map(|i| {
                let label = match i.scope {
                    Scope::Home => format!("your AGENTS.md ({})", i.path.display()),
                    Scope::Ancestor | Scope::Nested => format!("{}", i.path.display()),
                };
                (label, blake3::hash(i.text.as_bytes()).to_hex().to_string())
            })
            .collect()
    }

    /// Hex BLAKE3 of the loaded instructions (scope, path and text, length-framed), which a
    /// session is bound to.
    pub fn digest(&self) -> String {
        let mut h = blake3::Hasher::new();
        h.update(b"ansa-instructions/1\n");
        for i in &self.instructions {
            for part in [
                i.scope.tag().as_bytes(),
                path_bytes(&i.path),
                i.text.as_bytes(),
            ] {
                h.update(&(part.len() as u64).to_le_bytes());
                h.update(part);
            }
        }
        h.finalize().to_hex().to_string()
    }
}

fn path_bytes(p: &Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes()
}

/// Errors while loading instructions.
#[derive(Debug, thiserror::Error)]
pub enum InstructionError {
    /// Reading a file or directory failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// Where.
        path: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The cwd changed while it was being walked (a directory vanished or became a link).
    #[error("{path} changed while instructions were loaded; start again")]
    Changed {
        /// The directory.
        path: String,
    },
    /// An `exclude` pattern does not compile.
    #[error("exclude pattern {pattern:?}: {reason}")]
    BadGlob {
        /// The pattern.
        pattern: String,
        /// Why.
        reason: String,
    },
    /// The home directory is unusable.
    #[error(transparent)]
    Home(#[from] HomeError),
}

pub(crate) fn io_err(path: &Path, source: std::io::Error) -> InstructionError {
    InstructionError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Loads `dir/AGENTS.md` into `set` when present.
pub(crate) fn load_agents(
    dir: &Dir,
    scope: Scope,
    set: &mut InstructionSet,
) -> Result<(), InstructionError> {
    let path = dir.path().join(AGENTS_FILE);
    let skip = |reason: String| Skipped {
        path: path.clone(),
        reason,
    };
    match dir
        .read_file(AGENTS_FILE, AGENTS_MAX_BYTES)
        .map_err(|e| io_err(&path, e))?
    {
        Lookup::Missing => {}
        Lookup::Refused(r) => set.skipped.push(skip(refusal_reason(&r))),
        Lookup::Found(bytes) => match String::from_utf8(bytes) {
            Ok(text) => set.instructions.push(Instruction {
                path: path.clone(),
                scope,
                text,
            }),
            Err(_) => set.skipped.push(skip("it is not valid UTF-8 text".into())),
        },
    }
    Ok(())
}

fn refusal_reason(r: &Refusal) -> String {
    r.to_string()
}

/// Lexically normalises an absolute path (`.` dropped, `..` pops); never touches the filesystem.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

//! The workspace root, logical path resolution and the reserved `.ash` state directory.

mod error;
mod filter;
mod path;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;

use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

pub use error::{Ceiling, FsError};
pub use filter::{FilterOp, PathFilter};
pub use path::{MAX_LOGICAL_PATH_BYTES, PathError, check_logical_path, is_hidden, join_logical};

/// Name of the engine's state directory directly below the workspace root.
pub const STATE_DIR: &str = ".ash";

/// Exact content of `.ash/FORMAT` that marks `.ash` as the engine's state directory.
pub const STATE_FORMAT_MARKER: &[u8] = b"ash-workspace-state-v1\n";

/// A workspace: the canonical root that every logical path is relative to, and the embedder's
/// path filter, if any.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    filter: Option<Arc<dyn PathFilter>>,
}

/// An existing logical path after resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The path as requested (reads report this one).
    pub requested: String,
    /// The logical path of the canonical target (walks report paths derived from this one).
    pub logical: String,
    /// The canonical absolute path (never a symlink).
    pub abs: PathBuf,
    /// True when the requested path itself is a symlink (snapshot refuses such roots).
    pub requested_is_symlink: bool,
}

impl Workspace {
    /// Opens a workspace at `root`, which must be an existing directory; the root is canonicalised.
    pub fn new(root: impl AsRef<Path>) -> io::Result<Workspace> {
        let root = fs::canonicalize(root.as_ref())?;
        if !fs::metadata(&root)?.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("workspace root {} is not a directory", root.display()),
            ));
        }
        Ok(Workspace { root, filter: None })
    }

    /// The same workspace with `filter` installed (`None` removes it).
    pub fn with_filter(mut self, filter: Option<Arc<dyn PathFilter>>) -> Workspace {
        self.filter = filter;
        self
    }

    /// The installed path filter.
    pub fn filter(&self) -> Option<&dyn PathFilter> {
        self.filter.as_deref()
    }

    /// Refuses (300) a logical path named by a request when the filter hides it or any of its
    /// ancestor directories. Lexical: nothing is looked up. Always `Ok` without a filter.
    pub fn refuse_hidden(&self, logical: &str) -> Result<(), FsError> {
        let Some(filter) = self.filter() else {
            return Ok(());
        };
        if logical == "." {
            return Ok(());
        }
        let ancestors = logical.match_indices('/').map(|(i, _)| &logical[..i]);
        for candidate in ancestors.chain(std::iter::once(logical)) {
            if filter.hidden(Path::new(candidate), None, FilterOp::Named) {
                return Err(FsError::Hidden {
                    path: logical.to_owned(),
                });
            }
        }
        Ok(())
    }

    /// The canonical absolute root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The absolute path a logical path names, without any checks (`.` is the root).
    pub fn join(&self, logical: &str) -> PathBuf {
        if logical == "." {
            self.root.clone()
        } else {
            self.root.join(logical)
        }
    }

    /// Resolves an existing logical path: syntax, reserved `.ash`, canonicalisation, containment.
    pub fn resolve(&self, requested: &str) -> Result<Resolved, FsError> {
        check_logical_path(requested).map_err(|reason| FsError::InvalidPath {
            path: requested.to_owned(),
            reason,
        })?;
        self.refuse_reserved(requested, requested)?;
        self.refuse_hidden(requested)?;
        let joined = self.join(requested);
        let abs = fs::canonicalize(&joined).map_err(|e| FsError::from_lookup(requested, &e))?;
        let Ok(relative) = abs.strip_prefix(&self.root) else {
            return Err(FsError::Escape {
                path: requested.to_owned(),
            });
        };
        let logical = logical_from_relative(relative).ok_or_else(|| FsError::NonUtf8Name {
            path: requested.to_owned(),
        })?;
        // A symlink into the state directory must not be a back door into it.
        self.refuse_reserved(requested, &logical)?;
        // Nor a way around the embedder's filter.
        if logical != requested {
            self.refuse_hidden(&logical).map_err(|_| FsError::Hidden {
                path: requested.to_owned(),
            })?;
        }
        let requested_is_symlink = requested != "."
            && fs::symlink_metadata(&joined).is_ok_and(|m| m.file_type().is_symlink());
        Ok(Resolved {
            requested: requested.to_owned(),
            logical,
            abs,
            requested_is_symlink,
        })
    }

    /// True when `logical` is `.ash` or below it and `.ash` is a valid engine state directory.
    pub fn is_reserved(&self, logical: &str) -> bool {
        is_state_path(logical) && self.has_state_dir()
    }

    /// True when `<root>/.ash` is a real directory whose `FORMAT` file holds exactly the marker.
    ///
    /// Not cached: only paths under `.ash` ask, and the directory may appear at any time.
    pub fn has_state_dir(&self) -> bool {
        let dir = self.root.join(STATE_DIR);
        if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            return false;
        }
        let format = dir.join("FORMAT");
        let marker_len = STATE_FORMAT_MARKER.len() as u64;
        if !fs::symlink_metadata(&format).is_ok_and(|m| m.is_file() && m.len() == marker_len) {
            return false;
        }
        let mut content = Vec::with_capacity(STATE_FORMAT_MARKER.len() + 1);
        let read = fs::File::open(&format)
            .and_then(|file| file.take(marker_len + 1).read_to_end(&mut content));
        read.is_ok() && content == STATE_FORMAT_MARKER
    }

    fn refuse_reserved(&self, requested: &str, logical: &str) -> Result<(), FsError> {
        if self.is_reserved(logical) {
            return Err(FsError::Reserved {
                path: requested.to_owned(),
            });
        }
        Ok(())
    }
}

/// True for `.ash` and `.ash/…`.
fn is_state_path(logical: &str) -> bool {
    logical
        .strip_prefix(STATE_DIR)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Turns a root-relative canonical path into a logical path; `None` if a component is not UTF-8.
fn logical_from_relative(relative: &Path) -> Option<String> {
    let mut logical = String::new();
    for component in relative.components() {
        let Component::Normal(name) = component else {
            continue;
        };
        if !logical.is_empty() {
            logical.push('/');
        }
        logical.push_str(name.to_str()?);
    }
    if logical.is_empty() {
        logical.push('.');
    }
    Some(logical)
}

//! The workspace root, logical path resolution and the reserved `.ash` state directory.

mod beneath;
mod error;
mod filter;
mod path;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;

use std::ffi::OsString;
use std::fs;
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use beneath::{At, Beneath, type_of};
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
    beneath: Beneath,
    filter: Option<Arc<dyn PathFilter>>,
}

/// An existing logical path after resolution.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The path as requested (reads report this one).
    pub requested: String,
    /// The logical path of the canonical target (walks report paths derived from this one).
    pub logical: String,
    /// The canonical absolute path (never a symlink), for messages and for exec's program path;
    /// never reopened by the file operations, which use [`Resolved::at`].
    pub abs: PathBuf,
    /// The canonical target, held through its open parent directory.
    pub at: At,
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
        let beneath = Beneath::open(&root)?;
        Ok(Workspace {
            root,
            beneath,
            filter: None,
        })
    }

    /// The same workspace with `filter` installed (`None` removes it).
    pub fn with_filter(mut self, filter: Option<Arc<dyn PathFilter>>) -> Workspace {
        self.filter = filter;
        self
    }

    /// Whether the filter hides regular files with more than one hard link
    /// ([`PathFilter::hides_linked_files`]) and `nlink` says this one has (`nlink_t` is 64-bit
    /// on some targets and 32-bit on others).
    pub fn hides_linked(&self, nlink: impl Into<u64>) -> bool {
        nlink.into() > 1 && self.filter().is_some_and(|f| f.hides_linked_files())
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

    /// Resolves an existing logical path: syntax, reserved `.ash`, canonicalisation through
    /// directory descriptors (in-workspace symlinks followed, [`Beneath::follow`]), containment.
    pub fn resolve(&self, requested: &str) -> Result<Resolved, FsError> {
        check_logical_path(requested).map_err(|reason| FsError::InvalidPath {
            path: requested.to_owned(),
            reason,
        })?;
        self.refuse_reserved(requested, requested)?;
        self.refuse_hidden(requested)?;
        let followed = self.beneath.follow(requested).map_err(|e| match e {
            beneath::FollowError::Escape => FsError::Escape {
                path: requested.to_owned(),
            },
            beneath::FollowError::Io(e) => FsError::from_lookup(requested, &e),
        })?;
        let logical =
            logical_from_components(&followed.components).ok_or_else(|| FsError::NonUtf8Name {
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
        Ok(Resolved {
            requested: requested.to_owned(),
            abs: self.beneath.display_path(&followed.components),
            logical,
            at: followed.at,
            requested_is_symlink: followed.requested_is_symlink,
        })
    }

    /// The entry a logical path names, through real directories only (no symlink followed,
    /// the final name not looked up); see [`Beneath::locate`].
    pub fn locate(&self, logical: &str) -> io::Result<At> {
        self.beneath.locate(logical)
    }

    /// Opens the real directory a logical path names, following no symlink.
    pub fn open_dir(&self, logical: &str) -> io::Result<OwnedFd> {
        self.beneath.open_dir(logical)
    }

    /// True when `logical` is `.ash` or below it and `.ash` is a valid engine state directory.
    pub fn is_reserved(&self, logical: &str) -> bool {
        is_state_path(logical) && self.has_state_dir()
    }

    /// True when `<root>/.ash` is a real directory whose `FORMAT` file holds exactly the marker.
    ///
    /// Not cached: only paths under `.ash` ask, and the directory may appear at any time.
    pub fn has_state_dir(&self) -> bool {
        let Ok(dir) = self.locate(STATE_DIR) else {
            return false;
        };
        if !dir
            .stat()
            .is_ok_and(|m| type_of(&m) == nix::sys::stat::SFlag::S_IFDIR)
        {
            return false;
        }
        let Ok(format) = self.locate(".ash/FORMAT") else {
            return false;
        };
        let marker_len = STATE_FORMAT_MARKER.len() as u64;
        let mut content = Vec::with_capacity(STATE_FORMAT_MARKER.len() + 1);
        let read = format.open_read().and_then(|file| {
            let meta = file.metadata()?;
            if !meta.is_file() || meta.len() != marker_len {
                return Ok(0);
            }
            file.take(marker_len + 1).read_to_end(&mut content)
        });
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

/// Turns root-relative canonical components into a logical path; `None` if one is not UTF-8.
fn logical_from_components(components: &[OsString]) -> Option<String> {
    let mut logical = String::new();
    for name in components {
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

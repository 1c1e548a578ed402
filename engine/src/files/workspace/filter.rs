//! An embedder's path filter: workspace entries a session must not expose.
//!
//! The filter is not part of the ASH/1 wire: `ash run` and `ash rpc` never install one, so their
//! answers are unchanged. An embedder (the ansa agent) installs one through
//! [`crate::session::SessionConfig::hidden`] to keep secrets and not-yet-announced directories out
//! of its tools' answers. The engine consults it in two ways:
//!
//! - walks (list, search, snapshot) skip every entry the filter hides for their operation, and
//!   never descend into a hidden directory;
//! - a path named by a request (read paths, walk roots, exec program and cwd, patch targets, fs
//!   sources and destinations, the `>` target), and every ancestor directory of it, is checked
//!   with [`FilterOp::Named`]; a hidden one is refused like the reserved `.ash` (`s:3 300,0,3`).
//!   Paths that resolve through symlinks are checked as requested and as resolved.

use std::fmt;
use std::path::Path;

use crate::protocol::EntryKind;

/// Why the engine is asking whether a path is hidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FilterOp {
    /// The path (or an ancestor of it) is named directly by a request. Hidden ⇒ the request is
    /// refused with `300`.
    Named,
    /// An entry found by a list walk. Hidden ⇒ not listed, not descended into.
    List,
    /// An entry found by the walk behind a search. Hidden ⇒ not searched, not descended into.
    Search,
    /// An entry found by a snapshot walk. Hidden ⇒ not in the manifest, not descended into.
    Snapshot,
}

/// Decides which workspace entries a session hides. Implementations must be cheap and must not
/// block: walks call them once per entry, from several compute-plane threads at once.
pub trait PathFilter: Send + Sync + fmt::Debug {
    /// Whether `path` is hidden from `op`. `path` is a logical path relative to the workspace
    /// root (`/`-separated, never `.`: the root itself is never filtered). `kind` is the entry's
    /// kind for walked entries; it is `None` for named paths and their ancestors, which are
    /// checked lexically before they are looked up, so a refusal does not reveal whether a
    /// hidden path exists.
    fn hidden(&self, path: &Path, kind: Option<EntryKind>, op: FilterOp) -> bool;

    /// Whether regular files with more than one hard link are hidden too: another name of a
    /// hidden file (`notes.txt` linked to `.env`) cannot be told from it by name. Read and
    /// mutations refuse such a file (`300`), search skips it.
    fn hides_linked_files(&self) -> bool {
        false
    }
}

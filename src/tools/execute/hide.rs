//! The agent's engine path filter: what the file tools never show (docs/contract/agent-behaviour.md §3).
//!
//! Every operation hides what [`FileExclusion`] excludes (dotenv files, credential stores,
//! ansa's own auth and session data, configured `exclude` globs): walks skip such entries and
//! the engine refuses them by name (`300`). Search walks also skip nested instruction scopes
//! not yet delivered, until a tool accesses them directly.

use crate::instructions::{FileExclusion, NestedInstructions};
use ash_engine::protocol::EntryKind;
use ash_engine::session::{FilterOp, PathFilter};
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};

/// The nested-instruction state shared by the executor (which delivers) and the filter (which
/// asks what is still unvisited).
pub(super) type SharedNested = Arc<RwLock<NestedInstructions>>;

/// [`PathFilter`] of an agent session; paths are relative to the workspace root, which is the
/// cwd both `exclusion` and `nested` were built for.
#[derive(Debug)]
pub(super) struct HiddenPaths {
    exclusion: FileExclusion,
    nested: SharedNested,
}

impl HiddenPaths {
    /// The filter over `exclusion` and the shared nested-instruction state.
    pub fn new(exclusion: FileExclusion, nested: SharedNested) -> Self {
        HiddenPaths { exclusion, nested }
    }
}

impl PathFilter for HiddenPaths {
    fn hidden(&self, path: &Path, kind: Option<EntryKind>, op: FilterOp) -> bool {
        if self.exclusion.is_excluded(path) {
            return true;
        }
        op == FilterOp::Search
            && kind == Some(EntryKind::Dir)
            && self
                .nested
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .is_unvisited_scope(path)
    }

    fn hides_linked_files(&self) -> bool {
        true
    }
}

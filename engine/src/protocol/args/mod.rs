//! Typed arguments of every operation, with the request-layer checks of docs/contract/ash-protocol.md §3.3–3.4
//! that need no filesystem access. Logical path *syntax* is deliberately left to
//! resolution ([`crate::files::workspace::check_logical_path`]), as the spec places it there.

mod batch;
mod exec;
mod formula;
mod mutation;
mod walk;

pub use batch::{BatchArgs, BatchNode, MAX_BATCH_EDGES, MAX_BATCH_NODES};
pub use exec::{EnvChange, ExecArgs, Program, Stdin};
pub use exec::{MAX_ARGV, MAX_ENV, MAX_ENV_ENTRY};
pub use formula::Formula;
pub use formula::{MAX_PROJECT_COLUMNS, MAX_WINDOW_BYTES, MAX_WINDOW_ROWS};
pub use mutation::{
    Edit, FsAction, FsArgs, FsKind, FsOp, MAX_EDITS, MAX_FS_ACTIONS, MAX_INLINE_TOTAL,
    MAX_PATCH_FILES, PatchArgs, PatchFile,
};
pub use walk::{
    ListArgs, ListFilter, MAX_DEPTH, ReadArgs, ReadMode, SearchArgs, SnapshotArgs, SnapshotMode,
};

use super::path::MAX_PATH_BYTES;
use super::schema::{Loc, Problem, SchemaError, check_bytes, check_count, reference, text};
use crate::ason::Atom;

/// One mebibyte: the inline text ceiling of exec stdin, patch replacements and fs content.
pub const MIB: usize = 1 << 20;

/// Most entries in a path vector.
pub const MAX_PATHS: usize = 256;

/// The `a` value of cancel: `a{i}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CancelArgs {
    /// `i`: the id of the request to cancel (≠0, ≠ the cancel request's own id).
    pub target: u64,
}

/// Inline text or a retained reference (patch replacement, fs create content).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Content {
    /// Inline text.
    Text(String),
    /// `@N`: the bytes of a retained value.
    Ref(u64),
}

impl Content {
    /// Inline bytes (0 for a reference).
    pub fn inline_len(&self) -> usize {
        match self {
            Content::Text(t) => t.len(),
            Content::Ref(_) => 0,
        }
    }

    pub(crate) fn to_atom(&self) -> Atom {
        match self {
            Content::Text(t) => Atom::text(t.as_str()),
            Content::Ref(r) => Atom::Ref(*r),
        }
    }
}

/// Text of at most `max_inline` bytes, or a nonzero reference.
pub(crate) fn content(a: &Atom, at: Loc, max_inline: usize) -> Result<Content, SchemaError> {
    match a {
        Atom::Text(t) => {
            check_bytes(t, at, 0, max_inline)?;
            Ok(Content::Text(t.clone()))
        }
        Atom::Ref(_) => reference(a, at).map(Content::Ref),
        Atom::Null => Err(at.err(Problem::Atom {
            expected: "text or a reference @N",
            found: "~".to_owned(),
        })),
    }
}

/// One path entry: text of 1..4096 bytes without NUL.
pub(crate) fn path_entry(a: &Atom, at: Loc) -> Result<String, SchemaError> {
    let t = text(a, at)?;
    check_bytes(t, at, 1, MAX_PATH_BYTES)?;
    if t.contains('\0') {
        return Err(at.err(Problem::Nul));
    }
    Ok(t.to_owned())
}

/// A path vector: 1..256 entries, each a path entry.
pub(crate) fn path_vector(items: &[Atom], at: Loc) -> Result<Vec<String>, SchemaError> {
    check_count(items.len(), at, 1, MAX_PATHS)?;
    items
        .iter()
        .enumerate()
        .map(|(i, a)| path_entry(a, at.item(i)))
        .collect()
}

/// Requires strictly ascending byte order (which also rules out duplicates).
pub(crate) fn strictly_sorted(paths: &[String], at: Loc) -> Result<(), SchemaError> {
    match paths
        .windows(2)
        .position(|w| w[0].as_bytes() >= w[1].as_bytes())
    {
        None => Ok(()),
        Some(i) => Err(at.item(i + 1).err(Problem::Rule(
            "paths must be unique and strictly sorted by bytes",
        ))),
    }
}

//! Checkpoints of a whole workspace for rewind (issue 41): a manifest of every file, directory
//! and symlink under the root (`manifest`), the kept contents in a session-private
//! content-addressed store (`store`), and the walk that takes one (`capture`), re-reading only
//! entries whose stat changed since the previous manifest, the way git's index does.
//! `restore` is the only part that writes the workspace: it puts the tree back to a manifest
//! as one crash-safe, all-or-nothing transaction, under the same workspace lock as `txn`, so a
//! restore never interleaves with an edit.
//!
//! Nothing here follows a symlink or opens a path by name from the root: every lookup goes
//! through the workspace's directory descriptors, as everywhere in the engine.

mod capture;
mod diff;
mod error;
mod exclude;
mod manifest;
pub mod restore;
mod store;

pub use capture::{
    CaptureRules, CaptureStats, Captured, DEFAULT_MAX_FILE_BYTES, capture, capture_for_restore,
};
pub use diff::{Change, ChangeKind, diff};
pub use error::{CheckpointError, ManifestError};
pub use manifest::{
    Entry, MAX_REASON_BYTES, MAX_SYMLINK_TARGET_BYTES, Manifest, ManifestId, Node, Stamp,
    Unrestorable, decode, encode,
};
pub use store::{DEFAULT_BUDGET_BYTES, Store};

//! Checkpoints: a session's record of the whole workspace at chosen moments (every file,
//! directory and symlink, with contents kept in a content-addressed store) and the restore that
//! puts the tree back to one of them as one crash-safe, all-or-nothing transaction. Capture and
//! the store only read the workspace; `restore` is the only part that writes it, and it does so
//! under the same workspace lock as `txn`, so a restore never interleaves with an edit.

pub mod manifest;
pub mod restore;

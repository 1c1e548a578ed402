//! What can go wrong taking, keeping or reading a checkpoint.

use std::io;
use std::path::PathBuf;

use thiserror::Error;

use crate::checkpoint::manifest::ManifestId;
use crate::protocol::Digest;

/// Why manifest bytes (or a manifest id's text) were refused; offsets are byte offsets into
/// the encoded manifest.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ManifestError {
    /// The bytes do not start with the manifest magic (`ACKMAN01`).
    #[error("not a checkpoint manifest (the magic bytes are missing or of another version)")]
    BadMagic,
    /// The bytes end inside a field.
    #[error("manifest truncated at byte {offset}: {what} is cut short")]
    Truncated {
        /// Where the field starts.
        offset: usize,
        /// The field.
        what: &'static str,
    },
    /// A length-prefixed field is longer than its limit.
    #[error("manifest field {what} at byte {offset} is {len} bytes, over its {limit}-byte limit")]
    TooLong {
        /// Where the length starts.
        offset: usize,
        /// The field.
        what: &'static str,
        /// The claimed length.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// A text field is not UTF-8.
    #[error("manifest field {what} at byte {offset} is not UTF-8")]
    NotUtf8 {
        /// Where the field starts.
        offset: usize,
        /// The field.
        what: &'static str,
    },
    /// An entry's state tag is unknown.
    #[error("manifest has an unknown state tag {tag} at byte {offset}")]
    BadTag {
        /// Where the tag is.
        offset: usize,
        /// The tag.
        tag: u8,
    },
    /// Bytes follow the last entry.
    #[error("manifest has trailing bytes from byte {offset}")]
    Trailing {
        /// Where the last entry ended.
        offset: usize,
    },
    /// An entry breaks a structural rule (path syntax, order, parent, mode bits, sizes).
    #[error("manifest entry {index} ({path:?}): {reason}")]
    BadEntry {
        /// The entry's position.
        index: usize,
        /// Its path (cut to 200 characters).
        path: String,
        /// The rule it breaks.
        reason: &'static str,
    },
    /// A manifest id is not 64 lowercase hex digits.
    #[error("{text:?} is not a checkpoint id (64 lowercase hex digits)")]
    BadId {
        /// The text (cut to 80 characters).
        text: String,
    },
}

/// Why a checkpoint could not be taken, kept or read.
#[derive(Debug, Error)]
pub enum CheckpointError {
    /// A file system operation on the store or the workspace failed.
    #[error("checkpoint: {what} {}: {source}", path.display())]
    Io {
        /// What was being done ("create the store directory", "read the workspace root" …).
        what: &'static str,
        /// Where.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The store directory is not a private directory of this user (a symlink, a file,
    /// another owner), so objects written there could be read or swapped by others.
    #[error(
        "checkpoint store {}: {reason}; remove it or point the session elsewhere",
        path.display()
    )]
    UnsafeStore {
        /// The store directory.
        path: PathBuf,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Manifest bytes were refused.
    #[error("checkpoint manifest: {0}")]
    Manifest(#[from] ManifestError),
    /// The store has no manifest with this id.
    #[error("checkpoint {0} is not in the store (deleted, or from another session)")]
    MissingManifest(ManifestId),
    /// A stored manifest's bytes do not hash to its id.
    #[error("checkpoint {0} is corrupt in the store (its bytes do not match its id)")]
    CorruptManifest(ManifestId),
    /// The store has no object with this digest.
    #[error("checkpoint object {0} is missing from the store")]
    MissingObject(Digest),
    /// A stored object is damaged: it does not decompress or does not hash to its digest.
    #[error("checkpoint object {digest} is corrupt in the store: {reason}")]
    CorruptObject {
        /// The object.
        digest: Digest,
        /// What failed (decompression, length, digest).
        reason: String,
    },
    /// A configured `exclude` pattern is not a valid glob.
    #[error("checkpoint exclude pattern {pattern:?}: {reason}")]
    BadExclude {
        /// The pattern.
        pattern: String,
        /// The glob parser's complaint.
        reason: String,
    },
}

impl CheckpointError {
    /// An I/O failure of `what` at `path`.
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        CheckpointError::Io {
            what,
            path: path.into(),
            source,
        }
    }
}

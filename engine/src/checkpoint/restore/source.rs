//! Where a restore reads kept contents from: the checkpoint store, or anything else that can hand
//! back verified bytes for a digest (tests use an in-memory map).

use crate::protocol::Digest;

/// Why an object could not be read from an [`ObjectSource`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// The source holds no object with this digest.
    #[error("checkpoint object {0} is missing from the store")]
    Missing(Digest),
    /// The object's bytes do not hash to its digest (damaged or tampered store).
    #[error("checkpoint object {0} failed its digest check (the store is damaged)")]
    Corrupt(Digest),
    /// Reading the object failed; the text says why.
    #[error("reading a checkpoint object failed: {0}")]
    Io(String),
}

/// Where a restore reads kept contents from; `Store` implements it.
pub trait ObjectSource {
    /// The content of object `digest`, verified: a mismatch is `Err` naming the digest.
    fn object(&self, digest: &Digest) -> Result<Vec<u8>, SourceError>;
}

//! Restore: puts the workspace back to a checkpoint's manifest.

mod source;

pub use source::{ObjectSource, SourceError};

//! Logical path bounds shared by requests and responses. The syntax rules of §3.3 are checked
//! at resolution time by [`crate::files::workspace::check_logical_path`], as the contract places them.

/// Longest logical path, in bytes.
pub const MAX_PATH_BYTES: usize = crate::files::workspace::MAX_LOGICAL_PATH_BYTES;

//! Syntax of logical paths (ASH/1 §3.3), independent of any filesystem.

use thiserror::Error;

/// Longest accepted logical path, in bytes.
pub const MAX_LOGICAL_PATH_BYTES: usize = 4096;

/// Why a string is not a valid logical path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum PathError {
    /// The path is the empty string.
    #[error("path is empty")]
    Empty,
    /// The path is longer than [`MAX_LOGICAL_PATH_BYTES`].
    #[error("path is {0} bytes, over the 4096-byte limit")]
    TooLong(usize),
    /// The path contains a NUL byte.
    #[error("path contains a NUL byte")]
    Nul,
    /// The path contains `\` (never a separator in logical paths).
    #[error("path contains a backslash")]
    Backslash,
    /// The path contains `:` (drive letters and streams are not logical paths).
    #[error("path contains ':'")]
    Colon,
    /// The path is absolute.
    #[error("path starts with '/'")]
    LeadingSlash,
    /// The path ends with a separator.
    #[error("path ends with '/'")]
    TrailingSlash,
    /// Two separators are adjacent.
    #[error("path has an empty component")]
    EmptyComponent,
    /// A component is `.` (only the whole path may be `.`).
    #[error("path has a '.' component")]
    DotComponent,
    /// A component is `..`.
    #[error("path has a '..' component")]
    DotDotComponent,
}

/// Checks the logical path syntax of §3.3: `.` or `/`-separated normal components.
pub fn check_logical_path(path: &str) -> Result<(), PathError> {
    if path.is_empty() {
        return Err(PathError::Empty);
    }
    if path.len() > MAX_LOGICAL_PATH_BYTES {
        return Err(PathError::TooLong(path.len()));
    }
    for byte in path.bytes() {
        match byte {
            0 => return Err(PathError::Nul),
            b'\\' => return Err(PathError::Backslash),
            b':' => return Err(PathError::Colon),
            _ => {}
        }
    }
    if path == "." {
        return Ok(());
    }
    if path.starts_with('/') {
        return Err(PathError::LeadingSlash);
    }
    if path.ends_with('/') {
        return Err(PathError::TrailingSlash);
    }
    for component in path.split('/') {
        match component {
            "" => return Err(PathError::EmptyComponent),
            "." => return Err(PathError::DotComponent),
            ".." => return Err(PathError::DotDotComponent),
            _ => {}
        }
    }
    Ok(())
}

/// True when a file name is hidden (starts with `.`). The Windows Hidden attribute is not consulted.
pub fn is_hidden(name: &str) -> bool {
    name.starts_with('.')
}

/// Appends `name` to a logical directory path (`.` has no prefix).
pub fn join_logical(dir: &str, name: &str) -> String {
    if dir == "." {
        name.to_owned()
    } else {
        let mut joined = String::with_capacity(dir.len() + 1 + name.len());
        joined.push_str(dir);
        joined.push('/');
        joined.push_str(name);
        joined
    }
}

//! Logical workspace path syntax (ASH1.md §3.3), checked at resolution time.

use thiserror::Error;

/// Longest logical path in bytes.
pub const MAX_PATH_BYTES: usize = 4096;

/// Why a string is not a logical workspace path.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PathSyntaxError {
    /// The path is empty.
    #[error("path is empty")]
    Empty,
    /// The path is longer than 4096 bytes.
    #[error("path is {0} bytes, over the 4096-byte limit")]
    TooLong(usize),
    /// The path contains NUL, `\` or `:`.
    #[error("path contains the forbidden character {0:?} (NUL, '\\' and ':' are not allowed)")]
    ForbiddenChar(char),
    /// The path starts with `/`.
    #[error("path is absolute; logical paths are relative to the workspace root")]
    Absolute,
    /// The path ends with `/`.
    #[error("path ends with '/'")]
    TrailingSlash,
    /// A component is empty (`a//b`).
    #[error("path has an empty component ('//')")]
    EmptyComponent,
    /// A component is `.` or `..` (only the whole path may be `.`).
    #[error("path component {0:?} is not allowed (only the whole path may be '.')")]
    DotComponent(&'static str),
}

/// Checks logical path syntax: non-empty, ≤4096 bytes, no NUL/`\`/`:`, no leading or
/// trailing `/`, and either exactly `.` or `/`-separated components that are not empty,
/// `.` or `..`.
pub fn check_logical_path(path: &str) -> Result<(), PathSyntaxError> {
    if path.is_empty() {
        return Err(PathSyntaxError::Empty);
    }
    if path.len() > MAX_PATH_BYTES {
        return Err(PathSyntaxError::TooLong(path.len()));
    }
    if let Some(c) = path.chars().find(|c| matches!(c, '\0' | '\\' | ':')) {
        return Err(PathSyntaxError::ForbiddenChar(c));
    }
    if path == "." {
        return Ok(());
    }
    if path.starts_with('/') {
        return Err(PathSyntaxError::Absolute);
    }
    if path.ends_with('/') {
        return Err(PathSyntaxError::TrailingSlash);
    }
    for component in path.split('/') {
        match component {
            "" => return Err(PathSyntaxError::EmptyComponent),
            "." => return Err(PathSyntaxError::DotComponent(".")),
            ".." => return Err(PathSyntaxError::DotComponent("..")),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_plain_paths_and_dot() {
        for ok in [".", "a", "src/lib.rs", ".hidden/x", "a..b/c.", "ünï/cödé"] {
            assert_eq!(check_logical_path(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn rejects_each_rule() {
        use PathSyntaxError as E;
        let long = "a".repeat(4097);
        let cases: &[(&str, PathSyntaxError)] = &[
            ("", E::Empty),
            (&long, E::TooLong(4097)),
            ("a\0b", E::ForbiddenChar('\0')),
            ("a\\b", E::ForbiddenChar('\\')),
            ("C:/x", E::ForbiddenChar(':')),
            ("/etc/x", E::Absolute),
            ("/", E::Absolute),
            ("a/", E::TrailingSlash),
            ("a//b", E::EmptyComponent),
            ("./x", E::DotComponent(".")),
            ("a/.", E::DotComponent(".")),
            ("../x", E::DotComponent("..")),
            ("a/../b", E::DotComponent("..")),
            ("..", E::DotComponent("..")),
        ];
        for (path, want) in cases {
            assert_eq!(check_logical_path(path).as_ref(), Err(want), "{path:?}");
        }
        assert_eq!(check_logical_path(&"a".repeat(4096)), Ok(()));
    }
}

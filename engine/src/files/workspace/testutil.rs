//! Temporary workspaces for the filesystem-plane tests.

use std::fs;
use std::path::Path;

use tempfile::TempDir;

use super::{STATE_FORMAT_MARKER, Workspace};
use crate::compute::ComputePlane;

/// A temporary directory holding a workspace root at `<dir>/ws` (so escapes have somewhere to go).
pub(crate) struct Fixture {
    pub(crate) dir: TempDir,
    pub(crate) ws: Workspace,
}

impl Fixture {
    /// An empty workspace.
    pub(crate) fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let root = dir.path().join("ws");
        fs::create_dir(&root).unwrap_or_else(|e| panic!("mkdir ws: {e}"));
        let ws = Workspace::new(&root).unwrap_or_else(|e| panic!("workspace: {e}"));
        Fixture { dir, ws }
    }

    /// A workspace with `files` (logical path, content) created, parents included.
    pub(crate) fn with_files(files: &[(&str, &[u8])]) -> Fixture {
        let fixture = Fixture::new();
        for (path, content) in files {
            fixture.file(path, content);
        }
        fixture
    }

    /// Writes a file below the root, creating parents.
    pub(crate) fn file(&self, logical: &str, content: &[u8]) {
        let path = self.ws.root().join(logical);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap_or_else(|e| panic!("mkdir {logical}: {e}"));
        }
        fs::write(&path, content).unwrap_or_else(|e| panic!("write {logical}: {e}"));
    }

    /// Creates a directory below the root.
    pub(crate) fn dir(&self, logical: &str) {
        fs::create_dir_all(self.ws.root().join(logical))
            .unwrap_or_else(|e| panic!("mkdir {logical}: {e}"));
    }

    /// Creates a symlink at `logical` whose raw target is `target`.
    pub(crate) fn symlink(&self, target: impl AsRef<Path>, logical: &str) {
        let link = self.ws.root().join(logical);
        std::os::unix::fs::symlink(target.as_ref(), &link)
            .unwrap_or_else(|e| panic!("symlink {logical}: {e}"));
    }

    /// Makes `.ash` a valid state directory (exact marker).
    pub(crate) fn mark_state_dir(&self) {
        self.file(".ash/FORMAT", STATE_FORMAT_MARKER);
    }

    /// A path outside the workspace root, inside the temporary directory.
    pub(crate) fn outside(&self, name: &str) -> std::path::PathBuf {
        self.dir.path().join(name)
    }
}

/// A compute plane with `workers` threads.
pub(crate) fn plane(workers: usize) -> ComputePlane {
    ComputePlane::new(workers).unwrap_or_else(|e| panic!("plane: {e}"))
}

/// Writes a deterministic tree of `count` files spread over nested directories, with some
/// hidden entries, CRLF files, non-UTF-8 content and symlinks, for worker-invariance tests.
pub(crate) fn generated_tree(fixture: &Fixture, count: usize) {
    for i in 0..count {
        let dir = format!("d{}/s{}", i % 7, i % 5);
        let name = match i % 11 {
            0 => format!("{dir}/.hidden{i}.txt"),
            1 => format!("{dir}/deep/er/f{i}.rs"),
            _ => format!("{dir}/f{i}.rs"),
        };
        let mut content = String::new();
        for line in 0..(i % 40) {
            let sep = if i % 9 == 0 { "\r\n" } else { "\n" };
            content.push_str(&format!("line {line} of {i} needle{} é{sep}", line % 3));
        }
        if i % 13 == 0 {
            fixture.file(&name, b"needle\xff\xfe binary\n");
        } else {
            fixture.file(&name, content.as_bytes());
        }
    }
    fixture.symlink("d1", "link-to-d1");
    fixture.symlink("../outside", "d2/escape");
}

//! Writes the file tools treat as protected: anything inside a repository's `.git`. A changed
//! `.git/config` (`core.fsmonitor`, `core.hooksPath`, aliases) or a file in `.git/hooks` runs a
//! command the next time the user runs git, outside any approval. In full access such a write
//! is refused unless the user config says `allow_git_writes`; in ask mode it is always put to
//! the user, never covered by an earlier approval for the session.

use std::path::{Component, Path};

use super::super::{FileActionKind, ToolArgs};

/// The name of a repository's metadata directory (or, in a linked worktree, of the file that
/// points to it: rewriting that file redirects git to other hooks just as well).
const GIT_DIR: &str = ".git";

/// The first path of `args` that writes inside a `.git`, if any. Only `edit` and `files`
/// write by path; a copy's source is only read.
pub(super) fn git_write(args: &ToolArgs) -> Option<&str> {
    match args {
        ToolArgs::Edit(a) => a.files.iter().map(|f| f.path.as_str()).find(|p| in_git(p)),
        ToolArgs::Files(a) => a.actions.iter().find_map(|action| {
            let source = match action.kind {
                FileActionKind::Copy => None,
                FileActionKind::Create | FileActionKind::Move | FileActionKind::Remove => {
                    Some(action.path.as_str())
                }
            };
            source
                .into_iter()
                .chain(action.to.as_deref())
                .find(|p| in_git(p))
        }),
        _ => None,
    }
}

/// Whether `path` names `.git` or something below it, at any depth (a nested repository or
/// submodule too). ASCII case is ignored: on a case-insensitive filesystem `.GIT` is `.git`.
fn in_git(path: &str) -> bool {
    Path::new(path).components().any(|c| match c {
        Component::Normal(name) => name
            .to_str()
            .is_some_and(|n| n.eq_ignore_ascii_case(GIT_DIR)),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{EditArgs, FileAction, FileEdits, FilesArgs, TextEdit};

    fn files(kind: FileActionKind, path: &str, to: Option<&str>) -> ToolArgs {
        ToolArgs::Files(FilesArgs {
            actions: vec![FileAction {
                kind,
                path: path.into(),
                to: to.map(Into::into),
                content: None,
            }],
        })
    }

    #[test]
    fn every_component_named_git_is_protected_and_nothing_else() {
        for path in [
            ".git/config",
            "./.git/hooks/pre-commit",
            "a/../.git/config",
            "vendor/lib/.git/config",
            ".GIT/config",
            ".git",
        ] {
            assert!(in_git(path), "{path}");
        }
        for path in [
            ".gitignore",
            "src/git/config",
            ".github/workflows/ci.yml",
            "a.git/x",
        ] {
            assert!(!in_git(path), "{path}");
        }
    }

    #[test]
    fn writes_are_protected_and_a_copy_out_of_git_is_a_read() {
        let edit = ToolArgs::Edit(EditArgs {
            files: vec![FileEdits {
                path: ".git/config".into(),
                edits: vec![TextEdit {
                    old: "a".into(),
                    new: "b".into(),
                }],
            }],
        });
        assert_eq!(git_write(&edit), Some(".git/config"));
        let create = files(FileActionKind::Create, ".git/hooks/pre-commit", None);
        assert_eq!(git_write(&create), Some(".git/hooks/pre-commit"));
        let into = files(
            FileActionKind::Copy,
            "hook.sh",
            Some(".git/hooks/post-checkout"),
        );
        assert_eq!(git_write(&into), Some(".git/hooks/post-checkout"));
        let out_of = files(FileActionKind::Copy, ".git/HEAD", Some("head.txt"));
        assert_eq!(git_write(&out_of), None);
        let moved = files(FileActionKind::Move, ".git/index", Some("index.bak"));
        assert_eq!(git_write(&moved), Some(".git/index"));
        let removed = files(FileActionKind::Remove, "sub/.git/config", None);
        assert_eq!(git_write(&removed), Some("sub/.git/config"));
    }
}

//! The workspace paths a tool call names: each is checked against the file exclusion before
//! anything runs, and the directory it touches gets its nested instructions delivered.

use super::super::ToolArgs;
use std::path::Path;

/// One path named in a call's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Named<'a> {
    /// The path as the model gave it.
    pub path: &'a str,
    /// Whether it names a directory (walk roots, exec `cwd`) rather than a file.
    pub is_dir: bool,
}

impl<'a> Named<'a> {
    /// The directory this access touches: the path itself, or a file's parent (`""`, the cwd,
    /// for a file directly in it).
    pub fn dir(&self) -> &'a Path {
        let path = Path::new(self.path);
        if self.is_dir {
            path
        } else {
            path.parent().unwrap_or(Path::new(""))
        }
    }
}

/// The tool's name, for model-facing errors.
pub(super) fn tool_name(args: &ToolArgs) -> &'static str {
    match args {
        ToolArgs::Read(_) => "read",
        ToolArgs::List(_) => "list",
        ToolArgs::Search(_) => "search",
        ToolArgs::Snapshot(_) => "snapshot",
        ToolArgs::Evidence(_) => "evidence",
        ToolArgs::Exec(_) => "exec",
        ToolArgs::Edit(_) => "edit",
        ToolArgs::Files(_) => "files",
        ToolArgs::GetTestValue(_) => "get_test_value",
        ToolArgs::Delegate(_) => "delegate",
        ToolArgs::Mcp(_) => "mcp",
    }
}

/// Every workspace path `args` names, in argument order. `exec` names its `cwd` and a program
/// given as a path (one with `/`); a bare program name is looked up in `PATH`, not named.
pub(super) fn named(args: &ToolArgs) -> Vec<Named<'_>> {
    fn file(path: &str) -> Named<'_> {
        Named {
            path,
            is_dir: false,
        }
    }
    fn dir(path: &str) -> Named<'_> {
        Named { path, is_dir: true }
    }
    match args {
        ToolArgs::Read(a) => a.paths.iter().map(|p| file(p)).collect(),
        ToolArgs::List(a) => a.paths.iter().map(|p| dir(p)).collect(),
        ToolArgs::Search(a) => a.paths.iter().map(|p| dir(p)).collect(),
        ToolArgs::Snapshot(a) => a.paths.iter().map(|p| dir(p)).collect(),
        ToolArgs::Exec(a) => {
            let mut named = vec![dir(&a.cwd)];
            if a.program.contains('/') {
                named.push(file(&a.program));
            }
            named
        }
        ToolArgs::Edit(a) => a.files.iter().map(|f| file(&f.path)).collect(),
        ToolArgs::Files(a) => a
            .actions
            .iter()
            .flat_map(|action| std::iter::once(action.path.as_str()).chain(action.to.as_deref()))
            .map(file)
            .collect(),
        ToolArgs::Evidence(_)
        | ToolArgs::GetTestValue(_)
        | ToolArgs::Delegate(_)
        | ToolArgs::Mcp(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{FileAction, FileActionKind, FilesArgs, ReadArgs, ReadMode};

    #[test]
    fn files_name_sources_and_destinations_and_touch_their_parents() {
        let args = ToolArgs::Files(FilesArgs {
            actions: vec![FileAction {
                kind: FileActionKind::Copy,
                path: "a/x.txt".into(),
                to: Some("b/c/y.txt".into()),
                content: None,
            }],
        });
        let dirs: Vec<&Path> = named(&args).iter().map(|n| n.dir()).collect();
        assert_eq!(dirs, [Path::new("a"), Path::new("b/c")]);
        let read = ToolArgs::Read(ReadArgs {
            paths: vec!["top.txt".into()],
            mode: ReadMode::Lines,
            offset: 1,
            length: Some(1),
        });
        assert_eq!(named(&read)[0].dir(), Path::new(""));
        assert_eq!(tool_name(&read), "read");
    }
}

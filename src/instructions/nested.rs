//! Nested AGENTS.md below the cwd, each delivered once per session before the first tool access
//! to its directory.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use super::{InstructionError, InstructionSet, Scope, io_err, load_agents, normalize};
use crate::home::AGENTS_FILE;
use crate::safe_open::{Dir, Lookup};

/// Tracks which nested instruction scopes this session has already been given.
#[derive(Debug, Clone)]
pub struct NestedInstructions {
    cwd: PathBuf,
    delivered: BTreeSet<PathBuf>,
}

impl NestedInstructions {
    /// A fresh session in `cwd` (canonicalised here, as [`super::discover`] does).
    pub fn new(cwd: &Path) -> Result<Self, InstructionError> {
        Self::restore(cwd, [])
    }

    /// A reopened session: `delivered` are the directories already handed out (from the journal).
    pub fn restore(
        cwd: &Path,
        delivered: impl IntoIterator<Item = PathBuf>,
    ) -> Result<Self, InstructionError> {
        let cwd = std::fs::canonicalize(cwd).map_err(|e| io_err(cwd, e))?;
        Ok(Self {
            cwd,
            delivered: delivered.into_iter().collect(),
        })
    }

    /// Directories whose AGENTS.md has been delivered (or reported as skipped), for the journal.
    pub fn delivered(&self) -> impl Iterator<Item = &Path> {
        self.delivered.iter().map(PathBuf::as_path)
    }

    /// The canonical cwd; delivered directories are absolute paths below it.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Marks `dirs` delivered (absolute, or relative to the cwd), as [`Self::restore`] does for
    /// a reopened session whose executor already exists.
    pub fn mark_delivered(&mut self, dirs: impl IntoIterator<Item = PathBuf>) {
        for dir in dirs {
            self.delivered.insert(normalize(&self.cwd.join(dir)));
        }
    }

    /// `dir`'s own AGENTS.md as it is now (reached from the cwd without following links),
    /// without marking anything delivered; empty when `dir` is not below the cwd or has none.
    pub fn load_scope(&self, dir: &Path) -> Result<InstructionSet, InstructionError> {
        let mut set = InstructionSet::default();
        let Some(rel) = self.relative(dir) else {
            return Ok(set);
        };
        let Lookup::Found(mut current) =
            Dir::open_trusted(&self.cwd).map_err(|e| io_err(&self.cwd, e))?
        else {
            return Ok(set);
        };
        for c in rel.components() {
            let Component::Normal(name) = c else {
                return Ok(set);
            };
            current = match current
                .child_dir(name)
                .map_err(|e| io_err(&self.cwd.join(&rel), e))?
            {
                Lookup::Found(d) => d,
                Lookup::Missing | Lookup::Refused(_) => return Ok(set),
            };
        }
        load_agents(&current, Scope::Nested, &mut set)?;
        Ok(set)
    }

    /// Call before a tool touches `dir` (for a file, its parent directory; relative paths are
    /// taken from the cwd). Returns every not-yet-delivered AGENTS.md from just below the cwd
    /// down to `dir`, outermost first, and marks them delivered; empty when there is nothing new
    /// or `dir` is not below the cwd. The walk stops at a symlinked or missing directory: links
    /// are never followed, and a directory that does not exist has no instructions yet.
    pub fn take_for(&mut self, dir: &Path) -> Result<InstructionSet, InstructionError> {
        let mut set = InstructionSet::default();
        let Some(rel) = self.relative(dir) else {
            return Ok(set);
        };
        let mut current = match Dir::open_trusted(&self.cwd).map_err(|e| io_err(&self.cwd, e))? {
            Lookup::Found(d) => d,
            _ => {
                return Err(InstructionError::Changed {
                    path: self.cwd.display().to_string(),
                });
            }
        };
        for c in rel.components() {
            let Component::Normal(name) = c else { break };
            current = match current
                .child_dir(name)
                .map_err(|e| io_err(&self.cwd.join(&rel), e))?
            {
                Lookup::Found(d) => d,
                Lookup::Missing | Lookup::Refused(_) => break,
            };
            if self.delivered.contains(current.path()) {
                continue;
            }
            let before = (set.instructions.len(), set.skipped.len());
            load_agents(&current, Scope::Nested, &mut set)?;
            // Only a file that was found (loaded or refused) counts; an AGENTS.md created later
            // in a directory already visited is still delivered at the next access.
            if before != (set.instructions.len(), set.skipped.len()) {
                self.delivered.insert(current.path().to_path_buf());
            }
        }
        Ok(set)
    }

    /// Whether `dir` is a nested scope not yet delivered; search skips such directories until a
    /// tool accesses them directly.
    pub fn is_unvisited_scope(&self, dir: &Path) -> bool {
        let Some(rel) = self.relative(dir) else {
            return false;
        };
        let abs = self.cwd.join(rel);
        !self.delivered.contains(&abs) && std::fs::symlink_metadata(abs.join(AGENTS_FILE)).is_ok()
    }

    /// `dir` relative to the cwd when it lies strictly below it.
    fn relative(&self, dir: &Path) -> Option<PathBuf> {
        let abs = normalize(&self.cwd.join(dir));
        let rel = abs.strip_prefix(&self.cwd).ok()?;
        (!rel.as_os_str().is_empty()).then(|| rel.to_path_buf())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let cwd = std::fs::canonicalize(t.path()).unwrap().join("cwd");
        std::fs::create_dir_all(cwd.join("a/b/c")).unwrap();
        std::fs::write(cwd.join("AGENTS.md"), "top").unwrap();
        std::fs::write(cwd.join("a/AGENTS.md"), "A").unwrap();
        std::fs::write(cwd.join("a/b/AGENTS.md"), "B").unwrap();
        (t, cwd)
    }

    fn texts(set: &InstructionSet) -> Vec<&str> {
        set.instructions.iter().map(|i| i.text.as_str()).collect()
    }

    #[test]
    fn each_nested_file_is_delivered_exactly_once() {
        let (_t, cwd) = tree();
        let mut n = NestedInstructions::new(&cwd).unwrap();
        assert!(n.is_unvisited_scope(Path::new("a")));
        assert_eq!(
            texts(&n.take_for(Path::new("a/b/c")).unwrap()),
            vec!["A", "B"]
        );
        assert!(!n.is_unvisited_scope(Path::new("a")));
        assert!(n.take_for(&cwd.join("a/b")).unwrap().is_empty());
        assert!(n.take_for(Path::new("a/./b/c/../c")).unwrap().is_empty());
        assert!(
            n.take_for(&cwd).unwrap().is_empty(),
            "the cwd's own file is initial, not nested"
        );
        assert!(n.take_for(Path::new("..")).unwrap().is_empty());
        let delivered: Vec<&Path> = n.delivered().collect();
        assert_eq!(
            delivered,
            vec![cwd.join("a").as_path(), cwd.join("a/b").as_path()]
        );
        assert_eq!(n.take_for(Path::new("a/b")).unwrap().instructions.len(), 0);
    }

    #[test]
    fn restore_keeps_delivered_scopes() {
        let (_t, cwd) = tree();
        let mut n = NestedInstructions::restore(&cwd, [cwd.join("a")]).unwrap();
        assert_eq!(texts(&n.take_for(Path::new("a/b")).unwrap()), vec!["B"]);
    }

    #[test]
    fn symlinks_are_not_followed() {
        let (t, cwd) = tree();
        let outside = t.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("AGENTS.md"), "evil").unwrap();
        symlink(&outside, cwd.join("linkdir")).unwrap();
        std::fs::create_dir_all(cwd.join("d")).unwrap();
        symlink(cwd.join("a/AGENTS.md"), cwd.join("d/AGENTS.md")).unwrap();
        let mut n = NestedInstructions::new(&cwd).unwrap();
        assert!(n.take_for(Path::new("linkdir")).unwrap().is_empty());
        let set = n.take_for(Path::new("d")).unwrap();
        assert!(set.instructions.is_empty());
        assert_eq!(set.skipped.len(), 1);
        assert!(set.skipped[0].reason.contains("symbolic link"));
        assert!(
            n.take_for(Path::new("d")).unwrap().is_empty(),
            "the notice is given once too"
        );
    }

    #[test]
    fn marked_scopes_are_not_delivered_and_load_scope_reads_one_file() {
        let (_t, cwd) = tree();
        let mut n = NestedInstructions::new(&cwd).unwrap();
        n.mark_delivered([PathBuf::from("a")]);
        assert!(!n.is_unvisited_scope(Path::new("a")));
        assert_eq!(texts(&n.take_for(Path::new("a/b")).unwrap()), vec!["B"]);
        assert_eq!(texts(&n.load_scope(Path::new("a/b")).unwrap()), vec!["B"]);
        assert_eq!(texts(&n.load_scope(&cwd.join("a")).unwrap()), vec!["A"]);
        assert!(n.load_scope(Path::new("a/b/c")).unwrap().is_empty());
        assert!(n.load_scope(Path::new("missing")).unwrap().is_empty());
        assert!(n.load_scope(Path::new("..")).unwrap().is_empty());
    }

    #[test]
    fn a_file_created_later_is_delivered_at_the_next_access() {
        let (_t, cwd) = tree();
        let mut n = NestedInstructions::new(&cwd).unwrap();
        assert_eq!(
            texts(&n.take_for(Path::new("a/b/c")).unwrap()),
            vec!["A", "B"]
        );
        std::fs::write(cwd.join("a/b/c/AGENTS.md"), "C").unwrap();
        assert_eq!(texts(&n.take_for(Path::new("a/b/c")).unwrap()), vec!["C"]);
    }
}

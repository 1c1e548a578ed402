//! Whether a mentioned file may be attached, decided before the submit is accepted so a
//! refused mention never becomes a turn (the user fixes it or removes it first).

use std::fmt;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use ansa_sessions::protocol::MentionPath;
use ignore::gitignore::GitignoreBuilder;

use crate::instructions::{ExclusionReason, FileExclusion};

/// Bytes sniffed for a NUL to call a file binary (git's own heuristic looks at 8000).
const SNIFF_BYTES: usize = 8192;

/// Why a mention cannot be attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Nothing is at the path.
    Missing,
    /// The path leaves the workspace (`..`, an absolute path elsewhere, a symbolic link out).
    Outside,
    /// The file tools never expose it.
    Excluded(ExclusionReason),
    /// A `.gitignore` (or `.git/info/exclude`) rule ignores it.
    Ignored {
        /// The rule, as written.
        rule: String,
        /// The file that holds the rule, relative to the workspace.
        from: String,
    },
    /// A directory or another non-regular file.
    NotAFile,
    /// Its first bytes hold a NUL: not text.
    Binary,
    /// It could not be opened or read.
    Unreadable(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Missing => f.write_str("no such file in the workspace"),
            Refusal::Outside => f.write_str("the path is outside the workspace"),
            Refusal::Excluded(reason) => write!(f, "excluded: {reason}"),
            Refusal::Ignored { rule, from } => write!(f, "ignored by {rule:?} in {from}"),
            Refusal::NotAFile => {
                f.write_str("not a regular file (mention a file, not a directory)")
            }
            Refusal::Binary => f.write_str("a binary file (only text files are attached)"),
            Refusal::Unreadable(e) => write!(f, "cannot be read: {e}"),
        }
    }
}

/// A refused mention, with its path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "@{path} cannot be attached: {refusal}; fix the path or remove the mention, then send again"
)]
pub struct MentionRefused {
    /// The mention as sent.
    pub path: MentionPath,
    /// Why.
    pub refusal: Refusal,
}

/// The rules a mention is checked against: the workspace root and the file tools' exclusions.
#[derive(Debug, Clone)]
pub struct MentionCheck {
    root: PathBuf,
    real_root: PathBuf,
    exclusion: FileExclusion,
}

impl MentionCheck {
    /// Rules for the workspace at `root` (the session's cwd) and the executor's exclusions.
    pub fn new(root: &Path, exclusion: FileExclusion) -> Self {
        let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        MentionCheck {
            root: root.to_path_buf(),
            real_root,
            exclusion,
        }
    }

    /// Checks every mention; the first refused one is the answer.
    pub fn check_all(&self, mentions: &[MentionPath]) -> Result<(), MentionRefused> {
        for path in mentions {
            self.check(path.as_str())
                .map_err(|refusal| MentionRefused {
                    path: path.clone(),
                    refusal,
                })?;
        }
        Ok(())
    }

    /// Checks one path: lexically inside the workspace, not excluded, not ignored, then (on
    /// the file itself) inside the workspace once links are resolved, a regular file, text.
    pub fn check(&self, path: &str) -> Result<(), Refusal> {
        let rel = self.relative(path).ok_or(Refusal::Outside)?;
        if let Some(reason) = self.exclusion.check(&rel) {
            return Err(Refusal::Excluded(reason));
        }
        self.ignored(&rel)?;
        let full = self.root.join(&rel);
        let real = match std::fs::canonicalize(&full) {
            Ok(real) => real,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Refusal::Missing),
            Err(e) => return Err(Refusal::Unreadable(e.to_string())),
        };
        let Ok(real_rel) = real.strip_prefix(&self.real_root) else {
            return Err(Refusal::Outside);
        };
        // A link inside the workspace may name an excluded file by another name.
        if let Some(reason) = self.exclusion.check(real_rel) {
            return Err(Refusal::Excluded(reason));
        }
        let meta = std::fs::metadata(&real).map_err(|e| Refusal::Unreadable(e.to_string()))?;
        if !meta.is_file() {
            return Err(Refusal::NotAFile);
        }
        if std::os::unix::fs::MetadataExt::nlink(&meta) > 1 {
            return Err(Refusal::Excluded(ExclusionReason::HardLinked));
        }
        let mut head = Vec::with_capacity(SNIFF_BYTES);
        std::fs::File::open(&real)
            .and_then(|f| f.take(SNIFF_BYTES as u64).read_to_end(&mut head))
            .map_err(|e| Refusal::Unreadable(e.to_string()))?;
        if head.contains(&0) {
            return Err(Refusal::Binary);
        }
        Ok(())
    }

    /// The path relative to the root, `..` resolved lexically; `None` when it leaves it.
    fn relative(&self, path: &str) -> Option<PathBuf> {
        let given = Path::new(path);
        let given = if given.is_absolute() {
            given
                .strip_prefix(&self.root)
                .or_else(|_| given.strip_prefix(&self.real_root))
                .ok()?
        } else {
            given
        };
        let mut out = PathBuf::new();
        for c in given.components() {
            match c {
                Component::Normal(name) => out.push(name),
                Component::CurDir => {}
                Component::ParentDir => {
                    if !out.pop() {
                        return None;
                    }
                }
                Component::RootDir | Component::Prefix(_) => return None,
            }
        }
        (!out.as_os_str().is_empty()).then_some(out)
    }

    /// Git's ignore rules on the way to `rel`: `.git/info/exclude`, then each directory's
    /// `.gitignore` from the root down; the deepest file with a matching rule decides, as in git.
    fn ignored(&self, rel: &Path) -> Result<(), Refusal> {
        let mut sources = vec![(self.root.clone(), PathBuf::from(".git/info/exclude"))];
        let mut dir = PathBuf::new();
        sources.push((self.root.clone(), PathBuf::from(".gitignore")));
        if let Some(parent) = rel.parent() {
            for c in parent.components() {
                dir.push(c);
                sources.push((self.root.join(&dir), dir.join(".gitignore")));
            }
        }
        let mut verdict: Option<(String, String)> = None;
        for (base, file) in sources {
            let full = self.root.join(&file);
            if !full.is_file() {
                continue;
            }
            let mut builder = GitignoreBuilder::new(&base);
            // A malformed line is skipped by git too; the other rules still count.
            let _ = builder.add(&full);
            let Ok(matcher) = builder.build() else {
                continue;
            };
            let m = matcher.matched_path_or_any_parents(self.root.join(rel), false);
            if m.is_ignore() {
                let rule = m
                    .inner()
                    .map_or_else(String::new, |g| g.original().to_owned());
                verdict = Some((rule, file.to_string_lossy().into_owned()));
            } else if m.is_whitelist() {
                verdict = None;
            }
        }
        match verdict {
            Some((rule, from)) => Err(Refusal::Ignored { rule, from }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]

    use super::*;
    use crate::home::AnsaHome;

    fn check(dir: &Path, exclude: &[&str]) -> MentionCheck {
        let home = AnsaHome::at(dir.join(".home"));
        let patterns: Vec<String> = exclude.iter().map(|s| s.to_string()).collect();
        let exclusion = FileExclusion::new(&home, None, dir, &patterns).unwrap();
        MentionCheck::new(dir, exclusion)
    }

    #[test]
    fn each_refusal_has_its_reason() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        std::fs::create_dir_all(d.join("src/gen")).unwrap();
        std::fs::write(d.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(d.join(".gitignore"), "target/\n*.log\n!keep.log\n").unwrap();
        std::fs::write(d.join("src/.gitignore"), "gen/\n").unwrap();
        std::fs::write(d.join("src/gen/out.rs"), "x").unwrap();
        std::fs::write(d.join("build.log"), "x").unwrap();
        std::fs::write(d.join("keep.log"), "x").unwrap();
        std::fs::write(d.join(".env"), "SECRET=1").unwrap();
        std::fs::write(d.join("secret.token"), "k").unwrap();
        std::fs::write(d.join("logo.png"), [0x89, b'P', 0, 1]).unwrap();
        let c = check(d, &["*.token"]);
        assert_eq!(c.check("src/main.rs"), Ok(()));
        assert_eq!(c.check("./src/../src/main.rs"), Ok(()));
        assert_eq!(c.check("keep.log"), Ok(()), "negated rule");
        assert_eq!(c.check("nope.rs"), Err(Refusal::Missing));
        assert_eq!(c.check("../etc/passwd"), Err(Refusal::Outside));
        assert_eq!(c.check("/etc/passwd"), Err(Refusal::Outside));
        assert!(matches!(c.check(".env"), Err(Refusal::Excluded(_))));
        assert!(matches!(
            c.check("secret.token"),
            Err(Refusal::Excluded(ExclusionReason::Configured(_)))
        ));
        assert_eq!(
            c.check("build.log"),
            Err(Refusal::Ignored {
                rule: "*.log".into(),
                from: ".gitignore".into()
            })
        );
        assert_eq!(
            c.check("src/gen/out.rs"),
            Err(Refusal::Ignored {
                rule: "gen/".into(),
                from: "src/.gitignore".into()
            })
        );
        assert_eq!(c.check("src"), Err(Refusal::NotAFile));
        assert_eq!(c.check("logo.png"), Err(Refusal::Binary));
        std::os::unix::fs::symlink("/etc/hostname", d.join("out")).unwrap();
        assert_eq!(c.check("out"), Err(Refusal::Outside));
        std::os::unix::fs::symlink(d.join(".env"), d.join("env-link")).unwrap();
        assert!(matches!(c.check("env-link"), Err(Refusal::Excluded(_))));
        let refused = c
            .check_all(&[
                MentionPath::new("src/main.rs").unwrap(),
                MentionPath::new("nope.rs").unwrap(),
            ])
            .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "@nope.rs cannot be attached: no such file in the workspace; fix the path or remove the mention, then send again"
        );
    }
}

//! The initial instruction set: `~/.ansa/AGENTS.md`, then every AGENTS.md from `/` to the cwd.

use std::path::{Component, Path};

use super::{InstructionError, InstructionSet, Scope, io_err, load_agents};
use crate::home::AnsaHome;
use crate::safe_open::{Dir, Lookup};

/// Loads the instructions a session in `cwd` starts with.
///
/// The cwd is canonicalised once (the user chose it); from there every step is an `openat`
/// with `O_NOFOLLOW`, so no link met on the way can redirect what is read.
pub fn discover(home: &AnsaHome, cwd: &Path) -> Result<InstructionSet, InstructionError> {
    let mut set = InstructionSet::default();
    let mut home_dir = None;
    if home.verify_if_exists()?
        && let Lookup::Found(dir) =
            Dir::open_trusted(home.root()).map_err(|e| io_err(home.root(), e))?
    {
        load_agents(&dir, Scope::Home, &mut set)?;
        home_dir = Some(dir);
    }
    let cwd = std::fs::canonicalize(cwd).map_err(|e| io_err(cwd, e))?;
    let mut dir = match Dir::open_trusted(Path::new("/")).map_err(|e| io_err(Path::new("/"), e))? {
        Lookup::Found(d) => d,
        _ => return Err(InstructionError::Changed { path: "/".into() }),
    };
    visit(&dir, home_dir.as_ref(), &mut set)?;
    for c in cwd.components() {
        let Component::Normal(name) = c else { continue };
        dir = match dir.child_dir(name).map_err(|e| io_err(&cwd, e))? {
            Lookup::Found(d) => d,
            _ => {
                return Err(InstructionError::Changed {
                    path: cwd.display().to_string(),
                });
            }
        };
        visit(&dir, home_dir.as_ref(), &mut set)?;
    }
    Ok(set)
}

fn visit(dir: &Dir, home: Option<&Dir>, set: &mut InstructionSet) -> Result<(), InstructionError> {
    // Working inside the ansa home itself: its AGENTS.md is already loaded, first.
    if let Some(h) = home
        && h.same_as(dir).map_err(|e| io_err(dir.path(), e))?
    {
        return Ok(());
    }
    load_agents(dir, Scope::Ancestor, set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, AnsaHome, std::path::PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        let home = AnsaHome::at(root.join("home"));
        home.ensure().unwrap();
        let cwd = root.join("w/a/b");
        std::fs::create_dir_all(&cwd).unwrap();
        (t, home, root)
    }

    fn ours(set: &InstructionSet, root: &Path) -> Vec<(String, Scope, String)> {
        set.instructions
            .iter()
            .filter(|i| i.path.starts_with(root))
            .map(|i| {
                (
                    i.path.strip_prefix(root).unwrap().display().to_string(),
                    i.scope,
                    i.text.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn home_first_then_root_to_cwd() {
        let (_t, home, root) = setup();
        std::fs::write(home.agents_file(), "H").unwrap();
        std::fs::write(root.join("w/a/b/AGENTS.md"), "B").unwrap();
        std::fs::write(root.join("w/AGENTS.md"), "W").unwrap();
        std::fs::write(root.join("w/a/AGENTS.md"), "A").unwrap();
        let set = discover(&home, &root.join("w/a/b")).unwrap();
        assert_eq!(
            set.instructions[0].scope,
            Scope::Home,
            "home AGENTS.md comes first"
        );
        assert_eq!(
            ours(&set, &root),
            vec![
                ("home/AGENTS.md".into(), Scope::Home, "H".into()),
                ("w/AGENTS.md".into(), Scope::Ancestor, "W".into()),
                ("w/a/AGENTS.md".into(), Scope::Ancestor, "A".into()),
                ("w/a/b/AGENTS.md".into(), Scope::Ancestor, "B".into()),
            ]
        );
        assert!(set.skipped.is_empty());
    }

    #[test]
    fn symlinked_and_hard_linked_agents_are_skipped_with_a_reason() {
        let (_t, home, root) = setup();
        std::fs::write(root.join("real.md"), "SECRET").unwrap();
        symlink(root.join("real.md"), root.join("w/AGENTS.md")).unwrap();
        std::fs::hard_link(root.join("real.md"), root.join("w/a/AGENTS.md")).unwrap();
        let set = discover(&home, &root.join("w/a/b")).unwrap();
        assert!(ours(&set, &root).is_empty());
        let reasons: Vec<String> = set.skipped.iter().map(|s| s.to_string()).collect();
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(reasons[0].contains("w/AGENTS.md") && reasons[0].contains("symbolic link"));
        assert!(reasons[1].contains("w/a/AGENTS.md") && reasons[1].contains("hard links"));
    }

    #[test]
    fn symlinked_cwd_is_resolved_once_and_read_for_real() {
        let (_t, home, root) = setup();
        std::fs::write(root.join("w/a/AGENTS.md"), "A").unwrap();
        symlink(root.join("w/a/b"), root.join("link")).unwrap();
        let set = discover(&home, &root.join("link")).unwrap();
        assert_eq!(
            ours(&set, &root),
            vec![("w/a/AGENTS.md".into(), Scope::Ancestor, "A".into())]
        );
    }

    #[test]
    fn digest_tracks_content() {
        let (_t, home, root) = setup();
        let cwd = root.join("w/a/b");
        std::fs::write(root.join("w/AGENTS.md"), "one").unwrap();
        let d1 = discover(&home, &cwd).unwrap().digest();
        assert_eq!(d1, discover(&home, &cwd).unwrap().digest());
        std::fs::write(root.join("w/AGENTS.md"), "two").unwrap();
        assert_ne!(d1, discover(&home, &cwd).unwrap().digest());
    }

    #[test]
    fn cwd_inside_home_reads_home_agents_once() {
        let (_t, home, _root) = setup();
        std::fs::write(home.agents_file(), "H").unwrap();
        let set = discover(&home, home.root()).unwrap();
        let n = set.instructions.iter().filter(|i| i.text == "H").count();
        assert_eq!(n, 1);
    }

    #[test]
    fn insecure_home_is_an_error() {
        use std::os::unix::fs::PermissionsExt;
        let (_t, home, root) = setup();
        std::fs::set_permissions(home.root(), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(matches!(
            discover(&home, &root),
            Err(InstructionError::Home(_))
        ));
    }
}

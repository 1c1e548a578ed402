use super::*;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/b.rs"), "fn b() {}\n").unwrap();
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    dir
}

#[test]
fn a_fresh_commit_is_clean_on_its_branch_from_any_subdirectory() {
    let dir = repo();
    let s = state(&dir.path().join("src")).expect("a repository");
    assert_eq!(s.head, Head::Branch("main".into()));
    assert_eq!(s.changes, Changes::None);
}

#[test]
fn a_modified_or_deleted_tracked_file_is_a_change() {
    let dir = repo();
    fs::write(dir.path().join("a.txt"), "two\n").unwrap();
    assert_eq!(state(dir.path()).unwrap().changes, Changes::Some);
    git(dir.path(), &["checkout", "-q", "--", "a.txt"]);
    assert_eq!(state(dir.path()).unwrap().changes, Changes::None);
    fs::remove_file(dir.path().join("src/b.rs")).unwrap();
    assert_eq!(state(dir.path()).unwrap().changes, Changes::Some);
}

#[test]
fn a_staged_file_is_a_change_until_it_is_committed() {
    let dir = repo();
    fs::write(dir.path().join("new.txt"), "new\n").unwrap();
    assert_eq!(
        state(dir.path()).unwrap().changes,
        Changes::None,
        "untracked files do not count"
    );
    git(dir.path(), &["add", "new.txt"]);
    assert_eq!(state(dir.path()).unwrap().changes, Changes::Some);
    git(dir.path(), &["commit", "-q", "-m", "second"]);
    assert_eq!(state(dir.path()).unwrap().changes, Changes::None);
}

#[test]
fn index_version_4_and_a_detached_head_are_read() {
    let dir = repo();
    git(dir.path(), &["update-index", "--index-version", "4"]);
    git(dir.path(), &["checkout", "-q", "--detach"]);
    let s = state(dir.path()).unwrap();
    assert!(
        matches!(s.head, Head::Detached(ref c) if c.len() == 12),
        "{:?}",
        s.head
    );
    assert_eq!(s.changes, Changes::None);
    fs::write(dir.path().join("src/b.rs"), "fn c() {}\n").unwrap();
    assert_eq!(state(dir.path()).unwrap().changes, Changes::Some);
}

#[test]
fn no_repository_and_a_damaged_index_are_said_plainly() {
    let dir = tempfile::tempdir().unwrap();
    // A temp dir could sit inside some repository; only assert when it does not.
    if find(dir.path()).is_none() {
        assert_eq!(state(dir.path()), None);
    }
    let dir = repo();
    fs::write(dir.path().join(".git/index"), b"DIRC\0\0\0\x09garbage").unwrap();
    assert_eq!(state(dir.path()).unwrap().changes, Changes::Unknown);
}

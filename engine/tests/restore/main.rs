//! Checkpoint restore (issue 41, items 3 and 6 and "Bad input and faults"): plans, a full
//! restore of every kind of change a turn can make, conflicts kept or taken, paths that are not
//! restorable, refusals that change nothing (a damaged store object, a read-only file system,
//! a concurrent writer), and the crash matrix with real SIGKILLs (`matrix.rs`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod faults;
mod ignored_now;
mod matrix;
mod real_store;
mod support;
mod unkept;
mod writer;

use ash_engine::checkpoint::restore::{
    EntryKind, OnConflict, RestoreError, apply, external_changes, plan,
};
use ash_engine::checkpoint::{Manifest, Unrestorable};
use ash_engine::files::workspace::Workspace;
use std::collections::BTreeSet;
use support::*;

/// A workspace holding the turn's result, with both manifests and their contents.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub ws: Workspace,
    pub source: MemSource,
    pub target: Manifest,
    pub now: Manifest,
    pub before: Tree,
    pub after: Tree,
}

pub fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    fixture_in(dir)
}

pub fn fixture_in(dir: tempfile::TempDir) -> Fixture {
    let source = MemSource::default();
    build_target(dir.path());
    let target = capture(dir.path(), &source);
    let after = snapshot(dir.path());
    turn(dir.path());
    let now = capture(dir.path(), &source);
    let before = snapshot(dir.path());
    let ws = Workspace::new(dir.path()).unwrap();
    Fixture {
        dir,
        ws,
        source,
        target,
        now,
        before,
        after,
    }
}

fn paths(files: &[ash_engine::checkpoint::restore::PlannedFile]) -> Vec<&str> {
    files.iter().map(|f| f.path.as_str()).collect()
}

#[test]
fn the_plan_lists_restores_recreations_and_deletions_with_line_counts() {
    let f = fixture();
    let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
    assert_eq!(
        paths(&p.restore),
        ["a.txt", "bin.dat", "d", "ln", "run.sh", "swap", "swap2"]
    );
    assert_eq!(
        paths(&p.recreate),
        [
            "dangle",
            "empty",
            "gone.txt",
            "old",
            "old/name.txt",
            "swap2/x"
        ]
    );
    assert_eq!(
        paths(&p.delete),
        [
            "moved",
            "moved/name.txt",
            "new.txt",
            "newempty",
            "swap/inner.txt"
        ]
    );
    let a = &p.restore[0];
    // alpha/beta from alpha/BETA/gamma: BETA and gamma go, beta comes back.
    assert_eq!((a.added_lines, a.removed_lines, a.binary), (1, 2, false));
    let bin = &p.restore[1];
    assert!(bin.binary, "{bin:?}");
    assert_eq!((bin.added_lines, bin.removed_lines), (0, 0));
    assert_eq!(
        p.restore[5].kind,
        EntryKind::File,
        "swap becomes a file again"
    );
    assert_eq!(
        p.restore[6].kind,
        EntryKind::Dir,
        "swap2 becomes a directory again"
    );
    assert_eq!(p.restore[3].kind, EntryKind::Symlink);
    assert_eq!(p.recreate[2].added_lines, 1);
    assert_eq!(p.delete[2].removed_lines, 1);
    assert!(p.conflicts.is_empty());
    assert!(p.not_restorable.is_empty(), "{:?}", p.not_restorable);
}

#[test]
fn a_restore_puts_back_content_creations_deletions_renames_modes_links_and_swaps() {
    let f = fixture();
    let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
    let done = apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap();
    assert_eq!(snapshot(f.dir.path()), f.after);
    assert_eq!((done.restored, done.recreated, done.deleted), (7, 6, 5));
    assert!(done.kept.is_empty());
    assert_eq!(journal_left(f.dir.path()), Vec::<String>::new());
    // Undoing the restore is the same operation the other way round.
    let back = plan(&f.now, &f.target, &BTreeSet::new(), &f.source).unwrap();
    apply(&f.ws, &back, &f.now, &f.target, OnConflict::Take, &f.source).unwrap();
    assert_eq!(snapshot(f.dir.path()), f.before);
}

/// Names under `.ash` a restore journal uses that still exist, but for a committed journal
/// set aside for background deletion (see `the_committed_journal_is_deleted_in_the_background`).
pub fn journal_left(root: &std::path::Path) -> Vec<String> {
    restore_names(root)
        .into_iter()
        .filter(|n| !n.starts_with("restore.trash-"))
        .collect()
}

fn restore_names(root: &std::path::Path) -> Vec<String> {
    let Ok(list) = std::fs::read_dir(root.join(".ash")) else {
        return Vec::new();
    };
    list.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("restore"))
        .collect()
}

#[test]
fn the_committed_journal_is_deleted_in_the_background() {
    let f = fixture();
    let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
    apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap();
    let started = std::time::Instant::now();
    while !restore_names(f.dir.path()).is_empty() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "left: {:?}",
            restore_names(f.dir.path())
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn external_changes_are_conflicts_that_keep_leaves_and_take_overwrites() {
    let f = fixture();
    // Something other than the session rewrote a.txt after the turn.
    write(f.dir.path(), "a.txt", b"the user's edit\n", 0o644);
    let now = capture(f.dir.path(), &f.source);
    let external = external_changes(&[(&f.now, &now)]);
    assert_eq!(external.iter().collect::<Vec<_>>(), ["a.txt"]);
    let p = plan(&f.target, &now, &external, &f.source).unwrap();
    assert_eq!(p.conflicts, ["a.txt"]);
    let done = apply(&f.ws, &p, &f.target, &now, OnConflict::Keep, &f.source).unwrap();
    assert_eq!(done.kept, ["a.txt"]);
    assert_eq!(
        std::fs::read(f.dir.path().join("a.txt")).unwrap(),
        b"the user's edit\n"
    );
    let mut expected = f.after.clone();
    expected.insert(
        "a.txt".into(),
        Snap::File {
            bytes: b"the user's edit\n".to_vec(),
            mode: 0o644,
        },
    );
    assert_eq!(snapshot(f.dir.path()), expected);

    let g = fixture();
    write(g.dir.path(), "a.txt", b"the user's edit\n", 0o644);
    let now = capture(g.dir.path(), &g.source);
    let p = plan(&g.target, &now, &external, &g.source).unwrap();
    let done = apply(&g.ws, &p, &g.target, &now, OnConflict::Take, &g.source).unwrap();
    assert!(done.kept.is_empty());
    assert_eq!(snapshot(g.dir.path()), g.after);
}

#[test]
fn a_kept_file_holds_its_directory_in_place() {
    let f = fixture();
    // The user added a file inside the directory the turn created.
    write(f.dir.path(), "moved/mine.txt", b"mine\n", 0o644);
    let now = capture(f.dir.path(), &f.source);
    let external = external_changes(&[(&f.now, &now)]);
    let p = plan(&f.target, &now, &external, &f.source).unwrap();
    assert_eq!(p.conflicts, ["moved/mine.txt"]);
    let done = apply(&f.ws, &p, &f.target, &now, OnConflict::Keep, &f.source).unwrap();
    assert_eq!(done.kept, ["moved", "moved/mine.txt"]);
    let tree = snapshot(f.dir.path());
    assert!(tree.contains_key("moved/mine.txt"));
    assert!(
        !tree.contains_key("moved/name.txt"),
        "the turn's file still goes"
    );
    assert_eq!(tree.get("old/name.txt"), f.after.get("old/name.txt"));
}

#[test]
fn paths_not_restorable_are_listed_and_never_touched() {
    let f = fixture();
    // `moved` (created by the turn) now holds a build directory recorded without content.
    mkdir(f.dir.path(), "moved/target", 0o755);
    write(f.dir.path(), "moved/target/big.o", b"object code", 0o644);
    let mut now = capture(f.dir.path(), &f.source);
    now.entries.retain(|e| !e.path.starts_with("moved/target/"));
    let e = now
        .entries
        .iter_mut()
        .find(|e| e.path == "moved/target")
        .unwrap();
    e.state = Err(Unrestorable::Ignored);
    let p = plan(&f.target, &now, &BTreeSet::new(), &f.source).unwrap();
    assert!(
        p.not_restorable
            .contains(&("moved/target".to_owned(), Unrestorable::Ignored))
    );
    assert!(
        p.not_restorable
            .contains(&("moved".to_owned(), Unrestorable::Ignored)),
        "{p:?}"
    );
    assert!(!paths(&p.delete).contains(&"moved"));
    apply(&f.ws, &p, &f.target, &now, OnConflict::Take, &f.source).unwrap();
    assert_eq!(
        std::fs::read(f.dir.path().join("moved/target/big.o")).unwrap(),
        b"object code"
    );
    assert!(!f.dir.path().join("moved/name.txt").exists());
}

#[test]
fn a_malformed_manifest_or_a_stale_plan_is_refused_before_anything_changes() {
    let f = fixture();
    let mut bad = f.target.clone();
    bad.entries.swap(0, 1);
    let err = plan(&bad, &f.now, &BTreeSet::new(), &f.source).unwrap_err();
    assert!(
        matches!(
            err,
            RestoreError::InvalidManifest {
                which: "target",
                ..
            }
        ),
        "{err}"
    );
    let mut escape = f.target.clone();
    escape.entries[0].path = "../outside".into();
    assert!(plan(&escape, &f.now, &BTreeSet::new(), &f.source).is_err());

    let mut p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
    p.delete.pop();
    let err = apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap_err();
    assert!(matches!(err, RestoreError::StalePlan { .. }), "{err}");
    assert_eq!(snapshot(f.dir.path()), f.before);
}

const AS_NOBODY: &str = "CK_RESTORE_TEST_AS_NOBODY";
const NOBODY: u32 = 65534;

/// Permission bits do not stop root, so as root this runs itself again in a child process
/// that has dropped to the `nobody` user first.
#[test]
fn a_read_only_directory_keeps_its_mode_while_its_entries_are_restored() {
    if nix::unistd::geteuid().is_root() {
        if std::env::var_os(AS_NOBODY).is_some() {
            use nix::unistd::{Gid, Uid, setgroups, setresgid, setresuid};
            setgroups(&[]).unwrap();
            let g = Gid::from_raw(NOBODY);
            setresgid(g, g, g).unwrap();
            let u = Uid::from_raw(NOBODY);
            setresuid(u, u, u).unwrap();
            assert_eq!(nix::unistd::geteuid().as_raw(), NOBODY);
            return read_only_directory_case();
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "a_read_only_directory_keeps_its_mode_while_its_entries_are_restored",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(AS_NOBODY, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "the unprivileged run failed or ran nothing:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    read_only_directory_case();
}

fn read_only_directory_case() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let source = MemSource::default();
    mkdir(root, "ro", 0o755);
    write(root, "ro/f", b"checkpoint\n", 0o644);
    std::fs::set_permissions(
        root.join("ro"),
        std::os::unix::fs::PermissionsExt::from_mode(0o555),
    )
    .unwrap();
    let target = capture(root, &source);
    let after = snapshot(root);
    std::fs::set_permissions(
        root.join("ro"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    write(root, "ro/f", b"turn\n", 0o644);
    write(root, "ro/new", b"turn\n", 0o644);
    std::fs::set_permissions(
        root.join("ro"),
        std::os::unix::fs::PermissionsExt::from_mode(0o555),
    )
    .unwrap();
    let now = capture(root, &source);
    let ws = Workspace::new(root).unwrap();
    let p = plan(&target, &now, &BTreeSet::new(), &source).unwrap();
    assert_eq!(paths(&p.restore), ["ro/f"]);
    assert_eq!(paths(&p.delete), ["ro/new"]);
    apply(&ws, &p, &target, &now, OnConflict::Take, &source).unwrap();
    assert_eq!(snapshot(root), after);
}

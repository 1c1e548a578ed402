//! The restore over the real capture and store (`capture`, and `Store` as the `ObjectSource`), with a
//! `.gitignore`d directory the restore must leave alone.

use crate::journal_left;
use crate::support::*;
use ash_engine::checkpoint::restore::{OnConflict, apply, plan};
use ash_engine::checkpoint::{CaptureRules, Store, Unrestorable, capture};
use ash_engine::files::workspace::Workspace;
use std::collections::BTreeSet;

#[test]
fn a_checkpoint_taken_by_capture_is_restored_exactly_and_ignored_paths_stay() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let store_dir = tempfile::tempdir().unwrap();
    let store = Store::open(&store_dir.path().join("store"), 1 << 30).unwrap();
    let ws = Workspace::new(root).unwrap();
    build_target(root);
    write(root, ".gitignore", b"target/\n", 0o644);
    mkdir(root, "target", 0o755);
    write(root, "target/out.bin", b"build output v1", 0o644);
    let rules = CaptureRules::default();
    let target = capture(&ws, &store, None, &rules).unwrap().manifest;
    let after = snapshot(root);
    turn(root);
    write(root, "target/out.bin", b"build output v2", 0o644);
    let now = capture(&ws, &store, Some(&target), &rules)
        .unwrap()
        .manifest;
    let before = snapshot(root);

    let p = plan(&target, &now, &BTreeSet::new(), &store).unwrap();
    assert!(
        p.not_restorable
            .contains(&("target".to_owned(), Unrestorable::Ignored)),
        "{:?}",
        p.not_restorable
    );
    apply(&ws, &p, &target, &now, OnConflict::Take, &store).unwrap();
    let mut expected = after.clone();
    expected.insert(
        "target/out.bin".into(),
        before.get("target/out.bin").unwrap().clone(),
    );
    assert_eq!(snapshot(root), expected);
    assert_eq!(journal_left(root), Vec::<String>::new());
}

#[test]
fn changes_in_state_directories_are_counted_in_the_plan_never_kept_and_never_restored() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let store_dir = tempfile::tempdir().unwrap();
    let store = Store::open(&store_dir.path().join("store"), 1 << 30).unwrap();
    let ws = Workspace::new(root).unwrap();
    write(root, "a.txt", b"alpha\n", 0o644);
    mkdir(root, ".git", 0o755);
    write(root, ".git/HEAD", b"ref: refs/heads/main\n", 0o644);
    mkdir(root, ".git/refs", 0o755);
    mkdir(root, "vendor", 0o755);
    mkdir(root, "vendor/.hg", 0o755);
    write(root, "vendor/.hg/store", b"hg v1\n", 0o644);
    let rules = CaptureRules::default();
    let target = capture(&ws, &store, None, &rules).unwrap().manifest;
    // No content below a state directory is read into the store.
    for path in [".git/HEAD", "vendor/.hg/store"] {
        let e = target.get(path).expect(path);
        assert_eq!(e.state, Err(Unrestorable::StateDir), "{path}");
    }
    assert!(
        !store.contains(&ash_engine::protocol::Digest::of(b"ref: refs/heads/main\n")),
        "a state file's content was stored"
    );
    // The turn commits (three paths below .git) and changes a file; vendor/.hg stays.
    write(root, "a.txt", b"alpha\nbeta\n", 0o644);
    write(root, ".git/HEAD", b"ref: refs/heads/topic\n", 0o644);
    write(root, ".git/refs/topic", b"0123\n", 0o644);
    write(root, ".git/index", b"index\n", 0o644);
    let now = capture(&ws, &store, Some(&target), &rules)
        .unwrap()
        .manifest;
    let before = snapshot(root);
    let p = plan(&target, &now, &BTreeSet::new(), &store).unwrap();
    // HEAD, refs/topic and index changed, and the directories refs and .git itself.
    assert_eq!(p.changed_not_restored, [(".git".to_owned(), 5)]);
    // The plan lists a state directory once, not what is below it.
    assert!(
        p.not_restorable
            .iter()
            .all(|(path, _)| !path.starts_with(".git/")),
        "{:?}",
        p.not_restorable
    );
    apply(&ws, &p, &target, &now, OnConflict::Take, &store).unwrap();
    let after = snapshot(root);
    for (path, snap) in &before {
        if path.starts_with(".git") || path.starts_with("vendor") {
            assert_eq!(after.get(path), Some(snap), "{path} was touched");
        }
    }
    assert_eq!(
        std::fs::read(root.join("a.txt")).unwrap(),
        b"alpha\n",
        "the rest is restored"
    );
}

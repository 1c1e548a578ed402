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

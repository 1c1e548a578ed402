//! The restore over the real capture and store (ck-capture's `capture` and `Store`), with a
//! `.gitignore`d directory the restore must leave alone.

use crate::journal_left;
use crate::support::*;
use ash_engine::checkpoint::restore::{ObjectSource, OnConflict, SourceError, apply, plan};
use ash_engine::checkpoint::{CaptureRules, CheckpointError, Store, Unrestorable, capture};
use ash_engine::files::workspace::Workspace;
use ash_engine::protocol::Digest;
use std::collections::BTreeSet;

/// The store seen through the restore's trait (the real `impl ObjectSource for Store` lands
/// with the merge of both branches; this keeps the test independent of where it lives).
struct Kept<'a>(&'a Store);

impl ObjectSource for Kept<'_> {
    fn object(&self, digest: &Digest) -> Result<Vec<u8>, SourceError> {
        self.0.object(digest).map_err(|e| match e {
            CheckpointError::MissingObject(d) => SourceError::Missing(d),
            CheckpointError::CorruptObject { digest, .. } => SourceError::Corrupt(digest),
            other => SourceError::Io(other.to_string()),
        })
    }
}

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

    let p = plan(&target, &now, &BTreeSet::new(), &Kept(&store)).unwrap();
    assert!(
        p.not_restorable
            .contains(&("target".to_owned(), Unrestorable::Ignored)),
        "{:?}",
        p.not_restorable
    );
    apply(&ws, &p, &target, &now, OnConflict::Take, &Kept(&store)).unwrap();
    let mut expected = after.clone();
    expected.insert(
        "target/out.bin".into(),
        before.get("target/out.bin").unwrap().clone(),
    );
    assert_eq!(snapshot(root), expected);
    assert_eq!(journal_left(root), Vec::<String>::new());
}

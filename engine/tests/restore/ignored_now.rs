//! A directory whose content the checkpoint kept and that is ignored now (a turn appended
//! `build/` to `.gitignore`) is restored like any kept path: the capture for the restore lists
//! it by stat, its kept files come back, what it holds now that was never captured is named
//! `unkept` and deleted, and a crash at any cut point leaves exactly the before or after tree.

use crate::journal_left;
use crate::support::{Tree, mkdir, snapshot, write};
use ash_engine::checkpoint::restore::{
    OnConflict, Plan, RecoveredRestore, apply, external_changes, plan,
};
use ash_engine::checkpoint::{CaptureRules, Manifest, Store, Unrestorable};
use ash_engine::compute::ComputePlane;
use ash_engine::files::workspace::Workspace;
use ash_engine::session::{Session, SessionConfig};
use ash_engine::txn::Outcome;
use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

const DIR: &str = "CK_IGNORED_NOW_DIR";

/// The workspace at `root` (store at `store`), taken from the checkpoint state to the turn's
/// result: returns the checkpoint, the capture of now for a restore to it, and both trees.
struct Turned {
    ws: Workspace,
    store: Store,
    target: Manifest,
    now: Manifest,
    checkpoint_tree: Tree,
    turn_tree: Tree,
}

fn turned(root: &Path, store: &Path) -> Turned {
    let store = Store::open(store, 1 << 30).unwrap();
    let ws = Workspace::new(root).unwrap();
    let rules = CaptureRules::default();
    write(root, ".gitignore", b"target/\n", 0o644);
    mkdir(root, "build", 0o755);
    write(root, "build/a.txt", b"kept a\n", 0o644);
    write(
        root,
        "build/gone.txt",
        b"kept, deleted by the turn\n",
        0o600,
    );
    let target = ash_engine::checkpoint::capture(&ws, &store, None, &rules)
        .unwrap()
        .manifest;
    let checkpoint_tree = snapshot(root);
    // The turn: ignores build/, then changes what is in it.
    write(root, ".gitignore", b"target/\nbuild/\n", 0o644);
    write(root, "build/a.txt", b"a rewritten by the turn\n", 0o644);
    std::fs::remove_file(root.join("build/gone.txt")).unwrap();
    write(root, "build/new.txt", b"never captured\n", 0o644);
    mkdir(root, "build/sub", 0o700);
    write(
        root,
        "build/sub/deep.txt",
        b"never captured either\n",
        0o644,
    );
    let turn_tree = snapshot(root);
    let now =
        ash_engine::checkpoint::capture_for_restore(&ws, &store, Some(&target), &rules, &target)
            .unwrap()
            .manifest;
    Turned {
        ws,
        store,
        target,
        now,
        checkpoint_tree,
        turn_tree,
    }
}

fn planned(t: &Turned) -> Plan {
    plan(&t.target, &t.now, &BTreeSet::new(), &t.store).unwrap()
}

fn paths(files: &[ash_engine::checkpoint::restore::PlannedFile]) -> Vec<&str> {
    files.iter().map(|f| f.path.as_str()).collect()
}

#[test]
fn a_directory_ignored_now_is_restored_and_what_it_holds_now_is_named_unkept() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let t = turned(dir.path(), &store_dir.path().join("store"));
    let build = t.now.entries.iter().find(|e| e.path == "build").unwrap();
    assert_eq!(build.state, Err(Unrestorable::Ignored));

    let p = planned(&t);
    assert_eq!(paths(&p.restore), [".gitignore", "build/a.txt"]);
    assert_eq!(paths(&p.recreate), ["build/gone.txt"]);
    assert_eq!(
        paths(&p.delete),
        ["build/new.txt", "build/sub", "build/sub/deep.txt"]
    );
    // Replaced or deleted without ever being kept: lost for good, said before confirming.
    assert_eq!(
        p.unkept,
        ["build/a.txt", "build/new.txt", "build/sub/deep.txt"]
    );
    assert!(p.not_restorable.is_empty(), "{:?}", p.not_restorable);
    apply(&t.ws, &p, &t.target, &t.now, OnConflict::Take, &t.store).unwrap();
    assert_eq!(snapshot(dir.path()), t.checkpoint_tree);
    assert_eq!(journal_left(dir.path()), Vec::<String>::new());
}

#[test]
fn a_capture_outside_a_restore_still_does_not_look_inside_an_ignored_directory() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let t = turned(dir.path(), &store_dir.path().join("store"));
    let plain =
        ash_engine::checkpoint::capture(&t.ws, &t.store, Some(&t.now), &CaptureRules::default())
            .unwrap()
            .manifest;
    assert!(
        plain.entries.iter().all(|e| !e.path.starts_with("build/")),
        "{plain:?}"
    );
    // Without the listing, nothing below it is touched.
    let p = plan(&t.target, &plain, &BTreeSet::new(), &t.store).unwrap();
    assert_eq!(paths(&p.restore), [".gitignore"]);
    assert!(p.delete.is_empty() && p.unkept.is_empty(), "{p:?}");
    // A turn's own checkpoint that did not list the directory says nothing about what is in
    // it: the listing of the restore's capture is no change from outside.
    assert!(
        external_changes(&[(&plain, &t.now)]).is_empty(),
        "{:?}",
        external_changes(&[(&plain, &t.now)])
    );
}

#[test]
fn a_rollback_puts_what_was_never_captured_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let t = turned(dir.path(), &store_dir.path().join("store"));
    let p = planned(&t);
    assert_eq!(
        p.unkept,
        ["build/a.txt", "build/new.txt", "build/sub/deep.txt"]
    );
    // Found changed after the uncaptured files were moved away (the shallowest path is
    // checked last): the whole restore rolls back.
    write(dir.path(), ".gitignore", b"someone else\n", 0o644);
    let before = snapshot(dir.path());
    let err = apply(&t.ws, &p, &t.target, &t.now, OnConflict::Take, &t.store).unwrap_err();
    assert!(
        matches!(err, ash_engine::checkpoint::restore::RestoreError::Concurrent { ref path } if path == ".gitignore"),
        "{err:?}"
    );
    assert_eq!(snapshot(dir.path()), before);
    assert_eq!(journal_left(dir.path()), Vec::<String>::new());
}

/// In a helper process: builds the workspace below `$CK_IGNORED_NOW_DIR` and restores it
/// (`ASH_CRASH_RESTORE_AT` kills it). As an ordinary test it checks the restore completes.
#[test]
fn ignored_now_helper() {
    match std::env::var(DIR) {
        Ok(dir) => {
            let root = Path::new(&dir).join("ws");
            std::fs::create_dir(&root).unwrap();
            let t = turned(&root, &Path::new(&dir).join("store"));
            let p = planned(&t);
            apply(&t.ws, &p, &t.target, &t.now, OnConflict::Take, &t.store).unwrap();
        }
        Err(_) => {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("ws");
            std::fs::create_dir(&root).unwrap();
            let t = turned(&root, &dir.path().join("store"));
            let p = planned(&t);
            apply(&t.ws, &p, &t.target, &t.now, OnConflict::Take, &t.store).unwrap();
            assert_eq!(snapshot(&root), t.checkpoint_tree);
        }
    }
}

fn outcome_word(r: &RecoveredRestore) -> String {
    match &r.outcome {
        Outcome::RolledBack => "rolled-back".into(),
        Outcome::Committed => "committed".into(),
        Outcome::Unresolved { reason } => format!("unresolved {reason}"),
    }
}

fn open(root: &Path) -> Vec<RecoveredRestore> {
    let session =
        Session::open(root, SessionConfig::run(), Arc::new(ComputePlane::host())).expect("open");
    session.take_recovered_restores()
}

fn helper(dir: &Path, crash_at: Option<u64>) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "ignored_now::ignored_now_helper",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(DIR, dir)
    .env_remove("ASH_CRASH_RESTORE_AT")
    .env_remove("ASH_CRASH_RESTORE_RECOVERY_AT");
    if let Some(n) = crash_at {
        cmd.env("ASH_CRASH_RESTORE_AT", n.to_string());
    }
    cmd.output().unwrap()
}

#[test]
fn a_crash_at_any_cut_point_leaves_exactly_the_before_or_the_after_tree() {
    // The two trees, from a run of the same steps.
    let reference = tempfile::tempdir().unwrap();
    std::fs::create_dir(reference.path().join("ws")).unwrap();
    let r = turned(
        &reference.path().join("ws"),
        &reference.path().join("store"),
    );
    let (before, after) = (r.turn_tree.clone(), r.checkpoint_tree.clone());
    let mut seen = (0, 0);
    for n in 1u64.. {
        assert!(n < 500, "the restore never finished");
        let parent = tempfile::tempdir().unwrap();
        let out = helper(parent.path(), Some(n));
        if out.status.signal() != Some(9) {
            assert!(
                out.status.success(),
                "helper failed at n={n}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(n > 5, "only {} cut points were hit", n - 1);
            assert!(seen.0 > 0 && seen.1 > 0, "both outcomes occur: {seen:?}");
            return;
        }
        let ws = parent.path().join("ws");
        let found = open(&ws);
        assert_eq!(found.len(), 1, "n={n}: {found:?}");
        let tree = snapshot(&ws);
        match outcome_word(&found[0]).as_str() {
            "rolled-back" => {
                assert_eq!(tree, before, "n={n}: not the before-tree");
                seen.0 += 1;
            }
            "committed" => {
                assert_eq!(tree, after, "n={n}: not the after-tree");
                seen.1 += 1;
            }
            other => panic!("n={n}: recovery said {other}"),
        }
        assert_eq!(journal_left(&ws), Vec::<String>::new(), "n={n}");
    }
}

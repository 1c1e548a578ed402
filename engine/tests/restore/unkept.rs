//! A turn that makes its own changes unrecordable (a `*` in `.gitignore`, a file grown past
//! the size limit, a file made unreadable, a file written during the capture) must still be
//! rewound: the checkpoint's kept content wins whatever the now manifest could record, the
//! plan says which current versions are lost, a file seen changing is a conflict, and the
//! concurrency check of such a path compares its recorded stat.

use crate::journal_left;
use crate::support::*;
use ash_engine::checkpoint::restore::{OnConflict, RestoreError, apply, plan};
use ash_engine::checkpoint::{CaptureRules, Manifest, Store, Unrestorable};
use ash_engine::files::workspace::Workspace;
use std::collections::BTreeSet;
use std::path::Path;

/// A real store, a workspace, and the capture rules the test names.
struct Real {
    dir: tempfile::TempDir,
    _store_dir: tempfile::TempDir,
    store: Store,
    ws: Workspace,
    rules: CaptureRules,
}

fn real(rules: CaptureRules) -> Real {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let store = Store::open(&store_dir.path().join("store"), 1 << 30).unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    Real {
        dir,
        _store_dir: store_dir,
        store,
        ws,
        rules,
    }
}

impl Real {
    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn capture(&self, previous: Option<&Manifest>) -> Manifest {
        ash_engine::checkpoint::capture(&self.ws, &self.store, previous, &self.rules)
            .unwrap()
            .manifest
    }
}

fn state<'a>(
    m: &'a Manifest,
    path: &str,
) -> &'a Result<ash_engine::checkpoint::Node, Unrestorable> {
    &m.entries.iter().find(|e| e.path == path).unwrap().state
}

fn set_state(m: &mut Manifest, path: &str, why: Unrestorable) {
    m.entries.iter_mut().find(|e| e.path == path).unwrap().state = Err(why);
}

#[test]
fn a_star_written_into_gitignore_does_not_stop_the_rewind_of_the_gitignore_and_files() {
    let r = real(CaptureRules::default());
    write(r.root(), ".gitignore", b"target/\n", 0o644);
    write(r.root(), "a.txt", b"alpha\n", 0o644);
    let target = r.capture(None);
    let after = snapshot(r.root());
    write(r.root(), ".gitignore", b"*\n", 0o644);
    write(r.root(), "a.txt", b"changed by the turn\n", 0o644);
    let now = r.capture(Some(&target));
    assert_eq!(state(&now, ".gitignore"), &Err(Unrestorable::Ignored));
    assert_eq!(state(&now, "a.txt"), &Err(Unrestorable::Ignored));

    let p = plan(&target, &now, &BTreeSet::new(), &r.store).unwrap();
    let restored: Vec<&str> = p.restore.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(restored, [".gitignore", "a.txt"]);
    assert_eq!(p.unkept, [".gitignore", "a.txt"]);
    assert!(p.not_restorable.is_empty(), "{:?}", p.not_restorable);
    apply(&r.ws, &p, &target, &now, OnConflict::Take, &r.store).unwrap();
    assert_eq!(snapshot(r.root()), after);
    assert_eq!(journal_left(r.root()), Vec::<String>::new());
}

#[test]
fn a_file_grown_past_the_size_limit_is_put_back_to_its_kept_small_version() {
    let r = real(CaptureRules {
        max_file_bytes: 64,
        exclude: Vec::new(),
    });
    write(r.root(), "small.txt", b"small\n", 0o644);
    let target = r.capture(None);
    let after = snapshot(r.root());
    write(r.root(), "small.txt", &[b'x'; 1000], 0o644);
    write(r.root(), "huge.bin", &[b'y'; 1000], 0o644);
    let now = r.capture(Some(&target));
    assert!(matches!(
        state(&now, "small.txt"),
        Err(Unrestorable::TooLarge { .. })
    ));

    let p = plan(&target, &now, &BTreeSet::new(), &r.store).unwrap();
    let restored: Vec<&str> = p.restore.iter().map(|f| f.path.as_str()).collect();
    let deleted: Vec<&str> = p.delete.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(restored, ["small.txt"]);
    // Made by the turn and too large to keep: the checkpoint says it was absent.
    assert_eq!(deleted, ["huge.bin"]);
    assert_eq!(p.unkept, ["huge.bin", "small.txt"]);
    apply(&r.ws, &p, &target, &now, OnConflict::Take, &r.store).unwrap();
    assert_eq!(snapshot(r.root()), after);
}

#[test]
fn a_file_made_unreadable_by_the_turn_is_restored_with_its_content_and_mode() {
    let source = MemSource::default();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "secret.txt", b"kept\n", 0o644);
    let target = capture(root, &source);
    let after = snapshot(root);
    write(root, "secret.txt", b"rewritten\n", 0o644);
    std::fs::set_permissions(
        root.join("secret.txt"),
        std::os::unix::fs::PermissionsExt::from_mode(0o000),
    )
    .unwrap();
    let mut now = capture(root, &source);
    // What a non-root capture records for a mode-000 file (the test may run as root).
    set_state(
        &mut now,
        "secret.txt",
        Unrestorable::Unreadable {
            reason: "it cannot be opened: Permission denied (os error 13)".into(),
        },
    );
    let ws = Workspace::new(root).unwrap();
    let p = plan(&target, &now, &BTreeSet::new(), &source).unwrap();
    assert_eq!(p.unkept, ["secret.txt"]);
    assert!(p.conflicts.is_empty());
    apply(&ws, &p, &target, &now, OnConflict::Take, &source).unwrap();
    assert_eq!(snapshot(root), after);
}

fn racing() -> (tempfile::TempDir, MemSource, Manifest, Manifest) {
    let source = MemSource::default();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "log.txt", b"before\n", 0o644);
    let target = capture(dir.path(), &source);
    write(dir.path(), "log.txt", b"being written\n", 0o644);
    let mut now = capture(dir.path(), &source);
    set_state(
        &mut now,
        "log.txt",
        Unrestorable::Unreadable {
            reason: "it kept changing while the checkpoint was taken (3 reads)".into(),
        },
    );
    (dir, source, target, now)
}

#[test]
fn a_file_seen_changing_during_the_capture_is_a_conflict_that_keep_leaves() {
    let (dir, source, target, now) = racing();
    let ws = Workspace::new(dir.path()).unwrap();
    let p = plan(&target, &now, &BTreeSet::new(), &source).unwrap();
    assert_eq!(p.conflicts, ["log.txt"]);
    assert_eq!(p.unkept, ["log.txt"]);
    let before = snapshot(dir.path());
    let done = apply(&ws, &p, &target, &now, OnConflict::Keep, &source).unwrap();
    assert_eq!(done.kept, ["log.txt"]);
    assert_eq!(snapshot(dir.path()), before);
    let done = apply(&ws, &p, &target, &now, OnConflict::Take, &source).unwrap();
    assert_eq!(done.restored, 1);
    assert_eq!(
        std::fs::read(dir.path().join("log.txt")).unwrap(),
        b"before\n"
    );
}

#[test]
fn an_unkept_file_written_after_the_plan_refuses_the_restore_and_keeps_the_write() {
    let (dir, source, target, now) = racing();
    let ws = Workspace::new(dir.path()).unwrap();
    let p = plan(&target, &now, &BTreeSet::new(), &source).unwrap();
    // Same size, new mtime: only the recorded stat can tell.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(dir.path().join("log.txt"), b"BEING WRITTEN\n").unwrap();
    let before = snapshot(dir.path());
    let err = apply(&ws, &p, &target, &now, OnConflict::Take, &source).unwrap_err();
    assert_eq!(
        err,
        RestoreError::Concurrent {
            path: "log.txt".into()
        }
    );
    assert_eq!(snapshot(dir.path()), before);
    assert_eq!(journal_left(dir.path()), Vec::<String>::new());
}

#[test]
fn an_unkept_path_that_is_a_directory_now_is_never_moved_away() {
    // The turn replaced a kept file with an ignored directory: its contents were never
    // captured, so the restore refuses rather than delete them with its journal.
    let r = real(CaptureRules::default());
    write(r.root(), ".gitignore", b"cache/\n", 0o644);
    write(r.root(), "cache", b"was a file\n", 0o644);
    let target = r.capture(None);
    std::fs::remove_file(r.root().join("cache")).unwrap();
    mkdir(r.root(), "cache", 0o755);
    write(r.root(), "cache/blob", b"never captured\n", 0o644);
    let now = r.capture(Some(&target));
    assert_eq!(state(&now, "cache"), &Err(Unrestorable::Ignored));
    let p = plan(&target, &now, &BTreeSet::new(), &r.store).unwrap();
    assert_eq!(p.unkept, ["cache"]);
    let before = snapshot(r.root());
    let err = apply(&r.ws, &p, &target, &now, OnConflict::Take, &r.store).unwrap_err();
    assert_eq!(
        err,
        RestoreError::Concurrent {
            path: "cache".into()
        }
    );
    assert_eq!(snapshot(r.root()), before);
}

#[test]
fn a_rollback_puts_an_unkept_file_back_where_it_was() {
    let r = real(CaptureRules {
        max_file_bytes: 64,
        exclude: Vec::new(),
    });
    write(r.root(), "a.txt", b"a\n", 0o644);
    write(r.root(), "z.txt", b"z\n", 0o644);
    let target = r.capture(None);
    write(r.root(), "a.txt", b"a by the turn\n", 0o644);
    write(r.root(), "z.txt", &[b'z'; 1000], 0o600);
    let now = r.capture(Some(&target));
    let p = plan(&target, &now, &BTreeSet::new(), &r.store).unwrap();
    assert_eq!(p.unkept, ["z.txt"]);
    // Deepest (last) path first: z.txt is moved away before a.txt is found changed.
    write(r.root(), "a.txt", b"a by someone else\n", 0o644);
    let before = snapshot(r.root());
    let err = apply(&r.ws, &p, &target, &now, OnConflict::Take, &r.store).unwrap_err();
    assert_eq!(
        err,
        RestoreError::Concurrent {
            path: "a.txt".into()
        }
    );
    assert_eq!(snapshot(r.root()), before);
    assert_eq!(journal_left(r.root()), Vec::<String>::new());
}

//! A concurrent writer that creates a path again after the restore moved it away: the rollback
//! keeps the writer's version at the path, sets the version from before the restore aside next
//! to it (`NAME.ansa-rewind-conflict-N`), reports the path, and leaves no journal — also when
//! it is killed at any of its steps, and with a real writer process.

use crate::support::*;
use crate::{fixture, fixture_in, journal_left};
use ash_engine::checkpoint::restore::{
    OnConflict, RestoreError, RollbackConflict, apply, clear_moved_away, on_moved_away, plan,
};
use ash_engine::compute::ComputePlane;
use ash_engine::session::{Session, SessionConfig};
use ash_engine::txn::Outcome;
use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// Makes the restore's hook recreate `path` (as `theirs`, a file) right after it moves away.
fn writer_recreates(root: &Path, path: &'static str, theirs: Snap) {
    let root = root.to_owned();
    on_moved_away(move |moved| {
        if moved != path {
            return;
        }
        match &theirs {
            Snap::File { bytes, mode } => write(&root, path, bytes, *mode),
            Snap::Dir { mode } => {
                mkdir(&root, path, *mode);
                write(&root, &format!("{path}/theirs.txt"), b"theirs\n", 0o644);
            }
            Snap::Link { .. } => unreachable!("the tests recreate files and directories"),
        }
    });
}

fn conflict(path: &str) -> RollbackConflict {
    RollbackConflict {
        path: path.into(),
        set_aside: format!("{path}.ansa-rewind-conflict-1"),
    }
}

/// The before-tree with `a.txt` taken by the writer and its version set aside.
fn expected_a(before: &Tree) -> Tree {
    let mut expected = before.clone();
    let mine = expected.insert(
        "a.txt".into(),
        Snap::File {
            bytes: b"theirs\n".to_vec(),
            mode: 0o644,
        },
    );
    expected.insert("a.txt.ansa-rewind-conflict-1".into(), mine.unwrap());
    expected
}

#[test]
fn a_file_created_again_after_the_restore_moved_it_away_keeps_both_versions() {
    let f = fixture();
    let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
    writer_recreates(
        f.dir.path(),
        "a.txt",
        Snap::File {
            bytes: b"theirs\n".to_vec(),
            mode: 0o644,
        },
    );
    let err = apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap_err();
    clear_moved_away();
    assert_eq!(
        err,
        RestoreError::Conflicted {
            path: "a.txt".into(),
            conflicts: vec![conflict("a.txt")],
        }
    );
    assert!(
        err.to_string().contains("a.txt.ansa-rewind-conflict-1"),
        "{err}"
    );
    assert_eq!(snapshot(f.dir.path()), expected_a(&f.before));
    assert_eq!(journal_left(f.dir.path()), Vec::<String>::new());
    // The workspace is usable: a new plan from it restores the checkpoint.
    let now = capture(f.dir.path(), &f.source);
    let again = plan(&f.target, &now, &BTreeSet::new(), &f.source).unwrap();
    apply(&f.ws, &again, &f.target, &now, OnConflict::Take, &f.source).unwrap();
    assert_eq!(snapshot(f.dir.path()), f.after);
}

#[test]
fn a_directory_created_again_keeps_the_writers_and_the_old_one_with_its_children_goes_aside() {
    // `swap` is a directory now (holding `inner.txt`) and a file in the checkpoint.
    let f = fixture();
    let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
    writer_recreates(f.dir.path(), "swap", Snap::Dir { mode: 0o755 });
    let err = apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap_err();
    clear_moved_away();
    assert_eq!(
        err,
        RestoreError::Conflicted {
            path: "swap".into(),
            conflicts: vec![conflict("swap")],
        }
    );
    let mut expected = f.before.clone();
    let inner = expected.remove("swap/inner.txt").unwrap();
    let old = expected
        .insert("swap".into(), Snap::Dir { mode: 0o755 })
        .unwrap();
    expected.insert(
        "swap/theirs.txt".into(),
        Snap::File {
            bytes: b"theirs\n".to_vec(),
            mode: 0o644,
        },
    );
    expected.insert("swap.ansa-rewind-conflict-1".into(), old);
    expected.insert("swap.ansa-rewind-conflict-1/inner.txt".into(), inner);
    assert_eq!(snapshot(f.dir.path()), expected);
    assert_eq!(journal_left(f.dir.path()), Vec::<String>::new());
}

#[test]
fn the_next_free_number_is_taken_when_a_conflict_name_exists() {
    let f = fixture();
    write(
        f.dir.path(),
        "a.txt.ansa-rewind-conflict-1",
        b"an older one\n",
        0o600,
    );
    let now = capture(f.dir.path(), &f.source);
    let before = snapshot(f.dir.path());
    let p = plan(&f.target, &now, &BTreeSet::new(), &f.source).unwrap();
    writer_recreates(
        f.dir.path(),
        "a.txt",
        Snap::File {
            bytes: b"theirs\n".to_vec(),
            mode: 0o644,
        },
    );
    let err = apply(&f.ws, &p, &f.target, &now, OnConflict::Take, &f.source).unwrap_err();
    clear_moved_away();
    let RestoreError::Conflicted { conflicts, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(conflicts[0].set_aside, "a.txt.ansa-rewind-conflict-2");
    let mut expected = before.clone();
    let mine = expected.insert(
        "a.txt".into(),
        Snap::File {
            bytes: b"theirs\n".to_vec(),
            mode: 0o644,
        },
    );
    expected.insert("a.txt.ansa-rewind-conflict-2".into(), mine.unwrap());
    assert_eq!(snapshot(f.dir.path()), expected);
}

const DIR: &str = "CK_WRITER_HELPER_DIR";

/// In a helper process: restores the fixture in a fresh directory below
/// `$CK_WRITER_HELPER_DIR` while the hook recreates `a.txt`; run as an ordinary test it does
/// so in a temporary directory and checks the result.
#[test]
fn writer_helper_process() {
    let dir = match std::env::var(DIR) {
        Ok(parent) => tempfile::TempDir::new_in(parent).unwrap(),
        Err(_) => tempfile::tempdir().unwrap(),
    };
    let f = fixture_in(dir);
    let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
    writer_recreates(
        f.dir.path(),
        "a.txt",
        Snap::File {
            bytes: b"theirs\n".to_vec(),
            mode: 0o644,
        },
    );
    let err = apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap_err();
    assert!(matches!(err, RestoreError::Conflicted { .. }), "{err:?}");
    assert_eq!(snapshot(f.dir.path()), expected_a(&f.before));
    if std::env::var(DIR).is_ok() {
        let _ = f.dir.keep();
    }
}

#[test]
fn a_rollback_killed_at_any_step_of_setting_a_version_aside_finishes_at_the_next_open() {
    let before = fixture().before;
    let expected = expected_a(&before);
    for n in 1u64.. {
        assert!(n < 200, "the rollback never finished");
        let parent = tempfile::tempdir().unwrap();
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "writer::writer_helper_process",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(DIR, parent.path())
            .env("ASH_CRASH_RESTORE_RECOVERY_AT", n.to_string())
            .env_remove("ASH_CRASH_RESTORE_AT")
            .output()
            .unwrap();
        if out.status.signal() != Some(9) {
            assert!(
                out.status.success(),
                "n={n}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            // Past the last cut point; the set-aside has at least its record and its move.
            assert!(n > 3, "only {} rollback cut points", n - 1);
            return;
        }
        let ws = std::fs::read_dir(parent.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let session =
            Session::open(&ws, SessionConfig::run(), Arc::new(ComputePlane::host())).expect("open");
        let found = session.take_recovered_restores();
        drop(session);
        assert_eq!(found.len(), 1, "n={n}: {found:?}");
        assert_eq!(found[0].outcome, Outcome::RolledBack, "n={n}");
        assert_eq!(found[0].conflicts, [conflict("a.txt")], "n={n}");
        assert_eq!(snapshot(&ws), expected, "n={n}");
        assert_eq!(journal_left(&ws), Vec::<String>::new(), "n={n}");
    }
}

/// Every `xN` line in `text`, as N.
fn numbers(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.strip_prefix('x').and_then(|n| n.parse().ok()))
        .collect()
}

#[test]
fn a_real_writer_process_appending_in_a_loop_loses_no_write() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let source = MemSource::default();
    write(root, "f", b"checkpoint\n", 0o644);
    let target = capture(root, &source);
    write(root, "f", b"turn\n", 0o644);
    let now = capture(root, &source);
    let ws = ash_engine::files::workspace::Workspace::new(root).unwrap();
    let p = plan(&target, &now, &BTreeSet::new(), &source).unwrap();
    let mut writer = Command::new("sh")
        .args(["-c", "i=0; while :; do i=$((i+1)); echo \"x$i\" >> f; done"])
        .current_dir(root)
        .spawn()
        .expect("sh");
    // Let it write, so the restore always finds the file changed.
    while numbers(&std::fs::read_to_string(root.join("f")).unwrap_or_default()).len() < 10 {
        std::thread::yield_now();
    }
    let mut set_aside = Vec::new();
    for _ in 0..2000 {
        match apply(&ws, &p, &target, &now, OnConflict::Take, &source) {
            Err(RestoreError::Concurrent { path }) => assert_eq!(path, "f"),
            Err(RestoreError::Conflicted { path, conflicts }) => {
                assert_eq!(path, "f");
                assert_eq!(conflicts.len(), 1, "{conflicts:?}");
                assert_eq!(conflicts[0].path, "f");
                set_aside.push(conflicts[0].set_aside.clone());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(journal_left(root), Vec::<String>::new());
        if set_aside.len() >= 3 {
            break;
        }
    }
    writer.kill().unwrap();
    writer.wait().unwrap();
    assert!(
        !set_aside.is_empty(),
        "the writer never created f again during 2000 restores"
    );
    // Every line the writer appended is in exactly one version, in order within it.
    let mut all = numbers(&std::fs::read_to_string(root.join("f")).unwrap());
    for name in &set_aside {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        assert!(
            text.starts_with("turn\n") || text.starts_with('x'),
            "{name}: {text:.40}"
        );
        all.extend(numbers(&text));
    }
    all.sort_unstable();
    let max = *all.last().unwrap();
    assert_eq!(
        all,
        (1..=max).collect::<Vec<_>>(),
        "a write was lost or doubled"
    );
    assert_eq!(
        std::fs::read_to_string(root.join(&set_aside[0]))
            .unwrap()
            .lines()
            .next(),
        Some("turn"),
        "the first version set aside is the one from before the restore"
    );
}

//! The crash matrix: a helper process (this test binary, running only `helper_process`)
//! restores the fixture and SIGKILLs itself at forward cut point n (`ASH_CRASH_RESTORE_AT`).
//! Then the workspace is reopened, directly or through a chain of recoveries each killed at
//! its first cut point (`ASH_CRASH_RESTORE_RECOVERY_AT=1`, so every recovery step is
//! interrupted once), and the tree must be exactly the before-tree or exactly the after-tree,
//! the one recovery reported.

use crate::support::snapshot;
use crate::{fixture, fixture_in, journal_left};
use ash_engine::checkpoint::restore::{OnConflict, RecoveredRestore, apply, plan};
use ash_engine::compute::ComputePlane;
use ash_engine::session::{Session, SessionConfig};
use ash_engine::txn::Outcome;
use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

const DIR: &str = "CK_RESTORE_HELPER_DIR";
const MODE: &str = "CK_RESTORE_HELPER_MODE";

/// In a helper process: restores the fixture in `$CK_RESTORE_HELPER_DIR` (mode `restore`) or
/// opens a session there and prints what it recovered (mode `recover`). Run as an ordinary
/// test it restores the fixture in a fresh directory and checks the result.
#[test]
fn helper_process() {
    match (std::env::var(DIR), std::env::var(MODE).as_deref()) {
        (Ok(dir), Ok("recover")) => {
            for r in open(Path::new(&dir)) {
                println!("RECOVERED {}", outcome_word(&r));
            }
        }
        (Ok(dir), _) => {
            let dir = tempfile::TempDir::new_in(dir).unwrap();
            let f = fixture_in(dir);
            let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
            apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap();
            assert_eq!(snapshot(f.dir.path()), f.after);
            // Leave the tree for the parent to inspect.
            let _ = f.dir.keep();
        }
        (Err(_), _) => {
            let f = fixture();
            let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
            apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap();
            assert_eq!(snapshot(f.dir.path()), f.after);
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

fn helper(dir: &Path, mode: &str, env: &[(&str, u64)]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "matrix::helper_process",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(DIR, dir)
    .env(MODE, mode)
    .env_remove("ASH_CRASH_RESTORE_AT")
    .env_remove("ASH_CRASH_RESTORE_RECOVERY_AT");
    for (k, v) in env {
        cmd.env(k, v.to_string());
    }
    cmd.output().unwrap()
}

fn killed(out: &Output) -> bool {
    out.status.signal() == Some(9)
}

/// The single workspace the helper made below `parent`.
fn only_child(parent: &Path) -> std::path::PathBuf {
    let mut dirs: Vec<_> = std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.pop().unwrap()
}

#[test]
fn every_crash_point_leaves_exactly_the_before_or_the_after_tree() {
    let reference = fixture();
    let (before, after) = (reference.before.clone(), reference.after.clone());
    let mut seen = (0, 0);
    let mut n = 1u64;
    loop {
        assert!(n < 500, "the restore never finished");
        for chained in [false, true] {
            let parent = tempfile::tempdir().unwrap();
            let out = helper(parent.path(), "restore", &[("ASH_CRASH_RESTORE_AT", n)]);
            if !killed(&out) {
                assert!(
                    out.status.success(),
                    "helper failed at n={n}: {}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                // Past the last cut point: the restore completed. It must have had many.
                assert!(n > 20, "only {} cut points were hit", n - 1);
                assert!(seen.0 > 0 && seen.1 > 0, "both outcomes occur: {seen:?}");
                return;
            }
            let ws = only_child(parent.path());
            let reported = if chained {
                let mut last = None;
                for round in 0.. {
                    assert!(round < 200, "recovery never finished at n={n}");
                    let out = helper(&ws, "recover", &[("ASH_CRASH_RESTORE_RECOVERY_AT", 1)]);
                    if !killed(&out) {
                        assert!(
                            out.status.success(),
                            "{}",
                            String::from_utf8_lossy(&out.stderr)
                        );
                        last = Some(String::from_utf8_lossy(&out.stdout).into_owned());
                        break;
                    }
                }
                let text = last.unwrap();
                let words: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.split_once("RECOVERED ").map(|(_, w)| w))
                    .collect();
                assert_eq!(words.len(), 1, "n={n}: {text}");
                words[0].to_owned()
            } else {
                let found = open(&ws);
                assert_eq!(found.len(), 1, "n={n}: {found:?}");
                outcome_word(&found[0])
            };
            let tree = snapshot(&ws);
            match reported.as_str() {
                "rolled-back" => {
                    assert_eq!(tree, before, "n={n} chained={chained}: not the before-tree");
                    seen.0 += 1;
                }
                "committed" => {
                    assert_eq!(tree, after, "n={n} chained={chained}: not the after-tree");
                    seen.1 += 1;
                }
                other => panic!("n={n} chained={chained}: recovery said {other}"),
            }
            assert_eq!(journal_left(&ws), Vec::<String>::new(), "n={n}");
            // Nothing is left to recover, and the session says nothing more.
            assert!(open(&ws).is_empty());
        }
        n += 1;
    }
}

#[test]
fn a_journal_that_cannot_be_trusted_is_reported_unresolved_and_left_alone() {
    let f = fixture();
    let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
    // A first restore makes `.ash`; then a damaged journal appears as if from a crash.
    apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap();
    let journal = f.dir.path().join(".ash/restore");
    std::fs::create_dir_all(journal.join("removed")).unwrap();
    std::fs::write(
        journal.join("MANIFEST"),
        b"{\"format\":\"x\"}\nnot a checksum\n",
    )
    .unwrap();
    let tree = snapshot(f.dir.path());
    let found = open(f.dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        matches!(&found[0].outcome, Outcome::Unresolved { reason } if reason.contains("checksum")),
        "{found:?}"
    );
    assert!(journal.join("MANIFEST").exists(), "left for inspection");
    assert_eq!(snapshot(f.dir.path()), tree);
    // A new restore refuses until it is resolved, changing nothing.
    let back = plan(&f.now, &f.target, &BTreeSet::new(), &f.source).unwrap();
    let err = apply(&f.ws, &back, &f.now, &f.target, OnConflict::Take, &f.source).unwrap_err();
    assert!(
        matches!(
            err,
            ash_engine::checkpoint::restore::RestoreError::Recovery(_)
        ),
        "{err:?}"
    );
    assert_eq!(snapshot(f.dir.path()), tree);
}

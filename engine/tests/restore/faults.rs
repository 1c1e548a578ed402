//! Refusals that change nothing and faults that lose nothing: a damaged store object, a
//! concurrent writer (before and during the apply), a read-only file system.

use crate::support::*;
use crate::{fixture, journal_left};
use ash_engine::checkpoint::Node;
use ash_engine::checkpoint::restore::{
    OnConflict, RestoreError, SourceError, apply, on_published, plan,
};
use std::collections::BTreeSet;
use std::process::Command;

#[test]
fn a_corrupt_object_refuses_the_restore_naming_the_path_and_changes_nothing() {
    let f = fixture();
    let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
    let gone = f
        .target
        .entries
        .iter()
        .find(|e| e.path == "gone.txt")
        .unwrap();
    let Ok(Node::File { digest, .. }) = &gone.state else {
        panic!("gone.txt is a file")
    };
    f.source.corrupt(digest);
    let err = apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap_err();
    assert_eq!(
        err,
        RestoreError::Object {
            path: "gone.txt".into(),
            error: SourceError::Corrupt(*digest)
        }
    );
    assert!(err.to_string().contains("gone.txt"), "{err}");
    assert_eq!(snapshot(f.dir.path()), f.before);
    assert_eq!(journal_left(f.dir.path()), Vec::<String>::new());
    // The plan finds it too, before the user is asked anything.
    let err = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap_err();
    assert!(
        matches!(err, RestoreError::Object { ref path, .. } if path == "gone.txt"),
        "{err}"
    );
}

#[test]
fn a_write_between_plan_and_apply_rolls_everything_back_and_keeps_the_write() {
    let f = fixture();
    let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
    write(f.dir.path(), "new.txt", b"written meanwhile\n", 0o644);
    let err = apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap_err();
    assert_eq!(
        err,
        RestoreError::Concurrent {
            path: "new.txt".into()
        }
    );
    let mut expected = f.before.clone();
    expected.insert(
        "new.txt".into(),
        Snap::File {
            bytes: b"written meanwhile\n".to_vec(),
            mode: 0o644,
        },
    );
    assert_eq!(snapshot(f.dir.path()), expected);
    assert_eq!(journal_left(f.dir.path()), Vec::<String>::new());
}

#[test]
fn a_writer_during_the_apply_is_found_per_path_and_nothing_is_lost() {
    // After the journal is published: one path the restore deletes is rewritten, and one the
    // restore recreates is created by someone else.
    for (path, bytes) in [
        ("moved/name.txt", &b"changed\n"[..]),
        ("gone.txt", &b"theirs\n"[..]),
    ] {
        let f = fixture();
        let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
        let root = f.dir.path().to_owned();
        on_published(move || write(&root, path, bytes, 0o644));
        let err = apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap_err();
        assert_eq!(err, RestoreError::Concurrent { path: path.into() });
        let mut expected = f.before.clone();
        expected.insert(
            path.into(),
            Snap::File {
                bytes: bytes.to_vec(),
                mode: 0o644,
            },
        );
        assert_eq!(snapshot(f.dir.path()), expected, "{path}");
        assert_eq!(journal_left(f.dir.path()), Vec::<String>::new());
    }
}

fn is_root() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let uid = status.lines().find_map(|l| l.strip_prefix("Uid:")).unwrap();
    uid.split_whitespace().nth(1) == Some("0")
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A tmpfs at `at`, unmounted on drop.
struct Tmpfs(std::path::PathBuf);

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
#[ignore = "needs root: mounts a tmpfs and remounts it read-only (cargo xtask test runs it as root)"]
fn a_read_only_file_system_is_refused_with_the_reason_before_anything_changes() {
    assert!(is_root(), "this test needs root: it mounts a tmpfs");
    let outer = tempfile::tempdir().unwrap();
    let mnt = outer.path().join("ws");
    std::fs::create_dir(&mnt).unwrap();
    run(Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m,mode=0755", "tmpfs"])
        .arg(&mnt));
    let _mounted = Tmpfs(mnt.clone());
    let source = MemSource::default();
    build_target(&mnt);
    let target = capture(&mnt, &source);
    turn(&mnt);
    let now = capture(&mnt, &source);
    let before = snapshot(&mnt);
    let ws = ash_engine::files::workspace::Workspace::new(&mnt).unwrap();
    let p = plan(&target, &now, &BTreeSet::new(), &source).unwrap();
    run(Command::new("mount").args(["-o", "remount,ro"]).arg(&mnt));
    let err = apply(&ws, &p, &target, &now, OnConflict::Take, &source).unwrap_err();
    let RestoreError::ReadOnly { reason } = &err else {
        panic!("expected ReadOnly, got {err:?}")
    };
    assert!(reason.contains("read-only"), "{reason}");
    assert!(err.to_string().contains("nothing was changed"), "{err}");
    assert_eq!(snapshot(&mnt), before);
    assert!(!mnt.join(".ash").exists());
}

#[test]
fn a_directory_swapped_for_a_symlink_during_the_apply_is_never_written_through() {
    let f = fixture();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "name.txt", b"renamed by the turn\n", 0o644);
    let p = plan(&f.target, &f.now, &BTreeSet::new(), &f.source).unwrap();
    let root = f.dir.path().to_owned();
    let target = outside.path().to_owned();
    on_published(move || {
        // `moved/name.txt` is what the restore deletes; the attacker points `moved` elsewhere.
        std::fs::rename(root.join("moved"), root.join("moved.real")).unwrap();
        std::os::unix::fs::symlink(&target, root.join("moved")).unwrap();
    });
    let err = apply(&f.ws, &p, &f.target, &f.now, OnConflict::Take, &f.source).unwrap_err();
    assert!(
        matches!(err, RestoreError::Io(_) | RestoreError::Concurrent { .. }),
        "{err:?}"
    );
    assert_eq!(
        std::fs::read(outside.path().join("name.txt")).unwrap(),
        b"renamed by the turn\n",
        "the file behind the link is untouched"
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
    // Everything else is as it was before the restore.
    let mut expected = f.before.clone();
    let moved: Vec<String> = expected
        .keys()
        .filter(|k| *k == "moved" || k.starts_with("moved/"))
        .cloned()
        .collect();
    for k in moved {
        let v = expected.remove(&k).unwrap();
        expected.insert(k.replacen("moved", "moved.real", 1), v);
    }
    expected.insert(
        "moved".into(),
        Snap::Link {
            target: outside.path().as_os_str().as_encoded_bytes().to_vec(),
        },
    );
    assert_eq!(snapshot(f.dir.path()), expected);
    assert_eq!(journal_left(f.dir.path()), Vec::<String>::new());
}

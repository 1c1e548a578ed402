//! A file or directory the user cannot read is recorded `Unreadable` with the reason, never
//! skipped. Permission bits do not stop root, so when the tests run as root this test runs
//! itself again in a child process that has dropped to the `nobody` user (65534) first.

use std::process::Command;

use ash_engine::checkpoint::{Node, Unrestorable};

use crate::support::{Fixture, entry, unrestorable};

const AS_NOBODY: &str = "ASH_CHECKPOINT_TEST_AS_NOBODY";
const NOBODY: u32 = 65534;

#[test]
fn unreadable_files_and_directories_are_reported() {
    let euid = nix::unistd::geteuid();
    if euid.is_root() {
        if std::env::var_os(AS_NOBODY).is_some() {
            drop_to_nobody();
            check_unreadable();
            return;
        }
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "unreadable::unreadable_files_and_directories_are_reported",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(AS_NOBODY, "1")
            // A temp dir the unprivileged child can create its tree in.
            .env("TMPDIR", "/tmp")
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
    check_unreadable();
}

/// Drops every privilege: no supplementary groups, group and user `nobody`.
fn drop_to_nobody() {
    use nix::unistd::{Gid, Uid, setgroups, setresgid, setresuid};
    setgroups(&[]).unwrap();
    setresgid(
        Gid::from_raw(NOBODY),
        Gid::from_raw(NOBODY),
        Gid::from_raw(NOBODY),
    )
    .unwrap();
    setresuid(
        Uid::from_raw(NOBODY),
        Uid::from_raw(NOBODY),
        Uid::from_raw(NOBODY),
    )
    .unwrap();
    assert_eq!(nix::unistd::geteuid().as_raw(), NOBODY);
}

fn check_unreadable() {
    let f = Fixture::new();
    f.write("open.txt", b"readable");
    f.write("locked.txt", b"secret");
    f.chmod("locked.txt", 0o000);
    f.write("closed/inner.txt", b"x");
    f.chmod("closed", 0o000);
    let (_store, captured) = f.capture();
    let m = &captured.manifest;
    assert!(matches!(entry(m, "open.txt").state, Ok(Node::File { .. })));
    match unrestorable(m, "locked.txt") {
        Unrestorable::Unreadable { reason } => {
            assert!(reason.contains("Permission denied"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(entry(m, "locked.txt").mode, 0);
    match unrestorable(m, "closed") {
        Unrestorable::Unreadable { reason } => {
            assert!(reason.contains("Permission denied"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    assert!(m.get("closed/inner.txt").is_none());
    assert_eq!(captured.stats.not_restorable, 2);
    // Let the temp dir be removed.
    f.chmod("closed", 0o700);
}

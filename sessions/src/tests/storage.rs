//! Storage failures: injected write and fsync errors, and a real full tmpfs.

use std::fs;
use std::path::PathBuf;

use super::*;
use crate::journal::FaultPlan;

#[test]
fn write_error_puts_the_session_into_storage_failed() {
    let (_t, dir) = session_dir();
    let mut s = open_or_create(&dir, 64 << 20).expect("open");
    submit(&mut s, "a", "first").expect("first");
    s.writer_mut().expect("writer").fault = FaultPlan {
        write_budget: Some(40),
        fail_fsync: false,
    };
    let err = submit(&mut s, "b", "second").expect_err("disk full");
    let SessionError::StorageFailed { cause } = &err else {
        panic!("{err}")
    };
    assert_eq!(
        cause,
        &format!(
            "write of journal part 000001 in {} failed: No space left on device (os error 28)",
            dir.display()
        )
    );
    assert!(s.storage_failure().is_some());
    // The known command is still in memory but not durable; snapshot data keeps working.
    assert!(s.state().turn(RequestId(2)).is_some());
    assert!(!s.is_durable(RequestId(2)));
    assert!(s.is_durable(RequestId(1)));
    // A result known in memory is kept (durable:false) even though it cannot be saved.
    assert!(matches!(
        s.finish(RequestId(2), "answer".into()),
        Err(SessionError::StorageFailed { .. })
    ));
    assert_eq!(
        s.state()
            .turn(RequestId(2))
            .and_then(|t| t.final_text.as_deref()),
        Some("answer")
    );
    assert!(!s.is_durable(RequestId(2)));
    assert!(matches!(
        submit(&mut s, "c", "third"),
        Err(SessionError::StorageFailed { .. })
    ));
    assert_eq!(
        s.transcript(TranscriptQuery {
            before: 0,
            limit: 64,
            forward: true
        })
        .total,
        3
    );
    drop(s);
    // The partial write is a torn tail; nothing unsynced is reported as accepted.
    let s = open_or_create(&dir, 64 << 20).expect("reopen");
    assert_eq!(s.recovery().torn_tail.as_ref().map(|t| t.len), Some(40));
    assert_eq!(s.state().turns().count(), 1);
}

#[test]
fn fsync_error_puts_the_session_into_storage_failed() {
    let (_t, dir) = session_dir();
    let mut s = open_or_create(&dir, 64 << 20).expect("open");
    s.writer_mut().expect("writer").fault = FaultPlan {
        write_budget: None,
        fail_fsync: true,
    };
    let err = submit(&mut s, "a", "first").expect_err("eio");
    assert!(
        err.to_string()
            .starts_with("storage_failed: fsync of journal part 000001"),
        "{err}"
    );
    assert!(
        matches!(s.sync(), Err(SessionError::StorageFailed { .. })),
        "no retry after a failed fsync"
    );
}

/// Unmounts the tmpfs when the test ends, even on panic.
struct Mount(PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
#[ignore = "needs root: mounts a 64 KiB tmpfs (cargo xtask test runs it as root)"]
fn a_real_full_tmpfs_gives_storage_failed() {
    let t = tempfile::tempdir().expect("tempdir");
    let mnt = t.path().join("mnt");
    fs::create_dir(&mnt).expect("mkdir");
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs"])
        .arg(&mnt)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        mounted,
        "this test mounts a real 64 KiB tmpfs, which needs CAP_SYS_ADMIN: run it as root \
         (sudo -E cargo xtask test)"
    );
    let _guard = Mount(mnt.clone());
    let dir = mnt.join("s");
    let mut s = open_or_create(&dir, 64 << 20).expect("open");
    let text = "x".repeat(4000);
    let mut failed = None;
    for i in 0..100 {
        if let Err(e) = submit(&mut s, &format!("c{i}"), &text) {
            failed = Some((i, e));
            break;
        }
    }
    let (n, err) = failed.expect("a 64 KiB tmpfs fills up");
    assert!(err.to_string().contains("No space left on device"), "{err}");
    assert!(s.storage_failure().is_some());
    drop(s);
    let s = open_or_create(&dir, 64 << 20).expect("reopen after disk full");
    assert!(s.read_only().is_none());
    assert_eq!(
        s.state().turns().count(),
        n,
        "every accepted command survived, none extra"
    );
}

//! File permissions and the single-opener lock.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use super::*;

#[test]
fn wrong_permissions_are_refused_with_the_fix() {
    let (_t, dir) = session_dir();
    with_turns(&dir, 1, 64 << 20);
    assert_eq!(
        fs::metadata(&dir).expect("m").permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(
        fs::metadata(part(&dir, 1)).expect("m").permissions().mode() & 0o777,
        0o600
    );
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).expect("chmod");
    let err = open_or_create(&dir, 64 << 20).expect_err("insecure dir");
    assert_eq!(
        err.to_string(),
        format!(
            "insecure permissions on {}: mode 0755, expected 0700; the journal may hold private \
             data, fix with `chmod 700 {}`",
            dir.display(),
            dir.display()
        )
    );
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).expect("chmod");
    let p1 = part(&dir, 1);
    fs::set_permissions(&p1, fs::Permissions::from_mode(0o644)).expect("chmod");
    let err = open_or_create(&dir, 64 << 20).expect_err("insecure part");
    assert_eq!(
        err.to_string(),
        format!(
            "insecure permissions on {}: mode 0644, expected 0600; the journal may hold private \
             data, fix with `chmod 600 {}`",
            p1.display(),
            p1.display()
        )
    );
}

#[test]
fn a_second_open_gets_session_busy() {
    let (_t, dir) = session_dir();
    let _s = open_or_create(&dir, 64 << 20).expect("open");
    let err = open_or_create(&dir, 64 << 20).expect_err("busy");
    assert_eq!(
        err.to_string(),
        format!(
            "session_busy: session {} is open in another process; close it there or start a new session",
            dir.display()
        )
    );
}

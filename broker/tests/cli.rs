//! The `ash-broker` command line refuses an incomplete configuration before it opens anything.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

fn broker(args: &[&str], stdin: &str) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ash-broker"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A broker that refuses its arguments exits before it reads stdin: a broken pipe here
    // is expected then.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_incomplete_configuration_is_refused_with_what_to_fix() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let socket = dir.path().join("b.sock");
    let lease = dir.path().join("b.lease");
    let me = std::process::id().to_string();
    let token = format!("{}\n", "ab".repeat(32));
    let base = |upstream: &'static str| {
        vec![
            "--socket".to_owned(),
            socket.display().to_string(),
            "--parent-pid".to_owned(),
            me.clone(),
            "--lease".to_owned(),
            lease.display().to_string(),
            "--upstream".to_owned(),
            upstream.to_owned(),
        ]
    };
    let run = |args: Vec<String>, stdin: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        broker(&args, stdin)
    };
    let (code, err) = run(base("http://api.example.test/v1"), &token);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("only https:// providers are brokered"),
        "{err}"
    );
    let (code, err) = run(base("https://api.example.test/v1"), "short\n");
    assert_eq!(code, Some(1));
    assert!(err.contains("no capability token on stdin"), "{err}");
    let mut gone = base("https://api.example.test/v1");
    gone[3] = u32::MAX.to_string();
    let (code, err) = run(gone, &token);
    assert_eq!(code, Some(1));
    assert!(err.contains("no such process"), "{err}");
    assert!(!socket.exists(), "nothing was left behind");
    let (code, err) = broker(&["--socket", "/tmp/x.sock"], "");
    assert_eq!(code, Some(2), "clap's usage error: {err}");
    assert!(err.contains("--parent-pid"), "{err}");
}

/// Runs a broker with `lease` until it exits (at most 10 s: a broker that starts is killed
/// and fails the test); its exit code and stderr.
fn broker_with_lease(dir: &std::path::Path, lease: &std::path::Path) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ash-broker"))
        .arg("--socket")
        .arg(dir.join("b.sock"))
        .args(["--parent-pid", &std::process::id().to_string()])
        .arg("--lease")
        .arg(lease)
        .args(["--upstream", "https://api.example.test/v1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = writeln!(child.stdin.take().unwrap(), "{}", "ab".repeat(32));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the broker started with the lease {}", lease.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_lease_planted_as_a_symlink_or_outside_a_private_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let precious = dir.path().join("precious");
    std::fs::write(&precious, "keep").unwrap();
    let lease = dir.path().join("b.lease");
    std::os::unix::fs::symlink(&precious, &lease).unwrap();
    let (code, err) = broker_with_lease(dir.path(), &lease);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("--lease") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep");
    assert!(
        !dir.path().join("b.sock").exists(),
        "nothing was bound: {err}"
    );
    let open = tempfile::tempdir().unwrap();
    std::fs::set_permissions(open.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, err) = broker_with_lease(dir.path(), &open.path().join("b.lease"));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("mode 755"), "{err}");
}

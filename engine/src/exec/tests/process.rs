//! Spawning, exit classification, deadline, cancellation, environment, cwd and stdin.

use super::{Fixture, args, process_gone, set, sh, text};
use crate::exec::ExecError;
use crate::protocol::{EnvChange, ErrorCode, ExitKind};
use crate::store::{Body, SpoolFile};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[test]
fn exit_codes_are_reported_with_kind_exited() {
    let f = Fixture::new();
    for (script, code) in [("exit 0", 0), ("exit 3", 3), ("exit 255", 255)] {
        let out = f.run(&sh(script));
        assert_eq!(
            (out.kind, out.code),
            (ExitKind::Exited, Some(code)),
            "{script}"
        );
        assert!(!out.incomplete);
    }
    // exit(-1) is truncated to 255 by the OS on Unix.
    let out = f.run(&args("perl", &["-e", "exit(-1)"]));
    assert_eq!((out.kind, out.code), (ExitKind::Exited, Some(255)));
    let out = f.run(&args("true", &[]));
    assert!(out.success());
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    assert_eq!(out.stdout.bytes(), Some(&b""[..]));
}

#[test]
fn death_by_signal_is_kind_signaled_with_the_signal_number() {
    let f = Fixture::new();
    let out = f.run(&sh("kill -9 $$"));
    assert_eq!((out.kind, out.code), (ExitKind::Signaled, Some(9)));
    let out = f.run(&sh("kill -TERM $$"));
    assert_eq!((out.kind, out.code), (ExitKind::Signaled, Some(15)));
}

#[test]
fn stdout_and_stderr_are_separate_and_argv_is_passed_verbatim() {
    let f = Fixture::new();
    let out = f.run(&args(
        "sh",
        &[
            "-c",
            "printf '%s|' \"$0\" \"$@\"; echo err >&2",
            "a b",
            "*",
            "",
            "$HOME",
        ],
    ));
    assert!(out.success());
    assert_eq!(text(&out.stdout), "a b|*||$HOME|");
    assert_eq!(text(&out.stderr), "err\n");
    let out = f.run(&sh("printf '\\377\\376ok'"));
    assert_eq!(
        out.stdout.bytes(),
        Some(&b"\xff\xfeok"[..]),
        "bytes kept as they are"
    );
}

/// Runs `script` (which must print a grandchild pid first) and returns the outcome, the
/// wall-clock time and that pid.
fn run_tree(
    f: &Fixture,
    script: &str,
    deadline_ms: u64,
) -> (crate::exec::ProcessOutcome, Duration, i32) {
    let start = Instant::now();
    let out = f.try_run(&sh(script), None, deadline_ms).expect("runs");
    let wall = start.elapsed();
    let pid = text(&out.stdout)
        .lines()
        .next()
        .and_then(|l| l.trim().parse().ok())
        .expect("the script prints a pid");
    (out, wall, pid)
}

#[test]
fn the_deadline_kills_the_whole_group_even_when_a_grandchild_holds_the_pipes() {
    let f = Fixture::new();
    let (out, wall, grandchild) = run_tree(&f, "sleep 30 & echo $!; sleep 30", 200);
    assert_eq!((out.kind, out.code), (ExitKind::TimedOut, None));
    assert!(
        wall < Duration::from_millis(1500),
        "returned after {wall:?}"
    );
    assert!(
        out.elapsed_ms >= 190 && out.elapsed_ms < 1500,
        "{}",
        out.elapsed_ms
    );
    assert!(!out.incomplete, "both pipes reached EOF");
    assert!(process_gone(grandchild), "grandchild {grandchild} survived");
}

#[test]
fn a_child_that_exits_while_a_grandchild_keeps_stdout_open_times_out_at_the_deadline() {
    let f = Fixture::new();
    let (out, wall, grandchild) = run_tree(&f, "sleep 30 & echo $!", 300);
    assert_eq!((out.kind, out.code), (ExitKind::TimedOut, None));
    assert!(
        wall < Duration::from_millis(1500),
        "returned after {wall:?}"
    );
    assert!(process_gone(grandchild));
}

#[test]
fn cancellation_from_another_thread_kills_the_tree_and_reports_kind_cancelled() {
    let f = Fixture::new();
    let token = f.cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        token.cancel()
    });
    let (out, wall, grandchild) = run_tree(&f, "sleep 30 & echo $!; sleep 30", 60_000);
    assert_eq!(canceller.join().ok(), Some(true));
    assert_eq!((out.kind, out.code), (ExitKind::Cancelled, None));
    assert!(wall < Duration::from_secs(2), "returned after {wall:?}");
    assert!(process_gone(grandchild));
}

#[test]
fn work_cancelled_or_out_of_time_before_spawn_never_starts() {
    let f = Fixture::new();
    let marker = f.root().join("ran");
    let script = format!("touch '{}'", marker.display());
    let out = f.try_run(&sh(&script), None, 0).expect("runs");
    assert_eq!(
        (out.kind, out.code, out.elapsed_ms),
        (ExitKind::TimedOut, None, 0)
    );
    f.cancel.cancel();
    let out = f.try_run(&sh(&script), None, 60_000).expect("runs");
    assert_eq!((out.kind, out.code), (ExitKind::Cancelled, None));
    assert!(!marker.exists());
}

#[test]
fn a_process_that_leaves_the_group_cannot_hold_the_request_forever() {
    let f = Fixture::new();
    // The escapee starts a new session, so the group kill misses it; it keeps stdout open.
    let script = "setsid sh -c 'echo $$; exec sleep 30' & sleep 30";
    let start = Instant::now();
    let out = f.try_run(&sh(script), None, 200).expect("runs");
    let wall = start.elapsed();
    assert_eq!(out.kind, ExitKind::TimedOut);
    assert!(out.incomplete, "the escapee's pipe was abandoned");
    assert!(wall < Duration::from_secs(5), "returned after {wall:?}");
    if let Ok(pid) = text(&out.stdout).trim().parse::<i32>() {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

#[test]
fn environment_changes_apply_to_the_inherited_or_an_empty_environment() {
    let f = Fixture::new();
    let mut a = args("env", &[]);
    a.env = vec![set("ASH_TEST_VALUE", "x=y z")];
    let out = f.run(&a);
    assert!(
        text(&out.stdout)
            .lines()
            .any(|l| l == "ASH_TEST_VALUE=x=y z")
    );
    assert!(
        text(&out.stdout).lines().count() > 1,
        "inherited variables stay"
    );

    let (inherited, _) = std::env::vars()
        .find(|(k, _)| k != "PATH" && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .expect("the test process has some environment");
    a.env = vec![EnvChange::Remove(inherited.clone())];
    let out = f.run(&a);
    let prefix = format!("{inherited}=");
    assert!(!text(&out.stdout).lines().any(|l| l.starts_with(&prefix)));

    // A cleared environment without PATH still finds bare names through our own PATH.
    a.clear_env = true;
    a.env = vec![set("ONLY", "1")];
    let out = f.run(&a);
    assert_eq!(text(&out.stdout), "ONLY=1\n");
    a.env = vec![];
    assert_eq!(text(&f.run(&a).stdout), "");

    // A PATH given to the child is the one searched.
    a.env = vec![set("PATH", "/usr/bin:/bin")];
    assert_eq!(text(&f.run(&a).stdout), "PATH=/usr/bin:/bin\n");
    a.env = vec![set("PATH", "/nonexistent-ash-dir")];
    let err = f.try_run(&a, None, 60_000).expect_err("not on that PATH");
    assert_eq!(err.code(), ErrorCode::PathNotFound);
}

#[test]
fn the_working_directory_is_a_logical_directory() {
    let f = Fixture::new();
    f.file("sub/deeper/file.txt", b"x", 0o644);
    let mut a = args("pwd", &["-P"]);
    a.cwd = "sub/deeper".to_owned();
    let out = f.run(&a);
    let expected = f.root().join("sub/deeper");
    assert_eq!(text(&out.stdout).trim_end(), expected.to_string_lossy());

    a.cwd = "missing".to_owned();
    let err = f.try_run(&a, None, 60_000).expect_err("no such directory");
    assert!(matches!(err, ExecError::CwdNotFound { .. }), "{err:?}");
    assert_eq!(err.code(), ErrorCode::PathNotFound);
    // A file where the directory should be is a filesystem error (500), as in the reference.
    a.cwd = "sub/deeper/file.txt".to_owned();
    let err = f.try_run(&a, None, 60_000).expect_err("not a directory");
    assert!(matches!(err, ExecError::CwdNotADirectory { .. }), "{err:?}");
    assert_eq!(err.code(), ErrorCode::Filesystem);
    a.cwd = "../escape".to_owned();
    let err = f.try_run(&a, None, 60_000).expect_err("invalid");
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
}

#[test]
fn workspace_programs_and_spawn_failures_are_classified() {
    let f = Fixture::new();
    f.file("bin/hello", b"#!/bin/sh\necho hello \"$0\" \"$1\"\n", 0o755);
    f.file("bin/plain", b"#!/bin/sh\necho no\n", 0o644);
    f.file("bin/garbage", b"\x00\x01\x02\x03 not a program", 0o755);
    f.file("bin/dir/x", b"", 0o644);

    let mut a = args("bin/hello", &["arg"]);
    a.cwd = "bin".to_owned();
    assert_eq!(
        text(&f.run(&a).stdout),
        format!("hello {} arg\n", f.root().join("bin/hello").display())
    );

    for (program, code) in [
        ("no-such-program-ash-test", ErrorCode::PathNotFound),
        ("bin/missing", ErrorCode::PathNotFound),
        ("bin/plain", ErrorCode::SpawnFailed),
        ("bin/garbage", ErrorCode::SpawnFailed),
        ("bin/dir", ErrorCode::SpawnFailed),
    ] {
        let err = f
            .try_run(&args(program, &[]), None, 60_000)
            .expect_err(program);
        assert_eq!(err.code(), code, "{program}: {err}");
    }
    // A bare name found only as a non-executable file is a permission failure, as with execvp.
    let mut a = args("plain", &[]);
    a.env = vec![set("PATH", &f.root().join("bin").to_string_lossy())];
    let err = f.try_run(&a, None, 60_000).expect_err("not executable");
    assert!(matches!(
        err,
        ExecError::Spawn {
            kind: std::io::ErrorKind::PermissionDenied,
            ..
        }
    ));
}

#[test]
fn stdin_comes_from_inline_text_or_a_retained_body() {
    let f = Fixture::new();
    let inline = Body::Memory(b"line one\nline two\n".as_slice().into());
    let out = f
        .try_run(&args("cat", &[]), Some(&inline), 60_000)
        .expect("runs");
    assert_eq!(text(&out.stdout), "line one\nline two\n");

    let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 253) as u8).collect();
    let path = f.spool_base.path().join("stdin-body");
    std::fs::write(&path, &data).expect("write");
    let spooled = Body::Spool(Arc::new(SpoolFile::adopt(path, data.len() as u64)));
    let out = f
        .try_run(&args("cat", &[]), Some(&spooled), 60_000)
        .expect("runs");
    assert!(out.success());
    assert_eq!(out.stdout.len, data.len() as u64);
    assert_eq!(out.stdout.digest(), Some(blake3::hash(&data)));

    // A child that never reads its stdin neither blocks nor fails the feed.
    let big = Body::Memory(vec![b'x'; 8 << 20].into());
    let out = f
        .try_run(&args("true", &[]), Some(&big), 60_000)
        .expect("runs");
    assert!(out.success());
    // Without input, stdin is the null device.
    assert_eq!(text(&f.run(&args("cat", &[])).stdout), "");
}

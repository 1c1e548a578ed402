//! The supervisor ends the whole tree: the command's group and descendants that left it
//! (`setsid`, with their stdio closed, so nothing holds the pipes), on deadline, on cancel,
//! when the command exits, and when the engine itself dies.

use super::*;
use std::process::{Command, Stdio};

/// Starts a daemonised `sleep` (own session, no stdio) that writes its pid to `daemon.pid`,
/// waits until it has, then runs `rest`.
fn with_daemon(rest: &str) -> String {
    format!(
        "setsid sh -c 'echo $$ > daemon.pid; exec sleep 30' </dev/null >/dev/null 2>&1 & \
         while [ ! -s daemon.pid ]; do sleep 0.01; done; {rest}"
    )
}

fn script(id: u64, script: &str, ms: u64) -> String {
    exec(
        id,
        "sh",
        &format!("[-c,{}]", quote(script)),
        "[]",
        "~",
        0,
        4096,
        ms,
    )
}

#[test]
fn a_deadline_ends_a_daemonised_descendant_that_a_direct_spawn_leaves_running() {
    let request = script(1, &with_daemon("echo ready; sleep 30"), 700);
    // Direct: the daemon escapes the group kill.
    let mut direct = Harness::new();
    let (r, _) = direct.ask(&request);
    assert_ended(&r, 6, Some(402), ExitKind::TimedOut, None);
    let escaped = pid_file(&direct.dir.path().join("daemon.pid"));
    assert!(!gone(escaped), "without a supervisor the daemon survives");
    let _ = kill(Pid::from_raw(escaped), nix::sys::signal::Signal::SIGKILL);
    // Supervised: it is ended and reaped before the answer.
    let mut h = Harness::new();
    let ev = Evidences::new();
    let ((r, _), took) =
        timed(|| ask_supervised(&mut h, &ev, "e.json", &request, CancelToken::new()));
    assert_ended(&r, 6, Some(402), ExitKind::TimedOut, None);
    assert_eq!(data(&r).stdout.as_deref(), Some("ready\n"));
    assert!(took < Duration::from_secs(3), "{took:?}");
    let daemon = pid_file(&h.dir.path().join("daemon.pid"));
    assert!(gone(daemon), "the daemon {daemon} is gone");
    let evidence = ev.read("e.json");
    assert_eq!(evidence.termination, Termination::KilledOnRequest);
    assert!(evidence.descendants_reaped >= 1, "{evidence:?}");
    assert!(gone(evidence.pid.map_or(0, |p| p as i32)));
}

#[test]
fn cancellation_ends_the_tree_and_says_so() {
    let mut h = Harness::new();
    let ev = Evidences::new();
    let cancel = CancelToken::new();
    let remote = cancel.clone();
    let pid_path = h.dir.path().join("daemon.pid");
    let canceller = std::thread::spawn(move || {
        pid_file(&pid_path);
        remote.cancel()
    });
    let request = script(1, &with_daemon("sleep 30"), 30_000);
    let ((r, _), took) = timed(|| ask_supervised(&mut h, &ev, "e.json", &request, cancel));
    assert!(canceller.join().expect("canceller"));
    assert_ended(&r, 7, Some(403), ExitKind::Cancelled, None);
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(gone(pid_file(&h.dir.path().join("daemon.pid"))));
    assert_eq!(ev.read("e.json").termination, Termination::KilledOnRequest);
}

#[test]
fn a_command_that_exits_takes_its_leftover_daemon_with_it() {
    let mut h = Harness::new();
    let ev = Evidences::new();
    let request = script(1, &with_daemon("echo done"), 30_000);
    let (r, _) = ask_supervised(&mut h, &ev, "e.json", &request, CancelToken::new());
    assert_ended(&r, 0, None, ExitKind::Exited, Some(0));
    assert!(gone(pid_file(&h.dir.path().join("daemon.pid"))));
    let evidence = ev.read("e.json");
    assert_eq!(evidence.termination, Termination::Exited { code: 0 });
    assert!(evidence.descendants_reaped >= 1, "{evidence:?}");
}

/// Runs the supervisor from a throwaway `sh` (its parent), in `dir`.
fn supervisor_under_sh(dir: &Path, evidence: &Path, parent: &str, command: &str) -> Command {
    let mut sh = Command::new("sh");
    sh.current_dir(dir)
        .arg("-c")
        .arg(format!(
            "\"$0\" __ash-supervise --evidence \"$1\" --parent {parent} -- /bin/sh sh -c \"$2\" & wait"
        ))
        .arg(ash())
        .arg(evidence)
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    sh
}

#[test]
fn when_the_engine_dies_the_tree_is_ended_and_the_evidence_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ev = Evidences::new();
    let command = with_daemon("echo $$ > command.pid; sleep 30");
    let mut parent = supervisor_under_sh(dir.path(), &ev.path("e.json"), "$$", &command)
        .spawn()
        .expect("sh");
    let daemon = pid_file(&dir.path().join("daemon.pid"));
    let command_pid = pid_file(&dir.path().join("command.pid"));
    parent.kill().expect("SIGKILL the parent");
    parent.wait().expect("reap the parent");
    let until = Instant::now() + Duration::from_secs(5);
    let evidence = loop {
        if let Some(e) = read_evidence(&ev.path("e.json")).expect("readable") {
            break e;
        }
        assert!(Instant::now() < until, "no evidence after the parent died");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(evidence.termination, Termination::KilledRuntimeGone);
    assert_eq!(evidence.pid, u32::try_from(command_pid).ok());
    assert!(gone(command_pid), "the command is gone");
    assert!(gone(daemon), "the daemon is gone");
}

#[test]
fn a_parent_that_is_already_gone_means_nothing_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ev = Evidences::new();
    // Parent pid 1 is not the sh that starts the supervisor: as if the engine had died first.
    let status = supervisor_under_sh(dir.path(), &ev.path("e.json"), "1", "touch ran")
        .status()
        .expect("sh");
    assert!(status.success());
    let evidence = ev.read("e.json");
    assert_eq!(evidence.termination, Termination::KilledRuntimeGone);
    assert_eq!(evidence.pid, None);
    assert!(!dir.path().join("ran").exists());
}

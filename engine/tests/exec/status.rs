//! Statuses and codes: exit codes, signals, deadlines, cancellation, spawn failures.

use super::*;

#[test]
fn exit_zero_is_success_with_the_output_inline() {
    let mut h = Harness::new();
    let (r, text) = h.ask(&sh(1, "echo hello"));
    assert_ended(&r, 0, None, ExitKind::Exited, Some(0));
    let d = data(&r);
    assert_eq!(d.stdout.as_deref(), Some("hello\n"));
    assert_eq!(d.stderr, None, "an empty stream is ~");
    assert_eq!((d.stdout_ref, d.stderr_ref), (None, None));
    assert!(text.ends_with("z:0\nr:~\n"), "{text}");
}

#[test]
fn nonzero_exit_is_401_with_data() {
    let mut h = Harness::new();
    let (r, _) = h.ask(&sh(2, "echo out; echo bad >&2; exit 3"));
    assert_ended(&r, 5, Some(401), ExitKind::Exited, Some(3));
    let e = r.error.as_ref().expect("error");
    assert_eq!((e.retry.as_u8(), e.stage.as_u8()), (0, 4));
    assert_eq!(data(&r).stdout.as_deref(), Some("out\n"));
    assert_eq!(data(&r).stderr.as_deref(), Some("bad\n"));
}

#[test]
fn a_signal_is_kind_1_with_the_signal_number() {
    let mut h = Harness::new();
    let (r, _) = h.ask(&sh(3, "kill -9 $$"));
    assert_ended(&r, 5, Some(401), ExitKind::Signaled, Some(9));
}

#[test]
fn a_deadline_kills_the_grandchild_holding_the_pipes() {
    let mut h = Harness::new();
    let script = "sleep 30 & echo $! > grandchild.pid; sleep 30";
    let request = exec(
        4,
        "sh",
        &format!("[-c,{}]", quote(script)),
        "[]",
        "~",
        0,
        4096,
        300,
    );
    let ((r, _), took) = timed(|| h.ask(&request));
    assert!(
        took < Duration::from_secs(10),
        "the answer must not wait for the sleepers: {took:?}"
    );
    assert_ended(&r, 6, Some(402), ExitKind::TimedOut, None);
    let e = r.error.as_ref().expect("error");
    assert_eq!((e.retry.as_u8(), e.stage.as_u8()), (2, 4));
    let pid: i32 = std::fs::read_to_string(h.dir.path().join("grandchild.pid"))
        .expect("pid file")
        .trim()
        .parse()
        .expect("pid");
    assert!(gone(pid), "grandchild {pid} survived the deadline");
}

#[test]
fn cancellation_from_another_thread_is_403_and_the_tree_is_gone() {
    let mut h = Harness::new();
    let token = CancelToken::new();
    let remote = token.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        remote.cancel()
    });
    let script = "sleep 30 & echo $! > grandchild.pid; sleep 30";
    let ((r, _), took) = timed(|| h.ask_with(&sh(5, script), token));
    assert!(
        canceller.join().expect("canceller"),
        "the cancel flipped the token"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_ended(&r, 7, Some(403), ExitKind::Cancelled, None);
    let pid: i32 = std::fs::read_to_string(h.dir.path().join("grandchild.pid"))
        .expect("pid file")
        .trim()
        .parse()
        .expect("pid");
    assert!(gone(pid), "grandchild {pid} survived cancellation");
}

#[test]
fn spawn_failures_are_201_for_missing_and_400_otherwise() {
    let mut h = Harness::new();
    std::fs::create_dir(h.dir.path().join("sub")).expect("mkdir");
    std::fs::write(h.dir.path().join("sub/plain.txt"), "not a program\n").expect("write");
    let missing_binary = exec(6, "no-such-binary-ansa", "[]", "[]", "~", 0, 4096, 30_000);
    let missing_path = exec(7, "bin/missing", "[]", "[]", "~", 0, 4096, 30_000);
    let missing_cwd =
        "t:1\ni:8\no:x\na{x,v,c,e,in,f}:\nsh,[],nowhere,[],~,0\nu{tok,rec,ms}:\n64,8,30000\n";
    let not_executable = exec(9, "sub/plain.txt", "[]", "[]", "~", 0, 4096, 30_000);
    for (request, status, code) in [
        (missing_binary.as_str(), 4, 201),
        (missing_path.as_str(), 4, 201),
        (missing_cwd, 4, 201),
        (not_executable.as_str(), 5, 400),
    ] {
        let (r, _) = h.ask(request);
        assert_eq!(r.status.as_u8(), status, "{request}");
        assert_eq!(
            r.error.as_ref().map(|e| e.code.as_u16()),
            Some(code),
            "{request}"
        );
        assert!(r.data.is_none(), "no process, no data: {request}");
    }
}

/// Whether `pid` no longer runs (gone, or a zombie nobody reaped yet).
fn gone(pid: i32) -> bool {
    for _ in 0..200 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat)
                if stat
                    .split(") ")
                    .nth(1)
                    .is_some_and(|rest| rest.starts_with('Z')) =>
            {
                return true;
            }
            Ok(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    false
}

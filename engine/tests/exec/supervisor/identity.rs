//! A supervised exec answers exactly like a direct one: codes, signals, streams, retained
//! output, stdin, environment and spawn failures; and its evidence says the same.

use super::*;

/// Requests whose answers must not depend on the supervisor.
fn requests() -> Vec<String> {
    let script = |id, s: &str| sh(id, s);
    vec![
        script(1, "echo hello"),
        script(2, "echo out; echo bad >&2; exit 3"),
        script(3, "echo before; kill -TERM $$"),
        script(4, "kill -SEGV $$"),
        // The command starts with the signal state a direct child has (glibc's internal
        // signals 32 and 33 aside, whose disposition depends on how std spawned it).
        script(
            5,
            "grep -E '^(SigBlk|NoNewPrivs)' /proc/self/status; \
             ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status); \
             echo \"ignored 1-31: $(( 0x$ign & 0x7fffffff ))\"",
        ),
        // Large enough to be retained and shown projected.
        script(6, "seq 1 20000; seq 1 300 >&2; exit 1"),
        exec(7, "cat", "[]", "[]", "\"piped\\n\"", 0, 4096, 30_000),
        exec(
            8,
            "sh",
            &format!(
                "[-c,{}]",
                quote("echo \"$A|$HOME|$0\"; env | grep -v ^PWD= | sort")
            ),
            "[\"A=1 2\",-HOME]",
            "~",
            1,
            4096,
            30_000,
        ),
        exec(9, "no-such-binary-ansa", "[]", "[]", "~", 0, 4096, 30_000),
        exec(10, "sub/plain.txt", "[]", "[]", "~", 0, 4096, 30_000),
        "t:1\ni:11\no:x\na{x,v,c,e,in,f}:\nsh,[],nowhere,[],~,0\nu{tok,rec,ms}:\n64,8,30000\n"
            .to_owned(),
    ]
}

fn workspace(h: &Harness) {
    std::fs::create_dir(h.dir.path().join("sub")).expect("mkdir");
    std::fs::write(h.dir.path().join("sub/plain.txt"), "not a program\n").expect("write");
}

#[test]
fn supervised_answers_are_byte_identical_to_direct_ones() {
    let (mut direct, mut supervised) = (Harness::new(), Harness::new());
    workspace(&direct);
    workspace(&supervised);
    let ev = Evidences::new();
    for (n, request) in requests().iter().enumerate() {
        let (plain, _) = direct.ask(request);
        let name = format!("{n}.json");
        let (watched, _) = ask_supervised(&mut supervised, &ev, &name, request, CancelToken::new());
        assert_eq!(without_ms(&watched), without_ms(&plain), "{request}");
    }
}

#[test]
fn evidence_records_the_exit_code_or_the_signal() {
    let mut h = Harness::new();
    let ev = Evidences::new();
    let cases = [
        (sh(1, "exit 3"), Termination::Exited { code: 3 }),
        (sh(2, "true"), Termination::Exited { code: 0 }),
        (sh(3, "kill -TERM $$"), Termination::Signaled { signal: 15 }),
    ];
    for (n, (request, termination)) in cases.iter().enumerate() {
        let name = format!("{n}.json");
        let (r, _) = ask_supervised(&mut h, &ev, &name, request, CancelToken::new());
        let evidence = ev.read(&name);
        assert_eq!(evidence.termination, *termination, "{evidence:?}");
        assert_eq!(evidence.argv[0], "sh");
        assert!(evidence.program.ends_with("/sh"), "{evidence:?}");
        assert_eq!(evidence.descendants_reaped, 0);
        assert!(evidence.pid.is_some());
        assert!(data(&r).ms >= evidence.elapsed_ms, "{evidence:?}");
    }
}

#[test]
fn a_command_that_cannot_start_leaves_no_evidence() {
    let mut h = Harness::new();
    let ev = Evidences::new();
    let request = exec(1, "no-such-binary-ansa", "[]", "[]", "~", 0, 4096, 30_000);
    let (r, _) = ask_supervised(&mut h, &ev, "e.json", &request, CancelToken::new());
    assert_eq!(r.error.as_ref().map(|e| e.code.as_u16()), Some(201));
    assert!(read_evidence(&ev.path("e.json")).expect("read").is_none());
    assert_eq!(std::fs::read_dir(ev.dir.path()).expect("list").count(), 0);
}

#[test]
fn hardened_supervised_children_have_no_new_privs_and_no_inheritable_caps() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = SessionConfig {
        output_ceiling: u64::MAX,
        hardening: ash_engine::exec::ExecHardening::strict(),
        ..SessionConfig::run()
    };
    let session = common::open_session(dir.path(), config, 2);
    let mut h = Harness { dir, session };
    let ev = Evidences::new();
    let request = sh(1, "grep -E '^(NoNewPrivs|CapInh|CapAmb)' /proc/self/status");
    let (r, _) = ask_supervised(&mut h, &ev, "e.json", &request, CancelToken::new());
    assert_eq!(
        data(&r).stdout.as_deref(),
        Some("CapInh:\t0000000000000000\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\n")
    );
}

#[test]
fn a_program_that_is_no_supervisor_is_an_internal_error_not_a_hang() {
    let mut h = Harness::new();
    let request = common::request(&sh(1, "echo never"));
    let supervision = Supervision {
        program: PathBuf::from("/bin/true"),
        evidence: h.dir.path().join("e.json"),
    };
    let ((r, _), took) = timed(|| {
        h.session
            .execute_supervised(&request, CancelToken::new(), Some(supervision))
    });
    assert_eq!(
        r.error.as_ref().map(|e| e.code.as_u16()),
        Some(900),
        "{r:?}"
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn an_unwritable_evidence_location_runs_nothing() {
    let mut h = Harness::new();
    let request = common::request(&sh(1, "touch ran"));
    let supervision = Supervision {
        program: ash(),
        evidence: h.dir.path().join("no/such/dir/e.json"),
    };
    let (r, _) = h
        .session
        .execute_supervised(&request, CancelToken::new(), Some(supervision));
    assert_eq!(
        r.error.as_ref().map(|e| e.code.as_u16()),
        Some(900),
        "{r:?}"
    );
    assert!(!h.dir.path().join("ran").exists());
}

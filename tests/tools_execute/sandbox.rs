//! The executor's side of the OS sandbox: where a command runs, who may let it out, and that a
//! permit for a sandboxed run never stands for an unsandboxed one.

use super::{Harness, policy};
use ansa::config::AccessMode;
use ansa::tools::{ToolExecError, ToolPolicy};
use ash_engine::cancel::CancelToken;
use ash_engine::exec::sandbox::{SandboxMode, SandboxPolicy};
use ash_engine::session::approval::PermitError;

fn sandboxed(access_mode: AccessMode) -> ToolPolicy {
    ToolPolicy {
        access_mode,
        sandbox: SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            writable: Vec::new(),
            network: false,
        },
        ..policy()
    }
}

fn touch(path: &str, outside: Option<bool>) -> String {
    let outside = outside.map_or("null".to_owned(), |b| b.to_string());
    format!(
        r#"{{"program":"touch","args":["{path}"],"cwd":".","env":[],"stdin":null,"timeout_ms":null,"outside_sandbox":{outside}}}"#
    )
}

#[test]
fn ask_mode_runs_a_sandboxed_command_without_asking() {
    let mut h = Harness::with(sandboxed(AccessMode::Ask), &[]);
    let args = h.args("exec", &touch("made", None));
    let ready = h.tools.prepare(&args).unwrap();
    assert!(
        h.tools.approval(&ready).is_none(),
        "no question for a sandboxed command"
    );
    let out = h
        .tools
        .run(&args, ready, &CancelToken::new(), None)
        .unwrap();
    assert!(out.answer.unwrap().contains("s:0"), "it ran");
    assert!(h.dir.path().join("made").exists());
}

#[test]
fn an_escalation_is_always_asked_and_says_it_runs_outside() {
    let mut h = Harness::with(sandboxed(AccessMode::Ask), &[]);
    let args = h.args("exec", &touch("made", Some(true)));
    let mut ready = h.tools.prepare(&args).unwrap();
    let approval = h.tools.approval(&ready).expect("an escalation is asked");
    assert!(approval.shown.outside_sandbox);
    assert_eq!(approval.summary, "OUTSIDE the sandbox: run touch made");
    let request = approval.request(
        ansa_sessions::RequestId(1),
        ansa_sessions::CallId("c".into()),
        "exec",
    );
    assert!(request.outside_sandbox);
    h.tools.grant(&mut ready, &approval).unwrap();
    let out = h
        .tools
        .run(&args, ready, &CancelToken::new(), None)
        .unwrap();
    assert!(out.answer.unwrap().contains("s:0"));
}

#[test]
fn a_permit_for_a_sandboxed_run_never_signs_an_unsandboxed_one() {
    let mut h = Harness::with(sandboxed(AccessMode::Ask), &[]);
    let inside = h.args("exec", &touch("made", None));
    let outside = h.args("exec", &touch("made", Some(true)));
    let sandboxed = h.tools.prepare(&inside).unwrap();
    let mut escalated = h.tools.prepare(&outside).unwrap();
    let inside_digest = h.tools.bound_digest(&sandboxed).unwrap();
    let outside_digest = h.tools.bound_digest(&escalated).unwrap();
    assert_ne!(
        inside_digest, outside_digest,
        "the sandbox is part of the digest"
    );
    // The user's decision, relabelled as the sandboxed run's, signs nothing for the escalation.
    let mut approval = h.tools.approval(&escalated).unwrap();
    assert_eq!(approval.digest, outside_digest);
    approval.digest = inside_digest;
    let err = h.tools.grant(&mut escalated, &approval).unwrap_err();
    assert_eq!(
        err,
        ToolExecError::Permit {
            tool: "exec",
            source: PermitError::Mismatch
        }
    );
    let out = h
        .tools
        .run(&outside, escalated, &CancelToken::new(), None)
        .unwrap();
    assert!(
        out.answer.unwrap().contains("\n301,"),
        "without a permit the engine refuses it"
    );
    assert!(!h.dir.path().join("made").exists());
}

#[test]
fn full_access_refuses_an_escalation_before_anything_runs() {
    let mut h = Harness::with(sandboxed(AccessMode::FullAccess), &[]);
    let err = h.call("exec", &touch("made", Some(true))).unwrap_err();
    assert_eq!(
        err,
        ToolExecError::OutsideSandboxRefused {
            mode: SandboxMode::WorkspaceWrite
        }
    );
    assert!(err.to_string().contains("Nothing was executed"), "{err}");
    assert!(!h.dir.path().join("made").exists());
    // Inside the sandbox the same command runs.
    h.call("exec", &touch("made", Some(false))).unwrap();
    assert!(h.dir.path().join("made").exists());
}

#[test]
fn without_a_sandbox_the_argument_changes_nothing() {
    let mut h = Harness::with(policy(), &[]);
    h.call("exec", &touch("made", Some(true))).unwrap();
    assert!(h.dir.path().join("made").exists());
    assert_eq!(h.tools.sandbox_description(), None);
}

#[test]
fn a_writable_root_that_disappeared_refuses_the_command() {
    let gone = tempfile::tempdir().unwrap();
    let root = gone.path().to_path_buf();
    let mut p = sandboxed(AccessMode::FullAccess);
    p.sandbox.writable = vec![root.clone()];
    let mut h = Harness::with(p, &[]);
    drop(gone);
    let err = h.call("exec", &touch("made", None)).unwrap_err();
    assert!(
        matches!(err, ToolExecError::SandboxUnavailable { .. }),
        "{err}"
    );
    let text = err.to_string();
    assert!(text.contains(&root.display().to_string()), "{text}");
    assert!(text.contains("--sandbox off"), "{text}");
    assert!(!h.dir.path().join("made").exists());
}

#[test]
fn a_denied_write_comes_back_with_its_output_and_the_sandbox_line() {
    // Not under /tmp or $TMPDIR, which the sandbox lets commands write.
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let target = outside.path().join("x");
    let mut h = Harness::with(sandboxed(AccessMode::FullAccess), &[]);
    let out = h
        .output(
            "exec",
            &format!(
                r#"{{"program":"sh","args":["-c","echo before; echo x > {}"],"cwd":".","env":[],"stdin":null,"timeout_ms":null,"outside_sandbox":null}}"#,
                target.display()
            ),
        )
        .unwrap();
    assert!(!target.exists());
    assert!(out.text.contains("before"), "{}", out.text);
    assert!(
        out.text.contains("d{k,c,ms,o,e,ro,re}:\nexited,2,"),
        "the exit status stays: {}",
        out.text
    );
    assert!(
        out.text
            .contains("\nsandbox: the OS sandbox denied a write to"),
        "{}",
        out.text
    );
    assert!(
        out.report.summary.contains("denied by the sandbox"),
        "{:?}",
        out.report
    );
}

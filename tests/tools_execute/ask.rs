//! Ask mode from the agent's side: the engine's approval policy refuses every change without a
//! permit, and a permit the harness signs runs exactly the approved action, once, in the
//! process that signed it.

use super::{Harness, policy};
use ansa::config::AccessMode;
use ansa::tools::{ToolExecError, ToolPolicy};
use ash_engine::cancel::CancelToken;
use ash_engine::session::approval::PermitError;

fn ask() -> ToolPolicy {
    ToolPolicy {
        access_mode: AccessMode::Ask,
        ..policy()
    }
}

fn touch(path: &str) -> String {
    format!(
        r#"{{"program":"touch","args":["{path}"],"cwd":".","env":[],"stdin":null,"timeout_ms":null, "outside_sandbox": null}}"#
    )
}

#[test]
fn without_a_permit_nothing_changes_and_reads_need_none() {
    let mut h = Harness::with(ask(), &[("a.txt", "one\n")]);
    let err = h.call("exec", &touch("made")).unwrap_err();
    assert_eq!(err, ToolExecError::NeedsApproval { tool: "exec" });
    let err = h
        .call(
            "edit",
            r#"{"files":[{"path":"a.txt","edits":[{"old":"one\n","new":"two\n"}]}]}"#,
        )
        .unwrap_err();
    assert_eq!(err, ToolExecError::NeedsApproval { tool: "edit" });
    assert!(!h.dir.path().join("made").exists());
    assert_eq!(h.file("a.txt"), "one\n");
    let read = h.ok(
        "read",
        r#"{"paths":["a.txt"],"mode":"lines","offset":1,"length":5}"#,
    );
    assert!(read.contains("one"), "{read}");
}

#[test]
fn an_approved_action_runs_once_and_its_approval_cannot_be_used_again() {
    let mut h = Harness::with(ask(), &[]);
    let args = h.args("exec", &touch("made"));
    let mut ready = h.tools.prepare(&args).unwrap();
    let approval = h.tools.approval(&ready).expect("exec needs approval");
    assert_eq!(approval.shown.argv, ["touch", "made"]);
    assert_eq!(approval.summary, "run touch made");
    h.tools.grant(&mut ready, &approval).unwrap();
    let out = h
        .tools
        .run(&args, ready, &CancelToken::new(), None)
        .unwrap();
    assert!(out.answer.unwrap().contains("s:0"), "the command ran");
    assert!(h.dir.path().join("made").exists());

    // The same approval again (a replayed decision) signs nothing.
    let mut again = h.tools.prepare(&args).unwrap();
    let err = h.tools.grant(&mut again, &approval).unwrap_err();
    assert_eq!(
        err,
        ToolExecError::Permit {
            tool: "exec",
            source: PermitError::Replayed
        }
    );
}

#[test]
fn a_permit_for_one_argv_does_not_run_another() {
    let mut h = Harness::with(ask(), &[]);
    let approved = h.args("exec", &touch("approved"));
    let other = h.args("exec", &touch("other"));
    let shown = h.tools.prepare(&approved).unwrap();
    let approval = h.tools.approval(&shown).unwrap();
    let mut swapped = h.tools.prepare(&other).unwrap();
    // The harness refuses to sign a decision for another action (the engine would refuse the
    // permit too: engine/tests/session_api/approval.rs).
    let err = h.tools.grant(&mut swapped, &approval).unwrap_err();
    assert_eq!(
        err,
        ToolExecError::Permit {
            tool: "exec",
            source: PermitError::Mismatch
        }
    );
    let out = h
        .tools
        .run(&other, swapped, &CancelToken::new(), None)
        .unwrap();
    let answer = out.answer.unwrap();
    assert!(answer.contains("301"), "unsigned, it is refused: {answer}");
    assert!(!h.dir.path().join("other").exists());
    assert!(!h.dir.path().join("approved").exists());
}

#[test]
fn a_challenge_does_not_survive_a_restart() {
    let mut first = Harness::with(ask(), &[]);
    let args = first.args("exec", &touch("made"));
    let ready = first.tools.prepare(&args).unwrap();
    let approval = first.tools.approval(&ready).unwrap();
    // A new process: a new harness with a new key, on the same workspace.
    let mut second = Harness::with(ask(), &[]);
    let mut again = second.tools.prepare(&args).unwrap();
    let err = second.tools.grant(&mut again, &approval).unwrap_err();
    assert_eq!(
        err,
        ToolExecError::Permit {
            tool: "exec",
            source: PermitError::NotPending
        }
    );
    let fresh = second.tools.approval(&again).unwrap();
    assert_eq!(fresh.digest, approval.digest, "the same action");
    assert_ne!(
        fresh.challenge.nonce, approval.challenge.nonce,
        "a new challenge"
    );
    assert!(!second.dir.path().join("made").exists());
}

#[test]
fn an_edit_is_bound_to_the_file_it_was_shown_against() {
    let mut h = Harness::with(ask(), &[("a.txt", "one\n")]);
    let args = h.args(
        "edit",
        r#"{"files":[{"path":"a.txt","edits":[{"old":"one\n","new":"two\n"}]}]}"#,
    );
    let mut ready = h.tools.prepare(&args).unwrap();
    let approval = h.tools.approval(&ready).unwrap();
    assert_eq!(approval.summary, "edit a.txt (+1 −1)");
    // The file changes while the user looks at the diff.
    std::fs::write(h.dir.path().join("a.txt"), "one\nmore\n").unwrap();
    h.tools.grant(&mut ready, &approval).unwrap();
    let out = h
        .tools
        .run(&args, ready, &CancelToken::new(), None)
        .unwrap();
    assert!(
        out.answer.unwrap().contains("501"),
        "a stale edit conflicts"
    );
    assert_eq!(h.file("a.txt"), "one\nmore\n");
}

/// What the user is shown comes from the very request the digest covers: the whole argv
/// (the tail behind 300 spaces included), the cwd, every environment value and the stdin are
/// shown, and they are in the action text whose digest the permit is bound to.
#[test]
fn what_is_shown_is_the_action_the_digest_covers() {
    let mut h = Harness::with(ask(), &[]);
    let padded = format!("echo hi{}; touch PWNED_TAIL", " ".repeat(300));
    let call = serde_json::json!({"program": "sh", "args": ["-c", padded], "cwd": ".",
        "env": ["TOKEN=abc  def"], "stdin": "line one\nline two\n", "timeout_ms": null, "outside_sandbox": null});
    let args = h.args("exec", &call.to_string());
    let ready = h.tools.prepare(&args).unwrap();
    let approval = h.tools.approval(&ready).unwrap();
    let shown = &approval.shown;
    assert_eq!(shown.argv, ["sh", "-c", padded.as_str()]);
    assert_eq!(shown.cwd.as_deref(), Some("."));
    assert_eq!(shown.env[0].value.as_deref(), Some("abc  def"));
    assert_eq!(shown.stdin.as_deref(), Some("line one\nline two\n"));
    assert!(
        approval.action.contains("PWNED_TAIL"),
        "{}",
        approval.action
    );
    assert!(approval.action.contains("abc  def"), "{}", approval.action);
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"ash-approval-action-v1\0");
    hasher.update(approval.action.as_bytes());
    assert_eq!(hasher.finalize().to_hex().as_str(), approval.digest);
    let request = approval.request(
        ansa_sessions::RequestId(1),
        ansa_sessions::CallId("c1".into()),
        "exec",
    );
    assert_eq!(request.argv, shown.argv);
    assert_eq!(request.stdin, shown.stdin);
    assert_eq!(request.env, shown.env);
}

//! The bounded wait for supervisor evidence: a supervisor whose runtime was killed writes its
//! evidence just after the new process starts looking, and that evidence must still be found.

use super::{decide, evidence_path, open_intents, wait_for};
use crate::tools::ToolRegistry;
use ansa_sessions::protocol::ToolPhase;
use ansa_sessions::{
    AcceptedAction, CallId, CommandId, JournalOptions, Mode, OpaqueJson, OpenIntent, Profile,
    Record, RequestId, Seq, Session, ToolIntent, ToolOutcomeStatus, TurnState, TurnStateChange,
};
use ash_engine::exec::supervisor::{EVIDENCE_VERSION, Evidence, Termination};
use std::path::Path;
use std::process::{Child, Command};

fn evidence(code: i32) -> Evidence {
    Evidence {
        version: EVIDENCE_VERSION,
        termination: Termination::Exited { code },
        elapsed_ms: 42,
        program: "/bin/sh".into(),
        argv: vec!["sh".into(), "-c".into(), format!("exit {code}")],
        pid: Some(4242),
        supervisor_pid: 4241,
        descendants_reaped: 0,
        finished_unix_ms: 1_767_225_600_000,
    }
}

/// A real process that renames complete evidence into place after a short delay, the way a
/// supervisor commits its evidence (a temp file beside the target, then one rename).
fn late_writer(target: &Path, evidence: &Evidence) -> Child {
    let staged = target.with_extension("staged");
    let bytes = serde_json::to_vec(evidence).expect("evidence encodes");
    std::fs::write(&staged, bytes).expect("write staged evidence");
    Command::new("sh")
        .arg("-c")
        .arg("sleep 0.05 && mv \"$1\" \"$2\"")
        .arg("sh")
        .arg(&staged)
        .arg(target)
        .spawn()
        .expect("spawn the late writer")
}

#[test]
fn evidence_written_after_the_first_look_is_waited_for() {
    let dir = tempfile::tempdir().expect("temp dir");
    let target = dir.path().join("r1-0000000000000000.json");
    let mut writer = late_writer(&target, &evidence(3));
    let found = wait_for(&target);
    assert!(writer.wait().expect("wait writer").success());
    assert_eq!(found, Ok(Some(evidence(3))));
}

#[test]
fn an_exec_intent_whose_evidence_arrives_late_is_reconciled_from_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let intent = OpenIntent {
        request_id: RequestId(7),
        call_id: CallId("call-late".into()),
        tool: "exec".into(),
        seq: Seq(3),
    };
    let target = evidence_path(dir.path(), intent.request_id, &intent.call_id);
    let mut writer = late_writer(&target, &evidence(5));
    let (status, text) = decide(&intent, false, dir.path());
    assert!(writer.wait().expect("wait writer").success());
    assert_eq!(status, ToolOutcomeStatus::Ok, "{text}");
    assert!(text.contains("exit code 5 after 42 ms"), "{text}");
}

#[test]
fn evidence_that_never_comes_leaves_the_effect_unknown() {
    let dir = tempfile::tempdir().expect("temp dir");
    let target = dir.path().join("r1-0000000000000000.json");
    assert_eq!(wait_for(&target), Ok(None));
}

#[test]
fn unreadable_evidence_is_an_error_not_absence() {
    let dir = tempfile::tempdir().expect("temp dir");
    let target = dir.path().join("r1-0000000000000000.json");
    std::fs::create_dir(&target).expect("a directory where the file goes");
    let err = wait_for(&target).expect_err("a directory is not evidence");
    assert!(err.contains("cannot read exec evidence"), "{err}");
}

fn reopened_with_an_open_exec_intent(dir: &Path) -> Session {
    let open = || {
        Session::open_or_create_at(
            dir,
            None,
            Path::new("/"),
            Profile::Offline,
            JournalOptions::default(),
        )
        .expect("open session")
    };
    {
        let mut s = open();
        let submit = AcceptedAction::Submit {
            text: "run it".into(),
            mode: Mode::Basic,
            mentions: Vec::new(),
        };
        s.accept(CommandId::new("c1").expect("id"), submit)
            .expect("submit");
        s.append(Record::TurnState(TurnStateChange {
            request_id: RequestId(1),
            state: TurnState::Running,
            reason: None,
        }))
        .expect("running");
        s.append(Record::ToolIntent(ToolIntent {
            request_id: RequestId(1),
            call_id: CallId("call_1".into()),
            tool: "exec".into(),
            arguments: OpaqueJson::from_text(r#"{"program":"true","args":[]}"#).expect("json"),
            implementation_revision: "1".into(),
            target: None,
        }))
        .expect("intent");
        s.sync().expect("sync");
    }
    open()
}

/// An exec that finished by itself is reported finished, and the recorded outcome is durable
/// before anything else happens (a second crash must not lose it).
#[test]
fn an_outcome_recovered_from_evidence_is_finished_and_synced() {
    let t = tempfile::tempdir().expect("temp dir");
    let evidence_dir = t.path().join("evidence");
    std::fs::create_dir(&evidence_dir).expect("evidence dir");
    let mut session = reopened_with_an_open_exec_intent(&t.path().join("session"));
    let target = evidence_path(&evidence_dir, RequestId(1), &CallId("call_1".into()));
    let bytes = serde_json::to_vec(&evidence(0)).expect("evidence encodes");
    std::fs::write(&target, bytes).expect("write evidence");
    let registry = ToolRegistry::offline().expect("registry");
    let done = open_intents(&mut session, &registry, &evidence_dir, &[]).expect("reconcile");
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].phase, ToolPhase::Finished);
    assert_eq!(
        session.durable_seq(),
        session.appended_seq(),
        "the reconciled outcome is on disk"
    );
}

/// Without evidence an exec's effect is unknown, and frontends are told so (not "failed").
#[test]
fn an_exec_without_evidence_is_reported_as_an_unknown_effect() {
    let t = tempfile::tempdir().expect("temp dir");
    let evidence_dir = t.path().join("evidence");
    std::fs::create_dir(&evidence_dir).expect("evidence dir");
    let mut session = reopened_with_an_open_exec_intent(&t.path().join("session"));
    let registry = ToolRegistry::offline().expect("registry");
    let done = open_intents(&mut session, &registry, &evidence_dir, &[]).expect("reconcile");
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].phase, ToolPhase::EffectUnknown);
}

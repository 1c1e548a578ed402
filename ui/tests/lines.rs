//! Line mode against a scripted runtime stand-in.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod support;

use std::io::Cursor;

use ansa_sessions::protocol::{CommandBody, ErrorCode, EventBody, ToolPhase};
use ansa_sessions::transcript::{Role, TranscriptEntry, TranscriptPage};
use ansa_sessions::{Mode, RequestId, TurnState};
use ansa_ui::{LinesOutcome, ToRuntime, UiError, run_lines};
use support::{ClosedPipe, INCARNATION, Runtime, SESSION_ID, spawn, submit_text};

fn run(
    input: &[u8],
    script: impl FnOnce(&mut Runtime) + Send + 'static,
) -> (String, String, LinesOutcome, Vec<ToRuntime>) {
    let (link, runtime) = spawn(script);
    let mut out = Vec::new();
    let mut status = Vec::new();
    let outcome = run_lines(
        link,
        Cursor::new(input.to_vec()),
        &mut out,
        &mut status,
        Mode::Basic,
        Some(SESSION_ID.to_owned()),
    )
    .unwrap();
    let log = runtime.join().unwrap();
    (
        String::from_utf8(out).unwrap(),
        String::from_utf8(status).unwrap(),
        outcome,
        log,
    )
}

#[test]
fn two_tasks_are_answered_in_order_with_progress_lines() {
    let (out, status, outcome, log) = run(b"first task\n\n  \nsecond task\r\n", |rt| {
        rt.snapshot(3);
        for request in [4, 5] {
            let c = rt.command();
            assert_eq!(c.turn, request - 1, "latest known turn");
            rt.accept(&c, request);
            rt.tool(request, "read", ToolPhase::Started);
            rt.tool(request, "read", ToolPhase::Finished);
            rt.tool(request, "exec", ToolPhase::Started);
            rt.tool(request, "exec", ToolPhase::Failed);
            rt.tool(99, "other-turn", ToolPhase::Started);
            rt.answer(request, &format!("answer {request}"));
        }
        rt.input_closed();
    });
    assert_eq!(out, "answer 4\n\nanswer 5\n");
    let expected = "  · read started\n  ✓ read\n  · exec started\n  ✗ exec failed\n";
    assert_eq!(status, expected.repeat(2));
    assert_eq!(
        outcome,
        LinesOutcome {
            tasks: 2,
            unfinished: 0,
            last: outcome.last.clone(),
        }
    );
    assert_eq!(outcome.last.as_ref().unwrap().state, TurnState::Done);
    assert_eq!(outcome.exit_code(), 0);

    let commands: Vec<_> = log
        .iter()
        .filter_map(|m| match m {
            ToRuntime::Command(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(submit_text(commands[0]), "first task");
    assert_eq!(submit_text(commands[1]), "second task");
    assert!(matches!(
        commands[0].body,
        CommandBody::Submit {
            mode: Mode::Basic,
            ..
        }
    ));
    // IDs are unique across restarts of the session: they carry the incarnation.
    assert_eq!(
        commands[0].command_id.as_str(),
        format!("line-{INCARNATION}-1")
    );
    assert_eq!(
        commands[1].command_id.as_str(),
        format!("line-{INCARNATION}-2")
    );
    assert_eq!(log.last(), Some(&ToRuntime::InputClosed));
}

#[test]
fn paused_turn_says_how_to_continue_and_stops_reading() {
    let (out, status, outcome, log) = run(b"fix it\nthen this\n", |rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 1);
        rt.tool(1, "exec", ToolPhase::EffectUnknown);
        rt.end(1, TurnState::Paused, "the provider is unreachable");
        rt.input_closed();
    });
    assert_eq!(out, "");
    assert!(status.contains("  ? exec: effect unknown"), "{status}");
    assert!(
        status.contains("ansa: task paused: the provider is unreachable."),
        "{status}"
    );
    assert!(
        status.contains(&format!("ansa --offline --session {SESSION_ID}")),
        "{status}"
    );
    assert!(status.contains("later lines were not run"), "{status}");
    assert_eq!(outcome.tasks, 1);
    assert_eq!(outcome.last.as_ref().unwrap().state, TurnState::Paused);
    assert_eq!(
        outcome.last.as_ref().unwrap().reason.as_deref(),
        Some("the provider is unreachable")
    );
    assert_eq!(outcome.exit_code(), 1);
    assert_eq!(log.len(), 2, "the second line is never submitted: {log:?}");
}

#[test]
fn failed_task_is_reported_and_the_next_one_still_runs() {
    let (out, status, outcome, _) = run(b"one\ntwo\n", |rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 1);
        rt.end(1, TurnState::Failed, "tool limit reached");
        let c = rt.command();
        rt.accept(&c, 2);
        rt.answer(2, "two done\n");
        rt.input_closed();
    });
    assert_eq!(out, "two done\n");
    assert!(
        status.contains("ansa: task failed: tool limit reached"),
        "{status}"
    );
    assert_eq!(outcome.unfinished, 1);
    assert_eq!(outcome.last.as_ref().unwrap().state, TurnState::Done);
    assert_eq!(outcome.exit_code(), 1, "an earlier task failed");
}

#[test]
fn unusable_session_refuses_the_submit_and_stops() {
    let (out, status, outcome, log) = run(b"one\ntwo\n", |rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.error(&c, ErrorCode::ReadOnly, "read_only: the journal is damaged");
        rt.input_closed();
    });
    assert_eq!(out, "");
    assert!(
        status.contains("ansa: the task was not accepted: read_only: the journal is damaged"),
        "{status}"
    );
    let last = outcome.last.as_ref().unwrap();
    assert_eq!(last.error, Some(ErrorCode::ReadOnly));
    assert_eq!(last.request_id, None);
    assert_eq!(outcome.exit_code(), 5);
    assert_eq!(log.len(), 2, "{log:?}");
}

#[test]
fn overlong_and_non_utf8_lines_are_skipped_with_a_message() {
    let mut input = vec![b'x'; 1_048_577];
    input.extend_from_slice(b"\nbad \xff\ngood\n");
    let (out, status, outcome, log) = run(&input, |rt| {
        rt.snapshot(0);
        let c = rt.command();
        assert_eq!(submit_text(&c), "good");
        rt.accept(&c, 1);
        rt.answer(1, "fine");
        rt.input_closed();
    });
    assert_eq!(out, "fine\n");
    assert!(
        status.contains("ansa: input line 1: the task is 1048577 bytes long"),
        "{status}"
    );
    assert!(
        status.contains("ansa: input line 2: line is not valid UTF-8"),
        "{status}"
    );
    assert_eq!(outcome.tasks, 1);
    assert_eq!(outcome.unfinished, 2);
    assert_eq!(outcome.exit_code(), 1);
    assert_eq!(log.len(), 2);
}

#[test]
fn lost_events_are_recovered_with_a_snapshot_and_the_transcript() {
    let (out, status, outcome, _) = run(b"task\n", |rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 1);
        // The answer and `done` were dropped from the stream.
        rt.emit(EventBody::ResyncRequired {
            reason: "event queue overflowed".into(),
        });
        let snap = rt.command();
        assert!(
            matches!(snap.body, CommandBody::Snapshot { after_sequence: 4 }),
            "{snap:?}"
        );
        let mut body = support::snapshot_body(1);
        if let EventBody::Snapshot(s) = &mut body {
            s.request_id = Some(RequestId(1));
            s.state = Some(TurnState::Done);
        }
        rt.emit(body);
        let page = rt.command();
        let CommandBody::Transcript(query) = page.body else {
            panic!("{page:?}")
        };
        let entry = |index, role, text: &str| TranscriptEntry {
            index,
            request_id: RequestId(1),
            role,
            text: text.into(),
            truncated: false,
            rewound: false,
        };
        rt.emit(EventBody::Transcript(TranscriptPage {
            begin: 1,
            end: 3,
            total: 2,
            entries: vec![
                entry(1, Role::User, "task"),
                entry(2, Role::Assistant, "recovered"),
            ],
            query,
        }));
        rt.input_closed();
    });
    assert_eq!(out, "recovered\n");
    assert!(
        status.contains("ansa: events were lost: event queue overflowed"),
        "{status}"
    );
    assert_eq!(outcome.exit_code(), 0);
}

#[test]
fn a_sequence_gap_also_triggers_a_snapshot() {
    let (out, _, outcome, _) = run(b"task\n", |rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 1);
        rt.lose_event();
        rt.tool(1, "read", ToolPhase::Started);
        let snap = rt.command();
        assert!(
            matches!(snap.body, CommandBody::Snapshot { .. }),
            "{snap:?}"
        );
        let mut body = support::snapshot_body(1);
        if let EventBody::Snapshot(s) = &mut body {
            s.request_id = Some(RequestId(1));
            s.state = Some(TurnState::Cancelled);
        }
        rt.emit(body);
        rt.input_closed();
    });
    assert_eq!(out, "");
    assert_eq!(outcome.last.unwrap().state, TurnState::Cancelled);
}

#[test]
fn closed_output_pipe_stops_quietly() {
    let (link, runtime) = spawn(|rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 1);
        rt.answer(1, "one");
        rt.input_closed();
    });
    let mut out = ClosedPipe {
        ok_writes: 0,
        written: Vec::new(),
    };
    let outcome = run_lines(
        link,
        Cursor::new(b"one\ntwo\n".to_vec()),
        &mut out,
        Vec::new(),
        Mode::Plan,
        None,
    )
    .unwrap();
    assert_eq!(outcome.tasks, 1);
    let log = runtime.join().unwrap();
    assert!(matches!(&log[0], ToRuntime::Command(c)
        if matches!(c.body, CommandBody::Submit { mode: Mode::Plan, .. })));
    assert_eq!(log.len(), 2);
}

#[test]
fn runtime_stopping_mid_turn_is_an_error() {
    let (link, runtime) = spawn(|rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 7);
    });
    let err = run_lines(
        link,
        Cursor::new(b"task\n".to_vec()),
        Vec::new(),
        Vec::new(),
        Mode::Basic,
        None,
    );
    assert!(
        matches!(&err, Err(UiError::RuntimeStopped { when }) if when.contains("turn 7")),
        "{err:?}"
    );
    runtime.join().unwrap();
}

#[test]
fn a_lost_acceptance_is_recovered_from_the_snapshot() {
    let (out, _, outcome, _) = run(b"task\n", |rt| {
        rt.snapshot(0);
        let _submit = rt.command();
        rt.lose_event(); // command_accepted for request 1
        rt.tool(1, "read", ToolPhase::Started);
        let snap = rt.command();
        assert!(
            matches!(snap.body, CommandBody::Snapshot { .. }),
            "{snap:?}"
        );
        let mut body = support::snapshot_body(1);
        if let EventBody::Snapshot(s) = &mut body {
            s.request_id = Some(RequestId(1));
            s.state = Some(TurnState::Running);
        }
        rt.emit(body);
        rt.answer(1, "still answered");
        rt.input_closed();
    });
    assert_eq!(out, "still answered\n");
    assert_eq!(outcome.last.unwrap().request_id, Some(RequestId(1)));
}

#[test]
fn an_approval_is_answered_from_the_next_input_line() {
    use ansa_sessions::protocol::ApprovalRequest;
    use ansa_sessions::{ApprovalDecision, CallId};
    let (out, status, _, log) = run(b"clean the build\nmaybe\nn keep the cache\n", |rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 1);
        rt.emit(EventBody::ApprovalRequired(Box::new(ApprovalRequest {
            request_id: RequestId(1),
            call_id: CallId("c1".into()),
            tool: "exec".into(),
            action: "v:1\no:x".into(),
            digest: "ef".repeat(32),
            summary: "run rm -rf target".into(),
            argv: vec!["rm".into(), "-rf".into(), "target".into()],
            cwd: None,
            diffs: Vec::new(),
            actions: Vec::new(),
            env: Vec::new(),
            stdin: None,
            created: Vec::new(),
            withheld: None,
            outside_sandbox: false,
        })));
        let approve = rt.command();
        let CommandBody::Approve {
            target,
            call,
            decision,
            reason,
        } = approve.body
        else {
            panic!("not an approve: {approve:?}");
        };
        assert_eq!(
            (target, call.0.as_str(), decision, reason.as_deref()),
            (
                RequestId(1),
                "c1",
                ApprovalDecision::Deny,
                Some("keep the cache")
            )
        );
        rt.answer(1, "left the cache alone");
        rt.input_closed();
    });
    assert_eq!(out, "left the cache alone\n");
    assert!(
        status.contains("ansa: approve? run rm -rf target"),
        "{status}"
    );
    assert!(status.contains("answer y, a or n"), "{status}");
    assert!(log.iter().any(|m| matches!(m, ToRuntime::InputClosed)));
}

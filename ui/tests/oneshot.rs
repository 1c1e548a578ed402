//! One-shot mode against a scripted runtime stand-in.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod support;

use ansa_sessions::protocol::{CommandBody, ErrorCode, EventBody, ToolPhase};
use ansa_sessions::{Mode, RequestId, TurnState};
use ansa_ui::{OneShotOutcome, ToRuntime, UiError, run_one_shot};
use support::{ClosedPipe, INCARNATION, Runtime, spawn, submit_text};

fn run(
    script: impl FnOnce(&mut Runtime) + Send + 'static,
) -> (String, String, OneShotOutcome, Vec<ToRuntime>) {
    let (link, runtime) = spawn(script);
    let mut out = Vec::new();
    let mut status = Vec::new();
    let outcome = run_one_shot(
        link,
        "Explain the build",
        Mode::Plan,
        &mut out,
        &mut status,
        None,
        None,
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
fn done_prints_only_the_answer_and_input_closes_right_after_acceptance() {
    let (out, status, outcome, log) = run(|rt| {
        rt.snapshot(2);
        let c = rt.command();
        assert_eq!(submit_text(&c), "Explain the build");
        assert!(matches!(
            c.body,
            CommandBody::Submit {
                mode: Mode::Plan,
                ..
            }
        ));
        assert_eq!(c.turn, 2);
        assert_eq!(c.command_id.as_str(), format!("oneshot-{INCARNATION}-1"));
        rt.accept(&c, 3);
        // Input closes before the turn produces anything else.
        rt.input_closed();
        rt.tool(3, "read", ToolPhase::Started);
        rt.tool(3, "read", ToolPhase::Finished);
        rt.emit(EventBody::Error {
            command_id: None,
            code: ErrorCode::ProviderError,
            message: "provider retried after 429".into(),
        });
        rt.answer(3, "The build uses cargo.");
    });
    assert_eq!(out, "The build uses cargo.\n");
    assert_eq!(
        status,
        "  · read started\n  ✓ read\nansa: provider retried after 429\n"
    );
    assert_eq!(
        outcome,
        OneShotOutcome {
            state: TurnState::Done,
            reason: None,
            request_id: Some(RequestId(3)),
            error: None,
        }
    );
    assert_eq!(outcome.exit_code(), 0);
    assert_eq!(log.len(), 2);
}

#[test]
fn an_answer_ending_with_a_newline_gets_no_second_one() {
    let (out, status, _, _) = run(|rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 1);
        rt.input_closed();
        rt.answer(1, "line one\nline two\n");
    });
    assert_eq!(out, "line one\nline two\n");
    assert_eq!(status, "");
}

#[test]
fn failed_cancelled_and_paused_turns_exit_1_with_nothing_on_stdout() {
    for (state, reason, expect) in [
        (
            TurnState::Failed,
            "model error",
            "ansa: task failed: model error.",
        ),
        (
            TurnState::Cancelled,
            "cancelled by the user",
            "ansa: task cancelled: cancelled by the user",
        ),
        (
            TurnState::Paused,
            "network error",
            "ansa: task paused: network error.",
        ),
    ] {
        let (out, status, outcome, _) = run(move |rt| {
            rt.snapshot(0);
            let c = rt.command();
            rt.accept(&c, 1);
            rt.input_closed();
            rt.end(1, state, reason);
        });
        assert_eq!(out, "", "{state:?}");
        assert!(status.contains(expect), "{status}");
        assert_eq!(outcome.state, state);
        assert_eq!(outcome.reason.as_deref(), Some(reason));
        assert_eq!(outcome.exit_code(), 1, "{state:?}");
        if state == TurnState::Paused {
            assert!(status.contains("ansa --offline --continue"), "{status}");
        }
    }
}

#[test]
fn error_answering_the_submit_ends_the_run_with_a_clear_message() {
    let (out, status, outcome, log) = run(|rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.error(
            &c,
            ErrorCode::StorageFailed,
            "storage_failed: write of journal part 000001 failed: No space left on device",
        );
        rt.input_closed();
    });
    assert_eq!(out, "");
    assert_eq!(
        status,
        "ansa: the task was not accepted: storage_failed: write of journal part 000001 failed: \
         No space left on device\n"
    );
    assert_eq!(outcome.error, Some(ErrorCode::StorageFailed));
    assert_eq!(outcome.request_id, None);
    assert_eq!(outcome.exit_code(), 5);
    assert_eq!(log.len(), 2);

    let (_, _, outcome, _) = run(|rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.error(&c, ErrorCode::QueueFull, "queue_full: try again");
        rt.input_closed();
    });
    assert_eq!(outcome.exit_code(), 1);
}

#[test]
fn done_without_a_confirmed_answer_is_not_success() {
    let (out, status, outcome, _) = run(|rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 1);
        rt.input_closed();
        rt.emit(EventBody::Done {
            request_id: RequestId(1),
            durable: true,
        });
    });
    assert_eq!(out, "");
    assert!(status.contains("did not reach this terminal"), "{status}");
    assert_eq!(outcome.exit_code(), 1);
}

#[test]
fn closed_stdout_is_not_an_error() {
    let (link, runtime) = spawn(|rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 1);
        rt.input_closed();
        rt.answer(1, "answer");
    });
    let mut out = ClosedPipe {
        ok_writes: 0,
        written: Vec::new(),
    };
    let outcome =
        run_one_shot(link, "task", Mode::Basic, &mut out, Vec::new(), None, None).unwrap();
    assert_eq!(outcome.exit_code(), 0);
    runtime.join().unwrap();
}

#[test]
fn runtime_stopping_early_is_an_error() {
    let (link, runtime) = spawn(|rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 1);
        rt.input_closed();
    });
    let err = run_one_shot(
        link,
        "task",
        Mode::Basic,
        Vec::new(),
        Vec::new(),
        None,
        None,
    );
    assert!(
        matches!(&err, Err(UiError::RuntimeStopped { when }) if when.contains("turn 1")),
        "{err:?}"
    );
    runtime.join().unwrap();

    let (link, runtime) = spawn(|_| {});
    let err = run_one_shot(
        link,
        "task",
        Mode::Basic,
        Vec::new(),
        Vec::new(),
        None,
        None,
    );
    assert!(
        matches!(err, Err(UiError::RuntimeStopped { .. })),
        "{err:?}"
    );
    runtime.join().unwrap();
}

//! Orchestrate mode's children in the TUI: nested rows under the `delegate` call, a child's
//! transcript in the viewer (Ctrl+O, ←/→), and a child's approval labelled with it and
//! answered with a `child` command.

use std::time::Instant;

use ansa_sessions::child::{ChildId, ChildProfile, ChildState};
use ansa_sessions::protocol::{
    ApprovalRequest, ChildEvent, ChildStatus, CommandBody, EventBody, ToolPhase,
};
use ansa_sessions::{ApprovalDecision, CallId, Mode, RequestId};
use crossterm::event::KeyCode;
use ratatui::text::Line;

use super::super::children::Children;
use super::super::theme::Theme;
use super::super::view;
use super::Harness;

fn id(index: u32) -> ChildId {
    ChildId::new(format!("r1-abcdef12-{index}")).unwrap()
}

fn status(request: RequestId, index: u32, state: ChildState, task: &str) -> ChildStatus {
    ChildStatus {
        request_id: request,
        call_id: CallId("call-0-0".into()),
        child: id(index),
        index,
        task: task.into(),
        profile: ChildProfile::Full,
        state,
        tools: index,
        elapsed_ms: 1500,
        reason: None,
    }
}

fn text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

fn child(index: u32, event: EventBody) -> EventBody {
    EventBody::Child(ChildEvent {
        child: id(index),
        event: Box::new(event),
    })
}

fn asked(summary: &str) -> ApprovalRequest {
    ApprovalRequest {
        request_id: RequestId(1),
        call_id: CallId("call-0-0".into()),
        tool: "exec".into(),
        action: "v:1\no:x".into(),
        digest: "cd".repeat(32),
        summary: summary.into(),
        argv: vec!["make".into()],
        cwd: None,
        diffs: Vec::new(),
        actions: Vec::new(),
        env: Vec::new(),
        stdin: None,
        created: Vec::new(),
        withheld: None,
        outside_sandbox: false,
    }
}

/// The live region's text, one string per row.
fn live(h: &Harness) -> Vec<String> {
    view::live(&h.app).lines.iter().map(text).collect()
}

#[test]
fn rows_are_in_index_order_updated_in_place_sanitised_and_fit_the_width() {
    let now = Instant::now();
    let r = RequestId(1);
    let mut c = Children::default();
    c.update(status(r, 2, ChildState::Running, "second"), now);
    c.update(
        status(r, 1, ChildState::Queued, "first\x1b[31m task\nwith lines"),
        now,
    );
    c.update(status(r, 2, ChildState::Done, "second"), now);
    let lines = c.lines(now, 60, Theme::from_env(true, None));
    assert_eq!(lines.len(), 2);
    let first = text(&lines[0]);
    assert!(first.starts_with("  ├ 1 queued 1 tool 1.5s "), "{first}");
    assert!(
        !first.contains('\x1b') && !first.contains('\n'),
        "{first:?}"
    );
    assert!(text(&lines[1]).starts_with("  └ 2 done 2 tools 1.5s second"));
    let long = "a very long task ".repeat(20);
    c.update(status(r, 3, ChildState::Running, &long), now);
    for width in [8u16, 20, 60, 120] {
        for line in c.lines(now, width, Theme::from_env(true, None)) {
            let shown = text(&line);
            assert!(
                super::super::wrap::display_width(&shown) <= usize::from(width),
                "{width}: {shown}"
            );
        }
    }
    // A running child's time goes on between its status events; a finished one's does not.
    let later = now + std::time::Duration::from_secs(3);
    let lines = c.lines(later, 120, Theme::from_env(true, None));
    assert!(text(&lines[2]).contains(" 4.5s "), "{}", text(&lines[2]));
    assert!(text(&lines[1]).contains(" 1.5s "), "{}", text(&lines[1]));
}

#[test]
fn children_are_nested_rows_under_the_delegate_call_until_it_ends() {
    let mut h = Harness::opened(80, 24, true, vec![]);
    h.app.mode = Mode::Orchestrate;
    let r = h.submit_accepted("split the work", 1);
    h.event(EventBody::ToolStatus {
        request_id: r,
        call_id: CallId("call-0-0".into()),
        tool: "delegate".into(),
        target: Some("2 tasks".into()),
        status: ToolPhase::Started,
        report: None,
        server: None,
    });
    h.event(EventBody::ChildStatus(status(
        r,
        1,
        ChildState::Running,
        "fix the parser",
    )));
    h.event(EventBody::ChildStatus(status(
        r,
        2,
        ChildState::Queued,
        "write docs",
    )));
    let rows = live(&h);
    let delegate = rows
        .iter()
        .position(|l| l.contains("delegate"))
        .expect("delegate row");
    assert!(
        rows[delegate + 1].starts_with("  ├ 1 running 1 tool"),
        "{rows:#?}"
    );
    assert!(rows[delegate + 1].ends_with("fix the parser"), "{rows:#?}");
    assert!(
        rows[delegate + 2].starts_with("  └ 2 queued 2 tools"),
        "{rows:#?}"
    );
    // Another task's children are not this one's.
    h.event(EventBody::ChildStatus(status(
        RequestId(9),
        3,
        ChildState::Running,
        "other",
    )));
    assert_eq!(h.app.children.rows().len(), 2);
    h.event(EventBody::ToolStatus {
        request_id: r,
        call_id: CallId("call-0-0".into()),
        tool: "delegate".into(),
        target: Some("2 tasks".into()),
        status: ToolPhase::Finished,
        report: None,
        server: None,
    });
    assert!(h.app.children.rows().is_empty());
    assert!(!live(&h).iter().any(|l| l.contains("fix the parser")));
}

#[test]
fn ctrl_o_opens_a_childs_transcript_and_follows_it() {
    // Wide enough for the viewer's title on one row.
    let mut h = Harness::opened(200, 30, true, vec![]);
    let r = h.submit_accepted("split the work", 1);
    h.event(EventBody::ChildStatus(status(
        r,
        1,
        ChildState::Done,
        "first task",
    )));
    h.event(EventBody::ChildStatus(status(
        r,
        2,
        ChildState::Running,
        "second task",
    )));
    h.event(child(
        2,
        EventBody::ToolStatus {
            request_id: RequestId(1),
            call_id: CallId("call-0-0".into()),
            tool: "read".into(),
            target: Some("src/lib.rs\x1b[2J".into()),
            status: ToolPhase::Started,
            report: None,
            server: None,
        },
    ));
    let sent = h.sent.len();
    h.ctrl('o');
    assert_eq!(h.sent.len(), sent, "the log is at hand: no command");
    assert!(h.app.output.open);
    assert_eq!(h.app.output.child, Some(id(2)), "the running child first");
    assert_eq!(h.app.output.lines[..2], ["task:", "  second task"]);
    assert!(h.app.output.lines[2].starts_with("▸ read src/lib.rs"));
    let shown = live(&h).join("\n");
    assert!(shown.contains("child 2 (running) transcript"), "{shown}");
    assert!(shown.contains("child 2 of 2 ←/→"), "{shown}");
    assert!(!shown.contains('\x1b'), "{shown:?}");
    // The child's events keep coming: the viewer follows.
    h.event(child(
        2,
        EventBody::TextDelta {
            request_id: RequestId(1),
            text: "all good\nsecond line".into(),
        },
    ));
    let lines = &h.app.output.lines;
    assert_eq!(
        lines[lines.len() - 3..],
        ["final answer:", "  all good", "  second line"]
    );
    // ←: the first child.
    h.press(KeyCode::Left);
    assert_eq!(h.app.output.child, Some(id(1)));
    assert!(live(&h).join("\n").contains("child 1 (done) transcript"));
    h.press(KeyCode::Left);
    assert_eq!(h.app.output.child, Some(id(1)), "no child before the first");
    h.ctrl('o');
    assert!(!h.app.output.open);
}

#[test]
fn a_childs_approval_is_labelled_and_answered_with_a_child_command() {
    let mut h = Harness::opened(80, 24, true, vec![]);
    let r = h.submit_accepted("split the work", 1);
    h.event(EventBody::ChildStatus(status(
        r,
        1,
        ChildState::Running,
        "first",
    )));
    h.event(EventBody::ChildStatus(status(
        r,
        2,
        ChildState::Running,
        "second",
    )));
    // A child's request and call IDs are its own; they may equal the parent's.
    h.event(child(
        2,
        EventBody::ApprovalRequired(Box::new(asked("run make"))),
    ));
    let shown = live(&h).join("\n");
    assert!(shown.contains("approve? child 2: run make"), "{shown}");
    h.at(5.0);
    h.type_text("y");
    let CommandBody::Child { child: to, command } = &h.last().body else {
        panic!("not a child command: {:?}", h.last());
    };
    assert_eq!(*to, id(2));
    let CommandBody::Approve {
        target,
        call,
        decision,
        ..
    } = command.as_ref()
    else {
        panic!("not an approve: {command:?}");
    };
    assert_eq!(
        (*target, call.0.as_str(), *decision),
        (RequestId(1), "call-0-0", ApprovalDecision::Once)
    );
    // The parent's own decision of a call with the same IDs does not take the child's prompt.
    let decided = |request_id| EventBody::ApprovalDecided {
        request_id,
        call_id: CallId("call-0-0".into()),
        decision: ApprovalDecision::Once,
        reason: None,
    };
    h.event(decided(RequestId(1)));
    assert!(h.app.approval.is_some());
    h.event(child(2, decided(RequestId(1))));
    assert!(h.app.approval.is_none());
    assert!(
        h.scrollback
            .iter()
            .map(text)
            .any(|l| l.contains("approved once: child 2: run make")),
        "{:#?}",
        h.scrollback.iter().map(text).collect::<Vec<_>>()
    );
    // A child no row names (another client's call) asks nothing here.
    h.event(child(
        7,
        EventBody::ApprovalRequired(Box::new(asked("rm -rf"))),
    ));
    assert!(h.app.approval.is_none());
}

#[test]
fn tab_cycles_three_modes_shift_tab_goes_back_and_the_slash_command_selects() {
    use crossterm::event::KeyModifiers;
    let mut h = Harness::opened(80, 24, true, vec![]);
    assert_eq!(h.app.mode, Mode::Basic);
    let mut seen = Vec::new();
    for _ in 0..3 {
        h.press(KeyCode::Tab);
        seen.push(h.app.mode);
    }
    assert_eq!(seen, [Mode::Plan, Mode::Orchestrate, Mode::Basic]);
    seen.clear();
    for _ in 0..3 {
        h.key(KeyCode::BackTab, KeyModifiers::SHIFT);
        seen.push(h.app.mode);
    }
    assert_eq!(seen, [Mode::Orchestrate, Mode::Plan, Mode::Basic]);
    h.type_text("/orchestrate");
    h.press(KeyCode::Enter);
    assert_eq!(h.app.mode, Mode::Orchestrate);
    assert!(
        live(&h).join("\n").contains("orchestrate · idle"),
        "{:#?}",
        live(&h)
    );
    // The next task is submitted in that mode.
    h.type_text("split it");
    h.press(KeyCode::Enter);
    assert!(
        matches!(
            h.last().body,
            CommandBody::Submit {
                mode: Mode::Orchestrate,
                ..
            }
        ),
        "{:?}",
        h.last()
    );
}

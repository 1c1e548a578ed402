//! App-state tests: keys, slash commands and runtime events, without a terminal.

use ansa_sessions::protocol::{CommandBody, ErrorCode, EventBody, PreviewState, ToolPhase};
use ansa_sessions::{CallId, Mode, RequestId, Role, TranscriptPage, TranscriptQuery, TurnState};
use crossterm::event::{KeyCode, KeyModifiers};

use super::super::app::{EXIT_INTERRUPTED, Entry, TaskState};
use super::super::history::PAGE_ENTRIES;
use super::super::viewer::OUTPUT_PAGE_LINES;
use super::{Harness, entry, exchanges, line_text};

#[test]
fn nothing_is_sent_before_the_first_snapshot_and_the_text_is_kept() {
    let mut h = Harness::new(60, 20, true);
    h.type_text("early task");
    h.press(KeyCode::Enter);
    assert!(h.sent.is_empty());
    assert_eq!(h.app.input.text(), "early task");
    h.event(EventBody::Snapshot(super::snapshot_body(0)));
    assert!(h.sent.is_empty(), "an empty transcript needs no page");
    h.press(KeyCode::Enter);
    let CommandBody::Submit { text, mode, .. } = &h.last().body else {
        panic!("{:?}", h.last());
    };
    assert_eq!((text.as_str(), *mode), ("early task", Mode::Basic));
    assert_eq!(h.last().command_id.as_str(), "tui-inc7-1");
}

#[test]
fn opening_asks_for_the_story_and_shows_the_last_three_exchanges() {
    let h = Harness::opened(60, 20, true, exchanges(5));
    let CommandBody::Story(query) = &h.sent[0].body else {
        panic!("{:?}", h.sent);
    };
    assert_eq!((query.before, query.forward), (0, false));
    let text = h.scrollback_text().join("\n");
    assert!(!text.contains("question 2"), "{text}");
    for i in 3..=5 {
        assert!(text.contains(&format!("› question {i}")), "{text}");
        assert!(text.contains(&format!("answer {i}")), "{text}");
    }
}

#[test]
fn an_unfinished_request_is_shown_on_open_with_the_last_three_exchanges() {
    let mut h = Harness::new(60, 20, true);
    let mut s = super::snapshot_body(7);
    s.request_id = Some(RequestId(4));
    s.state = Some(TurnState::Paused);
    s.resume_available = true;
    s.turn = 4;
    h.event(EventBody::Snapshot(s));
    let mut entries = exchanges(3);
    entries.push(entry(7, Role::User, "question 4"));
    let query = TranscriptQuery {
        before: 0,
        limit: super::OPEN_PAGE,
        forward: false,
    };
    h.event(EventBody::Story(ansa_sessions::protocol::StoryPage {
        page: TranscriptPage {
            begin: 1,
            end: 8,
            total: 7,
            entries,
            query,
        },
        turns: Vec::new(),
    }));
    let text = h.scrollback_text().join("\n");
    for i in 1..=4 {
        assert!(text.contains(&format!("question {i}")), "{text}");
    }
    assert_eq!(h.app.paused.as_ref().map(|p| p.request), Some(RequestId(4)));
    h.type_text("/resume");
    h.press(KeyCode::Enter);
    assert_eq!(
        h.last().body,
        CommandBody::Resume {
            target: RequestId(4)
        }
    );
}

#[test]
fn tab_and_shift_tab_toggle_the_mode_and_slash_commands_set_it() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    assert_eq!(h.app.mode, Mode::Basic);
    h.press(KeyCode::Tab);
    assert_eq!(h.app.mode, Mode::Plan);
    h.key(KeyCode::BackTab, KeyModifiers::SHIFT);
    assert_eq!(h.app.mode, Mode::Basic);
    h.type_text("/plan");
    h.press(KeyCode::Enter);
    assert_eq!(h.app.mode, Mode::Plan);
    assert_eq!(h.app.input.text(), "");
    h.submit_accepted("look around", 1);
    let CommandBody::Submit { mode, .. } = &h.sent[0].body else {
        panic!();
    };
    assert_eq!(*mode, Mode::Plan);
    h.type_text("/basic");
    h.press(KeyCode::Enter);
    assert_eq!(h.app.mode, Mode::Basic);
}

#[test]
fn enter_while_a_task_runs_queues_the_next_and_it_starts_after_this_one() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    let first = h.submit_accepted("first", 1);
    assert_eq!(h.sent.len(), 1);
    h.type_text("second");
    h.press(KeyCode::Enter);
    assert_eq!(
        h.sent.len(),
        2,
        "typed ahead: sent to the runtime's FIFO at once"
    );
    let CommandBody::Submit { text, .. } = &h.last().body else {
        panic!("{:?}", h.last());
    };
    assert_eq!(text, "second");
    assert_eq!(h.app.input.text(), "", "the input is free for more");
    let second_id = h.last().command_id.clone();
    h.event(EventBody::CommandAccepted {
        command_id: second_id,
        request_id: RequestId(2),
        turn: 2,
    });
    let live = super::super::view::live(&h.app);
    let shown: Vec<String> = live.lines.iter().map(line_text).collect();
    assert!(
        shown.iter().any(|l| l.contains("queued: second")),
        "{shown:#?}"
    );
    assert!(
        !h.scrollback_text().iter().any(|l| l.contains("second")),
        "its text joins the dialog when it starts"
    );
    // Events of the running task do not touch the queue; its end starts the next.
    h.preview(first, "partial", PreviewState::Preview);
    h.tool(first, "c1", "exec", ToolPhase::Started);
    h.answer(first, "done");
    assert!(h.app.queued.is_empty());
    assert!(
        h.app
            .task
            .as_ref()
            .is_some_and(|t| t.follow.ours(RequestId(2)))
    );
    h.answer(RequestId(2), "second done");
    let text = h.scrollback_text();
    let at = |needle: &str| text.iter().position(|l| l.contains(needle)).unwrap();
    assert!(at("› first") < at("done"));
    assert!(at("done") < at("› second"));
    assert!(at("› second") < at("second done"));
    assert!(h.app.task.is_none());
}

#[test]
fn up_on_an_empty_input_recalls_the_last_queued_task_and_cancels_its_turn() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    h.submit_accepted("first", 1);
    h.type_text("second, with a typo");
    h.press(KeyCode::Enter);
    h.press(KeyCode::Up);
    assert!(
        h.app
            .notice
            .as_ref()
            .is_some_and(|n| n.text.contains("still on its way")),
        "not before its request is known"
    );
    let id = h.last().command_id.clone();
    h.event(EventBody::CommandAccepted {
        command_id: id,
        request_id: RequestId(2),
        turn: 2,
    });
    h.press(KeyCode::Up);
    assert_eq!(
        h.last().body,
        CommandBody::Cancel {
            target: RequestId(2)
        }
    );
    assert_eq!(h.app.input.text(), "second, with a typo");
    assert!(h.app.queued.is_empty());
}

#[test]
fn a_refused_queued_task_comes_back_with_the_reason() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    h.submit_accepted("first", 1);
    h.type_text("second");
    h.press(KeyCode::Enter);
    let id = h.last().command_id.clone();
    h.event(EventBody::Error {
        command_id: Some(id),
        code: ErrorCode::QueueFull,
        message: "64 turns are already queued".into(),
    });
    assert!(h.app.queued.is_empty());
    assert_eq!(h.app.input.text(), "second");
    assert!(
        h.scrollback_text()
            .iter()
            .any(|l| l.contains("the queued task was not accepted: 64 turns"))
    );
    assert!(h.app.task.is_some(), "the running task is untouched");
}

#[test]
fn shift_enter_and_ctrl_j_insert_newlines() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    h.type_text("a");
    h.key(KeyCode::Enter, KeyModifiers::SHIFT);
    h.type_text("b");
    h.ctrl('j');
    h.type_text("c");
    assert_eq!(h.app.input.text(), "a\nb\nc");
    assert!(h.sent.is_empty());
}

#[test]
fn up_and_down_recall_history() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    for (i, text) in ["one", "two"].into_iter().enumerate() {
        let request = h.submit_accepted(text, i as u64 + 1);
        h.answer(request, "ok");
    }
    h.type_text("draft");
    h.press(KeyCode::Up);
    assert_eq!(h.app.input.text(), "two");
    h.press(KeyCode::Up);
    assert_eq!(h.app.input.text(), "one");
    h.press(KeyCode::Down);
    h.press(KeyCode::Down);
    assert_eq!(h.app.input.text(), "draft");
}

#[test]
fn ctrl_c_cancels_then_a_second_one_exits() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    let request = h.submit_accepted("long task", 3);
    h.ctrl('c');
    assert_eq!(h.last().body, CommandBody::Cancel { target: request });
    assert!(h.exits.is_empty());
    h.ctrl('c');
    assert_eq!(h.exits, [EXIT_INTERRUPTED]);
}

#[test]
fn ctrl_c_when_idle_arms_and_another_key_disarms() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    h.type_text("kept");
    h.ctrl('c');
    assert!(h.exits.is_empty() && h.sent.is_empty());
    h.press(KeyCode::Left);
    h.ctrl('c');
    assert!(h.exits.is_empty(), "disarmed by another key");
    h.ctrl('c');
    assert_eq!(h.exits, [EXIT_INTERRUPTED]);
    assert_eq!(h.app.input.text(), "kept");
}

#[test]
fn ctrl_c_before_acceptance_cancels_once_the_request_is_known() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    h.type_text("task");
    h.press(KeyCode::Enter);
    h.ctrl('c');
    assert_eq!(h.sent.len(), 1, "no request ID yet");
    let id = h.sent[0].command_id.clone();
    h.event(EventBody::CommandAccepted {
        command_id: id,
        request_id: RequestId(9),
        turn: 9,
    });
    assert_eq!(
        h.last().body,
        CommandBody::Cancel {
            target: RequestId(9)
        }
    );
}

#[test]
fn ctrl_d_lets_the_task_finish_then_exits() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    let request = h.submit_accepted("task", 1);
    h.ctrl('d');
    assert!(h.exits.is_empty());
    assert!(h.app.exit_after_task);
    h.answer(request, "the answer");
    assert_eq!(h.exits, [0]);
    assert!(h.scrollback_text().iter().any(|l| l == "the answer"));
    // Idle: at once.
    let mut h = Harness::opened(60, 20, true, vec![]);
    h.ctrl('d');
    assert_eq!(h.exits, [0]);
}

#[test]
fn slash_exit_cancel_resume_status_and_unknown() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    h.type_text("/cancel");
    h.press(KeyCode::Enter);
    assert!(h.sent.is_empty());
    h.type_text("/status");
    h.press(KeyCode::Enter);
    assert!(h.app.status_open);
    assert_eq!(h.sent.len(), 1, "only a snapshot, for the context size");
    h.press(KeyCode::Esc);
    assert!(!h.app.status_open);
    h.type_text("/frobnicate");
    h.press(KeyCode::Enter);
    assert_eq!(
        h.app.input.text(),
        "/frobnicate",
        "unknown commands are kept"
    );
    assert_eq!(h.sent.len(), 1);
    h.ctrl('u');
    let request = h.submit_accepted("task", 2);
    h.turn_state(request, TurnState::Paused, Some("tool call limit reached"));
    assert!(h.app.task.is_none());
    h.type_text("/resume");
    h.press(KeyCode::Enter);
    assert_eq!(h.last().body, CommandBody::Resume { target: request });
    let id = h.last().command_id.clone();
    h.event(EventBody::CommandAccepted {
        command_id: id,
        request_id: request,
        turn: 3,
    });
    assert!(h.app.paused.is_none());
    assert_eq!(
        h.app.task.as_ref().map(|t| t.state),
        Some(TaskState::Queued)
    );
    h.type_text("/cancel");
    h.press(KeyCode::Enter);
    assert_eq!(h.last().body, CommandBody::Cancel { target: request });
    h.turn_state(request, TurnState::Cancelled, None);
    h.type_text("/exit");
    h.press(KeyCode::Enter);
    assert_eq!(h.exits, [0]);
}

#[test]
fn a_refused_submit_gives_the_text_back() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    h.type_text("task");
    h.press(KeyCode::Enter);
    let id = h.last().command_id.clone();
    h.event(EventBody::Error {
        command_id: Some(id),
        code: ErrorCode::ReadOnly,
        message: "the journal is damaged".into(),
    });
    assert!(h.app.task.is_none());
    assert_eq!(h.app.input.text(), "task");
    assert!(
        h.scrollback_text()
            .iter()
            .any(|l| l.contains("not accepted: the journal is damaged"))
    );
}

#[test]
fn cancel_keeps_the_fragment_marked_unfinished() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    let request = h.submit_accepted("task", 1);
    h.preview(request, "half an answ", PreviewState::Preview);
    h.ctrl('c');
    h.preview(request, "half an answ", PreviewState::Discarded);
    h.turn_state(request, TurnState::Cancelled, Some("cancelled by the user"));
    let text = h.scrollback_text();
    let at = text
        .iter()
        .position(|l| l == "half an answ")
        .expect("fragment");
    assert_eq!(text[at + 1], "(unfinished)");
    assert!(text[at + 2].contains("cancelled"));
}

#[test]
fn tool_lines_are_committed_once_when_they_finish() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    let request = h.submit_accepted("task", 1);
    h.at(1.0);
    h.tool(request, "c1", "read", ToolPhase::Started);
    assert_eq!(h.app.tools.len(), 1);
    h.at(1.4);
    h.tool(request, "c1", "read", ToolPhase::Finished);
    assert!(h.app.tools.is_empty());
    h.tool(request, "c2", "exec", ToolPhase::Failed);
    let tools: Vec<_> = h
        .scrollback_text()
        .into_iter()
        .filter(|l| l.starts_with("  ✓") || l.starts_with("  ✗"))
        .collect();
    assert_eq!(tools, ["  ✓ read  0.4s", "  ✗ exec  failed"]);
}

#[test]
fn lost_events_ask_for_a_snapshot_and_a_lost_answer_is_recovered() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    let request = h.submit_accepted("task", 1);
    h.seq += 5; // a gap
    h.event(EventBody::ResyncRequired {
        reason: "queue full".into(),
    });
    let snapshots = h
        .sent
        .iter()
        .filter(|c| matches!(c.body, CommandBody::Snapshot { .. }))
        .count();
    assert_eq!(snapshots, 1, "one snapshot at a time");
    let mut s = super::snapshot_body(2);
    s.request_id = Some(request);
    s.state = Some(TurnState::Done);
    s.turn = 1;
    h.event(EventBody::Snapshot(s));
    let CommandBody::Transcript(query) = h.last().body.clone() else {
        panic!("{:?}", h.last());
    };
    h.event(EventBody::Transcript(TranscriptPage {
        begin: 1,
        end: 3,
        total: 2,
        entries: vec![
            entry(1, Role::User, "task"),
            entry(2, Role::Assistant, "recovered answer"),
        ],
        query,
    }));
    assert!(h.scrollback_text().iter().any(|l| l == "recovered answer"));
    assert!(h.app.task.is_none());
}

#[test]
fn ctrl_f_and_page_keys_issue_transcript_commands() {
    let mut h = Harness::opened(60, 20, true, exchanges(10));
    assert_eq!(h.app.history.anchor, Some(15));
    h.ctrl('f');
    assert!(h.app.history.open);
    let CommandBody::Story(query) = h.last().body.clone() else {
        panic!("{:?}", h.last());
    };
    assert_eq!(
        query,
        TranscriptQuery {
            before: 15,
            limit: PAGE_ENTRIES,
            forward: false
        }
    );
    let all = exchanges(10);
    h.event(super::pane_page(TranscriptPage {
        begin: 7,
        end: 15,
        total: 20,
        entries: all[6..14].to_vec(),
        query,
    }));
    assert_eq!(h.app.history.begin(), Some(7));
    // PgUp scrolls within the loaded page first, then loads the older one.
    let sent = h.sent.len();
    for _ in 0..10 {
        h.press(KeyCode::PageUp);
    }
    assert_eq!(h.sent.len(), sent + 1, "one older page requested");
    let CommandBody::Story(older) = h.last().body.clone() else {
        panic!();
    };
    assert_eq!((older.before, older.forward), (7, false));
    h.event(super::pane_page(TranscriptPage {
        begin: 1,
        end: 7,
        total: 20,
        entries: all[0..6].to_vec(),
        query: older,
    }));
    assert_eq!(h.app.history.begin(), Some(1));
    for _ in 0..40 {
        h.press(KeyCode::PageDown);
    }
    let CommandBody::Story(newer) = h.last().body.clone() else {
        panic!();
    };
    assert_eq!((newer.before, newer.forward), (15, true));
    h.ctrl('f');
    assert!(!h.app.history.open);
    h.press(KeyCode::PageUp);
    assert!(h.app.history.open, "PgUp opens the pane again");
}

#[test]
fn page_down_at_the_bottom_of_the_history_loads_answers_that_came_after_it_opened() {
    // Seen under tmux at 60×20: Ctrl+F while a task ran (and two were queued) loaded only the
    // prompts; after the answers came, reopening the pane and PgDn said "end of the history"
    // and the answers were never shown, because the pane trusted the stale total.
    let mut h = Harness::opened(60, 20, true, Vec::new());
    h.ctrl('f');
    let CommandBody::Story(query) = h.last().body.clone() else {
        panic!("{:?}", h.last());
    };
    let all = exchanges(1);
    h.event(super::pane_page(TranscriptPage {
        begin: 1,
        end: 2,
        total: 1,
        entries: all[0..1].to_vec(),
        query,
    }));
    assert_eq!(h.app.history.end(), Some(2));
    // The answer is journaled; the pane is closed and opened again, then paged down.
    h.ctrl('f');
    h.ctrl('f');
    let sent = h.sent.len();
    h.press(KeyCode::PageDown);
    assert_eq!(h.sent.len(), sent + 1, "a newer page is asked for");
    let CommandBody::Story(newer) = h.last().body.clone() else {
        panic!("{:?}", h.last());
    };
    assert_eq!((newer.before, newer.forward), (2, true));
    h.event(super::pane_page(TranscriptPage {
        begin: 2,
        end: 3,
        total: 2,
        entries: all[1..2].to_vec(),
        query: newer,
    }));
    let pane: Vec<String> = h
        .app
        .pane_text(&h.app.history.entries, 60)
        .iter()
        .map(line_text)
        .collect();
    assert!(pane.iter().any(|l| l.contains("answer 1")), "{pane:?}");
    // Nothing newer: said so, and no further entries appear.
    h.press(KeyCode::PageDown);
    let CommandBody::Story(last) = h.last().body.clone() else {
        panic!("{:?}", h.last());
    };
    h.event(super::pane_page(TranscriptPage {
        begin: 3,
        end: 3,
        total: 2,
        entries: Vec::new(),
        query: last,
    }));
    assert_eq!(h.app.history.entries.len(), 2);
}

#[test]
fn text_delta_and_done_commit_the_answer_once() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    let request = h.submit_accepted("task", 1);
    h.preview(request, "The **answer**", PreviewState::Preview);
    assert!(h.app.preview.is_some());
    h.preview(request, "The **answer**", PreviewState::Committed);
    h.answer(request, "The **answer**");
    assert!(h.app.preview.is_none());
    let commits: Vec<_> = h
        .scrollback_text()
        .into_iter()
        .filter(|l| l.contains("answer"))
        .collect();
    assert_eq!(commits, ["The answer"]);
    // Events of other requests are ignored.
    h.answer(RequestId(77), "not ours");
    assert!(!h.scrollback_text().iter().any(|l| l.contains("not ours")));
    assert!(matches!(h.app.take_commits().as_slice(), []));
    let _ = Entry::Header;
}

#[test]
fn a_termination_signal_cancels_and_exits() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    let request = h.submit_accepted("task", 1);
    let actions = h.app.on_signal();
    assert!(matches!(actions.last(), Some(super::Action::Exit(130))));
    assert!(actions.iter().any(|a| matches!(a,
        super::Action::Send(c) if c.body == CommandBody::Cancel { target: request })));
}

#[test]
fn a_read_only_session_says_why_as_soon_as_it_opens() {
    let mut h = Harness::new(100, 20, true);
    let mut snapshot = super::snapshot_body(0);
    snapshot.read_only = true;
    snapshot.read_only_reason = Some("journal part 000001 line 7: checksum mismatch".into());
    h.event(EventBody::Snapshot(snapshot.clone()));
    let text = h.scrollback_text().join("\n");
    assert!(
        text.contains("This session is read-only: journal part 000001 line 7: checksum mismatch"),
        "{text}"
    );
    // Said once, not again on every later snapshot.
    h.event(EventBody::Snapshot(snapshot));
    let text = h.scrollback_text().join("\n");
    assert_eq!(text.matches("read-only:").count(), 1, "{text}");
}

pub(super) fn output_page(
    call: &str,
    offset: u64,
    total: u64,
    lines: &[String],
    limit: u32,
) -> EventBody {
    EventBody::ToolOutput(ansa_sessions::ToolOutputPage {
        call_id: CallId(call.to_owned()),
        tool: "exec".into(),
        offset,
        total,
        lines: lines.to_vec(),
        truncated: false,
        view: ansa_sessions::OutputView::Readable,
        running: false,
        query: ansa_sessions::ToolOutputQuery {
            call_id: (offset > 0).then(|| CallId(call.to_owned())),
            offset,
            limit,
            view: ansa_sessions::OutputView::Readable,
        },
    })
}

#[test]
fn ctrl_o_pages_the_latest_tool_output_and_closes() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    h.ctrl('o');
    assert!(h.app.output.open);
    let CommandBody::ToolOutput(query) = h.last().body.clone() else {
        panic!("{:?}", h.last());
    };
    assert_eq!(query.call_id, None, "the latest call");
    assert_eq!((query.offset, query.limit), (0, OUTPUT_PAGE_LINES));
    let lines: Vec<String> = (1..=250).map(|n| format!("line {n}")).collect();
    h.event(output_page("c7", 0, 250, &lines[..200], OUTPUT_PAGE_LINES));
    let live = super::super::view::live(&h.app);
    let text: Vec<String> = live.lines.iter().map(line_text).collect();
    assert!(
        text[0].contains("exec · readable · lines 1–10 of 250"),
        "{text:#?}"
    );
    assert!(text.iter().any(|l| l.trim() == "1 line 1"), "{text:#?}");
    // PgDn scrolls through what is loaded, then asks for the rest of the same call.
    let sent = h.sent.len();
    for _ in 0..18 {
        h.press(KeyCode::PageDown);
    }
    assert_eq!(h.sent.len(), sent, "still within the first page");
    assert_eq!(h.app.output.top, 180);
    h.press(KeyCode::PageDown);
    let CommandBody::ToolOutput(more) = h.last().body.clone() else {
        panic!("{:?}", h.last());
    };
    assert_eq!(more.call_id, Some(CallId("c7".into())));
    assert_eq!(more.offset, 200);
    h.event(output_page(
        "c7",
        200,
        250,
        &lines[200..],
        OUTPUT_PAGE_LINES,
    ));
    assert_eq!(h.app.output.lines.len(), 250);
    for _ in 0..6 {
        h.press(KeyCode::PageDown);
    }
    assert!(
        h.app
            .notice
            .as_ref()
            .is_some_and(|n| n.text.contains("end of the output")),
        "{:?}",
        h.app.notice
    );
    h.press(KeyCode::Esc);
    assert!(!h.app.output.open);
}

#[test]
fn ctrl_o_without_any_tool_output_says_so() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    h.ctrl('o');
    let id = h.last().command_id.clone();
    h.event(EventBody::Error {
        command_id: Some(id),
        code: ErrorCode::UnknownTarget,
        message: "no tool call has a recorded output in this session yet".into(),
    });
    assert!(!h.app.output.open);
    assert!(
        h.app
            .notice
            .as_ref()
            .is_some_and(|n| n.text.contains("no tool call")),
        "a notice, not an error in the dialog"
    );
    assert!(
        h.scrollback_text()
            .iter()
            .all(|l| !l.contains("no tool call"))
    );
}

#[test]
fn a_large_paste_shows_collapsed_and_is_submitted_whole() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    let log: String = (1..=30).map(|n| format!("error {n}\n")).collect();
    h.app.on_paste(&log);
    assert!(
        h.app.input.text().starts_with("[pasted "),
        "{}",
        h.app.input.text()
    );
    let live = super::super::view::live(&h.app);
    let shown: Vec<String> = live.lines.iter().map(line_text).collect();
    assert!(
        !shown.iter().any(|l| l.contains("error 30")),
        "collapsed on screen"
    );
    h.press(KeyCode::Enter);
    let CommandBody::Submit { text, .. } = &h.last().body else {
        panic!("{:?}", h.last());
    };
    assert_eq!(*text, log, "the whole paste is sent");
}

#[test]
fn status_asks_for_a_snapshot_and_shows_the_context_against_its_budget() {
    let mut h = Harness::opened(70, 30, true, vec![]);
    h.type_text("/status");
    h.press(KeyCode::Enter);
    assert!(h.app.status_open);
    assert!(
        matches!(h.last().body, CommandBody::Snapshot { .. }),
        "{:?}",
        h.last()
    );
    let mut s = super::snapshot_body(0);
    s.context = Some(ansa_sessions::protocol::ContextSize {
        bytes: 12 * 1024,
        budget: 256 * 1024,
    });
    h.event(EventBody::Snapshot(s));
    let live = super::super::view::live(&h.app);
    let shown: Vec<String> = live.lines.iter().map(line_text).collect();
    let flat = shown
        .concat()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("context ≈3.1k tokens of an unknown window (?) · 12 KiB of 256 KiB before compaction (4%)"),
        "{shown:#?}"
    );
}

#[test]
fn left_and_right_in_the_output_pane_step_through_the_turns_calls() {
    let mut h = Harness::opened(80, 24, true, vec![]);
    let request = h.submit_accepted("work", 1);
    for (call, tool) in [("c1", "read"), ("c2", "search"), ("c3", "exec")] {
        h.tool(request, call, tool, ToolPhase::Started);
        h.tool(request, call, tool, ToolPhase::Finished);
    }
    h.answer(request, "done");
    h.ctrl('o');
    h.event(output_page(
        "c3",
        0,
        1,
        &["exit output".to_owned()],
        OUTPUT_PAGE_LINES,
    ));
    let title = |h: &Harness| line_text(&super::super::view::live(&h.app).lines[0]);
    assert!(title(&h).contains("call 3 of 3"), "{}", title(&h));
    h.press(KeyCode::Left);
    let CommandBody::ToolOutput(query) = h.last().body.clone() else {
        panic!("{:?}", h.last());
    };
    assert_eq!(query.call_id, Some(CallId("c2".into())));
    assert_eq!(query.offset, 0);
    h.event(output_page(
        "c2",
        0,
        1,
        &["matches".to_owned()],
        OUTPUT_PAGE_LINES,
    ));
    assert!(title(&h).contains("call 2 of 3"), "{}", title(&h));
    h.press(KeyCode::Left);
    h.event(output_page(
        "c1",
        0,
        1,
        &["lines".to_owned()],
        OUTPUT_PAGE_LINES,
    ));
    let sent = h.sent.len();
    h.press(KeyCode::Left);
    assert_eq!(h.sent.len(), sent, "nothing before the first call");
    h.press(KeyCode::Right);
    let CommandBody::ToolOutput(query) = h.last().body.clone() else {
        panic!("{:?}", h.last());
    };
    assert_eq!(query.call_id, Some(CallId("c2".into())));
}

#[test]
fn an_edits_row_shows_its_first_diff_lines_and_ctrl_o_the_whole_diff() {
    use ansa_sessions::protocol::{DiffLine, DiffSign, FileDiff, ReportTone, ToolReport};
    let mut h = Harness::opened(80, 40, true, vec![]);
    let request = h.submit_accepted("rename", 1);
    let mut report = ToolReport::new(ReportTone::Ok, "+20 −0");
    report.diffs = vec![FileDiff {
        path: "src/a.rs".into(),
        added: 20,
        removed: 0,
        lines: (1..=20)
            .map(|n| DiffLine {
                sign: DiffSign::Added,
                text: format!("line {n}"),
            })
            .collect(),
    }];
    h.tool_call(request, "e1", "edit", Some("src/a.rs"), report);
    h.answer(request, "done");
    let dialog = h.scrollback_text();
    assert!(dialog.iter().any(|l| l.contains("+ line 8")));
    assert!(
        !dialog.iter().any(|l| l.contains("+ line 9")),
        "{dialog:#?}"
    );
    assert!(
        dialog
            .iter()
            .any(|l| l.contains("12 more diff lines (Ctrl+O)"))
    );
    let sent = h.sent.len();
    h.ctrl('o');
    assert_eq!(h.sent.len(), sent, "the diff is at hand: no command");
    assert_eq!(h.app.output.lines.len(), 21, "a header and every line");
    assert_eq!(h.app.output.lines[20], "+ line 20");
}

#[test]
fn approval_keys_decide_and_leave_the_typed_input_alone() {
    use ansa_sessions::ApprovalDecision;
    use ansa_sessions::protocol::ApprovalRequest;
    let mut h = Harness::opened(80, 24, true, vec![]);
    let request = h.submit_accepted("run the tests", 1);
    h.type_text("draft");
    let asked = |call: &str| ApprovalRequest {
        request_id: request,
        call_id: CallId(call.into()),
        tool: "exec".into(),
        action: "v:1\no:x".into(),
        digest: "cd".repeat(32),
        summary: "run cargo test".into(),
        argv: vec!["cargo".into(), "test".into()],
        cwd: None,
        diffs: Vec::new(),
        actions: Vec::new(),
        env: Vec::new(),
        stdin: None,
        created: Vec::new(),
        withheld: None,
        outside_sandbox: false,
    };
    h.event(EventBody::ApprovalRequired(Box::new(asked("c1"))));
    let sent = h.sent.len();
    h.at(1.0);
    h.type_text("x");
    assert_eq!(h.sent.len(), sent, "other letters decide nothing");
    // A letter typed is typing: the approval waits for a pause again.
    h.type_text("a");
    assert_eq!(
        h.sent.len(),
        sent,
        "typed right after another letter, `a` is typing"
    );
    h.press(KeyCode::Backspace);
    h.press(KeyCode::Backspace);
    h.at(2.0);
    h.type_text("a");
    let CommandBody::Approve {
        target,
        call,
        decision,
        reason,
    } = &h.last().body
    else {
        panic!("not an approve: {:?}", h.last());
    };
    assert_eq!(
        (*target, call.0.as_str(), *decision, reason.as_deref()),
        (request, "c1", ApprovalDecision::Session, None)
    );
    h.event(EventBody::ApprovalDecided {
        request_id: request,
        call_id: CallId("c1".into()),
        decision: ApprovalDecision::Session,
        reason: None,
    });
    assert!(h.app.approval.is_none());
    // A denial with a reason; Esc goes back to the choice first.
    h.event(EventBody::ApprovalRequired(Box::new(asked("c2"))));
    h.at(3.0);
    h.type_text("n");
    h.type_text("no");
    h.press(KeyCode::Esc);
    h.type_text("n");
    h.type_text("too slow");
    h.press(KeyCode::Enter);
    let CommandBody::Approve {
        decision, reason, ..
    } = &h.last().body
    else {
        panic!("not an approve: {:?}", h.last());
    };
    assert_eq!(
        (*decision, reason.as_deref()),
        (ApprovalDecision::Deny, Some("too slow"))
    );
    assert_eq!(h.app.input.text(), "draft", "typed input is kept");
}

/// An approval whose text does not fit: `y` and `a` are refused until paging has put all of
/// it on screen; one that cannot be shown whole can only be denied.
#[test]
fn an_approval_that_does_not_fit_is_approved_only_after_it_was_all_seen() {
    use ansa_sessions::protocol::{ApprovalRequest, DiffLine, DiffSign, FileDiff, Withheld};
    let mut h = Harness::opened(60, 20, true, vec![]);
    let request = h.submit_accepted("edit a lot", 1);
    let lines = (1..=40)
        .map(|n| DiffLine {
            sign: DiffSign::Added,
            text: format!("added line {n}"),
        })
        .collect();
    let asked = |call: &str| ApprovalRequest {
        request_id: request,
        call_id: CallId(call.into()),
        tool: "edit".into(),
        action: "v:1\no:p".into(),
        digest: "cd".repeat(32),
        summary: "edit big.txt (+40 −0)".into(),
        argv: Vec::new(),
        cwd: None,
        env: Vec::new(),
        stdin: None,
        diffs: vec![FileDiff {
            path: "big.txt".into(),
            added: 40,
            removed: 0,
            lines: Vec::clone(&lines),
        }],
        actions: Vec::new(),
        created: Vec::new(),
        withheld: None,
        outside_sandbox: false,
    };
    h.event(EventBody::ApprovalRequired(Box::new(asked("c1"))));
    let sent = h.sent.len();
    h.at(1.0);
    let screen = |h: &Harness| -> Vec<String> {
        super::super::view::live(&h.app)
            .lines
            .iter()
            .map(line_text)
            .collect()
    };
    let first = screen(&h);
    assert!(
        first.iter().any(|l| l.contains("PgDn/Space more")),
        "{first:#?}"
    );
    assert!(
        !first.iter().any(|l| l.contains("added line 40")),
        "{first:#?}"
    );
    h.type_text("y");
    h.type_text("a");
    assert_eq!(h.sent.len(), sent, "nothing is approved unseen");
    assert!(
        screen(&h)
            .iter()
            .any(|l| l.contains("y/a refused until all is seen")),
        "{:#?}",
        screen(&h)
    );
    // Page to the end, collecting what was on screen: every line, none skipped.
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..20 {
        let now = screen(&h);
        seen.extend(now.iter().cloned());
        if !now.iter().any(|l| l.contains("PgDn/Space more")) {
            break;
        }
        h.press(KeyCode::PageDown);
    }
    for n in 1..=40 {
        assert!(
            seen.iter().any(|l| l.trim() == format!("+ added line {n}")),
            "{n}"
        );
    }
    // Going back up does not undo having seen it.
    h.press(KeyCode::PageUp);
    h.type_text("y");
    let CommandBody::Approve { decision, .. } = &h.last().body else {
        panic!("not an approve: {:?}", h.last());
    };
    assert_eq!(*decision, ansa_sessions::ApprovalDecision::Once);
    h.event(EventBody::ApprovalDecided {
        request_id: request,
        call_id: CallId("c1".into()),
        decision: ansa_sessions::ApprovalDecision::Once,
        reason: None,
    });
    // An action that cannot be shown whole is never approved.
    let mut withheld = asked("c2");
    withheld.diffs = Vec::new();
    withheld.withheld = Some(Withheld::TooLarge {
        bytes: 5_000_000,
        limit: 4_194_304,
    });
    h.event(EventBody::ApprovalRequired(Box::new(withheld)));
    let sent = h.sent.len();
    h.at(2.0);
    h.type_text("y");
    assert_eq!(h.sent.len(), sent);
    assert!(
        screen(&h).iter().any(|l| l.contains("the only choice")),
        "{:#?}",
        screen(&h)
    );
    h.type_text("n");
    h.press(KeyCode::Enter);
    let CommandBody::Approve { decision, .. } = &h.last().body else {
        panic!("not an approve: {:?}", h.last());
    };
    assert_eq!(*decision, ansa_sessions::ApprovalDecision::Deny);
}

/// Typing ahead never answers an approval: keys typed while it appears, or with no pause
/// since, go to the input; only a key after a pause decides.
#[test]
fn typing_ahead_never_answers_an_approval() {
    use ansa_sessions::protocol::ApprovalRequest;
    let mut h = Harness::opened(80, 24, true, vec![]);
    let request = h.submit_accepted("run the tests", 1);
    h.type_text("please ");
    h.event(EventBody::ApprovalRequired(Box::new(ApprovalRequest {
        request_id: request,
        call_id: CallId("c1".into()),
        tool: "exec".into(),
        action: "v:1\no:x".into(),
        digest: "cd".repeat(32),
        summary: "run sh -c touch PWNED".into(),
        argv: vec!["sh".into(), "-c".into(), "touch PWNED".into()],
        cwd: None,
        diffs: Vec::new(),
        actions: Vec::new(),
        env: Vec::new(),
        stdin: None,
        created: Vec::new(),
        withheld: None,
        outside_sandbox: false,
    })));
    let sent = h.sent.len();
    let live = |h: &Harness| -> String {
        super::super::view::live(&h.app)
            .lines
            .iter()
            .map(line_text)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        live(&h).contains("typing goes to your input"),
        "{}",
        live(&h)
    );
    // One key every 0.2 s: never a pause long enough to answer.
    for (n, c) in "ask and say yes".chars().enumerate() {
        h.at(0.2 * n as f64);
        h.type_text(&c.to_string());
    }
    assert_eq!(h.sent.len(), sent, "typed text answered the approval");
    assert_eq!(h.app.input.text(), "please ask and say yes");
    assert!(h.app.approval.as_ref().is_some_and(|a| !a.sent));
    // After a pause the approval takes its keys.
    h.at(3.5);
    assert!(
        live(&h).contains("y once · a for this session · n deny"),
        "{}",
        live(&h)
    );
    h.type_text("n");
    h.press(KeyCode::Enter);
    let CommandBody::Approve { decision, .. } = &h.last().body else {
        panic!("not an approve: {:?}", h.last());
    };
    assert_eq!(*decision, ansa_sessions::ApprovalDecision::Deny);
    assert_eq!(h.app.input.text(), "please ask and say yes");
}

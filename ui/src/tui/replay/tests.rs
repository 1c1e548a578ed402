//! Replay of a reopened session: the opening asks for a `story` page, the last three exchanges
//! come back expanded (prompts, commentary, tool rows with summaries and diffs, failed calls,
//! answers, endings, rewound turns marked) and older ones stay collapsed; the entries are the
//! ones the live events commit for the same turn.

use ansa_sessions::protocol::{
    CommandBody, DiffLine, DiffSign, EventBody, FileDiff, ReportTone, StoryPage, StoryStep,
    ToolPhase, ToolReport, TurnStory,
};
use ansa_sessions::{CallId, RequestId, Role, TranscriptEntry, TranscriptPage, TurnState};

use super::super::app::OPEN_PAGE;
use super::super::model::{Entry, ToolLine};
use super::super::tests::{Harness, snapshot_body};
use super::replay_entries;

fn entry(index: u64, request: u64, role: Role, text: &str) -> TranscriptEntry {
    TranscriptEntry {
        index,
        request_id: RequestId(request),
        role,
        text: text.to_owned(),
        truncated: false,
        rewound: false,
    }
}

fn edit_report() -> ToolReport {
    let mut report = ToolReport::new(ReportTone::Ok, "+1 −1");
    report.diffs = vec![FileDiff {
        path: "src/lib.rs".into(),
        added: 1,
        removed: 1,
        lines: vec![
            DiffLine {
                sign: DiffSign::Removed,
                text: "    a - b".into(),
            },
            DiffLine {
                sign: DiffSign::Added,
                text: "    a + b".into(),
            },
        ],
    }];
    report
}

fn exec_report() -> ToolReport {
    let mut report = ToolReport::new(ReportTone::Warn, "exit 101");
    report.tail = vec!["test result: FAILED. 3 passed; 1 failed".into()];
    report
}

fn tool(
    call: &str,
    name: &str,
    target: Option<&str>,
    status: ToolPhase,
    report: ToolReport,
) -> StoryStep {
    StoryStep::Tool {
        call_id: CallId(call.into()),
        tool: name.into(),
        target: target.map(str::to_owned),
        status,
        report: Some(report),
    }
}

fn story(request: u64, steps: Vec<StoryStep>, state: TurnState) -> TurnStory {
    TurnStory {
        request_id: RequestId(request),
        steps,
        state,
        reason: None,
        rewound: false,
        omitted: 0,
    }
}

/// Five turns: two old ones, one with commentary, a command and an edit, one a rewind took
/// back, and a cancelled one whose edit failed.
fn session() -> (Vec<TranscriptEntry>, Vec<TurnStory>) {
    let entries = vec![
        entry(1, 1, Role::User, "old question one"),
        entry(2, 1, Role::Assistant, "old answer one"),
        entry(3, 2, Role::User, "old question two"),
        entry(4, 2, Role::Assistant, "old answer two"),
        entry(5, 3, Role::User, "fix the failing test"),
        entry(6, 3, Role::Assistant, "Fixed: the sign was wrong."),
        entry(7, 4, Role::User, "rename everything"),
        entry(8, 4, Role::Assistant, "Renamed."),
        entry(9, 5, Role::User, "delete the old module"),
    ];
    let mut rewound = story(4, Vec::new(), TurnState::Done);
    rewound.rewound = true;
    let mut cancelled = story(
        5,
        vec![tool(
            "c5",
            "edit",
            Some("src/old.rs"),
            ToolPhase::Failed,
            ToolReport::failed("edits[0].old was not found in src/old.rs as last read"),
        )],
        TurnState::Cancelled,
    );
    cancelled.reason = Some("cancelled by the user".into());
    let turns = vec![
        story(
            2,
            vec![tool(
                "c1",
                "read",
                Some("README.md"),
                ToolPhase::Finished,
                ToolReport::new(ReportTone::Ok, "12 lines"),
            )],
            TurnState::Done,
        ),
        story(
            3,
            vec![
                StoryStep::Commentary {
                    text: "Let me run the tests first.".into(),
                },
                tool(
                    "c2",
                    "exec",
                    Some("cargo test"),
                    ToolPhase::Finished,
                    exec_report(),
                ),
                tool(
                    "c3",
                    "edit",
                    Some("src/lib.rs"),
                    ToolPhase::Finished,
                    edit_report(),
                ),
            ],
            TurnState::Done,
        ),
        rewound,
        cancelled,
    ];
    (entries, turns)
}

/// Opens a harness on `session()` and answers its `story` command with the last page.
fn opened(width: u16, height: u16) -> Harness {
    let (entries, turns) = session();
    let mut h = Harness::new(width, height, true);
    h.event(EventBody::Snapshot(snapshot_body(entries.len() as u64)));
    let query = match &h.last().body {
        CommandBody::Story(query) => *query,
        other => panic!("the opening asks for a story page, not {other:?}"),
    };
    assert_eq!(query.limit, OPEN_PAGE);
    let picked: Vec<TranscriptEntry> = entries
        .iter()
        .skip(entries.len() - OPEN_PAGE as usize)
        .cloned()
        .collect();
    h.event(EventBody::Story(StoryPage {
        page: TranscriptPage {
            begin: picked[0].index,
            end: entries.len() as u64 + 1,
            total: entries.len() as u64,
            entries: picked,
            query,
        },
        turns,
    }));
    h
}

#[test]
fn the_last_three_exchanges_come_back_whole_and_older_ones_stay_collapsed() {
    for (width, height) in [(60, 20), (120, 40)] {
        let h = opened(width, height);
        let text = h.scrollback_text().join("\n");
        let at = |needle: &str| {
            text.find(needle)
                .unwrap_or_else(|| panic!("{width}×{height}: `{needle}` missing in\n{text}"))
        };
        assert!(
            !text.contains("old question two") && !text.contains("README.md"),
            "{width}×{height}: an older exchange is collapsed, not expanded:\n{text}"
        );
        let order = [
            at("earlier exchanges collapsed"),
            at("fix the failing test"),
            at("Let me run the tests first."),
            at("exec"),
            at("exit 101"),
            at("test result: FAILED"),
            at("src/lib.rs"),
            at("a + b"),
            at("Fixed: the sign was wrong."),
            at("↺ rewound"),
            at("rename everything"),
            at("Renamed."),
            at("delete the old module"),
            at("edits[0].old was not found"),
            at("cancelled"),
        ];
        assert!(
            order.windows(2).all(|w| w[0] < w[1]),
            "{width}×{height}: out of order {order:?} in\n{text}"
        );
        assert!(
            text.contains("✗ edit"),
            "{width}×{height}: failed row:\n{text}"
        );
        assert!(
            text.contains("! exec"),
            "{width}×{height}: warn row:\n{text}"
        );
        assert!(text.contains("✓ edit"), "{width}×{height}: ok row:\n{text}");
        assert!(
            h.app.history.rewound.contains(&RequestId(4)),
            "the pane marks the rewound turn too"
        );
    }
}

#[test]
fn a_replayed_turn_is_made_of_the_entries_its_live_events_committed() {
    // Live: the same turn through the events a running session publishes.
    let mut live = Harness::raw(100, 32, true);
    live.open(Vec::new());
    live.app.take_commits();
    let request = live.submit_accepted("fix the failing test", 3);
    live.preview(
        request,
        "Let me run the tests first.",
        ansa_sessions::protocol::PreviewState::Preview,
    );
    live.tool_call(request, "c2", "exec", Some("cargo test"), exec_report());
    live.tool_call(request, "c3", "edit", Some("src/lib.rs"), edit_report());
    live.answer(request, "Fixed: the sign was wrong.");
    let untimed = |entries: Vec<Entry>| -> Vec<Entry> {
        entries
            .into_iter()
            .map(|e| match e {
                Entry::Tool(line) => Entry::Tool(ToolLine {
                    started: None,
                    ended: None,
                    ..line
                }),
                other => other,
            })
            .collect()
    };
    let committed = untimed(live.app.take_commits());
    let (entries, turns) = session();
    let turn: Vec<TranscriptEntry> = entries
        .into_iter()
        .filter(|e| e.request_id == RequestId(3))
        .collect();
    let replayed = untimed(replay_entries(turn, Some(&turns[1]), false, live.app.now));
    assert_eq!(replayed, committed);
}

#[test]
fn a_story_the_runtime_cannot_read_falls_back_to_prompts_and_answers() {
    let mut h = Harness::new(80, 24, true);
    h.event(EventBody::Snapshot(snapshot_body(2)));
    let story = h.last().clone();
    h.event(EventBody::Error {
        command_id: Some(story.command_id),
        code: ansa_sessions::protocol::ErrorCode::StorageFailed,
        message: "the journal could not be read: bad".into(),
    });
    assert!(
        matches!(h.last().body, CommandBody::Transcript(_)),
        "{:?}",
        h.last()
    );
    assert!(
        !h.scrollback_text()
            .join("\n")
            .contains("journal could not be read")
    );
}

/// The history pane's rows as a person pages through them: PgUp to the top, then PgDn to the
/// end, every row seen once in order.
fn paged_pane(h: &mut Harness) -> Vec<String> {
    use crossterm::event::KeyCode;
    let shown = |h: &Harness| -> Vec<String> {
        let lines = super::super::view::live(&h.app).lines;
        lines.iter().map(super::super::tests::line_text).collect()
    };
    for _ in 0..20 {
        h.press(KeyCode::PageUp);
    }
    let mut rows = Vec::new();
    let mut top = usize::MAX;
    while h.app.history.top != top {
        top = h.app.history.top;
        rows.push(shown(h));
        h.press(KeyCode::PageDown);
    }
    rows.concat()
}

#[test]
fn the_history_pane_shows_the_tool_rows_of_older_turns_like_the_expanded_ones() {
    for (width, height) in [(60, 20), (100, 32), (120, 40)] {
        let mut h = opened(width, height);
        let expanded = h.scrollback_text();
        h.ctrl('f');
        let query = match &h.last().body {
            CommandBody::Story(query) => *query,
            other => panic!("the pane asks for a story page, not {other:?}"),
        };
        let (entries, turns) = session();
        h.event(EventBody::Story(StoryPage {
            page: TranscriptPage {
                begin: 1,
                end: 7,
                total: entries.len() as u64,
                entries: entries[0..6].to_vec(),
                query,
            },
            turns: turns[0..2].to_vec(),
        }));
        let seen = paged_pane(&mut h).join("\n");
        for row in ["✓ read", "README.md", "12 lines", "! exec", "✓ edit"] {
            assert!(
                seen.contains(row),
                "{width}×{height}: `{row}` never shown while paging:\n{seen}"
            );
        }
        let pane: Vec<String> = h
            .app
            .pane_text(&h.app.history.entries, width)
            .iter()
            .map(super::super::tests::line_text)
            .collect();
        let text = pane.join("\n");
        let at = |needle: &str| {
            text.find(needle)
                .unwrap_or_else(|| panic!("{width}×{height}: `{needle}` missing in\n{text}"))
        };
        let order = [
            at("old question two"),
            at("✓ read"),
            at("README.md"),
            at("12 lines"),
            at("old answer two"),
            at("fix the failing test"),
            at("Let me run the tests first."),
            at("! exec"),
            at("test result: FAILED"),
            at("✓ edit"),
            at("a + b"),
            at("Fixed: the sign was wrong."),
        ];
        assert!(
            order.windows(2).all(|w| w[0] < w[1]),
            "{width}×{height}: out of order {order:?} in\n{text}"
        );
        // Turn 3's rows are the very rows its expanded exchange drew in the scrollback.
        let rows = |lines: &[String]| -> Vec<String> {
            let from = lines
                .iter()
                .position(|l| l.contains("! exec"))
                .unwrap_or_else(|| panic!("{width}×{height}: no exec row in {lines:#?}"));
            let to = lines
                .iter()
                .position(|l| l.contains("Fixed: the sign"))
                .unwrap_or_else(|| panic!("{width}×{height}: no answer in {lines:#?}"));
            lines[from..to].to_vec()
        };
        assert_eq!(rows(&pane), rows(&expanded), "{width}×{height}");
    }
}

#[test]
fn a_replayed_mcp_call_reads_like_its_live_row() {
    // Live, `ToolStatus` with a server makes the row `mcp everything echo`; the story has the
    // journaled name `mcp__everything__echo` and the same target.
    let steps = vec![tool(
        "m1",
        "mcp__everything__echo",
        Some("everything echo"),
        ToolPhase::Finished,
        ToolReport::new(ReportTone::Ok, "1 block, 33 bytes"),
    )];
    let turn = story(1, steps, TurnState::Done);
    let entries = vec![
        entry(1, 1, Role::User, "call mcp"),
        entry(2, 1, Role::Assistant, "done"),
    ];
    let h = Harness::new(60, 20, true);
    let replayed = replay_entries(entries, Some(&turn), false, h.app.now);
    let rows: Vec<(String, Option<String>)> = replayed
        .iter()
        .filter_map(|e| match e {
            Entry::Tool(line) => Some((line.name.clone(), line.target.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        rows,
        [("mcp".to_owned(), Some("everything echo".to_owned()))]
    );
}

#[test]
fn the_history_pane_draws_a_queued_turn_once_with_its_prompt_steps_and_answer_together() {
    // Seen at 60×20: `two` queued while `one` ran is journaled before one's answer, so the
    // transcript reads one, two, answer one, answer two; the pane drew `echo BRAVO` twice and
    // `echo ALPHA` twice, and both answers after both prompts.
    let exec = |call: &str, word: &str| {
        tool(
            call,
            "exec",
            Some(&format!("echo {word}")),
            ToolPhase::Finished,
            ToolReport::new(ReportTone::Ok, "exit 0"),
        )
    };
    let mut h = Harness::new(60, 20, true);
    h.app.history.stories.insert(
        RequestId(1),
        story(1, vec![exec("a", "ALPHA")], TurnState::Done),
    );
    h.app.history.stories.insert(
        RequestId(2),
        story(2, vec![exec("b", "BRAVO")], TurnState::Done),
    );
    let entries = vec![
        entry(1, 1, Role::User, "one"),
        entry(2, 2, Role::User, "two"),
        entry(3, 1, Role::Assistant, "answer one"),
        entry(4, 2, Role::Assistant, "answer two"),
    ];
    let text = h
        .app
        .pane_text(&entries, 60)
        .iter()
        .map(super::super::tests::line_text)
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(text.matches("echo ALPHA").count(), 1, "{text}");
    assert_eq!(text.matches("echo BRAVO").count(), 1, "{text}");
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle}: {text}"))
    };
    let order = [
        at("› one"),
        at("echo ALPHA"),
        at("answer one"),
        at("› two"),
        at("echo BRAVO"),
        at("answer two"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}\n{text}");
}

#[test]
fn a_reopened_session_replays_a_queued_turn_once_with_its_answer() {
    // Seen with `--continue` at 60×20 after `two` was queued behind `one`: the dialog showed
    // `› two`, BRAVO, ALPHA, `answer one`, BRAVO again, `answer two`, and no `› one`.
    let exec = |call: &str, word: &str| {
        tool(
            call,
            "exec",
            Some(&format!("echo {word}")),
            ToolPhase::Finished,
            ToolReport::new(ReportTone::Ok, "exit 0"),
        )
    };
    let entries = vec![
        entry(1, 1, Role::User, "one"),
        entry(2, 2, Role::User, "two"),
        entry(3, 1, Role::Assistant, "answer one"),
        entry(4, 2, Role::Assistant, "answer two"),
    ];
    let turns = vec![
        story(1, vec![exec("a", "ALPHA")], TurnState::Done),
        story(2, vec![exec("b", "BRAVO")], TurnState::Done),
    ];
    let mut h = Harness::new(60, 20, true);
    h.event(EventBody::Snapshot(snapshot_body(entries.len() as u64)));
    let query = match &h.last().body {
        CommandBody::Story(query) => *query,
        other => panic!("the opening asks for a story page, not {other:?}"),
    };
    h.event(EventBody::Story(StoryPage {
        page: TranscriptPage {
            begin: 1,
            end: 5,
            total: 4,
            entries,
            query,
        },
        turns,
    }));
    let text = h.scrollback_text().join("\n");
    assert_eq!(text.matches("echo ALPHA").count(), 1, "{text}");
    assert_eq!(text.matches("echo BRAVO").count(), 1, "{text}");
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle}: {text}"))
    };
    let order = [
        at("› one"),
        at("echo ALPHA"),
        at("answer one"),
        at("› two"),
        at("echo BRAVO"),
        at("answer two"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}\n{text}");
}

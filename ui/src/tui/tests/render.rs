//! Rendering tests: every view state as an insta snapshot of a ratatui `TestBackend` (the
//! live region) together with the scrollback the state has committed so far.

use ansa_sessions::protocol::{
    DiffLine, DiffSign, FileDiff, PreviewState, ReportTone, ToolPhase, ToolReport,
};
use ansa_sessions::{Role, TurnState};
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::Widget;

use super::super::theme::MINT;
use super::super::view;
use super::{Harness, entry, exchanges, line_text};

/// The live region drawn into a `TestBackend` of its exact size.
fn live_backend(h: &Harness) -> (Terminal<TestBackend>, Option<(u16, u16)>) {
    let live = view::live(&h.app);
    let height = u16::try_from(live.lines.len()).unwrap_or(u16::MAX);
    let backend = TestBackend::new(h.app.width, height);
    let mut terminal = Terminal::new(backend).unwrap();
    terminal
        .draw(|frame| {
            for (y, line) in (0..height).zip(&live.lines) {
                frame.render_widget(line.clone(), Rect::new(0, y, h.app.width, 1));
            }
        })
        .unwrap();
    (terminal, live.cursor)
}

/// Scrollback text, then the live region as the `TestBackend` shows it, then the cursor.
fn screen(h: &Harness) -> String {
    let (terminal, cursor) = live_backend(h);
    let scrollback = h.scrollback_text().join("\n");
    format!(
        "── scrollback ──\n{scrollback}\n── live region ──\n{}\ncursor: {cursor:?}",
        terminal.backend()
    )
}

#[test]
fn idle_empty() {
    let h = Harness::opened(60, 20, false, vec![]);
    insta::assert_snapshot!(screen(&h));
}

#[test]
fn opening_before_the_first_snapshot() {
    let h = Harness::new(60, 20, false);
    insta::assert_snapshot!(screen(&h));
}

#[test]
fn idle_with_history() {
    let mut entries = exchanges(4);
    entries.push(entry(
        9,
        Role::User,
        "explain the build, with a line that is long enough to wrap at sixty columns",
    ));
    entries.push(entry(
        10,
        Role::Assistant,
        "# Build\n\nRun `cargo build`, then:\n\n- **test** with `cargo test`\n- lint with clippy",
    ));
    let h = Harness::opened(60, 20, false, entries);
    insta::assert_snapshot!(screen(&h));
}

#[test]
fn typing_multi_line_input() {
    let mut h = Harness::opened(40, 20, false, vec![]);
    h.type_text("first line\nsecond line is long enough to wrap at forty columns, twice over");
    h.press(KeyCode::Left);
    insta::assert_snapshot!(screen(&h));
}

#[test]
fn running_with_tool_lines_and_preview() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    let request = h.submit_accepted("fix the failing test", 1);
    h.at(0.5);
    h.tool(request, "c1", "search", ToolPhase::Started);
    h.at(0.7);
    h.tool(request, "c1", "search", ToolPhase::Finished);
    h.tool(request, "c2", "exec", ToolPhase::Started);
    h.at(3.2);
    h.tool(request, "c3", "edit", ToolPhase::Started);
    h.preview(
        request,
        "The test fails because **`parse`** drops the last line:\n\n1. read the input\n2. split",
        PreviewState::Preview,
    );
    h.at(4.0);
    insta::assert_snapshot!(screen(&h));
}

#[test]
fn paused_with_reason() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    let request = h.submit_accepted("refactor the parser", 2);
    h.turn_state(
        request,
        TurnState::Paused,
        Some("the model failed: connection reset; nothing from it was used"),
    );
    insta::assert_snapshot!(screen(&h));
}

#[test]
fn cancelled_with_unfinished_fragment() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    let request = h.submit_accepted("write a poem", 1);
    h.preview(
        request,
        "Roses are red,\nviolets are",
        PreviewState::Preview,
    );
    h.ctrl('c');
    h.preview(
        request,
        "Roses are red,\nviolets are",
        PreviewState::Discarded,
    );
    h.turn_state(request, TurnState::Cancelled, Some("cancelled by the user"));
    h.type_text("typed input survives");
    insta::assert_snapshot!(screen(&h));
}

#[test]
fn plan_mode() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    h.press(KeyCode::Tab);
    insta::assert_snapshot!(screen(&h));
}

#[test]
fn status_panel() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    let _ = h.submit_accepted("task", 4);
    h.type_text("/status");
    h.press(KeyCode::Enter);
    insta::assert_snapshot!(screen(&h));
}

#[test]
fn history_pane() {
    let mut h = Harness::opened(60, 16, false, exchanges(6));
    h.ctrl('f');
    let query = match h.last().body.clone() {
        ansa_sessions::protocol::CommandBody::Story(q) => q,
        other => panic!("{other:?}"),
    };
    let all = exchanges(6);
    h.event(super::pane_page(ansa_sessions::TranscriptPage {
        begin: 1,
        end: 7,
        total: 12,
        entries: all[0..6].to_vec(),
        query,
    }));
    insta::assert_snapshot!(screen(&h));
}

#[test]
fn model_escape_sequences_never_reach_the_screen() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    h.app.on_paste("say \x1b]52;c;AAAA\x07hi");
    let request = h.submit_accepted("", 1);
    h.tool(request, "c1", "ex\x1b[1Aec", ToolPhase::Started);
    h.preview(
        request,
        "red \x1b[31mtext\x1b[0m\x1b[2J",
        PreviewState::Preview,
    );
    let (terminal, _) = live_backend(&h);
    let mut all = h.scrollback_text().join("\n");
    all.push_str(&format!("{}", terminal.backend()));
    assert!(!all.contains('\x1b'), "{all:?}");
    // Colour goes silently; every other sequence is shown, never interpreted.
    assert!(all.contains("red text␛[2J"), "{all}");
    assert!(all.contains("› say ␛]52;c;AAAA␇hi"), "{all}");
    assert!(all.contains("ex␛[1Aec"), "{all}");
}

fn styles(buffer: &Buffer) -> impl Iterator<Item = Style> + '_ {
    buffer.content.iter().map(|c| c.style())
}

fn scrollback_buffer(h: &Harness) -> Buffer {
    let mut buffer = Buffer::empty(Rect::new(0, 0, h.app.width, h.scrollback.len() as u16));
    for (y, line) in h.scrollback.iter().enumerate() {
        line.clone()
            .render(Rect::new(0, y as u16, h.app.width, 1), &mut buffer);
    }
    buffer
}

fn busy(plain: bool) -> Harness {
    let mut h = Harness::opened(60, 20, plain, exchanges(1));
    let request = h.submit_accepted("run **it**", 2);
    h.tool(request, "c1", "read", ToolPhase::Finished);
    h.tool(request, "c2", "exec", ToolPhase::Started);
    h.preview(
        request,
        "# Heading\n\n`code` and *em*",
        PreviewState::Preview,
    );
    h.press(KeyCode::Tab);
    h
}

#[test]
fn no_color_is_plain_text() {
    let h = busy(true);
    let (terminal, _) = live_backend(&h);
    for style in styles(terminal.backend().buffer()).chain(styles(&scrollback_buffer(&h))) {
        assert_eq!(style.fg, Some(Color::Reset), "{style:?}");
        assert_eq!(style.bg, Some(Color::Reset), "{style:?}");
        assert_eq!(style.add_modifier, Modifier::empty(), "{style:?}");
    }
    insta::assert_snapshot!(screen(&h));
    // The same state in colour has the mint accent and the same text.
    let coloured = busy(false);
    let (terminal, _) = live_backend(&coloured);
    assert!(styles(terminal.backend().buffer()).any(|s| s.fg == Some(MINT)));
    assert_eq!(screen(&coloured), screen(&h));
    assert!(
        coloured
            .scrollback
            .iter()
            .map(line_text)
            .eq(h.scrollback.iter().map(line_text))
    );
}

#[test]
fn the_live_region_fits_the_terminal_and_keeps_the_preview_tail() {
    let mut h = Harness::opened(30, 8, false, vec![]);
    let request = h.submit_accepted("long", 1);
    let text: Vec<String> = (1..=40).map(|i| format!("line {i}")).collect();
    h.preview(request, &text.join("\n\n"), PreviewState::Preview);
    let live = view::live(&h.app);
    assert!(live.lines.len() <= 8);
    let shown: Vec<String> = live.lines.iter().map(line_text).collect();
    assert!(shown.iter().any(|l| l == "line 40"), "{shown:?}");
    // The finished paragraphs moved into the dialog, so the start can be read already.
    let dialog = h.scrollback_text();
    assert!(dialog.iter().any(|l| l == "line 1"), "{dialog:?}");
    assert!(dialog.iter().any(|l| l == "line 39"), "{dialog:?}");
    assert!(
        !dialog.iter().any(|l| l == "line 40"),
        "the last block may still grow"
    );
}

#[test]
fn a_long_answer_streams_into_the_dialog_block_by_block_and_ends_once() {
    let mut h = Harness::opened(40, 10, false, vec![]);
    let request = h.submit_accepted("explain", 1);
    let paragraphs: Vec<String> = (1..=12).map(|i| format!("Paragraph {i}.")).collect();
    let mut text = String::new();
    for p in &paragraphs {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(p);
        h.preview(request, &text, PreviewState::Preview);
    }
    assert!(
        h.scrollback_text().iter().any(|l| l == "Paragraph 1."),
        "readable before the turn ends"
    );
    h.preview(request, &text, PreviewState::Committed);
    h.answer(request, &text);
    let dialog = h.scrollback_text();
    for p in &paragraphs {
        assert_eq!(
            dialog.iter().filter(|l| *l == p).count(),
            1,
            "{p} once: {dialog:#?}"
        );
    }
    let last = dialog.iter().position(|l| l == "Paragraph 12.").unwrap();
    assert!(
        dialog[last..].iter().any(|l| l.contains("answer complete")),
        "{dialog:#?}"
    );
}

#[test]
fn a_long_answer_that_breaks_off_is_marked_unfinished_after_its_streamed_part() {
    let mut h = Harness::opened(40, 10, false, vec![]);
    let request = h.submit_accepted("explain", 1);
    let text: String = (1..=12)
        .map(|i| format!("Part {i}."))
        .collect::<Vec<_>>()
        .join("\n\n");
    h.preview(request, &text, PreviewState::Preview);
    h.preview(request, &text, PreviewState::Discarded);
    h.turn_state(request, TurnState::Paused, Some("the model failed"));
    let dialog = h.scrollback_text();
    assert_eq!(dialog.iter().filter(|l| *l == "Part 1.").count(), 1);
    let last = dialog.iter().position(|l| l == "Part 12.").unwrap();
    assert!(
        dialog[last..].iter().any(|l| l == "(unfinished)"),
        "{dialog:#?}"
    );
}

#[test]
fn usage_reports_show_in_the_footer() {
    let mut h = Harness::opened(100, 20, false, vec![]);
    h.event(ansa_sessions::protocol::EventBody::Usage {
        request_id: ansa_sessions::RequestId(1),
        usage: ansa_sessions::protocol::SessionUsage {
            input_tokens: 12_000,
            output_tokens: 345,
            cached_tokens: 0,
        },
    });
    let live = view::live(&h.app);
    let footer = line_text(live.lines.last().unwrap());
    assert!(
        footer.contains("basic · idle · 12.0k in (0 cached) · 345 out"),
        "{footer}"
    );
}

fn sandbox(refused: Option<&str>) -> crate::tui::SandboxInfo {
    crate::tui::SandboxInfo {
        mode: "workspace-write".into(),
        landlock_abi: Some(7),
        description: "writes only under /home/dev/project, /tmp; network off".into(),
        refused: refused.map(str::to_owned),
    }
}

#[test]
fn the_footer_and_status_show_the_sandbox_and_its_abi() {
    let mut h = Harness::opened(100, 24, false, vec![]);
    let footer = |h: &Harness| line_text(view::live(&h.app).lines.last().unwrap());
    assert!(!footer(&h).contains("sandbox"), "off says nothing");
    h.app.sandbox = sandbox(None);
    assert!(
        footer(&h).contains("basic · idle · sandbox workspace-write · Landlock ABI 7"),
        "{}",
        footer(&h)
    );
    h.app.sandbox = sandbox(Some("needs Landlock ABI 6, this kernel has ABI 3"));
    assert!(
        footer(&h).contains("sandbox workspace-write unavailable: commands refused"),
        "{}",
        footer(&h)
    );
    h.type_text("/status");
    h.press(KeyCode::Enter);
    let text = screen(&h);
    assert!(
        text.contains("sandbox  workspace-write · Landlock ABI 7 · NOT ENFORCEABLE"),
        "{text}"
    );
}

fn report(tone: ReportTone, summary: &str) -> ToolReport {
    ToolReport::new(tone, summary)
}

#[test]
fn tool_rows_say_how_each_call_went() {
    let mut h = Harness::opened(72, 24, false, vec![]);
    let request = h.submit_accepted("make the tests pass", 1);
    h.tool_call(
        request,
        "c1",
        "search",
        Some("parse_line"),
        report(ReportTone::Ok, "12 matches in 4 files"),
    );
    let mut failed = report(ReportTone::Warn, "exit 2");
    failed.tail = vec![
        "test parse::tests::last_line ... FAILED".into(),
        "failures: 1".into(),
        "error: test failed, to rerun pass `--lib`".into(),
    ];
    failed.cut = true;
    h.tool_call(request, "c2", "exec", Some("cargo test"), failed);
    h.tool_call(
        request,
        "c3",
        "exec",
        Some("sleep 100"),
        report(ReportTone::Warn, "cancelled"),
    );
    h.tool_call(
        request,
        "c4",
        "edit",
        Some("src/app.py"),
        ToolReport::failed("edits[0].old was not found in src/app.py as last read"),
    );
    let mut edited = report(ReportTone::Ok, "+2 −1");
    edited.diffs = vec![FileDiff {
        path: "src/parse.rs".into(),
        added: 2,
        removed: 1,
        lines: vec![
            DiffLine {
                sign: DiffSign::Removed,
                text: "    lines.pop();".into(),
            },
            DiffLine {
                sign: DiffSign::Added,
                text: "    // keep the last line".into(),
            },
            DiffLine {
                sign: DiffSign::Added,
                text: "    lines.retain(|l| !l.is_empty());".into(),
            },
        ],
    }];
    h.tool_call(request, "c5", "edit", Some("src/parse.rs"), edited);
    let mut moved = report(ReportTone::Ok, "2 actions");
    moved.actions = vec!["create notes.md".into(), "move a.txt → b.txt".into()];
    h.tool_call(request, "c6", "files", None, moved);
    insta::assert_snapshot!(screen(&h));

    let style_of = |needle: &str| {
        h.scrollback
            .iter()
            .flat_map(|l| l.spans.iter())
            .find(|s| s.content.contains(needle))
            .map(|s| s.style)
            .unwrap_or_else(|| panic!("no span with {needle:?}"))
    };
    assert_eq!(
        style_of("exit 2").fg,
        Some(Color::Yellow),
        "a nonzero exit is a result, in amber"
    );
    assert_eq!(style_of("cancelled").fg, Some(Color::Yellow));
    assert_eq!(
        style_of("was not found").fg,
        Some(Color::Red),
        "a failure says why, in red"
    );
    assert_eq!(style_of("keep the last line").fg, Some(Color::Green));
    assert_eq!(style_of("lines.pop()").fg, Some(Color::Red));
    assert!(
        style_of("failures: 1").add_modifier.contains(Modifier::DIM),
        "output lines are dimmed"
    );
}

#[test]
fn the_models_commentary_before_tool_calls_stays_in_the_dialog() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    let request = h.submit_accepted("fix it", 1);
    h.preview(
        request,
        "I will look at the parser first.",
        PreviewState::Preview,
    );
    h.preview(
        request,
        "I will look at the parser first.",
        PreviewState::Committed,
    );
    h.tool_call(
        request,
        "c1",
        "read",
        Some("src/parse.rs"),
        report(ReportTone::Ok, "120 lines"),
    );
    h.preview(request, "The bug is on line 3.", PreviewState::Preview);
    h.answer(request, "Fixed: the parser kept the last line.");
    let text = h.scrollback_text();
    let at = |needle: &str| {
        text.iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle:?} not in {text:#?}"))
    };
    assert!(at("fix it") < at("I will look at the parser first."));
    assert!(at("I will look at the parser first.") < at("read"));
    assert!(at("read") < at("Fixed: the parser"));
    assert_eq!(
        text.iter()
            .filter(|l| l.contains("I will look at the parser"))
            .count(),
        1,
        "committed once"
    );
}

#[test]
fn a_retry_shows_how_long_why_and_which_attempt_until_the_turn_moves_on() {
    let mut h = Harness::opened(72, 20, false, vec![]);
    let request = h.submit_accepted("explain", 1);
    h.event(ansa_sessions::protocol::EventBody::Retrying {
        request_id: request,
        attempt: 2,
        of: 4,
        delay_ms: 2_500,
        reason: "429 Too Many Requests".into(),
    });
    let shown = |h: &Harness| {
        let live = view::live(&h.app);
        live.lines
            .iter()
            .map(super::line_text)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        shown(&h).contains("429 Too Many Requests, retrying 1 of 3 in 2.5 s"),
        "{}",
        shown(&h)
    );
    h.at(1.2);
    // The countdown is the wait left, to a tenth: never more than the run will take.
    assert!(
        shown(&h).contains("retrying 1 of 3 in 1.3 s"),
        "{}",
        shown(&h)
    );
    h.preview(request, "Here", PreviewState::Preview);
    assert!(!shown(&h).contains("retrying"), "{}", shown(&h));
}

#[test]
fn typing_a_slash_lists_the_commands_and_tab_completes() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    h.type_text("/");
    insta::assert_snapshot!(screen(&h));
    h.type_text("st");
    let live = view::live(&h.app);
    let text: Vec<String> = live.lines.iter().map(super::line_text).collect();
    assert!(
        text.iter()
            .any(|l| l.contains("/status") && l.contains("tokens"))
    );
    assert!(!text.iter().any(|l| l.contains("/resume")), "{text:#?}");
    h.press(KeyCode::Tab);
    assert_eq!(h.app.input.text(), "/status");
    assert_eq!(
        h.app.mode,
        ansa_sessions::Mode::Basic,
        "Tab completed, not a mode switch"
    );
    h.press(KeyCode::Enter);
    assert!(h.app.status_open);
}

#[test]
fn the_most_useful_footer_hints_survive_at_sixty_columns() {
    let footer = |h: &Harness| {
        let live = view::live(&h.app);
        super::line_text(live.lines.last().unwrap())
    };
    let mut h = Harness::opened(60, 20, false, vec![]);
    let idle = footer(&h);
    assert!(
        idle.contains("Enter send") && idle.contains("/ commands"),
        "{idle}"
    );
    h.submit_accepted("work", 1);
    let running = footer(&h);
    assert!(
        running.contains("Ctrl+C cancel") && running.contains("Ctrl+O output"),
        "{running}"
    );
    assert!(running.chars().count() <= 60);
}

#[test]
fn a_reasoning_summary_shows_dimmed_while_the_model_thinks_and_is_never_kept() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    let request = h.submit_accepted("why", 1);
    h.event(ansa_sessions::protocol::EventBody::ReasoningPreview {
        request_id: request,
        generation: 1,
        text: "The user asks why; check the parser first.".into(),
    });
    let live = view::live(&h.app);
    let line = live
        .lines
        .iter()
        .find(|l| super::line_text(l).contains("thinking: The user asks why"))
        .expect("the summary is shown");
    let text_span = line
        .spans
        .iter()
        .find(|s| s.content.contains("parser"))
        .unwrap();
    assert!(text_span.style.add_modifier.contains(Modifier::DIM));
    h.tool(request, "c1", "read", ToolPhase::Started);
    let live = view::live(&h.app);
    assert!(
        !live
            .lines
            .iter()
            .any(|l| super::line_text(l).contains("thinking:")),
        "gone once the tool calls start"
    );
    h.answer(request, "Because.");
    assert!(
        !h.scrollback_text()
            .iter()
            .any(|l| l.contains("parser first"))
    );
}

#[test]
fn a_long_open_code_fence_is_held_until_it_closes_then_streams_on() {
    let mut h = Harness::opened(60, 12, false, vec![]);
    let request = h.submit_accepted("code", 1);
    let mut text = String::from("```rust\n");
    for n in 1..=100 {
        text.push_str(&format!("let x{n} = {n};\n"));
        h.preview(request, &text, PreviewState::Preview);
    }
    assert!(
        !h.scrollback_text().iter().any(|l| l.contains("let x1 =")),
        "an open fence is one unfinished block"
    );
    text.push_str("```\n");
    for n in 1..=60 {
        text.push_str(&format!("\nParagraph {n}.\n"));
        h.preview(request, &text, PreviewState::Preview);
    }
    let dialog = h.scrollback_text();
    assert!(
        dialog.iter().any(|l| l.contains("let x100 = 100;")),
        "{dialog:#?}"
    );
    h.answer(request, &text);
    let dialog = h.scrollback_text();
    assert_eq!(
        dialog
            .iter()
            .filter(|l| l.contains("let x50 = 50;"))
            .count(),
        1
    );
    assert_eq!(
        dialog
            .iter()
            .filter(|l| l.trim() == "Paragraph 60.")
            .count(),
        1
    );
}

fn approval_request(request: ansa_sessions::RequestId) -> ansa_sessions::protocol::ApprovalRequest {
    ansa_sessions::protocol::ApprovalRequest {
        request_id: request,
        call_id: ansa_sessions::CallId("c9".into()),
        tool: "edit".into(),
        action: "v:1\no:p".into(),
        digest: "ab".repeat(32),
        summary: "edit src/parse.rs (+1 −1)".into(),
        argv: Vec::new(),
        cwd: None,
        diffs: vec![FileDiff {
            path: "src/parse.rs".into(),
            added: 1,
            removed: 1,
            lines: vec![
                DiffLine {
                    sign: DiffSign::Removed,
                    text: "let last = lines.len() - 1;".into(),
                },
                DiffLine {
                    sign: DiffSign::Added,
                    text: "let last = lines.len();".into(),
                },
            ],
        }],
        actions: Vec::new(),
        env: Vec::new(),
        stdin: None,
        created: Vec::new(),
        withheld: None,
        outside_sandbox: false,
    }
}

#[test]
fn an_approval_shows_every_control_character_of_what_it_asks_about() {
    let mut h = Harness::opened(120, 24, false, vec![]);
    let request = h.submit_accepted("go", 1);
    let mut asked = approval_request(request);
    asked.summary = "run sh -c touch PWNED; #\x1b[2K\x1b[1A\x1b[2Kecho hello".into();
    asked.argv = vec![
        "sh".into(),
        "-c".into(),
        "touch PWNED; #\x1b[2K\x1b[1A\x1b[2Kecho hello".into(),
    ];
    asked.diffs[0].lines[1].text = "let last = \x1b[31mlines.len();\tx".into();
    h.event(ansa_sessions::protocol::EventBody::ApprovalRequired(
        Box::new(asked),
    ));
    let shown = screen(&h);
    assert!(!shown.contains('\x1b'), "{shown}");
    assert!(
        shown.contains("approve? run sh -c touch PWNED; #␛[2K␛[1A␛[2Kecho hello"),
        "{shown}"
    );
    assert!(shown.contains("#␛[2K␛[1A␛[2Kecho hello"), "{shown}");
    // In an approval even colour and tabs are shown.
    assert!(shown.contains("let last = ␛[31mlines.len();→x"), "{shown}");
}

#[test]
fn an_approval_shows_the_diff_and_its_keys_and_keeps_the_input() {
    let mut h = Harness::opened(64, 20, false, vec![]);
    let request = h.submit_accepted("fix the parser", 1);
    h.type_text("next: docs");
    h.event(ansa_sessions::protocol::EventBody::ApprovalRequired(
        Box::new(approval_request(request)),
    ));
    h.at(1.0);
    insta::assert_snapshot!("approval_waiting", screen(&h));
    h.type_text("n");
    h.type_text("use saturating_sub");
    insta::assert_snapshot!("approval_reason", screen(&h));
}

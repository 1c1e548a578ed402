//! The output viewer (Ctrl+O) at 60×20, 100×32 and 120×40: a command's output in the readable
//! view (escape sequences gone, long lines wrapped with line numbers, never cut), the model's
//! ASON only after Tab, and a running command's output so far asked for again while it runs.

use ansa_sessions::protocol::{CommandBody, EventBody, ToolPhase};
use ansa_sessions::{CallId, OutputView, RequestId, ToolOutputPage, ToolOutputQuery};
use crossterm::event::KeyCode;

use super::{Harness, line_text};
use crate::tui::view;

fn page(call: &str, view: OutputView, running: bool, lines: Vec<String>) -> EventBody {
    EventBody::ToolOutput(ToolOutputPage {
        call_id: CallId(call.to_owned()),
        tool: "exec".into(),
        offset: 0,
        total: lines.len() as u64,
        lines,
        truncated: false,
        view,
        running,
        query: ToolOutputQuery {
            call_id: None,
            offset: 0,
            limit: 200,
            view,
        },
    })
}

fn asked(h: &Harness) -> ToolOutputQuery {
    match &h.last().body {
        CommandBody::ToolOutput(query) => query.clone(),
        other => panic!("{other:?}"),
    }
}

fn shown(h: &Harness) -> Vec<String> {
    view::live(&h.app).lines.iter().map(line_text).collect()
}

/// A command's readable output: coloured, with a line far wider than any terminal.
fn readable_output() -> Vec<String> {
    let mut lines = vec!["$ cargo test".to_owned(), "── stdout".to_owned()];
    for n in 1..=5 {
        lines.push(format!("\u{1b}[32mtest case_{n} ... ok\u{1b}[0m"));
    }
    let long: String = (1..=40).map(|n| format!("w{n} ")).collect();
    lines.push(format!("{long}TAILWORD"));
    lines
}

fn started(h: &mut Harness) -> RequestId {
    let request = h.submit_accepted("run the tests", 1);
    h.tool(request, "c1", "exec", ToolPhase::Started);
    request
}

#[test]
fn the_viewer_shows_readable_output_wrapped_and_numbered_and_ason_only_after_tab() {
    for (width, height) in [(60, 20), (100, 32), (120, 40)] {
        let mut h = Harness::opened(width, height, true, vec![]);
        let request = started(&mut h);
        h.tool(request, "c1", "exec", ToolPhase::Finished);
        h.answer(request, "done");
        h.ctrl('o');
        let query = asked(&h);
        assert_eq!(query.view, OutputView::Readable, "readable first");
        assert_eq!(query.call_id, Some(CallId("c1".into())));
        h.event(page("c1", OutputView::Readable, false, readable_output()));
        let lines = shown(&h);
        let all = lines.join("\n");
        assert!(!all.contains('\u{1b}') && !all.contains('␛'), "{all}");
        assert!(
            lines
                .iter()
                .all(|l| l.chars().count() <= usize::from(width)),
            "{lines:#?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.trim_start() == "3 test case_1 ... ok"),
            "{lines:#?}"
        );
        // The long line is wrapped under its number (continuation rows under a blank gutter),
        // none of it cut.
        let at = lines
            .iter()
            .position(|l| l.starts_with("8 w1 "))
            .unwrap_or_else(|| panic!("{lines:#?}"));
        let mut joined = lines[at][2..].to_owned();
        for row in lines[at + 1..].iter().take_while(|l| l.starts_with("  ")) {
            joined.push_str(&row[2..]);
        }
        assert_eq!(joined, readable_output()[7], "at {width}");
        assert!(
            lines[at + 1].starts_with("  "),
            "wrapped at {width}: {lines:#?}"
        );
        assert!(lines[0].contains("readable"), "{lines:#?}");
        // Tab: what the model got, asked for explicitly.
        h.press(KeyCode::Tab);
        let query = asked(&h);
        assert_eq!(query.view, OutputView::Model);
        h.event(page(
            "c1",
            OutputView::Model,
            false,
            vec!["s:0 d{k,c,ms}".into()],
        ));
        let lines = shown(&h);
        assert!(
            lines.iter().any(|l| l.contains("s:0 d{k,c,ms}")),
            "{lines:#?}"
        );
        assert!(
            format!("{} {}", lines[0], lines[1]).contains("what the model got"),
            "{lines:#?}"
        );
        h.press(KeyCode::Tab);
        assert_eq!(asked(&h).view, OutputView::Readable);
    }
}

#[test]
fn the_viewer_follows_a_running_command() {
    for (width, height) in [(60, 20), (100, 32), (120, 40)] {
        let mut h = Harness::opened(width, height, true, vec![]);
        started(&mut h);
        h.ctrl('o');
        assert_eq!(asked(&h).view, OutputView::Readable);
        let so_far: Vec<String> = (1..=30).map(|n| format!("building step {n}")).collect();
        h.event(page("c1", OutputView::Readable, true, so_far));
        let lines = shown(&h);
        let title = format!("{} {}", lines[0], lines[1]);
        assert!(title.contains("running, output so far"), "{lines:#?}");
        assert!(
            lines.iter().any(|l| l.contains("building step 30")),
            "the end is in view: {lines:#?}"
        );
        // Asked again while it runs, not more often than every 300 ms.
        let sent = h.sent.len();
        let tick = h.app.on_tick();
        assert!(tick.is_empty(), "too soon");
        h.at(1.0);
        let tick = h.app.on_tick();
        assert_eq!(tick.len(), 1, "asked again");
        assert_eq!(h.sent.len(), sent);
    }
}

/// The title's `lines X–Y of N`.
fn title(h: &Harness) -> String {
    shown(h).join(" ")
}

#[test]
fn the_title_counts_lines_of_the_whole_output_and_end_and_home_jump() {
    use super::keys::output_page;
    use crate::tui::viewer::OUTPUT_PAGE_LINES;
    for (width, height) in [(60, 20), (100, 32), (120, 40)] {
        let mut h = Harness::opened(width, height, true, vec![]);
        let lines: Vec<String> = (1..=450)
            .map(|n| format!("line {n} of the build, long enough to wrap at sixty columns: {n}"))
            .collect();
        h.ctrl('o');
        h.event(output_page("c7", 0, 450, &lines[..200], OUTPUT_PAGE_LINES));
        assert!(title(&h).contains("lines 1–"), "{width}: {}", title(&h));
        assert!(title(&h).contains(" of 450 "), "{width}: {}", title(&h));
        // Paging on loads the next page; N stays the whole output's.
        while h.app.output.lines.len() == 200 {
            h.press(KeyCode::PageDown);
            if let CommandBody::ToolOutput(q) = h.last().body.clone()
                && q.offset == 200
            {
                h.event(output_page(
                    "c7",
                    200,
                    450,
                    &lines[200..400],
                    OUTPUT_PAGE_LINES,
                ));
            }
        }
        assert!(title(&h).contains(" of 450 "), "{width}: {}", title(&h));
        // End: the last page, fetched when it is not loaded.
        h.press(KeyCode::End);
        let q = asked(&h);
        assert_eq!(q.offset, 450 - u64::from(OUTPUT_PAGE_LINES), "{width}");
        h.event(output_page(
            "c7",
            q.offset,
            450,
            &lines[q.offset as usize..],
            OUTPUT_PAGE_LINES,
        ));
        let t = title(&h);
        assert!(t.contains("–450 of 450"), "{width}: {t}");
        assert!(
            shown(&h)
                .iter()
                .any(|l| l.contains("line 450 of the build")),
            "{width}"
        );
        // PgUp at the top of what is loaded brings in the lines before it.
        let top_line = |h: &Harness| {
            let t = title(h);
            let at = t.find("lines ").unwrap() + 6;
            t[at..].split('–').next().unwrap().parse::<u64>().unwrap()
        };
        while h.app.output.top > 0 {
            h.press(KeyCode::PageUp);
        }
        let before = top_line(&h);
        h.press(KeyCode::PageUp);
        let q = asked(&h);
        assert_eq!(q.offset + u64::from(q.limit), h.app.output.first, "{width}");
        h.event(output_page(
            "c7",
            q.offset,
            450,
            &lines[q.offset as usize..h.app.output.first as usize],
            q.limit,
        ));
        assert!(top_line(&h) < before, "{width}: {}", title(&h));
        assert!(title(&h).contains(" of 450 "), "{width}");
        // Home: the first page.
        h.press(KeyCode::Home);
        let q = asked(&h);
        assert_eq!(q.offset, 0, "{width}");
        h.event(output_page("c7", 0, 450, &lines[..200], OUTPUT_PAGE_LINES));
        assert!(title(&h).contains("lines 1–"), "{width}: {}", title(&h));
        assert!(
            shown(&h)
                .iter()
                .any(|l| l.contains("1 line 1 of the build")),
            "{width}"
        );
    }
}

#[test]
fn a_running_commands_title_says_running_instead_of_a_growing_count() {
    let mut h = Harness::opened(60, 20, true, vec![]);
    h.ctrl('o');
    let lines: Vec<String> = (1..=30).map(|n| format!("line {n}")).collect();
    h.event(page("c1", OutputView::Readable, true, lines));
    let t = title(&h);
    assert!(t.contains("running, output so far"), "{t}");
    assert!(!t.contains(" of 30"), "{t}");
}

//! Issue 45 in the TUI: an MCP call's row reads `mcp SERVER TOOL`, `/mcp` lists the servers
//! (escape sequences from a server shown, never obeyed), and a server that goes down is
//! warned about once.

use ansa_sessions::protocol::{
    CommandBody, EventBody, McpServerRow, McpServerState, McpServers, ReportTone, ToolPhase,
    ToolReport,
};
use ansa_sessions::{CallId, OutputView, ToolOutputPage, ToolOutputQuery};
use crossterm::event::KeyCode;

use super::Harness;

fn flat(h: &Harness) -> String {
    h.scrollback_text()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn row(name: &str, state: McpServerState, tools: usize, error: Option<&str>) -> McpServerRow {
    McpServerRow {
        name: name.into(),
        state,
        tools,
        last_error: error.map(str::to_owned),
    }
}

/// A turn whose one call, `c1`, is server-everything's echo: started, then finished with
/// `report`.
fn echo_call(h: &mut Harness, report: Option<ToolReport>) {
    let rid = h.submit_accepted("echo", 1);
    for (status, report) in [(ToolPhase::Started, None), (ToolPhase::Finished, report)] {
        h.event(EventBody::ToolStatus {
            request_id: rid,
            call_id: CallId("c1".into()),
            tool: "mcp__everything__echo".into(),
            target: (status == ToolPhase::Started).then(|| "everything echo".into()),
            status,
            report,
            server: Some("everything".into()),
        });
    }
    h.answer(rid, "done");
}

#[test]
fn an_mcp_call_row_names_the_server_and_tool() {
    let mut h = Harness::opened(100, 30, false, vec![]);
    echo_call(
        &mut h,
        Some(ToolReport::new(ReportTone::Ok, "1 block, 9 bytes")),
    );
    let text = flat(&h);
    assert!(text.contains("mcp everything echo"), "{text}");
    assert!(!text.contains("mcp__everything__echo"), "{text}");
    assert!(text.contains("1 block, 9 bytes"), "{text}");
}

#[test]
fn slash_mcp_lists_servers_and_a_server_going_down_is_warned_once() {
    let mut h = Harness::opened(100, 30, false, vec![]);
    h.type_text("/mcp");
    h.press(KeyCode::Enter);
    assert!(
        matches!(h.last().body, CommandBody::McpStatus),
        "{:?}",
        h.last().body
    );
    h.event(EventBody::McpServers(McpServers {
        servers: vec![
            row("everything", McpServerState::Ready, 13, None),
            row(
                "hang",
                McpServerState::Failed,
                0,
                Some("no answer \u{1b}[31mwithin 1500 ms"),
            ),
        ],
    }));
    let text = flat(&h);
    assert!(text.contains("2 MCP servers:"), "{text}");
    assert!(text.contains("mcp everything · ready · 13 tools"), "{text}");
    assert!(
        text.contains("mcp hang · failed · 0 tools · last error: no answer"),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}'),
        "escapes are shown, not obeyed: {text}"
    );

    // Unasked: a server newly down is warned about, once.
    let down = McpServers {
        servers: vec![
            row(
                "everything",
                McpServerState::Exited,
                0,
                Some("exited: signal 9"),
            ),
            row("hang", McpServerState::Failed, 0, None),
        ],
    };
    h.event(EventBody::McpServers(down.clone()));
    h.event(EventBody::McpServers(down));
    let text = flat(&h);
    assert_eq!(text.matches("mcp everything · exited").count(), 1, "{text}");
}

#[test]
fn the_viewer_titles_an_mcp_call_as_its_row_reads() {
    let mut h = Harness::opened(60, 20, false, vec![]);
    echo_call(&mut h, None);
    h.ctrl('o');
    h.event(EventBody::ToolOutput(ToolOutputPage {
        call_id: CallId("c1".into()),
        tool: "mcp__everything__echo".into(),
        offset: 0,
        total: 1,
        lines: vec!["Echo: hi".into()],
        truncated: false,
        view: OutputView::Readable,
        running: false,
        query: ToolOutputQuery {
            call_id: Some(CallId("c1".into())),
            offset: 0,
            limit: 200,
            view: OutputView::Readable,
        },
    }));
    let shown: Vec<String> = crate::tui::view::live(&h.app)
        .lines
        .iter()
        .map(super::line_text)
        .collect();
    let text = shown.join(" ");
    assert!(
        text.contains("── mcp everything echo · readable · lines 1–1 of 1"),
        "{shown:#?}"
    );
    assert!(!text.contains("mcp__"), "{shown:#?}");
    assert!(shown.iter().all(|l| l.chars().count() <= 60), "{shown:#?}");
}

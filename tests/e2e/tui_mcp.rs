//! MCP in the TUI (issue 45) in a real terminal (tmux), at 60×20 and 120×40, against the real
//! npm reference servers: a call's row reads `mcp SERVER TOOL` with its status, summary and
//! the tail of its result; Ctrl+O pages a long result readably (no escaped JSON wall) and
//! ←/→ reach the other call; Esc closes the viewer; `/mcp` lists each server with its state
//! and tool count; a server that cannot start is a warning line naming it, shown as it fails
//! (before any request).

use serde_json::json;

use crate::harness::{World, eventually};
use crate::mcp::{call, everything, filesystem, marker, user_config};
use crate::processes::alive_with;
use crate::tmux::{Tmux, fits};

/// The screen's words joined by single spaces: a line the TUI wrapped reads whole.
fn flat(screen: &str) -> String {
    screen.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first and last line the viewer's title says it shows (`lines A–B of N`).
fn lines_shown(screen: &str) -> (u64, u64) {
    let text = flat(screen);
    let range = text
        .split(" · lines ")
        .nth(1)
        .and_then(|rest| rest.split(" of ").next())
        .unwrap_or_else(|| panic!("no viewer title: {screen}"));
    let (first, last) = range
        .split_once('–')
        .unwrap_or_else(|| panic!("no range in {range:?}: {screen}"));
    (first.parse().unwrap(), last.parse().unwrap())
}

fn mcp_in_the_tui_at(width: u16, height: u16) {
    let w = World::new();
    let marker = marker(&w);
    let root = w.ws();
    let big: String = (1..=3000)
        .map(|n| format!("line {n} of the big file\n"))
        .collect();
    std::fs::write(root.join("big.txt"), &big).unwrap();
    user_config(
        &w,
        json!({
            "everything": everything(&marker),
            "fs": filesystem(&root),
            "broken": {"command": "ansa-no-such-mcp-server"},
            "quits": {"command": "sh", "args": ["-c", format!("exit 3; : {marker}")]}
        }),
        json!({}),
    );
    let script = w.script(
        "mcp.json",
        json!([
            {"tool_calls": [
                call("mcp__everything__echo", json!({"message": "hello from the tui"})),
                call("mcp__fs__read_text_file", json!({"path": root.join("big.txt").display().to_string()}))
            ]},
            {"text": "both servers answered"}
        ]),
    );
    let t = Tmux::start(
        &w,
        &["--offline", "--script", script.to_str().unwrap()],
        width,
        height,
    );
    t.wait_text("basic · idle");
    // Servers that cannot start are warned about as they fail, before anything is asked:
    // one that cannot be run at all, and one that exits as it starts (after the first frame).
    let screen = t.wait_for("both failures warned", |s| {
        let text = flat(s);
        text.contains("! mcp broken · failed · 0 tools · last error: cannot run")
            && text.contains("! mcp quits · failed · 0 tools · last error:")
    });
    assert!(
        screen.contains("basic · idle") && !screen.contains("use the servers"),
        "{screen}"
    );
    t.type_text("use the servers");
    t.keys(&["Enter"]);
    let screen = t.wait_text("both servers answered");
    fits(&t.screen(), width);
    let text = flat(&screen);
    // The rows: server and tool named, finished, summary, and the result's last lines.
    assert!(
        text.contains("✓ mcp everything echo 1 block, 24 bytes"),
        "{width}×{height}:\n{screen}"
    );
    assert!(
        text.contains("Echo: hello from the tui"),
        "the tail: {screen}"
    );
    // server-filesystem sends the text, and again as `{"content": …}`: the model gets both.
    let bytes = big.len()
        + "structured content (JSON):\n".len()
        + json!({"content": big}).to_string().len();
    assert!(
        text.contains(&format!("✓ mcp fs read_text_file 1 block, {bytes} bytes")),
        "{width}×{height}:\n{screen}"
    );
    assert!(
        text.contains(
            "… 2997 more lines (Ctrl+O) line 2998 of the big file line 2999 of the big file \
             line 3000 of the big file output cut for the model; Ctrl+O shows it all"
        ),
        "{width}×{height}:\n{screen}"
    );
    assert!(
        !screen.contains("mcp__"),
        "rows never show offered names: {screen}"
    );
    // The servers that cannot start: one warning line each, naming it and why.
    assert_eq!(
        text.matches("! mcp broken · failed · 0 tools · last error: cannot run")
            .count(),
        1,
        "{width}×{height}:\n{screen}"
    );
    assert_eq!(
        text.matches("! mcp quits · failed").count(),
        1,
        "{width}×{height}:\n{screen}"
    );
    assert!(
        text.contains("`ansa-no-such-mcp-server`: command not found"),
        "{screen}"
    );

    // Ctrl+O: the latest call's result, readable and paged.
    t.keys(&["C-o"]);
    let screen = t.wait_for("the viewer on the read", |s| {
        flat(s).contains("── mcp fs read_text_file · readable · lines 1–")
    });
    let view = t.screen();
    fits(&view, width);
    assert!(
        flat(&screen).contains("of 3001 · call 2 of 2 ←/→"),
        "{screen}"
    );
    assert!(view.contains("line 1 of the big file"), "{view}");
    // End: the last page is the file's end and one line for the structured copy of it, not
    // the copy as one escaped line wrapped over thousands of rows.
    t.keys(&["End"]);
    t.wait_for("the last page", |s| flat(s).contains("–3001 of 3001"));
    let view = t.screen();
    fits(&view, width);
    assert!(view.contains("3000 line 3000 of the big file"), "{view}");
    assert!(
        flat(&view).contains("3001 structured content (JSON): the same as the text above"),
        "{view}"
    );
    assert!(!view.contains("\\n"), "no escaped text: {view}");
    // PgUp pages back: the lines just above the last page, numbered as the title says.
    let (_, last) = lines_shown(&view);
    t.keys(&["PPage"]);
    let view = t.wait_for("the page before", |s| lines_shown(s).1 < last);
    let (first, last) = lines_shown(&view);
    assert!(first > 2900 && last > first, "{view}");
    for n in [first, last] {
        assert!(
            view.contains(&format!("{n} line {n} of the big file")),
            "{view}"
        );
    }
    // ← the echo call.
    t.keys(&["Left"]);
    let view = t.wait_for("the echo call", |s| {
        flat(s).contains("── mcp everything echo · readable · lines 1–1 of 1 · call 1 of 2")
    });
    assert!(view.contains("1 Echo: hello from the tui"), "{view}");
    fits(&t.screen(), width);
    // Esc closes it.
    t.keys(&["Escape"]);
    t.wait_for("the viewer closed", |s| {
        !s.contains("── mcp everything echo") && s.contains("Enter send")
    });

    // `/mcp`: every server, its state and tool count; the broken one with its error.
    // (Typed right after Escape, `/` would reach the TUI as Alt+/.)
    std::thread::sleep(std::time::Duration::from_millis(300));
    t.type_text("/mcp");
    t.keys(&["Enter"]);
    let screen = t.wait_text("4 MCP servers:");
    fits(&t.screen(), width);
    let text = flat(&screen);
    assert!(
        text.contains("4 MCP servers: ! mcp broken · failed · 0 tools · last error: cannot run"),
        "{width}×{height}:\n{screen}"
    );
    assert!(
        text.contains("· mcp everything · ready · 13 tools"),
        "{width}×{height}:\n{screen}"
    );
    assert!(
        text.contains("· mcp fs · ready · 14 tools ! mcp quits · failed · 0 tools"),
        "{width}×{height}:\n{screen}"
    );
    assert_eq!(alive_with(&marker).len(), 1, "the everything server runs");
    // The servers stop with the TUI.
    t.type_text("/exit");
    t.keys(&["Enter"]);
    t.wait_text("[ansa exited 0]");
    eventually("the server to stop with the TUI", || {
        alive_with(&marker).is_empty()
    });
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn mcp_rows_output_and_servers_at_60_by_20() {
    mcp_in_the_tui_at(60, 20);
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn mcp_rows_output_and_servers_at_120_by_40() {
    mcp_in_the_tui_at(120, 40);
}

//! server-everything over stdio: echo, add, an image, a tool error; the tool rows name the
//! server, the journal keeps the name mapping and every call's intent and outcome, and the
//! server is gone when the session ends.

use serde_json::json;

use super::{call, everything, finished, outcomes, session, user_config};
use crate::harness::{World, journal_text, only_session_dir};
use crate::processes::alive_with;

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn echo_add_image_and_a_tool_error_through_the_real_server() {
    let w = World::new();
    let marker = super::marker(&w);
    user_config(&w, json!({"everything": everything(&marker)}), json!({}));
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [
                call("mcp__everything__echo", json!({"message": "hello from ansa"})),
                call("mcp__everything__get-sum", json!({"a": 2, "b": 40})),
                call("mcp__everything__get-tiny-image", json!({})),
                call("mcp__everything__get-sum", json!({"a": "two", "b": 1}))
            ]},
            {"text": "all called"}
        ]),
        &[],
    );
    let rid = s.submit("use the everything server");
    let echo = finished(&mut s, "mcp__everything__echo");
    assert_eq!(echo["status"], "finished", "{echo}");
    assert_eq!(
        echo["server"], "everything",
        "JSONL tool events name the server: {echo}"
    );
    let sum = finished(&mut s, "mcp__everything__get-sum");
    assert_eq!(sum["status"], "finished", "{sum}");
    let image = finished(&mut s, "mcp__everything__get-tiny-image");
    assert_eq!(image["status"], "finished", "{image}");
    let bad = finished(&mut s, "mcp__everything__get-sum");
    assert_eq!(
        bad["status"], "failed",
        "a wrong argument is a failed result: {bad}"
    );
    assert_eq!(s.answer(rid), "all called");
    let servers = alive_with(&marker);
    assert_eq!(
        servers.len(),
        1,
        "one server process while the session runs"
    );
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    // All servers stop with the session: no orphan.
    crate::harness::eventually("the server to stop with the session", || {
        alive_with(&marker).is_empty()
    });

    let dir = only_session_dir(&w);
    let out: Vec<String> = outcomes(&dir)
        .iter()
        .map(|o| o["output"].to_string())
        .collect();
    assert_eq!(out.len(), 4, "{out:?}");
    assert!(out[0].contains("Echo: hello from ansa"), "{}", out[0]);
    assert!(out[1].contains("The sum of 2 and 40 is 42."), "{}", out[1]);
    // The image is described (type and size) and kept as evidence.
    assert!(out[2].contains("[image: image/png, "), "{}", out[2]);
    assert!(out[2].contains("kept as @"), "{}", out[2]);
    assert!(
        out[3].contains("b") && (out[3].contains("isError") || out[3].contains("refused")),
        "the model reads why the call failed: {}",
        out[3]
    );
    let journal = journal_text(&dir);
    assert!(
        journal.contains(r#""kind":"mcp_tools""#)
            && journal.contains(
                r#""name":"mcp__everything__get-sum","server":"everything","tool":"get-sum""#
            ),
        "the name mapping is journaled: {journal}"
    );
    assert_eq!(
        journal.matches(r#""kind":"tool_intent""#).count(),
        4,
        "each call has its intent"
    );
    // The server's stderr went to the session's log file, never to the terminal.
    assert!(dir.join("mcp/everything.log").is_file());
}

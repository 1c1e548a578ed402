//! `notifications/tools/list_changed` from a real SDK server (`probe.mjs`): calling its `grow`
//! tool registers a tool `grown`, the SDK notifies the change, and the very next model request
//! offers `mcp__probe__grown` (journaled in an `mcp_tools` record), which can be called.

use serde_json::{Value, json};

use super::{call, finished, outcomes, probe, session, user_config};
use crate::harness::{World, journal_text, only_session_dir};

/// The offered names of each `mcp_tools` record, in journal order.
fn offered(journal: &str) -> Vec<Vec<String>> {
    journal
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["kind"] == "mcp_tools")
        .map(|r| {
            r["body"]["tools"]
                .as_array()
                .unwrap_or_else(|| panic!("an mcp_tools record without tools: {r}"))
                .iter()
                .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .collect()
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_tool_added_by_the_server_is_offered_by_the_next_request_and_callable() {
    let w = World::new();
    let marker = super::marker(&w);
    user_config(&w, json!({"probe": probe(&marker)}), json!({}));
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [call("mcp__probe__grow", json!({}))]},
            {"tool_calls": [call("mcp__probe__grown", json!({}))]},
            {"text": "{{tool_output:1}}"}
        ]),
        &[],
    );
    let rid = s.submit("grow a tool");
    let grow = finished(&mut s, "mcp__probe__grow");
    assert_eq!(grow["status"], "finished", "{grow}");
    let grown = finished(&mut s, "mcp__probe__grown");
    assert_eq!(grown["status"], "finished", "{grown}");
    assert_eq!(grown["server"], "probe", "{grown}");
    assert_eq!(s.answer(rid), "the grown tool answered");
    assert_eq!(s.finish().0, 0);

    let dir = only_session_dir(&w);
    let journal = journal_text(&dir);
    let lists = offered(&journal);
    assert_eq!(
        lists.len(),
        2,
        "one record per change of the list: {lists:?}"
    );
    assert!(
        !lists[0].contains(&"mcp__probe__grown".to_owned()),
        "{lists:?}"
    );
    assert!(
        lists[0].contains(&"mcp__probe__grow".to_owned()),
        "{lists:?}"
    );
    assert!(
        lists[1].contains(&"mcp__probe__grown".to_owned()),
        "{lists:?}"
    );
    // The new list was journaled before the request that offered it, so before the intent
    // of the call of the new tool.
    let second_list = journal
        .match_indices(r#""kind":"mcp_tools""#)
        .nth(1)
        .map(|(at, _)| at);
    let grown_intent = journal.find(r#""tool":"mcp__probe__grown""#);
    assert!(
        second_list < grown_intent && second_list.is_some(),
        "{journal}"
    );
    let out = outcomes(&dir);
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[1]["status"], "ok", "{}", out[1]);
}

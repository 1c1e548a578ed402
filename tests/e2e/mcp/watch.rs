//! A server's change of state reaches the frontends when it happens, not at the next request:
//! a session whose server cannot start publishes `mcp_servers` with it `failed` and the reason
//! before anything is asked.

use serde_json::json;

use super::user_config;
use crate::harness::World;

#[test]
fn a_server_that_cannot_start_is_reported_without_being_asked() {
    let w = World::new();
    let missing = w.dir.path().join("no-such-mcp-server");
    user_config(
        &w,
        json!({"broken": {"command": missing.to_str().unwrap()}}),
        json!({}),
    );
    let mut s = w.jsonl(&[]);
    let servers = s.expect("the failed server's state", |v| {
        v["type"] == "mcp_servers"
            && v["servers"]
                .as_array()
                .is_some_and(|rows| rows.iter().any(|r| r["state"] == "failed"))
    });
    let row = &servers["servers"][0];
    assert_eq!(row["name"], "broken", "{servers}");
    let error = row["last_error"].as_str().unwrap_or_default();
    assert!(
        error.contains("no-such-mcp-server") && error.contains("not found"),
        "{servers}"
    );
    // Nothing else was needed: the session still takes a task.
    let rid = s.submit("hello");
    assert!(!s.answer(rid).is_empty());
}

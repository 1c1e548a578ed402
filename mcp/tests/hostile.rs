//! The client against servers that misbehave on purpose, written as raw JSON-RPC (an SDK
//! server would not send what they send).

mod support;

use std::time::{Duration, Instant};

use ansa_mcp::{CancelFlag, McpHub};
use serde_json::Map;
use support::*;

/// A raw stdio server on node: answers `initialize` and `tools/list` (logging to stderr how
/// many lists it was asked for), and on `tools/call` sends 500
/// `notifications/tools/list_changed` before the answer.
const NOTIFIER: &str = r#"
let lists = 0;
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let at;
  while ((at = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.method === "initialize") {
      send({ id: m.id, result: { protocolVersion: m.params.protocolVersion,
        capabilities: { tools: { listChanged: true } }, serverInfo: { name: "n", version: "1" } } });
    } else if (m.method === "tools/list") {
      lists += 1;
      console.error(`lists ${lists}`);
      send({ id: m.id, result: { tools: [{ name: "poke", inputSchema: { type: "object" } }] } });
    } else if (m.method === "tools/call") {
      for (let i = 0; i < 500; i++) send({ method: "notifications/tools/list_changed" });
      send({ id: m.id, result: { content: [{ type: "text", text: "poked" }] } });
    } else if (m.id !== undefined && m.method) {
      send({ id: m.id, error: { code: -32601, message: "no" } });
    }
  }
});
"#;

fn lists_asked(log: &std::path::Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("lists "))
        .count()
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_burst_of_list_changed_notifications_is_answered_by_one_list_at_a_time() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let logs = dir.path().join("logs");
    let config = stdio(
        "notifier",
        node().display().to_string(),
        vec!["-e".into(), NOTIFIER.into()],
    );
    let hub: McpHub = start(vec![config], &logs);
    assert_ready(&hub, "notifier");
    let log = logs.join("notifier.log");
    assert_eq!(lists_asked(&log), 1, "listed once at start");
    let result = hub
        .call(&name("notifier"), "poke", Map::new(), &CancelFlag::new())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!result.is_error, "{result:?}");
    // The call returns once the list is as fresh as every notification (one list suffices);
    // let any stray refresh land before counting.
    let quiet = Instant::now() + Duration::from_secs(1);
    while Instant::now() < quiet {
        std::thread::sleep(Duration::from_millis(50));
    }
    let lists = lists_asked(&log);
    // Before: one `tools/list` per notification (501). Notifications that arrive while a list
    // is being fetched are answered by the next one, so a few lists at most.
    assert!(
        (2..=5).contains(&lists),
        "{lists} tools/list requests for 500 notifications"
    );
    let tools: Vec<String> = hub.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(tools, ["poke"]);
    hub.shutdown();
}

/// A raw stdio server on node that starts properly and, on `tools/call`, writes half of its
/// answer (no newline) and exits with status 3.
const HALF_ANSWER: &str = r#"
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let at;
  while ((at = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.method === "initialize") {
      send({ id: m.id, result: { protocolVersion: m.params.protocolVersion,
        capabilities: { tools: {} }, serverInfo: { name: "h", version: "1" } } });
    } else if (m.method === "tools/list") {
      send({ id: m.id, result: { tools: [{ name: "half", inputSchema: { type: "object" } }] } });
    } else if (m.method === "tools/call") {
      process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"content":[{"ty`,
        () => process.exit(3));
    }
  }
});
"#;

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_server_exiting_mid_answer_is_reported_as_such_not_as_garbage() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let logs = dir.path().join("logs");
    let config = stdio(
        "halfway",
        node().display().to_string(),
        vec!["-e".into(), HALF_ANSWER.into()],
    );
    let hub: McpHub = start(vec![config], &logs);
    assert_ready(&hub, "halfway");
    let error = match hub.call(&name("halfway"), "half", Map::new(), &CancelFlag::new()) {
        Ok(result) => panic!("a half answer was taken as {result:?}"),
        Err(e) => e.to_string(),
    };
    assert!(
        error.contains("closed stdout in the middle of a message"),
        "{error}"
    );
    assert!(!error.contains("not JSON-RPC"), "{error}");
    hub.shutdown();
}

/// A raw stdio server on node that answers every `tools/list` after the first with a
/// `notifications/tools/list_changed` right behind it: a client that lists again at once is
/// in a loop as fast as the two can talk.
const RESTLESS: &str = r#"
let lists = 0;
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let at;
  while ((at = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.method === "initialize") {
      send({ id: m.id, result: { protocolVersion: m.params.protocolVersion,
        capabilities: { tools: { listChanged: true } }, serverInfo: { name: "r", version: "1" } } });
    } else if (m.method === "notifications/initialized") {
      setTimeout(() => send({ method: "notifications/tools/list_changed" }), 200);
    } else if (m.method === "tools/list") {
      lists += 1;
      console.error(`lists ${lists}`);
      send({ id: m.id, result: { tools: [{ name: "t", inputSchema: { type: "object" } }] } });
      if (lists > 1) send({ method: "notifications/tools/list_changed" });
    }
  }
});
"#;

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_server_that_notifies_on_every_list_is_listed_at_a_bounded_rate() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let logs = dir.path().join("logs");
    let config = stdio(
        "restless",
        node().display().to_string(),
        vec!["-e".into(), RESTLESS.into()],
    );
    let hub: McpHub = start(vec![config], &logs);
    assert_ready(&hub, "restless");
    let log = logs.join("restless.log");
    let looping = wait_until(Duration::from_secs(10), || lists_asked(&log) >= 3);
    assert!(
        looping,
        "the server's loop never started: {}",
        lists_asked(&log)
    );
    let before = lists_asked(&log);
    let watched = Instant::now();
    while watched.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let lists = lists_asked(&log) - before;
    // Before: listed again as soon as each list was answered (thousands in two seconds).
    // Now at least 100 ms lies between two lists.
    assert!(
        (5..=25).contains(&lists),
        "{lists} tools/list requests in 2 s"
    );
    hub.shutdown();
}

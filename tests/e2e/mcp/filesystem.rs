//! server-filesystem over stdio: a listing, a write inside its root, a refusal outside it, and
//! a result over the tool-output budget retained whole as `@N` and read back with `evidence`.

use serde_json::json;

use super::{call, filesystem, finished, outcomes, session, user_config};
use crate::harness::{World, only_session_dir};

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn files_are_listed_written_and_a_large_result_is_retained_and_readable() {
    let w = World::new();
    let root = w.ws();
    let big: String = (1..=20_000)
        .map(|n| format!("line {n} of the big file\n"))
        .collect();
    std::fs::write(root.join("big.txt"), &big).unwrap();
    user_config(&w, json!({"fs": filesystem(&root)}), json!({}));
    let outside = w.path("outside.txt");
    std::fs::write(&outside, "secret outside the root\n").unwrap();
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [
                call("mcp__fs__list_directory", json!({"path": root.display().to_string()})),
                call("mcp__fs__write_file", json!({"path": root.join("made.txt").display().to_string(), "content": "made by mcp\n"})),
                call("mcp__fs__read_text_file", json!({"path": outside.display().to_string()})),
                call("mcp__fs__read_text_file", json!({"path": root.join("big.txt").display().to_string()}))
            ]},
            {"tool_calls": [
                call("evidence", json!({"ref": "@1", "kind": "search", "offset": 0, "length": null,
                    "query": "line 19999 of", "regex": false, "case_insensitive": false}))
            ]},
            {"text": "files done"}
        ]),
        &[],
    );
    let rid = s.submit("work with files");
    let list = finished(&mut s, "mcp__fs__list_directory");
    assert_eq!(list["status"], "finished", "{list}");
    assert_eq!(list["server"], "fs", "{list}");
    let write = finished(&mut s, "mcp__fs__write_file");
    assert_eq!(write["status"], "finished", "{write}");
    let denied = finished(&mut s, "mcp__fs__read_text_file");
    assert_eq!(denied["status"], "failed", "outside the root: {denied}");
    let read = finished(&mut s, "mcp__fs__read_text_file");
    assert_eq!(read["status"], "finished", "{read}");
    let evidence = finished(&mut s, "evidence");
    assert_eq!(evidence["status"], "finished", "{evidence}");
    assert_eq!(s.answer(rid), "files done");
    assert_eq!(s.finish().0, 0);

    assert_eq!(
        std::fs::read_to_string(root.join("made.txt")).unwrap(),
        "made by mcp\n"
    );
    let out: Vec<String> = outcomes(&only_session_dir(&w))
        .iter()
        .map(|o| {
            o["output"]
                .as_str()
                .map_or_else(|| o["output"].to_string(), str::to_owned)
        })
        .collect();
    assert!(out[0].contains("big.txt"), "{}", out[0]);
    assert!(!out[2].contains("secret outside"), "{}", out[2]);
    // Over the budget: cut like exec output, never silently, and retained whole.
    assert!(
        out[3].len() < big.len() / 4,
        "the view is cut: {} bytes",
        out[3].len()
    );
    assert!(
        out[3].contains("@1"),
        "the cut names where the rest is: {}",
        &out[3][out[3].len().saturating_sub(600)..]
    );
    assert!(
        out[3].contains("line 1 of the big file"),
        "{}",
        &out[3][..200]
    );
    assert!(
        out[4].contains("line 19999 of the big file"),
        "the retained result is readable with evidence: {}",
        out[4]
    );
}

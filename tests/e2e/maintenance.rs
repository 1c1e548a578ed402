//! `diff` and `compact` (issue 43 item 10) through the built binary's JSONL driver: the diff
//! is taken from the session's first checkpoint to the tree now (files, +N −M, unified lines,
//! binary files named, not diffed); compaction runs on demand through the ordinary path and
//! says the context's size before and after, and is refused with the reason when it cannot run.

use serde_json::{Value, json};

use crate::harness::World;

fn exec(script: &str) -> Value {
    json!({"name": "exec", "arguments": {"program": "sh", "args": ["-c", script], "cwd": ".",
           "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
}

fn file_action(kind: &str, path: &str, content: Option<&str>) -> Value {
    json!({"kind": kind, "path": path, "to": null, "content": content})
}

#[test]
fn diff_shows_what_the_session_changed_since_its_first_checkpoint() {
    let w = World::new();
    let lines: String = (1..=12).map(|n| format!("line {n}\n")).collect();
    std::fs::write(w.ws().join("a.txt"), &lines).unwrap();
    std::fs::write(w.ws().join("gone.txt"), "bye\n").unwrap();
    std::fs::write(w.ws().join("same.txt"), "untouched\n").unwrap();
    let script = w.script(
        "diff.json",
        json!([
            {"tool_calls": [{"name": "edit", "arguments": {"files": [
                {"path": "a.txt", "edits": [{"old": "line 6\n", "new": "line six\nline 6.5\n"}]}
            ]}}]},
            {"tool_calls": [{"name": "files", "arguments": {"actions": [
                file_action("create", "new.txt", Some("fresh\n")),
                file_action("remove", "gone.txt", None),
            ]}}]},
            {"tool_calls": [exec("printf '\\000\\001binary' > bin.dat")]},
            {"text": "done"},
        ]),
    );
    let dir = w.path("session");
    let mut s = w.jsonl(&[
        "--session",
        dir.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ]);
    // Before any turn there is no checkpoint: said, not an empty diff that looks like "nothing".
    let early = s.send("diff", json!({}));
    let refused = s.expect_type("error", &[("command_id", json!(early))]);
    assert_eq!(refused["code"], "diff_unavailable", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("no checkpoint"),
        "{refused}"
    );
    let rid = s.submit("change things");
    assert_eq!(s.answer(rid), "done");
    let asked = s.send("diff", json!({}));
    let diff = s.expect_type("workspace_diff", &[("command_id", json!(asked))]);
    assert_eq!(diff["base_request_id"], json!(rid));
    let files = diff["files"].as_array().unwrap();
    let summary: Vec<(String, String, u64, u64)> = files
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["status"].as_str().unwrap().to_owned(),
                f["added"].as_u64().unwrap(),
                f["removed"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("a.txt", "modified", 2, 1),
        ("bin.dat", "added", 0, 0),
        ("gone.txt", "deleted", 0, 1),
        ("new.txt", "added", 1, 0),
    ];
    assert_eq!(
        summary,
        expected
            .iter()
            .map(|(p, st, a, r)| (p.to_string(), st.to_string(), *a, *r))
            .collect::<Vec<_>>(),
        "{diff}"
    );
    let a = &files[0]["lines"];
    assert_eq!(
        a[0],
        json!({"sign": "hunk", "text": "@@ -3,7 +3,8 @@"}),
        "{a}"
    );
    assert!(
        a.as_array()
            .unwrap()
            .contains(&json!({"sign": "removed", "text": "line 6"}))
    );
    assert!(
        a.as_array()
            .unwrap()
            .contains(&json!({"sign": "added", "text": "line 6.5"}))
    );
    assert_eq!(files[1]["omitted"], "binary", "{}", files[1]);
    assert!(files[1].get("lines").is_none());
    s.finish();
}

#[test]
fn compact_runs_now_and_says_the_size_before_and_after_or_why_not() {
    let w = World::new();
    let big: String = (0..300)
        .map(|n| format!("line {n:04} of the big file\n"))
        .collect();
    std::fs::write(w.ws().join("big.txt"), &big).unwrap();
    let read = json!({"name": "read", "arguments": {"paths": ["big.txt"], "mode": "lines", "offset": 1, "length": 300}});
    let script = w.script(
        "compact.json",
        json!([
            {"tool_calls": [read.clone()]}, {"text": "t1"},
            {"tool_calls": [read.clone()]}, {"text": "t2"},
            {"tool_calls": [read]}, {"text": "t3"},
            {"text": "after={{tool_output:0}}"},
        ]),
    );
    let dir = w.path("session");
    let args = [
        "--session",
        dir.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ];
    let mut s = w.jsonl(&args);
    let early = s.send("compact", json!({}));
    let refused = s.expect_type("error", &[("command_id", json!(early))]);
    assert_eq!(refused["code"], "compact_refused", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .starts_with("nothing to compact"),
        "{refused}"
    );
    for n in 1..=3 {
        let rid = s.submit(&format!("task {n}"));
        assert_eq!(s.answer(rid), format!("t{n}"));
    }
    // Under the default budget nothing is due, but asked for, it runs.
    let asked = s.send("compact", json!({}));
    let done = s.expect_type("compacted", &[("command_id", json!(asked))]);
    let (before, after) = (
        done["bytes_before"].as_u64().unwrap(),
        done["bytes_after"].as_u64().unwrap(),
    );
    assert!(after < before, "{done}");
    assert_eq!(done["tokens_before"].as_u64().unwrap(), before.div_ceil(4));
    assert_eq!(done["tokens_after"].as_u64().unwrap(), after.div_ceil(4));
    let rid = s.submit("task 4");
    assert_eq!(
        s.answer(rid),
        "after=[tool output removed from the context by compaction]"
    );
    s.finish();
    let journal = crate::harness::journal_text(&dir);
    assert_eq!(
        journal
            .lines()
            .filter(|l| l.contains("\"kind\":\"context_epoch\""))
            .count(),
        1
    );
}

#[test]
fn compact_is_refused_while_a_turn_runs() {
    let w = World::new();
    let script = w.script(
        "slow.json",
        json!([
            {"tool_calls": [exec("sleep 2")]},
            {"text": "slept"},
        ]),
    );
    let dir = w.path("session");
    let mut s = w.jsonl(&[
        "--session",
        dir.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ]);
    let rid = s.submit("sleep");
    s.expect_type("tool_status", &[("request_id", json!(rid))]);
    let asked = s.send("compact", json!({}));
    let refused = s.expect_type("error", &[("command_id", json!(asked))]);
    assert_eq!(refused["code"], "busy", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains(&format!("turn {rid} is running")),
        "{refused}"
    );
    assert_eq!(s.answer(rid), "slept");
    s.finish();
}

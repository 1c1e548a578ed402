//! Orchestrate mode (issue 48): a scripted parent delegates to scripted children (the script's
//! `children` entries address them by index or task), run by the real binary over JSONL.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::{Jsonl, World, alive, eventually, read_pid};

/// Writes a script with the parent's `turns` and the children's scripts.
fn script(w: &World, turns: Value, children: Value) -> PathBuf {
    let p = w.path("orchestrate.json");
    std::fs::write(
        &p,
        json!({"turns": turns, "children": children}).to_string(),
    )
    .unwrap();
    p
}

fn task(instruction: &str, profile: &str) -> Value {
    json!({"instruction": instruction, "profile": profile, "scope": []})
}

fn delegate(tasks: &[Value]) -> Value {
    json!({"tool_calls": [{"name": "delegate", "arguments": {"tasks": tasks}}]})
}

fn read(path: &str) -> Value {
    json!({"name": "read", "arguments": {"paths": [path], "mode": "lines", "offset": 1, "length": 50}})
}

fn edit(path: &str, old: &str, new: &str) -> Value {
    json!({"name": "edit", "arguments": {"files": [{"path": path, "edits": [{"old": old, "new": new}]}]}})
}

fn exec(line: &str) -> Value {
    json!({"name": "exec", "arguments": {"program": "sh", "args": ["-c", line], "cwd": ".",
        "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
}

fn session(w: &World, dir: &Path, script: &Path, extra: &[&str]) -> Jsonl {
    let mut args = vec![
        "--session",
        dir.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    w.jsonl(&args)
}

fn submit(s: &mut Jsonl, text: &str) -> u64 {
    let id = s.send("submit", json!({"text": text, "mode": "orchestrate"}));
    let ev = s.expect_type("command_accepted", &[("command_id", json!(id))]);
    ev["request_id"].as_u64().unwrap()
}

/// The `child_status` events seen so far, in order.
fn statuses(s: &Jsonl) -> Vec<Value> {
    s.seen
        .iter()
        .filter(|e| e["type"] == "child_status")
        .cloned()
        .collect()
}

fn child_events<'a>(s: &'a Jsonl, child: &str) -> Vec<&'a Value> {
    s.seen
        .iter()
        .filter(|e| e["type"] == "child" && e["child"] == child)
        .map(|e| &e["event"])
        .collect()
}

/// The parent's final answer, which quotes the `delegate` output (`{{tool_output:0}}`).
fn answer(s: &mut Jsonl, rid: u64) -> String {
    s.answer(rid)
}

const QUOTE: &str = "children said:\n{{tool_output:0}}";

#[test]
fn three_children_edit_different_files_in_parallel() {
    let w = World::new();
    for f in ["a", "b", "c"] {
        std::fs::write(w.ws().join(format!("{f}.txt")), format!("{f} old\n")).unwrap();
    }
    let child = |f: &str| {
        json!({"task": format!("edit {f}.txt"), "turns": [
            {"delay_ms": 300, "tool_calls": [read(&format!("{f}.txt"))]},
            {"tool_calls": [edit(&format!("{f}.txt"), "old", "new")]},
            {"text": format!("{f} is new")}
        ]})
    };
    let script = script(
        &w,
        json!([
            delegate(&[task("edit a.txt", "full"), task("edit b.txt", "full"), task("edit c.txt", "full")]),
            {"text": QUOTE}
        ]),
        json!([child("a"), child("b"), child("c")]),
    );
    let mut s = session(&w, &w.path("session"), &script, &[]);
    let rid = submit(&mut s, "edit three files");
    let text = answer(&mut s, rid);
    for f in ["a", "b", "c"] {
        let body = std::fs::read_to_string(w.ws().join(format!("{f}.txt"))).unwrap();
        assert_eq!(body, format!("{f} new\n"));
        assert!(text.contains(&format!("{f} is new")), "{text}");
    }
    assert!(text.contains("3 children ended: 3 done"), "{text}");
    assert!(text.contains("whole transcript: @"), "{text}");
    // All three ran at once: each was running before the first one ended.
    let statuses = statuses(&s);
    let first_end = statuses
        .iter()
        .position(|e| e["state"] == "done")
        .expect("a child ended");
    let running: std::collections::BTreeSet<String> = statuses[..first_end]
        .iter()
        .filter(|e| e["state"] == "running")
        .map(|e| e["child"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(running.len(), 3, "{statuses:#?}");
    // Each child's own events come tagged with it, and each child is a sub-session on disk.
    let ids: Vec<String> = running.into_iter().collect();
    for id in &ids {
        let events = child_events(&s, id);
        assert!(
            events
                .iter()
                .any(|e| e["type"] == "tool_status" && e["tool"] == "edit"),
            "{events:?}"
        );
        assert!(
            w.path("session")
                .join("children")
                .join(id)
                .join("session.json")
                .exists()
        );
    }
    s.finish();
}

#[test]
fn two_children_editing_one_file_the_stale_one_gets_501_and_recovers() {
    let w = World::new();
    std::fs::write(w.ws().join("f.txt"), "alpha\nbeta\n").unwrap();
    let script = script(
        &w,
        json!([
            delegate(&[task("first: alpha", "full"), task("second: beta", "full")]),
            {"text": QUOTE}
        ]),
        json!([
            {"index": 1, "turns": [
                {"tool_calls": [read("f.txt")]},
                {"tool_calls": [edit("f.txt", "alpha", "ALPHA")]},
                {"text": "alpha done"}
            ]},
            {"index": 2, "turns": [
                {"tool_calls": [read("f.txt")]},
                // By now the first child has changed the file this child read.
                {"delay_ms": 1500, "tool_calls": [edit("f.txt", "beta", "BETA")]},
                {"tool_calls": [read("f.txt")]},
                {"tool_calls": [edit("f.txt", "beta", "BETA")]},
                {"text": "beta done after a re-read"}
            ]}
        ]),
    );
    let mut s = session(&w, &w.path("session"), &script, &[]);
    let rid = submit(&mut s, "edit one file twice");
    let text = answer(&mut s, rid);
    assert_eq!(
        std::fs::read_to_string(w.ws().join("f.txt")).unwrap(),
        "ALPHA\nBETA\n",
        "no change was lost"
    );
    assert!(text.contains("2 children ended: 2 done"), "{text}");
    // The second child's transcript (its @N) shows the stale edit refused with 501.
    let second = statuses(&s).into_iter().find(|e| e["index"] == 2).unwrap()["child"]
        .as_str()
        .unwrap()
        .to_owned();
    let transcript = std::fs::read_dir(w.path("session").join("children").join(&second))
        .unwrap()
        .count();
    assert!(transcript > 0);
    let failed: Vec<&Value> = child_events(&s, &second)
        .into_iter()
        .filter(|e| {
            e["type"] == "tool_status"
                && e["report"]["summary"]
                    .as_str()
                    .is_some_and(|s| s.contains("(501)"))
        })
        .collect();
    assert_eq!(
        failed.len(),
        1,
        "exactly the stale edit was refused: {failed:?}"
    );
    let journal = crate::harness::journal_text(&w.path("session").join("children").join(&second));
    let all: Vec<String> = statuses(&s).iter().map(|e| e.to_string()).collect();
    assert!(
        journal.contains("501,"),
        "the stale edit gets 501: {journal}\n{}",
        all.join("\n")
    );
    s.finish();
}

#[test]
fn a_child_that_fails_is_reported_and_the_others_finish() {
    let w = World::new();
    let script = script(
        &w,
        json!([
            delegate(&[task("works", "read_only"), task("has no script", "read_only")]),
            {"text": QUOTE}
        ]),
        json!([{"task": "works", "turns": [{"text": "fine"}]}]),
    );
    let mut s = session(&w, &w.path("session"), &script, &[]);
    let rid = submit(&mut s, "one fails");
    let text = answer(&mut s, rid);
    assert!(
        text.contains("2 children ended: 1 done, 1 failed"),
        "{text}"
    );
    assert!(text.contains("fine"), "{text}");
    assert!(
        text.contains("no entry of `children` is for child 2"),
        "{text}"
    );
    let failed = statuses(&s)
        .into_iter()
        .find(|e| e["state"] == "failed")
        .unwrap();
    assert_eq!(failed["index"], 2, "{failed}");
    s.finish();
}

#[test]
fn a_read_only_child_cannot_write() {
    let w = World::new();
    std::fs::write(w.ws().join("keep.txt"), "keep\n").unwrap();
    let script = script(
        &w,
        json!([delegate(&[task("look only", "read_only")]), {"text": QUOTE}]),
        json!([{"index": 1, "turns": [
            {"tool_calls": [edit("keep.txt", "keep", "changed")]},
            {"tool_calls": [{"name": "delegate", "arguments": {"tasks": [task("nested", "full")]}}]},
            {"text": "could not write"}
        ]}]),
    );
    let mut s = session(&w, &w.path("session"), &script, &[]);
    let rid = submit(&mut s, "read only child");
    let text = answer(&mut s, rid);
    assert_eq!(
        std::fs::read_to_string(w.ws().join("keep.txt")).unwrap(),
        "keep\n"
    );
    assert!(text.contains("could not write"), "{text}");
    let child = statuses(&s)[0]["child"].as_str().unwrap().to_owned();
    let journal = crate::harness::journal_text(&w.path("session").join("children").join(&child));
    assert!(
        journal.contains("not offered in plan mode") || journal.contains("plan mode"),
        "{journal}"
    );
    // Children never delegate: `delegate` is not a tool of a child's mode.
    assert!(
        !w.path("session")
            .join("children")
            .join(&child)
            .join("children")
            .exists()
    );
    s.finish();
}

#[test]
fn cancel_during_children_stops_them_and_kills_their_processes() {
    let w = World::new();
    let pid = |n: u32| w.path(&format!("child{n}.pid"));
    let child = |n: u32| {
        json!({"index": n, "turns": [
            {"tool_calls": [exec(&format!("echo $$ > {}; exec sleep 60", pid(n).display()))]},
            {"text": "not reached"}
        ]})
    };
    let script = script(
        &w,
        json!([delegate(&[task("one", "full"), task("two", "full")]), {"text": "not reached"}]),
        json!([child(1), child(2)]),
    );
    let mut s = session(&w, &w.path("session"), &script, &[]);
    let rid = submit(&mut s, "cancel me");
    eventually("both children's commands started", || {
        pid(1).exists() && pid(2).exists()
    });
    let pids = [read_pid(&pid(1)), read_pid(&pid(2))];
    s.send("cancel", json!({"target": rid}));
    s.expect_type(
        "turn_state",
        &[("request_id", json!(rid)), ("state", json!("cancelled"))],
    );
    for p in pids {
        eventually("the child's command was killed", || !alive(p));
    }
    let ends: Vec<Value> = statuses(&s)
        .into_iter()
        .filter(|e| e["state"] == "cancelled")
        .collect();
    assert_eq!(ends.len(), 2, "{ends:?}");
    s.finish();
}

#[test]
fn sigkill_while_two_children_run_then_resume_reruns_nothing() {
    let w = World::new();
    let log = |n: u32| w.path(&format!("runs{n}.log"));
    let count = |n: u32| std::fs::read_to_string(log(n)).map_or(0, |s| s.lines().count());
    let script = script(
        &w,
        json!([
            delegate(&[task("quick", "full"), task("long command", "full"), task("slow model", "full")]),
            {"text": QUOTE}
        ]),
        json!([
            {"index": 1, "turns": [
                {"tool_calls": [exec(&format!("echo run >> {}", log(1).display()))]},
                {"text": "quick done"}
            ]},
            {"index": 2, "turns": [
                {"tool_calls": [exec(&format!("echo run >> {}; exec sleep 60", log(2).display()))]},
                {"text": "long done"}
            ]},
            {"index": 3, "turns": [
                {"delay_ms": 3000, "text": "slow done"}
            ]}
        ]),
    );
    let dir = w.path("session");
    let mut s = session(&w, &dir, &script, &[]);
    let rid = submit(&mut s, "crash in the middle");
    s.expect("the quick child ended", |e| {
        e["type"] == "child_status" && e["index"] == 1 && e["state"] == "done"
    });
    eventually("the long command started", || count(2) == 1);
    // The second and third children are running: kill the whole process with SIGKILL.
    s.kill();

    let mut s = session(&w, &dir, &script, &[]);
    s.send("snapshot", json!({"after_sequence": 0}));
    let snap = s.expect_type("snapshot", &[]);
    assert_eq!(snap["state"], "paused", "{snap}");
    assert_eq!(snap["resume_available"], true, "{snap}");
    s.send("resume", json!({"target": rid}));
    let text = s.answer(rid);
    assert_eq!(count(1), 1, "the finished child did not run again");
    assert_eq!(count(2), 1, "the interrupted command was never re-run");
    assert!(text.contains("quick done"), "{text}");
    assert!(text.contains("slow done"), "{text}");
    assert!(text.contains("child 2 of 3"), "{text}");
    s.finish();
}

#[test]
fn ask_mode_approval_from_a_child_waits_for_the_user_and_is_labelled() {
    let w = World::new();
    let proof = w.path("approved.proof");
    let script = script(
        &w,
        json!([delegate(&[task("touch the proof", "full")]), {"text": QUOTE}]),
        json!([{"index": 1, "turns": [
            {"tool_calls": [exec(&format!("echo ran >> {}", proof.display()))]},
            {"text": "touched"}
        ]}]),
    );
    let mut s = session(&w, &w.path("session"), &script, &["--ask"]);
    let rid = submit(&mut s, "ask first");
    let asked = s.expect("a child's approval", |e| {
        e["type"] == "child" && e["event"]["type"] == "approval_required"
    });
    let child = asked["child"].as_str().unwrap().to_owned();
    let request = &asked["event"];
    assert_eq!(request["tool"], "exec", "{request}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!proof.exists(), "nothing runs before the user decides");
    // An approve without the child does not reach it.
    let wrong = s.send(
        "approve",
        json!({"target": request["request_id"], "call": request["call_id"], "decision": "once"}),
    );
    s.expect_type("error", &[("command_id", json!(wrong))]);
    let id = s.send(
        "child",
        json!({"child": child, "command": "approve", "target": request["request_id"],
            "call": request["call_id"], "decision": "once"}),
    );
    s.expect("the child accepted the decision", |e| {
        e["type"] == "child"
            && e["event"]["type"] == "command_accepted"
            && e["event"]["command_id"] == json!(id)
    });
    let text = answer(&mut s, rid);
    assert!(text.contains("touched"), "{text}");
    assert_eq!(std::fs::read_to_string(&proof).unwrap(), "ran\n");
    // A finished child's transcript is read from its sub-session.
    s.send(
        "child",
        json!({"child": child, "command": "transcript", "before": 0, "limit": 10, "forward": true}),
    );
    let page = s.expect("the child's transcript", |e| {
        e["type"] == "child" && e["event"]["type"] == "transcript"
    });
    assert!(page.to_string().contains("touch the proof"), "{page}");
    s.finish();
}

#[test]
fn max_children_runs_at_most_that_many_at_once_and_queues_the_rest() {
    let w = World::new();
    w.project_config(json!({"max_children": 2}));
    let child = |n: u32| {
        json!({"index": n, "turns": [
            {"delay_ms": 300, "tool_calls": [read("a.txt")]},
            {"text": format!("child {n} done")}
        ]})
    };
    std::fs::write(w.ws().join("a.txt"), "a\n").unwrap();
    let script = script(
        &w,
        json!([
            delegate(&[task("one", "read_only"), task("two", "read_only"), task("three", "read_only")]),
            {"text": QUOTE}
        ]),
        json!([child(1), child(2), child(3)]),
    );
    let mut s = session(&w, &w.path("session"), &script, &[]);
    let rid = submit(&mut s, "three with two slots");
    let text = answer(&mut s, rid);
    assert!(text.contains("3 children ended: 3 done"), "{text}");
    // Replay the states: never more than two running, and the third waited for a slot.
    let mut running = std::collections::BTreeSet::new();
    let mut most = 0;
    let mut third_started_after_an_end = false;
    let mut ended = 0;
    for e in statuses(&s) {
        let child = e["child"].as_str().unwrap().to_owned();
        match e["state"].as_str().unwrap() {
            "running" => {
                if e["index"] == 3 && !running.contains(&child) {
                    third_started_after_an_end = ended > 0;
                }
                running.insert(child);
            }
            "queued" => {}
            _ => {
                if running.remove(&child) {
                    ended += 1;
                }
            }
        }
        most = most.max(running.len());
    }
    assert_eq!(most, 2, "{:#?}", statuses(&s));
    assert!(third_started_after_an_end, "{:#?}", statuses(&s));
    s.finish();
}

#[test]
fn a_child_pauses_at_its_token_budget_and_the_parents_resume_continues_it() {
    let w = World::new();
    w.project_config(json!({"child_token_budget": 1000}));
    std::fs::write(w.ws().join("a.txt"), "a\n").unwrap();
    let script = script(
        &w,
        json!([delegate(&[task("costly", "read_only")]), {"text": QUOTE}]),
        json!([{"index": 1, "turns": [
            {"usage": {"input": 800, "output": 300}, "tool_calls": [read("a.txt")]},
            {"usage": {"input": 900, "output": 50}, "text": "finished after resume"}
        ]}]),
    );
    let mut s = session(&w, &w.path("session"), &script, &[]);
    let rid = submit(&mut s, "spend tokens");
    let paused = s.expect_type(
        "turn_state",
        &[("request_id", json!(rid)), ("state", json!("paused"))],
    );
    let reason = paused["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("token budget reached (1100 tokens used of 1000"),
        "{paused}"
    );
    let child = statuses(&s)
        .into_iter()
        .find(|e| e["state"] == "paused")
        .expect("the child paused");
    assert!(
        child["reason"]
            .as_str()
            .unwrap()
            .contains("child_token_budget"),
        "{child}"
    );
    // The parent's turn ended nothing: Resume continues the child with a new segment.
    s.send("resume", json!({"target": rid}));
    let text = answer(&mut s, rid);
    assert!(text.contains("finished after resume"), "{text}");
    assert!(text.contains("1 child ended: 1 done"), "{text}");
    s.finish();
}

#[test]
fn the_parent_gets_bounded_answers_and_reads_a_childs_whole_transcript_with_evidence() {
    let w = World::new();
    // 16 KiB of answer per child: two of them exceed the share each may bring (12 KiB).
    let long = |n: u32| {
        let body: String = (0..400)
            .map(|i| format!("child {n} line {i:04} of its long answer\n"))
            .collect();
        format!("{body}END-OF-CHILD-{n}")
    };
    let evidence = json!({"name": "evidence", "arguments": {"ref": "@1", "kind": "search",
        "offset": 0, "length": null, "query": "END-OF-CHILD-1", "regex": false,
        "case_insensitive": false}});
    let script = script(
        &w,
        json!([
            delegate(&[task("first long answer", "read_only"), task("second long answer", "read_only")]),
            {"tool_calls": [evidence]},
            {"text": "delegate said:\n{{tool_output:0}}\nevidence said:\n{{tool_output:1}}"}
        ]),
        json!([
            {"index": 1, "turns": [{"text": long(1)}]},
            {"index": 2, "turns": [{"text": long(2)}]}
        ]),
    );
    let mut s = session(&w, &w.path("session"), &script, &[]);
    let rid = submit(&mut s, "long answers");
    let text = answer(&mut s, rid);
    let (delegated, found) = text
        .split_once("\nevidence said:\n")
        .expect("both outputs quoted");
    // The delegate output fits the tool-output budget, and says where the rest is.
    assert!(delegated.len() <= 8192 * 4, "{}", delegated.len());
    assert!(delegated.contains("child 1 of 2"), "{delegated}");
    assert!(delegated.contains("whole transcript: @1"), "{delegated}");
    assert!(delegated.contains("whole transcript: @2"), "{delegated}");
    assert!(delegated.contains("child 1 line 0000"), "{delegated}");
    assert!(!delegated.contains("END-OF-CHILD-1"), "cut: {delegated}");
    assert!(
        delegated.contains("more bytes are in the child's transcript"),
        "{delegated}"
    );
    // `evidence` finds the cut end in the child's retained transcript.
    assert!(found.contains("END-OF-CHILD-1"), "{found}");
    s.finish();
}

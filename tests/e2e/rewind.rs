//! Rewind through the real binary (issue 41): scripted offline turns change the tree through
//! `edit`, `files` and `exec sh -c`; JSONL `rewind` puts it back byte for byte (content,
//! modes, symlinks, empty directories, a file replaced by a directory); a conversation rewind
//! leaves no trace of the rewound turns in the next request; conflicts refuse, keep or take;
//! checkpoints survive `--continue`; a SIGKILL during a checkpoint or a restore leaves the
//! tree exactly before or after, and the reopened session says which.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::{Jsonl, World};
use crate::live::live_env;
use crate::mock_provider::{MockProvider, MockResponse};
use crate::responses_script::{self, Turn};

/// One path of a tree as a rewind must restore it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    File { content: Vec<u8>, mode: u32 },
    Dir { mode: u32 },
    Link { target: PathBuf },
}

/// Every path under `root` except the engine's `.ash` state directory.
fn tree(root: &Path) -> BTreeMap<String, Node> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Node>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let path = e.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            if rel == ".ash" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o7777;
            let node = if meta.file_type().is_symlink() {
                Node::Link {
                    target: std::fs::read_link(&path).unwrap(),
                }
            } else if meta.is_dir() {
                walk(root, &path, out);
                Node::Dir { mode }
            } else {
                Node::File {
                    content: std::fs::read(&path).unwrap(),
                    mode,
                }
            };
            out.insert(rel, node);
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn write(w: &World, rel: &str, content: &str, mode: u32) {
    let p = w.ws().join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The tree before any turn: files with different modes, an empty directory, a nested one, and
/// a file that a turn replaces by a directory.
fn seed(w: &World) {
    write(w, "a.txt", "alpha\n", 0o644);
    write(w, "b.txt", "beta\n", 0o640);
    write(w, "gone.sh", "#!/bin/sh\necho bye\n", 0o755);
    write(w, "sub/x.txt", "x\n", 0o600);
    write(w, "repl", "a file that becomes a directory\n", 0o644);
    std::fs::create_dir(w.ws().join("keep")).unwrap();
}

fn exec(script: &str) -> Value {
    json!({"name": "exec", "arguments": {"program": "sh", "args": ["-c", script], "cwd": ".",
           "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
}

fn file_action(kind: &str, path: &str, to: Option<&str>, content: Option<&str>) -> Value {
    json!({"kind": kind, "path": path, "to": to, "content": content})
}

/// Turn 1 edits and moves files through `edit` and `files`; turn 2 changes the tree through
/// `exec sh -c` in every way a shell can.
fn changing_script(w: &World) -> PathBuf {
    w.script(
        "changes.json",
        json!([
            {"tool_calls": [{"name": "edit", "arguments": {"files": [
                {"path": "a.txt", "edits": [{"old": "alpha\n", "new": "ALPHA\n"}]}
            ]}}]},
            {"tool_calls": [{"name": "files", "arguments": {"actions": [
                file_action("create", "new.txt", None, Some("new\n")),
                file_action("move", "b.txt", Some("b2.txt"), None),
                file_action("remove", "gone.sh", None, None),
            ]}}]},
            {"text": "turn one done"},
            {"tool_calls": [exec(
                "echo more >> a.txt && rm sub/x.txt && rmdir sub && mkdir -p made/deeper \
                 && chmod 700 new.txt && ln -s a.txt link && mv b2.txt b3.txt && rm repl \
                 && mkdir repl && echo inner > repl/inner && rmdir keep \
                 && printf '\\000\\001binary' > bin.dat"
            )]},
            {"text": "turn two done"},
            {"text": "turn three done"},
        ]),
    )
}

fn open(w: &World, script: &Path, extra: &[&str], env: &[(&str, &str)]) -> Jsonl {
    let dir = w.path("session");
    let mut args = vec![
        "--session",
        dir.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    w.jsonl_with(&args, env)
}

fn run_turn(s: &mut Jsonl, text: &str) -> u64 {
    let id = s.submit(text);
    s.answer(id);
    id
}

/// Sends a rewind and returns its `rewind_done` (or panics with the events seen).
fn rewind(s: &mut Jsonl, payload: Value) -> Value {
    let id = s.send("rewind", payload);
    let done = s.expect("rewind_done or an error", |v| {
        v["type"] == "rewind_done" || (v["type"] == "error" && v["command_id"] == json!(id))
    });
    assert_eq!(done["type"], "rewind_done", "{done}");
    done
}

fn checkpoints(s: &mut Jsonl) -> Vec<Value> {
    s.send("checkpoints", json!({}));
    let ev = s.expect_type("checkpoints", &[]);
    ev["items"].as_array().unwrap().clone()
}

#[test]
fn edit_files_and_exec_changes_are_rewound_byte_for_byte_and_a_rewind_can_be_undone() {
    let w = World::new();
    seed(&w);
    let script = changing_script(&w);
    let state0 = tree(&w.ws());
    let mut s = open(&w, &script, &[], &[]);
    run_turn(&mut s, "edit and move");
    let state1 = tree(&w.ws());
    run_turn(&mut s, "shell changes");
    let state2 = tree(&w.ws());
    assert_ne!(state1, state0);
    assert_ne!(state2, state1);
    assert!(matches!(state2["repl"], Node::Dir { .. }) && state2.contains_key("link"));

    let items = checkpoints(&mut s);
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(items[0]["turn"], 2);
    assert_eq!(items[0]["restorable"], true);
    let changed: Vec<&str> = items[1]["files_changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(changed, ["a.txt", "b.txt", "b2.txt", "gone.sh", "new.txt"]);

    // A dry run shows the plan and changes nothing.
    s.send(
        "rewind",
        json!({"target": 2, "scope": "code", "dry_run": true}),
    );
    let plan = s.expect_type("rewind_plan", &[("target", json!(2))]);
    assert_eq!(plan["conflicts"], json!([]));
    assert!(
        plan["recreate"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["path"] == "sub/x.txt" && p["kind"] == "file"),
        "{plan}"
    );
    assert_eq!(tree(&w.ws()), state2);

    let done = rewind(&mut s, json!({"target": 2, "scope": "code"}));
    assert_eq!(done["prompt"], "shell changes");
    assert_eq!(tree(&w.ws()), state1, "rewound to before turn 2");
    let first_undo = done["checkpoint"].as_str().unwrap().to_owned();

    rewind(&mut s, json!({"target": 1, "scope": "code"}));
    assert_eq!(tree(&w.ws()), state0, "rewound to before turn 1");

    // The point before the last rewind is listed and takes the tree back to before it.
    let items = checkpoints(&mut s);
    let undo = items
        .iter()
        .find(|i| i["checkpoint"].is_string())
        .expect("an undo point");
    assert_ne!(undo["checkpoint"], json!(first_undo), "newest first");
    rewind(
        &mut s,
        json!({"target": 1, "scope": "code", "checkpoint": undo["checkpoint"]}),
    );
    assert_eq!(tree(&w.ws()), state1, "the second rewind was undone");
    rewind(
        &mut s,
        json!({"target": 2, "scope": "code", "checkpoint": first_undo}),
    );
    assert_eq!(tree(&w.ws()), state2, "and the first one too");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}

#[test]
fn a_conversation_rewind_leaves_no_trace_of_the_rewound_turns_in_the_next_request() {
    let w = World::new();
    let mock = MockProvider::http();
    for (n, turn) in [
        Turn::Text("ANSWER-ONE"),
        Turn::Text("ANSWER-TWO-REWOUND"),
        Turn::Text("ANSWER-THREE-REWOUND"),
        Turn::Text("ANSWER-FOUR"),
    ]
    .into_iter()
    .enumerate()
    {
        mock.push(
            "/v1/responses",
            MockResponse::sse([responses_script::stream(n, &turn)]),
        );
    }
    let mut c = w.command(&[
        "--live-jsonl",
        "--session",
        w.path("session").to_str().unwrap(),
    ]);
    for (k, v) in live_env(&mock, "responses") {
        c.env(k, v);
    }
    let mut s = Jsonl::spawn(c);
    run_turn(&mut s, "PROMPT-ONE");
    run_turn(&mut s, "PROMPT-TWO-REWOUND\nwith a second line");
    run_turn(&mut s, "PROMPT-THREE-REWOUND");
    let first = "rewind-to-two";
    s.send_as(
        first,
        "rewind",
        json!({"target": 2, "scope": "conversation"}),
    );
    let done = s.expect_type("rewind_done", &[]);
    assert_eq!(done["prompt"], "PROMPT-TWO-REWOUND\nwith a second line");
    assert_eq!(done["rewound"], json!([2, 3]));
    assert_eq!(done["restored"], 0);
    let items = checkpoints(&mut s);
    let rewound: Vec<(u64, bool)> = items
        .iter()
        .map(|i| (i["turn"].as_u64().unwrap(), i["rewound"].as_bool().unwrap()))
        .collect();
    assert_eq!(rewound, [(3, true), (2, true), (1, false)]);
    // The same command id again: the same rewind is a replay, another one a conflict.
    s.send_as(
        first,
        "rewind",
        json!({"target": 2, "scope": "conversation"}),
    );
    s.expect_type("command_replayed", &[("command_id", json!(first))]);
    s.send_as(
        first,
        "rewind",
        json!({"target": 1, "scope": "conversation"}),
    );
    let err = s.expect_type("error", &[("command_id", json!(first))]);
    assert_eq!(err["code"], "command_conflict", "{err}");
    // A rewound turn cannot be resumed or rewound (conversation) again.
    let id = s.send("rewind", json!({"target": 3, "scope": "conversation"}));
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert_eq!(err["code"], "rewind_refused", "{err}");
    run_turn(&mut s, "PROMPT-FOUR");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    let bodies: Vec<String> = mock
        .requests_to("/v1/responses")
        .iter()
        .map(|r| String::from_utf8(r.body.clone()).unwrap())
        .collect();
    assert_eq!(bodies.len(), 4);
    assert!(bodies[2].contains("PROMPT-TWO-REWOUND") && bodies[2].contains("ANSWER-TWO"));
    let last = &bodies[3];
    assert!(
        last.contains("PROMPT-ONE") && last.contains("ANSWER-ONE"),
        "{last}"
    );
    assert!(last.contains("PROMPT-FOUR"), "{last}");
    for trace in ["PROMPT-TWO", "ANSWER-TWO", "PROMPT-THREE", "ANSWER-THREE"] {
        assert!(
            !last.contains(trace),
            "{trace} is in the request after the rewind: {last}"
        );
    }
}

fn one_edit_script(w: &World) -> PathBuf {
    w.script(
        "one.json",
        json!([
            {"tool_calls": [exec("echo turn >> a.txt && echo made > made.txt")]},
            {"text": "done"},
            {"text": "again"},
        ]),
    )
}

#[test]
fn a_conflict_refuses_keeps_or_takes_as_asked() {
    for choice in ["refuse", "keep", "take"] {
        let w = World::new();
        write(&w, "a.txt", "alpha\n", 0o644);
        let state0 = tree(&w.ws());
        let script = one_edit_script(&w);
        let mut s = open(&w, &script, &[], &[]);
        run_turn(&mut s, "append");
        // Between turns the user edits a file the turn changed.
        write(&w, "a.txt", "the user's own text\n", 0o644);
        let before = tree(&w.ws());
        let id = s.send(
            "rewind",
            json!({"target": 1, "scope": "both", "on_conflict": choice}),
        );
        let plan = s.expect_type("rewind_plan", &[]);
        assert_eq!(plan["conflicts"], json!(["a.txt"]), "{plan}");
        match choice {
            "refuse" => {
                let err = s.expect_type("error", &[("command_id", json!(id))]);
                assert_eq!(err["code"], "rewind_conflict");
                assert!(err["message"].as_str().unwrap().contains("a.txt"), "{err}");
                assert_eq!(tree(&w.ws()), before, "nothing changed");
            }
            "keep" => {
                let done = s.expect_type("rewind_done", &[]);
                assert_eq!(done["kept"], json!(["a.txt"]));
                let mut want = state0.clone();
                want.insert("a.txt".into(), before["a.txt"].clone());
                assert_eq!(tree(&w.ws()), want);
            }
            _ => {
                s.expect_type("rewind_done", &[]);
                assert_eq!(tree(&w.ws()), state0);
            }
        }
        s.finish();
    }
}

#[test]
fn checkpoints_survive_continue_and_a_rewind_waits_for_a_running_turn() {
    let w = World::new();
    write(&w, "a.txt", "alpha\n", 0o644);
    let state0 = tree(&w.ws());
    let script = w.script(
        "slow.json",
        json!([
            {"tool_calls": [exec("echo turn >> a.txt && mkdir -p d/e")]},
            {"text": "done"},
            {"delay_ms": 3000, "text": "slow"},
        ]),
    );
    let script_arg = script.to_str().unwrap();
    let mut s = w.jsonl(&["--script", script_arg]);
    run_turn(&mut s, "change");
    let changed = tree(&w.ws());
    s.finish();
    let mut s = w.jsonl(&["--continue", "--script", script_arg]);
    let items = checkpoints(&mut s);
    assert_eq!(items[0]["restorable"], true, "{items:?}");
    // While a turn runs, a rewind is refused with `busy` and nothing changes.
    let running = s.submit("slow one");
    let id = s.send("rewind", json!({"target": 1}));
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert_eq!(err["code"], "busy", "{err}");
    assert_eq!(tree(&w.ws()), changed);
    s.answer(running);
    rewind(&mut s, json!({"target": 1, "scope": "code"}));
    assert_eq!(tree(&w.ws()), state0);
    s.finish();
}

/// The opening events of a session up to its first snapshot's notices: a reopened session
/// publishes what it recovered right after the snapshot.
fn recovered_notice(s: &mut Jsonl) -> String {
    let ev = s.expect_type("checkpoint_notice", &[("kind", json!("rewind_recovered"))]);
    ev["message"].as_str().unwrap().to_owned()
}

/// Runs one changing turn and closes the session; returns the trees before and after it.
fn prepared(w: &World) -> (PathBuf, BTreeMap<String, Node>, BTreeMap<String, Node>) {
    write(w, "a.txt", "alpha\n", 0o644);
    write(w, "b.txt", "beta\n", 0o600);
    std::fs::create_dir(w.ws().join("empty")).unwrap();
    let before = tree(&w.ws());
    let script = w.script(
        "crash.json",
        json!([
            {"tool_calls": [exec(
                "echo turn >> a.txt && rm b.txt && rmdir empty && mkdir -p d/e && ln -s a.txt l \
                 && echo new > n.txt && chmod 755 n.txt"
            )]},
            {"text": "done"},
        ]),
    );
    let mut s = open(w, &script, &[], &[]);
    run_turn(&mut s, "change");
    let after = tree(&w.ws());
    s.finish();
    (script, before, after)
}

#[test]
fn a_kill_at_every_point_of_a_restore_leaves_before_or_after_and_the_session_says_which() {
    let mut points = 0;
    for n in 1..=60u32 {
        let w = World::new();
        let (script, _, changed) = prepared(&w);
        // The rewind goes back to before the turn: "before the restore" is the changed tree.
        let mut s = open(
            &w,
            &script,
            &[],
            &[("ASH_CRASH_RESTORE_AT", &n.to_string())],
        );
        s.send("rewind", json!({"target": 1, "scope": "code"}));
        let status = s.wait_dead();
        if status.signal() != Some(9) {
            assert!(n > 5, "only {} restore cut points were hit", n - 1);
            break;
        }
        points += 1;
        let mut s = open(&w, &script, &[], &[]);
        let message = recovered_notice(&mut s);
        let now = tree(&w.ws());
        if message.contains("rolled back") {
            assert_eq!(now, changed, "cut point {n}: {message}");
        } else {
            assert!(message.contains("completed"), "cut point {n}: {message}");
            assert_ne!(now, changed, "cut point {n}");
            assert!(
                !now.contains_key("l") && now.contains_key("b.txt"),
                "cut point {n}"
            );
        }
        // Recovered once: the next open says nothing more, and the session goes on.
        let items = checkpoints(&mut s);
        assert!(!items.is_empty());
        s.finish();
        let mut again = open(&w, &script, &[], &[]);
        again.send("checkpoints", json!({}));
        again.expect_type("checkpoints", &[]);
        let (_, events) = again.finish();
        assert!(
            !events.iter().any(|e| e["type"] == "checkpoint_notice"),
            "cut point {n}: reported twice"
        );
    }
    assert!(points > 5, "{points}");
}

#[test]
fn a_kill_around_the_restore_step_is_resolved_on_reopen() {
    for (point, word) in [
        ("rewind:restore", "rolled back"),
        ("rewind:restored", "completed"),
    ] {
        let w = World::new();
        let (script, _, changed) = prepared(&w);
        let mut s = open(&w, &script, &[], &[("ANSA_CRASH_AT", point)]);
        s.send("rewind", json!({"target": 1, "scope": "both"}));
        assert_eq!(s.wait_dead().signal(), Some(9), "{point}");
        let mut s = open(&w, &script, &[], &[]);
        let message = recovered_notice(&mut s);
        assert!(message.contains(word), "{point}: {message}");
        let now = tree(&w.ws());
        match word {
            "rolled back" => assert_eq!(now, changed),
            _ => assert!(now.contains_key("b.txt") && !now.contains_key("n.txt")),
        }
        s.finish();
    }
}

#[test]
fn a_kill_during_a_checkpoint_runs_no_tool_and_the_turn_resumes_with_a_checkpoint() {
    for point in ["checkpoint:before", "checkpoint:after"] {
        let w = World::new();
        write(&w, "a.txt", "alpha\n", 0o644);
        let state0 = tree(&w.ws());
        let script = one_edit_script(&w);
        let mut s = open(&w, &script, &[], &[("ANSA_CRASH_AT", point)]);
        s.send("submit", json!({"text": "append"}));
        assert_eq!(s.wait_dead().signal(), Some(9), "{point}");
        assert_eq!(tree(&w.ws()), state0, "{point}: the call never ran");
        let mut s = open(&w, &script, &[], &[]);
        s.send("resume", json!({"target": 1}));
        s.answer(1);
        assert_ne!(tree(&w.ws()), state0);
        rewind(&mut s, json!({"target": 1, "scope": "code"}));
        assert_eq!(tree(&w.ws()), state0, "{point}");
        s.finish();
    }
}

#[test]
fn the_rewind_flag_lists_asks_for_yes_and_rewinds_with_sanitised_output() {
    let w = World::new();
    write(&w, "a.txt", "alpha\n", 0o644);
    let state0 = tree(&w.ws());
    let script = one_edit_script(&w);
    let script_arg = script.to_str().unwrap();
    let ran = w
        .command(&["--offline", "--script", script_arg, "append \u{1b}[31mred"])
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let changed = tree(&w.ws());
    let list = w.command(&["--offline", "--rewind"]).output().unwrap();
    let out = String::from_utf8(list.stdout).unwrap();
    assert!(list.status.success(), "{out}");
    assert!(
        out.contains("   1  ") && out.contains("a.txt, made.txt"),
        "{out}"
    );
    assert!(!out.contains('\u{1b}'), "the prompt is sanitised: {out:?}");
    // Without a terminal a rewind needs --yes; the plan is shown and nothing changes.
    let asked = w
        .command(&["--offline", "--rewind", "1"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(asked.status.code(), Some(2));
    let plan = String::from_utf8(asked.stdout).unwrap();
    assert!(
        plan.contains("restore  a.txt") && plan.contains("delete   made.txt"),
        "{plan}"
    );
    assert!(String::from_utf8_lossy(&asked.stderr).contains("--yes"));
    assert_eq!(tree(&w.ws()), changed);
    let done = w
        .command(&[
            "--offline",
            "--rewind",
            "1",
            "--rewind-scope",
            "code",
            "--yes",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let out = String::from_utf8(done.stdout).unwrap();
    assert!(
        done.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(
        out.contains("1 restored") && out.contains("1 deleted"),
        "{out}"
    );
    assert_eq!(tree(&w.ws()), state0);
    let none = w
        .command(&["--offline", "--rewind", "9", "--yes"])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no turn 9"));
}

#[test]
fn a_spent_store_budget_is_a_visible_notice_and_refuses_the_code_rewind() {
    let w = World::new();
    write(&w, "a.txt", "alpha\n", 0o644);
    w.project_config(json!({"checkpoint_budget_bytes": 0}));
    let script = one_edit_script(&w);
    let mut s = open(&w, &script, &[], &[]);
    let id = s.submit("append");
    let notice = s.expect_type(
        "checkpoint_notice",
        &[("request_id", json!(id)), ("kind", json!("over_budget"))],
    );
    assert!(
        notice["message"]
            .as_str()
            .unwrap()
            .contains("checkpoint_budget_bytes"),
        "{notice}"
    );
    s.answer(id);
    let items = checkpoints(&mut s);
    assert_eq!(items[0]["restorable"], false, "{items:?}");
    let changed = tree(&w.ws());
    let cmd = s.send("rewind", json!({"target": 1, "scope": "code"}));
    let err = s.expect_type("error", &[("command_id", json!(cmd))]);
    assert_eq!(err["code"], "rewind_refused", "{err}");
    assert!(err["message"].as_str().unwrap().contains("budget"), "{err}");
    assert_eq!(tree(&w.ws()), changed);
    // The conversation can still be rewound.
    rewind(&mut s, json!({"target": 1, "scope": "conversation"}));
    s.finish();
    // Line and one-shot modes print the notice on stderr.
    let w = World::new();
    w.project_config(json!({"checkpoint_budget_bytes": 0}));
    let script = one_edit_script(&w);
    let out = w
        .command(&["--offline", "--script", script.to_str().unwrap(), "append"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("ansa: checkpoint store is over its budget"),
        "{stderr}"
    );
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_damaged_store_object_refuses_the_rewind_naming_the_path_and_changes_nothing() {
    let w = World::new();
    write(&w, "a.txt", "alpha\n", 0o644);
    let script = one_edit_script(&w);
    let mut s = open(&w, &script, &[], &[]);
    run_turn(&mut s, "append");
    s.finish();
    let objects = w.path("session").join("checkpoints").join("objects");
    let damaged = files_under(&objects);
    assert!(!damaged.is_empty());
    for f in &damaged {
        let mut bytes = std::fs::read(f).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::write(f, bytes).unwrap();
    }
    let changed = tree(&w.ws());
    let mut s = open(&w, &script, &[], &[]);
    let id = s.send("rewind", json!({"target": 1, "scope": "code"}));
    let err = s.expect_type("error", &[("command_id", json!(id))]);
    assert_eq!(err["code"], "rewind_refused", "{err}");
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains("a.txt") && message.contains("nothing"),
        "{message}"
    );
    assert_eq!(tree(&w.ws()), changed);
    s.finish();
    // Settled: the next open reports no interrupted rewind.
    let again = open(&w, &script, &[], &[]);
    let (_, events) = again.finish();
    assert!(
        !events.iter().any(|e| e["type"] == "checkpoint_notice"),
        "{events:?}"
    );
}

#[test]
fn a_turn_that_writes_a_star_into_gitignore_is_still_rewound() {
    let w = World::new();
    write(&w, ".gitignore", "target/\n", 0o644);
    write(&w, "a.txt", "alpha\n", 0o644);
    let state0 = tree(&w.ws());
    let script = w.script(
        "ignore_all.json",
        json!([
            {"tool_calls": [exec("printf '*\\n' > .gitignore && echo turn >> a.txt")]},
            {"text": "done"},
        ]),
    );
    let mut s = open(&w, &script, &[], &[]);
    run_turn(&mut s, "ignore everything");
    assert_ne!(tree(&w.ws()), state0);
    s.send(
        "rewind",
        json!({"target": 1, "scope": "code", "dry_run": true}),
    );
    let plan = s.expect_type("rewind_plan", &[("target", json!(1))]);
    let restore: Vec<&str> = plan["restore"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(restore, [".gitignore", "a.txt"], "{plan}");
    assert_eq!(plan["unkept"], json!([".gitignore", "a.txt"]), "{plan}");
    rewind(&mut s, json!({"target": 1, "scope": "code"}));
    assert_eq!(tree(&w.ws()), state0, "the gitignore and the file are back");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}

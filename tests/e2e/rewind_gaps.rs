//! Rewind's later gaps through the real binary: a real process writing the workspace during
//! a JSONL rewind (the restore rolls back, keeps both versions of the path it created again,
//! reports them in `rewind_done` and leaves no journal), and `ansa --rewind` on a live session
//! without any provider credentials, including undoing a rewind (`--rewind undo`).

use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::harness::World;
use crate::live::live_env;
use crate::mock_provider::{MockProvider, MockResponse};
use crate::responses_script::{self, Turn};
use crate::tasks;

fn read(w: &World, rel: &str) -> String {
    std::fs::read_to_string(w.ws().join(rel)).unwrap_or_default()
}

/// A shell writing `f` again and again, as fast as it can, until killed: each round opens
/// (creating it when it is gone) and truncates it, so the file stays small while every
/// restore finds it changed, and one that moves it away often finds it created again.
struct Writer(Child);

impl Writer {
    fn start(dir: &Path) -> Writer {
        let child = Command::new("sh")
            .args(["-c", "i=0; while :; do i=$((i+1)); echo \"x$i\" > f; done"])
            .current_dir(dir)
            .stdin(Stdio::null())
            .spawn()
            .expect("sh");
        Writer(child)
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_writer_process_during_a_jsonl_rewind_keeps_both_versions_and_leaves_no_journal() {
    let w = World::new();
    std::fs::write(w.ws().join("f"), "original\n").unwrap();
    let script = w.script(
        "turn.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "sh",
                "args": ["-c", "echo by-the-turn > f"], "cwd": ".", "env": [], "stdin": null,
                "timeout_ms": null, "outside_sandbox": null}}]},
            {"text": "done"},
        ]),
    );
    let dir = w.path("session");
    let mut s = w.jsonl_with(
        &[
            "--session",
            dir.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
        ],
        &[],
    );
    let id = s.submit("change f");
    s.answer(id);
    let writer = Writer::start(&w.ws());
    let mut done: Option<Value> = None;
    for _ in 0..300 {
        let id = s.send(
            "rewind",
            json!({"target": 1, "scope": "code", "on_conflict": "take"}),
        );
        let ev = s.expect("rewind_done or an error", |v| {
            v["type"] == "rewind_done" || (v["type"] == "error" && v["command_id"] == json!(id))
        });
        assert!(
            !w.ws().join(".ash/restore").exists(),
            "a restore journal was left: {ev}"
        );
        if ev["type"] == "error" {
            let message = ev["message"].as_str().unwrap();
            assert_eq!(ev["code"], "rewind_refused", "{ev}");
            assert!(
                message.contains("changed by another process"),
                "only the writer may stop it: {ev}"
            );
            continue;
        }
        if ev["rolled_back"] == json!(true) {
            done = Some(ev);
            break;
        }
        // The restore won the race: the writer then appends to the restored file.
    }
    drop(writer);
    let done = done.expect("the writer never created f again during 300 rewinds");
    assert_eq!(done["restored"], 0, "{done}");
    let conflicts = done["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{done}");
    assert_eq!(conflicts[0]["path"], "f");
    let aside = conflicts[0]["set_aside"].as_str().unwrap();
    assert!(aside.starts_with("f.ansa-rewind-conflict-"), "{aside}");
    // The version from before the restore is next to the writer's: one whole version of f
    // (the turn's, the restored one or one of the writer's), never a mix.
    let kept = read(&w, aside);
    let lines: Vec<&str> = kept.lines().collect();
    assert_eq!(lines.len(), 1, "{kept:?}");
    assert!(
        ["by-the-turn", "original"].contains(&lines[0]) || lines[0].starts_with('x'),
        "{kept:?}"
    );
    // The writer's own file (empty when it was killed between truncating and writing).
    let theirs = read(&w, "f");
    assert!(
        theirs.is_empty() || theirs.starts_with('x'),
        "the writer's own file: {theirs:?}"
    );
    // The workspace is usable: the next rewind works.
    let id = s.send(
        "rewind",
        json!({"target": 1, "scope": "code", "on_conflict": "take"}),
    );
    let ev = s.expect("rewind_done or an error", |v| {
        v["type"] == "rewind_done" || (v["type"] == "error" && v["command_id"] == json!(id))
    });
    assert_eq!(ev["type"], "rewind_done", "{ev}");
    assert_eq!(read(&w, "f"), "original\n");
    s.finish();
}

#[test]
fn the_rewind_flag_needs_no_credentials_and_undoes_a_rewind() {
    let w = World::new();
    std::fs::write(w.ws().join("a.txt"), "alpha\n").unwrap();
    let mock = MockProvider::http();
    for (n, turn) in [
        Turn::Calls(vec![tasks::exec("sh", &["-c", "echo turn >> a.txt"])]),
        Turn::Text("changed"),
    ]
    .into_iter()
    .enumerate()
    {
        mock.push(
            "/v1/responses",
            MockResponse::sse([responses_script::stream(n, &turn)]),
        );
    }
    let dir = w.path("session");
    let session = dir.to_str().unwrap();
    let mut c = w.command(&["--live-jsonl", "--session", session]);
    for (k, v) in live_env(&mock, "responses") {
        c.env(k, v);
    }
    let mut s = crate::harness::Jsonl::spawn(c);
    let id = s.submit("append to a.txt");
    s.answer(id);
    s.finish();
    assert_eq!(read(&w, "a.txt"), "alpha\nturn\n");
    let requests = mock.requests_to("/v1/responses").len();
    // Without AI_PROVIDER, AI_ENDPOINT, AI_API_KEY or a sign-in (World clears them all).
    let run = |args: &[&str]| {
        let mut all = vec!["--session", session, "--rewind"];
        all.extend_from_slice(args);
        let out = w.command(&all).stdin(Stdio::null()).output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    };
    let (code, list) = run(&[]);
    assert_eq!(code, Some(0), "{list}");
    assert!(list.contains("append to a.txt"), "{list}");
    let (code, text) = run(&["1", "--rewind-scope", "code", "--yes"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("1 restored"), "{text}");
    assert_eq!(read(&w, "a.txt"), "alpha\n");
    // The rewind is listed as undo-1 and `--rewind undo` puts the files back.
    let (code, list) = run(&[]);
    assert_eq!(code, Some(0), "{list}");
    assert!(
        list.contains("undo-1") && list.contains("before the rewind to turn 1"),
        "{list}"
    );
    let (code, text) = run(&["undo-2", "--yes"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("undo-1..=undo-1"), "{text}");
    let (code, text) = run(&["undo", "--yes"]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(read(&w, "a.txt"), "alpha\nturn\n");
    // A conversation rewind needs no credentials either.
    let (code, text) = run(&["1", "--rewind-scope", "conversation", "--yes"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("append to a.txt"),
        "the prompt comes back: {text}"
    );
    assert_eq!(
        mock.requests_to("/v1/responses").len(),
        requests,
        "a rewind asks no model"
    );
}

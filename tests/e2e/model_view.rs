//! What the model is told, end to end: golden first request bodies (live and offline), the
//! annotated answers of `docs/agent.md` (generated from the scripted tasks' last request
//! bodies), and a live compaction and a restart that keep the instructions and the environment
//! message exactly while every answer stays self-contained.
//!
//! `ANSA_BLESS=1` rewrites the golden files and the generated part of `docs/agent.md`.

use std::path::{Path, PathBuf};

use ansa::provider::live::Wire;
use ansa::provider::responses::{ResponsesInput, request_body};
use ansa::tools::{Mode, ToolRegistry};
use ansa_sessions::protocol::EventBody;
use serde_json::{Value, json};

use crate::live_runtime;
use crate::mock_provider::{MockProvider, MockResponse};
use crate::responses_script::{self, Turn};
use crate::tasks;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Compares `actual` with the file at `rel`, or rewrites it under `ANSA_BLESS`.
fn golden(rel: &str, actual: &str) {
    let path = repo(rel);
    if std::env::var_os("ANSA_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "{rel} is not current: review the change, then rerun with ANSA_BLESS=1\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

/// The environment message with what differs per machine and day replaced by placeholders.
/// The shell line is absent where `$SHELL` is unset (as under some CI runners), so it is
/// dropped and one placeholder put in its place after `os`.
fn normalize_environment(text: &str) -> String {
    let mut lines = Vec::new();
    for line in text.lines() {
        match line.split_once(": ") {
            Some(("cwd", _)) => lines.push("cwd: <workspace>".to_owned()),
            Some(("os", _)) => {
                lines.push("os: <os> <arch>".to_owned());
                lines.push("shell: <shell>".to_owned());
            }
            Some(("shell", _)) => {}
            Some(("date", _)) => lines.push("date: <today> (UTC)".to_owned()),
            _ => lines.push(line.to_owned()),
        }
    }
    lines.join("\n") + "\n"
}

fn normalized(mut body: Value) -> Value {
    // The session's id, new for every session: its shape is checked, its value left out.
    if let Some(key) = body.get_mut("prompt_cache_key") {
        let id = key.as_str().unwrap_or_default();
        assert!(ansa_sessions::SessionId::parse(id).is_some(), "{key}");
        *key = json!("<session id>");
    }
    if let Some(first) = body["input"].get_mut(0)
        && let Some(text) = first["content"].as_str()
        && text.starts_with("<environment>")
    {
        first["content"] = json!(normalize_environment(text));
    }
    body
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap() + "\n"
}

#[test]
fn first_request_bodies_match_the_golden_files() {
    let dir = tempfile::tempdir().unwrap();
    let task = &tasks::tasks()[0];
    let bodies = tasks::run(task, dir.path());
    golden(
        "tests/golden/first-request-live.json",
        &pretty(&normalized(bodies[0].clone())),
    );
    // The offline profile sends nothing over the network; its first generation would read
    // exactly this (the offline set adds `get_test_value`).
    let prompt = ansa::prompt::Prompt::new("", "");
    let tools = ToolRegistry::offline().unwrap().provider_tools(Mode::Basic);
    let input = [
        ResponsesInput::User(normalize_environment(
            "<environment>\ncwd: x\nos: x x\nshell: x\ndate: x\n</environment>\n",
        )),
        ResponsesInput::User("What is the test value of k?".into()),
    ];
    let offline = request_body(
        ansa::config::OFFLINE_MODEL,
        "",
        prompt.for_mode(Mode::Basic),
        &input,
        &tools,
        None,
    )
    .unwrap();
    golden(
        "tests/golden/first-request-offline.json",
        &pretty(&serde_json::from_slice(&offline).unwrap()),
    );
}

/// What a top-level field of a model view means, for the annotations of `docs/agent.md`.
fn field_meaning(key: &str) -> &'static str {
    match key {
        "s" => "status in a word (ok, failed, …; the legend lists all)",
        "error" => "what went wrong, in a word the legend names",
        "why" => "what was wrong with a call refused before it ran",
        "next" => "what to do about the error",
        "more" => "what was left out and the evidence call that reads it",
        "flags" => "what was done to the answer: cut, reduced, crlf_as_lf, retained, partial",
        "r" => "the retained value of the whole result",
        _ => "(not in the legend)",
    }
}

/// What the columns of a `d` header mean, by the header's column list.
fn columns_meaning(line: &str) -> &'static str {
    let cols = line
        .find('{')
        .map_or("", |at| &line[at..line.len().saturating_sub(1)]);
    match cols {
        "{file,text}" => {
            "read rows: the file, the text (the first, last and every fifth line numbered)"
        }
        "{file,from,count,text}" => {
            "read rows in bytes: the file, first byte, bytes shown, the text"
        }
        "{files,lines,matches,text}" => {
            "search: files, lines and matches found, the text (each file's path, then its numbered lines)"
        }
        "{k,c,ms,o,e,ro,re}" => {
            "exec: k how it ended (0 exited), c exit code, ms elapsed, o stdout, e stderr, ro/re the retained streams"
        }
        "{o,n,p,t,b}" => {
            "evidence slice: o offset, n bytes selected, p bytes shown, t text, b hex when not text"
        }
        "{o,l,c,t}" => "evidence search rows: o byte offset, l line, c column, t the line",
        "{p,k,z}" => "list rows: p path id, k kind (0 file, 1 dir, 2 symlink), z size",
        "{p,c,k,z}" => {
            "snapshot rows: p path id, c change (0 captured, 1 added, 2 modified, 3 removed), k kind, z size"
        }
        "{file,state,added,removed,at}" => {
            "edit rows: the file, its state, lines added and removed, where the change is now"
        }
        "{i,k,p,q,s}" => "files rows: i action, k kind, p path id, q destination id, s state",
        "{i,v}" => "path ids used by this answer's rows, defined here",
        _ => "(not in the legend)",
    }
}

/// `output` with an exec record's elapsed milliseconds set to 0 (the one cell that differs
/// from run to run).
fn without_elapsed(output: &str) -> String {
    let mut lines: Vec<String> = output.split('\n').map(str::to_owned).collect();
    if let Some(at) = lines.iter().position(|l| l.starts_with("d{k,c,ms,"))
        && let Some(row) = lines.get_mut(at + 1)
    {
        let mut cells: Vec<&str> = row.splitn(4, ',').collect();
        if cells.len() == 4 {
            cells[2] = "0";
            *row = cells.join(",");
        }
    }
    lines.join("\n")
}

/// One tool output with a field-by-field annotation.
fn annotate(output: &str) -> String {
    let output = &without_elapsed(output);
    let mut out = String::from("```text\n");
    out.push_str(output);
    if !output.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("```\n\n| field | meaning |\n|---|---|\n");
    for line in output.lines() {
        if line.starts_with(">>>") {
            out.push_str(&format!(
                "| `{line}` | a raw text block: the text of the cell `{line}` |\n"
            ));
            break;
        }
        let key: String = line
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let header = line.ends_with(':') && (line.contains('{') || line.contains('['));
        let scalar = line.contains(':') && !line.starts_with('"') && !key.is_empty();
        if !key.is_empty() && (header || (scalar && line[key.len()..].starts_with(':'))) {
            let shown = line.replace('|', "\\|");
            let shown = if shown.len() > 60 {
                format!("{}…", &shown[..shown.floor_char_boundary(60)])
            } else {
                shown
            };
            let meaning = if header {
                columns_meaning(line)
            } else {
                field_meaning(&key)
            };
            out.push_str(&format!("| `{shown}` | {meaning} |\n"));
        }
    }
    out.push('\n');
    out
}

#[test]
fn docs_agent_md_shows_real_answers_annotated() {
    let all = tasks::tasks();
    let mut generated = String::new();
    let shown = ["ten-call", "failing-build", "feature"];
    for task in all.iter().filter(|t| shown.contains(&t.name)) {
        let dir = tempfile::tempdir().unwrap();
        let bodies = tasks::run(task, dir.path());
        let last = bodies.last().unwrap();
        generated.push_str(&format!(
            "### Task `{}`: every tool output of its last request\n\n",
            task.name
        ));
        for item in last["input"].as_array().unwrap() {
            if let Some(output) = item["output"].as_str() {
                generated.push_str(&annotate(output));
            }
        }
    }
    let path = repo("docs/agent.md");
    let doc = std::fs::read_to_string(&path).expect("docs/agent.md");
    let (begin, end) = ("<!-- generated:begin -->\n", "<!-- generated:end -->");
    let (head, rest) = doc.split_once(begin).expect("a generated:begin marker");
    let (_, tail) = rest.split_once(end).expect("a generated:end marker");
    let updated = format!("{head}{begin}{generated}{end}{tail}");
    if std::env::var_os("ANSA_BLESS").is_some() {
        std::fs::write(&path, &updated).unwrap();
        return;
    }
    assert!(
        doc == updated,
        "docs/agent.md's generated part is not current; rerun with ANSA_BLESS=1"
    );
    for line in generated.lines().filter(|l| l.starts_with("| `")) {
        assert!(!line.contains("(not in the legend)"), "{line}");
    }
}

fn search_call(query: &str) -> Turn {
    Turn::Calls(vec![tasks::search(query, &["."])])
}

#[test]
fn a_live_compaction_and_a_restart_keep_the_prompt_and_environment_and_answers_stay_self_contained()
{
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let padding = "x".repeat(6000);
    std::fs::write(ws.join("a.txt"), format!("alpha {padding}\n")).unwrap();
    std::fs::write(ws.join("b.txt"), format!("beta {padding}\n")).unwrap();
    let mock = MockProvider::http();
    let push = |n: usize, turn: Turn| {
        mock.push(
            "/v1/responses",
            MockResponse::sse([responses_script::stream(n, &turn)]),
        );
    };
    // Turn 1 introduces the ids of a.txt and b.txt in a search; turns 2 and 3 fill the
    // context; turn 4 compacts first (one summary request), then lists b.txt, whose id came
    // from the compacted search, and reads it (a read names its file in its rows).
    push(0, search_call("a"));
    push(1, Turn::Text("t1"));
    push(2, search_call("beta"));
    push(3, Turn::Text("t2"));
    push(4, search_call("alpha"));
    push(5, Turn::Text("t3"));
    push(6, Turn::Text("summary of turns 1-3"));
    push(
        7,
        Turn::Calls(vec![
            (
                "list",
                serde_json::json!({"paths": ["b.txt"], "depth": 0, "include_hidden": false, "kind": "all"}),
            ),
            tasks::read(&["b.txt"], 1),
        ]),
    );
    push(8, Turn::Text("t4"));
    let link = live_runtime::start(&mock.base_url(), Wire::Responses, dir.path(), &ws, 16_384);
    for n in 1..=4 {
        live_runtime::submit(&link, &format!("c{n}"), &format!("task {n}"));
        live_runtime::wait(&link, |b| matches!(b, EventBody::Done { .. }));
    }
    live_runtime::close(link);
    let bodies = tasks::bodies(&mock);
    assert_eq!(bodies.len(), 9);
    let first = &bodies[0];
    let environment = first["input"][0].clone();
    assert!(
        environment["content"]
            .as_str()
            .unwrap()
            .starts_with("<environment>")
    );
    let summary = &bodies[6];
    assert!(
        summary["tools"].is_null(),
        "the summary request offers no tools"
    );
    let after = &bodies[7];
    assert_eq!(after["instructions"], first["instructions"]);
    assert_eq!(after["input"][0], environment, "kept by the compaction");
    let text = serde_json::to_string(&after["input"]).unwrap();
    assert!(text.contains("summary of turns 1-3"), "{text}");
    let outputs: Vec<&str> = bodies[8]["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["output"].as_str())
        .collect();
    let (list, read) = (outputs[outputs.len() - 2], outputs[outputs.len() - 1]);
    assert!(
        list.starts_with("s:ok\np[1]{i,v}:\n2,b.txt\n"),
        "the id from the compacted search is defined again: {list}"
    );
    assert!(
        read.starts_with("s:ok\nd[1]{file,text}:\nb.txt,"),
        "the read names its file: {read}"
    );

    // A restart replays the same context: nothing is regenerated.
    push(9, Turn::Text("t5"));
    let link = live_runtime::start(&mock.base_url(), Wire::Responses, dir.path(), &ws, 16_384);
    live_runtime::submit(&link, "c5", "task 5");
    live_runtime::wait(&link, |b| matches!(b, EventBody::Done { .. }));
    live_runtime::close(link);
    let resumed = tasks::bodies(&mock).pop().unwrap();
    assert_eq!(resumed["instructions"], first["instructions"]);
    assert_eq!(resumed["input"][0], environment);
    let environments = resumed["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| {
            i["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("<environment>"))
        })
        .count();
    assert_eq!(environments, 1);
}

#[test]
fn the_journal_keeps_every_answer_byte_for_byte_beside_what_the_model_received() {
    let dir = tempfile::tempdir().unwrap();
    let task = &tasks::tasks()[0];
    let bodies = tasks::run(task, dir.path());
    let sent: Vec<String> = bodies.last().unwrap()["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["output"].as_str().map(str::to_owned))
        .collect();
    let journal = crate::harness::journal_text(&dir.path().join("session"));
    let outcomes: Vec<Value> = journal
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["kind"] == "tool_outcome")
        .map(|r| r["body"].clone())
        .collect();
    assert_eq!(outcomes.len(), 10, "{journal}");
    for (outcome, sent) in outcomes.iter().zip(&sent) {
        assert_eq!(outcome["output"].as_str(), Some(sent.as_str()));
        let answer = outcome["answer"].as_str().expect("the canonical answer");
        assert!(
            answer.starts_with("t:3\ni:") && answer.contains("\nz:"),
            "{answer}"
        );
        // The canonical answer decodes as ASH/1; the view is derived from it.
        let limits = ash_engine::ason::Limits::default();
        ash_engine::protocol::Response::decode(answer.as_bytes(), &limits).expect("canonical");
    }
}

#[test]
fn a_streamed_reasoning_summary_reaches_the_frontend_as_a_reasoning_preview() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let mock = MockProvider::http();
    let recorded = std::fs::read_to_string(repo("spec/sse/responses-text.sse")).unwrap();
    mock.push("/v1/responses", MockResponse::sse_text(&recorded, 64));
    let link = live_runtime::start(&mock.base_url(), Wire::Responses, dir.path(), &ws, 1 << 20);
    live_runtime::submit(&link, "c1", "hello");
    let seen = std::cell::RefCell::new(Vec::new());
    live_runtime::wait(&link, |b| {
        if let EventBody::ReasoningPreview { text, .. } = b {
            seen.borrow_mut().push(text.clone());
        }
        matches!(b, EventBody::Done { .. })
    });
    live_runtime::close(link);
    let seen = seen.into_inner();
    assert_eq!(
        seen.last().map(String::as_str),
        Some("The user greets; answer briefly."),
        "{seen:?}"
    );
}

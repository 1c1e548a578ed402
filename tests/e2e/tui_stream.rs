//! A long answer streamed by a real provider stream (the mock Responses server sending small
//! text deltas with pauses) into the TUI under tmux at 60×20, 100×32 and 120×40: the table
//! reaches the scrollback whole, and resizing 100→80→120 columns (and the same ratios at the
//! other sizes) while the table streams leaves every committed line there exactly once
//! (`capture-pane -J -S -`: the whole history, rows tmux itself wrapped joined again).

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::World;
use crate::live::live_env;
use crate::mock_provider::{MockProvider, MockResponse};
use crate::responses_script::{Turn, stream};
use crate::tmux::Tmux;

/// Rows of the streamed table.
const ROWS: usize = 36;

fn long_answer() -> String {
    let mut text = String::new();
    for n in 1..=4 {
        text.push_str(&format!(
            "Paragraph {n} explains the settings below in enough words to wrap on a narrow terminal.\n\n"
        ));
    }
    text.push_str("| setting | value | what it does |\n|---|---:|---|\n");
    for k in 1..=ROWS {
        text.push_str(&format!(
            "| option_{k:02} | {} | sets knob {k} when the server starts or reloads |\n",
            8000 + k
        ));
    }
    text.push_str("\nAfter the table comes a short example:\n\n```rust\n");
    for k in 1..=10 {
        text.push_str(&format!(
            "let knob_{k:02} = read_knob({k}); // knob line {k}\n"
        ));
    }
    text.push_str("```\n\n");
    for n in 5..=8 {
        text.push_str(&format!(
            "Paragraph {n} closes the answer with a few more words about the settings.\n\n"
        ));
    }
    text
}

/// The answer as a Responses stream whose text arrives in deltas of about three words, each
/// cut before a space as a tokenizer would (so many end right after a row's opening `|`).
fn chunked_stream(text: &str) -> Vec<String> {
    let whole = stream(0, &Turn::Text(Box::leak(text.to_owned().into_boxed_str())));
    let mut events: Vec<Value> = Vec::new();
    for block in whole.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let data = block
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .expect("an SSE event has data");
        let event: Value = serde_json::from_str(data).expect("SSE data is JSON");
        if event["type"] == "response.output_text.delta" {
            let spaces: Vec<usize> = text.match_indices(' ').map(|(at, _)| at).collect();
            let mut from = 0;
            for end in spaces.iter().skip(2).step_by(3).chain([&text.len()]) {
                let mut delta = event.clone();
                delta["delta"] = json!(&text[from..*end]);
                events.push(delta);
                from = *end;
            }
        } else {
            events.push(event);
        }
    }
    events
        .into_iter()
        .enumerate()
        .map(|(seq, mut event)| {
            event["sequence_number"] = json!(seq);
            let kind = event["type"].as_str().unwrap_or_default().to_owned();
            format!("event: {kind}\ndata: {event}\n\n")
        })
        .collect()
}

/// Runs the streamed answer at `width`×`height`, resizing as `resizes` say: when the screen
/// first shows the marker, the window takes that width. The terminal is full of earlier output
/// when `ansa` starts, as after a while of use, so the live region sits at the bottom.
fn streamed(width: u16, height: u16, resizes: &[(&str, u16)]) -> String {
    let sized: Vec<(&str, (u16, u16))> = resizes.iter().map(|&(m, w)| (m, (w, height))).collect();
    streamed_sizes(width, height, &sized)
}

/// Like [`streamed`], each resize giving the window both a width and a height.
fn streamed_sizes(width: u16, height: u16, resizes: &[(&str, (u16, u16))]) -> String {
    let w = World::new();
    let mock = MockProvider::http();
    let text = long_answer();
    mock.push(
        "/v1/responses",
        MockResponse::sse(chunked_stream(&text)).chunk_delay(Duration::from_millis(25)),
    );
    let env = live_env(&mock, "responses");
    let t = Tmux::start_with_env(&w, "seq 1 60 &&", &[], &env, width, height);
    t.wait_text("idle");
    t.type_text("explain the settings");
    t.keys(&["Enter"]);
    for (marker, (to_width, to_height)) in resizes {
        t.wait_text(marker);
        t.resize(*to_width, *to_height);
    }
    t.wait_text("answer complete");
    t.capture_joined()
}

/// Every row of the table, every code line and every paragraph exactly once, and no table
/// row as raw Markdown.
fn assert_once(capture: &str, size: (u16, u16)) {
    let lines: Vec<&str> = capture.lines().collect();
    assert!(
        !lines.iter().any(|l| l.contains("| option_")),
        "{size:?}: a table row reached the scrollback as text:\n{capture}"
    );
    for k in 1..=ROWS {
        let name = format!("option_{k:02}");
        let n = lines.iter().filter(|l| l.contains(&name)).count();
        assert_eq!(n, 1, "{size:?}: {name} appears {n} times:\n{capture}");
    }
    for k in 1..=10 {
        let code = format!("let knob_{k:02} = read_knob({k});");
        let n = lines.iter().filter(|l| l.contains(&code)).count();
        assert_eq!(n, 1, "{size:?}: `{code}` appears {n} times:\n{capture}");
    }
    for n in 1..=8 {
        let start = format!("Paragraph {n} ");
        let count = lines.iter().filter(|l| l.contains(&start)).count();
        assert_eq!(
            count, 1,
            "{size:?}: {start} appears {count} times:\n{capture}"
        );
    }
}

#[test]
fn resizing_while_a_table_streams_leaves_every_line_once() {
    for (width, height) in [(100, 32), (60, 20), (120, 40)] {
        let (narrow, wide) = (width * 4 / 5, width * 6 / 5);
        let capture = streamed(width, height, &[("option_06", narrow), ("option_14", wide)]);
        assert_once(&capture, (width, height));
    }
}

#[test]
fn shrinking_width_and_height_together_while_streaming_leaves_every_line_once() {
    // Before the terminal's cursor was parked at the live region's top, tmux pushed the rows of
    // the region above the cursor into its history when the screen got shorter and narrower at
    // once: preview rows stayed there as ghosts of lines committed later.
    for (width, height) in [(120, 40), (100, 32), (60, 20)] {
        let capture = streamed_sizes(
            width,
            height,
            &[
                ("option_05", (60, 20)),
                ("option_15", (100, 32)),
                ("option_25", (60, 20)),
                ("knob_03", (120, 40)),
            ],
        );
        assert_once(&capture, (width, height));
    }
}

#[test]
fn three_narrow_wide_cycles_while_streaming_leave_every_line_once() {
    for (width, height) in [(100, 32), (60, 20), (120, 40)] {
        let narrow = width * 3 / 5;
        let capture = streamed(
            width,
            height,
            &[
                ("option_04", narrow),
                ("option_10", width),
                ("option_16", narrow),
                ("option_22", width),
                ("option_30", narrow),
                ("knob_04", width),
            ],
        );
        assert_once(&capture, (width, height));
    }
}

#[test]
fn a_table_streamed_in_small_chunks_reaches_the_scrollback_whole() {
    for (width, height) in [(60, 20), (100, 32), (120, 40)] {
        let capture = streamed(width, height, &[]);
        assert_once(&capture, (width, height));
        // Columns when the table fits, its narrow form when it does not.
        if width >= 80 {
            assert!(capture.contains("option_07 │  8007 │"), "{capture}");
        } else {
            assert!(capture.contains("setting: option_07"), "{capture}");
        }
    }
}

/// The events of a `tool_output` command: its page.
fn output_page(s: &mut crate::harness::Jsonl, view: &str, call: Option<&str>) -> Value {
    let mut query = json!({"offset": 0, "limit": 256, "view": view});
    if let Some(call) = call {
        query["call_id"] = json!(call);
    }
    s.send("tool_output", query);
    s.expect_type("tool_output", &[])
}

#[test]
fn tool_output_shows_a_running_commands_output_and_a_finished_calls_text() {
    let w = World::new();
    let printer = "for i in $(seq 1 40); do printf '\\033[32mline %s\\033[0m\\n' $i; sleep 0.05; done; echo err >&2";
    let script = w.script(
        "live.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "sh", "args": ["-c", printer],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
            {"text": "printed"}
        ]),
    );
    let mut s = w.jsonl(&["--script", script.to_str().unwrap()]);
    let rid = s.submit("print slowly");
    let started = s.expect_type("tool_status", &[("status", json!("started"))]);
    let call = started["call_id"].as_str().unwrap().to_owned();
    // While it runs: its output so far, marked running (it used to say "no recorded output").
    let mut live = Value::Null;
    for _ in 0..100 {
        let page = output_page(&mut s, "readable", None);
        let lines = page["lines"].as_array().cloned().unwrap_or_default();
        if page["running"] == json!(true)
            && lines
                .iter()
                .any(|l| l.as_str().is_some_and(|l| l.contains("line 3")))
        {
            live = page;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(live["running"], json!(true), "a running page: {live}");
    assert_eq!(live["view"], json!("readable"), "{live}");
    assert_eq!(live["call_id"], json!(call), "{live}");
    assert_eq!(s.answer(rid), "printed");
    // Finished: the readable text names the streams; the model's view is the ASON.
    let page = output_page(&mut s, "readable", Some(&call));
    let text: Vec<&str> = page["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(page.get("running").is_none(), "{page}");
    assert!(text.contains(&"── stdout"), "{text:#?}");
    assert!(text.contains(&"── stderr"), "{text:#?}");
    assert!(text.iter().any(|l| l.contains("line 40")), "{text:#?}");
    assert!(text.contains(&"err"), "{text:#?}");
    let model = output_page(&mut s, "model", Some(&call));
    assert!(
        model.get("view").is_none(),
        "the model view is the default: {model}"
    );
    let first = model["lines"][0].as_str().unwrap_or_default();
    assert!(first.starts_with("s:ok"), "ASON: {model}");
    s.finish();
}

#[test]
fn ctrl_o_shows_a_running_commands_output_and_then_its_readable_text() {
    for (width, height) in [(60, 20), (100, 32), (120, 40)] {
        let w = World::new();
        let printer = "for i in $(seq 1 60); do printf '\\033[31mline %s of the build\\033[0m\\n' $i; sleep 0.05; done";
        let script = w.script(
            "slow.json",
            json!([
                {"tool_calls": [{"name": "exec", "arguments": {"program": "sh", "args": ["-c", printer],
                    "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
                {"text": "built"}
            ]),
        );
        let t = Tmux::start(
            &w,
            &["--offline", "--script", script.to_str().unwrap()],
            width,
            height,
        );
        t.wait_text("idle");
        t.type_text("build it");
        t.keys(&["Enter"]);
        t.wait_text("exec sh -c");
        t.keys(&["C-o"]);
        // Live: the output so far, following its end, colours gone, numbered.
        let screen = t.wait_for("the running output", |s| {
            s.contains("output so far") && s.contains("line 5 of the build")
        });
        assert!(!screen.contains('␛'), "{screen}");
        t.wait_for("the output to follow", |s| {
            s.contains("line 40 of the build") && s.contains("output so far")
        });
        // Once it ended, the viewer says so by itself.
        t.wait_for("the finished output", |s| {
            s.contains("built") && !s.contains("output so far") && s.contains("── exec")
        });
        // Finished: the readable text, stdout under its header, then Tab for the ASON.
        t.keys(&["C-o"]);
        t.keys(&["C-o"]);
        let screen = t.wait_for("the readable text", |s| s.contains("── stdout"));
        assert!(!screen.contains("s:ok"), "readable first: {screen}");
        t.keys(&["Tab"]);
        t.wait_for("the model's view", |s| {
            s.contains("what the model got") && s.contains("s:ok")
        });
    }
}

/// A script whose one exec prints `seq 1 20000`: far more than the answer's budget, so the
/// model gets its start and end around a cut and the whole is retained as `@N`.
fn long_output_script(w: &World) -> std::path::PathBuf {
    w.script(
        "long.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "seq", "args": ["1", "20000"],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
            {"text": "counted"}
        ]),
    )
}

#[test]
fn a_cut_outputs_readable_text_is_the_whole_output_read_back_through_the_runtime() {
    let w = World::new();
    let script = long_output_script(&w);
    let mut s = w.jsonl(&["--script", script.to_str().unwrap()]);
    let rid = s.submit("count");
    let started = s.expect_type("tool_status", &[("status", json!("started"))]);
    let call = started["call_id"].as_str().unwrap().to_owned();
    assert_eq!(s.answer(rid), "counted");
    // The model's view was cut: it does not carry the middle.
    let model = output_page(&mut s, "model", Some(&call));
    let ason = model["lines"].to_string();
    assert!(
        !ason.contains("\"10000\""),
        "the model's view is cut: {model}"
    );
    // The readable view has every line, the middle too, in order.
    s.send(
        "tool_output",
        json!({"call_id": call, "offset": 10_000, "limit": 5, "view": "readable"}),
    );
    let page = s.expect_type("tool_output", &[]);
    let lines: Vec<&str> = page["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(page["total"].as_u64().unwrap() >= 20_000, "{page}");
    let numbers: Vec<u64> = lines.iter().filter_map(|l| l.parse().ok()).collect();
    assert_eq!(numbers.len(), 5, "{page}");
    assert!(
        numbers.windows(2).all(|p| p[1] == p[0] + 1),
        "consecutive lines from the middle: {page}"
    );
    s.finish();
}

#[test]
fn a_cut_outputs_row_counts_the_real_hidden_lines_and_end_jumps_to_its_last_page() {
    for (width, height) in [(60, 20), (100, 32), (120, 40)] {
        let w = World::new();
        let script = long_output_script(&w);
        let t = Tmux::start(
            &w,
            &["--offline", "--script", script.to_str().unwrap()],
            width,
            height,
        );
        t.wait_text("idle");
        t.type_text("count");
        t.keys(&["Enter"]);
        // 20,000 lines, the last three shown: the rest counted from the whole output, not
        // from the cut copy the model got.
        let screen = t.wait_text("counted");
        let joined = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            joined.contains("… 19997 more lines (Ctrl+O)"),
            "{width}×{height}:\n{screen}"
        );
        t.keys(&["C-o"]);
        t.wait_for("the viewer", |s| s.contains("readable · lines 1–"));
        t.keys(&["End"]);
        // The readable text: the command line, how it ended, `── stdout`, 20,000 lines and
        // a last line saying the model got part of it.
        let screen = t.wait_for("the last page", |s| s.contains("–20004 of 20004"));
        assert!(screen.contains("20000"), "{width}×{height}:\n{screen}");
        assert!(!screen.contains("..."), "{width}×{height}:\n{screen}");
        t.keys(&["Home"]);
        t.wait_for("the first page", |s| s.contains("readable · lines 1–"));
    }
}

//! Tokens per task (issue 14): the real runtime drives scripted multi-call tasks against the
//! mock Responses server on loopback, and every request body it sends is counted with
//! tiktoken-rs's bundled `o200k_base`: instructions, tool schemas, conversation items and tool
//! outputs separately.
//!
//! Tasks (fixtures built below):
//! - `ten-call`: 6 reads, 3 searches, 1 exec on a small Python project;
//! - `failing-build`: a check that prints 3,000 lines with one failure in the middle, found
//!   through the cut's note and one `evidence` call;
//! - `edit-20`: a search, one read of two files, one 20-file `edit`, one check;
//! - `rename-16`: one search, one 16-file `edit`, one check;
//! - `feature`: a regex search for three functions of a 1,500-line module, a read of each, one
//!   edit changing all three, a read of the tests, an edit adding two, one check.
//!
//! Codex's total is modelled from issue 14's measurement of Codex CLI: every request carries
//! its fixed prefix (1,932 tokens of tool schemas and about 6,000 of instructions), the same
//! conversation items as ansa's, and the Codex-format outputs of every earlier call.
//!
//! For the tool outputs, the same calls are also rendered the way Codex CLI's shell tool
//! answers them (`Exit code: N`, `Wall time: …`, `Output:` then the raw command output of the
//! equivalent `sed -n`/`rg -n`/command), as a baseline measured on identical files.
//!
//! Run: `cargo bench -p ansa --bench tokens`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

#[path = "../tests/support/live_runtime.rs"]
mod live_runtime;
#[path = "../tests/support/mock_provider.rs"]
mod mock_provider;
#[path = "../tests/support/responses_script.rs"]
mod responses_script;
#[path = "../tests/support/tasks.rs"]
mod tasks;

use std::path::Path;

use responses_script::Turn;
use serde_json::Value;
use tasks::{Task, tasks};
use tiktoken_rs::CoreBPE;

fn main() {
    let bpe = tiktoken_rs::o200k_base_singleton();
    println!("tokens per task (o200k_base); every request body of the task counted");
    println!(
        "{:<14} {:>4} {:>7} {:>7} {:>7} {:>8} {:>8} {:>9} {:>9} {:>11} {:>6}",
        "task",
        "req",
        "instr",
        "tools",
        "items",
        "outputs",
        "total",
        "out-once",
        "codex-fmt",
        "codex-total",
        "ratio"
    );
    for task in tasks() {
        run(&task, bpe);
    }
    gutters(bpe);
}

/// Codex CLI's fixed prefix per request, from issue 14: 1,932 tokens of tool schemas and
/// about 6,000 of instructions.
const CODEX_PREFIX: usize = 1_932 + 6_000;

/// The token cost of each candidate line-number gutter on the files the tasks read, to pick
/// the cheapest unambiguous one, and of numbering every line or only some
/// (`src/tools/view/read.rs`).
fn gutters(bpe: &CoreBPE) {
    let mut files = tasks::python_project();
    files.extend(tasks::ledger_library());
    let text: String = files.iter().map(|(_, t)| t.as_str()).collect();
    let plain = bpe.encode_ordinary(&text).len();
    print!("  line-number gutters on the tasks' files ({plain} tokens bare):");
    for sep in ["→", "│", ":", "\t", " "] {
        let mut numbered = String::new();
        for (_, body) in &files {
            for (n, line) in body.split_inclusive('\n').enumerate() {
                numbered.push_str(&format!("{}{sep}{line}", n + 1));
            }
        }
        let cost = bpe.encode_ordinary(&numbered).len();
        print!(" {sep:?} +{}", cost - plain);
    }
    println!();
    // Which lines carry their number (every line starts with the tab; the first and last
    // line of a file always carry theirs).
    type Keep = fn(usize, &str) -> bool;
    let densities: [(&str, Keep); 4] = [
        ("every line", |_, _| true),
        ("every 5th", |n, _| n.is_multiple_of(5)),
        ("every 10th", |n, _| n.is_multiple_of(10)),
        ("block starts", |_, line| {
            !line.starts_with([' ', '\t', '\n'])
        }),
    ];
    print!("  numbered lines, tab gutter:");
    for (name, keep) in densities {
        let mut numbered = String::new();
        for (_, body) in &files {
            let count = body.split_inclusive('\n').count();
            for (n, line) in body.split_inclusive('\n').enumerate() {
                let number = n + 1;
                if number == 1 || number == count || keep(number, line) {
                    numbered.push_str(&number.to_string());
                }
                numbered.push('\t');
                numbered.push_str(line);
            }
        }
        let cost = bpe.encode_ordinary(&numbered).len();
        print!(" {name} +{}", cost - plain);
    }
    println!();
}

fn run(task: &Task, bpe: &CoreBPE) {
    // A fixed path, not a random temporary name: the workspace's path is in the environment
    // message, and a name of other characters is a different count of tokens each run.
    let dir = std::env::temp_dir().join(format!("ansa-bench-tokens-{}", task.name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ws = dir.join("ws");
    let bodies = tasks::run(task, &dir);
    let count = |text: &str| bpe.encode_ordinary(text).len();
    let (mut instr, mut tools, mut items, mut outputs) = (0, 0, 0, 0);
    for body in &bodies {
        instr += count(body["instructions"].as_str().unwrap_or(""));
        tools += count(&body["tools"].to_string());
        for item in body["input"].as_array().unwrap() {
            match item["type"].as_str() {
                Some("function_call_output") => outputs += count(item["output"].as_str().unwrap()),
                _ => items += count(&item.to_string()),
            }
        }
    }
    let last = bodies.last().unwrap();
    let once: usize = last["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "function_call_output")
        .map(|i| count(i["output"].as_str().unwrap()))
        .sum();
    let per_turn: Vec<usize> = codex_outputs(task, &ws)
        .iter()
        .map(|outputs| outputs.iter().map(|o| count(o)).sum())
        .collect();
    let codex: usize = per_turn.iter().sum();
    // Request k carries the outputs of the calls of turns 0..k.
    let codex_total: usize = bodies
        .iter()
        .enumerate()
        .map(|(k, body)| {
            let items: usize = body["input"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|i| i["type"] != "function_call_output")
                .map(|i| count(&i.to_string()))
                .sum();
            CODEX_PREFIX + items + per_turn.iter().take(k).sum::<usize>()
        })
        .sum();
    if std::env::var_os("ANSA_TOKENS_SHOW").is_some() {
        for item in last["input"].as_array().unwrap() {
            if let Some(o) = item["output"].as_str() {
                println!("---- {} tokens\n{o}", count(o));
            }
        }
    }
    let total = instr + tools + items + outputs;
    println!(
        "{:<14} {:>4} {:>7} {:>7} {:>7} {:>8} {:>8} {:>9} {:>9} {:>11} {:>6.3}",
        task.name,
        bodies.len(),
        instr,
        tools,
        items,
        outputs,
        total,
        once,
        codex,
        codex_total,
        total as f64 / codex_total as f64
    );
    if task.name == "ten-call" {
        let plan = ansa::prompt::Prompt::new("", "");
        println!(
            "  base prompt {} tokens, with the plan addendum {}",
            count(plan.for_mode(ansa::tools::Mode::Basic)),
            count(plan.for_mode(ansa::tools::Mode::Plan))
        );
        let first = &bodies[0];
        println!(
            "  fixed prefix (first request): instructions {} + tools {} = {}",
            count(first["instructions"].as_str().unwrap_or("")),
            count(&first["tools"].to_string()),
            count(first["instructions"].as_str().unwrap_or(""))
                + count(&first["tools"].to_string())
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// What Codex CLI's shell tool would return for each call of the task, on the same files,
/// turn by turn.
fn codex_outputs(task: &Task, ws: &Path) -> Vec<Vec<String>> {
    let mut turns = Vec::new();
    for turn in &task.turns {
        let Turn::Calls(calls) = turn else { continue };
        let mut out = Vec::new();
        for (name, args) in calls {
            let text = match *name {
                "read" => read_like_sed(ws, args),
                "search" => search_like_rg(ws, args),
                "exec" => run_like_shell(ws, args),
                "edit" => edit_like_apply_patch(args),
                "evidence" => evidence_like_sed(args),
                other => panic!("no Codex rendering for {other}"),
            };
            out.push(format!(
                "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n{text}"
            ));
        }
        turns.push(out);
    }
    turns
}

fn read_like_sed(ws: &Path, args: &Value) -> String {
    let first = args["offset"].as_u64().unwrap() as usize;
    let len = args["length"].as_u64().map_or(usize::MAX, |n| n as usize);
    let mut text = String::new();
    for path in args["paths"].as_array().unwrap() {
        let body = std::fs::read_to_string(ws.join(path.as_str().unwrap())).unwrap();
        for line in body.lines().skip(first - 1).take(len) {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

fn search_like_rg(ws: &Path, args: &Value) -> String {
    let query = args["query"].as_str().unwrap();
    let pattern = if args["regex"] == true {
        regex::Regex::new(query).unwrap()
    } else {
        regex::Regex::new(&regex::escape(query)).unwrap()
    };
    let mut rows = Vec::new();
    for (path, body) in walk(ws) {
        for (n, line) in body.lines().enumerate() {
            if pattern.is_match(line) {
                rows.push(format!("{path}:{}:{line}", n + 1));
            }
        }
    }
    rows.sort();
    rows.join("\n") + "\n"
}

fn run_like_shell(ws: &Path, args: &Value) -> String {
    let out = std::process::Command::new(args["program"].as_str().unwrap())
        .args(
            args["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap()),
        )
        .current_dir(ws)
        .output()
        .unwrap();
    // Codex truncates long outputs to a head and tail of about 10 KiB and says so.
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if text.len() <= 10_240 {
        return text;
    }
    let lines: Vec<&str> = text.lines().collect();
    format!(
        "Total output lines: {}\n\n{}\n[... omitted ...]\n{}\n",
        lines.len(),
        lines[..128].join("\n"),
        lines[lines.len() - 128..].join("\n")
    )
}

fn edit_like_apply_patch(args: &Value) -> String {
    let files = args["files"].as_array().unwrap();
    let mut text = "Success. Updated the following files:\n".to_owned();
    for f in files {
        text += &format!("M {}\n", f["path"].as_str().unwrap());
    }
    text
}

fn evidence_like_sed(args: &Value) -> String {
    // Codex re-runs the command piped through `sed -n`; its output is the selected lines.
    format!(
        "(lines {}..{} of the saved output)\n",
        args["offset"],
        args["offset"].as_u64().unwrap() + args["length"].as_u64().unwrap_or(1)
    )
}

fn walk(ws: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![ws.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(body) = std::fs::read_to_string(&path) {
                let rel = path.strip_prefix(ws).unwrap().display().to_string();
                out.push((rel, body));
            }
        }
    }
    out
}

//! Tokens per task (issue 14): the real runtime drives scripted multi-call tasks against the
//! mock Responses server on loopback, and every request body it sends is counted with
//! tiktoken-rs's bundled `o200k_base`: instructions, tool schemas, conversation items and tool
//! outputs separately.
//!
//! Tasks (fixtures built below):
//! - `ten-call`: 6 reads, 3 searches, 1 exec on a small Python project;
//! - `failing-build`: a check that prints 3,000 lines with one failure in the middle, found
//!   through the cut's note and one `evidence` call;
//! - `rename-16`: one search, one 16-file `edit`, one check.
//!
//! For the tool outputs, the same calls are also rendered the way Codex CLI's shell tool
//! answers them (`Exit code: N`, `Wall time: …`, `Output:` then the raw command output of the
//! equivalent `sed -n`/`rg -n`/command), as a baseline measured on identical files.
//!
//! Run: `cargo bench -p ansa --bench tokens`.

#[path = "../tests/support/live_runtime.rs"]
mod live_runtime;
#[path = "../tests/support/mock_provider.rs"]
mod mock_provider;
#[path = "../tests/support/responses_script.rs"]
mod responses_script;

use std::path::Path;

use ansa::provider::live::Wire;
use ansa_sessions::protocol::EventBody;
use mock_provider::{MockProvider, MockResponse};
use responses_script::Turn;
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;

fn main() {
    let bpe = tiktoken_rs::o200k_base_singleton();
    println!("tokens per task (o200k_base); every request body of the task counted");
    println!(
        "{:<14} {:>4} {:>7} {:>7} {:>7} {:>8} {:>8} {:>9} {:>9}",
        "task", "req", "instr", "tools", "items", "outputs", "total", "out-once", "codex-fmt"
    );
    for task in tasks() {
        run(&task, bpe);
    }
}

/// One scripted task: files, the user's message, the model's turns, and the Codex-format
/// rendering of each call's output for the baseline.
struct Task {
    name: &'static str,
    files: Vec<(String, String)>,
    prompt: &'static str,
    turns: Vec<Turn>,
}

fn run(task: &Task, bpe: &CoreBPE) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    for (path, text) in &task.files {
        let file = ws.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
    }
    let mock = MockProvider::http();
    for (n, turn) in task.turns.iter().enumerate() {
        mock.push(
            "/v1/responses",
            MockResponse::sse([responses_script::stream(n, turn)]),
        );
    }
    let link = live_runtime::start(&mock.base_url(), Wire::Responses, dir.path(), &ws, 1 << 30);
    live_runtime::submit(&link, "task", task.prompt);
    live_runtime::wait(&link, |b| matches!(b, EventBody::Done { .. }));
    live_runtime::close(link);
    let bodies: Vec<Value> = mock
        .requests_to("/v1/responses")
        .iter()
        .map(|r| r.json())
        .collect();
    assert_eq!(
        bodies.len(),
        task.turns.len(),
        "one request per scripted turn"
    );
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
    let codex: usize = codex_outputs(task, &ws).iter().map(|o| count(o)).sum();
    if std::env::var_os("ANSA_TOKENS_SHOW").is_some() {
        for item in last["input"].as_array().unwrap() {
            if let Some(o) = item["output"].as_str() {
                println!("---- {} tokens\n{o}", count(o));
            }
        }
    }
    println!(
        "{:<14} {:>4} {:>7} {:>7} {:>7} {:>8} {:>8} {:>9} {:>9}",
        task.name,
        bodies.len(),
        instr,
        tools,
        items,
        outputs,
        instr + tools + items + outputs,
        once,
        codex
    );
    if task.name == "ten-call" {
        let first = &bodies[0];
        println!(
            "  fixed prefix (first request): instructions {} + tools {} = {}",
            count(first["instructions"].as_str().unwrap_or("")),
            count(&first["tools"].to_string()),
            count(first["instructions"].as_str().unwrap_or(""))
                + count(&first["tools"].to_string())
        );
    }
}

/// What Codex CLI's shell tool would return for each call of the task, on the same files.
fn codex_outputs(task: &Task, ws: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for turn in &task.turns {
        let Turn::Calls(calls) = turn else { continue };
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
    }
    out
}

fn read_like_sed(ws: &Path, args: &Value) -> String {
    let first = args["offset"].as_u64().unwrap() as usize;
    let len = args["length"].as_u64().unwrap() as usize;
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
    let mut rows = Vec::new();
    for (path, body) in walk(ws) {
        for (n, line) in body.lines().enumerate() {
            if line.contains(query) {
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

fn read(paths: &[&str], length: u64) -> (&'static str, Value) {
    (
        "read",
        json!({"paths": paths, "mode": "lines", "offset": 1, "length": length}),
    )
}

fn search(query: &str, paths: &[&str]) -> (&'static str, Value) {
    (
        "search",
        json!({"query": query, "paths": paths, "regex": false, "case_insensitive": false, "include_hidden": false}),
    )
}

fn exec(program: &str, args: &[&str]) -> (&'static str, Value) {
    (
        "exec",
        json!({"program": program, "args": args, "cwd": ".", "env": [], "stdin": null, "timeout_ms": null}),
    )
}

fn python_project() -> Vec<(String, String)> {
    let module = |name: &str, funcs: usize| -> String {
        let mut s = format!(
            "\"\"\"{name}: part of the inventory service.\"\"\"\n\nfrom decimal import Decimal\n\n"
        );
        for f in 0..funcs {
            s += &format!(
                "\ndef {name}_{f}(items, rate=Decimal(\"0.{f}\")):\n    \"\"\"Sum the {name} of items at a rate.\"\"\"\n    total = Decimal(0)\n    for item in items:\n        total += item.price * item.count * rate\n    return total.quantize(Decimal(\"0.01\"))\n"
            );
        }
        s
    };
    vec![
        ("src/pricing.py".into(), module("price", 4)),
        ("src/inventory.py".into(), module("stock", 3)),
        ("src/discount.py".into(), module("discount", 2)),
        ("src/cli.py".into(), "import sys\n\nfrom .pricing import price_0\n\n\ndef main(argv=None):\n    argv = argv or sys.argv[1:]\n    # TODO: parse the rate option\n    print(price_0([]))\n    return 0\n".into()),
        ("tests/test_pricing.py".into(), "from decimal import Decimal\n\nfrom src.pricing import price_1\n\n\ndef test_empty():\n    assert price_1([]) == Decimal(\"0.00\")\n".into()),
        ("README.md".into(), "# inventory\n\nPrices and stock for the shop.\n\nRun the tests with `python -m pytest`.\n".into()),
    ]
}

fn tasks() -> Vec<Task> {
    let failing = {
        let mut log = String::new();
        for n in 1..=3000 {
            if n == 1837 {
                log += "src/discount.py:12: error: Unsupported operand types for * (\"Decimal\" and \"float\")\n";
            } else {
                log += &format!("src/module_{:04}.py: checked {} definitions\n", n, n % 17);
            }
        }
        log
    };
    let mut rename = Vec::new();
    for n in 0..16 {
        rename.push((
            format!("pkg/mod_{n:02}.py"),
            format!("from .store import fetch_record\n\n\ndef load_{n}(key):\n    return fetch_record(key)\n"),
        ));
    }
    let rename_files: Vec<Value> = (0..16)
        .map(|n| {
            json!({"path": format!("pkg/mod_{n:02}.py"), "edits": [
            {"old": "import fetch_record", "new": "import load_record"},
            {"old": "return fetch_record(key)", "new": "return load_record(key)"}]})
        })
        .collect();
    let mut failing_files = python_project();
    failing_files.push(("check.log".into(), failing));
    vec![
        Task {
            name: "ten-call",
            files: python_project(),
            prompt: "The discount rate is applied twice somewhere. Find where and tell me.",
            turns: vec![
                Turn::Calls(vec![search("def ", &["src"])]),
                Turn::Calls(vec![read(&["src/pricing.py"], 40)]),
                Turn::Calls(vec![read(&["src/discount.py"], 40)]),
                Turn::Calls(vec![search("rate", &["src/cli.py", "tests"])]),
                Turn::Calls(vec![read(&["src/cli.py"], 20)]),
                Turn::Calls(vec![read(&["tests/test_pricing.py"], 20)]),
                Turn::Calls(vec![search("TODO", &["."])]),
                Turn::Calls(vec![read(&["README.md"], 10)]),
                Turn::Calls(vec![read(&["src/inventory.py"], 12)]),
                Turn::Calls(vec![exec("grep", &["-c", "def ", "src/pricing.py"])]),
                Turn::Text("discount_1 multiplies by the rate, and price_0 applies it again."),
            ],
        },
        Task {
            name: "failing-build",
            files: failing_files,
            prompt: "Run the type check and fix what fails.",
            turns: vec![
                Turn::Calls(vec![exec("sh", &["-c", "cat check.log; exit 1"])]),
                Turn::Calls(vec![(
                    "evidence",
                    json!({"ref": "@1", "kind": "lines", "offset": 1835, "length": 5, "query": null, "regex": false, "case_insensitive": false}),
                )]),
                Turn::Text("src/discount.py:12 multiplies a Decimal by a float."),
            ],
        },
        Task {
            name: "rename-16",
            files: rename,
            prompt: "Rename fetch_record to load_record everywhere.",
            turns: vec![
                Turn::Calls(vec![search("fetch_record", &["pkg"])]),
                Turn::Calls(vec![("edit", json!({"files": rename_files}))]),
                Turn::Calls(vec![exec("grep", &["-rc", "load_record", "pkg"])]),
                Turn::Text("Renamed in all 16 files."),
            ],
        },
    ]
}

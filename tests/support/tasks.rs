//! Scripted multi-call tasks of the token benchmark and the model-view golden tests: a
//! workspace, the user's message and the model's turns, run through the real runtime against
//! the mock Responses server.

#![allow(dead_code)]

use std::path::Path;

use ansa::provider::live::Wire;
use ansa_sessions::protocol::EventBody;
use serde_json::{Value, json};

use super::live_runtime;
use super::mock_provider::{MockProvider, MockResponse};
use super::responses_script::{self, Turn};

/// One scripted task: files, the user's message, the model's turns, and the Codex-format
/// rendering of each call's output for the baseline.
pub struct Task {
    pub name: &'static str,
    pub files: Vec<(String, String)>,
    pub prompt: &'static str,
    pub turns: Vec<Turn>,
}

/// Every Responses request body `mock` received, in order.
pub fn bodies(mock: &MockProvider) -> Vec<Value> {
    mock.requests_to("/v1/responses")
        .iter()
        .map(|r| r.json())
        .collect()
}

/// Runs `task` in a fresh workspace under `root`; returns every request body, in order.
pub fn run(task: &Task, root: &Path) -> Vec<Value> {
    let ws = root.join("ws");
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
    let link = live_runtime::start(&mock.base_url(), Wire::Responses, root, &ws, 1 << 30);
    live_runtime::submit(&link, "task", task.prompt);
    live_runtime::wait(&link, |b| matches!(b, EventBody::Done { .. }));
    live_runtime::close(link);
    let bodies = bodies(&mock);
    assert_eq!(
        bodies.len(),
        task.turns.len(),
        "one request per scripted turn"
    );
    bodies
}

pub fn read(paths: &[&str], length: u64) -> (&'static str, Value) {
    (
        "read",
        json!({"paths": paths, "mode": "lines", "offset": 1, "length": length}),
    )
}

/// `read` of `length` lines of `path` from line `offset`.
pub fn read_at(path: &str, offset: u64, length: u64) -> (&'static str, Value) {
    (
        "read",
        json!({"paths": [path], "mode": "lines", "offset": offset, "length": length}),
    )
}

pub fn search(query: &str, paths: &[&str]) -> (&'static str, Value) {
    (
        "search",
        json!({"query": query, "paths": paths, "regex": false, "case_insensitive": false, "include_hidden": false}),
    )
}

pub fn exec(program: &str, args: &[&str]) -> (&'static str, Value) {
    (
        "exec",
        json!({"program": program, "args": args, "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}),
    )
}

pub fn python_project() -> Vec<(String, String)> {
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

/// A 1,500-line library module of 60 functions, three of which (`format_amount`,
/// `parse_amount`, `total`) the feature task changes, and its test file.
pub fn ledger_library() -> Vec<(String, String)> {
    let mut lib =
        "\"\"\"ledger: amounts, accounts and reports.\"\"\"\n\nfrom decimal import Decimal\n\n"
            .to_owned();
    for n in 0..60 {
        let name = match n {
            17 => "format_amount".to_owned(),
            33 => "parse_amount".to_owned(),
            48 => "total".to_owned(),
            _ => format!("helper_{n:02}"),
        };
        lib += &format!(
            "\ndef {name}(value, places=2):\n    \"\"\"{name}: step {n} of the ledger pipeline.\n\n    Takes a value and the number of decimal places; returns the result\n    rounded half-even, as the bookkeeping rules require.\n    \"\"\"\n    if value is None:\n        raise ValueError(\"{name}: value is required\")\n    amount = Decimal(str(value))\n    quantum = Decimal(1).scaleb(-places)\n    result = amount.quantize(quantum)\n    for _ in range({}):\n        result = result + Decimal(0)\n    if result < 0:\n        result = -result\n    checked = result.copy_abs()\n    if checked != result:\n        raise ArithmeticError(\"{name}: sign changed\")\n    return result\n\n",
            n % 5
        );
    }
    let tests = "from decimal import Decimal\n\nfrom lib.ledger import format_amount, parse_amount, total\n\n\ndef test_format_amount():\n    assert format_amount(\"1.005\") == Decimal(\"1.00\")\n\n\ndef test_parse_amount():\n    assert parse_amount(2) == Decimal(\"2.00\")\n\n\ndef test_total():\n    assert total(\"3.10\") == Decimal(\"3.10\")\n".to_owned();
    vec![
        ("lib/ledger.py".into(), lib),
        ("tests/test_ledger.py".into(), tests),
        (
            "README.md".into(),
            "# ledger\n\nAmounts and reports. Run the tests with `python -m pytest`.\n".into(),
        ),
    ]
}

/// The 1-based line of the first line of `file` that starts with `prefix`.
fn line_of(files: &[(String, String)], file: &str, prefix: &str) -> u64 {
    let text = &files.iter().find(|(p, _)| p == file).unwrap().1;
    text.lines().position(|l| l.starts_with(prefix)).unwrap() as u64 + 1
}

/// The benchmark's tasks: `ten-call`, `failing-build`, `edit-20`, `rename-16`, `feature`.
pub fn tasks() -> Vec<Task> {
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
    let mut config = Vec::new();
    for n in 0..20 {
        config.push((
            format!("services/svc_{n:02}.toml"),
            format!("[service]\nname = \"svc-{n}\"\n# TODO: raise the timeout\ntimeout_ms = 1000\nretries = {}\n", n % 3),
        ));
    }
    let config_edits: Vec<Value> = (0..20)
        .map(|n| json!({"path": format!("services/svc_{n:02}.toml"), "edits": [
            {"old": "# TODO: raise the timeout\ntimeout_ms = 1000", "new": format!("timeout_ms = {}", 5000 + n * 100)}]}))
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
            name: "edit-20",
            files: config,
            prompt: "Raise every service's timeout as the TODOs say: 5000 ms plus 100 per service number.",
            turns: vec![
                Turn::Calls(vec![search("TODO", &["services"])]),
                Turn::Calls(vec![read(
                    &["services/svc_00.toml", "services/svc_19.toml"],
                    10,
                )]),
                Turn::Calls(vec![("edit", json!({"files": config_edits}))]),
                Turn::Calls(vec![exec("grep", &["-rh", "timeout_ms", "services"])]),
                Turn::Text("All 20 services have their new timeout."),
            ],
        },
        feature_task(),
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

/// Feature work in a large file: find the three functions, read each, change all three in one
/// edit, read the tests, add tests for the new option, check.
fn feature_task() -> Task {
    let files = ledger_library();
    let at = |name: &str| line_of(&files, "lib/ledger.py", &format!("def {name}("));
    let signature = |name: &str| {
        json!({"old": format!("def {name}(value, places=2):\n    \"\"\"{name}:"),
               "new": format!("def {name}(value, places=2, currency=None):\n    \"\"\"{name} (currency: an ISO code, or None):")})
    };
    let guard = |name: &str| {
        json!({"old": format!("        raise ValueError(\"{name}: value is required\")\n"),
               "new": format!("        raise ValueError(\"{name}: value is required\")\n    if currency is not None and len(currency) != 3:\n        raise ValueError(\"{name}: currency must be an ISO code\")\n")})
    };
    let lib_edits = json!({"path": "lib/ledger.py", "edits": [
        signature("format_amount"), guard("format_amount"),
        signature("parse_amount"), guard("parse_amount"),
        signature("total"), guard("total")]});
    let test_edits = json!({"path": "tests/test_ledger.py", "edits": [
        {"old": "def test_total():\n    assert total(\"3.10\") == Decimal(\"3.10\")\n",
         "new": "def test_total():\n    assert total(\"3.10\") == Decimal(\"3.10\")\n\n\ndef test_currency_is_checked():\n    for f in (format_amount, parse_amount, total):\n        try:\n            f(1, currency=\"EURO\")\n        except ValueError:\n            continue\n        raise AssertionError(f)\n\n\ndef test_currency_keeps_the_amount():\n    assert total(\"3.10\", currency=\"EUR\") == Decimal(\"3.10\")\n"}]});
    Task {
        name: "feature",
        prompt: "Add a currency option (an ISO code, checked) to format_amount, parse_amount and total, with tests.",
        turns: vec![
            Turn::Calls(vec![(
                "search",
                json!({"query": "def (format_amount|parse_amount|total)\\(", "paths": ["lib"], "regex": true, "case_insensitive": false, "include_hidden": false}),
            )]),
            Turn::Calls(vec![
                read_at("lib/ledger.py", at("format_amount"), 22),
                read_at("lib/ledger.py", at("parse_amount"), 22),
                read_at("lib/ledger.py", at("total"), 22),
            ]),
            Turn::Calls(vec![("edit", json!({"files": [lib_edits]}))]),
            Turn::Calls(vec![read(&["tests/test_ledger.py"], 40)]),
            Turn::Calls(vec![("edit", json!({"files": [test_edits]}))]),
            Turn::Calls(vec![exec(
                "grep",
                &["-c", "currency", "lib/ledger.py", "tests/test_ledger.py"],
            )]),
            Turn::Text(
                "format_amount, parse_amount and total take a checked currency; two tests cover it.",
            ),
        ],
        files,
    }
}

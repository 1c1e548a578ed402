//! Golden answers: real answers of the tools run on a fixture workspace, checked into
//! `src/tools/golden/answers/`, and the comprehension check between them and the legend of the
//! base prompt (issue 47): every field and code an answer can carry is named in the legend,
//! and every legend entry occurs in some golden answer. `ANSA_BLESS=1` rewrites the goldens.

use super::Harness;
use ansa::prompt::BASE;
use ansa::tools::view::words;
use ansa::tools::{Mode, Refusal, ToolRegistry, call_error, exec_error};
use ash_engine::protocol::{ErrorCode, Status};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// The directory of the golden answers.
fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/tools/golden/answers")
}

/// A 3,000-line file: too long for one read answer.
fn long_file() -> String {
    (1..=3000)
        .map(|n| format!("entry {n:04}: value {}\n", n * 7 % 1000))
        .collect()
}

/// The fixture workspace.
fn fixture() -> Vec<(&'static str, String)> {
    vec![
        (
            "src/app.py",
            "import os\n\n\ndef load(path):\n    return open(path).read()\n\n\ndef save(path, text):\n    with open(path, \"w\") as f:\n        f.write(text)\n".to_owned(),
        ),
        (
            "src/names.py",
            "OLD = \"old_name\"\n\n\ndef old_name(x):\n    return old_name_helper(x) + old_name_helper(x)\n".to_owned(),
        ),
        ("data/long.txt", long_file()),
        ("data/crlf.txt", "alpha\r\nbeta old_name\r\n".to_owned()),
        ("README.md", "# fixture\n\nRun `sh check.sh`.\n".to_owned()),
    ]
}

/// Answers of a session on the fixture, in call order: `(name, what the model sees)`.
fn answers() -> Vec<(String, String)> {
    let files = fixture();
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let mut h = Harness::new(&borrowed);
    // A file that is not UTF-8, which a search skips (the `partial` flag).
    std::fs::write(
        h.dir.path().join("data/blob.bin"),
        [0xff, 0xfe, b'o', b'l', b'd'],
    )
    .unwrap();
    let registry =
        ToolRegistry::for_session(false, ansa::tools::SandboxArgument::Absent).expect("registry");
    let mut out = Vec::new();
    // `cancel_after`: the call is cancelled that long after it starts.
    let mut answer_or_cancel =
        |h: &mut Harness, name: &str, tool: &str, json: &str, cancel_after: Option<Duration>| {
            let cancel = ash_engine::cancel::CancelToken::new();
            if let Some(delay) = cancel_after {
                let token = cancel.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(delay);
                    token.cancel();
                });
            }
            let text = match registry.admit(Mode::Basic, tool, json) {
                Err(e) => call_error(&e, &e.to_string()),
                Ok(admitted) => match h.tools.execute(&admitted.args, &cancel) {
                    Ok(output) => output.text,
                    Err(e) => exec_error(&e),
                },
            };
            out.push((name.to_owned(), stable(&text)));
        };
    let mut answer = |h: &mut Harness, name: &str, tool: &str, json: &str| {
        answer_or_cancel(h, name, tool, json, None)
    };
    let exec = |program: &str, args: &str| {
        format!(
            r#"{{"program":"{program}","args":{args},"cwd":".","env":[],"stdin":null,"timeout_ms":null}}"#
        )
    };
    answer(
        &mut h,
        "read-whole",
        "read",
        r#"{"paths":["src/app.py"],"mode":"lines","offset":1,"length":null}"#,
    );
    answer(
        &mut h,
        "read-two-files",
        "read",
        r#"{"paths":["src/names.py","README.md"],"mode":"lines","offset":1,"length":3}"#,
    );
    answer(
        &mut h,
        "read-too-long",
        "read",
        r#"{"paths":["data/long.txt"],"mode":"lines","offset":1,"length":null}"#,
    );
    answer(
        &mut h,
        "read-missing",
        "read",
        r#"{"paths":["src/nope.py"],"mode":"lines","offset":1,"length":null}"#,
    );
    answer(
        &mut h,
        "list",
        "list",
        r#"{"paths":["src"],"depth":1,"include_hidden":false,"kind":"all"}"#,
    );
    answer(
        &mut h,
        "search-every-match",
        "search",
        r#"{"query":"old_name","paths":["src","data/crlf.txt","data/blob.bin"],"regex":false,"case_insensitive":false,"include_hidden":false}"#,
    );
    answer(
        &mut h,
        "search-refused-regex",
        "search",
        r#"{"query":"(?<=def )load","paths":["src"],"regex":true,"case_insensitive":false,"include_hidden":false}"#,
    );
    answer(&mut h, "unknown-tool", "grep", r#"{"query":"x"}"#);
    answer(
        &mut h,
        "edit",
        "edit",
        r#"{"files":[{"path":"src/app.py","edits":[{"old":"import os\n","new":"import os\nimport sys\n"},{"old":"    return open(path).read()\n","new":"    with open(path) as f:\n        return f.read()\n"}]},{"path":"src/names.py","edits":[{"old":"OLD = \"old_name\"\n\n","new":""}]}]}"#,
    );
    answer(
        &mut h,
        "edit-refused",
        "edit",
        r#"{"files":[{"path":"src/app.py","edits":[{"old":"no such text","new":"x"}]}]}"#,
    );
    // Someone else changes the file after the model read it: the edit conflicts.
    answer(
        &mut h,
        "read-before-conflict",
        "read",
        r#"{"paths":["README.md"],"mode":"lines","offset":1,"length":null}"#,
    );
    std::fs::write(
        h.dir.path().join("README.md"),
        "# changed\n\nRun `sh check.sh`.\n",
    )
    .unwrap();
    answer(
        &mut h,
        "edit-conflict",
        "edit",
        r##"{"files":[{"path":"README.md","edits":[{"old":"Run","new":"Please run"}]}]}"##,
    );
    answer(&mut h, "exec-ok", "exec", &exec("echo", r#"["hello"]"#));
    answer(
        &mut h,
        "exec-repeats",
        "exec",
        &exec(
            "sh",
            r#"["-c","for i in 1 2 3 4 5 6; do echo compiling; done; for i in 1 2 3 4; do echo step a; echo step b; done"]"#,
        ),
    );
    answer(
        &mut h,
        "exec-cut",
        "exec",
        &exec("sh", r#"["-c","seq 1 3000"]"#),
    );
    answer(
        &mut h,
        "exec-failed",
        "exec",
        &exec(
            "sh",
            r#"["-c","for i in $(seq 1 400); do echo checked module $i; done; echo 'src/app.py:5: error: bad read'; for i in $(seq 402 3000); do echo checked module $i; done; exit 1"]"#,
        ),
    );
    answer(
        &mut h,
        "evidence-lines",
        "evidence",
        r#"{"ref":"@4","kind":"lines","offset":399,"length":4,"query":null,"regex":false,"case_insensitive":false}"#,
    );
    answer(
        &mut h,
        "evidence-search",
        "evidence",
        r#"{"ref":"@4","kind":"search","offset":0,"length":null,"query":"error","regex":false,"case_insensitive":false}"#,
    );
    answer(
        &mut h,
        "evidence-unknown",
        "evidence",
        r#"{"ref":"@99","kind":"lines","offset":1,"length":null,"query":null,"regex":false,"case_insensitive":false}"#,
    );
    answer(
        &mut h,
        "exec-missing",
        "exec",
        &exec("no-such-program", "[]"),
    );
    answer(&mut h, "exec-sudo", "exec", &exec("sudo", r#"["true"]"#));
    answer(
        &mut h,
        "snapshot",
        "snapshot",
        r#"{"paths":["src"],"depth":4,"include_hidden":false,"baseline":null}"#,
    );
    answer(
        &mut h,
        "files",
        "files",
        r#"{"actions":[{"kind":"create","path":"src/new.py","to":null,"content":"x = 1\n"},{"kind":"copy","path":"data/crlf.txt","to":"src/crlf.copy.txt","content":null}]}"#,
    );
    answer(
        &mut h,
        "snapshot-delta",
        "snapshot",
        r#"{"paths":["src"],"depth":4,"include_hidden":false,"baseline":"@5"}"#,
    );
    answer(
        &mut h,
        "exec-not-executable",
        "exec",
        &exec("data/long.txt", "[]"),
    );
    answer(
        &mut h,
        "exec-timed-out",
        "exec",
        r#"{"program":"sleep","args":["5"],"cwd":".","env":[],"stdin":null,"timeout_ms":300}"#,
    );
    answer(
        &mut h,
        "read-not-text",
        "read",
        r#"{"paths":["data/blob.bin"],"mode":"bytes","offset":0,"length":null}"#,
    );
    answer(
        &mut h,
        "evidence-not-text",
        "evidence",
        r#"{"ref":"@7","kind":"search","offset":0,"length":null,"query":"old","regex":false,"case_insensitive":false}"#,
    );
    let many: Vec<&str> = std::iter::repeat_n("README.md", 1001).collect();
    answer(
        &mut h,
        "read-too-many",
        "read",
        &format!(
            r#"{{"paths":{},"mode":"lines","offset":1,"length":1}}"#,
            serde_json::to_string(&many).unwrap()
        ),
    );
    std::os::unix::fs::symlink(h.home.path(), h.dir.path().join("outside")).unwrap();
    answer(
        &mut h,
        "list-outside",
        "list",
        r#"{"paths":["outside"],"depth":1,"include_hidden":false,"kind":"all"}"#,
    );
    // The kinds, changes, actions, states and exits the answers above do not show.
    std::os::unix::fs::symlink("app.py", h.dir.path().join("src/link.py")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(h.dir.path().join("src/pipe"))
        .status()
        .expect("mkfifo (coreutils) runs");
    assert!(fifo.success(), "mkfifo src/pipe");
    answer(
        &mut h,
        "list-kinds",
        "list",
        r#"{"paths":["src"],"depth":1,"include_hidden":false,"kind":"all"}"#,
    );
    answer(
        &mut h,
        "files-move-remove",
        "files",
        r#"{"actions":[{"kind":"move","path":"src/new.py","to":"src/renamed.py","content":null},{"kind":"remove","path":"src/crlf.copy.txt","to":null,"content":null}]}"#,
    );
    // src/names.py changes after the model read it: the edit of both files conflicts on it
    // and skips src/app.py.
    answer(
        &mut h,
        "read-names",
        "read",
        r#"{"paths":["src/names.py"],"mode":"lines","offset":1,"length":null}"#,
    );
    std::fs::write(
        h.dir.path().join("src/names.py"),
        "def old_name(x):\n    return x\n",
    )
    .unwrap();
    answer(
        &mut h,
        "edit-skipped",
        "edit",
        r#"{"files":[{"path":"src/app.py","edits":[{"old":"import sys\n","new":""}]},{"path":"src/names.py","edits":[{"old":"def old_name(x):","new":"def new_name(x):"}]}]}"#,
    );
    // Against the manifest of `snapshot-delta` (@6): moved, removed, changed and new entries.
    answer(
        &mut h,
        "snapshot-changes",
        "snapshot",
        r#"{"paths":["src"],"depth":4,"include_hidden":false,"baseline":"@6"}"#,
    );
    answer(
        &mut h,
        "exec-signal",
        "exec",
        &exec("sh", r#"["-c","kill -9 $$"]"#),
    );
    // An engine schema error is named as the tool's argument (`ref`), not ASH/1's `a item 1`.
    answer(
        &mut h,
        "evidence-bad-ref",
        "evidence",
        r#"{"ref":"@0","kind":"lines","offset":1,"length":null,"query":null,"regex":false,"case_insensitive":false}"#,
    );
    answer_or_cancel(
        &mut h,
        "exec-cancelled",
        "exec",
        &exec("sleep", r#"["5"]"#),
        Some(Duration::from_millis(1000)),
    );
    out
}

/// The answer with the exec `ms` cell (elapsed time) set to 0, the only cell that differs
/// between runs.
fn stable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut exec_row = false;
    for line in text.split_inclusive('\n') {
        if exec_row {
            exec_row = false;
            let mut cells: Vec<&str> = line.splitn(4, ',').collect();
            if cells.len() == 4 {
                cells[2] = "0";
                out.push_str(&cells.join(","));
                continue;
            }
        }
        exec_row = line == "d{k,c,ms,o,e,ro,re}:\n";
        out.push_str(line);
    }
    out
}

/// Every golden answer, generated now; under `ANSA_BLESS` and `bless`, also written to the
/// checked-in files (only one test writes them: tests run in parallel).
fn goldens(bless: bool) -> BTreeMap<String, String> {
    let generated: BTreeMap<String, String> = answers().into_iter().collect();
    let dir = golden_dir();
    if bless && std::env::var_os("ANSA_BLESS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
        }
        for (name, text) in &generated {
            std::fs::write(dir.join(format!("{name}.txt")), text).unwrap();
        }
    }
    generated
}

#[test]
fn golden_answers_are_current() {
    let generated = goldens(true);
    let dir = golden_dir();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}; run with ANSA_BLESS=1", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut expected: Vec<String> = generated.keys().map(|k| format!("{k}.txt")).collect();
    expected.sort();
    assert_eq!(
        on_disk, expected,
        "golden answer files; rerun with ANSA_BLESS=1"
    );
    for (name, text) in &generated {
        let file = std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap();
        assert!(
            &file == text,
            "{name} is not current: review the change, then rerun with ANSA_BLESS=1\n--- golden\n{file}\n--- now\n{text}"
        );
    }
}

/// The legend: the base prompt's "Tool answers" section.
fn legend() -> &'static str {
    let start = BASE.find("# Tool answers").expect("a legend");
    &BASE[start..]
}

/// The keys of an answer's top-level fields and its header lines (`d[N]{…}` written with
/// `N`), as the legend names them.
fn fields(answer: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut skip_rows = 0usize;
    for line in answer.lines() {
        if line.starts_with(">>>") {
            in_block = true;
            out.push(">>>N".to_owned());
            continue;
        }
        if in_block {
            continue;
        }
        if skip_rows > 0 {
            skip_rows -= 1;
            continue;
        }
        let Some((key, _)) = line.split_once(':') else {
            continue;
        };
        if let (Some(open), Some(close)) = (key.find('['), key.find(']')) {
            skip_rows = key[open + 1..close].parse().unwrap_or(0);
            out.push(format!("{}[N]{}", &key[..open], &key[close + 1..]));
        } else if key.contains('{') {
            skip_rows = 1;
            out.push(key.to_owned());
        } else {
            out.push(key.to_owned());
        }
    }
    out
}

/// The value of field `key` in `answer`.
fn field<'a>(answer: &'a str, key: &str) -> Option<&'a str> {
    answer
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{key}:")))
}

#[test]
fn every_field_and_code_of_an_answer_is_in_the_legend() {
    let legend = legend();
    let named = |term: &str| legend.contains(&format!("`{term}")) || legend.contains(term);
    for (name, answer) in goldens(false) {
        for key in fields(&answer) {
            let shown = match key.as_str() {
                "d" | "s" | "error" | "next" | "more" | "flags" | "why" | "r" | "ro" | "re" => {
                    format!("`{key}")
                }
                other => format!("`{other}`").replace("`>>>N`", "`>>>N`"),
            };
            assert!(
                legend.contains(&shown) || (key.starts_with('d') && named(&key)),
                "{name}: field {key} is not in the legend"
            );
        }
        for key in ["s", "error"] {
            if let Some(word) = field(&answer, key) {
                assert!(
                    legend.contains(&format!(" {word},"))
                        || legend.contains(&format!(" {word}."))
                        || legend.contains(&format!(" {word} (")),
                    "{name}: {key}:{word} is not in the legend"
                );
            }
        }
        if let Some(list) = field(&answer, "flags") {
            for word in list.trim_matches(['[', ']']).split(',') {
                assert!(legend.contains(word), "{name}: flag {word}");
            }
        }
    }
    // Every kind, change, action, state and exit in a row is one of the legend's values.
    let values: Vec<&str> = legend
        .lines()
        .filter(|l| l.trim_start().starts_with("- "))
        .flat_map(value_lists)
        .flatten()
        .collect();
    let mut kinds_seen = std::collections::BTreeSet::new();
    for (name, answer) in goldens(false) {
        for (header, column, value) in coded_cells(&answer) {
            assert!(
                values.contains(&value),
                "{name}: {header} column {column} value {value} is not in the legend"
            );
            kinds_seen.insert(header.split_once('{').map_or(header, |(_, c)| c).to_owned());
        }
    }
    assert_eq!(
        kinds_seen.len(),
        CODED_COLUMNS.len(),
        "every coded row header occurs in the goldens: {kinds_seen:?}"
    );
    // Every code the view can write, golden or not, is named.
    let words_line = |start: &str| {
        legend
            .lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no legend line {start}"))
    };
    let s = words_line("- `s`");
    for n in 0..=10u8 {
        let status = Status::from_u8(n).unwrap();
        let word = words::status(status);
        assert!(
            words::UNREACHABLE_STATUS.contains(&status) || s.contains(&format!(" {word}")),
            "status {word}: {s}"
        );
    }
    let e = words_line("- `error`");
    for n in 0..=1000u16 {
        if let Some(code) = ErrorCode::from_u16(n) {
            let word = words::error(code);
            let unreachable = words::UNREACHABLE.iter().any(|(c, _)| *c == code);
            assert!(
                unreachable || e.contains(&format!(" {word}")),
                "error {word}: {e}"
            );
        }
    }
    for refusal in Refusal::ALL {
        let (word, status) = refusal.words();
        assert!(e.contains(&format!(" {word}")), "refusal {word}: {e}");
        assert!(s.contains(&format!(" {status}")), "refusal status {status}");
    }
    let f = words_line("- `flags`");
    for (_, word) in words::FLAGS {
        assert!(f.contains(&format!(" {word}")), "flag {word}: {f}");
    }
}

/// The row headers whose columns hold a coded value, and which columns.
const CODED_COLUMNS: [(&str, &[usize]); 5] = [
    ("{p,k,z}", &[1]),
    ("d{k,c,ms,o,e,ro,re}", &[0]),
    ("{file,state,added,removed,at}", &[1]),
    ("{i,k,p,q,s}", &[1, 4]),
    ("{p,c,k,z}", &[1, 2]),
];

/// `(header, column, value)` of every coded cell in the rows of `answer`.
fn coded_cells(answer: &str) -> Vec<(&str, usize, &str)> {
    let mut out = Vec::new();
    let mut lines = answer.lines();
    while let Some(line) = lines.next() {
        let Some(header) = line.strip_suffix(':').filter(|h| h.starts_with('d')) else {
            continue;
        };
        let Some((_, columns)) = CODED_COLUMNS.iter().find(|(h, _)| header.ends_with(h)) else {
            continue;
        };
        let rows = match (header.find('['), header.find(']')) {
            (Some(open), Some(close)) => header[open + 1..close].parse().unwrap_or(0),
            _ => 1,
        };
        for row in lines.by_ref().take(rows) {
            let cells: Vec<&str> = row.split(',').collect();
            for &c in *columns {
                out.push((header, c, cells[c]));
            }
        }
    }
    out
}

/// `text` without its parenthesised remarks.
fn without_parentheses(text: &str) -> String {
    let mut depth = 0usize;
    text.chars()
        .filter(|c| {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    return false;
                }
                _ => {}
            }
            depth == 0
        })
        .collect()
}

/// Codes of the legend a session's tools cannot produce on a small fixture, each with the
/// reason; every other legend entry must occur in some golden answer. (Codes no tool call can
/// get at all are `words::UNREACHABLE`, and the legend leaves them out.)
const NOT_PRODUCIBLE: [(&str, &str); 7] = [
    (
        "over_budget",
        "a read-side answer that does not fit is retained and cut, not refused; a refusal needs a request whose smallest answer passes 32 KiB",
    ),
    ("answer_too_large", "see over_budget"),
    (
        "size_limit",
        "a file over 64 MiB or a million entries: too large for a golden",
    ),
    ("internal", "an engine invariant failure"),
    (
        "needs_approval",
        "ask mode's permit challenge, which ansa turns into a question to the user (tests/tools_execute/ask.rs)",
    ),
    (
        "approval_invalid",
        "a bad permit, which ansa never sends (tests/tools_execute/ask.rs)",
    ),
    (
        "recovery_required",
        "an interrupted transaction (tests/e2e/txn_recovery.rs)",
    ),
];

/// Refusals the runtime writes (not the tools), covered by the e2e tests.
const RUNTIME_REFUSALS: [(&str, &str); 3] = [
    (
        "not_approved",
        "ask mode's declined call: tests/e2e/approvals.rs",
    ),
    (
        "not_run",
        "a call beside a refused one: tests/e2e/malformed.rs",
    ),
    ("filesystem", "a file unreadable mid-call"),
];

#[test]
fn every_legend_entry_occurs_in_some_golden_answer() {
    let all: String = goldens(false).into_values().collect::<Vec<_>>().join("\n");
    let legend = legend();
    let exempt = |word: &str| {
        NOT_PRODUCIBLE
            .iter()
            .chain(&RUNTIME_REFUSALS)
            .any(|(w, _)| *w == word)
    };
    // The headers of the per-tool rows: `d[N]{…}` matches any row count.
    for line in legend.lines().filter(|l| l.trim_start().starts_with("- ")) {
        let mut rest = line;
        while let Some(at) = rest.find('`') {
            let after = &rest[at + 1..];
            let Some(end) = after.find('`') else { break };
            let term = &after[..end];
            rest = &after[end + 1..];
            if let Some(cols) = term.strip_prefix("d[N]") {
                assert!(
                    all.lines()
                        .any(|l| l.starts_with("d[") && l.ends_with(&format!("{cols}:"))),
                    "legend header {term} occurs in no golden answer"
                );
            } else if term.starts_with("d{") {
                assert!(
                    all.lines().any(|l| l == format!("{term}:")),
                    "legend header {term} occurs in no golden answer"
                );
            }
        }
    }
    for key in [
        "s:", "error:", "next:", "why:", "more:", "flags:", "r:@", ">>>1",
    ] {
        assert!(all.contains(key), "{key} occurs in no golden answer");
    }
    for marker in ["×", "⋯", "(lines ", " left out ", " matches)\t", "+0"] {
        assert!(
            all.contains(marker),
            "marker {marker:?} occurs in no golden answer"
        );
    }
    let words_of = |start: &str| -> Vec<String> {
        let line = legend.lines().find(|l| l.starts_with(start)).unwrap();
        let list = line.split_once(':').map_or(line, |(_, l)| l);
        list.split([',', '.'])
            .map(|w| w.split_whitespace().next().unwrap_or("").to_owned())
            .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
            .collect()
    };
    for word in words_of("- `s` status") {
        assert!(
            exempt(&word) || all.contains(&format!("s:{word}\n")),
            "status {word} occurs in no golden answer"
        );
    }
    let errors = legend.lines().find(|l| l.starts_with("- `error`")).unwrap();
    let list = without_parentheses(errors.split_once("): ").unwrap().1);
    for word in list
        .split(", ")
        .map(|w| w.split_whitespace().next().unwrap().trim_end_matches('.'))
    {
        assert!(
            exempt(word) || all.contains(&format!("error:{word}\n")),
            "error {word} occurs in no golden answer"
        );
    }
    for (word, why) in NOT_PRODUCIBLE.iter().chain(&RUNTIME_REFUSALS) {
        assert!(
            !all.contains(&format!("error:{word}\n")) && !all.contains(&format!("s:{word}\n")),
            "{word} is listed as not producible ({why}) but a golden answer has it"
        );
    }
    for (_, word) in words::FLAGS {
        assert!(
            word == "redacted" || all.contains(word),
            "flag {word} (redacted is never set: ASH/1 §3.1) occurs in no golden answer"
        );
    }
    // The value lists of the rows (`kind (file, dir, symlink, other)`, the states, exits,
    // changes and actions): every value is a cell of some golden row.
    let cells: std::collections::BTreeSet<&str> = all.lines().flat_map(|l| l.split(',')).collect();
    let mut lists = 0;
    for line in legend.lines().filter(|l| l.trim_start().starts_with("- ")) {
        for values in value_lists(line) {
            lists += 1;
            for value in values {
                assert!(
                    NO_GOLDEN_VALUE.iter().any(|(v, _)| *v == value) || cells.contains(value),
                    "legend value {value} ({line}) is a cell of no golden answer"
                );
            }
        }
    }
    assert_eq!(
        lists, 5,
        "the legend's value lists: list, exec, edit, files, snapshot"
    );
    for (value, why) in NO_GOLDEN_VALUE {
        assert!(
            !cells.contains(value),
            "{value} is listed as having no golden ({why}) but a golden answer has it"
        );
    }
}

/// Row values of the legend no golden answer shows, each with the reason.
const NO_GOLDEN_VALUE: [(&str, &str); 2] = [
    (
        "rolled_back",
        "a commit that fails after changing some files: tests/e2e/txn_recovery.rs",
    ),
    (
        "recovery_required",
        "an interrupted transaction (tests/e2e/txn_recovery.rs)",
    ),
];

/// The parenthesised lists of plain words in a legend line (`(file, dir, symlink, other)`):
/// the values a row's cell takes.
fn value_lists(line: &str) -> Vec<Vec<&str>> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find('(') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(')') else { break };
        let words: Vec<&str> = after[..close].split(", ").collect();
        if words.len() > 1
            && words
                .iter()
                .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        {
            out.push(words);
        }
        rest = &after[close + 1..];
    }
    out
}

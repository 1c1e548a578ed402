//! exec, sudo refusal, hardening, and read_only mode.

use super::{Harness, policy};
use ansa::config::AccessMode;
use ansa::tools::{ToolExecError, ToolPolicy};

fn exec(program: &str, args: &str) -> String {
    format!(
        r#"{{"program":"{program}","args":{args},"cwd":".","env":[],"stdin":null,"timeout_ms":null, "outside_sandbox": null}}"#
    )
}

#[test]
fn exec_answers_canonical_ason_with_stdin_and_env() {
    let mut h = Harness::new(&[]);
    let out = h.ok(
        "exec",
        r#"{"program":"sh","args":["-c","printf \"$GREETING \"; cat"],"cwd":".","env":["GREETING=hi","-HOME"],"stdin":"there","timeout_ms":5000, "outside_sandbox": null}"#,
    );
    // Only the elapsed milliseconds vary between runs.
    let (head, rest) = out.split_at(out.find("0,0,").expect("exec row") + 4);
    assert_eq!(head, "t:3\ni:1\ns:0\nd{k,c,ms,o,e,ro,re}:\n0,0,");
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    assert_eq!(rest, ",\"hi there\",~,~,~\nz:0\nr:~\n");
}

#[test]
fn exec_children_have_no_new_privs_and_no_terminal_stdin() {
    let mut h = Harness::new(&[]);
    let out = h.ok(
        "exec",
        &exec(
            "sh",
            r#"["-c","grep NoNewPrivs /proc/self/status; test -t 0 || echo notty"]"#,
        ),
    );
    assert!(out.contains("\"NoNewPrivs:\\t1\\nnotty\\n\""), "{out}");
}

#[test]
fn sudo_is_refused_unless_allowed() {
    let mut h = Harness::new(&[]);
    let err = h.call("exec", &exec("sudo", r#"["true"]"#)).unwrap_err();
    assert_eq!(
        err,
        ToolExecError::Sudo {
            program: "sudo".into()
        }
    );
    assert!(err.to_string().contains("allow_sudo is false"), "{err}");
    let err = h.call("exec", &exec("bin/sudo", "[]")).unwrap_err();
    assert!(matches!(err, ToolExecError::Sudo { .. }), "{err}");

    let mut allowed = Harness::with(
        ToolPolicy {
            allow_sudo: true,
            ..policy()
        },
        &[],
    );
    // Allowed means it reaches the engine (which answers whatever sudo does here).
    let out = allowed.ok("exec", &exec("sudo", r#"["-n","true"]"#));
    assert!(out.starts_with("t:3\ni:1\n"), "{out}");
}

#[test]
fn read_only_refuses_mutation_tools_but_reads() {
    let mut h = Harness::with(
        ToolPolicy {
            withheld_env: Vec::new(),
            access_mode: AccessMode::ReadOnly,
            ..policy()
        },
        &[("a.txt", "x")],
    );
    h.ok(
        "read",
        r#"{"paths":["a.txt"],"mode":"bytes","offset":0,"length":1}"#,
    );
    let calls = [
        ("exec", exec("true", "[]")),
        (
            "edit",
            r#"{"files":[{"path":"a.txt","edits":[{"old":"x","new":"y"}]}]}"#.to_owned(),
        ),
        (
            "files",
            r#"{"actions":[{"kind":"create","path":"b.txt","to":null,"content":"b"}]}"#.to_owned(),
        ),
    ];
    for (tool, json) in calls {
        let err = h.call(tool, &json).unwrap_err();
        assert!(
            matches!(err, ToolExecError::ReadOnly { .. }),
            "{tool}: {err}"
        );
    }
    assert_eq!(h.file("a.txt"), "x");
    assert!(!h.dir.path().join("b.txt").exists());
}

#[test]
fn policy_comes_from_the_user_config_in_ansa_home() {
    use ansa::config::{Env, load};
    use ansa::home::AnsaHome;
    let t = tempfile::tempdir().expect("temp");
    let home = AnsaHome::at(t.path().join(".ansa"));
    std::fs::create_dir_all(home.root()).expect("home");
    std::fs::write(
        home.config_file(),
        r#"{"schema_version":1,"process_timeout_ms":1234,"process_output_bytes":4000,"access_mode":"read_only","allow_sudo":true}"#,
    )
    .expect("config");
    let work = t.path().join("work");
    std::fs::create_dir_all(&work).expect("work");
    let config = load(
        &home,
        &work,
        &Env::from_pairs([("ANSA_HOME", home.root().as_os_str().to_owned())]),
    )
    .expect("config loads");
    let p = ToolPolicy::from_config(&config);
    assert_eq!(
        p,
        ToolPolicy {
            withheld_env: ["AI_API_KEY", "OPENAI_API_KEY", "ASH_BROKER_TOKEN"]
                .map(String::from)
                .to_vec(),
            access_mode: AccessMode::ReadOnly,
            allow_sudo: true,
            allow_git_writes: false,
            process_timeout_ms: 1234,
            process_output_bytes: 4000,
            sandbox: ash_engine::exec::sandbox::SandboxPolicy::off(),
        }
    );
    assert_eq!(p.exec_budget(None).tok, 1000);
    assert_eq!(p.exec_budget(None).ms, 1234);
    assert_eq!(p.exec_budget(Some(7)).ms, 7);
}

/// The `evidence` call a view's `more` note names, as JSON arguments.
fn named_evidence(view: &str) -> String {
    let start = view.find("evidence {").expect("an evidence call") + "evidence ".len();
    let end = start + view[start..].find('}').expect("its end") + 1;
    view[start..end].replace("\\\"", "\"")
}

#[test]
fn a_long_output_is_cut_at_lines_and_the_named_evidence_call_reads_exactly_what_was_left_out() {
    let mut h = Harness::new(&[]);
    let view = h.view("exec", &exec("seq", r#"["1","5000"]"#));
    let (answer, blocks) = view.split_once("\n>>>1\n").expect("a raw block");
    let shown: Vec<&str> = blocks.lines().collect();
    // Whole lines only: the numbers run 1..=head, then the marker, then tail..=5000.
    let marker = shown
        .iter()
        .position(|l| l.starts_with("⋯ lines "))
        .expect("a cut marker");
    let head: Vec<u32> = shown[..marker].iter().map(|l| l.parse().unwrap()).collect();
    let tail: Vec<u32> = shown[marker + 1..]
        .iter()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(head, (1..=head.len() as u32).collect::<Vec<_>>());
    assert_eq!(*tail.last().unwrap(), 5000);
    let (first, last) = (head.len() as u32 + 1, tail[0] - 1);
    assert_eq!(
        shown[marker],
        format!(
            "⋯ lines {first}-{last} of stdout left out ({} lines, {} bytes) ⋯",
            last - first + 1,
            (first..=last)
                .map(|n| n.to_string().len() + 1)
                .sum::<usize>()
        )
    );
    // The stated rule: the first and last 40 lines (these are short).
    assert_eq!((head.len(), tail.len()), (40, 40), "{answer}");
    assert!(
        answer.contains("more:\"stdout: kept lines 1-40 and 4961-5000 of 5000 (the rule:"),
        "{answer}"
    );
    // The view stays within the engine's stdout budget (half of process_output_bytes).
    assert!(blocks.len() <= 16_384 / 2 + 100, "{}", blocks.len());
    let call = named_evidence(answer);
    let read = h.view("evidence", &call);
    let expected: String = (first..=last).map(|n| format!("{n}\n")).collect();
    assert!(read.ends_with(&format!(">>>1\n{expected}")), "{read}");
}

#[test]
fn a_failed_command_names_left_out_lines_that_look_like_the_failure() {
    let mut h = Harness::new(&[]);
    let script = "for i in $(seq 1 4000); do echo \"step $i\"; done; echo 'FAILED tests/test_x.py::test_y'; for i in $(seq 1 4000); do echo \"more $i\"; done; exit 3";
    let view = h.view(
        "exec",
        &format!(
            r#"{{"program":"sh","args":["-c",{script:?}],"cwd":".","env":[],"stdin":null,"timeout_ms":null, "outside_sandbox": null}}"#
        ),
    );
    assert!(view.starts_with("s:failed\n"), "{view}");
    // The failure focus keeps the anchor in view, or the note lists it with its line number.
    assert!(view.contains("FAILED tests/test_x.py::test_y"), "{view}");
}

//! One-shot, line mode, the demo, --print-config, --self-check, config and instruction edge cases.

use serde_json::json;

use crate::harness::World;

#[test]
fn one_shot_prints_only_the_answer() {
    let w = World::new();
    let out = w
        .command(&["--offline", "what is the value?"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let key = ansa::provider::offline_key("what is the value?");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "The test value for {key} is {}.\n",
            ansa::tools::test_value(&key)
        )
    );
}

#[test]
fn one_shot_paused_exits_1_and_says_how_to_continue() {
    let w = World::new();
    let script = w.script(
        "s.json",
        json!([{"tool_calls": [{"name": "get_test_value", "arguments": {"key": "a"}}]}]),
    );
    let out = w
        .command(&["--offline", "--script", script.to_str().unwrap(), "task"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    // The hint reopens exactly this session, not the directory's latest.
    let id = crate::harness::only_session_dir(&w);
    let id = id.file_name().unwrap().to_string_lossy();
    assert!(
        err.contains(&format!("ansa --offline --session {id}")),
        "{err}"
    );
}

#[test]
fn continue_reopens_the_newest_session_of_the_cwd() {
    let w = World::new();
    let out = w.command(&["--offline", "first"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let mut s = w.jsonl(&["--continue"]);
    s.send("transcript", json!({"before": 0, "limit": 64}));
    let page = s.expect_type("transcript", &[]);
    assert_eq!(page["entries"][0]["text"], "first");
    s.finish();
}

#[test]
fn line_mode_answers_each_line() {
    let w = World::new();
    let mut child = w
        .command(&["--offline"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"one\ntwo\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let a = stdout.find(&ansa::provider::offline_key("one")).unwrap();
    let b = stdout.find(&ansa::provider::offline_key("two")).unwrap();
    assert!(a < b, "{stdout}");
}

#[test]
fn offline_demo_works_without_home_or_network() {
    let w = World::new();
    let out = w
        .command(&["--offline-demo"])
        .env("ANSA_HOME", w.path("never-created"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("The test value for task-"), "{stdout}");
    assert!(!w.path("never-created").exists());
}

#[test]
fn self_check_passes_on_a_fresh_home() {
    let w = World::new();
    let out = w.command(&["--self-check"]).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    for check in ["home", "config", "tls", "journal", "engine"] {
        assert!(stdout.contains(&format!("ok    {check}")), "{stdout}");
    }
}

#[test]
fn self_check_calls_a_home_others_can_read_readable_not_private() {
    let w = World::new();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(w.ansa_home(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = w.command(&["--self-check"]).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let home = stdout
        .lines()
        .find(|l| l.starts_with("ok    home"))
        .unwrap_or_else(|| panic!("no home line: {stdout}"));
    assert!(!home.contains("is private"), "{home}");
    assert!(
        home.contains("mode 0755") && home.contains("chmod 700"),
        "{home}"
    );
}

#[test]
fn self_check_fails_on_an_insecure_home() {
    let w = World::new();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(w.ansa_home(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = w.command(&["--self-check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("FAIL  home")
    );
}

#[test]
fn print_config_merges_user_and_project() {
    let w = World::new();
    std::fs::write(
        w.ansa_home().join("config.json"),
        r#"{"schema_version":1,"tool_rounds":7}"#,
    )
    .unwrap();
    w.project_config(json!({"schema_version": 1, "tool_calls": 9}));
    let out = w.command(&["--print-config"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["tool_rounds"].as_u64(), v["tool_calls"].as_u64()),
        (Some(7), Some(9))
    );
}

#[test]
fn config_errors_exit_3_with_file_and_field() {
    let w = World::new();
    w.project_config(json!({"schema_version": 1, "access_mode": "read_only"}));
    let out = w.command(&["--offline", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("access_mode") && err.contains(".ansa/config.json"),
        "{err}"
    );

    w.project_config(json!({"schema_version": 1, "colour": "mint"}));
    let out = w.command(&["--offline", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("colour"));
}

#[test]
fn a_changed_config_needs_a_new_session() {
    let w = World::new();
    let dir = w.path("bound");
    let s = w.jsonl(&["--session", dir.to_str().unwrap()]);
    s.finish();
    w.project_config(json!({"schema_version": 1, "tool_rounds": 3}));
    let out = w
        .command(&["--offline-jsonl", "--session", dir.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("different configuration"), "{err}");
    assert!(
        err.contains("`tool_rounds` was ") && err.contains(", now 3"),
        "the refusal names the field and both values: {err}"
    );
    assert!(
        !err.contains("digest"),
        "no digests when the fields are known: {err}"
    );
}

#[test]
fn an_edited_agents_md_is_named_when_a_session_refuses_it() {
    let w = World::new();
    std::fs::write(w.ws().join("AGENTS.md"), "use cargo\n").unwrap();
    let dir = w.path("bound");
    let s = w.jsonl(&["--session", dir.to_str().unwrap()]);
    s.finish();
    std::fs::write(w.ws().join("AGENTS.md"), "use make\n").unwrap();
    let out = w
        .command(&["--offline-jsonl", "--session", dir.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    let err = String::from_utf8_lossy(&out.stderr);
    let agents = w.ws().join("AGENTS.md");
    assert!(
        err.contains(&format!("{} changed", agents.display())),
        "the refusal names the file: {err}"
    );
}

#[test]
fn a_symlinked_agents_md_is_not_loaded_and_nested_ones_arrive_once() {
    let w = World::new();
    std::fs::write(w.path("elsewhere.md"), "SECRET RULES").unwrap();
    std::os::unix::fs::symlink(w.path("elsewhere.md"), w.ws().join("AGENTS.md")).unwrap();
    std::fs::create_dir(w.ws().join("sub")).unwrap();
    std::fs::write(w.ws().join("sub/AGENTS.md"), "NESTED RULE").unwrap();
    std::fs::write(w.ws().join("sub/a.txt"), "a\n").unwrap();
    let read = json!({"name": "read", "arguments": {"paths": ["sub/a.txt"], "mode": "lines", "offset": 1, "length": 5}});
    let script = w.script(
        "nested.json",
        json!([{"tool_calls": [read.clone()]}, {"tool_calls": [read]}, {"text": "A={{tool_output:0}}\nB={{tool_output:1}}"}]),
    );
    let mut s = w.jsonl(&["--script", script.to_str().unwrap()]);
    let rid = s.submit("read nested");
    let answer = s.answer(rid);
    let (a, b) = answer.split_once("\nB=").unwrap();
    assert!(a.contains("NESTED RULE"), "{a}");
    assert!(!b.contains("NESTED RULE"), "{b}");
    assert!(!answer.contains("SECRET RULES"));
    s.finish();
}

#[test]
fn the_live_profile_without_a_key_exits_4_before_creating_a_session() {
    let w = World::new();
    let out = w
        .command(&["a task"])
        .env_remove("AI_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("AI_API_KEY") && err.contains("--offline"),
        "{err}"
    );
    assert!(
        !w.ansa_home().join("sessions").exists(),
        "no session may be created"
    );
    let out = w
        .command(&["a task"])
        .env("AI_PROVIDER", "offline")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn usage_errors_exit_2() {
    let w = World::new();
    let out = w.command(&["--script", "x.json", "task"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = w.command(&["--no-such-flag"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = w
        .command(&["--offline", "--compact-bytes", "100", "t"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("16384"));
    let out = w
        .command(&["--offline", "--script", "missing.json", "t"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.json"));
}

#[test]
fn ctrl_c_in_one_shot_cancels_the_turn_and_exits_130() {
    let w = World::new();
    let pidfile = w.path("cmd.pid");
    let script = w.script(
        "long.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "sh",
                "args": ["-c", format!("echo $$ > {}; sleep 300", pidfile.display())],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
            {"text": "never"}
        ]),
    );
    let child = w
        .command(&[
            "--offline",
            "--script",
            script.to_str().unwrap(),
            "long task",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let cmd = crate::harness::read_pid(&pidfile);
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cancelled"));
    crate::harness::eventually("the command to be gone", || !crate::harness::alive(cmd));
}

#[test]
fn an_exec_that_hits_its_timeout_is_journaled_timed_out() {
    let w = World::new();
    let script = w.script(
        "s.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "sleep", "args": ["30"],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": 200, "outside_sandbox": null}}]},
            {"text": "gave up"}
        ]),
    );
    let out = w
        .command(&["--offline", "--script", script.to_str().unwrap(), "wait"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let journal = crate::harness::journal_text(&crate::harness::only_session_dir(&w));
    assert!(
        journal.contains(r#""status":"timed_out""#),
        "the outcome says it timed out: {journal}"
    );
    assert!(!journal.contains(r#""status":"ok""#), "{journal}");
}

#[test]
fn cwd_that_is_not_a_directory_is_one_usage_error() {
    let w = World::new();
    std::fs::write(w.path("file.txt"), "x").unwrap();
    for (arg, why) in [
        (w.path("file.txt"), "it is a file"),
        (w.path("missing"), "No such file"),
    ] {
        let out = w
            .command(&["--offline", "--cwd", arg.to_str().unwrap(), "task"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("--cwd {}: not a directory (", arg.display()))
                && err.contains(why),
            "{err}"
        );
    }
}

#[test]
fn session_busy_says_it_once() {
    let w = World::new();
    let mut open = w.jsonl(&[]);
    open.send("snapshot", json!({"after_sequence": 0}));
    open.expect_type("snapshot", &[]);
    let dir = crate::harness::only_session_dir(&w);
    let out = w
        .command(&["--offline", "--session", dir.to_str().unwrap(), "task"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{err}");
    assert_eq!(err.matches("session_busy").count(), 1, "{err}");
    assert_eq!(err.matches("start a new session").count(), 1, "{err}");
    open.finish();
}

#[test]
fn line_mode_says_at_once_why_a_damaged_session_is_read_only() {
    let w = World::new();
    // The first mention is in the provider item on line 7 (after the environment message).
    let dir = crate::harness::damaged_session(&w, "get_test_value", "get_test_valuE");
    let mut child = w
        .command(&["--offline", "--session", dir.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("this session is read-only: journal part 000001 line 7"),
        "{err}"
    );
}

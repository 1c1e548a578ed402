//! Resuming a session started with `--ask` or `--sandbox` (issue 44, a bug found last
//! session): it resumes under them without the flag being repeated; a different flag, or a
//! config now stricter than the session, is refused naming the field; nothing is loosened.

use serde_json::{Value, json};

use crate::harness::{Jsonl, World};

fn exec(script: &str) -> Value {
    json!({"name": "exec", "arguments": {"program": "sh", "args": ["-c", script],
        "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
}

/// A session directory's path.
fn dir(w: &World) -> String {
    w.path("session").to_str().unwrap().to_owned()
}

/// Opens the session with `flags` over offline JSONL (the script runs `touch proof`).
fn open(w: &World, flags: &[&str]) -> Jsonl {
    let proof = w.path("proof");
    let script = w.script(
        "touch.json",
        json!([{"tool_calls": [exec(&format!("touch {}", proof.display()))]}, {"text": "done"}]),
    );
    let session = dir(w);
    let mut args = vec![
        "--session",
        session.as_str(),
        "--script",
        script.to_str().unwrap(),
    ];
    args.extend_from_slice(flags);
    w.jsonl(&args)
}

/// Starts the session with `flags` and closes it again (its binding is recorded at open).
fn start(w: &World, flags: &[&str]) {
    let (code, _) = open(w, flags).finish();
    assert_eq!(code, 0);
}

/// The exit code and stderr of opening the session with `flags`.
fn refused(w: &World, flags: &[&str]) -> (i32, String) {
    let session = dir(w);
    let mut args = vec!["--offline-jsonl", "--session", session.as_str()];
    args.extend_from_slice(flags);
    let out = w
        .command(&args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_session_started_with_ask_resumes_in_ask_mode_without_the_flag() {
    let w = World::new();
    start(&w, &["--ask"]);
    let mut s = open(&w, &[]);
    s.submit("touch it");
    let ev = s.expect_type("approval_required", &[]);
    assert_eq!(ev["tool"], "exec", "{ev}");
    assert!(!w.path("proof").exists(), "nothing ran before an approval");
    s.finish();
    // Repeating the flag is the same mode.
    let (code, _) = open(&w, &["--ask"]).finish();
    assert_eq!(code, 0);
}

#[test]
fn ask_given_to_a_full_access_session_is_refused_naming_the_field() {
    let w = World::new();
    start(&w, &[]);
    let (code, stderr) = refused(&w, &["--ask"]);
    assert_eq!(code, 5, "{stderr}");
    assert!(
        stderr.contains("was started with access_mode `full_access`")
            && stderr.contains("the stricter `ask` (--ask)")
            && stderr.contains("resume without --ask"),
        "{stderr}"
    );
}

#[test]
fn a_config_now_stricter_than_the_session_is_refused_and_a_looser_one_restores_the_session() {
    let w = World::new();
    start(&w, &[]);
    let config = w.ansa_home().join("config.json");
    std::fs::write(&config, r#"{"access_mode":"ask"}"#).unwrap();
    let (code, stderr) = refused(&w, &[]);
    assert_eq!(code, 5, "{stderr}");
    assert!(
        stderr.contains("your config now asks for the stricter `ask` (`access_mode`)")
            && stderr.contains("set `access_mode` back to `full_access`"),
        "{stderr}"
    );
    // The other way round: started in ask mode by the config, resumed after the config went
    // back to full access, it stays in ask mode.
    let w = World::new();
    let config = w.ansa_home().join("config.json");
    std::fs::write(&config, r#"{"access_mode":"ask"}"#).unwrap();
    start(&w, &[]);
    std::fs::write(&config, r#"{"access_mode":"full_access"}"#).unwrap();
    let mut s = open(&w, &[]);
    s.submit("touch it");
    s.expect_type("approval_required", &[]);
    s.finish();
    assert!(!w.path("proof").exists());
}

#[test]
fn a_sandboxed_session_resumes_in_its_sandbox_and_another_sandbox_flag_is_refused() {
    let w = World::new();
    start(&w, &["--sandbox", "workspace-write"]);
    let (code, _) = open(&w, &[]).finish();
    assert_eq!(code, 0, "resumed without repeating --sandbox");
    let (code, _) = open(&w, &["--sandbox", "workspace-write"]).finish();
    assert_eq!(code, 0);
    for (flag, stricter) in [("off", "looser"), ("read-only", "stricter")] {
        let (code, stderr) = refused(&w, &["--sandbox", flag]);
        assert_eq!(code, 5, "{stderr}");
        assert!(
            stderr.contains("was started with sandbox `workspace-write`")
                && stderr.contains(&format!("the {stricter} `{flag}` (--sandbox)")),
            "{stderr}"
        );
    }
}

#[test]
fn an_ask_session_resumed_by_a_one_shot_without_a_terminal_says_why() {
    let w = World::new();
    start(&w, &["--ask"]);
    let session = dir(&w);
    let out = w
        .command(&["--offline", "--session", session.as_str(), "go on"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("was started in ask mode") && stderr.contains("stdin is not a terminal"),
        "{stderr}"
    );
}

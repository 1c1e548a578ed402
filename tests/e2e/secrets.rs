//! ansa's own secrets never reach a command the model runs: `env` run through the exec tool
//! shows neither the API keys, nor the broker token, nor a variable named in the user config's
//! `exec_env_deny`, so they cannot reach the tool output, the journal or the model's context.

use super::harness::{World, journal_text, only_session_dir};
use serde_json::json;

#[test]
fn exec_children_never_inherit_ansa_secrets() {
    let w = World::new();
    std::fs::create_dir_all(w.ansa_home()).unwrap();
    std::fs::write(
        w.ansa_home().join("config.json"),
        json!({"schema_version": 1, "exec_env_deny": ["MY_DEPLOY_TOKEN"]}).to_string(),
    )
    .unwrap();
    let script = w.script(
        "s.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "env", "args": [],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null}}]},
            {"text": "listed"}
        ]),
    );
    let out = w
        .command(&[
            "--offline",
            "--script",
            script.to_str().unwrap(),
            "show env",
        ])
        .env("AI_API_KEY", "sk-ai-secret-1")
        .env("OPENAI_API_KEY", "sk-openai-secret-2")
        .env("ASH_BROKER_TOKEN", "broker-secret-3")
        .env("MY_DEPLOY_TOKEN", "deploy-secret-4")
        .env("ANSA_TEST_VISIBLE", "visible-5")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let journal = journal_text(&only_session_dir(&w));
    assert!(
        journal.contains("visible-5"),
        "env ran and its output was journaled: {journal}"
    );
    for secret in [
        "sk-ai-secret-1",
        "sk-openai-secret-2",
        "broker-secret-3",
        "deploy-secret-4",
    ] {
        assert!(!journal.contains(secret), "{secret} reached the journal");
    }
}

//! Config tests: every error a user can cause, against a temporary home and cwd.

use std::os::unix::fs::symlink;
use std::path::PathBuf;

use super::layer::{Origin, parse_layer};
use super::*;
use crate::home::AnsaHome;

struct Fixture {
    _t: tempfile::TempDir,
    home: AnsaHome,
    cwd: PathBuf,
}

fn fixture() -> Fixture {
    let t = tempfile::tempdir().unwrap();
    let home = AnsaHome::at(t.path().join("home"));
    home.ensure().unwrap();
    let cwd = t.path().join("proj");
    std::fs::create_dir_all(cwd.join(".ansa")).unwrap();
    Fixture { _t: t, home, cwd }
}

impl Fixture {
    fn user(&self, json: &str) -> &Self {
        std::fs::write(self.home.config_file(), json).unwrap();
        self
    }
    fn project(&self, json: &str) -> &Self {
        std::fs::write(self.project_file(), json).unwrap();
        self
    }
    fn project_file(&self) -> PathBuf {
        self.cwd.join(".ansa/config.json")
    }
    fn load(&self, env: &[(&str, &str)]) -> Result<Config, ConfigError> {
        load(
            &self.home,
            &self.cwd,
            &Env::from_pairs(env.iter().map(|(k, v)| (*k, *v))),
        )
    }
}

fn user_err(json: &str) -> String {
    parse_layer("F", json.as_bytes(), Origin::User)
        .unwrap_err()
        .to_string()
}

#[test]
fn defaults_without_files() {
    let f = fixture();
    let c = f.load(&[]).unwrap();
    assert_eq!(
        c.provider,
        Provider::Responses {
            base_url: Endpoint::parse(DEFAULT_RESPONSES_BASE_URL).unwrap()
        }
    );
    assert_eq!(
        (c.model.as_str(), c.returned_model.as_str()),
        (DEFAULT_RESPONSES_MODEL, DEFAULT_RESPONSES_MODEL)
    );
    assert_eq!(
        (c.compact_bytes, c.tool_rounds, c.tool_calls),
        (262_144, 32, 64)
    );
    assert_eq!(
        (c.process_timeout_ms, c.process_output_bytes),
        (60_000, 16_384)
    );
    assert_eq!(
        (c.access_mode, c.allow_sudo),
        (AccessMode::FullAccess, false)
    );
    assert!(c.exclude.is_empty() && c.api_key.is_none() && c.sources.is_empty());
}

#[test]
fn the_spec_example_loads_and_project_overrides_user() {
    let f = fixture();
    f.user(r#"{"schema_version":1,"model":"gpt-6.1-sol","tool_rounds":32,"tool_calls":64,
 "process_timeout_ms":60000,"process_output_bytes":16384,"access_mode":"read_only","allow_sudo":true,"exclude":["*.key"]}"#)
        .project(r#"{"tool_rounds":5,"returned_model":"gpt-6.1-sol-2026","exclude":["build/**","*.key"]}"#);
    let c = f.load(&[]).unwrap();
    assert_eq!(c.tool_rounds, 5);
    assert_eq!(c.returned_model, "gpt-6.1-sol-2026");
    assert_eq!((c.access_mode, c.allow_sudo), (AccessMode::ReadOnly, true));
    assert_eq!(c.exclude, vec!["*.key".to_string(), "build/**".to_string()]);
    assert_eq!(c.sources, vec![f.home.config_file(), f.project_file()]);
}

#[test]
fn unknown_fields_and_wrong_types_name_file_field_and_reason() {
    let e = user_err(r#"{"modle":"x"}"#);
    assert_eq!(e, "F: field `modle`: unknown field");
    let e = user_err(r#"{"tool_rounds":"5"}"#);
    assert!(
        e.contains("`tool_rounds`") && e.contains("found a string"),
        "{e}"
    );
    let e = user_err(r#"{"allow_sudo":1}"#);
    assert!(
        e.contains("`allow_sudo`") && e.contains("expected a boolean"),
        "{e}"
    );
    let e = user_err(r#"{"exec_env_deny":["OK_1","9BAD"]}"#);
    assert!(
        e.contains("`exec_env_deny[1]`") && e.contains("not an environment variable name"),
        "{e}"
    );
    let e = user_err(r#"{"exclude":"*.key"}"#);
    assert!(e.contains("`exclude`") && e.contains("an array"), "{e}");
    let e = user_err(r#"{"exclude":["ok",3]}"#);
    assert!(e.contains("`exclude[1]`"), "{e}");
    let e = user_err(r#"{"exclude":["a["]}"#);
    assert!(
        e.contains("`exclude[0]`") && e.contains("not a valid glob"),
        "{e}"
    );
    let e = user_err(r#"{"provider":{"kind":"chat","base_url":"https://x/v1","model":"m"}}"#);
    assert!(
        e.contains("`provider.model`") && e.contains("unknown field"),
        "{e}"
    );
    let e = user_err(r#"{"provider":{"kind":"gemini"}}"#);
    assert!(e.contains("`provider.kind`"), "{e}");
    let e = user_err(r#"{"provider":{"kind":"chat"}}"#);
    assert!(
        e.contains("`provider.base_url`") && e.contains("missing"),
        "{e}"
    );
    let e = user_err(r#"{"provider":{"kind":"chat","base_url":"https://x","api_key_env":"A-B"}}"#);
    assert!(e.contains("`provider.api_key_env`"), "{e}");
    let e = user_err(r#"{"access_mode":"always"}"#);
    assert!(
        e.contains("`access_mode`") && e.contains("full_access, read_only, ask"),
        "{e}"
    );
    for (json, field) in [
        (r#"{"model":""}"#, "model"),
        (r#"{"returned_model":"  "}"#, "returned_model"),
    ] {
        let e = user_err(json);
        assert!(
            e.contains(&format!("`{field}`")) && e.contains("non-empty"),
            "{e}"
        );
    }
    assert!(user_err(r#"{"model":"a","model":"b"}"#).contains("duplicate key"));
    assert!(user_err("[1]").contains("must be an object"));
    assert!(user_err("{").contains("not valid config JSON"));
}

#[test]
fn every_bound_just_inside_and_just_outside() {
    let cases: &[(&str, u64, u64)] = &[
        ("schema_version", 1, 1),
        ("compact_bytes", 16_384, u64::MAX),
        ("tool_rounds", 1, 64),
        ("tool_calls", 1, 256),
        ("process_timeout_ms", 1, 600_000),
        ("process_output_bytes", 1, bounds::PROCESS_OUTPUT_BYTES_MAX),
    ];
    for &(field, lo, hi) in cases {
        for ok in [lo, hi] {
            let json = format!(r#"{{"{field}":{ok}}}"#);
            assert!(
                parse_layer("F", json.as_bytes(), Origin::User).is_ok(),
                "{json}"
            );
        }
        let mut outside = vec![lo - 1];
        if hi < u64::MAX {
            outside.push(hi + 1);
        }
        for bad in outside {
            let e = user_err(&format!(r#"{{"{field}":{bad}}}"#));
            assert!(
                e.contains(&format!("`{field}`")) && e.contains("out of bounds"),
                "{e}"
            );
        }
        for bad in ["-1", "1.5", "null"] {
            let e = user_err(&format!(r#"{{"{field}":{bad}}}"#));
            assert!(e.contains(&format!("`{field}`")), "{e}");
        }
    }
}

#[test]
fn ask_mode_is_a_user_config_setting() {
    let f = fixture();
    f.user(r#"{"access_mode":"ask"}"#);
    let c = f.load(&[]).unwrap();
    assert_eq!(c.access_mode, AccessMode::Ask);
    assert!(c.to_print_json().contains(r#""access_mode":"ask""#));
}

#[test]
fn project_file_may_not_set_user_only_fields() {
    for json in [
        r#"{"access_mode":"full_access"}"#,
        r#"{"access_mode":"ask"}"#,
        r#"{"allow_sudo":false}"#,
        r#"{"allow_git_writes":true}"#,
        r#"{"provider":{"kind":"offline"}}"#,
        r#"{"exec_env_deny":[]}"#,
    ] {
        let f = fixture();
        f.project(json);
        let e = f.load(&[]).unwrap_err().to_string();
        let field = json.split('"').nth(1).unwrap();
        assert!(e.contains(&f.project_file().display().to_string()), "{e}");
        assert!(
            e.contains(&format!("`{field}`")) && e.contains("only be set in the user config"),
            "{e}"
        );
    }
}

#[test]
fn symlinked_and_hard_linked_config_is_refused() {
    let f = fixture();
    let real = f.cwd.join("real.json");
    std::fs::write(&real, "{}").unwrap();
    symlink(&real, f.project_file()).unwrap();
    let e = f.load(&[]).unwrap_err().to_string();
    assert!(e.contains("refused") && e.contains("symbolic link"), "{e}");
    std::fs::remove_file(f.project_file()).unwrap();
    std::fs::hard_link(&real, f.project_file()).unwrap();
    let e = f.load(&[]).unwrap_err().to_string();
    assert!(e.contains("refused") && e.contains("2 hard links"), "{e}");
    std::fs::remove_file(f.project_file()).unwrap();
    std::fs::hard_link(&real, f.home.config_file()).unwrap();
    let e = f.load(&[]).unwrap_err().to_string();
    assert!(
        e.contains(&f.home.config_file().display().to_string()),
        "{e}"
    );
}

#[test]
fn symlinked_project_dir_and_non_regular_file_are_refused() {
    let f = fixture();
    std::fs::remove_dir(f.cwd.join(".ansa")).unwrap();
    let elsewhere = f.cwd.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("config.json"), "{}").unwrap();
    symlink(&elsewhere, f.cwd.join(".ansa")).unwrap();
    let e = f.load(&[]).unwrap_err().to_string();
    assert!(e.contains(".ansa") && e.contains("symbolic link"), "{e}");
    std::fs::remove_file(f.cwd.join(".ansa")).unwrap();
    std::fs::create_dir_all(f.project_file()).unwrap();
    assert!(
        f.load(&[])
            .unwrap_err()
            .to_string()
            .contains("not a regular file")
    );
}

#[test]
fn running_in_home_reads_the_user_file_once() {
    let t = tempfile::tempdir().unwrap();
    let home = AnsaHome::at(t.path().join(".ansa"));
    home.ensure().unwrap();
    std::fs::write(home.config_file(), r#"{"allow_sudo":true}"#).unwrap();
    let c = load(&home, t.path(), &Env::from_pairs::<&str, &str>([])).unwrap();
    assert!(c.allow_sudo);
    assert_eq!(c.sources.len(), 1);
}

#[test]
fn env_overrides_apply_on_top() {
    let f = fixture();
    f.user(r#"{"model":"file-model","returned_model":"file-returned"}"#);
    let c = f
        .load(&[
            ("AI_MODEL", "env-model"),
            ("AI_ENDPOINT", "https://proxy.example/v1/"),
            ("OPENAI_API_KEY", "sk-1"),
        ])
        .unwrap();
    assert_eq!(
        (c.model.as_str(), c.returned_model.as_str()),
        ("env-model", "env-model")
    );
    assert_eq!(
        c.provider,
        Provider::Responses {
            base_url: Endpoint::parse("https://proxy.example/v1").unwrap()
        }
    );
    let key = c.api_key.unwrap();
    assert_eq!(
        (key.source.as_str(), key.value.expose()),
        ("OPENAI_API_KEY", "sk-1")
    );
    let c = f
        .load(&[("AI_API_KEY", "a"), ("OPENAI_API_KEY", "b")])
        .unwrap();
    assert_eq!(c.api_key.unwrap().source, "AI_API_KEY");

    let c = f
        .load(&[
            ("AI_PROVIDER", "chat"),
            ("AI_ENDPOINT", "http://127.0.0.1:11434/v1"),
            ("OPENAI_API_KEY", "sk"),
        ])
        .unwrap();
    assert_eq!(c.provider.kind(), ProviderKind::Chat);
    assert_eq!(c.model, "file-model");
    assert!(
        c.api_key.is_none(),
        "the OpenAI key is never sent to a chat server implicitly"
    );
    let c = f
        .load(&[("AI_PROVIDER", "offline"), ("AI_ENDPOINT", "https://x")])
        .unwrap();
    assert_eq!(c.provider, Provider::Offline);
}

#[test]
fn env_values_are_validated() {
    let f = fixture();
    let e = f
        .load(&[("AI_ENDPOINT", "http://example.com/v1")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("AI_ENDPOINT") && e.contains("loopback"), "{e}");
    for ok in [
        "http://localhost:8080/v1",
        "http://[::1]:8080",
        "http://127.0.0.1",
    ] {
        assert!(f.load(&[("AI_ENDPOINT", ok)]).is_ok(), "{ok}");
    }
    assert!(
        f.load(&[("AI_PROVIDER", "gemini")])
            .unwrap_err()
            .to_string()
            .contains("AI_PROVIDER")
    );
    assert!(
        f.load(&[("AI_PROVIDER", "chat")])
            .unwrap_err()
            .to_string()
            .contains("AI_ENDPOINT")
    );
    assert!(
        f.load(&[("AI_MODEL", " x")])
            .unwrap_err()
            .to_string()
            .contains("AI_MODEL")
    );
    assert!(
        f.load(&[("AI_API_KEY", "a b")])
            .unwrap_err()
            .to_string()
            .contains("AI_API_KEY")
    );
    assert!(
        f.load(&[("AI_CA_FILE", "/nonexistent/ca.pem")])
            .unwrap_err()
            .to_string()
            .contains("AI_CA_FILE")
    );
    let ca = f.cwd.join("ca.pem");
    std::fs::write(&ca, "PEM").unwrap();
    let c = f.load(&[("AI_CA_FILE", ca.to_str().unwrap())]).unwrap();
    assert_eq!(c.ca_file.unwrap(), std::fs::canonicalize(&ca).unwrap());
    let e = f
        .load(&[
            ("AI_PROVIDER", "chat"),
            ("AI_ENDPOINT", "http://localhost/v1"),
        ])
        .unwrap_err()
        .to_string();
    assert!(e.contains("no default model"), "{e}");
}

#[test]
fn chat_provider_from_user_file_uses_its_key_variable() {
    let f = fixture();
    f.user(r#"{"model":"llama","provider":{"kind":"chat","base_url":"https://openrouter.example/api/v1","api_key_env":"OR_KEY"}}"#);
    let c = f.load(&[("OR_KEY", "k"), ("OPENAI_API_KEY", "o")]).unwrap();
    assert_eq!(c.api_key.unwrap().source, "OR_KEY");
    let e = user_err(r#"{"provider":{"kind":"chat","base_url":"http://10.1.1.1/v1"}}"#);
    assert!(
        e.contains("`provider.base_url`") && e.contains("loopback"),
        "{e}"
    );
}

#[test]
fn print_config_redacts_secrets_and_is_canonical() {
    let f = fixture();
    f.user(r#"{"model":"m"}"#);
    let c = f.load(&[("AI_API_KEY", "sk-very-secret")]).unwrap();
    let out = c.to_print_json();
    assert!(!out.contains("sk-very-secret"), "{out}");
    assert!(!format!("{c:?}").contains("sk-very-secret"));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["api_key"],
        serde_json::json!({"source":"AI_API_KEY","value":"<redacted>"})
    );
    assert_eq!(v["model"], "m");
    assert_eq!(v["digest"], c.digest());
    assert!(
        out.starts_with(r#"{"access_mode":"full_access","allow_sudo":false,"api_key":"#),
        "{out}"
    );
}

#[test]
fn digest_is_stable_across_key_order_and_tracks_values() {
    let f = fixture();
    f.user(r#"{"model":"m","tool_rounds":7,"exclude":["a"]}"#);
    let d1 = f.load(&[]).unwrap().digest();
    f.user(r#"{"exclude":["a"],"tool_rounds":7,"model":"m"}"#);
    assert_eq!(d1, f.load(&[]).unwrap().digest());
    assert_eq!(
        d1,
        f.load(&[("AI_API_KEY", "rotated")]).unwrap().digest(),
        "secrets are not bound"
    );
    f.user(r#"{"exclude":["a"],"tool_rounds":8,"model":"m"}"#);
    assert_ne!(d1, f.load(&[]).unwrap().digest());
    f.user(r#"{"model":"m","tool_rounds":7,"exclude":["a"]}"#)
        .project(r#"{"compact_bytes":16384}"#);
    assert_ne!(d1, f.load(&[]).unwrap().digest());
    assert_eq!(d1.len(), 64);
}

#[test]
fn insecure_home_is_refused_before_reading_config() {
    use std::os::unix::fs::PermissionsExt;
    let f = fixture();
    std::fs::set_permissions(f.home.root(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let e = f.load(&[]).unwrap_err().to_string();
    assert!(e.contains("insecure permissions"), "{e}");
}

#[test]
fn reasoning_follows_the_model_entry_else_the_catalog() {
    let f = fixture();
    // OpenAI's GPT-5 family reasons; the default endpoint is api.openai.com.
    assert!(f.load(&[]).unwrap().reasoning);
    let other = f.load(&[("AI_MODEL", "gpt-4.1")]).unwrap();
    assert!(!other.reasoning);
    f.user(&format!(
        r#"{{"models":{{"{DEFAULT_RESPONSES_MODEL}":{{"reasoning":false}},"local":{{"reasoning":true}}}}}}"#
    ));
    assert!(!f.load(&[]).unwrap().reasoning);
    // A project entry for the same model wins; entries for other models stay.
    f.project(&format!(
        r#"{{"models":{{"{DEFAULT_RESPONSES_MODEL}":{{"reasoning":true}}}}}}"#
    ));
    assert!(f.load(&[]).unwrap().reasoning);
    assert!(f.load(&[("AI_MODEL", "local")]).unwrap().reasoning);
    let e = user_err(r#"{"models":{"m":{"effort":"high"}}}"#);
    assert!(
        e.contains("`models.m.effort`") && e.contains("unknown field"),
        "{e}"
    );
    let e = user_err(r#"{"models":{"m":{"reasoning":"yes"}}}"#);
    assert!(
        e.contains("`models.m.reasoning`") && e.contains("expected a boolean"),
        "{e}"
    );
    let e = user_err(r#"{"models":[]}"#);
    assert!(e.contains("`models`") && e.contains("an object"), "{e}");
}

#[test]
fn the_context_window_comes_from_the_models_entry_and_is_checked() {
    let f = fixture();
    assert_eq!(f.load(&[]).unwrap().context_window, None);
    f.user(&format!(
        r#"{{"models":{{"{DEFAULT_RESPONSES_MODEL}":{{"context_window":272000}},"local":{{"context_window":8192}}}}}}"#
    ));
    assert_eq!(f.load(&[]).unwrap().context_window, Some(272_000));
    assert_eq!(
        f.load(&[("AI_MODEL", "local")]).unwrap().context_window,
        Some(8192)
    );
    assert_eq!(
        f.load(&[("AI_MODEL", "other")]).unwrap().context_window,
        None
    );
    // Every model's window is kept, so a model chosen later (`--model`, `/model`) is measured
    // against its own, whatever model the config names.
    let other = f.load(&[("AI_MODEL", "other")]).unwrap();
    assert_eq!(
        super::window_of(&other.context_windows, "local"),
        Some(8192)
    );
    assert_eq!(
        super::window_of(&other.context_windows, DEFAULT_RESPONSES_MODEL),
        Some(272_000)
    );
    assert_eq!(super::window_of(&other.context_windows, "other"), None);
    // It changes no request: not bound to the session, shown by --print-config only when set.
    let digest = f.load(&[]).unwrap().digest();
    f.user("{}");
    assert_eq!(f.load(&[]).unwrap().digest(), digest);
    assert!(
        !f.load(&[])
            .unwrap()
            .to_print_json()
            .contains("context_window")
    );
    for bad in ["0", "\"big\"", "2000000000"] {
        let e = user_err(&format!(
            r#"{{"models":{{"m":{{"context_window":{bad}}}}}}}"#
        ));
        assert!(e.contains("`models.m.context_window`"), "{bad}: {e}");
    }
}

#[test]
fn the_auth_issuer_is_a_user_setting_with_a_checked_url() {
    let f = fixture();
    assert_eq!(f.load(&[]).unwrap().auth_issuer, DEFAULT_AUTH_ISSUER);
    f.user(r#"{"auth":{"issuer":"https://issuer.example"}}"#);
    assert_eq!(f.load(&[]).unwrap().auth_issuer, "https://issuer.example");
    let e = user_err(r#"{"auth":{"issuer":"ftp://issuer.example"}}"#);
    assert!(e.contains("`auth.issuer`"), "{e}");
    let e = user_err(r#"{"auth":{}}"#);
    assert!(e.contains("`auth.issuer`") && e.contains("missing"), "{e}");
    let e = user_err(r#"{"auth":{"issuer":"https://x","client":"y"}}"#);
    assert!(
        e.contains("`auth.client`") && e.contains("unknown field"),
        "{e}"
    );
    f.project(r#"{"auth":{"issuer":"https://evil.example"}}"#);
    let e = f.load(&[]).unwrap_err().to_string();
    assert!(e.contains("may only be set in the user config"), "{e}");
}

#[test]
fn every_key_variable_is_withheld_even_when_another_provider_is_selected() {
    let f = fixture();
    f.user(r#"{"model":"llama","exec_env_deny":["DEPLOY"],"provider":{"kind":"chat","base_url":"https://openrouter.example/api/v1","api_key_env":"OR_KEY"}}"#);
    let chat = f.load(&[("OR_KEY", "k")]).unwrap();
    assert_eq!(
        chat.withheld_env.names(),
        [
            "AI_API_KEY",
            "OPENAI_API_KEY",
            "ASH_BROKER_TOKEN",
            "OR_KEY",
            "DEPLOY"
        ]
    );
    // AI_PROVIDER picks the responses provider: OR_KEY is still the user's key, still withheld.
    let responses = f.load(&[("AI_PROVIDER", "responses")]).unwrap();
    assert!(
        responses.withheld_env.names().iter().any(|n| n == "OR_KEY"),
        "{:?}",
        responses.withheld_env
    );
    let offline = fixture();
    let c = offline.load(&[("AI_PROVIDER", "offline")]).unwrap();
    assert_eq!(
        c.withheld_env.names(),
        ["AI_API_KEY", "OPENAI_API_KEY", "ASH_BROKER_TOKEN"]
    );
}

#[test]
fn sandbox_fields_load_and_default_to_off() {
    use ash_engine::exec::sandbox::SandboxMode;
    let f = fixture();
    assert_eq!(f.load(&[]).unwrap().sandbox, SandboxSettings::default());
    let root = f.cwd.parent().unwrap().join("cache");
    std::fs::create_dir_all(&root).unwrap();
    f.user(
        &serde_json::json!({"sandbox": "workspace-write", "sandbox_network": true,
        "sandbox_writable": [root, root]})
        .to_string(),
    );
    let c = f.load(&[]).unwrap();
    assert_eq!(c.sandbox.mode, SandboxMode::WorkspaceWrite);
    assert!(c.sandbox.network);
    // Canonical and without repeats.
    assert_eq!(
        c.sandbox.writable,
        vec![std::fs::canonicalize(&root).unwrap()]
    );
    let e = user_err(r#"{"sandbox":"workspace"}"#);
    assert!(
        e.contains("`sandbox`") && e.contains("workspace-write"),
        "{e}"
    );
    let e = user_err(r#"{"sandbox_network":"yes"}"#);
    assert!(e.contains("`sandbox_network`"), "{e}");
}

#[test]
fn a_writable_root_must_be_an_existing_absolute_directory_other_than_root() {
    let f = fixture();
    let file = f.cwd.join("file.txt");
    std::fs::write(&file, "x").unwrap();
    for (roots, says) in [
        (serde_json::json!(["/"]), "whole filesystem"),
        (serde_json::json!(["/usr/.."]), "whole filesystem"),
        (serde_json::json!(["rel"]), "not an absolute path"),
        (
            serde_json::json!(["/no/such/ansa/dir"]),
            "not an existing directory",
        ),
        (serde_json::json!([file]), "not a directory"),
        (serde_json::json!([1]), "expected a string"),
    ] {
        let e = user_err(&serde_json::json!({"sandbox_writable": roots}).to_string());
        assert!(
            e.contains("`sandbox_writable[0]`") && e.contains(says),
            "{roots}: {e}"
        );
    }
    let e = user_err(r#"{"sandbox_writable":["/usr","/"]}"#);
    assert!(e.contains("`sandbox_writable[1]`"), "{e}");
}

#[test]
fn a_project_may_tighten_the_sandbox_but_never_loosen_it() {
    use ash_engine::exec::sandbox::SandboxMode;
    let f = fixture();
    let a = f.cwd.parent().unwrap().join("a");
    let b = f.cwd.parent().unwrap().join("b");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    f.user(&serde_json::json!({"sandbox": "workspace-write", "sandbox_writable": [a]}).to_string());
    for (project, field) in [
        (serde_json::json!({"sandbox": "off"}), "`sandbox`"),
        (
            serde_json::json!({"sandbox_network": true}),
            "`sandbox_network`",
        ),
        (
            serde_json::json!({"sandbox_writable": [a, b]}),
            "`sandbox_writable[1]`",
        ),
    ] {
        f.project(&project.to_string());
        let e = f.load(&[]).unwrap_err().to_string();
        assert!(e.contains(&f.project_file().display().to_string()), "{e}");
        assert!(
            e.contains(field) && e.contains("may only tighten"),
            "{project}: {e}"
        );
    }
    f.project(r#"{"sandbox":"read-only","sandbox_network":false,"sandbox_writable":[]}"#);
    let c = f.load(&[]).unwrap();
    assert_eq!(c.sandbox.mode, SandboxMode::ReadOnly);
    assert!(c.sandbox.writable.is_empty());
    // Without a user sandbox a project may still turn one on.
    let g = fixture();
    g.project(r#"{"sandbox":"workspace-write"}"#);
    assert_eq!(
        g.load(&[]).unwrap().sandbox.mode,
        SandboxMode::WorkspaceWrite
    );
    g.project(r#"{"sandbox":"off","sandbox_network":false}"#);
    assert_eq!(g.load(&[]).unwrap().sandbox.mode, SandboxMode::Off);
}

#[test]
fn the_sandbox_is_bound_only_when_not_the_default() {
    let f = fixture();
    let off = f.load(&[]).unwrap();
    assert!(off.binding_fields().get("sandbox").is_none());
    f.user(r#"{"sandbox":"off","sandbox_network":false,"sandbox_writable":[]}"#);
    assert_eq!(
        f.load(&[]).unwrap().digest(),
        off.digest(),
        "defaults keep old digests"
    );
    f.user(r#"{"sandbox":"workspace-write"}"#);
    let ww = f.load(&[]).unwrap();
    assert_ne!(ww.digest(), off.digest());
    assert_eq!(ww.binding_fields()["sandbox"], "workspace-write");
    f.user(r#"{"sandbox":"workspace-write","sandbox_network":true}"#);
    assert_ne!(f.load(&[]).unwrap().digest(), ww.digest());
    let printed: serde_json::Value = serde_json::from_str(&off.to_print_json()).unwrap();
    assert_eq!(printed["sandbox"], "off");
    assert!(
        printed["sandbox_enforcement"].get("landlock_abi").is_some(),
        "{printed}"
    );
}

#[test]
fn checkpoint_limits_load_from_either_file_and_bind_only_when_not_the_default() {
    let f = fixture();
    f.user(r#"{"model":"m"}"#);
    let plain = f.load(&[]).unwrap();
    assert_eq!(plain.checkpoint_max_file_bytes, 16 << 20);
    assert_eq!(plain.checkpoint_budget_bytes, 1 << 30);
    let fields = plain.binding_fields();
    assert!(fields.get("checkpoint_max_file_bytes").is_none());
    assert!(fields.get("checkpoint_budget_bytes").is_none());
    // The defaults written out keep the digest of sessions made before the fields existed.
    f.user(r#"{"model":"m","checkpoint_max_file_bytes":16777216,"checkpoint_budget_bytes":1073741824}"#);
    assert_eq!(f.load(&[]).unwrap().digest(), plain.digest());
    f.user(r#"{"model":"m","checkpoint_budget_bytes":0}"#)
        .project(r#"{"checkpoint_max_file_bytes":1024}"#);
    let c = f.load(&[]).unwrap();
    assert_eq!(
        (c.checkpoint_max_file_bytes, c.checkpoint_budget_bytes),
        (1024, 0)
    );
    assert_ne!(c.digest(), plain.digest());
    assert_eq!(c.binding_fields()["checkpoint_budget_bytes"], 0);
    let e = user_err(r#"{"checkpoint_max_file_bytes":0}"#);
    assert!(e.contains("`checkpoint_max_file_bytes`"), "{e}");
    let e = user_err(r#"{"checkpoint_budget_bytes":"1G"}"#);
    assert!(e.contains("`checkpoint_budget_bytes`"), "{e}");
}

#[test]
fn max_children_defaults_to_three_and_is_bounded() {
    let f = fixture();
    assert_eq!(f.load(&[]).unwrap().max_children, 3);
    f.project(r#"{"max_children":2}"#);
    assert_eq!(f.load(&[]).unwrap().max_children, 2);
    let e = user_err(r#"{"max_children":9}"#);
    assert!(e.contains("`max_children`"), "{e}");
    let e = user_err(r#"{"max_children":0}"#);
    assert!(e.contains("`max_children`"), "{e}");
}

#[test]
fn child_token_budget_defaults_and_is_bounded() {
    let f = fixture();
    assert_eq!(f.load(&[]).unwrap().child_token_budget, 2_000_000);
    f.project(r#"{"child_token_budget":5000}"#);
    assert_eq!(f.load(&[]).unwrap().child_token_budget, 5000);
    for bad in ["999", "1000000001", "\"1M\""] {
        let e = user_err(&format!(r#"{{"child_token_budget":{bad}}}"#));
        assert!(e.contains("`child_token_budget`"), "{bad}: {e}");
    }
}

//! `mcp_servers` and `mcp_allow_read_only`: parsing, the user-only rule, and secrets.

use super::layer::{Origin, parse_layer};
use super::*;
use crate::home::AnsaHome;

fn load_with(
    user: &str,
    project: Option<&str>,
    env: &[(&str, &str)],
) -> Result<Config, ConfigError> {
    let t = tempfile::tempdir().unwrap();
    let home = AnsaHome::at(t.path().join("home"));
    home.ensure().unwrap();
    std::fs::write(home.config_file(), user).unwrap();
    let cwd = t.path().join("proj");
    std::fs::create_dir_all(cwd.join(".ansa")).unwrap();
    if let Some(p) = project {
        std::fs::write(cwd.join(".ansa/config.json"), p).unwrap();
    }
    load(
        &home,
        &cwd,
        &Env::from_pairs(env.iter().map(|(k, v)| (*k, *v))),
    )
}

fn user_err(json: &str) -> String {
    parse_layer("F", json.as_bytes(), Origin::User)
        .unwrap_err()
        .to_string()
}

#[test]
fn stdio_and_http_servers_are_read_with_defaults() {
    let c = load_with(
        r#"{"mcp_servers": {
            "fs": {"command": "npx", "args": ["-y", "srv"], "env": {"TOKEN": "s3cret"}, "cwd": "/tmp"},
            "web": {"url": "https://mcp.example.com/mcp", "headers": {"X-Key": "h3ader"},
                    "bearer_token_env": "WEB_TOKEN", "tool_timeout_ms": 5000,
                    "enabled_tools": ["a"], "disabled_tools": ["b"]}
         }, "mcp_allow_read_only": true}"#,
        None,
        &[("WEB_TOKEN", "b3arer")],
    )
    .unwrap();
    assert!(c.mcp.allow_read_only);
    let [fs, web] = &c.mcp.servers[..] else {
        panic!("{:?}", c.mcp.servers)
    };
    assert_eq!(fs.name, "fs");
    assert!(fs.enabled);
    assert_eq!(fs.startup_timeout_ms, DEFAULT_STARTUP_TIMEOUT_MS);
    assert_eq!(fs.tool_timeout_ms, DEFAULT_TOOL_TIMEOUT_MS);
    match &fs.transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            assert_eq!(command, "npx");
            assert_eq!(args, &["-y", "srv"]);
            assert_eq!(env[0].0, "TOKEN");
            assert_eq!(env[0].1.expose(), "s3cret");
            assert_eq!(cwd.as_deref(), Some(std::path::Path::new("/tmp")));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(web.tool_timeout_ms, 5000);
    assert_eq!(web.enabled_tools.as_deref(), Some(&["a".to_owned()][..]));
    assert_eq!(web.disabled_tools, ["b"]);
    match &web.transport {
        McpTransport::Http {
            url, bearer_token, ..
        } => {
            assert_eq!(url.as_str(), "https://mcp.example.com/mcp");
            assert_eq!(bearer_token.as_ref().map(Secret::expose), Some("b3arer"));
        }
        other => panic!("{other:?}"),
    }
    // The token's variable is withheld from exec children like any secret ansa reads.
    assert!(c.withheld_env.names().iter().any(|n| n == "WEB_TOKEN"));
}

#[test]
fn secrets_never_reach_print_config_or_the_digest() {
    let c = load_with(
        r#"{"mcp_servers": {
            "fs": {"command": "srv", "env": {"TOKEN": "s3cret"}},
            "web": {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": "h3ader"}, "bearer_token_env": "WEB_TOKEN"}
         }}"#,
        None,
        &[("WEB_TOKEN", "b3arer")],
    )
    .unwrap();
    let printed = c.to_print_json();
    for secret in ["s3cret", "h3ader", "b3arer"] {
        assert!(!printed.contains(secret), "{printed}");
        assert!(!c.binding_fields().to_string().contains(secret));
    }
    assert!(printed.contains(r#""TOKEN":"<set>""#), "{printed}");
    assert!(printed.contains(r#""X-Key":"<set>""#), "{printed}");
    assert!(printed.contains(r#""bearer_token":"<set>""#), "{printed}");
    assert!(
        printed.contains(r#""bearer_token_env":"WEB_TOKEN""#),
        "{printed}"
    );
    assert!(!format!("{c:?}").contains("s3cret"));
}

#[test]
fn a_project_config_cannot_add_a_server() {
    for field in [
        r#"{"mcp_servers": {"evil": {"command": "sh"}}}"#,
        r#"{"mcp_allow_read_only": true}"#,
    ] {
        let err = load_with("{}", Some(field), &[]).unwrap_err().to_string();
        let name = if field.contains("mcp_servers") {
            "mcp_servers"
        } else {
            "mcp_allow_read_only"
        };
        assert!(err.contains(&format!("field `{name}`")), "{err}");
        assert!(err.contains("only be set in the user config"), "{err}");
    }
}

#[test]
fn bad_server_entries_are_refused_by_field() {
    let cases = [
        (
            r#"{"mcp_servers": {"a b": {"command": "x"}}}"#,
            "mcp_servers.a b",
        ),
        (r#"{"mcp_servers": {"s": {}}}"#, "needs `command`"),
        (
            r#"{"mcp_servers": {"s": {"command": "x", "url": "https://h"}}}"#,
            "both",
        ),
        (
            r#"{"mcp_servers": {"s": {"url": "http://example.com/mcp"}}}"#,
            "loopback",
        ),
        (
            r#"{"mcp_servers": {"s": {"command": "x", "headers": {}}}}"#,
            "mcp_servers.s.headers",
        ),
        (
            r#"{"mcp_servers": {"s": {"command": "x", "cwd": "rel"}}}"#,
            "absolute",
        ),
        (
            r#"{"mcp_servers": {"s": {"command": "x", "env": {"1A": "v"}}}}"#,
            "mcp_servers.s.env.1A",
        ),
        (
            r#"{"mcp_servers": {"s": {"command": "x", "tool_timeout_ms": 0}}}"#,
            "tool_timeout_ms",
        ),
        (
            r#"{"mcp_servers": {"s": {"url": "https://h", "headers": {"X": "a\nb"}}}}"#,
            "control",
        ),
    ];
    for (json, want) in cases {
        let err = user_err(json);
        assert!(err.contains(want), "{json}: {err}");
    }
}

#[test]
fn a_missing_bearer_token_variable_is_named() {
    let user =
        r#"{"mcp_servers": {"web": {"url": "https://h/mcp", "bearer_token_env": "NOPE_TOKEN"}}}"#;
    let err = load_with(user, None, &[]).unwrap_err().to_string();
    assert!(
        err.contains("NOPE_TOKEN") && err.contains("mcp_servers.web"),
        "{err}"
    );
    // A disabled server does not need it.
    let user = r#"{"mcp_servers": {"web": {"url": "https://h/mcp", "bearer_token_env": "NOPE_TOKEN", "enabled": false}}}"#;
    assert!(load_with(user, None, &[]).is_ok());
}

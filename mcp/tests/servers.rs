//! The client against real MCP servers: the npm reference servers over stdio and streamable
//! HTTP, and real processes that misbehave (hang, write garbage, die mid-call).

mod support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ansa_mcp::{
    CallError, CancelFlag, Content, McpHub, ServerConfig, ServerState, Transport, Url, Watched,
};
use serde_json::json;
use support::*;

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn everything_over_stdio_offers_and_runs_its_tools() {
    let dir = temp();
    let hub = start(vec![everything("every")], dir.path());
    assert_ready(&hub, "every");
    let tools = hub.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for expected in [
        "echo",
        "get-sum",
        "get-tiny-image",
        "trigger-long-running-operation",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "tools come in a stable (name) order");
    let sum = tools
        .iter()
        .find(|t| t.name == "get-sum")
        .unwrap_or_else(|| panic!("no get-sum"));
    assert!(sum.hints.read_only && sum.hints.idempotent && !sum.hints.destructive);
    assert_eq!(sum.input_schema["type"], "object");
    let server = name("every");
    let cancel = CancelFlag::new();

    let echo = hub.call(&server, "echo", args(json!({"message": "hi"})), &cancel);
    let echo = echo.unwrap_or_else(|e| panic!("{e}"));
    assert!(!echo.is_error);
    assert_eq!(first_text(&echo), "Echo: hi");

    let added = hub
        .call(&server, "get-sum", args(json!({"a": 2, "b": 3})), &cancel)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(first_text(&added).contains('5'), "{added:?}");

    let image = hub
        .call(&server, "get-tiny-image", args(json!({})), &cancel)
        .unwrap_or_else(|e| panic!("{e}"));
    let png = image.content.iter().find_map(|c| match c {
        Content::Image { mime, data } => Some((mime.clone(), data.clone())),
        _ => None,
    });
    let (mime, data) = png.unwrap_or_else(|| panic!("no image in {image:?}"));
    assert_eq!(mime, "image/png");
    assert_eq!(&data[..8], b"\x89PNG\r\n\x1a\n", "decoded from base64");

    let structured = hub
        .call(
            &server,
            "get-structured-content",
            args(json!({"location": "New York"})),
            &cancel,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        structured
            .structured
            .as_ref()
            .is_some_and(|s| s.get("temperature").is_some()),
        "{structured:?}"
    );

    let links = hub
        .call(
            &server,
            "get-resource-links",
            args(json!({"count": 2})),
            &cancel,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        links
            .content
            .iter()
            .any(|c| matches!(c, Content::ResourceLink { uri, .. } if !uri.is_empty())),
        "{links:?}"
    );

    // An embedded resource, from a data URI (no network).
    let gz = hub
        .call(
            &server,
            "gzip-file-as-resource",
            args(json!({"name": "a.txt.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resource"})),
            &cancel,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        gz.content.iter().any(
            |c| matches!(c, Content::Resource { blob: Some(b), .. } if b.starts_with(&[0x1f, 0x8b]))
        ),
        "{gz:?}"
    );

    // Progress notifications arrive and are ignored; the result is what counts.
    let long = hub
        .call(
            &server,
            "trigger-long-running-operation",
            args(json!({"duration": 1, "steps": 3})),
            &cancel,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(first_text(&long).contains("completed"), "{long:?}");

    // A tool that fails is a result with is_error, readable.
    let failed = hub.call(&server, "get-sum", args(json!({"a": "x"})), &cancel);
    match failed {
        Ok(result) => {
            assert!(result.is_error, "{result:?}");
            assert!(!first_text(&result).is_empty());
        }
        Err(CallError::Protocol(why)) => assert!(why.contains("error"), "{why}"),
        Err(other) => panic!("a bad argument is the tool's error, not {other:?}"),
    }
    assert!(matches!(
        hub.call(&name("nobody"), "echo", args(json!({})), &cancel),
        Err(CallError::NoSuchServer)
    ));
}

/// Starts server-everything's streamable HTTP transport on a free loopback port.
struct HttpEverything {
    child: Child,
    url: Url,
}

impl HttpEverything {
    fn start() -> Self {
        let port = free_port();
        let child = Command::new(node())
            .arg(everything_script())
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("node: {e}"));
        let listening = wait_until(Duration::from_secs(30), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(listening, "server-everything did not listen on {port}");
        let url =
            Url::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap_or_else(|e| panic!("{e}"));
        Self { child, url }
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn everything_over_streamable_http_runs_its_tools() {
    let server = HttpEverything::start();
    let dir = temp();
    let mut headers = std::collections::BTreeMap::new();
    headers.insert("X-Ansa-Test".to_string(), "1".to_string());
    let config = ServerConfig::new(
        name("web"),
        Transport::Http {
            url: server.url.clone(),
            headers,
            bearer_token: Some(ansa_mcp::Secret::new("t0ken")),
        },
    );
    let hub = start(vec![config], dir.path());
    assert_ready(&hub, "web");
    assert!(hub.tools().iter().any(|t| t.name == "echo"));
    let cancel = CancelFlag::new();
    let echo = hub
        .call(
            &name("web"),
            "echo",
            args(json!({"message": "over http"})),
            &cancel,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first_text(&echo), "Echo: over http");
    let image = hub
        .call(&name("web"), "get-tiny-image", args(json!({})), &cancel)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        image
            .content
            .iter()
            .any(|c| matches!(c, Content::Image { data, .. } if data.starts_with(b"\x89PNG")))
    );
    let long = hub
        .call(
            &name("web"),
            "trigger-long-running-operation",
            args(json!({"duration": 1, "steps": 2})),
            &cancel,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(first_text(&long).contains("completed"));
}

#[test]
fn plain_http_to_a_remote_host_is_refused_before_any_connection() {
    let dir = temp();
    let url = Url::parse("http://example.com/mcp").unwrap_or_else(|e| panic!("{e}"));
    let config = ServerConfig::new(
        name("remote"),
        Transport::Http {
            url,
            headers: Default::default(),
            bearer_token: None,
        },
    );
    let hub = McpHub::start(vec![config], dir.path(), base_env());
    let (state, error) = state(&hub, "remote");
    assert_eq!(state, ServerState::Failed);
    let error = error.unwrap_or_default();
    assert!(
        error.contains("http://example.com/mcp") && error.contains("https"),
        "{error}"
    );
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn filesystem_server_reads_and_lists_its_directory() {
    let dir = temp();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join("note.txt"), "hello from a file\n").unwrap_or_else(|e| panic!("{e}"));
    let config = stdio(
        "fs",
        node().display().to_string(),
        vec![
            filesystem_script().display().to_string(),
            root.display().to_string(),
        ],
    );
    let hub = start(vec![config], &dir.path().join("logs"));
    assert_ready(&hub, "fs");
    let cancel = CancelFlag::new();
    let path = root.join("note.txt").display().to_string();
    let read = hub
        .call(
            &name("fs"),
            "read_text_file",
            args(json!({"path": path})),
            &cancel,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first_text(&read), "hello from a file\n");
    assert_eq!(
        read.structured,
        Some(json!({"content": "hello from a file\n"}))
    );
    let listed = hub
        .call(
            &name("fs"),
            "list_directory",
            args(json!({"path": root.display().to_string()})),
            &cancel,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(first_text(&listed).contains("note.txt"), "{listed:?}");
    // Outside its allowed directory: the tool's own error, as a result.
    let outside = hub
        .call(
            &name("fs"),
            "read_text_file",
            args(json!({"path": "/etc/hostname"})),
            &cancel,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(outside.is_error, "{outside:?}");
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_stdio_server_sees_only_the_scrubbed_base_and_its_own_env_and_logs_stderr_to_its_file() {
    let dir = temp();
    let mut config = everything("envy");
    if let Transport::Stdio { env, cwd, .. } = &mut config.transport {
        env.insert("SERVER_OWN".into(), "yes".into());
        *cwd = Some(dir.path().to_path_buf());
    }
    // The test process has variables of its own (CARGO_*, RUST_*) that are not in the base.
    assert!(std::env::var_os("CARGO_PKG_NAME").is_some() || std::env::var_os("CARGO").is_some());
    let logs = dir.path().join("logs");
    let hub = start(vec![config], &logs);
    assert_ready(&hub, "envy");
    let result = hub
        .call(
            &name("envy"),
            "get-env",
            args(json!({})),
            &CancelFlag::new(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let text = first_text(&result);
    let env: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let keys: Vec<&str> = env
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(env["SERVER_OWN"], "yes");
    assert!(env.get("PATH").is_some());
    for key in &keys {
        assert!(
            ["PATH", "HOME", "LANG", "TMPDIR", "SERVER_OWN"].contains(key),
            "{key} leaked into the server's environment: {keys:?}"
        );
    }
    hub.shutdown();
    // server-everything logs to stderr when it starts; the log file has it, nothing else does.
    let log = std::fs::read_to_string(logs.join("envy.log")).unwrap_or_else(|e| panic!("{e}"));
    assert!(!log.is_empty(), "stderr went to the log file");
}

/// A real server behind `sh`, with a copy of what the client wrote to its stdin.
fn wiretapped_everything(server: &str, wire: &Path) -> ServerConfig {
    let script = format!(
        "tee -a '{}' | exec '{}' '{}' stdio",
        wire.display(),
        node().display(),
        everything_script().display()
    );
    sh(server, &script)
}

fn wire_has(wire: &Path, needle: &str) -> bool {
    std::fs::read_to_string(wire).is_ok_and(|w| w.contains(needle))
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn cancelling_a_call_sends_notifications_cancelled_and_returns_at_once() {
    let dir = temp();
    let wire = dir.path().join("wire.jsonl");
    let hub = start(vec![wiretapped_everything("slow", &wire)], dir.path());
    assert_ready(&hub, "slow");
    let cancel = CancelFlag::new();
    let raiser = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(500));
            cancel.cancel();
        })
    };
    let started = Instant::now();
    let result = hub.call(
        &name("slow"),
        "trigger-long-running-operation",
        args(json!({"duration": 30, "steps": 30})),
        &cancel,
    );
    let took = started.elapsed();
    let _ = raiser.join();
    assert!(matches!(result, Err(CallError::Cancelled)), "{result:?}");
    // Correctness, not speed: it did not wait for the 30 s operation.
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(
        wait_until(Duration::from_secs(5), || wire_has(
            &wire,
            "notifications/cancelled"
        )),
        "the server was told: {:?}",
        std::fs::read_to_string(&wire)
    );
    // The server stays usable.
    let echo = hub.call(
        &name("slow"),
        "echo",
        args(json!({"message": "after"})),
        &CancelFlag::new(),
    );
    assert_eq!(
        first_text(&echo.unwrap_or_else(|e| panic!("{e}"))),
        "Echo: after"
    );
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_call_past_its_tool_timeout_is_cancelled_with_a_timeout() {
    let dir = temp();
    let wire = dir.path().join("wire.jsonl");
    let mut config = wiretapped_everything("slow", &wire);
    config.tool_timeout = Duration::from_millis(700);
    let hub = start(vec![config], dir.path());
    assert_ready(&hub, "slow");
    let result = hub.call(
        &name("slow"),
        "trigger-long-running-operation",
        args(json!({"duration": 30, "steps": 30})),
        &CancelFlag::new(),
    );
    assert!(matches!(result, Err(CallError::Timeout)), "{result:?}");
    assert!(wait_until(Duration::from_secs(5), || wire_has(
        &wire,
        "notifications/cancelled"
    )));
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_server_killed_mid_call_is_reported_dead_and_restarted_by_the_next_call() {
    let dir = temp();
    let marker = dir.path().join("victim-marker");
    // The marker in the command line finds the server's processes in `ps`.
    let script = format!(
        "exec '{}' '{}' stdio '{}'",
        node().display(),
        everything_script().display(),
        marker.display()
    );
    let hub = start(vec![sh("victim", &script)], dir.path());
    assert_ready(&hub, "victim");
    let marker_text = marker.display().to_string();
    let first = alive_with(&marker_text);
    assert_eq!(first.len(), 1, "{first:?}");
    let victim = first[0].pid;
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(victim),
            nix::sys::signal::Signal::SIGKILL,
        );
    });
    let generation = hub.generation();
    let result = hub.call(
        &name("victim"),
        "trigger-long-running-operation",
        args(json!({"duration": 30, "steps": 30})),
        &CancelFlag::new(),
    );
    let _ = killer.join();
    match &result {
        Err(CallError::ServerDied(why)) => {
            assert!(why.contains("exited") || why.contains("signal"), "{why}")
        }
        other => panic!("expected ServerDied, got {other:?}"),
    }
    let (state, error) = state(&hub, "victim");
    assert_eq!(state, ServerState::Exited, "{error:?}");
    assert!(
        hub.tools().is_empty(),
        "a dead server's tools are withdrawn"
    );
    assert!(hub.generation() > generation);

    let echo = hub
        .call(
            &name("victim"),
            "echo",
            args(json!({"message": "again"})),
            &CancelFlag::new(),
        )
        .unwrap_or_else(|e| panic!("the next call restarts the server: {e}"));
    assert_eq!(first_text(&echo), "Echo: again");
    assert_ready(&hub, "victim");
    let second = alive_with(&marker_text);
    assert_eq!(second.len(), 1);
    assert_ne!(second[0].pid, victim);
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_server_that_hangs_at_startup_fails_on_its_timeout_and_the_others_work() {
    let dir = temp();
    let hang = ServerConfig {
        startup_timeout: Duration::from_millis(1500),
        ..sh("hang", "exec sleep 600")
    };
    let hub = start(vec![hang, everything("good")], dir.path());
    assert_ready(&hub, "good");
    let (state, error) = state(&hub, "hang");
    assert_eq!(state, ServerState::Failed);
    let error = error.unwrap_or_default();
    assert!(
        error.contains("1500 ms") && error.contains("startup_timeout"),
        "{error}"
    );
    assert!(hub.tools().iter().all(|t| t.server.as_str() == "good"));
    let echo = hub.call(
        &name("good"),
        "echo",
        args(json!({"message": "fine"})),
        &CancelFlag::new(),
    );
    assert_eq!(
        first_text(&echo.unwrap_or_else(|e| panic!("{e}"))),
        "Echo: fine"
    );
    // The next call does not restart it at once: the backoff says when.
    let refused = hub.call(&name("hang"), "x", args(json!({})), &CancelFlag::new());
    assert!(
        matches!(&refused, Err(CallError::NotReady(why)) if why.contains("next restart")),
        "{refused:?}"
    );
}

#[test]
fn a_server_writing_garbage_on_stdout_fails_with_its_name_and_the_garbage() {
    let dir = temp();
    let mut config = sh(
        "noisy",
        "echo 'Server starting on port 8080!'; exec sleep 600",
    );
    // Long enough that only the garbage check, not the timeout, can end the start in time.
    config.startup_timeout = Duration::from_secs(120);
    let hub = McpHub::start(vec![config], dir.path(), base_env());
    hub.settle(Instant::now() + Duration::from_secs(30));
    let (state, error) = state(&hub, "noisy");
    assert_eq!(state, ServerState::Failed, "{error:?}");
    let error = error.unwrap_or_default();
    assert!(
        error.contains("noisy") && error.contains("not JSON-RPC"),
        "{error}"
    );
    assert!(error.contains("Server starting on port 8080!"), "{error}");
}

#[test]
fn a_missing_command_fails_and_backs_off_instead_of_restarting_on_every_call() {
    let dir = temp();
    let config = stdio("ghost", "/nonexistent/mcp-server", vec![]);
    let hub = McpHub::start(vec![config], dir.path(), base_env());
    hub.settle(Instant::now() + Duration::from_secs(30));
    let (state, error) = state(&hub, "ghost");
    assert_eq!(state, ServerState::Failed);
    assert!(error.unwrap_or_default().contains("command not found"));
    let generation = hub.generation();
    for _ in 0..5 {
        let refused = hub.call(&name("ghost"), "x", args(json!({})), &CancelFlag::new());
        assert!(
            matches!(&refused, Err(CallError::NotReady(why)) if why.contains("next restart")),
            "{refused:?}"
        );
    }
    assert_eq!(
        hub.generation(),
        generation,
        "no restart attempt inside the backoff"
    );
}

#[test]
fn a_session_without_enabled_servers_starts_no_runtime_thread() {
    let dir = temp();
    let mut config = sh("off", "exit 1");
    config.enabled = false;
    let threads_before = thread_count();
    let hub = McpHub::start(vec![config], dir.path(), base_env());
    assert_eq!(thread_count(), threads_before);
    assert_eq!(state(&hub, "off").0, ServerState::Disabled);
    assert!(matches!(
        hub.call(&name("off"), "x", args(json!({})), &CancelFlag::new()),
        Err(CallError::NotReady(_))
    ));
    let empty = McpHub::start(Vec::new(), dir.path(), base_env());
    assert!(empty.tools().is_empty() && empty.statuses().is_empty());
}

fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn shutdown_leaves_no_process_of_any_server_behind() {
    let dir = temp();
    let marker = dir.path().join("orphan-marker");
    // Like `npx`: a wrapper whose child is the real server, both in the server's group; a
    // kill of the wrapper alone would orphan the node process. The second server's `sleep`
    // is a child of `sh` too (no `exec`), found through its group.
    let wrapped = format!(
        "'{}' '{}' stdio '{}'; exit $?",
        node().display(),
        everything_script().display(),
        marker.display()
    );
    // Not `start`: it would wait for the sleeper's startup timeout, which kills it.
    let hub = McpHub::start(
        vec![
            sh("wrapped", &wrapped),
            sh("sleeper", &format!("sleep 600; : '{}'", marker.display())),
        ],
        dir.path(),
        base_env(),
    );
    let marker = marker.display().to_string();
    let both = wait_until(Duration::from_secs(60), || {
        state(&hub, "wrapped").0 == ServerState::Ready && groups_of(&marker).len() == 2
    });
    assert!(both, "{:?} {:?}", hub.statuses(), alive_with(&marker));
    assert_eq!(state(&hub, "sleeper").0, ServerState::Starting);
    let groups = groups_of(&marker);
    let members = alive_in(&groups);
    assert!(members.len() >= 4, "sh+node and sh+sleep: {members:?}");
    hub.shutdown();
    let gone = wait_until(Duration::from_secs(5), || alive_in(&groups).is_empty());
    assert!(gone, "left behind: {:?}", alive_in(&groups));
    assert!(hub.tools().is_empty());

    // Dropping the hub does the same.
    let dir = temp();
    let marker = dir.path().join("drop-marker").display().to_string();
    let hub = McpHub::start(
        vec![sh("dropped", &format!("sleep 600; : '{marker}'"))],
        dir.path(),
        base_env(),
    );
    assert!(wait_until(Duration::from_secs(30), || {
        alive_in(&groups_of(&marker)).len() == 2
    }));
    let groups = groups_of(&marker);
    drop(hub);
    assert!(wait_until(Duration::from_secs(5), || alive_in(&groups).is_empty()));
}

/// The process groups of the live processes whose command line has `marker`.
fn groups_of(marker: &str) -> Vec<i32> {
    let mut groups: Vec<i32> = alive_with(marker).iter().map(|p| p.pgid).collect();
    groups.sort_unstable();
    groups.dedup();
    groups
}

/// Live processes in any of `groups`.
fn alive_in(groups: &[i32]) -> Vec<Process> {
    processes()
        .into_iter()
        .filter(|p| groups.contains(&p.pgid) && p.state != 'Z')
        .collect()
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn tools_list_changed_refreshes_the_tools_and_bumps_the_generation() {
    // server-everything registers `simulate-research-query` once the client is initialized
    // and announces it with notifications/tools/list_changed.
    let dir = temp();
    let wire = dir.path().join("wire.jsonl");
    let hub = start(vec![wiretapped_everything("every", &wire)], dir.path());
    assert_ready(&hub, "every");
    let offered = wait_until(Duration::from_secs(10), || {
        hub.tools()
            .iter()
            .any(|t| t.name == "simulate-research-query")
    });
    assert!(
        offered,
        "{:?}",
        hub.tools()
            .iter()
            .map(|t| t.name.clone())
            .collect::<Vec<_>>()
    );
    let lists = || {
        std::fs::read_to_string(&wire)
            .unwrap_or_default()
            .matches("\"tools/list\"")
            .count()
    };
    assert!(
        wait_until(Duration::from_secs(5), || lists() >= 2),
        "listed again after the notification"
    );
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn enabled_and_disabled_tools_filter_what_is_offered() {
    let dir = temp();
    let mut config = everything("picky");
    config.enabled_tools = Some(vec!["echo".into(), "get-sum".into()]);
    config.disabled_tools = vec!["get-sum".into()];
    let hub = start(vec![config], dir.path());
    assert_ready(&hub, "picky");
    let names: Vec<String> = hub.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(names, vec!["echo".to_string()]);
    assert_eq!(hub.statuses()[0].tools, 1);
}

#[test]
fn a_hub_starts_no_server_until_launched_and_a_request_launches_it_once() {
    let dir = temp();
    let marker = dir.path().join("spawned");
    let late = ServerConfig {
        startup_timeout: Duration::from_millis(500),
        ..sh(
            "late",
            &format!("echo spawned >> '{}'; exec sleep 600", marker.display()),
        )
    };
    // What the TUI does until its first frame is drawn.
    let hub = McpHub::new(vec![late], dir.path(), base_env());
    std::thread::sleep(Duration::from_millis(400));
    assert!(!marker.exists(), "a server was started before the launch");
    assert_eq!(state(&hub, "late").0, ServerState::Starting);
    // A request waits for the servers: it launches them first rather than waiting on a
    // launch that never comes.
    hub.settle(Instant::now() + Duration::from_secs(10));
    assert!(marker.exists(), "settle did not launch the server");
    let (state_after, error) = state(&hub, "late");
    assert_eq!(state_after, ServerState::Failed, "{error:?}");
    hub.launch();
    std::thread::sleep(Duration::from_millis(300));
    let spawned = std::fs::read_to_string(&marker).unwrap_or_default();
    assert_eq!(spawned.lines().count(), 1, "launched twice: {spawned:?}");
    hub.shutdown();
}

#[test]
fn watch_reports_each_change_and_closes_before_shutdown_changes_anything() {
    let dir = temp();
    let hub = McpHub::new(vec![sh("quits", "exit 3")], dir.path(), base_env());
    let first = match hub.watch(None, Duration::ZERO) {
        Watched::Changed(generation) => generation,
        other => panic!("the first look answers at once: {other:?}"),
    };
    assert_eq!(
        hub.watch(Some(first), Duration::from_millis(50)),
        Watched::Quiet,
        "nothing changes before the launch"
    );
    hub.launch();
    let mut seen = first;
    let failed = wait_until(Duration::from_secs(10), || {
        if let Watched::Changed(generation) = hub.watch(Some(seen), Duration::from_millis(200)) {
            assert!(generation > seen, "{generation} after {seen}");
            seen = generation;
        }
        state(&hub, "quits").0 == ServerState::Failed
    });
    assert!(failed, "{:?}", hub.statuses());
    let open = hub.statuses_while_open().unwrap_or_default();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].state, ServerState::Failed);
    hub.shutdown();
    assert_eq!(
        hub.watch(Some(seen), Duration::from_secs(5)),
        Watched::Closed
    );
    assert_eq!(hub.watch(None, Duration::ZERO), Watched::Closed);
    // What stopping left (`exited`, "stopped with the session") is not handed out.
    assert!(hub.statuses_while_open().is_none());
    assert_eq!(state(&hub, "quits").0, ServerState::Exited);
}

//! The OS sandbox through the real binary: every attack a model could try with `exec` is
//! refused with the sandbox's line in its answer and leaves a directory outside the workspace
//! exactly as it was; workspace writes still work; escalation goes through the user only; a
//! project cannot loosen the sandbox; bad `sandbox_writable` entries are config errors.
//!
//! A missing program an attack needs (python3, curl, unshare, …) fails the test with how to
//! install it: a skipped attack would pass for a refused one.

use std::collections::BTreeMap;
use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::harness::{World, journal_text, only_session_dir};

/// What marks the sandbox's line in a tool answer.
const SANDBOX_LINE: &str = "\nsandbox: the OS sandbox denied";

fn exec_call(script: &str, outside_sandbox: Option<bool>) -> Value {
    json!({"name": "exec", "arguments": {"program": "sh", "args": ["-c", script],
        "cwd": ".", "env": [], "stdin": null, "timeout_ms": 60000,
        "outside_sandbox": outside_sandbox}})
}

/// Fails (never skips) when a program an attack needs is not installed.
fn require(program: &str, install: &str) {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "the sandbox tests need `{program}` on PATH to try that attack; install it: {install}"
    );
}

/// Every entry below `root` with what a change would alter: kind, mode, size, inode, links,
/// modification and change times, and the content's hash.
fn tree_state(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let meta = std::fs::symlink_metadata(&dir).unwrap();
        out.insert(dir.clone(), describe(&dir, &meta));
        if !meta.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.clone(), describe(&path, &meta));
            }
        }
    }
    out
}

fn describe(path: &Path, meta: &std::fs::Metadata) -> String {
    let content = if meta.is_file() {
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .unwrap()
            .read_to_end(&mut bytes)
            .unwrap();
        blake3::hash(&bytes).to_hex().to_string()
    } else {
        String::new()
    };
    format!(
        "mode {:o} size {} ino {} nlink {} mtime {}.{} ctime {}.{} {content}",
        meta.mode(),
        meta.size(),
        meta.ino(),
        meta.nlink(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec()
    )
}

/// How an exec answer says the command ended: (kind, code) from its `d` row.
fn ended(output: &str) -> Option<(&str, i64)> {
    let row = output.split("d{k,c,ms,o,e,ro,re}:\n").nth(1)?;
    let mut cells = row.split(',');
    let kind = cells.next()?;
    let code = cells.next()?.parse().ok()?;
    Some((kind, code))
}

/// The outputs the model received for its tool calls, in order.
fn tool_outputs(w: &World) -> Vec<String> {
    let journal = journal_text(&only_session_dir(w));
    let mut outputs = Vec::new();
    for line in journal.lines() {
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        collect_outcomes(&record, &mut outputs);
    }
    outputs
}

fn collect_outcomes(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if m.get("type").and_then(Value::as_str) == Some("tool_outcome")
                || (m.contains_key("call_id") && m.contains_key("reconciled"))
            {
                let text = match m.get("output") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                out.push(text);
                return;
            }
            for value in m.values() {
                collect_outcomes(value, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect_outcomes(i, out)),
        _ => {}
    }
}

fn run_one_shot(w: &World, script: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["--offline", "--script", script.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.push("try the sandbox");
    w.command(&args).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A world whose workspace and home are not under /tmp or `$TMPDIR` (both writable in
/// `workspace-write`), so that the directory beside the workspace is really outside.
fn sandbox_world() -> World {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let canonical = std::fs::canonicalize(dir.path()).unwrap();
    let tmpdir = std::env::var_os("TMPDIR").map(PathBuf::from);
    for scratch in [
        Some(PathBuf::from("/tmp")),
        Some(PathBuf::from("/dev/shm")),
        tmpdir,
    ]
    .into_iter()
    .flatten()
    .filter_map(|p| std::fs::canonicalize(p).ok())
    {
        assert!(
            !canonical.starts_with(&scratch),
            "CARGO_TARGET_TMPDIR {} lies under the writable root {}: run the tests with a target directory outside /tmp and $TMPDIR",
            canonical.display(),
            scratch.display()
        );
    }
    for d in ["home", "ansa", "ws"] {
        std::fs::create_dir_all(dir.path().join(d)).unwrap();
    }
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        dir.path().join("ansa"),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    World { dir }
}

/// A world with a directory `outside/` beside the workspace holding a file and a
/// subdirectory, which no sandboxed command may change.
fn world_with_outside() -> (World, PathBuf) {
    let w = sandbox_world();
    let outside = w.path("outside");
    std::fs::create_dir_all(outside.join("sub")).unwrap();
    std::fs::write(outside.join("existing.txt"), "original\n").unwrap();
    std::fs::write(outside.join("sub/deep.txt"), "deep\n").unwrap();
    (w, outside)
}

#[test]
fn every_attack_through_exec_is_refused_and_nothing_outside_changes() {
    require("python3", "apt-get install python3");
    require("curl", "apt-get install curl");
    require("unshare", "apt-get install util-linux");
    require("mount", "apt-get install mount");
    require("truncate", "apt-get install coreutils");
    let pip = std::process::Command::new("python3")
        .args(["-m", "pip", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        pip,
        "the sandbox tests try `pip install` with the network off; install pip: apt-get install python3-pip"
    );
    let (w, outside) = world_with_outside();
    let o = outside.display().to_string();
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let tcp_port = tcp.local_addr().unwrap().port();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    // (name, script): each must fail, be reported as a sandbox denial, and change nothing.
    let attacks: Vec<(&str, String)> = vec![
        ("sh write", format!("echo pwned > {o}/new.txt")),
        ("sh overwrite", format!("echo pwned > {o}/existing.txt")),
        (
            "python write",
            format!("python3 -c \"open('{o}/py.txt', 'w').write('pwned')\""),
        ),
        (
            "symlink out",
            format!("ln -s {o} link-out && echo pwned > link-out/via-link.txt"),
        ),
        ("dot-dot", "echo pwned > ../outside/dotdot.txt".to_owned()),
        (
            "proc self root",
            format!("echo pwned > /proc/self/root{o}/proc.txt"),
        ),
        (
            "hard link",
            format!("ln {o}/existing.txt hard-link && echo pwned >> hard-link"),
        ),
        (
            "move out",
            format!("echo pwned > inside.txt && mv inside.txt {o}/moved.txt"),
        ),
        (
            "move outside file in",
            format!("mv {o}/existing.txt taken.txt"),
        ),
        ("remove outside", format!("rm {o}/sub/deep.txt")),
        ("mkdir outside", format!("mkdir {o}/newdir")),
        (
            "truncate outside",
            format!("truncate -s 0 {o}/existing.txt"),
        ),
        ("touch a new file outside", format!("touch {o}/touched.txt")),
        ("mount", format!("mount -t tmpfs none {o}/sub")),
        (
            "unshare",
            "unshare --user --map-root-user --mount true".to_owned(),
        ),
        (
            "kill ansa",
            "ansa=$(cut -d' ' -f4 /proc/$PPID/stat); kill -KILL \"$ansa\"".to_owned(),
        ),
        (
            "curl loopback",
            format!("curl -sS --max-time 5 http://127.0.0.1:{tcp_port}/"),
        ),
        (
            "python connect",
            format!(
                "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {tcp_port}), 5)\""
            ),
        ),
        (
            "udp",
            format!(
                "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', {udp_port}))\""
            ),
        ),
        (
            "pip install",
            "python3 -m pip install --isolated --no-cache-dir --retries 1 --timeout 5 --index-url https://pypi.org/simple --target pkgs six"
                .to_owned(),
        ),
    ];
    let mut turns: Vec<Value> = attacks
        .iter()
        .map(|(_, script)| json!({"tool_calls": [exec_call(script, None)]}))
        .collect();
    turns.push(json!({"text": "all refused"}));
    let script = w.script("attacks.json", Value::Array(turns));
    let before = tree_state(&outside);
    let out = run_one_shot(&w, &script, &["--sandbox", "workspace-write"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "ansa survived every attack; stderr: {}",
        stderr(&out)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "all refused");
    let after = tree_state(&outside);
    assert_eq!(before, after, "nothing outside the workspace changed");
    let outputs = tool_outputs(&w);
    assert_eq!(outputs.len(), attacks.len(), "{outputs:#?}");
    let mut unreported = Vec::new();
    for ((name, script), output) in attacks.iter().zip(&outputs) {
        let (kind, code) =
            ended(output).unwrap_or_else(|| panic!("{name} ({script}) ran: {output}"));
        assert!(
            kind == "exited" && code != 0,
            "{name} ({script}) must exit with a failure, got: {output}"
        );
        if !output.contains(SANDBOX_LINE) {
            unreported.push(format!("{name} ({script}):\n{output}"));
        }
    }
    assert!(
        unreported.is_empty(),
        "every refusal carries the sandbox's line; these do not:\n{}",
        unreported.join("\n\n")
    );
    let mut buf = [0u8; 16];
    assert!(
        tcp.accept().is_err(),
        "no TCP connection reached the listener"
    );
    assert!(udp.recv_from(&mut buf).is_err(), "no UDP datagram arrived");
    assert!(
        !w.ws().join("pkgs/six.py").exists(),
        "pip installed nothing"
    );
}

/// The control: with the sandbox off the same file attacks do change the tree outside, so
/// the comparison above can fail.
#[test]
fn without_the_sandbox_the_file_attacks_do_reach_outside() {
    let (w, outside) = world_with_outside();
    let o = outside.display().to_string();
    let script = w.script(
        "control.json",
        json!([
            {"tool_calls": [exec_call(&format!("echo pwned > {o}/new.txt"), None)]},
            {"tool_calls": [exec_call("echo pwned > ../outside/dotdot.txt", None)]},
            {"tool_calls": [exec_call(&format!("ln -s {o} link-out && echo pwned > link-out/via-link.txt"), None)]},
            {"text": "wrote"}
        ]),
    );
    let before = tree_state(&outside);
    let out = run_one_shot(&w, &script, &["--sandbox", "off"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after = tree_state(&outside);
    for name in ["new.txt", "dotdot.txt", "via-link.txt"] {
        assert!(
            after.contains_key(&outside.join(name)) && !before.contains_key(&outside.join(name)),
            "{name} was written: {after:?}"
        );
    }
}

#[test]
fn workspace_and_temp_writes_work_and_read_only_blocks_them() {
    let (w, outside) = world_with_outside();
    let tmp_name = format!("ansa-sandbox-e2e-{}", std::process::id());
    let script = w.script(
        "writes.json",
        json!([
            {"tool_calls": [exec_call(&format!(
                "echo ok > inside.txt && mkdir -p d && mv inside.txt d/ && cat d/inside.txt && echo t > /tmp/{tmp_name} && rm /tmp/{tmp_name} && cat {}/existing.txt",
                outside.display()
            ), None)]},
            {"text": "wrote"}
        ]),
    );
    let out = run_one_shot(&w, &script, &["--sandbox", "workspace-write"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(w.ws().join("d/inside.txt")).unwrap(),
        "ok\n"
    );
    let outputs = tool_outputs(&w);
    assert_eq!(ended(&outputs[0]), Some(("exited", 0)), "{outputs:?}");
    assert!(
        outputs[0].contains("original"),
        "reads outside are allowed: {outputs:?}"
    );
    assert!(!outputs[0].contains("\nsandbox:"), "{outputs:?}");

    let w = sandbox_world();
    let script = w.script(
        "ro.json",
        json!([
            {"tool_calls": [exec_call("echo x > ro.txt", None)]},
            {"text": "tried"}
        ]),
    );
    let out = run_one_shot(&w, &script, &["--sandbox", "read-only"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!w.ws().join("ro.txt").exists(), "read-only wrote nothing");
    let outputs = tool_outputs(&w);
    assert!(outputs[0].contains(SANDBOX_LINE), "{outputs:?}");
    assert!(
        stderr(&out).contains("denied by the sandbox"),
        "the tool row says so: {}",
        stderr(&out)
    );
}

#[test]
fn the_model_is_told_the_mode_roots_and_network() {
    let w = World::new();
    let extra = w.path("extra");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::write(
        w.ansa_home().join("config.json"),
        json!({"sandbox": "workspace-write", "sandbox_writable": [extra]}).to_string(),
    )
    .unwrap();
    let script = w.script("s.json", json!([{"text": "hello"}]));
    let out = run_one_shot(&w, &script, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let journal = journal_text(&only_session_dir(&w));
    let ws = std::fs::canonicalize(w.ws()).unwrap();
    let extra = std::fs::canonicalize(&extra).unwrap();
    let line = journal
        .split("\\n")
        .find(|l| l.starts_with("sandbox: "))
        .unwrap_or_else(|| panic!("the environment message names the sandbox: {journal}"));
    assert!(line.contains("workspace-write"), "{line}");
    assert!(line.contains(&ws.display().to_string()), "{line}");
    assert!(line.contains(&extra.display().to_string()), "{line}");
    assert!(line.contains("/tmp"), "{line}");
    assert!(line.contains("network off"), "{line}");
    assert!(line.contains("outside_sandbox: true is refused"), "{line}");
}

#[test]
fn ask_mode_runs_sandboxed_commands_at_once_and_asks_for_an_escalation() {
    let (w, outside) = world_with_outside();
    let proof = outside.join("escalated.proof");
    let script = w.script(
        "ask.json",
        json!([
            {"tool_calls": [exec_call("echo sandboxed > in.txt", None)]},
            {"tool_calls": [exec_call(&format!("echo escalated > {}", proof.display()), Some(true))]},
            {"text": "done"}
        ]),
    );
    let mut s = w.jsonl(&[
        "--ask",
        "--sandbox",
        "workspace-write",
        "--script",
        script.to_str().unwrap(),
    ]);
    let rid = s.submit("go");
    s.expect_type(
        "tool_status",
        &[("tool", json!("exec")), ("status", json!("finished"))],
    );
    assert_eq!(
        std::fs::read_to_string(w.ws().join("in.txt")).unwrap(),
        "sandboxed\n"
    );
    let ev = s.expect_type("approval_required", &[]);
    let asked_before: Vec<&Value> = s
        .seen
        .iter()
        .filter(|e| e["type"] == "approval_required")
        .collect();
    assert_eq!(asked_before.len(), 1, "only the escalation was asked about");
    assert_eq!(ev["outside_sandbox"], json!(true), "{ev}");
    assert!(
        ev["summary"]
            .as_str()
            .unwrap()
            .starts_with("OUTSIDE the sandbox: run sh -c"),
        "{ev}"
    );
    assert!(!proof.exists(), "nothing runs before the approval");
    s.send(
        "approve",
        json!({"target": ev["request_id"], "call": ev["call_id"], "decision": "once"}),
    );
    assert_eq!(s.answer(rid), "done");
    assert_eq!(
        std::fs::read_to_string(&proof).unwrap(),
        "escalated\n",
        "the approved command ran outside the sandbox"
    );
}

#[test]
fn full_access_refuses_an_escalation_and_runs_nothing() {
    let (w, outside) = world_with_outside();
    let proof = outside.join("escalated.proof");
    let script = w.script(
        "s.json",
        json!([
            {"tool_calls": [exec_call(&format!("echo x > {}", proof.display()), Some(true))]},
            {"text": "refused"}
        ]),
    );
    let out = run_one_shot(&w, &script, &["--sandbox", "workspace-write"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!proof.exists());
    let outputs = tool_outputs(&w);
    assert!(
        outputs[0].contains("outside_sandbox is true")
            && outputs[0].contains("Nothing was executed"),
        "{outputs:?}"
    );
}

#[test]
fn a_project_cannot_loosen_the_sandbox() {
    let w = World::new();
    let user_root = w.path("user-root");
    let other_root = w.path("other-root");
    std::fs::create_dir_all(&user_root).unwrap();
    std::fs::create_dir_all(&other_root).unwrap();
    std::fs::write(
        w.ansa_home().join("config.json"),
        json!({"sandbox": "workspace-write", "sandbox_writable": [user_root]}).to_string(),
    )
    .unwrap();
    for (project, field) in [
        (json!({"sandbox": "off"}), "`sandbox`"),
        (json!({"sandbox_network": true}), "`sandbox_network`"),
        (
            json!({"sandbox_writable": [user_root, other_root]}),
            "`sandbox_writable[1]`",
        ),
    ] {
        w.project_config(project.clone());
        let out = w.command(&["--print-config"]).output().unwrap();
        assert_eq!(out.status.code(), Some(3), "{project}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(field), "{project}: {err}");
        assert!(err.contains("may only tighten"), "{project}: {err}");
    }
    // Tightening is fine.
    w.project_config(json!({"sandbox": "read-only", "sandbox_writable": []}));
    let out = w.command(&["--print-config"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["sandbox"], "read-only");
}

#[test]
fn bad_writable_roots_are_config_errors() {
    let w = World::new();
    for (roots, says) in [
        (json!(["/"]), "whole filesystem"),
        (json!(["relative/dir"]), "not an absolute path"),
        (json!(["/no/such/ansa/root"]), "not an existing directory"),
    ] {
        std::fs::write(
            w.ansa_home().join("config.json"),
            json!({"sandbox": "workspace-write", "sandbox_writable": roots}).to_string(),
        )
        .unwrap();
        let out = w.command(&["--print-config"]).output().unwrap();
        assert_eq!(out.status.code(), Some(3), "{roots}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("`sandbox_writable[0]`"), "{roots}: {err}");
        assert!(err.contains(says), "{roots}: {err}");
    }
}

#[test]
fn print_config_shows_the_mode_and_the_landlock_abi() {
    let w = World::new();
    let out = w
        .command(&["--print-config", "--sandbox", "workspace-write"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["sandbox"], "workspace-write");
    assert_eq!(printed["sandbox_network"], false);
    let enforcement = &printed["sandbox_enforcement"];
    assert!(enforcement["landlock_abi"].as_u64().is_some(), "{printed}");
    assert_eq!(enforcement["refused"], Value::Null, "{printed}");
    let off = w.command(&["--print-config"]).output().unwrap();
    let printed: Value = serde_json::from_slice(&off.stdout).unwrap();
    assert_eq!(printed["sandbox"], "off");
    assert_ne!(
        printed["digest"],
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["digest"],
        "the sandbox is part of the session binding"
    );
}

/// `chmod`, `touch -d`, `chown` and an extended attribute on outside files, through the real
/// binary: the supervisor's metadata server refuses each (docs/security.md), so every entry
/// outside keeps its mode, times, owner and content, and the model is told the sandbox denied it.
#[test]
fn metadata_changes_outside_are_refused_and_leave_everything_alone() {
    require("python3", "apt-get install python3");
    let (w, outside) = world_with_outside();
    let o = outside.display().to_string();
    let (uid, gid) = (nix::unistd::getuid(), nix::unistd::getgid());
    let script = w.script(
        "meta.json",
        json!([
            {"tool_calls": [exec_call(&format!(
                "chmod 600 {o}/existing.txt; touch -d 2001-01-01 {o}/sub/deep.txt; chown {uid}:{gid} {o}/existing.txt; python3 -c \"import os; os.setxattr('{o}/existing.txt', 'user.x', b'1')\"; chmod 700 {o}/sub; echo done"
            ), None)]},
            {"text": "tried"}
        ]),
    );
    let before = tree_state(&outside);
    let out = run_one_shot(&w, &script, &["--sandbox", "workspace-write"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        before,
        tree_state(&outside),
        "mode, times, owner and content"
    );
    let xattr = std::process::Command::new("python3")
        .args([
            "-c",
            &format!("import os; print(os.listxattr('{o}/existing.txt'))"),
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&xattr.stdout).trim(), "[]");
    let outputs = tool_outputs(&w);
    assert!(outputs[0].contains(SANDBOX_LINE), "{outputs:?}");
}

/// ansa's own secrets stay withheld from a sandboxed command's environment, as from any other.
#[test]
fn a_sandboxed_command_inherits_no_secret() {
    let w = sandbox_world();
    let script = w.script(
        "env.json",
        json!([
            {"tool_calls": [exec_call("env", None)]},
            {"text": "listed"}
        ]),
    );
    let out = w
        .command(&[
            "--offline",
            "--script",
            script.to_str().unwrap(),
            "--sandbox",
            "workspace-write",
            "show env",
        ])
        .env("AI_API_KEY", "sk-sandboxed-secret")
        .env("ANSA_TEST_VISIBLE", "visible-in-sandbox")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let outputs = tool_outputs(&w);
    assert!(outputs[0].contains("visible-in-sandbox"), "{outputs:?}");
    assert!(!outputs[0].contains("sk-sandboxed-secret"), "{outputs:?}");
}

/// The real TUI names the mode and the Landlock ABI in its footer and in `/status`.
#[test]
fn the_tui_footer_and_status_show_the_sandbox() {
    let w = World::new();
    let t = crate::tmux::Tmux::start(&w, &["--offline", "--sandbox", "read-only"], 120, 30);
    let abi = ash_engine::exec::sandbox::probe()
        .landlock_abi
        .expect("this machine has Landlock");
    t.wait_text(&format!("sandbox read-only · Landlock ABI {abi}"));
    t.type_text("/status");
    t.keys(&["Enter"]);
    let screen = t.wait_text("write nothing");
    assert!(screen.contains("sandbox  read-only"), "{screen}");
    t.keys(&["Escape"]);
    t.type_text("/exit");
    t.keys(&["Enter"]);
    t.wait_text("[ansa exited 0]");
}

/// A sandbox that cannot be enforced any more (a writable root removed after the config was
/// read) never runs the command: the model's answer and line mode's output say what is
/// missing and how to choose `off`.
#[test]
fn an_unenforceable_sandbox_refuses_the_command_and_line_mode_says_why() {
    use std::io::Write;
    let w = sandbox_world();
    let root = w.path("extra-root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        w.ansa_home().join("config.json"),
        json!({"sandbox": "workspace-write", "sandbox_writable": [root]}).to_string(),
    )
    .unwrap();
    let proof = w.ws().join("ran.proof");
    let script = w.script(
        "s.json",
        json!([
            {"tool_calls": [exec_call("touch ran.proof", None)]},
            {"text": "refused"}
        ]),
    );
    let mut child = w
        .command(&["--offline", "--script", script.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The session exists once the config was read and the runtime started.
    crate::harness::eventually("the session to start", || {
        std::fs::read_dir(w.ansa_home().join("sessions"))
            .map(|d| d.flatten().any(|e| e.path().is_dir()))
            .unwrap_or(false)
    });
    std::fs::remove_dir(&root).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"touch the proof\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(!proof.exists(), "the command never ran unsandboxed");
    let err = stderr(&out);
    assert!(err.contains("cannot be enforced"), "{err}");
    assert!(err.contains("--sandbox off"), "{err}");
    let outputs = tool_outputs(&w);
    assert!(
        outputs[0].contains("Nothing was executed") && outputs[0].contains("extra-root"),
        "{outputs:?}"
    );
}

/// A workspace reached through a symlink is the directory it names: writes there work, and the
/// sandbox still holds beside it.
#[test]
fn a_symlinked_workspace_is_confined_to_the_directory_it_names() {
    let (w, outside) = world_with_outside();
    let link = w.path("ws-link");
    std::os::unix::fs::symlink(w.ws(), &link).unwrap();
    let script = w.script(
        "s.json",
        json!([
            {"tool_calls": [exec_call("echo ok > inside.txt", None)]},
            {"tool_calls": [exec_call(&format!("echo pwned > {}/new.txt", outside.display()), None)]},
            {"text": "done"}
        ]),
    );
    let before = tree_state(&outside);
    let out = run_one_shot(
        &w,
        &script,
        &[
            "--cwd",
            link.to_str().unwrap(),
            "--sandbox",
            "workspace-write",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(w.ws().join("inside.txt")).unwrap(),
        "ok\n"
    );
    assert_eq!(before, tree_state(&outside));
    let outputs = tool_outputs(&w);
    assert!(outputs[1].contains(SANDBOX_LINE), "{outputs:?}");
}

#[path = "sandbox_holes.rs"]
mod holes;

/// ansa spools a command's large capture in its own home, not in the temporary directory a
/// sandboxed command may write: there the command could swap the spool root for a link and
/// make ansa (unsandboxed) create or delete files outside, or rewrite a retained output.
#[test]
fn the_capture_spool_is_out_of_a_sandboxed_commands_reach() {
    let w = sandbox_world();
    let tmp = w.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let spool = w.ansa_home().join("runtime/spool");
    let script = w.script(
        "spool.json",
        json!([
            {"tool_calls": [exec_call(&format!(
                "ls -a \"$TMPDIR\"; echo roots: $(ls {spool}); touch {spool}/planted",
                spool = spool.display()
            ), None)]},
            {"text": "looked"}
        ]),
    );
    let mut args = vec!["--offline", "--script", script.to_str().unwrap()];
    args.extend_from_slice(&["--sandbox", "workspace-write", "look at the spool"]);
    let out = w.command(&args).env("TMPDIR", &tmp).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let outputs = tool_outputs(&w);
    let output = &outputs[0];
    let (_, listing) = output.split_once("roots:").expect("the command ran");
    assert!(
        listing.contains("ash-store-v1-"),
        "the spool root lives in ansa's home: {output}"
    );
    let before_roots = output.split("roots:").next().unwrap_or_default();
    assert!(
        !before_roots.contains("ash-store-v1-"),
        "no spool root in the writable temporary directories: {output}"
    );
    assert!(!spool.join("planted").exists(), "{output}");
    assert!(output.contains(SANDBOX_LINE), "{output}");
}

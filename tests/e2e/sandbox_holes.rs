//! Holes a hostile review found, through the real binary: a workspace holding ansa's home
//! (whose config could turn the sandbox off) is refused before anything runs, and a sandboxed
//! command does not learn the way to a tmux or screen server, which runs commands outside.

use super::*;

#[test]
fn a_workspace_holding_ansas_home_is_refused_and_nothing_runs() {
    let w = sandbox_world();
    let home = w.ws().join(".ansa-home");
    private_dir(&home);
    let marker = w.ws().join("ran.txt");
    let script = w.script(
        "s.json",
        json!([
            {"tool_calls": [exec_call("echo ran > ran.txt", None)]},
            {"text": "done"}
        ]),
    );
    let out = run_one_shot(&w, &script, &["--sandbox", "workspace-write"]);
    // The control: the same run with the home outside the workspace starts and runs.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(marker.exists(), "the control run did not run the command");
    std::fs::remove_file(&marker).unwrap();
    let out = run_one_shot_with_home(&w, &script, &home, &["--sandbox", "workspace-write"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("contains ansa's home"), "{err}");
    assert!(err.contains("turn the sandbox off"), "{err}");
    assert!(err.contains("ANSA_HOME"), "{err}");
    assert!(!marker.exists(), "a command ran: {err}");
    // A `sandbox_writable` root holding it is refused the same way.
    let extra = w.path("extra");
    let inner = extra.join("home");
    private_dir(&inner);
    std::fs::write(
        inner.join("config.json"),
        json!({"sandbox": "workspace-write", "sandbox_writable": [extra]}).to_string(),
    )
    .unwrap();
    let out = run_one_shot_with_home(&w, &script, &inner, &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("sandbox_writable root"), "{err}");
    assert!(!marker.exists(), "a command ran: {err}");
}

fn private_dir(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
}

fn run_one_shot_with_home(w: &World, script: &Path, home: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["--offline", "--script", script.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.push("try the sandbox");
    w.command(&args).env("ANSA_HOME", home).output().unwrap()
}

#[test]
fn a_sandboxed_command_does_not_see_tmux_or_screen() {
    let w = sandbox_world();
    let script = w.script(
        "env.json",
        json!([
            {"tool_calls": [exec_call("env", None)]},
            {"text": "listed"}
        ]),
    );
    let run = |mode: &str| {
        let out = w
            .command(&[
                "--offline",
                "--script",
                script.to_str().unwrap(),
                "--sandbox",
                mode,
                "show env",
            ])
            .env("TMUX", "/tmp/tmux-0/default,1234,0")
            .env("TMUX_PANE", "%7")
            .env("STY", "1234.pts-0.host")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let outputs = tool_outputs(&w);
        let last = outputs.last().cloned().unwrap_or_default();
        std::fs::remove_dir_all(w.ansa_home().join("sessions")).unwrap();
        last
    };
    // The control: without a sandbox the variables are passed on.
    let off = run("off");
    assert!(off.contains("TMUX=/tmp/tmux-0/default"), "{off}");
    for mode in ["workspace-write", "read-only"] {
        let env = run(mode);
        assert!(env.contains("PATH="), "{mode}: {env}");
        for name in ["TMUX=", "TMUX_PANE=", "STY="] {
            assert!(!env.contains(name), "{mode}: {name} leaked: {env}");
        }
    }
}

/// The review's repro: a workspace under /tmp (itself writable) moved away by one command and
/// replaced by a symlink to a directory outside; the next command must not run, let alone
/// write there.
#[test]
fn a_workspace_swapped_for_a_symlink_stops_the_next_command() {
    let w = World::new();
    let (_keep, outside) = world_with_outside();
    let ws = std::fs::canonicalize(w.ws()).unwrap();
    assert!(
        ws.starts_with("/tmp"),
        "the harness world lies under /tmp: {}",
        ws.display()
    );
    let script = w.script(
        "s.json",
        json!([
            {"tool_calls": [exec_call(&format!("cd .. && mv ws ws.old && ln -s {} ws", outside.display()), None)]},
            {"tool_calls": [exec_call(&format!("echo pwned > {}/existing.txt; echo pwned > new.txt", ws.display()), None)]},
            {"text": "done"}
        ]),
    );
    let before = tree_state(&outside);
    let mut args = vec!["--offline", "--script", script.to_str().unwrap()];
    args.extend(["--sandbox", "workspace-write", "try the sandbox"]);
    let out = w.command(&args).output().unwrap();
    let err = stderr(&out);
    assert_eq!(before, tree_state(&outside), "wrote outside: {err}");
    assert!(
        std::fs::symlink_metadata(w.ws()).unwrap().is_symlink(),
        "the swap did not happen: {err}"
    );
    let journal = journal_text(&only_session_dir(&w));
    assert!(
        journal.contains("is no longer the directory it was"),
        "the second command was not refused for the swapped root: {journal}"
    );
    // The model is told the sandbox refused it, not that the program could not be started.
    assert!(
        journal.contains("The OS sandbox could not be applied"),
        "{journal}"
    );
    assert!(
        !journal.contains("not executable, or a bad format"),
        "a spawn failure's hint on a sandbox refusal: {journal}"
    );
}

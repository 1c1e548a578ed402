//! ansa's own secrets never reach a command the model runs, by either route: the command does
//! not inherit them (the API keys, a chat provider's `api_key_env`, the broker token, the user
//! config's `exec_env_deny`), and it cannot read them from `/proc/<pid>/environ` of ansa or of
//! any other ancestor.
//!
//! Run by root, the commands are root too (with `CAP_SYS_PTRACE`), which no dumpable flag
//! stops; so when the tests run as root, the run is repeated as an unprivileged user
//! (`setpriv`), where the protection that matters for real users is measured.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::harness::{World, journal_text, only_session_dir};
use serde_json::json;

/// The uid and gid the unprivileged run uses (`nobody` on most systems).
const UNPRIVILEGED: u32 = 65534;

/// The variables the run sets: every one but the last is a secret.
const VARIABLES: [(&str, &str); 6] = [
    ("AI_API_KEY", "sk-ai-secret-1"),
    ("OPENAI_API_KEY", "sk-openai-secret-2"),
    ("ASH_BROKER_TOKEN", "broker-secret-3"),
    ("MY_DEPLOY_TOKEN", "deploy-secret-4"),
    ("MY_CHAT_KEY", "chat-key-secret-6"),
    ("ANSA_TEST_VISIBLE", "visible-5"),
];

/// Walks from the command's parent up to pid 1 and writes, for each process, its pid, name and
/// uid, its environment (one variable a line) or `-- unreadable`, and whether its memory can
/// be opened.
const ANCESTORS: &str = r#"out=ancestors.txt
: > "$out"
p=$PPID
while [ -n "$p" ] && [ "$p" -ge 1 ]; do
  echo "== pid $p comm $(cat /proc/$p/comm) uid $(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$p/status)" >> "$out"
  if env_text=$(tr '\0' '\n' < /proc/$p/environ) 2>/dev/null; then
    printf '%s\n-- readable\n' "$env_text" >> "$out"
  else
    echo "-- unreadable" >> "$out"
  fi
  if (exec 3< /proc/$p/mem) 2>/dev/null; then echo "-- mem open" >> "$out"; else echo "-- mem closed" >> "$out"; fi
  [ "$p" -eq 1 ] && break
  p=$(sed -n 's/^PPid:[[:space:]]*//p' /proc/$p/status)
done
echo "== end" >> "$out""#;

/// One process of the dump.
#[derive(Debug)]
struct Ancestor {
    pid: u32,
    comm: String,
    text: String,
}

impl Ancestor {
    fn readable(&self) -> bool {
        self.text.contains("\n-- readable")
    }
}

fn ancestors(dump: &str) -> Vec<Ancestor> {
    assert!(dump.ends_with("== end\n"), "the walk finished: {dump}");
    dump.split("== pid ")
        .skip(1)
        .map(|section| {
            let head = section.lines().next().unwrap_or_default();
            let mut words = head.split_whitespace();
            let pid = words.next().unwrap().parse().unwrap();
            assert_eq!(words.next(), Some("comm"), "{head}");
            Ancestor {
                pid,
                comm: words.next().unwrap_or_default().to_owned(),
                text: section.to_owned(),
            }
        })
        .collect()
}

/// The world of one run: a chat provider whose key is in `MY_CHAT_KEY`, `MY_DEPLOY_TOKEN`
/// denied, and a script that runs `env` and then the ancestor walk.
fn world() -> (World, PathBuf) {
    let w = World::new();
    std::fs::write(
        w.ansa_home().join("config.json"),
        json!({
            "schema_version": 1,
            "model": "llama",
            "provider": {"kind": "chat", "base_url": "https://chat.example/v1",
                "api_key_env": "MY_CHAT_KEY"},
            "exec_env_deny": ["MY_DEPLOY_TOKEN"],
        })
        .to_string(),
    )
    .unwrap();
    let exec = |program: &str, args: serde_json::Value| {
        json!({"name": "exec", "arguments": {"program": program, "args": args,
            "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
    };
    let script = w.script(
        "s.json",
        json!([
            {"tool_calls": [exec("env", json!([]))]},
            {"tool_calls": [exec("sh", json!(["-c", ANCESTORS]))]},
            {"text": "listed"}
        ]),
    );
    (w, script)
}

/// Runs ansa in `w` (through `wrap`, e.g. `setpriv`, when given); returns ansa's pid and the
/// dump the command wrote.
fn run(w: &World, script: &Path, wrap: Option<&[String]>) -> (u32, String) {
    let ansa = w.command(&[
        "--offline",
        "--script",
        script.to_str().unwrap(),
        "show env",
    ]);
    let mut cmd = match wrap {
        None => ansa,
        Some(wrapper) => {
            // The build's binary may sit where the unprivileged user cannot reach it (CI builds
            // under /root), so a copy inside the given-away world runs.
            let program = w.path("bin/ansa");
            std::fs::create_dir_all(w.path("bin")).unwrap();
            std::fs::copy(ansa.get_program(), &program).unwrap();
            std::fs::set_permissions(w.path("bin"), std::fs::Permissions::from_mode(0o755))
                .unwrap();
            // The wrapper execs ansa in place, so the pid it gets is ansa's.
            let mut c = Command::new(&wrapper[0]);
            c.args(&wrapper[1..]).arg(&program).args(ansa.get_args());
            c.current_dir(w.ws());
            for (k, v) in ansa.get_envs() {
                match v {
                    Some(v) => c.env(k, v),
                    None => c.env_remove(k),
                };
            }
            c
        }
    };
    for (k, v) in VARIABLES {
        cmd.env(k, v);
    }
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dump = std::fs::read_to_string(w.ws().join("ancestors.txt")).unwrap();
    (pid, dump)
}

/// What holds for every run: nothing secret in the journal or in any ancestor's environment,
/// and the walk really read environments (the supervisor's, which holds the visible variable).
fn check(w: &World, ansa: u32, dump: &str) -> Vec<Ancestor> {
    let journal = journal_text(&only_session_dir(w));
    assert!(
        journal.contains("visible-5"),
        "env ran and its output was journaled: {journal}"
    );
    for (name, value) in &VARIABLES[..VARIABLES.len() - 1] {
        assert!(!journal.contains(value), "{name} reached the journal");
        assert!(
            !dump.contains(value),
            "{name}'s value is readable from an ancestor: {dump}"
        );
    }
    let list = ancestors(dump);
    assert!(
        list.iter()
            .any(|a| a.readable() && a.text.contains("ANSA_TEST_VISIBLE=visible-5")),
        "the walk read the environment of the command's parent: {dump}"
    );
    assert!(
        list.iter().any(|a| a.pid == ansa && a.comm == "ansa"),
        "ansa ({ansa}) is among the ancestors: {dump}"
    );
    list
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

#[test]
fn exec_children_cannot_reach_ansa_secrets() {
    let (w, script) = world();
    let (pid, dump) = run(&w, &script, None);
    let list = check(&w, pid, &dump);
    let me = list.iter().find(|a| a.pid == pid).unwrap();
    if !is_root() {
        // A same-user process may neither read ansa's environment nor open its memory.
        assert!(
            me.text.contains("-- unreadable") && me.text.contains("-- mem closed"),
            "ansa is dumpable: {dump}"
        );
    }
}

/// Hands the world to the unprivileged user (its files were made by root).
fn give_away(path: &Path) {
    std::os::unix::fs::chown(path, Some(UNPRIVILEGED), Some(UNPRIVILEGED)).unwrap();
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).unwrap() {
            give_away(&entry.unwrap().path());
        }
    }
}

#[test]
#[ignore = "needs root: runs ansa as another, unprivileged user (cargo xtask test runs it as root; without root the test above checks the same as this user)"]
fn exec_children_of_an_unprivileged_ansa_cannot_read_its_environment_or_memory() {
    assert!(
        is_root(),
        "this test needs root to run ansa as an unprivileged user"
    );
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("running as root, the unprivileged run needs setpriv (util-linux)");
    let (w, script) = world();
    give_away(w.dir.path());
    std::fs::set_permissions(w.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let id = UNPRIVILEGED.to_string();
    let wrapper: Vec<String> = vec![
        setpriv.into(),
        "--reuid".into(),
        id.clone(),
        "--regid".into(),
        id,
        "--clear-groups".into(),
        "--inh-caps=-all".into(),
        "--".into(),
    ];
    let (pid, dump) = run(&w, &script, Some(&wrapper));
    let list = check(&w, pid, &dump);
    let me = list.iter().find(|a| a.pid == pid).unwrap();
    assert!(
        me.text.contains(&format!("uid {UNPRIVILEGED}")),
        "ansa ran unprivileged: {dump}"
    );
    assert!(
        me.text.contains("-- unreadable") && me.text.contains("-- mem closed"),
        "a same-user command could read ansa's environment or memory: {dump}"
    );
}

/// A descriptor ansa inherited without close-on-exec (here fd 9, open on a file holding a
/// secret, as a shell's `9<file` would leave it) does not reach a command the model runs.
#[test]
fn descriptors_ansa_inherited_do_not_reach_its_commands() {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let w = World::new();
    let secret = w.path("held.txt");
    std::fs::write(&secret, "inherited-secret-8\n").unwrap();
    let probe = "if [ -e /proc/self/fd/9 ]; then echo FD9-OPEN; cat <&9; else echo FD9-CLOSED; fi";
    let script = w.script(
        "fd.json",
        json!([
            {"tool_calls": [{"name": "exec", "arguments": {"program": "sh", "args": ["-c", probe],
                "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}}]},
            {"text": "{{tool_output:0}}"}
        ]),
    );
    let held = std::fs::File::open(&secret).unwrap();
    let raw = held.as_raw_fd();
    let mut cmd = w.command(&["--offline", "--script", script.to_str().unwrap(), "probe"]);
    // SAFETY: dup2 is async-signal-safe; it leaves fd 9 open without close-on-exec in ansa.
    unsafe {
        cmd.pre_exec(move || {
            if nix::libc::dup2(raw, 9) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(answer.contains("FD9-CLOSED"), "{answer}");
    assert!(!answer.contains("inherited-secret-8"), "{answer}");
    drop(held);
}

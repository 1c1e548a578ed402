//! `ash-broker` with real processes: one-shots share provider connections through one broker
//! (counted as TLS handshakes at a real HTTPS server), every refusal and failure goes direct
//! or stops as the contract says, and the shell integration starts, reuses and ends brokers
//! in real interactive shells.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::broker_support::{Broker, broker_exe, token};
use crate::harness::{World, alive, eventually};
use crate::live::{fixture, live_env};
use crate::mock_provider::{MockProvider, MockResponse};

const ANSWER: &str = "Hello from the model. The answer is 42.";

/// Runs a live one-shot against `mock` with `extra` environment; its stdout.
fn one_shot(w: &World, mock: &MockProvider, extra: &[(&str, String)]) -> String {
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&fixture("responses-text.sse"), 333),
    );
    let mut c = w.command(&["say hello"]);
    for (k, v) in live_env(mock, "responses")
        .into_iter()
        .chain(extra.iter().cloned())
    {
        c.env(k, v);
    }
    let out = c.stdin(Stdio::null()).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn eight_one_shots_share_one_connection_through_the_broker() {
    let w = World::new();
    let mock = MockProvider::https();
    for _ in 0..8 {
        assert_eq!(one_shot(&w, &mock, &[]).trim(), ANSWER);
    }
    assert_eq!(mock.handshakes(), 8, "direct: one handshake per process");
    let broker = Broker::start(&w.ansa_home().join("runtime"), &mock);
    let env = broker.env(&broker.token);
    for _ in 0..8 {
        assert_eq!(one_shot(&w, &mock, &env).trim(), ANSWER);
    }
    assert_eq!(
        mock.handshakes() - 8,
        1,
        "through the broker: one HTTP/2 connection for all eight"
    );
    let last = mock.requests_to("/v1/responses").pop().unwrap();
    assert_eq!(last.header("authorization"), Some("Bearer sk-test-key"));
    assert!(
        last.headers
            .iter()
            .all(|(k, _)| !k.starts_with("x-ash-broker")),
        "the broker's own headers never reach the provider: {:?}",
        last.headers
    );
    assert!(
        std::fs::read_to_string(&broker.lease)
            .unwrap()
            .trim()
            .parse::<u64>()
            .is_ok()
    );
}

#[test]
fn refusals_and_an_unreachable_broker_go_direct() {
    let w = World::new();
    let mock = MockProvider::https();
    let broker = Broker::start(&w.ansa_home().join("runtime"), &mock);
    // A wrong token is refused before anything is forwarded; the task goes direct.
    let wrong = broker.env(&"0".repeat(64));
    assert_eq!(one_shot(&w, &mock, &wrong).trim(), ANSWER);
    assert_eq!(mock.handshakes(), 1, "the direct connection");
    // Raw requests the broker must refuse without forwarding.
    let origin = mock.base_url();
    let ask = |token: &str, url: &str, extra: &str| {
        broker.raw(&format!(
            "POST /v1/responses HTTP/1.1\r\nhost: x\r\nx-ash-broker-token: {token}\r\nx-ash-broker-url: {url}\r\n{extra}content-length: 0\r\n\r\n"
        ))
    };
    let foreign = ask(&broker.token, "https://example.com/v1/responses", "");
    assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
    assert!(
        foreign.contains("x-ash-broker-refused: the target is not the configured provider"),
        "{foreign}"
    );
    let plain = ask(&broker.token, &origin.replace("https", "http"), "");
    assert!(plain.contains("x-ash-broker-refused"), "{plain}");
    let bad_token = ask("nope", &format!("{origin}/responses"), "");
    assert!(
        bad_token.contains("x-ash-broker-refused: the capability token does not match"),
        "{bad_token}"
    );
    let oversize = broker.raw(&format!(
        "POST /v1/responses HTTP/1.1\r\nhost: x\r\nx-ash-broker-token: {}\r\nx-ash-broker-url: {origin}/responses\r\ncontent-length: 40000000\r\n\r\n",
        broker.token
    ));
    assert!(oversize.starts_with("HTTP/1.1 413"), "{oversize}");
    assert!(oversize.contains("x-ash-broker-refused"), "{oversize}");
    assert_eq!(
        mock.requests_to("/v1/responses").len(),
        1,
        "nothing refused was forwarded"
    );
    // The broker is killed: its socket is dead, and the task goes direct.
    let env = broker.env(&broker.token);
    drop(broker);
    assert_eq!(one_shot(&w, &mock, &env).trim(), ANSWER);
    assert_eq!(mock.handshakes(), 2);
}

#[test]
fn a_socket_that_is_not_ours_never_sees_the_request() {
    let w = World::new();
    let mock = MockProvider::https();
    // A socket in a directory others may open is not trusted, whoever listens on it.
    let open_dir = w.path("open");
    let broker = Broker::start(&open_dir, &mock);
    std::fs::set_permissions(&open_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&broker.socket, std::fs::Permissions::from_mode(0o666)).unwrap();
    assert_eq!(
        one_shot(&w, &mock, &broker.env(&broker.token)).trim(),
        ANSWER
    );
    assert_eq!(
        (mock.handshakes(), mock.requests_to("/v1/responses").len()),
        (1, 1),
        "the task went direct; the untrusted broker forwarded nothing"
    );
    // A broker refuses to start in such a directory.
    let out = Command::new(broker_exe())
        .args(["--socket", open_dir.join("b.sock").to_str().unwrap()])
        .args(["--parent-pid", &std::process::id().to_string()])
        .args(["--lease", open_dir.join("b.lease").to_str().unwrap()])
        .args(["--upstream", &mock.base_url()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mode 755") && err.contains("0700"), "{err}");
}

#[test]
#[ignore = "needs root: makes a socket of another user (cargo xtask test runs it as root)"]
fn another_users_socket_is_never_connected_to() {
    assert!(
        nix::unistd::geteuid().is_root(),
        "this test needs root to make a socket of another user"
    );
    let w = World::new();
    let mock = MockProvider::https();
    // A socket of another user (here `nobody`, in nobody's private directory): never
    // connected to, so whoever listens there never sees the API key.
    let theirs = w.path("theirs");
    std::fs::create_dir_all(&theirs).unwrap();
    let socket = theirs.join("b.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o700)).unwrap();
    let nobody = Some(nix::unistd::Uid::from_raw(65534));
    let group = Some(nix::unistd::Gid::from_raw(65534));
    nix::unistd::chown(&socket, nobody, group).unwrap();
    nix::unistd::chown(&theirs, nobody, group).unwrap();
    let env = vec![
        ("ASH_BROKER_SOCKET", socket.display().to_string()),
        ("ASH_BROKER_TOKEN", token()),
    ];
    assert_eq!(one_shot(&w, &mock, &env).trim(), ANSWER);
    assert_eq!(mock.handshakes(), 1, "the task went direct");
    let err = listener.accept().map(|_| ()).unwrap_err();
    assert_eq!(
        err.kind(),
        std::io::ErrorKind::WouldBlock,
        "nobody's socket was never connected to"
    );
}

#[test]
fn the_broker_exits_with_its_parent_and_cleans_up() {
    let w = World::new();
    let mock = MockProvider::https();
    let dir = w.ansa_home().join("runtime");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let mut parent = Command::new("sleep").arg("300").spawn().unwrap();
    let socket = dir.join("p.sock");
    let lease = dir.join("p.lease");
    let mut child = Command::new(broker_exe())
        .args(["--socket", socket.to_str().unwrap()])
        .args(["--parent-pid", &parent.id().to_string()])
        .args(["--lease", lease.to_str().unwrap()])
        .args(["--upstream", &mock.base_url(), "--check-ms", "50"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "{}", token()).unwrap();
    eventually("the broker socket and lease", || {
        socket.exists() && lease.exists()
    });
    let pid = child.id() as i32;
    parent.kill().unwrap();
    parent.wait().unwrap();
    eventually("the broker to exit", || !alive(pid));
    child.wait().unwrap();
    assert!(
        !socket.exists() && !lease.exists(),
        "socket and lease removed"
    );
    // A token that is not one is refused at start.
    let out = Command::new(broker_exe())
        .args(["--socket", socket.to_str().unwrap()])
        .args(["--parent-pid", &std::process::id().to_string()])
        .args(["--lease", lease.to_str().unwrap()])
        .args(["--upstream", &mock.base_url()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no capability token"));
}

/// `ash-broker` processes whose command line names `socket`.
fn brokers_on(socket: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                let c = String::from_utf8_lossy(&c);
                c.contains("ash-broker") && c.contains(socket)
            })
        })
        .filter(|pid| alive(*pid))
        .collect()
}

/// An interactive shell reading commands from a pipe, with `live` pointing at the mock.
struct Shell {
    child: Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Shell {
    fn start(shell: &str, w: &World, mock: &MockProvider) -> Shell {
        let bin = Path::new(env!("CARGO_BIN_EXE_ansa")).parent().unwrap();
        let mut c = Command::new(shell);
        c.arg("-i")
            .env_clear()
            .env("HOME", w.path("home"))
            .env("ANSA_HOME", w.ansa_home())
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env("TERM", "dumb")
            .env("NO_COLOR", "1")
            .current_dir(w.ws())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in live_env(mock, "responses") {
            c.env(k, v);
        }
        let mut child = c.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Shell { child, lines }
    }

    /// Runs `script`, then returns every line it printed up to the end marker.
    fn run(&mut self, script: &str) -> Vec<String> {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{script}\necho __END__").unwrap();
        stdin.flush().unwrap();
        let mut out = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("the shell stopped answering; so far: {out:?}"));
            if line == "__END__" {
                return out;
            }
            out.push(line);
        }
    }
}

fn value<'a>(lines: &'a [String], key: &str) -> &'a str {
    lines
        .iter()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("no {key} in {lines:?}"))
}

/// Every regular file under `dir`, read.
fn files_under(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => files_under(&path, out),
            Ok(t) if t.is_file() => {
                out.push((path.clone(), std::fs::read(&path).unwrap_or_default()))
            }
            _ => {}
        }
    }
}

fn shell_lifecycle(shell: &str) {
    broker_exe();
    let w = World::new();
    let mock = MockProvider::https();
    for _ in 0..4 {
        mock.push(
            "/v1/responses",
            MockResponse::sse_text(&fixture("responses-text.sse"), 333),
        );
    }
    for _ in 0..2 {
        let out = w.command(&["--install-shell", shell]).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let rc = w.path("home").join(format!(".{shell}rc"));
    let rc_text = std::fs::read_to_string(&rc).unwrap();
    assert_eq!(
        rc_text.lines().count(),
        1,
        "one idempotent source line: {rc_text}"
    );

    let mut first = Shell::start(shell, &w, &mock);
    let out = first.run(
        "ansa 'one'; echo \"RC1=$?\"\necho \"SOCK=$ASH_BROKER_SOCKET\"\necho \"TOKEN=$ASH_BROKER_TOKEN\"\nansa 'two'; echo \"RC2=$?\"\n( ansa 'three'; echo \"RC3=$?\" )",
    );
    assert_eq!(out.iter().filter(|l| *l == ANSWER).count(), 3, "{out:?}");
    for key in ["RC1=", "RC2=", "RC3="] {
        assert_eq!(value(&out, key), "0", "{out:?}");
    }
    let socket = value(&out, "SOCK=").to_owned();
    let token = value(&out, "TOKEN=").to_owned();
    assert!(
        socket.starts_with(&w.ansa_home().join("runtime").display().to_string()),
        "{socket}"
    );
    assert_eq!(token.len(), 64);
    assert_eq!(
        brokers_on(&socket).len(),
        1,
        "one broker, reused by the later tasks and the subshell"
    );
    assert_eq!(mock.handshakes(), 1, "three tasks, one connection");
    // The token reaches the broker on stdin only: its environment block, which the user's
    // other processes may be able to read, does not hold it.
    // (Run by root the test may read it; otherwise the broker is non-dumpable and it may not.)
    match std::fs::read(format!("/proc/{}/environ", brokers_on(&socket)[0])) {
        Ok(environ) => assert!(
            !String::from_utf8_lossy(&environ).contains(&token),
            "the broker's environment holds the token"
        ),
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied, "{e}"),
    }

    let mut second = Shell::start(shell, &w, &mock);
    let out = second.run("ansa 'four'; echo \"RC4=$?\"\necho \"SOCK=$ASH_BROKER_SOCKET\"");
    assert_eq!(value(&out, "RC4="), "0");
    let other = value(&out, "SOCK=").to_owned();
    assert_ne!(other, socket, "an independent shell gets its own broker");
    assert_eq!(brokers_on(&other).len(), 1);
    assert_eq!(mock.handshakes(), 2);

    let broker = brokers_on(&socket)[0];
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    eventually("the first shell's broker to exit", || !alive(broker));
    assert!(!Path::new(&socket).exists(), "its socket is removed");
    assert_eq!(
        brokers_on(&other).len(),
        1,
        "the other shell's broker stays"
    );
    drop(second.child.stdin.take());
    second.child.wait().unwrap();
    eventually("the second broker to exit", || {
        brokers_on(&other).is_empty()
    });

    let mut files = Vec::new();
    files_under(&w.path("home"), &mut files);
    files_under(&w.ansa_home(), &mut files);
    files_under(&w.ws(), &mut files);
    for (path, bytes) in files {
        assert!(
            !String::from_utf8_lossy(&bytes).contains(&token),
            "the token landed in {}",
            path.display()
        );
    }
}

#[test]
fn bash_starts_one_broker_per_shell_and_it_ends_with_the_shell() {
    shell_lifecycle("bash");
}

#[test]
fn zsh_starts_one_broker_per_shell_and_it_ends_with_the_shell() {
    assert!(
        Command::new("zsh").arg("-c").arg("true").status().is_ok(),
        "zsh is not installed: install it with `apt-get install zsh` (cargo xtask test installs it)"
    );
    shell_lifecycle("zsh");
}

#[test]
fn bash_replaces_a_broker_that_was_killed() {
    broker_exe();
    let w = World::new();
    let mock = MockProvider::https();
    for _ in 0..3 {
        mock.push(
            "/v1/responses",
            MockResponse::sse_text(&fixture("responses-text.sse"), 333),
        );
    }
    let out = w.command(&["--install-shell", "bash"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let mut shell = Shell::start("bash", &w, &mock);
    let out = shell.run("ansa 'one'; echo \"RC1=$?\"\necho \"SOCK=$ASH_BROKER_SOCKET\"");
    assert_eq!(value(&out, "RC1="), "0", "{out:?}");
    let socket = value(&out, "SOCK=").to_owned();
    let first = brokers_on(&socket);
    assert_eq!(first.len(), 1, "{out:?}");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(first[0]),
        nix::sys::signal::SIGKILL,
    )
    .unwrap();
    eventually("the killed broker to be gone", || !alive(first[0]));
    assert!(
        Path::new(&socket).exists(),
        "a killed broker leaves its socket behind"
    );
    let out = shell.run(
        "ansa 'two'; echo \"RC2=$?\"\necho \"SOCK=$ASH_BROKER_SOCKET\"\nansa 'three'; echo \"RC3=$?\"",
    );
    assert_eq!(value(&out, "RC2="), "0", "{out:?}");
    assert_eq!(value(&out, "RC3="), "0", "{out:?}");
    assert_eq!(
        value(&out, "SOCK="),
        socket,
        "the stale socket's path is reused"
    );
    let second = brokers_on(&socket);
    assert_eq!(second.len(), 1, "a new broker serves the shell: {out:?}");
    assert_ne!(second, first);
    assert_eq!(
        mock.handshakes(),
        2,
        "one connection per broker: the third task shared the new broker's"
    );
    drop(shell.child.stdin.take());
    shell.child.wait().unwrap();
    eventually("the new broker to exit with its shell", || {
        brokers_on(&socket).is_empty()
    });
}

#[test]
fn signals_and_the_idle_expiry_end_the_broker_and_a_second_one_is_refused() {
    let w = World::new();
    let mock = MockProvider::https();
    let broker = Broker::start(&w.ansa_home().join("runtime"), &mock);
    // One broker per socket.
    let out = Command::new(broker_exe())
        .args(["--socket", broker.socket.to_str().unwrap()])
        .args(["--parent-pid", &std::process::id().to_string()])
        .args(["--lease", broker.lease.to_str().unwrap()])
        .args(["--upstream", &mock.base_url()])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            let _ = writeln!(c.stdin.take().unwrap(), "{}", token());
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("another broker already serves"));
    drop(broker);
    for signal in [
        nix::sys::signal::SIGTERM,
        nix::sys::signal::SIGHUP,
        nix::sys::signal::SIGINT,
    ] {
        let b = Broker::start(&w.ansa_home().join("runtime"), &mock);
        let pid = nix::unistd::Pid::from_raw(b.child.id() as i32);
        nix::sys::signal::kill(pid, signal).unwrap();
        eventually("the broker to exit on a signal", || !alive(pid.as_raw()));
        assert!(
            !b.socket.exists() && !b.lease.exists(),
            "{signal:?}: files removed"
        );
    }
    // Idle expiry.
    let dir = w.ansa_home().join("runtime");
    let socket = dir.join("idle.sock");
    let mut idle = Command::new(broker_exe())
        .args(["--socket", socket.to_str().unwrap()])
        .args(["--parent-pid", &std::process::id().to_string()])
        .args(["--lease", dir.join("idle.lease").to_str().unwrap()])
        .args([
            "--upstream",
            &mock.base_url(),
            "--idle-secs",
            "1",
            "--check-ms",
            "50",
        ])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(idle.stdin.take().unwrap(), "{}", token()).unwrap();
    eventually("the idle broker's socket", || socket.exists());
    let started = std::time::Instant::now();
    idle.wait().unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(800),
        "it waited for the idle expiry"
    );
    assert!(!socket.exists());
}

#[test]
fn only_allow_listed_headers_reach_the_provider() {
    let w = World::new();
    let mock = MockProvider::https();
    mock.push(
        "/v1/responses",
        MockResponse::sse_text(&fixture("responses-text.sse"), 333),
    );
    let broker = Broker::start(&w.ansa_home().join("runtime"), &mock);
    let answer = broker.raw(&format!(
        "POST /v1/responses HTTP/1.1\r\nhost: x\r\nx-ash-broker-token: {}\r\nx-ash-broker-url: {}/responses\r\nauthorization: Bearer sk-test-key\r\ncookie: session=1\r\nx-forwarded-for: 10.0.0.1\r\nproxy-authorization: Basic eA==\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{{}}",
        broker.token,
        mock.base_url()
    ));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let seen = mock.requests_to("/v1/responses").pop().unwrap();
    let names: Vec<&str> = seen.headers.iter().map(|(k, _)| k.as_str()).collect();
    for dropped in [
        "cookie",
        "x-forwarded-for",
        "proxy-authorization",
        "x-ash-broker-token",
        "x-ash-broker-url",
    ] {
        assert!(
            !names.contains(&dropped),
            "{dropped} was forwarded: {names:?}"
        );
    }
    assert_eq!(seen.header("authorization"), Some("Bearer sk-test-key"));
    assert_eq!(seen.body, b"{}");
}

#[test]
fn install_shell_keeps_a_changed_integration_unless_told_to_overwrite() {
    let w = World::new();
    let rc = w.path("home").join(".bashrc");
    std::fs::write(&rc, "export EDITOR=vi\nalias ll='ls -l'").unwrap();
    let out = w.command(&["--install-shell", "bash"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(said.starts_with("installed the bash integration"), "{said}");
    let text = std::fs::read_to_string(&rc).unwrap();
    assert!(
        text.starts_with("export EDITOR=vi\nalias ll='ls -l'\n"),
        "the user's lines stay: {text}"
    );
    assert!(text.ends_with("# ansa shell integration\n"), "{text}");
    let script = w.ansa_home().join(".ansa_bashrc");
    let wrapper = std::fs::read_to_string(&script).unwrap();
    // Run again, it changes nothing and says so (docs/broker.md).
    let out = w.command(&["--install-shell", "bash"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        said.starts_with("the bash integration is already installed")
            && said.contains("nothing changed"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&rc).unwrap(), text);
    assert_eq!(std::fs::read_to_string(&script).unwrap(), wrapper);
    std::fs::write(&script, "# edited by hand\n").unwrap();
    let out = w.command(&["--install-shell", "bash"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--overwrite"));
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "# edited by hand\n"
    );
    let out = w
        .command(&["--install-shell", "bash", "--overwrite"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(said.starts_with("updated the bash integration"), "{said}");
    assert!(
        std::fs::read_to_string(&script)
            .unwrap()
            .contains("ash-broker")
    );
    assert_eq!(
        std::fs::read_to_string(&rc).unwrap(),
        text,
        "the rc file did not change again"
    );
    // Without a live provider nothing is brokered.
    let out = w
        .command(&["--broker-upstream"])
        .env("AI_PROVIDER", "offline")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

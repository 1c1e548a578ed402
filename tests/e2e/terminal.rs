//! Terminal output of the real binary (docs/security.md, "Terminal output"): escape sequences
//! and control characters from a scripted model, a tool or a file reach stdout and stderr
//! only in the visible notation — never as the bytes a terminal would act on — and a failed
//! tool says why in one-shot and line mode.

use std::io::Write;
use std::os::fd::OwnedFd;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::World;

/// Erase the line, move up, erase that line too: what a spoofed approval would start with.
const ERASE_UP: &str = "\x1b[2K\x1b[1A\x1b[2K";
/// The same, as the user sees it.
const ERASE_UP_SHOWN: &str = "␛[2K␛[1A␛[2K";

/// Both streams, lossily decoded, after asserting that no raw ESC, BEL, CR or C1 CSI byte
/// sequence is in either.
fn streams(out: &Output) -> (String, String) {
    for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !bytes.contains(&0x1b) && !bytes.contains(&0x07) && !bytes.contains(&b'\r'),
            "a raw control byte reached {name}: {text:?}"
        );
        assert!(
            !text.contains('\u{9b}') && !text.contains('\u{202e}'),
            "a C1 or BiDi control reached {name}: {text:?}"
        );
    }
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `command` with a pseudo-terminal as stdin (so ask mode may ask), `answers` typed
/// on it (again and again until it ends), and stdout and stderr captured.
fn with_terminal_stdin(mut command: Command, answers: &str) -> Output {
    let pty = nix::pty::openpty(None, None).unwrap();
    let slave: OwnedFd = pty.slave;
    command
        .stdin(Stdio::from(slave))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().unwrap();
    // The command held the only other copy of the slave; the child has its own now.
    drop(command);
    let mut master = std::fs::File::from(pty.master);
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    let waiter = std::thread::spawn(move || child.wait_with_output().unwrap());
    let start = Instant::now();
    let mut typed = Instant::now() - Duration::from_secs(1);
    while !waiter.is_finished() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            panic!("ansa did not finish within 60 s");
        }
        // A prompt discards what was typed before it appeared, so the answer is typed again
        // until ansa has read one after its prompt and finished.
        if typed.elapsed() > Duration::from_millis(200) {
            master.write_all(answers.as_bytes()).unwrap();
            typed = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = waiter.join().unwrap();
    // Closed only now: a hang-up earlier would end ansa's input.
    drop(master);
    out
}

fn exec_call(program: &str, args: &[&str]) -> Value {
    json!({"name": "exec", "arguments": {"program": program, "args": args,
        "cwd": ".", "env": [], "stdin": null, "timeout_ms": null, "outside_sandbox": null}})
}

#[test]
fn an_approval_shows_the_escape_sequences_that_would_have_redrawn_it() {
    let w = World::new();
    let proof = w.path("PWNED");
    let hidden = format!(
        "touch {}; #{ERASE_UP}ansa: approve? run echo hello",
        proof.display()
    );
    let script = w.script(
        "spoof.json",
        json!([
            {"tool_calls": [exec_call("sh", &["-c", &hidden])]},
            {"text": "understood"}
        ]),
    );
    let out = with_terminal_stdin(
        w.command(&[
            "--offline",
            "--ask",
            "--script",
            script.to_str().unwrap(),
            "say hello",
        ]),
        "n\n",
    );
    let (stdout, stderr) = streams(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!proof.exists(), "the denied command never ran");
    // The prompt shows what the argument really holds, on the lines it claims.
    let asked: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("ansa: approve?"))
        .collect();
    assert_eq!(asked.len(), 1, "one approval, on one line: {stderr}");
    assert!(asked[0].starts_with("ansa: approve? run sh -c"), "{stderr}");
    assert!(
        asked[0].contains(&format!("#{ERASE_UP_SHOWN}ansa: approve? run echo hello")),
        "{stderr}"
    );
    let argv = stderr
        .lines()
        .find(|l| l.starts_with("    $ sh -c"))
        .unwrap_or_else(|| panic!("no argv line: {stderr}"));
    assert!(
        argv.contains(&format!("#{ERASE_UP_SHOWN}ansa: approve? run echo hello")),
        "{argv}"
    );
    assert_eq!(stdout, "understood\n");
}

#[test]
fn an_approval_argument_with_a_newline_stays_on_its_line() {
    let w = World::new();
    let proof = w.path("PWNED_NL");
    let hidden = format!("touch {}\nansa: approve? run echo hello", proof.display());
    let script = w.script(
        "newline.json",
        json!([
            {"tool_calls": [exec_call("sh", &["-c", &hidden])]},
            {"text": "ok"}
        ]),
    );
    let out = with_terminal_stdin(
        w.command(&[
            "--offline",
            "--ask",
            "--script",
            script.to_str().unwrap(),
            "go",
        ]),
        "n\n",
    );
    let (_, stderr) = streams(&out);
    assert!(!proof.exists());
    assert!(
        !stderr
            .lines()
            .any(|l| l.starts_with("ansa: approve? run echo")),
        "a forged prompt line: {stderr}"
    );
    assert!(
        stderr.contains("␊ansa: approve? run echo hello"),
        "{stderr}"
    );
}

/// A model whose answer and whose (unknown) tool's name carry escape sequences, C1 and BiDi
/// controls.
fn hostile_script(w: &World) -> std::path::PathBuf {
    w.script(
        "hostile.json",
        json!([
            {"tool_calls": [{"name": format!("nope{ERASE_UP}"), "arguments": {}}]},
            {"text": format!("all done{ERASE_UP}\x1b]52;c;cm0gLXJm\x07 \u{9b}2J \u{202e}txet\r\nok")}
        ]),
    )
}

#[test]
fn one_shot_shows_a_hostile_answer_and_tool_error_and_says_why_the_tool_failed() {
    let w = World::new();
    let script = hostile_script(&w);
    let out = w
        .command(&["--offline", "--script", script.to_str().unwrap(), "go"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (stdout, stderr) = streams(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stdout,
        format!("all done{ERASE_UP_SHOWN}␛]52;c;cm0gLXJm␇ <U+009B>2J <U+202E>txet\nok\n")
    );
    let failed = stderr
        .lines()
        .find(|l| l.contains(" failed"))
        .unwrap_or_else(|| panic!("no failed tool line: {stderr}"));
    assert!(
        failed.starts_with(&format!(
            "  ✗ nope{ERASE_UP_SHOWN} failed: Unknown tool `nope{ERASE_UP_SHOWN}`."
        )),
        "the reason is shown, made visible: {failed}"
    );
    assert!(failed.contains("Nothing was executed."), "{failed}");
}

#[test]
fn line_mode_shows_a_hostile_answer_and_says_why_tools_failed() {
    let w = World::new();
    let script = w.script(
        "lines.json",
        json!([
            {"tool_calls": [{"name": format!("nope{ERASE_UP}"), "arguments": {}}]},
            {"tool_calls": [exec_call("no-such-program-anywhere", &[])]},
            {"text": "answer\x1b[1A\x1b[2K\x07"}
        ]),
    );
    let mut child = w
        .command(&["--offline", "--script", script.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"run it\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = streams(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stdout, "answer␛[1A␛[2K␇\n");
    assert!(
        stderr.contains(&format!(
            "  ✗ nope{ERASE_UP_SHOWN} failed: Unknown tool `nope{ERASE_UP_SHOWN}`. Nothing was executed."
        )),
        "{stderr}"
    );
    // The engine refused to start the program: the call finished, with a reason.
    assert!(
        stderr.contains("  ✗ exec: failed to start: program or cwd not found"),
        "{stderr}"
    );
}

#[test]
fn a_long_failure_reason_is_bounded_and_says_how_much_is_left_out() {
    let w = World::new();
    let name = format!("x{}", "y".repeat(5_000));
    let script = w.script(
        "long.json",
        json!([
            {"tool_calls": [{"name": name, "arguments": {}}]},
            {"text": "done"}
        ]),
    );
    let out = w
        .command(&["--offline", "--script", script.to_str().unwrap(), "go"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (_, stderr) = streams(&out);
    let failed = stderr
        .lines()
        .find(|l| l.contains(" failed: "))
        .unwrap_or_else(|| panic!("no failed tool line: {stderr}"));
    let reason = failed.split_once(" failed: ").unwrap().1;
    assert!(reason.starts_with("Unknown tool `xyyy"), "{reason}");
    assert!(
        reason.chars().count() < 700,
        "bounded: {} chars",
        reason.len()
    );
    assert!(
        reason.contains("… (") && reason.ends_with(" more bytes)"),
        "says what is left out: {reason}"
    );
}

#[test]
fn an_error_naming_a_hostile_file_shows_its_name_visibly() {
    let w = World::new();
    let script = w.path(&format!("no{ERASE_UP}such.json"));
    let out = w
        .command(&["--offline", "--script", script.to_str().unwrap(), "go"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (_, stderr) = streams(&out);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr.contains(&format!("no{ERASE_UP_SHOWN}such.json")),
        "{stderr}"
    );
}

//! What `--help` and the man pages say matches what the binaries do (each found by trying the
//! docs as a newcomer would).

use std::io::Write;
use std::process::{Command, Stdio};

use crate::harness::World;

/// `ash ARGS` with `input` on stdin.
fn ash(args: &[&str], input: &[u8]) -> std::process::Output {
    let scratch = tempfile::tempdir().unwrap();
    // `ash` is built beside `ansa` (another package of the workspace).
    let ansa = std::path::Path::new(env!("CARGO_BIN_EXE_ansa"));
    let exe = ansa.with_file_name("ash");
    assert!(
        exe.is_file(),
        "{} is missing: build the workspace (cargo test --workspace does)",
        exe.display()
    );
    let mut child = Command::new(exe)
        .args(args)
        .current_dir(scratch.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn ash_help_gives_the_exit_status_ash_run_uses_for_input_that_is_not_ason() {
    let help = String::from_utf8(ash(&["--help"], b"").stdout).unwrap();
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("3 (run and ason: input over 8 MiB, not UTF-8 or not ASON)"),
        "{help}"
    );
    // The contract (docs/contract/ash-protocol.md §2.5): ASON syntax in `run` is code 4,
    // exit 3; a document that is ASON but not a request is exit 4.
    let out = ash(&["run"], b"k:\"unterminated\n");
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let out = ash(&["run"], b"k:safe\n");
    assert_eq!(out.status.code(), Some(4), "{out:?}");
}

#[test]
fn ansa_help_says_how_to_sign_in_with_another_issuer() {
    let w = World::new();
    let out = w.command(&["--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(r#""auth": {"issuer": "https://..."} signs in with another issuer"#),
        "{help}"
    );
}
